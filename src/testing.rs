//! The skew test: decode every committed wire fixture of every release that must interoperate with the current
//! types, in your own `cargo test` (feature `testing`: serde_json and nothing of the checker).
//!
//! `wirecheck fixtures write` keeps, per protocol and release, payloads generated from the release's schema
//! (`wire-fixtures/<protocol>/<version>/<topic>.<kind>.json`; the layout is described in the checker's
//! `wirecheck::fixtures` module and in the README). The checker compares schemas; it cannot see a `try_from`
//! that now rejects a value, a custom `deserialize_with`, or a range that narrowed inside the same Rust type.
//! [`Skew`] runs the real code on the old payloads:
//!
//! ```no_run
//! # use serde::{Deserialize, Serialize};
//! # use wirecheck::{Message, Protocol};
//! # #[derive(Protocol)]
//! # #[wire(name = "sched", version = "0.88.0")]
//! # pub struct Sched;
//! # #[derive(Serialize, Deserialize, Message)]
//! # #[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
//! # pub struct AllocRequest { pub id: u64 }
//! # #[derive(Serialize, Deserialize, Message)]
//! # #[wire(protocol = Sched, topic = "sched.cancel", kind = "request")]
//! # pub struct CancelRequest { pub id: u64 }
//! use wirecheck::testing::Skew;
//!
//! #[test]
//! fn wire_skew() {
//!     Skew::new(concat!(env!("CARGO_MANIFEST_DIR"), "/wire-fixtures"))
//!         .message::<AllocRequest>()
//!         .message::<CancelRequest>()
//!         .assert();
//! }
//! ```
//!
//! # What is checked
//!
//! For each protocol of the listed messages, with the current declared version `V` and minimum `M`
//! (`min_compatible`, else the first release of `V`'s series: [`default_min_compatible`], the rule of the
//! handshake and of the checker's version arithmetic), every fixture folder `R` with `R <= V`:
//!
//! - from `M` to `V` (the current version's own folder included): every message, in the directions the
//!   checker's table gives its kind under the protocol's `upgrade` order ([`directions`]);
//! - below `M`: only `record` messages, new reads old (every later release must read stored records back);
//! - newer than `V`: skipped (they belong to another branch).
//!
//! Per case of a fixture file:
//!
//! - **new reads old**: the payload, as JSON text, must decode with the current type
//!   (`serde_json::from_str`): this runs `try_from`, `deserialize_with`, and every check serde does.
//! - **old reads new**: the old release's own types are not available, so the check is on what the current
//!   writer does with the old release's data: the decoded value is encoded again (`serde_json::to_value`), and
//!   the result must contain the old payload: every key it had, with the same value, recursively (arrays
//!   element by element; an integer must stay an integer, since integer readers reject `1.0`). When a type of
//!   the old message denies unknown fields (the file's `strict`), it must be exactly the old payload. The
//!   guarantee: an old reader that accepted the old payload (it is what the old release writes) finds the same
//!   keys and values in what the current release writes for the same data, and, unless it denies unknown
//!   fields, ignores the rest. It does not cover payloads only the current release can produce (a new variant,
//!   a value beyond the old range): `wirecheck check` decides those from the schemas. When the direction set
//!   has no new-reads-old and the current type cannot decode the old payload, there is no value to encode: the
//!   case is counted as not representable, not as a failure.
//!
//! Also a failure: a listed message with no fixture in the current version's folder (run `wirecheck fixtures
//! write`: the step cannot be forgotten), and a fixture of a checked release whose message no listed type
//! matches (by protocol, topic and kind; the type name breaks ties), so the list cannot silently fall short.
//!
//! Payloads are the serde data model in JSON whatever the protocol's `format`; they are decoded with serde_json.
//! For `cbor` and `msgpack` that is the same data model; for the positional `bincode` and `postcard` it checks
//! values (what a `try_from` accepts) but not the byte layout, which `wirecheck check` judges statically.
//!
//! Breaks that shipped on purpose are declared with [`Known`] and a reason: their failures are still listed,
//! not counted; a [`Known`] entry that matches nothing is itself a failure, so entries cannot outlive the break.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::handshake::default_min_compatible;
use crate::{Kind, Message, Protocol, ProtocolInfo, Upgrade};

