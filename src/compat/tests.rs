//! Unit tests of the engine: hand-built snapshots for every rule, firing and not firing.
//!
//! Every major finding's witness is checked against the reader model (it must be rejected, or be one of
//! the misread rules) and against the writer's own model (it must be a value of the writer's type).

use serde_json::{Value, json};

use super::decode::Decoder;
use super::protocol::root;
use super::shape::SideRef;
use super::*;
use crate::findings::{Level, Side};
use crate::model::MessageDecl;
use crate::model::{
    AllowDecl, Body, ContainerAttrs, Custom, EnumRepr, Field, Location, ProtocolDecl, Proxy,
    SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};
use crate::rules::{Evidence, RuleId};
use crate::{Format, ResponseMode};

// ----- building models -----

fn loc(line: u32) -> Location {
    Location {
        file: "src/lib.rs".into(),
        line,
        column: 1,
        start: 0,
        end: 0,
    }
}

fn f(name: &str, ty: Ty) -> Field {
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

trait FieldExt {
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

fn attrs(name: &str) -> ContainerAttrs {
    ContainerAttrs {
        ser_name: name.into(),
        ..ContainerAttrs::default()
    }
}

fn def(name: &str, attrs_: ContainerAttrs, body: Body) -> TypeDef {
    TypeDef {
        path: format!("c::{name}"),
        generics: Vec::new(),
        attrs: attrs_,
        body,
        location: loc(5),
    }
}

fn st(name: &str, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        attrs(name),
        Body::Struct {
            style: Style::Named,
            fields,
        },
    )
}

fn st_with(name: &str, a: ContainerAttrs, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        a,
        Body::Struct {
            style: Style::Named,
            fields,
        },
    )
}

fn tuple_st(name: &str, tys: Vec<Ty>) -> TypeDef {
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

fn en(name: &str, repr: EnumRepr, variants: Vec<Variant>) -> TypeDef {
    let mut a = attrs(name);
    a.repr = repr;
    def(name, a, Body::Enum { variants })
}

fn var(name: &str, style: Style, fields: Vec<Field>) -> Variant {
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

fn unit(name: &str) -> Variant {
    var(name, Style::Unit, Vec::new())
}

fn newtype(name: &str, ty: Ty) -> Variant {
    var(name, Style::Tuple, vec![f("0", ty)])
}

fn other(name: &str) -> Variant {
    let mut v = unit(name);
    v.other = true;
    v
}

fn named(name: &str) -> Ty {
    Ty::Named {
        path: format!("c::{name}"),
        args: Vec::new(),
    }
}

fn u(bits: u8) -> Ty {
    Ty::Int {
        signed: false,
        bits,
    }
}

fn i(bits: u8) -> Ty {
    Ty::Int { signed: true, bits }
}

fn float(bits: u8) -> Ty {
    Ty::Float { bits }
}

fn opt(t: Ty) -> Ty {
    Ty::Option { inner: Box::new(t) }
}

fn vec_of(t: Ty) -> Ty {
    Ty::Seq {
        kind: SeqKind::List,
        elem: Box::new(t),
    }
}

fn set_of(t: Ty) -> Ty {
    Ty::Seq {
        kind: SeqKind::Set,
        elem: Box::new(t),
    }
}

fn map_of(k: Ty, v: Ty) -> Ty {
    Ty::Map {
        key: Box::new(k),
        value: Box::new(v),
    }
}

/// A snapshot of protocol `p` with one message `Msg` (topic `t.msg`) of `kind`, plus `types`.
fn snap_kind(kind: Kind, upgrade: Upgrade, format: Format, types: Vec<TypeDef>) -> Snapshot {
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
        s.types.insert(t.path.clone(), t);
    }
    s
}

fn msg(name: &str, topic: &str, kind: Kind) -> MessageDecl {
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

fn snap(types: Vec<TypeDef>) -> Snapshot {
    snap_kind(Kind::Event, Upgrade::AnyOrder, Format::Json, types)
}

fn snap_fmt(format: Format, types: Vec<TypeDef>) -> Snapshot {
    snap_kind(Kind::Event, Upgrade::AnyOrder, format, types)
}

fn msg_struct(fields: Vec<Field>) -> TypeDef {
    st("Msg", fields)
}

/// Compares, checks invariants (reflexivity, witness soundness, determinism) and returns the findings.
fn check(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    check_scope(old, new, Scope::Full)
}

fn check_scope(old: &Snapshot, new: &Snapshot, scope: Scope) -> Vec<Finding> {
    assert_eq!(
        compare_protocol(old, old, "p", "v", scope),
        vec![],
        "old vs old"
    );
    assert_eq!(
        compare_protocol(new, new, "p", "v", scope),
        vec![],
        "new vs new"
    );
    let out = compare_protocol(old, new, "p", "v", scope);
    assert_eq!(
        out,
        compare_protocol(old, new, "p", "v", scope),
        "deterministic"
    );
    let positional = !new
        .protocol("p")
        .map(|p| p.format.is_self_describing())
        .unwrap_or(true);
    for fd in &out {
        assert!(!fd.known);
        if fd.level != Level::Major {
            assert_eq!(fd.witness, None, "{fd:?}");
            continue;
        }
        assert!(fd.direction.is_some(), "{fd:?}");
        let Some(w) = &fd.witness else { continue };
        let (ws, rs) = match fd.direction {
            Some(Direction::OldReadsNew) => (new, old),
            _ => (old, new),
        };
        let (Some(wm), Some(rm)) = (
            ws.messages
                .iter()
                .find(|m| m.name == fd.message_type || m.topic == fd.topic),
            rs.messages
                .iter()
                .find(|m| m.name == fd.message_type || m.topic == fd.topic),
        ) else {
            continue;
        };
        let wside = SideRef {
            snap: ws,
            side: Side::Old,
        };
        let rside = SideRef {
            snap: rs,
            side: Side::Old,
        };
        if fd.rule.rule().evidence != Evidence::Opaque && !positional {
            assert_eq!(
                Decoder::new(wside).decode(&root(wm), w),
                Ok(()),
                "the witness of {fd:?} is not a value of the writer's type"
            );
        }
        if fd.rule.rule().evidence.is_message_level() {
            continue;
        }
        let rejected = Decoder::new(rside).decode(&root(rm), w).is_err();
        if !positional && !rejected {
            // An `Option` around an untagged value reads a `null` payload as None: a misread too.
            assert!(
                fd.rule.rule().evidence.may_misread()
                    || w.to_string().contains("null")
                    || fd.message.contains("misread"),
                "the witness {w} of {} is accepted by the reader model: {fd:?}",
                fd.rule
            );
        }
    }
    out
}

/// `(rule, level, direction, field)` of each finding.
fn summary(fs: &[Finding]) -> Vec<(RuleId, Level, Option<Direction>, Option<String>)> {
    fs.iter()
        .map(|f| (f.rule, f.level, f.direction, f.field.clone()))
        .collect()
}

fn has(fs: &[Finding], rule: RuleId, level: Level, dir: Option<Direction>) -> bool {
    fs.iter()
        .any(|f| f.rule == rule && f.level == level && f.direction == dir)
}

fn only(fs: &[Finding], rule: RuleId) -> Finding {
    let found: Vec<&Finding> = fs.iter().filter(|f| f.rule == rule).collect();
    assert_eq!(found.len(), 1, "{rule} in {:#?}", summary(fs));
    found[0].clone()
}

const ONR: Option<Direction> = Some(Direction::OldReadsNew);
const NRO: Option<Direction> = Some(Direction::NewReadsOld);

// ----- directions -----

#[test]
fn direction_table() {
    use Direction::*;
    assert_eq!(
        directions(Kind::Request, Upgrade::AnyOrder),
        &[OldReadsNew, NewReadsOld]
    );
    assert_eq!(
        directions(Kind::Request, Upgrade::ServerFirst),
        &[NewReadsOld]
    );
    assert_eq!(
        directions(Kind::Request, Upgrade::ClientFirst),
        &[OldReadsNew]
    );
    assert_eq!(
        directions(Kind::Response, Upgrade::ServerFirst),
        &[OldReadsNew]
    );
    assert_eq!(
        directions(Kind::Response, Upgrade::ClientFirst),
        &[NewReadsOld]
    );
    for u in [
        Upgrade::AnyOrder,
        Upgrade::ServerFirst,
        Upgrade::ClientFirst,
    ] {
        assert_eq!(directions(Kind::Event, u).len(), 2);
        assert_eq!(directions(Kind::Record, u).len(), 2);
    }
}

// ----- reflexivity on a model with every feature -----

fn everything() -> Snapshot {
    let mut tagged = attrs("Ev");
    tagged.repr = EnumRepr::Internal { tag: "type".into() };
    let mut adj = attrs("Adj");
    adj.repr = EnumRepr::Adjacent {
        tag: "t".into(),
        content: "c".into(),
    };
    let mut deny = attrs("Closed");
    deny.deny_unknown_fields = true;
    let mut transparent = attrs("Tr");
    transparent.transparent = true;
    let mut tagged_struct = attrs("Ts");
    tagged_struct.repr = EnumRepr::Internal { tag: "kind".into() };
    snap(vec![
        msg_struct(vec![
            f("a", u(32)),
            f("b", opt(Ty::String)).skip_if("Option::is_none"),
            f("c", vec_of(named("Node")))
                .skip_if("Vec::is_empty")
                .dflt(),
            f("d", map_of(u(32), named("Closed"))),
            f("ev", named("Ev")).flat(),
            f("adj", named("Adj")),
            f("un", named("Un")),
            f("tr", named("Tr")),
            f("ts", named("Ts")),
            f(
                "arr",
                Ty::Array {
                    elem: Box::new(float(64)),
                    len: 3,
                },
            ),
            f(
                "tup",
                Ty::Tuple {
                    elems: vec![Ty::Bool, Ty::Char],
                },
            ),
            f(
                "ext",
                Ty::External {
                    path: "chrono::DateTime<Utc>".into(),
                },
            ),
            f("val", Ty::Value),
            f(
                "w",
                Ty::Named {
                    path: "c::W".into(),
                    args: vec![u(8)],
                },
            ),
            f("id", named("Id")),
            f("al", named("Al")),
            f("cu", u(64)).with(Some("ser_cu"), Some("de_cu")),
            f("sk", u(8)).skip(),
            f("extra", map_of(Ty::String, Ty::Value)).flat(),
        ]),
        st(
            "Node",
            vec![f("children", vec_of(named("Node"))), f("v", i(64))],
        ),
        st_with("Closed", deny, vec![f("x", Ty::Bool)]),
        en(
            "Ev",
            EnumRepr::Internal { tag: "type".into() },
            vec![
                var("Start", Style::Named, vec![f("at", float(64))]),
                newtype("Node", named("Node")),
                unit("Stop"),
                other("Unknown"),
            ],
        ),
        def(
            "Adj",
            adj,
            Body::Enum {
                variants: vec![
                    unit("A"),
                    newtype("B", u(16)),
                    var("C", Style::Tuple, vec![f("0", u(8)), f("1", u(8))]),
                ],
            },
        ),
        en(
            "Un",
            EnumRepr::Untagged,
            vec![
                newtype("Num", u(64)),
                newtype("Text", Ty::String),
                unit("Nothing"),
            ],
        ),
        st_with("Tr", transparent, vec![f("inner", Ty::String)]),
        st_with("Ts", tagged_struct, vec![f("q", u(8))]),
        TypeDef {
            path: "c::W".into(),
            generics: vec!["T".into()],
            attrs: attrs("W"),
            body: Body::Struct {
                style: Style::Named,
                fields: vec![f("t", Ty::Param { name: "T".into() })],
            },
            location: loc(30),
        },
        tuple_st("Id", vec![u(64)]),
        def(
            "Al",
            attrs("Al"),
            Body::Alias {
                target: vec_of(named("Id")),
            },
        ),
    ])
}

#[test]
fn reflexive_on_every_feature_and_format() {
    for format in [
        Format::Json,
        Format::Cbor,
        Format::Bincode,
        Format::Postcard,
    ] {
        let mut s = everything();
        s.protocols[0].format = format;
        assert_eq!(compare_protocol(&s, &s, "p", "v", Scope::Full), vec![]);
        assert_eq!(
            compare_protocol(&s, &s, "p", "v", Scope::RecordsOnly),
            vec![]
        );
        // Moving every definition (other lines) changes nothing on the wire.
        let mut moved = s.clone();
        for t in moved.types.values_mut() {
            t.location.line += 7;
        }
        assert_eq!(compare_protocol(&s, &moved, "p", "v", Scope::Full), vec![]);
    }
}

#[test]
fn unknown_protocol_gives_nothing() {
    let s = everything();
    assert_eq!(compare_protocol(&s, &s, "nope", "v", Scope::Full), vec![]);
}

// ----- messages -----

#[test]
fn message_added_and_removed() {
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut new = old.clone();
    new.messages[0] = msg("Other", "t.other", Kind::Event);
    new.types.insert("c::Other".into(), st("Other", vec![]));
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (RuleId::MessageRemoved, Level::Major, NRO, None),
            (RuleId::MessageAdded, Level::Minor, None, None),
        ]
    );
    let removed = only(&out, RuleId::MessageRemoved);
    assert_eq!(removed.side, Side::Old);
    assert_eq!(removed.witness, Some(json!({"a": 0})));
    // Fire-and-forget requests under client-first: new servers never read old requests.
    let mut old_req = old.clone();
    old_req.messages[0].kind = Kind::Request;
    old_req.protocols[0].upgrade = Upgrade::ClientFirst;
    let mut new_req = new.clone();
    new_req.protocols[0].upgrade = Upgrade::ClientFirst;
    let out = check(&old_req, &new_req);
    assert!(has(&out, RuleId::MessageRemoved, Level::Major, ONR));
}

