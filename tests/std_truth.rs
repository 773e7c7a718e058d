#![cfg(feature = "checker")]
//! std types as wirecheck models them, checked against serde's real impls with serde_json, bincode 2
//! (`config::standard()` and `config::legacy()`) and postcard.
//!
//! **Shapes.** Each `shape!` case compiles a message `Msg { x: T }` for a std type `T` and extracts its
//! model from the same tokens. Real values of `T` are encoded with each codec; the bytes are read back
//! through the *model* (an interpreter that drives serde's data model from a model `Ty`: a struct by its
//! fields, an enum by its variants, `Readable` by the format's `is_human_readable()`), and the value read
//! is written again through the model: it must consume every byte and give the very same bytes. So the
//! model's shape is, byte for byte, what serde writes for the type, in every format. Then the golden
//! payloads wirecheck's sampler writes for the message (`wirecheck::fixtures`) must decode as the real
//! type with serde_json, and read back as themselves (a writer of the type could have written them).
//!
//! **Changes.** Each `change!` case compiles an old and a new `Msg` and compares the engine's verdict per
//! format and direction (a major finding, or none) with what really happens when real sample values of
//! the writer's type are encoded and decoded as the reader's type (an error, bytes left unread, or a
//! value that renders differently as JSON is a break). Every major finding's witness is written through
//! the writer's model with the codec: a real writer must decode it and write the same bytes, and the
//! reader must break on it.
//!
//! `Rc` and `Arc` are not compiled here (serde implements them behind its `rc` feature, not enabled in
//! this build); serde's impl for them is the one `Box` has.
//!
//! `cargo test --features checker --test std_truth -- --nocapture` prints the verdict table.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{NonZeroI8, NonZeroU32, NonZeroU64, Saturating, Wrapping};
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IgnoredAny, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::ser::{
    self, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleVariant,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Level};
use wirecheck::model::{Body, Field, Snapshot, Style, Ty, TypeDef, Variant};

/// The protocol the compiled case types name (the extracted source writes its own header per format).
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0", format = "json")]
pub struct P;

// ----- the real codecs -----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Json,
    /// `bincode::config::standard()`: varint integers.
    BincodeStandard,
    /// `bincode::config::legacy()`: fixed-width integers.
    BincodeLegacy,
    Postcard,
}

use Codec::{BincodeLegacy, BincodeStandard, Json, Postcard};
use Direction::{NewReadsOld, OldReadsNew};

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Json => "json",
            BincodeStandard => "bincode standard",
            BincodeLegacy => "bincode legacy",
            Postcard => "postcard",
        })
    }
}

/// The codecs of a protocol `format`.
fn codecs(format: &str) -> &'static [Codec] {
    match format {
        "json" => &[Json],
        "bincode" => &[BincodeStandard, BincodeLegacy],
        _ => &[Postcard],
    }
}

const FORMATS: &[&str] = &["json", "bincode", "postcard"];

/// A decode limit for bincode (a misread length prefix would otherwise allocate that much up front).
const LIMIT: usize = 1 << 20;

fn encode<T: Serialize + ?Sized>(c: Codec, v: &T) -> Result<Vec<u8>, String> {
    match c {
        Json => serde_json::to_vec(v).map_err(|e| e.to_string()),
        BincodeStandard => {
            bincode::serde::encode_to_vec(v, bincode::config::standard()).map_err(|e| e.to_string())
        }
        BincodeLegacy => {
            bincode::serde::encode_to_vec(v, bincode::config::legacy()).map_err(|e| e.to_string())
        }
        Postcard => postcard::to_allocvec(v).map_err(|e| e.to_string()),
    }
}

/// The value `seed` reads from `b` and the number of bytes it consumed.
fn decode_seed<'de, S: DeserializeSeed<'de>>(
    c: Codec,
    seed: S,
    b: &'de [u8],
) -> Result<(S::Value, usize), String> {
    match c {
        Json => {
            let mut de = serde_json::Deserializer::from_slice(b);
            let v = seed.deserialize(&mut de).map_err(|e| e.to_string())?;
            // Whitespace aside, whatever follows the value is left unread.
            de.end().map_err(|e| e.to_string())?;
            Ok((v, b.len()))
        }
        BincodeStandard => bincode::serde::seed_decode_from_slice(
            seed,
            b,
            bincode::config::standard().with_limit::<LIMIT>(),
        )
        .map_err(|e| e.to_string()),
        BincodeLegacy => bincode::serde::seed_decode_from_slice(
            seed,
            b,
            bincode::config::legacy().with_limit::<LIMIT>(),
        )
        .map_err(|e| e.to_string()),
        Postcard => {
            let mut de = postcard::Deserializer::from_bytes(b);
            let v = seed.deserialize(&mut de).map_err(|e| e.to_string())?;
            let rest = de.finalize().map_err(|e| e.to_string())?;
            Ok((v, b.len() - rest.len()))
        }
    }
}

