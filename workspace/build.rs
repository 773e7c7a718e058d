//! Gives the checker a fingerprint of its own source, `WIRECHECK_BUILD_ID`.
//!
//! The checker keeps the models it extracts at release commits on disk (`wirecheck::store`), keyed by
//! commit. A model depends on the extractor's code as much as on the commit, so a stored model may only be
//! reused by a build of the same code: the fingerprint covers the crate's version, the compiler and, in
//! wirecheck's repository, the source of every crate of the checker (`src/` of the `wirecheck` package
//! at the workspace's root and of each directory there whose package is a `wirecheck-*`: the driver,
//! the model, extraction, the engine, the grammar, the vocabulary, this crate, ...), found, not listed,
//! so that a stage split into a crate of its own stays covered. A published build has no workspace
//! around it: the `wirecheck-*` crates are pinned to one version, which the fingerprint covers.

use std::fs;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    // 64-bit FNV-1a: stable across Rust releases (unlike `DefaultHasher`), and enough to tell builds apart.
    let mut hash = fnv::FnvHasher::default();
    hash.write(env!("CARGO_PKG_VERSION").as_bytes());
    // The compiler too: the store names its files by what std's `Hash` impls write, which may change
    // between releases.
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() {
        hash.write(&out.stdout);
    }
    for dir in repository_crates(&manifest_dir) {
        if !dir.is_dir() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files = Vec::new();
        collect(&dir, &mut files);
        files.sort();
        for file in files {
            // Relative to the repository, so that every clone of one commit has one fingerprint.
            let root = manifest_dir.parent().unwrap_or(&manifest_dir);
            let rel = file.strip_prefix(root).unwrap_or(&file);
            hash.write(rel.to_string_lossy().as_bytes());
            hash.write(&[0]);
            hash.write(&fs::read(&file).unwrap_or_default());
            hash.write(&[0]);
        }
    }
    println!("cargo:rustc-env=WIRECHECK_BUILD_ID={:016x}", hash.finish());
}

/// The `src/` of every crate of the checker in wirecheck's repository: the root package's and those of
/// the directories beside this crate whose package is a `wirecheck-*`, sorted; none outside the
/// repository (a published crate unpacked among others: their directory holds no `[workspace]`).
fn repository_crates(manifest_dir: &Path) -> Vec<PathBuf> {
    let Some(root) = manifest_dir.parent() else {
        return Vec::new();
    };
    let root_manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    if !root_manifest
        .lines()
        .any(|line| line.trim() == "[workspace]")
    {
        return Vec::new();
    }
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| {
            let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            manifest
                .lines()
                .any(|line| line.trim_start().starts_with("name = \"wirecheck-"))
        })
        .map(|dir| dir.join("src"))
        .chain([root.join("src")])
        .collect();
    dirs.sort();
    dirs
}

/// Every file below `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
