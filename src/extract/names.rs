//! Name resolution: what a path written in a module names, through child modules, `use` imports and
//! renames, glob imports, re-exports and `crate`/`self`/`super`, as the compiler would find it. Modules
//! are indexed (their files parsed) on first use; each type item gets an id, the same however it is
//! reached.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashSet};
use std::rc::Rc;

use rustc_hash::FxHashMap;
use syn::spanned::Spanned;
use syn::{Item, UseTree};

use super::ExtractError;
use super::cache::MAX_KEPT_ITEMS;
use super::cache::{ChildModule, ModPath, ModuleFile, ParseFailure};
use super::cfg;
use super::cfg::Truth;
use super::declarations::{Declaration, ItemAt};
use super::features::CrateFeatures;
use super::note;
use super::reuse::{Identity, ImplRoots, KeptScope, ScopeKey, Target};
use super::scan::{ItemKind, Pos, ScanItem};
use super::syntax::{inline_items, item_at, item_attrs, item_name, unraw};
use super::tree::{ModuleTree, STD_ROOTS, is_prelude_name, pos_note};
use crate::model::ExtractNote;

mod const_value;
mod impl_source;

pub(super) use impl_source::{FnSource, ImplSource};

/// How many `use` and glob hops a lookup follows before it gives up (a `use` cycle is an error the
/// compiler reports; here the path is then taken as external).
const MAX_HOPS: usize = 32;

/// A type item (struct, enum or type alias) and where it lives; its syntax is parsed when first asked
/// for ([`Names::syntax`]).
pub(super) struct TypeItem<'a> {
    /// The module it is defined in (inline modules included): its fields' types resolve from here.
    pub(super) module: ModPath,
    /// Its file, relative to the workspace root.
    pub(super) file: &'a str,
    /// Its file, and where it is there.
    source: (&'a ModuleFile, ItemAt),
    /// Its syntax, once parsed.
    item: Option<&'a Item>,
    /// `crate::module::Name`.
    pub(super) canonical: String,
    /// The item across revisions (see [`Names::identity`]).
    identity: Identity,
}

/// A type item a module binds: its id, or (in a file parsed item by item) the scan's item, parsed and
/// given an id when a lookup reaches it.
#[derive(Clone, Copy)]
enum TypeSlot {
    Id(usize),
    Scanned(usize),
}

/// The names a module binds.
#[derive(Default)]
struct ModuleScope<'a> {
    /// The module's own path: globs written in it resolve from here.
    path: ModPath,
    /// Its file, when it is parsed item by item (for [`TypeSlot::Scanned`]).
    file: Option<&'a ModuleFile>,
    /// Type items by name.
    types: FxHashMap<String, TypeSlot>,
    /// Child modules by name.
    mods: FxHashMap<String, ModPath>,
    /// `use` imports by the name they bind: the path as written.
    uses: FxHashMap<String, Vec<String>>,
    /// `use x::*` imports.
    globs: Vec<Vec<String>>,
    /// Module-level macro invocations (they may define types wirecheck cannot see).
    macros: Vec<ExtractNote>,
}

/// The names of `scope`, to keep (see [`KeptScope`]).
fn kept_of(scope: &ModuleScope<'_>) -> KeptScope {
    let mut types: Vec<(String, usize)> = scope
        .types
        .iter()
        .filter_map(|(name, slot)| match slot {
            TypeSlot::Scanned(index) => Some((name.clone(), *index)),
            TypeSlot::Id(_) => None,
        })
        .collect();
    types.sort();
    let mut mods: Vec<String> = scope.mods.keys().cloned().collect();
    mods.sort();
    let mut uses: Vec<(String, Vec<String>)> = scope
        .uses
        .iter()
        .map(|(name, path)| (name.clone(), path.clone()))
        .collect();
    uses.sort();
    KeptScope {
        types,
        mods,
        uses,
        globs: scope.globs.clone(),
        macros: scope
            .macros
            .iter()
            .map(|note| {
                let at = &note.location;
                let pos = Pos {
                    line: at.line,
                    column: at.column,
                    start: at.start,
                    end: at.end,
                };
                (note.message.clone(), pos)
            })
            .collect(),
    }
}

/// The scope of the module at `path` of `file` whose names are `kept`.
fn scope_of<'a>(kept: &KeptScope, file: &'a ModuleFile, path: &[String]) -> ModuleScope<'a> {
    ModuleScope {
        path: path.to_vec(),
        file: Some(file),
        types: kept
            .types
            .iter()
            .map(|(name, index)| (name.clone(), TypeSlot::Scanned(*index)))
            .collect(),
        mods: kept
            .mods
            .iter()
            .map(|name| {
                let mut child = path.to_vec();
                child.push(name.clone());
                (name.clone(), child)
            })
            .collect(),
        uses: kept.uses.iter().cloned().collect(),
        globs: kept.globs.clone(),
        macros: kept
            .macros
            .iter()
            .map(|(message, pos)| pos_note(&file.path, *pos, message.clone()))
            .collect(),
    }
}

