//! `cargo xtask recipe`: CONTRIBUTING.md's "Adding a rule", run as a test. In a scratch `git worktree`
//! of HEAD (under the target directory, removed afterwards) it follows the recipe's steps for a real rule
//! the catalogue does not have ([`patch::NAME`]): the scaffold of `cargo xtask new-rule`, the prepared
//! patch where a person writes (the catalogue entry, the fixture pair, the decision in its home), the
//! catalogue's test, the fixture test (the new `findings.snap` accepted, any other change failing), the
//! engine's unit tests, the witness test (`fixture-truth/`), `cargo fmt --check` and the architecture's
//! checks. It asserts that the rule fires on its fixture, that its witness decodes, and that the files
//! written by hand are at most [`MAX_HAND_EDITED`] (from `git status`; the files commands generate are
//! named by [`generated`]). The builds share the workspace's target directory (`--target-dir`): the
//! dependencies are not built again, only the workspace's crates the new rule changes.

mod patch;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};

use crate::architecture::{Layers, read_sources, rule_homes, rule_ids};

/// The files a new rule may need written by hand: CONTRIBUTING.md's promise.
pub const MAX_HAND_EDITED: usize = 4;

/// The files commands write for the rule `name` (not by hand): the accepted insta snapshot.
pub fn generated(name: &str) -> Vec<String> {
    vec![format!("tests/fixtures/{name}/findings.snap")]
}

