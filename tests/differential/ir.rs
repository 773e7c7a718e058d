//! The generator's own model of Rust type definitions with serde attributes, and its rendering as Rust
//! source (type definitions, and constructor expressions for values of those types).
//!
//! This is deliberately independent of `wirecheck::model`: the point of the differential test is that the
//! engine reads the *rendered source* through its own extraction, and serde reads the same source through
//! the real derive.

use std::fmt::Write as _;

use super::rng::Rng;
pub use super::vocab::{Adapter, Ext, With};

/// The marker line that stands where the message type's `#[derive(Message)] #[wire(...)]` goes.
pub const MESSAGE_MARK: &str = "//@message";

/// An integer type (no 128-bit types: serde's buffered `Content` cannot hold them, which is a serde
/// limitation shared by both sides of every pair, not a compatibility question).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int {
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
}

impl Int {
    /// Every integer type.
    pub const ALL: [Int; 8] = [
        Int::U8,
        Int::U16,
        Int::U32,
        Int::U64,
        Int::I8,
        Int::I16,
        Int::I32,
        Int::I64,
    ];

    /// The Rust name.
    pub fn name(self) -> &'static str {
        match self {
            Int::U8 => "u8",
            Int::U16 => "u16",
            Int::U32 => "u32",
            Int::U64 => "u64",
            Int::I8 => "i8",
            Int::I16 => "i16",
            Int::I32 => "i32",
            Int::I64 => "i64",
        }
    }

    /// Signed?
    pub fn signed(self) -> bool {
        matches!(self, Int::I8 | Int::I16 | Int::I32 | Int::I64)
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Int::U8 | Int::I8 => 8,
            Int::U16 | Int::I16 => 16,
            Int::U32 | Int::I32 => 32,
            Int::U64 | Int::I64 => 64,
        }
    }

    /// The inclusive range.
    pub fn range(self) -> (i128, i128) {
        let bits = self.bits();
        if self.signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }

    /// The integer type of `bits` and signedness.
    pub fn of(signed: bool, bits: u32) -> Int {
        match (signed, bits) {
            (false, 8) => Int::U8,
            (false, 16) => Int::U16,
            (false, 32) => Int::U32,
            (false, _) => Int::U64,
            (true, 8) => Int::I8,
            (true, 16) => Int::I16,
            (true, 32) => Int::I32,
            (true, _) => Int::I64,
        }
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `bool`
    Bool,
    /// `char`
    Char,
    /// `String`
    Str,
    /// An integer.
    Int(Int),
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `()`
    Unit,
    /// `Option<T>`
    Opt(Box<Ty>),
    /// `Vec<T>`
    Vec(Box<Ty>),
    /// `BTreeSet<T>`
    Set(Box<Ty>),
    /// `[T; N]`
    Arr(Box<Ty>, usize),
    /// `(A, B, ..)`
    Tup(Vec<Ty>),
    /// `BTreeMap<K, V>`
    Map(Box<Ty>, Box<Ty>),
    /// `serde_json::Value`
    Value,
    /// A type defined in the schema.
    Named(String),
    /// `Box<T>`
    Boxed(Box<Ty>),
    /// A type of std or of a catalogued crate (see [`Ext`]).
    Ext(Ext),
    /// `indexmap::IndexMap<K, V>`
    IndexMap(Box<Ty>, Box<Ty>),
    /// `std::sync::Arc<T>`
    Arc(Box<Ty>),
    /// A field written through a catalogued `with` module (only a field's own type).
    With(With),
    /// The Rust type `T` written through a serde_with adapter (`#[serde_as(as = "...")]`); only in a
    /// named field's type, outside other adapters' sets, map keys and definitions.
    As(Box<Ty>, Adapter),
}

impl Ty {
    /// `Option<self>`.
    pub fn opt(self) -> Ty {
        Ty::Opt(Box::new(self))
    }

    /// `Vec<self>`.
    pub fn vec(self) -> Ty {
        Ty::Vec(Box::new(self))
    }

