//! Where Cargo keeps the sources of dependencies, read as they are on disk (a package version's source
//! never changes): the registry's source cache (`$CARGO_HOME/registry/src/<index>/<name>-<version>/`),
//! a vendor directory that `.cargo/config.toml` puts in place of crates.io (`[source]` `replace-with`
//! a `directory`), git checkouts (`$CARGO_HOME/git/checkouts/<repo>-<hash>/<short rev>/`), and path
//! dependencies (inside the workspace, read from the revision itself; outside it, from disk). Also the
//! features a located package is built with, expanded through its manifest's `[features]`.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use git2::{ObjectType, Oid};

use crate::extract::{
    CrateSource, DirId, ExternalCrate, ExtractError, FileReader, Locate, Located,
};

/// Finds dependencies where Cargo keeps them. One locator serves every revision of a check, so a
/// package version is looked for, and its files hashed, once.
#[derive(Debug)]
pub struct CargoLocator {
    cargo_home: PathBuf,
    workspace_root: PathBuf,
    /// The vendor directory replacing crates.io, if `.cargo/config.toml` configures one.
    vendor: Option<PathBuf>,
    files: Rc<DiskFiles>,
    /// Package directories found (or not) so far, by package, version and source.
    found: RefCell<HashMap<(String, String, String), Option<PathBuf>>>,
}

impl CargoLocator {
    /// A locator for the workspace at `workspace_root`, with Cargo's home as cargo finds it.
    pub fn new(workspace_root: &Path) -> Self {
        Self::configured_at(workspace_root, workspace_root)
    }

    /// A locator with an explicit Cargo home.
    #[cfg(test)]
    pub fn with_cargo_home(workspace_root: &Path, cargo_home: PathBuf) -> Self {
        Self::configured(workspace_root, workspace_root, cargo_home)
    }

    /// A locator for the package unpacked at `package_root` (a published release, a registry
    /// baseline), whose dependencies cargo fetched as the workspace at `config_root` configures it
    /// (its `.cargo/config.toml`: cargo ran there).
    pub fn configured_at(package_root: &Path, config_root: &Path) -> Self {
        let cargo_home = super::cargo_home(&home::env::OS_ENV);
        Self::configured(package_root, config_root, cargo_home)
    }

    /// A locator for `workspace_root` reading cargo's configuration at `config_root`.
    fn configured(workspace_root: &Path, config_root: &Path, cargo_home: PathBuf) -> Self {
        let vendor = [
            config_root.join(".cargo/config.toml"),
            config_root.join(".cargo/config"),
            cargo_home.join("config.toml"),
        ]
        .iter()
        .find_map(|config| {
            let text = std::fs::read_to_string(config).ok()?;
            let dir = vendor_directory(&text)?;
            // Relative to the directory holding `.cargo/`.
            let base = config.parent()?.parent()?;
            Some(base.join(dir))
        });
        CargoLocator {
            cargo_home,
            workspace_root: workspace_root.to_path_buf(),
            vendor,
            files: Rc::new(DiskFiles::default()),
            found: RefCell::default(),
        }
    }

    /// The directory of a registry or git package, found once.
    fn package_dir(&self, krate: &ExternalCrate) -> Option<PathBuf> {
        let key = (
            krate.package.clone(),
            krate.version.clone(),
            krate.source.clone(),
        );
        if let Some(found) = self.found.borrow().get(&key) {
            return found.clone();
        }
        let found = self.search(krate);
        self.found.borrow_mut().insert(key, found.clone());
        found
    }

    fn search(&self, krate: &ExternalCrate) -> Option<PathBuf> {
        if krate.source.starts_with("git+") {
            return git_checkout(&self.cargo_home, krate);
        }
        if let Some(vendor) = &self.vendor {
            return vendored(vendor, krate);
        }
        registry_source(&self.cargo_home, krate)
    }

    /// Where a package was looked for, and the command that puts it there, for the note when it is not
    /// there: a vendor directory is filled by `cargo vendor`, Cargo's own caches by `cargo fetch`.
    fn looked_in(&self, krate: &ExternalCrate) -> String {
        if krate.source.starts_with("git+") {
            format!(
                "looked in {}; `cargo fetch` brings it",
                self.cargo_home.join("git/checkouts").display()
            )
        } else if let Some(vendor) = &self.vendor {
            format!(
                "looked in the vendor directory {}; `cargo vendor` brings it",
                vendor.display()
            )
        } else {
            format!(
                "looked in {}; `cargo fetch` brings it",
                self.cargo_home.join("registry/src/*").display()
            )
        }
    }

