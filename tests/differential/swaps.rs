//! Mutations between std, catalogued and companion types, as real code makes them: a `String` becomes a
//! validating `Uuid` or `Url` (or back), chrono moves to time, `ts_seconds` to `ts_milliseconds`, a
//! `u32` is written through `DisplayFromStr`, a `Vec<T>` through `OneOrMany`, an enum derives
//! serde_repr's integers, a `u8` becomes a `NonZeroU8` … And the rules (what serde_with, serde_repr and
//! rustc accept) that keep every generated pair compilable.

use super::ir::{Adapter, Body, Def, Ext, Field, Int, Repr, Schema, Shape, Ty, def_fields};
use super::mutate::{enums, retype, structs, swap_field_type, variants_mut};
use super::rng::Rng;

/// Catalogued and std types that are strings on the wire (each parses what it reads, or not at all).
const STRINGS: [Ext; 6] = [
    Ext::Uuid,
    Ext::Url,
    Ext::Semver,
    Ext::Utf8Path,
    Ext::PathBuf,
    Ext::Cow,
];

/// A `String` becomes a string type of std or another crate, or back (or one of them another).
pub fn m_string_catalogue(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let to = *rng.pick(&STRINGS);
    let back = rng.chance(3);
    retype(s, rng, &mut |t| match t {
        Ty::Str => Some(Ty::Ext(to)),
        Ty::Ext(e) if STRINGS.contains(e) && back && *e != to => Some(Ty::Ext(to)),
        Ty::Ext(e) if STRINGS.contains(e) => Some(Ty::Str),
        _ => None,
    })
}

/// chrono and time, each way: `DateTime<Utc>` and an `OffsetDateTime` (with `time::serde::rfc3339`, or
/// time's own text), chrono's `ts_seconds`/`ts_milliseconds` and time's `timestamp` modules.
pub fn m_chrono_time(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    use super::ir::With::*;
    let own_text = rng.chance(3);
    swap_field_type(s, rng, |t| match t {
        Ty::Ext(Ext::DateTime) if own_text => Some(Ty::Ext(Ext::OffsetDateTime)),
        Ty::Ext(Ext::DateTime) => Some(Ty::With(TimeRfc3339)),
        Ty::Ext(Ext::OffsetDateTime) | Ty::With(TimeRfc3339) => Some(Ty::Ext(Ext::DateTime)),
        Ty::With(ChronoSeconds) => Some(Ty::With(TimeSeconds)),
        Ty::With(TimeSeconds) => Some(Ty::With(ChronoSeconds)),
        Ty::With(ChronoMillis) => Some(Ty::With(TimeMillis)),
        Ty::With(TimeMillis) => Some(Ty::With(ChronoMillis)),
        _ => None,
    })
}

/// A timestamp changes its unit or form: seconds and milliseconds, an RFC 3339 string and seconds, an
/// `i64` and a `DateTime` with `ts_seconds`, std's `SystemTime` (a struct) and serde_with's
/// `TimestampSeconds` over it, and that and chrono's `ts_seconds`.
pub fn m_timestamp_unit(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    use super::ir::With::*;
    let alt = rng.chance(2);
    let stamp = Ty::As(
        Box::new(Ty::Ext(Ext::SystemTime)),
        Adapter::TimestampSeconds,
    );
    swap_field_type(s, rng, |t| match t {
        Ty::With(ChronoSeconds) if alt => Some(Ty::Int(Int::I64)),
        Ty::With(ChronoSeconds) => Some(Ty::With(ChronoMillis)),
        Ty::With(ChronoMillis) if alt => Some(Ty::Ext(Ext::DateTime)),
        Ty::With(ChronoMillis) => Some(Ty::With(ChronoSeconds)),
        Ty::With(TimeSeconds) => Some(Ty::With(TimeMillis)),
        Ty::With(TimeMillis) => Some(Ty::With(TimeSeconds)),
        Ty::Ext(Ext::DateTime) => Some(Ty::With(ChronoSeconds)),
        Ty::Int(Int::I64) => Some(Ty::With(ChronoSeconds)),
        Ty::Ext(Ext::SystemTime) => Some(stamp.clone()),
        Ty::As(_, Adapter::TimestampSeconds) if alt => Some(Ty::With(ChronoSeconds)),
        Ty::As(_, Adapter::TimestampSeconds) => Some(Ty::Ext(Ext::SystemTime)),
        _ => None,
    })
}

