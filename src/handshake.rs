//! Runtime handshake: peers agree on protocol versions by the rule the checker enforces.
//!
//! The checker proves, before merge, that a release interoperates with the releases it claims to. The handshake
//! makes running peers act on that claim when they connect, in the shape the Flux maintainers proposed for
//! connections to the broker (flux-core issue #3157): each peer sends a [`Hello`] that lists every protocol it
//! speaks with its version and `min_compatible`, plus free key/value pairs, and [`negotiate`] accepts or refuses
//! every protocol both peers speak, with a [`Refusal`] a person can act on.
//!
//! ```
//! use wirecheck::handshake::{negotiate, Hello, ProtocolVersion};
//!
//! // In a service, `Hello::new("job-manager").with::<Sched>()` lists the declared protocol.
//! let job_manager = Hello::new("job-manager")
//!     .with_entry(ProtocolVersion::new("sched", "0.88.0").with_min_compatible("0.87.0"));
//! let scheduler = Hello::new("scheduler").with_entry(ProtocolVersion::new("sched", "0.86.2"));
//!
//! let refused = negotiate(&job_manager, &scheduler).unwrap_err();
//! assert_eq!(
//!     refused.to_string(),
//!     "scheduler speaks sched 0.86.2; this job-manager accepts 0.87.0 and later: upgrade the scheduler first",
//! );
//!
//! // The scheduler reaches the same verdict from its side.
//! let refused = negotiate(&scheduler, &job_manager).unwrap_err();
//! assert_eq!(
//!     refused.to_string(),
//!     "job-manager speaks sched 0.88.0, which accepts 0.87.0 and later; \
//!      this scheduler speaks 0.86.2: upgrade the scheduler first",
//! );
//! ```
//!
//! # The rule
//!
//! Each protocol entry of a hello has a version `V` and a minimum `M`:
//!
//! - `M` is the declared `min_compatible` when there is one (it may reach back across majors, or stay above the
//!   default);
//! - otherwise `M` is the first release of `V`'s compatibility series, by Cargo's semver convention (the one the
//!   checker's version arithmetic uses): `x.0.0` for `x.y.z` with `x >= 1`, `0.y.0` for `0.y.z` with `y >= 1`, and
//!   `0.0.z` itself for `0.0.z`. A pre-release below that first release (`1.0.0-rc.1`) is its own minimum. See
//!   [`default_min_compatible`].
//!
//! A hello whose `M` is above its `V` is malformed.
//!
//! **One peer's view** ([`Compat::accepts`]): a peer at `(V, M)` accepts a peer at version `P` (with minimum `N`)
//! when `M <= P`, and either `P <= V`, or `P` is newer and the newer peer's own minimum accepts the older one
//! (`N <= V`). The older peer has no upper bound of its own: it cannot know what a later release changed, so it
//! defers to the later release's `min_compatible`, which the checker verified against every release from it on.
//! That is how an older peer accepts a newer one from the next series.
//!
//! **Both views agree.** Since every valid hello has `M <= V`, each peer's view reduces to the same symmetric
//! condition, so the two ends of a connection always reach the same verdict from the same two hellos:
//!
//! > Two peers interoperate on a protocol when each one's version is at or above the other's minimum.
//!
//! When they do not, exactly one of them is below the other's minimum (both cannot be: that would need
//! `V₁ < M₂ <= V₂ < M₁ <= V₁`). That peer is older, and it is the one to upgrade, to at least the other's
//! minimum; the refusal says so ([`Refusal::upgrade`]).
//!
//! | this peer: `V` (`M`) | other peer: `V` (`M`) | verdict |
//! |---|---|---|
//! | 1.4.2 (1.0.0) | 1.4.7 (1.0.0) | accepted: patch skew |
//! | 1.4.2 (1.0.0) | 1.6.0 (1.0.0) or 1.2.0 (1.0.0) | accepted: minor skew, either way |
//! | 1.4.2 (1.0.0) | 2.0.0 (2.0.0) | refused: upgrade this peer, it is below 2.0.0 |
//! | 1.4.2 (1.0.0) | 2.0.0 (declared 1.3.0) | accepted: the newer peer vouches for 1.3.0 and later |
//! | 0.88.0 (0.88.0) | 0.88.5 (0.88.0) | accepted: for 0.y, the same y |
//! | 0.88.0 (0.88.0) | 0.87.9 (0.87.0) | refused: upgrade the other peer, it is below 0.88.0 |
//! | 0.88.0 (declared 0.87.0) | 0.87.9 (0.87.0) | accepted (0.86.2 would be refused) |
//! | 0.0.3 (0.0.3) | 0.0.4 (0.0.4) | refused: for 0.0.z, only the same z |
//!
//! Versions are compared by semver precedence: build metadata (`+abc`) is ignored, a pre-release is below its
//! release.
//!
//! Why this is the checker's rule: the checker refuses a merge whose declared version is short of the bump its
//! changes need, so two releases of one series interoperate, and so does a release with every release from its
//! `min_compatible` on (the checker compares it against each of them). What the handshake does not look at is
//! the protocol's `upgrade` order: a hello carries no server or client side per protocol, so a `server-first`
//! protocol is accepted in both mixed orders, though the checker only proved one of them.
//!
//! # Protocols only one side speaks
//!
//! They are not a refusal (a broker speaks many protocols, a tool only a few): [`negotiate`] leaves them out of
//! the agreed set and lists them in [`Agreement::local_only`] and [`Agreement::remote_only`].
//! [`Agreement::require`] turns a missing protocol the caller needs into an error.
//!
//! # The hello is a wirecheck protocol
//!
//! [`Hello`] is a [message](crate::Message) of the [`HelloProtocol`] (`wirecheck-hello`), and [`Hello::new`]
//! lists that protocol itself, so the hello's own version is negotiated like any other protocol's.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use semver::Version;
use serde::{Deserialize, Serialize};

