//! End to end: temp git repositories with release tags, the `wirecheck` binary, exit codes and JSON.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::git;

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

fn lib(version: &str, alloc_fields: &str, extra: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

/// The scheduler protocol.
#[derive(Protocol)]
#[wire(name = "sched", version = "{version}")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {{
    pub id: u64,
{alloc_fields}}}
{extra}"#
    )
}

impl Repo {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ws");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
        git(&dir, &["init", "-q"]);
        Repo { _tmp: tmp, dir }
    }

    fn write(&self, text: &str) {
        std::fs::write(self.dir.join("src/lib.rs"), text).unwrap();
    }

    fn commit(&self, message: &str) {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "-m", message]);
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(args)
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .current_dir(&self.dir)
            .output()
            .expect("wirecheck runs")
    }

    fn check_json(&self) -> (i32, Value) {
        let out = self.run(&["check", "--format", "json"]);
        let code = out.status.code().unwrap_or(-1);
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "exit {code}, not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (code, json)
    }
}

/// The `key` of every finding of the report's first protocol.
fn first_protocol_findings<'j>(json: &'j Value, key: &str) -> Vec<&'j str> {
    json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[key].as_str().unwrap())
        .collect()
}

const TWO_FIELDS: &str = "    pub priority: u32,\n    pub t_submit: f64,\n";

/// A repository with v0.9.0 (lightweight), v0.10.0 (annotated) and v1.0.0-rc.1 (pre-release) tags; the
/// protocol is at 0.10.0 with `AllocRequest {id, priority, t_submit}`.
fn released() -> Repo {
    let repo = Repo::new();
    repo.write(&lib("0.9.0", "    pub priority: u32,\n", ""));
    repo.commit("0.9");
    git(&repo.dir, &["tag", "v0.9.0"]);
    repo.write(&lib("0.10.0", TWO_FIELDS, ""));
    repo.commit("0.10");
    git(&repo.dir, &["tag", "-a", "-m", "release 0.10.0", "v0.10.0"]);
    repo.write(&lib("1.0.0-rc.1", TWO_FIELDS, "// rc\n"));
    repo.commit("rc");
    git(&repo.dir, &["tag", "-a", "-m", "rc", "v1.0.0-rc.1"]);
    repo.write(&lib("0.10.0", TWO_FIELDS, ""));
    repo.commit("back to the release shape");
    repo
}

#[test]
fn baseline_is_highest_release_ancestor_skipping_prereleases() {
    let repo = released();
    let out = repo.run(&["baseline"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("v0.10.0 "), "{text}");
    // A newer tag that is not an ancestor of HEAD is not a baseline.
    git(&repo.dir, &["checkout", "-q", "-b", "side", "v0.9.0"]);
    git(&repo.dir, &["commit", "-q", "--allow-empty", "-m", "side"]);
    let out = repo.run(&["baseline"]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("v0.9.0 ")
    );
}

#[test]
fn unchanged_protocol_passes() {
    let repo = released();
    let (code, json) = repo.check_json();
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["baseline"]["rev"], "v0.10.0");
    assert_eq!(json["baseline"]["commit"].as_str().unwrap().len(), 40);
    assert_eq!(json["ok"], true);
    let p = &json["protocols"][0];
    assert_eq!(p["name"], "sched");
    assert_eq!(p["required_bump"], "none");
    assert_eq!(p["findings"].as_array().unwrap().len(), 0, "{json:#}");
}

#[test]
fn removed_field_without_a_bump_fails_with_major() {
    let repo = released();
    repo.write(&lib("0.10.1", "    pub priority: u32,\n", ""));
    let (code, json) = repo.check_json();
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["ok"], false);
    let p = &json["protocols"][0];
    assert_eq!(p["old_version"], "0.10.0");
    assert_eq!(p["new_version"], "0.10.1");
    assert_eq!(p["required_bump"], "major");
    assert_eq!(p["required_version"], "0.11.0");
    let f = p["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "field_removed")
        .unwrap_or_else(|| panic!("no field_removed: {json:#}"));
    assert_eq!(f["level"], "major");
    assert_eq!(f["field"], "t_submit");
    assert_eq!(f["message_type"], "AllocRequest");
    assert_eq!(f["topic"], "sched.alloc");
    assert_eq!(f["direction"], "old reads new");
    assert_eq!(f["against"], "v0.10.0");
    // The removed field is shown where it was: in the baseline's file and line.
    assert_eq!(f["file"], "src/lib.rs");
    assert_eq!(f["line"], 14);
    assert_eq!(f["side"], "old");
    assert!(f["witness"].is_object(), "{f:#}");
    assert!(f["witness"].get("t_submit").is_none());
}

