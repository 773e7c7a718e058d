//! The revision as a type's lowering sees it, and the record of what the lowering asked of it.
//!
//! A type item's lowering is recorded for the next revisions of the check and replayed where it fits
//! (see `extract::reuse`). That is only sound when every answer the lowering got from the revision is
//! in its record. So the lowering never holds the revision's name resolution itself: it holds a
//! [`Revision`], whose fields are private to this module, and whose methods are the only way to ask
//! anything of the revision (what a path names, the features of a crate, the macros of a module, the
//! dependency a module is in and its mount). Each of them notes the question with its answer while a
//! lowering is recorded, and so does everything the lowering does besides building the definition
//! (notes, known definitions, an invalid `allow`). A new kind of question is a new method here and a
//! new [`Probe`]; there is no other path to `Names` once the declarations are read (the declaration
//! phase, `lower/declared`, hands `Names` over to [`Revision::new`]).
//!
//! A value the lowering computes once and reuses for later types (which derives a dependency's type
//! has) is kept with what computing it asked and did ([`Memo`], [`Revision::memoized`]): a later use
//! records the same probes and events, so a record never misses an answer it depends on because the
//! value was computed while another type was lowered.

use std::collections::BTreeSet;
use std::hash::Hash;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use syn::Item;

use super::super::ExtractError;
use super::super::cache::ModPath;
use super::super::names::{FnSource, ImplSource, NameTarget, Names, Resolution};
use super::super::reuse::{Event, Identity, ImplRoots, Lowered, PathId, Probe, Target};
use super::Lowering;
use crate::extract::ExternalCrate;
use crate::model::{ExtractNote, TypeDef};

/// A resolution a record asked: the module, the path and whether it stops at a dependency's border.
type Question = (PathId, PathId, bool);

/// A resolution's answer in this revision: its target, the type item's id when it is one, and where
/// it entered a dependency.
#[derive(Clone, Copy)]
struct Answer {
    target: Target,
    id: Option<usize>,
    entered: Option<PathId>,
}

/// What the lowering of one type item asked and did so far, or what computing a memoized value did.
#[derive(Default, Clone)]
struct Recording {
    probes: Vec<Probe>,
    events: Vec<Event>,
}

impl Recording {
    /// Notes `probe`, unless it is a resolution or a features question asked already (the same
    /// question gets the same answer in one revision: both are memoized).
    fn push(&mut self, probe: Probe) {
        let asked = match &probe {
            Probe::Resolve {
                module,
                segments,
                to_border,
                ..
            } => self.probes.iter().any(|earlier| {
                matches!(earlier, Probe::Resolve { module: m, segments: s, to_border: b, .. }
                    if (m, s, b) == (module, segments, to_border))
            }),
            Probe::Features { module, .. } => self
                .probes
                .iter()
                .any(|earlier| matches!(earlier, Probe::Features { module: m, .. } if m == module)),
            Probe::ImplSource { item, .. } => self
                .probes
                .iter()
                .any(|earlier| matches!(earlier, Probe::ImplSource { item: i, .. } if i == item)),
            Probe::FnSource { function, .. } => self.probes.iter().any(
                |earlier| matches!(earlier, Probe::FnSource { function: f, .. } if f == function),
            ),
            Probe::Const {
                module, segments, ..
            } => self.probes.iter().any(|earlier| {
                matches!(earlier, Probe::Const { module: m, segments: s, .. }
                    if (m, s) == (module, segments))
            }),
            Probe::Macros { .. } | Probe::Dependency { .. } | Probe::Mount { .. } => false,
        };
        if !asked {
            self.probes.push(probe);
        }
    }
}

/// Values computed once per revision from questions asked through a [`Revision`], each with what
/// computing it asked and did (see [`Revision::memoized`]).
pub(super) struct Memo<K, V> {
    values: FxHashMap<K, (V, Recording)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            values: FxHashMap::default(),
        }
    }
}

/// What the lowering leaves when it is done: its notes, the known definitions its types name, the
/// first `allow` naming no rule, and the first parse error name resolution met.
pub(super) struct Finished {
    pub(super) notes: Vec<ExtractNote>,
    pub(super) known_defs: Vec<TypeDef>,
    pub(super) unknown_rule_id: Option<ExtractError>,
    pub(super) error: Option<ExtractError>,
    /// The keys of `wirecheck.toml`'s `[shapes]` a lowering used.
    pub(super) shapes_used: BTreeSet<String>,
}

