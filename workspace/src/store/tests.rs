use std::cell::Cell;
use std::collections::BTreeMap;

use super::*;
use crate::extract::{SourceCache, extract_cached, extract_filtered};

mod compared;
mod files;
mod shape;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// A crate with two protocols: `jobs` (a request, its response, and a record reaching a shared enum) and
/// `ctl` (one request).
fn sources(extra_line: bool, record_field: &str, version: &str) -> BTreeMap<String, String> {
    let blank = if extra_line { "\n\n" } else { "" };
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};
{blank}
#[derive(Protocol)]
#[wire(name = \"jobs\", version = \"{version}\", min_compatible = \"1.0.0\")]
pub struct Jobs;

#[derive(Protocol)]
#[wire(name = \"ctl\", version = \"{version}\")]
pub struct Ctl;

#[derive(Serialize, Deserialize)]
pub enum State {{ Run, Done(Detail) }}

#[derive(Serialize, Deserialize)]
pub struct Detail {{ pub code: i32 }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Jobs, topic = \"jobs.submit\", kind = \"request\", responds = Submitted)]
pub struct Submit {{ pub id: u64 }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Jobs, topic = \"jobs.submit\", kind = \"response\")]
pub struct Submitted {{ pub ok: bool }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Jobs, topic = \"jobs.event\", kind = \"record\")]
pub struct Event {{ pub state: State, {record_field} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Ctl, topic = \"ctl.stop\", kind = \"request\")]
pub struct Stop {{ pub now: bool }}
"
    );
    BTreeMap::from([("src/lib.rs".to_owned(), lib)])
}

fn crates() -> Vec<CrateRoot> {
    vec![CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }]
}

fn full(files: &BTreeMap<String, String>) -> Snapshot {
    extract_cached(&crates(), files, &SourceCache::new()).expect("extracts")
}

fn records_of_jobs(decl: &ProtocolDecl) -> Keep {
    if decl.name == "jobs" {
        Keep::Records
    } else {
        Keep::Nothing
    }
}

fn filtered(files: &BTreeMap<String, String>) -> Snapshot {
    extract_filtered(&crates(), files, &SourceCache::new(), &records_of_jobs).expect("extracts")
}

/// Counts the extractions the store asked for.
#[derive(Default)]
struct Counter(Cell<usize>);

impl Counter {
    fn get(&self) -> usize {
        self.0.get()
    }

    /// `store.whole`, answered by `snapshot` when it must extract.
    fn whole(&self, store: &Store, snapshot: &Snapshot) -> Snapshot {
        store
            .whole::<std::convert::Infallible>(COMMIT, || {
                self.0.set(self.0.get() + 1);
                Ok(snapshot.clone())
            })
            .unwrap()
    }

