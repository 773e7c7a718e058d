use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Write as _;

use super::*;
use crate::extract::{SourceCache, extract_cached, extract_filtered};
use crate::model::{Body, Field, Ty, Variant};

/// A comparison as the driver keeps one (its fields are `outcome::ProtocolChanges`'): real findings and
/// a window, so the store's JSON round trip covers them; defined here, as the store knows only the
/// [`Comparison`] trait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ProtocolChanges {
    name: String,
    old_version: Option<semver::Version>,
    new_version: Option<semver::Version>,
    findings: Vec<crate::findings::Finding>,
    window: Option<crate::policy::Window>,
}

impl Comparison for ProtocolChanges {
    fn protocol(&self) -> &str {
        &self.name
    }
}

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

/// Real findings: `jobs` with its record's field changed from a string to a number (a break with a
/// witness), against `rev`.
fn changes(rev: &str) -> ProtocolChanges {
    let old = full(&sources(false, "pub note: String", "1.2.0"));
    let new = full(&sources(false, "pub note: u32", "1.2.0"));
    let findings =
        crate::compat::compare_protocol(&old, &new, "jobs", rev, crate::compat::Scope::Full);
    assert!(
        findings.iter().any(|f| f.witness.is_some()),
        "{findings:#?}"
    );
    // A window with every part set, so that the store's round trip covers it.
    let window = crate::policy::Window {
        minimum: semver::Version::new(1, 0, 0),
        declared: true,
        location: new.protocols[0].location.clone(),
        releases: vec![crate::policy::WindowRelease {
            tag: "v1.0.0".to_owned(),
            version: semver::Version::new(1, 0, 0),
            compared: true,
            breaks: vec![crate::policy::WindowBreak::of(&findings[0], true)],
            left_out_by: Some(crate::policy::LeftOut {
                tag: "v1.1.0".to_owned(),
                version: semver::Version::new(1, 1, 0),
                minimum: semver::Version::new(1, 1, 0),
            }),
        }],
    };
    ProtocolChanges {
        name: "jobs".to_owned(),
        old_version: Some(semver::Version::new(1, 2, 0)),
        new_version: Some(semver::Version::new(1, 2, 0)),
        findings,
        window: Some(window),
    }
}

/// `store`'s [`Store::compared`] for `reads`, answered by `changes` when it must compare.
fn compared(
    count: &Counter,
    store: &Store,
    reads: &str,
    changes: &ProtocolChanges,
) -> ProtocolChanges {
    store.compared(reads, &changes.name, || {
        count.0.set(count.0.get() + 1);
        changes.clone()
    })
}

/// The files of comparisons kept under `store`.
fn kept_comparisons(store: &Store) -> Vec<PathBuf> {
    let Ok(files) = std::fs::read_dir(store.dir().unwrap().join("compared")) else {
        return Vec::new();
    };
    files.map(|f| f.unwrap().path()).collect()
}

#[test]
fn a_comparison_is_kept_and_read_back_for_the_same_reads_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
    // A new process: from the file.
    assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
    assert_eq!(count.get(), 1);
    assert_eq!(kept_comparisons(&store()).len(), 1);
    // What is read back is what the file holds: not compared again.
    let file = &kept_comparisons(&store())[0];
    let mut edited = jobs.clone();
    edited.findings.truncate(1);
    std::fs::write(file, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(compared(&count, &store(), "reads", &jobs), edited);
    assert_eq!(count.get(), 1);
    // Other reads: compared, and kept apart.
    let other = changes("v1.3.0");
    assert_eq!(compared(&count, &store(), "other reads", &other), other);
    assert_eq!(count.get(), 2);
    assert_eq!(kept_comparisons(&store()).len(), 2);
    assert_eq!(compared(&count, &store(), "reads", &jobs), edited);
}

