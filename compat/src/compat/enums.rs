//! Enums in self-describing formats: a changed representation, and for tagged enums (external,
//! internal, adjacent) the pairing of variants by tag: renamed, unknown and reader-only variants.
//! Variant payloads are compared in `variants`; untagged enums and variants are decided in `untagged`.

use serde_json::Value;

use super::codec::Codec;
use super::decode::Decoder;
use super::issue::{Issue, Place, placed, wire_variant};
use super::sample::{Sampler, writable};
use super::shape::{EnumDef, Role, same_variant};
use super::walk::Walk;
use super::wording::{quoted_alternatives, repr_text, variant_text};
use crate::model::{EnumRepr, Style, Ty, Variant};
use crate::rules::RuleId;

/// Whether a reader's `#[serde(other)]` variant takes the writer's variant, whose tag it does not know,
/// by representation; `structs_as_arrays`: the format writes structs as arrays (`msgpack-compact`).
fn other_takes(repr: &EnumRepr, writer: &Variant, structs_as_arrays: bool) -> bool {
    match repr {
        // In a map, the payload's other keys are ignored; in an array (the tag its first element) the
        // unit variant's reader rejects any element after the tag.
        EnumRepr::Internal { .. } => !structs_as_arrays || writes_nothing_after_tag(writer),
        // A payload next to the tag is an error; a bare tag is taken.
        EnumRepr::External | EnumRepr::Adjacent { .. } => writer.style == Style::Unit,
        // No tag to read.
        EnumRepr::Untagged => false,
        // serde_repr: every integer of the `repr` type.
        EnumRepr::Integer { .. } => true,
    }
}

/// Whether an internally tagged variant is written as its tag alone: a unit variant, or a struct
/// variant whose every field is skipped when written.
fn writes_nothing_after_tag(variant: &Variant) -> bool {
    match variant.style {
        Style::Unit => true,
        Style::Named => !variant.fields.iter().any(|f| Role::Writer.sees(f)),
        Style::Tuple => false,
    }
}

/// How the writer's variants and the reader's pair up by tag (indices into their `variants`).
struct VariantPairing {
    same_tag: Vec<(usize, usize)>,
    /// Writer's tagged variants whose tag the reader does not read.
    unknown: Vec<usize>,
    /// Reader's variants paired, or never read by tag (skipped, untagged).
    reader_taken: Vec<bool>,
}

fn pair_variants(writer: &EnumDef, reader: &EnumDef) -> VariantPairing {
    let mut taken: Vec<bool> = reader
        .variants
        .iter()
        .map(|v| v.skip_de || v.untagged)
        .collect();
    let mut same_tag = Vec::new();
    let mut unknown = Vec::new();
    for (i, variant) in writer.variants.iter().enumerate() {
        if variant.skip_ser || variant.untagged {
            continue;
        }
        match reader
            .variants
            .iter()
            .enumerate()
            .position(|(j, x)| !taken[j] && x.de_names.contains(&variant.ser_name))
        {
            Some(j) => {
                taken[j] = true;
                same_tag.push((i, j));
            }
            None => unknown.push(i),
        }
    }
    VariantPairing {
        same_tag,
        unknown,
        reader_taken: taken,
    }
}