    /// The type as Rust source.
    pub fn render(&self) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::Char => "char".into(),
            Ty::Str => "String".into(),
            Ty::Int(i) => i.name().into(),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
            Ty::Unit => "()".into(),
            Ty::Opt(t) => format!("Option<{}>", t.render()),
            Ty::Vec(t) => format!("Vec<{}>", t.render()),
            Ty::Set(t) => format!("BTreeSet<{}>", t.render()),
            Ty::Arr(t, n) => format!("[{}; {n}]", t.render()),
            Ty::Tup(ts) => {
                let inner: Vec<String> = ts.iter().map(Ty::render).collect();
                if ts.len() == 1 {
                    format!("({},)", inner[0])
                } else {
                    format!("({})", inner.join(", "))
                }
            }
            Ty::Map(k, v) => format!("BTreeMap<{}, {}>", k.render(), v.render()),
            Ty::Value => "serde_json::Value".into(),
            Ty::Named(n) => n.clone(),
            Ty::Boxed(t) => format!("Box<{}>", t.render()),
            Ty::Ext(e) => e.render().into(),
            Ty::IndexMap(k, v) => format!("indexmap::IndexMap<{}, {}>", k.render(), v.render()),
            Ty::Arc(t) => format!("std::sync::Arc<{}>", t.render()),
            Ty::With(w) => w.field_ty().render().into(),
            Ty::As(t, _) => t.render(),
        }
    }

    /// The type as Rust source, with the adapter or `with` module it is written through.
    pub fn describe(&self) -> String {
        match (self, self.serde_as()) {
            (Ty::With(w), _) => format!("{} with {}", self.render(), w.module()),
            (_, Some(adapter)) => format!("{} as {adapter}", self.render()),
            _ => self.render(),
        }
    }

    /// The `#[serde_as(as = "...")]` text of the type, when an adapter is inside it (`_` stands for a
    /// part written as itself).
    pub fn serde_as(&self) -> Option<String> {
        let inner = |t: &Ty| t.serde_as().unwrap_or_else(|| "_".into());
        match self {
            Ty::As(t, a) => Some(match (a, &**t) {
                (Adapter::OneOrMany, Ty::Vec(e)) => a.render(&inner(e)),
                _ => a.render(&inner(t)),
            }),
            Ty::Opt(t) => t.serde_as().map(|a| format!("Option<{a}>")),
            Ty::Vec(t) => t.serde_as().map(|a| format!("Vec<{a}>")),
            Ty::Boxed(t) => t.serde_as().map(|a| format!("Box<{a}>")),
            Ty::Arr(t, n) => t.serde_as().map(|a| format!("[{a}; {n}]")),
            Ty::Map(k, v) => v.serde_as().map(|a| format!("BTreeMap<{}, {a}>", inner(k))),
            Ty::Tup(ts) => ts.iter().any(|t| t.serde_as().is_some()).then(|| {
                let parts: Vec<String> = ts.iter().map(inner).collect();
                if ts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }),
            _ => None,
        }
    }

    /// Whether the type is totally ordered (may be a set element or a map key).
    pub fn is_ord(&self) -> bool {
        match self {
            Ty::Bool | Ty::Char | Ty::Str | Ty::Int(_) | Ty::Unit => true,
            Ty::Tup(ts) => ts.iter().all(Ty::is_ord),
            _ => false,
        }
    }
}

/// A `skip_serializing_if` predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipIf {
    /// `Option::is_none`
    IsNone,
    /// `Vec::is_empty`
    VecEmpty,
    /// `String::is_empty`
    StrEmpty,
    /// `BTreeMap::is_empty`
    MapEmpty,
}

impl SkipIf {
    /// The predicate path.
    pub fn path(self) -> &'static str {
        match self {
            SkipIf::IsNone => "Option::is_none",
            SkipIf::VecEmpty => "Vec::is_empty",
            SkipIf::StrEmpty => "String::is_empty",
            SkipIf::MapEmpty => "BTreeMap::is_empty",
        }
    }

    /// The predicate that fits `ty`, if any.
    pub fn for_ty(ty: &Ty) -> Option<SkipIf> {
        match ty {
            Ty::Opt(_) => Some(SkipIf::IsNone),
            Ty::Vec(_) => Some(SkipIf::VecEmpty),
            Ty::Str => Some(SkipIf::StrEmpty),
            Ty::Map(..) => Some(SkipIf::MapEmpty),
            _ => None,
        }
    }
}

