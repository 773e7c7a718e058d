//! `docs/github-actions.yml` is copied by users: its commands must work (issue 33, item 10). Every `run:`
//! line is one of the commands this test knows: `wirecheck` commands run here, on a small repository
//! with a release tag, and must not be refused (exit 2); `cargo install` must install wirecheck the way
//! the README does, from its repository or a path (it is not on crates.io), with the `checker` feature,
//! and that repository is the one `Cargo.toml` names. No network: the install itself is not run.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::git;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shell lines of every `run:` of the workflow, each with its step's line number: `run: cmd`, and
/// the indented lines under `run: |`.
fn run_lines(workflow: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block: Option<usize> = None;
    for (number, line) in workflow.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if let Some(at) = block {
            if line.trim().is_empty() || indent > at {
                if !line.trim().is_empty() {
                    out.push((number + 1, line.trim().to_owned()));
                }
                continue;
            }
            block = None;
        }
        let trimmed = line.trim_start().trim_start_matches("- ");
        if let Some(command) = trimmed.strip_prefix("run:") {
            match command.trim() {
                "|" => block = Some(indent),
                command => out.push((number + 1, command.to_owned())),
            }
        }
    }
    out
}

/// The value of the workflow's `env:` key `name`.
fn env_value(workflow: &str, name: &str) -> Option<String> {
    workflow.lines().find_map(|line| {
        let value = line.trim().strip_prefix(&format!("{name}:"))?;
        Some(value.trim().trim_matches('"').to_owned())
    })
}

/// The arguments of a `wirecheck` shell line: its words (quotes dropped) before any redirection.
fn wirecheck_args(line: &str) -> Vec<String> {
    line.split_whitespace()
        .skip(1)
        .take_while(|word| !word.starts_with('>') && *word != "#")
        .map(|word| word.trim_matches('"').to_owned())
        .collect()
}

/// A repository with a release v0.1.0 and a compatible change on top of it.
fn repository(dir: &Path) {
    support::write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let lib = |fields: &str| {
        format!(
            "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
             #[derive(Protocol)]\n#[wire(name = \"sched\", version = \"0.1.0\")]\npub struct Sched;\n\n\
             #[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = Sched, topic = \"sched.alloc\", kind = \"request\")]\n\
             pub struct AllocRequest {{ pub id: u64, {fields} }}\n"
        )
    };
    support::write(&dir.join("src/lib.rs"), &lib(""));
    support::write(&dir.join(".gitignore"), "target\n");
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "0.1.0"]);
    git(dir, &["tag", "v0.1.0"]);
    support::write(
        &dir.join("src/lib.rs"),
        &lib("#[serde(default)] pub note: u32,"),
    );
}

/// Whether a shell line is plumbing of the step (status, output, exit), not a command users install or
/// run to check.
fn is_plumbing(line: &str) -> bool {
    line.starts_with('#')
        || line.starts_with("set ")
        || line.starts_with("status=")
        || line.starts_with("echo ")
        || line.starts_with("exit ")
        || line.starts_with("[ ")
}

#[test]
fn the_workflows_commands_work() {
    let workflow = std::fs::read_to_string(root().join("docs/github-actions.yml")).unwrap();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    repository(&dir);
    let (mut installs, mut checks) = (0, 0);
    for (number, line) in run_lines(&workflow) {
        if is_plumbing(&line) {
            continue;
        }
        if line.starts_with("cargo install") {
            installs += 1;
            // Not on crates.io: from its repository (the one Cargo.toml names) or a path.
            assert!(
                line.contains("--git \"$WIRECHECK_GIT\" wirecheck") || line.contains("--path"),
                "line {number}: `{line}` installs from crates.io, where wirecheck is not"
            );
            assert!(line.contains("--features checker"), "line {number}: {line}");
            let url = env_value(&workflow, "WIRECHECK_GIT").expect("WIRECHECK_GIT is set");
            assert!(
                manifest.contains(&format!("repository = \"{url}\"")),
                "WIRECHECK_GIT `{url}` is not the repository Cargo.toml names"
            );
            continue;
        }
        assert!(
            line.starts_with("wirecheck "),
            "line {number}: `{line}` is no command this test knows: teach it"
        );
        checks += 1;
        let args = wirecheck_args(&line);
        let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "line {number}: `wirecheck {}` exits {:?}: {stderr}",
            args.join(" "),
            out.status.code()
        );
        if let Some(at) = args.iter().position(|a| a == "--output") {
            let file = dir.join(&args[at + 1]);
            assert!(file.is_file(), "line {number}: no {}", file.display());
        }
    }
    assert!(
        installs >= 1 && checks >= 5,
        "{installs} installs, {checks} checks"
    );
    // The package installed has the binary and the feature the command names.
    assert!(manifest.contains("name = \"wirecheck\"") && manifest.contains("checker = ["));
}

#[test]
fn run_lines_are_read_inline_and_in_blocks() {
    let workflow = "steps:\n  - run: one two\n  - name: x\n    run: |\n      three\n      four >> x\n\n      five\n  - uses: y\n";
    let lines: Vec<String> = run_lines(workflow).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, ["one two", "three", "four >> x", "five"]);
    assert_eq!(
        wirecheck_args("wirecheck check --format github  # x"),
        ["check", "--format", "github"]
    );
    assert_eq!(
        wirecheck_args("wirecheck check >> \"$GITHUB_STEP_SUMMARY\""),
        ["check"]
    );
}