#[test]
fn topic_renamed_and_kind_changed() {
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut new = old.clone();
    new.messages[0].topic = "t.renamed".into();
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(RuleId::TopicRenamed, Level::Major, ONR, None)]
    );
    let mut new = old.clone();
    new.messages[0].kind = Kind::Record;
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(RuleId::KindChanged, Level::Major, ONR, None)]
    );
}

#[test]
fn responses() {
    let mut old = snap_kind(
        Kind::Request,
        Upgrade::AnyOrder,
        Format::Json,
        vec![msg_struct(vec![])],
    );
    old.messages[0].response = ResponseMode::Single;
    let mut none = old.clone();
    none.messages[0].response = ResponseMode::None;
    let mut stream = old.clone();
    stream.messages[0].response = ResponseMode::Stream;
    assert_eq!(
        summary(&check(&old, &none)),
        vec![(RuleId::ResponseRemoved, Level::Major, NRO, None)]
    );
    assert_eq!(
        summary(&check(&none, &old)),
        vec![(RuleId::ResponseAdded, Level::Major, ONR, None)]
    );
    assert_eq!(
        summary(&check(&old, &stream)),
        vec![(RuleId::ResponseChanged, Level::Major, ONR, None)]
    );
    // Server-first: new servers read old requests; a response added is only minor.
    let mut none_sf = none.clone();
    none_sf.protocols[0].upgrade = Upgrade::ServerFirst;
    let mut old_sf = old.clone();
    old_sf.protocols[0].upgrade = Upgrade::ServerFirst;
    assert_eq!(
        summary(&check(&none_sf, &old_sf)),
        vec![(RuleId::ResponseAdded, Level::Minor, ONR, None)]
    );
}

#[test]
fn protocol_format_changed() {
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut new = snap(vec![msg_struct(vec![f("a", u(16))])]);
    new.protocols[0].format = Format::Cbor;
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(RuleId::ProtocolFormatChanged, Level::Major, ONR, None)]
    );
}

// ----- fields -----

#[test]
fn optional_field_added_is_minor() {
    let old = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("queue", opt(Ty::String)),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(RuleId::FieldAdded, Level::Minor, None, Some("queue".into()))]
    );
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("queue", Ty::String).dflt(),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(RuleId::FieldAdded, Level::Minor, None, Some("queue".into()))]
    );
}