#[test]
fn an_allow_on_a_field_of_a_derive_wire_type_is_honoured() {
    let repo = Repo::new();
    let limits = |cores: &str| {
        format!(
            "\nuse wirecheck::Wire;\n\n#[derive(Serialize, Deserialize, Wire)]\npub struct Limits {{\n{cores}}}\n"
        )
    };
    repo.write(&lib(
        "0.1.0",
        "    pub limits: Limits,\n",
        &limits("    pub cores: u64,\n"),
    ));
    repo.commit("0.1");
    git(&repo.dir, &["tag", "v0.1.0"]);
    // Narrowed without a bump: a major finding.
    repo.write(&lib(
        "0.1.1",
        "    pub limits: Limits,\n",
        &limits("    pub cores: u32,\n"),
    ));
    let (code, json) = repo.check_json();
    assert_eq!(code, 1, "{json:#}");
    // Allowed on the nested type's field, which `#[derive(Wire)]` lets rustc accept.
    repo.write(&lib(
        "0.1.1",
        "    pub limits: Limits,\n",
        &limits(
            "    #[wire(allow(integer_narrowed), reason = \"no scheduler has more than 2^32 cores\")]\n    pub cores: u32,\n",
        ),
    ));
    let (code, json) = repo.check_json();
    assert_eq!(code, 0, "{json:#}");
    let findings = json["protocols"][0]["findings"].as_array().unwrap();
    let narrowed = findings
        .iter()
        .find(|f| f["rule"] == "integer_narrowed")
        .unwrap_or_else(|| panic!("no integer_narrowed: {json:#}"));
    assert_eq!(narrowed["allowed"], true, "{narrowed:#}");
}

#[test]
fn removed_field_with_the_bump_passes() {
    let repo = released();
    repo.write(&lib("0.11.0", "    pub priority: u32,\n", ""));
    let (code, json) = repo.check_json();
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["protocols"][0]["required_bump"], "major");
    assert_eq!(json["protocols"][0]["ok"], true);
}

#[test]
fn added_optional_field_needs_minor_and_points_at_the_new_line() {
    let repo = released();
    let fields = format!("{TWO_FIELDS}    #[serde(default)]\n    pub final_: Option<bool>,\n");
    repo.write(&lib("0.10.0", &fields, ""));
    let (code, json) = repo.check_json();
    assert_eq!(code, 1, "{json:#}");
    let p = &json["protocols"][0];
    assert_eq!(p["required_bump"], "minor");
    assert_eq!(p["required_version"], "0.10.1");
    let f = &p["findings"][0];
    assert_eq!(f["level"], "minor");
    assert_eq!(f["side"], "new");
    assert_eq!(f["line"], 16);
    repo.write(&lib("0.10.1", &fields, ""));
    assert_eq!(repo.check_json().0, 0);
}

