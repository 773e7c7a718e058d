//! The payloads of two variants paired by tag, in self-describing formats: by style (unit, newtype,
//! tuple, struct), and for internally tagged enums as the object the tag is merged into.

use serde_json::Value;

use super::decode::Decoder;
use super::issue::{Issue, Place, embedded, placed};
use super::namespace::{FlatMap, FlatObject, flatten};
use super::sample::{wrap_variant, writable};
use super::shape::{EnumDef, Role, Shape, SideRef, resolve};
use super::walk::Walk;
use super::wording::style_text;
use crate::model::{ContainerAttrs, EnumRepr, Style, Ty, Variant};

/// The key namespace of a variant's payload, where it is an object: a struct variant, or a newtype
/// variant holding a struct, a map or a unit.
fn variant_namespace(
    side: SideRef<'_>,
    role: Role,
    variant: &Variant,
    deny_unknown_fields: bool,
) -> Option<FlatObject> {
    let attrs = ContainerAttrs {
        deny_unknown_fields,
        ..ContainerAttrs::default()
    };
    match variant.style {
        Style::Unit => Some(FlatObject::default()),
        Style::Named => Some(flatten(side, role, &variant.fields, &attrs)),
        Style::Tuple if variant.fields.len() == 1 => {
            match resolve(side, &variant.fields[0].ty, role).shape {
                Shape::Struct(o) => Some(flatten(side, role, &o.fields, &o.attrs)),
                Shape::Map(key, value) => Some(FlatObject {
                    map: Some(FlatMap {
                        key,
                        value,
                        path: Vec::new(),
                    }),
                    ..FlatObject::default()
                }),
                Shape::Unit => Some(FlatObject::default()),
                _ => None,
            }
        }
        Style::Tuple => None,
    }
}

/// Whether both variants are newtype variants.
fn both_newtype(writer: &Variant, reader: &Variant) -> bool {
    writer.style == Style::Tuple
        && reader.style == Style::Tuple
        && writer.fields.len() == 1
        && reader.fields.len() == 1
}

/// The tuple type of a tuple variant's fields, as `role` sees them.
fn fields_tuple(variant: &Variant, role: Role) -> Ty {
    Ty::Tuple {
        elems: variant
            .fields
            .iter()
            .filter(|f| role.sees(f))
            .map(|f| f.ty.clone())
            .collect(),
    }
}

impl Walk<'_> {
    /// Compares the payload of the writer's variant with the reader's variant of the same tag.
    pub(super) fn compare_variants(
        &mut self,
        writer_enum: &EnumDef,
        reader_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Vec<Issue> {
        if let Some(found) =
            self.variants_decided_apart(writer_enum, writer_variant, reader_variant)
        {
            return found;
        }
        let repr = writer_enum.attrs.repr.clone();
        let in_variant = |payload: Value| {
            wrap_variant(
                &repr,
                writer_variant,
                if writer_variant.style == Style::Unit {
                    None
                } else {
                    Some(payload)
                },
            )
        };
        if matches!(repr, EnumRepr::Internal { .. })
            && !both_newtype(writer_variant, reader_variant)
            && let Some(found) = self.compare_payload_objects(
                writer_enum,
                reader_enum,
                writer_variant,
                reader_variant,
            )
        {
            return embedded(found, in_variant);
        }
        let found = match (writer_variant.style, reader_variant.style) {
            (Style::Unit, Style::Unit) => Vec::new(),
            (Style::Tuple, Style::Tuple) if both_newtype(writer_variant, reader_variant) => {
                self.compare(&writer_variant.fields[0].ty, &reader_variant.fields[0].ty)
            }
            (Style::Tuple, Style::Tuple)
                if writer_variant.fields.len() != 1 && reader_variant.fields.len() != 1 =>
            {
                self.compare(
                    &fields_tuple(writer_variant, Role::Writer),
                    &fields_tuple(reader_variant, Role::Reader),
                )
            }
            // Struct variants are objects in every representation (their namespace always exists).
            (Style::Named, Style::Named) => self
                .compare_payload_objects(writer_enum, reader_enum, writer_variant, reader_variant)
                .unwrap_or_default(),
            _ => {
                return self.payload_style_changed(
                    writer_enum,
                    reader_enum,
                    writer_variant,
                    reader_variant,
                );
            }
        };
        let found = match &repr {
            // The payload sits under the content key, next to the tag.
            EnumRepr::Adjacent { content, .. } => placed(found, &Place::on_wire(content.clone())),
            _ => found,
        };
        embedded(found, in_variant)
    }

    /// What two paired variants are decided by before their payloads: custom functions (opaque), a
    /// variant serde cannot write (no payload), or `msgpack-compact`'s reading by position.
    fn variants_decided_apart(
        &mut self,
        writer_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Option<Vec<Issue>> {
        if writer_variant.custom.is_some() || reader_variant.custom.is_some() {
            return Some(
                self.custom_variant_changed(
                    &writer_variant.ser_name,
                    writer_variant.custom.as_ref(),
                    reader_variant.custom.as_ref(),
                )
                .into_iter()
                .collect(),
            );
        }
        if !writable(self.writer, &writer_enum.attrs.repr, writer_variant) {
            // serde fails to write this variant: there is no payload to compare.
            return Some(Vec::new());
        }
        self.compare_compact_variants(writer_enum, writer_variant, reader_variant)
    }

    /// Compares two payloads as objects (key namespaces), where both are objects (`None` when one is
    /// not). Internally tagged enums merge the tag into the payload object, so any such payloads are
    /// compared this way.
    fn compare_payload_objects(
        &mut self,
        writer_enum: &EnumDef,
        reader_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Option<Vec<Issue>> {
        let writer_deny = writer_enum.attrs.deny_unknown_fields;
        let reader_deny = reader_enum.attrs.deny_unknown_fields;
        let writer_flat =
            variant_namespace(self.writer, Role::Writer, writer_variant, writer_deny)?;
        let writer_as_read =
            variant_namespace(self.writer, Role::Reader, writer_variant, writer_deny)?;
        let reader_flat =
            variant_namespace(self.reader, Role::Reader, reader_variant, reader_deny)?;
        let reader_as_written =
            variant_namespace(self.reader, Role::Writer, reader_variant, reader_deny)?;
        Some(self.compare_objects(
            &writer_flat,
            &writer_as_read,
            &reader_flat,
            &reader_as_written,
        ))
    }

    /// The variant changed the style of its payload: the first sample the reader rejects.
    fn payload_style_changed(
        &mut self,
        writer_enum: &EnumDef,
        reader_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Vec<Issue> {
        let mut decoder = Decoder::new(self.reader);
        // Said from the old release to the new one, whichever writes.
        let (old, new) = if self.writer_is_new() {
            (reader_variant, writer_variant)
        } else {
            (writer_variant, reader_variant)
        };
        for sample in self.variant_samples(writer_enum, writer_variant) {
            if let Err(reason) = decoder.decode_enum(reader_enum, &sample) {
                return vec![self.type_break(
                    format!(
                        "the variant `{}` changed its payload ({} to {}): {} fails on what {} writes: {reason}",
                        writer_variant.ser_name,
                        style_text(old),
                        style_text(new),
                        self.reader_name(),
                        self.writer_name()
                    ),
                    Some(sample),
                )];
            }
        }
        Vec::new()
    }
}
