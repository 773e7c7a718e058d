//! The comparison step of a check: each protocol of the working tree against the baseline, and against the
//! older releases that must still interoperate with it. Pure: no git, no files.

use std::collections::BTreeSet;

use crate::compat::{self, Scope};
use crate::extract::Keep;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{Location, ProtocolDecl, Snapshot};
use crate::outcome::{Baseline, ProtocolChanges};
use crate::rules::RuleId;

/// How much of an older release's protocol (`old`) is compared with the working tree's (`new`): every
/// message for releases from the protocol's `min_compatible` on, else only its records (which are still
/// read back).
fn scope(new: &ProtocolDecl, old: &ProtocolDecl) -> Scope {
    match &new.min_compatible {
        Some(min) if old.version >= *min => Scope::Full,
        _ => Scope::RecordsOnly,
    }
}

/// What a check reads of an older release's protocol, given the working tree's model: what [`scope`]
/// compares of it, and nothing of a protocol the working tree no longer declares.
pub(super) fn older_release_keep(current: &Snapshot) -> impl Fn(&ProtocolDecl) -> Keep {
    move |old| match current.protocol(&old.name) {
        None => Keep::Nothing,
        Some(new) => match scope(new, old) {
            Scope::Full => Keep::All,
            Scope::RecordsOnly => Keep::Records,
        },
    }
}

/// Every protocol the baseline or the working tree declares, by name, with its findings: against the
/// baseline, then the major ones each older release (oldest first) adds.
pub(super) fn protocols(
    baseline: &Baseline,
    base: &Snapshot,
    older: &[(String, Snapshot)],
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    let names: BTreeSet<&str> = base
        .protocols
        .iter()
        .chain(current.protocols.iter())
        .map(|p| p.name.as_str())
        .collect();
    names
        .into_iter()
        .map(|name| {
            let mut findings = against_baseline(name, &baseline.rev, base, current);
            anchor(&mut findings, base, current);
            if let Some(new) = current.protocol(name) {
                add_older_releases(&mut findings, new, base, older, current);
            }
            ProtocolChanges {
                name: name.to_owned(),
                old_version: base.protocol(name).map(|p| p.version.clone()),
                new_version: current.protocol(name).map(|p| p.version.clone()),
                findings,
            }
        })
        .collect()
}

/// Points each finding about something removed (its location is in `old`) at its surviving parent in the
/// working tree `current` ([`Finding::anchor_in`]).
fn anchor(findings: &mut [Finding], old: &Snapshot, current: &Snapshot) {
    for finding in findings {
        finding.anchor = finding.anchor_in(old, current);
    }
}

/// The findings of the protocol `name` between the baseline (named `rev`) and the working tree.
fn against_baseline(name: &str, rev: &str, base: &Snapshot, current: &Snapshot) -> Vec<Finding> {
    match (base.protocol(name), current.protocol(name)) {
        (Some(_), Some(_)) => compat::compare_protocol(base, current, name, rev, Scope::Full),
        (Some(old), None) => vec![protocol_removed(name, old.location.clone(), rev)],
        (None, _) => Vec::new(),
    }
}

/// Adds to `findings` the major findings between each older release that declares the protocol `new` and
/// the working tree, each once (the first release that has it reports it). A finding the older release
/// also has against the baseline is known history: it shipped before and does not count again.
fn add_older_releases(
    findings: &mut Vec<Finding>,
    new: &ProtocolDecl,
    base: &Snapshot,
    older: &[(String, Snapshot)],
    current: &Snapshot,
) {
    let name = new.name.as_str();
    let mut seen: BTreeSet<_> = findings.iter().map(Finding::dedup_key).collect();
    for (tag, snapshot) in older {
        let Some(old) = snapshot.protocol(name) else {
            continue;
        };
        let scope = scope(new, old);
        let against_new = compat::compare_protocol(snapshot, current, name, tag, scope);
        let against_base: BTreeSet<_> = if base.protocol(name).is_some() {
            compat::compare_protocol(snapshot, base, name, tag, scope)
                .iter()
                .map(Finding::dedup_key)
                .collect()
        } else {
            BTreeSet::new()
        };
        for mut finding in against_new {
            if finding.level != Level::Major || !seen.insert(finding.dedup_key()) {
                continue;
            }
            finding.known = against_base.contains(&finding.dedup_key());
            finding.anchor = finding.anchor_in(snapshot, current);
            findings.push(finding);
        }
    }
}

/// The extraction's notes, the working tree's then the baseline's (prefixed with its name), as
/// `file:line:column: message`.
pub(super) fn notes(baseline: &Baseline, base: &Snapshot, current: &Snapshot) -> Vec<String> {
    let current_notes = current.notes.iter().map(|n| {
        format!(
            "{}:{}:{}: {}",
            n.location.file, n.location.line, n.location.column, n.message
        )
    });
    let base_notes = base.notes.iter().map(|n| {
        format!(
            "{}:{}:{}:{}: {}",
            baseline.rev, n.location.file, n.location.line, n.location.column, n.message
        )
    });
    current_notes.chain(base_notes).collect()
}

/// The finding for a protocol the baseline (named `against`) declares at `location` and the working tree
/// no longer does.
fn protocol_removed(name: &str, location: Location, against: &str) -> Finding {
    Finding {
        rule: RuleId::ProtocolRemoved,
        level: Level::Major,
        allowed: false,
        allow_reason: None,
        message: format!(
            "protocol `{name}` was removed: peers of {against} that speak it find no one to talk to"
        ),
        protocol: name.to_owned(),
        message_type: String::new(),
        topic: String::new(),
        field: None,
        wire_path: None,
        direction: Some(Direction::OldReadsNew),
        against: against.to_owned(),
        location,
        side: Side::Old,
        anchor: None,
        witness: None,
        known: false,
    }
}
