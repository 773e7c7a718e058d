#![cfg(feature = "checker")]
//! The engine's verdicts in the binary self-describing formats checked against their real codecs:
//! `format = "cbor"` against ciborium (`into_writer`, `from_reader`), `format = "msgpack"` against
//! rmp-serde's `to_vec_named` and `format = "msgpack-compact"` against its default `to_vec` (both read
//! back with `rmp_serde::from_slice`).
//!
//! Each case declares real `old` and `new` Rust types once, inside `case!`: the macro compiles them and
//! hands their tokens (`stringify!`) to `wirecheck::extract::snapshot_from_sources` behind a protocol
//! header of each format, so the model is extracted from exactly the types that are encoded; each case
//! also lists values of both releases' `Msg`. For every format and direction:
//!
//! - the real verdict: a value of the writer's release, encoded with the real codec, is rejected by the
//!   reader's type, or read as another value (both rendered as JSON, writer field names renamed where a
//!   case renames a field in place);
//! - the engine's: a `major` finding in that direction; each of its witnesses (the writer's value as
//!   JSON) is turned into the writer's value, encoded with the real codec and decoded by the reader,
//!   and must be rejected or misread.
//!
//! The engine must agree with the real verdict, where a failing witness counts as a real break; and
//! each case lists the (format, direction) pairs that really break, so that it shows what it is about
//! (the formats part ways there, JSON being the same for all of them elsewhere).
//!
//! `cargo test --features checker --test formats_truth -- --nocapture` prints the verdict table.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Level};

/// The protocol the compiled case types name (the model side writes its own header per format).
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0", format = "cbor")]
pub struct P;

/// A real codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    /// ciborium 0.2.
    Cbor,
    /// rmp-serde 1, `to_vec_named`.
    Msgpack,
    /// rmp-serde 1, `to_vec`.
    MsgpackCompact,
}

use Codec::{Cbor, Msgpack, MsgpackCompact};
use Direction::{NewReadsOld, OldReadsNew};

const CODECS: [Codec; 3] = [Cbor, Msgpack, MsgpackCompact];

impl Codec {
    /// The `format` keyword.
    fn keyword(self) -> &'static str {
        match self {
            Cbor => "cbor",
            Msgpack => "msgpack",
            MsgpackCompact => "msgpack-compact",
        }
    }

    fn encode<T: Serialize>(self, value: &T) -> Vec<u8> {
        let out = match self {
            Cbor => {
                let mut bytes = Vec::new();
                ciborium::into_writer(value, &mut bytes)
                    .map(|()| bytes)
                    .map_err(|e| e.to_string())
            }
            Msgpack => rmp_serde::to_vec_named(value).map_err(|e| e.to_string()),
            MsgpackCompact => rmp_serde::to_vec(value).map_err(|e| e.to_string()),
        };
        out.unwrap_or_else(|e| panic!("{} cannot encode a value: {e}", self.keyword()))
    }

    fn decode<T: DeserializeOwned>(self, bytes: &[u8]) -> Result<T, String> {
        match self {
            Cbor => ciborium::from_reader(bytes).map_err(|e| e.to_string()),
            Msgpack | MsgpackCompact => rmp_serde::from_slice(bytes).map_err(|e| e.to_string()),
        }
    }
}

/// A value as JSON, for comparing what was written with what was read (a value JSON cannot hold, a
/// 128-bit integer beyond 64 bits, renders as its `Debug` text).
fn rendered<T: Serialize + std::fmt::Debug>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|_| Value::String(format!("{value:?}")))
}

/// Renames the writer's field names and variant tags to the reader's (`(from, to)` pairs), everywhere in
/// `v` (a tag is a string value: an internally tagged enum's `"op": "Drop"`, or a serde_repr
/// discriminant: `("0", "Low")` makes `0` the reader's `"Low"`).
fn rename(v: Value, names: &[(&str, &str)]) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| {
                    let k = names
                        .iter()
                        .find(|(from, _)| *from == k)
                        .map_or(k, |(_, to)| (*to).to_owned());
                    (k, rename(x, names))
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| rename(x, names)).collect()),
        Value::String(text) => Value::String(
            names
                .iter()
                .find(|(from, _)| *from == text)
                .map_or(text, |(_, to)| (*to).to_owned()),
        ),
        // A serde_repr variant's tag is its discriminant.
        Value::Number(n) => match names.iter().find(|(from, _)| *from == n.to_string()) {
            Some((_, to)) => Value::String((*to).to_owned()),
            None => Value::Number(n),
        },
        other => other,
    }
}

