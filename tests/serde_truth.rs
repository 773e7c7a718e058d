#![cfg(feature = "checker")]
//! The engine's verdicts checked against real serde: for each rule, real `old` and `new` Rust types, a
//! hand-built model that mirrors them, and the witness the engine produces for the model. The witness
//! must be something the writer's type really emits (it round-trips through the writer's type), and the
//! reader's type must really reject it with serde_json (or misread it, for the misread rules). A payload
//! of the other direction must decode, where the engine says that direction works.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::model::{
    Body, Custom, EnumRepr, Field, Location, Proxy, SkipSer, Snapshot, Style, Ty, TypeDef,
};
use wirecheck::rules::RuleId;
use wirecheck::{Format, Kind, Upgrade};

// ----- the model side: the engine's own test builders (compat/src/compat/tests/build.rs) -----

#[path = "../compat/src/compat/tests/build.rs"]
#[allow(dead_code)]
mod build;
use build::*;

fn findings(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    compare_protocol(old, new, "p", "v0", Scope::Full)
}

/// The witness of the major finding `rule` in direction `dir`.
fn witness(old: &Snapshot, new: &Snapshot, rule: &str, dir: Direction) -> Value {
    let all = findings(old, new);
    let found = all
        .iter()
        .find(|f| f.rule.as_str() == rule && f.level == Level::Major && f.direction == Some(dir));
    match found.and_then(|f| f.witness.clone()) {
        Some(w) => {
            against_schemas(old, new, found.map(|f| f.rule), dir, &w);
            w
        }
        None => panic!("no major {rule} ({dir}) with a witness in {all:#?}"),
    }
}

/// `wirecheck schema` agrees with the witness: it validates against the writer's schema of the message
/// and, when the rule's evidence is a rejection, fails the reader's.
fn against_schemas(
    old: &Snapshot,
    new: &Snapshot,
    rule: Option<RuleId>,
    dir: Direction,
    w: &Value,
) {
    use wirecheck::schema::{SchemaRole, message_schema};
    let (writer, reader) = match dir {
        Direction::OldReadsNew => (new, old),
        Direction::NewReadsOld => (old, new),
    };
    let validator = |model: &Snapshot, role| {
        let message = &model.messages[0];
        let schema = message_schema(model, message, role).expect("a JSON protocol");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    };
    if let Err(e) = validator(writer, SchemaRole::Writer).validate(w) {
        panic!("the witness {w} fails the writer's schema: {e}");
    }
    // A value outside a parsed domain (an IPv4 address where the reader parses IPv6) is rejected by
    // parsing, which JSON Schema cannot state: the reader's schema says so in its description.
    let rejection = rule.is_some_and(|r| {
        r.rule().evidence == wirecheck::rules::Evidence::Rejected
            && r.rule().id != "value_domain_narrowed"
    });
    if rejection && validator(reader, SchemaRole::Reader).is_valid(w) {
        panic!("the witness {w} is rejected by the reader, not by its schema");
    }
}

/// Whether the engine finds no major break in `dir`.
fn passes(old: &Snapshot, new: &Snapshot, dir: Direction) -> bool {
    findings(old, new)
        .iter()
        .all(|f| f.level != Level::Major || f.direction != Some(dir))
}

const ONR: Direction = Direction::OldReadsNew;
const NRO: Direction = Direction::NewReadsOld;

// ----- the serde side -----

fn decode<T: DeserializeOwned>(v: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&v.to_string())
}

/// The writer `W` really emits `v`: it decodes into `W` and encodes back to the same JSON.
fn emitted_by<W: Serialize + DeserializeOwned>(v: &Value) {
    let w: W = match decode(v) {
        Ok(w) => w,
        Err(e) => panic!("the witness {v} is not a value of the writer's type: {e}"),
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

/// The reader `R` accepts `v`.
fn accepted<R: DeserializeOwned>(v: &Value) -> R {
    match decode::<R>(v) {
        Ok(r) => r,
        Err(e) => panic!("serde rejects {v}: {e}"),
    }
}

// ----- fields -----

#[test]
fn required_field_added() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub queue: String,
        }
    }
    let o = snap(vec![st("Msg", vec![f("id", u(64))])]);
    let n = snap(vec![st(
        "Msg",
        vec![f("id", u(64)), f("queue", Ty::String)],
    )]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "required_field_added", NRO));
    assert!(passes(&o, &n, ONR));
    accepted::<old::Msg>(&json!({"id": 1, "queue": "batch"}));
}

#[test]
fn field_removed_required_and_optional() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub t_submit: f64,
            pub note: Option<String>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![
            f("id", u(64)),
            f("t_submit", float(64)),
            f("note", opt(Ty::String)),
        ],
    )]);
    let n = snap(vec![st("Msg", vec![f("id", u(64))])]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "field_removed", ONR));
    let all = findings(&o, &n);
    assert!(all.iter().any(|f| f.rule == RuleId::FieldRemoved
        && f.level == Level::Minor
        && f.field.as_deref() == Some("note")));
    // The optional field's absence is tolerated by old readers.
    accepted::<old::Msg>(&json!({"id": 0, "t_submit": 1.5}));
    assert!(passes(&o, &n, NRO));
    accepted::<new::Msg>(&json!({"id": 0, "t_submit": 1.5, "note": null}));
}

#[test]
fn field_added_to_a_closed_reader() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        pub struct Msg {
            pub id: u64,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        pub struct Msg {
            pub id: u64,
            pub q: Option<u8>,
        }
    }
    let mut a = attrs("Msg");
    a.deny_unknown_fields = true;
    let o = snap(vec![st_with("Msg", a.clone(), vec![f("id", u(64))])]);
    let n = snap(vec![st_with(
        "Msg",
        a,
        vec![f("id", u(64)), f("q", opt(u(8)))],
    )]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "field_added", ONR));
    assert!(passes(&o, &n, NRO));
    accepted::<new::Msg>(&json!({"id": 3}));
}

