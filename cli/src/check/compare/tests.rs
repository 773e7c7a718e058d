use super::*;
use crate::extract::{CrateRoot, snapshot_from_sources};
use crate::outcome::BaselineChoice;

/// Two protocols: `jobs` (a record, compared with every release from 0.1.0 on) and `ctl` (a request).
/// Locations hold byte offsets: a change of `jobs_field` keeps its length to leave `ctl` where it is.
fn model(version: &str, jobs_field: &str, ctl_field: &str, moved: bool) -> Snapshot {
    let blank = if moved { "\n\n" } else { "" };
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};
{blank}
#[derive(Protocol)]
#[wire(name = \"jobs\", version = \"{version}\", min_compatible = \"0.1.0\")]
pub struct Jobs;

#[derive(Protocol)]
#[wire(name = \"ctl\", version = \"{version}\")]
pub struct Ctl;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Jobs, topic = \"jobs.event\", kind = \"record\")]
pub struct Event {{ pub id: u64, {jobs_field} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Ctl, topic = \"ctl.stop\", kind = \"request\")]
pub struct Stop {{ {ctl_field} }}
"
    );
    snapshot_from_sources("demo", &[("src/lib.rs", lib.as_str())]).unwrap()
}

fn baseline(rev: &str) -> Baseline {
    Baseline {
        rev: rev.to_owned(),
        commit: "0123456789abcdef0123456789abcdef01234567".to_owned(),
        chosen: BaselineChoice::LastRelease,
        head_release: None,
        baseline_only: false,
        snapshots: Vec::new(),
    }
}

/// What one check compares.
#[derive(Clone)]
struct Inputs {
    baseline: Baseline,
    base: Snapshot,
    older: Vec<(String, Snapshot)>,
    current: Snapshot,
}

/// A commit for a release whose model is `model` (the store keys releases by commit).
fn commit_of(model: &Snapshot) -> String {
    let json = serde_json::to_string(model).unwrap();
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&json, &mut hasher);
    format!("{:016x}", std::hash::Hasher::finish(&hasher))
}

impl Inputs {
    /// The comparisons through `store` (the releases as its parts, named by their ids, as a check
    /// reads them), checked against those of the whole models without a store, and how many `store`
    /// had to make (the files it gained).
    fn compare(&self, store: &Store) -> usize {
        let dir = store.dir().unwrap().join("compared");
        let files = || std::fs::read_dir(&dir).map_or(0, Iterator::count);
        let before = files();
        let base_commit = commit_of(&self.base);
        let base = store
            .whole(&base_commit, || Ok::<_, ()>(self.base.clone()))
            .unwrap();
        let filter = OlderReleaseKeep::new(&self.current.protocols);
        let keep = |old: &ProtocolDecl| filter.keep(old);
        let older: Vec<(String, ReleaseParts)> = self
            .older
            .iter()
            .map(|(tag, model)| {
                let extract = || Ok::<_, ()>(model.clone());
                let parts = store.parts(&commit_of(model), &keep, &|_, _| true, extract);
                let protocols = model.protocols.clone();
                let parts = parts.unwrap();
                (tag.clone(), ReleaseParts { protocols, parts })
            })
            .collect();
        let kept = protocols(
            &self.baseline,
            (&base, store.used_release(&base_commit).as_ref()),
            &OlderRelease::parts(&older),
            &self.current,
            store,
        );
        let fresh = protocols(
            &self.baseline,
            (&self.base, None),
            &OlderRelease::whole(&self.older),
            &self.current,
            &Store::disabled(),
        );
        assert_eq!(kept, fresh);
        files() - before
    }
}

