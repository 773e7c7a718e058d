#![cfg(feature = "checker")]
//! serde's companion crates, checked against the real crates: enums deriving serde_repr's
//! `Serialize_repr`/`Deserialize_repr`, and serde_with's `#[serde_as]` adapters, `with` modules and
//! `#[skip_serializing_none]`.
//!
//! Each case declares real Rust types once, inside `types!`: the macro compiles them and hands their
//! tokens (`stringify!`) to `wirecheck::extract::snapshot_from_sources`, so the model is extracted from
//! exactly the types that are encoded. Then:
//!
//! - **the model is what the crates write**: every payload the model generates (the fixture cases:
//!   minimal, maximal, boundaries) decodes with the real type and encodes back to the same JSON;
//! - **verdicts**: for a change from one type to another, a major finding's witness is emitted by the
//!   real writer and rejected by the real reader, and a direction the engine calls compatible decodes
//!   real values of the writer's type (serde_json; bincode and postcard for serde_repr's integers).
//!
//! Some verdicts need the comparison semantics of the model's refined values and reader choices
//! (`Ty::Refined`, `Ty::Choice`), which the comparison reads by an interim mapping until they land; the
//! tests that depend on them say so.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::model::{EnumRepr, Snapshot, Ty};

/// The protocol the compiled case types name.
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0")]
pub struct P;

/// `types!(name { items })`: compiles `items` as the module `name` (with serde, serde_repr, serde_with
/// and std's time types in scope) and keeps their text as `name::SOURCE`.
macro_rules! types {
    ($name:ident { $($items:tt)* }) => {
        #[allow(dead_code, unused_imports)]
        mod $name {
            use crate::P;
            use serde::{Deserialize, Serialize};
            use serde_repr::{Deserialize_repr, Serialize_repr};
            use serde_with::formats::{
                CommaSeparator, Flexible, PreferMany, PreferOne, Unpadded, Uppercase,
            };
            use serde_with::base64::{Base64, UrlSafe};
            use serde_with::hex::Hex;
            use serde_with::{
                BoolFromInt, BytesOrString, DefaultOnError, DefaultOnNull,
                DisplayFromStr, DurationMilliSeconds, DurationSeconds, FromInto, IfIsHumanReadable,
                Map, NoneAsEmptyString, OneOrMany, PickFirst, Same, Seq, StringWithSeparator,
                TimestampMilliSeconds, TimestampNanoSeconds, TimestampSeconds, serde_as,
                skip_serializing_none,
            };
            use std::collections::{BTreeMap, HashMap};
            use std::time::{Duration, SystemTime};
            use wirecheck::Message;
            $($items)*
            /// The items as source text, for the extraction.
            pub const SOURCE: &str = stringify!($($items)*);
        }
    };
}

/// The model of a case's types, in a protocol of `format` at `version`.
fn model(format: &str, version: &str, items: &str) -> Snapshot {
    let text = format!(
        "use serde::{{Deserialize, Serialize}};\nuse serde_repr::{{Deserialize_repr, Serialize_repr}};\n\
         use serde_with::formats::{{CommaSeparator, Flexible, PreferMany, PreferOne, Unpadded, Uppercase}};\n\
         use serde_with::base64::{{Base64, UrlSafe}};\nuse serde_with::hex::Hex;\n\
         use serde_with::{{BoolFromInt, BytesOrString, DefaultOnError, DefaultOnNull, \
         DisplayFromStr, DurationMilliSeconds, DurationSeconds, FromInto, IfIsHumanReadable, Map, \
         NoneAsEmptyString, OneOrMany, PickFirst, Same, Seq, StringWithSeparator, TimestampMilliSeconds, \
         TimestampNanoSeconds, TimestampSeconds, serde_as, skip_serializing_none}};\n\
         use std::collections::{{BTreeMap, HashMap}};\nuse std::time::{{Duration, SystemTime}};\n\
         use wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n{items}\n"
    );
    let snap = match snapshot_from_sources("case", &[("src/lib.rs", text.as_str())]) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n{text}"),
    };
    assert!(snap.notes.is_empty(), "{:#?}\n{text}", snap.notes);
    assert!(!snap.messages.is_empty(), "{text}");
    snap
}

fn json_model(items: &str) -> Snapshot {
    model("json", "0.1.0", items)
}

/// The model type of the field `field` of the message `case::Msg`.
fn field_ty(snap: &Snapshot, field: &str) -> Ty {
    let def = &snap.types["case::Msg"];
    let wirecheck::model::Body::Struct { fields, .. } = &def.body else {
        panic!("Msg is not a struct: {def:?}");
    };
    match fields.iter().find(|f| f.rust_name == field) {
        Some(f) => f.ty.clone(),
        None => panic!("no field {field} in {fields:#?}"),
    }
}

/// The payloads the model generates for its message (the fixture cases).
fn model_payloads(snap: &Snapshot) -> Vec<Value> {
    let files = wirecheck::fixtures::protocol_files(snap, "p");
    assert_eq!(files.len(), 1);
    let file: Value = serde_json::from_str(&files[0].text).expect("fixture JSON");
    file["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["payload"].clone())
        .collect()
}

/// Every payload the model generates is one the real type `T` writes: it decodes and encodes back.
fn model_writes_what<T: Serialize + DeserializeOwned>(snap: &Snapshot) {
    for payload in model_payloads(snap) {
        emitted_by::<T>(&payload);
    }
}

fn decode<T: DeserializeOwned>(v: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&v.to_string())
}

/// The writer `W` really emits `v`: it decodes into `W` and encodes back to the same JSON.
fn emitted_by<W: Serialize + DeserializeOwned>(v: &Value) {
    let w: W = match decode(v) {
        Ok(w) => w,
        Err(e) => panic!("the payload {v} is not a value of the writer's type: {e}"),
    };
    assert_eq!(
        serde_json::to_value(&w).ok().as_ref(),
        Some(v),
        "the writer does not emit {v}"
    );
}

