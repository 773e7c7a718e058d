#![cfg(feature = "checker")]
//! std types as wirecheck models them, checked against serde's real impls with serde_json, bincode 2
//! (`config::standard()` and `config::legacy()`) and postcard.
//!
//! **Shapes.** Each `shape!` case compiles a message `Msg { x: T }` for a std type `T` and extracts its
//! model from the same tokens. Real values of `T` are encoded with each codec; the bytes are read back
//! through the *model* (an interpreter that drives serde's data model from a model `Ty`: a struct by its
//! fields, an enum by its variants, `Readable` by the format's `is_human_readable()`), and the value read
//! is written again through the model: it must consume every byte and give the very same bytes. So the
//! model's shape is, byte for byte, what serde writes for the type, in every format. Then the golden
//! payloads wirecheck's sampler writes for the message (`wirecheck::fixtures`) must decode as the real
//! type with serde_json, and read back as themselves (a writer of the type could have written them).
//!
//! **Changes.** Each `change!` case compiles an old and a new `Msg` and compares the engine's verdict per
//! format and direction (a major finding, or none) with what really happens when real sample values of
//! the writer's type are encoded and decoded as the reader's type (an error, bytes left unread, or a
//! value that renders differently as JSON is a break). Every major finding's witness is written through
//! the writer's model with the codec: a real writer must decode it and write the same bytes, and the
//! reader must break on it.
//!
//! `Rc` and `Arc` are not compiled here (serde implements them behind its `rc` feature, not enabled in
//! this build); serde's impl for them is the one `Box` has.
//!
//! `cargo test --features checker --test std_truth -- --nocapture` prints the verdict table.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{NonZeroI8, NonZeroU32, NonZeroU64, Saturating, Wrapping};
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wirecheck::schema::{SchemaRole, message_schema};

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Level};
use wirecheck::model::{Snapshot, Ty};

/// The protocol the compiled case types name (the extracted source writes its own header per format).
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0", format = "json")]
pub struct P;

// ----- the real codecs -----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Json,
    /// `bincode::config::standard()`: varint integers.
    BincodeStandard,
    /// `bincode::config::legacy()`: fixed-width integers.
    BincodeLegacy,
    Postcard,
}

use Codec::{BincodeLegacy, BincodeStandard, Json, Postcard};
use Direction::{NewReadsOld, OldReadsNew};

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Json => "json",
            BincodeStandard => "bincode standard",
            BincodeLegacy => "bincode legacy",
            Postcard => "postcard",
        })
    }
}

/// The codecs of a protocol `format`.
fn codecs(format: &str) -> &'static [Codec] {
    match format {
        "json" => &[Json],
        "bincode" => &[BincodeStandard, BincodeLegacy],
        _ => &[Postcard],
    }
}

const FORMATS: &[&str] = &["json", "bincode", "postcard"];

/// A decode limit for bincode (a misread length prefix would otherwise allocate that much up front).
const LIMIT: usize = 1 << 20;

fn encode<T: Serialize + ?Sized>(c: Codec, v: &T) -> Result<Vec<u8>, String> {
    match c {
        Json => serde_json::to_vec(v).map_err(|e| e.to_string()),
        BincodeStandard => {
            bincode::serde::encode_to_vec(v, bincode::config::standard()).map_err(|e| e.to_string())
        }
        BincodeLegacy => {
            bincode::serde::encode_to_vec(v, bincode::config::legacy()).map_err(|e| e.to_string())
        }
        Postcard => postcard::to_allocvec(v).map_err(|e| e.to_string()),
    }
}

