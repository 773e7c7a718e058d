//! The model, interpreted: serde's data model driven by a model `Ty`. Reading through a [`Model`] turns
//! whatever a format holds into the JSON rendering of the model's value (a struct by its fields, in order
//! or by name; an externally tagged enum by index or name; `Readable` by the format's
//! `is_human_readable()`); writing a [`Write`] puts such a value back through the same calls serde's
//! impls make. A std type's model is right when this round trip gives serde's own bytes.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::ser::{
    self, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleVariant,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wirecheck::model::{Body, Field, Style, Ty, TypeDef, Variant};

/// A model type, with the definitions its named types resolve to.
#[derive(Clone)]
pub struct Model<'a> {
    pub types: &'a BTreeMap<String, std::sync::Arc<TypeDef>>,
    pub ty: Ty,
}

impl<'a> Model<'a> {
    fn of(&self, ty: &Ty) -> Model<'a> {
        Model {
            types: self.types,
            ty: ty.clone(),
        }
    }

    /// The definition a named type resolves to, with its generic arguments put in.
    fn def(&self, path: &str, args: &[Ty]) -> Result<TypeDef, String> {
        let def = self
            .types
            .get(path)
            .ok_or_else(|| format!("no definition of {path}"))?;
        let mut def = TypeDef::clone(def);
        let put = |fields: &mut Vec<Field>| {
            for f in fields {
                f.ty = instantiate(&f.ty, &def.generics, args);
            }
        };
        match &mut def.body {
            Body::Struct { fields, .. } => put(fields),
            Body::Enum { variants } => variants.iter_mut().for_each(|v| put(&mut v.fields)),
            Body::Alias { target } => *target = instantiate(target, &def.generics, args),
        }
        Ok(def)
    }
}

/// `ty` with the definition's parameters `generics` replaced by `args`.
fn instantiate(ty: &Ty, generics: &[String], args: &[Ty]) -> Ty {
    let go = |t: &Ty| Box::new(instantiate(t, generics, args));
    match ty {
        Ty::Param { name } => generics
            .iter()
            .position(|g| g == name)
            .and_then(|i| args.get(i).cloned())
            .unwrap_or_else(|| ty.clone()),
        Ty::Option { inner } => Ty::Option { inner: go(inner) },
        Ty::Seq { kind, elem } => Ty::Seq {
            kind: *kind,
            elem: go(elem),
        },
        Ty::Array { elem, len } => Ty::Array {
            elem: go(elem),
            len: *len,
        },
        Ty::Tuple { elems } => Ty::Tuple {
            elems: elems.iter().map(|e| *go(e)).collect(),
        },
        Ty::Map { key, value } => Ty::Map {
            key: go(key),
            value: go(value),
        },
        Ty::Named { path, args: inner } => Ty::Named {
            path: path.clone(),
            args: inner.iter().map(|a| *go(a)).collect(),
        },
        Ty::Refined {
            base,
            domain,
            within,
            sample,
            outside,
            extent,
        } => Ty::Refined {
            base: go(base),
            domain: domain.clone(),
            within: within.clone(),
            sample: sample.clone(),
            outside: outside.clone(),
            extent: extent.clone(),
        },
        Ty::Readable { human, compact } => Ty::Readable {
            human: go(human),
            compact: go(compact),
        },
        other => other.clone(),
    }
}

/// A `&'static str` for serde's name arguments (test-only: a few short names per run).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn ints(signed: bool, bits: u8, v: &Value) -> Option<i128> {
    let n = v
        .as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))?;
    let (lo, hi) = match (signed, bits) {
        (false, 128) => (0, i128::MAX),
        (true, 128) => (i128::MIN, i128::MAX),
        (false, b) => (0, (1i128 << b) - 1),
        (true, b) => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
    };
    (lo..=hi).contains(&n).then_some(n)
}