/// The writer emits `v` and the reader `R` rejects it.
fn rejected<W: Serialize + DeserializeOwned, R: DeserializeOwned + std::fmt::Debug>(v: &Value) {
    emitted_by::<W>(v);
    if let Ok(r) = decode::<R>(v) {
        panic!("serde accepts the witness {v} as {r:?}");
    }
}

/// Real values of the writer `W` all decode as the reader `R`.
fn reads_all<W: Serialize, R: DeserializeOwned>(values: &[W]) {
    for w in values {
        let v = serde_json::to_value(w).expect("serializes");
        if let Err(e) = decode::<R>(&v) {
            panic!("the reader rejects {v}, which the writer writes: {e}");
        }
    }
}

fn findings(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    compare_protocol(old, new, "p", "v0.1.0", Scope::Full)
}

/// The witness of the first major finding in direction `dir` (`None`: the engine sees no break).
fn break_witness(old: &Snapshot, new: &Snapshot, dir: Direction) -> Option<(String, Value)> {
    let all = findings(old, new);
    let found = all
        .iter()
        .find(|f| f.level == Level::Major && f.direction == Some(dir))?;
    match &found.witness {
        Some(w) => Some((found.rule.as_str().to_owned(), w.clone())),
        None => panic!("a major finding without a witness: {found:#?}"),
    }
}

const ONR: Direction = Direction::OldReadsNew;
const NRO: Direction = Direction::NewReadsOld;

/// A change checked in both directions: the engine's break (rule and witness) must be real, and a
/// direction it calls compatible must read the writer's `samples`.
fn verdicts<Old, New>(
    (old, new): (&Snapshot, &Snapshot),
    expect: [(Direction, Option<&str>); 2],
    (old_samples, new_samples): (&[Old], &[New]),
) where
    Old: Serialize + DeserializeOwned + std::fmt::Debug,
    New: Serialize + DeserializeOwned + std::fmt::Debug,
{
    let old_json: Vec<Value> = old_samples
        .iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect();
    let new_json: Vec<Value> = new_samples
        .iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect();
    for (dir, rule) in expect {
        let found = break_witness(old, new, dir);
        let (writer, reader, samples) = match dir {
            Direction::OldReadsNew => (new, old, &new_json),
            Direction::NewReadsOld => (old, new, &old_json),
        };
        schemas_agree((writer, reader), found.as_ref(), samples);
        match (dir, rule, found) {
            (ONR, Some(rule), Some((said, w))) => {
                assert_eq!(said, rule, "{dir}: {w}");
                rejected::<New, Old>(&w);
            }
            (NRO, Some(rule), Some((said, w))) => {
                assert_eq!(said, rule, "{dir}: {w}");
                rejected::<Old, New>(&w);
            }
            (ONR, None, None) => reads_all::<New, Old>(new_samples),
            (NRO, None, None) => reads_all::<Old, New>(old_samples),
            (_, want, got) => panic!(
                "{dir}: expected {want:?}, the engine says {got:?}: {:#?}",
                findings(old, new)
            ),
        }
    }
}

/// `wirecheck schema` agrees: the writer's real samples validate against the writer's schema (and, where
/// the engine sees no break, the reader's), and a witness of a rejection outside a parsed domain fails
/// the reader's schema.
fn schemas_agree(
    (writer, reader): (&Snapshot, &Snapshot),
    found: Option<&(String, Value)>,
    samples: &[Value],
) {
    use wirecheck::schema::{SchemaRole, message_schema};
    let validator = |snap: &Snapshot, role| {
        let schema = message_schema(snap, &snap.messages[0], role).expect("a JSON protocol");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    };
    let (writes, reads) = (
        validator(writer, SchemaRole::Writer),
        validator(reader, SchemaRole::Reader),
    );
    for sample in samples {
        if let Err(e) = writes.validate(sample) {
            panic!("{sample}, written by the real type, fails the writer's schema: {e}");
        }
        if found.is_none() && !reads.is_valid(sample) {
            panic!("{sample}, read by the real reader, fails the reader's schema");
        }
    }
    if let Some((rule, witness)) = found {
        let id = wirecheck::rules::RuleId::from_id(rule).expect("a rule");
        if let Err(e) = writes.validate(witness) {
            panic!("the witness {witness} ({rule}) fails the writer's schema: {e}");
        }
        let rejection = id.rule().evidence == wirecheck::rules::Evidence::Rejected;
        if rejection && rule != "value_domain_narrowed" && reads.is_valid(witness) {
            panic!("the witness {witness} ({rule}) is rejected by the reader, not by its schema");
        }
    }
}

// ----- serde_repr -----

