//! Older releases whose source could not be read: the error their extraction gave, kept so that the next
//! check neither extracts such a release again (it would fail the same way) nor loses its kept comparison
//! over it (a check with one unreadable tag among its older releases would otherwise compare every model
//! again, every time).
//!
//! What fails depends on the commit, the crates and the extractor (the store's key), on what the
//! extraction depended on outside the commit (recorded, as for a release's file) and on which messages it
//! kept: the caller names that filter (`filter`), which must determine it. A release's file is
//! `releases/<commit>-<crates>.unreadable.json`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Holds, Store, read_json, write_if_read_back};
use crate::extract::ExtractError;

/// An unreadable release's file.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Unreadable {
    /// The filter the extraction kept messages with, as the caller names it.
    filter: String,
    /// What the extraction gave.
    error: ExtractError,
    /// What the extraction depended on outside the commit, up to the error (see [`Holds`]).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    inputs: serde_json::Value,
}

impl Store {
    fn unreadable_path(&self, commit: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("releases")
                .join(format!("{commit}-{}.unreadable.json", self.crates_key)),
        )
    }

    /// The error an earlier check's extraction of the release at `commit` with the filter `filter`
    /// gave, when what that extraction depended on `holds`.
    pub fn unreadable(&self, commit: &str, filter: &str, holds: Holds<'_>) -> Option<ExtractError> {
        let path = self.unreadable_path(commit)?;
        self.settled(&path);
        let kept: Unreadable = read_json(&std::fs::read(path).ok()?)?;
        if kept.filter != filter || !holds(&kept.inputs) {
            return None;
        }
        self.used_unreadable_now(commit, &kept.error);
        Some(kept.error)
    }

    /// Keeps that extracting the release at `commit` with the filter `filter` gave `error`, having
    /// depended on `inputs` so far.
    pub fn keep_unreadable(
        &self,
        commit: &str,
        filter: &str,
        error: &ExtractError,
        inputs: serde_json::Value,
    ) {
        self.used_unreadable_now(commit, error);
        let Some(path) = self.unreadable_path(commit) else {
            return;
        };
        let kept = Unreadable {
            filter: filter.to_owned(),
            error: error.clone(),
            inputs,
        };
        write_if_read_back(&path, &kept, |read: &Unreadable| *read == kept);
    }

    /// The error this process read or met extracting the release at `commit` (see
    /// [`Store::unreadable`]).
    pub fn used_unreadable(&self, commit: &str) -> Option<ExtractError> {
        self.used.borrow().unreadable.get(commit).cloned()
    }

    fn used_unreadable_now(&self, commit: &str, error: &ExtractError) {
        self.used
            .borrow_mut()
            .unreadable
            .insert(commit.to_owned(), error.clone());
    }
}