impl<'de> DeserializeSeed<'de> for Model<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let ty = self.ty.clone();
        match &ty {
            Ty::Bool => d.deserialize_bool(self),
            Ty::Char => d.deserialize_char(self),
            Ty::String => d.deserialize_string(self),
            Ty::Int { signed, bits } => match (signed, bits) {
                (false, 8) => d.deserialize_u8(self),
                (false, 16) => d.deserialize_u16(self),
                (false, 32) => d.deserialize_u32(self),
                (false, 64) => d.deserialize_u64(self),
                (false, _) => d.deserialize_u128(self),
                (true, 8) => d.deserialize_i8(self),
                (true, 16) => d.deserialize_i16(self),
                (true, 32) => d.deserialize_i32(self),
                (true, 64) => d.deserialize_i64(self),
                (true, _) => d.deserialize_i128(self),
            },
            Ty::Float { bits: 32 } => d.deserialize_f32(self),
            Ty::Float { .. } => d.deserialize_f64(self),
            Ty::Unit => d.deserialize_unit(self),
            Ty::Option { .. } => d.deserialize_option(self),
            Ty::Seq { .. } => d.deserialize_seq(self),
            Ty::Array { len, .. } => d.deserialize_tuple(*len as usize, self),
            Ty::Tuple { elems } => d.deserialize_tuple(elems.len(), self),
            Ty::Map { .. } => d.deserialize_map(self),
            Ty::Value => Value::deserialize(d),
            Ty::Bytes => d.deserialize_byte_buf(self),
            Ty::Refined { base, .. } => self.of(base).deserialize(d),
            Ty::Readable { human, compact } => {
                let shape = if d.is_human_readable() {
                    human
                } else {
                    compact
                };
                self.of(shape).deserialize(d)
            }
            Ty::Named { path, args } => {
                let def = self.def(path, args).map_err(de::Error::custom)?;
                let name = leak(&def.attrs.ser_name);
                match &def.body {
                    Body::Alias { target } => self.of(target).deserialize(d),
                    // A unit struct (`PhantomData`): `deserialize_unit_struct`.
                    Body::Struct {
                        style: Style::Unit, ..
                    } => d.deserialize_unit_struct(name, self),
                    Body::Struct { fields, .. } => {
                        let names: Vec<&'static str> =
                            fields.iter().map(|f| leak(&f.ser_name)).collect();
                        d.deserialize_struct(name, leak_slice(names), Fields { m: self, def })
                    }
                    Body::Enum { variants } => {
                        let names: Vec<&'static str> =
                            variants.iter().map(|v| leak(&v.ser_name)).collect();
                        d.deserialize_enum(name, leak_slice(names), Variants { m: self, def })
                    }
                }
            }
            other => Err(de::Error::custom(format!(
                "the interpreter does not read {other:?}"
            ))),
        }
    }
}

