#![cfg(feature = "checker")]
//! Property tests of the comparison engine, over schemas generated from the differential test's corpus
//! and mutations (tests/differential/): each case is a corpus entry and a list of mutations, so proptest
//! shrinks a failure to the fewest mutations on the simplest entry.
//!
//! - Reflexivity: a schema compared with itself finds nothing, at any level, in every direction, for
//!   every format, upgrade order and message kind (and so do the Flux protocols of
//!   `examples/flux-protocols`, at every release of their history).
//! - Monotonicity: making the reader more permissive (`default` on a field or the container, a field made
//!   an `Option`, a `#[serde(other)]` catch-all, an alias, no `deny_unknown_fields`) never adds a major
//!   finding in the direction it reads. Misreads of untagged enums are the exception serde itself makes:
//!   a more permissive variant can capture payloads meant for a later one, which the engine rightly reports.

#[allow(dead_code)]
#[path = "differential/corpus.rs"]
mod corpus;
#[allow(dead_code)]
#[path = "differential/ir.rs"]
mod ir;
#[allow(dead_code)]
#[path = "differential/mutate.rs"]
mod mutate;
#[allow(dead_code)]
#[path = "differential/rng.rs"]
mod rng;
#[allow(dead_code)]
#[path = "differential/swaps.rs"]
mod swaps;
#[allow(dead_code)]
#[path = "differential/vocab.rs"]
mod vocab;

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::model::Snapshot;
use wirecheck::rules::RuleId;

use ir::{Body, Field, MESSAGE_MARK, Repr, Schema, Shape, SkipIf, Ty, Variant};
use mutate::{MUTATIONS, validate};
use rng::Rng;

const FORMATS: [&str; 6] = [
    "json",
    "cbor",
    "msgpack",
    "msgpack-compact",
    "bincode",
    "postcard",
];
const UPGRADES: [&str; 3] = ["any-order", "server-first", "client-first"];
const KINDS: [&str; 4] = ["request", "response", "event", "record"];

/// The crate source the engine reads for `schema`, in a protocol of `format` and `upgrade`, with the
/// message of `kind`.
fn source(schema: &Schema, format: &str, upgrade: &str, kind: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse std::collections::{{BTreeMap, BTreeSet}};\nuse wirecheck::{{Message, Protocol}};\n\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\", format = \"{format}\", upgrade = \"{upgrade}\")]\npub struct P;\n\n{}",
        schema.render_defs().replace(
            MESSAGE_MARK,
            &format!("#[derive(Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"{kind}\")]")
        )
    )
}

fn snapshot(schema: &Schema, format: &str, upgrade: &str, kind: &str) -> Snapshot {
    let text = source(schema, format, upgrade, kind);
    let snap = snapshot_from_sources("prop", &[("src/lib.rs", &text)])
        .unwrap_or_else(|e| panic!("extraction failed: {e}\n{text}"));
    assert_eq!(snap.messages.len(), 1, "{text}");
    snap
}

/// A corpus entry with mutations applied (each `(mutation, seed)`; those that do not apply are
/// skipped), or `None` when the result is not something serde accepts.
fn build(base: usize, edits: &[(usize, u64)]) -> Option<Schema> {
    let corpus = corpus::corpus();
    let mut schema = corpus[base % corpus.len()].1.clone();
    for &(m, seed) in edits {
        let mut next = schema.clone();
        if (MUTATIONS[m % MUTATIONS.len()].1)(&mut next, &mut Rng::new(seed)).is_some() {
            schema = next;
        }
    }
    validate(&schema).ok().map(|()| schema)
}

fn edits() -> impl Strategy<Value = Vec<(usize, u64)>> {
    prop::collection::vec((0..MUTATIONS.len(), any::<u64>()), 0..4)
}