#[test]
fn required_field_added() {
    let old = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("queue", Ty::String),
    ])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::RequiredFieldAdded,
            Level::Major,
            NRO,
            Some("queue".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"id": 0})));
    assert_eq!(out[0].side, Side::New);
    // A client-first request: new servers never read old clients.
    let mut old_cf = snap_kind(
        Kind::Request,
        Upgrade::ClientFirst,
        Format::Json,
        old.types.values().cloned().collect(),
    );
    old_cf.messages[0].kind = Kind::Request;
    let new_cf = snap_kind(
        Kind::Request,
        Upgrade::ClientFirst,
        Format::Json,
        new.types.values().cloned().collect(),
    );
    let out = check(&old_cf, &new_cf);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::RequiredFieldAdded,
            Level::Minor,
            NRO,
            Some("queue".into())
        )]
    );
    assert!(out[0].message.contains("upgrade order"));
}

#[test]
fn field_added_to_a_closed_reader() {
    let mut a = attrs("Msg");
    a.deny_unknown_fields = true;
    let old = snap(vec![st_with("Msg", a.clone(), vec![f("id", u(64))])]);
    let new = snap(vec![st_with(
        "Msg",
        a,
        vec![f("id", u(64)), f("q", opt(u(8)))],
    )]);
    let out = check(&old, &new);
    let fd = only(&out, RuleId::FieldAdded);
    assert_eq!((fd.level, fd.direction), (Level::Major, ONR));
    assert_eq!(fd.witness, Some(json!({"id": 0, "q": 1})));
}

#[test]
fn field_removed() {
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("t_submit", float(64)),
    ])]);
    let new = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldRemoved,
            Level::Major,
            ONR,
            Some("t_submit".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"id": 0})));
    assert_eq!(out[0].side, Side::Old);
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("t", opt(float(64))),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(RuleId::FieldRemoved, Level::Minor, None, Some("t".into()))]
    );
}

#[test]
fn field_renamed() {
    let old = snap(vec![msg_struct(vec![f("t_submit", float(64))])]);
    let new = snap(vec![msg_struct(vec![
        f("t_submit", float(64)).wire("submitted"),
    ])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::FieldRenamed,
                Level::Major,
                ONR,
                Some("t_submit".into())
            ),
            (
                RuleId::FieldRenamed,
                Level::Major,
                NRO,
                Some("t_submit".into())
            ),
        ]
    );
    assert_eq!(out[0].witness, Some(json!({"submitted": 0.5})));
    // Reader-first migration: the new reader accepts the old name.
    let new = snap(vec![msg_struct(vec![
        f("t_submit", float(64)).wire("submitted").alias("t_submit"),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::FieldRenamed,
            Level::Major,
            ONR,
            Some("t_submit".into())
        )]
    );
    // An optional field under a new name is silently lost: still major.
    let old = snap(vec![msg_struct(vec![f("a", opt(u(8)))])]);
    let new = snap(vec![msg_struct(vec![f("a", opt(u(8))).wire("b")])]);
    assert!(has(
        &check(&old, &new),
        RuleId::FieldRenamed,
        Level::Major,
        ONR
    ));
    // A Rust rename that keeps the wire name is nothing.
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut g = f("renamed", u(8)).wire("a");
    g.location = loc(99);
    let new = snap(vec![msg_struct(vec![g])]);
    assert_eq!(check(&old, &new), vec![]);
}

#[test]
fn field_type_changed() {
    let old = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let new = snap(vec![msg_struct(vec![f("id", Ty::String)])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::FieldTypeChanged,
                Level::Major,
                ONR,
                Some("id".into())
            ),
            (
                RuleId::FieldTypeChanged,
                Level::Major,
                NRO,
                Some("id".into())
            ),
        ]
    );
    assert_eq!(out[1].witness, Some(json!({"id": 0})));
    // bool readers reject integers; char reads one-character strings.
    let new = snap(vec![msg_struct(vec![f("id", Ty::Bool)])]);
    assert!(has(
        &check(&old, &new),
        RuleId::FieldTypeChanged,
        Level::Major,
        NRO
    ));
    let old = snap(vec![msg_struct(vec![f("c", Ty::Char)])]);
    let new = snap(vec![msg_struct(vec![f("c", Ty::String)])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            ONR,
            Some("c".into())
        )]
    );
}

#[test]
fn integers() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("n", t)])]);
    let out = check(&s(u(64)), &s(u(32)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::IntegerNarrowed, Level::Major, NRO, Some("n".into()))]
    );
    assert_eq!(out[0].witness, Some(json!({"n": 4_294_967_296u64})));
    let out = check(&s(u(32)), &s(u(64)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::IntegerWidened, Level::Major, ONR, Some("n".into()))]
    );
    let out = check(&s(i(32)), &s(u(32)));
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::IntegerSignChanged,
                Level::Major,
                ONR,
                Some("n".into())
            ),
            (
                RuleId::IntegerSignChanged,
                Level::Major,
                NRO,
                Some("n".into())
            ),
        ]
    );
    assert_eq!(out[1].witness, Some(json!({"n": -1})));
    // u8 into i16 fits: only the other direction fails.
    let out = check(&s(i(16)), &s(u(8)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerSignChanged,
            Level::Major,
            NRO,
            Some("n".into())
        )]
    );
}

#[test]
fn floats() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("t", t)])]);
    let out = check(&s(float(64)), &s(u(64)));
    assert!(has(&out, RuleId::FloatToInteger, Level::Major, NRO));
    assert_eq!(
        out.iter()
            .find(|f| f.direction == NRO)
            .and_then(|f| f.witness.clone()),
        Some(json!({"t": 0.5}))
    );
    // The new u64 writer exceeds f64's exact integers.
    assert!(has(&out, RuleId::FloatToInteger, Level::Major, ONR));
    let out = check(&s(u(32)), &s(float(64)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::IntegerToFloat, Level::Major, ONR, Some("t".into()))]
    );
    let out = check(&s(float(64)), &s(float(32)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::FloatNarrowed, Level::Major, NRO, Some("t".into()))]
    );
    assert_eq!(
        summary(&check(&s(float(32)), &s(float(64)))),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            ONR,
            Some("t".into())
        )]
    );
}

#[test]
fn optionality() {
    let s = |fl: Field| snap(vec![msg_struct(vec![fl])]);
    let out = check(&s(f("q", u(32))), &s(f("q", opt(u(32)))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldBecameOptional,
            Level::Major,
            ONR,
            Some("q".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"q": null})));
    let out = check(&s(f("q", opt(u(32)))), &s(f("q", u(32))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldBecameRequired,
            Level::Major,
            NRO,
            Some("q".into())
        )]
    );
    // `default` tolerates a missing key, not null.
    let out = check(&s(f("q", opt(u(32)))), &s(f("q", u(32)).dflt()));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldBecameRequired,
            Level::Major,
            NRO,
            Some("q".into())
        )]
    );
    // ... but a writer that skips None never writes null.
    let out = check(
        &s(f("q", opt(u(32))).skip_if("Option::is_none")),
        &s(f("q", u(32)).dflt()),
    );
    assert_eq!(out, vec![]);
    // Option readers of T writers: nothing in that direction.
    let out = check(&s(f("q", u(32)).dflt()), &s(f("q", opt(u(32))).dflt()));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldBecameOptional,
            Level::Major,
            ONR,
            Some("q".into())
        )]
    );
}

