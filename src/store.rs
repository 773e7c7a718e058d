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
//!   the workspace. A check uses it only when all of these still
//!   hold: files the git index knows unchanged are checked by their stat data, without a read; the few
//!   others are read and hashed. An unchanged working tree is then not extracted at all.
//!
//! A release's file also holds the dependencies its extraction located: a release read while a
//! dependency's source was missing is extracted again once the source is there.
//!
//! Every part also has a *shape*: the hash of what a comparison reads of it (locations and versions left
//! out), kept in the release's file. A caller that compares a protocol once per distinct shape (equal
//! shapes give equal findings) asks only for the parts of shapes it has not seen, so a check with many
//! release tags costs, per tag, one small file read, and a part read per change.
//!
//! - `compared/<id>.json`: one protocol's comparison (its findings and versions, before `wirecheck.toml`
//!   and the fixtures are applied), named by the hash of everything the comparison read: the protocol's
//!   name, the baseline's name, the protocol's part (declaration included) in the working tree, and at
//!   the baseline and each older release (by tag, in order) its declaration, the id of its stored part
//!   and which messages it keeps (the id names the part's content). A check compares again only the
//!   protocols one of these changed for, and names the others without reading a release's part: an
//!   edit of one protocol's messages reads and compares that protocol alone.
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
//! Files are serialized and written on a thread of their own (`writer`), in the order they are given,
//! while the caller extracts the next revision; a file this process wrote is read back only once its
//! write is done, and dropping the store waits for every write.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::extract::{CrateRoot, Keep};
use crate::model::digest::{self, DigestOf};
use crate::model::{
    Body, ExtractNote, Field, MessageDecl, PartOf, ProtocolDecl, Snapshot, TypeDef, Variant,
};

mod writer;

use writer::Writer;

/// The fingerprint of this build's source (see `build.rs`).
const BUILD_ID: &str = env!("WIRECHECK_BUILD_ID");

/// What the store keeps of one protocol's comparison: plain data that reads back as written, and
/// names the protocol it compared (a kept file of another protocol is not taken). The driver's
/// result type implements it; the store knows nothing else of it.
pub(crate) trait Comparison: Serialize + serde::de::DeserializeOwned + PartialEq {
    /// The name of the protocol compared.
    fn protocol(&self) -> &str;
}

/// Release models and comparisons on disk (see the module documentation).
#[derive(Debug)]
pub(crate) struct Store {
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
pub(crate) struct Part {
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
pub(crate) struct ReleaseParts {
    /// Every protocol the release declares.
    pub protocols: Vec<ProtocolDecl>,
    /// The parts asked for.
    pub parts: Vec<Rc<Part>>,
}

/// Which parts a caller has not compared yet, by protocol name and [shape](Part::shape).
pub(crate) type Unseen<'a> = &'a dyn Fn(&str, &str) -> bool;

/// What an older release is extracted for: the messages kept of each protocol, and which parts the
/// caller has not compared yet.
type Filter<'a> = (&'a dyn Fn(&ProtocolDecl) -> Keep, Unseen<'a>);

/// Whether what an extraction depended on outside its key (recorded by the caller as JSON, `null` for
/// nothing) still holds: a stored model whose inputs do not is extracted again.
pub(crate) type Holds<'a> = &'a dyn Fn(&serde_json::Value) -> bool;

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

/// A file of the store, read back: `None` when it is not what this build writes. The bytes are checked
/// as UTF-8 at once, then parsed as text: serde_json's byte-slice reader checks each string on its own,
/// which cost more than the parse of a stored model's structure.
fn read_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    serde_json::from_str(std::str::from_utf8(bytes).ok()?).ok()
}

/// A 128-bit id of `value`: XXH3-128 over the bytes its `Hash` impl writes. The `Hash` impls need not
/// be stable across Rust releases: the store is per build, and the build's fingerprint covers the
/// compiler.
fn content_id(value: &(impl Hash + ?Sized)) -> String {
    format!("{:032x}", digest::content_digest(value))
}

/// A model's definitions by path, hashed with each definition as its digest ([`digest`]).
struct Defs<'m>(&'m BTreeMap<String, Arc<TypeDef>>);

