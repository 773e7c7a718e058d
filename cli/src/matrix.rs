//! `wirecheck matrix`: which pairs of versions interoperate, per protocol, over the last release tags and
//! the working tree — the table release managers attach to release notes ("from which releases can this
//! one be rolled in node by node?").
//!
//! [`compute`] is pure over snapshots: for each protocol and each pair of revisions (older, newer) that both
//! declare it, it runs the comparison with [`Scope::Full`], which checks every message in each direction
//! the contract's table needs for its kind and the protocol's upgrade order, then applies the
//! `wirecheck.toml` allows as `check` does. `read_revisions` is the thin driver that reads `wirecheck.toml`
//! and the snapshots from the working tree and from git, for the matrix and the changelog.

use semver::Version;
use std::sync::Arc;

use crate::compat::{self, Scope};
use crate::config::{self, Config, ConfigError};
use crate::findings::{Finding, Level};
use crate::model::Snapshot;
use crate::policy::Allows;
use crate::workspace::{
    History, Progress, Workspace, WorkspaceError, last_releases, read_releases,
};

/// The matrix's result types, defined with the renderers that read them.
pub use wirecheck_report::matrix::{Matrix, Pair, ProtocolMatrix, Revision, Verdict};

/// Why `wirecheck matrix` could not run (exit code 2). Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// The workspace, its repository or one of the releases could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// `wirecheck.toml` is unreadable or has an invalid `[[allow]]` entry.
    #[error("{0}. Fix the file (every [[allow]] needs rule, message and reason)")]
    Config(#[from] ConfigError),
    /// `--since TAG` names no release tag before HEAD.
    #[error(
        "no release tag `{tag}` matching `{pattern}` is HEAD or an ancestor of it: name one that `git tag --list '{pattern}' --merged HEAD` lists (a shallow clone has none: fetch them with git fetch --unshallow --tags)"
    )]
    NoSuchRelease {
        /// The tag named.
        tag: String,
        /// The release tag glob.
        pattern: String,
    },
}

/// Computes the matrix over snapshots given oldest first, without `wirecheck.toml`. Pure: no git, no
/// files.
pub fn compute(revisions: &[(Revision, Snapshot)]) -> Matrix {
    compute_with_allows(revisions, &Config::default())
}

/// Computes the matrix over snapshots given oldest first, with the `[[allow]]` entries of `config` applied
/// to each pair's findings as `check` applies them (an entry's `until` is compared with the newer
/// revision's version), so that a cell agrees with what `check` says of the same pair. Pure.
pub fn compute_with_allows(revisions: &[(Revision, Snapshot)], config: &Config) -> Matrix {
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
                    let findings = pair_findings((older_rev, older), newer, name, config);
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

/// The findings of the protocol `name` between the revisions `older` and `newer`, every message in each
/// direction its kind needs under the protocol's upgrade order, with the `[[allow]]` entries of `config`
/// applied (an entry's `until` compared with the newer's version): what a cell of the matrix and a
/// release of the changelog say of the pair.
pub fn pair_findings(
    (older_rev, older): (&Revision, &Snapshot),
    newer: &Snapshot,
    name: &str,
    config: &Config,
) -> Vec<Finding> {
    let mut findings = compat::compare_protocol(older, newer, name, &older_rev.label, Scope::Full);
    let version = newer.protocol(name).map(|p| &p.version);
    Allows::new(config).apply(name, version, &mut findings);
    findings
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
pub struct MatrixOptions {
    /// The workspace's `Cargo.toml` (default: found from the current directory).
    pub manifest_path: Option<std::path::PathBuf>,
    /// How many of the last release tags to include (the working tree comes on top).
    pub releases: usize,
    /// The release tag glob (default `v*`).
    pub tag_pattern: String,
    /// Only these packages (default: every workspace member).
    pub packages: Vec<String>,
    /// Extract every release again instead of reading what an earlier run kept in the
    /// [store](crate::store).
    pub no_cache: bool,
    /// Every release from this tag on instead of the last `releases` (the changelog's `--since`).
    pub since: Option<String>,
}

/// The revisions a matrix (or a changelog) reads, oldest first, the working tree
/// last: the last `options.releases` release tags, or with `options.since` every release from that tag
/// on; with the workspace's `wirecheck.toml`. A release whose source cannot be read is left out, and
/// `progress` told why.
pub fn read_revisions(
    options: &MatrixOptions,
    progress: &mut dyn Progress,
) -> Result<(Vec<(Revision, Snapshot)>, Config), MatrixError> {
    let mut workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let config = config::load(&workspace.root)?;
    workspace.options.shapes = config.shapes.clone();
    let repo = workspace.repository()?;
    let releases = match &options.since {
        None => last_releases(&repo, &options.tag_pattern, options.releases, progress)?,
        Some(tag) => releases_since(&repo, &options.tag_pattern, tag, progress)?,
    };
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
            (revision, Arc::unwrap_or_clone(model))
        })
        .collect();
    let working_tree = Revision {
        label: "working tree".to_owned(),
        commit: None,
    };
    snapshots.push((working_tree, Arc::unwrap_or_clone(history.current()?)));
    select(&workspace, &mut snapshots)?;
    Ok((snapshots, config))
}

/// The release tags from `since` on (ancestors of HEAD, oldest first); an error when `since` is not one
/// of them.
fn releases_since(
    repo: &crate::source::Repo,
    pattern: &str,
    since: &str,
    progress: &mut dyn Progress,
) -> Result<Vec<crate::source::Release>, MatrixError> {
    let mut releases = last_releases(repo, pattern, usize::MAX, progress)?;
    let Some(at) = releases.iter().position(|r| r.tag == since) else {
        return Err(MatrixError::NoSuchRelease {
            tag: since.to_owned(),
            pattern: crate::workspace::tag_pattern(pattern).to_owned(),
        });
    };
    releases.drain(..at);
    Ok(releases)
}

/// Keeps in `snapshots` (the working tree's last) the protocols the packages named with `-p` select
/// (see [`Workspace::selected_protocols`]): declared in any of the revisions, or holding a message in
/// the working tree.
fn select(
    workspace: &Workspace,
    snapshots: &mut [(Revision, Snapshot)],
) -> Result<(), WorkspaceError> {
    let Some((_, current)) = snapshots.last() else {
        return Ok(());
    };
    let protocols: Vec<_> = snapshots.iter().flat_map(|(_, s)| &s.protocols).collect();
    let messages: Vec<_> = current.messages.iter().collect();
    if let Some(selected) = workspace.selected_protocols(&protocols, &messages)? {
        for (_, snapshot) in snapshots.iter_mut() {
            crate::workspace::retain_protocols(snapshot, &selected);
        }
    }
    Ok(())
}
