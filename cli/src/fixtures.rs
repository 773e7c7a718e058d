//! Golden wire fixtures: representative payloads of every message, per protocol and release, committed next to
//! the code and decoded by the user's own tests (`wirecheck::testing`, feature `testing`).
//!
//! Static analysis cannot see everything: a `try_from` that now rejects a value, a custom `deserialize_with`, a
//! range that narrowed inside the same Rust type. So every release keeps payloads of what it writes, generated
//! from its extracted schema, and every later build decodes them with its current types.
//!
//! # Layout
//!
//! ```text
//! <package>/wire-fixtures/<protocol>/<version>/<topic>.<kind>.json
//! examples/flux-protocols/wire-fixtures/sched/0.88.0/sched.alloc.request.json
//! ```
//!
//! `<package>` is the directory of the `Cargo.toml` nearest to the file that declares the protocol (the
//! workspace root for a single-package repository); `wirecheck fixtures write --dir DIR` writes
//! `DIR/<protocol>/<version>/` instead (then `wirecheck check` cannot see them: it looks in the default place).
//! Characters of the topic outside `[A-Za-z0-9._-]` become `_` in the file name (`shell-<id>.kill` gives
//! `shell-_id_.kill.event.json`); when two messages would share a name, the message's type name is added
//! (`job.eventlog.record.Entry.json`). The header inside the file names the message exactly.
//!
//! # Content
//!
//! One JSON object, its header keys one per line and then one case per line:
//!
//! ```json
//! {
//!   "wirecheck_fixture": 1,
//!   "protocol": "sched",
//!   "version": "0.88.0",
//!   "format": "json",
//!   "message": "CancelRequest",
//!   "topic": "sched.cancel",
//!   "kind": "request",
//!   "strict": false,
//!   "cases": [
//!     {"case": "minimal", "payload": {"id": 0}},
//!     {"case": "maximal", "payload": {"id": 1}},
//!     {"case": "boundary:max", "payload": {"id": 18446744073709551615}}
//!   ]
//! }
//! ```
//!
//! - Cases (written by the comparison engine's sampler, the one that writes witnesses): `minimal` (only what
//!   is always written), `maximal` (every optional field present, collections with one element),
//!   `variant:Enum::Variant` (one per writable variant of every enum the message reaches, the rest as in
//!   `maximal`) and its `minimal` form, and `boundary:max` / `boundary:min` forms of `maximal` and of each
//!   variant case (integers at the ends of their type's range); a `minimal` or boundary form is left out when
//!   an earlier case of the file has the same payload. Integers behind an `into`/`from` proxy keep their
//!   usual value: the writer only produces what the conversion gives.
//! - `strict`: some type the message reaches denies unknown fields, so old readers need exactly the old keys.
//! - `notes`, when present: what could not be generated. wirecheck never runs code, so it cannot write a value
//!   of a type of another crate (other than `serde_json::Value`) or of a field with `serialize_with`: a case
//!   that needs one is left out and the note says why.
//! - Payloads are the serde data model written as JSON, whatever the protocol's `format`: for `cbor` and
//!   `msgpack` that is the same data model (apart from byte strings and non-string map keys); for the
//!   positional `bincode` and `postcard` it checks values but not the byte layout (field order, variant
//!   indices), which `wirecheck check` judges statically.
//! - Bytes are deterministic: object keys sorted, serde_json's number formatting, `\n` line ends. Two runs on
//!   the same source give the same bytes.
//!
//! # Released fixtures are never rewritten
//!
//! [`write()`] generates the fixtures of every protocol's declared version. When that version is the one the
//! baseline release declares (the last release tag, as `wirecheck check` finds it), the version is released:
//! its fixtures are generated from the release's own source (git objects at the tag), existing files are never
//! rewritten, and only missing ones are added. Otherwise the version is in development and its folder is kept
//! equal to what the working tree's schema gives (files rewritten, files of removed messages deleted).
//! `--rev REV` writes the fixtures of the release at `REV` (to add the fixtures a release forgot), with the same
//! never-rewrite rule. `--check` writes nothing and fails when a file is missing or stale, of the protocols
//! that keep fixtures (their `<protocol>/` folder exists; a note names the others).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::extract::FileReader;
use crate::findings::{Finding, Level, Side};
use crate::model::{MessageDecl, ProtocolDecl, Snapshot};
use crate::outcome::Baseline;
use crate::rules::RuleId;
use crate::source::{SourceError, WorkTree};
use crate::workspace::{self, History, Workspace, WorkspaceError};

