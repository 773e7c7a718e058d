//! Resolution of model types into wire shapes: generic substitution, aliases, `into`/`from` proxies,
//! transparent and newtype structs, and the flattened key namespace of structs.

use std::collections::HashSet;

use crate::findings::Side;
use crate::model::{
    AllowDecl, Body, ContainerAttrs, EnumRepr, Field, SeqKind, SkipSer, Snapshot, Style, Ty,
    TypeDef, Variant,
};

/// How deep resolution and comparison go before giving up (generic instantiations can grow forever).
pub(crate) const MAX_DEPTH: usize = 64;

/// One revision's snapshot, and which side of the comparison it is.
#[derive(Clone, Copy)]
pub(crate) struct SideRef<'a> {
    pub snap: &'a Snapshot,
    pub side: Side,
}

/// Whether a type is looked at as written (`into` applies) or as read (`from` applies).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Role {
    Writer,
    Reader,
}

/// A braced struct, with fields already substituted.
#[derive(Clone, Debug)]
pub(crate) struct Obj {
    pub fields: Vec<Field>,
    pub attrs: ContainerAttrs,
}

/// An enum, with variant fields already substituted.
#[derive(Clone, Debug)]
pub(crate) struct EnumDef {
    pub variants: Vec<Variant>,
    pub attrs: ContainerAttrs,
}

/// What a type is on the wire, one level deep.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Bool,
    Char,
    Str,
    Int {
        signed: bool,
        bits: u8,
    },
    Float {
        bits: u8,
    },
    /// `()`, a unit struct: `null`.
    Unit,
    /// `serde_json::Value`.
    Value,
    Option(Ty),
    Seq(SeqKind, Ty),
    Array(Ty, u64),
    /// Tuples and tuple structs of two or more fields (the fields, for names and locations).
    Tuple(Vec<Ty>, Vec<Field>),
    Map(Ty, Ty),
    Struct(Obj),
    Enum(EnumDef),
    /// A type from another crate: compared by path.
    External(String),
    /// A named type missing from the snapshot, or an unbound generic parameter.
    Unresolved(String),
}

/// A resolved type: its shape and the outermost definition it went through, if any.
pub(crate) struct Resolved<'a> {
    pub shape: Shape,
    pub def: Option<&'a TypeDef>,
}

/// Substitutes generic parameters.
pub(crate) fn subst(ty: &Ty, params: &[String], args: &[Ty]) -> Ty {
    if params.is_empty() {
        return ty.clone();
    }
    let s = |t: &Ty| Box::new(subst(t, params, args));
    match ty {
        Ty::Param { name } => match params.iter().position(|p| p == name) {
            Some(i) => args.get(i).cloned().unwrap_or_else(|| ty.clone()),
            None => ty.clone(),
        },
        Ty::Option { inner } => Ty::Option { inner: s(inner) },
        Ty::Seq { kind, elem } => Ty::Seq {
            kind: *kind,
            elem: s(elem),
        },
        Ty::Array { elem, len } => Ty::Array {
            elem: s(elem),
            len: *len,
        },
        Ty::Tuple { elems } => Ty::Tuple {
            elems: elems.iter().map(|t| subst(t, params, args)).collect(),
        },
        Ty::Map { key, value } => Ty::Map {
            key: s(key),
            value: s(value),
        },
        Ty::Named { path, args: a } => Ty::Named {
            path: path.clone(),
            args: a.iter().map(|t| subst(t, params, args)).collect(),
        },
        other => other.clone(),
    }
}

fn subst_field(f: &Field, params: &[String], args: &[Ty]) -> Field {
    let mut f = f.clone();
    f.ty = subst(&f.ty, params, args);
    f
}

fn subst_attrs(a: &ContainerAttrs, params: &[String], args: &[Ty]) -> ContainerAttrs {
    let mut a = a.clone();
    if let Some(p) = &mut a.from {
        p.ty = subst(&p.ty, params, args);
    }
    if let Some(t) = &mut a.into {
        *t = subst(t, params, args);
    }
    a
}

/// Whether a definition is a braced struct with exactly one field (where `transparent` changes the wire).
pub(crate) fn is_braced_single(def: &TypeDef) -> bool {
    matches!(&def.body, Body::Struct { style: Style::Named, fields } if fields.len() == 1)
}

/// Whether a field is written by its writer.
pub(crate) fn written(f: &Field) -> bool {
    f.skip_ser != SkipSer::Always
}

