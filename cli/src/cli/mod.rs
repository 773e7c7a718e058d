//! The command line, as a library: embed [`Command`] (a clap `Subcommand`) in your own xtask and call
//! [`run_command`], or hand the whole process to [`main`]. (The examples, compiled as doc tests, are on
//! its re-export, `wirecheck::cli`.)

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod progress;

use crate::check::{self, CheckOptions};
use crate::matrix::{self, MatrixOptions};
use crate::report::{self, ChangelogFormat, MatrixFormat, OutputFormat, RenderOptions};
use crate::workspace::{BaselineRequest, CheckedReleases, Workspace};

pub use progress::StderrProgress;

/// `wirecheck`: protocol compatibility linter.
#[derive(Debug, Parser)]
#[command(
    name = "wirecheck",
    version,
    about = "Checks that wire protocols still interoperate with the last release"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare the working tree with the last release; exit 1 when a declared version is short.
    Check(CheckArgs),
    /// Print the release tag and commit `check` would compare against.
    Baseline(BaselineArgs),
    /// Print the extracted protocol model; with --write, commit each protocol's snapshot to
    /// wire-snapshots/ (the baseline of a clone without tags); with --check, exit 1 when one is stale.
    Snapshot(SnapshotArgs),
    /// Schemas of the protocols for peers in other languages: per message, a JSON Schema of what the
    /// writer produces and one of what the reader accepts, or an AsyncAPI 3.0 document of a protocol.
    Schema(SchemaArgs),
    /// Which pairs of the last releases and the working tree interoperate, per protocol.
    Matrix(MatrixArgs),
    /// The wire changes of every release since a tag, per protocol, for release notes: grouped by level,
    /// with the bump required and how to roll each release out.
    Changelog(ChangelogArgs),
    /// Golden wire fixtures: payloads of every message per release, decoded by the skew test.
    #[command(subcommand)]
    Fixtures(FixturesCommand),
    /// List the rules.
    Rules(RulesArgs),
    /// Explain a rule.
    Explain {
        /// The rule id (`field_removed`).
        rule: String,
    },
}

/// Where the workspace is.
#[derive(Debug, Clone, Args)]
pub struct ManifestArgs {
    /// Path to the workspace's Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

/// The build checked: which cargo features `#[cfg(feature = "...")]` items, fields and variants see,
/// named as cargo names them.
#[derive(Debug, Clone, Default, Args)]
pub struct FeatureArgs {
    /// Features to enable (comma- or space-separated, repeatable): `name` for every checked package that
    /// has it, `package/name` for one.
    #[arg(short = 'F', long, value_name = "FEATURES", value_delimiter = ',')]
    pub features: Vec<String>,
    /// Enable every feature of the checked packages.
    #[arg(long)]
    pub all_features: bool,
    /// Do not enable the packages' `default` features.
    #[arg(long)]
    pub no_default_features: bool,
}

impl FeatureArgs {
    /// The request, in the extraction's terms (space-separated lists split as cargo splits them).
    pub fn request(&self) -> crate::extract::FeatureRequest {
        crate::extract::FeatureRequest {
            features: self
                .features
                .iter()
                .flat_map(|list| list.split_whitespace())
                .map(str::to_owned)
                .collect(),
            all_features: self.all_features,
            no_default_features: self.no_default_features,
        }
    }
}

/// `wirecheck check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub features: FeatureArgs,
    /// Compare against this revision instead of the last release tag before HEAD (or, when HEAD is
    /// itself a release with nothing changed on top, the release before it).
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,
    /// Glob of release tags.
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
    /// Only the protocols this package declares or holds messages of (repeatable), each checked whole; a
    /// package with neither is an error.
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    pub packages: Vec<String>,
    /// Compare with the baseline alone, not with the older releases whose records and min_compatible
    /// the check also reads: for a shallow clone that fetched only the baseline tag. The report says so.
    #[arg(long)]
    pub baseline_only: bool,
    /// No release before HEAD yet (no release tag, or HEAD is the first one): compare with nothing and
    /// report every protocol as new (the report says so). Refused once a release precedes HEAD, and in a
    /// shallow clone (which may lack the tags).
    #[arg(long, conflicts_with_all = ["against", "baseline_only"])]
    pub first_release: bool,
    /// Compare with committed snapshot files (`wirecheck snapshot --write`, repeatable: one per protocol,
    /// or several versions of one, the highest the baseline) instead of a revision. Without tags (a
    /// shallow clone) the check uses the committed wire-snapshots/ by itself.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["against", "baseline_only", "first_release"])]
    pub against_snapshot: Vec<PathBuf>,
    /// Compare with the published release of the packages (those of -p, else each one declaring a
    /// protocol), fetched by cargo from their registry: VERSION, else the highest published below each
    /// package's own version.
    #[arg(
        long,
        value_name = "VERSION",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with_all = ["against", "baseline_only", "first_release", "against_snapshot"]
    )]
    pub against_registry: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Extract every release from git again instead of reading the models an earlier run kept in
    /// `<target-dir>/wirecheck/store`.
    #[arg(long)]
    pub no_cache: bool,
}

