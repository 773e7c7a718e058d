//! `--format github` against the workflow-command escaping rules of the Actions toolkit: in the message
//! `%`, `\r`, `\n`; in property values also `:` and `,`. Each command must stay on one line and decode back
//! to the original text.
#![cfg(feature = "checker")]

mod report_fixture;

use wirecheck::report::{self, OutputFormat};

/// The toolkit's escapes, undone left to right.
fn unescape(s: &str, property: bool) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let code = &rest[i..i + 3];
        out.push(match code {
            "%25" => '%',
            "%0D" => '\r',
            "%0A" => '\n',
            "%3A" if property => ':',
            "%2C" if property => ',',
            other => panic!("unexpected escape {other} in {s}"),
        });
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

struct Command {
    name: String,
    properties: Vec<(String, String)>,
    message: String,
}

fn parse(line: &str) -> Command {
    let body = line.strip_prefix("::").expect("starts with ::");
    let end = body.find("::").expect("a second ::");
    let (head, message) = (&body[..end], &body[end + 2..]);
    let (name, properties) = head.split_once(' ').unwrap_or((head, ""));
    let properties = properties
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("key=value");
            assert!(!v.contains(':') && !v.contains(','), "unescaped in {p}");
            (k.to_owned(), unescape(v, true))
        })
        .collect();
    assert!(!message.contains('\r'), "raw CR in {line}");
    Command {
        name: name.to_owned(),
        properties,
        message: unescape(message, false),
    }
}

#[test]
fn hostile_text_is_escaped_and_round_trips() {
    let mut r = report_fixture::report();
    let f = &mut r.protocols[0].findings[0];
    f.message = "100% of `user-id` is lost\r\nsecond line, with: colons".into();
    f.location.file = "src/odd,name:1%.rs".into();
    f.field = Some("a,b:c".into());
    r.sources.clear();
    r.notes = vec!["src/x.rs:1:1: 50% seen\nthrough".into()];
    let text = report::render(&r, OutputFormat::Github);
    let lines: Vec<&str> = text.lines().collect();
    let findings: usize = r.protocols.iter().map(|p| p.findings.len()).sum();
    assert_eq!(
        lines.len(),
        findings + r.allow_notes.len() + r.notes.len() + 1,
        "one command per finding, per note, and the summary:\n{text}"
    );
    let commands: Vec<Command> = lines.iter().map(|l| parse(l)).collect();

    let first = &commands[0];
    assert_eq!(first.name, "warning");
    let get = |c: &Command, key: &str| {
        c.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get(first, "file").as_deref(), Some("src/odd,name:1%.rs"));
    assert_eq!(get(first, "line").as_deref(), Some("6"));
    assert_eq!(
        get(first, "title").as_deref(),
        Some("wirecheck field_renamed (major): exec StartRequest.a,b:c")
    );
    assert!(
        first.message.starts_with(
            "100% of `user-id` is lost\r\nsecond line, with: colons\nat src/odd,name:1%.rs:6:9"
        ),
        "{}",
        first.message
    );
    assert!(lines[0].contains("100%25 of `user-id` is lost%0D%0Asecond line, with: colons%0Aat"));
    assert!(lines[0].contains("file=src/odd%2Cname%3A1%25.rs,"));

    let note = &commands[findings + r.allow_notes.len()];
    assert_eq!(note.name, "notice");
    assert_eq!(note.message, "src/x.rs:1:1: 50% seen\nthrough");

    let summary = commands.last().unwrap();
    assert_eq!(get(summary, "title").as_deref(), Some("wirecheck"));
    assert!(
        summary
            .message
            .contains("sched 0.87.0 -> 0.87.1: needs 0.88.0 (2 major, 1 minor) FAIL\n")
    );
}

