//! End to end (issue 33, item 1): the window a protocol declares (`min_compatible`, else the first release
//! of its series) is proved. Every release tag inside it must interoperate with the working tree: a break
//! against one, new or known, fails the check with `min_compatible_spans_break`, whatever the version, and
//! the handshake accepts exactly the releases the check proved.
#![cfg(feature = "checker")]

use std::path::PathBuf;

use serde_json::Value;
use wirecheck::handshake::{Hello, ProtocolVersion, negotiate};

mod support;
use support::git;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

/// A library with protocol `sched` at `version` (with `min`, the `min_compatible` key when not empty) and
/// a request of the fields `fields`.
fn lib(version: &str, min: &str, fields: &str) -> String {
    let min = if min.is_empty() {
        String::new()
    } else {
        format!(", min_compatible = \"{min}\"")
    };
    format!(
        r#"use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "sched", version = "{version}"{min})]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {{
    pub id: u64,
{fields}}}
"#
    )
}

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Repo {
    /// A repository with one commit and tag per `(version, min, fields)`, oldest first.
    fn with_releases(releases: &[(&str, &str, &str)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ws");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), MANIFEST).unwrap();
        git(&dir, &["init", "-q"]);
        let repo = Repo { _tmp: tmp, dir };
        for (version, min, fields) in releases {
            repo.write(version, min, fields);
            git(&repo.dir, &["add", "-A"]);
            git(&repo.dir, &["commit", "-q", "-m", version]);
            git(&repo.dir, &["tag", &format!("v{version}")]);
        }
        repo
    }

    fn write(&self, version: &str, min: &str, fields: &str) {
        std::fs::write(self.dir.join("src/lib.rs"), lib(version, min, fields)).unwrap();
    }

    /// `check --format json`, with and without the store (which must agree): the exit code and report.
    fn check(&self) -> (i32, Value) {
        let text = support::report(&self.dir);
        let out = support::check(&self.dir, &[]);
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (out.status.code().unwrap_or(-1), json)
    }
}

/// The findings of the report's only protocol whose rule is `rule`.
fn findings<'j>(json: &'j Value, rule: &str) -> Vec<&'j Value> {
    json["protocols"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

const T: &str = "    pub t: u32,\n";

/// Item 1 (a): the version bumped to the next series pays for the break, but a `min_compatible` left
/// inside the broken range still declares the broken release compatible: refused, whatever the version.
#[test]
fn a_break_inside_a_declared_min_compatible_fails_whatever_the_version() {
    let repo = Repo::with_releases(&[("0.1.0", "", T)]);
    // The field every v0.1.0 reader requires is removed; 0.2.0 pays for it...
    repo.write("0.2.0", "", "");
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
    assert!(findings(&json, "min_compatible_spans_break").is_empty());
    assert_eq!(json["protocols"][0]["window"]["min_compatible"], "0.2.0");
    assert_eq!(
        json["protocols"][0]["window"]["releases"],
        serde_json::json!([])
    );
    // ... unless min_compatible still reaches v0.1.0.
    repo.write("0.2.0", "0.1.0", "");
    let (code, json) = repo.check();
    assert_eq!(code, 1, "{json:#}");
    let spans = findings(&json, "min_compatible_spans_break");
    assert_eq!(spans.len(), 1, "{json:#}");
    assert_eq!(spans[0]["against"], "v0.1.0");
    assert_eq!(spans[0]["level"], "major");
    let message = spans[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`field_removed` on AllocRequest.t"),
        "{message}"
    );
    assert!(
        message.contains("raise min_compatible above 0.1.0"),
        "{message}"
    );
    assert_eq!(json["protocols"][0]["required_version"], "0.2.0");
    assert_eq!(
        json["protocols"][0]["window"]["releases"],
        serde_json::json!(["v0.1.0"])
    );
    // A compatible change inside the same window passes.
    repo.write(
        "0.1.1",
        "0.1.0",
        "    pub t: u32,\n    #[serde(default)]\n    pub u: u32,\n",
    );
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
}

/// Item 1 (b): lowering `min_compatible` below a break that an earlier release paid for makes the break
/// known history against the baseline, but the window reaches the broken release again: refused, naming
/// the break and the release that paid for it. The handshake would accept that peer.
#[test]
fn a_window_lowered_across_a_paid_break_fails_naming_the_release_that_paid() {
    let repo = Repo::with_releases(&[("0.1.0", "", T), ("0.2.0", "", ""), ("0.2.1", "", "")]);
    repo.write("0.2.2", "", "");
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["protocols"][0]["window"]["releases"],
        serde_json::json!(["v0.2.0", "v0.2.1"]),
        "the series' default window: the releases the handshake accepts"
    );
    repo.write("0.2.2", "0.1.0", "");
    let (code, json) = repo.check();
    assert_eq!(code, 1, "{json:#}");
    let spans = findings(&json, "min_compatible_spans_break");
    assert_eq!(spans.len(), 1, "{json:#}");
    assert_eq!(spans[0]["against"], "v0.1.0");
    let message = spans[0]["message"].as_str().unwrap();
    assert!(
        message
            .contains("across a break that v0.2.0 paid for (sched 0.2.0 accepts 0.2.0 and later)"),
        "{message}"
    );
    assert!(
        message.contains("`field_removed` on AllocRequest.t"),
        "{message}"
    );
    // The break itself is still known history: it costs no bump.
    let known: Vec<_> = findings(&json, "field_removed");
    assert!(known.iter().all(|f| f["known"] == true), "{json:#}");
    assert_eq!(json["protocols"][0]["required_bump"], "none");
    // What the check refuses, the handshake would have accepted.
    let new = Hello::new("new")
        .with_entry(ProtocolVersion::new("sched", "0.2.2").with_min_compatible("0.1.0"));
    let old = Hello::new("old").with_entry(ProtocolVersion::new("sched", "0.1.0"));
    assert!(negotiate(&new, &old).is_ok());
}

