//! The lowering records and declarations of the working tree's last extraction (see
//! [`KeptLowering`]), kept across checks: a check whose working tree changed since the last one
//! replays the records whose probes still hold, without parsing the items of files the git index
//! knows unchanged. The file is `lowered/<crates>.json`. Each record is checked again where it is
//! used (its probes, its item's blob id and place), so a stale file costs only the records that no
//! longer hold.

use super::Store;
use crate::extract::KeptLowering;

impl Store {
    /// The records the last extraction of the working tree kept (`None`: none, or unreadable).
    pub fn lowered(&self) -> Option<KeptLowering> {
        self.kept_for_crates("lowered")
    }

    /// Keeps `lowered` for the next check (on the writer's thread).
    pub fn keep_lowered(&self, lowered: KeptLowering) {
        self.keep_for_crates("lowered", lowered);
    }
}
