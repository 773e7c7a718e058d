//! Building models for the engine's tests: fields, structs, enums, types and snapshots of one protocol `p`.
//! Shared with the serde truth tests (`tests/serde_truth.rs` reads this file by path), so it names the
//! crates it uses, not `crate::`.

use wirecheck_model::model::{
    AllowDecl, Body, ContainerAttrs, Custom, EnumRepr, Field, Location, MessageDecl, ProtocolDecl,
    SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};
use wirecheck_vocab::rules::RuleId;
use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};

pub(super) fn loc(line: u32) -> Location {
    Location {
        file: "src/lib.rs".into(),
        line,
        column: 1,
        start: 0,
        end: 0,
    }
}

pub(super) fn f(name: &str, ty: Ty) -> Field {
    Field {
        rust_name: name.into(),
        ser_name: name.into(),
        de_names: vec![name.into()],
        ty,
        default: false,
        skip_ser: SkipSer::Never,
        skip_de: false,
        flatten: false,
        custom: None,
        since: None,
        allow: None,
        location: loc(10),
    }
}

pub(super) trait FieldExt {
    fn dflt(self) -> Self;
    fn skip_if(self, pred: &str) -> Self;
    fn wire(self, name: &str) -> Self;
    fn alias(self, name: &str) -> Self;
    fn flat(self) -> Self;
    fn with(self, ser: Option<&str>, de: Option<&str>) -> Self;
    fn allow(self, rule: RuleId) -> Self;
    fn skip(self) -> Self;
}

impl FieldExt for Field {
    fn dflt(mut self) -> Self {
        self.default = true;
        self
    }
    fn skip_if(mut self, pred: &str) -> Self {
        self.skip_ser = SkipSer::If(pred.into());
        self
    }
    fn wire(mut self, name: &str) -> Self {
        self.ser_name = name.into();
        self.de_names = vec![name.into()];
        self
    }
    fn alias(mut self, name: &str) -> Self {
        self.de_names.push(name.into());
        self
    }
    fn flat(mut self) -> Self {
        self.flatten = true;
        self
    }
    fn with(mut self, ser: Option<&str>, de: Option<&str>) -> Self {
        self.custom = Some(Custom {
            ser: ser.map(Into::into),
            de: de.map(Into::into),
        });
        self
    }
    fn allow(mut self, rule: RuleId) -> Self {
        self.allow = Some(AllowDecl {
            rules: vec![rule.to_string()],
            reason: "checked by hand".into(),
        });
        self
    }
    fn skip(mut self) -> Self {
        self.skip_ser = SkipSer::Always;
        self.skip_de = true;
        self
    }
}

pub(super) fn attrs(name: &str) -> ContainerAttrs {
    ContainerAttrs {
        ser_name: name.into(),
        ..ContainerAttrs::default()
    }
}

pub(super) fn def(name: &str, attrs_: ContainerAttrs, body: Body) -> TypeDef {
    TypeDef {
        path: format!("c::{name}"),
        generics: Vec::new(),
        attrs: attrs_,
        body,
        location: loc(5),
        package: None,
    }
}

pub(super) fn st(name: &str, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        attrs(name),
        Body::Struct {
            style: Style::Named,
            fields,
        },
    )
}

pub(super) fn st_with(name: &str, a: ContainerAttrs, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        a,
        Body::Struct {
            style: Style::Named,
            fields,
        },
    )
}

pub(super) fn tuple_st(name: &str, tys: Vec<Ty>) -> TypeDef {
    let fields = tys
        .into_iter()
        .enumerate()
        .map(|(i, t)| f(&i.to_string(), t))
        .collect();
    def(
        name,
        attrs(name),
        Body::Struct {
            style: Style::Tuple,
            fields,
        },
    )
}

pub(super) fn en(name: &str, repr: EnumRepr, variants: Vec<Variant>) -> TypeDef {
    let mut a = attrs(name);
    a.repr = repr;
    def(name, a, Body::Enum { variants })
}

pub(super) fn var(name: &str, style: Style, fields: Vec<Field>) -> Variant {
    Variant {
        rust_name: name.into(),
        ser_name: name.into(),
        de_names: vec![name.into()],
        style,
        fields,
        skip_ser: false,
        skip_de: false,
        other: false,
        untagged: false,
        custom: None,
        since: None,
        allow: None,
        location: loc(20),
    }
}

pub(super) fn unit(name: &str) -> Variant {
    var(name, Style::Unit, Vec::new())
}

pub(super) fn newtype(name: &str, ty: Ty) -> Variant {
    var(name, Style::Tuple, vec![f("0", ty)])
}

pub(super) fn other(name: &str) -> Variant {
    let mut v = unit(name);
    v.other = true;
    v
}

pub(super) fn named(name: &str) -> Ty {
    Ty::Named {
        path: format!("c::{name}"),
        args: Vec::new(),
    }
}

pub(super) fn u(bits: u8) -> Ty {
    Ty::Int {
        signed: false,
        bits,
    }
}

pub(super) fn i(bits: u8) -> Ty {
    Ty::Int { signed: true, bits }
}

pub(super) fn float(bits: u8) -> Ty {
    Ty::Float { bits }
}

pub(super) fn opt(t: Ty) -> Ty {
    Ty::Option { inner: Box::new(t) }
}

pub(super) fn seq(kind: SeqKind, t: Ty) -> Ty {
    Ty::Seq {
        kind,
        elem: Box::new(t),
    }
}

pub(super) fn vec_of(t: Ty) -> Ty {
    seq(SeqKind::List, t)
}

pub(super) fn set_of(t: Ty) -> Ty {
    seq(SeqKind::Set, t)
}

pub(super) fn map_of(k: Ty, v: Ty) -> Ty {
    Ty::Map {
        key: Box::new(k),
        value: Box::new(v),
    }
}

/// A snapshot of protocol `p` with one message `Msg` (topic `t.msg`) of `kind`, plus `types`.
pub(super) fn snap_kind(
    kind: Kind,
    upgrade: Upgrade,
    format: Format,
    types: Vec<TypeDef>,
) -> Snapshot {
    let mut s = Snapshot {
        protocols: vec![ProtocolDecl {
            name: "p".into(),
            rust_path: "c::P".into(),
            version: semver::Version::new(0, 1, 0),
            min_compatible: None,
            upgrade,
            format,
            location: loc(1),
        }],
        messages: vec![msg("Msg", "t.msg", kind)],
        ..Snapshot::default()
    };
    for t in types {
        s.types.insert(t.path.clone(), std::sync::Arc::new(t));
    }
    s
}

pub(super) fn msg(name: &str, topic: &str, kind: Kind) -> MessageDecl {
    MessageDecl {
        protocol: "p".into(),
        name: name.into(),
        rust_path: format!("c::{name}"),
        topic: topic.into(),
        kind,
        response: ResponseMode::None,
        response_type: None,
        since: None,
        allow: None,
        location: loc(3),
    }
}

pub(super) fn snap(types: Vec<TypeDef>) -> Snapshot {
    snap_kind(Kind::Event, Upgrade::AnyOrder, Format::Json, types)
}

pub(super) fn snap_fmt(format: Format, types: Vec<TypeDef>) -> Snapshot {
    snap_kind(Kind::Event, Upgrade::AnyOrder, format, types)
}

pub(super) fn msg_struct(fields: Vec<Field>) -> TypeDef {
    st("Msg", fields)
}
