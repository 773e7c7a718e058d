//! Hand-written serde impls read into the model where they follow a pattern serde users write again
//! and again (see `read`): the value a `Serialize` hands its serializer, and what a `Deserialize`
//! reads (a type it delegates to, then a conversion, or a check against one string literal, which is
//! that constant alone (`constant`); or a visitor's `visit_*` methods). A side read
//! exactly is compared like a derive; a side read in part (a conversion that may fail, a string whose
//! text is not known) is compared by its shape and by the digest of its source; a side not read at all
//! leaves the type opaque, compared by its source (`serde_impl_changed`).

mod constant;
mod read;
mod with_fns;

use syn::Item;

use super::super::names::NameTarget;
use super::super::reuse::ImplRoots;
use super::super::syntax::{item_attrs, item_generics, item_name, path_segments};
use super::impls::derived_serde_traits;
use super::{Lowering, Owner, TypeScope};
use crate::model::{
    Body, ContainerAttrs, EnumRepr, Field, HandWritten, Location, Proxy, SkipSer, Style, Ty,
    TypeDef, Variant,
};
use read::{Accepts, Reading, Value};

/// What a hand-written impl was read to do: the shape, and whether it was read exactly (else the
/// digest of its source is compared too).
#[derive(Debug, Clone)]
pub(super) struct ReadSide {
    pub(super) ty: Ty,
    pub(super) exact: bool,
    /// A `Deserialize` whose conversion may reject what its shape reads.
    pub(super) fallible: bool,
}

impl<'a> Lowering<'a> {
    /// What the hand-written `Serialize` of `owner` writes, where it can be read.
    pub(super) fn read_serialize(
        &mut self,
        owner: &Owner<'_, 'a>,
        reached: &mut Vec<usize>,
    ) -> Option<ReadSide> {
        let (item, module, file) = only(self.rev.trait_impls(owner.id, ImplRoots::Serialize))?;
        let values = read::serialized(item)?;
        let generics = item_generics(owner.item);
        let impl_scope = TypeScope {
            module: &module,
            generics: &generics,
            file,
        };
        let mut exact = true;
        let mut written = Vec::new();
        for value in &values {
            let (ty, value_exact) = self.value_ty(owner, &impl_scope, value, reached)?;
            exact &= value_exact;
            if !written.contains(&ty) {
                written.push(ty);
            }
        }
        let ty = match written.as_slice() {
            [one] => one.clone(),
            _ => self.union_of(owner.path, "written", written),
        };
        Some(ReadSide {
            ty,
            exact,
            fallible: false,
        })
    }

    /// The model of a value a `Serialize` body writes, and whether it is exactly that.
    fn value_ty(
        &mut self,
        owner: &Owner<'_, 'a>,
        impl_scope: &TypeScope<'_>,
        value: &Value,
        reached: &mut Vec<usize>,
    ) -> Option<(Ty, bool)> {
        match value {
            Value::Field { variant, member } => {
                let ty = field_type(owner.item, variant.as_deref(), member)?;
                Some((self.ty(owner.scope, ty, reached), true))
            }
            Value::Text(Some(inner)) => {
                let (ty, exact) = self.value_ty(owner, impl_scope, inner, reached)?;
                Some(if is_text(&ty) {
                    (ty, exact)
                } else {
                    (Ty::String, false)
                })
            }
            Value::Text(None) => Some((Ty::String, false)),
            Value::Const(text) => Some((constant(text), true)),
            Value::Int(value, ty) => Some((int_constant(*value, ty)?, true)),
            Value::Primitive(name) => Some((primitive(name)?, true)),
            Value::Cast(name) => Some((cast_to(primitive(name)?, name), true)),
            Value::Type(ty) => Some((self.ty(impl_scope, ty, reached), true)),
            Value::Collected { of, into } => {
                let (ty, exact) = self.value_ty(owner, impl_scope, of, reached)?;
                Some((recollected(&ty, *into)?, exact))
            }
        }
    }

