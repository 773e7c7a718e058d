//! The Flux job-manager, scheduler, exec and eventlog protocols, declared with wirecheck.
//!
//! Each module declares one protocol (a `#[derive(Protocol)]` marker type) and its messages
//! (`#[derive(Message)]` serde types) as flux-core v0.88.0 really sends and accepts them. Where the code and
//! the RFC differ, the types follow the code and the doc comment says what the RFC has.
//!
//! | module | protocol | RFC | what |
//! |---|---|---|---|
//! | [`sched`] | `sched` | RFC 27 | job-manager ↔ scheduler RPCs |
//! | [`exec`] | `exec` | RFC 32 | job-manager ↔ exec system RPCs and events |
//! | [`eventlog`] | `job-eventlog` | RFC 21 / RFC 18 | the job eventlog (stored records) |
//! | [`exec_eventlog`] | `exec-eventlog` | RFC 50 | the exec eventlog (stored records) |
//!
//! serde expresses the shape of a payload; a few rules that flux-core enforces after decoding (an alloc
//! SUCCESS must carry `R`, a `limited` ready request needs a positive `limit`, the eventlog version must be 1)
//! are checked by `validate` methods that return a [`ProtocolError`].
//!
//! ```
//! use flux_protocols::sched::{AllocResponse, AllocType};
//!
//! // `type` is an integer on the wire. A SUCCESS as RFC 27 shows it, without R, decodes...
//! let rfc: AllocResponse = serde_json::from_str(r#"{"id": 1552593348, "type": 0}"#).unwrap();
//! assert_eq!(rfc.kind, AllocType::Success);
//! // ...but flux-core (since v0.56.0) tears the scheduler interface down for it.
//! assert!(rfc.validate().is_err());
//!
//! let sent = AllocResponse::success(1552593348, serde_json::json!({"version": 1}), None);
//! assert_eq!(
//!     serde_json::to_string(&sent).unwrap(),
//!     r#"{"id":1552593348,"type":0,"R":{"version":1}}"#
//! );
//! ```
#![warn(missing_docs)]

use std::fmt;

pub mod eventlog;
pub mod exec;
pub mod exec_eventlog;
pub mod sched;

pub use eventlog::JobEventlog;
pub use exec::Exec;
pub use exec_eventlog::ExecEventlog;
pub use sched::Sched;

/// A payload that deserializes but that flux-core refuses after decoding it (it answers EPROTO, logs a
/// protocol error, or refuses to replay the eventlog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    /// The topic (or eventlog) the payload was read from.
    pub topic: &'static str,
    /// What is wrong, in the words flux-core logs where it has them.
    pub reason: String,
}

impl ProtocolError {
    pub(crate) fn new(topic: &'static str, reason: impl Into<String>) -> Self {
        ProtocolError {
            topic,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: protocol error: {}", self.topic, self.reason)
    }
}

impl std::error::Error for ProtocolError {}
