//! The exec eventlog: Flux RFC 50 (rfc 2db4679, 2026-06-11), the eventlog the exec system and the job shell
//! write to KVS `job.<id>.guest.exec.eventlog`, as flux-core v0.88.0 writes it (`job-exec/job-exec.c`,
//! `shell/`).
//!
//! Its events do not drive the job state (RFC 21 events do); they are stored and read back by tools
//! (`flux job attach`, `flux job wait-event`), so entries are declared `kind = "record"`. The format and the
//! representation are those of the job eventlog: see [`crate::eventlog`].
//!
//! Events: `init` (first) or `reattach`, `starting`, `recoverable`, `complete`, `log`, `shell-exit`, `done`
//! (last), posted by the exec system; and `shell.*` events, which RFC 50 reserves for the job shell with
//! implementation-defined contexts. flux-core's shell writes `shell.init` and `shell.start`, modelled here
//! as that shell writes them; any other event (a `re-starting` event was dropped from the RFC) is kept as
//! [`ExecEvent::Other`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use wirecheck::{Message, Protocol};

/// The exec eventlog (Flux RFC 50), versioned with the flux-core release that writes it.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "exec-eventlog", version = "0.88.0")]
pub struct ExecEventlog;

/// One line of an exec eventlog (RFC 18): a timestamp and an [`ExecEvent`].
///
/// The KVS key is `job.<id>.guest.exec.eventlog`; the topic names it without the job ID.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = ExecEventlog, topic = "job.guest.exec.eventlog", kind = "record")]
pub struct Entry {
    /// Seconds since the epoch.
    pub timestamp: f64,
    /// `name` and `context`.
    #[serde(flatten)]
    pub event: ExecEvent,
}

impl Entry {
    /// The event name (`"init"`, `"shell.start"`, ...).
    pub fn name(&self) -> &str {
        self.event.name()
    }
}

/// An RFC 50 event, internally tagged on `name` with the context in a `context` field (see
/// [`crate::eventlog`] for why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
pub enum ExecEvent {
    /// `init`: the exec system started working on the job; the first event. No context.
    Init,
    /// `reattach`: the exec system reattached to a running job (instead of `init`). No context.
    Reattach,
    /// `starting`: the job shells are being launched. No context.
    Starting,
    /// `recoverable`: the job can survive the loss of non-critical nodes. No context.
    Recoverable,
    /// `complete`: every job shell exited.
    Complete {
        /// Its context.
        context: CompleteContext,
    },
    /// `log`: a message from the exec system or a shell.
    Log {
        /// Its context.
        context: LogContext,
    },
    /// `shell-exit`: a job shell exited.
    ShellExit {
        /// Its context.
        context: ShellExitContext,
    },
    /// `done`: the exec system is done with the job; the last event. No context.
    Done,
    /// `shell.init` (flux-core's job shell; contexts of `shell.*` events are implementation-defined).
    #[serde(rename = "shell.init")]
    ShellInit {
        /// Its context.
        context: ShellInitContext,
    },
    /// `shell.start` (flux-core's job shell): every task started.
    #[serde(rename = "shell.start")]
    ShellStart {
        /// Its context.
        context: ShellStartContext,
    },
    /// Any other event (other `shell.*` events, future events), kept as written.
    #[serde(untagged)]
    Other {
        /// The event name; never one of [`KNOWN_EXEC_EVENTS`].
        name: ExecEventName,
        /// The context, if any (an object, as RFC 18 requires).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<Map<String, Value>>,
    },
}

/// The names of the events [`ExecEvent`] models with their own variant.
pub const KNOWN_EXEC_EVENTS: &[&str] = &[
    "init",
    "reattach",
    "starting",
    "recoverable",
    "complete",
    "log",
    "shell-exit",
    "done",
    "shell.init",
    "shell.start",
];

impl ExecEvent {
    /// The event name as written on the wire.
    pub fn name(&self) -> &str {
        match self {
            ExecEvent::Init => "init",
            ExecEvent::Reattach => "reattach",
            ExecEvent::Starting => "starting",
            ExecEvent::Recoverable => "recoverable",
            ExecEvent::Complete { .. } => "complete",
            ExecEvent::Log { .. } => "log",
            ExecEvent::ShellExit { .. } => "shell-exit",
            ExecEvent::Done => "done",
            ExecEvent::ShellInit { .. } => "shell.init",
            ExecEvent::ShellStart { .. } => "shell.start",
            ExecEvent::Other { name, .. } => name.as_str(),
        }
    }
}

/// The name of an [`ExecEvent::Other`] event: any string but the [`KNOWN_EXEC_EVENTS`] (a plain string on
/// the wire; see [`crate::eventlog::EventName`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ExecEventName(String);

impl ExecEventName {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A known exec event name (one of [`KNOWN_EXEC_EVENTS`]) whose payload did not match its variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownExecEventName(pub String);

impl fmt::Display for KnownExecEventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed `{}` exec event", self.0)
    }
}

impl std::error::Error for KnownExecEventName {}

impl TryFrom<String> for ExecEventName {
    type Error = KnownExecEventName;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        if KNOWN_EXEC_EVENTS.contains(&name.as_str()) {
            Err(KnownExecEventName(name))
        } else {
            Ok(ExecEventName(name))
        }
    }
}

impl From<ExecEventName> for String {
    fn from(name: ExecEventName) -> String {
        name.0
    }
}

/// Context of `complete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompleteContext {
    /// The greatest job shell wait status, as in the RFC 21 `finish` event (job-exec sends the same value
    /// to the job manager in its `finish` start response).
    pub status: i32,
}

/// Context of `log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogContext {
    /// Who logged it (`"flux-shell"`, ...).
    pub component: String,
    /// The stream (`"stderr"`, ...).
    pub stream: String,
    /// RFC 22 idset of the ranks the message comes from (a string, e.g. `"3"`).
    pub rank: String,
    /// The message.
    pub data: String,
}

/// Context of `shell-exit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellExitContext {
    /// The rank of the shell that exited.
    pub rank: u32,
    /// Its wait status.
    pub wait_status: i32,
    /// RFC 22 idset of the shells still active when the leader shell exited (RFC 50 437f1d1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_ranks: Option<String>,
}

/// Context of flux-core's `shell.init`, assembled from several shell components.
///
/// Its reader, `flux job attach`, decodes `{s:i s:s s?s s?i}` leader-rank, service, pty, capture: those two
/// keys are required, the others optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellInitContext {
    /// The rank of the leader shell (`shell.c`).
    #[serde(rename = "leader-rank")]
    pub leader_rank: u32,
    /// The number of shells (`shell.c` writes it; no reader requires it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// The shell's service name, `<userid>-shell-<jobid>` (`svc.c`).
    pub service: String,
    /// The leader's pty, when the job has one (`pty.c`: `"terminus.0"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pty: Option<String>,
    /// Set to 1 when the pty output is captured (`pty.c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<i32>,
}

/// Context of flux-core's `shell.start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShellStartContext {
    /// The RFC 34 task map (`shell.c`).
    pub taskmap: Value,
    /// True when the tasks are stopped for a debugger (`mpir/ptrace.c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<bool>,
}
