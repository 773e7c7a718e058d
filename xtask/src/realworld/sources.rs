//! Published sources: each release brought by cargo from the registry into its source cache, copied into
//! the side-by-side build under a package name of its own, and committed (with the annotations injected)
//! into the scratch git repository the checks read.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, anyhow, bail};
use semver::Version;

use super::siblings;
use super::spec::{self, Spec};
use crate::files::copy_dir;

/// The unpacked source of `krate` `version` in cargo's registry source cache, if it is there (cargo writes
/// `.cargo-ok` once a package is unpacked).
fn cached_source(krate: &str, version: &Version) -> Result<Option<PathBuf>> {
    // Cargo's home as cargo finds it (`CARGO_HOME`, else `.cargo` in the user's home directory).
    let home = home::cargo_home().context("finding cargo's home directory")?;
    let src = home.join("registry").join("src");
    let Ok(entries) = fs::read_dir(&src) else {
        return Ok(None);
    };
    let mut registries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    registries.sort();
    Ok(registries
        .into_iter()
        .filter(|r| {
            r.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("index.crates.io-"))
        })
        .map(|r| r.join(format!("{krate}-{version}")))
        .find(|dir| dir.join(".cargo-ok").is_file()))
}

/// The published source of `krate` `version`: from cargo's source cache, after `cargo info
/// krate@version` has brought it there when it is not yet (cargo downloads and unpacks the package).
pub fn published_source(krate: &str, version: &Version) -> Result<PathBuf> {
    if let Some(dir) = cached_source(krate, version)? {
        return Ok(dir);
    }
    let output = Command::new(cargo())
        .args(["info", "--quiet", &format!("{krate}@{version}")])
        .current_dir(std::env::temp_dir())
        .output()
        .context("running cargo info")?;
    if !output.status.success() {
        bail!(
            "cargo info {krate}@{version} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    cached_source(krate, version)?.ok_or_else(|| {
        anyhow!("cargo info {krate}@{version} ran, but the source is not in cargo's registry source cache")
    })
}

/// The cargo that runs the xtask (`$CARGO`), else `cargo`.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

/// What a copy of a published source leaves out: cargo's `.cargo-ok` marker, build output and git data.
pub const NOT_COPIED: &[&str] = &[".cargo-ok", "target", ".git"];

/// The crate root of a published package, relative to it (`src/lib.rs` unless `[lib] path` says
/// otherwise).
pub fn lib_root(manifest: &toml::Table) -> String {
    manifest
        .get("lib")
        .and_then(|lib| lib.get("path"))
        .and_then(|p| p.as_str())
        .unwrap_or("src/lib.rs")
        .replace('\\', "/")
}

/// Reads a package's `Cargo.toml`.
pub fn read_manifest(dir: &Path) -> Result<toml::Table> {
    let path = dir.join("Cargo.toml");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.parse::<toml::Table>()
        .with_context(|| format!("parsing {}", path.display()))
}

/// The manifest of a release in the side-by-side build: the package renamed to `alias` (so cargo links
/// every release, even two of one semver range), its library named after it, and nothing but the
/// library (no tests, benches, examples, binaries or dev-dependencies, whose files a package may not
/// ship).
pub fn alias_manifest(mut manifest: toml::Table, alias: &str) -> Result<String> {
    let package = manifest
        .get_mut("package")
        .and_then(|p| p.as_table_mut())
        .ok_or_else(|| anyhow!("the manifest has no [package]"))?;
    package.insert("name".into(), alias.into());
    for key in [
        "autotests",
        "autobenches",
        "autoexamples",
        "autobins",
        "autolib",
    ] {
        package.remove(key);
    }
    for key in ["autotests", "autobenches", "autoexamples", "autobins"] {
        package.insert(key.into(), false.into());
    }
    package.remove("workspace");
    if let Some(lib) = manifest.get_mut("lib").and_then(|l| l.as_table_mut()) {
        lib.remove("name");
    }
    for key in [
        "test",
        "bench",
        "example",
        "bin",
        "dev-dependencies",
        "dev_dependencies",
        "workspace",
    ] {
        manifest.remove(key);
    }
    Ok(toml::to_string(&manifest)?)
}

/// Copies the release into `dir` (the side-by-side build's copy) unless an earlier run did, with
/// [`alias_manifest`]; the spec's siblings at the release's version are staged under `siblings_dir` and
/// linked to it ([`siblings`]).
pub fn stage_alias(
    spec: &Spec,
    version: &Version,
    source: &Path,
    dir: &Path,
    siblings_dir: &Path,
) -> Result<()> {
    let done = dir.join(".realworld-staged");
    if done.is_file() {
        return Ok(());
    }
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    copy_dir(source, dir, NOT_COPIED)?;
    let manifest = read_manifest(source)?;
    let mut manifest: toml::Table = alias_manifest(manifest, &spec.alias_package(version))?
        .parse()
        .context("re-reading the staged manifest")?;
    if !spec.siblings.is_empty() {
        siblings::stage(spec, version, siblings_dir)?;
        siblings::link(&mut manifest, spec, version, siblings_dir);
    }
    fs::write(dir.join("Cargo.toml"), toml::to_string(&manifest)?)?;
    fs::write(done, "")?;
    Ok(())
}

