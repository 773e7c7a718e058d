//! time 0.3 with its `serde-human-readable` and `serde-well-known` features: in human-readable formats
//! its types write strings in time's own formats (`2024-01-02 03:04:05.0 +00:00:00`, not RFC 3339) and
//! read either that string or the compact tuple (`deserialize_any`); in compact formats they are tuples of
//! their components. Without `serde-human-readable` the tuple is written in every format: the catalogue
//! assumes the feature (the caller does not know features yet). Checked at time 0.3.55.

use super::chrono::{iso_date, rfc3339, unix_count, unix_seconds};
use super::with::{WithEntry, option, option_inner};
use super::{Entry, Known, int, readable, refined, refined_str, uint};
use crate::model::Ty;

/// Human-readable: writes `text`, reads it or the `tuple`; compact: the `tuple`.
fn text_or_tuple(text: Ty, tuple: Vec<Ty>) -> Ty {
    let tuple = Ty::Tuple { elems: tuple };
    readable(
        Ty::Choice {
            writes: Box::new(text.clone()),
            reads: vec![text, tuple.clone()],
        },
        tuple,
    )
}

/// `(year, ordinal)`.
fn date_parts() -> Vec<Ty> {
    vec![int(32), uint(16)]
}

/// `(hour, minute, second, nanosecond)`.
fn time_parts() -> Vec<Ty> {
    vec![uint(8), uint(8), uint(8), uint(32)]
}

/// `(hours, minutes, seconds)` of an offset.
fn offset_parts() -> Vec<Ty> {
    vec![int(8), int(8), int(8)]
}

/// `OffsetDateTime`.
fn offset_date_time(_: &[Ty]) -> Option<Known> {
    let text = refined_str(
        "time-offset-datetime",
        &[],
        "\"2024-01-02 03:04:05.0 +00:00:00\"",
        "\"2024-01-02T03:04:05Z\"",
    );
    let parts = [date_parts(), time_parts(), offset_parts()].concat();
    Some(Known::plain(text_or_tuple(text, parts)))
}

/// `PrimitiveDateTime` (`PlainDateTime` since 0.3.48).
fn primitive_date_time(_: &[Ty]) -> Option<Known> {
    let text = refined_str(
        "time-local-datetime",
        &[],
        "\"2024-01-02 03:04:05.0\"",
        "\"2024-01-02T03:04:05\"",
    );
    let parts = [date_parts(), time_parts()].concat();
    Some(Known::plain(text_or_tuple(text, parts)))
}

/// `UtcDateTime`: written like a `PrimitiveDateTime`, always in UTC.
fn utc_date_time(_: &[Ty]) -> Option<Known> {
    primitive_date_time(&[])
}

/// `Date`: `2024-01-02`, the same text as chrono's `NaiveDate`.
fn date(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(text_or_tuple(iso_date(), date_parts())))
}

/// `Time`: `03:04:05.0` (the fraction is always written and required).
fn time(_: &[Ty]) -> Option<Known> {
    let text = refined_str("time-time", &[], "\"03:04:05.0\"", "\"03:04:05\"");
    Some(Known::plain(text_or_tuple(text, time_parts())))
}

/// `UtcOffset`: `+01:00:00`.
fn utc_offset(_: &[Ty]) -> Option<Known> {
    let text = refined_str("time-utc-offset", &[], "\"+01:00:00\"", "\"+01:00\"");
    Some(Known::plain(text_or_tuple(text, offset_parts())))
}

/// `Duration` (`SignedDuration`): `90.000000000` seconds, or `(seconds, nanoseconds)`.
fn duration(_: &[Ty]) -> Option<Known> {
    let text = refined_str("time-duration", &[], "\"90.000000000\"", "\"90s\"");
    Some(Known::plain(text_or_tuple(text, vec![int(64), int(32)])))
}

/// `Weekday`: `Monday`, or `1` (Monday) to `7`.
fn weekday(_: &[Ty]) -> Option<Known> {
    let text = refined_str("time-weekday", &[], "\"Monday\"", "\"Mon\"");
    let number = refined(uint(8), "weekday-from-monday", &[], "1", Some("0"));
    Some(Known::plain(readable(text, number)))
}

