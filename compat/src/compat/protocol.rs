//! The protocol-level pass: pairs the old release's messages with the new release's, reports changes of
//! a message as a whole (format, removed, added, topic, kind, response), and walks each pair's payload
//! types in each direction.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::assemble::Candidate;
use super::issue::Issue;
use super::itself::self_rejection;
use super::sample::Sampler;
use super::shape::SideRef;
use super::walk::Walk;
use super::wording::{article, response_mode_text};
use super::{BOTH, NEW_READS_OLD, Scope, directions};
use crate::findings::{Direction, Side};
use crate::model::{MessageDecl, ModelView, ProtocolDecl, Ty};
use crate::rules::RuleId;
use crate::{Kind, ResponseMode};

/// The root type of a message.
pub fn root(message: &MessageDecl) -> Ty {
    Ty::Named {
        path: message.rust_path.clone(),
        args: Vec::new(),
    }
}

/// A rule for pairing an old message with a new one: messages pair when their keys are equal (a `None`
/// part is not compared).
type MatchKey =
    for<'m> fn(&'m MessageDecl) -> (Option<&'m String>, Option<Kind>, Option<&'m String>);

/// The pairing passes, in order: same topic and kind (and name), then same topic and kind, then same
/// topic and name (kind changed), then same name and kind (topic renamed).
const PAIRING_PASSES: [MatchKey; 4] = [
    |m| (Some(&m.topic), Some(m.kind), Some(&m.name)),
    |m| (Some(&m.topic), Some(m.kind), None),
    |m| (Some(&m.topic), None, Some(&m.name)),
    |m| (None, Some(m.kind), Some(&m.name)),
];

/// How the old messages and the new ones pair up (indices into each list).
struct MessagePairing {
    pairs: Vec<(usize, usize)>,
    old_paired: Vec<bool>,
    new_paired: Vec<bool>,
}

fn pair_messages(olds: &[&MessageDecl], news: &[&MessageDecl]) -> MessagePairing {
    let mut pairing = MessagePairing {
        pairs: Vec::new(),
        old_paired: vec![false; olds.len()],
        new_paired: vec![false; news.len()],
    };
    for key in PAIRING_PASSES {
        // Each old message takes the first new one not yet taken with the same key: a queue per key.
        let mut untaken: FxHashMap<_, VecDeque<usize>> = FxHashMap::default();
        for (j, message) in news.iter().enumerate() {
            if !pairing.new_paired[j] {
                untaken.entry(key(message)).or_default().push_back(j);
            }
        }
        for (i, message) in olds.iter().enumerate() {
            if pairing.old_paired[i] {
                continue;
            }
            if let Some(j) = untaken.get_mut(&key(message)).and_then(VecDeque::pop_front) {
                pairing.old_paired[i] = true;
                pairing.new_paired[j] = true;
                pairing.pairs.push((i, j));
            }
        }
    }
    pairing
}

/// The two releases of one protocol being compared.
pub struct Releases<'s> {
    pub old: ModelView<'s>,
    pub new: ModelView<'s>,
    pub old_protocol: &'s ProtocolDecl,
    pub new_protocol: &'s ProtocolDecl,
}

/// The pass over one protocol: what it compares and what it found so far.
struct Pass<'s> {
    releases: Releases<'s>,
    records_only: bool,
    format_changed: bool,
    out: Vec<Candidate<'s>>,
    /// One walk per direction, shared by the protocol's messages: what one message's walk compared
    /// (its memo of type pairs, the types proven the same on the wire) another reaching the same types
    /// does not compare again. A pair's result is the same whichever message reaches it.
    walks: Vec<(Direction, Walk<'s>)>,
}

