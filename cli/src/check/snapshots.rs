//! The comparison step against snapshots ([`Against::Snapshots`]): each protocol of the working tree
//! compared with its own snapshots (none: new), the older snapshots standing for the older releases.

use std::collections::BTreeSet;

use super::baseline::SnapshotSide;
use super::changes::ProtocolChanges;
use super::compare::{self, OlderRelease};
use super::kept::Compared;
use crate::model::Snapshot;
use crate::outcome::{Baseline, BaselineChoice};
use crate::snapshot::{ProtocolSnapshots, SnapshotBaseline};
use crate::workspace::{History, Workspace, WorkspaceError};

#[cfg(doc)]
use super::baseline::Against;

/// Each protocol's findings against its snapshots in `side`, of the protocols `-p` selects (of a
/// registry baseline, the published packages' alone), and the extraction's notes; `baseline` is the
/// report's.
pub(super) fn compare(
    history: &History<'_>,
    side: &SnapshotSide,
    baseline: &Baseline,
) -> Result<Compared, WorkspaceError> {
    let current = history.current()?;
    let snapshots = &side.snapshots;
    let mut protocols = compare_each(history, snapshots, &current);
    if let Some(selected) = selected(history.workspace(), snapshots, &current)? {
        protocols.retain(|p| selected.contains(&p.name));
    }
    if let Some(published) = &side.published {
        protocols.retain(|p| published.contains(&p.name));
    }
    let notes = compare::notes(baseline, &[], &current);
    Ok(Compared { protocols, notes })
}

/// Each protocol of the snapshots or the working tree, compared with its own snapshots (none: new),
/// with the `fixtures_missing` finding when it keeps wire fixtures.
fn compare_each(
    history: &History<'_>,
    snapshots: &SnapshotBaseline,
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    let names: BTreeSet<&str> = snapshots
        .protocols
        .keys()
        .map(String::as_str)
        .chain(current.protocols.iter().map(|p| p.name.as_str()))
        .collect();
    let none = ProtocolSnapshots::default();
    names
        .into_iter()
        .flat_map(|name| {
            let of = snapshots.protocols.get(name).unwrap_or(&none);
            compare_one(history, name, of, current)
        })
        .collect()
}

/// The protocol `name` of the working tree (`current`) against its snapshots `of`.
fn compare_one(
    history: &History<'_>,
    name: &str,
    of: &ProtocolSnapshots,
    current: &Snapshot,
) -> Vec<ProtocolChanges> {
    let label = of.base.as_ref().map(|(used, _)| used.label());
    let baseline = Baseline::new(label.unwrap_or_default(), "", BaselineChoice::Snapshot);
    let empty = Snapshot::default();
    let base = of.base.as_ref().map_or(&empty, |(_, model)| model);
    let older: Vec<(String, Snapshot)> = (of.older.iter())
        .map(|(used, model)| (used.label(), model.clone()))
        .collect();
    let older = OlderRelease::whole(&older);
    let part = current.protocol_part(name, |_| true);
    let mut changes = compare::protocols_uncached(&baseline, base, &older, &part);
    for protocol in &mut changes {
        let Some(new) = part.protocol(name) else {
            continue;
        };
        if crate::fixtures::fixtures_folder(history, new).is_some() {
            let missing = crate::fixtures::missing_fixtures(history, &baseline, base, new);
            protocol.findings.extend(missing);
        }
    }
    changes
}

/// The protocols `-p` selects, from the working tree and the snapshots' declarations.
fn selected(
    workspace: &Workspace,
    snapshots: &SnapshotBaseline,
    current: &Snapshot,
) -> Result<Option<BTreeSet<String>>, WorkspaceError> {
    let bases = snapshots.protocols.values().filter_map(|p| p.base.as_ref());
    let protocols: Vec<_> = current
        .protocols
        .iter()
        .chain(bases.flat_map(|(_, model)| &model.protocols))
        .collect();
    let messages: Vec<_> = current.messages.iter().collect();
    workspace.selected_protocols(&protocols, &messages)
}
