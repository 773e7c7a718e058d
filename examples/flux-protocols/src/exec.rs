//! The exec protocol: Flux RFC 32 "Flux Job Execution Protocol Version 1", as flux-core v0.88.0 implements
//! it (`job-manager/start.c`, `job-exec/job-exec.c`, `job-manager/kill.c`).
//!
//! An exec system registers itself with `job-manager.exec-hello {service}`, and the job manager (JM) then
//! sends `<service>.start` and `<service>.expiration`. wirecheck topics are fixed strings, so the topics here
//! use flux-core's exec module, whose service name is **`job-exec`** (`job-exec.start`,
//! `job-exec.expiration`); another exec system has the same payloads under its own name.
//!
//! Where flux-core and RFC 32 (rfc `4b15e2a`) differ, these types follow flux-core:
//! - `<service>.expiration` ([`ExpirationRequest`]) is not in RFC 32;
//! - RFC 32 (6712ec7) lets an exec-hello replace a registered service and has the JM re-issue outstanding
//!   starts with `reattach: true`; flux-core still fails the hello with EINVAL while a start is pending.
//!   That is behaviour, not payload shape, so the types are the same either way.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wirecheck::{Message, Protocol};

/// The exec protocol (Flux RFC 32), versioned with the flux-core release that speaks it.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "exec", version = "0.88.0")]
pub struct Exec;

/// `job-manager.exec-hello`: an exec system registers its service name (exec → JM, flux-core v0.12.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-manager.exec-hello",
    kind = "request",
    responds = ExecHelloResponse,
    since = "0.12.0"
)]
pub struct ExecHelloRequest {
    /// The service the JM sends `<service>.start` and `<service>.expiration` to (`"job-exec"`).
    pub service: String,
}

/// Answer to [`ExecHelloRequest`]: an empty payload (written here as `{}`; any object is read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-manager.exec-hello",
    kind = "response",
    since = "0.12.0"
)]
pub struct ExecHelloResponse {}

/// `<service>.start` (here `job-exec.start`): start, or reattach to, a job (JM → exec; streaming,
/// matchtag 0).
///
/// The JM packs `{s:I s:I s:O s:b s:O}` id, userid, jobspec, reattach, R; job-exec unpacks
/// `{s:I s:i s:O s:b s:o}` with every key required. The exec system answers with a stream of
/// [`StartResponse`]s.
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
    /// RFC 14 jobspec, environment possibly redacted (flux-core v0.22.0).
    #[wire(since = "0.22.0")]
    pub jobspec: Value,
    /// True when the job should still be running (broker restart or exec module reload): reattach instead
    /// of starting, and answer `reattached` (flux-core v0.32.0).
    #[wire(since = "0.32.0")]
    pub reattach: bool,
    /// The RFC 20 R of the job. Required by job-exec since flux-core v0.56.0 (993b890b7 / 2bb2330ae);
    /// documented in RFC 32 only in 2026 (3a23706).
    #[serde(rename = "R")]
    #[wire(since = "0.56.0")]
    pub r: Value,
}

/// One response in the [`StartRequest`] stream: `{id, type, data}` with `data` required for every type.
///
/// The JM decodes `{s:I s:s s:o}`; malformed `data` for a known type is logged as EPROTO (no teardown), a
/// conventional error response tears the exec interface down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exec.start", kind = "response")]
pub struct StartResponse {
    /// Job ID.
    pub id: u64,
    /// `type` and its `data`.
    #[serde(flatten)]
    pub body: StartResponseBody,
}

/// `type` and `data` of a [`StartResponse`] (adjacently tagged: `{"type": "...", "data": {...}}`).
///
/// The data-less types are empty struct variants, not unit variants: serde writes a unit variant without the
/// `data` key, but the JM requires `"data": {}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "lowercase")]
pub enum StartResponseBody {
    /// The job shells are running: the JM posts the `start` event. `data` is `{}`.
    Start {},
    /// Reattached to a running job after `reattach: true`: the JM posts only a debug event. `data` is `{}`.
    /// flux-core v0.32.0; documented in RFC 32 in 2026 (ef43e94).
    Reattached {},
    /// Some execution targets are released: the JM posts the `release` event. `final: true` ends the stream.
    Release(ReleaseData),
    /// The exec system raises an exception: the JM posts an `exception` event (userid = instance owner).
    Exception(ExceptionData),
    /// Every task exited: the JM posts the `finish` event.
    Finish(FinishData),
}

/// `data` of a `release` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseData {
    /// RFC 22 idset of the released ranks, or `"all"`.
    pub ranks: String,
    /// True when every execution target has been released; this is the last response of the stream.
    #[serde(rename = "final")]
    pub final_: bool,
}

/// `data` of an `exception` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionData {
    /// Severity 0..=7; 0 is fatal to the job.
    pub severity: u32,
    /// Exception type (`"exec"`, `"timeout"`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Human-readable text; the JM posts `""` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `data` of a `finish` start response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishData {
    /// The greatest wait status of the job shells; from the first severity-0 exception's `wait_status` when
    /// it has one (RFC 32 7f4b52a).
    pub status: i32,
}

/// `<service>.expiration` (here `job-exec.expiration`): a job's expiration changed (JM → exec).
///
/// **Not in RFC 32.** flux-core v0.56.0 (0cab4e3d3, PR #5522); the JM packs `{s:I s:f}`. A failure raises a
/// severity-1 `exec` exception on the job.
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
    /// New expiration, seconds since the epoch (a real).
    pub expiration: f64,
}

/// Answer to [`ExpirationRequest`]: empty on success (written here as `{}`; any object is read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(
    protocol = Exec,
    topic = "job-exec.expiration",
    kind = "response",
    since = "0.56.0"
)]
pub struct ExpirationResponse {}

/// Event `job-exception` (private, published by the JM): an exception was raised on a job; job-exec kills
/// the job when `severity` is 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "job-exception", kind = "event")]
pub struct JobExceptionEvent {
    /// Job ID.
    pub id: u64,
    /// Exception type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Severity 0..=7.
    pub severity: u32,
    /// The wait status of a failed task, for `exec` task-exit exceptions only (RFC 21 55e10e2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_status: Option<i32>,
}

/// Event `shell-<id>.kill` (published by the JM for `job-manager.kill`): signal the job's tasks.
///
/// The topic carries the job ID in decimal (`kill.c`: `"shell-%ju.kill"`, e.g. `shell-1552593348.kill`);
/// wirecheck topics are fixed strings, so it is written with the `<id>` placeholder. The job shells
/// subscribe to it; the signal number must be in 1..=SIGRTMAX.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Message)]
#[wire(protocol = Exec, topic = "shell-<id>.kill", kind = "event")]
pub struct ShellKillEvent {
    /// The signal number.
    pub signum: i32,
}
