//! Walking a catalogued shape: JSON values against its human-readable branch, postcard bytes through
//! its compact branch, and values built from its samples.

use serde_json::Value;
use wirecheck::model::{Body, EnumRepr, SeqKind, Style, Ty, TypeDef};

/// A snapshot's definitions, by path.
pub type Defs = std::collections::BTreeMap<String, std::sync::Arc<TypeDef>>;

// ----- JSON through the human-readable branch -----

/// The definition named `path`.
fn def<'d>(defs: &'d Defs, path: &str) -> &'d TypeDef {
    defs.get(path)
        .unwrap_or_else(|| panic!("no definition {path}"))
}

/// Whether the JSON value `v` is one the shape `ty` writes in human-readable formats.
pub fn json_fits(ty: &Ty, v: &Value, defs: &Defs) -> Result<(), String> {
    let fail = || Err(format!("{v} does not fit {ty}"));
    let all = |items: &[Value], elem: &Ty| {
        items
            .iter()
            .try_for_each(|item| json_fits(elem, item, defs))
    };
    match (ty, v) {
        (Ty::Bool, Value::Bool(_))
        | (Ty::Unit | Ty::Option { .. }, Value::Null)
        | (Ty::Value, _) => Ok(()),
        (Ty::String, Value::String(_)) => Ok(()),
        (Ty::Char, Value::String(s)) if s.chars().count() == 1 => Ok(()),
        (Ty::Int { signed, bits }, Value::Number(n)) => int_fits(*signed, *bits, n)
            .then_some(())
            .ok_or_else(|| format!("{n} is not an {ty}")),
        (Ty::Float { .. }, Value::Number(_)) => Ok(()),
        (Ty::Bytes, Value::Array(items)) => all(
            items,
            &Ty::Int {
                signed: false,
                bits: 8,
            },
        ),
        (Ty::Option { inner }, v) => json_fits(inner, v, defs),
        (Ty::Seq { elem, .. }, Value::Array(items)) => all(items, elem),
        (Ty::Array { elem, len }, Value::Array(items)) if items.len() as u64 == *len => {
            all(items, elem)
        }
        (Ty::Tuple { elems }, Value::Array(items)) if items.len() == elems.len() => elems
            .iter()
            .zip(items)
            .try_for_each(|(elem, item)| json_fits(elem, item, defs)),
        (Ty::Map { key, value }, Value::Object(map)) => map.iter().try_for_each(|(k, item)| {
            json_fits(key, &Value::String(k.clone()), defs)?;
            json_fits(value, item, defs)
        }),
        (Ty::Refined { base, .. }, v) => json_fits(base, v, defs),
        (Ty::Readable { human, .. }, v) => json_fits(human, v, defs),
        (Ty::Choice { writes, .. }, v) => json_fits(writes, v, defs),
        (Ty::Named { path, .. }, v) => json_fits_def(def(defs, path), v, defs),
        _ => fail(),
    }
}

/// Whether the JSON number `n` is an integer of that width.
fn int_fits(signed: bool, bits: u8, n: &serde_json::Number) -> bool {
    let (Some(wide), true) = (n.as_i128(), n.is_i64() || n.is_u64()) else {
        return false;
    };
    if signed {
        let half = 1i128 << (bits.min(127) - 1);
        bits >= 128 || (-half..half).contains(&wide)
    } else {
        wide >= 0 && (bits >= 128 || wide < (1i128 << bits))
    }
}

/// Whether `v` is an externally tagged value of the catalogue enum `d` (newtype variants).
fn json_fits_def(d: &TypeDef, v: &Value, defs: &Defs) -> Result<(), String> {
    let (Body::Enum { variants }, Value::Object(map)) = (&d.body, v) else {
        return Err(format!("{v} is not a variant of {}", d.path));
    };
    assert_eq!(d.attrs.repr, EnumRepr::External);
    let (tag, payload) = map.iter().next().ok_or("empty object")?;
    let variant = variants
        .iter()
        .find(|var| &var.ser_name == tag)
        .ok_or_else(|| format!("no variant {tag}"))?;
    json_fits(&variant.fields[0].ty, payload, defs)
}

// ----- postcard through the compact branch -----

/// A postcard varint (LEB128, up to 19 bytes for `u128`).
fn varint(bytes: &mut &[u8]) -> Result<u128, String> {
    let mut value = 0u128;
    for shift in (0..128).step_by(7) {
        let (&byte, rest) = bytes.split_first().ok_or("varint past the end")?;
        *bytes = rest;
        value |= u128::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("varint too long".into())
}

/// Takes `n` bytes.
fn take<'b>(bytes: &mut &'b [u8], n: usize) -> Result<&'b [u8], String> {
    if bytes.len() < n {
        return Err(format!("{n} bytes wanted, {} left", bytes.len()));
    }
    let (head, rest) = bytes.split_at(n);
    *bytes = rest;
    Ok(head)
}