/// `cargo xtask recipe`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    ensure!(args.is_empty(), "usage: cargo xtask recipe");
    let started = Instant::now();
    let root = crate::workspace_root();
    let target = target_dir(&root);
    let scratch = Scratch::add(&root, &target.join("recipe").join("worktree"))?;
    let hand_edited = follow(&scratch.path, &target)?;
    drop(scratch);
    println!(
        "recipe: `{}` added by CONTRIBUTING.md's steps in {:.0?}: {} files written by hand ({}), at most {MAX_HAND_EDITED}",
        patch::NAME,
        started.elapsed(),
        hand_edited.len(),
        hand_edited.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// The target directory of the workspace `root`: `CARGO_TARGET_DIR` (relative to `root`) or `target/`.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// Follows the recipe in the worktree `dir`, building into `target`; returns the files written by hand.
fn follow(dir: &Path, target: &Path) -> Result<Vec<String>> {
    let name = patch::NAME;
    step(&format!("1. cargo xtask new-rule {name}"));
    crate::new_rule::scaffold(dir, name)?;
    println!("{}", crate::new_rule::next_steps(name));
    step(
        "1-3. the catalogue entry, the fixture pair and the decision in its home (prepared patch)",
    );
    patch::apply(dir)?;
    step("1. the catalogue's test (no TODO left)");
    let catalogue_test = [
        "test",
        "-p",
        "wirecheck",
        "--all-features",
        "--lib",
        "--",
        "rules::",
    ];
    cargo(dir, Some(target), &catalogue_test, &[])?;
    step("4. cargo test --all-features --test compat_fixtures, its findings.snap accepted");
    let fixture_test = ["test", "--all-features", "--test", "compat_fixtures"];
    // `unseen`: the new fixture's snapshot is written (accepted); a changed one fails the test as usual.
    let accept_new = [("INSTA_UPDATE", "unseen")];
    cargo(dir, Some(target), &fixture_test, &accept_new)?;
    fires_on_its_fixture(dir, name)?;
    step("4. the engine's unit tests: no other verdict changed");
    let unit_tests = ["test", "-p", "wirecheck-compat", "--lib"];
    cargo(dir, Some(target), &unit_tests, &[])?;
    step("5. cargo test -p wirecheck-fixture-truth: the fixture's witnesses decoded");
    witness_decodes(dir, target, name)?;
    step("cargo fmt --all --check");
    cargo(dir, None, &["fmt", "--all", "--check"], &[])?;
    step("cargo xtask architecture (the rule's home is one file)");
    architecture(dir, name)?;
    hand_edited(dir, name)
}

/// The witness test of the fixture `name` in `dir` passes and prints a row of the rule `name`.
fn witness_decodes(dir: &Path, target: &Path, name: &str) -> Result<()> {
    let test = format!("witnesses_{name}");
    let args = [
        "test",
        "-p",
        "wirecheck-fixture-truth",
        "--test",
        "witnesses",
        "--",
    ];
    let args = [&args[..], &[&test, "--exact", "--nocapture"]].concat();
    let output = cargo(dir, Some(target), &args, &[])?;
    let row = format!("| {name} | {name} |");
    ensure!(
        output.lines().any(|line| line.starts_with(&row)),
        "no witness of `{name}` was decoded:\n{output}"
    );
    Ok(())
}

/// Prints the step that starts.
fn step(what: &str) {
    println!("\nrecipe: {what}");
}

/// Runs `cargo ARGS` in `dir` with `env`, building into `target` if any; returns its standard output (also
/// printed) and fails with its standard error when it fails.
fn cargo(dir: &Path, target: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
    // `--target-dir` is cargo's: it goes before a test binary's own arguments (after `--`).
    let (own, binary) = args.split_at(
        args.iter()
            .position(|arg| *arg == "--")
            .unwrap_or(args.len()),
    );
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(dir)
        .args(own)
        .args(
            target
                .map(|target| [Path::new("--target-dir"), target])
                .into_iter()
                .flatten(),
        )
        .args(binary)
        // The scratch worktree's crates are built once and thrown away: no incremental state for them.
        .env("CARGO_INCREMENTAL", "0")
        .envs(env.iter().copied())
        .output()
        .with_context(|| format!("running cargo {}", args.join(" ")))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    print!("{stdout}");
    if !output.status.success() {
        bail!(
            "cargo {} failed in {}:\n{}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(stdout)
}

/// The accepted snapshot of the fixture `name` in `dir` holds a finding of the rule `name`.
fn fires_on_its_fixture(dir: &Path, name: &str) -> Result<()> {
    let path = dir.join(&generated(name)[0]);
    let snapshot =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    ensure!(
        snapshot.contains(&format!("\"rule\": \"{name}\"")),
        "`{name}` does not fire on its fixture:\n{snapshot}"
    );
    Ok(())
}

/// `cargo xtask architecture`'s checks on the sources of `dir`, with the new rule `name` in the
/// catalogue (this xtask was built before it was written).
fn architecture(dir: &Path, name: &str) -> Result<()> {
    let files = read_sources(dir)?;
    let mut ids = rule_ids();
    ids.insert(name.to_owned());
    let mut violations: Vec<String> =
        crate::architecture::check(&files, &ids, &Layers::of_architecture(dir)?)
            .iter()
            .map(ToString::to_string)
            .collect();
    violations.extend(
        rule_homes::check(&files, &ids)
            .iter()
            .map(ToString::to_string),
    );
    ensure!(
        violations.is_empty(),
        "architecture:\n{}",
        violations.join("\n")
    );
    println!(
        "architecture: {} files within the limits, `{name}` decided in one file",
        files.len()
    );
    Ok(())
}

/// The files of `dir` that differ from HEAD (`git status`), less the generated ones; fails above
/// [`MAX_HAND_EDITED`].
fn hand_edited(dir: &Path, name: &str) -> Result<Vec<String>> {
    let status = git(dir, &["status", "--porcelain", "--untracked-files=all"])?;
    let generated = generated(name);
    let hand = written_by_hand(&status, &generated)?;
    println!(
        "written by hand: {}\ngenerated: {}",
        hand.join(", "),
        generated.join(", ")
    );
    ensure!(
        hand.len() <= MAX_HAND_EDITED,
        "adding `{name}` took {} files written by hand, more than {MAX_HAND_EDITED}: {}",
        hand.len(),
        hand.join(", ")
    );
    Ok(hand)
}

/// The paths of `git status --porcelain` output `status` that are not `generated`; fails when one of
/// `generated` is missing from it (the command that writes it did not run).
fn written_by_hand(status: &str, generated: &[String]) -> Result<Vec<String>> {
    // Each line is two status letters, a space and the path.
    let changed: Vec<&str> = status.lines().filter_map(|line| line.get(3..)).collect();
    for file in generated {
        ensure!(
            changed.contains(&file.as_str()),
            "the generated {file} was not written"
        );
    }
    Ok(changed
        .into_iter()
        .filter(|file| !generated.iter().any(|g| g == file))
        .map(str::to_owned)
        .collect())
}

/// Runs `git ARGS` in `dir`; returns its standard output.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    ensure!(
        output.status.success(),
        "git {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A scratch worktree of HEAD, removed when dropped.
struct Scratch {
    /// The repository it belongs to.
    root: PathBuf,
    /// The worktree.
    path: PathBuf,
    /// The lock on the worktree's place, which the operating system drops with the process.
    _lock: std::fs::File,
}

impl Scratch {
    /// Adds a detached worktree of HEAD at `path` (one left by an interrupted run is removed first).
    fn add(root: &Path, path: &Path) -> Result<Scratch> {
        let scratch = Scratch {
            root: root.to_path_buf(),
            path: path.to_path_buf(),
            _lock: lock(&path.with_extension("lock"))?,
        };
        scratch.remove();
        let at = path.to_string_lossy();
        git(
            root,
            &["worktree", "add", "--detach", "--force", &at, "HEAD"],
        )?;
        Ok(scratch)
    }

    /// Removes the worktree and git's record of it, whatever is left of either.
    fn remove(&self) {
        let at = self.path.to_string_lossy();
        let _ = git(&self.root, &["worktree", "remove", "--force", &at]);
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = git(&self.root, &["worktree", "prune"]);
    }
}

/// Holds the lock file at `path` (made if missing), or fails when another run holds it.
fn lock(path: &Path) -> Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "another `cargo xtask recipe` holds {}: wait for it to end",
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).context(format!("locking {}", path.display()))
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_files_are_not_counted_and_must_be_there() {
        let generated = generated("x");
        let status = " M vocab/src/rules.rs\n?? tests/fixtures/x/old/lib.rs\n?? tests/fixtures/x/findings.snap\n";
        assert_eq!(
            written_by_hand(status, &generated).unwrap(),
            ["vocab/src/rules.rs", "tests/fixtures/x/old/lib.rs"]
        );
        let missing = written_by_hand(" M vocab/src/rules.rs\n", &generated).unwrap_err();
        assert!(missing.to_string().contains("findings.snap"), "{missing}");
    }

    /// The prepared patch still applies to today's sources: a scratch copy of the files it edits,
    /// scaffolded and patched, parses and decides the rule.
    #[test]
    fn the_prepared_patch_applies_to_the_scaffold() {
        let root = crate::workspace_root();
        let dir = tempfile::tempdir().unwrap();
        for file in [crate::new_rule::CATALOGUE, patch::HOME] {
            let to = dir.path().join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(root.join(file), to).unwrap();
        }
        std::fs::create_dir_all(dir.path().join("tests/fixtures")).unwrap();
        crate::new_rule::scaffold(dir.path(), patch::NAME).unwrap();
        patch::apply(dir.path()).unwrap();
        let read = |file: &str| std::fs::read_to_string(dir.path().join(file)).unwrap();
        let catalogue = read(crate::new_rule::CATALOGUE);
        assert!(!catalogue.contains("TODO"), "the entry is filled in");
        let home = read(patch::HOME);
        assert!(home.contains("RuleId::BoolToInteger"));
        for file in [
            crate::new_rule::CATALOGUE.to_owned(),
            patch::HOME.to_owned(),
        ]
        .into_iter()
        .chain(["old", "new"].map(|side| format!("tests/fixtures/{}/{side}/lib.rs", patch::NAME)))
        {
            syn::parse_file(&read(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}
