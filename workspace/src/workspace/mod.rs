//! The workspace as the checker reads it: its crates (from `cargo metadata`), its git repository, the
//! releases to read there, and the protocol model of the working tree and of each release, through one
//! source cache and the [store](crate::store). `check`, `matrix` and `fixtures` read their snapshots here.
//!
//! - `Workspace`: the crates and where they are; the model of the working tree or of one revision.
//! - `History`: the working tree and the releases one run reads, sharing the parse of unchanged files
//!   and keeping release models in the store.
//! - `CheckedReleases` and `last_releases`: which release tags a check or a matrix reads.
//! - [`Progress`]: what reading many releases tells its caller; the library never prints.
//! - `dependencies`: which package version each dependency a revision's code names is, from its
//!   `Cargo.lock` and manifests; the sources are found by its `CargoLocator`.

mod dependencies;
mod guess;
mod history;
mod progress;
mod recorded;
mod releases;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::extract::{
    self, CrateRoot, ExtractError, ExtractOptions, FeatureRequest, FileReader, Keep, SourceCache,
};
use crate::model::{MessageDecl, ProtocolDecl, Snapshot};
use crate::source::{CargoLocator, Repo, SourceError, WorkTree};
use recorded::Recorder;

pub use guess::read_ahead as start_read_ahead;
pub use history::{History, read_releases};
pub use progress::{NoProgress, Progress};
pub use releases::{BaselineRequest, CheckedReleases, last_releases, tag_pattern};

/// Why the workspace, or the model of one of its revisions, could not be read. Every variant says what to
/// do next.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// `cargo metadata` failed (its message; the hint follows from what it says).
    #[error("{}", metadata_message(.0))]
    Metadata(String),
    /// No package matches `-p`.
    #[error("no workspace package named `{0}` (see `cargo metadata --no-deps` for the names)")]
    NoSuchPackage(String),
    /// Git or baseline trouble.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The working tree's source cannot be read.
    #[error("{}", current_message(.0))]
    Current(ExtractError),
    /// `--features` names a feature no workspace package has (cargo refuses it too).
    #[error(
        "no workspace package has the feature `{feature}` ({known}): name a feature one of them declares in its Cargo.toml, as cargo would"
    )]
    UnknownFeature {
        /// The feature as named.
        feature: String,
        /// Each package with its features.
        known: String,
    },
    /// `--features package/name` names a feature the package does not have.
    #[error(
        "package `{package}` has no feature `{feature}` (its features: {known}): name one of them, as cargo would"
    )]
    UnknownPackageFeature {
        /// The package.
        package: String,
        /// The feature as named.
        feature: String,
        /// The package's features.
        known: String,
    },
    /// `--features package/name` names a package that is not a workspace member.
    #[error(
        "`--features {spec}`: no workspace package named `{package}` (the packages: {packages}); wirecheck enables features of workspace packages only, and reads a dependency with the features its dependents enable"
    )]
    UnknownFeaturePackage {
        /// The feature as written.
        spec: String,
        /// The package named.
        package: String,
        /// The workspace packages.
        packages: String,
    },
    /// A package named with `-p` declares no protocol (in the working tree or at the baseline) and holds
    /// no message of one (in the working tree).
    #[error(
        "package `{package}` declares no protocol and holds no message of one (no #[derive(Protocol)] in its crates in the working tree or at the baseline, no #[derive(Message)] in the working tree), so there is nothing to check in it: name a package that declares a protocol or holds its messages with -p, or leave -p out to check every workspace member"
    )]
    NoProtocolInPackage {
        /// The package as named.
        package: String,
    },
    /// `--first-release` was given, but a release precedes HEAD (or `--against` named a baseline).
    #[error(
        "--first-release is for a workspace with no release yet, but {rev} is a release before HEAD: drop --first-release to check the working tree against it"
    )]
    AlreadyReleased {
        /// The release (or revision) that is the baseline.
        rev: String,
    },
    /// A shallow clone cuts the history before the baseline: the older releases cannot be read.
    #[error("{}", shallow_older_message(baseline, unread))]
    ShallowOlderReleases {
        /// The baseline's name.
        baseline: String,
        /// The release tags older than the baseline that are here by name but whose history is not.
        unread: Vec<String>,
    },
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