/// The newest fixture file layout this module reads (the `wirecheck_fixture` key).
const LAYOUT_VERSION: u32 = 1;

/// The directions that must work for a message, as in the checker's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Directions {
    /// Current readers decode what older releases wrote.
    pub new_reads_old: bool,
    /// Older readers decode what the current release writes.
    pub old_reads_new: bool,
}

/// The directions the checker's table needs for a message of `kind` under the `upgrade` order: both, except
/// requests and responses under `server-first` / `client-first` (events and records always need both).
///
/// ```
/// use wirecheck::testing::directions;
/// use wirecheck::{Kind, Upgrade};
///
/// let d = directions(Kind::Request, Upgrade::ServerFirst);
/// assert!(d.new_reads_old && !d.old_reads_new);
/// ```
pub fn directions(kind: Kind, upgrade: Upgrade) -> Directions {
    let (new_reads_old, old_reads_new) = match (kind, upgrade) {
        (Kind::Event | Kind::Record, _) | (_, Upgrade::AnyOrder) => (true, true),
        (Kind::Request, Upgrade::ServerFirst) | (Kind::Response, Upgrade::ClientFirst) => {
            (true, false)
        }
        (Kind::Request, Upgrade::ClientFirst) | (Kind::Response, Upgrade::ServerFirst) => {
            (false, true)
        }
    };
    Directions {
        new_reads_old,
        old_reads_new,
    }
}

/// Why a payload did not go through the current type.
enum Trip {
    /// Decoding failed (serde's message).
    Rejected(String),
    /// Decoding worked, encoding again failed.
    Unwritable(String),
}

fn roundtrip<M: Serialize + DeserializeOwned>(text: &str) -> Result<Value, Trip> {
    let value: M = serde_json::from_str(text).map_err(|e| Trip::Rejected(e.to_string()))?;
    serde_json::to_value(&value).map_err(|e| Trip::Unwritable(e.to_string()))
}

/// A listed message type.
struct Entry {
    protocol: ProtocolInfo,
    topic: &'static str,
    kind: Kind,
    /// The type's name without its module path (what fixture headers call `message`).
    name: String,
    /// The full type name, to list a type once.
    full_name: &'static str,
    roundtrip: fn(&str) -> Result<Value, Trip>,
}

/// A break that shipped on purpose: failures it matches are listed as known, not counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    protocol: String,
    versions: String,
    topic: Option<String>,
    message: Option<String>,
    case: Option<String>,
    reason: String,
}

impl Known {
    /// Failures of the fixtures of `protocol` at the releases matching `versions` (a semver requirement such
    /// as `"<=0.47.0"` or `"=0.42.0"`), for `reason`.
    pub fn new(
        protocol: impl Into<String>,
        versions: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Known {
            protocol: protocol.into(),
            versions: versions.into(),
            topic: None,
            message: None,
            case: None,
            reason: reason.into(),
        }
    }

    /// Only fixtures of messages on `topic`.
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = Some(topic.into());
        self
    }

    /// Only fixtures of the message type named `message` (`"AllocResponse"`, without its module path).
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Only the case named `case` (`"minimal"`, `"variant:Event::Exception"`) and its boundary forms
    /// (`"variant:Event::Exception boundary:max"`).
    pub fn case(mut self, case: impl Into<String>) -> Self {
        self.case = Some(case.into());
        self
    }

    fn matches(&self, f: &Failure, req: &VersionReq) -> bool {
        f.protocol == self.protocol
            && Version::parse(&f.release).is_ok_and(|v| req.matches(&v))
            && self.topic.as_ref().is_none_or(|t| *t == f.topic)
            && self.message.as_ref().is_none_or(|m| *m == f.message)
            && self.case.as_ref().is_none_or(|c| {
                f.case
                    .as_deref()
                    .is_some_and(|fc| fc == c || fc.starts_with(&format!("{c} ")))
            })
    }
}

impl fmt::Display for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.protocol, self.versions)?;
        if let Some(t) = &self.topic {
            write!(f, " topic {t}")?;
        }
        if let Some(m) = &self.message {
            write!(f, " message {m}")?;
        }
        if let Some(c) = &self.case {
            write!(f, " case `{c}`")?;
        }
        write!(f, " ({})", self.reason)
    }
}