/// Whether the reader's rendering `r` is the writer's `w`: objects by key, arrays element by element, and
/// a string the same as the array of its UTF-8 bytes (a byte string read as text, or the reverse).
fn same(w: &Value, r: &Value) -> bool {
    match (w, r) {
        // Fields of one side only are no misread (a field added or removed); shared ones must agree.
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, x)| b.get(k).is_none_or(|y| same(x, y)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        // A tuple read as a struct by position, or the reverse.
        (Value::Array(a), Value::Object(b)) | (Value::Object(b), Value::Array(a)) => {
            a.len() == b.len() && a.iter().all(|x| b.values().any(|y| same(x, y)))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(s), Value::Array(b)) | (Value::Array(b), Value::String(s)) => {
            let bytes: Vec<Option<u64>> = b.iter().map(Value::as_u64).collect();
            let utf8: Vec<Option<u64>> = s.bytes().map(|x| Some(u64::from(x))).collect();
            bytes == utf8
        }
        _ => w == r,
    }
}

/// What the reader made of one written value (the reason and the value read are shown in the report).
#[derive(Debug)]
#[expect(
    dead_code,
    reason = "the fields are read through `Debug`, in the report"
)]
enum Outcome {
    Read,
    Rejected(String),
    Misread(Value),
}

/// A value as a witness shows it: as JSON renders it, or in `msgpack-compact` as the arrays rmp-serde's
/// `to_vec` writes its structs as.
fn shown<T: Serialize + std::fmt::Debug>(format: &str, value: &T) -> Value {
    match format {
        "msgpack-compact" => rmp_serde::to_vec(value)
            .ok()
            .and_then(|bytes| rmp_serde::from_slice(&bytes).ok())
            .unwrap_or_else(|| rendered(value)),
        _ => rendered(value),
    }
}

/// Encodes `value` with `codec` and decodes it as an `R`.
fn trip<W, R>(codec: Codec, value: &W, renames: &[(&str, &str)]) -> Outcome
where
    W: Serialize + std::fmt::Debug,
    R: Serialize + DeserializeOwned + std::fmt::Debug,
{
    match codec.decode::<R>(&codec.encode(value)) {
        Err(e) => Outcome::Rejected(e),
        Ok(read) => {
            let read = rendered(&read);
            if same(&rename(rendered(value), renames), &read) {
                Outcome::Read
            } else {
                Outcome::Misread(read)
            }
        }
    }
}

/// The engine's findings for one format: the major ones per direction, with their witnesses.
struct Engine {
    majors: Vec<(Direction, String, Option<Value>)>,
}

fn extract(format: &str, version: &str, types: &str) -> wirecheck::model::Snapshot {
    let text = format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n{types}\n"
    );
    let snap = snapshot_from_sources("case", &[("src/lib.rs", text.as_str())])
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(snap.notes.is_empty(), "{:?}\n{text}", snap.notes);
    snap
}

fn engine(codec: Codec, old: &str, new: &str) -> Engine {
    let format = codec.keyword();
    let (o, n) = (extract(format, "0.1.0", old), extract(format, "0.2.0", new));
    for s in [&o, &n] {
        assert_eq!(
            compare_protocol(s, s, "p", "v0.1.0", Scope::Full),
            vec![],
            "{format}: a side against itself"
        );
    }
    let all = compare_protocol(&o, &n, "p", "v0.1.0", Scope::Full);
    if std::env::var_os("FT_DEBUG").is_some() {
        eprintln!("{format}: {all:#?}");
    }
    let majors = all
        .into_iter()
        .filter(|f| f.level == Level::Major)
        .filter_map(|f| Some((f.direction?, f.rule.to_string(), f.witness)))
        .collect();
    Engine { majors }
}

/// One case, compiled: its sources, renames, the pairs that really break, and the probes of its types.
struct Case {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    breaks: &'static [(Codec, Direction)],
    /// Every listed value of the writer (`Rel`) encoded with the codec and read by the other release.
    values: fn(Codec, Direction) -> Vec<Outcome>,
    /// A witness (the writer's value as JSON) read by the writer's type, encoded and read by the other.
    witness: fn(Codec, Direction, &Value) -> Result<Outcome, String>,
}

fn breaks(outcomes: &[Outcome]) -> Option<&Outcome> {
    outcomes.iter().find(|o| !matches!(o, Outcome::Read))
}

