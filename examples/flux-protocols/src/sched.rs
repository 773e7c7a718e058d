//! The scheduler protocol: Flux RFC 27 "Flux Resource Allocation Protocol Version 1", as flux-core v0.88.0
//! implements it (`job-manager/alloc.c`, `update.c`, `prioritize.c`, `housekeeping.c`, `libschedutil/`).
//!
//! The scheduler registers the service `sched`; the job manager (JM) serves `job-manager.sched-hello` and
//! `job-manager.sched-ready`. `sched.alloc` and `sched.free` are matched by job ID (matchtag 0), so the ID is
//! in every payload, and a response reporting a failure still has errnum 0: a conventional error response is
//! a scheduler fatality for the JM.
//!
//! Where flux-core and RFC 27 (rfc `4b15e2a`) differ, these types follow flux-core:
//! - `sched.alloc` requests carry `t_submit` ([`AllocRequest::t_submit`]), which RFC 27 dropped in 2020;
//! - a SUCCESS alloc response carries `R` ([`AllocResponse::r`]), not in RFC 27, required since v0.56.0;
//! - `sched.expiration` sends `expiration` as a real ([`ExpirationRequest::expiration`]), RFC 27 says integer;
//! - `sched.resource-status` ([`ResourceStatusRequest`]) is not in RFC 27 at all.
//!
//! Integer types: job IDs are `u64` (jansson `I`), priorities `u32` (0..=4294967295, packed as `I`), user IDs
//! `u32` (`uid_t`), times `f64` (seconds since the epoch).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use wirecheck::{Message, Protocol};

use crate::ProtocolError;

/// The scheduler protocol (Flux RFC 27), versioned with the flux-core release that speaks it.
///
/// No RFC 27 message carries a protocol version: the job manager and the scheduler interoperate only as far
/// as their payloads do, which is what wirecheck checks.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

// ---------------------------------------------------------------------------------------------------------
// job-manager.sched-hello

/// `job-manager.sched-hello`: the scheduler asks the JM for every job that holds resources (scheduler → JM).
///
/// The request must carry `FLUX_MSGFLAG_STREAMING` (else EPROTO); the JM answers with one
/// [`HelloResponse`] per job and ends the stream with an ENODATA error response. The JM decodes `{s?b}`:
/// an empty payload (written here as `{}`) is the same as `partial-ok: false`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "job-manager.sched-hello",
    kind = "request",
    streams = HelloResponse
)]
pub struct HelloRequest {
    /// Whether the scheduler can take back an allocation that is already partly freed (RFC 27 b7b1284,
    /// flux-core v0.70.0). libschedutil always sends the key; absent means false. Without it, the JM
    /// terminates the housekeeping of a partly released job instead of reporting it.
    #[serde(
        rename = "partial-ok",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[wire(since = "0.70.0")]
    pub partial_ok: Option<bool>,
}

/// One job holding resources, streamed in answer to [`HelloRequest`] (JM packs `{s:I s:I s:I s:f}` + `free`).
///
/// Jobs with the `alloc_bypass` flag are not listed (flux-core v0.63.0). The scheduler looks R up in the KVS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "job-manager.sched-hello", kind = "response")]
pub struct HelloResponse {
    /// Job ID.
    pub id: u64,
    /// Job priority, 0..=4294967295. (Fluxion unpacks it as a 32-bit signed `int`.)
    pub priority: u32,
    /// Job owner.
    pub userid: u32,
    /// Submit time, seconds since the epoch.
    pub t_submit: f64,
    /// RFC 22 idset of ranks already freed by housekeeping; absent means none. Only sent when the request
    /// had `partial-ok: true` (flux-core v0.70.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[wire(since = "0.70.0")]
    pub free: Option<String>,
}

// ---------------------------------------------------------------------------------------------------------
// job-manager.sched-ready

/// `job-manager.sched-ready`: the scheduler is ready for `sched.alloc` requests (scheduler → JM).
///
/// The JM decodes `{s:s s?i}` mode, limit. An unknown mode (`"single"` was removed in v0.24.0) is EPROTO,
/// which serde reproduces through [`ReadyMode`]; `limited` without a positive `limit` is EPROTO too, checked
/// by [`ReadyRequest::validate`].
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
    /// The number of outstanding alloc requests in `limited` mode, 1..=2147483647; ignored otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[wire(since = "0.24.0")]
    pub limit: Option<u32>,
}

