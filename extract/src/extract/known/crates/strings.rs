//! Strings and byte strings of other crates that write what std's do: `smol_str::SmolStr` (0.3),
//! `compact_str::CompactString` (0.10) and `ecow::EcoString` (0.3) write `serialize_str` and read with
//! `deserialize_str`, whose visitors take a string or UTF-8 bytes (what `String`'s takes); `ecow::EcoVec<T>`
//! writes a sequence and reads one (`deserialize_seq`); `ecow::EcoBytes` writes `serialize_bytes` and
//! reads bytes, a sequence or a string (`deserialize_bytes`). Each read in its crate's `serde.rs` (or the
//! `serde` module of `string.rs`, `vec.rs`, `bytes.rs` for ecow); checked by tests/catalogue_truth.rs.

use super::{Entry, Known};
use crate::model::{SeqKind, Ty};

/// A string: what `String` is on the wire.
fn string(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::String))
}

/// `EcoVec<T>`: a list of `T`.
fn eco_vec(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Seq {
        kind: SeqKind::List,
        elem: Box::new(args.first()?.clone()),
    }))
}

/// `EcoBytes`: a byte string.
fn eco_bytes(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Bytes))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "smol_str",
        versions: ">=0.3.0, <0.4.0",
        items: &["SmolStr"],
        shape: string,
    },
    Entry {
        krate: "compact_str",
        versions: ">=0.10.0, <0.11.0",
        items: &["CompactString"],
        shape: string,
    },
    Entry {
        krate: "ecow",
        versions: ">=0.3.0, <0.4.0",
        items: &["EcoString", "string::EcoString"],
        shape: string,
    },
    Entry {
        krate: "ecow",
        versions: ">=0.3.0, <0.4.0",
        items: &["EcoVec", "vec::EcoVec"],
        shape: eco_vec,
    },
    Entry {
        krate: "ecow",
        versions: ">=0.3.0, <0.4.0",
        items: &["EcoBytes", "bytes::EcoBytes"],
        shape: eco_bytes,
    },
];
