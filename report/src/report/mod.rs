//! Reports: renderers that only read a [`Report`] (or a [`Matrix`]). None of them reads files or git: the
//! driver puts the source text they show into [`Report::sources`].
//!
//! | format | for |
//! |---|---|
//! | [`OutputFormat::Human`] | terminals and logs: rustc-style diagnostics with source snippets |
//! | [`OutputFormat::Json`] | scripts: the contract's JSON object |
//! | [`OutputFormat::Github`] | GitHub Actions: one workflow command per finding, annotations on the diff |
//! | [`OutputFormat::Sarif`] | code scanning: SARIF 2.1.0 |
//! | [`OutputFormat::Junit`] | CI test dashboards: JUnit XML |
//! | [`OutputFormat::Markdown`] | a pull-request comment or a release-notes section |
//!
//! The [`Changelog`] of `wirecheck changelog` renders as Markdown (release notes) or JSON
//! ([`ChangelogFormat`]), and as the last section of the HTML matrix ([`render_matrix_with`]).

mod changelog;
mod github;
mod human;
mod json;
mod junit;
mod markdown;
mod matrix_html;
mod matrix_md;
mod sarif;

use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::io::IsTerminal as _;

use crate::changelog::Changelog;
use crate::findings::{Direction, Finding, Level, Side};
use crate::matrix::Matrix;
use crate::model::Location;
use crate::outcome::{BaselineChoice, ProtocolReport, Report, source_label};
use crate::rules::Evidence;

/// An output format of `wirecheck check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// rustc-style diagnostics with source snippets, for terminals and logs.
    #[default]
    Human,
    /// One JSON object, as documented in the README (stable keys for scripts).
    Json,
    /// GitHub Actions workflow commands (`::error file=...::...`): annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for code scanning (`github/codeql-action/upload-sarif`).
    Sarif,
    /// JUnit XML: a test suite per protocol, a failing test case per breaking finding.
    Junit,
    /// Markdown: a pull-request comment or a release-notes section.
    Markdown,
}

/// An output format of `wirecheck matrix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MatrixFormat {
    /// One table per protocol, for release notes.
    #[default]
    Markdown,
    /// A self-contained HTML page (no network), with the breaking findings of each cell on hover or click.
    Html,
    /// The matrix as JSON.
    Json,
}

/// How to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenderOptions {
    /// ANSI colours in the human format (see [`color_for_stdout`]).
    pub color: bool,
}

/// Renders a report in `format`, without colours. Deterministic: the same report gives the same bytes.
pub fn render(report: &Report, format: OutputFormat) -> String {
    render_with(report, format, &RenderOptions::default())
}

/// Renders a report in `format` with `options`.
pub fn render_with(report: &Report, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Human => human::render(report, options.color),
        OutputFormat::Json => json::render(report),
        OutputFormat::Github => github::render(report),
        OutputFormat::Sarif => sarif::render(report),
        OutputFormat::Junit => junit::render(report),
        OutputFormat::Markdown => markdown::render(report),
    }
}

/// An output format of `wirecheck changelog`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ChangelogFormat {
    /// Sections per release and protocol, to paste into release notes.
    #[default]
    Markdown,
    /// The changelog as one JSON object, for scripts.
    Json,
}

/// Renders a wire changelog in `format`. Deterministic.
pub fn render_changelog(changelog: &Changelog, format: ChangelogFormat) -> String {
    match format {
        ChangelogFormat::Markdown => changelog::markdown(changelog),
        ChangelogFormat::Json => changelog::json(changelog),
    }
}

/// Renders an interoperability matrix in `format`. Deterministic.
pub fn render_matrix(matrix: &Matrix, format: MatrixFormat) -> String {
    render_matrix_with(matrix, format, None)
}

/// Renders an interoperability matrix in `format`; the HTML page ends with the wire changelog of the
/// same revisions, when given. Deterministic.
pub fn render_matrix_with(
    matrix: &Matrix,
    format: MatrixFormat,
    changelog: Option<&Changelog>,
) -> String {
    match format {
        MatrixFormat::Markdown => matrix_md::render(matrix),
        MatrixFormat::Html => matrix_html::render(matrix, changelog.map(changelog::html_section)),
        MatrixFormat::Json => {
            let mut text = serde_json::to_string_pretty(matrix)
                .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
            text.push('\n');
            text
        }
    }
}

/// Whether output on stdout gets colours: stdout is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>).
pub fn color_for_stdout() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// How a finding is presented, in every format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Counted, and the protocol's declared version does not pay for its level: the check fails on it
    /// (a minor finding too, when the version was not bumped at all).
    Error,
    /// Major and counted, but the declared version already pays for it.
    Warning,
    /// Minor (and paid for), or of level `none`.
    Note,
    /// Allowed with a reason.
    Allowed,
    /// Known history: the baseline already had the break.
    Known,
}

