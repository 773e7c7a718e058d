//! serde_with's adapters, as its `#[serde_as]` macro and its impls write and read them.
//!
//! `#[serde_as(as = "A")]` on a field becomes `#[serde(with = "serde_with::As::<A>")]` (serde_with_macros'
//! `serde_as_add_attr_to_field`; `serialize_as`/`deserialize_as` become `serialize_with`/
//! `deserialize_with`), plus `#[serde(default)]` when both `A` and the field's type are `Option`
//! (unless `no_default`). Each adapter `A` is read here into the model type of what it writes and what
//! it reads, matched structurally against the field's own (already lowered) type: `Vec<DisplayFromStr>`
//! over a `Vec<u32>` is a list of strings that parse as `u32`. Adapters are recognized by their last path
//! segment, as they are written after `use serde_with::...`. An adapter not modelled here leaves the
//! field's `with` opaque, as any custom function is.
//!
//! `#[skip_serializing_none]` adds `skip_serializing_if = "Option::is_none"` to each field whose type
//! is written `Option<...>` (not through an alias) and that has neither its own `skip_serializing_if` nor
//! `#[serialize_always]`. `with = "serde_with::rust::double_option"` and the other `serde_with::rust`
//! modules are read too.

use syn::{Attribute, GenericArgument, PathArguments, Type};

use super::syntax::tokens_text;
use crate::model::{
    Body, ContainerAttrs, EnumRepr, Field, Location, SeqKind, SkipSer, Style, Ty, TypeDef, Variant,
};

/// A field's `#[serde_as(...)]`.
#[derive(Default)]
pub(super) struct SerdeAs {
    /// `as = "..."`.
    pub both: Option<Type>,
    /// `serialize_as = "..."`.
    pub ser: Option<Type>,
    /// `deserialize_as = "..."`.
    pub de: Option<Type>,
    /// `no_default`: no `#[serde(default)]` is added to an `Option` field.
    pub no_default: bool,
}

/// Reads a field's `#[serde_as(...)]` attributes; `None` when it has none.
pub(super) fn serde_as(attrs: &[Attribute]) -> Option<Result<SerdeAs, syn::Error>> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde_as")) {
        let out = found.get_or_insert_with(|| Ok(SerdeAs::default()));
        let Ok(out) = out else { continue };
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let ty = || -> syn::Result<Type> {
                let lit: syn::LitStr = meta.value()?.parse()?;
                lit.parse()
            };
            match key.trim_start_matches("r#") {
                "as" => out.both = Some(ty()?),
                "serialize_as" => out.ser = Some(ty()?),
                "deserialize_as" => out.de = Some(ty()?),
                "no_default" => out.no_default = true,
                _ => {
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    }
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            found = Some(Err(error));
        }
    }
    found
}

/// Whether a container is marked `#[skip_serializing_none]` (or `#[serde_with::skip_serializing_none]`).
pub(super) fn skip_serializing_none(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "skip_serializing_none")
    })
}

/// Whether `#[skip_serializing_none]` makes a field skipped when `None`: its type is written as std's
/// `Option` (as serde_with_macros' `is_std_option` reads it), with neither `skip_serializing_if` (`has_if`)
/// nor `#[serialize_always]`.
pub(super) fn skipped_when_none(field: &syn::Field, has_if: bool) -> bool {
    let always = field
        .attrs
        .iter()
        .any(|a| a.path().is_ident("serialize_always"));
    !has_if && !always && is_std_option(&field.ty)
}

/// serde_with_macros' `is_std_option`: `Option`, `std::option::Option`, `core::option::Option`.
pub(super) fn is_std_option(ty: &Type) -> bool {
    match ty {
        Type::Group(g) => is_std_option(&g.elem),
        Type::Paren(p) => is_std_option(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            let names: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            (p.path.leading_colon.is_none() && names == ["Option"])
                || (names.len() == 3
                    && (names[0] == "std" || names[0] == "core")
                    && names[1] == "option"
                    && names[2] == "Option")
        }
        _ => false,
    }
}

/// A `with = "..."` module of serde_with: `serde_with::rust::*`, or `serde_with::As::<A>` written by
/// hand. `None` when the module is not serde_with's.
pub(super) enum WithModule {
    /// `As::<A>`: the adapter `A`.
    As(Box<Type>),
    /// A `serde_with::rust` module, by name.
    Rust(String),
}

