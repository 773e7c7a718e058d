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
//!
//! Every run of a workspace (warm, cold, and one with `--no-cache`) must print the report of the first.
//! - `floor`: `examples/floor.rs`, built the same way: read every `.rs` file of both revisions (the working
//!   tree from disk, the last tag from git objects) and parse each with `syn::parse_file`, nothing else.
//! - `cargo check`: `cargo check --offline --workspace` of the generated crates, in a target directory of
//!   their own, after a warm-up build of the dependencies (serde, serde_json, wirecheck's derives); each run
//!   first touches every `.rs` file of the crates, so it checks the crates' own code and nothing else.
//!   Any checker that builds the baseline pays at least this, once per revision.
//!
//! Release builds for both `check` and the floor: syn is several times slower in a debug build, and a user
//! runs an installed (release) `wirecheck`. The xtask itself (a debug build) only generates and times.

pub mod synth;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail, ensure};
use clap::Parser;

use synth::{Scale, Summary};

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
    /// Skip the `cargo check` measurement (it builds serde and wirecheck's derives once).
    #[arg(long)]
    pub no_cargo_check: bool,
    /// Generate into this directory and keep it (default: a temporary directory, removed at the end).
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

/// One measurement: wall times of every run and the peak resident memory.
#[derive(Debug, Clone)]
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
}

