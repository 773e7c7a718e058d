//! `cargo xtask bench`: how long `wirecheck check` takes on a large synthetic workspace, next to the floor
//! of any source-reading checker and to what a build-based checker cannot avoid.
//!
//! What is measured, each as the median wall time of `--runs` runs of a separate process (plus the peak
//! resident memory of the runs, from `/usr/bin/time -v` when it exists):
//!
//! - `check`: the `wirecheck` binary, built with `cargo build --release --features checker`, running
//!   `wirecheck check --format json` in the generated workspace (working tree against the last tag, and the
//!   older tags its records and `min_compatible` need). Twice: with the store warm (what an earlier check
//!   kept in `target/wirecheck/store`: each release is extracted once, ever) and cold (the store removed
//!   before each run, as on a CI runner without a cached target directory). Both must print the same
//!   report.
//! - `check, pull request`: the same workspace, its store holding what a check of it kept (a CI runner's
//!   cache of the last check of `main`), with one message file edited since (an optional field added):
//!   each run starts from a copy of that store and must print what `--no-cache` prints
//!   (`pull_request.rs`).
//! - `check, 10x commits`: the same on a workspace of the same scale whose history has ten times more
//!   commits between the same tags (history length alone: only tags are read, never commits).
//! - `check, 10x tags`: the same on a workspace whose history has ten times more tags (and commits): every
//!   tag is an older release whose records the working tree must still read (the contract). Cold, each
//!   costs what changed in it (unchanged files and directories are reused); warm, a small file read, and
//!   a protocol is compared once per distinct shape of it, not once per tag.
//! - `check, 10x files changed`: the same history, with a working-tree change ten times larger.
//! - `check, generated file`: a workspace of a tenth of the scale plus one generated file of
//!   `--generated-mib` MiB (protobuf-style output that says `wire` in comments and strings, declaring
//!   nothing), committed since the first release: what the check's memory follows is the largest item it
//!   needs, not the largest file.
//! - `check, dependencies`: a workspace of the same scale whose messages also reach types of
//!   `--dependencies` (5) other crates: registry-style packages vendored in `vendor/` (the way
//!   `cargo vendor` leaves them, out of git) that the workspace's `.cargo/config.toml` puts in place of
//!   crates.io and its `Cargo.lock` names (see `synth/deps.rs`). wirecheck follows the types into their
//!   sources, as it would for a user. The history upgrades one package at its last tag and the working
//!   tree another (an optional field added to a type every crate's messages reach): the report must
//!   have findings naming both versions, and no note saying a package's types could not be read.
//! - `check, dependencies absent`: the same workspace with `vendor/` removed, so those types are compared
//!   by path and version (a note names each package, and all of them must be named): the baseline of
//!   `deps/no_deps`, the cost of following dependencies (target: at most 1.20, cold). `cargo check` is
//!   not run on these two (their vendor directory replaces crates.io and holds only the generated
//!   packages, not serde or wirecheck's derive dependencies).
//!
//! - `check, a real history`: every pair of releases of the tendermint-rpc replay that `cargo xtask
//!   realworld` stages, cold and warm (`history.rs`; skipped, saying so, when it is not staged).
//!
//! Every run of a workspace (warm, cold, and one with `--no-cache`) must print the report of the first.
//! - `floor`: `examples/floor.rs`, built the same way: read every `.rs` file of both revisions (the working
//!   tree from disk, the last tag from git objects) and parse each with `syn::parse_file`, nothing else.
//! - `cargo check`: `cargo check --offline --workspace` of a copy of the generated crates (touching the
//!   workspace's own files would leave its git index stale for the checks), in a target directory of
//!   their own, after a warm-up build of the dependencies (serde, serde_json, wirecheck's derives); each run
//!   first touches every `.rs` file of the crates, so it checks the crates' own code and nothing else.
//!   Any checker that builds the baseline pays at least this, once per revision.
//!
//! The runs go in `--runs` rounds, each checking every workspace warm then cold, then running the floor
//! and `cargo check` once: every ratio of the last line compares measurements of the same rounds, so the
//! machine's drift over the minutes of the bench falls on both of its sides alike. The pull-request
//! check runs after the rounds (it edits the first workspace for its runs). Every timed run starts
//! with the writes of the runs before it flushed (`sync`, untimed): no run pays for another's.
//!
//! Release builds for both `check` and the floor: syn is several times slower in a debug build, and a user
//! runs an installed (release) `wirecheck`. The xtask itself (a debug build) only generates and times.

mod history;
mod pull_request;
pub mod synth;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail, ensure};
use clap::Parser;

use synth::{Scale, Summary};

use crate::files::copy_dir;

