//! The compatibility judgement: compares two snapshots of a protocol and reports what breaks.
//!
//! For every message present in both releases and every direction the contract's table needs, the
//! engine decides whether every payload the writer's schema can produce is accepted by the reader's
//! schema, following serde's behaviour for the protocol's format (self-describing: JSON, CBOR, MessagePack;
//! positional: bincode, postcard). Breaks are `major` findings with a witness payload; changes that are
//! visible on the wire but compatible (or break only a direction the upgrade order never uses) are
//! `minor`; wire-identical changes are not reported.

mod decode;
mod resolve;
mod sample;
mod walk;

#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{AllowDecl, Location, MessageDecl, Snapshot, Ty};
use crate::rules::RuleId;
use crate::{Format, Kind, ResponseMode, Upgrade};

use resolve::SideRef;
use sample::Sampler;
pub(crate) use sample::fixture_cases;
use walk::{Issue, Walk};

/// Which pairs and directions to check for one (old, new) pair of snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every message, in the directions of the contract's table.
    Full,
    /// Only `record` messages, only new-reads-old (releases older than `min_compatible`: their records
    /// are still read back).
    RecordsOnly,
}

const BOTH: &[Direction] = &[Direction::OldReadsNew, Direction::NewReadsOld];
const NEW_READS_OLD: &[Direction] = &[Direction::NewReadsOld];
const OLD_READS_NEW: &[Direction] = &[Direction::OldReadsNew];

/// The directions that must work for a message of `kind` under the `upgrade` order (the contract's
/// table; records always need both with the baseline).
pub fn directions(kind: Kind, upgrade: Upgrade) -> &'static [Direction] {
    match (kind, upgrade) {
        (Kind::Event | Kind::Record, _) | (_, Upgrade::AnyOrder) => BOTH,
        (Kind::Request, Upgrade::ServerFirst) | (Kind::Response, Upgrade::ClientFirst) => {
            NEW_READS_OLD
        }
        (Kind::Request, Upgrade::ClientFirst) | (Kind::Response, Upgrade::ServerFirst) => {
            OLD_READS_NEW
        }
    }
}

/// A rule for pairing an old message with a new one: messages pair when their keys are equal (a `None`
/// part is not compared).
type MatchKey =
    for<'m> fn(&'m MessageDecl) -> (Option<&'m String>, Option<Kind>, Option<&'m String>);

/// One finding before the allow and level decisions.
struct Raw<'m> {
    issue: Issue,
    direction: Option<Direction>,
    needed: bool,
    old: Option<&'m MessageDecl>,
    new: Option<&'m MessageDecl>,
}

