//! The walk in positional formats (bincode, postcard): no field names, no tags, no self-description.
//! Everything is read back by position and width, so most changes of type break.

mod enums;
mod items;
mod reach;

pub(super) use items::{Item, ItemLists, field_item};

use serde_json::{Value, json};

use super::issue::{Issue, embedded, located};
use super::sample::key_string;
use super::shape::{Role, Shape, resolve};
use super::walk::Walk;
use super::witness::single_entry;
use super::wording::type_names;
use crate::model::{EnumRepr, SeqKind, Ty};
use crate::rules::RuleId;

/// Why a positional codec cannot get a value of `shape` through, in `role`: reading needs serde's
/// `deserialize_any` or identifiers, which bincode and postcard refuse; a flattened struct cannot even be
/// written (a map of unknown length).
fn undecodable(shape: &Shape, role: Role) -> Option<&'static str> {
    match (shape, role) {
        (Shape::Value, Role::Reader) => Some(
            "a self-describing value is read with `deserialize_any`, which a positional format refuses",
        ),
        (Shape::Enum(e), Role::Reader) => match e.attrs.repr {
            EnumRepr::Untagged => Some(
                "an untagged enum is read with `deserialize_any`, which a positional format refuses",
            ),
            EnumRepr::Internal { .. } => Some(
                "an internally tagged enum is read with `deserialize_any`, which a positional format refuses",
            ),
            EnumRepr::Adjacent { .. } => Some(
                "an adjacently tagged enum reads its tag as an identifier, which a positional format refuses",
            ),
            EnumRepr::External if e.variants.iter().any(|v| v.untagged) => Some(
                "an enum with an untagged variant is read with `deserialize_any`, which a positional format refuses",
            ),
            EnumRepr::External | EnumRepr::Integer { .. } => None,
        },
        // serde_with's `PickFirst` (and the choices built on it) buffers the input with `deserialize_any`
        // before trying its types (its `de/impls.rs`).
        (Shape::Choice(reads), Role::Reader) if reads.len() > 1 => Some(
            "a choice of types is read with `deserialize_any`, which a positional format refuses",
        ),
        (Shape::Struct(s), _) if s.fields.iter().any(|f| f.flatten) => Some(
            "a struct with a flattened field is written as a map of unknown length, which a positional format cannot write",
        ),
        _ => None,
    }
}

