//! Pair generation: mutations of the corpus (one per kind of change the engine knows, and combinations),
//! checked against serde_derive's compile-time rules so every generated pair compiles.

use std::collections::BTreeSet;

use super::corpus::corpus;
use super::ir::{
    Body, CASES, Def, Ext, Field, Int, Repr, Schema, Shape, SkipIf, Ty, Variant, With, WithFn,
    case_field, field_wire, variant_wire,
};
use super::rng::Rng;
use super::swaps;

/// One generated (old, new) pair.
#[derive(Clone, Debug)]
pub struct Pair {
    /// 1-based number.
    pub id: usize,
    /// The corpus entry it started from.
    pub base: &'static str,
    /// The mutations applied, in order, each with what it did.
    pub mutations: Vec<String>,
    /// The old release's definitions.
    pub old: Schema,
    /// The new release's definitions.
    pub new: Schema,
}

/// A place holding fields: a struct definition, or a variant of an enum definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    Struct(usize),
    Variant(usize, usize),
}

fn shape_of(s: &Schema, site: Site) -> &Shape {
    match site {
        Site::Struct(d) => match &s.defs[d].body {
            Body::Struct(sh) => sh,
            _ => unreachable!(),
        },
        Site::Variant(d, v) => match &s.defs[d].body {
            Body::Enum(vs, _) => &vs[v].shape,
            _ => unreachable!(),
        },
    }
}

fn shape_mut(s: &mut Schema, site: Site) -> &mut Shape {
    match site {
        Site::Struct(d) => match &mut s.defs[d].body {
            Body::Struct(sh) => sh,
            _ => unreachable!(),
        },
        Site::Variant(d, v) => match &mut s.defs[d].body {
            Body::Enum(vs, _) => &mut vs[v].shape,
            _ => unreachable!(),
        },
    }
}

fn sites(s: &Schema) -> Vec<Site> {
    let mut out = Vec::new();
    for (i, d) in s.defs.iter().enumerate() {
        match &d.body {
            Body::Struct(_) => out.push(Site::Struct(i)),
            Body::Enum(vs, _) => out.extend((0..vs.len()).map(|v| Site::Variant(i, v))),
            Body::MacroNewtype(_) => {}
        }
    }
    out
}

fn named_sites(s: &Schema) -> Vec<Site> {
    sites(s)
        .into_iter()
        .filter(|&site| matches!(shape_of(s, site), Shape::Named(_)))
        .collect()
}

/// Every (site, field index).
fn field_refs(s: &Schema, named_only: bool) -> Vec<(Site, usize)> {
    let mut out = Vec::new();
    for site in sites(s) {
        let sh = shape_of(s, site);
        if named_only && !matches!(sh, Shape::Named(_)) {
            continue;
        }
        out.extend((0..sh.fields().len()).map(|i| (site, i)));
    }
    out
}

fn field_mut(s: &mut Schema, (site, i): (Site, usize)) -> &mut Field {
    &mut shape_mut(s, site).fields_mut().expect("site with fields")[i]
}

fn field_ref(s: &Schema, (site, i): (Site, usize)) -> &Field {
    &shape_of(s, site).fields()[i]
}

fn site_rule(s: &Schema, site: Site) -> Option<&'static str> {
    match site {
        Site::Struct(d) => s.defs[d].rename_all,
        Site::Variant(..) => None,
    }
}

pub(super) fn enums(s: &Schema) -> Vec<usize> {
    (0..s.defs.len())
        .filter(|&i| matches!(s.defs[i].body, Body::Enum(..)))
        .collect()
}

pub(super) fn structs(s: &Schema, named: bool) -> Vec<usize> {
    (0..s.defs.len())
        .filter(|&i| match &s.defs[i].body {
            Body::Struct(Shape::Named(_)) => true,
            Body::Struct(_) => !named,
            _ => false,
        })
        .collect()
}

pub(super) fn variants_mut(s: &mut Schema, d: usize) -> (&mut Vec<Variant>, &mut Repr) {
    match &mut s.defs[d].body {
        Body::Enum(vs, r) => (vs, r),
        _ => unreachable!(),
    }
}

const FIELD_NAMES: &[&str] = &[
    "queue",
    "urgency",
    "flags",
    "owner",
    "note2",
    "deadline",
    "nodes",
    "cores",
    "labels",
    "retries2",
    "expiration",
    "hostname",
    "exit_code",
    "dependency",
    "project",
];

const VARIANT_NAMES: &[&str] = &[
    "Running",
    "Cancelled",
    "Held",
    "Expired",
    "Drained",
    "Paused",
];

fn fresh<'a>(pool: &[&'a str], used: &BTreeSet<String>, rng: &mut Rng) -> Option<&'a str> {
    let free: Vec<&str> = pool
        .iter()
        .copied()
        .filter(|n| !used.contains(*n))
        .collect();
    (!free.is_empty()).then(|| *rng.pick(&free))
}

fn used_field_names(fields: &[Field], rule: Option<&str>) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for f in fields {
        used.insert(f.name.clone());
        used.insert(field_wire(f, rule));
        used.extend(f.alias.iter().cloned());
    }
    used
}

/// A random plain type for a new field.
fn simple_ty(rng: &mut Rng) -> Ty {
    if rng.chance(4) {
        return match rng.below(6) {
            0 => Ty::Ext(Ext::Uuid),
            1 => Ty::Ext(Ext::DateTime),
            2 => Ty::Ext(Ext::Url),
            3 => Ty::With(With::ChronoSeconds),
            4 => Ty::Ext(Ext::PathBuf),
            _ => Ty::Ext(Ext::Decimal),
        };
    }
    match rng.below(10) {
        0 => Ty::Bool,
        9 => Ty::Unit,
        1 => Ty::Str,
        2 => Ty::Int(*rng.pick(&Int::ALL)),
        3 => Ty::F64,
        4 => Ty::Int(Int::U32).vec(),
        5 => Ty::Map(Box::new(Ty::Str), Box::new(Ty::Int(Int::U32))),
        6 => Ty::Tup(vec![Ty::Int(Int::U32), Ty::Str]),
        7 => Ty::Char,
        _ => Ty::Value,
    }
}

fn is_primitive(t: &Ty) -> bool {
    matches!(
        t,
        Ty::Bool | Ty::Char | Ty::Str | Ty::Int(_) | Ty::F32 | Ty::F64
    )
}