/// `wirecheck matrix`.
#[derive(Debug, Clone, Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    /// How many of the last release tags to include (the working tree comes on top).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub releases: usize,
    /// Glob of release tags.
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
    /// Only this package (repeatable).
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    pub packages: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Markdown)]
    pub format: MatrixFormat,
    /// Write the matrix to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Extract every release from git again instead of reading the models an earlier run kept in
    /// `<target-dir>/wirecheck/store`.
    #[arg(long)]
    pub no_cache: bool,
}

/// `wirecheck changelog`.
#[derive(Debug, Clone, Args)]
pub struct ChangelogArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    /// The release tag the changelog starts after (every later release tag before HEAD is listed, and
    /// the working tree when it changes the wire).
    #[arg(long, value_name = "TAG")]
    pub since: String,
    /// Glob of release tags.
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
    /// Only the protocols of this package (repeatable).
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    pub packages: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ChangelogFormat::Markdown)]
    pub format: ChangelogFormat,
    /// Write the changelog to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Extract every release from git again instead of reading the models an earlier run kept in
    /// `<target-dir>/wirecheck/store`.
    #[arg(long)]
    pub no_cache: bool,
}

/// `wirecheck baseline`.
#[derive(Debug, Clone, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    /// Glob of release tags.
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
}

/// `wirecheck snapshot`.
#[derive(Debug, Clone, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub features: FeatureArgs,
    /// Read this revision from git instead of the working tree.
    #[arg(long, value_name = "REV", conflicts_with_all = ["write", "check"])]
    pub rev: Option<String>,
    /// Output format (only json).
    #[arg(long, value_enum, default_value_t = SnapshotFormat::Json)]
    pub format: SnapshotFormat,
    /// Write each protocol's snapshot at its declared version to
    /// wire-snapshots/PROTOCOL/VERSION.json (a file the last release committed is never rewritten).
    #[arg(long, conflicts_with = "check")]
    pub write: bool,
    /// Write nothing; exit 1 when a protocol's committed snapshot is missing or no longer matches the
    /// code.
    #[arg(long)]
    pub check: bool,
    /// With --write or --check: only the protocols of this package (repeatable).
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    pub packages: Vec<String>,
    /// Glob of release tags (to find the last release, whose snapshots are never rewritten).
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
}

/// Formats of `wirecheck snapshot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SnapshotFormat {
    /// The model as JSON.
    Json,
}

