//! The generator's vocabulary beyond the crate's own derives: std types serde implements by hand, types of
//! the crates wirecheck catalogues (uuid, url, chrono, time, semver, camino, ordered-float, rust_decimal),
//! their `with` modules, and serde_with's `#[serde_as]` adapters.
//!
//! Every value written here is a constructor expression of the real type (so every payload the batch
//! serializes is one the real type writes). The batch crate depends on these crates at the versions of the
//! workspace's `Cargo.lock` (see `batch.rs`), with the features the truth tests use (time with
//! `serde-human-readable`, the one the catalogue describes).

use super::ir::Pick;
use super::rng::Rng;

/// A type from outside the crate that the engine knows without a derive to read (std's serde impls, the
/// catalogue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    /// `std::time::Duration`: `{"secs": .., "nanos": ..}`.
    Duration,
    /// `std::net::Ipv4Addr`: `"10.0.0.1"`.
    Ipv4,
    /// `std::num::NonZeroU32`: a `u32` whose reader rejects 0.
    NonZeroU32,
    /// `std::net::IpAddr`: `"10.0.0.1"` or `"::1"` (a v4 address is one).
    IpAddr,
    /// `serde_bytes::ByteBuf`: `serialize_bytes` (an array of numbers in JSON; reads strings too).
    Bytes,
    /// `std::time::SystemTime`: `{"secs_since_epoch": .., "nanos_since_epoch": ..}`.
    SystemTime,
    /// `std::path::PathBuf`: a string.
    PathBuf,
    /// `std::num::NonZeroU8`: a `u8` whose reader rejects 0.
    NonZeroU8,
    /// `std::num::Wrapping<u32>`: a `u32`.
    Wrapping,
    /// `std::borrow::Cow<'static, str>`: a string.
    Cow,
    /// `std::ops::Range<u32>`: `{"start": .., "end": ..}`.
    Range,
    /// `std::marker::PhantomData<u32>`: unit (`null`).
    Phantom,
    /// `uuid::Uuid`: a hyphenated string in JSON.
    Uuid,
    /// `url::Url`: a WHATWG URL string.
    Url,
    /// `chrono::DateTime<chrono::Utc>`: an RFC 3339 string.
    DateTime,
    /// `time::OffsetDateTime`: time's own text (`2024-01-02 3:04:05.0 +00:00:00`) in JSON.
    OffsetDateTime,
    /// `semver::Version`: a SemVer string.
    Semver,
    /// `camino::Utf8PathBuf`: any string.
    Utf8Path,
    /// `ordered_float::OrderedFloat<f64>`: an `f64`.
    OrderedF64,
    /// `rust_decimal::Decimal`: a string written; a string, an integer or a float read.
    Decimal,
}

