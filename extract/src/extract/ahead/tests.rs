use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{ObjectType, Oid};

use super::{EarlyReadAhead, ReadAhead};
use crate::extract::scan::Scanned;
use crate::extract::{CrateRoot, ExtractError, FileReader, SourceCache, extract, extract_cached};

/// Two crates: modules beside their parent, in `name/mod.rs`, behind `#[path]`, inline, missing, one
/// found only as `name/mod.rs` after `name.rs` is not there, and a file no tree declares.
const FILES: &[(&str, &str)] = &[
    (
        "a/src/lib.rs",
        "mod x;\nmod y;\nmod inline { pub struct I; }\n#[path = \"other/z.rs\"]\nmod z;\nmod missing;\n",
    ),
    ("a/src/x.rs", "pub struct X;\n"),
    ("a/src/y/mod.rs", "mod deep;\n"),
    ("a/src/y/deep.rs", "pub struct Deep;\n"),
    ("a/src/other/z.rs", "mod under;\n"),
    ("a/src/other/under.rs", "pub struct Under;\n"),
    ("a/src/unused.rs", "pub struct Unused;\n"),
    ("b/src/main.rs", "mod m;\nfn main() {}\n"),
    ("b/src/m.rs", "pub struct M;\n"),
];

const ROOTS: &[&str] = &["a/src/lib.rs", "b/src/main.rs"];

/// The files the two trees hold.
fn tree_files() -> Vec<&'static str> {
    FILES
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| *path != "a/src/unused.rs")
        .collect()
}

fn written(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        write(dir.path(), path, text.as_bytes());
    }
    dir
}

fn write(dir: &Path, path: &str, bytes: &[u8]) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn text(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

/// What the thread gave for `path` is the file's scan.
fn assert_scanned(dir: &Path, path: &str, scanned: Option<Scanned>) {
    let scanned = scanned.unwrap_or_else(|| panic!("{path} was not read ahead"));
    let expected = Scanned::of(text(dir, path));
    assert_eq!(scanned.text(), expected.text(), "{path}");
    assert_eq!(scanned.mods(), expected.mods(), "{path}");
}

#[test]
fn the_thread_scans_every_file_of_the_trees_and_no_other() {
    let dir = written(FILES);
    let ahead = ReadAhead::start(dir.path(), ROOTS).unwrap();
    ahead.wait_finished();
    for path in tree_files() {
        assert_scanned(dir.path(), path, ahead.take(path));
    }
    assert!(ahead.take("a/src/unused.rs").is_none());
    assert!(ahead.take("a/src/missing.rs").is_none());
    // Taken once: the extraction has it now.
    assert!(ahead.take("a/src/x.rs").is_none());
}

#[test]
fn the_thread_follows_the_files_the_extraction_takes_and_tries_the_next_place_of_an_absent_one() {
    let files = [
        ("c/src/lib.rs", "mod q;\nmod r;\n"),
        ("c/src/q/mod.rs", "mod inner;\n"),
        ("c/src/q/inner.rs", "pub struct Inner;\n"),
        ("c/src/r.rs", "pub struct R;\n"),
    ];
    let dir = written(&files);
    let ahead = ReadAhead::start(dir.path(), &["c/src/lib.rs"]).unwrap();
    // Whether the thread or the extraction has the root first, the thread follows its `mod`s.
    let root = ahead
        .take("c/src/lib.rs")
        .unwrap_or_else(|| Scanned::of(text(dir.path(), "c/src/lib.rs")));
    ahead.mounted("c/src/lib.rs", root.mods());
    assert!(ahead.take("c/src/q.rs").is_none());
    ahead.absent("c/src/q.rs");
    ahead.wait_finished();
    for path in ["c/src/q/mod.rs", "c/src/q/inner.rs", "c/src/r.rs"] {
        assert_scanned(dir.path(), path, ahead.take(path));
    }
}

#[test]
fn a_dropped_read_ahead_stops_its_thread_even_while_it_waits() {
    let dir = written(FILES);
    let ahead = ReadAhead::start(dir.path(), &["a/src/lib.rs"]).unwrap();
    // Taken and never told: the thread, if it reaches no other file, waits for its `mod`s.
    let _ = ahead.take("a/src/lib.rs");
    let shared = Arc::clone(&ahead.shared);
    drop(ahead);
    let mut state = shared.lock();
    while !state.finished {
        state = shared.wait(state);
    }
}

/// The files under a directory, read from disk as the working tree is; a file in `replaced` reads as
/// that text instead (an edit after the thread read it), and with `ids` the reader knows every blob
/// id from the files on disk, as the git index does for files matching it.
struct Disk {
    dir: PathBuf,
    replaced: BTreeMap<String, String>,
    ids: bool,
}

impl FileReader for Disk {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        if let Some(text) = self.replaced.get(path) {
            return Ok(Some(text.clone().into_bytes()));
        }
        Ok(std::fs::read(self.dir.join(path)).ok())
    }

    fn blob_id(&self, path: &str) -> Result<Option<Oid>, ExtractError> {
        if !self.ids {
            return Ok(None);
        }
        Ok(std::fs::read(self.dir.join(path))
            .ok()
            .map(|bytes| Oid::hash_object(ObjectType::Blob, &bytes).unwrap()))
    }

    fn disk_dir(&self) -> Option<&Path> {
        Some(&self.dir)
    }
}