#[test]
fn a_damaged_or_foreign_comparison_is_compared_again_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    compared(&count, &store(), "reads", &jobs);
    let file = kept_comparisons(&store())[0].clone();
    let whole = std::fs::read(&file).unwrap();
    // Cut short, not JSON, another protocol's.
    let mut foreign = jobs.clone();
    foreign.name = "ctl".to_owned();
    for damage in [
        whole[..whole.len() / 2].to_vec(),
        b"\xff not json".to_vec(),
        serde_json::to_vec(&foreign).unwrap(),
    ] {
        std::fs::write(&file, damage).unwrap();
        let before = count.get();
        assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
        assert_eq!(count.get(), before + 1);
        assert_eq!(std::fs::read(&file).unwrap(), whole, "rewritten");
        assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
        assert_eq!(count.get(), before + 1, "repaired");
    }
}

#[test]
fn a_disabled_store_compares_every_time() {
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    for _ in 0..2 {
        assert_eq!(compared(&count, &Store::disabled(), "reads", &jobs), jobs);
    }
    assert_eq!(count.get(), 2);
}

/// Two threads writing one file at once (a part two releases share, read on two threads) each write
/// their own temporary file: the file is always one of the two contents, whole, and no temporary file is
/// left behind.
#[test]
fn concurrent_writes_of_one_file_never_mix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("parts").join("same.json");
    let contents: Vec<Vec<u8>> = (0..2u8).map(|b| vec![b'a' + b; 256 * 1024]).collect();
    let (path, contents) = (&path, &contents);
    std::thread::scope(|scope| {
        for bytes in contents {
            scope.spawn(move || {
                for _ in 0..20 {
                    assert!(write_atomically(path, bytes));
                    let read = std::fs::read(path).unwrap();
                    assert!(contents.contains(&read), "a mixed or partial file");
                }
            });
        }
    });
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["same.json"]);
}

/// A write that fails halfway (a serialization error, a full disk) leaves neither the file nor its
/// temporary file; one that does not leaves the file whole.
#[test]
fn a_failed_write_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("parts").join("x.json");
    let failed = write_atomically_with(&path, |file| {
        file.write_all(&[b'{'; 100_000])?;
        Err(std::io::Error::other("disk full"))
    });
    assert!(!failed);
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        0
    );
    assert!(write_json(&path, &BTreeMap::from([("a", 1)])));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"a":1}"#);
}

/// What [`shape_of`] must tell apart, as the store computed it before [`Blanked`]: the model copied with
/// every location blanked and without the declarations' versions. Two parts must share a shape exactly
/// when these copies are equal.
fn blanked(model: &Snapshot) -> Snapshot {
    let mut model = model.clone();
    let none = crate::model::Location::default;
    for p in &mut model.protocols {
        p.version = semver::Version::new(0, 0, 0);
        p.min_compatible = None;
        p.location = none();
    }
    for m in &mut model.messages {
        m.location = none();
    }
    for def in model.types.values_mut() {
        let def = std::sync::Arc::make_mut(def);
        def.location = none();
        let fields = match &mut def.body {
            Body::Struct { fields, .. } => fields.iter_mut().collect::<Vec<_>>(),
            Body::Enum { variants } => variants
                .iter_mut()
                .flat_map(|v| {
                    v.location = none();
                    v.fields.iter_mut()
                })
                .collect(),
            Body::Alias { .. } => Vec::new(),
        };
        for f in fields {
            f.location = none();
        }
    }
    model
}

/// An edit of a model, named for the assertion messages.
type Edit = (&'static str, fn(&mut Snapshot));

fn def<'m>(model: &'m mut Snapshot, name: &str) -> &'m mut TypeDef {
    model
        .types
        .values_mut()
        .find(|d| d.path.ends_with(&format!("::{name}")))
        .map(std::sync::Arc::make_mut)
        .unwrap_or_else(|| panic!("no type {name}"))
}

/// The first field of the struct `name`.
fn field<'m>(model: &'m mut Snapshot, name: &str) -> &'m mut Field {
    match &mut def(model, name).body {
        Body::Struct { fields, .. } => &mut fields[0],
        body => panic!("{name} is not a struct: {body:?}"),
    }
}

