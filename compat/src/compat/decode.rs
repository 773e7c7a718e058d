//! A model of serde_json deserialization into a reader schema: decides whether a concrete payload is
//! accepted and, for enums, which variant it decodes as. Used to check witnesses and to decide untagged
//! enums, whose first matching variant wins.

use serde_json::{Map, Value};

use super::codec::{Codec, Reading};
use super::namespace::{FlatField, FlatObject, flatten};
use super::shape::{
    EnumDef, MAX_DEPTH, Role, Shape, SideRef, bytes_as_seq, has_custom_de, resolve,
};
use crate::model::{ContainerAttrs, EnumRepr, Style, Ty, Variant};

/// Why a payload is rejected.
pub type Reject = String;

/// Simulates a reader schema.
pub struct Decoder<'a> {
    side: SideRef<'a>,
    depth: usize,
    /// Inside an untagged or internally tagged enum, where serde reads a buffered value
    /// ([`Reading::buffered`]).
    buffered: bool,
    /// The payload being read is an untagged variant's: a struct variant then reads a map only.
    untagged_variant: bool,
}

/// The range of an integer type (u128's top half is clipped to i128::MAX).
pub fn range(signed: bool, bits: u8) -> (i128, i128) {
    let bits = u32::from(bits.clamp(8, 128));
    if signed {
        let max = if bits >= 128 {
            i128::MAX
        } else {
            (1i128 << (bits - 1)) - 1
        };
        (-max - 1, max)
    } else if bits >= 128 {
        (0, i128::MAX)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    }
}

/// serde's complaint about a value of the wrong type.
fn invalid_type<T>(v: &Value, expected: &str) -> Result<T, Reject> {
    Err(format!("invalid type: {}, expected {expected}", kind_of(v)))
}

/// Accepts `v` if `accepted`, else complains that `expected` was wanted.
fn expect(accepted: bool, v: &Value, expected: &str) -> Result<(), Reject> {
    if accepted {
        Ok(())
    } else {
        invalid_type(v, expected)
    }
}

/// A reader's variant by tag: the one with that name, else its `#[serde(other)]` variant.
fn by_tag<'e>(en: &'e EnumDef, tag: &str) -> Option<(usize, &'e Variant)> {
    en.variants
        .iter()
        .enumerate()
        .find(|(_, v)| !v.skip_de && !v.untagged && !v.other && v.de_names.iter().any(|n| n == tag))
        .or_else(|| {
            en.variants
                .iter()
                .enumerate()
                .find(|(_, v)| v.other && !v.skip_de)
        })
}

impl<'a> Decoder<'a> {
    /// A reader of `side`'s types.
    pub fn new(side: SideRef<'a>) -> Self {
        Decoder {
            side,
            depth: 0,
            buffered: false,
            untagged_variant: false,
        }
    }

    /// How the reader meets the format's values here.
    fn reading(&self) -> Reading {
        Reading {
            format: self.side.format,
            buffered: self.buffered,
        }
    }

    /// Whether `v` decodes into `ty`.
    pub fn decode(&mut self, ty: &Ty, v: &Value) -> Result<(), Reject> {
        if self.depth > MAX_DEPTH {
            return Ok(());
        }
        self.depth += 1;
        let result = self.decode_shape(resolve(self.side, ty, Role::Reader).shape, v);
        self.depth -= 1;
        result
    }

