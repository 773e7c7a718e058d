#![cfg(feature = "checker")]
//! Proof against serde itself: a differential test of the comparison engine.
//!
//! A seeded generator mutates a corpus of realistic message types with every kind of change the engine
//! knows (and combinations), giving (old, new) pairs of Rust source. For each pair and each format of
//! [`FORMATS`] (JSON, CBOR and both MessagePack forms) the engine runs in-process on that source under a
//! protocol of that format (`snapshot_from_sources` + `compare_protocol`), and the same source is
//! compiled with the real serde derive into one batch binary (one crate, one module per pair, built once
//! per run and cached in `target/differential`). For each pair, format and direction, the batch binary
//! serializes generated values of the writer's type with the format's real codec (serde_json, ciborium,
//! rmp-serde's `to_vec_named` and `to_vec`) and decodes them with the reader's type; it also decodes
//! every witness the engine gave (the writer's value as JSON, encoded by the format's codec).
//!
//! - A payload the reader rejects where the engine said the direction is compatible is a **false
//!   negative**: there must be none (except the reproducers listed in [`KNOWN_FALSE_NEGATIVES`], which
//!   are reported separately and must still reproduce).
//! - A direction the engine calls incompatible where no generated payload and no witness fails (is
//!   rejected, or for the misread rules changes on a trip through the reader) is a **false positive**:
//!   counted and reported.
//!
//! The `with` functions the pairs name (`crate::helpers::...`, [`batch::HELPERS`]) are compiled into
//! the batch binary and given to the engine with each side's source, so the engine reads the
//! functions the real codec runs rather than comparing them by name.
//!
//! The last line printed (to stderr, uncaptured) is `pairs=<n> formats=<n> false_negatives=<n>
//! false_positives=<n> (<rate> of the pair-format runs) without_with=<n> (<rate>)`, where the last
//! figures leave out the false positives whose every major rule is `custom_serde_changed` (`with`
//! functions compared by name, where the engine cannot read them); the full report is written to
//! `target/differential/batch-<seed>-<pairs>.report.txt`.

mod batch;
mod corpus;
mod ir;
mod mutate;
mod regressions;
mod rng;
mod schemas;
mod swaps;
mod vocab;
mod warm_cold;

#[path = "../support/mod.rs"]
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::io::Write as _;

use serde_json::Value;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::rules::{Evidence, RULES, RuleId};

use batch::{Line, PairSpec, Side};
use ir::{Body, MESSAGE_MARK, Pick, Schema, Ty, Values};
use mutate::{MUTATIONS, Pair};
use rng::Rng;

/// How many pairs to generate (`WIRECHECK_DIFFERENTIAL_PAIRS` overrides it, to explore).
const PAIRS: usize = 600;
/// The formats every pair is judged and decoded in (`WIRECHECK_DIFFERENTIAL_FORMATS`, a comma-separated
/// list, overrides it).
const FORMATS: &[&str] = &["json", "cbor", "msgpack", "msgpack-compact"];
/// The generator's seed: the same pairs on every run and machine (`WIRECHECK_DIFFERENTIAL_SEED`
/// overrides it, to explore; CI uses this one).
const SEED: u64 = 0x5EED_2026_0005;

