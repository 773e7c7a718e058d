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
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer_enum: &EnumDef,
        reader_enum: &EnumDef,
    ) -> Vec<Issue> {
        // Written as integers (serde_repr): the integer's encoding, then variants by discriminant.
        if let Some(found) = self.compare_integer_enums(writer_enum, reader_enum) {
            return found;
        }
        if writer_enum.attrs.repr != reader_enum.attrs.repr {
            return vec![self.repr_break(
                format!(
                    "{} writes `{writer_ty}` {} and {} reads `{reader_ty}` {}",
                    self.writer_name(),
                    repr_text(&writer_enum.attrs.repr),
                    self.reader_name(),
                    repr_text(&reader_enum.attrs.repr)
                ),
                self.sample(writer_ty, false),
            )];
        }
        let mut out = Vec::new();
        for (index, variant) in writer_enum.variants.iter().enumerate() {
            if !variant.skip_ser {
                out.extend(self.positional_variant(writer_enum, reader_enum, index, variant));
            }
        }
        for variant in reader_enum.variants.iter().skip(writer_enum.variants.len()) {
            let detail = format!(
                "the variant `{}` is read by {} and never written by {}",
                variant.rust_name,
                self.reader_name(),
                self.writer_name()
            );
            out.extend(self.reader_only_variant(&reader_enum.attrs.repr, variant, detail));
            if !self.writer_is_new() {
                out.extend(self.added_variant_undecodable(reader_enum, variant));
            }
        }
        out
    }

    /// A variant the new release adds (read by it, never written by the old one) whose payload it
    /// cannot read back itself (see [`Walk::added_undecodable`]), placed at the variant, with the new
    /// release's own value of the variant as witness.
    fn added_variant_undecodable(&self, new_enum: &EnumDef, variant: &Variant) -> Vec<Issue> {
        variant
            .fields
            .iter()
            .filter(|f| !f.skip_de)
            .filter_map(|field| {
                let added = format!("the variant `{}`", variant.rust_name);
                self.added_undecodable(&added, &field.ty, Some(field))
            })
            .take(1)
            .map(|mut issue| {
                issue.witness = Sampler::new(self.reader).variant(new_enum, variant, false);
                let location = issue
                    .location
                    .clone()
                    .or_else(|| Some((variant.location.clone(), crate::findings::Side::New)));
                issue.at(vec![variant.rust_name.clone()], location)
            })
            .collect()
    }

    /// The writer's variant at `index` against the reader's variant at the same index.
    fn positional_variant(
        &mut self,
        writer_enum: &EnumDef,
        reader_enum: &EnumDef,
        index: usize,
        writer_variant: &Variant,
    ) -> Vec<Issue> {
        let witness = self
            .variant_samples(writer_enum, writer_variant)
            .into_iter()
            .next();
        let reader_variant = reader_enum.variants.get(index);
        // Where the writer's variant sits in the reader, and where the reader's variant at this index
        // sits in the writer: either elsewhere means an index now carries another variant.
        let reader_index = reader_enum
            .variants
            .iter()
            .position(|x| same_variant(writer_variant, x));
        let moved = reader_index.is_some_and(|j| j != index);
        let displaced = reader_variant.and_then(|r| {
            writer_enum
                .variants
                .iter()
                .position(|x| same_variant(r, x))
                .filter(|&j| j != index)
        });
        let found = match reader_variant {
            None => vec![self.index_not_read(writer_variant, index, reader_index, witness)],
            Some(reader_variant) if moved || displaced.is_some() || reader_variant.skip_de => {
                vec![Issue::breaking(
                    RuleId::PositionalVariantReordered,
                    format!(
                        "{} writes the variant `{}` as index {index}, which {} reads as `{}`{}",
                        self.writer_name(),
                        writer_variant.rust_name,
                        self.reader_name(),
                        reader_variant.rust_name,
                        match displaced {
                            Some(j) if !moved => format!(
                                ": `{}` moved to index {j}, and `{}` took its index",
                                reader_variant.rust_name, writer_variant.rust_name
                            ),
                            _ => String::new(),
                        }
                    ),
                    witness,
                )]
            }
            Some(reader_variant) if writer_variant.custom != reader_variant.custom => self
                .custom_variant_changed(
                    &writer_variant.rust_name,
                    writer_variant.custom.as_ref(),
                    reader_variant.custom.as_ref(),
                )
                .into_iter()
                .collect(),
            Some(reader_variant) => {
                self.compare_positional_payloads(writer_enum, writer_variant, reader_variant)
            }
        };
        placed(
            found,
            &self.index_place(writer_variant, reader_variant, moved),
        )
    }

    /// The writer's variant at `index`, an index the reader does not have: moved to `reader_index` in the
    /// reader, or not read at all.
    fn index_not_read(
        &self,
        writer_variant: &Variant,
        index: usize,
        reader_index: Option<usize>,
        witness: Option<serde_json::Value>,
    ) -> Issue {
        let said = format!(
            "{} writes the variant `{}` as index {index}, which {} does not have",
            self.writer_name(),
            writer_variant.rust_name,
            self.reader_name(),
        );
        match reader_index {
            Some(moved_to) => Issue::breaking(
                RuleId::PositionalVariantReordered,
                format!(
                    "{said}: it reads `{}` as index {moved_to}",
                    writer_variant.rust_name
                ),
                witness,
            ),
            None => Issue::breaking(self.variant_only_written_rule(false), said, witness),
        }
    }

    /// Where a finding on the variants at one index is placed: a variant that moved is named by itself;
    /// otherwise by the new side's variant at the index.
    fn index_place(
        &self,
        writer_variant: &Variant,
        reader_variant: Option<&Variant>,
        moved: bool,
    ) -> Place {
        let named = if self.writer_is_new() || moved {
            Some(writer_variant).or(reader_variant)
        } else {
            reader_variant.or(Some(writer_variant))
        };
        Place {
            path: named.map(|v| vec![v.rust_name.clone()]).unwrap_or_default(),
            // Positional formats name nothing on the wire.
            wire_path: Vec::new(),
            allows: [Some(writer_variant), reader_variant]
                .iter()
                .flatten()
                .flat_map(|v| v.allow.iter().cloned())
                .collect(),
            location: self.location(
                Some(&writer_variant.location),
                reader_variant.map(|v| &v.location),
            ),
        }
    }

    /// The payloads of two variants at the same index: a newtype's one type, or the fields as items.
    fn compare_positional_payloads(
        &mut self,
        writer_enum: &EnumDef,
        writer_variant: &Variant,
        reader_variant: &Variant,
    ) -> Vec<Issue> {
        let writer_items = variant_items(writer_variant, Role::Writer);
        let reader_items = variant_items(reader_variant, Role::Reader);
        let found = if writer_variant.style == crate::model::Style::Tuple
            && writer_items.len() == 1
            && reader_items.len() == 1
        {
            self.compare(&writer_items[0].ty, &reader_items[0].ty)
        } else {
            let lists = ItemLists::of_variants(
                self.writer,
                (&writer_items, writer_variant),
                (&reader_items, reader_variant),
            );
            self.compare_items(&lists)
        };
        let repr = writer_enum.attrs.repr.clone();
        embedded(found, |c: Value| {
            wrap_variant(&repr, writer_variant, Some(c))
        })
    }
}
