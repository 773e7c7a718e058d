#![cfg(feature = "checker")]
//! A field's own `with` / `serialize_with` / `deserialize_with` functions, and types validated by a
//! fallible `try_from`, checked against real serde_json with the real functions.
//!
//! Each case declares real Rust types and functions once, inside `types!`: the macro compiles them
//! and hands their tokens (`stringify!`) to `wirecheck::extract::snapshot_from_sources`, so the model
//! is extracted from exactly the code that encodes. A major finding's witness must be written by the
//! real writer (it decodes into the writer's type and encodes back to itself) and rejected by the
//! real reader; a break the engine gives no witness for must be one where no value is known to be
//! written; a direction it calls compatible must read real values of the writer's type.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::model::Snapshot;
use wirecheck::rules::RuleId;

/// The protocol the compiled case types name.
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0")]
pub struct P;

/// `types!(name { items })`: compiles `items` as the module `name` and keeps their text as
/// `name::SOURCE`.
macro_rules! types {
    ($name:ident { $($items:tt)* }) => {
        #[allow(dead_code, unused_imports)]
        mod $name {
            use crate::P;
            use serde::{Deserialize, Deserializer, Serialize, Serializer};
            use std::time::{Duration, SystemTime, UNIX_EPOCH};
            use wirecheck::Message;
            $($items)*
            /// The items as source text, for the extraction.
            pub const SOURCE: &str = stringify!($($items)*);
        }
    };
}

/// The model of a case's items.
fn model(items: &str) -> Snapshot {
    let text = format!(
        "use serde::{{Deserialize, Deserializer, Serialize, Serializer}};\n\
         use std::time::{{Duration, SystemTime, UNIX_EPOCH}};\n\
         use wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"0.1.0\")]\npub struct P;\n\n{items}\n"
    );
    match snapshot_from_sources("case", &[("src/lib.rs", text.as_str())]) {
        Ok(snap) => snap,
        Err(e) => panic!("{e}\n{text}"),
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

/// Real values of the writer `W`, at least one of which the reader `R` rejects.
fn some_rejected<W: Serialize, R: DeserializeOwned>(values: &[W]) {
    let rejected = values.iter().any(|w| {
        let v = serde_json::to_value(w).expect("serializes");
        decode::<R>(&v).is_err()
    });
    assert!(rejected, "the reader reads every value written");
}

fn findings(old: &str, new: &str) -> Vec<Finding> {
    let (old, new) = (model(old), model(new));
    let all = compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full);
    for f in all.iter().filter(|f| f.level == Level::Major) {
        if let (Some(dir), Some(witness)) = (f.direction, &f.witness) {
            against_schemas((&old, &new), dir, f.rule, witness);
        }
    }
    all
}

/// `wirecheck schema` agrees with a witness: it validates against the writer's schema and, when the
/// rule's evidence is a rejection outside code wirecheck does not read, fails the reader's.
fn against_schemas((old, new): (&Snapshot, &Snapshot), dir: Direction, rule: RuleId, w: &Value) {
    use wirecheck::schema::{SchemaRole, message_schema};
    let (writer, reader) = match dir {
        Direction::OldReadsNew => (new, old),
        Direction::NewReadsOld => (old, new),
    };
    let validator = |snap: &Snapshot, role| {
        let schema = message_schema(snap, &snap.messages[0], role).expect("a JSON protocol");
        (
            jsonschema::validator_for(&schema).expect("the schema compiles"),
            schema,
        )
    };
    let (writes, _) = validator(writer, SchemaRole::Writer);
    if let Err(e) = writes.validate(w) {
        panic!("the witness {w} ({rule}) fails the writer's schema: {e}");
    }
    let (reads, reader_schema) = validator(reader, SchemaRole::Reader);
    // A reader through a fallible `try_from` or a function wirecheck does not read rejects values its
    // schema takes, and says so.
    let said = reader_schema.to_string();
    let opaque = ["may reject", "does not read", "cannot say"]
        .iter()
        .any(|w| said.contains(w));
    let rejection = rule.rule().evidence == wirecheck::rules::Evidence::Rejected;
    if rejection && !opaque && reads.is_valid(w) {
        panic!("the witness {w} ({rule}) is rejected by the reader, not by its schema");
    }
}

/// The major findings in direction `dir` (and those for both directions).
fn majors(all: &[Finding], dir: Direction) -> Vec<&Finding> {
    all.iter()
        .filter(|f| f.level == Level::Major && f.direction.is_none_or(|d| d == dir))
        .collect()
}

const ONR: Direction = Direction::OldReadsNew;
const NRO: Direction = Direction::NewReadsOld;

// ----- a SystemTime written as float seconds -----

types!(time_derived {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub at: SystemTime,
    }
});