/// An opaque finding is reported once for both directions, except `custom_serde_changed`, which is
/// reported in each direction the changed function affects.
fn stands_for_both_directions(f: &Finding) -> bool {
    f.rule.rule().evidence == Evidence::Opaque && f.rule != RuleId::CustomSerdeChanged
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
/// Random values per side, on top of the minimal and maximal ones for every enum variant.
const RANDOM_VALUES: usize = 6;

/// Rules that no pair of one-message, JSON-format protocols can show, and why.
const NOT_COVERED: &[(&str, &str)] = &[
    (
        "protocol_removed",
        "protocol-level: the pairs keep their protocol",
    ),
    (
        "protocol_format_changed",
        "protocol-level: each run keeps its format",
    ),
    ("message_added", "message-level: one message per pair"),
    ("message_removed", "message-level: one message per pair"),
    ("topic_renamed", "message-level: the topic is fixed"),
    ("kind_changed", "message-level: the kind is fixed"),
    ("response_added", "message-level: no responses"),
    ("response_removed", "message-level: no responses"),
    ("response_changed", "message-level: no responses"),
    (
        "unresolved_type",
        "needs a generic message whose parameter is bound nowhere: serde needs a concrete type to decode",
    ),
    ("fixtures_missing", "about wire fixture files, not the wire"),
    (
        "serde_impl_changed",
        "the generated types derive their impls; hand-written ones are the `serde_impl_changed*` fixtures' (tests/compat_fixtures.rs)",
    ),
    (
        "external_type_changed",
        "the generated fields use only types the checker sees into (std's serde impls, the catalogue's types and `with` modules, serde_with's adapters, serde_repr); opaque types are the `external_type_changed*` fixtures' (tests/compat_fixtures.rs)",
    ),
    (
        "positional_field_added",
        "bincode and postcard: not among the batch's formats (msgpack-compact may show the field rules)",
    ),
    (
        "positional_field_removed",
        "bincode and postcard: not among the batch's formats (msgpack-compact may show the field rules)",
    ),
    (
        "positional_undecodable",
        "bincode and postcard: not among the batch's formats (msgpack-compact may show the field rules)",
    ),
    (
        "positional_field_order_changed",
        "bincode and postcard: not among the batch's formats (msgpack-compact may show the field rules)",
    ),
    (
        "positional_variant_reordered",
        "bincode and postcard: not among the batch's formats (msgpack-compact may show the field rules)",
    ),
    (
        "min_compatible_spans_break",
        "window-level: a pair has no release history (tests/check_window.rs)",
    ),
    (
        "since_above_version",
        "about a declaration against its protocol's version, not a pair of releases",
    ),
    (
        "upgrade_order_changed",
        "protocol-level: the pairs keep their protocol's upgrade order",
    ),
];

/// A false negative the engine is known to have, as a minimal reproducer. The test runs the engine on
/// the two sides and decodes `payload` (written by the writer of `dir`) with the reader of `dir`: the entry
/// must still reproduce (the engine says the direction is compatible, serde rejects the payload, and the
/// writer really writes it), or the test fails and asks for the entry to be removed.
struct KnownFalseNegative {
    /// Short name.
    name: &'static str,
    /// What the engine misses.
    what: &'static str,
    /// The old definitions (the message marked with `//@message`).
    old: &'static str,
    /// The new definitions.
    new: &'static str,
    /// The message type's name.
    message: &'static str,
    /// The direction that fails.
    dir: Direction,
    /// The payload the writer writes and the reader rejects.
    payload: &'static str,
    /// Whether a generated false negative is this one: `(serde's error, the reader's definitions, the
    /// writer's definitions)`.
    explains: fn(&str, &str, &str) -> bool,
}

/// The engine's known false negatives: none since simple `macro_rules!` are expanded (the last entry was a
/// type written by `wire_newtype!` that changed under the same name).
const KNOWN_FALSE_NEGATIVES: &[KnownFalseNegative] = &[];

const ENGINE_HEAD: &str = "use serde::{Deserialize, Serialize};\nuse std::collections::{BTreeMap, BTreeSet};\nuse wirecheck::{Message, Protocol};\n\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\n";

/// The source the engine reads: the definitions with the protocol and the message declared.
fn engine_source(defs: &str) -> String {
    engine_source_in(defs, "json")
}

/// [`engine_source`] with a protocol of `format`.
fn engine_source_in(defs: &str, format: &str) -> String {
    let head = if format == "json" {
        ENGINE_HEAD.to_owned()
    } else {
        ENGINE_HEAD.replace(
            "version = \"1.0.0\")",
            &format!("version = \"1.0.0\", format = \"{format}\")"),
        )
    };
    // The helpers the `with` attributes name, as the batch binary compiles them: the engine reads
    // the same functions the real codec runs.
    format!(
        "{head}{}\n{}",
        defs.replace(
            MESSAGE_MARK,
            "#[derive(Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]"
        ),
        batch::HELPERS
    )
}

/// The definitions as the batch crate compiles them (serde only).
fn batch_defs(defs: &str) -> String {
    defs.replace(&format!("{MESSAGE_MARK}\n"), "")
}

/// The engine's findings for a pair of definitions, or why it could not give them.
fn engine(old_defs: &str, new_defs: &str) -> Result<Vec<Finding>, String> {
    engine_in(old_defs, new_defs, "json")
}

/// [`engine`] for a protocol of `format`.
fn engine_in(old_defs: &str, new_defs: &str, format: &str) -> Result<Vec<Finding>, String> {
    let (o, n) = (
        engine_source_in(old_defs, format),
        engine_source_in(new_defs, format),
    );
    let run = || -> Result<Vec<Finding>, String> {
        let old = snapshot_from_sources("pair", &[("src/lib.rs", &o)])
            .map_err(|e| format!("old side: {e}"))?;
        let new = snapshot_from_sources("pair", &[("src/lib.rs", &n)])
            .map_err(|e| format!("new side: {e}"))?;
        if old.messages.len() != 1 || new.messages.len() != 1 {
            return Err(format!(
                "the extraction saw {} and {} messages, not 1",
                old.messages.len(),
                new.messages.len()
            ));
        }
        Ok(compare_protocol(&old, &new, "p", "old", Scope::Full))
    };
    std::panic::catch_unwind(run).unwrap_or_else(|p| {
        let text = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(format!("the engine panicked: {text}"))
    })
}

fn values(schema: &Schema, prefix: &str, rng: &mut Rng) -> Vec<String> {
    let v = Values::new(schema, prefix);
    let msg = Ty::Named(schema.message().name.clone());
    let cover = schema
        .defs
        .iter()
        .filter_map(|d| match &d.body {
            Body::Enum(vs, _) => Some(vs.len()),
            _ => None,
        })
        .max()
        .unwrap_or(1)
        .clamp(1, 8);
    let mut out: Vec<String> = Vec::new();
    for k in 0..cover {
        out.push(v.value(&msg, Pick::Min(k), rng, 0));
        out.push(v.value(&msg, Pick::Max(k), rng, 0));
    }
    for _ in 0..RANDOM_VALUES {
        out.push(v.value(&msg, Pick::Rand, rng, 0));
    }
    let mut seen = BTreeSet::new();
    out.retain(|x| seen.insert(x.clone()));
    out
}

/// Whether a release's own type rejects some payload it writes: the writer's type, in `dir`'s generated
/// payloads of `key` (`pair@format`).
fn writer_rejects_own(
    gen_lines: &BTreeMap<(String, Direction), Vec<&Line>>,
    key: &str,
    dir: Direction,
) -> bool {
    gen_lines
        .get(&(key.to_owned(), dir))
        .is_some_and(|lines| lines.iter().any(|l| l.writer_err.is_some()))
}

/// The pair of a `pair@format` key.
fn pair_of(key: &str) -> &str {
    key.split('@').next().unwrap_or(key)
}

/// The format of a `pair@format` key.
fn format_of(key: &str) -> &str {
    key.split('@').nth(1).unwrap_or("json")
}

/// A share of `total` in percent, as text.
fn percent(part: usize, total: usize) -> String {
    format!("{:.2} %", 100.0 * part as f64 / total.max(1) as f64)
}

/// FNV-1a: a stable hash of a side's text, to seed its values.
fn fnv(text: &str) -> u64 {
    let mut hash = fnv::FnvHasher::default();
    hash.write(text.as_bytes());
    hash.finish()
}

fn dir_code(d: Direction) -> &'static str {
    match d {
        Direction::OldReadsNew => "onr",
        Direction::NewReadsOld => "nro",
    }
}