/// `wirecheck schema`.
#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub features: FeatureArgs,
    /// Read this revision from git instead of the working tree.
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// What to write.
    #[arg(long, value_enum, default_value_t = SchemaFormat::JsonSchema)]
    pub format: SchemaFormat,
    /// Only this protocol (repeatable); an AsyncAPI document needs one when several are declared.
    #[arg(long = "protocol", value_name = "NAME")]
    pub protocols: Vec<String>,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Formats of `wirecheck schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaFormat {
    /// Per protocol and message, the writer's and the reader's JSON Schema (draft 2020-12).
    JsonSchema,
    /// One protocol as an AsyncAPI 3.0 document.
    Asyncapi,
}

/// `wirecheck fixtures ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum FixturesCommand {
    /// Write each protocol's fixtures for its declared version (a released version's files are never
    /// rewritten); with --check, write nothing and exit 1 when a file is missing or stale.
    Write(FixturesWriteArgs),
}

/// `wirecheck fixtures write`.
#[derive(Debug, Clone, Args)]
pub struct FixturesWriteArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub manifest: ManifestArgs,
    /// Only this package (repeatable).
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    pub packages: Vec<String>,
    /// Write under DIR/PROTOCOL/VERSION/ instead of each package's wire-fixtures/.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Write the fixtures of the release at REV, from git objects (for a release that forgot them).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Glob of release tags (to find the last release, whose fixtures are never rewritten).
    #[arg(long, value_name = "GLOB", default_value = "v*")]
    pub tag_pattern: String,
    /// Write nothing; exit 1 when a fixture is missing or stale.
    #[arg(long)]
    pub check: bool,
}

/// `wirecheck rules`.
#[derive(Debug, Clone, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Human)]
    pub format: RulesFormat,
}

/// Formats of `wirecheck rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesFormat {
    /// A table: id, level and summary per line.
    Human,
    /// A JSON array.
    Json,
}

/// Parses the process's arguments and runs; a `main`. The process is to end with the command: a check
/// leaves what it parsed to the operating system instead of freeing it.
pub fn main() -> ExitCode {
    ExitCode::from(main_status())
}

/// [`main`], giving its exit status as a number, for a binary that ends the process itself: the
/// `wirecheck` binary ends it at once, without the C runtime's exit handlers. Everything the command
/// writes is written, and its standard output flushed, when this returns.
pub fn main_status() -> u8 {
    finish(execute(Cli::parse().command, Then::Exit))
}

/// Parses `args` (the first one is the program's name, as in `std::env::args_os()`) and runs. A usage
/// error prints clap's message and exits 2.
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match Cli::try_parse_from(args) {
        Ok(cli) => run(cli),
        Err(e) => {
            let _ = e.print();
            ExitCode::from(if e.use_stderr() { 2 } else { 0 })
        }
    }
}

/// Runs a parsed command line: exit 0 ok, 1 a protocol's version is short, 2 the check could not run.
pub fn run(cli: Cli) -> ExitCode {
    run_command(cli.command)
}

/// Runs one subcommand, for an xtask that embeds [`Command`] in its own clap parser. Same exit codes
/// as [`run`].
pub fn run_command(command: Command) -> ExitCode {
    ExitCode::from(finish(execute(command, Then::Return)))
}

/// What the process does once a command is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    /// It exits: memory is left to the operating system.
    Exit,
    /// It goes on (an xtask, a test): everything is freed.
    Return,
}

/// The exit code of a command's outcome; an error is printed.
fn finish(outcome: Result<u8, String>) -> u8 {
    match outcome {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

fn emit(text: &str, output: Option<&PathBuf>) -> Result<(), String> {
    match output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| format!("cannot write to stdout: {e}"))
        }
    }
}

fn execute(command: Command, then: Then) -> Result<u8, String> {
    match command {
        Command::Check(args) => check_command(&args, then),
        Command::Baseline(args) => baseline_command(&args),
        Command::Snapshot(args) => snapshot_command(&args),
        Command::Schema(args) => schema_command(&args),
        Command::Matrix(args) => matrix_command(&args),
        Command::Changelog(args) => changelog_command(&args),
        Command::Fixtures(FixturesCommand::Write(args)) => fixtures_write(&args),
        Command::Rules(args) => rules_command(&args),
        Command::Explain { rule } => explain_command(&rule),
    }
}

