//! The JSON Schema of a type in one role: what its writer writes, or what its reader accepts, in JSON.
//!
//! Types are resolved one wire level at a time by the engine's own resolution (`compat::resolve`: proxies,
//! aliases, transparent and newtype structs), so a schema says what the comparison decides. Every named
//! type is one entry of `$defs` (recursive types refer to themselves); structs and enums are written by
//! `objects` and `enums`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use crate::compat::{RefinedDef, Resolved, Role, Shape, SideRef, int_range, resolve};
use crate::model::{Field, Ty};

/// How many named types deep a schema goes before it stops (generic instantiations can grow forever).
const MAX_DEFS_DEPTH: usize = 64;

/// Writes the schemas of one model's types in one role, collecting named types in `$defs`.
pub struct Builder<'a> {
    pub(super) side: SideRef<'a>,
    pub(super) role: Role,
    defs: BTreeMap<String, Value>,
    names: HashMap<Ty, String>,
    depth: usize,
}

/// The schema every value meets, saying why nothing more is known.
pub(super) fn any(why: impl Into<String>) -> Value {
    json!({ "description": why.into() })
}

/// The schema no value meets, saying why.
pub(super) fn never(why: impl Into<String>) -> Value {
    json!({ "not": {}, "description": why.into() })
}

/// A value that meets one of `alternatives` (none: no value; one: that one).
pub(super) fn one_of_these(mut alternatives: Vec<Value>, none: &str) -> Value {
    match alternatives.len() {
        0 => never(none),
        1 => alternatives.pop().unwrap_or_default(),
        _ => json!({ "anyOf": alternatives }),
    }
}

/// A value among `values` (none: no value).
pub(super) fn one_value_of(values: Vec<Value>, none: &str) -> Value {
    if values.is_empty() {
        never(none)
    } else {
        json!({ "enum": values })
    }
}

/// An array of exactly `items` in order, of which the first `least` must be there.
pub(super) fn array_of(items: Vec<Value>, least: usize) -> Value {
    let most = items.len();
    let mut schema =
        json!({ "type": "array", "items": false, "minItems": least, "maxItems": most });
    if !items.is_empty() {
        schema["prefixItems"] = Value::Array(items);
    }
    schema
}

/// A reference to the `$defs` entry `name`.
fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// An integer as a JSON number, when serde_json's `Value` holds it (64 bits).
fn number(i: i128) -> Option<Value> {
    i64::try_from(i)
        .map(Value::from)
        .ok()
        .or_else(|| u64::try_from(i).map(Value::from).ok())
}

/// A `$defs` key for a type: its path and generic arguments, in characters a JSON pointer and an
/// AsyncAPI component name take as they are.
fn def_key(ty: &Ty) -> String {
    let text = match ty {
        Ty::Named { path, args } if args.is_empty() => path.clone(),
        Ty::Named { path, args } => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            format!("{path}<{}>", args.join(","))
        }
        other => other.to_string(),
    };
    let key: String = text
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    key.trim_matches('_').to_owned()
}

impl<'a> Builder<'a> {
    /// A builder of `role`'s schemas over `side`'s model.
    pub fn new(side: SideRef<'a>, role: Role) -> Self {
        Builder {
            side,
            role,
            defs: BTreeMap::new(),
            names: HashMap::new(),
            depth: 0,
        }
    }

    /// The named types met so far, by `$defs` key.
    pub fn into_defs(self) -> BTreeMap<String, Value> {
        self.defs
    }

    /// The schema of the values of `ty` in this builder's role.
    pub fn schema(&mut self, ty: &Ty) -> Value {
        match ty {
            Ty::Named { .. } => self.named(ty),
            _ => {
                let resolved = resolve(self.side, ty, self.role);
                self.resolved(resolved)
            }
        }
    }

    /// A named type: a reference to its `$defs` entry, written the first time it is met.
    fn named(&mut self, ty: &Ty) -> Value {
        if let Some(name) = self.names.get(ty) {
            return reference(name);
        }
        if self.depth >= MAX_DEFS_DEPTH {
            return any(format!(
                "`{ty}`: generic instantiations nested too deep to follow; any value"
            ));
        }
        let name = self.fresh_key(ty);
        self.names.insert(ty.clone(), name.clone());
        self.defs.insert(name.clone(), json!({}));
        self.depth += 1;
        let resolved = resolve(self.side, ty, self.role);
        let fallible = self.role == Role::Reader
            && resolved
                .def
                .and_then(|def| def.attrs.from.as_ref())
                .is_some_and(|from| from.fallible);
        let mut schema = self.resolved(resolved);
        self.depth -= 1;
        if let Value::Object(map) = &mut schema {
            map.entry("title").or_insert_with(|| json!(ty.to_string()));
            if fallible {
                map.entry("description").or_insert_with(|| {
                    json!(
                        "read through a fallible `try_from`: it may reject values this schema takes"
                    )
                });
            }
        }
        self.defs.insert(name.clone(), schema);
        reference(&name)
    }

