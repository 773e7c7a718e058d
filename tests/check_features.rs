//! End to end: `check` under cargo's feature flags. A temp git repository whose release and working tree
//! differ only behind features: a field whose `#[cfg]` is dropped, a `serde(rename)` behind a
//! `cfg_attr`, a serde derive moved behind a `cfg_attr`, and a module (`#[cfg] mod`) whose type gains a
//! field. Each change is a finding exactly in the builds where it exists: defaults, `--features`,
//! `--all-features`. `tests/cfg_truth.rs` compiles the same shapes with and without the features.
#![cfg(feature = "checker")]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

mod support;
use support::{git, write};

const MANIFEST: &str = r#"[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[features]
extra = []
renamed = []
hand = []

[workspace]
"#;

/// The crate root at `version`; `released` is the older release's text.
fn lib(version: &str, released: bool) -> String {
    let (note_cfg, label_attr, level_derive) = if released {
        (
            "#[cfg(feature = \"extra\")]\n    ",
            "",
            "#[derive(Serialize, Deserialize)]",
        )
    } else {
        (
            "",
            "#[cfg_attr(feature = \"renamed\", serde(rename = \"Label\"))]\n    ",
            "#[cfg_attr(not(feature = \"hand\"), derive(Serialize, Deserialize))]",
        )
    };
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "events", version = "{version}")]
pub struct Events;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Events, topic = "events.put", kind = "request")]
pub struct Put {{
    pub id: u64,
    {note_cfg}pub note: String,
    {label_attr}pub label: String,
    pub level: Level,
    pub detail: detail::Detail,
}}

{level_derive}
pub enum Level {{
    Low,
}}

#[cfg(feature = "extra")]
mod detail;
#[cfg(not(feature = "extra"))]
#[path = "detail_plain.rs"]
mod detail;
"#
    )
}

fn detail(fields: &str) -> String {
    format!("#[derive(serde::Serialize, serde::Deserialize)]\npub struct Detail {{\n{fields}}}\n")
}

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

/// v0.1.0, then a working tree whose changes are all behind features.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    write(&dir.join("Cargo.toml"), MANIFEST);
    write(&dir.join("src/lib.rs"), &lib("0.1.0", true));
    write(&dir.join("src/detail.rs"), &detail("    pub a: u8,\n"));
    write(
        &dir.join("src/detail_plain.rs"),
        &detail("    pub a: u8,\n"),
    );
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "0.1.0"]);
    git(&dir, &["tag", "v0.1.0"]);
    write(&dir.join("src/lib.rs"), &lib("0.1.1", false));
    write(
        &dir.join("src/detail.rs"),
        &detail("    pub a: u8,\n    pub b: u8,\n"),
    );
    git(&dir, &["commit", "-q", "-am", "changes behind features"]);
    Fixture { _tmp: tmp, dir }
}

/// The findings of `check` with these feature flags, as `rule: message`.
fn findings(fixture: &Fixture, flags: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["check", "--format", "json", "--no-cache", "--manifest-path"])
        .arg(fixture.dir.join("Cargo.toml"))
        .args(flags)
        .env("CARGO_NET_OFFLINE", "true")
        .current_dir(&fixture.dir)
        .output()
        .expect("wirecheck runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    if std::env::var_os("SHOW").is_some() {
        eprintln!("{flags:?}: {json:#}");
    }
    json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}: {}",
                f["rule"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

fn any(findings: &[String], rule: &str, word: &str) -> bool {
    findings
        .iter()
        .any(|f| f.starts_with(&format!("{rule}: ")) && f.contains(word))
}

#[test]
fn default_build_sees_only_the_field_whose_cfg_was_dropped() {
    let fixture = fixture();
    let found = findings(&fixture, &[]);
    // `note` was behind `extra`, now always there: added, and required.
    assert!(any(&found, "required_field_added", "note"), "{found:#?}");
    // The rename, the derive and the module's new field are behind features that are off.
    assert_eq!(found.len(), 1, "{found:#?}");
}

#[test]
fn a_feature_on_the_command_line_brings_what_it_guards() {
    let fixture = fixture();
    let found = findings(&fixture, &["--features", "extra"]);
    // `note` was there already with `extra`; the `detail` module of `extra` gained `b`.
    assert!(!found.iter().any(|f| f.contains("note")), "{found:#?}");
    assert!(any(&found, "required_field_added", "`b`"), "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    let found = findings(&fixture, &["--features", "renamed"]);
    assert!(any(&found, "required_field_added", "note"), "{found:#?}");
    assert!(found.iter().any(|f| f.contains("Label")), "{found:#?}");
    assert!(!found.iter().any(|f| f.contains("`b`")), "{found:#?}");
}

#[test]
fn all_features_see_every_change() {
    let fixture = fixture();
    let found = findings(&fixture, &["--all-features"]);
    assert!(!found.iter().any(|f| f.contains("note")), "{found:#?}");
    assert!(any(&found, "required_field_added", "`b`"), "{found:#?}");
    assert!(found.iter().any(|f| f.contains("Label")), "{found:#?}");
    // With `hand`, `Level` no longer derives serde's traits: what it writes is no longer known.
    assert!(found.iter().any(|f| f.contains("Level")), "{found:#?}");
    let defaults = findings(&fixture, &["--no-default-features", "--features", "hand"]);
    assert!(
        defaults.iter().any(|f| f.contains("Level")),
        "{defaults:#?}"
    );
}
