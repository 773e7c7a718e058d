//! chrono 0.4 (`serde` feature): its date and time types are strings in every format (no
//! `is_human_readable` branch), `TimeDelta` a `(secs, nanos)` tuple, and its `chrono::serde::ts_*`
//! modules integers since the Unix epoch. Checked at chrono 0.4.45.

use super::with::{WithEntry, option, option_inner};
use super::{Entry, Known, int, refined, refined_str, with_extent};
use crate::model::Ty;

/// RFC 3339 date and time with an offset: what `DateTime<Tz>` writes (`2024-01-02T03:04:05Z`, fractional
/// seconds when not zero) and reads (RFC 3339; chrono also accepts a space for the `T`).
pub(super) fn rfc3339() -> Ty {
    refined_str("rfc3339", &[], "\"2024-01-02T03:04:05Z\"", "\"\"")
}

/// ISO 8601 calendar date `2024-01-02`: chrono's `NaiveDate`, time's `Date` (human-readable).
pub(super) fn iso_date() -> Ty {
    refined_str("iso8601-date", &[], "\"2024-01-02\"", "\"2024-13-01\"")
}

/// `DateTime<Tz>`, any time zone: one string.
fn date_time(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(rfc3339()))
}

/// `NaiveDateTime`: `2024-01-02T03:04:05` (fraction when not zero), no offset.
fn naive_date_time(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "iso8601-local-datetime",
        &[],
        "\"2024-01-02T03:04:05\"",
        "\"2024-01-02T03:04:05Z\"",
    )))
}

/// `NaiveDate`.
fn naive_date(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(iso_date()))
}

/// `NaiveTime`: `03:04:05` (fraction when not zero).
fn naive_time(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "iso8601-time",
        &[],
        "\"03:04:05\"",
        "\"25:00:00\"",
    )))
}

/// `Weekday`: `Display` (`Mon`), read by `FromStr` (`Mon`, `monday`, any case).
fn weekday(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "english-weekday",
        &[],
        "\"Mon\"",
        "\"Mo\"",
    )))
}

/// `Month`: its full name (`January`), read by `FromStr` (`Jan`, `january`, any case).
fn month(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "english-month",
        &[],
        "\"January\"",
        "\"Janu\"",
    )))
}

/// `TimeDelta` (alias `Duration`): `(i64, i32)` seconds and nanoseconds, in range.
fn time_delta(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined(
        Ty::Tuple {
            elems: vec![int(64), int(32)],
        },
        "chrono-timedelta",
        &[],
        "[90,0]",
        Some("[9223372036854775807,0]"),
    )))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["DateTime", "datetime::DateTime"],
        shape: date_time,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["NaiveDateTime", "naive::NaiveDateTime"],
        shape: naive_date_time,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["NaiveDate", "naive::NaiveDate"],
        shape: naive_date,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["NaiveTime", "naive::NaiveTime"],
        shape: naive_time,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["Weekday"],
        shape: weekday,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &["Month"],
        shape: month,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.45, <0.5.0",
        items: &["TimeDelta", "Duration"],
        shape: time_delta,
    },
    Entry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        items: &[
            "Utc",
            "offset::Utc",
            "FixedOffset",
            "offset::FixedOffset",
            "Local",
            "offset::Local",
        ],
        shape: time_zone,
    },
];

/// A time zone (`Utc`, `FixedOffset`, `Local`): chrono gives them no serde impls, so they are never on
/// the wire by themselves; they are `DateTime`'s parameter, whose string does not depend on it. Known,
/// so that naming one (`DateTime<Utc>`) is not a type wirecheck cannot see into, noted on every check.
/// The shape is the unit: a field of a time zone alone does not compile with serde's derive.
fn time_zone(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Unit))
}

/// The first and the last second of the date and time domains (`-9999-01-01T00:00:00Z` and
/// `9999-12-31T23:59:59Z`, what time holds without its `large-dates` feature), in Unix seconds.
const UNIX_SECONDS: (i128, i128) = (-377_705_116_800, 253_402_300_799);

