//! `--format sarif`: SARIF 2.1.0 for code scanning (`github/codeql-action/upload-sarif`), written with
//! hand-written serde structs for the subset wirecheck uses (validated against the OASIS schema in
//! `tests/report_sarif.rs`).
//!
//! - `tool.driver.rules` is the whole catalogue, in catalogue order, so `ruleIndex` is stable.
//! - Results carry 1-based regions (columns in Unicode code points, `columnKind`), a
//!   `partialFingerprints["wirecheck/v1"]` that depends on the rule, protocol, message, topic, field and
//!   direction only (stable across line moves and releases), and `suppressions` for allowed findings
//!   (`inSource` for `#[wire(allow)]`, `external` for `wirecheck.toml`).
//! - `wirecheck.toml` notes are tool configuration notifications; extraction notes are tool execution
//!   notifications.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{
    Severity, anchor_place, direction_words, place, region, subject, witness_words,
    working_tree_location,
};
use crate::findings::{Finding, Level, Side};
use crate::outcome::{ProtocolReport, Report};
use crate::rules::RULES;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    invocations: Vec<Invocation>,
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
    properties: RunProperties<'a>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<Descriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    id: &'static str,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    default_configuration: Configuration,
    properties: DescriptorProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct DescriptorProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_configuration_notifications: Vec<Notification>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: Vec<SarifLocation>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression<'a>>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: SarifRegion,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: u32,
    start_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

#[derive(Serialize)]
struct Suppression<'a> {
    kind: &'static str,
    justification: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties<'a> {
    protocol: &'a str,
    message_type: &'a str,
    topic: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wire_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<&'static str>,
    against: &'a str,
    side: &'static str,
    bump: &'static str,
    known: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<&'a serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties<'a> {
    baseline: &'a crate::outcome::Baseline,
    ok: bool,
    protocols: Vec<ProtocolProperties<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProtocolProperties<'a> {
    name: &'a str,
    old_version: Option<String>,
    new_version: Option<String>,
    required_bump: &'static str,
    required_version: Option<String>,
    ok: bool,
    summary: String,
}

/// `field_removed` → `FieldRemoved`.
fn pascal(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Percent-encodes what a relative URI reference cannot hold as is (keeps `/` and unreserved characters).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn descriptor(rule: &crate::rules::Rule) -> Descriptor {
    let first_paragraph = rule
        .explanation
        .split("\n\n")
        .next()
        .unwrap_or(rule.explanation);
    let migration = rule.help;
    Descriptor {
        id: rule.id,
        name: pascal(rule.id),
        short_description: Text {
            text: rule.summary.to_owned(),
        },
        full_description: Text {
            text: first_paragraph.to_owned(),
        },
        help: Help {
            text: format!("{}\n\nMigration: {migration}", rule.explanation),
            markdown: format!(
                "{first_paragraph}\n\n```text\n{}\n```\n\n**Migration:** {migration}",
                rule.explanation
                    .split_once("\n\n")
                    .map_or("", |(_, example)| example)
            ),
        },
        default_configuration: Configuration {
            level: match rule.level {
                Level::Major => "error",
                Level::Minor | Level::None => "note",
            },
        },
        properties: DescriptorProperties {
            tags: vec!["wire-compatibility", rule.level.as_str()],
        },
    }
}

/// In the working tree: the finding's own place, or for something removed its surviving parent (the old
/// place in the message); only when nothing of it is left, the old place on the working tree's path.
fn location(report: &Report, f: &Finding) -> SarifLocation {
    let (location, region) =
        working_tree_location(report, f).unwrap_or_else(|| (&f.location, region(report, f)));
    let message = match (f.side, anchor_place(f)) {
        (Side::New, _) => None,
        (Side::Old, Some(_)) => Some(format!(
            "what is left of its parent; it was removed from {}",
            place(f)
        )),
        (Side::Old, None) => Some(format!("as declared in {}", f.against)),
    };
    SarifLocation {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: uri(&location.file),
                uri_base_id: "%SRCROOT%",
            },
            region: SarifRegion {
                start_line: location.line.max(1),
                start_column: location.column.max(1),
                end_line: region.map(|r| r.end_line),
                end_column: region.map(|r| r.end_column),
            },
        },
        message: message.map(|text| Text { text }),
    }
}