/// A field of a struct or a struct/tuple variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The Rust name (ignored for tuple fields).
    pub name: String,
    /// The type.
    pub ty: Ty,
    /// `rename = ".."`.
    pub rename: Option<String>,
    /// `alias = ".."`.
    pub alias: Vec<String>,
    /// `default`.
    pub default: bool,
    /// `skip_serializing_if = ".."`.
    pub skip_if: Option<SkipIf>,
    /// `skip`.
    pub skip: bool,
    /// `flatten`.
    pub flatten: bool,
    /// `deserialize_with = "crate::helpers::de_opt"` (an `Option` read through a function).
    pub de_with: bool,
    /// `with = "crate::helpers::same"` (functions that do what the derive would).
    pub with: bool,
    /// `with = "crate::helpers::<module>"`: an integer field's functions that write and read
    /// something else than the derive would.
    pub with_fn: Option<WithFn>,
}

/// The helper modules of `with` functions that change what an integer field is on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WithFn {
    /// `crate::helpers::int_text`: its decimal text, parsed back.
    IntText,
    /// `crate::helpers::small`: a `u8` (a larger value is an error to write), read as one.
    Small,
}

impl WithFn {
    /// The module, as the attribute names it.
    pub fn module(self) -> &'static str {
        match self {
            WithFn::IntText => "crate::helpers::int_text",
            WithFn::Small => "crate::helpers::small",
        }
    }

    /// Whether the module's functions compile for a field of the integer type `int`.
    pub fn fits(self, int: Int) -> bool {
        match self {
            WithFn::IntText => true,
            WithFn::Small => int != Int::I8,
        }
    }
}

impl Field {
    /// A plain field.
    pub fn new(name: &str, ty: Ty) -> Field {
        Field {
            name: name.into(),
            ty,
            rename: None,
            alias: Vec::new(),
            default: false,
            skip_if: None,
            skip: false,
            flatten: false,
            de_with: false,
            with: false,
            with_fn: None,
        }
    }

    /// With `default`.
    pub fn dflt(mut self) -> Field {
        self.default = true;
        self
    }

    /// With `default, skip_serializing_if`.
    pub fn optional(mut self) -> Field {
        self.default = true;
        self.skip_if = SkipIf::for_ty(&self.ty);
        self
    }

    /// With `rename`.
    pub fn wire(mut self, name: &str) -> Field {
        self.rename = Some(name.into());
        self
    }

    /// With `flatten`.
    pub fn flat(mut self) -> Field {
        self.flatten = true;
        self
    }

    fn attrs(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(r) = &self.rename {
            a.push(format!("rename = {r:?}"));
        }
        for al in &self.alias {
            a.push(format!("alias = {al:?}"));
        }
        if self.default {
            a.push("default".into());
        }
        if let Some(p) = self.skip_if {
            a.push(format!("skip_serializing_if = {:?}", p.path()));
        }
        if self.skip {
            a.push("skip".into());
        }
        if self.flatten {
            a.push("flatten".into());
        }
        if self.de_with {
            a.push("deserialize_with = \"crate::helpers::de_opt\"".into());
        }
        if self.with {
            a.push("with = \"crate::helpers::same\"".into());
        }
        if let Some(with_fn) = self.with_fn {
            a.push(format!("with = {:?}", with_fn.module()));
        }
        if let Ty::With(w) = &self.ty {
            a.push(format!("with = {:?}", w.module()));
        }
        a
    }

    /// Whether the field is written through an adapter or a `with` module of another crate.
    pub fn adapted(&self) -> bool {
        matches!(self.ty, Ty::With(_)) || self.ty.serde_as().is_some()
    }
}

/// The fields of a struct or a variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `{ a: T }`
    Named(Vec<Field>),
    /// `(T, U)`
    Tuple(Vec<Field>),
    /// No fields.
    Unit,
}

impl Shape {
    /// The fields.
    pub fn fields(&self) -> &[Field] {
        match self {
            Shape::Named(f) | Shape::Tuple(f) => f,
            Shape::Unit => &[],
        }
    }

    /// The fields, mutably.
    pub fn fields_mut(&mut self) -> Option<&mut Vec<Field>> {
        match self {
            Shape::Named(f) | Shape::Tuple(f) => Some(f),
            Shape::Unit => None,
        }
    }
}

/// An enum variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The Rust name.
    pub name: String,
    /// The payload.
    pub shape: Shape,
    /// `rename = ".."`.
    pub rename: Option<String>,
    /// `alias = ".."`.
    pub alias: Vec<String>,
    /// `other`.
    pub other: bool,
    /// Per-variant `untagged`.
    pub untagged: bool,
    /// An explicit discriminant (`= 3`; only in a serde_repr enum).
    pub disc: Option<i64>,
}

