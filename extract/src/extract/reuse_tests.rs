//! Lowered types reused across the revisions of one check (`reuse`, `lower/recorded`): the revisions
//! extracted in turn through one cache must give exactly what each gives through a cache of its own,
//! whatever changed between them, and an unchanged type must not be lowered again.

use std::collections::BTreeMap;

use super::*;
use crate::model::{Body, Ty};

const MANIFEST: &str = "[package]\nname = \"p\"\n[features]\ndefault = [\"extra\"]\nextra = []\n";

const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\npub mod alt;\npub mod kinds;\npub mod types;\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {\n    pub shared: types::Shared,\n    pub at: geo::Point,\n    pub mystery: Mystery,\n}\n";

/// The same blob in every revision: only what its names resolve to, the features and the shapes change.
const TYPES: &str = "use serde::{Deserialize, Serialize};\nuse crate::kinds::Kind;\n#[derive(Serialize, Deserialize)]\npub struct Shared {\n    pub kind: Kind,\n    #[cfg(feature = \"extra\")]\n    pub extra: u32,\n    #[cfg(unix)]\n    pub unix: u8,\n    pub note: Option<String>,\n    pub mystery: Mystery,\n}\n";

const KINDS: &str = "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct Kind { pub a: u8 }\n";

const ALT: &str = "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub enum Kind { A, B }\n";

/// One revision: its files and the options it is extracted with.
struct Revision {
    files: BTreeMap<String, String>,
    options: ExtractOptions,
}

impl Revision {
    fn new() -> Self {
        let files = [
            ("crates/p/Cargo.toml", MANIFEST),
            ("crates/p/src/lib.rs", LIB),
            ("crates/p/src/types.rs", TYPES),
            ("crates/p/src/kinds.rs", KINDS),
            ("crates/p/src/alt.rs", ALT),
        ];
        Revision {
            files: files
                .into_iter()
                .map(|(path, text)| (path.to_owned(), text.to_owned()))
                .collect(),
            options: ExtractOptions::default(),
        }
    }

    fn with_file(mut self, path: &str, text: &str) -> Self {
        self.files.insert(path.to_owned(), text.to_owned());
        self
    }

    fn with_shape(mut self, path: &str, shape: &str) -> Self {
        self.options
            .shapes
            .insert(path.to_owned(), shape.to_owned());
        self
    }

    fn extract(&self, cache: &SourceCache) -> Snapshot {
        let crates = [CrateRoot {
            name: "p".into(),
            root_file: "crates/p/src/lib.rs".into(),
        }];
        extract_with(
            &crates,
            &self.files,
            cache,
            &self.options,
            &Externals::default,
            None,
        )
        .expect("extracts")
    }
}

/// The revisions extracted in turn through one cache, after checking that each gives what it gives
/// through a cache of its own; with what the shared cache did.
fn shared(revisions: &[Revision]) -> (Vec<Snapshot>, CacheStats) {
    let cache = SourceCache::new();
    let snapshots: Vec<Snapshot> = revisions.iter().map(|r| r.extract(&cache)).collect();
    for (index, (revision, snapshot)) in revisions.iter().zip(&snapshots).enumerate() {
        assert_eq!(
            *snapshot,
            revision.extract(&SourceCache::new()),
            "revision {index} extracted after the others differs from it extracted alone"
        );
    }
    (snapshots, cache.stats())
}

fn field_ty(snapshot: &Snapshot, path: &str, field: &str) -> Option<Ty> {
    let Body::Struct { fields, .. } = &snapshot.types[path].body else {
        panic!("{path} is not a struct");
    };
    fields
        .iter()
        .find(|f| f.rust_name == field)
        .map(|f| f.ty.clone())
}

fn named(path: &str) -> Option<Ty> {
    Some(Ty::Named {
        path: path.to_owned(),
        args: Vec::new(),
    })
}