    /// What the hand-written `Deserialize` of `owner` reads, where it can be read.
    pub(super) fn read_deserialize(
        &mut self,
        owner: &Owner<'_, 'a>,
        reached: &mut Vec<usize>,
    ) -> Option<ReadSide> {
        let (item, module, file) = only(self.rev.trait_impls(owner.id, ImplRoots::Deserialize))?;
        let generics = item_generics(owner.item);
        let impl_scope = TypeScope {
            module: &module,
            generics: &generics,
            file,
        };
        match read::deserialized(item)? {
            Reading::Delegated {
                ty,
                fallible,
                parsed_into,
                local,
                only,
            } => {
                let base = match local {
                    Some(local) => self.local_type(owner.path, &impl_scope, &local, reached)?,
                    None => self.ty(&impl_scope, ty.as_deref()?, reached),
                };
                // A string checked against one literal: that string alone.
                if let Some(text) = only
                    && is_text(&base)
                {
                    return Some(ReadSide {
                        ty: constant(&text),
                        exact: true,
                        fallible: false,
                    });
                }
                if fallible && is_text(&base) {
                    // A string parsed into a type whose own reading the model knows (a URI, a UUID):
                    // what that type accepts.
                    if let Some(into) = parsed_into {
                        let parsed = syn::Type::Path(syn::TypePath {
                            attrs: Vec::new(),
                            qself: None,
                            path: into,
                        });
                        let ty = self.ty(&impl_scope, &parsed, reached);
                        if matches!(ty, Ty::Refined { .. }) {
                            return Some(ReadSide {
                                ty,
                                exact: true,
                                fallible: false,
                            });
                        }
                    }
                }
                Some(ReadSide {
                    ty: base,
                    exact: !fallible,
                    fallible,
                })
            }
            Reading::Visitor {
                method,
                visitor,
                local,
            } => self.read_visitor(&impl_scope, &method, &visitor, local.as_deref()),
        }
    }

    /// The model of a helper type a `Deserialize` defines in its body (`struct Helper` deriving
    /// `Deserialize`, read and converted), named after `owner_path`; `None` when it does not derive
    /// serde's `Deserialize`.
    fn local_type(
        &mut self,
        owner_path: &str,
        impl_scope: &TypeScope<'_>,
        local: &Item,
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let built_attrs = self.applied(impl_scope, item_attrs(local)).into_owned();
        let derived = derived_serde_traits(&mut self.rev, impl_scope.module, &built_attrs);
        if !derived.deserialize {
            return None;
        }
        let path = format!("{owner_path}::<deserialize>::{}", item_name(local));
        let def = self.derived_def(impl_scope, local, path.clone(), &built_attrs, reached);
        self.rev.add_known_defs(vec![def]);
        Some(Ty::Named {
            path,
            args: Vec::new(),
        })
    }

    /// What a visitor accepts through `deserializer.<method>(visitor)`, as serde_json hands it values
    /// (a number to `visit_u64` when it is not negative, to `visit_i64` when it is).
    fn read_visitor(
        &mut self,
        impl_scope: &TypeScope<'_>,
        method: &str,
        visitor: &syn::Path,
        local: Option<&syn::ItemImpl>,
    ) -> Option<ReadSide> {
        let accepted = match local {
            // Defined in the body that uses it: read there (its source is the body's).
            Some(item) => read::visited(item),
            None => {
                let NameTarget::Type(visitor_id) = self
                    .rev
                    .resolve(impl_scope.module, &path_segments(visitor))
                    .target
                else {
                    return None;
                };
                let (item, ..) = only(self.rev.trait_impls(visitor_id, ImplRoots::Visitor))?;
                read::visited(item)
            }
        };
        let kinds = method_kinds(method)?;
        let accepted: Vec<&Accepts> = accepted
            .iter()
            .filter(|a| kinds.contains(&kind_of(a)))
            .collect();
        let mut reads = Vec::new();
        let mut exact = true;
        if accepted.iter().any(|a| matches!(a, Accepts::Int { .. })) {
            reads.push(int_domain(&accepted)?);
        }
        for accepts in accepted {
            let ty = match *accepts {
                Accepts::Bool => Ty::Bool,
                Accepts::Int { .. } => continue,
                Accepts::Float => Ty::Float { bits: 64 },
                Accepts::Str { parsed } => {
                    exact &= !parsed;
                    Ty::String
                }
                Accepts::Unit => Ty::Unit,
            };
            if !reads.contains(&ty) {
                reads.push(ty);
            }
        }
        let ty = match reads.as_slice() {
            [] => return None,
            [one] => one.clone(),
            _ => Ty::Choice {
                writes: Box::new(reads[0].clone()),
                reads,
            },
        };
        Some(ReadSide {
            ty,
            exact,
            fallible: !exact,
        })
    }

    /// An untagged enum of `alternatives`, named after `path`: one value of one of them, as serde
    /// writes an untagged enum of newtype variants (a `match` writing a different value per variant).
    fn union_of(&mut self, path: &str, what: &str, alternatives: Vec<Ty>) -> Ty {
        let union_path = format!("{path}::<{what}>");
        let variants = alternatives
            .into_iter()
            .enumerate()
            .map(|(index, ty)| newtype_variant(&format!("Alternative{index}"), ty))
            .collect();
        let def = TypeDef {
            path: union_path.clone(),
            generics: Vec::new(),
            attrs: ContainerAttrs {
                ser_name: union_path.clone(),
                repr: EnumRepr::Untagged,
                ..ContainerAttrs::default()
            },
            body: Body::Enum { variants },
            location: Location::default(),
            package: None,
        };
        self.rev.add_known_defs(vec![def]);
        Ty::Named {
            path: union_path,
            args: Vec::new(),
        }
    }

