//! `wirecheck.toml` allows applied to a report: matching findings are allowed with the entry's reason and
//! stop counting, verdicts are recomputed, expired and unused entries become notes in every format.
#![cfg(feature = "checker")]

mod report_fixture;

use wirecheck::check::apply_config;
use wirecheck::config::{self, AllowNoteKind};
use wirecheck::findings::Level;
use wirecheck::report::{self, OutputFormat};

const ALLOWS: &str = r#"[[allow]]
rule = "field_removed"
message = "sched.alloc"
field = "t_submit"
reason = "schedulers read t_submit from the jobspec since 0.87"

[[allow]]
rule = "required_field_added"
message = "AllocRequest"
field = "queue"
reason = "every scheduler of 0.86 sends a queue"
until = "0.87.1"

[[allow]]
rule = "field_removed"
message = "JobInfo"
reason = "gone"
"#;

fn report() -> wirecheck::check::Report {
    let mut r = report_fixture::report();
    r.allow_notes.clear();
    r
}

#[test]
fn allowed_expired_and_unused() {
    let config = config::parse(ALLOWS).unwrap();
    let mut r = report();
    apply_config(&mut r, &config);
    let sched = r.protocols.iter().find(|p| p.name == "sched").unwrap();
    let removed = &sched.findings[0];
    assert!(removed.allowed);
    assert_eq!(
        removed.allow_reason.as_deref(),
        Some("wirecheck.toml:1: schedulers read t_submit from the jobspec since 0.87")
    );
    // The second entry expired at 0.87.1, which sched now declares: the finding still counts.
    assert!(!sched.findings[1].allowed);
    assert_eq!(sched.required_bump, Level::Major);
    assert!(!sched.ok && !r.ok);
    // The source allow is kept as it was.
    assert_eq!(
        sched.findings[3].allow_reason.as_deref(),
        Some("no scheduler sends `single` since 0.40")
    );
    let kinds: Vec<(AllowNoteKind, u32)> = r
        .allow_notes
        .iter()
        .map(|n| (n.kind, n.entry.location.line))
        .collect();
    assert_eq!(
        kinds,
        [(AllowNoteKind::Expired, 7), (AllowNoteKind::Unused, 14)]
    );
    assert!(
        r.allow_notes[0]
            .message
            .contains("allowed until 0.87.1 and sched is now 0.87.1")
    );

    // Every format shows both notes.
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
            text.contains("expired allow") && text.contains("unused allow"),
            "{format:?}:\n{text}"
        );
    }
    // SARIF marks the wirecheck.toml allow as an external suppression.
    let sarif: serde_json::Value =
        serde_json::from_str(&report::render(&r, OutputFormat::Sarif)).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "field_removed")
        .unwrap();
    assert_eq!(result["suppressions"][0]["kind"], "external");
}

#[test]
fn allowing_every_break_recomputes_the_verdict() {
    let text = ALLOWS.replace("until = \"0.87.1\"\n", "until = \"0.88.0\"\n");
    let config = config::parse(&text).unwrap();
    let mut r = report();
    apply_config(&mut r, &config);
    let sched = r.protocols.iter().find(|p| p.name == "sched").unwrap();
    assert!(sched.findings[1].allowed, "not expired before 0.88.0");
    // What is left is the minor field_added: 0.87.1 is enough.
    assert_eq!(sched.required_bump, Level::Minor);
    assert_eq!(sched.required_version, Some(report_fixture::v("0.87.1")));
    assert!(sched.ok && r.ok);
    assert_eq!(r.allow_notes.len(), 1, "only the unused entry");
    assert!(
        report::render(&r, OutputFormat::Human)
            .contains("sched 0.87.0 -> 0.87.1: needs 0.87.1 (0 major, 1 minor) ok")
    );
}

#[test]
fn no_config_changes_nothing() {
    let mut r = report();
    let before = r.clone();
    apply_config(&mut r, &config::Config::default());
    assert_eq!(r, before);
}