fn decode<T: DeserializeOwned>(c: Codec, b: &[u8]) -> Result<(T, usize), String> {
    decode_seed(c, std::marker::PhantomData::<T>, b)
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v)
        .unwrap_or_else(|e| panic!("{} as JSON: {e}", std::any::type_name::<T>()))
}

// ----- the model, interpreted: serde's data model driven by a model `Ty` -----

/// A model type, with the definitions its named types resolve to.
#[derive(Clone)]
struct Model<'a> {
    types: &'a BTreeMap<String, TypeDef>,
    ty: Ty,
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
        let mut def = def.clone();
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
        } => Ty::Refined {
            base: go(base),
            domain: domain.clone(),
            within: within.clone(),
            sample: sample.clone(),
            outside: outside.clone(),
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
struct Write<'a> {
    m: Model<'a>,
    v: Value,
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

// ----- the engine's side -----

/// The crate source the extractor reads: the protocol header for `format`, then `Msg { x: <ty> }`.
fn source(format: &str, version: &str, ty: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n\
         #[derive(Serialize, Deserialize, Message)]\n\
         #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\n\
         pub struct Msg {{\n    pub x: {ty},\n}}\n\n\
         mod mirror {{\n    use super::*;\n    {MIRRORS}\n}}\n"
    )
}

fn extract(format: &str, version: &str, ty: &str) -> Snapshot {
    let text = source(format, version, ty);
    let snap = snapshot_from_sources("case", &[("src/lib.rs", text.as_str())])
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(snap.notes.is_empty(), "{:?}\n{text}", snap.notes);
    assert_eq!(snap.messages.len(), 1, "{text}");
    snap
}

/// The message's model.
fn message(snap: &Snapshot) -> Model<'_> {
    Model {
        types: &snap.types,
        ty: Ty::Named {
            path: snap.messages[0].rust_path.clone(),
            args: Vec::new(),
        },
    }
}

// ----- shapes -----

/// `v` encoded by the real impl, read through the model and written again through it: the same bytes.
fn shape_trip<T: Serialize>(c: Codec, model: &Model<'_>, v: &T) -> Result<(), String> {
    let bytes = encode(c, v)?;
    let (read, n) = decode_seed(c, model.clone(), &bytes)
        .map_err(|e| format!("the model does not read {}: {e}", json(v)))?;
    if n < bytes.len() {
        return Err(format!(
            "the model reads {} of {} bytes of {}",
            n,
            bytes.len(),
            json(v)
        ));
    }
    let again = encode(
        c,
        &Write {
            m: model.clone(),
            v: read.clone(),
        },
    )
    .map_err(|e| format!("the model does not write {read}: {e}"))?;
    if again != bytes {
        return Err(format!(
            "the model writes {read} as {again:?}, serde as {bytes:?}"
        ));
    }
    if c == Json && read != json(v) {
        return Err(format!("the model reads {read}, serde wrote {}", json(v)));
    }
    Ok(())
}

/// Sampler payloads whose disagreement with the real type is known, with the reason: (type as written,
/// case, why).
const SAMPLER_KNOWN: &[(&str, &str, &str)] = &[
    ("std::time::Duration", "boundary:max", DURATION_OVERFLOW),
    ("core::time::Duration", "boundary:max", DURATION_OVERFLOW),
    (
        "std::time::SystemTime",
        "boundary:max",
        "serde's reader rejects a time past what the platform's SystemTime holds; the model's u64 of \
         seconds cannot say where that is",
    ),
    ("std::ffi::OsString", "variant:OsString::Windows", OS_STRING),
    (
        "std::ffi::OsString",
        "variant:OsString::Windows minimal",
        OS_STRING,
    ),
    (
        "std::ffi::OsString",
        "variant:OsString::Windows boundary:max",
        OS_STRING,
    ),
];

