//! The job eventlog: Flux RFC 21 "Job States and Events Version 1" in the RFC 18 eventlog format, as
//! flux-core v0.88.0 writes and replays it (`job-manager/event.c`, `submit.c`, `job.c`, `raise.c`, ...).
//!
//! The eventlog (KVS `job.<id>.eventlog`) is stored: every later release must still read what any earlier
//! one wrote, so its entries are declared `kind = "record"`. Each line is one JSON object
//! `{"timestamp": number, "name": string, "context"?: object}` ([`Entry`]).
//!
//! **Two versions.** The wirecheck protocol version (`0.88.0`) is the flux-core release, like the other
//! protocols of this crate. The eventlog format has its own version in the `submit` event context,
//! [`SubmitContext::version`], which has been 1 since flux-core v0.42.0 (absent before: "legacy").
//!
//! Where flux-core and RFC 21 (rfc `4b15e2a`) differ, these types follow flux-core: `resource-update`
//! `expiration` is a real (RFC: integer), and the journal-only `annotations` event, not in RFC 21, is
//! modelled too.
//!
//! ## Representation
//!
//! [`Event`] is internally tagged on `name`, and each variant that has a context holds it in a field
//! called `context`. This, rather than adjacent tagging (`tag = "name", content = "context"`), lets each
//! event say whether its context is required (`submit`, `exception`, ...), optional (`alloc`: flux-core
//! omits it when there are no annotations), or absent (unit variants such as `validate`, which accept a
//! missing or `null` context and also ignore a context that is present, as flux-core does). Events this
//! release does not know (RFC 21 allows them; `debug.*` events are free-form) land in the untagged
//! [`Event::Other`] variant with their name and context kept, so they round-trip; a *known* name with a
//! malformed context is rejected, not swallowed by it (see [`EventName`]).

use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use wirecheck::{Message, Protocol};

use crate::ProtocolError;

/// The job eventlog (Flux RFC 21 events in the RFC 18 format), versioned with the flux-core release.
/// The eventlog format's own version is [`EVENTLOG_VERSION`].
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "job-eventlog", version = "0.88.0")]
pub struct JobEventlog;

/// The eventlog format version written in the `submit` context ([`SubmitContext::version`]).
pub const EVENTLOG_VERSION: u32 = 1;

/// One line of a job eventlog (RFC 18): a timestamp and an [`Event`] (`name` and `context`).
///
/// The KVS key is `job.<id>.eventlog`; the topic names it without the job ID.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record")]
pub struct Entry {
    /// Seconds since the epoch (RFC 18: a number greater than zero). An `OrderedFloat` so that entries
    /// sort and compare by time (`f64` has no total order); on the wire it is the float itself, so
    /// wirecheck reads it as flux-core's `f64` (its catalogue knows ordered-float's impls).
    pub timestamp: OrderedFloat<f64>,
    /// `name` and `context`.
    #[serde(flatten)]
    pub event: Event,
}

impl Entry {
    /// The event name (`"submit"`, `"debug.alloc-request"`, ...).
    pub fn name(&self) -> &str {
        self.event.name()
    }

    /// flux-core's checks after decoding: see [`Event::validate`].
    pub fn validate(&self) -> Result<(), ProtocolError> {
        self.event.validate()
    }
}

/// Parses an eventlog as stored in the KVS: one JSON object per line (RFC 18); blank lines are skipped.
pub fn parse_eventlog(text: &str) -> Result<Vec<Entry>, serde_json::Error> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(serde_json::from_str)
        .collect()
}