/// `cargo xtask bench` options.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask bench",
    about = "Times wirecheck check on a synthetic workspace"
)]
pub struct BenchArgs {
    /// `#[derive(Message)]` types.
    #[arg(long, default_value_t = 2000)]
    pub messages: usize,
    /// Files holding them.
    #[arg(long, default_value_t = 400)]
    pub files: usize,
    /// Files without any annotation (shared serde types and service code).
    #[arg(long, default_value_t = 1600)]
    pub plain_files: usize,
    /// Crates.
    #[arg(long, default_value_t = 5)]
    pub crates: usize,
    /// Release tags of the history.
    #[arg(long, default_value_t = 5)]
    pub tags: usize,
    /// Commits between two tags.
    #[arg(long, default_value_t = 4)]
    pub commits_per_tag: usize,
    /// How many times longer the second and third histories are (commits; tags and commits), and how
    /// many times more files the fourth workspace's change touches.
    #[arg(long, default_value_t = 10)]
    pub history_factor: usize,
    /// Runs of each measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// The generator's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The size of the generated file of the fifth workspace, in MiB.
    #[arg(long, default_value_t = 50)]
    pub generated_mib: usize,
    /// Dependency crates whose types the messages of the sixth and seventh workspaces reach (vendored in
    /// the sixth, absent in the seventh).
    #[arg(long, default_value_t = 5)]
    pub dependencies: usize,
    /// Skip the `cargo check` measurement (it builds serde and wirecheck's derives once).
    #[arg(long)]
    pub no_cargo_check: bool,
    /// Generate into this directory and keep it (default: a temporary directory, removed at the end).
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

/// One measurement: wall times of every run and the peak resident memory.
#[derive(Debug, Clone, Default)]
struct Timing {
    runs: Vec<Duration>,
    peak_kib: Option<u64>,
}

impl Timing {
    fn median(&self) -> Duration {
        let mut sorted = self.runs.clone();
        sorted.sort();
        sorted[sorted.len() / 2]
    }

    fn min(&self) -> Duration {
        self.runs.iter().copied().min().unwrap_or_default()
    }

    fn max(&self) -> Duration {
        self.runs.iter().copied().max().unwrap_or_default()
    }

    /// Adds the runs of `other`, measured in another round.
    fn absorb(&mut self, other: Timing) {
        self.runs.extend(other.runs);
        self.peak_kib = self.peak_kib.max(other.peak_kib);
    }
}

/// The workspaces the bench generates and checks, in the order of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The workspace at the given scale.
    Base,
    /// Ten times more commits between the same tags.
    MoreCommits,
    /// Ten times more tags.
    MoreTags,
    /// A working-tree change ten times larger.
    BiggerChange,
    /// A tenth of the scale plus one generated file.
    GeneratedFile,
    /// Messages reaching types of vendored dependency crates.
    Dependencies,
    /// The same workspace with the vendored sources removed.
    DependenciesAbsent,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::Base,
        Kind::MoreCommits,
        Kind::MoreTags,
        Kind::BiggerChange,
        Kind::GeneratedFile,
        Kind::Dependencies,
        Kind::DependenciesAbsent,
    ];

    fn dir_name(self) -> &'static str {
        match self {
            Kind::Base => "ws",
            Kind::MoreCommits => "ws-more-commits",
            Kind::MoreTags => "ws-more-tags",
            Kind::BiggerChange => "ws-bigger-change",
            Kind::GeneratedFile => "ws-generated-file",
            Kind::Dependencies => "ws-dependencies",
            Kind::DependenciesAbsent => "ws-dependencies-absent",
        }
    }

    /// The scale this workspace is generated at.
    fn scale(self, args: &BenchArgs) -> Scale {
        let base = Scale {
            messages: args.messages,
            files: args.files,
            plain_files: args.plain_files,
            crates: args.crates,
            tags: args.tags,
            commits_per_tag: args.commits_per_tag,
            change: 1,
            seed: args.seed,
            generated_bytes: 0,
            dependencies: 0,
        };
        let factor = args.history_factor;
        match self {
            Kind::Base => base,
            Kind::MoreCommits => Scale {
                commits_per_tag: args.commits_per_tag * factor,
                ..base
            },
            Kind::MoreTags => Scale {
                tags: args.tags * factor,
                ..base
            },
            Kind::BiggerChange => Scale {
                change: factor,
                ..base
            },
            Kind::GeneratedFile => Scale {
                messages: (args.messages / 10).max(args.crates * 3),
                files: (args.files / 10).max(args.crates),
                plain_files: args.plain_files / 10,
                generated_bytes: args.generated_mib * 1024 * 1024,
                ..base
            },
            Kind::Dependencies | Kind::DependenciesAbsent => Scale {
                dependencies: args.dependencies,
                ..base
            },
        }
    }

    /// The report's row for this workspace's warm check (the cold one follows as "same, store cold").
    fn row(self, summary: &Summary, factor: usize) -> String {
        match self {
            Kind::Base => format!("wirecheck check (against {}), store warm", summary.last_tag),
            Kind::MoreCommits => format!("wirecheck check, {factor}x commits, store warm"),
            Kind::MoreTags => format!(
                "wirecheck check, {factor}x tags (against {}), store warm",
                summary.last_tag
            ),
            Kind::BiggerChange => format!(
                "wirecheck check, {factor}x files changed ({}), store warm",
                summary.changed_files
            ),
            Kind::GeneratedFile => format!(
                "wirecheck check, one generated file of {} (1/10 scale), store warm",
                mib(summary.generated_bytes)
            ),
            Kind::Dependencies => format!(
                "wirecheck check, messages reaching {} vendored crates, store warm",
                summary.dependencies.len()
            ),
            Kind::DependenciesAbsent => "  same, the crates' sources absent, store warm".to_owned(),
        }
    }
}