#[cfg(feature = "derive")]
use crate::Message;
use crate::{Protocol, ProtocolInfo};

/// The handshake's own protocol, `wirecheck-hello`, whose one message is [`Hello`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
// Declared with the derive when it is there (feature `derive`, on by default). Without it the same impls are
// written by hand below (`manual`), so that `default-features = false` keeps the handshake: the feature only
// decides whether the derive macros exist, not which runtime APIs do.
#[cfg_attr(feature = "derive", derive(Protocol))]
#[cfg_attr(feature = "derive", wire(name = "wirecheck-hello", version = "0.1.0"))]
pub struct HelloProtocol;

/// What a peer sends when a connection opens: its role, the protocols it speaks, and free key/value pairs.
///
/// On the wire (JSON):
///
/// ```json
/// {"role":"scheduler",
///  "protocols":[{"name":"wirecheck-hello","version":"0.1.0"},{"name":"sched","version":"0.86.2"}],
///  "attributes":{"pid":"4242"}}
/// ```
///
/// Versions travel as strings so that a bad one reaches [`negotiate`], which reports it as a malformed hello,
/// instead of failing the decode. Unknown keys are ignored, so later versions of the hello can add some.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "derive", derive(Message))]
// Both peers write and read it: an event.
#[cfg_attr(
    feature = "derive",
    wire(protocol = HelloProtocol, topic = "wirecheck.hello", kind = "event")
)]
pub struct Hello {
    /// The peer's role, used to name it in messages (`job-manager`, `scheduler`).
    pub role: String,
    /// Every protocol the peer speaks, each listed once.
    pub protocols: Vec<ProtocolVersion>,
    /// Free key/value pairs (hostname, pid, build, features); the handshake does not interpret them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

/// The impls `#[derive(Protocol)]` and `#[derive(Message)]` generate from the `#[wire(...)]` declarations above,
/// written by hand for builds without the derive. Keep them in step with those declarations;
/// `tests::the_hello_is_declared_as_a_wirecheck_protocol` pins every constant in both builds.
#[cfg(not(feature = "derive"))]
mod manual {
    use super::{Hello, HelloProtocol};
    use crate::{Format, Kind, Message, Protocol, ResponseMode, Upgrade};

    impl Protocol for HelloProtocol {
        const NAME: &'static str = "wirecheck-hello";
        const VERSION: &'static str = "0.1.0";
        const MIN_COMPATIBLE: Option<&'static str> = None;
        const UPGRADE: Upgrade = Upgrade::AnyOrder;
        const FORMAT: Format = Format::Json;
    }