fn leak_slice(names: Vec<&'static str>) -> &'static [&'static str] {
    Box::leak(names.into_boxed_slice())
}

impl<'de> Visitor<'de> for Model<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of the model type {}", self.ty)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.visit_i128(i128::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.visit_i128(i128::from(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        self.visit_i128(i128::try_from(v).map_err(E::custom)?)
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        let value = u64::try_from(v)
            .map(Value::from)
            .or_else(|_| i64::try_from(v).map(Value::from))
            .map_err(|_| E::custom(format!("{v} does not fit in a JSON number here")))?;
        match &self.ty {
            Ty::Int { signed, bits } if ints(*signed, *bits, &value).is_some() => Ok(value),
            other => Err(E::custom(format!("{v} is no {other}"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        match &self.ty {
            Ty::Char if v.chars().count() != 1 => Err(E::custom("not one char")),
            _ => Ok(Value::String(v.to_owned())),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Array(v.iter().map(|b| Value::from(*b)).collect()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match &self.ty {
            Ty::Option { inner } => self.of(inner).deserialize(d),
            other => Err(de::Error::custom(format!("Some for {other}"))),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let elems: Vec<Ty> = match &self.ty {
            Ty::Seq { elem, .. } => {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element_seed(self.of(elem))? {
                    out.push(v);
                }
                return Ok(Value::Array(out));
            }
            Ty::Array { elem, len } => vec![(**elem).clone(); *len as usize],
            Ty::Tuple { elems } => elems.clone(),
            other => return Err(de::Error::custom(format!("a sequence for {other}"))),
        };
        let mut out = Vec::new();
        for (i, elem) in elems.iter().enumerate() {
            match seq.next_element_seed(self.of(elem))? {
                Some(v) => out.push(v),
                None => return Err(de::Error::invalid_length(i, &self)),
            }
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Ty::Map { key, value } = &self.ty else {
            return Err(de::Error::custom(format!("a map for {}", self.ty)));
        };
        let mut out = Map::new();
        while let Some(k) = map.next_key_seed(self.of(key))? {
            let v = map.next_value_seed(self.of(value))?;
            out.insert(key_text(&k), v);
        }
        Ok(Value::Object(out))
    }
}

/// A map key as the JSON object key of the interpreted value.
fn key_text(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A struct's fields, read by name (a map) or in order (a sequence).
struct Fields<'a> {
    m: Model<'a>,
    def: TypeDef,
}

impl Fields<'_> {
    fn fields(&self) -> &[Field] {
        match &self.def.body {
            Body::Struct { fields, .. } => fields,
            _ => &[],
        }
    }
}

impl<'de> Visitor<'de> for Fields<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.def.path)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        for (i, f) in self.fields().iter().enumerate() {
            match seq.next_element_seed(self.m.of(&f.ty))? {
                Some(v) => {
                    out.insert(f.ser_name.clone(), v);
                }
                None => return Err(de::Error::invalid_length(i, &self)),
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match self.fields().iter().find(|f| f.de_names.contains(&key)) {
                Some(f) => {
                    let v = map.next_value_seed(self.m.of(&f.ty))?;
                    out.insert(f.ser_name.clone(), v);
                }
                None if self.def.attrs.deny_unknown_fields => {
                    return Err(de::Error::custom(format!("unknown field `{key}`")));
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(f) = self
            .fields()
            .iter()
            .find(|f| !f.default && !out.contains_key(&f.ser_name))
        {
            return Err(de::Error::custom(format!("missing field `{}`", f.ser_name)));
        }
        Ok(Value::Object(out))
    }
}

/// An externally tagged enum's variants.
struct Variants<'a> {
    m: Model<'a>,
    def: TypeDef,
}

impl<'de> Visitor<'de> for Variants<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "enum {}", self.def.path)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let Body::Enum { variants } = &self.def.body else {
            return Err(de::Error::custom("not an enum"));
        };
        let (i, access) = data.variant_seed(Tag(variants))?;
        let v = &variants[i];
        let payload = match (v.style, v.fields.len()) {
            (Style::Unit, _) => {
                access.unit_variant()?;
                return Ok(Value::String(v.ser_name.clone()));
            }
            (Style::Tuple, 1) => access.newtype_variant_seed(self.m.of(&v.fields[0].ty))?,
            (Style::Tuple, n) => access.tuple_variant(
                n,
                self.m.of(&Ty::Tuple {
                    elems: v.fields.iter().map(|f| f.ty.clone()).collect(),
                }),
            )?,
            (Style::Named, _) => {
                let names: Vec<&'static str> = v.fields.iter().map(|f| leak(&f.ser_name)).collect();
                let def = TypeDef {
                    body: Body::Struct {
                        style: Style::Named,
                        fields: v.fields.clone(),
                    },
                    ..self.def.clone()
                };
                access.struct_variant(leak_slice(names), Fields { m: self.m, def })?
            }
        };
        let mut out = Map::new();
        out.insert(v.ser_name.clone(), payload);
        Ok(Value::Object(out))
    }
}

/// A variant tag: its index (compact formats) or its name.
struct Tag<'v>(&'v [Variant]);

impl<'de> DeserializeSeed<'de> for Tag<'_> {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Tag<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant tag")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        usize::try_from(v)
            .ok()
            .filter(|i| *i < self.0.len())
            .ok_or_else(|| E::custom(format!("variant index {v}")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|x| x.de_names.iter().any(|n| n == v))
            .ok_or_else(|| E::custom(format!("unknown variant `{v}`")))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<usize, E> {
        self.visit_str(std::str::from_utf8(v).map_err(E::custom)?)
    }
}

/// A value of the interpreted model written through serde's data model.
pub struct Write<'a> {
    pub m: Model<'a>,
    pub v: Value,
}

impl Serialize for Write<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bad = || ser::Error::custom(format!("{} is no {}", self.v, self.m.ty));
        let w = |ty: &Ty, v: &Value| Write {
            m: self.m.of(ty),
            v: v.clone(),
        };
        match &self.m.ty {
            Ty::Bool => s.serialize_bool(self.v.as_bool().ok_or_else(bad)?),
            Ty::Char => {
                let mut chars = self.v.as_str().ok_or_else(bad)?.chars();
                s.serialize_char(chars.next().ok_or_else(bad)?)
            }
            Ty::String => s.serialize_str(self.v.as_str().ok_or_else(bad)?),
            Ty::Int { signed, bits } => {
                let n = ints(*signed, *bits, &self.v).ok_or_else(bad)?;
                // In range, checked just above.
                match (signed, bits) {
                    (false, 8) => s.serialize_u8(n as u8),
                    (false, 16) => s.serialize_u16(n as u16),
                    (false, 32) => s.serialize_u32(n as u32),
                    (false, 64) => s.serialize_u64(n as u64),
                    (false, _) => s.serialize_u128(n as u128),
                    (true, 8) => s.serialize_i8(n as i8),
                    (true, 16) => s.serialize_i16(n as i16),
                    (true, 32) => s.serialize_i32(n as i32),
                    (true, 64) => s.serialize_i64(n as i64),
                    (true, _) => s.serialize_i128(n),
                }
            }
            Ty::Float { bits: 32 } => s.serialize_f32(self.v.as_f64().ok_or_else(bad)? as f32),
            Ty::Float { .. } => s.serialize_f64(self.v.as_f64().ok_or_else(bad)?),
            Ty::Unit => s.serialize_unit(),
            Ty::Option { inner } => match &self.v {
                Value::Null => s.serialize_none(),
                v => s.serialize_some(&w(inner, v)),
            },
            Ty::Seq { elem, .. } => {
                let items = self.v.as_array().ok_or_else(bad)?;
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(&w(elem, x))?;
                }
                seq.end()
            }
            Ty::Array { .. } | Ty::Tuple { .. } => {
                let elems = match &self.m.ty {
                    Ty::Array { elem, len } => vec![(**elem).clone(); *len as usize],
                    Ty::Tuple { elems } => elems.clone(),
                    _ => unreachable!(),
                };
                let items = self.v.as_array().filter(|a| a.len() == elems.len());
                let items = items.ok_or_else(bad)?;
                let mut tuple = s.serialize_tuple(elems.len())?;
                for (ty, x) in elems.iter().zip(items) {
                    tuple.serialize_element(&w(ty, x))?;
                }
                tuple.end()
            }
            Ty::Map { key, value } => {
                let entries = self.v.as_object().ok_or_else(bad)?;
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, x) in entries {
                    let k = match key.as_ref() {
                        Ty::String | Ty::Char => Value::String(k.clone()),
                        _ => serde_json::from_str(k).map_err(ser::Error::custom)?,
                    };
                    map.serialize_entry(&w(key, &k), &w(value, x))?;
                }
                map.end()
            }
            Ty::Value => self.v.serialize(s),
            Ty::Bytes => {
                let bytes: Option<Vec<u8>> = self.v.as_array().and_then(|a| {
                    a.iter()
                        .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                        .collect()
                });
                s.serialize_bytes(&bytes.ok_or_else(bad)?)
            }
            Ty::Refined { base, .. } => w(base, &self.v).serialize(s),
            Ty::Readable { human, compact } => {
                let shape = if s.is_human_readable() {
                    human
                } else {
                    compact
                };
                w(shape, &self.v).serialize(s)
            }
            Ty::Named { path, args } => {
                let def = self.m.def(path, args).map_err(ser::Error::custom)?;
                self.named(&def, s)
            }
            other => Err(ser::Error::custom(format!(
                "the interpreter does not write {other:?}"
            ))),
        }
    }
}

