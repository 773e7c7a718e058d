//! `--format junit`: JUnit XML for CI test dashboards.
//!
//! One `<testsuite>` per protocol. Its first test case is the version check (`sched: version 0.87.1
//! meets the required bump`), failing when the declared version is short. Then one test case per finding:
//! failing for the breaking findings that make the check fail, skipped (with the reason) for allowed and
//! known ones, passing otherwise, with the details in `<system-out>`. `wirecheck.toml` notes form a
//! last suite whose cases pass, with the note as their output.

use std::fmt::Write as _;

use super::{Severity, direction_words, place, subject, summary, witness_words};
use crate::outcome::Report;

/// Escapes text for XML 1.0 content and attribute values; characters XML cannot hold become U+FFFD.
pub(crate) fn xml(s: &str) -> String {
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

pub(super) fn render(report: &Report) -> String {
    let mut suites = String::new();
    let (mut total_tests, mut total_failures, mut total_skipped) = (0, 0, 0);
    for p in &report.protocols {
        let mut cases = String::new();
        let (mut tests, mut failures, mut skipped) = (1, 0, 0);
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
            failures += 1;
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
            tests += 1;
            let severity = Severity::of(p, f);
            let direction = f.direction.map_or(String::new(), |d| format!(" ({d})"));
            let name = format!("{} {}{direction}", f.rule, subject(f));
            let classname = if f.topic.is_empty() {
                p.name.clone()
            } else {
                format!("{}.{}", p.name, f.topic)
            };
            let mut details = format!("{}\nat {}", f.message, place(f));
            if let Some(anchor) = super::anchor_place(f) {
                let _ = write!(details, " (removed; its parent is at {anchor})");
            }
            if let Some(wire) = super::wire_words(f) {
                let _ = write!(details, "\n{wire}");
            }
            if let Some(d) = f.direction {
                let _ = write!(details, "\n{d}: {}", direction_words(f, d));
            }
            if let Some((who, json)) = witness_words(f) {
                let _ = write!(details, "\nwitness ({who}): {json}");
            }
            let _ = write!(details, "\nhelp: {}", super::help(p, f));
            // Something removed is filed on its surviving parent in the working tree.
            let location = super::working_tree_location(report, f).map_or(&f.location, |(l, _)| l);
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\">",
                xml(&classname),
                xml(&name),
                xml(&location.file),
                location.line
            );
            match severity {
                Severity::Error => {
                    failures += 1;
                    let _ = writeln!(
                        cases,
                        "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                        xml(f.rule.as_str()),
                        xml(&f.message),
                        xml_text(&details)
                    );
                }
                Severity::Allowed | Severity::Known => {
                    skipped += 1;
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
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n{cases}  </testsuite>",
            xml(&p.name)
        );
        total_tests += tests;
        total_failures += failures;
        total_skipped += skipped;
    }
    if !report.allow_notes.is_empty() || !report.notes.is_empty() {
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
            let class = if super::is_baseline_statement(report, note) {
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
        total_tests += tests;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"notes\" tests=\"{tests}\" failures=\"0\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>"
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"wirecheck against {}\" tests=\"{total_tests}\" failures=\"{total_failures}\" errors=\"0\" skipped=\"{total_skipped}\">\n{suites}</testsuites>\n",
        xml(report.baseline.name())
    )
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