impl Hash for Defs<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        digest::hash_defs(
            self.0.iter().map(|(path, def)| (path.as_str(), def)),
            DigestOf::Whole,
            digest::content_digest,
            state,
        );
    }
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

/// The shape of a part kept with `keep` (see [`Part::shape`]): its model with every location blanked
/// and without the declaration's versions, hashed through [`Blanked`] (nothing is copied).
fn shape_of(model: &Snapshot, keep: Keep) -> String {
    content_id(&(
        Blanked(model.protocols.as_slice()),
        Blanked(model.messages.as_slice()),
        Blanked(&model.types),
        keep,
    ))
}

/// The [shape](shape_of) of the protocol `decl`'s part `part`, borrowed: the same as the shape of
/// `part.to_model(decl)` (each value is hashed as its copy would be).
fn part_shape(decl: &ProtocolDecl, part: &PartOf<'_>, keep: Keep) -> String {
    content_id(&(
        Blanked(std::slice::from_ref(decl)),
        Blanked(part.messages.as_slice()),
        Blanked(&part.types),
        keep,
    ))
}

/// A part of a model as [`shape_of`] hashes it: what a comparison reads, without the locations and the
/// protocol's versions. Two values hash alike exactly when they are equal once every location is blanked
/// and every protocol's `version` and `min_compatible` are cleared: each field is hashed as its own
/// `Hash` writes it, in order, and the left-out fields are the same for every value once blanked. Every
/// struct is destructured whole, so that a field added to the model is a compile error here until it
/// is hashed or left out on purpose.
struct Blanked<'m, T: ?Sized>(&'m T);

impl<T> Hash for Blanked<'_, [T]>
where
    for<'m> Blanked<'m, T>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for item in self.0 {
            Blanked(item).hash(state);
        }
    }
}

/// A borrowed value is hashed as the value itself.
impl<T: ?Sized> Hash for Blanked<'_, &T>
where
    for<'m> Blanked<'m, T>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        Blanked(*self.0).hash(state);
    }
}

/// A shared definition is hashed as the digest of the definition blanked, taken once per definition
/// ([`digest`]): equal blanked definitions, equal digests.
impl Hash for Blanked<'_, Arc<TypeDef>> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(digest::digest_of(self.0, DigestOf::Shape, |def| {
            digest::content_digest(&Blanked(def))
        }));
    }
}

/// A map of types, owned or borrowed: the paths hash alike either way (`String` hashes as `str`).
impl<K: Hash, V> Hash for Blanked<'_, BTreeMap<K, V>>
where
    for<'m> Blanked<'m, V>: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for (path, def) in self.0 {
            path.hash(state);
            Blanked(def).hash(state);
        }
    }
}

impl Hash for Blanked<'_, ProtocolDecl> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let ProtocolDecl {
            name,
            rust_path,
            version: _,
            min_compatible: _,
            upgrade,
            format,
            location: _,
        } = self.0;
        (name, rust_path, upgrade, format).hash(state);
    }
}

impl Hash for Blanked<'_, MessageDecl> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let MessageDecl {
            protocol,
            name,
            rust_path,
            topic,
            kind,
            response,
            response_type,
            since,
            allow,
            location: _,
        } = self.0;
        (protocol, name, rust_path, topic, kind, response).hash(state);
        (response_type, since, allow).hash(state);
    }
}

impl Hash for Blanked<'_, TypeDef> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let TypeDef {
            path,
            generics,
            attrs,
            body,
            location: _,
            package,
        } = self.0;
        (path, generics, attrs).hash(state);
        match body {
            Body::Struct { style, fields } => {
                state.write_u8(0);
                style.hash(state);
                Blanked(fields.as_slice()).hash(state);
            }
            Body::Enum { variants } => {
                state.write_u8(1);
                Blanked(variants.as_slice()).hash(state);
            }
            Body::Alias { target } => {
                state.write_u8(2);
                target.hash(state);
            }
        }
        package.hash(state);
    }
}

