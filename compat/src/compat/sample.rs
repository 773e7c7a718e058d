//! Sample payloads a writer schema can produce: the minimal one (options null, collections empty,
//! conditionally skipped keys left out) and a fuller one (options and collections filled in).
//!
//! The same sampler writes the golden payloads of `wirecheck fixtures write` (see `golden`): in fixture
//! mode it can force enums to a given variant, put integers at the ends of their range, and refuses to invent
//! values it cannot know (types of other crates, custom serializers) instead of writing `null`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::codec::Codec;
use super::namespace::{FlatObject, flatten};
use super::shape::{EnumDef, Role, Shape, SideRef, resolve};
use super::witness::int_value;
use crate::model::{EnumRepr, Field, SkipSer, Style, Ty, TypeDef, Variant};

const MAX_SAMPLE_DEPTH: usize = 32;

/// Where the integers of a fixture's boundary case sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    /// Every integer at its type's maximum.
    Max,
    /// Signed integers at their minimum (unsigned ones keep their usual value).
    Min,
}

/// An enum met while sampling in fixture mode: its definition's path and its writable variants
/// (index into the definition's variants, Rust name).
#[derive(Debug, Clone)]
pub struct EnumSeen {
    pub path: String,
    pub variants: Vec<(usize, String)>,
}

/// What the fixture generator asks of a sampler, and what the sampler saw.
#[derive(Debug, Default)]
pub struct FixtureMode {
    /// Integers the writer can produce over their whole range take this extreme.
    pub boundary: Option<Extreme>,
    /// Enums (by definition path) written as this variant (index into the definition's variants)
    /// wherever it can be written.
    pub force: BTreeMap<String, usize>,
    /// Enums met, in the order they were first met.
    pub enums: Vec<EnumSeen>,
    /// Forced enums whose forced variant was written somewhere.
    pub hits: BTreeSet<String>,
    /// An integer whose whole range the writer can produce was met (signed, unsigned).
    pub ints: (bool, bool),
    /// What could not be written: types of other crates, unresolved types, custom serializers.
    pub opaque: BTreeSet<String>,
}

/// Builds sample values of a writer schema.
pub struct Sampler<'a> {
    side: SideRef<'a>,
    stack: Vec<Ty>,
    /// Fixture mode; `None` for the engine's witnesses.
    fixture: Option<FixtureMode>,
    /// When set, every integer, float, char and string takes the next value of this counter, so that
    /// values read from another field's bytes show as a misread.
    distinct: Option<u8>,
    /// The first type met whose values the sampler cannot know (an opaque type: no value is invented
    /// for it, so nothing that holds it has a sample).
    unknown: Option<String>,
    /// A minimal sample keeps the fields under `skip_serializing_if` (at their minimal value, which the
    /// usual predicates skip): the writer's value whose bytes leave them out.
    keep_skippable: bool,
}

impl<'a> Sampler<'a> {
    pub fn new(side: SideRef<'a>) -> Self {
        Sampler {
            side,
            stack: Vec::new(),
            fixture: None,
            distinct: None,
            unknown: None,
            keep_skippable: false,
        }
    }

    /// A sampler whose minimal samples keep the fields under `skip_serializing_if`, at their minimal
    /// value: the value a writer leaves them out of.
    pub fn keeping_skippable(side: SideRef<'a>) -> Self {
        Sampler {
            keep_skippable: true,
            ..Sampler::new(side)
        }
    }

    /// Why a value was left without a sample: the first type met whose shape is unknown, or
    /// a function that writes a value wirecheck cannot read, in words.
    pub fn unknown(&self) -> Option<&str> {
        self.unknown.as_deref()
    }

    /// A sampler whose scalars all differ (1, 2, 3, ...; `"b"`, `"c"`, ...): a witness for fields read
    /// in another order, which zeros everywhere would not show.
    pub fn distinct(side: SideRef<'a>) -> Self {
        Sampler {
            distinct: Some(0),
            ..Sampler::new(side)
        }
    }

    /// The next distinct number (1 to 100, small enough for every integer type), when distinct.
    fn next_distinct(&mut self) -> Option<u8> {
        let n = self.distinct.as_mut()?;
        *n = *n % 100 + 1;
        Some(*n)
    }

    /// A sampler in fixture mode.
    pub fn for_fixture(side: SideRef<'a>, mode: FixtureMode) -> Self {
        Sampler {
            side,
            stack: Vec::new(),
            fixture: Some(mode),
            distinct: None,
            unknown: None,
            keep_skippable: false,
        }
    }

    /// What the sampler saw in fixture mode (an empty record otherwise).
    pub fn into_fixture_mode(self) -> FixtureMode {
        self.fixture.unwrap_or_default()
    }

