//! The vocabulary of wirecheck's declarations: [`Kind`], [`Upgrade`], [`Format`] and [`ResponseMode`], each
//! with its keywords, defined once.
//!
//! Every keyword is written in one table below, which gives each enum its [`as_str`](Kind::as_str), its
//! [`FromStr`], its list of values ([`Kind::ALL`]) and, with the `serde` feature, its serde names. Three crates
//! read the tables: `wirecheck-grammar` parses `kind = "request"` with them and names the runtime value in the
//! code the derives generate ([`Keyword::variant_name`]), and `wirecheck` re-exports the enums as its own
//! (`wirecheck::Kind`), so the derive, the checker and the reports cannot spell a keyword differently.
//!
//! This crate is an implementation detail of wirecheck; use the enums through `wirecheck`.
#![warn(missing_docs)]

pub mod rules;
pub mod window;

use std::fmt;
use std::str::FromStr;

/// An enum whose values are written as keywords (`kind = "request"`).
pub trait Keyword: Copy + Eq + fmt::Debug + 'static {
    /// What the keyword says, as error messages name it (`kind`, `upgrade`).
    const WHAT: &'static str;
    /// The enum's name, as `wirecheck` exports it (`Kind`: the runtime value is `::wirecheck::Kind::Request`).
    const TYPE_NAME: &'static str;
    /// Every value, in declaration order.
    const ALL: &'static [Self];

    /// The keyword written for this value.
    fn as_str(self) -> &'static str;

    /// The name of this value's Rust variant (`Request`).
    fn variant_name(self) -> &'static str;

    /// The value written as `keyword`, if it is one.
    fn from_keyword(keyword: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|value| value.as_str() == keyword)
    }
}

/// Defines an enum from its keyword table: the enum, [`Keyword`], `as_str`, `ALL`, `KEYWORDS`, `Display`,
/// `FromStr`, and (feature `serde`) serde's derives renamed to the keywords.
macro_rules! keyword_enum {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident ($what:literal) {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum $ty {
            $(
                $(#[$variant_meta])*
                #[cfg_attr(feature = "serde", serde(rename = $text))]
                $variant,
            )+
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// Every keyword accepted in `#[wire(...)]`, in declaration order.
            pub const KEYWORDS: &'static [&'static str] = &[$($text),+];

            /// The keyword used for this value in `#[wire(...)]`, in reports and in JSON.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $text),+
                }
            }
        }

        impl Keyword for $ty {
            const WHAT: &'static str = $what;
            const TYPE_NAME: &'static str = stringify!($ty);
            const ALL: &'static [Self] = $ty::ALL;

            fn as_str(self) -> &'static str {
                $ty::as_str(self)
            }

            fn variant_name(self) -> &'static str {
                match self {
                    $($ty::$variant => stringify!($variant)),+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownKeyword;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$ty as Keyword>::from_keyword(s).ok_or_else(|| UnknownKeyword {
                    what: $what,
                    found: s.to_owned(),
                    expected: $ty::KEYWORDS,
                })
            }
        }
    };
}

keyword_enum! {
    /// What a message is on the wire, which decides who reads it and for how long.
    pub enum Kind("kind") {
        /// A request: written by the client, read by the server.
        Request = "request",
        /// A response: written by the server, read by the client.
        Response = "response",
        /// A published event: written and read by peers of any version, not stored.
        Event = "event",
        /// A persisted record (an eventlog entry): every later release must still read it.
        Record = "record",
    }
}

keyword_enum! {
    /// In which order the peers of a protocol are upgraded, which decides the directions that must work.
    #[derive(Default)]
    pub enum Upgrade("upgrade") {
        /// Mixed versions talk in both directions (the default: a Flux TBON is old-new-old-new).
        #[default]
        AnyOrder = "any-order",
        /// Readers of requests (servers) are always upgraded before their writers (clients).
        ServerFirst = "server-first",
        /// Clients are always upgraded before servers.
        ClientFirst = "client-first",
    }
}

keyword_enum! {
    /// The serde format a protocol is encoded with.
    #[derive(Default)]
    pub enum Format("format") {
        /// JSON (self-describing; the default).
        #[default]
        Json = "json",
        /// CBOR (self-describing), as ciborium writes it (`ciborium::into_writer`, read back with
        /// `ciborium::from_reader`): structs as maps keyed by field name, map keys of their own type.
        Cbor = "cbor",
        /// MessagePack (self-describing), as rmp-serde's `to_vec_named` writes it: structs as maps keyed
        /// by field name (read back with `rmp_serde::from_slice`).
        Msgpack = "msgpack",
        /// MessagePack as rmp-serde's default `to_vec` writes it: structs as arrays of their fields, in
        /// declaration order (positional: field names are not on the wire; enum variants still are).
        MsgpackCompact = "msgpack-compact",
        /// bincode (positional: no field names on the wire).
        Bincode = "bincode",
        /// postcard (positional, varint integers).
        Postcard = "postcard",
    }
}

