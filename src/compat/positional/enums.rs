//! Enums in positional formats: a variant is written as its index, so variants pair by position.

use serde_json::Value;

use super::super::issue::{Issue, Place, embedded, placed};
use super::super::sample::{Sampler, wrap_variant};
use super::super::shape::{EnumDef, Role, same_variant};
use super::super::walk::Walk;
use super::super::wording::repr_text;
use super::items::{Item, ItemLists, field_item};
use crate::model::{Ty, Variant};
use crate::rules::RuleId;

/// A variant's fields as items, as `role` sees them.
fn variant_items(variant: &Variant, role: Role) -> Vec<Item> {
    variant
        .fields
        .iter()
        .filter(|f| role.sees(f))
        .map(field_item)
        .collect()
}

impl Walk<'_> {
    /// Two enums: same representation, then variant by variant in index order.
    pub(super) fn compare_positional_enums(
        &mut self,
        w: &Ty,
        r: &Ty,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Vec<Issue> {
        if writer.attrs.repr != reader.attrs.repr {
            return vec![Issue::breaking(
                RuleId::EnumReprChanged,
                format!(
                    "{} writes `{w}` {} and {} reads `{r}` {}",
                    self.writer_name(),
                    repr_text(&writer.attrs.repr),
                    self.reader_name(),
                    repr_text(&reader.attrs.repr)
                ),
                self.sample(w, false),
            )];
        }
        let mut out = Vec::new();
        for (index, variant) in writer.variants.iter().enumerate() {
            if !variant.skip_ser {
                out.extend(self.positional_variant(writer, reader, index, variant));
            }
        }
        for variant in reader.variants.iter().skip(writer.variants.len()) {
            let detail = format!(
                "the variant `{}` is read by {} and never written by {}",
                variant.rust_name,
                self.reader_name(),
                self.writer_name()
            );
            out.extend(self.reader_only_variant(variant, detail));
        }
        out
    }

    /// The writer's variant at `index` against the reader's variant at the same index.
    fn positional_variant(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
        index: usize,
        a: &Variant,
    ) -> Vec<Issue> {
        let witness = self.variant_samples(writer, a).into_iter().next();
        let b = reader.variants.get(index);
        let moved = reader
            .variants
            .iter()
            .position(|x| same_variant(a, x))
            .is_some_and(|j| j != index);
        let found = match b {
            None => vec![Issue::breaking(
                self.pick_rule(RuleId::VariantAddedWithoutOther, RuleId::VariantRemoved),
                format!(
                    "{} writes the variant `{}` as index {index}, which {} does not have",
                    self.writer_name(),
                    a.rust_name,
                    self.reader_name()
                ),
                witness,
            )],
            Some(b) if moved || b.skip_de => vec![Issue::breaking(
                RuleId::PositionalVariantReordered,
                format!(
                    "{} writes the variant `{}` as index {index}, which {} reads as `{}`",
                    self.writer_name(),
                    a.rust_name,
                    self.reader_name(),
                    b.rust_name
                ),
                witness,
            )],
            Some(b) if a.custom != b.custom => vec![self.custom_variant_changed(&a.rust_name)],
            Some(b) => self.compare_positional_payloads(writer, a, b),
        };
        // A variant that moved is named by itself; otherwise by the new side's variant at the index.
        let named = if self.writer_is_new() || moved {
            Some(a).or(b)
        } else {
            b.or(Some(a))
        };
        let place = Place {
            path: named.map(|v| vec![v.rust_name.clone()]).unwrap_or_default(),
            allows: [Some(a), b]
                .iter()
                .flatten()
                .flat_map(|v| v.allow.iter().cloned())
                .collect(),
            location: self.location(Some(&a.location), b.map(|v| &v.location)),
        };
        placed(found, &place)
    }

    /// The payloads of two variants at the same index: a newtype's one type, or the fields as items.
    fn compare_positional_payloads(
        &mut self,
        writer: &EnumDef,
        a: &Variant,
        b: &Variant,
    ) -> Vec<Issue> {
        let writer_items = variant_items(a, Role::Writer);
        let reader_items = variant_items(b, Role::Reader);
        let found = if a.style == crate::model::Style::Tuple
            && writer_items.len() == 1
            && reader_items.len() == 1
        {
            self.compare(&writer_items[0].ty, &reader_items[0].ty)
        } else {
            let lists = ItemLists {
                writer: &writer_items,
                reader: &reader_items,
                base: Sampler::new(self.writer).payload(a, false).flatten(),
                writer_name: format!("the variant `{}`", a.rust_name),
                reader_name: format!("the variant `{}`", b.rust_name),
            };
            self.compare_items(&lists)
        };
        let repr = writer.attrs.repr.clone();
        embedded(found, |c: Value| wrap_variant(&repr, a, Some(c)))
    }
}
