//! What a check compared against: the [`Baseline`], how it was chosen and which snapshots stood for
//! the releases. Plain data, read by the workspace (which chooses it), the driver and every report.

use semver::Version;
use serde::Serialize;

/// The baseline a check compares against, how it was chosen and what was compared besides it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Baseline {
    /// The tag or revision (empty for a first release: `null` in JSON).
    #[serde(serialize_with = "empty_as_null")]
    pub rev: String,
    /// Its commit (empty for a first release: `null` in JSON).
    #[serde(serialize_with = "empty_as_null")]
    pub commit: String,
    /// How the check chose it.
    pub chosen: BaselineChoice,
    /// The release tag HEAD is at, when it is one with nothing changed on top of it: the check then
    /// compares it with the release before it ([`BaselineChoice::PreviousRelease`]), or with itself when
    /// it is the first release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_release: Option<String>,
    /// Only the baseline was compared, not the older releases (`--baseline-only`): their records and
    /// `min_compatible` went unchecked.
    pub baseline_only: bool,
    /// The committed snapshots compared against, one per protocol ([`BaselineChoice::Snapshot`] and
    /// [`BaselineChoice::AgainstSnapshot`]); absent from JSON otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<SnapshotUse>,
}

/// One committed snapshot a check compared against (`baseline.snapshots[]` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotUse {
    /// The protocol.
    pub protocol: String,
    /// Its version in the snapshot.
    pub version: Version,
    /// The file, relative to the workspace root (or as named with `--against-snapshot`); for a
    /// registry baseline, the published package's `Cargo.toml` where cargo unpacked it.
    pub file: String,
    /// For a registry baseline: the published package and version (`flux-protocols 0.87.0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
}

impl SnapshotUse {
    /// How findings name what they are against: `snapshot 0.87.0`, or the published package
    /// `flux-protocols 0.87.0 (registry)`.
    pub fn label(&self) -> String {
        match &self.registry {
            Some(published) => format!("{published} (registry)"),
            None => format!("snapshot {}", self.version),
        }
    }
}

/// How a check chose its baseline (`baseline.chosen` in JSON).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineChoice {
    /// The last release tag matching the pattern that is an ancestor of HEAD.
    #[default]
    LastRelease,
    /// HEAD is itself a release ([`Baseline::head_release`]): the release before it.
    PreviousRelease,
    /// The revision named with `--against`.
    Against,
    /// None: no release tag yet, and `--first-release` reports every protocol as new.
    FirstRelease,
    /// The committed snapshots (`wire-snapshots/`), since no release tag could be read (a shallow clone
    /// without tags).
    Snapshot,
    /// The snapshot files named with `--against-snapshot`.
    AgainstSnapshot,
    /// The published packages, fetched from their registry (`--against-registry`).
    Registry,
}

impl Baseline {
    /// The revision `rev` at `commit`, chosen as `chosen`.
    pub fn new(rev: impl Into<String>, commit: impl Into<String>, chosen: BaselineChoice) -> Self {
        Baseline {
            rev: rev.into(),
            commit: commit.into(),
            chosen,
            head_release: None,
            baseline_only: false,
            snapshots: Vec::new(),
        }
    }

    /// No baseline: a first release (`--first-release`).
    pub fn first_release() -> Self {
        Baseline::new("", "", BaselineChoice::FirstRelease)
    }

    /// The baseline's name as reports show it: its revision, or `no release` for a first release.
    pub fn name(&self) -> &str {
        match self.chosen {
            BaselineChoice::FirstRelease => "no release",
            _ => &self.rev,
        }
    }

    /// What every report states about the baseline, one sentence each: how it was chosen when that is
    /// not the plain last release or `--against`, and what was left out.
    pub fn statements(&self) -> Vec<String> {
        let mut statements = Vec::new();
        match (self.chosen, &self.head_release) {
            (BaselineChoice::PreviousRelease, Some(head)) => statements.push(format!(
                "HEAD is the release {head} itself, so the baseline is the release before it: {} (compare with another revision with --against REV)",
                self.rev
            )),
            (BaselineChoice::LastRelease, Some(head)) => statements.push(format!(
                "HEAD is the release {head} itself and no release precedes it: it is compared with itself, as a first release has nothing to stay compatible with"
            )),
            (BaselineChoice::FirstRelease, _) => statements.push(
                "first release (--first-release): no release precedes HEAD, so nothing is compared and every protocol is reported as new".to_owned(),
            ),
            (
                BaselineChoice::Snapshot
                | BaselineChoice::AgainstSnapshot
                | BaselineChoice::Registry,
                _,
            ) => {
                statements.push(self.snapshot_statement());
            }
            _ => {}
        }
        if self.baseline_only {
            statements.push(format!(
                "baseline only (--baseline-only): compared with {} alone; the older releases, whose records every release must still read and from which min_compatible counts, were not checked",
                self.rev
            ));
        }
        statements
    }
}

impl Baseline {
    /// What a check against committed snapshots says of its baseline: which file of each protocol, and why.
    fn snapshot_statement(&self) -> String {
        let files: Vec<String> = self
            .snapshots
            .iter()
            .map(|s| format!("{} {} ({})", s.protocol, s.version, s.file))
            .collect();
        let files = match files.is_empty() {
            true => "none: every protocol is new".to_owned(),
            false => files.join(", "),
        };
        match self.chosen {
            BaselineChoice::Registry => {
                let mut published: Vec<&str> = (self.snapshots.iter())
                    .filter_map(|s| s.registry.as_deref())
                    .collect();
                published.dedup();
                format!(
                    "baseline: the published {} (--against-registry), fetched by cargo, compared with their sources: {files}",
                    published.join(", ")
                )
            }
            BaselineChoice::AgainstSnapshot => {
                format!("baseline: the snapshots named with --against-snapshot: {files}")
            }
            _ => format!(
                "baseline: the committed wire snapshots, since this shallow clone cannot read the release tags (none fetched, or their history cut): {files}. To compare with the release tags instead, fetch them (git fetch --unshallow --tags, or `fetch-depth: 0` in actions/checkout)"
            ),
        }
    }
}

/// An empty string as `null`.
fn empty_as_null<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    if text.is_empty() {
        serializer.serialize_none()
    } else {
        serializer.serialize_str(text)
    }
}
