//! What extraction makes of every fixture (`tests/fixtures/*/{old,new}`) reads back from its JSON as it
//! was, and the model's hand-written readings of its tagged enums agree with serde's derive on every
//! object in it, its keys also in other orders (`model/de.rs`).

use std::path::Path;

use super::snapshot_from_sources;
use crate::model::{Snapshot, reads_as_the_derive};

#[test]
fn fixture_models_read_back_as_written_and_as_the_derive_reads_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/fixtures")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    dirs.sort();
    let mut models = 0;
    for side in dirs.iter().flat_map(|d| [d.join("old"), d.join("new")]) {
        let Ok(lib) = std::fs::read_to_string(side.join("lib.rs")) else {
            continue;
        };
        let manifest = std::fs::read_to_string(side.join("Cargo.toml")).ok();
        let mut files = vec![("src/lib.rs", lib.as_str())];
        files.extend(manifest.as_deref().map(|m| ("Cargo.toml", m)));
        let model = snapshot_from_sources("fixture", &files)
            .unwrap_or_else(|e| panic!("{}: {e}", side.display()));
        let json = serde_json::to_string(&model).expect("serializes");
        let read: Snapshot = serde_json::from_str(&json).expect("reads back");
        assert_eq!(read, model, "{}", side.display());
        reads_as_the_derive(&json);
        models += 1;
    }
    assert!(models >= 100, "{models} fixture models");
}
