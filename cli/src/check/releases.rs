//! The comparison step against the release tags ([`Against::Releases`]): the working tree's model
//! against the baseline's and the older releases'. Read lazily, through the store beneath: a comparison
//! an earlier check kept for the same models is read back without reading a model ([`kept`], [`named`]),
//! and an older release is read only for the protocols whose shape no older release had.

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use super::changes::ProtocolChanges;
use super::compare::{self, OlderRelease};
use super::kept::{self, Compared};
use super::named;
use crate::model::{ProtocolDecl, Snapshot};
use crate::outcome::BaselineChoice;
use crate::source::Release;
use crate::store::ReleaseParts;
use crate::workspace::{
    CheckedReleases, History, Progress, WorkspaceError, read_releases, revision_error,
};

#[cfg(doc)]
use super::baseline::Against;

/// Each protocol's findings against `releases` (of the protocols `-p` selects, with the missing golden
/// fixtures), and the extraction's notes; `progress` hears of the older releases read.
pub(super) fn compare(
    history: &History<'_>,
    releases: &CheckedReleases,
    progress: &mut dyn Progress,
) -> Result<Compared, WorkspaceError> {
    let (compared, models) = compare_models(history, releases, progress)?;
    let Compared {
        mut protocols,
        notes,
    } = compared;
    if let Some(selected) = selected_protocols(history, &models)? {
        protocols.retain(|p| selected.contains(&p.name));
    }
    add_missing_fixtures(&mut protocols, history, releases, &models)?;
    Ok(Compared { protocols, notes })
}

/// The models a check compares.
struct Snapshots {
    /// The working tree's.
    current: Arc<Snapshot>,
    /// The baseline's, whole.
    base: Arc<Snapshot>,
    /// Of each older release that could be read (by tag, oldest first), the parts of the protocols a
    /// comparison has not seen in the same shape at an older one (as the store gives them: not copied
    /// into one model).
    older: Vec<(String, ReleaseParts)>,
}

/// What the steps after the comparison read of the models compared: read (the comparison was made), or
/// their protocols alone (an earlier check's comparison of the same models was read back: see
/// [`kept`]), with the baseline's model read when a step needs it.
enum Models {
    Read(Snapshots),
    Declared(kept::Declared, OnceCell<Arc<Snapshot>>),
}

impl Models {
    /// The working tree's declaration of the protocol `name`.
    fn current_protocol(&self, name: &str) -> Option<&ProtocolDecl> {
        match self {
            Models::Read(snapshots) => snapshots.current.protocol(name),
            Models::Declared(declared, _) => declared.current.iter().find(|p| p.name == name),
        }
    }

    /// The baseline's model, read from the store when only its protocols were.
    fn base(
        &self,
        history: &History<'_>,
        releases: &CheckedReleases,
    ) -> Result<&Snapshot, WorkspaceError> {
        match self {
            Models::Read(snapshots) => Ok(&snapshots.base),
            Models::Declared(_, base) => {
                if base.get().is_none() {
                    let _ = base.set(read_base(history, releases)?);
                }
                Ok(base.get().expect("set above"))
            }
        }
    }
}

/// The comparison step: each protocol's findings and the extraction's notes, read back from the store
/// when an earlier check compared the same models ([`kept`]: named by the store, or the working tree
/// extracted again into the same model), else from the models read and compared (then kept for the
/// next check).
fn compare_models(
    history: &History<'_>,
    releases: &CheckedReleases,
    progress: &mut dyn Progress,
) -> Result<(kept::Compared, Models), WorkspaceError> {
    if let Some(found) = kept::read(history, releases) {
        return Ok(read_back(found, releases, progress));
    }
    // With the baseline in the store (a check of the base branch kept it, and the older releases
    // with it), the working tree is likely the one revision extracted: it keeps nothing for the others
    // (an older release extracted all the same lowers its types, and keeps them for the next ones).
    let baseline_kept = matches!(releases.baseline.chosen, BaselineChoice::FirstRelease)
        || history
            .release_summary(&releases.baseline.commit, None)
            .is_some();
    // With the store, the working tree's records are kept for the next check (`store/lowered`).
    history.keep_lowered(!baseline_kept || history.store().is_enabled());
    let current = history.current();
    history.keep_lowered(true);
    let current = current?;
    if let Some(model) = history.store().used_working()
        && let Some(found) = kept::read_for(history, releases, &model, current.protocols.clone())
    {
        return Ok(read_back(found, releases, progress));
    }
    if baseline_kept && let Some(found) = named::compare(history, releases, &current) {
        kept::keep(history, releases, &found.0);
        return Ok(read_back(found, releases, progress));
    }
    let snapshots = read_snapshots(history, releases, current, progress)?;
    let older = OlderRelease::parts(&snapshots.older);
    let base_stored = history.store().used_release(&releases.baseline.commit);
    let compared = Compared {
        protocols: compare::protocols(
            &releases.baseline,
            (&snapshots.base, base_stored.as_ref()),
            &older,
            &snapshots.current,
            history.store(),
        ),
        notes: compare::notes(
            &releases.baseline,
            &snapshots.base.notes,
            &snapshots.current,
        ),
    };
    kept::keep(history, releases, &compared);
    Ok((compared, Models::Read(snapshots)))
}

