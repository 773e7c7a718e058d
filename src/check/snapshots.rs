//! The check against models that are not a revision of the repository: committed snapshots
//! ([`crate::snapshot`]) when no tag can be read (a shallow clone without tags) or when asked
//! (`--against-snapshot`), and the published packages ([`crate::registry`], `--against-registry`). Each
//! protocol is compared with its own baseline, the older snapshots standing for the older releases; the
//! policy and the verdict are the check's own.

use std::collections::BTreeSet;
use std::path::Path;

use super::compare::{self, OlderRelease};
use super::{CheckError, allow, judge};
use crate::config::Config;
use crate::model::Snapshot;
use crate::outcome::{Baseline, BaselineChoice, ProtocolChanges, Report};
use crate::snapshot::{ProtocolSnapshots, SNAPSHOT_DIR, SnapshotBaseline};
use crate::source::{Repo, SourceError};
use crate::store::Store;
use crate::workspace::{CheckedReleases, History, Workspace, WorkspaceError};

/// Why the check reads snapshots.
pub(super) enum Chosen {
    /// The release tags cannot be read here: the committed snapshots stand for them.
    Committed,
    /// `--against-snapshot FILE...`.
    Named(Vec<std::path::PathBuf>),
    /// `--against-registry [VERSION]`, with the packages named with `-p`: the published packages' models.
    Registry(Option<semver::Version>, Vec<String>),
}

/// Whether `error`, from choosing the release tags, is a clone that lacks them (shallow) and may check
/// against the snapshots committed under `root` instead.
pub(super) fn stands_in(error: &WorkspaceError, root: &Path) -> bool {
    let shallow = matches!(
        error,
        WorkspaceError::Source(SourceError::NoReleaseTag { shallow: true, .. })
            | WorkspaceError::ShallowOlderReleases { .. }
    );
    shallow && root.join(SNAPSHOT_DIR).is_dir()
}

/// The check of the working tree against snapshots, as the check reports it.
pub(super) fn check(
    workspace: &Workspace,
    config: &Config,
    repo: &Repo,
    (chosen, no_cache): (Chosen, bool),
) -> Result<Report, CheckError> {
    let history = History::new(workspace, repo, no_cache);
    let current = history.current()?;
    let (snapshots, baseline, published) = baseline_of(chosen, workspace, &current)?;
    let mut protocols = compare_each(&history, &snapshots, &current);
    if let Some(selected) = selected(workspace, &snapshots, &current)? {
        protocols.retain(|p| selected.contains(&p.name));
    }
    if let Some(published) = published {
        protocols.retain(|p| published.contains(&p.name));
    }
    let allow_notes = allow(&mut protocols, config);
    let notes = compare::notes(&baseline, &[], &current);
    let mut report = judge(
        &baseline,
        protocols,
        notes,
        allow_notes,
        (std::iter::empty(), Vec::new()),
    );
    let releases = CheckedReleases {
        baseline,
        older: Vec::new(),
    };
    report.sources = super::sources::collect(&report, config, &history, &releases);
    Ok(report)
}

/// The snapshots `chosen` names, the report's baseline, and for a registry baseline the protocols the
/// published packages declare in either release (the others are not theirs to compare).
fn baseline_of(
    chosen: Chosen,
    workspace: &Workspace,
    current: &Snapshot,
) -> Result<(SnapshotBaseline, Baseline, Option<BTreeSet<String>>), CheckError> {
    let (snapshots, rev, choice, published) = match chosen {
        Chosen::Committed => {
            let snapshots = SnapshotBaseline::committed(&workspace.root, current)?;
            let rev = SNAPSHOT_DIR.to_owned();
            (
                snapshots.unwrap_or_default(),
                rev,
                BaselineChoice::Snapshot,
                None,
            )
        }
        Chosen::Named(files) => {
            let rev = (files.iter().map(|f| f.display().to_string()))
                .collect::<Vec<_>>()
                .join(", ");
            let snapshots = SnapshotBaseline::named(&files)?;
            (snapshots, rev, BaselineChoice::AgainstSnapshot, None)
        }
        Chosen::Registry(version, named) => {
            let (snapshots, rev, theirs) = registry(workspace, current, version.as_ref(), &named)?;
            (snapshots, rev, BaselineChoice::Registry, Some(theirs))
        }
    };
    let mut baseline = Baseline::new(rev, "", choice);
    baseline.snapshots = snapshots.used();
    Ok((snapshots, baseline, published))
}