/// The note of a module-level macro invocation (`name!` at `pos` of `file`).
fn macro_note(file: &str, name: &str, pos: Pos) -> ExtractNote {
    pos_note(file, pos, format!("macro `{name}!`"))
}

/// A glob lookup in progress, by the module whose globs it follows and the path it looks for, until
/// dropped: glob imports may form cycles (`pub use child::*;` in a module whose child has
/// `use super::*;`), and a lookup already in progress through the same module's globs finds nothing new.
/// Without this, every cycle is walked again at each level, exponentially (a hang on ordinary code).
struct InProgress((ModPath, Vec<String>));

thread_local! {
    static GLOB_LOOKUPS: RefCell<HashSet<(ModPath, Vec<String>)>> = RefCell::default();
}

impl InProgress {
    /// The lookup of `segments` through the globs of `module`, unless it is in progress already.
    fn enter(module: &[String], segments: &[String]) -> Option<InProgress> {
        let key = (module.to_vec(), segments.to_vec());
        // `then`, not `then_some`: a guard made and dropped when the lookup is in progress already
        // would end that lookup's guard.
        GLOB_LOOKUPS
            .with(|lookups| lookups.borrow_mut().insert(key.clone()))
            .then(|| InProgress(key))
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        GLOB_LOOKUPS.with(|lookups| lookups.borrow_mut().remove(&self.0));
    }
}

/// What a path names.
#[derive(Clone)]
pub(super) enum NameTarget {
    /// A type item of the workspace, by id.
    Type(usize),
    Module(ModPath),
    /// Something outside the workspace's module trees (another crate, std), or not found: the path as
    /// far as it was followed.
    External(Vec<String>),
}

/// What a path resolved to, and the path at which it entered a dependency, as named at the border
/// (`chrono::DateTime`, its first segment the dependency's root module; not the module it is defined
/// in), if it did.
#[derive(Clone)]
pub(super) struct Resolution {
    pub(super) target: NameTarget,
    pub(super) entered: Option<Vec<String>>,
}

/// Where a glob import's path leads (see [`Names::glob_source`]).
enum GlobSource {
    /// A module of a mounted tree: the glob brings what it exports.
    Module(ModPath),
    /// A module the lookup does not read: a dependency's, beyond the border of a lookup that stops
    /// there or whose source is missing, or std's. The path as far as it was followed.
    Unread(Vec<String>),
    /// Nothing a glob can import from.
    Nothing,
}

/// A resolution as the memo keeps it.
type Resolved = Resolution;

/// Resolutions by the module a path is written in, then the path: looked up by slices, so a hit
/// allocates nothing.
type ResolvedIn = FxHashMap<ModPath, FxHashMap<Vec<String>, Resolved>>;

/// The next step of a lookup in one module (computed under a borrow of the index, taken after it).
enum Step<'a> {
    /// A type item: its slot, with the scope's file and path.
    Type(TypeSlot, Option<&'a ModuleFile>, ModPath),
    Child(ModPath),
    Use(Vec<String>),
    Globs(ModPath, Vec<Vec<String>>),
}

impl<'a> ModuleScope<'a> {
    /// What `name` is in this module: a type (only when it is the last segment), a child module, an
    /// import, or maybe something the globs bring; `None` when the module has no globs either.
    fn step(&self, name: &str, is_last: bool) -> Option<Step<'a>> {
        if is_last && let Some(&slot) = self.types.get(name) {
            Some(Step::Type(slot, self.file, self.path.clone()))
        } else if let Some(child) = self.mods.get(name) {
            Some(Step::Child(child.clone()))
        } else if let Some(target) = self.uses.get(name) {
            Some(Step::Use(target.clone()))
        } else if self.globs.is_empty() {
            None
        } else {
            Some(Step::Globs(self.path.clone(), self.globs.clone()))
        }
    }

    /// Binds the names a `use` tree imports.
    fn add_use(&mut self, tree: &UseTree, prefix: &mut Vec<String>) {
        match tree {
            UseTree::Path(path) => {
                prefix.push(unraw(&path.ident));
                self.add_use(&path.tree, prefix);
                prefix.pop();
            }
            UseTree::Name(name) => {
                let name = unraw(&name.ident);
                if name == "self" {
                    if let Some(last) = prefix.last() {
                        self.uses.insert(last.clone(), prefix.clone());
                    }
                } else {
                    let mut full = prefix.clone();
                    full.push(name.clone());
                    self.uses.insert(name, full);
                }
            }
            UseTree::Rename(rename) => {
                let name = unraw(&rename.ident);
                let mut full = prefix.clone();
                if name != "self" {
                    full.push(name);
                }
                self.uses.insert(unraw(&rename.rename), full);
            }
            UseTree::Glob(_) => self.globs.push(prefix.clone()),
            UseTree::Group(group) => {
                for tree in &group.items {
                    self.add_use(tree, prefix);
                }
            }
        }
    }
}

