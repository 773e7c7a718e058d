//! Verdicts on what the checker cannot see into: unresolved types, types of other crates, custom
//! (de)serialization functions. Each is a break without a witness: reported once for both directions,
//! except custom functions, reported in each direction the changed function affects.

use super::issue::Issue;
use super::namespace::FlatField;
use super::walk::Walk;
use super::wording::{custom_text, type_names};
use crate::model::{Custom, Ty};
use crate::rules::RuleId;

/// Code the checker cannot read changed (a hand-written impl, a with function), in the direction of
/// the walk that found it: `serde_impl_changed`, without a witness.
pub(super) fn unread_code_changed(message: String) -> Issue {
    Issue::breaking(RuleId::SerdeImplChanged, message, None)
}

/// The source of hand-written impls differs between the releases, for both directions at once:
/// `serde_impl_changed`.
pub(super) fn unread_impls_changed(message: String) -> Issue {
    Issue::opaque(RuleId::SerdeImplChanged, message)
}

/// A reader's custom code (functions, a fallible conversion) that may reject what the writer writes,
/// in the direction of the walk that found it: `custom_serde_changed`, without a witness.
pub(super) fn custom_code_may_reject(message: String) -> Issue {
    Issue::breaking(RuleId::CustomSerdeChanged, message, None)
}

/// A type the checker cannot see into changed, for both directions at once: `external_type_changed`.
pub(super) fn opaque_type_changed(message: String) -> Issue {
    Issue::opaque(RuleId::ExternalTypeChanged, message)
}

impl Walk<'_> {
    /// A type neither side's snapshot defines (`name` is the one missing).
    pub(super) fn unresolved_type(&self, name: &str, writer: &Ty, reader: &Ty) -> Issue {
        Issue::opaque(
            RuleId::UnresolvedType,
            format!(
                "the checker could not resolve `{name}` (writer `{writer}`, reader `{reader}`)"
            ),
        )
    }

    /// A type of another crate on one side that is not the same type on the other.
    pub(super) fn external_type_changed(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        let (writer, reader) = type_names(writer_ty, reader_ty);
        let functions = |ty: &Ty| match ty {
            Ty::Named { path, .. } | Ty::External { path, .. } => path.starts_with('<'),
            _ => false,
        };
        if writer == reader && functions(writer_ty) && functions(reader_ty) {
            // A field's functions (`<f for T>`, see `lower/hand_written/with_fns`) on both sides,
            // read as a shape on one and not read on the other, where what they name differs
            // between the releases: one change of unread code, in this walk's direction.
            return unread_code_changed(format!(
                "`{reader}` is code the checker cannot read on one side, and what it names \
                 differs between the releases: whether {} accepts what {} writes is unknown",
                self.reader_name(),
                self.writer_name()
            ));
        }
        Issue::opaque(
            RuleId::ExternalTypeChanged,
            format!(
                "{} writes `{writer}` and {} reads `{reader}`: types from other crates, and types whose serde impls are not derived, are compared by path; declare such a type's wire shape with `#[wire(as = T)]` at the type, or as `\"full::Path\" = \"T\"` under `[shapes]` in wirecheck.toml, to compare it like any other",
                self.writer_name(),
                self.reader_name()
            ),
        )
    }

    /// A field with custom functions on either side: they changed, or the type behind them did.
    pub(super) fn custom_field_changed(
        &mut self,
        writer: &FlatField,
        reader: &FlatField,
    ) -> Option<Issue> {
        let key = writer.key();
        if writer.field.custom != reader.field.custom {
            if !self.custom_affects_walk(writer.field.custom.as_ref(), reader.field.custom.as_ref())
            {
                return None;
            }
            return Some(Issue::breaking(
                RuleId::CustomSerdeChanged,
                format!(
                    "`{key}` has [{}] in {} and [{}] in {}: custom functions are opaque",
                    custom_text(&writer.field),
                    self.writer_name(),
                    custom_text(&reader.field),
                    self.reader_name()
                ),
                None,
            ));
        }
        if self.wire_eq.ty(&writer.field.ty, &reader.field.ty) {
            return None;
        }
        // Which of the functions handles the type differently is unknown: both directions.
        Some(Issue::breaking(
            RuleId::CustomSerdeChanged,
            format!(
                "`{key}` changed type (`{}` to `{}`) behind custom functions [{}]",
                writer.field.ty,
                reader.field.ty,
                custom_text(&reader.field)
            ),
            None,
        ))
    }

    /// A variant (named `name`) whose custom functions changed from the writer's `writer` to the
    /// reader's `reader`, when the change matters in this walk's direction.
    pub(super) fn custom_variant_changed(
        &self,
        name: &str,
        writer: Option<&Custom>,
        reader: Option<&Custom>,
    ) -> Option<Issue> {
        self.custom_affects_walk(writer, reader).then(|| {
            Issue::breaking(
                RuleId::CustomSerdeChanged,
                format!("the variant `{name}` changed its custom (de)serialization functions"),
                None,
            )
        })
    }

    /// Whether custom functions that differ between the writer's release (`writer`) and the reader's
    /// (`reader`) matter in this walk: a changed serializer affects what the new release writes (old
    /// reads new); a changed deserializer, what the new release reads (new reads old).
    fn custom_affects_walk(&self, writer: Option<&Custom>, reader: Option<&Custom>) -> bool {
        let ser = |c: Option<&Custom>| c.and_then(|c| c.ser.clone());
        let de = |c: Option<&Custom>| c.and_then(|c| c.de.clone());
        let ser_changed = ser(writer) != ser(reader);
        let de_changed = de(writer) != de(reader);
        if self.writer_is_new() {
            ser_changed
        } else {
            de_changed
        }
    }
}