/// A break that shipped inside a series (a release before wirecheck, or one whose check was bypassed)
/// is known history, but the series' default window still reaches the broken release, which the
/// handshake accepts: refused until a `min_compatible` leaves it out.
#[test]
fn a_known_break_inside_the_series_window_fails_until_min_compatible_leaves_it_out() {
    let repo = Repo::with_releases(&[("0.2.0", "", T), ("0.2.1", "", "")]);
    repo.write("0.2.2", "", "");
    let (code, json) = repo.check();
    assert_eq!(code, 1, "{json:#}");
    let spans = findings(&json, "min_compatible_spans_break");
    assert_eq!(spans.len(), 1, "{json:#}");
    assert_eq!(spans[0]["against"], "v0.2.0");
    let message = spans[0]["message"].as_str().unwrap();
    assert!(
        message.contains("no min_compatible: 0.2.0 and later"),
        "{message}"
    );
    assert!(
        message.contains("the baseline v0.2.1 declared it compatible"),
        "{message}"
    );
    repo.write("0.2.2", "0.2.1", "");
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["protocols"][0]["window"]["releases"],
        serde_json::json!(["v0.2.1"])
    );
}

/// An allowed break does not break the window: the allow says the pair is accepted as it is.
#[test]
fn an_allowed_break_leaves_the_window_whole() {
    let repo = Repo::with_releases(&[("0.1.0", "", T)]);
    std::fs::write(
        repo.dir.join("wirecheck.toml"),
        "[[allow]]\nrule = \"field_removed\"\nmessage = \"AllocRequest\"\nfield = \"t\"\nreason = \"no v0.1.0 reader is left\"\n",
    )
    .unwrap();
    repo.write("0.2.0", "0.1.0", "");
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
    assert!(findings(&json, "min_compatible_spans_break").is_empty());
}

/// Item 5: the releases a check does not compare in full (unreadable, not semver, outside every window)
/// are named in every format, JSON included (`skipped_releases`), not on stderr alone.
#[test]
fn skipped_releases_are_named_in_every_format() {
    let repo = Repo::with_releases(&[("0.1.0", "", T)]);
    // v0.2.0 does not parse; `vnext` is no release; v0.3.0 is the baseline.
    std::fs::write(repo.dir.join("src/lib.rs"), "pub struct Broken {\n").unwrap();
    git(&repo.dir, &["commit", "-qam", "broken"]);
    git(&repo.dir, &["tag", "v0.2.0"]);
    git(&repo.dir, &["tag", "vnext"]);
    repo.write("0.3.0", "", T);
    git(&repo.dir, &["commit", "-qam", "0.3.0"]);
    git(&repo.dir, &["tag", "v0.3.0"]);
    repo.write("0.3.1", "", T);
    let (code, json) = repo.check();
    assert_eq!(code, 0, "{json:#}");
    let skipped: Vec<(&str, &str)> = json["skipped_releases"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"))
        .iter()
        .map(|s| (s["tag"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("vnext", "not_semver"),
            ("v0.2.0", "unreadable"),
            ("v0.1.0", "outside_window")
        ]
    );
    assert!(
        json["skipped_releases"][1]["detail"]
            .as_str()
            .unwrap()
            .contains("src/lib.rs")
    );
    for format in ["human", "markdown", "sarif", "junit", "github"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(["check", "--format", format, "--manifest-path"])
            .arg(repo.dir.join("Cargo.toml"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for says in [
            "release v0.2.0 skipped: its source cannot be read",
            "hold no semver version): vnext",
            "release v0.1.0 is outside every protocol's window",
        ] {
            let says = if format == "junit" {
                says.replace('\'', "&apos;")
            } else {
                says.to_owned()
            };
            assert!(
                text.contains(&says),
                "{format} does not say `{says}`:\n{text}"
            );
        }
    }
}
