//! The comparison step from what the store names, for a working tree extracted again (a pull request):
//! with the baseline and every older release in the store, each protocol's comparison is keyed by the
//! working tree's part and by the ids the releases' small files give their parts (see
//! [`compare::Key`]), so a kept comparison is found without reading a release's part, and only a
//! protocol whose comparison is not kept reads its parts. An edit of one protocol reads that protocol's
//! parts alone. When something is not in the store as this needs it (a release not stored, a shape not
//! known, a part that does not read back), the caller reads the models instead.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::changes::ProtocolChanges;
use super::compare::{self, Key, PartRef, Reads, stored_id};
use super::kept::{Compared, Declared, Stored};
use crate::extract::Keep;
use crate::model::Snapshot;
use crate::store::{Part, Store, StoredProtocol};
use crate::workspace::{CheckedReleases, History};

/// Each protocol's findings and the extraction's notes, from the store as far as it kept them, with
/// the protocols of the models compared; `None` when the store does not hold what this needs.
pub(super) fn compare(
    history: &History<'_>,
    releases: &CheckedReleases,
    current: &Snapshot,
) -> Option<(Compared, Declared)> {
    let store = history.store();
    if !store.is_enabled() {
        return None;
    }
    let stored = Stored::of(history, releases, &current.protocols)?;
    let older = older_parts(&stored, &compare::OlderReleaseKeep::new(&current.protocols))?;
    let lineage = lineage(&stored);
    let base: &[StoredProtocol] = stored.base.as_ref().map_or(&[], |base| base.stored());
    let names: BTreeSet<&str> = base
        .iter()
        .map(|p| p.decl.name.as_str())
        .chain(current.protocols.iter().map(|p| p.name.as_str()))
        .collect();
    let rev = releases.baseline.rev.as_str();
    let protocols = names
        .into_iter()
        .map(|name| {
            let base = base.iter().find(|p| p.decl.name == name);
            protocol(store, (name, rev), base, current, (&older, &lineage))
        })
        .collect::<Option<Vec<ProtocolChanges>>>()?;
    let base_notes = stored.base.as_ref().map_or(&[][..], |base| base.notes());
    let notes = compare::notes(&releases.baseline, base_notes, current);
    // What names the models read, for the whole step kept after it (see `kept::keep`).
    if let Some(base) = &stored.base {
        store.use_release(&releases.baseline.commit, base);
    }
    for (release, older) in &stored.older {
        if let Ok(summary) = older {
            store.use_release(&release.commit, summary);
        }
    }
    let compared = Compared { protocols, notes };
    Some((compared, stored.declared(current.protocols.clone())))
}

/// The findings of the protocol `name` against the baseline named `rev` (whose part of it is `base`):
/// kept under the key that names its parts, else compared from its parts read from the store (and
/// kept); `None` when a part does not read back.
fn protocol(
    store: &Store,
    (name, rev): (&str, &str),
    base: Option<&StoredProtocol>,
    current: &Snapshot,
    (older, lineage): (&[OlderPart<'_>], &[(&str, &StoredProtocol)]),
) -> Option<ProtocolChanges> {
    let current_part = PartRef::of(current, name);
    // Older releases are compared only with a protocol the working tree declares.
    let (older, lineage): (Vec<&OlderPart<'_>>, Vec<_>) = match current_part {
        Some(_) => (
            older
                .iter()
                .filter(|p| p.stored.decl.name == name)
                .collect(),
            lineage
                .iter()
                .filter(|(_, p)| p.decl.name == name)
                .map(|(tag, p)| (*tag, &p.decl))
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let key = Key {
        name,
        rev,
        base: base.map(|p| stored_id(p, p.keep)),
        current: current_part.as_ref(),
        older: older
            .iter()
            .map(|p| (p.tag, stored_id(p.stored, p.want)))
            .collect(),
        lineage: lineage.clone(),
    };
    if let Some(kept) = store.kept_comparison(&key, name) {
        return Some(kept);
    }
    let changes = compare_read(store, (name, rev), base, current, (&older, lineage))?;
    store.keep_comparison(&key, &changes);
    Some(changes)
}

/// A stored part of an older release that a comparison reads: of its tag, keeping `want`.
struct OlderPart<'s> {
    tag: &'s str,
    stored: &'s StoredProtocol,
    want: Keep,
}

/// Of each older release that could be read (oldest first), the stored parts a comparison with the
/// working tree reads, as `read_older_releases` reads them: each protocol once per distinct shape, the
/// oldest release that has it; `None` when a part is stored with other messages than `filter` keeps,
/// or without its shape (reading the models then tells).
fn older_parts<'s>(
    stored: &'s Stored<'_>,
    filter: &compare::OlderReleaseKeep<'_>,
) -> Option<Vec<OlderPart<'s>>> {
    let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut parts = Vec::new();
    for (release, older) in &stored.older {
        let Ok(summary) = older else {
            continue;
        };
        for part in summary.stored() {
            let want = filter.keep(&part.decl);
            let shape = part.shape.as_deref().filter(|_| part.keep == want)?;
            if seen.insert((part.decl.name.as_str(), shape)) {
                parts.push(OlderPart {
                    tag: release.tag.as_str(),
                    stored: part,
                    want,
                });
            }
        }
    }
    Some(parts)
}

/// Every protocol of every older release that could be read (oldest first), by the release's tag: the
/// declarations the windows read.
fn lineage<'s>(stored: &'s Stored<'_>) -> Vec<(&'s str, &'s StoredProtocol)> {
    let mut lineage = Vec::new();
    for (release, older) in &stored.older {
        if let Ok(summary) = older {
            lineage.extend(summary.stored().iter().map(|p| (release.tag.as_str(), p)));
        }
    }
    lineage
}

/// The findings of the protocol `name` against the baseline named `rev`, its parts read from the
/// store; `None` when one does not read back.
fn compare_read(
    store: &Store,
    (name, rev): (&str, &str),
    base: Option<&StoredProtocol>,
    current: &Snapshot,
    (older, lineage): (&[&OlderPart<'_>], Vec<(&str, &crate::model::ProtocolDecl)>),
) -> Option<ProtocolChanges> {
    let base = match base {
        Some(base) => Some(store.stored_part(base, Keep::All)?),
        None => None,
    };
    let older: Vec<(&str, Rc<Part>)> = older
        .iter()
        .map(|p| Some((p.tag, store.stored_part(p.stored, p.want)?)))
        .collect::<Option<_>>()?;
    let reads = Reads {
        name,
        rev,
        base: match &base {
            Some(part) => Some(PartRef::of(&part.model, name)?),
            None => None,
        },
        current: PartRef::of(current, name),
        older: older
            .iter()
            .map(|(tag, part)| Some((*tag, PartRef::of(&part.model, name)?, Some(&**part))))
            .collect::<Option<_>>()?,
        lineage,
    };
    Some(compare::protocol(&reads))
}
