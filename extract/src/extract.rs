//! Extraction: from Rust source text to the [`Snapshot`] model.
//!
//! The extractor parses a crate's module tree with syn (starting at the crate root and following `mod`
//! declarations), finds every `#[derive(Protocol)]` and `#[derive(Message)]` item with its `#[wire(...)]`
//! attributes (read by the same grammar crate the derive uses), resolves the types each message reaches
//! through modules, `use` renames, re-exports and type aliases, and records each type's serde-visible shape:
//! final wire names, optionality, enum representation, flatten, skip, proxies. It never runs or builds
//! code, so it works the same on the working tree and on git blobs of an old release.
//!
//! # Cost
//!
//! Only a few files of a large workspace matter, so the extractor does the least it can per file (see
//! `docs/performance.md` for the figures):
//!
//! - The module tree is found with a cheap scan of each file's tokens for `mod` declarations (`scan`), not
//!   with syn, and items are parsed, not files. The scan splits a file into its items (kind, name, byte
//!   range), and syn parses an item alone only when the scan's tokens show it may declare a protocol or
//!   a message (an attribute whose path is `wire` with a derive naming `Protocol` or `Message`, or a
//!   `macro_rules!` naming both: `wire` in a comment or a string does not count), when it is a `use` of
//!   a module name resolution indexes, or when it is a type item a lookup reaches. Memory then follows
//!   the largest needed item, not the largest file. A syntax error in a needed item is reported (at its
//!   place in the file); one in an item nothing needs is not: it cannot change the model, and the
//!   compiler reports it anyway. When the scan cannot read a file with certainty (unbalanced
//!   delimiters, an unterminated literal) or cannot tell where an item ends (a brace group in generics),
//!   the file is parsed whole, as needed, and syn reports its errors.
//! - A [`SourceCache`] keeps the text, the scan, the syntax trees and the declarations of every file by
//!   its git blob id, across the extractions of one check: a file unchanged between the working tree and
//!   the baseline (or any older release) is read from git, scanned and parsed once.
//! - A type item is lowered once per check, not once per revision, when it can be: the cache keeps each
//!   lowering with the questions it asked of its revision and their answers (what each path names, the
//!   features, the declared shapes, the dependency a module is in), and a later revision reuses it when
//!   the same item, in the same module of a file at the same path, gets the same answers.
//! - Modules are indexed on demand, name lookups are hash lookups, and [`extract_filtered`] keeps only
//!   the messages a caller needs (the records of older releases), without converting the others.
//!
//! Parsing is not spread over threads: syn's trees are `!Send` (proc-macro2 keeps span data in a
//! thread-local map), so a parallel parse would have to rebuild a span-free copy of every tree it hands
//! back, and only a fifth of a typical workspace's files is parsed at all. The scan is: when an
//! extraction reads its files from disk and its cache knows none of them (a cold check's working tree),
//! a second thread reads and scans the module trees' files from the other end (`ahead`), and the
//! mounting takes what it scanned.
//!
//! # Modules
//!
//! Each uses only the ones above it (and this module's items):
//!
//! - `syntax`: readings of syn items every stage shares (names without `r#`, `cfg_attr` expanded by a
//!   predicate the caller evaluates, derive paths), and items parsed alone with file-relative positions.
//! - `expand`: invocations at item position of the file's own `macro_rules!` (repetitions, every
//!   fragment, `$crate`), replaced by the items they write; those left as written listed with why.
//! - `scan`: a file's `mod` declarations, whether it may declare, and its items, by the lexer scan (or,
//!   when it gives up, the `mod` declarations from syn's tree); `scan/scanned`: a file's `Scanned`,
//!   plain data that can cross threads.
//! - `mod_paths`: the files a `mod name;` may be in, as rustc looks for them.
//! - `ahead`: the read-ahead, a second thread that reads and scans a cold working tree's module trees
//!   from disk while they are mounted, and `EarlyReadAhead`, one started before the crates were known
//!   for certain (from `workspace`'s guess while `cargo metadata` runs).
//! - `serde_attrs`: `#[serde(...)]` attributes, as serde_derive reads them.
//! - `serde_with`: serde_with's `#[serde_as]` adapters, `with` modules and `#[skip_serializing_none]`.
//! - `consts`: integer constant expressions (array lengths, discriminants), their names evaluated by
//!   the caller.
//! - `serde_repr`: enums deriving serde_repr's `Serialize_repr`/`Deserialize_repr` (written as integers).
//! - `declarations`: what a parsed file declares (`#[derive(Protocol)]`, `#[derive(Message)]`).
//! - `reuse`: the lowered type items a [`SourceCache`] keeps for the next revisions, with what their
//!   lowering asked and did.
//! - `cache`: the [`SourceCache`]: files by blob id, module-tree files by what they depend on, lowered
//!   type items.
//! - `cfg`: the one evaluator of `#[cfg(...)]` and `#[cfg_attr(...)]`, for any crate's enabled features.
//! - `external`: the dependencies a revision's code may name ([`Externals`]) and how they are found.
//! - `tree`: the crates' module trees, mounted from the scans (`mod`, `name/mod.rs`, `#[path]`); a
//!   dependency's tree is mounted when name resolution first reaches it; a cold working tree's is
//!   read ahead (`ahead`).
//! - `names`: what a path written in a module names (`use`, renames, globs, `super`, re-exports).
//! - `features`: the cargo features each workspace crate is built with (`cfg` evaluates with them).
//! - `lower`: declarations and the types they reach, converted to the model (`lower/impls`: derived,
//!   declared or opaque serde impls; `lower/gated`: fields, variants and shapes the build or the
//!   configuration decides; `lower/recorded`: every question a type's lowering asks of its revision,
//!   recorded, and a recorded lowering replayed where its answers hold).

