//! The checker's view of a cargo workspace through time: the workspace and its releases
//! ([`workspace`]), the sources of a revision (the working tree or git objects, and dependencies' sources
//! where cargo put them: [`source`]), and the store that keeps what was extracted at each release for the
//! next run ([`store`]). Below the driver: it knows extraction and the model, nothing of comparison,
//! policy or reports.
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck`.
#![warn(missing_docs)]

pub mod source;
pub mod store;
pub mod workspace;

pub use wirecheck_extract::extract;
pub use wirecheck_model::{baseline, findings, model};
pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