/// The revision as a type's lowering may see it: every question it answers and everything done
/// through it is recorded while a lowering is (see the module documentation).
pub(super) struct Revision<'a> {
    names: Names<'a>,
    notes: Vec<ExtractNote>,
    /// The first `allow(...)` of a field or variant naming a rule that does not exist: an error when
    /// every message is kept (the allow would otherwise be ignored without a word).
    unknown_rule_id: Option<ExtractError>,
    /// Definitions of known types (std, the catalogue) that the lowered types name.
    known_defs: Vec<TypeDef>,
    /// The keys of `wirecheck.toml`'s `[shapes]` used so far.
    shapes_used: BTreeSet<String>,
    /// What the type item being lowered asked and did, when its lowering is recorded.
    recording: Option<Recording>,
    /// What the memoized values being computed asked and did, innermost last.
    captures: Vec<Recording>,
    /// The answers to the resolutions records asked, in this revision (see `Lowering::replayed`).
    answers: FxHashMap<Question, Answer>,
}

impl<'a> Revision<'a> {
    /// The revision of `names`, after its declarations were read (their notes: `notes`).
    pub(super) fn new(names: Names<'a>, notes: Vec<ExtractNote>) -> Self {
        Revision {
            names,
            notes,
            unknown_rule_id: None,
            known_defs: Vec::new(),
            shapes_used: BTreeSet::new(),
            recording: None,
            captures: Vec::new(),
            answers: FxHashMap::default(),
        }
    }

    /// What the lowering left (see [`Finished`]).
    pub(super) fn finish(mut self) -> Finished {
        Finished {
            error: self.names.take_error(),
            notes: self.notes,
            known_defs: self.known_defs,
            unknown_rule_id: self.unknown_rule_id,
            shapes_used: self.shapes_used,
        }
    }

    fn recorded(&self) -> bool {
        self.recording.is_some() || !self.captures.is_empty()
    }

    fn probe(&mut self, probe: impl FnOnce(&Self) -> Probe) {
        if !self.recorded() {
            return;
        }
        let probe = probe(self);
        for capture in &mut self.captures {
            capture.push(probe.clone());
        }
        if let Some(recording) = &mut self.recording {
            recording.push(probe);
        }
    }

    fn event(&mut self, event: impl FnOnce() -> Event) {
        if !self.recorded() {
            return;
        }
        let event = event();
        for capture in &mut self.captures {
            capture.events.push(event.clone());
        }
        if let Some(recording) = &mut self.recording {
            recording.events.push(event);
        }
    }

    /// The value `memo` keeps for `key`, its probes and events recorded again as if it were computed
    /// here; else `compute`d through this revision, and kept with what computing it asked and did.
    pub(super) fn memoized<K: Hash + Eq, V: Clone>(
        &mut self,
        memo: &mut Memo<K, V>,
        key: K,
        compute: impl FnOnce(&mut Self) -> V,
    ) -> V {
        if let Some((value, done)) = memo.values.get(&key) {
            let (value, done) = (value.clone(), done.clone());
            for probe in done.probes {
                self.probe(|_| probe);
            }
            for event in done.events {
                self.redo(event);
            }
            return value;
        }
        self.captures.push(Recording::default());
        let value = compute(self);
        let done = self.captures.pop().unwrap_or_default();
        memo.values.insert(key, (value.clone(), done));
        value
    }

    // ----- questions, each recorded with its answer -----

    /// What a path written in `module` names.
    pub(super) fn resolve(&mut self, module: &[String], segments: &[String]) -> Resolution {
        let found = self.names.resolve(module, segments);
        self.probe_resolve(module, segments, false, &found);
        found
    }

