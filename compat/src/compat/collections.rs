//! Collections in self-describing formats: sequences, sets, fixed-size arrays, tuples, maps and their
//! keys.

use serde_json::{Value, json};

use super::codec::Codec;
use super::decode::Decoder;
use super::issue::{
    Issue, Place, WIRE_ELEMENT, WIRE_MAP_KEY, WIRE_MAP_VALUE, embedded, placed, wire_index,
};
use super::sample::key_string;
use super::shape::{Role, Shape, resolve};
use super::walk::Walk;
use super::witness::{single_entry, with_element};
use crate::model::{SeqKind, Ty};
use crate::rules::RuleId;

/// Fixed-size arrays are compared element by element up to this length.
const MAX_FIXED_ELEMENTS: u64 = 64;

/// The elements of an array or tuple shape: name (index, or field name) and type.
fn fixed_elements(shape: &Shape) -> Vec<(String, Ty)> {
    match shape {
        Shape::Array(elem, len) => (0..(*len).min(MAX_FIXED_ELEMENTS))
            .map(|i| (i.to_string(), elem.clone()))
            .collect(),
        Shape::Tuple(elems, fields) => elems
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let name = fields
                    .get(i)
                    .map_or_else(|| i.to_string(), |f| f.rust_name.clone());
                (name, ty.clone())
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Walk<'_> {
    /// Two sequences: a list read as a set collapses repeats; the elements are compared.
    pub(super) fn compare_sequences(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        (writer_kind, writer_elem): (SeqKind, &Ty),
        (reader_kind, reader_elem): (SeqKind, &Ty),
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        if writer_kind == SeqKind::List && reader_kind == SeqKind::Set {
            out.push(self.seq_to_set(writer_ty, reader_ty, writer_elem));
        }
        let found = self.compare(writer_elem, reader_elem);
        let found = embedded(found, |c| Some(json!([c])));
        out.extend(placed(found, &Place::on_wire(WIRE_ELEMENT)));
        out
    }

    /// A sequence that may repeat elements read as a set, which collapses them.
    pub(super) fn seq_to_set(&self, writer_ty: &Ty, reader_ty: &Ty, elem: &Ty) -> Issue {
        let element = self.sample(elem, false);
        Issue::breaking(
            RuleId::SeqToSet,
            format!(
                "{} writes `{writer_ty}`, which may repeat elements, and {} reads `{reader_ty}`, which collapses them",
                self.writer_name(),
                self.reader_name()
            ),
            element.map(|x| json!([x.clone(), x])),
        )
    }

    /// A sequence of any length read as an array of `len`.
    pub(super) fn sequence_to_array(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        elem: &Ty,
        len: u64,
    ) -> Issue {
        let witness = if len > 0 {
            Some(json!([]))
        } else {
            self.sample(elem, false).map(|x| json!([x]))
        };
        self.type_changed(
            writer_ty,
            reader_ty,
            "a fixed-size array reads arrays of its length only",
            witness,
        )
    }

    /// A sequence of any length read as a tuple.
    pub(super) fn sequence_to_tuple(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        elem: &Ty,
        empty_tuple: bool,
    ) -> Issue {
        let witness = if empty_tuple {
            self.sample(elem, false).map(|x| json!([x]))
        } else {
            Some(json!([]))
        };
        self.type_changed(
            writer_ty,
            reader_ty,
            "a tuple reads arrays of its length only",
            witness,
        )
    }

    /// Two fixed-size arrays: lengths must agree (self-describing readers reject another length;
    /// positional ones, which read no length, read another number of elements); the elements are compared.
    pub(super) fn compare_arrays(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        (writer_elem, writer_len): (&Ty, u64),
        (reader_elem, reader_len): (&Ty, u64),
    ) -> Vec<Issue> {
        if writer_len != reader_len {
            let consequence = if self.positional {
                String::new()
            } else {
                format!(": arrays of {writer_len} elements are rejected")
            };
            return vec![Issue::breaking(
                RuleId::ArrayLengthChanged,
                format!(
                    "{} writes `{writer_ty}` and {} reads `{reader_ty}`{consequence}",
                    self.writer_name(),
                    self.reader_name()
                ),
                self.sample(writer_ty, false),
            )];
        }
        let base = self.sample(writer_ty, false);
        let found = self.compare(writer_elem, reader_elem);
        let found = embedded(found, |c| with_element(&base, 0, c));
        placed(found, &Place::on_wire(WIRE_ELEMENT))
    }

    /// A fixed-size array read as a sequence (a set collapses equal elements).
    pub(super) fn array_to_sequence(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        (writer_elem, writer_len): (&Ty, u64),
        (reader_kind, reader_elem): (SeqKind, &Ty),
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        if reader_kind == SeqKind::Set && writer_len >= 2 {
            out.push(self.seq_to_set(writer_ty, reader_ty, writer_elem));
        }
        let base = self.sample(writer_ty, false);
        let found = self.compare(writer_elem, reader_elem);
        let found = embedded(found, |c| with_element(&base, 0, c));
        out.extend(placed(found, &Place::on_wire(WIRE_ELEMENT)));
        out
    }

    /// A tuple read as a sequence: each element against the sequence's element.
    pub(super) fn tuple_to_sequence(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        elems: &[Ty],
        (reader_kind, reader_elem): (SeqKind, &Ty),
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        if reader_kind == SeqKind::Set && elems.len() >= 2 {
            out.push(self.type_changed(
                writer_ty,
                reader_ty,
                "a set collapses equal elements",
                self.sample(writer_ty, false),
            ));
        }
        let base = self.sample(writer_ty, false);
        for (i, elem) in elems.iter().enumerate() {
            let found = self.compare(elem, reader_elem);
            let found = embedded(found, |c| with_element(&base, i, c));
            let place = Place {
                path: vec![i.to_string()],
                wire_path: vec![wire_index(i)],
                ..Place::default()
            };
            out.extend(placed(found, &place));
        }
        out
    }

    /// Arrays and tuples against each other: lengths must agree; elements are compared in order.
    pub(super) fn compare_fixed(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Vec<Issue> {
        let (writer_elems, reader_elems) = (fixed_elements(writer), fixed_elements(reader));
        if writer_elems.len() != reader_elems.len() {
            return vec![Issue::breaking(
                RuleId::TupleLengthChanged,
                format!(
                    "{} writes `{writer_ty}` ({} elements) and {} reads `{reader_ty}` ({} elements)",
                    self.writer_name(),
                    writer_elems.len(),
                    self.reader_name(),
                    reader_elems.len()
                ),
                self.sample(writer_ty, false),
            )];
        }
        let base = self.sample(writer_ty, false);
        let tuple_like = matches!(writer, Shape::Tuple(..)) || matches!(reader, Shape::Tuple(..));
        let mut out = Vec::new();
        for (i, ((writer_name, writer_ty), (reader_name, reader_ty))) in
            writer_elems.iter().zip(&reader_elems).enumerate()
        {
            let found = self.compare(writer_ty, reader_ty);
            let found = embedded(found, |c| with_element(&base, i, c));
            let name = if self.writer_is_new() {
                writer_name
            } else {
                reader_name
            };
            let place = Place {
                path: if tuple_like {
                    vec![name.clone()]
                } else {
                    Vec::new()
                },
                wire_path: vec![wire_index(i)],
                ..Place::default()
            };
            out.extend(placed(found, &place));
        }
        out
    }

    /// Two maps: keys, then values.
    pub(super) fn compare_maps(
        &mut self,
        (writer_key, writer_value): (&Ty, &Ty),
        (reader_key, reader_value): (&Ty, &Ty),
    ) -> Vec<Issue> {
        let key = self
            .sample(writer_key, true)
            .map(|k| key_string(&k))
            .unwrap_or_else(|| "x".to_owned());
        let value = self.sample(writer_value, false);
        let keys = self.compare_map_keys(writer_key, reader_key, value.as_ref());
        let mut out = placed(keys, &Place::on_wire(WIRE_MAP_KEY));
        let found = self.compare(writer_value, reader_value);
        let found = embedded(found, |c| Some(single_entry(key.clone(), c)));
        out.extend(placed(found, &Place::on_wire(WIRE_MAP_VALUE)));
        out
    }

    /// Map keys: a string key reads anything; integer keys by range; enum keys as enums; the rest by
    /// decoding the writer's possible keys. `value` fills the witness map's one entry.
    fn compare_map_keys(&mut self, writer: &Ty, reader: &Ty, value: Option<&Value>) -> Vec<Issue> {
        if self.format.typed_keys() {
            return self.compare_typed_keys(writer, reader, value);
        }
        let writer_shape = resolve(self.writer, writer, Role::Writer).shape;
        let reader_shape = resolve(self.reader, reader, Role::Reader).shape;
        if self.human {
            let printed = |shape: &Shape| match shape {
                // serde_json writes an integer, `bool` or `char` key as the text `Display` prints and
                // parses it back: such a key is the scalar it prints.
                Shape::Refined(refined) => refined.printed_scalar(),
                _ => None,
            };
            let (as_writer, as_reader) = (printed(&writer_shape), printed(&reader_shape));
            if as_writer.is_some() || as_reader.is_some() {
                let writer = as_writer.unwrap_or_else(|| writer.clone());
                let reader = as_reader.unwrap_or_else(|| reader.clone());
                return self.compare_map_keys(&writer, &reader, value);
            }
        }
        let with_key = |k: String| Some(single_entry(k, value?.clone()));
        match (&writer_shape, &reader_shape) {
            (_, Shape::Value) => Vec::new(),
            // A refined key is its base key, whose values the reader may reject: the domains decide.
            (Shape::Refined(_), _) | (_, Shape::Refined(_)) => {
                let found = self.compare(writer, reader);
                embedded(found, |c| with_key(key_string(&c)))
            }
            (_, Shape::Str | Shape::External(..)) => Vec::new(),
            (Shape::Int { signed: a, bits: x }, Shape::Int { signed: b, bits: y }) => self
                .compare_integers((*a, *x), (*b, *y))
                .into_iter()
                .map(as_map_key)
                .map(|mut issue| {
                    issue.witness = issue.witness.and_then(|k| with_key(key_string(&k)));
                    issue
                })
                .collect(),
            (Shape::Enum(_), Shape::Enum(_)) => {
                let found = self.compare(writer, reader);
                embedded(found, |c| with_key(key_string(&c)))
            }
            _ => {
                let candidates = self.key_candidates(writer, &writer_shape);
                let mut decoder = Decoder::new(self.reader);
                for candidate in candidates {
                    if let Err(reason) = decoder.decode_key(reader, &candidate) {
                        return vec![map_key_rejected(
                            format!(
                                "{} writes map keys of `{writer}` and {} reads keys of `{reader}`: {reason}",
                                self.writer_name(),
                                self.reader_name()
                            ),
                            with_key(candidate),
                        )];
                    }
                }
                Vec::new()
            }
        }
    }

    /// Map keys in a format that writes each key as a value of its own type (CBOR, MessagePack): the
    /// keys are compared as values are (a `u32` key is an integer, which a `String` key rejects), and a
    /// change found in the key itself is a map key change.
    fn compare_typed_keys(
        &mut self,
        writer: &Ty,
        reader: &Ty,
        value: Option<&Value>,
    ) -> Vec<Issue> {
        let found = self.compare(writer, reader);
        let found = embedded(found, |c| {
            Some(single_entry(key_string(&c), value?.clone()))
        });
        found
            .into_iter()
            .map(|issue| match issue.path.is_empty() {
                true => as_map_key(issue),
                false => issue,
            })
            .collect()
    }

    /// Keys the writer's key type may write, to try on the reader.
    fn key_candidates(&self, writer: &Ty, shape: &Shape) -> Vec<String> {
        match shape {
            Shape::Str => vec!["x".to_owned(), "xy".to_owned()],
            Shape::Char => vec!["a".to_owned()],
            Shape::Int { signed, .. } => {
                let mut keys = vec!["0".to_owned()];
                if *signed {
                    keys.push("-1".to_owned());
                }
                keys
            }
            Shape::Bool => vec!["true".to_owned()],
            Shape::Enum(en) => en
                .variants
                .iter()
                .filter(|v| !v.skip_ser)
                .map(|v| v.ser_name.clone())
                .collect(),
            _ => [false, true]
                .iter()
                .filter_map(|full| self.sample(writer, *full))
                .map(|v| key_string(&v))
                .collect(),
        }
    }
}

/// A key the reader's map rejects: `map_key_changed`, with the key (in its map) as witness.
pub(super) fn map_key_rejected(message: String, witness: Option<Value>) -> Issue {
    Issue::breaking(RuleId::MapKeyChanged, message, witness)
}

/// A change of a map's key type found by comparing the key as a value (its scalar type changed),
/// named as the map key change it is; other issues (inside the key) keep their rule.
fn as_map_key(mut issue: Issue) -> Issue {
    if matches!(
        issue.rule,
        RuleId::FieldTypeChanged
            | RuleId::IntegerNarrowed
            | RuleId::IntegerWidened
            | RuleId::IntegerSignChanged
            | RuleId::IntegerToFloat
            | RuleId::FloatToInteger
    ) {
        issue.rule = RuleId::MapKeyChanged;
    }
    issue
}
