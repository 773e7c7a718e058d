//! Which committed snapshots a check compares against, per protocol.
//!
//! Without tags the releases are unknown; the committed files stand for them, chosen as the check
//! chooses among tags:
//!
//! - the file of the working tree's version puts other things on the wire than the working tree: the
//!   version is the last release (the working tree changed it since), and is the baseline;
//! - else (the file matches, or there is none): the highest version below it is the baseline, as when
//!   HEAD is itself a release, or a version under work whose snapshot is up to date.
//!
//! Every version below the baseline is an older release (its records, its window).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semver::Version;

use super::{SNAPSHOT_DIR, SnapshotError, SnapshotFile, read_file};
use crate::model::Snapshot;
use crate::outcome::SnapshotUse;

/// The snapshots of one protocol a check compares with the working tree.
#[derive(Debug, Clone, Default)]
pub struct ProtocolSnapshots {
    /// The baseline (`None`: no snapshot precedes the working tree's version, the protocol is new).
    pub base: Option<(SnapshotUse, Snapshot)>,
    /// The versions before the baseline, oldest first.
    pub older: Vec<(SnapshotUse, Snapshot)>,
}

/// The committed snapshots a check compares with, by protocol.
#[derive(Debug, Clone, Default)]
pub struct SnapshotBaseline {
    /// Each protocol that has a snapshot, by name.
    pub protocols: BTreeMap<String, ProtocolSnapshots>,
}

impl SnapshotBaseline {
    /// The baselines chosen, by protocol.
    pub fn used(&self) -> Vec<SnapshotUse> {
        let bases = self.protocols.values().filter_map(|p| p.base.as_ref());
        bases.map(|(used, _)| used.clone()).collect()
    }

    /// The committed snapshots under `root`'s [`SNAPSHOT_DIR`], chosen against the working tree's model
    /// `current` (see the module's docs); `None` when the folder does not exist.
    pub fn committed(root: &Path, current: &Snapshot) -> Result<Option<Self>, SnapshotError> {
        let dir = root.join(SNAPSHOT_DIR);
        if !dir.is_dir() {
            return Ok(None);
        }
        let mut protocols = BTreeMap::new();
        for (name, files) in committed_files(&dir)? {
            let current_file = current
                .protocol(&name)
                .map(|decl| SnapshotFile::of(current, decl));
            protocols.insert(name, choose(files, current_file.as_ref()));
        }
        Ok(Some(SnapshotBaseline { protocols }))
    }

    /// The snapshot files named with `--against-snapshot`: of each protocol, the highest version is the
    /// baseline and the others older releases.
    pub fn named(files: &[PathBuf]) -> Result<Self, SnapshotError> {
        let mut by_protocol: BTreeMap<String, Vec<(SnapshotUse, Snapshot)>> = BTreeMap::new();
        for path in files {
            let file = read_file(path)?;
            let used = SnapshotUse {
                protocol: file.protocol.clone(),
                version: file.version.clone(),
                file: path.display().to_string(),
                registry: None,
            };
            by_protocol
                .entry(file.protocol)
                .or_default()
                .push((used, file.model));
        }
        let protocols = by_protocol
            .into_iter()
            .map(|(name, mut files)| {
                files.sort_by(|a, b| a.0.version.cmp(&b.0.version));
                let base = files.pop();
                (name, ProtocolSnapshots { base, older: files })
            })
            .collect();
        Ok(SnapshotBaseline { protocols })
    }
}

/// Every snapshot under `dir` (`<protocol>/<version>.json`), by protocol, oldest first. A file whose
/// name is not a version is not a snapshot and is left alone; one that is must read.
fn committed_files(
    dir: &Path,
) -> Result<BTreeMap<String, Vec<(SnapshotUse, SnapshotFile)>>, SnapshotError> {
    let mut out: BTreeMap<String, Vec<(SnapshotUse, SnapshotFile)>> = BTreeMap::new();
    for folder in entries(dir)? {
        let Some(protocol) = folder
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned)
        else {
            continue;
        };
        if !folder.is_dir() {
            continue;
        }
        for path in entries(&folder)? {
            let version = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|v| Version::parse(v).ok());
            let Some(version) = version else { continue };
            let file = read_file(&path)?;
            let relative = format!("{SNAPSHOT_DIR}/{protocol}/{version}.json");
            if file.protocol != protocol || file.version != version {
                return Err(SnapshotError::Invalid {
                    path: relative,
                    message: format!(
                        "it holds `{}` {}, not what its path says",
                        file.protocol, file.version
                    ),
                });
            }
            let used = SnapshotUse {
                protocol: protocol.clone(),
                version,
                file: relative,
                registry: None,
            };
            out.entry(protocol.clone()).or_default().push((used, file));
        }
    }
    for files in out.values_mut() {
        files.sort_by(|a, b| a.0.version.cmp(&b.0.version));
    }
    Ok(out)
}

/// The paths in `dir`, sorted.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, SnapshotError> {
    let io = |e: std::io::Error| SnapshotError::Io {
        action: "read",
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    let mut paths = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?;
    paths.sort();
    Ok(paths)
}

/// The baseline and older snapshots among `files` (one protocol's, oldest first), against the working
/// tree's snapshot of the protocol `current` (`None`: the working tree no longer declares it; its last
/// snapshot is the baseline).
fn choose(
    mut files: Vec<(SnapshotUse, SnapshotFile)>,
    current: Option<&SnapshotFile>,
) -> ProtocolSnapshots {
    if let Some(current) = current {
        // Versions above the working tree's are not releases it comes after.
        files.retain(|(used, _)| used.version <= current.version);
        let at_current = files
            .last()
            .filter(|(used, _)| used.version == current.version);
        if at_current.is_some_and(|(_, file)| file.same_wire(current)) {
            files.pop();
        }
    }
    let base = files.pop();
    let model = |(used, file): (SnapshotUse, SnapshotFile)| (used, file.model);
    ProtocolSnapshots {
        base: base.map(model),
        older: files.into_iter().map(model).collect(),
    }
}