types!(repr_old {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 2,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_added {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 2,
        TriggerForIncompleteCompletions,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_other {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 2,
        #[serde(other)]
        Unknown = 0,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_renumbered {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 5,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_tagged {
    #[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
    pub enum TriggerKind {
        Invoked,
        TriggerCharacter,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_wide {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u16)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 2,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

#[test]
fn repr_enum_is_its_discriminant() {
    use repr_old::{Msg, TriggerKind};
    let snap = json_model(repr_old::SOURCE);
    let def = &snap.types["case::TriggerKind"];
    assert_eq!(
        def.attrs.repr,
        EnumRepr::Integer {
            signed: false,
            bits: 8
        }
    );
    // What the crate writes: the discriminant.
    let real = serde_json::to_value(Msg {
        trigger_kind: TriggerKind::TriggerCharacter,
    })
    .expect("serializes");
    assert_eq!(real, serde_json::json!({"triggerKind": 2}));
    model_writes_what::<Msg>(&snap);
    // The whole model against itself: nothing to say.
    assert_eq!(findings(&snap, &snap), vec![]);
}

#[test]
fn repr_variant_added_breaks_old_readers_with_its_integer() {
    use repr_added::{Msg as New, TriggerKind as K};
    use repr_old::{Msg as Old, TriggerKind as OldK};
    let (old, new) = (
        json_model(repr_old::SOURCE),
        model("json", "0.2.0", repr_added::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, Some("variant_added_without_other")), (NRO, None)],
        (
            &[
                Old {
                    trigger_kind: OldK::Invoked,
                },
                Old {
                    trigger_kind: OldK::TriggerCharacter,
                },
            ],
            &[New {
                trigger_kind: K::TriggerForIncompleteCompletions,
            }],
        ),
    );
    let (_, witness) = break_witness(&old, &new, ONR).expect("a break");
    assert_eq!(witness, serde_json::json!({"triggerKind": 3}));
}

#[test]
fn repr_other_takes_unknown_integers() {
    use repr_added::Msg as New;
    use repr_other::{Msg as Old, TriggerKind};
    let (old, new) = (
        json_model(repr_other::SOURCE),
        model("json", "0.2.0", repr_added::SOURCE),
    );
    // Old readers take 3 as `Unknown` (a change, not a break); the old `Unknown` is written as 0, which
    // the new enum does not have.
    let read: Old = decode(&serde_json::json!({"triggerKind": 3})).expect("other takes 3");
    assert_eq!(read.trigger_kind, TriggerKind::Unknown);
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, None), (NRO, Some("variant_removed"))],
        (
            &[],
            &[New {
                trigger_kind: repr_added::TriggerKind::TriggerForIncompleteCompletions,
            }],
        ),
    );
}

#[test]
fn repr_discriminant_changed_breaks_both_ways() {
    use repr_old::Msg as Old;
    use repr_renumbered::Msg as New;
    let (old, new) = (
        json_model(repr_old::SOURCE),
        model("json", "0.2.0", repr_renumbered::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [
            (ONR, Some("variant_renamed")),
            (NRO, Some("variant_renamed")),
        ],
        (&[], &[]),
    );
}

#[test]
fn tagged_to_repr_is_a_representation_change_with_real_witnesses() {
    use repr_old::Msg as New;
    use repr_tagged::Msg as Old;
    let (old, new) = (
        json_model(repr_tagged::SOURCE),
        model("json", "0.2.0", repr_old::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [
            (ONR, Some("enum_repr_changed")),
            (NRO, Some("enum_repr_changed")),
        ],
        (&[], &[]),
    );
}

// An enum of serde_repr inside an untagged enum, become an integer newtype (lsp-types 0.91's
// `TextDocumentSyncKind`): the untagged reader takes each value as the same variant.
types!(repr_in_untagged {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum SyncKind {
        None = 0,
        Full = 1,
        Incremental = 2,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct SyncOptions {
        pub open_close: Option<bool>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum SyncCapability {
        Kind(SyncKind),
        Options(SyncOptions),
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub sync: SyncCapability,
    }
});

types!(newtype_in_untagged {
    #[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
    #[serde(transparent)]
    pub struct SyncKind(i32);

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct SyncOptions {
        pub open_close: Option<bool>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum SyncCapability {
        Kind(SyncKind),
        Options(SyncOptions),
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub sync: SyncCapability,
    }
});

#[test]
fn a_repr_enum_in_an_untagged_enum_read_as_an_integer_newtype_is_the_same_variant() {
    use newtype_in_untagged as n;
    use repr_in_untagged as o;
    let (old, new) = (
        json_model(repr_in_untagged::SOURCE),
        model("json", "0.2.0", newtype_in_untagged::SOURCE),
    );
    let old_samples: Vec<o::Msg> = [
        o::SyncKind::None,
        o::SyncKind::Full,
        o::SyncKind::Incremental,
    ]
    .into_iter()
    .map(|kind| o::Msg {
        sync: o::SyncCapability::Kind(kind),
    })
    .collect();
    // New reads old: every integer the old writer writes is the new reader's `Kind`, as it was.
    // Old reads new: the new writer writes any i32, which the old u8 enum rejects (a real break).
    verdicts::<o::Msg, n::Msg>(
        (&old, &new),
        [(NRO, None), (ONR, Some("value_domain_narrowed"))],
        (&old_samples, &[]),
    );
    for sample in &old_samples {
        let read: n::Msg = decode(&serde_json::to_value(sample).expect("writes")).expect("reads");
        assert!(matches!(read.sync, n::SyncCapability::Kind(_)), "{read:?}");
    }
}

/// In positional formats the enum is its `repr` integer's encoding: `u8` to `u16` is another width in
/// bincode's legacy (fixed-width) configuration, and the same bytes in postcard for values below 128.
#[test]
fn repr_width_in_positional_formats() {
    use repr_old::{Msg as Old, TriggerKind as OldK};
    use repr_wide::Msg as New;
    let written = Old {
        trigger_kind: OldK::TriggerCharacter,
    };
    let legacy =
        bincode::serde::encode_to_vec(&written, bincode::config::legacy()).expect("encodes");
    assert_eq!(legacy, vec![2]);
    let read: Result<(New, usize), _> =
        bincode::serde::decode_from_slice(&legacy, bincode::config::legacy());
    assert!(read.is_err(), "a u16 reader needs two bytes");
    let bytes = postcard::to_allocvec(&written).expect("encodes");
    let read: New = postcard::from_bytes(&bytes).expect("postcard: same bytes below 128");
    assert_eq!(read.trigger_kind as u16, 2);

    for (format, breaks) in [("bincode", true), ("postcard", false)] {
        let old = model(format, "0.1.0", repr_old::SOURCE);
        let new = model(format, "0.2.0", repr_wide::SOURCE);
        for dir in [ONR, NRO] {
            let found = break_witness(&old, &new, dir);
            assert_eq!(found.is_some(), breaks, "{format} {dir}: {found:?}");
            if let Some((rule, witness)) = found {
                assert_eq!(rule, "enum_repr_changed");
                assert!(witness["triggerKind"].is_u64(), "{witness}");
            }
        }
    }
}

types!(repr_high {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u8)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 200,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

types!(repr_high_wide {
    #[derive(Serialize_repr, Deserialize_repr, Debug, Clone, Copy, PartialEq)]
    #[repr(u16)]
    pub enum TriggerKind {
        Invoked = 1,
        TriggerCharacter = 200,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    #[serde(rename_all = "camelCase")]
    pub struct Msg {
        pub trigger_kind: TriggerKind,
    }
});

/// In postcard a `u8` is a raw byte and a `u16` a varint: they part at 128, so a discriminant of 200
/// breaks the width change, and the witness is that discriminant.
#[test]
fn repr_width_in_postcard_above_127() {
    use repr_high::{Msg as Old, TriggerKind};
    use repr_high_wide::Msg as New;
    let bytes = postcard::to_allocvec(&Old {
        trigger_kind: TriggerKind::TriggerCharacter,
    })
    .expect("encodes");
    assert!(postcard::from_bytes::<New>(&bytes).is_err());
    let old = model("postcard", "0.1.0", repr_high::SOURCE);
    let new = model("postcard", "0.2.0", repr_high_wide::SOURCE);
    let (rule, witness) = break_witness(&old, &new, NRO).expect("a break");
    assert_eq!(rule, "enum_repr_changed");
    assert!(format!("{witness}").contains("200"), "{witness}");
}

// ----- serde_with: what each adapter is in the model -----

types!(adapters {
    /// A type without serde impls, written through `FromInto<u8>`.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Level(pub u8);

    impl From<u8> for Level {
        fn from(x: u8) -> Self {
            Level(x)
        }
    }

    impl From<Level> for u8 {
        fn from(x: Level) -> Self {
            x.0
        }
    }

    #[serde_as]
    #[skip_serializing_none]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DisplayFromStr")]
        pub id: u32,
        #[serde_as(as = "Option<DisplayFromStr>")]
        pub maybe: Option<u64>,
        #[serde_as(as = "Vec<DisplayFromStr>")]
        pub ids: Vec<i64>,
        #[serde_as(as = "HashMap<DisplayFromStr, _>")]
        pub by_id: HashMap<u8, String>,
        #[serde_as(as = "Seq<(_, _)>")]
        pub pairs: BTreeMap<String, u32>,
        #[serde_as(as = "Map<_, _>")]
        pub entries: Vec<(String, u32)>,
        #[serde_as(as = "TimestampSeconds<i64>")]
        pub at: SystemTime,
        #[serde_as(as = "TimestampMilliSeconds<String>")]
        pub at_ms: SystemTime,
        #[serde_as(as = "DurationSeconds<u64>")]
        pub timeout: Duration,
        #[serde_as(as = "DurationMilliSeconds<f64, Flexible>")]
        pub delay: Duration,
        #[serde_as(as = "Base64")]
        pub blob: Vec<u8>,
        #[serde_as(as = "Base64<UrlSafe, Unpadded>")]
        pub token: Vec<u8>,
        #[serde_as(as = "Hex")]
        pub digest: Vec<u8>,
        #[serde_as(as = "BytesOrString")]
        pub raw: Vec<u8>,
        #[serde_as(as = "NoneAsEmptyString")]
        #[serde(default)]
        pub label: Option<String>,
        #[serde_as(as = "NoneAsEmptyString")]
        #[serialize_always]
        pub empty: Option<String>,
        #[serde_as(as = "DefaultOnNull")]
        pub count: u32,
        #[serde_as(as = "DefaultOnError")]
        #[serde(default)]
        pub lenient: u32,
        #[serde_as(as = "OneOrMany<_, PreferOne>")]
        pub tags: Vec<String>,
        #[serde_as(as = "OneOrMany<_, PreferMany>")]
        pub hosts: Vec<String>,
        #[serde_as(as = "PickFirst<(_, DisplayFromStr)>")]
        pub port: u16,
        #[serde_as(as = "StringWithSeparator::<CommaSeparator, u32>")]
        pub csv: Vec<u32>,
        #[serde_as(as = "FromInto<u8>")]
        pub level: Level,
        #[serde_as(as = "BoolFromInt")]
        pub flag: bool,
        #[serde_as(as = "IfIsHumanReadable<DisplayFromStr, Same>")]
        pub version: u32,
        #[serde(default, with = "::serde_with::rust::double_option")]
        pub patch: Option<Option<u32>>,
        pub note: Option<String>,
    }
});

fn string_of(domain: &str) -> impl Fn(&Ty) -> bool + '_ {
    move |ty| matches!(ty, Ty::Refined { base, domain: d, .. } if **base == Ty::String && d == domain)
}

#[test]
fn each_adapter_is_modelled_as_what_it_writes_and_reads() {
    let snap = json_model(adapters::SOURCE);
    let ty = |f: &str| field_ty(&snap, f);
    let u = |bits| Ty::Int {
        signed: false,
        bits,
    };
    assert!(string_of("u32")(&ty("id")), "{}", ty("id"));
    assert!(
        matches!(ty("maybe"), Ty::Option { inner } if string_of("u64")(&inner)),
        "{}",
        ty("maybe")
    );
    assert!(matches!(ty("ids"), Ty::Seq { elem, .. } if string_of("i64")(&elem)));
    assert!(
        matches!(ty("by_id"), Ty::Map { key, value } if string_of("u8")(&key) && *value == Ty::String)
    );
    assert_eq!(ty("pairs").to_string(), "Vec<(String, u32)>");
    assert_eq!(ty("entries").to_string(), "Map<String, u32>");
    assert_eq!(ty("at").to_string(), "i64 (unix-seconds)");
    assert_eq!(
        ty("at_ms").to_string(),
        "String (unix timestamp in milliseconds)"
    );
    assert_eq!(ty("timeout").to_string(), "u64 (duration in seconds)");
    assert_eq!(
        ty("delay").to_string(),
        "f64 (duration in milliseconds) (reads f64 or String (number))"
    );
    assert!(string_of("base64 (Standard)")(&ty("blob")));
    assert!(string_of("base64 (UrlSafe)")(&ty("token")));
    assert!(string_of("hex")(&ty("digest")));
    assert_eq!(
        ty("raw").to_string(),
        "Vec<u8> (reads Vec<u8> or String or bytes)"
    );
    assert_eq!(ty("label").to_string(), "String (reads Option<String>)");
    assert_eq!(ty("count").to_string(), "u32 (reads Option<u32>)");
    assert_eq!(
        ty("lenient").to_string(),
        "u32 (reads u32 or serde_json::Value)"
    );
    assert_eq!(ty("tags").to_string(), "OneOrMany<String>");
    assert_eq!(
        ty("hosts").to_string(),
        "Vec<String> (reads String or Vec<String>)"
    );
    assert_eq!(ty("port").to_string(), "u16 (reads u16 or String (u16))");
    assert!(string_of("`,`-separated u32")(&ty("csv")));
    assert_eq!(ty("level"), u(8));
    assert_eq!(ty("flag").to_string(), "u8 (0 or 1)");
    assert_eq!(ty("version").to_string(), "String (u32) | u32");
    assert_eq!(
        ty("patch"),
        Ty::Option {
            inner: Box::new(u(32))
        }
    );
    let def = &snap.types["case::Msg"];
    let wirecheck::model::Body::Struct { fields, .. } = &def.body else {
        unreachable!()
    };
    let field = |name: &str| fields.iter().find(|f| f.rust_name == name).expect(name);
    // `skip_serializing_none` on the `Option` fields; `serde_as` adds `default` to Option-as-Option.
    for name in ["maybe", "label", "patch", "note"] {
        assert_eq!(
            field(name).skip_ser,
            wirecheck::model::SkipSer::If("Option::is_none".into()),
            "{name}"
        );
    }
    assert_eq!(field("empty").skip_ser, wirecheck::model::SkipSer::Never);
    assert!(field("maybe").default);
    assert!(!field("empty").default);
    assert_eq!(ty("empty").to_string(), "String (reads Option<String>)");
    assert!(fields.iter().all(|f| f.custom.is_none()), "{fields:#?}");
    assert!(snap.types.contains_key("serde_with::OneOrMany"));
    // `Level` is written through `FromInto<u8>`: its own shape is not on the wire.
    assert!(
        !snap.types.contains_key("case::Level"),
        "{:?}",
        snap.types.keys()
    );
}

/// Every payload the model generates is one the real adapters write (refined values by their samples).
#[test]
fn adapter_payloads_are_written_by_the_real_adapters() {
    model_writes_what::<adapters::Msg>(&json_model(adapters::SOURCE));
}

/// What the real adapters write, for the values the model says.
#[test]
fn adapters_write_what_the_model_says() {
    let msg = adapters::Msg {
        id: 7,
        maybe: None,
        ids: vec![-1],
        by_id: std::collections::HashMap::from([(1, "a".to_owned())]),
        pairs: std::collections::BTreeMap::from([("k".to_owned(), 1)]),
        entries: vec![("k".to_owned(), 1)],
        at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
        at_ms: std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
        timeout: std::time::Duration::from_secs(3),
        delay: std::time::Duration::from_millis(1500),
        blob: vec![0, 1, 2, 3],
        token: vec![0, 1, 2, 3],
        digest: vec![10, 11],
        raw: vec![1],
        label: Some("x".to_owned()),
        empty: None,
        count: 1,
        lenient: 1,
        tags: vec!["one".to_owned()],
        hosts: vec!["h".to_owned()],
        port: 80,
        csv: vec![1, 2],
        level: adapters::Level(1),
        flag: true,
        version: 3,
        patch: Some(None),
        note: None,
    };
    let v = serde_json::to_value(&msg).expect("serializes");
    assert_eq!(
        v,
        serde_json::json!({
            "id": "7", "ids": ["-1"], "by_id": {"1": "a"}, "pairs": [["k", 1]],
            "entries": {"k": 1}, "at": 1_700_000_000, "at_ms": "1700000000000", "timeout": 3,
            "delay": 1500.0, "blob": "AAECAw==", "token": "AAECAw", "digest": "0a0b", "raw": [1],
            "label": "x", "empty": "", "count": 1, "lenient": 1, "tags": "one", "hosts": ["h"], "port": 80,
            "csv": "1,2", "level": 1, "flag": 1, "version": "3", "patch": null
        })
    );
    // What the readers take besides: null for `DefaultOnNull` and `NoneAsEmptyString`, anything for
    // `DefaultOnError`, one or many, the second choice of `PickFirst`, a string for `BytesOrString`.
    let mut other = v.clone();
    for (key, value) in [
        ("count", Value::Null),
        ("empty", Value::Null),
        ("lenient", serde_json::json!({"any": "thing"})),
        ("hosts", serde_json::json!("h")),
        ("tags", serde_json::json!(["a", "b"])),
        ("port", serde_json::json!("80")),
        ("raw", serde_json::json!("text")),
        ("delay", serde_json::json!("1500")),
    ] {
        other[key] = value;
    }
    let read: adapters::Msg = decode(&other).expect("the readers' other choices");
    assert_eq!((read.count, read.lenient, read.port), (0, 0, 80));
    assert_eq!(read.raw, b"text".to_vec());
    // And what they reject: a number where `DisplayFromStr` wants a string, 2 for `BoolFromInt`, a
    // string that is no base64, a list item that is no number; and a missing `NoneAsEmptyString` field
    // (serde_as adds no `default` for it: the model's field is no `Option`, so it is required).
    for (key, value) in [
        ("id", serde_json::json!(7)),
        ("flag", serde_json::json!(2)),
        ("blob", serde_json::json!("!")),
        ("csv", serde_json::json!("1,x")),
    ] {
        let mut bad = v.clone();
        bad[key] = value;
        assert!(decode::<adapters::Msg>(&bad).is_err(), "{key}");
    }
    let mut missing = v.clone();
    missing.as_object_mut().expect("object").remove("empty");
    assert!(decode::<adapters::Msg>(&missing).is_err());
}

// ----- serde_with: changes -----

types!(plain_u32 {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub id: u32,
    }
});

types!(plain_string {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub id: String,
    }
});

types!(display_u32 {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DisplayFromStr")]
        pub id: u32,
    }
});

types!(pick_u32 {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "PickFirst<(_, DisplayFromStr)>")]
        pub id: u32,
    }
});

types!(vec_plain {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub tags: Vec<String>,
    }
});

types!(one_or_many {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "OneOrMany<_>")]
        pub tags: Vec<String>,
    }
});

