//! Crates outside the workspace that its code names: the dependencies of one revision, as the caller
//! (the workspace, from `Cargo.lock` and the manifests) describes them. Extraction mounts one only when
//! name resolution reaches it, with the same module tree, name resolution and lowering as workspace code;
//! where its files are, and which features it is built with, is asked of a [`Locate`] at that moment.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::FileReader;

/// One package version a revision depends on, directly or not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExternalCrate {
    /// The package's name (`serde_json`, `fluent-uri`).
    pub package: String,
    /// Its version as the lock file pins it (`2.5.0`).
    pub version: String,
    /// The lock file's `source` (`registry+https://...`, `git+https://...#rev`); empty for a path
    /// dependency.
    pub source: String,
    /// A path dependency's crate root file, relative to the workspace root (`/` separators; it starts
    /// with `..` when the dependency is outside the workspace).
    pub path: Option<String>,
    /// The features the manifests that depend on it ask for, and whether one of them leaves the default
    /// features on: what [`Locate`] turns into the features it is built with.
    pub requested_features: BTreeSet<String>,
    /// Whether some dependent leaves `default-features` on.
    pub default_features: bool,
    /// The crates its own code names, by the name it uses (`-` as `_`), as indices into
    /// [`Externals::crates`].
    pub deps: BTreeMap<String, usize>,
}

impl ExternalCrate {
    /// `name version`, as notes and the model name a package (`url 2.5.0`).
    pub fn label(&self) -> String {
        format!("{} {}", self.package, self.version)
    }
}

/// Where a dependency's source is, found by a [`Locate`].
pub enum CrateSource {
    /// In the revision being read (a path dependency inside the workspace): the root file, relative to
    /// the workspace root.
    Revision {
        /// `shared/src/lib.rs`.
        root_file: String,
    },
    /// On disk, read through `reader` (the registry's source cache, a vendor directory, a git checkout).
    Files {
        /// The root file as `reader` reads it.
        root_file: String,
        /// Reads the package's files.
        reader: Rc<dyn FileReader>,
    },
    /// Not on disk: `why` says where it was looked for and what brings it.
    Missing {
        /// A sentence for the note.
        why: String,
    },
}

/// A located dependency: its source and the features it is built with.
pub struct Located {
    /// Where its files are.
    pub source: CrateSource,
    /// The features enabled in it (defaults expanded).
    pub features: BTreeSet<String>,
}

/// Finds a dependency's files and features; called once per dependency that name resolution reaches.
pub trait Locate {
    /// Where `krate` is and which features it is built with.
    fn locate(&self, krate: &ExternalCrate) -> Located;
}

/// The dependencies of one revision: every package version, and the names the workspace's crates give
/// them. `Externals::default()` has none (the workspace alone, as before dependencies were followed).
#[derive(Default, Clone)]
pub struct Externals {
    /// Every package version of the revision's dependency graph that workspace code may reach.
    pub crates: Vec<ExternalCrate>,
    /// For each workspace crate (by its name in paths), the crates its code names: name → index into
    /// `crates`.
    pub of_workspace: BTreeMap<String, BTreeMap<String, usize>>,
    /// What finds their files (`None`: every dependency is missing).
    pub locator: Option<Rc<dyn Locate>>,
}

impl std::fmt::Debug for Externals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Externals")
            .field("crates", &self.crates)
            .field("of_workspace", &self.of_workspace)
            .finish_non_exhaustive()
    }
}

impl Externals {
    /// The root module name of each crate in extracted paths: the package's name with `-` as `_`
    /// (`url::Url`), or `name@version` when two versions of it (or a workspace crate) would share the
    /// name. Indexed like `crates`.
    pub(super) fn module_names(&self, workspace: &[String]) -> Vec<String> {
        let plain = |krate: &ExternalCrate| krate.package.replace('-', "_");
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for krate in &self.crates {
            *counts.entry(plain(krate)).or_default() += 1;
        }
        self.crates
            .iter()
            .map(|krate| {
                let name = plain(krate);
                if counts[&name] > 1 || workspace.contains(&name) {
                    format!("{name}@{}", krate.version)
                } else {
                    name
                }
            })
            .collect()
    }

    /// Which crate the code of the crate `from` (by index into `crates`, or a workspace crate by name)
    /// names `name`.
    pub(super) fn named(&self, from: From<'_>, name: &str) -> Option<usize> {
        match from {
            From::Workspace(krate) => self.of_workspace.get(krate)?.get(name).copied(),
            From::External(index) => self.crates.get(index)?.deps.get(name).copied(),
        }
    }
}

/// The crate a path is written in.
#[derive(Debug, Clone, Copy)]
pub(super) enum From<'a> {
    /// A workspace crate, by name.
    Workspace(&'a str),
    /// A dependency, by index.
    External(usize),
}
