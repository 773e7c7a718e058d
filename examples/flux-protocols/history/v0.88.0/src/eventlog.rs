//! The job eventlog (RFC 21 events in the RFC 18 format) as flux-core v@VERSION@ writes and replays it.
//!
//! Stored in the KVS (`job.<id>.eventlog`) and read back by every later release: entries are records. Only
//! the events whose shape or meaning changed in the replayed history have their own variant; any other
//! event is kept as [`Event::Other`].

use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use wirecheck::{Message, Protocol};

/// The job eventlog, versioned with the flux-core release.
#[derive(Debug, Clone, Copy, Protocol)]
#[wire(name = "job-eventlog", version = "@VERSION@")]
pub struct JobEventlog;

/// One line of a job eventlog: a timestamp, `name` and `context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
#[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record")]
pub struct Entry {
    /// Seconds since the epoch: an `OrderedFloat`, the float itself on the wire.
    pub timestamp: OrderedFloat<f64>,
    /// `name` and `context`.
    #[serde(flatten)]
    pub event: Event,
}

/// An RFC 21 event, internally tagged on `name`, with its context in a `context` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
pub enum Event {
    /// `submit`: the job was submitted. The job stays NEW until `validate` (9f7aa094e, PR #4366; until v0.40
    /// `submit` moved it to DEPEND). A `submit` without `version` is a legacy eventlog, which has no
    /// `validate`: replay moves the job to DEPEND (29c5266b6, PR #4399, issue #4398).
    Submit {
        /// Its context.
        context: SubmitContext,
    },
    /// `validate`: the job passed validation, NEW → DEPEND (9f7aa094e, PR #4366). No context.
    Validate,
    /// `invalidate`: the job failed validation and is removed (9f7aa094e, PR #4366). No context.
    Invalidate,
    /// `priority`: the job's priority was (re)computed (fa4845ec4, PR #3404). Until v0.21 an event of this
    /// name, with `{priority, userid}`, meant what `urgency` means now.
    Priority {
        /// Its context.
        context: PriorityContext,
    },
    /// `urgency`: a user changed the job's urgency (6748083fa, PR #3394).
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
    /// `free`: the job's resources were released, posted when R is handed to housekeeping (3361ae25d,
    /// PR #5818; until v0.63, when `sched.free` was sent). No context.
    Free,
    /// `exception`: an exception was raised on the job.
    Exception {
        /// Its context.
        context: ExceptionContext,
    },
    /// Any other event, kept as written.
    #[serde(untagged)]
    Other {
        /// The event name; never one of [`KNOWN_EVENTS`].
        name: EventName,
        /// The context, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<Map<String, Value>>,
    },
}

/// The names of the events [`Event`] models with their own variant.
pub const KNOWN_EVENTS: &[&str] = &[
    "submit",
    "validate",
    "invalidate",
    "priority",
    "urgency",
    "alloc",
    "free",
    "exception",
];

/// The name of an [`Event::Other`] event: any string but the [`KNOWN_EVENTS`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EventName(String);

/// A known event name whose payload did not match its variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownEventName(pub String);

impl fmt::Display for KnownEventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed `{}` event", self.0)
    }
}

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

/// Context of `submit`. Replay requires `urgency`, `userid` and `flags` (else EPROTO), so the v0.21 context
/// with `priority` is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitContext {
    /// The job's urgency, 0..=31 (default 16) (6748083fa, PR #3394; was `priority`).
    pub urgency: u32,
    /// Submitting user.
    pub userid: u32,
    /// Submit flags (1 = debug).
    pub flags: u32,
    /// Eventlog format version, 1 (29c5266b6, PR #4399). Absent in legacy eventlogs; any other value is
    /// refused ("eventlog vN is unsupported").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
}

/// Context of `priority`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityContext {
    /// The job's priority, 0..=4294967295.
    pub priority: u32,
}

/// Context of `urgency`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrgencyContext {
    /// New urgency, 0..=31.
    pub urgency: u32,
    /// The user who changed it.
    pub userid: u32,
}

/// Context of `alloc` (89c2a0018, PR #2960; before, `{"note": ""}`, which still reads: `note` is ignored).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AllocContext {
    /// The scheduler's annotations at allocation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// Context of `exception`. job-list decodes `{s:s s:i s:s}`: `note` is required (7c4a54698, PR #5336;
/// RFC 21 90d4d2b); the job manager always writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionContext {
    /// Exception type (`cancel`, `timelimit`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Severity 0..=7; 0 is fatal to the job.
    pub severity: u32,
    /// The user who raised it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub userid: Option<u32>,
    /// Human-readable text, `""` if none.
    pub note: String,
    /// The wait status of the failed task, for `exec` task-exit exceptions only (RFC 21 55e10e2, PR #504;
    /// posted by flux-core v0.88.0 `raise.c`; the release it entered is not in the record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_status: Option<i32>,
}