/// `State::Done`, a tuple variant holding a `Detail`.
fn done(model: &mut Snapshot) -> &mut Variant {
    match &mut def(model, "State").body {
        Body::Enum { variants } => variants.iter_mut().find(|v| v.rust_name == "Done").unwrap(),
        body => panic!("State is not an enum: {body:?}"),
    }
}

fn moved(location: &mut crate::model::Location) {
    location.file = format!("src/moved/{}", location.file);
    location.line += 7;
    location.column += 3;
    location.start += 100;
    location.end += 100;
}

/// Edits of what a comparison does not read: every location, the protocol's versions.
const ALIKE: &[Edit] = &[
    ("the protocol's location", |m| {
        moved(&mut m.protocols[0].location)
    }),
    ("the protocol's version", |m| {
        m.protocols[0].version = semver::Version::new(9, 1, 0)
    }),
    ("the protocol's min_compatible", |m| {
        m.protocols[0].min_compatible = Some(semver::Version::new(1, 1, 0))
    }),
    ("a message's location", |m| {
        moved(&mut m.messages[1].location)
    }),
    ("a type's location", |m| {
        moved(&mut def(m, "State").location)
    }),
    ("a struct field's location", |m| {
        moved(&mut field(m, "Event").location)
    }),
    ("a variant's location", |m| moved(&mut done(m).location)),
    ("a variant field's location", |m| {
        moved(&mut done(m).fields[0].location)
    }),
];

/// Edits of what a comparison reads: each must change the shape.
const APART: &[Edit] = &[
    ("the protocol's name", |m| {
        m.protocols[0].name = "jobs2".to_owned()
    }),
    ("the protocol's path", |m| {
        m.protocols[0].rust_path.push('2')
    }),
    ("the protocol's upgrade", |m| {
        m.protocols[0].upgrade = crate::Upgrade::ServerFirst
    }),
    ("the protocol's format", |m| {
        m.protocols[0].format = crate::Format::Cbor
    }),
    ("a message's protocol", |m| {
        m.messages[0].protocol = "ctl".to_owned()
    }),
    ("a message's name", |m| m.messages[0].name.push('2')),
    ("a message's path", |m| m.messages[0].rust_path.push('2')),
    ("a message's topic", |m| m.messages[0].topic.push('2')),
    ("a message's kind", |m| {
        m.messages[0].kind = crate::Kind::Event
    }),
    ("a message's response", |m| {
        m.messages[0].response = crate::ResponseMode::Stream
    }),
    ("a message's response type", |m| {
        m.messages[1].response_type = None
    }),
    ("a message's since", |m| {
        m.messages[0].since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a message's allow", |m| {
        m.messages[0].allow = Some(crate::model::AllowDecl {
            rules: vec![crate::rules::RuleId::FieldRemoved.as_str().to_owned()],
            reason: "gone".to_owned(),
        })
    }),
    ("a message less", |m| {
        m.messages.pop();
    }),
    ("a type's key", |m| {
        let (path, def) = m.types.pop_last().unwrap();
        m.types.insert(format!("{path}2"), def);
    }),
    ("a type's path", |m| def(m, "Detail").path.push('2')),
    ("a type's generics", |m| {
        def(m, "Detail").generics.push("T".to_owned())
    }),
    ("a type's wire name", |m| {
        def(m, "Detail").attrs.ser_name.push('2')
    }),
    ("deny_unknown_fields", |m| {
        def(m, "Detail").attrs.deny_unknown_fields = true
    }),
    ("a container default", |m| {
        def(m, "Detail").attrs.default = true
    }),
    ("transparent", |m| def(m, "Detail").attrs.transparent = true),
    ("an enum's representation", |m| {
        def(m, "State").attrs.repr = crate::model::EnumRepr::Untagged
    }),
    ("from", |m| {
        def(m, "Detail").attrs.from = Some(crate::model::Proxy {
            ty: Ty::String,
            fallible: true,
        })
    }),
    ("into", |m| def(m, "Detail").attrs.into = Some(Ty::String)),
    ("a type's package", |m| {
        def(m, "Detail").package = Some("url 2.5.0".to_owned())
    }),
    ("a struct's style", |m| {
        if let Body::Struct { style, .. } = &mut def(m, "Detail").body {
            *style = crate::model::Style::Tuple;
        }
    }),
    ("a struct field less", |m| {
        if let Body::Struct { fields, .. } = &mut def(m, "Event").body {
            fields.pop();
        }
    }),
    ("a struct as an alias", |m| {
        def(m, "Detail").body = Body::Alias { target: Ty::String }
    }),
    ("a field's Rust name", |m| {
        field(m, "Detail").rust_name.push('2')
    }),
    ("a field's name", |m| field(m, "Detail").ser_name.push('2')),
    ("a field's aliases", |m| {
        field(m, "Detail").de_names.push("c".to_owned())
    }),
    ("a field's type", |m| {
        field(m, "Detail").ty = Ty::Int {
            signed: false,
            bits: 32,
        }
    }),
    ("a field's default", |m| field(m, "Detail").default = true),
    ("a field's skip_serializing", |m| {
        field(m, "Detail").skip_ser = crate::model::SkipSer::Always
    }),
    ("a field's skip_deserializing", |m| {
        field(m, "Detail").skip_de = true
    }),
    ("a field's flatten", |m| field(m, "Detail").flatten = true),
    ("a field's with", |m| {
        field(m, "Detail").custom = Some(crate::model::Custom {
            ser: Some("f".to_owned()),
            de: None,
        })
    }),
    ("a field's since", |m| {
        field(m, "Detail").since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a field's allow", |m| {
        field(m, "Detail").allow = Some(crate::model::AllowDecl {
            rules: Vec::new(),
            reason: "r".to_owned(),
        })
    }),
    ("a variant's Rust name", |m| done(m).rust_name.push('2')),
    ("a variant's name", |m| done(m).ser_name.push('2')),
    ("a variant's aliases", |m| {
        done(m).de_names.push("d".to_owned())
    }),
    ("a variant's style", |m| {
        done(m).style = crate::model::Style::Named
    }),
    ("a variant's field", |m| done(m).fields[0].ty = Ty::Bool),
    ("a variant's skip_serializing", |m| done(m).skip_ser = true),
    ("a variant's skip_deserializing", |m| done(m).skip_de = true),
    ("a variant's other", |m| done(m).other = true),
    ("a variant's untagged", |m| done(m).untagged = true),
    ("a variant's with", |m| {
        done(m).custom = Some(crate::model::Custom::default())
    }),
    ("a variant's since", |m| {
        done(m).since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a variant's allow", |m| {
        done(m).allow = Some(crate::model::AllowDecl {
            rules: Vec::new(),
            reason: "r".to_owned(),
        })
    }),
];