fn result<'a>(report: &'a Report, p: &'a ProtocolReport, f: &'a Finding) -> SarifResult<'a> {
    let severity = Severity::of(p, f);
    let mut text = format!("{} ({} {}, at {})", f.message, p.name, subject(f), place(f));
    if let Some(wire_path) = &f.wire_path {
        text.push_str(&format!(". On the wire: {wire_path}"));
    }
    if let Some(d) = f.direction {
        text.push_str(&format!(". {d}: {}", direction_words(f, d)));
    }
    if let Some((who, json)) = witness_words(f) {
        text.push_str(&format!(". Witness ({who}): {json}"));
    }
    if f.known {
        text.push_str(&format!(
            ". Known history: the baseline {} already had this break",
            report.baseline.rev
        ));
    }
    text.push_str(&format!(". Help: {}", super::help(p, f)));
    let suppressions = match (&f.allow_reason, f.allowed) {
        (Some(reason), true) => vec![Suppression {
            kind: if reason.starts_with(&format!("{}:", crate::config::FILE_NAME)) {
                "external"
            } else {
                "inSource"
            },
            justification: reason,
        }],
        (None, true) => vec![Suppression {
            kind: "inSource",
            justification: "",
        }],
        _ => Vec::new(),
    };
    SarifResult {
        rule_id: f.rule.as_str(),
        rule_index: Some(f.rule as usize),
        level: match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note | Severity::Allowed | Severity::Known => "note",
        },
        message: Text { text },
        locations: vec![location(report, f)],
        partial_fingerprints: BTreeMap::from([("wirecheck/v1", super::fingerprint(f))]),
        suppressions,
        properties: ResultProperties {
            protocol: &f.protocol,
            message_type: &f.message_type,
            topic: &f.topic,
            field: f.field.as_deref(),
            wire_path: f.wire_path.as_deref(),
            direction: f.direction.map(|d| d.as_str()),
            against: &f.against,
            side: f.side.as_str(),
            bump: f.level.as_str(),
            known: f.known,
            witness: f.witness.as_ref(),
        },
    }
}

pub(super) fn render(report: &Report) -> String {
    let configuration = report.allow_notes.iter().map(allow_notification).collect();
    let execution = report
        .notes
        .iter()
        .map(|note| Notification {
            level: "note",
            message: Text { text: note.clone() },
            locations: Vec::new(),
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "wirecheck",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules: RULES.iter().map(descriptor).collect(),
                },
            },
            invocations: vec![Invocation {
                execution_successful: true,
                tool_configuration_notifications: configuration,
                tool_execution_notifications: execution,
            }],
            column_kind: "unicodeCodePoints",
            results: report
                .protocols
                .iter()
                .flat_map(|p| p.findings.iter().map(move |f| result(report, p, f)))
                .collect(),
            properties: RunProperties {
                baseline: &report.baseline,
                ok: report.ok,
                protocols: report.protocols.iter().map(protocol_properties).collect(),
            },
        }],
    };
    let mut text =
        serde_json::to_string_pretty(&log).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

/// A `wirecheck.toml` allow entry's note (unused, expired), at the entry.
fn allow_notification(note: &crate::config::AllowNote) -> Notification {
    Notification {
        level: "warning",
        message: Text {
            text: note.message.clone(),
        },
        locations: vec![SarifLocation {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: uri(&note.entry.location.file),
                    uri_base_id: "%SRCROOT%",
                },
                region: SarifRegion {
                    start_line: note.entry.location.line.max(1),
                    start_column: note.entry.location.column.max(1),
                    end_line: None,
                    end_column: None,
                },
            },
            message: None,
        }],
    }
}

/// A protocol's verdict, in the run's properties.
fn protocol_properties(p: &ProtocolReport) -> ProtocolProperties<'_> {
    ProtocolProperties {
        name: &p.name,
        old_version: p.old_version.as_ref().map(ToString::to_string),
        new_version: p.new_version.as_ref().map(ToString::to_string),
        required_bump: p.required_bump.as_str(),
        required_version: p.required_version.as_ref().map(ToString::to_string),
        ok: p.ok,
        summary: super::summary(p),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_and_uris() {
        let rule = crate::rules::RuleId::FieldRemoved;
        assert_eq!(super::pascal(rule.as_str()), format!("{rule:?}"));
        assert_eq!(super::uri("src/a b%.rs"), "src/a%20b%25.rs");
    }
}