const DURATION_OVERFLOW: &str = "serde's reader carries nanos of a second and more into the seconds and \
     rejects an overflow; writers never write such nanos, which the model's u32 cannot say";

const OS_STRING: &str = "each platform writes its own variant and rejects the other's (this test runs on \
     Unix); the model keeps both, since the peers' platforms are not known";

/// The model of `Msg { x: <ty> }` against the real `M` and its real `values` in every codec, and the
/// sampler's golden payloads of the model against the real type.
fn check_shape<M: Serialize + DeserializeOwned>(ty: &str, values: &[M]) {
    let snap = extract("json", "0.1.0", ty);
    let model = message(&snap);
    let mut wrong = Vec::new();
    for v in values {
        for c in [Json, BincodeStandard, BincodeLegacy, Postcard] {
            if let Err(e) = shape_trip(c, &model, v) {
                wrong.push(format!("{c}: {e}"));
            }
        }
    }
    for file in wirecheck::fixtures::protocol_files(&snap, "p") {
        let doc: Value = serde_json::from_str(&file.text).expect("fixture files are JSON");
        for case in doc["cases"].as_array().into_iter().flatten() {
            let name = case["case"].as_str().unwrap_or_default();
            let payload = &case["payload"];
            let got = match serde_json::from_value::<M>(payload.clone()) {
                Err(e) => Err(format!("rejected: {e}")),
                Ok(m) if json(&m) != *payload => Err(format!("reads back as {}", json(&m))),
                Ok(_) => Ok(()),
            };
            let known = SAMPLER_KNOWN
                .iter()
                .find(|(t, c, _)| *t == ty && *c == name);
            match (got, known) {
                (Ok(()), None) => {}
                (Ok(()), Some(_)) => wrong.push(format!(
                    "sampler case {name} is listed as known but agrees with {ty}"
                )),
                (Err(e), Some((_, _, why))) => {
                    println!("| {ty} | sampler {name} {payload} | {e} | known: {why} |");
                }
                (Err(e), None) => wrong.push(format!("sampler case {name}: {payload}: {e}")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{ty}:\n{}\nmodel: {:#?}",
        wrong.join("\n"),
        snap.types
    );
}

/// `shape!(test_name, Type)`: the model of `Type` against serde's impl, on the type's [`Samples`].
macro_rules! shape {
    ($name:ident, $ty:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[derive(Serialize, Deserialize, wirecheck::Message)]
            #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
            pub struct Msg {
                pub x: $ty,
            }
        }

        #[test]
        fn $name() {
            let values: Vec<$name::Msg> = <$ty as Samples>::samples()
                .into_iter()
                .map(|x| $name::Msg { x })
                .collect();
            check_shape(stringify!($ty), &values);
        }
    };
}

// ----- changes -----

/// Which release's type writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Old,
    New,
}

/// What really happens in one direction.
#[derive(Debug)]
enum Real {
    /// Every sample decoded whole and unchanged.
    Ok(usize),
    /// A sample the reader rejects.
    Error(String),
    /// A sample the reader decodes without consuming all of it.
    Trailing(String),
    /// A sample the reader decodes as another value.
    Misread(String),
}

impl Real {
    fn breaks(&self) -> bool {
        !matches!(self, Real::Ok(_))
    }
}

impl fmt::Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Real::Ok(n) => write!(f, "ok ({n} samples)"),
            Real::Error(e) => write!(f, "error: {e}"),
            Real::Trailing(e) => write!(f, "trailing: {e}"),
            Real::Misread(e) => write!(f, "misread: {e}"),
        }
    }
}

/// `bytes` (written by a `W`, rendered as `wrote`) decoded as an `R`.
fn read_as<R: Serialize + DeserializeOwned>(c: Codec, wrote: &Value, bytes: &[u8]) -> Option<Real> {
    match decode::<R>(c, bytes) {
        Err(e) => Some(Real::Error(format!("{wrote} → {e}"))),
        Ok((_, n)) if n < bytes.len() => Some(Real::Trailing(format!(
            "{wrote}: {} of {} bytes read",
            n,
            bytes.len()
        ))),
        Ok((r, _)) if json(&r) != *wrote => {
            Some(Real::Misread(format!("{wrote} read as {}", json(&r))))
        }
        Ok(_) => None,
    }
}

