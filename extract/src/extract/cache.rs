//! What one check keeps across its extractions: every file by git blob id (its text, module scan, syntax
//! tree and declarations) and every file node of the crates' module trees by what it depends on, so that
//! the revisions a check reads share the work on what they have in common.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use git2::{ObjectType, Oid};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::ahead::EarlyReadAhead;
use super::declarations::Declaration;
use super::reuse::{KeptLowering, KeptScope, LoweredTypes, ScopeKey};
use super::scan::{ModItem, ScanItem, Scanned};
use super::syntax;
use super::{ExtractError, FileReader};
use crate::model::ExtractNote;

mod blob;
#[cfg(test)]
mod tests;

pub(super) use blob::{Blob, ParseFailure};

/// A module path: crate name first (`["flux_protocols", "sched"]`).
pub(super) type ModPath = Vec<String>;

thread_local! {
    /// How many [`SourceCache`]s are alive on this thread: the last one dropped frees the span data.
    static LIVE: Cell<usize> = const { Cell::new(0) };
}

/// What a [`SourceCache`] did, for tests and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files whose bytes were read: through a [`FileReader`], or from disk by the thread that reads a
    /// working tree ahead of its extraction (see `read_ahead`).
    pub reads: usize,
    /// Of those, the files read and scanned by that thread, taken instead of reading them again: how
    /// many depends on how the two threads met, never what the extraction finds.
    pub read_ahead: usize,
    /// Lookups answered with a blob the cache already held (no scan, no parse).
    pub hits: usize,
    /// Distinct blobs held (each was scanned once).
    pub blobs: usize,
    /// Blobs parsed whole with syn.
    pub parsed: usize,
    /// Items parsed alone with syn (of blobs the scan splits into items).
    pub parsed_items: usize,
    /// Module subtrees reused from an earlier revision (an unchanged directory), not looked at again.
    pub nodes_reused: usize,
    /// Type items lowered.
    pub types_lowered: usize,
    /// Type items whose lowering at an earlier revision was reused (the same item, asking the same
    /// questions with the same answers), not lowered again.
    pub types_reused: usize,
    /// Files known by a scan an earlier check kept (the store's `scans/`), neither read nor scanned.
    pub scans_reused: usize,
    /// Of those, the files whose text was read after all (from the repository's objects), for an item's
    /// syntax or a module's names.
    pub objects_read: usize,
    /// Modules whose names were known (kept by an earlier check in `store/lowered`, or indexed at an
    /// earlier revision of this one), not indexed again.
    pub scopes_reused: usize,
}

/// The scans of files, by git blob id: their `mod` declarations, and for a file that may declare, its
/// items as the scan splits them. A scan depends on the file's bytes alone, so the store keeps these
/// across checks; a file the git index knows unchanged is then neither read nor scanned again, only
/// read (from the repository's objects) if an extraction needs an item's syntax or its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileScans(BTreeMap<String, FileScan>);

/// One file's scan (see [`FileScans`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileScan {
    mods: Vec<ModItem>,
    /// The items, for a file that may declare (`None`: it declares nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    items: Option<Vec<ScanItem>>,
}

/// The most items a file's kept scan, or names a module's kept scope, may have: beyond, the file is
/// generated code, which reading and scanning again costs about what reading its kept scan does, and
/// whose scan would make the store's files, and the memory of every check that reads them, follow the
/// largest file again.
pub(super) const MAX_KEPT_ITEMS: usize = 1_000;

/// Scans an earlier check kept, and the repository whose objects hold those files' text.
struct KnownScans {
    repo: git2::Repository,
    scans: FxHashMap<Oid, FileScan>,
}