types!(time_float {
    mod ts {
        use super::*;
        pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
            let secs = t
                .duration_since(UNIX_EPOCH)
                .map_err(serde::ser::Error::custom)?
                .as_secs_f64();
            s.serialize_f64(secs)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
            let secs = f64::deserialize(d)?;
            Ok(UNIX_EPOCH + Duration::from_secs_f64(secs))
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "ts")]
        pub at: SystemTime,
    }
});

// The same functions in a module of helpers, reached by a path through `self`, and moved.
types!(time_float_moved {
    pub mod helpers {
        pub mod ts {
            use serde::{Deserialize, Deserializer, Serializer};
            use std::time::{Duration, SystemTime, UNIX_EPOCH};
            pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
                let secs = t
                    .duration_since(UNIX_EPOCH)
                    .map_err(serde::ser::Error::custom)?
                    .as_secs_f64();
                s.serialize_f64(secs)
            }
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
                let secs = f64::deserialize(d)?;
                Ok(UNIX_EPOCH + Duration::from_secs_f64(secs))
            }
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "self::helpers::ts")]
        pub at: SystemTime,
    }
});

fn times() -> Vec<std::time::SystemTime> {
    let epoch = std::time::UNIX_EPOCH;
    vec![epoch, epoch + std::time::Duration::from_millis(1_500)]
}

#[test]
fn a_time_written_as_float_seconds_is_a_number() {
    let all = findings(time_derived::SOURCE, time_float::SOURCE);
    for (dir, writer_is_new) in [(ONR, true), (NRO, false)] {
        let found = majors(&all, dir);
        assert!(!found.is_empty(), "{dir}: {all:#?}");
        for finding in found {
            let w = finding.witness.as_ref().expect("a witness");
            if writer_is_new {
                rejected::<time_float::Msg, time_derived::Msg>(w);
            } else {
                rejected::<time_derived::Msg, time_float::Msg>(w);
            }
        }
    }
    let time = times()[1];
    let written = serde_json::to_value(time_float::Msg { at: time }).expect("serializes");
    assert_eq!(written, json!({"at": 1.5}));
}

#[test]
fn the_same_functions_found_by_another_path_are_no_change() {
    let all = findings(time_float::SOURCE, time_float_moved::SOURCE);
    assert!(all.is_empty(), "{all:#?}");
    let values: Vec<_> = times()
        .into_iter()
        .map(|at| time_float::Msg { at })
        .collect();
    reads_all::<time_float::Msg, time_float_moved::Msg>(&values);
}

// ----- an id written as text, then as a number -----

types!(id_text {
    mod as_text {
        use super::*;
        pub fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&id.to_string())
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            let text = String::deserialize(d)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "as_text")]
        pub id: u64,
    }
});

types!(id_number {
    mod as_number {
        use super::*;
        pub fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_u64(*id)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            u64::deserialize(d)
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "as_number")]
        pub id: u64,
    }
});

// The text functions of `id_text`, the serializer changed to write hex.
types!(id_hex {
    mod as_text {
        use super::*;
        pub fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{id:x}"))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            let text = String::deserialize(d)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "as_text")]
        pub id: u64,
    }
});