/// Compares the protocol named `protocol` between `old` and `new`; `against` names the old release in
/// the findings. Findings are sorted and deduplicated; `known` is left false.
pub fn compare_protocol(
    old: &Snapshot,
    new: &Snapshot,
    protocol: &str,
    against: &str,
    scope: Scope,
) -> Vec<Finding> {
    let (Some(op), Some(np)) = (old.protocol(protocol), new.protocol(protocol)) else {
        return Vec::new();
    };
    let records_only = scope == Scope::RecordsOnly;
    let keep = |m: &&MessageDecl| !records_only || m.kind == Kind::Record;
    let olds: Vec<&MessageDecl> = old.messages_of(protocol).filter(keep).collect();
    let news: Vec<&MessageDecl> = new.messages_of(protocol).filter(keep).collect();
    let needed_for = |kind: Kind| -> &'static [Direction] {
        if records_only {
            NEW_READS_OLD
        } else {
            directions(kind, np.upgrade)
        }
    };
    let mut raws: Vec<Raw<'_>> = Vec::new();
    let plain = |rule: RuleId, breaks: bool, detail: String, witness: Option<Value>| Issue {
        rule,
        breaks,
        path: Vec::new(),
        witness,
        detail,
        location: None,
        allows: Vec::new(),
        opaque: false,
    };

    let format_changed = op.format != np.format;
    if format_changed {
        let mut issue = plain(
            RuleId::ProtocolFormatChanged,
            true,
            format!(
                "the protocol is encoded as {} by the old release and as {} by the new one",
                op.format, np.format
            ),
            news.first().and_then(|m| {
                Sampler::new(SideRef {
                    snap: new,
                    side: Side::New,
                })
                .value(&root(m), false)
            }),
        );
        issue.location = Some((np.location.clone(), Side::New));
        raws.push(Raw {
            issue,
            direction: Some(if records_only {
                Direction::NewReadsOld
            } else {
                Direction::OldReadsNew
            }),
            needed: true,
            old: None,
            new: None,
        });
    }

    // Match messages: same topic and kind (and name), then same topic and kind, then same topic and
    // name (kind changed), then same name and kind (topic renamed).
    let mut old_taken = vec![false; olds.len()];
    let mut new_taken = vec![false; news.len()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let passes: [MatchKey; 4] = [
        |m| (Some(&m.topic), Some(m.kind), Some(&m.name)),
        |m| (Some(&m.topic), Some(m.kind), None),
        |m| (Some(&m.topic), None, Some(&m.name)),
        |m| (None, Some(m.kind), Some(&m.name)),
    ];
    for key in passes {
        // Each old message takes the first new one not yet taken with the same key: a queue per key.
        let mut untaken: HashMap<_, VecDeque<usize>> = HashMap::new();
        for (j, n) in news.iter().enumerate() {
            if !new_taken[j] {
                untaken.entry(key(n)).or_default().push_back(j);
            }
        }
        for (i, o) in olds.iter().enumerate() {
            if old_taken[i] {
                continue;
            }
            if let Some(j) = untaken.get_mut(&key(o)).and_then(VecDeque::pop_front) {
                old_taken[i] = true;
                new_taken[j] = true;
                pairs.push((i, j));
            }
        }
    }

    // A response whose request no longer gets one is reported once, as `response_removed` on the
    // request, not again as a removed message.
    let dropped_responses: Vec<&str> = pairs
        .iter()
        .filter(|&&(i, j)| {
            olds[i].response != ResponseMode::None && news[j].response == ResponseMode::None
        })
        .filter_map(|&(i, _)| olds[i].response_type.as_deref())
        .collect();
    for (i, o) in olds.iter().enumerate() {
        if old_taken[i] || dropped_responses.contains(&o.rust_path.as_str()) {
            continue;
        }
        let dirs = needed_for(o.kind);
        let direction = if dirs.contains(&Direction::NewReadsOld) {
            Direction::NewReadsOld
        } else {
            Direction::OldReadsNew
        };
        let witness = Sampler::new(SideRef {
            snap: old,
            side: Side::Old,
        })
        .value(&root(o), false);
        let mut issue = plain(
            RuleId::MessageRemoved,
            true,
            format!(
                "the {} `{}` on `{}` was removed; the old release still {} it",
                o.kind,
                o.name,
                o.topic,
                if direction == Direction::NewReadsOld {
                    "writes"
                } else {
                    "reads"
                }
            ),
            witness,
        );
        issue.location = Some((o.location.clone(), Side::Old));
        raws.push(Raw {
            issue,
            direction: Some(direction),
            needed: true,
            old: Some(o),
            new: None,
        });
    }
    for (j, n) in news.iter().enumerate() {
        if new_taken[j] {
            continue;
        }
        let mut issue = plain(
            RuleId::MessageAdded,
            false,
            format!("the {} `{}` on `{}` was added", n.kind, n.name, n.topic),
            None,
        );
        issue.location = Some((n.location.clone(), Side::New));
        raws.push(Raw {
            issue,
            direction: None,
            needed: true,
            old: None,
            new: Some(n),
        });
    }

    for (i, j) in pairs {
        let (o, n) = (olds[i], news[j]);
        let needed = needed_for(n.kind);
        let first = needed.first().copied().unwrap_or(Direction::OldReadsNew);
        let mut message_level = |rule: RuleId, direction: Direction, detail: String| {
            let (snap, side, m) = match direction {
                Direction::OldReadsNew => (new, Side::New, n),
                Direction::NewReadsOld => (old, Side::Old, o),
            };
            let witness = Sampler::new(SideRef { snap, side }).value(&root(m), false);
            let mut issue = plain(rule, true, detail, witness);
            issue.location = Some((n.location.clone(), Side::New));
            raws.push(Raw {
                issue,
                direction: Some(direction),
                needed: needed.contains(&direction),
                old: Some(o),
                new: Some(n),
            });
        };
        if o.topic != n.topic {
            message_level(
                RuleId::TopicRenamed,
                first,
                format!(
                    "`{}` moved from the topic `{}` to `{}`",
                    n.name, o.topic, n.topic
                ),
            );
        }
        if o.kind != n.kind {
            message_level(
                RuleId::KindChanged,
                first,
                format!(
                    "`{}` changed from {} {} to {} {}",
                    n.name,
                    article(o.kind),
                    o.kind,
                    article(n.kind),
                    n.kind
                ),
            );
        }
        if o.kind == Kind::Request && n.kind == Kind::Request && o.response != n.response {
            match (o.response, n.response) {
                (ResponseMode::None, _) => message_level(
                    RuleId::ResponseAdded,
                    Direction::OldReadsNew,
                    format!(
                        "`{}` now expects a response that old servers never send",
                        n.name
                    ),
                ),
                (_, ResponseMode::None) => message_level(
                    RuleId::ResponseRemoved,
                    Direction::NewReadsOld,
                    format!(
                        "`{}` no longer gets a response, which old clients wait for",
                        n.name
                    ),
                ),
                _ => message_level(
                    RuleId::ResponseChanged,
                    first,
                    format!(
                        "`{}` switched from {} to {} responses",
                        n.name,
                        mode_text(o.response),
                        mode_text(n.response)
                    ),
                ),
            }
        }
        if format_changed {
            continue;
        }
        let run: &[Direction] = if records_only { NEW_READS_OLD } else { BOTH };
        for &direction in run {
            let (ws, rs, wm, rm) = match direction {
                Direction::OldReadsNew => (
                    SideRef {
                        snap: new,
                        side: Side::New,
                    },
                    SideRef {
                        snap: old,
                        side: Side::Old,
                    },
                    n,
                    o,
                ),
                Direction::NewReadsOld => (
                    SideRef {
                        snap: old,
                        side: Side::Old,
                    },
                    SideRef {
                        snap: new,
                        side: Side::New,
                    },
                    o,
                    n,
                ),
            };
            let mut walk = Walk::new(ws, rs, direction, np.format);
            for issue in walk.cmp(&root(wm), &root(rm)) {
                raws.push(Raw {
                    direction: issue.breaks.then_some(direction),
                    needed: needed.contains(&direction),
                    issue,
                    old: Some(o),
                    new: Some(n),
                });
            }
        }
    }

    finish(raws, protocol, against, np.format)
}