/// The value `seed` reads from `b` and the number of bytes it consumed.
fn decode_seed<'de, S: DeserializeSeed<'de>>(
    c: Codec,
    seed: S,
    b: &'de [u8],
) -> Result<(S::Value, usize), String> {
    match c {
        Json => {
            let mut de = serde_json::Deserializer::from_slice(b);
            let v = seed.deserialize(&mut de).map_err(|e| e.to_string())?;
            // Whitespace aside, whatever follows the value is left unread.
            de.end().map_err(|e| e.to_string())?;
            Ok((v, b.len()))
        }
        BincodeStandard => bincode::serde::seed_decode_from_slice(
            seed,
            b,
            bincode::config::standard().with_limit::<LIMIT>(),
        )
        .map_err(|e| e.to_string()),
        BincodeLegacy => bincode::serde::seed_decode_from_slice(
            seed,
            b,
            bincode::config::legacy().with_limit::<LIMIT>(),
        )
        .map_err(|e| e.to_string()),
        Postcard => {
            let mut de = postcard::Deserializer::from_bytes(b);
            let v = seed.deserialize(&mut de).map_err(|e| e.to_string())?;
            let rest = de.finalize().map_err(|e| e.to_string())?;
            Ok((v, b.len() - rest.len()))
        }
    }
}

fn decode<T: DeserializeOwned>(c: Codec, b: &[u8]) -> Result<(T, usize), String> {
    decode_seed(c, std::marker::PhantomData::<T>, b)
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v)
        .unwrap_or_else(|e| panic!("{} as JSON: {e}", std::any::type_name::<T>()))
}

#[path = "std_truth/model.rs"]
mod model;

use model::{Model, Write};

// ----- the engine's side -----

/// The crate source the extractor reads: the protocol header for `format`, then `Msg { x: <ty> }`.
fn source(format: &str, version: &str, ty: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n\
         #[derive(Serialize, Deserialize, Message)]\n\
         #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\n\
         pub struct Msg {{\n    pub x: {ty},\n}}\n\n\
         mod mirror {{\n    use super::*;\n    {MIRRORS}\n}}\n"
    )
}

fn extract(format: &str, version: &str, ty: &str) -> Snapshot {
    let text = source(format, version, ty);
    let snap = snapshot_from_sources("case", &[("src/lib.rs", text.as_str())])
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(snap.notes.is_empty(), "{:?}\n{text}", snap.notes);
    assert_eq!(snap.messages.len(), 1, "{text}");
    snap
}

/// The message's model.
fn message(snap: &Snapshot) -> Model<'_> {
    Model {
        types: &snap.types,
        ty: Ty::Named {
            path: snap.messages[0].rust_path.clone(),
            args: Vec::new(),
        },
    }
}

// ----- shapes -----

/// `v` encoded by the real impl, read through the model and written again through it: the same bytes.
fn shape_trip<T: Serialize>(c: Codec, model: &Model<'_>, v: &T) -> Result<(), String> {
    let bytes = encode(c, v)?;
    let (read, n) = decode_seed(c, model.clone(), &bytes)
        .map_err(|e| format!("the model does not read {}: {e}", json(v)))?;
    if n < bytes.len() {
        return Err(format!(
            "the model reads {} of {} bytes of {}",
            n,
            bytes.len(),
            json(v)
        ));
    }
    let again = encode(
        c,
        &Write {
            m: model.clone(),
            v: read.clone(),
        },
    )
    .map_err(|e| format!("the model does not write {read}: {e}"))?;
    if again != bytes {
        return Err(format!(
            "the model writes {read} as {again:?}, serde as {bytes:?}"
        ));
    }
    if c == Json && read != json(v) {
        return Err(format!("the model reads {read}, serde wrote {}", json(v)));
    }
    Ok(())
}

/// Sampler payloads whose disagreement with the real type is known, with the reason: (type as written,
/// case, why).
const SAMPLER_KNOWN: &[(&str, &str, &str)] = &[
    ("std::time::Duration", "boundary:max", DURATION_OVERFLOW),
    ("core::time::Duration", "boundary:max", DURATION_OVERFLOW),
    (
        "std::time::SystemTime",
        "boundary:max",
        "the model's seconds end where the platform's SystemTime does (i64::MAX), but serde's reader \
         carries nanos of a second and more into them, past that end",
    ),
    ("std::ffi::OsString", "variant:OsString::Windows", OS_STRING),
    (
        "std::ffi::OsString",
        "variant:OsString::Windows minimal",
        OS_STRING,
    ),
    (
        "std::ffi::OsString",
        "variant:OsString::Windows boundary:max",
        OS_STRING,
    ),
];