    impl Message for Hello {
        type Protocol = HelloProtocol;
        type Response = ();
        const TOPIC: &'static str = "wirecheck.hello";
        const KIND: Kind = Kind::Event;
        const RESPONSE: ResponseMode = ResponseMode::None;
        const SINCE: Option<&'static str> = None;
    }
}

impl Hello {
    /// A hello for a peer in `role` that lists the handshake's own protocol ([`HelloProtocol`]) and nothing else.
    pub fn new(role: impl Into<String>) -> Self {
        Hello {
            role: role.into(),
            protocols: Vec::new(),
            attributes: BTreeMap::new(),
        }
        .with::<HelloProtocol>()
    }

    /// Adds the protocol `P` as its `Protocol` impl (the derive) declares it: name, version, `min_compatible`.
    pub fn with<P: Protocol>(self) -> Self {
        self.with_entry(P::info())
    }

    /// Adds a protocol entry, replacing any entry with the same name (so an override can follow [`Hello::with`]).
    pub fn with_entry(mut self, entry: impl Into<ProtocolVersion>) -> Self {
        let entry = entry.into();
        match self.protocols.iter_mut().find(|e| e.name == entry.name) {
            Some(existing) => *existing = entry,
            None => self.protocols.push(entry),
        }
        self
    }

    /// Adds a free key/value pair, replacing any value already under `key`.
    pub fn with_attribute(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.attributes.insert(key.into(), value.into());
        self
    }

    /// The entry for the protocol called `name`, if the hello lists it.
    pub fn entry(&self, name: &str) -> Option<&ProtocolVersion> {
        self.protocols.iter().find(|e| e.name == name)
    }

    /// Checks the hello on its own: a role, named protocols each listed once, semantic versions, and
    /// `min_compatible` not above the version. Returns the parsed versions by protocol name.
    pub fn validate(&self) -> Result<BTreeMap<&str, Compat>, HelloProblem> {
        if self.role.trim().is_empty() {
            return Err(HelloProblem::EmptyRole);
        }
        let mut parsed = BTreeMap::new();
        for entry in &self.protocols {
            if entry.name.trim().is_empty() {
                return Err(HelloProblem::EmptyProtocolName);
            }
            let compat = entry.parse()?;
            if parsed.insert(entry.name.as_str(), compat).is_some() {
                return Err(HelloProblem::DuplicateProtocol {
                    protocol: entry.name.clone(),
                });
            }
        }
        Ok(parsed)
    }
}

/// One protocol in a [`Hello`]: its name, the version the peer speaks, and the declared `min_compatible`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProtocolVersion {
    /// The protocol's name ([`Protocol::NAME`]).
    pub name: String,
    /// The version the peer speaks, a semantic version ([`Protocol::VERSION`]).
    pub version: String,
    /// The oldest version the peer declares it interoperates with ([`Protocol::MIN_COMPATIBLE`]); when absent,
    /// the first release of the version's series ([`default_min_compatible`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_compatible: Option<String>,
}

impl ProtocolVersion {
    /// An entry for protocol `name` at `version`, without a declared `min_compatible`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ProtocolVersion {
            name: name.into(),
            version: version.into(),
            min_compatible: None,
        }
    }

    /// The entry for protocol `P` as its `Protocol` impl declares it.
    pub fn of<P: Protocol>() -> Self {
        P::info().into()
    }

    /// Sets the declared `min_compatible`.
    pub fn with_min_compatible(mut self, min_compatible: impl Into<String>) -> Self {
        self.min_compatible = Some(min_compatible.into());
        self
    }

    /// Parses the version and the minimum (declared or default); the minimum may not be above the version.
    pub fn parse(&self) -> Result<Compat, HelloProblem> {
        let version = self.parse_field("version", &self.version)?;
        let (minimum, minimum_source) = match &self.min_compatible {
            Some(text) => (
                self.parse_field("min_compatible", text)?,
                MinimumSource::Declared,
            ),
            None => (default_min_compatible(&version), MinimumSource::Series),
        };
        if minimum.cmp_precedence(&version) == Ordering::Greater {
            return Err(HelloProblem::MinimumAboveVersion {
                protocol: self.name.clone(),
                min_compatible: minimum.to_string(),
                version: version.to_string(),
            });
        }
        Ok(Compat {
            version,
            minimum,
            minimum_source,
        })
    }

    fn parse_field(&self, field: &'static str, text: &str) -> Result<Version, HelloProblem> {
        Version::parse(text).map_err(|error| HelloProblem::InvalidVersion {
            protocol: self.name.clone(),
            field,
            text: text.to_owned(),
            reason: error.to_string(),
        })
    }
}

