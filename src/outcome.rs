//! What a check finds, as plain data: the [`Report`] that `wirecheck check` produces and every renderer
//! reads. The driver (`check`) builds it and the renderers (`report`) read it, so that neither depends on
//! the other.

use std::collections::BTreeMap;

use semver::Version;
use serde::Serialize;

use crate::config::AllowNote;
use crate::findings::{Finding, Level, Side};
use crate::policy;

/// The baseline a check compares against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baseline {
    /// The tag or revision.
    pub rev: String,
    /// Its commit.
    pub commit: String,
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
}

impl ProtocolReport {
    /// Computes the verdict again from the findings, after some of them were allowed.
    pub(crate) fn judge_again(&mut self) {
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

/// One protocol's findings before its verdict: what the comparison gives and the policy judges.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProtocolChanges {
    /// The protocol's name.
    pub(crate) name: String,
    /// Its version at the baseline (`None` when new since then).
    pub(crate) old_version: Option<Version>,
    /// Its version in the working tree (`None` when removed).
    pub(crate) new_version: Option<Version>,
    /// Every finding, counted or not.
    pub(crate) findings: Vec<Finding>,
}

impl ProtocolChanges {
    /// The verdict on these changes: the bump the counted findings require and whether the declared version
    /// meets it.
    pub(crate) fn judge(self) -> ProtocolReport {
        let requirement = policy::requirement(
            self.old_version.as_ref(),
            self.new_version.as_ref(),
            &self.findings,
        );
        ProtocolReport {
            name: self.name,
            old_version: self.old_version,
            new_version: self.new_version,
            required_bump: requirement.bump,
            required_version: requirement.version,
            ok: requirement.met,
            findings: self.findings,
        }
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
    /// What the extraction could not see through, at either side.
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
