#![cfg(feature = "checker")]
//! The engine's positional verdicts (`format = "bincode"`, `format = "postcard"`) checked against the real
//! codecs, as `tests/serde_truth.rs` does for JSON.
//!
//! Each case declares real `old` and `new` Rust types once, inside `case!`: the macro compiles them and
//! also hands their tokens (`stringify!`) to `wirecheck::extract::snapshot_from_sources`, behind a
//! protocol header with the format under test, so the model is extracted from exactly the types that
//! are encoded. For each format and direction the engine's verdict (a `major` finding in that
//! direction, or none) is compared with what really happens when sample values of the writer's type
//! are encoded with the real crate and decoded as the reader's type.
//!
//! What counts as a break (for one sample; a direction breaks if any sample does):
//! - the reader's decode fails;
//! - the decode succeeds but leaves bytes unread (bincode's `decode_from_slice` and postcard's
//!   `take_from_bytes` both return silently with a remainder; a framed transport would drop the tail);
//! - the decode succeeds but the value differs from what was written (a misread): both values are
//!   rendered through serde's data model as JSON and compared by field and variant name (a reader field
//!   must hold the writer's value of the same name; enums compare by variant name).
//!
//! The protocol says only `format = "bincode"`, not which bincode 2 configuration the program passes,
//! so the engine must be right for both `config::standard()` (varint integers, zigzag for signed) and
//! `config::legacy()` (fixed-width little-endian integers): it is conservative and treats any integer
//! width change as a break. A case lists in `conservative` the (codec, direction) pairs where the engine
//! reports a break that the named codec does not have; the test fails on any other disagreement, on a
//! listed pair that does agree, and on every false negative (the engine silent, a codec breaking).
//!
//! Every major payload witness of the rule fixtures (`tests/fixtures/*`) is decoded by the real codec in
//! `fixture-truth/`, a test generated per fixture; the codecs and what counts as a break are shared with it
//! (`tests/support/codecs.rs`).
//!
//! `cargo test --features checker --test positional_truth -- --nocapture` prints the verdict table.

use std::cell::Cell;

use serde::Serialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde_json::Value;
use wirecheck::Protocol;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Level};

/// The protocol the compiled case types name; its format does not matter for the real codecs (the model
/// side writes its own header per format, see [`source`]).
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0", format = "postcard")]
pub struct P;

// ----- sample values of any `Deserialize` type -----

/// Integer candidates: zero first (the minimal sample), then the edges of every width, of postcard's
/// LEB128 groups (127/128, 16383/16384, ...), of zigzag (63/64, -64/-65) and of bincode's varint markers
/// (250/251..=255, 65535/65536, u32::MAX/u32::MAX + 1). Each integer type takes the ones it can hold.
const INTS: &[i128] = &[
    0,
    1,
    -1,
    2,
    63,
    64,
    -64,
    -65,
    100,
    127,
    128,
    -127,
    -128,
    -129,
    200,
    250,
    251,
    252,
    253,
    254,
    255,
    256,
    300,
    16383,
    16384,
    32767,
    32768,
    -32768,
    -32769,
    65535,
    65536,
    70000,
    2_097_151,
    2_097_152,
    2_147_483_647,
    2_147_483_648,
    -2_147_483_648,
    -2_147_483_649,
    4_294_967_295,
    4_294_967_296,
    9_223_372_036_854_775_807,
    9_223_372_036_854_775_808,
    -9_223_372_036_854_775_808,
    18_446_744_073_709_551_615,
];

const STRS: &[&str] = &["", "a", "héllo", "😀", "ab"];
const CHARS: &[char] = &['\0', 'a', 'é', '😀', '\u{7f}'];
/// Sequence lengths: empty, small, and lengths whose prefix takes two bytes (postcard: > 127) or three
/// (bincode standard: > 250).
const LENS: &[usize] = &[0, 1, 2, 3, 130, 260];
/// Samples drawn per writer type: enough for every field to take every integer candidate.
const SAMPLES: usize = 64;

/// A deserializer that invents values: sample `k` = 0 is the minimal value (zeros, empty, `None`, the
/// first variant); others rotate each field through the candidates, so every field meets every edge.
#[derive(Clone, Copy)]
struct Gen<'a> {
    k: usize,
    pos: &'a Cell<usize>,
    depth: usize,
}

impl<'a> Gen<'a> {
    fn pick(&self, n: usize) -> usize {
        let p = self.pos.get();
        self.pos.set(p + 1);
        if self.k == 0 || n == 0 {
            0
        } else {
            (self.k + p) % n
        }
    }

    fn int<T: TryFrom<i128>>(&self) -> T {
        let mut vals: Vec<T> = INTS.iter().filter_map(|&v| T::try_from(v).ok()).collect();
        let i = self.pick(vals.len());
        vals.swap_remove(i)
    }

    fn deeper(&self) -> Gen<'a> {
        Gen {
            depth: self.depth + 1,
            ..*self
        }
    }

    fn seq(&self, n: usize) -> SeqGen<'a> {
        SeqGen {
            g: self.deeper(),
            left: n,
            // Every other sample repeats one element value: duplicates for sets to merge.
            repeat: self.k.is_multiple_of(2).then(|| self.pos.get()),
        }
    }
}

type GenError = de::value::Error;