/// Another type for a value of `ty`: the engine's type rules (narrowed, widened, sign, float/integer,
/// string/number, list/set, array and tuple lengths, map keys, Box, Value).
fn mutate_ty(ty: &Ty, rng: &mut Rng) -> Option<Ty> {
    Some(match ty {
        Ty::Int(i) => match rng.below(6) {
            0 => Ty::Int(Int::of(i.signed(), (i.bits() * 2).min(64))),
            1 => Ty::Int(Int::of(i.signed(), (i.bits() / 2).max(8))),
            2 => Ty::Int(Int::of(!i.signed(), i.bits())),
            3 => Ty::F64,
            4 => Ty::Str,
            _ => Ty::Int(*rng.pick(&Int::ALL)),
        },
        Ty::F64 => match rng.below(3) {
            0 => Ty::F32,
            1 => Ty::Int(*rng.pick(&Int::ALL)),
            _ => Ty::Str,
        },
        Ty::F32 => {
            if rng.chance(2) {
                Ty::F64
            } else {
                Ty::Int(Int::U32)
            }
        }
        Ty::Str => match rng.below(3) {
            0 => Ty::Char,
            1 => Ty::Int(Int::U32),
            _ => Ty::Value,
        },
        Ty::Char => {
            if rng.chance(2) {
                Ty::Str
            } else {
                Ty::Int(Int::U32)
            }
        }
        Ty::Bool => {
            if rng.chance(2) {
                Ty::Int(Int::U8)
            } else {
                Ty::Str
            }
        }
        Ty::Vec(t) => match rng.below(3) {
            0 if t.is_ord() => Ty::Set(t.clone()),
            1 if is_primitive(t) => Ty::Arr(t.clone(), 2),
            _ => Ty::Vec(Box::new(mutate_ty(t, rng)?)),
        },
        Ty::Set(t) => Ty::Vec(t.clone()),
        Ty::Arr(t, n) => match rng.below(3) {
            0 => Ty::Arr(t.clone(), n + 1),
            1 if *n > 0 => Ty::Arr(t.clone(), n - 1),
            _ => Ty::Vec(t.clone()),
        },
        Ty::Tup(ts) => {
            let mut ts = ts.clone();
            match rng.below(3) {
                0 => ts.push(Ty::Int(Int::U32)),
                1 if ts.len() > 1 => {
                    ts.pop();
                }
                _ => {
                    let i = rng.below(ts.len());
                    ts[i] = mutate_ty(&ts[i], rng)?;
                }
            }
            Ty::Tup(ts)
        }
        Ty::Map(k, v) => {
            if rng.chance(2) {
                let key = if **k == Ty::Str {
                    Ty::Int(Int::U32)
                } else {
                    Ty::Str
                };
                Ty::Map(Box::new(key), v.clone())
            } else {
                Ty::Map(k.clone(), Box::new(mutate_ty(v, rng)?))
            }
        }
        Ty::Opt(t) => Ty::Opt(Box::new(mutate_ty(t, rng)?)),
        Ty::Value => {
            if rng.chance(2) {
                Ty::Str
            } else {
                Ty::Map(Box::new(Ty::Str), Box::new(Ty::Value))
            }
        }
        Ty::Boxed(t) => (**t).clone(),
        Ty::Named(_) => Ty::Value,
        Ty::Ext(Ext::Duration) => Ty::Ext(Ext::Ipv4),
        Ty::Ext(Ext::Ipv4) => Ty::Str,
        Ty::Ext(Ext::NonZeroU32) => Ty::Int(Int::U32),
        Ty::Ext(Ext::IpAddr) => Ty::Ext(Ext::Ipv4),
        Ty::Ext(Ext::Bytes) => Ty::Str,
        Ty::Ext(Ext::NonZeroU8 | Ext::Wrapping) => Ty::Int(Int::U16),
        Ty::Ext(Ext::OrderedF64 | Ext::Decimal) => Ty::F32,
        Ty::Ext(Ext::SystemTime | Ext::Range) => Ty::Ext(Ext::Duration),
        Ty::Ext(Ext::Phantom) => Ty::Str,
        Ty::Ext(_) => Ty::Int(Int::U64),
        Ty::With(_) => Ty::Str,
        Ty::IndexMap(k, v) => Ty::IndexMap(k.clone(), Box::new(mutate_ty(v, rng)?)),
        Ty::Arc(t) => Ty::Arc(Box::new(mutate_ty(t, rng)?)),
        Ty::As(t, _) => (**t).clone(),
        Ty::Unit => return None,
    })
}

/// `ty` with the first part (outermost first, then inside options, collections and tuples) that `f`
/// rewrites replaced.
fn rewrite(ty: &Ty, f: &mut dyn FnMut(&Ty) -> Option<Ty>) -> Option<Ty> {
    if let Some(t) = f(ty) {
        return Some(t);
    }
    match ty {
        Ty::Opt(t) => rewrite(t, f).map(|t| Ty::Opt(Box::new(t))),
        Ty::Vec(t) => rewrite(t, f).map(|t| Ty::Vec(Box::new(t))),
        Ty::Boxed(t) => rewrite(t, f).map(|t| Ty::Boxed(Box::new(t))),
        Ty::Arc(t) => rewrite(t, f).map(|t| Ty::Arc(Box::new(t))),
        Ty::IndexMap(k, v) => rewrite(v, f).map(|v| Ty::IndexMap(k.clone(), Box::new(v))),
        Ty::As(t, a) => rewrite(t, f).map(|t| Ty::As(Box::new(t), *a)),
        Ty::Arr(t, n) => rewrite(t, f).map(|t| Ty::Arr(Box::new(t), *n)),
        Ty::Map(k, v) => rewrite(v, f).map(|v| Ty::Map(k.clone(), Box::new(v))),
        Ty::Tup(ts) => {
            for (i, t) in ts.iter().enumerate() {
                if let Some(t) = rewrite(t, f) {
                    let mut ts = ts.clone();
                    ts[i] = t;
                    return Some(Ty::Tup(ts));
                }
            }
            None
        }
        _ => None,
    }
}

/// Applies `f` (through [`rewrite`]) to a random field it fits.
pub(super) fn retype(
    s: &mut Schema,
    rng: &mut Rng,
    f: &mut dyn FnMut(&Ty) -> Option<Ty>,
) -> Option<String> {
    let mut refs = field_refs(s, false);
    rng.shuffle(&mut refs);
    for r in refs {
        let field = field_mut(s, r);
        if field.flatten {
            continue;
        }
        if let Some(t) = rewrite(&field.ty, f) {
            let text = format!(
                "field `{}` type {} -> {}",
                field.name,
                field.ty.describe(),
                t.describe()
            );
            field.ty = t;
            if let Some(p) = field.skip_if
                && SkipIf::for_ty(&field.ty) != Some(p)
            {
                field.skip_if = None;
            }
            return Some(text);
        }
    }
    None
}

fn m_seq_set(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::Vec(e) if e.is_ord() => Some(Ty::Set(e.clone())),
        Ty::Set(e) => Some(Ty::Vec(e.clone())),
        _ => None,
    })
}

fn m_array_len(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let grow = rng.chance(2);
    retype(s, rng, &mut |t| match t {
        Ty::Arr(e, n) if grow || *n == 0 => Some(Ty::Arr(e.clone(), n + 1)),
        Ty::Arr(e, n) => Some(Ty::Arr(e.clone(), n - 1)),
        Ty::Vec(e) if is_primitive(e) => Some(Ty::Arr(e.clone(), 2)),
        _ => None,
    })
}

fn m_tuple_len(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let grow = rng.chance(2);
    retype(s, rng, &mut |t| match t {
        Ty::Tup(ts) if grow || ts.len() < 2 => {
            let mut ts = ts.clone();
            ts.push(Ty::Int(Int::U32));
            Some(Ty::Tup(ts))
        }
        Ty::Tup(ts) => Some(Ty::Tup(ts[..ts.len() - 1].to_vec())),
        _ => None,
    })
}

fn m_map_key(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::Map(k, v) if **k == Ty::Str => Some(Ty::Map(Box::new(Ty::Int(Int::U32)), v.clone())),
        Ty::Map(_, v) => Some(Ty::Map(Box::new(Ty::Str), v.clone())),
        _ => None,
    })
}

