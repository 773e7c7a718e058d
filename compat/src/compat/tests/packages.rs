//! Types of dependencies at two package versions: a dependency upgrade is a change like any other.

use super::build::*;
use super::harness::*;
use crate::findings::Level;
use crate::model::{Ty, TypeDef};
use crate::rules::RuleId;

fn in_package(mut def: TypeDef, package: &str) -> TypeDef {
    def.package = Some(package.to_owned());
    def
}

#[test]
fn an_upgraded_dependency_whose_type_changed_names_both_versions() {
    let old = snap(vec![
        msg_struct(vec![f("link", named("Link"))]),
        in_package(st("Link", vec![f("href", Ty::String)]), "linkkit 1.0.0"),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("link", named("Link"))]),
        in_package(
            st("Link", vec![f("href", Ty::String), f("rel", Ty::String)]),
            "linkkit 1.1.0",
        ),
    ]);
    let out = check(&old, &new);
    let added = only(&out, RuleId::RequiredFieldAdded);
    assert_eq!(added.level, Level::Major);
    assert_eq!(added.direction, NEW_READS_OLD);
    assert!(
        added
            .message
            .contains("the dependency changed from linkkit 1.0.0 to linkkit 1.1.0"),
        "{}",
        added.message
    );
}

#[test]
fn an_upgraded_dependency_whose_type_did_not_change_is_no_finding() {
    let def = |package| in_package(st("Link", vec![f("href", Ty::String)]), package);
    let old = snap(vec![
        msg_struct(vec![f("link", named("Link"))]),
        def("linkkit 1.0.0"),
    ]);
    let new = snap(vec![
        msg_struct(vec![f("link", named("Link"))]),
        def("linkkit 1.0.1"),
    ]);
    assert!(check(&old, &new).is_empty());
}

/// An opaque type of another crate at `package`, whose impls' source (when read) is `source`.
fn ghost_id(package: &str, source: Option<&str>) -> Ty {
    Ty::External {
        path: "ghost::Id".to_owned(),
        package: Some(package.to_owned()),
        source: source.map(str::to_owned),
    }
}

#[test]
fn an_external_type_is_compared_by_the_source_of_its_impls_never_by_its_version() {
    let s = |package: &str, source: Option<&str>| {
        snap(vec![msg_struct(vec![f("id", ghost_id(package, source))])])
    };
    // A version bump alone is no change, whether the source was read or not.
    assert!(check(&s("ghost 0.3.1", None), &s("ghost 0.4.0", None)).is_empty());
    assert!(check(&s("ghost 0.3.1", Some("a1")), &s("ghost 0.4.0", Some("a1"))).is_empty());
    assert!(check(&s("ghost 0.3.1", Some("a1")), &s("ghost 0.4.0", None)).is_empty());
    // A changed source is one finding, for both directions, without a witness, naming the versions.
    let out = check(&s("ghost 0.3.1", Some("a1")), &s("ghost 0.4.0", Some("b2")));
    assert_eq!(out.len(), 1, "{out:#?}");
    assert_eq!(out[0].rule, RuleId::SerdeImplChanged);
    assert_eq!(out[0].level, Level::Major);
    assert!(out[0].witness.is_none());
    assert!(
        out[0].message.contains("ghost 0.3.1") && out[0].message.contains("ghost 0.4.0"),
        "{}",
        out[0].message
    );
    // At one version, a changed source (a path dependency edited in place) is the same finding.
    let out = check(&s("ghost 0.3.1", Some("a1")), &s("ghost 0.3.1", Some("b2")));
    assert_eq!(out.len(), 1, "{out:#?}");
}

#[test]
fn an_external_type_behind_another_crates_with_functions_is_compared_by_its_source_too() {
    // tendermint-rpc's `#[serde(with = "tendermint::serializers::hash")] latest_block_hash: Hash`, at
    // two package versions of tendermint whose sources are the same.
    let s = |package: &str, source: Option<&str>| {
        let hash = f("hash", ghost_id(package, source)).with(
            Some("ghost::serializers::hash::serialize"),
            Some("ghost::serializers::hash::deserialize"),
        );
        snap(vec![msg_struct(vec![hash])])
    };
    assert!(
        check(
            &s("ghost 0.39.0", Some("a1")),
            &s("ghost 0.39.1", Some("a1"))
        )
        .is_empty()
    );
    assert!(check(&s("ghost 0.39.0", None), &s("ghost 0.39.1", None)).is_empty());
    let out = check(
        &s("ghost 0.39.0", Some("a1")),
        &s("ghost 0.39.1", Some("b2")),
    );
    assert!(
        out.iter()
            .any(|finding| finding.rule == RuleId::CustomSerdeChanged),
        "{out:#?}"
    );
}

