//! ARCHITECTURE.md's crate table against the manifests: for every crate of the workspace the table
//! lists, the crates of this workspace it names in its "depends on" cell are exactly those its
//! `Cargo.toml` depends on (`[dependencies]` and `[build-dependencies]`, optional ones included; a cell
//! written `tests: …` names its `[dev-dependencies]` instead, for a crate that is a test only). Both ways:
//! a dependency the table does not state fails, and so does one it states that the manifest lacks.
//! Cargo then checks that the code keeps to the manifests.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use anyhow::{Context as _, Result};

/// The heading the crate table follows.
const CRATES_HEADING: &str = "## Crates";

/// A row of the crate table that its manifest contradicts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CrateViolation {
    /// The crate.
    pub krate: String,
    /// The workspace crates its manifest depends on.
    pub manifest: BTreeSet<String>,
    /// Those the table names.
    pub table: BTreeSet<String>,
}

impl fmt::Display for CrateViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(", ");
        write!(
            f,
            "ARCHITECTURE.md's crate table says `{}` depends on [{}] of this workspace's crates, its Cargo.toml on [{}]: make them agree (and the design they state)",
            self.krate,
            list(&self.table),
            list(&self.manifest)
        )
    }
}

/// One row: the crate, its directory, its "depends on" cell.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    krate: String,
    dir: String,
    depends_on: String,
}

/// The violations of the crate table of `root`'s ARCHITECTURE.md.
pub fn check(root: &Path) -> Result<Vec<CrateViolation>> {
    let path = root.join("ARCHITECTURE.md");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let rows = rows(&text);
    anyhow::ensure!(
        !rows.is_empty(),
        "{}: no crate table after `{CRATES_HEADING}`",
        path.display()
    );
    let mut manifests = BTreeMap::new();
    for row in &rows {
        let manifest = root.join(&row.dir).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let table: toml::Table =
            toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
        manifests.insert(row.krate.clone(), table);
    }
    Ok(compare(&rows, &manifests))
}

/// The rows whose claims their manifests (by crate name) contradict.
fn compare(rows: &[Row], manifests: &BTreeMap<String, toml::Table>) -> Vec<CrateViolation> {
    let names: BTreeSet<&str> = rows.iter().map(|r| r.krate.as_str()).collect();
    let mut violations = Vec::new();
    for row in rows {
        let Some(manifest) = manifests.get(&row.krate) else {
            continue;
        };
        let (tests, cell) = match row.depends_on.trim().strip_prefix("tests:") {
            Some(rest) => (true, rest),
            None => (false, row.depends_on.as_str()),
        };
        let sections: &[&str] = if tests {
            &["dev-dependencies"]
        } else {
            &["dependencies", "build-dependencies"]
        };
        let manifest: BTreeSet<String> = sections
            .iter()
            .filter_map(|section| manifest.get(*section)?.as_table())
            .flat_map(|deps| deps.keys())
            .filter_map(|dep| short_name(dep, &names))
            .collect();
        let table: BTreeSet<String> = named(cell, &names);
        if manifest != table {
            violations.push(CrateViolation {
                krate: row.krate.clone(),
                manifest,
                table,
            });
        }
    }
    violations
}

/// The short name a table cell uses for the workspace crate `dep` (`wirecheck-model` → `model`,
/// `wirecheck` → `wirecheck`), when it is one of the table's crates.
fn short_name(dep: &str, names: &BTreeSet<&str>) -> Option<String> {
    names
        .contains(dep)
        .then(|| dep.strip_prefix("wirecheck-").unwrap_or(dep).to_owned())
}

/// The workspace crates a cell names by their short names.
fn named(cell: &str, names: &BTreeSet<&str>) -> BTreeSet<String> {
    let short: BTreeSet<String> = (names.iter())
        .filter_map(|name| short_name(name, names))
        .collect();
    cell.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .filter(|word| short.contains(*word))
        .map(str::to_owned)
        .collect()
}

/// The rows of the table after [`CRATES_HEADING`] (`| `name` | `dir/` | what | depends on |`).
fn rows(text: &str) -> Vec<Row> {
    let lines = text
        .lines()
        .skip_while(|line| line.trim() != CRATES_HEADING);
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in lines.skip(1) {
        let line = line.trim();
        if !line.starts_with('|') {
            if in_table {
                break;
            }
            continue;
        }
        in_table = true;
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [krate, dir, _, depends_on] = cells[..] else {
            continue;
        };
        let (Some(krate), Some(dir)) = (ticked(krate), ticked(dir)) else {
            continue;
        };
        rows.push(Row {
            krate: krate.to_owned(),
            dir: dir.trim_end_matches('/').to_owned(),
            depends_on: depends_on.to_owned(),
        });
    }
    rows
}

/// The text of a cell written as one code span.
fn ticked(cell: &str) -> Option<&str> {
    cell.strip_prefix('`')?.split('`').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "## Crates\n\n| crate | path | what | depends on |\n|---|---|---|---|\n\
        | `wirecheck-model` | `model/` | the model | vocab |\n\
        | `wirecheck-vocab` | `vocab/` | words | semver |\n\
        | `wirecheck` | `.` (`src/`) | the façade | vocab, model (`model`) |\n\
        | `checks` | `checks/` | a test only | tests: wirecheck |\n\nafter\n";

    fn manifest(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    fn manifests(root_deps: &str) -> BTreeMap<String, toml::Table> {
        BTreeMap::from([
            (
                "wirecheck-model".to_owned(),
                manifest("[dependencies]\nwirecheck-vocab = \"1\"\nserde = \"1\"\n"),
            ),
            (
                "wirecheck-vocab".to_owned(),
                manifest("[dependencies]\nsemver = \"1\"\n"),
            ),
            ("wirecheck".to_owned(), manifest(root_deps)),
            (
                "checks".to_owned(),
                manifest("[dev-dependencies]\nwirecheck = \"1\"\n"),
            ),
        ])
    }

    #[test]
    fn the_table_is_read_with_its_directories() {
        let rows = rows(TABLE);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[2].krate, "wirecheck");
        assert_eq!(rows[2].dir, ".");
        assert_eq!(rows[0].dir, "model");
    }

    #[test]
    fn a_dependency_missing_from_either_side_is_reported() {
        let agree = "[dependencies]\nwirecheck-vocab = \"1\"\n\n[dependencies.wirecheck-model]\nversion = \"1\"\noptional = true\n";
        assert_eq!(compare(&rows(TABLE), &manifests(agree)), vec![]);
        // The manifest gained one the table does not state.
        let more = format!(
            "{agree}\n[build-dependencies]\nwirecheck-vocab = \"1\"\nwirecheck-model = \"1\"\n"
        );
        assert_eq!(compare(&rows(TABLE), &manifests(&more)), vec![]);
        let dev = "[dependencies]\nwirecheck-vocab = \"1\"\nwirecheck-model = \"1\"\n[dev-dependencies]\nchecks = \"0\"\n";
        assert_eq!(compare(&rows(TABLE), &manifests(dev)), vec![]);
        let fewer = "[dependencies]\nwirecheck-vocab = \"1\"\n";
        let violations = compare(&rows(TABLE), &manifests(fewer));
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].krate, "wirecheck");
        assert_eq!(
            violations[0].table,
            BTreeSet::from(["model".to_owned(), "vocab".to_owned()])
        );
        let extra =
            "[dependencies]\nwirecheck-vocab = \"1\"\nwirecheck-model = \"1\"\nchecks = \"0\"\n";
        assert_eq!(compare(&rows(TABLE), &manifests(extra)).len(), 1);
    }
}
