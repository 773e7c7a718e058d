//! Structs in `msgpack-compact` (rmp-serde's `to_vec`): written as arrays of their fields, read by
//! position. Field names are not on the wire, so a rename is nothing and an order change a misread; a
//! reader rejects extra trailing fields ("array length mismatch") and reads missing ones from their
//! `default`. Enum variants, map keys and the rest are self-describing as in `msgpack`. A struct with a
//! flattened field is a map in this form too, compared by name.

use super::codec::Codec;
use super::issue::{Issue, embedded};
use super::positional::{Item, ItemLists, field_item};
use super::sample::wrap_variant;
use super::shape::{EnumDef, Role, Shape};
use super::walk::Walk;
use crate::model::{EnumRepr, Style, Ty, Variant};

/// The fields of a struct shape read by position in `msgpack-compact`, as `role` sees them: `None`
/// for any other shape and for a struct with a flattened field.
fn compact_fields(shape: &Shape, role: Role) -> Option<Vec<Item>> {
    match shape {
        Shape::Struct(s) if !s.fields.iter().any(|f| f.flatten) => Some(
            s.fields
                .iter()
                .filter(|f| role.sees(f))
                .map(|f| written_item(f, role))
                .collect(),
        ),
        _ => None,
    }
}

/// A field as an item, for the writer as written in its place (see `objects::written_ty`).
fn written_item(field: &crate::model::Field, role: Role) -> Item {
    let mut item = field_item(field);
    if role == Role::Writer {
        item.ty = super::objects::written_ty(field);
    }
    item
}

impl Walk<'_> {
    /// Two structs (neither with a flattened field) in `msgpack-compact`: their fields by position;
    /// `None` in other formats or for other shapes.
    pub(super) fn compare_compact_structs(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Vec<Issue>> {
        if !self.format.structs_as_arrays() {
            return None;
        }
        let writer_items = compact_fields(writer, Role::Writer)?;
        let reader_items = compact_fields(reader, Role::Reader)?;
        let lists = self.type_item_lists(
            (writer_ty, writer, &writer_items),
            (reader_ty, reader, &reader_items),
        );
        Some(self.compare_items(&lists))
    }

    /// Two struct variants (neither with a flattened field) in `msgpack-compact`: their fields by
    /// position, the witness wrapped in the writer's variant; `None` in other formats.
    pub(super) fn compare_compact_variants(
        &mut self,
        writer_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Option<Vec<Issue>> {
        // Internally tagged, the tag is the array's first element and a unit variant reads the rest
        // as no items at all.
        let internal = matches!(writer_enum.attrs.repr, EnumRepr::Internal { .. });
        let positional = |v: &Variant| {
            (v.style == Style::Named && !v.fields.iter().any(|f| f.flatten))
                || (internal && v.style == Style::Unit)
        };
        if !self.format.structs_as_arrays()
            || !positional(writer_variant)
            || !positional(reader_variant)
        {
            return None;
        }
        let items = |v: &Variant, role: Role| -> Vec<Item> {
            v.fields
                .iter()
                .filter(|f| role.sees(f))
                .map(field_item)
                .collect()
        };
        let (writer_items, reader_items) = (
            items(writer_variant, Role::Writer),
            items(reader_variant, Role::Reader),
        );
        let lists = ItemLists::of_variants(
            self.writer,
            (&writer_items, writer_variant),
            (&reader_items, reader_variant),
        );
        let found = self.compare_items(&lists);
        let repr = writer_enum.attrs.repr.clone();
        Some(embedded(found, |c| {
            wrap_variant(&repr, writer_variant, Some(c))
        }))
    }
}
