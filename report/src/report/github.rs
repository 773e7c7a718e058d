//! `--format github`: GitHub Actions workflow commands, one line per finding on stdout, then the summary:
//! a notice, or an error when the check fails (so a failing check always has an `::error`). GitHub turns them into annotations on the pull request's diff.
//!
//! `::error file=src/sched.rs,line=42,col=5,endLine=42,endColumn=13,title=...::message`
//!
//! Escaping follows the Actions toolkit (`@actions/core` `command.ts`): in the message `%`, `\r`, `\n`
//! become `%25`, `%0D`, `%0A`; in property values also `:` and `,` become `%3A` and `%2C`.
//!
//! Findings about something removed point into an older release's file, which the pull request's diff
//! does not show at that line: they are annotated on their surviving parent in the working tree (the
//! struct that lost the field), and the message names the old place, `v0.87.0:src/sched.rs:42:5`. When
//! nothing of the parent is left, they carry `file` only (a file-level annotation).

use std::fmt::Write as _;

use super::{Severity, finding_details, overall, subject, summary, working_tree_location};
use crate::config::AllowNoteKind;
use crate::findings::Finding;
use crate::outcome::{ProtocolReport, Report};

/// Escapes a command's message (`escapeData`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`escapeProperty`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(out: &mut String, name: &str, properties: &[(&str, String)], message: &str) {
    out.push_str("::");
    out.push_str(name);
    for (i, (key, value)) in properties.iter().enumerate() {
        out.push(if i == 0 { ' ' } else { ',' });
        let _ = write!(out, "{key}={}", escape_property(value));
    }
    out.push_str("::");
    out.push_str(&escape_data(message));
    out.push('\n');
}

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    for p in &report.protocols {
        for f in &p.findings {
            finding_command(report, p, f, &mut out);
        }
    }
    for note in &report.allow_notes {
        let title = match note.kind {
            AllowNoteKind::Unused => "wirecheck: unused allow",
            AllowNoteKind::Expired => "wirecheck: expired allow",
        };
        command(
            &mut out,
            "warning",
            &[
                ("file", note.entry.location.file.clone()),
                ("line", note.entry.location.line.to_string()),
                ("title", title.to_owned()),
            ],
            &note.message,
        );
    }
    for note in &report.notes {
        let title = if super::is_baseline_statement(report, note) {
            "wirecheck: baseline"
        } else {
            "wirecheck: not seen through"
        };
        command(&mut out, "notice", &[("title", title.to_owned())], note);
    }
    let mut text: Vec<String> = report.protocols.iter().map(summary).collect();
    text.push(overall(report));
    // A failing check always annotates an error, even when no finding is one (a version that went
    // backwards, a finding the matrix of severities files as a note).
    command(
        &mut out,
        if report.ok { "notice" } else { "error" },
        &[("title", "wirecheck".to_owned())],
        &text.join("\n"),
    );
    out
}

/// The annotation of one finding: its level by severity, on its place in the working tree.
fn finding_command(report: &Report, p: &ProtocolReport, f: &Finding, out: &mut String) {
    let severity = Severity::of(p, f);
    let name = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note | Severity::Allowed | Severity::Known => "notice",
    };
    let mut properties = location_properties(report, f);
    let qualifier = match severity {
        Severity::Allowed => ", allowed",
        Severity::Known => ", known",
        _ => "",
    };
    properties.push((
        "title",
        format!(
            "wirecheck {} ({}{qualifier}): {} {}",
            f.rule,
            f.level,
            p.name,
            subject(f)
        ),
    ));
    let message = finding_details(p, f, "annotated on what is left of its parent, at", true);
    command(out, name, &properties, &message);
}

/// `file`, `line`, `col` (and the end, when known) of a finding in the working tree; `file` alone for
/// something removed whose parent is gone too.
fn location_properties(report: &Report, f: &Finding) -> Vec<(&'static str, String)> {
    let mut properties = Vec::new();
    match working_tree_location(report, f) {
        Some((location, region)) if !location.file.is_empty() => {
            properties.push(("file", location.file.clone()));
            properties.push(("line", location.line.to_string()));
            properties.push(("col", location.column.to_string()));
            if let Some(r) = region {
                properties.push(("endLine", r.end_line.to_string()));
                properties.push(("endColumn", r.end_column.to_string()));
            }
        }
        _ if !f.location.file.is_empty() => {
            properties.push(("file", f.location.file.clone()));
        }
        _ => {}
    }
    properties
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_toolkit() {
        assert_eq!(escape_data("100% a\r\nb: c, d"), "100%25 a%0D%0Ab: c, d");
        assert_eq!(
            escape_property("100% a\r\nb: c, d"),
            "100%25 a%0D%0Ab%3A c%2C d"
        );
        // `%` first, so the escapes themselves are not escaped again.
        assert_eq!(escape_data("%0A"), "%250A");
        let mut out = String::new();
        command(
            &mut out,
            "error",
            &[("file", "a,b:c.rs".into()), ("title", "t".into())],
            "m\n",
        );
        assert_eq!(out, "::error file=a%2Cb%3Ac.rs,title=t::m%0A\n");
    }
}