fn m_int_change(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let to = *rng.pick(&Int::ALL);
    retype(s, rng, &mut |t| match t {
        Ty::Int(i) if *i != to => Some(Ty::Int(to)),
        _ => None,
    })
}

fn m_float_width(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    retype(s, rng, &mut |t| match t {
        Ty::F64 => Some(Ty::F32),
        Ty::F32 => Some(Ty::F64),
        _ => None,
    })
}

fn m_float_integer(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let int = Ty::Int(*rng.pick(&Int::ALL));
    retype(s, rng, &mut |t| match t {
        Ty::F64 | Ty::F32 => Some(int.clone()),
        _ => None,
    })
}

/// A mutation: changes `s` and says what it did, or `None` when it does not apply.
type Mutation = fn(&mut Schema, &mut Rng) -> Option<String>;

fn pick_field(s: &Schema, rng: &mut Rng, named_only: bool) -> Option<(Site, usize)> {
    let refs = field_refs(s, named_only);
    (!refs.is_empty()).then(|| *rng.pick(&refs))
}

fn add_field(s: &mut Schema, rng: &mut Rng, how: u8) -> Option<String> {
    let ss = named_sites(s);
    if ss.is_empty() {
        return None;
    }
    let site = *rng.pick(&ss);
    let rule = site_rule(s, site);
    let used = used_field_names(shape_of(s, site).fields(), rule);
    let name = fresh(FIELD_NAMES, &used, rng)?;
    let ty = simple_ty(rng);
    let field = match how {
        0 => Field::new(name, ty),
        1 => Field::new(name, ty.opt()),
        2 => Field::new(name, ty.opt()).optional(),
        _ => Field::new(name, ty).dflt(),
    };
    let text = format!("add field `{name}: {}` ({how})", field.ty.render());
    let fields = shape_mut(s, site).fields_mut()?;
    let at = rng.below(fields.len() + 1);
    fields.insert(at, field);
    Some(text)
}

fn m_add_required(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_field(s, rng, 0)
}
fn m_add_option(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_field(s, rng, 1)
}
fn m_add_optional_skip(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_field(s, rng, 2)
}
fn m_add_default(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_field(s, rng, 3)
}

fn m_remove_field(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let name = field_ref(s, r).name.clone();
    shape_mut(s, r.0).fields_mut()?.remove(r.1);
    Some(format!("remove field `{name}`"))
}

fn m_make_optional(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    if matches!(f.ty, Ty::Opt(_)) || f.flatten {
        return None;
    }
    f.ty = f.ty.clone().opt();
    if f.skip_if.is_some() {
        f.skip_if = Some(SkipIf::IsNone);
    }
    Some(format!("field `{}` becomes an Option", f.name))
}

fn m_make_required(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    let Ty::Opt(inner) = &f.ty else { return None };
    f.ty = (**inner).clone();
    f.de_with = false;
    if f.skip_if.is_some() {
        f.skip_if = SkipIf::for_ty(&f.ty);
    }
    Some(format!("field `{}` is no longer an Option", f.name))
}

fn m_rename_wire(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let rule = site_rule(s, r.0);
    let used = used_field_names(shape_of(s, r.0).fields(), rule);
    let f = field_mut(s, r);
    let old = field_wire(f, rule);
    let candidates = [format!("{old}_v2"), case_field(Some("camelCase"), &old)];
    let new = candidates.iter().find(|c| !used.contains(*c))?.clone();
    f.rename = Some(new.clone());
    Some(format!(
        "field `{}` renamed on the wire: {old} -> {new}",
        f.name
    ))
}

fn m_rename_rust(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let rule = site_rule(s, r.0);
    let used = used_field_names(shape_of(s, r.0).fields(), rule);
    let f = field_mut(s, r);
    let wire = field_wire(f, rule);
    let new = format!("{}_renamed", f.name);
    if used.contains(&new) {
        return None;
    }
    let text = format!(
        "field `{}` renamed in Rust to `{new}`, kept on the wire as {wire}",
        f.name
    );
    f.rename = Some(wire);
    f.name = new;
    Some(text)
}

/// An optional field replaced by another of the same type at its place, under a new Rust and wire name:
/// the value moves to a key readers of the other release ignore.
fn m_replace_optional(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let rule = site_rule(s, r.0);
    let used = used_field_names(shape_of(s, r.0).fields(), rule);
    let f = field_mut(s, r);
    if !matches!(f.ty, Ty::Opt(_)) || f.flatten || !f.alias.is_empty() {
        return None;
    }
    let mut replaced = f.clone();
    replaced.name = format!("{}_next", f.name);
    replaced.rename = None;
    let wire = field_wire(&replaced, rule);
    if used.contains(&replaced.name) || used.contains(&wire) {
        return None;
    }
    let text = format!(
        "optional field `{}` replaced by `{}` at its place (on the wire: {wire})",
        f.name, replaced.name
    );
    *f = replaced;
    Some(text)
}

fn m_rename_with_alias(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let rule = site_rule(s, r.0);
    let used = used_field_names(shape_of(s, r.0).fields(), rule);
    let f = field_mut(s, r);
    let old = field_wire(f, rule);
    let new = format!("{old}_next");
    if used.contains(&new) {
        return None;
    }
    f.rename = Some(new.clone());
    f.alias.push(old.clone());
    Some(format!(
        "field `{}` renamed on the wire {old} -> {new} with alias {old}",
        f.name
    ))
}

fn m_add_alias(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let rule = site_rule(s, r.0);
    let used = used_field_names(shape_of(s, r.0).fields(), rule);
    let f = field_mut(s, r);
    let alias = format!("{}_alias", f.name);
    if used.contains(&alias) {
        return None;
    }
    f.alias.push(alias.clone());
    Some(format!("field `{}` gets alias {alias}", f.name))
}

fn m_type_change(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    let old = f.ty.render();
    f.ty = mutate_ty(&f.ty, rng)?;
    if let Some(p) = f.skip_if
        && SkipIf::for_ty(&f.ty) != Some(p)
    {
        f.skip_if = None;
    }
    if !matches!(f.ty, Ty::Opt(_)) {
        f.de_with = false;
    }
    Some(format!(
        "field `{}` type {old} -> {}",
        f.name,
        f.ty.render()
    ))
}

fn m_default_toggle(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let ok = s.defaultable(&field_ref(s, r).ty);
    let f = field_mut(s, r);
    if f.flatten || (!f.default && !ok) {
        return None;
    }
    f.default = !f.default;
    Some(format!("field `{}` default = {}", f.name, f.default))
}

fn m_skip_if_add(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let f = field_mut(s, r);
    if f.skip_if.is_some() || f.skip || f.flatten || f.with {
        return None;
    }
    f.skip_if = Some(SkipIf::for_ty(&f.ty)?);
    Some(format!(
        "field `{}` skip_serializing_if = {}",
        f.name,
        f.skip_if?.path()
    ))
}

fn m_skip_toggle(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, true)?;
    let ok = s.defaultable(&field_ref(s, r).ty);
    let f = field_mut(s, r);
    if f.flatten || f.with || f.de_with || (!f.skip && !ok) {
        return None;
    }
    f.skip = !f.skip;
    if f.skip {
        f.skip_if = None;
    }
    Some(format!("field `{}` skip = {}", f.name, f.skip))
}