impl Variant {
    /// A variant.
    pub fn new(name: &str, shape: Shape) -> Variant {
        Variant {
            name: name.into(),
            shape,
            rename: None,
            alias: Vec::new(),
            other: false,
            untagged: false,
            disc: None,
        }
    }

    /// A unit variant.
    pub fn unit(name: &str) -> Variant {
        Variant::new(name, Shape::Unit)
    }

    /// A newtype variant.
    pub fn newtype(name: &str, ty: Ty) -> Variant {
        Variant::new(name, Shape::Tuple(vec![Field::new("0", ty)]))
    }

    /// A struct variant.
    pub fn named(name: &str, fields: Vec<Field>) -> Variant {
        Variant::new(name, Shape::Named(fields))
    }

    fn attrs(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(r) = &self.rename {
            a.push(format!("rename = {r:?}"));
        }
        for al in &self.alias {
            a.push(format!("alias = {al:?}"));
        }
        if self.other {
            a.push("other".into());
        }
        if self.untagged {
            a.push("untagged".into());
        }
        a
    }
}

/// An enum representation.
#[derive(Clone, Debug, PartialEq)]
pub enum Repr {
    /// serde's default.
    External,
    /// `tag = ".."`
    Internal(String),
    /// `tag = "..", content = ".."`
    Adjacent(String, String),
    /// `untagged`
    Untagged,
    /// serde_repr's `Serialize_repr`/`Deserialize_repr` with `#[repr(int)]`: each (unit) variant is its
    /// discriminant.
    Integer(Int),
}

/// A definition's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A struct.
    Struct(Shape),
    /// An enum.
    Enum(Vec<Variant>, Repr),
    /// A newtype struct written by a `macro_rules!` the checker cannot expand.
    MacroNewtype(Ty),
}

/// A type definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    /// The Rust name.
    pub name: String,
    /// The body.
    pub body: Body,
    /// `deny_unknown_fields`.
    pub deny_unknown: bool,
    /// Container `default`.
    pub default: bool,
    /// `transparent`.
    pub transparent: bool,
    /// `tag = ".."` on a struct.
    pub tag: Option<String>,
    /// `rename_all = ".."`.
    pub rename_all: Option<&'static str>,
    /// Container `rename = ".."`.
    pub rename: Option<String>,
    /// serde_with's `#[skip_serializing_none]`.
    pub skip_none: bool,
}

impl Def {
    /// A struct with named fields.
    pub fn st(name: &str, fields: Vec<Field>) -> Def {
        Def::new(name, Body::Struct(Shape::Named(fields)))
    }

    /// A tuple struct.
    pub fn tuple(name: &str, tys: Vec<Ty>) -> Def {
        let fields = tys
            .into_iter()
            .enumerate()
            .map(|(i, t)| Field::new(&i.to_string(), t))
            .collect();
        Def::new(name, Body::Struct(Shape::Tuple(fields)))
    }

    /// An enum.
    pub fn en(name: &str, repr: Repr, variants: Vec<Variant>) -> Def {
        Def::new(name, Body::Enum(variants, repr))
    }

    /// A definition with no container attributes.
    pub fn new(name: &str, body: Body) -> Def {
        Def {
            name: name.into(),
            body,
            deny_unknown: false,
            default: false,
            transparent: false,
            tag: None,
            rename_all: None,
            rename: None,
            skip_none: false,
        }
    }

    /// With `rename_all`.
    pub fn case(mut self, rule: &'static str) -> Def {
        self.rename_all = Some(rule);
        self
    }

    fn container_attrs(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(r) = &self.rename {
            a.push(format!("rename = {r:?}"));
        }
        if let Some(r) = self.rename_all {
            a.push(format!("rename_all = {r:?}"));
        }
        if let Some(t) = &self.tag {
            a.push(format!("tag = {t:?}"));
        }
        if let Body::Enum(_, repr) = &self.body {
            match repr {
                Repr::External => {}
                Repr::Internal(t) => a.push(format!("tag = {t:?}")),
                Repr::Adjacent(t, c) => {
                    a.push(format!("tag = {t:?}"));
                    a.push(format!("content = {c:?}"));
                }
                Repr::Untagged => a.push("untagged".into()),
                Repr::Integer(_) => {}
            }
        }
        if self.deny_unknown {
            a.push("deny_unknown_fields".into());
        }
        if self.default {
            a.push("default".into());
        }
        if self.transparent {
            a.push("transparent".into());
        }
        a
    }
}

