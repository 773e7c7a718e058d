//! Structs and struct payloads: an object over the key namespace the engine flattens
//! (`compat::flatten`), closed as serde closes it, and the array a derived reader also takes.

use serde_json::{Map, Value, json};

use super::builder::{Builder, any, array_of, custom_fn};
use crate::compat::{FlatField, FlatObject, Role, Shape, StructDef, flatten, resolve};
use crate::model::{Field, SkipSer, Ty};

/// Whether an object's schema says which keys it has, or leaves its other keys to an enclosing object
/// that shares them (a flattened enum's keys are the struct's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closing {
    /// The object is the whole value.
    Closed,
    /// Other keys belong to an enclosing object.
    Open,
}

/// A key an enum's representation adds to its payload's object: the tag.
pub(super) struct Tag {
    pub key: String,
    pub schema: Value,
}

/// The parts of an object schema being written.
#[derive(Default)]
struct Parts {
    properties: Map<String, Value>,
    required: Vec<String>,
    all_of: Vec<Value>,
}

impl Builder<'_> {
    /// A braced struct: an object; a reader also takes an array of its fields, in order, unless a field
    /// is flattened (serde_derive's `visit_seq`, left out for such structs).
    pub(super) fn struct_schema(&mut self, def: &StructDef) -> Value {
        let flat = flatten(self.side, self.role, &def.fields, &def.attrs);
        let object = self.object(&flat, None, Closing::Closed);
        if self.role == Role::Reader && !def.fields.iter().any(|f| f.flatten) {
            let array = self.fields_array(&flat);
            return json!({ "anyOf": [object, array] });
        }
        object
    }

    /// The object of a flattened key namespace, with an enum's `tag` among its keys.
    pub(super) fn object(
        &mut self,
        flat: &FlatObject,
        tag: Option<Tag>,
        closing: Closing,
    ) -> Value {
        let mut parts = Parts::default();
        if let Some(tag) = tag {
            parts.properties.insert(tag.key.clone(), tag.schema);
            parts.required.push(tag.key);
        }
        match self.role {
            Role::Writer => self.writer_fields(flat, &mut parts),
            Role::Reader => self.reader_fields(flat, &mut parts),
        }
        for field in &flat.enums {
            let schema = self.flattened_enum(field);
            parts.all_of.push(schema);
        }
        let mut object = Map::new();
        object.insert("type".to_owned(), json!("object"));
        if !parts.properties.is_empty() {
            object.insert("properties".to_owned(), Value::Object(parts.properties));
        }
        if !parts.required.is_empty() {
            object.insert("required".to_owned(), json!(parts.required));
        }
        if !parts.all_of.is_empty() {
            object.insert("allOf".to_owned(), Value::Array(parts.all_of));
        }
        if closing == Closing::Closed
            && let Some(rest) = self.other_keys(flat)
        {
            // Keys a flattened enum's alternatives name count as evaluated only through `allOf`.
            let keyword = if flat.enums.is_empty() {
                "additionalProperties"
            } else {
                "unevaluatedProperties"
            };
            object.insert(keyword.to_owned(), rest);
        }
        Value::Object(object)
    }

    /// What the keys no field names may hold: a flattened map's values, nothing (a writer, a reader
    /// that denies unknown fields), or anything (`None`: a reader that ignores them, a flattened type
    /// whose keys are unknown).
    fn other_keys(&mut self, flat: &FlatObject) -> Option<Value> {
        if let Some(map) = &flat.map {
            return Some(self.schema(&map.value));
        }
        if !flat.opaque.is_empty() {
            return None;
        }
        match self.role {
            Role::Writer => Some(json!(false)),
            Role::Reader if flat.deny_unknown_fields && flat.enums.is_empty() => Some(json!(false)),
            Role::Reader => None,
        }
    }

    /// Each written field under its wire name; required unless it may be left out
    /// (`skip_serializing_if`, or inside a flattened `Option`). A struct's own `tag` is written first.
    fn writer_fields(&mut self, flat: &FlatObject, parts: &mut Parts) {
        if let Some(tag) = &flat.tag {
            parts
                .properties
                .insert(tag.key.clone(), json!({ "const": tag.value }));
            parts.required.push(tag.key.clone());
        }
        for field in &flat.fields {
            let schema = self.field_value(&field.field);
            let key = field.key().to_owned();
            if field.field.skip_ser == SkipSer::Never && !field.optional_parent {
                parts.required.push(key.clone());
            }
            parts.properties.entry(key).or_insert(schema);
        }
    }

    /// Each read field under every name it is read by (its name and aliases; the first field to name a
    /// key takes it), required under one of them unless serde fills it in when absent.
    fn reader_fields(&mut self, flat: &FlatObject, parts: &mut Parts) {
        for field in &flat.fields {
            let schema = if field.optional_parent {
                any(
                    "inside a flattened `Option`: a value that does not decode makes the whole option None",
                )
            } else {
                self.field_value(&field.field)
            };
            for name in &field.field.de_names {
                parts
                    .properties
                    .entry(name.clone())
                    .or_insert_with(|| schema.clone());
            }
            if field.tolerates_absence() {
                continue;
            }
            match field.field.de_names.as_slice() {
                [] => {}
                [one] => parts.required.push(one.clone()),
                names => {
                    let any_of: Vec<Value> =
                        names.iter().map(|n| json!({ "required": [n] })).collect();
                    parts.all_of.push(json!({ "anyOf": any_of }));
                }
            }
        }
    }

    /// The array a derived struct reader also takes: its read fields in order, the trailing ones that
    /// have a default may be left out, no more elements than fields.
    pub(super) fn fields_array(&mut self, flat: &FlatObject) -> Value {
        let items: Vec<Value> = flat
            .fields
            .iter()
            .map(|f| self.field_value(&f.field))
            .collect();
        let least = flat
            .fields
            .iter()
            .rposition(|f| !(f.field.default || f.container_default))
            .map_or(0, |i| i + 1);
        array_of(items, least)
    }

    /// A flattened enum's keys, among the struct's (a flattened `Option` of one may be absent).
    fn flattened_enum(&mut self, field: &FlatField) -> Value {
        if let Some(function) = custom_fn(&field.field, self.role) {
            return any(format!(
                "flattened through `{function}`, not read by wirecheck"
            ));
        }
        let (ty, optional) = match &field.field.ty {
            Ty::Option { inner } => ((**inner).clone(), true),
            ty => (ty.clone(), field.optional_parent),
        };
        let schema = match resolve(self.side, &ty, self.role).shape {
            Shape::Enum(en) => self.enum_with(&en, Closing::Open),
            _ => return any("a flattened type wirecheck cannot see into"),
        };
        if optional {
            json!({ "anyOf": [schema, {}] })
        } else {
            schema
        }
    }

    /// The payload object of a struct variant, with `deny_unknown_fields` from its enum.
    pub(super) fn variant_object(
        &mut self,
        fields: &[Field],
        deny: bool,
        tag: Option<Tag>,
        closing: Closing,
    ) -> (Value, FlatObject) {
        let attrs = crate::model::ContainerAttrs {
            deny_unknown_fields: deny,
            ..crate::model::ContainerAttrs::default()
        };
        let flat = flatten(self.side, self.role, fields, &attrs);
        (self.object(&flat, tag, closing), flat)
    }
}
