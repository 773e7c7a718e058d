//! `cargo xtask new-rule NAME`: scaffolds a rule, as cargo-semver-checks' `make_new_lint.sh` does. It
//! writes the two things every rule needs and that tests enforce, each marked `TODO` where only a person
//! can fill it in:
//!
//! 1. its catalogue entry at the end of `vocab/src/rules.rs` (level, evidence, summary, help,
//!    explanation), the one list of rules the checker and the derive (`allow(NAME)`) read; `rules::tests`
//!    fails while a `TODO` is left in the catalogue;
//! 2. its fixture pair `tests/fixtures/NAME/{old,new}/lib.rs`, a protocol with one message on each side,
//!    to be edited into the smallest change that shows the rule. `tests/compat_fixtures.rs` runs every
//!    fixture directory and fails until the engine reports the rule on it at its catalogue level (then
//!    `cargo insta review` accepts its `findings.snap`).
//!
//! What is left is the decision itself, in the `compat/src/compat/` module of its concern, the rule's home
//! (CONTRIBUTING.md, "Adding a rule").

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};

/// The catalogue of rules: one entry per rule, read by the checker and the derive.
pub const CATALOGUE: &str = "vocab/src/rules.rs";

/// `cargo xtask new-rule NAME`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let [name] = args else {
        bail!("usage: cargo xtask new-rule NAME   (NAME in snake_case, e.g. field_moved)");
    };
    let written = scaffold(&crate::workspace_root(), name)?;
    for path in &written {
        println!("wrote {path}");
    }
    println!("\n{}", next_steps(name));
    Ok(ExitCode::SUCCESS)
}

/// What is left after the scaffold of rule `name`, as CONTRIBUTING.md's "Adding a rule" says: with the
/// three files written here, the home's is the fourth written by hand.
pub fn next_steps(name: &str) -> String {
    format!(
        "next:\n\
         1. fill in every TODO of the `{name}` entry in {CATALOGUE} (cargo test --features checker --lib rules fails until then)\n\
         2. edit tests/fixtures/{name}/{{old,new}}/lib.rs into the smallest change that shows the rule\n\
         3. decide the rule in the compat/src/compat/ module of its concern (its home), naming it RuleId::{}\n\
         4. cargo test --all-features --test compat_fixtures, then cargo insta review (its findings.snap)\n\
         5. cargo test -p wirecheck-fixture-truth: its witnesses decoded by the real codec (a test per fixture, no edit)\n\
         6. WIRECHECK_BLESS=1 cargo test --features checker --test report_samples (the SARIF sample's rule list)",
        pascal(name)
    )
}

/// Writes the scaffold of rule `name` under the workspace `root`; returns the paths written.
pub fn scaffold(root: &Path, name: &str) -> Result<Vec<String>> {
    ensure!(
        is_snake_case(name),
        "`{name}` is not a snake_case rule id (like `field_moved`)"
    );
    let catalogue_path = root.join(CATALOGUE);
    let catalogue = std::fs::read_to_string(&catalogue_path)
        .with_context(|| format!("reading {}", catalogue_path.display()))?;
    ensure!(
        !catalogue.contains(&format!("id: \"{name}\",")),
        "the catalogue already has a rule `{name}`"
    );
    let fixture_dir = root.join("tests/fixtures").join(name);
    ensure!(
        !fixture_dir.exists(),
        "{} exists already",
        fixture_dir.display()
    );
    std::fs::write(&catalogue_path, with_catalogue_entry(&catalogue, name)?)?;
    for side in ["old", "new"] {
        std::fs::create_dir_all(fixture_dir.join(side))?;
        std::fs::write(
            fixture_dir.join(side).join("lib.rs"),
            fixture_source(name, side),
        )?;
    }
    Ok(vec![
        CATALOGUE.to_owned(),
        format!("tests/fixtures/{name}/old/lib.rs"),
        format!("tests/fixtures/{name}/new/lib.rs"),
    ])
}

fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && !name.ends_with('_')
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn pascal(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// The catalogue with an entry for `name` after its last entry.
fn with_catalogue_entry(catalogue: &str, name: &str) -> Result<String> {
    let start = catalogue
        .find("\ncatalogue! {\n")
        .with_context(|| format!("{CATALOGUE} has no `catalogue! {{` invocation"))?;
    let end = start
        + catalogue[start..].find("\n}\n").with_context(|| {
            format!("{CATALOGUE}: the `catalogue!` invocation has no closing brace")
        })?;
    let entry = format!(
        r#"
    {variant} {{
        id: "{name}",
        level: Major,
        evidence: Rejected,
        summary: "TODO: what changed, in one line",
        help: "TODO: the usual safe migration, in one or two sentences",
        explanation: "TODO: what breaks, for which reader, as serde behaves.\n\n\
before: TODO\nafter:  TODO",
    }}"#,
        variant = pascal(name)
    );
    Ok(format!("{}{entry}{}", &catalogue[..end], &catalogue[end..]))
}

/// The source of one side of the fixture pair: a protocol and one message, the same on both sides.
fn fixture_source(name: &str, side: &str) -> String {
    format!(
        r#"// TODO: the {side} side of the smallest change that shows `{name}` (both sides start the same).
use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = "t.msg", kind = "event")]
pub struct Msg {{
    pub id: u64,
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch workspace holding copies of the files the scaffold edits.
    fn scratch() -> tempfile::TempDir {
        let root = crate::workspace_root();
        let dir = tempfile::tempdir().unwrap();
        let to = dir.path().join(CATALOGUE);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(CATALOGUE), to).unwrap();
        std::fs::create_dir_all(dir.path().join("tests/fixtures")).unwrap();
        dir
    }

    #[test]
    fn the_scaffold_adds_an_entry_a_fixture_pair_and_its_test() {
        let dir = scratch();
        let written = scaffold(dir.path(), "field_moved").unwrap();
        assert_eq!(written.len(), 3);
        let catalogue = std::fs::read_to_string(dir.path().join(CATALOGUE)).unwrap();
        syn::parse_file(&catalogue).expect("the catalogue still parses");
        assert!(catalogue.contains("    FieldMoved {\n        id: \"field_moved\","));
        assert!(
            catalogue.contains("TODO"),
            "the entry is marked for a person to fill in"
        );
        for side in ["old", "new"] {
            let source = dir
                .path()
                .join(format!("tests/fixtures/field_moved/{side}/lib.rs"));
            let text = std::fs::read_to_string(source).unwrap();
            syn::parse_file(&text).expect("the fixture parses");
        }
        let again = scaffold(dir.path(), "field_moved").unwrap_err().to_string();
        assert!(
            again.contains("already has a rule `field_moved`"),
            "{again}"
        );
    }

    #[test]
    fn names_must_be_new_snake_case_ids() {
        let dir = scratch();
        for bad in ["FieldMoved", "field-moved", "_x", "x_", "a__b", ""] {
            assert!(scaffold(dir.path(), bad).is_err(), "{bad}");
        }
        let taken = scaffold(dir.path(), "field_removed")
            .unwrap_err()
            .to_string();
        assert!(taken.contains("already has a rule"), "{taken}");
    }
}