    fn decode_shape(&mut self, shape: Shape, v: &Value) -> Result<(), Reject> {
        match shape {
            Shape::Value | Shape::External(..) | Shape::Unresolved(_) => Ok(()),
            Shape::Refined(refined) => {
                self.decode(&refined.base, v)?;
                let one_other = refined.only.as_ref().is_some_and(|only| only != v);
                if one_other || refined.outside_value().as_ref() == Some(v) {
                    return Err(format!(
                        "invalid value: {v}, expected a `{}` value",
                        refined.domain
                    ));
                }
                Ok(())
            }
            // serde_json's `deserialize_bytes` hands a string's bytes to the visitor, an array to
            // `visit_seq` (its `de.rs`).
            Shape::Bytes if self.reading().bytes_read_text() && matches!(v, Value::String(_)) => {
                Ok(())
            }
            Shape::Bytes => self.decode(&bytes_as_seq(), v),
            Shape::Choice(reads) => self.decode_choice(&reads, v),
            Shape::Bool => expect(matches!(v, Value::Bool(_)), v, "a boolean"),
            Shape::Char => expect(
                matches!(v, Value::String(s) if s.chars().count() == 1),
                v,
                "a character",
            ),
            Shape::Str => expect(matches!(v, Value::String(_)), v, "a string"),
            Shape::Int { signed, bits } => decode_integer(signed, bits, v),
            Shape::Float { .. } if !self.reading().float_reads_integers() => {
                expect(matches!(v, Value::Number(n) if n.is_f64()), v, "a float")
            }
            Shape::Float { .. } => expect(matches!(v, Value::Number(_)), v, "a number"),
            // serde's buffered content reads an empty map as a unit: the newtype variant of `()` (or
            // of a unit struct) of an internally tagged enum is its tag alone.
            Shape::Unit if self.buffered && matches!(v, Value::Object(m) if m.is_empty()) => Ok(()),
            Shape::Unit => expect(matches!(v, Value::Null), v, "null"),
            Shape::Option(inner) => match v {
                Value::Null => Ok(()),
                _ => self.decode(&inner, v),
            },
            Shape::Seq(_, elem) => match v {
                Value::Array(a) => a.iter().try_for_each(|x| self.decode(&elem, x)),
                _ => invalid_type(v, "a sequence"),
            },
            Shape::Array(elem, len) => match v {
                Value::Array(a) if a.len() as u64 == len => {
                    a.iter().try_for_each(|x| self.decode(&elem, x))
                }
                Value::Array(a) => Err(format!("invalid length {}, expected {len}", a.len())),
                _ => invalid_type(v, "an array"),
            },
            Shape::Tuple(elems, _) => match v {
                Value::Array(a) if a.len() == elems.len() => a
                    .iter()
                    .zip(&elems)
                    .try_for_each(|(x, t)| self.decode(t, x)),
                Value::Array(a) => Err(format!(
                    "invalid length {}, expected {}",
                    a.len(),
                    elems.len()
                )),
                _ => invalid_type(v, "a tuple"),
            },
            Shape::Map(key, value) => match v {
                Value::Object(m) => m.iter().try_for_each(|(k, x)| {
                    self.decode_key(&key, k)?;
                    self.decode(&value, x)
                }),
                _ => invalid_type(v, "a map"),
            },
            Shape::Struct(def) => {
                let flat = flatten(self.side, Role::Reader, &def.fields, &def.attrs);
                self.decode_object(&flat, v)
            }
            Shape::Enum(en) => self.decode_enum(&en, v).map(|_| ()),
        }
    }

    /// The first of `reads` that decodes `v` takes it; serde_with's choices report their own error when
    /// none does.
    fn decode_choice(&mut self, reads: &[Ty], v: &Value) -> Result<(), Reject> {
        let mut last = format!("no type of the choice takes {v}");
        for read in reads {
            match self.decode(read, v) {
                Ok(()) => return Ok(()),
                Err(reason) => last = reason,
            }
        }
        Err(last)
    }