fn m_flatten_toggle(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands: Vec<(Site, usize)> = field_refs(s, true)
        .into_iter()
        .filter(|(site, _)| matches!(site, Site::Struct(_)))
        .collect();
    if cands.is_empty() {
        return None;
    }
    let r = *rng.pick(&cands);
    let target_is_struct = match &field_ref(s, r).ty {
        Ty::Named(n) => matches!(
            s.def(n).map(|d| &d.body),
            Some(Body::Struct(Shape::Named(_)))
        ),
        _ => false,
    };
    let f = field_mut(s, r);
    if !f.flatten && !target_is_struct {
        return None;
    }
    f.flatten = !f.flatten;
    Some(format!("field `{}` flatten = {}", f.name, f.flatten))
}

fn m_de_with(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    if !matches!(f.ty, Ty::Opt(_)) || f.with || f.flatten || f.skip {
        return None;
    }
    f.de_with = !f.de_with;
    Some(format!(
        "field `{}` deserialize_with = {}",
        f.name, f.de_with
    ))
}

fn m_de_with_no_default(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let mut refs = field_refs(s, true);
    rng.shuffle(&mut refs);
    let r = refs.into_iter().find(|&r| {
        let f = field_ref(s, r);
        matches!(f.ty, Ty::Opt(_)) && f.skip_if.is_some() && !f.with && !f.de_with
    })?;
    let f = field_mut(s, r);
    f.de_with = true;
    f.default = false;
    Some(format!(
        "field `{}` read with deserialize_with, without default",
        f.name
    ))
}

fn m_with(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    if f.de_with || f.flatten || f.skip {
        return None;
    }
    f.with = !f.with;
    Some(format!("field `{}` with = {}", f.name, f.with))
}

/// An integer field's `with` functions changed: none, its decimal text (the kinds written and
/// accepted change), or a `u8` (the range written and accepted changes), each read by the engine
/// from the helpers' source.
fn m_with_fn(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let mut refs = field_refs(s, false);
    rng.shuffle(&mut refs);
    let r = refs.into_iter().find(|&r| {
        let f = field_ref(s, r);
        matches!(f.ty, Ty::Int(_)) && !f.with && !f.de_with && !f.skip && !f.flatten
    })?;
    let f = field_mut(s, r);
    let Ty::Int(int) = f.ty else { return None };
    let choices: Vec<Option<WithFn>> = [None, Some(WithFn::IntText), Some(WithFn::Small)]
        .into_iter()
        .filter(|c| *c != f.with_fn && c.is_none_or(|w| w.fits(int)))
        .collect();
    let new = *rng.pick(&choices);
    let text = format!(
        "field `{}` with functions {:?} -> {:?}",
        f.name, f.with_fn, new
    );
    f.with_fn = new;
    Some(text)
}

fn m_reorder_fields(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let ss: Vec<Site> = named_sites(s)
        .into_iter()
        .filter(|&site| shape_of(s, site).fields().len() > 1)
        .collect();
    if ss.is_empty() {
        return None;
    }
    let site = *rng.pick(&ss);
    let fields = shape_mut(s, site).fields_mut()?;
    fields.reverse();
    Some("fields reordered".into())
}

fn m_box(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    if f.flatten || f.skip_if.is_some() || f.de_with {
        return None;
    }
    f.ty = match &f.ty {
        Ty::Boxed(t) => (**t).clone(),
        t => Ty::Boxed(Box::new(t.clone())),
    };
    Some(format!("field `{}` type is now {}", f.name, f.ty.render()))
}

fn m_newtype(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let name = format!("Wrap{}", s.defs.len());
    let f = field_mut(s, r);
    if !is_primitive(&f.ty) || f.skip_if.is_some() {
        return None;
    }
    let inner = std::mem::replace(&mut f.ty, Ty::Named(name.clone()));
    let text = format!(
        "field `{}` wrapped in newtype {name}({})",
        f.name,
        inner.render()
    );
    s.defs.push(Def::tuple(&name, vec![inner]));
    Some(text)
}

fn m_to_value(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    if f.flatten || f.skip_if.is_some() || f.de_with || matches!(f.ty, Ty::Value) {
        return None;
    }
    f.ty = Ty::Value;
    Some(format!("field `{}` becomes serde_json::Value", f.name))
}

fn m_deny_unknown(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands = structs(s, true);
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    s.defs[d].deny_unknown = !s.defs[d].deny_unknown;
    Some(format!(
        "`{}` deny_unknown_fields = {}",
        s.defs[d].name, s.defs[d].deny_unknown
    ))
}

fn m_container_default(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands = structs(s, true);
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    let name = s.defs[d].name.clone();
    if !s.defs[d].default && !s.def_defaultable(&name, &mut Vec::new()) {
        return None;
    }
    s.defs[d].default = !s.defs[d].default;
    Some(format!(
        "`{name}` container default = {}",
        s.defs[d].default
    ))
}

fn m_transparent(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands: Vec<usize> = structs(s, false)
        .into_iter()
        .filter(|&d| matches!(&s.defs[d].body, Body::Struct(sh) if sh.fields().len() == 1))
        .collect();
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    s.defs[d].transparent = !s.defs[d].transparent;
    Some(format!(
        "`{}` transparent = {}",
        s.defs[d].name, s.defs[d].transparent
    ))
}

fn m_struct_tag(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let cands = structs(s, true);
    if cands.is_empty() {
        return None;
    }
    let d = *rng.pick(&cands);
    let def = &mut s.defs[d];
    def.tag = match (&def.tag, rng.below(2)) {
        (None, _) => Some("kind".into()),
        (Some(_), 0) => None,
        (Some(t), _) => Some(format!("{t}_")),
    };
    Some(format!("`{}` struct tag = {:?}", def.name, def.tag))
}

fn m_rename_all(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = rng.below(s.defs.len());
    let def = &mut s.defs[d];
    if matches!(def.body, Body::MacroNewtype(_)) {
        return None;
    }
    def.rename_all = if def.rename_all.is_some() && rng.chance(3) {
        None
    } else {
        Some(*rng.pick(&CASES))
    };
    Some(format!("`{}` rename_all = {:?}", def.name, def.rename_all))
}

fn m_container_rename(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = rng.below(s.defs.len());
    let def = &mut s.defs[d];
    if matches!(def.body, Body::MacroNewtype(_)) {
        return None;
    }
    def.rename = match def.rename {
        Some(_) => None,
        None => Some(format!("{}V2", def.name)),
    };
    Some(format!(
        "`{}` container rename = {:?}",
        def.name, def.rename
    ))
}

fn pick_enum(s: &Schema, rng: &mut Rng) -> Option<usize> {
    let es = enums(s);
    (!es.is_empty()).then(|| *rng.pick(&es))
}

fn new_variant(name: &str, rng: &mut Rng) -> Variant {
    match rng.below(3) {
        0 => Variant::unit(name),
        1 => Variant::newtype(name, Ty::Int(Int::U32)),
        _ => Variant::named(name, vec![Field::new("value", Ty::Str)]),
    }
}

/// Where a new variant may go at the end: before a trailing `other` or trailing untagged variants.
fn tail_position(vs: &[Variant]) -> usize {
    let mut at = vs.len();
    while at > 0 && (vs[at - 1].other || vs[at - 1].untagged) {
        at -= 1;
    }
    at
}

