//! Reading an internally tagged enum (`#[serde(tag = "...")]`) without buffering when its tag comes first.
//!
//! serde's derive reads such an enum by buffering the whole map into its private `Content` (the tag may
//! be anywhere), then reading the variant from the buffer; a tagged enum nested in another is buffered
//! once per level. serde's derived `Serialize` always writes the tag first, so [`deserialize`] looks at
//! the first key:
//!
//! - the tag: the tag's value and the rest of the map are handed to the type's externally tagged twin
//!   ([`Tagged::after_tag`]) as the variant and its content, so serde's derived variant visitors read
//!   the fields straight from the input. A second tag key is the derive's `duplicate_field` error;
//! - anything else (or an empty map, a sequence): the derive's own reading ([`Tagged::buffered`]), given
//!   the map with its first key put back.
//!
//! The two readings agree on every input JSON can give: the same value, or both an error (whose
//! messages may differ when the input has several faults). Other self-describing formats can give what
//! JSON cannot, where they may differ: keys that are sequences, maps, options or newtypes (the derive
//! buffers them; this reading fails on a first one), and 128-bit integers or enums anywhere in the map
//! (serde's buffer refuses them; this reading gives them to the field's type, or skips them).

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{
    BorrowedBytesDeserializer, BorrowedStrDeserializer, BytesDeserializer, MapAccessDeserializer,
    SeqAccessDeserializer,
};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};

/// An internally tagged enum of the model and its two derived readings.
pub(super) trait Tagged: Sized {
    /// The tag's key (`tag = "..."`).
    const TAG: &'static str;
    /// What the derive says it expects: `internally tagged enum <Name>`.
    const EXPECTING: &'static str;

    /// serde's derived reading of the internally tagged enum (buffered).
    fn buffered<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;

    /// serde's derived reading of the same enum externally tagged (no `tag`, same variants and fields):
    /// [`deserialize`] calls it with the tag's value as the variant and the rest of the map as its content.
    fn after_tag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// Reads a `T` as serde's derive does, without buffering when the tag is the first key.
pub(super) fn deserialize<'de, T: Tagged, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_any(TaggedVisitor(PhantomData))
}

/// The derive's `TaggedContentVisitor`: a map or a sequence, nothing else.
struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::buffered(SeqAccessDeserializer::new(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let first = match map.next_key_seed(FirstKey { tag: T::TAG })? {
            Some(First::Tag) => {
                return T::after_tag(AfterTag { map, tag: T::TAG });
            }
            Some(First::Other(key)) => Some(key),
            None => None,
        };
        T::buffered(MapAccessDeserializer::new(Replay { first, map }))
    }
}

/// The first key of the map: the tag, or a key to put back.
enum First<'de> {
    Tag,
    Other(Key<'de>),
}

