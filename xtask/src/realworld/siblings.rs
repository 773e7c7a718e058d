//! A crate's siblings in the side-by-side build: packages of the same project released in lockstep with
//! it (`tendermint` beside `tendermint-rpc`, same version every release). Cargo links one version of a
//! package per semver range, so without this every `0.40.x` release of the crate would be decoded with
//! the newest `0.40.x` of its siblings, not with the ones it was released (and locked) with. Each
//! release's siblings are staged like the release, under a package name of their own, and the release's
//! dependencies on them point there.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use semver::Version;

use super::sources;
use super::spec::Spec;

/// Where a sibling's copy for `version` is staged under `dir`.
pub fn staged_dir(dir: &Path, sibling: &str, version: &Version) -> PathBuf {
    dir.join(sibling).join(version.to_string())
}

/// Stages every sibling of the spec at `version` under `dir` (unless an earlier run did): the published
/// source, renamed like a release ([`sources::alias_manifest`]), its own dependencies on siblings linked
/// the same way ([`link`]).
pub fn stage(spec: &Spec, version: &Version, dir: &Path) -> Result<()> {
    for sibling in &spec.siblings {
        let staged = staged_dir(dir, sibling, version);
        let done = staged.join(".realworld-staged");
        if done.is_file() {
            continue;
        }
        let source = sources::published_source(sibling, version)?;
        if staged.exists() {
            fs::remove_dir_all(&staged)?;
        }
        crate::files::copy_dir(&source, &staged, sources::NOT_COPIED)?;
        let manifest = sources::read_manifest(&source)?;
        let aliased = sources::alias_manifest(manifest, &Spec::alias_of(sibling, version))?;
        let mut manifest: toml::Table = aliased
            .parse()
            .with_context(|| format!("re-reading the staged manifest of {sibling} {version}"))?;
        link(&mut manifest, spec, version, dir);
        fs::write(staged.join("Cargo.toml"), toml::to_string(&manifest)?)?;
        fs::write(done, "")?;
    }
    Ok(())
}

/// Points `manifest`'s dependencies on the spec's siblings (normal, build, and per target) at their
/// copies for `version` staged under `dir`: the package renamed to the copy's, its path given, the
/// version requirement kept (cargo checks that the copy satisfies it).
pub fn link(manifest: &mut toml::Table, spec: &Spec, version: &Version, dir: &Path) {
    let mut tables: Vec<&mut toml::Table> = Vec::new();
    let (targets, others): (Vec<_>, Vec<_>) = manifest
        .iter_mut()
        .partition(|(key, _)| key.as_str() == "target");
    for (key, value) in others {
        if is_dependencies(key) {
            tables.extend(value.as_table_mut());
        }
    }
    for (_, target) in targets {
        let Some(target) = target.as_table_mut() else {
            continue;
        };
        for cfg in target.iter_mut().filter_map(|(_, cfg)| cfg.as_table_mut()) {
            for (key, value) in cfg.iter_mut() {
                if is_dependencies(key) {
                    tables.extend(value.as_table_mut());
                }
            }
        }
    }
    for table in tables {
        for (key, dependency) in table.iter_mut() {
            link_dependency(key, dependency, spec, version, dir);
        }
    }
}

fn is_dependencies(key: &str) -> bool {
    matches!(
        key,
        "dependencies" | "build-dependencies" | "build_dependencies"
    )
}

/// Rewrites one dependency when it names a sibling (by its key, or its `package` when renamed).
fn link_dependency(
    key: &str,
    dependency: &mut toml::Value,
    spec: &Spec,
    version: &Version,
    dir: &Path,
) {
    let package = match dependency {
        toml::Value::String(_) => key.to_owned(),
        toml::Value::Table(table) => table
            .get("package")
            .and_then(toml::Value::as_str)
            .unwrap_or(key)
            .to_owned(),
        _ => return,
    };
    if !spec.siblings.contains(&package) {
        return;
    }
    if let toml::Value::String(requirement) = dependency {
        let mut table = toml::Table::new();
        table.insert("version".into(), requirement.clone().into());
        *dependency = table.into();
    }
    let Some(table) = dependency.as_table_mut() else {
        return;
    };
    let path = staged_dir(dir, &package, version);
    table.insert("package".into(), Spec::alias_of(&package, version).into());
    table.insert("path".into(), path.display().to_string().into());
    table.remove("registry");
}