/// A set of definitions; the first is the message.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// The definitions.
    pub defs: Vec<Def>,
}

fn serde_attr(out: &mut String, indent: &str, attrs: &[String]) {
    if !attrs.is_empty() {
        let _ = writeln!(out, "{indent}#[serde({})]", attrs.join(", "));
    }
}

fn render_fields(out: &mut String, shape: &Shape, indent: &str, public: bool) {
    let vis = if public { "pub " } else { "" };
    match shape {
        Shape::Named(fields) => {
            out.push_str(" {\n");
            for f in fields {
                if let Some(adapter) = f.ty.serde_as() {
                    let _ = writeln!(out, "{indent}#[serde_as(as = {adapter:?})]");
                }
                serde_attr(out, indent, &f.attrs());
                let _ = writeln!(out, "{indent}{vis}{}: {},", f.name, f.ty.render());
            }
            out.push_str(&indent[4..]);
            out.push('}');
        }
        Shape::Tuple(fields) => {
            out.push('(');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let a = f.attrs();
                if !a.is_empty() {
                    let _ = write!(out, "#[serde({})] ", a.join(", "));
                }
                let _ = write!(out, "{vis}{}", f.ty.render());
            }
            out.push(')');
        }
        Shape::Unit => {}
    }
}

/// The fields of a definition (a struct's, or every variant's).
pub fn def_fields(def: &Def) -> impl Iterator<Item = &Field> {
    let shapes: Vec<&Shape> = match &def.body {
        Body::Struct(shape) => vec![shape],
        Body::Enum(vs, _) => vs.iter().map(|v| &v.shape).collect(),
        Body::MacroNewtype(_) => Vec::new(),
    };
    shapes.into_iter().flat_map(Shape::fields)
}

impl Schema {
    /// The message definition.
    pub fn message(&self) -> &Def {
        &self.defs[0]
    }