const PROTOCOL: &str = r#"
use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};

pub mod msgs;

#[derive(Protocol)]
#[wire(name = "p", version = "1.0.0")]
pub struct P;
"#;

const MESSAGES: &str = r#"
use serde::{Deserialize, Serialize};
use wirecheck::Message;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = crate::P, topic = "t", kind = "request")]
pub struct Req {
    pub id: u64,
}
"#;

fn crates() -> Vec<CrateRoot> {
    vec![CrateRoot {
        name: "p".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }]
}

fn from_map(files: &[(&str, &str)]) -> Result<crate::model::Snapshot, ExtractError> {
    let map: BTreeMap<String, String> = files
        .iter()
        .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
        .collect();
    extract(&crates(), &map)
}

#[test]
fn an_extraction_reading_ahead_finds_what_one_reading_each_file_finds() {
    let files = [("src/lib.rs", PROTOCOL), ("src/msgs.rs", MESSAGES)];
    let dir = written(&files);
    let expected = from_map(&files).unwrap();
    assert_eq!(expected.messages.len(), 1);
    for ids in [false, true] {
        let disk = Disk {
            dir: dir.path().to_path_buf(),
            replaced: BTreeMap::new(),
            ids,
        };
        assert_eq!(extract(&crates(), &disk).unwrap(), expected, "ids: {ids}");
    }
}

#[test]
fn bytes_the_reader_gives_otherwise_than_the_disk_are_the_ones_extracted() {
    let dir = written(&[("src/lib.rs", PROTOCOL), ("src/msgs.rs", MESSAGES)]);
    let edited = MESSAGES.replace("pub id: u64,", "pub id: u64,\n    pub more: String,");
    let disk = Disk {
        dir: dir.path().to_path_buf(),
        replaced: [("src/msgs.rs".to_owned(), edited.clone())].into(),
        ids: false,
    };
    let expected = from_map(&[("src/lib.rs", PROTOCOL), ("src/msgs.rs", &edited)]).unwrap();
    assert_eq!(extract(&crates(), &disk).unwrap(), expected);
}

#[test]
fn a_file_that_is_not_utf8_is_reported_as_without_reading_ahead() {
    let dir = written(&[("src/lib.rs", PROTOCOL)]);
    write(dir.path(), "src/msgs.rs", b"pub struct A;\n\xff\n");
    let disk = Disk {
        dir: dir.path().to_path_buf(),
        replaced: BTreeMap::new(),
        ids: false,
    };
    let error = extract(&crates(), &disk).unwrap_err();
    assert!(
        matches!(&error, ExtractError::NotUtf8 { file, offset: 14 } if file == "src/msgs.rs"),
        "{error}"
    );
}

/// An early read-ahead is taken for the trees it reads (the roots in any order, repeated or not, the
/// directory however written) and for no other.
#[test]
fn an_early_read_ahead_is_taken_only_for_the_trees_it_reads() {
    let dir = written(FILES);
    let other = written(FILES);
    let early = || {
        EarlyReadAhead::start(
            dir.path(),
            vec!["b/src/main.rs".into(), "a/src/lib.rs".into()],
        )
        .unwrap()
    };
    let roots = ["a/src/lib.rs", "a/src/lib.rs", "b/src/main.rs"];
    assert!(early().take_if(dir.path(), &roots).is_some());
    assert!(early().take_if(&dir.path().join("."), &roots).is_some());
    assert!(early().take_if(other.path(), &roots).is_none());
    assert!(early().take_if(dir.path(), &["a/src/lib.rs"]).is_none());
    assert!(
        early()
            .take_if(
                dir.path(),
                &["a/src/lib.rs", "b/src/main.rs", "c/src/lib.rs"]
            )
            .is_none()
    );
}

/// The working tree's extraction takes the early read-ahead offered for its trees: every file comes
/// from it once its thread is done; one offered for other trees is dropped, and the extraction finds
/// the same either way.
#[test]
fn an_extraction_takes_the_early_read_ahead_offered_for_its_trees() {
    let files = [("src/lib.rs", PROTOCOL), ("src/msgs.rs", MESSAGES)];
    let dir = written(&files);
    let expected = from_map(&files).unwrap();
    let disk = Disk {
        dir: dir.path().to_path_buf(),
        replaced: BTreeMap::new(),
        ids: false,
    };
    let cache = SourceCache::new();
    let early = EarlyReadAhead::start(dir.path(), vec!["src/lib.rs".into()]).unwrap();
    early.ahead.wait_finished();
    cache.offer_read_ahead(early);
    assert_eq!(extract_cached(&crates(), &disk, &cache).unwrap(), expected);
    assert_eq!(cache.stats().read_ahead, files.len());
    assert!(cache.take_read_ahead().is_none());

    let cache = SourceCache::new();
    let early = EarlyReadAhead::start(dir.path(), vec!["src/main.rs".into()]).unwrap();
    cache.offer_read_ahead(early);
    assert_eq!(extract_cached(&crates(), &disk, &cache).unwrap(), expected);
    assert!(cache.take_read_ahead().is_none());
}
