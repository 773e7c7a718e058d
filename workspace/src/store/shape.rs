//! A part's *shape*: the hash of what a comparison reads of it, locations and versions left out, so
//! that a caller compares a protocol once per distinct shape (see the [store](super)'s documentation).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::content_id;
use crate::extract::Keep;
use crate::model::digest::{self, DigestOf};
use crate::model::{Body, Field, MessageDecl, PartOf, ProtocolDecl, Snapshot, TypeDef, Variant};

/// The shape of a part kept with `keep` (see [`Part::shape`](super::Part::shape)): its model with every
/// location blanked and without the declaration's versions, hashed through [`Blanked`] (nothing is
/// copied).
pub(super) fn shape_of(model: &Snapshot, keep: Keep) -> String {
    content_id(&(
        Blanked(model.protocols.as_slice()),
        Blanked(model.messages.as_slice()),
        Blanked(&model.types),
        keep,
    ))
}

/// The [shape](shape_of) of the protocol `decl`'s part `part`, borrowed: the same as the shape of
/// `part.to_model(decl)` (each value is hashed as its copy would be).
pub(super) fn part_shape(decl: &ProtocolDecl, part: &PartOf<'_>, keep: Keep) -> String {
    content_id(&(
        Blanked(std::slice::from_ref(decl)),
        Blanked(part.messages.as_slice()),
        Blanked(&part.types),
        keep,
    ))
}

/// A part of a model as [`shape_of`] hashes it: what a comparison reads, without the locations and the
/// protocol's versions. Two values hash alike exactly when they are equal once every location is blanked
/// and every protocol's `version` and `min_compatible` are cleared: each field is hashed as its own
/// `Hash` writes it, in order, and the left-out fields are the same for every value once blanked. Every
/// struct is destructured whole, so that a field added to the model is a compile error here until it
/// is hashed or left out on purpose.
struct Blanked<'m, T: ?Sized>(&'m T);

impl<T> Hash for Blanked<'_, [T]>
where
    for<'m> Blanked<'m, T>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for item in self.0 {
            Blanked(item).hash(state);
        }
    }
}

/// A borrowed value is hashed as the value itself.
impl<T: ?Sized> Hash for Blanked<'_, &T>
where
    for<'m> Blanked<'m, T>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        Blanked(*self.0).hash(state);
    }
}

/// A shared definition is hashed as the digest of the definition blanked, taken once per definition
/// ([`digest`]): equal blanked definitions, equal digests.
impl Hash for Blanked<'_, Arc<TypeDef>> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(digest::digest_of(self.0, DigestOf::Shape, |def| {
            digest::content_digest(&Blanked(def))
        }));
    }
}

/// A map of types, owned or borrowed: the paths hash alike either way (`String` hashes as `str`).
impl<K: Hash, V> Hash for Blanked<'_, BTreeMap<K, V>>
where
    for<'m> Blanked<'m, V>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for (path, def) in self.0 {
            path.hash(state);
            Blanked(def).hash(state);
        }
    }
}

impl Hash for Blanked<'_, ProtocolDecl> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let ProtocolDecl {
            name,
            rust_path,
            version: _,
            min_compatible: _,
            upgrade,
            format,
            location: _,
        } = self.0;
        (name, rust_path, upgrade, format).hash(state);
    }
}

impl Hash for Blanked<'_, MessageDecl> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let MessageDecl {
            protocol,
            name,
            rust_path,
            topic,
            kind,
            response,
            response_type,
            since,
            allow,
            location: _,
        } = self.0;
        (protocol, name, rust_path, topic, kind, response).hash(state);
        (response_type, since, allow).hash(state);
    }
}

impl Hash for Blanked<'_, TypeDef> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let TypeDef {
            path,
            generics,
            attrs,
            body,
            location: _,
            package,
        } = self.0;
        (path, generics, attrs).hash(state);
        match body {
            Body::Struct { style, fields } => {
                state.write_u8(0);
                style.hash(state);
                Blanked(fields.as_slice()).hash(state);
            }
            Body::Enum { variants } => {
                state.write_u8(1);
                Blanked(variants.as_slice()).hash(state);
            }
            Body::Alias { target } => {
                state.write_u8(2);
                target.hash(state);
            }
        }
        package.hash(state);
    }
}

impl Hash for Blanked<'_, Variant> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Variant {
            rust_name,
            ser_name,
            de_names,
            style,
            fields,
            skip_ser,
            skip_de,
            other,
            untagged,
            custom,
            since,
            allow,
            location: _,
        } = self.0;
        (rust_name, ser_name, de_names, style).hash(state);
        Blanked(fields.as_slice()).hash(state);
        (skip_ser, skip_de, other, untagged, custom, since, allow).hash(state);
    }
}

impl Hash for Blanked<'_, Field> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Field {
            rust_name,
            ser_name,
            de_names,
            ty,
            default,
            skip_ser,
            skip_de,
            flatten,
            custom,
            since,
            allow,
            location: _,
        } = self.0;
        (rust_name, ser_name, de_names, ty, default, skip_ser).hash(state);
        (skip_de, flatten, custom, since, allow).hash(state);
    }
}