    /// The model of a type whose impls are all written by hand, from what was read of them: the
    /// written shape for writers, the read one (behind a `from` proxy, fallible or not) for readers,
    /// with the digests of the sides read in part. `None` when neither side was read.
    pub(super) fn hand_written_shape(
        &mut self,
        owner: &Owner<'_, 'a>,
        reached: &mut Vec<usize>,
    ) -> Option<(Ty, ContainerAttrs)> {
        let writes = self.read_serialize(owner, reached);
        let reads = self.read_deserialize(owner, reached);
        if writes.is_none() && reads.is_none() {
            return None;
        }
        let opaque = |this: &mut Self, roots: ImplRoots| Ty::External {
            path: owner.path.to_owned(),
            package: None,
            source: this
                .rev
                .impl_source(owner.id, roots)
                .map(|source| source.digest.clone()),
        };
        let digest = |this: &mut Self, side: Option<&ReadSide>, roots: ImplRoots| {
            side.is_none_or(|side| !side.exact)
                .then(|| this.rev.impl_source(owner.id, roots))
                .flatten()
                .map(|source| source.digest.clone())
        };
        let hand_written = HandWritten {
            ser: digest(self, writes.as_ref(), ImplRoots::Serialize),
            de: digest(self, reads.as_ref(), ImplRoots::Deserialize),
        };
        let written = match &writes {
            Some(side) => side.ty.clone(),
            None => opaque(self, ImplRoots::Serialize),
        };
        let (read, fallible) = match &reads {
            Some(side) => (side.ty.clone(), side.fallible),
            None => (opaque(self, ImplRoots::Deserialize), false),
        };
        let attrs = ContainerAttrs {
            from: (read != written || fallible).then_some(Proxy { ty: read, fallible }),
            hand_written: (hand_written != HandWritten::default()).then_some(hand_written),
            ..ContainerAttrs::default()
        };
        Some((written, attrs))
    }
}

/// The one element of `found` (two impls of one trait are each behind a `cfg`: not read).
fn only<T>(found: Vec<T>) -> Option<T> {
    let mut found = found.into_iter();
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// The type of the field `member` of the struct `item`, or of its variant `variant`.
fn field_type<'i>(item: &'i Item, variant: Option<&str>, member: &str) -> Option<&'i syn::Type> {
    let fields = match (item, variant) {
        (Item::Struct(item), None) => &item.fields,
        (Item::Enum(item), Some(variant)) => {
            &item.variants.iter().find(|v| v.ident == variant)?.fields
        }
        _ => return None,
    };
    fields.iter().enumerate().find_map(|(index, field)| {
        let name = field
            .ident
            .as_ref()
            .map_or_else(|| index.to_string(), ToString::to_string);
        (name == member).then_some(&field.ty)
    })
}

/// Whether a value of `ty` is written as a string.
fn is_text(ty: &Ty) -> bool {
    match ty {
        Ty::String => true,
        Ty::Refined { base, .. } => **base == Ty::String,
        _ => false,
    }
}

/// What serde writes of the elements of a value of `ty` collected into `into` (a map stays the map
/// it is, whatever its order; a map's entries in a sequence are pairs); `None` when `ty` is no
/// collection this can tell the elements of.
fn recollected(ty: &Ty, into: read::Collection) -> Option<Ty> {
    let elem = match (ty, into) {
        (Ty::Map { .. }, read::Collection::Map) => return Some(ty.clone()),
        (Ty::Map { key, value }, _) => Ty::Tuple {
            elems: vec![(**key).clone(), (**value).clone()],
        },
        (
            Ty::Seq { elem, .. } | Ty::Array { elem, .. },
            read::Collection::List | read::Collection::Set,
        ) => (**elem).clone(),
        _ => return None,
    };
    let kind = match into {
        read::Collection::Set => crate::model::SeqKind::Set,
        _ => crate::model::SeqKind::List,
    };
    Some(Ty::Seq {
        kind,
        elem: Box::new(elem),
    })
}

/// The model of what `serializer.serialize_<name>` writes.
fn primitive(name: &str) -> Option<Ty> {
    Some(match name {
        "bool" => Ty::Bool,
        "f32" => Ty::Float { bits: 32 },
        "f64" => Ty::Float { bits: 64 },
        "bytes" => Ty::Bytes,
        "unit" | "none" => Ty::Unit,
        "str" | "char" => Ty::String,
        name => {
            let (signed, bits) = read::int_type(name)?;
            Ty::Int { signed, bits }
        }
    })
}