/// One failure of the skew test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The protocol.
    pub protocol: String,
    /// The release (fixture folder version) the payload comes from.
    pub release: String,
    /// The current declared version.
    pub current: String,
    /// The message type's name (`AllocResponse`), empty when the failure is not about one message.
    pub message: String,
    /// The message's topic, empty when not about one message.
    pub topic: String,
    /// The message's kind, when about one message.
    pub kind: Option<Kind>,
    /// The case (`maximal`, `variant:Event::Submit`), when about one payload.
    pub case: Option<String>,
    /// `new reads old` or `old reads new`, when about one direction.
    pub direction: Option<&'static str>,
    /// What went wrong, in a sentence.
    pub problem: String,
    /// The payload, as compact JSON, when about one payload.
    pub payload: Option<String>,
    /// The fixture file or folder.
    pub file: PathBuf,
    /// Why it is accepted, when a [`Known`] entry matches it.
    pub known: Option<String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} release {} (current {})",
            self.protocol, self.release, self.current
        )?;
        if !self.message.is_empty() {
            write!(f, ", `{}` ({}", self.message, self.topic)?;
            if let Some(k) = self.kind {
                write!(f, " {k}")?;
            }
            f.write_str(")")?;
        }
        if let Some(c) = &self.case {
            write!(f, ", case `{c}`")?;
        }
        if let Some(d) = self.direction {
            write!(f, ", {d}")?;
        }
        write!(f, ":\n    {}", self.problem)?;
        if let Some(p) = &self.payload {
            write!(f, "\n    payload: {p}")?;
        }
        write!(f, "\n    file: {}", self.file.display())?;
        if let Some(k) = &self.known {
            write!(f, "\n    known: {k}")?;
        }
        Ok(())
    }
}

/// The result of [`Skew::run`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The fixtures folder.
    pub dir: PathBuf,
    /// Failures that count.
    pub failures: Vec<Failure>,
    /// Failures a [`Known`] entry accepts.
    pub known: Vec<Failure>,
    /// `(protocol, release)` pairs whose fixtures were checked.
    pub releases: Vec<(String, String)>,
    /// Fixture files checked.
    pub files: usize,
    /// Payloads decoded with the current types (new reads old).
    pub decoded: usize,
    /// Payloads encoded again and compared (old reads new).
    pub reencoded: usize,
    /// Payloads of a direction set without new-reads-old that the current type cannot represent.
    pub not_representable: usize,
    /// Release folders left out: newer than the current version, or (for requests, responses and events)
    /// older than its minimum.
    pub skipped: Vec<(String, String)>,
}