    /// A path dependency: inside the workspace, read from the revision; outside it, from disk.
    fn path_dependency(&self, krate: &ExternalCrate, root_file: &str) -> Located {
        // Its manifest: the nearest `Cargo.toml` above the root file, as the working tree has it.
        let root = self.workspace_root.join(root_file);
        let manifest = root
            .ancestors()
            .skip(1)
            .take(4)
            .find_map(|dir| std::fs::read_to_string(dir.join("Cargo.toml")).ok())
            .unwrap_or_default();
        let features = enabled_features(&manifest, krate);
        let source = if root_file.starts_with("..") {
            CrateSource::Files {
                root_file: slash(&self.workspace_root.join(root_file)),
                reader: Rc::clone(&self.files) as Rc<dyn FileReader>,
            }
        } else {
            CrateSource::Revision {
                root_file: root_file.to_owned(),
            }
        };
        Located { source, features }
    }
}

impl Locate for CargoLocator {
    fn locate(&self, krate: &ExternalCrate) -> Located {
        if let Some(root_file) = &krate.path {
            return self.path_dependency(krate, root_file);
        }
        let Some(dir) = self.package_dir(krate) else {
            return Located {
                source: CrateSource::Missing {
                    why: self.looked_in(krate),
                },
                features: BTreeSet::new(),
            };
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let lib = lib_path(&manifest).unwrap_or_else(|| "src/lib.rs".to_owned());
        Located {
            source: CrateSource::Files {
                root_file: slash(&dir.join(lib)),
                reader: Rc::clone(&self.files) as Rc<dyn FileReader>,
            },
            features: enabled_features(&manifest, krate),
        }
    }
}

/// A path as `/`-separated text.
fn slash(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// `$CARGO_HOME/registry/src/<any index>/<name>-<version>/`.
pub fn registry_source(cargo_home: &Path, krate: &ExternalCrate) -> Option<PathBuf> {
    let wanted = format!("{}-{}", krate.package, krate.version);
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .collect();
    indexes.sort();
    indexes
        .into_iter()
        .map(|index| index.join(&wanted))
        .find(|dir| dir.join("Cargo.toml").is_file())
}

/// `<vendor>/<name>-<version>/`, or `<vendor>/<name>/` when its manifest has that version (cargo vendor
/// names the newest version of a package without its version).
pub fn vendored(vendor: &Path, krate: &ExternalCrate) -> Option<PathBuf> {
    let versioned = vendor.join(format!("{}-{}", krate.package, krate.version));
    if versioned.join("Cargo.toml").is_file() {
        return Some(versioned);
    }
    let plain = vendor.join(&krate.package);
    let manifest = std::fs::read_to_string(plain.join("Cargo.toml")).ok()?;
    (manifest_version(&manifest).as_deref() == Some(krate.version.as_str())).then_some(plain)
}

/// `$CARGO_HOME/git/checkouts/<repo>-<hash>/<first 7 of rev>/`, and the package's directory in it.
pub fn git_checkout(cargo_home: &Path, krate: &ExternalCrate) -> Option<PathBuf> {
    let (url, rev) = krate.source.strip_prefix("git+")?.split_once('#')?;
    let url = url.split('?').next().unwrap_or(url);
    let repo = url
        .trim_end_matches('/')
        .rsplit('/')
        .next()?
        .trim_end_matches(".git");
    let short = rev.get(..7)?;
    let mut checkouts: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("git/checkouts"))
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&format!("{repo}-")))
        })
        .map(|path| path.join(short))
        .filter(|path| path.is_dir())
        .collect();
    checkouts.sort();
    checkouts
        .into_iter()
        .find_map(|checkout| package_in(&checkout, &krate.package, 3))
}

/// The directory below `dir` (itself included, `depth` levels down) whose manifest names `package`.
fn package_in(dir: &Path, package: &str, depth: usize) -> Option<PathBuf> {
    if let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml"))
        && manifest_name(&text).as_deref() == Some(package)
    {
        return Some(dir.to_path_buf());
    }
    if depth == 0 {
        return None;
    }
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.is_dir() && !path.ends_with(".git") && !path.ends_with("target"))
        .collect();
    subdirs.sort();
    subdirs
        .into_iter()
        .find_map(|sub| package_in(&sub, package, depth - 1))
}

fn manifest_table(text: &str) -> Option<toml::Table> {
    toml::from_str(text).ok()
}

fn manifest_name(text: &str) -> Option<String> {
    Some(
        manifest_table(text)?
            .get("package")?
            .get("name")?
            .as_str()?
            .to_owned(),
    )
}

fn manifest_version(text: &str) -> Option<String> {
    Some(
        manifest_table(text)?
            .get("package")?
            .get("version")?
            .as_str()?
            .to_owned(),
    )
}

fn lib_path(text: &str) -> Option<String> {
    Some(
        manifest_table(text)?
            .get("lib")?
            .get("path")?
            .as_str()?
            .to_owned(),
    )
}

