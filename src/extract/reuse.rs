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

use super::declarations::ItemAt;
use super::{ExternalCrate, ExtractError};
use crate::model::{ExtractNote, TypeDef};

/// At most this many records of one item are kept and tried (the latest first): the revisions of one
/// check differ little, and a record that failed once is unlikely to fit later.
const RECORDS_PER_ITEM: usize = 2;

/// A type item the same in two revisions: the same item of the same blob ([`LoweredTypes::item`]) in
/// the same module of a file at the same path ([`LoweredTypes::place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    /// The blob and the item's place in it, interned.
    pub(super) item: u32,
    /// The file path and module, interned.
    pub(super) place: u32,
}

/// A module path or a path as written, interned ([`LoweredTypes::path`]): records hold many, most of
/// them the same few.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PathId(u32);

/// What a path resolved to, in terms that hold across revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Type(Identity),
    Module(PathId),
    External(PathId),
}

/// A question a lowering asked of its revision, with the answer it got (large answers boxed: a record
/// holds many probes, most of them small).
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

/// Something a lowering did besides building its definition, replayed as it was done.
#[derive(Debug, Clone)]
pub(super) enum Event {
    /// A note pushed.
    Note(ExtractNote),
    /// A note pushed unless an equal one is there.
    NoteUnlessNoted(ExtractNote),
    /// A note pushed unless one with the same message is there.
    NoteOnce(ExtractNote),
    /// Definitions of known types the definition names.
    KnownDefs(Vec<TypeDef>),
    /// An `allow` naming no rule, kept when it is the first.
    UnknownRule(ExtractError),
}

/// One lowering of a type item: what it asked, what it did, what it built and the items it reached.
#[derive(Debug)]
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
    records: RefCell<FxHashMap<Identity, Vec<Rc<Lowered>>>>,
    places: RefCell<FxHashMap<String, u32>>,
    items: RefCell<FxHashMap<(Oid, ItemAt), u32>>,
    /// The items (numbers) some record is of.
    recorded: RefCell<FxHashSet<u32>>,
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

impl LoweredTypes {
    /// Everything recorded, taken out (see `SourceCache::leave_to_exit`).
    pub(super) fn take(&self) -> LoweredTypes {
        LoweredTypes {
            records: self.records.take().into(),
            places: self.places.take().into(),
            items: self.items.take().into(),
            recorded: self.recorded.take().into(),
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
        let mut places = self.places.borrow_mut();
        let next = u32::try_from(places.len()).unwrap_or(u32::MAX);
        *places.entry(key).or_insert(next)
    }

    /// The number of an item of a blob (the same for the same item of the same blob).
    pub(super) fn item(&self, blob: Oid, at: &ItemAt) -> u32 {
        let mut items = self.items.borrow_mut();
        if let Some(&known) = items.get(&(blob, at.clone())) {
            return known;
        }
        let next = u32::try_from(items.len()).unwrap_or(u32::MAX);
        items.insert((blob, at.clone()), next);
        next
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
    pub(super) fn records(&self, identity: Identity) -> Vec<Rc<Lowered>> {
        self.records
            .borrow()
            .get(&identity)
            .map(|records| records.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    /// Keeps a record of `identity` (dropping the oldest beyond [`RECORDS_PER_ITEM`]).
    pub(super) fn keep(&self, identity: Identity, lowered: Lowered) {
        self.recorded.borrow_mut().insert(identity.item);
        let mut records = self.records.borrow_mut();
        let kept = records.entry(identity).or_default();
        if kept.len() == RECORDS_PER_ITEM {
            kept.remove(0);
        }
        kept.push(Rc::new(lowered));
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
