//! `worktree/<crates>.json`: the working tree's model from the last check, with what its extraction
//! depended on (see the [store](super)'s documentation): an unchanged working tree is not extracted
//! again.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::{Holds, Store, checked, content_id, read_json};
use crate::model::digest::{self, DigestOf};
use crate::model::{Snapshot, TypeDef};

/// A model's definitions by path, hashed with each definition as its digest ([`digest`]).
struct Defs<'m>(&'m BTreeMap<String, Arc<TypeDef>>);

impl Hash for Defs<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        digest::hash_defs(
            self.0.iter().map(|(path, def)| (path.as_str(), def)),
            DigestOf::Whole,
            digest::content_digest,
            state,
        );
    }
}

impl Store {
    /// The working tree's model: from the store when what its last extraction depended on `holds`
    /// (its files, dependencies, ...), else from `extract`, and then stored (one per crates and
    /// options: the last one). The file is two lines (see `checked::WorkingHead`): what the model
    /// depended on, its id and its protocols, then the model, so that a check can tell whether the
    /// stored model holds, and which one it is, without reading the model.
    pub fn working<E>(
        &self,
        holds: Holds<'_>,
        extract: impl FnOnce() -> Result<(Snapshot, serde_json::Value), E>,
    ) -> Result<Arc<Snapshot>, E> {
        let path = self.working_path();
        if let Some(path) = &path {
            self.settled(path);
        }
        if let Some(path) = &path
            && let Ok(bytes) = std::fs::read(path)
            && let Some((head, model)) = checked::split_working(&bytes)
            && holds(&head.inputs)
            && let Some(snapshot) = read_json::<Snapshot>(model)
        {
            self.used.borrow_mut().working = Some(head.model);
            return Ok(Arc::new(snapshot));
        }
        let (snapshot, inputs) = extract()?;
        // Shared with the writer: the caller gets the model at once, and no copy is made.
        let snapshot = Arc::new(snapshot);
        if let Some(path) = path {
            // The model's id is known at once (what a kept comparison's key names); the writer
            // serializes its own copy while the caller goes on with the model.
            // Every field of the model (destructured: a field added to it must be hashed here too).
            let Snapshot {
                protocols,
                messages,
                types,
                notes,
            } = &*snapshot;
            let head = checked::WorkingHead {
                inputs,
                model: content_id(&(protocols, messages, Defs(types), notes)),
                protocols: protocols.clone(),
            };
            self.used.borrow_mut().working = Some(head.model.clone());
            let model = Arc::clone(&snapshot);
            self.queue(path, move |path| {
                debug_assert_eq!(
                    serde_json::to_vec(&*model)
                        .ok()
                        .and_then(|bytes| read_json::<Snapshot>(&bytes))
                        .as_ref(),
                    Some(&*model),
                    "the working tree's model must read back as it was written"
                );
                checked::write_working(path, &head, &model);
            });
        }
        Ok(snapshot)
    }
}
