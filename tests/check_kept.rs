//! End to end: a check whose working tree and releases are as an earlier check left them reads that
//! check's comparison back from the store (`target/wirecheck/store/<build>/checked/`) without reading a
//! model, and prints what a check without the store prints; any change to what a model comes from is
//! compared again.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::{check, git, report, write};

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

/// Two protocols at `version`: `sched` with a record (read back by every later release) whose fields are
/// given, and `ctl` with an event whose fields are given.
fn lib(version: &str, record_fields: &str, event_fields: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "{version}")]
pub struct Sched;

#[derive(Protocol)]
#[wire(name = "ctl", version = "{version}")]
pub struct Ctl;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.log", kind = "record")]
pub struct Logged {{ {record_fields} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Ctl, topic = "ctl.stop", kind = "event")]
pub struct Stop {{ {event_fields} }}
"#
    )
}

/// The store of the one build that wrote into `dir`'s target directory.
fn store(dir: &Path) -> PathBuf {
    let builds: Vec<PathBuf> = std::fs::read_dir(dir.join("target/wirecheck/store"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(builds.len(), 1, "{builds:?}");
    builds[0].clone()
}

/// The one file of a store's folder.
fn only_file(folder: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The rule ids of a JSON report's findings of `protocol`.
fn rules(report: &str, protocol: &str) -> Vec<String> {
    let json: Value = serde_json::from_str(report).unwrap();
    json["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == protocol)
        .flat_map(|p| p["findings"].as_array().unwrap())
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect()
}

/// A workspace with releases 1.0.0 and 1.1.0 (the record gained a field) and a working tree that
/// breaks each protocol.
fn workspace(dir: &Path) {
    write(&dir.join("Cargo.toml"), MANIFEST);
    write(
        &dir.join("src/lib.rs"),
        &lib("1.0.0", "pub id: u64", "pub now: bool"),
    );
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "1.0"]);
    git(dir, &["tag", "v1.0.0"]);
    write(
        &dir.join("src/lib.rs"),
        &lib(
            "1.1.0",
            "pub id: u64, pub slot: Option<u32>",
            "pub now: bool",
        ),
    );
    git(dir, &["commit", "-q", "-am", "1.1"]);
    git(dir, &["tag", "v1.1.0"]);
    write(
        &dir.join("src/lib.rs"),
        &lib("1.2.0", "pub slot: Option<u32>", "pub now: u8"),
    );
}

#[test]
fn an_unchanged_check_reads_its_comparison_back_without_reading_a_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    let first = report(&dir);
    assert!(
        !rules(&first, "sched").is_empty() && !rules(&first, "ctl").is_empty(),
        "{first}"
    );
    let store = store(&dir);
    let kept = only_file(&store.join("checked"));
    // Without the parts, the comparisons and the working tree's model (its file keeps its first line:
    // what the model depended on and its id), a check prints the same, and reads none of them: nothing
    // is extracted or compared again.
    std::fs::remove_dir_all(store.join("parts")).unwrap();
    std::fs::remove_dir_all(store.join("compared")).unwrap();
    let worktree = only_file(&store.join("worktree"));
    let text = std::fs::read(&worktree).unwrap();
    let head = &text[..=text.iter().position(|&b| b == b'\n').unwrap()];
    std::fs::write(&worktree, head).unwrap();
    let second = check(&dir, &[]);
    assert_eq!(String::from_utf8(second.stdout).unwrap(), first);
    assert!(!store.join("parts").exists() && !store.join("compared").exists());
    assert_eq!(std::fs::read(&worktree).unwrap(), head);
    // What it prints is what the store kept: marked there, the mark shows.
    let original = std::fs::read(&kept).unwrap();
    let mut marked: Value = serde_json::from_slice(&original).unwrap();
    for protocol in marked["value"]["protocols"].as_array_mut().unwrap() {
        for finding in protocol["findings"].as_array_mut().unwrap() {
            finding["message"] = Value::from("read from the store");
        }
    }
    std::fs::write(&kept, serde_json::to_vec(&marked).unwrap()).unwrap();
    let third = String::from_utf8(check(&dir, &[]).stdout).unwrap();
    assert!(third.contains("read from the store"), "{third}");
    // A damaged file is not used: the check compares again (the models are extracted again: the store
    // lost them) and prints what a check without the store prints.
    std::fs::write(&kept, b"{ not json").unwrap();
    assert_eq!(report(&dir), first);
}

#[test]
fn an_edit_that_changes_no_model_reads_no_release() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    let first = report(&dir);
    let store = store(&dir);
    std::fs::remove_dir_all(store.join("parts")).unwrap();
    // A comment after every item: the working tree is extracted again (its file changed), into the
    // model the kept comparison names, so no release is read.
    let lib_rs = dir.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib_rs).unwrap();
    text.push_str("\n// The scheduler's side is in another crate.\n");
    std::fs::write(&lib_rs, text).unwrap();
    let edited = check(&dir, &[]);
    assert_eq!(String::from_utf8(edited.stdout).unwrap(), first);
    // No release was read: reading one would have extracted it again (its parts are gone), writing
    // its parts.
    assert!(!store.join("parts").exists());
    assert_eq!(report(&dir), first);
}

