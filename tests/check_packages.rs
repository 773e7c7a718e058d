//! End to end (issue 33, items 2 and 3): `-p` selects protocols, each checked whole wherever its messages
//! live; unknown features are refused as cargo refuses them.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod support;
use support::{git, write};

/// Package `a` declares `sched` with a request; package `b` (depending on `a`) holds another message of
/// `sched`, with the fields `free_fields`.
fn workspace(dir: &Path, version: &str, free_fields: &str) {
    write(
        &dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    );
    write(
        &dir.join("a/Cargo.toml"),
        "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ngpu = []\nfast = [\"gpu\"]\n",
    );
    write(
        &dir.join("a/src/lib.rs"),
        &format!(
            r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "{version}")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {{
    pub id: u64,
}}
"#
        ),
    );
    write(
        &dir.join("b/Cargo.toml"),
        "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\na = { path = \"../a\" }\n",
    );
    write(
        &dir.join("b/src/lib.rs"),
        &format!(
            r#"use a::Sched;
use serde::{{Deserialize, Serialize}};
use wirecheck::Message;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest {{
    pub id: u64,
{free_fields}}}
"#
        ),
    );
}

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Repo {
    /// Release v0.1.0 of the two packages, then `FreeRequest` (in `b`) loses its required `t` in the
    /// working tree, the version unchanged: a break.
    fn broken_in_b() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ws");
        workspace(&dir, "0.1.0", "    pub t: u32,\n");
        git(&dir, &["init", "-q"]);
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", "0.1.0"]);
        git(&dir, &["tag", "v0.1.0"]);
        workspace(&dir, "0.1.0", "");
        Repo { _tmp: tmp, dir }
    }

    fn check(&self, args: &[&str]) -> Output {
        support::check(&self.dir, args)
    }
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The protocols of a report and the message types of their findings.
fn checked(json: &Value) -> Vec<(String, Vec<String>)> {
    json["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let findings = p["findings"].as_array().unwrap();
            let messages = findings
                .iter()
                .map(|f| f["message_type"].as_str().unwrap().to_owned())
                .collect();
            (p["name"].as_str().unwrap().to_owned(), messages)
        })
        .collect()
}

/// Item 2: a break in `b`'s message of `a`'s protocol fails the check with `-p a` (the protocol is
/// checked whole) and with `-p b` (a package holding messages selects their protocol), as without `-p`.
#[test]
fn p_selects_a_protocol_checked_whole_wherever_its_messages_live() {
    let repo = Repo::broken_in_b();
    let expected = vec![("sched".to_owned(), vec!["FreeRequest".to_owned()])];
    for args in [&[][..], &["-p", "a"], &["-p", "b"], &["-p", "a", "-p", "b"]] {
        let out = repo.check(args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(checked(&json(&out)), expected, "{args:?}");
    }
    // The store and --no-cache agree.
    let kept = repo.check(&["-p", "b"]);
    let fresh = repo.check(&["-p", "b", "--no-cache"]);
    assert_eq!(kept.stdout, fresh.stdout);
}

/// A package that neither declares a protocol nor holds a message is still refused (exit 2).
#[test]
fn p_naming_a_package_without_protocols_or_messages_is_exit_2() {
    let repo = Repo::broken_in_b();
    write(
        &repo.dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\", \"plain\"]\nresolver = \"2\"\n",
    );
    write(
        &repo.dir.join("plain/Cargo.toml"),
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&repo.dir.join("plain/src/lib.rs"), "pub fn f() {}\n");
    let out = repo.check(&["-p", "plain"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`plain` declares no protocol and holds no message"),
        "{err}"
    );
}

/// Item 3: a feature no package has, a package without the named feature, and a package that is not a
/// member are refused (exit 2), naming what there is, as cargo refuses them; known ones are accepted.
#[test]
fn unknown_features_are_exit_2_naming_the_known_ones() {
    let repo = Repo::broken_in_b();
    for (args, says) in [
        (
            &["--features", "no_such"][..],
            "no workspace package has the feature `no_such` (a: fast, gpu; b: none)",
        ),
        (
            &["-F", "a/no_such"],
            "package `a` has no feature `no_such` (its features: fast, gpu)",
        ),
        (
            &["-F", "no_such_pkg/x"],
            "no workspace package named `no_such_pkg` (the packages: a, b)",
        ),
        (&["-F", "gpu,no_such"], "the feature `no_such`"),
    ] {
        let out = repo.check(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    for args in [
        &["-F", "gpu"][..],
        &["-F", "a/fast"],
        &["--features", "gpu fast"],
    ] {
        let out = repo.check(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    }
    let snapshot = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["snapshot", "-F", "no_such", "--manifest-path"])
        .arg(repo.dir.join("Cargo.toml"))
        .output()
        .unwrap();
    assert_eq!(snapshot.status.code(), Some(2));
}

/// Item 2, the other commands: `matrix -p b` and `fixtures write -p b` take `a`'s protocol whole, as
/// `check -p b` does.
#[test]
fn matrix_and_fixtures_select_protocols_as_check_does() {
    let repo = Repo::broken_in_b();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(args)
            .arg("--manifest-path")
            .arg(repo.dir.join("Cargo.toml"))
            .output()
            .unwrap()
    };
    let out = run(&["matrix", "-p", "b", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = matrix["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sched"]);
    let breaking = &matrix["protocols"][0]["pairs"][0]["breaking"];
    assert!(
        breaking
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["message_type"] == "FreeRequest"),
        "{matrix:#}"
    );
    let out = run(&["fixtures", "write", "-p", "b"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("sched.alloc.request.json"), "{stdout}");
    assert!(stdout.contains("sched.free.request.json"), "{stdout}");
}

/// A binary named like its package's library (`[[bin]] name = "a"`, whose root sorts before
/// `src/lib.rs`) does not stand for the library: the library's protocol is still found and checked.
#[test]
fn a_binary_named_like_the_library_does_not_hide_it() {
    let repo = Repo::broken_in_b();
    write(
        &repo.dir.join("a/Cargo.toml"),
        "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[bin]]\nname = \"a\"\npath = \"src/bin/a.rs\"\n\n[features]\ngpu = []\nfast = [\"gpu\"]\n",
    );
    write(&repo.dir.join("a/src/bin/a.rs"), "fn main() {}\n");
    let out = repo.check(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = vec![("sched".to_owned(), vec!["FreeRequest".to_owned()])];
    assert_eq!(checked(&json(&out)), expected);
}
