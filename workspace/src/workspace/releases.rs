//! Which release tags a run reads: release tags are the tags matching a glob (`v*`) whose name holds a
//! version, pre-releases skipped, ordered by version. Tags that match but hold no version are named to
//! the caller's [`Progress`].

use super::{Progress, WorkspaceError};
use crate::baseline::{Baseline, BaselineChoice};
use crate::source::{Release, Repo, SourceError};

/// The tag glob when none is given.
const DEFAULT_TAG_PATTERN: &str = "v*";

/// `pattern`, or `v*` when it is empty.
pub fn tag_pattern(pattern: &str) -> &str {
    if pattern.is_empty() {
        DEFAULT_TAG_PATTERN
    } else {
        pattern
    }
}

/// What the user asked of the baseline.
#[derive(Debug, Clone, Copy, Default)]
pub struct BaselineRequest<'a> {
    /// The revision named with `--against`, if any.
    pub against: Option<&'a str>,
    /// The release tag glob (`v*` when empty).
    pub tag_pattern: &'a str,
    /// Compare with the baseline alone, not with the older releases (`--baseline-only`).
    pub baseline_only: bool,
    /// No release yet: compare with nothing (`--first-release`).
    pub first_release: bool,
}

/// The releases a check reads: the baseline it compares against, and the older releases (oldest first)
/// whose peers may still talk to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedReleases {
    /// The revision the check compares against.
    pub baseline: Baseline,
    /// The release tags before the baseline (ancestors of its commit), oldest first.
    pub older: Vec<Release>,
}

impl CheckedReleases {
    /// The baseline `request.against` (a revision the user named), else the last release tag matching
    /// the pattern that is an ancestor of HEAD, or the one before it when HEAD is itself that release;
    /// and the release tags before it. Tags that match the pattern but hold no version are named to
    /// `progress`. A shallow clone whose history stops at or before the baseline is an error unless
    /// `request.baseline_only`: the older releases it lacks would go unchecked without a word.
    pub fn select(
        repo: &Repo,
        request: &BaselineRequest<'_>,
        progress: &mut dyn Progress,
    ) -> Result<CheckedReleases, WorkspaceError> {
        let pattern = self::tag_pattern(request.tag_pattern);
        let unversioned = repo.tags_without_version(pattern)?;
        if !unversioned.is_empty() {
            progress.tags_without_version(pattern, &unversioned);
        }
        let selected = match request.against {
            Some(rev) => Self::against(repo, rev, pattern)?,
            None => Self::last_release(repo, pattern)?,
        };
        let Some(mut found) = selected else {
            // A shallow clone may lack release tags it did not fetch: no first release there.
            return if !request.first_release || repo.is_shallow() {
                Err(SourceError::NoReleaseTag {
                    pattern: pattern.to_owned(),
                    shallow: repo.is_shallow(),
                }
                .into())
            } else {
                Ok(CheckedReleases {
                    baseline: Baseline::first_release(),
                    older: Vec::new(),
                })
            };
        };
        if request.first_release {
            // HEAD at the first release tag (a tag push): still the first release.
            let head_is_first_release =
                found.baseline.head_release.as_ref() == Some(&found.baseline.rev);
            return if head_is_first_release {
                Ok(CheckedReleases {
                    baseline: Baseline::first_release(),
                    older: Vec::new(),
                })
            } else {
                Err(WorkspaceError::AlreadyReleased {
                    rev: found.baseline.rev,
                })
            };
        }
        if request.baseline_only {
            found.baseline.baseline_only = true;
            found.older.clear();
        } else {
            found.refuse_cut_history(repo, pattern)?;
        }
        Ok(found)
    }

    /// The revision `rev` named with `--against`, and the release tags before it.
    fn against(repo: &Repo, rev: &str, pattern: &str) -> Result<Option<Self>, WorkspaceError> {
        let commit = repo.resolve(rev)?;
        let older = repo
            .releases(pattern, Some(&commit))?
            .into_iter()
            .filter(|r| r.commit != commit)
            .collect();
        Ok(Some(CheckedReleases {
            baseline: Baseline::new(rev, commit, BaselineChoice::Against),
            older,
        }))
    }

    /// The last release tag that is HEAD or an ancestor of it, and the ones before it; `None` when there
    /// is none. When HEAD is a release and the working tree has no change on top of it (CI on a tag
    /// push), the working tree is that release: the baseline is the one before it.
    fn last_release(repo: &Repo, pattern: &str) -> Result<Option<Self>, WorkspaceError> {
        let head = repo.head_commit()?;
        let releases = repo.releases(pattern, None)?;
        let head_is_release = releases.iter().any(|r| r.commit == head);
        let (at_head, mut older): (Vec<Release>, Vec<Release>) =
            if head_is_release && repo.workspace_matches_head() {
                releases.into_iter().partition(|r| r.commit == head)
            } else {
                (Vec::new(), releases)
            };
        let head_release = at_head.last().map(|r| r.tag.clone());
        let (last, chosen) = match (older.pop(), at_head.last()) {
            (Some(last), Some(_)) => (last, BaselineChoice::PreviousRelease),
            (Some(last), None) => (last, BaselineChoice::LastRelease),
            // HEAD is the first release: it has nothing before it to stay compatible with, and is
            // compared with itself (the report says so).
            (None, Some(only)) => (only.clone(), BaselineChoice::LastRelease),
            (None, None) => return Ok(None),
        };
        let mut baseline = Baseline::new(last.tag, last.commit, chosen);
        baseline.head_release = head_release;
        Ok(Some(CheckedReleases { baseline, older }))
    }

    /// An error when a shallow clone cuts the history at or before the baseline: the older releases
    /// (named when their tags are here) cannot be read, and the check would pass over them unsaid.
    fn refuse_cut_history(&self, repo: &Repo, pattern: &str) -> Result<(), WorkspaceError> {
        if !repo.history_cut_before(&self.baseline.commit) {
            return Ok(());
        }
        let baseline_version = crate::source::tag_version(&self.baseline.rev);
        let unread: Vec<String> = repo
            .release_tag_names(pattern)?
            .into_iter()
            .filter(|(_, version)| baseline_version.as_ref().is_none_or(|b| version < b))
            .map(|(tag, _)| tag)
            .filter(|tag| *tag != self.baseline.rev && !self.older.iter().any(|r| r.tag == *tag))
            .collect();
        Err(WorkspaceError::ShallowOlderReleases {
            baseline: self.baseline.rev.clone(),
            unread,
        })
    }

    /// The commit of the revision named `rev` (the baseline's name or an older release's tag): where the
    /// files of findings against it are read.
    pub fn commit_of(&self, rev: &str) -> Option<&str> {
        self.older
            .iter()
            .rev()
            .find(|r| r.tag == rev)
            .map(|r| r.commit.as_str())
            .or_else(|| (self.baseline.rev == rev).then_some(self.baseline.commit.as_str()))
    }
}

/// The last `count` release tags matching `tag_pattern` that are ancestors of HEAD, oldest first. Tags
/// that match the pattern but hold no version are named to `progress`.
pub fn last_releases(
    repo: &Repo,
    tag_pattern: &str,
    count: usize,
    progress: &mut dyn Progress,
) -> Result<Vec<Release>, WorkspaceError> {
    let pattern = self::tag_pattern(tag_pattern);
    let mut releases = repo.releases(pattern, None)?;
    let unversioned = repo.tags_without_version(pattern)?;
    if !unversioned.is_empty() {
        progress.tags_without_version(pattern, &unversioned);
    }
    let skip = releases.len().saturating_sub(count);
    releases.drain(..skip);
    Ok(releases)
}
