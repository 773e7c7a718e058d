//! What each self-describing format's codec does where the formats part ways, read from their
//! sources: serde_json 1, ciborium 0.2 (`ser/mod.rs`, `de/mod.rs`) for `cbor`, and rmp-serde 1
//! (`encode.rs`, `decode.rs`) for `msgpack` (`to_vec_named`) and `msgpack-compact` (`to_vec`). The
//! walk asks these questions instead of naming formats, so a verdict says which behaviour it rests on.

use crate::Format;

/// A format's codec, as the comparison sees it.
pub trait Codec: Copy {
    /// Map keys keep their own type on the wire (an integer key is an integer), and a reader's key type
    /// must read that value: CBOR and MessagePack. serde_json writes every key as a string and parses a
    /// number, `bool` or `char` key back from it.
    fn typed_keys(self) -> bool;

    /// A float reader takes an integer. serde_json and rmp-serde hand an integer to the visitor, whose
    /// `f32`/`f64` impls accept it; ciborium's `deserialize_f64` takes only a CBOR float ("expected
    /// float").
    fn float_reads_integers(self) -> bool;

    /// A struct reader takes an array, field by field (serde_json's and rmp-serde's `deserialize_struct`
    /// hand an array to the derive's `visit_seq`; ciborium's asks for a map).
    fn struct_reads_arrays(self) -> bool;

    /// Structs are written as arrays of their written fields, in declaration order (rmp-serde's `to_vec`):
    /// a reader reads them by position, missing trailing fields from their `default`, and rejects
    /// extra ones ("array length mismatch"). A struct with a flattened field is still a map.
    fn structs_as_arrays(self) -> bool;

    /// A string reader takes a byte string holding UTF-8 (rmp-serde hands `bin` to `visit_bytes`, which
    /// `String` accepts when it is UTF-8); ciborium's `deserialize_str` takes only text.
    fn text_reads_bytes(self) -> bool;

    /// A bytes reader (`serialize_bytes`' counterpart) takes a string: serde_json hands the string's
    /// bytes to the visitor, rmp-serde the string (which `serde_bytes` and `bytes` take); ciborium's
    /// `deserialize_bytes` takes only a byte string or an array.
    fn bytes_read_text(self) -> bool;

    /// A unit struct is written as an empty array, which `()` does not read (rmp-serde's
    /// `serialize_unit_struct`; its `deserialize_unit_struct` takes `nil` or `[]`).
    fn unit_struct_is_array(self) -> bool;

    /// 128-bit integers are written as 16 bytes, which only a 128-bit reader reads (rmp-serde's
    /// `serialize_i128`/`serialize_u128`); ciborium writes them as integers when they fit in 64 bits and
    /// as bignums otherwise, which every integer reader of the range reads.
    fn wide_integers_as_bytes(self) -> bool;

    /// An enum reader takes a bare unsigned integer as the index of a unit variant (rmp-serde's
    /// `deserialize_enum` hands a value that is no map or array to `UnitVariantAccess`, whose
    /// identifier is then read as it is: the derive's variant visitor takes an index). serde_json and
    /// ciborium ask for a string or a map, and so does serde's buffered `Content`.
    fn enum_reads_variant_index(self) -> bool;
}

impl Codec for Format {
    fn typed_keys(self) -> bool {
        matches!(
            self,
            Format::Cbor | Format::Msgpack | Format::MsgpackCompact
        )
    }

    fn float_reads_integers(self) -> bool {
        self != Format::Cbor
    }

    fn struct_reads_arrays(self) -> bool {
        self != Format::Cbor
    }

    fn structs_as_arrays(self) -> bool {
        self == Format::MsgpackCompact
    }

    fn text_reads_bytes(self) -> bool {
        is_msgpack(self)
    }

    fn bytes_read_text(self) -> bool {
        self != Format::Cbor
    }

    fn unit_struct_is_array(self) -> bool {
        is_msgpack(self)
    }

    fn wide_integers_as_bytes(self) -> bool {
        is_msgpack(self)
    }

    fn enum_reads_variant_index(self) -> bool {
        is_msgpack(self)
    }
}

/// How a reader meets the format's values: from the codec itself, or `buffered` by serde in its private
/// `Content` first (untagged and internally tagged enums, flattened fields), whose deserializer hands a
/// buffered value to any visitor that takes it, as serde_json does: an integer to a float reader, an
/// array to a struct reader, a string to a bytes reader, a byte string to a string reader. Map keys keep
/// their type there, and what the codec wrote stays what it wrote (a unit struct's `[]`, a 128-bit
/// integer's bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    pub format: Format,
    pub buffered: bool,
}

impl Reading {
    /// [`Codec::float_reads_integers`] as met.
    pub fn float_reads_integers(self) -> bool {
        self.buffered || self.format.float_reads_integers()
    }

    /// [`Codec::struct_reads_arrays`] as met.
    pub fn struct_reads_arrays(self) -> bool {
        self.buffered || self.format.struct_reads_arrays()
    }

    /// [`Codec::bytes_read_text`] as met.
    pub fn bytes_read_text(self) -> bool {
        self.buffered || self.format.bytes_read_text()
    }

    /// [`Codec::text_reads_bytes`] as met (only the binary formats write byte strings).
    pub fn text_reads_bytes(self) -> bool {
        self.format.text_reads_bytes() || (self.buffered && self.format.typed_keys())
    }
}

/// Both MessagePack forms.
fn is_msgpack(format: Format) -> bool {
    matches!(format, Format::Msgpack | Format::MsgpackCompact)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_its_readings() {
        let json = Format::Json;
        assert!(!json.typed_keys() && !json.structs_as_arrays() && !json.unit_struct_is_array());
        assert!(
            json.float_reads_integers() && json.struct_reads_arrays() && json.bytes_read_text()
        );
    }

    #[test]
    fn only_compact_messagepack_writes_structs_as_arrays() {
        let compact: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|f| f.structs_as_arrays())
            .collect();
        assert_eq!(compact, vec![Format::MsgpackCompact]);
    }
}
