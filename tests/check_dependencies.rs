//! End to end: types followed into dependencies. A temp git repository whose message reaches a type of a
//! registry package (laid out in a temp `CARGO_HOME`, as Cargo's source cache keeps it) and of a path
//! dependency; its `Cargo.lock` moves the registry package to a version whose type's shape changed.
//! Offline: nothing is fetched, and `cargo metadata --no-deps` resolves nothing.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;
use support::{git, write};

const MANIFEST: &str = r#"[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
linkkit = { version = "1", features = ["serde"] }
shared = { path = "shared" }
ghost = "0.3"

[workspace]
"#;

fn lib(version: &str) -> String {
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "links", version = "{version}")]
pub struct Links;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Links, topic = "links.put", kind = "request")]
pub struct Put {{
    pub link: linkkit::Link,
    pub meta: shared::Meta,
    pub spook: ghost::Spook,
}}
"#
    )
}

fn lock(linkkit: &str) -> String {
    format!(
        r#"version = 4

[[package]]
name = "demo"
version = "0.1.0"
dependencies = [
 "ghost",
 "linkkit",
 "shared",
]

[[package]]
name = "ghost"
version = "0.3.1"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "linkkit"
version = "{linkkit}"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "shared"
version = "0.1.0"
"#
    )
}

/// `linkkit` at `version`, its `Link` with the fields `fields`, derived behind its `serde` feature.
fn registry_package(cargo_home: &Path, version: &str, fields: &str) {
    let dir = cargo_home
        .join("registry/src/index.crates.io-1949cf8c6b5b557f")
        .join(format!("linkkit-{version}"));
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"linkkit\"\nversion = \"{version}\"\n\n[features]\nserde = []\n"
        ),
    );
    write(
        &dir.join("src/lib.rs"),
        &format!(
            "#[cfg_attr(feature = \"serde\", derive(serde::Serialize, serde::Deserialize))]\npub struct Link {{\n{fields}}}\n"
        ),
    );
}

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    cargo_home: PathBuf,
}

/// v0.1.0 locks linkkit 1.0.0 (`Link { href }`); the working tree locks 1.1.0, whose `Link` has a
/// required `rel` as well.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    let cargo_home = tmp.path().join("cargo-home");
    registry_package(&cargo_home, "1.0.0", "    pub href: String,\n");
    registry_package(
        &cargo_home,
        "1.1.0",
        "    pub href: String,\n    pub rel: String,\n",
    );
    write(&dir.join("Cargo.toml"), MANIFEST);
    write(
        &dir.join("shared/Cargo.toml"),
        "[package]\nname = \"shared\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &dir.join("shared/src/lib.rs"),
        "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Meta {\n    pub by: String,\n}\n",
    );
    write(&dir.join("src/lib.rs"), &lib("0.1.0"));
    write(&dir.join("Cargo.lock"), &lock("1.0.0"));
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "0.1.0"]);
    git(&dir, &["tag", "v0.1.0"]);
    write(&dir.join("src/lib.rs"), &lib("0.1.1"));
    write(&dir.join("Cargo.lock"), &lock("1.1.0"));
    git(&dir, &["commit", "-q", "-am", "upgrade linkkit"]);
    Fixture {
        _tmp: tmp,
        dir,
        cargo_home,
    }
}

fn check(fixture: &Fixture) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["check", "--format", "json", "--no-cache", "--manifest-path"])
        .arg(fixture.dir.join("Cargo.toml"))
        .env("CARGO_HOME", &fixture.cargo_home)
        .env("CARGO_NET_OFFLINE", "true")
        .current_dir(&fixture.dir)
        .output()
        .expect("wirecheck runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_dependency_upgrade_that_changes_a_shape_is_a_finding_naming_both_versions() {
    let fixture = fixture();
    let json = check(&fixture);
    if std::env::var_os("SHOW").is_some() {
        eprintln!("{json:#}");
    }
    let findings = json["protocols"][0]["findings"].as_array().unwrap();
    let upgrade: Vec<&Value> = findings
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("linkkit 1.0.0") && m.contains("linkkit 1.1.0"))
        })
        .collect();
    assert!(!upgrade.is_empty(), "{json:#}");
    assert!(
        upgrade
            .iter()
            .any(|f| f["rule"] == "required_field_added" && f["level"] == "major"),
        "{json:#}"
    );
    // The path dependency's type, read from git at the release, did not change: no finding names it.
    assert!(
        !findings
            .iter()
            .any(|f| f["message"].as_str().unwrap_or_default().contains("Meta")),
        "{json:#}"
    );
}

#[test]
fn a_dependency_not_on_disk_gets_a_note_naming_package_and_version() {
    let fixture = fixture();
    let json = check(&fixture);
    let notes: Vec<&str> = json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|n| n.contains("ghost 0.3.1"))
        .collect();
    assert!(!notes.is_empty(), "{json:#}");
    assert!(notes.iter().all(|n| n.contains("cargo fetch")), "{notes:?}");
}
