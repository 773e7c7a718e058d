//! The history replay: successive flux-core releases of the Flux protocols, written into a scratch git
//! repository one release at a time and checked by wirecheck against the previous release tag.
//!
//! The data is `examples/flux-protocols/history/`: `steps.toml` (each release, what changed, where that is
//! recorded, and what wirecheck must say) and one directory of sources per release that changed the modelled
//! messages. See `steps.toml` for the meaning of every key.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, anyhow, bail, ensure};
use semver::Version;
use serde::Deserialize;
use wirecheck::check::{CheckOptions, ProtocolReport, Report};
use wirecheck::findings::Level;

/// The placeholder for the release version in the history sources and `Cargo.toml.in`.
pub const VERSION_PLACEHOLDER: &str = "@VERSION@";

/// `examples/flux-protocols/history` in this repository.
pub fn history_dir() -> PathBuf {
    crate::workspace_root().join("examples/flux-protocols/history")
}

/// `steps.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepsFile {
    step: Vec<Step>,
}

/// One release of the replay.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The release tag (`v0.61.0`).
    pub tag: String,
    /// The directory under `history/` with the release's sources (default: the tag).
    pub sources: Option<String>,
    /// What changed.
    pub changed: String,
    /// Where that is recorded.
    pub source: String,
    /// The bump the release really needed (absent for the first release, which is not checked).
    pub expected: Option<Level>,
    /// What wirecheck must report, per protocol.
    #[serde(default)]
    pub checker: BTreeMap<String, Expect>,
    /// Changes no serde shape shows.
    #[serde(default)]
    pub static_blind: Vec<StaticBlind>,
    /// Changes the shapes show but the checker misjudges today.
    #[serde(default)]
    pub known_gap: Vec<KnownGap>,
}

/// A protocol's required bump and the rule ids of its counted findings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The required bump.
    pub bump: Level,
    /// The rule ids, sorted and without duplicates.
    pub rules: Vec<String>,
}

/// A change no static shape shows, with how a maintainer declares it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticBlind {
    /// The protocol it concerns (possibly one this replay does not model).
    pub protocol: String,
    /// The bump it really needs.
    pub bump: Level,
    /// What changed and why no shape shows it.
    pub what: String,
    /// How the maintainer declares it.
    pub declared: String,
}

/// A change the checker misjudges today: what it should report instead of [`Step::checker`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownGap {
    /// The protocol.
    pub protocol: String,
    /// The bump the checker should require.
    pub bump: Level,
    /// The rule ids it should report.
    pub rules: Vec<String>,
    /// What it gets wrong.
    pub what: String,
}

impl Step {
    /// The version every protocol declares in this release: the tag without its `v`.
    pub fn version(&self) -> Result<Version> {
        let text = self
            .tag
            .strip_prefix('v')
            .ok_or_else(|| anyhow!("tag {} does not start with `v`", self.tag))?;
        Version::parse(text).with_context(|| format!("tag {}", self.tag))
    }

    /// The directory under `history/` holding the sources.
    pub fn sources_dir(&self) -> &str {
        self.sources.as_deref().unwrap_or(&self.tag)
    }

    /// What wirecheck must report for `protocol` (none when not listed).
    pub fn expect_for(&self, protocol: &str) -> Expect {
        self.checker.get(protocol).cloned().unwrap_or(Expect {
            bump: Level::None,
            rules: Vec::new(),
        })
    }

    /// The highest bump the shapes show: what wirecheck must require, with the known gaps corrected.
    pub fn shape_bump(&self) -> Level {
        let protocols: BTreeSet<&String> = self
            .checker
            .keys()
            .chain(self.known_gap.iter().map(|g| &g.protocol))
            .collect();
        protocols
            .into_iter()
            .map(|p| match self.known_gap.iter().find(|g| g.protocol == *p) {
                Some(gap) => gap.bump,
                None => self.expect_for(p).bump,
            })
            .max()
            .unwrap_or(Level::None)
    }

    /// The highest bump wirecheck must require.
    pub fn checker_bump(&self) -> Level {
        self.checker
            .values()
            .map(|e| e.bump)
            .max()
            .unwrap_or(Level::None)
    }
}

