//! Sample payloads a writer schema can produce: the minimal one (options null, collections empty,
//! conditionally skipped keys left out) and a fuller one (options and collections filled in).
//!
//! The same sampler writes the golden payloads of `wirecheck fixtures write` ([`fixture_cases`]): in fixture
//! mode it can force enums to a given variant, put integers at the ends of their range, and refuses to invent
//! values it cannot know (types of other crates, custom serializers) instead of writing `null`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value, json};

use super::namespace::{FlatObject, flatten};
use super::shape::{EnumDef, Role, Shape, SideRef, resolve};
use crate::findings::Side;
use crate::model::{EnumRepr, Field, MessageDecl, SkipSer, Snapshot, Style, Ty, Variant};

const MAX_SAMPLE_DEPTH: usize = 32;

/// At most this many cases per message in a fixture file (enums with very many variants, nested).
const MAX_FIXTURE_CASES: usize = 512;

/// Where the integers of a fixture's boundary case sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extreme {
    /// Every integer at its type's maximum.
    Max,
    /// Signed integers at their minimum (unsigned ones keep their usual value).
    Min,
}

/// An enum met while sampling in fixture mode: its definition's path and its writable variants
/// (index into the definition's variants, Rust name).
#[derive(Debug, Clone)]
pub(crate) struct EnumSeen {
    pub path: String,
    pub variants: Vec<(usize, String)>,
}

/// What the fixture generator asks of a sampler, and what the sampler saw.
#[derive(Debug, Default)]
pub(crate) struct FixtureMode {
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
pub(crate) struct Sampler<'a> {
    side: SideRef<'a>,
    stack: Vec<Ty>,
    /// Fixture mode; `None` for the engine's witnesses.
    fixture: Option<FixtureMode>,
}

impl<'a> Sampler<'a> {
    pub fn new(side: SideRef<'a>) -> Self {
        Sampler {
            side,
            stack: Vec::new(),
            fixture: None,
        }
    }

    /// A sampler in fixture mode.
    pub fn for_fixture(side: SideRef<'a>, mode: FixtureMode) -> Self {
        Sampler {
            side,
            stack: Vec::new(),
            fixture: Some(mode),
        }
    }

