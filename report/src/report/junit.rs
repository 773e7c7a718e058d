//! `--format junit`: JUnit XML for CI test dashboards.
//!
//! One `<testsuite>` per protocol. Its first test case is the version check (`sched: version 0.87.1
//! meets the required bump`), failing when the declared version is short. Then one test case per finding:
//! failing for the breaking findings that make the check fail, skipped (with the reason) for allowed and
//! known ones, passing otherwise, with the details in `<system-out>`. `wirecheck.toml` notes form a
//! last suite whose cases pass, with the note as their output.

use std::fmt::Write as _;

use super::{
    Severity, finding_details, is_baseline_statement, subject, summary, working_tree_location,
};
use crate::findings::Finding;
use crate::outcome::{ProtocolReport, Report};

/// Escapes text for XML 1.0 content and attribute values; characters XML cannot hold become U+FFFD.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for element content, keeping line breaks readable.
fn xml_text(s: &str) -> String {
    xml(s).replace("&#10;", "\n")
}

/// Test, failure and skip counts of a suite.
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    skipped: usize,
}

pub(super) fn render(report: &Report) -> String {
    let mut suites = String::new();
    let mut total = Counts::default();
    for p in &report.protocols {
        let (suite, counts) = protocol_suite(report, p);
        suites.push_str(&suite);
        total.tests += counts.tests;
        total.failures += counts.failures;
        total.skipped += counts.skipped;
    }
    if let Some((suite, tests)) = notes_suite(report) {
        suites.push_str(&suite);
        total.tests += tests;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"wirecheck against {}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{suites}</testsuites>\n",
        xml(report.baseline.name()),
        total.tests,
        total.failures,
        total.skipped
    )
}

/// The suite of one protocol: its version case, then a case per finding.
fn protocol_suite(report: &Report, p: &ProtocolReport) -> (String, Counts) {
    let mut cases = String::new();
    let mut counts = Counts {
        tests: 1,
        ..Counts::default()
    };
    let version_case = match &p.new_version {
        Some(v) => format!("version {v} meets the required bump"),
        None => "removal breaks nothing".to_owned(),
    };
    let _ = writeln!(
        cases,
        "    <testcase classname=\"{}\" name=\"{}\">",
        xml(&p.name),
        xml(&version_case)
    );
    if !p.ok {
        counts.failures += 1;
        let _ = writeln!(
            cases,
            "      <failure type=\"version\" message=\"{}\"/>",
            xml(&summary(p))
        );
    }
    let _ = writeln!(
        cases,
        "      <system-out>{}</system-out>\n    </testcase>",
        xml_text(&summary(p))
    );
    for f in &p.findings {
        counts.tests += 1;
        finding_case(report, p, f, &mut cases, &mut counts);
    }
    let suite = format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{cases}  </testsuite>\n",
        xml(&p.name),
        counts.tests,
        counts.failures,
        counts.skipped
    );
    (suite, counts)
}

/// The test case of one finding: failing when it makes the check fail, skipped when allowed or known.
fn finding_case(
    report: &Report,
    p: &ProtocolReport,
    f: &Finding,
    cases: &mut String,
    counts: &mut Counts,
) {
    let direction = f.direction.map_or(String::new(), |d| format!(" ({d})"));
    let name = format!("{} {}{direction}", f.rule, subject(f));
    let classname = if f.topic.is_empty() {
        p.name.clone()
    } else {
        format!("{}.{}", p.name, f.topic)
    };
    let details = finding_details(p, f, "its parent is at", false);
    // Something removed is filed on its surviving parent in the working tree.
    let location = working_tree_location(report, f).map_or(&f.location, |(l, _)| l);
    let _ = writeln!(
        cases,
        "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\">",
        xml(&classname),
        xml(&name),
        xml(&location.file),
        location.line
    );
    match Severity::of(p, f) {
        Severity::Error => {
            counts.failures += 1;
            let _ = writeln!(
                cases,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                xml(f.rule.as_str()),
                xml(&f.message),
                xml_text(&details)
            );
        }
        Severity::Allowed | Severity::Known => {
            counts.skipped += 1;
            let why = match (&f.allow_reason, f.known) {
                (Some(reason), _) => format!("allowed: {reason}"),
                (None, true) => format!(
                    "known history: the baseline {} already had this break",
                    report.baseline.rev
                ),
                (None, false) => "allowed".to_owned(),
            };
            let _ = writeln!(cases, "      <skipped message=\"{}\"/>", xml(&why));
            let _ = writeln!(
                cases,
                "      <system-out>{}</system-out>",
                xml_text(&details)
            );
        }
        Severity::Warning | Severity::Note => {
            let _ = writeln!(
                cases,
                "      <system-out>{}</system-out>",
                xml_text(&details)
            );
        }
    }
    cases.push_str("    </testcase>\n");
}

/// The last suite: `wirecheck.toml` notes and the report's notes, each a passing case; with its number
/// of cases.
fn notes_suite(report: &Report) -> Option<(String, usize)> {
    if report.allow_notes.is_empty() && report.notes.is_empty() {
        return None;
    }
    let mut cases = String::new();
    for note in &report.allow_notes {
        let _ = writeln!(
            cases,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\">\n      <system-out>{}</system-out>\n    </testcase>",
            xml(crate::config::FILE_NAME),
            xml(&format!("allow {}", note.entry.describe())),
            xml(&note.entry.location.file),
            note.entry.location.line,
            xml_text(&note.message)
        );
    }
    for (i, note) in report.notes.iter().enumerate() {
        let class = if is_baseline_statement(report, note) {
            "baseline"
        } else {
            "extraction"
        };
        let _ = writeln!(
            cases,
            "    <testcase classname=\"{class}\" name=\"note {}\">\n      <system-out>{}</system-out>\n    </testcase>",
            i + 1,
            xml_text(note)
        );
    }
    let tests = report.allow_notes.len() + report.notes.len();
    let suite = format!(
        "  <testsuite name=\"notes\" tests=\"{tests}\" failures=\"0\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>\n"
    );
    Some((suite, tests))
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_escaping() {
        assert_eq!(
            super::xml("<a href=\"x\">&'\u{1}\n"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\u{FFFD}&#10;"
        );
    }
}