impl Hash for Blanked<'_, Variant> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Variant {
            rust_name,
            ser_name,
            de_names,
            style,
            fields,
            skip_ser,
            skip_de,
            other,
            untagged,
            custom,
            since,
            allow,
            location: _,
        } = self.0;
        (rust_name, ser_name, de_names, style).hash(state);
        Blanked(fields.as_slice()).hash(state);
        (skip_ser, skip_de, other, untagged, custom, since, allow).hash(state);
    }
}

impl Hash for Blanked<'_, Field> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Field {
            rust_name,
            ser_name,
            de_names,
            ty,
            default,
            skip_ser,
            skip_de,
            flatten,
            custom,
            since,
            allow,
            location: _,
        } = self.0;
        (rust_name, ser_name, de_names, ty, default, skip_ser).hash(state);
        (skip_de, flatten, custom, since, allow).hash(state);
    }
}

/// Whether a store of this build is under `target_dir` (a workspace's target directory): a check there
/// may find what it needs kept.
pub(crate) fn exists_under(target_dir: &Path) -> bool {
    stores_under(target_dir).join(BUILD_ID).is_dir()
}

/// The folder of the stores of every build under `target_dir`.
fn stores_under(target_dir: &Path) -> PathBuf {
    target_dir.join("wirecheck").join("store")
}

impl Store {
    /// The store under `target_dir` (a workspace's target directory) for these crates of the workspace
    /// at `prefix` in its repository (two workspaces of one repository may share a target directory).
    #[cfg(test)]
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
    #[cfg(test)]
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The whole model of the release at `commit`: from the store when it holds it, else from
    /// `extract` (a full extraction), and then stored.
    #[cfg(test)]
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

