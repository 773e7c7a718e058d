//! Enums: variants added, removed and renamed, representations, untagged variants and misreads.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::findings::{Level, Side};
use crate::model::{EnumRepr, Field, Style, Ty, Variant};
use crate::rules::RuleId;

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
            OLD_READS_NEW,
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
            NEW_READS_OLD,
            Some("s.Done".into())
        )]
    );
    assert_eq!(out[0].side, Side::Old);
}

#[test]
fn the_catch_all_advice_fits_the_representation() {
    // Issue 14 item 10: in an externally tagged enum a `#[serde(other)]` variant takes only unit
    // variants, so it is no remedy for a new struct variant; and a reader that has one is not told to
    // add one.
    let done = || var("Done", Style::Named, vec![f("code", i(32))]);
    let message_of = |old_variants: Vec<Variant>, new_variants: Vec<Variant>, repr: EnumRepr| {
        let old = snap(vec![
            msg_struct(vec![f("s", named("S"))]),
            en("S", repr.clone(), old_variants),
        ]);
        let new = snap(vec![
            msg_struct(vec![f("s", named("S"))]),
            en("S", repr, new_variants),
        ]);
        only(&check(&old, &new), RuleId::VariantAddedWithoutOther).message
    };
    let struct_variant = message_of(
        vec![unit("Run")],
        vec![unit("Run"), done()],
        EnumRepr::External,
    );
    assert!(
        struct_variant.contains("would not take it"),
        "{struct_variant}"
    );
    let with_other = message_of(
        vec![unit("Run"), other("Unknown")],
        vec![unit("Run"), done(), other("Unknown")],
        EnumRepr::External,
    );
    assert_eq!(
        with_other.matches("serde(other)").count(),
        1,
        "{with_other}"
    );
    assert!(!with_other.contains("would take it"), "{with_other}");
    assert!(!with_other.contains("has no"), "{with_other}");
    let unit_variant = message_of(
        vec![unit("Run")],
        vec![unit("Run"), unit("Done")],
        EnumRepr::External,
    );
    assert!(unit_variant.contains("would take it"), "{unit_variant}");
    let internal = message_of(
        vec![unit("Run")],
        vec![unit("Run"), done()],
        EnumRepr::Internal { tag: "t".into() },
    );
    assert!(internal.contains("would take it"), "{internal}");
    assert!(
        !RuleId::VariantAddedWithoutOther
            .rule()
            .help
            .starts_with("add a `#[serde(other)]`")
    );
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
    assert!(has(
        &out,
        RuleId::VariantRenamed,
        Level::Major,
        OLD_READS_NEW
    ));
    assert!(has(
        &out,
        RuleId::VariantRenamed,
        Level::Major,
        NEW_READS_OLD
    ));
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
            (
                RuleId::EnumReprChanged,
                Level::Major,
                OLD_READS_NEW,
                Some("e".into())
            ),
            (
                RuleId::EnumReprChanged,
                Level::Major,
                NEW_READS_OLD,
                Some("e".into())
            ),
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
    assert_eq!(
        (fd.direction, fd.witness),
        (NEW_READS_OLD, Some(json!({"id": 0})))
    );
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
        has(&out, RuleId::UntaggedMisread, Level::Major, NEW_READS_OLD),
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
            OLD_READS_NEW,
            Some("id.Text".into())
        )]
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
            OLD_READS_NEW,
            Some("id.Text".into())
        )]
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
    assert_eq!((fd.level, fd.direction), (Level::Major, OLD_READS_NEW));
    assert!(fd.message.contains("misread as `Loose`"), "{}", fd.message);
}