/// Every field of named structs and struct variants, as (definition, variant, field) indices.
fn field_sites(s: &Schema) -> Vec<(usize, Option<usize>, usize)> {
    let mut out = Vec::new();
    for (d, def) in s.defs.iter().enumerate() {
        match &def.body {
            Body::Struct(Shape::Named(fs)) => out.extend((0..fs.len()).map(|i| (d, None, i))),
            Body::Enum(vs, _) => {
                for (v, var) in vs.iter().enumerate() {
                    if let Shape::Named(fs) = &var.shape {
                        out.extend((0..fs.len()).map(|i| (d, Some(v), i)));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn field_at(s: &mut Schema, (d, v, i): (usize, Option<usize>, usize)) -> &mut Field {
    match (&mut s.defs[d].body, v) {
        (Body::Struct(Shape::Named(fs)), None) => &mut fs[i],
        (Body::Enum(vs, _), Some(v)) => match &mut vs[v].shape {
            Shape::Named(fs) => &mut fs[i],
            _ => unreachable!(),
        },
        _ => unreachable!(),
    }
}

/// A more permissive reader: one edit that only widens what it accepts. `None` when the edit does not
/// apply to this schema.
fn permissive(s: &Schema, which: usize, pick: usize) -> Option<(Schema, String)> {
    let mut s = s.clone();
    let sites = field_sites(&s);
    let text = match which % 6 {
        0 => {
            let site = *sites.get(pick % sites.len().max(1))?;
            let ty = field_at(&mut s, site).ty.clone();
            let defaultable = s.defaultable(&ty);
            let f = field_at(&mut s, site);
            if f.default || f.flatten || !defaultable {
                return None;
            }
            f.default = true;
            format!("`{}` gets #[serde(default)]", f.name)
        }
        1 => {
            let site = *sites.get(pick % sites.len().max(1))?;
            let f = field_at(&mut s, site);
            if matches!(f.ty, Ty::Opt(_)) || f.flatten || f.with {
                return None;
            }
            f.ty = f.ty.clone().opt();
            if f.skip_if.is_some() {
                f.skip_if = Some(SkipIf::IsNone);
            }
            format!("`{}` becomes an Option", f.name)
        }
        2 => {
            let enums: Vec<usize> = (0..s.defs.len())
                .filter(|&d| matches!(s.defs[d].body, Body::Enum(..)))
                .collect();
            let d = *enums.get(pick % enums.len().max(1))?;
            let Body::Enum(vs, repr) = &mut s.defs[d].body else {
                unreachable!()
            };
            if *repr == Repr::Untagged || vs.iter().any(|v| v.other || v.untagged) {
                return None;
            }
            let mut other = Variant::unit("CatchAll");
            other.other = true;
            vs.push(other);
            format!("`{}` gets a #[serde(other)] variant", s.defs[d].name)
        }
        3 => {
            let d = pick % s.defs.len();
            let name = s.defs[d].name.clone();
            if s.defs[d].default
                || !matches!(s.defs[d].body, Body::Struct(Shape::Named(ref fs)) if !fs.is_empty())
                || !s.def_defaultable(&name, &mut Vec::new())
            {
                return None;
            }
            s.defs[d].default = true;
            format!("`{name}` gets a container #[serde(default)]")
        }
        4 => {
            let d = pick % s.defs.len();
            if !s.defs[d].deny_unknown {
                return None;
            }
            s.defs[d].deny_unknown = false;
            format!("`{}` no longer denies unknown fields", s.defs[d].name)
        }
        _ => {
            let site = *sites.get(pick % sites.len().max(1))?;
            let f = field_at(&mut s, site);
            if f.flatten {
                return None;
            }
            let alias = format!("{}_alias_p", f.name);
            f.alias.push(alias.clone());
            format!("`{}` gets alias {alias}", f.name)
        }
    };
    validate(&s).ok()?;
    Some((s, text))
}

/// Rules under which a more permissive reader may rightly report more: an untagged variant that now
/// accepts payloads meant for a later variant misreads them; and a type the engine cannot see into (from
/// another crate, written by a macro, behind custom functions) may itself be written as `null`, which an
/// `Option` around it would misread as `None`, so the engine rightly keeps calling the change opaque.
const EXEMPT: &[&str] = &[
    "untagged_misread",
    "untagged_variant_order_changed",
    "external_type_changed",
    "unresolved_type",
    "custom_serde_changed",
];

fn majors(fs: &[Finding], dir: Direction) -> BTreeSet<(RuleId, Option<String>)> {
    fs.iter()
        .filter(|f| f.level == Level::Major && f.direction == Some(dir))
        .filter(|f| !EXEMPT.contains(&f.rule.as_str()))
        .map(|f| (f.rule, f.field.clone()))
        .collect()
}

fn show(fs: &[Finding]) -> String {
    fs.iter()
        .map(|f| {
            format!(
                "{} {} {:?} {:?}: {}",
                f.level, f.rule, f.direction, f.field, f.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

proptest! {
    // 256 cases per property by default (about a second); PROPTEST_CASES=N to search harder.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        max_global_rejects: 100_000,
        // The minimal failing input is printed; no regression files next to the tests.
        failure_persistence: None,
        // A fixed seed keeps CI deterministic; PROPTEST_RNG_SEED=N explores other inputs.
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_2026),
        ),
        .. ProptestConfig::default()
    })]

    /// A schema compared with itself finds nothing, for every format, upgrade order and kind.
    #[test]
    fn a_schema_compared_with_itself_finds_nothing(
        base in 0usize..64,
        edits in edits(),
        format in 0..FORMATS.len(),
        upgrade in 0..UPGRADES.len(),
        kind in 0..KINDS.len(),
    ) {
        let schema = build(base, &edits);
        prop_assume!(schema.is_some());
        let schema = schema.unwrap();
        let snap = snapshot(&schema, FORMATS[format], UPGRADES[upgrade], KINDS[kind]);
        for scope in [Scope::Full, Scope::RecordsOnly] {
            let found = compare_protocol(&snap, &snap, "p", "self", scope);
            prop_assert!(
                found.is_empty(),
                "{:?} found:\n{}\nin:\n{}",
                scope,
                show(&found),
                schema.render_defs()
            );
        }
    }

    /// A more permissive reader never adds a major finding in the direction it reads (JSON).
    #[test]
    fn a_more_permissive_reader_adds_no_major_finding(
        base in 0usize..64,
        old_edits in edits(),
        new_edits in edits(),
        which in 0usize..6,
        pick in any::<usize>(),
        reader_is_new in any::<bool>(),
    ) {
        let old = build(base, &old_edits);
        let new = build(base, &[old_edits.clone(), new_edits].concat());
        prop_assume!(old.is_some() && new.is_some());
        let (old, new) = (old.unwrap(), new.unwrap());
        let reader = if reader_is_new { &new } else { &old };
        let widened = (0..6).find_map(|k| permissive(reader, which + k, pick));
        prop_assume!(widened.is_some());
        let (wider, what) = widened.unwrap();
        let (os, ns) = (snapshot(&old, "json", "any-order", "event"), snapshot(&new, "json", "any-order", "event"));
        let ws = snapshot(&wider, "json", "any-order", "event");
        let (dir, before, after) = if reader_is_new {
            (
                Direction::NewReadsOld,
                compare_protocol(&os, &ns, "p", "old", Scope::Full),
                compare_protocol(&os, &ws, "p", "old", Scope::Full),
            )
        } else {
            (
                Direction::OldReadsNew,
                compare_protocol(&os, &ns, "p", "old", Scope::Full),
                compare_protocol(&ws, &ns, "p", "old", Scope::Full),
            )
        };
        let added: Vec<_> = majors(&after, dir).difference(&majors(&before, dir)).cloned().collect();
        prop_assert!(
            added.is_empty(),
            "{what} on the reader ({dir}) added {added:?}\nbefore:\n{}\nafter:\n{}\nold:\n{}\nnew:\n{}\nwider reader:\n{}",
            show(&before),
            show(&after),
            old.render_defs(),
            new.render_defs(),
            wider.render_defs()
        );
    }
}

/// The source files of a crate under `dir` (`src/lib.rs` first), relative to `dir`.
fn crate_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(dir)
                    .expect("under the crate")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).expect("UTF-8 source")));
            }
        }
    }
    out.sort_by_key(|(p, _)| p != "src/lib.rs");
    out
}

