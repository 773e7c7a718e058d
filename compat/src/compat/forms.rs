//! The forms that stand for what serde impls do beyond a derive, the same in both kinds of format:
//! refined values (a base type the reader parses and may reject), bytes (`serialize_bytes`), reader
//! choices (the first of several types that decodes) and types of other crates at two package versions.
//! Readable forms never get here: resolution already picked their shape for the format.

use super::codec::Codec;
use super::decode::{Decoder, range};
use super::issue::Issue;
use super::opaque::unread_impls_changed;
use super::shape::{RefinedDef, Role, Shape, bytes_as_seq, resolve};
use super::walk::Walk;
use super::witness::int_value;
use crate::model::Ty;
use crate::rules::RuleId;
use serde_json::Value;

impl Walk<'_> {
    /// A value the writer writes outside the values the reader accepts (`witness`):
    /// `value_domain_narrowed`.
    pub(super) fn domain_break(&self, message: String, witness: Option<Value>) -> Issue {
        Issue::breaking(RuleId::ValueDomainNarrowed, message, witness)
    }

    /// Compares a pair of wire shapes when one of them is a refined value, bytes, a reader choice, or
    /// the same type of another crate on both sides; `None` for every other pair (and for the pairs the
    /// caller decides first: readers of anything, unresolved types, options).
    pub(super) fn compare_forms(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Vec<Issue>> {
        use Shape as S;
        match (writer, reader) {
            (_, S::Value) | (S::Unresolved(_), _) | (_, S::Unresolved(_)) => None,
            (S::External(a, old, old_source), S::External(b, new, new_source)) if a == b => {
                Some(self.external_sources(
                    a,
                    (old.as_deref(), old_source.as_deref()),
                    (new.as_deref(), new_source.as_deref()),
                ))
            }
            (S::External(..), _) | (_, S::External(..)) => None,
            // An option reader reads the writer's value as its content: the caller unwraps it, so that a
            // refined writer meets the reader's own form inside (its base alone would lose the domain).
            (S::Option(_), S::Refined(_) | S::Bytes | S::Choice(_)) | (_, S::Option(_)) => None,
            // A self-describing format writes a `char` as a one-character string (JSON, CBOR's text,
            // MessagePack's str), whatever `is_human_readable` says: a string of the `char` domain
            // (`DisplayFromStr` over a `char`) is a `char` there, both ways.
            (S::Refined(one), S::Char) | (S::Char, S::Refined(one))
                if !self.positional && one.printed_scalar() == Some(Ty::Char) =>
            {
                Some(Vec::new())
            }
            (S::Refined(w), S::Refined(r)) => Some(self.refined_to_refined(w, r)),
            // Before a refined writer's base: one of the reads may hold the writer's domain.
            (_, S::Choice(reads)) => Some(self.compare_choice(writer_ty, reader_ty, writer, reads)),
            (S::Refined(w), _) => Some(self.refined_base(w, reader_ty)),
            (_, S::Refined(r)) => Some(self.plain_to_refined(writer_ty, r)),
            (S::Str, S::Bytes) if !self.positional && self.reading().bytes_read_text() => {
                Some(Vec::new())
            }
            (S::Bytes, S::Str) if !self.positional && self.reading().text_reads_bytes() => {
                Some(vec![self.type_changed(
                    writer_ty,
                    reader_ty,
                    "a string reader takes a byte string only when it holds UTF-8",
                    Some(serde_json::json!([255])),
                )])
            }
            (S::Bytes, S::Str) if !self.positional && self.format.typed_keys() => {
                Some(vec![self.type_changed(
                    writer_ty,
                    reader_ty,
                    "ciborium's string reader takes only text, no byte string",
                    self.sample(writer_ty, false),
                )])
            }
            (S::Bytes, _) => Some(self.compare(&bytes_as_seq(), reader_ty)),
            (_, S::Bytes) => Some(self.compare(writer_ty, &bytes_as_seq())),
            _ => None,
        }
    }

    /// The same opaque type on both sides, each with its package version and the digest of its impls'
    /// source where it was read: the same source is the same wire, whatever the versions say; a changed
    /// source is a change the checker cannot read. Where either side's source is unknown (not on disk),
    /// nothing is decided: a version number alone is no evidence of a change.
    fn external_sources(
        &self,
        path: &str,
        (writer_version, writer_source): (Option<&str>, Option<&str>),
        (reader_version, reader_source): (Option<&str>, Option<&str>),
    ) -> Vec<Issue> {
        let (Some(writer_source), Some(reader_source)) = (writer_source, reader_source) else {
            return Vec::new();
        };
        if writer_source == reader_source {
            return Vec::new();
        }
        let versions = match (writer_version, reader_version) {
            (Some(writer), Some(reader)) if writer != reader => {
                format!(" (`{reader}` and `{writer}`)")
            }
            _ => String::new(),
        };
        vec![unread_impls_changed(format!(
            "the source of the hand-written serde impls of `{path}` (or of what they call) differs \
             between the releases{versions}: the checker cannot read what they write and accept now"
        ))]
    }

    /// Two refined values: the bases as a refined writer's are; the reader's domain must hold the
    /// writer's.
    fn refined_to_refined(&mut self, writer: &RefinedDef, reader: &RefinedDef) -> Vec<Issue> {
        let mut out = self.refined_base(writer, &reader.base);
        if writer.read_by(reader) {
            return out;
        }
        let relation = if reader.within.contains(&writer.domain) {
            format!("`{}` is a part of `{}`", reader.domain, writer.domain)
        } else {
            format!(
                "wirecheck knows of no `{}` value that is not a `{}` value, nor that every one is",
                writer.domain, reader.domain
            )
        };
        let witness = self
            .part_witness(writer, reader)
            .or_else(|| self.printed_witness(writer, reader))
            .or_else(|| {
                writer
                    .sample_value()
                    .filter(|sample| Some(sample) != reader.sample_value().as_ref())
            });
        out.push(self.domain_break(
            format!(
                "{} writes a `{}` value and {} accepts only `{}` values ({relation})",
                self.writer_name(),
                writer.domain,
                self.reader_name(),
                reader.domain
            ),
            witness,
        ));
        out
    }

    /// When the reader's domain is a part of the writer's: the reader's `outside` value, which the
    /// catalogue picks in the whole (an IPv6 network for an IPv4 reader), unless it is no value of the
    /// writer's base or one the writer's own domain leaves out (its `outside`).
    fn part_witness(&self, writer: &RefinedDef, reader: &RefinedDef) -> Option<Value> {
        if !reader.within.contains(&writer.domain) {
            return None;
        }
        let outside = reader.outside_value()?;
        let in_whole = writer.outside_value().as_ref() != Some(&outside)
            && Decoder::new(self.writer)
                .decode(&writer.base, &outside)
                .is_ok();
        in_whole.then_some(outside)
    }

    /// Two texts of integers (`DisplayFromStr` over `u16` read as over `u8`): the text of the writer's
    /// integer the reader's rejects.
    fn printed_witness(&self, writer: &RefinedDef, reader: &RefinedDef) -> Option<Value> {
        let (Some(Ty::Int { signed, bits }), Some(Ty::Int { signed: s, bits: b })) =
            (writer.printed_scalar(), reader.printed_scalar())
        else {
            return None;
        };
        let issue = self.compare_integers((signed, bits), (s, b))?;
        let number = issue.witness?;
        Some(Value::String(number.to_string()))
    }

    /// A plain value read as a refined one: every value of the writer's type reaches the reader's
    /// parser, which rejects those outside its domain (none when the writer's integers all lie in the
    /// domain's extent).
    fn plain_to_refined(&mut self, writer_ty: &Ty, reader: &RefinedDef) -> Vec<Issue> {
        let mut out = self.compare(writer_ty, &reader.base);
        if out.iter().any(|issue| issue.breaks) || self.integers_within(writer_ty, reader) {
            return out;
        }
        let witness = reader
            .outside_value()
            .filter(|outside| Decoder::new(self.writer).decode(writer_ty, outside).is_ok());
        out.push(self.domain_break(
            format!(
                "{} writes any `{writer_ty}` and {} accepts only `{}` values",
                self.writer_name(),
                self.reader_name(),
                reader.domain
            ),
            witness,
        ));
        out
    }

    /// A refined writer's base read as `reader_ty`. The writer writes only values of its domain: an
    /// integer base with a known extent is compared by that extent, and every break found keeps a
    /// witness only if the writer writes it ([`Walk::written_witness`]).
    fn refined_base(&mut self, writer: &RefinedDef, reader_ty: &Ty) -> Vec<Issue> {
        let found = match self.extent_to_integer(writer, reader_ty) {
            Some(found) => found.into_iter().collect(),
            None => self.compare(&writer.base, reader_ty),
        };
        found
            .into_iter()
            // The reader's own fallible conversion was judged where its definition met the writer's
            // (the caller's level): against the base alone it would be said again, or said where
            // the writer's definition converts alike.
            .filter(|issue| !is_reader_conversion(issue))
            .map(|issue| self.written_witness(writer, reader_ty, issue))
            .collect()
    }

    /// An integer base with a known extent read as an integer: the extent against the reader's range
    /// (`None` when the pair is not of that kind, `Some(None)` when every written value reads).
    fn extent_to_integer(&self, writer: &RefinedDef, reader_ty: &Ty) -> Option<Option<Issue>> {
        let extent = writer.extent?;
        let Shape::Int { signed, bits } = resolve(self.writer, &writer.base, Role::Writer).shape
        else {
            return None;
        };
        let Shape::Int {
            signed: reader_signed,
            bits: reader_bits,
        } = resolve(self.reader, reader_ty, Role::Reader).shape
        else {
            return None;
        };
        // The base's own range bounds what is written too (an `i64` of nanoseconds stops in 2262).
        let (min, max) = range(signed, bits);
        let extent = (extent.0.max(min), extent.1.min(max));
        let written = writer
            .sample_value()
            .filter(|sample| writer.writes(sample))
            .or_else(|| int_value(extent.0))
            .or_else(|| int_value(extent.1));
        Some(self.compare_written_integers(
            (signed, bits),
            extent,
            (reader_signed, reader_bits),
            written,
        ))
    }

    /// A break found for a refined writer's base, with a witness the writer writes: the base's own if
    /// the domain holds it; else the domain's sample, if the reader rejects it (in a positional format
    /// the change of type is one of encoding, which the sample shows too); else none, and the finding
    /// says why.
    fn written_witness(&self, writer: &RefinedDef, reader_ty: &Ty, mut issue: Issue) -> Issue {
        match &issue.witness {
            Some(witness) if issue.breaks && !writer.writes(witness) => {}
            _ => return issue,
        }
        let sample = writer.sample_value().filter(|sample| {
            self.positional || Decoder::new(self.reader).decode(reader_ty, sample).is_err()
        });
        if sample.is_none() {
            issue.detail.push_str(&format!(
                " (no witness: the writer writes only `{}` values, and wirecheck knows none that the \
                 reader rejects)",
                writer.domain
            ));
        }
        issue.witness = sample;
        issue
    }

    /// Whether every integer `writer_ty` writes is in the `reader`'s domain: in its extent, and none of
    /// them its `outside` value (false when either is not known).
    fn integers_within(&self, writer_ty: &Ty, reader: &RefinedDef) -> bool {
        let Some((least, most)) = reader.extent else {
            return false;
        };
        let Shape::Int { signed, bits } = resolve(self.writer, writer_ty, Role::Writer).shape
        else {
            return false;
        };
        let (min, max) = range(signed, bits);
        let outside = reader
            .outside_value()
            .and_then(|v| v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)));
        least <= min && max <= most && outside.is_none_or(|o| o < min || max < o)
    }

    /// A reader that tries `reads` in order: the writer is fine if one of them takes everything it
    /// writes; otherwise the writer's samples decide, as for an untagged enum. A read that takes the
    /// writer's values but not all of their domain (a refined value inside) names values the writer
    /// writes and that read rejects: those are tried first (a `String` read as a `Decimal`, which also
    /// takes numbers: `"twelve"`). A refined writer whose domain such a read holds only in part breaks as
    /// it would against that read (its samples are of its own domain, which the decoder cannot tell
    /// from another's).
    fn compare_choice(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reads: &[Ty],
    ) -> Vec<Issue> {
        // A value of one kind (a number, a string) is read only by the reads of its kind: when one
        // read alone is, the choice is that read.
        if let Some(found) = self.compare_by_kind(writer_ty, reader_ty, writer, reads) {
            return found;
        }
        let mut narrowed = None;
        let mut rejected = Vec::new();
        for read in reads {
            let found = self.compare(writer_ty, read);
            if !found.iter().any(|issue| issue.breaks) {
                return found;
            }
            let domain_only = found
                .iter()
                .filter(|issue| issue.breaks)
                .all(|issue| issue.rule == RuleId::ValueDomainNarrowed);
            if domain_only {
                rejected.extend(found.iter().filter_map(|issue| issue.witness.clone()));
                narrowed.get_or_insert(found);
            }
        }
        match (writer, narrowed) {
            (Shape::Refined(_), Some(found)) => found,
            (Shape::Refined(_), None) => self.compare_by_samples(writer_ty, reader_ty, writer),
            _ => self.compare_by_candidates(writer_ty, reader_ty, writer, rejected),
        }
    }
}

