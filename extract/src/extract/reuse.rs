//! Lowered types carried from one revision's extraction to the next within a check.
//!
//! A check lowers the same type items again at every revision it reads (the working tree, the baseline,
//! each older release), although most of them did not change. What a type item lowers to depends on its
//! syntax, on where it is (its module and file), on the options of the check, and on the answers to the
//! questions its lowering asks of the revision: what each path names, which features its crate is built
//! with, which macros its module invokes, which package a module belongs to. Lowering records those
//! questions with their answers ([`Probe`]), and what it did besides building the definition
//! ([`Event`]: notes, definitions of known types, an invalid `allow`). Another revision reuses the
//! definition when it asks the same questions and gets the same answers, one after the other as the
//! lowering asked them: every answer is then the same, so the lowering would be.
//!
//! An item is named by its blob (git blob id) and its place in it (the scan's index, or the path of
//! indices in a file parsed whole): one blob's bytes parse to the same items wherever and whenever it is
//! read, so the name needs no syntax tree, and holds across checks.
//!
//! [`SourceCache`]: super::SourceCache

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use git2::Oid;
use serde::{Deserialize, Serialize};

use super::declarations::{Declaration, ItemAt};
use super::scan::Pos;
use super::{ExternalCrate, ExtractError};
use crate::model::{ExtractNote, TypeDef};

/// At most this many records of one item are kept and tried (the latest first): the revisions of one
/// check differ little, and a record that failed once is unlikely to fit later.
const RECORDS_PER_ITEM: usize = 2;

/// A type item the same in two revisions: the same item of the same blob ([`LoweredTypes::item`]) in
/// the same module of a file at the same path ([`LoweredTypes::place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) struct Identity {
    /// The blob and the item's place in it, interned.
    pub(super) item: u32,
    /// The file path and module, interned.
    pub(super) place: u32,
}

/// A module path or a path as written, interned ([`LoweredTypes::path`]): records hold many, most of
/// them the same few.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) struct PathId(u32);

/// What a path resolved to, in terms that hold across revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Target {
    Type(Identity),
    Module(PathId),
    External(PathId),
}

/// Where a reading of a type's source starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(in crate::extract) enum ImplRoots {
    /// The type item and all its impls: a type whose impls are all written by hand.
    Type,
    /// Its `Serialize` impls only (and what they call), not the type item: the other side is derived,
    /// and a change to the type's shape is compared as a derived one.
    Serialize,
    /// Its `Deserialize` impls only, likewise.
    Deserialize,
    /// Its `Visitor` impls only (a visitor a hand-written `Deserialize` hands its deserializer).
    Visitor,
}

impl ImplRoots {
    /// The trait whose impls a reading starts from, when it does not start from the type item.
    pub(in crate::extract) fn trait_name(self) -> Option<&'static str> {
        match self {
            ImplRoots::Type => None,
            ImplRoots::Serialize => Some("Serialize"),
            ImplRoots::Deserialize => Some("Deserialize"),
            ImplRoots::Visitor => Some("Visitor"),
        }
    }
}

/// A question a lowering asked of its revision, with the answer it got (large answers boxed: a record
/// holds many probes, most of them small).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Probe {
    /// A path resolved in a module (`to_border`: stopping where it enters a dependency), and where it
    /// entered one.
    Resolve {
        module: PathId,
        segments: PathId,
        to_border: bool,
        target: Target,
        entered: Option<PathId>,
    },
    /// The features the crate of a module is built with ([`LoweredTypes::features`]).
    Features { module: PathId, features: u32 },
    /// The macro invocations of a module, as indexed so far.
    Macros {
        module: PathId,
        macros: Vec<ExtractNote>,
    },
    /// The dependency a module belongs to.
    Dependency {
        module: PathId,
        krate: Option<Box<ExternalCrate>>,
    },
    /// The mount of the dependency a module belongs to: the features it is built with and why its
    /// source is missing.
    Mount {
        module: PathId,
        mount: Option<Box<(BTreeSet<String>, Option<String>)>>,
    },
    /// The digest of the source of a type item's hand-written impls (see `Names::impl_source`): it
    /// reads the impls and items of the item's crate, in any of its files.
    ImplSource {
        item: Identity,
        roots: ImplRoots,
        digest: Option<Box<str>>,
    },
    /// The digest of the source of a function of the crate, by its full path (see
    /// `Names::fn_source`): a field's `serialize_with` or `deserialize_with` function.
    FnSource {
        function: PathId,
        digest: Option<Box<str>>,
    },
    /// The value of a named integer constant as written in a module (see `Names::const_value`).
    Const {
        module: PathId,
        segments: PathId,
        value: Option<i128>,
    },
}