/// The folder, in each package, that holds the fixtures.
pub const DEFAULT_DIR: &str = "wire-fixtures";

/// The value of the `wirecheck_fixture` key: the version of the file layout.
pub const LAYOUT_VERSION: u32 = 1;

/// One generated fixture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureFile {
    /// The file name inside the version's folder (`sched.alloc.request.json`).
    pub name: String,
    /// The message's type name.
    pub message: String,
    /// The message's topic.
    pub topic: String,
    /// The message's kind.
    pub kind: crate::Kind,
    /// The file's text.
    pub text: String,
}

/// The fixture files of the protocol named `protocol` as `snapshot` declares it, in file name order (empty
/// when the snapshot does not declare it).
pub fn protocol_files(snapshot: &Snapshot, protocol: &str) -> Vec<FixtureFile> {
    let Some(decl) = snapshot.protocol(protocol) else {
        return Vec::new();
    };
    let messages: Vec<&MessageDecl> = snapshot.messages_of(protocol).collect();
    let stems: Vec<String> = messages
        .iter()
        .map(|message| format!("{}.{}", sanitize(&message.topic), message.kind))
        .collect();
    let mut used = BTreeSet::new();
    let mut files = Vec::new();
    for (message, stem) in messages.iter().zip(&stems) {
        let shared = stems.iter().filter(|s| *s == stem).count() > 1;
        let mut name = if shared {
            format!("{stem}.{}", sanitize(&message.name))
        } else {
            stem.clone()
        };
        let base = name.clone();
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{base}.{n}");
            n += 1;
        }
        let text = fixture_text(snapshot, decl, message);
        files.push(FixtureFile {
            name: format!("{name}.json"),
            message: message.name.clone(),
            topic: message.topic.clone(),
            kind: message.kind,
            text,
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// The text of the fixture file of `message` (of the protocol `decl` in `snapshot`): the header, one key a
/// line, then one case a line (see the module documentation).
fn fixture_text(snapshot: &Snapshot, decl: &ProtocolDecl, message: &MessageDecl) -> String {
    let (cases, notes) = crate::compat::fixture_cases(snapshot, message);
    let mut text = String::new();
    text.push_str("{\n");
    text.push_str(&format!("  \"wirecheck_fixture\": {LAYOUT_VERSION},\n"));
    for (key, value) in [
        ("protocol", decl.name.as_str()),
        ("version", &decl.version.to_string()),
        ("format", decl.format.as_str()),
        ("message", &message.name),
        ("topic", &message.topic),
        ("kind", message.kind.as_str()),
    ] {
        text.push_str(&format!("  \"{key}\": {},\n", json_string(value)));
    }
    text.push_str(&format!(
        "  \"strict\": {},\n",
        denies_unknown(snapshot, message)
    ));
    if !notes.is_empty() {
        text.push_str("  \"notes\": [\n");
        for (i, note) in notes.iter().enumerate() {
            let comma = if i + 1 < notes.len() { "," } else { "" };
            text.push_str(&format!("    {}{comma}\n", json_string(note)));
        }
        text.push_str("  ],\n");
    }
    text.push_str("  \"cases\": [");
    for (i, (case, payload)) in cases.iter().enumerate() {
        text.push_str(if i == 0 { "\n" } else { ",\n" });
        text.push_str(&format!(
            "    {{\"case\": {}, \"payload\": ",
            json_string(case)
        ));
        canonical(payload, &mut text);
        text.push('}');
    }
    text.push_str(if cases.is_empty() { "]\n" } else { "\n  ]\n" });
    text.push_str("}\n");
    text
}

/// A file name part: characters outside `[A-Za-z0-9._-]` become `_`.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn json_string(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// Compact JSON with object keys sorted (whatever serde_json's map type), `": "` and `", "` separators.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_string(k));
                out.push_str(": ");
                canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Whether a type the message reaches (as written or as read) denies unknown fields.
fn denies_unknown(snapshot: &Snapshot, message: &MessageDecl) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![message.rust_path.clone()];
    while let Some(path) = stack.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(def) = snapshot.types.get(&path) else {
            continue;
        };
        if def.attrs.deny_unknown_fields {
            return true;
        }
        stack.extend(def.named_types().into_iter().map(str::to_owned));
    }
    false
}

/// The directory (relative to the workspace root, `/`-separated, `""` for the root) of the package whose
/// source holds `file`: the nearest ancestor with a `Cargo.toml`.
pub fn package_dir(reader: &dyn FileReader, file: &str) -> String {
    let mut dir = match file.rfind('/') {
        Some(i) => &file[..i],
        None => "",
    };
    loop {
        let manifest = if dir.is_empty() {
            "Cargo.toml".to_owned()
        } else {
            format!("{dir}/Cargo.toml")
        };
        if matches!(reader.read(&manifest), Ok(Some(_))) || dir.is_empty() {
            return dir.to_owned();
        }
        dir = match dir.rfind('/') {
            Some(i) => &dir[..i],
            None => "",
        };
    }
}

/// The fixtures folder of a protocol declared in `decl_file`, relative to the workspace root:
/// `<package>/wire-fixtures/<protocol>`.
fn protocol_dir(reader: &dyn FileReader, decl_file: &str, protocol: &str) -> String {
    let pkg = package_dir(reader, decl_file);
    if pkg.is_empty() {
        format!("{DEFAULT_DIR}/{protocol}")
    } else {
        format!("{pkg}/{DEFAULT_DIR}/{protocol}")
    }
}

// ---- wirecheck fixtures write ----

/// Why `wirecheck fixtures write` could not run (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum FixturesError {
    /// The workspace or a revision could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// Git trouble.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A fixture file or folder could not be read or written.
    #[error("{path}: {message}. Check the folder's permissions")]
    Io {
        /// The file or folder.
        path: String,
        /// What failed.
        message: String,
    },
}