/// A generated workspace.
struct Workspace {
    kind: Kind,
    dir: PathBuf,
    summary: Summary,
}

/// One workspace's checks: warm and cold timings, and the report every run printed.
struct Checked {
    warm: Timing,
    cold: Timing,
    report: String,
}

/// The workspace of `kind` and its checks (`checks` in the order of `workspaces`).
fn of<'a>(
    workspaces: &'a [Workspace],
    checks: &'a [Checked],
    kind: Kind,
) -> Option<(&'a Workspace, &'a Checked)> {
    let at = workspaces.iter().position(|w| w.kind == kind)?;
    Some((&workspaces[at], checks.get(at)?))
}

/// Runs `cargo xtask bench ARGS`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let args = match parse_args(args) {
        Ok(args) => args,
        Err(code) => return Ok(code),
    };
    let repo_root = crate::workspace_root();
    let (wirecheck, floor) = build_release(&repo_root)?;
    let temp = tempfile::tempdir()?;
    let base_dir = match &args.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir.canonicalize()?
        }
        None => temp.path().to_path_buf(),
    };
    let workspaces = generate_workspaces(&args, &base_dir, &repo_root)?;
    let memory = Path::new("/usr/bin/time").exists();
    eprintln!(
        "bench: wirecheck check on the {} workspaces, store warm and cold ({} rounds, interleaved)",
        workspaces.len(),
        args.runs
    );
    let dirs: Vec<&Path> = workspaces.iter().map(|w| w.dir.as_path()).collect();
    let base = &workspaces[0];
    let mut checks = first_checks(&wirecheck, &dirs)?;
    let cargo = if args.no_cargo_check {
        None
    } else {
        Some(CargoCheck::prepare(&base.dir, &base_dir, &repo_root)?)
    };
    // Every ratio of the last line compares measurements of the same rounds: the machine's drift over
    // the minutes of the bench falls on both sides alike.
    let mut floor_t = Timing::default();
    let mut cargo_t = Timing::default();
    for round in 1..=args.runs {
        eprintln!("bench: round {round} of {}", args.runs);
        check_round(&wirecheck, &dirs, &mut checks, memory)?;
        floor_t.absorb(measure_floor(&floor, base, 1, memory)?);
        if let Some(cargo) = &cargo {
            cargo_t.absorb(cargo.run(memory)?);
        }
    }
    let cargo_check = cargo.map(|_| cargo_t);
    let evidence = DependencyEvidence::read(&workspaces, &checks)?;
    eprintln!("bench: a pull-request check");
    let pull_request = pull_request::measure_pull_request(
        &wirecheck,
        &base.dir,
        &base.summary.crates[0],
        args.runs,
        memory,
    )?;
    eprintln!("bench: a real history, pair by pair");
    let history = history::measure_history(&wirecheck, args.runs)?;
    print_report(&args, &workspaces, &checks, &evidence, memory);
    if let Some(history) = &history {
        println!("{}", history.line());
    }
    let measured = Measured {
        checks: &checks,
        pull_request: &pull_request,
        floor: &floor_t,
        cargo_check: cargo_check.as_ref(),
    };
    print_rows(&rows(&args, &workspaces, &measured));
    print_ratios(&args, &workspaces, &measured);
    drop(temp);
    Ok(ExitCode::SUCCESS)
}

/// The options, or the exit code when they are not options to run with (`--help`, a usage error).
fn parse_args(args: &[String]) -> Result<BenchArgs, ExitCode> {
    let argv = std::iter::once("cargo xtask bench".to_owned()).chain(args.iter().cloned());
    let args = BenchArgs::try_parse_from(argv).map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        }
    })?;
    let problem = if args.runs < 1 {
        Some("--runs must be at least 1")
    } else if args.tags < 2 {
        Some("--tags must be at least 2 (a baseline and an older release)")
    } else if args.commits_per_tag < 1 {
        Some("--commits-per-tag must be at least 1")
    } else if args.dependencies < 1 {
        Some("--dependencies must be at least 1")
    } else {
        None
    };
    match problem {
        Some(problem) => {
            eprintln!("cargo xtask bench: {problem}");
            Err(ExitCode::from(2))
        }
        None => Ok(args),
    }
}

