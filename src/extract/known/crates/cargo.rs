//! Cargo's schema types that tools reading cargo's JSON hold: `cargo_platform::Platform`, the target of
//! a platform-specific dependency (`cargo metadata`'s `dependencies[].target`).
//!
//! `Platform`'s serde impls (the same in every release from 0.1 to 0.3) write `to_string()` and read a
//! `String` through `FromStr`: `cfg(...)` is parsed as a cfg expression, anything else must be a target
//! name of letters, digits, `_`, `-` and `.` (the empty string included). The same string in every
//! format. What the cfg parser accepts grew: 0.2 reads raw identifiers (`cfg(r#true)`, which 0.1 rejects
//! at `#`); 0.3 reads `cfg(true)`/`cfg(false)` as the literals, which 0.2 already accepted as names, and
//! writes them back the same. So 0.1's domain is a part of the one 0.2 and 0.3 share.

use super::{Entry, Known, refined_str};
use crate::model::Ty;

/// A platform string that every release rejects: a `cfg(` without its `)` is read as a target name,
/// which may not hold `(`.
const OUTSIDE: &str = "\"cfg(unix\"";

/// `cargo_platform::Platform` from 0.2: cfg expressions with raw identifiers. The sample is one 0.1
/// rejects, so that a reader of 0.1 given what 0.2 writes has a witness.
fn platform(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "cargo-platform",
        &[],
        "\"cfg(r#true)\"",
        OUTSIDE,
    )))
}

/// `cargo_platform::Platform` 0.1: cfg expressions without raw identifiers.
fn platform_0_1(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "cargo-platform-0.1",
        &["cargo-platform"],
        "\"cfg(unix)\"",
        OUTSIDE,
    )))
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "cargo_platform",
        versions: ">=0.2.0, <0.4.0",
        items: &["Platform"],
        shape: platform,
    },
    Entry {
        krate: "cargo_platform",
        versions: ">=0.1.0, <0.2.0",
        items: &["Platform"],
        shape: platform_0_1,
    },
];

#[cfg(test)]
mod tests {
    //! The older range, checked against the real cargo-platform 0.1 (the integration test
    //! tests/catalogue_truth.rs checks the newest range against the current release; it cannot ask the
    //! catalogue for a version).
    use std::str::FromStr;

    use semver::Version;

    use super::super::lookup;
    use crate::model::Ty;

    fn strings(version: Version) -> (String, String) {
        let path = ["cargo_platform".to_owned(), "Platform".to_owned()];
        let known = lookup(&path, &[], Some(&version)).expect("catalogued");
        let Ty::Refined {
            sample, outside, ..
        } = known.ty
        else {
            panic!("not refined: {}", known.ty)
        };
        let text = |json: &str| serde_json::from_str::<String>(json).expect("a JSON string");
        (text(&sample), text(&outside.expect("an outside value")))
    }

    #[test]
    fn release_0_1_reads_its_sample_and_rejects_the_newer_sample() {
        let (sample, outside) = strings(Version::new(0, 1, 9));
        let read = cargo_platform_01::Platform::from_str(&sample).expect("0.1 reads its sample");
        assert_eq!(read.to_string(), sample);
        assert!(cargo_platform_01::Platform::from_str(&outside).is_err());
        let (newer, _) = strings(Version::new(0, 2, 0));
        assert!(
            cargo_platform_01::Platform::from_str(&newer).is_err(),
            "0.1 must reject {newer}: the ranges' domains differ by it"
        );
        for newer in [Version::new(0, 2, 0), Version::new(0, 3, 3)] {
            assert_eq!(strings(newer).0, "cfg(r#true)");
        }
    }

    #[test]
    fn the_current_release_reads_what_0_1_writes() {
        for text in ["cfg(unix)", "cfg(target_os = \"linux\")", "x86_64-unknown-linux-gnu", ""] {
            let old = cargo_platform_01::Platform::from_str(text).expect("0.1 reads it");
            let new = cargo_platform::Platform::from_str(&old.to_string()).expect("0.3 reads it");
            assert_eq!(new.to_string(), old.to_string());
        }
    }
}
