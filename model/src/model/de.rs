//! `Deserialize` for the model's internally tagged enums ([`Ty`], [`Body`], [`EnumRepr`]): serde's
//! derived reading, without its buffering when the tag is the first key (always so in what the derived
//! `Serialize` writes); see [`tagged`]. Their JSON form is unchanged: `Serialize` stays derived.
//!
//! Each enum has two private twins deriving `Deserialize` for it (`#[serde(remote = ...)]`), with the
//! same variants, fields and field attributes: the internally tagged one is the derive's reading (used when
//! the tag is not first), the externally tagged one reads a variant once its tag is known. Both are
//! written from one list (`twins!`); keep it equal to the enum. A field missing there fails to
//! compile, and so does a variant in test builds (the twins derive `Serialize` there, which matches every
//! variant); `tests.rs` checks that the twins write what the enum writes and that the readings agree.

use serde::{Deserialize, Deserializer};

use super::{Body, EnumRepr, Field, SeqKind, Style, Ty, Variant};

#[cfg(any(test, feature = "derive-check"))]
mod agreement;
mod tagged;
#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "derive-check"))]
pub use agreement::reads_as_the_derive;

use tagged::Tagged;

impl<'de> Deserialize<'de> for Ty {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ty, D::Error> {
        tagged::deserialize(deserializer)
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        tagged::deserialize(deserializer)
    }
}

impl<'de> Deserialize<'de> for EnumRepr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EnumRepr, D::Error> {
        tagged::deserialize(deserializer)
    }
}

impl Tagged for Ty {
    const TAG: &'static str = "t";
    const EXPECTING: &'static str = "internally tagged enum Ty";

    fn buffered<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Ty, D::Error> {
        TyBuffered::deserialize(deserializer)
    }

    fn after_tag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Ty, D::Error> {
        TyAfterTag::deserialize(deserializer)
    }
}

impl Tagged for Body {
    const TAG: &'static str = "kind";
    const EXPECTING: &'static str = "internally tagged enum Body";

    fn buffered<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        BodyBuffered::deserialize(deserializer)
    }

    fn after_tag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        BodyAfterTag::deserialize(deserializer)
    }
}

impl Tagged for EnumRepr {
    const TAG: &'static str = "kind";
    const EXPECTING: &'static str = "internally tagged enum EnumRepr";

    fn buffered<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EnumRepr, D::Error> {
        EnumReprBuffered::deserialize(deserializer)
    }

    fn after_tag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EnumRepr, D::Error> {
        EnumReprAfterTag::deserialize(deserializer)
    }
}

/// Writes the twins of one enum: the same variants under two sets of container attributes.
macro_rules! twins {
    (
        $remote:literal, tag = $tag:literal,
        $buffered:ident, $after_tag:ident,
        { $($variants:tt)* }
    ) => {
        /// The derive's reading (internally tagged, buffered).
        #[derive(Deserialize)]
        #[cfg_attr(test, derive(serde::Serialize))]
        #[serde(remote = $remote, tag = $tag, rename_all = "snake_case")]
        #[allow(dead_code, reason = "never built: only its derived `deserialize` is used")]
        enum $buffered { $($variants)* }

        /// A variant's reading once its tag is known (externally tagged).
        #[derive(Deserialize)]
        #[cfg_attr(test, derive(serde::Serialize))]
        #[serde(remote = $remote, rename_all = "snake_case")]
        #[allow(dead_code, reason = "never built: only its derived `deserialize` is used")]
        enum $after_tag { $($variants)* }
    };
}

twins!("Ty", tag = "t", TyBuffered, TyAfterTag, {
    Bool,
    Char,
    String,
    Int { signed: bool, bits: u8 },
    Float { bits: u8 },
    Unit,
    Option { inner: Box<Ty> },
    Seq { kind: SeqKind, elem: Box<Ty> },
    Array { elem: Box<Ty>, len: u64 },
    Tuple { elems: Vec<Ty> },
    Map { key: Box<Ty>, value: Box<Ty> },
    Value,
    Named { path: String, args: Vec<Ty> },
    Param { name: String },
    External {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        package: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    },
    Refined {
        base: Box<Ty>,
        domain: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        within: Vec<String>,
        sample: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outside: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extent: Option<(String, String)>,
    },
    Readable { human: Box<Ty>, compact: Box<Ty> },
    Bytes,
    Choice { writes: Box<Ty>, reads: Vec<Ty> },
});

twins!("Body", tag = "kind", BodyBuffered, BodyAfterTag, {
    Struct { style: Style, fields: Vec<Field> },
    Enum { variants: Vec<Variant> },
    Alias { target: Ty },
});

twins!("EnumRepr", tag = "kind", EnumReprBuffered, EnumReprAfterTag, {
    External,
    Internal { tag: String },
    Adjacent { tag: String, content: String },
    Untagged,
    Integer { signed: bool, bits: u8 },
});
