//! The check: the working tree against the baseline release (and the older releases that must still
//! interoperate), per protocol, with the bump each protocol requires.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use semver::Version;
use serde::Serialize;

use crate::compat::{self, Scope};
use crate::config::{self, AllowNote, Config, ConfigError};
use crate::extract::{self, CrateRoot, ExtractError};
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{Location, Snapshot};
use crate::policy;
use crate::rules::RuleId;
use crate::source::{Release, Repo, SourceError, WorkTree};
use crate::store::Store;

/// Why a check could not run (exit code 2). Every variant says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// `cargo metadata` failed.
    #[error(
        "cannot read the workspace with cargo metadata: {0}. Pass --manifest-path to the workspace's Cargo.toml"
    )]
    Metadata(String),
    /// No package matches `-p`.
    #[error("no workspace package named `{0}` (see `cargo metadata --no-deps` for the names)")]
    NoSuchPackage(String),
    /// Git or baseline trouble.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The working tree's source cannot be read.
    #[error("cannot read the working tree: {0}. Fix the source (cargo check shows the same error)")]
    Current(ExtractError),
    /// `wirecheck.toml` is unreadable or has an invalid `[[allow]]` entry.
    #[error("{0}. Fix the file (every [[allow]] needs rule, message and reason)")]
    Config(#[from] ConfigError),
    /// A revision's source cannot be read.
    #[error(
        "cannot read the source at {rev}: {error}. The baseline must hold valid Rust; pick another with --against REV"
    )]
    Revision {
        /// The revision.
        rev: String,
        /// What failed (boxed: it is large, and errors should stay cheap to return).
        error: Box<ExtractError>,
    },
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
}

/// A workspace: its root and the crates to extract.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace root directory.
    pub root: PathBuf,
    /// The crates, by root file relative to the workspace root.
    pub crates: Vec<CrateRoot>,
    /// Cargo's target directory, where the [store](crate::store) lives.
    pub target_dir: PathBuf,
}

impl Workspace {
    /// The store of release models for this workspace (at its place in `repo`); with `disabled`, one
    /// that keeps nothing.
    pub fn store(&self, repo: &Repo, disabled: bool) -> Store {
        if disabled {
            Store::disabled()
        } else {
            Store::open(&self.target_dir, repo.workspace_prefix(), &self.crates)
        }
    }
}

/// Reads the workspace members and their crate roots with `cargo metadata`.
pub fn load_workspace(
    manifest_path: Option<&Path>,
    packages: &[String],
) -> Result<Workspace, CheckError> {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(path) = manifest_path {
        cmd.manifest_path(path);
    }
    let meta = cmd
        .exec()
        .map_err(|e| CheckError::Metadata(e.to_string()))?;
    let root = meta.workspace_root.clone().into_std_path_buf();
    for wanted in packages {
        if !meta
            .workspace_packages()
            .iter()
            .any(|p| p.name.as_str() == wanted)
        {
            return Err(CheckError::NoSuchPackage(wanted.clone()));
        }
    }
    let mut crates = Vec::new();
    for pkg in meta.workspace_packages() {
        if !packages.is_empty() && !packages.iter().any(|w| pkg.name.as_str() == w) {
            continue;
        }
        for target in &pkg.targets {
            if !(target.is_lib() || target.is_bin()) {
                continue;
            }
            let Ok(rel) = target.src_path.as_std_path().strip_prefix(&root) else {
                continue;
            };
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            crates.push(CrateRoot {
                name: target.name.replace('-', "_"),
                root_file: rel,
            });
        }
    }
    crates.sort_by(|a, b| a.root_file.cmp(&b.root_file));
    crates.dedup();
    Ok(Workspace {
        root,
        crates,
        target_dir: meta.target_directory.clone().into_std_path_buf(),
    })
}

/// The baseline a check compares against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baseline {
    /// The tag or revision.
    pub rev: String,
    /// Its commit.
    pub commit: String,
}

/// One protocol's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolReport {
    /// The protocol's name.
    pub name: String,
    /// Its version at the baseline (`None` when new since then).
    pub old_version: Option<Version>,
    /// Its version in the working tree (`None` when removed).
    pub new_version: Option<Version>,
    /// The highest level among the counted findings.
    pub required_bump: Level,
    /// The lowest version the changes allow.
    pub required_version: Option<Version>,
    /// The declared new version meets the required one.
    pub ok: bool,
    /// Every finding, counted or not.
    pub findings: Vec<Finding>,
}

