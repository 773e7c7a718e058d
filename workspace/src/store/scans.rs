//! The scans of the working tree's files (see [`FileScans`]: `mod` declarations, and a declaring file's
//! items), kept across checks: a file's scan depends on its bytes alone, so a check whose working tree
//! changed since the last one neither reads nor scans again the files the git index knows unchanged. The file is
//! `scans/<crates>.json`, the scans of the last extraction of the working tree by blob id.

use super::Store;
use crate::extract::FileScans;

impl Store {
    /// The scans the last extraction of the working tree kept (`None`: none, or unreadable).
    pub fn scans(&self) -> Option<FileScans> {
        self.kept_for_crates("scans")
    }

    /// Keeps `scans` for the next check (on the writer's thread).
    pub fn keep_scans(&self, scans: FileScans) {
        self.keep_for_crates("scans", scans);
    }
}
