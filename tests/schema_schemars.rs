//! `wirecheck schema` against schemars, the ecosystem's schema derive, and against serde_json itself, on
//! types both support: structs with options, defaults, renames, aliases, skipped keys and
//! `deny_unknown_fields`, enums in each of serde's four representations, flattened structs and maps.
//!
//! The types are compiled here (serde, schemars and wirecheck's derives) and the same source is read by
//! wirecheck's extraction (`declared!` keeps both). Payloads of real values, serialized by serde_json,
//! validate against schemars' schema and against wirecheck's writer and reader schemas; payloads mutated
//! from them (a key removed, an unknown key, a value of another type) validate against wirecheck's reader
//! schema exactly when serde_json deserializes them.
#![cfg(feature = "checker")]
#![allow(missing_docs, dead_code)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use wirecheck::Format;
use wirecheck::model::Snapshot;
use wirecheck::schema::{SchemaRole, type_schema};

macro_rules! declared {
    ($($item:item)*) => {
        $($item)*
        /// The items above, as wirecheck's extraction reads them.
        const SOURCE: &str = stringify!($($item)*);
    };
}

declared! {
    use serde::{Deserialize, Serialize};
    use wirecheck::{Message, Protocol};

    #[derive(Protocol)]
    #[wire(name = "types", version = "0.1.0")]
    pub struct Types;

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "plain", kind = "event")]
    pub struct Plain {
        pub id: u32,
        #[serde(rename = "label")]
        pub name: String,
        pub note: Option<String>,
        #[serde(default)]
        pub retries: u8,
        #[serde(alias = "size")]
        pub count: i64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub tags: Vec<String>,
        pub weight: f64,
        pub pair: (bool, u16),
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "strict", kind = "event")]
    #[serde(deny_unknown_fields)]
    pub struct Strict {
        pub id: u64,
        pub flag: Option<bool>,
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "external", kind = "event")]
    pub enum External {
        Unit,
        Newtype(u32),
        Tuple(String, i8),
        Struct { a: u8, b: Option<String> },
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "internal", kind = "event")]
    #[serde(tag = "type", rename_all = "snake_case")]
    pub enum Internal {
        Started { at: u64 },
        Held(Hold),
        Stopped,
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
    pub struct Hold {
        pub reason: String,
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "adjacent", kind = "event")]
    #[serde(tag = "t", content = "c")]
    pub enum Adjacent {
        Ping,
        Count(u16),
        Move { x: i32, y: i32 },
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "untagged", kind = "event")]
    #[serde(untagged)]
    pub enum Untagged {
        Number(u64),
        Text(String),
        Point { x: i64, y: i64 },
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "flattened", kind = "event")]
    pub struct Flattened {
        pub id: u32,
        #[serde(flatten)]
        pub common: Common,
        #[serde(flatten)]
        pub extra: std::collections::BTreeMap<String, u32>,
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
    pub struct Common {
        pub host: String,
        #[serde(default)]
        pub rank: u32,
    }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Types, topic = "by-u8", kind = "event")]
    pub struct ByU8 {
        pub map: std::collections::BTreeMap<u8, bool>,
    }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Types, topic = "by-i16", kind = "event")]
    pub struct ByI16 {
        pub map: std::collections::BTreeMap<i16, bool>,
    }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Types, topic = "by-u64", kind = "event")]
    pub struct ByU64 {
        pub map: std::collections::BTreeMap<u64, bool>,
    }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Types, topic = "by-i64", kind = "event")]
    pub struct ByI64 {
        pub map: std::collections::BTreeMap<i64, bool>,
    }

    #[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, Message)]
    #[wire(protocol = Types, topic = "nested", kind = "event")]
    pub struct Nested {
        pub events: Vec<External>,
        pub by_name: std::collections::BTreeMap<String, Option<Internal>>,
        pub last: Option<Box<Nested>>,
    }
}

fn model() -> Snapshot {
    wirecheck::extract::snapshot_from_sources("types", &[("src/lib.rs", SOURCE)])
        .expect("the declared types extract")
}

fn compile(schema: &Value, what: &str) -> jsonschema::Validator {
    if let Err(e) = jsonschema::meta::validate(schema) {
        panic!("{what}: not a valid JSON Schema: {e}");
    }
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what}: does not compile: {e}"))
}