/// The type items and modules of a [`ModuleTree`] resolution has visited.
pub(super) struct Names<'a> {
    tree: &'a ModuleTree<'a>,
    items: Vec<TypeItem<'a>>,
    /// Item ids by module file address and the item's number in its blob: an item reached twice is the
    /// same item.
    item_ids: FxHashMap<(usize, u32), usize>,
    /// Modules indexed so far (`None`: not in the module tree, or its file does not parse).
    modules: FxHashMap<ModPath, Option<ModuleScope<'a>>>,
    /// The first file that failed to parse when resolution needed it.
    error: Option<ExtractError>,
    /// Where the lookup in progress entered a dependency (see [`Resolution::entered`]).
    entered: Option<Vec<String>>,
    /// The modules whose glob imports the lookup in progress does not consult: a glob's own path is
    /// resolved without the globs of the module it is written in (a glob never resolves through
    /// itself, and `use chrono::prelude::*` must not look for `chrono` in `chrono::prelude`).
    globs_off: Vec<ModPath>,
    /// The current lookup stops where it enters a dependency (see [`Names::resolve_to_border`]).
    stop_at_border: bool,
    /// The features of the workspace crates in the build checked: a type item or module its
    /// `#[cfg(...)]` leaves out is not there.
    features: CrateFeatures,
    /// What [`Names::resolve`] found for a path in a module, and where it entered a dependency: a
    /// lookup depends only on the module trees and the features, and a crate asks the same ones many
    /// times (every `#[derive(Serialize)]` of a module, every `Option<String>` field).
    resolved: ResolvedIn,
    /// The same for [`Names::resolve_to_border`] (every field's type is looked up this way first).
    resolved_to_border: ResolvedIn,
    /// The impls of each crate read so far, by its root module name (see `impl_source`).
    impl_indexes: FxHashMap<String, Rc<Vec<impl_source::ImplAt<'a>>>>,
    /// The impl sources read so far, by type item id.
    impl_sources: FxHashMap<(usize, ImplRoots), Option<Rc<ImplSource>>>,
    /// [`Names::fn_source`]'s answers, by the function's full path.
    fn_sources: FxHashMap<Vec<String>, Option<Rc<FnSource<'a>>>>,
}

impl<'a> Names<'a> {
    pub(super) fn new(tree: &'a ModuleTree<'a>) -> Self {
        Names {
            tree,
            items: Vec::new(),
            item_ids: FxHashMap::default(),
            modules: FxHashMap::default(),
            error: None,
            entered: None,
            globs_off: Vec::new(),
            stop_at_border: false,
            features: CrateFeatures::default(),
            resolved: FxHashMap::default(),
            resolved_to_border: FxHashMap::default(),
            impl_indexes: FxHashMap::default(),
            impl_sources: FxHashMap::default(),
            fn_sources: FxHashMap::default(),
        }
    }

    /// Resolves names in the build where the workspace crates have `features` on (default: none).
    pub(super) fn set_features(&mut self, features: CrateFeatures) {
        self.features = features;
        self.resolved.clear();
        self.resolved_to_border.clear();
    }

    /// The features the crate of the module at `path` is built with: a dependency's as its locator
    /// found them, a workspace crate's from its manifest and the check's flags. The one place that tells
    /// them apart: `cfg` evaluates both alike.
    pub(super) fn features_of(&self, path: &[String]) -> &BTreeSet<String> {
        let tree: &'a ModuleTree<'a> = self.tree;
        match tree.dependency_mount(path) {
            Some(mount) => &mount.features,
            None => self.features.of(path.first().map_or("", String::as_str)),
        }
    }

    /// Whether the `mod` declaration of `file` whose name starts in `at` (byte offsets) is in the build
    /// checked, by its `#[cfg]`s (one the scan does not find is not ruled out).
    fn mod_in_build(&self, file: &ModuleFile, at: std::ops::Range<usize>) -> bool {
        let Ok(mods) = file.blob.mods(self.tree.cache) else {
            return true;
        };
        mods.iter()
            .find(|declared| at.contains(&declared.pos.start))
            .is_none_or(|declared| {
                cfg::active_texts(&declared.cfg, self.features_of(&file.module)) != Truth::No
            })
    }

    /// The file and inline modules of the module at `path` in the build checked: `None` when a `mod`
    /// declaration on the way is left out by its `#[cfg]` (or no module tree has it).
    fn find_in_build(&self, path: &[String]) -> Option<(&'a ModuleFile, Vec<String>)> {
        let tree: &'a ModuleTree<'a> = self.tree;
        tree.find(path, &mut |file: &ModuleFile, child: &ChildModule| {
            self.mod_in_build(file, child.offset..child.offset + 1)
        })
    }

    /// Whether the module at `module`, whose items are in `file`, exists in the build checked where an
    /// item at byte `at` of `file` is: every `mod` declaration from its crate root holds, and no other
    /// declaration of the same name replaces the one that mounts `file` or holds the item.
    pub(super) fn module_in_build(&self, file: &ModuleFile, module: &[String], at: usize) -> bool {
        self.find_in_build(module)
            .is_some_and(|(found, _)| std::ptr::eq(found, file))
            && self.inside_built_inline(file, &module[file.module.len().min(module.len())..], at)
    }

