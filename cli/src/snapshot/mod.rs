//! Committed snapshots: each protocol's extracted model at its declared version, kept in the repository
//! (`wire-snapshots/<protocol>/<version>.json`), so that a clone without the release tags (a shallow CI
//! checkout) still has a baseline, and so that a review shows the wire a change leaves behind.
//!
//! - [`SnapshotFile`]: the file's format (pretty JSON, a `format_version`, the protocol's part of the
//!   model: its declaration, its messages and every type they reach, sorted as the model sorts them).
//! - [`write()`]: `wirecheck snapshot --write` / `--check`, the working tree's snapshot of each protocol
//!   against the committed file.
//! - `baseline`: which committed snapshots `wirecheck check` compares against when the release tags
//!   cannot be read, or with `--against-snapshot`.

mod baseline;

use std::path::{Path, PathBuf};

use semver::Version;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::extract::{ExtractOptions, FeatureRequest, FileReader as _};
use crate::model::{ProtocolDecl, Snapshot};
use crate::workspace::{Workspace, WorkspaceError, tag_pattern};

pub use crate::outcome::SnapshotUse;
pub use baseline::{ProtocolSnapshots, SnapshotBaseline};

/// The folder under the workspace root that holds the committed snapshots.
pub const SNAPSHOT_DIR: &str = "wire-snapshots";

/// The version of the file format this wirecheck writes and reads. A file of a higher version was
/// written by a newer wirecheck and is refused with a message saying so.
pub const FORMAT_VERSION: u32 = 1;

/// One protocol's committed snapshot at one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotFile {
    /// The version of this format ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// The protocol's name.
    pub protocol: String,
    /// The protocol's declared version.
    pub version: Version,
    /// The protocol's part of the model ([`Snapshot::protocol_part`]): its declaration, its messages and
    /// the types they reach; no notes.
    pub model: Snapshot,
}

/// Why a snapshot could not be read or written (exit code 2). Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The workspace or its model could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// `wirecheck.toml` is unreadable.
    #[error("{0}. Fix the file")]
    Config(#[from] crate::config::ConfigError),
    /// A file could not be read or written.
    #[error("cannot {action} {path}: {message}")]
    Io {
        /// `read`, `write` or `remove`.
        action: &'static str,
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// A file is not a snapshot this wirecheck reads.
    #[error(
        "{path} is not a wirecheck snapshot: {message}. Write it again with `wirecheck snapshot --write` (or restore it from git)"
    )]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A file of a newer format.
    #[error(
        "{path} has format_version {found}, and this wirecheck reads {FORMAT_VERSION}: update wirecheck (cargo install wirecheck --features checker)"
    )]
    NewerFormat {
        /// The file.
        path: String,
        /// Its `format_version`.
        found: u64,
    },
    /// A protocol's name cannot be a folder name.
    #[error(
        "protocol `{0}` cannot name a folder of {SNAPSHOT_DIR}/ (it holds `/`, `\\` or starts with `.`): rename it"
    )]
    UnsafeName(String),
}

impl SnapshotFile {
    /// The snapshot of the protocol `decl` of `model`.
    pub fn of(model: &Snapshot, decl: &ProtocolDecl) -> SnapshotFile {
        SnapshotFile {
            format_version: FORMAT_VERSION,
            protocol: decl.name.clone(),
            version: decl.version.clone(),
            model: model.protocol_part(&decl.name, |_| true),
        }
    }

    /// The file's text: pretty JSON (keys in the model's order, types sorted by path), ending in a newline.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a snapshot file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<SnapshotFile, SnapshotError> {
        let invalid = |message: String| SnapshotError::Invalid {
            path: path.to_owned(),
            message,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let found = value
            .get("format_version")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid("no `format_version`".to_owned()))?;
        if found > u64::from(FORMAT_VERSION) {
            return Err(SnapshotError::NewerFormat {
                path: path.to_owned(),
                found,
            });
        }
        let file: SnapshotFile =
            serde_json::from_value(value).map_err(|e| invalid(e.to_string()))?;
        if file.model.protocol(&file.protocol).map(|p| &p.version) != Some(&file.version) {
            return Err(invalid(format!(
                "its model does not declare `{}` {}",
                file.protocol, file.version
            )));
        }
        Ok(file)
    }

    /// Whether `other` puts the same on the wire: equal but for where things are written.
    pub fn same_wire(&self, other: &SnapshotFile) -> bool {
        let wire = |file: &SnapshotFile| {
            let mut value = serde_json::to_value(file).unwrap_or_default();
            drop_locations(&mut value);
            value
        };
        wire(self) == wire(other)
    }
}

