//! The report every renderer is snapshot-tested on: the sched protocol of Flux with a removed and an
//! added required field (FAIL), a minor change, an allowed and a known finding; exec with a break its
//! version already pays for; an unchanged protocol; a new one; a `wirecheck.toml` note and an extraction
//! note, and a release skipped for each reason. Spans are computed from the source texts the report
//! carries, as the driver does.
#![allow(dead_code)]

use std::collections::BTreeMap;

use semver::Version;
use serde_json::json;
use wirecheck::check::{Baseline, ProtocolReport, Report, SkipReason, SkippedRelease};
use wirecheck::config;
use wirecheck::findings::{Direction, Finding, Level, Side};
use wirecheck::matrix::{Matrix, Pair, ProtocolMatrix, Revision, Verdict};
use wirecheck::model::Location;
use wirecheck::outcome::skipped_statements;
use wirecheck::policy::{Window, WindowRelease};

pub const OLD_SCHED: &str = r#"/// The scheduler protocol (Flux RFC 27).
#[derive(Protocol)]
#[wire(name = "sched", version = "0.87.0")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", streams = AllocResponse)]
pub struct AllocRequest {
    pub id: u64,
    pub priority: u32,
    pub userid: u32,
    pub t_submit: f64,
    pub jobspec: Value,
}
"#;

pub const NEW_SCHED: &str = r#"/// The scheduler protocol (Flux RFC 27).
#[derive(Protocol)]
#[wire(name = "sched", version = "0.87.1")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", streams = AllocResponse)]
pub struct AllocRequest {
    pub id: u64,
    pub priority: u32,
    pub userid: u32,
    pub jobspec: Value,
    pub queue: String,
}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest {
    pub id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#final: Option<bool>,
    #[wire(allow(variant_removed), reason = "no scheduler sends `single` since 0.40")]
    pub mode: Mode,
}
"#;

pub const EXEC: &str = r#"#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exec.start", kind = "request", streams = StartResponse)]
pub struct StartRequest {
    pub id: u64,
    #[serde(rename = "user-id")]
    pub userid: u32,
    pub reattach: Option<bool>,
}
"#;

pub const TOML: &str = r#"[[allow]]
rule = "field_removed"
message = "JobInfo"
field = "queue"
reason = "job-info reads the queue from the jobspec since 0.80"
"#;

/// The location of the first `needle` in `text`, as the extractor gives it.
pub fn loc(file: &str, text: &str, needle: &str) -> Location {
    let start = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in {file}"));
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Location {
        file: file.into(),
        line: line as u32,
        column: column as u32,
        start,
        end: start + needle.len(),
    }
}

#[allow(clippy::too_many_arguments)]
pub fn finding(
    rule: &str,
    level: Level,
    message: &str,
    protocol: &str,
    message_type: &str,
    topic: &str,
    field: Option<&str>,
    direction: Option<Direction>,
    against: &str,
    location: Location,
    side: Side,
    witness: Option<serde_json::Value>,
) -> Finding {
    Finding {
        rule: rule.parse().expect("a rule of the catalogue"),
        level,
        allowed: false,
        allow_reason: None,
        message: message.into(),
        protocol: protocol.into(),
        message_type: message_type.into(),
        topic: topic.into(),
        field: field.map(Into::into),
        // The fixture's fields keep their Rust names on the wire unless a test says otherwise.
        wire_path: field.map(Into::into),
        direction,
        against: against.into(),
        location,
        side,
        anchor: None,
        witness,
        known: false,
        reached_by: Vec::new(),
    }
}

pub fn v(s: &str) -> Version {
    Version::parse(s).unwrap()
}