/// Every sample of the writer `W` encoded with `c` and decoded as the reader `R`.
fn probe<W: Serialize, R: Serialize + DeserializeOwned>(c: Codec, samples: &[W]) -> Real {
    for w in samples {
        let bytes = encode(c, w).unwrap_or_else(|e| panic!("{c} cannot encode a sample: {e}"));
        if let Some(broken) = read_as::<R>(c, &json(w), &bytes) {
            return broken;
        }
    }
    Real::Ok(samples.len())
}

/// A witness's bytes: a real `W` must decode them whole and write the same bytes (a writer could have
/// sent them); then what an `R` makes of them.
fn witness_real<W, R>(c: Codec, bytes: &[u8]) -> Result<Real, String>
where
    W: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    let (w, n) = decode::<W>(c, bytes).map_err(|e| format!("no writer writes it: {e}"))?;
    let again = encode(c, &w)?;
    if n < bytes.len() || again != bytes {
        return Err(format!(
            "no writer writes it: the writer reads {} and writes {again:?}, not {bytes:?}",
            json(&w)
        ));
    }
    Ok(read_as::<R>(c, &json(&w), bytes).unwrap_or(Real::Ok(1)))
}

struct Change {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    /// Engine breaks that the named codec does not have, knowingly.
    conservative: &'static [(Codec, Direction)],
    /// Encodes samples of the first release's `Msg` and decodes them as the second's.
    real: fn(Codec, Rel, Rel) -> Real,
    /// A witness's bytes, written by the given release, checked with the real types.
    witness: fn(Codec, Rel, &[u8]) -> Result<Real, String>,
}