#[test]
fn field_renamed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub t_submit: f64,
            pub note: Option<String>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(rename = "submitted")]
            pub t_submit: f64,
            #[serde(rename = "comment")]
            pub note: Option<String>,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![f("t_submit", float(64)), f("note", opt(Ty::String))],
    )]);
    let n = snap(vec![st(
        "Msg",
        vec![
            f("t_submit", float(64)).wire("submitted"),
            f("note", opt(Ty::String)).wire("comment"),
        ],
    )]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "field_renamed", ONR));
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "field_renamed", NRO));
    // The optional field alone: accepted, and the value silently lost.
    let o = snap(vec![st("Msg", vec![f("note", opt(Ty::String))])]);
    let n = snap(vec![st(
        "Msg",
        vec![f("note", opt(Ty::String)).wire("comment")],
    )]);
    mod old2 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub note: Option<String>,
        }
    }
    mod new2 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(rename = "comment")]
            pub note: Option<String>,
        }
    }
    let w = witness(&o, &n, "field_renamed", ONR);
    emitted_by::<new2::Msg>(&w);
    let read: old2::Msg = accepted(&w);
    assert_eq!(read.note, None, "the value is lost");
    let written: new2::Msg = accepted(&w);
    assert!(written.note.is_some());
}

/// An optional field removed and another added with the same type at the same place: one field
/// renamed on the wire, whose value readers of the other name silently lose (the contract's misread),
/// in both directions. Of another type, or required in the reader, it is not this rule.
#[test]
fn optional_field_renamed_on_the_wire_is_a_misread() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timestamp: Option<String>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(rename = "lastModified", skip_serializing_if = "Option::is_none")]
            pub last_modified: Option<String>,
        }
    }
    let optional = |name: &str| f(name, opt(Ty::String)).skip_if("Option::is_none");
    let o = snap(vec![st("Msg", vec![f("id", u(64)), optional("timestamp")])]);
    let n = snap(vec![st(
        "Msg",
        vec![
            f("id", u(64)),
            optional("last_modified").wire("lastModified"),
        ],
    )]);
    let w = witness(&o, &n, "field_renamed_on_wire", ONR);
    emitted_by::<new::Msg>(&w);
    let sent: new::Msg = accepted(&w);
    let read: old::Msg = accepted(&w);
    assert!(
        sent.last_modified.is_some() && read.timestamp.is_none(),
        "misread: {w}"
    );
    let w = witness(&o, &n, "field_renamed_on_wire", NRO);
    emitted_by::<old::Msg>(&w);
    let sent: old::Msg = accepted(&w);
    let read: new::Msg = accepted(&w);
    assert!(
        sent.timestamp.is_some() && read.last_modified.is_none(),
        "misread: {w}"
    );
    // Another type at the same place: a field removed and another added, each minor.
    let other = snap(vec![st(
        "Msg",
        vec![
            f("id", u(64)),
            f("last_modified", opt(u(64)))
                .skip_if("Option::is_none")
                .wire("lastModified"),
        ],
    )]);
    assert!(
        findings(&o, &other)
            .iter()
            .all(|f| f.rule.as_str() != "field_renamed_on_wire" && f.level != Level::Major)
    );
    // A reader that requires the new field rejects the old writer: not a misread.
    let required = snap(vec![st(
        "Msg",
        vec![f("id", u(64)), f("last_modified", Ty::String)],
    )]);
    assert!(
        findings(&o, &required)
            .iter()
            .all(|f| f.rule.as_str() != "field_renamed_on_wire")
    );
}

/// Issue 14 item 1: a field renamed with the old name kept as an alias; old readers require the old
/// key and new writers send only the new one.
#[test]
fn field_renamed_with_the_old_name_as_alias() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(alias = "name")]
            pub job_name: String,
        }
    }
    let o = snap(vec![st("Msg", vec![f("id", u(64)), f("name", Ty::String)])]);
    let mut job_name = f("job_name", Ty::String);
    job_name.de_names.push("name".into());
    let n = snap(vec![st("Msg", vec![f("id", u(64)), job_name])]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "field_removed", ONR));
    assert!(passes(&o, &n, NRO));
    accepted::<new::Msg>(&json!({"id": 0, "name": "a"}));
}

/// Issue 14 item 1: a required field gaining `#[serde(skip_serializing)]`. The new type cannot read
/// its own payloads back, so the witness is checked against what it serializes.
#[test]
fn required_field_no_longer_written() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_serializing)]
            pub name: String,
        }
    }
    let o = snap(vec![st("Msg", vec![f("id", u(64)), f("name", Ty::String)])]);
    let mut skipped = f("name", Ty::String);
    skipped.skip_ser = SkipSer::Always;
    let n = snap(vec![st("Msg", vec![f("id", u(64)), skipped])]);
    let w = witness(&o, &n, "field_removed", ONR);
    let value = new::Msg {
        id: 0,
        name: "a".into(),
    };
    let written = serde_json::to_value(&value).ok();
    assert_eq!(value.name, "a", "held by the value, never written");
    assert_eq!(written.as_ref(), Some(&w));
    assert!(decode::<old::Msg>(&w).is_err());
}

/// `skip_deserializing` added to a field the type keeps: serde fills it from its default, so the old
/// writer's value is silently replaced (a misread), and a reader that denies unknown fields rejects the
/// key. Old readers still get it from new writers, and a field already skipped by the old reader is no
/// change.
#[test]
fn skip_deserializing_added_drops_what_old_writers_send() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub priority: u32,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_deserializing)]
            pub priority: u32,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        pub struct Closed {
            pub id: u64,
            #[serde(skip_deserializing)]
            pub priority: u32,
        }
    }
    let skipped = || {
        let mut field = f("priority", u(32));
        field.skip_de = true;
        field
    };
    let o = snap(vec![st("Msg", vec![f("id", u(64)), f("priority", u(32))])]);
    let n = snap(vec![st("Msg", vec![f("id", u(64)), skipped()])]);
    let w = witness(&o, &n, "skip_deserializing_added", NRO);
    emitted_by::<old::Msg>(&w);
    let sent: old::Msg = accepted(&w);
    let read: new::Msg = accepted(&w);
    assert_ne!(sent.priority, read.priority, "misread: {w}");
    assert!(passes(&o, &n, ONR), "old readers still get the field");
    let written = serde_json::to_value(new::Msg { id: 0, priority: 3 }).unwrap();
    assert_eq!(accepted::<old::Msg>(&written).priority, 3);

    let mut closed = attrs("Msg");
    closed.deny_unknown_fields = true;
    let o_closed = snap(vec![st_with(
        "Msg",
        closed.clone(),
        vec![f("id", u(64)), f("priority", u(32))],
    )]);
    let n_closed = snap(vec![st_with(
        "Msg",
        closed,
        vec![f("id", u(64)), skipped()],
    )]);
    let w = witness(&o_closed, &n_closed, "skip_deserializing_added", NRO);
    rejected::<old::Msg, new::Closed>(&w);

    // Skipped by the old reader already: its own release never read it, nothing changed.
    assert!(findings(&n, &n).is_empty());
    let both = findings(&n, &o);
    assert!(
        both.iter()
            .all(|f| f.rule.as_str() != "skip_deserializing_added"),
        "{both:#?}"
    );
}

