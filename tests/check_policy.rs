//! End to end (issue 33): changes that passed a check silently, now refused on small git repositories:
//! a message a positional protocol adds that no release can read back (item 4), the upgrade order
//! changed (item 6), a `since` above the protocol's version and an allow without a reason (item 8).
#![cfg(feature = "checker")]

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

mod support;
use support::git;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Repo {
    /// A repository whose release v0.1.0 has `lib.rs` as `released`.
    fn released(released: &str) -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ws");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
        git(&dir, &["init", "-q"]);
        let repo = Repo { _tmp: tmp, dir };
        repo.write(released);
        git(&repo.dir, &["add", "-A"]);
        git(&repo.dir, &["commit", "-q", "-m", "0.1.0"]);
        git(&repo.dir, &["tag", "v0.1.0"]);
        repo
    }

    fn write(&self, lib: &str) {
        std::fs::write(self.dir.join("src/lib.rs"), lib).unwrap();
    }

    fn check(&self) -> (Output, Value) {
        let out = support::check(&self.dir, &[]);
        let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out, json)
    }
}

/// The rule ids of the counted findings of the report's first protocol.
fn counted(json: &Value) -> Vec<&str> {
    json["protocols"][0]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"))
        .iter()
        .filter(|f| f["allowed"] == false && f["known"] == false)
        .map(|f| f["rule"].as_str().unwrap())
        .collect()
}

/// A protocol `p` at `version` with the options `options` (after the version), and `items`.
fn lib(version: &str, options: &str, items: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\"{options})]\npub struct P;\n\n{items}"
    )
}

const REQUEST: &str = "#[derive(Serialize, Deserialize, Message)]\n\
    #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
    pub struct AllocRequest { pub id: u64 }\n";

/// Item 4: a postcard protocol adds a message holding an untagged enum; a patch release was enough, and
/// no release, the new one included, can read the message.
#[test]
fn a_positional_message_nobody_can_decode_fails_the_check() {
    let repo = Repo::released(&lib("0.1.0", ", format = \"postcard\"", REQUEST));
    let added = "#[derive(Serialize, Deserialize, Message)]\n\
        #[wire(protocol = P, topic = \"p.status\", kind = \"event\")]\n\
        pub struct Status { pub state: State }\n\
        #[derive(Serialize, Deserialize)]\n#[serde(untagged)]\npub enum State { Code(u8), Text(String) }\n";
    repo.write(&lib(
        "0.1.1",
        ", format = \"postcard\"",
        &format!("{REQUEST}{added}"),
    ));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    assert!(
        counted(&json).contains(&"positional_undecodable"),
        "{json:#}"
    );
    // The same message in JSON is a message added, a patch release.
    let repo = Repo::released(&lib("0.1.0", "", REQUEST));
    repo.write(&lib("0.1.1", "", &format!("{REQUEST}{added}")));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    assert_eq!(counted(&json), ["message_added"]);
}

/// Item 6: any-order to server-first drops the pairing of a client upgraded first: a major change; the
/// reverse is proven in every direction: a minor one.
#[test]
fn the_upgrade_order_changing_is_a_finding_by_the_direction_table() {
    let repo = Repo::released(&lib("0.1.0", "", REQUEST));
    repo.write(&lib("0.1.1", ", upgrade = \"server-first\"", REQUEST));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    assert_eq!(counted(&json), ["upgrade_order_changed"]);
    assert_eq!(json["protocols"][0]["required_version"], "0.2.0");
    let repo = Repo::released(&lib("0.1.0", ", upgrade = \"server-first\"", REQUEST));
    repo.write(&lib("0.1.0", "", REQUEST));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    assert_eq!(json["protocols"][0]["required_bump"], "minor");
    repo.write(&lib("0.1.1", "", REQUEST));
    let (out, _) = repo.check();
    assert_eq!(out.status.code(), Some(0));
}

