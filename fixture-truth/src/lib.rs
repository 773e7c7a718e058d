//! Every rule fixture's witnesses (`tests/fixtures/*`, positional and JSON), decoded by the real codec of
//! the fixture's format with the fixture's own types, in the finding's direction: a witness must fail,
//! leave bytes unread or read back as another value, or it shows nothing.
//!
//! The test per fixture is not written by hand: `build.rs` reads each fixture directory, finds its
//! message types in its sources (the items deriving `Message` on both sides) and writes the test into
//! `OUT_DIR`, which `tests/witnesses.rs` includes. A fixture that names functions it does not define (its
//! sources are read by the extractor only) defines them in `witness_items.rs` beside `old/` and `new/`,
//! compiled into both sides. This crate is a test only (`publish = false`): no user of wirecheck builds
//! the scan.
//!
//! `cargo test -p wirecheck-fixture-truth -- --nocapture` prints every witness's row.

include!("excused.rs");

/// Fixture witnesses whose break no serde rendering shows, with the reason: (fixture, rule, why).
pub const UNOBSERVABLE: &[(&str, &str, &str)] = &[(
    "untagged_misread",
    "untagged_misread",
    "the value is read as another untagged variant holding the same number; an untagged variant's \
     identity is not in its serialized form, so the misread of the variant cannot be rendered",
)];
