//! The comparison of a writer schema with a reader schema, in one direction.
//!
//! [`Walk::cmp`] answers: can the reader decode everything the writer can produce? Each problem is an
//! [`Issue`]: a break (some payload is rejected or misread, with a witness built from the writer's
//! schema) or a visible but compatible change. Witnesses are built bottom-up: each level replaces the
//! offending part of its own minimal payload with the witness of the level below.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::decode::{Decoder, range};
use super::resolve::{
    EnumDef, FlatField, FlatObj, MAX_DEPTH, Role, Shape, SideRef, WireEq, custom_text, flatten,
    has_custom_de, is_braced_single, resolve, written,
};
use super::sample::{Sampler, key_string, wrap_variant, writable};
use crate::findings::{Direction, Side};
use crate::model::{
    AllowDecl, ContainerAttrs, EnumRepr, Field, Location, SeqKind, SkipSer, Style, Ty, Variant,
};
use crate::rules::RuleId;

/// One problem found by a walk, relative to the type the walk was asked about.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub rule: RuleId,
    /// A payload is rejected or misread in the walk's direction (otherwise a visible compatible change).
    pub breaks: bool,
    /// Rust names from the compared type down to the field or variant concerned.
    pub path: Vec<String>,
    /// A payload of the writer's type that the reader rejects or misreads (breaks only; `None` where the
    /// shape is opaque to the checker).
    pub witness: Option<Value>,
    /// A sentence saying what changed and what happens.
    pub detail: String,
    /// The nearest location known, and its side.
    pub location: Option<(Location, Side)>,
    /// `allow` declarations on the fields and variants along the path.
    pub allows: Vec<AllowDecl>,
    /// Opaque: reported once, not per direction.
    pub opaque: bool,
}

/// The comparison of one writer schema with one reader schema.
pub(crate) struct Walk<'a> {
    w: SideRef<'a>,
    r: SideRef<'a>,
    dir: Direction,
    positional: bool,
    postcard: bool,
    eq: WireEq<'a>,
    in_progress: HashSet<(Ty, Ty)>,
    memo: HashMap<(Ty, Ty), Vec<Issue>>,
    cycles: u64,
    depth: usize,
}

type Wrap<'f> = &'f dyn Fn(Value) -> Option<Value>;

fn int_value(i: i128) -> Option<Value> {
    if let Ok(v) = i64::try_from(i) {
        Some(json!(v))
    } else {
        u64::try_from(i).ok().map(|v| json!(v))
    }
}

fn obj_with(base: &Option<Map<String, Value>>, key: &str, v: Value) -> Option<Value> {
    base.as_ref().map(|m| {
        let mut m = m.clone();
        m.insert(key.to_owned(), v);
        Value::Object(m)
    })
}

fn obj_merge(base: &Option<Map<String, Value>>, v: Value) -> Option<Value> {
    let mut m = base.clone()?;
    match v {
        Value::Object(o) => m.extend(o),
        other => return Some(other),
    }
    Some(Value::Object(m))
}

fn arr_with(base: &Option<Value>, i: usize, v: Value) -> Option<Value> {
    match base {
        Some(Value::Array(a)) if i < a.len() => {
            let mut a = a.clone();
            a[i] = v;
            Some(Value::Array(a))
        }
        _ => None,
    }
}

fn same_variant(a: &Variant, b: &Variant) -> bool {
    a.rust_name == b.rust_name || a.ser_name == b.ser_name
}

fn is_none_pred(s: &SkipSer) -> bool {
    matches!(s, SkipSer::If(p) if p.ends_with("is_none"))
}