#[test]
fn new_protocol_needs_nothing() {
    let repo = released();
    let extra = r#"
#[derive(Protocol)]
#[wire(name = "exec", version = "0.1.0")]
pub struct Exec;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exec.start", kind = "request")]
pub struct Start { pub id: u64 }
"#;
    repo.write(&lib("0.10.0", TWO_FIELDS, extra));
    let (code, json) = repo.check_json();
    assert_eq!(code, 0, "{json:#}");
    let exec = json["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "exec")
        .unwrap();
    assert_eq!(exec["old_version"], Value::Null);
    assert_eq!(exec["required_bump"], "none");
}

#[test]
fn no_release_tag_is_exit_2_with_advice() {
    let repo = Repo::new();
    repo.write(&lib("0.1.0", "", ""));
    repo.commit("initial");
    let out = repo.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no release tag matching `v*`"), "{err}");
    assert!(err.contains("--against"), "{err}");
}

#[test]
fn shallow_clone_is_exit_2_with_advice() {
    let repo = released();
    let shallow = repo._tmp.path().join("shallow");
    let url = format!("file://{}", repo.dir.display());
    git(
        repo._tmp.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-tags",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["check", "--manifest-path"])
        .arg(shallow.join("Cargo.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("shallow clone"), "{err}");
    assert!(err.contains("fetch-depth: 0"), "{err}");
}

#[test]
fn against_any_revision_and_uncommitted_edits() {
    let repo = released();
    // Compare with the 0.9.0 release explicitly: t_submit was added as a required field since then.
    repo.write(&lib("0.10.0", TWO_FIELDS, ""));
    let out = repo.run(&["check", "--format", "json", "--against", "v0.9.0"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["baseline"]["rev"], "v0.9.0");
    let rules: Vec<&str> = first_protocol_findings(&json, "rule");
    assert!(rules.contains(&"required_field_added"), "{json:#}");
}

#[test]
fn unparsable_working_tree_is_exit_2() {
    let repo = released();
    repo.write("pub struct {");
    let out = repo.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("src/lib.rs:1:"), "{err}");
    assert!(err.contains("syntax error in the working tree"), "{err}");
}

#[test]
fn removed_protocol_is_major() {
    let repo = released();
    let extra = r#"
#[derive(Protocol)]
#[wire(name = "exec", version = "0.1.0")]
pub struct Exec;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exec.start", kind = "request")]
pub struct Start { pub id: u64 }
"#;
    repo.write(&lib("0.10.0", TWO_FIELDS, extra));
    repo.commit("exec protocol");
    git(&repo.dir, &["tag", "v0.11.0"]);
    repo.write(&lib("0.10.0", TWO_FIELDS, ""));
    let (code, json) = repo.check_json();
    assert_eq!(code, 1, "{json:#}");
    let exec = json["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "exec")
        .unwrap();
    assert_eq!(exec["new_version"], Value::Null);
    assert_eq!(exec["ok"], false);
    assert_eq!(exec["findings"][0]["rule"], "protocol_removed");
    assert_eq!(exec["findings"][0]["level"], "major");
    assert_eq!(exec["findings"][0]["side"], "old");
}

/// The store (`target/wirecheck/store`) never changes a verdict: a check with it cold, with it warm, and
/// without it give the same bytes, also once the baseline has become an older release read for its
/// records only.
#[test]
fn the_release_store_gives_the_same_report_as_extracting() {
    let record = |fields: &str| {
        format!(
            "\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"sched.event\", kind = \"record\")]\npub struct Event {{ pub a: u32, {fields} }}\n"
        )
    };
    let repo = Repo::new();
    repo.write(&lib("0.9.0", "", &record("")));
    repo.commit("0.9");
    git(&repo.dir, &["tag", "v0.9.0"]);
    repo.write(&lib("0.10.0", "", &record("pub b: Option<String>,")));
    repo.commit("0.10");
    git(&repo.dir, &["tag", "v0.10.0"]);
    // `b` becomes required: v0.10.0 wrote null, v0.9.0 wrote nothing.
    repo.write(&lib("0.10.0", "", &record("pub b: String,")));
    let outputs = |repo: &Repo| {
        let plain = repo.run(&["check", "--format", "json", "--no-cache"]);
        let cold = repo.run(&["check", "--format", "json"]);
        let warm = repo.run(&["check", "--format", "json"]);
        for out in [&cold, &warm] {
            assert_eq!(out.status.code(), plain.status.code());
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&plain.stdout)
            );
        }
        serde_json::from_slice::<Value>(&plain.stdout).unwrap()
    };
    let json = outputs(&repo);
    let against: Vec<&str> = first_protocol_findings(&json, "against");
    assert!(
        against.contains(&"v0.10.0") && against.contains(&"v0.9.0"),
        "{json:#}"
    );
    let store = repo.dir.join("target/wirecheck/store");
    let releases = std::fs::read_dir(&store)
        .unwrap()
        .map(|build| {
            std::fs::read_dir(build.unwrap().path().join("releases"))
                .unwrap()
                .count()
        })
        .sum::<usize>();
    assert_eq!(releases, 2, "one file per release read");
    // Released as 1.0.0; the next change reads v0.10.0 (stored whole) for its records only.
    repo.write(&lib("1.0.0", "", &record("pub b: String,")));
    repo.commit("1.0");
    git(&repo.dir, &["tag", "v1.0.0"]);
    repo.write(&lib("1.0.0", "", &record("pub b: String, pub c: u8,")));
    let json = outputs(&repo);
    assert_eq!(json["baseline"]["rev"], "v1.0.0");
    let rules: Vec<&str> = first_protocol_findings(&json, "rule");
    assert!(rules.contains(&"required_field_added"), "{json:#}");
}

/// The working tree's model kept in the store is reused only while its files are the same: after each
/// edit (one keeping the file's size), a warm check reports what a check without the store does.
#[test]
fn the_working_tree_store_follows_every_edit() {
    let record = |ty: &str| {
        format!(
            "\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"sched.event\", kind = \"record\")]\npub struct Event {{ pub a: {ty} }}\n"
        )
    };
    let repo = Repo::new();
    repo.write(&lib("0.9.0", "", &record("u32")));
    repo.commit("0.9");
    git(&repo.dir, &["tag", "v0.9.0"]);
    let same = |repo: &Repo| {
        let plain = repo.run(&["check", "--format", "json", "--no-cache"]);
        for _ in 0..2 {
            let warm = repo.run(&["check", "--format", "json"]);
            assert_eq!(warm.status.code(), plain.status.code());
            assert_eq!(
                String::from_utf8_lossy(&warm.stdout),
                String::from_utf8_lossy(&plain.stdout)
            );
        }
        String::from_utf8_lossy(&plain.stdout).into_owned()
    };
    let unchanged = same(&repo);
    // `u32` to `i32`: the same size.
    repo.write(&lib("0.9.0", "", &record("i32")));
    let edited = same(&repo);
    assert_ne!(edited, unchanged);
    repo.write(&lib("0.9.0", "", &record("u32")));
    assert_eq!(same(&repo), unchanged);
}

/// A workspace member that is a git submodule is read at the commit each release records for it: a
/// field removed there is a break, not a protocol that looks new.
#[test]
fn a_member_in_a_git_submodule_is_read_at_the_recorded_commit() {
    let tmp = tempfile::tempdir().unwrap();
    // The member's own repository.
    let member = tmp.path().join("proto-src");
    std::fs::create_dir_all(member.join("src")).unwrap();
    std::fs::write(
        member.join("Cargo.toml"),
        MANIFEST.replace("\"demo\"", "\"proto\""),
    )
    .unwrap();
    std::fs::write(member.join("src/lib.rs"), lib("0.10.0", TWO_FIELDS, "")).unwrap();
    git(&member, &["init", "-q"]);
    git(&member, &["add", "-A"]);
    git(&member, &["commit", "-q", "-m", "proto"]);
    // The workspace, with the member as a submodule, released as v0.10.0.
    let top = tmp.path().join("ws");
    std::fs::create_dir_all(&top).unwrap();
    std::fs::write(
        top.join("Cargo.toml"),
        "[workspace]\nmembers = [\"proto\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    git(&top, &["init", "-q"]);
    let source = member.to_str().unwrap();
    git(
        &top,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            source,
            "proto",
        ],
    );
    git(&top, &["add", "-A"]);
    git(&top, &["commit", "-q", "-m", "workspace"]);
    git(&top, &["tag", "v0.10.0"]);
    let check = || {
        Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(["check", "--format", "json", "--no-cache", "--manifest-path"])
            .arg(top.join("Cargo.toml"))
            .current_dir(&top)
            .output()
            .unwrap()
    };
    // Unchanged: nothing to report.
    let out = check();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A field removed in the submodule's checkout, version not bumped.
    std::fs::write(
        top.join("proto/src/lib.rs"),
        lib("0.10.0", "    pub priority: u32,\n", ""),
    )
    .unwrap();
    let out = check();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    assert_eq!(json["protocols"][0]["old_version"], "0.10.0", "{json:#}");
    assert!(
        first_protocol_findings(&json, "rule").contains(&"field_removed"),
        "{json:#}"
    );
    // The submodule's repository gone: exit 2, saying which submodule and what to run.
    std::fs::remove_dir_all(top.join(".git/modules")).unwrap();
    std::fs::remove_file(top.join("proto/.git")).unwrap();
    let out = check();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("git submodule `proto`"), "{err}");
    assert!(err.contains("git submodule update --init"), "{err}");
}

/// Two workspaces of one repository, with the same crate names and paths, sharing a target directory
/// (and so a store): each is read for itself.
#[test]
fn workspaces_sharing_a_target_directory_keep_apart() {
    let repo = Repo::new();
    for (ws, fields) in [("a", TWO_FIELDS), ("b", "    pub priority: u32,\n")] {
        let dir = repo.dir.join(ws);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
        std::fs::write(dir.join("src/lib.rs"), lib("0.10.0", fields, "")).unwrap();
    }
    repo.commit("two workspaces");
    git(&repo.dir, &["tag", "v0.10.0"]);
    let shared = repo.dir.join("shared-target");
    let check = |ws: &str| {
        Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(["check", "--format", "json", "--manifest-path"])
            .arg(repo.dir.join(ws).join("Cargo.toml"))
            .current_dir(repo.dir.join(ws))
            .env("CARGO_TARGET_DIR", &shared)
            .output()
            .unwrap()
    };
    assert_eq!(check("a").status.code(), Some(0));
    // b drops `priority`; its baseline is b's own v0.10.0, not a's (which had one more field).
    std::fs::write(repo.dir.join("b/src/lib.rs"), lib("0.10.0", "", "")).unwrap();
    let out = check("b");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    let fields = first_protocol_findings(&json, "field");
    assert_eq!(fields, ["priority"], "{json:#}");
    assert!(shared.join("wirecheck/store").is_dir());
}

/// The record `Event` of the `sched` protocol, with `fields` after `a`.
fn record(fields: &str) -> String {
    format!(
        "\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"sched.event\", kind = \"record\")]\npub struct Event {{ pub a: u32, {fields} }}\n"
    )
}

/// v0.9.0 stores `Event {a}`, v0.10.0 `Event {a, b}` with `b` defaulted when absent; the working tree
/// (0.10.1) drops the default: v0.10.0's records still read, v0.9.0's no longer do.
fn record_break_against_an_older_release() -> Repo {
    let repo = Repo::new();
    repo.write(&lib("0.9.0", "", &record("")));
    repo.commit("0.9");
    git(&repo.dir, &["tag", "v0.9.0"]);
    repo.write(&lib("0.10.0", "", &record("#[serde(default)] pub b: u32,")));
    repo.commit("0.10");
    git(&repo.dir, &["tag", "v0.10.0"]);
    repo.write(&lib(
        "0.10.0",
        "",
        &record("#[serde(default)] pub b: u32, "),
    ));
    repo.commit("after the release");
    repo
}

/// A shallow clone of `repo` at depth 1 without tags, then `fetch` (extra `git fetch --depth 1 origin`
/// arguments), with the working tree's `lib.rs` written as `text`.
fn shallow_clone(repo: &Repo, name: &str, fetch: &[&str], text: &str) -> PathBuf {
    let shallow = repo._tmp.path().join(name);
    let url = format!("file://{}", repo.dir.display());
    let target = shallow.to_str().unwrap();
    git(
        repo._tmp.path(),
        &["clone", "-q", "--depth", "1", "--no-tags", &url, target],
    );
    let mut args = vec!["fetch", "-q", "--depth", "1", "origin"];
    args.extend_from_slice(fetch);
    git(&shallow, &args);
    std::fs::write(shallow.join("src/lib.rs"), text).unwrap();
    shallow
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .current_dir(dir)
        .output()
        .expect("wirecheck runs")
}

/// Issue 14 item 3: a shallow clone that fetched only the baseline tag cannot read the older releases a
/// full clone compares (here a record break against v0.9.0): exit 2 naming what is missing, unless
/// `--baseline-only` asks for the baseline alone, which every format then states.
#[test]
fn a_shallow_clone_with_only_the_baseline_tag_is_exit_2_unless_baseline_only() {
    let repo = record_break_against_an_older_release();
    let working = lib("0.10.1", "", &record("pub b: u32,"));
    // The full clone fails on the older release's records.
    repo.write(&working);
    let full = repo.run(&["check", "--format", "json", "--against", "v0.10.0"]);
    assert_eq!(
        full.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&full.stdout)
    );
    let full: Value = serde_json::from_slice(&full.stdout).unwrap();
    assert!(
        first_protocol_findings(&full, "against").contains(&"v0.9.0"),
        "{full:#}"
    );

    // Only the baseline tag fetched: no older release tag is even known here.
    let shallow = shallow_clone(&repo, "only-baseline", &["tag", "v0.10.0"], &working);
    let out = run_in(&shallow, &["check", "--against", "v0.10.0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{err}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(err.contains("shallow clone"), "{err}");
    assert!(err.contains("older than v0.10.0"), "{err}");
    assert!(err.contains("--baseline-only"), "{err}");
    assert!(err.contains("fetch-depth: 0"), "{err}");

    // Every tag fetched at depth 1: the older release is known by name but its history is cut off.
    let tags = shallow_clone(
        &repo,
        "all-tags",
        &["tag", "v0.9.0", "tag", "v0.10.0"],
        &working,
    );
    let out = run_in(&tags, &["check", "--against", "v0.10.0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("v0.9.0"), "{err}");

    // Opted in: the baseline alone, and the report says so, in JSON as a key.
    let out = run_in(
        &shallow,
        &[
            "check",
            "--against",
            "v0.10.0",
            "--baseline-only",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["baseline"]["baseline_only"], true, "{json:#}");
    assert!(
        json["notes"].to_string().contains("--baseline-only"),
        "{json:#}"
    );
    for format in ["human", "github", "sarif", "junit", "markdown"] {
        let out = run_in(
            &shallow,
            &[
                "check",
                "--against",
                "v0.10.0",
                "--baseline-only",
                "--format",
                format,
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--baseline-only"), "{format}: {text}");
    }
    // A full clone keeps its verdict.
    assert_eq!(
        repo.run(&["check", "--against", "v0.10.0"]).status.code(),
        Some(1)
    );
}

/// Issue 14 item 20: with HEAD exactly at a release tag and nothing changed on top of it (CI on a tag
/// push), the baseline is the release before it, and the report says which was chosen and why.
#[test]
fn head_at_a_release_tag_is_checked_against_the_previous_release() {
    let repo = Repo::new();
    repo.write(&lib("0.9.0", "    pub priority: u32,\n", ""));
    repo.commit("0.9");
    git(&repo.dir, &["tag", "v0.9.0"]);
    repo.write(&lib("0.10.0", TWO_FIELDS, ""));
    repo.commit("0.10");
    git(&repo.dir, &["tag", "-a", "-m", "release 0.10.0", "v0.10.0"]);
    let (code, json) = repo.check_json();
    assert_eq!(json["baseline"]["rev"], "v0.9.0", "{json:#}");
    assert_eq!(json["baseline"]["chosen"], "previous_release", "{json:#}");
    assert_eq!(json["baseline"]["head_release"], "v0.10.0", "{json:#}");
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["protocols"][0]["required_bump"], "major", "{json:#}");
    let out = repo.run(&["check"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("HEAD is the release v0.10.0"), "{text}");
    let out = repo.run(&["baseline"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("v0.9.0 "));
    // Uncommitted edits on top of the release: they are compared with the release itself.
    repo.write(&lib("0.10.0", "    pub priority: u32,\n", ""));
    let (code, json) = repo.check_json();
    assert_eq!(json["baseline"]["rev"], "v0.10.0", "{json:#}");
    assert_eq!(json["baseline"]["chosen"], "last_release", "{json:#}");
    assert_eq!(code, 1, "{json:#}");
    // A plain check names how its baseline was chosen too.
    repo.write(&lib("0.10.0", TWO_FIELDS, "// edit\n"));
    repo.commit("after the release");
    let (_, json) = repo.check_json();
    assert_eq!(json["baseline"]["rev"], "v0.10.0", "{json:#}");
    assert_eq!(json["baseline"]["chosen"], "last_release", "{json:#}");
}

/// Issue 14 item 21: tags that match the pattern but hold no semver version are named in a warning, and
/// an invalid `--tag-pattern` glob is exit 2 saying so.
#[test]
fn tags_without_a_version_are_named_and_a_bad_glob_is_exit_2() {
    let repo = released();
    for tag in ["v1", "v0.4", "vnext"] {
        git(&repo.dir, &["tag", tag]);
    }
    let out = repo.run(&["check"]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains("v0.4, v1, vnext"), "{err}");
    let out = repo.run(&["check", "--tag-pattern", "v[0-9"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid --tag-pattern `v[0-9`"), "{err}");
    assert!(!err.contains("no release tag"), "{err}");
    let out = repo.run(&["baseline", "--tag-pattern", "v[0-9"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 14 item 22: `-p PKG` naming a package that declares no protocol is a misconfiguration.
#[test]
fn a_package_without_protocols_named_by_p_is_exit_2() {
    let repo = released();
    let manifest = format!("{MANIFEST}\n[workspace]\nmembers = [\".\", \"plain\"]\n");
    std::fs::write(repo.dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(repo.dir.join("plain/src")).unwrap();
    std::fs::write(
        repo.dir.join("plain/Cargo.toml"),
        MANIFEST.replace("\"demo\"", "\"plain\""),
    )
    .unwrap();
    std::fs::write(repo.dir.join("plain/src/lib.rs"), "pub fn f() {}\n").unwrap();
    let out = repo.run(&["check", "-p", "plain"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{err}{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(err.contains("`plain` declares no protocol"), "{err}");
    let out = repo.run(&["check", "-p", "demo"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = repo.run(&["check", "-p", "demo", "-p", "plain"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 14 item 23: before the first release tag the check is exit 2 by default; `--first-release`
/// reports every protocol as new and says so, and is refused once a release exists.
#[test]
fn first_release_flag_reports_every_protocol_as_new() {
    let repo = Repo::new();
    repo.write(&lib("0.1.0", "", ""));
    repo.commit("initial");
    let out = repo.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--first-release"));
    let help = String::from_utf8(repo.run(&["check", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--first-release") && help.contains("--baseline-only"),
        "{help}"
    );
    let out = repo.run(&["check", "--first-release", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["baseline"]["chosen"], "first_release", "{json:#}");
    assert_eq!(json["baseline"]["rev"], Value::Null, "{json:#}");
    assert_eq!(json["protocols"][0]["old_version"], Value::Null, "{json:#}");
    assert_eq!(json["protocols"][0]["required_bump"], "none", "{json:#}");
    for format in ["human", "github", "sarif", "junit", "markdown"] {
        let out = repo.run(&["check", "--first-release", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("first release"), "{format}: {text}");
    }
    // HEAD at the first release tag (its tag push): compared with itself, and said so; the flag still
    // holds there.
    git(&repo.dir, &["tag", "v0.1.0"]);
    let (code, json) = repo.check_json();
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["baseline"]["head_release"], "v0.1.0", "{json:#}");
    assert!(
        json["notes"].to_string().contains("no release precedes it"),
        "{json:#}"
    );
    assert_eq!(
        repo.run(&["check", "--first-release"]).status.code(),
        Some(0)
    );
    // Once a release precedes HEAD, the flag is refused.
    repo.write(&lib("0.1.0", "", "// edit\n"));
    repo.commit("after");
    let out = repo.run(&["check", "--first-release"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("v0.1.0"), "{err}");
}

/// A library with protocol `sched` at `version` (compatible from `min`), a request with `request` and a
/// record with `record` as their fields.
fn lib_from(version: &str, min: &str, request: &str, record: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "{version}", min_compatible = "{min}")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {{ {request} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.event", kind = "record")]
pub struct Event {{ {record} }}
"#
    )
}

/// Issue 16: with several release tags, a check through the store (cold, then warm) reports exactly
/// what a check extracting every release in turn (`--no-cache`) does, also once the working tree's
/// `min_compatible` moves back from 0.3.0 to 0.1.0: the records-only part of v0.1.0 the store then
/// holds does not answer the full comparison v0.1.0's request now needs. v0.2.0 does not parse: it is
/// left out, and said so once. A store that cannot be written changes nothing.
#[test]
fn several_releases_through_the_store_report_what_extracting_them_in_turn_does() {
    let repo = Repo::new();
    let releases = [
        ("0.1.0", "0.1.0", "pub id: u64,", "pub a: u32,"),
        ("0.2.0", "0.1.0", "pub id: u64,", "pub a: u32 pub b: u32"),
        (
            "0.3.0",
            "0.3.0",
            "pub id: u64, pub priority: u32,",
            "pub a: u32,",
        ),
        (
            "0.4.0",
            "0.3.0",
            "pub id: u64, pub priority: u32,",
            "pub a: u32, #[serde(default)] pub b: u32,",
        ),
        (
            "0.5.0",
            "0.3.0",
            "pub id: u64, pub priority: u32,",
            "pub a: u32, #[serde(default)] pub b: u32,",
        ),
    ];
    for (version, min, request, record) in releases {
        repo.write(&lib_from(version, min, request, record));
        repo.commit(version);
        git(&repo.dir, &["tag", &format!("v{version}")]);
    }
    let store = repo.dir.join("target/wirecheck");
    let run = |args: &[&str]| {
        let out = repo.run(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let full_request_break = |stdout: &str| {
        let json: Value = serde_json::from_str(stdout).unwrap();
        json["protocols"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["against"] == "v0.1.0" && f["message_type"] == "AllocRequest")
    };
    for min in ["0.3.0", "0.1.0"] {
        let (request, record) = ("pub id: u64, pub priority: u32,", "pub a: u32, pub b: u32,");
        repo.write(&lib_from("0.6.0", min, request, record));
        for command in [
            &["check", "--format", "json"][..],
            &["matrix", "--releases", "5", "--format", "json"][..],
        ] {
            let in_turn = run(&[command, &["--no-cache"]].concat());
            // The store as the check before left it (with min_compatible 0.1.0: v0.1.0 stored
            // records-only), then none.
            let warm = run(command);
            let _ = std::fs::remove_dir_all(&store);
            let cold = run(command);
            assert_eq!(warm, in_turn, "{command:?} warm, min_compatible {min}");
            assert_eq!(cold, in_turn, "{command:?} cold, min_compatible {min}");
            let skipped = in_turn.2.matches("release v0.2.0").count();
            assert_eq!(skipped, 1, "{command:?}: {}", in_turn.2);
        }
        let (code, stdout, stderr) = run(&["check", "--format", "json"]);
        // 0.6.0 is a major bump of 0.5.0, which pays for the record's new required `b`; but the
        // working tree cannot read v0.3.0's records, and either window reaches v0.3.0 (issue 33). v0.1.0's
        // request lacks `priority`: compared only from min_compatible 0.1.0 on, where it is known history
        // (v0.3.0 paid for it), and a window reaching v0.1.0 again promises a pair that fails.
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(full_request_break(&stdout), min == "0.1.0", "{stdout}");
        let json: Value = serde_json::from_str(&stdout).unwrap();
        let spans: Vec<&str> = json["protocols"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "min_compatible_spans_break")
            .map(|f| f["against"].as_str().unwrap())
            .collect();
        let expected: &[&str] = if min == "0.1.0" {
            &["v0.1.0", "v0.3.0"]
        } else {
            &["v0.3.0"]
        };
        assert_eq!(spans, expected, "{stdout}");
    }
    // A store that cannot be written: the same report.
    std::fs::remove_dir_all(&store).unwrap();
    std::fs::write(&store, "not a directory").unwrap();
    let in_turn = run(&["check", "--format", "json", "--no-cache"]);
    assert_eq!(run(&["check", "--format", "json"]), in_turn);
}