#[test]
fn a_change_to_what_a_model_comes_from_is_compared_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    let first = report(&dir);
    // The working tree changes: compared again (what `report` asserts), and back again.
    write(
        &dir.join("src/lib.rs"),
        &lib("1.2.0", "pub id: u64, pub slot: Option<u32>", "pub now: u8"),
    );
    let edited = report(&dir);
    assert_ne!(rules(&edited, "sched"), rules(&first, "sched"));
    write(
        &dir.join("src/lib.rs"),
        &lib("1.2.0", "pub slot: Option<u32>", "pub now: u8"),
    );
    assert_eq!(report(&dir), first);
    // An older release the store lost is extracted again: the same report.
    let store = store(&dir);
    for entry in std::fs::read_dir(store.join("releases")).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    assert_eq!(report(&dir), first);
    // Another baseline (the working tree released, then changed again): compared again.
    git(&dir, &["commit", "-q", "-am", "1.2"]);
    git(&dir, &["tag", "v1.2.0"]);
    write(
        &dir.join("src/lib.rs"),
        &lib(
            "1.2.1",
            "pub slot: Option<u32>",
            "pub now: u8, pub why: Option<String>",
        ),
    );
    let released = report(&dir);
    let json: Value = serde_json::from_str(&released).unwrap();
    assert_eq!(json["baseline"]["rev"], "v1.2.0", "{released}");
    assert_ne!(released, first);
}

#[test]
fn fixtures_are_checked_when_the_comparison_is_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    // `sched` keeps wire fixtures, none of its baseline's (1.1.0).
    std::fs::create_dir_all(dir.join("wire-fixtures/sched")).unwrap();
    let first = report(&dir);
    assert!(
        rules(&first, "sched").contains(&"fixtures_missing".to_owned()),
        "{first}"
    );
    assert!(!rules(&first, "ctl").contains(&"fixtures_missing".to_owned()));
    // Read back, with the baseline's model needed for the fixtures and lost from the store: the
    // baseline is read again.
    let store = store(&dir);
    std::fs::remove_dir_all(store.join("parts")).unwrap();
    assert_eq!(report(&dir), first);
    // The folder goes: no finding, read back or not.
    std::fs::remove_dir_all(dir.join("wire-fixtures")).unwrap();
    let without = report(&dir);
    assert!(!rules(&without, "sched").contains(&"fixtures_missing".to_owned()));
}