impl Severity {
    /// The severity of the finding `f` of the protocol `p`: allowed, known, an error when it fails the
    /// check, else a warning when major and a note otherwise.
    pub fn of(p: &ProtocolReport, f: &Finding) -> Self {
        if f.allowed {
            Severity::Allowed
        } else if f.known {
            Severity::Known
        } else if crate::policy::fails_whatever_the_version(f)
            || (f.level != Level::None && !p.ok && !p.pays_for(f.level))
        {
            Severity::Error
        } else if f.level == Level::Major {
            Severity::Warning
        } else {
            Severity::Note
        }
    }
}

/// A region of a file: 1-based lines and columns (in characters), the end column just past the span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// The first line.
    pub start_line: u32,
    /// The first column.
    pub start_column: u32,
    /// The last line.
    pub end_line: u32,
    /// The column just past the span.
    pub end_column: u32,
}

/// The region of `f`'s span, when its file's text is in the report and the span fits it.
pub fn region(report: &Report, f: &Finding) -> Option<Region> {
    let text = report.sources.get(&source_label(f))?;
    region_in(text, f.location.start, f.location.end)
}

/// The region of the byte range `start..end` of `text`, if it is a valid range on character boundaries.
pub fn region_in(text: &str, start: usize, end: usize) -> Option<Region> {
    if start > end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    let position = |offset: usize| {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    };
    let (start_line, start_column) = position(start);
    let (end_line, end_column) = position(end);
    Some(Region {
        start_line,
        start_column,
        end_line,
        end_column,
    })
}

/// Where a finding is annotated in the working tree: its own location when it is there, else (something
/// removed) its anchor, the surviving parent; with the region when the file's text is in the report.
/// `None` for something removed that left nothing in the working tree.
pub fn working_tree_location<'r>(
    report: &Report,
    f: &'r Finding,
) -> Option<(&'r Location, Option<Region>)> {
    match f.side {
        Side::New => Some((&f.location, region(report, f))),
        Side::Old => f.anchor.as_ref().map(|anchor| {
            let region = report
                .sources
                .get(&anchor.file)
                .and_then(|text| region_in(text, anchor.start, anchor.end));
            (anchor, region)
        }),
    }
}

/// `src/sched.rs:9:12`: the anchor of something removed, in the working tree.
pub fn anchor_place(f: &Finding) -> Option<String> {
    let anchor = f.anchor.as_ref().filter(|_| f.side == Side::Old)?;
    Some(format!("{}:{}:{}", anchor.file, anchor.line, anchor.column))
}

/// What a finding is about: `AllocRequest.t_submit`, `AllocRequest`, or the protocol's name.
pub fn subject(f: &Finding) -> String {
    match (&f.field, f.message_type.is_empty()) {
        (Some(field), false) => format!("{}.{field}", f.message_type),
        (None, false) => f.message_type.clone(),
        (Some(field), true) => field.clone(),
        (None, true) => f.protocol.clone(),
    }
}

/// `reached by 37 messages, e.g. `JobInfo.spec.queue`, `Alloc.spec.queue`, `Free.spec.queue``: the
/// messages and places a finding's cause is reached from, when more than one reaches it.
pub fn reach_words(f: &Finding) -> Option<String> {
    const EXAMPLES: usize = 3;
    if f.reached_by.len() < 2 {
        return None;
    }
    let messages: std::collections::BTreeSet<&str> = f
        .reached_by
        .iter()
        .map(|reach| reach.message_type.as_str())
        .collect();
    let count = match messages.len() {
        1 => format!("{} places of one message", f.reached_by.len()),
        n => format!("{n} messages"),
    };
    let examples: Vec<String> = f
        .reached_by
        .iter()
        .take(EXAMPLES)
        .map(|reach| match &reach.field {
            Some(field) => format!("`{}.{field}`", reach.message_type),
            None => format!("`{}`", reach.message_type),
        })
        .collect();
    let more = if f.reached_by.len() > EXAMPLES {
        ", ..."
    } else {
        ""
    };
    Some(format!(
        "reached by {count}, e.g. {}{more}",
        examples.join(", ")
    ))
}

/// `on the wire: signatures[].activeParameter`: where the finding is as peers in any language see the
/// payload, when the finding has a wire path.
pub fn wire_words(f: &Finding) -> Option<String> {
    f.wire_path
        .as_ref()
        .map(|wire_path| format!("on the wire: {wire_path}"))
}

/// `v0.87.0:src/sched.rs:42:5` or `src/sched.rs:42:5`.
pub fn place(f: &Finding) -> String {
    format!(
        "{}:{}:{}",
        source_label(f),
        f.location.line,
        f.location.column
    )
}