/// Issue 14 item 4: writers switch to a key readers already accept as an alias: every reader decodes
/// it, the change is visible (minor).
#[test]
fn rename_onto_an_accepted_alias() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(alias = "job_name")]
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(rename = "job_name", alias = "name")]
            pub name: String,
        }
    }
    let mut of = f("name", Ty::String);
    of.de_names.push("job_name".into());
    let mut nf = f("name", Ty::String).wire("job_name");
    nf.de_names.push("name".into());
    let o = snap(vec![st("Msg", vec![of])]);
    let n = snap(vec![st("Msg", vec![nf])]);
    assert!(passes(&o, &n, ONR) && passes(&o, &n, NRO));
    assert!(
        findings(&o, &n)
            .iter()
            .any(|f| f.rule == RuleId::FieldRenamed && f.level == Level::Minor)
    );
    let from_new = serde_json::to_value(new::Msg { name: "a".into() }).ok();
    assert_eq!(from_new, Some(json!({"job_name": "a"})));
    accepted::<old::Msg>(&json!({"job_name": "a"}));
    accepted::<new::Msg>(&json!({"name": "a"}));
}

/// Issue 14 item 2: `String` read through a type that validates with `try_from = "String"`.
#[test]
fn string_read_through_try_from() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub name: JobName,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug, Clone)]
        #[serde(try_from = "String", into = "String")]
        pub struct JobName(String);
        impl TryFrom<String> for JobName {
            type Error = &'static str;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                if s.is_empty() {
                    Err("a job name is not empty")
                } else {
                    Ok(JobName(s))
                }
            }
        }
        impl From<JobName> for String {
            fn from(n: JobName) -> String {
                n.0
            }
        }
    }
    let mut a = attrs("JobName");
    a.from = Some(Proxy {
        ty: Ty::String,
        fallible: true,
    });
    a.into = Some(Ty::String);
    let o = snap(vec![st("Msg", vec![f("name", Ty::String)])]);
    let n = snap(vec![
        st("Msg", vec![f("name", named("JobName"))]),
        def(
            "JobName",
            a,
            Body::Struct {
                style: Style::Tuple,
                fields: vec![f("0", Ty::String)],
            },
        ),
    ]);
    let all = findings(&o, &n);
    assert!(
        all.iter()
            .any(|f| f.rule == RuleId::CustomSerdeChanged && f.level == Level::Major),
        "{all:#?}"
    );
    // What the engine cannot run, serde does: the old writer's empty string is rejected.
    emitted_by::<old::Msg>(&json!({"name": ""}));
    assert!(decode::<new::Msg>(&json!({"name": ""})).is_err());
}

/// Issue 14 item 6: `Option<Option<T>>` and `Option<T>` share their JSON. serde_json reads `null` into
/// `Option<Option<T>>` as `None` (never `Some(None)`), and writes `Some(None)` as `null`, with or without
/// `default` and `skip_serializing_if`.
#[test]
fn double_option_and_option_share_their_json() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Msg {
            pub id: u64,
            pub limit: Option<Option<u32>>,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Skipped {
            pub id: u64,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub limit: Option<Option<u32>>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Msg {
            pub id: u64,
            pub limit: Option<u32>,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![f("id", u(64)), f("limit", opt(opt(u(32))))],
    )]);
    let n = snap(vec![st(
        "Msg",
        vec![f("id", u(64)), f("limit", opt(u(32)))],
    )]);
    assert_eq!(findings(&o, &n), vec![]);
    assert_eq!(findings(&n, &o), vec![]);
    // The old false alarm's witness decodes.
    let null = json!({"id": 0, "limit": null});
    assert_eq!(
        accepted::<old::Msg>(&null).limit,
        None,
        "null is never Some(None)"
    );
    assert_eq!(accepted::<new::Msg>(&null).limit, None);
    // Everything the old writer emits, the new reader reads, and the reverse.
    for limit in [None, Some(None), Some(Some(7))] {
        let v = serde_json::to_value(old::Msg { id: 0, limit }).unwrap_or_default();
        assert_eq!(accepted::<new::Msg>(&v).limit, limit.flatten());
        let v = serde_json::to_value(old::Skipped { id: 0, limit }).unwrap_or_default();
        assert_eq!(accepted::<new::Msg>(&v).limit, limit.flatten());
    }
    for limit in [None, Some(7)] {
        let v = serde_json::to_value(new::Msg { id: 0, limit }).unwrap_or_default();
        assert_eq!(accepted::<old::Msg>(&v).limit.flatten(), limit);
        assert_eq!(accepted::<old::Skipped>(&v).limit.flatten(), limit);
    }
}

#[test]
fn field_type_changed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub ok: bool,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: String,
            pub ok: bool,
        }
    }
    let o = snap(vec![st("Msg", vec![f("id", u(64)), f("ok", Ty::Bool)])]);
    let n = snap(vec![st(
        "Msg",
        vec![f("id", Ty::String), f("ok", Ty::Bool)],
    )]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "field_type_changed", NRO));
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "field_type_changed", ONR));
}

// ----- numbers -----

#[test]
fn integer_narrowed_widened_sign() {
    mod a {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub n: u64,
        }
    }
    mod b {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub n: u32,
        }
    }
    mod c {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub n: i32,
        }
    }
    let s = |t: Ty| snap(vec![st("Msg", vec![f("n", t)])]);
    // u64 -> u32: new readers fail on old values.
    rejected::<a::Msg, b::Msg>(&witness(&s(u(64)), &s(u(32)), "integer_narrowed", NRO));
    assert!(passes(&s(u(64)), &s(u(32)), ONR));
    accepted::<a::Msg>(&json!({"n": u32::MAX}));
    // u32 -> u64: old readers fail on new values.
    rejected::<a::Msg, b::Msg>(&witness(&s(u(32)), &s(u(64)), "integer_widened", ONR));
    // i32 -> u32: both.
    rejected::<c::Msg, b::Msg>(&witness(&s(i(32)), &s(u(32)), "integer_sign_changed", NRO));
    rejected::<b::Msg, c::Msg>(&witness(&s(i(32)), &s(u(32)), "integer_sign_changed", ONR));
}

