//! Lowering to the model: the declarations of the module trees become [`ProtocolDecl`]s and
//! [`MessageDecl`]s, and every type a message reaches becomes a [`TypeDef`] with its serde-visible shape
//! (wire names, optionality, enum representation, flatten, skip, proxies).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use syn::spanned::Spanned;
use syn::{Attribute, Item};

use super::declarations::{Invalid, allow_decl};
use super::features::CrateFeatures;
use super::names::{NameTarget, Names};
use super::serde_attrs::{self, ContainerSerde, Problems};
use super::syntax::{
    item_attrs, item_generics, item_ident, item_name, path_segments, tokens_text, unraw,
};
use super::tree::{ModuleTree, STD_ROOTS};
use super::{ExtractError, Keep, known, location, note};
use super::{consts, serde_repr, serde_with};
use crate::model::{
    AllowDecl, Body, ContainerAttrs, EnumRepr, ExtractNote, Location, ProtocolDecl, Proxy, SeqKind,
    Snapshot, Style, Ty, TypeDef, Variant,
};
use declared::Declaring;
use fields::custom;
use recorded::{Memo, Revision};

mod declared;
mod defaults;
mod dependencies;
mod fields;
mod gated;
mod hand_written;
mod impls;
mod recorded;

/// Which messages a snapshot keeps (`None`: every message).
type KeepFilter<'k> = Option<&'k dyn Fn(&ProtocolDecl) -> Keep>;

/// Builds the model of the module trees, keeping the messages `keep` asks for.
///
/// Files are parsed when they are needed: every file that may declare, for its declarations, and the
/// modules name resolution visits.
pub(super) fn snapshot(
    tree: &ModuleTree<'_>,
    keep: KeepFilter<'_>,
    features: CrateFeatures,
    shapes: &BTreeMap<String, String>,
) -> Result<Snapshot, ExtractError> {
    let mut names = Names::new(tree);
    names.set_features(features);
    let mut notes: Vec<ExtractNote> = tree.notes().cloned().collect();
    let context = tree.cache.lowered().context(shapes);
    let shapes = gated::Shapes::parse(shapes, &mut notes);
    let mut declaring = Declaring { names, notes };
    let (mut snapshot, queue) = declaring.declarations(tree, keep)?;
    let mut lowering = Lowering {
        rev: Revision::new(declaring.names, declaring.notes),
        shapes,
        context,
        dependency_derives: Memo::default(),
    };
    lowering.reached_types(queue, &mut snapshot);
    let unused: Vec<String> = lowering.shapes.keys().cloned().collect();
    let finished = lowering.rev.finish();
    // Only a snapshot of every message reaches every type a key may name.
    let unused: Vec<String> = unused
        .into_iter()
        .filter(|key| keep.is_none() && !finished.shapes_used.contains(key))
        .collect();
    if let Some(error) = finished.error {
        return Err(error);
    }
    if let (None, Some(error)) = (keep, finished.unknown_rule_id) {
        return Err(error);
    }
    for def in finished.known_defs {
        snapshot
            .types
            .entry(def.path.clone())
            .or_insert_with(|| Arc::new(def));
    }
    keep_reached(&mut snapshot);
    snapshot.notes = finished.notes;
    snapshot
        .notes
        .extend(unused.iter().map(|key| gated::unused_shape_note(key)));
    snapshot.sort();
    Ok(snapshot)
}

/// Leaves out the definitions no message reaches: a known definition added for a type a field named
/// before something else took its place (a `with` function read, whose field is then what the function
/// writes), or a type only such a field reached. A model holds what its messages reach, so that its
/// protocols' parts join back into it (the store relies on that).
fn keep_reached(snapshot: &mut Snapshot) {
    let messages: Vec<&crate::model::MessageDecl> = snapshot.messages.iter().collect();
    let reached: BTreeSet<String> = snapshot
        .reached_from(&messages)
        .into_keys()
        .map(str::to_owned)
        .collect();
    snapshot.types.retain(|path, _| reached.contains(path));
}

