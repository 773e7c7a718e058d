//! Byte strings: `bytes::Bytes`/`BytesMut` and `serde_bytes` (`ByteBuf`, `Bytes`, `with = "serde_bytes"`).
//! All write `serialize_bytes` and read with `deserialize_byte_buf`/`deserialize_bytes`, whose visitors
//! also take a sequence of numbers and a string (its UTF-8 bytes): `Ty::Bytes`, whose reader takes a
//! string where the format's codec hands one to the visitor (serde_json, rmp-serde, and bincode and
//! postcard, where a string is its bytes) and not in CBOR, whose `deserialize_byte_buf` takes only a
//! byte string or an array (`compat/codec.rs`).

use super::with::{WithEntry, option, option_inner};
use super::{Entry, Known};
use crate::model::{SeqKind, Ty};

/// Writes bytes; reads bytes, a sequence of numbers (what bytes are in JSON) or, where the format hands
/// the visitor one, a string.
fn byte_string() -> Ty {
    Ty::Bytes
}

/// Any of the byte-string types.
fn bytes(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(byte_string()))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "bytes",
        versions: ">=1.0.0, <2.0.0",
        items: &["Bytes", "BytesMut"],
        shape: bytes,
    },
    Entry {
        krate: "serde_bytes",
        versions: ">=0.11.0, <0.12.0",
        items: &["ByteBuf", "Bytes"],
        shape: bytes,
    },
];

/// Whether `ty` is a byte sequence as serde_bytes' `with` takes it: `Vec<u8>`, `&[u8]`, `Box<[u8]>`
/// (lowered to a list of `u8`), or a byte string already.
fn is_byte_seq(ty: &Ty) -> bool {
    match ty {
        Ty::Seq {
            kind: SeqKind::List,
            elem,
        } => {
            **elem
                == Ty::Int {
                    signed: false,
                    bits: 8,
                }
        }
        Ty::Choice { writes, .. } => **writes == Ty::Bytes,
        other => *other == Ty::Bytes,
    }
}

/// `with = "serde_bytes"` on a byte sequence or an `Option` of one (fixed-size arrays, which read only
/// their own length, are not catalogued).
fn serde_bytes_with(field: &Ty) -> Option<Known> {
    match option_inner(field) {
        Some(inner) if is_byte_seq(inner) => Some(Known::plain(option(byte_string()))),
        None if is_byte_seq(field) => Some(Known::plain(byte_string())),
        _ => None,
    }
}

/// `with = "serde_bytes"`.
pub(super) const WITH: &[WithEntry] = &[WithEntry {
    krate: "serde_bytes",
    versions: ">=0.11.0, <0.12.0",
    modules: &[""],
    shape: serde_bytes_with,
}];