#[test]
fn floats_and_integers() {
    mod fl {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub t: f64,
        }
    }
    mod int {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub t: u64,
        }
    }
    mod small {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub t: u32,
        }
    }
    mod f32s {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub t: f32,
        }
    }
    let s = |t: Ty| snap(vec![st("Msg", vec![f("t", t)])]);
    // f64 -> u64: integer readers reject floats.
    rejected::<fl::Msg, int::Msg>(&witness(&s(float(64)), &s(u(64)), "float_to_integer", NRO));
    // ... and f64 readers read big integers inexactly.
    let w = witness(&s(float(64)), &s(u(64)), "float_to_integer", ONR);
    emitted_by::<int::Msg>(&w);
    let read: fl::Msg = accepted(&w);
    let sent: int::Msg = accepted(&w);
    assert_ne!(read.t as u64, sent.t, "misread: {w}");
    // u32 -> f64: exact in new readers; old readers reject floats.
    rejected::<fl::Msg, small::Msg>(&witness(&s(u(32)), &s(float(64)), "integer_to_float", ONR));
    assert!(passes(&s(u(32)), &s(float(64)), NRO));
    accepted::<fl::Msg>(&json!({"t": u32::MAX}));
    // f64 -> f32: rounded to infinity, or rejected as out of range when serde_json's `float_roundtrip`
    // feature is on (feature unification decides): a break either way.
    let w = witness(&s(float(64)), &s(float(32)), "float_narrowed", NRO);
    emitted_by::<fl::Msg>(&w);
    if let Ok(read) = decode::<f32s::Msg>(&w) {
        assert!(read.t.is_infinite(), "{w} read as {}", read.t);
    }
}

// ----- optionality and presence -----

#[test]
fn option_and_default() {
    mod plain {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub q: u32,
        }
    }
    mod optional {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub q: Option<u32>,
        }
    }
    mod defaulted {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(default)]
            pub q: u32,
        }
    }
    mod skipping {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub q: Option<u32>,
        }
    }
    let s = |x: Field| snap(vec![st("Msg", vec![x])]);
    // T -> Option<T>: old readers reject null.
    let (o, n) = (s(f("q", u(32))), s(f("q", opt(u(32)))));
    rejected::<optional::Msg, plain::Msg>(&witness(&o, &n, "field_became_optional", ONR));
    assert!(passes(&o, &n, NRO));
    accepted::<optional::Msg>(&json!({"q": 1}));
    // Option<T> -> #[serde(default)] T: default tolerates absence, not null.
    let (o, n) = (s(f("q", opt(u(32)))), s(f("q", u(32)).dflt()));
    rejected::<optional::Msg, defaulted::Msg>(&witness(&o, &n, "field_became_required", NRO));
    accepted::<defaulted::Msg>(&json!({}));
    // A writer that skips None never writes null: nothing to report, and it decodes.
    let (o, n) = (
        s(f("q", opt(u(32))).skip_if("Option::is_none")),
        s(f("q", u(32)).dflt()),
    );
    assert!(findings(&o, &n).is_empty());
    let v = serde_json::to_value(skipping::Msg { q: None }).unwrap_or(Value::Null);
    accepted::<defaulted::Msg>(&v);
}

#[test]
fn skip_serializing_if_added() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub tags: Vec<String>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub tags: Vec<String>,
        }
    }
    let o = snap(vec![st("Msg", vec![f("tags", vec_of(Ty::String))])]);
    let n = snap(vec![st(
        "Msg",
        vec![
            f("tags", vec_of(Ty::String))
                .skip_if("Vec::is_empty")
                .dflt(),
        ],
    )]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "skip_serializing_if_added", ONR));
    assert!(passes(&o, &n, NRO));
    accepted::<new::Msg>(&json!({"tags": []}));
}

#[test]
fn option_deserialize_with() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub t: Option<u64>,
        }
    }
    mod new {
        use serde::Deserialize;
        fn de_t<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            Option::<u64>::deserialize(d)
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "de_t")]
            pub t: Option<u64>,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![f("t", opt(u(64))).skip_if("Option::is_none")],
    )]);
    let mut t = f("t", opt(u(64))).skip_if("Option::is_none");
    t.custom = Some(Custom {
        ser: None,
        de: Some("de_t".into()),
    });
    let n = snap(vec![st("Msg", vec![t])]);
    let w = witness(&o, &n, "option_deserialize_with", NRO);
    emitted_by::<old::Msg>(&w);
    assert!(decode::<new::Msg>(&w).is_err(), "serde accepts {w}");
}

#[test]
fn deny_unknown_fields_added() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            #[serde(default)]
            pub legacy: u32,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        pub struct Msg {
            pub id: u64,
        }
    }
    let mut closed = attrs("Msg");
    closed.deny_unknown_fields = true;
    let o = snap(vec![st(
        "Msg",
        vec![f("id", u(64)), f("legacy", u(32)).dflt()],
    )]);
    let n = snap(vec![st_with("Msg", closed, vec![f("id", u(64))])]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "deny_unknown_fields_added", NRO));
}

#[test]
fn transparent_and_flatten_changed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: Id,
            pub inner: Inner,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Id {
            pub value: u64,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Inner {
            pub x: u8,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: Id,
            #[serde(flatten)]
            pub inner: Inner,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(transparent)]
        pub struct Id {
            pub value: u64,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Inner {
            pub x: u8,
        }
    }
    let mut tr = attrs("Id");
    tr.transparent = true;
    let inner = st("Inner", vec![f("x", u(8))]);
    let o = snap(vec![
        st(
            "Msg",
            vec![f("id", named("Id")), f("inner", named("Inner"))],
        ),
        st("Id", vec![f("value", u(64))]),
        inner.clone(),
    ]);
    let n = snap(vec![
        st(
            "Msg",
            vec![f("id", named("Id")), f("inner", named("Inner")).flat()],
        ),
        st_with("Id", tr, vec![f("value", u(64))]),
        inner,
    ]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "transparent_changed", ONR));
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "transparent_changed", NRO));
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "flatten_changed", ONR));
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "flatten_changed", NRO));
}

