//! Resolving a model type to its wire shape, one level deep: generic substitution, aliases,
//! `into`/`from` proxies, transparent and newtype structs.

use super::wording::custom_text;
use crate::findings::Side;
use crate::model::{
    Body, ContainerAttrs, Field, SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};

/// How deep resolution and comparison go before giving up (generic instantiations can grow forever).
pub(crate) const MAX_DEPTH: usize = 64;

/// One revision's snapshot, and which side of the comparison it is.
#[derive(Clone, Copy)]
pub(crate) struct SideRef<'a> {
    pub snapshot: &'a Snapshot,
    pub side: Side,
}

/// Whether a type is looked at as written (`into` applies) or as read (`from` applies).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Role {
    Writer,
    Reader,
}

impl Role {
    /// Whether a field takes part on the wire in this role (not skipped when writing, or when reading).
    pub fn sees(self, field: &Field) -> bool {
        match self {
            Role::Writer => written(field),
            Role::Reader => !field.skip_de,
        }
    }
}

/// A braced struct, with fields already substituted.
#[derive(Clone, Debug)]
pub(crate) struct StructDef {
    pub fields: Vec<Field>,
    pub attrs: ContainerAttrs,
}

/// An enum, with variant fields already substituted.
#[derive(Clone, Debug)]
pub(crate) struct EnumDef {
    pub variants: Vec<Variant>,
    pub attrs: ContainerAttrs,
}

/// What a type is on the wire, one level deep.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Bool,
    Char,
    Str,
    Int {
        signed: bool,
        bits: u8,
    },
    Float {
        bits: u8,
    },
    /// `()`, a unit struct: `null`.
    Unit,
    /// `serde_json::Value`.
    Value,
    Option(Ty),
    Seq(SeqKind, Ty),
    Array(Ty, u64),
    /// Tuples and tuple structs of two or more fields (the fields, for names and locations).
    Tuple(Vec<Ty>, Vec<Field>),
    Map(Ty, Ty),
    Struct(StructDef),
    Enum(EnumDef),
    /// A type from another crate: compared by path.
    External(String),
    /// A named type missing from the snapshot, or an unbound generic parameter.
    Unresolved(String),
}

/// A resolved type: its shape and the outermost definition it went through, if any.
pub(crate) struct Resolved<'a> {
    pub shape: Shape,
    pub def: Option<&'a TypeDef>,
}

/// Substitutes generic parameters.
pub(crate) fn subst(ty: &Ty, params: &[String], args: &[Ty]) -> Ty {
    if params.is_empty() {
        return ty.clone();
    }
    let boxed = |t: &Ty| Box::new(subst(t, params, args));
    match ty {
        Ty::Param { name } => match params.iter().position(|p| p == name) {
            Some(i) => args.get(i).cloned().unwrap_or_else(|| ty.clone()),
            None => ty.clone(),
        },
        Ty::Option { inner } => Ty::Option {
            inner: boxed(inner),
        },
        Ty::Seq { kind, elem } => Ty::Seq {
            kind: *kind,
            elem: boxed(elem),
        },
        Ty::Array { elem, len } => Ty::Array {
            elem: boxed(elem),
            len: *len,
        },
        Ty::Tuple { elems } => Ty::Tuple {
            elems: elems.iter().map(|t| subst(t, params, args)).collect(),
        },
        Ty::Map { key, value } => Ty::Map {
            key: boxed(key),
            value: boxed(value),
        },
        Ty::Named { path, args: own } => Ty::Named {
            path: path.clone(),
            args: own.iter().map(|t| subst(t, params, args)).collect(),
        },
        other => other.clone(),
    }
}

/// A field with its type's generic parameters substituted.
pub(crate) fn subst_field(field: &Field, params: &[String], args: &[Ty]) -> Field {
    let mut field = field.clone();
    field.ty = subst(&field.ty, params, args);
    field
}

/// Container attributes with the proxy types' generic parameters substituted.
pub(crate) fn subst_attrs(
    attrs: &ContainerAttrs,
    params: &[String],
    args: &[Ty],
) -> ContainerAttrs {
    let mut attrs = attrs.clone();
    if let Some(proxy) = &mut attrs.from {
        proxy.ty = subst(&proxy.ty, params, args);
    }
    if let Some(ty) = &mut attrs.into {
        *ty = subst(ty, params, args);
    }
    attrs
}

/// Whether a definition is a braced struct with exactly one field (where `transparent` changes the wire).
pub(crate) fn is_braced_single(def: &TypeDef) -> bool {
    matches!(&def.body, Body::Struct { style: Style::Named, fields } if fields.len() == 1)
}

/// Whether a field is written by its writer.
pub(crate) fn written(field: &Field) -> bool {
    field.skip_ser != SkipSer::Always
}

/// Whether a field has a custom deserializer.
pub(crate) fn has_custom_de(field: &Field) -> bool {
    field.custom.as_ref().is_some_and(|c| c.de.is_some())
}

/// Whether two variants are the same one across releases: same Rust name or same wire name.
pub(crate) fn same_variant(a: &Variant, b: &Variant) -> bool {
    a.rust_name == b.rust_name || a.ser_name == b.ser_name
}

/// One step of resolution: a shape reached, or another type to follow.
enum Step {
    Reached(Shape),
    Follow(Ty),
}

