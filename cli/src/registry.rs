//! Registry baselines: `wirecheck check --against-registry [VERSION]` compares the working tree with the
//! sources of a published release of its packages, as their users get them from the package registry
//! (which may differ from any tag: a release branch, a published patch).
//!
//! Cargo fetches the package: a probe project under `<target-dir>/wirecheck/registry/` depends on it
//! (`=VERSION`, or `<CURRENT` for the highest published version below the workspace's own, pre-releases
//! left out as cargo leaves them out), and `cargo metadata`, run from the workspace root so that its
//! `.cargo/config.toml` (a source replacement, a vendored directory, an alternative registry, a
//! `[patch]`) applies, names the directory cargo unpacked it to. Its model is extracted from there like a working tree, with
//! the dependency versions of its published `Cargo.lock` where it has one.

use std::path::{Path, PathBuf};

use semver::Version;

use crate::model::Snapshot;
use crate::workspace::{Workspace, WorkspaceError};

/// A published package, fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The package's name.
    pub package: String,
    /// The version cargo resolved.
    pub version: Version,
    /// Its `Cargo.toml`, where cargo unpacked it.
    pub manifest: PathBuf,
    /// The `Cargo.lock` cargo resolved for the probe depending on it: the versions of its dependencies
    /// its users get.
    pub resolved_lock: PathBuf,
}

/// Why a registry baseline could not be read (exit code 2). Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The workspace could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The probe project could not be written.
    #[error("cannot write {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// Cargo could not resolve or fetch the package.
    #[error(
        "cargo could not fetch `{package}` {requirement} from its registry: {message}. Check that such a version is published (cargo info {package}), the network, or the source replacement in .cargo/config.toml"
    )]
    Fetch {
        /// The package.
        package: String,
        /// The version requirement asked (`=0.87.0`, `<0.88.0`).
        requirement: String,
        /// Cargo's message.
        message: String,
    },
    /// No package to fetch.
    #[error(
        "no workspace package declares a protocol under its own name: name the published package that does with -p"
    )]
    NoPackage,
    /// The published sources could not be read.
    #[error(
        "cannot read the published `{package}` {version} ({path}): {message}. Compare with a release tag instead (--against TAG)"
    )]
    Extract {
        /// The package.
        package: String,
        /// Its version.
        version: Version,
        /// Where cargo unpacked it.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// The packages `--against-registry` fetches: those named with `-p`, else every member whose library
/// crate (its name, `-` as `_`) declares a protocol of `current`; each with its version in the workspace.
pub fn packages(
    workspace: &Workspace,
    named: &[String],
    current: &Snapshot,
) -> Result<Vec<(String, Version)>, RegistryError> {
    let metadata = cargo_metadata::MetadataCommand::new()
        .no_deps()
        .manifest_path(workspace.root.join("Cargo.toml"))
        .exec()
        .map_err(|e| WorkspaceError::Metadata(e.to_string()))?;
    let declares = |package: &str| {
        let prefix = format!("{}::", package.replace('-', "_"));
        (current.protocols.iter()).any(|p| p.rust_path.starts_with(&prefix))
    };
    let found: Vec<(String, Version)> = metadata
        .workspace_packages()
        .into_iter()
        .filter(|p| match named.is_empty() {
            true => declares(p.name.as_str()),
            false => named.iter().any(|n| n == p.name.as_str()),
        })
        .map(|p| (p.name.to_string(), p.version.clone()))
        .collect();
    if found.is_empty() {
        return Err(RegistryError::NoPackage);
    }
    Ok(found)
}

/// The published `package` at `version` (else the highest below `current`), fetched by cargo through a
/// probe project in `target_dir`, cargo's configuration read from `workspace_root`.
pub fn fetch(
    (package, current): (&str, &Version),
    version: Option<&Version>,
    target_dir: &Path,
    workspace_root: &Path,
) -> Result<Published, RegistryError> {
    let requirement = match version {
        Some(version) => format!("={version}"),
        None => format!("<{current}"),
    };
    let probe = target_dir.join("wirecheck/registry").join(package);
    write_probe(&probe, package, &requirement)?;
    let fetch_error = |message: String| RegistryError::Fetch {
        package: package.to_owned(),
        requirement: requirement.clone(),
        message,
    };
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(probe.join("Cargo.toml"))
        .current_dir(workspace_root)
        .exec()
        .map_err(|e| fetch_error(e.to_string().trim_end().to_owned()))?;
    // The probe's one dependency: from the registry, or from where the configuration's `[patch]` or
    // source replacement puts it (a patched package has no source), as every build of the workspace
    // takes it.
    let probe_id = metadata.resolve.as_ref().and_then(|r| r.root.as_ref());
    let found = (metadata.packages.iter())
        .find(|p| p.name.as_str() == package && Some(&p.id) != probe_id)
        .ok_or_else(|| fetch_error("cargo resolved no such package".to_owned()))?;
    Ok(Published {
        package: package.to_owned(),
        version: found.version.clone(),
        manifest: found.manifest_path.clone().into_std_path_buf(),
        resolved_lock: probe.join("Cargo.lock"),
    })
}

/// Writes the probe project: a library depending on `package` at `requirement`, a workspace of its own,
/// without the lock file of an earlier run (the highest version is resolved again).
fn write_probe(probe: &Path, package: &str, requirement: &str) -> Result<(), RegistryError> {
    let manifest = format!(
        "[package]\nname = \"wirecheck-registry-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\npath = \"lib.rs\"\n\n[dependencies]\n{} = \"{requirement}\"\n\n[workspace]\n",
        toml_key(package)
    );
    let io = |path: &Path, e: std::io::Error| RegistryError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(probe).map_err(|e| io(probe, e))?;
    let _ = std::fs::remove_file(probe.join("Cargo.lock"));
    for (name, text) in [("Cargo.toml", manifest.as_str()), ("lib.rs", "")] {
        let path = probe.join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    Ok(())
}

/// A package name as a TOML key (quoted: cargo's names are letters, digits, `-` and `_`).
fn toml_key(name: &str) -> String {
    format!("\"{}\"", name.replace(['\\', '"'], ""))
}

/// The model of the published package, extracted from where cargo unpacked it, with the working tree's
/// `options` (features, declared shapes). Its dependencies are those of its published `Cargo.lock`,
/// else of the lock cargo resolved for it; their sources are found where cargo, configured at
/// `workspace_root`, put them.
pub fn model(
    published: &Published,
    options: &crate::extract::ExtractOptions,
    workspace_root: &Path,
) -> Result<Snapshot, RegistryError> {
    let error = |message: String| RegistryError::Extract {
        package: published.package.clone(),
        version: published.version.clone(),
        path: published.manifest.display().to_string(),
        message,
    };
    let mut workspace =
        Workspace::load(Some(&published.manifest), &[]).map_err(|e| error(e.to_string()))?;
    workspace.options = options.clone();
    workspace.fetched_as_configured_at(workspace_root);
    if !workspace.root.join("Cargo.lock").is_file() {
        let resolved = std::fs::read_to_string(&published.resolved_lock)
            .map_err(|e| error(format!("{}: {e}", published.resolved_lock.display())))?;
        let version = published.version.to_string();
        workspace.with_resolved_lock(resolved, &published.package, &version);
    }
    workspace
        .current_snapshot()
        .map_err(|e| error(e.to_string()))
}