#[test]
fn flattened_map_absorbs_what_a_closed_reader_would_reject_and_writes_any_key() {
    mod old {
        use std::collections::BTreeMap;
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u8,
            #[serde(flatten)]
            pub rest: BTreeMap<String, serde_json::Value>,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u8,
            pub q: Option<u8>,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![
            f("id", u(8)),
            f("rest", map_of(Ty::String, Ty::Value)).flat(),
        ],
    )]);
    let n = snap(vec![st("Msg", vec![f("id", u(8)), f("q", opt(u(8)))])]);
    assert!(passes(&o, &n, ONR), "{:#?}", findings(&o, &n));
    let read: old::Msg = accepted(&json!({"id": 1, "q": 2}));
    assert_eq!(read.rest.get("q"), Some(&json!(2)));
    accepted::<new::Msg>(&json!({"id": 1, "anything": [1]}));
    // But old writers put anything under any key of `rest`, `q` included, which the new `q` reads.
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "field_type_changed", NRO));
}

// ----- enums -----

#[test]
fn variants_added_and_removed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub s: S,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum S {
            Run,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub s: S,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum S {
            Run,
            Done { code: i32 },
        }
    }
    let m = st("Msg", vec![f("s", named("S"))]);
    let o = snap(vec![
        m.clone(),
        en("S", EnumRepr::External, vec![unit("Run")]),
    ]);
    let n = snap(vec![
        m,
        en(
            "S",
            EnumRepr::External,
            vec![
                unit("Run"),
                var("Done", Style::Named, vec![f("code", i(32))]),
            ],
        ),
    ]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "variant_added_without_other", ONR));
    rejected::<new::Msg, old::Msg>(&witness(&n, &o, "variant_removed", NRO));
    assert!(passes(&o, &n, NRO));
}

#[test]
fn variant_added_with_other() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        #[serde(tag = "t")]
        pub enum S {
            Run,
            #[serde(other)]
            Unknown,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "t")]
        pub enum S {
            Run,
            Done {
                code: i32,
            },
            #[serde(other)]
            Unknown,
        }
    }
    let tag = || EnumRepr::Internal { tag: "t".into() };
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("S") });
    let o = snap(vec![
        m.clone(),
        en("S", tag(), vec![unit("Run"), other("Unknown")]),
    ]);
    let n = snap(vec![
        m,
        en(
            "S",
            tag(),
            vec![
                unit("Run"),
                var("Done", Style::Named, vec![f("code", i(32))]),
                other("Unknown"),
            ],
        ),
    ]);
    let all = findings(&o, &n);
    assert!(
        all.iter().all(|f| f.level == Level::Minor) && !all.is_empty(),
        "{all:#?}"
    );
    let v = serde_json::to_value(new::S::Done { code: 3 }).unwrap_or(Value::Null);
    assert_eq!(accepted::<old::S>(&v), old::S::Unknown);
}

#[test]
fn other_catches_only_unit_payloads_outside_internal_tagging() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "t", content = "c")]
        pub enum S {
            Run,
            #[serde(other)]
            Unknown,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "t", content = "c")]
        pub enum S {
            Run,
            Done(u32),
            Stop,
            #[serde(other)]
            Unknown,
        }
    }
    let adj = || EnumRepr::Adjacent {
        tag: "t".into(),
        content: "c".into(),
    };
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("S") });
    let o = snap(vec![
        m.clone(),
        en("S", adj(), vec![unit("Run"), other("Unknown")]),
    ]);
    let n = snap(vec![
        m,
        en(
            "S",
            adj(),
            vec![
                unit("Run"),
                newtype("Done", u(32)),
                unit("Stop"),
                other("Unknown"),
            ],
        ),
    ]);
    rejected::<new::S, old::S>(&witness(&o, &n, "variant_added_without_other", ONR));
    // The unit variant is caught.
    let all = findings(&o, &n);
    assert!(
        all.iter()
            .any(|f| f.rule == RuleId::VariantAdded && f.field.as_deref() == Some("Stop")),
        "{all:#?}"
    );
    let v = serde_json::to_value(new::S::Stop).unwrap_or(Value::Null);
    accepted::<old::S>(&v);
}

/// Issue 14 item 10: in an externally tagged enum, a `#[serde(other)]` variant does not take a new
/// struct variant (serde_json: `invalid type: map, expected unit`), so the finding does not advise one,
/// and does not advise adding one to a reader that has it.
#[test]
fn other_is_no_remedy_for_an_external_struct_variant() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum S {
            Run,
            #[serde(other)]
            Unknown,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum S {
            Run,
            Done {
                code: i32,
            },
            #[serde(other)]
            Unknown,
        }
    }
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("S") });
    let done = var("Done", Style::Named, vec![f("code", i(32))]);
    let o = snap(vec![
        m.clone(),
        en("S", EnumRepr::External, vec![unit("Run"), other("Unknown")]),
    ]);
    let n = snap(vec![
        m,
        en(
            "S",
            EnumRepr::External,
            vec![unit("Run"), done, other("Unknown")],
        ),
    ]);
    let w = witness(&o, &n, "variant_added_without_other", ONR);
    rejected::<new::S, old::S>(&w);
    let error = decode::<old::S>(&w).err().map(|e| e.to_string());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("invalid type: map, expected unit")),
        "{error:?}"
    );
    let all = findings(&o, &n);
    let message = all
        .iter()
        .find(|f| f.rule == RuleId::VariantAddedWithoutOther)
        .map(|f| f.message.clone())
        .unwrap_or_default();
    assert_eq!(message.matches("serde(other)").count(), 1, "{message}");
    assert!(message.contains("takes only unit variants"), "{message}");
}

#[test]
fn variant_renamed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum S {
            Done,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(rename_all = "lowercase")]
        pub enum S {
            Done,
        }
    }
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("S") });
    let o = snap(vec![
        m.clone(),
        en("S", EnumRepr::External, vec![unit("Done")]),
    ]);
    let mut done = unit("Done");
    done.ser_name = "done".into();
    done.de_names = vec!["done".into()];
    let n = snap(vec![m, en("S", EnumRepr::External, vec![done])]);
    rejected::<new::S, old::S>(&witness(&o, &n, "variant_renamed", ONR));
    rejected::<old::S, new::S>(&witness(&o, &n, "variant_renamed", NRO));
}

