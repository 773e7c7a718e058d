//! `--format markdown`: a pull-request comment or a release-notes section (GitHub-flavoured Markdown).
//!
//! A verdict table with a row per protocol, then per protocol with findings: its findings table, the
//! witnesses and the usual migrations; then the notes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Severity, anchor_place, help, place, subject, witness_words};
use crate::findings::{Finding, Level};
use crate::outcome::{ProtocolReport, Report};

/// Escapes inline text for a GFM table cell: `|` everywhere, `<`, `>` and `*` outside code spans, line
/// breaks as `<br>`. Backticks are kept, so code spans in messages stay code.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let balanced = s.matches('`').count().is_multiple_of(2);
    let mut in_code = false;
    for c in s.chars() {
        match c {
            '`' if balanced => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '*' if !in_code => out.push_str("\\*"),
            '`' => out.push_str("\\`"),
            c => out.push(c),
        }
    }
    out
}

/// A code span holding `s` whatever backticks it contains.
pub fn code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}").replace('|', "\\|")
}

fn icon(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "❌ error",
        Severity::Warning => "⚠️ major",
        Severity::Note => "ℹ️ minor",
        Severity::Allowed => "🔕 allowed",
        Severity::Known => "📜 known",
    }
}

fn counts(p: &ProtocolReport) -> String {
    let count = |pred: &dyn Fn(&crate::findings::Finding) -> bool| {
        p.findings.iter().filter(|f| pred(f)).count()
    };
    let parts = [
        (count(&|f| f.counts() && f.level == Level::Major), "major"),
        (count(&|f| f.counts() && f.level == Level::Minor), "minor"),
        (count(&|f| f.allowed), "allowed"),
        (count(&|f| f.known && !f.allowed), "known"),
    ];
    let text: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if text.is_empty() {
        "none".to_owned()
    } else {
        text.join(", ")
    }
}

fn heading(p: &ProtocolReport) -> String {
    let mark = if p.ok { "✅" } else { "❌" };
    let change = match (&p.old_version, &p.new_version) {
        (Some(o), Some(n)) => format!("{o} → {n}"),
        (None, Some(n)) => format!("new at {n}"),
        (Some(o), None) => format!("{o} → removed"),
        (None, None) => String::new(),
    };
    let needs = match (&p.required_version, p.ok) {
        (Some(r), false) => format!(": needs {r}"),
        _ => String::new(),
    };
    format!("{mark} {} {change}{needs}", p.name)
}

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    let failed = report.protocols.iter().filter(|p| !p.ok).count();
    let verdict = if failed == 0 {
        format!("✅ {} protocol(s) ok", report.protocols.len())
    } else {
        format!("❌ {failed} of {} protocol(s) FAIL", report.protocols.len())
    };
    let _ = writeln!(
        out,
        "## wirecheck: {verdict} against {}\n",
        code(report.baseline.name())
    );
    summary_table(report, &mut out);
    for p in report.protocols.iter().filter(|p| !p.findings.is_empty()) {
        let _ = writeln!(out, "\n### {}\n", heading(p));
        out.push_str(
            "| | rule | where | direction | against | what changed |\n|---|---|---|---|---|---|\n",
        );
        for f in &p.findings {
            finding_row(p, f, &mut out);
        }
        witnesses(p, &mut out);
        migrations(p, &mut out);
    }
    notes_section(report, &mut out);
    out
}

/// The verdict table: a row per protocol.
fn summary_table(report: &Report, out: &mut String) {
    let _ = writeln!(
        out,
        "| protocol | {} | declared | required | findings | verdict |\n|---|---|---|---|---|---|",
        inline(report.baseline.name())
    );
    for p in &report.protocols {
        let show =
            |v: &Option<semver::Version>| v.as_ref().map_or("—".to_owned(), |v| v.to_string());
        let required = match (&p.required_version, p.required_bump) {
            (Some(r), Level::None) => r.to_string(),
            (Some(r), level) => format!("**{r}** ({level})"),
            (None, _) => "—".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {required} | {} | {} |",
            code(&p.name),
            show(&p.old_version),
            show(&p.new_version),
            counts(p),
            match (p.ok, p.version_went_backwards()) {
                (true, _) => "✅ ok",
                (false, false) => "❌ FAIL",
                (false, true) => "❌ FAIL: the version went backwards",
            }
        );
    }
}

/// A finding's row of its protocol's table.
fn finding_row(p: &ProtocolReport, f: &Finding, out: &mut String) {
    let topic = if f.topic.is_empty() {
        String::new()
    } else {
        format!(" on {}", code(&f.topic))
    };
    let place = match anchor_place(f) {
        Some(anchor) => format!(
            "{}<br>in the working tree: {}",
            code(&place(f)),
            code(&anchor)
        ),
        None => code(&place(f)),
    };
    let mut wire = f
        .wire_path
        .as_ref()
        .map_or(String::new(), |w| format!("<br>on the wire: {}", code(w)));
    if let Some(reach) = super::reach_words(f) {
        wire.push_str(&format!("<br>{}", inline(&reach)));
    }
    let _ = writeln!(
        out,
        "| {} | {} | {}{topic}{wire}<br>{place} | {} | {} | {}{} |",
        icon(Severity::of(p, f)),
        code(f.rule.as_str()),
        code(&subject(f)),
        f.direction.map_or("—", |d| d.as_str()),
        inline(&f.against),
        inline(&f.message),
        f.allow_reason
            .as_ref()
            .map_or(String::new(), |r| format!("<br>allowed: {}", inline(r)))
    );
}

/// The witnesses of a protocol's findings, as JSON blocks.
fn witnesses(p: &ProtocolReport, out: &mut String) {
    let witnesses: Vec<_> = p
        .findings
        .iter()
        .filter_map(|f| witness_words(f).map(|w| (f, w)))
        .collect();
    if !witnesses.is_empty() {
        out.push_str("\n**Witnesses**\n\n");
        for (f, (who, json)) in witnesses {
            let _ = writeln!(
                out,
                "- {} {} ({}):\n  ```json\n  {json}\n  ```",
                code(f.rule.as_str()),
                code(&subject(f)),
                inline(&who)
            );
        }
    }
}

/// The usual migration of each counted rule of a protocol, with the version to declare.
fn migrations(p: &ProtocolReport, out: &mut String) {
    // By id, as a reader scans them; each with the version to declare.
    let rules: BTreeMap<&str, String> = p
        .findings
        .iter()
        .filter(|f| f.counts() && f.level != Level::None)
        .map(|f| (f.rule.as_str(), help(p, f)))
        .collect();
    if !rules.is_empty() {
        out.push_str("\n**How to migrate safely**\n\n");
        for (id, help) in rules {
            let _ = writeln!(out, "- {}: {}", code(id), inline(&help));
        }
    }
}

/// The `wirecheck.toml` notes and the report's notes.
fn notes_section(report: &Report, out: &mut String) {
    if !report.allow_notes.is_empty() || !report.notes.is_empty() {
        out.push_str("\n### Notes\n\n");
        for note in &report.allow_notes {
            let _ = writeln!(
                out,
                "- ⚠️ {}: {}",
                code(&format!(
                    "{}:{}",
                    note.entry.location.file, note.entry.location.line
                )),
                inline(&note.message)
            );
        }
        for note in &report.notes {
            let _ = writeln!(out, "- ℹ️ {}", inline(note));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            inline("a | `Option<u64>` <b>*x*"),
            "a \\| `Option<u64>` &lt;b&gt;\\*x\\*"
        );
        assert_eq!(inline("odd ` tick <"), "odd \\` tick &lt;");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("a|b"), "`a\\|b`");
    }
}