    /// [`Revision::resolve`], stopping where the path enters a dependency (see
    /// `Names::resolve_to_border`).
    pub(super) fn resolve_to_border(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Resolution {
        let found = self.names.resolve_to_border(module, segments);
        self.probe_resolve(module, segments, true, &found);
        found
    }

    fn probe_resolve(
        &mut self,
        module: &[String],
        segments: &[String],
        to_border: bool,
        found: &Resolution,
    ) {
        self.probe(|this| {
            let lowered = this.names.tree().cache.lowered();
            Probe::Resolve {
                module: lowered.path(module),
                segments: lowered.path(segments),
                to_border,
                target: this.names.target(&found.target),
                entered: found
                    .entered
                    .as_deref()
                    .map(|entered| lowered.path(entered)),
            }
        });
    }

    /// The features the crate of the module at `module` is built with.
    pub(super) fn features_of(&mut self, module: &[String]) -> &BTreeSet<String> {
        self.probe(|this| {
            let lowered = this.names.tree().cache.lowered();
            Probe::Features {
                module: lowered.path(module),
                features: lowered.features(this.names.features_of(module)),
            }
        });
        self.names.features_of(module)
    }

    /// The macro invocations of the module at `module`, as indexed so far.
    pub(super) fn macros_in(&mut self, module: &[String]) -> Vec<ExtractNote> {
        let macros = self.names.macros_in(module).to_vec();
        self.probe(|this| Probe::Macros {
            module: this.names.tree().cache.lowered().path(module),
            macros: macros.clone(),
        });
        macros
    }

    /// The package and version of the dependency the module at `module` belongs to, if any.
    pub(super) fn dependency_of(&mut self, module: &[String]) -> Option<ExternalCrate> {
        let krate = self
            .names
            .tree()
            .dependency_of(module)
            .map(|(_, krate)| krate.clone());
        self.probe(|this| Probe::Dependency {
            module: this.names.tree().cache.lowered().path(module),
            krate: krate.clone().map(Box::new),
        });
        krate
    }

    /// The features and the missing source's reason of the dependency the module at `module` belongs
    /// to, mounting it first.
    pub(super) fn dependency_mount(
        &mut self,
        module: &[String],
    ) -> Option<(BTreeSet<String>, Option<String>)> {
        let mount = self
            .names
            .tree()
            .dependency_mount(module)
            .map(|mount| (mount.features.clone(), mount.missing.clone()));
        self.probe(|this| Probe::Mount {
            module: this.names.tree().cache.lowered().path(module),
            mount: mount.clone().map(Box::new),
        });
        mount
    }

    /// The digest of the source of the type item `id`'s hand-written impls: the item, its impls and
    /// the items they name in its crate (see `Names::impl_source`); `None` when it cannot be read.
    pub(super) fn impl_source(&mut self, id: usize, roots: ImplRoots) -> Option<Rc<ImplSource>> {
        let found = self.names.impl_source(id, roots);
        self.probe(|this| Probe::ImplSource {
            item: this.names.identity(id),
            roots,
            digest: found.as_ref().map(|source| source.digest.as_str().into()),
        });
        found
    }

    /// The function of the crate at the full path `function` (a field's `serialize_with` or
    /// `deserialize_with`), with the digest of its source (see `Names::fn_source`), which is recorded:
    /// what the lowering reads of the function is a function of its tokens, and the names it resolves
    /// are asked through [`Revision::resolve`].
    pub(super) fn fn_source(&mut self, function: &[String]) -> Option<Rc<FnSource<'a>>> {
        let found = self.names.fn_source(function);
        self.probe(|this| Probe::FnSource {
            function: this.names.tree().cache.lowered().path(function),
            digest: found.as_ref().map(|source| source.digest.as_str().into()),
        });
        found
    }

    /// The value of the integer constant `segments` names as written in `module` (see
    /// `Names::const_value`): an array's length, a discriminant.
    pub(super) fn const_value(&mut self, module: &[String], segments: &[String]) -> Option<i128> {
        let value = self.names.const_value(module, segments);
        self.probe(|this| {
            let lowered = this.names.tree().cache.lowered();
            Probe::Const {
                module: lowered.path(module),
                segments: lowered.path(segments),
                value,
            }
        });
        value
    }

    /// The impls of a trait of serde's (`roots`: `Serialize`, `Deserialize` or `Visitor`) for the type
    /// item `id`, each with the module it is written in and its file. What they say is a function of
    /// the digest of their source, which is recorded (see [`Revision::impl_source`]).
    pub(super) fn trait_impls(
        &mut self,
        id: usize,
        roots: ImplRoots,
    ) -> Vec<(&'a syn::ItemImpl, ModPath, &'a str)> {
        let trait_name = match roots {
            ImplRoots::Serialize => "Serialize",
            ImplRoots::Deserialize => "Deserialize",
            ImplRoots::Visitor => "Visitor",
            ImplRoots::Type => return Vec::new(),
        };
        self.impl_source(id, roots);
        self.names.trait_impls(id, trait_name)
    }