impl Walk<'_> {
    /// Two enums.
    pub(super) fn compare_enums(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Vec<Issue> {
        if let Some(found) = self.compare_integer_enums(writer, reader) {
            return found;
        }
        if writer.attrs.repr != reader.attrs.repr {
            return self
                .representation_changed(writer_ty, reader_ty, writer, reader)
                .into_iter()
                .collect();
        }
        if reader.attrs.repr == EnumRepr::Untagged {
            return self.buffered(|walk| walk.compare_untagged_enums(writer, reader));
        }
        if matches!(reader.attrs.repr, EnumRepr::Internal { .. }) {
            return self.buffered(|walk| walk.compare_tagged_enums(writer, reader));
        }
        self.compare_tagged_enums(writer, reader)
    }

    /// Whether a reader's `#[serde(other)]` variant, in `repr`, takes `writer`'s variant in this walk's
    /// format (see [`other_takes`]).
    fn other_takes(&self, repr: &EnumRepr, writer: &Variant) -> bool {
        other_takes(repr, writer, self.format.structs_as_arrays())
    }

    /// Where the issues of a variant (the writer's, the reader's, or both) of an enum represented as
    /// `repr` sit: under the new release's variant, with both variants' allows.
    pub(super) fn variant_place(
        &self,
        repr: &EnumRepr,
        writer: Option<&Variant>,
        reader: Option<&Variant>,
    ) -> Place {
        let named = self.new_side_first(writer, reader);
        Place {
            path: named.map(|v| vec![v.rust_name.clone()]).unwrap_or_default(),
            wire_path: named
                .map(|v| vec![wire_variant(repr, v)])
                .unwrap_or_default(),
            allows: writer
                .iter()
                .chain(reader.iter())
                .flat_map(|v| v.allow.iter().cloned())
                .collect(),
            location: self.location(writer.map(|v| &v.location), reader.map(|v| &v.location)),
        }
    }

    /// The samples of one variant: minimal and full, without repeats.
    pub(super) fn variant_samples(&self, en: &EnumDef, variant: &Variant) -> Vec<Value> {
        let mut sampler = Sampler::new(self.writer);
        let mut out: Vec<Value> = Vec::new();
        for full in [false, true] {
            if let Some(x) = sampler.variant(en, variant, full)
                && !out.contains(&x)
            {
                out.push(x);
            }
        }
        out
    }

    /// The representation changed: a break if some writer's variant sample is rejected or decodes as
    /// another variant, a visible change otherwise. Between two enums of different paths (a value
    /// of one read by an untagged enum around it) there is no representation that changed: only a
    /// rejected sample is an issue.
    fn representation_changed(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Option<Issue> {
        let (writer_repr, reader_repr) =
            (repr_text(&writer.attrs.repr), repr_text(&reader.attrs.repr));
        let misread = self.misread_sample(writer_ty, reader_ty, writer, reader);
        if misread.is_none() && !same_enum(writer_ty, reader_ty) {
            return None;
        }
        Some(match misread {
            Some((sample, reason)) => self.repr_break(
                format!(
                    "{} writes `{writer_ty}` {writer_repr} and {} reads it {reader_repr}: {reason}",
                    self.writer_name(),
                    self.reader_name(),
                ),
                Some(sample),
            ),
            None => Issue::change(
                RuleId::EnumReprChanged,
                format!("`{writer_ty}` is written {writer_repr} and read {reader_repr}"),
            ),
        })
    }

    /// The first sample of the writer's variants that the reader rejects or decodes as another variant,
    /// and why.
    ///
    /// A variant is misread only where both are the same enum (by its path): a value of one enum
    /// read by another (the content of an untagged variant read by the untagged enum around it)
    /// has no variant of its own there to be confused with.
    fn misread_sample(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Option<(Value, String)> {
        let same_enum = same_enum(writer_ty, reader_ty);
        let mut decoder = Decoder::new(self.reader);
        let mut own = Decoder::new(self.writer);
        for variant in writer.variants.iter().filter(|v| !v.skip_ser) {
            for sample in self.variant_samples(writer, variant) {
                let bad = match decoder.decode(reader_ty, &sample) {
                    Err(reason) => Some(reason),
                    Ok(()) => match (
                        decoder.decode_enum(reader, &sample),
                        own.decode_enum(writer, &sample),
                    ) {
                        (Ok(i), Ok(k))
                            if same_enum
                                && !same_variant(&reader.variants[i], &writer.variants[k]) =>
                        {
                            Some(format!("it decodes as `{}`", reader.variants[i].rust_name))
                        }
                        _ => None,
                    },
                };
                if let Some(reason) = bad {
                    return Some((sample, reason));
                }
            }
        }
        None
    }

    /// Two tagged enums of the same representation.
    pub(super) fn compare_tagged_enums(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Vec<Issue> {
        let mut pairing = pair_variants(writer, reader);
        let mut out = Vec::new();
        for &i in &pairing.unknown {
            let variant = &writer.variants[i];
            out.extend(self.unknown_tag(writer, reader, variant, &mut pairing.reader_taken));
        }
        for (variant, _) in reader
            .variants
            .iter()
            .zip(&pairing.reader_taken)
            .filter(|(v, taken)| !**taken && !v.other)
        {
            let detail = format!(
                "the variant `{}` is read by {} and never written by {}",
                variant_text(&reader.attrs.repr, variant),
                self.reader_name(),
                self.writer_name()
            );
            out.extend(self.reader_only_variant(&reader.attrs.repr, variant, detail));
        }
        for &(i, j) in &pairing.same_tag {
            let (writer_variant, reader_variant) = (&writer.variants[i], &reader.variants[j]);
            let mut found = self.compare_variants(writer, reader, writer_variant, reader_variant);
            found.extend(self.tag_switched_to_alias(
                &writer.attrs.repr,
                writer_variant,
                reader_variant,
            ));
            self.note_misreads(&mut found, reader, writer_variant);
            let place = self.variant_place(
                &writer.attrs.repr,
                Some(writer_variant),
                Some(reader_variant),
            );
            out.extend(placed(found, &place));
        }
        // Untagged variants of a tagged enum: decided on samples.
        for writer_variant in writer.variants.iter().filter(|v| v.untagged && !v.skip_ser) {
            let found = self.buffered(|walk| walk.untagged_variant(writer, reader, writer_variant));
            let reader_variant = reader
                .variants
                .iter()
                .find(|x| same_variant(writer_variant, x));
            out.extend(placed(
                found,
                &self.variant_place(&writer.attrs.repr, Some(writer_variant), reader_variant),
            ));
        }
        out
    }

    /// A writer's variant whose tag the reader does not read: renamed (same Rust name), taken by the
    /// reader's `#[serde(other)]` or untagged variants, or rejected.
    fn unknown_tag(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
        variant: &Variant,
        reader_taken: &mut [bool],
    ) -> Vec<Issue> {
        let witness = self.variant_samples(writer, variant).into_iter().next();
        let other = reader.variants.iter().find(|v| v.other && !v.skip_de);
        let renamed = reader
            .variants
            .iter()
            .enumerate()
            .position(|(j, x)| !reader_taken[j] && x.rust_name == variant.rust_name);
        let (issue, reader_variant) = if let Some(j) = renamed {
            reader_taken[j] = true;
            let reader_variant = &reader.variants[j];
            let issue = if !writable(self.writer, &writer.attrs.repr, variant) {
                self.never_written(variant)
            } else if reader_variant.other && self.other_takes(&reader.attrs.repr, variant) {
                self.renamed_into_other(variant, reader_variant)
            } else {
                self.variant_renamed(variant, reader_variant, witness)
            };
            (issue, Some(reader_variant))
        } else if !writable(self.writer, &writer.attrs.repr, variant) {
            (self.never_written(variant), None)
        } else if other.is_some() && self.other_takes(&reader.attrs.repr, variant) {
            (self.taken_by_other(&reader.attrs.repr, variant), None)
        } else if let Some(caught) = self.caught_by_untagged(writer, reader, variant) {
            (self.unknown_tag_tried_untagged(variant, caught), None)
        } else {
            (
                self.unknown_tag_rejected(variant, &reader.attrs.repr, other.is_some(), witness),
                None,
            )
        };
        placed(
            vec![issue],
            &self.variant_place(&writer.attrs.repr, Some(variant), reader_variant),
        )
    }

    /// The writer writes the variant under a tag the reader takes only as an alias (its own release
    /// writes another): every reader decodes it, but the wire changed.
    fn tag_switched_to_alias(
        &self,
        repr: &EnumRepr,
        writer: &Variant,
        reader: &Variant,
    ) -> Option<Issue> {
        if writer.ser_name == reader.ser_name
            || reader.skip_ser
            || matches!(repr, EnumRepr::Untagged | EnumRepr::Integer { .. })
        {
            return None;
        }
        Some(Issue::change(
            RuleId::VariantRenamed,
            format!(
                "{} writes the variant `{}` as `{}`, which {} reads as well as `{}`",
                self.writer_name(),
                writer.rust_name,
                writer.ser_name,
                self.reader_name(),
                reader.ser_name
            ),
        ))
    }

    fn variant_renamed(&self, writer: &Variant, reader: &Variant, witness: Option<Value>) -> Issue {
        Issue::breaking(
            RuleId::VariantRenamed,
            format!(
                "{} writes the variant `{}` as `{}` and {} reads {}",
                self.writer_name(),
                writer.rust_name,
                writer.ser_name,
                self.reader_name(),
                quoted_alternatives(&reader.de_names)
            ),
            witness,
        )
    }

    /// A variant the reader does not know that serde cannot write (an internally tagged newtype
    /// variant holding no struct or map): no payload of it reaches the reader.
    /// The rule of a variant the writer has and the reader lacks, named by the change from the old
    /// release to the new: `variant_removed` where the old one writes it; where the new one does,
    /// `variant_added` when the reader still takes it (`taken`: a catch-all, another untagged
    /// variant), else `variant_added_without_other`.
    pub(super) fn variant_only_written_rule(&self, taken: bool) -> RuleId {
        match (self.writer_is_new(), taken) {
            (true, true) => RuleId::VariantAdded,
            (true, false) => RuleId::VariantAddedWithoutOther,
            (false, _) => RuleId::VariantRemoved,
        }
    }

    /// An enum the reader reads in another representation fails on the writer's `witness`:
    /// `enum_repr_changed`.
    pub(super) fn repr_break(&self, message: String, witness: Option<Value>) -> Issue {
        Issue::breaking(RuleId::EnumReprChanged, message, witness)
    }

    fn never_written(&self, writer: &Variant) -> Issue {
        Issue::change(
            self.variant_only_written_rule(true),
            format!(
                "the variant `{}` of {} is unknown to {}, but serde cannot write it (an internally tagged newtype variant holds only a struct or a map)",
                writer.rust_name,
                self.writer_name(),
                self.reader_name()
            ),
        )
    }

    /// The reader's `#[serde(other)]` variant renamed: it reads every tag it does not know, the
    /// writer's new name among them, as itself, the variant the writer wrote.
    fn renamed_into_other(&self, writer: &Variant, reader: &Variant) -> Issue {
        Issue::change(
            RuleId::VariantRenamed,
            format!(
                "{} writes the variant `{}` as `{}`; {} reads it as its `#[serde(other)]` variant `{}`, the same one",
                self.writer_name(),
                writer.rust_name,
                writer.ser_name,
                self.reader_name(),
                reader.rust_name
            ),
        )
    }

    fn taken_by_other(&self, repr: &EnumRepr, writer: &Variant) -> Issue {
        Issue::change(
            self.variant_only_written_rule(true),
            format!(
                "the variant `{}` is written by {}; {} reads it as its `#[serde(other)]` variant",
                variant_text(repr, writer),
                self.writer_name(),
                self.reader_name()
            ),
        )
    }

    /// A writer's variant the reader rejects, with what would let readers take it in the reader's
    /// representation (said once: a reader that already has a `#[serde(other)]` variant is not told to
    /// add one).
    fn unknown_tag_rejected(
        &self,
        writer: &Variant,
        repr: &EnumRepr,
        has_other: bool,
        witness: Option<Value>,
    ) -> Issue {
        let rule = self.variant_only_written_rule(false);
        let catch_all_would_take = self.other_takes(repr, writer);
        let added = rule == RuleId::VariantAddedWithoutOther;
        let must_know = ": readers must know this variant one release before writers send it";
        let by_position = format!(
            ", whose `#[serde(other)]` variant takes only variants written as their tag alone in {} \
             (the tag is the first element of an array, and the unit variant rejects the elements after it)",
            self.format
        );
        let (why, advice) = match (has_other, catch_all_would_take) {
            (true, _) if matches!(repr, EnumRepr::Internal { .. }) => {
                (by_position.as_str(), if added { must_know } else { "" })
            }
            (true, _) => (
                ", whose `#[serde(other)]` variant takes only unit variants in this representation",
                if added { must_know } else { "" },
            ),
            (false, true) => (
                ", which has no `#[serde(other)]` variant",
                if added {
                    "; one in readers, one release ahead, would take it"
                } else {
                    ""
                },
            ),
            (false, false) if added && repr != &EnumRepr::Untagged => (
                "; a `#[serde(other)]` variant would not take it (it takes only unit variants unless \
                 the enum is internally tagged)",
                must_know,
            ),
            (false, false) => ("", ""),
        };
        Issue::breaking(
            rule,
            format!(
                "{} writes the variant `{}`, unknown to {}{why}{advice}",
                self.writer_name(),
                variant_text(repr, writer),
                self.reader_name(),
            ),
            witness,
        )
    }

    /// A payload that the reader's matching variant rejects may still fit one of its untagged variants:
    /// then it is misread rather than rejected, and the finding says so.
    pub(super) fn note_misreads(&self, found: &mut [Issue], reader: &EnumDef, writer: &Variant) {
        if reader.attrs.repr != EnumRepr::Untagged && !reader.variants.iter().any(|v| v.untagged) {
            return;
        }
        let mut decoder = Decoder::new(self.reader);
        for issue in found.iter_mut() {
            if let Some(witness) = &issue.witness
                && let Ok(k) = decoder.decode_enum(reader, witness)
                && let Some(read_as) = reader.variants.get(k)
                && !same_variant(read_as, writer)
            {
                issue.detail.push_str(&format!(
                    " (the payload is then misread as `{}`)",
                    read_as.rust_name
                ));
            }
        }
    }

    /// A variant only the reader has (of an enum represented as `repr`): a visible change (added or removed, by side), never a break.
    pub(super) fn reader_only_variant(
        &self,
        repr: &EnumRepr,
        reader: &Variant,
        detail: String,
    ) -> Vec<Issue> {
        let issue = Issue::change(
            self.pick_rule(RuleId::VariantRemoved, RuleId::VariantAdded),
            detail,
        );
        let place = Place {
            path: vec![reader.rust_name.clone()],
            wire_path: vec![wire_variant(repr, reader)],
            allows: reader.allow.iter().cloned().collect(),
            location: self.location(None, Some(&reader.location)),
        };
        placed(vec![issue], &place)
    }
}

/// Whether two types are the same enum, by its path.
fn same_enum(writer_ty: &Ty, reader_ty: &Ty) -> bool {
    matches!(
        (writer_ty, reader_ty),
        (Ty::Named { path: a, .. }, Ty::Named { path: b, .. }) if a == b
    )
}