#[test]
fn enum_repr_changed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub enum E {
            Run { id: u64 },
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "type")]
        pub enum E {
            Run { id: u64 },
        }
    }
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("E") });
    let run = || var("Run", Style::Named, vec![f("id", u(64))]);
    let o = snap(vec![m.clone(), en("E", EnumRepr::External, vec![run()])]);
    let n = snap(vec![
        m,
        en("E", EnumRepr::Internal { tag: "type".into() }, vec![run()]),
    ]);
    rejected::<new::E, old::E>(&witness(&o, &n, "enum_repr_changed", ONR));
    rejected::<old::E, new::E>(&witness(&o, &n, "enum_repr_changed", NRO));
}

#[test]
fn untagged_order_and_misread() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(untagged)]
        pub enum Id {
            Num(u64),
            Any(f64),
        }
    }
    mod reordered {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(untagged)]
        pub enum Id {
            Any(f64),
            Num(u64),
        }
    }
    mod captured {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(untagged)]
        pub enum Id {
            Small(u8),
            Num(u64),
            Any(f64),
        }
    }
    let m = def(
        "Msg",
        attrs("Msg"),
        Body::Alias {
            target: named("Id"),
        },
    );
    let o = snap(vec![
        m.clone(),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![newtype("Num", u(64)), newtype("Any", float(64))],
        ),
    ]);
    let n = snap(vec![
        m.clone(),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![newtype("Any", float(64)), newtype("Num", u(64))],
        ),
    ]);
    let w = witness(&o, &n, "untagged_variant_order_changed", NRO);
    assert!(matches!(accepted::<old::Id>(&w), old::Id::Num(_)));
    assert!(
        matches!(accepted::<reordered::Id>(&w), reordered::Id::Any(_)),
        "misread"
    );
    let n = snap(vec![
        m,
        en(
            "Id",
            EnumRepr::Untagged,
            vec![
                newtype("Small", u(8)),
                newtype("Num", u(64)),
                newtype("Any", float(64)),
            ],
        ),
    ]);
    let w = witness(&o, &n, "untagged_misread", NRO);
    assert!(matches!(accepted::<old::Id>(&w), old::Id::Num(_)));
    assert!(
        matches!(accepted::<captured::Id>(&w), captured::Id::Small(_)),
        "misread"
    );
}

#[test]
fn struct_tag_changed() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        pub struct Msg {
            pub id: u8,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "type")]
        pub struct Msg {
            pub id: u8,
        }
    }
    let mut closed = attrs("Msg");
    closed.deny_unknown_fields = true;
    let mut tagged = attrs("Msg");
    tagged.repr = EnumRepr::Internal { tag: "type".into() };
    let o = snap(vec![st_with("Msg", closed, vec![f("id", u(8))])]);
    let n = snap(vec![st_with("Msg", tagged, vec![f("id", u(8))])]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "struct_tag_changed", ONR));
    // serde does not check the tag when reading.
    accepted::<new::Msg>(&json!({"id": 1}));
}

// ----- collections -----

#[test]
fn collections() {
    mod v {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: Vec<u32>,
        }
    }
    mod set {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: std::collections::BTreeSet<u32>,
        }
    }
    mod a2 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: [u32; 2],
        }
    }
    mod a3 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: [u32; 3],
        }
    }
    mod t2 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: (u32, u32),
        }
    }
    mod t3 {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: (u32, u32, u32),
        }
    }
    mod ks {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: std::collections::BTreeMap<String, u8>,
        }
    }
    mod ki {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: std::collections::BTreeMap<u32, u8>,
        }
    }
    mod kl {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub x: std::collections::BTreeMap<u64, u8>,
        }
    }
    let s = |t: Ty| snap(vec![st("Msg", vec![f("x", t)])]);
    let w = witness(&s(vec_of(u(32))), &s(set_of(u(32))), "seq_to_set", NRO);
    emitted_by::<v::Msg>(&w);
    assert_eq!(accepted::<set::Msg>(&w).x.len(), 1, "duplicates collapse");
    let arr = |n| Ty::Array {
        elem: Box::new(u(32)),
        len: n,
    };
    rejected::<a2::Msg, a3::Msg>(&witness(
        &s(arr(2)),
        &s(arr(3)),
        "array_length_changed",
        NRO,
    ));
    rejected::<a3::Msg, a2::Msg>(&witness(
        &s(arr(2)),
        &s(arr(3)),
        "array_length_changed",
        ONR,
    ));
    let tup = |n: usize| Ty::Tuple {
        elems: vec![u(32); n],
    };
    rejected::<t2::Msg, t3::Msg>(&witness(
        &s(tup(2)),
        &s(tup(3)),
        "tuple_length_changed",
        NRO,
    ));
    // Arrays and tuples of the same length share the wire; Vec reads both.
    assert!(findings(&s(arr(2)), &s(tup(2))).is_empty());
    accepted::<t2::Msg>(&serde_json::to_value(a2::Msg { x: [1, 2] }).unwrap_or(Value::Null));
    let keys = |k: Ty| s(map_of(k, u(8)));
    rejected::<ks::Msg, ki::Msg>(&witness(
        &keys(Ty::String),
        &keys(u(32)),
        "map_key_changed",
        NRO,
    ));
    rejected::<kl::Msg, ki::Msg>(&witness(&keys(u(64)), &keys(u(32)), "map_key_changed", NRO));
    // Integer keys are written as strings and read back by String keys.
    assert!(passes(&keys(u(32)), &keys(Ty::String), NRO));
    accepted::<ks::Msg>(
        &serde_json::to_value(ki::Msg { x: [(7, 1)].into() }).unwrap_or(Value::Null),
    );
}

// ----- generics, records, flattened enums -----

#[test]
fn generic_instantiation() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub w: W<u64>,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct W<T> {
            pub t: T,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub w: W<u32>,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct W<T> {
            pub t: T,
        }
    }
    let w = TypeDef {
        path: "c::W".into(),
        generics: vec!["T".into()],
        attrs: attrs("W"),
        body: Body::Struct {
            style: Style::Named,
            fields: vec![f("t", Ty::Param { name: "T".into() })],
        },
        location: Location::default(),
        package: None,
    };
    let g = |t: Ty| {
        snap(vec![
            st(
                "Msg",
                vec![f(
                    "w",
                    Ty::Named {
                        path: "c::W".into(),
                        args: vec![t],
                    },
                )],
            ),
            w.clone(),
        ])
    };
    rejected::<old::Msg, new::Msg>(&witness(&g(u(64)), &g(u(32)), "integer_narrowed", NRO));
}

