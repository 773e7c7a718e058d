//! Wire shapes the extraction knows without a derive to read: std types as serde implements them
//! (`std_types`), and types of other crates whose serde impls are written by hand (`crates`, the
//! catalogue, keyed by crate version).
//!
//! A lookup takes the type's resolved path (its first segment is the crate: `std`, `core`, `alloc` or a
//! package name) and its generic arguments already lowered to the model.

mod crates;
mod std_types;

use semver::Version;

use crate::model::{Ty, TypeDef};

/// A known type's wire shape: the model type a use of it lowers to, and the definitions that type names
/// (for example `std::time::Duration`'s struct of `secs` and `nanos`).
pub struct Known {
    /// What a use of the type lowers to.
    pub ty: Ty,
    /// Definitions `ty` names through [`Ty::Named`], to add to the snapshot.
    pub defs: Vec<TypeDef>,
}

impl Known {
    /// A shape that names no definition.
    pub fn plain(ty: Ty) -> Known {
        Known {
            ty,
            defs: Vec::new(),
        }
    }
}

/// The wire shape of the type at `path` with generic arguments `args`, for the package `version` when it
/// is known; `None` when neither std nor the catalogue knows it. A path into a catalogued crate is
/// answered by the catalogue alone (std's names, matched by last segment, must not catch
/// `time::Duration`).
pub fn lookup(path: &[String], args: &[Ty], version: Option<&Version>) -> Option<Known> {
    if crates::knows_crate(path) {
        crates::lookup(path, args, version)
    } else {
        std_types::lookup(path, args)
    }
}

/// The primitive type named `name` (`str`, `u8`, `bool`, ...), as serde implements it.
pub fn primitive(name: &str) -> Option<Ty> {
    std_types::primitive(name)
}

/// Whether the catalogue has entries (types or `with` modules) for the crate `path` starts with.
pub fn catalogued(path: &[String]) -> bool {
    crates::knows_crate(path)
}

/// Whole `unit`s since the Unix epoch written as an `i64` (serde_with's `TimestampSeconds<i64>` and the
/// like): the catalogue's domain of that unit, the one chrono's and time's modules write, with `sample`;
/// `None` for a unit that is no such domain.
pub fn unix_timestamp_i64(unit: &str, sample: &str) -> Option<Ty> {
    crates::unix_timestamp_i64(unit, sample)
}

/// The shape a `#[serde(with = "module")]` of a catalogued crate writes and reads for a field of type
/// `field` (`chrono::serde::ts_seconds` on a `DateTime<Utc>`: an `i64` of seconds), at the crate's
/// `version` when known; `module` is resolved, its first segment the crate.
pub fn lookup_with(module: &[String], field: &Ty, version: Option<&Version>) -> Option<Known> {
    crates::lookup_with(module, field, version)
}
