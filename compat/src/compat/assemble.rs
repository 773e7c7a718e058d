//! From issues to findings: the level, the allow, the message text, then hiding what a break at the
//! same place already says, ordering and deduplication. The one place a [`Finding`] is built.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use super::allows::AllowsAt;
use super::issue::{Issue, wire_path_text};
use super::wording::article;
use crate::Format;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{AllowDecl, Location, MessageDecl};
use crate::rules::RuleId;

/// An issue with the messages and direction it was found for, before the allow and level decisions.
pub struct Candidate<'m> {
    pub issue: Issue,
    /// The direction it breaks (none for a visible change).
    pub direction: Option<Direction>,
    /// The contract needs this direction for this message.
    pub needed: bool,
    pub old: Option<&'m MessageDecl>,
    pub new: Option<&'m MessageDecl>,
}

/// What the protocol and the old release are called in the findings, the protocol's format, and the
/// allows of both releases by where they are written.
pub struct Context<'c> {
    pub protocol: &'c str,
    pub against: &'c str,
    pub format: Format,
    pub allows: AllowsAt<'c>,
}

/// A finding and the two facts about its issue that the later passes need.
struct Built {
    finding: Finding,
    breaks: bool,
    opaque: bool,
}

/// Turns candidates into sorted, deduplicated findings.
pub fn findings(candidates: Vec<Candidate<'_>>, context: &Context<'_>) -> Vec<Finding> {
    let mut built: Vec<Built> = candidates
        .into_iter()
        .map(|candidate| build(candidate, context))
        .collect();
    hide_shadowed(&mut built);
    one_rule_per_type_change(&mut built);
    built.sort_by(|a, b| report_order(&a.finding, &b.finding));
    deduplicate(built)
}

/// The reason of the first `allow` that names `rule`.
fn allowed_by<'a>(rule: RuleId, allows: impl Iterator<Item = &'a AllowDecl>) -> Option<String> {
    allows
        .into_iter()
        .find(|allow| allow.rules.iter().any(|r| r == rule.as_str()))
        .map(|allow| allow.reason.clone())
}

/// Builds the finding of one candidate.
fn build(candidate: Candidate<'_>, context: &Context<'_>) -> Built {
    let Candidate {
        issue,
        direction,
        needed,
        old,
        new,
    } = candidate;
    let major = issue.breaks && needed;
    let message = new.or(old);
    let message_allows = old
        .iter()
        .chain(new.iter())
        .filter_map(|m| m.allow.as_ref());
    let text = finding_text(&issue, direction, needed, message, context.format);
    let (location, side) = issue.location.clone().unwrap_or_else(|| match (new, old) {
        (Some(n), _) => (n.location.clone(), Side::New),
        (None, Some(o)) => (o.location.clone(), Side::Old),
        (None, None) => (Location::default(), Side::New),
    });
    // The allows of the place the issue names, of its message, and of the item it points at.
    let written_there = context.allows.at(&location);
    let allows = (issue.allows.iter().chain(message_allows)).chain(written_there.iter().copied());
    let reason = allowed_by(issue.rule, allows);
    let finding = Finding {
        rule: issue.rule,
        level: if major { Level::Major } else { Level::Minor },
        allowed: reason.is_some(),
        allow_reason: reason,
        message: text,
        protocol: context.protocol.to_owned(),
        message_type: message.map(|m| m.name.clone()).unwrap_or_default(),
        topic: message.map(|m| m.topic.clone()).unwrap_or_default(),
        field: if issue.path.is_empty() {
            None
        } else {
            Some(issue.path.join("."))
        },
        wire_path: if context.format.is_self_describing() {
            wire_path_text(&issue.wire_path)
        } else {
            None
        },
        direction: if issue.breaks { direction } else { None },
        against: context.against.to_owned(),
        location,
        side,
        anchor: None,
        witness: if major { issue.witness } else { None },
        known: false,
        reached_by: Vec::new(),
    };
    Built {
        finding,
        breaks: issue.breaks,
        opaque: issue.opaque,
    }
}