/// `wirecheck check`: exit 1 when a protocol's declared version is short.
fn check_command(args: &CheckArgs, then: Then) -> Result<u8, String> {
    let options = CheckOptions {
        manifest_path: args.manifest.manifest_path.clone(),
        against: args.against.clone(),
        tag_pattern: args.tag_pattern.clone(),
        packages: args.packages.clone(),
        no_cache: args.no_cache,
        baseline_only: args.baseline_only,
        first_release: args.first_release,
        features: args.features.request(),
        against_snapshot: args.against_snapshot.clone(),
        against_registry: registry_version(args.against_registry.as_deref())?,
    };
    let mut progress = StderrProgress::for_check();
    let report = match then {
        Then::Exit => check::check_then_exit(&options, &mut progress),
        Then::Return => check::check(&options, &mut progress),
    }
    .map_err(|e| e.to_string())?;
    let render_options = RenderOptions {
        color: args.format == OutputFormat::Human
            && args.output.is_none()
            && report::color_for_stdout(),
    };
    emit(
        &report::render_with(&report, args.format, &render_options),
        args.output.as_ref(),
    )?;
    Ok(if report.ok { 0 } else { 1 })
}

/// The version `--against-registry` names: `None` without the flag, `Some(None)` with it alone.
fn registry_version(value: Option<&str>) -> Result<Option<Option<semver::Version>>, String> {
    match value {
        None => Ok(None),
        Some("") => Ok(Some(None)),
        Some(text) => semver::Version::parse(text.trim_start_matches('v'))
            .map(|version| Some(Some(version)))
            .map_err(|e| {
                format!("--against-registry {text}: not a version ({e}): name one such as 0.87.0")
            }),
    }
}

/// `wirecheck baseline`: the release tag and commit `check` compares against.
fn baseline_command(args: &BaselineArgs) -> Result<u8, String> {
    let workspace =
        Workspace::load(args.manifest.manifest_path.as_deref(), &[]).map_err(|e| e.to_string())?;
    let repo = workspace.repository().map_err(|e| e.to_string())?;
    let request = BaselineRequest {
        tag_pattern: &args.tag_pattern,
        // Only the baseline is printed: whether the older releases can be read is `check`'s concern.
        baseline_only: true,
        ..BaselineRequest::default()
    };
    let mut baseline = CheckedReleases::select(&repo, &request, &mut StderrProgress::for_check())
        .map_err(|e| e.to_string())?
        .baseline;
    emit(&format!("{} {}\n", baseline.rev, baseline.commit), None)?;
    baseline.baseline_only = false;
    for statement in baseline.statements() {
        eprintln!("note: {statement}");
    }
    Ok(0)
}

/// `wirecheck snapshot`: the model of the working tree, or of `--rev`, as JSON; `--write` and `--check`
/// the committed snapshots.
fn snapshot_command(args: &SnapshotArgs) -> Result<u8, String> {
    if args.write || args.check {
        return snapshot_files(args);
    }
    let snapshot = read_model(&args.manifest, &args.features, args.rev.as_deref())?;
    let mut text = serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())?;
    text.push('\n');
    emit(&text, None)?;
    Ok(0)
}

/// The model `check` reads (the same features and declared shapes) of the working tree, or of `rev`.
fn read_model(
    manifest: &ManifestArgs,
    features: &FeatureArgs,
    rev: Option<&str>,
) -> Result<crate::model::Snapshot, String> {
    let mut workspace =
        Workspace::load(manifest.manifest_path.as_deref(), &[]).map_err(|e| e.to_string())?;
    let config = crate::config::load(&workspace.root).map_err(|e| e.to_string())?;
    let features = features.request();
    workspace
        .check_features(&features)
        .map_err(|e| e.to_string())?;
    workspace.options = crate::extract::ExtractOptions {
        features,
        shapes: config.shapes,
    };
    match rev {
        None => workspace.current_snapshot(),
        Some(rev) => {
            let repo = workspace.repository().map_err(|e| e.to_string())?;
            let commit = repo.resolve(rev).map_err(|e| e.to_string())?;
            workspace.revision_snapshot(&repo, &commit, rev)
        }
    }
    .map_err(|e| e.to_string())
}

