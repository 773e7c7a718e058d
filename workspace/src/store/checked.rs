//! A whole check kept in the store: what a check's comparison step gave (each protocol's findings and the
//! extraction's notes), under a key that names every model it compared by identity, so that a check
//! whose inputs did not change reads its result back without reading (or even opening) any model.
//!
//! The identities come from files the store keeps anyway, without reading a model:
//!
//! - the working tree's: the id of its stored model, on the first line of `worktree/<crates>.json`
//!   ([`WorkingHead`]), next to what the model depended on (so whether it still holds is told from that
//!   line alone);
//! - a release's: its file under `releases/`, without its parts ([`ReleaseSummary`]: per protocol the
//!   declaration, which messages its part keeps and the part's id, which names its content; and the
//!   extraction's notes).
//!
//! A check that compared the models itself keys its result by what it actually read ([`Used`]: recorded
//! as the store served or wrote each model), never by what the store holds afterwards, which another
//! check running at the same time may have replaced. The file is `checked/<crates>.json`: the last
//! check's result of these crates and options, with its key.

use std::collections::HashMap;
use std::hash::Hash;
use std::io::{BufRead as _, Write as _};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{
    Entry, Holds, Store, content_id, covers, read_json, write_atomically_with, write_if_read_back,
};
use crate::extract::Keep;
use crate::model::{ExtractNote, ProtocolDecl, Snapshot};

/// The first line of the working tree's file: what the model on the second line depended on, its id
/// (the [`content_id`] of its content) and its protocols.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct WorkingHead {
    /// What the extraction depended on (see [`Holds`]).
    pub inputs: serde_json::Value,
    /// The model's id.
    pub model: String,
    /// The model's protocols.
    pub protocols: Vec<ProtocolDecl>,
}

/// Writes the working tree's file at `path`: `head` on the first line, `model` on the second, as
/// [`write_atomically_with`] writes (whole or not at all).
pub(super) fn write_working(path: &Path, head: &WorkingHead, model: &Snapshot) -> bool {
    write_atomically_with(path, |file| {
        serde_json::to_writer(&mut *file, head)?;
        file.write_all(b"\n")?;
        Ok(serde_json::to_writer(file, model)?)
    })
}

/// The working tree's file split into its head, read, and its model's bytes (`None`: not two lines, or
/// a head this build does not write).
pub(super) fn split_working(bytes: &[u8]) -> Option<(WorkingHead, &[u8])> {
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let head = read_json(&bytes[..newline])?;
    Some((head, &bytes[newline + 1..]))
}

/// The working tree's stored model, named without reading it: what a check's key needs of it.
#[derive(Debug, Clone)]
pub struct WorkingSummary {
    /// The model's id.
    pub model: String,
    /// Its protocols.
    pub protocols: Vec<ProtocolDecl>,
}

/// A release as the store holds it, without its parts: per protocol its declaration, which messages its
/// part keeps, the part's id (which names the part's content) and its shape when known, and the
/// extraction's notes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReleaseSummary {
    protocols: Vec<StoredProtocol>,
    notes: Vec<ExtractNote>,
}

/// One protocol of a [`ReleaseSummary`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoredProtocol {
    /// Its declaration.
    pub decl: ProtocolDecl,
    /// Which messages its part keeps.
    pub keep: Keep,
    /// Its part's id.
    pub part: String,
    /// Its part's shape (see [`super::Part::shape`]), when the release's file knows it.
    pub shape: Option<String>,
}

impl ReleaseSummary {
    /// The summary of a release's file.
    pub(super) fn of(entry: &Entry) -> ReleaseSummary {
        ReleaseSummary {
            protocols: entry
                .protocols
                .iter()
                .map(|p| StoredProtocol {
                    decl: p.decl.clone(),
                    keep: p.keep,
                    part: p.part.clone(),
                    shape: p.shape.clone(),
                })
                .collect(),
            notes: entry.notes.clone(),
        }
    }

    /// The release's protocols.
    pub fn protocols(&self) -> impl Iterator<Item = &ProtocolDecl> {
        self.protocols.iter().map(|p| &p.decl)
    }