const DURATION_OVERFLOW: &str = "serde's reader carries nanos of a second and more into the seconds and \
     rejects an overflow; writers never write such nanos, which the model's u32 cannot say";

const OS_STRING: &str = "each platform writes its own variant and rejects the other's (this test runs on \
     Unix); the model keeps both, since the peers' platforms are not known";

/// The model of `Msg { x: <ty> }` against the real `M` and its real `values` in every codec, and the
/// sampler's golden payloads of the model against the real type.
fn check_shape<M: Serialize + DeserializeOwned>(ty: &str, values: &[M]) {
    let snap = extract("json", "0.1.0", ty);
    let model = message(&snap);
    let mut wrong = Vec::new();
    for v in values {
        for c in [Json, BincodeStandard, BincodeLegacy, Postcard] {
            if let Err(e) = shape_trip(c, &model, v) {
                wrong.push(format!("{c}: {e}"));
            }
        }
    }
    // `wirecheck schema`: the JSON of every real value validates against the writer's and the reader's
    // schemas.
    for role in [SchemaRole::Writer, SchemaRole::Reader] {
        let schema = message_schema(&snap, &snap.messages[0], role).expect("a JSON protocol");
        let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
        for v in values {
            if let Err(e) = validator.validate(&json(v)) {
                wrong.push(format!("{role:?} schema: {} rejected: {e}", json(v)));
            }
        }
    }
    for file in wirecheck::fixtures::protocol_files(&snap, "p") {
        let doc: Value = serde_json::from_str(&file.text).expect("fixture files are JSON");
        for case in doc["cases"].as_array().into_iter().flatten() {
            let name = case["case"].as_str().unwrap_or_default();
            let payload = &case["payload"];
            let got = match serde_json::from_value::<M>(payload.clone()) {
                Err(e) => Err(format!("rejected: {e}")),
                Ok(m) if json(&m) != *payload => Err(format!("reads back as {}", json(&m))),
                Ok(_) => Ok(()),
            };
            let known = SAMPLER_KNOWN
                .iter()
                .find(|(t, c, _)| *t == ty && *c == name);
            match (got, known) {
                (Ok(()), None) => {}
                (Ok(()), Some(_)) => wrong.push(format!(
                    "sampler case {name} is listed as known but agrees with {ty}"
                )),
                (Err(e), Some((_, _, why))) => {
                    println!("| {ty} | sampler {name} {payload} | {e} | known: {why} |");
                }
                (Err(e), None) => wrong.push(format!("sampler case {name}: {payload}: {e}")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{ty}:\n{}\nmodel: {:#?}",
        wrong.join("\n"),
        snap.types
    );
}

/// `shape!(test_name, Type)`: the model of `Type` against serde's impl, on the type's [`Samples`].
macro_rules! shape {
    ($name:ident, $ty:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[derive(Serialize, Deserialize, wirecheck::Message)]
            #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
            pub struct Msg {
                pub x: $ty,
            }
        }

        #[test]
        fn $name() {
            let values: Vec<$name::Msg> = <$ty as Samples>::samples()
                .into_iter()
                .map(|x| $name::Msg { x })
                .collect();
            check_shape(stringify!($ty), &values);
        }
    };
}

// ----- changes -----

/// Which release's type writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Old,
    New,
}

/// What really happens in one direction.
#[derive(Debug)]
enum Real {
    /// Every sample decoded whole and unchanged.
    Ok(usize),
    /// A sample the reader rejects.
    Error(String),
    /// A sample the reader decodes without consuming all of it.
    Trailing(String),
    /// A sample the reader decodes as another value.
    Misread(String),
}

impl Real {
    fn breaks(&self) -> bool {
        !matches!(self, Real::Ok(_))
    }
}

impl fmt::Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Real::Ok(n) => write!(f, "ok ({n} samples)"),
            Real::Error(e) => write!(f, "error: {e}"),
            Real::Trailing(e) => write!(f, "trailing: {e}"),
            Real::Misread(e) => write!(f, "misread: {e}"),
        }
    }
}

