//! What the checker concludes and how it says it: `wirecheck.toml` ([`config`]), the version policy
//! ([`policy`]: which findings count, the bump they require, a protocol's window), the result of a check
//! ([`outcome`]), of a matrix ([`matrix`]) and of a changelog ([`changelog`]) as plain data, and the
//! renderers of every format ([`report`]), each a function of that data alone. Below the drivers: it
//! knows the model and the findings, nothing of extraction, git, the store or the comparison.
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck`.
#![warn(missing_docs)]

pub mod changelog;
pub mod config;
pub mod matrix;
pub mod outcome;
pub mod policy;
pub mod report;

pub use wirecheck_model::{baseline, findings, model};
pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