#[test]
fn eventlog_entry_with_flattened_adjacent_enum() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Entry {
            pub timestamp: f64,
            #[serde(flatten)]
            pub event: Event,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "name", content = "context")]
        #[allow(non_camel_case_types)]
        pub enum Event {
            submit { userid: u32 },
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Entry {
            pub timestamp: f64,
            #[serde(flatten)]
            pub event: Event,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "name", content = "context")]
        #[allow(non_camel_case_types)]
        pub enum Event {
            submit { userid: u32, urgency: u8 },
            alloc,
        }
    }
    let mut ev = attrs("Event");
    ev.repr = EnumRepr::Adjacent {
        tag: "name".into(),
        content: "context".into(),
    };
    let entry = st(
        "Msg",
        vec![f("timestamp", float(64)), f("event", named("Event")).flat()],
    );
    let o = snap_kind(
        Kind::Record,
        Upgrade::AnyOrder,
        Format::Json,
        vec![
            entry.clone(),
            def(
                "Event",
                ev.clone(),
                Body::Enum {
                    variants: vec![var("submit", Style::Named, vec![f("userid", u(32))])],
                },
            ),
        ],
    );
    let n = snap_kind(
        Kind::Record,
        Upgrade::AnyOrder,
        Format::Json,
        vec![
            entry,
            def(
                "Event",
                ev,
                Body::Enum {
                    variants: vec![
                        var(
                            "submit",
                            Style::Named,
                            vec![f("userid", u(32)), f("urgency", u(8))],
                        ),
                        unit("alloc"),
                    ],
                },
            ),
        ],
    );
    rejected::<old::Entry, new::Entry>(&witness(&o, &n, "required_field_added", NRO));
    rejected::<new::Entry, old::Entry>(&witness(&o, &n, "variant_added_without_other", ONR));
}

#[test]
fn wire_identical_changes_are_not_findings() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub ids: Vec<u64>,
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            #[serde(rename = "name")]
            pub label: Box<str>,
            pub id: Id,
            pub ids: Ids,
            #[serde(skip)]
            #[allow(dead_code)]
            pub cache: u32,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Id(pub u64);
        pub type Ids = Vec<Id>;
    }
    let o = snap(vec![st(
        "Msg",
        vec![
            f("id", u(64)),
            f("ids", vec_of(u(64))),
            f("name", Ty::String),
        ],
    )]);
    let mut cache = f("cache", u(32));
    cache.skip_ser = SkipSer::Always;
    cache.skip_de = true;
    let n = snap(vec![
        st(
            "Msg",
            vec![
                f("label", Ty::String).wire("name"),
                f("id", named("Id")),
                f("ids", named("Ids")),
                cache,
            ],
        ),
        def(
            "Id",
            attrs("Id"),
            Body::Struct {
                style: Style::Tuple,
                fields: vec![f("0", u(64))],
            },
        ),
        def(
            "Ids",
            attrs("Ids"),
            Body::Alias {
                target: vec_of(named("Id")),
            },
        ),
    ]);
    assert_eq!(findings(&o, &n), vec![]);
    let v = json!({"id": 5, "ids": [1, 2], "name": "x"});
    accepted::<new::Msg>(&v);
    let back = serde_json::to_value(accepted::<new::Msg>(&v)).unwrap_or(Value::Null);
    accepted::<old::Msg>(&back);
}

#[test]
fn unknown_tags_fall_through_to_untagged_variants() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "name")]
        pub enum E {
            A {
                x: u8,
            },
            #[serde(untagged)]
            Other {
                name: String,
                #[serde(default)]
                context: Option<serde_json::Map<String, serde_json::Value>>,
            },
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "name")]
        pub enum Strict {
            A {
                x: u8,
            },
            #[serde(untagged)]
            Other {
                name: String,
                extra: u8,
            },
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(tag = "name")]
        pub enum E {
            A {
                x: u8,
            },
            B {
                context: std::collections::BTreeMap<String, u8>,
            },
        }
    }
    let tag = || EnumRepr::Internal { tag: "name".into() };
    let m = def("Msg", attrs("Msg"), Body::Alias { target: named("E") });
    let mut catch = var(
        "Other",
        Style::Named,
        vec![
            f("name", Ty::String),
            f("context", opt(map_of(Ty::String, Ty::Value))).dflt(),
        ],
    );
    catch.untagged = true;
    let a = || var("A", Style::Named, vec![f("x", u(8))]);
    let o = snap(vec![m.clone(), en("E", tag(), vec![a(), catch])]);
    let n = snap(vec![
        m.clone(),
        en(
            "E",
            tag(),
            vec![
                a(),
                var(
                    "B",
                    Style::Named,
                    vec![f("context", map_of(Ty::String, u(8)))],
                ),
            ],
        ),
    ]);
    let all = findings(&o, &n);
    assert!(
        all.iter()
            .any(|f| f.rule == RuleId::VariantAdded && f.level == Level::Minor),
        "{all:#?}"
    );
    assert!(passes(&o, &n, ONR));
    let v = serde_json::to_value(new::E::B {
        context: [("k".to_owned(), 1)].into(),
    })
    .unwrap_or(Value::Null);
    assert!(matches!(accepted::<old::E>(&v), old::E::Other { .. }));
    // A catch-all that needs a key the new variant does not write does not take it.
    let mut strict = var(
        "Other",
        Style::Named,
        vec![f("name", Ty::String), f("extra", u(8))],
    );
    strict.untagged = true;
    let o = snap(vec![m, en("E", tag(), vec![a(), strict])]);
    rejected::<new::E, old::Strict>(&witness(&o, &n, "variant_added_without_other", ONR));
}

// ----- refined values, readable shapes, bytes, choices, the missing-field rule (issue 15) -----

/// A refined type of `base` with `domain`, the domains holding it, its sample and its value outside.
fn refined(base: Ty, domain: &str, within: &[&str], sample: &str, outside: &str) -> Ty {
    Ty::Refined {
        base: Box::new(base),
        domain: domain.into(),
        within: within.iter().map(|d| (*d).to_owned()).collect(),
        sample: sample.into(),
        outside: Some(outside.into()),
        extent: None,
    }
}