#[test]
fn skip_serializing_if_added() {
    let old = snap(vec![msg_struct(vec![f("tags", vec_of(Ty::String))])]);
    let new = snap(vec![msg_struct(vec![
        f("tags", vec_of(Ty::String))
            .skip_if("Vec::is_empty")
            .dflt(),
    ])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::SkipSerializingIfAdded,
            Level::Major,
            ONR,
            Some("tags".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({})));
    // With `default` everywhere it is fine.
    let old = snap(vec![msg_struct(vec![f("tags", vec_of(Ty::String)).dflt()])]);
    let new = snap(vec![msg_struct(vec![
        f("tags", vec_of(Ty::String))
            .skip_if("Vec::is_empty")
            .dflt(),
    ])]);
    assert_eq!(check(&old, &new), vec![]);
    // Removing `default` while old writers skip: field_became_required.
    let old = snap(vec![msg_struct(vec![
        f("tags", vec_of(Ty::String))
            .skip_if("Vec::is_empty")
            .dflt(),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("tags", vec_of(Ty::String)).skip_if("Vec::is_empty"),
    ])]);
    assert!(has(
        &check(&old, &new),
        RuleId::FieldBecameRequired,
        Level::Major,
        NRO
    ));
}

#[test]
fn option_deserialize_with() {
    let old = snap(vec![msg_struct(vec![
        f("t", opt(u(64))).skip_if("Option::is_none"),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("t", opt(u(64)))
            .skip_if("Option::is_none")
            .with(None, Some("de_t")),
    ])]);
    let out = check(&old, &new);
    let fd = only(&out, RuleId::OptionDeserializeWith);
    assert_eq!((fd.level, fd.direction), (Level::Major, NRO));
    assert_eq!(fd.witness, Some(json!({})));
    assert!(has(&out, RuleId::CustomSerdeChanged, Level::Major, ONR));
    // With `default`, absence is fine again.
    let new = snap(vec![msg_struct(vec![
        f("t", opt(u(64)))
            .skip_if("Option::is_none")
            .with(None, Some("de_t"))
            .dflt(),
    ])]);
    assert!(
        !check(&old, &new)
            .iter()
            .any(|f| f.rule == RuleId::OptionDeserializeWith)
    );
}

#[test]
fn custom_serde_changed_once() {
    let old = snap(vec![msg_struct(vec![
        f("t", u(64)).with(Some("a::ser"), Some("a::de")),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("t", u(64)).with(Some("b::ser"), Some("b::de")),
    ])]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::CustomSerdeChanged,
            Level::Major,
            ONR,
            Some("t".into())
        )]
    );
    assert_eq!(out[0].witness, None);
    // Same functions, other type behind them.
    let new = snap(vec![msg_struct(vec![
        f("t", i(64)).with(Some("a::ser"), Some("a::de")),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::CustomSerdeChanged,
            Level::Major,
            ONR,
            Some("t".into())
        )]
    );
    // try_from appearing on a type.
    let mut a = attrs("Id");
    a.from = Some(Proxy {
        ty: u(64),
        fallible: true,
    });
    let old = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        tuple_st("Id", vec![u(64)]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        def(
            "Id",
            a,
            Body::Struct {
                style: Style::Tuple,
                fields: vec![f("0", u(64))],
            },
        ),
    ]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::CustomSerdeChanged,
            Level::Major,
            NRO,
            Some("id".into())
        )]
    );
}

#[test]
fn deny_unknown_fields_added() {
    let mut closed = attrs("Msg");
    closed.deny_unknown_fields = true;
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("legacy", u(32)).dflt(),
    ])]);
    let new = snap(vec![st_with("Msg", closed.clone(), vec![f("id", u(64))])]);
    let out = check(&old, &new);
    let fd = out
        .iter()
        .find(|f| f.rule == RuleId::DenyUnknownFieldsAdded && f.level == Level::Major)
        .cloned();
    assert_eq!(
        fd.as_ref().map(|f| (f.level, f.direction)),
        Some((Level::Major, NRO))
    );
    assert_eq!(
        fd.and_then(|f| f.witness),
        Some(json!({"id": 0, "legacy": 1}))
    );
    // Alone, it is a visible but compatible change.
    let old = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let new = snap(vec![st_with("Msg", closed, vec![f("id", u(64))])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(RuleId::DenyUnknownFieldsAdded, Level::Minor, None, None)]
    );
}

#[test]
fn transparent_changed() {
    let mut tr = attrs("Id");
    tr.transparent = true;
    let old = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        st("Id", vec![f("value", u(64))]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        st_with("Id", tr.clone(), vec![f("value", u(64))]),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::TransparentChanged,
                Level::Major,
                ONR,
                Some("id".into())
            ),
            (
                RuleId::TransparentChanged,
                Level::Major,
                NRO,
                Some("id".into())
            ),
        ]
    );
    assert_eq!(out[0].witness, Some(json!({"id": 1})));
    // On a tuple struct it is the same on the wire.
    let old = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        tuple_st("Id", vec![u(64)]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        def(
            "Id",
            tr,
            Body::Struct {
                style: Style::Tuple,
                fields: vec![f("0", u(64))],
            },
        ),
    ]);
    assert_eq!(check(&old, &new), vec![]);
}

#[test]
fn wrappers_aliases_and_generics_are_transparent() {
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("ids", vec_of(u(64))),
    ])]);
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id")), f("ids", named("Ids"))]),
        tuple_st("Id", vec![u(64)]),
        def(
            "Ids",
            attrs("Ids"),
            Body::Alias {
                target: vec_of(named("Id")),
            },
        ),
    ]);
    assert_eq!(check(&old, &new), vec![]);
    // Generic instantiation: W<u64> to W<u32> narrows.
    let w = TypeDef {
        path: "c::W".into(),
        generics: vec!["T".into()],
        attrs: attrs("W"),
        body: Body::Struct {
            style: Style::Named,
            fields: vec![f("t", Ty::Param { name: "T".into() })],
        },
        location: loc(30),
    };
    let g = |t: Ty| {
        snap(vec![
            msg_struct(vec![f(
                "w",
                Ty::Named {
                    path: "c::W".into(),
                    args: vec![t],
                },
            )]),
            w.clone(),
        ])
    };
    let out = check(&g(u(64)), &g(u(32)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerNarrowed,
            Level::Major,
            NRO,
            Some("w.t".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"w": {"t": 4_294_967_296u64}})));
}

#[test]
fn flatten_changed_and_flattened_fields() {
    let inner = st("Inner", vec![f("x", u(8))]);
    let old = snap(vec![
        msg_struct(vec![f("id", u(8)), f("inner", named("Inner"))]),
        inner.clone(),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", u(8)), f("inner", named("Inner")).flat()]),
        inner.clone(),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::FlattenChanged,
                Level::Major,
                ONR,
                Some("inner".into())
            ),
            (
                RuleId::FlattenChanged,
                Level::Major,
                NRO,
                Some("inner".into())
            ),
        ]
    );
    assert_eq!(out[0].witness, Some(json!({"id": 0, "x": 0})));
    // A field moved into a flattened struct keeps its key: nothing.
    let old = snap(vec![
        msg_struct(vec![f("id", u(8)), f("x", u(8))]),
        inner.clone(),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", u(8)), f("inner", named("Inner")).flat()]),
        inner,
    ]);
    assert_eq!(check(&old, &new), vec![]);
    // A field inside a flattened struct narrows.
    let old = snap(vec![
        msg_struct(vec![f("inner", named("Inner")).flat()]),
        st("Inner", vec![f("x", u(16))]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("inner", named("Inner")).flat()]),
        st("Inner", vec![f("x", u(8))]),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerNarrowed,
            Level::Major,
            NRO,
            Some("inner.x".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"x": 256})));
}

#[test]
fn flattened_map_absorbs_unknown_keys() {
    let old = snap(vec![msg_struct(vec![
        f("id", u(8)),
        f("rest", map_of(Ty::String, Ty::Value)).flat(),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("id", u(8)),
        f("q", opt(u(8))),
        f("rest", map_of(Ty::String, Ty::Value)).flat(),
    ])]);
    let out = check(&old, &new);
    assert!(out.iter().all(|f| f.level == Level::Minor), "{out:#?}");
    // A flattened map of u8 does not take the new string.
    let old = snap(vec![msg_struct(vec![
        f("rest", map_of(Ty::String, u(8))).flat(),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("q", Ty::String),
        f("rest", map_of(Ty::String, u(8))).flat(),
    ])]);
    let out = check(&old, &new);
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, ONR),
        "{out:#?}"
    );
}