/// Resolves `ty` on `side` one wire level deep.
pub(crate) fn resolve<'a>(side: SideRef<'a>, ty: &Ty, role: Role) -> Resolved<'a> {
    let mut cur = ty.clone();
    let mut first: Option<&'a TypeDef> = None;
    for _ in 0..MAX_DEPTH {
        let shape = match &cur {
            Ty::Bool => Shape::Bool,
            Ty::Char => Shape::Char,
            Ty::String => Shape::Str,
            Ty::Int { signed, bits } => Shape::Int {
                signed: *signed,
                bits: *bits,
            },
            Ty::Float { bits } => Shape::Float { bits: *bits },
            Ty::Unit => Shape::Unit,
            Ty::Value => Shape::Value,
            Ty::Option { inner } => Shape::Option((**inner).clone()),
            Ty::Seq { kind, elem } => Shape::Seq(*kind, (**elem).clone()),
            Ty::Array { elem, len } => Shape::Array((**elem).clone(), *len),
            Ty::Tuple { elems } if elems.is_empty() => Shape::Unit,
            Ty::Tuple { elems } => Shape::Tuple(elems.clone(), Vec::new()),
            Ty::Map { key, value } => Shape::Map((**key).clone(), (**value).clone()),
            Ty::External { path } => Shape::External(path.clone()),
            Ty::Param { name } => Shape::Unresolved(name.clone()),
            Ty::Named { path, args } => {
                let Some(def) = side.snap.types.get(path) else {
                    return Resolved {
                        shape: Shape::Unresolved(path.clone()),
                        def: first,
                    };
                };
                first.get_or_insert(def);
                let params = &def.generics;
                match role {
                    Role::Writer => {
                        if let Some(into) = &def.attrs.into {
                            cur = subst(into, params, args);
                            continue;
                        }
                    }
                    Role::Reader => {
                        if let Some(from) = &def.attrs.from {
                            cur = subst(&from.ty, params, args);
                            continue;
                        }
                    }
                }
                match &def.body {
                    Body::Alias { target } => {
                        cur = subst(target, params, args);
                        continue;
                    }
                    Body::Struct { style, fields } => {
                        let present: Vec<&Field> = fields
                            .iter()
                            .filter(|f| match role {
                                Role::Writer => written(f),
                                Role::Reader => !f.skip_de,
                            })
                            .collect();
                        if def.attrs.transparent {
                            match present.first() {
                                Some(f) => {
                                    cur = subst(&f.ty, params, args);
                                    continue;
                                }
                                None => Shape::Unit,
                            }
                        } else {
                            match style {
                                Style::Unit => Shape::Unit,
                                Style::Tuple if fields.len() == 1 => match present.first() {
                                    Some(f) if f.custom.is_none() => {
                                        cur = subst(&f.ty, params, args);
                                        continue;
                                    }
                                    Some(f) => Shape::External(format!(
                                        "{path} (custom: {})",
                                        custom_text(f)
                                    )),
                                    None => Shape::Unit,
                                },
                                Style::Tuple => {
                                    let fs: Vec<Field> = present
                                        .iter()
                                        .map(|f| subst_field(f, params, args))
                                        .collect();
                                    Shape::Tuple(fs.iter().map(|f| f.ty.clone()).collect(), fs)
                                }
                                Style::Named => Shape::Struct(Obj {
                                    fields: fields
                                        .iter()
                                        .map(|f| subst_field(f, params, args))
                                        .collect(),
                                    attrs: subst_attrs(&def.attrs, params, args),
                                }),
                            }
                        }
                    }
                    Body::Enum { variants } => Shape::Enum(EnumDef {
                        variants: variants
                            .iter()
                            .map(|v| {
                                let mut v = v.clone();
                                v.fields = v
                                    .fields
                                    .iter()
                                    .map(|f| subst_field(f, params, args))
                                    .collect();
                                v
                            })
                            .collect(),
                        attrs: subst_attrs(&def.attrs, params, args),
                    }),
                }
            }
        };
        return Resolved { shape, def: first };
    }
    Resolved {
        shape: Shape::Unresolved(format!("{ty} (too deep)")),
        def: first,
    }
}

/// A short description of a field's custom functions.
pub(crate) fn custom_text(f: &Field) -> String {
    match &f.custom {
        Some(c) => {
            let mut parts = Vec::new();
            if let Some(s) = &c.ser {
                parts.push(format!("serialize_with = {s}"));
            }
            if let Some(d) = &c.de {
                parts.push(format!("deserialize_with = {d}"));
            }
            parts.join(", ")
        }
        None => String::new(),
    }
}

