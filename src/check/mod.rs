//! The check: the working tree against the baseline release (and the older releases that must still
//! interoperate), per protocol, with the bump each protocol requires.
//!
//! [`check`] is a pipeline, one step per function:
//!
//! 1. load the workspace, its `wirecheck.toml` and its repository, and select the releases
//!    ([`crate::workspace`]);
//! 2. read the snapshots: the working tree, the baseline, and of each older release the protocols whose
//!    shape no earlier release had;
//! 3. compare them (`compare`, pure);
//! 4. apply the policy: the missing golden fixtures, the `wirecheck.toml` allows, then each protocol's
//!    verdict, computed once ([`crate::policy`]);
//! 5. attach the source text of every file a finding points into (`sources`), so that the renderers of
//!    `report` read nothing but the [`Report`].

mod compare;
mod kept;
mod named;
mod since;
mod skipped;
mod snapshots;
mod sources;
mod window;

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{self, AllowNote, Config, ConfigError};
use crate::model::{ProtocolDecl, Snapshot};
use crate::outcome::ProtocolChanges;
use crate::policy::Allows;
use crate::source::Release;
use crate::store::{ReleaseParts, Store};
use crate::workspace::{
    BaselineRequest, CheckedReleases, History, Progress, Workspace, WorkspaceError, read_releases,
    revision_error,
};
use compare::OlderRelease;
use kept::Compared;

use crate::outcome::skipped_statements;
/// The check's result types, defined in [`crate::outcome`] so that the renderers read them without
/// depending on the driver.
pub use crate::outcome::{
    Baseline, BaselineChoice, ProtocolReport, Report, SkipReason, SkippedRelease,
};

/// Why a check could not run (exit code 2). Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The workspace, its repository or one of the revisions compared could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// `wirecheck.toml` is unreadable or has an invalid `[[allow]]` or `[shapes]` entry.
    #[error(
        "{0}. Fix the file (every [[allow]] needs rule, message and reason; every [shapes] entry maps a type's path to a Rust type)"
    )]
    Config(#[from] ConfigError),
    /// A committed snapshot (or one named with `--against-snapshot`) could not be read.
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// The published packages (`--against-registry`) could not be fetched or read.
    #[error(transparent)]
    Registry(#[from] crate::registry::RegistryError),
}

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The workspace's `Cargo.toml` (default: found from the current directory).
    pub manifest_path: Option<PathBuf>,
    /// The baseline revision (default: the last release tag).
    pub against: Option<String>,
    /// The release tag glob (default `v*`).
    pub tag_pattern: String,
    /// Only these packages (default: every workspace member).
    pub packages: Vec<String>,
    /// Extract every release again instead of reading what an earlier check kept in the
    /// [store](crate::store).
    pub no_cache: bool,
    /// Compare with the baseline alone, not with the older releases (for a shallow clone that has only
    /// the baseline); the report says so.
    pub baseline_only: bool,
    /// No release tag yet: compare with nothing and report every protocol as new; the report says so.
    /// Refused once a release precedes HEAD.
    pub first_release: bool,
    /// The cargo features the packages are checked with (default: each package's `default`).
    pub features: crate::extract::FeatureRequest,
    /// Compare with these committed snapshot files (`wirecheck snapshot --write`) instead of a
    /// revision: of each protocol, the highest version named is the baseline.
    pub against_snapshot: Vec<PathBuf>,
    /// Compare with the published release of the packages (`--against-registry`): `Some(None)` for
    /// the highest version below each package's own, `Some(Some(v))` for version `v`.
    pub against_registry: Option<Option<semver::Version>>,
}

/// Runs the check, telling `progress` about the older releases it reads (an older release that cannot
/// be read is left out, not fatal).
pub fn check(options: &CheckOptions, progress: &mut dyn Progress) -> Result<Report, CheckError> {
    check_in(options, progress, false)
}

/// [`check`] for a process that exits once the report is out: what the check parsed and lowered is
/// left to the operating system, not freed (the store's files are still all written).
pub(crate) fn check_then_exit(
    options: &CheckOptions,
    progress: &mut dyn Progress,
) -> Result<Report, CheckError> {
    check_in(options, progress, true)
}