fn check(case: &Case) {
    let mut wrong = Vec::new();
    for codec in CODECS {
        let eng = engine(codec, case.old, case.new);
        for dir in [OldReadsNew, NewReadsOld] {
            let values = (case.values)(codec, dir);
            let real = breaks(&values);
            let said: Vec<&(Direction, String, Option<Value>)> =
                eng.majors.iter().filter(|(d, ..)| *d == dir).collect();
            let mut witnessed = false;
            for (_, rule, witness) in &said {
                let Some(witness) = witness else { continue };
                match (case.witness)(codec, dir, witness) {
                    Ok(Outcome::Read) => wrong.push(format!(
                        "{codec:?} {dir}: the witness {witness} of {rule} reads back unchanged"
                    )),
                    Ok(_) => witnessed = true,
                    Err(e) => wrong.push(format!("{codec:?} {dir}: {rule}: {e}")),
                }
            }
            let really = real.is_some() || witnessed;
            let listed = case.breaks.contains(&(codec, dir));
            let rules: Vec<&str> = said.iter().map(|(_, r, _)| r.as_str()).collect();
            println!(
                "| {} | {} | {dir} | engine {rules:?} | real {:?} |",
                case.name,
                codec.keyword(),
                real
            );
            match (said.is_empty(), really) {
                (true, true) => wrong.push(format!("{codec:?} {dir}: FALSE NEGATIVE: {real:?}")),
                (false, false) => wrong.push(format!("{codec:?} {dir}: FALSE POSITIVE: {rules:?}")),
                _ => {}
            }
            if listed != really {
                wrong.push(format!(
                    "{codec:?} {dir}: the case lists it as {}, the codec says {}",
                    if listed { "breaking" } else { "compatible" },
                    if really { "breaking" } else { "compatible" }
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{}:\n{}\n--- old\n{}\n--- new\n{}",
        case.name,
        wrong.join("\n"),
        case.old,
        case.new
    );
}

/// The writer's value for a witness: the writer's type read from the witness's JSON.
fn witness_value<W: DeserializeOwned>(witness: &Value) -> Result<W, String> {
    serde_json::from_value(witness.clone())
        .map_err(|e| format!("the witness {witness} is no value of the writer's type: {e}"))
}

/// The writer's value for a witness in `codec`: read from its JSON, else (a `msgpack-compact` witness
/// holds structs and struct variants as the arrays that format writes, which serde_json reads for
/// structs only) from the witness transcoded by the codec itself.
fn codec_witness_value<W: Serialize + DeserializeOwned + std::fmt::Debug>(
    codec: Codec,
    witness: &Value,
) -> Result<W, String> {
    witness_value(witness).or_else(|by_json| {
        codec
            .decode::<W>(&codec.encode(witness))
            .map_err(|by_codec| format!("{by_json}; transcoded by {codec:?}: {by_codec}"))
    })
}

/// `case!(name, renames: [...], breaks: [...], old: { items }, new: { items }, old_values: [...],
/// new_values: [...])`: compiles the types as `name::old` / `name::new` (each with a `Msg` message) and a
/// test `name` that checks them.
macro_rules! case {
    (
        $name:ident,
        renames: [$(($from:literal, $to:literal)),* $(,)?],
        breaks: [$(($codec:ident, $dir:ident)),* $(,)?],
        old: { $($old:tt)* },
        new: { $($new:tt)* },
        old_values: [$($old_value:expr),+ $(,)?],
        new_values: [$($new_value:expr),+ $(,)?] $(,)?
    ) => {
        #[allow(dead_code)]
        mod $name {
            pub mod old {
                use crate::P;
                use serde::{Deserialize, Serialize};
                use wirecheck::Message;
                $($old)*
            }
            pub mod new {
                use crate::P;
                use serde::{Deserialize, Serialize};
                use wirecheck::Message;
                $($new)*
            }
        }

        #[test]
        fn $name() {
            use $name::{new, old};
            fn values(codec: Codec, dir: Direction) -> Vec<Outcome> {
                let renames: &[(&str, &str)] = &[$(($from, $to)),*];
                let back: Vec<(&str, &str)> = renames.iter().map(|(a, b)| (*b, *a)).collect();
                match dir {
                    OldReadsNew => vec![$(trip::<new::Msg, old::Msg>(codec, &$new_value, &back)),+],
                    NewReadsOld => vec![$(trip::<old::Msg, new::Msg>(codec, &$old_value, renames)),+],
                }
            }
            fn witness(codec: Codec, dir: Direction, w: &Value) -> Result<Outcome, String> {
                let renames: &[(&str, &str)] = &[$(($from, $to)),*];
                let back: Vec<(&str, &str)> = renames.iter().map(|(a, b)| (*b, *a)).collect();
                Ok(match dir {
                    OldReadsNew => trip::<new::Msg, old::Msg>(codec, &codec_witness_value::<new::Msg>(codec, w)?, &back),
                    NewReadsOld => trip::<old::Msg, new::Msg>(codec, &codec_witness_value::<old::Msg>(codec, w)?, renames),
                })
            }
            // The harness itself: each release reads its own values back unchanged.
            for codec in CODECS {
                for value in [$($old_value),+] {
                    let read = trip::<old::Msg, old::Msg>(codec, &value, &[]);
                    assert!(matches!(read, Outcome::Read), "old reads old ({codec:?}): {read:?}");
                }
                for value in [$($new_value),+] {
                    let read = trip::<new::Msg, new::Msg>(codec, &value, &[]);
                    assert!(matches!(read, Outcome::Read), "new reads new ({codec:?}): {read:?}");
                }
            }
            check(&Case {
                name: stringify!($name),
                old: stringify!($($old)*),
                new: stringify!($($new)*),
                breaks: &[$(($codec, $dir)),*],
                values,
                witness,
            });
        }
    };
}

// ----- a char through `DisplayFromStr`: a one-character string in every self-describing format -----

case!(
    char_as_display_from_str_is_the_same_string,
    renames: [],
    breaks: [],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub initial: char,
        }
    },
    new: {
        #[serde_with::serde_as]
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            #[serde_as(as = "serde_with::DisplayFromStr")]
            pub initial: char,
        }
    },
    old_values: [old::Msg { initial: 'a' }, old::Msg { initial: 'é' }],
    new_values: [new::Msg { initial: 'a' }, new::Msg { initial: '€' }],
);

// ----- an optional field skipped when `None`, become a string skipped when empty -----

case!(
    option_skipped_when_none_to_string_skipped_when_empty,
    renames: [],
    breaks: [],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub free: Option<String>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(default, skip_serializing_if = "String::is_empty")]
            pub free: String,
        }
    },
    old_values: [
        old::Msg { id: 0, free: None },
        old::Msg { id: 7, free: Some("x".to_owned()) },
    ],
    new_values: [
        new::Msg { id: 0, free: String::new() },
        new::Msg { id: 7, free: "x".to_owned() },
    ],
);

