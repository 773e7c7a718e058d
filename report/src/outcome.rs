//! What a check finds, as plain data: the [`Report`] that `wirecheck check` produces and every renderer
//! reads. The driver (`check`) builds it and the renderers (`report`) read it, so that neither depends on
//! the other.

use std::collections::BTreeMap;

use semver::Version;
use serde::Serialize;

use crate::config::AllowNote;
use crate::findings::{Finding, Level, Side};
use crate::policy::{self, Window};
use crate::rules::RuleId;

/// What a check compared against, defined with the model so that the workspace, which chooses it,
/// and the reports read one type.
pub use crate::baseline::{Baseline, BaselineChoice, SnapshotUse};

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
    pub fn judge_again(&mut self) {
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