    /// Whether an item at byte `at` of `file`, written in its inline modules `inline`, is inside
    /// declarations of them that are in the build: at each level, the last `mod` of the name before it
    /// (two inline modules of one name, each behind a `cfg`, hold different items).
    fn inside_built_inline(&self, file: &ModuleFile, inline: &[String], at: usize) -> bool {
        if inline.is_empty() {
            return true;
        }
        let Ok(mods) = file.blob.mods(self.tree.cache) else {
            return true;
        };
        if !mods.iter().any(|m| m.inline && !m.cfg.is_empty()) {
            return true;
        }
        let features = self.features_of(&file.module);
        (1..=inline.len()).all(|depth| {
            mods.iter()
                .rfind(|m| {
                    m.inline
                        && m.pos.start < at
                        && m.parents == inline[..depth - 1]
                        && m.name == inline[depth - 1]
                })
                .is_none_or(|m| cfg::active_texts(&m.cfg, features) != Truth::No)
        })
    }

    /// The module trees names are resolved in.
    pub(super) fn tree(&self) -> &'a ModuleTree<'a> {
        self.tree
    }

    /// The first parse error resolution met, taken out.
    pub(super) fn take_error(&mut self) -> Option<ExtractError> {
        self.error.take()
    }

    /// Whether resolution met a parse error (kept for [`Names::take_error`]).
    pub(super) fn has_error(&self) -> bool {
        self.error.is_some()
    }

    /// The syntax tree of a mounted file (parsed on first use); `None` when it does not parse (the error
    /// is kept for the end).
    pub(super) fn ast(&mut self, file: &'a ModuleFile) -> Option<&'a syn::File> {
        match file.blob.ast(self.tree.cache) {
            Ok(ast) => Some(ast),
            Err(failure) => {
                self.keep_error(file, &failure);
                None
            }
        }
    }

    /// The items of a file as the scan splits them (`Some(None)`: it is parsed whole); `None` when its
    /// text cannot be read (the error is kept for the end).
    fn scanned_items(&mut self, file: &'a ModuleFile) -> Option<Option<&'a [ScanItem]>> {
        match file.blob.scanned_items(self.tree.cache) {
            Ok(items) => Some(items),
            Err(failure) => {
                self.keep_error(file, &failure);
                None
            }
        }
    }

    /// Keeps the error of a file resolution needed, unless one is kept already: a dependency's file
    /// that cannot be read hides its types (they stay external), but it is not the workspace's error.
    fn keep_error(&mut self, file: &ModuleFile, failure: &ParseFailure) {
        if self.error.is_none() && self.tree.dependency_of(&file.module).is_none() {
            self.error = Some(failure.at(&file.path));
        }
    }

    /// The scan's item `index` of a file parsed item by item, parsed on first use; `None` when it does
    /// not parse (the error is kept for the end).
    fn scanned_item(&mut self, file: &'a ModuleFile, index: usize) -> Option<&'a Item> {
        match file.blob.item(index, self.tree.cache) {
            Ok(item) => Some(item),
            Err(failure) => {
                self.keep_error(file, &failure);
                None
            }
        }
    }

    /// The item a declaration of `file` is on; `None` when it does not parse (the error is kept).
    pub(super) fn declared_item(
        &mut self,
        file: &'a ModuleFile,
        declaration: &Declaration,
    ) -> Option<&'a Item> {
        self.item_at(file, &declaration.item)
    }

    /// The item at `at` in `file`; `None` when it does not parse (the error is kept).
    fn item_at(&mut self, file: &'a ModuleFile, at: &ItemAt) -> Option<&'a Item> {
        match at {
            ItemAt::Path(indices) => self.ast(file).map(|ast| item_at(ast, indices)),
            ItemAt::Scanned(index) => self.scanned_item(file, *index),
        }
    }

    /// The syntax of the type item `id`, parsed on first use; `None` when it does not parse (the error is
    /// kept). An item interned unparsed is one a record of the check names, made from the same blob, so
    /// it parses.
    pub(super) fn syntax(&mut self, id: usize) -> Option<&'a Item> {
        if let Some(item) = self.items[id].item {
            return Some(item);
        }
        let (file, at) = self.items[id].source.clone();
        let item = self.item_at(file, &at)?;
        self.items[id].item = Some(item);
        Some(item)
    }

    /// The type item of an id.
    pub(super) fn item(&self, id: usize) -> &TypeItem<'a> {
        &self.items[id]
    }

    /// What a type item is in any revision of the check: the same syntax node in the same module of a
    /// file at the same path.
    pub(super) fn identity(&self, id: usize) -> Identity {
        self.items[id].identity
    }

    /// A resolution's target as it holds across revisions.
    pub(super) fn target(&self, target: &NameTarget) -> Target {
        let lowered = self.tree.cache.lowered();
        match target {
            NameTarget::Type(id) => Target::Type(self.identity(*id)),
            NameTarget::Module(path) => Target::Module(lowered.path(path)),
            NameTarget::External(path) => Target::External(lowered.path(path)),
        }
    }

    /// `crate::module::Name` of a type item.
    pub(super) fn canonical(&self, id: usize) -> String {
        self.items[id].canonical.clone()
    }

    /// The macro invocations of a module already indexed (see [`ModuleScope::macros`]).
    pub(super) fn macros_in(&self, module: &[String]) -> &[ExtractNote] {
        self.modules
            .get(module)
            .and_then(Option::as_ref)
            .map_or(&[], |scope| scope.macros.as_slice())
    }

    /// The module at `path`, indexed on first use; `None` when it is not in a module tree (or its file
    /// does not parse).
    fn module(&mut self, path: &[String]) -> Option<&ModuleScope<'a>> {
        if !self.modules.contains_key(path) {
            let scope = match self.find_in_build(path) {
                Some((file, inline)) if let Some(kept) = self.kept_scope(file, path, &inline) => {
                    Some(kept)
                }
                Some((file, inline)) => match self.scanned_items(file) {
                    Some(Some(items)) => {
                        Some(self.index_scanned_module(file, path, &inline, items))
                    }
                    Some(None) => self
                        .ast(file)
                        .and_then(|ast| {
                            let features = self.features_of(path);
                            inline_items(ast, &inline, &|module| {
                                cfg::active(&module.attrs, features) != Truth::No
                            })
                        })
                        .map(|(indices, items)| self.index_module(file, path, &indices, items)),
                    None => None,
                },
                None => None,
            };
            self.modules.insert(path.to_vec(), scope);
        }
        self.modules.get(path).and_then(Option::as_ref)
    }