    /// The schema of a type as resolved: serde_with's `OneOrMany<T>` as written, one element bare and
    /// any other number as a sequence (the model stands for "two or more" with a pair,
    /// `extract::ONE_OR_MANY`, which a schema must not narrow the writer to; its reader, one element and
    /// then any sequence, is the model's as it is), else the shape's.
    fn resolved(&mut self, resolved: Resolved<'_>) -> Value {
        let one_or_many = resolved
            .last
            .is_some_and(|def| def.path == crate::extract::ONE_OR_MANY);
        if let (Role::Writer, true, Shape::Enum(en)) = (self.role, one_or_many, &resolved.shape)
            && let Some(one) = en.variants.first().and_then(|v| v.fields.first())
        {
            let element = self.schema(&one.ty);
            return json!({
                "anyOf": [
                    element.clone(),
                    { "type": "array", "items": element, "not": { "minItems": 1, "maxItems": 1 } },
                ],
            });
        }
        self.shape(resolved.shape)
    }

    /// A `$defs` key for `ty` that no other type has.
    fn fresh_key(&self, ty: &Ty) -> String {
        let base = def_key(ty);
        let base = if base.is_empty() {
            "type".to_owned()
        } else {
            base
        };
        let mut key = base.clone();
        let mut n = 2;
        while self.defs.contains_key(&key) {
            key = format!("{base}-{n}");
            n += 1;
        }
        key
    }

    /// The schema of a wire shape.
    pub(super) fn shape(&mut self, shape: Shape) -> Value {
        match shape {
            Shape::Bool => json!({ "type": "boolean" }),
            Shape::Char => json!({ "type": "string", "minLength": 1, "maxLength": 1 }),
            Shape::Str => json!({ "type": "string" }),
            Shape::Int { signed, bits } => integer(signed, bits),
            Shape::Float { .. } => self.float(),
            Shape::Unit => json!({ "type": "null" }),
            Shape::Value => any("serde_json::Value: any JSON value"),
            Shape::Option(inner) => json!({ "anyOf": [{ "type": "null" }, self.schema(&inner)] }),
            Shape::Seq(_, elem) => json!({ "type": "array", "items": self.schema(&elem) }),
            Shape::Array(elem, len) => json!({
                "type": "array", "items": self.schema(&elem), "minItems": len, "maxItems": len,
            }),
            Shape::Tuple(elems, fields) => self.tuple(&elems, &fields),
            Shape::Map(key, value) => self.map(&key, &value),
            Shape::Struct(def) => self.struct_schema(&def),
            Shape::Enum(en) => self.enum_schema(&en),
            Shape::External(path, package, _) => any(format!(
                "`{path}`{}: its serde impls are not read by wirecheck (written by hand, or of another \
                 crate whose shape it does not know); any value",
                package.map(|p| format!(" ({p})")).unwrap_or_default()
            )),
            Shape::Refined(refined) => self.refined(&refined),
            Shape::Bytes => self.bytes(),
            Shape::Choice(reads) => {
                let reads: Vec<Value> = reads.iter().map(|ty| self.schema(ty)).collect();
                one_of_these(reads, "a choice of no type")
            }
            Shape::Unresolved(what) => any(format!(
                "`{what}` could not be resolved by wirecheck; any value"
            )),
        }
    }

    /// A float: serde_json writes a non-finite one as `null`, and reads any number.
    fn float(&self) -> Value {
        match self.role {
            Role::Writer => json!({
                "type": ["number", "null"],
                "description": "a float; serde_json writes NaN and the infinities as null",
            }),
            Role::Reader => json!({ "type": "number" }),
        }
    }

    /// A tuple (or tuple struct): an array of exactly these elements.
    fn tuple(&mut self, elems: &[Ty], fields: &[Field]) -> Value {
        let items: Vec<Value> = elems
            .iter()
            .enumerate()
            .map(|(i, ty)| match fields.get(i) {
                Some(field) => self.field_value(field),
                None => self.schema(ty),
            })
            .collect();
        array_of(items, elems.len())
    }

    /// A map: an object whose keys are the key type's text (serde_json writes every key as a string).
    fn map(&mut self, key: &Ty, value: &Ty) -> Value {
        let mut schema = json!({ "type": "object", "additionalProperties": self.schema(value) });
        if let Some(names) = self.key(key) {
            schema["propertyNames"] = names;
        }
        schema
    }

    /// What a map key of type `ty` is as JSON object key text; `None` for any string.
    pub(super) fn key(&mut self, ty: &Ty) -> Option<Value> {
        match resolve(self.side, ty, self.role).shape {
            Shape::Str | Shape::Value | Shape::External(..) | Shape::Unresolved(_) => None,
            Shape::Char => Some(json!({ "minLength": 1, "maxLength": 1 })),
            Shape::Bool => Some(json!({ "enum": ["true", "false"] })),
            Shape::Int { signed, bits } => Some(json!({ "pattern": integer_key(signed, bits) })),
            Shape::Refined(refined) => {
                let mut schema = self.key(&refined.base).unwrap_or_else(|| json!({}));
                self.restrict(&mut schema, &refined);
                Some(schema)
            }
            Shape::Enum(en) => self.enum_key(&en),
            Shape::Choice(reads) => {
                let reads: Vec<Value> = reads
                    .iter()
                    .map(|ty| self.key(ty).unwrap_or_else(|| json!({})))
                    .collect();
                Some(one_of_these(reads, "a choice of no type"))
            }
            other => Some(never(format!(
                "serde_json takes no map key of this shape ({other:?})"
            ))),
        }
    }

