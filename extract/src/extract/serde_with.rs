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

mod values;

use values::{
    base64, bool_from_int, display_from_str, none_as_empty_string, scalar_text, string_of, timing,
    whole_range,
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

/// The path of the untagged enum `one_or_many_def` defines.
pub const ONE_OR_MANY: &str = "serde_with::OneOrMany";

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

/// The adapter `name`'s type argument `i`.
fn type_arg<'t>(name: &str, args: &[&'t Type], i: usize) -> Result<&'t Type, String> {
    args.get(i)
        .copied()
        .ok_or_else(|| format!("`{name}` needs a type argument"))
}

#[cfg(test)]
mod tests {
    use super::values::wider_ints;
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
