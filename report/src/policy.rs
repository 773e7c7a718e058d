//! The policy applied to findings: which of them count (`wirecheck.toml` allows), the semver bump they
//! require by Cargo's convention, and whether a protocol's declared version meets it.

use semver::Version;

use crate::config::{AllowNote, Config};
use crate::findings::{Finding, Level};
use crate::rules::RuleId;

mod window;

pub use window::window_findings;
pub use window::{LeftOut, Window, WindowBreak, WindowRelease};

/// The highest level among the findings that count (not allowed, not known history) and that a version
/// bump pays for (a window that reaches a release it breaks is paid for by no version:
/// [`window_findings`]).
pub fn required_level(findings: &[Finding]) -> Level {
    findings
        .iter()
        .filter(|f| f.counts() && bump_pays(f))
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::None)
}

/// Whether a version bump pays for `finding`: every finding but a window that reaches a release it
/// breaks, which only `min_compatible` can fix, and a `since` above the declared version, which no
/// level of change describes (the version must reach it, or the `since` be corrected).
pub fn bump_pays(finding: &Finding) -> bool {
    !matches!(
        finding.rule,
        RuleId::MinCompatibleSpansBreak | RuleId::SinceAboveVersion
    )
}

/// Whether `finding` fails the check whatever the required bump: a counted
/// `min_compatible_spans_break` or `since_above_version`.
pub fn fails_whatever_the_version(finding: &Finding) -> bool {
    finding.counts() && !bump_pays(finding)
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

/// Whether the working tree declares a protocol at a version below the baseline's: a version never goes
/// back, so such a check fails even without a finding, and the report says why.
pub fn went_backwards(old: Option<&Version>, new: Option<&Version>) -> bool {
    matches!((old, new), (Some(old), Some(new)) if new < old)
}

/// What a protocol's counted findings require of its declared version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The highest level among the counted findings.
    pub bump: Level,
    /// The lowest version the changes allow (`None` when the protocol was removed).
    pub version: Option<Version>,
    /// The declared version meets it (a removed protocol: nothing counted is major).
    pub met: bool,
}

/// The requirement of a protocol declared at `old_version` by the baseline and at `new_version` by the
/// working tree, given its findings. A new protocol needs nothing; a removed one fails on a counted major
/// finding.
pub fn requirement(
    old_version: Option<&Version>,
    new_version: Option<&Version>,
    findings: &[Finding],
) -> Requirement {
    let bump = required_level(findings);
    let window_holds = !findings.iter().any(fails_whatever_the_version);
    match (old_version, new_version) {
        (Some(old), Some(new)) => {
            let version = required_version(old, bump);
            Requirement {
                bump,
                met: *new >= version && window_holds,
                version: Some(version),
            }
        }
        (None, Some(new)) => Requirement {
            bump: Level::None,
            version: Some(new.clone()),
            met: window_holds,
        },
        (_, None) => Requirement {
            bump,
            version: None,
            met: bump != Level::Major || findings.iter().all(|f| !f.counts()),
        },
    }
}

/// The `[[allow]]` entries of `wirecheck.toml` applied to the findings of one report, protocol by
/// protocol, remembering which entries matched something and which have expired.
pub struct Allows<'c> {
    config: &'c Config,
    used: Vec<bool>,
    expired: Vec<Option<AllowNote>>,
}

impl<'c> Allows<'c> {
    /// The allows of `config`, none applied yet.
    pub fn new(config: &'c Config) -> Self {
        Allows {
            config,
            used: vec![false; config.allows.len()],
            expired: vec![None; config.allows.len()],
        }
    }

    /// Marks each of `findings` (of the protocol `protocol`, now declared at `new_version`) that an entry
    /// matches as allowed with the entry's reason, unless the source already allows it. An entry whose
    /// `until` the version has reached allows nothing.
    pub fn apply(
        &mut self,
        protocol: &str,
        new_version: Option<&Version>,
        findings: &mut [Finding],
    ) {
        for finding in findings {
            for (i, entry) in self.config.allows.iter().enumerate() {
                if !entry.matches(finding) {
                    continue;
                }
                self.used[i] = true;
                if entry.expired_at(new_version) {
                    if let (None, Some(version)) = (&self.expired[i], new_version) {
                        self.expired[i] = Some(AllowNote::expired(entry, protocol, version));
                    }
                    continue;
                }
                if !finding.allowed {
                    finding.allowed = true;
                    finding.allow_reason = Some(entry.reason_label());
                }
            }
        }
    }

    /// The notes on the entries, in file order: each expired one, and each that matched nothing.
    pub fn notes(mut self) -> Vec<AllowNote> {
        let mut notes = Vec::new();
        for (i, entry) in self.config.allows.iter().enumerate() {
            if let Some(note) = self.expired[i].take() {
                notes.push(note);
            } else if !self.used[i] {
                notes.push(AllowNote::unused(entry));
            }
        }
        notes
    }
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
    fn a_version_below_the_baseline_fails_without_findings() {
        let r = requirement(Some(&v("0.2.1")), Some(&v("0.2.0")), &[]);
        assert_eq!(r.bump, Level::None);
        assert_eq!(r.version, Some(v("0.2.1")));
        assert!(!r.met);
        assert!(went_backwards(Some(&v("0.2.1")), Some(&v("0.2.0"))));
        assert!(!went_backwards(Some(&v("0.2.1")), Some(&v("0.2.1"))));
        assert!(!went_backwards(None, Some(&v("0.2.0"))));
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
