//! The exec protocol (RFC 32) as flux-core v@VERSION@ speaks it: the job manager (JM) and its exec service
//! `job-exec`.
//!
//! The response shapes are those RFC 32 documents (in 2022, as existing behaviour); only their changes that
//! are in the record are replayed.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wirecheck::{Message, Protocol};

/// The exec protocol (Flux RFC 32), versioned with the flux-core release.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "exec", version = "@VERSION@")]
pub struct Exec;

/// `job-exec.start`: start a job (JM → exec; streaming, matchtag 0). job-exec requires every key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-exec.start",
    kind = "request",
    streams = StartResponse
)]
pub struct StartRequest {
    /// Job ID.
    pub id: u64,
    /// Job owner.
    pub userid: u32,
    /// RFC 14 jobspec, the environment possibly redacted (f487ac827, PR #3399).
    #[wire(since = "0.22.0")]
    pub jobspec: Value,
    /// True when the job should still be running (the broker restarted): reattach instead of starting,
    /// and answer `reattached` (91a032d43 / 9dde20193, PR #3947).
    #[wire(since = "0.32.0")]
    pub reattach: bool,
    /// The RFC 20 R of the job (993b890b7 / 2bb2330ae, PR #5472); before, job-exec read it from the KVS.
    #[serde(rename = "R")]
    #[wire(since = "0.56.0")]
    pub r: Value,
}

/// One response in the [`StartRequest`] stream: `{id, type, data}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exec.start", kind = "response")]
pub struct StartResponse {
    /// Job ID.
    pub id: u64,
    /// `type` and its `data`.
    #[serde(flatten)]
    pub body: StartResponseBody,
}

/// `type` and `data` of a [`StartResponse`]; `data` is required for every type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "lowercase")]
pub enum StartResponseBody {
    /// The job shells are running. `data` is `{}`.
    Start {},
    /// Reattached to a running job after `reattach: true`. `data` is `{}` (91a032d43 / 9dde20193, PR #3947).
    Reattached {},
    /// Some execution targets are released; `final: true` ends the stream.
    Release(ReleaseData),
    /// The exec system raises an exception on the job.
    Exception(ExceptionData),
    /// Every task exited.
    Finish(FinishData),
}

/// `data` of a `release` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseData {
    /// RFC 22 idset of the released ranks, or `"all"`.
    pub ranks: String,
    /// True when every execution target has been released.
    #[serde(rename = "final")]
    pub final_: bool,
}

/// `data` of an `exception` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionData {
    /// Severity 0..=7; 0 is fatal to the job.
    pub severity: u32,
    /// Exception type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Human-readable text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `data` of a `finish` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishData {
    /// The greatest wait status of the job shells.
    pub status: i32,
}

/// `job-exec.expiration`: a job's expiration changed (JM → exec; 0cab4e3d3, PR #5522; not in RFC 32).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-exec.expiration",
    kind = "request",
    responds = ExpirationResponse,
    since = "0.56.0"
)]
pub struct ExpirationRequest {
    /// Job ID.
    pub id: u64,
    /// New expiration, seconds since the epoch.
    pub expiration: f64,
}

/// Answer to [`ExpirationRequest`]: empty on success (written here as `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-exec.expiration",
    kind = "response",
    since = "0.56.0"
)]
pub struct ExpirationResponse {}