/// Resolves `ty` on `side` one wire level deep.
pub(crate) fn resolve<'a>(side: SideRef<'a>, ty: &Ty, role: Role) -> Resolved<'a> {
    let mut current = ty.clone();
    let mut outermost: Option<&'a TypeDef> = None;
    for _ in 0..MAX_DEPTH {
        let step = match &current {
            Ty::Named { path, args } => {
                let Some(def) = side.snapshot.types.get(path) else {
                    return Resolved {
                        shape: Shape::Unresolved(path.clone()),
                        def: outermost,
                    };
                };
                outermost.get_or_insert(def);
                definition_step(def, path, args, role)
            }
            other => Step::Reached(structural_shape(other)),
        };
        match step {
            Step::Reached(shape) => {
                return Resolved {
                    shape,
                    def: outermost,
                };
            }
            Step::Follow(next) => current = next,
        }
    }
    Resolved {
        shape: Shape::Unresolved(format!("{ty} (too deep)")),
        def: outermost,
    }
}

/// The shape of a type that is not a named definition.
fn structural_shape(ty: &Ty) -> Shape {
    match ty {
        Ty::Bool => Shape::Bool,
        Ty::Char => Shape::Char,
        Ty::String => Shape::Str,
        Ty::Int { signed, bits } => Shape::Int {
            signed: *signed,
            bits: *bits,
        },
        Ty::Float { bits } => Shape::Float { bits: *bits },
        Ty::Unit => Shape::Unit,
        Ty::Value => Shape::Value,
        Ty::Option { inner } => Shape::Option((**inner).clone()),
        Ty::Seq { kind, elem } => Shape::Seq(*kind, (**elem).clone()),
        Ty::Array { elem, len } => Shape::Array((**elem).clone(), *len),
        Ty::Tuple { elems } if elems.is_empty() => Shape::Unit,
        Ty::Tuple { elems } => Shape::Tuple(elems.clone(), Vec::new()),
        Ty::Map { key, value } => Shape::Map((**key).clone(), (**value).clone()),
        // The package version is part of an external type's identity: `url::Url (url 2.5.0)`.
        Ty::External { .. } => Shape::External(ty.to_string()),
        // Interim readings until the walk knows the format and the role (issue 15).
        Ty::Refined { base, .. } => structural_shape(base),
        Ty::Readable { human, .. } => structural_shape(human),
        Ty::Bytes => Shape::Seq(
            SeqKind::List,
            Ty::Int {
                signed: false,
                bits: 8,
            },
        ),
        Ty::Choice { writes, .. } => structural_shape(writes),
        Ty::Param { name } => Shape::Unresolved(name.clone()),
        Ty::Named { path, .. } => Shape::Unresolved(path.clone()),
    }
}

/// One step through a named definition instantiated with `args`: its proxy for the role, its alias
/// target, its single field, or its shape.
fn definition_step(def: &TypeDef, path: &str, args: &[Ty], role: Role) -> Step {
    let params = &def.generics;
    let proxy = match role {
        Role::Writer => def.attrs.into.as_ref(),
        Role::Reader => def.attrs.from.as_ref().map(|proxy| &proxy.ty),
    };
    if let Some(proxy) = proxy {
        return Step::Follow(subst(proxy, params, args));
    }
    match &def.body {
        Body::Alias { target } => Step::Follow(subst(target, params, args)),
        Body::Struct { style, fields } => struct_step(def, path, *style, fields, args, role),
        Body::Enum { variants } => Step::Reached(Shape::Enum(EnumDef {
            variants: variants
                .iter()
                .map(|variant| {
                    let mut variant = variant.clone();
                    variant.fields = variant
                        .fields
                        .iter()
                        .map(|f| subst_field(f, params, args))
                        .collect();
                    variant
                })
                .collect(),
            attrs: subst_attrs(&def.attrs, params, args),
        })),
    }
}

/// A struct: transparent and newtype structs are their one field; others keep their fields.
fn struct_step(
    def: &TypeDef,
    path: &str,
    style: Style,
    fields: &[Field],
    args: &[Ty],
    role: Role,
) -> Step {
    let params = &def.generics;
    let present: Vec<&Field> = fields.iter().filter(|f| role.sees(f)).collect();
    if def.attrs.transparent {
        return match present.first() {
            Some(field) => Step::Follow(subst(&field.ty, params, args)),
            None => Step::Reached(Shape::Unit),
        };
    }
    Step::Reached(match style {
        Style::Unit => Shape::Unit,
        Style::Tuple if fields.len() == 1 => match present.first() {
            Some(field) if field.custom.is_none() => {
                return Step::Follow(subst(&field.ty, params, args));
            }
            Some(field) => Shape::External(format!("{path} (custom: {})", custom_text(field))),
            None => Shape::Unit,
        },
        Style::Tuple => {
            let fields: Vec<Field> = present
                .iter()
                .map(|f| subst_field(f, params, args))
                .collect();
            Shape::Tuple(fields.iter().map(|f| f.ty.clone()).collect(), fields)
        }
        Style::Named => Shape::Struct(StructDef {
            fields: fields
                .iter()
                .map(|f| subst_field(f, params, args))
                .collect(),
            attrs: subst_attrs(&def.attrs, params, args),
        }),
    })
}