// ----- map keys: typed in CBOR and MessagePack, strings in JSON -----

case!(
    integer_keys_become_text_keys,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
        (MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub slots: std::collections::BTreeMap<u16, String>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub slots: std::collections::BTreeMap<String, String>,
        }
    },
    old_values: [old::Msg { slots: [(7, "gpu".to_owned())].into() }],
    new_values: [new::Msg { slots: [("7".to_owned(), "gpu".to_owned())].into() }],
);

case!(
    integer_keys_read_as_a_dynamic_value,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
        (MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub ranks: std::collections::BTreeMap<u32, bool>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub ranks: serde_json::Value,
        }
    },
    old_values: [old::Msg { ranks: [(3, true)].into() }],
    new_values: [new::Msg { ranks: serde_json::json!({"3": true}) }],
);

// ----- `#[serde(other)]` of an internally tagged enum -----

// `msgpack-compact` writes an internally tagged variant as `[tag, fields...]`: the `other` (unit)
// variant leaves the fields unread and serde's buffered sequence rejects them; a map's are skipped.
case!(
    other_takes_no_fields_in_compact_msgpack,
    renames: [("Drop", "Skipped")],
    breaks: [(MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String, to: String },
            Drop { path: String },
            #[serde(other)]
            Skipped,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String, to: String },
            #[serde(other)]
            Skipped,
        }
    },
    old_values: [
        old::Msg { step: old::Step::Drop { path: "/tmp/x".to_owned() } },
        old::Msg { step: old::Step::Skipped },
    ],
    new_values: [new::Msg { step: new::Step::Copy { from: "a".to_owned(), to: "b".to_owned() } }],
);

// A variant serde cannot write (an internally tagged newtype of an integer: "cannot serialize tagged
// newtype variant containing an integer"): added, it sends old readers nothing.
case!(
    unwritable_variant_added,
    renames: [],
    breaks: [],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String },
            #[serde(other)]
            Skipped,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String },
            Held(u32),
            #[serde(other)]
            Skipped,
        }
    },
    old_values: [old::Msg { step: old::Step::Copy { from: "a".to_owned() } }],
    new_values: [new::Msg { step: new::Step::Skipped }],
);

// A struct variant becoming a unit one: `[tag, fields...]` read as `[tag]` is rejected in
// msgpack-compact; the map formats' unit variant skips the other keys.
case!(
    struct_variant_becomes_unit_in_compact_msgpack,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Msgpack, OldReadsNew),
        (MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Start { id: u64 },
            Stop,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Start,
            Stop,
        }
    },
    old_values: [old::Msg { step: old::Step::Start { id: 9 } }],
    new_values: [new::Msg { step: new::Step::Start }],
);

// The `other` variant renamed on the wire: a reader takes the unknown name as its `other` variant,
// which is the variant written.
case!(
    other_variant_renamed_reads_as_itself,
    renames: [("Skipped", "skipped_v2")],
    breaks: [],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String },
            #[serde(other)]
            Skipped,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "op")]
        pub enum Step {
            Copy { from: String },
            #[serde(other, rename = "skipped_v2", alias = "Skipped")]
            Skipped,
        }
    },
    old_values: [old::Msg { step: old::Step::Skipped }],
    new_values: [new::Msg { step: new::Step::Skipped }],
);

