//! `#[serde(with = "module")]` modules of catalogued crates (`chrono::serde::ts_seconds`,
//! `time::serde::rfc3339`, `humantime_serde`, `serde_bytes`, `http_serde::status_code`, ...): the shape
//! the module writes and reads for the field's type, so that a field moved from one module to another of
//! the same wire format compares equal. The tables live in each family's file; `mod.rs` looks them up.

use super::Known;
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