impl From<ProtocolInfo> for ProtocolVersion {
    fn from(info: ProtocolInfo) -> Self {
        ProtocolVersion {
            name: info.name.to_owned(),
            version: info.version.to_owned(),
            min_compatible: info.min_compatible.map(str::to_owned),
        }
    }
}

/// The first release of `version`'s compatibility series: the minimum a peer accepts when its protocol declares
/// no `min_compatible`.
///
/// By Cargo's semver convention: `x.0.0` for `x.y.z` with `x >= 1`, `0.y.0` for `0.y.z` with `y >= 1`, and
/// `0.0.z` itself for `0.0.z`. A pre-release below that first release (`2.0.0-rc.1`) is its own minimum (without
/// build metadata), so a pre-release accepts itself but no earlier series.
///
/// ```
/// use semver::Version;
/// use wirecheck::handshake::default_min_compatible;
///
/// let min = |v: &str| default_min_compatible(&Version::parse(v).unwrap()).to_string();
/// assert_eq!(min("1.4.2"), "1.0.0");
/// assert_eq!(min("0.88.3"), "0.88.0");
/// assert_eq!(min("0.0.7"), "0.0.7");
/// assert_eq!(min("2.0.0-rc.1"), "2.0.0-rc.1");
/// ```
pub fn default_min_compatible(version: &Version) -> Version {
    let first = if version.major > 0 {
        Version::new(version.major, 0, 0)
    } else if version.minor > 0 {
        Version::new(0, version.minor, 0)
    } else {
        Version::new(0, 0, version.patch)
    };
    if first.cmp_precedence(version) == Ordering::Greater {
        Version {
            build: semver::BuildMetadata::EMPTY,
            ..version.clone()
        }
    } else {
        first
    }
}

/// Where a peer's minimum for a protocol comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MinimumSource {
    /// The protocol's declared `min_compatible`.
    Declared,
    /// No `min_compatible`: the first release of the version's series ([`default_min_compatible`]).
    Series,
}

/// A protocol version as one peer speaks it, with the oldest peer version it accepts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Compat {
    /// The version the peer speaks.
    pub version: Version,
    /// The oldest version of the other peer it accepts: `min_compatible`, or [`default_min_compatible`].
    pub minimum: Version,
    /// Whether `minimum` was declared or is the series default.
    pub minimum_source: MinimumSource,
}

impl Compat {
    /// One peer's view: whether this peer accepts `peer`.
    ///
    /// True when `self.minimum <= peer.version`, and either `peer.version <= self.version`, or the peer is newer
    /// and its own minimum accepts this version (`peer.minimum <= self.version`). Versions compare by semver
    /// precedence. For valid entries (minimum not above version) this equals `peer.accepts(self)`: see the
    /// [module docs](self).
    pub fn accepts(&self, peer: &Compat) -> bool {
        at_most(&self.minimum, &peer.version)
            && (at_most(&peer.version, &self.version) || at_most(&peer.minimum, &self.version))
    }
}

fn at_most(a: &Version, b: &Version) -> bool {
    a.cmp_precedence(b) != Ordering::Greater
}

/// Which end of a connection, seen from the peer calling [`negotiate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// This peer (the `local` hello).
    Local,
    /// The other peer (the `remote` hello).
    Remote,
}

/// What two peers agreed on: every protocol both speak and both accept, and the protocols only one speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    /// This peer's role.
    pub local_role: String,
    /// The other peer's role.
    pub remote_role: String,
    /// The protocols both peers speak and accept, by name.
    pub protocols: Vec<Agreed>,
    /// The protocols only this peer speaks, by name.
    pub local_only: Vec<String>,
    /// The protocols only the other peer speaks, by name.
    pub remote_only: Vec<String>,
}

impl Agreement {
    /// The agreed protocol called `name`, if both peers speak it.
    pub fn get(&self, name: &str) -> Option<&Agreed> {
        self.protocols.iter().find(|a| a.name == name)
    }

