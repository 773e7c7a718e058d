//! `wirecheck matrix`: which pairs of versions interoperate, per protocol, over the last release tags and
//! the working tree — the table release managers attach to release notes ("from which releases can this
//! one be rolled in node by node?").
//!
//! [`compute`] is pure over snapshots: for each protocol and each pair of revisions (older, newer) that both
//! declare it, it runs the comparison with [`Scope::Full`], which checks every message in each direction
//! the contract's table needs for its kind and the protocol's upgrade order. `matrix` is the thin driver
//! that reads the snapshots from the working tree and from git.

use semver::Version;
use serde::Serialize;

use crate::compat::{self, Scope};
use crate::findings::{Finding, Level};
use crate::model::Snapshot;
use crate::workspace::{
    History, Progress, Workspace, WorkspaceError, last_releases, read_releases,
};

/// A revision of the matrix: a release tag, or the working tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Revision {
    /// The tag (`v0.87.0`), or `working tree`.
    pub label: String,
    /// The tag's commit; `None` for the working tree.
    pub commit: Option<String>,
}

/// Whether a pair of versions interoperates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every needed direction of every message works (the wire may have changed compatibly).
    Compatible,
    /// Some payload is rejected or misread, but every such finding is allowed with a reason.
    Allowed,
    /// Some payload is rejected or misread: this pair cannot run side by side.
    Breaking,
}

impl Verdict {
    /// `compatible`, `allowed`, `breaking`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Compatible => "compatible",
            Verdict::Allowed => "allowed",
            Verdict::Breaking => "breaking",
        }
    }
}

/// The comparison of one pair of revisions for one protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    /// Index of the older revision in [`Matrix::revisions`].
    pub older: usize,
    /// Index of the newer revision.
    pub newer: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// The major findings (breaking and allowed), in the engine's order.
    pub breaking: Vec<Finding>,
    /// How many minor (compatible but visible) changes there are.
    pub minor: usize,
}

/// One protocol's matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolMatrix {
    /// The protocol's name.
    pub name: String,
    /// Its declared version at each revision (`None`: not declared there).
    pub versions: Vec<Option<Version>>,
    /// Every pair (older, newer) of revisions that both declare the protocol, by older then newer.
    pub pairs: Vec<Pair>,
}

impl ProtocolMatrix {
    /// The pair of revisions `a` and `b`, in either order.
    pub fn pair(&self, a: usize, b: usize) -> Option<&Pair> {
        let (older, newer) = if a <= b { (a, b) } else { (b, a) };
        self.pairs
            .iter()
            .find(|p| p.older == older && p.newer == newer)
    }
}

/// The interoperability matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Matrix {
    /// The revisions, oldest first; the working tree last.
    pub revisions: Vec<Revision>,
    /// One matrix per protocol declared anywhere, by name.
    pub protocols: Vec<ProtocolMatrix>,
}

/// Computes the matrix over snapshots given oldest first. Pure: no git, no files.
pub fn compute(revisions: &[(Revision, Snapshot)]) -> Matrix {
    let mut names: Vec<&str> = revisions
        .iter()
        .flat_map(|(_, s)| s.protocols.iter().map(|p| p.name.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    let protocols = names
        .into_iter()
        .map(|name| {
            let versions: Vec<Option<Version>> = revisions
                .iter()
                .map(|(_, s)| s.protocol(name).map(|p| p.version.clone()))
                .collect();
            let mut pairs = Vec::new();
            for (i, (older_rev, older)) in revisions.iter().enumerate() {
                for (j, (_, newer)) in revisions.iter().enumerate().skip(i + 1) {
                    if versions[i].is_none() || versions[j].is_none() {
                        continue;
                    }
                    let findings =
                        compat::compare_protocol(older, newer, name, &older_rev.label, Scope::Full);
                    pairs.push(pair(i, j, findings));
                }
            }
            ProtocolMatrix {
                name: name.to_owned(),
                versions,
                pairs,
            }
        })
        .collect();
    Matrix {
        revisions: revisions.iter().map(|(r, _)| r.clone()).collect(),
        protocols,
    }
}

fn pair(older: usize, newer: usize, findings: Vec<Finding>) -> Pair {
    let minor = findings.iter().filter(|f| f.level == Level::Minor).count();
    let breaking: Vec<Finding> = findings
        .into_iter()
        .filter(|f| f.level == Level::Major)
        .collect();
    let verdict = if breaking.iter().any(|f| !f.allowed) {
        Verdict::Breaking
    } else if breaking.is_empty() {
        Verdict::Compatible
    } else {
        Verdict::Allowed
    };
    Pair {
        older,
        newer,
        verdict,
        breaking,
        minor,
    }
}

/// What `wirecheck matrix` reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatrixOptions {
    /// The workspace's `Cargo.toml` (default: found from the current directory).
    pub(crate) manifest_path: Option<std::path::PathBuf>,
    /// How many of the last release tags to include (the working tree comes on top).
    pub(crate) releases: usize,
    /// The release tag glob (default `v*`).
    pub(crate) tag_pattern: String,
    /// Only these packages (default: every workspace member).
    pub(crate) packages: Vec<String>,
    /// Extract every release again instead of reading what an earlier run kept in the
    /// [store](crate::store).
    pub(crate) no_cache: bool,
}

/// Reads the last `releases` release tags (ancestors of HEAD, pre-releases skipped) from git and the
/// working tree, and computes their matrix. A release whose source cannot be read is left out, and
/// `progress` told why.
pub(crate) fn matrix(
    options: &MatrixOptions,
    progress: &mut dyn Progress,
) -> Result<Matrix, WorkspaceError> {
    let workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let repo = workspace.repository()?;
    let releases = last_releases(&repo, &options.tag_pattern, options.releases)?;
    // Files unchanged between releases are parsed once; releases read before come from the store.
    let history = History::new(&workspace, &repo, options.no_cache);
    let read = read_releases(&releases, progress, |release| {
        history.release(&release.commit, &release.tag)
    });
    let mut snapshots: Vec<(Revision, Snapshot)> = read
        .into_iter()
        .map(|(release, model)| {
            let revision = Revision {
                label: release.tag.clone(),
                commit: Some(release.commit.clone()),
            };
            (revision, model)
        })
        .collect();
    let working_tree = Revision {
        label: "working tree".to_owned(),
        commit: None,
    };
    snapshots.push((working_tree, history.current()?));
    Ok(compute(&snapshots))
}
