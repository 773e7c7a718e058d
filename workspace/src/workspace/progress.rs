//! What reading many releases tells its caller as it goes. The library never prints: the command line
//! shows this on stderr (`wirecheck: reading release 3/12 v0.86.0`), a test or a tool may ignore it.

use super::WorkspaceError;

/// Hears about the releases a run reads, in order: [`reading_releases`](Progress::reading_releases)
/// once, then per release [`reading_release`](Progress::reading_release) and, when it cannot be read,
/// [`release_skipped`](Progress::release_skipped), then [`releases_read`](Progress::releases_read).
pub trait Progress {
    /// `count` releases are about to be read.
    fn reading_releases(&mut self, count: usize);

    /// The release tagged `tag` is being read.
    fn reading_release(&mut self, tag: &str);

    /// The release tagged `tag` could not be read (`error` says why): it is left out of the result.
    fn release_skipped(&mut self, tag: &str, error: &WorkspaceError);

    /// Every release was read.
    fn releases_read(&mut self);

    /// The tags `tags` match the release tag glob `pattern` but hold no semver version (`v1`, `v0.4`,
    /// `vnext`): they are not releases, and were skipped. Told once, before any release is read.
    fn tags_without_version(&mut self, pattern: &str, tags: &[String]) {
        let _ = (pattern, tags);
    }
}

/// Ignores everything: for callers that only want the result.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn reading_releases(&mut self, _: usize) {}

    fn reading_release(&mut self, _: &str) {}

    fn release_skipped(&mut self, _: &str, _: &WorkspaceError) {}

    fn releases_read(&mut self) {}
}
