//! `--format github`: GitHub Actions workflow commands, one line per finding on stdout, then a summary
//! notice. GitHub turns them into annotations on the pull request's diff.
//!
//! `::error file=src/sched.rs,line=42,col=5,endLine=42,endColumn=13,title=...::message`
//!
//! Escaping follows the Actions toolkit (`@actions/core` `command.ts`): in the message `%`, `\r`, `\n`
//! become `%25`, `%0D`, `%0A`; in property values also `:` and `,` become `%3A` and `%2C`.
//!
//! Findings about something removed point into an older release's file, which the pull request's diff
//! does not show at that line: they carry `file` only (a file-level annotation), and the message names
//! `v0.87.0:src/sched.rs:42:5`.

use std::fmt::Write as _;

use super::{Severity, direction_words, overall, place, region, subject, summary, witness_words};
use crate::config::AllowNoteKind;
use crate::findings::Side;
use crate::outcome::Report;

/// Escapes a command's message (`escapeData`).
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`escapeProperty`).
pub(crate) fn escape_property(s: &str) -> String {
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
            let severity = Severity::of(p, f);
            let name = match severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note | Severity::Allowed | Severity::Known => "notice",
            };
            let mut properties = Vec::new();
            if !f.location.file.is_empty() {
                properties.push(("file", f.location.file.clone()));
            }
            if f.side == Side::New && !f.location.file.is_empty() {
                properties.push(("line", f.location.line.to_string()));
                properties.push(("col", f.location.column.to_string()));
                if let Some(r) = region(report, f) {
                    properties.push(("endLine", r.end_line.to_string()));
                    properties.push(("endColumn", r.end_column.to_string()));
                }
            }
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
            let mut message = format!("{}\nat {}", f.message, place(f));
            if let Some(d) = f.direction {
                let _ = write!(message, "\n{d}: {}", direction_words(f, d));
            }
            if let Some((who, json)) = witness_words(f) {
                let _ = write!(message, "\nwitness ({who}): {json}");
            }
            if let Some(reason) = &f.allow_reason {
                let _ = write!(message, "\nallowed: {reason}");
            }
            let _ = write!(message, "\nhelp: {}", f.rule.rule().help);
            command(&mut out, name, &properties, &message);
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
        command(
            &mut out,
            "notice",
            &[("title", "wirecheck: not seen through".to_owned())],
            note,
        );
    }
    let mut text: Vec<String> = report.protocols.iter().map(summary).collect();
    text.push(overall(report));
    command(
        &mut out,
        "notice",
        &[("title", "wirecheck".to_owned())],
        &text.join("\n"),
    );
    out
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