#[test]
fn text_to_number_through_functions_is_a_break_both_ways() {
    let all = findings(id_text::SOURCE, id_number::SOURCE);
    // Old reads new: the new writer writes a number, the old reader parses a string.
    let witnessed: Vec<&Value> = majors(&all, ONR)
        .into_iter()
        .filter_map(|f| f.witness.as_ref())
        .collect();
    assert!(!witnessed.is_empty(), "{all:#?}");
    for witness in witnessed {
        rejected::<id_number::Msg, id_text::Msg>(witness);
    }
    // New reads old: the old writer writes text no model can sample (`id.to_string()`): a break
    // without a witness, and a real one.
    let found = majors(&all, NRO);
    assert!(!found.is_empty(), "{all:#?}");
    assert!(found.iter().all(|f| f.witness.is_none()), "{found:#?}");
    some_rejected::<id_text::Msg, id_number::Msg>(&[id_text::Msg { id: 7 }]);
}

#[test]
fn functions_not_read_exactly_are_compared_by_their_source() {
    // Unchanged: nothing.
    assert!(findings(id_text::SOURCE, id_text::SOURCE).is_empty());
    // The serializer changed, the deserializer did not: one finding where the new release writes,
    // naming both functions, and without a witness.
    let all = findings(id_text::SOURCE, id_hex::SOURCE);
    let changed: Vec<&Finding> = all
        .iter()
        .filter(|f| f.rule == RuleId::SerdeImplChanged)
        .collect();
    assert_eq!(changed.len(), 1, "{all:#?}");
    assert_eq!(changed[0].direction, Some(ONR));
    assert!(changed[0].witness.is_none());
    assert!(
        changed[0].message.contains("case::as_text::serialize"),
        "{}",
        changed[0].message
    );
    assert!(all.iter().all(|f| f.direction != Some(NRO)), "{all:#?}");
    // And the change is real: the old reader rejects what the new writer writes.
    some_rejected::<id_hex::Msg, id_text::Msg>(&[id_hex::Msg { id: 255 }]);
}

// ----- a type validated by a fallible `try_from` -----

types!(hex_u32 {
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[serde(try_from = "String", into = "String")]
    pub struct TraceId(String);

    impl TryFrom<String> for TraceId {
        type Error = String;
        fn try_from(text: String) -> Result<Self, String> {
            if text.len() == 16 && text.chars().all(|c| c.is_ascii_hexdigit()) {
                Ok(TraceId(text))
            } else {
                Err(format!("not 16 hex digits: {text:?}"))
            }
        }
    }

    impl From<TraceId> for String {
        fn from(id: TraceId) -> String {
            id.0
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub trace: TraceId,
        pub n: u32,
    }
});

types!(hex_u16 {
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[serde(try_from = "String", into = "String")]
    pub struct TraceId(String);

    impl TryFrom<String> for TraceId {
        type Error = String;
        fn try_from(text: String) -> Result<Self, String> {
            if text.len() == 16 && text.chars().all(|c| c.is_ascii_hexdigit()) {
                Ok(TraceId(text))
            } else {
                Err(format!("not 16 hex digits: {text:?}"))
            }
        }
    }

    impl From<TraceId> for String {
        fn from(id: TraceId) -> String {
            id.0
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub trace: TraceId,
        pub n: u16,
    }
});

#[test]
fn no_witness_is_sampled_through_a_validating_try_from() {
    let all = findings(hex_u32::SOURCE, hex_u16::SOURCE);
    let found = majors(&all, NRO);
    assert!(!found.is_empty(), "{all:#?}");
    for finding in found {
        // `{"trace":"","n":...}` would be no payload the old writer writes: the writer's values of
        // the validated type are unknown, so the finding has none and says why.
        assert!(finding.witness.is_none(), "{finding:#?}");
        assert!(finding.message.contains("TraceId"), "{}", finding.message);
    }
    assert!(decode::<hex_u32::Msg>(&json!({"trace": "", "n": 70000})).is_err());
    // The break is real, with a value the writer writes.
    let trace = hex_u32::TraceId::try_from("00000000000000ff".to_owned()).expect("valid");
    some_rejected::<hex_u32::Msg, hex_u16::Msg>(&[hex_u32::Msg { trace, n: 70_000 }]);
}

// ----- a map written through a function that sorts it first -----

types!(map_derived {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        pub features: std::collections::HashMap<String, Vec<String>>,
    }
});

types!(map_sorted {
    use std::collections::{BTreeMap, HashMap};

    fn sorted_map<S: Serializer, K: Serialize + Ord, V: Serialize>(
        value: &HashMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value
            .iter()
            .collect::<BTreeMap<_, _>>()
            .serialize(serializer)
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(serialize_with = "sorted_map")]
        pub features: HashMap<String, Vec<String>>,
    }
});