/// Item 8: a `since` above the protocol's declared version (a message's, a field's, a variant's) fails
/// the check until the version reaches it or the `since` is corrected; one at or below it is fine.
#[test]
fn a_since_above_the_declared_version_fails_the_check() {
    let repo = Repo::released(&lib("0.1.0", "", REQUEST));
    let added = "#[derive(Serialize, Deserialize, Message)]\n\
        #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
        pub struct AllocRequest {\n    pub id: u64,\n    #[wire(since = \"0.2.0\")]\n    #[serde(default)]\n    pub mode: Mode,\n}\n\
        #[derive(Serialize, Deserialize, Default)]\n\
        pub enum Mode {\n    #[default]\n    Fast,\n    #[wire(since = \"0.3.0\")]\n    Slow,\n}\n";
    repo.write(&lib("0.1.1", "", added));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    let since: Vec<&str> = json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "since_above_version")
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(since, ["AllocRequest.mode", "Mode.Slow"], "{json:#}");
    let message = json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "Mode.Slow")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains(
            "says `since = \"0.3.0\"`, after the version p declares, 0.1.1: declare 0.3.0 or later"
        ),
        "{message}"
    );
    // The version that reaches every `since` passes.
    repo.write(&lib("0.3.0", "", added));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    // A message's own `since`.
    repo.write(&lib(
        "0.1.1",
        "",
        &REQUEST.replace(
            "kind = \"request\"",
            "kind = \"request\", since = \"1.0.0\"",
        ),
    ));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    assert_eq!(counted(&json), ["since_above_version"]);
}

/// Item 9: `explain` with a misspelled rule suggests the closest one, as `allow(...)` does.
#[test]
fn explain_suggests_the_closest_rule() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["explain", "feld_removed"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no rule `feld_removed`: did you mean `field_removed`?"),
        "{err}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["explain", "something_else_entirely"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("did you mean"), "{err}");
}