/// Generates every workspace under `base_dir`; the last one is the dependencies workspace again, with
/// its vendored sources removed.
fn generate_workspaces(
    args: &BenchArgs,
    base_dir: &Path,
    repo_root: &Path,
) -> Result<Vec<Workspace>> {
    let mut out = Vec::new();
    for kind in Kind::ALL {
        let dir = base_dir.join(kind.dir_name());
        ensure!(
            !dir.exists(),
            "{} exists: pass an empty --keep directory",
            dir.display()
        );
        eprintln!("bench: generating {}", dir.display());
        let summary = synth::generate(&dir, &kind.scale(args), repo_root)?;
        if kind == Kind::DependenciesAbsent {
            std::fs::remove_dir_all(dir.join("vendor")).context("removing vendor/")?;
        }
        out.push(Workspace { kind, dir, summary });
    }
    Ok(out)
}

/// The floor on the first workspace: every `.rs` file of the working tree and of the last tag parsed.
fn measure_floor(floor: &Path, ws: &Workspace, runs: usize, memory: bool) -> Result<Timing> {
    let make = || {
        let mut cmd = Command::new(floor);
        cmd.arg(&ws.dir).arg(&ws.summary.last_tag);
        cmd
    };
    Ok(measure(runs, memory, make, |_, status| status == Some(0))?.0)
}

/// What the dependencies workspace's reports show about following its dependencies: that the types
/// were read from the vendored sources (no note says a package is missing or opaque there), that the
/// working tree's upgrade is found at fields naming both versions, and that without the sources every
/// package is reached (the notes name each) and compared by path and version.
struct DependencyEvidence {
    /// Findings naming both versions of the upgraded package.
    upgrade_findings: usize,
    /// Packages the messages reach, as the notes of the check without sources name them.
    reached: Vec<String>,
    /// Notes of the check without sources.
    absent_notes: usize,
}