/// The result of `wirecheck check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// What was compared against.
    pub baseline: Baseline,
    /// Every protocol is ok.
    pub ok: bool,
    /// Per protocol, sorted by name.
    pub protocols: Vec<ProtocolReport>,
    /// What the extraction could not see through, at either side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `wirecheck.toml` entries that matched nothing or have expired.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow_notes: Vec<AllowNote>,
    /// The text of every file a finding or note points into, by [`source_label`], so renderers can show
    /// snippets without reading files or git. Not part of the JSON output.
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

/// Extracts the working tree's model.
pub fn current_snapshot(ws: &Workspace) -> Result<Snapshot, CheckError> {
    extract::extract(&ws.crates, &WorkTree::new(&ws.root)).map_err(CheckError::Current)
}

/// Extracts the model at a commit, from git objects.
pub fn revision_snapshot(
    ws: &Workspace,
    repo: &Repo,
    commit: &str,
    rev: &str,
) -> Result<Snapshot, CheckError> {
    let reader = repo.at(commit)?;
    extract::extract(&ws.crates, &reader).map_err(|error| CheckError::Revision {
        rev: rev.to_owned(),
        error: Box::new(error),
    })
}

/// [`current_snapshot`], sharing `cache` with the other revisions a check reads.
pub fn current_snapshot_cached(
    ws: &Workspace,
    cache: &extract::SourceCache,
) -> Result<Snapshot, CheckError> {
    extract::extract_cached(&ws.crates, &WorkTree::new(&ws.root), cache)
        .map_err(CheckError::Current)
}

/// [`revision_snapshot`], sharing `cache` with the other revisions a check reads; with `keep`, only the
/// messages it asks for (see [`extract::extract_filtered`]).
pub fn revision_snapshot_cached(
    ws: &Workspace,
    repo: &Repo,
    (commit, rev): (&str, &str),
    cache: &extract::SourceCache,
    keep: Option<&dyn Fn(&crate::model::ProtocolDecl) -> extract::Keep>,
) -> Result<Snapshot, CheckError> {
    let reader = repo.at(commit)?;
    match keep {
        Some(keep) => extract::extract_filtered(&ws.crates, &reader, cache, keep),
        None => extract::extract_cached(&ws.crates, &reader, cache),
    }
    .map_err(|error| CheckError::Revision {
        rev: rev.to_owned(),
        error: Box::new(error),
    })
}

/// What [`compare_snapshots`] reads of an older release's protocol, given the working tree's model:
/// every message from the protocol's `min_compatible` on, else only its records; nothing of a protocol
/// the working tree no longer declares.
fn older_release_keep(current: &Snapshot) -> impl Fn(&crate::model::ProtocolDecl) -> extract::Keep {
    move |old| match current.protocol(&old.name) {
        None => extract::Keep::Nothing,
        Some(new) => match &new.min_compatible {
            Some(min) if old.version >= *min => extract::Keep::All,
            _ => extract::Keep::Records,
        },
    }
}

/// Runs the check.
pub fn check(options: &CheckOptions) -> Result<Report, CheckError> {
    let ws = load_workspace(options.manifest_path.as_deref(), &options.packages)?;
    let config = config::load(&ws.root)?;
    let repo = Repo::discover(&ws.root)?;
    let pattern = if options.tag_pattern.is_empty() {
        "v*"
    } else {
        &options.tag_pattern
    };
    let (baseline, older) = match &options.against {
        Some(rev) => {
            let commit = repo.resolve(rev)?;
            let older: Vec<Release> = repo
                .releases(pattern, Some(&commit))?
                .into_iter()
                .filter(|r| r.commit != commit)
                .collect();
            (
                Baseline {
                    rev: rev.clone(),
                    commit,
                },
                older,
            )
        }
        None => {
            let mut releases = repo.releases(pattern, None)?;
            let Some(last) = releases.pop() else {
                return Err(SourceError::NoReleaseTag {
                    pattern: pattern.to_owned(),
                    shallow: repo.is_shallow(),
                }
                .into());
            };
            (
                Baseline {
                    rev: last.tag,
                    commit: last.commit,
                },
                releases,
            )
        }
    };
    // One cache for every revision read: files unchanged between them are read and parsed once. The
    // store keeps what was extracted at release commits for the next check.
    let cache = extract::SourceCache::new();
    let store = ws.store(&repo, options.no_cache);
    let current = current_snapshot_cached(&ws, &cache)?;
    let base = store.whole(&baseline.commit, || {
        revision_snapshot_cached(&ws, &repo, (&baseline.commit, &baseline.rev), &cache, None)
    })?;
    let keep = older_release_keep(&current);
    let mut olds = Vec::new();
    // A protocol is compared once per distinct shape: a later release with the same shape gives the same
    // findings, which the first (older) one already reports.
    let mut compared: BTreeSet<(String, String)> = BTreeSet::new();
    let mut progress = crate::report::Progress::new("reading release", older.len());
    for release in &older {
        progress.step(&release.tag);
        // An older release whose source no longer parses is reported, not fatal: only records and
        // min_compatible need it.
        let at = (release.commit.as_str(), release.tag.as_str());
        let unseen =
            |name: &str, shape: &str| !compared.contains(&(name.to_owned(), shape.to_owned()));
        let parts = store.parts(&release.commit, &keep, &unseen, || {
            revision_snapshot_cached(&ws, &repo, at, &cache, Some(&keep))
        });
        match parts {
            Ok(parts) => {
                compared.extend(parts.iter().map(|p| (p.name.clone(), p.shape().to_owned())));
                let models = parts.iter().map(|p| &p.model);
                olds.push((release.tag.clone(), Snapshot::join(models, Vec::new())));
            }
            Err(e) => {
                progress.finish();
                eprintln!("wirecheck: skipping release {}: {e}", release.tag);
            }
        }
    }
    progress.finish();
    let mut report = compare_snapshots(&baseline, &base, &olds, &current);
    // Golden wire fixtures: the baseline release's must be committed (rule `fixtures_missing`).
    crate::fixtures::report_missing(&mut report, &ws.root, &repo, &base, &current);
    apply_config(&mut report, &config);
    let commits: BTreeMap<&str, &str> =
        std::iter::once((baseline.rev.as_str(), baseline.commit.as_str()))
            .chain(older.iter().map(|r| (r.tag.as_str(), r.commit.as_str())))
            .collect();
    collect_sources(&mut report, &ws.root, &repo, &commits, &config);
    Ok(report)
}

