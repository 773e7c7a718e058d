//! The comparison step of a check: each protocol of the working tree against the baseline, and against the
//! older releases that must still interoperate with it. Pure (no git, no files) but for the
//! [store](crate::store) that keeps each protocol's comparison.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::compat::{self, Scope};
use crate::extract::Keep;
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{Location, PartOf, ProtocolDecl, Snapshot};
use crate::outcome::{Baseline, ProtocolChanges};
use crate::rules::RuleId;
use crate::store::{Comparisons, Store};

/// How much of an older release's protocol (`old`) is compared with the working tree's (`new`): every
/// message for releases from the protocol's `min_compatible` on, else only its records (which are still
/// read back).
fn scope(new: &ProtocolDecl, old: &ProtocolDecl) -> Scope {
    match &new.min_compatible {
        Some(min) if old.version >= *min => Scope::Full,
        _ => Scope::RecordsOnly,
    }
}

/// What a check reads of an older release's protocol, given the working tree's protocols: what [`scope`]
/// compares of it, and nothing of a protocol the working tree no longer declares.
pub(super) fn older_release_keep(current: &[ProtocolDecl]) -> impl Fn(&ProtocolDecl) -> Keep {
    move |old| match current.iter().find(|p| p.name == old.name) {
        None => Keep::Nothing,
        Some(new) => match scope(new, old) {
            Scope::Full => Keep::All,
            Scope::RecordsOnly => Keep::Records,
        },
    }
}

/// One protocol's part of a model, borrowed: what a comparison of the protocol reads there, its
/// declaration, its messages and every type they reach (as [`Snapshot::protocol_part`] keeps them).
#[derive(Hash)]
struct PartRef<'s> {
    decl: &'s ProtocolDecl,
    part: PartOf<'s>,
}

impl<'s> PartRef<'s> {
    /// The part of the protocol `name` in `snapshot`, if it declares the protocol.
    fn of(snapshot: &'s Snapshot, name: &str) -> Option<PartRef<'s>> {
        Some(PartRef {
            decl: snapshot.protocol(name)?,
            part: snapshot.part_of(name, |_| true),
        })
    }

    /// The part as a model of its own.
    fn model(&self) -> Snapshot {
        self.part.to_model(self.decl)
    }
}

/// Everything the comparison of one protocol reads: the key the [store](crate::store) keeps its
/// findings under. An older release is listed only when its model (of the protocols not seen in the same
/// shape at an older one) has the protocol, and only when the working tree has it: the comparison reads
/// no other.
#[derive(Hash)]
struct Reads<'s> {
    name: &'s str,
    /// The baseline's name, which the findings say they are against.
    rev: &'s str,
    base: Option<PartRef<'s>>,
    current: Option<PartRef<'s>>,
    /// By tag, oldest first.
    older: Vec<(&'s str, PartRef<'s>)>,
}

/// The models a check compares, and the baseline's name: what [`Reads`] borrows from.
#[derive(Clone, Copy)]
struct Models<'s> {
    rev: &'s str,
    base: &'s Snapshot,
    older: &'s [(String, Snapshot)],
    current: &'s Snapshot,
}

