//! This repository's own tasks: `cargo xtask check`, `cargo xtask demo`, `cargo xtask bench`,
//! `cargo xtask architecture`, `cargo xtask new-rule`, `cargo xtask recipe`, `cargo xtask realworld`.

mod architecture;
mod bench;
mod demo;
mod files;
mod history;
mod new_rule;
mod realworld;
mod recipe;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use wirecheck::cli::{Cli, Command};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  check [ARGS]        wirecheck this repository's protocols against its last release tag, or as a
                      first release while it has none (ARGS as for `wirecheck check`, e.g.
                      --format json, --against REV)
  demo [--markdown]   replay the history of the Flux protocols (examples/flux-protocols/history)
                      release by release; --markdown prints only the summary table
  bench [ARGS]        time wirecheck check on a synthetic workspace against the floor and cargo check
                      (see cargo xtask bench --help)
  architecture        check the limits ARCHITECTURE.md sets on src/ (function and file length,
                      import cycles, rule ids written only in the catalogue)
  realworld [ARGS]    replay the published histories of real crates (xtask/realworld/*.toml): check every
                      consecutive release pair, decode every witness with the releases' real types
                      (docs/realworld.md; --crate NAME, --no-decode)
  new-rule NAME       scaffold a rule: its catalogue entry, its fixture pair and its fixture test
                      (CONTRIBUTING.md, \"Adding a rule\")
  recipe              follow \"Adding a rule\" for a real rule in a scratch worktree of HEAD: the rule
                      fires, its witness decodes, at most four files are written by hand";

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is inside the workspace")
        .to_path_buf()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo::run(&args[1..]),
        Some("check") => Ok(check(&args[1..])),
        Some("bench") => bench::run(&args[1..]),
        Some("architecture") => architecture::run(&args[1..]),
        Some("new-rule") => new_rule::run(&args[1..]),
        Some("recipe") => recipe::run(&args[1..]),
        Some("realworld") => realworld::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => {
            eprintln!("error: unknown task `{other}`\n\n{USAGE}");
            Ok(ExitCode::from(2))
        }
        None => {
            eprintln!("{USAGE}");
            Ok(ExitCode::from(2))
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::from(2)
    })
}

/// `cargo xtask check [ARGS]`: `wirecheck check` on this workspace, through `wirecheck::cli`.
fn check(args: &[String]) -> ExitCode {
    let mut argv = vec!["wirecheck".to_owned(), "check".to_owned()];
    if !args.iter().any(|a| a.starts_with("--manifest-path")) {
        argv.push("--manifest-path".into());
        argv.push(workspace_root().join("Cargo.toml").display().to_string());
    }
    argv.extend(args.iter().cloned());
    let mut cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Command::Check(check) = &mut cli.command
        && let Some(message) = first_release_yet(check)
    {
        eprintln!("{message}");
        check.first_release = true;
    }
    wirecheck::cli::run(cli)
}

/// When the repository has no release before HEAD yet (and no baseline is named), what to say: the check then
/// runs as a first release (`--first-release`), reporting every protocol as new. Once a release is
/// tagged (git tag v0.1.0), the check compares the working tree with it. In a shallow clone, which may
/// lack the tags, it stays the plain check, which says what to fetch.
fn first_release_yet(check: &wirecheck::cli::CheckArgs) -> Option<String> {
    if check.against.is_some()
        || check.first_release
        || check.baseline_only
        || !check.against_snapshot.is_empty()
        || check.against_registry.is_some()
    {
        return None;
    }
    let manifest = check.manifest.manifest_path.as_deref()?;
    let root = manifest.parent()?;
    let repo = wirecheck::source::Repo::discover(root).ok()?;
    let head = repo.head_commit().ok()?;
    let releases = repo.releases(&check.tag_pattern, None).ok()?;
    // HEAD at the first release tag, nothing changed on top of it: still no release before it.
    let released_before_head = releases
        .iter()
        .any(|r| r.commit != head || !repo.workspace_matches_head());
    if repo.is_shallow() || released_before_head {
        return None;
    }
    Some(format!(
        "cargo xtask check: this repository has no release tag matching `{}` yet, so its protocols have no \
         released baseline: checking them as a first release (--first-release), each one new. Once a release \
         is tagged (git tag v0.1.0), this compares the working tree with it. To compare with any other \
         revision now: cargo xtask check --against REV",
        check.tag_pattern
    ))
}
