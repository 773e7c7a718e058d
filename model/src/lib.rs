//! The stage between extraction and comparison: the protocol model, plain serializable data that
//! extraction produces, the store keeps and the comparison reads ([`model`]), and the findings a
//! comparison reports ([`findings`]), and what a check compared against ([`baseline`]). It depends on the vocabulary alone.
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck`.
#![warn(missing_docs)]

pub mod baseline;
pub mod findings;
pub mod model;

pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