pub fn report() -> Report {
    let removed = finding(
        "field_removed",
        Level::Major,
        "field `t_submit` of `AllocRequest` was removed: v0.87.0 readers require it (`missing field`)",
        "sched",
        "AllocRequest",
        "sched.alloc",
        Some("t_submit"),
        Some(Direction::OldReadsNew),
        "v0.87.0",
        loc("src/sched.rs", OLD_SCHED, "t_submit"),
        Side::Old,
        Some(json!({"id": 0, "priority": 0, "userid": 0, "jobspec": null, "queue": ""})),
    );
    let mut removed = removed;
    // What is left of its parent in the working tree, as the check fills it in.
    removed.anchor = Some(loc("src/sched.rs", NEW_SCHED, "AllocRequest"));
    let required = finding(
        "required_field_added",
        Level::Major,
        "field `queue` of `AllocRequest` was added as required: payloads of v0.87.0 writers lack it",
        "sched",
        "AllocRequest",
        "sched.alloc",
        Some("queue"),
        Some(Direction::NewReadsOld),
        "v0.87.0",
        loc("src/sched.rs", NEW_SCHED, "queue"),
        Side::New,
        Some(json!({"id": 0, "priority": 0, "userid": 0, "t_submit": 0.0, "jobspec": null})),
    );
    let minor = finding(
        "field_added",
        Level::Minor,
        "field `final` of `FreeRequest` was added; `Option<bool>` readers tolerate its absence",
        "sched",
        "FreeRequest",
        "sched.free",
        Some("final"),
        Some(Direction::OldReadsNew),
        "v0.87.0",
        loc("src/sched.rs", NEW_SCHED, "r#final"),
        Side::New,
        None,
    );
    let mut allowed = finding(
        "variant_removed",
        Level::Major,
        "variant `single` of `Mode` was removed: v0.87.0 writers still send it",
        "sched",
        "FreeRequest",
        "sched.free",
        Some("mode.single"),
        Some(Direction::NewReadsOld),
        "v0.87.0",
        loc("src/sched.rs", NEW_SCHED, "mode"),
        Side::New,
        Some(json!({"id": 0, "mode": "single"})),
    );
    allowed.allowed = true;
    allowed.allow_reason = Some("no scheduler sends `single` since 0.40".into());
    let mut known = finding(
        "message_removed",
        Level::Major,
        "message `ResourceStatusRequest` (sched.resource-status) was removed: v0.86.0 peers still send it",
        "sched",
        "ResourceStatusRequest",
        "sched.resource-status",
        None,
        Some(Direction::NewReadsOld),
        "v0.86.0",
        Location {
            file: "src/sched.rs".into(),
            line: 212,
            column: 12,
            start: 9000,
            end: 9021,
        },
        Side::Old,
        Some(json!({})),
    );
    known.known = true;
    let sched = ProtocolReport {
        name: "sched".into(),
        old_version: Some(v("0.87.0")),
        new_version: Some(v("0.87.1")),
        required_bump: Level::Major,
        required_version: Some(v("0.88.0")),
        ok: false,
        findings: vec![removed, required, minor, allowed, known],
        window: Some(window("0.87.0", &[("v0.87.0", "0.87.0")])),
    };
    let renamed = finding(
        "field_renamed",
        Level::Major,
        "field `userid` of `StartRequest` is written as `user-id`: v0.87.0 readers look for `userid`",
        "exec",
        "StartRequest",
        "job-exec.start",
        Some("userid"),
        Some(Direction::OldReadsNew),
        "v0.87.0",
        loc("src/exec.rs", EXEC, "userid"),
        Side::New,
        Some(json!({"id": 0, "user-id": 0, "reattach": null})),
    );
    let mut renamed = renamed;
    renamed.wire_path = Some("user-id".into());
    let exec = ProtocolReport {
        name: "exec".into(),
        old_version: Some(v("0.87.0")),
        new_version: Some(v("0.88.0")),
        required_bump: Level::Major,
        required_version: Some(v("0.88.0")),
        ok: true,
        findings: vec![renamed],
        window: Some(window("0.88.0", &[])),
    };
    let eventlog = ProtocolReport {
        name: "job-eventlog".into(),
        old_version: Some(v("0.87.0")),
        new_version: Some(v("0.87.0")),
        required_bump: Level::None,
        required_version: Some(v("0.87.0")),
        ok: true,
        findings: vec![],
        window: Some(window("0.87.0", &[("v0.87.0", "0.87.0")])),
    };
    let overlay = ProtocolReport {
        name: "overlay".into(),
        old_version: None,
        new_version: Some(v("0.1.0")),
        required_bump: Level::None,
        required_version: Some(v("0.1.0")),
        ok: true,
        findings: vec![],
        window: Some(window("0.1.0", &[])),
    };
    // One release of each reason a check skips one for.
    let skipped_release = |tag: &str, reason: SkipReason, detail: &str| SkippedRelease {
        tag: tag.into(),
        reason,
        detail: detail.into(),
    };
    let skipped = vec![
        skipped_release("vnext", SkipReason::NotSemver, ""),
        skipped_release(
            "v0.85.0",
            SkipReason::Unreadable,
            "src/sched.rs:14:31: cannot parse Rust source: expected `,`",
        ),
        skipped_release("v0.84.0", SkipReason::OutsideWindow, ""),
        skipped_release("v0.86.0", SkipReason::OutsideWindow, ""),
    ];
    let allows = config::parse(TOML).unwrap();
    let mut sources = BTreeMap::new();
    sources.insert("v0.87.0:src/sched.rs".to_owned(), OLD_SCHED.to_owned());
    sources.insert("src/sched.rs".to_owned(), NEW_SCHED.to_owned());
    sources.insert("src/exec.rs".to_owned(), EXEC.to_owned());
    sources.insert(config::FILE_NAME.to_owned(), TOML.to_owned());
    Report {
        baseline: Baseline {
            rev: "v0.87.0".into(),
            commit: "4a5e79f0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6".into(),
            ..Baseline::default()
        },
        ok: false,
        protocols: vec![exec, eventlog, overlay, sched],
        notes: skipped_statements(&skipped)
            .into_iter()
            .chain([
                "src/ids.rs:12:1: macro `define_ids!` is not expanded: the types it defines are compared by path".into(),
            ])
            .collect(),
        skipped_releases: skipped,
        allow_notes: vec![config::AllowNote::unused(&allows.allows[0])],
        sources,
    }
}

