//! serde_json 1.x: `Value` reads anything (and writes what it holds), `Map<String, Value>` is an
//! object, `Number` any JSON number, `RawValue` any JSON text. These are JSON types: their `Deserialize`
//! needs `deserialize_any`, which compact formats (bincode, postcard) do not support.

use super::{Entry, Known};
use crate::model::Ty;

/// `Value`.
fn value(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Value))
}

/// `Map<String, Value>`.
fn map(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Map {
        key: Box::new(Ty::String),
        value: Box::new(Ty::Value),
    }))
}

/// `Number`: writes an integer or a float (`f64` covers what it writes, as a reader of any JSON number);
/// reads any number.
fn number(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Choice {
        writes: Box::new(Ty::Float { bits: 64 }),
        reads: vec![
            Ty::Int {
                signed: false,
                bits: 64,
            },
            Ty::Int {
                signed: true,
                bits: 64,
            },
            Ty::Float { bits: 64 },
        ],
    }))
}

/// One serde_json 1.x entry.
const fn entry(items: &'static [&'static str], shape: fn(&[Ty]) -> Option<Known>) -> Entry {
    Entry {
        krate: "serde_json",
        versions: ">=1.0.0, <2.0.0",
        items,
        shape,
    }
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    entry(&["Value", "value::Value"], value),
    entry(&["Map", "map::Map"], map),
    entry(&["Number", "value::Number"], number),
    entry(&["value::RawValue"], value),
];
