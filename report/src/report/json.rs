//! `--format json`: the contract's shape.

use serde::Serialize;

use crate::findings::Finding;
use crate::outcome::{Baseline, Report, SkippedRelease};

#[derive(Serialize)]
struct Out<'a> {
    baseline: &'a Baseline,
    ok: bool,
    protocols: Vec<ProtocolOut<'a>>,
    /// The release tags not compared in full: `{"tag", "reason", "detail"}` (reason `unreadable`,
    /// `not_semver` or `outside_window`); absent when every release was.
    #[serde(skip_serializing_if = "<[SkippedRelease]>::is_empty")]
    skipped_releases: &'a [SkippedRelease],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    allow_notes: Vec<AllowNoteOut<'a>>,
}

/// A `wirecheck.toml` note: `{"kind": "unused", "file": "wirecheck.toml", "line": 3, "rule": ..., "message":
/// ..., "reason": ..., "text": "..."}`.
#[derive(Serialize)]
struct AllowNoteOut<'a> {
    kind: crate::config::AllowNoteKind,
    file: &'a str,
    line: u32,
    rule: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<&'a str>,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<String>,
    text: &'a str,
}

#[derive(Serialize)]
struct ProtocolOut<'a> {
    name: &'a str,
    old_version: Option<String>,
    new_version: Option<String>,
    required_bump: &'a str,
    required_version: Option<String>,
    ok: bool,
    /// Present (true) only when the declared version is below the baseline's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    version_went_backwards: bool,
    /// The releases the working tree declares it interoperates with; absent for a removed protocol.
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<WindowOut<'a>>,
    findings: Vec<FindingOut<'a>>,
}

/// `{"min_compatible": "0.87.0", "declared": true, "releases": ["v0.87.0", "v0.87.2"]}`: the oldest
/// version the working tree declares it interoperates with (declared, or the first release of its
/// series), and the release tags inside that window, each compared in full (the baseline last when it
/// is inside).
#[derive(Serialize)]
struct WindowOut<'a> {
    min_compatible: String,
    declared: bool,
    releases: Vec<&'a str>,
}

#[derive(Serialize)]
struct FindingOut<'a> {
    rule: &'a str,
    level: &'a str,
    allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    allow_reason: Option<&'a str>,
    known: bool,
    message: &'a str,
    message_type: &'a str,
    topic: &'a str,
    field: Option<&'a str>,
    /// The field's path as the wire names it; absent where it names nothing (positional formats).
    #[serde(skip_serializing_if = "Option::is_none")]
    wire_path: Option<&'a str>,
    direction: Option<&'a str>,
    against: &'a str,
    side: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    /// For something removed (`side: old`): its surviving parent in the working tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor: Option<AnchorOut<'a>>,
    /// Absent when there is no witness; `null` is a real payload (a unit struct).
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<&'a serde_json::Value>,
    /// The messages and places that reach this one cause, when it is reached from more than one
    /// (`message_type`, `topic`, `field`, `wire_path`: the finding's own first).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reached_by: &'a [crate::findings::Reach],
}

/// `{"file": "src/sched.rs", "line": 9, "column": 12}`.
#[derive(Serialize)]
struct AnchorOut<'a> {
    file: &'a str,
    line: u32,
    column: u32,
}

fn finding(f: &Finding) -> FindingOut<'_> {
    FindingOut {
        rule: f.rule.as_str(),
        level: f.level.as_str(),
        allowed: f.allowed,
        allow_reason: f.allow_reason.as_deref(),
        known: f.known,
        message: &f.message,
        message_type: &f.message_type,
        topic: &f.topic,
        field: f.field.as_deref(),
        wire_path: f.wire_path.as_deref(),
        direction: f.direction.map(|d| d.as_str()),
        against: &f.against,
        side: f.side.as_str(),
        file: &f.location.file,
        line: f.location.line,
        column: f.location.column,
        anchor: f.anchor.as_ref().map(|a| AnchorOut {
            file: &a.file,
            line: a.line,
            column: a.column,
        }),
        witness: f.witness.as_ref(),
        reached_by: if f.reached_by.len() > 1 {
            &f.reached_by
        } else {
            &[]
        },
    }
}

pub(super) fn render(report: &Report) -> String {
    let out = Out {
        baseline: &report.baseline,
        ok: report.ok,
        protocols: report
            .protocols
            .iter()
            .map(|p| ProtocolOut {
                name: &p.name,
                old_version: p.old_version.as_ref().map(ToString::to_string),
                new_version: p.new_version.as_ref().map(ToString::to_string),
                required_bump: p.required_bump.as_str(),
                required_version: p.required_version.as_ref().map(ToString::to_string),
                ok: p.ok,
                version_went_backwards: p.version_went_backwards(),
                window: p.window.as_ref().map(|w| WindowOut {
                    min_compatible: w.minimum.to_string(),
                    declared: w.declared,
                    releases: w.releases.iter().map(|r| r.tag.as_str()).collect(),
                }),
                findings: p.findings.iter().map(finding).collect(),
            })
            .collect(),
        skipped_releases: &report.skipped_releases,
        notes: &report.notes,
        allow_notes: report
            .allow_notes
            .iter()
            .map(|n| AllowNoteOut {
                kind: n.kind,
                file: &n.entry.location.file,
                line: n.entry.location.line,
                rule: n.entry.rule.as_str(),
                message: &n.entry.message,
                field: n.entry.field.as_deref(),
                protocol: n.entry.protocol.as_deref(),
                reason: &n.entry.reason,
                until: n.entry.until.as_ref().map(ToString::to_string),
                text: &n.message,
            })
            .collect(),
    };
    let mut text =
        serde_json::to_string_pretty(&out).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}
