#![cfg(feature = "checker")]
//! End-to-end fixtures: `tests/fixtures/<rule>[__<case>]/{old,new}/lib.rs` are real Rust sources run
//! through extraction and the engine. Each fixture must report its rule at the expected level (or
//! nothing, for `none__*`), find nothing against itself, and match the insta snapshot of its findings
//! kept next to it (`findings.snap`).

use std::path::{Path, PathBuf};

use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Finding, Level};
use wirecheck::model::Snapshot;
use wirecheck::rules::Evidence;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn source(dir: &Path, side: &str) -> String {
    let file = dir.join(side).join("lib.rs");
    match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => panic!("{}: {e}", file.display()),
    }
}

fn extract(dir: &Path, side: &str) -> Snapshot {
    extract_text(dir, side, &source(dir, side))
}

/// The model of the fixture side `side` in `dir` whose `lib.rs` reads `text`.
fn extract_text(dir: &Path, side: &str, text: &str) -> Snapshot {
    match try_extract(dir, side, text) {
        Ok(s) => s,
        Err(e) => panic!("{}: {e}", dir.join(side).join("lib.rs").display()),
    }
}

/// [`extract_text`], or the extraction's error.
fn try_extract(dir: &Path, side: &str, text: &str) -> Result<Snapshot, String> {
    // A fixture side may have its package's Cargo.toml: its features decide its `#[cfg]`s.
    let manifest = std::fs::read_to_string(dir.join(side).join("Cargo.toml")).ok();
    let mut files = vec![("src/lib.rs", text)];
    if let Some(manifest) = &manifest {
        files.push(("Cargo.toml", manifest.as_str()));
    }
    snapshot_from_sources("fixture", &files).map_err(|e| e.to_string())
}

fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    let mut names: Vec<&str> = old
        .protocols
        .iter()
        .chain(&new.protocols)
        .map(|p| p.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .flat_map(|p| compare_protocol(old, new, p, "v0.1.0", Scope::Full))
        .collect()
}

fn run(name: &str, level: Level) {
    let dir = fixtures_dir().join(name);
    let (old, new) = (extract(&dir, "old"), extract(&dir, "new"));
    // A fixture whose source wirecheck cannot fully see (a hand-written impl) keeps its notes in
    // `notes.snap`; every other fixture has none.
    let notes: Vec<(&str, &wirecheck::model::ExtractNote)> = old
        .notes
        .iter()
        .map(|n| ("old", n))
        .chain(new.notes.iter().map(|n| ("new", n)))
        .collect();
    if !notes.is_empty() || dir.join("notes.snap").exists() {
        insta::with_settings!({
            snapshot_path => &dir,
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!("notes", notes);
        });
    }
    assert_eq!(compare(&old, &old), vec![], "{name}: old against itself");
    assert_eq!(compare(&new, &new), vec![], "{name}: new against itself");
    let findings = compare(&old, &new);
    let rule = name.split("__").next().unwrap_or(name);
    if level == Level::None {
        assert_eq!(findings, vec![], "{name}: a wire-identical change");
    } else {
        assert!(
            findings
                .iter()
                .any(|f| f.rule.as_str() == rule && f.level == level),
            "{name}: no {level} {rule} in {findings:#?}"
        );
        assert!(
            findings.iter().all(|f| f.level != Level::Major
                || f.witness.is_some()
                // The contract's exception: what a type or function writes is unknown, and the
                // finding says so rather than inventing a value.
                || f.message.contains("(no witness: ")
                || matches!(
                    f.rule.rule().evidence,
                    Evidence::Opaque | Evidence::NoPayload
                )),
            "{name}: a major finding without a witness"
        );
    }
    insta::with_settings!({
        snapshot_path => dir,
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_json_snapshot!("findings", findings);
    });
}

/// Every fixture directory, sorted.
fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The level a fixture must report its rule at: its rule's level in the catalogue, `none` for
/// `none__*`, or what its `level` file says (a case where the rule is reported lower, and why).
fn expected_level(name: &str) -> Level {
    let rule = name.split("__").next().unwrap_or(name);
    let written = std::fs::read_to_string(fixtures_dir().join(name).join("level"));
    match (rule, written) {
        (_, Ok(text)) => match text.split([':', ' ', '\n']).next() {
            Some("none") => Level::None,
            Some("minor") => Level::Minor,
            Some("major") => Level::Major,
            other => panic!("tests/fixtures/{name}/level: {other:?} is not none, minor or major"),
        },
        ("none", Err(_)) => Level::None,
        (rule, Err(_)) => match wirecheck::rules::RuleId::from_id(rule) {
            Some(id) => id.rule().level,
            None => panic!("fixture `{name}` names no rule of the catalogue"),
        },
    }
}

/// Every directory of `tests/fixtures/` is a fixture: run each, and name every one that fails.
#[test]
fn every_fixture() {
    let names = fixture_names();
    assert!(names.len() > 50, "tests/fixtures/ was not found");
    let failed: Vec<&String> = names
        .iter()
        .filter(|name| std::panic::catch_unwind(|| run(name, expected_level(name))).is_err())
        .collect();
    assert!(failed.is_empty(), "fixtures that fail: {failed:?}");
}

/// A finding names its place twice: by Rust path (`field`) and as peers in other languages see it on the
/// wire (`wire_path`: the keys after `rename_all`, `[]` for the elements of a `Vec`).
#[test]
fn wire_path_names_a_renamed_key_inside_a_vec() {
    let dir = fixtures_dir().join("field_renamed__nested_in_vec");
    let findings = compare(&extract(&dir, "old"), &extract(&dir, "new"));
    assert!(!findings.is_empty());
    for finding in &findings {
        assert_eq!(
            finding.field.as_deref(),
            Some("signatures.active_parameter")
        );
        assert_eq!(
            finding.wire_path.as_deref(),
            Some("signatures[].activeParameter")
        );
        let json = serde_json::to_value(finding).expect("a finding serializes");
        assert_eq!(json["wire_path"], "signatures[].activeParameter");
    }
}