fn add_variant(s: &mut Schema, rng: &mut Rng, front: bool) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    let used: BTreeSet<String> = vs.iter().map(|v| v.name.clone()).collect();
    let name = fresh(VARIANT_NAMES, &used, rng)?;
    let v = new_variant(name, rng);
    let at = if front { 0 } else { tail_position(vs) };
    vs.insert(at, v);
    Some(format!("variant `{name}` added at {at}"))
}

fn m_variant_add(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_variant(s, rng, false)
}

fn m_variant_insert_front(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    add_variant(s, rng, true)
}

fn m_variant_remove(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    if vs.len() < 2 {
        return None;
    }
    let i = rng.below(vs.len());
    let v = vs.remove(i);
    Some(format!("variant `{}` removed", v.name))
}

fn m_variant_rename_wire(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let rule = s.defs[d].rename_all;
    let (vs, _) = variants_mut(s, d);
    let i = rng.below(vs.len());
    let old = variant_wire(&vs[i], rule);
    let new = format!("{old}2");
    vs[i].rename = Some(new.clone());
    Some(format!(
        "variant `{}` renamed on the wire {old} -> {new}",
        vs[i].name
    ))
}

fn m_variant_rename_rust(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let rule = s.defs[d].rename_all;
    let (vs, _) = variants_mut(s, d);
    let i = rng.below(vs.len());
    let wire = variant_wire(&vs[i], rule);
    let new = format!("{}Renamed", vs[i].name);
    let text = format!(
        "variant `{}` renamed in Rust to `{new}`, kept on the wire as {wire}",
        vs[i].name
    );
    vs[i].rename = Some(wire);
    vs[i].name = new;
    Some(text)
}

fn m_variant_alias(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let rule = s.defs[d].rename_all;
    let (vs, _) = variants_mut(s, d);
    let i = rng.below(vs.len());
    let old = variant_wire(&vs[i], rule);
    let new = format!("{old}Next");
    vs[i].rename = Some(new.clone());
    vs[i].alias.push(old.clone());
    Some(format!(
        "variant `{}` renamed {old} -> {new} with alias {old}",
        vs[i].name
    ))
}

fn m_other_toggle(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    if let Some(i) = vs.iter().position(|v| v.other) {
        if vs.len() < 2 {
            return None;
        }
        let v = vs.remove(i);
        return Some(format!("catch-all `{}` removed", v.name));
    }
    let mut v = Variant::unit("Other");
    v.other = true;
    if vs.iter().any(|x| x.name == "Other") {
        return None;
    }
    vs.push(v);
    Some("catch-all `Other` added".into())
}

fn m_repr_change(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (_, repr) = variants_mut(s, d);
    if matches!(repr, Repr::Integer(_)) {
        return None;
    }
    let new = match rng.below(4) {
        0 => Repr::External,
        1 => Repr::Internal("type".into()),
        2 => Repr::Adjacent("t".into(), "c".into()),
        _ => Repr::Untagged,
    };
    if *repr == new {
        return None;
    }
    let text = format!("representation {repr:?} -> {new:?}");
    *repr = new;
    Some(text)
}

fn m_tag_key(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (_, repr) = variants_mut(s, d);
    let text = format!("tag key change of {repr:?}");
    match repr {
        Repr::Internal(t) => t.push_str("_kind"),
        Repr::Adjacent(t, c) => {
            if rng.chance(2) {
                t.push_str("_kind");
            } else {
                c.push_str("_data");
            }
        }
        _ => return None,
    }
    Some(text)
}

fn m_variant_reorder(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    let end = tail_position(vs);
    if end < 2 {
        return None;
    }
    vs[..end].reverse();
    Some("variants reordered".into())
}

fn m_variant_untagged(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    let last = vs.last_mut()?;
    if last.other {
        return None;
    }
    last.untagged = !last.untagged;
    Some(format!(
        "variant `{}` per-variant untagged = {}",
        last.name, last.untagged
    ))
}

fn m_variant_shape(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let d = pick_enum(s, rng)?;
    let (vs, _) = variants_mut(s, d);
    let i = rng.below(vs.len());
    let v = &mut vs[i];
    if v.other {
        return None;
    }
    v.shape = match &v.shape {
        Shape::Unit => Shape::Tuple(vec![Field::new("0", Ty::Int(Int::U32))]),
        Shape::Tuple(fs) if fs.len() == 1 => {
            Shape::Named(vec![Field::new("value", fs[0].ty.clone())])
        }
        _ => Shape::Unit,
    };
    Some(format!("variant `{}` payload shape changed", v.name))
}

fn m_ext_change(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let r = pick_field(s, rng, false)?;
    let f = field_mut(s, r);
    let new = match &f.ty {
        Ty::Ext(Ext::Duration) => Ty::Ext(Ext::Ipv4),
        Ty::Ext(Ext::Ipv4) => Ty::Ext(Ext::Duration),
        Ty::Opt(t) if matches!(**t, Ty::Ext(_)) => Ty::Ext(Ext::Duration).opt(),
        Ty::Int(Int::U64) => Ty::Ext(Ext::Duration),
        _ => return None,
    };
    let text = format!(
        "field `{}` type {} -> {}",
        f.name,
        f.ty.render(),
        new.render()
    );
    f.ty = new;
    Some(text)
}

/// A `u32` field becomes a `NonZeroU32` (its reader rejects 0), or back.
fn m_nonzero(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let refs: Vec<(Site, usize)> = field_refs(s, false)
        .into_iter()
        .filter(|r| {
            matches!(
                field_ref(s, *r).ty,
                Ty::Int(Int::U32) | Ty::Ext(Ext::NonZeroU32)
            )
        })
        .collect();
    if refs.is_empty() {
        return None;
    }
    let f = field_mut(s, *rng.pick(&refs));
    let new = match f.ty {
        Ty::Int(Int::U32) => Ty::Ext(Ext::NonZeroU32),
        _ => Ty::Int(Int::U32),
    };
    let text = format!(
        "field `{}` type {} -> {}",
        f.name,
        f.ty.render(),
        new.render()
    );
    f.ty = new;
    Some(text)
}

/// An `Ipv4Addr` becomes an `IpAddr` (it reads every v4 address; a v4 reader rejects v6 ones), or back;
/// also inside an option.
fn m_ip_version(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    let swap = |t: &Ty| match t {
        Ty::Ext(Ext::Ipv4) => Some(Ty::Ext(Ext::IpAddr)),
        Ty::Ext(Ext::IpAddr) => Some(Ty::Ext(Ext::Ipv4)),
        _ => None,
    };
    swap_field_type(s, rng, |t| match t {
        Ty::Opt(inner) => swap(inner).map(Ty::opt),
        other => swap(other),
    })
}

/// A `String` or `Vec<u8>` field becomes a `serde_bytes::ByteBuf`, or a `ByteBuf` a `String`.
fn m_bytes(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    swap_field_type(s, rng, |t| match t {
        Ty::Str => Some(Ty::Ext(Ext::Bytes)),
        Ty::Vec(e) if **e == Ty::Int(Int::U8) => Some(Ty::Ext(Ext::Bytes)),
        Ty::Ext(Ext::Bytes) => Some(Ty::Str),
        _ => None,
    })
}

