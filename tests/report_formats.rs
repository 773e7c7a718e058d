//! Every output format, snapshot-tested on the same report (`tests/report_fixture`; SARIF in
//! `tests/report_sarif.rs`), and the matrix formats on the same matrix.
#![cfg(feature = "checker")]

mod report_fixture;

use wirecheck::report::{self, MatrixFormat, OutputFormat, RenderOptions};

fn render(format: OutputFormat) -> String {
    let text = report::render(&report_fixture::report(), format);
    assert_eq!(
        text,
        report::render(&report_fixture::report(), format),
        "deterministic"
    );
    text
}

#[test]
fn human() {
    insta::assert_snapshot!(render(OutputFormat::Human));
}

#[test]
fn human_colours_only_when_asked() {
    let plain = render(OutputFormat::Human);
    assert!(!plain.contains('\x1b'), "no escape codes without colour");
    let styled = report::render_with(
        &report_fixture::report(),
        OutputFormat::Human,
        &RenderOptions { color: true },
    );
    assert!(styled.contains("\x1b["), "colours when asked");
}

#[test]
fn human_without_sources_falls_back_to_paths() {
    let mut r = report_fixture::report();
    r.sources.clear();
    let text = report::render(&r, OutputFormat::Human);
    assert!(text.contains("--> v0.87.0:src/sched.rs:12:9"), "{text}");
    assert!(
        !text.contains("pub t_submit"),
        "no snippet without the text"
    );
}

#[test]
fn json() {
    let text = render(OutputFormat::Json);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        value.get("sources").is_none(),
        "the sources stay out of JSON"
    );
    assert_eq!(value["allow_notes"][0]["kind"], "unused");
    insta::assert_snapshot!(text);
}

#[test]
fn github() {
    insta::assert_snapshot!(render(OutputFormat::Github));
}

#[test]
fn junit() {
    insta::assert_snapshot!(render(OutputFormat::Junit));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render(OutputFormat::Markdown));
}

#[test]
fn matrix_markdown() {
    insta::assert_snapshot!(report::render_matrix(
        &report_fixture::matrix(),
        MatrixFormat::Markdown
    ));
}

#[test]
fn matrix_json() {
    insta::assert_snapshot!(report::render_matrix(
        &report_fixture::matrix(),
        MatrixFormat::Json
    ));
}

#[test]
fn matrix_html() {
    let html = report::render_matrix(&report_fixture::matrix(), MatrixFormat::Html);
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("<script"),
        "self-contained: no network, no script"
    );
    insta::assert_snapshot!(html);
}