    /// The agreed protocol called `name`, or [`HandshakeError::NotSpoken`] naming the peer that lacks it.
    pub fn require(&self, name: &str) -> Result<&Agreed, HandshakeError> {
        self.get(name).ok_or_else(|| HandshakeError::NotSpoken {
            protocol: name.to_owned(),
            lacking: if self.local_only.iter().any(|n| n == name) {
                Some(Side::Remote)
            } else if self.remote_only.iter().any(|n| n == name) {
                Some(Side::Local)
            } else {
                None
            },
            local_role: self.local_role.clone(),
            remote_role: self.remote_role.clone(),
        })
    }
}

/// A protocol both peers speak and accept, with the version each speaks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Agreed {
    /// The protocol's name.
    pub name: String,
    /// The version this peer speaks.
    pub local: Version,
    /// The version the other peer speaks.
    pub remote: Version,
}

impl Agreed {
    /// The older of the two versions: what the newer peer must stay compatible with on this connection.
    pub fn older(&self) -> &Version {
        if at_most(&self.local, &self.remote) {
            &self.local
        } else {
            &self.remote
        }
    }
}

/// Why two peers cannot talk one protocol: one of them is below the other's minimum.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Refusal {
    /// The protocol's name.
    pub protocol: String,
    /// This peer's role.
    pub local_role: String,
    /// The other peer's role.
    pub remote_role: String,
    /// The version this peer speaks.
    pub local: Version,
    /// The version the other peer speaks.
    pub remote: Version,
    /// The side that must be upgraded: the one whose version is below the other's minimum.
    pub upgrade: Side,
    /// The minimum it is below: the other side's `min_compatible` or series default. Upgrading to it suffices.
    pub minimum: Version,
    /// Whether [`Refusal::minimum`] was declared or is the series default.
    pub minimum_source: MinimumSource,
}

impl Refusal {
    /// The role of the peer that must be upgraded.
    pub fn role_to_upgrade(&self) -> &str {
        match self.upgrade {
            Side::Local => shown(&self.local_role),
            Side::Remote => shown(&self.remote_role),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (local, remote) = (shown(&self.local_role), shown(&self.remote_role));
        match self.upgrade {
            Side::Remote => write!(
                f,
                "{remote} speaks {} {}; this {local} accepts {} and later: upgrade the {remote} first",
                self.protocol, self.remote, self.minimum
            ),
            Side::Local => write!(
                f,
                "{remote} speaks {} {}, which accepts {} and later; this {local} speaks {}: upgrade the {local} first",
                self.protocol, self.remote, self.minimum, self.local
            ),
        }
    }
}

/// What is wrong with a hello on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum HelloProblem {
    /// The role is empty.
    #[error("the role is empty")]
    EmptyRole,
    /// A protocol entry has an empty name.
    #[error("a protocol has an empty name")]
    EmptyProtocolName,
    /// A protocol is listed more than once.
    #[error("protocol {protocol} is listed more than once")]
    DuplicateProtocol {
        /// The protocol's name.
        protocol: String,
    },
    /// A version or `min_compatible` is not a semantic version.
    #[error("{protocol} {field} `{text}` is not a semantic version: {reason}")]
    InvalidVersion {
        /// The protocol's name.
        protocol: String,
        /// `version` or `min_compatible`.
        field: &'static str,
        /// The text found.
        text: String,
        /// The parser's explanation.
        reason: String,
    },
    /// The declared `min_compatible` is above the version.
    #[error("{protocol} min_compatible {min_compatible} is above its version {version}")]
    MinimumAboveVersion {
        /// The protocol's name.
        protocol: String,
        /// The declared `min_compatible`.
        min_compatible: String,
        /// The version it is above.
        version: String,
    },
}

/// A hello that cannot be negotiated, and which peer sent it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MalformedHello {
    /// Whose hello it is.
    pub side: Side,
    /// The role that hello names (may be empty, see [`HelloProblem::EmptyRole`]).
    pub role: String,
    /// What is wrong with it.
    pub problem: HelloProblem,
}

impl fmt::Display for MalformedHello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let role = shown(&self.role);
        match self.side {
            Side::Remote => write!(f, "malformed hello from {role}: {}", self.problem),
            Side::Local => write!(f, "this {role}'s own hello is malformed: {}", self.problem),
        }
    }
}

