//! `#[serde(with = "module")]` modules of catalogued crates (`chrono::serde::ts_seconds`,
//! `time::serde::rfc3339`, `humantime_serde`, `serde_bytes`, `http_serde::status_code`, ...): the shape
//! the module writes and reads for the field's type, so that a field moved from one module to another of
//! the same wire format compares equal.

use semver::Version;

use super::{Known, in_range};
use crate::model::Ty;

/// One catalogued `with` module.
pub(super) struct WithEntry {
    /// The crate's name as written in code.
    pub krate: &'static str,
    /// A `semver::VersionReq`.
    pub versions: &'static str,
    /// The module paths after the crate name (empty for the crate itself: `with = "serde_bytes"`).
    pub modules: &'static [&'static str],
    /// The shape, given the field's lowered type; `None` when the module does not apply to it.
    pub shape: fn(&Ty) -> Option<Known>,
}

/// Every table of `with` modules.
const TABLES: &[&[WithEntry]] = &[
    super::chrono::WITH,
    super::time::WITH,
    super::bytes::WITH,
    super::humantime::WITH,
    super::net::WITH,
];

/// Whether a `with` table names the crate.
pub(super) fn knows_crate(krate: &str) -> bool {
    TABLES
        .iter()
        .flat_map(|table| table.iter())
        .any(|entry| entry.krate == krate)
}

/// The shape that the `with` module at `module` (resolved, first segment the crate) writes and reads for
/// a field of type `field`, at the crate's `version` (the newest range when `None`).
pub(in crate::extract::known) fn lookup_with(
    module: &[String],
    field: &Ty,
    version: Option<&Version>,
) -> Option<Known> {
    let (krate, rest) = module.split_first()?;
    let rest = rest.join("::");
    let entry = TABLES
        .iter()
        .flat_map(|table| table.iter())
        .filter(|entry| entry.krate == krate && entry.modules.contains(&rest.as_str()))
        .find(|entry| version.is_none_or(|version| in_range(entry.versions, version)))?;
    (entry.shape)(field)
}

/// The type inside `Option<…>`, for the `_option` modules.
pub(super) fn option_inner(field: &Ty) -> Option<&Ty> {
    match field {
        Ty::Option { inner } => Some(inner),
        _ => None,
    }
}

/// `Option<ty>`.
pub(super) fn option(ty: Ty) -> Ty {
    Ty::Option {
        inner: Box::new(ty),
    }
}