/// What the checks of one type counted.
#[derive(Default, Debug)]
struct Counts {
    sampled: usize,
    mutated: usize,
    mutated_rejected: usize,
}

/// Payloads near `payload`: each key removed, an unknown key added, each value (and the whole) replaced
/// by values of other JSON types.
fn mutations(payload: &Value) -> Vec<Value> {
    let others = [
        json!(null),
        json!("x"),
        json!(-1),
        json!(1.5),
        json!([]),
        json!({}),
    ];
    let mut out: Vec<Value> = others.to_vec();
    match payload {
        Value::Object(map) => {
            let mut extra = map.clone();
            extra.insert("zz_unknown".to_owned(), json!(1));
            out.push(Value::Object(extra));
            for key in map.keys() {
                let mut without = map.clone();
                without.remove(key);
                out.push(Value::Object(without));
                for other in &others {
                    let mut changed = map.clone();
                    changed.insert(key.clone(), other.clone());
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            out.push(Value::Array(items.iter().skip(1).cloned().collect()));
            let mut longer = items.clone();
            longer.push(json!(0));
            out.push(Value::Array(longer));
        }
        _ => {}
    }
    out
}

/// Checks `T` against the model's schemas of the message named `name`.
fn check<T: Serialize + DeserializeOwned + JsonSchema>(
    model: &Snapshot,
    name: &str,
    values: &[T],
) -> Counts {
    let message = model
        .messages
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no message {name}"));
    let ours = |role| {
        let schema = type_schema(model, Format::Json, &message.rust_path, role, "urn:test")
            .expect("a JSON protocol");
        compile(&schema, &format!("{name} {role:?}"))
    };
    let (writer, reader) = (ours(SchemaRole::Writer), ours(SchemaRole::Reader));
    let theirs = serde_json::to_value(schemars::schema_for!(T)).expect("schemars' schema");
    let theirs = compile(&theirs, &format!("{name} schemars"));
    let mut counts = Counts::default();
    for value in values {
        let payload = serde_json::to_value(value).expect("serializes");
        for (who, validator) in [
            ("schemars", &theirs),
            ("writer", &writer),
            ("reader", &reader),
        ] {
            if let Err(e) = validator.validate(&payload) {
                panic!("{name}: {payload} (a real value) fails {who}'s schema: {e}");
            }
        }
        counts.sampled += 1;
        for mutated in mutations(&payload) {
            let decodes = serde_json::from_str::<T>(&mutated.to_string()).is_ok();
            assert_eq!(
                reader.is_valid(&mutated),
                decodes,
                "{name}: {mutated}: serde_json {} it, wirecheck's reader schema disagrees",
                if decodes { "reads" } else { "rejects" }
            );
            counts.mutated += 1;
            counts.mutated_rejected += usize::from(!decodes);
        }
    }
    counts
}

#[test]
fn schemas_agree_with_schemars_and_serde_json() {
    let model = model();
    let plain = |note: Option<&str>, tags: Vec<&str>| Plain {
        id: 7,
        name: "n".into(),
        note: note.map(Into::into),
        retries: 2,
        count: -3,
        tags: tags.into_iter().map(Into::into).collect(),
        weight: 0.5,
        pair: (true, 9),
    };
    let hold = || Hold { reason: "r".into() };
    let mut all = BTreeMap::new();
    all.insert(
        "Plain",
        check(
            &model,
            "Plain",
            &[plain(None, vec![]), plain(Some("x"), vec!["a", "b"])],
        ),
    );
    all.insert(
        "Strict",
        check(
            &model,
            "Strict",
            &[
                Strict { id: 1, flag: None },
                Strict {
                    id: 2,
                    flag: Some(true),
                },
            ],
        ),
    );
    all.insert(
        "External",
        check(
            &model,
            "External",
            &[
                External::Unit,
                External::Newtype(4),
                External::Tuple("t".into(), -2),
                External::Struct { a: 1, b: None },
                External::Struct {
                    a: 2,
                    b: Some("s".into()),
                },
            ],
        ),
    );
    all.insert(
        "Internal",
        check(
            &model,
            "Internal",
            &[
                Internal::Started { at: 5 },
                Internal::Held(hold()),
                Internal::Stopped,
            ],
        ),
    );
    all.insert(
        "Adjacent",
        check(
            &model,
            "Adjacent",
            &[
                Adjacent::Ping,
                Adjacent::Count(3),
                Adjacent::Move { x: -1, y: 2 },
            ],
        ),
    );
    all.insert(
        "Untagged",
        check(
            &model,
            "Untagged",
            &[
                Untagged::Number(8),
                Untagged::Text("w".into()),
                Untagged::Point { x: 1, y: -1 },
            ],
        ),
    );
    let common = || Common {
        host: "h".into(),
        rank: 3,
    };
    all.insert(
        "Flattened",
        check(
            &model,
            "Flattened",
            &[
                Flattened {
                    id: 1,
                    common: common(),
                    extra: BTreeMap::new(),
                },
                Flattened {
                    id: 2,
                    common: common(),
                    extra: BTreeMap::from([("more".to_owned(), 4)]),
                },
            ],
        ),
    );
    let inner = Nested {
        events: vec![External::Unit],
        by_name: BTreeMap::new(),
        last: None,
    };
    all.insert(
        "Nested",
        check(
            &model,
            "Nested",
            &[Nested {
                events: vec![External::Newtype(1), External::Struct { a: 3, b: None }],
                by_name: BTreeMap::from([
                    ("a".to_owned(), Some(Internal::Stopped)),
                    ("b".to_owned(), None),
                ]),
                last: Some(Box::new(inner)),
            }],
        ),
    );
    let sampled: usize = all.values().map(|c| c.sampled).sum();
    let mutated: usize = all.values().map(|c| c.mutated).sum();
    let rejected: usize = all.values().map(|c| c.mutated_rejected).sum();
    assert!(all.values().all(|c| c.mutated_rejected > 0), "{all:?}");
    eprintln!(
        "{sampled} real payloads accepted by schemars and wirecheck; {mutated} mutated payloads judged as serde_json judges them ({rejected} rejected)"
    );
}

/// Integer map keys: serde_json writes them in decimal and reads the key text as a JSON integer of the
/// key type's range; the schemas' key patterns say the same, key by key.
#[test]
fn integer_keys_read_as_serde_json_reads_them() {
    fn keys<K: DeserializeOwned + Ord>(name: &str, model: &Snapshot, texts: &[&str]) -> usize {
        let message = model.messages.iter().find(|m| m.name == name).expect(name);
        let mut checked = 0;
        for role in [SchemaRole::Writer, SchemaRole::Reader] {
            let schema = type_schema(model, Format::Json, &message.rust_path, role, "urn:test")
                .expect("a JSON protocol");
            let validator = compile(&schema, name);
            for text in texts {
                let payload = format!(r#"{{"map": {{"{text}": true}}}}"#);
                let decodes = serde_json::from_str::<KeyedBy<K>>(&payload).is_ok();
                let value: Value = serde_json::from_str(&payload).unwrap();
                assert_eq!(
                    validator.is_valid(&value),
                    decodes,
                    "{name} {role:?}: key {text:?}"
                );
                checked += 1;
            }
        }
        checked
    }
    let model = model();
    let texts = [
        "0",
        "1",
        "9",
        "10",
        "99",
        "100",
        "127",
        "128",
        "199",
        "200",
        "249",
        "250",
        "255",
        "256",
        "260",
        "300",
        "999",
        "1000",
        "-0",
        "-1",
        "-9",
        "-10",
        "-99",
        "-127",
        "-128",
        "-129",
        "-200",
        "+5",
        "007",
        "00",
        "1.0",
        "1e2",
        " 1",
        "x",
        "",
        "32767",
        "32768",
        "-32768",
        "-32769",
        "65535",
        "65536",
        "18446744073709551615",
        "18446744073709551616",
        "9223372036854775807",
        "-9223372036854775808",
        "-9223372036854775809",
    ];
    let checked = keys::<u8>("ByU8", &model, &texts)
        + keys::<i16>("ByI16", &model, &texts)
        + keys::<u64>("ByU64", &model, &texts)
        + keys::<i64>("ByI64", &model, &texts);
    assert_eq!(checked, 8 * texts.len());
}

/// A map of `K` keys, as the `By*` messages declare it.
#[derive(serde::Deserialize)]
struct KeyedBy<K: Ord> {
    map: BTreeMap<K, bool>,
}