/// `bytes` (written by a `W`, rendered as `wrote`) decoded as an `R`.
fn read_as<R: Serialize + DeserializeOwned>(c: Codec, wrote: &Value, bytes: &[u8]) -> Option<Real> {
    match decode::<R>(c, bytes) {
        Err(e) => Some(Real::Error(format!("{wrote} → {e}"))),
        Ok((_, n)) if n < bytes.len() => Some(Real::Trailing(format!(
            "{wrote}: {} of {} bytes read",
            n,
            bytes.len()
        ))),
        Ok((r, _)) if json(&r) != *wrote => {
            Some(Real::Misread(format!("{wrote} read as {}", json(&r))))
        }
        Ok(_) => None,
    }
}

/// Every sample of the writer `W` encoded with `c` and decoded as the reader `R`.
fn probe<W: Serialize, R: Serialize + DeserializeOwned>(c: Codec, samples: &[W]) -> Real {
    for w in samples {
        let bytes = encode(c, w).unwrap_or_else(|e| panic!("{c} cannot encode a sample: {e}"));
        if let Some(broken) = read_as::<R>(c, &json(w), &bytes) {
            return broken;
        }
    }
    Real::Ok(samples.len())
}

/// A witness's bytes: a real `W` must decode them whole and write the same bytes (a writer could have
/// sent them); then what an `R` makes of them.
fn witness_real<W, R>(c: Codec, bytes: &[u8]) -> Result<Real, String>
where
    W: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    let (w, n) = decode::<W>(c, bytes).map_err(|e| format!("no writer writes it: {e}"))?;
    let again = encode(c, &w)?;
    if n < bytes.len() || again != bytes {
        return Err(format!(
            "no writer writes it: the writer reads {} and writes {again:?}, not {bytes:?}",
            json(&w)
        ));
    }
    Ok(read_as::<R>(c, &json(&w), bytes).unwrap_or(Real::Ok(1)))
}

struct Change {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    /// Engine breaks that the named codec does not have, knowingly.
    conservative: &'static [(Codec, Direction)],
    /// Encodes samples of the first release's `Msg` and decodes them as the second's.
    real: fn(Codec, Rel, Rel) -> Real,
    /// A witness's bytes, written by the given release, checked with the real types.
    witness: fn(Codec, Rel, &[u8]) -> Result<Real, String>,
}

