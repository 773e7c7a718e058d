//! The dependencies of one revision, as extraction follows types into them: which package version each
//! name that workspace code uses for another crate stands for, read from the revision's own `Cargo.lock`
//! and `Cargo.toml` files (from git at a release, from disk in the working tree). Nothing is resolved,
//! built or fetched: `cargo metadata` would need the network for a lock that is out of date, and a
//! release's lock is what that release was built with.
//!
//! - Which package a name stands for: the crate's `[dependencies]` (and `[target.*.dependencies]`) by key,
//!   renames (`foo = { package = "bar" }`) and `workspace = true` included, pinned to a version by the
//!   lock's entry for the crate's package. A dependency's own dependencies are the lock's list for it,
//!   by package name (renames inside dependencies are not read).
//! - Features: what the workspace's manifests ask of a direct dependency (its defaults unless every
//!   request turns them off); a dependency reached only through others is taken with its defaults.
//!   [`Locate`] expands them through the dependency's `[features]`. This
//!   approximates cargo's feature unification, the same way at every revision.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use crate::extract::{
    CrateRoot, ExternalCrate, Externals, FileReader, Locate, join_path, parent_dir,
};
use crate::model::{ExtractNote, Location};

/// A package of a `Cargo.lock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedPackage {
    pub name: String,
    pub version: String,
    /// `registry+...`, `git+...#rev`; empty for a path dependency or a workspace member.
    pub source: String,
    /// Its dependencies as the lock writes them: `name`, `name version` or `name version (source)`.
    pub dependencies: Vec<String>,
}

