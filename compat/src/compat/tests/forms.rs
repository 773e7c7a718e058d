//! The forms beyond a derive: readable/compact shapes, refined values, bytes, reader choices, types of
//! other crates at two package versions, serde's missing-field rule, and breaks without a witness.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::Format;
use crate::findings::Level;
use crate::model::{Body, Style, Ty};
use crate::rules::RuleId;

/// `IpAddr`-like: a string in human-readable formats, four bytes otherwise.
fn readable_ip() -> Ty {
    Ty::Readable {
        human: Box::new(Ty::String),
        compact: Box::new(Ty::Array {
            elem: Box::new(u(8)),
            len: 4,
        }),
    }
}

/// A refined type of `base` with `domain`, its sample and its value outside.
fn refined(base: Ty, domain: &str, within: &[&str], sample: &str, outside: Option<&str>) -> Ty {
    Ty::Refined {
        base: Box::new(base),
        domain: domain.into(),
        within: within.iter().map(|d| (*d).to_owned()).collect(),
        sample: sample.into(),
        outside: outside.map(str::to_owned),
        extent: None,
    }
}

fn nonzero_u32() -> Ty {
    refined(u(32), "nonzero", &[], "1", Some("0"))
}

fn one_field(format: Format, ty: Ty) -> crate::model::Snapshot {
    snap_fmt(format, vec![msg_struct(vec![f("v", ty)])])
}

#[test]
fn readable_shape_follows_the_format() {
    // JSON: the human shape, a string; nothing changes.
    assert_eq!(
        check(
            &one_field(Format::Json, Ty::String),
            &one_field(Format::Json, readable_ip())
        ),
        vec![]
    );
    // CBOR and bincode are not human-readable: four bytes against a string.
    for format in [
        Format::Cbor,
        Format::Msgpack,
        Format::Bincode,
        Format::Postcard,
    ] {
        let out = check(
            &one_field(format, Ty::String),
            &one_field(format, readable_ip()),
        );
        assert!(
            out.iter().any(|f| f.level == Level::Major),
            "{format}: {:#?}",
            summary(&out)
        );
    }
    // Compact shape against the same compact shape written plainly: identical.
    let plain = Ty::Array {
        elem: Box::new(u(8)),
        len: 4,
    };
    assert_eq!(
        check(
            &one_field(Format::Bincode, plain),
            &one_field(Format::Bincode, readable_ip())
        ),
        vec![]
    );
}

#[test]
fn plain_to_refined_breaks_new_reads_old() {
    for format in [Format::Json, Format::Bincode] {
        let out = check(&one_field(format, u(32)), &one_field(format, nonzero_u32()));
        assert_eq!(
            summary(&out),
            vec![(
                RuleId::ValueDomainNarrowed,
                Level::Major,
                NEW_READS_OLD,
                Some("v".into())
            )],
            "{format}"
        );
        assert_eq!(out[0].witness, Some(json!({"v": 0})), "{format}");
        // The reverse change breaks only old reads new: every non-zero value is a u32.
        assert_eq!(
            summary(&check(
                &one_field(format, nonzero_u32()),
                &one_field(format, u(32))
            )),
            vec![(
                RuleId::ValueDomainNarrowed,
                Level::Major,
                OLD_READS_NEW,
                Some("v".into())
            )],
            "{format}"
        );
    }
    // A String replaced by a validating type that rejects "".
    let id = refined(Ty::String, "job-id", &[], "\"f1a2\"", Some("\"\""));
    let out = check(
        &one_field(Format::Json, Ty::String),
        &one_field(Format::Json, id),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ValueDomainNarrowed,
            Level::Major,
            NEW_READS_OLD,
            Some("v".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"v": ""})));
}

#[test]
fn refined_bases_are_compared_as_usual() {
    // Non-zero u32 to non-zero u16: the base narrows, which is the finding.
    let out = check(
        &one_field(Format::Json, nonzero_u32()),
        &one_field(Format::Json, refined(u(16), "nonzero", &[], "1", Some("0"))),
    );
    assert!(
        has(&out, RuleId::IntegerNarrowed, Level::Major, NEW_READS_OLD),
        "{:#?}",
        summary(&out)
    );
    assert!(!out.iter().any(|f| f.rule == RuleId::ValueDomainNarrowed));
}