impl Walk<'_> {
    /// Compares `writer` with `reader` in a positional format.
    pub(super) fn compare_positional(&mut self, writer: &Ty, reader: &Ty) -> Vec<Issue> {
        let writer_resolved = resolve(self.writer, writer, Role::Writer);
        let reader_resolved = resolve(self.reader, reader, Role::Reader);
        let location = self.location(
            writer_resolved.def.map(|d| &d.location),
            reader_resolved.def.map(|d| &d.location),
        );
        // Nothing below a shape the codec cannot decode (or write) matters: no payload gets through.
        if let Some(issue) = self.positional_undecodable(
            writer,
            reader,
            &writer_resolved.shape,
            &reader_resolved.shape,
        ) {
            return vec![Issue { location, ..issue }];
        }
        let mut out = self.compare_definitions(writer, writer_resolved.def, reader_resolved.def);
        if self.settled_by_definitions(
            &out,
            (writer_resolved.def, &writer_resolved.shape),
            (reader_resolved.def, &reader_resolved.shape),
        ) {
            return out;
        }
        let found = self.compare_positional_shapes(
            writer,
            reader,
            writer_resolved.shape,
            reader_resolved.shape,
        );
        out.extend(located(found, &location));
        out
    }

    /// A shape the codec cannot decode on the reader's side (or write on the writer's): one finding in
    /// place of any reasoning about indices or fields below it.
    fn positional_undecodable(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Issue> {
        let (who, verb, ty, why) = match undecodable(reader, Role::Reader) {
            Some(why) => (self.reader_name(), "reads", reader_ty, why),
            None => (
                self.writer_name(),
                "writes",
                writer_ty,
                undecodable(writer, Role::Writer)?,
            ),
        };
        Some(self.undecodable_break(
            format!(
                "{who} {verb} `{ty}`: {why}, so {who} fails on every message that reaches it, its own included"
            ),
            self.sample(writer_ty, false),
        ))
    }

    /// A type the positional codec cannot encode or decode at all, reached by a message:
    /// `positional_undecodable`.
    pub(super) fn undecodable_break(&self, message: String, witness: Option<Value>) -> Issue {
        Issue::breaking(RuleId::PositionalUndecodable, message, witness)
    }

    /// Sends a pair of wire shapes to its comparison.
    fn compare_positional_shapes(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: Shape,
        reader: Shape,
    ) -> Vec<Issue> {
        use Shape as S;
        if let Some(found) = self.compare_forms(writer_ty, reader_ty, &writer, &reader) {
            return found;
        }
        if let Some(found) = self.compare_positional_numbers(writer_ty, reader_ty, &writer, &reader)
        {
            return found;
        }
        match (writer, reader) {
            (S::Value, S::Value) => Vec::new(),
            (S::Unresolved(a), S::Unresolved(b)) if a == b => Vec::new(),
            (S::Unresolved(name), _) | (_, S::Unresolved(name)) => {
                vec![self.unresolved_type(&name, writer_ty, reader_ty)]
            }
            (S::External(..), _) | (_, S::External(..)) => {
                vec![self.external_type_changed(writer_ty, reader_ty)]
            }
            (S::Option(a), S::Option(b)) => self.compare(&a, &b),
            (S::Option(_), _) => vec![self.option_tag_removed(writer_ty, reader_ty)],
            (_, S::Option(_)) => vec![self.option_tag_added(writer_ty, reader_ty)],
            (S::Bool, S::Bool) | (S::Char, S::Char) | (S::Str, S::Str) | (S::Unit, S::Unit) => {
                Vec::new()
            }
            // postcard writes a char as a one-char string (length, UTF-8); bincode writes its bare UTF-8
            // bytes, which a string reader takes for a length.
            (S::Char, S::Str) if self.postcard => Vec::new(),
            // A string and a sequence of bytes are both a length and then the bytes.
            (S::Str, S::Seq(kind, elem)) if self.is_byte(&elem, Role::Reader) => {
                self.string_read_as_bytes(writer_ty, reader_ty, kind)
            }
            (S::Seq(_, elem), S::Str) if self.is_byte(&elem, Role::Writer) => {
                vec![self.type_changed(
                    writer_ty,
                    reader_ty,
                    "the same bytes on the wire, and the reader fails on any that are not UTF-8",
                    Some(json!([255])),
                )]
            }
            (S::Seq(k1, e1), S::Seq(k2, e2)) => {
                self.compare_sequences(writer_ty, reader_ty, (k1, &e1), (k2, &e2))
            }
            (S::Map(k1, v1), S::Map(k2, v2)) => {
                self.compare_positional_maps((&k1, &v1), (&k2, &v2))
            }
            (S::Array(e1, n1), S::Array(e2, n2)) => {
                self.compare_arrays(writer_ty, reader_ty, (&e1, n1), (&e2, n2))
            }
            (
                writer @ (S::Struct(_) | S::Tuple(..) | S::Array(..)),
                reader @ (S::Struct(_) | S::Tuple(..) | S::Array(..)),
            ) => self.compare_positional_lists(writer_ty, reader_ty, &writer, &reader),
            (S::Enum(a), S::Enum(b)) => self.compare_positional_enums(writer_ty, reader_ty, &a, &b),
            _ => vec![self.type_changed(
                writer_ty,
                reader_ty,
                "the encoding differs",
                self.sample(writer_ty, false),
            )],
        }
    }

    /// Two numbers, by position: integers by width and sign, floats by width, and one for the other
    /// (`None` when the pair is not two numbers).
    fn compare_positional_numbers(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Vec<Issue>> {
        use Shape as S;
        Some(match (writer, reader) {
            (S::Int { signed: a, bits: x }, S::Int { signed: b, bits: y }) => self
                .compare_integers((*a, *x), (*b, *y))
                .into_iter()
                .collect(),
            (S::Float { bits: x }, S::Float { bits: y }) if x != y => {
                vec![self.float_width_changed(*x, *y)]
            }
            (S::Float { .. }, S::Float { .. }) => Vec::new(),
            (S::Int { .. }, S::Float { .. }) => vec![self.positional_number_changed(
                writer_ty,
                reader_ty,
                self.number_kind_rule(true),
                self.sample(writer_ty, true),
            )],
            (S::Float { .. }, S::Int { .. }) => vec![self.positional_number_changed(
                writer_ty,
                reader_ty,
                self.number_kind_rule(false),
                Some(json!(0.5)),
            )],
            _ => return None,
        })
    }

    /// Whether `ty` is a `u8` on `role`'s side: a sequence of them is written like a string.
    fn is_byte(&self, ty: &Ty, role: Role) -> bool {
        let side = match role {
            Role::Writer => self.writer,
            Role::Reader => self.reader,
        };
        matches!(
            resolve(side, ty, role).shape,
            Shape::Int {
                signed: false,
                bits: 8
            }
        )
    }

    /// A string read as a sequence of bytes: its UTF-8 bytes, unless a set sorts and collapses them.
    fn string_read_as_bytes(&self, writer_ty: &Ty, reader_ty: &Ty, kind: SeqKind) -> Vec<Issue> {
        match kind {
            SeqKind::List => Vec::new(),
            SeqKind::Set => vec![self.type_changed(
                writer_ty,
                reader_ty,
                "the same bytes on the wire, which the set sorts and collapses",
                Some(json!("baa")),
            )],
        }
    }

    fn option_tag_removed(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        Issue::breaking(
            self.optionality_rule(true),
            format!(
                "{} writes `{writer_ty}` with an option tag and {} reads `{reader_ty}` without one",
                self.writer_name(),
                self.reader_name()
            ),
            Some(Value::Null),
        )
    }

    fn option_tag_added(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        Issue::breaking(
            self.optionality_rule(false),
            format!(
                "{} writes `{writer_ty}` without an option tag and {} reads `{reader_ty}` with one",
                self.writer_name(),
                self.reader_name()
            ),
            self.sample(writer_ty, false),
        )
    }

    /// Floats of another width take other bytes.
    fn float_width_changed(&self, writer_bits: u8, reader_bits: u8) -> Issue {
        Issue::breaking(
            self.float_width_rule(writer_bits, reader_bits),
            format!(
                "{} writes `f{writer_bits}` and {} reads `f{reader_bits}`: the encoded width differs",
                self.writer_name(),
                self.reader_name()
            ),
            Some(json!(0.5)),
        )
    }

    /// An integer read as a float or the reverse: other bytes.
    fn positional_number_changed(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        rule: RuleId,
        witness: Option<Value>,
    ) -> Issue {
        let (writer_ty, reader_ty) = type_names(writer_ty, reader_ty);
        Issue::breaking(
            rule,
            format!(
                "{} writes `{writer_ty}` and {} reads `{reader_ty}`",
                self.writer_name(),
                self.reader_name()
            ),
            witness,
        )
    }

    /// Two maps: keys and values compared as types (a key is written like any value).
    fn compare_positional_maps(
        &mut self,
        (writer_key, writer_value): (&Ty, &Ty),
        (reader_key, reader_value): (&Ty, &Ty),
    ) -> Vec<Issue> {
        let key = self
            .sample(writer_key, true)
            .map(|k| key_string(&k))
            .unwrap_or_default();
        let value = self.sample(writer_value, false);
        let found = self.compare(writer_key, reader_key);
        let mut out = embedded(found, |c| {
            value.clone().map(|v| single_entry(key_string(&c), v))
        });
        let found = self.compare(writer_value, reader_value);
        out.extend(embedded(found, |c| Some(single_entry(key.clone(), c))));
        out
    }
}