fn check_change(case: &Change) {
    let mut wrong = Vec::new();
    for format in FORMATS {
        let (old, new) = (
            extract(format, "0.1.0", case.old),
            extract(format, "0.2.0", case.new),
        );
        for &c in codecs(format) {
            for side in [Rel::Old, Rel::New] {
                let real = (case.real)(c, side, side);
                if real.breaks() {
                    wrong.push(format!("{c}: {side:?} cannot read its own samples: {real}"));
                }
            }
        }
        let found = compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full);
        for d in [OldReadsNew, NewReadsOld] {
            let majors: Vec<_> = found
                .iter()
                .filter(|f| f.level == Level::Major && f.direction == Some(d))
                .collect();
            let (writer, reader, written) = match d {
                OldReadsNew => (Rel::New, Rel::Old, &new),
                NewReadsOld => (Rel::Old, Rel::New, &old),
            };
            let shown = if majors.is_empty() {
                "compatible".to_owned()
            } else {
                let rules: Vec<String> = majors.iter().map(|f| f.rule.to_string()).collect();
                format!("break: {}", rules.join(", "))
            };
            for &c in codecs(format) {
                let real = (case.real)(c, writer, reader);
                let listed = case.conservative.contains(&(c, d));
                let verdict = match (majors.is_empty(), real.breaks()) {
                    (true, true) => "FALSE NEGATIVE",
                    (false, false) if listed => "conservative",
                    (false, false) => "FALSE POSITIVE",
                    _ if listed => "listed as conservative but agrees",
                    _ => "agree",
                };
                println!(
                    "\n| {} | {c} | {d} | {shown} | {real} | {verdict} |",
                    case.name
                );
                if verdict != "agree" && verdict != "conservative" {
                    wrong.push(format!("{c}, {d}: {verdict}: engine {shown}; real {real}"));
                }
                for f in &majors {
                    let Some(w) = &f.witness else { continue };
                    let write = Write {
                        m: message(written),
                        v: w.clone(),
                    };
                    let checked = encode(c, &write)
                        .map_err(|e| format!("not of the writer's model: {e}"))
                        .and_then(|bytes| (case.witness)(c, writer, &bytes));
                    match checked {
                        Ok(r) if r.breaks() || listed => {
                            println!("| witness {w} | {c} | {d} | {r} |");
                        }
                        Ok(_) => wrong.push(format!(
                            "{c}, {d}: the witness {w} of {} decodes whole and unchanged",
                            f.rule
                        )),
                        Err(e) => {
                            wrong.push(format!("{c}, {d}: the witness {w} of {}: {e}", f.rule))
                        }
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{}: {} → {}\n{}",
        case.name,
        case.old,
        case.new,
        wrong.join("\n")
    );
}

/// `change!(test_name, Old => New, conservative: [(codec, direction), ...])`: a message `Msg { x }`
/// whose field type changes, checked in both directions in every format.
macro_rules! change {
    ($name:ident, $old:ty => $new:ty, conservative: [$(($codec:ident, $dir:ident)),* $(,)?]) => {
        mod $name {
            pub mod old {
                #[allow(unused_imports)]
                use crate::*;

                #[derive(Serialize, Deserialize, wirecheck::Message)]
                #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $old,
                }
            }

            pub mod new {
                #[allow(unused_imports)]
                use crate::*;

                #[derive(Serialize, Deserialize, wirecheck::Message)]
                #[wire(protocol = crate::P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $new,
                }
            }
        }

        #[test]
        fn $name() {
            use $name::{new, old};
            fn real(c: Codec, w: Rel, r: Rel) -> Real {
                let olds: Vec<old::Msg> =
                    <$old as Samples>::samples().into_iter().map(|x| old::Msg { x }).collect();
                let news: Vec<new::Msg> =
                    <$new as Samples>::samples().into_iter().map(|x| new::Msg { x }).collect();
                match (w, r) {
                    (Rel::Old, Rel::Old) => probe::<old::Msg, old::Msg>(c, &olds),
                    (Rel::Old, Rel::New) => probe::<old::Msg, new::Msg>(c, &olds),
                    (Rel::New, Rel::Old) => probe::<new::Msg, old::Msg>(c, &news),
                    (Rel::New, Rel::New) => probe::<new::Msg, new::Msg>(c, &news),
                }
            }
            fn witness(c: Codec, w: Rel, bytes: &[u8]) -> Result<Real, String> {
                match w {
                    Rel::Old => witness_real::<old::Msg, new::Msg>(c, bytes),
                    Rel::New => witness_real::<new::Msg, old::Msg>(c, bytes),
                }
            }
            check_change(&Change {
                name: stringify!($name),
                old: stringify!($old),
                new: stringify!($new),
                conservative: &[$(($codec, $dir)),*],
                real,
                witness,
            });
        }
    };
}

// ----- real sample values -----

/// Real values of a type, edges included.
trait Samples: Sized {
    fn samples() -> Vec<Self>;
}

macro_rules! samples {
    ($($ty:ty => $values:expr;)*) => {
        $(
            impl Samples for $ty {
                fn samples() -> Vec<Self> {
                    $values
                }
            }
        )*
    };
}

/// Wraps each `u32` sample.
fn wrap<T>(f: impl Fn(u32) -> T) -> Vec<T> {
    u32::samples().into_iter().map(f).collect()
}

fn ipv4s() -> Vec<Ipv4Addr> {
    vec![
        Ipv4Addr::new(192, 0, 2, 1),
        Ipv4Addr::UNSPECIFIED,
        Ipv4Addr::new(255, 255, 255, 255),
    ]
}

fn ipv6s() -> Vec<Ipv6Addr> {
    vec![
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1),
        Ipv6Addr::UNSPECIFIED,
        Ipv6Addr::new(
            0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
        ),
    ]
}