/// Something a lowering did besides building its definition, replayed as it was done.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Event {
    /// A note pushed.
    Note(ExtractNote),
    /// A note pushed unless an equal one is there.
    NoteUnlessNoted(ExtractNote),
    /// A note pushed unless one with the same message is there.
    NoteOnce(ExtractNote),
    /// Definitions of known types the definition names.
    KnownDefs(Vec<TypeDef>),
    /// A shape `wirecheck.toml` declares, used (by its key).
    ShapeUsed(String),
    /// An `allow` naming no rule, kept when it is the first (a record with one is not kept across
    /// checks: [`KeptLowering`]).
    #[serde(skip)]
    UnknownRule(ExtractError),
}

/// One lowering of a type item: what it asked, what it did, what it built and the items it reached.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Lowered {
    /// The check's options it was lowered under ([`LoweredTypes::context`]).
    pub(super) context: u32,
    pub(super) probes: Vec<Probe>,
    pub(super) events: Vec<Event>,
    pub(super) def: Arc<TypeDef>,
    /// The type items it reached, in order (each one a [`Target::Type`] of a probe).
    pub(super) reached: Vec<Identity>,
}

/// The lowered type items of the extractions of one check, by [`Identity`].
#[derive(Debug, Default)]
pub(super) struct LoweredTypes {
    records: RefCell<FxHashMap<Identity, Vec<Arc<Lowered>>>>,
    places: RefCell<FxHashMap<String, u32>>,
    items: RefCell<FxHashMap<(Oid, ItemAt), u32>>,
    /// The items (numbers) some record is of.
    recorded: RefCell<FxHashSet<u32>>,
    /// The record each item lowered since [`LoweredTypes::take_used`] was last called was lowered
    /// with, or replayed from.
    used: RefCell<FxHashMap<Identity, Arc<Lowered>>>,
    paths: RefCell<Interned>,
    feature_sets: RefCell<Vec<BTreeSet<String>>>,
    contexts: RefCell<Vec<BTreeMap<String, String>>>,
}

