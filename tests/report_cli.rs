//! The command line's reporting side: `--format`, `--output`, `wirecheck.toml` errors (exit 2 naming the
//! file and the entry), `wirecheck matrix`, and embedding [`wirecheck::cli::Command`] in another parser.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clap::Parser;

mod support;
use support::git;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[workspace]\n";

fn lib(version: &str, fields: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "{version}")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {{
    pub id: u64,
{fields}}}
"#
    )
}

/// A repository with release v0.1.0 (AllocRequest { id, t_submit }) and a working tree that removed
/// `t_submit` and declares 0.1.1.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        lib("0.1.0", "    pub t_submit: f64,\n"),
    )
    .unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "v0.1.0"]);
    git(&dir, &["tag", "v0.1.0"]);
    std::fs::write(dir.join("src/lib.rs"), lib("0.1.1", "")).unwrap();
    (tmp, dir)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .output()
        .expect("wirecheck runs")
}

#[test]
fn every_format_reports_the_removed_field() {
    let (_tmp, dir) = repo();
    for format in ["human", "json", "github", "sarif", "junit", "markdown"] {
        let out = run(&dir, &["check", "--format", format]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
        // Progress goes to stderr only on a terminal: captured here, it stays silent.
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("field_removed"), "{format}: {stdout}");
        assert!(stdout.contains("t_submit"), "{format}: {stdout}");
    }
    // The human format shows the removed field in the release's source, without colours off a terminal.
    let human = String::from_utf8(run(&dir, &["check"]).stdout).unwrap();
    assert!(human.contains("--> v0.1.0:src/lib.rs:"), "{human}");
    assert!(human.contains("    pub t_submit: f64,"), "{human}");
    assert!(!human.contains('\x1b'), "{human}");
    assert!(
        human.contains("sched 0.1.0 -> 0.1.1: needs 0.2.0 (1 major, 0 minor) FAIL"),
        "{human}"
    );
}

