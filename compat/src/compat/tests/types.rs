//! Types of values: scalars, options, collections, types of other crates and recursive types.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::compat::{Scope, compare_protocol};
use crate::findings::Level;
use crate::model::{Body, Field, Style, Ty, TypeDef};
use crate::rules::RuleId;

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
                OLD_READS_NEW,
                Some("id".into())
            ),
            (
                RuleId::FieldTypeChanged,
                Level::Major,
                NEW_READS_OLD,
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
        NEW_READS_OLD
    ));
    let old = snap(vec![msg_struct(vec![f("c", Ty::Char)])]);
    let new = snap(vec![msg_struct(vec![f("c", Ty::String)])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            OLD_READS_NEW,
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
        vec![(
            RuleId::IntegerNarrowed,
            Level::Major,
            NEW_READS_OLD,
            Some("n".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"n": 4_294_967_296u64})));
    let out = check(&s(u(32)), &s(u(64)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerWidened,
            Level::Major,
            OLD_READS_NEW,
            Some("n".into())
        )]
    );
    let out = check(&s(i(32)), &s(u(32)));
    assert_eq!(
        summary(&out),
        vec![
            (
                RuleId::IntegerSignChanged,
                Level::Major,
                OLD_READS_NEW,
                Some("n".into())
            ),
            (
                RuleId::IntegerSignChanged,
                Level::Major,
                NEW_READS_OLD,
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
            NEW_READS_OLD,
            Some("n".into())
        )]
    );
}

#[test]
fn floats() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("t", t)])]);
    let out = check(&s(float(64)), &s(u(64)));
    assert!(has(
        &out,
        RuleId::FloatToInteger,
        Level::Major,
        NEW_READS_OLD
    ));
    assert_eq!(
        out.iter()
            .find(|f| f.direction == NEW_READS_OLD)
            .and_then(|f| f.witness.clone()),
        Some(json!({"t": 0.5}))
    );
    // The new u64 writer exceeds f64's exact integers.
    assert!(has(
        &out,
        RuleId::FloatToInteger,
        Level::Major,
        OLD_READS_NEW
    ));
    let out = check(&s(u(32)), &s(float(64)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerToFloat,
            Level::Major,
            OLD_READS_NEW,
            Some("t".into())
        )]
    );
    let out = check(&s(float(64)), &s(float(32)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FloatNarrowed,
            Level::Major,
            NEW_READS_OLD,
            Some("t".into())
        )]
    );
    assert_eq!(
        summary(&check(&s(float(32)), &s(float(64)))),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            OLD_READS_NEW,
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
            OLD_READS_NEW,
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
            NEW_READS_OLD,
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
            NEW_READS_OLD,
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
            OLD_READS_NEW,
            Some("q".into())
        )]
    );
}

#[test]
fn collections() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("x", t)])]);
    let out = check(&s(vec_of(u(32))), &s(set_of(u(32))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::SeqToSet,
            Level::Major,
            NEW_READS_OLD,
            Some("x".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"x": [0, 0]})));
    let arr = |n| Ty::Array {
        elem: Box::new(u(32)),
        len: n,
    };
    let out = check(&s(arr(2)), &s(arr(3)));
    assert!(
        has(
            &out,
            RuleId::ArrayLengthChanged,
            Level::Major,
            OLD_READS_NEW
        ) && has(
            &out,
            RuleId::ArrayLengthChanged,
            Level::Major,
            NEW_READS_OLD
        )
    );
    let tup = |n: usize| Ty::Tuple {
        elems: vec![u(32); n],
    };
    let out = check(&s(tup(2)), &s(tup(3)));
    assert!(has(
        &out,
        RuleId::TupleLengthChanged,
        Level::Major,
        NEW_READS_OLD
    ));
    // An array and a tuple of the same length are the same on the wire; a Vec reads both.
    assert_eq!(check(&s(arr(2)), &s(tup(2))), vec![]);
    let out = check(&s(arr(2)), &s(vec_of(u(32))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("x".into())
        )]
    );
    let out = check(&s(map_of(Ty::String, u(8))), &s(map_of(u(32), u(8))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::MapKeyChanged,
            Level::Major,
            NEW_READS_OLD,
            Some("x".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"x": {"x": 0}})));
    // Integer keys are read back by String keys.
    let out = check(&s(map_of(u(32), u(8))), &s(map_of(Ty::String, u(8))));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::MapKeyChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("x".into())
        )]
    );
    let out = check(&s(map_of(u(64), u(8))), &s(map_of(u(32), u(8))));
    assert_eq!(out[0].witness, Some(json!({"x": {"4294967296": 0}})));
}

#[test]
fn external_and_unresolved_types() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("t", t)])]);
    let ext = |p: &str| Ty::external(p);
    let out = check(
        &s(ext("chrono::NaiveDateTime")),
        &s(ext("time::OffsetDateTime")),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ExternalTypeChanged,
            Level::Major,
            OLD_READS_NEW,
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
            OLD_READS_NEW,
            Some("t".into())
        )]
    );
    let out = check(&s(named("Missing")), &s(u(8)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::UnresolvedType,
            Level::Major,
            OLD_READS_NEW,
            Some("t".into())
        )]
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
            NEW_READS_OLD,
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
        package: None,
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
    assert!(has(
        &out,
        RuleId::IntegerNarrowed,
        Level::Major,
        NEW_READS_OLD
    ));
}

#[test]
fn one_tuples_are_arrays() {
    let s = |t: Ty| snap(vec![msg_struct(vec![f("x", t)])]);
    let one = Ty::Tuple { elems: vec![u(8)] };
    let out = check(&s(u(8)), &s(one.clone()));
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, NEW_READS_OLD),
        "{out:#?}"
    );
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, OLD_READS_NEW),
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
    assert_eq!(fd.direction, OLD_READS_NEW);
    assert_ne!(
        fd.witness,
        Some(json!({"x": null})),
        "null is an Option's None"
    );
}
