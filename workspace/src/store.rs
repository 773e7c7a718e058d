//! The store: what the checker extracted at release commits (and in the working tree), kept on disk so
//! that each release is read once, not on every check, and an unchanged working tree not even once more;
//! and what each protocol's comparison found, so that a protocol is compared once per distinct input.
//!
//! A release commit never changes, and the model extracted there depends only on the commit, on the crates
//! read and on the extractor's code. The store keeps it under `<target-dir>/wirecheck/store/<build>/`,
//! where `<build>` fingerprints wirecheck's own source (so another build of wirecheck never reads what this
//! one wrote):
//!
//! - `releases/<commit>-<crates>.json` (`<crates>`: the crates read and the workspace's place in the
//!   repository): per protocol its declaration, which of its messages were kept and
//!   the id of its part; and the extraction's notes.
//! - `parts/<id>.json`: one protocol's [part](Snapshot::protocol_part) without its declaration, named by
//!   the hash of its content, shared by every release where it is the same.
//!
//! - `worktree/<crates>.json`: the working tree's model from the last check (second line), with what its
//!   extraction depended on besides the key (first line, with the model's id and protocols), recorded by
//!   the caller (`workspace::recorded`): every working-tree file and probe it looked at by blob id or as
//!   absent, the directories whose tree id let it reuse module trees, the dependencies it located (found,
//!   or missing with the "cargo fetch brings it" note) and the files read of path dependencies outside
//!   the workspace (see `store/working.rs`). A check uses it only when all of these still
//!   hold: files the git index knows unchanged are checked by their stat data, without a read; the few
//!   others are read and hashed. An unchanged working tree is then not extracted at all.
//!
//! A release's file also holds the dependencies its extraction located: a release read while a
//! dependency's source was missing is extracted again once the source is there.
//!
//! Every part also has a *shape*: the hash of what a comparison reads of it (locations and versions left
//! out; see `store/shape.rs`), kept in the release's file. A caller that compares a protocol once per
//! distinct shape (equal shapes give equal findings) asks only for the parts of shapes it has not seen,
//! so a check with many release tags costs, per tag, one small file read, and a part read per change.
//!
//! - `compared/<id>.json`: one protocol's comparison (its findings and versions, before `wirecheck.toml`
//!   and the fixtures are applied), named by the hash of everything the comparison read: the protocol's
//!   name, the baseline's name, the protocol's part (declaration included) in the working tree, and at
//!   the baseline and each older release (by tag, in order) its declaration, the id of its stored part
//!   and which messages it keeps (the id names the part's content). A check compares again only the
//!   protocols one of these changed for, and names the others without reading a release's part: an
//!   edit of one protocol's messages reads and compares that protocol alone (see `store/compared.rs`).
//!
//! - `releases/<commit>-<crates>.unreadable.json`: an older release whose source could not be read, with
//!   the error and what its extraction depended on (see `store/unreadable.rs`).
//!
//! - `scans/<crates>.json`: the scans (`mod` declarations, and a declaring file's items) of the working
//!   tree's files, by blob id, from its last extraction (see `store/scans.rs`): a check that extracts
//!   the working tree again neither reads nor scans the files the git index knows unchanged.
//!
//! - `lowered/<crates>.json`: the lowering records (what each type's lowering asked, with its answers,
//!   and what it built) and the declarations of the working tree's last extraction, items named by
//!   blob id and place (see `store/lowered.rs`): a check that extracts the working tree again replays
//!   the records whose answers still hold, and parses only the items of the files that changed.
//!
//! - `checked/<crates>.json`: the last check's whole comparison step, keyed by the identity of every model
//!   it read (see `store/checked.rs`): an unchanged check reads it back and no model at all.
//!
//! The store is a cache: anything unreadable, stale or corrupt there is extracted (or compared) again and
//! rewritten, and a store that cannot be written is silently not used. `wirecheck check --no-cache`
//! bypasses it.
//! The stores of other builds are removed once unused for 30 days.
//!
//! Files are serialized and written, whole or not at all (`files`), on a thread of their own
//! (`writer`), in the order they are given, while the caller extracts the next revision; a file this
//! process wrote is read back only once its write is done, and dropping the store waits for every write.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::extract::{CrateRoot, Keep};
use crate::model::digest;
use crate::model::{ExtractNote, MessageDecl, PartOf, ProtocolDecl, Snapshot, TypeDef};