/// `mode` of [`ReadyRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadyMode {
    /// Any number of outstanding alloc requests (what Fluxion uses).
    Unlimited,
    /// At most `limit` outstanding alloc requests (flux-core v0.24.0, replacing `single`).
    Limited,
}

impl ReadyRequest {
    /// `{"mode":"unlimited"}`.
    pub fn unlimited() -> Self {
        ReadyRequest {
            mode: ReadyMode::Unlimited,
            limit: None,
        }
    }

    /// `{"mode":"limited","limit":limit}`.
    pub fn limited(limit: u32) -> Self {
        ReadyRequest {
            mode: ReadyMode::Limited,
            limit: Some(limit),
        }
    }

    /// The JM's checks after decoding: `limited` needs a `limit` in 1..=2147483647.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        const TOPIC: &str = "job-manager.sched-ready";
        match (self.mode, self.limit) {
            (ReadyMode::Unlimited, _) => Ok(()),
            (ReadyMode::Limited, Some(limit)) if (1..=i32::MAX as u32).contains(&limit) => Ok(()),
            (ReadyMode::Limited, Some(limit)) => Err(ProtocolError::new(
                TOPIC,
                format!("limited mode with limit {limit} (must be 1..=2147483647)"),
            )),
            (ReadyMode::Limited, None) => {
                Err(ProtocolError::new(TOPIC, "limited mode without a limit"))
            }
        }
    }
}

/// Answer to [`ReadyRequest`]: the current queue depth (JM packs `{s:i}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "job-manager.sched-ready", kind = "response")]
pub struct ReadyResponse {
    /// Number of jobs in the queue.
    pub count: u32,
}

// ---------------------------------------------------------------------------------------------------------
// sched.alloc

/// `sched.alloc`: the JM asks the scheduler to allocate resources to a job (JM → scheduler, matchtag 0).
///
/// The JM packs `{s:I s:I s:I s:f s:O}` id, priority, userid, t_submit, jobspec. The scheduler answers with
/// any number of ANNOTATE responses and then one final SUCCESS, DENY or CANCEL, all matched by job ID:
/// that is why this is declared `streams` (several responses to one request), though it is not a Flux
/// streaming RPC.
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
    /// Job priority, 0..=4294967295 (before v0.22.0 this was the 0..31 urgency; packed as `I` since
    /// v0.23.0). Fluxion unpacks it as a 32-bit signed `int`.
    pub priority: u32,
    /// Job owner.
    pub userid: u32,
    /// Submit time, seconds since the epoch.
    ///
    /// RFC 27 dropped `t_submit` from the alloc request in 2020 (34e0c02), but flux-core always sends it,
    /// and Fluxion and the Python `flux.scheduler` read it as required: the RFC example without it is
    /// rejected here, as Fluxion rejects it.
    pub t_submit: f64,
    /// RFC 14 jobspec; the environment may be redacted (flux-core v0.22.0; before, the scheduler read it
    /// from the KVS).
    #[wire(since = "0.22.0")]
    pub jobspec: Value,
}

/// `type` of an [`AllocResponse`]: an integer on the wire (libschedutil `FLUX_SCHED_ALLOC_*`).
///
/// Encoded with `#[serde(try_from = "u8", into = "u8")]`: it reads and writes the bare integer, exactly as
/// the JSON has it, and rejects any other code at decode time, as the JM does (an unknown type is EINVAL and
/// tears down the scheduler interface). This keeps to serde's derive attributes (no hand-written
/// `Serialize`/`Deserialize`, no serde_repr), so the checker can follow the `u8` proxy; the set of codes
/// itself is only in the [`TryFrom`] impl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum AllocType {
    /// `0`: resources allocated; R is in the response and committed to the KVS. Final.
    Success = 0,
    /// `1`: annotations update for a pending job; may repeat. Not final.
    Annotate = 1,
    /// `2`: the job can never run; `note` says why and goes into the `exception` event. Final.
    Deny = 2,
    /// `3`: the alloc was canceled after a `sched.cancel` (flux-core v0.15.0). Final.
    Cancel = 3,
}

impl AllocType {
    /// Whether this response ends the alloc request (everything but ANNOTATE).
    pub fn is_final(self) -> bool {
        !matches!(self, AllocType::Annotate)
    }
}