impl<'s> Models<'s> {
    /// What the comparison of the protocol `name` reads of these models.
    fn reads(&self, name: &'s str) -> Reads<'s> {
        let current = PartRef::of(self.current, name);
        let older = match current {
            Some(_) => self
                .older
                .iter()
                .filter_map(|(tag, s)| Some((tag.as_str(), PartRef::of(s, name)?)))
                .collect(),
            None => Vec::new(),
        };
        Reads {
            name,
            rev: self.rev,
            base: PartRef::of(self.base, name),
            current,
            older,
        }
    }
}

/// Every protocol the baseline or the working tree declares, by name, with its findings: against the
/// baseline, then the major ones each older release (oldest first) adds. The comparison of a protocol
/// reads only its part of each model ([`Reads`]); `store` keeps it, so that a protocol nothing of which
/// changed since an earlier check is not compared again. Protocols are compared on as many threads as
/// the machine runs at once ([`threads`]), each protocol whole on one of them: the findings do not
/// depend on which.
pub(super) fn protocols(
    baseline: &Baseline,
    base: &Snapshot,
    older: &[(String, Snapshot)],
    current: &Snapshot,
    store: &Store,
) -> Vec<ProtocolChanges> {
    let models = Models {
        rev: &baseline.rev,
        base,
        older,
        current,
    };
    protocols_on(models, store.comparisons(), threads(models))
}

/// [`protocols`] on up to `threads` threads (this one included).
fn protocols_on(
    models: Models<'_>,
    comparisons: Comparisons<'_>,
    threads: usize,
) -> Vec<ProtocolChanges> {
    let names: Vec<&str> = models
        .base
        .protocols
        .iter()
        .chain(models.current.protocols.iter())
        .map(|p| p.name.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let compare = |&name: &&str| {
        let reads = models.reads(name);
        comparisons.compared(&reads, name, || protocol(&reads))
    };
    if threads <= 1 {
        return names.iter().map(compare).collect();
    }
    let order = largest_first(&names, models.base, models.current);
    each_on_threads(&names, &order, threads, compare)
}

/// How many threads compare the protocols of these models: one when there are too few messages to share
/// ([`MESSAGES_TO_SHARE`]), else as many as the machine runs at once, and no more than there are
/// protocols.
fn threads(models: Models<'_>) -> usize {
    let protocols = models
        .base
        .protocols
        .len()
        .max(models.current.protocols.len());
    let messages = [models.base, models.current]
        .into_iter()
        .chain(models.older.iter().map(|(_, s)| s))
        .map(|s| s.messages.len())
        .sum::<usize>();
    if protocols < 2 || messages < MESSAGES_TO_SHARE {
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(protocols)
}

/// The fewest messages (in every model compared) whose comparison is shared between threads. Measured
/// on a 2-core machine: comparing costs 20 to 45 µs a message (kept in the store included), starting a
/// thread about 0.1 ms when a core is free, but several milliseconds when the machine is busy (the
/// thread waits for its turn, and the step for the thread): with fewer messages the step takes too little
/// time for that wait to pay off.
const MESSAGES_TO_SHARE: usize = 128;

/// The indices of `names` by the number of messages the baseline and the working tree declare for each,
/// most first (a measure of the work of comparing it), so that threads taking them in this order finish
/// close together.
fn largest_first(names: &[&str], base: &Snapshot, current: &Snapshot) -> Vec<usize> {
    let mut messages: HashMap<&str, usize> = HashMap::new();
    for m in base.messages.iter().chain(&current.messages) {
        *messages.entry(m.protocol.as_str()).or_default() += 1;
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| Reverse(messages.get(names[i]).copied().unwrap_or(0)));
    order
}

/// The stack of a thread started to compare protocols: a main thread's usual 8 MiB (a started thread
/// gets 2 MiB by default), so that what compares on the main thread compares on any.
const STACK_SIZE: usize = 8 << 20;

/// `work` done for each of `items`, in their order, on `threads` threads (this one and `threads - 1`
/// started here, as many as can be). Each thread takes the next item not taken yet, in the order `order`
/// gives (indices into `items`, each once); a panic of `work` on any thread is resumed on this one, with
/// its payload, once the others are done.
fn each_on_threads<T: Sync, R: Send>(
    items: &[T],
    order: &[usize],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    debug_assert_eq!(order.len(), items.len(), "every item once");
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            done.push((i, work(&items[i])));
        }
        done
    };
    let mut done = std::thread::scope(|scope| {
        // A thread that cannot be started leaves its share to the others.
        let others: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(scope, take)
                    .ok()
            })
            .collect();
        let mut done = take();
        for other in others {
            match other.join() {
                Ok(theirs) => done.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The findings of one protocol, from its parts alone (each made a model of its own once, so that the
/// comparison cannot read anything else).
fn protocol(reads: &Reads<'_>) -> ProtocolChanges {
    let Reads {
        name,
        rev,
        base,
        current,
        older,
    } = reads;
    let base_model = base.as_ref().map(PartRef::model);
    let current_model = current.as_ref().map(PartRef::model);
    let mut findings = match (base, &base_model, &current_model) {
        (_, Some(base), Some(current)) => {
            compat::compare_protocol(base, current, name, rev, Scope::Full)
        }
        (Some(base), _, None) => vec![protocol_removed(name, base.decl.location.clone(), rev)],
        _ => Vec::new(),
    };
    if let (Some(base), Some(current)) = (base, current) {
        anchor(&mut findings, base, current);
    }
    if let (Some(current), Some(current_model)) = (current, &current_model) {
        let older: Vec<(&str, &PartRef<'_>, Snapshot)> = older
            .iter()
            .map(|(tag, part)| (*tag, part, part.model()))
            .collect();
        add_older_releases(
            &mut findings,
            (current, current_model),
            base_model.as_ref(),
            &older,
        );
    }
    ProtocolChanges {
        name: (*name).to_owned(),
        old_version: base.as_ref().map(|p| p.decl.version.clone()),
        new_version: current.as_ref().map(|p| p.decl.version.clone()),
        findings,
    }
}

/// Points each finding about something removed (its location is in `old`) at its surviving parent in the
/// working tree's part `current` ([`Finding::anchor_in`]).
fn anchor(findings: &mut [Finding], old: &PartRef<'_>, current: &PartRef<'_>) {
    for finding in findings {
        finding.anchor = finding.anchor_in_part(&old.part, &current.part, current.decl);
    }
}

/// Adds to `findings` the major findings between each older release (by tag, its part of the protocol
/// and that part as a model) and the working tree's part `current`, each once (the first release that
/// has it reports it). A finding the older release also has against the baseline's part `base` is known
/// history: it shipped before and does not count again.
fn add_older_releases(
    findings: &mut Vec<Finding>,
    (current, current_model): (&PartRef<'_>, &Snapshot),
    base: Option<&Snapshot>,
    older: &[(&str, &PartRef<'_>, Snapshot)],
) {
    let new = current.decl;
    let name = new.name.as_str();
    let mut seen: BTreeSet<_> = findings.iter().map(Finding::dedup_key).collect();
    for (tag, part, old) in older {
        let scope = scope(new, part.decl);
        let mut added = Vec::new();
        for finding in compat::compare_protocol(old, current_model, name, tag, scope) {
            if finding.level == Level::Major && seen.insert(finding.dedup_key()) {
                added.push(finding);
            }
        }
        if added.is_empty() {
            // Nothing to tell known or not: the release is not compared with the baseline.
            continue;
        }
        let against_base: BTreeSet<_> = match base {
            Some(base) => compat::compare_protocol(old, base, name, tag, scope)
                .iter()
                .map(Finding::dedup_key)
                .collect(),
            None => BTreeSet::new(),
        };
        for mut finding in added {
            finding.known = against_base.contains(&finding.dedup_key());
            finding.anchor = finding.anchor_in_part(&part.part, &current.part, new);
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

#[cfg(test)]
mod tests;
