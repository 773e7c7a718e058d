//! `wirecheck fixtures write` and the `fixtures_missing` rule end to end: temp git repositories with release
//! tags, the `wirecheck` binary, exit codes and files.
#![cfg(feature = "checker")]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::git;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

fn lib(version: &str, alloc_fields: &str) -> String {
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
{alloc_fields}}}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.cancel", kind = "request")]
pub struct CancelRequest {{
    pub id: u64,
}}
"#
    )
}

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Repo {
    fn new(source: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ws");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
        git(&dir, &["init", "-q"]);
        let repo = Repo { _tmp: tmp, dir };
        repo.write(source);
        repo
    }

    fn write(&self, text: &str) {
        std::fs::write(self.dir.join("src/lib.rs"), text).unwrap();
    }

    fn release(&self, tag: &str) {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "-m", tag]);
        git(&self.dir, &["tag", tag]);
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out: Output = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(args)
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .current_dir(&self.dir)
            .output()
            .expect("wirecheck runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn exists(&self, path: &str) -> bool {
        self.dir.join(path).exists()
    }

    /// `check --format json`: the exit code and the findings of `sched` with this rule.
    fn check_rule(&self, rule: &str) -> (i32, Vec<Value>) {
        let (code, stdout, stderr) = self.run(&["check", "--format", "json"]);
        let json: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("exit {code}, not JSON ({e}): {stdout}\n{stderr}"));
        let findings = json["protocols"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == rule)
            .cloned()
            .collect();
        (code, findings)
    }
}

const ALLOC: &str = "wire-fixtures/sched/0.1.0/sched.alloc.request.json";
const CANCEL: &str = "wire-fixtures/sched/0.1.0/sched.cancel.request.json";