/// [`check`]; with `exiting`, see [`check_then_exit`].
fn check_in(
    options: &CheckOptions,
    progress: &mut dyn Progress,
    exiting: bool,
) -> Result<Report, CheckError> {
    // While `cargo metadata` runs, the second core reads the working tree from a guess of its crates.
    let early =
        crate::workspace::start_read_ahead(options.manifest_path.as_deref(), options.no_cache);
    let mut workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let config = config::load(&workspace.root)?;
    workspace.check_features(&options.features)?;
    workspace.options = crate::extract::ExtractOptions {
        features: options.features.clone(),
        shapes: config.shapes.clone(),
    };
    let repo = workspace.repository()?;
    if !options.against_snapshot.is_empty() {
        let chosen = snapshots::Chosen::Named(options.against_snapshot.clone());
        return snapshots::check(&workspace, &config, &repo, (chosen, options.no_cache));
    }
    if let Some(version) = &options.against_registry {
        let chosen = snapshots::Chosen::Registry(version.clone(), options.packages.clone());
        return snapshots::check(&workspace, &config, &repo, (chosen, options.no_cache));
    }
    let request = BaselineRequest {
        against: options.against.as_deref(),
        tag_pattern: &options.tag_pattern,
        baseline_only: options.baseline_only,
        first_release: options.first_release,
    };
    let mut progress = skipped::SkipRecorder::new(progress);
    let releases = match CheckedReleases::select(&repo, &request, &mut progress) {
        Ok(releases) => releases,
        // A clone without the tags: the committed snapshots stand for the releases.
        Err(error)
            if options.against.is_none() && snapshots::stands_in(&error, &workspace.root) =>
        {
            let chosen = (snapshots::Chosen::Committed, options.no_cache);
            return snapshots::check(&workspace, &config, &repo, chosen);
        }
        Err(error) => return Err(error.into()),
    };
    let history = History::new(&workspace, &repo, options.no_cache);
    if let Some(early) = early {
        history.offer_read_ahead(early);
    }
    let (compared, models) = compare_models(&history, &releases, &mut progress)?;
    let Compared {
        mut protocols,
        notes,
    } = compared;
    if let Some(selected) = selected_protocols(&history, &models)? {
        protocols.retain(|p| selected.contains(&p.name));
    }
    add_missing_fixtures(&mut protocols, &history, &releases, &models)?;
    let allow_notes = allow(&mut protocols, &config);
    let skipped = progress.into_skipped();
    let older = skipped::tags(&releases.older);
    let mut report = judge(
        &releases.baseline,
        protocols,
        notes,
        allow_notes,
        (older, skipped),
    );
    report.sources = sources::collect(&report, &config, &history, &releases);
    if exiting {
        history.leave_to_exit();
    }
    Ok(report)
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

/// Applies the `[[allow]]` entries of `wirecheck.toml` to the findings (see [`Allows`]), giving the notes
/// on the entries that expired or matched nothing.
fn allow(protocols: &mut [ProtocolChanges], config: &Config) -> Vec<AllowNote> {
    let mut allows = Allows::new(config);
    for protocol in protocols {
        allows.apply(
            &protocol.name,
            protocol.new_version.as_ref(),
            &mut protocol.findings,
        );
    }
    allows.notes()
}

/// The report: each protocol's verdict on its findings (once every allow is applied), with what it must
/// state about its baseline and the releases skipped (`older`, the older releases' tags, and the ones
/// `skipped` while reading), the extraction's notes and the notes on the allows.
fn judge<'t>(
    baseline: &Baseline,
    protocols: Vec<ProtocolChanges>,
    notes: Vec<String>,
    allow_notes: Vec<AllowNote>,
    (older, mut skipped): (impl IntoIterator<Item = &'t str>, Vec<SkippedRelease>),
) -> Report {
    let protocols: Vec<ProtocolReport> =
        protocols.into_iter().map(ProtocolChanges::judge).collect();
    let outside = skipped::outside_every_window(older, &protocols, &skipped);
    skipped.extend(outside);
    let statements = baseline
        .statements()
        .into_iter()
        .chain(skipped_statements(&skipped));
    Report {
        baseline: baseline.clone(),
        ok: protocols.iter().all(|p| p.ok),
        protocols,
        skipped_releases: skipped,
        notes: statements.chain(notes).collect(),
        allow_notes,
        sources: Default::default(),
    }
}

/// Compares the working tree's snapshot with the baseline's and with older releases (oldest first),
/// giving the report, without `wirecheck.toml` and without source text. Pure: no git, no files.
pub fn compare_snapshots(
    baseline: &Baseline,
    base: &Snapshot,
    older: &[(String, Snapshot)],
    current: &Snapshot,
) -> Report {
    let tags = older.iter().map(|(tag, _)| tag.as_str());
    let older = OlderRelease::whole(older);
    let protocols = compare::protocols(baseline, (base, None), &older, current, &Store::disabled());
    let notes = compare::notes(baseline, &base.notes, current);
    judge(baseline, protocols, notes, Vec::new(), (tags, Vec::new()))
}

/// Applies the `[[allow]]` entries of `wirecheck.toml` to a report: each matching finding is marked
/// allowed with the entry's reason (unless the source already allows it), each protocol's verdict is
/// recomputed, and entries that matched nothing or whose `until` the protocol's version has reached are
/// added to [`Report::allow_notes`]. An expired entry allows nothing.
pub fn apply_config(report: &mut Report, config: &Config) {
    let mut allows = Allows::new(config);
    for protocol in &mut report.protocols {
        allows.apply(
            &protocol.name,
            protocol.new_version.as_ref(),
            &mut protocol.findings,
        );
        protocol.judge_again();
    }
    report.ok = report.protocols.iter().all(|p| p.ok);
    report.allow_notes.extend(allows.notes());
}