/// Reads a `with` module path (`serde_with::rust::double_option`, `::serde_with::As::<DisplayFromStr>`).
pub(super) fn with_module(module: &str) -> Option<WithModule> {
    let path: syn::Path = syn::parse_str(module).ok()?;
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = path.segments.last()?;
    if last.ident == "As" {
        let arg = first_type_arg(&last.arguments)?;
        return Some(WithModule::As(Box::new(arg.clone())));
    }
    match names.as_slice() {
        [.., krate, rust, name] if krate == "serde_with" && rust == "rust" => {
            Some(WithModule::Rust(name.clone()))
        }
        _ => None,
    }
}

fn first_type_arg(args: &PathArguments) -> Option<&Type> {
    type_args(args).into_iter().next()
}

fn type_args(args: &PathArguments) -> Vec<&Type> {
    match args {
        PathArguments::AngleBracketed(angle) => angle
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What a `serde_with::rust` module does to the field's type: `Err` for one not modelled.
pub(super) fn rust_module(name: &str, field: &Ty) -> Result<Ty, String> {
    match (name, field) {
        // `None` is left out (with `skip_serializing_if`), `Some(None)` is `null`, `Some(Some(x))` is `x`;
        // `null` reads as `Some(None)` and a missing key (with `default`) as `None`.
        ("double_option", Ty::Option { inner }) if matches!(**inner, Ty::Option { .. }) => {
            Ok((**inner).clone())
        }
        // `Some(x)` is `x` (`None` must be skipped); reading gives `Some`.
        ("unwrap_or_skip", Ty::Option { inner }) => Ok((**inner).clone()),
        // The same sequence or map; only duplicates are treated otherwise.
        (
            "sets_duplicate_value_is_error"
            | "sets_last_value_wins"
            | "maps_duplicate_key_is_error"
            | "maps_first_key_wins",
            _,
        ) => Ok(field.clone()),
        _ => Err(format!(
            "`serde_with::rust::{name}` over `{field}` is not modelled"
        )),
    }
}

/// A scalar's name and a value of it as text, for the domains of strings that parse as it.
fn scalar_text(ty: &Ty) -> Option<(String, &'static str, Option<&'static str>)> {
    Some(match ty {
        Ty::Int { signed: true, .. } => (ty.to_string(), "-1", Some("x")),
        Ty::Int { signed: false, .. } => (ty.to_string(), "1", Some("x")),
        Ty::Float { .. } => (ty.to_string(), "1.5", Some("x")),
        Ty::Bool => ("bool".to_owned(), "true", Some("yes")),
        Ty::Char => ("char".to_owned(), "a", Some("ab")),
        Ty::String => ("String".to_owned(), "a", None),
        _ => return None,
    })
}

/// The other integer types whose range holds every value of `(signed, bits)`: the names of the domains
/// whose readers accept every string this one writes.
fn wider_ints(signed: bool, bits: u8) -> Vec<String> {
    let mut out = Vec::new();
    for wider in [8u8, 16, 32, 64, 128] {
        if !signed && wider > bits {
            out.push(format!("u{wider}"));
        }
        if wider > bits || (signed && wider == bits) {
            out.push(format!("i{wider}"));
        }
    }
    out.retain(|name| *name != format!("{}{bits}", if signed { 'i' } else { 'u' }));
    out
}

/// A string that the reader parses as `ty` (serde_with's `DisplayFromStr`: `Display` when writing,
/// `deserialize_str` then `FromStr` when reading, so a number on the wire is rejected).
fn display_from_str(ty: &Ty) -> Ty {
    match ty {
        Ty::String => Ty::String,
        // Already a string that parses (a catalogued `Url`, `Uuid`): the same string.
        ty if parsed_string(ty) => ty.clone(),
        // A type with a human-readable form (`Uuid`, `Ipv4Addr`) whose `Display` is that form: the
        // adapter writes it in every format.
        Ty::Readable { human, .. } => display_from_str(human),
        // A type that writes a string that parses and reads more (`Decimal`): the string it writes.
        Ty::Choice { writes, .. } if parsed_string(writes) => (**writes).clone(),
        // A `char`'s `Display` is the one-character string its `Serialize` writes in human-readable
        // formats, and its `FromStr` reads exactly one character, as its `Deserialize` does there;
        // compact formats write a `char` otherwise.
        Ty::Char => Ty::Readable {
            human: Box::new(Ty::Char),
            compact: Box::new(scalar_string(ty)),
        },
        _ => scalar_string(ty),
    }
}

/// Whether `ty` is a string that its reader parses.
fn parsed_string(ty: &Ty) -> bool {
    matches!(ty, Ty::Refined { base, .. } if **base == Ty::String)
}

/// A string that parses as the scalar `ty` (opaque for another type).
fn scalar_string(ty: &Ty) -> Ty {
    match scalar_text(ty) {
        Some((name, sample, outside)) => Ty::Refined {
            base: Box::new(Ty::String),
            within: match ty {
                Ty::Int { signed, bits } => wider_ints(*signed, *bits),
                Ty::Float { bits: 32 } => vec!["f64".to_owned()],
                _ => Vec::new(),
            },
            domain: name,
            sample: serde_json::Value::String(sample.to_owned()).to_string(),
            outside: outside.map(|o| serde_json::Value::String(o.to_owned()).to_string()),
            extent: None,
        },
        None => Ty::external(format!("serde_with::DisplayFromStr over {ty}")),
    }
}

/// `ty` as a string, named by what it holds.
fn string_of(domain: String, sample: &str, outside: Option<&str>) -> Ty {
    Ty::Refined {
        base: Box::new(Ty::String),
        domain,
        within: Vec::new(),
        sample: serde_json::Value::String(sample.to_owned()).to_string(),
        outside: outside.map(|o| serde_json::Value::String(o.to_owned()).to_string()),
        extent: None,
    }
}

/// The path of the untagged enum [`one_or_many_def`] defines.
pub(crate) const ONE_OR_MANY: &str = "serde_with::OneOrMany";

/// serde_with's `OneOrMany<T, PreferOne>` as the untagged enum it behaves as: a one-element sequence is
/// written as its element, others as a sequence; reading tries one element, then a sequence. The
/// sequences written are `Empty` (`[]`) and `Pair` (`[a, b]`, for every longer one: the model has no type
/// of "two or more"); `Many` reads any sequence and is never written (a writer never writes `[a]`).
pub(super) fn one_or_many_def() -> TypeDef {
    let field = |ty: Ty| Field {
        rust_name: "0".to_owned(),
        ser_name: "0".to_owned(),
        de_names: vec!["0".to_owned()],
        ty,
        default: false,
        skip_ser: SkipSer::Never,
        skip_de: false,
        flatten: false,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    };
    let variant = |name: &str, ty: Ty, written: bool| Variant {
        skip_ser: !written,
        ..Variant::plain(name, Style::Tuple, vec![field(ty)], Location::default())
    };
    let param = Ty::Param {
        name: "T".to_owned(),
    };
    TypeDef {
        package: None,
        path: ONE_OR_MANY.to_owned(),
        generics: vec!["T".to_owned()],
        attrs: ContainerAttrs {
            ser_name: "OneOrMany".to_owned(),
            repr: EnumRepr::Untagged,
            ..ContainerAttrs::default()
        },
        body: Body::Enum {
            variants: vec![
                variant("One", param.clone(), true),
                variant(
                    "Empty",
                    Ty::Array {
                        elem: Box::new(param.clone()),
                        len: 0,
                    },
                    true,
                ),
                variant(
                    "Pair",
                    Ty::Tuple {
                        elems: vec![param.clone(), param.clone()],
                    },
                    true,
                ),
                variant("Many", seq(param), false),
            ],
        },
        location: Location::default(),
    }
}

/// Reads serde_with adapters into model types. `lower` lowers a Rust type named inside an adapter
/// (`FromInto<T>`'s `T`); `one_or_many` is set when the [`one_or_many_def`] is named.
pub(super) struct Adapters<'l> {
    pub lower: &'l mut dyn FnMut(&Type) -> Ty,
    pub one_or_many: bool,
}

/// The element type of a collection the field holds (a sequence's element, a map's `(key, value)`).
fn element(field: &Ty) -> Result<Ty, String> {
    match field {
        Ty::Seq { elem, .. } | Ty::Array { elem, .. } => Ok((**elem).clone()),
        Ty::Map { key, value } => Ok(Ty::Tuple {
            elems: vec![(**key).clone(), (**value).clone()],
        }),
        other => Err(format!("`{other}` is not a collection")),
    }
}

/// The key and value types of a map the field holds (a map, or a sequence of pairs).
fn entry(field: &Ty) -> Result<(Ty, Ty), String> {
    match field {
        Ty::Map { key, value } => Ok(((**key).clone(), (**value).clone())),
        Ty::Seq { elem, .. } | Ty::Array { elem, .. } => match &**elem {
            Ty::Tuple { elems } if elems.len() == 2 => Ok((elems[0].clone(), elems[1].clone())),
            other => Err(format!("`{other}` is not a pair")),
        },
        other => Err(format!("`{other}` is not a map")),
    }
}

impl Adapters<'_> {
    /// The model type of the field (of model type `field`) written and read through the adapter `adapter`.
    pub fn adapt(&mut self, adapter: &Type, field: &Ty) -> Result<Ty, String> {
        match adapter {
            Type::Infer(_) => Ok(field.clone()),
            Type::Paren(p) => self.adapt(&p.elem, field),
            Type::Group(g) => self.adapt(&g.elem, field),
            Type::Reference(r) => self.adapt(&r.elem, field),
            Type::Tuple(tuple) => match field {
                Ty::Tuple { elems } if elems.len() == tuple.elems.len() => Ok(Ty::Tuple {
                    elems: tuple
                        .elems
                        .iter()
                        .zip(elems)
                        .map(|(a, f)| self.adapt(a, f))
                        .collect::<Result<_, _>>()?,
                }),
                Ty::Unit if tuple.elems.is_empty() => Ok(Ty::Unit),
                other => Err(format!("`{other}` is not a tuple of {}", tuple.elems.len())),
            },
            Type::Array(array) => match field {
                Ty::Array { elem, len } => Ok(Ty::Array {
                    elem: Box::new(self.adapt(&array.elem, elem)?),
                    len: *len,
                }),
                other => Err(format!("`{other}` is not an array")),
            },
            Type::Slice(slice) => Ok(Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(self.adapt(&slice.elem, &element(field)?)?),
            }),
            Type::Path(path) if path.qself.is_none() => {
                let last = path
                    .path
                    .segments
                    .last()
                    .ok_or_else(|| "an empty path".to_owned())?;
                let args = type_args(&last.arguments);
                self.named(&last.ident.to_string(), &args, field)
            }
            other => Err(format!("`{}` is not an adapter", tokens_text(other))),
        }
    }

    /// The adapter argument `i`, or serde_with's default `Same` (the field's own type).
    fn arg_or_same(&mut self, args: &[&Type], i: usize, field: &Ty) -> Result<Ty, String> {
        match args.get(i) {
            Some(arg) => self.adapt(arg, field),
            None => Ok(field.clone()),
        }
    }

    /// A named adapter (or a std container of adapters) with its type arguments.
    fn named(&mut self, name: &str, args: &[&Type], field: &Ty) -> Result<Ty, String> {
        if let Some(ty) = self.container(name, args, field)? {
            return Ok(ty);
        }
        if let Some(ty) = self.lenient_reader(name, args, field)? {
            return Ok(ty);
        }
        self.value_adapter(name, args, field)
    }

    /// std's containers of adapters (`Option<A>`, `Vec<A>`, maps), serde_with's `Same`, `Map` (pairs
    /// written and read as a map) and `Seq` (a map written and read as pairs); `None` for another name.
    fn container(&mut self, name: &str, args: &[&Type], field: &Ty) -> Result<Option<Ty>, String> {
        let arg = |i: usize| type_arg(name, args, i);
        let this = self;
        Ok(Some(match name {
            "Same" => field.clone(),
            "Option" => match field {
                Ty::Option { inner } => Ty::Option {
                    inner: Box::new(this.adapt(arg(0)?, inner)?),
                },
                other => return Err(format!("`{other}` is not an `Option`")),
            },
            "Box" | "Rc" | "Arc" | "Cell" | "RefCell" | "Mutex" | "RwLock" | "Cow" => {
                this.adapt(arg(0)?, field)?
            }
            "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" => Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(this.adapt(arg(0)?, &element(field)?)?),
            },
            "HashSet" | "BTreeSet" => Ty::Seq {
                kind: SeqKind::Set,
                elem: Box::new(this.adapt(arg(0)?, &element(field)?)?),
            },
            "HashMap" | "BTreeMap" | "Map" | "IndexMap" => {
                let (key, value) = entry(field)?;
                Ty::Map {
                    key: Box::new(this.adapt(arg(0)?, &key)?),
                    value: Box::new(this.adapt(arg(1)?, &value)?),
                }
            }
            "Seq" => {
                let (key, value) = entry(field)?;
                let pair = Ty::Tuple {
                    elems: vec![key, value],
                };
                seq(this.adapt(arg(0)?, &pair)?)
            }
            _ => return Ok(None),
        }))
    }

    /// The adapters whose reader takes more than the writer writes (a default for `null` or an error,
    /// one element or many, the first of several adapters): `Ty::Choice`s; `None` for another name.
    fn lenient_reader(
        &mut self,
        name: &str,
        args: &[&Type],
        field: &Ty,
    ) -> Result<Option<Ty>, String> {
        let choice = |writes: Ty, reads: Vec<Ty>| Ty::Choice {
            writes: Box::new(writes),
            reads,
        };
        let this = self;
        Ok(Some(match name {
            "DefaultOnNull" => {
                let ty = this.arg_or_same(args, 0, field)?;
                choice(
                    ty.clone(),
                    vec![Ty::Option {
                        inner: Box::new(ty),
                    }],
                )
            }
            "DefaultOnError" => {
                let ty = this.arg_or_same(args, 0, field)?;
                choice(ty.clone(), vec![ty, Ty::Value])
            }
            "VecSkipError" => {
                let elem = this.adapt(type_arg(name, args, 0)?, &element(field)?)?;
                let tolerant = choice(elem.clone(), vec![elem.clone(), Ty::Value]);
                choice(seq(elem), vec![seq(tolerant)])
            }
            "BytesOrString" => choice(seq(byte()), vec![seq(byte()), Ty::String, Ty::Bytes]),
            "OneOrMany" => this.one_or_many(args, field)?,
            "PickFirst" => this.pick_first(args, field)?,
            _ => return Ok(None),
        }))
    }

    /// `OneOrMany<A, PreferMany>` writes a list and reads one element or a list; with `PreferOne`
    /// (the default) it is serde_with's untagged enum (`ONE_OR_MANY`).
    fn one_or_many(&mut self, args: &[&Type], field: &Ty) -> Result<Ty, String> {
        let elem = self.adapt(type_arg("OneOrMany", args, 0)?, &element(field)?)?;
        let prefer_many = args
            .get(1)
            .is_some_and(|a| tokens_text(*a).ends_with("PreferMany"));
        if prefer_many {
            return Ok(Ty::Choice {
                writes: Box::new(seq(elem.clone())),
                reads: vec![elem.clone(), seq(elem)],
            });
        }
        self.one_or_many = true;
        Ok(Ty::Named {
            path: ONE_OR_MANY.to_owned(),
            args: vec![elem],
        })
    }

    /// `PickFirst<(A, B, ...)>`: written as `A`, read as the first that decodes.
    fn pick_first(&mut self, args: &[&Type], field: &Ty) -> Result<Ty, String> {
        match type_arg("PickFirst", args, 0)? {
            Type::Tuple(choices) if !choices.elems.is_empty() => {
                let reads: Vec<Ty> = choices
                    .elems
                    .iter()
                    .map(|c| self.adapt(c, field))
                    .collect::<Result<_, _>>()?;
                Ok(Ty::Choice {
                    writes: Box::new(reads[0].clone()),
                    reads,
                })
            }
            _ => Err("`PickFirst` takes a tuple of adapters".to_owned()),
        }
    }

    /// The adapters that write a value in another form (a string that parses, bytes, a number of
    /// seconds, a proxy type).
    fn value_adapter(&mut self, name: &str, args: &[&Type], field: &Ty) -> Result<Ty, String> {
        let ends_with = |i: usize, suffix: &str| {
            args.get(i)
                .is_some_and(|a| tokens_text(*a).ends_with(suffix))
        };
        Ok(match name {
            "DisplayFromStr" => display_from_str(field),
            "NoneAsEmptyString" => none_as_empty_string(field)?,
            "Bytes" => Ty::Bytes,
            "Base64" => base64(args),
            "Hex" => string_of(
                "hex".to_owned(),
                if ends_with(0, "Uppercase") {
                    "0A0B"
                } else {
                    "0a0b"
                },
                Some("zz"),
            ),
            "BoolFromInt" => bool_from_int(ends_with(0, "Flexible")),
            "StringWithSeparator" => self.string_with_separator(args)?,
            "FromInto" | "FromIntoRef" | "TryFromInto" | "TryFromIntoRef" => {
                // Written and read as `T`; `TryFromInto`'s conversion may reject values of `T`, but
                // which ones is the conversion's secret, so `T` is all the model says.
                (self.lower)(type_arg(name, args, 0)?)
            }
            "IfIsHumanReadable" => Ty::Readable {
                human: Box::new(self.adapt(type_arg(name, args, 0)?, field)?),
                compact: Box::new(self.arg_or_same(args, 1, field)?),
            },
            _ if name.starts_with("Duration") || name.starts_with("Timestamp") => {
                whole_range(timing(name, args)?, name, field)
            }
            _ => return Err(format!("the adapter `{name}` is not modelled")),
        })
    }

    /// `StringWithSeparator<Sep, T>`: the items' `Display` joined by the separator; read by splitting
    /// and `FromStr` (an empty string is no item).
    fn string_with_separator(&mut self, args: &[&Type]) -> Result<Ty, String> {
        let (Some(sep), Some(item)) = (args.first(), args.get(1)) else {
            return Err("`StringWithSeparator` needs a separator and an item type".to_owned());
        };
        let sep = match tokens_text(*sep).rsplit("::").next().unwrap_or_default() {
            "CommaSeparator" => ",".to_owned(),
            "SpaceSeparator" => " ".to_owned(),
            other => other.to_owned(),
        };
        let item = (self.lower)(item);
        let (item_name, sample, outside) = scalar_text(&item)
            .map(|(name, sample, outside)| (name, format!("{sample}{sep}{sample}"), outside))
            .unwrap_or_else(|| (item.to_string(), String::new(), None));
        Ok(string_of(
            format!("`{sep}`-separated {item_name}"),
            &sample,
            outside,
        ))
    }
}