    /// The release's protocols, as stored.
    pub fn stored(&self) -> &[StoredProtocol] {
        &self.protocols
    }

    /// The notes of the release's extraction.
    pub fn notes(&self) -> &[ExtractNote] {
        &self.notes
    }
}

/// What this process read or wrote of each model, as the store served it.
#[derive(Debug, Default)]
pub(super) struct Used {
    /// Each release's, by commit.
    pub releases: HashMap<String, ReleaseSummary>,
    /// The working tree's model id.
    pub working: Option<String>,
    /// The error of each older release that could not be read, by commit (see
    /// [`Store::unreadable`]).
    pub unreadable: HashMap<String, crate::extract::ExtractError>,
}

/// The file of a kept check: its key and its result.
#[derive(Serialize, Deserialize)]
struct Kept<T> {
    key: String,
    value: T,
}

impl Store {
    /// The working tree's stored model, named, when what it depended on `holds`; its model is not read.
    pub fn working_summary(&self, holds: Holds<'_>) -> Option<WorkingSummary> {
        let path = self.working_path()?;
        self.settled(&path);
        let file = std::fs::File::open(path).ok()?;
        let mut line = Vec::new();
        std::io::BufReader::new(file)
            .read_until(b'\n', &mut line)
            .ok()?;
        let head: WorkingHead = read_json(line.strip_suffix(b"\n")?)?;
        holds(&head.inputs).then_some(WorkingSummary {
            model: head.model,
            protocols: head.protocols,
        })
    }

    /// The release at `commit` as the store holds it, without reading its parts, when what its
    /// extraction depended on `holds` and its parts keep what `keep` asks of each protocol (`None`: a
    /// full extraction, every message): exactly when [`Store::whole_with`] or [`Store::parts_with`]
    /// would serve it from the store.
    pub fn release_summary(
        &self,
        commit: &str,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
        holds: Holds<'_>,
    ) -> Option<ReleaseSummary> {
        let path = self.entry_path(commit)?;
        self.settled(&path);
        let entry: Entry = read_json(&std::fs::read(path).ok()?)?;
        let served = !(entry.filtered && keep.is_none())
            && holds(&entry.inputs)
            && entry
                .protocols
                .iter()
                .all(|p| covers(p.keep, keep.map_or(Keep::All, |k| k(&p.decl))));
        served.then(|| ReleaseSummary::of(&entry))
    }

    /// What this process read or wrote of the release at `commit` (see [`Store::release_summary`]).
    pub fn used_release(&self, commit: &str) -> Option<ReleaseSummary> {
        self.used.borrow().releases.get(commit).cloned()
    }

    /// Records that this process read the release at `commit` as `summary` (its parts as far as it
    /// needed them): what a [kept check](Store::keep_checked)'s key names.
    pub fn use_release(&self, commit: &str, summary: &ReleaseSummary) {
        self.used
            .borrow_mut()
            .releases
            .insert(commit.to_owned(), summary.clone());
    }

    /// The id of the working tree's model this process read or wrote.
    pub fn used_working(&self) -> Option<String> {
        self.used.borrow().working.clone()
    }

    /// The check kept under `key` (see the module documentation), if the last one kept for these crates
    /// and options had that key.
    pub fn checked<T: DeserializeOwned>(&self, key: &(impl Hash + ?Sized)) -> Option<T> {
        let kept: Kept<T> = read_json(&std::fs::read(self.checked_path()?).ok()?)?;
        (kept.key == content_id(key)).then_some(kept.value)
    }

    /// Keeps `value` as the check of `key`, replacing the one kept before; not when it would not read
    /// back as it is (JSON's numbers).
    pub fn keep_checked<T: Serialize + DeserializeOwned + PartialEq>(
        &self,
        key: &(impl Hash + ?Sized),
        value: &T,
    ) {
        if let Some(path) = self.checked_path() {
            let kept = Kept {
                key: content_id(key),
                value,
            };
            write_if_read_back(&path, &kept, |read: &Kept<T>| read.value == *value);
        }
    }

    fn checked_path(&self) -> Option<std::path::PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("checked")
                .join(format!("{}.json", self.crates_key)),
        )
    }
}
