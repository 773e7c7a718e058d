//! `cargo xtask realworld`: replays the published histories of real crates no one here wrote.
//!
//! For each spec in `xtask/realworld/` (a crate, its releases, its messages): cargo brings every
//! release's published source from the registry; each is committed, with wirecheck's annotations injected
//! ([`spec`]), into a scratch git repository, one tag per release ([`sources`]); every consecutive pair is
//! checked by wirecheck's library (the newer release as the working tree, the older as `--against`); and
//! every major finding's witness is decoded with the writer's and the reader's published types, all
//! releases compiled side by side ([`decode`]). See docs/realworld.md for the definitions of the counts.
//!
//! Everything lives under `target/realworld/` and is reused by the next run (sources, staged packages,
//! lock files, the side-by-side build); the git repositories are rebuilt each run from the specs.

#[cfg(test)]
mod codec_tests;
mod decode;
mod registry;
mod siblings;
mod sources;
mod spec;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow, bail};
use semver::Version;
use serde::Deserialize;
use serde_json::Value;
use wirecheck::check::CheckOptions;
use wirecheck::report::{OutputFormat, render};

use spec::Spec;

const USAGE: &str =
    "usage: cargo xtask realworld [--crate NAME]... [--no-decode] [--build] [--registry] [--specs DIR]

  --crate NAME  only this crate's spec (repeatable)
  --no-decode   check the pairs, decode no witness (no side-by-side build)
  --build       build the side-by-side decoder even when no witness needs it (checks a spec's paths)
  --registry    check each pair again against the older release resolved through the registry
                (--against-registry, its source patched with the annotations) and compare with the tag
  --specs DIR   the specs (default: xtask/realworld/)";

/// The options of one run.
#[derive(Debug, Default)]
struct Options {
    crates: Vec<String>,
    no_decode: bool,
    build: bool,
    registry: bool,
    specs: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--crate" => options.crates.push(
                args.next()
                    .ok_or_else(|| anyhow!("--crate needs a name\n{USAGE}"))?
                    .clone(),
            ),
            "--no-decode" => options.no_decode = true,
            "--build" => options.build = true,
            "--registry" => options.registry = true,
            "--specs" => {
                options.specs =
                    Some(PathBuf::from(args.next().ok_or_else(|| {
                        anyhow!("--specs needs a directory\n{USAGE}")
                    })?));
            }
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(options)
}

/// `xtask/realworld/`: the specs.
pub fn specs_dir() -> PathBuf {
    crate::workspace_root().join("xtask/realworld")
}

/// Reads every spec in `dir` (`*.toml`, by file name).
pub fn load_specs(dir: &Path) -> Result<Vec<Spec>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Spec::load(p)).collect()
}

/// Runs `cargo xtask realworld`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let options = parse_args(args)?;
    let specs = load_specs(&options.specs.clone().unwrap_or_else(specs_dir))?;
    let specs: Vec<Spec> = specs
        .into_iter()
        .filter(|s| options.crates.is_empty() || options.crates.contains(&s.krate))
        .collect();
    if let Some(unknown) = options
        .crates
        .iter()
        .find(|c| !specs.iter().any(|s| &s.krate == *c))
    {
        bail!("no spec for crate `{unknown}` in xtask/realworld/");
    }
    let scratch = crate::workspace_root().join("target/realworld");
    let _lock = lock_scratch(&scratch)?;
    let started = Instant::now();
    let mut totals = Totals::default();
    let mut registry = registry::RegistryTotals::default();
    for spec in &specs {
        let (outcome, against_registry) = replay(spec, &scratch, &options)?;
        totals.add(&outcome);
        registry.add(&against_registry);
    }
    eprintln!("realworld: {:.1} s in all", started.elapsed().as_secs_f64());
    println!("{}", totals.line());
    if options.registry {
        println!("{}", registry.line());
    }
    Ok(ExitCode::SUCCESS)
}