    /// `store.parts` with `keep` and every part, answered by `snapshot` when it must extract.
    fn parts(
        &self,
        store: &Store,
        commit: &str,
        keep: &dyn Fn(&ProtocolDecl) -> Keep,
        unseen: &dyn Fn(&str, &str) -> bool,
        snapshot: &Snapshot,
    ) -> Vec<Rc<Part>> {
        store
            .parts::<std::convert::Infallible>(commit, keep, unseen, || {
                self.0.set(self.0.get() + 1);
                Ok(snapshot.clone())
            })
            .unwrap()
    }
}

fn every(_: &str, _: &str) -> bool {
    true
}

fn joined(parts: &[Rc<Part>]) -> Snapshot {
    Snapshot::join(parts.iter().map(|p| &p.model), Vec::new())
}

fn shapes(parts: &[Rc<Part>]) -> BTreeMap<String, String> {
    parts
        .iter()
        .map(|p| (p.name.clone(), p.shape().to_owned()))
        .collect()
}

#[test]
fn a_release_is_extracted_once_then_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let files = sources(false, "pub note: String", "1.2.0");
    let snapshot = full(&files);
    let count = Counter::default();
    assert_eq!(
        count.whole(&Store::open(dir.path(), "", &crates()), &snapshot),
        snapshot
    );
    // A new process: nothing in memory, everything on disk.
    let again = count.whole(
        &Store::open(dir.path(), "", &crates()),
        &Snapshot::default(),
    );
    assert_eq!(count.get(), 1);
    assert_eq!(again, snapshot);
}

#[test]
fn a_whole_release_answers_a_records_only_request() {
    let dir = tempfile::tempdir().unwrap();
    let files = sources(false, "pub note: String", "1.2.0");
    let count = Counter::default();
    count.whole(&Store::open(dir.path(), "", &crates()), &full(&files));
    // The baseline of the last check is an older release now: only its records are read.
    let store = Store::open(dir.path(), "", &crates());
    let narrowed = count.parts(
        &store,
        COMMIT,
        &records_of_jobs,
        &every,
        &Snapshot::default(),
    );
    assert_eq!(count.get(), 1);
    assert_eq!(joined(&narrowed), filtered(&files));
    // With the shapes of the same release extracted with the filter.
    let extracted = count.parts(
        &Store::disabled(),
        COMMIT,
        &records_of_jobs,
        &every,
        &filtered(&files),
    );
    assert_eq!(shapes(&narrowed), shapes(&extracted));
}

#[test]
fn a_filtered_release_never_answers_a_request_for_more() {
    let dir = tempfile::tempdir().unwrap();
    let files = sources(false, "pub note: String", "1.2.0");
    let count = Counter::default();
    let store = || Store::open(dir.path(), "", &crates());
    count.parts(
        &store(),
        COMMIT,
        &records_of_jobs,
        &every,
        &filtered(&files),
    );
    assert_eq!(count.get(), 1);
    // The same filter: read back.
    let again = count.parts(
        &store(),
        COMMIT,
        &records_of_jobs,
        &every,
        &Snapshot::default(),
    );
    assert_eq!(count.get(), 1);
    assert_eq!(joined(&again), filtered(&files));
    // Every message of `jobs` (min_compatible moved back): not in the store, extracted.
    let all_jobs = |d: &ProtocolDecl| {
        if d.name == "jobs" {
            Keep::All
        } else {
            Keep::Nothing
        }
    };
    count.parts(&store(), COMMIT, &all_jobs, &every, &full(&files));
    assert_eq!(count.get(), 2);
    // A whole model from a store that only holds a filtered one: extracted.
    let dir2 = tempfile::tempdir().unwrap();
    let store2 = || Store::open(dir2.path(), "", &crates());
    count.parts(
        &store2(),
        COMMIT,
        &records_of_jobs,
        &every,
        &filtered(&files),
    );
    assert_eq!(count.whole(&store2(), &full(&files)), full(&files));
    assert_eq!(count.get(), 4);
}

#[test]
fn damaged_or_foreign_files_are_extracted_again_and_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let files = sources(false, "pub note: String", "1.2.0");
    let snapshot = full(&files);
    let count = Counter::default();
    let store = || Store::open(dir.path(), "", &crates());
    count.whole(&store(), &snapshot);
    let root = store().dir().unwrap().to_path_buf();
    let part = std::fs::read_dir(root.join("parts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&part, b"{\"protocols\": []}").unwrap();
    assert_eq!(count.whole(&store(), &snapshot), snapshot);
    assert_eq!(count.get(), 2);
    assert_eq!(count.whole(&store(), &Snapshot::default()), snapshot);
    assert_eq!(count.get(), 2, "repaired");
    // A release file that is not JSON.
    let entry = std::fs::read_dir(root.join("releases"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&entry, b"\xff not json").unwrap();
    assert_eq!(count.whole(&store(), &snapshot), snapshot);
    assert_eq!(count.get(), 3);
    // Other crates read: another file name, so not answered from these.
    let other = vec![CrateRoot {
        name: "other".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    count.whole(&Store::open(dir.path(), "", &other), &snapshot);
    assert_eq!(count.get(), 4);
    // The same crates of another workspace of the repository (sharing the target directory): not
    // answered either.
    count.whole(&Store::open(dir.path(), "services/b", &crates()), &snapshot);
    assert_eq!(count.get(), 5);
    // The same crates with other features or shapes: not answered either.
    count.whole(
        &Store::open_with(dir.path(), "", &crates(), "serde;all"),
        &snapshot,
    );
    assert_eq!(count.get(), 6);
}

#[test]
fn a_disabled_store_writes_nothing() {
    let store = Store::disabled();
    assert!(store.dir().is_none());
    let snapshot = full(&sources(false, "pub note: String", "1.2.0"));
    let count = Counter::default();
    count.whole(&store, &snapshot);
    count.whole(&store, &snapshot);
    assert_eq!(count.get(), 2);
}

#[test]
fn shapes_ignore_locations_and_versions_but_not_the_wire() {
    let count = Counter::default();
    let of = |files: &BTreeMap<String, String>, keep: &dyn Fn(&ProtocolDecl) -> Keep| {
        let snapshot = extract_filtered(&crates(), files, &SourceCache::new(), keep).unwrap();
        shapes(&count.parts(&Store::disabled(), COMMIT, keep, &every, &snapshot))
    };
    let all = |_: &ProtocolDecl| Keep::All;
    let base = of(&sources(false, "pub note: String", "1.2.0"), &all);
    // Moved down two lines and released again: the same shapes.
    assert_eq!(of(&sources(true, "pub note: String", "1.3.0"), &all), base);
    // A field's type changes in the record: `jobs` changes, `ctl` does not.
    let changed = of(&sources(false, "pub note: u32", "1.2.0"), &all);
    assert_ne!(changed["jobs"], base["jobs"]);
    assert_eq!(changed["ctl"], base["ctl"]);
    // What is kept is part of the shape.
    let records = of(
        &sources(false, "pub note: String", "1.2.0"),
        &records_of_jobs,
    );
    assert_ne!(records["jobs"], base["jobs"]);
}

#[test]
fn parts_already_compared_are_not_read_and_new_versions_share_parts() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let (one, two) = (
        "1111111111111111111111111111111111111111",
        "2222222222222222222222222222222222222222",
    );
    let v1 = filtered(&sources(false, "pub note: String", "1.2.0"));
    let v2 = filtered(&sources(false, "pub note: String", "1.3.0"));
    let first = count.parts(&store(), one, &records_of_jobs, &every, &v1);
    count.parts(&store(), two, &records_of_jobs, &every, &v2);
    assert_eq!(count.get(), 2);
    // Two releases, one version apart, same messages: one file per protocol, not two.
    let parts_dir = store().dir().unwrap().join("parts");
    assert_eq!(std::fs::read_dir(&parts_dir).unwrap().count(), 2);
    // The second release read back, asking only for shapes not seen in the first: nothing is new, and
    // no part is read (they are gone).
    for part in std::fs::read_dir(&parts_dir).unwrap() {
        std::fs::remove_file(part.unwrap().path()).unwrap();
    }
    let seen = shapes(&first);
    let unseen = |name: &str, shape: &str| seen.get(name).map(String::as_str) != Some(shape);
    let second = count.parts(
        &store(),
        two,
        &records_of_jobs,
        &unseen,
        &Snapshot::default(),
    );
    assert!(second.is_empty(), "{second:?}");
    assert_eq!(count.get(), 2);
    // Asked for everything, the missing parts send it back to extraction, which repairs the store.
    let all = count.parts(&store(), two, &records_of_jobs, &every, &v2);
    assert_eq!(joined(&all), v2);
    assert_eq!(count.get(), 3);
    assert_eq!(std::fs::read_dir(&parts_dir).unwrap().count(), 2);
}

#[test]
fn shapes_learned_from_a_whole_release_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let files = sources(false, "pub note: String", "1.2.0");
    count.whole(&store(), &full(&files));
    // Read as an older release in the min_compatible range: every message, shapes computed then.
    let all = |_: &ProtocolDecl| Keep::All;
    let first = count.parts(&store(), COMMIT, &all, &every, &Snapshot::default());
    assert_eq!(count.get(), 1);
    // Next time, the shapes come from the release's file: nothing seen twice is read.
    for part in std::fs::read_dir(store().dir().unwrap().join("parts")).unwrap() {
        std::fs::remove_file(part.unwrap().path()).unwrap();
    }
    let seen = shapes(&first);
    let unseen = |name: &str, shape: &str| seen.get(name).map(String::as_str) != Some(shape);
    assert!(
        count
            .parts(&store(), COMMIT, &all, &unseen, &Snapshot::default())
            .is_empty()
    );
    assert_eq!(count.get(), 1);
}

#[test]
fn stores_of_other_builds_go_when_unused_for_a_month() {
    let dir = tempfile::tempdir().unwrap();
    let stores = dir.path().join("wirecheck/store");
    for build in ["old", "recent", "mine"] {
        std::fs::create_dir_all(stores.join(build).join("parts")).unwrap();
        write_atomically(&stores.join(build).join("used"), b"");
    }
    let day = Duration::from_secs(24 * 60 * 60);
    // Ten days on: nothing is old enough.
    prune(&stores, "mine", SystemTime::now() + 10 * day);
    assert!(stores.join("old").exists() && stores.join("recent").exists());
    // Forty days on, "recent" used again on day 20 (its mark rewritten by its own build).
    let mark = std::fs::File::options()
        .write(true)
        .open(stores.join("recent/used"))
        .unwrap();
    mark.set_modified(SystemTime::now() + 20 * day).unwrap();
    prune(&stores, "mine", SystemTime::now() + 40 * day);
    assert!(!stores.join("old").exists(), "unused for 40 days");
    assert!(stores.join("recent").exists(), "used 20 days ago");
    assert!(stores.join("mine").exists(), "this build's own");
    // A store that cannot be listed is not an error.
    prune(&dir.path().join("nowhere"), "mine", SystemTime::now());
}

/// Two protocols that both reach `Shared` (and `Detail` through it), each with a type of its own.
fn sharing_types() -> Snapshot {
    let lib = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = \"jobs\", version = \"1.0.0\")]
pub struct Jobs;

#[derive(Protocol)]
#[wire(name = \"ctl\", version = \"1.0.0\")]
pub struct Ctl;

#[derive(Serialize, Deserialize)]
pub enum Shared { Run, Done(Detail) }

#[derive(Serialize, Deserialize)]
pub struct Detail { pub code: i32 }

#[derive(Serialize, Deserialize)]
pub struct Own { pub id: u64 }

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Jobs, topic = \"jobs.event\", kind = \"record\")]
pub struct Event { pub state: Shared, pub own: Own }

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Ctl, topic = \"ctl.stop\", kind = \"request\")]
pub struct Stop { pub state: Shared }
";
    full(&BTreeMap::from([("src/lib.rs".to_owned(), lib.to_owned())]))
}

/// Each protocol's part of a release extracted through the store holds the protocol's messages and the
/// very definitions of the model (shared, not copied, also where two parts reach one type); and its
/// shape, hashed from the borrowed part, is the copy's. A part whose shape the caller compared already
/// is left out.
#[test]
fn a_release_splits_into_parts_that_share_its_definitions() {
    let model = sharing_types();
    assert_eq!(model.protocols.len(), 2);
    let store = Store::disabled();
    let parts = store
        .parts("c", &|_| Keep::All, &|_, _| true, || {
            Ok::<_, ()>(model.clone())
        })
        .expect("extracts");
    let expected: Vec<Snapshot> = parts.iter().map(|part| part.model.clone()).collect();
    assert_eq!(expected.len(), 2);
    for (decl, part) in model.protocols.iter().zip(&expected) {
        assert_eq!(part.protocols, std::slice::from_ref(decl));
        let messages: Vec<&MessageDecl> = model.messages_of(&decl.name).collect();
        assert_eq!(part.messages.iter().collect::<Vec<_>>(), messages);
        assert_eq!(
            part.types.keys().map(String::as_str).collect::<Vec<_>>(),
            model
                .reached_from(&messages)
                .into_keys()
                .collect::<Vec<_>>()
        );
        for (path, def) in &part.types {
            assert!(Arc::ptr_eq(def, &model.types[path]), "{path} is copied");
        }
    }
    let first = model.protocols[0].name.clone();
    let unseen = |name: &str, _: &str| name != first;
    let fewer = Store::disabled()
        .parts("c", &|_| Keep::All, &unseen, || Ok::<_, ()>(model.clone()))
        .expect("extracts");
    assert_eq!(
        fewer
            .iter()
            .map(|part| part.model.clone())
            .collect::<Vec<_>>(),
        expected[1..]
    );
    assert!(
        expected
            .iter()
            .all(|part| part.types.keys().any(|p| p.ends_with("Shared"))),
        "both parts reach the shared type: {expected:#?}"
    );
    for (decl, part) in model.protocols.iter().zip(&expected) {
        for keep in [Keep::All, Keep::Records] {
            let borrowed = model.part_of(&decl.name, |_| true);
            assert_eq!(part_shape(decl, &borrowed, keep), shape_of(part, keep));
        }
    }
}