fn check_change(case: &Change) {
    let mut wrong = Vec::new();
    for format in FORMATS {
        let (old, new) = (
            extract(format, "0.1.0", case.old),
            extract(format, "0.2.0", case.new),
        );
        for &c in codecs(format) {
            for side in [Rel::Old, Rel::New] {
                let real = (case.real)(c, side, side);
                if real.breaks() {
                    wrong.push(format!("{c}: {side:?} cannot read its own samples: {real}"));
                }
            }
        }
        let found = compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full);
        for d in [OldReadsNew, NewReadsOld] {
            let majors: Vec<_> = found
                .iter()
                .filter(|f| f.level == Level::Major && f.direction == Some(d))
                .collect();
            let (writer, reader, written) = match d {
                OldReadsNew => (Rel::New, Rel::Old, &new),
                NewReadsOld => (Rel::Old, Rel::New, &old),
            };
            let shown = if majors.is_empty() {
                "compatible".to_owned()
            } else {
                let rules: Vec<String> = majors.iter().map(|f| f.rule.to_string()).collect();
                format!("break: {}", rules.join(", "))
            };
            for &c in codecs(format) {
                let real = (case.real)(c, writer, reader);
                let listed = case.conservative.contains(&(c, d));
                let verdict = match (majors.is_empty(), real.breaks()) {
                    (true, true) => "FALSE NEGATIVE",
                    (false, false) if listed => "conservative",
                    (false, false) => "FALSE POSITIVE",
                    _ if listed => "listed as conservative but agrees",
                    _ => "agree",
                };
                println!(
                    "\n| {} | {c} | {d} | {shown} | {real} | {verdict} |",
                    case.name
                );
                if verdict != "agree" && verdict != "conservative" {
                    wrong.push(format!("{c}, {d}: {verdict}: engine {shown}; real {real}"));
                }
                for f in &majors {
                    let Some(w) = &f.witness else { continue };
                    let write = Write {
                        m: message(written),
                        v: w.clone(),
                    };
                    let checked = encode(c, &write)
                        .map_err(|e| format!("not of the writer's model: {e}"))
                        .and_then(|bytes| (case.witness)(c, writer, &bytes));
                    match checked {
                        Ok(r) if r.breaks() || listed => {
                            println!("| witness {w} | {c} | {d} | {r} |");
                        }
                        Ok(_) => wrong.push(format!(
                            "{c}, {d}: the witness {w} of {} decodes whole and unchanged",
                            f.rule
                        )),
                        Err(e) => {
                            wrong.push(format!("{c}, {d}: the witness {w} of {}: {e}", f.rule))
                        }
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{}: {} → {}\n{}",
        case.name,
        case.old,
        case.new,
        wrong.join("\n")
    );
}

/// `change!(test_name, Old => New, conservative: [(codec, direction), ...])`: a message `Msg { x }`
/// whose field type changes, checked in both directions in every format.
macro_rules! change {
    ($name:ident, $old:ty => $new:ty, conservative: [$(($codec:ident, $dir:ident)),* $(,)?]) => {
        mod $name {
            pub mod old {
                #[allow(unused_imports)]
                use crate::*;

                #[derive(Serialize, Deserialize, wirecheck::Message)]
                #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $old,
                }
            }

            pub mod new {
                #[allow(unused_imports)]
                use crate::*;

                #[derive(Serialize, Deserialize, wirecheck::Message)]
                #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $new,
                }
            }
        }

        #[test]
        fn $name() {
            use $name::{new, old};
            fn real(c: Codec, w: Rel, r: Rel) -> Real {
                let olds: Vec<old::Msg> =
                    <$old as Samples>::samples().into_iter().map(|x| old::Msg { x }).collect();
                let news: Vec<new::Msg> =
                    <$new as Samples>::samples().into_iter().map(|x| new::Msg { x }).collect();
                match (w, r) {
                    (Rel::Old, Rel::Old) => probe::<old::Msg, old::Msg>(c, &olds),
                    (Rel::Old, Rel::New) => probe::<old::Msg, new::Msg>(c, &olds),
                    (Rel::New, Rel::Old) => probe::<new::Msg, old::Msg>(c, &news),
                    (Rel::New, Rel::New) => probe::<new::Msg, new::Msg>(c, &news),
                }
            }
            fn witness(c: Codec, w: Rel, bytes: &[u8]) -> Result<Real, String> {
                match w {
                    Rel::Old => witness_real::<old::Msg, new::Msg>(c, bytes),
                    Rel::New => witness_real::<new::Msg, old::Msg>(c, bytes),
                }
            }
            check_change(&Change {
                name: stringify!($name),
                old: stringify!($old),
                new: stringify!($new),
                conservative: &[$(($codec, $dir)),*],
                real,
                witness,
            });
        }
    };
}

// ----- real sample values -----

/// Real values of a type, edges included.
trait Samples: Sized {
    fn samples() -> Vec<Self>;
}

macro_rules! samples {
    ($($ty:ty => $values:expr;)*) => {
        $(
            impl Samples for $ty {
                fn samples() -> Vec<Self> {
                    $values
                }
            }
        )*
    };
}

/// Wraps each `u32` sample.
fn wrap<T>(f: impl Fn(u32) -> T) -> Vec<T> {
    u32::samples().into_iter().map(f).collect()
}

fn ipv4s() -> Vec<Ipv4Addr> {
    vec![
        Ipv4Addr::new(192, 0, 2, 1),
        Ipv4Addr::UNSPECIFIED,
        Ipv4Addr::new(255, 255, 255, 255),
    ]
}

fn ipv6s() -> Vec<Ipv6Addr> {
    vec![
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1),
        Ipv6Addr::UNSPECIFIED,
        Ipv6Addr::new(
            0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
        ),
    ]
}