    /// Whether a JSON object key decodes as a map key of type `ty`.
    pub fn decode_key(&mut self, ty: &Ty, key: &str) -> Result<(), Reject> {
        match resolve(self.side, ty, Role::Reader).shape {
            Shape::Str | Shape::Value | Shape::External(..) | Shape::Unresolved(_) => Ok(()),
            Shape::Refined(refined) => {
                self.decode_key(&refined.base, key)?;
                let one_other = matches!(&refined.only, Some(Value::String(only)) if only != key);
                match refined.outside_value() {
                    _ if one_other => Err(format!(
                        "invalid map key `{key}`, expected a `{}` value",
                        refined.domain
                    )),
                    Some(Value::String(outside)) if outside == key => Err(format!(
                        "invalid map key `{key}`, expected a `{}` value",
                        refined.domain
                    )),
                    _ => Ok(()),
                }
            }
            Shape::Char if key.chars().count() == 1 => Ok(()),
            Shape::Bool if key == "true" || key == "false" => Ok(()),
            Shape::Int { signed, bits } => {
                let (lo, hi) = range(signed, bits);
                match json_integer(key) {
                    Some(i) if i >= lo && i <= hi => Ok(()),
                    _ => Err(format!("invalid map key `{key}`, expected an integer")),
                }
            }
            Shape::Enum(en) => self
                .decode_enum(&en, &Value::String(key.to_owned()))
                .map(|_| ()),
            Shape::Choice(reads) => {
                let mut last = format!("no type of the choice takes the key `{key}`");
                for read in &reads {
                    match self.decode_key(read, key) {
                        Ok(()) => return Ok(()),
                        Err(reason) => last = reason,
                    }
                }
                Err(last)
            }
            _ => Err(format!("unsupported map key `{key}`")),
        }
    }

    /// Whether an object decodes into a flattened namespace.
    pub fn decode_object(&mut self, flat: &FlatObject, v: &Value) -> Result<(), Reject> {
        let object = match v {
            Value::Object(m) => m,
            Value::Array(a)
                if flat.enums.is_empty()
                    && flat.map.is_none()
                    && !flat.map_only
                    && self.reading().struct_reads_arrays() =>
            {
                return self.decode_object_from_array(flat, a);
            }
            _ => return invalid_type(v, "a struct"),
        };
        let mut rest: Map<String, Value> = object.clone();
        for field in &flat.fields {
            self.take_field(field, &mut rest)?;
        }
        for field in &flat.enums {
            self.take_flattened_enum(field, &mut rest)?;
        }
        if let Some(map) = &flat.map {
            for (key, x) in &rest {
                self.decode_key(&map.key, key)?;
                self.decode(&map.value, x)?;
            }
            return Ok(());
        }
        if flat.deny_unknown_fields
            && flat.enums.is_empty()
            && let Some(k) = rest.keys().next()
        {
            return Err(format!("unknown field `{k}`"));
        }
        Ok(())
    }

    /// serde_json also reads a struct from an array, field by field.
    fn decode_object_from_array(&mut self, flat: &FlatObject, a: &[Value]) -> Result<(), Reject> {
        if a.len() > flat.fields.len() {
            return Err(format!("invalid length {}", a.len()));
        }
        for (i, field) in flat.fields.iter().enumerate() {
            match a.get(i) {
                Some(x) if field.field.custom.is_none() => self.decode(&field.field.ty, x)?,
                Some(_) => {}
                None if field.field.default || field.container_default => {}
                None => return Err(format!("invalid length {}", a.len())),
            }
        }
        Ok(())
    }

    /// Takes one field's key out of `rest` and decodes its value.
    fn take_field(
        &mut self,
        field: &FlatField,
        rest: &mut Map<String, Value>,
    ) -> Result<(), Reject> {
        let found = field.field.de_names.iter().find_map(|n| rest.remove(n));
        match found {
            // A custom deserializer is opaque; a flattened `Option<Struct>` that fails to decode
            // becomes None.
            Some(_) if has_custom_de(&field.field) || field.optional_parent => Ok(()),
            Some(x) => self
                .decode(&field.field.ty, &x)
                .map_err(|e| format!("field `{}`: {e}", field.key())),
            None if field.tolerates_absence() => Ok(()),
            None => Err(format!("missing field `{}`", field.key())),
        }
    }