// The same, the sorted map a `let` of its type.
types!(map_sorted_let {
    use std::collections::{BTreeMap, HashMap};

    fn sorted_map<S: Serializer, K: Serialize + Ord, V: Serialize>(
        value: &HashMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let sorted: BTreeMap<_, _> = value.iter().collect();
        Serialize::serialize(&sorted, serializer)
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(serialize_with = "sorted_map")]
        pub features: HashMap<String, Vec<String>>,
    }
});

// The same in a file that invokes a `macro_rules!` of its own (such a file is parsed whole, not
// item by item): its functions are found all the same.
types!(map_sorted_macro {
    use std::collections::{BTreeMap, HashMap};

    macro_rules! version {
        ($name:ident = $value:expr) => {
            pub const $name: u32 = $value;
        };
    }

    version!(VERSION = 3);

    fn sorted_map<S: Serializer, K: Serialize + Ord, V: Serialize>(
        value: &HashMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value
            .iter()
            .collect::<BTreeMap<_, _>>()
            .serialize(serializer)
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(serialize_with = "sorted_map")]
        pub features: HashMap<String, Vec<String>>,
    }
});

// The map's entries written as a list of pairs.
types!(map_as_pairs {
    use std::collections::HashMap;

    fn pairs<S: Serializer>(
        value: &HashMap<String, Vec<String>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.iter().collect::<Vec<_>>().serialize(serializer)
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(serialize_with = "pairs")]
        pub features: HashMap<String, Vec<String>>,
    }
});

fn feature_maps() -> Vec<std::collections::HashMap<String, Vec<String>>> {
    let mut full = std::collections::HashMap::new();
    full.insert("default".to_owned(), vec!["std".to_owned()]);
    full.insert("std".to_owned(), Vec::new());
    vec![std::collections::HashMap::new(), full]
}

#[test]
fn a_map_sorted_before_it_is_written_is_the_same_map() {
    for sorted in [
        map_sorted::SOURCE,
        map_sorted_let::SOURCE,
        map_sorted_macro::SOURCE,
    ] {
        let there = findings(map_derived::SOURCE, sorted);
        assert!(there.is_empty(), "{there:#?}");
        let back = findings(sorted, map_derived::SOURCE);
        assert!(back.is_empty(), "{back:#?}");
    }
    let derived: Vec<_> = feature_maps()
        .into_iter()
        .map(|features| map_derived::Msg { features })
        .collect();
    let sorted: Vec<_> = feature_maps()
        .into_iter()
        .map(|features| map_sorted::Msg { features })
        .collect();
    let sorted_let: Vec<_> = feature_maps()
        .into_iter()
        .map(|features| map_sorted_let::Msg { features })
        .collect();
    reads_all::<map_derived::Msg, map_sorted::Msg>(&derived);
    reads_all::<map_sorted::Msg, map_derived::Msg>(&sorted);
    reads_all::<map_sorted_let::Msg, map_derived::Msg>(&sorted_let);
}

