//! The compatibility engine, pure: two protocol models in, findings out ([`compat`]), for one protocol,
//! in each direction the contract needs, with serde's semantics. It depends on the model and the
//! vocabulary alone: no extraction, no git, no files.
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck`.
#![warn(missing_docs)]

pub mod compat;

pub use wirecheck_model::{findings, model};
pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
