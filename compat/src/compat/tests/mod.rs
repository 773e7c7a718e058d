//! Unit tests of the engine: hand-built snapshots for every rule, firing and not firing, by concern.
//!
//! Every major finding's witness is checked against the reader model (it must be rejected, or be one of
//! the misread rules) and against the writer's own model (it must be a value of the writer's type): see
//! `harness`.

mod build;
mod decoding;
mod enums;
mod fields;
mod flatten;
mod forms;
mod harness;
mod messages;
mod packages;
mod policy;
mod positional;
mod random;
mod reflexive;
mod types;
mod wire_paths;
