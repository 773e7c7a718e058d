//! The working tree's model kept in the store: reused only while everything it depended on holds.

use std::path::Path;
use std::rc::Rc;

use super::History;
use super::Workspace;
use crate::extract::{CacheStats, FeatureRequest};
use crate::model::Snapshot;
use crate::source::index_tests::{git, write};
use crate::source::{CargoLocator, Repo};

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n\n[dependencies]\npointy = \"1\"\n\n[workspace]\n";
const LOCK: &str = "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\ndependencies = [\"pointy\"]\n\n[[package]]\nname = \"pointy\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\", upgrade = \"server-first\", format = \"json\")]\npub struct P;\nmod a;\nmod b;\n";
const A: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.a\", kind = \"record\")]\npub struct A {\n    pub x: u32,\n    #[cfg(feature = \"extra\")]\n    pub y: u8,\n    pub link: pointy::Point,\n}\n";
const B: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.b\", kind = \"record\")]\npub struct B { pub z: bool }\n";

/// A committed workspace (`src/b.rs` declared but absent), its store and Cargo home inside `dir`.
fn workspace(dir: &Path) -> Workspace {
    committed(
        dir,
        &[
            ("Cargo.toml", MANIFEST),
            ("Cargo.lock", LOCK),
            ("src/lib.rs", LIB),
            ("src/a.rs", A),
        ],
    )
}

/// A workspace of `files` (path, text) committed in `dir`, its store and Cargo home inside `dir`.
fn committed(dir: &Path, files: &[(&str, &str)]) -> Workspace {
    for (path, text) in files {
        write(dir, path, text);
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "c"]);
    let mut workspace = Workspace::load(Some(&dir.join("Cargo.toml")), &[]).unwrap();
    workspace.target_dir = dir.join("store");
    workspace.locator = Rc::new(CargoLocator::with_cargo_home(dir, dir.join("home")));
    workspace
}

/// The working tree's model in a new run (a new process: nothing located yet), and what its source
/// cache did (nothing when the store answered).
fn current(workspace: &Workspace) -> (Snapshot, CacheStats) {
    let mut workspace = workspace.clone();
    let home = workspace.root.join("home");
    workspace.locator = Rc::new(CargoLocator::with_cargo_home(&workspace.root, home));
    let repo = Repo::discover(&workspace.root).unwrap();
    let history = History::new(&workspace, &repo, false);
    let snapshot = std::sync::Arc::unwrap_or_clone(history.current().unwrap());
    (snapshot, history.cache_stats())
}

fn extracted(stats: CacheStats) -> bool {
    stats != CacheStats::default()
}

fn messages(snapshot: &Snapshot) -> Vec<String> {
    snapshot.messages.iter().map(|m| m.topic.clone()).collect()
}

#[test]
fn the_working_tree_model_is_reused_until_an_input_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut workspace = workspace(dir);
    let (first, stats) = current(&workspace);
    assert!(extracted(stats));
    let (again, stats) = current(&workspace);
    assert!(!extracted(stats), "unchanged: from the store ({stats:?})");
    assert_eq!(again, first);

    // The same size and modification time: the change time tells.
    let path = dir.join("src/a.rs");
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, A.replace("u32", "i32")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let (edited, stats) = current(&workspace);
    assert!(extracted(stats));
    assert_ne!(edited, first);
    assert!(!extracted(current(&workspace).1), "stored again");

    // A module file that was absent when probed.
    write(dir, "src/b.rs", B);
    let (added, stats) = current(&workspace);
    assert!(extracted(stats));
    assert_eq!(messages(&added), ["t.a", "t.b"]);

    // Other features: another entry.
    workspace.options.features = FeatureRequest {
        features: vec!["extra".to_owned()],
        ..FeatureRequest::default()
    };
    let (featured, stats) = current(&workspace);
    assert!(extracted(stats));
    assert_ne!(featured, added);
}

/// The model of HEAD as a release, in a new run, and what the source cache did.
fn release(workspace: &Workspace) -> (Snapshot, CacheStats) {
    let mut workspace = workspace.clone();
    let home = workspace.root.join("home");
    workspace.locator = Rc::new(CargoLocator::with_cargo_home(&workspace.root, home));
    let repo = Repo::discover(&workspace.root).unwrap();
    let history = History::new(&workspace, &repo, false);
    let head = repo.head_commit().unwrap();
    let snapshot = std::sync::Arc::unwrap_or_clone(history.release(&head, "HEAD").unwrap());
    (snapshot, history.cache_stats())
}