/// `target/realworld/.lock`, locked by the operating system for the run (two runs would rebuild the same
/// repositories under each other): the lock goes with the file handle, so a run that is killed leaves
/// nothing stale. The file itself stays; it holds the running process's id for the message.
#[derive(Debug)]
struct ScratchLock {
    /// Held, not read: the lock lasts as long as the handle.
    _file: fs::File,
}

fn lock_scratch(scratch: &Path) -> Result<ScratchLock> {
    use std::io::Write as _;
    fs::create_dir_all(scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let path = scratch.join(".lock");
    // Not truncated before the lock is ours: the holder's process id stays readable.
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let holder = fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            let process = if holder.is_empty() {
                String::new()
            } else {
                format!(" (process {holder})")
            };
            bail!(
                "another `cargo xtask realworld` is running{process}: it holds the lock on {}; wait for it to end",
                path.display()
            );
        }
        Err(fs::TryLockError::Error(error)) => {
            return Err(error).with_context(|| format!("locking {}", path.display()));
        }
    }
    file.set_len(0)
        .and_then(|()| write!(file, "{}", std::process::id()))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(ScratchLock { _file: file })
}

/// The counts of the last line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Consecutive release pairs checked.
    pub pairs: usize,
    /// Counted major findings with a witness.
    pub witnesses: usize,
    /// Witnesses the writer's release produces and the reader's rejects.
    pub confirmed: usize,
    /// Witnesses the writer's release cannot produce.
    pub unproducible: usize,
    /// Witnesses the writer's release produces and the reader's accepts.
    pub reader_accepts: usize,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.pairs += other.pairs;
        self.witnesses += other.witnesses;
        self.confirmed += other.confirmed;
        self.unproducible += other.unproducible;
        self.reader_accepts += other.reader_accepts;
    }

    /// `pairs=… witnesses=… confirmed=… unproducible=… reader_accepts=…`.
    pub fn line(&self) -> String {
        format!(
            "pairs={} witnesses={} confirmed={} unproducible={} reader_accepts={}",
            self.pairs, self.witnesses, self.confirmed, self.unproducible, self.reader_accepts
        )
    }
}

/// The report as `wirecheck check --format json` prints it (the contract's keys).
#[derive(Debug, Deserialize)]
struct ReportJson {
    protocols: Vec<ProtocolJson>,
}

#[derive(Debug, Deserialize)]
struct ProtocolJson {
    name: String,
    new_version: Option<String>,
    required_bump: String,
    required_version: Option<String>,
    ok: bool,
    findings: Vec<FindingJson>,
}

#[derive(Debug, Clone, Deserialize)]
struct FindingJson {
    rule: String,
    level: String,
    allowed: bool,
    #[serde(default)]
    known: bool,
    message: String,
    message_type: String,
    #[serde(default)]
    topic: String,
    field: Option<String>,
    wire_path: Option<String>,
    direction: Option<String>,
    against: String,
    witness: Option<Value>,
}

impl FindingJson {
    fn counts(&self) -> bool {
        !self.allowed && !self.known
    }

    /// The writer's and the reader's release of the witness: the pair's new release is the working tree,
    /// `against` the tag (`v0.94.0`) of the other.
    fn writer_reader(&self, new: &Version) -> Option<(Version, Version)> {
        let against = Version::parse(self.against.strip_prefix('v')?).ok()?;
        match self.direction.as_deref()? {
            "old reads new" => Some((new.clone(), against)),
            "new reads old" => Some((against, new.clone())),
            _ => None,
        }
    }
}

/// A counted major finding with a witness, with its writer's and its reader's release.
type Found = (FindingJson, Version, Version);

/// One witness and what the published types made of it.
struct Witness {
    pair: usize,
    finding: FindingJson,
    writer: Version,
    reader: Version,
    verdict: Verdict,
}

enum Verdict {
    /// Not decoded (`--no-decode`, or the message is not in the spec).
    Untried(String),
    Unproducible(String),
    Confirmed(String),
    ReaderAccepts {
        misread: bool,
        rewritten: Value,
    },
}

