//! The release tags a check does not compare in full, for the report (every format names them): those
//! the progress hears of while releases are selected and read (tags that are not releases, releases
//! whose source cannot be read), and the releases outside every protocol's window, of which only the
//! records are compared.

use std::collections::BTreeSet;

use crate::outcome::{ProtocolReport, SkipReason, SkippedRelease};
use crate::source::Release;
use crate::workspace::{Progress, WorkspaceError};

/// A [`Progress`] that tells the caller's everything and keeps the releases skipped.
pub(super) struct SkipRecorder<'p> {
    inner: &'p mut dyn Progress,
    skipped: Vec<SkippedRelease>,
}

impl<'p> SkipRecorder<'p> {
    /// A recorder passing everything on to `inner`.
    pub(super) fn new(inner: &'p mut dyn Progress) -> Self {
        SkipRecorder {
            inner,
            skipped: Vec::new(),
        }
    }

    /// The releases skipped so far: the tags that are not releases first, then the unreadable ones in
    /// the order they were read.
    pub(super) fn into_skipped(self) -> Vec<SkippedRelease> {
        let mut skipped = self.skipped;
        skipped.sort_by_key(|s| s.reason != SkipReason::NotSemver);
        skipped
    }
}

impl Progress for SkipRecorder<'_> {
    fn reading_releases(&mut self, count: usize) {
        self.inner.reading_releases(count);
    }

    fn reading_release(&mut self, tag: &str) {
        self.inner.reading_release(tag);
    }

    fn release_skipped(&mut self, tag: &str, error: &WorkspaceError) {
        self.inner.release_skipped(tag, error);
        let detail = match error {
            WorkspaceError::Revision { error, .. } => error.to_string(),
            other => other.to_string(),
        };
        if !self.skipped.iter().any(|s| s.tag == tag) {
            self.skipped.push(SkippedRelease {
                tag: tag.to_owned(),
                reason: SkipReason::Unreadable,
                detail,
            });
        }
    }

    fn releases_read(&mut self) {
        self.inner.releases_read();
    }

    fn tags_without_version(&mut self, pattern: &str, tags: &[String]) {
        self.inner.tags_without_version(pattern, tags);
        self.skipped.extend(tags.iter().map(|tag| SkippedRelease {
            tag: tag.clone(),
            reason: SkipReason::NotSemver,
            detail: String::new(),
        }));
    }
}

/// The older releases (oldest first) that no protocol's window holds and that were not skipped for
/// another reason: only their records were compared.
pub(super) fn outside_every_window<'r>(
    older: impl IntoIterator<Item = &'r str>,
    protocols: &[ProtocolReport],
    skipped: &[SkippedRelease],
) -> Vec<SkippedRelease> {
    let inside: BTreeSet<&str> = protocols
        .iter()
        .filter_map(|p| p.window.as_ref())
        .flat_map(|w| w.releases.iter().map(|r| r.tag.as_str()))
        .collect();
    older
        .into_iter()
        .filter(|tag| !inside.contains(tag) && !skipped.iter().any(|s| s.tag == *tag))
        .map(|tag| SkippedRelease {
            tag: tag.to_owned(),
            reason: SkipReason::OutsideWindow,
            detail: String::new(),
        })
        .collect()
}

/// The tags of `releases`.
pub(super) fn tags(releases: &[Release]) -> impl Iterator<Item = &str> {
    releases.iter().map(|r| r.tag.as_str())
}
