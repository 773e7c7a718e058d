//! Scalars in self-describing formats: integers (also as map keys and in positional formats), floats,
//! integers read as floats and back, strings read as chars.

use serde_json::{Value, json};

use super::codec::Codec;
use super::decode::range;
use super::issue::Issue;
use super::walk::Walk;
use super::witness::int_value;
use super::wording::type_names;
use crate::model::Ty;
use crate::rules::RuleId;

/// An integer type: signed, width in bits.
pub type IntType = (bool, u8);

fn int_name((signed, bits): IntType) -> String {
    format!("{}{bits}", if signed { 'i' } else { 'u' })
}

impl Walk<'_> {
    /// The writer's values of `writer_ty` do not decode as the reader's `reader_ty`, for the reason `why`.
    pub(super) fn type_changed(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        why: &str,
        witness: Option<Value>,
    ) -> Issue {
        let (writer_ty, reader_ty) = type_names(writer_ty, reader_ty);
        self.type_break(
            format!(
                "{} writes `{writer_ty}` and {} reads `{reader_ty}`: {why}",
                self.writer_name(),
                self.reader_name()
            ),
            witness,
        )
    }

    /// A value the reader's type fails on (`message` says why): `field_type_changed`, with the
    /// writer's `witness`.
    pub(super) fn type_break(&self, message: String, witness: Option<Value>) -> Issue {
        Issue::breaking(RuleId::FieldTypeChanged, message, witness)
    }

    /// Whether a change of integer type loses values (or, in a positional format, changes the encoding).
    pub(super) fn compare_integers(&self, writer: IntType, reader: IntType) -> Option<Issue> {
        let any = Some(json!(if writer.0 { -1 } else { 200 }));
        self.compare_written_integers(writer, range(writer.0, writer.1), reader, any)
    }

    /// [`Walk::compare_integers`] for a writer of `writer`'s type that writes only the values from
    /// `written.0` to `written.1` (a refined domain's extent); `any_written` is one of them, the witness
    /// of an encoding that differs.
    pub(super) fn compare_written_integers(
        &self,
        writer: IntType,
        (writer_min, writer_max): (i128, i128),
        reader: IntType,
        any_written: Option<Value>,
    ) -> Option<Issue> {
        let (reader_min, reader_max) = range(reader.0, reader.1);
        let fits = writer_min >= reader_min && writer_max <= reader_max;
        let as_bytes = self.integer_as_bytes_only(writer, reader);
        if fits && !as_bytes && self.same_integer_encoding(writer, reader) {
            return None;
        }
        let (old, new) = if self.writer_is_new() {
            (reader, writer)
        } else {
            (writer, reader)
        };
        let rule = if old.0 != new.0 {
            RuleId::IntegerSignChanged
        } else if new.1 > old.1 {
            RuleId::IntegerWidened
        } else {
            RuleId::IntegerNarrowed
        };
        let out_of_range = if writer_max > reader_max {
            Some(reader_max + 1)
        } else if writer_min < reader_min {
            Some(reader_min - 1)
        } else {
            None
        };
        let (witness, why) = match out_of_range {
            _ if as_bytes => (
                any_written,
                "rmp-serde writes a 128-bit integer as 16 bytes, which only a 128-bit reader reads"
                    .to_owned(),
            ),
            Some(value) => (
                int_value(value),
                format!("{value} is out of the reader's range"),
            ),
            None => (
                any_written,
                "the encoding differs in this positional format".to_owned(),
            ),
        };
        Some(Issue::breaking(
            rule,
            format!(
                "{} writes `{}` and {} reads `{}`: {why}",
                self.writer_name(),
                int_name(writer),
                self.reader_name(),
                int_name(reader)
            ),
            witness,
        ))
    }

    /// The writer's integers are written as bytes (MessagePack's 128-bit integers) and the reader reads
    /// integers of another width, which reject every one of them.
    fn integer_as_bytes_only(&self, writer: IntType, reader: IntType) -> bool {
        self.format.wide_integers_as_bytes() && writer.1 == 128 && reader.1 != 128
    }

    /// Self-describing formats write every integer alike; bincode writes each width as it is; postcard
    /// writes a varint for 16 bits and more.
    fn same_integer_encoding(&self, writer: IntType, reader: IntType) -> bool {
        !self.positional
            || writer == reader
            || (self.postcard && writer.0 == reader.0 && writer.1 >= 16 && reader.1 >= 16)
    }

    /// The rule of floats of `writer_bits` read as floats of `reader_bits`: `float_narrowed` where the
    /// old release writes the wider ones, else a type change.
    pub(super) fn float_width_rule(&self, writer_bits: u8, reader_bits: u8) -> RuleId {
        if writer_bits > reader_bits && !self.writer_is_new() {
            RuleId::FloatNarrowed
        } else {
            RuleId::FieldTypeChanged
        }
    }

    /// The rule of integers read as floats (`writer_writes_integers`) or floats read as integers,
    /// named by what the old release has: `integer_to_float` where it had the integers.
    pub(super) fn number_kind_rule(&self, writer_writes_integers: bool) -> RuleId {
        if writer_writes_integers != self.writer_is_new() {
            RuleId::IntegerToFloat
        } else {
            RuleId::FloatToInteger
        }
    }

    /// A float read as a narrower float rounds large values to infinity.
    pub(super) fn float_narrowed(&self, writer_bits: u8, reader_bits: u8) -> Option<Issue> {
        if writer_bits <= reader_bits {
            return None;
        }
        Some(Issue::breaking(
            self.float_width_rule(writer_bits, reader_bits),
            format!(
                "{} writes `f{writer_bits}` and {} reads `f{reader_bits}`, rounding values (1e300 becomes infinity)",
                self.writer_name(),
                self.reader_name()
            ),
            Some(json!(1e300)),
        ))
    }

    /// Integers read as a float lose precision above the float's mantissa; in CBOR a float reader takes
    /// no integer at all, and in MessagePack none of 128 bits (written as bytes).
    pub(super) fn integer_to_float(
        &self,
        writer_ty: &Ty,
        writer: IntType,
        float_bits: u8,
    ) -> Option<Issue> {
        let rejected = if !self.reading().float_reads_integers() {
            Some("ciborium's float reader takes only CBOR floats, no integer")
        } else if self.format.wide_integers_as_bytes() && writer.1 == 128 {
            Some("rmp-serde writes a 128-bit integer as 16 bytes, which a float reader rejects")
        } else {
            None
        };
        if let Some(why) = rejected {
            return Some(Issue::breaking(
                self.number_kind_rule(true),
                format!(
                    "{} writes integers (`{writer_ty}`) that {} reads as `f{float_bits}`: {why}",
                    self.writer_name(),
                    self.reader_name()
                ),
                Some(json!(if writer.0 { -1 } else { 1 })),
            ));
        }
        let mantissa: u32 = if float_bits <= 32 { 24 } else { 53 };
        let (min, max) = range(writer.0, writer.1);
        let limit = 1i128 << mantissa;
        if max <= limit && min >= -limit {
            return None;
        }
        Some(Issue::breaking(
            self.number_kind_rule(true),
            format!(
                "{} writes integers (`{writer_ty}`) that {} reads as `f{float_bits}`, inexactly above 2^{mantissa}",
                self.writer_name(),
                self.reader_name()
            ),
            int_value(limit + 1),
        ))
    }

    /// Floats read as integers are rejected.
    pub(super) fn float_to_integer(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        Issue::breaking(
            self.number_kind_rule(false),
            format!(
                "{} writes floats (`{writer_ty}`) and {} reads integers (`{reader_ty}`), which reject floating point numbers",
                self.writer_name(),
                self.reader_name()
            ),
            Some(json!(0.5)),
        )
    }

    /// Strings read as a char: only one-character strings decode.
    pub(super) fn string_to_char(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        self.type_changed(
            writer_ty,
            reader_ty,
            "a char reads one-character strings only",
            Some(json!("ab")),
        )
    }
}