samples! {
    u8 => vec![0, 1, 127, 128, u8::MAX];
    u32 => vec![0, 1, 250, 251, 65_536, u32::MAX];
    u64 => vec![0, 1, 251, u64::from(u32::MAX) + 1, u64::MAX];
    bool => vec![false, true];
    char => vec!['a', 'é', '😀'];
    () => vec![()];
    String => ["", "a", "ab", "héllo", "192.0.2.1", "a/b"].map(String::from).to_vec();
    Vec<u8> => vec![vec![], vec![0, 255], b"a/b".to_vec()];
    PathBuf => ["", "a/b", "/tmp/é"].map(PathBuf::from).to_vec();
    OsString => ["", "a/b", "é"].map(OsString::from).to_vec();
    NonZeroU32 => u32::samples().into_iter().filter_map(NonZeroU32::new).collect();
    NonZeroU64 => u64::samples().into_iter().filter_map(NonZeroU64::new).collect();
    NonZeroI8 => [1, -1, i8::MIN, i8::MAX].into_iter().filter_map(NonZeroI8::new).collect();
    Duration => vec![
        Duration::ZERO,
        Duration::new(1, 500_000_000),
        Duration::new(u64::MAX, 999_999_999),
    ];
    SystemTime => vec![UNIX_EPOCH, UNIX_EPOCH + Duration::new(1_700_000_000, 123)];
    Ipv4Addr => ipv4s();
    Ipv6Addr => ipv6s();
    IpAddr => ipv4s()
        .into_iter()
        .map(IpAddr::V4)
        .chain(ipv6s().into_iter().map(IpAddr::V6))
        .collect();
    SocketAddrV4 => ipv4s().into_iter().zip([0, 8080, u16::MAX]).map(|(ip, port)| SocketAddrV4::new(ip, port)).collect();
    // Flow info and scope id are not written in compact formats: samples leave them 0.
    SocketAddrV6 => ipv6s().into_iter().zip([0, 8080, u16::MAX]).map(|(ip, port)| SocketAddrV6::new(ip, port, 0, 0)).collect();
    SocketAddr => SocketAddrV4::samples()
        .into_iter()
        .map(SocketAddr::V4)
        .chain(SocketAddrV6::samples().into_iter().map(SocketAddr::V6))
        .collect();
    Range<u32> => vec![0..0, 1..u32::MAX, Range { start: 7, end: 3 }];
    RangeInclusive<u32> => vec![0..=0, 1..=u32::MAX, RangeInclusive::new(7, 3)];
    RangeFrom<u32> => wrap(|n| n..);
    RangeTo<u32> => wrap(|n| ..n);
    Bound<u32> => vec![Bound::Unbounded, Bound::Included(0), Bound::Excluded(u32::MAX)];
    Option<u32> => vec![None, Some(0), Some(u32::MAX)];
    Result<u32, String> => vec![Ok(0), Ok(u32::MAX), Err(String::new()), Err("no".into())];
    Wrapping<u32> => wrap(Wrapping);
    Saturating<u32> => wrap(Saturating);
    Reverse<u32> => wrap(Reverse);
    Reverse<Wrapping<u32>> => wrap(|n| Reverse(Wrapping(n)));
    Box<u32> => wrap(Box::new);
    Cell<u32> => wrap(Cell::new);
    RefCell<u32> => wrap(RefCell::new);
    Mutex<u32> => wrap(Mutex::new);
    Mutex<Cell<u32>> => wrap(|n| Mutex::new(Cell::new(n)));
    RwLock<u32> => wrap(RwLock::new);
    AtomicU32 => wrap(AtomicU32::new);
    AtomicBool => vec![AtomicBool::new(false), AtomicBool::new(true)];
    PhantomData<u32> => vec![PhantomData];
    Cow<'static, str> => vec![Cow::Borrowed(""), Cow::Owned("héllo".into())];
    [u8; 4] => vec![[0; 4], [1, 2, 3, 255]];
    (u8, u8, u8, u8) => vec![(0, 0, 0, 0), (1, 2, 3, 255)];
    [u32; 0] => vec![[]];
    (u32, String, char) => vec![(0, String::new(), 'a'), (u32::MAX, "é".into(), '😀')];
    std::collections::VecDeque<u32> => vec![Default::default(), u32::samples().into()];
    BTreeMap<String, u32> => vec![
        BTreeMap::new(),
        [("a".to_owned(), 0), ("b".to_owned(), u32::MAX)].into(),
    ];
    mirror::DurationFields => Duration::samples()
        .into_iter()
        .map(|d| mirror::DurationFields { secs: d.as_secs(), nanos: d.subsec_nanos() })
        .collect();
    mirror::SystemTimeFields => SystemTime::samples()
        .into_iter()
        .map(|t| {
            let d = t.duration_since(UNIX_EPOCH).expect("samples are after the epoch");
            mirror::SystemTimeFields {
                secs_since_epoch: d.as_secs(),
                nanos_since_epoch: d.subsec_nanos(),
            }
        })
        .collect();
}

/// Plain derived types of the shape serde gives some std types: compiled here and extracted with every
/// case (`mod mirror` of the extracted source).
macro_rules! mirrors {
    ($($item:item)*) => {
        pub mod mirror {
            use serde::{Deserialize, Serialize};
            $($item)*
        }

        const MIRRORS: &str = stringify!($($item)*);
    };
}

mirrors! {
    #[derive(Serialize, Deserialize)]
    pub struct DurationFields {
        pub secs: u64,
        pub nanos: u32,
    }

    #[derive(Serialize, Deserialize)]
    pub struct SystemTimeFields {
        pub secs_since_epoch: u64,
        pub nanos_since_epoch: u32,
    }
}

// ----- the shape of each std type -----