#[test]
fn a_map_written_as_a_list_of_pairs_is_a_break() {
    let all = findings(map_derived::SOURCE, map_as_pairs::SOURCE);
    let found = majors(&all, ONR);
    assert!(!found.is_empty(), "{all:#?}");
    let witnessed: Vec<&Value> = found.iter().filter_map(|f| f.witness.as_ref()).collect();
    assert!(!witnessed.is_empty(), "{found:#?}");
    for witness in witnessed {
        // Only the new writer's serializer is custom: check it writes the witness by encoding a
        // value of the map the witness's pairs make, then that the old reader rejects it.
        let pairs = &witness["features"];
        let map: std::collections::HashMap<String, Vec<String>> =
            serde_json::from_value(serde_json::Value::Object(
                pairs
                    .as_array()
                    .expect("a list of pairs")
                    .iter()
                    .map(|pair| (pair[0].as_str().expect("a key").to_owned(), pair[1].clone()))
                    .collect(),
            ))
            .expect("the pairs make a map");
        let written = serde_json::to_value(map_as_pairs::Msg { features: map }).expect("writes");
        assert_eq!(&written, witness, "the writer does not emit the witness");
        assert!(decode::<map_derived::Msg>(witness).is_err(), "{witness}");
    }
}

// ----- a map read through a visitor the checker cannot read, its value type grown -----

macro_rules! contexts_case {
    ($name:ident { $($ctx:tt)* }) => {
        types!($name {
            use std::collections::BTreeMap;

            #[derive(Serialize, Deserialize, Debug, PartialEq)]
            pub struct Ctx { $($ctx)* }

            struct ContextsVisitor;

            impl<'de> serde::de::Visitor<'de> for ContextsVisitor {
                type Value = BTreeMap<String, Ctx>;

                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("contexts")
                }

                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                    let mut map = BTreeMap::new();
                    while let Some((key, value)) = access.next_entry::<String, serde_json::Value>()? {
                        let value = serde_json::from_value(value).map_err(serde::de::Error::custom)?;
                        map.insert(key, value);
                    }
                    Ok(map)
                }
            }

            fn deserialize_contexts<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Ctx>, D::Error> {
                d.deserialize_map(ContextsVisitor)
            }

            #[derive(Serialize, Deserialize, Message, Debug)]
            #[wire(protocol = P, topic = "t.msg", kind = "event")]
            pub struct Msg {
                #[serde(deserialize_with = "deserialize_contexts")]
                pub contexts: BTreeMap<String, Ctx>,
            }
        });
    };
}