mod writer;

use writer::Writer;

/// The fingerprint of this build's source (see `build.rs`).
const BUILD_ID: &str = env!("WIRECHECK_BUILD_ID");

/// Release models and comparisons on disk (see the module documentation).
#[derive(Debug)]
pub struct Store {
    /// `None`: not kept on disk (every release is extracted).
    dir: Option<PathBuf>,
    /// Which crates are read, as part of every release's file name.
    crates_key: String,
    /// Parts already read or derived in this process, by id and what they keep (of those extracted, the
    /// ones given to the caller).
    parts: RefCell<HashMap<(String, Keep), Rc<Part>>>,
    /// What this process read or wrote of each release (by commit) and of the working tree: what a
    /// [kept check](Store::checked)'s key names.
    used: RefCell<checked::Used>,
    /// The thread that writes the files, started by the first write (`None`: no thread could be
    /// started, the files are written at once).
    writer: OnceCell<Option<Writer>>,
}

/// One protocol of a release, as a comparison reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The protocol's name.
    pub name: String,
    /// The protocol's declaration, kept messages and the types they reach.
    pub model: Snapshot,
    /// Which messages were kept.
    keep: Keep,
    /// The id of the stored part it is (narrowed to `keep`), when the store is on disk.
    id: Option<String>,
    /// See [`Part::shape`].
    shape: OnceCell<String>,
}

impl Part {
    fn new(id: Option<&str>, model: Snapshot, keep: Keep, shape: Option<&str>) -> Part {
        Part {
            id: id.map(str::to_owned),
            name: model
                .protocols
                .first()
                .map(|p| p.name.clone())
                .unwrap_or_default(),
            model,
            keep,
            shape: shape
                .map(str::to_owned)
                .map(OnceCell::from)
                .unwrap_or_default(),
        }
    }

    /// What names the part's content without reading it: its declaration, the stored part's id and
    /// which of its messages are kept (`None` when the store is not on disk).
    pub fn stored_id(&self) -> Option<(&ProtocolDecl, &str, Keep)> {
        Some((
            self.model.protocols.first()?,
            self.id.as_deref()?,
            self.keep,
        ))
    }

    /// The hash of what a comparison reads of this part: the model without locations and versions, and
    /// which messages were kept. Equal shapes give equal findings.
    pub fn shape(&self) -> &str {
        self.shape.get_or_init(|| shape_of(&self.model, self.keep))
    }
}

/// What [`Store::keep`] kept of one protocol of a release extracted with a filter.
struct Kept {
    /// The id of its part (`None`: the store is not on disk).
    id: Option<String>,
    /// Which messages were kept.
    keep: Keep,
    /// Its part's [shape](Part::shape).
    shape: String,
    /// Its part, copied out of the model (sharing its definitions), when the caller has not compared
    /// its shape yet.
    model: Option<Snapshot>,
}

/// What a release's file in the store gives back: the parts asked for, the extraction's notes and the
/// declaration of every protocol of the release.
struct Found {
    parts: Vec<Rc<Part>>,
    notes: Vec<ExtractNote>,
    protocols: Vec<ProtocolDecl>,
}

/// An older release as [`Store::parts_with`] gives it: the declaration of each of its protocols (its
/// version and `min_compatible` there, whatever the shape of its part), and the parts of the protocols
/// the caller has not compared in the same shape yet.
#[derive(Debug, Clone)]
pub struct ReleaseParts {
    /// Every protocol the release declares.
    pub protocols: Vec<ProtocolDecl>,
    /// The parts asked for.
    pub parts: Vec<Rc<Part>>,
}