/// What `wirecheck fixtures write` does.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The workspace's `Cargo.toml` (default: found from the current directory).
    pub manifest_path: Option<PathBuf>,
    /// Only these packages (default: every workspace member).
    pub packages: Vec<String>,
    /// Write every protocol's fixtures under `dir/<protocol>/<version>/` instead of the package's
    /// `wire-fixtures/`.
    pub dir: Option<PathBuf>,
    /// Write the fixtures of the release at this revision, from git objects (default: the working tree's
    /// declared versions).
    pub rev: Option<String>,
    /// The release tag glob used to find the baseline release (default `v*`).
    pub tag_pattern: String,
    /// Write nothing; report what is missing or stale.
    pub check: bool,
}

/// What happened to one fixture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileStatus {
    /// Already as generated.
    Unchanged,
    /// Written (new, or rewritten in a version that is not released).
    Written,
    /// Deleted: its message is gone from a version that is not released.
    Removed,
    /// Of a released version and different from what this run generates: kept, never rewritten.
    Kept,
    /// `--check`: should exist and does not.
    Missing,
    /// `--check`: differs from what the schema gives, in a version that is not released.
    Stale,
    /// `--check`: a fixture of a message the version no longer has.
    Extra,
}

impl FileStatus {
    /// The word printed before the file's path.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Unchanged => "unchanged",
            FileStatus::Written => "wrote",
            FileStatus::Removed => "removed",
            FileStatus::Kept => "kept",
            FileStatus::Missing => "missing",
            FileStatus::Stale => "stale",
            FileStatus::Extra => "extra",
        }
    }

    /// Whether `--check` fails on it.
    pub fn fails_check(self) -> bool {
        matches!(
            self,
            FileStatus::Missing | FileStatus::Stale | FileStatus::Extra
        )
    }
}