/// Runs `cargo xtask bench ARGS`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let argv = std::iter::once("cargo xtask bench".to_owned()).chain(args.iter().cloned());
    let args = match BenchArgs::try_parse_from(argv) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return Ok(if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            });
        }
    };
    ensure!(args.runs >= 1, "--runs must be at least 1");
    ensure!(
        args.tags >= 2,
        "--tags must be at least 2 (a baseline and an older release)"
    );
    ensure!(
        args.commits_per_tag >= 1,
        "--commits-per-tag must be at least 1"
    );
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
    let scale = Scale {
        messages: args.messages,
        files: args.files,
        plain_files: args.plain_files,
        crates: args.crates,
        tags: args.tags,
        commits_per_tag: args.commits_per_tag,
        change: 1,
        seed: args.seed,
        generated_bytes: 0,
    };
    let commits_scale = Scale {
        commits_per_tag: args.commits_per_tag * args.history_factor,
        ..scale.clone()
    };
    let long_scale = Scale {
        tags: args.tags * args.history_factor,
        ..scale.clone()
    };
    let change_scale = Scale {
        change: args.history_factor,
        ..scale.clone()
    };
    let generated_scale = Scale {
        messages: (args.messages / 10).max(args.crates * 3),
        files: (args.files / 10).max(args.crates),
        plain_files: args.plain_files / 10,
        generated_bytes: args.generated_mib * 1024 * 1024,
        ..scale.clone()
    };
    let ws = base_dir.join("ws");
    let commits_ws = base_dir.join("ws-more-commits");
    let long_ws = base_dir.join("ws-more-tags");
    let change_ws = base_dir.join("ws-bigger-change");
    let generated_ws = base_dir.join("ws-generated-file");
    for dir in [&ws, &commits_ws, &long_ws, &change_ws, &generated_ws] {
        ensure!(
            !dir.exists(),
            "{} exists: pass an empty --keep directory",
            dir.display()
        );
    }
    eprintln!("bench: generating {}", ws.display());
    let summary = synth::generate(&ws, &scale, &repo_root)?;
    eprintln!("bench: generating {}", commits_ws.display());
    let commits_summary = synth::generate(&commits_ws, &commits_scale, &repo_root)?;
    eprintln!("bench: generating {}", long_ws.display());
    let long_summary = synth::generate(&long_ws, &long_scale, &repo_root)?;
    eprintln!("bench: generating {}", change_ws.display());
    let change_summary = synth::generate(&change_ws, &change_scale, &repo_root)?;
    eprintln!("bench: generating {}", generated_ws.display());
    let generated_summary = synth::generate(&generated_ws, &generated_scale, &repo_root)?;

    let memory = Path::new("/usr/bin/time").exists();
    let runs = args.runs;
    eprintln!(
        "bench: wirecheck check on the five workspaces, store warm and cold ({runs} rounds, interleaved)"
    );
    let (timings, verdict) = measure_checks(
        &wirecheck,
        &[&ws, &commits_ws, &long_ws, &change_ws, &generated_ws],
        runs,
        memory,
    )?;
    let peak_kib = timings
        .iter()
        .flat_map(|(warm, cold)| [warm.peak_kib, cold.peak_kib])
        .max()
        .flatten();
    let [
        (check, check_cold),
        (check_commits, check_commits_cold),
        (check_long, check_long_cold),
        (check_change, check_change_cold),
        (check_generated, check_generated_cold),
    ] = <[(Timing, Timing); 5]>::try_from(timings)
        .map_err(|_| anyhow::anyhow!("one timing per workspace"))?;
    eprintln!("bench: floor");
    let (floor_t, _) = measure(
        args.runs,
        memory,
        || {
            let mut cmd = Command::new(&floor);
            cmd.arg(&ws).arg(&summary.last_tag);
            cmd
        },
        |_, status| status == Some(0),
    )?;
    let cargo_check = if args.no_cargo_check {
        None
    } else {
        Some(cargo_check(&ws, &base_dir, &repo_root, args.runs, memory)?)
    };

    let factor = args.history_factor;
    print_report(
        &args,
        &[
            &summary,
            &commits_summary,
            &long_summary,
            &change_summary,
            &generated_summary,
        ],
        &verdict,
        &[
            (
                format!("wirecheck check (against {}), store warm", summary.last_tag),
                check.clone(),
            ),
            ("  same, store cold".to_owned(), check_cold.clone()),
            (
                format!("wirecheck check, {factor}x commits, store warm"),
                check_commits.clone(),
            ),
            ("  same, store cold".to_owned(), check_commits_cold.clone()),
            (
                format!(
                    "wirecheck check, {factor}x tags (against {}), store warm",
                    long_summary.last_tag
                ),
                check_long.clone(),
            ),
            ("  same, store cold".to_owned(), check_long_cold.clone()),
            (
                format!(
                    "wirecheck check, {factor}x files changed ({}), store warm",
                    change_summary.changed_files
                ),
                check_change.clone(),
            ),
            ("  same, store cold".to_owned(), check_change_cold.clone()),
            (
                format!(
                    "wirecheck check, one generated file of {} (1/10 scale), store warm",
                    mib(generated_summary.generated_bytes)
                ),
                check_generated.clone(),
            ),
            (
                "  same, store cold".to_owned(),
                check_generated_cold.clone(),
            ),
            (
                "floor: read + syn::parse_file every .rs of both revisions".to_owned(),
                floor_t.clone(),
            ),
        ]
        .into_iter()
        .chain(cargo_check.clone().map(|t| {
            (
                "cargo check of the crates (deps built, sources touched)".to_owned(),
                t,
            )
        }))
        .collect::<Vec<_>>(),
        memory,
    );
    let secs = |t: &Timing| t.median().as_secs_f64();
    let extra_tags = (long_summary.tags - summary.tags) as f64;
    for (state, base, commits, long) in [
        ("warm", &check, &check_commits, &check_long),
        ("cold", &check_cold, &check_commits_cold, &check_long_cold),
    ] {
        println!(
            "history, store {state}: {factor}x commits / check = {:.3}; {factor}x tags / check = {:.3} ({:.1} ms per extra tag)",
            secs(commits) / secs(base),
            secs(long) / secs(base),
            (secs(long) - secs(base)) * 1000.0 / extra_tags
        );
    }
    println!(
        "change: {factor}x files changed / check = {:.3} (store warm), {:.3} (store cold)",
        secs(&check_change) / secs(&check),
        secs(&check_change_cold) / secs(&check_cold)
    );
    // The last line uses the cold store: what a CI runner without a cached target directory sees.
    let cargo_ratio = cargo_check.as_ref().map_or_else(
        || "n/a".to_owned(),
        |t| format!("{:.4}", secs(&check_cold) / secs(t)),
    );
    let peak = peak_kib.map_or_else(
        || "n/a".to_owned(),
        |kib| format!("{:.0}", kib as f64 / 1024.0),
    );
    println!(
        "check/floor={:.3} check/cargo_check={cargo_ratio} warm/floor={:.3} peak_rss_mib={peak}",
        secs(&check_cold) / secs(&floor_t),
        secs(&check) / secs(&floor_t)
    );
    if args.keep.is_none() {
        drop(temp);
    }
    Ok(ExitCode::SUCCESS)
}

