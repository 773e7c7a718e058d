//! Untagged enums, and untagged variants of tagged enums: serde tries them in order on the whole
//! payload, so they are decided by decoding the writer's samples with both releases' readers.

use serde_json::Value;

use super::decode::Decoder;
use super::issue::{Issue, placed};
use super::shape::{EnumDef, same_variant};
use super::walk::Walk;
use crate::model::{Style, Ty, Variant};
use crate::rules::RuleId;

/// What a tagged reader's untagged variants make of a tag it does not know: the variant that takes
/// every sample of the writer's variant, or a sample none takes and serde's reason.
pub(super) type CaughtByUntagged = Result<String, (Value, String)>;

/// How the reader decodes one sample of a writer's untagged variant.
enum SampleVerdict {
    /// Decoded as the same variant (or the writer's own release misreads it already): look further.
    Fine,
    /// Decided: these issues.
    Decided(Vec<Issue>),
}

impl Walk<'_> {
    /// Two untagged enums: each writer's variant by samples, then the variants only the reader has.
    pub(super) fn compare_untagged_enums(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        for writer_variant in writer.variants.iter().filter(|v| !v.skip_ser) {
            let reader_variant = reader
                .variants
                .iter()
                .find(|x| !x.skip_de && same_variant(writer_variant, x));
            let found = self.untagged_variant(writer, reader, writer_variant);
            out.extend(placed(
                found,
                &self.variant_place(&writer.attrs.repr, Some(writer_variant), reader_variant),
            ));
        }
        for reader_variant in reader.variants.iter().filter(|v| !v.skip_de) {
            if !writer
                .variants
                .iter()
                .any(|x| !x.skip_ser && same_variant(x, reader_variant))
            {
                let detail = format!(
                    "the untagged variant `{}` is read by {} only",
                    reader_variant.rust_name,
                    self.reader_name()
                );
                out.extend(self.reader_only_variant(&reader.attrs.repr, reader_variant, detail));
            }
        }
        out
    }

    /// For a tag unknown to a tagged reader that has untagged variants: `None` without untagged
    /// variants; otherwise what they make of the writer's variant.
    pub(super) fn caught_by_untagged(
        &self,
        writer: &EnumDef,
        reader: &EnumDef,
        variant: &Variant,
    ) -> Option<CaughtByUntagged> {
        if !reader.variants.iter().any(|v| v.untagged && !v.skip_de) {
            return None;
        }
        let mut decoder = Decoder::new(self.reader);
        let mut taken_by = None;
        for sample in self.variant_samples(writer, variant) {
            match decoder.decode_enum(reader, &sample) {
                Ok(i) => taken_by = reader.variants.get(i).map(|v| v.rust_name.clone()),
                Err(reason) => return Some(Err((sample, reason))),
            }
        }
        taken_by.map(Ok)
    }

    /// The issue for an unknown tag that the reader's untagged variants take, or do not.
    pub(super) fn unknown_tag_tried_untagged(
        &self,
        variant: &Variant,
        caught: CaughtByUntagged,
    ) -> Issue {
        match caught {
            Ok(taken_by) => Issue::change(
                self.variant_only_written_rule(true),
                format!(
                    "the variant `{}` is written by {}; {} reads it as its untagged variant `{taken_by}`",
                    variant.ser_name,
                    self.writer_name(),
                    self.reader_name()
                ),
            ),
            Err((sample, reason)) => Issue::breaking(
                self.variant_only_written_rule(false),
                format!(
                    "{} writes the variant `{}`, unknown to {}, whose untagged variants do not take it: {reason}",
                    self.writer_name(),
                    variant.ser_name,
                    self.reader_name()
                ),
                Some(sample),
            ),
        }
    }

    /// One untagged variant (of an untagged enum, or marked untagged in a tagged one): decided by
    /// decoding its samples with both releases' readers.
    pub(super) fn untagged_variant(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
        variant: &Variant,
    ) -> Vec<Issue> {
        let counterpart = reader
            .variants
            .iter()
            .position(|x| !x.skip_de && x.rust_name == variant.rust_name)
            .or_else(|| {
                reader
                    .variants
                    .iter()
                    .position(|x| !x.skip_de && x.ser_name == variant.ser_name)
            });
        for sample in self.variant_samples(writer, variant) {
            let Ok(own) = Decoder::new(self.writer).decode_enum(writer, &sample) else {
                continue;
            };
            let verdict = match Decoder::new(self.reader).decode_enum(reader, &sample) {
                Err(reason) => SampleVerdict::Decided(self.untagged_sample_rejected(
                    writer,
                    reader,
                    variant,
                    counterpart,
                    (sample, reason),
                )),
                Ok(read_as) => self.untagged_sample_read_as(
                    writer,
                    reader,
                    variant,
                    counterpart,
                    (own, read_as),
                    sample,
                ),
            };
            if let SampleVerdict::Decided(issues) = verdict {
                return issues;
            }
        }
        match counterpart {
            Some(j) => {
                let mut found = self.compare_variants(writer, reader, variant, &reader.variants[j]);
                self.note_misreads(&mut found, reader, variant);
                found
            }
            None => vec![Issue::change(
                self.variant_only_written_rule(true),
                format!(
                    "the untagged variant `{}` is written by {} only",
                    variant.rust_name,
                    self.writer_name()
                ),
            )],
        }
    }

    /// The reader rejects a sample of the writer's untagged variant: the payloads' difference if it has
    /// the variant, else the variant is unknown to it.
    fn untagged_sample_rejected(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
        variant: &Variant,
        counterpart: Option<usize>,
        (sample, reason): (Value, String),
    ) -> Vec<Issue> {
        let Some(j) = counterpart else {
            return vec![Issue::breaking(
                self.variant_only_written_rule(false),
                format!(
                    "{} writes the untagged variant `{}` and {} matches no variant: {reason}",
                    self.writer_name(),
                    variant.rust_name,
                    self.reader_name()
                ),
                Some(sample),
            )];
        };
        let found = self.compare_variants(writer, reader, variant, &reader.variants[j]);
        if found.iter().any(|i| i.breaks) {
            return found;
        }
        vec![self.type_break(
            format!(
                "{} rejects the variant `{}` as {} writes it: {reason}",
                self.reader_name(),
                variant.rust_name,
                self.writer_name()
            ),
            Some(sample),
        )]
    }

    /// Whether the reader's own release reads the writer's variant as `read_as` too, and writes it back
    /// unchanged: its counterpart writes this very payload (so the ambiguity is the reader's, whoever
    /// wrote it), and `read_as` holds any value as it came (`serde_json::Value`) or has the writer's
    /// payload. Nothing is lost or changed on the wire then; a `read_as` that writes the value in
    /// another form (an integer read as a float) is still a misread.
    fn misread_alike(
        &mut self,
        variant: &Variant,
        reader: &EnumDef,
        counterpart: Option<usize>,
        read_as: usize,
    ) -> bool {
        let read_as = &reader.variants[read_as];
        let holds_as_it_came = read_as.style == Style::Tuple
            && read_as.custom.is_none()
            && matches!(read_as.fields.as_slice(), [field] if field.ty == Ty::Value && field.custom.is_none());
        counterpart.is_some_and(|j| self.same_payload(variant, &reader.variants[j]))
            && (holds_as_it_came || self.same_payload(variant, read_as))
    }

    /// Whether the reader's variant writes what the writer's does: the same style and fields, each the
    /// same on the wire, none under a `with` function.
    fn same_payload(&mut self, writer: &Variant, reader: &Variant) -> bool {
        writer.style == reader.style
            && writer.custom.is_none()
            && reader.custom.is_none()
            && writer.fields.len() == reader.fields.len()
            && writer.fields.iter().zip(&reader.fields).all(|(w, r)| {
                w.ser_name == r.ser_name
                    && w.skip_ser == r.skip_ser
                    && w.flatten == r.flatten
                    && w.custom.is_none()
                    && r.custom.is_none()
                    && self.wire_eq.ty(&w.ty, &r.ty)
            })
    }

    /// The reader decodes a sample of the writer's untagged variant as variant `read_as` (the writer's
    /// own release as `own`): misread if that is another variant, because variants were reordered or
    /// another one now comes first. Where the writer's own release already reads the payload as another
    /// variant, or the reader's own release writes it too (and so reads it as `read_as` itself), the
    /// ambiguity is not this change's doing.
    fn untagged_sample_read_as(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
        variant: &Variant,
        counterpart: Option<usize>,
        (own, read_as): (usize, usize),
        sample: Value,
    ) -> SampleVerdict {
        if !same_variant(&writer.variants[own], variant) {
            return SampleVerdict::Fine;
        }
        let read_as_variant = &reader.variants[read_as];
        if same_variant(read_as_variant, variant)
            || self.misread_alike(variant, reader, counterpart, read_as)
        {
            return SampleVerdict::Fine;
        }
        let reordered = counterpart.is_some_and(|j| j > read_as)
            && writer
                .variants
                .iter()
                .position(|x| same_variant(x, read_as_variant))
                .is_some_and(|p| p > own);
        let rule = if reordered {
            RuleId::UntaggedVariantOrderChanged
        } else {
            RuleId::UntaggedMisread
        };
        SampleVerdict::Decided(vec![Issue::breaking(
            rule,
            format!(
                "{} writes `{}` and {} decodes it as `{}` (untagged variants are tried in order)",
                self.writer_name(),
                variant.rust_name,
                self.reader_name(),
                read_as_variant.rust_name
            ),
            Some(sample),
        )])
    }
}