fn dir_of(code: &str) -> Direction {
    if code == "onr" {
        Direction::OldReadsNew
    } else {
        Direction::NewReadsOld
    }
}

/// Whether two payload texts are the same payload: as JSON values, or a binary format's bytes.
fn same_payload(fmt: &str, a: &str, b: &str) -> bool {
    if fmt == "json" {
        serde_json::from_str::<Value>(a).ok() == serde_json::from_str::<Value>(b).ok()
    } else {
        a == b
    }
}

/// Whether a payload survives a trip through the reader unchanged.
fn round_trips(line: &Line) -> bool {
    let (Some(p), Some(r)) = (&line.payload, &line.round) else {
        return false;
    };
    same_payload(&line.fmt, p, r)
}

/// Whether the writer's type reads the payload and writes it back the same: the writer really produces it.
fn writer_produces(line: &Line) -> bool {
    let (Some(p), Some(w)) = (&line.payload, &line.writer) else {
        return false;
    };
    same_payload(&line.fmt, p, w)
}

/// A payload that fails where the engine said compatible.
struct FalseNegative {
    pair: String,
    dir: Direction,
    payload: String,
    error: String,
    writer_rejects_too: bool,
    known: Option<&'static str>,
}

/// What the stdin line `i` was.
struct StdinItem {
    /// The pair and format (`p0001@cbor`).
    pair: String,
    dir: Direction,
    /// The finding's rule; `None` for a known false negative's payload.
    rule: Option<RuleId>,
    known: Option<usize>,
}

