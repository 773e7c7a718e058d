//! The dependency crates of the bench's dependencies workspace: registry-style packages (`acme-ids`,
//! `acme-geo`, ...) whose sources sit in a vendor directory that the workspace's `.cargo/config.toml` puts in
//! place of crates.io, as `cargo vendor` leaves them, and that its `Cargo.lock` names. wirecheck finds them
//! where it finds a user's vendored sources, and follows the types the messages reach into them.
//!
//! Each package has a dozen modules of serde types (structs, enums of several representations,
//! transparent newtypes, generic wrappers) among plain code, re-exports from its root, and a type of the
//! package before it in the list (a dependency of a dependency). Every other package derives serde behind
//! its `serde` feature, which the workspace asks for. Two upgrades change a shape: the working tree locks
//! the second package at 1.1.0 (an optional field added to the type its messages reach first), and the
//! history locks the third at 1.1.0 from the last tag on.

use std::fmt::Write as _;

use super::Rng;

/// Package names, in order; past the list, `acme-dep<N>`.
const NAMES: &[&str] = &[
    "acme-ids",
    "acme-geo",
    "acme-money",
    "acme-media",
    "acme-audit",
    "acme-quota",
    "acme-trace",
    "acme-blob",
];
const NOUNS: &[&str] = &[
    "Point", "Region", "Amount", "Tenant", "Object", "Span", "Stamp", "Quota", "Bucket", "Digest",
    "Window", "Label", "Origin", "Route", "Grant",
];
/// Modules per package.
const MODULES: usize = 12;
/// Serde types per module (besides the plain code).
const TYPES: usize = 6;
/// The registry every package claims to come from (the vendor directory replaces it).
const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

/// The dependency crates of a workspace and the version of each that the current state locks.
#[derive(Debug, Clone)]
pub(super) struct Dependencies {
    seed: u64,
    /// The minor version each package is locked at now (1.`minor`.0).
    pub(super) locked: Vec<usize>,
}

impl Dependencies {
    /// `count` packages, each locked at 1.0.0.
    pub(super) fn new(seed: u64, count: usize) -> Self {
        Dependencies {
            seed,
            locked: vec![0; count],
        }
    }

    /// How many packages there are.
    pub(super) fn len(&self) -> usize {
        self.locked.len()
    }

    /// The package the working tree upgrades (its second, or its only one).
    pub(super) fn upgraded_in_working_tree(&self) -> usize {
        1.min(self.len() - 1)
    }

    /// The package the history upgrades at its last tag (the third), if there are three.
    pub(super) fn upgraded_in_history(&self) -> Option<usize> {
        (self.len() >= 3).then_some(2)
    }

    /// The type package `d` changes at each minor version (an optional field more), as code names it
    /// (re-exported from the package's root).
    pub(super) fn changed_type(&self, d: usize) -> String {
        format!("{}::{}", Self::ident(d), type_name(d, 0, 0))
    }

    /// `name version` of package `d` as locked now (`acme-geo 1.1.0`).
    pub(super) fn label(&self, d: usize) -> String {
        format!("{} 1.{}.0", name(d), self.locked[d])
    }

    /// The name code uses for package `d` (`acme_geo`).
    fn ident(d: usize) -> String {
        name(d).replace('-', "_")
    }

    /// Whether package `d` derives serde behind its `serde` feature.
    fn gated(d: usize) -> bool {
        d.is_multiple_of(2)
    }

    /// The types messages may name, as the workspace writes them: the re-exported first type of each
    /// module (`acme_geo::PointRegion0`) and some others by module path.
    pub(super) fn reachable(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in 0..self.len() {
            let ident = Self::ident(d);
            for m in 0..MODULES {
                out.push(format!("{ident}::{}", type_name(d, m, 0)));
                if m % 3 == 0 {
                    out.push(format!("{ident}::m{m}::{}", type_name(d, m, 2)));
                }
            }
        }
        out
    }

    /// The workspace's `[workspace.dependencies]` lines for the packages.
    pub(super) fn workspace_entries(&self) -> String {
        (0..self.len())
            .map(|d| {
                let features = if Self::gated(d) {
                    ", features = [\"serde\"]"
                } else {
                    ""
                };
                format!("{} = {{ version = \"1\"{features} }}\n", name(d))
            })
            .collect()
    }

    /// A member crate's `[dependencies]` lines for the packages.
    pub(super) fn member_entries(&self) -> String {
        (0..self.len())
            .map(|d| format!("{} = {{ workspace = true }}\n", name(d)))
            .collect()
    }

    /// `.cargo/config.toml`: the vendor directory in place of crates.io.
    pub(super) fn cargo_config() -> String {
        "# The dependency crates' sources, as `cargo vendor` leaves them (xtask/src/bench/synth/deps.rs).\n\
         [source.crates-io]\nreplace-with = \"vendored-sources\"\n\n\
         [source.vendored-sources]\ndirectory = \"vendor\"\n"
            .to_owned()
    }

