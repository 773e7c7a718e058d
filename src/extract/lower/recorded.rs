//! A type item's lowering, recorded for the next revisions of the check and replayed where it fits
//! (see `extract::reuse`): every question the lowering asks of the revision goes through the methods
//! here, which note it with its answer while a lowering is recorded, and so does everything it does
//! besides building the definition.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::super::ExtractError;
use super::super::names::NameTarget;
use super::super::reuse::{Event, Identity, Lowered, PathId, Probe, Target};
use super::Lowering;
use crate::model::{ExtractNote, TypeDef};

/// A resolution a record asked: the module, the path and whether it stops at a dependency's border.
pub(super) type Question = (PathId, PathId, bool);

/// A resolution's answer in this revision: its target, the type item's id when it is one, and where
/// it entered a dependency.
#[derive(Clone, Copy)]
pub(super) struct Answer {
    target: Target,
    id: Option<usize>,
    entered: Option<PathId>,
}

/// What the lowering of one type item asked and did so far.
#[derive(Default)]
pub(super) struct Recording {
    probes: Vec<Probe>,
    events: Vec<Event>,
}

impl Lowering<'_> {
    /// The definition of the type item `id`: a record of an earlier revision whose questions get the
    /// same answers here, replayed; else lowered (and recorded for the next revisions).
    pub(super) fn type_def(&mut self, id: usize, reached: &mut Vec<usize>) -> Arc<TypeDef> {
        let cache = self.names.tree().cache;
        let lowered = cache.lowered();
        let identity = self.names.identity(id);
        for record in lowered.records(identity) {
            if let Some(def) = self.replayed(&record, reached) {
                cache.count(|stats| stats.types_reused += 1);
                lowered.use_record(identity, &record);
                return def;
            }
        }
        cache.count(|stats| stats.types_lowered += 1);
        if !cache.keeps_lowered() {
            return Arc::new(self.lower_type_def(id, reached));
        }
        let clean = !self.names.has_error();
        let start = reached.len();
        self.recording = Some(Recording::default());
        let def = Arc::new(self.lower_type_def(id, reached));
        let recording = self.recording.take().unwrap_or_default();
        // A lowering that met a parse error is not kept: the error is the revision's to report.
        if clean && !self.names.has_error() {
            let record = Lowered {
                context: self.context,
                probes: recording.probes,
                events: recording.events,
                def: Arc::clone(&def),
                reached: reached[start..]
                    .iter()
                    .map(|&id| self.names.identity(id))
                    .collect(),
            };
            let record = lowered.keep(identity, record);
            lowered.use_record(identity, &record);
        }
        def
    }

    /// `record`'s definition, its events done and its reached items pushed on `reached`, when every
    /// question it asked gets the same answer in this revision, asked in the same order.
    fn replayed(&mut self, record: &Lowered, reached: &mut Vec<usize>) -> Option<Arc<TypeDef>> {
        if record.context != self.context {
            return None;
        }
        let mut ids: FxHashMap<Identity, usize> = FxHashMap::default();
        for probe in &record.probes {
            if !self.holds(probe, &mut ids) {
                return None;
            }
        }
        let mapped: Vec<usize> = record
            .reached
            .iter()
            .map(|identity| ids.get(identity).copied())
            .collect::<Option<_>>()?;
        for event in &record.events {
            self.redo(event.clone());
        }
        reached.extend(mapped);
        Some(Arc::clone(&record.def))
    }

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
            target: self.names.target(&found),
            id: match found {
                NameTarget::Type(id) => Some(id),
                NameTarget::Module(_) | NameTarget::External(_) => None,
            },
            entered: self.names.entered().map(|entered| lowered.path(entered)),
        };
        self.answers.insert(question, answer);
        answer
    }

    /// Does `event` again, as the lowering did.
    fn redo(&mut self, event: Event) {
        match event {
            Event::Note(note) => self.push_note(note),
            Event::NoteUnlessNoted(note) => self.push_note_unless_noted(note),
            Event::NoteOnce(note) => self.push_note_once(note),
            Event::KnownDefs(defs) => self.add_known_defs(defs),
            Event::UnknownRule(error) => self.note_unknown_rule(error),
        }
    }

    fn probe(&mut self, probe: impl FnOnce(&Self) -> Probe) {
        if self.recording.is_some() {
            let probe = probe(self);
            if let Some(recording) = &mut self.recording {
                recording.probes.push(probe);
            }
        }
    }

    fn event(&mut self, event: impl FnOnce() -> Event) {
        if let Some(recording) = &mut self.recording {
            recording.events.push(event());
        }
    }

    /// What a path written in `module` names.
    pub(super) fn resolve(&mut self, module: &[String], segments: &[String]) -> NameTarget {
        let found = self.names.resolve(module, segments);
        self.probe_resolve(module, segments, false, &found);
        found
    }

    /// [`Lowering::resolve`], stopping where the path enters a dependency (see
    /// `Names::resolve_to_border`).
    pub(super) fn resolve_to_border(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> NameTarget {
        let found = self.names.resolve_to_border(module, segments);
        self.probe_resolve(module, segments, true, &found);
        found
    }

    fn probe_resolve(
        &mut self,
        module: &[String],
        segments: &[String],
        to_border: bool,
        found: &NameTarget,
    ) {
        let Some(recording) = &self.recording else {
            return;
        };
        let lowered = self.names.tree().cache.lowered();
        let (module, segments) = (lowered.path(module), lowered.path(segments));
        // Resolution is memoized: the same question in the same revision has the same answer.
        let asked = recording.probes.iter().any(|probe| {
            matches!(probe, Probe::Resolve { module: m, segments: s, to_border: b, .. }
                if (*m, *s, *b) == (module, segments, to_border))
        });
        if !asked {
            self.probe(|this| Probe::Resolve {
                module,
                segments,
                to_border,
                target: this.names.target(found),
                entered: this.names.entered().map(|entered| lowered.path(entered)),
            });
        }
    }

    /// The features the crate of the module at `module` is built with.
    pub(super) fn features_of(&mut self, module: &[String]) -> &BTreeSet<String> {
        if self.recording.is_some() {
            let lowered = self.names.tree().cache.lowered();
            let module = lowered.path(module);
            let asked = self.recording.as_ref().is_some_and(|recording| {
                recording.probes.iter().any(
                    |probe| matches!(probe, Probe::Features { module: asked, .. } if *asked == module),
                )
            });
            if !asked {
                self.probe(|this| Probe::Features {
                    module,
                    features: lowered.features(this.names.features_of(&lowered.path_of(module))),
                });
            }
        }
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
    pub(super) fn dependency_of(
        &mut self,
        module: &[String],
    ) -> Option<crate::extract::ExternalCrate> {
        let krate = self
            .names
            .tree()
            .dependency_of(module)
            .map(|(_, k)| k.clone());
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

    /// Keeps the error of an `allow` that names no rule, unless one is kept already.
    pub(super) fn note_unknown_rule(&mut self, error: ExtractError) {
        self.event(|| Event::UnknownRule(error.clone()));
        if self.unknown_rule_id.is_none() {
            self.unknown_rule_id = Some(error);
        }
    }
}
