//! Enums written as integers (serde_repr's `Serialize_repr`/`Deserialize_repr`, [`EnumRepr::Integer`]):
//! a variant is its discriminant, an integer of the enum's `repr` type, in every format. Variants pair
//! by discriminant (their wire names are the discriminants in decimal), so the tagged comparison of
//! `enums` decides them once the integers themselves get through.

use super::decode::range;
use super::issue::Issue;
use super::shape::EnumDef;
use super::walk::Walk;
use super::witness::int_value;
use super::wording::repr_text;
use crate::model::Ty;
use crate::model::{EnumRepr, Variant};

/// The integer type of an enum written as integers.
fn repr_int(en: &EnumDef) -> Option<(bool, u8)> {
    match en.attrs.repr {
        EnumRepr::Integer { signed, bits } => Some((signed, bits)),
        _ => None,
    }
}

/// A variant's discriminant (its wire name), when it is an integer.
fn discriminant(variant: &Variant) -> Option<i128> {
    variant.ser_name.parse().ok()
}

impl Walk<'_> {
    /// Two enums both written as integers: the integers must get through (a discriminant out of the
    /// reader's range, or another encoding in a positional format, is a break), then variants pair by
    /// discriminant. `None` when either enum is not written as integers.
    pub(super) fn compare_integer_enums(
        &mut self,
        writer: &EnumDef,
        reader: &EnumDef,
    ) -> Option<Vec<Issue>> {
        let writer_int = repr_int(writer)?;
        let reader_int = repr_int(reader)?;
        if let Some(issue) = self.integer_repr_changed(writer, reader, writer_int, reader_int) {
            return Some(vec![issue]);
        }
        Some(self.compare_tagged_enums(writer, reader))
    }

    /// The `repr` integer changed: a break when a discriminant the writer writes is out of the reader's
    /// range, or (in a positional format) is encoded otherwise; no issue when every discriminant gets
    /// through as the same number (the variants are then compared one by one).
    fn integer_repr_changed(
        &self,
        writer: &EnumDef,
        reader: &EnumDef,
        writer_int: (bool, u8),
        reader_int: (bool, u8),
    ) -> Option<Issue> {
        if writer_int == reader_int {
            return None;
        }
        let written: Vec<i128> = writer.variants.iter().filter_map(discriminant).collect();
        let (lo, hi) = range(reader_int.0, reader_int.1);
        let (witness, why) = if let Some(&out) = written.iter().find(|&&d| d < lo || d > hi) {
            (out, format!("{out} is out of the reader's range"))
        } else if self.positional && !self.same_bytes(writer_int, reader_int, &written) {
            let first = written.first().copied().unwrap_or_default();
            let differs = written
                .iter()
                .copied()
                .find(|&d| !(0..128).contains(&d))
                .unwrap_or(first);
            (
                differs,
                "the integer is encoded otherwise in this positional format".to_owned(),
            )
        } else {
            return None;
        };
        Some(self.repr_break(
            format!(
                "{} writes `{}` {} and {} reads it {}: {why}",
                self.writer_name(),
                writer.attrs.ser_name,
                repr_text(&writer.attrs.repr),
                self.reader_name(),
                repr_text(&reader.attrs.repr),
            ),
            int_value(witness),
        ))
    }

    /// An integer written where an enum of integers is read (an integer newtype become a serde_repr
    /// enum, or the reverse read): the reader takes only its discriminants (any integer of its
    /// `repr` with a `#[serde(other)]` variant), the writer writes any integer of its type. A break
    /// with the least integer the writer writes that the reader rejects, if there is one.
    pub(super) fn integer_to_integer_enum(
        &self,
        (writer_ty, reader_ty): (&Ty, &Ty),
        writer_int: (bool, u8),
        reader: &EnumDef,
    ) -> Vec<Issue> {
        let Some(reader_int) = repr_int(reader) else {
            return Vec::new();
        };
        let read: Vec<i128> = reader
            .variants
            .iter()
            .filter(|v| !v.skip_de)
            .filter_map(discriminant)
            .collect();
        let other = reader.variants.iter().any(|v| v.other && !v.skip_de);
        let (writer_lo, writer_hi) = range(writer_int.0, writer_int.1);
        let (reader_lo, reader_hi) = range(reader_int.0, reader_int.1);
        let accepted =
            |v: i128| (reader_lo..=reader_hi).contains(&v) && (other || read.contains(&v));
        // The least non-negative integer rejected, else the greatest negative one.
        let rejected = (0..=writer_hi.min(i128::from(u16::MAX)))
            .chain((writer_lo..0).rev().take(1 << 16))
            .chain([writer_hi, writer_lo])
            .find(|&v| (writer_lo..=writer_hi).contains(&v) && !accepted(v));
        let Some(value) = rejected else {
            return Vec::new();
        };
        vec![self.domain_break(
            format!(
                "{} writes any `{writer_ty}` and {} reads `{reader_ty}` {}, one of its \
                 discriminants only: {value} is none of them",
                self.writer_name(),
                self.reader_name(),
                repr_text(&reader.attrs.repr),
            ),
            int_value(value),
        )]
    }

    /// Whether every discriminant in `written` takes the same bytes as the writer's integer and as the
    /// reader's: bincode writes each width as it is; postcard writes 8-bit integers as a byte and wider
    /// ones as a varint (zigzag when signed), which agree on unsigned values below 128.
    fn same_bytes(&self, writer_int: (bool, u8), reader_int: (bool, u8), written: &[i128]) -> bool {
        if !self.postcard {
            return false;
        }
        let varint_alike = |(a_signed, a_bits): (bool, u8), (b_signed, b_bits): (bool, u8)| {
            a_signed == b_signed && a_bits >= 16 && b_bits >= 16
        };
        varint_alike(writer_int, reader_int)
            || (!writer_int.0 && !reader_int.0 && written.iter().all(|d| (0..128).contains(d)))
    }
}