#[test]
fn refined_domains() {
    let uuid = refined(
        Ty::String,
        "uuid",
        &[],
        "\"67e55044-10b1-426f-9247-bb680e5fe0c8\"",
        Some("\"\""),
    );
    let url = refined(
        Ty::String,
        "url",
        &[],
        "\"https://example.com/\"",
        Some("\"\""),
    );
    let out = check(
        &one_field(Format::Json, uuid.clone()),
        &one_field(Format::Json, url),
    );
    let found = summary(&out);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found
            .iter()
            .all(|(rule, level, _, _)| *rule == RuleId::ValueDomainNarrowed
                && *level == Level::Major)
    );
    let old_reads_new = out
        .iter()
        .find(|f| f.direction == OLD_READS_NEW)
        .expect("old reads new");
    assert_eq!(
        old_reads_new.witness,
        Some(json!({"v": "https://example.com/"}))
    );
    assert!(
        old_reads_new.message.contains("knows of no"),
        "{}",
        old_reads_new.message
    );
    // A domain within another: a v4 address is an address; not the other way round.
    let ip = refined(Ty::String, "ip", &[], "\"::1\"", Some("\"\""));
    let ipv4 = refined(Ty::String, "ipv4", &["ip"], "\"127.0.0.1\"", Some("\"\""));
    let out = check(&one_field(Format::Json, ipv4), &one_field(Format::Json, ip));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ValueDomainNarrowed,
            Level::Major,
            OLD_READS_NEW,
            Some("v".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"v": "::1"})));
    assert!(
        out[0].message.contains("is a part of"),
        "{}",
        out[0].message
    );
    // Same domain: nothing.
    assert_eq!(
        check(
            &one_field(Format::Json, uuid.clone()),
            &one_field(Format::Json, uuid)
        ),
        vec![]
    );
}

#[test]
fn bytes_read_as_vec_u8_in_every_format() {
    let vec_u8 = vec_of(u(8));
    for format in [
        Format::Json,
        Format::Cbor,
        Format::Msgpack,
        Format::Bincode,
        Format::Postcard,
    ] {
        for (old, new) in [(vec_u8.clone(), Ty::Bytes), (Ty::Bytes, vec_u8.clone())] {
            let out = check(
                &one_field(format, old.clone()),
                &one_field(format, new.clone()),
            );
            assert!(
                out.iter().all(|f| f.level != Level::Major),
                "{format}, {old} to {new}: {:#?}",
                summary(&out)
            );
        }
    }
    // A reader of bytes takes a JSON string (serde_json hands it its bytes); a string reader does not
    // take an array of numbers.
    let out = check(
        &one_field(Format::Json, Ty::String),
        &one_field(Format::Json, Ty::Bytes),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldTypeChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("v".into())
        )]
    );
    // Wider elements than bytes are rejected by a bytes reader.
    let out = check(
        &one_field(Format::Json, vec_of(u(16))),
        &one_field(Format::Json, Ty::Bytes),
    );
    assert!(
        out.iter()
            .any(|f| f.level == Level::Major && f.direction == NEW_READS_OLD)
    );
}

#[test]
fn reader_choices() {
    let choice = Ty::Choice {
        writes: Box::new(Ty::String),
        reads: vec![u(64), Ty::String],
    };
    // A writer of strings or of integers: one of the reads takes it.
    for writer in [Ty::String, u(64)] {
        let out = check(
            &one_field(Format::Json, writer.clone()),
            &one_field(Format::Json, choice.clone()),
        );
        assert!(
            !out.iter()
                .any(|f| f.direction == NEW_READS_OLD && f.level == Level::Major),
            "{writer}: {:#?}",
            summary(&out)
        );
    }
    // A writer of booleans: none does.
    let out = check(
        &one_field(Format::Json, Ty::Bool),
        &one_field(Format::Json, choice.clone()),
    );
    let broken = out
        .iter()
        .find(|f| f.direction == NEW_READS_OLD)
        .expect("new reads old breaks");
    assert_eq!(broken.witness, Some(json!({"v": false})));
    // A positional format cannot read a choice at all (serde_with buffers it with `deserialize_any`).
    let out = check(
        &one_field(Format::Bincode, Ty::String),
        &one_field(Format::Bincode, choice),
    );
    assert!(
        has(
            &out,
            RuleId::PositionalUndecodable,
            Level::Major,
            NEW_READS_OLD
        ),
        "{:#?}",
        summary(&out)
    );
}