/// A varint length.
fn len(bytes: &mut &[u8]) -> Result<usize, String> {
    usize::try_from(varint(bytes)?).map_err(|e| e.to_string())
}

/// Decodes one value of the shape `ty`'s compact branch from postcard `bytes`.
pub fn postcard_decode(ty: &Ty, bytes: &mut &[u8], defs: &Defs) -> Result<(), String> {
    match ty {
        Ty::Bool => match take(bytes, 1)?[0] {
            0 | 1 => Ok(()),
            other => Err(format!("bool byte {other}")),
        },
        Ty::Int { bits: 8, .. } => take(bytes, 1).map(drop),
        Ty::Int { signed, bits } => {
            let raw = varint(bytes)?;
            let unzig = if *signed { raw >> 1 } else { raw };
            (*bits >= 128 || unzig >> (bits - u8::from(*signed)) == 0)
                .then_some(())
                .ok_or_else(|| format!("{raw} does not fit {ty}"))
        }
        Ty::Float { bits } => take(bytes, usize::from(*bits / 8)).map(drop),
        Ty::Unit => Ok(()),
        Ty::Char | Ty::String => {
            let n = len(bytes)?;
            std::str::from_utf8(take(bytes, n)?)
                .map(drop)
                .map_err(|e| e.to_string())
        }
        Ty::Bytes => {
            let n = len(bytes)?;
            take(bytes, n).map(drop)
        }
        Ty::Option { inner } => match take(bytes, 1)?[0] {
            0 => Ok(()),
            1 => postcard_decode(inner, bytes, defs),
            other => Err(format!("option tag {other}")),
        },
        Ty::Seq { elem, .. } => {
            (0..len(bytes)?).try_for_each(|_| postcard_decode(elem, bytes, defs))
        }
        Ty::Map { key, value } => (0..len(bytes)?).try_for_each(|_| {
            postcard_decode(key, bytes, defs)?;
            postcard_decode(value, bytes, defs)
        }),
        Ty::Array { elem, len } => (0..*len).try_for_each(|_| postcard_decode(elem, bytes, defs)),
        Ty::Tuple { elems } => elems
            .iter()
            .try_for_each(|e| postcard_decode(e, bytes, defs)),
        Ty::Refined { base, .. } => postcard_decode(base, bytes, defs),
        Ty::Readable { compact, .. } => postcard_decode(compact, bytes, defs),
        Ty::Choice { writes, .. } => postcard_decode(writes, bytes, defs),
        Ty::Named { path, .. } => {
            let Body::Enum { variants } = &def(defs, path).body else {
                return Err(format!("{path} is not an enum"));
            };
            let index = len(bytes)?;
            let variant = variants
                .get(index)
                .ok_or_else(|| format!("no variant {index}"))?;
            assert_eq!(variant.style, Style::Tuple);
            variant
                .fields
                .iter()
                .try_for_each(|f| postcard_decode(&f.ty, bytes, defs))
        }
        other => Err(format!("{other} has no compact shape")),
    }
}

// ----- values built from the shape -----

/// A JSON value the shape writes: its samples, or a small value of each structural type.
pub fn sample(ty: &Ty, human: bool, defs: &Defs) -> Value {
    let parse = |text: &str| serde_json::from_str(text).expect("a sample is JSON text");
    match ty {
        Ty::Bool => Value::Bool(true),
        Ty::Char => "a".into(),
        Ty::String => "a".into(),
        Ty::Int { .. } => 1.into(),
        Ty::Float { .. } => 0.5.into(),
        Ty::Unit | Ty::Value => Value::Null,
        Ty::Bytes => Value::Array(vec![1.into(), 2.into()]),
        Ty::Option { inner } => sample(inner, human, defs),
        Ty::Seq { elem, kind } => Value::Array(match kind {
            SeqKind::List => vec![sample(elem, human, defs); 2],
            SeqKind::Set => vec![sample(elem, human, defs)],
        }),
        Ty::Array { elem, len } => Value::Array(vec![sample(elem, human, defs); *len as usize]),
        Ty::Tuple { elems } => Value::Array(elems.iter().map(|e| sample(e, human, defs)).collect()),
        Ty::Map { value, .. } => serde_json::json!({ "k": sample(value, human, defs) }),
        Ty::Refined { sample: text, .. } => parse(text),
        Ty::Readable { human: h, compact } => sample(if human { h } else { compact }, human, defs),
        Ty::Choice { writes, .. } => sample(writes, human, defs),
        Ty::Named { path, .. } => match &def(defs, path).body {
            Body::Enum { variants } => {
                serde_json::json!({ variants[0].ser_name.clone(): sample(&variants[0].fields[0].ty, human, defs) })
            }
            other => panic!("no sample of {other:?}"),
        },
        other => panic!("no sample of {other}"),
    }
}