macro_rules! gen_ints {
    ($($method:ident $visit:ident $t:ty;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
                v.$visit(self.int::<$t>())
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Gen<'_> {
    type Error = GenError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, GenError> {
        Err(de::Error::custom(
            "the sample generator needs a typed request",
        ))
    }

    gen_ints! {
        deserialize_i8 visit_i8 i8;
        deserialize_i16 visit_i16 i16;
        deserialize_i32 visit_i32 i32;
        deserialize_i64 visit_i64 i64;
        deserialize_u8 visit_u8 u8;
        deserialize_u16 visit_u16 u16;
        deserialize_u32 visit_u32 u32;
        deserialize_u64 visit_u64 u64;
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_bool(self.pick(2) == 1)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_f32([0.0, 1.5, -2.25][self.pick(3)])
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_f64([0.0, 1.5, -2.25][self.pick(3)])
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_char(CHARS[self.pick(CHARS.len())])
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_str(STRS[self.pick(STRS.len())])
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        self.deserialize_str(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_bytes(STRS[self.pick(STRS.len())].as_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        self.deserialize_bytes(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        if self.pick(3) == 0 {
            v.visit_none()
        } else {
            v.visit_some(self.deeper())
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, GenError> {
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, GenError> {
        v.visit_newtype_struct(self.deeper())
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        // Long sequences only at the top: nested ones stay short.
        let lens = if self.depth > 2 { &LENS[..3] } else { LENS };
        let n = lens[self.pick(lens.len())];
        v.visit_seq(self.seq(n))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, GenError> {
        v.visit_seq(SeqGen {
            repeat: None,
            ..self.seq(len)
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        v: V,
    ) -> Result<V::Value, GenError> {
        self.deserialize_tuple(len, v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        let n = LENS[self.pick(3)];
        v.visit_map(SeqGen {
            repeat: None,
            ..self.seq(n)
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, GenError> {
        self.deserialize_tuple(fields.len(), v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, GenError> {
        let index = u32::try_from(self.pick(variants.len())).unwrap_or(0);
        v.visit_enum(EnumGen {
            g: self.deeper(),
            index,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _: V) -> Result<V::Value, GenError> {
        Err(de::Error::custom("identifiers are not generated"))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, GenError> {
        v.visit_unit()
    }
}

struct SeqGen<'a> {
    g: Gen<'a>,
    left: usize,
    repeat: Option<usize>,
}

impl<'de> SeqAccess<'de> for SeqGen<'_> {
    type Error = GenError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, GenError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        if let Some(p) = self.repeat {
            self.g.pos.set(p);
        }
        seed.deserialize(self.g).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> MapAccess<'de> for SeqGen<'_> {
    type Error = GenError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, GenError> {
        self.next_element_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, GenError> {
        seed.deserialize(self.g)
    }
}

struct EnumGen<'a> {
    g: Gen<'a>,
    index: u32,
}

impl<'de, 'a> EnumAccess<'de> for EnumGen<'a> {
    type Error = GenError;
    type Variant = Gen<'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Gen<'a>), GenError> {
        let index: de::value::U32Deserializer<GenError> = self.index.into_deserializer();
        Ok((seed.deserialize(index)?, self.g))
    }
}

impl<'de> VariantAccess<'de> for Gen<'_> {
    type Error = GenError;

    fn unit_variant(self) -> Result<(), GenError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, GenError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, GenError> {
        de::Deserializer::deserialize_tuple(self, len, v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, GenError> {
        de::Deserializer::deserialize_tuple(self, fields.len(), v)
    }
}

/// [`SAMPLES`] values of `T`, the first one minimal.
fn samples<T: DeserializeOwned>() -> Vec<T> {
    (0..SAMPLES)
        .map(|k| {
            let pos = Cell::new(0);
            match T::deserialize(Gen {
                k,
                pos: &pos,
                depth: 0,
            }) {
                Ok(v) => v,
                Err(e) => panic!("sample {k} of {}: {e}", std::any::type_name::<T>()),
            }
        })
        .collect()
}

// ----- the real codecs (tests/support/codecs.rs) -----

#[path = "support/codecs.rs"]
mod codecs;
use Direction::{NewReadsOld, OldReadsNew};
use codecs::{
    BincodeLegacy, BincodeStandard, Codec, Json, Postcard, Real, Rel, decode, encode, json, same,
    witness_real,
};

/// Renames the writer's field and variant names to the reader's (`(from, to)` pairs), everywhere in `v`.
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
        // A unit variant is its name.
        Value::String(s) => Value::String(
            names
                .iter()
                .find(|(from, _)| *from == s)
                .map_or(s, |(_, to)| (*to).to_owned()),
        ),
        other => other,
    }
}

/// Encodes every sample of `W` with `c` and decodes it as `R`. `renames` maps writer field names to
/// reader ones where a field was renamed in place.
fn probe<W, R>(c: Codec, renames: &[(&str, &str)]) -> Real
where
    W: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    let all = samples::<W>();
    for w in &all {
        let bytes = encode(c, w);
        let wrote = json(w);
        match decode::<R>(c, &bytes) {
            Err(error) => {
                return Real::Error {
                    wrote,
                    bytes,
                    error,
                };
            }
            Ok((_, n)) if n < bytes.len() => {
                let left = bytes.len() - n;
                return Real::Trailing { wrote, bytes, left };
            }
            Ok((r, _)) => {
                let read = json(&r);
                if !same(&rename(wrote.clone(), renames), &read) {
                    return Real::Misread { wrote, read, bytes };
                }
            }
        }
    }
    Real::Ok(all.len())
}

// ----- the engine -----

/// The crate source the extractor reads: the protocol header for `format`, then the case's types.
fn source(format: &str, version: &str, types: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n{types}\n"
    )
}

fn extract(format: &str, version: &str, types: &str) -> wirecheck::model::Snapshot {
    let text = source(format, version, types);
    let snap = match snapshot_from_sources("case", &[("src/lib.rs", text.as_str())]) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n{text}"),
    };
    assert!(snap.notes.is_empty(), "{:?}\n{text}", snap.notes);
    assert_eq!(snap.messages.len(), 1, "{text}");
    snap
}

/// The engine's major findings per direction, as `rule@field` strings.
struct Engine {
    onr: Vec<String>,
    nro: Vec<String>,
}

impl Engine {
    fn of(&self, d: Direction) -> &[String] {
        match d {
            OldReadsNew => &self.onr,
            NewReadsOld => &self.nro,
        }
    }
}

fn engine(format: &str, old: &str, new: &str) -> Engine {
    let (o, n) = (extract(format, "0.1.0", old), extract(format, "0.2.0", new));
    for s in [&o, &n] {
        assert_eq!(
            compare_protocol(s, s, "p", "v0.1.0", Scope::Full),
            vec![],
            "a side against itself"
        );
    }
    let found = compare_protocol(&o, &n, "p", "v0.1.0", Scope::Full);
    let major = |d: Direction| -> Vec<String> {
        found
            .iter()
            .filter(|f| f.level == Level::Major && f.direction == Some(d))
            .map(|f| match &f.field {
                Some(x) => format!("{}@{x}", f.rule),
                None => f.rule.to_string(),
            })
            .collect()
    };
    Engine {
        onr: major(OldReadsNew),
        nro: major(NewReadsOld),
    }
}

// ----- the cases -----

struct Case {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    /// Engine breaks that the named codec does not have, knowingly (the engine is conservative there).
    conservative: &'static [(Codec, Direction)],
    /// The new type cannot even read its own values back in a positional codec (the engine compares
    /// releases, not a type with itself, and says nothing there).
    self_broken: bool,
    /// Encodes samples of the first release's `Msg` and decodes them as the second's.
    real: fn(Codec, Rel, Rel) -> Real,
}

fn check(case: &Case) {
    let mut wrong = Vec::new();
    for (format, codecs) in [
        ("bincode", &[BincodeStandard, BincodeLegacy][..]),
        ("postcard", &[Postcard][..]),
    ] {
        let eng = engine(format, case.old, case.new);
        for &c in codecs {
            // The harness itself: each release's type reads its own samples back whole and unchanged.
            for (side, name) in [(Rel::Old, "old reads old"), (Rel::New, "new reads new")] {
                let real = (case.real)(c, side, side);
                let verdict = match (real.breaks(), case.self_broken && side == Rel::New) {
                    (false, false) => continue,
                    (true, true) => "the type cannot read itself (declared)",
                    (true, false) => "THE TYPE CANNOT READ ITSELF",
                    (false, true) => "declared self_broken but reads itself",
                };
                println!(
                    "\n| {} | {c} | {name} | compatible | {real} | {verdict} |",
                    case.name
                );
                if !verdict.ends_with("(declared)") {
                    wrong.push(format!("{c}, {name}: {verdict}: {real}"));
                }
            }
        }
        for d in [OldReadsNew, NewReadsOld] {
            let said = eng.of(d);
            for &c in codecs {
                let real = match d {
                    OldReadsNew => (case.real)(c, Rel::New, Rel::Old),
                    NewReadsOld => (case.real)(c, Rel::Old, Rel::New),
                };
                let listed = case.conservative.contains(&(c, d));
                let verdict = match (said.is_empty(), real.breaks()) {
                    (true, true) => "FALSE NEGATIVE",
                    (false, false) if listed => "conservative",
                    (false, false) => "FALSE POSITIVE",
                    _ if listed => "listed as conservative but agrees",
                    _ => "agree",
                };
                let shown = if said.is_empty() {
                    "compatible".to_owned()
                } else {
                    format!("break: {}", said.join(", "))
                };
                println!(
                    "\n| {} | {c} | {d} | {shown} | {real} | {verdict} |",
                    case.name
                );
                if verdict != "agree" && verdict != "conservative" {
                    wrong.push(format!("{c}, {d}: {verdict}: engine {shown}; real {real}"));
                }
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

/// `case!(name, renames, conservative, [self_broken,] old, new)`: compiles the types as `name::old` /
/// `name::new` (each with a `Msg` message) and a test `name` that checks them.
macro_rules! case {
    (
        $name:ident,
        renames: [$(($from:literal, $to:literal)),* $(,)?],
        conservative: [$(($codec:ident, $dir:ident)),* $(,)?],
        $(self_broken: $broken:literal,)?
        old: { $($old:tt)* },
        new: { $($new:tt)* } $(,)?
    ) => {
        // A `#[serde(skip)]` field is never read.
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
            fn real(c: Codec, w: Rel, r: Rel) -> Real {
                let renames: &[(&str, &str)] = &[$(($from, $to)),*];
                let back: Vec<(&str, &str)> = renames.iter().map(|(a, b)| (*b, *a)).collect();
                match (w, r) {
                    (Rel::New, Rel::Old) => probe::<$name::new::Msg, $name::old::Msg>(c, &back),
                    (Rel::Old, Rel::New) => probe::<$name::old::Msg, $name::new::Msg>(c, renames),
                    (Rel::Old, Rel::Old) => probe::<$name::old::Msg, $name::old::Msg>(c, &[]),
                    (Rel::New, Rel::New) => probe::<$name::new::Msg, $name::new::Msg>(c, &[]),
                }
            }
            check(&Case {
                name: stringify!($name),
                old: stringify!($($old)*),
                new: stringify!($($new)*),
                conservative: &[$(($codec, $dir)),*],
                self_broken: false $(|| $broken)?,
                real,
            });
        }
    };
}

/// One message `Msg { x: $old }` becoming `Msg { x: $new }`.
macro_rules! int_case {
    ($name:ident, $old:ty, $new:ty, conservative: [$(($codec:ident, $dir:ident)),* $(,)?]) => {
        case!(
            $name,
            renames: [],
            conservative: [$(($codec, $dir)),*],
            old: {
                #[derive(Serialize, Deserialize, Message)]
                #[wire(protocol = P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $old,
                }
            },
            new: {
                #[derive(Serialize, Deserialize, Message)]
                #[wire(protocol = P, topic = "t.msg", kind = "event")]
                pub struct Msg {
                    pub x: $new,
                }
            },
        );
    };
}

// Integer widths. Each case checks both directions: the reader of the wider type reading the narrower
// (widening) and the reverse (narrowing). bincode standard varint-encodes u16..u128 (one byte below 251,
// then a marker 251/252/253 and 2/4/8 bytes) and zigzags signed ones, so widening u16 and up reads back
// there; legacy writes fixed widths, so it never does. u8/i8 are raw bytes in every codec.

int_case!(int_u8_to_u16, u8, u16, conservative: []);
int_case!(int_u16_to_u32, u16, u32, conservative: [(BincodeStandard, NewReadsOld)]);
int_case!(int_u32_to_u64, u32, u64, conservative: [(BincodeStandard, NewReadsOld)]);
int_case!(int_u64_to_u32, u64, u32, conservative: [(BincodeStandard, OldReadsNew)]);
int_case!(int_i32_to_i64, i32, i64, conservative: [(BincodeStandard, NewReadsOld)]);
int_case!(int_i64_to_i32, i64, i32, conservative: [(BincodeStandard, OldReadsNew)]);
int_case!(int_i8_to_i16, i8, i16, conservative: []);
int_case!(int_u8_to_i8, u8, i8, conservative: []);
int_case!(int_u32_to_i32, u32, i32, conservative: []);
int_case!(int_u16_to_i32, u16, i32, conservative: []);
int_case!(int_i32_to_u64, i32, u64, conservative: []);
int_case!(int_usize_to_u64, usize, u64, conservative: []);

// Enums: a variant is its index (a u32: varint in bincode standard and postcard, 4 bytes in legacy).

case!(
    enum_variant_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run,
            Done,
        }
    },
);

case!(
    enum_variant_with_data_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run(u32),
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run(u32),
            Failed { code: i32, why: String },
        }
    },
);

case!(
    enum_variant_reordered,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run,
            Done,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Run,
            Queued,
            Done,
        }
    },
);

case!(
    enum_variant_inserted_first,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Run(u8),
            Done,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run(u8),
            Done,
        }
    },
);

case!(
    enum_variant_payload_widened,
    renames: [],
    conservative: [(BincodeStandard, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Idle,
            Run(u16),
            Done { code: u16 },
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Idle,
            Run(u32),
            Done { code: u32 },
        }
    },
);

case!(
    enum_unit_variant_gains_data,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u8,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Idle,
            Run,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u8,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Idle,
            Run(u8),
        }
    },
);

// Fields: no names on the wire, nothing to skip, no default for a missing one.

case!(
    field_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(default)]
            pub prio: u32,
        }
    },
);

case!(
    field_appended_to_nested_struct,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub inner: Inner,
            pub tail: u32,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Inner {
            pub a: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub inner: Inner,
            pub tail: u32,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Inner {
            pub a: u32,
            pub b: u32,
        }
    },
);

case!(
    field_removed_last,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            pub prio: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
);

case!(
    field_removed_middle,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub a: u32,
            pub b: String,
            pub c: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub a: u32,
            pub c: u8,
        }
    },
);

case!(
    field_reordered_same_type,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub a: u32,
            pub b: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub b: u32,
            pub a: u32,
        }
    },
);