/// The issue's sentence, with a note when the break is in a direction the upgrade order never uses, or
/// when the witness is shown as JSON for a binary format (CBOR, MessagePack, bincode, postcard: the
/// writer's value as JSON, which its codec writes as bytes).
fn finding_text(
    issue: &Issue,
    direction: Option<Direction>,
    needed: bool,
    message: Option<&MessageDecl>,
    format: Format,
) -> String {
    let mut text = issue.detail.clone();
    if issue.breaks
        && issue.witness.is_none()
        && let Some(unknown) = &issue.no_witness
    {
        text.push_str(&format!(" (no witness: {unknown})"));
    }
    if issue.breaks && !needed {
        if let (Some(direction), Some(message)) = (direction, message) {
            text.push_str(&format!(
                " (compatible under the declared upgrade order: {} {} is never read {})",
                article(message.kind),
                message.kind,
                match direction {
                    Direction::OldReadsNew => "by an old release from a new one",
                    Direction::NewReadsOld => "by a new release from an old one",
                }
            ));
        }
    } else if issue.breaks && format != Format::Json && issue.witness.is_some() {
        text.push_str(&format!(
            " (witness shown as JSON; on the wire it is {format})"
        ));
    }
    text
}

/// A place of a finding: message and field.
type PlaceKey = (String, String, Option<String>);

fn place_key(finding: &Finding) -> PlaceKey {
    (
        finding.topic.clone(),
        finding.message_type.clone(),
        finding.field.clone(),
    )
}

/// 2 for a major finding, 1 for a break in an unneeded direction, 0 for a plain change.
fn rank(built: &Built) -> u8 {
    match (built.finding.level, built.breaks) {
        (Level::Major, _) => 2,
        (_, true) => 1,
        _ => 0,
    }
}

/// Per message and field: a break in a needed direction hides the minor changes at the same place; a
/// break in an unneeded direction hides the plain changes.
fn hide_shadowed(built: &mut Vec<Built>) {
    let mut best: BTreeMap<PlaceKey, u8> = BTreeMap::new();
    for b in built.iter() {
        let entry = best.entry(place_key(&b.finding)).or_insert(0);
        *entry = (*entry).max(rank(b));
    }
    built.retain(|b| rank(b) >= best.get(&place_key(&b.finding)).copied().unwrap_or(0));
}

/// One change, one rule: where a field's type changed (`field_type_changed` in one direction), the
/// narrowed domain the other direction finds at the same place is the same change, reported under the
/// same rule (`String` to `uuid::Uuid` in postcard: the old reader fails on the bytes, the new one on
/// strings that are no UUID).
fn one_rule_per_type_change(built: &mut [Built]) {
    let changed: BTreeMap<PlaceKey, RuleId> = built
        .iter()
        .filter(|b| b.finding.rule == RuleId::FieldTypeChanged && b.finding.level == Level::Major)
        .map(|b| (place_key(&b.finding), b.finding.rule))
        .collect();
    for b in built.iter_mut() {
        if b.finding.rule == RuleId::ValueDomainNarrowed
            && let Some(&rule) = changed.get(&place_key(&b.finding))
        {
            b.finding.rule = rule;
        }
    }
}

/// The order of findings in a report: by place, rule, direction, location, then text.
fn report_order(a: &Finding, b: &Finding) -> Ordering {
    (
        &a.topic,
        &a.message_type,
        &a.field,
        &a.rule,
        a.direction,
        &a.location,
        &a.message,
    )
        .cmp(&(
            &b.topic,
            &b.message_type,
            &b.field,
            &b.rule,
            b.direction,
            &b.location,
            &b.message,
        ))
}

/// Keeps the first finding of each key; an opaque one is reported once, whatever its direction.
fn deduplicate(built: Vec<Built>) -> Vec<Finding> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for Built {
        finding, opaque, ..
    } in built
    {
        let mut key = finding.dedup_key();
        if opaque {
            key.4 = None;
        }
        if seen.insert(key) {
            out.push(finding);
        }
    }
    out
}