types!(option_nested {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub patch: Option<Option<u32>>,
    }
});

types!(double_option {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "::serde_with::rust::double_option"
        )]
        pub patch: Option<Option<u32>>,
    }
});

/// `u32` to `DisplayFromStr` over `u32`: a number becomes a string, which neither side reads.
/// Pending in the comparison: the new writer's witness must be its refined sample (`"1"`), not `""`.
#[test]
fn integer_to_display_from_str_breaks_both_ways() {
    use display_u32::Msg as New;
    use plain_u32::Msg as Old;
    let (old, new) = (
        json_model(plain_u32::SOURCE),
        model("json", "0.2.0", display_u32::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [
            (ONR, Some("field_type_changed")),
            (NRO, Some("field_type_changed")),
        ],
        (&[], &[]),
    );
}

// serde_with's whole-unit timestamps in an `i64` are the numbers chrono's and time's modules write.

types!(ts_modules {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "time::serde::timestamp")]
        pub at: time::OffsetDateTime,
        #[serde(with = "chrono::serde::ts_milliseconds")]
        pub at_ms: chrono::DateTime<chrono::Utc>,
        #[serde(with = "chrono::serde::ts_nanoseconds")]
        pub at_ns: chrono::DateTime<chrono::Utc>,
    }
});

