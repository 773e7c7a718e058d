//! A release that cannot read what it writes itself: serde's `tag` on a struct that denies unknown fields
//! (the tag key is written and never consumed), a required field under `skip_serializing_if` (left out,
//! then missing), and in a format that reads structs by position (bincode, postcard, `msgpack-compact`) a
//! field under `skip_serializing_if` that shifts the fields after it, or in `msgpack-compact` a struct's own
//! `tag`, written as its first element and read as its first field. Such a message is broken for every
//! peer, its own release included, whatever the upgrade order: the contract reports it where the change
//! introduces it, with the payload the release rejects as witness.

use serde_json::Value;

use super::codec::Codec;
use super::decode::Decoder;
use super::sample::Sampler;
use rustc_hash::FxHashSet;

use super::shape::{Role, Shape, SideRef, resolve};
use crate::model::{Field, SkipSer, Ty};

/// How many types the search for a shifting field looks into, at most.
const MAX_TYPES: usize = 256;

/// A payload `side` writes for `ty` and rejects (or, by position, misreads) itself, with the reason.
pub(crate) fn self_rejection(side: SideRef<'_>, ty: &Ty) -> Option<(Value, String)> {
    if side.format.names_fields() {
        return decoded_by_itself(side, ty);
    }
    let Some(field) = shifting_skip(side, ty, &mut FxHashSet::default()) else {
        // `msgpack-compact` is self-describing but for structs: one it writes can still be one it
        // rejects (a struct's own `tag`, written first, read as its first field).
        return match side.format.structs_as_arrays() {
            true => decoded_by_itself(side, ty),
            false => None,
        };
    };
    let witness = Sampler::keeping_skippable(side).value(ty, false)?;
    Some((
        witness,
        format!(
            "`{}` is left out when its `skip_serializing_if` holds, and {} reads the fields after it by \
             position",
            field.rust_name, side.format
        ),
    ))
}

/// In a format with field names: the first of the writer's samples (minimal, full, each variant) that
/// the same side's reader rejects.
fn decoded_by_itself(side: SideRef<'_>, ty: &Ty) -> Option<(Value, String)> {
    let mut sampler = Sampler::new(side);
    let mut candidates: Vec<Value> = [false, true]
        .iter()
        .filter_map(|full| sampler.value(ty, *full))
        .collect();
    if let Shape::Enum(en) = resolve(side, ty, Role::Writer).shape {
        for variant in en.variants.iter().filter(|v| !v.skip_ser) {
            candidates.extend(sampler.variant(&en, variant, false));
        }
    }
    let mut decoder = Decoder::new(side);
    candidates
        .into_iter()
        .find_map(|candidate| match decoder.decode(ty, &candidate) {
            Err(reason) => Some((candidate, reason)),
            Ok(()) => None,
        })
}

/// In a format that reads structs by position: a field that may be left out and is not the last one
/// a reader reads from its `default` (`msgpack-compact` reads a shorter array that way), anywhere in
/// the structs `ty` writes. Each type is looked into once (`seen`): recursive types end there.
fn shifting_skip(side: SideRef<'_>, ty: &Ty, seen: &mut FxHashSet<Ty>) -> Option<Field> {
    if seen.len() > MAX_TYPES || !seen.insert(ty.clone()) {
        return None;
    }
    match resolve(side, ty, Role::Writer).shape {
        Shape::Struct(def) if !def.fields.iter().any(|f| f.flatten) => {
            let written: Vec<&Field> = def.fields.iter().filter(|f| Role::Writer.sees(f)).collect();
            let shifts = |(i, field): &(usize, &&Field)| {
                matches!(field.skip_ser, SkipSer::If(_))
                    && !(side.format.structs_as_arrays()
                        && *i + 1 == written.len()
                        && (field.default || def.attrs.default))
            };
            if let Some((_, field)) = written.iter().enumerate().find(shifts) {
                return Some((*field).clone());
            }
            written
                .iter()
                .find_map(|f| shifting_skip(side, &f.ty, seen))
        }
        Shape::Option(inner) | Shape::Seq(_, inner) | Shape::Array(inner, _) => {
            shifting_skip(side, &inner, seen)
        }
        Shape::Tuple(elems, _) => elems.iter().find_map(|e| shifting_skip(side, e, seen)),
        Shape::Map(key, value) => {
            shifting_skip(side, &key, seen).or_else(|| shifting_skip(side, &value, seen))
        }
        Shape::Enum(en) => en
            .variants
            .iter()
            .filter(|v| !v.skip_ser)
            .flat_map(|v| &v.fields)
            .filter(|f| Role::Writer.sees(f))
            .find_map(|f| shifting_skip(side, &f.ty, seen)),
        _ => None,
    }
}