impl std::error::Error for MalformedHello {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.problem)
    }
}

/// Why a handshake did not produce an [`Agreement`], or why an agreement lacks a protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// One of the hellos is malformed (this peer's is checked first).
    #[error(transparent)]
    Malformed(#[from] MalformedHello),
    /// Some protocols both peers speak are refused: one line per protocol, by name.
    #[error("{}", lines(.0))]
    Refused(Vec<Refusal>),
    /// A protocol the caller requires ([`Agreement::require`]) is not spoken by both peers.
    #[error("{}", not_spoken(.protocol, *.lacking, .local_role, .remote_role))]
    NotSpoken {
        /// The protocol's name.
        protocol: String,
        /// The side that does not speak it; `None` when neither does.
        lacking: Option<Side>,
        /// This peer's role.
        local_role: String,
        /// The other peer's role.
        remote_role: String,
    },
}

fn lines(refusals: &[Refusal]) -> String {
    refusals
        .iter()
        .map(Refusal::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn not_spoken(
    protocol: &str,
    lacking: Option<Side>,
    local_role: &str,
    remote_role: &str,
) -> String {
    let (local, remote) = (shown(local_role), shown(remote_role));
    match lacking {
        Some(Side::Remote) => format!("{remote} does not speak {protocol}; this {local} needs it"),
        Some(Side::Local) => {
            format!("this {local} does not speak {protocol}, which the {remote} speaks")
        }
        None => format!("neither this {local} nor the {remote} speaks {protocol}"),
    }
}

/// A role as shown in messages: `peer` when the hello gave none.
fn shown(role: &str) -> &str {
    if role.trim().is_empty() { "peer" } else { role }
}

/// Negotiates every protocol `local` (this peer's hello) and `remote` (the other peer's) both speak.
///
/// Both hellos are validated first ([`Hello::validate`]; a malformed one is an error, this peer's checked
/// first). Then each shared protocol is accepted when both peers' views accept it ([`Compat::accepts`], the rule
/// in the [module docs](self)), and refused otherwise, naming the side to upgrade. Returns the agreed set, or
/// every refusal (sorted by protocol name). Protocols only one side speaks are neither: they are listed in the
/// [`Agreement`].
pub fn negotiate(local: &Hello, remote: &Hello) -> Result<Agreement, HandshakeError> {
    let ours = local.validate().map_err(|problem| MalformedHello {
        side: Side::Local,
        role: local.role.clone(),
        problem,
    })?;
    let theirs = remote.validate().map_err(|problem| MalformedHello {
        side: Side::Remote,
        role: remote.role.clone(),
        problem,
    })?;

    let mut agreement = Agreement {
        local_role: local.role.clone(),
        remote_role: remote.role.clone(),
        protocols: Vec::new(),
        local_only: Vec::new(),
        remote_only: theirs
            .keys()
            .filter(|n| !ours.contains_key(*n))
            .map(|n| n.to_string())
            .collect(),
    };
    let mut refusals = Vec::new();
    for (name, local_view) in &ours {
        let Some(remote_view) = theirs.get(name) else {
            agreement.local_only.push(name.to_string());
            continue;
        };
        if local_view.accepts(remote_view) && remote_view.accepts(local_view) {
            agreement.protocols.push(Agreed {
                name: name.to_string(),
                local: local_view.version.clone(),
                remote: remote_view.version.clone(),
            });
            continue;
        }
        // Refused: exactly one side is below the other's minimum (module docs); that side upgrades.
        let (upgrade, refusing) = if !at_most(&local_view.minimum, &remote_view.version) {
            (Side::Remote, local_view)
        } else {
            (Side::Local, remote_view)
        };
        refusals.push(Refusal {
            protocol: name.to_string(),
            local_role: local.role.clone(),
            remote_role: remote.role.clone(),
            local: local_view.version.clone(),
            remote: remote_view.version.clone(),
            upgrade,
            minimum: refusing.minimum.clone(),
            minimum_source: refusing.minimum_source,
        });
    }
    if refusals.is_empty() {
        Ok(agreement)
    } else {
        Err(HandshakeError::Refused(refusals))
    }
}

#[cfg(test)]
mod tests;