    // ----- a type item's own facts: functions of its identity, the same in every revision -----

    /// The syntax of the type item `id`, parsed on first use; `None` when it does not parse (the error
    /// is kept: the revision fails with it, and no record is kept).
    pub(super) fn syntax(&mut self, id: usize) -> Option<&'a Item> {
        self.names.syntax(id)
    }

    /// The module the type item `id` is defined in.
    pub(super) fn item_module(&self, id: usize) -> ModPath {
        self.names.item(id).module.clone()
    }

    /// The file of the type item `id`, relative to the workspace root.
    pub(super) fn item_file(&self, id: usize) -> &'a str {
        self.names.item(id).file
    }

    /// `crate::module::Name` of the type item `id`.
    pub(super) fn canonical(&self, id: usize) -> String {
        self.names.canonical(id)
    }

    // ----- what the lowering does besides building definitions, recorded as events -----

    /// Pushes a note.
    pub(super) fn push_note(&mut self, note: ExtractNote) {
        self.event(|| Event::Note(note.clone()));
        self.notes.push(note);
    }

    /// Pushes a note unless an equal one is there.
    pub(super) fn push_note_unless_noted(&mut self, note: ExtractNote) {
        self.event(|| Event::NoteUnlessNoted(note.clone()));
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Pushes a note unless one with the same message is there (once per package or type is enough).
    pub(super) fn push_note_once(&mut self, note: ExtractNote) {
        self.event(|| Event::NoteOnce(note.clone()));
        if !self
            .notes
            .iter()
            .any(|earlier| earlier.message == note.message)
        {
            self.notes.push(note);
        }
    }

    /// Adds definitions of known types the lowered types name.
    pub(super) fn add_known_defs(&mut self, defs: Vec<TypeDef>) {
        self.event(|| Event::KnownDefs(defs.clone()));
        self.known_defs.extend(defs);
    }

    /// Notes that the shape `wirecheck.toml` declares under `key` was used.
    pub(super) fn use_shape(&mut self, key: &str) {
        self.event(|| Event::ShapeUsed(key.to_owned()));
        self.shapes_used.insert(key.to_owned());
    }

    /// Keeps the error of an `allow` that names no rule, unless one is kept already.
    pub(super) fn note_unknown_rule(&mut self, error: ExtractError) {
        self.event(|| Event::UnknownRule(error.clone()));
        if self.unknown_rule_id.is_none() {
            self.unknown_rule_id = Some(error);
        }
    }

    /// Does `event` again, as the lowering did.
    fn redo(&mut self, event: Event) {
        match event {
            Event::Note(note) => self.push_note(note),
            Event::NoteUnlessNoted(note) => self.push_note_unless_noted(note),
            Event::NoteOnce(note) => self.push_note_once(note),
            Event::KnownDefs(defs) => self.add_known_defs(defs),
            Event::UnknownRule(error) => self.note_unknown_rule(error),
            Event::ShapeUsed(key) => self.use_shape(&key),
        }
    }

    // ----- replaying a record -----

    /// Whether `probe`'s question gets its answer in this revision; the type items resolved go in
    /// `ids`.
    fn holds(&mut self, probe: &Probe, ids: &mut FxHashMap<Identity, usize>) -> bool {
        let lowered = self.names.tree().cache.lowered();
        match probe {
            &Probe::Resolve {
                module,
                segments,
                to_border,
                target,
                entered,
            } => {
                let answer = self.answer((module, segments, to_border));
                if let Some(id) = answer.id {
                    ids.insert(self.names.identity(id), id);
                }
                answer.target == target && answer.entered == entered
            }
            &Probe::Features { module, features } => {
                lowered.is_features(features, self.names.features_of(&lowered.path_of(module)))
            }
            Probe::Macros { module, macros } => {
                self.names.macros_in(&lowered.path_of(*module)) == macros.as_slice()
            }
            Probe::Dependency { module, krate } => {
                let tree = self.names.tree();
                tree.dependency_of(&lowered.path_of(*module))
                    .map(|(_, k)| k)
                    == krate.as_deref()
            }
            Probe::Mount { module, mount } => {
                let found = self
                    .names
                    .tree()
                    .dependency_mount(&lowered.path_of(*module));
                match (found, mount) {
                    (None, None) => true,
                    (Some(found), Some(recorded)) => {
                        found.features == recorded.0 && found.missing == recorded.1
                    }
                    _ => false,
                }
            }
            Probe::FnSource { function, digest } => {
                let found = self.names.fn_source(&lowered.path_of(*function));
                found.as_ref().map(|source| source.digest.as_str()) == digest.as_deref()
            }
            Probe::ImplSource {
                item,
                roots,
                digest,
            } => {
                // The item is the one lowered, or one a resolution before this probe found.
                let Some(&id) = ids.get(item) else {
                    return false;
                };
                let found = self.names.impl_source(id, *roots);
                found.as_ref().map(|source| source.digest.as_str()) == digest.as_deref()
            }
            &Probe::Const {
                module,
                segments,
                value,
            } => {
                let (module, segments) = (lowered.path_of(module), lowered.path_of(segments));
                self.names.const_value(&module, &segments) == value
            }
        }
    }

    /// The answer to a resolution a record asked, in this revision (the same every time: resolution
    /// depends on nothing else; kept by the question's ids, so that a record's many questions cost a
    /// lookup each).
    fn answer(&mut self, question: Question) -> Answer {
        if let Some(&answer) = self.answers.get(&question) {
            return answer;
        }
        let lowered = self.names.tree().cache.lowered();
        let (module, segments, to_border) = question;
        let (module, segments) = (lowered.path_of(module), lowered.path_of(segments));
        let found = if to_border {
            self.names.resolve_to_border(&module, &segments)
        } else {
            self.names.resolve(&module, &segments)
        };
        let answer = Answer {
            target: self.names.target(&found.target),
            id: match found.target {
                NameTarget::Type(id) => Some(id),
                NameTarget::Module(_) | NameTarget::External(_) => None,
            },
            entered: found
                .entered
                .as_deref()
                .map(|entered| lowered.path(entered)),
        };
        self.answers.insert(question, answer);
        answer
    }
}