/// The text, module scan, syntax tree and declarations of every file an extraction looked at, keyed by
/// git blob id (for working-tree files, the id git would give their bytes), so that the revisions one
/// check reads share the work on their common files.
///
/// Syntax trees hold proc-macro2 spans, which live in a thread-local map: the cache is `!Send`, and the
/// map is cleared ([`proc_macro2::extra::invalidate_current_thread_spans`]) when the last cache alive on
/// the thread is dropped, not before. Do not clear it by hand while a cache is alive.
pub struct SourceCache {
    blobs: RefCell<FxHashMap<Oid, Rc<Blob>>>,
    /// Module-tree files by what they depend on (see `tree::ModuleTree::mount`).
    module_files: RefCell<FxHashMap<ModuleFileKey, Rc<ModuleFile>>>,
    /// Type items as lowered at earlier revisions, for the next ones to reuse.
    lowered: LoweredTypes,
    /// Whether extractions keep what they lower for the next ones (see [`SourceCache::keep_lowered`]).
    keeps_lowered: Cell<bool>,
    /// Files known by their scan alone (see [`SourceCache::know_scans`]).
    known_scans: RefCell<Option<KnownScans>>,
    /// Declarations an earlier check kept, by blob id (see [`SourceCache::know_lowering`]).
    known_declarations: RefCell<FxHashMap<Oid, Arc<[Declaration]>>>,
    /// The names modules bind, by blob id and what else they depend on: kept by an earlier check, or
    /// indexed by this one.
    scopes: RefCell<FxHashMap<(Oid, ScopeKey), Arc<KeptScope>>>,
    /// A read-ahead started before the crates were known (see [`SourceCache::offer_read_ahead`]).
    early_read_ahead: RefCell<Option<EarlyReadAhead>>,
    stats: Cell<CacheStats>,
}

impl std::fmt::Debug for SourceCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceCache")
            .field("stats", &self.stats.get())
            .finish_non_exhaustive()
    }
}

impl Default for SourceCache {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SourceCache {
    fn drop(&mut self) {
        let last = LIVE.with(|live| {
            let remaining = live.get().saturating_sub(1);
            live.set(remaining);
            remaining == 0
        });
        if last {
            // Every span was converted to a plain location; free the thread's source map (it only grows
            // otherwise). The trees still held are only dropped after this, which reads no span.
            proc_macro2::extra::invalidate_current_thread_spans();
            syntax::clear_item_bases();
        }
    }
}

impl SourceCache {
    /// An empty cache.
    pub fn new() -> Self {
        LIVE.with(|live| live.set(live.get() + 1));
        SourceCache {
            blobs: RefCell::default(),
            module_files: RefCell::default(),
            lowered: LoweredTypes::default(),
            keeps_lowered: Cell::new(true),
            known_scans: RefCell::new(None),
            known_declarations: RefCell::default(),
            scopes: RefCell::default(),
            early_read_ahead: RefCell::new(None),
            stats: Cell::new(CacheStats::default()),
        }
    }

    /// Offers the next extraction of a working tree from disk a read-ahead started before the crates
    /// were known: it takes it if it reads the same module trees, and else stops it and starts its own
    /// (see `tree::read_ahead`).
    pub fn offer_read_ahead(&self, early: EarlyReadAhead) {
        *self.early_read_ahead.borrow_mut() = Some(early);
    }

    /// The read-ahead offered, if any (see [`SourceCache::offer_read_ahead`]).
    pub(super) fn take_read_ahead(&self) -> Option<EarlyReadAhead> {
        self.early_read_ahead.borrow_mut().take()
    }

    /// Takes the files `scans` knows as scanned: a file a reader gives the blob id of without reading
    /// it (a git tree entry, a working-tree file the git index knows unchanged) is then neither read
    /// nor scanned when its blob is one of them and `repo` holds that blob, from which its text is read
    /// if an extraction needs more than its `mod` declarations.
    pub fn know_scans(&self, repo: git2::Repository, scans: &FileScans) {
        let scans = scans
            .0
            .iter()
            .filter_map(|(id, scan)| Some((Oid::from_str(id).ok()?, scan.clone())))
            .collect();
        *self.known_scans.borrow_mut() = Some(KnownScans { repo, scans });
    }

