//! Message-level rules: the direction table, messages added and removed, topics, kinds, responses and
//! the protocol's format.

use serde_json::json;

use super::build::*;
use super::harness::*;
use crate::compat::directions;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{AllowDecl, EnumRepr, Field, Ty};
use crate::rules::RuleId;
use crate::{Format, Kind, ResponseMode, Upgrade};

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

#[test]
fn message_added_and_removed() {
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut new = old.clone();
    new.messages[0] = msg("Other", "t.other", Kind::Event);
    new.types
        .insert("c::Other".into(), std::sync::Arc::new(st("Other", vec![])));
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![
            (RuleId::MessageRemoved, Level::Major, NEW_READS_OLD, None),
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
    assert!(has(
        &out,
        RuleId::MessageRemoved,
        Level::Major,
        OLD_READS_NEW
    ));
}

#[test]
fn topic_renamed_and_kind_changed() {
    let old = snap(vec![msg_struct(vec![f("a", u(8))])]);
    let mut new = old.clone();
    new.messages[0].topic = "t.renamed".into();
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(RuleId::TopicRenamed, Level::Major, OLD_READS_NEW, None)]
    );
    let mut new = old.clone();
    new.messages[0].kind = Kind::Record;
    let out = check(&old, &new);
    assert_eq!(
        summary(&out),
        vec![(RuleId::KindChanged, Level::Major, OLD_READS_NEW, None)]
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
        vec![(RuleId::ResponseRemoved, Level::Major, NEW_READS_OLD, None)]
    );
    assert_eq!(
        summary(&check(&none, &old)),
        vec![(RuleId::ResponseAdded, Level::Major, OLD_READS_NEW, None)]
    );
    assert_eq!(
        summary(&check(&old, &stream)),
        vec![(RuleId::ResponseChanged, Level::Major, OLD_READS_NEW, None)]
    );
    // Server-first: new servers read old requests; a response added is only minor.
    let mut none_sf = none.clone();
    none_sf.protocols[0].upgrade = Upgrade::ServerFirst;
    let mut old_sf = old.clone();
    old_sf.protocols[0].upgrade = Upgrade::ServerFirst;
    assert_eq!(
        summary(&check(&none_sf, &old_sf)),
        vec![(RuleId::ResponseAdded, Level::Minor, OLD_READS_NEW, None)]
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
        vec![(
            RuleId::ProtocolFormatChanged,
            Level::Major,
            OLD_READS_NEW,
            None
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
            NEW_READS_OLD,
            Some("q".into())
        )]
    );
    let out = check(
        &mk(vec![f("id", u(64)), f("q", Ty::String)]),
        &mk(vec![f("id", u(64))]),
    );
    assert_eq!(
        summary(&out),
        vec![(
            RuleId::FieldRemoved,
            Level::Major,
            OLD_READS_NEW,
            Some("q".into())
        )]
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

/// Messages of one protocol share a walk per direction (its memo of type pairs): a changed type that
/// two messages reach is a finding of each, placed in each and with each message's own witness.
#[test]
fn a_changed_type_two_messages_reach_is_a_finding_of_each() {
    let shared = |fields| st("Shared", fields);
    let build = |shared_fields| {
        let mut s = snap(vec![
            msg_struct(vec![f("first", u(8)), f("x", named("Shared"))]),
            st("Other", vec![f("x", named("Shared"))]),
            shared(shared_fields),
        ]);
        s.messages.push(msg("Other", "t.other", Kind::Event));
        s
    };
    let old = build(vec![f("a", u(8))]);
    let new = build(vec![f("a", u(8)), f("b", u(8))]);
    let out = check(&old, &new);
    let added: Vec<&Finding> = out
        .iter()
        .filter(|f| f.rule == RuleId::RequiredFieldAdded && f.level == Level::Major)
        .collect();
    let mut messages: Vec<&str> = added.iter().map(|f| f.message_type.as_str()).collect();
    messages.sort_unstable();
    assert_eq!(messages, ["Msg", "Other"], "{out:#?}");
    for finding in added {
        assert_eq!(finding.field.as_deref(), Some("x.b"));
        let expected = match finding.message_type.as_str() {
            "Msg" => json!({"first": 0, "x": {"a": 0}}),
            _ => json!({"x": {"a": 0}}),
        };
        assert_eq!(finding.witness, Some(expected), "{}", finding.message_type);
    }
}
