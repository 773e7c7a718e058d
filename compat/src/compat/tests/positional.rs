//! Positional formats (bincode, postcard): fields and variants by position.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::Format;
use crate::findings::Level;
use crate::model::{Body, EnumRepr, Field, Style, Ty, Variant};
use crate::rules::RuleId;

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
                OLD_READS_NEW,
                Some("prio".into())
            ),
            (
                RuleId::PositionalFieldAdded,
                Level::Major,
                NEW_READS_OLD,
                Some("prio".into())
            ),
        ]
    );
    let out = check(
        &s(vec![f("id", u(64)), f("prio", u(32))]),
        &s(vec![f("id", u(64))]),
    );
    assert!(has(
        &out,
        RuleId::PositionalFieldRemoved,
        Level::Major,
        OLD_READS_NEW
    ));
    let out = check(
        &s(vec![f("id", u(64)), f("prio", u(32))]),
        &s(vec![f("prio", u(32)), f("id", u(64))]),
    );
    assert!(has(
        &out,
        RuleId::PositionalFieldOrderChanged,
        Level::Major,
        OLD_READS_NEW
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
        has(&out, RuleId::IntegerWidened, Level::Major, NEW_READS_OLD)
            && has(&out, RuleId::IntegerWidened, Level::Major, OLD_READS_NEW)
    );
    let p = |t: Ty| snap_fmt(Format::Postcard, vec![msg_struct(vec![f("id", t)])]);
    assert_eq!(
        summary(&check(&p(u(32)), &p(u(64)))),
        vec![(
            RuleId::IntegerWidened,
            Level::Major,
            OLD_READS_NEW,
            Some("id".into())
        )]
    );
    assert!(has(
        &check(&p(u(8)), &p(u(16))),
        RuleId::IntegerWidened,
        Level::Major,
        NEW_READS_OLD
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
            OLD_READS_NEW,
            Some("s.Lost".into())
        ),]
    );
    let out = check(
        &s(vec![unit("Run"), unit("Done")]),
        &s(vec![unit("Queued"), unit("Run"), unit("Done")]),
    );
    assert!(
        has(
            &out,
            RuleId::PositionalVariantReordered,
            Level::Major,
            NEW_READS_OLD
        ),
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

#[test]
fn positional_options_and_signs() {
    let s = |t: Ty| snap_fmt(Format::Postcard, vec![msg_struct(vec![f("x", t)])]);
    let out = check(&s(u(32)), &s(opt(u(32))));
    assert!(
        has(
            &out,
            RuleId::FieldBecameOptional,
            Level::Major,
            OLD_READS_NEW
        ) && has(
            &out,
            RuleId::FieldBecameOptional,
            Level::Major,
            NEW_READS_OLD
        ),
        "{out:#?}"
    );
    let out = check(&s(i(32)), &s(i(64)));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::IntegerWidened,
            Level::Major,
            OLD_READS_NEW,
            Some("x".into())
        )]
    );
    let out = check(&s(u(32)), &s(i(64)));
    assert!(
        has(
            &out,
            RuleId::IntegerSignChanged,
            Level::Major,
            NEW_READS_OLD
        ),
        "zigzag differs: {out:#?}"
    );
    let out = check(&s(vec_of(u(8))), &s(set_of(u(8))));
    assert!(has(&out, RuleId::SeqToSet, Level::Major, NEW_READS_OLD));
}