/// The newer side of a check's findings: the working tree.
pub const WORKING_TREE: &str = "the working tree";

/// Which side writes and which reads, in words: `v0.87.0 reads what the working tree writes`.
pub fn direction_words(f: &Finding, d: Direction) -> String {
    direction_words_between(f, d, WORKING_TREE)
}

/// Which side writes and which reads, the newer side named `newer` (a release of the matrix, or
/// [`WORKING_TREE`]); the older one is [`Finding::against`].
pub fn direction_words_between(f: &Finding, d: Direction, newer: &str) -> String {
    match d {
        Direction::OldReadsNew => format!("{} reads what {newer} writes", f.against),
        Direction::NewReadsOld => format!("{newer} reads what {} writes", f.against),
    }
}

/// The witness as compact JSON, with who writes it and who fails on it (a check's finding: the newer
/// side is the working tree).
pub fn witness_words(f: &Finding) -> Option<(String, String)> {
    witness_words_between(f, WORKING_TREE)
}

/// The witness as compact JSON, with who writes it and who fails on it, the newer side named `newer`.
pub fn witness_words_between(f: &Finding, newer: &str) -> Option<(String, String)> {
    let witness = f.witness.as_ref()?;
    let json = serde_json::to_string(witness).unwrap_or_default();
    let (writer, reader) = match f.direction {
        Some(Direction::OldReadsNew) => (newer, f.against.as_str()),
        Some(Direction::NewReadsOld) => (f.against.as_str(), newer),
        None => {
            return Some((
                "a payload one side writes and the other rejects or misreads".to_owned(),
                json,
            ));
        }
    };
    // The message-level rules fail on what happens to a message, not on decoding it.
    let who = match f.rule.rule().evidence {
        Evidence::Unanswered => {
            format!("a request written by {writer} that {reader} never answers")
        }
        Evidence::OtherResponsePattern => format!(
            "a request written by {writer} that {reader} answers with another response pattern"
        ),
        Evidence::MessageGone if f.direction == Some(Direction::OldReadsNew) => {
            format!("what {reader} still expects; {writer} no longer writes it")
        }
        Evidence::MessageGone | Evidence::NotTaken => {
            format!("written by {writer}; {reader} no longer takes it on that topic as that kind")
        }
        _ => format!("written by {writer}, rejected or misread by {reader}"),
    };
    Some((who, json))
}

/// The help line of a finding: the catalogue's migration, which names no digit of the version (for `0.y.z`
/// a minor-level change needs the patch digit), then, for a finding that counts toward the bump of a
/// protocol the baseline already had, the version to declare: `...; declare 0.1.1 or later`.
pub fn help(p: &ProtocolReport, f: &Finding) -> String {
    let help = f.rule.rule().help;
    match (&p.old_version, &p.new_version, &p.required_version) {
        (Some(_), Some(_), Some(required))
            if f.counts() && f.level != Level::None && crate::policy::bump_pays(f) =>
        {
            format!("{help}; declare {required} or later")
        }
        _ => help.to_owned(),
    }
}

/// The plain-text details of a finding under its message, as the GitHub and JUnit formats show them: where
/// it is (and, for something removed, `removed_words` before the place of its surviving parent), the wire
/// path, the direction, the witness, the allow reason when `with_allow_reason`, and the help.
pub fn finding_details(
    p: &ProtocolReport,
    f: &Finding,
    removed_words: &str,
    with_allow_reason: bool,
) -> String {
    let mut details = format!("{}\nat {}", f.message, place(f));
    if let Some(anchor) = anchor_place(f) {
        let _ = write!(details, " (removed; {removed_words} {anchor})");
    }
    if let Some(wire) = wire_words(f) {
        let _ = write!(details, "\n{wire}");
    }
    if let Some(d) = f.direction {
        let _ = write!(details, "\n{d}: {}", direction_words(f, d));
    }
    if let Some((who, json)) = witness_words(f) {
        let _ = write!(details, "\nwitness ({who}): {json}");
    }
    if let Some(reason) = f.allow_reason.as_ref().filter(|_| with_allow_reason) {
        let _ = write!(details, "\nallowed: {reason}");
    }
    let _ = write!(details, "\nhelp: {}", help(p, f));
    details
}

/// A stable fingerprint of a finding across runs and line moves: FNV-1a (64 bits) over the rule, the
/// protocol, the message, the topic, the field and the direction (not the location, not the release).
pub fn fingerprint(f: &Finding) -> String {
    let mut hash = fnv::FnvHasher::default();
    let direction = f.direction.map_or("", Direction::as_str);
    let parts = [
        f.rule.as_str(),
        f.protocol.as_str(),
        f.message_type.as_str(),
        f.topic.as_str(),
        f.field.as_deref().unwrap_or(""),
        direction,
    ];
    for part in parts {
        hash.write(part.as_bytes());
        hash.write_u8(0xff);
    }
    format!("{:016x}", hash.finish())
}