/// Compares the working tree's snapshot with the baseline's and with older releases (oldest first),
/// giving the report. Pure: no git, no files.
pub fn compare_snapshots(
    baseline: &Baseline,
    base: &Snapshot,
    older: &[(String, Snapshot)],
    current: &Snapshot,
) -> Report {
    let names: BTreeSet<&str> = base
        .protocols
        .iter()
        .chain(current.protocols.iter())
        .map(|p| p.name.as_str())
        .collect();
    let mut protocols = Vec::new();
    for name in names {
        let old = base.protocol(name);
        let new = current.protocol(name);
        let mut findings = match (old, new) {
            (Some(_), Some(_)) => {
                compat::compare_protocol(base, current, name, &baseline.rev, Scope::Full)
            }
            (Some(old), None) => vec![protocol_removed(name, old.location.clone(), &baseline.rev)],
            (None, _) => Vec::new(),
        };
        if let Some(new_decl) = new {
            let mut seen: BTreeSet<_> = findings.iter().map(Finding::dedup_key).collect();
            for (tag, snapshot) in older {
                let Some(old_decl) = snapshot.protocol(name) else {
                    continue;
                };
                // Releases from `min_compatible` on get the full table; every older release is still read
                // back through records.
                let scope = match &new_decl.min_compatible {
                    Some(min) if old_decl.version >= *min => Scope::Full,
                    _ => Scope::RecordsOnly,
                };
                let against_new = compat::compare_protocol(snapshot, current, name, tag, scope);
                let against_base: BTreeSet<_> = if base.protocol(name).is_some() {
                    compat::compare_protocol(snapshot, base, name, tag, scope)
                        .iter()
                        .map(Finding::dedup_key)
                        .collect()
                } else {
                    BTreeSet::new()
                };
                for mut f in against_new {
                    if f.level != Level::Major || !seen.insert(f.dedup_key()) {
                        continue;
                    }
                    f.known = against_base.contains(&f.dedup_key());
                    findings.push(f);
                }
            }
        }
        let old_version = old.map(|p| p.version.clone());
        let new_version = new.map(|p| p.version.clone());
        let (required_bump, required_version, ok) =
            verdict(old_version.as_ref(), new_version.as_ref(), &findings);
        protocols.push(ProtocolReport {
            name: name.to_owned(),
            old_version,
            new_version,
            required_bump,
            required_version,
            ok,
            findings,
        });
    }
    let mut notes: Vec<String> = current
        .notes
        .iter()
        .map(|n| {
            format!(
                "{}:{}:{}: {}",
                n.location.file, n.location.line, n.location.column, n.message
            )
        })
        .collect();
    notes.extend(base.notes.iter().map(|n| {
        format!(
            "{}:{}:{}:{}: {}",
            baseline.rev, n.location.file, n.location.line, n.location.column, n.message
        )
    }));
    Report {
        baseline: baseline.clone(),
        ok: protocols.iter().all(|p| p.ok),
        protocols,
        notes,
        allow_notes: Vec::new(),
        sources: BTreeMap::new(),
    }
}