types!(ts_serde_with {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "TimestampSeconds<i64>")]
        pub at: SystemTime,
        #[serde_as(as = "TimestampMilliSeconds<i64>")]
        pub at_ms: SystemTime,
        #[serde_as(as = "TimestampNanoSeconds<i64>")]
        pub at_ns: SystemTime,
    }
});

/// time's `timestamp` and chrono's `ts_milliseconds` and `ts_nanoseconds` to serde_with's
/// `TimestampSeconds<i64>`, `TimestampMilliSeconds<i64>` and `TimestampNanoSeconds<i64>` on `SystemTime`:
/// the same numbers each, so no finding, and each side reads the other's times (before 1970 too, and
/// the first nanosecond an `i64` holds).
#[test]
fn serde_with_timestamps_share_the_catalogue_domains() {
    use std::time::{Duration, UNIX_EPOCH};
    use ts_modules::Msg as Old;
    use ts_serde_with::Msg as New;
    let (old, new) = (
        json_model(ts_modules::SOURCE),
        model("json", "0.2.0", ts_serde_with::SOURCE),
    );
    let olds = [
        Old {
            at: time::macros::datetime!(2024-01-02 03:04:05 UTC),
            at_ms: chrono::DateTime::from_timestamp_millis(1_704_164_645_123).unwrap(),
            at_ns: chrono::DateTime::from_timestamp_nanos(1_704_164_645_123_456_789),
        },
        Old {
            at: time::macros::datetime!(1900-01-01 00:00 UTC),
            at_ms: chrono::DateTime::from_timestamp_millis(-2_208_988_800_000).unwrap(),
            at_ns: chrono::DateTime::from_timestamp_nanos(i64::MIN),
        },
    ];
    let news = [
        New {
            at: UNIX_EPOCH + Duration::from_secs(1_704_164_645),
            at_ms: UNIX_EPOCH + Duration::from_millis(1_704_164_645_123),
            at_ns: UNIX_EPOCH + Duration::from_nanos(1_704_164_645_123_456_789),
        },
        New {
            at: UNIX_EPOCH - Duration::from_secs(2_208_988_800),
            at_ms: UNIX_EPOCH - Duration::from_millis(2_208_988_800_000),
            at_ns: UNIX_EPOCH - Duration::from_nanos(2_208_988_800_000_000_000),
        },
    ];
    verdicts::<Old, New>((&old, &new), [(ONR, None), (NRO, None)], (&olds, &news));
}