/// Reads and validates `steps.toml` in `dir`.
pub fn load(dir: &Path) -> Result<Vec<Step>> {
    let path = dir.join("steps.toml");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let file: StepsFile =
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    validate(dir, &file.step)?;
    Ok(file.step)
}

fn validate(dir: &Path, steps: &[Step]) -> Result<()> {
    ensure!(steps.len() >= 2, "the history needs at least two releases");
    let mut previous: Option<Version> = None;
    for (i, step) in steps.iter().enumerate() {
        let version = step.version()?;
        if let Some(prev) = &previous {
            ensure!(
                version > *prev,
                "{}: releases must be in increasing order (after {prev})",
                step.tag
            );
        }
        previous = Some(version);
        let sources = dir.join(step.sources_dir());
        ensure!(
            sources.join("Cargo.toml.in").is_file() && sources.join("src/lib.rs").is_file(),
            "{}: {} has no Cargo.toml.in and src/lib.rs",
            step.tag,
            sources.display()
        );
        let rules = step
            .checker
            .values()
            .flat_map(|e| &e.rules)
            .chain(step.known_gap.iter().flat_map(|g| &g.rules));
        for rule in rules {
            ensure!(
                wirecheck::rules::RuleId::from_id(rule).is_some(),
                "{}: `{rule}` is not a wirecheck rule (see `wirecheck rules`)",
                step.tag
            );
        }
        for (protocol, expect) in &step.checker {
            ensure!(
                expect.rules.windows(2).all(|w| w[0] < w[1]),
                "{}: the rules of {protocol} must be sorted, without duplicates",
                step.tag
            );
            ensure!(
                (expect.bump == Level::None) == expect.rules.is_empty(),
                "{}: {protocol} lists rules only when its bump is not none",
                step.tag
            );
        }
        for (i, gap) in step.known_gap.iter().enumerate() {
            ensure!(
                step.known_gap[..i]
                    .iter()
                    .all(|g| g.protocol != gap.protocol),
                "{}: one known gap per protocol ({})",
                step.tag,
                gap.protocol
            );
            let now = step.expect_for(&gap.protocol);
            ensure!(
                now.bump != gap.bump || now.rules != gap.rules,
                "{}: the known gap of {} is what the checker already reports",
                step.tag,
                gap.protocol
            );
        }
        if i == 0 {
            ensure!(
                step.expected.is_none()
                    && step.checker.is_empty()
                    && step.static_blind.is_empty()
                    && step.known_gap.is_empty(),
                "{}: the first release is the baseline, with no expectation",
                step.tag
            );
            continue;
        }
        let expected = step
            .expected
            .ok_or_else(|| anyhow!("{}: `expected` is missing", step.tag))?;
        let highest = step
            .static_blind
            .iter()
            .map(|s| s.bump)
            .chain(step.known_gap.iter().map(|g| g.bump))
            .chain([step.checker_bump()])
            .max()
            .unwrap_or(Level::None);
        ensure!(
            expected == highest,
            "{}: `expected` is {expected} but the highest of checker, static_blind and known_gap is {highest}",
            step.tag
        );
    }
    Ok(())
}

/// One release replayed.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// The step as `steps.toml` has it.
    pub step: Step,
    /// The tag it was checked against (none for the first release).
    pub previous: Option<String>,
    /// wirecheck's report (none for the first release).
    pub report: Option<Report>,
}

/// What a protocol got: its required bump and the sorted rule ids of its counted findings.
pub fn actual(p: &ProtocolReport) -> Expect {
    let rules: BTreeSet<String> = p
        .findings
        .iter()
        .filter(|f| f.counts())
        .map(|f| f.rule.to_string())
        .collect();
    Expect {
        bump: p.required_bump,
        rules: rules.into_iter().collect(),
    }
}

impl StepResult {
    /// The highest bump wirecheck required.
    pub fn required(&self) -> Level {
        self.report
            .iter()
            .flat_map(|r| &r.protocols)
            .map(|p| p.required_bump)
            .max()
            .unwrap_or(Level::None)
    }