#[test]
fn eventlog_entry_with_flattened_adjacent_enum() {
    let mut ev = attrs("Event");
    ev.repr = EnumRepr::Adjacent {
        tag: "name".into(),
        content: "context".into(),
    };
    let entry = st(
        "Msg",
        vec![f("timestamp", float(64)), f("event", named("Event")).flat()],
    );
    let old = snap_kind(
        Kind::Record,
        Upgrade::AnyOrder,
        Format::Json,
        vec![
            entry.clone(),
            def(
                "Event",
                ev.clone(),
                Body::Enum {
                    variants: vec![var("submit", Style::Named, vec![f("userid", u(32))])],
                },
            ),
        ],
    );
    let new = snap_kind(
        Kind::Record,
        Upgrade::AnyOrder,
        Format::Json,
        vec![
            entry,
            def(
                "Event",
                ev,
                Body::Enum {
                    variants: vec![var(
                        "submit",
                        Style::Named,
                        vec![f("userid", u(32)), f("urgency", u(8))],
                    )],
                },
            ),
        ],
    );
    let out = check(&old, &new);
    let fd = only(&out, RuleId::RequiredFieldAdded);
    assert_eq!(fd.field.as_deref(), Some("event.submit.urgency"));
    assert_eq!(
        fd.witness,
        Some(json!({"timestamp": 0.0, "name": "submit", "context": {"userid": 0}}))
    );
    let out = check_scope(&old, &new, Scope::RecordsOnly);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::RequiredFieldAdded,
            Level::Major,
            NRO,
            Some("event.submit.urgency".into())
        )]
    );
}

// ----- enums -----

#[test]
fn variant_added_without_other() {
    let old = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", EnumRepr::External, vec![unit("Run")]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", EnumRepr::External, vec![unit("Run"), unit("Done")]),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::VariantAddedWithoutOther,
            Level::Major,
            ONR,
            Some("s.Done".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"s": "Done"})));
    // Reversed: the variant was removed.
    let out = check(&new, &old);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::VariantRemoved,
            Level::Major,
            NRO,
            Some("s.Done".into())
        )]
    );
    assert_eq!(out[0].side, Side::Old);
}

#[test]
fn variant_added_with_other() {
    let tag = || EnumRepr::Internal { tag: "t".into() };
    let old = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", tag(), vec![unit("Run"), other("Unknown")]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en(
            "S",
            tag(),
            vec![
                unit("Run"),
                var("Done", Style::Named, vec![f("code", i(32))]),
                other("Unknown"),
            ],
        ),
    ]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::VariantAdded,
            Level::Minor,
            None,
            Some("s.Done".into())
        )]
    );
    assert_eq!(
        summary(&check(&new, &old)),
        vec![(
            RuleId::VariantRemoved,
            Level::Minor,
            None,
            Some("s.Done".into())
        )]
    );
}

#[test]
fn variant_renamed_and_payload_changes() {
    let old = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en(
            "S",
            EnumRepr::External,
            vec![unit("Done"), newtype("Code", u(32))],
        ),
    ]);
    let mut done = unit("Done");
    done.ser_name = "done".into();
    done.de_names = vec!["done".into()];
    let new = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", EnumRepr::External, vec![done, newtype("Code", u(16))]),
    ]);
    let out = check(&old, &new);
    assert!(has(&out, RuleId::VariantRenamed, Level::Major, ONR));
    assert!(has(&out, RuleId::VariantRenamed, Level::Major, NRO));
    let fd = out
        .iter()
        .find(|f| f.rule == RuleId::IntegerNarrowed)
        .cloned();
    assert_eq!(
        fd.as_ref().and_then(|f| f.field.clone()),
        Some("s.Code".into())
    );
    assert_eq!(
        fd.and_then(|f| f.witness),
        Some(json!({"s": {"Code": 65536}}))
    );
}

#[test]
fn enum_repr_changed() {
    let old = snap(vec![
        msg_struct(vec![f("e", named("E"))]),
        en(
            "E",
            EnumRepr::External,
            vec![var("Run", Style::Named, vec![f("id", u(64))])],
        ),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("e", named("E"))]),
        en(
            "E",
            EnumRepr::Internal { tag: "type".into() },
            vec![var("Run", Style::Named, vec![f("id", u(64))])],
        ),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (RuleId::EnumReprChanged, Level::Major, ONR, Some("e".into())),
            (RuleId::EnumReprChanged, Level::Major, NRO, Some("e".into())),
        ]
    );
    assert_eq!(out[0].witness, Some(json!({"e": {"type": "Run", "id": 0}})));
}

#[test]
fn untagged_order_and_misread() {
    let old = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![newtype("Num", u(64)), newtype("Any", float(64))],
        ),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![newtype("Any", float(64)), newtype("Num", u(64))],
        ),
    ]);
    let out = check(&old, &new);
    let fd = only(&out, RuleId::UntaggedVariantOrderChanged);
    assert_eq!((fd.direction, fd.witness), (NRO, Some(json!({"id": 0}))));
    // A variant added in front that captures the old payloads.
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![
                newtype("Small", u(8)),
                newtype("Num", u(64)),
                newtype("Any", float(64)),
            ],
        ),
    ]);
    let out = check(&old, &new);
    assert!(
        has(&out, RuleId::UntaggedMisread, Level::Major, NRO),
        "{out:#?}"
    );
    // Appending a variant that matches nothing old is fine for new readers; old readers reject it.
    let new = snap(vec![
        msg_struct(vec![f("id", named("Id"))]),
        en(
            "Id",
            EnumRepr::Untagged,
            vec![
                newtype("Num", u(64)),
                newtype("Any", float(64)),
                newtype("Text", Ty::String),
            ],
        ),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::VariantAddedWithoutOther,
            Level::Major,
            ONR,
            Some("id.Text".into())
        )]
    );
}

#[test]
fn struct_tag_changed() {
    let mut closed = attrs("Msg");
    closed.deny_unknown_fields = true;
    let mut tagged = attrs("Msg");
    tagged.repr = EnumRepr::Internal { tag: "type".into() };
    let old = snap(vec![st_with("Msg", closed, vec![f("id", u(8))])]);
    let new = snap(vec![st_with("Msg", tagged, vec![f("id", u(8))])]);
    let out = check(&old, &new);
    let fd = out
        .iter()
        .find(|f| f.rule == RuleId::StructTagChanged && f.level == Level::Major)
        .cloned();
    assert_eq!(
        fd.map(|f| (f.direction, f.witness)),
        Some((ONR, Some(json!({"type": "Msg", "id": 0}))))
    );
}

// ----- collections -----

#[test]
fn collections() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("x", t)])]);
    let out = check(&s(vec_of(u(32))), &s(set_of(u(32))));
    assert_eq!(
        summary(&out),
        vec![(RuleId::SeqToSet, Level::Major, NRO, Some("x".into()))]
    );
    assert_eq!(out[0].witness, Some(json!({"x": [0, 0]})));
    let arr = |n| Ty::Array {
        elem: Box::new(u(32)),
        len: n,
    };
    let out = check(&s(arr(2)), &s(arr(3)));
    assert!(
        has(&out, RuleId::ArrayLengthChanged, Level::Major, ONR)
            && has(&out, RuleId::ArrayLengthChanged, Level::Major, NRO)
    );
    let tup = |n: usize| Ty::Tuple {
        elems: vec![u(32); n],
    };
    let out = check(&s(tup(2)), &s(tup(3)));
    assert!(has(&out, RuleId::TupleLengthChanged, Level::Major, NRO));
    // An array and a tuple of the same length are the same on the wire; a Vec reads both.
    assert_eq!(check(&s(arr(2)), &s(tup(2))), vec![]);
    let out = check(&s(arr(2)), &s(vec_of(u(32))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            ONR,
            Some("x".into())
        )]
    );
    let out = check(&s(map_of(Ty::String, u(8))), &s(map_of(u(32), u(8))));
    assert_eq!(
        summary(&out),
        vec![(RuleId::MapKeyChanged, Level::Major, NRO, Some("x".into()))]
    );
    assert_eq!(out[0].witness, Some(json!({"x": {"x": 0}})));
    // Integer keys are read back by String keys.
    let out = check(&s(map_of(u(32), u(8))), &s(map_of(Ty::String, u(8))));
    assert_eq!(
        summary(&out),
        vec![(RuleId::MapKeyChanged, Level::Major, ONR, Some("x".into()))]
    );
    let out = check(&s(map_of(u(64), u(8))), &s(map_of(u(32), u(8))));
    assert_eq!(out[0].witness, Some(json!({"x": {"4294967296": 0}})));
}