/// The models of the published packages (`version`, else each one's highest below its own), as
/// snapshots; the report's `rev` naming them; and the protocols theirs in either release.
fn registry(
    workspace: &Workspace,
    current: &Snapshot,
    version: Option<&semver::Version>,
    named: &[String],
) -> Result<(SnapshotBaseline, String, BTreeSet<String>), CheckError> {
    let mut snapshots = SnapshotBaseline::default();
    let mut names = Vec::new();
    let mut theirs = BTreeSet::new();
    for (package, own) in crate::registry::packages(workspace, named, current)? {
        let target = &workspace.target_dir;
        let published = crate::registry::fetch((&package, &own), version, target, &workspace.root)?;
        let model = crate::registry::model(&published, &workspace.options, &workspace.root)?;
        let label = format!("{} {}", published.package, published.version);
        for decl in &model.protocols {
            let used = crate::outcome::SnapshotUse {
                protocol: decl.name.clone(),
                version: decl.version.clone(),
                file: published.manifest.display().to_string(),
                registry: Some(label.clone()),
            };
            let part = model.protocol_part(&decl.name, |_| true);
            let of = ProtocolSnapshots {
                base: Some((used, part)),
                older: Vec::new(),
            };
            snapshots.protocols.insert(decl.name.clone(), of);
            theirs.insert(decl.name.clone());
        }
        let prefix = format!("{}::", package.replace('-', "_"));
        let declared = current
            .protocols
            .iter()
            .filter(|p| p.rust_path.starts_with(&prefix));
        theirs.extend(declared.map(|p| p.name.clone()));
        names.push(label);
    }
    Ok((snapshots, format!("registry: {}", names.join(", ")), theirs))
}

/// Each protocol of the snapshots or the working tree, compared with its own snapshots (none: new),
/// with the `fixtures_missing` finding when it keeps wire fixtures.
fn compare_each(
    history: &History<'_>,
    snapshots: &SnapshotBaseline,
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    let names: BTreeSet<&str> = snapshots
        .protocols
        .keys()
        .map(String::as_str)
        .chain(current.protocols.iter().map(|p| p.name.as_str()))
        .collect();
    let none = ProtocolSnapshots::default();
    names
        .into_iter()
        .flat_map(|name| {
            let of = snapshots.protocols.get(name).unwrap_or(&none);
            compare_one(history, name, of, current)
        })
        .collect()
}

/// The protocol `name` of the working tree (`current`) against its snapshots `of`.
fn compare_one(
    history: &History<'_>,
    name: &str,
    of: &ProtocolSnapshots,
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    let label = of.base.as_ref().map(|(used, _)| used.label());
    let baseline = Baseline::new(label.unwrap_or_default(), "", BaselineChoice::Snapshot);
    let empty = Snapshot::default();
    let base = of.base.as_ref().map_or(&empty, |(_, model)| model);
    let older: Vec<(String, Snapshot)> = (of.older.iter())
        .map(|(used, model)| (used.label(), model.clone()))
        .collect();
    let older = OlderRelease::whole(&older);
    let part = current.protocol_part(name, |_| true);
    let mut changes =
        compare::protocols(&baseline, (base, None), &older, &part, &Store::disabled());
    for protocol in &mut changes {
        let Some(new) = part.protocol(name) else {
            continue;
        };
        if crate::fixtures::fixtures_folder(history, new).is_some() {
            let missing = crate::fixtures::missing_fixtures(history, &baseline, base, new);
            protocol.findings.extend(missing);
        }
    }
    changes
}

/// The protocols `-p` selects, from the working tree and the snapshots' declarations.
fn selected(
    workspace: &Workspace,
    snapshots: &SnapshotBaseline,
    current: &Snapshot,
) -> Result<Option<BTreeSet<String>>, WorkspaceError> {
    let bases = snapshots.protocols.values().filter_map(|p| p.base.as_ref());
    let protocols: Vec<_> = current
        .protocols
        .iter()
        .chain(bases.flat_map(|(_, model)| &model.protocols))
        .collect();
    let messages: Vec<_> = current.messages.iter().collect();
    workspace.selected_protocols(&protocols, &messages)
}