/// An RFC 21 event: `name` and, for most events, `context`. The variants follow RFC 21 section 2.1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
pub enum Event {
    /// `submit`: the job was submitted. Must be the first event.
    Submit {
        /// Its context.
        context: SubmitContext,
    },
    /// `jobspec-update`: period-delimited jobspec paths and their new values (at least one). In SCHED it
    /// moves the job back to PRIORITY.
    JobspecUpdate {
        /// Path → new value.
        context: Map<String, Value>,
    },
    /// `resource-update`: R changed (only `expiration` is defined).
    ResourceUpdate {
        /// Its context.
        context: ResourceUpdateContext,
    },
    /// `validate`: the job passed validation, NEW → DEPEND (flux-core v0.41.0; before, `submit` did this).
    /// No context.
    Validate,
    /// `invalidate`: the job failed validation and is removed (flux-core v0.41.0; journal only). No context.
    Invalidate,
    /// `set-flags`: flags set on the job.
    SetFlags {
        /// Its context.
        context: SetFlagsContext,
    },
    /// `dependency-add`: a dependency was added.
    DependencyAdd {
        /// Its context.
        context: DependencyContext,
    },
    /// `dependency-remove`: a dependency was satisfied.
    DependencyRemove {
        /// Its context.
        context: DependencyContext,
    },
    /// `depend`: every dependency is satisfied, DEPEND → PRIORITY. No context.
    Depend,
    /// `priority`: the job's priority was (re)computed (flux-core v0.22.0; an older `priority` event with
    /// `{priority, userid}` meant what `urgency` means now).
    Priority {
        /// Its context.
        context: PriorityContext,
    },
    /// `flux-restart`: the instance restarted while the job was in SCHED, SCHED → PRIORITY. No context.
    FluxRestart,
    /// `urgency`: a user changed the job's urgency (flux-core v0.22.0; was `admin-priority` in the RFC).
    Urgency {
        /// Its context.
        context: UrgencyContext,
    },
    /// `alloc`: resources were allocated. flux-core posts `{"annotations": ...}`, or no context at all when
    /// there are no annotations.
    Alloc {
        /// Its context, absent when there are no annotations.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<AllocContext>,
    },
    /// `prolog-start`: a prolog action started.
    PrologStart {
        /// Its context.
        context: PerilogStartContext,
    },
    /// `prolog-finish`: a prolog action finished.
    PrologFinish {
        /// Its context.
        context: PerilogFinishContext,
    },
    /// `epilog-start`: an epilog action started.
    EpilogStart {
        /// Its context.
        context: PerilogStartContext,
    },
    /// `epilog-finish`: an epilog action finished.
    EpilogFinish {
        /// Its context.
        context: PerilogFinishContext,
    },
    /// `free`: resources were released. Since flux-core v0.64.0 it is posted when R is handed to
    /// housekeeping, not when the scheduler acknowledges. No context.
    Free,
    /// `start`: the job shells started. No context.
    Start,
    /// `release`: some execution targets were released.
    Release {
        /// Its context.
        context: ReleaseContext,
    },
    /// `finish`: every task exited.
    Finish {
        /// Its context.
        context: FinishContext,
    },
    /// `clean`: CLEANUP → INACTIVE. No context.
    Clean,
    /// `exception`: an exception was raised on the job.
    Exception {
        /// Its context.
        context: ExceptionContext,
    },
    /// `memo`: user annotations; a `null` value deletes the key.
    Memo {
        /// Key → value.
        context: Map<String, Value>,
    },
    /// `annotations` (**not in RFC 21**): the job's annotations changed. flux-core writes it only to the
    /// job-manager journal (`EVENT_NO_COMMIT`), never to the KVS eventlog.
    Annotations {
        /// Its context.
        context: AnnotationsContext,
    },
    /// Any event this release does not know: `debug.*` (free-form: `debug.alloc-request`,
    /// `debug.start-lost`, ...) and future events, which RFC 21 allows. Kept as written.
    #[serde(untagged)]
    Other {
        /// The event name; never one of [`KNOWN_EVENTS`].
        name: EventName,
        /// The context, if any (an object, as RFC 18 requires).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<Map<String, Value>>,
    },
}

/// The names of the events [`Event`] models with their own variant.
pub const KNOWN_EVENTS: &[&str] = &[
    "submit",
    "jobspec-update",
    "resource-update",
    "validate",
    "invalidate",
    "set-flags",
    "dependency-add",
    "dependency-remove",
    "depend",
    "priority",
    "flux-restart",
    "urgency",
    "alloc",
    "prolog-start",
    "prolog-finish",
    "epilog-start",
    "epilog-finish",
    "free",
    "start",
    "release",
    "finish",
    "clean",
    "exception",
    "memo",
    "annotations",
];

impl Event {
    /// The event name as written on the wire.
    pub fn name(&self) -> &str {
        match self {
            Event::Submit { .. } => "submit",
            Event::JobspecUpdate { .. } => "jobspec-update",
            Event::ResourceUpdate { .. } => "resource-update",
            Event::Validate => "validate",
            Event::Invalidate => "invalidate",
            Event::SetFlags { .. } => "set-flags",
            Event::DependencyAdd { .. } => "dependency-add",
            Event::DependencyRemove { .. } => "dependency-remove",
            Event::Depend => "depend",
            Event::Priority { .. } => "priority",
            Event::FluxRestart => "flux-restart",
            Event::Urgency { .. } => "urgency",
            Event::Alloc { .. } => "alloc",
            Event::PrologStart { .. } => "prolog-start",
            Event::PrologFinish { .. } => "prolog-finish",
            Event::EpilogStart { .. } => "epilog-start",
            Event::EpilogFinish { .. } => "epilog-finish",
            Event::Free => "free",
            Event::Start => "start",
            Event::Release { .. } => "release",
            Event::Finish { .. } => "finish",
            Event::Clean => "clean",
            Event::Exception { .. } => "exception",
            Event::Memo { .. } => "memo",
            Event::Annotations { .. } => "annotations",
            Event::Other { name, .. } => name.as_str(),
        }
    }

    /// flux-core's checks after decoding: a `submit` with a `version` other than [`EVENTLOG_VERSION`] makes
    /// the job manager refuse the eventlog ("eventlog v%d is unsupported"); a missing version is legacy and
    /// accepted.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        match self {
            Event::Submit { context } => context.validate(),
            _ => Ok(()),
        }
    }
}

/// The name of an [`Event::Other`] event: any string but the [`KNOWN_EVENTS`].
///
/// Encoded as a plain string (`#[serde(try_from = "String", into = "String")]`); refusing the known names is
/// what makes an `exception` without `note` an error instead of an `Other` event.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EventName(String);