/// A postcard varint of `n`.
fn put_varint(mut n: u128, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Encodes the JSON value `v` (a value of the shape) as postcard bytes through the compact branch.
pub fn postcard_encode(ty: &Ty, v: &Value, defs: &Defs, out: &mut Vec<u8>) {
    let items = |v: &Value| {
        v.as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{v} is not an array"))
    };
    match ty {
        Ty::Bool => out.push(u8::from(v.as_bool().expect("bool"))),
        Ty::Int { bits: 8, .. } => out.push(v.as_i64().expect("int") as u8),
        Ty::Int { signed: false, .. } => put_varint(v.as_u64().expect("uint").into(), out),
        Ty::Int { signed: true, .. } => {
            let n = i128::from(v.as_i64().expect("int"));
            put_varint(((n << 1) ^ (n >> 127)) as u128, out);
        }
        Ty::Float { bits: 32 } => out.extend((v.as_f64().expect("float") as f32).to_le_bytes()),
        Ty::Float { .. } => out.extend(v.as_f64().expect("float").to_le_bytes()),
        Ty::Unit => {}
        Ty::Char | Ty::String => {
            let s = v.as_str().expect("string");
            put_varint(s.len() as u128, out);
            out.extend(s.as_bytes());
        }
        Ty::Bytes => {
            let b: Vec<u8> = items(v)
                .iter()
                .map(|x| x.as_u64().expect("byte") as u8)
                .collect();
            put_varint(b.len() as u128, out);
            out.extend(b);
        }
        Ty::Option { inner } if v.is_null() => {
            let _ = inner;
            out.push(0);
        }
        Ty::Option { inner } => {
            out.push(1);
            postcard_encode(inner, v, defs, out);
        }
        Ty::Seq { elem, .. } => {
            let items = items(v);
            put_varint(items.len() as u128, out);
            items
                .iter()
                .for_each(|item| postcard_encode(elem, item, defs, out));
        }
        Ty::Array { elem, .. } => items(v)
            .iter()
            .for_each(|item| postcard_encode(elem, item, defs, out)),
        Ty::Tuple { elems } => elems
            .iter()
            .zip(items(v))
            .for_each(|(elem, item)| postcard_encode(elem, &item, defs, out)),
        Ty::Map { key, value } => {
            let map = v
                .as_object()
                .unwrap_or_else(|| panic!("{v} is not an object"));
            put_varint(map.len() as u128, out);
            for (k, item) in map {
                postcard_encode(key, &Value::String(k.clone()), defs, out);
                postcard_encode(value, item, defs, out);
            }
        }
        Ty::Refined { base, .. } => postcard_encode(base, v, defs, out),
        Ty::Readable { compact, .. } => postcard_encode(compact, v, defs, out),
        Ty::Choice { writes, .. } => postcard_encode(writes, v, defs, out),
        Ty::Named { path, .. } => {
            let Body::Enum { variants } = &def(defs, path).body else {
                panic!("{path} is not an enum");
            };
            let (tag, payload) = v
                .as_object()
                .and_then(|m| m.iter().next())
                .expect("a variant");
            let index = variants
                .iter()
                .position(|var| &var.ser_name == tag)
                .expect("a known variant");
            put_varint(index as u128, out);
            postcard_encode(&variants[index].fields[0].ty, payload, defs, out);
        }
        other => panic!("no postcard encoding of {other}"),
    }
}

/// The first refined value the shape writes in `human` (or compact) formats, through options, choices
/// and readable pairs.
pub fn refined_of(ty: &Ty, human: bool) -> Option<(&str, Option<&str>)> {
    match ty {
        Ty::Refined {
            sample, outside, ..
        } => Some((sample, outside.as_deref())),
        Ty::Option { inner } => refined_of(inner, human),
        Ty::Choice { writes, .. } => refined_of(writes, human),
        Ty::Readable { human: h, compact } => refined_of(if human { h } else { compact }, human),
        _ => None,
    }
}

/// The extent of the first refined integer the shape writes in `human` (or compact) formats, as
/// [`refined_of`] finds it: its least and greatest value.
pub fn extent_of(ty: &Ty, human: bool) -> Option<(i128, i128)> {
    match ty {
        Ty::Refined {
            extent: Some((least, most)),
            ..
        } => Some((least.parse().ok()?, most.parse().ok()?)),
        Ty::Refined { .. } => None,
        Ty::Option { inner } => extent_of(inner, human),
        Ty::Choice { writes, .. } => extent_of(writes, human),
        Ty::Readable { human: h, compact } => extent_of(if human { h } else { compact }, human),
        _ => None,
    }
}

/// Whether the compact shape, along the values [`sample`] builds, reads nothing: a choice with no
/// reader (a `deserialize_any` in a format without it).
pub fn compact_reads_nothing(ty: &Ty) -> bool {
    match ty {
        Ty::Choice { reads, .. } => reads.iter().all(compact_reads_nothing),
        Ty::Option { inner } => compact_reads_nothing(inner),
        Ty::Readable { compact, .. } => compact_reads_nothing(compact),
        Ty::Refined { base, .. } => compact_reads_nothing(base),
        _ => false,
    }
}