impl Outcome {
    /// No failure counts.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let releases: Vec<String> = self
            .releases
            .iter()
            .map(|(p, v)| format!("{p} {v}"))
            .collect();
        writeln!(
            f,
            "wirecheck skew test of {}: {} files of {} ({}), {} payloads decoded, {} encoded again for older readers: {}",
            self.dir.display(),
            self.files,
            if releases.len() == 1 {
                "1 release".to_owned()
            } else {
                format!("{} releases", releases.len())
            },
            releases.join(", "),
            self.decoded,
            self.reencoded,
            match self.failures.len() {
                0 => "ok".to_owned(),
                1 => "1 failure".to_owned(),
                n => format!("{n} failures"),
            }
        )?;
        for (i, failure) in self.failures.iter().enumerate() {
            writeln!(f, "failure {}: {failure}", i + 1)?;
        }
        for failure in &self.known {
            writeln!(f, "known, not counted: {failure}")?;
        }
        if !self.skipped.is_empty() {
            let skipped: Vec<String> = self
                .skipped
                .iter()
                .map(|(p, v)| format!("{p} {v}"))
                .collect();
            writeln!(
                f,
                "not checked (newer than the current version, or older than its minimum and not records): {}",
                skipped.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The fixture file layout, as `wirecheck fixtures write` writes it.
#[derive(Deserialize)]
struct FixtureData {
    wirecheck_fixture: u32,
    protocol: String,
    version: String,
    format: String,
    message: String,
    topic: String,
    kind: Kind,
    #[serde(default)]
    strict: bool,
    cases: Vec<CaseData>,
}

#[derive(Deserialize)]
struct CaseData {
    case: String,
    payload: Value,
}

/// The skew test: the message types to check and the fixtures folder. See the [module docs](self).
pub struct Skew {
    dir: PathBuf,
    entries: Vec<Entry>,
    known: Vec<Known>,
}

impl fmt::Debug for Skew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skew")
            .field("dir", &self.dir)
            .field(
                "messages",
                &self.entries.iter().map(|e| e.full_name).collect::<Vec<_>>(),
            )
            .field("known", &self.known)
            .finish()
    }
}

impl Skew {
    /// A skew test of the fixtures in `dir` (usually `concat!(env!("CARGO_MANIFEST_DIR"), "/wire-fixtures")`).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Skew {
            dir: dir.into(),
            entries: Vec::new(),
            known: Vec::new(),
        }
    }

    /// Checks the message type `M` (list every message of the protocols under test: a fixture no listed type
    /// matches is a failure).
    pub fn message<M>(mut self) -> Self
    where
        M: Message + Serialize + DeserializeOwned + 'static,
    {
        let full_name = std::any::type_name::<M>();
        if self.entries.iter().all(|e| e.full_name != full_name) {
            let plain = full_name.split('<').next().unwrap_or(full_name);
            self.entries.push(Entry {
                protocol: <M::Protocol as Protocol>::info(),
                topic: M::TOPIC,
                kind: M::KIND,
                name: plain.rsplit("::").next().unwrap_or(plain).to_owned(),
                full_name,
                roundtrip: roundtrip::<M>,
            });
        }
        self
    }

    /// Accepts the failures `known` matches (a break that shipped on purpose), with its reason.
    pub fn known(mut self, known: Known) -> Self {
        self.known.push(known);
        self
    }

    /// Panics with the [`Outcome`]'s report when a failure counts; prints the report to stderr otherwise.
    #[track_caller]
    pub fn assert(&self) {
        let outcome = self.run();
        if outcome.ok() {
            eprint!("{outcome}");
        } else {
            panic!("{outcome}");
        }
    }

    /// Runs the test.
    pub fn run(&self) -> Outcome {
        let mut out = Outcome {
            dir: self.dir.clone(),
            ..Outcome::default()
        };
        let mut failures = Vec::new();
        let mut protocols: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
        for e in &self.entries {
            protocols.entry(e.protocol.name).or_default().push(e);
        }
        for (name, entries) in &protocols {
            self.protocol(name, entries, &mut out, &mut failures);
        }
        // Known entries: accept what they match; one that matches nothing is a failure itself.
        for known in &self.known {
            let Ok(req) = VersionReq::parse(&known.versions) else {
                failures.push(bare(
                    &known.protocol,
                    "",
                    "",
                    format!(
                        "the known break `{known}` has versions `{}`, which is not a semver requirement (write \"<=0.47.0\")",
                        known.versions
                    ),
                    &self.dir,
                ));
                continue;
            };
            let mut used = false;
            for f in &mut failures {
                if f.known.is_none() && known.matches(f, &req) {
                    f.known = Some(known.reason.clone());
                    used = true;
                }
            }
            if !used {
                failures.push(bare(
                    &known.protocol,
                    "",
                    "",
                    format!("the known break `{known}` matches no failure: remove it"),
                    &self.dir,
                ));
            }
        }
        let (known, counted): (Vec<Failure>, Vec<Failure>) =
            failures.into_iter().partition(|f| f.known.is_some());
        out.failures = counted;
        out.known = known;
        out
    }

    fn protocol(
        &self,
        name: &str,
        entries: &[&Entry],
        out: &mut Outcome,
        failures: &mut Vec<Failure>,
    ) {
        let info = entries[0].protocol;
        let proto_dir = self.dir.join(name);
        let current = match Version::parse(info.version) {
            Ok(v) => v,
            Err(e) => {
                failures.push(bare(
                    name,
                    info.version,
                    info.version,
                    format!("the declared version is not semver: {e}"),
                    &proto_dir,
                ));
                return;
            }
        };
        let minimum = info
            .min_compatible
            .and_then(|m| Version::parse(m).ok())
            .unwrap_or_else(|| default_min_compatible(&current));
        let cur = current.to_string();

        // Every release folder, oldest first.
        let mut releases: Vec<(Version, PathBuf)> = Vec::new();
        if let Ok(dirs) = std::fs::read_dir(&proto_dir) {
            for d in dirs.flatten() {
                if !d.path().is_dir() {
                    continue;
                }
                let folder = d.file_name().to_string_lossy().into_owned();
                match Version::parse(&folder) {
                    Ok(v) => releases.push((v, d.path())),
                    Err(_) => failures.push(bare(
                        name,
                        &folder,
                        &cur,
                        format!(
                            "`{folder}` is not a version: fixture folders are named <protocol>/<version>"
                        ),
                        &d.path(),
                    )),
                }
            }
        }
        releases.sort_by(|a, b| a.0.cmp_precedence(&b.0));

        // The current version's fixtures must be there: the step cannot be forgotten.
        let current_dir = proto_dir.join(&cur);
        let current_files = read_folder(&current_dir).unwrap_or_default();
        for e in entries {
            let found = current_files.iter().any(|(_, data)| {
                data.as_ref()
                    .is_ok_and(|d| d.topic == e.topic && d.kind == e.kind)
            });
            if !found {
                failures.push(Failure {
                    protocol: name.to_owned(),
                    release: cur.clone(),
                    current: cur.clone(),
                    message: e.name.clone(),
                    topic: e.topic.to_owned(),
                    kind: Some(e.kind),
                    case: None,
                    direction: None,
                    problem: format!(
                        "no fixture of this message for the current version: run `wirecheck fixtures write` and commit {}",
                        current_dir.display()
                    ),
                    payload: None,
                    file: current_dir.clone(),
                    known: None,
                });
            }
        }

        for (version, folder) in &releases {
            let release = version.to_string();
            let newer = version.cmp_precedence(&current) == Ordering::Greater;
            let in_range = !newer && minimum.cmp_precedence(version) != Ordering::Greater;
            if newer {
                out.skipped.push((name.to_owned(), release));
                continue;
            }
            let files = match read_folder(folder) {
                Ok(files) => files,
                Err(problem) => {
                    failures.push(bare(name, &release, &cur, problem, folder));
                    continue;
                }
            };
            let mut checked_any = false;
            for (path, data) in files {
                let data = match data {
                    Ok(d) => d,
                    Err(problem) => {
                        failures.push(bare(name, &release, &cur, problem, &path));
                        continue;
                    }
                };
                let dirs = if in_range {
                    directions(data.kind, info.upgrade)
                } else if data.kind == Kind::Record {
                    Directions {
                        new_reads_old: true,
                        old_reads_new: false,
                    }
                } else {
                    continue;
                };
                checked_any = true;
                out.files += 1;
                let ctx = FileCtx {
                    protocol: name,
                    release: &release,
                    current: &cur,
                    path: &path,
                };
                if let Some(problem) = header_problem(&data, name, &release) {
                    failures.push(ctx.failure(&data, None, None, problem, None));
                    continue;
                }
                let Some(entry) = find_entry(entries, &data) else {
                    failures.push(ctx.failure(
                        &data,
                        None,
                        None,
                        format!(
                            "no listed type reads this message: list the current type with `.message::<T>()` (a {} on `{}` may not disappear while release {release} must interoperate)",
                            data.kind, data.topic
                        ),
                        None,
                    ));
                    continue;
                };
                for case in &data.cases {
                    ctx.case(entry, &data, case, dirs, out, failures);
                }
            }
            if checked_any {
                out.releases.push((name.to_owned(), release));
            } else {
                out.skipped.push((name.to_owned(), release));
            }
        }
    }
}