/// A field of a struct's flattened key namespace.
#[derive(Clone, Debug)]
pub(crate) struct FlatField {
    /// Rust names from the outer struct down (flattened fields add their own name).
    pub path: Vec<String>,
    pub field: Field,
    /// The container of this field has `#[serde(default)]`.
    pub container_default: bool,
    /// `allow` declarations of the flattened fields this one sits in.
    pub allows: Vec<AllowDecl>,
    /// Sits inside a flattened `Option`: may be absent as a whole.
    pub optional_parent: bool,
}

impl FlatField {
    /// The key written.
    pub fn key(&self) -> &str {
        &self.field.ser_name
    }

    /// Whether a reader of this field tolerates its key missing (serde's rules: field or container
    /// `default`, or `Option` without `deserialize_with`).
    pub fn tolerates_absence(&self) -> bool {
        self.field.default
            || self.container_default
            || self.optional_parent
            || (matches!(self.field.ty, Ty::Option { .. }) && !has_custom_de(&self.field))
    }
}

/// Whether a field has a custom deserializer.
pub(crate) fn has_custom_de(f: &Field) -> bool {
    f.custom.as_ref().is_some_and(|c| c.de.is_some())
}

/// The key namespace of a braced struct (or struct variant) with flattened fields inlined.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlatObj {
    pub fields: Vec<FlatField>,
    /// A flattened map: its key and value types and the field's path (absorbs unknown keys, writes
    /// arbitrary ones).
    pub rest: Option<(Ty, Ty, Vec<String>)>,
    /// Flattened enums.
    pub enums: Vec<FlatField>,
    /// Flattened fields the checker cannot see into.
    pub opaque: Vec<FlatField>,
    /// `deny_unknown_fields`.
    pub deny: bool,
    /// `#[serde(tag = "...")]` on a struct: the key and the value written.
    pub tag: Option<(String, String)>,
}

/// Builds the flattened namespace of `fields` (with their container's `attrs`).
pub(crate) fn flatten(
    side: SideRef<'_>,
    role: Role,
    fields: &[Field],
    attrs: &ContainerAttrs,
) -> FlatObj {
    let mut out = FlatObj {
        deny: attrs.deny_unknown_fields,
        tag: match &attrs.repr {
            EnumRepr::Internal { tag } => Some((tag.clone(), attrs.ser_name.clone())),
            _ => None,
        },
        ..FlatObj::default()
    };
    flatten_into(
        side,
        role,
        fields,
        attrs.default,
        &[],
        &[],
        false,
        &mut out,
        0,
    );
    out
}

#[allow(clippy::too_many_arguments)]
fn flatten_into(
    side: SideRef<'_>,
    role: Role,
    fields: &[Field],
    container_default: bool,
    prefix: &[String],
    allows: &[AllowDecl],
    optional_parent: bool,
    out: &mut FlatObj,
    depth: usize,
) {
    for f in fields {
        let present = match role {
            Role::Writer => written(f),
            Role::Reader => !f.skip_de,
        };
        if !present {
            continue;
        }
        let mut path = prefix.to_vec();
        path.push(f.rust_name.clone());
        let flat = FlatField {
            path: path.clone(),
            field: f.clone(),
            container_default,
            allows: allows.to_vec(),
            optional_parent,
        };
        if !f.flatten {
            out.fields.push(flat);
            continue;
        }
        let mut optional = optional_parent;
        let mut ty = f.ty.clone();
        if let Ty::Option { inner } = &ty {
            optional = true;
            ty = (**inner).clone();
        }
        let mut inner_allows = allows.to_vec();
        inner_allows.extend(f.allow.iter().cloned());
        match resolve(side, &ty, role).shape {
            Shape::Struct(obj) if depth < MAX_DEPTH => flatten_into(
                side,
                role,
                &obj.fields,
                obj.attrs.default,
                &path,
                &inner_allows,
                optional,
                out,
                depth + 1,
            ),
            Shape::Map(k, v) => out.rest = Some((k, v, path)),
            Shape::Value => out.rest = Some((Ty::String, Ty::Value, path)),
            Shape::Enum(_) => out.enums.push(flat),
            _ => out.opaque.push(flat),
        }
    }
}

/// Wire equality of two closed types from two snapshots: same definitions up to locations, `since`,
/// `allow` and Rust-only names. Co-inductive on recursive types.
pub(crate) struct WireEq<'a> {
    a: &'a Snapshot,
    b: &'a Snapshot,
    assumed: HashSet<(Ty, Ty)>,
}

impl<'a> WireEq<'a> {
    pub fn new(a: &'a Snapshot, b: &'a Snapshot) -> Self {
        WireEq {
            a,
            b,
            assumed: HashSet::new(),
        }
    }