/// Verdicts first found wrong by tests/positional_truth.rs (the real bincode 2 and postcard codecs).
#[test]
fn positional_zero_sized_and_skipped_fields() {
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
            has(
                &out,
                RuleId::PositionalFieldAdded,
                Level::Major,
                OLD_READS_NEW
            ),
            "{out:#?}"
        );
        // A writer that may skip a field writes nothing where the reader expects it.
        let plain = s(vec![f("id", u(32)), f("note", opt(Ty::String))]);
        let skipping = s(vec![
            f("id", u(32)),
            f("note", opt(Ty::String)).dflt().skip_if("Option::is_none"),
        ]);
        // The new release cannot read its own skipped field either: `self_rejected`, in no direction.
        let out = check(&plain, &skipping);
        assert_eq!(
            summary(&out),
            vec![
                (RuleId::SelfRejected, Level::Major, None, None),
                (
                    RuleId::SkipSerializingIfAdded,
                    Level::Major,
                    OLD_READS_NEW,
                    Some("note".into())
                )
            ],
            "{fmt}"
        );
        assert_eq!(out[0].witness, Some(json!({"id": 0, "note": null})));
        assert_eq!(out[1].witness, Some(json!({"id": 0})));
        assert!(has(
            &check(&skipping, &plain),
            RuleId::FieldBecameRequired,
            Level::Major,
            NEW_READS_OLD
        ));
    }
}

/// postcard writes a char as a one-char string; bincode writes its bare UTF-8 bytes.
#[test]
fn positional_char_to_string() {
    let c = |fmt: Format, t: Ty| snap_fmt(fmt, vec![msg_struct(vec![f("c", t)])]);
    assert_eq!(
        summary(&check(
            &c(Format::Postcard, Ty::Char),
            &c(Format::Postcard, Ty::String)
        )),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("c".into())
        )]
    );
    let out = check(
        &c(Format::Bincode, Ty::Char),
        &c(Format::Bincode, Ty::String),
    );
    assert!(
        has(&out, RuleId::FieldTypeChanged, Level::Major, OLD_READS_NEW)
            && has(&out, RuleId::FieldTypeChanged, Level::Major, NEW_READS_OLD),
        "{out:#?}"
    );
}

/// A field reorder's witness shows the break: every field holds another value, so reading one field's
/// bytes as another's reads back something else (zeros everywhere would decode identically).
#[test]
fn positional_reorder_witness_has_distinct_values() {
    for fmt in [Format::Bincode, Format::Postcard] {
        let s = |fs: Vec<Field>| snap_fmt(fmt, vec![msg_struct(fs)]);
        let out = check(
            &s(vec![f("a", u(32)), f("b", u(32))]),
            &s(vec![f("b", u(32)), f("a", u(32))]),
        );
        let found: Vec<_> = out
            .iter()
            .filter(|x| x.rule == RuleId::PositionalFieldOrderChanged)
            .collect();
        assert_eq!(found.len(), 2, "one per direction: {:#?}", summary(&out));
        for finding in found {
            let witness = finding.witness.as_ref().expect("a witness");
            assert_ne!(witness["a"], witness["b"], "{witness}");
            assert!(finding.message.contains("misread"), "{}", finding.message);
        }
    }
}

/// A variant inserted before others: the inserted variant is named (the old release reads it as the
/// variant that was at its index), and a variant pushed past the old end is a reorder, not an addition.
#[test]
fn positional_inserted_variant_is_named() {
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
        &s(vec![unit("Queued"), unit("Run"), unit("Done")]),
    );
    let mut found = summary(&out);
    found.sort_by_key(|x| (x.2.map(|d| d.to_string()), x.3.clone()));
    let reordered = |dir, field: &str| {
        (
            RuleId::PositionalVariantReordered,
            Level::Major,
            dir,
            Some(field.to_owned()),
        )
    };
    assert_eq!(
        found,
        vec![
            reordered(NEW_READS_OLD, "s.Done"),
            reordered(NEW_READS_OLD, "s.Run"),
            reordered(OLD_READS_NEW, "s.Done"),
            reordered(OLD_READS_NEW, "s.Queued"),
            reordered(OLD_READS_NEW, "s.Run"),
        ]
    );
    let queued = out
        .iter()
        .find(|x| x.field.as_deref() == Some("s.Queued"))
        .expect("the inserted variant");
    assert!(
        queued.message.contains("reads as `Run`"),
        "{}",
        queued.message
    );
}