/// A failure not about one payload.
fn bare(protocol: &str, release: &str, current: &str, problem: String, file: &Path) -> Failure {
    Failure {
        protocol: protocol.to_owned(),
        release: release.to_owned(),
        current: current.to_owned(),
        message: String::new(),
        topic: String::new(),
        kind: None,
        case: None,
        direction: None,
        problem,
        payload: None,
        file: file.to_path_buf(),
        known: None,
    }
}

/// The fixture files of a folder (`*.json` with a `wirecheck_fixture` key), by path, parsed.
#[allow(clippy::type_complexity)]
fn read_folder(dir: &Path) -> Result<Vec<(PathBuf, Result<FixtureData, String>)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read the folder: {e}"))?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") || !path.is_file() {
            continue;
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                out.push((path, Err(format!("cannot read the file: {e}"))));
                continue;
            }
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            out.push((path, Err("not JSON".to_owned())));
            continue;
        };
        if value.get("wirecheck_fixture").is_none() {
            continue;
        }
        let data = serde_json::from_value::<FixtureData>(value)
            .map_err(|e| format!("not a wirecheck fixture file: {e}"));
        out.push((path, data));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn header_problem(data: &FixtureData, protocol: &str, release: &str) -> Option<String> {
    if data.wirecheck_fixture > LAYOUT_VERSION {
        return Some(format!(
            "written with layout {} by a newer wirecheck; this one reads layout {LAYOUT_VERSION}: update wirecheck",
            data.wirecheck_fixture
        ));
    }
    if data.protocol != protocol || data.version != release {
        return Some(format!(
            "the file is a fixture of {} {} but sits in the folder of {protocol} {release}",
            data.protocol, data.version
        ));
    }
    None
}