#[test]
fn external_and_unresolved_types() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("t", t)])]);
    let ext = |p: &str| Ty::External { path: p.into() };
    let out = check(
        &s(ext("chrono::NaiveDateTime")),
        &s(ext("time::OffsetDateTime")),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ExternalTypeChanged,
            Level::Major,
            ONR,
            Some("t".into())
        )]
    );
    // A Value reader reads anything; a Value writer may write what the old type rejects.
    let out = check(&s(ext("uuid::Uuid")), &s(Ty::Value));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ExternalTypeChanged,
            Level::Major,
            ONR,
            Some("t".into())
        )]
    );
    let out = check(&s(named("Missing")), &s(u(8)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::UnresolvedType, Level::Major, ONR, Some("t".into()))]
    );
    assert_eq!(check(&s(named("Missing")), &s(named("Missing"))), vec![]);
}

#[test]
fn recursive_types_terminate() {
    let tree = |v: Ty| {
        st(
            "Tree",
            vec![f("children", vec_of(named("Tree"))), f("v", v)],
        )
    };
    let old = snap(vec![
        msg_struct(vec![f("root", named("Tree"))]),
        tree(u(64)),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("root", named("Tree"))]),
        tree(u(32)),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerNarrowed,
            Level::Major,
            NRO,
            Some("root.v".into())
        )]
    );
    // An ever-growing instantiation stops at the depth limit.
    let grow = TypeDef {
        path: "c::G".into(),
        generics: vec!["T".into()],
        attrs: attrs("G"),
        body: Body::Struct {
            style: Style::Named,
            fields: vec![
                f("t", Ty::Param { name: "T".into() }),
                f(
                    "next",
                    opt(Ty::Named {
                        path: "c::G".into(),
                        args: vec![vec_of(Ty::Param { name: "T".into() })],
                    }),
                ),
            ],
        },
        location: loc(40),
    };
    let g = |t: Ty| {
        snap(vec![
            msg_struct(vec![f(
                "g",
                Ty::Named {
                    path: "c::G".into(),
                    args: vec![t],
                },
            )]),
            grow.clone(),
        ])
    };
    let out = compare_protocol(&g(u(64)), &g(u(32)), "p", "v", Scope::Full);
    assert!(has(&out, RuleId::IntegerNarrowed, Level::Major, NRO));
}

// ----- positional formats -----

#[test]
fn positional_fields() {
    let s = |fs: Vec<Field>| snap_fmt(Format::Bincode, vec![msg_struct(fs)]);
    let out = check(
        &s(vec![f("id", u(64))]),
        &s(vec![f("id", u(64)), f("prio", u(32)).dflt()]),
    );
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::PositionalFieldAdded,
                Level::Major,
                ONR,
                Some("prio".into())
            ),
            (
                RuleId::PositionalFieldAdded,
                Level::Major,
                NRO,
                Some("prio".into())
            ),
        ]
    );
    let out = check(
        &s(vec![f("id", u(64)), f("prio", u(32))]),
        &s(vec![f("id", u(64))]),
    );
    assert!(has(&out, RuleId::PositionalFieldRemoved, Level::Major, ONR));
    let out = check(
        &s(vec![f("id", u(64)), f("prio", u(32))]),
        &s(vec![f("prio", u(32)), f("id", u(64))]),
    );
    assert!(has(
        &out,
        RuleId::PositionalFieldOrderChanged,
        Level::Major,
        ONR
    ));
    // Names are not on the wire.
    assert_eq!(
        check(
            &s(vec![f("id", u(64))]),
            &s(vec![f("id", u(64)).wire("ident")])
        ),
        vec![]
    );
    // Any width change breaks bincode; postcard varints tolerate widening.
    let out = check(&s(vec![f("id", u(32))]), &s(vec![f("id", u(64))]));
    assert!(
        has(&out, RuleId::IntegerWidened, Level::Major, NRO)
            && has(&out, RuleId::IntegerWidened, Level::Major, ONR)
    );
    let p = |t: Ty| snap_fmt(Format::Postcard, vec![msg_struct(vec![f("id", t)])]);
    assert_eq!(
        summary(&check(&p(u(32)), &p(u(64)))),
        vec![(RuleId::IntegerWidened, Level::Major, ONR, Some("id".into()))]
    );
    assert!(has(
        &check(&p(u(8)), &p(u(16))),
        RuleId::IntegerWidened,
        Level::Major,
        NRO
    ));
}

#[test]
fn positional_variants() {
    let s = |vs: Vec<Variant>| {
        snap_fmt(
            Format::Postcard,
            vec![
                msg_struct(vec![f("s", named("S"))]),
                en("S", EnumRepr::External, vs),
            ],
        )
    };
    let out = check(
        &s(vec![unit("Run"), unit("Done")]),
        &s(vec![unit("Run"), unit("Done"), unit("Lost")]),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::VariantAddedWithoutOther,
            Level::Major,
            ONR,
            Some("s.Lost".into())
        ),]
    );
    let out = check(
        &s(vec![unit("Run"), unit("Done")]),
        &s(vec![unit("Queued"), unit("Run"), unit("Done")]),
    );
    assert!(
        has(&out, RuleId::PositionalVariantReordered, Level::Major, NRO),
        "{out:#?}"
    );
    // Renaming a variant in place is invisible.
    let mut done = unit("Finished");
    done.location = loc(77);
    assert_eq!(
        check(
            &s(vec![unit("Run"), unit("Done")]),
            &s(vec![unit("Run"), done])
        ),
        vec![]
    );
}

// ----- allows, scope, dedup -----

#[test]
fn allows_mark_findings() {
    let old = snap(vec![msg_struct(vec![f("id", u(64)), f("gone", u(8))])]);
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("q", Ty::String).allow(RuleId::RequiredFieldAdded),
    ])]);
    let out = check(&old, &new);
    let fd = only(&out, RuleId::RequiredFieldAdded);
    assert!(fd.allowed && !fd.counts());
    assert_eq!(fd.allow_reason.as_deref(), Some("checked by hand"));
    let fd = only(&out, RuleId::FieldRemoved);
    assert!(!fd.allowed);
    // On the message, for any field.
    let mut new2 = new.clone();
    new2.messages[0].allow = Some(AllowDecl {
        rules: vec![RuleId::FieldRemoved.to_string()],
        reason: "gone for good".into(),
    });
    let fd = only(&check(&old, &new2), RuleId::FieldRemoved);
    assert_eq!(
        (fd.allowed, fd.allow_reason.as_deref()),
        (true, Some("gone for good"))
    );
}

#[test]
fn records_only_scope() {
    let mut old = snap(vec![
        msg_struct(vec![f("id", u(64))]),
        st("Rec", vec![f("v", u(64))]),
    ]);
    old.messages.push(msg("Rec", "t.rec", Kind::Record));
    let mut new = snap(vec![
        msg_struct(vec![f("id", u(32))]),
        st("Rec", vec![f("v", u(32)), f("w", u(8))]),
    ]);
    new.messages.push(msg("Rec", "t.rec", Kind::Record));
    let out = check_scope(&old, &new, Scope::RecordsOnly);
    assert_eq!(
        summary(&out),
        vec![
            (RuleId::IntegerNarrowed, Level::Major, NRO, Some("v".into())),
            (
                RuleId::RequiredFieldAdded,
                Level::Major,
                NRO,
                Some("w".into())
            ),
        ]
    );
    assert!(
        out.iter()
            .all(|f| f.message_type == "Rec" && f.against == "v")
    );
}

#[test]
fn same_type_at_two_places_reports_each_path_once_per_direction() {
    let old = snap(vec![
        msg_struct(vec![f("a", named("R")), f("b", named("R"))]),
        st("R", vec![f("x", u(8)), f("y", opt(u(8)))]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("a", named("R")), f("b", named("R"))]),
        st("R", vec![f("x", u(8))]),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (RuleId::FieldRemoved, Level::Minor, None, Some("a.y".into())),
            (RuleId::FieldRemoved, Level::Minor, None, Some("b.y".into())),
        ]
    );
}

#[test]
fn field_locations_follow_the_side() {
    let mut gone = f("gone", u(8));
    gone.location = loc(42);
    let mut q = f("q", u(8));
    q.location = loc(43);
    let old = snap(vec![msg_struct(vec![gone])]);
    let new = snap(vec![msg_struct(vec![q])]);
    let out = check(&old, &new);
    let removed = only(&out, RuleId::FieldRemoved);
    assert_eq!((removed.side, removed.location.line), (Side::Old, 42));
    let added = only(&out, RuleId::RequiredFieldAdded);
    assert_eq!((added.side, added.location.line), (Side::New, 43));
    assert!(out.iter().all(|f| f.witness.is_some()));
    let v: Value = serde_json::to_value(&out).unwrap_or(Value::Null);
    assert!(v.is_array());
}

