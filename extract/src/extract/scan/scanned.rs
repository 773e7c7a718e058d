//! What a file's text alone tells, as one value that can cross threads (see [`Scanned`]).

use super::{ModItem, Scan, ScanItem, scan, scan_with_items, syn_content};

/// What a file's text alone tells: its scan, and its items when it may declare. Plain data, so that it
/// can be made on another thread (the read-ahead of `extract/ahead`) and become a `Blob` of the
/// source cache on the extraction's, where its id is known.
pub(in crate::extract) struct Scanned {
    pub(in crate::extract) text: String,
    /// The scan; `None` when it could not read the file.
    pub(in crate::extract) scan: Option<Scan>,
    /// The items as the scan split them, for a file that may declare.
    pub(in crate::extract) items: Option<Option<Vec<ScanItem>>>,
}

impl Scanned {
    /// Scans `text`.
    pub(in crate::extract) fn of(text: String) -> Self {
        let content = syn_content(&text);
        // A file that may declare has its items asked for (its declarations are parsed item by item):
        // such a file says `wire`, and is read once for both. The items of one that does not declare are
        // not kept (a large generated file that only mentions the word): a lookup that reaches it
        // splits it again.
        let (scan, items) = if content.contains("wire") {
            match scan_with_items(content) {
                Some((scan, items)) if scan.declares => (Some(scan), Some(items)),
                Some((scan, _)) => (Some(scan), None),
                None => (None, None),
            }
        } else {
            (scan(content), None)
        };
        Scanned { text, scan, items }
    }

    /// The text scanned.
    pub(in crate::extract) fn text(&self) -> &str {
        &self.text
    }

    /// The `mod` declarations the scan read (none when it could not read the file).
    pub(in crate::extract) fn mods(&self) -> &[ModItem] {
        self.scan.as_ref().map_or(&[], |scan| &scan.mods)
    }
}