/// The protocols the packages named with `-p` select (see [`Workspace::selected_protocols`]), from the
/// working tree's model (read from the store when only its protocols were) and the baseline's
/// protocols; `None` without `-p`.
fn selected_protocols(
    history: &History<'_>,
    models: &Models,
) -> Result<Option<BTreeSet<String>>, WorkspaceError> {
    let workspace = history.workspace();
    if workspace.named_packages.is_empty() {
        return Ok(None);
    }
    let (current, base): (Arc<Snapshot>, &[ProtocolDecl]) = match models {
        Models::Read(snapshots) => (Arc::clone(&snapshots.current), &snapshots.base.protocols),
        Models::Declared(declared, _) => (history.current()?, &declared.base),
    };
    let protocols: Vec<&ProtocolDecl> = current.protocols.iter().chain(base).collect();
    let messages: Vec<_> = current.messages.iter().collect();
    workspace.selected_protocols(&protocols, &messages)
}

/// A comparison read back ([`kept`]); `progress` hears of the older releases, read as far as this check
/// needs them (their files in the store).
fn read_back(
    (compared, declared): (Compared, kept::Declared),
    releases: &CheckedReleases,
    progress: &mut dyn Progress,
) -> (kept::Compared, Models) {
    read_releases(&releases.older, progress, |release| {
        match declared
            .unreadable
            .iter()
            .find(|(commit, _)| *commit == release.commit)
        {
            Some((_, error)) => Err(revision_error(&release.tag, error.clone())),
            None => Ok(()),
        }
    });
    (compared, Models::Declared(declared, OnceCell::new()))
}

/// The baseline's whole model (nothing for a first release).
fn read_base(
    history: &History<'_>,
    releases: &CheckedReleases,
) -> Result<Arc<Snapshot>, WorkspaceError> {
    match releases.baseline.chosen {
        BaselineChoice::FirstRelease => Ok(Arc::default()),
        _ => history.release(&releases.baseline.commit, &releases.baseline.rev),
    }
}

/// Reads the baseline (nothing for a first release) and the older releases, next to the working tree's
/// model `current` (see [`Snapshots`]).
fn read_snapshots(
    history: &History<'_>,
    releases: &CheckedReleases,
    current: Arc<Snapshot>,
    progress: &mut dyn Progress,
) -> Result<Snapshots, WorkspaceError> {
    let base = read_base(history, releases)?;
    let older = read_older_releases(history, &releases.older, &current, progress);
    Ok(Snapshots {
        current,
        base,
        older,
    })
}

/// Of each older release, what a comparison with the working tree reads (see
/// [`compare::OlderReleaseKeep`]). A protocol is compared once per distinct shape: a later release with
/// the same shape gives the same findings, which the first (older) one already reports, so it is not even
/// read. A release whose source no longer parses is reported to `progress` and left out: only its records
/// and `min_compatible` would need it.
fn read_older_releases(
    history: &History<'_>,
    older: &[Release],
    current: &Snapshot,
    progress: &mut dyn Progress,
) -> Vec<(String, ReleaseParts)> {
    let filter = compare::OlderReleaseKeep::new(&current.protocols);
    let keep = |old: &ProtocolDecl| filter.keep(old);
    let mut compared: BTreeSet<(String, String)> = BTreeSet::new();
    let read = read_releases(older, progress, |release| {
        let unseen =
            |name: &str, shape: &str| !compared.contains(&(name.to_owned(), shape.to_owned()));
        let parts = history.release_parts(
            &release.commit,
            &release.tag,
            (&keep, filter.name()),
            &unseen,
        )?;
        let shapes = parts.parts.iter();
        compared.extend(shapes.map(|p| (p.name.clone(), p.shape().to_owned())));
        Ok(parts)
    });
    read.into_iter()
        .map(|(release, parts)| (release.tag.clone(), parts))
        .collect()
}

/// Adds to each protocol the `fixtures_missing` finding of the golden wire fixtures, when the baseline
/// release's are not all committed (the baseline's model is read only when a protocol keeps fixtures).
fn add_missing_fixtures(
    protocols: &mut [ProtocolChanges],
    history: &History<'_>,
    releases: &CheckedReleases,
    models: &Models,
) -> Result<(), WorkspaceError> {
    for protocol in protocols {
        let Some(new) = models.current_protocol(&protocol.name) else {
            continue;
        };
        if crate::fixtures::fixtures_folder(history, new).is_none() {
            continue;
        }
        let base = models.base(history, releases)?;
        let missing = crate::fixtures::missing_fixtures(history, &releases.baseline, base, new);
        protocol.findings.extend(missing);
    }
    Ok(())
}