#[test]
fn one_tuples_are_arrays() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("x", t)])]);
    let one = Ty::Tuple { elems: vec![u(8)] };
    let out = check(&s(u(8)), &s(one.clone()));
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, NRO),
        "{out:#?}"
    );
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, ONR),
        "{out:#?}"
    );
    assert_eq!(
        check(
            &s(one.clone()),
            &s(Ty::Array {
                elem: Box::new(u(8)),
                len: 1
            })
        ),
        vec![]
    );
}

#[test]
fn value_writers_are_judged_against_the_whole_option() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("x", t)])]);
    let out = check(&s(opt(u(8))), &s(Ty::Value));
    let fd = only(&out, RuleId::FieldTypeChanged);
    assert_eq!(fd.direction, ONR);
    assert_ne!(
        fd.witness,
        Some(json!({"x": null})),
        "null is an Option's None"
    );
}

#[test]
fn untagged_ambiguity_of_the_writer_itself_is_not_reported() {
    // Both releases read `0` as `Small` when written as `Num`: nothing changes for that payload.
    let un = |vs: Vec<Variant>| {
        snap(vec![
            msg_struct(vec![f("id", named("Id"))]),
            en("Id", EnumRepr::Untagged, vs),
        ])
    };
    let old = un(vec![newtype("Small", u(8)), newtype("Num", u(64))]);
    let new = un(vec![
        newtype("Small", u(8)),
        newtype("Num", u(64)),
        newtype("Text", Ty::String),
    ]);
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::VariantAddedWithoutOther,
            Level::Major,
            ONR,
            Some("id.Text".into())
        )]
    );
}

#[test]
fn variant_allows_and_response_messages() {
    let mut done = unit("Done");
    done.allow = Some(AllowDecl {
        rules: vec![RuleId::VariantAddedWithoutOther.to_string()],
        reason: "readers upgraded first".into(),
    });
    let old = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", EnumRepr::External, vec![unit("Run")]),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("s", named("S"))]),
        en("S", EnumRepr::External, vec![unit("Run"), done]),
    ]);
    let fd = only(&check(&old, &new), RuleId::VariantAddedWithoutOther);
    assert!(fd.allowed);
    // A response under server-first is read by old clients from new servers only.
    let mk = |fs: Vec<Field>| {
        snap_kind(
            Kind::Response,
            Upgrade::ServerFirst,
            Format::Json,
            vec![msg_struct(fs)],
        )
    };
    let out = check(
        &mk(vec![f("id", u(64))]),
        &mk(vec![f("id", u(64)), f("q", Ty::String)]),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::RequiredFieldAdded,
            Level::Minor,
            NRO,
            Some("q".into())
        )]
    );
    let out = check(
        &mk(vec![f("id", u(64)), f("q", Ty::String)]),
        &mk(vec![f("id", u(64))]),
    );
    assert_eq!(
        summary(&out),
        vec![(RuleId::FieldRemoved, Level::Major, ONR, Some("q".into()))]
    );
}

#[test]
fn messages_are_matched_by_topic_and_kind_before_names() {
    // The type was renamed in Rust: same topic and kind, same wire.
    let old = snap(vec![msg_struct(vec![f("id", u(64))])]);
    let mut new = snap(vec![st("Renamed", vec![f("id", u(64))])]);
    new.messages[0].name = "Renamed".into();
    new.messages[0].rust_path = "c::Renamed".into();
    assert_eq!(check(&old, &new), vec![]);
}

#[test]
fn positional_options_and_signs() {
    let s = |t: Ty| snap_fmt(Format::Postcard, vec![msg_struct(vec![f("x", t)])]);
    let out = check(&s(u(32)), &s(opt(u(32))));
    assert!(
        has(&out, RuleId::FieldBecameOptional, Level::Major, ONR)
            && has(&out, RuleId::FieldBecameOptional, Level::Major, NRO),
        "{out:#?}"
    );
    let out = check(&s(i(32)), &s(i(64)));
    assert_eq!(
        summary(&out),
        vec![(RuleId::IntegerWidened, Level::Major, ONR, Some("x".into()))]
    );
    let out = check(&s(u(32)), &s(i(64)));
    assert!(
        has(&out, RuleId::IntegerSignChanged, Level::Major, NRO),
        "zigzag differs: {out:#?}"
    );
    let out = check(&s(vec_of(u(8))), &s(set_of(u(8))));
    assert!(has(&out, RuleId::SeqToSet, Level::Major, NRO));
}

/// Verdicts first found wrong by tests/positional_truth.rs (the real bincode 2 and postcard codecs).
#[test]
fn positional_zero_sized_skipped_and_char_fields() {
    let unit_st = || {
        def(
            "Marker",
            attrs("Marker"),
            Body::Struct {
                style: Style::Unit,
                fields: Vec::new(),
            },
        )
    };
    for fmt in [Format::Bincode, Format::Postcard] {
        let s = |fs: Vec<Field>| snap_fmt(fmt, vec![msg_struct(fs), unit_st()]);
        // `()`, unit structs and `PhantomData` take no bytes: adding them is invisible.
        let zst = s(vec![
            f("id", u(32)),
            f("unit", Ty::Unit),
            f("marker", named("Marker")),
            f("tail", u(8)),
        ]);
        assert_eq!(
            check(&s(vec![f("id", u(32)), f("tail", u(8))]), &zst),
            vec![]
        );
        // A sized field is still one.
        let out = check(&s(vec![f("id", u(32))]), &zst);
        assert!(
            has(&out, RuleId::PositionalFieldAdded, Level::Major, ONR),
            "{out:#?}"
        );
        // A writer that may skip a field writes nothing where the reader expects it.
        let plain = s(vec![f("id", u(32)), f("note", opt(Ty::String))]);
        let skipping = s(vec![
            f("id", u(32)),
            f("note", opt(Ty::String)).dflt().skip_if("Option::is_none"),
        ]);
        let out = check(&plain, &skipping);
        assert_eq!(
            summary(&out),
            vec![(
                RuleId::SkipSerializingIfAdded,
                Level::Major,
                ONR,
                Some("note".into())
            )],
            "{fmt}"
        );
        assert_eq!(out[0].witness, Some(json!({"id": 0})));
        assert!(has(
            &check(&skipping, &plain),
            RuleId::FieldBecameRequired,
            Level::Major,
            NRO
        ));
    }
    // postcard writes a char as a one-char string; bincode writes its bare UTF-8 bytes.
    let c = |fmt: Format, t: Ty| snap_fmt(fmt, vec![msg_struct(vec![f("c", t)])]);
    assert_eq!(
        summary(&check(
            &c(Format::Postcard, Ty::Char),
            &c(Format::Postcard, Ty::String)
        )),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            ONR,
            Some("c".into())
        )]
    );
    let out = check(
        &c(Format::Bincode, Ty::Char),
        &c(Format::Bincode, Ty::String),
    );
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, ONR)
            && has(&out, RuleId::FieldTypeChanged, Level::Major, NRO),
        "{out:#?}"
    );
}

#[test]
fn unknown_tags_are_tried_against_untagged_variants() {
    let tag = || EnumRepr::Internal { tag: "name".into() };
    let mut catch = var("Other", Style::Named, vec![f("name", Ty::String)]);
    catch.untagged = true;
    let old = snap(vec![
        msg_struct(vec![f("e", named("E")).flat()]),
        en(
            "E",
            tag(),
            vec![var("A", Style::Named, vec![f("x", u(8))]), catch.clone()],
        ),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("e", named("E")).flat()]),
        en(
            "E",
            tag(),
            vec![var("A", Style::Named, vec![f("x", u(8))]), unit("B"), catch],
        ),
    ]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(RuleId::VariantAdded, Level::Minor, None, Some("e.B".into()))]
    );
    assert_eq!(
        summary(&check(&new, &old)),
        vec![(
            RuleId::VariantRemoved,
            Level::Minor,
            None,
            Some("e.B".into())
        )]
    );
}

// ----- randomized models -----