/// Numbers in wrappers: `f64` and `OrderedFloat<f64>` or `Decimal`, a `String` or an integer and a
/// `Decimal`, `u32` and `Wrapping<u32>`, `u8` and `NonZeroU8`.
pub fn m_number_wrapper(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let decimal = rng.chance(2);
    retype(s, rng, &mut |t| match t {
        Ty::F64 if decimal => Some(Ty::Ext(Ext::Decimal)),
        Ty::F64 => Some(Ty::Ext(Ext::OrderedF64)),
        Ty::Ext(Ext::OrderedF64) => Some(Ty::F64),
        Ty::Ext(Ext::Decimal) if decimal => Some(Ty::Str),
        Ty::Ext(Ext::Decimal) => Some(Ty::F64),
        Ty::Int(Int::U32) => Some(Ty::Ext(Ext::Wrapping)),
        Ty::Ext(Ext::Wrapping) => Some(Ty::Int(Int::U32)),
        Ty::Int(Int::U8) => Some(Ty::Ext(Ext::NonZeroU8)),
        Ty::Ext(Ext::NonZeroU8) => Some(Ty::Int(Int::U8)),
        Ty::Int(Int::I64 | Int::U64) if decimal => Some(Ty::Ext(Ext::Decimal)),
        _ => None,
    })
}

/// std's `BTreeMap` and indexmap's `IndexMap`, each way.
pub fn m_index_map(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::Map(k, v) => Some(Ty::IndexMap(k.clone(), v.clone())),
        Ty::IndexMap(k, v) => Some(Ty::Map(k.clone(), v.clone())),
        _ => None,
    })
}

/// A field's type in an `Arc`, or out of it.
pub fn m_arc(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    swap_field_type(s, rng, |t| match t {
        Ty::Arc(inner) => Some((**inner).clone()),
        Ty::With(_) | Ty::As(..) | Ty::Opt(_) => None,
        other => Some(Ty::Arc(Box::new(other.clone()))),
    })
}

/// std types that real code trades: `Duration` and `SystemTime`, a pair of `u32` and a `Range<u32>`,
/// `()` and `PhantomData`, a `[u8; 4]` and a `Vec<u8>`.
pub fn m_std_swap(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let pair = Ty::Tup(vec![Ty::Int(Int::U32), Ty::Int(Int::U32)]);
    retype(s, rng, &mut |t| match t {
        Ty::Ext(Ext::Duration) => Some(Ty::Ext(Ext::SystemTime)),
        Ty::Ext(Ext::SystemTime) => Some(Ty::Ext(Ext::Duration)),
        Ty::Ext(Ext::Range) => Some(pair.clone()),
        t if *t == pair => Some(Ty::Ext(Ext::Range)),
        Ty::Unit => Some(Ty::Ext(Ext::Phantom)),
        Ty::Ext(Ext::Phantom) => Some(Ty::Unit),
        Ty::Arr(e, _) if **e == Ty::Int(Int::U8) => Some(Ty::Int(Int::U8).vec()),
        _ => None,
    })
}

/// Whether `t` may be written through `DisplayFromStr`.
fn displayable(t: &Ty) -> bool {
    match t {
        Ty::Int(_) | Ty::Bool | Ty::F64 | Ty::Char => true,
        Ty::Ext(e) => e.displayable(),
        _ => false,
    }
}

/// A number (or another `Display`/`FromStr` type) written through `DisplayFromStr`, also inside an
/// `Option` or a `Vec`, or no longer.
pub fn m_display_from_str(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::As(inner, Adapter::Display) => Some((**inner).clone()),
        t if displayable(t) => Some(Ty::As(Box::new(t.clone()), Adapter::Display)),
        _ => None,
    })
}

/// A `bool` written as 0 or 1 (`BoolFromInt`), or back to a `bool` or a `u8`; a `u8` becomes a `bool`
/// written as 0 or 1.
pub fn m_bool_from_int(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let to_u8 = rng.chance(2);
    let adapted = Ty::As(Box::new(Ty::Bool), Adapter::BoolFromInt);
    retype(s, rng, &mut |t| match t {
        Ty::As(_, Adapter::BoolFromInt) if to_u8 => Some(Ty::Int(Int::U8)),
        Ty::As(_, Adapter::BoolFromInt) => Some(Ty::Bool),
        Ty::Bool | Ty::Int(Int::U8) => Some(adapted.clone()),
        _ => None,
    })
}