/// Replaces the type of a random field for which `swap` gives one.
pub(super) fn swap_field_type(
    s: &mut Schema,
    rng: &mut Rng,
    swap: impl Fn(&Ty) -> Option<Ty>,
) -> Option<String> {
    let refs: Vec<(Site, usize)> = field_refs(s, false)
        .into_iter()
        .filter(|r| swap(&field_ref(s, *r).ty).is_some())
        .collect();
    if refs.is_empty() {
        return None;
    }
    let f = field_mut(s, *rng.pick(&refs));
    let new = swap(&f.ty)?;
    let text = format!(
        "field `{}` type {} -> {}",
        f.name,
        f.ty.describe(),
        new.describe()
    );
    f.ty = new;
    Some(text)
}

fn m_macro_type(s: &mut Schema, rng: &mut Rng) -> Option<String> {
    if let Some(d) = s
        .defs
        .iter()
        .position(|d| matches!(d.body, Body::MacroNewtype(_)))
    {
        let name = s.defs[d].name.clone();
        let Body::MacroNewtype(inner) = &mut s.defs[d].body else {
            unreachable!()
        };
        *inner = mutate_ty(inner, rng)?;
        return Some(format!(
            "macro-defined `{name}` now wraps {}",
            inner.render()
        ));
    }
    let r = pick_field(s, rng, false)?;
    let name = format!("MacroId{}", s.defs.len());
    let f = field_mut(s, r);
    if !is_primitive(&f.ty) || f.skip_if.is_some() {
        return None;
    }
    let inner = std::mem::replace(&mut f.ty, Ty::Named(name.clone()));
    let text = format!(
        "field `{}` wrapped in macro-defined newtype {name}({})",
        f.name,
        inner.render()
    );
    s.defs.push(Def::new(&name, Body::MacroNewtype(inner)));
    Some(text)
}

/// Every mutation, by name.
pub const MUTATIONS: &[(&str, Mutation)] = &[
    ("add_required_field", m_add_required),
    ("add_option_field", m_add_option),
    ("add_optional_skipped_field", m_add_optional_skip),
    ("add_default_field", m_add_default),
    ("remove_field", m_remove_field),
    ("make_optional", m_make_optional),
    ("make_required", m_make_required),
    ("rename_field_wire", m_rename_wire),
    ("rename_field_rust", m_rename_rust),
    ("rename_field_with_alias", m_rename_with_alias),
    ("add_field_alias", m_add_alias),
    ("change_field_type", m_type_change),
    ("list_to_set_or_back", m_seq_set),
    ("change_array_length", m_array_len),
    ("change_tuple_length", m_tuple_len),
    ("change_map_key", m_map_key),
    ("change_integer_type", m_int_change),
    ("change_float_width", m_float_width),
    ("float_to_integer", m_float_integer),
    ("toggle_field_default", m_default_toggle),
    ("add_skip_serializing_if", m_skip_if_add),
    ("toggle_skip", m_skip_toggle),
    ("toggle_flatten", m_flatten_toggle),
    ("toggle_deserialize_with", m_de_with),
    ("deserialize_with_without_default", m_de_with_no_default),
    ("toggle_with", m_with),
    ("reorder_fields", m_reorder_fields),
    ("toggle_box", m_box),
    ("wrap_in_newtype", m_newtype),
    ("to_value", m_to_value),
    ("toggle_deny_unknown_fields", m_deny_unknown),
    ("toggle_container_default", m_container_default),
    ("toggle_transparent", m_transparent),
    ("change_struct_tag", m_struct_tag),
    ("change_rename_all", m_rename_all),
    ("toggle_container_rename", m_container_rename),
    ("add_variant", m_variant_add),
    ("insert_variant_first", m_variant_insert_front),
    ("remove_variant", m_variant_remove),
    ("rename_variant_wire", m_variant_rename_wire),
    ("rename_variant_rust", m_variant_rename_rust),
    ("rename_variant_with_alias", m_variant_alias),
    ("toggle_other", m_other_toggle),
    ("change_enum_repr", m_repr_change),
    ("change_tag_key", m_tag_key),
    ("reorder_variants", m_variant_reorder),
    ("toggle_variant_untagged", m_variant_untagged),
    ("change_variant_shape", m_variant_shape),
    ("change_external_type", m_ext_change),
    ("toggle_nonzero", m_nonzero),
    ("toggle_ip_version", m_ip_version),
    ("toggle_bytes", m_bytes),
    ("macro_defined_type", m_macro_type),
    ("string_to_catalogue_type", swaps::m_string_catalogue),
    ("chrono_to_time_or_back", swaps::m_chrono_time),
    ("change_timestamp_unit", swaps::m_timestamp_unit),
    ("toggle_number_wrapper", swaps::m_number_wrapper),
    ("toggle_index_map", swaps::m_index_map),
    ("toggle_arc", swaps::m_arc),
    ("swap_std_type", swaps::m_std_swap),
    ("toggle_display_from_str", swaps::m_display_from_str),
    ("toggle_bool_from_int", swaps::m_bool_from_int),
    ("change_bytes_encoding", swaps::m_bytes_text),
    ("toggle_one_or_many", swaps::m_one_or_many),
    ("toggle_default_on_null", swaps::m_default_on_null),
    (
        "toggle_skip_serializing_none",
        swaps::m_skip_serializing_none,
    ),
    ("toggle_serde_repr", swaps::m_serde_repr),
    ("change_discriminants", swaps::m_discriminants),
    ("replace_optional_field", m_replace_optional),
    ("change_with_function", m_with_fn),
];

// ---------------------------------------------------------------------------------------------------
// Validity: what serde_derive (and rustc) accept.