/// A small deterministic generator (an LCG), so failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn pick(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap_or(0) % n.max(1)
    }
    fn coin(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn ty(&mut self, depth: usize, names: &[&str]) -> Ty {
        let leaf = depth == 0 || self.coin(40);
        match if leaf { self.pick(7) } else { 7 + self.pick(6) } {
            0 => Ty::Bool,
            1 => Ty::String,
            2 => u([8, 16, 32, 64][self.pick(4)]),
            3 => i([8, 32, 64][self.pick(3)]),
            4 => float([32, 64][self.pick(2)]),
            5 => Ty::Char,
            6 => Ty::Value,
            7 => opt(self.ty(depth - 1, names)),
            8 => vec_of(self.ty(depth - 1, names)),
            9 => map_of(
                [Ty::String, u(32)][self.pick(2)].clone(),
                self.ty(depth - 1, names),
            ),
            10 => Ty::Tuple {
                elems: vec![self.ty(depth - 1, names), self.ty(depth - 1, names)],
            },
            _ => named(names[self.pick(names.len())]),
        }
    }
    fn field(&mut self, name: &str, names: &[&str]) -> Field {
        let mut x = f(name, self.ty(2, names));
        if self.coin(20) {
            x.default = true;
        }
        if self.coin(10) {
            x = x.wire(&format!("{name}_w"));
        }
        if self.coin(10) && matches!(x.ty, Ty::Option { .. }) {
            x.skip_ser = SkipSer::If("Option::is_none".into());
            x.default = true;
        }
        if self.coin(8) {
            x = x.alias(&format!("{name}_alias"));
        }
        if self.coin(5) {
            x = x.skip();
            x.default = true;
        }
        if self.coin(8) {
            x.ty = named(names[self.pick(names.len())]);
            x.flatten = true;
        }
        x
    }
    fn def(&mut self, name: &str, names: &[&str]) -> TypeDef {
        let mut a = attrs(name);
        if self.coin(50) {
            let n = 1 + self.pick(3);
            let fields = (0..n)
                .map(|k| self.field(&format!("{}_f{k}", name.to_lowercase()), names))
                .collect();
            a.deny_unknown_fields = self.coin(15);
            a.default = self.coin(10);
            st_with(name, a, fields)
        } else {
            a.repr = match self.pick(4) {
                0 => EnumRepr::External,
                1 => EnumRepr::Internal { tag: "t".into() },
                2 => EnumRepr::Adjacent {
                    tag: "t".into(),
                    content: "c".into(),
                },
                _ => EnumRepr::Untagged,
            };
            let n = 1 + self.pick(3);
            let mut variants: Vec<Variant> = (0..n)
                .map(|k| {
                    let vname = format!("V{k}");
                    match self.pick(3) {
                        0 => unit(&vname),
                        1 => var(
                            &vname,
                            Style::Named,
                            vec![self.field(&format!("{}_x{k}", name.to_lowercase()), names)],
                        ),
                        _ => newtype(&vname, self.ty(1, names)),
                    }
                })
                .collect();
            if matches!(
                a.repr,
                EnumRepr::Internal { .. } | EnumRepr::Adjacent { .. }
            ) && self.coin(30)
            {
                variants.push(other("Other"));
            } else if a.repr != EnumRepr::Untagged && self.coin(20) {
                let mut loose = var(
                    "Loose",
                    Style::Named,
                    vec![self.field(&format!("{}_y", name.to_lowercase()), names)],
                );
                loose.untagged = true;
                variants.push(loose);
            }
            def(name, a, Body::Enum { variants })
        }
    }
    fn mutate(&mut self, t: &TypeDef, names: &[&str]) -> TypeDef {
        let mut t = t.clone();
        match &mut t.body {
            Body::Struct { fields, .. } => match self.pick(4) {
                0 => {
                    let added = format!("{}_added", t.attrs.ser_name.to_lowercase());
                    fields.push(self.field(&added, names));
                }
                1 if fields.len() > 1 => {
                    fields.remove(0);
                }
                2 => {
                    if let Some(x) = fields.first_mut() {
                        x.ty = self.ty(2, names);
                        x.skip_ser = SkipSer::Never;
                        x.skip_de = false;
                    }
                }
                _ => t.attrs.deny_unknown_fields = !t.attrs.deny_unknown_fields,
            },
            Body::Enum { variants } => match self.pick(3) {
                0 => variants.insert(0, unit("Added")),
                1 => variants.reverse(),
                _ => {
                    if let Some(v) = variants.first_mut() {
                        *v = newtype(&v.rust_name.clone(), self.ty(1, names));
                    }
                }
            },
            Body::Alias { .. } => {}
        }
        t
    }
}

/// Keeps `flatten` only where serde supports it: on a field whose type is a braced struct without
/// flattened fields of its own (so no cycles), and never with `deny_unknown_fields`.
fn serde_valid(mut types: Vec<TypeDef>) -> Vec<TypeDef> {
    let flattenable: Vec<String> = types
        .iter()
        .filter(|t| {
            matches!(&t.body, Body::Struct { style: Style::Named, fields } if fields.iter().all(|x| !x.flatten))
        })
        .map(|t| t.path.clone())
        .collect();
    for t in &mut types {
        let path = t.path.clone();
        let mut has_flatten = false;
        let mut fix = |fields: &mut Vec<Field>| {
            for x in fields.iter_mut() {
                if x.flatten {
                    let ok = matches!(&x.ty, Ty::Named { path: p, .. } if flattenable.contains(p) && *p != path);
                    x.flatten = ok;
                    has_flatten |= ok;
                }
            }
        };
        match &mut t.body {
            Body::Struct { fields, .. } => fix(fields),
            Body::Enum { variants } => variants.iter_mut().for_each(|v| fix(&mut v.fields)),
            Body::Alias { .. } => {}
        }
        if has_flatten {
            t.attrs.deny_unknown_fields = false;
        }
    }
    types
}

#[test]
fn random_models_are_sound() {
    let names = ["Msg", "A", "B"];
    let mut g = Gen(std::env::var("WC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7));
    let mut majors = 0;
    for round in 0..std::env::var("WC_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
    {
        let types: Vec<TypeDef> = names
            .iter()
            .map(|n| {
                let mut d = g.def(n, &names);
                if *n == "Msg" && round % 2 == 0 {
                    d.body = Body::Struct {
                        style: Style::Named,
                        fields: vec![g.field("root", &names)],
                    };
                    d.attrs = attrs("Msg");
                }
                d
            })
            .collect();
        let types = serde_valid(types);
        let changed: Vec<TypeDef> = types
            .iter()
            .map(|t| {
                if g.coin(50) {
                    g.mutate(t, &names)
                } else {
                    t.clone()
                }
            })
            .collect();
        let changed = serde_valid(changed);
        let format = [Format::Json, Format::Json, Format::Json, Format::Bincode][g.pick(4)];
        let old = snap_fmt(format, types);
        let new = snap_fmt(format, changed);
        let r = std::panic::catch_unwind(|| check(&old, &new));
        let Ok(out) = r else {
            eprintln!(
                "ROUND {round}\nOLD {}\nNEW {}",
                serde_json::to_string(&old.types).unwrap_or_default(),
                serde_json::to_string(&new.types).unwrap_or_default()
            );
            panic!("round {round}");
        };
        majors += out.iter().filter(|f| f.level == Level::Major).count();
    }
    assert!(majors > 100, "the generator finds breaks ({majors})");
}

#[test]
fn a_rejected_payload_caught_by_an_untagged_fallback_is_called_a_misread() {
    let tag = || EnumRepr::Internal { tag: "t".into() };
    let mut loose = var("Loose", Style::Named, vec![f("t", Ty::String)]);
    loose.untagged = true;
    let e = |fields: Vec<Field>| {
        snap(vec![
            msg_struct(vec![f("e", named("E"))]),
            en(
                "E",
                tag(),
                vec![var("Run", Style::Named, fields), loose.clone()],
            ),
        ])
    };
    let out = check(
        &e(vec![f("id", u(8)), f("gone", u(8))]),
        &e(vec![f("id", u(8))]),
    );
    let fd = only(&out, RuleId::FieldRemoved);
    assert_eq!((fd.level, fd.direction), (Level::Major, ONR));
    assert!(fd.message.contains("misread as `Loose`"), "{}", fd.message);
}