    /// The scans of the blobs `ids` that the cache holds (see [`FileScans`]): of a file that may
    /// declare, only when the scan split it into items.
    pub fn scans_of(&self, ids: impl IntoIterator<Item = Oid>) -> FileScans {
        let blobs = self.blobs.borrow();
        FileScans(
            ids.into_iter()
                .filter_map(|id| {
                    let blob = blobs.get(&id)?;
                    let mods = blob.scanned.clone()?;
                    let items = if blob.may_declare {
                        let items = blob.items.get()?.as_ref()?;
                        // A larger file that declares is read and scanned again.
                        if items.items.len() > MAX_KEPT_ITEMS {
                            return None;
                        }
                        Some(items.items.clone())
                    } else {
                        None
                    };
                    Some((id.to_string(), FileScan { mods, items }))
                })
                .collect(),
        )
    }

    /// Whether the cache holds a file, or knows one by a scan an earlier check kept: an extraction
    /// through it then reads only some of its files.
    pub(super) fn knows_files(&self) -> bool {
        !self.blobs.borrow().is_empty() || self.known_scans.borrow().is_some()
    }

    /// The blob `id` as a scan an earlier check kept knows it, when the repository holds its text.
    fn known_blob(&self, id: Oid) -> Option<Blob> {
        let known = self.known_scans.borrow();
        let known = known.as_ref()?;
        let scan = known.scans.get(&id)?;
        let held = known.repo.odb().is_ok_and(|odb| odb.exists(id));
        held.then(|| Blob::known(id, scan.clone()))
    }

    /// Takes the lowering records, declarations and module names an earlier check kept (see
    /// [`KeptLowering`]): an extraction replays a record whose probes hold without parsing its item, a
    /// file's kept declarations stand for parsing the items that declare, and a module's kept names
    /// for indexing it.
    pub fn know_lowering(&self, mut kept: KeptLowering) {
        let declarations = std::mem::take(&mut kept.declarations);
        *self.known_declarations.borrow_mut() = declarations
            .into_iter()
            .filter_map(|(id, found)| Some((Oid::from_str(&id).ok()?, found)))
            .collect();
        let scopes = std::mem::take(&mut kept.scopes);
        self.scopes.borrow_mut().extend(
            scopes
                .into_iter()
                .filter_map(|(id, key, scope)| Some(((Oid::from_str(&id).ok()?, key), scope))),
        );
        self.lowered.know(kept);
    }

    /// The records the extractions since the last call lowered with or replayed, and the declarations
    /// and module names of the blobs `ids`, to keep for the next check (see [`KeptLowering`]).
    pub fn kept_lowering(&self, ids: impl IntoIterator<Item = Oid>) -> KeptLowering {
        let mut kept = self.lowered.take_used();
        let ids: FxHashSet<Oid> = ids.into_iter().collect();
        let blobs = self.blobs.borrow();
        kept.declarations = ids
            .iter()
            .filter_map(|id| {
                let found = blobs.get(id)?.declarations.get()?;
                (!found.is_empty()).then(|| (id.to_string(), Arc::clone(found)))
            })
            .collect();
        kept.scopes = self
            .scopes
            .borrow()
            .iter()
            .filter(|((id, _), _)| ids.contains(id))
            .map(|((id, key), scope)| (id.to_string(), key.clone(), Arc::clone(scope)))
            .collect();
        kept.scopes.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        kept
    }

    /// The names the module `key` of the blob `id` binds, as kept or indexed before.
    pub(super) fn scope(&self, id: Oid, key: &ScopeKey) -> Option<Arc<KeptScope>> {
        let found = self.scopes.borrow().get(&(id, key.clone())).cloned();
        if found.is_some() {
            self.count(|stats| stats.scopes_reused += 1);
        }
        found
    }

    /// Keeps the names the module `key` of the blob `id` binds, for the next revisions and checks.
    pub(super) fn keep_scope(&self, id: Oid, key: ScopeKey, scope: KeptScope) {
        self.scopes.borrow_mut().insert((id, key), Arc::new(scope));
    }

    /// Forgets which records the extractions so far used (see [`SourceCache::kept_lowering`]).
    pub fn forget_used(&self) {
        self.lowered.forget_used();
    }