/// One file of a [`WriteReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file, as a path relative to the workspace root (or under `--dir` as given).
    pub path: String,
    /// What happened.
    pub status: FileStatus,
    /// The release the version was found in, when it is released.
    pub released: Option<String>,
}

/// The result of [`write()`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Every fixture file considered, in path order.
    pub files: Vec<FileReport>,
    /// Things worth knowing (no baseline found, a release that could not be read).
    pub notes: Vec<String>,
}

impl WriteReport {
    /// No file is missing, stale or extra (what `--check` requires).
    pub fn up_to_date(&self) -> bool {
        !self.files.iter().any(|f| f.status.fails_check())
    }
}

/// The fixtures of one protocol version and where they go.
struct Target {
    /// The protocol's name.
    protocol: String,
    /// The folder, for display.
    shown: String,
    /// The folder on disk.
    dir: PathBuf,
    files: Vec<FixtureFile>,
    released: Option<String>,
}

impl Target {
    /// The protocol's folder (of all its versions), for display.
    fn protocol_folder(&self) -> String {
        match self.shown.rsplit_once('/') {
            Some((folder, _)) => format!("{folder}/"),
            None => self.shown.clone(),
        }
    }

    /// Whether the protocol keeps wire fixtures: its folder (of all its versions) exists, as
    /// `wirecheck check` decides it for `fixtures_missing`.
    fn keeps_fixtures(&self) -> bool {
        self.dir.parent().is_some_and(Path::is_dir)
    }
}

/// Where the fixtures of each protocol version go: under `--dir` when given, else in the folder of the
/// package that declares the protocol.
struct Placement<'a> {
    root: &'a Path,
    work_tree: WorkTree,
    dir: Option<&'a Path>,
}

impl Placement<'_> {
    /// The target of the `files` of the protocol `decl` (as declared in the working tree or at the
    /// release `released`).
    fn target(
        &self,
        decl: &ProtocolDecl,
        files: Vec<FixtureFile>,
        released: Option<String>,
    ) -> Target {
        let (shown, dir) = match self.dir {
            Some(dir) => {
                let folder = dir.join(&decl.name).join(decl.version.to_string());
                (folder.display().to_string(), folder)
            }
            None => {
                let relative = format!(
                    "{}/{}",
                    protocol_dir(&self.work_tree, &decl.location.file, &decl.name),
                    decl.version
                );
                (relative.clone(), self.root.join(relative))
            }
        };
        Target {
            protocol: decl.name.clone(),
            shown,
            dir,
            files,
            released,
        }
    }
}