/// Which parts a caller has not compared yet, by protocol name and [shape](Part::shape).
pub type Unseen<'a> = &'a dyn Fn(&str, &str) -> bool;

/// What an older release is extracted for: the messages kept of each protocol, and which parts the
/// caller has not compared yet.
type Filter<'a> = (&'a dyn Fn(&ProtocolDecl) -> Keep, Unseen<'a>);

/// Whether what an extraction depended on outside its key (recorded by the caller as JSON, `null` for
/// nothing) still holds: a stored model whose inputs do not is extracted again.
pub type Holds<'a> = &'a dyn Fn(&serde_json::Value) -> bool;

/// A release's file in the store.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Extracted with a filter ([`crate::extract::extract_filtered`]): may miss protocols that a full
    /// extraction sees, so it only answers filtered requests.
    filtered: bool,
    protocols: Vec<EntryProtocol>,
    notes: Vec<ExtractNote>,
    /// What the extraction depended on outside the commit (see [`Holds`]).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    inputs: serde_json::Value,
}

#[derive(Debug, Serialize, Deserialize)]
struct EntryProtocol {
    decl: ProtocolDecl,
    keep: Keep,
    part: String,
    /// Known once a caller asked for it.
    shape: Option<String>,
}

/// Whether a part kept with `stored` holds everything `wanted` asks for.
fn covers(stored: Keep, wanted: Keep) -> bool {
    matches!(
        (stored, wanted),
        (Keep::All, _) | (Keep::Records, Keep::Records | Keep::Nothing) | (_, Keep::Nothing)
    )
}

/// The messages of `part` that `keep` keeps, with the types they reach.
fn narrow(part: &Snapshot, name: &str, keep: Keep) -> Snapshot {
    part.protocol_part(name, |m| keep.keeps(m.kind))
}

/// A 128-bit id of `value`: XXH3-128 over the bytes its `Hash` impl writes. The `Hash` impls need not
/// be stable across Rust releases: the store is per build, and the build's fingerprint covers the
/// compiler.
fn content_id(value: &(impl Hash + ?Sized)) -> String {
    format!("{:032x}", digest::content_digest(value))
}

/// A part on disk: the messages and types of one protocol ([`PartOf`]), without its declaration (which
/// the release's file holds), so that releases differing only in version share it. Borrowed from the
/// release's model: writing a part copies nothing. Named by its [`content_id`].
fn part_id(part: &PartOf<'_>) -> String {
    content_id(part)
}

/// Writes the part file `file` of `part` ([`write_json`]) unless it is there: a part file that is present
/// is whole (written by a rename) and right (a damaged one is removed when read).
fn write_part(file: &Path, part: &PartOf<'_>) {
    if !file.exists() {
        write_json(file, part);
    }
}

/// A part on disk ([`PartOf`]), read back.
#[derive(Deserialize)]
struct PartIn {
    messages: Vec<MessageDecl>,
    types: BTreeMap<String, Arc<TypeDef>>,
}

/// Whether a store of this build is under `target_dir` (a workspace's target directory): a check there
/// may find what it needs kept.
pub fn exists_under(target_dir: &Path) -> bool {
    stores_under(target_dir).join(BUILD_ID).is_dir()
}

/// The folder of the stores of every build under `target_dir`.
fn stores_under(target_dir: &Path) -> PathBuf {
    target_dir.join("wirecheck").join("store")
}

impl Store {
    /// The store under `target_dir` (a workspace's target directory) for these crates of the workspace
    /// at `prefix` in its repository (two workspaces of one repository may share a target directory).
    #[doc(hidden)] // for tests, of this crate and of the driver
    pub fn open(target_dir: &Path, prefix: &str, crates: &[CrateRoot]) -> Store {
        Store::open_with(target_dir, prefix, crates, "")
    }