/// Removes every `location` object from a model's JSON form.
fn drop_locations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, value| !(key == "location" && value.is_object()));
            map.values_mut().for_each(drop_locations);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_locations),
        _ => {}
    }
}

/// Where the snapshot of `protocol` at `version` is kept, relative to the workspace root.
pub fn relative_path(protocol: &str, version: &Version) -> Result<String, SnapshotError> {
    if protocol.contains(['/', '\\']) || protocol.starts_with('.') || protocol.is_empty() {
        return Err(SnapshotError::UnsafeName(protocol.to_owned()));
    }
    Ok(format!("{SNAPSHOT_DIR}/{protocol}/{version}.json"))
}

/// Reads and parses the snapshot file at `path`.
pub fn read_file(path: &Path) -> Result<SnapshotFile, SnapshotError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SnapshotError::Io {
        action: "read",
        path: shown.clone(),
        message: e.to_string(),
    })?;
    SnapshotFile::parse(&text, &shown)
}

/// What `wirecheck snapshot --write` (or `--check`) reads.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The workspace's `Cargo.toml` (default: found from the current directory).
    pub manifest_path: Option<PathBuf>,
    /// Only the protocols of these packages (default: every protocol).
    pub packages: Vec<String>,
    /// The release tag glob (default `v*`): a file the last release committed is never rewritten.
    pub tag_pattern: String,
    /// Write nothing: say which files are missing or stale.
    pub check: bool,
    /// The build read (cargo features).
    pub features: FeatureRequest,
}

/// What became of one protocol's snapshot file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// The file holds the working tree's snapshot, byte for byte.
    Unchanged,
    /// Written (it was missing, or put other things on the wire and was not released).
    Written,
    /// Written again: the same wire, where things are written moved (not released).
    Refreshed,
    /// Committed by the last release: never rewritten, though the working tree writes other bytes.
    Kept,
    /// Removed: the snapshot of a version above the last release's that the working tree no longer
    /// declares (a version under work, bumped again before it was released), which a clone without tags
    /// would take for a release.
    Removed,
    /// `--check`: no file.
    Missing,
    /// `--check`: the file puts other things on the wire than the working tree.
    Stale,
    /// `--check`: the same wire, but lines and columns moved (not a failure).
    Moved,
}

impl FileStatus {
    /// `unchanged`, `written`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Unchanged => "unchanged",
            FileStatus::Written => "written",
            FileStatus::Refreshed => "refreshed",
            FileStatus::Kept => "kept",
            FileStatus::Removed => "removed",
            FileStatus::Missing => "missing",
            FileStatus::Stale => "stale",
            FileStatus::Moved => "moved",
        }
    }
}

/// One protocol's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file, relative to the workspace root.
    pub path: String,
    /// What became of it.
    pub status: FileStatus,
    /// For [`FileStatus::Kept`]: the release tag that committed it, and whether the working tree still
    /// puts the same on the wire (else the protocol's version must be bumped).
    pub released: Option<(String, bool)>,
}

/// What `wirecheck snapshot --write` did (or `--check` found), one entry per protocol.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Each protocol's file, by path.
    pub files: Vec<FileReport>,
}

impl WriteReport {
    /// No file is missing or stale.
    pub fn up_to_date(&self) -> bool {
        !self
            .files
            .iter()
            .any(|f| matches!(f.status, FileStatus::Missing | FileStatus::Stale))
    }
}