    /// The `Cargo.lock` of the workspace's `members` at the versions locked now: the members and the
    /// dependency packages (serde, serde_json and wirecheck, which no followed type needs, are left out).
    pub(super) fn lock(&self, members: &[String]) -> String {
        let mut packages: Vec<(String, String, String)> = Vec::new();
        let names: Vec<String> = {
            let mut names: Vec<String> = (0..self.len()).map(|d| name(d).to_owned()).collect();
            names.sort();
            names
        };
        for member in members {
            packages.push((
                member.clone(),
                "0.1.0".to_owned(),
                lock_entry_tail("", &names),
            ));
        }
        for d in 0..self.len() {
            let deps: Vec<String> = d
                .checked_sub(1)
                .map(|p| name(p).to_owned())
                .into_iter()
                .collect();
            packages.push((
                name(d).to_owned(),
                format!("1.{}.0", self.locked[d]),
                lock_entry_tail(CRATES_IO, &deps),
            ));
        }
        packages.sort();
        let mut out = "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n".to_owned();
        for (name, version, tail) in packages {
            let _ = write!(
                out,
                "\n[[package]]\nname = \"{name}\"\nversion = \"{version}\"\n{tail}"
            );
        }
        out
    }

    /// Every file of the vendor directory (relative to it): each package at every version up to the
    /// newest `newest[d]`, the newest as `<name>/`, older ones as `<name>-<version>/` (cargo vendor's
    /// layout when two versions are vendored).
    pub(super) fn vendor_files(&self, newest: &[usize]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (d, &top) in newest.iter().enumerate() {
            for minor in 0..=top {
                let dir = if minor == top {
                    name(d).to_owned()
                } else {
                    format!("{}-1.{minor}.0", name(d))
                };
                for (path, text) in self.package_files(d, minor) {
                    out.push((format!("{dir}/{path}"), text));
                }
            }
        }
        out
    }

    /// The files of package `d` at 1.`minor`.0.
    fn package_files(&self, d: usize, minor: usize) -> Vec<(String, String)> {
        let mut out = vec![
            (
                ".cargo-checksum.json".to_owned(),
                "{\"files\":{},\"package\":null}\n".to_owned(),
            ),
            ("Cargo.toml".to_owned(), manifest(d, minor)),
            ("src/lib.rs".to_owned(), lib_rs(d)),
        ];
        for m in 0..MODULES {
            out.push((format!("src/m{m}.rs"), self.module_rs(d, m, minor)));
        }
        out
    }

    /// Module `m` of package `d` at 1.`minor`.0: serde types and plain code. The first type of the first
    /// module gains an optional field per minor version.
    fn module_rs(&self, d: usize, m: usize, minor: usize) -> String {
        let mut rng = Rng::new(self.seed, 20_000_000 + (d * 100 + m) as u64);
        let derive = if Self::gated(d) {
            "#[derive(Debug, Clone, PartialEq)]\n#[cfg_attr(feature = \"serde\", derive(serde::Serialize, serde::Deserialize))]\n"
        } else {
            "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]\n"
        };
        let attr = |inner: &str| {
            if Self::gated(d) {
                format!("#[cfg_attr(feature = \"serde\", serde({inner}))]\n")
            } else {
                format!("#[serde({inner})]\n")
            }
        };
        let mut s = format!(
            "//! Module {m} of {} (synthetic, generated by `cargo xtask bench`).\n\nuse std::collections::BTreeMap;\nuse std::fmt;\n\n",
            name(d)
        );
        for t in 0..TYPES {
            let ty = type_name(d, m, t);
            let _ = writeln!(s, "/// {ty}, as {} sends it.", name(d));
            s.push_str(derive);
            match (t, rng.below(4)) {
                (0 | 2, _) | (_, 0) => {
                    if rng.chance(30) {
                        s.push_str(&attr("rename_all = \"camelCase\""));
                    }
                    let _ = writeln!(s, "pub struct {ty} {{");
                    for field in fields(&mut rng, d, m, t) {
                        let _ = writeln!(s, "{field}");
                    }
                    if m == 0 && t == 0 {
                        for v in 1..=minor {
                            s.push_str(&field_attr(
                                d,
                                "default, skip_serializing_if = \"Option::is_none\"",
                            ));
                            let _ = writeln!(s, "    pub revision_{v}: Option<u64>,");
                        }
                    }
                    s.push_str("}\n\n");
                }
                (_, 1) => {
                    s.push_str(&attr("rename_all = \"SCREAMING_SNAKE_CASE\""));
                    let _ = writeln!(
                        s,
                        "pub enum {ty} {{\n    Unspecified,\n    Active,\n    Suspended,\n    Retired,\n}}\n"
                    );
                }
                (_, 2) => {
                    s.push_str(&attr("tag = \"kind\", rename_all = \"snake_case\""));
                    let _ = writeln!(
                        s,
                        "pub enum {ty} {{\n    Fixed {{ value: u64 }},\n    Range {{ min: u64, max: u64 }},\n    Labels {{ labels: BTreeMap<String, String> }},\n}}\n"
                    );
                }
                _ => {
                    s.push_str(&attr("transparent"));
                    let _ = writeln!(s, "pub struct {ty}(pub String);\n");
                    let _ = writeln!(
                        s,
                        "impl fmt::Display for {ty} {{\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\n        f.write_str(&self.0)\n    }}\n}}\n"
                    );
                }
            }
        }
        let _ = writeln!(
            s,
            "/// Checks a value of module {m} (plain code: no serde).\npub fn validate_{m}(value: u64, limit: u64) -> Result<u64, String> {{\n    if value > limit * {k} {{\n        return Err(format!(\"{{value}} exceeds {{limit}}\"));\n    }}\n    Ok(value.saturating_mul({k}))\n}}",
            k = rng.range(2, 9)
        );
        s
    }
}