/// Whether `note`, one of the report's notes, states how the baseline was chosen or what was left out
/// ([`Baseline::statements`](crate::outcome::Baseline::statements), the releases skipped:
/// [`skipped_statements`](crate::outcome::skipped_statements)) rather than what the extraction could
/// not see through.
pub fn is_baseline_statement(report: &Report, note: &str) -> bool {
    report.baseline.statements().iter().any(|s| s == note)
        || crate::outcome::skipped_statements(&report.skipped_releases)
            .iter()
            .any(|s| s == note)
}

/// `3 protocol(s) checked against v0.87.0 (0123456789ab): 1 FAIL`; `... checked as a first release (no
/// baseline): ok`.
pub fn overall(report: &Report) -> String {
    let failed = report.protocols.iter().filter(|p| !p.ok).count();
    let against = match report.baseline.chosen {
        BaselineChoice::FirstRelease => "as a first release (no baseline)".to_owned(),
        BaselineChoice::Snapshot | BaselineChoice::AgainstSnapshot => {
            format!("against the snapshots in {}", report.baseline.rev)
        }
        BaselineChoice::Registry => format!("against {}", report.baseline.rev),
        _ => format!(
            "against {} ({})",
            report.baseline.rev,
            &report.baseline.commit[..report.baseline.commit.len().min(12)],
        ),
    };
    format!(
        "{} protocol(s) checked {against}: {}",
        report.protocols.len(),
        if failed == 0 {
            "ok".to_owned()
        } else {
            format!("{failed} FAIL")
        }
    )
}

/// `sched 0.87.0 -> 0.87.1: needs 0.88.0 (2 major, 1 minor) FAIL`: the counted findings by level and the
/// verdict. A declared version below the baseline's says so: `jobctl 0.2.1 -> 0.2.0: the version went
/// backwards, declare 0.2.1 or later (0 major, 0 minor) FAIL`.
pub fn summary(p: &ProtocolReport) -> String {
    let count = |level| {
        p.findings
            .iter()
            .filter(|f| f.counts() && f.level == level)
            .count()
    };
    let (major, minor) = (count(Level::Major), count(Level::Minor));
    // The findings no required bump accounts for, which fail the check on their own.
    let mut unpaid: Vec<crate::rules::RuleId> = p
        .findings
        .iter()
        .filter(|f| crate::policy::fails_whatever_the_version(f))
        .map(|f| f.rule)
        .collect();
    unpaid.sort();
    let verdict = match (p.ok, unpaid.is_empty()) {
        (true, _) => "ok".to_owned(),
        (false, true) => "FAIL".to_owned(),
        (false, false) => {
            let mut counts: Vec<String> = Vec::new();
            for rule in &unpaid {
                let n = unpaid.iter().filter(|r| *r == rule).count();
                let text = format!("{n} {rule}");
                if !counts.contains(&text) {
                    counts.push(text);
                }
            }
            format!("FAIL ({})", counts.join(", "))
        }
    };
    match (&p.old_version, &p.new_version) {
        (None, Some(new)) => format!("{} (new) {new}: {verdict}", p.name),
        (Some(old), None) => format!("{} {old} -> removed: {verdict}", p.name),
        (Some(old), Some(new)) => {
            let needs = match (&p.required_version, p.required_bump) {
                (Some(r), _) if p.version_went_backwards() => {
                    format!("the version went backwards, declare {r} or later ")
                }
                (Some(r), Level::Minor | Level::Major) => format!("needs {r} "),
                _ => "no bump needed ".to_owned(),
            };
            format!(
                "{} {old} -> {new}: {needs}({major} major, {minor} minor) {verdict}",
                p.name
            )
        }
        (None, None) => format!("{}: {verdict}", p.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_one_based_with_character_columns() {
        let text = "fn a() {}\n    pub é: u8,\n";
        let start = text.find('é').unwrap();
        let r = region_in(text, start, start + 'é'.len_utf8()).unwrap();
        assert_eq!(
            r,
            Region {
                start_line: 2,
                start_column: 9,
                end_line: 2,
                end_column: 10
            }
        );
        assert_eq!(region_in(text, 0, 0).unwrap().start_column, 1);
        assert_eq!(
            region_in(text, start + 1, start + 2),
            None,
            "inside a character"
        );
        assert_eq!(region_in(text, 5, 100), None, "past the end");
        assert_eq!(region_in(text, 5, 4), None, "reversed");
    }
}
