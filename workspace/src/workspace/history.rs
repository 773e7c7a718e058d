//! The working tree and the releases one run reads, through one source cache and the store.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::recorded::{Inputs, Recorder};
use super::{Progress, Workspace, WorkspaceError, revision_error};
use crate::extract::{EarlyReadAhead, FileReader as _, FileScans, Keep, SourceCache};
use crate::model::{ProtocolDecl, Snapshot};
use crate::source::{GitRevision, Release, Repo, SourceError, WorkTree};
use crate::store::{ReleaseParts, ReleaseSummary, Store, Unseen, WorkingSummary};

/// The revisions of a workspace that one run reads: the working tree and release commits. Files unchanged
/// between them are read and parsed once (one [`SourceCache`]); what is extracted at a release is kept
/// in the [store](crate::store) for the next run; each commit's tree is opened once, for extraction and
/// for the source text the reports show.
pub struct History<'w> {
    workspace: &'w Workspace,
    repo: &'w Repo,
    store: Store,
    cache: SourceCache,
    /// The working tree, through the repository's index.
    work_tree: WorkTree,
    trees: RefCell<HashMap<String, Rc<GitRevision<'w>>>>,
}

impl<'w> History<'w> {
    /// The history of `workspace` in `repo`; with `no_store`, every release is extracted again and
    /// nothing is kept on disk.
    pub fn new(workspace: &'w Workspace, repo: &'w Repo, no_store: bool) -> Self {
        let store = if no_store {
            Store::disabled()
        } else {
            Store::open_with(
                &workspace.target_dir,
                repo.workspace_prefix(),
                &workspace.crates,
                &workspace.options.key(),
            )
        };
        History {
            workspace,
            repo,
            store,
            cache: SourceCache::new(),
            work_tree: WorkTree::with_index(&workspace.root, repo),
            trees: RefCell::default(),
        }
    }

    /// Offers the working tree's extraction a read-ahead started before the crates were known (see
    /// [`SourceCache::offer_read_ahead`]).
    pub fn offer_read_ahead(&self, early: EarlyReadAhead) {
        self.cache.offer_read_ahead(early);
    }

    /// Leaves what the source cache holds to the operating system (see `SourceCache::leave_to_exit`).
    pub fn leave_to_exit(&self) {
        self.cache.leave_to_exit();
    }

    /// What the source cache did so far.
    #[cfg(test)]
    pub fn cache_stats(&self) -> crate::extract::CacheStats {
        self.cache.stats()
    }

    /// Whether the extractions of this check keep what they lower for the next revisions to reuse
    /// (see [`SourceCache::keep_lowered`]): not when the working tree is the only one extracted.
    pub fn keep_lowered(&self, keep: bool) {
        self.cache.keep_lowered(keep);
    }