/// The listed type for a fixture's message: same topic and kind, the type name breaking ties.
fn find_entry<'e>(entries: &[&'e Entry], data: &FixtureData) -> Option<&'e Entry> {
    let same: Vec<&Entry> = entries
        .iter()
        .copied()
        .filter(|e| e.topic == data.topic && e.kind == data.kind)
        .collect();
    match same.as_slice() {
        [one] => Some(one),
        [] => None,
        many => {
            let named: Vec<&&Entry> = many.iter().filter(|e| e.name == data.message).collect();
            match named.as_slice() {
                [one] => Some(one),
                _ => None,
            }
        }
    }
}

struct FileCtx<'a> {
    protocol: &'a str,
    release: &'a str,
    current: &'a str,
    path: &'a Path,
}

impl FileCtx<'_> {
    fn failure(
        &self,
        data: &FixtureData,
        case: Option<&str>,
        direction: Option<&'static str>,
        problem: String,
        payload: Option<String>,
    ) -> Failure {
        Failure {
            protocol: self.protocol.to_owned(),
            release: self.release.to_owned(),
            current: self.current.to_owned(),
            message: data.message.clone(),
            topic: data.topic.clone(),
            kind: Some(data.kind),
            case: case.map(str::to_owned),
            direction,
            problem,
            payload,
            file: self.path.to_path_buf(),
            known: None,
        }
    }

    fn case(
        &self,
        entry: &Entry,
        data: &FixtureData,
        case: &CaseData,
        dirs: Directions,
        out: &mut Outcome,
        failures: &mut Vec<Failure>,
    ) {
        let text = case.payload.to_string();
        let shown = shorten(&text);
        let positional = matches!(data.format.as_str(), "bincode" | "postcard");
        let note = if positional {
            " (decoded from the JSON data model; the positional byte layout is not exercised)"
        } else {
            ""
        };
        let fail = |direction, problem: String| {
            self.failure(
                data,
                Some(&case.case),
                Some(direction),
                problem,
                Some(shown.clone()),
            )
        };
        match (entry.roundtrip)(&text) {
            Err(Trip::Rejected(e)) => {
                if dirs.new_reads_old {
                    out.decoded += 1;
                    failures.push(fail(
                        "new reads old",
                        format!(
                            "the current `{}` rejects what release {} writes: {e}{note}",
                            entry.name, self.release
                        ),
                    ));
                } else {
                    out.not_representable += 1;
                }
            }
            Err(Trip::Unwritable(e)) => {
                out.decoded += 1;
                failures.push(fail(
                    if dirs.old_reads_new {
                        "old reads new"
                    } else {
                        "new reads old"
                    },
                    format!(
                        "the current `{}` decodes the payload but cannot encode it again: {e}",
                        entry.name
                    ),
                ));
            }
            Ok(again) => {
                if dirs.new_reads_old {
                    out.decoded += 1;
                }
                if dirs.old_reads_new {
                    out.reencoded += 1;
                    let mut path = String::from("$");
                    if let Err(problem) = contains(&case.payload, &again, data.strict, &mut path) {
                        failures.push(fail(
                            "old reads new",
                            format!(
                                "the current `{}` writes this release's data differently, so readers of release {} may not read it: at {path}, {problem}; it writes {}",
                                entry.name,
                                self.release,
                                shorten(&again.to_string())
                            ),
                        ));
                    }
                }
            }
        }
    }
}