contexts_case!(contexts_old { pub name: String });
contexts_case!(contexts_grown { pub name: String, #[serde(default)] pub build: Option<u32> });

#[test]
fn a_visitor_not_read_whose_value_type_grew_is_one_change_of_unread_code() {
    assert!(findings(contexts_old::SOURCE, contexts_old::SOURCE).is_empty());
    // The visitor is not read (it converts each value through `serde_json::Value`), so what it
    // accepts of the grown type is unknown: in each direction, one change of unread code, named by
    // its function, never a "type of another crate" compared by path, and no witness.
    let all = findings(contexts_old::SOURCE, contexts_grown::SOURCE);
    for dir in [ONR, NRO] {
        let found: Vec<&Finding> = all.iter().filter(|f| f.direction == Some(dir)).collect();
        assert_eq!(found.len(), 1, "{dir}: {all:#?}");
        assert_eq!(found[0].rule, RuleId::SerdeImplChanged, "{all:#?}");
        assert!(found[0].witness.is_none());
        assert!(
            found[0].message.contains("deserialize_contexts"),
            "{}",
            found[0].message
        );
    }
}

// ----- a newtype variant's own functions -----

types!(variant_number {
    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub enum Msg {
        Id(u64),
        Name(String),
    }
});

types!(variant_float {
    mod as_float {
        use super::*;
        pub fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(*id as f64)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            let value = f64::deserialize(d)?;
            Ok(value as u64)
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub enum Msg {
        #[serde(with = "as_float")]
        Id(u64),
        Name(String),
    }
});

// The same functions, exactly `u64`'s own: no change from the derived variant.
types!(variant_same {
    mod plain {
        use super::*;
        pub fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_u64(*id)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            u64::deserialize(d)
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub enum Msg {
        #[serde(with = "plain")]
        Id(u64),
        Name(String),
    }
});

#[test]
fn a_newtype_variants_functions_are_read_like_a_fields() {
    let same = findings(variant_number::SOURCE, variant_same::SOURCE);
    assert!(same.is_empty(), "{same:#?}");
    reads_all::<variant_number::Msg, variant_same::Msg>(&[variant_number::Msg::Id(7)]);
    reads_all::<variant_same::Msg, variant_number::Msg>(&[variant_same::Msg::Id(7)]);

    // A float where an integer was: the old reader rejects what the new writer writes.
    let all = findings(variant_number::SOURCE, variant_float::SOURCE);
    let found = majors(&all, ONR);
    assert!(!found.is_empty(), "{all:#?}");
    assert!(
        all.iter().all(|f| f.rule != RuleId::CustomSerdeChanged),
        "{all:#?}"
    );
    for witness in found.iter().filter_map(|f| f.witness.as_ref()) {
        rejected::<variant_float::Msg, variant_number::Msg>(witness);
    }
    some_rejected::<variant_float::Msg, variant_number::Msg>(&[variant_float::Msg::Id(7)]);
}

// ----- bytes written through one text encoding, then another -----

types!(bytes_decimal {
    mod decimal {
        use super::*;
        #[allow(clippy::ptr_arg, reason = "serde hands a `with` function the field as `&T`")]
        pub fn serialize<S: Serializer>(bytes: &Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
            let text: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
            s.serialize_str(&text.join(","))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            let text = String::deserialize(d)?;
            text.split(',')
                .filter(|part| !part.is_empty())
                .map(|part| part.parse::<u8>().map_err(serde::de::Error::custom))
                .collect()
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "decimal")]
        pub data: Vec<u8>,
    }
});

types!(bytes_hex {
    mod hex {
        use super::*;
        #[allow(clippy::ptr_arg, reason = "serde hands a `with` function the field as `&T`")]
        pub fn serialize<S: Serializer>(bytes: &Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
            let text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            s.serialize_str(&text)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            let text = String::deserialize(d)?;
            (0..text.len())
                .step_by(2)
                .map(|i| {
                    let pair = text.get(i..i + 2).ok_or_else(|| serde::de::Error::custom("odd"))?;
                    u8::from_str_radix(pair, 16).map_err(serde::de::Error::custom)
                })
                .collect()
        }
    }

    #[derive(Serialize, Deserialize, Message, Debug)]
    #[wire(protocol = P, topic = "t.msg", kind = "event")]
    pub struct Msg {
        #[serde(with = "hex")]
        pub data: Vec<u8>,
    }
});

#[test]
fn another_text_encoding_through_other_functions_is_a_break_both_ways() {
    let all = findings(bytes_decimal::SOURCE, bytes_hex::SOURCE);
    for dir in [ONR, NRO] {
        let found = majors(&all, dir);
        assert!(!found.is_empty(), "{dir}: {all:#?}");
        // The text either encoding writes is not known: no witness is made up.
        assert!(found.iter().all(|f| f.witness.is_none()), "{found:#?}");
    }
    // Real: each reader rejects what the other writer writes.
    some_rejected::<bytes_hex::Msg, bytes_decimal::Msg>(&[bytes_hex::Msg {
        data: vec![1, 2, 3],
    }]);
    some_rejected::<bytes_decimal::Msg, bytes_hex::Msg>(&[bytes_decimal::Msg {
        data: vec![1, 2, 3],
    }]);
}
