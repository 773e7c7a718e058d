//! The output samples in `docs/output-samples/`: real runs of the `wirecheck` binary on the Flux protocols'
//! history (`examples/flux-protocols/history/`), in a scratch git repository with fixed commit dates so the
//! bytes are stable. The test fails when a sample is out of date; `WIRECHECK_BLESS=1 cargo test --features
//! checker --test report_samples` rewrites them.
//!
//! - `check.*`: the working tree holds flux-core v0.61.0's protocols (sched.free lost its response and
//!   gained a required `R`) but still declares 0.56.1, as if shipped as a patch release, against the tag
//!   v0.56.0; `wirecheck.toml` allows the new required `R` of `FreeRequest`, to show an allowed finding.
//! - `matrix.*`: the last five release tags of the history (v0.61.0 … v0.70.0) and v0.88.0 as the working
//!   tree.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = "[package]\nname = \"flux-history\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[workspace]\n";

const ALLOW: &str = r#"# A new scheduler requires R in sched.free; an old job manager does not send it. Flux ships the
# scheduler with a minimum flux-core, so that pair is never deployed.
[[allow]]
rule = "required_field_added"
message = "FreeRequest"
field = "r"
reason = "flux-sched requires the flux-core it was released with, so a new scheduler never meets an old job manager"
"#;

fn history(tag: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/flux-protocols/history")
        .join(tag)
        .join("src")
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=flux", "-c", "user.email=flux@example.com"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgSign=false",
        ])
        .args(["-c", "tag.gpgSign=false"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes the sources of history release `tag` into `dir/src`, declaring `version`.
fn write_release(dir: &Path, tag: &str, version: &str) {
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let mut entries: Vec<_> = std::fs::read_dir(history(tag))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            src.join(path.file_name().unwrap()),
            text.replace("@VERSION@", version),
        )
        .unwrap();
    }
}

fn repo_with(tags: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("flux");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
    git(&dir, &["init", "-q"]);
    for tag in tags {
        write_release(&dir, tag, tag.trim_start_matches('v'));
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", &format!("flux-core {tag}")]);
        git(&dir, &["tag", tag]);
    }
    (tmp, dir)
}

fn wirecheck(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("NO_COLOR", "1")
        .output()
        .expect("wirecheck runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "wirecheck {args:?} exited {code}: {stderr}"
    );
    (code, String::from_utf8(out.stdout).unwrap())
}

/// Compares `text` with the sample `name`, or writes it when blessing.
fn sample(name: &str, text: &str, stale: &mut Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/output-samples")
        .join(name);
    if std::env::var_os("WIRECHECK_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
        stale.push(name.to_owned());
    }
}

#[test]
fn output_samples_are_real_and_current() {
    let mut stale = Vec::new();

    let (_tmp, dir) = repo_with(&["v0.56.0"]);
    write_release(&dir, "v0.61.0", "0.56.1");
    std::fs::write(dir.join("wirecheck.toml"), ALLOW).unwrap();
    for (format, file) in [
        ("human", "check.txt"),
        ("json", "check.json"),
        ("github", "check.github.txt"),
        ("sarif", "check.sarif"),
        ("junit", "check.junit.xml"),
        ("markdown", "check.md"),
    ] {
        let (code, out) = wirecheck(&dir, &["check", "--format", format]);
        assert_eq!(code, 1, "0.56.1 is short of 0.57.0:\n{out}");
        sample(file, &out, &mut stale);
    }

    let (_tmp, dir) = repo_with(&[
        "v0.56.0", "v0.61.0", "v0.64.0", "v0.65.0", "v0.66.0", "v0.70.0",
    ]);
    write_release(&dir, "v0.88.0", "0.88.0");
    for (format, file) in [
        ("markdown", "matrix.md"),
        ("html", "matrix.html"),
        ("json", "matrix.json"),
    ] {
        let (code, out) = wirecheck(&dir, &["matrix", "--releases", "5", "--format", format]);
        assert_eq!(code, 0);
        sample(file, &out, &mut stale);
    }

    assert!(
        stale.is_empty(),
        "docs/output-samples is out of date ({}): run WIRECHECK_BLESS=1 cargo test --features checker --test report_samples, and review the diff",
        stale.join(", ")
    );
}