    /// A value of a domain of its base type (a URL, a non-zero integer).
    fn refined(&mut self, refined: &RefinedDef) -> Value {
        let mut schema = self.schema(&refined.base);
        self.restrict(&mut schema, refined);
        schema
    }

    /// Narrows `schema` to what the role knows of a refined domain: its one value, the writer's extent,
    /// the value outside it a reader rejects.
    fn restrict(&self, schema: &mut Value, refined: &RefinedDef) {
        let Value::Object(map) = schema else { return };
        if let Some(only) = &refined.only {
            map.insert("const".to_owned(), only.clone());
        }
        if self.role == Role::Writer
            && let Some((least, most)) = refined.extent
        {
            number(least).map(|n| map.insert("minimum".to_owned(), n));
            number(most).map(|n| map.insert("maximum".to_owned(), n));
        }
        if let Some(outside) = refined.outside_value() {
            map.insert("not".to_owned(), json!({ "const": outside }));
        }
        let said = match self.role {
            Role::Writer => format!("a `{}` value", refined.domain),
            Role::Reader => format!(
                "only `{}` values are read (JSON Schema cannot say which text parses)",
                refined.domain
            ),
        };
        map.insert("description".to_owned(), json!(said));
    }

    /// `serialize_bytes`: serde_json writes an array of numbers and reads a string's bytes too.
    fn bytes(&self) -> Value {
        let array = json!({ "type": "array", "items": integer(false, 8) });
        match self.role {
            Role::Writer => array,
            Role::Reader => json!({ "anyOf": [array, { "type": "string" }] }),
        }
    }

    /// The schema of a field's value: opaque when a custom function of this role writes or reads it.
    pub(super) fn field_value(&mut self, field: &Field) -> Value {
        match custom_fn(field, self.role) {
            Some(function) => any(format!(
                "{} by the custom function `{function}`, which wirecheck does not read; any value",
                match self.role {
                    Role::Writer => "written",
                    Role::Reader => "read",
                }
            )),
            None => self.schema(&field.ty),
        }
    }
}

/// The custom function that writes (or reads) `field` in `role`, if any.
pub(super) fn custom_fn(field: &Field, role: Role) -> Option<&str> {
    let custom = field.custom.as_ref()?;
    match role {
        Role::Writer => custom.ser.as_deref(),
        Role::Reader => custom.de.as_deref(),
    }
}

/// The text of an integer map key: serde_json writes the integer in decimal and reads the key back as a
/// JSON integer (no sign but `-`, no leading zero) of the type's range.
fn integer_key(signed: bool, bits: u8) -> String {
    let (least, most) = int_range(signed, bits);
    let mut alternatives = vec![at_most(&most.to_string())];
    if least < 0 {
        alternatives.push(format!(
            "-(?:{})",
            between_one_and(&least.unsigned_abs().to_string())
        ));
    }
    format!("^(?:{})$", alternatives.join("|"))
}

/// A regular expression of the decimal numbers from 0 to `most` (digits, no leading zero).
fn at_most(most: &str) -> String {
    format!("0|{}", between_one_and(most))
}

/// A regular expression of the decimal numbers from 1 to `most` (at least 1; no leading zero): those
/// with fewer digits, then those of as many digits that are smaller at their first different digit, and
/// `most` itself.
fn between_one_and(most: &str) -> String {
    let digits: Vec<u32> = most.chars().filter_map(|c| c.to_digit(10)).collect();
    let len = digits.len();
    let mut alternatives = Vec::new();
    if len > 1 {
        alternatives.push(format!("[1-9][0-9]{{0,{}}}", len - 2));
    }
    for (at, &digit) in digits.iter().enumerate() {
        let low = u32::from(at == 0);
        if digit > low {
            let rest = len - at - 1;
            alternatives.push(format!(
                "{}[{low}-{}][0-9]{{{rest}}}",
                &most[..at],
                digit - 1
            ));
        }
    }
    alternatives.push(most.to_owned());
    alternatives.join("|")
}

/// An integer of the type's range (bounds beyond 64 bits are left out: serde_json's `Value` has no
/// such numbers).
pub(super) fn integer(signed: bool, bits: u8) -> Value {
    let (least, most) = int_range(signed, bits);
    let mut map = Map::new();
    map.insert("type".to_owned(), json!("integer"));
    if let Some(least) = number(least) {
        map.insert("minimum".to_owned(), least);
    }
    if let Some(most) = number(most) {
        map.insert("maximum".to_owned(), most);
    }
    Value::Object(map)
}