    /// The definition named `name`.
    pub fn def(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// Whether `ty` implements `Default` (so `default` and `skip` may be used on a field of it).
    pub fn defaultable(&self, ty: &Ty) -> bool {
        self.defaultable_in(ty, &mut Vec::new())
    }

    fn defaultable_in(&self, ty: &Ty, visiting: &mut Vec<String>) -> bool {
        match ty {
            Ty::Ext(e) => e.defaultable(),
            Ty::With(w) => w.field_ty().defaultable(),
            Ty::Arr(t, n) => *n <= 32 && self.defaultable_in(t, visiting),
            Ty::Tup(ts) => ts.iter().all(|t| self.defaultable_in(t, visiting)),
            Ty::Boxed(t) | Ty::Arc(t) | Ty::As(t, _) => self.defaultable_in(t, visiting),
            Ty::Named(n) => self.def_defaultable(n, visiting),
            _ => true,
        }
    }

    /// Whether `#[derive(Default)]` can be put on the definition named `name`.
    pub fn def_defaultable(&self, name: &str, visiting: &mut Vec<String>) -> bool {
        if visiting.iter().any(|v| v == name) {
            return true;
        }
        let Some(def) = self.def(name) else {
            return false;
        };
        visiting.push(name.to_owned());
        let ok = match &def.body {
            Body::Struct(shape) => shape
                .fields()
                .iter()
                .all(|f| self.defaultable_in(&f.ty, visiting)),
            Body::Enum(vs, _) => vs.iter().any(|v| v.shape == Shape::Unit),
            Body::MacroNewtype(t) => self.defaultable_in(t, visiting),
        };
        visiting.pop();
        ok
    }

    /// The type definitions as Rust source. The message is preceded by [`MESSAGE_MARK`] on its own line.
    pub fn render_defs(&self) -> String {
        let mut out = String::new();
        if self
            .defs
            .iter()
            .any(|d| matches!(d.body, Body::MacroNewtype(_)))
        {
            out.push_str(
                "macro_rules! wire_newtype {\n    ($name:ident, $inner:ty) => {\n        #[derive(Serialize, Deserialize, Default)]\n        pub struct $name(pub $inner);\n    };\n}\n\n",
            );
        }
        for (i, def) in self.defs.iter().enumerate() {
            if let Body::MacroNewtype(t) = &def.body {
                let _ = writeln!(out, "wire_newtype!({}, {});\n", def.name, t.render());
                continue;
            }
            let default = self.def_defaultable(&def.name, &mut Vec::new());
            if def_fields(def).any(Field::adapted) {
                out.push_str("#[serde_with::serde_as]\n");
            }
            if def.skip_none {
                out.push_str("#[serde_with::skip_serializing_none]\n");
            }
            let derive = match &def.body {
                Body::Enum(_, Repr::Integer(_)) => {
                    "serde_repr::Serialize_repr, serde_repr::Deserialize_repr"
                }
                _ => "Serialize, Deserialize",
            };
            let _ = writeln!(
                out,
                "#[derive({derive}{})]",
                if default { ", Default" } else { "" }
            );
            if let Body::Enum(_, Repr::Integer(int)) = &def.body {
                let _ = writeln!(out, "#[repr({})]", int.name());
            }
            if i == 0 {
                out.push_str(MESSAGE_MARK);
                out.push('\n');
            }
            serde_attr(&mut out, "", &def.container_attrs());
            match &def.body {
                Body::Struct(shape) => {
                    let _ = write!(out, "pub struct {}", def.name);
                    render_fields(&mut out, shape, "    ", true);
                    if !matches!(shape, Shape::Named(_)) {
                        out.push(';');
                    }
                    out.push_str("\n\n");
                }
                Body::Enum(variants, _) => {
                    let _ = writeln!(out, "pub enum {} {{", def.name);
                    let default_at = variants.iter().position(|v| v.shape == Shape::Unit);
                    for (j, v) in variants.iter().enumerate() {
                        serde_attr(&mut out, "    ", &v.attrs());
                        if default && Some(j) == default_at {
                            out.push_str("    #[default]\n");
                        }
                        let _ = write!(out, "    {}", v.name);
                        render_fields(&mut out, &v.shape, "        ", false);
                        if let Some(d) = v.disc {
                            let _ = write!(out, " = {d}");
                        }
                        out.push_str(",\n");
                    }
                    out.push_str("}\n\n");
                }
                Body::MacroNewtype(_) => unreachable!("rendered above"),
            }
        }
        out
    }
}

/// Which value of a type to build.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// Options `None`, collections empty, numbers zero; enum variant number `k`.
    Min(usize),
    /// Options `Some`, collections filled, numbers at their maximum; enum variant number `k`.
    Max(usize),
    /// Random choices.
    Rand,
}

/// Builds Rust constructor expressions for values of a schema's types.
pub struct Values<'s> {
    schema: &'s Schema,
    /// Module prefix of the definitions (`old::`).
    prefix: &'s str,
}

fn int_lit(v: i128, int: Int) -> String {
    format!("{v}{}", int.name())
}

impl<'s> Values<'s> {
    /// Values of `schema`'s types, named with `prefix`.
    pub fn new(schema: &'s Schema, prefix: &'s str) -> Self {
        Values { schema, prefix }
    }