mod ahead;
mod cache;
mod cfg;
mod consts;
mod declarations;
mod expand;
mod external;
mod features;
mod known;
mod lower;
mod mod_paths;
mod names;
mod reuse;
mod scan;
mod serde_attrs;
mod serde_repr;
mod serde_with;
mod syntax;
mod tree;

use std::collections::BTreeMap;

use proc_macro2::Span;

pub use ahead::EarlyReadAhead;
pub use cache::FileScans;
pub use cache::{CacheStats, SourceCache};
pub use external::{CrateSource, ExternalCrate, Externals, Locate, Located};
pub use features::FeatureRequest;
pub use features::dependency_features;
pub use mod_paths::{join_path, parent_dir};
pub use reuse::KeptLowering;
#[doc(hidden)]
pub use serde_attrs::read_item as read_serde_attributes;
pub use serde_with::ONE_OR_MANY;

use crate::model::{ExtractNote, Location, ProtocolDecl, Snapshot};

/// Reads a file of one revision, by path relative to the workspace root (`/` separators).
pub trait FileReader {
    /// The file's bytes, or `None` when the revision has no such file.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError>;

    /// The git blob id of the file, when the reader knows it without reading the file (a git tree entry
    /// does). A [`SourceCache`] that already holds that blob then skips reading it. `Ok(None)` (the
    /// default) means unknown: the file is read and its blob id computed from its bytes.
    fn blob_id(&self, path: &str) -> Result<Option<git2::Oid>, ExtractError> {
        let _ = path;
        Ok(None)
    }

    /// The git tree id of a directory (`""` is the workspace root), when the reader knows it. A
    /// [`SourceCache`] reuses the module subtrees found under a directory it has seen with the same id,
    /// without looking at its files again. The default: [`DirId::Unknown`].
    fn dir_id(&self, path: &str) -> Result<DirId, ExtractError> {
        let _ = path;
        Ok(DirId::Unknown)
    }

    /// The directory the reader reads its files from, when it reads them from disk as they are (a
    /// path's file is the directory's): an extraction may then read and scan them on another thread
    /// before it needs them. `None` (the default): files are read only through [`FileReader::read`].
    fn disk_dir(&self) -> Option<&std::path::Path> {
        None
    }
}

/// What a [`FileReader`] knows of a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirId {
    /// Nothing (the working tree: its directories have no id).
    Unknown,
    /// There is no such directory at this revision.
    Missing,
    /// The directory's git tree id.
    Tree(git2::Oid),
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ExtractError {
    /// A file is not valid Rust.
    #[error("{file}:{line}:{column}: cannot parse Rust source: {message}")]
    Parse {
        /// The file, relative to the workspace root.
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
        /// The file, relative to the workspace root.
        file: String,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// A file could not be read.
    #[error("{file}: cannot read: {message}")]
    Read {
        /// The file, relative to the workspace root.
        file: String,
        /// The reader's error (git's, or the file system's).
        message: String,
    },
    /// A `#[wire(...)]` declaration the compiler rejects too (a version that is not semver, an unknown
    /// key): without it the protocol or message would look removed.
    #[error("{file}:{line}:{column}: {message}")]
    InvalidDeclaration {
        /// The file, relative to the workspace root.
        file: String,
        /// 1-based line of the offending token.
        line: u32,
        /// 1-based column of the offending token.
        column: u32,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// Two `#[derive(Protocol)]` declarations use the same name.
    #[error(
        "protocol `{name}` is declared twice: {}:{} and {}:{}; a protocol name must be unique in the workspace",
        first.file, first.line, second.file, second.line
    )]
    DuplicateProtocol {
        /// The protocol name both declare.
        name: String,
        /// Where the first declaration (in the crates' depth-first item order) is.
        first: Location,
        /// Where the second one is.
        second: Location,
    },
}

