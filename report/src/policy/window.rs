//! A protocol's window: the releases the working tree declares it interoperates with (from its
//! `min_compatible` on, else from the first release of its series), as a check compared them, and the
//! findings of a window that reaches a release the working tree cannot talk to.

use semver::Version;
use serde::{Deserialize, Serialize};

use super::bump_pays;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::Location;
use crate::rules::RuleId;

/// A protocol's window: the releases the working tree declares it interoperates with, from its
/// `min_compatible` (else the first release of its version's series:
/// `wirecheck::handshake::window_minimum`, the rule of the handshake and of the skew
/// test) on, as the check compared them. Every release inside it must interoperate with the working
/// tree: a break against one of them, new or known, fails the check
/// (`window_findings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The oldest version of the protocol the working tree declares it interoperates with.
    pub minimum: Version,
    /// The minimum is the declared `min_compatible` (else the first release of the version's series).
    pub declared: bool,
    /// Where the working tree declares the protocol: where the window's findings point.
    pub location: Location,
    /// The releases inside the window (by the protocol's version there), oldest first, the baseline
    /// last when it is one of them.
    pub releases: Vec<WindowRelease>,
}

/// A release inside a protocol's [`Window`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRelease {
    /// The release's tag (for the baseline, its revision as the check names it).
    pub tag: String,
    /// The protocol's version there.
    pub version: Version,
    /// Compared with the working tree itself; `false` for a release whose part of the protocol has the
    /// shape of an older release's inside the window, whose comparison stands for it (equal shapes
    /// give equal findings).
    pub compared: bool,
    /// The major findings against it, each named as the findings list has it (the finding listed may
    /// be against an older release with the same break).
    pub breaks: Vec<WindowBreak>,
    /// For a release the baseline's window leaves out: the first release after it whose window left it
    /// out, the one whose version paid for its breaks.
    pub left_out_by: Option<LeftOut>,
}

/// A major finding against a release inside a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowBreak {
    /// The finding's rule.
    pub rule: RuleId,
    /// Its message type.
    pub message_type: String,
    /// Its topic.
    pub topic: String,
    /// Its field.
    pub field: Option<String>,
    /// Its direction.
    pub direction: Option<Direction>,
    /// The baseline has the same break with this release: known history.
    pub known: bool,
}

impl WindowBreak {
    /// The break of `finding`, known or not.
    pub fn of(finding: &Finding, known: bool) -> Self {
        WindowBreak {
            rule: finding.rule,
            message_type: finding.message_type.clone(),
            topic: finding.topic.clone(),
            field: finding.field.clone(),
            direction: finding.direction,
            known,
        }
    }

    /// Whether `finding` is this break (against this release or an older one).
    pub fn is(&self, finding: &Finding) -> bool {
        finding.rule == self.rule
            && finding.message_type == self.message_type
            && finding.topic == self.topic
            && finding.field == self.field
            && finding.direction == self.direction
    }
}

/// The release whose window first left an older release out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// Its tag.
    pub tag: String,
    /// The protocol's version there.
    pub version: Version,
    /// The oldest version its window holds.
    pub minimum: Version,
}

/// The findings of a window that reaches releases the working tree cannot talk to: one
/// `min_compatible_spans_break` per release inside `window` (of the protocol `protocol`) that a major
/// finding not allowed breaks, naming the break and, for a break the baseline already had, the release
/// that paid for it. A new break inside a window that is the series default is left to the version:
/// its bump moves the window past the release (the required version says so already); inside a declared
/// `min_compatible`, no bump helps, and a known break fails whatever the window.
pub fn window_findings(protocol: &str, window: &Window, findings: &[Finding]) -> Vec<Finding> {
    let base = window.releases.last();
    window
        .releases
        .iter()
        .filter_map(|release| {
            let breaks: Vec<(&WindowBreak, &Finding)> = release
                .breaks
                .iter()
                .filter(|b| b.known || window.declared)
                .filter_map(|b| Some((b, findings.iter().find(|f| bump_pays(f) && b.is(f))?)))
                .filter(|(_, f)| !f.allowed)
                .collect();
            let message = spans_message(protocol, window, release, base, &breaks)?;
            Some(Finding {
                rule: RuleId::MinCompatibleSpansBreak,
                level: Level::Major,
                allowed: false,
                allow_reason: None,
                message,
                protocol: protocol.to_owned(),
                message_type: String::new(),
                topic: String::new(),
                field: None,
                wire_path: None,
                direction: None,
                against: release.tag.clone(),
                location: window.location.clone(),
                side: Side::New,
                anchor: None,
                witness: None,
                known: false,
                reached_by: Vec::new(),
            })
        })
        .collect()
}

/// The sentence of a window that reaches `release` across `breaks` (none: no finding). `last` is the
/// window's newest release (the baseline when it is inside).
fn spans_message(
    protocol: &str,
    window: &Window,
    release: &WindowRelease,
    last: Option<&WindowRelease>,
    breaks: &[(&WindowBreak, &Finding)],
) -> Option<String> {
    let (_, first) = breaks.first()?;
    let what = match breaks.len() {
        1 => break_words(first),
        n => format!("{} and {} more", break_words(first), n - 1),
    };
    let reach = match window.declared {
        true => format!("min_compatible = \"{}\"", window.minimum),
        false => format!(
            "the window of this release (no min_compatible: {} and later, the first release of its series)",
            window.minimum
        ),
    };
    let fix = match window.declared {
        true => format!("raise min_compatible above {}", release.version),
        false => format!("declare a min_compatible above {}", release.version),
    };
    let at = format!("{} ({protocol} {})", release.tag, release.version);
    let new_break = breaks.iter().any(|(b, _)| !b.known);
    Some(match (&release.left_out_by, new_break) {
        (_, true) => format!(
            "{reach} promises that {at} interoperates with this release, but this change breaks it: {what}; {fix}, or undo the change"
        ),
        (Some(paid), false) => format!(
            "{reach} reaches back to {at} across a break that {} paid for ({protocol} {} accepts {} and later): {what}; {fix}",
            paid.tag, paid.version, paid.minimum
        ),
        (None, false) => format!(
            "{reach} reaches {at}, which this release cannot talk to: {what}; the baseline{} declared it compatible all the same (known history, so the break costs no bump), but a peer at {} is still accepted and fails; {fix}",
            last.map(|b| format!(" {}", b.tag)).unwrap_or_default(),
            release.version
        ),
    })
}

/// `field_removed on AllocRequest.t_submit (old reads new)`.
fn break_words(finding: &Finding) -> String {
    let subject = match (&finding.field, finding.message_type.is_empty()) {
        (Some(field), false) => format!("{}.{field}", finding.message_type),
        (None, false) => finding.message_type.clone(),
        (Some(field), true) => field.clone(),
        (None, true) => format!("the protocol `{}`", finding.protocol),
    };
    match finding.direction {
        Some(direction) => format!("`{}` on {subject} ({direction})", finding.rule),
        None => format!("`{}` on {subject}", finding.rule),
    }
}