samples! {
    u8 => vec![0, 1, 127, 128, u8::MAX];
    u32 => vec![0, 1, 250, 251, 65_536, u32::MAX];
    u64 => vec![0, 1, 251, u64::from(u32::MAX) + 1, u64::MAX];
    bool => vec![false, true];
    char => vec!['a', 'é', '😀'];
    () => vec![()];
    String => ["", "a", "ab", "héllo", "192.0.2.1", "a/b"].map(String::from).to_vec();
    Vec<u8> => vec![vec![], vec![0, 255], b"a/b".to_vec()];
    PathBuf => ["", "a/b", "/tmp/é"].map(PathBuf::from).to_vec();
    OsString => ["", "a/b", "é"].map(OsString::from).to_vec();
    NonZeroU32 => u32::samples().into_iter().filter_map(NonZeroU32::new).collect();
    NonZeroU64 => u64::samples().into_iter().filter_map(NonZeroU64::new).collect();
    NonZeroI8 => [1, -1, i8::MIN, i8::MAX].into_iter().filter_map(NonZeroI8::new).collect();
    Duration => vec![
        Duration::ZERO,
        Duration::new(1, 500_000_000),
        Duration::new(u64::MAX, 999_999_999),
    ];
    SystemTime => vec![UNIX_EPOCH, UNIX_EPOCH + Duration::new(1_700_000_000, 123)];
    Ipv4Addr => ipv4s();
    Ipv6Addr => ipv6s();
    IpAddr => ipv4s()
        .into_iter()
        .map(IpAddr::V4)
        .chain(ipv6s().into_iter().map(IpAddr::V6))
        .collect();
    SocketAddrV4 => ipv4s().into_iter().zip([0, 8080, u16::MAX]).map(|(ip, port)| SocketAddrV4::new(ip, port)).collect();
    // Flow info and scope id are not written in compact formats: samples leave them 0.
    SocketAddrV6 => ipv6s().into_iter().zip([0, 8080, u16::MAX]).map(|(ip, port)| SocketAddrV6::new(ip, port, 0, 0)).collect();
    SocketAddr => SocketAddrV4::samples()
        .into_iter()
        .map(SocketAddr::V4)
        .chain(SocketAddrV6::samples().into_iter().map(SocketAddr::V6))
        .collect();
    Range<u32> => vec![0..0, 1..u32::MAX, Range { start: 7, end: 3 }];
    RangeInclusive<u32> => vec![0..=0, 1..=u32::MAX, RangeInclusive::new(7, 3)];
    RangeFrom<u32> => wrap(|n| n..);
    RangeTo<u32> => wrap(|n| ..n);
    Bound<u32> => vec![Bound::Unbounded, Bound::Included(0), Bound::Excluded(u32::MAX)];
    Option<u32> => vec![None, Some(0), Some(u32::MAX)];
    Result<u32, String> => vec![Ok(0), Ok(u32::MAX), Err(String::new()), Err("no".into())];
    Wrapping<u32> => wrap(Wrapping);
    Saturating<u32> => wrap(Saturating);
    Reverse<u32> => wrap(Reverse);
    Reverse<Wrapping<u32>> => wrap(|n| Reverse(Wrapping(n)));
    Box<u32> => wrap(Box::new);
    Cell<u32> => wrap(Cell::new);
    RefCell<u32> => wrap(RefCell::new);
    Mutex<u32> => wrap(Mutex::new);
    Mutex<Cell<u32>> => wrap(|n| Mutex::new(Cell::new(n)));
    RwLock<u32> => wrap(RwLock::new);
    AtomicU32 => wrap(AtomicU32::new);
    AtomicBool => vec![AtomicBool::new(false), AtomicBool::new(true)];
    PhantomData<u32> => vec![PhantomData];
    Cow<'static, str> => vec![Cow::Borrowed(""), Cow::Owned("héllo".into())];
    [u8; 4] => vec![[0; 4], [1, 2, 3, 255]];
    (u8, u8, u8, u8) => vec![(0, 0, 0, 0), (1, 2, 3, 255)];
    [u32; 0] => vec![[]];
    (u32, String, char) => vec![(0, String::new(), 'a'), (u32::MAX, "é".into(), '😀')];
    std::collections::VecDeque<u32> => vec![Default::default(), u32::samples().into()];
    BTreeMap<String, u32> => vec![
        BTreeMap::new(),
        [("a".to_owned(), 0), ("b".to_owned(), u32::MAX)].into(),
    ];
    mirror::DurationFields => Duration::samples()
        .into_iter()
        .map(|d| mirror::DurationFields { secs: d.as_secs(), nanos: d.subsec_nanos() })
        .collect();
    mirror::SystemTimeFields => SystemTime::samples()
        .into_iter()
        .map(|t| {
            let d = t.duration_since(UNIX_EPOCH).expect("samples are after the epoch");
            mirror::SystemTimeFields {
                secs_since_epoch: d.as_secs(),
                nanos_since_epoch: d.subsec_nanos(),
            }
        })
        // The plain struct writes seconds `SystemTime`'s reader cannot add to the epoch.
        .chain([mirror::SystemTimeFields { secs_since_epoch: u64::MAX, nanos_since_epoch: 0 }])
        .collect();
}