impl<'a> Walk<'a> {
    /// A walk with `w` writing and `r` reading; `dir` says which of them is the old release.
    pub fn new(w: SideRef<'a>, r: SideRef<'a>, dir: Direction, format: crate::Format) -> Walk<'a> {
        Walk {
            w,
            r,
            dir,
            positional: !format.is_self_describing(),
            postcard: format == crate::Format::Postcard,
            eq: WireEq::new(w.snap, r.snap),
            in_progress: HashSet::new(),
            memo: HashMap::new(),
            cycles: 0,
            depth: 0,
        }
    }

    fn writer_is_new(&self) -> bool {
        self.dir == Direction::OldReadsNew
    }

    /// The rule named after the change, given who writes: the change seen from old to new.
    fn pick(&self, writer_new: RuleId, writer_old: RuleId) -> RuleId {
        if self.writer_is_new() {
            writer_new
        } else {
            writer_old
        }
    }

    fn who(&self, writer: bool) -> &'static str {
        match (writer, self.writer_is_new()) {
            (true, true) | (false, false) => "the new release",
            _ => "the old release",
        }
    }

    fn loc(&self, w: Option<&Location>, r: Option<&Location>) -> Option<(Location, Side)> {
        let (wl, rl) = (
            w.map(|l| (l.clone(), self.w.side)),
            r.map(|l| (l.clone(), self.r.side)),
        );
        if self.w.side == Side::New {
            wl.or(rl)
        } else {
            rl.or(wl)
        }
    }

    fn issue(&self, rule: RuleId, breaks: bool, detail: String, witness: Option<Value>) -> Issue {
        Issue {
            rule,
            breaks,
            path: Vec::new(),
            witness: if breaks { witness } else { None },
            detail,
            location: None,
            allows: Vec::new(),
            opaque: false,
        }
    }

    fn brk(&self, rule: RuleId, detail: String, witness: Option<Value>) -> Issue {
        self.issue(rule, true, detail, witness)
    }

    fn change(&self, rule: RuleId, detail: String) -> Issue {
        self.issue(rule, false, detail, None)
    }

    fn opaque(&self, rule: RuleId, detail: String) -> Issue {
        let mut i = self.issue(rule, true, detail, None);
        i.opaque = true;
        i
    }

    fn sample(&self, ty: &Ty, full: bool) -> Option<Value> {
        Sampler::new(self.w).value(ty, full)
    }

    /// Prefixes the path, wraps the witness into the enclosing value, adds allows and a location.
    fn wrap(
        issues: Vec<Issue>,
        path: &[String],
        allows: &[AllowDecl],
        location: Option<(Location, Side)>,
        f: Wrap<'_>,
    ) -> Vec<Issue> {
        issues
            .into_iter()
            .map(|mut i| {
                if !path.is_empty() {
                    let mut p = path.to_vec();
                    p.append(&mut i.path);
                    i.path = p;
                }
                i.witness = i.witness.and_then(f);
                i.allows.extend(allows.iter().cloned());
                if i.location.is_none() {
                    i.location.clone_from(&location);
                }
                i
            })
            .collect()
    }

    /// Compares the writer type `w` with the reader type `r`.
    pub fn cmp(&mut self, w: &Ty, r: &Ty) -> Vec<Issue> {
        if self.depth >= MAX_DEPTH || self.eq.ty(w, r) {
            return Vec::new();
        }
        let key = (w.clone(), r.clone());
        if self.in_progress.contains(&key) {
            self.cycles += 1;
            return Vec::new();
        }
        if let Some(m) = self.memo.get(&key) {
            return m.clone();
        }
        self.in_progress.insert(key.clone());
        self.depth += 1;
        let before = self.cycles;
        let out = if self.positional {
            self.cmp_pos(w, r)
        } else {
            self.cmp_json(w, r)
        };
        self.depth -= 1;
        self.in_progress.remove(&key);
        if self.cycles == before {
            self.memo.insert(key, out.clone());
        }
        out
    }

    /// Checks that hold for any format when both sides are named definitions.
    fn cmp_defs(
        &mut self,
        w: &Ty,
        wd: Option<&crate::model::TypeDef>,
        rd: Option<&crate::model::TypeDef>,
    ) -> Option<Vec<Issue>> {
        let (wd, rd) = (wd?, rd?);
        let mut out = Vec::new();
        let wf = wd.attrs.from.as_ref().is_some_and(|p| p.fallible);
        let rf = rd.attrs.from.as_ref().is_some_and(|p| p.fallible);
        if rf && !wf {
            let mut i = self.opaque(
                RuleId::CustomSerdeChanged,
                format!(
                    "`{}` read by {} converts with `try_from`, which may reject values {} writes",
                    rd.path.rsplit("::").next().unwrap_or(&rd.path),
                    self.who(false),
                    self.who(true)
                ),
            );
            i.location = self.loc(Some(&wd.location), Some(&rd.location));
            out.push(i);
        }
        if !self.positional
            && wd.attrs.transparent != rd.attrs.transparent
            && is_braced_single(wd)
            && is_braced_single(rd)
        {
            let mut i = self.brk(
                RuleId::TransparentChanged,
                format!(
                    "`{}` is written {} and read {}",
                    rd.path.rsplit("::").next().unwrap_or(&rd.path),
                    if wd.attrs.transparent {
                        "as its one field's value"
                    } else {
                        "as an object"
                    },
                    if rd.attrs.transparent {
                        "as its one field's value"
                    } else {
                        "as an object"
                    },
                ),
                self.sample(w, true),
            );
            i.location = self.loc(Some(&wd.location), Some(&rd.location));
            out.push(i);
            return Some(out);
        }
        if out.is_empty() { None } else { Some(out) }
    }

    fn type_changed(&self, w: &Ty, r: &Ty, why: &str, witness: Option<Value>) -> Issue {
        self.brk(
            RuleId::FieldTypeChanged,
            format!(
                "{} writes `{w}` and {} reads `{r}`: {why}",
                self.who(true),
                self.who(false)
            ),
            witness,
        )
    }

    fn cmp_ints(&self, w: (bool, u8), r: (bool, u8), key: bool) -> Option<Issue> {
        let (wlo, whi) = range(w.0, w.1);
        let (rlo, rhi) = range(r.0, r.1);
        let fits = wlo >= rlo && whi <= rhi;
        let enc_same =
            !self.positional || w == r || (self.postcard && w.0 == r.0 && w.1 >= 16 && r.1 >= 16);
        if fits && enc_same {
            return None;
        }
        let (old, new) = if self.writer_is_new() { (r, w) } else { (w, r) };
        let rule = if key {
            RuleId::MapKeyChanged
        } else if old.0 != new.0 {
            RuleId::IntegerSignChanged
        } else if new.1 > old.1 {
            RuleId::IntegerWidened
        } else {
            RuleId::IntegerNarrowed
        };
        let bad = if whi > rhi {
            Some(rhi + 1)
        } else if wlo < rlo {
            Some(rlo - 1)
        } else {
            None
        };
        let name = |x: (bool, u8)| format!("{}{}", if x.0 { 'i' } else { 'u' }, x.1);
        let witness = match bad {
            Some(b) => int_value(b),
            None => Some(json!(if w.0 { -1 } else { 200 })),
        };
        let why = match bad {
            Some(b) => format!("{b} is out of the reader's range"),
            None => "the encoding differs in this positional format".to_owned(),
        };
        Some(self.brk(
            rule,
            format!(
                "{} writes `{}` and {} reads `{}`: {why}",
                self.who(true),
                name(w),
                self.who(false),
                name(r)
            ),
            witness,
        ))
    }

    fn cmp_json(&mut self, w: &Ty, r: &Ty) -> Vec<Issue> {
        let wr = resolve(self.w, w, Role::Writer);
        let rr = resolve(self.r, r, Role::Reader);
        let mut out = Vec::new();
        if let Some(found) = self.cmp_defs(w, wr.def, rr.def) {
            let stop = found.iter().any(|i| i.rule == RuleId::TransparentChanged);
            out.extend(found);
            if stop {
                return out;
            }
        }
        let loc = self.loc(wr.def.map(|d| &d.location), rr.def.map(|d| &d.location));
        let mut found = self.cmp_shapes(w, r, wr.shape, rr.shape);
        for i in &mut found {
            if i.location.is_none() {
                i.location.clone_from(&loc);
            }
        }
        out.extend(found);
        out
    }

    fn cmp_shapes(&mut self, w: &Ty, r: &Ty, ws: Shape, rs: Shape) -> Vec<Issue> {
        use Shape as S;
        let mut out = Vec::new();
        match (ws, rs) {
            (_, S::Value) => {}
            (S::Unresolved(a), S::Unresolved(b)) if a == b => {}
            (S::Unresolved(a), _) | (_, S::Unresolved(a)) => out.push(self.opaque(
                RuleId::UnresolvedType,
                format!("the checker could not resolve `{a}` (writer `{w}`, reader `{r}`)"),
            )),
            (S::External(a), S::External(b)) if a == b => {}
            (S::External(_), _) | (_, S::External(_)) => out.push(self.opaque(
                RuleId::ExternalTypeChanged,
                format!("{} writes `{w}` and {} reads `{r}`: types from other crates are compared by path", self.who(true), self.who(false)),
            )),
            (S::Option(a), S::Option(b)) => out.extend(self.cmp(&a, &b)),
            (S::Option(a), _) => {
                if Decoder::new(self.r).decode(r, &Value::Null).is_err() {
                    out.push(self.brk(
                        self.pick(RuleId::FieldBecameOptional, RuleId::FieldBecameRequired),
                        format!(
                            "{} writes `{w}`, which may be null, and {} reads `{r}`, which rejects null",
                            self.who(true),
                            self.who(false)
                        ),
                        Some(Value::Null),
                    ));
                }
                out.extend(self.cmp(&a, r));
            }
            (S::Unit, S::Option(_)) => {}
            (ws @ S::Value, S::Option(b)) => {
                // Anything may be written; an opaque reader type cannot be judged, so say so rather
                // than let the decoder model accept it.
                let inner = resolve(self.r, &b, Role::Reader).shape;
                if matches!(inner, S::External(_) | S::Unresolved(_)) {
                    out.extend(self.cmp(w, &b));
                } else {
                    out.extend(self.generic(w, r, &ws));
                }
            }
            (_, S::Option(b)) => out.extend(self.cmp(w, &b)),
            (S::Bool, S::Bool)
            | (S::Char, S::Char)
            | (S::Char, S::Str)
            | (S::Str, S::Str)
            | (S::Unit, S::Unit) => {}
            (S::Str, S::Char) => out.push(self.type_changed(w, r, "a char reads one-character strings only", Some(json!("ab")))),
            (S::Int { signed: a, bits: x }, S::Int { signed: b, bits: y }) => {
                out.extend(self.cmp_ints((a, x), (b, y), false));
            }
            (S::Float { bits: x }, S::Float { bits: y }) => {
                if x > y {
                    out.push(self.brk(
                        if self.writer_is_new() { RuleId::FieldTypeChanged } else { RuleId::FloatNarrowed },
                        format!("{} writes `f{x}` and {} reads `f{y}`, rounding values (1e300 becomes infinity)", self.who(true), self.who(false)),
                        Some(json!(1e300)),
                    ));
                }
            }
            (S::Int { signed, bits }, S::Float { bits: fb }) => {
                let mant: u32 = if fb <= 32 { 24 } else { 53 };
                let (lo, hi) = range(signed, bits);
                let limit = 1i128 << mant;
                if hi > limit || lo < -limit {
                    out.push(self.brk(
                        self.pick(RuleId::FloatToInteger, RuleId::IntegerToFloat),
                        format!("{} writes integers (`{w}`) that {} reads as `f{fb}`, inexactly above 2^{mant}", self.who(true), self.who(false)),
                        int_value(limit + 1),
                    ));
                }
            }
            (S::Float { .. }, S::Int { .. }) => out.push(self.brk(
                self.pick(RuleId::IntegerToFloat, RuleId::FloatToInteger),
                format!("{} writes floats (`{w}`) and {} reads integers (`{r}`), which reject floating point numbers", self.who(true), self.who(false)),
                Some(json!(0.5)),
            )),
            (S::Seq(k1, e1), S::Seq(k2, e2)) => {
                if k1 == SeqKind::List && k2 == SeqKind::Set {
                    out.push(self.seq_to_set(w, r, &e1));
                }
                let found = self.cmp(&e1, &e2);
                out.extend(Self::wrap(found, &[], &[], None, &|c| Some(json!([c]))));
            }
            (S::Seq(_, e), S::Array(_, n)) => {
                let wit = if n > 0 { Some(json!([])) } else { self.sample(&e, false).map(|x| json!([x])) };
                out.push(self.type_changed(w, r, "a fixed-size array reads arrays of its length only", wit));
            }
            (S::Seq(_, e), S::Tuple(elems, _)) => {
                let wit = if elems.is_empty() { self.sample(&e, false).map(|x| json!([x])) } else { Some(json!([])) };
                out.push(self.type_changed(w, r, "a tuple reads arrays of its length only", wit));
            }
            (S::Array(e1, n1), S::Array(e2, n2)) => {
                if n1 == n2 {
                    let base = self.sample(w, false);
                    let found = self.cmp(&e1, &e2);
                    out.extend(Self::wrap(found, &[], &[], None, &|c| arr_with(&base, 0, c)));
                } else {
                    out.push(self.brk(
                        RuleId::ArrayLengthChanged,
                        format!("{} writes `{w}` and {} reads `{r}`: arrays of {n1} elements are rejected", self.who(true), self.who(false)),
                        self.sample(w, false),
                    ));
                }
            }
            (S::Array(e, n), S::Seq(k, e2)) => {
                if k == SeqKind::Set && n >= 2 {
                    out.push(self.seq_to_set(w, r, &e));
                }
                let base = self.sample(w, false);
                let found = self.cmp(&e, &e2);
                out.extend(Self::wrap(found, &[], &[], None, &|c| arr_with(&base, 0, c)));
            }
            (S::Tuple(elems, _), S::Seq(k, e2)) => {
                if k == SeqKind::Set && elems.len() >= 2 {
                    out.push(self.type_changed(w, r, "a set collapses equal elements", self.sample(w, false)));
                }
                let base = self.sample(w, false);
                for (i, e) in elems.iter().enumerate() {
                    let found = self.cmp(e, &e2);
                    out.extend(Self::wrap(found, &[i.to_string()], &[], None, &|c| arr_with(&base, i, c)));
                }
            }
            (ws @ (S::Array(..) | S::Tuple(..)), rs @ (S::Array(..) | S::Tuple(..))) => {
                out.extend(self.cmp_fixed(w, r, &ws, &rs));
            }
            (S::Map(k1, v1), S::Map(k2, v2)) => {
                let key = self.sample(&k1, true).map(|k| key_string(&k)).unwrap_or_else(|| "x".to_owned());
                let vmin = self.sample(&v1, false);
                out.extend(self.cmp_key(&k1, &k2, vmin.as_ref()));
                let found = self.cmp(&v1, &v2);
                out.extend(Self::wrap(found, &[], &[], None, &|c| {
                    let mut m = Map::new();
                    m.insert(key.clone(), c);
                    Some(Value::Object(m))
                }));
            }
            (S::Struct(a), S::Struct(b)) => {
                let wf = flatten(self.w, Role::Writer, &a.fields, &a.attrs);
                let own = flatten(self.w, Role::Reader, &a.fields, &a.attrs);
                let rf = flatten(self.r, Role::Reader, &b.fields, &b.attrs);
                out.extend(self.cmp_obj(&wf, &own, &rf));
            }
            (S::Enum(a), S::Enum(b)) => out.extend(self.cmp_enum(w, r, &a, &b)),
            (ws, _) => out.extend(self.generic(w, r, &ws)),
        }
        out
    }

    fn seq_to_set(&self, w: &Ty, r: &Ty, elem: &Ty) -> Issue {
        let x = self.sample(elem, false);
        self.brk(
            RuleId::SeqToSet,
            format!(
                "{} writes `{w}`, which may repeat elements, and {} reads `{r}`, which collapses them",
                self.who(true),
                self.who(false)
            ),
            x.map(|x| json!([x.clone(), x])),
        )
    }

    fn fixed_elems(s: &Shape) -> Vec<(String, Ty)> {
        match s {
            Shape::Array(e, n) => (0..(*n).min(64))
                .map(|i| (i.to_string(), e.clone()))
                .collect(),
            Shape::Tuple(elems, fields) => elems
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let name = fields
                        .get(i)
                        .map_or_else(|| i.to_string(), |f| f.rust_name.clone());
                    (name, t.clone())
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn cmp_fixed(&mut self, w: &Ty, r: &Ty, ws: &Shape, rs: &Shape) -> Vec<Issue> {
        let (we, re) = (Self::fixed_elems(ws), Self::fixed_elems(rs));
        if we.len() != re.len() {
            return vec![self.brk(
                RuleId::TupleLengthChanged,
                format!(
                    "{} writes `{w}` ({} elements) and {} reads `{r}` ({} elements)",
                    self.who(true),
                    we.len(),
                    self.who(false),
                    re.len()
                ),
                self.sample(w, false),
            )];
        }
        let base = self.sample(w, false);
        let mut out = Vec::new();
        let tuple_like = matches!(ws, Shape::Tuple(..)) || matches!(rs, Shape::Tuple(..));
        for (i, ((wn, wt), (rn, rt))) in we.iter().zip(&re).enumerate() {
            let found = self.cmp(wt, rt);
            let name = if self.writer_is_new() { wn } else { rn };
            let path = if tuple_like {
                vec![name.clone()]
            } else {
                Vec::new()
            };
            out.extend(Self::wrap(found, &path, &[], None, &|c| {
                arr_with(&base, i, c)
            }));
        }
        out
    }

    fn cmp_key(&mut self, k1: &Ty, k2: &Ty, vmin: Option<&Value>) -> Vec<Issue> {
        let ws = resolve(self.w, k1, Role::Writer).shape;
        let rs = resolve(self.r, k2, Role::Reader).shape;
        let one = |k: String| {
            let mut m = Map::new();
            m.insert(k, vmin?.clone());
            Some(Value::Object(m))
        };
        match (&ws, &rs) {
            (_, Shape::Str | Shape::Value | Shape::External(_)) => Vec::new(),
            (Shape::Int { signed: a, bits: x }, Shape::Int { signed: b, bits: y }) => self
                .cmp_ints((*a, *x), (*b, *y), true)
                .into_iter()
                .map(|mut i| {
                    i.witness = i.witness.and_then(|k| one(key_string(&k)));
                    i
                })
                .collect(),
            (Shape::Enum(_), Shape::Enum(_)) => {
                let found = self.cmp(k1, k2);
                Self::wrap(found, &[], &[], None, &|c| one(key_string(&c)))
            }
            _ => {
                let candidates: Vec<String> = match &ws {
                    Shape::Str => vec!["x".to_owned(), "xy".to_owned()],
                    Shape::Char => vec!["a".to_owned()],
                    Shape::Int { signed, .. } => {
                        let mut c = vec!["0".to_owned()];
                        if *signed {
                            c.push("-1".to_owned());
                        }
                        c
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
                        .filter_map(|f| self.sample(k1, *f))
                        .map(|v| key_string(&v))
                        .collect(),
                };
                let mut dec = Decoder::new(self.r);
                for c in candidates {
                    if let Err(e) = dec.decode_key(k2, &c) {
                        return vec![self.brk(
                            RuleId::MapKeyChanged,
                            format!(
                                "{} writes map keys of `{k1}` and {} reads keys of `{k2}`: {e}",
                                self.who(true),
                                self.who(false)
                            ),
                            one(c),
                        )];
                    }
                }
                Vec::new()
            }
        }
    }

    /// Samples the writer and asks the reader model; reports the first payload it rejects.
    fn generic(&mut self, w: &Ty, r: &Ty, ws: &Shape) -> Vec<Issue> {
        let mut candidates = Vec::new();
        if matches!(ws, Shape::Value) {
            candidates.extend([
                Value::Null,
                json!(true),
                json!(0),
                json!(0.5),
                json!(""),
                json!([]),
                json!({}),
            ]);
        }
        let mut sampler = Sampler::new(self.w);
        candidates.extend(sampler.value(w, false));
        candidates.extend(sampler.value(w, true));
        if let Shape::Enum(en) = ws {
            for v in en.variants.iter().filter(|v| !v.skip_ser) {
                candidates.extend(sampler.variant(en, v, false));
                candidates.extend(sampler.variant(en, v, true));
            }
        }
        let mut dec = Decoder::new(self.r);
        for c in candidates {
            if let Err(e) = dec.decode(r, &c) {
                return vec![self.type_changed(w, r, &e, Some(c))];
            }
        }
        Vec::new()
    }

    /// Compares two key namespaces. `own` is the writer's own struct seen as a reader (to leave out
    /// what its own release could not read either).
    fn cmp_obj(&mut self, wf: &FlatObj, own: &FlatObj, rf: &FlatObj) -> Vec<Issue> {
        let base = Sampler::new(self.w).obj(wf, false);
        let mut out = Vec::new();
        let writer_new = self.writer_is_new();

        // Flatten added or removed: a plain field on one side is a flattened origin on the other.
        let origins = |o: &FlatObj| -> BTreeSet<Vec<String>> {
            let mut s = BTreeSet::new();
            for f in &o.fields {
                for k in 1..f.path.len() {
                    s.insert(f.path[..k].to_vec());
                }
            }
            for f in o.enums.iter().chain(&o.opaque) {
                s.insert(f.path.clone());
            }
            if let Some((_, _, p)) = &o.rest {
                s.insert(p.clone());
            }
            s
        };
        let (w_orig, r_orig) = (origins(wf), origins(rf));
        let mut w_skip: BTreeSet<Vec<String>> = BTreeSet::new();
        let mut r_skip: BTreeSet<Vec<String>> = BTreeSet::new();
        for f in &rf.fields {
            if w_orig.contains(&f.path) {
                r_skip.insert(f.path.clone());
                w_skip.insert(f.path.clone());
                let mut i = self.brk(
                    RuleId::FlattenChanged,
                    format!(
                        "{} flattens `{}` into the parent object and {} reads it nested under `{}`",
                        self.who(true),
                        f.path.join("."),
                        self.who(false),
                        f.key()
                    ),
                    base.clone().map(Value::Object),
                );
                i.path = f.path.clone();
                i.location = self.loc(None, Some(&f.field.location));
                out.push(i);
            }
        }
        for f in &wf.fields {
            if r_orig.contains(&f.path) {
                r_skip.insert(f.path.clone());
                w_skip.insert(f.path.clone());
                let mut i = self.brk(
                    RuleId::FlattenChanged,
                    format!(
                        "{} writes `{}` nested under `{}` and {} reads it flattened into the parent object",
                        self.who(true),
                        f.path.join("."),
                        f.key(),
                        self.who(false)
                    ),
                    self.sample(&f.field.ty, true).and_then(|v| obj_with(&base, f.key(), v)),
                );
                i.path = f.path.clone();
                i.location = self.loc(Some(&f.field.location), None);
                out.push(i);
            }
        }
        let skipped =
            |set: &BTreeSet<Vec<String>>, p: &[String]| set.iter().any(|s| p.starts_with(s));

        // The struct's own tag key.
        // serde writes a struct's tag key but never consumes it when reading, so a reader that denies
        // unknown fields rejects it, even when the reader declares the same tag.
        // When the writer's own release rejects its tag as well, its payloads never decoded anywhere:
        // not something this change breaks.
        let denies = |o: &FlatObj, k: &String| {
            o.deny && o.rest.is_none() && !o.fields.iter().any(|f| f.field.de_names.contains(k))
        };
        let tag_denied = |k: &String| denies(rf, k) && !(own.tag.is_some() && denies(own, k));
        match (&wf.tag, &rf.tag) {
            (Some((k, _)), rt) if rt.as_ref().map(|t| &t.0) != Some(k) || tag_denied(k) => {
                if tag_denied(k) {
                    out.push(self.brk(
                        RuleId::StructTagChanged,
                        format!(
                            "{} writes the tag key `{k}` and {} denies unknown fields",
                            self.who(true),
                            self.who(false)
                        ),
                        base.clone().map(Value::Object),
                    ));
                } else {
                    out.push(self.change(
                        RuleId::StructTagChanged,
                        format!(
                            "{} writes the tag key `{k}`; {} ignores it",
                            self.who(true),
                            self.who(false)
                        ),
                    ));
                }
            }
            (None, Some((k, _))) => out.push(self.change(
                RuleId::StructTagChanged,
                format!(
                    "{} has the tag key `{k}`, which serde does not check when reading",
                    self.who(false)
                ),
            )),
            _ => {}
        }

        // Pair fields by wire name, then by Rust path (renames).
        let mut taken = vec![false; rf.fields.len()];
        for (j, f) in rf.fields.iter().enumerate() {
            if skipped(&r_skip, &f.path) {
                taken[j] = true;
            }
        }
        let mut pairs = Vec::new();
        let mut unknown = Vec::new();
        for (i, f) in wf.fields.iter().enumerate() {
            if skipped(&w_skip, &f.path) {
                continue;
            }
            let found = rf
                .fields
                .iter()
                .enumerate()
                .position(|(j, g)| !taken[j] && g.field.de_names.iter().any(|n| n == f.key()));
            match found {
                Some(j) => {
                    taken[j] = true;
                    pairs.push((i, j));
                }
                None => unknown.push(i),
            }
        }
        let mut renamed = Vec::new();
        unknown.retain(|&i| {
            let p = &wf.fields[i].path;
            match rf
                .fields
                .iter()
                .enumerate()
                .position(|(j, g)| !taken[j] && &g.path == p)
            {
                Some(j) => {
                    taken[j] = true;
                    renamed.push((i, j));
                    false
                }
                None => true,
            }
        });

        let new_path = |wfl: Option<&FlatField>, rfl: Option<&FlatField>| -> Vec<String> {
            let (a, b) = if writer_new { (wfl, rfl) } else { (rfl, wfl) };
            a.or(b).map(|f| f.path.clone()).unwrap_or_default()
        };
        let allows_of = |fs: &[Option<&FlatField>]| -> Vec<AllowDecl> {
            let mut v = Vec::new();
            for f in fs.iter().flatten() {
                v.extend(f.allows.iter().cloned());
                v.extend(f.field.allow.iter().cloned());
            }
            v
        };

        for (i, j) in pairs {
            let (a, b) = (&wf.fields[i], &rf.fields[j]);
            let own_f = own
                .fields
                .iter()
                .find(|o| o.field.de_names.iter().any(|n| n == a.key()));
            let found = self.cmp_field(a, b, own_f, &base);
            let loc = self.loc(Some(&a.field.location), Some(&b.field.location));
            out.extend(Self::wrap(
                found,
                &new_path(Some(a), Some(b)),
                &allows_of(&[Some(a), Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }
        for (i, j) in renamed {
            let (a, b) = (&wf.fields[i], &rf.fields[j]);
            let wit = self
                .sample(&a.field.ty, true)
                .and_then(|v| obj_with(&base, a.key(), v));
            let issue = self.brk(
                RuleId::FieldRenamed,
                format!(
                    "{} writes `{}` under the key `{}` and {} looks for {}",
                    self.who(true),
                    a.path.join("."),
                    a.key(),
                    self.who(false),
                    b.field
                        .de_names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                wit,
            );
            let loc = self.loc(Some(&a.field.location), Some(&b.field.location));
            out.extend(Self::wrap(
                vec![issue],
                &new_path(Some(a), Some(b)),
                &allows_of(&[Some(a), Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }
        let deny_added = !writer_new && rf.deny && !wf.deny;
        for i in unknown {
            let a = &wf.fields[i];
            let mut found = Vec::new();
            let what = self.pick(RuleId::FieldAdded, RuleId::FieldRemoved);
            if let Some((k, v, _)) = &rf.rest {
                if let Err(e) = Decoder::new(self.r).decode_key(k, a.key()) {
                    found.push(
                        self.brk(
                            RuleId::MapKeyChanged,
                            format!(
                                "the key `{}` goes to the reader's flattened map: {e}",
                                a.key()
                            ),
                            self.sample(&a.field.ty, true)
                                .and_then(|v| obj_with(&base, a.key(), v)),
                        ),
                    );
                }
                let inner = self.cmp(&a.field.ty, v);
                let key = a.key().to_owned();
                found.extend(Self::wrap(inner, &[], &[], None, &|c| {
                    obj_with(&base, &key, c)
                }));
                found.push(self.change(
                    what,
                    format!(
                        "`{}` is written by {} only; {} collects it in its flattened map",
                        a.key(),
                        self.who(true),
                        self.who(false)
                    ),
                ));
            } else if rf.deny && rf.enums.is_empty() {
                let rule = if deny_added {
                    RuleId::DenyUnknownFieldsAdded
                } else {
                    what
                };
                found.push(
                    self.brk(
                        rule,
                        format!(
                            "{} writes `{}`, unknown to {}, which denies unknown fields",
                            self.who(true),
                            a.key(),
                            self.who(false)
                        ),
                        self.sample(&a.field.ty, true)
                            .and_then(|v| obj_with(&base, a.key(), v)),
                    ),
                );
            } else {
                found.push(self.change(
                    what,
                    format!(
                        "`{}` is written by {} and ignored by {}",
                        a.key(),
                        self.who(true),
                        self.who(false)
                    ),
                ));
            }
            let loc = self.loc(Some(&a.field.location), None);
            out.extend(Self::wrap(
                found,
                &a.path,
                &allows_of(&[Some(a)]),
                loc,
                &|c| Some(c),
            ));
        }
        if deny_added {
            out.push(self.change(
                RuleId::DenyUnknownFieldsAdded,
                format!("{} denies unknown fields", self.who(false)),
            ));
        }
        for (j, b) in rf.fields.iter().enumerate() {
            if taken[j] {
                continue;
            }
            // A writer's flattened map could carry this key too, but what it holds comes from payloads
            // of other schemas, so it is not checked against this field.
            let mut found = Vec::new();
            let own_f = own.fields.iter().find(|o| {
                o.field
                    .de_names
                    .iter()
                    .any(|n| b.field.de_names.contains(n))
            });
            let own_ok = own_f.is_none_or(FlatField::tolerates_absence);
            if b.tolerates_absence() || !own_ok {
                found.push(self.change(
                    self.pick(RuleId::FieldRemoved, RuleId::FieldAdded),
                    format!(
                        "`{}` is read by {} only, which tolerates its absence",
                        b.key(),
                        self.who(false)
                    ),
                ));
            } else {
                let custom = matches!(b.field.ty, Ty::Option { .. }) && has_custom_de(&b.field);
                found.push(self.brk(
                    self.pick(RuleId::FieldRemoved, RuleId::RequiredFieldAdded),
                    format!(
                        "{} requires `{}`{} and {} never writes it",
                        self.who(false),
                        b.key(),
                        if custom {
                            " (an Option with deserialize_with and no default)"
                        } else {
                            ""
                        },
                        self.who(true)
                    ),
                    base.clone().map(Value::Object),
                ));
            }
            let loc = self.loc(None, Some(&b.field.location));
            out.extend(Self::wrap(
                found,
                &b.path,
                &allows_of(&[Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }

        // Flattened enums, paired by path.
        let mut r_enum_taken = vec![false; rf.enums.len()];
        for a in &wf.enums {
            if skipped(&w_skip, &a.path) {
                continue;
            }
            let j = rf
                .enums
                .iter()
                .enumerate()
                .position(|(j, b)| !r_enum_taken[j] && b.path == a.path)
                .or_else(|| {
                    (wf.enums.len() == 1 && rf.enums.len() == 1 && !r_enum_taken[0]).then_some(0)
                });
            // The parent's payload without this enum's own keys, to merge another variant into.
            let own_keys = match self.sample(&a.field.ty, false) {
                Some(Value::Object(m)) => m.keys().cloned().collect(),
                _ => Vec::new(),
            };
            let base = base.clone().map(|mut m| {
                for k in &own_keys {
                    m.remove(k);
                }
                m
            });
            let loc;
            let found = match j {
                Some(j) => {
                    r_enum_taken[j] = true;
                    let b = &rf.enums[j];
                    loc = self.loc(Some(&a.field.location), Some(&b.field.location));
                    let inner = self.cmp(&a.field.ty, &b.field.ty);
                    Self::wrap(inner, &[], &allows_of(&[Some(a), Some(b)]), None, &|c| {
                        obj_merge(&base, c)
                    })
                }
                None => {
                    loc = self.loc(Some(&a.field.location), None);
                    let wit = self
                        .sample(&a.field.ty, false)
                        .and_then(|c| obj_merge(&base, c));
                    if rf.deny {
                        vec![self.brk(self.pick(RuleId::FieldAdded, RuleId::FieldRemoved), format!("{} writes the flattened `{}`, unknown to {}, which denies unknown fields", self.who(true), a.path.join("."), self.who(false)), wit)]
                    } else {
                        vec![self.change(
                            self.pick(RuleId::FieldAdded, RuleId::FieldRemoved),
                            format!(
                                "the flattened `{}` is written by {} only",
                                a.path.join("."),
                                self.who(true)
                            ),
                        )]
                    }
                }
            };
            out.extend(Self::wrap(
                found,
                &a.path,
                &allows_of(&[Some(a)]),
                loc,
                &|c| Some(c),
            ));
        }
        for (j, b) in rf.enums.iter().enumerate() {
            if r_enum_taken[j] || skipped(&r_skip, &b.path) {
                continue;
            }
            let optional = b.optional_parent || matches!(b.field.ty, Ty::Option { .. });
            let issue = if optional {
                self.change(
                    self.pick(RuleId::FieldRemoved, RuleId::FieldAdded),
                    format!(
                        "the flattened `{}` is read by {} only",
                        b.path.join("."),
                        self.who(false)
                    ),
                )
            } else {
                self.brk(
                    self.pick(RuleId::FieldRemoved, RuleId::RequiredFieldAdded),
                    format!(
                        "{} requires the flattened `{}` and {} never writes it",
                        self.who(false),
                        b.path.join("."),
                        self.who(true)
                    ),
                    base.clone().map(Value::Object),
                )
            };
            let loc = self.loc(None, Some(&b.field.location));
            out.extend(Self::wrap(
                vec![issue],
                &b.path,
                &allows_of(&[Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }

        // Flattened maps: writers with one write arbitrary keys.
        match (&wf.rest, &rf.rest) {
            (Some((_, v1, p)), Some((_, v2, _))) => {
                let inner = self.cmp(v1, v2);
                out.extend(Self::wrap(inner, p, &[], None, &|c| {
                    obj_with(&base, "extra", c)
                }));
            }
            (Some((_, v, p)), None) => {
                let wit = self
                    .sample(v, true)
                    .and_then(|c| obj_with(&base, "extra", c));
                let issue = if rf.deny {
                    self.brk(self.pick(RuleId::FlattenChanged, RuleId::DenyUnknownFieldsAdded), format!("{} writes arbitrary keys from the flattened map `{}` and {} denies unknown fields", self.who(true), p.join("."), self.who(false)), wit)
                } else {
                    self.change(
                        RuleId::FlattenChanged,
                        format!(
                            "{} writes arbitrary keys from the flattened map `{}` that {} ignores",
                            self.who(true),
                            p.join("."),
                            self.who(false)
                        ),
                    )
                };
                out.extend(Self::wrap(vec![issue], p, &[], None, &|c| Some(c)));
            }
            (None, Some((_, _, p))) => {
                out.push(
                    Self::wrap(
                        vec![self.change(
                            RuleId::FlattenChanged,
                            format!(
                                "{} collects unknown keys in the flattened map `{}`",
                                self.who(false),
                                p.join(".")
                            ),
                        )],
                        p,
                        &[],
                        None,
                        &|c| Some(c),
                    )
                    .remove(0),
                );
            }
            (None, None) => {}
        }
        // Flattened fields the checker cannot see into.
        for a in &wf.opaque {
            let same = rf
                .opaque
                .iter()
                .any(|b| b.path == a.path && self.eq.ty(&a.field.ty, &b.field.ty));
            if !same {
                let mut i = self.opaque(
                    RuleId::ExternalTypeChanged,
                    format!(
                        "the flattened `{}` (`{}`) is opaque to the checker and changed",
                        a.path.join("."),
                        a.field.ty
                    ),
                );
                i.path = a.path.clone();
                out.push(i);
            }
        }
        out
    }

    /// Compares one field written by the writer with the field the reader reads from the same key.
    fn cmp_field(
        &mut self,
        a: &FlatField,
        b: &FlatField,
        own: Option<&FlatField>,
        base: &Option<Map<String, Value>>,
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        let key = a.key().to_owned();
        let (wc, rc) = (&a.field.custom, &b.field.custom);
        let custom = wc.is_some() || rc.is_some();
        if custom {
            if wc != rc {
                out.push(self.opaque(
                    RuleId::CustomSerdeChanged,
                    format!(
                        "`{key}` has [{}] in {} and [{}] in {}: custom functions are opaque",
                        custom_text(&a.field),
                        self.who(true),
                        custom_text(&b.field),
                        self.who(false)
                    ),
                ));
            } else if !self.eq.ty(&a.field.ty, &b.field.ty) {
                out.push(self.opaque(
                    RuleId::CustomSerdeChanged,
                    format!(
                        "`{key}` changed type (`{}` to `{}`) behind custom functions [{}]",
                        a.field.ty,
                        b.field.ty,
                        custom_text(&b.field)
                    ),
                ));
            }
        }
        let may_omit = matches!(a.field.skip_ser, SkipSer::If(_)) || a.optional_parent;
        // What the writer's own release could not read either is not this change's doing, unless the
        // skipping itself changed.
        let own_ok =
            own.is_none_or(FlatField::tolerates_absence) || a.field.skip_ser != b.field.skip_ser;
        if may_omit && !b.tolerates_absence() && own_ok {
            let option_custom = matches!(b.field.ty, Ty::Option { .. })
                && has_custom_de(&b.field)
                && !b.field.default
                && !b.container_default;
            let rule = if option_custom && own.is_some_and(|o| !has_custom_de(&o.field)) {
                RuleId::OptionDeserializeWith
            } else if self.writer_is_new() && b.field.skip_ser == SkipSer::Never {
                RuleId::SkipSerializingIfAdded
            } else {
                RuleId::FieldBecameRequired
            };
            let wit = base.as_ref().map(|m| {
                let mut m = m.clone();
                m.remove(&key);
                Value::Object(m)
            });
            out.push(self.brk(
                rule,
                format!(
                    "{} may leave `{key}` out and {} requires it{}",
                    self.who(true),
                    self.who(false),
                    if option_custom {
                        " (an Option with deserialize_with and no default)"
                    } else {
                        ""
                    }
                ),
                wit,
            ));
        }
        if !custom {
            let wty = match (&a.field.ty, is_none_pred(&a.field.skip_ser)) {
                (Ty::Option { inner }, true) => (**inner).clone(),
                (t, _) => t.clone(),
            };
            let found = self.cmp(&wty, &b.field.ty);
            out.extend(Self::wrap(found, &[], &[], None, &|c| {
                obj_with(base, &key, c)
            }));
        }
        out
    }

    fn variant_obj(
        &self,
        side: SideRef<'_>,
        role: Role,
        v: &Variant,
        deny: bool,
    ) -> Option<FlatObj> {
        let attrs = ContainerAttrs {
            deny_unknown_fields: deny,
            ..ContainerAttrs::default()
        };
        match v.style {
            Style::Unit => Some(FlatObj::default()),
            Style::Named => Some(flatten(side, role, &v.fields, &attrs)),
            Style::Tuple if v.fields.len() == 1 => match resolve(side, &v.fields[0].ty, role).shape
            {
                Shape::Struct(o) => Some(flatten(side, role, &o.fields, &o.attrs)),
                Shape::Map(k, val) => Some(FlatObj {
                    rest: Some((k, val, Vec::new())),
                    ..FlatObj::default()
                }),
                Shape::Unit => Some(FlatObj::default()),
                _ => None,
            },
            Style::Tuple => None,
        }
    }

    fn variant_samples(&self, en: &EnumDef, v: &Variant) -> Vec<Value> {
        let mut s = Sampler::new(self.w);
        let mut out: Vec<Value> = Vec::new();
        for full in [false, true] {
            if let Some(x) = s.variant(en, v, full)
                && !out.contains(&x)
            {
                out.push(x);
            }
        }
        out
    }

    fn cmp_enum(&mut self, w: &Ty, r: &Ty, we: &EnumDef, re: &EnumDef) -> Vec<Issue> {
        if we.attrs.repr != re.attrs.repr {
            let mut dec = Decoder::new(self.r);
            let mut own = Decoder::new(self.w);
            for v in we.variants.iter().filter(|v| !v.skip_ser) {
                for s in self.variant_samples(we, v) {
                    let bad = match dec.decode(r, &s) {
                        Err(e) => Some(e),
                        Ok(()) => match (dec.decode_enum(re, &s), own.decode_enum(we, &s)) {
                            (Ok(i), Ok(k)) if !same_variant(&re.variants[i], &we.variants[k]) => {
                                Some(format!("it decodes as `{}`", re.variants[i].rust_name))
                            }
                            _ => None,
                        },
                    };
                    if let Some(e) = bad {
                        return vec![self.brk(
                            RuleId::EnumReprChanged,
                            format!(
                                "{} writes `{w}` {} and {} reads it {}: {e}",
                                self.who(true),
                                repr_text(&we.attrs.repr),
                                self.who(false),
                                repr_text(&re.attrs.repr)
                            ),
                            Some(s),
                        )];
                    }
                }
            }
            return vec![self.change(
                RuleId::EnumReprChanged,
                format!(
                    "`{w}` is written {} and read {}",
                    repr_text(&we.attrs.repr),
                    repr_text(&re.attrs.repr)
                ),
            )];
        }
        if re.attrs.repr == EnumRepr::Untagged {
            return self.cmp_untagged(we, re);
        }
        let mut out = Vec::new();
        let mut taken = vec![false; re.variants.len()];
        for (j, v) in re.variants.iter().enumerate() {
            taken[j] = v.skip_de || v.untagged;
        }
        let mut pairs = Vec::new();
        let mut unknown = Vec::new();
        for (i, v) in we.variants.iter().enumerate() {
            if v.skip_ser || v.untagged {
                continue;
            }
            match re
                .variants
                .iter()
                .enumerate()
                .position(|(j, x)| !taken[j] && x.de_names.contains(&v.ser_name))
            {
                Some(j) => {
                    taken[j] = true;
                    pairs.push((i, j));
                }
                None => unknown.push(i),
            }
        }
        let other = re.variants.iter().find(|v| v.other && !v.skip_de);
        let vloc = |s: &Self, a: Option<&Variant>, b: Option<&Variant>| {
            s.loc(a.map(|v| &v.location), b.map(|v| &v.location))
        };
        let vallows = |vs: &[Option<&Variant>]| -> Vec<AllowDecl> {
            vs.iter()
                .flatten()
                .flat_map(|v| v.allow.iter().cloned())
                .collect()
        };
        let name = |s: &Self, a: Option<&Variant>, b: Option<&Variant>| -> Vec<String> {
            let (x, y) = if s.writer_is_new() { (a, b) } else { (b, a) };
            x.or(y)
                .map(|v| vec![v.rust_name.clone()])
                .unwrap_or_default()
        };
        for i in unknown {
            let a = &we.variants[i];
            let wit = self.variant_samples(we, a).into_iter().next();
            let renamed = re
                .variants
                .iter()
                .enumerate()
                .position(|(j, x)| !taken[j] && x.rust_name == a.rust_name);
            let (issue, b) = if let Some(j) = renamed {
                taken[j] = true;
                let b = &re.variants[j];
                (
                    self.brk(
                        RuleId::VariantRenamed,
                        format!(
                            "{} writes the variant `{}` as `{}` and {} reads {}",
                            self.who(true),
                            a.rust_name,
                            a.ser_name,
                            self.who(false),
                            b.de_names
                                .iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                        wit,
                    ),
                    Some(b),
                )
            } else if other.is_some()
                && match re.attrs.repr {
                    EnumRepr::Internal { .. } => true,
                    EnumRepr::External | EnumRepr::Adjacent { .. } => a.style == Style::Unit,
                    EnumRepr::Untagged => false,
                }
            {
                (self.change(self.pick(RuleId::VariantAdded, RuleId::VariantRemoved), format!("the variant `{}` is written by {}; {} reads it as its `#[serde(other)]` variant", a.ser_name, self.who(true), self.who(false))), None)
            } else if let Some(caught) = self.caught_by_untagged(we, re, a) {
                match caught {
                    Ok(by) => (
                        self.change(
                            self.pick(RuleId::VariantAdded, RuleId::VariantRemoved),
                            format!(
                                "the variant `{}` is written by {}; {} reads it as its untagged variant `{by}`",
                                a.ser_name,
                                self.who(true),
                                self.who(false)
                            ),
                        ),
                        None,
                    ),
                    Err((s, e)) => (
                        self.brk(
                            self.pick(RuleId::VariantAddedWithoutOther, RuleId::VariantRemoved),
                            format!(
                                "{} writes the variant `{}`, unknown to {}, whose untagged variants do not take it: {e}",
                                self.who(true),
                                a.ser_name,
                                self.who(false)
                            ),
                            Some(s),
                        ),
                        None,
                    ),
                }
            } else {
                (
                    self.brk(
                        self.pick(RuleId::VariantAddedWithoutOther, RuleId::VariantRemoved),
                        format!(
                            "{} writes the variant `{}`, unknown to {}{}",
                            self.who(true),
                            a.ser_name,
                            self.who(false),
                            if other.is_some() {
                                " (its `#[serde(other)]` variant does not take this payload)"
                            } else {
                                ", which has no `#[serde(other)]` variant"
                            }
                        ),
                        wit,
                    ),
                    None,
                )
            };
            let loc = vloc(self, Some(a), b);
            out.extend(Self::wrap(
                vec![issue],
                &name(self, Some(a), b),
                &vallows(&[Some(a), b]),
                loc,
                &|c| Some(c),
            ));
        }
        for (j, b) in re.variants.iter().enumerate() {
            if taken[j] || b.other {
                continue;
            }
            let issue = self.change(
                self.pick(RuleId::VariantRemoved, RuleId::VariantAdded),
                format!(
                    "the variant `{}` is read by {} and never written by {}",
                    b.ser_name,
                    self.who(false),
                    self.who(true)
                ),
            );
            let loc = vloc(self, None, Some(b));
            out.extend(Self::wrap(
                vec![issue],
                &name(self, None, Some(b)),
                &vallows(&[Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }
        for (i, j) in pairs {
            let (a, b) = (&we.variants[i], &re.variants[j]);
            let mut found = self.cmp_variant(we, re, a, b);
            self.note_misreads(&mut found, re, a);
            let loc = vloc(self, Some(a), Some(b));
            out.extend(Self::wrap(
                found,
                &name(self, Some(a), Some(b)),
                &vallows(&[Some(a), Some(b)]),
                loc,
                &|c| Some(c),
            ));
        }
        // Untagged variants of a tagged enum: decided on samples.
        for a in we.variants.iter().filter(|v| v.untagged && !v.skip_ser) {
            let found = self.untagged_variant(we, re, a);
            let b = re.variants.iter().find(|x| same_variant(a, x));
            let loc = vloc(self, Some(a), b);
            out.extend(Self::wrap(
                found,
                &name(self, Some(a), b),
                &vallows(&[Some(a), b]),
                loc,
                &|c| Some(c),
            ));
        }
        out
    }

    /// A payload that the reader's matching variant rejects may still fit one of its untagged variants:
    /// then it is misread rather than rejected, and the finding says so.
    fn note_misreads(&self, found: &mut [Issue], re: &EnumDef, a: &Variant) {
        if re.attrs.repr != EnumRepr::Untagged && !re.variants.iter().any(|v| v.untagged) {
            return;
        }
        let mut dec = Decoder::new(self.r);
        for i in found.iter_mut() {
            if let Some(w) = &i.witness
                && let Ok(k) = dec.decode_enum(re, w)
                && let Some(other) = re.variants.get(k)
                && !same_variant(other, a)
            {
                i.detail.push_str(&format!(
                    " (the payload is then misread as `{}`)",
                    other.rust_name
                ));
            }
        }
    }

    /// For a tag unknown to a tagged reader that has untagged variants (serde tries them, in order, on
    /// the whole payload): `None` without untagged variants; the variant that takes every sample of the
    /// writer's variant; or a sample none takes, with serde's reason.
    fn caught_by_untagged(
        &self,
        we: &EnumDef,
        re: &EnumDef,
        a: &Variant,
    ) -> Option<Result<String, (Value, String)>> {
        if !re.variants.iter().any(|v| v.untagged && !v.skip_de) {
            return None;
        }
        let mut dec = Decoder::new(self.r);
        let mut by = None;
        for s in self.variant_samples(we, a) {
            match dec.decode_enum(re, &s) {
                Ok(i) => by = re.variants.get(i).map(|v| v.rust_name.clone()),
                Err(e) => return Some(Err((s, e))),
            }
        }
        by.map(Ok)
    }

    fn cmp_variant(&mut self, we: &EnumDef, re: &EnumDef, a: &Variant, b: &Variant) -> Vec<Issue> {
        let mut out = Vec::new();
        if a.custom.is_some() || b.custom.is_some() {
            if a.custom != b.custom {
                out.push(self.opaque(
                    RuleId::CustomSerdeChanged,
                    format!(
                        "the variant `{}` changed its custom (de)serialization functions",
                        a.ser_name
                    ),
                ));
            }
            return out;
        }
        if !writable(self.w, &we.attrs.repr, a) {
            // serde fails to write this variant: there is no payload to compare.
            return out;
        }
        let repr = we.attrs.repr.clone();
        let wrap = |p: Value| {
            wrap_variant(
                &repr,
                a,
                if a.style == Style::Unit {
                    None
                } else {
                    Some(p)
                },
            )
        };
        let (wdeny, rdeny) = (we.attrs.deny_unknown_fields, re.attrs.deny_unknown_fields);
        let internal = matches!(repr, EnumRepr::Internal { .. });
        let both_tuple1 = a.style == Style::Tuple
            && b.style == Style::Tuple
            && a.fields.len() == 1
            && b.fields.len() == 1;
        if internal
            && !both_tuple1
            && let (Some(wo), Some(own), Some(ro)) = (
                self.variant_obj(self.w, Role::Writer, a, wdeny),
                self.variant_obj(self.w, Role::Reader, a, wdeny),
                self.variant_obj(self.r, Role::Reader, b, rdeny),
            )
        {
            let found = self.cmp_obj(&wo, &own, &ro);
            out.extend(Self::wrap(found, &[], &[], None, &|c| wrap(c)));
            return out;
        }
        match (a.style, b.style) {
            (Style::Unit, Style::Unit) => {}
            (Style::Tuple, Style::Tuple) if both_tuple1 => {
                let found = self.cmp(&a.fields[0].ty, &b.fields[0].ty);
                out.extend(Self::wrap(found, &[], &[], None, &|c| wrap(c)));
            }
            (Style::Tuple, Style::Tuple) if a.fields.len() != 1 && b.fields.len() != 1 => {
                let wt: Vec<Ty> = a
                    .fields
                    .iter()
                    .filter(|f| written(f))
                    .map(|f| f.ty.clone())
                    .collect();
                let rt: Vec<Ty> = b
                    .fields
                    .iter()
                    .filter(|f| !f.skip_de)
                    .map(|f| f.ty.clone())
                    .collect();
                let (wt, rt) = (Ty::Tuple { elems: wt }, Ty::Tuple { elems: rt });
                let found = self.cmp(&wt, &rt);
                out.extend(Self::wrap(found, &[], &[], None, &|c| wrap(c)));
            }
            (Style::Named, Style::Named) => {
                let attrs_w = ContainerAttrs {
                    deny_unknown_fields: wdeny,
                    ..ContainerAttrs::default()
                };
                let attrs_r = ContainerAttrs {
                    deny_unknown_fields: rdeny,
                    ..ContainerAttrs::default()
                };
                let wo = flatten(self.w, Role::Writer, &a.fields, &attrs_w);
                let own = flatten(self.w, Role::Reader, &a.fields, &attrs_w);
                let ro = flatten(self.r, Role::Reader, &b.fields, &attrs_r);
                let found = self.cmp_obj(&wo, &own, &ro);
                out.extend(Self::wrap(found, &[], &[], None, &|c| wrap(c)));
            }
            _ => {
                let mut dec = Decoder::new(self.r);
                for s in self.variant_samples(we, a) {
                    if let Err(e) = dec.decode_enum(re, &s) {
                        out.push(self.brk(
                            RuleId::FieldTypeChanged,
                            format!(
                                "the variant `{}` changed its payload ({} to {}): {e}",
                                a.ser_name,
                                style_text(a),
                                style_text(b)
                            ),
                            Some(s),
                        ));
                        break;
                    }
                }
            }
        }
        out
    }

    /// One untagged variant (of an untagged enum, or marked untagged in a tagged one): decided by
    /// decoding its samples with both releases' readers.
    fn untagged_variant(&mut self, we: &EnumDef, re: &EnumDef, a: &Variant) -> Vec<Issue> {
        let corr = re
            .variants
            .iter()
            .position(|x| !x.skip_de && x.rust_name == a.rust_name)
            .or_else(|| {
                re.variants
                    .iter()
                    .position(|x| !x.skip_de && x.ser_name == a.ser_name)
            });
        for s in self.variant_samples(we, a) {
            let own = Decoder::new(self.w).decode_enum(we, &s);
            let Ok(k) = own else { continue };
            match Decoder::new(self.r).decode_enum(re, &s) {
                Err(e) => {
                    if let Some(j) = corr {
                        let b = &re.variants[j];
                        let found = self.cmp_variant(we, re, a, b);
                        if found.iter().any(|i| i.breaks) {
                            return found;
                        }
                        return vec![self.brk(
                            RuleId::FieldTypeChanged,
                            format!(
                                "{} rejects the variant `{}` as {} writes it: {e}",
                                self.who(false),
                                a.rust_name,
                                self.who(true)
                            ),
                            Some(s),
                        )];
                    }
                    return vec![self.brk(
                        self.pick(RuleId::VariantAddedWithoutOther, RuleId::VariantRemoved),
                        format!(
                            "{} writes the untagged variant `{}` and {} matches no variant: {e}",
                            self.who(true),
                            a.rust_name,
                            self.who(false)
                        ),
                        Some(s),
                    )];
                }
                Ok(i) => {
                    // Where the writer's own release already reads the payload as another variant, the
                    // ambiguity is not this change's doing.
                    if !same_variant(&we.variants[k], a) {
                        continue;
                    }
                    let read_as = &re.variants[i];
                    if !same_variant(read_as, a) {
                        let reordered = corr.is_some_and(|j| j > i)
                            && we
                                .variants
                                .iter()
                                .position(|x| same_variant(x, read_as))
                                .is_some_and(|p| p > k);
                        let rule = if reordered {
                            RuleId::UntaggedVariantOrderChanged
                        } else {
                            RuleId::UntaggedMisread
                        };
                        return vec![self.brk(
                            rule,
                            format!(
                                "{} writes `{}` and {} decodes it as `{}` (untagged variants are tried in order)",
                                self.who(true),
                                a.rust_name,
                                self.who(false),
                                read_as.rust_name
                            ),
                            Some(s),
                        )];
                    }
                }
            }
        }
        match corr {
            Some(j) => {
                let b = &re.variants[j];
                let mut found = self.cmp_variant(we, re, a, b);
                self.note_misreads(&mut found, re, a);
                found
            }
            None => vec![self.change(
                self.pick(RuleId::VariantAdded, RuleId::VariantRemoved),
                format!(
                    "the untagged variant `{}` is written by {} only",
                    a.rust_name,
                    self.who(true)
                ),
            )],
        }
    }

    fn cmp_untagged(&mut self, we: &EnumDef, re: &EnumDef) -> Vec<Issue> {
        let mut out = Vec::new();
        for a in we.variants.iter().filter(|v| !v.skip_ser) {
            let b = re
                .variants
                .iter()
                .find(|x| !x.skip_de && same_variant(a, x));
            let found = self.untagged_variant(we, re, a);
            let (x, y) = if self.writer_is_new() {
                (Some(a), b)
            } else {
                (b, Some(a))
            };
            let path: Vec<String> = x
                .or(y)
                .map(|v| vec![v.rust_name.clone()])
                .unwrap_or_default();
            let loc = self.loc(Some(&a.location), b.map(|v| &v.location));
            let allows: Vec<AllowDecl> = [Some(a), b]
                .iter()
                .flatten()
                .flat_map(|v| v.allow.iter().cloned())
                .collect();
            out.extend(Self::wrap(found, &path, &allows, loc, &|c| Some(c)));
        }
        for b in re.variants.iter().filter(|v| !v.skip_de) {
            if !we
                .variants
                .iter()
                .any(|a| !a.skip_ser && same_variant(a, b))
            {
                let detail = format!(
                    "the untagged variant `{}` is read by {} only",
                    b.rust_name,
                    self.who(false)
                );
                out.extend(self.reader_only_variant(b, detail));
            }
        }
        out
    }

    /// A variant only the reader has: a visible change (added or removed, by side), never a break.
    fn reader_only_variant(&mut self, b: &Variant, detail: String) -> Vec<Issue> {
        let issue = self.change(
            self.pick(RuleId::VariantRemoved, RuleId::VariantAdded),
            detail,
        );
        let loc = self.loc(None, Some(&b.location));
        Self::wrap(
            vec![issue],
            std::slice::from_ref(&b.rust_name),
            &b.allow.iter().cloned().collect::<Vec<_>>(),
            loc,
            &|c| Some(c),
        )
    }

    // ----- positional formats (bincode, postcard) -----

    fn cmp_pos(&mut self, w: &Ty, r: &Ty) -> Vec<Issue> {
        use Shape as S;
        let wr = resolve(self.w, w, Role::Writer);
        let rr = resolve(self.r, r, Role::Reader);
        let mut out = Vec::new();
        if let Some(found) = self.cmp_defs(w, wr.def, rr.def) {
            out.extend(found);
        }
        let loc = self.loc(wr.def.map(|d| &d.location), rr.def.map(|d| &d.location));
        let mut found = Vec::new();
        match (wr.shape, rr.shape) {
            (S::Value, S::Value) => {}
            (S::Unresolved(a), S::Unresolved(b)) if a == b => {}
            (S::Unresolved(a), _) | (_, S::Unresolved(a)) => found.push(self.opaque(
                RuleId::UnresolvedType,
                format!("the checker could not resolve `{a}` (writer `{w}`, reader `{r}`)"),
            )),
            (S::External(a), S::External(b)) if a == b => {}
            (S::External(_), _) | (_, S::External(_)) => found.push(self.opaque(
                RuleId::ExternalTypeChanged,
                format!("{} writes `{w}` and {} reads `{r}`: types from other crates are compared by path", self.who(true), self.who(false)),
            )),
            (S::Option(a), S::Option(b)) => {
                let inner = self.cmp(&a, &b);
                found.extend(inner);
            }
            (S::Option(_), _) => found.push(self.brk(
                self.pick(RuleId::FieldBecameOptional, RuleId::FieldBecameRequired),
                format!("{} writes `{w}` with an option tag and {} reads `{r}` without one", self.who(true), self.who(false)),
                Some(Value::Null),
            )),
            (_, S::Option(_)) => found.push(self.brk(
                self.pick(RuleId::FieldBecameRequired, RuleId::FieldBecameOptional),
                format!("{} writes `{w}` without an option tag and {} reads `{r}` with one", self.who(true), self.who(false)),
                self.sample(w, false),
            )),
            (S::Bool, S::Bool) | (S::Char, S::Char) | (S::Str, S::Str) | (S::Unit, S::Unit) => {}
            // postcard writes a char as a one-char string (length, UTF-8); bincode writes its bare UTF-8
            // bytes, which a string reader takes for a length.
            (S::Char, S::Str) if self.postcard => {}
            (S::Int { signed: a, bits: x }, S::Int { signed: b, bits: y }) => {
                found.extend(self.cmp_ints((a, x), (b, y), false));
            }
            (S::Float { bits: x }, S::Float { bits: y }) if x != y => found.push(self.brk(
                if x > y && !self.writer_is_new() { RuleId::FloatNarrowed } else { RuleId::FieldTypeChanged },
                format!("{} writes `f{x}` and {} reads `f{y}`: the encoded width differs", self.who(true), self.who(false)),
                Some(json!(0.5)),
            )),
            (S::Float { .. }, S::Float { .. }) => {}
            (S::Int { .. }, S::Float { .. }) => found.push(self.brk(
                self.pick(RuleId::FloatToInteger, RuleId::IntegerToFloat),
                format!("{} writes `{w}` and {} reads `{r}`", self.who(true), self.who(false)),
                self.sample(w, true),
            )),
            (S::Float { .. }, S::Int { .. }) => found.push(self.brk(
                self.pick(RuleId::IntegerToFloat, RuleId::FloatToInteger),
                format!("{} writes `{w}` and {} reads `{r}`", self.who(true), self.who(false)),
                Some(json!(0.5)),
            )),
            (S::Seq(k1, e1), S::Seq(k2, e2)) => {
                if k1 == SeqKind::List && k2 == SeqKind::Set {
                    found.push(self.seq_to_set(w, r, &e1));
                }
                let inner = self.cmp(&e1, &e2);
                found.extend(Self::wrap(inner, &[], &[], None, &|c| Some(json!([c]))));
            }
            (S::Map(k1, v1), S::Map(k2, v2)) => {
                let key = self.sample(&k1, true).map(|k| key_string(&k)).unwrap_or_default();
                let vmin = self.sample(&v1, false);
                let inner = self.cmp(&k1, &k2);
                found.extend(Self::wrap(inner, &[], &[], None, &|c| vmin.clone().map(|v| json!({ key_string(&c): v }))));
                let inner = self.cmp(&v1, &v2);
                found.extend(Self::wrap(inner, &[], &[], None, &|c| Some(json!({ key.clone(): c }))));
            }
            (S::Array(e1, n1), S::Array(e2, n2)) => {
                if n1 == n2 {
                    let base = self.sample(w, false);
                    let inner = self.cmp(&e1, &e2);
                    found.extend(Self::wrap(inner, &[], &[], None, &|c| arr_with(&base, 0, c)));
                } else {
                    found.push(self.brk(RuleId::ArrayLengthChanged, format!("{} writes `{w}` and {} reads `{r}`", self.who(true), self.who(false)), self.sample(w, false)));
                }
            }
            (ws @ (S::Struct(_) | S::Tuple(..) | S::Array(..)), rs @ (S::Struct(_) | S::Tuple(..) | S::Array(..))) => {
                found.extend(self.cmp_pos_list(w, r, &ws, &rs));
            }
            (S::Enum(a), S::Enum(b)) => found.extend(self.cmp_pos_enum(w, r, &a, &b)),
            _ => found.push(self.type_changed(w, r, "the encoding differs", self.sample(w, false))),
        }
        for i in &mut found {
            if i.location.is_none() {
                i.location.clone_from(&loc);
            }
        }
        out.extend(found);
        out
    }

    fn pos_items(s: &Shape, role: Role) -> Vec<(String, Ty, Option<Field>)> {
        match s {
            Shape::Struct(o) => o
                .fields
                .iter()
                .filter(|f| match role {
                    Role::Writer => written(f),
                    Role::Reader => !f.skip_de,
                })
                .map(|f| (f.rust_name.clone(), f.ty.clone(), Some(f.clone())))
                .collect(),
            Shape::Tuple(elems, fields) => elems
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let f = fields.get(i).cloned();
                    (
                        f.as_ref()
                            .map_or_else(|| i.to_string(), |f| f.rust_name.clone()),
                        t.clone(),
                        f,
                    )
                })
                .collect(),
            Shape::Array(e, n) => (0..(*n).min(64))
                .map(|i| (i.to_string(), e.clone(), None))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn cmp_pos_list(&mut self, w: &Ty, r: &Ty, ws: &Shape, rs: &Shape) -> Vec<Issue> {
        let wl = Self::pos_items(ws, Role::Writer);
        let rl = Self::pos_items(rs, Role::Reader);
        self.cmp_pos_items(
            &wl,
            &rl,
            self.sample(w, false),
            &format!("`{w}`"),
            &format!("`{r}`"),
        )
    }

    fn cmp_pos_items(
        &mut self,
        wl: &[(String, Ty, Option<Field>)],
        rl: &[(String, Ty, Option<Field>)],
        base: Option<Value>,
        wname: &str,
        rname: &str,
    ) -> Vec<Issue> {
        // Zero-sized items (`()`, unit structs, `PhantomData`) take no bytes in either format.
        let sized = |side: SideRef<'_>, role: Role, l: &[(String, Ty, Option<Field>)]| {
            l.iter()
                .filter(|x| !matches!(resolve(side, &x.1, role).shape, Shape::Unit))
                .cloned()
                .collect::<Vec<_>>()
        };
        let (wl, rl) = (
            &sized(self.w, Role::Writer, wl)[..],
            &sized(self.r, Role::Reader, rl)[..],
        );
        let field_loc = |s: &Self,
                         a: Option<&(String, Ty, Option<Field>)>,
                         b: Option<&(String, Ty, Option<Field>)>| {
            s.loc(
                a.and_then(|x| x.2.as_ref()).map(|f| &f.location),
                b.and_then(|x| x.2.as_ref()).map(|f| &f.location),
            )
        };
        if wl.len() != rl.len() {
            let (longer, writer_longer) = if wl.len() > rl.len() {
                (wl, true)
            } else {
                (rl, false)
            };
            let extra = &longer[wl.len().min(rl.len())];
            let rule = if writer_longer == self.writer_is_new() {
                RuleId::PositionalFieldAdded
            } else {
                RuleId::PositionalFieldRemoved
            };
            let mut i = self.brk(
                rule,
                format!("{} writes {} with {} fields and {} reads {} with {}: positional formats have no field names", self.who(true), wname, wl.len(), self.who(false), rname, rl.len()),
                base,
            );
            i.path = vec![extra.0.clone()];
            i.location = if writer_longer {
                field_loc(self, Some(extra), None)
            } else {
                field_loc(self, None, Some(extra))
            };
            return vec![i];
        }
        let mut wn: Vec<&String> = wl.iter().map(|x| &x.0).collect();
        let mut rn: Vec<&String> = rl.iter().map(|x| &x.0).collect();
        let same_order = wn == rn;
        wn.sort();
        rn.sort();
        if !same_order && wn == rn && wl.len() > 1 {
            return vec![self.brk(
                RuleId::PositionalFieldOrderChanged,
                format!(
                    "{} writes the fields of {} in another order than {} reads them",
                    self.who(true),
                    wname,
                    self.who(false)
                ),
                base,
            )];
        }
        let mut out = Vec::new();
        for (a, b) in wl.iter().zip(rl) {
            let name = if self.writer_is_new() { &a.0 } else { &b.0 };
            // A writer that may skip the field writes nothing where every reader expects it. The writer's
            // own release cannot read that either: a change only if the skipping changed.
            if let (Some(fa), Some(fb)) = (&a.2, &b.2)
                && matches!(fa.skip_ser, SkipSer::If(_))
                && fa.skip_ser != fb.skip_ser
            {
                let mut i = self.brk(
                    if self.writer_is_new() && fb.skip_ser == SkipSer::Never {
                        RuleId::SkipSerializingIfAdded
                    } else {
                        RuleId::FieldBecameRequired
                    },
                    format!(
                        "{} may leave `{}` of {wname} out and {} reads it by position: a positional format cannot skip a field",
                        self.who(true),
                        a.0,
                        self.who(false)
                    ),
                    match &base {
                        Some(Value::Object(m)) => {
                            let mut m = m.clone();
                            m.remove(&fa.ser_name);
                            Some(Value::Object(m))
                        }
                        _ => None,
                    },
                );
                i.path = vec![name.clone()];
                i.location = field_loc(self, Some(a), Some(b));
                i.allows = fa.allow.iter().chain(&fb.allow).cloned().collect();
                out.push(i);
            }
            let found = self.cmp(&a.1, &b.1);
            let key = a.2.as_ref().map(|f| f.ser_name.clone());
            let allows: Vec<AllowDecl> = [a.2.as_ref(), b.2.as_ref()]
                .iter()
                .flatten()
                .flat_map(|f| f.allow.iter().cloned())
                .collect();
            let loc = field_loc(self, Some(a), Some(b));
            let base = base.clone();
            out.extend(Self::wrap(
                found,
                std::slice::from_ref(name),
                &allows,
                loc,
                &|c| match (&base, &key) {
                    (Some(Value::Object(m)), Some(k)) => {
                        let mut m = m.clone();
                        m.insert(k.clone(), c);
                        Some(Value::Object(m))
                    }
                    (b @ Some(Value::Array(_)), _) => {
                        a.0.parse::<usize>().ok().and_then(|i| arr_with(b, i, c))
                    }
                    _ => None,
                },
            ));
        }
        out
    }

    fn cmp_pos_enum(&mut self, w: &Ty, r: &Ty, we: &EnumDef, re: &EnumDef) -> Vec<Issue> {
        if we.attrs.repr != re.attrs.repr {
            return vec![self.brk(
                RuleId::EnumReprChanged,
                format!(
                    "{} writes `{w}` {} and {} reads `{r}` {}",
                    self.who(true),
                    repr_text(&we.attrs.repr),
                    self.who(false),
                    repr_text(&re.attrs.repr)
                ),
                self.sample(w, false),
            )];
        }
        let mut out = Vec::new();
        for (i, a) in we.variants.iter().enumerate() {
            if a.skip_ser {
                continue;
            }
            let wit = self.variant_samples(we, a).into_iter().next();
            let b = re.variants.get(i);
            let moved = re
                .variants
                .iter()
                .position(|x| same_variant(a, x))
                .is_some_and(|j| j != i);
            // A variant that moved is named by itself; otherwise by the new side's variant at the index.
            let path = |s: &Self, b: Option<&Variant>| -> Vec<String> {
                let (x, y) = if s.writer_is_new() || moved {
                    (Some(a), b)
                } else {
                    (b, Some(a))
                };
                x.or(y)
                    .map(|v| vec![v.rust_name.clone()])
                    .unwrap_or_default()
            };
            let allows: Vec<AllowDecl> = [Some(a), b]
                .iter()
                .flatten()
                .flat_map(|v| v.allow.iter().cloned())
                .collect();
            let loc = self.loc(Some(&a.location), b.map(|v| &v.location));
            let found = match b {
                None => vec![self.brk(
                    self.pick(RuleId::VariantAddedWithoutOther, RuleId::VariantRemoved),
                    format!(
                        "{} writes the variant `{}` as index {i}, which {} does not have",
                        self.who(true),
                        a.rust_name,
                        self.who(false)
                    ),
                    wit,
                )],
                Some(b) if moved || b.skip_de => vec![self.brk(
                    RuleId::PositionalVariantReordered,
                    format!(
                        "{} writes the variant `{}` as index {i}, which {} reads as `{}`",
                        self.who(true),
                        a.rust_name,
                        self.who(false),
                        b.rust_name
                    ),
                    wit,
                )],
                Some(b) => {
                    if a.custom != b.custom {
                        vec![self.opaque(
                            RuleId::CustomSerdeChanged,
                            format!(
                                "the variant `{}` changed its custom (de)serialization functions",
                                a.rust_name
                            ),
                        )]
                    } else {
                        let items = |v: &Variant, role: Role| -> Vec<(String, Ty, Option<Field>)> {
                            v.fields
                                .iter()
                                .filter(|f| match role {
                                    Role::Writer => written(f),
                                    Role::Reader => !f.skip_de,
                                })
                                .map(|f| (f.rust_name.clone(), f.ty.clone(), Some(f.clone())))
                                .collect()
                        };
                        let (wl, rl) = (items(a, Role::Writer), items(b, Role::Reader));
                        let payload = Sampler::new(self.w).payload(a, false).flatten();
                        let repr = we.attrs.repr.clone();
                        let found = if a.style == Style::Tuple && wl.len() == 1 && rl.len() == 1 {
                            self.cmp(&wl[0].1, &rl[0].1)
                        } else {
                            self.cmp_pos_items(
                                &wl,
                                &rl,
                                payload,
                                &format!("the variant `{}`", a.rust_name),
                                &format!("the variant `{}`", b.rust_name),
                            )
                        };
                        Self::wrap(found, &[], &[], None, &|c| wrap_variant(&repr, a, Some(c)))
                    }
                }
            };
            out.extend(Self::wrap(found, &path(self, b), &allows, loc, &|c| {
                Some(c)
            }));
        }
        for b in re.variants.iter().skip(we.variants.len()) {
            let detail = format!(
                "the variant `{}` is read by {} and never written by {}",
                b.rust_name,
                self.who(false),
                self.who(true)
            );
            out.extend(self.reader_only_variant(b, detail));
        }
        out
    }
}

fn repr_text(r: &EnumRepr) -> String {
    match r {
        EnumRepr::External => "externally tagged".to_owned(),
        EnumRepr::Internal { tag } => format!("internally tagged (`{tag}`)"),
        EnumRepr::Adjacent { tag, content } => format!("adjacently tagged (`{tag}`, `{content}`)"),
        EnumRepr::Untagged => "untagged".to_owned(),
    }
}

fn style_text(v: &Variant) -> &'static str {
    match v.style {
        Style::Unit => "unit",
        Style::Tuple if v.fields.len() == 1 => "newtype",
        Style::Tuple => "tuple",
        Style::Named => "struct",
    }
}