/// The number of `value` in `known` (its index), added when it is not there yet: the same for equal values.
fn number_in<T: PartialEq + Clone>(known: &RefCell<Vec<T>>, value: &T) -> u32 {
    let mut known = known.borrow_mut();
    let index = match known.iter().position(|k| k == value) {
        Some(index) => index,
        None => {
            known.push(value.clone());
            known.len() - 1
        }
    };
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// The number of `key` in `known`, the next one when it is not there yet: the same for equal keys.
fn numbered<K, Q>(known: &RefCell<FxHashMap<K, u32>>, key: &Q) -> u32
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: ToOwned<Owned = K> + std::hash::Hash + Eq + ?Sized,
{
    let mut known = known.borrow_mut();
    if let Some(&number) = known.get(key) {
        return number;
    }
    let next = u32::try_from(known.len()).unwrap_or(u32::MAX);
    known.insert(key.to_owned(), next);
    next
}

impl LoweredTypes {
    /// Everything recorded, taken out (see `SourceCache::leave_to_exit`).
    pub(super) fn take(&self) -> LoweredTypes {
        LoweredTypes {
            records: self.records.take().into(),
            places: self.places.take().into(),
            items: self.items.take().into(),
            recorded: self.recorded.take().into(),
            used: self.used.take().into(),
            paths: self.paths.take().into(),
            feature_sets: self.feature_sets.take().into(),
            contexts: self.contexts.take().into(),
        }
    }

    /// The number of a file path and module (the same for the same pair).
    pub(super) fn place(&self, file: &str, module: &[String]) -> u32 {
        let mut key = String::with_capacity(file.len() + 64);
        key.push_str(file);
        for segment in module {
            key.push('\n');
            key.push_str(segment);
        }
        self.place_key(&key)
    }

    /// The number of a place by its key (see [`LoweredTypes::place`]).
    fn place_key(&self, key: &str) -> u32 {
        numbered(&self.places, key)
    }

    /// The number of an item of a blob (the same for the same item of the same blob).
    pub(super) fn item(&self, blob: Oid, at: &ItemAt) -> u32 {
        numbered(&self.items, &(blob, at.clone()))
    }

    /// Whether some record is of the item `at` of `blob` (which then parsed when it was made).
    pub(super) fn knows(&self, blob: Oid, at: &ItemAt) -> bool {
        let number = self.items.borrow().get(&(blob, at.clone())).copied();
        number.is_some_and(|number| self.recorded.borrow().contains(&number))
    }

    /// The id of a path (the same for equal paths).
    pub(super) fn path(&self, path: &[String]) -> PathId {
        PathId(self.paths.borrow_mut().id(path))
    }

    /// The path of an id.
    pub(super) fn path_of(&self, id: PathId) -> Rc<[String]> {
        Rc::clone(&self.paths.borrow().values[id.0 as usize])
    }

    /// The number of a set of features (the same for equal sets).
    pub(super) fn features(&self, features: &BTreeSet<String>) -> u32 {
        number_in(&self.feature_sets, features)
    }

    /// Whether `id` is the number of `features`.
    pub(super) fn is_features(&self, id: u32, features: &BTreeSet<String>) -> bool {
        self.feature_sets.borrow().get(id as usize) == Some(features)
    }

    /// The number of the declared shapes a lowering runs with (the same for equal shapes).
    pub(super) fn context(&self, shapes: &BTreeMap<String, String>) -> u32 {
        number_in(&self.contexts, shapes)
    }

    /// The records of `identity`, the latest first.
    pub(super) fn records(&self, identity: Identity) -> Vec<Arc<Lowered>> {
        self.records
            .borrow()
            .get(&identity)
            .map(|records| records.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    /// Keeps a record of `identity` (dropping the oldest beyond [`RECORDS_PER_ITEM`]).
    pub(super) fn keep(&self, identity: Identity, lowered: Lowered) -> Arc<Lowered> {
        self.recorded.borrow_mut().insert(identity.item);
        let mut records = self.records.borrow_mut();
        let kept = records.entry(identity).or_default();
        if kept.len() == RECORDS_PER_ITEM {
            kept.remove(0);
        }
        let lowered = Arc::new(lowered);
        kept.push(Arc::clone(&lowered));
        lowered
    }

    /// Notes that `identity` was lowered with `record`, or replayed from it.
    pub(super) fn use_record(&self, identity: Identity, record: &Arc<Lowered>) {
        self.used.borrow_mut().insert(identity, Arc::clone(record));
    }

    /// Forgets the records used so far (see [`LoweredTypes::take_used`]).
    pub(super) fn forget_used(&self) {
        self.used.borrow_mut().clear();
    }

    /// The records used since the last call (see [`LoweredTypes::use_record`]), with every value
    /// they name, to keep across checks; records of an `allow` naming no rule are left out (the
    /// error is not plain data).
    pub(super) fn take_used(&self) -> KeptLowering {
        let used = self.used.take();
        let mut items: Vec<(String, ItemAt)> =
            vec![(String::new(), ItemAt::Scanned(0)); self.items.borrow().len()];
        for ((blob, at), &number) in self.items.borrow().iter() {
            items[number as usize] = (blob.to_string(), at.clone());
        }
        let mut places = vec![String::new(); self.places.borrow().len()];
        for (place, &number) in self.places.borrow().iter() {
            places[number as usize].clone_from(place);
        }
        // Shared with the cache, not copied: the writer thread reads them while this check goes on.
        let mut records: Vec<(Identity, Arc<Lowered>)> = used
            .into_iter()
            .filter(|(_, record)| {
                !record
                    .events
                    .iter()
                    .any(|event| matches!(event, Event::UnknownRule(_)))
            })
            .collect();
        records.sort_by_key(|(identity, _)| (identity.item, identity.place));
        KeptLowering {
            items,
            places,
            paths: self
                .paths
                .borrow()
                .values
                .iter()
                .map(|path| path.to_vec())
                .collect(),
            feature_sets: self.feature_sets.borrow().clone(),
            contexts: self.contexts.borrow().clone(),
            records,
            declarations: BTreeMap::new(),
            scopes: Vec::new(),
        }
    }

    /// Takes the records `kept` holds as made in this check (an item, path or value they name is
    /// numbered as this check numbers it). A record whose blob id does not read is dropped.
    pub(super) fn know(&self, kept: KeptLowering) {
        let KeptLowering {
            items,
            places,
            paths,
            feature_sets,
            contexts,
            records,
            declarations: _,
            scopes: _,
        } = kept;
        let items: Vec<Option<u32>> = items
            .iter()
            .map(|(blob, at)| Some(self.item(Oid::from_str(blob).ok()?, at)))
            .collect();
        let places: Vec<u32> = places.iter().map(|place| self.place_key(place)).collect();
        let paths: Vec<PathId> = paths.iter().map(|path| self.path(path)).collect();
        let feature_sets: Vec<u32> = feature_sets
            .iter()
            .map(|features| self.features(features))
            .collect();
        let contexts: Vec<u32> = contexts.iter().map(|shapes| self.context(shapes)).collect();
        let renumber = Renumber {
            items: &items,
            places: &places,
            paths: &paths,
            feature_sets: &feature_sets,
            contexts: &contexts,
        };
        for (identity, record) in records {
            // A record read back is this one's alone: taken, not copied.
            if let Some((identity, record)) =
                renumber.record(identity, Arc::unwrap_or_clone(record))
            {
                self.keep(identity, record);
            }
        }
    }
}

/// Paths by number, each stored once.
#[derive(Debug, Default)]
struct Interned {
    ids: FxHashMap<Rc<[String]>, u32>,
    values: Vec<Rc<[String]>>,
}

impl Interned {
    fn id(&mut self, path: &[String]) -> u32 {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = u32::try_from(self.values.len()).unwrap_or(u32::MAX);
        let path: Rc<[String]> = path.into();
        self.ids.insert(Rc::clone(&path), id);
        self.values.push(path);
        id
    }
}

/// Lowering records kept across checks (in the store), with the values they name by number: what a
/// later check's extraction of the working tree replays for the items of files that did not change,
/// without parsing them (`LoweredTypes::take_used`, `LoweredTypes::know`). A record holds or not by
/// its probes in the revision at hand, as within one check; its item is named by blob id and place.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KeptLowering {
    /// Item numbers: the blob id and the item's place in it.
    items: Vec<(String, ItemAt)>,
    /// Place numbers: the file path and module (see [`LoweredTypes::place`]).
    places: Vec<String>,
    paths: Vec<Vec<String>>,
    feature_sets: Vec<BTreeSet<String>>,
    contexts: Vec<BTreeMap<String, String>>,
    records: Vec<(Identity, Arc<Lowered>)>,
    /// The declarations of the files, by blob id (the cache fills it: `SourceCache::kept_lowering`).
    pub(super) declarations: BTreeMap<String, Arc<[Declaration]>>,
    /// The names modules of the files bind, by blob id (the cache fills it).
    #[serde(default)]
    pub(super) scopes: Vec<(String, ScopeKey, Arc<KeptScope>)>,
}

/// What the names a module of a file parsed item by item binds depend on besides the file's bytes: its
/// inline modules in the file, and the features its crate is built with (its `cfg`s).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(super) struct ScopeKey {
    pub(super) inline: Vec<String>,
    pub(super) features: BTreeSet<String>,
}

/// The names a module binds, as the index of a file parsed item by item reads them (`Names::module`),
/// without the module's path: type items by name (the scan's index), child modules, `use` imports by
/// the name they bind (the path as written), glob imports, and macro invocations (their note's message
/// and position, without the file, which depends on where the blob is mounted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct KeptScope {
    pub(super) types: Vec<(String, usize)>,
    pub(super) mods: Vec<String>,
    pub(super) uses: Vec<(String, Vec<String>)>,
    pub(super) globs: Vec<Vec<String>>,
    pub(super) macros: Vec<(String, Pos)>,
}

