//! What the end-to-end tests share: a git that needs no configuration of the machine it runs on, and
//! files written with their directories.
//!
//! Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

#[cfg(feature = "checker")]
pub mod flux;
#[cfg(feature = "checker")]
pub mod verdicts;
#[cfg(feature = "checker")]
pub mod warm_cold;

/// Runs `git ARGS` in `dir` with a fixed identity, `main` as the first branch and no signing, and
/// fails the test with git's message if it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "init.defaultBranch=main", "-c", "tag.gpgSign=false"])
        .args(["-c", "commit.gpgSign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `text` to `path`, creating its directories.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `wirecheck check --format json EXTRA` of the workspace in `dir`.
#[cfg(feature = "checker")]
pub fn check(dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["check", "--format", "json"])
        .args(extra)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .current_dir(dir)
        .output()
        .expect("wirecheck runs")
}

/// The report of a check of `dir` with the store, after asserting that a check without it (`--no-cache`)
/// prints the same and exits the same.
#[cfg(feature = "checker")]
pub fn report(dir: &Path) -> String {
    let plain = check(dir, &["--no-cache"]);
    let kept = check(dir, &[]);
    assert_eq!(kept.status.code(), plain.status.code());
    let text = String::from_utf8(kept.stdout).unwrap();
    assert_eq!(
        text,
        String::from_utf8(plain.stdout).unwrap(),
        "{}",
        String::from_utf8_lossy(&kept.stderr)
    );
    text
}