/// One release pair checked.
struct Pair {
    old: Version,
    new: Version,
    took: Duration,
    text: String,
    /// The counted major findings without a witness, one line each.
    majors_without_witness: Vec<String>,
}

/// Replays one crate: sources, repository, checks, decoding, and with `--registry` the registry
/// baselines ([`registry`]). Prints as it goes.
fn replay(
    spec: &Spec,
    scratch: &Path,
    options: &Options,
) -> Result<(Totals, registry::RegistryTotals)> {
    let root = scratch.join(&spec.krate);
    println!(
        "## {} ({} releases)\n\n{}\n",
        spec.krate,
        spec.versions.len(),
        spec.about.trim()
    );
    eprintln!(
        "realworld: {}: bringing {} releases from the registry",
        spec.krate,
        spec.versions.len()
    );
    let mut published = Vec::new();
    for version in &spec.versions {
        published.push(sources::published_source(&spec.krate, version)?);
    }
    let mut repo = sources::Repo::create(&root.join("repo"))?;
    let mut declared: BTreeMap<Version, Vec<String>> = BTreeMap::new();
    for (version, source) in spec.versions.iter().zip(&published) {
        let committed = repo.commit_release(spec, version, source, &root.join("locks"))?;
        if !committed.missing.is_empty() {
            println!(
                "{version}: not declared in this release: {}",
                committed.missing.join(", ")
            );
        }
        declared.insert(committed.version, committed.injected);
    }
    let mut pairs = Vec::new();
    let mut witnesses = Vec::new();
    for (i, w) in spec.versions.windows(2).enumerate() {
        let (pair, found) = check_pair(&repo, &w[0], &w[1])?;
        witnesses.extend(found.into_iter().map(|(finding, writer, reader)| Witness {
            pair: i,
            finding,
            writer,
            reader,
            verdict: Verdict::Untried("not decoded (--no-decode)".into()),
        }));
        pairs.push(pair);
    }
    let mut against_registry = registry::RegistryTotals::default();
    if options.registry {
        for (w, old_source) in spec.versions.windows(2).zip(&published) {
            let same = registry::check_pair(
                &repo,
                spec,
                (&w[0], old_source),
                &w[1],
                &registry::patches(),
            )?;
            against_registry.pairs += 1;
            against_registry.same += usize::from(same);
        }
    }
    if !options.no_decode && (options.build || !witnesses.is_empty()) {
        decode_witnesses(spec, &root, scratch, &published, &declared, &mut witnesses)?;
    }
    print_pairs(spec, &pairs, &witnesses);
    let mut totals = Totals {
        pairs: pairs.len(),
        witnesses: witnesses.len(),
        ..Totals::default()
    };
    for w in &witnesses {
        match w.verdict {
            Verdict::Confirmed(_) => totals.confirmed += 1,
            Verdict::Unproducible(_) => totals.unproducible += 1,
            Verdict::ReaderAccepts { .. } => totals.reader_accepts += 1,
            Verdict::Untried(_) => {}
        }
    }
    println!("{}: {}\n", spec.krate, totals.line());
    Ok((totals, against_registry))
}