impl DependencyEvidence {
    fn read(workspaces: &[Workspace], checks: &[Checked]) -> Result<Self> {
        let report = |kind: Kind| -> Result<(&Workspace, serde_json::Value)> {
            let (ws, check) = of(workspaces, checks, kind).context("a dependencies workspace")?;
            let json = serde_json::from_str(&check.report).context("the check's JSON")?;
            Ok((ws, json))
        };
        let (ws, with) = report(Kind::Dependencies)?;
        let (_, without) = report(Kind::DependenciesAbsent)?;
        let (old, new) = ws.summary.upgrade.clone().context("the upgrade")?;
        let texts = |json: &serde_json::Value, key: &str| -> Vec<String> {
            json[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        let unread: Vec<String> = texts(&with, "notes")
            .into_iter()
            .filter(|n| n.contains("not on disk") || n.contains("no serde derive"))
            .collect();
        ensure!(
            unread.is_empty(),
            "with its vendored sources, the check still says it could not read some types: {unread:#?}"
        );
        let upgrade_findings = findings(&with)
            .filter(|f| {
                let text = f.to_string();
                text.contains(&old) && text.contains(&new)
            })
            .count();
        ensure!(
            upgrade_findings > 0,
            "no finding names both {old} and {new}: the upgrade was not followed"
        );
        let notes = texts(&without, "notes");
        let reached: Vec<String> = ws
            .summary
            .dependencies
            .iter()
            .filter(|label| {
                notes
                    .iter()
                    .any(|n| n.contains(&format!("`{label}` is not on disk")))
            })
            .cloned()
            .collect();
        ensure!(
            reached.len() == ws.summary.dependencies.len(),
            "without sources, the notes name only {reached:?} of {:?}",
            ws.summary.dependencies
        );
        Ok(DependencyEvidence {
            upgrade_findings,
            reached,
            absent_notes: notes.len(),
        })
    }
}

/// Every finding of a `wirecheck check --format json` report.
fn findings(report: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    report["protocols"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["findings"].as_array().into_iter().flatten())
}

/// What the bench timed, for the table and the ratios.
struct Measured<'a> {
    /// Each workspace's checks, in the order of the workspaces.
    checks: &'a [Checked],
    pull_request: &'a Timing,
    floor: &'a Timing,
    /// `None` with `--no-cargo-check`.
    cargo_check: Option<&'a Timing>,
}

/// The table: each workspace's warm and cold check (and the first one's pull-request check), the floor
/// and `cargo check`.
fn rows(
    args: &BenchArgs,
    workspaces: &[Workspace],
    measured: &Measured<'_>,
) -> Vec<(String, Timing)> {
    let Measured {
        checks,
        pull_request,
        floor,
        cargo_check,
    } = *measured;
    let mut rows = Vec::new();
    for (ws, check) in workspaces.iter().zip(checks) {
        rows.push((
            ws.kind.row(&ws.summary, args.history_factor),
            check.warm.clone(),
        ));
        rows.push(("  same, store cold".to_owned(), check.cold.clone()));
        if ws.kind == Kind::Base {
            rows.push((
                "  same, a message file edited since the store's check (pull request)".to_owned(),
                pull_request.clone(),
            ));
        }
    }
    rows.push((
        "floor: read + syn::parse_file every .rs of both revisions".to_owned(),
        floor.clone(),
    ));
    if let Some(t) = cargo_check {
        rows.push((
            "cargo check of the crates (deps built, sources touched)".to_owned(),
            t.clone(),
        ));
    }
    rows
}

/// The ratios after the table; the last line is `check/floor=… check/cargo_check=… warm/floor=…
/// peak_rss_mib=…`, with the cold check (what a CI runner without a cached target directory sees).
fn print_ratios(args: &BenchArgs, workspaces: &[Workspace], measured: &Measured<'_>) {
    let Measured {
        checks,
        pull_request,
        floor,
        cargo_check,
    } = *measured;
    let secs = |t: &Timing| t.median().as_secs_f64();
    let of = |kind: Kind| of(workspaces, checks, kind).expect("every kind is generated");
    let factor = args.history_factor;
    let (base_ws, base) = of(Kind::Base);
    let (long_ws, long) = of(Kind::MoreTags);
    let (_, commits) = of(Kind::MoreCommits);
    let (_, change) = of(Kind::BiggerChange);
    let (_, deps) = of(Kind::Dependencies);
    let (_, absent) = of(Kind::DependenciesAbsent);
    let extra_tags = (long_ws.summary.tags - base_ws.summary.tags) as f64;
    for (state, pick) in [("warm", warm as fn(&Checked) -> &Timing), ("cold", cold)] {
        println!(
            "history, store {state}: {factor}x commits / check = {:.3}; {factor}x tags / check = {:.3} ({:.1} ms per extra tag)",
            secs(pick(commits)) / secs(pick(base)),
            secs(pick(long)) / secs(pick(base)),
            (secs(pick(long)) - secs(pick(base))) * 1000.0 / extra_tags
        );
    }
    println!(
        "change: {factor}x files changed / check = {:.3} (store warm), {:.3} (store cold)",
        secs(&change.warm) / secs(&base.warm),
        secs(&change.cold) / secs(&base.cold)
    );
    println!(
        "dependencies: deps/no_deps={:.3} (store cold; {:.3} warm), target <= 1.20",
        secs(&deps.cold) / secs(&absent.cold),
        secs(&deps.warm) / secs(&absent.warm)
    );
    println!(
        "pull request: a message file edited since the store's check / floor = {:.3} (store warm)",
        secs(pull_request) / secs(floor)
    );
    let cargo_ratio = cargo_check.map_or_else(
        || "n/a".to_owned(),
        |t| format!("{:.4}", secs(&base.cold) / secs(t)),
    );
    let peak = checks
        .iter()
        .flat_map(|c| [c.warm.peak_kib, c.cold.peak_kib])
        .chain([pull_request.peak_kib])
        .max()
        .flatten()
        .map_or_else(
            || "n/a".to_owned(),
            |kib| format!("{:.0}", kib as f64 / 1024.0),
        );
    println!(
        "check/floor={:.3} check/cargo_check={cargo_ratio} warm/floor={:.3} peak_rss_mib={peak}",
        secs(&base.cold) / secs(floor),
        secs(&base.warm) / secs(floor)
    );
}

fn warm(check: &Checked) -> &Timing {
    &check.warm
}

fn cold(check: &Checked) -> &Timing {
    &check.cold
}

/// Each workspace's first check (see [`first_report`]), with no run measured yet.
fn first_checks(wirecheck: &Path, dirs: &[&Path]) -> Result<Vec<Checked>> {
    dirs.iter()
        .map(|dir| {
            Ok(Checked {
                warm: Timing::default(),
                cold: Timing::default(),
                report: first_report(wirecheck, dir)?,
            })
        })
        .collect()
}

/// One round: every workspace checked with its store warm, then cold; every run must print the first
/// run's report.
fn check_round(
    wirecheck: &Path,
    dirs: &[&Path],
    checks: &mut [Checked],
    memory: bool,
) -> Result<()> {
    for (dir, check) in dirs.iter().zip(checks) {
        for store_kept in [true, false] {
            let make = || {
                if !store_kept {
                    let _ = std::fs::remove_dir_all(dir.join("target").join("wirecheck"));
                }
                check_command(wirecheck, dir)
            };
            let (t, out) = measure(1, memory, make, check_ok)?;
            ensure!(
                out == check.report,
                "wirecheck check reported differently with and without its store in {}",
                dir.display()
            );
            if store_kept {
                check.warm.absorb(t);
            } else {
                check.cold.absorb(t);
            }
        }
    }
    Ok(())
}

/// A first check of `dir` (it fills the store) and one with `--no-cache`: the report every later run must
/// repeat.
fn first_report(wirecheck: &Path, dir: &Path) -> Result<String> {
    let report = measure(1, false, || check_command(wirecheck, dir), check_ok)?.1;
    let no_cache = no_cache_report(wirecheck, dir)?;
    ensure!(
        no_cache == report,
        "wirecheck check reported differently with --no-cache in {}",
        dir.display()
    );
    Ok(report)
}

/// What `wirecheck check --format json --no-cache` prints in `dir` (every release extracted from git).
fn no_cache_report(wirecheck: &Path, dir: &Path) -> Result<String> {
    let make = || {
        let mut cmd = check_command(wirecheck, dir);
        cmd.arg("--no-cache");
        cmd
    };
    Ok(measure(1, false, make, check_ok)?.1)
}

/// `wirecheck check --format json` of the workspace in `dir`.
fn check_command(wirecheck: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(wirecheck);
    cmd.args(["check", "--format", "json", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .current_dir(dir)
        // The generated workspace's own target directory, whatever the caller's says.
        .env_remove("CARGO_TARGET_DIR");
    cmd
}

/// `wirecheck check` ran (exit 0 or 1, JSON on stdout): the verdict for the report.
fn check_ok(stdout: &[u8], status: Option<i32>) -> bool {
    matches!(status, Some(0 | 1)) && stdout.starts_with(b"{")
}

/// Builds the release `wirecheck` binary and the floor example; returns their paths.
fn build_release(repo_root: &Path) -> Result<(PathBuf, PathBuf)> {
    eprintln!("bench: cargo build --release --features checker --bin wirecheck --example floor");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "--features",
            "checker",
            "--bin",
            "wirecheck",
            "--example",
            "floor",
        ])
        .current_dir(repo_root)
        .status()
        .context("running cargo build")?;
    ensure!(status.success(), "cargo build --release failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| {
            if t.is_absolute() {
                t
            } else {
                repo_root.join(t)
            }
        })
        .unwrap_or_else(|| repo_root.join("target"));
    let exe = std::env::consts::EXE_SUFFIX;
    let wirecheck = target.join("release").join(format!("wirecheck{exe}"));
    let floor = target
        .join("release")
        .join("examples")
        .join(format!("floor{exe}"));
    for bin in [&wirecheck, &floor] {
        ensure!(bin.exists(), "{} was not built", bin.display());
    }
    Ok((wirecheck, floor))
}

