//! End to end: the store keeps each protocol's comparison (`target/wirecheck/store/<build>/compared/`),
//! so that a check compares again only the protocols whose inputs changed, and prints what a check
//! without the store prints.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::{check, git, report, write};

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

/// Two protocols, `sched` and `ctl`, each with one message whose fields are given. Locations hold byte
/// offsets: `ctl`'s message comes first, so that an edit of `sched`'s leaves `ctl` where it is.
fn lib(alloc_fields: &str, stop_fields: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "1.0.0")]
pub struct Sched;

#[derive(Protocol)]
#[wire(name = "ctl", version = "1.0.0")]
pub struct Ctl;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Ctl, topic = "ctl.stop", kind = "event")]
pub struct Stop {{ {stop_fields} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "event")]
pub struct Alloc {{ {alloc_fields} }}
"#
    )
}

/// The comparisons kept in the store, by file, with the protocol each is of.
fn comparisons(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for build in std::fs::read_dir(dir.join("target/wirecheck/store")).unwrap() {
        let Ok(kept) = std::fs::read_dir(build.unwrap().path().join("compared")) else {
            continue;
        };
        for file in kept {
            let path = file.unwrap().path();
            let json: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            files.push((path, json["name"].as_str().unwrap().to_owned()));
        }
    }
    files.sort();
    files
}

/// The messages of the findings of `protocol` in a JSON report.
fn messages(report: &str, protocol: &str) -> Vec<String> {
    let json: Value = serde_json::from_str(report).unwrap();
    let protocols = json["protocols"].as_array().unwrap();
    let found = protocols.iter().find(|p| p["name"] == protocol).unwrap();
    found["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn only_the_protocol_whose_message_changed_is_compared_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    write(&dir.join("Cargo.toml"), MANIFEST);
    write(
        &dir.join("src/lib.rs"),
        &lib("pub id: u64, pub priority: u32", "pub now: bool"),
    );
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "1.0"]);
    git(&dir, &["tag", "v1.0.0"]);
    // A break in each protocol.
    write(&dir.join("src/lib.rs"), &lib("pub id: u64", "pub now: u8"));
    let first = report(&dir);
    assert!(!messages(&first, "sched").is_empty() && !messages(&first, "ctl").is_empty());
    let kept = comparisons(&dir);
    let names: Vec<&str> = kept.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(names.len(), 2, "{kept:?}");
    assert!(
        names.contains(&"sched") && names.contains(&"ctl"),
        "{kept:?}"
    );
    // A second check prints the same, from the store: nothing new is kept.
    assert_eq!(report(&dir), first);
    assert_eq!(comparisons(&dir), kept);
    // What a check prints for ctl is what the store holds: marked there, the mark shows.
    let (ctl_file, _) = kept.iter().find(|(_, name)| name == "ctl").unwrap();
    let original = std::fs::read(ctl_file).unwrap();
    let mut marked: Value = serde_json::from_slice(&original).unwrap();
    for finding in marked["findings"].as_array_mut().unwrap() {
        finding["message"] = Value::from("read from the store");
    }
    std::fs::write(ctl_file, serde_json::to_vec(&marked).unwrap()).unwrap();
    // One message of sched changes: sched is compared again, ctl is not.
    write(
        &dir.join("src/lib.rs"),
        &lib("pub id: u64, pub slot: String", "pub now: u8"),
    );
    let edited = check(&dir, &[]);
    let edited = String::from_utf8(edited.stdout).unwrap();
    let plain = String::from_utf8(check(&dir, &["--no-cache"]).stdout).unwrap();
    assert!(
        messages(&edited, "ctl")
            .iter()
            .all(|m| m == "read from the store"),
        "{edited}"
    );
    assert_eq!(messages(&edited, "sched"), messages(&plain, "sched"));
    assert_ne!(messages(&edited, "sched"), messages(&first, "sched"));
    let now = comparisons(&dir);
    assert_eq!(now.len(), 3, "{now:?}");
    assert_eq!(now.iter().filter(|(_, name)| name == "sched").count(), 2);
    // Unmarked, the store gives what a check without it gives (once the whole check kept from the
    // marked comparison is gone too: `tests/check_kept.rs`).
    std::fs::write(ctl_file, original).unwrap();
    for build in std::fs::read_dir(dir.join("target/wirecheck/store")).unwrap() {
        let _ = std::fs::remove_dir_all(build.unwrap().path().join("checked"));
    }
    assert_eq!(report(&dir), plain);
}