case!(
    field_reordered_mixed_types,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub a: u8,
            pub b: String,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub b: String,
            pub a: u8,
        }
    },
);

// Renaming in place is invisible on a positional wire: both sides agree that nothing breaks.
case!(
    field_renamed_in_place,
    renames: [("count", "total")],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            pub count: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            pub total: u32,
        }
    },
);

// Options: a tag byte (0/1) before the value.

case!(
    option_added,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: Option<u32>,
        }
    },
);

case!(
    option_inner_widened,
    renames: [],
    conservative: [(BincodeStandard, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: Option<u16>,
            pub tail: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: Option<u32>,
            pub tail: u8,
        }
    },
);

case!(
    option_of_struct_with_field_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub limits: Option<Limits>,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Limits {
            pub cpu: u16,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub limits: Option<Limits>,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Limits {
            pub cpu: u16,
            pub mem: u16,
        }
    },
);

// Sequences: a length prefix (u64: varint in bincode standard and postcard, 8 bytes in legacy).

case!(
    vec_elem_widened,
    renames: [],
    conservative: [(BincodeStandard, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u16>,
            pub tail: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u32>,
            pub tail: u8,
        }
    },
);

case!(
    vec_of_bytes_widened,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u8>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u16>,
        }
    },
);

case!(
    vec_to_set,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u32>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: std::collections::BTreeSet<u32>,
        }
    },
);