/// The Flux protocols, at every release of their history and in the working tree, compared with
/// themselves: nothing.
#[test]
fn the_flux_protocols_compared_with_themselves_find_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/flux-protocols");
    let mut dirs = vec![root.clone()];
    let mut history: Vec<_> = std::fs::read_dir(root.join("history"))
        .expect("examples/flux-protocols/history")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src/lib.rs").exists())
        .collect();
    history.sort();
    dirs.extend(history);
    let mut protocols = 0;
    for dir in &dirs {
        // The history's sources carry their release as `@VERSION@` (the replay substitutes it).
        let version = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix('v'))
            .unwrap_or("0.0.0")
            .to_owned();
        let files: Vec<(String, String)> = crate_files(dir)
            .into_iter()
            .map(|(p, t)| (p, t.replace("@VERSION@", &version)))
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let snap = snapshot_from_sources("flux_protocols", &refs)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert!(!snap.protocols.is_empty(), "{}", dir.display());
        for p in &snap.protocols {
            protocols += 1;
            for scope in [Scope::Full, Scope::RecordsOnly] {
                let found = compare_protocol(&snap, &snap, &p.name, "self", scope);
                assert!(
                    found.is_empty(),
                    "{} `{}` {scope:?}:\n{}",
                    dir.display(),
                    p.name,
                    show(&found)
                );
            }
        }
    }
    assert!(
        dirs.len() > 5 && protocols > 10,
        "{} dirs, {protocols} protocols",
        dirs.len()
    );
}