    /// Whether the field's value is written by a custom function the model does not read (another
    /// crate's, or one not found): no value of it is known to be written, so none is invented from
    /// the field's Rust type. The reason is noted (in fixture mode, and as [`Sampler::unknown`]).
    fn custom_blocks(&mut self, field: &Field) -> bool {
        let Some(function) = field.custom.as_ref().and_then(|c| c.ser.as_ref()) else {
            return false;
        };
        self.unknown.get_or_insert_with(|| {
            format!(
                "`{}` is written by `{function}`, which wirecheck cannot read, and no value is sampled through it",
                field.rust_name
            )
        });
        if let Some(fx) = &mut self.fixture {
            fx.opaque.insert(format!(
                "field `{}` is written by `{function}`, which wirecheck cannot run",
                field.rust_name
            ));
        }
        true
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
        let resolved = resolve(self.side, ty, Role::Writer);
        // A proxy (`into` / `from`) means the writer only produces what a conversion gives: the range of
        // the proxy type says nothing about it.
        let proxied = resolved
            .def
            .is_some_and(|d| d.attrs.into.is_some() || d.attrs.from.is_some());
        let def_path = match (&self.fixture, resolved.def) {
            (Some(_), Some(d)) => Some(d.path.clone()),
            _ => None,
        };
        if resolved
            .def
            .is_some_and(|def| self.validated_by_try_from(def))
        {
            return None;
        }
        if let Some(v) = self.distinct_scalar(&resolved.shape) {
            return Some(v);
        }
        Some(match resolved.shape {
            Shape::Bool => Value::Bool(full),
            Shape::Char => json!("a"),
            Shape::Str => json!(if full { "x" } else { "" }),
            Shape::Int { signed, bits } => self.integer(signed, bits, full, proxied),
            Shape::Float { .. } => json!(if full { 0.5 } else { 0.0 }),
            shape @ (Shape::External(..) | Shape::Unresolved(_) | Shape::Refined(_)) => {
                return self.unseen_value(shape);
            }
            Shape::Bytes => Value::Array(if full { vec![json!(1)] } else { Vec::new() }),
            // Only readers are choices; a writer writes the choice's `writes` type.
            Shape::Choice(_) => return None,
            Shape::Unit => Value::Null,
            Shape::Value => {
                if full {
                    json!({"x": 1})
                } else {
                    Value::Null
                }
            }
            shape @ (Shape::Option(_)
            | Shape::Seq(..)
            | Shape::Array(..)
            | Shape::Tuple(..)
            | Shape::Map(..)) => return self.container_value(shape, full),
            Shape::Struct(obj) => return self.struct_value(&obj, full),
            Shape::Enum(en) => return self.enum_value(def_path.as_deref(), &en, full),
        })
    }

    /// For a witness: whether `def` is written through `into` from values its fallible `try_from`
    /// accepted, a part of the proxy type's values that wirecheck cannot see, so that none is invented
    /// (and why is kept). Golden fixtures keep the proxy's usual value: the skew test decodes them with
    /// the real types, which is how a rejected one is found.
    fn validated_by_try_from(&mut self, def: &crate::model::TypeDef) -> bool {
        if self.fixture.is_some() || !writes_validated(def) {
            return false;
        }
        self.unknown.get_or_insert_with(|| {
            format!(
                "`{}` is written through `into` from values its fallible `try_from` accepts, which wirecheck cannot run, and no value of it is invented",
                def.path
            )
        });
        true
    }

    /// A value of a type wirecheck cannot see into (none: no release is known to write any particular
    /// value of it), or of a refined one (the domain's sample, when it has one).
    fn unseen_value(&mut self, shape: Shape) -> Option<Value> {
        match shape {
            Shape::Refined(refined) => {
                let sample = refined.sample_value();
                if sample.is_none() {
                    self.unknown.get_or_insert_with(|| {
                        unknown_shape(&format!("{} ({})", refined.base, refined.domain))
                    });
                }
                sample
            }
            Shape::External(p, ..) | Shape::Unresolved(p) => {
                if let Some(fx) = &mut self.fixture {
                    fx.opaque.insert(format!(
                        "a value of `{p}` is needed, and wirecheck cannot see into that type"
                    ));
                }
                self.unknown.get_or_insert_with(|| unknown_shape(&p));
                None
            }
            _ => None,
        }
    }

