//! humantime-serde 1.x: `with = "humantime_serde"` (and `humantime_serde::option`, and the
//! `humantime_serde::Serde<T>` wrapper) writes a `std::time::Duration` as humantime's text (`1h 30m`) and
//! a `SystemTime` as RFC 3339 in UTC (`2024-01-02T03:04:05Z`, the same text as chrono's `DateTime<Utc>`).
//! Checked at humantime 2.4.0 and humantime-serde 1.1.1.

use super::with::{WithEntry, option, option_inner};
use super::{Entry, Known, refined_str};
use crate::model::Ty;

/// humantime's duration text.
fn duration_text() -> Ty {
    refined_str("humantime-duration", &[], "\"1h 30m\"", "\"\"")
}

/// Whether `ty` names a type whose last path segment is `name` (std's types lower to a named or an
/// external path).
fn names(ty: &Ty, name: &str) -> bool {
    let path = match ty {
        Ty::Named { path, .. } | Ty::External { path, .. } => path,
        _ => return false,
    };
    let last = path.rsplit("::").next().unwrap_or(path);
    last.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .is_some_and(|base| base == name)
}

/// A `SystemTime` as humantime writes it (`format_rfc3339`: UTC, `Z`, years 1970 to 9999, the fraction
/// when not zero) and reads it (`parse_rfc3339_weak`: years before 1970 are out of range, and an offset
/// other than `Z` or `+00:00` is rejected, or after a fraction ignored): a part of `rfc3339`.
fn utc_since_1970() -> Ty {
    refined_str(
        "rfc3339-utc-since-1970",
        &["rfc3339"],
        "\"2024-01-02T03:04:05Z\"",
        "\"1969-12-31T23:59:59Z\"",
    )
}

/// The text a `Duration` or a `SystemTime` field is written as.
fn text_for(field: &Ty) -> Option<Ty> {
    if names(field, "SystemTime") {
        Some(utc_since_1970())
    } else if names(field, "Duration") {
        Some(duration_text())
    } else {
        None
    }
}

/// `with = "humantime_serde"`.
fn with_plain(field: &Ty) -> Option<Known> {
    text_for(field).map(Known::plain)
}

/// `with = "humantime_serde::option"`.
fn with_option(field: &Ty) -> Option<Known> {
    text_for(option_inner(field)?).map(|ty| Known::plain(option(ty)))
}

/// `humantime_serde::Serde<T>`.
fn serde_wrapper(args: &[Ty]) -> Option<Known> {
    let arg = args.first()?;
    match option_inner(arg) {
        Some(_) => with_option(arg),
        None => with_plain(arg),
    }
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[Entry {
    krate: "humantime_serde",
    versions: ">=1.0.0, <2.0.0",
    items: &["Serde"],
    shape: serde_wrapper,
}];

/// The modules.
pub(super) const WITH: &[WithEntry] = &[
    WithEntry {
        krate: "humantime_serde",
        versions: ">=1.0.0, <2.0.0",
        modules: &[""],
        shape: with_plain,
    },
    WithEntry {
        krate: "humantime_serde",
        versions: ">=1.0.0, <2.0.0",
        modules: &["option"],
        shape: with_option,
    },
];