/// An integer that is not an [`AllocType`] code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownAllocType(pub u8);

impl fmt::Display for UnknownAllocType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown sched.alloc response type {} (expected 0..=3)",
            self.0
        )
    }
}

impl std::error::Error for UnknownAllocType {}

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

/// A response to [`AllocRequest`] (scheduler → JM, errnum 0 even for DENY).
///
/// Modelled as the JM decodes it: one flat object, `{s:I s:i s?s s?o s?o}` id, type, note, annotations, R,
/// followed by per-type checks ([`AllocResponse::validate`]). libschedutil writes
/// `{id, type:0, annotations?, R}`, `{id, type:1, annotations}`, `{id, type:2, note?}` and `{id, type:3}`;
/// the constructors below build the same shapes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "response")]
pub struct AllocResponse {
    /// Job ID.
    pub id: u64,
    /// Response type (an integer on the wire).
    #[serde(rename = "type")]
    pub kind: AllocType,
    /// DENY: why the job can never run. Copied into the job's `exception` event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// SUCCESS (optional) and ANNOTATE (required): annotation updates, merged recursively into the job's
    /// annotations (`null` deletes a key). flux-core v0.18.0; before, ANNOTATE carried `note`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[wire(since = "0.18.0")]
    pub annotations: Option<Value>,
    /// SUCCESS: the RFC 20 R allocated to the job (`R.scheduling` is deleted by the JM).
    ///
    /// **Not in RFC 27**, which only says R must be committed to the KVS. flux-core requires it in every
    /// SUCCESS since v0.56.0 (dd07975ef / a6728ae31): without it the JM logs "sched.alloc-response: protocol
    /// error" and tears down the scheduler interface. Optional here because only SUCCESS carries it.
    #[serde(rename = "R", default, skip_serializing_if = "Option::is_none")]
    #[wire(since = "0.56.0")]
    pub r: Option<Value>,
}

impl AllocResponse {
    /// A SUCCESS response `{id, type:0, R, annotations?}`.
    pub fn success(id: u64, r: Value, annotations: Option<Value>) -> Self {
        AllocResponse {
            id,
            kind: AllocType::Success,
            note: None,
            annotations,
            r: Some(r),
        }
    }

    /// An ANNOTATE response `{id, type:1, annotations}`.
    pub fn annotate(id: u64, annotations: Value) -> Self {
        AllocResponse {
            id,
            kind: AllocType::Annotate,
            note: None,
            annotations: Some(annotations),
            r: None,
        }
    }

    /// A DENY response `{id, type:2, note?}`.
    pub fn deny(id: u64, note: Option<String>) -> Self {
        AllocResponse {
            id,
            kind: AllocType::Deny,
            note,
            annotations: None,
            r: None,
        }
    }

    /// A CANCEL response `{id, type:3}`.
    pub fn cancel(id: u64) -> Self {
        AllocResponse {
            id,
            kind: AllocType::Cancel,
            note: None,
            annotations: None,
            r: None,
        }
    }

    /// The JM's per-type checks after decoding (`alloc.c`): SUCCESS without `R` and ANNOTATE without
    /// `annotations` are protocol errors (EPROTO, interface teardown). RFC 27 also says a CANCEL response may
    /// only hold `id` and `type`; the JM does not check that, and neither does this.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        const TOPIC: &str = "sched.alloc";
        match self.kind {
            AllocType::Success if self.r.is_none() => Err(ProtocolError::new(
                TOPIC,
                "sched.alloc-response: SUCCESS without R",
            )),
            AllocType::Annotate if self.annotations.is_none() => Err(ProtocolError::new(
                TOPIC,
                "sched.alloc-response: ANNOTATE without annotations",
            )),
            _ => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// sched.cancel, sched.prioritize

/// `sched.cancel`: cancel a pending alloc (JM → scheduler, `FLUX_RPC_NORESPONSE`, `{s:I}`).
///
/// No direct response: the scheduler answers the pending [`AllocRequest`] with CANCEL, or ignores the
/// request when no alloc is pending. Before flux-core v0.15.0 the scheduler watched `job-exception` events
/// and answered with DENY instead.
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

/// `sched.prioritize`: new priorities for pending jobs (JM → scheduler, `FLUX_RPC_NORESPONSE`).
///
/// The JM packs `{s:o}` jobs, a list of `[I,I]` pairs; the scheduler may ignore unknown IDs. No response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.prioritize",
    kind = "request",
    since = "0.23.0"
)]
pub struct PrioritizeRequest {
    /// `[job ID, priority]` pairs; priority 0..=4294967295 (Fluxion unpacks it as a signed 32-bit `int`).
    pub jobs: Vec<(u64, u32)>,
}

