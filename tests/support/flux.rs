//! The Flux history (`examples/flux-protocols/history/steps.toml`) replayed into a scratch repository,
//! each release committing its snapshots (`wirecheck snapshot --write`) and tagged.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::git;

const MANIFEST: &str = "[package]\nname = \"flux-history\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[workspace]\n";

/// `examples/flux-protocols/history/`.
pub fn history_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/flux-protocols/history")
}

/// Each release of `steps.toml`: its tag and the directory of its sources.
pub fn steps() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(history_dir().join("steps.toml")).unwrap();
    let value: toml::Value = toml::from_str(&text).unwrap();
    value["step"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            let tag = step["tag"].as_str().unwrap().to_owned();
            let sources = step.get("sources").and_then(|s| s.as_str());
            let sources = sources.unwrap_or(&tag).to_owned();
            (tag, sources)
        })
        .collect()
}

/// Writes the sources of the history directory `sources` into `dir/src`, declaring `version`.
pub fn write_release(dir: &Path, sources: &str, version: &str) {
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    for entry in std::fs::read_dir(history_dir().join(sources).join("src")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.replace("@VERSION@", version);
        std::fs::write(src.join(path.file_name().unwrap()), text).unwrap();
    }
}

/// Runs the `wirecheck` binary with `args` on the workspace in `dir`.
pub fn wirecheck(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("NO_COLOR", "1")
        .output()
        .expect("wirecheck runs")
}

/// The Flux history, each release committing its snapshots (written by `snapshot --write`) and tagged.
pub fn flux_history(root: &Path) -> (PathBuf, Vec<String>) {
    let dir = root.join("flux");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(&dir, &["init", "-q"]);
    let mut tags = Vec::new();
    for (tag, sources) in steps() {
        write_release(&dir, &sources, tag.trim_start_matches('v'));
        let out = wirecheck(&dir, &["snapshot", "--write"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", &format!("flux-core {tag}")]);
        git(&dir, &["tag", &tag]);
        tags.push(tag);
    }
    (dir, tags)
}
