//! The scans of the working tree's files (see [`FileScans`]: `mod` declarations, and a declaring file's
//! items), kept across checks: a file's scan depends on its bytes alone, so a check whose working tree
//! changed since the last one neither reads nor scans again the files the git index knows unchanged. The file is
//! `scans/<crates>.json`, the scans of the last extraction of the working tree by blob id.

use std::path::PathBuf;

use super::{Store, read_json, write_json};
use crate::extract::FileScans;

impl Store {
    fn scans_path(&self) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join("scans").join(format!("{}.json", self.crates_key)))
    }

    /// The scans the last extraction of the working tree kept (`None`: none, or unreadable).
    pub fn scans(&self) -> Option<FileScans> {
        let path = self.scans_path()?;
        self.settled(&path);
        read_json(&std::fs::read(path).ok()?)
    }

    /// Keeps `scans` for the next check (on the writer's thread).
    pub fn keep_scans(&self, scans: FileScans) {
        if let Some(path) = self.scans_path() {
            self.queue(path, move |path| {
                write_json(path, &scans);
            });
        }
    }
}