/// The candidates of findings between two releases of the protocol `name`.
pub fn candidates<'s>(releases: Releases<'s>, name: &'s str, scope: Scope) -> Vec<Candidate<'s>> {
    let records_only = scope == Scope::RecordsOnly;
    let keep = |m: &&MessageDecl| !records_only || m.kind == Kind::Record;
    let olds: Vec<&MessageDecl> = releases.old.messages_of(name).filter(keep).collect();
    let news: Vec<&MessageDecl> = releases.new.messages_of(name).filter(keep).collect();
    let mut pass = Pass {
        format_changed: releases.old_protocol.format != releases.new_protocol.format,
        releases,
        records_only,
        out: Vec::new(),
        walks: Vec::new(),
    };
    if pass.format_changed {
        pass.format_changed_candidate(news.first().copied());
    }
    if !records_only {
        pass.upgrade_changed_candidate(&news);
    }
    let pairing = pair_messages(&olds, &news);
    pass.removed_messages(&olds, &news, &pairing);
    for (message, _) in news.iter().zip(&pairing.new_paired).filter(|(_, p)| !**p) {
        pass.message_added(message);
        if !pass.format_changed && !records_only {
            pass.self_rejected(None, message);
        }
    }
    for &(i, j) in &pairing.pairs {
        pass.message_changes(olds[i], news[j]);
        if !pass.format_changed {
            pass.payload_walks(olds[i], news[j]);
            if !records_only {
                pass.self_rejected(Some(olds[i]), news[j]);
            }
        }
    }
    pass.out
}