// ----- internally tagged enums in msgpack-compact: the tag's key is not on the wire -----

// `msgpack-compact` writes an internally tagged variant as `[tag, fields...]`: the tag's key is on the
// wire only in the map formats.
case!(
    tag_key_renamed_is_nothing_in_compact_msgpack,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub event: Event,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "type")]
        pub enum Event {
            Start { id: u64 },
            Idle,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub event: Event,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(tag = "kind")]
        pub enum Event {
            Start { id: u64 },
            Idle,
        }
    },
    old_values: [old::Msg { event: old::Event::Start { id: 4 } }, old::Msg { event: old::Event::Idle }],
    new_values: [new::Msg { event: new::Event::Start { id: 5 } }, new::Msg { event: new::Event::Idle }],
);

// ----- a key of a flattened catch-all map promoted to a typed field -----

// Old writers put anything under any key of `extra`, `priority` included: the new release reads it as
// a `u8` and rejects what is not one (a reader upgraded first meets such payloads).
case!(
    catch_all_key_promoted_to_a_typed_field,
    renames: [],
    breaks: [(Cbor, NewReadsOld), (Msgpack, NewReadsOld), (MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(flatten)]
            pub extra: std::collections::BTreeMap<String, serde_json::Value>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(default)]
            pub priority: u8,
            #[serde(flatten)]
            pub extra: std::collections::BTreeMap<String, serde_json::Value>,
        }
    },
    old_values: [
        old::Msg { id: 1, extra: [("priority".to_owned(), serde_json::json!("high"))].into() },
        old::Msg { id: 2, extra: Default::default() },
    ],
    new_values: [new::Msg { id: 3, priority: 4, extra: Default::default() }],
);

// The map's values are all ones the new field reads: new readers reject nothing (old readers do reject
// the new field's values past a `u8`, read into their map).
case!(
    catch_all_key_promoted_to_a_wider_field,
    renames: [],
    breaks: [(Cbor, OldReadsNew), (Msgpack, OldReadsNew), (MsgpackCompact, OldReadsNew)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(flatten)]
            pub limits: std::collections::BTreeMap<String, u8>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(default)]
            pub cpu: u16,
            #[serde(flatten)]
            pub limits: std::collections::BTreeMap<String, u8>,
        }
    },
    old_values: [old::Msg { id: 1, limits: [("cpu".to_owned(), 200)].into() }],
    new_values: [new::Msg { id: 3, cpu: 4, limits: [("mem".to_owned(), 9)].into() }],
);

// ----- tuples -----

case!(
    tuple_grown_by_one,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
        (MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub owner: Option<(String, u32)>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub owner: Option<(String, u32, u32)>,
        }
    },
    old_values: [old::Msg { owner: Some(("a".to_owned(), 1)) }],
    new_values: [new::Msg { owner: Some(("b".to_owned(), 2, 3)) }],
);

// ----- a serde_repr enum read as an externally tagged one -----

// rmp-serde reads a bare integer as a unit variant's index: discriminants that are the indices read as
// the same variants there; ciborium (and serde_json) ask for a string or a map.
case!(
    integer_enum_read_by_index_in_messagepack,
    renames: [("0", "Low"), ("1", "High")],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (MsgpackCompact, OldReadsNew),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(serde_repr::Serialize_repr, serde_repr::Deserialize_repr, Debug)]
        #[repr(u8)]
        pub enum Level {
            Low = 0,
            High = 1,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub enum Level {
            Low,
            High,
        }
    },
    old_values: [old::Msg { level: old::Level::Low }, old::Msg { level: old::Level::High }],
    new_values: [new::Msg { level: new::Level::High }],
);

// Discriminants that are not the indices: `1` is read as the second variant, `2` is no index.
case!(
    integer_enum_read_by_index_misread,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
        (MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(serde_repr::Serialize_repr, serde_repr::Deserialize_repr, Debug)]
        #[repr(u8)]
        pub enum Level {
            Low = 1,
            High = 2,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub enum Level {
            Low,
            High,
        }
    },
    old_values: [old::Msg { level: old::Level::Low }, old::Msg { level: old::Level::High }],
    new_values: [new::Msg { level: new::Level::High }],
);

// A serde_repr enum and an integer newtype write the same integers: compared by the integers.
case!(
    integer_enum_becomes_integer_newtype,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Msgpack, OldReadsNew), (MsgpackCompact, OldReadsNew),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(serde_repr::Serialize_repr, serde_repr::Deserialize_repr, Debug)]
        #[repr(u8)]
        pub enum Level {
            Low = 1,
            High = 7,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub level: Level,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub struct Level(pub u16);
    },
    old_values: [old::Msg { level: old::Level::Low }, old::Msg { level: old::Level::High }],
    new_values: [new::Msg { level: new::Level(7) }, new::Msg { level: new::Level(300) }],
);

