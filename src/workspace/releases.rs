//! Which release tags a run reads: release tags are the tags matching a glob (`v*`) whose name holds a
//! version, pre-releases skipped, ordered by version.

use super::WorkspaceError;
use crate::outcome::Baseline;
use crate::source::{Release, Repo, SourceError};

/// The tag glob when none is given.
const DEFAULT_TAG_PATTERN: &str = "v*";

/// `pattern`, or `v*` when it is empty.
pub(crate) fn tag_pattern(pattern: &str) -> &str {
    if pattern.is_empty() {
        DEFAULT_TAG_PATTERN
    } else {
        pattern
    }
}

/// The releases a check reads: the baseline it compares against, and the older releases (oldest first)
/// whose peers may still talk to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckedReleases {
    /// The revision the check compares against.
    pub(crate) baseline: Baseline,
    /// The release tags before the baseline (ancestors of its commit), oldest first.
    pub(crate) older: Vec<Release>,
}

impl CheckedReleases {
    /// The baseline `against` (a revision the user named), else the last release tag matching
    /// `tag_pattern` that is an ancestor of HEAD; and the release tags before it.
    pub(crate) fn select(
        repo: &Repo,
        against: Option<&str>,
        tag_pattern: &str,
    ) -> Result<CheckedReleases, WorkspaceError> {
        let pattern = self::tag_pattern(tag_pattern);
        match against {
            Some(rev) => {
                let commit = repo.resolve(rev)?;
                let older = repo
                    .releases(pattern, Some(&commit))?
                    .into_iter()
                    .filter(|r| r.commit != commit)
                    .collect();
                Ok(CheckedReleases {
                    baseline: Baseline {
                        rev: rev.to_owned(),
                        commit,
                    },
                    older,
                })
            }
            None => {
                let mut older = repo.releases(pattern, None)?;
                let Some(last) = older.pop() else {
                    return Err(SourceError::NoReleaseTag {
                        pattern: pattern.to_owned(),
                        shallow: repo.is_shallow(),
                    }
                    .into());
                };
                Ok(CheckedReleases {
                    baseline: Baseline {
                        rev: last.tag,
                        commit: last.commit,
                    },
                    older,
                })
            }
        }
    }

    /// The commit of the revision named `rev` (the baseline's name or an older release's tag): where the
    /// files of findings against it are read.
    pub(crate) fn commit_of(&self, rev: &str) -> Option<&str> {
        self.older
            .iter()
            .rev()
            .find(|r| r.tag == rev)
            .map(|r| r.commit.as_str())
            .or_else(|| (self.baseline.rev == rev).then_some(self.baseline.commit.as_str()))
    }
}

/// The last `count` release tags matching `tag_pattern` that are ancestors of HEAD, oldest first.
pub(crate) fn last_releases(
    repo: &Repo,
    tag_pattern: &str,
    count: usize,
) -> Result<Vec<Release>, WorkspaceError> {
    let mut releases = repo.releases(self::tag_pattern(tag_pattern), None)?;
    let skip = releases.len().saturating_sub(count);
    releases.drain(..skip);
    Ok(releases)
}
