//! Warm and cold checks agree: the cases of a corpus (each an old and a new release of a crate's
//! source) put into one workspace, one crate each, and checked in a sequence of changes (the new
//! release over the old, a change in files beside them, the old one back over the new) where each
//! check with the store must print what a check without it (`--no-cache`) prints. The store reuses
//! a type's lowering where the questions it asked still get the same answers: a question it did not
//! record shows as a difference here.

use std::path::Path;

use super::{git, report, write};

/// One case: the `src/lib.rs` of a crate that declares its protocols with `#[wire(name = "...", ...)]`
/// (renamed to names of the case's own) at the old and the new release, its manifest's
/// `[features]` section if any, and a file beside it (`src/beside.rs`, declared as `mod beside;` when
/// given) at its first and its changed text.
pub struct Case {
    pub name: String,
    pub old: String,
    pub new: String,
    pub features: Option<String>,
    pub beside: Option<(String, String)>,
}

impl Case {
    /// A case without features or a file beside it of its own (the sequence still changes another
    /// file of the workspace).
    pub fn new(name: impl Into<String>, old: impl Into<String>, new: impl Into<String>) -> Self {
        Case {
            name: name.into(),
            old: old.into(),
            new: new.into(),
            features: None,
            beside: None,
        }
    }
}

/// The crate root of case `index`: its source, its protocols renamed, declaring `beside` when it has
/// one.
fn crate_root(index: usize, case: &Case, text: &str) -> String {
    let marker = "#[wire(name = \"";
    assert!(
        text.contains(marker),
        "case {} declares no protocol:\n{text}",
        case.name
    );
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let name_start = at + marker.len();
        let name_end = name_start + rest[name_start..].find('"').expect("a closing quote");
        out.push_str(&rest[..name_end]);
        out.push_str(&format!("_c{index}"));
        rest = &rest[name_end..];
    }
    out.push_str(rest);
    if case.beside.is_some() {
        out.push_str("\npub mod beside;\n");
    }
    out
}

/// Writes every case's crate at the old (`new == false`) or the new release, and the files beside
/// them at their first or changed text.
fn write_cases(dir: &Path, cases: &[Case], new: bool, changed: bool) {
    for (index, case) in cases.iter().enumerate() {
        let text = if new { &case.new } else { &case.old };
        let krate = dir.join(format!("crates/c{index}"));
        let features = case.features.as_deref().unwrap_or("");
        write(
            &krate.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"c{index}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{features}"
            ),
        );
        write(&krate.join("src/lib.rs"), &crate_root(index, case, text));
        if let Some((first, later)) = &case.beside {
            write(
                &krate.join("src/beside.rs"),
                if changed { later } else { first },
            );
        }
    }
    let other = if changed {
        "pub fn unrelated() -> u16 { 2 }\n"
    } else {
        "pub fn unrelated() -> u8 { 1 }\n"
    };
    write(&dir.join("crates/other/src/lib.rs"), other);
}

/// Checks `cases` in the sequence of the module documentation, asserting at every step that the
/// check with the store prints what the check without it prints. Returns the reports of the steps.
pub fn assert_warm_equals_cold(cases: &[Case]) -> Vec<String> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    write(&dir.join(".gitignore"), "/target\n");
    write(
        &dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    );
    write(
        &dir.join("crates/other/Cargo.toml"),
        "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write_cases(dir, cases, false, false);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "old"]);
    git(dir, &["tag", "v1.0.0"]);
    let mut reports = Vec::new();
    // The new release over the old, then a change beside it.
    write_cases(dir, cases, true, false);
    reports.push(report(dir));
    write_cases(dir, cases, true, true);
    reports.push(report(dir));
    // Released; the old source back over it, then the files beside it as first written.
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "new"]);
    git(dir, &["tag", "v2.0.0"]);
    write_cases(dir, cases, false, true);
    reports.push(report(dir));
    write_cases(dir, cases, false, false);
    reports.push(report(dir));
    reports
}