// ----- untagged enums -----

// A variant becoming a dynamic value that comes first: a `Host` payload is read as
// `Rank(Value)` in the new release, which writes it back as it came. The new release's own `Host` is
// read the same way: no misread of this change's (the value the new release writes, any value, is
// another matter: old readers reject a `Rank` that is no `u32`).
case!(
    untagged_variant_shadowed_by_a_dynamic_value_alike,
    renames: [],
    breaks: [(Cbor, OldReadsNew), (Msgpack, OldReadsNew), (MsgpackCompact, OldReadsNew)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub target: Target,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(untagged)]
        pub enum Target {
            Rank(u32),
            Host(String),
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub target: Target,
        }

        #[derive(Serialize, Deserialize, Debug)]
        #[serde(untagged)]
        pub enum Target {
            Rank(serde_json::Value),
            Host(String),
        }
    },
    old_values: [
        old::Msg { target: old::Target::Rank(7) },
        old::Msg { target: old::Target::Host("node1".to_owned()) },
    ],
    new_values: [
        new::Msg { target: new::Target::Rank(serde_json::json!(3)) },
        new::Msg { target: new::Target::Host("node2".to_owned()) },
    ],
);

// ----- numbers: ciborium's float reader takes no integer; rmp-serde writes 128 bits as bytes -----

case!(
    integer_becomes_float,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew),
        (MsgpackCompact, OldReadsNew),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub load: u16,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub load: f64,
        }
    },
    old_values: [old::Msg { load: 3 }],
    new_values: [new::Msg { load: 0.25 }],
);

case!(
    wide_integer_narrowed,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew),
        (Msgpack, OldReadsNew),
        (MsgpackCompact, OldReadsNew),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub total: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub total: u128,
        }
    },
    old_values: [old::Msg { total: 12 }],
    new_values: [
        new::Msg { total: 12 },
        new::Msg { total: u128::from(u64::MAX) + 1 },
    ],
);

// ----- byte strings and text -----

case!(
    bytes_become_text,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, NewReadsOld),
        (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub digest: serde_bytes::ByteBuf,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub digest: String,
        }
    },
    old_values: [
        old::Msg { digest: serde_bytes::ByteBuf::from(b"ok".to_vec()) },
        old::Msg { digest: serde_bytes::ByteBuf::from(vec![0xc3, 0x28]) },
    ],
    new_values: [new::Msg { digest: "ok".to_owned() }],
);

case!(
    bytes_become_a_byte_vector,
    renames: [],
    breaks: [],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub blob: serde_bytes::ByteBuf,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub blob: Vec<u8>,
        }
    },
    old_values: [old::Msg { blob: serde_bytes::ByteBuf::from(vec![1, 255]) }],
    new_values: [new::Msg { blob: vec![9, 0] }],
);

// ----- unit structs: an empty array in MessagePack -----

case!(
    unit_struct_becomes_unit,
    renames: [],
    breaks: [(Msgpack, NewReadsOld), (MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u8,
            pub done: Done,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub struct Done;
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u8,
            pub done: (),
        }
    },
    old_values: [old::Msg { id: 1, done: old::Done }],
    new_values: [new::Msg { id: 1, done: () }],
);

// ----- structs: maps by name in CBOR and `msgpack`, arrays by position in `msgpack-compact` -----

case!(
    fields_swap_places,
    renames: [],
    breaks: [(MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub nodes: u32,
            pub cores: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub cores: u32,
            pub nodes: u32,
        }
    },
    old_values: [old::Msg { nodes: 2, cores: 16 }],
    new_values: [new::Msg { cores: 16, nodes: 2 }],
);

case!(
    field_renamed_in_place,
    renames: [("owner", "user")],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub owner: String,
            pub size: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub user: String,
            pub size: u8,
        }
    },
    old_values: [old::Msg { owner: "ana".to_owned(), size: 4 }],
    new_values: [new::Msg { user: "ana".to_owned(), size: 4 }],
);

case!(
    trailing_field_with_default_added,
    renames: [],
    breaks: [(MsgpackCompact, OldReadsNew)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(default)]
            pub retries: u16,
        }
    },
    old_values: [old::Msg { id: 5 }],
    new_values: [new::Msg { id: 5, retries: 0 }],
);

case!(
    trailing_option_without_default_added,
    renames: [],
    breaks: [(MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            pub queue: Option<String>,
        }
    },
    old_values: [old::Msg { id: 5 }],
    new_values: [new::Msg { id: 5, queue: None }],
);

