//! `--format human`: rustc-style diagnostics (annotate-snippets, the renderer rustc and cargo use), one
//! per finding, with the source snippet and a label on the span, notes with the direction and the witness,
//! a help line with the usual safe migration; then a verdict per protocol.
//!
//! Removed items are shown in the older release's source, named `v0.87.0:src/sched.rs`. When the report
//! has no text for a file the diagnostic shows its path, line and column only.

use annotate_snippets::{AnnotationKind, Element, Group, Level, Origin, Renderer, Snippet};

use super::{Severity, direction_words, overall, summary, witness_words};
use crate::config::AllowNote;
use crate::findings::Finding;
use crate::model::Location;
use crate::outcome::{ProtocolReport, Report, source_label};

pub(super) fn render(report: &Report, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for p in &report.protocols {
        for f in &p.findings {
            let label = source_label(f);
            let group = finding(report, p, f, &label);
            out.push_str(&renderer.render(&[group]));
            out.push_str("\n\n");
        }
    }
    for note in &report.allow_notes {
        out.push_str(&renderer.render(&[allow_note(report, note)]));
        out.push_str("\n\n");
    }
    for note in &report.notes {
        out.push_str(
            &renderer.render(&[Group::with_title(Level::NOTE.primary_title(note.as_str()))]),
        );
        out.push('\n');
    }
    if !report.notes.is_empty() {
        out.push('\n');
    }
    for p in &report.protocols {
        out.push_str(&summary(p));
        out.push('\n');
    }
    out.push_str(&overall(report));
    out.push('\n');
    out
}

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
        Severity::Allowed => Level::NOTE.with_name("allowed"),
        Severity::Known => Level::NOTE.with_name("known"),
    }
}

/// The snippet of `location` in the file named `label`, or its origin when the text is not in the report.
fn place<'a>(
    report: &'a Report,
    label: &'a str,
    location: &Location,
    annotation: String,
) -> Element<'a> {
    let text = report.sources.get(label);
    let fits = text.is_some_and(|t| {
        location.start <= location.end
            && location.end <= t.len()
            && t.is_char_boundary(location.start)
            && t.is_char_boundary(location.end)
    });
    match text {
        Some(text) if fits => Snippet::source(text.as_str())
            .path(label)
            .annotation(
                AnnotationKind::Primary
                    .span(location.start..location.end)
                    .label(annotation),
            )
            .into(),
        _ => Origin::path(label)
            .line(location.line as usize)
            .char_column(location.column as usize)
            .into(),
    }
}

fn finding<'a>(
    report: &'a Report,
    p: &'a ProtocolReport,
    f: &'a Finding,
    label: &'a str,
) -> Group<'a> {
    let severity = Severity::of(p, f);
    let summary = f.rule.rule().summary;
    let mut elements: Vec<Element<'a>> = vec![place(report, label, &f.location, summary.into())];
    let what = if f.topic.is_empty() {
        format!("in protocol `{}`", f.protocol)
    } else {
        format!(
            "in `{}` on topic `{}` of protocol `{}`",
            super::subject(f),
            f.topic,
            f.protocol
        )
    };
    elements.push(Level::NOTE.message(what).into());
    if let Some(reach) = super::reach_words(f) {
        elements.push(Level::NOTE.message(reach).into());
    }
    if let Some(wire) = super::wire_words(f) {
        elements.push(Level::NOTE.message(wire).into());
    }
    if let Some(anchor) = super::anchor_place(f) {
        elements.push(
            Level::NOTE
                .message(format!(
                    "removed since {}; what is left of its parent in the working tree is at {anchor}",
                    f.against
                ))
                .into(),
        );
    }
    if let Some(d) = f.direction {
        let verb = if f.level == crate::findings::Level::Major {
            "fails when"
        } else {
            "concerns"
        };
        elements.push(
            Level::NOTE
                .message(format!("{verb} {d}: {}", direction_words(f, d)))
                .into(),
        );
    }
    if let Some((who, json)) = witness_words(f) {
        elements.push(
            Level::NOTE
                .message(format!("witness ({who}): {json}"))
                .into(),
        );
    }
    if let Some(reason) = &f.allow_reason {
        elements.push(
            Level::NOTE
                .message(format!("allowed, not counted: {reason}"))
                .into(),
        );
    }
    if f.known {
        elements.push(
            Level::NOTE
                .message(format!(
                    "known history: the baseline {} already had this break with {}; not counted again",
                    report.baseline.rev, f.against
                ))
                .into(),
        );
    }
    elements.push(Level::HELP.message(super::help(p, f)).into());
    level(severity)
        .primary_title(f.message.as_str())
        .id(f.rule.as_str())
        .elements(elements)
}

fn allow_note<'a>(report: &'a Report, note: &'a AllowNote) -> Group<'a> {
    let location = &note.entry.location;
    // Point at the entry's first line (`[[allow]]`), not the whole table.
    let mut first_line = location.clone();
    if let Some(rest) = report
        .sources
        .get(&location.file)
        .and_then(|text| text.get(location.start..))
    {
        first_line.end = location.start + rest.find('\n').unwrap_or(rest.len());
    }
    let label = match note.kind {
        crate::config::AllowNoteKind::Unused => "matches no finding",
        crate::config::AllowNoteKind::Expired => "expired",
    };
    Level::WARNING
        .primary_title(note.message.as_str())
        .element(place(report, &location.file, &first_line, label.into()))
        .element(Level::NOTE.message(format!("reason given: {}", note.entry.reason)))
}