/// A count of `1 / per_second` seconds since the Unix epoch, an integer of `bits`, in the domain
/// `domain`: every count from the first to the last instant of the date and time domains.
pub(super) fn unix_count(bits: u8, domain: &str, per_second: i128, sample: &str) -> Ty {
    let (first, last) = UNIX_SECONDS;
    with_extent(
        refined(int(bits), domain, &[], sample, Some("9223372036854775807")),
        first * per_second,
        last * per_second + per_second - 1,
    )
}

/// Seconds since the Unix epoch, an `i64`: chrono's `ts_seconds`, time's `timestamp`. chrono rejects
/// values past its ±262143 years.
pub(super) fn unix_seconds() -> Ty {
    unix_count(64, "unix-seconds", 1, "1704164645")
}

/// Milliseconds since the Unix epoch, an `i64`.
pub(super) fn unix_millis() -> Ty {
    unix_count(64, "unix-milliseconds", 1_000, "1704164645000")
}

/// Microseconds since the Unix epoch, an `i64`.
pub(super) fn unix_micros() -> Ty {
    unix_count(64, "unix-microseconds", 1_000_000, "1704164645000000")
}

/// Nanoseconds since the Unix epoch, an `i64`: every `i64` is a time chrono holds.
pub(super) fn unix_nanos() -> Ty {
    int(64)
}

/// A `ts_*` module on a `DateTime<Utc>` (or `NaiveDateTime`) field.
fn plain(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).is_none().then(|| Known::plain(ty))
}

/// A `ts_*_option` module on an `Option<…>` field.
fn optional(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).map(|_| Known::plain(option(ty)))
}

/// `chrono::serde::*` and `chrono::naive::serde::*` (the same modules for `NaiveDateTime`).
pub(super) const WITH: &[WithEntry] = &[
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &["serde::ts_seconds", "naive::serde::ts_seconds"],
        shape: |field| plain(field, unix_seconds()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &[
            "serde::ts_seconds_option",
            "naive::serde::ts_seconds_option",
        ],
        shape: |field| optional(field, unix_seconds()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &["serde::ts_milliseconds", "naive::serde::ts_milliseconds"],
        shape: |field| plain(field, unix_millis()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &[
            "serde::ts_milliseconds_option",
            "naive::serde::ts_milliseconds_option",
        ],
        shape: |field| optional(field, unix_millis()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &["serde::ts_microseconds", "naive::serde::ts_microseconds"],
        shape: |field| plain(field, unix_micros()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &[
            "serde::ts_microseconds_option",
            "naive::serde::ts_microseconds_option",
        ],
        shape: |field| optional(field, unix_micros()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &["serde::ts_nanoseconds", "naive::serde::ts_nanoseconds"],
        shape: |field| plain(field, unix_nanos()),
    },
    WithEntry {
        krate: "chrono",
        versions: ">=0.4.0, <0.5.0",
        modules: &[
            "serde::ts_nanoseconds_option",
            "naive::serde::ts_nanoseconds_option",
        ],
        shape: |field| optional(field, unix_nanos()),
    },
];

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use crate::model::Ty;

    fn path(text: &str) -> Vec<String> {
        text.split("::").map(str::to_owned).collect()
    }

    /// Issue 33 item 9: `DateTime<Utc>` noted `chrono::Utc` as a type wirecheck cannot see into on every
    /// check; the time zones are known, and the date time's shape does not depend on them.
    #[test]
    fn time_zones_are_known_and_leave_the_date_time_alone() {
        for zone in [
            "chrono::Utc",
            "chrono::offset::FixedOffset",
            "chrono::Local",
        ] {
            let known = lookup(&path(zone), &[], None).unwrap_or_else(|| panic!("{zone}"));
            assert_eq!(known.ty, Ty::Unit, "{zone}");
        }
        let utc = lookup(&path("chrono::Utc"), &[], None).unwrap().ty;
        let with_utc = lookup(&path("chrono::DateTime"), &[utc], None).unwrap();
        let with_offset = lookup(&path("chrono::DateTime"), &[Ty::Unit], None).unwrap();
        assert_eq!(with_utc.ty, with_offset.ty);
    }
}