    /// A value of an option, a sequence, an array, a tuple or a map (`full`: with an element).
    fn container_value(&mut self, shape: Shape, full: bool) -> Option<Value> {
        Some(match shape {
            Shape::Option(inner) if full => self.value(&inner, true).unwrap_or(Value::Null),
            Shape::Option(_) => Value::Null,
            Shape::Seq(_, elem) if full => match self.value(&elem, true) {
                Some(v) => Value::Array(vec![v]),
                None => Value::Array(Vec::new()),
            },
            Shape::Seq(..) => Value::Array(Vec::new()),
            Shape::Array(_, 0) => Value::Array(Vec::new()),
            Shape::Array(elem, len) => {
                let v = self.value(&elem, full)?;
                Value::Array(vec![v; usize::try_from(len.min(64)).unwrap_or(64)])
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
            _ => return None,
        })
    }

    /// A struct's value: an object, or in `msgpack-compact` the array of its fields (its own `tag`
    /// first, as serde writes it).
    fn struct_value(&mut self, obj: &super::shape::StructDef, full: bool) -> Option<Value> {
        let flat = flatten(self.side, Role::Writer, &obj.fields, &obj.attrs);
        if let Some(items) = self.compact_array(&obj.fields, full) {
            return match (items, &flat.tag) {
                (Some(Value::Array(mut items)), Some(tag)) => {
                    items.insert(0, json!(tag.value));
                    Some(Value::Array(items))
                }
                (items, _) => items,
            };
        }
        Some(Value::Object(self.object(&flat, full)?))
    }

    /// In `msgpack-compact`, the array a struct's (or a struct variant's) `fields` are written as: every
    /// field not always skipped, in order (one that may be skipped is in the value; the writer's bytes
    /// leave it out when it is). `None` in other formats, and for a struct with a flattened field (a map
    /// there too); `Some(None)` when a field has no sample.
    fn compact_array(&mut self, fields: &[Field], full: bool) -> Option<Option<Value>> {
        if !self.side.format.structs_as_arrays() || fields.iter().any(|f| f.flatten) {
            return None;
        }
        let mut items = Vec::new();
        for field in fields.iter().filter(|f| f.skip_ser != SkipSer::Always) {
            if self.custom_blocks(field) {
                return Some(None);
            }
            match self.value(&field.ty, full) {
                Some(v) => items.push(v),
                None => return Some(None),
            }
        }
        Some(Some(Value::Array(items)))
    }

    /// In distinct mode, a scalar's next distinct value.
    fn distinct_scalar(&mut self, shape: &Shape) -> Option<Value> {
        if !matches!(
            shape,
            Shape::Int { .. } | Shape::Float { .. } | Shape::Char | Shape::Str
        ) {
            return None;
        }
        let n = self.next_distinct()?;
        Some(match shape {
            Shape::Int { .. } => json!(n),
            Shape::Float { .. } => json!(f64::from(n) + 0.5),
            _ => json!(char::from(b'a' + n % 26).to_string()),
        })
    }

    /// An integer: 0 or 1, or in fixture mode at the extreme asked for (unless a proxy converts it, or
    /// it is wider than JSON's numbers).
    fn integer(&mut self, signed: bool, bits: u8, full: bool, proxied: bool) -> Value {
        let usual = json!(if full { 1 } else { 0 });
        let Some(fx) = &mut self.fixture else {
            return usual;
        };
        if proxied || bits > 64 {
            return usual;
        }
        if signed {
            fx.ints.0 = true;
        } else {
            fx.ints.1 = true;
        }
        let shift = 64 - u32::from(bits);
        match (fx.boundary, signed) {
            (Some(Extreme::Max), true) => json!(i64::MAX >> shift),
            (Some(Extreme::Max), false) => json!(u64::MAX >> shift),
            (Some(Extreme::Min), true) => json!(i64::MIN >> shift),
            _ => usual,
        }
    }

    /// A value of an enum: the forced variant in fixture mode, else the first writable variant.
    fn enum_value(&mut self, def_path: Option<&str>, en: &EnumDef, full: bool) -> Option<Value> {
        if let Some(x) = self.forced_variant(def_path, en, full) {
            return Some(x);
        }
        let variants: Vec<Variant> = en
            .variants
            .iter()
            .filter(|v| !v.skip_ser)
            .cloned()
            .collect();
        variants.iter().find_map(|v| self.variant(en, v, full))
    }

    /// In fixture mode: notes the enum as met, and writes the variant it is forced to when there is one
    /// and it can be written.
    fn forced_variant(&mut self, path: Option<&str>, en: &EnumDef, full: bool) -> Option<Value> {
        let path = path?;
        let side = self.side;
        let fx = self.fixture.as_mut()?;
        if !fx.enums.iter().any(|e| e.path == path) {
            let variants = en
                .variants
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.skip_ser && writable(side, &en.attrs.repr, v))
                .map(|(i, v)| (i, v.rust_name.clone()))
                .collect();
            fx.enums.push(EnumSeen {
                path: path.to_owned(),
                variants,
            });
        }
        let v = en.variants.get(*fx.force.get(path)?)?.clone();
        let x = self.variant(en, &v, full)?;
        if let Some(fx) = &mut self.fixture {
            fx.hits.insert(path.to_owned());
        }
        Some(x)
    }

