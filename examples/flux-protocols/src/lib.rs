//! The Flux protocols, declared with wirecheck.
