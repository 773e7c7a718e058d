//! Wire paths: where a finding is as peers in other languages see the payload. Keys after renames, `[]`
//! for elements, `[0]` for tuple elements, `{}` for map values, a variant's tag as its representation
//! writes it, nothing for a flattened field; none in positional formats.

use super::build::*;
use super::harness::*;
use crate::Format;
use crate::findings::Finding;
use crate::model::{EnumRepr, Style, Ty, TypeDef};
use crate::rules::RuleId;

/// The `(field, wire_path)` of every finding of `rule`.
fn places(findings: &[Finding], rule: RuleId) -> Vec<(Option<String>, Option<String>)> {
    let mut out: Vec<_> = findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| (f.field.clone(), f.wire_path.clone()))
        .collect();
    out.dedup();
    out
}

fn some(field: &str, wire: &str) -> Vec<(Option<String>, Option<String>)> {
    vec![(Some(field.into()), Some(wire.into()))]
}

/// `Msg { <outer>: <wrap>(Inner) }` with `Inner { active_parameter: <ty> }` on the wire as
/// `activeParameter`, the old release writing `u32` and the new one `String`.
fn inner_type_changed(outer: &str, wrap: fn(Ty) -> Ty, extra: Vec<TypeDef>) -> Vec<Finding> {
    let side = |ty: Ty| {
        let mut types = vec![
            msg_struct(vec![f(outer, wrap(named("Inner")))]),
            st(
                "Inner",
                vec![f("active_parameter", ty).wire("activeParameter")],
            ),
        ];
        types.extend(extra.clone());
        snap(types)
    };
    check(&side(u(32)), &side(Ty::String))
}

#[test]
fn elements_of_a_sequence_and_values_of_a_map() {
    let found = inner_type_changed("signatures", vec_of, Vec::new());
    assert_eq!(
        places(&found, RuleId::FieldTypeChanged),
        some(
            "signatures.active_parameter",
            "signatures[].activeParameter"
        )
    );
    let found = inner_type_changed("env", |t| map_of(Ty::String, t), Vec::new());
    assert_eq!(
        places(&found, RuleId::FieldTypeChanged),
        some("env.active_parameter", "env{}.activeParameter")
    );
    let found = inner_type_changed(
        "pair",
        |t| Ty::Tuple {
            elems: vec![u(8), t],
        },
        Vec::new(),
    );
    assert_eq!(
        places(&found, RuleId::FieldTypeChanged),
        some("pair.1.active_parameter", "pair[1].activeParameter")
    );
}

#[test]
fn a_flattened_field_adds_no_key() {
    let side = |ty: Ty| {
        snap(vec![
            msg_struct(vec![f("meta", named("Meta")).flat()]),
            st("Meta", vec![f("trace_id", ty).wire("traceId")]),
        ])
    };
    let found = check(&side(u(32)), &side(Ty::String));
    assert_eq!(
        places(&found, RuleId::FieldTypeChanged),
        some("meta.trace_id", "traceId")
    );
}

#[test]
fn variants_by_representation() {
    let cases = [
        (EnumRepr::External, "command.run.args"),
        (
            EnumRepr::Internal { tag: "type".into() },
            "command(type=run).args",
        ),
        (
            EnumRepr::Adjacent {
                tag: "t".into(),
                content: "c".into(),
            },
            "command(t=run).c.args",
        ),
    ];
    for (repr, wire) in cases {
        let side = |ty: Ty| {
            let mut run = var("Run", Style::Named, vec![f("args", ty)]);
            run.ser_name = "run".into();
            run.de_names = vec!["run".into()];
            snap(vec![
                msg_struct(vec![f("command", named("Command"))]),
                en("Command", repr.clone(), vec![run]),
            ])
        };
        let found = check(&side(u(32)), &side(Ty::String));
        assert_eq!(
            places(&found, RuleId::FieldTypeChanged),
            some("command.Run.args", wire),
            "{repr:?}"
        );
    }
}

#[test]
fn a_renamed_field_is_named_by_its_new_key() {
    let old = snap(vec![msg_struct(vec![f("user_id", u(32))])]);
    let new = snap(vec![msg_struct(vec![f("user_id", u(32)).wire("userId")])]);
    assert_eq!(
        places(&check(&old, &new), RuleId::FieldRenamed),
        some("user_id", "userId")
    );
}

#[test]
fn positional_formats_have_no_wire_path() {
    let side = |ty: Ty| snap_fmt(Format::Bincode, vec![msg_struct(vec![f("id", ty)])]);
    let found = check(&side(u(32)), &side(u(64)));
    assert!(!found.is_empty());
    assert!(found.iter().all(|f| f.wire_path.is_none()), "{found:#?}");
}