keyword_enum! {
    /// How a request is answered: written in `#[wire(...)]` as `responds = T`, `streams = T` or neither.
    #[derive(Default)]
    pub enum ResponseMode("response mode") {
        /// No response (fire-and-forget requests, events, records, responses themselves).
        #[default]
        None = "none",
        /// Exactly one response (`responds = T`).
        Single = "single",
        /// A stream of responses (`streams = T`).
        Stream = "stream",
    }
}

impl Format {
    /// Whether values say their own type on the wire (JSON, CBOR, both MessagePack forms), so that
    /// serde's `deserialize_any` works (untagged and internally tagged enums, `serde_json::Value`), or
    /// only their bytes in order (bincode, postcard).
    pub fn is_self_describing(self) -> bool {
        matches!(
            self,
            Format::Json | Format::Cbor | Format::Msgpack | Format::MsgpackCompact
        )
    }

    /// Whether a struct's field names travel on the wire (JSON, CBOR, `msgpack`), or only its fields'
    /// positions (`msgpack-compact`, bincode, postcard).
    pub fn names_fields(self) -> bool {
        matches!(self, Format::Json | Format::Cbor | Format::Msgpack)
    }

    /// What the format's serializer and deserializer answer to serde's `is_human_readable()`, which
    /// types such as `IpAddr`, `SystemTime`'s neighbours, `uuid::Uuid` or `chrono` ask to pick a string
    /// or a compact form. Only JSON says yes: the serde layers of bincode 2 (`ser.rs`, `de_owned.rs`,
    /// `de_borrowed.rs`), postcard (`ser/serializer.rs`, `de/deserializer.rs`), ciborium (`ser/mod.rs`,
    /// `de/mod.rs`) and rmp-serde (its `DefaultConfig`, kept by `to_vec_named`'s `StructMapConfig`) all
    /// return `false`.
    pub fn is_human_readable(self) -> bool {
        self == Format::Json
    }
}

/// A keyword that is not one of the accepted values (the error of `"sideways".parse::<Upgrade>()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKeyword {
    what: &'static str,
    found: String,
    expected: &'static [&'static str],
}

impl fmt::Display for UnknownKeyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} `{}`: expected one of {}",
            self.what,
            self.found,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownKeyword {}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Keyword + FromStr<Err = UnknownKeyword> + fmt::Display>() {
        assert!(!T::ALL.is_empty());
        for &value in T::ALL {
            assert_eq!(value.as_str().parse::<T>(), Ok(value));
            assert_eq!(value.to_string(), value.as_str());
            assert_eq!(T::from_keyword(value.as_str()), Some(value));
        }
        let mut keywords: Vec<&str> = T::ALL.iter().map(|v| v.as_str()).collect();
        keywords.sort_unstable();
        keywords.dedup();
        assert_eq!(
            keywords.len(),
            T::ALL.len(),
            "{} keywords are distinct",
            T::WHAT
        );
    }

    #[test]
    fn only_json_is_human_readable() {
        let readable: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|f| f.is_human_readable())
            .collect();
        assert_eq!(readable, vec![Format::Json]);
    }

    #[test]
    fn only_the_map_forms_name_fields() {
        let named: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|f| f.names_fields())
            .collect();
        assert_eq!(named, vec![Format::Json, Format::Cbor, Format::Msgpack]);
        assert!(Format::MsgpackCompact.is_self_describing());
        assert!(!Format::Postcard.is_self_describing());
    }

    #[test]
    fn every_keyword_parses_back_to_its_value() {
        round_trip::<Kind>();
        round_trip::<Upgrade>();
        round_trip::<Format>();
        round_trip::<ResponseMode>();
    }

    #[test]
    fn keywords_follow_all() {
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(kinds, Kind::KEYWORDS);
        assert_eq!(Kind::Request.variant_name(), "Request");
        assert_eq!(Upgrade::ServerFirst.variant_name(), "ServerFirst");
        assert_eq!(<Format as Keyword>::TYPE_NAME, "Format");
    }

    #[test]
    fn unknown_keywords_list_the_accepted_ones() {
        assert_eq!(
            "sideways".parse::<Upgrade>().unwrap_err().to_string(),
            "unknown upgrade `sideways`: expected one of any-order, server-first, client-first"
        );
    }
}