impl<'s> Pass<'s> {
    /// The directions the contract needs for a message of `kind`.
    fn needed_for(&self, kind: Kind) -> &'static [Direction] {
        if self.records_only {
            NEW_READS_OLD
        } else {
            directions(kind, self.releases.new_protocol.upgrade)
        }
    }

    fn side(&self, side: Side) -> SideRef<'s> {
        let model = match side {
            Side::Old => self.releases.old,
            Side::New => self.releases.new,
        };
        SideRef {
            model,
            side,
            format: self.releases.new_protocol.format,
        }
    }

    /// The walk of `direction`, made on first use.
    fn walk(&mut self, direction: Direction) -> &mut Walk<'s> {
        let at = match self.walks.iter().position(|(d, _)| *d == direction) {
            Some(at) => at,
            None => {
                let (writer, reader) = writer_and_reader(direction);
                let walk = Walk::new(
                    self.side(writer),
                    self.side(reader),
                    direction,
                    self.releases.new_protocol.format,
                );
                self.walks.push((direction, walk));
                self.walks.len() - 1
            }
        };
        &mut self.walks[at].1
    }

    /// A minimal payload of `message` as `side` writes it.
    fn sample(&self, side: Side, message: &MessageDecl) -> Option<serde_json::Value> {
        Sampler::new(self.side(side)).value(&root(message), false)
    }

    fn push(&mut self, candidate: Candidate<'s>) {
        self.out.push(candidate);
    }

    /// The protocol's format changed: nothing written by one release decodes in the other.
    fn format_changed_candidate(&mut self, first_new: Option<&'s MessageDecl>) {
        let (old_format, new_format) = (
            self.releases.old_protocol.format,
            self.releases.new_protocol.format,
        );
        let witness = first_new.and_then(|m| self.sample(Side::New, m));
        let mut issue = Issue::breaking(
            RuleId::ProtocolFormatChanged,
            format!(
                "the protocol is encoded as {old_format} by the old release and as {new_format} by the new one"
            ),
            witness,
        );
        issue.location = Some((self.releases.new_protocol.location.clone(), Side::New));
        let direction = if self.records_only {
            Direction::NewReadsOld
        } else {
            Direction::OldReadsNew
        };
        self.push(Candidate {
            issue,
            direction: Some(direction),
            needed: true,
            old: None,
            new: None,
        });
    }

    /// The protocol's upgrade order changed: major when the new order drops a direction the old one
    /// needed for one of the new release's messages (a pairing operators relied on is neither proven nor
    /// accepted any more, and a break in it would pass unseen), else minor.
    fn upgrade_changed_candidate(&mut self, news: &[&'s MessageDecl]) {
        let (old_order, new_order) = (
            self.releases.old_protocol.upgrade,
            self.releases.new_protocol.upgrade,
        );
        if old_order == new_order {
            return;
        }
        let dropped = news.iter().find_map(|m| {
            let now = directions(m.kind, new_order);
            let lost = directions(m.kind, old_order)
                .iter()
                .find(|d| !now.contains(d))?;
            Some((*m, *lost))
        });
        let what = format!("the upgrade order changed from `{old_order}` to `{new_order}`");
        let mut issue = match dropped {
            Some((message, direction)) => Issue::breaking(
                RuleId::UpgradeOrderChanged,
                format!(
                    "{what}: the {} `{}` is no longer checked in the direction {direction}, so a pairing \
                     `{old_order}` let operators roll is neither proven nor accepted by the handshake any more",
                    message.kind, message.name
                ),
                None,
            ),
            None => Issue::change(
                RuleId::UpgradeOrderChanged,
                format!(
                    "{what}: every message is still checked in every direction the old order needed"
                ),
            ),
        };
        issue.location = Some((self.releases.new_protocol.location.clone(), Side::New));
        self.push(Candidate {
            direction: dropped.map(|(_, direction)| direction),
            needed: true,
            issue,
            old: None,
            new: None,
        });
    }

    /// Old messages without a new one. A response whose request no longer gets one is reported once, as
    /// `response_removed` on the request, not again as a removed message.
    fn removed_messages(
        &mut self,
        olds: &[&'s MessageDecl],
        news: &[&'s MessageDecl],
        pairing: &MessagePairing,
    ) {
        let dropped_responses: Vec<&str> = pairing
            .pairs
            .iter()
            .filter(|&&(i, j)| {
                olds[i].response != ResponseMode::None && news[j].response == ResponseMode::None
            })
            .filter_map(|&(i, _)| olds[i].response_type.as_deref())
            .collect();
        for (message, _) in olds.iter().zip(&pairing.old_paired).filter(|(_, p)| !**p) {
            if !dropped_responses.contains(&message.rust_path.as_str()) {
                self.message_removed(message);
            }
        }
    }

    fn message_removed(&mut self, message: &'s MessageDecl) {
        let direction = if self
            .needed_for(message.kind)
            .contains(&Direction::NewReadsOld)
        {
            Direction::NewReadsOld
        } else {
            Direction::OldReadsNew
        };
        let witness = self.sample(Side::Old, message);
        let mut issue = Issue::breaking(
            RuleId::MessageRemoved,
            format!(
                "the {} `{}` on `{}` was removed; the old release still {} it",
                message.kind,
                message.name,
                message.topic,
                if direction == Direction::NewReadsOld {
                    "writes"
                } else {
                    "reads"
                }
            ),
            witness,
        );
        issue.location = Some((message.location.clone(), Side::Old));
        self.push(Candidate {
            issue,
            direction: Some(direction),
            needed: true,
            old: Some(message),
            new: None,
        });
    }

    fn message_added(&mut self, message: &'s MessageDecl) {
        let mut issue = Issue::change(
            RuleId::MessageAdded,
            format!(
                "the {} `{}` on `{}` was added",
                message.kind, message.name, message.topic
            ),
        );
        issue.location = Some((message.location.clone(), Side::New));
        self.push(Candidate {
            issue,
            direction: None,
            needed: true,
            old: None,
            new: Some(message),
        });
        self.added_message_undecodable(message);
    }

    /// In a positional format, a message the new release adds that it cannot read back itself (a shape
    /// of [`positional_undecodable`](RuleId::PositionalUndecodable) anywhere in it) is broken for every
    /// peer, its own version included: a break waiting for its first use, whatever the upgrade order.
    fn added_message_undecodable(&mut self, message: &'s MessageDecl) {
        if self.releases.new_protocol.format.is_self_describing() {
            return;
        }
        let Some(mut issue) = self.walk(Direction::NewReadsOld).added_undecodable(
            &format!("the {} `{}`", message.kind, message.name),
            &root(message),
            None,
        ) else {
            return;
        };
        if issue.location.is_none() {
            issue.location = Some((message.location.clone(), Side::New));
        }
        self.push(Candidate {
            issue,
            direction: Some(Direction::NewReadsOld),
            needed: true,
            old: None,
            new: Some(message),
        });
    }

    /// Changes of a paired message as a whole: topic, kind, response.
    fn message_changes(&mut self, old: &'s MessageDecl, new: &'s MessageDecl) {
        let first = self
            .needed_for(new.kind)
            .first()
            .copied()
            .unwrap_or(Direction::OldReadsNew);
        if old.topic != new.topic {
            let detail = format!(
                "`{}` moved from the topic `{}` to `{}`",
                new.name, old.topic, new.topic
            );
            self.message_break(old, new, RuleId::TopicRenamed, first, detail);
        }
        if old.kind != new.kind {
            let detail = format!(
                "`{}` changed from {} {} to {} {}",
                new.name,
                article(old.kind),
                old.kind,
                article(new.kind),
                new.kind
            );
            self.message_break(old, new, RuleId::KindChanged, first, detail);
        }
        if let Some((rule, direction, detail)) = response_change(old, new, first) {
            self.message_break(old, new, rule, direction, detail);
        }
    }

    /// A break of a paired message as a whole in `direction`, with the writer's minimal payload.
    fn message_break(
        &mut self,
        old: &'s MessageDecl,
        new: &'s MessageDecl,
        rule: RuleId,
        direction: Direction,
        detail: String,
    ) {
        let witness = match direction {
            Direction::OldReadsNew => self.sample(Side::New, new),
            Direction::NewReadsOld => self.sample(Side::Old, old),
        };
        let issue = Issue::breaking(rule, detail, witness)
            .at(Vec::new(), Some((new.location.clone(), Side::New)));
        let needed = self.needed_for(new.kind).contains(&direction);
        self.push(Candidate {
            issue,
            direction: Some(direction),
            needed,
            old: Some(old),
            new: Some(new),
        });
    }

    /// The new release of a message rejects a payload it writes itself, where the old one (if any) read
    /// its own: a break for every peer, in every upgrade order (no direction: one release both writes
    /// and reads).
    fn self_rejected(&mut self, old: Option<&'s MessageDecl>, new: &'s MessageDecl) {
        // The same on the wire as the old release's: whatever it rejects of itself, the old release
        // rejected too, and no change introduced it (the search is a quarter of a cold check).
        if let Some(old) = old
            && self
                .walk(Direction::OldReadsNew)
                .wire_eq
                .ty(&root(new), &root(old))
        {
            return;
        }
        let Some((witness, why)) = self_rejection(self.side(Side::New), &root(new)) else {
            return;
        };
        if old.is_some_and(|old| self_rejection(self.side(Side::Old), &root(old)).is_some()) {
            return;
        }
        let issue = Issue::breaking(
            RuleId::SelfRejected,
            format!(
                "the new release cannot read what it writes itself: {why}, so every peer fails on it, \
                 its own version included"
            ),
            Some(witness),
        )
        .at(Vec::new(), Some((new.location.clone(), Side::New)));
        self.push(Candidate {
            issue,
            direction: None,
            needed: true,
            old,
            new: Some(new),
        });
    }

    /// Walks the payload types of a pair in each direction checked.
    fn payload_walks(&mut self, old: &'s MessageDecl, new: &'s MessageDecl) {
        let run: &[Direction] = if self.records_only {
            NEW_READS_OLD
        } else {
            BOTH
        };
        let needed = self.needed_for(new.kind);
        for &direction in run {
            let message = |side| match side {
                Side::Old => old,
                Side::New => new,
            };
            let (writer, reader) = writer_and_reader(direction);
            let issues = self
                .walk(direction)
                .compare(&root(message(writer)), &root(message(reader)));
            for issue in issues {
                self.push(Candidate {
                    direction: issue.breaks.then_some(direction),
                    needed: needed.contains(&direction),
                    issue,
                    old: Some(old),
                    new: Some(new),
                });
            }
        }
    }
}

/// The side that writes and the side that reads in `direction`.
fn writer_and_reader(direction: Direction) -> (Side, Side) {
    match direction {
        Direction::OldReadsNew => (Side::New, Side::Old),
        Direction::NewReadsOld => (Side::Old, Side::New),
    }
}

/// A request's response added, removed or switched between single and streamed: the rule, the
/// direction it breaks (`first` when both would) and the sentence.
fn response_change(
    old: &MessageDecl,
    new: &MessageDecl,
    first: Direction,
) -> Option<(RuleId, Direction, String)> {
    if old.kind != Kind::Request || new.kind != Kind::Request || old.response == new.response {
        return None;
    }
    Some(match (old.response, new.response) {
        (ResponseMode::None, _) => (
            RuleId::ResponseAdded,
            Direction::OldReadsNew,
            format!(
                "`{}` now expects a response that old servers never send",
                new.name
            ),
        ),
        (_, ResponseMode::None) => (
            RuleId::ResponseRemoved,
            Direction::NewReadsOld,
            format!(
                "`{}` no longer gets a response, which old clients wait for",
                new.name
            ),
        ),
        _ => (
            RuleId::ResponseChanged,
            first,
            format!(
                "`{}` switched from {} to {} responses",
                new.name,
                response_mode_text(old.response),
                response_mode_text(new.response)
            ),
        ),
    })
}
