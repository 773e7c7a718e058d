//! The comparison step of a check: each protocol of the working tree against the baseline, and against the
//! older releases that must still interoperate with it. Pure (no git, no files) but for the
//! [store](crate::store) that keeps each protocol's comparison.

use std::collections::BTreeSet;

use super::changes::ProtocolChanges;
use super::window::{self, WindowBuilder};
use crate::compat::{self, Scope};
use crate::extract::Keep;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{ExtractNote, Location, ModelView, PartOf, ProtocolDecl, Snapshot};
use crate::outcome::Baseline;
use crate::policy::WindowBreak;
use crate::rules::RuleId;
use crate::store::{Part, ReleaseParts, ReleaseSummary, Store, StoredProtocol};

/// How much of an older release's protocol (`old`) is compared with the working tree's (`new`): every
/// message for releases inside the working tree's window (from its `min_compatible` on, else from the
/// first release of its series: the releases the handshake accepts), else only its records (which are
/// still read back).
fn scope(new: &ProtocolDecl, old: &ProtocolDecl) -> Scope {
    if window::inside(new, old) {
        Scope::Full
    } else {
        Scope::RecordsOnly
    }
}

/// What a check reads of an older release's protocols, given the working tree's protocols: what
/// [`scope`] compares of each, and nothing of a protocol the working tree no longer declares; with a name
/// that determines it (see [`OlderReleaseKeep::name`]).
pub(super) struct OlderReleaseKeep<'c> {
    current: &'c [ProtocolDecl],
    name: String,
}

impl<'c> OlderReleaseKeep<'c> {
    /// The filter of a check whose working tree declares `current`.
    pub(super) fn new(current: &'c [ProtocolDecl]) -> Self {
        let mut names: Vec<String> = current
            .iter()
            .map(|p| format!("{}>={}", p.name, window::minimum_of(p)))
            .collect();
        names.sort();
        OlderReleaseKeep {
            current,
            name: names.join(","),
        }
    }

    /// Which messages of the older release's protocol `old` are read.
    pub(super) fn keep(&self, old: &ProtocolDecl) -> Keep {
        match self.current.iter().find(|p| p.name == old.name) {
            None => Keep::Nothing,
            Some(new) => match scope(new, old) {
                Scope::Full => Keep::All,
                Scope::RecordsOnly => Keep::Records,
            },
        }
    }

    /// The filter's name: each working-tree protocol's name and window, which is all of the
    /// working tree that [`OlderReleaseKeep::keep`] reads, so equal names keep alike (the store names an
    /// unreadable release's error by it).
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

/// One protocol's part of a model, borrowed: what a comparison of the protocol reads there, its
/// declaration, its messages and every type they reach (as [`Snapshot::protocol_part`] keeps them).
#[derive(Hash)]
pub(super) struct PartRef<'s> {
    decl: &'s ProtocolDecl,
    part: PartOf<'s>,
}

impl<'s> PartRef<'s> {
    /// The part of the protocol `name` in `snapshot`, if it declares the protocol.
    pub(super) fn of(snapshot: &'s Snapshot, name: &str) -> Option<PartRef<'s>> {
        Some(PartRef {
            decl: snapshot.protocol(name)?,
            part: snapshot.part_of(name, |_| true),
        })
    }

    /// The part as the comparison reads it: nothing but the declaration, messages and types it holds
    /// (borrowed, not copied into a model of its own).
    fn view(&self) -> ModelView<'_> {
        ModelView::Part(self.decl, &self.part)
    }
}

/// An older release as a comparison reads it: its tag, its declaration of every protocol, and its
/// models, whole or one per protocol (such as the parts the [store](crate::store) gives: of the
/// protocols not compared in the same shape at an older release), a protocol being declared in one of
/// them at most.
pub struct OlderRelease<'s> {
    /// The release's tag, which the findings say they are against.
    pub tag: &'s str,
    /// The release's declaration of each protocol it declares, compared or not.
    pub protocols: Vec<&'s ProtocolDecl>,
    /// The release's models, each with the stored part it is (`None`: a whole model).
    pub models: Vec<(&'s Snapshot, Option<&'s Part>)>,
}