/// Rules that no source pair of one crate can show, and the test that covers each instead.
const COVERED_ELSEWHERE: &[(&str, &str)] = &[
    (
        "protocol_removed",
        "tests/check_git.rs removed_protocol_is_major (a protocol is compared only when both sides declare it)",
    ),
    (
        "fixtures_missing",
        "tests/fixtures_cli.rs check_reports_a_release_without_fixtures (about the committed fixture files, not the source)",
    ),
    (
        "since_above_version",
        "tests/check_policy.rs a_since_above_the_declared_version_fails_the_check (the check compares a `since` with its protocol's version, not two releases)",
    ),
    (
        "min_compatible_spans_break",
        "tests/check_window.rs (a window reaches releases of a git history, not one pair of sources); the Flux history's every window in xtask's tests::windows",
    ),
];

#[test]
fn every_rule_has_a_fixture() {
    let dirs: Vec<String> = std::fs::read_dir(fixtures_dir())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for rule in wirecheck::rules::RULES {
        let has_fixture = dirs.iter().any(|d| d.split("__").next() == Some(rule.id));
        let elsewhere = COVERED_ELSEWHERE.iter().any(|(id, _)| *id == rule.id);
        assert!(
            has_fixture ^ elsewhere,
            "rule `{}`: needs exactly one of a tests/fixtures/{}/ pair or a COVERED_ELSEWHERE entry",
            rule.id,
            rule.id
        );
    }
    for dir in &dirs {
        let rule = dir.split("__").next().unwrap_or(dir);
        assert!(
            rule == "none" || wirecheck::rules::RuleId::from_id(rule).is_some(),
            "fixture `{dir}` names no rule of the catalogue"
        );
    }
}

/// An allow written where a finding points reaches it, whatever the rule: placing a finding and
/// reading the allows at its place are the engine's. For every finding of every fixture that points
/// at a field, a variant or a message of the new release, the fixture's new side is given
/// `#[wire(allow(RULE), reason = ...)]` on that line, and the finding must come out allowed.
#[test]
fn an_allow_where_a_finding_points_allows_it() {
    let mut ignored = Vec::new();
    let mut tried = 0;
    for name in fixture_names() {
        let dir = fixtures_dir().join(&name);
        let old = extract(&dir, "old");
        let text = source(&dir, "new");
        let findings = compare(&old, &extract(&dir, "new"));
        for finding in findings.iter().filter(|f| allowable_here(f, &text)) {
            let allowed_text = with_allow_before(&text, finding);
            // An item that takes no allow (a protocol's declaration: wirecheck.toml allows those)
            // is an error the derive reports too, never an allow ignored.
            let Ok(allowed) = try_extract(&dir, "new", &allowed_text) else {
                continue;
            };
            let again = compare(&old, &allowed);
            tried += 1;
            let same = |f: &&Finding| {
                f.rule == finding.rule
                    && f.field == finding.field
                    && f.message_type == finding.message_type
                    && f.direction == finding.direction
            };
            if !again.iter().filter(same).all(|f| f.allowed) || !again.iter().any(|f| same(&f)) {
                ignored.push(format!(
                    "{name}: {} at line {} ({:?})",
                    finding.rule, finding.location.line, finding.field
                ));
            }
        }
    }
    assert!(tried > 50, "only {tried} findings tried");
    assert!(
        ignored.is_empty(),
        "allows written where these findings point do not reach them:\n{}",
        ignored.join("\n")
    );
}

/// A finding of the new side, not allowed yet, whose line is a field, a variant or the message's
/// type: a place `#[wire(allow(..))]` may be written (on another type the compiler rejects it).
fn allowable_here(finding: &Finding, text: &str) -> bool {
    let line = text
        .lines()
        .nth(finding.location.line.saturating_sub(1) as usize);
    let declares = line.is_some_and(|l| {
        let l = l.trim_start();
        let item = ["struct ", "enum ", "type "]
            .iter()
            .any(|kind| l.starts_with(kind) || l.starts_with(&format!("pub {kind}")));
        let message = l.contains(&format!("struct {} ", finding.message_type))
            || l.contains(&format!("struct {}{{", finding.message_type));
        // A macro's invocation (`id_type!(Id, u64);`) is no item an allow can be written on.
        let invocation = l.contains("!(") || l.contains("!{") || l.contains("![");
        let member = !item
            && !invocation
            && l.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            && !["use ", "impl", "fn ", "mod ", "const ", "static "]
                .iter()
                .any(|kw| l.starts_with(kw) || l.starts_with(&format!("pub {kw}")));
        message || member
    });
    finding.side == wirecheck::findings::Side::New
        && !finding.allowed
        && finding.level != Level::None
        && finding.location.file == "src/lib.rs"
        && declares
}

/// `text` with `#[wire(allow(RULE), reason = "...")]` on its own line before the finding's line.
fn with_allow_before(text: &str, finding: &Finding) -> String {
    let at = finding.location.line.saturating_sub(1) as usize;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let indent: String = lines[at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let allow = format!(
        "{indent}#[wire(allow({}), reason = \"the test allows it where it points\")]",
        finding.rule
    );
    lines.insert(at, allow);
    lines.join("\n") + "\n"
}