    /// Decodes a flattened enum from the keys left in `rest` (taking its key, if externally tagged).
    fn take_flattened_enum(
        &mut self,
        field: &FlatField,
        rest: &mut Map<String, Value>,
    ) -> Result<(), Reject> {
        let (ty, optional) = match &field.field.ty {
            Ty::Option { inner } => (&**inner, true),
            ty => (ty, field.optional_parent),
        };
        let Shape::Enum(en) = resolve(self.side, ty, Role::Reader).shape else {
            return Ok(());
        };
        let result = match &en.attrs.repr {
            EnumRepr::External => {
                let key = rest.keys().find(|k| {
                    en.variants
                        .iter()
                        .any(|v| !v.skip_de && v.de_names.iter().any(|n| n == *k))
                });
                match key.cloned() {
                    Some(k) => {
                        let x = rest.remove(&k).unwrap_or(Value::Null);
                        let mut one = Map::new();
                        one.insert(k, x);
                        self.decode_enum(&en, &Value::Object(one)).map(|_| ())
                    }
                    None => Err(format!(
                        "no variant of enum `{}` found in flattened data",
                        en.attrs.ser_name
                    )),
                }
            }
            _ => self
                .decode_enum(&en, &Value::Object(rest.clone()))
                .map(|_| ()),
        };
        match result {
            Err(e) if !optional => Err(e),
            _ => Ok(()),
        }
    }

    /// Whether `x` decodes as the payload of `variant` (`None`: no payload).
    fn payload(&mut self, variant: &Variant, deny: bool, x: Option<&Value>) -> Result<(), Reject> {
        // Whether this variant is an untagged one: asked once, here, not by payloads inside it.
        let untagged = std::mem::take(&mut self.untagged_variant);
        if variant.custom.as_ref().is_some_and(|c| c.de.is_some()) {
            return Ok(());
        }
        match variant.style {
            Style::Unit => match x {
                None | Some(Value::Null) => Ok(()),
                Some(other) => invalid_type(other, "unit"),
            },
            Style::Tuple if variant.fields.len() == 1 => {
                self.decode(&variant.fields[0].ty, x.unwrap_or(&Value::Null))
            }
            Style::Tuple => {
                let tys: Vec<Ty> = variant
                    .fields
                    .iter()
                    .filter(|f| !f.skip_de)
                    .map(|f| f.ty.clone())
                    .collect();
                match x {
                    Some(Value::Array(a)) if a.len() == tys.len() => {
                        a.iter().zip(&tys).try_for_each(|(x, t)| self.decode(t, x))
                    }
                    Some(other) => invalid_type(other, &format!("a tuple of {}", tys.len())),
                    None => Err("missing tuple payload".to_owned()),
                }
            }
            Style::Named => {
                let attrs = ContainerAttrs {
                    deny_unknown_fields: deny,
                    ..ContainerAttrs::default()
                };
                let mut flat = flatten(self.side, Role::Reader, &variant.fields, &attrs);
                flat.map_only |= untagged;
                self.decode_object(&flat, x.unwrap_or(&Value::Null))
            }
        }
    }

    /// Decodes `v` as the enum; the index of the variant it decodes as.
    pub fn decode_enum(&mut self, en: &EnumDef, v: &Value) -> Result<usize, Reject> {
        if self.depth > MAX_DEPTH {
            return Err("too deep".to_owned());
        }
        self.depth += 1;
        let outer = self.buffered;
        self.buffered |= matches!(
            en.attrs.repr,
            EnumRepr::Untagged | EnumRepr::Internal { .. }
        ) || en.variants.iter().any(|v| v.untagged);
        let tagged = match &en.attrs.repr {
            EnumRepr::Untagged => Err("untagged".to_owned()),
            EnumRepr::External => self.decode_external(en, v),
            EnumRepr::Internal { tag } => self.decode_internal(en, tag, v),
            EnumRepr::Adjacent { tag, content } => self.decode_adjacent(en, (tag, content), v),
            EnumRepr::Integer { signed, bits } => decode_integer_enum(en, (*signed, *bits), v),
        };
        let result = match tagged {
            Ok(i) => Ok(i),
            Err(reason) => self.decode_untagged(en, v, reason),
        };
        self.buffered = outer;
        self.depth -= 1;
        result
    }