/// A value cast to the primitive `name` (`ty`): of that type, but only the values the cast makes of
/// its operand (whole numbers, a narrower range), which the model does not know: a refined `ty`
/// without a sample, so that no witness is built from a value the code may never write.
fn cast_to(ty: Ty, name: &str) -> Ty {
    Ty::Refined {
        base: Box::new(ty),
        domain: format!("the values a cast to `{name}` makes"),
        within: Vec::new(),
        sample: String::new(),
        outside: None,
        extent: None,
    }
}

/// The one string `text`, as a refined string whose domain is that value (its extent: from it to it).
fn constant(text: &str) -> Ty {
    let sample = serde_json::Value::String(text.to_owned()).to_string();
    let outside = serde_json::Value::String(format!("{text}-other")).to_string();
    Ty::Refined {
        base: Box::new(Ty::String),
        domain: format!("the string {sample}"),
        within: Vec::new(),
        extent: Some((sample.clone(), sample.clone())),
        sample,
        outside: Some(outside),
    }
}

/// The one integer `value` of the primitive `ty`, as a refined integer whose domain is that value.
fn int_constant(value: i128, ty: &str) -> Option<Ty> {
    let base = primitive(ty)?;
    let text = value.to_string();
    Some(Ty::Refined {
        base: Box::new(base),
        domain: format!("the integer {text}"),
        within: Vec::new(),
        extent: Some((text.clone(), text.clone())),
        sample: text,
        outside: None,
    })
}

/// The integers a visitor's `visit_u64` and `visit_i64` accept together (serde_json hands the first
/// the integers that are not negative, the second the negative ones), as the integer type of exactly
/// that range, or a range of a wider one; `None` for negative integers alone.
fn int_domain(accepted: &[&Accepts]) -> Option<Ty> {
    let bounds = |(signed, bits): (bool, u8)| -> (i128, i128) {
        let bits = u32::from(bits.min(64));
        if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    };
    let mut most = None;
    let mut least = None;
    for accepts in accepted {
        if let Accepts::Int { negative, into } = accepts {
            if *negative {
                let (low, _) = bounds(into.unwrap_or((true, 64)));
                least = Some(least.map_or(low, |l: i128| l.min(low)));
            } else {
                let (_, high) = bounds(into.unwrap_or((false, 64)));
                most = Some(most.map_or(high, |m: i128| m.max(high)));
            }
        }
    }
    let most = most?;
    let least = least.filter(|l| *l < 0).unwrap_or(0);
    for bits in [8u8, 16, 32, 64] {
        for signed in [false, true] {
            if bounds((signed, bits)) == (least, most) {
                return Some(Ty::Int { signed, bits });
            }
        }
    }
    let (signed, bits) = if least < 0 { (true, 64) } else { (false, 64) };
    Some(Ty::Refined {
        base: Box::new(Ty::Int { signed, bits }),
        domain: format!("integers from {least} to {most}"),
        within: Vec::new(),
        sample: least.to_string(),
        outside: None,
        extent: Some((least.to_string(), most.to_string())),
    })
}

/// What a kind of value is, for matching a visitor's methods with what a `deserialize_*` call hands
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Float,
    Str,
    Unit,
}

fn kind_of(accepts: &Accepts) -> Kind {
    match accepts {
        Accepts::Bool => Kind::Bool,
        Accepts::Int { .. } => Kind::Int,
        Accepts::Float => Kind::Float,
        Accepts::Str { .. } => Kind::Str,
        Accepts::Unit => Kind::Unit,
    }
}

/// The kinds of value serde_json hands a visitor through `deserializer.<method>`; `None` for a
/// method this does not model (maps, sequences, enums, structs).
fn method_kinds(method: &str) -> Option<&'static [Kind]> {
    Some(match method.strip_prefix("deserialize_")? {
        "any" => &[Kind::Bool, Kind::Int, Kind::Float, Kind::Str, Kind::Unit],
        "str" | "string" | "identifier" | "char" => &[Kind::Str],
        "bool" => &[Kind::Bool],
        "u8" | "u16" | "u32" | "u64" | "u128" | "i8" | "i16" | "i32" | "i64" | "i128" => {
            &[Kind::Int]
        }
        "f32" | "f64" => &[Kind::Int, Kind::Float],
        "unit" => &[Kind::Unit],
        _ => return None,
    })
}

/// A newtype variant `name` of an untagged union.
fn newtype_variant(name: &str, ty: Ty) -> Variant {
    Variant {
        rust_name: name.to_owned(),
        ser_name: name.to_owned(),
        de_names: vec![name.to_owned()],
        style: Style::Tuple,
        fields: vec![Field {
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
        }],
        skip_ser: false,
        skip_de: false,
        other: false,
        untagged: false,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    }
}
