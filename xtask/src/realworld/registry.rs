//! `cargo xtask realworld --registry`: every pair checked a second time with the older release as a
//! registry baseline (`wirecheck check --against-registry OLD`), and the verdicts compared with the
//! tag's.
//!
//! Cargo resolves the older release through the real registry's index, at the version asked, and the
//! probe's lock (the dependency versions its users get, when the package publishes none) from the real
//! registry too. The package itself carries no wirecheck annotations as published, so its source is
//! patched (`[patch.crates-io]` in the replay repository's `.cargo/config.toml`, for the check only) with
//! the published source and the spec's annotations injected, exactly what the tag holds but for the
//! replay's own additions (a `[workspace]` table, a generated `Cargo.lock`). Against the tag
//! (`--against vOLD --baseline-only`, the registry baseline having no older releases), the two checks
//! must agree on every verdict; a difference is printed, with both sides' findings.

use std::fs;
use std::path::Path;

use anyhow::{Context as _, Result, anyhow};
use semver::Version;
use serde_json::Value;
use wirecheck::check::CheckOptions;
use wirecheck::report::{OutputFormat, render};

use super::sources::{self, NOT_COPIED, Repo};
use super::spec::{self, Spec};
use crate::files::copy_dir;

/// What the registry replay of one crate found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RegistryTotals {
    /// Pairs checked against the registry.
    pub pairs: usize,
    /// Pairs whose verdicts are the tag's.
    pub same: usize,
}

impl RegistryTotals {
    /// Adds another crate's counts.
    pub fn add(&mut self, other: &RegistryTotals) {
        self.pairs += other.pairs;
        self.same += other.same;
    }

    /// `registry: pairs=… same=… differ=…`.
    pub fn line(&self) -> String {
        format!(
            "registry: pairs={} same={} differ={}",
            self.pairs,
            self.same,
            self.pairs - self.same
        )
    }
}

/// Checks release `new` (checked out) against the published `old` (whose published source is
/// `old_source`), patched under `patches`, and against the tag of `old`; prints whether they agree.
pub fn check_pair(
    repo: &Repo,
    spec: &Spec,
    (old, old_source): (&Version, &Path),
    new: &Version,
    patches: &Path,
) -> Result<bool> {
    repo.git(&["checkout", "--quiet", "--force", &format!("v{new}")])?;
    let patch = annotated_copy(spec, old, old_source, patches)?;
    let config = repo.dir.join(".cargo/config.toml");
    fs::create_dir_all(repo.dir.join(".cargo"))?;
    fs::write(&config, patch_config(&spec.krate, &patch))?;
    let registry = check(CheckOptions {
        against_registry: Some(Some(old.clone())),
        ..options(repo)
    });
    // The patch is the registry check's alone: the tag's check reads the repository as committed.
    fs::remove_dir_all(repo.dir.join(".cargo"))?;
    let registry = registry.map_err(|e| anyhow!("{new} against the published {old}: {e}"))?;
    let tag = check(CheckOptions {
        against: Some(format!("v{old}")),
        baseline_only: true,
        ..options(repo)
    })
    .map_err(|e| anyhow!("{new} against v{old} (baseline only): {e}"))?;
    let same = verdicts(&registry) == verdicts(&tag);
    if same {
        println!(
            "{} {old} → {new} against the registry: the tag's verdicts ({})",
            spec.krate,
            summary(&registry)
        );
    } else {
        println!(
            "{} {old} → {new} against the registry: DIFFERENT verdicts\n  registry: {}\n  tag:      {}",
            spec.krate,
            verdicts(&registry),
            verdicts(&tag)
        );
    }
    Ok(same)
}

/// Where the annotated copies are written: outside this repository, whose `[workspace]` would otherwise
/// claim them (cargo: "current package believes it's in a workspace when it's not"), as the registry's
/// unpacked packages are outside every workspace.
pub fn patches() -> std::path::PathBuf {
    std::env::temp_dir().join("wirecheck-realworld-patches")
}

/// The options of a check of the replay repository's working tree.
fn options(repo: &Repo) -> CheckOptions {
    CheckOptions {
        manifest_path: Some(repo.dir.join("Cargo.toml")),
        tag_pattern: "v*".into(),
        ..CheckOptions::default()
    }
}

/// Runs a check, its report as JSON.
fn check(options: CheckOptions) -> Result<Value> {
    let report =
        wirecheck::check::check(&options, &mut wirecheck::cli::StderrProgress::for_check())
            .map_err(|e| anyhow!("the check could not run: {e}"))?;
    serde_json::from_str(&render(&report, OutputFormat::Json)).context("reading the JSON report")
}

/// The published source of `old` with the spec's annotations injected, under `patches` (rewritten each
/// run): its manifest and lock as published.
fn annotated_copy(
    spec: &Spec,
    old: &Version,
    source: &Path,
    patches: &Path,
) -> Result<std::path::PathBuf> {
    let dir = patches.join(format!("{}-{old}", spec.krate));
    if dir.exists() {
        fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    fs::create_dir_all(&dir)?;
    copy_dir(source, &dir, NOT_COPIED)?;
    let manifest = sources::read_manifest(source)?;
    let injection = spec::inject(spec, old, source, &sources::lib_root(&manifest))?;
    for (file, text) in &injection.files {
        fs::write(dir.join(file), text)?;
    }
    Ok(dir)
}

/// A cargo configuration that takes `krate` from `dir` wherever crates.io would give it.
fn patch_config(krate: &str, dir: &Path) -> String {
    let path = toml::Value::String(dir.display().to_string());
    format!("[patch.crates-io]\n\"{krate}\" = {{ path = {path} }}\n")
}

/// What a report decided, without the names of what it compared against (shared with the registry
/// tests).
#[path = "../../../tests/support/verdicts.rs"]
mod shared;
use shared::verdicts;

/// `proto: major, 3 findings; ...`.
fn summary(report: &Value) -> String {
    let protocols = report["protocols"].as_array().into_iter().flatten();
    protocols
        .map(|p| {
            let findings = p["findings"].as_array().map_or(0, Vec::len);
            format!(
                "{}: {}, {findings} finding(s)",
                p["name"].as_str().unwrap_or("?"),
                p["required_bump"].as_str().unwrap_or("?")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