/// Bytes as base64 or hex text (serde_with's `Base64`, `Hex`), as a sequence of numbers, or as a
/// `String` that held the text.
pub fn m_bytes_text(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let bytes = Ty::Int(Int::U8).vec();
    let other = if rng.chance(2) {
        Adapter::Base64
    } else {
        Adapter::Hex
    };
    let to = match rng.below(3) {
        0 => Ty::Str,
        1 => bytes.clone(),
        _ => Ty::As(Box::new(bytes.clone()), other),
    };
    retype(s, rng, &mut |t| match t {
        Ty::As(_, Adapter::Base64 | Adapter::Hex) if *t != to => Some(to.clone()),
        Ty::As(_, Adapter::Base64 | Adapter::Hex) => Some(bytes.clone()),
        t if *t == bytes => Some(Ty::As(Box::new(bytes.clone()), other)),
        Ty::Str => Some(Ty::As(Box::new(bytes.clone()), Adapter::Base64)),
        _ => None,
    })
}

/// A `Vec<T>` written through `OneOrMany` (one element alone), or no longer.
pub fn m_one_or_many(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::As(inner, Adapter::OneOrMany) => Some((**inner).clone()),
        Ty::Vec(_) => Some(Ty::As(Box::new(t.clone()), Adapter::OneOrMany)),
        _ => None,
    })
}

/// A field read through `DefaultOnNull` (`null` is its default), or no longer.
pub fn m_default_on_null(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::As(inner, Adapter::DefaultOnNull) => Some((**inner).clone()),
        Ty::Opt(_) | Ty::With(_) | Ty::Unit => None,
        t if plain_defaultable(t) => Some(Ty::As(Box::new(t.clone()), Adapter::DefaultOnNull)),
        _ => None,
    })
}

/// Whether `t`, which names no definition, implements `Default`.
fn plain_defaultable(t: &Ty) -> bool {
    match t {
        Ty::Named(_) | Ty::With(_) => false,
        Ty::Ext(e) => e.defaultable(),
        Ty::Arr(t, n) => *n <= 32 && plain_defaultable(t),
        Ty::Tup(ts) => ts.iter().all(plain_defaultable),
        Ty::Boxed(t) | Ty::Arc(t) | Ty::As(t, _) => plain_defaultable(t),
        _ => true,
    }
}

/// A struct gets serde_with's `#[skip_serializing_none]`, or loses it.
pub fn m_skip_serializing_none(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands = structs(s, true);
    if cands.is_empty() {
        return None;
    }
    let def = &mut s.defs[*rng.pick(&cands)];
    def.skip_none = !def.skip_none;
    Some(format!(
        "`{}` skip_serializing_none = {}",
        def.name, def.skip_none
    ))
}

/// An enum of unit variants derives serde_repr's `Serialize_repr`/`Deserialize_repr` (each variant
/// becomes its discriminant), or serde's derive again; or its `repr` integer changes.
pub fn m_serde_repr(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands: Vec<usize> = enums(s)
        .into_iter()
        .filter(|&d| match &s.defs[d].body {
            Body::Enum(vs, _) => vs.iter().all(|v| v.shape == Shape::Unit && !v.untagged),
            _ => false,
        })
        .collect();
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    let name = s.defs[d].name.clone();
    let (vs, repr) = variants_mut(s, d);
    let new = match repr {
        Repr::Integer(int) if rng.chance(2) => {
            let others: Vec<Int> = Int::ALL.into_iter().filter(|i| i != int).collect();
            Repr::Integer(*rng.pick(&others))
        }
        Repr::Integer(_) => {
            for v in vs.iter_mut() {
                v.disc = None;
            }
            Repr::External
        }
        _ => Repr::Integer(if rng.chance(2) { Int::U8 } else { Int::I32 }),
    };
    let text = format!("`{name}` representation {repr:?} -> {new:?}");
    *repr = new;
    Some(text)
}

/// A serde_repr enum's discriminants become explicit: the same numbers, or others (from 1, or every one
/// shifted).
pub fn m_discriminants(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands: Vec<usize> = enums(s)
        .into_iter()
        .filter(|&d| matches!(s.defs[d].body, Body::Enum(_, Repr::Integer(_))))
        .collect();
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    let how = rng.below(3);
    let (vs, _) = variants_mut(s, d);
    let implicit = implicit_discriminants(vs.iter().map(|v| v.disc));
    for (v, old) in vs.iter_mut().zip(&implicit) {
        v.disc = Some(match how {
            0 => *old,
            1 => old + 1,
            _ => old * 10,
        });
    }
    Some(format!(
        "explicit discriminants ({})",
        ["the same", "shifted by one", "times ten"][how]
    ))
}

