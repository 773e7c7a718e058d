//! Version arithmetic: the semver bump a level of change requires, following Cargo's convention.

use semver::Version;

use crate::findings::{Finding, Level};

/// The highest level among the findings that count (not allowed, not known history).
pub fn required_level(findings: &[Finding]) -> Level {
    findings
        .iter()
        .filter(|f| f.counts())
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::None)
}

/// The lowest version that a change of `level` allows after `old`, by Cargo's semver convention:
/// for `x.y.z` (x > 0) a major change needs `x+1.0.0` and a minor one `x.y+1.0`; for `0.y.z` a major
/// change needs `0.y+1.0` and a minor one `0.y.z+1`; for `0.0.z` any change needs `0.0.z+1`.
pub fn required_version(old: &Version, level: Level) -> Version {
    let mut v = Version::new(old.major, old.minor, old.patch);
    match (level, old.major, old.minor) {
        (Level::None, _, _) => return old.clone(),
        (_, 0, 0) => v.patch += 1,
        (Level::Major, 0, _) => {
            v.minor += 1;
            v.patch = 0;
        }
        (Level::Minor, 0, _) => v.patch += 1,
        (Level::Major, _, _) => {
            v.major += 1;
            v.minor = 0;
            v.patch = 0;
        }
        (Level::Minor, _, _) => {
            v.minor += 1;
            v.patch = 0;
        }
    }
    v
}

/// Whether a peer at `version` must interoperate with a release at `other` without a declared
/// `min_compatible`: the same major version, or for `0.y` the same `y`, or for `0.0.z` the same `z`.
pub fn same_compat_line(version: &Version, other: &Version) -> bool {
    match (version.major, version.minor) {
        (0, 0) => other.major == 0 && other.minor == 0 && other.patch == version.patch,
        (0, y) => other.major == 0 && other.minor == y,
        (x, _) => other.major == x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn cargo_semver_convention() {
        assert_eq!(required_version(&v("1.2.3"), Level::Major), v("2.0.0"));
        assert_eq!(required_version(&v("1.2.3"), Level::Minor), v("1.3.0"));
        assert_eq!(required_version(&v("1.2.3"), Level::None), v("1.2.3"));
        assert_eq!(required_version(&v("0.87.0"), Level::Major), v("0.88.0"));
        assert_eq!(required_version(&v("0.87.4"), Level::Minor), v("0.87.5"));
        assert_eq!(required_version(&v("0.0.3"), Level::Minor), v("0.0.4"));
        assert_eq!(required_version(&v("0.0.3"), Level::Major), v("0.0.4"));
    }

    #[test]
    fn compat_lines() {
        assert!(same_compat_line(&v("1.4.0"), &v("1.0.9")));
        assert!(!same_compat_line(&v("2.0.0"), &v("1.9.0")));
        assert!(same_compat_line(&v("0.88.2"), &v("0.88.0")));
        assert!(!same_compat_line(&v("0.88.0"), &v("0.87.9")));
        assert!(!same_compat_line(&v("0.0.2"), &v("0.0.1")));
    }
}
