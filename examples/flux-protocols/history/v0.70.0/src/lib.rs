//! The Flux protocols of flux-core v@VERSION@, as far as the history replay follows them.
//!
//! Only the messages that changed somewhere in the replayed history are declared (see `../../steps.toml`
//! for what changed in each release and where that is recorded); the full v0.88.0 model is the
//! `flux-protocols` crate. Every protocol is versioned with the flux-core release that speaks it.

pub mod eventlog;
pub mod exec;
pub mod sched;