impl<'s> OlderRelease<'s> {
    /// Older releases of a whole model each, by tag.
    pub fn whole(older: &[(String, Snapshot)]) -> Vec<OlderRelease<'_>> {
        older
            .iter()
            .map(|(tag, model)| OlderRelease {
                tag,
                protocols: model.protocols.iter().collect(),
                models: vec![(model, None)],
            })
            .collect()
    }

    /// Older releases of the store's parts, by tag.
    pub fn parts(older: &'s [(String, ReleaseParts)]) -> Vec<OlderRelease<'s>> {
        older
            .iter()
            .map(|(tag, release)| OlderRelease {
                tag,
                protocols: release.protocols.iter().collect(),
                models: release
                    .parts
                    .iter()
                    .map(|p| (&p.model, Some(&**p)))
                    .collect(),
            })
            .collect()
    }

    /// The part of the protocol `name` in the model of this release that declares it, with the stored
    /// part it is.
    fn part(&self, name: &str) -> Option<(PartRef<'s>, Option<&'s Part>)> {
        self.models
            .iter()
            .find_map(|&(model, part)| Some((PartRef::of(model, name)?, part)))
    }
}

/// A release's part as the store names it: its declaration, the stored part's id and which of its
/// messages are kept.
pub(super) type StoredId<'s> = (&'s ProtocolDecl, &'s str, Keep);

/// What the store names the stored part of `stored` by, kept with `want`.
pub(super) fn stored_id(stored: &StoredProtocol, want: Keep) -> StoredId<'_> {
    (&stored.decl, stored.part.as_str(), want)
}

/// What names the inputs of one protocol's comparison, the key the [store](crate::store) keeps its
/// findings under: the protocol's and the baseline's names, the working tree's part by its content,
/// the baseline's and each older release's (by tag, oldest first) by what the store names it, so
/// that a check can find a kept comparison without reading a release's part, and the protocol's
/// declaration at every older release (its window).
#[derive(Hash)]
pub(super) struct Key<'s> {
    pub(super) name: &'s str,
    pub(super) rev: &'s str,
    pub(super) base: Option<StoredId<'s>>,
    pub(super) current: Option<&'s PartRef<'s>>,
    pub(super) older: Vec<(&'s str, StoredId<'s>)>,
    pub(super) lineage: Vec<(&'s str, &'s ProtocolDecl)>,
}

/// Everything the comparison of one protocol reads. An older release is listed only when its model (of
/// the protocols not seen in the same shape at an older one) has the protocol, and only when the working
/// tree has it: the comparison reads no other.
pub(super) struct Reads<'s> {
    pub(super) name: &'s str,
    /// The baseline's name, which the findings say they are against.
    pub(super) rev: &'s str,
    pub(super) base: Option<PartRef<'s>>,
    pub(super) current: Option<PartRef<'s>>,
    /// By tag, oldest first, with the stored part each is.
    pub(super) older: Vec<(&'s str, PartRef<'s>, Option<&'s Part>)>,
    /// The protocol's declaration at every older release that declares it (by tag, oldest first),
    /// its part compared or not (a part of a shape compared at an older release is not read): what
    /// the window reads.
    pub(super) lineage: Vec<(&'s str, &'s ProtocolDecl)>,
}