case!(
    vec_to_array,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: Vec<u8>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub xs: [u8; 3],
        }
    },
);

// Bytes: postcard and bincode write `serialize_bytes` as a length and the bytes, which is what a
// `Vec<u8>` is too (a length, then each `u8` as one byte): nothing changes on the wire.
case!(
    vec_u8_to_byte_buf,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub data: Vec<u8>,
            pub raw: Vec<u8>,
            pub chunk: Vec<u8>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub data: serde_bytes::ByteBuf,
            #[serde(with = "serde_bytes")]
            pub raw: Vec<u8>,
            pub chunk: bytes::Bytes,
        }
    },
);

// Array lengths given by constants: rustc evaluates them, so the engine must too (a changed constant
// is a changed length; another spelling of the same length is nothing).
case!(
    const_array_length_changed,
    renames: [],
    conservative: [],
    old: {
        pub mod limits {
            pub const WORDS: usize = 2;
        }

        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub words: [u32; limits::WORDS * 2],
            pub tag: u8,
        }
    },
    new: {
        pub mod limits {
            pub const WORDS: usize = 3;
        }

        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub words: [u32; limits::WORDS * 2],
            pub tag: u8,
        }
    },
);

case!(
    const_array_length_spelled_otherwise,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub key: [u8; 12],
            pub tail: [u16; 8],
        }
    },
    new: {
        use sizes::NONCE;

        pub mod sizes {
            pub const NONCE: u32 = 3 << 2;
            pub const WORD: usize = 4;
        }

        const TAIL: usize = (sizes::WORD + 12) / 2;

        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub key: [u8; NONCE as usize],
            pub tail: [u16; TAIL],
        }
    },
);