    /// The store under `target_dir` (a workspace's target directory) for these crates of the workspace
    /// at `prefix` in its repository, for what is extracted with options whose
    /// [key](crate::extract::ExtractOptions::key) is `options` (the features checked, the declared
    /// shapes): other options, other files.
    pub fn open_with(
        target_dir: &Path,
        prefix: &str,
        crates: &[CrateRoot],
        options: &str,
    ) -> Store {
        let options = if options.is_empty() {
            String::new()
        } else {
            format!("options={options}\n")
        };
        let list: String = std::iter::once(format!("workspace={prefix}\n{options}"))
            .chain(
                crates
                    .iter()
                    .map(|c| format!("{}={}\n", c.name, c.root_file)),
            )
            .collect();
        let stores = stores_under(target_dir);
        prune(&stores, BUILD_ID, SystemTime::now());
        Store {
            dir: Some(stores.join(BUILD_ID)),
            crates_key: content_id(list.as_bytes())[..16].to_owned(),
            parts: RefCell::default(),
            used: RefCell::default(),
            writer: OnceCell::new(),
        }
    }

    /// A store that keeps nothing on disk: every release is extracted.
    pub fn disabled() -> Store {
        Store {
            dir: None,
            crates_key: String::new(),
            parts: RefCell::default(),
            used: RefCell::default(),
            writer: OnceCell::new(),
        }
    }

    /// Whether the store keeps anything (not with `--no-cache`).
    pub fn is_enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// Where this store keeps its files (`None` when disabled).
    #[doc(hidden)] // for tests, of this crate and of the driver
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The whole model of the release at `commit`: from the store when it holds it, else from
    /// `extract` (a full extraction), and then stored.
    #[doc(hidden)] // for tests, of this crate and of the driver
    pub fn whole<E>(
        &self,
        commit: &str,
        extract: impl FnOnce() -> Result<Snapshot, E>,
    ) -> Result<Snapshot, E> {
        self.whole_with(commit, &|_| true, || {
            extract().map(|s| (s, serde_json::Value::Null))
        })
        .map(Arc::unwrap_or_clone)
    }

    /// The whole model of the release at `commit`: from the store when it holds it and `holds` accepts
    /// what was recorded with it, else from `extract` (a full extraction, which also gives what it
    /// depended on outside the commit), and then stored.
    pub fn whole_with<E>(
        &self,
        commit: &str,
        holds: Holds<'_>,
        extract: impl FnOnce() -> Result<(Snapshot, serde_json::Value), E>,
    ) -> Result<Arc<Snapshot>, E> {
        if let Some(found) = self.lookup(commit, None, None, holds) {
            return Ok(Arc::new(Snapshot::join(
                found.parts.iter().map(|p| &p.model),
                found.notes,
            )));
        }
        let (snapshot, inputs) = extract()?;
        // Shared with the writer: the caller gets the model at once, and no copy is made.
        let snapshot = Arc::new(snapshot);
        if self.dir.is_some() {
            self.keep(commit, None, &snapshot, inputs);
        }
        Ok(snapshot)
    }

    /// The working tree's file (`None` when the store is disabled).
    fn working_path(&self) -> Option<PathBuf> {
        self.crates_path("worktree")
    }