/// The numbers of a [`KeptLowering`]'s values in this check, by their numbers there.
struct Renumber<'r> {
    items: &'r [Option<u32>],
    places: &'r [u32],
    paths: &'r [PathId],
    feature_sets: &'r [u32],
    contexts: &'r [u32],
}

impl Renumber<'_> {
    /// `record` of `identity`, renumbered; `None` when a number is out of range or names a blob id
    /// that does not read (a damaged store).
    fn record(&self, identity: Identity, record: Lowered) -> Option<(Identity, Lowered)> {
        let identity = self.identity(identity)?;
        let probes = record
            .probes
            .into_iter()
            .map(|probe| self.probe(probe))
            .collect::<Option<_>>()?;
        let reached = record
            .reached
            .iter()
            .map(|&identity| self.identity(identity))
            .collect::<Option<_>>()?;
        Some((
            identity,
            Lowered {
                context: *self.contexts.get(record.context as usize)?,
                probes,
                events: record.events,
                def: record.def,
                reached,
            },
        ))
    }

    fn identity(&self, identity: Identity) -> Option<Identity> {
        Some(Identity {
            item: (*self.items.get(identity.item as usize)?)?,
            place: *self.places.get(identity.place as usize)?,
        })
    }

    fn path(&self, path: PathId) -> Option<PathId> {
        self.paths.get(path.0 as usize).copied()
    }

    fn probe(&self, probe: Probe) -> Option<Probe> {
        Some(match probe {
            Probe::Resolve {
                module,
                segments,
                to_border,
                target,
                entered,
            } => Probe::Resolve {
                module: self.path(module)?,
                segments: self.path(segments)?,
                to_border,
                target: match target {
                    Target::Type(identity) => Target::Type(self.identity(identity)?),
                    Target::Module(path) => Target::Module(self.path(path)?),
                    Target::External(path) => Target::External(self.path(path)?),
                },
                entered: match entered {
                    Some(path) => Some(self.path(path)?),
                    None => None,
                },
            },
            Probe::Features { module, features } => Probe::Features {
                module: self.path(module)?,
                features: *self.feature_sets.get(features as usize)?,
            },
            Probe::Macros { module, macros } => Probe::Macros {
                module: self.path(module)?,
                macros,
            },
            Probe::Dependency { module, krate } => Probe::Dependency {
                module: self.path(module)?,
                krate,
            },
            Probe::Mount { module, mount } => Probe::Mount {
                module: self.path(module)?,
                mount,
            },
            Probe::ImplSource {
                item,
                roots,
                digest,
            } => Probe::ImplSource {
                item: self.identity(item)?,
                roots,
                digest,
            },
            Probe::FnSource { function, digest } => Probe::FnSource {
                function: self.path(function)?,
                digest,
            },
            Probe::Const {
                module,
                segments,
                value,
            } => Probe::Const {
                module: self.path(module)?,
                segments: self.path(segments)?,
                value,
            },
        })
    }
}
