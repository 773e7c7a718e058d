//! `--format sarif` against the official SARIF 2.1.0 schema (vendored in `tests/data/sarif`, see its
//! README), plus what GitHub code scanning relies on: the catalogue as rules, stable `ruleIndex` and
//! `partialFingerprints`, 1-based regions, suppressions for allowed findings.
#![cfg(feature = "checker")]

mod report_fixture;

use serde_json::Value;
use wirecheck::report::{self, OutputFormat};
use wirecheck::rules::RULES;

fn schema() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sarif/sarif-schema-2.1.0.json"
    ))
    .expect("the vendored schema");
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    // The schema's `language` patterns end in an unescaped `]`: a literal in ECMA-262 regexes (what
    // JSON Schema specifies), a syntax error for Rust's `regex`. Escape it; the meaning is unchanged.
    assert_eq!(escape_language_patterns(&mut schema), 2);
    schema
}

fn escape_language_patterns(value: &mut Value) -> usize {
    const ECMA: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match value {
        Value::Object(map) => {
            let mut n = 0;
            for (key, v) in map.iter_mut() {
                if key == "pattern" && v == ECMA {
                    *v = r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$".into();
                    n += 1;
                } else {
                    n += escape_language_patterns(v);
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(escape_language_patterns).sum(),
        _ => 0,
    }
}

fn sarif(report: &wirecheck::check::Report) -> Value {
    serde_json::from_str(&report::render(report, OutputFormat::Sarif)).unwrap()
}

fn assert_valid(document: &Value) {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
}

#[test]
fn the_schema_rejects_what_it_should() {
    // The validator really checks: a document without `runs`, a bad level, a 0 line, an unknown key.
    let validator = jsonschema::validator_for(&schema()).unwrap();
    let good = sarif(&report_fixture::report());
    assert!(validator.is_valid(&good));
    let mut no_runs = good.clone();
    no_runs.as_object_mut().unwrap().remove("runs");
    assert!(!validator.is_valid(&no_runs));
    let mut bad_level = good.clone();
    bad_level["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&bad_level));
    let mut zero_line = good.clone();
    zero_line["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!validator.is_valid(&zero_line));
    let mut unknown = good;
    unknown["runs"][0]["results"][0]["severity"] = "high".into();
    assert!(!validator.is_valid(&unknown));
}

#[test]
fn valid_against_the_official_schema() {
    assert_valid(&sarif(&report_fixture::report()));
    // Without source texts (no end of region), and with nothing to report.
    let mut bare = report_fixture::report();
    bare.sources.clear();
    bare.notes.clear();
    bare.allow_notes.clear();
    assert_valid(&sarif(&bare));
    bare.protocols.clear();
    assert_valid(&sarif(&bare));
}

#[test]
fn snapshot_without_the_catalogue() {
    let mut value = sarif(&report_fixture::report());
    let rules = &mut value["runs"][0]["tool"]["driver"]["rules"];
    assert_eq!(rules.as_array().unwrap().len(), RULES.len());
    // Redacted without their number: a new rule appends to the catalogue and changes nothing here.
    *rules = "[every rule of the catalogue, in its order]".into();
    insta::assert_snapshot!(serde_json::to_string_pretty(&value).unwrap());
}

#[test]
fn rules_are_the_catalogue_and_results_point_into_it() {
    let value = sarif(&report_fixture::report());
    let run = &value["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for (rule, entry) in RULES.iter().zip(rules) {
        assert_eq!(entry["id"], rule.id);
        assert_eq!(entry["shortDescription"]["text"], rule.summary);
        assert!(!entry["help"]["text"].as_str().unwrap().is_empty());
    }
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        assert!(region["startColumn"].as_u64().unwrap() >= 1);
    }
    // The removed field is located on the struct that lost it in the working tree (line 8, column 12,
    // `AllocRequest` is 12 characters), its old place in the location's message.
    let removed = &run["results"][1];
    assert_eq!(removed["ruleId"], "field_removed");
    assert_eq!(
        removed["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 8, "startColumn": 12, "endLine": 8, "endColumn": 24})
    );
    assert!(
        removed["locations"][0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("v0.87.0:src/sched.rs:12:9")
    );
    // Without a surviving parent: the old span (line 12, column 9, `t_submit` is 8 characters).
    let mut orphan = report_fixture::report();
    orphan.protocols[3].findings[0].anchor = None;
    let value = sarif(&orphan);
    assert_eq!(
        value["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 12, "startColumn": 9, "endLine": 12, "endColumn": 17})
    );
    assert_eq!(removed["level"], "error");
    let allowed = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "variant_removed")
        .unwrap();
    assert_eq!(allowed["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        allowed["suppressions"][0]["justification"],
        "no scheduler sends `single` since 0.40"
    );
}

#[test]
fn fingerprints_survive_line_moves_and_releases_but_not_other_findings() {
    let fingerprints = |r: &wirecheck::check::Report| -> Vec<String> {
        sarif(r)["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["partialFingerprints"]["wirecheck/v1"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let base = report_fixture::report();
    let before = fingerprints(&base);
    let mut moved = base.clone();
    for f in moved
        .protocols
        .iter_mut()
        .flat_map(|p| p.findings.iter_mut())
    {
        f.location.line += 10;
        f.location.start += 3;
        f.location.end += 3;
        f.against = "v0.87.5".into();
    }
    moved.sources.clear();
    assert_eq!(before, fingerprints(&moved));
    let unique: std::collections::BTreeSet<_> = before.iter().collect();
    assert_eq!(
        unique.len(),
        before.len(),
        "distinct findings, distinct fingerprints"
    );
    assert!(
        before
            .iter()
            .all(|f| f.len() == 16 && f.chars().all(|c| c.is_ascii_hexdigit()))
    );
}