shape!(nonzero_u32, std::num::NonZeroU32);
shape!(nonzero_i8, core::num::NonZeroI8);
shape!(nonzero_generic, std::num::NonZero<u64>);
shape!(wrapping, std::num::Wrapping<u32>);
shape!(saturating, std::num::Saturating<u32>);
shape!(reverse, std::cmp::Reverse<u32>);
shape!(boxed, Box<u32>);
shape!(cell, std::cell::Cell<u32>);
shape!(ref_cell, std::cell::RefCell<u32>);
shape!(mutex, std::sync::Mutex<u32>);
shape!(rw_lock, std::sync::RwLock<u32>);
shape!(atomic_u32, std::sync::atomic::AtomicU32);
shape!(atomic_bool, core::sync::atomic::AtomicBool);
shape!(phantom_data, std::marker::PhantomData<u32>);
shape!(cow_str, std::borrow::Cow<'static, str>);
shape!(duration, std::time::Duration);
shape!(core_duration, core::time::Duration);
shape!(system_time, std::time::SystemTime);
shape!(path_buf, std::path::PathBuf);
shape!(os_string, std::ffi::OsString);
shape!(ipv4_addr, std::net::Ipv4Addr);
shape!(ipv6_addr, core::net::Ipv6Addr);
shape!(ip_addr, std::net::IpAddr);
shape!(socket_addr_v4, std::net::SocketAddrV4);
shape!(socket_addr_v6, std::net::SocketAddrV6);
shape!(socket_addr, std::net::SocketAddr);
shape!(range, std::ops::Range<u32>);
shape!(range_inclusive, std::ops::RangeInclusive<u32>);
shape!(range_from, std::ops::RangeFrom<u32>);
shape!(range_to, core::ops::RangeTo<u32>);
shape!(bound, std::ops::Bound<u32>);
shape!(option, Option<u32>);
shape!(result, Result<u32, String>);
shape!(array, [u8; 4]);
shape!(empty_array, [u32; 0]);
shape!(tuple, (u32, String, char));
shape!(character, char);
shape!(vec_deque, std::collections::VecDeque<u32>);
shape!(btree_map, std::collections::BTreeMap<String, u32>);

// ----- changes, with real verdicts -----

change!(u32_to_nonzero, u32 => std::num::NonZeroU32, conservative: []);
change!(nonzero_to_u32, std::num::NonZeroU32 => u32, conservative: []);
change!(
    nonzero_u32_to_u64,
    std::num::NonZeroU32 => std::num::NonZeroU64,
    conservative: [(BincodeStandard, NewReadsOld)]
);
change!(duration_to_u64, std::time::Duration => u64, conservative: []);
change!(duration_to_its_fields, std::time::Duration => mirror::DurationFields, conservative: []);
change!(duration_std_to_core, std::time::Duration => core::time::Duration, conservative: []);
change!(
    system_time_to_its_fields,
    std::time::SystemTime => mirror::SystemTimeFields,
    conservative: []
);
change!(string_to_path_buf, String => std::path::PathBuf, conservative: []);
change!(string_to_ip_addr, String => std::net::IpAddr, conservative: []);
change!(ipv4_addr_to_ip_addr, std::net::Ipv4Addr => std::net::IpAddr, conservative: []);
change!(ip_addr_to_ipv6_addr, std::net::IpAddr => std::net::Ipv6Addr, conservative: []);
change!(
    socket_addr_v4_to_socket_addr,
    std::net::SocketAddrV4 => std::net::SocketAddr,
    conservative: []
);
change!(range_to_range_inclusive, std::ops::Range<u32> => std::ops::RangeInclusive<u32>, conservative: []);
change!(bound_to_option, std::ops::Bound<u32> => Option<u32>, conservative: []);
change!(
    wrappers_to_other_wrappers,
    std::cmp::Reverse<std::num::Wrapping<u32>> => std::sync::Mutex<std::cell::Cell<u32>>,
    conservative: []
);
change!(atomic_to_box, std::sync::atomic::AtomicU32 => Box<u32>, conservative: []);
change!(phantom_data_to_unit, std::marker::PhantomData<u32> => (), conservative: []);
change!(char_to_string, char => String, conservative: []);
change!(os_string_to_bytes, std::ffi::OsString => Vec<u8>, conservative: []);
change!(array_to_tuple, [u8; 4] => (u8, u8, u8, u8), conservative: []);
