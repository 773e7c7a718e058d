//! The skew test: decode every committed wire fixture of every release that must interoperate with the current
//! types, in your own `cargo test` (feature `testing`: serde_json and nothing of the checker).
//!
//! `wirecheck fixtures write` keeps, per protocol and release, payloads generated from the release's schema
//! (`wire-fixtures/<protocol>/<version>/<topic>.<kind>.json`; the layout is described in the checker's
//! `wirecheck::fixtures` module and in the README). The checker compares schemas; it cannot see a `try_from`
//! that now rejects a value, a custom `deserialize_with`, or a range that narrowed inside the same Rust type.
//! [`Skew`] runs the real code on the old payloads:
//!
//! ```no_run
//! # use serde::{Deserialize, Serialize};
//! # use wirecheck::{Message, Protocol};
//! # #[derive(Protocol)]
//! # #[wire(name = "sched", version = "0.88.0")]
//! # pub struct Sched;
//! # #[derive(Serialize, Deserialize, Message)]
//! # #[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
//! # pub struct AllocRequest { pub id: u64 }
//! # #[derive(Serialize, Deserialize, Message)]
//! # #[wire(protocol = Sched, topic = "sched.cancel", kind = "request")]
//! # pub struct CancelRequest { pub id: u64 }
//! use wirecheck::testing::Skew;
//!
//! #[test]
//! fn wire_skew() {
//!     Skew::new(concat!(env!("CARGO_MANIFEST_DIR"), "/wire-fixtures"))
//!         .message::<AllocRequest>()
//!         .message::<CancelRequest>()
//!         .assert();
//! }
//! ```
//!
//! # What is checked
//!
//! For each protocol of the listed messages, with the current declared version `V` and minimum `M`
//! (`min_compatible`, else the first release of `V`'s series:
//! [`window_minimum`](crate::handshake::window_minimum), the window the checker proves and the handshake
//! accepts), every fixture folder `R` with `R <= V`:
//!
//! - from `M` to `V` (the current version's own folder included): every message, in the directions the
//!   checker's table gives its kind under the protocol's `upgrade` order ([`directions`]);
//! - below `M`: only `record` messages, new reads old (every later release must read stored records back);
//! - newer than `V`: skipped (they belong to another branch).
//!
//! Per case of a fixture file:
//!
//! - **new reads old**: the payload, as JSON text, must decode with the current type
//!   (`serde_json::from_str`): this runs `try_from`, `deserialize_with`, and every check serde does.
//! - **old reads new**: the old release's own types are not available, so the check is on what the current
//!   writer does with the old release's data: the decoded value is encoded again (`serde_json::to_value`), and
//!   the result must contain the old payload: every key it had, with the same value, recursively (arrays
//!   element by element; an integer must stay an integer, since integer readers reject `1.0`). When a type of
//!   the old message denies unknown fields (the file's `strict`), it must be exactly the old payload. The
//!   guarantee: an old reader that accepted the old payload (it is what the old release writes) finds the same
//!   keys and values in what the current release writes for the same data, and, unless it denies unknown
//!   fields, ignores the rest. It does not cover payloads only the current release can produce (a new variant,
//!   a value beyond the old range): `wirecheck check` decides those from the schemas. When the direction set
//!   has no new-reads-old and the current type cannot decode the old payload, there is no value to encode: the
//!   case is counted as not representable, not as a failure.
//!
//! Also a failure: a listed message with no fixture in the current version's folder (run `wirecheck fixtures
//! write`: the step cannot be forgotten), and a fixture of a checked release whose message no listed type
//! matches (by protocol, topic and kind; the type name breaks ties), so the list cannot silently fall short.
//!
//! Payloads are the serde data model in JSON whatever the protocol's `format`; they are decoded with serde_json.
//! For `cbor` and `msgpack` that is the same data model; for the positional `bincode` and `postcard` it checks
//! values (what a `try_from` accepts) but not the byte layout, which `wirecheck check` judges statically.
//!
//! Breaks that shipped on purpose are declared with [`Known`] and a reason: their failures are still listed,
//! not counted; a [`Known`] entry that matches nothing is itself a failure, so entries cannot outlive the break.

mod fixture_file;
mod outcome;
mod payload;
mod protocol_check;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use self::outcome::apply_known;
pub use self::outcome::{Failure, Known, Outcome};
use self::protocol_check::check_protocol;
use crate::{Kind, Message, Protocol, ProtocolInfo, Upgrade};

/// The directions that must work for a message, as in the checker's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Directions {
    /// Current readers decode what older releases wrote.
    pub new_reads_old: bool,
    /// Older readers decode what the current release writes.
    pub old_reads_new: bool,
}