    /// In fixture mode: `None` (and the reason noted) when the field's value is written by a custom
    /// function, which the schema cannot show.
    fn custom_blocks(&mut self, field: &Field) -> bool {
        let Some(fx) = &mut self.fixture else {
            return false;
        };
        match field.custom.as_ref().and_then(|c| c.ser.as_ref()) {
            Some(f) => {
                fx.opaque.insert(format!(
                    "field `{}` is written by `{f}`, which wirecheck cannot run",
                    field.rust_name
                ));
                true
            }
            None => false,
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
        Some(match resolved.shape {
            Shape::Bool => Value::Bool(full),
            Shape::Char => json!("a"),
            Shape::Str => json!(if full { "x" } else { "" }),
            Shape::Int { signed, bits } => {
                let usual = json!(if full { 1 } else { 0 });
                match &mut self.fixture {
                    Some(fx) if !proxied && bits <= 64 => {
                        if signed {
                            fx.ints.0 = true;
                        } else {
                            fx.ints.1 = true;
                        }
                        match (fx.boundary, signed) {
                            (Some(Extreme::Max), true) => json!(i64::MAX >> (64 - u32::from(bits))),
                            (Some(Extreme::Max), false) => {
                                json!(u64::MAX >> (64 - u32::from(bits)))
                            }
                            (Some(Extreme::Min), true) => json!(i64::MIN >> (64 - u32::from(bits))),
                            _ => usual,
                        }
                    }
                    _ => usual,
                }
            }
            Shape::Float { .. } => json!(if full { 0.5 } else { 0.0 }),
            Shape::External(p) | Shape::Unresolved(p) if self.fixture.is_some() => {
                if let Some(fx) = &mut self.fixture {
                    fx.opaque.insert(format!(
                        "a value of `{p}` is needed, and wirecheck cannot see into that type"
                    ));
                }
                return None;
            }
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
                if let Some(x) = self.forced_variant(def_path.as_deref(), &en, full) {
                    return Some(x);
                }
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
    pub fn obj(&mut self, flat: &FlatObject, full: bool) -> Option<Map<String, Value>> {
        let mut m = Map::new();
        if let Some(tag) = &flat.tag {
            m.insert(tag.key.clone(), json!(tag.value));
        }
        for f in &flat.fields {
            if !full && (f.optional_parent || matches!(f.field.skip_ser, SkipSer::If(_))) {
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
        if let (Some(fx), Some(f)) = (
            &mut self.fixture,
            v.custom.as_ref().and_then(|c| c.ser.as_ref()),
        ) {
            fx.opaque.insert(format!(
                "variant `{}` is written by `{f}`, which wirecheck cannot run",
                v.rust_name
            ));
            return None;
        }
        // Named variants go through `obj`, which checks their written fields.
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

/// The golden payloads of one message, for `wirecheck fixtures write`: `(case, payload)` in a fixed order,
/// and notes on what could not be generated.
///
/// Cases: `minimal` (only what is always written: options null, collections empty, conditionally skipped
/// keys left out), `maximal` (every optional field present, collections with one element), one
/// `variant:Enum::Variant` per writable variant of every enum the message reaches (the rest as in
/// `maximal`; a variant reached only inside another enum's variant forces that one too) followed by its
/// `minimal` form, and for each of `maximal` and the variant cases a `boundary:max` form (integers at their
/// type's maximum) and a `boundary:min` form (signed integers at their minimum). A `minimal` or boundary form
/// is left out when an earlier case has the same payload (a variant case never is). Integers behind an
/// `into`/`from` proxy, and 128-bit ones (beyond JSON's 64-bit numbers), keep their usual value.
pub(crate) fn fixture_cases(
    snap: &Snapshot,
    message: &MessageDecl,
) -> (Vec<(String, Value)>, Vec<String>) {
    let side = SideRef {
        snap,
        side: Side::New,
    };
    let ty = Ty::Named {
        path: message.rust_path.clone(),
        args: Vec::new(),
    };
    let sample = |force: &BTreeMap<String, usize>, boundary: Option<Extreme>, full: bool| {
        let mode = FixtureMode {
            boundary,
            force: force.clone(),
            ..FixtureMode::default()
        };
        let mut sampler = Sampler::for_fixture(side, mode);
        let value = sampler.value(&ty, full);
        (value, sampler.fixture.unwrap_or_default())
    };
    let mut cases: Vec<(String, Value)> = Vec::new();
    let mut notes: BTreeSet<String> = BTreeSet::new();
    let none = BTreeMap::new();

    let (minimal, mode) = sample(&none, None, false);
    match minimal {
        Some(v) => cases.push(("minimal".to_owned(), v)),
        None => notes.extend(mode.opaque),
    }

    // Each base case (maximal, then one per variant), with its boundary forms.
    let with_boundaries = |label: String,
                           force: &BTreeMap<String, usize>,
                           value: Value,
                           ints: (bool, bool),
                           cases: &mut Vec<(String, Value)>| {
        let prefix = if label == "maximal" {
            String::new()
        } else {
            format!("{label} ")
        };
        cases.push((label, value.clone()));
        for (extreme, name, wanted) in [
            (Extreme::Max, "boundary:max", ints.0 || ints.1),
            (Extreme::Min, "boundary:min", ints.0),
        ] {
            if !wanted {
                continue;
            }
            if let (Some(b), _) = sample(force, Some(extreme), true)
                && !cases.iter().any(|(_, c)| *c == b)
            {
                cases.push((format!("{prefix}{name}"), b));
            }
        }
    };

    let (maximal, mode) = sample(&none, None, true);
    let Some(maximal) = maximal else {
        notes.extend(mode.opaque);
        return (cases, notes.into_iter().collect());
    };
    notes.extend(mode.opaque.iter().cloned());
    with_boundaries("maximal".to_owned(), &none, maximal, mode.ints, &mut cases);

    let mut known: BTreeSet<String> = mode.enums.iter().map(|e| e.path.clone()).collect();
    let mut queue: VecDeque<(BTreeMap<String, usize>, EnumSeen)> =
        mode.enums.into_iter().map(|e| (none.clone(), e)).collect();
    while let Some((base, en)) = queue.pop_front() {
        let name = en.path.rsplit("::").next().unwrap_or(&en.path).to_owned();
        for (index, variant) in &en.variants {
            if cases.len() >= MAX_FIXTURE_CASES {
                notes.insert(format!(
                    "more than {MAX_FIXTURE_CASES} cases: the variants after `{name}::{variant}` have none"
                ));
                return (cases, notes.into_iter().collect());
            }
            let mut force = base.clone();
            force.insert(en.path.clone(), *index);
            let (value, mode) = sample(&force, None, true);
            for seen in mode.enums {
                if known.insert(seen.path.clone()) {
                    queue.push_back((force.clone(), seen));
                }
            }
            match value {
                Some(v) if mode.hits.contains(&en.path) => {
                    let label = format!("variant:{name}::{variant}");
                    let at = cases.len() + 1;
                    // The variant with only what it always writes, when that differs.
                    let minimal = match sample(&force, None, false) {
                        (Some(m), min_mode)
                            if min_mode.hits.contains(&en.path)
                                && m != v
                                && !cases.iter().any(|(_, c)| *c == m) =>
                        {
                            Some(m)
                        }
                        _ => None,
                    };
                    with_boundaries(label.clone(), &force, v, mode.ints, &mut cases);
                    if let Some(m) = minimal {
                        cases.insert(at, (format!("{label} minimal"), m));
                    }
                }
                _ => {
                    notes.insert(format!(
                        "no payload writes `{name}::{variant}` (it is only reached through a cycle, or needs a value wirecheck cannot write)"
                    ));
                }
            }
        }
    }
    (cases, notes.into_iter().collect())
}