#[test]
fn an_unchanged_revision_reuses_every_lowered_type() {
    let (snapshots, stats) = shared(&[Revision::new(), Revision::new()]);
    // M, Shared and Kind, once; the second revision asks the same questions and gets the same answers.
    assert_eq!(
        (stats.types_lowered, stats.types_reused),
        (3, 3),
        "{stats:?}"
    );
    // What the lowering did besides the definitions is done again: the notes of `Mystery` (a name
    // nothing defines) and of the `cfg(unix)` field.
    assert!(!snapshots[1].notes.is_empty());
    assert_eq!(snapshots[0].notes, snapshots[1].notes);
}

#[test]
fn a_type_whose_names_resolve_elsewhere_is_lowered_again() {
    let outside = Revision::new().with_file("crates/p/src/kinds.rs", "pub use elsewhere::Kind;\n");
    let moved = Revision::new().with_file("crates/p/src/kinds.rs", "pub use crate::alt::Kind;\n");
    let (snapshots, stats) = shared(&[outside, Revision::new(), moved]);
    // `Shared` is the same item in the same file each time, but `Kind` names something else.
    let kinds: Vec<Option<Ty>> = snapshots
        .iter()
        .map(|s| field_ty(s, "p::types::Shared", "kind"))
        .collect();
    assert_eq!(
        kinds,
        [
            Some(Ty::external("elsewhere::Kind")),
            named("p::kinds::Kind"),
            named("p::alt::Kind")
        ]
    );
    assert!(!snapshots[2].types.contains_key("p::kinds::Kind"));
    assert_eq!(stats.types_reused, 2, "only M is reused: {stats:?}");
}

#[test]
fn the_features_of_each_revision_decide_a_reused_type() {
    let without = Revision::new().with_file(
        "crates/p/Cargo.toml",
        "[package]\nname = \"p\"\n[features]\ndefault = []\nextra = []\n",
    );
    let (snapshots, _) = shared(&[Revision::new(), without, Revision::new()]);
    assert!(field_ty(&snapshots[0], "p::types::Shared", "extra").is_some());
    assert!(field_ty(&snapshots[1], "p::types::Shared", "extra").is_none());
    assert!(field_ty(&snapshots[2], "p::types::Shared", "extra").is_some());
}

#[test]
fn the_declared_shapes_of_each_revision_decide_a_reused_type() {
    let declared = Revision::new().with_shape("geo::Point", "String");
    let (snapshots, _) = shared(&[Revision::new(), declared]);
    assert_eq!(
        field_ty(&snapshots[0], "p::M", "at"),
        Some(Ty::external("geo::Point"))
    );
    assert_eq!(field_ty(&snapshots[1], "p::M", "at"), Some(Ty::String));
}

#[test]
fn a_cache_told_to_keep_nothing_has_nothing_to_reuse() {
    let cache = SourceCache::new();
    cache.keep_lowered(false);
    let first = Revision::new().extract(&cache);
    cache.keep_lowered(true);
    let second = Revision::new().extract(&cache);
    assert_eq!(first, second);
    assert_eq!(cache.stats().types_reused, 0, "{:?}", cache.stats());
    // What the second revision lowered is kept again.
    let third = Revision::new().extract(&cache);
    assert_eq!(third, second);
    assert_eq!(cache.stats().types_reused, 3, "{:?}", cache.stats());
}

/// A cache left to exit holds nothing any more: a later extraction through it reads, parses and lowers
/// every file again, and gives the same model.
#[test]
fn a_cache_left_to_exit_starts_over() {
    let cache = SourceCache::new();
    let first = Revision::new().extract(&cache);
    let once = cache.stats();
    cache.leave_to_exit();
    let second = Revision::new().extract(&cache);
    let twice = cache.stats();
    assert_eq!(first, second);
    assert_eq!(twice.types_reused, 0, "{twice:?}");
    assert_eq!(twice.blobs, 2 * once.blobs, "{twice:?}");
    assert_eq!(twice.types_lowered, 2 * once.types_lowered, "{twice:?}");
}