    /// The object a flattened namespace writes.
    pub fn object(&mut self, flat: &FlatObject, full: bool) -> Option<Map<String, Value>> {
        let mut m = Map::new();
        if let Some(tag) = &flat.tag {
            m.insert(tag.key.clone(), json!(tag.value));
        }
        for f in &flat.fields {
            let skippable = matches!(f.field.skip_ser, SkipSer::If(_)) && !self.keep_skippable;
            if !full && (f.optional_parent || skippable) {
                continue;
            }
            if self.custom_blocks(&f.field) {
                return None;
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
            && let Some(map) = &flat.map
            && let (Some(k), Some(v)) = (self.value(&map.key, true), self.value(&map.value, true))
        {
            let key = format!("extra_{}", key_string(&k));
            m.entry(key).or_insert(v);
        }
        Some(m)
    }

    /// The payload of a variant: `Some(None)` for a unit variant.
    pub fn payload(&mut self, v: &Variant, full: bool) -> Option<Option<Value>> {
        if let Some(f) = v.custom.as_ref().and_then(|c| c.ser.as_ref()) {
            self.unknown.get_or_insert_with(|| {
                format!(
                    "the variant `{}` is written by `{f}`, which wirecheck cannot read, and no value is sampled through it",
                    v.rust_name
                )
            });
            if let Some(fx) = &mut self.fixture {
                fx.opaque.insert(format!(
                    "variant `{}` is written by `{f}`, which wirecheck cannot run",
                    v.rust_name
                ));
            }
            return None;
        }
        // Named variants go through `object`, which checks their written fields.
        if v.style == Style::Tuple
            && v.fields
                .iter()
                .filter(|f| f.skip_ser != SkipSer::Always)
                .any(|f| self.custom_blocks(f))
        {
            return None;
        }
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
                if let Some(items) = self.compact_array(&v.fields, full) {
                    return items.map(Some);
                }
                let attrs = crate::model::ContainerAttrs::default();
                let flat = flatten(self.side, Role::Writer, &v.fields, &attrs);
                Some(Some(Value::Object(self.object(&flat, full)?)))
            }
        }
    }

    /// A value of one variant of an enum.
    pub fn variant(&mut self, en: &EnumDef, v: &Variant, full: bool) -> Option<Value> {
        if !writable(self.side, &en.attrs.repr, v) {
            return None;
        }
        if self.side.format.structs_as_arrays()
            && matches!(en.attrs.repr, EnumRepr::Internal { .. })
            && v.style == Style::Unit
            && !v.untagged
        {
            // serde writes it as a struct of one field, the tag: in `msgpack-compact`, `[tag]`.
            return Some(Value::Array(vec![json!(v.ser_name)]));
        }
        let payload = self.payload(v, full)?;
        wrap_variant(&en.attrs.repr, v, payload)
    }
}

/// Whether serde can write the variant at all: an internally tagged newtype variant only holds a struct,
/// a map or a unit (anything else is an error when serializing).
pub fn writable(side: SideRef<'_>, repr: &EnumRepr, v: &Variant) -> bool {
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
pub fn wrap_variant(repr: &EnumRepr, v: &Variant, payload: Option<Value>) -> Option<Value> {
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
                // `msgpack-compact` writes a struct payload as an array, the tag first.
                Some(Value::Array(items)) if v.style == Style::Named || v.fields.len() == 1 => {
                    let mut out = vec![json!(v.ser_name)];
                    out.extend(items);
                    return Some(Value::Array(out));
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
        (EnumRepr::Integer { .. }, _) => integer_variant_value(v),
    })
}

/// How a value is written as a JSON object key.
pub fn key_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The value serde_repr writes for a variant: its discriminant as a number.
pub fn integer_variant_value(variant: &Variant) -> Value {
    variant
        .ser_name
        .parse::<i128>()
        .ok()
        .and_then(int_value)
        .unwrap_or_else(|| Value::String(variant.ser_name.clone()))
}

/// Whether `def` is written through an `into` proxy and read through a fallible `try_from`: a type
/// that validates its values (`try_from = "String", into = "String"`, accepting only hex digits),
/// whose writer writes only what `into` makes of a valid one.
fn writes_validated(def: &TypeDef) -> bool {
    def.attrs.into.is_some() && def.attrs.from.as_ref().is_some_and(|from| from.fallible)
}

/// Why no value of the type named `name` is sampled: its wire shape is unknown.
fn unknown_shape(name: &str) -> String {
    format!(
        "the wire shape of `{name}` is unknown to wirecheck, and no value of it is invented; declare it \
         with `#[wire(as = T)]` on the type, or under `[shapes]` in wirecheck.toml for a type of \
         another crate"
    )
}