#[test]
fn external_types_at_two_versions_are_judged_by_their_source() {
    let at = |package: &str, source: Option<&str>| Ty::External {
        path: "url::Url".into(),
        package: Some(package.to_owned()),
        source: source.map(str::to_owned),
    };
    for (old, new) in [
        (at("url 2.5.0", None), at("url 2.5.0", None)),
        (at("url 1.7.2", None), at("url 2.5.0", None)),
        (at("url 1.7.2", Some("s1")), at("url 2.5.0", Some("s1"))),
    ] {
        let out = check(
            &one_field(Format::Json, old.clone()),
            &one_field(Format::Json, new.clone()),
        );
        assert_eq!(out, vec![], "{old} to {new}");
    }
    let out = check(
        &one_field(Format::Json, at("url 1.7.2", Some("s1"))),
        &one_field(Format::Json, at("url 2.5.0", Some("s2"))),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::SerdeImplChanged,
            Level::Major,
            OLD_READS_NEW,
            Some("v".into())
        )]
    );
    assert!(
        out[0].message.contains("`url 1.7.2`") && out[0].message.contains("`url 2.5.0`"),
        "{}",
        out[0].message
    );
    assert_eq!(out[0].witness, None);
}

#[test]
fn transparent_option_is_never_required() {
    // `#[serde(transparent)] struct Note(Option<String>)`: serde's missing-field deserializer answers
    // its `deserialize_option` with None.
    let mut transparent = attrs("Note");
    transparent.transparent = true;
    let note = def(
        "Note",
        transparent,
        Body::Struct {
            style: Style::Tuple,
            fields: vec![f("0", opt(Ty::String))],
        },
    );
    let old = snap(vec![msg_struct(vec![f("id", u(64))]), note.clone()]);
    let new = snap(vec![
        msg_struct(vec![f("id", u(64)), f("note", named("Note"))]),
        note,
    ]);
    let out = check(&old, &new);
    assert!(
        out.iter().all(|f| f.level != Level::Major),
        "{:#?}",
        summary(&out)
    );
    // A derived newtype struct asks `deserialize_newtype_struct`, which the missing-field deserializer
    // rejects: required.
    let newtype = tuple_st("Note", vec![opt(Ty::String)]);
    let new = snap(vec![
        msg_struct(vec![f("id", u(64)), f("note", named("Note"))]),
        newtype.clone(),
    ]);
    let old = snap(vec![msg_struct(vec![f("id", u(64))]), newtype]);
    let out = check(&old, &new);
    let major = out
        .iter()
        .find(|f| f.level == Level::Major)
        .expect("a required field");
    assert_eq!(major.direction, NEW_READS_OLD);
    assert_eq!(major.witness, Some(json!({"id": 0})));
}

#[test]
fn no_witness_is_invented_for_an_opaque_type() {
    let opaque = Ty::external("camino::Utf8PathBuf");
    let old = snap(vec![msg_struct(vec![f("path", opaque.clone())])]);
    let new = snap(vec![msg_struct(vec![f("path", opaque), f("id", u(64))])]);
    let out = check(&old, &new);
    let major = out
        .iter()
        .find(|f| f.level == Level::Major)
        .expect("a required field added");
    assert_eq!(major.direction, NEW_READS_OLD);
    assert_eq!(major.witness, None);
    assert!(
        major.message.contains("`camino::Utf8PathBuf`")
            && major.message.contains("#[wire(as = T)]")
            && major.message.contains("[shapes]"),
        "{}",
        major.message
    );
}

#[test]
fn refined_map_keys() {
    let id = refined(Ty::String, "job-id", &[], "\"f1a2\"", Some("\"\""));
    let keyed = |key: Ty| one_field(Format::Json, map_of(key, u(8)));
    let out = check(&keyed(Ty::String), &keyed(id.clone()));
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::ValueDomainNarrowed,
            Level::Major,
            NEW_READS_OLD,
            Some("v".into())
        )]
    );
    assert_eq!(out[0].witness, Some(json!({"v": {"": 0}})));
    assert_eq!(out[0].wire_path.as_deref(), Some("v{key}"));
    // Keys of a domain read as plain strings: compatible; old reads new is the break above reversed.
    let out = check(&keyed(id), &keyed(Ty::String));
    assert!(
        out.iter().all(|f| f.direction != NEW_READS_OLD),
        "{:#?}",
        summary(&out)
    );
}
