//! A release that cannot read what it writes itself: serde's `tag` on a struct that denies unknown fields
//! (the tag key is written and never consumed), a required field under `skip_serializing_if` (left out,
//! then missing), and in a format that reads structs by position (bincode, postcard, `msgpack-compact`) a
//! field under `skip_serializing_if` that shifts the fields after it, or a struct's `tag`, which is written
//! as its first element and read as its first field. Such a message is broken for every
//! peer, its own release included, whatever the upgrade order: the contract reports it where the change
//! introduces it, with the payload the release rejects as witness.

use serde_json::Value;

use super::codec::Codec;
use super::decode::Decoder;
use super::sample::Sampler;
use rustc_hash::FxHashSet;

use super::shape::{Role, Shape, SideRef, resolve};
use crate::model::{EnumRepr, Field, SkipSer, Ty};

/// How many types the search for a shifting field looks into, at most.
const MAX_TYPES: usize = 256;

/// A payload `side` writes for `ty` and rejects (or, by position, misreads) itself, with the reason.
pub(crate) fn self_rejection(side: SideRef<'_>, ty: &Ty) -> Option<(Value, String)> {
    if side.format.names_fields() {
        return decoded_by_itself(side, ty);
    }
    let misread = misread_by_position(side, ty, &mut FxHashSet::default())?;
    let witness = Sampler::keeping_skippable(side).value(ty, false)?;
    let reason = match misread {
        ByPosition::Skipped(field) => format!(
            "`{field}` is left out when its `skip_serializing_if` holds, and {} reads the fields after \
             it by position",
            side.format
        ),
        ByPosition::Tag(tag) => format!(
            "the struct's tag `{tag}` is written as its first element, and {} reads it as the struct's \
             first field",
            side.format
        ),
    };
    Some((witness, reason))
}

/// Why a struct written by position is not read back as written.
enum ByPosition {
    /// A field (its Rust name) left out by `skip_serializing_if` shifts the ones after it.
    Skipped(String),
    /// `#[serde(tag = "...")]` on the struct: written first, read as a field (the tag key).
    Tag(String),
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

/// In a format that reads structs by position, anywhere in the structs `ty` writes: a struct with a
/// `tag`, or a field that may be left out and is not the last one a reader reads from its `default`
/// (`msgpack-compact` reads a shorter array that way). Each type is looked into once (`seen`):
/// recursive types end there.
fn misread_by_position(side: SideRef<'_>, ty: &Ty, seen: &mut FxHashSet<Ty>) -> Option<ByPosition> {
    if seen.len() > MAX_TYPES || !seen.insert(ty.clone()) {
        return None;
    }
    match resolve(side, ty, Role::Writer).shape {
        Shape::Struct(def) if !def.fields.iter().any(|f| f.flatten) => {
            if let EnumRepr::Internal { tag } = &def.attrs.repr {
                return Some(ByPosition::Tag(tag.clone()));
            }
            let written: Vec<&Field> = def.fields.iter().filter(|f| Role::Writer.sees(f)).collect();
            let shifts = |(i, field): &(usize, &&Field)| {
                matches!(field.skip_ser, SkipSer::If(_))
                    && !(side.format.structs_as_arrays()
                        && *i + 1 == written.len()
                        && (field.default || def.attrs.default))
            };
            if let Some((_, field)) = written.iter().enumerate().find(shifts) {
                return Some(ByPosition::Skipped(field.rust_name.clone()));
            }
            written
                .iter()
                .find_map(|f| misread_by_position(side, &f.ty, seen))
        }
        Shape::Option(inner) | Shape::Seq(_, inner) | Shape::Array(inner, _) => {
            misread_by_position(side, &inner, seen)
        }
        Shape::Tuple(elems, _) => elems
            .iter()
            .find_map(|e| misread_by_position(side, e, seen)),
        Shape::Map(key, value) => misread_by_position(side, &key, seen)
            .or_else(|| misread_by_position(side, &value, seen)),
        Shape::Enum(en) => en
            .variants
            .iter()
            .filter(|v| !v.skip_ser)
            .flat_map(|v| &v.fields)
            .filter(|f| Role::Writer.sees(f))
            .find_map(|f| misread_by_position(side, &f.ty, seen)),
        _ => None,
    }
}