/// Shapes are hashed without copying the model ([`Blanked`]), and tell parts apart exactly as comparing
/// their blanked copies does: over every pair of the models below (the `jobs` part of a real extraction,
/// edited in each field a comparison reads or does not read), equal shapes iff equal blanked copies.
#[test]
fn a_shape_is_the_model_without_locations_and_versions() {
    let base = full(&sources(false, "pub note: String", "1.2.0")).protocol_part("jobs", |_| true);
    let mut models = vec![("the model as extracted", base.clone(), Keep::All)];
    for (what, edit) in ALIKE.iter().chain(APART) {
        let mut model = base.clone();
        edit(&mut model);
        assert!(model != base, "{what}: the edit changes nothing");
        models.push((what, model, Keep::All));
    }
    models.push(("only records kept", base.clone(), Keep::Records));
    for (a_what, a, a_keep) in &models {
        for (b_what, b, b_keep) in &models {
            let same = blanked(a) == blanked(b) && a_keep == b_keep;
            assert_eq!(
                shape_of(a, *a_keep) == shape_of(b, *b_keep),
                same,
                "{a_what} / {b_what}"
            );
        }
    }
    // What the oracle says of each edit, spelled out.
    let shape = shape_of(&base, Keep::All);
    for (what, model, keep) in &models {
        let alike = ALIKE.iter().any(|(w, _)| w == what) || *what == "the model as extracted";
        assert_eq!(shape_of(model, *keep) == shape, alike, "{what}");
    }
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