/// The series' default window from `minimum`, holding `releases` (tag, version), each compared and
/// unbroken.
fn window(minimum: &str, releases: &[(&str, &str)]) -> Window {
    Window {
        minimum: v(minimum),
        declared: false,
        location: Location::default(),
        releases: releases
            .iter()
            .map(|(tag, version)| WindowRelease {
                tag: (*tag).to_owned(),
                version: v(version),
                compared: true,
                breaks: Vec::new(),
                left_out_by: None,
            })
            .collect(),
    }
}

/// A matrix over three revisions: exec is compatible everywhere, sched breaks between v0.86.0 and the others, is compatible between
/// v0.87.0 and the working tree, and has an allowed break; `overlay` exists only in the working tree.
pub fn matrix() -> Matrix {
    let r = report();
    let sched = &r.protocols[3];
    let breaking: Vec<Finding> = sched.findings[..2]
        .iter()
        .map(|f| Finding {
            against: "v0.86.0".into(),
            ..f.clone()
        })
        .collect();
    let mut allowed = sched.findings[3].clone();
    allowed.against = "v0.87.0".into();
    let revisions = vec![
        Revision {
            label: "v0.86.0".into(),
            commit: Some("1111111111111111111111111111111111111111".into()),
        },
        Revision {
            label: "v0.87.0".into(),
            commit: Some("2222222222222222222222222222222222222222".into()),
        },
        Revision {
            label: "working tree".into(),
            commit: None,
        },
    ];
    let pair = |older, newer, verdict, breaking: Vec<Finding>, minor| Pair {
        older,
        newer,
        verdict,
        breaking,
        minor,
    };
    Matrix {
        revisions,
        protocols: vec![
            ProtocolMatrix {
                name: "exec".into(),
                versions: vec![Some(v("0.86.0")), Some(v("0.87.0")), Some(v("0.88.0"))],
                pairs: vec![
                    pair(0, 1, Verdict::Compatible, vec![], 1),
                    pair(0, 2, Verdict::Compatible, vec![], 2),
                    pair(1, 2, Verdict::Compatible, vec![], 0),
                ],
            },
            ProtocolMatrix {
                name: "overlay".into(),
                versions: vec![None, None, Some(v("0.1.0"))],
                pairs: vec![],
            },
            ProtocolMatrix {
                name: "sched".into(),
                versions: vec![Some(v("0.86.0")), Some(v("0.87.0")), Some(v("0.88.0"))],
                pairs: vec![
                    pair(0, 1, Verdict::Breaking, breaking.clone(), 0),
                    pair(0, 2, Verdict::Breaking, breaking, 1),
                    pair(1, 2, Verdict::Allowed, vec![allowed], 2),
                ],
            },
        ],
    }
}
