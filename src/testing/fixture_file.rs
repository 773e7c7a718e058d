//! Reading the fixture files `wirecheck fixtures write` writes: `<protocol>/<version>/<topic>.<kind>.json`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::Kind;

/// The newest fixture file layout this module reads (the `wirecheck_fixture` key).
const LAYOUT_VERSION: u32 = 1;

/// A fixture file: the header naming the message, then its cases.
#[derive(Deserialize)]
pub(super) struct FixtureFile {
    wirecheck_fixture: u32,
    protocol: String,
    version: String,
    /// The protocol's `format` keyword.
    pub(super) format: String,
    /// The message type's name, without its module path.
    pub(super) message: String,
    pub(super) topic: String,
    pub(super) kind: Kind,
    /// A type of the message denies unknown fields.
    #[serde(default)]
    pub(super) strict: bool,
    pub(super) cases: Vec<FixtureCase>,
}

/// One payload of a fixture file, with the name of the case it was generated for (`minimal`).
#[derive(Deserialize)]
pub(super) struct FixtureCase {
    pub(super) case: String,
    pub(super) payload: Value,
}

/// A fixture file of a folder, by path: parsed, or why it could not be.
pub(super) type ParsedFile = (PathBuf, Result<FixtureFile, String>);

/// The fixture files of a folder (`*.json` with a `wirecheck_fixture` key), sorted by path.
pub(super) fn read_folder(dir: &Path) -> Result<Vec<ParsedFile>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read the folder: {e}"))?;
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") || !path.is_file() {
            continue;
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                files.push((path, Err(format!("cannot read the file: {e}"))));
                continue;
            }
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            files.push((path, Err("not JSON".to_owned())));
            continue;
        };
        if value.get("wirecheck_fixture").is_none() {
            continue;
        }
        let file = serde_json::from_value::<FixtureFile>(value)
            .map_err(|e| format!("not a wirecheck fixture file: {e}"));
        files.push((path, file));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// What is wrong with a file's header, read in the folder of `protocol` `release`: a newer layout, or a file
/// of another protocol or release.
pub(super) fn header_problem(file: &FixtureFile, protocol: &str, release: &str) -> Option<String> {
    if file.wirecheck_fixture > LAYOUT_VERSION {
        return Some(format!(
            "written with layout {} by a newer wirecheck; this one reads layout {LAYOUT_VERSION}: update wirecheck",
            file.wirecheck_fixture
        ));
    }
    if file.protocol != protocol || file.version != release {
        return Some(format!(
            "the file is a fixture of {} {} but sits in the folder of {protocol} {release}",
            file.protocol, file.version
        ));
    }
    None
}