    /// The file of the workspace's crates in the store's folder `folder` (`None` when the store is
    /// disabled): what the last extraction of the working tree kept there.
    fn crates_path(&self, folder: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(folder).join(format!("{}.json", self.crates_key)))
    }

    /// What the last extraction of the working tree kept in `folder` (`None`: nothing, or unreadable).
    fn kept_for_crates<T: serde::de::DeserializeOwned>(&self, folder: &str) -> Option<T> {
        let path = self.crates_path(folder)?;
        self.settled(&path);
        read_json(&std::fs::read(path).ok()?)
    }

    /// Keeps `value` in `folder` for the next check (on the writer's thread).
    fn keep_for_crates<T: Serialize + Send + 'static>(&self, folder: &str, value: T) {
        if let Some(path) = self.crates_path(folder) {
            self.queue(path, move |path| {
                write_json(path, &value);
            });
        }
    }

    /// The stored part of `stored` (a protocol of a release's [`ReleaseSummary`]), keeping what `want`
    /// asks for (which `stored` must cover); `None` when it cannot be read (damaged, or removed since).
    pub fn stored_part(&self, stored: &StoredProtocol, want: Keep) -> Option<Rc<Part>> {
        if !covers(stored.keep, want) {
            return None;
        }
        let shape = (stored.keep == want)
            .then_some(stored.shape.as_deref())
            .flatten();
        self.part(&stored.part, &stored.decl, stored.keep, want, shape)
    }

    /// The parts of the release at `commit` that `unseen(name, shape)` accepts (the others are not even
    /// read), each keeping the messages `keep` asks for: from the store when it holds them, else from
    /// `extract` (which must extract with the same `keep`), and then stored.
    #[doc(hidden)] // for tests, of this crate and of the driver
    pub fn parts<E>(
        &self,
        commit: &str,
        keep: &dyn Fn(&ProtocolDecl) -> Keep,
        unseen: Unseen<'_>,
        extract: impl FnOnce() -> Result<Snapshot, E>,
    ) -> Result<Vec<Rc<Part>>, E> {
        self.parts_with(commit, keep, unseen, &|_| true, || {
            extract().map(|s| (s, serde_json::Value::Null))
        })
        .map(|release| release.parts)
    }

    /// [`Store::parts`], with what the extraction depended on outside the commit (see
    /// [`Store::whole_with`]).
    pub fn parts_with<E>(
        &self,
        commit: &str,
        keep: &dyn Fn(&ProtocolDecl) -> Keep,
        unseen: Unseen<'_>,
        holds: Holds<'_>,
        extract: impl FnOnce() -> Result<(Snapshot, serde_json::Value), E>,
    ) -> Result<ReleaseParts, E> {
        if let Some(found) = self.lookup(commit, Some(keep), Some(unseen), holds) {
            return Ok(ReleaseParts {
                protocols: found.protocols,
                parts: found.parts,
            });
        }
        let (snapshot, inputs) = extract()?;
        let snapshot = Arc::new(snapshot);
        let kept = self.keep(commit, Some((keep, unseen)), &snapshot, inputs);
        let mut parts = Vec::with_capacity(kept.len());
        for kept in kept {
            // A part whose shape was compared already is not even copied, nor kept in `self.parts`:
            // every part of a check of fifty tags held there until the end took 6 MB of its peak
            // memory; the file is read if ever needed.
            let Some(model) = kept.model else {
                continue;
            };
            let part = Rc::new(Part::new(
                kept.id.as_deref(),
                model,
                kept.keep,
                Some(&kept.shape),
            ));
            if let Some(id) = kept.id {
                self.parts
                    .borrow_mut()
                    .insert((id, kept.keep), Rc::clone(&part));
            }
            parts.push(part);
        }
        Ok(ReleaseParts {
            protocols: snapshot.protocols.clone(),
            parts,
        })
    }

    /// Writes an extracted release to the store on the writer's thread, which shares `snapshot` until
    /// its files are written; gives what it kept of each protocol (of a release extracted with a filter,
    /// `keep`: with the part of each protocol `unseen` accepts). An older release's model waiting for
    /// the writer while the next one is extracted costs little: its type definitions are shared with the
    /// other revisions (the first check of fifty tags peaked at 149 MiB this way, against 148 MiB when
    /// older releases were written at once on the main thread).
    fn keep(
        &self,
        commit: &str,
        filter: Option<Filter<'_>>,
        snapshot: &Arc<Snapshot>,
        inputs: serde_json::Value,
    ) -> Vec<Kept> {
        let keep = filter.map(|(keep, _)| keep);
        let mut entry = Entry {
            filtered: keep.is_some(),
            protocols: Vec::with_capacity(snapshot.protocols.len()),
            notes: snapshot.notes.clone(),
            inputs,
        };
        let mut kept_parts = Vec::with_capacity(snapshot.protocols.len());
        for decl in &snapshot.protocols {
            let kept = keep.map_or(Keep::All, |k| k(decl));
            let out = snapshot.part_of(&decl.name, |_| true);
            // The shape is only asked for of a filtered release (whose parts a caller compares).
            let shape = keep.map(|_| part_shape(decl, &out, kept));
            let id = self.dir.as_ref().map(|dir| {
                let id = part_id(&out);
                let file = dir.join("parts").join(format!("{id}.json"));
                let (shared, name) = (Arc::clone(snapshot), decl.name.clone());
                self.queue(file, move |file| {
                    write_part(file, &shared.part_of(&name, |_| true));
                });
                entry.protocols.push(EntryProtocol {
                    decl: decl.clone(),
                    keep: kept,
                    part: id.clone(),
                    shape: shape.clone(),
                });
                id
            });
            if let (Some(shape), Some((_, unseen))) = (shape, filter) {
                let model = unseen(&decl.name, &shape).then(|| out.to_model(decl));
                kept_parts.push(Kept {
                    id,
                    keep: kept,
                    shape,
                    model,
                });
            }
        }
        if let Some(path) = self.entry_path(commit) {
            self.used
                .borrow_mut()
                .releases
                .insert(commit.to_owned(), checked::ReleaseSummary::of(&entry));
            // After the parts (the writer keeps the order): a release's file names only parts on disk.
            self.queue(path, move |path| {
                write_json(path, &entry);
            });
        }
        if cfg!(debug_assertions)
            && keep.is_none()
            && let Some(found) = self.lookup(commit, None, None, &|_| true)
        {
            debug_assert_eq!(
                &Snapshot::join(found.parts.iter().map(|p| &p.model), found.notes),
                &**snapshot,
                "a release's parts must join into its model"
            );
        }
        kept_parts
    }

    /// Writes the file at `path` with `write` on the writer's thread, after every write queued before;
    /// at once when there is no such thread.
    fn queue(&self, path: PathBuf, write: impl FnOnce(&Path) + Send + 'static) {
        match self.writer.get_or_init(Writer::spawn) {
            Some(writer) => writer.queue(path, Box::new(write)),
            None => write(&path),
        }
    }

    /// Waits until the file at `path` is written when a write of it is queued, so that this process
    /// reads back what it wrote.
    fn settled(&self, path: &Path) {
        if let Some(Some(writer)) = self.writer.get() {
            writer.settled(path);
        }
    }

    fn entry_path(&self, commit: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("releases")
                .join(format!("{commit}-{}.json", self.crates_key)),
        )
    }

    /// The stored parts and notes of `commit`, when the store holds everything `keep` asks for (`None`:
    /// every message, from a full extraction); only the parts `unseen` accepts (`None`: all).
    fn lookup(
        &self,
        commit: &str,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
        unseen: Option<Unseen<'_>>,
        holds: Holds<'_>,
    ) -> Option<Found> {
        let path = self.entry_path(commit)?;
        self.settled(&path);
        let mut entry: Entry = read_json(&std::fs::read(&path).ok()?)?;
        if (entry.filtered && keep.is_none()) || !holds(&entry.inputs) {
            return None;
        }
        let wants: Vec<Keep> = entry
            .protocols
            .iter()
            .map(|p| keep.map_or(Keep::All, |k| k(&p.decl)))
            .collect();
        if !entry
            .protocols
            .iter()
            .zip(&wants)
            .all(|(p, want)| covers(p.keep, *want))
        {
            return None;
        }
        let mut found = Vec::with_capacity(entry.protocols.len());
        let mut learned = false;
        for (p, want) in entry.protocols.iter_mut().zip(wants) {
            let stored = p.keep;
            let same = stored == want;
            if let (true, Some(unseen), Some(shape)) = (same, unseen, &p.shape)
                && !unseen(&p.decl.name, shape)
            {
                continue; // Not read at all.
            }
            let shape = if same { p.shape.as_deref() } else { None };
            let part = self.part(&p.part, &p.decl, stored, want, shape)?;
            if let Some(unseen) = unseen {
                if same && p.shape.is_none() {
                    p.shape = Some(part.shape().to_owned());
                    learned = true;
                }
                if !unseen(&part.name, part.shape()) {
                    continue;
                }
            }
            found.push(part);
        }
        if learned {
            // Shapes computed now are kept for the next check.
            write_atomically(&path, &serde_json::to_vec(&entry).unwrap_or_default());
        }
        self.used
            .borrow_mut()
            .releases
            .insert(commit.to_owned(), checked::ReleaseSummary::of(&entry));
        let protocols = entry.protocols.iter().map(|p| p.decl.clone()).collect();
        Some(Found {
            parts: found,
            notes: entry.notes,
            protocols,
        })
    }

    /// The part `id` of the protocol `decl` (kept with `stored`), narrowed to what `want` keeps; `shape`
    /// when the release's file knows it.
    fn part(
        &self,
        id: &str,
        decl: &ProtocolDecl,
        stored: Keep,
        want: Keep,
        shape: Option<&str>,
    ) -> Option<Rc<Part>> {
        let name = decl.name.as_str();
        let key = (id.to_owned(), want);
        let known = self.parts.borrow().get(&key).cloned();
        let part = match known {
            // The same content under the same declaration: shared.
            Some(part) if part.model.protocols.first() == Some(decl) => return Some(part),
            // Under another declaration (another version): the same messages and types.
            Some(part) => {
                let mut model = part.model.clone();
                model.protocols = vec![decl.clone()];
                Part::new(Some(id), model, want, shape)
            }
            None if stored == want => {
                let dir = self.dir.as_ref()?;
                let file = dir.join("parts").join(format!("{id}.json"));
                self.settled(&file);
                let bytes = std::fs::read(&file).ok()?;
                let read: Option<PartIn> = read_json(&bytes);
                // A damaged or foreign part: removed, so that extracting the release again rewrites it.
                let Some(PartIn { messages, types }) =
                    read.filter(|p| p.messages.iter().all(|m| m.protocol == name))
                else {
                    let _ = std::fs::remove_file(&file);
                    return None;
                };
                let model = Snapshot {
                    protocols: vec![decl.clone()],
                    messages,
                    types,
                    notes: Vec::new(),
                };
                Part::new(Some(id), model, want, shape)
            }
            None => {
                let whole = self.part(id, decl, stored, stored, None)?;
                Part::new(Some(id), narrow(&whole.model, name, want), want, None)
            }
        };
        let part = Rc::new(part);
        self.parts.borrow_mut().insert(key, Rc::clone(&part));
        Some(part)
    }
}

