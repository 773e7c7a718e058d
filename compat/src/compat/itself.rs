//! A release that cannot read what it writes itself: serde's `tag` on a struct that denies unknown fields
//! (the tag key is written and never consumed), a required field under `skip_serializing_if` (left out,
//! then missing), and in a format that reads structs by position (bincode, postcard, `msgpack-compact`) a
//! field under `skip_serializing_if` that shifts the fields after it, or a struct's `tag`, which is written
//! as its first element and read as its first field; and in `msgpack-compact` an untagged enum's struct
//! variant, written as an array and read from a map only. Such a message is broken for every
//! peer, its own release included, whatever the upgrade order: the contract reports it where the change
//! introduces it, with the payload the release rejects as witness.

use serde_json::Value;

use super::codec::Codec;
use super::decode::Decoder;
use super::sample::{FixtureMode, Sampler};
use rustc_hash::FxHashSet;

use super::shape::{Role, Shape, SideRef, resolve};
use crate::model::{EnumRepr, Field, SkipSer, Style, Ty};

/// How many types the search for a shifting field looks into, at most.
const MAX_TYPES: usize = 256;

/// A payload `side` writes for `ty` and rejects (or, by position, misreads) itself, with the reason.
pub fn self_rejection(side: SideRef<'_>, ty: &Ty) -> Option<(Value, String)> {
    if side.format.names_fields() {
        return decoded_by_itself(side, ty);
    }
    let misread = misread_by_position(side, ty, &mut FxHashSet::default())?;
    if let ByPosition::UntaggedStruct { path, index, name } = misread {
        return untagged_struct_rejected(side, ty, (path, index), &name);
    }
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
        ByPosition::UntaggedStruct { .. } => return None,
    };
    Some((witness, reason))
}

/// The payload of `ty` holding the untagged struct variant `index` of the enum at `path` (named
/// `name`), when `side` itself rejects it: serde reads an untagged enum's struct variant from a map
/// only (its derive gives it no `visit_seq`), and `msgpack-compact` writes it as an array.
fn untagged_struct_rejected(
    side: SideRef<'_>,
    ty: &Ty,
    (path, index): (String, usize),
    name: &str,
) -> Option<(Value, String)> {
    let mode = FixtureMode {
        force: [(path, index)].into(),
        ..FixtureMode::default()
    };
    let witness = Sampler::for_fixture(side, mode).value(ty, false)?;
    Decoder::new(side).decode(ty, &witness).err()?;
    let reason = format!(
        "`{name}` is a struct variant of an untagged enum, which {} writes as an array and serde reads \
         from a map only",
        side.format
    );
    Some((witness, reason))
}

/// Why a struct written by position is not read back as written.
enum ByPosition {
    /// A field (its Rust name) left out by `skip_serializing_if` shifts the ones after it.
    Skipped(String),
    /// `#[serde(tag = "...")]` on the struct: written first, read as a field (the tag key).
    Tag(String),
    /// A struct variant of an untagged enum (the enum's path, the variant's index and name): written
    /// as an array, read from a map only.
    UntaggedStruct {
        path: String,
        index: usize,
        name: String,
    },
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
    let resolved = resolve(side, ty, Role::Writer);
    if let (Shape::Enum(en), Some(def)) = (&resolved.shape, resolved.def)
        && side.format.structs_as_arrays()
        && let Some(index) = en.variants.iter().position(|v| {
            !v.skip_ser
                && v.style == Style::Named
                && (v.untagged || en.attrs.repr == EnumRepr::Untagged)
        })
    {
        return Some(ByPosition::UntaggedStruct {
            path: def.path.clone(),
            index,
            name: en.variants[index].rust_name.clone(),
        });
    }
    match resolved.shape {
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