fn seq(elem: Ty) -> Ty {
    Ty::Seq {
        kind: SeqKind::List,
        elem: Box::new(elem),
    }
}

fn byte() -> Ty {
    Ty::Int {
        signed: false,
        bits: 8,
    }
}

/// `NoneAsEmptyString` over `Option<T>`: `None` is written `""`, `Some(x)` as `x`'s `Display`; read
/// with `deserialize_any`: `""` and `null` are `None`, another string parses as `T`.
fn none_as_empty_string(field: &Ty) -> Result<Ty, String> {
    let Ty::Option { inner } = field else {
        return Err(format!("`{field}` is not an `Option`"));
    };
    let written = match display_from_str(inner) {
        Ty::Refined {
            domain,
            sample,
            within,
            ..
        } => Ty::Refined {
            base: Box::new(Ty::String),
            domain: format!("{domain} or empty"),
            within: within.iter().map(|w| format!("{w} or empty")).collect(),
            sample,
            outside: None,
            extent: None,
        },
        other => other,
    };
    Ok(Ty::Choice {
        writes: Box::new(written.clone()),
        reads: vec![Ty::Option {
            inner: Box::new(written),
        }],
    })
}

/// `Base64<Alphabet, Padding>`: a string of the bytes in the alphabet; reading accepts padded and
/// unpadded strings (`DecodePaddingMode::Indifferent`) of that alphabet.
fn base64(args: &[&Type]) -> Ty {
    let alphabet = args
        .first()
        .map(|a| {
            tokens_text(*a)
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_else(|| "Standard".to_owned());
    let unpadded = args
        .get(1)
        .is_some_and(|p| tokens_text(*p).ends_with("Unpadded"));
    // The bytes [0, 1, 2, 3] in the standard alphabet.
    let sample = if unpadded { "AAECAw" } else { "AAECAw==" };
    string_of(format!("base64 ({alphabet})"), sample, Some("!"))
}

/// `BoolFromInt`: `false`/`true` written as the `u8` 0/1; read strictly (only 0 and 1) or flexibly
/// (0 is `false`, any other integer `true`).
fn bool_from_int(flexible: bool) -> Ty {
    if flexible {
        return Ty::Choice {
            writes: Box::new(Ty::Int {
                signed: false,
                bits: 8,
            }),
            reads: vec![Ty::Int {
                signed: true,
                bits: 128,
            }],
        };
    }
    Ty::Refined {
        base: Box::new(byte()),
        domain: "0 or 1".to_owned(),
        within: Vec::new(),
        sample: "1".to_owned(),
        outside: Some("2".to_owned()),
        extent: None,
    }
}

/// The adapter `name`'s type argument `i`.
fn type_arg<'t>(name: &str, args: &[&'t Type], i: usize) -> Result<&'t Type, String> {
    args.get(i)
        .copied()
        .ok_or_else(|| format!("`{name}` needs a type argument"))
}

