//! The check: the working tree against the baseline release (and the older releases that must still
//! interoperate), per protocol, with the bump each protocol requires.
//!
//! [`check`] is a pipeline of five steps, each a module; the options are read here and in `baseline`
//! alone, and the store stays beneath the steps (in [`History`] and the comparison's own cache), out of
//! the driver's sight:
//!
//! 1. **find the baseline** (`baseline`): the release tags, or the snapshots standing for them;
//! 2. **extract both sides**: the working tree's model, the baseline's and the older releases', read
//!    lazily through [`History`], which reads each git blob once and keeps what it extracts;
//! 3. **compare** them (`releases` against tags, `snapshots` against snapshots; each protocol by
//!    `compare`, pure), with the missing golden fixtures;
//! 4. **judge the versions** (`verdict`): the `wirecheck.toml` allows, then each protocol's verdict,
//!    computed once ([`crate::policy`]);
//! 5. **report**: attach the source text of every file a finding points into (`sources`), so that the
//!    renderers of `report` read nothing but the [`Report`].

mod baseline;
mod changes;
mod compare;
mod kept;
mod named;
mod releases;
mod since;
mod skipped;
mod snapshots;
mod sources;
mod verdict;
mod window;

use std::path::PathBuf;

use crate::config::{self, Config, ConfigError};
use crate::model::Snapshot;
use crate::policy::Allows;
use crate::source::Repo;
use crate::workspace::{History, Progress, Workspace, WorkspaceError};
use baseline::{Against, Found};
use compare::OlderRelease;

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
pub fn check_then_exit(
    options: &CheckOptions,
    progress: &mut dyn Progress,
) -> Result<Report, CheckError> {
    check_in(options, progress, true)
}

/// [`check`]; with `exiting`, see [`check_then_exit`]. The pipeline of the module's docs.
fn check_in(
    options: &CheckOptions,
    progress: &mut dyn Progress,
    exiting: bool,
) -> Result<Report, CheckError> {
    // While `cargo metadata` runs, the second core reads the working tree from a guess of its crates.
    let early =
        crate::workspace::start_read_ahead(options.manifest_path.as_deref(), options.no_cache);
    let (workspace, config, repo) = open(options)?;
    // Both sides are extracted through it, each when a step first asks.
    let history = History::new(&workspace, &repo, options.no_cache);
    if let Some(early) = early {
        history.offer_read_ahead(early);
    }
    let mut progress = skipped::SkipRecorder::new(progress);
    let Found { releases, against } = baseline::find(options, &history, &mut progress)?;
    let compared = match &against {
        Against::Releases => releases::compare(&history, &releases, &mut progress)?,
        Against::Snapshots(side) => snapshots::compare(&history, side, &releases.baseline)?,
    };
    let mut report = verdict::judge(&releases, compared, &config, progress.into_skipped());
    report.sources = sources::collect(&report, &config, &history, &releases);
    if exiting {
        history.leave_to_exit();
    }
    Ok(report)
}

/// The workspace `options` name (its packages, checked with its features), its `wirecheck.toml` and
/// its repository.
fn open(options: &CheckOptions) -> Result<(Workspace, Config, Repo), CheckError> {
    let mut workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let config = config::load(&workspace.root)?;
    workspace.check_features(&options.features)?;
    workspace.options = crate::extract::ExtractOptions {
        features: options.features.clone(),
        shapes: config.shapes.clone(),
    };
    let repo = workspace.repository()?;
    Ok((workspace, config, repo))
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
    let protocols = compare::protocols_uncached(baseline, base, &older, current);
    let notes = compare::notes(baseline, &base.notes, current);
    verdict::report(baseline, protocols, notes, Vec::new(), (tags, Vec::new()))
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
