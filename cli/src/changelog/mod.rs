//! `wirecheck changelog --since TAG`: per release, per protocol, the wire changes in words a release
//! manager pastes into release notes, grouped by level, with the bump they require and what operators
//! must do to roll the release out (in any order, servers first, clients first, or all together).
//!
//! [`compute`] is pure over snapshots: each release is compared with the one before it exactly as a cell
//! of the [matrix](crate::matrix) is (`matrix::pair_findings`: every message in each direction
//! its kind needs, the `wirecheck.toml` allows applied), and the rollout follows from which directions
//! the counted breaks are in ([`compat::directions`]: the contract's table of what each upgrade order
//! needs).

use crate::compat;
use crate::config::Config;
use crate::findings::{Direction, Finding, Level};
use crate::matrix::{Revision, pair_findings};
use crate::model::Snapshot;
use crate::{Kind, Upgrade};

/// The changelog's result types, defined with the renderers that read them.
pub use wirecheck_report::changelog::{
    Changelog, ProtocolEvent, ProtocolNotes, ReleaseNotes, Rollout,
};

/// The changelog of `revisions` (oldest first: the release it starts after, then every later one, the
/// working tree last), with the allows of `config` applied as `check` and `matrix` apply them. The working
/// tree is listed only when it changes the wire of the last release. Pure: no git, no files.
pub fn compute(revisions: &[(Revision, Snapshot)], config: &Config) -> Changelog {
    let since = revisions.first().map(|(r, _)| r.label.clone());
    let mut releases: Vec<ReleaseNotes> = revisions
        .windows(2)
        .map(|pair| release_notes(&pair[0], &pair[1], config))
        .collect();
    if releases
        .last()
        .is_some_and(|r| r.commit.is_none() && r.protocols.is_empty())
    {
        releases.pop();
    }
    releases.reverse();
    Changelog {
        since: since.unwrap_or_default(),
        releases,
    }
}

/// The notes of `newer` against `older`: each protocol either declares, that changed.
fn release_notes(
    older: &(Revision, Snapshot),
    newer: &(Revision, Snapshot),
    config: &Config,
) -> ReleaseNotes {
    let mut names: Vec<&str> = (older.1.protocols.iter())
        .chain(&newer.1.protocols)
        .map(|p| p.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    ReleaseNotes {
        release: newer.0.label.clone(),
        commit: newer.0.commit.clone(),
        previous: older.0.label.clone(),
        protocols: names
            .into_iter()
            .filter_map(|name| protocol_notes(older, newer, name, config))
            .collect(),
    }
}

/// The notes of the protocol `name` between `older` and `newer`; `None` when its wire did not change.
fn protocol_notes(
    older: &(Revision, Snapshot),
    newer: &(Revision, Snapshot),
    name: &str,
    config: &Config,
) -> Option<ProtocolNotes> {
    let (old, new) = (older.1.protocol(name), newer.1.protocol(name));
    let (event, findings) = match (old, new) {
        (Some(_), Some(_)) => {
            let findings = pair_findings((&older.0, &older.1), &newer.1, name, config);
            (ProtocolEvent::Changed, crate::findings::by_cause(findings))
        }
        (None, Some(_)) => (ProtocolEvent::Added, Vec::new()),
        (Some(_), None) => (ProtocolEvent::Removed, Vec::new()),
        (None, None) => return None,
    };
    let visible = |f: &&Finding| f.level != Level::None;
    if event == ProtocolEvent::Changed && !findings.iter().any(|f| visible(&f)) {
        return None;
    }
    let (old_version, new_version) = (
        old.map(|p| p.version.clone()),
        new.map(|p| p.version.clone()),
    );
    let mut requirement =
        crate::policy::requirement(old_version.as_ref(), new_version.as_ref(), &findings);
    if event == ProtocolEvent::Removed {
        requirement.bump = Level::Major;
    }
    let upgrade = new.map(|p| p.upgrade);
    let kinds = Kinds {
        older: &older.1,
        newer: &newer.1,
        name,
    };
    let rollout = rollout(event, upgrade, &findings, &kinds);
    let (breaking, rest): (Vec<Finding>, Vec<Finding>) =
        (findings.into_iter().filter(|f| visible(&f))).partition(|f| f.level == Level::Major);
    let (allowed, breaking) = breaking.into_iter().partition(|f| f.allowed);
    Some(ProtocolNotes {
        name: name.to_owned(),
        event,
        old_version,
        new_version,
        required_bump: requirement.bump,
        required_version: requirement.version,
        declared_ok: (event == ProtocolEvent::Changed).then_some(requirement.met),
        upgrade,
        rollout,
        breaking,
        allowed,
        compatible: rest,
    })
}

/// The kinds of a protocol's messages in two revisions, by topic and type name.
struct Kinds<'s> {
    older: &'s Snapshot,
    newer: &'s Snapshot,
    name: &'s str,
}