case!(
    vec_of_struct_with_field_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub items: Vec<Item>,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Item {
            pub id: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub items: Vec<Item>,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Item {
            pub id: u32,
            pub weight: u8,
        }
    },
);

// Nested structs: the change two levels down, with fields after it.

case!(
    nested_int_widened,
    renames: [],
    conservative: [(BincodeStandard, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub job: Job,
            pub tail: u8,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Job {
            pub spec: Spec,
            pub name: String,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Spec {
            pub ncores: u16,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub job: Job,
            pub tail: u8,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Job {
            pub spec: Spec,
            pub name: String,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Spec {
            pub ncores: u32,
        }
    },
);

case!(
    nested_fields_reordered,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub job: Job,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Job {
            pub uid: u32,
            pub gid: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub job: Job,
        }

        #[derive(Serialize, Deserialize)]
        pub struct Job {
            pub gid: u32,
            pub uid: u32,
        }
    },
);

// serde attributes and wire-identical changes.

// `#[serde(other)]` must be the last variant, so a new variant goes before it and takes its index: old
// readers see `Done` as `Unknown` (serde maps unknown indices to the `other` variant too), new readers
// see an old `Unknown` as `Done`.
case!(
    enum_variant_added_before_other,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run,
            #[serde(other)]
            Unknown,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
            pub tail: u16,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Queued,
            Run,
            Done,
            #[serde(other)]
            Unknown,
        }
    },
);

case!(
    enum_variant_renamed_in_place,
    renames: [("Done", "Finished")],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Run(u32),
            Done,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub state: State,
        }

        #[derive(Serialize, Deserialize)]
        pub enum State {
            Run(u32),
            Finished,
        }
    },
);

// A writer that skips a `None` writes nothing where the reader expects an option tag: old readers fail,
// and so does the new type reading itself (serde's positional struct visitor reads every field).
case!(
    skip_serializing_if_added,
    renames: [],
    conservative: [],
    self_broken: true,
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            pub note: Option<String>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub note: Option<String>,
        }
    },
);

case!(
    skipped_field_added,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            #[serde(skip)]
            pub cache: u64,
        }
    },
);

// Zero-sized fields (`()`, unit structs, `PhantomData`) take no bytes in either codec.
case!(
    zero_sized_field_added,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            pub tail: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            pub marker: std::marker::PhantomData<u64>,
            pub tail: u8,
        }
    },
);

case!(
    newtype_wrapper_added,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u32,
            pub name: String,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: JobId,
            pub name: Box<str>,
        }

        #[derive(Serialize, Deserialize)]
        pub struct JobId(pub u32);
    },
);

case!(
    char_to_string,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub c: char,
            pub tail: u8,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub c: String,
            pub tail: u8,
        }
    },
);

case!(
    float_widened,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: f32,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub x: f64,
        }
    },
);

case!(
    map_kind_changed,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub m: std::collections::HashMap<u16, String>,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub m: std::collections::BTreeMap<u16, String>,
        }
    },
);

case!(
    map_value_widened,
    renames: [],
    conservative: [(BincodeStandard, NewReadsOld)],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub m: std::collections::BTreeMap<u8, u16>,
            pub pair: (u8, u16),
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub m: std::collections::BTreeMap<u8, u64>,
            pub pair: (u8, u32),
        }
    },
);