    /// The working tree's model: from the store when what its last extraction depended on `holds`
    /// (its files, dependencies, ...), else from `extract`, and then stored (one per crates and
    /// options: the last one). The file is two lines (see [`checked::WorkingHead`]): what the model
    /// depended on, its id and its protocols, then the model, so that a check can tell whether the
    /// stored model holds, and which one it is, without reading the model.
    pub fn working<E>(
        &self,
        holds: Holds<'_>,
        extract: impl FnOnce() -> Result<(Snapshot, serde_json::Value), E>,
    ) -> Result<Arc<Snapshot>, E> {
        let path = self.working_path();
        if let Some(path) = &path {
            self.settled(path);
        }
        if let Some(path) = &path
            && let Ok(bytes) = std::fs::read(path)
            && let Some((head, model)) = checked::split_working(&bytes)
            && holds(&head.inputs)
            && let Some(snapshot) = read_json::<Snapshot>(model)
        {
            self.used.borrow_mut().working = Some(head.model);
            return Ok(Arc::new(snapshot));
        }
        let (snapshot, inputs) = extract()?;
        // Shared with the writer: the caller gets the model at once, and no copy is made.
        let snapshot = Arc::new(snapshot);
        if let Some(path) = path {
            // The model's id is known at once (what a kept comparison's key names); the writer
            // serializes its own copy while the caller goes on with the model.
            // Every field of the model (destructured: a field added to it must be hashed here too).
            let Snapshot {
                protocols,
                messages,
                types,
                notes,
            } = &*snapshot;
            let head = checked::WorkingHead {
                inputs,
                model: content_id(&(protocols, messages, Defs(types), notes)),
                protocols: protocols.clone(),
            };
            self.used.borrow_mut().working = Some(head.model.clone());
            let model = Arc::clone(&snapshot);
            self.queue(path, move |path| {
                debug_assert_eq!(
                    serde_json::to_vec(&*model)
                        .ok()
                        .and_then(|bytes| read_json::<Snapshot>(&bytes))
                        .as_ref(),
                    Some(&*model),
                    "the working tree's model must read back as it was written"
                );
                checked::write_working(path, &head, &model);
            });
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

    /// The comparison of one protocol (named `name`) whose inputs are `reads`: from the store when an
    /// earlier check kept the comparison of the same inputs, else from `compare`, and then stored under
    /// the [content id](content_id) of `reads`. `reads` must hold everything the comparison reads (the
    /// protocol's part in each model compared, the names of the releases): what is kept under its id is
    /// then right for every check that reads the same. A file that does not read back (damaged, or of
    /// another protocol) is compared again and rewritten; a comparison that would not read back as it is
    /// (JSON's numbers) is not kept.
    pub fn compared<T: Comparison>(
        &self,
        reads: &(impl Hash + ?Sized),
        name: &str,
        compare: impl FnOnce() -> T,
    ) -> T {
        if let Some(kept) = self.kept_comparison(reads, name) {
            return kept;
        }
        let changes = compare();
        self.keep_comparison(reads, &changes);
        changes
    }

    /// The comparison of the protocol `name` an earlier check kept for the inputs `reads` (see
    /// [`Store::compared`]).
    pub fn kept_comparison<T: Comparison>(
        &self,
        reads: &(impl Hash + ?Sized),
        name: &str,
    ) -> Option<T> {
        let path = self.compared_path(reads)?;
        let kept = read_json::<T>(&std::fs::read(path).ok()?)?;
        (kept.protocol() == name).then_some(kept)
    }

    /// Keeps `changes` as the comparison of the inputs `reads` (see [`Store::compared`]).
    pub fn keep_comparison<T: Comparison>(&self, reads: &(impl Hash + ?Sized), changes: &T) {
        if let Some(path) = self.compared_path(reads) {
            write_if_read_back(&path, changes, |read: &T| read == changes);
        }
    }

    fn compared_path(&self, reads: &(impl Hash + ?Sized)) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("compared")
                .join(format!("{}.json", content_id(reads))),
        )
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
    #[cfg(test)]
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

/// Writes `value` as JSON to `path` ([`write_atomically`]) when what it reads back as (a `T`) is the
/// same (`same`; JSON's numbers may not be): a file of the store is right or absent.
fn write_if_read_back<T: serde::de::DeserializeOwned>(
    path: &Path,
    value: &impl Serialize,
    same: impl FnOnce(&T) -> bool,
) {
    if let Ok(bytes) = serde_json::to_vec(value)
        && read_json::<T>(&bytes).is_some_and(|read| same(&read))
    {
        write_atomically(path, &bytes);
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a reader (another check
/// running at the same time) sees the whole file or none; whether it was written. Failures leave the
/// store without the file. The temporary file's name is this process's and this write's own (a
/// counter): two threads, or two processes, writing the same file never write one temporary file.
fn write_atomically(path: &Path, bytes: &[u8]) -> bool {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// `value` as JSON in the file at `path`, written as [`write_atomically`] does, without holding the
/// whole text in memory (a working tree's model is megabytes of it).
fn write_json(path: &Path, value: &impl Serialize) -> bool {
    write_atomically_with(path, |file| Ok(serde_json::to_writer(file, value)?))
}

/// [`write_atomically`], with what `write` writes to the temporary file (buffered; a concrete type, not
/// `dyn Write`: serde_json writes a model a few bytes at a time).
fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> bool {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let Some(dir) = path.parent() else {
        return false;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let temp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("part"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create(&temp).and_then(|file| {
        let mut file = BufWriter::with_capacity(1 << 16, file);
        write(&mut file)?;
        file.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        Ok(())
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
        return false;
    }
    if std::fs::rename(&temp, path).is_err() {
        let _ = std::fs::remove_file(&temp);
        return false;
    }
    true
}

mod checked;
mod lowered;
mod scans;
#[cfg(test)]
mod tests;
mod unreadable;

pub(crate) use checked::{ReleaseSummary, StoredProtocol, WorkingSummary};
