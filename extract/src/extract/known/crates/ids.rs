//! Identifiers and names that are strings (or bytes) on the wire: `uuid::Uuid`, `semver::Version` and
//! `semver::VersionReq`, camino's UTF-8 paths.

use super::{Entry, Known, readable, refined, refined_str};
use crate::model::Ty;

/// `uuid::Uuid` (uuid 1.x, `serde` feature): in human-readable formats the lowercase hyphenated string
/// (read: any of uuid's text forms: simple, hyphenated, braced, urn); in compact formats
/// `serialize_bytes` of the 16 bytes, read by `deserialize_bytes` (exactly 16 bytes, or a sequence of
/// 16 numbers).
fn uuid(_: &[Ty]) -> Option<Known> {
    let human = refined_str(
        "uuid",
        &[],
        "\"67e55044-10b1-426f-9247-bb680e5fe0c8\"",
        "\"\"",
    );
    let compact = refined(
        Ty::Bytes,
        "bytes-16",
        &[],
        "[103,229,80,68,16,177,66,111,146,71,187,104,14,95,224,200]",
        Some("[]"),
    );
    Some(Known::plain(readable(human, compact)))
}

/// `semver::Version` (semver 1.x, `serde` feature): `collect_str` of the version, read by
/// `Version::parse` (SemVer 2.0.0, no leading `v`). Every such text is also a `VersionReq` (`1.2.3` is
/// `^1.2.3`, build metadata ignored), so a `VersionReq` reads what a `Version` writes.
fn version(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "semver",
        &["semver-req"],
        "\"1.2.3-alpha.1\"",
        "\"1.2\"",
    )))
}

/// `semver::VersionReq` (semver 1.x): `collect_str`, read by `VersionReq::parse`.
fn version_req(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "semver-req",
        &[],
        "\">=1.2.3, <2.0.0\"",
        "\"~>1\"",
    )))
}

/// camino's `Utf8PathBuf` (and `Box<Utf8Path>`): any UTF-8 string.
fn utf8_path(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::String))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "uuid",
        versions: ">=1.0.0, <2.0.0",
        items: &["Uuid"],
        shape: uuid,
    },
    Entry {
        krate: "semver",
        versions: ">=1.0.0, <2.0.0",
        items: &["Version"],
        shape: version,
    },
    Entry {
        krate: "semver",
        versions: ">=1.0.0, <2.0.0",
        items: &["VersionReq"],
        shape: version_req,
    },
    Entry {
        krate: "camino",
        versions: ">=1.0.0, <2.0.0",
        items: &["Utf8PathBuf", "Utf8Path"],
        shape: utf8_path,
    },
];