/// Runs `wirecheck fixtures write` (or, with [`WriteOptions::check`], its `--check`).
pub fn write(options: &WriteOptions) -> Result<WriteReport, FixturesError> {
    let workspace = Workspace::load(options.manifest_path.as_deref(), &options.packages)?;
    let placement = Placement {
        root: &workspace.root,
        work_tree: WorkTree::new(&workspace.root),
        dir: options.dir.as_deref(),
    };
    let mut notes = Vec::new();
    let targets = match &options.rev {
        Some(rev) => release_targets(&workspace, rev, &placement)?,
        None => working_tree_targets(&workspace, &options.tag_pattern, &placement, &mut notes)?,
    };
    let mut report = WriteReport {
        files: Vec::new(),
        notes,
    };
    for target in &targets {
        if options.check && !target.keeps_fixtures() {
            report.notes.push(format!(
                "{} keeps no wire fixtures (no folder {}): not checked; `wirecheck fixtures write` starts them",
                target.protocol,
                target.protocol_folder()
            ));
            continue;
        }
        apply(target, options.check, &mut report)?;
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// `--rev REV`: the fixtures of every protocol of the release at `rev`, a released version each.
fn release_targets(
    workspace: &Workspace,
    rev: &str,
    placement: &Placement<'_>,
) -> Result<Vec<Target>, FixturesError> {
    let repo = workspace.repository()?;
    let commit = repo.resolve(rev)?;
    let mut snapshot = workspace.revision_snapshot(&repo, &commit, rev)?;
    workspace.keep_selected(&mut snapshot)?;
    Ok(snapshot
        .protocols
        .iter()
        .map(|p| placement.target(p, protocol_files(&snapshot, &p.name), Some(rev.to_owned())))
        .collect())
}

/// The fixtures of every protocol of the working tree at its declared version: generated from the
/// baseline release's source when that release declares the same version, else from the working tree.
fn working_tree_targets(
    workspace: &Workspace,
    tag_pattern: &str,
    placement: &Placement<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<Target>, FixturesError> {
    let mut current = workspace.current_snapshot()?;
    workspace.keep_selected(&mut current)?;
    let base = baseline_release(workspace, tag_pattern, notes);
    Ok(current
        .protocols
        .iter()
        .map(|p| {
            let released = base.as_ref().filter(|(_, b)| {
                b.protocol(&p.name)
                    .is_some_and(|bp| bp.version == p.version)
            });
            match released {
                Some((tag, b)) => {
                    placement.target(p, protocol_files(b, &p.name), Some(tag.clone()))
                }
                None => placement.target(p, protocol_files(&current, &p.name), None),
            }
        })
        .collect())
}

/// The tag and model of the baseline release (the last release tag, as `wirecheck check` finds it), whose
/// declared versions count as released; `None`, with a note saying why, when there is none or it cannot
/// be read.
fn baseline_release(
    workspace: &Workspace,
    tag_pattern: &str,
    notes: &mut Vec<String>,
) -> Option<(String, Snapshot)> {
    let pattern = workspace::tag_pattern(tag_pattern);
    let Ok(repo) = workspace.repository() else {
        notes.push(
            "not in a git repository: no version counts as released, every folder is written from the working tree"
                .to_owned(),
        );
        return None;
    };
    let Ok(release) = repo.baseline(pattern) else {
        notes.push(format!(
            "no release tag matching `{pattern}`: no version counts as released, every folder is written from the working tree"
        ));
        return None;
    };
    match workspace.revision_snapshot(&repo, &release.commit, &release.tag) {
        Ok(snapshot) => Some((release.tag, snapshot)),
        Err(e) => {
            notes.push(format!(
                "cannot read the release {}: {e}; every folder is written from the working tree",
                release.tag
            ));
            None
        }
    }
}

fn io_error(path: &Path, e: &std::io::Error) -> FixturesError {
    FixturesError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The fixture files already in a folder: `*.json` files whose object has a `wirecheck_fixture` key.
fn existing_fixtures(dir: &Path) -> Result<BTreeMap<String, String>, FixturesError> {
    let mut out = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io_error(dir, &e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| io_error(dir, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") || !entry.path().is_file() {
            continue;
        }
        let text =
            std::fs::read_to_string(entry.path()).map_err(|e| io_error(&entry.path(), &e))?;
        let is_fixture = serde_json::from_str::<Value>(&text)
            .is_ok_and(|v| v.get("wirecheck_fixture").is_some());
        if is_fixture {
            out.insert(name, text);
        }
    }
    Ok(out)
}

fn apply(target: &Target, check: bool, report: &mut WriteReport) -> Result<(), FixturesError> {
    let existing = existing_fixtures(&target.dir)?;
    let released = target.released.is_some();
    let mut record = |name: &str, status| {
        report.files.push(FileReport {
            path: format!("{}/{name}", target.shown),
            status,
            released: target.released.clone(),
        });
    };
    let mut to_write = Vec::new();
    for file in &target.files {
        let status = match existing.get(&file.name) {
            Some(text) if *text == file.text => FileStatus::Unchanged,
            Some(_) if released => FileStatus::Kept,
            Some(_) if check => FileStatus::Stale,
            None if check => FileStatus::Missing,
            _ => {
                to_write.push(file);
                FileStatus::Written
            }
        };
        record(&file.name, status);
    }
    let mut to_remove = Vec::new();
    for name in existing.keys() {
        if released || target.files.iter().any(|f| f.name == *name) {
            continue;
        }
        if check {
            record(name, FileStatus::Extra);
        } else {
            to_remove.push(name.clone());
            record(name, FileStatus::Removed);
        }
    }
    if !to_write.is_empty() {
        std::fs::create_dir_all(&target.dir).map_err(|e| io_error(&target.dir, &e))?;
    }
    for file in to_write {
        let path = target.dir.join(&file.name);
        std::fs::write(&path, &file.text).map_err(|e| io_error(&path, &e))?;
    }
    for name in to_remove {
        let path = target.dir.join(&name);
        std::fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
    }
    Ok(())
}

// ---- wirecheck check: fixtures_missing ----

/// The messages (topic, kind) that the fixture files of a folder of the working tree cover.
fn covered(dir: &Path) -> BTreeSet<(String, String)> {
    existing_fixtures(dir)
        .unwrap_or_default()
        .values()
        .filter_map(|text| {
            let v: Value = serde_json::from_str(text).ok()?;
            Some((
                v.get("topic")?.as_str()?.to_owned(),
                v.get("kind")?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// The working tree's folder of wire fixtures of the protocol the working tree declares as `new`
/// (`wire-fixtures/<protocol>/` of its package), when it exists: the protocol keeps wire fixtures.
pub fn fixtures_folder(history: &History<'_>, new: &ProtocolDecl) -> Option<String> {
    let root = &history.workspace().root;
    let folder = protocol_dir(&WorkTree::new(root), &new.location.file, &new.name);
    root.join(&folder).is_dir().then_some(folder)
}

/// The `fixtures_missing` finding (level `none`: it never changes a bump or the exit code) of the protocol
/// the working tree declares as `new`, when it keeps wire fixtures ([`fixtures_folder`]) and its version
/// in the baseline's model `base` lacks the fixture of a message the baseline declares. The baseline's
/// commit is read only to say whether the files were committed there.
pub fn missing_fixtures(
    history: &History<'_>,
    baseline: &Baseline,
    base: &Snapshot,
    new: &ProtocolDecl,
) -> Option<Finding> {
    let protocol = new.name.as_str();
    let old = base.protocol(protocol)?;
    let root = &history.workspace().root;
    let protocol_folder = fixtures_folder(history, new)?;
    let folder = format!("{protocol_folder}/{}", old.version);
    let have = covered(&root.join(&folder));
    let lacks = |topic: &str, kind: crate::Kind| {
        !have.contains(&(topic.to_owned(), kind.as_str().to_owned()))
    };
    let names: Vec<&str> = base
        .messages_of(protocol)
        .filter(|m| lacks(&m.topic, m.kind))
        .map(|m| m.name.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    // Whether the release committed them (then they were deleted since): its files, by the names this
    // generator gives them.
    let committed = protocol_files(base, protocol)
        .iter()
        .filter(|f| lacks(&f.topic, f.kind))
        .any(|f| {
            history
                .file_at(&baseline.commit, &format!("{folder}/{}", f.name))
                .is_some()
        });
    let what = format!(
        "the wire fixtures of `{protocol}` {} (release {}) lack {} of its {} messages ({}) in {folder}/",
        old.version,
        baseline.rev,
        names.len(),
        base.messages_of(protocol).count(),
        names.join(", ")
    );
    let todo = if committed {
        format!(
            "they were committed in {rev} and are gone from the working tree: restore them with `git checkout {rev} -- {folder}`",
            rev = baseline.rev
        )
    } else {
        format!(
            "the skew test cannot check that this release still decodes: run `wirecheck fixtures write --rev {}` and commit the files",
            baseline.rev
        )
    };
    Some(Finding {
        rule: RuleId::FixturesMissing,
        level: Level::None,
        allowed: false,
        allow_reason: None,
        message: format!("{what}; {todo}"),
        protocol: protocol.to_owned(),
        message_type: String::new(),
        topic: String::new(),
        field: None,
        wire_path: None,
        direction: None,
        against: baseline.rev.clone(),
        location: new.location.clone(),
        side: Side::New,
        anchor: None,
        witness: None,
        known: false,
        reached_by: Vec::new(),
    })
}
