//! # wirecheck
//!
//! A protocol compatibility linter for Rust services.
//!
//! Services declare their wire protocols with two derives:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use wirecheck::{Kind, Message, Protocol};
//!
//! /// The scheduler protocol (Flux RFC 27).
//! #[derive(Protocol)]
//! #[wire(name = "sched", version = "0.88.0")]
//! pub struct Sched;
//!
//! #[derive(Serialize, Deserialize, Message)]
//! #[wire(protocol = Sched, topic = "sched.cancel", kind = "request")]
//! pub struct CancelRequest {
//!     pub id: u64,
//! }
//!
//! assert_eq!(<Sched as Protocol>::NAME, "sched");
//! assert_eq!(<CancelRequest as Message>::TOPIC, "sched.cancel");
//! assert_eq!(<CancelRequest as Message>::KIND, Kind::Request);
//! ```
//!
//! The types a message reaches derive [`Wire`] to carry `#[wire(since, allow(...), reason)]` on their fields
//! and variants, as the message does on its own.
//!
//! The checker (feature `checker`, binary `wirecheck`) reads the same declarations from the working tree and
//! from git objects at the last release tag, compares them with serde's semantics, and reports every
//! incompatible change with the semver bump it requires. The same declarations drive the runtime
//! [`handshake`].
//!
//! **The public API** is what a service and its build need: the derives ([`Protocol`], [`Message`],
//! [`Wire`]) with their traits and keyword enums, [`handshake`], `testing` (feature `testing`: the skew
//! test) and `cli` (feature `checker`: the command line, to embed in a project's own xtask). The
//! checker's stages (`extract`, `model`, `compat`, `check`, `report`, ...) are public only for
//! wirecheck's own tests, benches and xtask: hidden from the documentation, with no stability promise
//! (cargo-semver-checks leaves `#[doc(hidden)]` items out of the API too).
#![warn(missing_docs)]

// Lets the derives' `::wirecheck::...` paths resolve inside this crate too (the handshake's own hello is
// declared with them).
extern crate self as wirecheck;

mod runtime;

pub use runtime::{Format, Kind, Message, Protocol, ProtocolInfo, ResponseMode, Upgrade};

#[cfg(feature = "derive")]
pub use wirecheck_macros::{Message, Protocol, Wire};

pub mod handshake;

#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::changelog;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::check;
/// The smallest xtask is `wirecheck` itself:
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     wirecheck::cli::main()
/// }
/// ```
///
/// Next to your own tasks (`docs/xtask-main.rs`, compiled here as a doc test):
///
/// ```no_run
#[doc = include_str!("../docs/xtask-main.rs")]
/// ```
#[cfg(feature = "checker")]
#[doc(inline)]
pub use wirecheck_cli::cli;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::fixtures;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::matrix;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::registry;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_compat::compat;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_extract::extract;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_model::findings;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_model::model;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_report::config;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_report::outcome;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_report::policy;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_report::report;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub mod rules;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::schema;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_cli::snapshot;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_workspace::source;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_workspace::store;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "checker")]
#[doc(hidden)]
pub use wirecheck_workspace::workspace;