    /// Where the replay disagrees with `steps.toml`: wirecheck's verdict, the declared versions, or the
    /// report's own `ok`. Empty when the step behaves as recorded.
    pub fn mismatches(&self) -> Vec<String> {
        let Some(report) = &self.report else {
            return Vec::new();
        };
        let step = &self.step;
        let mut out = Vec::new();
        if !report.ok {
            out.push(format!(
                "{}: wirecheck fails the check: a declared version is below the required one",
                step.tag
            ));
        }
        let declared = step.version().ok();
        let expected = step.expected.unwrap_or(Level::None);
        for p in &report.protocols {
            let got = actual(p);
            let want = step.expect_for(&p.name);
            if got != want {
                out.push(format!(
                    "{}: {} requires {} {:?}; steps.toml records {} {:?}",
                    step.tag, p.name, got.bump, got.rules, want.bump, want.rules
                ));
            }
            if p.new_version.as_ref() != declared.as_ref() {
                out.push(format!(
                    "{}: {} declares {:?}, not the release version",
                    step.tag, p.name, p.new_version
                ));
            }
            if let (Some(old), Some(new)) = (&p.old_version, &p.new_version) {
                let real = wirecheck::policy::required_version(old, expected);
                if *new < real {
                    out.push(format!(
                        "{}: {} declares {new}, below the {expected} bump the release really needed ({real})",
                        step.tag, p.name
                    ));
                }
            }
        }
        for name in step.checker.keys() {
            if !report.protocols.iter().any(|p| p.name == *name) {
                out.push(format!(
                    "{}: steps.toml expects findings for {name}, which the report does not have",
                    step.tag
                ));
            }
        }
        out
    }
}

/// The scratch repository: a temporary directory with a git repository, removed when dropped.
struct Scratch {
    dir: tempfile::TempDir,
    commits: u32,
}

impl Scratch {
    fn new() -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("wirecheck-flux-history-")
            .tempdir()
            .context("creating the scratch directory")?;
        let scratch = Scratch { dir, commits: 0 };
        scratch.git(&["init", "--quiet"])?;
        Ok(scratch)
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the scratch repository, isolated from the user's and the system's configuration, with
    /// a fixed identity and fixed dates so that the same history gives the same commit ids.
    fn git(&self, args: &[&str]) -> Result<()> {
        let date = format!(
            "@{} +0000",
            1_577_836_800 + u64::from(self.commits) * 86_400
        );
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=wirecheck history replay",
                "-c",
                "user.email=replay@wirecheck.invalid",
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "tag.gpgSign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .context("running git (is it installed?)")?;
        if !output.status.success() {
            bail!(
                "git {} failed in {}: {}",
                args.join(" "),
                self.path().display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(())
    }

    /// Replaces the working tree (everything but `.git`) with the release's sources.
    fn write_release(&self, sources: &Path, version: &Version) -> Result<()> {
        for entry in fs::read_dir(self.path())? {
            let entry = entry?;
            if entry.file_name() == ".git" {
                continue;
            }
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                fs::remove_dir_all(&path)?;
            } else {
                fs::remove_file(&path)?;
            }
        }
        copy_tree(sources, self.path(), &version.to_string())
    }

    fn commit_and_tag(&mut self, step: &Step) -> Result<()> {
        self.git(&["add", "--all"])?;
        let message = format!("flux-core {}: {}", step.tag, step.changed);
        self.git(&["commit", "--quiet", "--message", &message])?;
        self.git(&["tag", &step.tag])?;
        self.commits += 1;
        Ok(())
    }
}

/// Copies `from` into `to`, replacing [`VERSION_PLACEHOLDER`] with `version` and writing `Cargo.toml.in`
/// as `Cargo.toml`.
fn copy_tree(from: &Path, to: &Path, version: &str) -> Result<()> {
    let mut entries: Vec<_> = fs::read_dir(from)
        .with_context(|| format!("reading {}", from.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let target = if name == "Cargo.toml.in" {
            to.join("Cargo.toml")
        } else {
            to.join(&name)
        };
        if entry.file_type()?.is_dir() {
            fs::create_dir_all(&target)?;
            copy_tree(&entry.path(), &target, version)?;
        } else {
            let text = fs::read_to_string(entry.path())
                .with_context(|| format!("reading {}", entry.path().display()))?;
            fs::write(&target, text.replace(VERSION_PLACEHOLDER, version))
                .with_context(|| format!("writing {}", target.display()))?;
        }
    }
    Ok(())
}

/// Replays the history in `dir`: for each release, writes its sources into the scratch repository without
/// committing, checks them against the previous release tag, then commits and tags the release.
/// `progress` is called after each release.
pub fn replay(dir: &Path, mut progress: impl FnMut(&StepResult)) -> Result<Vec<StepResult>> {
    let steps = load(dir)?;
    let mut scratch = Scratch::new()?;
    let manifest = scratch.path().join("Cargo.toml");
    let mut results = Vec::new();
    let mut previous: Option<String> = None;
    for step in steps {
        let version = step.version()?;
        scratch.write_release(&dir.join(step.sources_dir()), &version)?;
        let report = match &previous {
            None => None,
            Some(tag) => Some(
                wirecheck::check::check(
                    &CheckOptions {
                        manifest_path: Some(manifest.clone()),
                        against: Some(tag.clone()),
                        tag_pattern: "v*".into(),
                        packages: Vec::new(),
                        no_cache: false,
                        ..CheckOptions::default()
                    },
                    &mut wirecheck::cli::StderrProgress::for_check(),
                )
                .map_err(|e| anyhow!("{}: the check could not run: {e}", step.tag))?,
            ),
        };
        scratch.commit_and_tag(&step)?;
        let result = StepResult {
            step,
            previous: previous.clone(),
            report,
        };
        previous = Some(result.step.tag.clone());
        progress(&result);
        results.push(result);
    }
    Ok(results)
}

/// The model of each release of the history in `dir`, oldest first: its sources (the version in place of
/// [`VERSION_PLACEHOLDER`]) extracted as one crate, without the dependencies' sources (a type of another
/// crate is compared by path). For tests that compare releases in memory, many times over.
#[cfg(test)]
pub fn snapshots(dir: &Path) -> Result<Vec<(Step, wirecheck::model::Snapshot)>> {
    let mut out = Vec::new();
    for step in load(dir)? {
        let version = step.version()?.to_string();
        let src = dir.join(step.sources_dir()).join("src");
        let mut files: Vec<(String, String)> = Vec::new();
        for entry in fs::read_dir(&src).with_context(|| format!("reading {}", src.display()))? {
            let path = entry?.path();
            let text =
                fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            files.push((
                format!("src/{name}"),
                text.replace(VERSION_PLACEHOLDER, &version),
            ));
        }
        // The crate root first.
        files.sort_by_key(|(path, _)| (path != "src/lib.rs", path.clone()));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str()))
            .collect();
        let snapshot = wirecheck::extract::snapshot_from_sources("flux_history", &files)
            .map_err(|e| anyhow!("{}: {e}", step.tag))?;
        out.push((step, snapshot));
    }
    Ok(out)
}