/// Times `wirecheck check --format json` in each generated workspace of `dirs`, with the store warm (an
/// earlier check filled it) and cold (removed before the run, as on a CI runner without a cached target
/// directory). The runs go in `runs` rounds, each running every workspace warm then cold, so that the
/// machine's drift over the minutes of the bench falls on all of them alike. Every run of a workspace
/// (and one with `--no-cache`, which extracts every release from git again) must print the same report.
/// Returns (warm, cold) per workspace and the first workspace's report.
fn measure_checks(
    wirecheck: &Path,
    dirs: &[&Path],
    runs: usize,
    memory: bool,
) -> Result<(Vec<(Timing, Timing)>, String)> {
    let cmd = |dir: &Path| {
        let mut cmd = Command::new(wirecheck);
        cmd.args(["check", "--format", "json", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .current_dir(dir)
            // The generated workspace's own target directory, whatever the caller's says.
            .env_remove("CARGO_TARGET_DIR");
        cmd
    };
    // A first run fills each store and gives the report every later run must repeat.
    let mut reports = Vec::new();
    for dir in dirs {
        let report = measure(1, false, || cmd(dir), check_ok)?.1;
        let no_cache = measure(
            1,
            false,
            || {
                let mut cmd = cmd(dir);
                cmd.arg("--no-cache");
                cmd
            },
            check_ok,
        )?
        .1;
        ensure!(
            no_cache == report,
            "wirecheck check reported differently with --no-cache in {}",
            dir.display()
        );
        reports.push(report);
    }
    let empty = || Timing {
        runs: Vec::new(),
        peak_kib: None,
    };
    let mut timings: Vec<(Timing, Timing)> = dirs.iter().map(|_| (empty(), empty())).collect();
    for _ in 0..runs {
        for ((dir, report), (warm, cold)) in dirs.iter().zip(&reports).zip(&mut timings) {
            for (timing, store_kept) in [(&mut *warm, true), (&mut *cold, false)] {
                let make = || {
                    if !store_kept {
                        let _ = std::fs::remove_dir_all(dir.join("target").join("wirecheck"));
                    }
                    cmd(dir)
                };
                let (t, out) = measure(1, memory, make, check_ok)?;
                ensure!(
                    out == *report,
                    "wirecheck check reported differently with and without its store in {}",
                    dir.display()
                );
                timing.runs.extend(t.runs);
                timing.peak_kib = timing.peak_kib.max(t.peak_kib);
            }
        }
    }
    Ok((timings, reports.swap_remove(0)))
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

/// One process run: wall time, stdout, exit code, peak resident set in KiB.
type Run = (Duration, Vec<u8>, Option<i32>, Option<u64>);

/// Runs one command, with stderr discarded (unless it fails); wall time measured here, peak memory by
/// `/usr/bin/time -v` (written to a file, so the command's own output stays apart).
fn run_timed(cmd: Command, memory: bool) -> Result<Run> {
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

/// `cargo check --offline --workspace` of the generated crates: a warm-up that builds the dependencies,
/// then `runs` timed checks of the crates' own code.
fn cargo_check(
    ws: &Path,
    base_dir: &Path,
    repo_root: &Path,
    runs: usize,
    memory: bool,
) -> Result<Timing> {
    // The versions this repository already uses: no network, no new downloads.
    std::fs::copy(repo_root.join("Cargo.lock"), ws.join("Cargo.lock"))
        .context("copying Cargo.lock")?;
    let target = base_dir.join("cargo-check-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let make = || {
        let mut cmd = Command::new(&cargo);
        cmd.args(["check", "--offline", "--workspace", "--quiet"])
            .current_dir(ws)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env("CARGO_TERM_COLOR", "never");
        cmd
    };
    eprintln!("bench: cargo check warm-up (builds serde, serde_json and wirecheck's derives once)");
    let warm = make()
        .stdin(Stdio::null())
        .status()
        .context("running cargo check")?;
    if !warm.success() {
        bail!("cargo check of the generated workspace failed (see above)");
    }
    eprintln!("bench: cargo check of the crates ({runs} runs)");
    let mut timing = Timing {
        runs: Vec::new(),
        peak_kib: None,
    };
    for _ in 0..runs {
        touch_sources(ws)?;
        let (t, _) = measure(1, memory, make, |_, status| status == Some(0))?;
        timing.runs.extend(t.runs);
        timing.peak_kib = timing.peak_kib.max(t.peak_kib);
    }
    Ok(timing)
}

/// What `wirecheck check --format json` decided: ok or not, and its findings by level.
fn verdict(json: &str) -> String {
    let Ok(report) = serde_json::from_str::<serde_json::Value>(json) else {
        return "unreadable JSON".to_owned();
    };
    let findings: Vec<&serde_json::Value> = report["protocols"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["findings"].as_array().into_iter().flatten())
        .collect();
    let count = |level: &str, known: bool| {
        findings
            .iter()
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

fn print_report(
    args: &BenchArgs,
    histories: &[&Summary; 5],
    verdict_json: &str,
    rows: &[(String, Timing)],
    memory: bool,
) {
    let [summary, commits, long, change, generated] = *histories;
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
    println!("check verdict: {}", verdict(verdict_json));
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