impl<'s> Reads<'s> {
    /// The key of this comparison, the baseline's parts named by `base` (as the store holds the
    /// baseline); `None` when a part read is not the store's.
    fn key<'k>(&'k self, base: Option<&'k ReleaseSummary>) -> Option<Key<'k>> {
        let base = match &self.base {
            Some(_) => {
                let stored = base?.stored().iter().find(|p| p.decl.name == self.name)?;
                Some(stored_id(stored, stored.keep))
            }
            None => None,
        };
        let older = self
            .older
            .iter()
            .map(|(tag, _, part)| Some((*tag, part.as_ref()?.stored_id()?)))
            .collect::<Option<_>>()?;
        Some(Key {
            name: self.name,
            rev: self.rev,
            base,
            current: self.current.as_ref(),
            older,
            lineage: self.lineage.clone(),
        })
    }
}

/// The models a check compares, and the baseline's name: what [`Reads`] borrows from.
#[derive(Clone, Copy)]
struct Models<'s> {
    rev: &'s str,
    base: &'s Snapshot,
    older: &'s [OlderRelease<'s>],
    current: &'s Snapshot,
}

impl<'s> Models<'s> {
    /// What the comparison of the protocol `name` reads of these models.
    fn reads(&self, name: &'s str) -> Reads<'s> {
        let current = PartRef::of(self.current, name);
        let (older, lineage) = match current {
            Some(_) => (
                self.older
                    .iter()
                    .filter_map(|release| {
                        let (part, stored) = release.part(name)?;
                        Some((release.tag, part, stored))
                    })
                    .collect(),
                self.older
                    .iter()
                    .filter_map(|release| {
                        let decl = release.protocols.iter().find(|p| p.name == name)?;
                        Some((release.tag, *decl))
                    })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        Reads {
            name,
            rev: self.rev,
            base: PartRef::of(self.base, name),
            current,
            older,
            lineage,
        }
    }
}

/// Every protocol the baseline or the working tree declares, by name, with its findings: against the
/// baseline, then the major ones each older release (oldest first) adds. The comparison of a protocol
/// reads only its part of each model ([`Reads`]); `store` keeps it, so that a protocol nothing of which
/// changed since an earlier check is not compared again. One thread: comparing protocols on two cores
/// was measured (issue 16) and kept two protocols' part models in memory at once, over the peak memory
/// bound on a history of fifty tags, for no wall time this machine could show.
pub(super) fn protocols(
    baseline: &Baseline,
    (base, base_stored): (&Snapshot, Option<&ReleaseSummary>),
    older: &[OlderRelease<'_>],
    current: &Snapshot,
    store: &Store,
) -> Vec<ProtocolChanges> {
    let models = Models {
        rev: &baseline.rev,
        base,
        older,
        current,
    };
    let names: BTreeSet<&str> = base
        .protocols
        .iter()
        .chain(current.protocols.iter())
        .map(|p| p.name.as_str())
        .collect();
    names
        .into_iter()
        .map(|name| {
            let reads = models.reads(name);
            match reads.key(base_stored) {
                Some(key) => store.compared(&key, name, || protocol(&reads)),
                None => protocol(&reads),
            }
        })
        .collect()
}

/// [`protocols`] without a store: every protocol compared (for models that are not a revision's).
pub(super) fn protocols_uncached(
    baseline: &Baseline,
    base: &Snapshot,
    older: &[OlderRelease<'_>],
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    protocols(baseline, (base, None), older, current, &Store::disabled())
}

/// The findings of one protocol, from its parts alone (each compared through its
/// [view](PartRef::view), so that the comparison cannot read anything else).
pub(super) fn protocol(reads: &Reads<'_>) -> ProtocolChanges {
    let Reads {
        name,
        rev,
        base,
        current,
        older,
        lineage,
    } = reads;
    let mut findings = match (base, current) {
        (Some(base), Some(current)) => {
            let mut findings =
                compat::compare_views(base.view(), current.view(), name, rev, Scope::Full);
            anchor(&mut findings, base, current);
            findings
        }
        (Some(base), None) => vec![protocol_removed(name, base.decl.location.clone(), rev)],
        _ => Vec::new(),
    };
    if let Some(current) = current {
        findings.extend(super::since::above_version(
            current.decl,
            &current.part,
            rev,
        ));
    }
    let window = current.as_ref().map(|current| {
        let base_breaks: Vec<WindowBreak> = findings
            .iter()
            .filter(|f| f.level == Level::Major)
            .map(|f| WindowBreak::of(f, false))
            .collect();
        let base_decl = base.as_ref().map(|base| (*rev, base.decl));
        let mut window = WindowBuilder::new(current.decl, base_decl, lineage);
        add_older_releases(&mut findings, current, base.as_ref(), older, &mut window);
        window.finish(base_breaks)
    });
    ProtocolChanges {
        name: (*name).to_owned(),
        old_version: base.as_ref().map(|p| p.decl.version.clone()),
        new_version: current.as_ref().map(|p| p.decl.version.clone()),
        findings,
        window,
    }
}

/// Points each finding about something removed (its location is in `old`) at its surviving parent in the
/// working tree's part `current` ([`Finding::anchor_in`]).
fn anchor(findings: &mut [Finding], old: &PartRef<'_>, current: &PartRef<'_>) {
    for finding in findings {
        finding.anchor = finding.anchor_in_part(&old.part, &current.part, current.decl);
    }
}

/// Adds to `findings` the major findings between each older release (by tag, its part of the protocol)
/// and the working tree's part `current`, each once (the first release that has it reports it). A
/// finding the older release also has against the baseline's part `base` is known history: it shipped
/// before and does not count again. Each release inside the working tree's window is told to `window`
/// with all its major findings, known or not, duplicates included.
fn add_older_releases<'s>(
    findings: &mut Vec<Finding>,
    current: &PartRef<'_>,
    base: Option<&PartRef<'_>>,
    older: &'s [(&'s str, PartRef<'_>, Option<&Part>)],
    window: &mut WindowBuilder<'s>,
) {
    let new = current.decl;
    let name = new.name.as_str();
    let mut seen: BTreeSet<_> = findings.iter().map(Finding::dedup_key).collect();
    for (tag, part, _) in older {
        let scope = scope(new, part.decl);
        let inside = scope == Scope::Full;
        let mut majors: Vec<Finding> =
            compat::compare_views(part.view(), current.view(), name, tag, scope)
                .into_iter()
                .filter(|f| f.level == Level::Major)
                .collect();
        let new_ones: Vec<bool> = majors.iter().map(|f| seen.insert(f.dedup_key())).collect();
        let window_needs_them = inside && !majors.is_empty();
        if !new_ones.contains(&true) && !window_needs_them {
            // Nothing to tell known or not: the release is not compared with the baseline.
            if inside {
                window.compared(tag, Vec::new());
            }
            continue;
        }
        let against_base: BTreeSet<_> = match base {
            Some(base) => compat::compare_views(part.view(), base.view(), name, tag, scope)
                .iter()
                .map(Finding::dedup_key)
                .collect(),
            None => BTreeSet::new(),
        };
        for finding in &mut majors {
            finding.known = against_base.contains(&finding.dedup_key());
        }
        if inside {
            let breaks = majors.iter().map(|f| WindowBreak::of(f, f.known));
            window.compared(tag, breaks.collect());
        }
        for (mut finding, new_one) in majors.into_iter().zip(new_ones) {
            if new_one {
                finding.anchor = finding.anchor_in_part(&part.part, &current.part, new);
                findings.push(finding);
            }
        }
    }
}

/// The extraction's notes, the working tree's then the baseline's (prefixed with its name), as
/// `file:line:column: message`.
pub(super) fn notes(
    baseline: &Baseline,
    base_notes: &[ExtractNote],
    current: &Snapshot,
) -> Vec<String> {
    let current_notes = current.notes.iter().map(|n| {
        format!(
            "{}:{}:{}: {}",
            n.location.file, n.location.line, n.location.column, n.message
        )
    });
    let base_notes = base_notes.iter().map(|n| {
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
        reached_by: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
