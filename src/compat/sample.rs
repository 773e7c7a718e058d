//! Sample payloads a writer schema can produce: the minimal one (options null, collections empty,
//! conditionally skipped keys left out) and a fuller one (options and collections filled in).

use serde_json::{Map, Value, json};

use super::resolve::{FlatObj, Role, Shape, SideRef, flatten, resolve};
use crate::model::{EnumRepr, SkipSer, Style, Ty, Variant};

use super::resolve::EnumDef;

const MAX_SAMPLE_DEPTH: usize = 32;

/// Builds sample values of a writer schema.
pub(crate) struct Sampler<'a> {
    side: SideRef<'a>,
    stack: Vec<Ty>,
}

impl<'a> Sampler<'a> {
    pub fn new(side: SideRef<'a>) -> Self {
        Sampler {
            side,
            stack: Vec::new(),
        }
    }

    /// A value of `ty`, or `None` when every value of it goes through a cycle (or is too deep).
    pub fn value(&mut self, ty: &Ty, full: bool) -> Option<Value> {
        if self.stack.len() > MAX_SAMPLE_DEPTH || self.stack.contains(ty) {
            return None;
        }
        self.stack.push(ty.clone());
        let v = self.value_inner(ty, full);
        self.stack.pop();
        v
    }

    fn value_inner(&mut self, ty: &Ty, full: bool) -> Option<Value> {
        Some(match resolve(self.side, ty, Role::Writer).shape {
            Shape::Bool => Value::Bool(full),
            Shape::Char => json!("a"),
            Shape::Str => json!(if full { "x" } else { "" }),
            Shape::Int { .. } => json!(if full { 1 } else { 0 }),
            Shape::Float { .. } => json!(if full { 0.5 } else { 0.0 }),
            Shape::Unit | Shape::External(_) | Shape::Unresolved(_) => Value::Null,
            Shape::Value => {
                if full {
                    json!({"x": 1})
                } else {
                    Value::Null
                }
            }
            Shape::Option(inner) => {
                if full {
                    self.value(&inner, true).unwrap_or(Value::Null)
                } else {
                    Value::Null
                }
            }
            Shape::Seq(_, elem) => {
                if full {
                    match self.value(&elem, true) {
                        Some(v) => Value::Array(vec![v]),
                        None => Value::Array(Vec::new()),
                    }
                } else {
                    Value::Array(Vec::new())
                }
            }
            Shape::Array(elem, len) => {
                if len == 0 {
                    Value::Array(Vec::new())
                } else {
                    let v = self.value(&elem, full)?;
                    Value::Array(vec![v; usize::try_from(len.min(64)).unwrap_or(64)])
                }
            }
            Shape::Tuple(elems, _) => {
                let mut out = Vec::new();
                for e in &elems {
                    out.push(self.value(e, full)?);
                }
                Value::Array(out)
            }
            Shape::Map(k, v) => {
                let mut m = Map::new();
                if full && let (Some(k), Some(v)) = (self.value(&k, true), self.value(&v, true)) {
                    m.insert(key_string(&k), v);
                }
                Value::Object(m)
            }
            Shape::Struct(obj) => {
                let flat = flatten(self.side, Role::Writer, &obj.fields, &obj.attrs);
                Value::Object(self.obj(&flat, full)?)
            }
            Shape::Enum(en) => {
                let variants: Vec<Variant> = en
                    .variants
                    .iter()
                    .filter(|v| !v.skip_ser)
                    .cloned()
                    .collect();
                let mut found = None;
                for v in &variants {
                    if let Some(x) = self.variant(&en, v, full) {
                        found = Some(x);
                        break;
                    }
                }
                found?
            }
        })
    }