/// The revisions extracted in turn, each in a check of its own (a cache of its own) given the records
/// and declarations the check before kept, through their JSON form as the store keeps them; each must
/// give what it gives through a cache of its own. With what each check's cache did.
fn kept(revisions: &[Revision]) -> (Vec<Snapshot>, Vec<CacheStats>) {
    let mut carried: Option<String> = None;
    let mut snapshots = Vec::new();
    let mut stats = Vec::new();
    for (index, revision) in revisions.iter().enumerate() {
        let cache = SourceCache::new();
        if let Some(json) = &carried {
            cache.know_lowering(serde_json::from_str(json).expect("reads back"));
        }
        let snapshot = revision.extract(&cache);
        assert_eq!(
            snapshot,
            revision.extract(&SourceCache::new()),
            "revision {index} extracted with the records kept before differs from it extracted alone"
        );
        let ids = revision.files.values().map(|text| {
            git2::Oid::hash_object(git2::ObjectType::Blob, text.as_bytes()).expect("hashes")
        });
        carried = Some(serde_json::to_string(&cache.kept_lowering(ids)).expect("writes"));
        snapshots.push(snapshot);
        stats.push(cache.stats());
    }
    (snapshots, stats)
}

#[test]
fn an_unchanged_revision_in_a_later_check_replays_every_type_without_parsing_it() {
    let (snapshots, stats) = kept(&[Revision::new(), Revision::new()]);
    assert_eq!(snapshots[0], snapshots[1]);
    assert_eq!(
        (stats[1].types_lowered, stats[1].types_reused),
        (0, 3),
        "{:?}",
        stats[1]
    );
    // Nothing is parsed again: not the protocol, the message or the types it reaches, and not the
    // `use` items of the three modules, whose names were kept.
    assert_eq!(
        (stats[1].parsed_items, stats[1].scopes_reused),
        (0, 3),
        "{:?} then {:?}",
        stats[0],
        stats[1]
    );
    // The records the second check used are kept again: a third replays them too.
    let (_, stats) = kept(&[Revision::new(), Revision::new(), Revision::new()]);
    assert_eq!(stats[2].types_reused, 3, "{:?}", stats[2]);
}

#[test]
fn records_kept_across_checks_hold_only_where_their_answers_do() {
    let outside = Revision::new().with_file("crates/p/src/kinds.rs", "pub use elsewhere::Kind;\n");
    let moved = Revision::new().with_file("crates/p/src/kinds.rs", "pub use crate::alt::Kind;\n");
    let without = Revision::new().with_file(
        "crates/p/Cargo.toml",
        "[package]\nname = \"p\"\n[features]\ndefault = []\nextra = []\n",
    );
    let declared = Revision::new().with_shape("geo::Point", "String");
    let edited = Revision::new().with_file(
        "crates/p/src/types.rs",
        &TYPES.replace(
            "pub note: Option<String>,",
            "pub note: Option<String>,\n    pub added: u8,",
        ),
    );
    let (snapshots, stats) = kept(&[
        outside,
        Revision::new(),
        moved,
        without,
        declared,
        Revision::new(),
        edited,
    ]);
    assert_eq!(
        field_ty(&snapshots[2], "p::types::Shared", "kind"),
        named("p::alt::Kind")
    );
    assert!(field_ty(&snapshots[3], "p::types::Shared", "extra").is_none());
    assert_eq!(field_ty(&snapshots[4], "p::M", "at"), Some(Ty::String));
    assert!(field_ty(&snapshots[6], "p::types::Shared", "added").is_some());
    // The edited file's type is lowered again, and the message whose field names it (the name now
    // answers another item); `Kind`, in a file that did not change, is replayed.
    assert_eq!(
        (stats[6].types_lowered, stats[6].types_reused),
        (2, 1),
        "{:?}",
        stats[6]
    );
}