#[test]
fn plain_integer_to_nonzero_breaks_new_reads_old_only() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub n: u32,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub n: std::num::NonZeroU32,
        }
    }
    let o = snap(vec![st("Msg", vec![f("n", u(32))])]);
    let n = snap(vec![st(
        "Msg",
        vec![f("n", refined(u(32), "nonzero", &[], "1", "0"))],
    )]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "value_domain_narrowed", NRO));
    assert!(passes(&o, &n, ONR));
    accepted::<old::Msg>(&json!({"n": 1}));
    // The other way round, only old reads new breaks.
    rejected::<old::Msg, new::Msg>(&witness(&n, &o, "value_domain_narrowed", ONR));
    assert!(passes(&n, &o, NRO));
}

#[test]
fn string_to_validating_newtype_breaks_new_reads_old_only() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub name: String,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug, Clone)]
        #[serde(try_from = "String", into = "String")]
        pub struct Name(String);
        impl TryFrom<String> for Name {
            type Error = &'static str;
            fn try_from(s: String) -> Result<Name, &'static str> {
                if s.is_empty() {
                    Err("empty name")
                } else {
                    Ok(Name(s))
                }
            }
        }
        impl From<Name> for String {
            fn from(n: Name) -> String {
                n.0
            }
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub name: Name,
        }
    }
    let o = snap(vec![st("Msg", vec![f("name", Ty::String)])]);
    let n = snap(vec![st(
        "Msg",
        vec![f(
            "name",
            refined(Ty::String, "nonempty", &[], "\"a\"", "\"\""),
        )],
    )]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "value_domain_narrowed", NRO));
    assert!(passes(&o, &n, ONR));
    accepted::<old::Msg>(&json!({"name": "a"}));
}

/// `IpAddr` and `Ipv4Addr` in JSON: strings of the `ip` and `ipv4` domains (a v4 address is an
/// address). The compact shape plays no part in JSON.
fn address(domain: &str, within: &[&str], sample: &str) -> Ty {
    Ty::Readable {
        human: Box::new(refined(Ty::String, domain, within, sample, "\"\"")),
        compact: Box::new(Ty::external(format!("compact {domain}"))),
    }
}

#[test]
fn narrower_refined_domain_breaks_one_direction() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub addr: std::net::Ipv4Addr,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub addr: std::net::IpAddr,
        }
    }
    let o = snap(vec![st(
        "Msg",
        vec![f("addr", address("ipv4", &["ip"], "\"127.0.0.1\""))],
    )]);
    let n = snap(vec![st(
        "Msg",
        vec![f("addr", address("ip", &[], "\"::1\""))],
    )]);
    rejected::<new::Msg, old::Msg>(&witness(&o, &n, "value_domain_narrowed", ONR));
    assert!(passes(&o, &n, NRO));
    accepted::<new::Msg>(&json!({"addr": "127.0.0.1"}));
}

#[test]
fn bytes_and_vec_u8_read_each_other_and_bytes_read_strings() {
    mod plain {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Msg {
            pub data: Vec<u8>,
        }
    }
    mod bytes {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Msg {
            pub data: serde_bytes::ByteBuf,
        }
    }
    mod text {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        pub struct Msg {
            pub data: String,
        }
    }
    let vec_u8 = vec_of(u(8));
    let p = snap(vec![st("Msg", vec![f("data", vec_u8)])]);
    let b = snap(vec![st("Msg", vec![f("data", Ty::Bytes)])]);
    let t = snap(vec![st("Msg", vec![f("data", Ty::String)])]);
    // serde_json writes bytes as an array of numbers, like Vec<u8>; each reads the other.
    let written = serde_json::to_value(bytes::Msg {
        data: serde_bytes::ByteBuf::from(vec![1, 2]),
    })
    .unwrap();
    assert_eq!(written, json!({"data": [1, 2]}));
    accepted::<plain::Msg>(&written);
    accepted::<bytes::Msg>(&serde_json::to_value(plain::Msg { data: vec![1, 2] }).unwrap());
    assert!(passes(&p, &b, ONR) && passes(&p, &b, NRO));
    // A bytes reader takes a string (its UTF-8 bytes); a string reader rejects an array.
    accepted::<bytes::Msg>(&json!({"data": "ab"}));
    assert!(passes(&t, &b, NRO));
    rejected::<bytes::Msg, text::Msg>(&witness(&t, &b, "field_type_changed", ONR));
}

#[test]
fn transparent_option_field_is_not_required() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(transparent)]
        pub struct Note(pub Option<String>);
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Note2(pub Option<String>);
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub id: u64,
            pub note: Note,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg2 {
            pub id: u64,
            pub note: Note2,
        }
    }
    let mut transparent = attrs("Note");
    transparent.transparent = true;
    let note = def(
        "Note",
        transparent,
        Body::Struct {
            style: Style::Tuple,
            fields: vec![f("0", opt(Ty::String))],
        },
    );
    let o = snap(vec![st("Msg", vec![f("id", u(64))])]);
    let n = snap(vec![
        st("Msg", vec![f("id", u(64)), f("note", named("Note"))]),
        note,
    ]);
    // serde reads the missing key as None: the old payload decodes.
    assert!(accepted::<new::Msg>(&json!({"id": 1})).note.0.is_none());
    assert!(passes(&o, &n, NRO));
    // A derived newtype around the option is required.
    let note2 = def(
        "Note",
        attrs("Note"),
        Body::Struct {
            style: Style::Tuple,
            fields: vec![f("0", opt(Ty::String))],
        },
    );
    let n2 = snap(vec![
        st("Msg", vec![f("id", u(64)), f("note", named("Note"))]),
        note2,
    ]);
    rejected::<old::Msg, new::Msg2>(&witness(&o, &n2, "required_field_added", NRO));
}

#[test]
fn reader_choice_takes_what_one_of_its_types_takes() {
    mod old {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub v: bool,
        }
    }
    mod new {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        #[serde(untagged)]
        pub enum NumOrText {
            Num(u64),
            Text(String),
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        pub struct Msg {
            pub v: NumOrText,
        }
    }
    let choice = Ty::Choice {
        writes: Box::new(Ty::String),
        reads: vec![u(64), Ty::String],
    };
    let o = snap(vec![st("Msg", vec![f("v", Ty::Bool)])]);
    let n = snap(vec![st("Msg", vec![f("v", choice)])]);
    rejected::<old::Msg, new::Msg>(&witness(&o, &n, "field_type_changed", NRO));
    accepted::<new::Msg>(&json!({"v": 3}));
    accepted::<new::Msg>(&json!({"v": "x"}));
}