    /// The object a flattened namespace writes.
    pub fn obj(&mut self, flat: &FlatObj, full: bool) -> Option<Map<String, Value>> {
        let mut m = Map::new();
        if let Some((k, v)) = &flat.tag {
            m.insert(k.clone(), json!(v));
        }
        for f in &flat.fields {
            if !full && (f.optional_parent || matches!(f.field.skip_ser, SkipSer::If(_))) {
                continue;
            }
            let v = self.value(&f.field.ty, full)?;
            m.insert(f.key().to_owned(), v);
        }
        for f in &flat.enums {
            if !full && f.optional_parent {
                continue;
            }
            let mut ty = &f.field.ty;
            if let Ty::Option { inner } = ty {
                ty = inner;
            }
            if let Some(Value::Object(e)) = self.value(ty, full) {
                m.extend(e);
            }
        }
        if full
            && let Some((k, v, _)) = &flat.rest
            && let (Some(k), Some(v)) = (self.value(k, true), self.value(v, true))
        {
            let key = format!("extra_{}", key_string(&k));
            m.entry(key).or_insert(v);
        }
        Some(m)
    }

    /// The payload of a variant: `Some(None)` for a unit variant.
    pub fn payload(&mut self, v: &Variant, full: bool) -> Option<Option<Value>> {
        match v.style {
            Style::Unit => Some(None),
            Style::Tuple if v.fields.len() == 1 => Some(Some(self.value(&v.fields[0].ty, full)?)),
            Style::Tuple => {
                let mut out = Vec::new();
                for f in v.fields.iter().filter(|f| f.skip_ser != SkipSer::Always) {
                    out.push(self.value(&f.ty, full)?);
                }
                Some(Some(Value::Array(out)))
            }
            Style::Named => {
                let attrs = crate::model::ContainerAttrs::default();
                let flat = flatten(self.side, Role::Writer, &v.fields, &attrs);
                Some(Some(Value::Object(self.obj(&flat, full)?)))
            }
        }
    }

    /// A value of one variant of an enum.
    pub fn variant(&mut self, en: &EnumDef, v: &Variant, full: bool) -> Option<Value> {
        if !writable(self.side, &en.attrs.repr, v) {
            return None;
        }
        let payload = self.payload(v, full)?;
        wrap_variant(&en.attrs.repr, v, payload)
    }
}

/// Whether serde can write the variant at all: an internally tagged newtype variant only holds a struct,
/// a map or a unit (anything else is an error when serializing).
pub(crate) fn writable(side: SideRef<'_>, repr: &EnumRepr, v: &Variant) -> bool {
    if !matches!(repr, EnumRepr::Internal { .. }) || v.untagged || v.style != Style::Tuple {
        return true;
    }
    match v.fields.as_slice() {
        [field] => matches!(
            resolve(side, &field.ty, Role::Writer).shape,
            Shape::Struct(_) | Shape::Map(..) | Shape::Unit | Shape::Value
        ),
        _ => true,
    }
}

/// Writes a variant's payload in the enum's representation; `None` when serde cannot (an internally
/// tagged newtype variant holding something other than an object).
pub(crate) fn wrap_variant(repr: &EnumRepr, v: &Variant, payload: Option<Value>) -> Option<Value> {
    let name = json!(v.ser_name);
    if v.untagged {
        return Some(payload.unwrap_or(Value::Null));
    }
    Some(match (repr, payload) {
        (EnumRepr::External, None) => name,
        (EnumRepr::External, Some(p)) => {
            let mut m = Map::new();
            m.insert(v.ser_name.clone(), p);
            Value::Object(m)
        }
        (EnumRepr::Internal { tag }, p) => {
            let mut m = Map::new();
            m.insert(tag.clone(), name);
            match p {
                None | Some(Value::Null) => {}
                Some(Value::Object(o)) => {
                    for (k, x) in o {
                        m.entry(k).or_insert(x);
                    }
                }
                Some(_) => return None,
            }
            Value::Object(m)
        }
        (EnumRepr::Adjacent { tag, content }, p) => {
            let mut m = Map::new();
            m.insert(tag.clone(), name);
            if let Some(p) = p {
                m.insert(content.clone(), p);
            }
            Value::Object(m)
        }
        (EnumRepr::Untagged, p) => p.unwrap_or(Value::Null),
    })
}

/// How a value is written as a JSON object key.
pub(crate) fn key_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