/// The number of counted findings of `level` in a protocol's report.
pub fn count(p: &ProtocolReport, level: Level) -> usize {
    p.findings
        .iter()
        .filter(|f| f.counts() && f.level == level)
        .count()
}

/// The one-line verdict a release manager reads, e.g.
/// `v0.61.0: rolling upgrade NOT possible: full restart needed (sched: 2 major changes) — declared 0.61.0,
/// checker requires 0.61.0: ok`.
///
/// The bottom line is the highest of what wirecheck requires and what the release declares by hand for
/// changes no shape shows ([`StaticBlind`], "a break declared by hand"); the reasons name the protocols.
pub fn verdict(result: &StepResult) -> String {
    let step = &result.step;
    let Some(report) = &result.report else {
        return format!("{}: first release of the replay (baseline)", step.tag);
    };
    let blind = |name: &str, level: Level| {
        step.static_blind
            .iter()
            .any(|s| s.protocol == name && s.bump == level)
    };
    let bottom = step
        .static_blind
        .iter()
        .map(|s| s.bump)
        .chain([result.required()])
        .max()
        .unwrap_or(Level::None);
    let mut line = format!("{}: ", step.tag);
    match bottom {
        Level::Major => {
            let mut names: Vec<&str> = report.protocols.iter().map(|p| p.name.as_str()).collect();
            for s in &step.static_blind {
                if !names.contains(&s.protocol.as_str()) {
                    names.push(&s.protocol);
                }
            }
            let mut parts = Vec::new();
            for name in names {
                let majors = report
                    .protocols
                    .iter()
                    .find(|p| p.name == name)
                    .map_or(0, |p| count(p, Level::Major));
                let by_hand = blind(name, Level::Major);
                let found = match majors {
                    0 => None,
                    1 => Some("1 major change".to_owned()),
                    n => Some(format!("{n} major changes")),
                };
                let text = match (found, by_hand) {
                    (Some(found), true) => {
                        format!("{name}: {found} + a break declared by hand")
                    }
                    (Some(found), false) => format!("{name}: {found}"),
                    (None, true) => format!("{name}: a break declared by hand"),
                    (None, false) => continue,
                };
                parts.push(text);
            }
            let _ = write!(
                line,
                "rolling upgrade NOT possible: full restart needed ({})",
                parts.join("; ")
            );
        }
        Level::Minor => line.push_str("rolling upgrade possible (minor changes only)"),
        Level::None => line.push_str("rolling upgrade possible (no wire change)"),
    }
    let declared = report
        .protocols
        .iter()
        .filter_map(|p| p.new_version.as_ref())
        .max();
    let requires = report
        .protocols
        .iter()
        .filter_map(|p| p.required_version.as_ref())
        .max();
    if let (Some(declared), Some(requires)) = (declared, requires) {
        let _ = write!(
            line,
            " — declared {declared}, checker requires {requires}: {}",
            if report.ok { "ok" } else { "FAIL" }
        );
    }
    line
}