impl Kinds<'_> {
    /// The kind of the message of `topic` named `message_type` (the newer revision's, else the older's).
    fn of(&self, topic: &str, message_type: &str) -> Option<Kind> {
        [self.newer, self.older].into_iter().find_map(|model| {
            model
                .messages_of(self.name)
                .find(|m| m.topic == topic && m.name == message_type)
                .map(|m| m.kind)
        })
    }

    /// The kinds of every message `finding` is reached from; `None` when one is unknown.
    fn of_finding(&self, finding: &Finding) -> Option<Vec<Kind>> {
        let own = std::iter::once((finding.topic.as_str(), finding.message_type.as_str()));
        let reached = finding
            .reached_by
            .iter()
            .map(|r| (r.topic.as_str(), r.message_type.as_str()));
        own.chain(reached).map(|(t, m)| self.of(t, m)).collect()
    }
}

/// How to roll out a protocol whose counted breaks are among `findings`, under the order `upgrade`
/// the release declares: that order when nothing counted breaks; else, when a stored record no longer
/// reads, no order; else an order in which no counted break is in a direction that order needs (only
/// from `any-order`, whose check needs both); else all together.
fn rollout(
    event: ProtocolEvent,
    upgrade: Option<Upgrade>,
    findings: &[Finding],
    kinds: &Kinds<'_>,
) -> Rollout {
    let (upgrade, ProtocolEvent::Changed) = (upgrade, event) else {
        return match event {
            ProtocolEvent::Added => Rollout::NewProtocol,
            _ => Rollout::RestartTogether,
        };
    };
    let upgrade = upgrade.unwrap_or_default();
    let breaks: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.level == Level::Major && !f.allowed)
        .collect();
    if breaks.is_empty() {
        return order_rollout(upgrade);
    }
    if breaks.iter().any(|f| unreadable_record(f, kinds)) {
        return Rollout::RecordsUnreadable;
    }
    if upgrade != Upgrade::AnyOrder {
        return Rollout::RestartTogether;
    }
    [Upgrade::ServerFirst, Upgrade::ClientFirst]
        .into_iter()
        .find(|&order| breaks.iter().all(|f| avoided_by(f, order, kinds)))
        .map_or(Rollout::RestartTogether, order_rollout)
}

/// Whether the break `finding` leaves the new release unable to read a record the old one stored.
fn unreadable_record(finding: &Finding, kinds: &Kinds<'_>) -> bool {
    finding.direction == Some(Direction::NewReadsOld)
        && kinds
            .of_finding(finding)
            .is_some_and(|found| found.contains(&Kind::Record))
}

/// The rollout an upgrade order asks for.
fn order_rollout(upgrade: Upgrade) -> Rollout {
    match upgrade {
        Upgrade::AnyOrder => Rollout::AnyOrder,
        Upgrade::ServerFirst => Rollout::ServersFirst,
        Upgrade::ClientFirst => Rollout::ClientsFirst,
    }
}

/// Whether the break `finding` is in a direction `order` never needs, for every message it is reached
/// from (a break without a direction, or of a message of unknown kind, is avoided by no order).
fn avoided_by(finding: &Finding, order: Upgrade, kinds: &Kinds<'_>) -> bool {
    let Some(direction): Option<Direction> = finding.direction else {
        return false;
    };
    kinds.of_finding(finding).is_some_and(|found| {
        found
            .into_iter()
            .all(|kind| !compat::directions(kind, order).contains(&direction))
    })
}

#[cfg(test)]
mod tests;