#[test]
fn an_optional_external_type_skipped_when_none_is_no_change_against_itself() {
    // sentry-types' `#[serde(default, skip_serializing_if = "Option::is_none")] pub x: Option<T>` with an
    // opaque `T` at the same version on both sides, in a message that changed elsewhere.
    let s = |(package, source): (&str, &str), more: bool| {
        let id = opt(ghost_id(package, Some(source)));
        let mut fields = vec![f("id", id).dflt().skip_if("Option::is_none")];
        if more {
            fields.push(f("extra", opt(u(32))).dflt());
        }
        snap(vec![msg_struct(fields)])
    };
    let out = check(
        &s(("ghost 0.3.1", "a1"), false),
        &s(("ghost 0.4.0", "a1"), true),
    );
    assert!(
        out.iter()
            .all(|finding| finding.rule != RuleId::SerdeImplChanged),
        "{out:#?}"
    );
    let out = check(
        &s(("ghost 0.3.1", "a1"), false),
        &s(("ghost 0.4.0", "b2"), true),
    );
    assert!(
        out.iter()
            .any(|finding| finding.rule == RuleId::SerdeImplChanged),
        "{out:#?}"
    );
}

/// A type whose `Serialize` is written by hand and read in part (digest `ser`), writing `written`,
/// and whose `Deserialize` reads `read` exactly.
fn hand_written_id(ser: &str, written: Ty, read: Ty) -> TypeDef {
    let mut a = attrs("Id");
    a.hand_written = Some(crate::model::HandWritten {
        ser: Some(ser.to_owned()),
        de: None,
    });
    a.from = Some(crate::model::Proxy {
        ty: read,
        fallible: false,
    });
    def("Id", a, crate::model::Body::Alias { target: written })
}

#[test]
fn a_hand_written_side_kept_is_the_old_release_talking_to_itself() {
    let opaque = || Ty::external("c::Id::<written>");
    let s = |ser: &str, read: Ty| {
        snap(vec![
            msg_struct(vec![f("id", named("Id"))]),
            hand_written_id(ser, opaque(), read),
        ])
    };
    // The serializer changed: one finding where the new release writes; where it reads, the
    // reader is the old one, which read what the old writer wrote.
    let out = check(&s("a1", Ty::String), &s("b2", Ty::String));
    assert_eq!(out.len(), 1, "{out:#?}");
    assert_eq!(
        (out[0].rule, out[0].direction),
        (RuleId::SerdeImplChanged, OLD_READS_NEW)
    );
    // The deserializer changed what it reads and the serializer did not: where the new release
    // reads, what the old one writes is unknown: one opaque finding, none where it writes.
    let out = check(&s("a1", Ty::String), &s("a1", u(64)));
    assert!(out.iter().all(|f| f.direction != OLD_READS_NEW), "{out:#?}");
    assert!(!out.is_empty());
    // A kept side whose shape names another definition is compared through it: that definition
    // may have changed under the same name.
    let inner = |ty: Ty| st("Inner", vec![f("v", ty)]);
    let s = |inner_ty: Ty| {
        snap(vec![
            msg_struct(vec![f("id", named("Id"))]),
            hand_written_id("a1", named("Inner"), named("Inner")),
            inner(inner_ty),
        ])
    };
    let out = check(&s(u(8)), &s(u(64)));
    assert!(
        out.iter().any(|f| f.level == Level::Major
            && f.direction == OLD_READS_NEW
            && f.witness.is_some()),
        "{out:#?}"
    );
}

#[test]
fn functions_named_at_two_fields_that_change_alike_are_two_findings() {
    // tendermint-rpc's `tx_sync` and `tx_async` responses, each with `data` moved from base64 to hex.
    let s = |codec: &str| {
        let data = |line| {
            let mut field = f("data", Ty::String).with(
                Some(&format!("ghost::{codec}::serialize")),
                Some(&format!("ghost::{codec}::deserialize")),
            );
            field.location = crate::compat::tests::build::loc(line);
            field
        };
        let mut s = snap(vec![
            msg_struct(vec![data(10)]),
            st("Other", vec![data(30)]),
        ]);
        s.messages.push(msg("Other", "t.other", crate::Kind::Event));
        s
    };
    // As reports count them: one finding per cause (`findings::by_cause`).
    let out = crate::findings::by_cause(check(&s("base64"), &s("hex")));
    let custom: Vec<_> = out
        .iter()
        .filter(|finding| finding.rule == RuleId::CustomSerdeChanged)
        .map(|finding| (finding.message_type.as_str(), finding.direction))
        .collect();
    // One per field and direction, never one for both fields.
    assert_eq!(custom.len(), 4, "{out:#?}");
    assert!(
        custom.iter().any(|(message, _)| *message == "Other"),
        "{custom:?}"
    );
}