/// Issue 14, item 15: a unit struct's witness is `null`, so "no witness" must be told apart by the key's
/// absence, in `check --format json` and in the matrix's JSON alike.
#[test]
fn json_leaves_out_a_missing_witness_and_keeps_a_null_one() {
    let mut r = report_fixture::report();
    let sched = r.protocols.iter_mut().find(|p| p.name == "sched").unwrap();
    sched.findings[1].witness = Some(serde_json::Value::Null);
    let value: serde_json::Value =
        serde_json::from_str(&report::render(&r, OutputFormat::Json)).unwrap();
    let findings = value["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "sched")
        .unwrap()["findings"]
        .as_array()
        .unwrap()
        .clone();
    let by_rule = |rule: &str| findings.iter().find(|f| f["rule"] == rule).unwrap().clone();
    let minor = by_rule("field_added");
    assert!(
        minor.get("witness").is_none(),
        "no witness: no key, {minor}"
    );
    let unit = by_rule("required_field_added");
    assert_eq!(
        unit.get("witness"),
        Some(&serde_json::Value::Null),
        "a null payload is a witness: {unit}"
    );

    let mut matrix = report_fixture::matrix();
    let pair = &mut matrix.protocols[2].pairs[0];
    pair.breaking[0].witness = None;
    pair.breaking[1].witness = Some(serde_json::Value::Null);
    let value: serde_json::Value =
        serde_json::from_str(&report::render_matrix(&matrix, MatrixFormat::Json)).unwrap();
    let breaking = &value["protocols"][2]["pairs"][0]["breaking"];
    assert!(breaking[0].get("witness").is_none(), "{}", breaking[0]);
    assert_eq!(breaking[1].get("witness"), Some(&serde_json::Value::Null));
    let back: wirecheck::findings::Finding = serde_json::from_value(breaking[1].clone()).unwrap();
    assert_eq!(
        back.witness,
        Some(serde_json::Value::Null),
        "read back as a null witness"
    );
    let back: wirecheck::findings::Finding = serde_json::from_value(breaking[0].clone()).unwrap();
    assert_eq!(back.witness, None);
}

/// Issue 14, item 14: a declared version below the baseline's fails, and every format says why (never
/// "no bump needed").
#[test]
fn a_version_that_went_backwards_is_named_in_every_format() {
    let mut r = report_fixture::report();
    r.protocols.retain(|p| p.name == "job-eventlog");
    let p = &mut r.protocols[0];
    p.old_version = Some(report_fixture::v("0.2.1"));
    p.new_version = Some(report_fixture::v("0.2.0"));
    // What the policy gives: nothing changed, so the baseline's version is the least to declare.
    p.required_version = Some(report_fixture::v("0.2.1"));
    p.ok = false;
    r.ok = false;
    for format in [
        OutputFormat::Human,
        OutputFormat::Json,
        OutputFormat::Github,
        OutputFormat::Sarif,
        OutputFormat::Junit,
        OutputFormat::Markdown,
    ] {
        let text = report::render(&r, format);
        assert!(
            text.contains("went backwards") || text.contains("\"version_went_backwards\": true"),
            "{format:?} names the step back:\n{text}"
        );
        assert!(
            !text.contains("no bump needed"),
            "{format:?} does not call it fine:\n{text}"
        );
    }
    let value: serde_json::Value =
        serde_json::from_str(&report::render(&r, OutputFormat::Json)).unwrap();
    assert_eq!(value["protocols"][0]["version_went_backwards"], true);
    let line = wirecheck::report::summary(&r.protocols[0]);
    assert_eq!(
        line,
        "job-eventlog 0.2.1 -> 0.2.0: the version went backwards, declare 0.2.1 or later (0 major, 0 minor) FAIL"
    );
}

/// Issue 14, item 13: for `0.y.z` a minor-level change needs the patch digit, so no help names a digit;
/// where the protocol's verdict is known, the help names the version to declare.
#[test]
fn help_names_the_version_to_declare_not_a_digit() {
    for id in wirecheck::rules::RuleId::ALL {
        let rule = id.rule();
        for text in [rule.help, rule.explanation] {
            for digit in [
                "minor version",
                "major version",
                "patch version",
                "minor bump",
                "major bump",
            ] {
                assert!(
                    !text.contains(digit),
                    "{}: `{digit}` is a different digit for 0.y.z: {text}",
                    rule.id
                );
            }
        }
    }
    // A minor change to `sched` 0.1.0, declared unchanged: it needs 0.1.1.
    let mut r = report_fixture::report();
    r.protocols.retain(|p| p.name == "sched");
    let p = &mut r.protocols[0];
    p.findings.retain(|f| f.rule.as_str() == "field_added");
    p.old_version = Some(report_fixture::v("0.1.0"));
    p.new_version = Some(report_fixture::v("0.1.0"));
    p.required_bump = wirecheck::findings::Level::Minor;
    p.required_version = Some(report_fixture::v("0.1.1"));
    p.ok = false;
    for format in [
        OutputFormat::Human,
        OutputFormat::Github,
        OutputFormat::Junit,
        OutputFormat::Sarif,
        OutputFormat::Markdown,
    ] {
        let text = report::render(&r, format);
        assert!(
            text.contains("declare 0.1.1 or later"),
            "{format:?} names the version to declare:\n{text}"
        );
    }
}

/// Issue 14, item 24: the surviving parent of a removed thing, in the working tree: the nested struct that
/// lost a field, the enum that lost a variant, the variant that lost a field, the protocol that lost a
/// message.
#[test]
fn removed_things_are_anchored_on_their_surviving_parent() {
    use wirecheck::compat::{Scope, compare_protocol};
    use wirecheck::extract::snapshot_from_sources;
    const HEAD: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n\n#[derive(Protocol)]\n#[wire(name = \"sched\", version = \"0.1.0\")]\npub struct Sched;\n\n";
    let old = format!(
        "{HEAD}#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"a\", kind = \"request\")]\npub struct A {{\n    pub job: Job,\n    pub mode: Mode,\n}}\n\n#[derive(Serialize, Deserialize)]\npub struct Job {{\n    pub id: u64,\n    pub t_submit: f64,\n}}\n\n#[derive(Serialize, Deserialize)]\npub enum Mode {{\n    Single,\n    Many {{ n: u32, limit: u32 }},\n}}\n\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"gone\", kind = \"event\")]\npub struct Gone {{\n    pub id: u64,\n}}\n"
    );
    let new = format!(
        "{HEAD}\n\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"a\", kind = \"request\")]\npub struct A {{\n    pub job: Job,\n    pub mode: Mode,\n}}\n\n#[derive(Serialize, Deserialize)]\npub struct Job {{\n    pub id: u64,\n}}\n\n#[derive(Serialize, Deserialize)]\npub enum Mode {{\n    Many {{ n: u32 }},\n}}\n"
    );
    let old = snapshot_from_sources("fixture", &[("src/lib.rs", old.as_str())]).unwrap();
    let new_text = new;
    let new = snapshot_from_sources("fixture", &[("src/lib.rs", new_text.as_str())]).unwrap();
    let line_of = |needle: &str| {
        new_text
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}")) as u32
            + 1
    };
    let findings = compare_protocol(&old, &new, "sched", "v0.1.0", Scope::Full);
    let anchor = |field: Option<&str>, message: &str| {
        let f = findings
            .iter()
            .find(|f| f.field.as_deref() == field && f.message_type == message)
            .unwrap_or_else(|| panic!("{field:?} of {message} in {findings:#?}"));
        assert_eq!(f.side, wirecheck::findings::Side::Old, "{f:#?}");
        let a = f.anchor_in(&old, &new).expect("an anchor");
        (a.file, a.line)
    };
    let at = |needle: &str| ("src/lib.rs".to_owned(), line_of(needle));
    assert_eq!(anchor(Some("job.t_submit"), "A"), at("pub struct Job"));
    assert_eq!(anchor(Some("mode.Single"), "A"), at("pub enum Mode"));
    assert_eq!(anchor(Some("mode.Many.limit"), "A"), at("Many {"));
    assert_eq!(anchor(None, "Gone"), at("pub struct Sched"));
}