types!(keys_plain {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub by_id: BTreeMap<u8, String>,
    }
});

types!(keys_display {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "BTreeMap<DisplayFromStr, _>")]
        pub by_id: BTreeMap<u8, String>,
    }
});

/// Integer map keys to `DisplayFromStr` keys: JSON writes both as the number's text and reads both
/// from it, so neither direction breaks.
#[test]
fn integer_keys_to_display_from_str_keys_are_the_same_json() {
    use keys_display::Msg as New;
    use keys_plain::Msg as Old;
    let (old, new) = (
        json_model(keys_plain::SOURCE),
        model("json", "0.2.0", keys_display::SOURCE),
    );
    let entries = |k: u8| std::collections::BTreeMap::from([(k, "x".to_owned())]);
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, None), (NRO, None)],
        (
            &[
                Old { by_id: entries(0) },
                Old {
                    by_id: entries(255),
                },
            ],
            &[
                New { by_id: entries(0) },
                New {
                    by_id: entries(255),
                },
            ],
        ),
    );
}

types!(keys_display_u16 {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "BTreeMap<DisplayFromStr, _>")]
        pub by_id: BTreeMap<u16, String>,
    }
});

/// `u8` keys to `DisplayFromStr` keys over `u16`: old readers reject the keys past 255 (the witness,
/// written by the new release); new readers read every old key.
#[test]
fn integer_keys_to_wider_display_from_str_keys_narrow_for_old_readers() {
    use keys_display_u16::Msg as New;
    use keys_plain::Msg as Old;
    let (old, new) = (
        json_model(keys_plain::SOURCE),
        model("json", "0.2.0", keys_display_u16::SOURCE),
    );
    let entries = |k: u8| std::collections::BTreeMap::from([(k, "x".to_owned())]);
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, Some("map_key_changed")), (NRO, None)],
        (
            &[
                Old { by_id: entries(0) },
                Old {
                    by_id: entries(255),
                },
            ],
            &[],
        ),
    );
}