#[test]
fn severities_and_places() {
    let text = report::render(&report_fixture::report(), OutputFormat::Github);
    let commands: Vec<Command> = text.lines().map(parse).collect();
    let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
    // exec's break is paid for by its version (warning); sched's two count (error); the minor, allowed
    // and known ones are notices; then the unused allow, the three statements of releases skipped, the
    // extraction note and the summary (an error: the check fails).
    assert_eq!(
        names,
        [
            "warning", "error", "error", "notice", "notice", "notice", "warning", "notice",
            "notice", "notice", "notice", "error"
        ]
    );
    // A removed field is annotated on the struct that lost it, in the working tree (a line of the diff);
    // the message names its place in v0.87.0.
    let removed = &commands[1];
    let get = |key: &str| {
        removed
            .properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(
        (get("file"), get("line"), get("col")),
        (Some("src/sched.rs"), Some("8"), Some("12"))
    );
    assert!(removed.message.contains("at v0.87.0:src/sched.rs:12:9"));
    // Without a surviving parent: a file-level annotation, no line.
    let mut r = report_fixture::report();
    r.protocols[3].findings[0].anchor = None;
    let text = report::render(&r, OutputFormat::Github);
    let removed = parse(text.lines().nth(1).unwrap());
    assert!(removed.properties.iter().all(|(k, _)| k != "line"));
    // One in the working tree has the full span.
    let added = &commands[2];
    let keys: Vec<&str> = added.properties.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["file", "line", "col", "endLine", "endColumn", "title"]
    );
    // The wirecheck.toml note points at the entry.
    assert_eq!(
        commands[6].properties[..2],
        [
            ("file".to_owned(), "wirecheck.toml".to_owned()),
            ("line".to_owned(), "1".to_owned())
        ]
    );
}

/// Issue 14, item 24: a check that fails gives at least one `::error`, also when only minor findings (or
/// no finding at all) make it fail.
#[test]
fn a_failing_check_always_has_an_error() {
    // sched 0.87.0 declared unchanged, with only its minor finding: it needs 0.87.1.
    let mut r = report_fixture::report();
    r.protocols.retain(|p| p.name == "sched");
    let p = &mut r.protocols[0];
    p.findings.retain(|f| f.rule.as_str() == "field_added");
    p.new_version = Some(report_fixture::v("0.87.0"));
    p.required_bump = wirecheck::findings::Level::Minor;
    p.required_version = Some(report_fixture::v("0.87.1"));
    p.ok = false;
    r.ok = false;
    let text = report::render(&r, OutputFormat::Github);
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    assert!(
        errors.iter().any(|l| l.contains("field_added")),
        "the minor finding the version does not pay for is an error:\n{text}"
    );
    assert!(
        errors.iter().any(|l| l.contains("title=wirecheck::")),
        "the failing verdict is an error:\n{text}"
    );
    // Every format agrees: the human diagnostic is an error too, and SARIF's level.
    let human = report::render(&r, OutputFormat::Human);
    assert!(human.contains("error[field_added]"), "{human}");
    let sarif: serde_json::Value =
        serde_json::from_str(&report::render(&r, OutputFormat::Sarif)).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "error");

    // No finding at all: the version went backwards.
    p_backwards(&mut r);
    let text = report::render(&r, OutputFormat::Github);
    assert!(
        text.lines().any(|l| l.starts_with("::error ")),
        "a failing check without findings still errors:\n{text}"
    );

    // A passing check has no error.
    let ok = report::render(&passing(), OutputFormat::Github);
    assert!(!ok.lines().any(|l| l.starts_with("::error ")), "{ok}");
}

fn p_backwards(r: &mut wirecheck::check::Report) {
    let p = &mut r.protocols[0];
    p.findings.clear();
    p.old_version = Some(report_fixture::v("0.2.1"));
    p.new_version = Some(report_fixture::v("0.2.0"));
    p.required_bump = wirecheck::findings::Level::None;
    p.required_version = Some(report_fixture::v("0.2.1"));
    p.ok = false;
}

fn passing() -> wirecheck::check::Report {
    let mut r = report_fixture::report();
    r.protocols.retain(|p| p.ok);
    r.ok = true;
    r
}