/// The directions the checker's table needs for a message of `kind` under the `upgrade` order: both, except
/// requests and responses under `server-first` / `client-first` (events and records always need both).
///
/// ```
/// use wirecheck::testing::directions;
/// use wirecheck::{Kind, Upgrade};
///
/// let d = directions(Kind::Request, Upgrade::ServerFirst);
/// assert!(d.new_reads_old && !d.old_reads_new);
/// ```
pub fn directions(kind: Kind, upgrade: Upgrade) -> Directions {
    let (new_reads_old, old_reads_new) = match (kind, upgrade) {
        (Kind::Event | Kind::Record, _) | (_, Upgrade::AnyOrder) => (true, true),
        (Kind::Request, Upgrade::ServerFirst) | (Kind::Response, Upgrade::ClientFirst) => {
            (true, false)
        }
        (Kind::Request, Upgrade::ClientFirst) | (Kind::Response, Upgrade::ServerFirst) => {
            (false, true)
        }
    };
    Directions {
        new_reads_old,
        old_reads_new,
    }
}

/// Why a payload did not go through the current type.
enum RoundTrip {
    /// Decoding failed (serde's message).
    Rejected(String),
    /// Decoding worked, encoding again failed.
    Unwritable(String),
}

/// Decodes `text` as an `M` and encodes the value again, as the current release would write it.
fn round_trip<M: Serialize + DeserializeOwned>(text: &str) -> Result<Value, RoundTrip> {
    let value: M = serde_json::from_str(text).map_err(|e| RoundTrip::Rejected(e.to_string()))?;
    serde_json::to_value(&value).map_err(|e| RoundTrip::Unwritable(e.to_string()))
}

/// A listed message type.
struct Entry {
    protocol: ProtocolInfo,
    topic: &'static str,
    kind: Kind,
    /// The type's name without its module path (what fixture headers call `message`).
    name: String,
    /// The full type name, to list a type once.
    full_name: &'static str,
    round_trip: fn(&str) -> Result<Value, RoundTrip>,
}

/// The skew test: the message types to check and the fixtures folder. See the [module docs](self).
pub struct Skew {
    dir: PathBuf,
    entries: Vec<Entry>,
    known: Vec<Known>,
}

impl fmt::Debug for Skew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skew")
            .field("dir", &self.dir)
            .field(
                "messages",
                &self.entries.iter().map(|e| e.full_name).collect::<Vec<_>>(),
            )
            .field("known", &self.known)
            .finish()
    }
}

impl Skew {
    /// A skew test of the fixtures in `dir` (usually `concat!(env!("CARGO_MANIFEST_DIR"), "/wire-fixtures")`).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Skew {
            dir: dir.into(),
            entries: Vec::new(),
            known: Vec::new(),
        }
    }

    /// Checks the message type `M` (list every message of the protocols under test: a fixture no listed type
    /// matches is a failure).
    pub fn message<M>(mut self) -> Self
    where
        M: Message + Serialize + DeserializeOwned + 'static,
    {
        let full_name = std::any::type_name::<M>();
        if self.entries.iter().all(|e| e.full_name != full_name) {
            let plain = full_name.split('<').next().unwrap_or(full_name);
            self.entries.push(Entry {
                protocol: <M::Protocol as Protocol>::info(),
                topic: M::TOPIC,
                kind: M::KIND,
                name: plain.rsplit("::").next().unwrap_or(plain).to_owned(),
                full_name,
                round_trip: round_trip::<M>,
            });
        }
        self
    }

    /// Accepts the failures `known` matches (a break that shipped on purpose), with its reason.
    pub fn known(mut self, known: Known) -> Self {
        self.known.push(known);
        self
    }

    /// Panics with the [`Outcome`]'s report when a failure counts; prints the report to stderr otherwise.
    #[track_caller]
    pub fn assert(&self) {
        let outcome = self.run();
        if outcome.ok() {
            eprint!("{outcome}");
        } else {
            panic!("{outcome}");
        }
    }

    /// Runs the test.
    pub fn run(&self) -> Outcome {
        let mut outcome = Outcome {
            dir: self.dir.clone(),
            ..Outcome::default()
        };
        let mut failures = Vec::new();
        let mut protocols: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
        for entry in &self.entries {
            protocols
                .entry(entry.protocol.name)
                .or_default()
                .push(entry);
        }
        for (name, entries) in &protocols {
            check_protocol(&self.dir, name, entries, &mut outcome, &mut failures);
        }
        apply_known(&self.known, &mut failures, &self.dir);
        let (known, counted): (Vec<Failure>, Vec<Failure>) = failures
            .into_iter()
            .partition(|failure| failure.known.is_some());
        outcome.failures = counted;
        outcome.known = known;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_follow_the_table() {
        use Kind::*;
        use Upgrade::*;
        let both = Directions {
            new_reads_old: true,
            old_reads_new: true,
        };
        for kind in [Request, Response, Event, Record] {
            assert_eq!(directions(kind, AnyOrder), both);
        }
        for upgrade in [ServerFirst, ClientFirst] {
            assert_eq!(directions(Event, upgrade), both);
            assert_eq!(directions(Record, upgrade), both);
        }
        assert!(!directions(Request, ServerFirst).old_reads_new);
        assert!(!directions(Response, ServerFirst).new_reads_old);
        assert!(!directions(Request, ClientFirst).new_reads_old);
        assert!(!directions(Response, ClientFirst).old_reads_new);
    }
}