/// A whole number of units written as a 64-bit integer that every value of that integer is read from:
/// a `Duration` (`Duration::from_secs` and its kin take any `u64`) and, on the platforms whose
/// `SystemTime` holds 64 bits of seconds (Linux, macOS), a `SystemTime` (any `i64` is a time there).
/// The unit's domain stays (seconds are no milliseconds); its extent is the integer's whole range, so a
/// plain integer of that type reads and writes the same numbers. chrono's and time's types keep the
/// narrower extent of their range.
fn whole_range(mut ty: Ty, name: &str, field: &Ty) -> Ty {
    let named = |path: &str| matches!(field, Ty::Named { path: p, .. } if p == path);
    let whole = if name.ends_with("WithFrac") {
        None
    } else if name.starts_with("Duration") && named("std::time::Duration") {
        Some((
            0,
            i128::from(u64::MAX),
            Ty::Int {
                signed: false,
                bits: 64,
            },
        ))
    } else if name.starts_with("Timestamp") && named("std::time::SystemTime") {
        Some((
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            Ty::Int {
                signed: true,
                bits: 64,
            },
        ))
    } else {
        None
    };
    if let (
        Some((least, most, int)),
        Ty::Refined {
            base,
            extent,
            outside,
            ..
        },
    ) = (whole, &mut ty)
        && **base == int
    {
        *extent = Some((least.to_string(), most.to_string()));
        *outside = None;
    }
    ty
}