/// The manifest committed to the replay's repository: the published one, with a `[workspace]` of its own
/// when it has none, and without its `[[bin]]` targets when the spec says `without_bins` (the manifest is
/// then re-written from its table: cargo's normalized manifest loses nothing but its comments).
pub fn replay_manifest(spec: &Spec, source: &Path, manifest: &toml::Table) -> Result<String> {
    if spec.without_bins && manifest.contains_key("bin") {
        let mut manifest = manifest.clone();
        manifest.remove("bin");
        manifest
            .entry("workspace")
            .or_insert_with(|| toml::Table::new().into());
        return Ok(toml::to_string(&manifest)?);
    }
    let mut cargo_toml = fs::read_to_string(source.join("Cargo.toml"))?;
    if !manifest.contains_key("workspace") {
        cargo_toml.push_str("\n[workspace]\n");
    }
    Ok(cargo_toml)
}

/// The scratch git repository of a crate's replay: one commit and tag (`v<version>`) per release.
pub struct Repo {
    /// The repository's working tree.
    pub dir: PathBuf,
    commits: u64,
}

/// One release as committed: the messages the injection found and those the release lacks.
pub struct Committed {
    /// The release.
    pub version: Version,
    /// The messages declared (by path, [`spec::MessageSpec::plain_path`]).
    pub injected: Vec<String>,
    /// The messages the release does not declare, by path.
    pub missing: Vec<String>,
}

impl Repo {
    /// A new, empty repository at `dir` (anything there before is removed).
    pub fn create(dir: &Path) -> Result<Repo> {
        if dir.exists() {
            fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        fs::create_dir_all(dir)?;
        let repo = Repo {
            dir: dir.to_path_buf(),
            commits: 0,
        };
        repo.git(&["init", "--quiet"])?;
        Ok(repo)
    }

    /// Runs git in the repository, isolated from the user's configuration, with fixed dates so that the
    /// same releases give the same commits.
    pub fn git(&self, args: &[&str]) -> Result<String> {
        let date = format!("@{} +0000", 1_577_836_800 + self.commits * 86_400);
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=wirecheck realworld replay",
                "-c",
                "user.email=replay@wirecheck.invalid",
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "tag.gpgSign=false",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.autocrlf=false",
            ])
            .args(args)
            .current_dir(&self.dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .context("running git (is it installed?)")?;
        if !output.status.success() {
            bail!(
                "git {} failed in {}: {}",
                args.join(" "),
                self.dir.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Empties the working tree (all but `.git` and `target`).
    fn clear(&self) -> Result<()> {
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name == ".git" || name == "target" {
                continue;
            }
            if entry.file_type()?.is_dir() {
                fs::remove_dir_all(entry.path())?;
            } else {
                fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }

    /// Commits the release: its published source, the annotations injected, a `[workspace]` of its own
    /// (the scratch directory is inside this repository's workspace) and the `Cargo.lock` cargo resolves
    /// for it (kept in `locks` across runs), then tags it `v<version>`.
    pub fn commit_release(
        &mut self,
        spec: &Spec,
        version: &Version,
        source: &Path,
        locks: &Path,
    ) -> Result<Committed> {
        self.clear()?;
        copy_dir(source, &self.dir, NOT_COPIED)?;
        let manifest = read_manifest(source)?;
        let injection = spec::inject(spec, version, source, &lib_root(&manifest))?;
        for (file, text) in &injection.files {
            fs::write(self.dir.join(file), text)?;
        }
        fs::write(
            self.dir.join("Cargo.toml"),
            replay_manifest(spec, source, &manifest)?,
        )?;
        if let Some(config) = spec.wirecheck_toml() {
            fs::write(self.dir.join("wirecheck.toml"), config)?;
        }
        self.write_lock(version, locks);
        self.git(&["add", "--all", "--force", "--", ".", ":!target"])?;
        let message = format!(
            "{} {version} as published, annotations injected",
            spec.krate
        );
        self.git(&["commit", "--quiet", "--allow-empty", "--message", &message])?;
        self.git(&["tag", &format!("v{version}")])?;
        self.commits += 1;
        Ok(Committed {
            version: version.clone(),
            injected: injection.injected,
            missing: injection.missing,
        })
    }

    /// Writes the release's `Cargo.lock` and has cargo bring the sources it locks into its registry source
    /// cache (`cargo fetch`), where a checker that follows types into dependencies finds them. The lock is
    /// the published one, else the one kept from an earlier run in `locks`, else the one cargo generates
    /// (offline first, from the index cargo already has; then online). Without one the release is committed
    /// without a lock file, and without the fetch the dependencies' sources may be missing (a warning says
    /// which).
    fn write_lock(&self, version: &Version, locks: &Path) {
        let kept = locks.join(format!("{version}.lock"));
        let lock = self.dir.join("Cargo.lock");
        let manifest = self.dir.join("Cargo.toml");
        if !(lock.is_file() || (kept.is_file() && fs::copy(&kept, &lock).is_ok())) {
            let generated = [true, false].into_iter().any(|offline| {
                let mut command = Command::new(cargo());
                command
                    .args(["generate-lockfile", "--quiet", "--manifest-path"])
                    .arg(&manifest);
                if offline {
                    command.arg("--offline");
                }
                command.output().is_ok_and(|o| o.status.success())
            });
            if !generated {
                eprintln!("warning: no Cargo.lock for {version}: cargo generate-lockfile failed");
                return;
            }
        }
        let fetched = locks.join(format!("{version}.fetched"));
        if !fetched.is_file() {
            let ok = Command::new(cargo())
                .args(["fetch", "--quiet", "--manifest-path"])
                .arg(&manifest)
                .output()
                .is_ok_and(|o| o.status.success());
            if ok && fs::create_dir_all(locks).is_ok() {
                let _ = fs::write(&fetched, "");
            } else if !ok {
                eprintln!(
                    "warning: cargo fetch failed for {version}: its dependencies' sources may be missing"
                );
            }
        }
        if !kept.is_file() && fs::create_dir_all(locks).is_ok() {
            let _ = fs::copy(&lock, &kept);
        }
    }
}