// A `String` and a `Vec<u8>` are the same bytes in both codecs (a length, then the bytes): a string
// reads back as its bytes, and bytes read back as a string when they are UTF-8 (the reader fails on
// others). A set of bytes collapses repeats.
case!(
    string_to_bytes,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub body: String,
            pub tail: u16,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub body: Vec<u8>,
            pub tail: u16,
        }
    },
);

case!(
    string_to_byte_set,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub body: String,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub body: std::collections::BTreeSet<u8>,
        }
    },
);

/// The shapes neither codec can decode (serde's `deserialize_any` or identifiers), as `(name, attribute,
/// variants)`: the new release cannot read even its own messages, and the engine says so once, as
/// `positional_undecodable` where the reader has the shape (the sample generator cannot build these
/// types, so values are written by hand).
macro_rules! undecodable_case {
    ($name:ident, #[$attr:meta], start: $start:expr, { $($variants:tt)* }) => {
        #[allow(dead_code)]
        mod $name {
            use serde::{Deserialize, Serialize};

            #[derive(Serialize, Deserialize, Debug)]
            pub struct Msg {
                pub id: u16,
                pub event: Event,
            }

            #[derive(Serialize, Deserialize, Debug)]
            #[$attr]
            pub enum Event {
                $($variants)*
            }

            pub fn value() -> Msg {
                Msg { id: 7, event: $start }
            }

            pub const TYPES: &str = concat!(
                "#[derive(Serialize, Deserialize, Message)]\n",
                "#[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\n",
                "pub struct Msg { pub id: u16, pub event: Event }\n",
                "#[derive(Serialize, Deserialize)]\n#[", stringify!($attr), "]\n",
                "pub enum Event { ", stringify!($($variants)*), " }\n"
            );
        }
    };
}

undecodable_case!(undecodable_untagged, #[serde(untagged)], start: Event::Start(1), { Start(u8), Stop, });
undecodable_case!(undecodable_internal, #[serde(tag = "t")], start: Event::Start { n: 1 }, { Start { n: u8 }, Stop, });
undecodable_case!(undecodable_adjacent, #[serde(tag = "t", content = "c")], start: Event::Start(1), { Start(u8), Stop, });

/// The externally tagged enum each undecodable case starts from.
const EXTERNAL_TYPES: &str = "#[derive(Serialize, Deserialize, Message)]\n\
     #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\n\
     pub struct Msg { pub id: u16, pub event: Event }\n\
     #[derive(Serialize, Deserialize)]\npub enum Event { Start(u8), Stop }\n";

#[test]
fn positional_undecodable_shapes_fail_in_every_codec() {
    fn fails<T: Serialize + DeserializeOwned>(v: &T) -> bool {
        [BincodeStandard, BincodeLegacy, Postcard]
            .into_iter()
            .all(|c| decode::<T>(c, &encode(c, v)).is_err())
    }
    let cases: [(&str, bool, &str); 3] = [
        (
            "untagged",
            fails(&undecodable_untagged::value()),
            undecodable_untagged::TYPES,
        ),
        (
            "internal",
            fails(&undecodable_internal::value()),
            undecodable_internal::TYPES,
        ),
        (
            "adjacent",
            fails(&undecodable_adjacent::value()),
            undecodable_adjacent::TYPES,
        ),
    ];
    for (name, failed, types) in cases {
        assert!(failed, "{name}: a codec decoded its own value");
        for format in ["bincode", "postcard"] {
            let eng = engine(format, EXTERNAL_TYPES, types);
            assert!(
                eng.nro
                    .iter()
                    .any(|x| x.starts_with("positional_undecodable")),
                "{name} {format}: {:?}",
                eng.nro
            );
            assert!(
                eng.nro
                    .iter()
                    .all(|x| x.starts_with("positional_undecodable")),
                "{name} {format}: one finding for the shape, no index reasoning: {:?}",
                eng.nro
            );
        }
    }
}

// An `Option` appended at the very end (issue 14 item 8): old reads new leaves the option's tag unread,
// which `postcard::from_bytes` accepts silently (see the test below); wirecheck counts unread bytes as a
// break, and new reads old runs out of bytes.
case!(
    option_field_appended,
    renames: [],
    conservative: [],
    old: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
        }
    },
    new: {
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t.msg", kind = "event")]
        pub struct Msg {
            pub id: u64,
            #[serde(default)]
            pub note: Option<String>,
        }
    },
);

/// Why unread bytes count as a break: the usual entry points do not look at them. `postcard::from_bytes`
/// and bincode's `decode_from_slice` (whose count of bytes read the caller must check) both accept a
/// message with a field appended at the very end, dropping the field silently; one field further in, the
/// same change misreads the fields after it even there.
#[test]
fn unread_bytes_pass_unnoticed_by_the_usual_entry_points() {
    let wrote = field_appended::new::Msg { id: 7, prio: 9 };
    let bytes = encode(Postcard, &wrote);
    let read: field_appended::old::Msg =
        postcard::from_bytes(&bytes).expect("postcard reads a prefix");
    assert_eq!(read.id, 7);
    let bytes = encode(BincodeStandard, &wrote);
    let (read, n): (field_appended::old::Msg, usize) =
        bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
            .expect("bincode reads a prefix");
    assert_eq!((read.id, n), (7, bytes.len() - 1));

    use field_appended_to_nested_struct::{new, old};
    let wrote = new::Msg {
        inner: new::Inner { a: 1, b: 2 },
        tail: 3,
    };
    let read: old::Msg = postcard::from_bytes(&encode(Postcard, &wrote)).expect("decodes");
    assert_eq!((read.inner.a, read.tail), (1, 2), "`b` is read as `tail`");
    assert!(matches!(
        probe::<new::Msg, old::Msg>(Postcard, &[]),
        Real::Misread { .. } | Real::Trailing { .. }
    ));
}

/// What the engine's `Bytes` and readable forms rely on, in the real positional codecs: `serialize_bytes`
/// writes exactly what a `Vec<u8>` writes (a length and the bytes), each reads the other, and the codecs
/// are not human-readable (an `IpAddr` is written in its compact form, not as its string).
#[test]
fn bytes_are_vec_u8_and_positional_codecs_are_compact() {
    let data = vec![1u8, 2, 200];
    let address = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1));
    for c in [BincodeStandard, BincodeLegacy, Postcard] {
        let as_bytes = encode(c, &serde_bytes::ByteBuf::from(data.clone()));
        assert_eq!(as_bytes, encode(c, &data), "{c}");
        let (read, _) = decode::<Vec<u8>>(c, &as_bytes).unwrap();
        assert_eq!(read, data, "{c}");
        let (read, _) = decode::<serde_bytes::ByteBuf>(c, &encode(c, &data)).unwrap();
        assert_eq!(read.into_vec(), data, "{c}");
        assert_ne!(
            encode(c, &address),
            encode(c, &address.to_string()),
            "{c} writes the address as a string: it would be human-readable"
        );
    }
    // serde_json is human-readable: the string.
    assert_eq!(json(&address), Value::String("127.0.0.1".into()));
}