    /// The store this run reads and writes (disabled with `--no-cache`).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The workspace read.
    pub fn workspace(&self) -> &'w Workspace {
        self.workspace
    }

    /// The workspace's repository.
    pub fn repo(&self) -> &'w Repo {
        self.repo
    }

    /// The working tree's model: from the store when nothing it depended on changed (see
    /// `Inputs`), else extracted, recording what it depends on.
    pub fn current(&self) -> Result<Arc<Snapshot>, WorkspaceError> {
        self.store.working(&|recorded| self.holds(recorded), || {
            let known = self.know_scans();
            self.know_lowering();
            let recorder = Recorder::default();
            let reader = recorder.work_tree(&self.work_tree);
            let snapshot = (self.workspace)
                .extract(&reader, &self.cache, None, Some(&recorder))
                .map_err(WorkspaceError::Current)?;
            let inputs = recorder.inputs();
            self.keep_scans(&inputs, known);
            if self.store.is_enabled() {
                self.store
                    .keep_lowered(self.cache.kept_lowering(inputs.blob_ids()));
            }
            Ok((snapshot, serde_json::to_value(inputs).unwrap_or_default()))
        })
    }

    /// Gives the source cache the scans of the working tree's files that the store kept (see
    /// [`FileScans`]), and says which.
    fn know_scans(&self) -> Option<FileScans> {
        let scans = self.store.scans()?;
        self.cache.know_scans(self.repo.objects()?, &scans);
        Some(scans)
    }

    /// Gives the source cache the lowering records and declarations the store kept (see
    /// [`KeptLowering`](crate::extract::KeptLowering)), and starts noting which the extraction uses.
    fn know_lowering(&self) {
        self.cache.forget_used();
        if let Some(kept) = self.store.lowered() {
            self.cache.know_lowering(kept);
        }
    }

    /// Keeps the scans of the working tree's files an extraction with `inputs` looked at, unless they
    /// are the ones the store gave (`known`).
    fn keep_scans(&self, inputs: &Inputs, known: Option<FileScans>) {
        if !self.store.is_enabled() {
            return;
        }
        let scans = self.cache.scans_of(inputs.blob_ids());
        if known.as_ref() != Some(&scans) {
            self.store.keep_scans(scans);
        }
    }

    /// The working tree's model as the store holds it, named without reading it, when nothing it
    /// depended on changed (what [`History::current`] would then read).
    pub fn current_summary(&self) -> Option<WorkingSummary> {
        self.store.working_summary(&|recorded| self.holds(recorded))
    }

    /// The release at `commit` as the store holds it, without reading its parts, when
    /// [`History::release`] (`keep`: `None`) or [`History::release_parts`] would read it from there.
    pub fn release_summary(
        &self,
        commit: &str,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
    ) -> Option<ReleaseSummary> {
        self.store
            .release_summary(commit, keep, &|recorded| self.holds(recorded))
    }

    /// Whether the inputs recorded with a stored model (JSON) still hold.
    fn holds(&self, recorded: &serde_json::Value) -> bool {
        serde_json::from_value::<Inputs>(recorded.clone())
            .is_ok_and(|inputs| inputs.hold(&self.work_tree, &*self.workspace.locator))
    }

    /// The whole model of the release at `commit` (named `rev`): from the store, else extracted.
    pub fn release(&self, commit: &str, rev: &str) -> Result<Arc<Snapshot>, WorkspaceError> {
        let holds = |recorded: &serde_json::Value| self.holds(recorded);
        self.store.whole_with(commit, &holds, || {
            let tree = self.tree(commit)?;
            let recorder = Recorder::default();
            let snapshot = (self.workspace)
                .extract(&*tree, &self.cache, None, Some(&recorder))
                .map_err(|error| revision_error(rev, error))?;
            Ok((snapshot, inputs_json(&recorder)))
        })
    }

    /// The protocols of the release at `commit` (named `rev`) that `unseen` accepts, each with the
    /// messages `keep` asks for (see [`Store::parts`]), and the declarations of all its protocols: from
    /// the store, else extracted with `keep`.
    /// `filter` names `keep` (it must determine it): a release whose extraction with that filter failed
    /// at an earlier check fails again at once, with the same error (see [`History::release_unreadable`]).
    pub fn release_parts(
        &self,
        commit: &str,
        rev: &str,
        (keep, filter): (&dyn Fn(&ProtocolDecl) -> Keep, &str),
        unseen: Unseen<'_>,
    ) -> Result<ReleaseParts, WorkspaceError> {
        if let Some(error) = self.release_unreadable(commit, filter) {
            return Err(revision_error(rev, error));
        }
        let holds = |recorded: &serde_json::Value| self.holds(recorded);
        self.store.parts_with(commit, keep, unseen, &holds, || {
            let tree = self.tree(commit)?;
            let recorder = Recorder::default();
            let snapshot = (self.workspace)
                .extract(&*tree, &self.cache, Some(keep), Some(&recorder))
                .map_err(|error| {
                    let inputs = inputs_json(&recorder);
                    self.store.keep_unreadable(commit, filter, &error, inputs);
                    revision_error(rev, error)
                })?;
            Ok((snapshot, inputs_json(&recorder)))
        })
    }

    /// The error an earlier check met extracting the release at `commit` with the filter `filter` (see
    /// [`History::release_parts`]), when what that extraction depended on still holds.
    pub fn release_unreadable(
        &self,
        commit: &str,
        filter: &str,
    ) -> Option<crate::extract::ExtractError> {
        self.store
            .unreadable(commit, filter, &|recorded| self.holds(recorded))
    }

    /// The bytes of the working tree's file at `path` (relative to the workspace root), if it can be read.
    pub fn working_file(&self, path: &str) -> Option<Vec<u8>> {
        self.work_tree.read(path).ok().flatten()
    }

    /// The bytes of the file at `path` (relative to the workspace root) in `commit`, if it has one.
    pub fn file_at(&self, commit: &str, path: &str) -> Option<Vec<u8>> {
        self.tree(commit).ok()?.read(path).ok().flatten()
    }

    /// The tree of `commit`, opened once per run.
    fn tree(&self, commit: &str) -> Result<Rc<GitRevision<'w>>, SourceError> {
        if let Some(tree) = self.trees.borrow().get(commit) {
            return Ok(Rc::clone(tree));
        }
        let tree = Rc::new(self.repo.at(commit)?);
        self.trees
            .borrow_mut()
            .insert(commit.to_owned(), Rc::clone(&tree));
        Ok(tree)
    }
}

/// What `recorder` recorded, as the store keeps it.
fn inputs_json(recorder: &Recorder) -> serde_json::Value {
    serde_json::to_value(recorder.inputs()).unwrap_or_default()
}

/// Reads each of `releases` (in order) with `read`, telling `progress`. A release that `read` fails on is
/// left out of the result, and `progress` is told why: the others still make a result.
pub fn read_releases<'r, T>(
    releases: &'r [Release],
    progress: &mut dyn Progress,
    mut read: impl FnMut(&Release) -> Result<T, WorkspaceError>,
) -> Vec<(&'r Release, T)> {
    progress.reading_releases(releases.len());
    let mut read_ones = Vec::with_capacity(releases.len());
    for release in releases {
        progress.reading_release(&release.tag);
        match read(release) {
            Ok(value) => read_ones.push((release, value)),
            Err(error) => progress.release_skipped(&release.tag, &error),
        }
    }
    progress.releases_read();
    read_ones
}