/// The required bump, the required version and whether the declared version meets it.
fn verdict(
    old_version: Option<&Version>,
    new_version: Option<&Version>,
    findings: &[Finding],
) -> (Level, Option<Version>, bool) {
    let level = policy::required_level(findings);
    match (old_version, new_version) {
        (Some(o), Some(n)) => {
            let required = policy::required_version(o, level);
            let ok = *n >= required;
            (level, Some(required), ok)
        }
        (None, Some(n)) => (Level::None, Some(n.clone()), true),
        (_, None) => (
            level,
            None,
            level != Level::Major || findings.iter().all(|f| !f.counts()),
        ),
    }
}

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
        direction: Some(Direction::OldReadsNew),
        against: against.to_owned(),
        location,
        side: Side::Old,
        witness: None,
        known: false,
    }
}

// ---- wirecheck.toml allows and source snippets for the renderers ----

/// Applies the `[[allow]]` entries of `wirecheck.toml` to a report: each matching finding is marked
/// allowed with the entry's reason (unless the source already allows it), each protocol's verdict is
/// recomputed, and entries that matched nothing or whose `until` the protocol's version has reached are
/// added to [`Report::allow_notes`]. An expired entry allows nothing.
pub fn apply_config(report: &mut Report, config: &Config) {
    let mut used = vec![false; config.allows.len()];
    let mut expired: Vec<Option<AllowNote>> = vec![None; config.allows.len()];
    for p in &mut report.protocols {
        for f in &mut p.findings {
            for (i, entry) in config.allows.iter().enumerate() {
                if !entry.matches(f) {
                    continue;
                }
                used[i] = true;
                if entry.expired_at(p.new_version.as_ref()) {
                    if let (None, Some(version)) = (&expired[i], &p.new_version) {
                        expired[i] = Some(AllowNote::expired(entry, &p.name, version));
                    }
                    continue;
                }
                if !f.allowed {
                    f.allowed = true;
                    f.allow_reason = Some(entry.reason_label());
                }
            }
        }
        (p.required_bump, p.required_version, p.ok) =
            verdict(p.old_version.as_ref(), p.new_version.as_ref(), &p.findings);
    }
    report.ok = report.protocols.iter().all(|p| p.ok);
    for (i, entry) in config.allows.iter().enumerate() {
        if let Some(note) = expired[i].take() {
            report.allow_notes.push(note);
        } else if !used[i] {
            report.allow_notes.push(AllowNote::unused(entry));
        }
    }
}

/// The name under which a finding's file is kept in [`Report::sources`] and shown to users: the path for
/// the working tree (`src/sched.rs`), `REV:path` for a file of an older release (`v0.87.0:src/sched.rs`).
pub fn source_label(finding: &Finding) -> String {
    match finding.side {
        Side::New => finding.location.file.clone(),
        Side::Old => format!("{}:{}", finding.against, finding.location.file),
    }
}

/// Fills [`Report::sources`] with the text of every file the findings point into, read with
/// `read(side, against, file)` (the driver reads the working tree from disk and older releases from git
/// objects), and with `wirecheck.toml` when a note points into it. A file `read` cannot give is left
/// out: renderers then show its path and line without a snippet.
pub fn attach_sources(
    report: &mut Report,
    config: &Config,
    read: &mut dyn FnMut(Side, &str, &str) -> Option<String>,
) {
    let mut sources = BTreeMap::new();
    for f in report.protocols.iter().flat_map(|p| &p.findings) {
        let label = source_label(f);
        if sources.contains_key(&label) {
            continue;
        }
        if let Some(text) = read(f.side, &f.against, &f.location.file) {
            sources.insert(label, text);
        }
    }
    if !report.allow_notes.is_empty() {
        sources.insert(config::FILE_NAME.to_owned(), config.text.clone());
    }
    report.sources = sources;
}

/// [`attach_sources`] from the working tree and from git objects at `commits[against]`.
fn collect_sources(
    report: &mut Report,
    root: &Path,
    repo: &Repo,
    commits: &BTreeMap<&str, &str>,
    config: &Config,
) {
    use crate::extract::FileReader as _;
    let work_tree = WorkTree::new(root);
    let mut revisions = BTreeMap::new();
    let mut read = |side: Side, against: &str, file: &str| {
        let bytes = match side {
            Side::New => work_tree.read(file).ok().flatten(),
            Side::Old => {
                let commit = *commits.get(against)?;
                revisions
                    .entry(commit)
                    .or_insert_with(|| repo.at(commit).ok())
                    .as_ref()?
                    .read(file)
                    .ok()
                    .flatten()
            }
        };
        String::from_utf8(bytes?).ok()
    };
    attach_sources(report, config, &mut read);
}
