//! Reflexivity: a model with every feature compared with itself, in every format, finds nothing.

use super::build::*;
use crate::Format;
use crate::compat::{Scope, compare_protocol};
use crate::model::{Body, EnumRepr, Snapshot, Style, Ty, TypeDef};

/// The message's fields: one of every kind the model has.
fn every_field() -> Vec<crate::model::Field> {
    vec![
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
        f("ext", Ty::external("chrono::DateTime<Utc>")),
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
    ]
}

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
        msg_struct(every_field()),
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
            package: None,
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
            std::sync::Arc::make_mut(t).location.line += 7;
        }
        assert_eq!(compare_protocol(&s, &moved, "p", "v", Scope::Full), vec![]);
    }
}

#[test]
fn unknown_protocol_gives_nothing() {
    let s = everything();
    assert_eq!(compare_protocol(&s, &s, "nope", "v", Scope::Full), vec![]);
}