/// The name of package `d`.
fn name(d: usize) -> String {
    NAMES
        .get(d)
        .map_or_else(|| format!("acme-dep{d}"), |n| (*n).to_owned())
}

/// The name of type `t` of module `m` of package `d`.
fn type_name(d: usize, m: usize, t: usize) -> String {
    let n = d * 7 + m * 3 + t;
    format!(
        "{}{}{m}{t}",
        NOUNS[n % NOUNS.len()],
        NOUNS[(n / NOUNS.len() + t + 1) % NOUNS.len()]
    )
}

/// A `#[serde(...)]` field attribute of package `d` (behind its feature when it is gated).
fn field_attr(d: usize, inner: &str) -> String {
    if Dependencies::gated(d) {
        format!("    #[cfg_attr(feature = \"serde\", serde({inner}))]\n")
    } else {
        format!("    #[serde({inner})]\n")
    }
}

/// The fields of struct `t` of module `m` of package `d`: scalars, containers, earlier types of the
/// module and, in each module's first struct, the first type of the package before it.
fn fields(rng: &mut Rng, d: usize, m: usize, t: usize) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..rng.range(2, 5) {
        let ty = match rng.below(8) {
            0 => "u64".to_owned(),
            1 => "i32".to_owned(),
            2 => "f64".to_owned(),
            3 => "String".to_owned(),
            4 => "Vec<String>".to_owned(),
            5 => "BTreeMap<String, u64>".to_owned(),
            6 if t > 0 => format!("Option<{}>", type_name(d, m, t - 1)),
            _ => "bool".to_owned(),
        };
        let attr = if ty.starts_with("Option") {
            field_attr(d, "default, skip_serializing_if = \"Option::is_none\"")
        } else {
            String::new()
        };
        out.push(format!("{attr}    pub f{i}: {ty},"));
    }
    if t == 0
        && let Some(before) = d.checked_sub(1)
    {
        out.push(format!(
            "    pub via: {}::{},",
            Dependencies::ident(before),
            type_name(before, m % MODULES, 0)
        ));
    }
    out
}

/// The `source` and `dependencies` lines of a lock entry.
fn lock_entry_tail(source: &str, deps: &[String]) -> String {
    let mut out = String::new();
    if !source.is_empty() {
        let _ = writeln!(out, "source = \"{source}\"");
    }
    if !deps.is_empty() {
        out.push_str("dependencies = [\n");
        for dep in deps {
            let _ = writeln!(out, " \"{dep}\",");
        }
        out.push_str("]\n");
    }
    out
}

/// The manifest of package `d` at 1.`minor`.0.
fn manifest(d: usize, minor: usize) -> String {
    let mut s = format!(
        "[package]\nname = \"{}\"\nversion = \"1.{minor}.0\"\nedition = \"2021\"\ndescription = \"Synthetic dependency of the wirecheck bench\"\nlicense = \"MIT\"\n\n[dependencies]\n",
        name(d)
    );
    let before = d.checked_sub(1);
    if Dependencies::gated(d) {
        s.push_str("serde = { version = \"1\", features = [\"derive\"], optional = true }\n");
    } else {
        s.push_str("serde = { version = \"1\", features = [\"derive\"] }\n");
    }
    if let Some(p) = before {
        // A gated package before a plain one: the plain one needs its serde.
        let features = if Dependencies::gated(p) && !Dependencies::gated(d) {
            ", features = [\"serde\"]"
        } else {
            ""
        };
        let _ = writeln!(s, "{} = {{ version = \"1\"{features} }}", name(p));
    }
    if Dependencies::gated(d) {
        let forward = before
            .filter(|&p| Dependencies::gated(p))
            .map(|p| format!(", \"{}/serde\"", name(p)))
            .unwrap_or_default();
        let _ = write!(
            s,
            "\n[features]\ndefault = []\nserde = [\"dep:serde\"{forward}]\n"
        );
    }
    s
}

/// The root of package `d`: its modules, and the first type of each re-exported.
fn lib_rs(d: usize) -> String {
    let mut s = format!(
        "//! {} (synthetic, generated by `cargo xtask bench`): types other services send.\n#![allow(unused_imports)]\n\n",
        name(d)
    );
    for m in 0..MODULES {
        let _ = writeln!(s, "pub mod m{m};");
    }
    s.push('\n');
    for m in 0..MODULES {
        let _ = writeln!(s, "pub use m{m}::{};", type_name(d, m, 0));
    }
    s
}
