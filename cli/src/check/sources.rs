//! The source text a report shows: every file its findings point into, so that renderers show snippets
//! without reading files or git.

use std::collections::BTreeMap;

use crate::config::{self, Config};
use crate::findings::Side;
use crate::outcome::{Report, source_label};
use crate::workspace::{CheckedReleases, History};

/// The text of every file the findings of `report` point into, by [`source_label`]: from the working tree,
/// or from git objects at the release the finding is against; the working tree's file of each removed
/// thing's surviving parent ([`crate::findings::Finding::anchor`]); and `wirecheck.toml` when a note
/// points into it. A file that cannot be read (or is not UTF-8) is left out: renderers then show its path and
/// line without a snippet.
pub(super) fn collect(
    report: &Report,
    config: &Config,
    history: &History<'_>,
    releases: &CheckedReleases,
) -> BTreeMap<String, String> {
    let mut sources = BTreeMap::new();
    for finding in report.protocols.iter().flat_map(|p| &p.findings) {
        let label = source_label(finding);
        if sources.contains_key(&label) {
            continue;
        }
        let file = finding.location.file.as_str();
        let bytes = match finding.side {
            Side::New => history.working_file(file),
            Side::Old => releases
                .commit_of(&finding.against)
                .and_then(|commit| history.file_at(commit, file)),
        };
        if let Some(text) = bytes.and_then(|bytes| String::from_utf8(bytes).ok()) {
            sources.insert(label, text);
        }
    }
    // The surviving parents of removed things, in the working tree.
    for anchor in report
        .protocols
        .iter()
        .flat_map(|p| &p.findings)
        .filter_map(|f| f.anchor.as_ref())
    {
        if sources.contains_key(&anchor.file) {
            continue;
        }
        let text = history
            .working_file(&anchor.file)
            .and_then(|bytes| String::from_utf8(bytes).ok());
        if let Some(text) = text {
            sources.insert(anchor.file.clone(), text);
        }
    }
    if !report.allow_notes.is_empty() {
        sources.insert(config::FILE_NAME.to_owned(), config.text.clone());
    }
    sources
}