case!(
    tuple_struct_becomes_braced,
    renames: [],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub span: Span,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub struct Span(pub u32, pub u32);
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub span: Span,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub struct Span {
            pub start: u32,
            pub end: u32,
        }
    },
    old_values: [old::Msg { span: old::Span(1, 9) }],
    new_values: [new::Msg { span: new::Span { start: 1, end: 9 } }],
);

case!(
    struct_variant_fields_reordered,
    renames: [],
    breaks: [(MsgpackCompact, OldReadsNew), (MsgpackCompact, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub enum Step {
            Idle,
            Move { dx: i32, dy: i32 },
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub step: Step,
        }

        #[derive(Serialize, Deserialize, Debug)]
        pub enum Step {
            Idle,
            Move { dy: i32, dx: i32 },
        }
    },
    old_values: [old::Msg { step: old::Step::Move { dx: 1, dy: -1 } }, old::Msg { step: old::Step::Idle }],
    new_values: [new::Msg { step: new::Step::Move { dy: -1, dx: 1 } }],
);

// ----- a release that rejects what it writes itself (`self_rejected`), in every format -----

/// `value` written in `format` by the real codec and read back by the same type: whether it comes back.
fn reads_itself<T>(format: &str, value: &T) -> bool
where
    T: Serialize + DeserializeOwned + std::fmt::Debug,
{
    let back: Result<T, String> = match format {
        "json" => serde_json::to_vec(value)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string())),
        "postcard" => postcard::to_allocvec(value)
            .map_err(|e| e.to_string())
            .and_then(|b| postcard::from_bytes(&b).map_err(|e| e.to_string())),
        other => {
            let codec = CODECS
                .into_iter()
                .find(|c| c.keyword() == other)
                .unwrap_or_else(|| panic!("no codec for {other}"));
            codec.decode(&codec.encode(value))
        }
    };
    back.is_ok_and(|back| same(&rendered(value), &rendered(&back)))
}

/// The engine's `self_rejected` findings (majors, with their witnesses) for `old` → `new` in `format`.
fn self_rejected_findings(format: &str, old: &str, new: &str) -> Vec<Option<Value>> {
    let (o, n) = (extract(format, "0.1.0", old), extract(format, "0.2.0", new));
    compare_protocol(&o, &n, "p", "v0.1.0", Scope::Full)
        .into_iter()
        .filter(|f| f.rule.as_str() == "self_rejected" && f.level == Level::Major)
        .map(|f| f.witness)
        .collect()
}

/// `self_case!(name, formats: [...], reported: bool, old: { items }, new: { items }, old_value: ..,
/// new_value: ..)`: in each format, the engine reports `self_rejected` exactly when `reported`, which is
/// when the new release's value does not come back through the new release with the real codec; its
/// witness, read as the new release's value and written by the real codec, does not come back either;
/// the old release's value does.
macro_rules! self_case {
    (
        $name:ident,
        formats: [$($format:literal),+ $(,)?],
        reported: $reported:literal,
        old: { $($old:tt)* },
        new: { $($new:tt)* },
        old_value: $old_value:expr,
        new_value: $new_value:expr $(,)?
    ) => {
        #[allow(dead_code)]
        mod $name {
            pub mod old {
                use crate::P;
                use serde::{Deserialize, Serialize};
                use wirecheck::Message;
                $($old)*
            }
            pub mod new {
                use crate::P;
                use serde::{Deserialize, Serialize};
                use wirecheck::Message;
                $($new)*
            }
        }

        #[test]
        fn $name() {
            use $name::{new, old};
            for format in [$($format),+] {
                assert!(reads_itself(format, &$old_value), "{format}: the old release reads itself");
                assert_eq!(
                    reads_itself(format, &$new_value),
                    !$reported,
                    "{format}: whether the new release reads its value back"
                );
                let found = self_rejected_findings(format, stringify!($($old)*), stringify!($($new)*));
                assert_eq!(!found.is_empty(), $reported, "{format}: {found:?}");
                for witness in found {
                    let witness = witness.unwrap_or_else(|| panic!("{format}: no witness"));
                    match witness_value::<new::Msg>(&witness) {
                        // By position: the value whose bytes leave a field out.
                        Ok(value) => assert!(
                            !reads_itself(format, &value),
                            "{format}: the witness {witness} comes back through the new release"
                        ),
                        // By name: the payload itself, which the new release writes (as its value
                        // renders) and cannot read.
                        Err(_) => assert_eq!(
                            witness,
                            shown(format, &$new_value),
                            "{format}: the witness is what the new release writes"
                        ),
                    }
                }
            }
        }
    };
}

