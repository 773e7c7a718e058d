//! Enums in serde's representations: which variants a writer writes (`compat::writable`, never a
//! skipped one) and which tags a reader takes (names and aliases, `#[serde(other)]` for the rest, untagged
//! variants tried last), as the engine's reader model (`compat::Decoder`) reads them.

use serde_json::{Value, json};

use super::builder::{
    Builder, any, array_of, custom_fn, integer, never, one_of_these, one_value_of,
};
use super::objects::{Closing, Tag};
use crate::compat::{Decoder, EnumDef, Role, Shape, integer_variant_value, resolve, writable};
use crate::model::{EnumRepr, Style, Variant};

/// How a payload sits in its enum's representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Under the tag's key or the content key: a derived struct reader also takes an array.
    Tagged,
    /// Untagged: serde_derive gives untagged struct variants no array reading.
    Bare,
}

impl Builder<'_> {
    /// An enum as a whole value.
    pub(super) fn enum_schema(&mut self, en: &EnumDef) -> Value {
        self.enum_with(en, Closing::Closed)
    }

    /// An enum, as a whole value or as keys of an enclosing object (flattened).
    pub(super) fn enum_with(&mut self, en: &EnumDef, closing: Closing) -> Value {
        let mut alternatives = match &en.attrs.repr {
            EnumRepr::Integer { signed, bits } => return self.integer_enum(en, *signed, *bits),
            EnumRepr::Untagged => Vec::new(),
            repr => self.tagged_alternatives(en, repr, closing),
        };
        let untagged_only = en.attrs.repr == EnumRepr::Untagged;
        for variant in self.variants(en) {
            if untagged_only || variant.untagged {
                alternatives.push(self.payload(variant, en, Placement::Bare, closing));
            }
        }
        let none = format!(
            "`{}`: no variant is {}",
            en.attrs.ser_name,
            match self.role {
                Role::Writer => "written",
                Role::Reader => "read",
            }
        );
        one_of_these(alternatives, &none)
    }

    /// The variants this role sees: those a writer can write, or those a reader reads.
    fn variants<'e>(&self, en: &'e EnumDef) -> Vec<&'e Variant> {
        en.variants
            .iter()
            .filter(|v| match self.role {
                Role::Writer => !v.skip_ser && writable(self.side, &en.attrs.repr, v),
                Role::Reader => !v.skip_de,
            })
            .collect()
    }

    /// The tags a reader knows (of its variants read by tag): every other tag goes to `other`.
    fn known_tags(en: &EnumDef) -> Vec<String> {
        en.variants
            .iter()
            .filter(|v| !v.skip_de && !v.untagged && !v.other)
            .flat_map(|v| v.de_names.iter().cloned())
            .collect()
    }

    /// The alternatives of the variants read or written by tag, in the enum's representation.
    fn tagged_alternatives(
        &mut self,
        en: &EnumDef,
        repr: &EnumRepr,
        closing: Closing,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        for variant in self.variants(en) {
            if variant.untagged || (variant.other && self.role == Role::Reader) {
                continue;
            }
            let tags = match self.role {
                Role::Writer => vec![variant.ser_name.clone()],
                Role::Reader => variant.de_names.clone(),
            };
            for tag in tags {
                let tag = json!({ "const": tag });
                out.extend(self.tagged(en, repr, variant, tag, closing));
            }
        }
        let other = en.variants.iter().find(|v| v.other && !v.skip_de);
        if self.role == Role::Reader
            && let Some(other) = other
        {
            let known = Self::known_tags(en);
            let mut unknown = json!({ "type": "string" });
            if !known.is_empty() {
                unknown["not"] = json!({ "enum": known });
            }
            out.extend(self.tagged(en, repr, other, unknown, closing));
        }
        out
    }

    /// One variant under one tag (a `const`, or any unknown tag for `other`).
    fn tagged(
        &mut self,
        en: &EnumDef,
        repr: &EnumRepr,
        variant: &Variant,
        tag: Value,
        closing: Closing,
    ) -> Vec<Value> {
        let closed = closing == Closing::Closed;
        match repr {
            EnumRepr::External => self.external(en, variant, tag, closing),
            EnumRepr::Internal { tag: key } => {
                vec![self.internal(
                    en,
                    variant,
                    Tag {
                        key: key.clone(),
                        schema: tag,
                    },
                    closing,
                )]
            }
            EnumRepr::Adjacent { tag: key, content } => {
                let payload = self.payload(variant, en, Placement::Tagged, Closing::Closed);
                let mut object = json!({
                    "type": "object",
                    "properties": { key.as_str(): tag, content.as_str(): payload },
                    "required": [key],
                });
                if variant.style != Style::Unit || self.role == Role::Reader {
                    if !self.reads_missing_content(variant) {
                        object["required"] = json!([key, content]);
                    }
                } else {
                    object["properties"]
                        .as_object_mut()
                        .map(|p| p.remove(content.as_str()));
                }
                let deny = self.role == Role::Writer || en.attrs.deny_unknown_fields;
                if closed && deny {
                    object["additionalProperties"] = json!(false);
                }
                vec![object]
            }
            EnumRepr::Untagged | EnumRepr::Integer { .. } => Vec::new(),
        }
    }

    /// Whether an adjacently tagged reader takes the variant without its content key (it reads null).
    fn reads_missing_content(&self, variant: &Variant) -> bool {
        if self.role == Role::Writer {
            return false;
        }
        match (variant.style, variant.fields.as_slice()) {
            (Style::Unit, _) => true,
            (Style::Tuple, [field]) => Decoder::new(self.side)
                .decode(&field.ty, &Value::Null)
                .is_ok(),
            _ => false,
        }
    }

    /// Externally tagged: a bare tag for a unit variant, else an object of one key, the tag.
    fn external(
        &mut self,
        en: &EnumDef,
        variant: &Variant,
        tag: Value,
        closing: Closing,
    ) -> Vec<Value> {
        let unit = variant.style == Style::Unit;
        let payload = self.payload(variant, en, Placement::Tagged, Closing::Closed);
        let mut out = Vec::new();
        if unit && closing == Closing::Closed {
            // A bare tag; a reader also takes `{"Tag": null}`.
            out.push(tag.clone());
            if self.role == Role::Writer {
                return out;
            }
        }
        let object = match tag.get("const") {
            Some(Value::String(name)) => {
                json!({ "type": "object", "properties": { name.as_str(): payload }, "required": [name] })
            }
            _ => json!({
                "type": "object", "propertyNames": tag, "minProperties": 1,
                "additionalProperties": payload,
            }),
        };
        let mut object = object;
        if closing == Closing::Closed {
            object["maxProperties"] = json!(1);
        }
        out.push(object);
        out
    }

    /// Internally tagged: the tag among the payload's keys (a unit, a struct, a map, or a newtype
    /// variant holding one of them).
    fn internal(&mut self, en: &EnumDef, variant: &Variant, tag: Tag, closing: Closing) -> Value {
        let deny = en.attrs.deny_unknown_fields;
        let only_tag = |tag: Tag, closed: bool| {
            let mut object = json!({
                "type": "object", "properties": { tag.key.as_str(): tag.schema }, "required": [tag.key],
            });
            if closed {
                object["additionalProperties"] = json!(false);
            }
            object
        };
        match (variant.style, variant.fields.as_slice()) {
            // A reader takes a unit variant from any object with its tag.
            (Style::Unit, _) => {
                only_tag(tag, closing == Closing::Closed && self.role == Role::Writer)
            }
            (Style::Named, fields) => self.variant_object(fields, deny, Some(tag), closing).0,
            (Style::Tuple, [field]) => {
                if let Some(function) = custom_fn(field, self.role) {
                    let mut object = only_tag(tag, false);
                    object["description"] = json!(format!("the payload goes through `{function}`"));
                    return object;
                }
                match resolve(self.side, &field.ty, self.role).shape {
                    Shape::Struct(def) => {
                        let flat =
                            crate::compat::flatten(self.side, self.role, &def.fields, &def.attrs);
                        self.object(&flat, Some(tag), closing)
                    }
                    Shape::Map(_, value) => {
                        let mut object = only_tag(tag, false);
                        if closing == Closing::Closed {
                            object["additionalProperties"] = self.schema(&value);
                        }
                        object
                    }
                    // serde reads a unit from the map left once the tag is taken, when it is empty.
                    Shape::Unit => only_tag(tag, closing == Closing::Closed),
                    Shape::Value | Shape::External(..) | Shape::Unresolved(_) => {
                        only_tag(tag, false)
                    }
                    _ => never(
                        "an internally tagged newtype variant holds a struct, a map or a unit",
                    ),
                }
            }
            _ => never("an internally tagged enum has no tuple variants"),
        }
    }

    /// A variant's payload as its representation places it (`null` for a unit variant).
    fn payload(
        &mut self,
        variant: &Variant,
        en: &EnumDef,
        placement: Placement,
        closing: Closing,
    ) -> Value {
        let custom = variant.custom.as_ref().and_then(|c| match self.role {
            Role::Writer => c.ser.as_deref(),
            Role::Reader => c.de.as_deref(),
        });
        if let Some(function) = custom {
            return any(format!(
                "the payload goes through `{function}`, not read by wirecheck"
            ));
        }
        let fields: Vec<_> = variant
            .fields
            .iter()
            .filter(|f| match self.role {
                Role::Writer => f.skip_ser != crate::model::SkipSer::Always,
                Role::Reader => !f.skip_de,
            })
            .collect();
        match variant.style {
            Style::Unit => json!({ "type": "null" }),
            Style::Tuple if variant.fields.len() == 1 => match fields.first() {
                Some(field) => self.field_value(field),
                None => json!({ "type": "null" }),
            },
            Style::Tuple => {
                let items: Vec<Value> = fields.iter().map(|f| self.field_value(f)).collect();
                array_of(items, fields.len())
            }
            Style::Named => {
                let deny = en.attrs.deny_unknown_fields;
                let (object, flat) = self.variant_object(&variant.fields, deny, None, closing);
                let no_flatten = !variant.fields.iter().any(|f| f.flatten);
                if self.role == Role::Reader && placement == Placement::Tagged && no_flatten {
                    let array = self.fields_array(&flat);
                    return json!({ "anyOf": [object, array] });
                }
                object
            }
        }
    }

    /// serde_repr's integer enums: the discriminants written; a reader takes an integer of the `repr`
    /// type that is a variant's discriminant, or any with a `#[serde(other)]` variant.
    fn integer_enum(&mut self, en: &EnumDef, signed: bool, bits: u8) -> Value {
        if self.role == Role::Writer {
            let values: Vec<Value> = self
                .variants(en)
                .iter()
                .map(|v| integer_variant_value(v))
                .collect();
            return one_value_of(values, "no variant is written");
        }
        let mut schema = integer(signed, bits);
        if !en.variants.iter().any(|v| v.other) {
            let values: Vec<Value> = en
                .variants
                .iter()
                .flat_map(|v| &v.de_names)
                .filter_map(|name| name.parse::<i64>().ok())
                .map(Value::from)
                .collect();
            if values.is_empty() {
                return one_value_of(values, "no variant is read");
            }
            schema["enum"] = json!(values);
        }
        schema
    }

    /// The map keys an enum takes: the names of its unit variants (any key with `other`).
    pub(super) fn enum_key(&mut self, en: &EnumDef) -> Option<Value> {
        if self.role == Role::Reader && en.variants.iter().any(|v| v.other && !v.skip_de) {
            return None;
        }
        let names: Vec<String> = self
            .variants(en)
            .into_iter()
            .filter(|v| v.style == Style::Unit && !v.untagged)
            .flat_map(|v| match self.role {
                Role::Writer => vec![v.ser_name.clone()],
                Role::Reader => v.de_names.clone(),
            })
            .collect();
        let names = names.into_iter().map(Value::from).collect();
        Some(one_value_of(names, "no unit variant names a key"))
    }
}