// ----- what the new release adds, unreadable even by itself (issue 33, item 4) -----

/// Types a new release may add that no positional codec gets through: each is written by its own
/// release and read back by it, and fails; the engine must say so where the release adds them.
#[allow(dead_code)]
mod added_undecodable {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug)]
    #[serde(untagged)]
    pub enum Either {
        Number(u8),
        Text(String),
    }

    #[derive(Serialize, Deserialize, Debug)]
    pub struct Untagged {
        pub id: u16,
        pub value: Either,
    }

    #[derive(Serialize, Deserialize, Debug)]
    pub struct Skipped {
        pub id: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<u8>,
        pub tail: u16,
    }

    #[derive(Serialize, Deserialize, Debug)]
    pub struct Inner {
        pub a: u8,
    }

    #[derive(Serialize, Deserialize, Debug)]
    pub struct Flattened {
        pub id: u16,
        #[serde(flatten)]
        pub inner: Inner,
    }

    /// The Rust source of the three as messages of `P`, each on a topic of its own, after `Msg`.
    pub const MESSAGES: &str = "#[derive(Serialize, Deserialize)]\n#[serde(untagged)]\n\
        pub enum Either { Number(u8), Text(String) }\n\
        #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.untagged\", kind = \"event\")]\n\
        pub struct Untagged { pub id: u16, pub value: Either }\n\
        #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.skipped\", kind = \"event\")]\n\
        pub struct Skipped { pub id: u16, #[serde(default, skip_serializing_if = \"Option::is_none\")] pub note: Option<u8>, pub tail: u16 }\n\
        #[derive(Serialize, Deserialize)]\npub struct Inner { pub a: u8 }\n\
        #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.flattened\", kind = \"event\")]\n\
        pub struct Flattened { pub id: u16, #[serde(flatten)] pub inner: Inner }\n";
}

/// Whether `value` fails to go through `c` and back: the encoding fails, or the decoding of its bytes.
fn round_trip_fails<T: Serialize + DeserializeOwned>(c: Codec, value: &T) -> bool {
    let bytes = match c {
        Postcard => postcard::to_allocvec(value).map_err(|e| e.to_string()),
        BincodeStandard => bincode::serde::encode_to_vec(value, bincode::config::standard())
            .map_err(|e| e.to_string()),
        BincodeLegacy => bincode::serde::encode_to_vec(value, bincode::config::legacy())
            .map_err(|e| e.to_string()),
        Json => serde_json::to_vec(value).map_err(|e| e.to_string()),
    };
    bytes.map_or(true, |bytes| decode::<T>(c, &bytes).is_err())
}