fn root(m: &MessageDecl) -> Ty {
    Ty::Named {
        path: m.rust_path.clone(),
        args: Vec::new(),
    }
}

fn article(k: Kind) -> &'static str {
    match k {
        Kind::Event => "an",
        _ => "a",
    }
}

fn mode_text(m: ResponseMode) -> &'static str {
    match m {
        ResponseMode::None => "no",
        ResponseMode::Single => "single",
        ResponseMode::Stream => "streamed",
    }
}

fn allowed_by<'a>(rule: RuleId, allows: impl Iterator<Item = &'a AllowDecl>) -> Option<String> {
    let mut found = None;
    for a in allows {
        if a.rules.iter().any(|r| r == rule.as_str()) {
            found = Some(a.reason.clone());
            break;
        }
    }
    found
}

/// Turns raw issues into sorted, deduplicated findings.
fn finish(raws: Vec<Raw<'_>>, protocol: &str, against: &str, format: Format) -> Vec<Finding> {
    let mut findings: Vec<(Finding, bool, bool)> = Vec::new();
    for raw in raws {
        let Raw {
            issue,
            direction,
            needed,
            old,
            new,
        } = raw;
        let major = issue.breaks && needed;
        let level = if major { Level::Major } else { Level::Minor };
        let msg = new.or(old);
        let message_allows = old
            .iter()
            .chain(new.iter())
            .filter_map(|m| m.allow.as_ref());
        let reason = allowed_by(issue.rule, issue.allows.iter().chain(message_allows));
        let mut text = issue.detail.clone();
        if issue.breaks && !needed {
            if let (Some(d), Some(m)) = (direction, msg) {
                text.push_str(&format!(
                    " (compatible under the declared upgrade order: {} {} is never read {})",
                    article(m.kind),
                    m.kind,
                    match d {
                        Direction::OldReadsNew => "by an old release from a new one",
                        Direction::NewReadsOld => "by a new release from an old one",
                    }
                ));
            }
        } else if issue.breaks && !format.is_self_describing() && issue.witness.is_some() {
            text.push_str(&format!(
                " (witness shown as JSON; on the wire it is {format})"
            ));
        }
        let (location, side) = issue.location.clone().unwrap_or_else(|| match (new, old) {
            (Some(n), _) => (n.location.clone(), Side::New),
            (None, Some(o)) => (o.location.clone(), Side::Old),
            (None, None) => (Location::default(), Side::New),
        });
        let finding = Finding {
            rule: issue.rule,
            level,
            allowed: reason.is_some(),
            allow_reason: reason,
            message: text,
            protocol: protocol.to_owned(),
            message_type: msg.map(|m| m.name.clone()).unwrap_or_default(),
            topic: msg.map(|m| m.topic.clone()).unwrap_or_default(),
            field: if issue.path.is_empty() {
                None
            } else {
                Some(issue.path.join("."))
            },
            direction: if issue.breaks { direction } else { None },
            against: against.to_owned(),
            location,
            side,
            anchor: None,
            witness: if major { issue.witness } else { None },
            known: false,
        };
        findings.push((finding, issue.breaks, issue.opaque));
    }
    // Per message and field: a break in a needed direction hides the minor changes at the same place;
    // a break in an unneeded direction hides the plain changes.
    let mut place_rank: std::collections::BTreeMap<(String, String, Option<String>), u8> =
        std::collections::BTreeMap::new();
    for (f, breaks, _) in &findings {
        let rank = match (f.level, breaks) {
            (Level::Major, _) => 2,
            (_, true) => 1,
            _ => 0,
        };
        let e = place_rank
            .entry((f.topic.clone(), f.message_type.clone(), f.field.clone()))
            .or_insert(0);
        *e = (*e).max(rank);
    }
    findings.retain(|(f, breaks, _)| {
        let rank = match (f.level, breaks) {
            (Level::Major, _) => 2,
            (_, true) => 1,
            _ => 0,
        };
        let best = place_rank
            .get(&(f.topic.clone(), f.message_type.clone(), f.field.clone()))
            .copied()
            .unwrap_or(0);
        rank >= best
    });
    findings.sort_by(|(a, ..), (b, ..)| {
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
    });
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (f, _, opaque) in findings {
        let mut key = f.dedup_key();
        if opaque {
            key.4 = None;
        }
        if seen.insert(key) {
            out.push(f);
        }
    }
    out
}