impl Ext {
    /// The type as Rust source.
    pub fn render(self) -> &'static str {
        match self {
            Ext::Duration => "std::time::Duration",
            Ext::Ipv4 => "std::net::Ipv4Addr",
            Ext::NonZeroU32 => "std::num::NonZeroU32",
            Ext::IpAddr => "std::net::IpAddr",
            Ext::Bytes => "serde_bytes::ByteBuf",
            Ext::SystemTime => "std::time::SystemTime",
            Ext::PathBuf => "std::path::PathBuf",
            Ext::NonZeroU8 => "std::num::NonZeroU8",
            Ext::Wrapping => "std::num::Wrapping<u32>",
            Ext::Cow => "std::borrow::Cow<'static, str>",
            Ext::Range => "std::ops::Range<u32>",
            Ext::Phantom => "std::marker::PhantomData<u32>",
            Ext::Uuid => "uuid::Uuid",
            Ext::Url => "url::Url",
            Ext::DateTime => "chrono::DateTime<chrono::Utc>",
            Ext::OffsetDateTime => "time::OffsetDateTime",
            Ext::Semver => "semver::Version",
            Ext::Utf8Path => "camino::Utf8PathBuf",
            Ext::OrderedF64 => "ordered_float::OrderedFloat<f64>",
            Ext::Decimal => "rust_decimal::Decimal",
        }
    }

    /// Whether the type implements `Default`.
    pub fn defaultable(self) -> bool {
        !matches!(
            self,
            Ext::Ipv4
                | Ext::NonZeroU32
                | Ext::IpAddr
                | Ext::SystemTime
                | Ext::NonZeroU8
                | Ext::Url
                | Ext::OffsetDateTime
                | Ext::Semver
        )
    }

    /// Whether the type implements `Display` and `FromStr` (may be written through `DisplayFromStr`).
    pub fn displayable(self) -> bool {
        matches!(
            self,
            Ext::Ipv4
                | Ext::IpAddr
                | Ext::NonZeroU32
                | Ext::NonZeroU8
                | Ext::Uuid
                | Ext::Url
                | Ext::Semver
                | Ext::Decimal
        )
    }

    /// A constructor expression for a value of the type.
    pub fn value(self, pick: Pick, rng: &mut Rng) -> String {
        let (min, max, rand): (&str, &str, &[&str]) = match self {
            Ext::Duration => (
                "std::time::Duration::ZERO",
                "std::time::Duration::MAX",
                &["std::time::Duration::from_millis(1500)"],
            ),
            Ext::Ipv4 => (
                "std::net::Ipv4Addr::UNSPECIFIED",
                "std::net::Ipv4Addr::new(10, 0, 0, 1)",
                &["std::net::Ipv4Addr::new(10, 0, 0, 1)"],
            ),
            Ext::NonZeroU32 => {
                let rand = format!(
                    "std::num::NonZeroU32::new({}).unwrap()",
                    1 + rng.below(1000)
                );
                return pick3(
                    pick,
                    "std::num::NonZeroU32::MIN",
                    "std::num::NonZeroU32::MAX",
                    rand,
                );
            }
            Ext::IpAddr => (
                "std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED)",
                "std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)",
                &["std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1))"],
            ),
            Ext::Bytes => {
                let rand = format!("serde_bytes::ByteBuf::from(vec![{}u8])", rng.below(256));
                return pick3(
                    pick,
                    "serde_bytes::ByteBuf::new()",
                    "serde_bytes::ByteBuf::from(vec![0u8, 255])",
                    rand,
                );
            }
            Ext::SystemTime => (
                "std::time::UNIX_EPOCH",
                "std::time::UNIX_EPOCH + std::time::Duration::new(253_402_300_799, 999_999_999)",
                &[
                    "std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_704_164_645)",
                    "std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_704_164_645_500)",
                ],
            ),
            Ext::PathBuf => (
                "std::path::PathBuf::new()",
                "std::path::PathBuf::from(\"/var/h\u{e9}llo w\u{f6}rld\")",
                &[
                    "std::path::PathBuf::from(\"a/b\")",
                    "std::path::PathBuf::from(\"42\")",
                ],
            ),
            Ext::NonZeroU8 => (
                "std::num::NonZeroU8::MIN",
                "std::num::NonZeroU8::MAX",
                &["std::num::NonZeroU8::new(7).unwrap()"],
            ),
            Ext::Wrapping => (
                "std::num::Wrapping(0u32)",
                "std::num::Wrapping(u32::MAX)",
                &["std::num::Wrapping(7u32)", "std::num::Wrapping(256u32)"],
            ),
            Ext::Cow => (
                "std::borrow::Cow::Borrowed(\"\")",
                "std::borrow::Cow::Owned(String::from(\"h\u{e9}llo w\u{f6}rld\"))",
                &[
                    "std::borrow::Cow::Borrowed(\"x\")",
                    "std::borrow::Cow::Borrowed(\"42\")",
                ],
            ),
            Ext::Range => (
                "0u32..0u32",
                "1u32..4_294_967_295u32",
                &["3u32..7u32", "7u32..3u32"],
            ),
            Ext::Phantom => (
                "std::marker::PhantomData",
                "std::marker::PhantomData",
                &["std::marker::PhantomData"],
            ),
            Ext::Uuid => (
                "uuid::Uuid::nil()",
                "uuid::Uuid::max()",
                &["uuid::Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8)"],
            ),
            Ext::Url => (
                "url::Url::parse(\"http://a/\").unwrap()",
                "url::Url::parse(\"https://user:pw@example.com:8080/p/a|b?q=1#f\").unwrap()",
                &[
                    "url::Url::parse(\"https://example.com/path?q=1\").unwrap()",
                    "url::Url::parse(\"mailto:someone@example.com\").unwrap()",
                ],
            ),
            Ext::DateTime => (
                "chrono::DateTime::<chrono::Utc>::UNIX_EPOCH",
                "chrono::DateTime::from_timestamp(253_402_300_799, 999_999_999).unwrap()",
                &[
                    "chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap()",
                    "chrono::DateTime::from_timestamp(1_704_164_645, 500_000_000).unwrap()",
                    "chrono::DateTime::from_timestamp(-86_400, 0).unwrap()",
                ],
            ),
            Ext::OffsetDateTime => (
                "time::OffsetDateTime::UNIX_EPOCH",
                "time::OffsetDateTime::from_unix_timestamp_nanos(253_402_300_799_999_999_999).unwrap()",
                &[
                    "time::OffsetDateTime::from_unix_timestamp(1_704_164_645).unwrap()",
                    "time::OffsetDateTime::from_unix_timestamp(1_704_164_645).unwrap().to_offset(time::UtcOffset::from_hms(1, 0, 0).unwrap())",
                    "time::OffsetDateTime::from_unix_timestamp(-86_400).unwrap()",
                ],
            ),
            Ext::Semver => (
                "semver::Version::new(0, 0, 0)",
                "semver::Version::parse(\"1.2.3-alpha.1+build.5\").unwrap()",
                &["semver::Version::new(1, 2, 3)"],
            ),
            Ext::Utf8Path => (
                "camino::Utf8PathBuf::new()",
                "camino::Utf8PathBuf::from(\"/var/h\u{e9}llo w\u{f6}rld\")",
                &["camino::Utf8PathBuf::from(\"a/b\")"],
            ),
            Ext::OrderedF64 => (
                "ordered_float::OrderedFloat(0.0f64)",
                "ordered_float::OrderedFloat(1e300f64)",
                &[
                    "ordered_float::OrderedFloat(0.5f64)",
                    "ordered_float::OrderedFloat(-1.5f64)",
                ],
            ),
            Ext::Decimal => (
                "rust_decimal::Decimal::ZERO",
                "rust_decimal::Decimal::MAX",
                &[
                    "rust_decimal::Decimal::new(1250, 2)",
                    "rust_decimal::Decimal::new(-5, 1)",
                    "rust_decimal::Decimal::new(42, 0)",
                ],
            ),
        };
        let rand = (*rng.pick(rand)).to_owned();
        pick3(pick, min, max, rand)
    }
}

