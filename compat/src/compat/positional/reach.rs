//! Undecodable shapes in what the new release adds (a message, a field, a variant) in a positional
//! format: nothing of the old release is compared with it, so the walk never meets its shapes, but a
//! release that cannot read what it writes itself is broken for every peer, its own version included.

use std::collections::HashSet;

use super::super::issue::Issue;
use super::super::sample::Sampler;
use super::super::shape::{MAX_DEPTH, Role, Shape, SideRef, resolve};
use super::super::walk::Walk;
use super::undecodable;
use crate::findings::Side;
use crate::model::{Field, SkipSer, Ty};

/// How many distinct types a search visits before giving up (generic instantiations can grow).
const MAX_TYPES: usize = 4096;

impl Walk<'_> {
    /// The new release's side of this walk.
    fn new_side(&self) -> SideRef<'_> {
        if self.writer.side == Side::New {
            self.writer
        } else {
            self.reader
        }
    }

    /// `positional_undecodable` for what the new release adds (`added`, in words: a message, a field, a
    /// variant), whose type is `ty` (with `field`, the field it is): the first shape reachable from it that a positional codec cannot decode or
    /// write (the reasons of [`undecodable`]), or a field that may be left out
    /// (`skip_serializing_if`) and is read by position. The witness is the new release's own payload of
    /// `ty` (a caller placing the issue in an enclosing payload gives that payload instead).
    pub fn added_undecodable(&self, added: &str, ty: &Ty, field: Option<&Field>) -> Option<Issue> {
        let side = self.new_side();
        let (what, at) = match field.and_then(skipped_but_read) {
            Some(_) => (
                format!(
                    "the new release adds {added}, which it may leave out (`skip_serializing_if`) but \
                     reads by position: a positional format cannot skip a field"
                ),
                ty.clone(),
            ),
            None => {
                let (at, why) = first_undecodable(side, ty)?;
                let what = format!("the new release adds {added}, which holds `{at}`: {why}");
                (what, at)
            }
        };
        let witness = Sampler::new(side).value(ty, false);
        let location = resolve(side, &at, Role::Reader)
            .def
            .map(|def| (def.location.clone(), Side::New));
        let mut issue = self.undecodable_break(
            format!("{what}, so it fails on every message that reaches it, its own included"),
            witness,
        );
        issue.location = location;
        Some(issue)
    }
}

/// The name of `field` when its writer may leave it out and its reader reads it by position.
fn skipped_but_read(field: &Field) -> Option<&str> {
    (matches!(field.skip_ser, SkipSer::If(_)) && !field.skip_de).then_some(&field.rust_name)
}

/// Why a field that may be left out cannot be read back by position.
fn skip_words(field: &str) -> String {
    format!(
        "`{field}` may be left out (`skip_serializing_if`) and is read by position, which a positional format cannot skip"
    )
}

/// The first type reachable from `ty` on `side` with a shape a positional codec cannot get through, and
/// why: depth first, each type once.
fn first_undecodable(side: SideRef<'_>, ty: &Ty) -> Option<(Ty, String)> {
    let mut seen: HashSet<Ty> = HashSet::new();
    let mut stack = vec![(ty.clone(), 0)];
    while let Some((ty, depth)) = stack.pop() {
        if depth > MAX_DEPTH || seen.len() > MAX_TYPES || !seen.insert(ty.clone()) {
            continue;
        }
        let writer = resolve(side, &ty, Role::Writer).shape;
        let reader = resolve(side, &ty, Role::Reader).shape;
        if let Some(why) = undecodable(&reader, Role::Reader).or(undecodable(&writer, Role::Writer))
        {
            return Some((ty, why.to_owned()));
        }
        if let Shape::Struct(def) = &writer
            && let Some(name) = def.fields.iter().find_map(skipped_but_read)
        {
            return Some((ty, skip_words(name)));
        }
        for (shape, role) in [(&reader, Role::Reader), (&writer, Role::Writer)] {
            // Pushed in reverse, so that the first child is searched first.
            let children = children(shape, role);
            stack.extend(children.into_iter().rev().map(|child| (child, depth + 1)));
        }
    }
    None
}

/// The types a value of `shape` holds, as `role` sees them.
fn children(shape: &Shape, role: Role) -> Vec<Ty> {
    match shape {
        Shape::Option(ty) | Shape::Seq(_, ty) | Shape::Array(ty, _) => vec![ty.clone()],
        Shape::Map(key, value) => vec![key.clone(), value.clone()],
        Shape::Tuple(elements, _) | Shape::Choice(elements) => elements.clone(),
        Shape::Struct(def) => def
            .fields
            .iter()
            .filter(|f| role.sees(f))
            .map(|f| f.ty.clone())
            .collect(),
        Shape::Enum(def) => def
            .variants
            .iter()
            .filter(|v| match role {
                Role::Writer => !v.skip_ser,
                Role::Reader => !v.skip_de,
            })
            .flat_map(|v| v.fields.iter().filter(|f| role.sees(f)))
            .map(|f| f.ty.clone())
            .collect(),
        Shape::Refined(refined) => vec![refined.base.clone()],
        _ => Vec::new(),
    }
}
