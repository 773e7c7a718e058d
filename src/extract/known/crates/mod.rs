//! The catalogue: wire shapes of other crates' types whose serde impls are written by hand, keyed by
//! crate and version range. Empty until the catalogue's entries land (issue 15, item 3).

use semver::Version;

use super::Known;
use crate::model::Ty;

/// The catalogued shape of the type at `path` (first segment: the crate) at `version`, if any.
pub(super) fn lookup(_path: &[String], _args: &[Ty], _version: Option<&Version>) -> Option<Known> {
    None
}