/// The packages of a `Cargo.lock` text; `None` when it is not a lock file wirecheck can read.
pub fn parse_lock(text: &str) -> Option<Vec<LockedPackage>> {
    let value: toml::Table = toml::from_str(text).ok()?;
    let packages = value.get("package")?.as_array()?;
    let string = |table: &toml::Table, key: &str| {
        table
            .get(key)
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(
        packages
            .iter()
            .filter_map(toml::Value::as_table)
            .map(|table| LockedPackage {
                name: string(table, "name"),
                version: string(table, "version"),
                source: string(table, "source"),
                dependencies: table
                    .get("dependencies")
                    .and_then(toml::Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(toml::Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect(),
    )
}

/// A dependency as a manifest declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DependencySpec {
    /// The name code uses (the key, `-` as `_`).
    pub name: String,
    /// The package it names (`package = "..."`, else the key).
    pub package: String,
    pub features: Vec<String>,
    pub default_features: bool,
    /// `path = "..."`, relative to the manifest's directory.
    pub path: Option<String>,
    /// The version requirement (`"2"`, `{ version = "1.7" }`): which of two locked versions of one
    /// package this name is.
    pub version: Option<String>,
}

/// A package manifest's name and dependencies (normal ones, target-specific included); `inherited` are
/// the workspace's `[workspace.dependencies]`, for `workspace = true`.
pub fn parse_manifest(
    text: &str,
    inherited: &BTreeMap<String, toml::Value>,
) -> Option<(String, Vec<DependencySpec>)> {
    let value: toml::Table = toml::from_str(text).ok()?;
    let name = value.get("package")?.get("name")?.as_str()?.to_owned();
    let mut tables: Vec<&toml::Table> = value
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .into_iter()
        .collect();
    if let Some(targets) = value.get("target").and_then(toml::Value::as_table) {
        tables.extend(
            targets
                .values()
                .filter_map(|target| target.get("dependencies")?.as_table()),
        );
    }
    let specs = tables
        .into_iter()
        .flat_map(|table| table.iter())
        .map(|(key, spec)| dependency_spec(key, spec, inherited))
        .collect();
    Some((name, specs))
}

/// The `[workspace.dependencies]` of a root manifest.
pub fn workspace_dependencies(text: &str) -> BTreeMap<String, toml::Value> {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|value| {
            let table = value.get("workspace")?.get("dependencies")?.as_table()?;
            Some(table.clone().into_iter().collect())
        })
        .unwrap_or_default()
}

fn dependency_spec(
    key: &str,
    spec: &toml::Value,
    inherited: &BTreeMap<String, toml::Value>,
) -> DependencySpec {
    let mut out = DependencySpec {
        name: key.replace('-', "_"),
        package: key.to_owned(),
        default_features: true,
        ..DependencySpec::default()
    };
    let Some(table) = spec.as_table() else {
        out.version = spec.as_str().map(str::to_owned); // `name = "1.0"`
        return out;
    };
    let from_workspace = table.get("workspace").and_then(toml::Value::as_bool) == Some(true);
    if from_workspace && let Some(base) = inherited.get(key) {
        out = dependency_spec(key, base, &BTreeMap::new());
        out.name = key.replace('-', "_");
    }
    if let Some(package) = table.get("package").and_then(toml::Value::as_str) {
        out.package = package.to_owned();
    }
    if let Some(path) = table.get("path").and_then(toml::Value::as_str) {
        out.path = Some(path.to_owned());
    }
    if let Some(version) = table.get("version").and_then(toml::Value::as_str) {
        out.version = Some(version.to_owned());
    }
    let default = table
        .get("default-features")
        .or_else(|| table.get("default_features"))
        .and_then(toml::Value::as_bool);
    if let Some(default) = default {
        out.default_features = default;
    }
    if let Some(features) = table.get("features").and_then(toml::Value::as_array) {
        out.features.extend(
            features
                .iter()
                .filter_map(toml::Value::as_str)
                .map(str::to_owned),
        );
    }
    out
}

/// What [`dependencies`] found, with notes about what it could not read.
pub struct RevisionDependencies {
    pub externals: Externals,
    pub notes: Vec<ExtractNote>,
}

/// Parsed `Cargo.lock` files by their text, shared by the revisions of one run: consecutive releases
/// often lock the same versions, and a large lock takes milliseconds to parse.
#[derive(Debug, Default)]
pub struct LockCache(RefCell<HashMap<String, Option<Rc<[LockedPackage]>>>>);

impl LockCache {
    /// The packages of the lock `text` (see [`parse_lock`]), parsed once.
    fn parse(&self, text: &str) -> Option<Rc<[LockedPackage]>> {
        if let Some(parsed) = self.0.borrow().get(text) {
            return parsed.clone();
        }
        let parsed: Option<Rc<[LockedPackage]>> = parse_lock(text).map(Rc::from);
        self.0.borrow_mut().insert(text.to_owned(), parsed.clone());
        parsed
    }
}

/// A `Cargo.lock` that stands in for a revision's own when it has none, and the note that says so.
#[derive(Debug, Clone, Copy)]
pub struct StandInLock<'a> {
    /// The lock's text.
    pub text: &'a str,
    /// What the report says of it.
    pub note: &'a str,
    /// The package (name, version) the revision is, when the lock resolved it as a dependency (a
    /// published package, read with the lock cargo resolved for a probe depending on it): its entry is
    /// read as a workspace member's.
    pub member: Option<(&'a str, &'a str)>,
}

/// The note of a revision that borrows the working tree's `Cargo.lock`.
pub const WORKING_TREE_LOCK: &str = "this revision has no Cargo.lock: its dependencies are taken at the versions of the working tree's Cargo.lock";

/// The dependencies of the revision `reader` reads, for the workspace crates `crates`; `fallback_lock`
/// is used (with its note) when the revision has no `Cargo.lock`.
pub fn dependencies(
    crates: &[CrateRoot],
    reader: &dyn FileReader,
    fallback_lock: Option<StandInLock<'_>>,
    locator: Rc<dyn Locate>,
    locks: &LockCache,
) -> RevisionDependencies {
    let mut notes = Vec::new();
    let read = |path: &str| {
        reader
            .read(path)
            .ok()
            .flatten()
            .and_then(|bytes| String::from_utf8(bytes).ok())
    };
    let lock_text = read("Cargo.lock");
    let lock = match (&lock_text, fallback_lock) {
        (Some(text), _) => locks.parse(text),
        (None, Some(fallback)) => {
            notes.push(file_note("Cargo.lock", fallback.note));
            let lock = locks.parse(fallback.text);
            match fallback.member {
                Some(member) => lock.map(|lock| as_member(&lock, member)),
                None => lock,
            }
        }
        (None, None) => None,
    };
    let Some(lock) = lock else {
        if lock_text.is_some() || fallback_lock.is_some() {
            notes.push(file_note(
                "Cargo.lock",
                "Cargo.lock cannot be read: types of dependencies are compared by path only",
            ));
        }
        return RevisionDependencies {
            externals: Externals::default(),
            notes,
        };
    };
    let inherited = read("Cargo.toml")
        .map(|text| workspace_dependencies(&text))
        .unwrap_or_default();
    let mut graph = Graph::new(&lock);
    for krate in crates {
        let Some((dir, text)) = manifest_of(&krate.root_file, &read) else {
            continue;
        };
        let Some((package, specs)) = parse_manifest(&text, &inherited) else {
            continue;
        };
        graph.add_workspace_crate(&krate.name, &package, &dir, &specs, &read);
    }
    let mut externals = graph.finish();
    externals.locator = Some(locator);
    RevisionDependencies { externals, notes }
}

/// `lock` with the package `(name, version)` read as a workspace member (no source), as the lock of
/// its own repository would have it.
fn as_member(lock: &[LockedPackage], (name, version): (&str, &str)) -> Rc<[LockedPackage]> {
    let member = |mut package: LockedPackage| {
        if package.name == name && package.version == version {
            package.source.clear();
        }
        package
    };
    lock.iter().cloned().map(member).collect()
}

/// A note about a whole file (no position in it).
fn file_note(file: &str, message: &str) -> ExtractNote {
    ExtractNote {
        message: message.to_owned(),
        location: Location {
            file: file.to_owned(),
            line: 1,
            column: 1,
            start: 0,
            end: 0,
        },
    }
}

/// The directory and text of the manifest of the package whose crate root is `root_file`: the nearest
/// `Cargo.toml` above it that has a `[package]`.
fn manifest_of(root_file: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<(String, String)> {
    let mut dir = parent_dir(root_file);
    loop {
        let path = join_path(dir, "Cargo.toml");
        if let Some(text) = read(&path)
            && text.contains("[package]")
        {
            return Some((dir.to_owned(), text));
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent_dir(dir);
    }
}

/// `dir/relative` with `.` and `..` folded (`..` left at the front when it leaves the workspace).
pub fn normalize(dir: &str, relative: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in dir.split('/').chain(relative.split('/')) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// The lock's packages becoming [`ExternalCrate`]s.
struct Graph<'l> {
    lock: &'l [LockedPackage],
    /// The external crate of each lock package, once some crate depends on it.
    index: BTreeMap<usize, usize>,
    /// The external crates some workspace manifest asks for (the first request sets the defaults).
    requested: BTreeSet<usize>,
    externals: Externals,
}

impl<'l> Graph<'l> {
    fn new(lock: &'l [LockedPackage]) -> Self {
        Graph {
            lock,
            index: BTreeMap::new(),
            requested: BTreeSet::new(),
            externals: Externals::default(),
        }
    }

    /// The lock package a dependency string of `from` names (`name`, `name version`, `name version
    /// (source)`).
    fn find(&self, entry: &str) -> Option<usize> {
        let mut words = entry.split_whitespace();
        let name = words.next()?;
        let version = words.next();
        self.lock
            .iter()
            .position(|p| p.name == name && version.is_none_or(|v| p.version == v))
    }

    /// The lock package of a workspace package (a member: no source).
    fn workspace_package(&self, name: &str) -> Option<usize> {
        self.lock
            .iter()
            .position(|p| p.name == name && p.source.is_empty())
    }

    /// The external crate of lock package `at`, with its own dependencies, made on first use.
    fn external(&mut self, at: usize) -> usize {
        if let Some(&index) = self.index.get(&at) {
            return index;
        }
        let package = &self.lock[at];
        let index = self.externals.crates.len();
        self.externals.crates.push(ExternalCrate {
            package: package.name.clone(),
            version: package.version.clone(),
            source: package.source.clone(),
            path: None,
            requested_features: BTreeSet::new(),
            default_features: true,
            deps: BTreeMap::new(),
        });
        self.index.insert(at, index);
        let entries = package.dependencies.clone();
        for entry in entries {
            if let Some(below) = self.find(&entry) {
                let name = self.lock[below].name.replace('-', "_");
                let below = self.external(below);
                self.externals.crates[index].deps.insert(name, below);
            }
        }
        index
    }

    /// The names the crate `krate` of the package `package` (manifest in `dir`) gives its dependencies.
    fn add_workspace_crate(
        &mut self,
        krate: &str,
        package: &str,
        dir: &str,
        specs: &[DependencySpec],
        read: &dyn Fn(&str) -> Option<String>,
    ) {
        let Some(own) = self.workspace_package(package) else {
            return;
        };
        let entries = self.lock[own].dependencies.clone();
        for spec in specs {
            let Some(at) = self.locked(&entries, spec) else {
                continue;
            };
            let index = self.external(at);
            let first = self.requested.insert(index);
            let external = &mut self.externals.crates[index];
            if first {
                external.default_features = spec.default_features;
            } else {
                external.default_features |= spec.default_features;
            }
            external
                .requested_features
                .extend(spec.features.iter().cloned());
            if let Some(path) = &spec.path {
                let path = normalize(dir, path);
                external.path = Some(path_root(&path, read));
            }
            self.externals
                .of_workspace
                .entry(krate.to_owned())
                .or_default()
                .insert(spec.name.clone(), index);
        }
    }

    /// The lock package, among `entries` (a package's dependencies in the lock), that `spec` names: by
    /// package name and, when two versions are locked, by the spec's version requirement.
    fn locked(&self, entries: &[String], spec: &DependencySpec) -> Option<usize> {
        let candidates: Vec<usize> = entries
            .iter()
            .filter_map(|entry| self.find(entry))
            .filter(|&at| self.lock[at].name == spec.package)
            .collect();
        let requirement = spec
            .version
            .as_deref()
            .and_then(|req| semver::VersionReq::parse(req).ok());
        let matches = |at: &usize| {
            let version = semver::Version::parse(&self.lock[*at].version).ok();
            match (&requirement, version) {
                (Some(req), Some(version)) => req.matches(&version),
                _ => true,
            }
        };
        candidates
            .iter()
            .copied()
            .find(matches)
            .or_else(|| candidates.first().copied())
    }

    fn finish(self) -> Externals {
        self.externals
    }
}

/// The crate root of the path dependency in `dir`: its `[lib] path`, else `src/lib.rs`.
fn path_root(dir: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    let lib = read(&join_path(dir, "Cargo.toml")).and_then(|text| {
        let value: toml::Table = toml::from_str(&text).ok()?;
        Some(value.get("lib")?.get("path")?.as_str()?.to_owned())
    });
    normalize(dir, lib.as_deref().unwrap_or("src/lib.rs"))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::rc::Rc;

    use super::{
        LockCache, StandInLock, WORKING_TREE_LOCK, dependencies, normalize, parse_lock,
        parse_manifest, workspace_dependencies,
    };
    use crate::extract::{CrateRoot, CrateSource, ExternalCrate, Locate, Located};

    struct Nowhere;

    impl Locate for Nowhere {
        fn locate(&self, _: &ExternalCrate) -> Located {
            Located {
                source: CrateSource::Missing { why: String::new() },
                features: BTreeSet::new(),
            }
        }
    }

    const LOCK: &str = r#"version = 4

[[package]]
name = "app"
version = "0.1.0"
dependencies = [
 "shared",
 "url 1.7.2",
 "url 2.5.0",
]

[[package]]
name = "idna"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "shared"
version = "0.1.0"

[[package]]
name = "url"
version = "1.7.2"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "url"
version = "2.5.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "idna",
]
"#;

    const APP: &str = r#"[package]
name = "app"
version = "0.1.0"

[dependencies]
old-url = { package = "url", version = "1", default-features = false }
shared = { path = "../shared" }

[target.'cfg(unix)'.dependencies]
url = { workspace = true, features = ["serde"] }
"#;

    #[test]
    fn lock_packages_and_their_dependencies() {
        let lock = parse_lock(LOCK).unwrap();
        assert_eq!(lock.len(), 5);
        assert_eq!(lock[4].dependencies, ["idna"]);
        assert_eq!(lock[2].source, "");
        assert!(parse_lock("not [ toml").is_none());
    }

    #[test]
    fn manifests_rename_and_inherit() {
        let inherited = workspace_dependencies(
            "[workspace.dependencies]\nurl = { version = \"2\", default-features = false }\n",
        );
        let (name, specs) = parse_manifest(APP, &inherited).unwrap();
        assert_eq!(name, "app");
        let by_name: BTreeMap<&str, _> = specs.iter().map(|s| (s.name.as_str(), s)).collect();
        assert_eq!(by_name["old_url"].package, "url");
        assert!(!by_name["old_url"].default_features);
        assert_eq!(by_name["shared"].path.as_deref(), Some("../shared"));
        assert!(!by_name["url"].default_features);
        assert_eq!(by_name["url"].features, ["serde"]);
    }

    #[test]
    fn names_in_code_map_to_locked_versions() {
        let files: BTreeMap<String, String> = [
            ("Cargo.lock", LOCK),
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"app\"]\n[workspace.dependencies]\nurl = \"2\"\n",
            ),
            ("app/Cargo.toml", APP),
            (
                "shared/Cargo.toml",
                "[package]\nname = \"shared\"\nversion = \"0.1.0\"\n[lib]\npath = \"lib.rs\"\n",
            ),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_owned(), t.to_owned()))
        .collect();
        let roots = [CrateRoot {
            name: "app".to_owned(),
            root_file: "app/src/lib.rs".to_owned(),
        }];
        let found = dependencies(
            &roots,
            &files,
            None,
            Rc::new(Nowhere),
            &LockCache::default(),
        );
        assert!(found.notes.is_empty());
        let externals = found.externals;
        let names = &externals.of_workspace["app"];
        let version = |name: &str| externals.crates[names[name]].label();
        assert_eq!(version("old_url"), "url 1.7.2");
        assert_eq!(version("url"), "url 2.5.0");
        let shared = &externals.crates[names["shared"]];
        assert_eq!(shared.path.as_deref(), Some("shared/lib.rs"));
        let url = &externals.crates[names["url"]];
        assert_eq!(externals.crates[url.deps["idna"]].label(), "idna 1.0.0");
        assert!(url.requested_features.contains("serde"));
        assert!(url.default_features);
    }

    #[test]
    fn a_revision_without_a_lock_borrows_the_working_trees_with_a_note() {
        let files: BTreeMap<String, String> =
            [("app/Cargo.toml".to_owned(), APP.to_owned())].into();
        let roots = [CrateRoot {
            name: "app".to_owned(),
            root_file: "app/src/lib.rs".to_owned(),
        }];
        let found = dependencies(
            &roots,
            &files,
            Some(StandInLock {
                text: LOCK,
                note: WORKING_TREE_LOCK,
                member: None,
            }),
            Rc::new(Nowhere),
            &LockCache::default(),
        );
        assert_eq!(found.notes.len(), 1);
        assert!(found.notes[0].message.contains("no Cargo.lock"));
        assert_eq!(found.externals.of_workspace["app"].len(), 3);
        let none = dependencies(
            &roots,
            &files,
            None,
            Rc::new(Nowhere),
            &LockCache::default(),
        );
        assert!(none.externals.crates.is_empty());
    }

    #[test]
    fn paths_fold_dots() {
        assert_eq!(normalize("app", "../shared"), "shared");
        assert_eq!(normalize("", "../common"), "../common");
        assert_eq!(normalize("a/b", "./c/../d"), "a/b/d");
    }
}