/// The type arguments of a path's last segment (`u32` of `Vec<u32>`).
fn type_arguments(path: &syn::Path) -> Vec<&syn::Type> {
    path.segments
        .last()
        .map(|last| match &last.arguments {
            syn::PathArguments::AngleBracketed(angle) => angle
                .args
                .iter()
                .filter_map(|arg| match arg {
                    syn::GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default()
}

/// Where a type item is, for reading its impls: its id, syntax, full path and the scope of its fields.
struct Owner<'o, 'a> {
    id: usize,
    item: &'a Item,
    path: &'o str,
    scope: &'o TypeScope<'o>,
}

/// Where a type is written: what its names resolve against.
struct TypeScope<'s> {
    module: &'s [String],
    /// The type parameters of the definition it is in.
    generics: &'s [String],
    file: &'s str,
}

/// The type lowering of one snapshot: what it may ask of the revision, and what it keeps while it
/// lowers.
struct Lowering<'a> {
    /// The revision, through which every question of a type's lowering is recorded.
    rev: Revision<'a>,
    /// The shapes `wirecheck.toml` declares, by full path.
    shapes: gated::Shapes,
    /// The number of the declared shapes among those of the check's extractions (a lowering is reused
    /// only under the same shapes).
    context: u32,
    /// Whether each dependency type item derives serde, by item and the features it was decided
    /// under (see `Lowering::dependency_derives_serde`).
    dependency_derives: Memo<(usize, BTreeSet<String>), bool>,
}

impl<'a> Lowering<'a> {
    /// Every type reached from the messages' types (`queue`), into `snapshot`.
    fn reached_types(&mut self, mut queue: VecDeque<usize>, snapshot: &mut Snapshot) {
        let mut seen: BTreeSet<usize> = queue.iter().copied().collect();
        while let Some(id) = queue.pop_front() {
            let mut reached = Vec::new();
            let def = self.type_def(id, &mut reached);
            snapshot.types.insert(def.path.clone(), def);
            for next in reached {
                if seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
    }

    /// The definition of a type item; the crate types its fields, variants and proxies name are pushed on
    /// `reached` (see `Lowering::type_def`, which reuses an earlier revision's when it fits).
    fn lower_type_def(&mut self, id: usize, reached: &mut Vec<usize>) -> TypeDef {
        let file = self.rev.item_file(id);
        let Some(item) = self.rev.syntax(id) else {
            // Its text could not be read again (the error is kept: the revision fails with it).
            return TypeDef {
                path: self.rev.canonical(id),
                generics: Vec::new(),
                attrs: ContainerAttrs::default(),
                body: Body::Struct {
                    style: Style::Unit,
                    fields: Vec::new(),
                },
                location: Location {
                    file: file.to_owned(),
                    ..Location::default()
                },
                package: None,
            };
        };
        let module = self.rev.item_module(id);
        let generics = item_generics(item);
        let path = self.rev.canonical(id);
        let scope = TypeScope {
            module: &module,
            generics: &generics,
            file,
        };
        // The item's attributes in the build checked: a derive or `serde(...)` behind a `cfg_attr` that
        // does not hold is not there.
        let built_attrs = self.applied(&scope, item_attrs(item));
        // What a struct or enum derives decides how it is lowered (a type alias is followed).
        let derived = matches!(item, Item::Struct(_) | Item::Enum(_))
            .then(|| impls::derived_serde_traits(&mut self.rev, &module, &built_attrs));
        let impls = self.impls(item, derived, &path);
        if !matches!(impls, impls::Impls::Derived) {
            return self.not_derived(&scope, (id, item), path, &impls, reached);
        }
        let mut def = self.derived_def(&scope, item, path, &built_attrs, reached);
        let derived = match derived {
            Some(derived) => derived,
            None => impls::derived_serde_traits(&mut self.rev, &module, &built_attrs),
        };
        let ident_span = item_ident(item).map_or_else(proc_macro2::Span::call_site, |i| i.span());
        let owner = Owner {
            id,
            item,
            path: &def.path.clone(),
            scope: &scope,
        };
        self.hand_written_side(&owner, derived, &mut def.attrs, ident_span, reached);
        def.package = self.rev.dependency_of(&module).map(|krate| krate.label());
        def
    }

    /// The definition serde's derive gives `item`, at `path`, its attributes in the build checked
    /// being `built_attrs`.
    fn derived_def(
        &mut self,
        scope: &TypeScope<'_>,
        item: &Item,
        path: String,
        built_attrs: &[Attribute],
        reached: &mut Vec<usize>,
    ) -> TypeDef {
        let file = scope.file;
        let mut problems: Problems = Vec::new();
        let mut serde = serde_attrs::container(built_attrs, &mut problems);
        serde.skip_serializing_none = serde_with::skip_serializing_none(item_attrs(item));
        let ident_span = item_ident(item).map_or_else(proc_macro2::Span::call_site, |i| i.span());
        let mut attrs = self.container_attrs(scope, &serde, item_name(item), reached);
        let body = match item {
            Item::Struct(item) => {
                let (style, fields) = self.fields(
                    scope,
                    &item.fields,
                    &serde,
                    serde.rename_all.clone(),
                    reached,
                    &mut problems,
                );
                Body::Struct { style, fields }
            }
            Item::Enum(item) => {
                let mut variants = Vec::new();
                for variant in &item.variants {
                    if self.built(scope, &variant.attrs, || variant.ident.span()) {
                        variants.push(self.variant(scope, &serde, variant, reached, &mut problems));
                    }
                }
                self.integer_enum(scope, &path, (item, built_attrs), &mut attrs, variants)
            }
            Item::Type(item) => Body::Alias {
                target: self.ty(scope, &item.ty, reached),
            },
            _ => Body::Alias {
                target: Ty::external(path.clone()),
            },
        };
        for (span, message) in problems {
            self.rev.push_note(note(file, span, message));
        }
        TypeDef {
            path,
            generics: item_generics(item),
            attrs,
            body,
            location: location(file, ident_span),
            package: None,
        }
    }

    /// An enum's body: as lowered, or, when it derives serde_repr's `Serialize_repr`/`Deserialize_repr`,
    /// written as its discriminants ([`EnumRepr::Integer`], each variant's wire name its discriminant;
    /// serde_repr reads only `#[serde(other)]`). One whose discriminants cannot be evaluated is compared
    /// by path, with a note.
    fn integer_enum(
        &mut self,
        scope: &TypeScope<'_>,
        path: &str,
        (item, built_attrs): (&syn::ItemEnum, &[Attribute]),
        attrs: &mut ContainerAttrs,
        mut variants: Vec<Variant>,
    ) -> Body {
        let file = scope.file;
        let mut named = |segments: &[String]| self.rev.const_value(scope.module, segments);
        let Some(read) = serde_repr::integer_enum(item, built_attrs, &mut named) else {
            return Body::Enum { variants };
        };
        let integer = match read {
            Ok(integer) => integer,
            Err(message) => {
                self.rev.push_note(note(file, item.ident.span(), message));
                return Body::Alias {
                    target: Ty::external(path),
                };
            }
        };
        if integer.one_sided {
            self.rev.push_note(note(
                file,
                item.ident.span(),
                format!(
                    "enum `{}` derives only one of serde_repr's `Serialize_repr`/`Deserialize_repr`: wirecheck models both sides as integers",
                    item.ident
                ),
            ));
        }
        attrs.repr = EnumRepr::Integer {
            signed: integer.signed,
            bits: integer.bits,
        };
        for (variant, discriminant) in variants.iter_mut().zip(integer.discriminants) {
            variant.ser_name = discriminant.to_string();
            variant.de_names = vec![variant.ser_name.clone()];
            variant.skip_ser = false;
            variant.skip_de = false;
            variant.untagged = false;
            variant.custom = None;
        }
        Body::Enum { variants }
    }

    /// The container's serde attributes in the model; `name` is the type's name in Rust.
    fn container_attrs(
        &mut self,
        scope: &TypeScope<'_>,
        serde: &ContainerSerde,
        name: String,
        reached: &mut Vec<usize>,
    ) -> ContainerAttrs {
        let mut attrs = ContainerAttrs {
            ser_name: serde.rename.ser.clone().unwrap_or(name),
            deny_unknown_fields: serde.deny_unknown_fields,
            default: serde.default,
            transparent: serde.transparent,
            repr: match (&serde.tag, &serde.content, serde.untagged) {
                (_, _, true) => EnumRepr::Untagged,
                (Some(tag), Some(content), _) => EnumRepr::Adjacent {
                    tag: tag.clone(),
                    content: content.clone(),
                },
                (Some(tag), None, _) => EnumRepr::Internal { tag: tag.clone() },
                _ => EnumRepr::External,
            },
            from: None,
            into: None,
            hand_written: None,
        };
        attrs.from = match (&serde.try_from, &serde.from) {
            (Some(proxy), _) => Some(Proxy {
                ty: self.ty(scope, proxy, reached),
                fallible: true,
            }),
            (None, Some(proxy)) => Some(Proxy {
                ty: self.ty(scope, proxy, reached),
                fallible: false,
            }),
            _ => None,
        };
        attrs.into = serde
            .into
            .as_ref()
            .map(|proxy| self.ty(scope, proxy, reached));
        attrs
    }

    /// An enum variant, named by its own serde attributes or else the container's `rename_all`.
    fn variant(
        &mut self,
        scope: &TypeScope<'_>,
        container: &ContainerSerde,
        variant: &syn::Variant,
        reached: &mut Vec<usize>,
        problems: &mut Problems,
    ) -> Variant {
        let attrs = self.applied(scope, &variant.attrs);
        let variant_serde = serde_attrs::member(&attrs, problems);
        let rust_name = unraw(&variant.ident);
        let ser_name = variant_serde.rename.ser.clone().unwrap_or_else(|| {
            container
                .rename_all
                .ser
                .unwrap_or_default()
                .apply_to_variant(&rust_name)
        });
        let de_names =
            variant_serde.read_names(variant_serde.rename.de.clone().unwrap_or_else(|| {
                container
                    .rename_all
                    .de
                    .unwrap_or_default()
                    .apply_to_variant(&rust_name)
            }));
        let field_rule = serde_attrs::SerDe {
            ser: variant_serde
                .rename_all
                .ser
                .or(container.rename_all_fields.ser),
            de: variant_serde
                .rename_all
                .de
                .or(container.rename_all_fields.de),
        };
        let no_container = ContainerSerde {
            skip_serializing_none: container.skip_serializing_none,
            ..ContainerSerde::default()
        };
        let (style, fields) = self.fields(
            scope,
            &variant.fields,
            &no_container,
            field_rule,
            reached,
            problems,
        );
        let (since, allow) = self.member_wire(scope.file, &attrs);
        let mut fields = fields;
        let custom =
            self.newtype_variant_functions(scope, style, &mut fields, &variant_serde, reached);
        Variant {
            rust_name,
            ser_name,
            de_names,
            style,
            fields,
            skip_ser: variant_serde.skip_ser,
            skip_de: variant_serde.skip_de,
            other: variant_serde.other,
            untagged: variant_serde.untagged,
            custom,
            since,
            allow,
            location: location(scope.file, variant.ident.span()),
        }
    }

    /// A newtype variant's own functions (`#[serde(with = "..")]` on the variant), which take its one
    /// field's value as a field's do: read like a field's (see `lower/hand_written/with_fns`), the
    /// field then written and read as they do, and the variant no longer custom. Functions of a
    /// variant with more fields, or not read, stay the variant's, compared by name.
    fn newtype_variant_functions(
        &mut self,
        scope: &TypeScope<'_>,
        style: Style,
        fields: &mut [crate::model::Field],
        variant_serde: &serde_attrs::MemberSerde,
        reached: &mut Vec<usize>,
    ) -> Option<crate::model::Custom> {
        let custom = custom(variant_serde)?;
        let [field] = fields else {
            return Some(custom);
        };
        if style != Style::Tuple || field.custom.is_some() {
            return Some(custom);
        }
        field.custom = Some(custom.clone());
        self.with_functions(scope, field, reached);
        if field.custom.take().is_some() {
            return Some(custom);
        }
        None
    }

    /// The `#[wire(since, allow)]` of a field or variant; an invalid one (an unknown rule id, an `allow`
    /// without its `reason`, ...) is kept as an error, as on a message: the compiler rejects it, and
    /// reading past it would drop an allow or a `since` the source means.
    fn member_wire(
        &mut self,
        file: &str,
        attrs: &[Attribute],
    ) -> (Option<semver::Version>, Option<AllowDecl>) {
        if !attrs.iter().any(wirecheck_grammar::is_wire_attr) {
            return (None, None);
        }
        match wirecheck_grammar::parse_member(attrs) {
            Ok(member) => (member.since.map(|v| v.value), allow_decl(&member.allow)),
            Err(error) => {
                let first = error
                    .clone()
                    .into_iter()
                    .find(wirecheck_grammar::is_unknown_rule_id)
                    .unwrap_or(error);
                self.rev.note_unknown_rule(invalid_declaration(
                    file,
                    &Invalid::from(first),
                    "invalid #[wire] on a field or variant".to_owned(),
                ));
                (None, None)
            }
        }
    }

    /// Converts a type as written into the model, recording crate types reached.
    fn ty(&mut self, scope: &TypeScope<'_>, ty: &syn::Type, reached: &mut Vec<usize>) -> Ty {
        match ty {
            syn::Type::Reference(reference) => self.ty(scope, &reference.elem, reached),
            syn::Type::Paren(paren) => self.ty(scope, &paren.elem, reached),
            syn::Type::Group(group) => self.ty(scope, &group.elem, reached),
            syn::Type::Tuple(tuple) if tuple.elems.is_empty() => Ty::Unit,
            syn::Type::Tuple(tuple) => Ty::Tuple {
                elems: tuple
                    .elems
                    .iter()
                    .map(|elem| self.ty(scope, elem, reached))
                    .collect(),
            },
            syn::Type::Slice(slice) => Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(self.ty(scope, &slice.elem, reached)),
            },
            syn::Type::Array(array) => {
                let elem = Box::new(self.ty(scope, &array.elem, reached));
                let mut named = |path: &[String]| self.rev.const_value(scope.module, path);
                match consts::evaluate(&array.len, &mut named).map(u64::try_from) {
                    Some(Ok(len)) => Ty::Array { elem, len },
                    _ => Ty::external(tokens_text(ty)),
                }
            }
            syn::Type::Path(path) if path.qself.is_none() => {
                self.path_ty(scope, &path.path, reached)
            }
            other => {
                self.rev.push_note(note(
                    scope.file,
                    other.span(),
                    format!("type `{}` is not a serializable data type wirecheck can follow; compared by its text", tokens_text(other)),
                ));
                Ty::external(tokens_text(other))
            }
        }
    }

    /// A type named by a path: a type parameter, a crate type, a known std type, or external.
    fn path_ty(&mut self, scope: &TypeScope<'_>, path: &syn::Path, reached: &mut Vec<usize>) -> Ty {
        let segments = path_segments(path);
        let args = type_arguments(path);
        if segments.len() == 1 && scope.generics.contains(&segments[0]) {
            return Ty::Param {
                name: segments[0].clone(),
            };
        }
        let mut found = self.rev.resolve_to_border(scope.module, &segments);
        let mut lowered = None;
        if let Some(entered) = &found.entered {
            match self.known_dependency_ty(scope, entered, &args, reached) {
                Ok(known) => return known,
                Err(args) => lowered = Some(args),
            }
            found = self.rev.resolve(scope.module, &segments);
        }
        if let Some(ty) = self.dependency_ty(scope, path, &found, lowered, &args, reached) {
            return ty;
        }
        let target = found.target;
        // rustc's rule: a one-segment path naming a primitive type that resolves to a module is the
        // primitive type (after `use std::str;`, `str` names std's module `str` too).
        if let (NameTarget::External(full) | NameTarget::Module(full), [name]) =
            (&target, segments.as_slice())
            && is_std_module_of_primitive(full, name)
            && let Some(ty) = known::primitive(name)
        {
            return ty;
        }
        match target {
            NameTarget::Type(id) => {
                reached.push(id);
                let mut args: Vec<Ty> = args
                    .iter()
                    .map(|arg| self.ty(scope, arg, reached))
                    .collect();
                self.fill_default_args(id, &mut args, reached);
                Ty::Named {
                    path: self.rev.canonical(id),
                    args,
                }
            }
            NameTarget::External(full) | NameTarget::Module(full) => {
                // Known std and serde_json types, by name, when they are not shadowed by a crate type.
                let std_like = full.len() == 1
                    || known::catalogued(&full)
                    || full.first().is_some_and(|first| {
                        STD_ROOTS.contains(&first.as_str()) || first == "serde_json"
                    });
                if let Some(declared) = self.declared_shape(scope, &full.join("::"), reached) {
                    return declared;
                }
                if std_like {
                    let args: Vec<Ty> = args.iter().map(|a| self.ty(scope, a, reached)).collect();
                    if let Some(known) = known::lookup(&full, &args, None) {
                        self.rev.add_known_defs(known.defs);
                        return known.ty;
                    }
                }
                if full.len() == 1 {
                    self.note_unresolved(scope, path, &full[0]);
                } else {
                    self.note_missing_in_module(scope, path);
                }
                let args: Vec<Ty> = args.iter().map(|a| self.ty(scope, a, reached)).collect();
                Ty::external(external_path(&full, &args))
            }
        }
    }

    /// A path into a module of the workspace (`tags::C`) whose last segment it does not define (a
    /// macro's output wirecheck did not expand, say): a note naming the module's macros.
    fn note_missing_in_module(&mut self, scope: &TypeScope<'_>, path: &syn::Path) {
        let segments = path_segments(path);
        let Some((_, parent)) = segments.split_last() else {
            return;
        };
        let NameTarget::Module(module) = self.rev.resolve(scope.module, parent).target else {
            return;
        };
        let macros = self.macros_near(&module);
        let written = segments.join("::");
        let from = if macros.is_empty() {
            String::new()
        } else {
            format!(
                "; it may come from {}, which wirecheck cannot expand",
                macros.join(", ")
            )
        };
        let message = format!(
            "type `{written}` is not defined in module `{}` as written{from}: it is compared by name only",
            module.join("::")
        );
        self.rev.push_note(note(scope.file, path.span(), message));
    }

    /// A bare type name that is neither defined, imported nor a known std type.
    fn note_unresolved(&mut self, scope: &TypeScope<'_>, path: &syn::Path, name: &str) {
        let macros = self.macros_near(scope.module);
        let message = if macros.is_empty() {
            format!(
                "type `{name}` is not defined or imported by name in this module (a glob import from another crate?): it is compared by name only"
            )
        } else {
            format!(
                "type `{name}` is not defined in this module as written; it may come from {}, which wirecheck cannot expand: it is compared by name only",
                macros.join(", ")
            )
        };
        self.rev.push_note(note(scope.file, path.span(), message));
    }
}

/// A declaration the compiler rejects: an error rather than a note, since the protocol or message would
/// otherwise look removed.
fn invalid_declaration(file: &str, invalid: &Invalid, what: String) -> ExtractError {
    let at = invalid.at.location(file);
    ExtractError::InvalidDeclaration {
        file: file.to_owned(),
        line: at.line,
        column: at.column,
        message: format!("{what}: {} (the compiler rejects it too)", invalid.message),
    }
}

/// The path of a type outside the crates' derived types: its full resolved path (never the last segment
/// as written: two types of one name in different modules or crates are different), with its generic
/// arguments as the model shows them.
fn external_path(full: &[String], args: &[Ty]) -> String {
    let mut text = full.join("::");
    if !args.is_empty() {
        let args: Vec<String> = args.iter().map(ToString::to_string).collect();
        text.push('<');
        text.push_str(&args.join(", "));
        text.push('>');
    }
    text
}

/// Whether `full` is std's module named like the primitive type `name` (`std::str`, `core::u8`).
fn is_std_module_of_primitive(full: &[String], name: &str) -> bool {
    matches!(full, [root, module] if STD_ROOTS.contains(&root.as_str()) && module == name)
}
