//! What a check finds, as plain data: the [`Report`] that `wirecheck check` produces and every renderer
//! reads. The driver (`check`) builds it and the renderers (`report`) read it, so that neither depends on
//! the other.

use std::collections::BTreeMap;

use semver::Version;
use serde::{Deserialize, Serialize};

use crate::config::AllowNote;
use crate::findings::{Finding, Level, Side};
use crate::policy::{self, Window};
use crate::rules::RuleId;

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

/// One protocol's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolReport {
    /// The protocol's name.
    pub name: String,
    /// Its version at the baseline (`None` when new since then).
    pub old_version: Option<Version>,
    /// Its version in the working tree (`None` when removed).
    pub new_version: Option<Version>,
    /// The highest level among the counted findings.
    pub required_bump: Level,
    /// The lowest version the changes allow.
    pub required_version: Option<Version>,
    /// The declared new version meets the required one.
    pub ok: bool,
    /// Every finding, counted or not.
    pub findings: Vec<Finding>,
    /// The releases the working tree declares it interoperates with, as compared (`None` when the
    /// protocol was removed).
    pub window: Option<Window>,
}

impl ProtocolReport {
    /// Whether the declared version pays for a change of `level`: it is at or above the version such a
    /// change requires (a removed protocol pays for anything but a major change). A check fails on each
    /// counted finding whose level the declared version does not pay for.
    pub fn pays_for(&self, level: Level) -> bool {
        match (&self.old_version, &self.new_version) {
            (Some(old), Some(new)) => *new >= policy::required_version(old, level),
            (_, None) => level != Level::Major,
            (None, Some(_)) => true,
        }
    }

    /// The declared version is below the baseline's (see [`policy::went_backwards`]): the check fails
    /// on that alone.
    pub fn version_went_backwards(&self) -> bool {
        policy::went_backwards(self.old_version.as_ref(), self.new_version.as_ref())
    }

    /// Computes the verdict again from the findings, after some of them were allowed: the window's
    /// findings too, which follow from the breaks that still count.
    pub(crate) fn judge_again(&mut self) {
        self.findings
            .retain(|f| f.rule != RuleId::MinCompatibleSpansBreak);
        if let Some(window) = &self.window {
            let spans = policy::window_findings(&self.name, window, &self.findings);
            self.findings.extend(spans);
        }
        let requirement = policy::requirement(
            self.old_version.as_ref(),
            self.new_version.as_ref(),
            &self.findings,
        );
        self.required_bump = requirement.bump;
        self.required_version = requirement.version;
        self.ok = requirement.met;
    }
}

/// One protocol's findings before its verdict: what the comparison gives and the policy judges. The
/// [store](crate::store) keeps it (as JSON) so that an unchanged protocol is not compared again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProtocolChanges {
    /// The protocol's name.
    pub(crate) name: String,
    /// Its version at the baseline (`None` when new since then).
    pub(crate) old_version: Option<Version>,
    /// Its version in the working tree (`None` when removed).
    pub(crate) new_version: Option<Version>,
    /// Every finding, counted or not.
    pub(crate) findings: Vec<Finding>,
    /// The working tree's window, as compared (`None` when the protocol was removed).
    pub(crate) window: Option<Window>,
}

impl crate::store::Comparison for ProtocolChanges {
    fn protocol(&self) -> &str {
        &self.name
    }
}

impl ProtocolChanges {
    /// The verdict on these changes: the findings of a window that reaches a release it breaks
    /// ([`policy::window_findings`]), the bump the counted findings require and whether the declared
    /// version meets it (and the window holds).
    pub(crate) fn judge(self) -> ProtocolReport {
        let mut report = ProtocolReport {
            name: self.name,
            old_version: self.old_version,
            new_version: self.new_version,
            required_bump: Level::None,
            required_version: None,
            ok: false,
            findings: crate::findings::by_cause(self.findings),
            window: self.window,
        };
        report.judge_again();
        report
    }
}

/// The result of `wirecheck check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// What was compared against.
    pub baseline: Baseline,
    /// Every protocol is ok.
    pub ok: bool,
    /// Per protocol, sorted by name.
    pub protocols: Vec<ProtocolReport>,
    /// The release tags the check did not compare in full, and why ([`SkippedRelease`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_releases: Vec<SkippedRelease>,
    /// How the baseline was chosen and what was left out, when that needs saying
    /// ([`Baseline::statements`], [`skipped_statements`]); then what the extraction could not see
    /// through, at either side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `wirecheck.toml` entries that matched nothing or have expired.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow_notes: Vec<AllowNote>,
    /// The text of every file a finding or note points into, by [`source_label`], so renderers can show
    /// snippets without reading files or git. Not part of the JSON output.
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

/// The name under which a finding's file is kept in [`Report::sources`] and shown to users: the path for
/// the working tree (`src/sched.rs`), `REV:path` for a file of an older release (`v0.87.0:src/sched.rs`).
pub fn source_label(finding: &Finding) -> String {
    match finding.side {
        Side::New => finding.location.file.clone(),
        Side::Old => format!("{}:{}", finding.against, finding.location.file),
    }
}

/// A release tag a check did not compare in full (`skipped_releases` in JSON, a note in every format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedRelease {
    /// The tag.
    pub tag: String,
    /// Why.
    pub reason: SkipReason,
    /// What went wrong, for an unreadable release (the extraction's error); empty otherwise.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Why a release tag was not compared in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Its source cannot be read (a syntax error in a needed item, a file that is not UTF-8): nothing
    /// of it was compared, neither its records nor a `min_compatible` reaching it.
    Unreadable,
    /// The tag matches the release tag pattern but holds no semver version (`v1`, `vnext`): not a release.
    NotSemver,
    /// Outside every protocol's window (`min_compatible`, else the first release of the series): only
    /// its records were compared (each later release must still read them).
    OutsideWindow,
}

/// What every report states about the skipped releases, one sentence per unreadable release, one for the
/// tags that are not releases, one for the releases outside every window.
pub fn skipped_statements(skipped: &[SkippedRelease]) -> Vec<String> {
    let tags = |reason: SkipReason| -> Vec<&str> {
        skipped
            .iter()
            .filter(|s| s.reason == reason)
            .map(|s| s.tag.as_str())
            .collect()
    };
    let mut statements: Vec<String> = skipped
        .iter()
        .filter(|s| s.reason == SkipReason::Unreadable)
        .map(|s| {
            format!(
                "release {} skipped: its source cannot be read ({}); its records, and a min_compatible reaching it, went unchecked",
                s.tag, s.detail
            )
        })
        .collect();
    let not_semver = tags(SkipReason::NotSemver);
    if !not_semver.is_empty() {
        statements.push(format!(
            "tags skipped as not releases (they match the tag pattern but hold no semver version): {}",
            not_semver.join(", ")
        ));
    }
    let outside = tags(SkipReason::OutsideWindow);
    if let (Some(first), Some(last)) = (outside.first(), outside.last()) {
        let which = match outside.len() {
            1 => format!("release {first} is"),
            2 => format!("releases {first} and {last} are"),
            n => format!("{n} releases ({first} to {last}) are"),
        };
        statements.push(format!(
            "{which} outside every protocol's window (min_compatible, else the first release of its series): only their records were compared"
        ));
    }
    statements
}