#[test]
fn output_file() {
    let (tmp, dir) = repo();
    let file = tmp.path().join("out.sarif");
    let out = run(
        &dir,
        &[
            "check",
            "--format",
            "sarif",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "field_removed");
}

#[test]
fn wirecheck_toml_allows_and_refuses() {
    let (_tmp, dir) = repo();
    std::fs::write(
        dir.join("wirecheck.toml"),
        "[[allow]]\nrule = \"field_removed\"\nmessage = \"AllocRequest\"\nfield = \"t_submit\"\nreason = \"nobody reads it\"\n",
    )
    .unwrap();
    let out = run(&dir, &["check", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{json}");
    let finding = &json["protocols"][0]["findings"][0];
    assert_eq!(finding["allowed"], true);
    assert_eq!(finding["allow_reason"], "wirecheck.toml:1: nobody reads it");

    std::fs::write(
        dir.join("wirecheck.toml"),
        "[[allow]]\nrule = \"field_removed\"\nmessage = \"AllocRequest\"\n",
    )
    .unwrap();
    let out = run(&dir, &["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("wirecheck.toml:1: [[allow]] entry 1 (rule = \"field_removed\", message = \"AllocRequest\"): `reason` is required"),
        "{stderr}"
    );
}

#[test]
fn matrix_command() {
    let (_tmp, dir) = repo();
    let out = run(&dir, &["matrix", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "no progress off a terminal");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["revisions"][0]["label"], "v0.1.0");
    assert_eq!(json["revisions"][1]["label"], "working tree");
    let pair = &json["protocols"][0]["pairs"][0];
    assert_eq!(pair["verdict"], "breaking");
    assert_eq!(pair["breaking"][0]["rule"], "field_removed");
    let html = String::from_utf8(run(&dir, &["matrix", "--format", "html"]).stdout).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("✗ 1 breaking"),
        "{html}"
    );
    let none = run(&dir, &["matrix", "--releases", "0", "--format", "markdown"]);
    assert!(String::from_utf8_lossy(&none.stdout).contains("Declared only in working tree"));
}

/// Issue 14, item 19: the matrix applies `wirecheck.toml` as `check` does, and a pair of two releases is
/// worded with both releases' names, never "the working tree".
#[test]
fn matrix_honours_wirecheck_toml_and_names_both_releases() {
    let (_tmp, dir) = repo();
    // v0.2.0 is the release that removed `t_submit`; the working tree is that release.
    std::fs::write(dir.join("src/lib.rs"), lib("0.2.0", "")).unwrap();
    git(&dir, &["commit", "-q", "-am", "v0.2.0"]);
    git(&dir, &["tag", "v0.2.0"]);
    let html = String::from_utf8(run(&dir, &["matrix", "--format", "html"]).stdout).unwrap();
    assert!(
        html.contains("witness (written by v0.2.0, rejected or misread by v0.1.0)"),
        "the pair v0.1.0 / v0.2.0 names its writer:\n{html}"
    );
    assert!(
        html.contains("witness (written by the working tree, rejected or misread by v0.1.0)"),
        "the pair v0.1.0 / working tree still says the working tree:\n{html}"
    );

    std::fs::write(
        dir.join("wirecheck.toml"),
        "[[allow]]\nrule = \"field_removed\"\nmessage = \"AllocRequest\"\nfield = \"t_submit\"\nreason = \"nobody reads it\"\n",
    )
    .unwrap();
    let check: serde_json::Value = serde_json::from_slice(
        &run(&dir, &["check", "--against", "v0.1.0", "--format", "json"]).stdout,
    )
    .unwrap();
    assert_eq!(
        check["protocols"][0]["findings"][0]["allowed"], true,
        "{check}"
    );
    let out = run(&dir, &["matrix", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for pair in json["protocols"][0]["pairs"].as_array().unwrap() {
        if pair["older"] == 0 {
            assert_eq!(pair["verdict"], "allowed", "as check says: {pair}");
            assert_eq!(
                pair["breaking"][0]["allow_reason"],
                "wirecheck.toml:1: nobody reads it"
            );
        }
    }
    // An invalid file stops the matrix as it stops the check.
    std::fs::write(
        dir.join("wirecheck.toml"),
        "[[allow]]\nrule = \"field_removed\"\n",
    )
    .unwrap();
    let out = run(&dir, &["matrix"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wirecheck.toml"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 14, item 24: a removed field is annotated on the struct that lost it, in the working tree (a
/// line of the pull request's diff), in every format; the old place is in the message.
#[test]
fn removed_items_point_at_their_surviving_parent() {
    let (_tmp, dir) = repo();
    let text = lib("0.1.1", "");
    let line = text
        .lines()
        .position(|l| l.contains("pub struct AllocRequest"))
        .unwrap()
        + 1;
    let column = "pub struct ".len() + 1;

    let json: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["check", "--format", "json"]).stdout).unwrap();
    let finding = &json["protocols"][0]["findings"][0];
    assert_eq!(finding["side"], "old", "{finding}");
    assert_eq!(finding["anchor"]["file"], "src/lib.rs", "{finding}");
    assert_eq!(finding["anchor"]["line"], line, "{finding}");

    let github = String::from_utf8(run(&dir, &["check", "--format", "github"]).stdout).unwrap();
    let removed = github
        .lines()
        .find(|l| l.contains("field_removed"))
        .unwrap();
    assert!(
        removed.starts_with(&format!(
            "::error file=src/lib.rs,line={line},col={column},"
        )),
        "{removed}"
    );
    assert!(
        removed.contains("v0.1.0%3Asrc/lib.rs") || removed.contains("v0.1.0:src/lib.rs"),
        "{removed}"
    );

    let sarif: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["check", "--format", "sarif"]).stdout).unwrap();
    let location = &sarif["runs"][0]["results"][0]["locations"][0];
    assert_eq!(
        location["physicalLocation"]["artifactLocation"]["uri"],
        "src/lib.rs"
    );
    assert_eq!(
        location["physicalLocation"]["region"]["startLine"], line,
        "{location}"
    );
    assert!(
        location["message"]["text"]
            .as_str()
            .unwrap()
            .contains("v0.1.0:src/lib.rs:"),
        "{location}"
    );

    let junit = String::from_utf8(run(&dir, &["check", "--format", "junit"]).stdout).unwrap();
    assert!(
        junit.contains(&format!("file=\"src/lib.rs\" line=\"{line}\"")),
        "{junit}"
    );
    let human = String::from_utf8(run(&dir, &["check"]).stdout).unwrap();
    assert!(
        human.contains(&format!("src/lib.rs:{line}:{column}")),
        "{human}"
    );
    let markdown = String::from_utf8(run(&dir, &["check", "--format", "markdown"]).stdout).unwrap();
    assert!(
        markdown.contains(&format!("src/lib.rs:{line}:{column}")),
        "{markdown}"
    );
}

/// An xtask's own parser with wirecheck's subcommands inside.
#[derive(Parser)]
struct Xtask {
    #[command(subcommand)]
    wire: wirecheck::cli::Command,
}

#[test]
fn embeds_in_another_parser() {
    let x = Xtask::try_parse_from(["xtask", "check", "--format", "github", "--output", "o.txt"])
        .unwrap();
    match x.wire {
        wirecheck::cli::Command::Check(args) => {
            assert_eq!(args.format, wirecheck::report::OutputFormat::Github);
            assert_eq!(args.output, Some(PathBuf::from("o.txt")));
        }
        _ => panic!("check"),
    }
    let x =
        Xtask::try_parse_from(["xtask", "matrix", "--releases", "3", "--format", "html"]).unwrap();
    match x.wire {
        wirecheck::cli::Command::Matrix(args) => {
            assert_eq!(args.releases, 3);
            assert_eq!(args.format, wirecheck::report::MatrixFormat::Html);
        }
        _ => panic!("matrix"),
    }
    assert!(Xtask::try_parse_from(["xtask", "check", "--format", "xml"]).is_err());
}

/// `--features`, `-F`, `--all-features`, `--no-default-features`: cargo's flags, cargo's splitting.
#[test]
fn feature_flags_as_cargo_takes_them() {
    let x = Xtask::try_parse_from([
        "xtask",
        "check",
        "-F",
        "a,b",
        "--features",
        "c d",
        "--features",
        "pkg/e",
        "--no-default-features",
    ])
    .unwrap();
    let wirecheck::cli::Command::Check(args) = x.wire else {
        panic!("check")
    };
    let request = args.features.request();
    assert_eq!(request.features, ["a", "b", "c", "d", "pkg/e"]);
    assert!(request.no_default_features && !request.all_features);
    let x = Xtask::try_parse_from(["xtask", "check", "--all-features"]).unwrap();
    let wirecheck::cli::Command::Check(args) = x.wire else {
        panic!("check")
    };
    assert!(args.features.request().all_features);
}

#[test]
fn progress_on_a_terminal() {
    // `script` runs the command on a pseudo-terminal; skip where util-linux's `script` is missing.
    if !Path::new("/usr/bin/script").exists() {
        println!("skipped: /usr/bin/script (util-linux) is not installed");
        return;
    }
    let (_tmp, dir) = repo();
    let command = format!(
        "{} matrix --format json --manifest-path {}",
        env!("CARGO_BIN_EXE_wirecheck"),
        dir.join("Cargo.toml").display()
    );
    let out = Command::new("/usr/bin/script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("TERM", "dumb")
        .output()
        .expect("script runs");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(
        screen.contains("wirecheck: reading release 1/1 v0.1.0"),
        "{screen}"
    );
}