impl Write<'_> {
    fn named<S: ser::Serializer>(&self, def: &TypeDef, s: S) -> Result<S::Ok, S::Error> {
        let name = leak(&def.attrs.ser_name);
        let w = |ty: &Ty, v: &Value| Write {
            m: self.m.of(ty),
            v: v.clone(),
        };
        let missing = |what: &str| ser::Error::custom(format!("{} has no {what}", self.v));
        match &def.body {
            Body::Alias { target } => w(target, &self.v).serialize(s),
            Body::Struct {
                style: Style::Unit, ..
            } => s.serialize_unit_struct(name),
            Body::Struct { fields, .. } => {
                let obj = self.v.as_object().ok_or_else(|| missing("fields"))?;
                let mut st = s.serialize_struct(name, fields.len())?;
                for f in fields {
                    let x = obj.get(&f.ser_name).ok_or_else(|| missing(&f.ser_name))?;
                    st.serialize_field(leak(&f.ser_name), &w(&f.ty, x))?;
                }
                st.end()
            }
            Body::Enum { variants } => {
                let (tag, payload) = match &self.v {
                    Value::String(tag) => (tag.clone(), None),
                    Value::Object(o) if o.len() == 1 => {
                        let (k, v) = o.iter().next().ok_or_else(|| missing("variant"))?;
                        (k.clone(), Some(v))
                    }
                    _ => return Err(missing("variant")),
                };
                let i = variants
                    .iter()
                    .position(|v| v.ser_name == tag)
                    .ok_or_else(|| missing(&tag))?;
                let v = &variants[i];
                let (index, tag) = (i as u32, leak(&v.ser_name));
                match (v.style, v.fields.len(), payload) {
                    (Style::Unit, _, _) => s.serialize_unit_variant(name, index, tag),
                    (Style::Tuple, 1, Some(p)) => {
                        s.serialize_newtype_variant(name, index, tag, &w(&v.fields[0].ty, p))
                    }
                    (Style::Tuple, n, Some(p)) => {
                        let items = p.as_array().ok_or_else(|| missing("elements"))?;
                        let mut tv = s.serialize_tuple_variant(name, index, tag, n)?;
                        for (f, x) in v.fields.iter().zip(items) {
                            tv.serialize_field(&w(&f.ty, x))?;
                        }
                        tv.end()
                    }
                    (Style::Named, n, Some(p)) => {
                        let obj = p.as_object().ok_or_else(|| missing("fields"))?;
                        let mut sv = s.serialize_struct_variant(name, index, tag, n)?;
                        for f in &v.fields {
                            let x = obj.get(&f.ser_name).ok_or_else(|| missing(&f.ser_name))?;
                            sv.serialize_field(leak(&f.ser_name), &w(&f.ty, x))?;
                        }
                        sv.end()
                    }
                    _ => Err(missing("payload")),
                }
            }
        }
    }
}