/// A `String` and a `Vec<u8>` are the same bytes in both formats: a string reads back as its bytes; bytes
/// read as a string fail unless they are UTF-8; a set of bytes sorts and collapses a string's bytes.
#[test]
fn positional_string_and_bytes() {
    for fmt in [Format::Bincode, Format::Postcard] {
        let s = |t: Ty| snap_fmt(fmt, vec![msg_struct(vec![f("body", t)])]);
        let out = check(&s(Ty::String), &s(vec_of(u(8))));
        assert_eq!(
            summary(&out),
            vec![(
                RuleId::FieldTypeChanged,
                Level::Major,
                OLD_READS_NEW,
                Some("body".into())
            )]
        );
        assert_eq!(out[0].witness, Some(json!({"body": [255]})));
        let out = check(&s(Ty::String), &s(set_of(u(8))));
        let to_set = out
            .iter()
            .find(|x| x.direction == NEW_READS_OLD)
            .expect("a string read as a set");
        assert_eq!(to_set.witness, Some(json!({"body": "baa"})));
        // Signed bytes are other values.
        assert!(has(
            &check(&s(Ty::String), &s(vec_of(i(8)))),
            RuleId::FieldTypeChanged,
            Level::Major,
            NEW_READS_OLD
        ));
    }
}

/// Shapes a positional codec cannot decode (untagged, internally or adjacently tagged enums, an untagged
/// variant, `serde_json::Value`) or write (`flatten`): one `positional_undecodable` where the reader has
/// the shape, not findings about variant indices below it.
#[test]
fn positional_undecodable_shapes() {
    let s = |repr: EnumRepr, vs: Vec<Variant>| {
        snap_fmt(
            Format::Postcard,
            vec![msg_struct(vec![f("s", named("S"))]), en("S", repr, vs)],
        )
    };
    let external = || s(EnumRepr::External, vec![newtype("A", u(8)), unit("B")]);
    let tag = || "t".to_owned();
    for repr in [
        EnumRepr::Untagged,
        EnumRepr::Internal { tag: tag() },
        EnumRepr::Adjacent {
            tag: tag(),
            content: "c".into(),
        },
    ] {
        let new = s(repr, vec![unit("B"), newtype("A", u(8)), unit("C")]);
        let out = check(&external(), &new);
        let found: Vec<_> = out
            .iter()
            .filter(|x| x.rule == RuleId::PositionalUndecodable)
            .collect();
        assert_eq!(found.len(), 1, "{:#?}", summary(&out));
        assert_eq!(found[0].direction, NEW_READS_OLD);
        assert!(
            !out.iter()
                .any(|x| x.rule == RuleId::PositionalVariantReordered),
            "{:#?}",
            summary(&out)
        );
    }
    let p = |t: Ty| snap_fmt(Format::Bincode, vec![msg_struct(vec![f("v", t)])]);
    assert!(has(
        &check(&p(u(8)), &p(Ty::Value)),
        RuleId::PositionalUndecodable,
        Level::Major,
        NEW_READS_OLD
    ));
}

/// A field appended at the very end: old reads new leaves bytes unread, which the usual entry points
/// accept silently; the finding says what happens instead of only "no field names".
#[test]
fn positional_appended_field_says_what_unread_bytes_do() {
    let s = |fs: Vec<Field>| snap_fmt(Format::Postcard, vec![msg_struct(fs)]);
    let out = check(
        &s(vec![f("id", u(64))]),
        &s(vec![f("id", u(64)), f("note", opt(Ty::String)).dflt()]),
    );
    let old_reads_new = out
        .iter()
        .find(|x| x.direction == OLD_READS_NEW)
        .expect("old reads new breaks");
    assert_eq!(old_reads_new.rule, RuleId::PositionalFieldAdded);
    assert_eq!(old_reads_new.level, Level::Major);
    assert!(
        old_reads_new.message.contains("postcard::from_bytes")
            && old_reads_new.message.contains("the field is lost"),
        "{}",
        old_reads_new.message
    );
}