types!(display_u8 {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DisplayFromStr")]
        pub id: u8,
    }
});

types!(display_u16 {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DisplayFromStr")]
        pub id: u16,
    }
});

/// `DisplayFromStr` over `u8` to over `u16`: old readers reject the text of 256 (the witness, which
/// the new release writes); new readers read every old text.
#[test]
fn display_from_str_widened_narrows_for_old_readers_with_a_number_past_the_old_range() {
    use display_u8::Msg as Old;
    use display_u16::Msg as New;
    let (old, new) = (
        json_model(display_u8::SOURCE),
        model("json", "0.2.0", display_u16::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, Some("value_domain_narrowed")), (NRO, None)],
        (&[Old { id: 0 }, Old { id: u8::MAX }], &[]),
    );
}

// A refined writer nested in another type: its witness is its own sample wherever it sits.

types!(nest_plain {
    #[derive(Serialize, Deserialize, Debug)]
    pub struct Inner {
        pub n: u32,
    }

    #[derive(Serialize, Deserialize, Debug)]
    pub enum Event {
        Count(u32),
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Opt {
        pub v: Option<u32>,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.list", kind = "event")]
    pub struct List {
        pub v: Vec<u32>,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.map", kind = "event")]
    pub struct Dict {
        pub v: BTreeMap<String, u32>,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.field", kind = "event")]
    pub struct Field {
        pub v: Inner,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.payload", kind = "event")]
    pub struct Payload {
        pub v: Event,
    }
});

types!(nest_display {
    #[serde_as]
    #[derive(Serialize, Deserialize, Debug)]
    pub struct Inner {
        #[serde_as(as = "DisplayFromStr")]
        pub n: u32,
    }

    #[serde_as]
    #[derive(Serialize, Deserialize, Debug)]
    pub enum Event {
        Count(#[serde_as(as = "DisplayFromStr")] u32),
    }

    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Opt {
        #[serde_as(as = "Option<DisplayFromStr>")]
        pub v: Option<u32>,
    }

    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.list", kind = "event")]
    pub struct List {
        #[serde_as(as = "Vec<DisplayFromStr>")]
        pub v: Vec<u32>,
    }

    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.map", kind = "event")]
    pub struct Dict {
        #[serde_as(as = "BTreeMap<_, DisplayFromStr>")]
        pub v: BTreeMap<String, u32>,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.field", kind = "event")]
    pub struct Field {
        pub v: Inner,
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.payload", kind = "event")]
    pub struct Payload {
        pub v: Event,
    }
});

/// The first major finding's witness in direction `dir` for the message on `topic` (every message of
/// the two models is compared; the topic picks one).
fn topic_witness(old: &Snapshot, new: &Snapshot, dir: Direction, topic: &str) -> (String, Value) {
    let all = findings(old, new);
    let found = all
        .iter()
        .find(|f| f.level == Level::Major && f.direction == Some(dir) && f.topic == topic)
        .unwrap_or_else(|| panic!("{dir}: no break on {topic}: {all:#?}"));
    match &found.witness {
        Some(w) => (found.rule.as_str().to_owned(), w.clone()),
        None => panic!("a major finding without a witness: {found:#?}"),
    }
}

/// `u32` to `DisplayFromStr` inside an `Option`, a `Vec`, a map's values, a struct's field and an
/// enum's payload: in both directions the break's witness is written by the real writer (the new one
/// writes its sample `"1"`, never the `""` of its base) and rejected by the real reader.
#[test]
fn a_nested_display_from_str_witness_is_written_by_the_real_writer() {
    let (old, new) = (
        json_model(nest_plain::SOURCE),
        model("json", "0.2.0", nest_display::SOURCE),
    );
    macro_rules! both_ways {
        ($ty:ident, $topic:literal) => {{
            let (rule, w) = topic_witness(&old, &new, ONR, $topic);
            assert_eq!(rule, "field_type_changed", "{w}");
            rejected::<nest_display::$ty, nest_plain::$ty>(&w);
            let (rule, w) = topic_witness(&old, &new, NRO, $topic);
            assert_eq!(rule, "field_type_changed", "{w}");
            rejected::<nest_plain::$ty, nest_display::$ty>(&w);
        }};
    }
    both_ways!(Opt, "t.msg");
    both_ways!(List, "t.list");
    both_ways!(Dict, "t.map");
    both_ways!(Field, "t.field");
    both_ways!(Payload, "t.payload");
}

/// `String` to `DisplayFromStr` over `u32`: old readers take the new strings; new readers reject old
/// strings that are no number.
#[test]
fn string_to_display_from_str_narrows_for_new_readers() {
    use display_u32::Msg as New;
    use plain_string::Msg as Old;
    let (old, new) = (
        json_model(plain_string::SOURCE),
        model("json", "0.2.0", display_u32::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, None), (NRO, Some("value_domain_narrowed"))],
        (&[], &[New { id: 7 }, New { id: u32::MAX }]),
    );
}

/// `u32` to `PickFirst<(_, DisplayFromStr)>`: written as before, and read as a number or a string.
#[test]
fn pick_first_keeps_the_number_and_reads_strings_too() {
    use pick_u32::Msg as New;
    use plain_u32::Msg as Old;
    let (old, new) = (
        json_model(plain_u32::SOURCE),
        model("json", "0.2.0", pick_u32::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, None), (NRO, None)],
        (
            &[Old { id: 0 }, Old { id: 9 }],
            &[New { id: 0 }, New { id: 9 }],
        ),
    );
}

/// `Vec<String>` to `OneOrMany<_>`: one element is now written bare, which old readers reject; new
/// readers read old lists.
#[test]
fn one_or_many_writes_a_single_element_bare() {
    use one_or_many::Msg as New;
    use vec_plain::Msg as Old;
    let (old, new) = (
        json_model(vec_plain::SOURCE),
        model("json", "0.2.0", one_or_many::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, Some("field_type_changed")), (NRO, None)],
        (
            &[
                Old { tags: vec![] },
                Old {
                    tags: vec!["a".into()],
                },
                Old {
                    tags: vec!["a".into(), "b".into()],
                },
            ],
            &[],
        ),
    );
}

/// `Option<Option<u32>>` to serde_with's `double_option` (skipped when `None`, with `default`): the
/// same JSON for every value but `Some(None)`, which both read as a `null`.
#[test]
fn double_option_reads_and_writes_like_a_nested_option() {
    use double_option::Msg as New;
    use option_nested::Msg as Old;
    let (old, new) = (
        json_model(option_nested::SOURCE),
        model("json", "0.2.0", double_option::SOURCE),
    );
    verdicts::<Old, New>(
        (&old, &new),
        [(ONR, None), (NRO, None)],
        (
            &[
                Old { patch: None },
                Old {
                    patch: Some(Some(1)),
                },
            ],
            &[
                New { patch: None },
                New { patch: Some(None) },
                New {
                    patch: Some(Some(1)),
                },
            ],
        ),
    );
}

/// serde_with's `With` modules written by hand (`with = "serde_with::As::<...>"`) read as `serde_as`.
#[test]
fn as_written_by_hand_is_the_adapter() {
    let snap = json_model(
        "#[derive(Serialize, Deserialize, Message)]
         #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]
         pub struct Msg {
             #[serde(with = \"serde_with::As::<Vec<DisplayFromStr>>\")]
             pub ids: Vec<u16>,
         }",
    );
    assert!(
        matches!(field_ty(&snap, "ids"), Ty::Seq { elem, .. } if string_of("u16")(&elem)),
        "{}",
        field_ty(&snap, "ids")
    );
}

/// An adapter wirecheck does not model stays custom code, with a note naming it.
#[test]
fn an_unknown_adapter_is_custom_with_a_note() {
    let text = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n\
                #[derive(Protocol)]\n#[wire(name = \"p\", version = \"0.1.0\")]\npub struct P;\n\
                #[serde_with::serde_as]\n#[derive(Serialize, Deserialize, Message)]\n\
                #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\n\
                pub struct Msg {\n    #[serde_as(as = \"EnumMap\")]\n    pub x: Vec<u8>,\n}\n";
    let snap = snapshot_from_sources("case", &[("src/lib.rs", text)]).expect("extracts");
    assert_eq!(snap.notes.len(), 1, "{:#?}", snap.notes);
    assert!(snap.notes[0].message.contains("EnumMap"));
    let def = &snap.types["case::Msg"];
    let wirecheck::model::Body::Struct { fields, .. } = &def.body else {
        unreachable!()
    };
    let custom = fields[0].custom.as_ref().expect("custom");
    assert_eq!(
        custom.de.as_deref(),
        Some("serde_with::As::<EnumMap>::deserialize")
    );
}

// ----- serde_with's time adapters replacing the plain integers they write -----

types!(plain_times {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub timeout: u64,
        pub at: i64,
    }
});

types!(adapted_times {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DurationSeconds<u64>")]
        pub timeout: Duration,
        #[serde_as(as = "TimestampSeconds<i64>")]
        pub at: SystemTime,
    }
});

/// `u64` seconds becoming a `Duration` through `DurationSeconds<u64>`, and `i64` seconds a
/// `SystemTime` through `TimestampSeconds<i64>`: the same integers on the wire, every one read back
/// (the ends of both ranges included), so no break in either direction.
#[test]
fn serde_with_seconds_replace_the_integers_they_write() {
    use adapted_times::Msg as New;
    use plain_times::Msg as Old;
    use std::time::{Duration, UNIX_EPOCH};
    let (old, new) = (
        json_model(plain_times::SOURCE),
        model("json", "0.2.0", adapted_times::SOURCE),
    );
    let olds = [
        Old { timeout: 0, at: 0 },
        Old {
            timeout: u64::MAX,
            at: i64::MAX,
        },
        Old {
            timeout: 30,
            at: i64::MIN,
        },
    ];
    let news = [
        New {
            timeout: Duration::from_secs(30),
            at: UNIX_EPOCH + Duration::from_secs(1_704_164_645),
        },
        New {
            timeout: Duration::from_secs(u64::MAX),
            at: UNIX_EPOCH - Duration::from_secs(2_208_988_800),
        },
    ];
    verdicts::<Old, New>((&old, &new), [(ONR, None), (NRO, None)], (&olds, &news));
}

types!(adapted_millis {
    #[serde_as]
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde_as(as = "DurationMilliSeconds<u64>")]
        pub timeout: Duration,
        #[serde_as(as = "TimestampSeconds<i64>")]
        pub at: SystemTime,
    }
});

/// The unit still counts: seconds read as milliseconds are another duration (a misread the same
/// integers hide), so the plain integers' whole range does not make the units alike.
#[test]
fn serde_with_seconds_and_milliseconds_stay_apart() {
    let (seconds, millis) = (
        json_model(adapted_times::SOURCE),
        model("json", "0.2.0", adapted_millis::SOURCE),
    );
    let found = findings(&seconds, &millis);
    assert!(
        found
            .iter()
            .any(|f| f.level == wirecheck::findings::Level::Major
                && f.field.as_deref() == Some("timeout")),
        "{found:#?}"
    );
}