impl Lowering<'_> {
    /// The definition of the type item `id`: a record of an earlier revision whose questions get the
    /// same answers here, replayed; else lowered (and recorded for the next revisions).
    pub(super) fn type_def(&mut self, id: usize, reached: &mut Vec<usize>) -> Arc<TypeDef> {
        let cache = self.rev.names.tree().cache;
        let lowered = cache.lowered();
        let identity = self.rev.names.identity(id);
        for record in lowered.records(identity) {
            if let Some(def) = self.replayed((identity, id), &record, reached) {
                cache.count(|stats| stats.types_reused += 1);
                lowered.use_record(identity, &record);
                return def;
            }
        }
        cache.count(|stats| stats.types_lowered += 1);
        if !cache.keeps_lowered() {
            return Arc::new(self.lower_type_def(id, reached));
        }
        let clean = !self.rev.names.has_error();
        let start = reached.len();
        self.rev.recording = Some(Recording::default());
        let def = Arc::new(self.lower_type_def(id, reached));
        let recording = self.rev.recording.take().unwrap_or_default();
        // A lowering that met a parse error is not kept: the error is the revision's to report.
        if clean && !self.rev.names.has_error() {
            let record = Lowered {
                context: self.context,
                probes: recording.probes,
                events: recording.events,
                def: Arc::clone(&def),
                reached: reached[start..]
                    .iter()
                    .map(|&id| self.rev.names.identity(id))
                    .collect(),
            };
            let record = lowered.keep(identity, record);
            lowered.use_record(identity, &record);
        }
        def
    }

    /// `record`'s definition (a record of the item `id`, whose identity is given), its events done and
    /// its reached items pushed on `reached`, when every question it asked gets the same answer in this
    /// revision, asked in the same order.
    fn replayed(
        &mut self,
        (identity, id): (Identity, usize),
        record: &Lowered,
        reached: &mut Vec<usize>,
    ) -> Option<Arc<TypeDef>> {
        if record.context != self.context {
            return None;
        }
        let mut ids: FxHashMap<Identity, usize> = FxHashMap::default();
        ids.insert(identity, id);
        for probe in &record.probes {
            if !self.rev.holds(probe, &mut ids) {
                return None;
            }
        }
        let mapped: Vec<usize> = record
            .reached
            .iter()
            .map(|identity| ids.get(identity).copied())
            .collect::<Option<_>>()?;
        for event in &record.events {
            self.rev.redo(event.clone());
        }
        reached.extend(mapped);
        Some(Arc::clone(&record.def))
    }
}
