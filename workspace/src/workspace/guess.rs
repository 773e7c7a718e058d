//! The workspace's crates as `cargo metadata` will probably give them, guessed from the manifests alone
//! while it runs: a cold check's main thread otherwise waits for its answer (about 40 ms, 7% of a cold
//! check at 2,000 messages) with the second core idle. The guess starts the working tree's read-ahead
//! early; cargo's answer stays the truth, and the extraction takes the read-ahead only when the guess
//! named the same workspace root and crate roots (`EarlyReadAhead::take_if`). A wrong guess costs the
//! files read ahead, never a verdict, so the guess covers the common layouts, not all of cargo's rules:
//! members listed or matched by glob patterns, the root package, `[lib]` and `[[bin]]` paths, and the
//! library and binaries cargo finds by itself.

use std::path::{Path, PathBuf};

use toml::Table;

use crate::extract::EarlyReadAhead;

/// A workspace root and its library and binary crates' root files (paths from the root, `/`-separated),
/// as guessed.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Guess {
    pub(super) root: PathBuf,
    pub(super) crate_roots: Vec<String>,
}

/// Starts reading the working tree ahead, from a guess of the workspace of `manifest_path` (else the one
/// around the current directory), when the check is likely to be cold: unless a store of this build is
/// already under the target directory the guess names (a warm check reads few files; `no_store`: there
/// is none to use). `None` when nothing can be guessed.
pub fn read_ahead(manifest_path: Option<&Path>, no_store: bool) -> Option<EarlyReadAhead> {
    let guess = guess(&std::env::current_dir().ok()?, manifest_path)?;
    if !no_store && crate::store::exists_under(&target_dir(&guess.root)) {
        return None;
    }
    EarlyReadAhead::start(&guess.root, guess.crate_roots)
}

/// The target directory cargo uses for the workspace at `root`, unless its configuration says otherwise
/// (then the guess is wrong, and a warm check reads ahead for nothing).
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::env::current_dir()
            .map(|cwd| cwd.join(&dir))
            .unwrap_or_else(|_| PathBuf::from(dir)),
        None => root.join("target"),
    }
}

/// The workspace of `manifest_path` (else around `cwd`, the current directory) and the crates of its
/// members (all of them: `-p` selects protocols, not the crates read); `None` when its manifests cannot
/// be read as expected.
pub(super) fn guess(cwd: &Path, manifest_path: Option<&Path>) -> Option<Guess> {
    let nearest = match manifest_path {
        Some(path) => cwd.join(path),
        None => cwd
            .ancestors()
            .map(|dir| dir.join("Cargo.toml"))
            .find(|path| path.is_file())?,
    };
    let (root, manifest) = workspace_root(&nearest)?;
    let mut crate_roots = Vec::new();
    for member in members(&root, &manifest) {
        let manifest = if member == root {
            manifest.clone()
        } else {
            read_manifest(&member.join("Cargo.toml"))?
        };
        let package = manifest.get("package")?.as_table()?;
        let relative = member.strip_prefix(&root).ok()?;
        for file in crate_files(&member, package, &manifest) {
            crate_roots.push(super::slash_path(&relative.join(file)));
        }
    }
    crate_roots.sort();
    crate_roots.dedup();
    Some(Guess { root, crate_roots })
}

/// The workspace root of the package whose manifest is `nearest`, with the root's manifest: the first
/// directory from there up whose manifest has `[workspace]`, else the package's own. `None` when a
/// manifest does not parse, or the package names its root (`package.workspace`, not followed).
fn workspace_root(nearest: &Path) -> Option<(PathBuf, Table)> {
    let nearest_manifest = read_manifest(nearest)?;
    let nearest_dir = nearest.parent()?;
    if nearest_manifest
        .get("package")
        .and_then(|package| package.get("workspace"))
        .is_some()
    {
        return None;
    }
    if nearest_manifest.contains_key("workspace") {
        return Some((nearest_dir.to_path_buf(), nearest_manifest));
    }
    let above = nearest_dir.ancestors().skip(1).find_map(|dir| {
        let manifest = read_manifest(&dir.join("Cargo.toml"))?;
        manifest
            .contains_key("workspace")
            .then(|| (dir.to_path_buf(), manifest))
    });
    Some(above.unwrap_or_else(|| (nearest_dir.to_path_buf(), nearest_manifest)))
}

/// The manifest at `path`, parsed; `None` when there is none or it does not parse.
fn read_manifest(path: &Path) -> Option<Table> {
    std::fs::read_to_string(path).ok()?.parse().ok()
}