    /// A constructor expression for a value of `ty`.
    pub fn value(&self, ty: &Ty, pick: Pick, rng: &mut Rng, depth: usize) -> String {
        // Deep values (recursive types) shrink to their minimum.
        let pick = if depth > 4 {
            match pick {
                Pick::Max(k) => Pick::Min(k),
                Pick::Rand => Pick::Min(rng.below(4)),
                p => p,
            }
        } else {
            pick
        };
        let d = depth + 1;
        match ty {
            Ty::Bool => match pick {
                Pick::Min(_) => "false".into(),
                Pick::Max(_) => "true".into(),
                Pick::Rand => rng.chance(2).to_string(),
            },
            Ty::Char => {
                let c = match pick {
                    Pick::Min(_) => 'a',
                    Pick::Max(_) => 'é',
                    Pick::Rand => *rng.pick(&['a', 'é', '7', ' ']),
                };
                format!("{c:?}")
            }
            Ty::Str => {
                let s = match pick {
                    Pick::Min(_) => "",
                    Pick::Max(_) => "héllo wörld",
                    Pick::Rand => *rng.pick(&["", "x", "42", "true", "null", "é"]),
                };
                format!("String::from({s:?})")
            }
            Ty::Int(i) => {
                let (lo, hi) = i.range();
                let v = match pick {
                    Pick::Min(_) => 0,
                    Pick::Max(_) => hi,
                    Pick::Rand => {
                        let cands: Vec<i128> = [
                            0,
                            1,
                            -1,
                            lo,
                            hi,
                            127,
                            128,
                            255,
                            256,
                            65_535,
                            65_536,
                            4_294_967_295,
                            4_294_967_296,
                            -129,
                            -2_147_483_649,
                            9_007_199_254_740_993,
                        ]
                        .into_iter()
                        .filter(|v| (lo..=hi).contains(v))
                        .collect();
                        *rng.pick(&cands)
                    }
                };
                int_lit(v, *i)
            }
            Ty::F32 => match pick {
                Pick::Min(_) => "0.0f32".into(),
                Pick::Max(_) => "3.0e38f32".into(),
                Pick::Rand => (*rng.pick(&["0.5f32", "-1.5f32", "3.0f32", "16777217.0f32"])).into(),
            },
            Ty::F64 => match pick {
                Pick::Min(_) => "0.0f64".into(),
                Pick::Max(_) => "1e300f64".into(),
                Pick::Rand => (*rng.pick(&[
                    "0.5f64",
                    "-1.5f64",
                    "3.0f64",
                    "9007199254740993.0f64",
                    "1e-300f64",
                ]))
                .into(),
            },
            Ty::Unit => "()".into(),
            Ty::Opt(t) => match pick {
                Pick::Min(_) => "None".into(),
                Pick::Max(_) => format!("Some({})", self.value(t, pick, rng, d)),
                Pick::Rand => {
                    if rng.chance(2) {
                        "None".into()
                    } else {
                        format!("Some({})", self.value(t, pick, rng, d))
                    }
                }
            },
            Ty::Vec(t) => {
                let items = self.items(t, pick, rng, d);
                format!("vec![{}]", items.join(", "))
            }
            Ty::Set(t) => {
                let items = self.items(t, pick, rng, d);
                if items.is_empty() {
                    "std::collections::BTreeSet::new()".into()
                } else {
                    format!("std::collections::BTreeSet::from([{}])", items.join(", "))
                }
            }
            Ty::Map(k, v) => {
                let keys = self.items(k, pick, rng, d);
                if keys.is_empty() {
                    "std::collections::BTreeMap::new()".into()
                } else {
                    let entries: Vec<String> = keys
                        .iter()
                        .map(|key| format!("({key}, {})", self.value(v, pick, rng, d)))
                        .collect();
                    format!("std::collections::BTreeMap::from([{}])", entries.join(", "))
                }
            }
            Ty::Arr(t, n) => {
                let items: Vec<String> = (0..*n).map(|_| self.value(t, pick, rng, d)).collect();
                format!("[{}]", items.join(", "))
            }
            Ty::Tup(ts) => {
                let items: Vec<String> = ts.iter().map(|t| self.value(t, pick, rng, d)).collect();
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            Ty::Value => match pick {
                Pick::Min(_) => "serde_json::Value::Null".into(),
                Pick::Max(_) => "serde_json::json!({\"k\": [1, \"x\", null]})".into(),
                Pick::Rand => format!(
                    "serde_json::json!({})",
                    rng.pick(&["1", "\"s\"", "[1, 2]", "{\"a\": {}}", "true", "1.5", "null"])
                ),
            },
            Ty::Boxed(t) => format!("Box::new({})", self.value(t, pick, rng, d)),
            Ty::Ext(e) => e.value(pick, rng),
            Ty::With(w) => w.field_ty().value(pick, rng),
            Ty::As(t, _) => self.value(t, pick, rng, depth),
            Ty::Arc(t) => format!("std::sync::Arc::new({})", self.value(t, pick, rng, d)),
            Ty::IndexMap(k, v) => {
                let keys = self.items(k, pick, rng, d);
                let entries: Vec<String> = keys
                    .iter()
                    .map(|key| format!("({key}, {})", self.value(v, pick, rng, d)))
                    .collect();
                format!(
                    "indexmap::IndexMap::<{}, {}>::from([{}])",
                    k.render(),
                    v.render(),
                    entries.join(", ")
                )
            }
            Ty::Named(n) => self.named(n, pick, rng, d),
        }
    }

    /// Elements of a collection.
    fn items(&self, t: &Ty, pick: Pick, rng: &mut Rng, d: usize) -> Vec<String> {
        match pick {
            Pick::Min(_) => Vec::new(),
            Pick::Max(k) => vec![
                self.value(t, Pick::Min(k), rng, d),
                self.value(t, Pick::Max(k + 1), rng, d),
            ],
            Pick::Rand => {
                let n = rng.below(4);
                (0..n).map(|_| self.value(t, Pick::Rand, rng, d)).collect()
            }
        }
    }

    fn fields(&self, shape: &Shape, path: &str, pick: Pick, rng: &mut Rng, d: usize) -> String {
        match shape {
            Shape::Unit => path.to_owned(),
            Shape::Tuple(fields) => {
                let items: Vec<String> = fields
                    .iter()
                    .map(|f| self.value(&f.ty, pick, rng, d))
                    .collect();
                format!("{path}({})", items.join(", "))
            }
            Shape::Named(fields) => {
                let items: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{}: {}", f.name, self.value(&f.ty, pick, rng, d)))
                    .collect();
                format!("{path} {{ {} }}", items.join(", "))
            }
        }
    }

    fn named(&self, name: &str, pick: Pick, rng: &mut Rng, d: usize) -> String {
        let def = self
            .schema
            .def(name)
            .unwrap_or_else(|| panic!("generator bug: no definition {name}"));
        let path = format!("{}{}", self.prefix, def.name);
        match &def.body {
            Body::MacroNewtype(t) => format!("{path}({})", self.value(t, pick, rng, d)),
            Body::Struct(shape) => self.fields(shape, &path, pick, rng, d),
            Body::Enum(variants, _) => {
                // Deep in a recursive type, prefer a variant without payload so values stay finite.
                let k = match pick {
                    Pick::Min(k) | Pick::Max(k) => k,
                    Pick::Rand => rng.below(variants.len()),
                };
                let mut v = &variants[(k + d) % variants.len()];
                if d > 4
                    && let Some(unit) = variants.iter().find(|v| v.shape == Shape::Unit)
                {
                    v = unit;
                }
                self.fields(&v.shape, &format!("{path}::{}", v.name), pick, rng, d)
            }
        }
    }
}

/// serde's `rename_all` for a field name (snake_case in Rust).
pub fn case_field(rule: Option<&str>, field: &str) -> String {
    match rule {
        None | Some("lowercase") | Some("snake_case") => field.to_owned(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("PascalCase") => {
            let mut out = String::new();
            let mut up = true;
            for c in field.chars() {
                if c == '_' {
                    up = true;
                } else if up {
                    out.push(c.to_ascii_uppercase());
                    up = false;
                } else {
                    out.push(c);
                }
            }
            out
        }
        Some("camelCase") => {
            let p = case_field(Some("PascalCase"), field);
            let mut cs = p.chars();
            match cs.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        }
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.to_ascii_uppercase().replace('_', "-"),
        Some(other) => panic!("generator bug: rename rule {other}"),
    }
}

/// serde's `rename_all` for a variant name (PascalCase in Rust).
pub fn case_variant(rule: Option<&str>, variant: &str) -> String {
    let snake = || {
        let mut s = String::new();
        for (i, c) in variant.char_indices() {
            if i > 0 && c.is_uppercase() {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        }
        s
    };
    match rule {
        None | Some("PascalCase") => variant.to_owned(),
        Some("lowercase") => variant.to_ascii_lowercase(),
        Some("UPPERCASE") => variant.to_ascii_uppercase(),
        Some("camelCase") => {
            let mut cs = variant.chars();
            match cs.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        }
        Some("snake_case") => snake(),
        Some("SCREAMING_SNAKE_CASE") => snake().to_ascii_uppercase(),
        Some("kebab-case") => snake().replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake().to_ascii_uppercase().replace('_', "-"),
        Some(other) => panic!("generator bug: rename rule {other}"),
    }
}

/// Every rename rule serde knows.
pub const CASES: [&str; 8] = [
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// The wire name a field is written under, given its container's `rename_all`.
pub fn field_wire(f: &Field, rule: Option<&str>) -> String {
    f.rename
        .clone()
        .unwrap_or_else(|| case_field(rule, &f.name))
}

/// The wire name a variant is written under.
pub fn variant_wire(v: &Variant, rule: Option<&str>) -> String {
    v.rename
        .clone()
        .unwrap_or_else(|| case_variant(rule, &v.name))
}