/// Checks release `new` (checked out as the working tree) against the tag of `old`, returning the pair and
/// the counted major findings with a witness, each with its writer's and reader's release.
fn check_pair(repo: &sources::Repo, old: &Version, new: &Version) -> Result<(Pair, Vec<Found>)> {
    repo.git(&["checkout", "--quiet", "--force", &format!("v{new}")])?;
    let started = Instant::now();
    let report = wirecheck::check::check(
        &CheckOptions {
            manifest_path: Some(repo.dir.join("Cargo.toml")),
            against: Some(format!("v{old}")),
            tag_pattern: "v*".into(),
            ..CheckOptions::default()
        },
        &mut wirecheck::cli::StderrProgress::for_check(),
    )
    .map_err(|e| anyhow!("{new} against {old}: the check could not run: {e}"))?;
    let took = started.elapsed();
    let json: ReportJson = serde_json::from_str(&render(&report, OutputFormat::Json))
        .context("reading the check's JSON report")?;
    let mut text = String::new();
    let mut found = Vec::new();
    let mut majors_without_witness = Vec::new();
    for p in &json.protocols {
        let mut rules: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for f in p.findings.iter().filter(|f| f.counts()) {
            *rules
                .entry((f.level.as_str(), f.rule.as_str()))
                .or_default() += 1;
            if f.level != "major" {
                continue;
            }
            match (&f.witness, f.writer_reader(new)) {
                (Some(_), Some((writer, reader))) => found.push((f.clone(), writer, reader)),
                _ => majors_without_witness.push(format!(
                    "{} {}{} ({}): {}",
                    f.message_type,
                    f.rule,
                    f.wire_path
                        .as_deref()
                        .or(f.field.as_deref())
                        .map_or_else(String::new, |p| format!(" at {p}")),
                    f.direction.as_deref().unwrap_or("both directions"),
                    shorten(&f.message, 200)
                )),
            }
        }
        let mut listed: Vec<((&str, &str), usize)> = rules.into_iter().collect();
        listed.sort_by_key(|((level, rule), _)| (level_rank(level), *rule));
        let rules = listed
            .iter()
            .map(|((_, rule), n)| {
                if *n == 1 {
                    (*rule).to_owned()
                } else {
                    format!("{rule} ×{n}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(
            text,
            "{}: {} (declared {}, requires {}: {}){}{}",
            p.name,
            p.required_bump,
            p.new_version.as_deref().unwrap_or("-"),
            p.required_version.as_deref().unwrap_or("-"),
            if p.ok { "ok" } else { "FAIL" },
            if rules.is_empty() { "" } else { "; rules: " },
            rules
        );
    }
    let pair = Pair {
        old: old.clone(),
        new: new.clone(),
        took,
        text,
        majors_without_witness,
    };
    Ok((pair, found))
}

fn level_rank(level: &str) -> u8 {
    match level {
        "major" => 0,
        "minor" => 1,
        _ => 2,
    }
}

/// Decodes every witness with the writer's and the reader's published types and sets its verdict.
fn decode_witnesses(
    spec: &Spec,
    root: &Path,
    scratch: &Path,
    published: &[PathBuf],
    declared: &BTreeMap<Version, Vec<String>>,
    witnesses: &mut [Witness],
) -> Result<()> {
    let pkgs = root.join("pkgs");
    for (version, source) in spec.versions.iter().zip(published) {
        sources::stage_alias(
            spec,
            version,
            source,
            &pkgs.join(version.to_string()),
            &pkgs.join("siblings"),
        )?;
    }
    let project = decode::Project::write(
        spec,
        declared,
        &pkgs,
        &root.join("decode"),
        &scratch.join("build"),
    )?;
    eprintln!(
        "realworld: {}: building {} releases side by side (reused across runs)",
        spec.krate,
        declared.len()
    );
    let started = Instant::now();
    project.build()?;
    eprintln!(
        "realworld: {}: built in {:.1} s",
        spec.krate,
        started.elapsed().as_secs_f64()
    );
    let asked: Vec<Asked> = witnesses
        .iter()
        .enumerate()
        .filter_map(|(i, w)| message_ids(spec, w, declared).map(|ids| (i, ids)))
        .collect();
    let answers = decode_asked(spec, &project, witnesses, &asked)?;
    for (i, w) in witnesses.iter_mut().enumerate() {
        if !asked.iter().any(|(a, _)| *a == i) {
            w.verdict = Verdict::Untried(format!(
                "{} (topic `{}`) has no message of the spec on its topic in both {} and {}",
                w.finding.message_type, w.finding.topic, w.writer, w.reader
            ));
        }
    }
    for ((i, _), (writer, reader)) in asked.iter().zip(answers) {
        let w = &mut witnesses[*i];
        let witness = w.finding.witness.clone().unwrap_or(Value::Null);
        w.verdict = classify(&w.finding, &witness, writer, reader);
    }
    Ok(())
}

/// A witness sent to the decoder: its index, and its writer's and reader's messages ([`message_ids`]).
type Asked<'s> = (usize, (&'s str, &'s str));

/// The writer's and the reader's answers for each asked witness. In JSON both
/// read the witness's text; in a binary format the writer's type reads the witness and writes it with
/// the codec, and the reader's type reads those bytes (a writer that wrote nothing leaves the reader
/// unasked: the witness is unproducible).
fn decode_asked(
    spec: &Spec,
    project: &decode::Project,
    witnesses: &[Witness],
    asked: &[Asked],
) -> Result<Vec<(decode::Decoded, decode::Decoded)>> {
    let request = |i: usize, ids: (&str, &str), reader: bool, bytes: Option<String>| {
        let w = &witnesses[i];
        decode::Request {
            version: if reader { &w.reader } else { &w.writer }.to_string(),
            message: if reader { ids.1 } else { ids.0 }.to_owned(),
            json: w
                .finding
                .witness
                .as_ref()
                .unwrap_or(&Value::Null)
                .to_string(),
            bytes,
        }
    };
    let writers = project.decode(
        &asked
            .iter()
            .map(|(i, m)| request(*i, *m, false, None))
            .collect::<Vec<_>>(),
    )?;
    let binary = spec.format != spec::Format::Json;
    let readers: Vec<decode::Request> = asked
        .iter()
        .zip(&writers)
        .filter(|(_, written)| !binary || written.bytes.is_some())
        .map(|((i, m), written)| request(*i, *m, true, written.bytes.clone()))
        .collect();
    let mut readers = project.decode(&readers)?.into_iter();
    let mut out = Vec::new();
    for written in writers {
        let read = if !binary || written.bytes.is_some() {
            readers
                .next()
                .ok_or_else(|| anyhow!("the decoder gave fewer answers than asked"))?
        } else {
            decode::Decoded {
                value: None,
                error: Some("not read: the writer's type wrote nothing".into()),
                bytes: None,
            }
        };
        out.push((written, read));
    }
    Ok(out)
}

/// The spec's messages (their paths, the decoder's keys) a witness is decoded with: the writer's and the
/// reader's, or `None` when a release has none. A release's message is the one the finding names (its type
/// name and topic, at the place the release declares it: a type moved to another module is listed once
/// per place) when the release declares it, else the only message of the same topic and kind the
/// release declares: a type renamed on its topic (pueue-lib's `Message` became `Request`), which the
/// checker compares as one message, is decoded with each release's own type.
fn message_ids<'s>(
    spec: &'s Spec,
    w: &Witness,
    declared: &BTreeMap<Version, Vec<String>>,
) -> Option<(&'s str, &'s str)> {
    let named = spec.messages_of(&w.finding.message_type, &w.finding.topic);
    let kind = &named.first()?.kind;
    let of = |version: &Version| {
        let has = |id: &&str| {
            declared
                .get(version)
                .is_some_and(|m| m.iter().any(|n| n == id))
        };
        if let Some(id) = named.iter().map(|m| m.plain_path()).find(has) {
            return Some(id);
        }
        let mut same_topic = spec
            .messages
            .iter()
            .filter(|m| m.topic == w.finding.topic && &m.kind == kind)
            .map(spec::MessageSpec::plain_path)
            .filter(has);
        match (same_topic.next(), same_topic.next()) {
            (Some(id), None) => Some(id),
            _ => None,
        }
    };
    Some((of(&w.writer)?, of(&w.reader)?))
}

/// The verdict on a witness from what the writer's and the reader's types made of it (see
/// docs/realworld.md): unproducible unless the writer's type decodes it and writes it back the same;
/// then confirmed when the reader's type rejects it, else the reader accepts it.
fn classify(
    finding: &FindingJson,
    witness: &Value,
    writer: decode::Decoded,
    reader: decode::Decoded,
) -> Verdict {
    let written = match (writer.value, writer.error) {
        (Some(value), _) => value,
        (None, error) => {
            return Verdict::Unproducible(format!(
                "the writer's type rejects it: {}",
                error.unwrap_or_default()
            ));
        }
    };
    if let Some(path) = first_difference(witness, &written, "") {
        return Verdict::Unproducible(format!(
            "the writer's type writes it back otherwise, at `{path}`: {}",
            describe_at(&written, &path)
        ));
    }
    match (reader.value, reader.error) {
        (Some(rewritten), _) => Verdict::ReaderAccepts {
            misread: wirecheck::rules::RuleId::from_id(&finding.rule)
                .is_some_and(|r| r.rule().evidence.may_misread()),
            rewritten,
        },
        (None, error) => Verdict::Confirmed(error.unwrap_or_default()),
    }
}

/// The first place (a JSON pointer) where `a` and `b` differ, numbers compared by value (`0` and `0.0`
/// are one JSON number), objects by key regardless of order.
pub fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = x == y || x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y);
            (!same).then(|| at.to_owned())
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(at.to_owned());
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, &format!("{at}/{i}")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (x.get(k), y.get(k)) {
                    (Some(x), Some(y)) => first_difference(x, y, &here),
                    _ => Some(here),
                }
            })
        }
        _ => (a != b).then(|| at.to_owned()),
    }
}