/// The vendor directory of a `.cargo/config.toml`: the `directory` of the source crates.io is replaced
/// with.
pub fn vendor_directory(config: &str) -> Option<String> {
    let table = manifest_table(config)?;
    let sources = table.get("source")?.as_table()?;
    let replacement = sources.get("crates-io")?.get("replace-with")?.as_str()?;
    Some(
        sources
            .get(replacement)?
            .get("directory")?
            .as_str()?
            .to_owned(),
    )
}

/// The features of a package built as `krate` asks (its requested features, and `default` unless
/// turned off), expanded through the `[features]` of its manifest as cargo's feature resolver does
/// ([`dependency_features`](crate::extract::dependency_features)); none of an unreadable manifest.
pub fn enabled_features(manifest: &str, krate: &ExternalCrate) -> BTreeSet<String> {
    let table = manifest_table(manifest).unwrap_or_default();
    crate::extract::dependency_features(&table, krate)
}

/// Reads files on disk by absolute path, remembering each file's blob id: the sources of a package
/// version do not change, so a file is hashed once per check and its parse shared by every revision.
#[derive(Debug, Default)]
pub struct DiskFiles {
    ids: RefCell<HashMap<String, Oid>>,
}

impl FileReader for DiskFiles {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(_) if !Path::new(path).is_file() => return Ok(None),
            Err(error) => {
                return Err(ExtractError::Read {
                    file: path.to_owned(),
                    message: error.to_string(),
                });
            }
        };
        if let Ok(id) = Oid::hash_object(ObjectType::Blob, &bytes) {
            self.ids.borrow_mut().insert(path.to_owned(), id);
        }
        Ok(Some(bytes))
    }

    fn blob_id(&self, path: &str) -> Result<Option<Oid>, ExtractError> {
        Ok(self.ids.borrow().get(path).copied())
    }

    /// An id made from the directory's path: a package version's directory never changes, so the module
    /// trees mounted under it are shared by every revision of a check.
    fn dir_id(&self, path: &str) -> Result<DirId, ExtractError> {
        if !Path::new(path).is_dir() {
            return Ok(DirId::Missing);
        }
        Ok(Oid::hash_object(
            ObjectType::Blob,
            format!("dependency directory {path}").as_bytes(),
        )
        .map_or(DirId::Unknown, DirId::Tree))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    use super::{CargoLocator, enabled_features, vendor_directory};
    use crate::extract::{CrateSource, ExternalCrate, Locate};

    fn krate(package: &str, version: &str, source: &str) -> ExternalCrate {
        ExternalCrate {
            package: package.to_owned(),
            version: version.to_owned(),
            source: source.to_owned(),
            path: None,
            requested_features: BTreeSet::new(),
            default_features: true,
            deps: BTreeMap::new(),
        }
    }

    fn package(dir: &Path, name: &str, version: &str, extra: &str) {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\n{extra}"),
        )
        .unwrap();
        std::fs::write(dir.join("src/lib.rs"), "pub struct A;\n").unwrap();
    }

    fn root_file(locator: &CargoLocator, krate: &ExternalCrate) -> Option<String> {
        match locator.locate(krate).source {
            CrateSource::Files { root_file, .. } => Some(root_file),
            CrateSource::Revision { root_file } => Some(format!("revision:{root_file}")),
            CrateSource::Missing { .. } => None,
        }
    }

    const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

    #[test]
    fn registry_sources_by_name_and_version() {
        let home = tempfile::tempdir().unwrap();
        let index = home
            .path()
            .join("registry/src/index.crates.io-1949cf8c6b5b557f");
        package(
            &index.join("url-2.5.0"),
            "url",
            "2.5.0",
            "[lib]\npath = \"src/url.rs\"\n",
        );
        let locator = CargoLocator::with_cargo_home(Path::new("/nowhere"), home.path().into());
        let found = root_file(&locator, &krate("url", "2.5.0", CRATES_IO)).unwrap();
        assert!(found.ends_with("url-2.5.0/src/url.rs"), "{found}");
        let missing = locator.locate(&krate("url", "2.4.0", CRATES_IO));
        let CrateSource::Missing { why } = missing.source else {
            panic!("2.4.0 is not on disk")
        };
        assert!(why.contains("registry/src"), "{why}");
        assert!(why.ends_with("`cargo fetch` brings it"), "{why}");
    }

    #[test]
    fn git_checkouts_by_repository_and_short_revision() {
        let home = tempfile::tempdir().unwrap();
        let checkout = home
            .path()
            .join("git/checkouts/wire-types-0123456789abcdef/abc1234");
        package(&checkout.join("crates/wtypes"), "wtypes", "0.1.0", "");
        package(&checkout.join("crates/other"), "other", "0.1.0", "");
        let locator = CargoLocator::with_cargo_home(Path::new("/nowhere"), home.path().into());
        let source = "git+https://github.com/acme/wire-types.git?branch=main#abc1234def5678";
        let found = root_file(&locator, &krate("wtypes", "0.1.0", source)).unwrap();
        assert!(
            found.ends_with("abc1234/crates/wtypes/src/lib.rs"),
            "{found}"
        );
        let elsewhere = "git+https://github.com/acme/wire-types.git#fff0000";
        assert_eq!(
            root_file(&locator, &krate("wtypes", "0.1.0", elsewhere)),
            None
        );
    }

    #[test]
    fn vendored_sources_replace_the_registry() {
        let workspace = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(workspace.path().join(".cargo")).unwrap();
        std::fs::write(
            workspace.path().join(".cargo/config.toml"),
            "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n[source.vendored-sources]\ndirectory = \"vendor\"\n",
        )
        .unwrap();
        package(&workspace.path().join("vendor/uuid"), "uuid", "1.8.0", "");
        package(
            &workspace.path().join("vendor/uuid-0.8.2"),
            "uuid",
            "0.8.2",
            "",
        );
        let locator = CargoLocator::with_cargo_home(workspace.path(), home.path().into());
        let newest = root_file(&locator, &krate("uuid", "1.8.0", CRATES_IO)).unwrap();
        assert!(newest.ends_with("vendor/uuid/src/lib.rs"), "{newest}");
        let older = root_file(&locator, &krate("uuid", "0.8.2", CRATES_IO)).unwrap();
        assert!(older.ends_with("vendor/uuid-0.8.2/src/lib.rs"), "{older}");
        assert_eq!(
            root_file(&locator, &krate("uuid", "1.0.0", CRATES_IO)),
            None
        );
        // What fills a vendor directory is `cargo vendor`, not `cargo fetch`.
        let CrateSource::Missing { why } =
            locator.locate(&krate("uuid", "1.0.0", CRATES_IO)).source
        else {
            panic!("uuid 1.0.0 is not vendored")
        };
        assert!(why.ends_with("`cargo vendor` brings it"), "{why}");
    }

    #[test]
    fn vendor_directory_of_a_config() {
        assert_eq!(
            vendor_directory("[source.crates-io]\nreplace-with = \"v\"\n[source.v]\ndirectory = \"third_party\"\n").as_deref(),
            Some("third_party")
        );
        assert_eq!(vendor_directory("[build]\njobs = 2\n"), None);
    }

    #[test]
    fn path_dependencies_inside_the_workspace_are_read_from_the_revision() {
        let home = tempfile::tempdir().unwrap();
        let locator = CargoLocator::with_cargo_home(Path::new("/ws"), home.path().into());
        let mut inside = krate("shared", "0.1.0", "");
        inside.path = Some("shared/src/lib.rs".to_owned());
        assert_eq!(
            root_file(&locator, &inside).as_deref(),
            Some("revision:shared/src/lib.rs")
        );
        let mut outside = krate("common", "0.1.0", "");
        outside.path = Some("../common/src/lib.rs".to_owned());
        assert_eq!(
            root_file(&locator, &outside).as_deref(),
            Some("/ws/../common/src/lib.rs")
        );
    }

    #[test]
    fn a_path_dependency_is_built_with_its_default_features() {
        let workspace = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(workspace.path().join("shared")).unwrap();
        std::fs::write(
            workspace.path().join("shared/Cargo.toml"),
            "[package]\nname = \"shared\"\nversion = \"0.1.0\"\n[lib]\npath = \"lib.rs\"\n[features]\ndefault = [\"serde\"]\nserde = []\n",
        )
        .unwrap();
        let locator = CargoLocator::with_cargo_home(workspace.path(), home.path().into());
        let mut shared = krate("shared", "0.1.0", "");
        shared.path = Some("shared/lib.rs".to_owned());
        let located = locator.locate(&shared);
        assert_eq!(
            located.features.into_iter().collect::<Vec<_>>(),
            ["default", "serde"]
        );
    }

    #[test]
    fn features_expand_through_the_manifest() {
        let manifest = "[package]\nname = \"x\"\nversion = \"1.0.0\"\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\", \"serde?/std\"]\nalloc = []\nserde = [\"dep:serde\"]\nderive = [\"serde/derive\"]\nextra = []\n";
        let mut wanted = krate("x", "1.0.0", CRATES_IO);
        let on = |k: &ExternalCrate| {
            enabled_features(manifest, k)
                .into_iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(on(&wanted), ["alloc", "default", "std"]);
        wanted.default_features = false;
        wanted.requested_features = ["derive".to_owned()].into();
        assert_eq!(on(&wanted), ["derive", "serde"]);
    }
}