/// A record that names a blob id that does not read, or a number out of range, is dropped: the type
/// is lowered again.
#[test]
fn a_damaged_record_is_lowered_again() {
    let cache = SourceCache::new();
    let first = Revision::new().extract(&cache);
    let ids = Revision::new().files.into_values().map(|text| {
        git2::Oid::hash_object(git2::ObjectType::Blob, text.as_bytes()).expect("hashes")
    });
    let json = serde_json::to_string(&cache.kept_lowering(ids)).expect("writes");
    let mut value: serde_json::Value = serde_json::from_str(&json).expect("reads");
    for item in value["items"].as_array_mut().expect("items") {
        item[0] = serde_json::Value::String("not a blob id".into());
    }
    let damaged = SourceCache::new();
    damaged.know_lowering(serde_json::from_value(value).expect("reads back"));
    assert_eq!(Revision::new().extract(&damaged), first);
    assert_eq!(damaged.stats().types_reused, 0, "{:?}", damaged.stats());
}

/// A prelude that re-exports serde's derives, or serde_with's `SerializeDisplay`/`DeserializeFromStr`
/// under their names.
const SERDE_PRELUDE: &str = "pub use serde::{Deserialize, Serialize};\n";
const DISPLAY_PRELUDE: &str =
    "pub use serde_with::{DeserializeFromStr as Deserialize, SerializeDisplay as Serialize};\n";

/// The revision whose `Shared` derives through `import` (of `crate::prelude`, which is `prelude`); its
/// file is the same blob whatever the prelude says.
fn through_prelude(import: &str, prelude: &str) -> Revision {
    Revision::new()
        .with_file(
            "crates/p/src/lib.rs",
            &LIB.replace("pub mod alt;", "pub mod alt;\npub mod prelude;"),
        )
        .with_file("crates/p/src/prelude.rs", prelude)
        .with_file(
            "crates/p/src/types.rs",
            &TYPES.replace("use serde::{Deserialize, Serialize};", import),
        )
}

fn derives_serde(snapshot: &Snapshot) -> bool {
    matches!(snapshot.types["p::types::Shared"].body, Body::Struct { .. })
}

/// The name a derive resolves to is a question of the type's lowering like any other: a prelude that
/// swaps serde's derives for serde_with's (or back), in another file, changes the type, warm or cold,
/// whether the prelude is imported by name or by a glob.
#[test]
fn a_derive_re_exported_by_a_prelude_is_recorded() {
    for import in [
        "use crate::prelude::{Deserialize, Serialize};",
        "use crate::prelude::*;",
        "use crate::prelude::{self, *};",
    ] {
        let serde = || through_prelude(import, SERDE_PRELUDE);
        let display = || through_prelude(import, DISPLAY_PRELUDE);
        for order in [
            [serde(), display(), serde()],
            [display(), serde(), display()],
        ] {
            let expected: Vec<bool> = order
                .iter()
                .map(|revision| revision.files["crates/p/src/prelude.rs"] == SERDE_PRELUDE)
                .collect();
            let (snapshots, _) = shared(&order);
            let derived: Vec<bool> = snapshots.iter().map(derives_serde).collect();
            assert_eq!(derived, expected, "{import}, one check");
            let (snapshots, _) = kept(&order);
            let derived: Vec<bool> = snapshots.iter().map(derives_serde).collect();
            assert_eq!(derived, expected, "{import}, checks in turn");
        }
    }
}

/// The digest of a hand-written type's impls reads files beside the type's, and so does the reading of
/// them: an impl in another file that changes changes the type, warm or cold, in one check and across
/// checks, whether wirecheck reads the impl (`serialize_u8`) or compares its source (a map it builds).
#[test]
fn hand_written_impls_in_another_file_are_recorded() {
    let hand_written = |body: &str| {
        Revision::new()
            .with_file(
                "crates/p/src/lib.rs",
                &LIB.replace("pub mod alt;", "pub mod alt;\npub mod impls;"),
            )
            .with_file(
                "crates/p/src/kinds.rs",
                "pub struct Kind { pub a: u8 }\n",
            )
            .with_file(
                "crates/p/src/impls.rs",
                &format!(
                    "use crate::kinds::Kind;\nimpl serde::Serialize for Kind {{\n    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {{ {body} }}\n}}\n"
                ),
            )
    };
    let kind = |snapshot: &Snapshot| snapshot.types["p::kinds::Kind"].clone();
    for (first, second) in [
        (
            "s.serialize_u8(self.a)",
            "s.serialize_u16(u16::from(self.a))",
        ),
        (
            "let mut m = s.serialize_map(None)?; m.serialize_entry(\"a\", &self.a)?; m.end()",
            "let mut m = s.serialize_map(None)?; m.serialize_entry(\"b\", &self.a)?; m.end()",
        ),
    ] {
        let revisions = [
            hand_written(first),
            hand_written(second),
            hand_written(first),
        ];
        for snapshots in [shared(&revisions).0, kept(&revisions).0] {
            assert_ne!(kind(&snapshots[0]), kind(&snapshots[1]), "{first}");
            assert_eq!(kind(&snapshots[0]), kind(&snapshots[2]), "{first}");
        }
    }
}