    /// The names of a module of a file parsed item by item, from the scan: type items by name (parsed
    /// when a lookup reaches them), `use` items (each parsed alone), child modules and macro invocations.
    /// Only what a lookup needs is ever parsed. The names are kept in the cache (see
    /// [`Names::kept_scope`]) unless a `use` item does not parse.
    fn index_scanned_module(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
        items: &'a [ScanItem],
    ) -> ModuleScope<'a> {
        let features = self.features_of(path).clone();
        let (scope, parsed) = self.read_scanned_items(file, path, inline, items);
        // A `use` that does not parse leaves the scope without it, not kept (the error is); nor is the
        // scope of a large generated module (see `MAX_KEPT_ITEMS`).
        let names = scope.types.len()
            + scope.mods.len()
            + scope.uses.len()
            + scope.globs.len()
            + scope.macros.len();
        if parsed && names <= MAX_KEPT_ITEMS {
            let key = ScopeKey {
                inline: inline.to_vec(),
                features,
            };
            self.tree
                .cache
                .keep_scope(file.blob.id(), key, kept_of(&scope));
        }
        scope
    }

    /// The scope of the module at `path` (the inline modules `inline` of `file`) when the cache knows
    /// its names (the same blob, inline modules and features: kept by an earlier check, or indexed at
    /// an earlier revision), without reading the file.
    fn kept_scope(
        &self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
    ) -> Option<ModuleScope<'a>> {
        let key = ScopeKey {
            inline: inline.to_vec(),
            features: self.features_of(path).clone(),
        };
        let kept = self.tree.cache.scope(file.blob.id(), &key)?;
        Some(scope_of(&kept, file, path))
    }

    /// The scope a module's items make, and whether every `use` item parsed.
    fn read_scanned_items(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
        items: &'a [ScanItem],
    ) -> (ModuleScope<'a>, bool) {
        let mut scope = ModuleScope {
            path: path.to_vec(),
            file: Some(file),
            ..ModuleScope::default()
        };
        let mut parsed = true;
        for (index, item) in items.iter().enumerate() {
            if item.parents != inline || !self.inside_built_inline(file, inline, item.start) {
                continue;
            }
            match &item.kind {
                ItemKind::Type(name) => {
                    // Only an item with a `#[cfg]` is parsed to index it: its attributes decide
                    // whether it exists. One that does not parse stays, for a lookup to report.
                    if item.cfg
                        && let Ok(parsed) = file.blob.item(index, self.tree.cache)
                        && !self.in_build(path, parsed)
                    {
                        continue;
                    }
                    scope.types.insert(name.clone(), TypeSlot::Scanned(index));
                }
                ItemKind::Use => {
                    // A `use` its `#[cfg]` leaves out binds nothing (two of one name, each behind a
                    // `cfg`, are common).
                    match self.scanned_item(file, index) {
                        Some(Item::Use(item_use))
                            if cfg::active(&item_use.attrs, self.features_of(path))
                                != Truth::No =>
                        {
                            scope.add_use(&item_use.tree, &mut Vec::new());
                        }
                        Some(_) => {}
                        None => parsed = false,
                    }
                }
                ItemKind::Mod(name) => {
                    // A module its `#[cfg]` leaves out is not there (its name may be another's).
                    if item.cfg && !self.mod_in_build(file, item.start..item.end) {
                        continue;
                    }
                    let mut child = path.to_vec();
                    child.push(name.clone());
                    scope.mods.insert(name.clone(), child);
                }
                ItemKind::MacroCall(name, pos) => {
                    scope.macros.push(macro_note(&file.path, name, *pos));
                }
                ItemKind::MacroRules(_)
                | ItemKind::Impl { .. }
                | ItemKind::Fn(_)
                | ItemKind::Value(_)
                | ItemKind::Other => {}
            }
        }
        (scope, parsed)
    }

    /// Whether the type item `item` of the module at `path` is in the build checked, by its `#[cfg]`s
    /// (one that depends on the target or profile keeps it).
    fn in_build(&self, path: &[String], item: &Item) -> bool {
        cfg::active(item_attrs(item), self.features_of(path)) != Truth::No
    }

    /// The id of the type item `name` a slot of the module `module` (in `file`) holds, parsing it first
    /// when needed; `None` when it does not parse (the error is kept).
    fn type_id(
        &mut self,
        slot: TypeSlot,
        file: Option<&'a ModuleFile>,
        module: &[String],
        name: &str,
    ) -> Option<usize> {
        match (slot, file) {
            (TypeSlot::Id(id), _) => Some(id),
            (TypeSlot::Scanned(index), Some(file)) => {
                let at = ItemAt::Scanned(index);
                // An item a record names parsed when the record was made (the same blob's item), and
                // so did one that declares (declarations are read from the syntax): it is parsed only
                // if its lowering is not replayed. Any other is parsed now, so that one that does not
                // parse is not a type.
                let item = if self.tree.cache.lowered().knows(file.blob.id(), &at)
                    || file.blob.declares_at(&at)
                {
                    None
                } else {
                    Some(self.scanned_item(file, index)?)
                };
                Some(self.intern(file, module, at, name, item))
            }
            (TypeSlot::Scanned(_), None) => None,
        }
    }

    /// The names of a module of a file parsed whole: its `items`, which the indices `inline` lead to
    /// from the file's items.
    fn index_module(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[usize],
        items: &'a [Item],
    ) -> ModuleScope<'a> {
        let mut scope = ModuleScope {
            path: path.to_vec(),
            ..ModuleScope::default()
        };
        for (index, item) in items.iter().enumerate() {
            match item {
                Item::Struct(_) | Item::Enum(_) | Item::Type(_) => {
                    if !self.in_build(path, item) {
                        continue;
                    }
                    let at = ItemAt::Path([inline, &[index]].concat());
                    let id = self.intern(file, path, at, &item_name(item), Some(item));
                    scope.types.insert(item_name(item), TypeSlot::Id(id));
                }
                // A `use` its `#[cfg]` leaves out binds nothing.
                Item::Use(item_use)
                    if cfg::active(&item_use.attrs, self.features_of(path)) != Truth::No =>
                {
                    scope.add_use(&item_use.tree, &mut Vec::new());
                }
                Item::Macro(item_macro) if item_macro.ident.is_none() => {
                    let name = item_macro
                        .mac
                        .path
                        .segments
                        .last()
                        .map(|segment| segment.ident.to_string())
                        .unwrap_or_default();
                    let span = item_macro.mac.path.span();
                    // One of the file's own macros that was not expanded: why (the notes say it).
                    let message = match file
                        .blob
                        .expanded(self.tree.cache)
                        .ok()
                        .and_then(|expanded| expanded.unexpanded_at(span.start()))
                    {
                        Some(left) => format!("macro `{name}!` ({})", left.reason),
                        None => format!("macro `{name}!`"),
                    };
                    scope.macros.push(note(&file.path, span, message));
                }
                Item::Mod(module) => {
                    if cfg::active(&module.attrs, self.features_of(path)) == Truth::No {
                        continue;
                    }
                    let name = unraw(&module.ident);
                    let mut child = path.to_vec();
                    child.push(name.clone());
                    scope.mods.insert(name, child);
                }
                _ => {}
            }
        }
        scope
    }

    /// The id of the type item `name` at `at` in `file` (`item`: its syntax, when parsed), the same
    /// however it is reached.
    pub(super) fn intern(
        &mut self,
        file: &'a ModuleFile,
        module: &[String],
        at: ItemAt,
        name: &str,
        item: Option<&'a Item>,
    ) -> usize {
        let lowered = self.tree.cache.lowered();
        let number = lowered.item(file.blob.id(), &at);
        let key = (std::ptr::from_ref(file) as usize, number);
        if let Some(&id) = self.item_ids.get(&key) {
            if self.items[id].item.is_none() {
                self.items[id].item = item;
            }
            return id;
        }
        let mut canonical = module.join("::");
        canonical.push_str("::");
        canonical.push_str(name);
        let identity = Identity {
            item: number,
            place: lowered.place(&file.path, module),
        };
        self.items.push(TypeItem {
            module: module.to_vec(),
            file: &file.path,
            source: (file, at),
            item,
            canonical,
            identity,
        });
        let id = self.items.len() - 1;
        self.item_ids.insert(key, id);
        id
    }

    /// Resolves a path as written in `module`.
    pub(super) fn resolve(&mut self, module: &[String], segments: &[String]) -> Resolution {
        self.resolve_memoized(module, segments, false)
    }

    /// [`Names::resolve`], stopping where the path enters a dependency (without mounting it): the
    /// target is then `External`, the path at the border.
    pub(super) fn resolve_to_border(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Resolution {
        self.resolve_memoized(module, segments, true)
    }

    /// [`Names::resolve`] or [`Names::resolve_to_border`], answered from the memo when the same path
    /// was looked up in the same module before (the lookup depends on nothing else).
    fn resolve_memoized(
        &mut self,
        module: &[String],
        segments: &[String],
        to_border: bool,
    ) -> Resolution {
        let memo = if to_border {
            &self.resolved_to_border
        } else {
            &self.resolved
        };
        if let Some(resolved) = memo.get(module).and_then(|paths| paths.get(segments)) {
            return resolved.clone();
        }
        self.entered = None;
        self.stop_at_border = to_border;
        let target = self.resolve_hops(module, segments, 0);
        self.stop_at_border = false;
        let resolved = Resolution {
            target,
            entered: self.entered.take(),
        };
        let memo = if to_border {
            &mut self.resolved_to_border
        } else {
            &mut self.resolved
        };
        match memo.get_mut(module) {
            Some(paths) => {
                paths.insert(segments.to_vec(), resolved.clone());
            }
            None => {
                let mut paths = FxHashMap::default();
                paths.insert(segments.to_vec(), resolved.clone());
                memo.insert(module.to_vec(), paths);
            }
        }
        resolved
    }

    /// [`Names::resolve`], `hops` imports deep.
    fn resolve_hops(&mut self, module: &[String], segments: &[String], hops: usize) -> NameTarget {
        if hops > MAX_HOPS || segments.is_empty() {
            return NameTarget::External(segments.to_vec());
        }
        let first = segments[0].as_str();
        let (base, rest): (ModPath, &[String]) = match first {
            "crate" => (module[..1].to_vec(), &segments[1..]),
            "self" => (module.to_vec(), &segments[1..]),
            "super" => {
                let mut base = module[..module.len().saturating_sub(1).max(1)].to_vec();
                let mut rest = &segments[1..];
                while rest.first().is_some_and(|segment| segment == "super") {
                    base.truncate(base.len().saturating_sub(1).max(1));
                    rest = &rest[1..];
                }
                (base, rest)
            }
            "" => return self.resolve_absolute(module, &segments[1..], hops),
            _ => {
                let Some(step) = self.step_in(module, first, segments.len() == 1) else {
                    return match self.module(module) {
                        Some(_) => self.resolve_absolute(module, segments, hops),
                        None => NameTarget::External(segments.to_vec()),
                    };
                };
                match step {
                    Step::Type(slot, file, owner) => {
                        return match self.type_id(slot, file, &owner, first) {
                            Some(id) => NameTarget::Type(id),
                            None => NameTarget::External(segments.to_vec()),
                        };
                    }
                    Step::Child(child) => (child, &segments[1..]),
                    Step::Use(mut full) => {
                        full.extend_from_slice(&segments[1..]);
                        return self.resolve_hops(module, &full, hops + 1);
                    }
                    Step::Globs(owner, globs) => {
                        return self
                            .resolve_glob(&owner, &globs, segments, hops)
                            .unwrap_or_else(|| self.resolve_absolute(module, segments, hops));
                    }
                }
            }
        };
        self.resolve_below(base, rest, hops)
    }

    /// What `name` is in the module at `module` (see [`ModuleScope::step`]), its globs left out while
    /// one of them is being resolved.
    fn step_in(&mut self, module: &[String], name: &str, is_last: bool) -> Option<Step<'a>> {
        let globs_off = self.globs_off.iter().any(|off| off.as_slice() == module);
        match self.module(module)?.step(name, is_last)? {
            Step::Globs(..) if globs_off => None,
            step => Some(step),
        }
    }

    /// A path starting with a crate name (or `::name`), written in `module`: a workspace crate, a
    /// dependency of the crate `module` is in (by the name that crate gives it), or external.
    fn resolve_absolute(
        &mut self,
        module: &[String],
        segments: &[String],
        hops: usize,
    ) -> NameTarget {
        let Some(first) = segments.first() else {
            return NameTarget::External(Vec::new());
        };
        if self.tree.crates.contains(first) {
            return self.resolve_below(vec![first.clone()], &segments[1..], hops);
        }
        let tree: &'a ModuleTree<'a> = self.tree;
        // A bare name (`String`) is no crate's path: only `name::...` may enter a dependency.
        let dependency = match segments.len() {
            1 => None,
            _ => tree.dependency_named(module, first),
        };
        match dependency {
            Some(root) => {
                let root = root.to_owned();
                let mut entered = vec![root.clone()];
                entered.extend_from_slice(&segments[1..]);
                if self.stop_at_border {
                    self.entered = Some(entered.clone());
                    return NameTarget::External(entered);
                }
                self.entered.get_or_insert(entered);
                self.resolve_below(vec![root], &segments[1..], hops)
            }
            None => NameTarget::External(segments.to_vec()),
        }
    }

    /// `segments`, whose first is a name the module `owner` neither defines nor imports by name,
    /// through the glob imports `globs` of `owner`, as rustc resolves them: the first glob whose module
    /// exports that name gives it (a glob brings only what its module defines or imports, itself by
    /// name or by its own globs); `None` when no glob brings it.
    fn resolve_glob(
        &mut self,
        owner: &[String],
        globs: &[Vec<String>],
        segments: &[String],
        hops: usize,
    ) -> Option<NameTarget> {
        let name = segments.first()?;
        let _guard = InProgress::enter(owner, segments)?;
        for glob in globs {
            match self.glob_source(owner, glob, hops) {
                GlobSource::Module(source) => {
                    if self.exports(&source, name, hops + 1) {
                        self.enter_dependency_module(&source, segments);
                        return Some(self.resolve_below(source, segments, hops + 1));
                    }
                }
                GlobSource::Unread(mut path) if self.unread_glob_brings(owner, name) => {
                    path.extend_from_slice(segments);
                    if self.tree.dependency_of(&path).is_some() {
                        self.entered.get_or_insert_with(|| path.clone());
                    }
                    return Some(NameTarget::External(path));
                }
                GlobSource::Unread(_) | GlobSource::Nothing => {}
            }
        }
        None
    }

    /// Where the glob import `glob`, written in `owner`, leads: its path resolved from `owner` without
    /// `owner`'s own globs, and without changing where the lookup in progress entered a dependency.
    fn glob_source(&mut self, owner: &[String], glob: &[String], hops: usize) -> GlobSource {
        let entered = self.entered.take();
        self.globs_off.push(owner.to_vec());
        let target = self.resolve_hops(owner, glob, hops + 1);
        self.globs_off.pop();
        let crossed = std::mem::replace(&mut self.entered, entered);
        match target {
            NameTarget::Module(path) => GlobSource::Module(path),
            NameTarget::Type(_) => GlobSource::Nothing,
            NameTarget::External(path) => match crossed {
                // A dependency beyond the border, or one whose source is not mounted.
                Some(at_border) if at_border == path => GlobSource::Unread(path),
                Some(_) => GlobSource::Nothing,
                None if path
                    .first()
                    .is_some_and(|first| STD_ROOTS.contains(&first.as_str())) =>
                {
                    GlobSource::Unread(path)
                }
                None => GlobSource::Nothing,
            },
        }
    }

    /// Whether the module at `module` exports `name` to a glob import: defines or imports it by name,
    /// or brings it by a glob of its own.
    fn exports(&mut self, module: &[String], name: &str, hops: usize) -> bool {
        if hops > MAX_HOPS {
            return false;
        }
        let Some(scope) = self.module(module) else {
            return false;
        };
        if scope.types.contains_key(name)
            || scope.mods.contains_key(name)
            || scope.uses.contains_key(name)
        {
            return true;
        }
        let globs = scope.globs.clone();
        if globs.is_empty() {
            return false;
        }
        let segments = [name.to_owned()];
        let Some(_guard) = InProgress::enter(module, &segments) else {
            return false;
        };
        for glob in &globs {
            let brings = match self.glob_source(module, glob, hops) {
                GlobSource::Module(source) => self.exports(&source, name, hops + 1),
                GlobSource::Unread(_) => self.unread_glob_brings(module, name),
                GlobSource::Nothing => false,
            };
            if brings {
                return true;
            }
        }
        false
    }

    /// Whether a glob of a module the lookup does not read (see [`GlobSource::Unread`]), written in
    /// `module`, is taken to bring `name`: unless the std prelude or the language gives it, or it names
    /// a crate (a glob that brought it would make the name ambiguous, which rustc rejects).
    fn unread_glob_brings(&self, module: &[String], name: &str) -> bool {
        !is_prelude_name(name)
            && !STD_ROOTS.contains(&name)
            && !self.tree.crates.iter().any(|krate| krate == name)
            && self.tree.dependency_named(module, name).is_none()
    }

    /// Notes that the lookup enters a dependency at `segments` of its module `module`, when `module` is
    /// a dependency's and the lookup had not entered one yet.
    fn enter_dependency_module(&mut self, module: &[String], segments: &[String]) {
        if self.entered.is_none() && self.tree.dependency_of(module).is_some() {
            let mut entered = module.to_vec();
            entered.extend_from_slice(segments);
            self.entered = Some(entered);
        }
    }

    /// `rest` looked up from the module `base` down, one module per segment.
    fn resolve_below(&mut self, mut base: ModPath, rest: &[String], hops: usize) -> NameTarget {
        let external = |base: &ModPath, from: &[String]| {
            let mut segments = base.clone();
            segments.extend_from_slice(from);
            NameTarget::External(segments)
        };
        for (i, segment) in rest.iter().enumerate() {
            let Some(step) = self.step_in(&base, segment, i + 1 == rest.len()) else {
                return external(&base, &rest[i..]);
            };
            match step {
                Step::Type(slot, file, owner) => {
                    return match self.type_id(slot, file, &owner, segment) {
                        Some(id) => NameTarget::Type(id),
                        None => external(&base, &rest[i..]),
                    };
                }
                Step::Child(child) => base = child,
                Step::Use(mut full) => {
                    full.extend_from_slice(&rest[i + 1..]);
                    return self.resolve_hops(&base, &full, hops + 1);
                }
                Step::Globs(owner, globs) => {
                    return self
                        .resolve_glob(&owner, &globs, &rest[i..], hops)
                        .unwrap_or_else(|| external(&base, &rest[i..]));
                }
            }
        }
        NameTarget::Module(base)
    }
}