/// How long the store of another build of wirecheck is kept after its last use.
const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Marks the store of `build` under `stores` as used `now` (at most once a day: a file's modification
/// time), and removes the stores of other builds (an older or newer wirecheck) unused for
/// [`UNUSED_FOR`], so that upgrading wirecheck does not grow the target directory forever.
fn prune(stores: &Path, build: &str, now: SystemTime) {
    let age = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
    };
    let mark = stores.join(build).join("used");
    if age(&mark).is_none_or(|a| a > Duration::from_secs(24 * 60 * 60)) {
        write_atomically(&mark, b"");
    }
    let Ok(entries) = std::fs::read_dir(stores) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name() == build || !path.is_dir() {
            continue;
        }
        // A store without the mark is judged by its directory's own time.
        let unused = age(&path.join("used")).or_else(|| age(&path));
        if unused.is_some_and(|a| a > UNUSED_FOR) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

mod checked;
mod compared;
mod files;
mod lowered;
mod scans;
mod shape;
#[cfg(test)]
mod tests;
mod unreadable;
mod working;

pub use checked::{ReleaseSummary, StoredProtocol, WorkingSummary};
pub use compared::Comparison;
use files::{read_json, write_atomically, write_atomically_with, write_if_read_back, write_json};
use shape::{part_shape, shape_of};
