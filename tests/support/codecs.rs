//! The real codecs the truth tests decode with, and what they tell: `tests/positional_truth.rs` and the
//! fixture witness test (`fixture-truth/`) both include this file (`#[path]`), so that a witness is
//! judged the same way wherever it is decoded.
#![allow(dead_code)]

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use Codec::{BincodeLegacy, BincodeStandard, Json, Postcard};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// `bincode::config::standard()`: little endian, varint integers (zigzag for signed).
    BincodeStandard,
    /// `bincode::config::legacy()`: little endian, fixed-width integers (bincode 1's layout).
    BincodeLegacy,
    /// postcard 1: LEB128 varints for u16..u128 and lengths, zigzag for signed, raw u8/i8.
    Postcard,
    /// serde_json, for the witnesses of the JSON fixtures (the positional cases never use it).
    Json,
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BincodeStandard => "bincode standard",
            BincodeLegacy => "bincode legacy",
            Postcard => "postcard",
            Json => "json",
        })
    }
}

pub fn encode<T: Serialize>(c: Codec, v: &T) -> Vec<u8> {
    let out =
        match c {
            BincodeStandard => bincode::serde::encode_to_vec(v, bincode::config::standard())
                .map_err(|e| e.to_string()),
            BincodeLegacy => bincode::serde::encode_to_vec(v, bincode::config::legacy())
                .map_err(|e| e.to_string()),
            Postcard => postcard::to_allocvec(v).map_err(|e| e.to_string()),
            Json => serde_json::to_vec(v).map_err(|e| e.to_string()),
        };
    match out {
        Ok(b) => b,
        Err(e) => panic!("{c} cannot encode {}: {e}", std::any::type_name::<T>()),
    }
}

/// A decode limit for bincode: without one, a misread length prefix makes bincode allocate that many
/// bytes up front and abort the process. The limit changes nothing else (the samples are far smaller).
pub const LIMIT: usize = 1 << 20;

/// The decoded value and the number of bytes it consumed.
pub fn decode<T: DeserializeOwned>(c: Codec, b: &[u8]) -> Result<(T, usize), String> {
    match c {
        BincodeStandard => {
            bincode::serde::decode_from_slice(b, bincode::config::standard().with_limit::<LIMIT>())
                .map_err(|e| e.to_string())
        }
        BincodeLegacy => {
            bincode::serde::decode_from_slice(b, bincode::config::legacy().with_limit::<LIMIT>())
                .map_err(|e| e.to_string())
        }
        Postcard => postcard::take_from_bytes(b)
            .map(|(v, rest)| (v, b.len() - rest.len()))
            .map_err(|e| e.to_string()),
        Json => serde_json::from_slice(b)
            .map(|v| (v, b.len()))
            .map_err(|e| e.to_string()),
    }
}

/// What really happens in one direction: every sample read back, or the first one that was not.
#[derive(Debug)]
pub enum Real {
    /// Every sample decoded, consumed all its bytes and kept its value.
    Ok(usize),
    /// A sample the reader rejects.
    Error {
        wrote: Value,
        bytes: Vec<u8>,
        error: String,
    },
    /// A sample the reader decodes without consuming all of it.
    Trailing {
        wrote: Value,
        bytes: Vec<u8>,
        left: usize,
    },
    /// A sample the reader decodes as another value.
    Misread {
        wrote: Value,
        read: Value,
        bytes: Vec<u8>,
    },
}

impl Real {
    pub fn breaks(&self) -> bool {
        !matches!(self, Real::Ok(_))
    }
}

impl fmt::Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = |v: &Value| {
            let s = v.to_string();
            if s.chars().count() > 40 {
                format!("{}…", s.chars().take(40).collect::<String>())
            } else {
                s
            }
        };
        let hex = |b: &[u8]| {
            let mut s: String = b.iter().take(12).map(|x| format!("{x:02x}")).collect();
            if b.len() > 12 {
                s.push('…');
            }
            s
        };
        match self {
            Real::Ok(n) => write!(f, "ok ({n} samples)"),
            Real::Error {
                wrote,
                bytes,
                error,
            } => {
                write!(f, "error: {} [{}] → {error}", short(wrote), hex(bytes))
            }
            Real::Trailing { wrote, bytes, left } => {
                write!(f, "trailing {left} B: {} [{}]", short(wrote), hex(bytes))
            }
            Real::Misread { wrote, read, bytes } => {
                write!(
                    f,
                    "misread: {} [{}] → {}",
                    short(wrote),
                    hex(bytes),
                    short(read)
                )
            }
        }
    }
}

pub fn json<T: Serialize>(v: &T) -> Value {
    match serde_json::to_value(v) {
        Ok(j) => j,
        Err(e) => panic!("{} as JSON: {e}", std::any::type_name::<T>()),
    }
}

/// Whether the reader's value `r` means what the writer's value `w` meant: every field the reader has
/// holds the writer's value of the same name (a field only the writer has may be lost, not invented,
/// unless it is `null`: a zero-sized `()`/`PhantomData` has one value); sequences element by element;
/// a string and the array of its UTF-8 bytes alike; everything else equal. Bytes that do not line up
/// show as an error or trailing bytes, not here.
pub fn same(w: &Value, r: &Value) -> bool {
    match (w, r) {
        (Value::Object(a), Value::Object(b)) => b.iter().all(|(k, rv)| match a.get(k) {
            Some(wv) => same(wv, rv),
            None => rv.is_null(),
        }),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        // A string and its UTF-8 bytes are the same value (`String` against `Vec<u8>`).
        (Value::String(s), Value::Array(b)) | (Value::Array(b), Value::String(s)) => {
            let bytes: Vec<Option<u64>> = b.iter().map(Value::as_u64).collect();
            let utf8: Vec<Option<u64>> = s.bytes().map(|x| Some(u64::from(x))).collect();
            bytes == utf8
        }
        _ => w == r,
    }
}

/// Which release's type writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Old,
    New,
}

/// What the engine's witness `w` (a `W` as JSON) does when written by `c` and read as an `R`: the witness
/// must show the break it comes with, so it must fail, leave bytes unread or read back as another value.
pub fn witness_real<W, R>(c: Codec, w: &Value) -> Result<Real, String>
where
    W: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    let value: W = serde_json::from_value(w.clone())
        .map_err(|e| format!("the witness {w} is no value of the writer's type: {e}"))?;
    let bytes = encode(c, &value);
    let wrote = json(&value);
    Ok(match decode::<R>(c, &bytes) {
        Err(error) => Real::Error {
            wrote,
            bytes,
            error,
        },
        Ok((_, n)) if n < bytes.len() => Real::Trailing {
            wrote,
            left: bytes.len() - n,
            bytes,
        },
        Ok((r, _)) => {
            let read = json(&r);
            if same(&wrote, &read) {
                Real::Ok(1)
            } else {
                Real::Misread { wrote, read, bytes }
            }
        }
    })
}