/// The member directories of the workspace at `root` whose manifest is `manifest`: the root package,
/// and the `members` (each a path, or a pattern whose segments may hold `*`, `?` and `[...]`) but the
/// `exclude`d.
fn members(root: &Path, manifest: &Table) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if manifest.contains_key("package") {
        found.push(root.to_path_buf());
    }
    let workspace = manifest.get("workspace").and_then(toml::Value::as_table);
    let list = |key: &str| -> Vec<&str> {
        workspace
            .and_then(|workspace| workspace.get(key))
            .and_then(toml::Value::as_array)
            .map(|values| values.iter().filter_map(toml::Value::as_str).collect())
            .unwrap_or_default()
    };
    let excluded: Vec<PathBuf> = list("exclude").iter().map(|path| root.join(path)).collect();
    for pattern in list("members") {
        for dir in expand(root, pattern) {
            if dir.join("Cargo.toml").is_file() && !excluded.iter().any(|e| dir.starts_with(e)) {
                found.push(dir);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The directories below `root` that `pattern` matches, segment by segment.
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    for segment in pattern.split('/').filter(|s| !s.is_empty() && *s != ".") {
        dirs = dirs
            .into_iter()
            .flat_map(|dir| {
                if !segment.contains(['*', '?', '[']) {
                    return vec![dir.join(segment)];
                }
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    return Vec::new();
                };
                entries
                    .filter_map(Result::ok)
                    .filter(|entry| entry.path().is_dir())
                    .filter(|entry| {
                        entry
                            .file_name()
                            .to_str()
                            .is_some_and(|name| matches(segment, name))
                    })
                    .map(|entry| entry.path())
                    .collect()
            })
            .collect();
    }
    dirs
}

/// Whether `name` matches the glob segment `pattern` as cargo matches members: a `glob::Pattern` with
/// its default options (`*`, `?`, `[...]` and `[!...]` classes); an invalid pattern matches nothing
/// (cargo rejects it).
fn matches(pattern: &str, name: &str) -> bool {
    glob::Pattern::new(pattern).is_ok_and(|pattern| pattern.matches(name))
}

/// The root files (from `dir`, the package's directory) of the package's library and binaries: the
/// ones its manifest names, and the ones cargo finds by itself unless told not to; a binary named like
/// the library is left out, as the workspace leaves it out of the crates it reads.
fn crate_files(dir: &Path, package: &Table, manifest: &Table) -> Vec<String> {
    let name = package.get("name").and_then(toml::Value::as_str);
    let lib = library_file(dir, package, manifest);
    let lib_name = lib.as_ref().and(
        manifest
            .get("lib")
            .and_then(|lib| lib.get("name"))
            .and_then(toml::Value::as_str)
            .or(name),
    );
    let crate_name = |name: &str| name.replace('-', "_");
    lib.into_iter()
        .chain(
            binaries(dir, package, manifest)
                .into_iter()
                .filter(|(bin_name, _)| {
                    lib_name.is_none_or(|lib| {
                        bin_name.as_deref().map(crate_name) != Some(crate_name(lib))
                    })
                })
                .map(|(_, file)| file),
        )
        .collect()
}

/// The root file of the package's library, if it has one.
fn library_file(dir: &Path, package: &Table, manifest: &Table) -> Option<String> {
    let auto = package.get("autolib").and_then(toml::Value::as_bool) != Some(false);
    match manifest
        .get("lib")
        .and_then(|lib| lib.get("path"))
        .and_then(toml::Value::as_str)
    {
        Some(path) => Some(path.to_owned()),
        None if (manifest.contains_key("lib") || auto) && dir.join("src/lib.rs").is_file() => {
            Some("src/lib.rs".to_owned())
        }
        None => None,
    }
}

/// The package's binaries, each with its name (when known) and root file.
fn binaries(dir: &Path, package: &Table, manifest: &Table) -> Vec<(Option<String>, String)> {
    let auto = |key: &str| package.get(key).and_then(toml::Value::as_bool) != Some(false);
    let exists = |file: &str| dir.join(file).is_file();
    let name = package.get("name").and_then(toml::Value::as_str);
    let mut files = Vec::new();
    for bin in manifest
        .get("bin")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = bin.get("path").and_then(toml::Value::as_str);
        let bin_name = bin.get("name").and_then(toml::Value::as_str);
        let inferred = bin_name.and_then(|bin_name| {
            [
                format!("src/bin/{bin_name}.rs"),
                format!("src/bin/{bin_name}/main.rs"),
            ]
            .into_iter()
            .chain((Some(bin_name) == name).then(|| "src/main.rs".to_owned()))
            .find(|file| exists(file))
        });
        if let Some(file) = path.map(str::to_owned).or(inferred) {
            files.push((bin_name.map(str::to_owned), file));
        }
    }
    if auto("autobins") {
        if exists("src/main.rs") {
            files.push((name.map(str::to_owned), "src/main.rs".to_owned()));
        }
        files.extend(auto_bins(dir).into_iter().map(|file| {
            let bin_name = file
                .trim_start_matches("src/bin/")
                .trim_end_matches("/main.rs")
                .trim_end_matches(".rs")
                .to_owned();
            (Some(bin_name), file)
        }));
    }
    files
}

/// The binaries cargo finds in `src/bin`: `name.rs`, and `name/main.rs`.
fn auto_bins(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("src/bin")) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let path = entry.path();
            if path.is_file() && name.ends_with(".rs") {
                Some(format!("src/bin/{name}"))
            } else if path.join("main.rs").is_file() {
                Some(format!("src/bin/{name}/main.rs"))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