/// A key that is not the tag, as the format gave it.
enum Key<'de> {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Char(char),
    Str(&'de str),
    String(String),
    Bytes(&'de [u8]),
    ByteBuf(Vec<u8>),
    Unit,
}

impl<'de> Key<'de> {
    /// Gives the key to `seed` as the format gave it.
    fn replay<S: DeserializeSeed<'de>, E: de::Error>(self, seed: S) -> Result<S::Value, E> {
        match self {
            Key::Bool(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::I64(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::U64(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::F64(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::Char(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::Str(v) => seed.deserialize(BorrowedStrDeserializer::new(v)),
            Key::String(v) => seed.deserialize(IntoDeserializer::<E>::into_deserializer(v)),
            Key::Bytes(v) => seed.deserialize(BorrowedBytesDeserializer::new(v)),
            Key::ByteBuf(v) => seed.deserialize(BytesDeserializer::new(&v)),
            Key::Unit => seed.deserialize(IntoDeserializer::<E>::into_deserializer(())),
        }
    }
}

/// Reads the first key as the derive's `TagOrContentVisitor` does (strings and bytes equal to the tag
/// are the tag; a `char` never is).
struct FirstKey {
    tag: &'static str,
}

impl<'de> DeserializeSeed<'de> for FirstKey {
    type Value = First<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<First<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FirstKey {
    type Value = First<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a type tag `{}` or any other scalar key", self.tag)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<First<'de>, E> {
        Ok(First::Other(Key::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<First<'de>, E> {
        Ok(First::Other(Key::I64(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<First<'de>, E> {
        Ok(First::Other(Key::U64(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<First<'de>, E> {
        Ok(First::Other(Key::F64(v)))
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<First<'de>, E> {
        Ok(First::Other(Key::Char(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<First<'de>, E> {
        Ok(self.str_key(v, || Key::String(v.to_owned())))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<First<'de>, E> {
        Ok(self.str_key(v, || Key::Str(v)))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<First<'de>, E> {
        Ok(if v == self.tag {
            First::Tag
        } else {
            First::Other(Key::String(v))
        })
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<First<'de>, E> {
        Ok(self.bytes_key(v, || Key::ByteBuf(v.to_vec())))
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<First<'de>, E> {
        Ok(self.bytes_key(v, || Key::Bytes(v)))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<First<'de>, E> {
        Ok(if v == self.tag.as_bytes() {
            First::Tag
        } else {
            First::Other(Key::ByteBuf(v))
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<First<'de>, E> {
        Ok(First::Other(Key::Unit))
    }

    fn visit_none<E: de::Error>(self) -> Result<First<'de>, E> {
        Ok(First::Other(Key::Unit))
    }
}

impl FirstKey {
    fn str_key<'de>(&self, v: &str, other: impl FnOnce() -> Key<'de>) -> First<'de> {
        if v == self.tag {
            First::Tag
        } else {
            First::Other(other())
        }
    }

    fn bytes_key<'de>(&self, v: &[u8], other: impl FnOnce() -> Key<'de>) -> First<'de> {
        if v == self.tag.as_bytes() {
            First::Tag
        } else {
            First::Other(other())
        }
    }
}

/// The map with its first key put back, for the derive's buffered reading.
struct Replay<'de, A> {
    first: Option<Key<'de>>,
    map: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(key) => key.replay(seed).map(Some),
            None => self.map.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        let first = usize::from(self.first.is_some());
        self.map.size_hint().map(|n| n + first)
    }
}

/// A map whose tag key has been read: the variant (the tag's value, still to read) and its content (the
/// rest of the map), as an externally tagged enum reads them.
struct AfterTag<A> {
    map: A,
    tag: &'static str,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for AfterTag<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for AfterTag<A> {
    type Error = A::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        mut self,
        seed: V,
    ) -> Result<(V::Value, Self), A::Error> {
        let variant = self.map.next_value_seed(seed)?;
        Ok((variant, self))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for AfterTag<A> {
    type Error = A::Error;

    /// The derive's `InternallyTaggedUnitVisitor`: every other entry is ignored.
    fn unit_variant(self) -> Result<(), A::Error> {
        let mut rest = self.rest();
        while rest.next_key_seed(AnyKey)?.is_some() {
            rest.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    /// The content is the rest of the map (the derive reads it as a map too).
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        seed.deserialize(MapAccessDeserializer::new(self.rest()))
    }

    /// Internally tagged enums have no tuple variants (serde's derive refuses them).
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Map, &visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.rest())
    }
}

impl<A> AfterTag<A> {
    fn rest(self) -> Rest<A> {
        Rest {
            map: self.map,
            tag: self.tag,
        }
    }
}

/// Any key, read with `deserialize_any` so that the tag is seen (`deserialize_ignored_any` may skip a
/// key unread).
struct AnyKey;

impl<'de> DeserializeSeed<'de> for AnyKey {
    type Value = IgnoredAny;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<IgnoredAny, D::Error> {
        deserializer.deserialize_any(IgnoredAny)
    }
}

/// The rest of a map after its tag: the tag again is the derive's `duplicate_field` error.
struct Rest<A> {
    map: A,
    tag: &'static str,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Rest<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(NotTag {
            inner: seed,
            tag: self.tag,
        })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// Wraps a key's seed, its deserializer or its visitor: a string or bytes equal to the tag is an error,
/// everything else goes through unchanged.
struct NotTag<T> {
    inner: T,
    tag: &'static str,
}

impl<T> NotTag<T> {
    fn wrap<U>(&self, inner: U) -> NotTag<U> {
        NotTag {
            inner,
            tag: self.tag,
        }
    }

    fn check<E: de::Error>(&self, key: &[u8]) -> Result<(), E> {
        if key == self.tag.as_bytes() {
            Err(E::duplicate_field(self.tag))
        } else {
            Ok(())
        }
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NotTag<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let deserializer = self.wrap(deserializer);
        self.inner.deserialize(deserializer)
    }
}

/// Forwards `deserialize_*` methods to the wrapped deserializer with the visitor wrapped.
macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let visitor = self.wrap(visitor);
            self.inner.$method(visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for NotTag<D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq
        deserialize_map deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.wrap(visitor);
        self.inner.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Forwards `visit_*` methods of one scalar argument to the wrapped visitor.
macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for NotTag<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
        visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128) visit_f32(f32)
        visit_f64(f64) visit_char(char)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.check(v.as_bytes())?;
        self.inner.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.check(v.as_bytes())?;
        self.inner.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.check(v.as_bytes())?;
        self.inner.visit_string(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.check(v)?;
        self.inner.visit_bytes(v)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.check(v)?;
        self.inner.visit_borrowed_bytes(v)
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.check(&v)?;
        self.inner.visit_byte_buf(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}