fn check_ty(s: &Schema, ty: &Ty, boxed: bool, from: &str) -> Result<(), String> {
    match ty {
        Ty::Opt(t) | Ty::As(t, _) => check_ty(s, t, boxed, from),
        Ty::Vec(t) | Ty::Boxed(t) | Ty::Arc(t) => check_ty(s, t, true, from),
        Ty::IndexMap(k, v) => {
            if !matches!(**k, Ty::Str | Ty::Int(_)) {
                return Err(format!("map key {}", k.render()));
            }
            check_ty(s, v, true, from)
        }
        Ty::Set(t) => {
            if !t.is_ord() {
                return Err(format!("set of unordered {}", t.render()));
            }
            check_ty(s, t, true, from)
        }
        Ty::Map(k, v) => {
            if !matches!(**k, Ty::Str | Ty::Int(_)) {
                return Err(format!("map key {}", k.render()));
            }
            check_ty(s, v, true, from)
        }
        Ty::Arr(t, n) => {
            if *n > 32 {
                return Err("array too long".into());
            }
            check_ty(s, t, boxed, from)
        }
        Ty::Tup(ts) => {
            if ts.is_empty() || ts.len() > 4 {
                return Err("tuple arity".into());
            }
            ts.iter().try_for_each(|t| check_ty(s, t, boxed, from))
        }
        Ty::Named(n) => {
            if s.def(n).is_none() {
                return Err(format!("no definition {n}"));
            }
            if n == from && !boxed {
                return Err(format!("{n} contains itself without indirection"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The keys a flattened type contributes to its parent's object.
fn flat_keys(s: &Schema, ty: &Ty) -> Vec<String> {
    let Ty::Named(n) = ty else { return Vec::new() };
    let Some(d) = s.def(n) else { return Vec::new() };
    match &d.body {
        Body::Struct(Shape::Named(fs)) => {
            let mut keys = Vec::new();
            for f in fs {
                if f.flatten {
                    keys.extend(flat_keys(s, &f.ty));
                } else {
                    keys.push(field_wire(f, d.rename_all));
                    keys.extend(f.alias.iter().cloned());
                }
            }
            keys.extend(d.tag.iter().cloned());
            keys
        }
        Body::Enum(vs, repr) => match repr {
            Repr::Internal(t) => {
                let mut keys = vec![t.clone()];
                for v in vs {
                    for f in v.shape.fields() {
                        keys.push(field_wire(f, None));
                    }
                }
                keys
            }
            Repr::Adjacent(t, c) => vec![t.clone(), c.clone()],
            _ => vs.iter().map(|v| variant_wire(v, d.rename_all)).collect(),
        },
        _ => Vec::new(),
    }
}

fn check_fields(
    s: &Schema,
    def: &Def,
    shape: &Shape,
    in_variant: bool,
    rule: Option<&str>,
) -> Result<(), String> {
    let tuple = matches!(shape, Shape::Tuple(_));
    let mut rust = BTreeSet::new();
    let mut ser = BTreeSet::new();
    let mut de = BTreeSet::new();
    for f in shape.fields() {
        check_ty(s, &f.ty, false, &def.name)?;
        swaps::check_field_adapters(f, tuple)?;
        if !tuple && !rust.insert(f.name.clone()) {
            return Err(format!("duplicate field {}", f.name));
        }
        if tuple
            && (f.rename.is_some()
                || !f.alias.is_empty()
                || f.skip
                || f.flatten
                || f.skip_if.is_some()
                || f.default)
        {
            return Err("attributes on a tuple field".into());
        }
        if let Some(p) = f.skip_if
            && SkipIf::for_ty(&f.ty) != Some(p)
        {
            return Err("skip_serializing_if predicate does not fit".into());
        }
        if (f.default || f.skip) && !s.defaultable(&f.ty) {
            return Err(format!("field {} has no Default", f.name));
        }
        if f.de_with && (!matches!(f.ty, Ty::Opt(_)) || f.with) {
            return Err("deserialize_with on a non-Option".into());
        }
        if (f.with || f.de_with) && (f.skip || f.flatten) {
            return Err("with and skip/flatten".into());
        }
        if let Some(with_fn) = f.with_fn
            && (f.with
                || f.de_with
                || f.skip
                || f.flatten
                || !matches!(f.ty, Ty::Int(i) if with_fn.fits(i)))
        {
            return Err("with functions on a field they do not fit".into());
        }
        if f.skip && (f.flatten || f.skip_if.is_some()) {
            return Err("skip with flatten or skip_serializing_if".into());
        }
        let keys = if f.flatten {
            if in_variant || def.deny_unknown || def.transparent {
                return Err("flatten here".into());
            }
            if f.default || f.skip_if.is_some() || !f.alias.is_empty() || f.rename.is_some() {
                return Err("attributes on a flattened field".into());
            }
            match &f.ty {
                Ty::Named(n) => match s.def(n) {
                    Some(t) if t.deny_unknown || t.transparent => {
                        return Err("flattened type denies unknown fields".into());
                    }
                    Some(Def {
                        body: Body::Enum(_, Repr::Integer(_)),
                        ..
                    }) => return Err("flatten of a serde_repr enum".into()),
                    Some(Def {
                        body: Body::Struct(Shape::Named(_)) | Body::Enum(..),
                        ..
                    }) => {}
                    _ => return Err("flatten of a non-struct".into()),
                },
                _ => return Err("flatten of a non-struct".into()),
            }
            flat_keys(s, &f.ty)
        } else if f.skip {
            Vec::new()
        } else {
            vec![field_wire(f, rule)]
        };
        if tuple {
            continue;
        }
        for k in &keys {
            if !ser.insert(k.clone()) {
                return Err(format!("duplicate wire key {k}"));
            }
        }
        let mut dk = keys.clone();
        if !f.flatten && !f.skip {
            dk.extend(f.alias.iter().cloned());
        }
        for k in dk {
            if !de.insert(k.clone()) {
                return Err(format!("duplicate accepted key {k}"));
            }
        }
    }
    if let Some(t) = &def.tag
        && de.contains(t)
    {
        return Err("struct tag collides with a field".into());
    }
    Ok(())
}

/// Whether serde_derive and rustc accept the schema (and the generator can build values of it).
pub fn validate(s: &Schema) -> Result<(), String> {
    let mut names = BTreeSet::new();
    for def in &s.defs {
        if !names.insert(def.name.clone()) {
            return Err(format!("duplicate type {}", def.name));
        }
        match &def.body {
            Body::MacroNewtype(t) => {
                check_ty(s, t, false, &def.name)?;
                swaps::check_plain(t)?;
                if !s.defaultable(t) || !is_primitive(t) && !matches!(t, Ty::Vec(_)) {
                    return Err("macro newtype inner".into());
                }
                if def.deny_unknown
                    || def.default
                    || def.transparent
                    || def.tag.is_some()
                    || def.rename_all.is_some()
                    || def.rename.is_some()
                {
                    return Err("attributes on a macro newtype".into());
                }
            }
            Body::Struct(shape) => {
                check_fields(s, def, shape, false, def.rename_all)?;
                let n = shape.fields().len();
                if def.transparent
                    && (n != 1
                        || def.tag.is_some()
                        || def.deny_unknown
                        || def.default
                        || shape.fields()[0].skip
                        || shape.fields()[0].default)
                {
                    return Err("transparent".into());
                }
                if def.tag.is_some() && !matches!(shape, Shape::Named(_)) {
                    return Err("tag on a tuple struct".into());
                }
                if def.default
                    && (!matches!(shape, Shape::Named(_))
                        || n == 0
                        || !s.def_defaultable(&def.name, &mut Vec::new()))
                {
                    return Err("container default".into());
                }
                if def.deny_unknown && !matches!(shape, Shape::Named(_)) {
                    return Err("deny_unknown_fields on a tuple struct".into());
                }
            }
            Body::Enum(vs, repr) => {
                if vs.is_empty() {
                    return Err("empty enum".into());
                }
                swaps::check_enum(def)?;
                if def.transparent || def.tag.is_some() || def.default || def.deny_unknown {
                    return Err("struct attributes on an enum".into());
                }
                let mut rust = BTreeSet::new();
                let mut wire = BTreeSet::new();
                let mut seen_untagged = false;
                for (i, v) in vs.iter().enumerate() {
                    if !rust.insert(v.name.clone()) {
                        return Err(format!("duplicate variant {}", v.name));
                    }
                    check_fields(s, def, &v.shape, true, None)?;
                    if v.untagged {
                        if *repr == Repr::Untagged || v.other {
                            return Err("untagged variant".into());
                        }
                        seen_untagged = true;
                    } else {
                        if seen_untagged {
                            return Err("untagged variants must be last".into());
                        }
                        let mut keys = vec![variant_wire(v, def.rename_all)];
                        keys.extend(v.alias.iter().cloned());
                        for k in keys {
                            if !wire.insert(k.clone()) {
                                return Err(format!("duplicate variant tag {k}"));
                            }
                        }
                    }
                    if v.other
                        && (i + 1 != vs.len()
                            || v.shape != Shape::Unit
                            || *repr == Repr::Untagged
                            || vs.iter().any(|x| x.untagged))
                    {
                        return Err("other".into());
                    }
                    match repr {
                        Repr::Internal(tag) if !v.untagged => {
                            if let Shape::Tuple(fs) = &v.shape
                                && fs.len() != 1
                            {
                                return Err("tuple variant in an internally tagged enum".into());
                            }
                            if v.shape.fields().iter().any(|f| {
                                matches!(v.shape, Shape::Named(_))
                                    && (field_wire(f, None) == *tag || f.alias.contains(tag))
                            }) {
                                return Err("variant field named like the tag".into());
                            }
                        }
                        Repr::Adjacent(t, c) if t == c => {
                            return Err("tag and content keys are equal".into());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // Flattened enums: their keys must not collide with the parent's (checked above through
    // flat_keys); a flattened untagged enum has no keys of its own, which serde cannot flatten
    // predictably, so it is left out.
    for def in &s.defs {
        if let Body::Struct(Shape::Named(fs)) = &def.body {
            for f in fs.iter().filter(|f| f.flatten) {
                if let Ty::Named(n) = &f.ty
                    && let Some(Body::Enum(_, Repr::Untagged)) = s.def(n).map(|d| &d.body)
                {
                    return Err("flattened untagged enum".into());
                }
            }
        }
    }
    Ok(())
}

/// Pairs always generated (before the random ones), for rules that need one particular shape: the
/// untagged enum whose variants overlap, an optional field that writers skip.
const COVERAGE: &[(&str, &str)] = &[
    ("resource_request", "reorder_variants"),
    ("resource_request", "insert_variant_first"),
    ("hello_response", "deserialize_with_without_default"),
    ("span", "change_tuple_length"),
    ("span", "change_array_length"),
    ("stats", "list_to_set_or_back"),
    ("stats", "change_map_key"),
    ("heartbeat", "toggle_deny_unknown_fields"),
    ("heartbeat", "change_struct_tag"),
    ("alloc_request", "change_float_width"),
    ("alloc_request", "float_to_integer"),
    ("alloc_request", "change_integer_type"),
    ("envelope", "toggle_transparent"),
    ("eventlog_entry", "toggle_flatten"),
    ("job_event", "change_enum_repr"),
    ("job_event", "add_variant"),
    ("ready_request", "add_variant"),
    ("state_event", "remove_variant"),
    ("state_event", "rename_variant_wire"),
    ("timeout", "change_external_type"),
    ("exec_start", "toggle_with"),
    ("hello_response", "add_required_field"),
    ("hello_response", "remove_field"),
    ("hello_response", "rename_field_wire"),
    ("hosts", "add_skip_serializing_if"),
    ("kill", "make_optional"),
    ("hello_response", "make_required"),
    ("shell_init", "add_option_field"),
    ("alloc_request", "toggle_nonzero"),
    ("timeout", "toggle_ip_version"),
    ("alloc_response", "toggle_bytes"),
    ("job_record", "string_to_catalogue_type"),
    ("hello_response", "string_to_catalogue_type"),
    ("job_record", "chrono_to_time_or_back"),
    ("job_record", "chrono_to_time_or_back"),
    ("job_record", "change_timestamp_unit"),
    ("job_record", "change_timestamp_unit"),
    ("log_line", "change_timestamp_unit"),
    ("job_record", "toggle_number_wrapper"),
    ("alloc_request", "toggle_number_wrapper"),
    ("job_record", "toggle_index_map"),
    ("exec_start", "toggle_index_map"),
    ("std_bag", "toggle_arc"),
    ("std_bag", "swap_std_type"),
    ("std_bag", "swap_std_type"),
    ("log_line", "toggle_display_from_str"),
    ("sample_batch", "toggle_display_from_str"),
    ("hello_response", "toggle_display_from_str"),
    ("log_line", "toggle_bool_from_int"),
    ("sample_batch", "toggle_bool_from_int"),
    ("log_line", "change_bytes_encoding"),
    ("sample_batch", "change_bytes_encoding"),
    ("log_line", "toggle_one_or_many"),
    ("sample_batch", "toggle_one_or_many"),
    ("sample_batch", "toggle_default_on_null"),
    ("log_line", "toggle_default_on_null"),
    ("sample_batch", "toggle_skip_serializing_none"),
    ("hello_response", "toggle_skip_serializing_none"),
    ("log_line", "toggle_serde_repr"),
    ("job_record", "toggle_serde_repr"),
    ("exec_output", "toggle_serde_repr"),
    ("job_record", "change_discriminants"),
];

/// `n` pairs from `seed`: first the [`COVERAGE`] pairs and every mutation alone (round-robin over the corpus, each kind several
/// times), then combinations of two or three; about a third are reversed (the mutated side is the old
/// release), and each corpus entry is also paired with itself.
pub fn pairs(n: usize, seed: u64) -> Vec<Pair> {
    let corpus = corpus();
    let mut rng = Rng::new(seed);
    let mut out: Vec<Pair> = Vec::new();
    for (base, schema) in &corpus {
        validate(schema).unwrap_or_else(|e| panic!("corpus entry {base} is invalid: {e}"));
        out.push(Pair {
            id: out.len() + 1,
            base,
            mutations: Vec::new(),
            old: schema.clone(),
            new: schema.clone(),
        });
    }
    for (base, mutation) in COVERAGE {
        let (base, schema) = corpus
            .iter()
            .find(|(b, _)| b == base)
            .unwrap_or_else(|| panic!("COVERAGE names no corpus entry {base}"));
        let (name, m) = MUTATIONS
            .iter()
            .find(|(n, _)| n == mutation)
            .unwrap_or_else(|| panic!("COVERAGE names no mutation {mutation}"));
        // The mutation picks its site at random: draw until it applies.
        let (new, text) = (0..64)
            .find_map(|_| {
                let mut new = schema.clone();
                let text = m(&mut new, &mut rng)?;
                validate(&new).ok()?;
                Some((new, text))
            })
            .unwrap_or_else(|| panic!("COVERAGE: {mutation} does not apply to {base}"));
        out.push(Pair {
            id: out.len() + 1,
            base,
            mutations: vec![format!("{name}: {text}")],
            old: schema.clone(),
            new,
        });
    }
    let fixed = out.len();
    let singles = (n - fixed) / 2;
    let mut attempt = 0usize;
    while out.len() < n {
        attempt += 1;
        assert!(
            attempt < n * 200,
            "generator stuck after {} pairs",
            out.len()
        );
        let single = out.len() < fixed + singles;
        let count = if single { 1 } else { 2 + rng.below(2) };
        let (base, schema) = if single {
            &corpus[(attempt + attempt / corpus.len()) % corpus.len()]
        } else {
            rng.pick(&corpus)
        };
        let mut new = schema.clone();
        let mut done = Vec::new();
        for _ in 0..count {
            let (name, m) = if single {
                MUTATIONS[(out.len() - fixed) % MUTATIONS.len()]
            } else {
                *rng.pick(MUTATIONS)
            };
            if let Some(text) = m(&mut new, &mut rng) {
                done.push(format!("{name}: {text}"));
            }
        }
        if done.len() < count || validate(&new).is_err() {
            continue;
        }
        let (old, new) = if rng.chance(3) {
            done.push("(reversed: the mutated side is the old release)".into());
            (new, schema.clone())
        } else {
            (schema.clone(), new)
        };
        out.push(Pair {
            id: out.len() + 1,
            base,
            mutations: done,
            old,
            new,
        });
    }
    out
}
