//! The comparison of a writer schema with a reader schema, in one direction.
//!
//! [`Walk::compare`] answers: can the reader decode everything the writer can produce? Each problem is an
//! [`Issue`]: a break (some payload is rejected or misread, with a witness built from the writer's
//! schema) or a visible but compatible change. Witnesses are built bottom-up: each level replaces the
//! offending part of its own minimal payload with the witness of the level below.
//!
//! This module holds the walk's state and the perspective helpers (who writes, which rule name applies);
//! the comparisons themselves are `impl Walk` blocks in the sibling modules, one per concern.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::codec::Reading;
use super::issue::Issue;
use super::sample::Sampler;
use super::shape::{MAX_DEPTH, SideRef};
use super::wire_eq::WireEq;
use crate::Format;
use crate::findings::{Direction, Side};
use crate::model::{Location, Ty};
use crate::rules::{Evidence, RuleId};

/// The comparison of one writer schema with one reader schema.
pub struct Walk<'a> {
    pub(super) writer: SideRef<'a>,
    pub(super) reader: SideRef<'a>,
    pub(super) direction: Direction,
    /// The format has no field names or tags on the wire (bincode, postcard).
    pub(super) positional: bool,
    pub(super) postcard: bool,
    /// The format is human-readable (JSON): strings are read as bytes, readable forms are their human
    /// shape.
    pub(super) human: bool,
    /// The protocol's format, whose codec's readings ([`super::codec::Codec`]) the walk asks about.
    pub(super) format: Format,
    pub(super) wire_eq: WireEq<'a>,
    /// Pairs being compared further up: met again, they are a cycle and add nothing.
    /// (FxHash: the keys are the models' own types, and SipHash showed in a cold check's profile.)
    in_progress: FxHashSet<(Ty, Ty, bool)>,
    /// Results of pairs compared without meeting a cycle.
    memo: FxHashMap<(Ty, Ty, bool), Vec<Issue>>,
    /// The values compared are buffered by serde before they are read ([`Reading::buffered`]): inside
    /// untagged and internally tagged enums and flattened fields (a depth, as such places nest).
    buffered: u32,
    /// How many cycles were cut so far (a result that cut one depends on the stack, so is not memoized).
    cycles: u64,
    depth: usize,
}