/// `wirecheck schema`: the JSON Schemas of every message, or a protocol's AsyncAPI document.
fn schema_command(args: &SchemaArgs) -> Result<u8, String> {
    let model = read_model(&args.manifest, &args.features, args.rev.as_deref())?;
    let document = match args.format {
        SchemaFormat::JsonSchema => crate::schema::json_schemas(&model, &args.protocols),
        SchemaFormat::Asyncapi => crate::schema::asyncapi(&model, &args.protocols),
    }
    .map_err(|e| e.to_string())?;
    let mut text = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?;
    text.push('\n');
    emit(&text, args.output.as_ref())?;
    Ok(0)
}

/// `wirecheck snapshot --write` / `--check`: one line per file that is not unchanged, a summary on
/// stderr, exit 1 with `--check` when a file is missing or stale.
fn snapshot_files(args: &SnapshotArgs) -> Result<u8, String> {
    use crate::snapshot::{self, FileStatus, WriteOptions};
    let report = snapshot::write(&WriteOptions {
        manifest_path: args.manifest.manifest_path.clone(),
        packages: args.packages.clone(),
        tag_pattern: args.tag_pattern.clone(),
        check: args.check,
        features: args.features.request(),
    })
    .map_err(|e| e.to_string())?;
    let mut text = String::new();
    for file in report
        .files
        .iter()
        .filter(|f| f.status != FileStatus::Unchanged)
    {
        text.push_str(&format!("{} {}", file.status.as_str(), file.path));
        match &file.released {
            Some((tag, true)) => text.push_str(&format!(
                " (released in {tag}: never rewritten; only where things are written moved)"
            )),
            Some((tag, false)) => text.push_str(&format!(
                " (released in {tag}: never rewritten, and the code no longer puts the same on the wire: bump the protocol's version, as `wirecheck check` says)"
            )),
            None => {}
        }
        text.push('\n');
    }
    emit(&text, None)?;
    let count = |s: FileStatus| report.files.iter().filter(|f| f.status == s).count();
    eprintln!(
        "wirecheck: {} snapshot files: {} unchanged, {} {}, {} removed",
        report.files.len(),
        count(FileStatus::Unchanged) + count(FileStatus::Moved),
        count(FileStatus::Written) + count(FileStatus::Missing) + count(FileStatus::Stale),
        if args.check {
            "missing or stale"
        } else {
            "written"
        },
        count(FileStatus::Removed),
    );
    if args.check && !report.up_to_date() {
        eprintln!(
            "error: the committed wire snapshots do not match the code: run `wirecheck snapshot --write` and commit wire-snapshots/"
        );
        return Ok(1);
    }
    Ok(0)
}

/// `wirecheck matrix`; the HTML page ends with the wire changelog of the same revisions.
fn matrix_command(args: &MatrixArgs) -> Result<u8, String> {
    let options = MatrixOptions {
        manifest_path: args.manifest.manifest_path.clone(),
        releases: args.releases,
        tag_pattern: args.tag_pattern.clone(),
        packages: args.packages.clone(),
        no_cache: args.no_cache,
        since: None,
    };
    let (revisions, config) = matrix::read_revisions(&options, &mut StderrProgress::for_matrix())
        .map_err(|e| e.to_string())?;
    let matrix = matrix::compute_with_allows(&revisions, &config);
    let changelog =
        (args.format == MatrixFormat::Html).then(|| crate::changelog::compute(&revisions, &config));
    emit(
        &report::render_matrix_with(&matrix, args.format, changelog.as_ref()),
        args.output.as_ref(),
    )?;
    Ok(0)
}

