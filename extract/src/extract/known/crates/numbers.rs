//! Numbers: ordered-float's wrappers (the float itself; `NotNan` rejects NaN) and
//! `rust_decimal::Decimal` (default features: a string written, a string, an integer or a float read).

use super::{Entry, Known, readable, refined, refined_str};
use crate::model::Ty;

/// `OrderedFloat<T>`: `T`.
fn ordered_float(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(args.first()?.clone()))
}

/// `NotNan<T>`: `T`, NaN rejected (NaN has no JSON text: serde_json writes `null` for it, so no
/// outside value is given; compact formats carry NaN and the reader rejects it).
fn not_nan(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined(
        args.first()?.clone(),
        "not-nan",
        &[],
        "1.5",
        None,
    )))
}

/// `Decimal` with rust_decimal's default features: `serialize_str` of the decimal (`"12.50"`, scale
/// kept), read by `deserialize_any` (a string, an integer or a float), which compact formats (postcard,
/// bincode) do not implement: there it reads nothing. A float is read by parsing its `to_string()`,
/// which fails past the decimal's 96 bits (`1e300`). `serde-float`, `serde-arbitrary-precision` and
/// `serde-str` change this and are not catalogued.
fn decimal(_: &[Ty]) -> Option<Known> {
    let text = refined_str("decimal", &[], "\"12.50\"", "\"twelve\"");
    let compact = Ty::Choice {
        writes: Box::new(text.clone()),
        reads: Vec::new(),
    };
    let human = Ty::Choice {
        writes: Box::new(text.clone()),
        reads: vec![
            text,
            Ty::Int {
                signed: true,
                bits: 64,
            },
            Ty::Int {
                signed: false,
                bits: 64,
            },
            refined(
                Ty::Float { bits: 64 },
                "decimal-range float",
                &[],
                "1.5",
                Some("1e300"),
            ),
        ],
    };
    Some(Known::plain(readable(human, compact)))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "ordered_float",
        versions: ">=1.0.0, <6.0.0",
        items: &["OrderedFloat"],
        shape: ordered_float,
    },
    Entry {
        krate: "ordered_float",
        versions: ">=1.0.0, <6.0.0",
        items: &["NotNan"],
        shape: not_nan,
    },
    Entry {
        krate: "rust_decimal",
        versions: ">=1.0.0, <2.0.0",
        items: &["Decimal", "prelude::Decimal"],
        shape: decimal,
    },
];
