//! `compared/<id>.json`: one protocol's comparison, named by the hash of everything it read (see the
//! [store](super)'s documentation), so that a check compares again only the protocols whose inputs
//! changed.

use std::hash::Hash;
use std::path::PathBuf;

use serde::Serialize;

use super::{Store, content_id, read_json, write_if_read_back};

/// What the store keeps of one protocol's comparison: plain data that reads back as written, and
/// names the protocol it compared (a kept file of another protocol is not taken). The driver's
/// result type implements it; the store knows nothing else of it.
pub trait Comparison: Serialize + serde::de::DeserializeOwned + PartialEq {
    /// The name of the protocol compared.
    fn protocol(&self) -> &str;
}

impl Store {
    /// The comparison of one protocol (named `name`) whose inputs are `reads`: from the store when an
    /// earlier check kept the comparison of the same inputs, else from `compare`, and then stored under
    /// the content id (`content_id`) of `reads`. `reads` must hold everything the comparison reads (the
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
}
