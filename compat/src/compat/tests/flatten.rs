//! Flattened fields, maps and enums.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::compat::Scope;
use crate::findings::Level;
use crate::model::{Body, EnumRepr, Style, Ty};
use crate::rules::RuleId;
use crate::{Format, Kind, Upgrade};

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
                OLD_READS_NEW,
                Some("inner".into())
            ),
            (
                RuleId::FlattenChanged,
                Level::Major,
                NEW_READS_OLD,
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
            NEW_READS_OLD,
            Some("inner.x".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"x": 256})));
}

#[test]
fn flattened_map_absorbs_unknown_keys_and_writes_any_key() {
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
    // Old writers put any value under `q` in `rest`: the new `q` rejects what is no `u8`.
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, NEW_READS_OLD),
        "{out:#?}"
    );
    assert!(
        out.iter()
            .all(|f| f.level != Level::Major || f.direction == NEW_READS_OLD),
        "{out:#?}"
    );
    assert_eq!(
        out.iter()
            .find(|f| f.level == Level::Major)
            .and_then(|f| f.witness.clone())
            .and_then(|w| w.get("q").cloned())
            .map(|q| q.is_u64() && q.as_u64() <= Some(255)),
        Some(false),
        "the witness puts a value `q` rejects under `q`: {out:#?}"
    );
    // A map of `u8` under the promoted key: every value it holds is a `u16`.
    let old = snap(vec![msg_struct(vec![
        f("rest", map_of(Ty::String, u(8))).flat(),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("q", opt(u(16))),
        f("rest", map_of(Ty::String, u(8))).flat(),
    ])]);
    let out = check(&old, &new);
    assert!(
        !has(&out, RuleId::FieldTypeChanged, Level::Major, NEW_READS_OLD),
        "{out:#?}"
    );
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
        has(&out, RuleId::FieldTypeChanged, Level::Major, OLD_READS_NEW),
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
            NEW_READS_OLD,
            Some("event.submit.urgency".into())
        )]
    );
}