    /// Externally tagged: a bare tag for a unit variant, or an object of one key (the tag) holding the
    /// payload.
    fn decode_external(&mut self, en: &EnumDef, v: &Value) -> Result<usize, Reject> {
        let deny = en.attrs.deny_unknown_fields;
        match v {
            Value::String(s) => match by_tag(en, s) {
                // A bare tag is a unit variant to serde_json: a newtype, tuple or struct variant
                // rejects it, even one whose payload would accept null (`V(Option<T>)`).
                Some((i, var)) if var.style == Style::Unit => {
                    self.payload(var, deny, None).map(|_| i)
                }
                Some(_) => {
                    Err("invalid type: unit variant, expected a variant with data".to_owned())
                }
                None => Err(unknown_variant(s)),
            },
            Value::Object(m) if m.len() == 1 => {
                let (k, x) = m
                    .iter()
                    .next()
                    .map(|(k, x)| (k.clone(), x.clone()))
                    .unwrap_or_default();
                match by_tag(en, &k) {
                    Some((i, var)) => self.payload(var, deny, Some(&x)).map(|_| i),
                    None => Err(unknown_variant(&k)),
                }
            }
            Value::Number(n) if !self.buffered && self.side.format.enum_reads_variant_index() => {
                self.by_variant_index(en, n.as_u64(), v)
            }
            _ => invalid_type(v, "an enum"),
        }
    }

    /// A bare integer read as a variant's index (see `Codec::enum_reads_variant_index`): the derive
    /// counts the variants it reads by tag, and the one found must be a unit variant.
    fn by_variant_index(
        &mut self,
        en: &EnumDef,
        index: Option<u64>,
        v: &Value,
    ) -> Result<usize, Reject> {
        let Some(index) = index else {
            return invalid_type(v, "variant identifier");
        };
        let tagged: Vec<usize> = (0..en.variants.len())
            .filter(|&i| !en.variants[i].skip_de && !en.variants[i].untagged)
            .collect();
        let found = usize::try_from(index).ok().and_then(|at| tagged.get(at));
        match found {
            Some(&i) if en.variants[i].style == Style::Unit => self
                .payload(&en.variants[i], en.attrs.deny_unknown_fields, None)
                .map(|_| i),
            Some(_) => Err("invalid type: unit variant, expected a variant with data".to_owned()),
            None => Err(format!(
                "invalid value: integer `{index}`, expected variant index 0 <= i < {}",
                tagged.len()
            )),
        }
    }

    /// Internally tagged: an object with the tag key; the other keys are the payload.
    fn decode_internal(&mut self, en: &EnumDef, tag: &str, v: &Value) -> Result<usize, Reject> {
        let m = match v {
            Value::Object(m) => m,
            // `msgpack-compact` writes a struct variant as an array, the tag first; serde reads the tag
            // from a sequence's first element.
            Value::Array(items) if self.side.format.structs_as_arrays() => {
                let Some(Value::String(t)) = items.first() else {
                    return invalid_type(v, "an internally tagged enum");
                };
                let (i, var) = by_tag(en, t).ok_or_else(|| format!("unknown variant `{t}`"))?;
                if var.style == Style::Unit {
                    // serde's unit visitor leaves the sequence's other elements unread, which its
                    // buffered sequence then rejects.
                    return match items.len() - 1 {
                        0 => Ok(i),
                        more => Err(format!(
                            "invalid length {more}, expected 0 elements in sequence"
                        )),
                    };
                }
                let rest = Value::Array(items[1..].to_vec());
                return self
                    .payload(var, en.attrs.deny_unknown_fields, Some(&rest))
                    .map(|_| i);
            }
            _ => return invalid_type(v, "an internally tagged enum"),
        };
        match m.get(tag) {
            Some(Value::String(t)) => match by_tag(en, t) {
                Some((i, var)) if var.style == Style::Unit => Ok(i),
                Some((i, var)) => {
                    let mut rest = m.clone();
                    rest.remove(tag);
                    let rest = Value::Object(rest);
                    self.payload(var, en.attrs.deny_unknown_fields, Some(&rest))
                        .map(|_| i)
                }
                None => Err(unknown_variant(t)),
            },
            Some(other) => invalid_type(other, "a tag"),
            None => Err(format!("missing field `{tag}`")),
        }
    }