fn pick3(pick: Pick, min: &str, max: &str, rand: String) -> String {
    match pick {
        Pick::Min(_) => min.to_owned(),
        Pick::Max(_) => max.to_owned(),
        Pick::Rand => rand,
    }
}

/// A `#[serde(with = "...")]` module of a catalogued crate, over the field type it takes (only a field's
/// own type: modules do not compose).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum With {
    /// `chrono::serde::ts_seconds` on a `DateTime<Utc>`: an `i64` of seconds.
    ChronoSeconds,
    /// `chrono::serde::ts_milliseconds` on a `DateTime<Utc>`: an `i64` of milliseconds.
    ChronoMillis,
    /// `time::serde::rfc3339` on an `OffsetDateTime`: an RFC 3339 string.
    TimeRfc3339,
    /// `time::serde::timestamp` on an `OffsetDateTime`: an `i64` of seconds.
    TimeSeconds,
    /// `time::serde::timestamp::milliseconds_i64` on an `OffsetDateTime`: an `i64` of milliseconds.
    ///
    /// time's `timestamp::milliseconds` (an `i128`) is left out: the engine reports chrono's
    /// `ts_milliseconds` → it as `integer_widened` (the bug branch i16-verdicts fixes).
    TimeMillis,
}

impl With {
    /// The field's Rust type.
    pub fn field_ty(self) -> Ext {
        match self {
            With::ChronoSeconds | With::ChronoMillis => Ext::DateTime,
            With::TimeRfc3339 | With::TimeSeconds | With::TimeMillis => Ext::OffsetDateTime,
        }
    }

    /// The module path.
    pub fn module(self) -> &'static str {
        match self {
            With::ChronoSeconds => "chrono::serde::ts_seconds",
            With::ChronoMillis => "chrono::serde::ts_milliseconds",
            With::TimeRfc3339 => "time::serde::rfc3339",
            With::TimeSeconds => "time::serde::timestamp",
            With::TimeMillis => "time::serde::timestamp::milliseconds_i64",
        }
    }
}

/// A serde_with adapter, in a field's `#[serde_as(as = "...")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adapter {
    /// `DisplayFromStr`: `Display` written as a string, `FromStr` read.
    Display,
    /// `BoolFromInt`: a `bool` as the integer 0 or 1.
    BoolFromInt,
    /// `Base64` over `Vec<u8>`.
    Base64,
    /// `Hex` over `Vec<u8>`.
    Hex,
    /// `OneOrMany<_>` over `Vec<T>`: one element written alone; one or many read.
    OneOrMany,
    /// `DefaultOnNull`: `null` read as the default.
    DefaultOnNull,
    /// `TimestampSeconds<i64>` over `SystemTime`.
    TimestampSeconds,
}

impl Adapter {
    /// The adapter as written in `as = "..."`, around the adapter `inner` of the element type (`_` when
    /// the element is written as itself).
    pub fn render(self, inner: &str) -> String {
        match self {
            Adapter::Display => "serde_with::DisplayFromStr".into(),
            Adapter::BoolFromInt => "serde_with::BoolFromInt".into(),
            Adapter::Base64 => "serde_with::base64::Base64".into(),
            Adapter::Hex => "serde_with::hex::Hex".into(),
            Adapter::OneOrMany => format!("serde_with::OneOrMany<{inner}>"),
            Adapter::DefaultOnNull => format!("serde_with::DefaultOnNull<{inner}>"),
            Adapter::TimestampSeconds => "serde_with::TimestampSeconds<i64>".into(),
        }
    }
}