/// Runs `make()` `runs` times, timing each process; with `memory`, under `/usr/bin/time -v` for its peak
/// resident set. `ok(stdout, exit code)` must hold for every run. Returns the timing and the last stdout.
fn measure(
    runs: usize,
    memory: bool,
    mut make: impl FnMut() -> Command,
    ok: impl Fn(&[u8], Option<i32>) -> bool,
) -> Result<(Timing, String)> {
    let mut timing = Timing {
        runs: Vec::new(),
        peak_kib: None,
    };
    let mut last = String::new();
    for _ in 0..runs {
        let cmd = make();
        let (elapsed, stdout, status, peak) = run_timed(cmd, memory)?;
        ensure!(
            ok(&stdout, status),
            "the measured command failed (exit {status:?}): {}",
            String::from_utf8_lossy(&stdout)
        );
        timing.runs.push(elapsed);
        if let Some(p) = peak {
            timing.peak_kib = Some(timing.peak_kib.unwrap_or(0).max(p));
        }
        last = String::from_utf8_lossy(&stdout).into_owned();
    }
    Ok((timing, last))
}

/// Flushes what earlier runs wrote (`sync`, untimed) before a timed run: `cargo check` leaves hundreds of
/// MiB of its target directory to the kernel's writeback, and a check started with 800 MiB of writes
/// pending took 0.83, 0.46 and 0.69 s in three runs, 0.45 to 0.51 s after `sync`: the measurement after
/// it would pay for its writes. Where `sync` cannot run, nothing is flushed.
fn settle_writes() {
    let _ = Command::new("sync").status();
}

/// One process run: wall time, stdout, exit code, peak resident set in KiB.
type Run = (Duration, Vec<u8>, Option<i32>, Option<u64>);

/// Runs one command, with stderr discarded (unless it fails); wall time measured here, peak memory by
/// `/usr/bin/time -v` (written to a file, so the command's own output stays apart).
fn run_timed(cmd: Command, memory: bool) -> Result<Run> {
    settle_writes();
    let report = tempfile::NamedTempFile::new()?;
    let mut actual = if memory {
        let mut time = Command::new("/usr/bin/time");
        time.arg("-v")
            .arg("-o")
            .arg(report.path())
            .arg(cmd.get_program())
            .args(cmd.get_args());
        if let Some(dir) = cmd.get_current_dir() {
            time.current_dir(dir);
        }
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => time.env(key, v),
                None => time.env_remove(key),
            };
        }
        time
    } else {
        cmd
    };
    let start = Instant::now();
    let out = actual
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running {:?}", actual.get_program()))?;
    let elapsed = start.elapsed();
    if !matches!(out.status.code(), Some(0 | 1)) {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    let peak = if memory {
        std::fs::read_to_string(report.path())
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|l| {
                        l.trim()
                            .strip_prefix("Maximum resident set size (kbytes): ")
                    })
                    .and_then(|v| v.trim().parse().ok())
            })
    } else {
        None
    };
    Ok((elapsed, out.stdout, out.status.code(), peak))
}