/// At most 2000 characters of a payload.
fn shorten(text: &str) -> String {
    const MAX: usize = 2000;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Whether `new` contains `old` (see the module docs); on failure `path` points at the difference.
fn contains(old: &Value, new: &Value, strict: bool, path: &mut String) -> Result<(), String> {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, ov) in o {
                let Some(nv) = n.get(k) else {
                    return Err(format!("key `{k}` is missing (the old payload has {ov})"));
                };
                let len = path.len();
                path.push('.');
                path.push_str(k);
                contains(ov, nv, strict, path)?;
                path.truncate(len);
            }
            if strict {
                let extra: BTreeSet<&String> = n.keys().filter(|k| !o.contains_key(*k)).collect();
                if !extra.is_empty() {
                    let extra: Vec<String> = extra.into_iter().map(|k| format!("`{k}`")).collect();
                    return Err(format!(
                        "keys {} are added, and a type of the old message denies unknown fields",
                        extra.join(", ")
                    ));
                }
            }
            Ok(())
        }
        (Value::Array(o), Value::Array(n)) => {
            if o.len() != n.len() {
                return Err(format!("{} elements instead of {}", n.len(), o.len()));
            }
            for (i, (ov, nv)) in o.iter().zip(n).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                contains(ov, nv, strict, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Number(o), Value::Number(n)) => {
            let o_int = o.is_i64() || o.is_u64();
            let n_int = n.is_i64() || n.is_u64();
            let same = match (o_int, n_int) {
                (true, true) => as_i128(o) == as_i128(n),
                (true, false) => {
                    return Err(format!(
                        "the integer {o} became the float {n}, which integer readers reject"
                    ));
                }
                _ => o.as_f64() == n.as_f64(),
            };
            if same {
                Ok(())
            } else {
                Err(format!("{o} became {n}"))
            }
        }
        _ if old == new => Ok(()),
        _ => Err(format!("{old} became {new}")),
    }
}

fn as_i128(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(old: Value, new: Value, strict: bool) -> Result<(), String> {
        let mut path = String::from("$");
        contains(&old, &new, strict, &mut path).map_err(|e| format!("{path}: {e}"))
    }

    #[test]
    fn containment() {
        assert_eq!(
            check(json!({"a": 1}), json!({"a": 1, "b": 2}), false),
            Ok(())
        );
        assert!(
            check(json!({"a": 1}), json!({"a": 1, "b": 2}), true)
                .unwrap_err()
                .contains("`b` are added")
        );
        assert_eq!(
            check(
                json!({"a": {"b": [1, 2]}}),
                json!({"a": {"b": [1, 3]}}),
                false
            ),
            Err("$.a.b[1]: 2 became 3".to_owned())
        );
        assert!(
            check(json!({"t": 1}), json!({"t": 1.0}), false)
                .unwrap_err()
                .contains("integer readers reject")
        );
        assert_eq!(check(json!({"t": 1.0}), json!({"t": 1}), false), Ok(()));
        assert!(
            check(json!({"a": null}), json!({}), false)
                .unwrap_err()
                .contains("key `a` is missing")
        );
        assert!(check(json!([1]), json!([1, 1]), false).is_err());
    }

    #[test]
    fn directions_follow_the_table() {
        use Kind::*;
        use Upgrade::*;
        let both = Directions {
            new_reads_old: true,
            old_reads_new: true,
        };
        for kind in [Request, Response, Event, Record] {
            assert_eq!(directions(kind, AnyOrder), both);
        }
        for upgrade in [ServerFirst, ClientFirst] {
            assert_eq!(directions(Event, upgrade), both);
            assert_eq!(directions(Record, upgrade), both);
        }
        assert!(!directions(Request, ServerFirst).old_reads_new);
        assert!(!directions(Response, ServerFirst).new_reads_old);
        assert!(!directions(Request, ClientFirst).new_reads_old);
        assert!(!directions(Response, ClientFirst).old_reads_new);
    }
}