    /// Whether `x` (in the first snapshot) and `y` (in the second) are the same on the wire.
    pub fn ty(&mut self, x: &Ty, y: &Ty) -> bool {
        let same = self.ty_depth(x, y, 0);
        if !same {
            // Assumptions made on the way may be false: only a successful proof may be kept.
            self.assumed.clear();
        }
        same
    }

    fn ty_depth(&mut self, x: &Ty, y: &Ty, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let d = depth + 1;
        match (x, y) {
            (Ty::Named { path: p, args: a }, Ty::Named { path: q, args: b }) => {
                let key = (x.clone(), y.clone());
                if self.assumed.contains(&key) {
                    return true;
                }
                let (Some(da), Some(db)) = (self.a.types.get(p), self.b.types.get(q)) else {
                    return false;
                };
                self.assumed.insert(key);
                self.def(da, a, db, b, d)
            }
            (Ty::Option { inner: a }, Ty::Option { inner: b }) => self.ty_depth(a, b, d),
            (Ty::Seq { kind: k, elem: a }, Ty::Seq { kind: l, elem: b }) => {
                k == l && self.ty_depth(a, b, d)
            }
            (Ty::Array { elem: a, len: n }, Ty::Array { elem: b, len: m }) => {
                n == m && self.ty_depth(a, b, d)
            }
            (Ty::Tuple { elems: a }, Ty::Tuple { elems: b }) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| self.ty_depth(a, b, d))
            }
            (Ty::Map { key: k, value: v }, Ty::Map { key: l, value: w }) => {
                self.ty_depth(k, l, d) && self.ty_depth(v, w, d)
            }
            (Ty::Named { .. }, _) | (_, Ty::Named { .. }) => false,
            _ => x == y,
        }
    }

    fn opt_ty(&mut self, x: Option<&Ty>, y: Option<&Ty>, d: usize) -> bool {
        match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => self.ty_depth(x, y, d),
            _ => false,
        }
    }

    fn def(&mut self, da: &TypeDef, a: &[Ty], db: &TypeDef, b: &[Ty], d: usize) -> bool {
        let (pa, pb) = (&da.generics, &db.generics);
        let (xa, xb) = (subst_attrs(&da.attrs, pa, a), subst_attrs(&db.attrs, pb, b));
        if xa.deny_unknown_fields != xb.deny_unknown_fields
            || xa.default != xb.default
            || xa.transparent != xb.transparent
            || xa.repr != xb.repr
            || (matches!(xa.repr, EnumRepr::Internal { .. }) && xa.ser_name != xb.ser_name)
            || xa.from.as_ref().map(|p| p.fallible) != xb.from.as_ref().map(|p| p.fallible)
            || !self.opt_ty(
                xa.from.as_ref().map(|p| &p.ty),
                xb.from.as_ref().map(|p| &p.ty),
                d,
            )
            || !self.opt_ty(xa.into.as_ref(), xb.into.as_ref(), d)
        {
            return false;
        }
        match (&da.body, &db.body) {
            (Body::Alias { target: x }, Body::Alias { target: y }) => {
                self.ty_depth(&subst(x, pa, a), &subst(y, pb, b), d)
            }
            (
                Body::Struct {
                    style: s,
                    fields: f,
                },
                Body::Struct {
                    style: t,
                    fields: g,
                },
            ) => s == t && self.fields(f, pa, a, g, pb, b, d),
            (Body::Enum { variants: v }, Body::Enum { variants: w }) => {
                v.len() == w.len()
                    && v.iter().zip(w).all(|(v, w)| {
                        v.ser_name == w.ser_name
                            && v.de_names == w.de_names
                            && v.style == w.style
                            && v.skip_ser == w.skip_ser
                            && v.skip_de == w.skip_de
                            && v.other == w.other
                            && v.untagged == w.untagged
                            && v.custom == w.custom
                            && self.fields(&v.fields, pa, a, &w.fields, pb, b, d)
                    })
            }
            _ => false,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn fields(
        &mut self,
        f: &[Field],
        pa: &[String],
        a: &[Ty],
        g: &[Field],
        pb: &[String],
        b: &[Ty],
        d: usize,
    ) -> bool {
        f.len() == g.len()
            && f.iter().zip(g).all(|(f, g)| {
                f.ser_name == g.ser_name
                    && f.de_names == g.de_names
                    && f.default == g.default
                    && f.skip_ser == g.skip_ser
                    && f.skip_de == g.skip_de
                    && f.flatten == g.flatten
                    && f.custom == g.custom
                    && self.ty_depth(&subst(&f.ty, pa, a), &subst(&g.ty, pb, b), d)
            })
    }
}