/// Sets every `.rs` file's modification time to now, so that cargo checks the crates again.
fn touch_sources(ws: &Path) -> Result<()> {
    let now = std::time::SystemTime::now();
    for path in synth::rs_files(ws)? {
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(now)?;
    }
    Ok(())
}

/// `cargo check --offline --workspace` of a copy of the first workspace's crates (touching the sources
/// of the workspace itself would leave the git index's stat data stale for the checks measured after),
/// after a warm-up that builds the dependencies; each run checks the crates' own code.
struct CargoCheck {
    dir: PathBuf,
    target: PathBuf,
    cargo: std::ffi::OsString,
}

impl CargoCheck {
    /// Copies the workspace `ws` (without `.git` and `target`) under `base_dir`, with this repository's
    /// `Cargo.lock`, and runs the warm-up.
    fn prepare(ws: &Path, base_dir: &Path, repo_root: &Path) -> Result<Self> {
        let dir = base_dir.join("cargo-check-workspace");
        copy_dir(ws, &dir, &[".git", "target"]).context("copying the workspace")?;
        // The versions this repository already uses: no network, no new downloads.
        std::fs::copy(repo_root.join("Cargo.lock"), dir.join("Cargo.lock"))
            .context("copying Cargo.lock")?;
        let check = CargoCheck {
            dir,
            target: base_dir.join("cargo-check-target"),
            cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
        };
        eprintln!(
            "bench: cargo check warm-up (builds serde, serde_json and wirecheck's derives once)"
        );
        let warm = check
            .command()
            .stdin(Stdio::null())
            .status()
            .context("running cargo check")?;
        if !warm.success() {
            bail!("cargo check of the generated workspace failed (see above)");
        }
        Ok(check)
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.cargo);
        cmd.args(["check", "--offline", "--workspace", "--quiet"])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            // Cargo's own default for `cargo check` (incremental), whatever the caller's environment
            // says: with `CARGO_INCREMENTAL=0` the same check took 104 s instead of about 37 s.
            .env_remove("CARGO_INCREMENTAL")
            .env("CARGO_TERM_COLOR", "never");
        cmd
    }

    /// One timed check, every source touched first.
    fn run(&self, memory: bool) -> Result<Timing> {
        touch_sources(&self.dir)?;
        let make = || self.command();
        Ok(measure(1, memory, make, |_, status| status == Some(0))?.0)
    }
}

