//! The lowering records and declarations of the working tree's last extraction (see
//! [`KeptLowering`]), kept across checks: a check whose working tree changed since the last one
//! replays the records whose probes still hold, without parsing the items of files the git index
//! knows unchanged. The file is `lowered/<crates>.json`. Each record is checked again where it is
//! used (its probes, its item's blob id and place), so a stale file costs only the records that no
//! longer hold.

use std::path::PathBuf;

use super::{Store, read_json, write_json};
use crate::extract::KeptLowering;

impl Store {
    fn lowered_path(&self) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("lowered")
                .join(format!("{}.json", self.crates_key)),
        )
    }

    /// The records the last extraction of the working tree kept (`None`: none, or unreadable).
    pub fn lowered(&self) -> Option<KeptLowering> {
        let path = self.lowered_path()?;
        self.settled(&path);
        read_json(&std::fs::read(path).ok()?)
    }

    /// Keeps `lowered` for the next check (on the writer's thread).
    pub fn keep_lowered(&self, lowered: KeptLowering) {
        if let Some(path) = self.lowered_path() {
            self.queue(path, move |path| {
                write_json(path, &lowered);
            });
        }
    }
}