/// Writes (or, with `check`, compares) the snapshot of every protocol the working tree declares, at its
/// declared version. A file the last release tag committed is never rewritten.
pub fn write(options: &WriteOptions) -> Result<WriteReport, SnapshotError> {
    let mut workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let config = crate::config::load(&workspace.root)?;
    workspace.check_features(&options.features)?;
    workspace.options = ExtractOptions {
        features: options.features.clone(),
        shapes: config.shapes,
    };
    let mut current = workspace.current_snapshot()?;
    workspace.keep_selected(&mut current)?;
    let released = ReleasedFiles::last_release(&workspace, &options.tag_pattern);
    let mut report = WriteReport::default();
    for decl in &current.protocols {
        let expected = SnapshotFile::of(&current, decl);
        let path = relative_path(&decl.name, &decl.version)?;
        let status = file_status(&workspace.root, &path, &expected, options.check, &released)?;
        report.files.push(status);
        if !options.check {
            report
                .files
                .extend(remove_unreleased(&workspace.root, decl, &released)?);
        }
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// What to do with the file at `path` (relative to `root`) that should hold `expected`, and does it.
fn file_status(
    root: &Path,
    path: &str,
    expected: &SnapshotFile,
    check: bool,
    released: &ReleasedFiles,
) -> Result<FileReport, SnapshotError> {
    let text = expected.to_text();
    let full = root.join(path);
    let existing = std::fs::read_to_string(&full).ok();
    let same_wire = existing
        .as_deref()
        .and_then(|old| SnapshotFile::parse(old, path).ok())
        .is_some_and(|old| old.same_wire(expected));
    let report = |status, released| FileReport {
        path: path.to_owned(),
        status,
        released,
    };
    let status = match (&existing, same_wire, check) {
        (Some(old), _, _) if *old == text => FileStatus::Unchanged,
        (None, _, true) => FileStatus::Missing,
        (Some(_), true, true) => FileStatus::Moved,
        (Some(_), false, true) => FileStatus::Stale,
        (Some(_), same_wire, false) => {
            if let Some(tag) = released.committed(path) {
                return Ok(report(FileStatus::Kept, Some((tag.to_owned(), same_wire))));
            }
            write_text(&full, &text)?;
            if same_wire {
                FileStatus::Refreshed
            } else {
                FileStatus::Written
            }
        }
        (None, _, false) => {
            write_text(&full, &text)?;
            FileStatus::Written
        }
    };
    Ok(report(status, None))
}

/// Removes the snapshots of the protocol `decl` whose version is above every version the last release
/// committed and is not the working tree's: versions under work that were never released. Nothing
/// without a release to tell them by.
fn remove_unreleased(
    root: &Path,
    decl: &ProtocolDecl,
    released: &ReleasedFiles,
) -> Result<Vec<FileReport>, SnapshotError> {
    if released.release.is_none() {
        return Ok(Vec::new());
    }
    let folder = format!("{SNAPSHOT_DIR}/{}", decl.name);
    let Ok(entries) = std::fs::read_dir(root.join(&folder)) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<(Version, String)> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let version = Version::parse(name.strip_suffix(".json")?).ok()?;
            Some((version, format!("{folder}/{name}")))
        })
        .collect();
    files.sort();
    let last_released = files
        .iter()
        .rev()
        .find(|(_, path)| released.committed(path).is_some())
        .map(|(version, _)| version.clone());
    let mut removed = Vec::new();
    for (version, path) in files {
        let unreleased = last_released.as_ref().is_none_or(|last| version > *last);
        if unreleased && version != decl.version && released.committed(&path).is_none() {
            let full = root.join(&path);
            std::fs::remove_file(&full).map_err(|e| SnapshotError::Io {
                action: "remove",
                path: full.display().to_string(),
                message: e.to_string(),
            })?;
            removed.push(FileReport {
                path,
                status: FileStatus::Removed,
                released: None,
            });
        }
    }
    Ok(removed)
}

/// Writes `text` to `path`, creating its folder.
fn write_text(path: &Path, text: &str) -> Result<(), SnapshotError> {
    let io = |e: std::io::Error| SnapshotError::Io {
        action: "write",
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)
}

/// The last release tag, whose snapshot files are never rewritten: a released version's snapshot is
/// what peers of that release speak.
struct ReleasedFiles {
    /// The repository and the last release in it.
    release: Option<(crate::source::Repo, crate::source::Release)>,
}

impl ReleasedFiles {
    /// The last release tag matching `pattern` before HEAD; none without a repository or a release (a
    /// shallow clone without tags cannot tell).
    fn last_release(workspace: &Workspace, pattern: &str) -> ReleasedFiles {
        let release = workspace.repository().ok().and_then(|repo| {
            let last = repo.releases(tag_pattern(pattern), None).ok()?.pop()?;
            Some((repo, last))
        });
        ReleasedFiles { release }
    }

    /// The tag of the last release when it committed `path` (relative to the workspace root).
    fn committed(&self, path: &str) -> Option<&str> {
        let (repo, release) = self.release.as_ref()?;
        let tree = repo.at(&release.commit).ok()?;
        tree.read(path).ok()??;
        Some(release.tag.as_str())
    }
}

#[cfg(test)]
mod tests;