/// What `wirecheck check --format json` decided: ok or not, and its findings by level.
fn verdict(json: &str) -> String {
    let Ok(report) = serde_json::from_str::<serde_json::Value>(json) else {
        return "unreadable JSON".to_owned();
    };
    let count = |level: &str, known: bool| {
        findings(&report)
            .filter(|f| f["level"] == level && f["known"].as_bool().unwrap_or(false) == known)
            .count()
    };
    format!(
        "{} ({} protocols; findings: {} major, {} minor, {} known from older releases)",
        if report["ok"] == true { "ok" } else { "fails" },
        report["protocols"].as_array().map_or(0, Vec::len),
        count("major", false),
        count("minor", false),
        count("major", true) + count("minor", true),
    )
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// The report's header: what was generated, the verdicts, and what following the dependencies showed.
fn print_report(
    args: &BenchArgs,
    workspaces: &[Workspace],
    checks: &[Checked],
    evidence: &DependencyEvidence,
    memory: bool,
) {
    let of = |kind: Kind| {
        let (ws, check) = of(workspaces, checks, kind).expect("every kind is generated");
        (&ws.summary, check.report.as_str())
    };
    let (summary, base_report) = of(Kind::Base);
    let (commits, _) = of(Kind::MoreCommits);
    let (long, _) = of(Kind::MoreTags);
    let (change, _) = of(Kind::BiggerChange);
    let (generated, _) = of(Kind::GeneratedFile);
    let (deps, deps_report) = of(Kind::Dependencies);
    let (_, absent_report) = of(Kind::DependenciesAbsent);
    println!("wirecheck bench (xtask/src/bench.rs; seed {})", args.seed);
    println!(
        "scale: {} crates; {} messages and {} other serde types in {} message files; {} unannotated files; {} .rs files, {}",
        summary.crates.len(),
        summary.messages,
        summary.helper_types,
        summary.message_files,
        summary.plain_files,
        summary.rs_files,
        mib(summary.rs_bytes)
    );
    println!(
        "history: {} tags, {} commits (baseline {}); the working tree changes {} files; longer histories: {} tags and {} commits, {} tags and {} commits; a bigger change: {} files",
        summary.tags,
        summary.commits,
        summary.last_tag,
        summary.changed_files,
        commits.tags,
        commits.commits,
        long.tags,
        long.commits,
        change.changed_files
    );
    println!(
        "generated file: {} .rs files of {} plus one generated file of {} in the fifth workspace",
        generated.rs_files,
        mib(generated.rs_bytes),
        mib(generated.generated_bytes)
    );
    let (old, new) = deps.upgrade.clone().unwrap_or_default();
    println!(
        "dependencies: the sixth workspace's messages reach types of {} crates vendored in vendor/ ({}), followed by the check; its working tree upgrades {old} to {new} (an optional field added to a type every crate's messages reach): {} findings name both versions; the seventh is the same without vendor/: {} notes, naming all {} packages, say their types are compared by path and version; cargo check is not run on them (their vendor directory replaces crates.io and holds only these crates)",
        deps.dependencies.len(),
        deps.dependencies.join(", "),
        evidence.upgrade_findings,
        evidence.absent_notes,
        evidence.reached.len()
    );
    println!("check verdict: {}", verdict(base_report));
    println!("check verdict with dependencies: {}", verdict(deps_report));
    println!(
        "  without their sources (a package whose version changed is a possible break there): {}",
        verdict(absent_report)
    );
    println!(
        "builds: release (wirecheck and examples/floor); {} runs each, medians; peak RSS is the largest of the runs{}",
        args.runs,
        if memory {
            " (/usr/bin/time -v)"
        } else {
            " (n/a: no /usr/bin/time)"
        }
    );
    println!();
}

/// The table of timings.
fn print_rows(rows: &[(String, Timing)]) {
    println!(
        "{:<72} {:>9} {:>9} {:>9} {:>10}",
        "what", "median", "min", "max", "peak RSS"
    );
    for (what, t) in rows {
        println!(
            "{:<72} {:>8.3}s {:>8.3}s {:>8.3}s {:>10}",
            what,
            t.median().as_secs_f64(),
            t.min().as_secs_f64(),
            t.max().as_secs_f64(),
            t.peak_kib
                .map_or_else(|| "n/a".to_owned(), |k| format!("{} MiB", k / 1024))
        );
    }
    println!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspaces() -> Vec<Workspace> {
        [Kind::Dependencies, Kind::DependenciesAbsent]
            .into_iter()
            .map(|kind| Workspace {
                kind,
                dir: PathBuf::from(kind.dir_name()),
                summary: Summary {
                    dependencies: vec!["acme-ids 1.0.0".to_owned(), "acme-geo 1.1.0".to_owned()],
                    upgrade: Some(("acme-geo 1.0.0".to_owned(), "acme-geo 1.1.0".to_owned())),
                    ..Summary::default()
                },
            })
            .collect()
    }

    fn checked(report: serde_json::Value) -> Checked {
        Checked {
            warm: Timing::default(),
            cold: Timing::default(),
            report: report.to_string(),
        }
    }

    fn upgrade_finding() -> serde_json::Value {
        serde_json::json!({"protocols": [{"findings": [{
            "level": "minor",
            "message": "optional field added (the dependency changed from acme-geo 1.0.0 to acme-geo 1.1.0)"
        }]}], "notes": []})
    }

    fn absent_notes(labels: &[&str]) -> serde_json::Value {
        let notes: Vec<String> = labels
            .iter()
            .map(|l| format!("src/a.rs:1:1: package `{l}` is not on disk (looked in the vendor directory): `x::Y` is compared by path and version only; `cargo fetch` brings it"))
            .collect();
        serde_json::json!({"protocols": [], "notes": notes})
    }

    #[test]
    fn following_is_shown_by_the_upgrade_and_by_the_notes_without_sources() {
        let checks = [
            checked(upgrade_finding()),
            checked(absent_notes(&["acme-ids 1.0.0", "acme-geo 1.1.0"])),
        ];
        let evidence = DependencyEvidence::read(&workspaces(), &checks).unwrap();
        assert_eq!(evidence.upgrade_findings, 1);
        assert_eq!(evidence.reached.len(), 2);
        assert_eq!(evidence.absent_notes, 2);
    }

    #[test]
    fn an_upgrade_not_found_or_a_package_not_reached_fails_the_bench() {
        let no_upgrade = serde_json::json!({"protocols": [], "notes": []});
        let both = absent_notes(&["acme-ids 1.0.0", "acme-geo 1.1.0"]);
        let err =
            DependencyEvidence::read(&workspaces(), &[checked(no_upgrade), checked(both.clone())]);
        assert!(err.is_err_and(|e| e.to_string().contains("not followed")));
        let one = absent_notes(&["acme-geo 1.1.0"]);
        let err =
            DependencyEvidence::read(&workspaces(), &[checked(upgrade_finding()), checked(one)]);
        assert!(err.is_err_and(|e| e.to_string().contains("name only")));
        // A note that a package is missing although its sources are vendored.
        let mut missing = upgrade_finding();
        missing["notes"] = absent_notes(&["acme-ids 1.0.0"])["notes"].clone();
        let err = DependencyEvidence::read(&workspaces(), &[checked(missing), checked(both)]);
        assert!(err.is_err_and(|e| e.to_string().contains("could not read")));
    }
}