/// Plain derived types of the shape serde gives some std types: compiled here and extracted with every
/// case (`mod mirror` of the extracted source).
macro_rules! mirrors {
    ($($item:item)*) => {
        pub mod mirror {
            use serde::{Deserialize, Serialize};
            $($item)*
        }

        const MIRRORS: &str = stringify!($($item)*);
    };
}

mirrors! {
    #[derive(Serialize, Deserialize)]
    pub struct DurationFields {
        pub secs: u64,
        pub nanos: u32,
    }

    #[derive(Serialize, Deserialize)]
    pub struct SystemTimeFields {
        pub secs_since_epoch: u64,
        pub nanos_since_epoch: u32,
    }
}

// ----- the shape of each std type -----

shape!(nonzero_u32, std::num::NonZeroU32);
shape!(nonzero_i8, core::num::NonZeroI8);
shape!(nonzero_generic, std::num::NonZero<u64>);
shape!(wrapping, std::num::Wrapping<u32>);
shape!(saturating, std::num::Saturating<u32>);
shape!(reverse, std::cmp::Reverse<u32>);
shape!(boxed, Box<u32>);
shape!(cell, std::cell::Cell<u32>);
shape!(ref_cell, std::cell::RefCell<u32>);
shape!(mutex, std::sync::Mutex<u32>);
shape!(rw_lock, std::sync::RwLock<u32>);
shape!(atomic_u32, std::sync::atomic::AtomicU32);
shape!(atomic_bool, core::sync::atomic::AtomicBool);
shape!(phantom_data, std::marker::PhantomData<u32>);
shape!(cow_str, std::borrow::Cow<'static, str>);
shape!(duration, std::time::Duration);
shape!(core_duration, core::time::Duration);
shape!(system_time, std::time::SystemTime);
shape!(path_buf, std::path::PathBuf);
shape!(os_string, std::ffi::OsString);
shape!(ipv4_addr, std::net::Ipv4Addr);
shape!(ipv6_addr, core::net::Ipv6Addr);
shape!(ip_addr, std::net::IpAddr);
shape!(socket_addr_v4, std::net::SocketAddrV4);
shape!(socket_addr_v6, std::net::SocketAddrV6);
shape!(socket_addr, std::net::SocketAddr);
shape!(range, std::ops::Range<u32>);
shape!(range_inclusive, std::ops::RangeInclusive<u32>);
shape!(range_from, std::ops::RangeFrom<u32>);
shape!(range_to, core::ops::RangeTo<u32>);
shape!(bound, std::ops::Bound<u32>);
shape!(option, Option<u32>);
shape!(result, Result<u32, String>);
shape!(array, [u8; 4]);
shape!(empty_array, [u32; 0]);
shape!(tuple, (u32, String, char));
shape!(character, char);
shape!(vec_deque, std::collections::VecDeque<u32>);
shape!(btree_map, std::collections::BTreeMap<String, u32>);

// ----- changes, with real verdicts -----

change!(u32_to_nonzero, u32 => std::num::NonZeroU32, conservative: []);
change!(nonzero_to_u32, std::num::NonZeroU32 => u32, conservative: []);
change!(
    nonzero_u32_to_u64,
    std::num::NonZeroU32 => std::num::NonZeroU64,
    conservative: [(BincodeStandard, NewReadsOld)]
);
change!(duration_to_u64, std::time::Duration => u64, conservative: []);
change!(duration_to_its_fields, std::time::Duration => mirror::DurationFields, conservative: []);
change!(duration_std_to_core, std::time::Duration => core::time::Duration, conservative: []);
// A hand-written mirror of `SystemTime` read as the real one: the same fields, but the mirror's `u64`
// of seconds reaches past what a `SystemTime` holds (the real reader overflows).
change!(
    system_time_fields_to_system_time,
    mirror::SystemTimeFields => std::time::SystemTime,
    conservative: []
);
change!(
    system_time_to_its_fields,
    std::time::SystemTime => mirror::SystemTimeFields,
    conservative: []
);
change!(string_to_path_buf, String => std::path::PathBuf, conservative: []);
change!(string_to_ip_addr, String => std::net::IpAddr, conservative: []);
change!(ipv4_addr_to_ip_addr, std::net::Ipv4Addr => std::net::IpAddr, conservative: []);
change!(ip_addr_to_ipv6_addr, std::net::IpAddr => std::net::Ipv6Addr, conservative: []);
change!(
    socket_addr_v4_to_socket_addr,
    std::net::SocketAddrV4 => std::net::SocketAddr,
    conservative: []
);
change!(range_to_range_inclusive, std::ops::Range<u32> => std::ops::RangeInclusive<u32>, conservative: []);
change!(bound_to_option, std::ops::Bound<u32> => Option<u32>, conservative: []);
change!(
    wrappers_to_other_wrappers,
    std::cmp::Reverse<std::num::Wrapping<u32>> => std::sync::Mutex<std::cell::Cell<u32>>,
    conservative: []
);
change!(atomic_to_box, std::sync::atomic::AtomicU32 => Box<u32>, conservative: []);
change!(phantom_data_to_unit, std::marker::PhantomData<u32> => (), conservative: []);
change!(char_to_string, char => String, conservative: []);
change!(os_string_to_bytes, std::ffi::OsString => Vec<u8>, conservative: []);
change!(array_to_tuple, [u8; 4] => (u8, u8, u8, u8), conservative: []);
