//! Fields of structs: added, removed, renamed, skipped, custom, closed readers, transparent structs and
//! the struct tag.

use serde_json::{Value, json};

use super::build::*;
use super::harness::*;
use crate::findings::{Level, Side};
use crate::model::{Body, EnumRepr, Proxy, Style, Ty, TypeDef};
use crate::rules::RuleId;
use crate::{Format, Kind, Upgrade};

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
            NEW_READS_OLD,
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
        old.types.values().map(|def| (**def).clone()).collect(),
    );
    old_cf.messages[0].kind = Kind::Request;
    let new_cf = snap_kind(
        Kind::Request,
        Upgrade::ClientFirst,
        Format::Json,
        new.types.values().map(|def| (**def).clone()).collect(),
    );
    let out = check(&old_cf, &new_cf);
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::RequiredFieldAdded,
            Level::Minor,
            NEW_READS_OLD,
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
    assert_eq!((fd.level, fd.direction), (Level::Major, OLD_READS_NEW));
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
            OLD_READS_NEW,
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
                OLD_READS_NEW,
                Some("t_submit".into())
            ),
            (
                RuleId::FieldRenamed,
                Level::Major,
                NEW_READS_OLD,
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
            OLD_READS_NEW,
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
        OLD_READS_NEW
    ));
    // A Rust rename that keeps the wire name is nothing.
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut g = f("renamed", u(8)).wire("a");
    g.location = loc(99);
    let new = snap(vec![msg_struct(vec![g])]);
    assert_eq!(check(&old, &new), vec![]);
}

#[test]
fn field_renamed_with_the_old_name_as_alias_breaks_old_readers() {
    // Issue 14 item 1: `name` becomes `#[serde(alias = "name")] job_name`. New readers still take
    // `name`; old readers require `name` and new writers send `job_name`.
    let old = snap(vec![msg_struct(vec![f("name", Ty::String)])]);
    let new = snap(vec![msg_struct(vec![
        f("job_name", Ty::String).alias("name"),
    ])]);
    let out = check(&old, &new);
    assert!(
        has(&out, RuleId::FieldRemoved, Level::Major, OLD_READS_NEW),
        "{out:#?}"
    );
    assert!(
        !out.iter()
            .any(|f| f.direction == NEW_READS_OLD && f.level == Level::Major)
    );
}

#[test]
fn required_field_no_longer_written_breaks_old_readers() {
    // Issue 14 item 1: a required field gaining `#[serde(skip_serializing)]`.
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("name", Ty::String),
    ])]);
    let mut skipped = f("name", Ty::String);
    skipped.skip_ser = crate::model::SkipSer::Always;
    let new = snap(vec![msg_struct(vec![f("id", u(64)), skipped])]);
    let out = check(&old, &new);
    assert!(
        has(&out, RuleId::FieldRemoved, Level::Major, OLD_READS_NEW),
        "{out:#?}"
    );
    assert_eq!(
        out.iter()
            .find(|f| f.level == Level::Major)
            .and_then(|f| f.witness.clone()),
        Some(json!({"id": 0}))
    );
}

#[test]
fn rename_onto_an_alias_readers_accept_is_minor() {
    // Issue 14 item 4: readers took `job_name` as an alias; writers now write it.
    let old = snap(vec![msg_struct(vec![
        f("name", Ty::String).alias("job_name"),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("name", Ty::String).wire("job_name").alias("name"),
    ])]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::FieldRenamed,
            Level::Minor,
            None,
            Some("name".into())
        )]
    );
}

#[test]
fn double_option_to_option_is_wire_identical() {
    // Issue 14 item 6: `Option<Option<T>>` writes `T` or `null`, which `Option<T>` reads; and the
    // reverse.
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("limit", opt(opt(u(32)))),
    ])]);
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("limit", opt(u(32))),
    ])]);
    assert_eq!(check(&old, &new), vec![]);
    assert_eq!(check(&new, &old), vec![]);
    // Skipped when `None`, with a default: `Some(None)` is still written as `null`.
    let old = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("limit", opt(opt(u(32))))
            .skip_if("Option::is_none")
            .dflt(),
    ])]);
    assert_eq!(check(&old, &new), vec![]);
    // The content still counts.
    let new = snap(vec![msg_struct(vec![
        f("id", u(64)),
        f("limit", opt(u(8))),
    ])]);
    assert!(has(
        &check(&old, &new),
        RuleId::IntegerNarrowed,
        Level::Major,
        NEW_READS_OLD
    ));
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
            OLD_READS_NEW,
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
        NEW_READS_OLD
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
    assert_eq!((fd.level, fd.direction), (Level::Major, NEW_READS_OLD));
    assert_eq!(fd.witness, Some(json!({})));
    // A new deserializer affects what the new release reads, only.
    assert!(has(
        &out,
        RuleId::CustomSerdeChanged,
        Level::Major,
        NEW_READS_OLD
    ));
    assert!(!has(
        &out,
        RuleId::CustomSerdeChanged,
        Level::Major,
        OLD_READS_NEW
    ));
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
    let both = vec![
        (
            RuleId::CustomSerdeChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("t".into()),
        ),
        (
            RuleId::CustomSerdeChanged,
            Level::Major,
            NEW_READS_OLD,
            Some("t".into()),
        ),
    ];
    // Both functions changed: both directions, once each.
    assert_eq!(summary(&out), both);
    assert_eq!(out[0].witness, None);
    // Only the serializer changed: what the new release writes, read by the old one.
    let new = snap(vec![msg_struct(vec![
        f("t", u(64)).with(Some("b::ser"), Some("a::de")),
    ])]);
    assert_eq!(summary(&check(&old, &new)), vec![both[0].clone()]);
    // Only the deserializer changed: what the new release reads.
    let new = snap(vec![msg_struct(vec![
        f("t", u(64)).with(Some("a::ser"), Some("b::de")),
    ])]);
    assert_eq!(summary(&check(&old, &new)), vec![both[1].clone()]);
    // Same functions, other type behind them: which one it affects is unknown, so both.
    let new = snap(vec![msg_struct(vec![
        f("t", i(64)).with(Some("a::ser"), Some("a::de")),
    ])]);
    assert_eq!(summary(&check(&old, &new)), both);
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
            NEW_READS_OLD,
            Some("id".into())
        )]
    );
}

#[test]
fn plain_type_read_through_try_from_is_a_fallible_conversion() {
    // Issue 14 item 2: `String` becoming a type that validates with `try_from = "String"`.
    let mut a = attrs("Name");
    a.from = Some(Proxy {
        ty: Ty::String,
        fallible: true,
    });
    let old = snap(vec![msg_struct(vec![f("name", Ty::String)])]);
    let new = snap(vec![
        msg_struct(vec![f("name", named("Name"))]),
        def(
            "Name",
            a,
            Body::Struct {
                style: Style::Tuple,
                fields: vec![f("0", Ty::String)],
            },
        ),
    ]);
    assert_eq!(
        summary(&check(&old, &new)),
        vec![(
            RuleId::CustomSerdeChanged,
            Level::Major,
            NEW_READS_OLD,
            Some("name".into())
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
        Some((Level::Major, NEW_READS_OLD))
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
                OLD_READS_NEW,
                Some("id".into())
            ),
            (
                RuleId::TransparentChanged,
                Level::Major,
                NEW_READS_OLD,
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
        package: None,
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
            NEW_READS_OLD,
            Some("w.t".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"w": {"t": 4_294_967_296u64}})));
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
        Some((OLD_READS_NEW, Some(json!({"type": "Msg", "id": 0}))))
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