    /// Adjacently tagged: an object with the tag key and the content key.
    fn decode_adjacent(
        &mut self,
        en: &EnumDef,
        (tag, content): (&str, &str),
        v: &Value,
    ) -> Result<usize, Reject> {
        let deny = en.attrs.deny_unknown_fields;
        let Value::Object(m) = v else {
            return invalid_type(v, "an adjacently tagged enum");
        };
        match m.get(tag) {
            Some(Value::String(t)) => match by_tag(en, t) {
                Some((i, var)) => {
                    if deny && let Some(k) = m.keys().find(|k| *k != tag && *k != content) {
                        Err(format!("unknown field `{k}`"))
                    } else {
                        self.payload(var, deny, m.get(content)).map(|_| i)
                    }
                }
                None => Err(unknown_variant(t)),
            },
            Some(other) => invalid_type(other, "a tag"),
            None => Err(format!("missing field `{tag}`")),
        }
    }

    /// Untagged variants (all of an untagged enum's, or those marked untagged) are tried in order on
    /// the whole payload; `tagged` is why the tagged reading failed.
    fn decode_untagged(
        &mut self,
        en: &EnumDef,
        v: &Value,
        tagged: Reject,
    ) -> Result<usize, Reject> {
        let untagged_only = en.attrs.repr == EnumRepr::Untagged;
        for (i, var) in en.variants.iter().enumerate() {
            if var.skip_de || !(untagged_only || var.untagged) {
                continue;
            }
            let x = match (var.style, v) {
                (Style::Unit, Value::Null) => None,
                _ => Some(v),
            };
            self.untagged_variant = true;
            if self.payload(var, en.attrs.deny_unknown_fields, x).is_ok() {
                return Ok(i);
            }
        }
        if untagged_only {
            Err(format!(
                "data did not match any variant of untagged enum `{}`",
                en.attrs.ser_name
            ))
        } else {
            Err(tagged)
        }
    }
}

/// The integer an object key holds as serde_json reads an integer key (its `MapKey`): the key's
/// text is a JSON integer, a `-` or a digit first, no leading zero, nothing after it; `-0` is a
/// float to it. Rust's `parse` would take `+5` and `007` too.
fn json_integer(key: &str) -> Option<i128> {
    let digits = key.strip_prefix('-').unwrap_or(key);
    let json = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && key != "-0";
    json.then(|| key.parse().ok()).flatten()
}

/// How serde names a JSON value's type in errors.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "floating point",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "map",
    }
}

/// An integer within its type's range.
fn decode_integer(signed: bool, bits: u8, v: &Value) -> Result<(), Reject> {
    match (v, as_int(v)) {
        (Value::Number(_), Some(i)) => {
            let (lo, hi) = range(signed, bits);
            if i < lo || i > hi {
                Err(format!("invalid value: integer `{i}`, out of range"))
            } else {
                Ok(())
            }
        }
        _ => invalid_type(v, "an integer"),
    }
}

/// Decodes `v` as an enum written as integers of `(signed, bits)`, as serde_repr's `Deserialize_repr`
/// does: the `repr` integer first, then the variant of that discriminant, or else the `#[serde(other)]`
/// variant; the index of the variant it decodes as.
fn decode_integer_enum(
    en: &EnumDef,
    (signed, bits): (bool, u8),
    v: &Value,
) -> Result<usize, Reject> {
    decode_integer(signed, bits, v)?;
    let value = as_int(v).unwrap_or_default().to_string();
    en.variants
        .iter()
        .position(|x| x.de_names.contains(&value))
        .or_else(|| en.variants.iter().position(|x| x.other))
        .ok_or_else(|| {
            let known: Vec<&str> = en.variants.iter().map(|x| x.ser_name.as_str()).collect();
            format!(
                "invalid value: {value}, expected one of: {}",
                known.join(", ")
            )
        })
}

/// serde's rejection of a tag no variant has (`unknown variant `x``), the empty tag said as such rather
/// than as two backquotes.
fn unknown_variant(tag: &str) -> Reject {
    if tag.is_empty() {
        "unknown variant \"\" (the empty string is no variant's tag)".to_owned()
    } else {
        format!("unknown variant `{tag}`")
    }
}
