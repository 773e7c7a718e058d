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
mod index;
mod resolve;

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
}
