//! This repository's own tasks: `cargo xtask check`, `cargo xtask demo`, `cargo xtask bench`,
//! `cargo xtask architecture`, `cargo xtask new-rule`.

mod architecture;
mod bench;
mod demo;
mod history;
mod new_rule;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use wirecheck::cli::{Cli, Command};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  check [ARGS]        wirecheck this repository's protocols against its last release tag
                      (ARGS as for `wirecheck check`, e.g. --format json, --against REV)
  demo [--markdown]   replay the history of the Flux protocols (examples/flux-protocols/history)
                      release by release; --markdown prints only the summary table
  bench [ARGS]        time wirecheck check on a synthetic workspace against the floor and cargo check
                      (see cargo xtask bench --help)
  architecture        check the limits ARCHITECTURE.md sets on src/ (function and file length,
                      import cycles, rule ids written only in the catalogue)
  new-rule NAME       scaffold a rule: its catalogue entry, its fixture pair and its fixture test
                      (CONTRIBUTING.md, \"Adding a rule\")";

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
    let cli = match Cli::try_parse_from(&argv) {
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
    if let Command::Check(check) = &cli.command
        && check.against.is_none()
        && let Some(message) = no_release_yet(check)
    {
        eprintln!("{message}");
        return ExitCode::from(2);
    }
    wirecheck::cli::run(cli)
}

/// When the repository has no release tag yet, what to say: there is no baseline to check against.
fn no_release_yet(check: &wirecheck::cli::CheckArgs) -> Option<String> {
    let manifest = check.manifest.manifest_path.as_deref()?;
    let root = manifest.parent()?;
    let repo = wirecheck::source::Repo::discover(root).ok()?;
    let releases = repo.releases(&check.tag_pattern, None).ok()?;
    if !releases.is_empty() {
        return None;
    }
    Some(format!(
        "cargo xtask check: this repository has no release tag matching `{}` yet, so its protocols have no \
         released baseline to be checked against. That is expected before the first release: once a release \
         is tagged (git tag v0.1.0), this compares the working tree with it. To compare with any other \
         revision now: cargo xtask check --against REV",
        check.tag_pattern
    ))
}
