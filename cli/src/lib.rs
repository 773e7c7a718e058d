//! The drivers of wirecheck and its command line: [`check`] (the working tree against its releases, a
//! pipeline), [`matrix`], [`changelog`], [`fixtures`], [`snapshot`], [`registry`] and [`schema`], each
//! over the stages below (extraction, the engine, the workspace and its store, the reports), and [`cli`],
//! the only module that prints. The `wirecheck` binary is [`cli::main_status`].
//!
//! This crate is an implementation detail of wirecheck; use it through `wirecheck` (`wirecheck::cli`).
#![warn(missing_docs)]

pub mod changelog;
pub mod check;
pub mod cli;
pub mod fixtures;
pub mod matrix;
pub mod registry;
pub mod schema;
pub mod snapshot;

pub use wirecheck_compat::compat;
pub use wirecheck_extract::extract;
pub use wirecheck_model::{baseline, findings, model};
pub use wirecheck_report::{config, outcome, policy, report};
pub use wirecheck_vocab::rules;
pub use wirecheck_vocab::window;
pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};
pub use wirecheck_workspace::{source, store, workspace};