/// `Month`: `January`, or `1` to `12`.
fn month(_: &[Ty]) -> Option<Known> {
    let text = refined_str("time-month", &[], "\"January\"", "\"Jan\"");
    let number = refined(uint(8), "month-number", &[], "1", Some("0"));
    Some(Known::plain(readable(text, number)))
}

/// One time entry of the 0.3 series.
const fn entry(items: &'static [&'static str], shape: fn(&[Ty]) -> Option<Known>) -> Entry {
    Entry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        items,
        shape,
    }
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    entry(&["OffsetDateTime"], offset_date_time),
    entry(&["PrimitiveDateTime", "PlainDateTime"], primitive_date_time),
    entry(&["UtcDateTime"], utc_date_time),
    entry(&["Date"], date),
    entry(&["Time"], time),
    entry(&["UtcOffset"], utc_offset),
    entry(&["Duration", "SignedDuration"], duration),
    entry(&["Weekday"], weekday),
    entry(&["Month"], month),
];

/// A module for a non-optional field.
fn plain(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).is_none().then(|| Known::plain(ty))
}

/// A `::option` module on an `Option<…>` field.
fn optional(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).map(|_| Known::plain(option(ty)))
}

/// A well-known format's `::option` module: its `Some` is read with `deserialize_any`, which compact
/// formats do not implement; there a present value reads nothing (`None` still reads).
fn optional_text(field: &Ty, text: Ty) -> Option<Known> {
    option_inner(field)?;
    let unreadable = Ty::Choice {
        writes: Box::new(text.clone()),
        reads: Vec::new(),
    };
    Some(Known::plain(readable(option(text), option(unreadable))))
}

/// Milliseconds since the Unix epoch as `timestamp::milliseconds` writes them: an `i128` (a JSON
/// number like chrono's `ts_milliseconds`, but 16 bytes in bincode), of the same domain: every value
/// time writes fits an `i64`.
fn unix_millis_i128() -> Ty {
    unix_count(128, "unix-milliseconds", 1_000, "1704164645000")
}

/// Microseconds since the Unix epoch as `timestamp::microseconds` writes them: an `i128`, of the same
/// domain as chrono's `ts_microseconds` (every value time writes fits an `i64`).
fn unix_micros_i128() -> Ty {
    unix_count(128, "unix-microseconds", 1_000_000, "1704164645000000")
}

/// RFC 2822 (`Tue, 02 Jan 2024 03:04:05 +0000`).
fn rfc2822() -> Ty {
    refined_str(
        "rfc2822",
        &[],
        "\"Tue, 02 Jan 2024 03:04:05 +0000\"",
        "\"2024-01-02T03:04:05Z\"",
    )
}

/// `time::serde::*` modules (for `OffsetDateTime` fields).
pub(super) const WITH: &[WithEntry] = &[
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::rfc3339"],
        shape: |field| plain(field, rfc3339()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::rfc3339::option"],
        shape: |field| optional_text(field, rfc3339()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::rfc2822"],
        shape: |field| plain(field, rfc2822()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::rfc2822::option"],
        shape: |field| optional_text(field, rfc2822()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp"],
        shape: |field| plain(field, unix_seconds()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::option"],
        shape: |field| optional(field, unix_seconds()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::milliseconds"],
        shape: |field| plain(field, unix_millis_i128()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::milliseconds::option"],
        shape: |field| optional(field, unix_millis_i128()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::microseconds"],
        shape: |field| plain(field, unix_micros_i128()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::microseconds::option"],
        shape: |field| optional(field, unix_micros_i128()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::milliseconds_i64"],
        shape: |field| plain(field, super::chrono::unix_millis()),
    },
    WithEntry {
        krate: "time",
        versions: ">=0.3.0, <0.4.0",
        modules: &["serde::timestamp::milliseconds_i64::option"],
        shape: |field| optional(field, super::chrono::unix_millis()),
    },
];