/// `major`, `minor`, `none`.
fn level(l: Level) -> &'static str {
    l.as_str()
}

/// The expected bump as the tables show it, with `(static-blind)` when the shapes alone (read right, known
/// gaps corrected) do not show it.
fn expected_cell(step: &Step) -> String {
    let Some(expected) = step.expected else {
        return "–".into();
    };
    let mut cell = level(expected).to_owned();
    if step.shape_bump() < expected {
        cell.push_str(" (static-blind)");
    }
    cell
}

/// The rule ids as the tables show them: `sched: a, b; exec: c`.
fn rules_cell(result: &StepResult) -> String {
    let Some(report) = &result.report else {
        return "–".into();
    };
    let parts: Vec<String> = report
        .protocols
        .iter()
        .map(|p| (p, actual(p)))
        .filter(|(_, a)| !a.rules.is_empty())
        .map(|(p, a)| format!("{}: {}", p.name, a.rules.join(", ")))
        .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join("; ")
    }
}

fn pair(result: &StepResult) -> String {
    match &result.previous {
        Some(prev) => format!("{prev} → {}", result.step.tag),
        None => format!("{} (baseline)", result.step.tag),
    }
}

/// wirecheck's bump as the tables show it, with `(known gap)` when a [`KnownGap`] says it misjudges a shape.
fn wirecheck_cell(result: &StepResult) -> String {
    if result.report.is_none() {
        return "–".into();
    }
    let mut cell = level(result.required()).to_owned();
    if !result.step.known_gap.is_empty() {
        cell.push_str(" (known gap)");
    }
    cell
}

/// The summary as a Markdown table (pasted into `examples/flux-protocols/README.md`, and compared with it by
/// the tests).
pub fn markdown_table(results: &[StepResult]) -> String {
    let mut out = String::from(
        "| release pair | what changed | expected bump | wirecheck's bump | rule ids | source |\n\
         |---|---|---|---|---|---|\n",
    );
    let cell = |s: &str| s.replace('|', "\\|");
    for r in results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            pair(r),
            cell(&r.step.changed),
            expected_cell(&r.step),
            wirecheck_cell(r),
            cell(&rules_cell(r)),
            cell(&r.step.source),
        );
    }
    out
}

/// The summary as a plain text table for the terminal.
pub fn text_table(results: &[StepResult]) -> String {
    let rows: Vec<[String; 5]> = results
        .iter()
        .map(|r| {
            [
                pair(r),
                expected_cell(&r.step),
                wirecheck_cell(r),
                if r.mismatches().is_empty() {
                    "yes".into()
                } else {
                    "NO".into()
                },
                rules_cell(r),
            ]
        })
        .collect();
    let header = [
        "release pair",
        "expected",
        "wirecheck",
        "as recorded",
        "rule ids",
    ];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[&str]| {
        let mut text = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(c);
            } else {
                let pad = widths[i] - c.chars().count();
                let _ = write!(text, "{c}{}  ", " ".repeat(pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut out, &header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &cells);
    }
    out
}