// ---------------------------------------------------------------------------------------------------------
// sched.expiration

/// `sched.expiration`: a job's expiration changed (JM → scheduler, sent to rank 0).
///
/// The JM packs `{s:I s:f}`. A scheduler may refuse (bad ID, would break a reservation, ...); ENOSYS (not
/// implemented, e.g. Fluxion) is treated as success.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.expiration",
    kind = "request",
    responds = ExpirationResponse
)]
pub struct ExpirationRequest {
    /// Job ID.
    pub id: u64,
    /// New expiration, seconds since the epoch. flux-core sends a **real**; RFC 27 (7e68e70) says integer.
    /// Reading it as `f64` also accepts the RFC's integers.
    pub expiration: f64,
}

/// Answer to [`ExpirationRequest`]: an empty payload on success (written here as `{}`; any object is read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.expiration", kind = "response")]
pub struct ExpirationResponse {}

// ---------------------------------------------------------------------------------------------------------
// sched.free

/// `sched.free`: give (part of) a job's resources back (JM → scheduler, fire-and-forget).
///
/// The JM encodes `{s:I s:O s:b}` id, R, final with `flux_request_encode` and has no response handler: there
/// is no response since flux-core v0.61.0 (RFC 27 fc28181). There may be several frees per job (partial
/// release by housekeeping, v0.64.0); the last one has `final: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest {
    /// Job ID.
    pub id: u64,
    /// The RFC 20 R being freed, possibly a subset of the allocation (a rank is never split); `scheduling`
    /// may be omitted. flux-core v0.61.0 (RFC 27 03c64cd); Fluxion requires it.
    #[serde(rename = "R")]
    #[wire(since = "0.61.0")]
    pub r: Value,
    /// Whether this is the last free for the job; absent or false means more will follow (flux-core v0.65.0,
    /// RFC 27 ee0f60a). flux-core always sends it; Fluxion reads it as optional.
    #[serde(rename = "final", default, skip_serializing_if = "Option::is_none")]
    #[wire(since = "0.65.0")]
    pub final_: Option<bool>,
}

// ---------------------------------------------------------------------------------------------------------
// feasibility.check

/// `feasibility.check`: could this jobspec ever be satisfied? (JM `update.c` and the validator → the
/// `feasibility` service).
///
/// The JM sends it to rank 0; RFC 27 (33c7e24) says `FLUX_NODEID_ANY`, for the validator. Before flux-core
/// v0.66.0 the topic was `sched.feasibility`. Fluxion serves it from its resource module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "feasibility.check",
    kind = "request",
    responds = FeasibilityResponse,
    since = "0.66.0"
)]
pub struct FeasibilityRequest {
    /// RFC 14 jobspec.
    pub jobspec: Value,
}

/// Answer to [`FeasibilityRequest`]: empty on success (written here as `{}`); an infeasible job gets an
/// error response with a human-readable text instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "feasibility.check",
    kind = "response",
    since = "0.66.0"
)]
pub struct FeasibilityResponse {}

// ---------------------------------------------------------------------------------------------------------
// sched.resource-status

/// `sched.resource-status`: the scheduler's view of the resources (tools → scheduler; `flux resource`).
///
/// **Not in RFC 27**: implemented by the schedulers (Python `Scheduler._handle_resource_status`, Fluxion
/// qmanager). Empty request payload (written here as `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Sched,
    topic = "sched.resource-status",
    kind = "request",
    responds = ResourceStatusResponse
)]
pub struct ResourceStatusRequest {}

/// Answer to [`ResourceStatusRequest`]: three RFC 20 R objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.resource-status", kind = "response")]
pub struct ResourceStatusResponse {
    /// Every resource the scheduler manages.
    pub all: Value,
    /// The resources allocated to jobs.
    pub allocated: Value,
    /// The resources that are down.
    pub down: Value,
}