#[test]
fn a_protocol_is_compared_again_when_anything_its_comparison_reads_changes() {
    let dir = tempfile::tempdir().unwrap();
    let crates = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    let store = || Store::open(dir.path(), "", &crates);
    let mut inputs = Inputs {
        baseline: baseline("v1.0.0"),
        base: model("1.0.0", "pub note: u64", "pub now: bool", false),
        older: vec![(
            "v0.9.0".to_owned(),
            model("0.9.0", "pub note: Option<u64>", "pub now: bool", false),
        )],
        current: model("1.0.0", "pub note: u32", "pub now: bool", false),
    };
    let first = inputs.clone();
    assert_eq!(inputs.compare(&store()), 2, "both protocols");
    assert_eq!(inputs.compare(&store()), 0, "nothing changed");
    let mut changed = |change: &dyn Fn(&mut Inputs), compared: usize, what: &str| {
        change(&mut inputs);
        assert_eq!(inputs.compare(&store()), compared, "{what}");
        assert_eq!(inputs.compare(&store()), 0, "{what}, again");
    };
    changed(
        &|i| i.baseline.rev = "v1.0.1".into(),
        2,
        "the baseline's name",
    );
    changed(
        &|i| i.current = model("1.0.0", "pub note: u32", "pub now: u8", false),
        1,
        "a message of ctl in the working tree",
    );
    changed(
        &|i| i.base = model("1.0.0", "pub note: i64", "pub now: bool", false),
        1,
        "a message of jobs at the baseline",
    );
    changed(
        &|i| i.base = model("1.0.0", "pub note: i64", "pub now: bool", true),
        2,
        "every location at the baseline",
    );
    changed(
        &|i| i.current = model("1.1.0", "pub note: u32", "pub now: u8", false),
        2,
        "the working tree's versions",
    );
    changed(
        &|i| i.older[0].0 = "v0.9.1".into(),
        2,
        "an older release's tag",
    );
    changed(
        &|i| i.older[0].1 = model("0.9.0", "pub note: Option<i64>", "pub now: bool", false),
        1,
        "jobs at an older release",
    );
    changed(
        &|i| {
            let ctl_only = i.older[0].1.protocol_part("ctl", |_| true);
            i.older.insert(0, ("v0.8.0".into(), ctl_only));
        },
        1,
        "an older release having ctl alone",
    );
    // Back to the first inputs: from the store.
    changed(&|i| *i = first.clone(), 0, "back to the first inputs");
}

/// `a` and `b` each reach a struct written by one macro, so their fields are at the same place.
fn macro_model(zeta: &str) -> Snapshot {
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = \"a\", version = \"1.0.0\")]
pub struct A;

#[derive(Protocol)]
#[wire(name = \"b\", version = \"1.0.0\")]
pub struct B;

macro_rules! with_id {{
    ($name:ident) => {{
        #[derive(Serialize, Deserialize)]
        pub struct $name {{ pub id: u64 }}
    }};
}}

with_id!(Alpha);
{zeta}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = A, topic = \"a.put\", kind = \"event\")]
pub struct PutA {{ pub z: Zeta }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = B, topic = \"b.put\", kind = \"event\")]
pub struct PutB {{ pub a: Alpha }}
"
    );
    snapshot_from_sources("demo", &[("src/lib.rs", lib.as_str())]).unwrap()
}

#[test]
fn a_protocols_findings_read_nothing_of_another_protocol() {
    let old = macro_model("with_id!(Zeta);");
    let new = macro_model("#[derive(Serialize, Deserialize)]\npub struct Zeta { pub other: u64 }");
    let field = |path: &str| match &old.types[path].body {
        crate::model::Body::Struct { fields, .. } => fields[0].location.clone(),
        other => panic!("{other:?}"),
    };
    // The premise: `b`'s Alpha sorts before `a`'s Zeta, with its field where Zeta's was.
    assert_eq!(field("demo::Alpha"), field("demo::Zeta"));
    let a = |base: &Snapshot, current: &Snapshot| {
        let base = (base, None);
        let mut changes = protocols(&baseline("v1.0.0"), base, &[], current, &Store::disabled());
        changes.retain(|c| c.name == "a");
        changes
    };
    let whole = a(&old, &new);
    let parts = a(
        &old.protocol_part("a", |_| true),
        &new.protocol_part("a", |_| true),
    );
    assert_eq!(whole, parts);
    let removed = whole[0]
        .findings
        .iter()
        .find(|f| f.side == Side::Old)
        .unwrap_or_else(|| panic!("{whole:#?}"));
    // Anchored on what is left of Zeta, not on `b`'s Alpha.
    assert_eq!(
        removed.anchor.as_ref(),
        Some(&new.types["demo::Zeta"].location)
    );
}