#[test]
fn an_older_release_that_cannot_be_read_is_not_extracted_again_and_keeps_the_check_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    // v1.0.0's record lost a comma: that release cannot be read (a later release, 1.1.0, can).
    let lib_rs = dir.join("src/lib.rs");
    let current = std::fs::read_to_string(&lib_rs).unwrap();
    git(&dir, &["checkout", "-q", "--", "src/lib.rs"]);
    git(&dir, &["checkout", "-q", "v1.0.0"]);
    let broken = lib("1.0.0", "pub id: u64 pub at: u8", "pub now: bool");
    write(&lib_rs, &broken);
    git(&dir, &["commit", "-q", "-am", "1.0 again"]);
    git(&dir, &["tag", "-f", "v1.0.0"]);
    git(&dir, &["checkout", "-q", "-"]);
    git(
        &dir,
        &["merge", "-q", "-s", "ours", "v1.0.0", "-m", "merge"],
    );
    write(&lib_rs, &current);

    let skipped = "skipping release v1.0.0: its source cannot be read (src/lib.rs:";
    let first = report(&dir);
    let store = store(&dir);
    let unreadable: Vec<PathBuf> = std::fs::read_dir(store.join("releases"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".unreadable.json"))
        .collect();
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    let recorded = std::fs::read(&unreadable[0]).unwrap();
    // The next check reads its comparison back, with no model (the parts are gone and stay gone), and
    // still says which release it skipped and why.
    std::fs::remove_dir_all(store.join("parts")).unwrap();
    let second = check(&dir, &[]);
    assert_eq!(String::from_utf8(second.stdout).unwrap(), first);
    let stderr = String::from_utf8(second.stderr).unwrap();
    assert!(stderr.contains(skipped), "{stderr}");
    assert!(!store.join("parts").exists());
    // An edit of the working tree compares again without extracting the release again: its error is
    // the one kept (the file is as the first check wrote it).
    write(
        &lib_rs,
        &lib("1.2.0", "pub id: u64, pub slot: Option<u32>", "pub now: u8"),
    );
    let edited = check(&dir, &[]);
    assert!(String::from_utf8(edited.stderr).unwrap().contains(skipped));
    assert_eq!(std::fs::read(&unreadable[0]).unwrap(), recorded);
    report(&dir);
    // Another filter (the working tree's `ctl` window now starts at 1.2.0: of v1.0.0's `ctl` it reads
    // the records only): extracted again. (A min_compatible of 1.0.0 is the series' window already.)
    write(
        &lib_rs,
        &lib("1.2.0", "pub id: u64, pub slot: Option<u32>", "pub now: u8").replace(
            "name = \"ctl\", version",
            "name = \"ctl\", min_compatible = \"1.2.0\", version",
        ),
    );
    report(&dir);
    assert_ne!(std::fs::read(&unreadable[0]).unwrap(), recorded);
}

/// The ids of the stored parts of the protocol `name`, from the releases' files.
fn part_files(store: &Path, name: &str) -> Vec<PathBuf> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(store.join("releases"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().ends_with(".unreadable.json"))
        .flat_map(|path| {
            let entry: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            let protocols = entry["protocols"].as_array().unwrap().clone();
            protocols
                .into_iter()
                .filter(|p| p["decl"]["name"] == name)
                .map(|p| {
                    let id = p["part"].as_str().unwrap();
                    store.join("parts").join(format!("{id}.json"))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    parts.sort();
    parts.dedup();
    parts
}

#[test]
fn an_edit_of_one_protocol_reads_that_protocols_parts_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    workspace(&dir);
    let first = report(&dir);
    let store = store(&dir);
    // The stored parts of `ctl` damaged: a check that read one would notice, remove it and extract its
    // release again.
    let ctl = part_files(&store, "ctl");
    assert!(!ctl.is_empty());
    for part in &ctl {
        std::fs::write(part, b"{ damaged").unwrap();
    }
    // The pull request edits `sched` alone: `ctl`'s comparison is found by the ids the releases'
    // files give its parts, none of which is read.
    write(
        &dir.join("src/lib.rs"),
        &lib("1.2.0", "pub slot: Option<u64>", "pub now: u8"),
    );
    let edited = report(&dir);
    assert_ne!(rules(&edited, "sched"), rules(&first, "sched"), "{edited}");
    assert_eq!(rules(&edited, "ctl"), rules(&first, "ctl"));
    for part in &ctl {
        let text = std::fs::read_to_string(part).unwrap();
        assert_eq!(text, "{ damaged", "{}", part.display());
    }
    // A part the comparison needs that does not read back: the models are read instead (the release
    // extracted again), and the check prints what a check without the store prints.
    for part in part_files(&store, "sched") {
        std::fs::write(part, b"{ damaged").unwrap();
    }
    write(
        &dir.join("src/lib.rs"),
        &lib("1.2.0", "pub slot: Option<i64>", "pub now: u8"),
    );
    report(&dir);
}