/// The message of [`WorkspaceError::Metadata`]: cargo's error, then what to do, which depends on what
/// cargo says: no manifest found (run in the workspace, or name it), a path given that does not exist, or
/// a manifest cargo cannot read (fix it: cargo fails the same way).
fn metadata_message(error: &str) -> String {
    let error = error.trim_end();
    let hint = if error.contains("could not find `Cargo.toml`") {
        "Run wirecheck inside the workspace, or pass --manifest-path with the workspace's Cargo.toml"
    } else if error.contains("manifest path") && error.contains("does not exist") {
        "Check the path given with --manifest-path: it names no file"
    } else {
        "Fix what cargo reports: `cargo metadata --no-deps` fails the same way"
    };
    format!(
        "cannot read the workspace with cargo metadata: {error}
{hint}"
    )
}

/// The message of [`WorkspaceError::Current`]: a syntax error is the user's code (cargo check fails the
/// same way), said as rustc would, not as wirecheck failing.
fn current_message(error: &ExtractError) -> String {
    match error {
        ExtractError::Parse {
            file,
            line,
            column,
            message,
        } => format!(
            "{file}:{line}:{column}: syntax error in the working tree: {message}. This is the code being checked, not wirecheck: `cargo check` shows the same error; fix it and check again"
        ),
        other => format!(
            "cannot read the working tree: {other}. Fix the source (cargo check shows the same error)"
        ),
    }
}

/// The message of [`WorkspaceError::ShallowOlderReleases`].
fn shallow_older_message(baseline: &str, unread: &[String]) -> String {
    let which = if unread.is_empty() {
        "(no tag of them was fetched, so none can even be named)".to_owned()
    } else {
        format!(
            "({}: tagged here, but not in this clone's history)",
            unread.join(", ")
        )
    };
    format!(
        "this is a shallow clone whose history stops at {baseline}: any release tags older than {baseline} cannot be read {which}, and the working tree must still read their records and interoperate from min_compatible on. Fetch the full history and tags (git fetch --unshallow --tags, or `fetch-depth: 0` in actions/checkout), or pass --baseline-only to compare with {baseline} alone (the report then says so)"
    )
}

/// A package named with `-p`, with the names of its library and binary crates.
#[derive(Debug, Clone)]
pub struct NamedPackage {
    /// The package's name.
    pub name: String,
    /// Its crates' names (`-` as `_`), the first segment of the paths of what they declare.
    pub crate_names: Vec<String>,
}

/// A cargo workspace: its root and the crates whose protocols are read.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace root directory.
    pub root: PathBuf,
    /// The library and binary crates of every member, by root file relative to the workspace root,
    /// sorted by that file: every one is read, with `-p` too, since a protocol's messages may live in
    /// any of them ([`Workspace::selected_protocols`]).
    pub crates: Vec<CrateRoot>,
    /// Cargo's target directory, where the [store](crate::store) lives.
    pub target_dir: PathBuf,
    /// The packages named with `-p` (none: every member).
    pub named_packages: Vec<NamedPackage>,
    /// Every member's features (cargo's: the implicit feature of an optional dependency included), by
    /// package name.
    pub features: BTreeMap<String, BTreeSet<String>>,
    /// Finds the sources of dependencies, for every revision a run reads.
    pub locator: Rc<CargoLocator>,
    /// The lock files parsed so far.
    locks: Rc<dependencies::LockCache>,
    /// For a published package that ships no `Cargo.lock` (a registry baseline): the lock cargo
    /// resolved for a probe depending on it (the versions its users get), and the package's name and
    /// version in it.
    published_lock: Option<(String, String, String)>,
    /// The build checked (features) and the shapes `wirecheck.toml` declares: every revision is
    /// extracted with them.
    pub options: ExtractOptions,
}

