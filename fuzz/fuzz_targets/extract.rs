#![no_main]
//! Extraction on arbitrary input: bytes (not necessarily UTF-8, not necessarily Rust) and mutations of
//! real protocol sources (the seed corpus), as a crate of up to four files. Extraction must return a model
//! or an error, never panic or hang; a model must survive the JSON round trip `wirecheck snapshot` makes,
//! and the engine must not panic comparing it with itself.
//!
//! Input: the files' texts separated by lines holding only `//--file`; the first is `src/lib.rs`, the
//! others `src/a.rs`, `src/b/mod.rs` and `src/c.rs` (so `mod a; mod b; mod c;` find them).

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::{CrateRoot, ExtractError, FileReader, extract};
use wirecheck::model::Snapshot;

const NAMES: [&str; 4] = ["src/lib.rs", "src/a.rs", "src/b/mod.rs", "src/c.rs"];
const SEPARATOR: &[u8] = b"\n//--file\n";

struct Files(BTreeMap<String, Vec<u8>>);

impl FileReader for Files {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        Ok(self.0.get(path).cloned())
    }
}

fn split(mut data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    while parts.len() + 1 < NAMES.len() {
        match data.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
            Some(i) => {
                parts.push(&data[..i]);
                data = &data[i + SEPARATOR.len()..];
            }
            None => break,
        }
    }
    parts.push(data);
    parts
}

fuzz_target!(|data: &[u8]| {
    let files = Files(
        NAMES
            .iter()
            .zip(split(data))
            .map(|(name, bytes)| ((*name).to_owned(), bytes.to_vec()))
            .collect(),
    );
    let crates = [CrateRoot {
        name: "fuzzed".into(),
        root_file: NAMES[0].into(),
    }];
    let Ok(snapshot) = extract(&crates, &files) else {
        return;
    };
    let json = serde_json::to_string(&snapshot).expect("a model serializes");
    let back: Snapshot = serde_json::from_str(&json).expect("a model deserializes");
    assert_eq!(
        back, snapshot,
        "the model does not survive its JSON round trip"
    );
    for p in &snapshot.protocols {
        let _ = compare_protocol(&snapshot, &snapshot, &p.name, "self", Scope::Full);
    }
});