/// serde_with's `Duration*`/`Timestamp*` adapters: a number of seconds (or milli-, micro-,
/// nanoseconds) since the Unix epoch or of a duration, written in the `FORMAT` (`u64` for durations,
/// `i64` for timestamps, `f64` for the `WithFrac` ones, or `String`); `Flexible` reads any number or
/// numeric string.
fn timing(name: &str, args: &[&Type]) -> Result<Ty, String> {
    let (kind, unit) = if let Some(unit) = name.strip_prefix("Duration") {
        ("duration", unit)
    } else if let Some(unit) = name.strip_prefix("Timestamp") {
        ("unix timestamp", unit)
    } else {
        return Err(format!("the adapter `{name}` is not modelled"));
    };
    let (unit, frac) = match unit.strip_suffix("WithFrac") {
        Some(unit) => (unit, true),
        None => (unit, false),
    };
    let unit = match unit {
        "Seconds" => "seconds",
        "MilliSeconds" => "milliseconds",
        "MicroSeconds" => "microseconds",
        "NanoSeconds" => "nanoseconds",
        _ => return Err(format!("the adapter `{name}` is not modelled")),
    };
    let format = args.first().map(|a| tokens_text(*a));
    let base = match format.as_deref() {
        None if frac => Ty::Float { bits: 64 },
        None if kind == "duration" => Ty::Int {
            signed: false,
            bits: 64,
        },
        None => Ty::Int {
            signed: true,
            bits: 64,
        },
        Some("u64") => Ty::Int {
            signed: false,
            bits: 64,
        },
        Some("i64") => Ty::Int {
            signed: true,
            bits: 64,
        },
        Some("f64") => Ty::Float { bits: 64 },
        Some(s) if s.ends_with("String") => Ty::String,
        Some(other) => return Err(format!("`{name}<{other}>` is not modelled")),
    };
    let domain = format!("{kind} in {unit}");
    let i64_ty = Ty::Int {
        signed: true,
        bits: 64,
    };
    // Whole units of a timestamp in an `i64`: the same numbers as chrono's and time's modules write.
    let shared = (kind == "unix timestamp" && !frac && base == i64_ty)
        .then(|| super::known::unix_timestamp_i64(unit, "1700000000"))
        .flatten();
    let written = shared.unwrap_or_else(|| Ty::Refined {
        sample: match &base {
            Ty::String => "\"1700000000\"".to_owned(),
            // Whole units unless `WithFrac`: the others round to the unit when writing.
            Ty::Float { .. } if frac => "1700000000.5".to_owned(),
            Ty::Float { .. } => "1700000000.0".to_owned(),
            _ => "1700000000".to_owned(),
        },
        outside: (base == Ty::String).then(|| "\"x\"".to_owned()),
        base: Box::new(base),
        domain,
        within: Vec::new(),
        extent: None,
    });
    let flexible = args
        .get(1)
        .is_some_and(|s| tokens_text(*s).ends_with("Flexible"));
    Ok(if flexible {
        Ty::Choice {
            writes: Box::new(written),
            reads: vec![
                Ty::Float { bits: 64 },
                string_of("number".to_owned(), "1.5", Some("x")),
            ],
        }
    } else {
        written
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Type {
        syn::parse_str(text).expect("a type")
    }

    #[test]
    fn with_modules_of_serde_with() {
        assert!(matches!(
            with_module("::serde_with::rust::double_option"),
            Some(WithModule::Rust(name)) if name == "double_option"
        ));
        assert!(matches!(
            with_module("serde_with::As::<Vec<DisplayFromStr>>"),
            Some(WithModule::As(adapter)) if tokens_text(&*adapter).replace(' ', "") == "Vec<DisplayFromStr>"
        ));
        assert!(with_module("chrono::serde::ts_seconds").is_none());
        assert!(with_module("not a path").is_none());
    }

    #[test]
    fn option_as_serde_with_macros_sees_it() {
        for yes in [
            "Option<u8>",
            "std::option::Option<u8>",
            "::core::option::Option<u8>",
        ] {
            assert!(is_std_option(&ty(yes)), "{yes}");
        }
        for no in ["::Option<u8>", "MaybeU8", "option::Option<u8>", "[u8; 2]"] {
            assert!(!is_std_option(&ty(no)), "{no}");
        }
    }

    #[test]
    fn wider_integer_domains() {
        assert_eq!(
            wider_ints(false, 32),
            ["u64", "i64", "u128", "i128"].map(String::from)
        );
        assert_eq!(wider_ints(true, 64), ["i128"].map(String::from));
        assert_eq!(wider_ints(false, 128), Vec::<String>::new());
    }

    #[test]
    fn timestamps_and_durations_by_format() {
        let at = timing("TimestampMilliSecondsWithFrac", &[]).expect("modelled");
        assert_eq!(at.to_string(), "f64 (unix timestamp in milliseconds)");
        let string = ty("String");
        let d = timing("DurationNanoSeconds", &[&string]).expect("modelled");
        assert!(matches!(d, Ty::Refined { base, outside: Some(_), .. } if *base == Ty::String));
        assert!(timing("DurationFortnights", &[]).is_err());
        let i32_ty = ty("i32");
        assert!(timing("TimestampSeconds", &[&i32_ty]).is_err());
    }

    #[test]
    fn adapters_that_do_not_fit_the_field_say_why() {
        let mut lower = |_: &Type| Ty::Unit;
        let mut adapters = Adapters {
            lower: &mut lower,
            one_or_many: false,
        };
        let err = adapters
            .adapt(&ty("Vec<DisplayFromStr>"), &Ty::Bool)
            .expect_err("a bool is no collection");
        assert!(err.contains("not a collection"), "{err}");
        let err = adapters
            .adapt(&ty("EnumMap"), &Ty::Bool)
            .expect_err("not modelled");
        assert!(err.contains("`EnumMap`"), "{err}");
    }
}