/// `wirecheck changelog --since TAG`.
fn changelog_command(args: &ChangelogArgs) -> Result<u8, String> {
    let options = MatrixOptions {
        manifest_path: args.manifest.manifest_path.clone(),
        releases: 0,
        tag_pattern: args.tag_pattern.clone(),
        packages: args.packages.clone(),
        no_cache: args.no_cache,
        since: Some(args.since.clone()),
    };
    let (revisions, config) = matrix::read_revisions(&options, &mut StderrProgress::for_matrix())
        .map_err(|e| e.to_string())?;
    let changelog = crate::changelog::compute(&revisions, &config);
    emit(
        &report::render_changelog(&changelog, args.format),
        args.output.as_ref(),
    )?;
    Ok(0)
}

/// `wirecheck rules`: every rule with its level and summary.
fn rules_command(args: &RulesArgs) -> Result<u8, String> {
    let text = match args.format {
        RulesFormat::Json => {
            let rules: Vec<_> = crate::rules::RULES
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id, "level": r.level.as_str(), "summary": r.summary,
                    })
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&rules).map_err(|e| e.to_string())?;
            text.push('\n');
            text
        }
        RulesFormat::Human => {
            let width = crate::rules::RULES
                .iter()
                .map(|r| r.id.len())
                .max()
                .unwrap_or(0);
            crate::rules::RULES
                .iter()
                .map(|r| format!("{:width$}  {:5}  {}\n", r.id, r.level.as_str(), r.summary))
                .collect()
        }
    };
    emit(&text, None)?;
    Ok(0)
}

/// `wirecheck explain RULE`.
fn explain_command(rule: &str) -> Result<u8, String> {
    let Some(r) = crate::rules::RuleId::from_id(rule).map(|id| id.rule()) else {
        let suggestion = wirecheck_grammar::closest_rule_id(rule)
            .map(|closest| format!("did you mean `{closest}`? "))
            .unwrap_or_default();
        return Err(format!(
            "no rule `{rule}`: {suggestion}`wirecheck rules` lists them"
        ));
    };
    emit(
        &format!(
            "{} ({})\n\n{}\n\n{}\n",
            r.id,
            r.level.as_str(),
            r.summary,
            r.explanation
        ),
        None,
    )?;
    Ok(0)
}

fn fixtures_write(args: &FixturesWriteArgs) -> Result<u8, String> {
    use crate::fixtures::{self, FileStatus, WriteOptions};
    let report = fixtures::write(&WriteOptions {
        manifest_path: args.manifest.manifest_path.clone(),
        packages: args.packages.clone(),
        dir: args.dir.clone(),
        rev: args.rev.clone(),
        tag_pattern: args.tag_pattern.clone(),
        check: args.check,
    })
    .map_err(|e| e.to_string())?;
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    let mut text = String::new();
    for f in report
        .files
        .iter()
        .filter(|f| f.status != FileStatus::Unchanged)
    {
        text.push_str(&format!("{} {}", f.status.as_str(), f.path));
        if let (FileStatus::Kept, Some(release)) = (f.status, &f.released) {
            text.push_str(&format!(
                " (released in {release}: never rewritten, though this wirecheck generates other bytes)"
            ));
        }
        text.push('\n');
    }
    emit(&text, None)?;
    let count = |s: FileStatus| report.files.iter().filter(|f| f.status == s).count();
    eprintln!(
        "wirecheck: {} fixture files: {} unchanged, {} {}, {} {}",
        report.files.len(),
        count(FileStatus::Unchanged),
        count(FileStatus::Written) + count(FileStatus::Missing) + count(FileStatus::Stale),
        if args.check {
            "missing or stale"
        } else {
            "written"
        },
        count(FileStatus::Removed) + count(FileStatus::Extra),
        if args.check { "extra" } else { "removed" },
    );
    if args.check && !report.up_to_date() {
        eprintln!(
            "error: the wire fixtures are not up to date: run `wirecheck fixtures write` and commit the files"
        );
        return Ok(1);
    }
    Ok(0)
}
