//! Cargo's schema types that tools reading cargo's JSON hold: `cargo_platform::Platform`, the target of
//! a platform-specific dependency (`cargo metadata`'s `dependencies[].target`), and cargo-util-schemas'
//! validated names (`manifest::PackageName`, `manifest::FeatureName`).
//!
//! `Platform`'s serde impls (the same in every release from 0.1 to 0.3) write `to_string()` and read a
//! `String` through `FromStr`: `cfg(...)` is parsed as a cfg expression, anything else must be a target
//! name of letters, digits, `_`, `-` and `.` (the empty string included). The same string in every
//! format. What the cfg parser accepts grew: 0.2 reads raw identifiers (`cfg(r#async)`, which 0.1 rejects
//! at `#`); 0.3 reads `cfg(true)`/`cfg(false)` as the literals, which 0.2 already accepted as names (0.3
//! also reads `cfg(r#true)` as the literal and writes it `cfg(true)`, so the sample avoids it). So 0.1's
//! domain is a part of the one 0.2 and 0.3 share.

use super::{Entry, Known, refined, refined_str};
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
        "\"cfg(r#async)\"",
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

/// The generic argument of a string newtype (`PackageName<T: AsRef<str> = String>`), `String` when left
/// out.
fn string_arg(args: &[Ty]) -> Ty {
    args.first().cloned().unwrap_or(Ty::String)
}

/// cargo-util-schemas' `manifest::PackageName<T>` from 0.8.2: a derived transparent `Serialize` (the
/// string) and a `Deserialize` written by hand that reads `T` and validates it
/// (`restricted_names::validate_package_name`): not empty, each `::`-separated part an identifier-like
/// name (XID start or `_` first, then XID continue or `-`). 0.8.2 reads `::`-separated names (RFC
/// 3243's namespaced packages); 0.2 does not, so the sample is one.
fn package_name(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined(
        string_arg(args),
        "cargo-package-name",
        &[],
        "\"serde::derive\"",
        Some("\"\""),
    )))
}

/// cargo-util-schemas 0.2's `manifest::PackageName<T>`: as 0.8.2's without `::` parts.
fn package_name_0_2(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined(
        string_arg(args),
        "cargo-package-name-0.2",
        &["cargo-package-name"],
        "\"serde\"",
        Some("\"\""),
    )))
}

/// cargo-util-schemas' `manifest::FeatureName<T>` (the same validation in 0.2 and 0.8.2): not empty,
/// not `dep:...`, no `/`, XID start, `_` or a digit first, then XID continue, `-`, `+` or `.`.
fn feature_name(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined(
        string_arg(args),
        "cargo-feature-name",
        &[],
        "\"default\"",
        Some("\"\""),
    )))
}

/// The table (cargo-util-schemas between 0.2 and 0.8.2 is not catalogued: only 0.2.0 and 0.8.2 were
/// read, and the two differ).
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "cargo_util_schemas",
        versions: ">=0.8.2, <0.9.0",
        items: &["manifest::PackageName"],
        shape: package_name,
    },
    Entry {
        krate: "cargo_util_schemas",
        versions: ">=0.2.0, <0.3.0",
        items: &["manifest::PackageName"],
        shape: package_name_0_2,
    },
    Entry {
        krate: "cargo_util_schemas",
        versions: ">=0.8.2, <0.9.0",
        items: &["manifest::FeatureName"],
        shape: feature_name,
    },
    Entry {
        krate: "cargo_util_schemas",
        versions: ">=0.2.0, <0.3.0",
        items: &["manifest::FeatureName"],
        shape: feature_name,
    },
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
        refined_strings(&["cargo_platform", "Platform"], version)
    }

    /// The sample and the outside value of the catalogued type at `path` at `version`.
    fn refined_strings(path: &[&str], version: Version) -> (String, String) {
        let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
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
            assert_eq!(strings(newer).0, "cfg(r#async)");
        }
    }

    #[test]
    fn the_current_release_reads_what_0_1_writes() {
        for text in [
            "cfg(unix)",
            "cfg(target_os = \"linux\")",
            "x86_64-unknown-linux-gnu",
            "",
        ] {
            let old = cargo_platform_01::Platform::from_str(text).expect("0.1 reads it");
            let new = cargo_platform::Platform::from_str(&old.to_string()).expect("0.3 reads it");
            assert_eq!(new.to_string(), old.to_string());
        }
    }

    #[test]
    fn cargo_util_schemas_0_2_names() {
        let v0_2 = Version::new(0, 2, 0);
        let (sample, outside) = refined_strings(
            &["cargo_util_schemas", "manifest", "PackageName"],
            v0_2.clone(),
        );
        let read: cargo_util_schemas_02::manifest::PackageName =
            serde_json::from_value(serde_json::Value::String(sample.clone()))
                .expect("0.2 reads its sample");
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            serde_json::Value::String(sample)
        );
        assert!(cargo_util_schemas_02::manifest::PackageName::new(outside).is_err());
        let (newer, _) = refined_strings(
            &["cargo_util_schemas", "manifest", "PackageName"],
            Version::new(0, 8, 2),
        );
        assert!(
            cargo_util_schemas_02::manifest::PackageName::new(newer.clone()).is_err(),
            "0.2 must reject {newer}: the ranges' domains differ by it"
        );
        assert!(cargo_util_schemas::manifest::PackageName::new(newer).is_ok());
        let (sample, outside) =
            refined_strings(&["cargo_util_schemas", "manifest", "FeatureName"], v0_2);
        assert!(cargo_util_schemas_02::manifest::FeatureName::new(sample).is_ok());
        assert!(cargo_util_schemas_02::manifest::FeatureName::new(outside).is_err());
    }

    #[test]
    fn what_cargo_util_schemas_0_2_reads_0_8_2_reads() {
        for name in ["serde", "serde_json", "a-b", "_x", "caf\u{e9}"] {
            assert!(
                cargo_util_schemas_02::manifest::PackageName::new(name).is_ok(),
                "{name}"
            );
            assert!(
                cargo_util_schemas::manifest::PackageName::new(name).is_ok(),
                "{name}"
            );
        }
        for name in ["default", "std", "1x", "a+b", "a.b", "serde-1"] {
            assert!(
                cargo_util_schemas_02::manifest::FeatureName::new(name).is_ok(),
                "{name}"
            );
            assert!(
                cargo_util_schemas::manifest::FeatureName::new(name).is_ok(),
                "{name}"
            );
        }
        for name in ["", "dep:x", "a/b", "-a", " "] {
            assert!(
                cargo_util_schemas_02::manifest::FeatureName::new(name).is_err(),
                "{name}"
            );
            assert!(
                cargo_util_schemas::manifest::FeatureName::new(name).is_err(),
                "{name}"
            );
        }
    }
}