/// Which messages of a protocol an extraction keeps (see [`extract_filtered`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// Every message.
    All,
    /// Only `kind = "record"` messages.
    Records,
    /// No message (the protocol's declaration is still kept).
    Nothing,
}

impl Keep {
    /// Whether a message of this kind is kept.
    pub fn keeps(self, kind: crate::Kind) -> bool {
        match self {
            Keep::All => true,
            Keep::Records => kind == crate::Kind::Record,
            Keep::Nothing => false,
        }
    }
}

/// What an extraction reads besides the source: the build checked and the declared shapes of types.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// The cargo features the crates are built with (`--features`, `--all-features`,
    /// `--no-default-features`); each crate's defaults are read from its `Cargo.toml` at each revision.
    pub features: FeatureRequest,
    /// Declared wire shapes by the type's full path (`"url::Url"`): a Rust type as text (`"String"`),
    /// resolved from the crate root (`wirecheck.toml`'s `[shapes]`).
    pub shapes: BTreeMap<String, String>,
}

impl ExtractOptions {
    /// A short, stable text of the options (part of the name of what wirecheck's store keeps);
    /// empty for the defaults.
    pub fn key(&self) -> String {
        let mut key = self.features.key();
        for (path, shape) in &self.shapes {
            key.push_str(&format!(";{path}={shape}"));
        }
        key
    }
}

/// [`extract_filtered`] (or [`extract_cached`] without `keep`) with `options` (the features built, the
/// declared shapes), following types into the revision's dependencies: a path that leaves the workspace
/// for a crate of the [`Externals`] `describe` gives is resolved in that crate, mounted when first
/// reached, and a derived type there is lowered like the workspace's own, its
/// [`TypeDef`](crate::model::TypeDef) naming the package version. `describe` is called at most once, when
/// a path first leaves the workspace for a crate that is not std's: a revision whose messages stay inside
/// the workspace costs what it did without dependencies.
pub fn extract_with(
    crates: &[CrateRoot],
    reader: &dyn FileReader,
    cache: &SourceCache,
    options: &ExtractOptions,
    describe: &dyn Fn() -> Externals,
    keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
) -> Result<Snapshot, ExtractError> {
    let features = features::CrateFeatures::read(crates, reader, &options.features)?;
    lower::snapshot(
        &tree::ModuleTree::load(crates, reader, cache, describe)?,
        keep,
        features,
        &options.shapes,
    )
}

/// Extracts the protocol model of the given crates, reading files through `reader`.
pub fn extract(crates: &[CrateRoot], reader: &dyn FileReader) -> Result<Snapshot, ExtractError> {
    // The cache's spans are freed when it is dropped (unless an outer cache of this thread is alive).
    extract_cached(crates, reader, &SourceCache::new())
}

/// [`extract`], reusing (and filling) `cache`: files whose blob id the cache already holds are neither
/// read again nor parsed again. Use one cache for all the revisions a check reads.
pub fn extract_cached(
    crates: &[CrateRoot],
    reader: &dyn FileReader,
    cache: &SourceCache,
) -> Result<Snapshot, ExtractError> {
    extract_with(
        crates,
        reader,
        cache,
        &ExtractOptions::default(),
        &Externals::default,
        None,
    )
}

/// [`extract_cached`], keeping of each protocol only the messages `keep` asks for, given the protocol's
/// declaration at this revision; every protocol declaration is kept. Messages that are not kept are not
/// converted, nor are the types only they reach, and the notes only concern what is kept. A check reads
/// older releases this way: of most of them it only needs the records.
pub fn extract_filtered(
    crates: &[CrateRoot],
    reader: &dyn FileReader,
    cache: &SourceCache,
    keep: &dyn Fn(&ProtocolDecl) -> Keep,
) -> Result<Snapshot, ExtractError> {
    extract_with(
        crates,
        reader,
        cache,
        &ExtractOptions::default(),
        &Externals::default,
        Some(keep),
    )
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

/// Where a token of `file` is, in the model's terms (1-based line and column, byte range).
fn location(file: &str, span: Span) -> Location {
    let at = syntax::file_position(span);
    Location {
        file: file.to_owned(),
        line: u32::try_from(at.line).unwrap_or(u32::MAX),
        column: u32::try_from(at.column + 1).unwrap_or(u32::MAX),
        start: at.bytes.start,
        end: at.bytes.end,
    }
}

/// A note about what extraction cannot see, at a token of `file`.
fn note(file: &str, span: Span, message: impl Into<String>) -> ExtractNote {
    ExtractNote {
        message: message.into(),
        location: location(file, span),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod dependency_tests;

#[cfg(test)]
mod dependency_read_tests;

#[cfg(test)]
mod read_back_tests;

#[cfg(test)]
mod reuse_tests;

#[cfg(test)]
mod glob_tests;
