//! Allows, the records-only scope and deduplication.

use super::build::*;
use super::harness::*;
use crate::Kind;
use crate::compat::Scope;
use crate::findings::Level;
use crate::model::{AllowDecl, Ty};
use crate::rules::RuleId;

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
            (
                RuleId::IntegerNarrowed,
                Level::Major,
                NEW_READS_OLD,
                Some("v".into())
            ),
            (
                RuleId::RequiredFieldAdded,
                Level::Major,
                NEW_READS_OLD,
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