/// What `value` has at the JSON pointer `path`, shortened for a line of output.
fn describe_at(value: &Value, path: &str) -> String {
    match value.pointer(path) {
        Some(v) => format!("it writes {}", shorten(&v.to_string(), 120)),
        None => "it writes nothing there".into(),
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

fn print_pairs(spec: &Spec, pairs: &[Pair], witnesses: &[Witness]) {
    for (i, pair) in pairs.iter().enumerate() {
        println!(
            "{} {} → {} [{} ms]: {}",
            spec.krate,
            pair.old,
            pair.new,
            pair.took.as_millis(),
            pair.text
        );
        for line in &pair.majors_without_witness {
            println!("  no witness: {line}");
        }
        for w in witnesses.iter().filter(|w| w.pair == i) {
            print_witness(w);
        }
    }
    println!();
}

fn print_witness(w: &Witness) {
    let f = &w.finding;
    let place = f
        .wire_path
        .as_deref()
        .or(f.field.as_deref())
        .map_or_else(String::new, |p| format!(" at {p}"));
    let verdict = match &w.verdict {
        Verdict::Untried(why) => format!("untried: {why}"),
        Verdict::Unproducible(why) => format!("UNPRODUCIBLE: {why}"),
        Verdict::Confirmed(error) => {
            format!("confirmed: the reader rejects it: {}", shorten(error, 160))
        }
        Verdict::ReaderAccepts { misread, rewritten } => {
            let witness = f.witness.as_ref().unwrap_or(&Value::Null);
            let rule = if *misread {
                "its rule allows a misread"
            } else {
                "its rule does NOT allow a misread"
            };
            match first_difference(witness, rewritten, "") {
                Some(path) => format!(
                    "READER ACCEPTS: reads it as another value (at `{path}`: {}); {rule}",
                    describe_at(rewritten, &path)
                ),
                None => format!(
                    "READER ACCEPTS: reads it and writes it back the same, so nothing visible is misread; {rule}"
                ),
            }
        }
    };
    println!(
        "  {} {}{place} ({}; writer {}, reader {}): {verdict}",
        f.message_type,
        f.rule,
        f.direction.as_deref().unwrap_or("-"),
        w.writer,
        w.reader,
    );
    println!("    finding: {}", shorten(&f.message, 200));
    println!(
        "    witness: {}",
        shorten(
            &f.witness.as_ref().map(Value::to_string).unwrap_or_default(),
            300
        )
    );
}