self_case!(
    struct_tag_next_to_deny_unknown_fields,
    formats: ["json", "cbor", "msgpack"],
    reported: true,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        #[serde(tag = "type")]
        pub struct Msg {
            pub rank: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        #[serde(tag = "type", deny_unknown_fields)]
        pub struct Msg {
            pub rank: u32,
        }
    },
    old_value: old::Msg { rank: 3 },
    new_value: new::Msg { rank: 0 },
);

self_case!(
    required_field_left_out_when_empty,
    formats: ["json", "cbor", "msgpack"],
    reported: true,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub queue: Option<String>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_serializing_if = "String::is_empty")]
            pub queue: String,
        }
    },
    old_value: old::Msg { id: 1, queue: None },
    new_value: new::Msg { id: 0, queue: String::new() },
);

self_case!(
    skipped_field_before_another_by_position,
    formats: ["postcard", "msgpack-compact"],
    reported: true,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub note: Option<String>,
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub note: Option<String>,
            pub id: u64,
        }
    },
    old_value: old::Msg { note: None, id: 4 },
    new_value: new::Msg { note: None, id: 4 },
);

self_case!(
    skipped_last_field_with_default_in_compact_messagepack,
    formats: ["msgpack-compact", "msgpack", "cbor", "json"],
    reported: false,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub note: Option<String>,
        }
    },
    old_value: old::Msg { id: 4 },
    new_value: new::Msg { id: 4, note: None },
);

self_case!(
    struct_tag_read_by_position,
    formats: ["msgpack-compact", "postcard"],
    reported: true,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub rank: u32,
            pub name: String,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        #[serde(tag = "kind")]
        pub struct Msg {
            pub rank: u32,
            pub name: String,
        }
    },
    old_value: old::Msg { rank: 3, name: "a".into() },
    new_value: new::Msg { rank: 0, name: String::new() },
);

self_case!(
    struct_tag_read_by_name,
    formats: ["json", "cbor", "msgpack"],
    reported: false,
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub rank: u32,
            pub name: String,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        #[serde(tag = "kind")]
        pub struct Msg {
            pub rank: u32,
            pub name: String,
        }
    },
    old_value: old::Msg { rank: 3, name: "a".into() },
    new_value: new::Msg { rank: 0, name: String::new() },
);

// ----- std types whose fields meet by position: a `Duration` where a `SystemTime` is read -----

case!(
    duration_read_as_a_system_time_by_position,
    renames: [("secs", "secs_since_epoch"), ("nanos", "nanos_since_epoch")],
    breaks: [
        (Cbor, OldReadsNew), (Cbor, NewReadsOld),
        (Msgpack, OldReadsNew), (Msgpack, NewReadsOld),
        (MsgpackCompact, NewReadsOld),
    ],
    old: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub at: std::time::Duration,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message, Debug)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub at: std::time::SystemTime,
        }
    },
    old_values: [
        old::Msg { at: std::time::Duration::from_secs(5) },
        old::Msg { at: std::time::Duration::new(u64::MAX, 0) },
    ],
    new_values: [new::Msg { at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(5) }],
);

// An untagged enum's struct variant: `msgpack-compact` writes it as an array, and serde reads an
// untagged struct variant from a map only (its derive has no `visit_seq`); the formats naming fields
// write a map and read it back. One pair of types, checked in both groups of formats.
macro_rules! untagged_struct_case {
    ($name:ident, formats: [$($format:literal),+], reported: $reported:literal) => {
        self_case!(
            $name,
            formats: [$($format),+],
            reported: $reported,
            old: {
                #[derive(Serialize, Deserialize, Message, Debug)]
                #[wire(protocol = P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub id: JobRef,
                    pub keys: Vec<String>,
                }

                #[derive(Serialize, Deserialize, Debug)]
                #[serde(untagged)]
                pub enum JobRef {
                    Num(u64),
                    Text(String),
                }
            },
            new: {
                #[derive(Serialize, Deserialize, Message, Debug)]
                #[wire(protocol = P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub id: JobRef,
                    pub keys: Vec<String>,
                }

                #[derive(Serialize, Deserialize, Debug)]
                #[serde(untagged)]
                pub enum JobRef {
                    Num(u64),
                    Text(String),
                    Running { value: String },
                }
            },
            old_value: old::Msg { id: old::JobRef::Num(7), keys: vec![] },
            new_value: new::Msg { id: new::JobRef::Running { value: String::new() }, keys: vec![] },
        );
    };
}

untagged_struct_case!(untagged_struct_variant_in_compact, formats: ["msgpack-compact"], reported: true);
untagged_struct_case!(
    untagged_struct_variant_by_name,
    formats: ["json", "cbor", "msgpack"],
    reported: false
);