impl Walk<'_> {
    /// A reader of several types (a choice, an untagged union of newtypes; `reader_ty` as a whole), by
    /// the kind of value the writer writes (a number, a string, an array, an object): the reads of
    /// another kind reject every value the writer writes. One read of its kind: the comparison with it.
    /// Several: the first break of one of them whose witness the whole reader rejects too. `None` when
    /// the kinds do not decide (a struct or an enum reads several kinds) or no witness is rejected by
    /// every read.
    pub(super) fn compare_by_kind(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reads: &[Ty],
    ) -> Option<Vec<Issue>> {
        let kind = json_kind(writer)?;
        let kinds: Vec<Option<&str>> = reads
            .iter()
            .map(|read| json_kind(&resolve(self.reader, read, Role::Reader).shape))
            .collect();
        if !kinds.iter().all(Option::is_some) {
            return None;
        }
        let of_kind: Vec<&Ty> = reads
            .iter()
            .zip(&kinds)
            .filter(|(_, read_kind)| **read_kind == Some(kind))
            .map(|(read, _)| read)
            .collect();
        if let [read] = of_kind.as_slice() {
            return Some(self.compare(writer_ty, read));
        }
        let mut found = Vec::new();
        for read in of_kind {
            let issues = self.compare(writer_ty, read);
            if !issues.iter().any(|issue| issue.breaks) {
                return Some(issues);
            }
            found.extend(issues.into_iter().filter(|issue| issue.breaks));
        }
        let mut decoder = Decoder::new(self.reader);
        found.into_iter().find_map(|issue| {
            let witness = issue.witness.as_ref()?;
            decoder
                .decode(reader_ty, witness)
                .is_err()
                .then(|| vec![issue])
        })
    }
}

/// The kind of value a shape is written as and read from, for the shapes of one kind only (a struct
/// is read from an object or an array, an enum from several: none).
fn json_kind(shape: &Shape) -> Option<&'static str> {
    match shape {
        Shape::Bool => Some("bool"),
        Shape::Int { .. } | Shape::Float { .. } => Some("number"),
        Shape::Str | Shape::Char => Some("string"),
        Shape::Seq(..) | Shape::Array(..) | Shape::Tuple(..) => Some("array"),
        Shape::Map(..) => Some("object"),
        _ => None,
    }
}

/// An issue of the reader's fallible conversion at the top of a comparison (see
/// `definitions::fallible_conversion_added`): custom code at no field or variant.
fn is_reader_conversion(issue: &Issue) -> bool {
    issue.rule == RuleId::CustomSerdeChanged && issue.path.is_empty()
}