/// A field's `with` functions are read through the revision (`Revision::fn_source`, by the digest
/// of their source): a function in another file that changes changes the field, warm or cold, in one
/// check and across checks, whether wirecheck reads it (`serialize_u8`) or compares its source.
#[test]
fn with_functions_in_another_file_are_recorded() {
    let with_fn = |body: &str| {
        Revision::new()
            .with_file(
                "crates/p/src/lib.rs",
                &LIB.replace("pub mod alt;", "pub mod alt;\npub mod codec;"),
            )
            .with_file(
                "crates/p/src/kinds.rs",
                "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct Kind {\n    #[serde(serialize_with = \"crate::codec::write\")]\n    pub a: u8,\n}\n",
            )
            .with_file(
                "crates/p/src/codec.rs",
                &format!(
                    "pub fn write<S: serde::Serializer>(a: &u8, s: S) -> Result<S::Ok, S::Error> {{ {body} }}\n"
                ),
            )
    };
    let kind = |snapshot: &Snapshot| {
        let defs: Vec<String> = snapshot
            .types
            .values()
            .filter(|def| def.path.starts_with('<'))
            .map(|def| serde_json::to_string(&**def).expect("writes"))
            .collect();
        (field_ty(snapshot, "p::kinds::Kind", "a"), defs)
    };
    for (first, second) in [
        ("s.serialize_u8(*a)", "s.serialize_u16(u16::from(*a))"),
        (
            "use serde::ser::SerializeMap; let mut m = s.serialize_map(None)?; m.serialize_entry(\"a\", a)?; m.end()",
            "use serde::ser::SerializeMap; let mut m = s.serialize_map(None)?; m.serialize_entry(\"b\", a)?; m.end()",
        ),
    ] {
        let revisions = [with_fn(first), with_fn(second), with_fn(first)];
        for snapshots in [shared(&revisions).0, kept(&revisions).0] {
            assert_ne!(kind(&snapshots[0]), kind(&snapshots[1]), "{first}");
            assert_eq!(kind(&snapshots[0]), kind(&snapshots[2]), "{first}");
        }
    }
}

/// A type whose array length names a constant of another file: its item is the same blob in every
/// revision, so only the recorded value of the constant tells a record that no longer holds.
#[test]
fn a_length_named_by_a_constant_of_another_file_is_recorded() {
    const SIZED: &str = "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct Kind { pub a: [u8; 2 * crate::alt::LEN] }\n";
    let with_len = |len: &str| {
        Revision::new()
            .with_file("crates/p/src/kinds.rs", SIZED)
            .with_file(
                "crates/p/src/alt.rs",
                &format!("{ALT}pub const LEN: usize = {len};\n"),
            )
    };
    let array = |len| {
        Some(Ty::Array {
            elem: Box::new(Ty::Int {
                signed: false,
                bits: 8,
            }),
            len,
        })
    };
    let revisions = [with_len("2"), with_len("3"), with_len("1 + 1")];
    let (snapshots, stats) = shared(&revisions);
    let lengths: Vec<Option<Ty>> = snapshots
        .iter()
        .map(|s| field_ty(s, "p::kinds::Kind", "a"))
        .collect();
    assert_eq!(lengths, [array(4), array(6), array(4)]);
    assert!(stats.types_reused > 0, "{stats:?}");
    let (kept_snapshots, _) = kept(&revisions);
    assert_eq!(kept_snapshots, snapshots);
}
