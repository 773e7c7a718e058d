//! Extraction: the protocol model of one revision, read from Rust sources with syn through any
//! [`FileReader`](extract::FileReader) (a working tree, git objects, a dependency's sources), with
//! recorded name resolution beneath. It depends on the model, the grammar of `#[wire(...)]` and the
//! vocabulary: nothing of comparison, the store's files or the driver.
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck`.
#![warn(missing_docs)]

pub mod extract;

pub use wirecheck_model::{findings, model};
pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
