//! The hot parts of `wirecheck check`, per unit of work (divan; `cargo bench --features checker --bench
//! hot`): extraction per message file, the skip of files without declarations, the comparison per
//! message and the read of a stored model per message. `cargo test --features checker --benches` runs
//! each once, as a smoke test.
//!
//! `cargo xtask bench` measures the whole check on a generated workspace; these say where its time goes
//! and that each part grows linearly (the `*_per_*` benchmarks report a throughput per item: it should
//! stay flat as the argument grows).

use std::fmt::Write as _;

use divan::Bencher;
use divan::counter::ItemsCount;
use wirecheck::compat::{self, Scope};
use wirecheck::extract::{self, CrateRoot, SourceCache};
use wirecheck::model::Snapshot;

fn main() {
    divan::main();
}

const HEADER: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n\n\
#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n";

/// A message file of `n` messages of realistic shape (nested struct, tagged enum, serde attributes);
/// `extra` adds an optional field to every message.
fn message_file(file: usize, n: usize, extra: bool) -> String {
    let mut s = String::from(
        "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\nuse crate::P;\n\n",
    );
    for i in 0..n {
        let name = format!("M{file}x{i}");
        let _ = write!(
            s,
            "#[derive(Debug, Clone, Serialize, Deserialize)]\n#[serde(tag = \"type\", rename_all = \"snake_case\")]\n\
             pub enum {name}State {{ Pending, Running {{ rank: u32, since: f64 }}, #[serde(other)] Unknown }}\n\n\
             #[derive(Debug, Clone, Serialize, Deserialize)]\npub struct {name}Info {{ pub id: u64, #[serde(default)] pub tags: Vec<String> }}\n\n\
             /// Message {i}.\n#[derive(Debug, Clone, Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"t.{file}.{i}\", kind = \"request\")]\n#[serde(rename_all = \"camelCase\")]\n\
             pub struct {name} {{\n    pub job_id: u64,\n    pub name: String,\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub note: Option<String>,\n\
             \x20   pub info: {name}Info,\n    pub state: {name}State,\n    pub limits: std::collections::BTreeMap<String, u64>,\n{}}}\n\n",
            if extra {
                "    #[serde(default)]\n    pub added: Option<u64>,\n"
            } else {
                ""
            }
        );
    }
    s
}

/// A file of service code without any annotation.
fn plain_file(i: usize) -> String {
    let mut s = String::from("use std::collections::HashMap;\n\n");
    for f in 0..20 {
        let _ = write!(
            s,
            "/// Helper {f}.\npub fn helper{i}_{f}(x: &HashMap<u64, String>) -> usize {{\n    x.values().map(|v| v.len() * {f}).filter(|n| n % 2 == 0).sum::<usize>() + \"{{}}\".len()\n}}\n\n"
        );
    }
    s
}

/// A crate of `files` message files of `per_file` messages and `plain` files without annotations.
fn workspace(files: usize, per_file: usize, plain: usize, extra: bool) -> Vec<(String, String)> {
    let mut lib = String::from(HEADER);
    let mut out = Vec::new();
    for f in 0..files {
        let _ = writeln!(lib, "pub mod m{f};");
        out.push((format!("src/m{f}.rs"), message_file(f, per_file, extra)));
    }
    for p in 0..plain {
        let _ = writeln!(lib, "pub mod plain{p};");
        out.push((format!("src/plain{p}.rs"), plain_file(p)));
    }
    out.insert(0, ("src/lib.rs".to_owned(), lib));
    out
}

fn extract_all(files: &[(String, String)]) -> Snapshot {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    extract::snapshot_from_sources("demo", &refs).expect("extracts")
}

/// Extraction of `files` message files of 5 messages each (the time per file should not grow with the
/// number of files).
#[divan::bench(args = [10, 40, 160])]
fn extract_per_message_file(bencher: Bencher, files: usize) {
    let ws = workspace(files, 5, 0, false);
    bencher
        .counter(ItemsCount::new(files))
        .bench(|| extract_all(&ws));
}

/// Extraction of one message file among `plain` files without annotations: they are only scanned,
/// never parsed, so each costs a fraction of a message file.
#[divan::bench(args = [0, 40, 160])]
fn extract_with_plain_files(bencher: Bencher, plain: usize) {
    let ws = workspace(1, 5, plain, false);
    bencher
        .counter(ItemsCount::new(plain.max(1)))
        .bench(|| extract_all(&ws));
}

/// A second revision read through the cache of the first: unchanged files cost a lookup.
#[divan::bench(args = [40, 160])]
fn extract_second_revision_cached(bencher: Bencher, files: usize) {
    let ws = workspace(files, 5, 0, false);
    let map: std::collections::BTreeMap<String, String> = ws.into_iter().collect();
    let roots = [CrateRoot {
        name: "demo".into(),
        root_file: "src/lib.rs".into(),
    }];
    bencher.counter(ItemsCount::new(files)).bench(|| {
        let cache = SourceCache::new();
        let first = extract::extract_cached(&roots, &map, &cache).unwrap();
        let second = extract::extract_cached(&roots, &map, &cache).unwrap();
        assert_eq!(first.messages.len(), second.messages.len());
    });
}

/// The comparison of a protocol of `n` messages with its next revision (every message gained a field):
/// the time per message should stay flat as `n` grows.
#[divan::bench(args = [50, 200, 800])]
fn compare_per_message(bencher: Bencher, n: usize) {
    let files = n / 5;
    let old = extract_all(&workspace(files, 5, 0, false));
    let new = extract_all(&workspace(files, 5, 0, true));
    bencher
        .counter(ItemsCount::new(n))
        .bench(|| compat::compare_protocol(&old, &new, "p", "v1", Scope::Full));
}

/// Reading back a stored model of `n` messages (JSON, as the store writes it): the time per message
/// should stay flat as `n` grows.
#[divan::bench(args = [50, 200, 800])]
fn read_stored_model_per_message(bencher: Bencher, n: usize) {
    let model = extract_all(&workspace(n / 5, 5, 0, false));
    let json = serde_json::to_string(&model).expect("serializes");
    bencher
        .counter(ItemsCount::new(n))
        .bench(|| serde_json::from_str::<Snapshot>(&json).expect("reads back"));
}