impl<'a> Walk<'a> {
    /// A walk with `writer` writing and `reader` reading; `direction` says which of them is the old
    /// release.
    pub fn new(
        writer: SideRef<'a>,
        reader: SideRef<'a>,
        direction: Direction,
        format: Format,
    ) -> Walk<'a> {
        Walk {
            writer,
            reader,
            direction,
            positional: !format.is_self_describing(),
            postcard: format == Format::Postcard,
            human: format.is_human_readable(),
            format,
            wire_eq: WireEq::new(writer.model, reader.model),
            in_progress: FxHashSet::default(),
            memo: FxHashMap::default(),
            buffered: 0,
            cycles: 0,
            depth: 0,
        }
    }

    /// Compares the writer type `writer` with the reader type `reader`.
    pub fn compare(&mut self, writer: &Ty, reader: &Ty) -> Vec<Issue> {
        if self.depth >= MAX_DEPTH || self.wire_eq.ty(writer, reader) {
            return Vec::new();
        }
        let key = (writer.clone(), reader.clone(), self.buffered > 0);
        if self.in_progress.contains(&key) {
            self.cycles += 1;
            return Vec::new();
        }
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        self.in_progress.insert(key.clone());
        self.depth += 1;
        let cycles_before = self.cycles;
        let out = if self.positional {
            self.compare_positional(writer, reader)
        } else {
            self.compare_self_describing(writer, reader)
        };
        let mut out = self.say_why_no_witness(writer, out);
        self.name_package_versions(writer, reader, &mut out);
        self.depth -= 1;
        self.in_progress.remove(&key);
        if self.cycles == cycles_before {
            self.memo.insert(key, out.clone());
        }
        out
    }

    /// When `writer` and `reader` are a dependency's type at two versions of its package (a dependency
    /// upgrade), every issue found inside says so, naming both versions.
    fn name_package_versions(&self, writer: &Ty, reader: &Ty, issues: &mut [Issue]) {
        let package = |side: SideRef<'_>, ty: &Ty| match ty {
            Ty::Named { path, .. } => side.model.type_def(path)?.package.clone(),
            _ => None,
        };
        let (Some(written), Some(read)) =
            (package(self.writer, writer), package(self.reader, reader))
        else {
            return;
        };
        if written == read {
            return;
        }
        let (old, new) = if self.writer_is_new() {
            (read, written)
        } else {
            (written, read)
        };
        let said = format!("the dependency changed from {old} to {new}");
        for issue in issues {
            if !issue.detail.contains(&said) {
                issue.detail.push_str(&format!(" ({said})"));
            }
        }
    }

    /// How the reader meets the format's values here.
    pub(super) fn reading(&self) -> Reading {
        Reading {
            format: self.format,
            buffered: self.buffered > 0,
        }
    }

    /// Runs `compare` with the values buffered by serde (untagged and internally tagged enums, flattened
    /// fields).
    pub(super) fn buffered<T>(&mut self, compare: impl FnOnce(&mut Self) -> T) -> T {
        self.buffered += 1;
        let out = compare(self);
        self.buffered -= 1;
        out
    }

    pub(super) fn writer_is_new(&self) -> bool {
        self.direction == Direction::OldReadsNew
    }

    /// The rule named after the change seen from old to new: `if_writer_new` when the writer is the new
    /// release, `if_writer_old` otherwise.
    pub(super) fn pick_rule(&self, if_writer_new: RuleId, if_writer_old: RuleId) -> RuleId {
        if self.writer_is_new() {
            if_writer_new
        } else {
            if_writer_old
        }
    }

    /// "the new release" or "the old release", whichever writes.
    pub(super) fn writer_name(&self) -> &'static str {
        if self.writer_is_new() {
            "the new release"
        } else {
            "the old release"
        }
    }

    /// "the new release" or "the old release", whichever reads.
    pub(super) fn reader_name(&self) -> &'static str {
        if self.writer_is_new() {
            "the old release"
        } else {
            "the new release"
        }
    }

    /// The location to show: the new release's if known, else the old one's.
    pub(super) fn location(
        &self,
        writer: Option<&Location>,
        reader: Option<&Location>,
    ) -> Option<(Location, Side)> {
        let writer = writer.map(|l| (l.clone(), self.writer.side));
        let reader = reader.map(|l| (l.clone(), self.reader.side));
        if self.writer.side == Side::New {
            writer.or(reader)
        } else {
            reader.or(writer)
        }
    }

    /// Of a writer's part and a reader's part of a change, the one of the new release (or the other).
    pub(super) fn new_side_first<'t, T>(
        &self,
        writer: Option<&'t T>,
        reader: Option<&'t T>,
    ) -> Option<&'t T> {
        if self.writer_is_new() {
            writer.or(reader)
        } else {
            reader.or(writer)
        }
    }

    /// Breaks found for the writer's `ty` that have no witness because a type inside it has no known
    /// shape: the issue names that type (deeper levels have named it already).
    fn say_why_no_witness(&self, ty: &Ty, mut issues: Vec<Issue>) -> Vec<Issue> {
        // Rules whose evidence is opaque have no witness by nature: nothing to explain.
        // An issue whose words say already why it has no witness is explained.
        let unexplained = |i: &Issue| {
            i.breaks
                && i.rule.rule().evidence != Evidence::Opaque
                && i.witness.is_none()
                && i.no_witness.is_none()
                && !i.detail.contains("(no witness: ")
        };
        if !issues.iter().any(unexplained) {
            return issues;
        }
        let mut sampler = Sampler::new(self.writer);
        if sampler.value(ty, false).is_some() {
            return issues;
        }
        let Some(unknown) = sampler.unknown() else {
            return issues;
        };
        for issue in issues.iter_mut().filter(|i| unexplained(i)) {
            issue.no_witness = Some(unknown.to_owned());
        }
        issues
    }

    /// A sample value of the writer's `ty`: minimal, or `full` (options and collections filled in).
    pub(super) fn sample(&self, ty: &Ty, full: bool) -> Option<Value> {
        Sampler::new(self.writer).value(ty, full)
    }
}