fn fetch(dir: &Path) {
    let package = dir.join("home/registry/src/index.crates.io-0000/pointy-1.0.0");
    write(
        &package,
        "Cargo.toml",
        "[package]\nname = \"pointy\"\nversion = \"1.0.0\"\n",
    );
    write(
        &package,
        "src/lib.rs",
        "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Point { pub x: i64 }\n",
    );
}

fn fetch_note(snapshot: &Snapshot) -> bool {
    snapshot
        .notes
        .iter()
        .any(|n| n.message.contains("cargo fetch"))
}

#[test]
fn a_release_read_while_a_dependency_was_missing_is_read_again_once_it_is_fetched() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = workspace(tmp.path());
    let (missing, _) = release(&workspace);
    assert!(fetch_note(&missing), "{:?}", missing.notes);
    assert!(!extracted(release(&workspace).1), "from the store");
    fetch(tmp.path());
    let (fetched, stats) = release(&workspace);
    assert!(extracted(stats));
    assert!(!fetch_note(&fetched), "{:?}", fetched.notes);
    assert!(!extracted(release(&workspace).1), "stored again");
}

#[test]
fn a_dependency_fetched_since_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = workspace(tmp.path());
    let (missing, _) = current(&workspace);
    assert!(fetch_note(&missing), "{:?}", missing.notes);
    assert!(!extracted(current(&workspace).1));
    fetch(tmp.path());
    let (fetched, stats) = current(&workspace);
    assert!(extracted(stats));
    assert!(!fetch_note(&fetched), "{:?}", fetched.notes);
    assert!(!extracted(current(&workspace).1));
}

/// After an edit, the working tree is extracted again: the files the git index knows unchanged come
/// from the scans the last check kept (neither read nor scanned; read from the repository's objects only
/// where an item's syntax or a module's names are needed, which the records and module names the last
/// check kept spare), and the model is the one a check without the store extracts.
#[test]
fn unchanged_files_are_known_by_their_kept_scans() {
    const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\", upgrade = \"server-first\", format = \"json\")]\npub struct P;\nmod a;\nmod shared;\nmod service;\n";
    const A: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.a\", kind = \"record\")]\npub struct A {\n    pub x: u32,\n    pub inner: crate::shared::Inner,\n}\n";
    const SHARED: &str = "/// Says wire, declares nothing.\n#[derive(serde::Serialize, serde::Deserialize)]\npub struct Inner { pub id: u64 }\n";
    const SERVICE: &str = "pub fn serve() {}\nmod worker;\n";
    const WORKER: &str = "pub fn work() {}\n";
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let manifest = MANIFEST.replace("pointy = \"1\"\n", "");
    let workspace = committed(
        dir,
        &[
            ("Cargo.toml", &manifest),
            ("src/lib.rs", LIB),
            ("src/a.rs", A),
            ("src/shared.rs", SHARED),
            ("src/service.rs", SERVICE),
            ("src/service/worker.rs", WORKER),
        ],
    );
    let (first, stats) = current(&workspace);
    assert_eq!((stats.reads, stats.scans_reused), (5, 0), "{stats:?}");

    std::fs::write(dir.join("src/a.rs"), A.replace("u32", "i64")).unwrap();
    let (edited, stats) = current(&workspace);
    // The edited file is read; the four others are known by their scans. Of those, only the file of
    // `Inner` is read (from the repository), for its syntax: lowering the edited `A` reads the generics
    // of the types it names. The records, declarations and module names kept stand for the rest.
    assert_eq!(
        (stats.reads, stats.scans_reused, stats.objects_read),
        (1, 4, 1),
        "{stats:?}"
    );
    let repo = Repo::discover(dir).unwrap();
    let without_store = History::new(&workspace, &repo, true).current().unwrap();
    assert_eq!(edited, *without_store);
    assert_ne!(edited, first);
    let inner = edited.types.keys().any(|name| name.ends_with("Inner"));
    assert!(
        inner,
        "the type of a known file is read: {:?}",
        edited.types.keys()
    );

    // A file that declares nothing edited in turn: read and scanned again, and so is the file edited
    // before (the index does not know its bytes); the others are still known.
    std::fs::write(dir.join("src/service.rs"), SERVICE.replace("serve", "run")).unwrap();
    let (_, stats) = current(&workspace);
    assert_eq!((stats.reads, stats.scans_reused), (2, 3), "{stats:?}");
}