impl EventName {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is a `debug.*` event.
    pub fn is_debug(&self) -> bool {
        self.0.starts_with("debug.")
    }
}

/// A known event name (one of [`KNOWN_EVENTS`]) whose payload did not match its variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownEventName(pub String);

impl fmt::Display for KnownEventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed `{}` event", self.0)
    }
}

impl std::error::Error for KnownEventName {}

impl TryFrom<String> for EventName {
    type Error = KnownEventName;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        if KNOWN_EVENTS.contains(&name.as_str()) {
            Err(KnownEventName(name))
        } else {
            Ok(EventName(name))
        }
    }
}

impl From<EventName> for String {
    fn from(name: EventName) -> String {
        name.0
    }
}

/// Context of `submit`. flux-core posts `{s:I s:i s:i s:i}` userid, urgency, flags, version and on replay
/// requires `{s:i s:i s:i}` urgency, userid, flags (else EPROTO).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitContext {
    /// Urgency 0..=31, default 16 (flux-core v0.22.0; the key was `priority` before, which v0.22.0 and later
    /// refuse to replay).
    pub urgency: u32,
    /// Submitting user.
    pub userid: u32,
    /// Submit flags (bit mask; 1 = debug).
    pub flags: u32,
    /// Eventlog format version, [`EVENTLOG_VERSION`] (flux-core v0.42.0, RFC 21 8cbcfba). Absent in older
    /// eventlogs, which are replayed as legacy ones; any other value is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
}

impl SubmitContext {
    /// Accepts a missing version (legacy) or [`EVENTLOG_VERSION`], as flux-core's `job.c` does.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        match self.version {
            None | Some(EVENTLOG_VERSION) => Ok(()),
            Some(other) => Err(ProtocolError::new(
                "job.eventlog",
                format!("eventlog v{other} is unsupported"),
            )),
        }
    }
}

/// Context of `resource-update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdateContext {
    /// New expiration, seconds since the epoch. flux-core posts a **real** (`{s:f}`) and reads `{s:F}`
    /// (any number); RFC 21 (11d3b87) says integer. Reading `f64` accepts both; writing gives a real.
    pub expiration: f64,
}

/// Context of `set-flags`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetFlagsContext {
    /// Names of the flags set (`"debug"`, `"waitable"`, `"alloc-bypass"`, ...).
    pub flags: Vec<String>,
}

/// Context of `dependency-add` and `dependency-remove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependencyContext {
    /// Name or description of the dependency.
    pub description: String,
}

/// Context of `priority`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityContext {
    /// Priority 0..=4294967295 (posted and decoded as `I`).
    pub priority: u32,
}

/// Context of `urgency`. flux-core posts `{s:I s:i}` userid, urgency and decodes `{s:i}` urgency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrgencyContext {
    /// New urgency 0..=31.
    pub urgency: u32,
    /// The user who changed it.
    pub userid: u32,
}

/// Context of `alloc`.
///
/// flux-core v0.17 posted `{"note": ""}`; since v0.18.0 it posts `{"annotations": {...}}` or no context.
/// `annotations` is optional so that old eventlogs still read (the `note` key is ignored).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AllocContext {
    /// The scheduler's annotations at allocation time (RFC 27).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// Context of `prolog-start` and `epilog-start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerilogStartContext {
    /// Name or description of the action.
    pub description: String,
}

/// Context of `prolog-finish` and `epilog-finish`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerilogFinishContext {
    /// Name or description of the action.
    pub description: String,
    /// Its status; 0 is success.
    pub status: i32,
}

/// Context of `release`. flux-core decodes only `{s:b}` final; `ranks` is always written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseContext {
    /// RFC 22 idset of the released ranks, or `"all"`.
    pub ranks: String,
    /// True when every resource of the job has been released.
    #[serde(rename = "final")]
    pub final_: bool,
}

/// Context of `finish`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishContext {
    /// The greatest job shell wait status (or the first severity-0 exception's `wait_status`).
    pub status: i32,
}

/// Context of `exception`. flux-core (`raise.c`) posts `{type, severity, note}` plus `userid` and
/// `wait_status` when it has them.
///
/// `note` is **required** ("" when there is none, RFC 21 90d4d2b): job-list decodes `{s:s s:i s:s}` since
/// flux-core v0.53.0 and stops on an exception without a note ("Protocol error", flux-core #6751), though the
/// job manager itself only needs type and severity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionContext {
    /// Exception type (`cancel`, `timelimit`, `depend`, `alloc`, `start`, `free`, `exec`,
    /// `scheduler-restart`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Severity 0..=7; 0 is fatal to the job.
    pub severity: u32,
    /// Human-readable text, `""` if none.
    pub note: String,
    /// The user who raised it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub userid: Option<u32>,
    /// The wait status of the failed task, for `exec` task-exit exceptions only (RFC 21 55e10e2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_status: Option<i32>,
}

/// Context of the journal-only `annotations` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotationsContext {
    /// The job's annotations, or `null` when they were cleared.
    pub annotations: Value,
}