fn side_text(title: &str, defs: &str) -> String {
    let mut out = format!("  --- {title}\n");
    for l in defs.lines() {
        let _ = writeln!(out, "  | {l}");
    }
    out
}

#[test]
fn engine_agrees_with_serde_json() {
    let started = std::time::Instant::now();
    let seed = env_or("WIRECHECK_DIFFERENTIAL_SEED", SEED);
    let pairs: Vec<Pair> = mutate::pairs(env_or("WIRECHECK_DIFFERENTIAL_PAIRS", PAIRS), seed);
    assert!(pairs.len() >= 300, "only {} pairs", pairs.len());

    // Every mutation kind is exercised.
    let mut used_mutations: BTreeMap<&str, usize> =
        MUTATIONS.iter().map(|(n, _)| (*n, 0)).collect();
    for p in &pairs {
        for m in &p.mutations {
            if let Some(name) = m.split(':').next()
                && let Some(c) = used_mutations.get_mut(name)
            {
                *c += 1;
            }
        }
    }
    let unused: Vec<&&str> = used_mutations
        .iter()
        .filter(|(_, c)| **c == 0)
        .map(|(n, _)| n)
        .collect();
    assert!(unused.is_empty(), "mutations never applied: {unused:?}");

    // The engine, in-process.
    let mut sides: Vec<Side> = Vec::new();
    let mut side_of: BTreeMap<String, String> = BTreeMap::new();
    let mut specs = Vec::new();
    // Identical sides (the corpus entry on the unmutated side of many pairs) share one module.
    let mut side = |defs: String, schema: Option<&Schema>| -> String {
        if let Some(name) = side_of.get(&defs) {
            return name.clone();
        }
        let name = format!("s{:04}", sides.len() + 1);
        let values = schema
            .map(|s| values(s, "", &mut Rng::new(seed ^ fnv(&defs))))
            .unwrap_or_default();
        sides.push(Side {
            name: name.clone(),
            defs: defs.clone(),
            values,
        });
        side_of.insert(defs, name.clone());
        name
    };
    let formats: Vec<String> = std::env::var("WIRECHECK_DIFFERENTIAL_FORMATS")
        .map(|v| v.split(',').map(str::to_owned).collect())
        .unwrap_or_else(|_| FORMATS.iter().map(|f| (*f).to_owned()).collect());
    // Findings by pair and format (`p0001@cbor`).
    let mut findings: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    let mut engine_errors = Vec::new();
    let mut stdin = Vec::new();
    let mut stdin_items = Vec::new();
    let mut sources: BTreeMap<String, (String, String, &Pair)> = BTreeMap::new();
    for p in &pairs {
        let name = format!("p{:04}", p.id);
        let (od, nd) = (p.old.render_defs(), p.new.render_defs());
        for fmt in &formats {
            let key = format!("{name}@{fmt}");
            match engine_in(&od, &nd, fmt) {
                Ok(fs) => {
                    for f in &fs {
                        if let (Level::Major, Some(d), Some(w)) = (f.level, f.direction, &f.witness)
                        {
                            stdin.push(format!("{name}\t{fmt}\t{}\t{w}", dir_code(d)));
                            stdin_items.push(StdinItem {
                                pair: key.clone(),
                                dir: d,
                                rule: Some(f.rule),
                                known: None,
                            });
                        }
                    }
                    findings.insert(key, fs);
                }
                Err(e) => engine_errors.push(format!("{key} ({}): {e}", p.base)),
            }
        }
        specs.push(PairSpec {
            name: name.clone(),
            old: side(batch_defs(&od), Some(&p.old)),
            new: side(batch_defs(&nd), Some(&p.new)),
            message: p.old.message().name.clone(),
        });
        sources.insert(name, (od, nd, p));
    }

    // The known false negatives: the engine must still miss them.
    let mut known_engine = Vec::new();
    for (i, k) in KNOWN_FALSE_NEGATIVES.iter().enumerate() {
        let name = format!("known_{:02}", i + 1);
        let fs = engine(k.old, k.new)
            .unwrap_or_else(|e| panic!("KNOWN_FALSE_NEGATIVES `{}`: {e}", k.name));
        known_engine.push(
            fs.iter()
                .any(|f| f.level == Level::Major && f.direction == Some(k.dir)),
        );
        stdin.push(format!("{name}\tjson\t{}\t{}", dir_code(k.dir), k.payload));
        stdin_items.push(StdinItem {
            pair: format!("{name}@json"),
            dir: k.dir,
            rule: None,
            known: Some(i),
        });
        specs.push(PairSpec {
            name,
            old: side(batch_defs(k.old), None),
            new: side(batch_defs(k.new), None),
            message: k.message.into(),
        });
    }
    let engine_time = started.elapsed();

    // serde, compiled.
    let side_count = sides.len();
    let batch_name = format!("batch-{seed:x}-{}", pairs.len());
    let bin = batch::build(&batch_name, &sides, &specs);
    let build_time = started.elapsed() - engine_time;
    let format_args: Vec<&str> = formats.iter().map(String::as_str).collect();
    let lines = batch::run(&bin, &format_args, &stdin);
    // `wirecheck schema` against the same JSON payloads and the same verdicts of serde_json.
    let schema_verdicts = schemas::check(&sources, &lines);

    let mut gen_lines: BTreeMap<(String, Direction), Vec<&Line>> = BTreeMap::new();
    let mut stdin_lines: Vec<Option<&Line>> = vec![None; stdin.len()];
    let mut ser_errors = 0usize;
    for l in &lines {
        if l.src == "stdin" {
            stdin_lines[l.idx] = Some(l);
        } else if l.ser_err.is_some() {
            ser_errors += 1;
        } else {
            gen_lines
                .entry((format!("{}@{}", l.pair, l.fmt), dir_of(&l.dir)))
                .or_default()
                .push(l);
        }
    }
    assert!(
        stdin_lines.iter().all(Option::is_some),
        "the batch binary skipped stdin lines"
    );

    // Witnesses: each must fail (be rejected, or for misread rules change on a trip through the reader),
    // and be something the writer really writes.
    let mut confirmed: BTreeSet<(String, Direction)> = BTreeSet::new();
    let mut witness_not_failing = Vec::new();
    let mut witness_not_written = Vec::new();
    let mut witness_unusable = Vec::new();
    let mut known_failures = Vec::new();
    let mut witnesses = 0usize;
    for (item, line) in stdin_items.iter().zip(&stdin_lines) {
        let line = line.expect("checked above");
        if let Some(k) = item.known {
            let entry = &KNOWN_FALSE_NEGATIVES[k];
            if known_engine[k] {
                known_failures.push(format!(
                    "`{}`: the engine now reports a major finding for {}: the entry is stale, remove it",
                    entry.name, entry.dir
                ));
            }
            if line.read_err.is_none() {
                known_failures.push(format!(
                    "`{}`: serde now accepts the payload {}: the entry is stale, remove it",
                    entry.name, entry.payload
                ));
            }
            if !writer_produces(line) {
                known_failures.push(format!(
                    "`{}`: the writer's type does not write {} ({:?})",
                    entry.name, entry.payload, line.writer_err
                ));
            }
            continue;
        }
        witnesses += 1;
        if let Some(why) = &line.witness_err {
            witness_unusable.push(format!(
                "{} {} {}: witness {}: {why}",
                item.pair,
                item.dir,
                item.rule.map(RuleId::as_str).unwrap_or(""),
                line.payload.as_deref().unwrap_or("")
            ));
            continue;
        }
        let rejected = line.read_err.is_some();
        // A rule whose breaks may be silent misreads: the witness also counts as failing when a trip through
        // the reader (decode with the reader, encode with the reader, decode and encode with the writer) does
        // not give it back.
        let may_misread = item
            .rule
            .is_some_and(|rule| rule.rule().evidence.may_misread());
        let misread = may_misread && !round_trips(line);
        if rejected || misread {
            confirmed.insert((item.pair.clone(), item.dir));
        } else {
            witness_not_failing.push(format!(
                "{} {} {}: witness {} decodes and round-trips",
                item.pair,
                item.dir,
                item.rule.map(RuleId::as_str).unwrap_or(""),
                line.payload.as_deref().unwrap_or("")
            ));
        }
        // A writer whose own type cannot read what it writes (a required field it may skip, a struct tag
        // it denies) makes the witness unverifiable this way; not counted against the witness.
        let self_inconsistent = line
            .writer_err
            .as_deref()
            .is_some_and(|e| e.starts_with("missing field") || e.starts_with("unknown field"));
        if !writer_produces(line) && !self_inconsistent {
            witness_not_written.push(format!(
                "{} {} {}: witness {} is not what the writer writes ({})",
                item.pair,
                item.dir,
                item.rule.map(RuleId::as_str).unwrap_or(""),
                line.payload.as_deref().unwrap_or(""),
                line.writer_err
                    .clone()
                    .or_else(|| line.writer.clone().map(|w| format!("it writes {w}")))
                    .unwrap_or_default()
            ));
        }
    }

    // Verdicts.
    let mut false_negatives: Vec<FalseNegative> = Vec::new();
    let mut false_positives: Vec<String> = Vec::new();
    let mut fp_rules: BTreeMap<String, usize> = BTreeMap::new();
    let mut rules_seen: BTreeSet<String> = BTreeSet::new();
    let mut payloads = 0usize;
    let mut rejected_payloads = 0usize;
    let mut directions = 0usize;
    let mut incompatible = 0usize;
    let mut fp_formats: BTreeMap<String, usize> = BTreeMap::new();
    let mut self_rejected_payloads = 0usize;
    let mut fp_with = 0usize;
    for (name, fs) in &findings {
        for f in fs {
            rules_seen.insert(f.rule.to_string());
        }
        for dir in [Direction::OldReadsNew, Direction::NewReadsOld] {
            directions += 1;
            let major: Vec<&Finding> = fs
                .iter()
                .filter(|f| {
                    f.level == Level::Major
                        && (f.direction == Some(dir) || stands_for_both_directions(f))
                })
                .collect();
            let ls = gen_lines
                .get(&(name.clone(), dir))
                .cloned()
                .unwrap_or_default();
            payloads += ls.len();
            let failing: Vec<&&Line> = ls.iter().filter(|l| l.read_err.is_some()).collect();
            rejected_payloads += failing.len();
            // A payload the writer's own type rejects too: the writer's release cannot read what it writes
            // (the contract's `self_rejected`). Not this change's doing when it is the old release, or when
            // the old release rejected its own payloads as well; else the engine must say so.
            // Also not this change's doing: an old reader that rejects the old release's own payloads
            // (a self-rejecting release is broken for every peer already; the contract blames the change
            // that introduces it, and the new release's `self_rejected` is checked above).
            let reader_was_broken = dir == Direction::OldReadsNew
                && writer_rejects_own(&gen_lines, name, Direction::NewReadsOld);
            let self_rejection_explained = |l: &&&Line| {
                reader_was_broken
                    || l.writer_err.is_some()
                        && (dir == Direction::NewReadsOld
                            || writer_rejects_own(&gen_lines, name, Direction::NewReadsOld)
                            || fs
                                .iter()
                                .any(|f| f.rule == RuleId::SelfRejected && f.level == Level::Major))
            };
            if major.is_empty() {
                let (self_rejected, failing): (Vec<&&Line>, Vec<&&Line>) = failing
                    .into_iter()
                    .partition(|l| self_rejection_explained(l));
                self_rejected_payloads += self_rejected.len();
                for l in failing {
                    let error = l.read_err.clone().unwrap_or_default();
                    let (od, nd, _) = &sources[pair_of(name)];
                    let (reader, writer) = match dir {
                        Direction::OldReadsNew => (od, nd),
                        Direction::NewReadsOld => (nd, od),
                    };
                    let known = KNOWN_FALSE_NEGATIVES
                        .iter()
                        .find(|k| (k.explains)(&error, reader, writer))
                        .map(|k| k.name);
                    false_negatives.push(FalseNegative {
                        pair: name.clone(),
                        dir,
                        payload: l.payload.clone().unwrap_or_default(),
                        error,
                        writer_rejects_too: l.writer_err.is_some(),
                        known,
                    });
                }
            } else {
                incompatible += 1;
                if failing.is_empty() && !confirmed.contains(&(name.clone(), dir)) {
                    let rules: BTreeSet<&str> = major.iter().map(|f| f.rule.as_str()).collect();
                    for r in &rules {
                        *fp_rules.entry((*r).to_owned()).or_default() += 1;
                    }
                    *fp_formats.entry(format_of(name).to_owned()).or_default() += 1;
                    if rules
                        .iter()
                        .all(|r| *r == RuleId::CustomSerdeChanged.as_str())
                    {
                        fp_with += 1;
                    }
                    let (_, _, p) = &sources[pair_of(name)];
                    false_positives.push(format!(
                        "{name} {dir}: {:?} (witness: {}) after {}",
                        rules,
                        if major.iter().any(|f| f.witness.is_some()) {
                            "yes"
                        } else {
                            "none"
                        },
                        p.mutations.join("; ")
                    ));
                }
            }
        }
    }
    let fn_directions: BTreeSet<(String, Direction)> = false_negatives
        .iter()
        .map(|f| (f.pair.clone(), f.dir))
        .collect();
    let unexplained: Vec<&FalseNegative> = false_negatives
        .iter()
        .filter(|f| f.known.is_none())
        .collect();

    // The report.
    let mut report = String::new();
    let _ = writeln!(
        report,
        "differential: {} pairs ({} distinct sides compiled; {} directions, {} incompatible per the engine), {} generated payloads ({} rejected by the reader, {} values the writer could not serialize), {} witnesses; engine {:.1?}, batch build {:.1?}, total {:.1?}",
        pairs.len(),
        side_count,
        directions,
        incompatible,
        payloads,
        rejected_payloads,
        ser_errors,
        witnesses,
        engine_time,
        build_time,
        started.elapsed()
    );
    let _ = writeln!(
        report,
        "payloads the writer's own type rejects too (or that an old reader rejects while rejecting its own release's payloads), not this change's doing or reported as self_rejected: {self_rejected_payloads}"
    );
    let _ = writeln!(report, "mutations applied: {used_mutations:?}");
    let _ = writeln!(report, "rules reported: {rules_seen:?}");
    let _ = writeln!(
        report,
        "rules never reported: {:?}",
        RULES
            .iter()
            .map(|r| r.id)
            .filter(|id| !rules_seen.contains(*id))
            .collect::<Vec<_>>()
    );
    if !engine_errors.is_empty() {
        let _ = writeln!(report, "\nengine errors ({}):", engine_errors.len());
        for e in &engine_errors {
            let _ = writeln!(report, "  {e}");
        }
    }
    let _ = writeln!(
        report,
        "\nfalse negatives: {} payloads in {} directions ({} explained by KNOWN_FALSE_NEGATIVES)",
        false_negatives.len(),
        fn_directions.len(),
        false_negatives.len() - unexplained.len()
    );
    let mut shown = BTreeSet::new();
    for f in &false_negatives {
        let _ = writeln!(
            report,
            "  {} {}: payload {} rejected: {}{}{}",
            f.pair,
            f.dir,
            f.payload,
            f.error,
            if f.writer_rejects_too {
                " (the writer's own type rejects it too)"
            } else {
                ""
            },
            f.known
                .map(|k| format!(" [known: {k}]"))
                .unwrap_or_default()
        );
        if shown.insert(f.pair.clone()) {
            let (od, nd, p) = &sources[pair_of(&f.pair)];
            let _ = writeln!(report, "  after {} ({})", p.mutations.join("; "), p.base);
            for x in findings.get(&f.pair).into_iter().flatten() {
                let _ = writeln!(
                    report,
                    "  engine: {} {} {:?} at {:?}: {}",
                    x.level,
                    x.rule,
                    x.direction.map(Direction::as_str),
                    x.field,
                    x.message
                );
            }
            report.push_str(&side_text("old", &batch_defs(od)));
            report.push_str(&side_text("new", &batch_defs(nd)));
        }
    }
    for k in KNOWN_FALSE_NEGATIVES {
        let _ = writeln!(report, "  known `{}`: {}", k.name, k.what);
    }
    let _ = writeln!(
        report,
        "\nfalse positives: {} directions; by rule: {fp_rules:?}; by format: {fp_formats:?}; \
         {fp_with} whose every major rule is custom_serde_changed (`with` functions)",
        false_positives.len()
    );
    for f in &false_positives {
        let _ = writeln!(report, "  {f}");
    }
    let _ = writeln!(
        report,
        "\nwitnesses that do not fail: {}",
        witness_not_failing.len()
    );
    for w in &witness_not_failing {
        let _ = writeln!(report, "  {w}");
    }
    let _ = writeln!(
        report,
        "\nwitnesses the writer does not write as given (not counting writers that cannot read their own output): {}",
        witness_not_written.len()
    );
    for w in &witness_not_written {
        let _ = writeln!(report, "  {w}");
    }
    let _ = writeln!(
        report,
        "\nwitnesses that are no value of the writer's type as JSON (not decoded): {}",
        witness_unusable.len()
    );
    for w in &witness_unusable {
        let _ = writeln!(report, "  {w}");
    }
    let runs = pairs.len() * formats.len();
    let _ = writeln!(
        report,
        "pairs={} formats={} false_negatives={} false_positives={} ({}) without_with={} ({})",
        pairs.len(),
        formats.len(),
        fn_directions.len(),
        false_positives.len(),
        percent(false_positives.len(), runs),
        false_positives.len() - fp_with,
        percent(false_positives.len() - fp_with, runs)
    );
    let path = batch::target_dir()
        .join("differential")
        .join(format!("{batch_name}.report.txt"));
    let _ = std::fs::write(&path, &report);
    // Uncaptured, so the figures show in every `cargo test` run; the last line is the summary.
    let summary = report.lines().last().unwrap_or_default().to_owned();
    let _ = writeln!(
        std::io::stderr(),
        "differential report: {}\n{summary}",
        path.display()
    );

    let missing: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !rules_seen.contains(*id) && !NOT_COVERED.iter().any(|(n, _)| n == id))
        .collect();
    assert!(
        engine_errors.is_empty(),
        "the engine failed on generated pairs:\n{}",
        engine_errors.join("\n")
    );
    assert!(
        known_failures.is_empty(),
        "KNOWN_FALSE_NEGATIVES is stale:\n{}",
        known_failures.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "{} false negatives (payloads serde rejects where the engine said compatible); see {}:\n{}",
        unexplained.len(),
        path.display(),
        report
    );
    schemas::assert_agree(&schema_verdicts);
    assert!(
        missing.is_empty(),
        "rules the generated pairs never triggered (add a mutation, or list them in NOT_COVERED with a reason): {missing:?}"
    );
}
