//! The first step of a check: what it compares against. The release tags (the baseline and the older
//! releases that must still interoperate, [`CheckedReleases::select`]), or snapshots standing for them:
//! the committed ones when the tags cannot be read here (a shallow clone without tags) or when asked
//! (`--against-snapshot`), and the published packages' (`--against-registry`). Every option of the
//! baseline is read here and nowhere else in the check.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{CheckError, CheckOptions};
use crate::model::Snapshot;
use crate::outcome::{Baseline, BaselineChoice, SnapshotUse};
use crate::snapshot::{ProtocolSnapshots, SNAPSHOT_DIR, SnapshotBaseline};
use crate::source::SourceError;
use crate::workspace::{BaselineRequest, CheckedReleases, History, Progress, WorkspaceError};

/// What a check compares against: the releases it names in the report (for snapshots, the baseline
/// alone, no older release), and what stands for them.
pub(super) struct Found {
    /// The baseline and the older releases, as the report names them.
    pub releases: CheckedReleases,
    /// Where their models come from.
    pub against: Against,
}

/// Where the models of the releases a check compares with come from.
pub(super) enum Against {
    /// The release commits, read from git objects.
    Releases,
    /// Snapshots, each protocol compared with its own.
    Snapshots(SnapshotSide),
}

/// The snapshots a check compares with, by protocol, and for a registry baseline the protocols the
/// published packages declare in either release (the others are not theirs to compare).
pub(super) struct SnapshotSide {
    pub snapshots: SnapshotBaseline,
    pub published: Option<BTreeSet<String>>,
}

/// Why the check reads snapshots.
enum Chosen {
    /// The release tags cannot be read here: the committed snapshots stand for them.
    Committed,
    /// `--against-snapshot FILE...`.
    Named(Vec<PathBuf>),
    /// `--against-registry [VERSION]`, with the packages named with `-p`: the published packages' models.
    Registry(Option<semver::Version>, Vec<String>),
}

/// The baseline `options` ask for, from `history`'s repository; `progress` hears of the tags that hold
/// no version.
pub(super) fn find(
    options: &CheckOptions,
    history: &History<'_>,
    progress: &mut dyn Progress,
) -> Result<Found, CheckError> {
    let chosen = if !options.against_snapshot.is_empty() {
        Chosen::Named(options.against_snapshot.clone())
    } else if let Some(version) = &options.against_registry {
        Chosen::Registry(version.clone(), options.packages.clone())
    } else {
        let request = BaselineRequest {
            against: options.against.as_deref(),
            tag_pattern: &options.tag_pattern,
            baseline_only: options.baseline_only,
            first_release: options.first_release,
        };
        match CheckedReleases::select(history.repo(), &request, progress) {
            Ok(releases) => {
                let against = Against::Releases;
                return Ok(Found { releases, against });
            }
            // A clone without the tags: the committed snapshots stand for the releases.
            Err(error)
                if options.against.is_none() && stands_in(&error, &history.workspace().root) =>
            {
                Chosen::Committed
            }
            Err(error) => return Err(error.into()),
        }
    };
    snapshots(chosen, history)
}

/// Whether `error`, from choosing the release tags, is a clone that lacks them (shallow) and may check
/// against the snapshots committed under `root` instead.
fn stands_in(error: &WorkspaceError, root: &Path) -> bool {
    let shallow = matches!(
        error,
        WorkspaceError::Source(SourceError::NoReleaseTag { shallow: true, .. })
            | WorkspaceError::ShallowOlderReleases { .. }
    );
    shallow && root.join(SNAPSHOT_DIR).is_dir()
}

/// The snapshots `chosen` names, as the baseline of a check of `history`'s working tree.
fn snapshots(chosen: Chosen, history: &History<'_>) -> Result<Found, CheckError> {
    let workspace = history.workspace();
    let current = history.current()?;
    let (snapshots, rev, choice, published) = match chosen {
        Chosen::Committed => {
            let snapshots = SnapshotBaseline::committed(&workspace.root, &current)?;
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
            let (snapshots, rev, theirs) = registry(history, &current, version.as_ref(), &named)?;
            (snapshots, rev, BaselineChoice::Registry, Some(theirs))
        }
    };
    let mut baseline = Baseline::new(rev, "", choice);
    baseline.snapshots = snapshots.used();
    let releases = CheckedReleases {
        baseline,
        older: Vec::new(),
    };
    let side = SnapshotSide {
        snapshots,
        published,
    };
    let against = Against::Snapshots(side);
    Ok(Found { releases, against })
}

/// The models of the published packages (`version`, else each one's highest below its own), as
/// snapshots; the report's `rev` naming them; and the protocols theirs in either release.
fn registry(
    history: &History<'_>,
    current: &Snapshot,
    version: Option<&semver::Version>,
    named: &[String],
) -> Result<(SnapshotBaseline, String, BTreeSet<String>), CheckError> {
    let workspace = history.workspace();
    let mut snapshots = SnapshotBaseline::default();
    let mut names = Vec::new();
    let mut theirs = BTreeSet::new();
    for (package, own) in crate::registry::packages(workspace, named, current)? {
        let target = &workspace.target_dir;
        let published = crate::registry::fetch((&package, &own), version, target, &workspace.root)?;
        let model = crate::registry::model(&published, &workspace.options, &workspace.root)?;
        let label = format!("{} {}", published.package, published.version);
        for decl in &model.protocols {
            let used = SnapshotUse {
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
