//! The workspace as the checker reads it: its crates (from `cargo metadata`), its git repository, the
//! releases to read there, and the protocol model of the working tree and of each release, through one
//! source cache and the [store](crate::store). `check`, `matrix` and `fixtures` read their snapshots here.
//!
//! - `Workspace`: the crates and where they are; the model of the working tree or of one revision.
//! - `History`: the working tree and the releases one run reads, sharing the parse of unchanged files
//!   and keeping release models in the store.
//! - `CheckedReleases` and `last_releases`: which release tags a check or a matrix reads.
//! - [`Progress`]: what reading many releases tells its caller; the library never prints.

mod history;
mod progress;
mod releases;

use std::path::{Path, PathBuf};

use crate::extract::{self, CrateRoot, ExtractError, SourceCache};
use crate::model::Snapshot;
use crate::source::{Repo, SourceError, WorkTree};

pub(crate) use history::{History, read_releases};
pub use progress::{NoProgress, Progress};
pub(crate) use releases::{CheckedReleases, last_releases, tag_pattern};

/// Why the workspace, or the model of one of its revisions, could not be read. Every variant says what to
/// do next.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// `cargo metadata` failed.
    #[error(
        "cannot read the workspace with cargo metadata: {0}. Pass --manifest-path to the workspace's Cargo.toml"
    )]
    Metadata(String),
    /// No package matches `-p`.
    #[error("no workspace package named `{0}` (see `cargo metadata --no-deps` for the names)")]
    NoSuchPackage(String),
    /// Git or baseline trouble.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The working tree's source cannot be read.
    #[error("cannot read the working tree: {0}. Fix the source (cargo check shows the same error)")]
    Current(ExtractError),
    /// A revision's source cannot be read.
    #[error(
        "cannot read the source at {rev}: {error}. The baseline must hold valid Rust; pick another with --against REV"
    )]
    Revision {
        /// The revision, as the user named it.
        rev: String,
        /// What failed (boxed: it is large, and errors should stay cheap to return).
        error: Box<ExtractError>,
    },
}

/// A cargo workspace: its root and the crates whose protocols are read.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    /// The workspace root directory.
    pub(crate) root: PathBuf,
    /// The library and binary crates of the selected packages, by root file relative to the workspace
    /// root, sorted by that file.
    pub(crate) crates: Vec<CrateRoot>,
    /// Cargo's target directory, where the [store](crate::store) lives.
    pub(crate) target_dir: PathBuf,
}

impl Workspace {
    /// Reads the workspace members and their crate roots with `cargo metadata` (the workspace of
    /// `manifest_path`, else the one around the current directory); only the `packages` named, when some
    /// are.
    pub(crate) fn load(
        manifest_path: Option<&Path>,
        packages: &[String],
    ) -> Result<Workspace, WorkspaceError> {
        let mut command = cargo_metadata::MetadataCommand::new();
        command.no_deps();
        if let Some(path) = manifest_path {
            command.manifest_path(path);
        }
        let metadata = command
            .exec()
            .map_err(|e| WorkspaceError::Metadata(e.to_string()))?;
        let root = metadata.workspace_root.clone().into_std_path_buf();
        let members = metadata.workspace_packages();
        if let Some(unknown) = packages
            .iter()
            .find(|wanted| !members.iter().any(|p| p.name.as_str() == *wanted))
        {
            return Err(WorkspaceError::NoSuchPackage(unknown.clone()));
        }
        let selected = members
            .into_iter()
            .filter(|p| packages.is_empty() || packages.iter().any(|w| p.name.as_str() == w));
        let mut crates: Vec<CrateRoot> = selected
            .flat_map(|p| &p.targets)
            .filter(|target| target.is_lib() || target.is_bin())
            .filter_map(|target| {
                let relative = target.src_path.as_std_path().strip_prefix(&root).ok()?;
                Some(CrateRoot {
                    name: target.name.replace('-', "_"),
                    root_file: slash_path(relative),
                })
            })
            .collect();
        crates.sort_by(|a, b| a.root_file.cmp(&b.root_file));
        crates.dedup();
        Ok(Workspace {
            root,
            crates,
            target_dir: metadata.target_directory.clone().into_std_path_buf(),
        })
    }

    /// Opens the git repository that holds the workspace.
    pub(crate) fn repository(&self) -> Result<Repo, WorkspaceError> {
        Ok(Repo::discover(&self.root)?)
    }

    /// Extracts the working tree's model.
    pub(crate) fn current_snapshot(&self) -> Result<Snapshot, WorkspaceError> {
        self.extract_current(&SourceCache::new())
    }

    /// Extracts the model at `commit` (which the user named `rev`), from git objects.
    pub(crate) fn revision_snapshot(
        &self,
        repo: &Repo,
        commit: &str,
        rev: &str,
    ) -> Result<Snapshot, WorkspaceError> {
        let tree = repo.at(commit)?;
        extract::extract(&self.crates, &tree).map_err(|error| revision_error(rev, error))
    }

    /// [`Workspace::current_snapshot`], sharing `cache` with the other revisions a run reads.
    fn extract_current(&self, cache: &SourceCache) -> Result<Snapshot, WorkspaceError> {
        extract::extract_cached(&self.crates, &WorkTree::new(&self.root), cache)
            .map_err(WorkspaceError::Current)
    }
}

/// The error of reading the model of the revision `rev`.
fn revision_error(rev: &str, error: ExtractError) -> WorkspaceError {
    WorkspaceError::Revision {
        rev: rev.to_owned(),
        error: Box::new(error),
    }
}

/// A relative path with `/` separators, whatever the platform's.
fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