#[test]
fn write_check_and_released_fixtures_are_never_rewritten() {
    let repo = Repo::new(&lib("0.1.0", ""));
    let (code, stdout, stderr) = repo.run(&["fixtures", "write"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("wrote {ALLOC}\nwrote {CANCEL}\n"));
    assert!(
        stderr.contains("note: no release tag matching `v*`"),
        "{stderr}"
    );
    let first = repo.read(ALLOC);
    assert!(first.contains(r#"{"case": "boundary:max", "payload": {"id": 18446744073709551615}}"#));

    // Deterministic: a second run changes nothing, and --check agrees.
    let (code, stdout, _) = repo.run(&["fixtures", "write"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(repo.read(ALLOC), first);
    let (code, _, stderr) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(code, 0, "{stderr}");

    // An unreleased version follows the working tree: --check fails until the files are written.
    repo.write(&lib("0.1.0", "    pub priority: u32,\n"));
    let (code, stdout, stderr) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, format!("stale {ALLOC}\n"));
    assert!(
        stderr.contains(
            "error: the wire fixtures are not up to date: run `wirecheck fixtures write`"
        ),
        "{stderr}"
    );
    assert_eq!(repo.read(ALLOC), first, "--check writes nothing");
    let (code, stdout, _) = repo.run(&["fixtures", "write"]);
    assert_eq!((code, stdout), (0, format!("wrote {ALLOC}\n")));
    let released = repo.read(ALLOC);
    assert!(released.contains("\"priority\": 4294967295"));

    // Released: v0.1.0 has the fixtures. A later change that keeps the version (which `check` refuses
    // anyway) does not reach them: they are generated from the release's own source.
    repo.release("v0.1.0");
    repo.write(&lib(
        "0.1.0",
        "    pub priority: u32,\n    pub t_submit: f64,\n",
    ));
    let (code, stdout, _) = repo.run(&["fixtures", "write"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(repo.read(ALLOC), released);
    let (code, _, _) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(code, 0);

    // A released file that differs (edited, or from another wirecheck) is kept, never rewritten.
    std::fs::write(repo.dir.join(ALLOC), released.replace("4294967295", "7")).unwrap();
    let (code, stdout, _) = repo.run(&["fixtures", "write"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with(&format!(
        "kept {ALLOC} (released in v0.1.0: never rewritten"
    )));
    assert!(repo.read(ALLOC).contains("\"priority\": 7"));
    std::fs::write(repo.dir.join(ALLOC), &released).unwrap();

    // The next version gets its own folder; the released one stays.
    repo.write(&lib(
        "0.2.0",
        "    pub priority: u32,\n    pub t_submit: f64,\n",
    ));
    let (code, stdout, _) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "missing wire-fixtures/sched/0.2.0/sched.alloc.request.json\nmissing wire-fixtures/sched/0.2.0/sched.cancel.request.json\n"
    );
    let (code, _, _) = repo.run(&["fixtures", "write"]);
    assert_eq!(code, 0);
    assert!(
        repo.read("wire-fixtures/sched/0.2.0/sched.alloc.request.json")
            .contains("t_submit")
    );
    assert_eq!(repo.read(ALLOC), released);

    // A message removed in an unreleased version loses its fixture there.
    let without_cancel = lib("0.2.0", "    pub priority: u32,\n    pub t_submit: f64,\n");
    let cut = without_cancel.find("#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"sched.cancel\"").unwrap();
    repo.write(&without_cancel[..cut]);
    let (code, stdout, _) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(
        (code, stdout.as_str()),
        (
            1,
            "extra wire-fixtures/sched/0.2.0/sched.cancel.request.json\n"
        )
    );
    let (code, stdout, _) = repo.run(&["fixtures", "write"]);
    assert_eq!(
        (code, stdout.as_str()),
        (
            0,
            "removed wire-fixtures/sched/0.2.0/sched.cancel.request.json\n"
        )
    );
    assert!(repo.exists(CANCEL));
}

#[test]
fn dir_and_rev() {
    let repo = Repo::new(&lib("0.1.0", ""));
    repo.release("v0.1.0");
    repo.write(&lib(
        "0.1.1",
        "    #[serde(default)]\n    pub priority: u32,\n",
    ));
    let out = repo.dir.join("elsewhere");
    let (code, stdout, stderr) = repo.run(&["fixtures", "write", "--dir", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!(
        "wrote {}\n",
        out.join("sched/0.1.1/sched.alloc.request.json").display()
    )));
    assert!(!repo.exists("wire-fixtures"));
    // --rev: the release's own fixtures, from git objects.
    let (code, stdout, _) = repo.run(&["fixtures", "write", "--rev", "v0.1.0"]);
    assert_eq!(
        (code, stdout),
        (0, format!("wrote {ALLOC}\nwrote {CANCEL}\n"))
    );
    assert!(!repo.read(ALLOC).contains("priority"));
    let (code, _, stderr) = repo.run(&["fixtures", "write", "--rev", "v9"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("revision `v9` not found"), "{stderr}");
}

#[test]
fn check_reports_a_release_without_fixtures() {
    // v0.1.0 was released before the project kept fixtures.
    let repo = Repo::new(&lib("0.1.0", ""));
    repo.release("v0.1.0");
    repo.write(&lib(
        "0.1.1",
        "    #[serde(default)]\n    pub priority: u32,\n",
    ));
    let (code, found) = repo.check_rule("fixtures_missing");
    assert_eq!(
        (code, found.len()),
        (0, 0),
        "a protocol without a fixtures folder"
    );

    // The project starts keeping fixtures: the baseline's are missing.
    let (code, _, _) = repo.run(&["fixtures", "write"]);
    assert_eq!(code, 0);
    let (code, found) = repo.check_rule("fixtures_missing");
    assert_eq!(code, 0, "level none: the exit code is about versions");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["level"], "none");
    assert_eq!(found[0]["against"], "v0.1.0");
    assert_eq!(
        found[0]["message"],
        "the wire fixtures of `sched` 0.1.0 (release v0.1.0) lack 2 of its 2 messages (AllocRequest, CancelRequest) \
         in wire-fixtures/sched/0.1.0/; the skew test cannot check that this release still decodes: run \
         `wirecheck fixtures write --rev v0.1.0` and commit the files"
    );
    let (code, human, _) = repo.run(&["check"]);
    assert_eq!(code, 0);
    assert!(human.contains("fixtures_missing"), "{human}");

    let (code, _, _) = repo.run(&["fixtures", "write", "--rev", "v0.1.0"]);
    assert_eq!(code, 0);
    let (_, found) = repo.check_rule("fixtures_missing");
    assert!(found.is_empty(), "{found:?}");

    // Released with its fixtures, then deleted from the working tree: restore them.
    repo.release("v0.1.1");
    std::fs::remove_file(
        repo.dir
            .join("wire-fixtures/sched/0.1.1/sched.cancel.request.json"),
    )
    .unwrap();
    let (_, found) = repo.check_rule("fixtures_missing");
    assert_eq!(found.len(), 1);
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.ends_with(
            "they were committed in v0.1.1 and are gone from the working tree: restore them with \
             `git checkout v0.1.1 -- wire-fixtures/sched/0.1.1`"
        ),
        "{message}"
    );
    assert!(message.contains("lack 1 of its 2 messages (CancelRequest)"));
}

#[test]
fn the_rule_is_in_the_catalogue() {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["explain", "fixtures_missing"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(
        "fixtures_missing (none)\n\nthe baseline release's wire fixtures are not in the working tree\n"
    ));
}

/// Issue 33 item 8: `fixtures write --check` checks the protocols that keep wire fixtures (their
/// `wire-fixtures/<protocol>/` folder exists, as `check` decides for `fixtures_missing`) and says which
/// keep none, instead of demanding fixtures of every protocol.
#[test]
fn check_demands_fixtures_only_of_the_protocols_that_keep_them() {
    let ctl = "\n#[derive(Protocol)]\n#[wire(name = \"ctl\", version = \"0.1.0\")]\npub struct Ctl;\n\n\
        #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Ctl, topic = \"ctl.stop\", kind = \"request\")]\n\
        pub struct Stop { pub now: bool }\n";
    let repo = Repo::new(&format!("{}{ctl}", lib("0.1.0", "")));
    // No protocol keeps fixtures yet: nothing to check.
    let (code, stdout, stderr) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(
        stderr.contains("sched keeps no wire fixtures (no folder wire-fixtures/sched/)"),
        "{stderr}"
    );
    // `sched` keeps them; `ctl` still does not.
    let (code, _, _) = repo.run(&["fixtures", "write"]);
    assert_eq!(code, 0);
    std::fs::remove_dir_all(repo.dir.join("wire-fixtures/ctl")).unwrap();
    let (code, _, stderr) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("ctl keeps no wire fixtures"), "{stderr}");
    assert!(!stderr.contains("sched keeps no"), "{stderr}");
    // A kept protocol's missing file still fails.
    std::fs::remove_file(repo.dir.join(ALLOC)).unwrap();
    let (code, stdout, _) = repo.run(&["fixtures", "write", "--check"]);
    assert_eq!((code, stdout), (1, format!("missing {ALLOC}\n")));
}