impl Workspace {
    /// Reads the workspace members and their crate roots with `cargo metadata` (the workspace of
    /// `manifest_path`, else the one around the current directory), and the `packages` named with `-p`
    /// (each must be a member).
    pub fn load(
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
        let is_crate = |target: &&cargo_metadata::Target| target.is_lib() || target.is_bin();
        // A package's crates as the extraction names them (by crate name): its library, and its
        // binaries but one named like the library (`[[bin]] name = "<package>"` next to `src/lib.rs`),
        // which would stand for the library under its name; a binary reaches the library's types by
        // the library's paths, and a protocol is declared where its messages can be named: the library.
        let is_crate_root = |package: &cargo_metadata::Package, target: &cargo_metadata::Target| {
            let name = target.name.replace('-', "_");
            target.is_lib()
                || target.is_bin()
                    && !package
                        .targets
                        .iter()
                        .any(|other| other.is_lib() && other.name.replace('-', "_") == name)
        };
        let named_packages = members
            .iter()
            .filter(|p| packages.iter().any(|w| p.name.as_str() == w))
            .map(|p| NamedPackage {
                name: p.name.to_string(),
                crate_names: p
                    .targets
                    .iter()
                    .filter(is_crate)
                    .map(|target| target.name.replace('-', "_"))
                    .collect(),
            })
            .collect();
        let features = members
            .iter()
            .map(|p| (p.name.to_string(), p.features.keys().cloned().collect()))
            .collect();
        let mut crates: Vec<CrateRoot> = members
            .iter()
            .flat_map(|p| p.targets.iter().filter(|target| is_crate_root(p, target)))
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
            locator: Rc::new(CargoLocator::new(&root)),
            locks: Rc::default(),
            published_lock: None,
            root,
            crates,
            target_dir: metadata.target_directory.clone().into_std_path_buf(),
            named_packages,
            features,
            options: ExtractOptions::default(),
        })
    }

    /// Finds its dependencies where cargo, configured by the workspace at `config_root` (its
    /// `.cargo/config.toml`: cargo ran there), put them: for a published package unpacked by cargo.
    pub fn fetched_as_configured_at(&mut self, config_root: &Path) {
        self.locator = Rc::new(CargoLocator::configured_at(&self.root, config_root));
    }

    /// Reads the dependencies of this published package, which ships no `Cargo.lock`, at the versions
    /// of `lock`, the lock cargo resolved for a probe depending on it as `package` `version`.
    pub fn with_resolved_lock(&mut self, lock: String, package: &str, version: &str) {
        self.published_lock = Some((lock, package.to_owned(), version.to_owned()));
    }

    /// The protocols the packages named with `-p` select, by name: each protocol one of their crates
    /// declares, and each protocol a message in one of their crates belongs to (a protocol is checked
    /// whole, wherever its messages live); `None` without `-p` (every protocol). `protocols` are the
    /// working tree's and the baseline's, `messages` the working tree's. An error names the first
    /// package that selects nothing: checking it would check nothing.
    pub fn selected_protocols(
        &self,
        protocols: &[&ProtocolDecl],
        messages: &[&MessageDecl],
    ) -> Result<Option<BTreeSet<String>>, WorkspaceError> {
        if self.named_packages.is_empty() {
            return Ok(None);
        }
        let mut selected = BTreeSet::new();
        for package in &self.named_packages {
            let holds = |rust_path: &str| {
                let krate = rust_path.split("::").next().unwrap_or_default();
                package.crate_names.iter().any(|name| name == krate)
            };
            let declared = protocols.iter().filter(|p| holds(&p.rust_path));
            let reached = messages.iter().filter(|m| holds(&m.rust_path));
            let names: Vec<&str> = declared
                .map(|p| p.name.as_str())
                .chain(reached.map(|m| m.protocol.as_str()))
                .collect();
            if names.is_empty() {
                return Err(WorkspaceError::NoProtocolInPackage {
                    package: package.name.clone(),
                });
            }
            selected.extend(names.into_iter().map(str::to_owned));
        }
        Ok(Some(selected))
    }

    /// An error for the first feature of `request` that cargo would refuse: a plain name no member has,
    /// `package/name` of a member without that feature, or of a package that is not a member.
    pub fn check_features(&self, request: &FeatureRequest) -> Result<(), WorkspaceError> {
        let list = |features: &BTreeSet<String>| match features.is_empty() {
            true => "none".to_owned(),
            false => features.iter().cloned().collect::<Vec<_>>().join(", "),
        };
        for spec in &request.features {
            match spec.split_once('/') {
                Some((package, feature)) => match self.features.get(package) {
                    Some(known) if known.contains(feature) => {}
                    Some(known) => {
                        return Err(WorkspaceError::UnknownPackageFeature {
                            package: package.to_owned(),
                            feature: feature.to_owned(),
                            known: list(known),
                        });
                    }
                    None => {
                        let packages: Vec<&str> =
                            self.features.keys().map(String::as_str).collect();
                        return Err(WorkspaceError::UnknownFeaturePackage {
                            spec: spec.clone(),
                            package: package.to_owned(),
                            packages: packages.join(", "),
                        });
                    }
                },
                None if self.features.values().any(|known| known.contains(spec)) => {}
                None => {
                    let known: Vec<String> = self
                        .features
                        .iter()
                        .map(|(package, known)| format!("{package}: {}", list(known)))
                        .collect();
                    return Err(WorkspaceError::UnknownFeature {
                        feature: spec.clone(),
                        known: known.join("; "),
                    });
                }
            }
        }
        Ok(())
    }

    /// [`Workspace::selected_protocols`] of a run that reads `snapshot` (the working tree's, or a
    /// release's), with the protocols and messages of the other protocols dropped from it: the
    /// protocols `-p` selects, whole.
    pub fn keep_selected(&self, snapshot: &mut Snapshot) -> Result<(), WorkspaceError> {
        let protocols: Vec<&ProtocolDecl> = snapshot.protocols.iter().collect();
        let messages: Vec<&MessageDecl> = snapshot.messages.iter().collect();
        if let Some(selected) = self.selected_protocols(&protocols, &messages)? {
            retain_protocols(snapshot, &selected);
        }
        Ok(())
    }

    /// Opens the git repository that holds the workspace.
    pub fn repository(&self) -> Result<Repo, WorkspaceError> {
        Ok(Repo::discover(&self.root)?)
    }

    /// Extracts the working tree's model.
    pub fn current_snapshot(&self) -> Result<Snapshot, WorkspaceError> {
        self.extract_current(&SourceCache::new())
    }

    /// Extracts the model at `commit` (which the user named `rev`), from git objects.
    pub fn revision_snapshot(
        &self,
        repo: &Repo,
        commit: &str,
        rev: &str,
    ) -> Result<Snapshot, WorkspaceError> {
        let tree = repo.at(commit)?;
        self.extract(&tree, &SourceCache::new(), None, None)
            .map_err(|error| revision_error(rev, error))
    }

    /// [`Workspace::current_snapshot`], sharing `cache` with the other revisions a run reads.
    fn extract_current(&self, cache: &SourceCache) -> Result<Snapshot, WorkspaceError> {
        self.extract_work_tree(&WorkTree::new(&self.root), cache)
    }

    /// The model of the working tree read through `work_tree`.
    fn extract_work_tree(
        &self,
        work_tree: &WorkTree,
        cache: &SourceCache,
    ) -> Result<Snapshot, WorkspaceError> {
        self.extract(work_tree, cache, None, None)
            .map_err(WorkspaceError::Current)
    }

    /// The model of the revision `reader` reads (the messages `keep` asks for), following types into
    /// the dependencies its `Cargo.lock` pins; notes say what of them could not be read. With
    /// `recorder`, what the extraction depends on outside the revision's files is recorded there (the
    /// dependencies located, and the working tree's `Cargo.lock` when the revision has none).
    fn extract(
        &self,
        reader: &dyn FileReader,
        cache: &SourceCache,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
        recorder: Option<&Recorder>,
    ) -> Result<Snapshot, ExtractError> {
        let notes = RefCell::new(Vec::new());
        let describe = || {
            let working_lock = match self.published_lock {
                Some(_) => None,
                None => std::fs::read_to_string(self.root.join("Cargo.lock")).ok(),
            };
            let fallback = match &self.published_lock {
                Some((text, package, version)) => Some(dependencies::StandInLock {
                    text,
                    note: PUBLISHED_LOCK,
                    member: Some((package, version)),
                }),
                None => working_lock
                    .as_deref()
                    .map(|text| dependencies::StandInLock {
                        text,
                        note: dependencies::WORKING_TREE_LOCK,
                        member: None,
                    }),
            };
            let mut locator = Rc::clone(&self.locator) as Rc<dyn extract::Locate>;
            if let Some(recorder) = recorder {
                if reader.blob_id("Cargo.lock").ok().flatten().is_none()
                    && reader.read("Cargo.lock").ok().flatten().is_none()
                {
                    recorder.record_file(&WorkTree::new(&self.root), "Cargo.lock");
                }
                locator = recorder.locator(locator);
            }
            let found =
                dependencies::dependencies(&self.crates, reader, fallback, locator, &self.locks);
            notes.borrow_mut().extend(found.notes);
            found.externals
        };
        let mut snapshot =
            extract::extract_with(&self.crates, reader, cache, &self.options, &describe, keep)?;
        let notes = notes.into_inner();
        if !notes.is_empty() {
            snapshot.notes.extend(notes);
            snapshot.sort();
        }
        Ok(snapshot)
    }
}

/// The note of a published package read with the lock cargo resolved for it.
const PUBLISHED_LOCK: &str = "the published package has no Cargo.lock: its dependencies are taken at the versions cargo resolves for its users (the newest each requirement allows)";

/// Drops from `snapshot` every protocol not in `selected`, with its messages.
pub fn retain_protocols(snapshot: &mut Snapshot, selected: &BTreeSet<String>) {
    snapshot.protocols.retain(|p| selected.contains(&p.name));
    snapshot.messages.retain(|m| selected.contains(&m.protocol));
}

/// The error of reading the model of the revision `rev`.
pub fn revision_error(rev: &str, error: ExtractError) -> WorkspaceError {
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

// Unix only, like the index it relies on (and the git helper it shares with `source`).
#[cfg(all(test, unix))]
mod recorded_tests;