    /// The declarations of the blob `id` an earlier check kept, taken.
    fn known_declarations(&self, id: Oid) -> Option<Arc<[Declaration]>> {
        self.known_declarations.borrow_mut().remove(&id)
    }

    /// The text of the blob `id`, from the repository of the scans the cache was given.
    fn object_text(&self, id: Oid) -> Result<String, ParseFailure> {
        let unread = |why: String| {
            ParseFailure::unread(format!(
                "its content (git blob {id}) could not be read from the repository: {why}; check the repository with `git fsck`, or run with --no-cache"
            ))
        };
        self.count(|stats| stats.objects_read += 1);
        let known = self.known_scans.borrow();
        let repo = &known
            .as_ref()
            .ok_or_else(|| unread("no repository".into()))?
            .repo;
        let blob = repo
            .find_blob(id)
            .map_err(|e| unread(e.message().to_owned()))?;
        String::from_utf8(blob.content().to_vec()).map_err(|e| {
            unread(format!(
                "not UTF-8 at byte {}",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// Whether the extractions through this cache keep each type item they lower, for a later
    /// revision to reuse when the item and what its lowering asked are the same there (the default).
    /// A caller that will extract no other revision through the cache saves the copies.
    pub fn keep_lowered(&self, keep: bool) {
        self.keeps_lowered.set(keep);
    }

    /// Leaves everything the cache holds (files, syntax trees, module trees, lowered types) to the
    /// operating system instead of freeing it, and empties the cache: for a process that exits once its
    /// report is out, which the `wirecheck` binary does (freeing a cold check's parsed files one by one
    /// took 4% of its time, for memory the process gives back whole a moment later).
    pub fn leave_to_exit(&self) {
        self.known_scans.take();
        std::mem::forget(self.blobs.take());
        std::mem::forget(self.module_files.take());
        std::mem::forget(self.lowered.take());
    }

    /// Whether extractions keep what they lower (see [`SourceCache::keep_lowered`]).
    pub(super) fn keeps_lowered(&self) -> bool {
        self.keeps_lowered.get()
    }

    /// The type items lowered so far, by identity.
    pub(super) fn lowered(&self) -> &LoweredTypes {
        &self.lowered
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        self.stats.get()
    }

    pub(super) fn count(&self, update: impl FnOnce(&mut CacheStats)) {
        let mut stats = self.stats.get();
        update(&mut stats);
        self.stats.set(stats);
    }

    /// A module-tree file mounted before with the same blob, children's directory and place.
    pub(super) fn module_file(&self, key: &ModuleFileKey) -> Option<Rc<ModuleFile>> {
        let found = self.module_files.borrow().get(key).cloned();
        if found.is_some() {
            self.count(|stats| stats.nodes_reused += 1);
        }
        found
    }

    /// Keeps a mounted module-tree file for the next revisions.
    pub(super) fn keep_module_file(&self, key: ModuleFileKey, file: Rc<ModuleFile>) {
        self.module_files.borrow_mut().insert(key, file);
    }

    /// The file at `path` of `reader`'s revision, from the cache when its blob id is known there.
    pub(super) fn load(
        &self,
        reader: &dyn FileReader,
        path: &str,
    ) -> Result<Option<Rc<Blob>>, ExtractError> {
        self.load_ahead(reader, path, &|| None)
    }

    /// [`SourceCache::load`], taking what `ahead` gives (the file as another thread read and scanned
    /// it) instead of reading and scanning it, when those are the file's bytes. `ahead` is asked once,
    /// unless the cache holds the file.
    pub(super) fn load_ahead(
        &self,
        reader: &dyn FileReader,
        path: &str,
        ahead: &dyn Fn() -> Option<Scanned>,
    ) -> Result<Option<Rc<Blob>>, ExtractError> {
        let known = reader.blob_id(path)?;
        if let Some(id) = known {
            if let Some(blob) = self.blobs.borrow().get(&id) {
                self.count(|stats| stats.hits += 1);
                return Ok(Some(Rc::clone(blob)));
            }
            if let Some(blob) = self.known_blob(id) {
                let blob = Rc::new(blob);
                self.blobs.borrow_mut().insert(id, Rc::clone(&blob));
                self.count(|stats| stats.scans_reused += 1);
                return Ok(Some(blob));
            }
        }
        let (id, scanned) = match (known, ahead()) {
            // The index vouches for the bytes the thread read, as it does for the reader's.
            (Some(id), Some(scanned)) => (id, Ok(scanned)),
            (known, scanned) => {
                let Some(bytes) = reader.read(path)? else {
                    return Ok(None);
                };
                let id = match known {
                    Some(id) => id,
                    None => Oid::hash_object(ObjectType::Blob, &bytes).map_err(|e| {
                        ExtractError::Read {
                            file: path.to_owned(),
                            message: e.message().to_owned(),
                        }
                    })?,
                };
                match scanned {
                    Some(scanned) if scanned.text().as_bytes() == bytes.as_slice() => {
                        (id, Ok(scanned))
                    }
                    _ => (id, Err(bytes)),
                }
            }
        };
        self.count(|stats| stats.reads += 1);
        if let Some(blob) = self.blobs.borrow().get(&id) {
            self.count(|stats| stats.hits += 1);
            return Ok(Some(Rc::clone(blob)));
        }
        let blob = match scanned {
            Ok(scanned) => {
                self.count(|stats| stats.read_ahead += 1);
                Blob::scanned(id, scanned)
            }
            Err(bytes) => {
                let text = String::from_utf8(bytes).map_err(|e| ExtractError::NotUtf8 {
                    file: path.to_owned(),
                    offset: e.utf8_error().valid_up_to(),
                })?;
                Blob::new(id, text)
            }
        };
        let blob = Rc::new(blob);
        self.blobs.borrow_mut().insert(id, Rc::clone(&blob));
        self.count(|stats| stats.blobs += 1);
        Ok(Some(blob))
    }
}

/// A file of a crate's module tree, with the files its `mod` declarations mount below it. It only depends
/// on its blob, the directory its children live in, and where it is mounted: the [`SourceCache`] shares it
/// between revisions where these are the same (see `tree::ModuleTree::mount`).
pub(super) struct ModuleFile {
    /// Its path, relative to the workspace root.
    pub(super) path: String,
    pub(super) blob: Rc<Blob>,
    /// The module it is.
    pub(super) module: ModPath,
    /// Its `mod` declarations in source order (inline modules included).
    pub(super) children: Vec<ChildModule>,
    /// The notes of the discovery, for this file and every file below.
    pub(super) notes: Vec<ExtractNote>,
    /// This file or a file below may declare protocols or messages.
    pub(super) may_declare: bool,
    /// A `#[path]` is followed here or below: the file may depend on files outside its directory, and
    /// is not shared.
    pub(super) has_path_attr: bool,
}

/// A `mod` declaration of a [`ModuleFile`].
pub(super) struct ChildModule {
    /// Its module, relative to the file's: the inline modules it is written in, then its name.
    pub(super) relative_path: Vec<String>,
    /// The byte offset of its name (declarations are ordered by it).
    pub(super) offset: usize,
    pub(super) source: ChildSource,
}

/// Where the items of a [`ChildModule`] are.
pub(super) enum ChildSource {
    /// `mod name { ... }`: its items are in the same file.
    Inline,
    /// `mod name;` and the file found for it.
    File(Rc<ModuleFile>),
    /// `mod name;` without a file here.
    Missing,
}

/// The key under which a [`ModuleFile`] is shared: its blob, its children's directory, and its place.
#[derive(PartialEq, Eq, Hash)]
pub(super) struct ModuleFileKey {
    pub(super) blob: Oid,
    /// The git tree id of the children's directory (`None`: the revision has no such directory).
    pub(super) child_dir_id: Option<Oid>,
    pub(super) module: ModPath,
    pub(super) path: String,
    pub(super) child_dir: String,
}
