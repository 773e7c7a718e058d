//! A model of serde_json deserialization into a reader schema: decides whether a concrete payload is
//! accepted and, for enums, which variant it decodes as. Used to check witnesses and to decide untagged
//! enums, whose first matching variant wins.

use serde_json::{Map, Value};

use super::namespace::{FlatObject, flatten};
use super::shape::{EnumDef, MAX_DEPTH, Role, Shape, SideRef, resolve};
use crate::model::{ContainerAttrs, EnumRepr, Style, Ty, Variant};

/// Why a payload is rejected.
pub(crate) type Reject = String;

/// Simulates a reader schema.
pub(crate) struct Decoder<'a> {
    side: SideRef<'a>,
    depth: usize,
}

fn int_range(signed: bool, bits: u8) -> (i128, i128) {
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

/// The range of an integer type (u128's top half is clipped to i128::MAX).
pub(crate) fn range(signed: bool, bits: u8) -> (i128, i128) {
    int_range(signed, bits)
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

impl<'a> Decoder<'a> {
    pub fn new(side: SideRef<'a>) -> Self {
        Decoder { side, depth: 0 }
    }

    /// Whether `v` decodes into `ty`.
    pub fn decode(&mut self, ty: &Ty, v: &Value) -> Result<(), Reject> {
        if self.depth > MAX_DEPTH {
            return Ok(());
        }
        self.depth += 1;
        let r = self.decode_inner(ty, v);
        self.depth -= 1;
        r
    }

    fn decode_inner(&mut self, ty: &Ty, v: &Value) -> Result<(), Reject> {
        let bad = |what: &str| Err(format!("invalid type: {}, expected {what}", kind_of(v)));
        match resolve(self.side, ty, Role::Reader).shape {
            Shape::Value | Shape::External(_) | Shape::Unresolved(_) => Ok(()),
            Shape::Bool => match v {
                Value::Bool(_) => Ok(()),
                _ => bad("a boolean"),
            },
            Shape::Char => match v {
                Value::String(s) if s.chars().count() == 1 => Ok(()),
                _ => bad("a character"),
            },
            Shape::Str => match v {
                Value::String(_) => Ok(()),
                _ => bad("a string"),
            },
            Shape::Int { signed, bits } => match (v, as_int(v)) {
                (Value::Number(_), Some(i)) => {
                    let (lo, hi) = int_range(signed, bits);
                    if i < lo || i > hi {
                        Err(format!("invalid value: integer `{i}`, out of range"))
                    } else {
                        Ok(())
                    }
                }
                _ => bad("an integer"),
            },
            Shape::Float { .. } => match v {
                Value::Number(_) => Ok(()),
                _ => bad("a number"),
            },
            Shape::Unit => match v {
                Value::Null => Ok(()),
                _ => bad("null"),
            },
            Shape::Option(inner) => match v {
                Value::Null => Ok(()),
                _ => self.decode(&inner, v),
            },
            Shape::Seq(_, elem) => match v {
                Value::Array(a) => a.iter().try_for_each(|x| self.decode(&elem, x)),
                _ => bad("a sequence"),
            },
            Shape::Array(elem, len) => match v {
                Value::Array(a) if a.len() as u64 == len => {
                    a.iter().try_for_each(|x| self.decode(&elem, x))
                }
                Value::Array(a) => Err(format!("invalid length {}, expected {len}", a.len())),
                _ => bad("an array"),
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
                _ => bad("a tuple"),
            },
            Shape::Map(k, val) => match v {
                Value::Object(m) => m.iter().try_for_each(|(key, x)| {
                    self.decode_key(&k, key)?;
                    self.decode(&val, x)
                }),
                _ => bad("a map"),
            },
            Shape::Struct(obj) => {
                let flat = flatten(self.side, Role::Reader, &obj.fields, &obj.attrs);
                self.decode_obj(&flat, v)
            }
            Shape::Enum(en) => self.decode_enum(&en, v).map(|_| ()),
        }
    }

    /// Whether a JSON object key decodes as a map key of type `ty`.
    pub fn decode_key(&mut self, ty: &Ty, key: &str) -> Result<(), Reject> {
        match resolve(self.side, ty, Role::Reader).shape {
            Shape::Str | Shape::Value | Shape::External(_) | Shape::Unresolved(_) => Ok(()),
            Shape::Char if key.chars().count() == 1 => Ok(()),
            Shape::Bool if key == "true" || key == "false" => Ok(()),
            Shape::Int { signed, bits } => {
                let (lo, hi) = int_range(signed, bits);
                match key.parse::<i128>() {
                    Ok(i) if i >= lo && i <= hi => Ok(()),
                    _ => Err(format!("invalid map key `{key}`, expected an integer")),
                }
            }
            Shape::Enum(en) => self
                .decode_enum(&en, &Value::String(key.to_owned()))
                .map(|_| ()),
            _ => Err(format!("unsupported map key `{key}`")),
        }
    }

    /// Whether an object decodes into a flattened namespace.
    pub fn decode_obj(&mut self, flat: &FlatObject, v: &Value) -> Result<(), Reject> {
        let m = match v {
            Value::Object(m) => m,
            Value::Array(a) if flat.enums.is_empty() && flat.map.is_none() => {
                // serde_json also reads a struct from an array, field by field.
                if a.len() > flat.fields.len() {
                    return Err(format!("invalid length {}", a.len()));
                }
                for (i, f) in flat.fields.iter().enumerate() {
                    match a.get(i) {
                        Some(x) if f.field.custom.is_none() => self.decode(&f.field.ty, x)?,
                        Some(_) => {}
                        None if f.field.default || f.container_default => {}
                        None => return Err(format!("invalid length {}", a.len())),
                    }
                }
                return Ok(());
            }
            _ => return Err(format!("invalid type: {}, expected a struct", kind_of(v))),
        };
        let mut rest: Map<String, Value> = m.clone();
        for f in &flat.fields {
            let found = f
                .field
                .de_names
                .iter()
                .find_map(|n| rest.remove(n).map(|x| (n.clone(), x)));
            match found {
                Some((_, x)) => {
                    if f.field.custom.as_ref().is_some_and(|c| c.de.is_some()) {
                        continue;
                    }
                    if f.optional_parent {
                        // A flattened `Option<Struct>` that fails to decode becomes None.
                        continue;
                    }
                    self.decode(&f.field.ty, &x)
                        .map_err(|e| format!("field `{}`: {e}", f.key()))?;
                }
                None if f.tolerates_absence() => {}
                None => return Err(format!("missing field `{}`", f.key())),
            }
        }
        for f in &flat.enums {
            let mut ty = f.field.ty.clone();
            let optional = if let Ty::Option { inner } = &ty {
                ty = (**inner).clone();
                true
            } else {
                f.optional_parent
            };
            let Shape::Enum(en) = resolve(self.side, &ty, Role::Reader).shape else {
                continue;
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
            if let Err(e) = result
                && !optional
            {
                return Err(e);
            }
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

    fn payload(&mut self, v: &Variant, deny: bool, x: Option<&Value>) -> Result<(), Reject> {
        if v.custom.as_ref().is_some_and(|c| c.de.is_some()) {
            return Ok(());
        }
        match v.style {
            Style::Unit => match x {
                None | Some(Value::Null) => Ok(()),
                Some(other) => Err(format!("invalid type: {}, expected unit", kind_of(other))),
            },
            Style::Tuple if v.fields.len() == 1 => {
                self.decode(&v.fields[0].ty, x.unwrap_or(&Value::Null))
            }
            Style::Tuple => {
                let tys: Vec<Ty> = v
                    .fields
                    .iter()
                    .filter(|f| !f.skip_de)
                    .map(|f| f.ty.clone())
                    .collect();
                match x {
                    Some(Value::Array(a)) if a.len() == tys.len() => {
                        a.iter().zip(&tys).try_for_each(|(x, t)| self.decode(t, x))
                    }
                    Some(other) => Err(format!(
                        "invalid type: {}, expected a tuple of {}",
                        kind_of(other),
                        tys.len()
                    )),
                    None => Err("missing tuple payload".to_owned()),
                }
            }
            Style::Named => {
                let attrs = ContainerAttrs {
                    deny_unknown_fields: deny,
                    ..ContainerAttrs::default()
                };
                let flat = flatten(self.side, Role::Reader, &v.fields, &attrs);
                self.decode_obj(&flat, x.unwrap_or(&Value::Null))
            }
        }
    }

    fn by_tag<'e>(en: &'e EnumDef, tag: &str) -> Option<(usize, &'e Variant)> {
        en.variants
            .iter()
            .enumerate()
            .find(|(_, v)| {
                !v.skip_de && !v.untagged && !v.other && v.de_names.iter().any(|n| n == tag)
            })
            .or_else(|| {
                en.variants
                    .iter()
                    .enumerate()
                    .find(|(_, v)| v.other && !v.skip_de)
            })
    }

    /// Decodes `v` as the enum; the index of the variant it decodes as.
    pub fn decode_enum(&mut self, en: &EnumDef, v: &Value) -> Result<usize, Reject> {
        if self.depth > MAX_DEPTH {
            return Err("too deep".to_owned());
        }
        self.depth += 1;
        let r = self.decode_enum_inner(en, v);
        self.depth -= 1;
        r
    }

    fn decode_enum_inner(&mut self, en: &EnumDef, v: &Value) -> Result<usize, Reject> {
        let deny = en.attrs.deny_unknown_fields;
        let tagged = match &en.attrs.repr {
            EnumRepr::Untagged => Err("untagged".to_owned()),
            EnumRepr::External => match v {
                Value::String(s) => match Self::by_tag(en, s) {
                    // A bare tag is a unit variant to serde_json: a newtype, tuple or struct variant
                    // rejects it, even one whose payload would accept null (`V(Option<T>)`).
                    Some((i, var)) if var.style == Style::Unit => {
                        self.payload(var, deny, None).map(|_| i)
                    }
                    Some(_) => {
                        Err("invalid type: unit variant, expected a variant with data".to_owned())
                    }
                    None => Err(format!("unknown variant `{s}`")),
                },
                Value::Object(m) if m.len() == 1 => {
                    let (k, x) = m
                        .iter()
                        .next()
                        .map(|(k, x)| (k.clone(), x.clone()))
                        .unwrap_or_default();
                    match Self::by_tag(en, &k) {
                        Some((i, var)) => self.payload(var, deny, Some(&x)).map(|_| i),
                        None => Err(format!("unknown variant `{k}`")),
                    }
                }
                _ => Err(format!("invalid type: {}, expected an enum", kind_of(v))),
            },
            EnumRepr::Internal { tag } => match v {
                Value::Object(m) => match m.get(tag) {
                    Some(Value::String(t)) => match Self::by_tag(en, t) {
                        Some((i, var)) => {
                            let mut rest = m.clone();
                            rest.remove(tag);
                            let rest = Value::Object(rest);
                            match var.style {
                                Style::Unit => Ok(i),
                                _ => self.payload(var, deny, Some(&rest)).map(|_| i),
                            }
                        }
                        None => Err(format!("unknown variant `{t}`")),
                    },
                    Some(other) => Err(format!("invalid type: {}, expected a tag", kind_of(other))),
                    None => Err(format!("missing field `{tag}`")),
                },
                _ => Err(format!(
                    "invalid type: {}, expected an internally tagged enum",
                    kind_of(v)
                )),
            },
            EnumRepr::Adjacent { tag, content } => match v {
                Value::Object(m) => match m.get(tag) {
                    Some(Value::String(t)) => match Self::by_tag(en, t) {
                        Some((i, var)) => {
                            if deny && let Some(k) = m.keys().find(|k| *k != tag && *k != content) {
                                Err(format!("unknown field `{k}`"))
                            } else {
                                self.payload(var, deny, m.get(content)).map(|_| i)
                            }
                        }
                        None => Err(format!("unknown variant `{t}`")),
                    },
                    Some(other) => Err(format!("invalid type: {}, expected a tag", kind_of(other))),
                    None => Err(format!("missing field `{tag}`")),
                },
                _ => Err(format!(
                    "invalid type: {}, expected an adjacently tagged enum",
                    kind_of(v)
                )),
            },
        };
        if tagged.is_ok() {
            return tagged;
        }
        let untagged_only = en.attrs.repr == EnumRepr::Untagged;
        for (i, var) in en.variants.iter().enumerate() {
            if var.skip_de || !(untagged_only || var.untagged) {
                continue;
            }
            let x = match (var.style, v) {
                (Style::Unit, Value::Null) => None,
                _ => Some(v),
            };
            if self.payload(var, deny, x).is_ok() {
                return Ok(i);
            }
        }
        match tagged {
            Err(e) if !untagged_only => Err(e),
            _ => Err(format!(
                "data did not match any variant of untagged enum `{}`",
                en.attrs.ser_name
            )),
        }
    }
}

/// How serde names a JSON value's type in errors.
pub(crate) fn kind_of(v: &Value) -> &'static str {
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
