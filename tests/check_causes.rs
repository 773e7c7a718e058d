#![cfg(feature = "checker")]
//! One finding per cause: a change to a type many messages reach is one finding at its definition,
//! listing the messages and places that reach it, in every report format; a change in one message's
//! own field stays its own.

use wirecheck::check::{Baseline, compare_snapshots};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::model::Snapshot;
use wirecheck::report::{OutputFormat, render};
use wirecheck::rules::RuleId;

const HEAD: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n";

/// Three messages that reach `Spec` (one of them twice), and one that does not.
fn source(spec: &str, own: &str) -> String {
    format!(
        "{HEAD}#[derive(Serialize, Deserialize)]\npub struct Spec {{ {spec} }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"a\", kind = \"event\")]\npub struct A {{ pub spec: Spec }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"b\", kind = \"event\")]\npub struct B {{ pub first: Spec, pub second: Vec<Spec> }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"c\", kind = \"event\")]\npub struct C {{ pub spec: Option<Spec> }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"d\", kind = \"event\")]\npub struct D {{ {own} }}\n"
    )
}

fn snap(text: &str) -> Snapshot {
    snapshot_from_sources("demo", &[("src/lib.rs", text)]).expect("extracts")
}

#[test]
fn a_change_to_a_shared_type_is_one_finding_reached_by_every_message() {
    let old = snap(&source("pub cores: u32", "pub id: u64"));
    let new = snap(&source("pub cores: u64", "pub id: u32"));
    let baseline = Baseline {
        rev: "v1.0.0".into(),
        commit: "0".repeat(40),
        ..Baseline::default()
    };
    let report = compare_snapshots(&baseline, &old, &[], &new);
    let findings = &report.protocols[0].findings;
    // Spec.cores widened (old readers reject the large values), D.id narrowed: two causes, not five.
    let integer = |f: &&wirecheck::findings::Finding| {
        matches!(f.rule, RuleId::IntegerWidened | RuleId::IntegerNarrowed)
    };
    let narrowed: Vec<_> = findings.iter().filter(integer).collect();
    assert_eq!(narrowed.len(), 2, "{findings:#?}");
    let spec = narrowed
        .iter()
        .find(|f| f.rule == RuleId::IntegerWidened)
        .expect("the shared type's finding");
    let reached: Vec<String> = spec
        .reached_by
        .iter()
        .map(|r| format!("{}.{}", r.message_type, r.field.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        reached,
        [
            "A.spec.cores",
            "B.first.cores",
            "B.second.cores",
            "C.spec.cores"
        ],
        "{spec:#?}"
    );
    let own = narrowed
        .iter()
        .find(|f| f.rule == RuleId::IntegerNarrowed)
        .expect("D");
    assert_eq!(own.message_type, "D");
    assert!(own.reached_by.is_empty());
    // The reports say it once, with who reaches it.
    let json: serde_json::Value =
        serde_json::from_str(&render(&report, OutputFormat::Json)).expect("json");
    let reported: Vec<&serde_json::Value> = json["protocols"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "integer_widened")
        .collect();
    assert_eq!(reported.len(), 1);
    // `reached_by` in JSON: every message and place, as the finding holds them.
    let reached_in_json: Vec<String> = reported[0]["reached_by"]
        .as_array()
        .expect("reached_by")
        .iter()
        .map(|r| {
            format!(
                "{}.{}",
                r["message_type"].as_str().unwrap(),
                r["field"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(reached_in_json, reached);
    let human = render(&report, OutputFormat::Human);
    assert!(
        human.contains(
            "reached by 3 messages, e.g. `A.spec.cores`, `B.first.cores`, `B.second.cores`, ..."
        ),
        "{human}"
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&render(&report, OutputFormat::Sarif)).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(
        results
            .iter()
            .filter(|r| r["ruleId"] == "integer_widened")
            .count(),
        1
    );
}