#[test]
fn a_message_the_new_release_adds_that_it_cannot_read_back_is_positional_undecodable() {
    use added_undecodable::*;
    for c in [BincodeStandard, BincodeLegacy, Postcard] {
        let untagged = Untagged {
            id: 1,
            value: Either::Number(2),
        };
        let skipped = Skipped {
            id: 1,
            note: None,
            tail: 3,
        };
        let flattened = Flattened {
            id: 1,
            inner: Inner { a: 2 },
        };
        assert!(round_trip_fails(c, &untagged), "{c}: untagged");
        assert!(round_trip_fails(c, &skipped), "{c}: skipped");
        assert!(round_trip_fails(c, &flattened), "{c}: flattened");
    }
    let plain = "#[derive(Serialize, Deserialize, Message)]\n\
        #[wire(protocol = P, topic = \"t.msg\", kind = \"event\")]\npub struct Msg { pub id: u16 }\n";
    for format in ["bincode", "postcard"] {
        let old = source(format, "0.1.0", plain);
        let new = source(format, "0.2.0", &format!("{plain}{MESSAGES}"));
        let old = snapshot_from_sources("case", &[("src/lib.rs", old.as_str())]).unwrap();
        let new = snapshot_from_sources("case", &[("src/lib.rs", new.as_str())]).unwrap();
        let found = compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full);
        for message in ["Untagged", "Skipped", "Flattened"] {
            let undecodable = found
                .iter()
                .find(|f| f.rule.as_str() == "positional_undecodable" && f.message_type == message);
            let undecodable =
                undecodable.unwrap_or_else(|| panic!("{format} {message}: {found:#?}"));
            assert_eq!(undecodable.level, Level::Major);
            assert!(undecodable.witness.is_some(), "{undecodable:?}");
        }
        // A plain message added stays a minor change.
        let plain_added = format!(
            "{plain}#[derive(Serialize, Deserialize, Message)]\n\
            #[wire(protocol = P, topic = \"t.more\", kind = \"event\")]\npub struct More {{ pub id: u16 }}\n"
        );
        let new = source(format, "0.2.0", &plain_added);
        let new = snapshot_from_sources("case", &[("src/lib.rs", new.as_str())]).unwrap();
        let found = compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full);
        assert!(
            found.iter().all(|f| f.level == Level::Minor),
            "{format}: {found:#?}"
        );
    }
}

/// The fixtures of what a release adds and cannot read back itself, compiled.
#[allow(dead_code)]
mod added_fixtures {
    pub mod message {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/positional_undecodable__added_message/new/lib.rs"
        ));
    }
    pub mod field {
        pub mod old {
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/positional_undecodable__added_field/old/lib.rs"
            ));
        }
        pub mod new {
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/positional_undecodable__added_field/new/lib.rs"
            ));
        }
    }
    pub mod variant {
        pub mod old {
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/positional_undecodable__added_variant/old/lib.rs"
            ));
        }
        pub mod new {
            include!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/positional_undecodable__added_variant/new/lib.rs"
            ));
        }
    }
}

/// Whether the witness `w`, a value of `T`, fails to go through `c` and back as a `T`.
fn own_witness_fails<T: Serialize + DeserializeOwned>(c: Codec, w: &Value) -> bool {
    let value: T = serde_json::from_value(w.clone())
        .unwrap_or_else(|e| panic!("the witness {w} is no value of its release's type: {e}"));
    round_trip_fails(c, &value)
}

/// The witnesses of the `positional_undecodable__added_*` fixtures, decoded by the real codecs: a
/// `positional_undecodable` one is the new release's own payload, which the new release fails to read
/// back; the others (the field or variant added) are decoded across the releases as usual.
#[test]
fn added_undecodable_fixture_witnesses_fail_in_the_release_that_wrote_them() {
    use added_fixtures::{field, message, variant};
    type Decode = fn(&str, Codec, &wirecheck::findings::Finding) -> bool;
    let cases: [(&str, &[Codec], Decode); 3] = [
        (
            "positional_undecodable__added_message",
            &[Postcard],
            |_, c, f| own_witness_fails::<message::Status>(c, f.witness.as_ref().unwrap()),
        ),
        (
            "positional_undecodable__added_field",
            &[BincodeStandard, BincodeLegacy],
            |rule, c, f| {
                let w = f.witness.as_ref().unwrap();
                match (rule, f.direction) {
                    ("positional_undecodable", _) => own_witness_fails::<field::new::Msg>(c, w),
                    (_, Some(OldReadsNew)) => {
                        witness_real::<field::new::Msg, field::old::Msg>(c, w)
                            .is_ok_and(|r| r.breaks())
                    }
                    _ => witness_real::<field::old::Msg, field::new::Msg>(c, w)
                        .is_ok_and(|r| r.breaks()),
                }
            },
        ),
        (
            "positional_undecodable__added_variant",
            &[Postcard],
            |rule, c, f| {
                let w = f.witness.as_ref().unwrap();
                match (rule, f.direction) {
                    ("positional_undecodable", _) => own_witness_fails::<variant::new::Msg>(c, w),
                    (_, Some(OldReadsNew)) => {
                        witness_real::<variant::new::Msg, variant::old::Msg>(c, w)
                            .is_ok_and(|r| r.breaks())
                    }
                    _ => witness_real::<variant::old::Msg, variant::new::Msg>(c, w)
                        .is_ok_and(|r| r.breaks()),
                }
            },
        ),
    ];
    for (dir, codecs, decodes) in cases {
        let read = |side: &str| {
            let path = format!(
                "{}/tests/fixtures/{dir}/{side}/lib.rs",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(&path).unwrap();
            snapshot_from_sources("fixture", &[("src/lib.rs", text.as_str())]).unwrap()
        };
        let found = compare_protocol(&read("old"), &read("new"), "p", "v0.1.0", Scope::Full);
        let majors: Vec<_> = found.iter().filter(|f| f.level == Level::Major).collect();
        assert!(
            majors
                .iter()
                .any(|f| f.rule.as_str() == "positional_undecodable"),
            "{dir}: {found:#?}"
        );
        for f in majors {
            for &c in codecs {
                assert!(decodes(f.rule.as_str(), c, f), "{dir}, {c}: {f:#?}");
            }
        }
    }
}
