//! The scheduler protocol (RFC 27) as flux-core v@VERSION@ speaks it: the job manager (JM) and the
//! scheduler.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use wirecheck::{Message, Protocol};

/// The scheduler protocol (Flux RFC 27), versioned with the flux-core release.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "sched", version = "@VERSION@")]
pub struct Sched;

// ---------------------------------------------------------------------------------------------------------
// job-manager.sched-hello

/// `job-manager.sched-hello`: the scheduler asks the JM for every job that holds resources (an ordinary
/// RPC with an empty payload, written here as `{}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "job-manager.sched-hello",
    kind = "request",
    responds = HelloResponse
)]
pub struct HelloRequest {}

/// The one answer to [`HelloRequest`]: every job holding resources (libschedutil 58c6fca6c, PR #2231).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "job-manager.sched-hello", kind = "response")]
pub struct HelloResponse {
    /// The jobs.
    pub alloc: Vec<HelloJob>,
}

/// One job of a [`HelloResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HelloJob {
    /// Job ID.
    pub id: u64,
    /// The job's urgency, 0..=31 (default 16), packed as `i`.
    pub priority: u32,
    /// Job owner.
    pub userid: u32,
    /// Submit time, seconds since the epoch.
    pub t_submit: f64,
}

// ---------------------------------------------------------------------------------------------------------
// job-manager.sched-ready

/// `job-manager.sched-ready`: the scheduler is ready for `sched.alloc` requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "job-manager.sched-ready",
    kind = "request",
    responds = ReadyResponse
)]
pub struct ReadyRequest {
    /// How many alloc requests may be outstanding at once.
    pub mode: ReadyMode,
}

/// `mode` of [`ReadyRequest`]. The JM answers EPROTO to any other string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadyMode {
    /// One outstanding alloc request at a time.
    Single,
    /// Any number of outstanding alloc requests.
    Unlimited,
}

/// Answer to [`ReadyRequest`]: the queue depth.
///
/// Modelled with its v0.88.0 shape in every release of the replay: RFC 27 1809de1 (2021) documents `count` as
/// existing behaviour, and the release it entered is not in the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "job-manager.sched-ready", kind = "response")]
pub struct ReadyResponse {
    /// Number of jobs in the queue.
    pub count: u32,
}

// ---------------------------------------------------------------------------------------------------------
// sched.alloc

/// `sched.alloc`: the JM asks the scheduler to allocate resources to a job (matchtag 0). The scheduler
/// reads the jobspec from the KVS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.alloc",
    kind = "request",
    streams = AllocResponse
)]
pub struct AllocRequest {
    /// Job ID.
    pub id: u64,
    /// The job's urgency, 0..=31 (default 16), packed as `i`.
    pub priority: u32,
    /// Job owner.
    pub userid: u32,
    /// Submit time, seconds since the epoch.
    pub t_submit: f64,
}

/// `type` of an [`AllocResponse`]: an integer on the wire, read through `u8` (the codes are in the
/// [`TryFrom`] impl).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum AllocType {
    /// `0`: resources allocated. Final.
    Success = 0,
    /// `1`: an update for a pending job; the JM ignores it ("FIXME"). Not final.
    Annotate = 1,
    /// `2`: the job can never run. Final.
    Deny = 2,
    /// `3`: the alloc was canceled after a `sched.cancel` (7a5db4b36, PR #2687). Final.
    Cancel = 3,
}

/// An integer that is not an [`AllocType`] code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownAllocType(pub u8);

impl fmt::Display for UnknownAllocType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown sched.alloc response type {}", self.0)
    }
}

impl TryFrom<u8> for AllocType {
    type Error = UnknownAllocType;

    fn try_from(code: u8) -> Result<Self, Self::Error> {
        match code {
            0 => Ok(AllocType::Success),
            1 => Ok(AllocType::Annotate),
            2 => Ok(AllocType::Deny),
            3 => Ok(AllocType::Cancel),
            other => Err(UnknownAllocType(other)),
        }
    }
}

impl From<AllocType> for u8 {
    fn from(kind: AllocType) -> u8 {
        kind as u8
    }
}

/// A response to [`AllocRequest`]: `{id, type, note?}` (errnum 0 even for DENY).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "response")]
pub struct AllocResponse {
    /// Job ID.
    pub id: u64,
    /// Response type.
    #[serde(rename = "type")]
    pub kind: AllocType,
    /// Free text: why a job is denied, or what an ANNOTATE says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------------------------------------
// sched.cancel

/// `sched.cancel`: cancel a pending alloc (JM → scheduler, no response). The scheduler answers the pending
/// [`AllocRequest`] with CANCEL (2841ddbdb, PR #2687).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.cancel",
    kind = "request",
    since = "0.15.0"
)]
pub struct CancelRequest {
    /// Job ID.
    pub id: u64,
}

// ---------------------------------------------------------------------------------------------------------
// sched.free

/// `sched.free`: the job's resources are released; the scheduler looks R up in the KVS.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.free",
    kind = "request",
    responds = FreeResponse
)]
pub struct FreeRequest {
    /// Job ID.
    pub id: u64,
}

/// Answer to [`FreeRequest`]: the JM posts the `free` event when it arrives; an error response tears the
/// scheduler interface down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "response")]
pub struct FreeResponse {
    /// Job ID.
    pub id: u64,
}

// ---------------------------------------------------------------------------------------------------------
// sched.feasibility

/// `sched.feasibility`: could this jobspec ever be satisfied? (the validator → the scheduler).
///
/// In the replay from its first release on because the release this topic entered flux-core is not in the
/// record; it is here for its rename to `feasibility.check` in v0.66.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.feasibility",
    kind = "request",
    responds = FeasibilityResponse
)]
pub struct FeasibilityRequest {
    /// RFC 14 jobspec.
    pub jobspec: Value,
}

/// Answer to [`FeasibilityRequest`]: empty on success (written here as `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.feasibility", kind = "response")]
pub struct FeasibilityResponse {}