/// Item 9: `--first-release` is described one way: no release precedes HEAD (none at all, or HEAD is the
/// first release tag), in the command's help and in the report alike.
#[test]
fn first_release_is_described_one_way() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["check", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("No release before HEAD yet"), "{help}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib("0.1.0", "", REQUEST)).unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "first"]);
    for tagged in [false, true] {
        if tagged {
            // A tag push of the first release: still no release before HEAD.
            git(&dir, &["tag", "v0.1.0"]);
        }
        let out = support::check(&dir, &["--first-release"]);
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{json:#}");
        let note = json["notes"][0].as_str().unwrap();
        assert!(note.contains("no release precedes HEAD"), "{note}");
    }
}

/// Item 9: two types of one name in two modules are named by their paths, not `Level` and `Level`.
#[test]
fn same_named_types_are_told_apart_by_their_paths() {
    let modules = "pub mod a {\n    #[derive(serde::Serialize, serde::Deserialize)]\n    pub struct Level { pub x: u8 }\n}\n\
        pub mod b {\n    #[derive(serde::Serialize, serde::Deserialize)]\n    pub enum Level { Low, High }\n}\n";
    let message = |level: &str| {
        format!(
            "{modules}#[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
             pub struct AllocRequest {{ pub id: u64, pub level: {level} }}\n"
        )
    };
    for options in ["", ", format = \"postcard\""] {
        let repo = Repo::released(&lib("0.1.0", options, &message("a::Level")));
        repo.write(&lib("0.2.0", options, &message("b::Level")));
        let (_, json) = repo.check();
        let messages: Vec<&str> = json["protocols"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["message"].as_str().unwrap())
            .collect();
        assert!(!messages.is_empty(), "{json:#}");
        for message in messages {
            assert!(
                message.contains("`a::Level`") && message.contains("`b::Level`"),
                "{options}: {message}"
            );
        }
    }
}

/// Item 9: a variant whose payload changed says it from the old release to the new one, in both
/// directions (it said `newtype to unit` of a unit variant that became a newtype).
#[test]
fn a_changed_variant_payload_is_said_from_old_to_new() {
    let items = |variant: &str| {
        format!(
            "#[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
             pub struct AllocRequest {{ pub id: u64, pub mode: Mode }}\n\
             #[derive(Serialize, Deserialize)]\npub enum Mode {{ {variant}, Slow }}\n"
        )
    };
    let repo = Repo::released(&lib("0.1.0", "", &items("Fast")));
    repo.write(&lib("0.2.0", "", &items("Fast(u8)")));
    let (_, json) = repo.check();
    let findings = json["protocols"][0]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{json:#}");
    for f in findings {
        let message = f["message"].as_str().unwrap();
        assert!(message.contains("(unit to newtype)"), "{message}");
    }
}

/// Item 9: a string read as an enum since the change is rejected with serde's `unknown variant` of
/// the string the old release writes, the empty one included: said as the empty string, not as two
/// backquotes.
#[test]
fn an_empty_variant_tag_is_said_as_the_empty_string() {
    let items = |kind: &str| {
        format!(
            "#[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
             pub struct AllocRequest {{ pub id: u64, pub kind: {kind} }}\n\
             #[derive(Serialize, Deserialize)]\npub enum Kind {{ A, B }}\n"
        )
    };
    let repo = Repo::released(&lib("0.1.0", "", &items("String")));
    repo.write(&lib("0.2.0", "", &items("Kind")));
    let (_, json) = repo.check();
    let text = json.to_string();
    assert!(
        text.contains("unknown variant \\\"\\\" (the empty string"),
        "{json:#}"
    );
    assert!(!text.contains("unknown variant ``"), "{json:#}");
}

/// Item 9: serde_repr enums: the help of a changed discriminant says to keep the discriminant, not to
/// `rename` (which does not apply to them); and `external_type_changed` no longer says "another crate"
/// of a type of the crate itself whose impls are written by hand.
#[test]
fn the_catalogue_words_fit_serde_repr_and_the_crates_own_types() {
    let rules = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let rules: Value = serde_json::from_slice(&rules.stdout).unwrap();
    let rule = |id: &str| {
        rules
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {rules:#}"))
            .clone()
    };
    let explain = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["explain", "variant_renamed"])
        .output()
        .unwrap();
    let explain = String::from_utf8_lossy(&explain.stdout);
    assert!(explain.contains("keep the discriminant"), "{explain}");
    let help = wirecheck::rules::RuleId::VariantRenamed.rule().help;
    assert!(help.contains("serde_repr, keep its discriminant"), "{help}");
    let external = rule("external_type_changed");
    let summary = external["summary"].as_str().unwrap();
    assert!(summary.contains("hand-written serde impls"), "{summary}");
}

/// Item 9: one change, one rule. `String` to `uuid::Uuid` in postcard broke both directions, reported as
/// `field_type_changed` one way and `value_domain_narrowed` the other; both are the type change.
#[test]
fn a_type_change_is_one_rule_in_both_directions() {
    let items = |ty: &str| {
        format!(
            "#[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"p.alloc\", kind = \"request\")]\n\
             pub struct AllocRequest {{ pub id: u64, pub key: {ty} }}\n"
        )
    };
    let repo = Repo::released(&lib("0.1.0", ", format = \"postcard\"", &items("String")));
    let manifest = format!("{MANIFEST}\n[dependencies]\nuuid = \"1\"\n");
    std::fs::write(repo.dir.join("Cargo.toml"), manifest).unwrap();
    repo.write(&lib(
        "0.2.0",
        ", format = \"postcard\"",
        &items("uuid::Uuid"),
    ));
    let (out, json) = repo.check();
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    let rules: Vec<(&str, &str)> = json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["direction"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("field_type_changed", "old reads new"),
            ("field_type_changed", "new reads old")
        ],
        "{json:#}"
    );
}
