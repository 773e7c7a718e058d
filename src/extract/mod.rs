//! Extraction: from Rust source text to the [`Snapshot`] model.
//!
//! The extractor parses a crate's module tree with syn (starting at the crate root and following `mod`
//! declarations), finds every `#[derive(Protocol)]` and `#[derive(Message)]` item with its `#[wire(...)]`
//! attributes (read by the same grammar crate the derive uses), resolves the types each message reaches
//! through modules, `use` renames, re-exports and type aliases, and records each type's serde-visible shape:
//! final wire names, optionality, enum representation, flatten, skip, proxies. It never runs or builds
//! code, so it works the same on the working tree and on git blobs of an old release.

mod resolve;
mod serde_attrs;

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::model::{ExtractNote, Location, Snapshot};

/// Reads a file of one revision, by path relative to the workspace root (`/` separators).
pub trait FileReader {
    /// The file's bytes, or `None` when the revision has no such file.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError>;
}

impl FileReader for BTreeMap<String, String> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        Ok(self.get(path).map(|s| s.as_bytes().to_vec()))
    }
}

/// A crate to extract: its name as used in paths and its root file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateRoot {
    /// The crate's name with `-` replaced by `_` (`flux_protocols`).
    pub name: String,
    /// The crate root (`examples/flux-protocols/src/lib.rs`), relative to the workspace root.
    pub root_file: String,
}

/// Why extraction could not produce a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// A file is not valid Rust.
    #[error("{file}:{line}:{column}: cannot parse Rust source: {message}")]
    Parse {
        /// The file.
        file: String,
        /// 1-based line of the error.
        line: u32,
        /// 1-based column of the error.
        column: u32,
        /// syn's message.
        message: String,
    },
    /// A source file is not UTF-8.
    #[error("{file}: not UTF-8 text (byte {offset}); Rust source must be UTF-8")]
    NotUtf8 {
        /// The file.
        file: String,
        /// The offset of the first invalid byte.
        offset: usize,
    },
    /// A file could not be read.
    #[error("{file}: cannot read: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// Two `#[derive(Protocol)]` declarations use the same name.
    #[error(
        "protocol `{name}` is declared twice: {}:{} and {}:{}; a protocol name must be unique in the workspace",
        first.file, first.line, second.file, second.line
    )]
    DuplicateProtocol {
        /// The name.
        name: String,
        /// The first declaration.
        first: Location,
        /// The second declaration.
        second: Location,
    },
}

/// Extracts the protocol model of the given crates, reading files through `reader`.
pub fn extract(crates: &[CrateRoot], reader: &dyn FileReader) -> Result<Snapshot, ExtractError> {
    let result = resolve::Workspace::load(crates, reader).and_then(|ws| ws.snapshot());
    // Spans were converted to plain locations; free the thread's source map (it only grows otherwise).
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// Extracts the model of one crate given as in-memory sources (`(path, text)`, the first being the crate
/// root). Convenient for tests and tools that already hold the text.
pub fn snapshot_from_sources(
    crate_name: &str,
    files: &[(&str, &str)],
) -> Result<Snapshot, ExtractError> {
    let Some((root, _)) = files.first() else {
        return Ok(Snapshot::default());
    };
    let map: BTreeMap<String, String> = files
        .iter()
        .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
        .collect();
    extract(
        &[CrateRoot {
            name: crate_name.replace('-', "_"),
            root_file: (*root).to_owned(),
        }],
        &map,
    )
}

pub(crate) fn location(file: &str, span: Span) -> Location {
    let start = span.start();
    let bytes = span.byte_range();
    Location {
        file: file.to_owned(),
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
        start: bytes.start,
        end: bytes.end,
    }
}

pub(crate) fn note(file: &str, span: Span, message: impl Into<String>) -> ExtractNote {
    ExtractNote {
        message: message.into(),
        location: location(file, span),
    }
}

#[cfg(test)]
mod tests;