/// The discriminants of variants given their explicit ones (Rust's rule: one more than the previous).
pub fn implicit_discriminants(explicit: impl Iterator<Item = Option<i64>>) -> Vec<i64> {
    let mut next = 0i64;
    explicit
        .map(|d| {
            let v = d.unwrap_or(next);
            next = v + 1;
            v
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Validity.

/// Where an adapter or a `with` module may stand: only in a named field's type, a `with` module only as
/// the whole type, an adapter along `Option`/`Vec`/`Box`/arrays/tuples/map values (never inside a set, a
/// map key, an `IndexMap`, an `Arc` or another crate's type), and nothing adapted inside an adapter but
/// the element adapter of `OneOrMany`/`DefaultOnNull`.
pub fn check_field_adapters(f: &Field, tuple: bool) -> Result<(), String> {
    if !f.adapted() {
        return check_plain(&f.ty);
    }
    if tuple {
        return Err("adapter on a tuple field".into());
    }
    if f.with || f.de_with || f.skip || f.flatten {
        return Err("adapter with another with/skip/flatten".into());
    }
    match &f.ty {
        Ty::With(_) => Ok(()),
        t => check_adaptable(t),
    }
}

/// No adapter and no `with` module anywhere in `t`.
pub fn check_plain(t: &Ty) -> Result<(), String> {
    match t {
        Ty::With(_) | Ty::As(..) => Err(format!("adapter inside {}", t.render())),
        Ty::Opt(t) | Ty::Vec(t) | Ty::Set(t) | Ty::Boxed(t) | Ty::Arc(t) | Ty::Arr(t, _) => {
            check_plain(t)
        }
        Ty::Map(k, v) | Ty::IndexMap(k, v) => check_plain(k).and(check_plain(v)),
        Ty::Tup(ts) => ts.iter().try_for_each(check_plain),
        _ => Ok(()),
    }
}

fn check_adaptable(t: &Ty) -> Result<(), String> {
    match t {
        Ty::As(inner, a) => check_adapter(inner, *a),
        Ty::Opt(t) | Ty::Vec(t) | Ty::Boxed(t) | Ty::Arr(t, _) => check_adaptable(t),
        Ty::Map(k, v) => check_plain(k).and(check_adaptable(v)),
        Ty::Tup(ts) => ts.iter().try_for_each(check_adaptable),
        other => check_plain(other),
    }
}

/// What each adapter takes.
fn check_adapter(inner: &Ty, a: Adapter) -> Result<(), String> {
    let bytes = Ty::Int(Int::U8).vec();
    let fits = match a {
        Adapter::Display => displayable(inner),
        Adapter::BoolFromInt => *inner == Ty::Bool,
        Adapter::Base64 | Adapter::Hex => *inner == bytes,
        Adapter::TimestampSeconds => *inner == Ty::Ext(Ext::SystemTime),
        Adapter::OneOrMany => {
            return match inner {
                Ty::Vec(e) => check_adaptable(e),
                _ => Err("OneOrMany over a non-Vec".into()),
            };
        }
        Adapter::DefaultOnNull => {
            return match inner {
                Ty::Opt(_) | Ty::With(_) => Err("DefaultOnNull over this".into()),
                t => check_adaptable(t),
            };
        }
    };
    if fits {
        Ok(())
    } else {
        Err(format!("{a:?} over {}", inner.render()))
    }
}

/// serde_repr's rules for an integer enum (unit variants, one `other`, distinct discriminants that fit
/// the `repr` type) and rustc's (explicit discriminants only there).
pub fn check_enum(def: &Def) -> Result<(), String> {
    let Body::Enum(vs, repr) = &def.body else {
        return Ok(());
    };
    let Repr::Integer(int) = repr else {
        return match vs.iter().any(|v| v.disc.is_some()) {
            true => Err("explicit discriminants without serde_repr".into()),
            false => Ok(()),
        };
    };
    if vs.iter().any(|v| v.shape != Shape::Unit || v.untagged) {
        return Err("serde_repr over a non-unit variant".into());
    }
    if vs.iter().filter(|v| v.other).count() > 1 {
        return Err("two other variants".into());
    }
    if def.skip_none || def_fields(def).next().is_some() {
        return Err("serde_repr enum with fields".into());
    }
    let discs = implicit_discriminants(vs.iter().map(|v| v.disc));
    let (lo, hi) = int.range();
    let mut seen = std::collections::BTreeSet::new();
    for d in discs {
        if !(lo..=hi).contains(&i128::from(d)) || !seen.insert(d) {
            return Err(format!("discriminant {d} for {}", int.name()));
        }
    }
    Ok(())
}
