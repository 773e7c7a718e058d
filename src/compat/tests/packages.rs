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

#[test]
fn an_external_type_is_compared_by_path_and_version() {
    let s = |package: &str| {
        snap(vec![msg_struct(vec![f(
            "id",
            Ty::External {
                path: "ghost::Id".to_owned(),
                package: Some(package.to_owned()),
            },
        )])])
    };
    assert!(check(&s("ghost 0.3.1"), &s("ghost 0.3.1")).is_empty());
    let out = check(&s("ghost 0.3.1"), &s("ghost 0.4.0"));
    // Opaque: the checker cannot tell which direction the new version breaks, so it says both.
    let changed: Vec<_> = (out.iter())
        .filter(|finding| finding.rule == RuleId::ExternalTypeChanged)
        .collect();
    assert_eq!(changed.len(), 2, "{out:#?}");
    for finding in changed {
        assert!(
            finding.message.contains("ghost 0.3.1") && finding.message.contains("ghost 0.4.0"),
            "{}",
            finding.message
        );
    }
}

#[test]
fn an_optional_external_type_skipped_when_none_is_no_change_against_itself() {
    // sentry-types' `#[serde(default, skip_serializing_if = "Option::is_none")] pub x: Option<T>` with an
    // opaque `T` at the same version on both sides, in a message that changed elsewhere.
    let id = |package: &str| {
        opt(Ty::External {
            path: "ghost::Id".to_owned(),
            package: Some(package.to_owned()),
        })
    };
    let s = |package: &str, more: bool| {
        let mut fields = vec![f("id", id(package)).dflt().skip_if("Option::is_none")];
        if more {
            fields.push(f("extra", opt(u(32))).dflt());
        }
        snap(vec![msg_struct(fields)])
    };
    let out = check(&s("ghost 0.3.1", false), &s("ghost 0.3.1", true));
    assert!(
        out.iter()
            .all(|finding| finding.rule != RuleId::ExternalTypeChanged),
        "{out:#?}"
    );
    let out = check(&s("ghost 0.3.1", false), &s("ghost 0.4.0", true));
    assert!(
        out.iter()
            .any(|finding| finding.rule == RuleId::ExternalTypeChanged),
        "{out:#?}"
    );
}
