//! Runtime handshake: peers agree on protocol versions by the rule the checker enforces.
//!
//! The checker proves, before merge, that a release interoperates with the releases it claims to. The handshake
//! makes running peers act on that claim when they connect, in the shape the Flux maintainers proposed for
//! connections to the broker (flux-core issue #3157): each peer sends a [`Hello`] that lists every protocol it
//! speaks with its version, `min_compatible`, upgrade order and its side (server or client), plus free key/value
//! pairs, and [`negotiate`] accepts or refuses every protocol both peers speak, with a [`Refusal`] a person can
//! act on.
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
//! `min_compatible` on (the checker compares it against each of them), in the directions the protocol's upgrade
//! order needs: the second condition.
//!
//! # The upgrade order
//!
//! The checker proves a mixed pair only in the directions the protocol's `upgrade` order needs (the README's
//! "What it decides"). Under `any-order` that is both; under `server-first`, the new server reading the old
//! client's requests and the old client reading the new server's responses: a server at least as new as its
//! client. A client newer than its server is a pairing nothing proved. So each peer says its side of each
//! protocol ([`Role`]): [`Hello::serves`] (it reads the requests and writes the responses) or [`Hello::calls`],
//! and every entry built from a declaration states its order. Two different versions are then accepted when,
//! besides [the rule](#the-rule):
//!
//! | order in force | server newer | client newer | roles not told |
//! |---|---|---|---|
//! | `any-order` | accepted | accepted | accepted |
//! | `server-first` | accepted | refused: upgrade the server (the servers first) | refused |
//! | `client-first` | refused: upgrade the client (the clients first) | accepted | refused |
//!
//! The same version is always accepted (by precedence: build metadata aside), whatever the order and roles.
//!
//! - **The order in force** is the one the newer peer states: that release's check compared it with the older
//!   release under its own declaration. When the newer peer's hello states none (a hello older than
//!   `wirecheck-hello` 0.1.1, or an entry built with [`ProtocolVersion::new`]), the older peer's stated order
//!   applies, and when neither states one, `any-order`, the declaration's default.
//! - **The roles.** A peer that does not state its role is the other end of a peer that does (a server's peer is
//!   a client). When neither states one, or both state the same, the hellos do not tell which peer is the server:
//!   under a `server-first` or `client-first` order, a pairing of different versions is then refused, since it is
//!   proven in one orientation only ([`MinimumSource::RolesUnstated`]); the refusal says to state the roles, or to
//!   upgrade the older peer to the newer one's version. [`Hello::with`] states no role: enough for an
//!   `any-order` protocol only.
//! - **The remedy.** A refusal by the order names the side the order upgrades first and the other's version as
//!   the one to reach ([`MinimumSource::UpgradeOrder`]): "sched is server-first: this job-manager (client) speaks
//!   0.88.0 and the scheduler (server) 0.87.0; upgrade the servers first: the scheduler to 0.88.0 or later". The
//!   order is looked at before the minimums: its remedy also meets the other peer's minimum, which is never above
//!   that peer's version.
//! - **Both ends agree.** Every input is in the two hellos and the condition does not depend on which end
//!   computes it. A peer running a handshake older than this one does not look at the order; the peer that does
//!   refuses, and its refusal closes the connection.
//!
//! # Protocols only one side speaks
//!
//! They are not a refusal (a broker speaks many protocols, a tool only a few): [`negotiate`] leaves them out of
//! the agreed set and lists them in [`Agreement::local_only`] and [`Agreement::remote_only`].
//! [`Agreement::require`] turns a missing protocol the caller needs into an error. But two peers that share no
//! protocol besides the hello's own (`wirecheck-hello`) have nothing to say to each other: likely the wrong
//! peer (a port of another service) or a build without its protocols. [`negotiate`] refuses them
//! ([`HandshakeError::NothingShared`]), naming what each speaks.
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
use crate::{Protocol, ProtocolInfo, Upgrade};

mod order;

/// The handshake's own protocol, `wirecheck-hello`, whose one message is [`Hello`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
// Declared with the derive when it is there (feature `derive`, on by default). Without it the same impls are
// written by hand below (`manual`), so that `default-features = false` keeps the handshake: the feature only
// decides whether the derive macros exist, not which runtime APIs do.
#[cfg_attr(feature = "derive", derive(Protocol))]
#[cfg_attr(feature = "derive", wire(name = "wirecheck-hello", version = "0.1.1"))]
pub struct HelloProtocol;

/// What a peer sends when a connection opens: its role, the protocols it speaks, and free key/value pairs.
///
/// On the wire (JSON):
///
/// ```json
/// {"role":"scheduler",
///  "protocols":[{"name":"wirecheck-hello","version":"0.1.1","upgrade":"any-order"},
///               {"name":"sched","version":"0.86.2","upgrade":"server-first","role":"server"}],
///  "attributes":{"pid":"4242"}}
/// ```
///
/// Versions, orders and roles travel as strings so that a bad one reaches [`negotiate`], which reports it as a
/// malformed hello, instead of failing the decode. Unknown keys are ignored and absent optional keys default, so
/// hellos of older and later versions parse (`upgrade` and `role` came with `wirecheck-hello` 0.1.1).
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
        const VERSION: &'static str = "0.1.1";
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

    /// Adds the protocol `P` as its `Protocol` impl (the derive) declares it: name, version, `min_compatible`
    /// and upgrade order, without saying which side of it this peer is.
    ///
    /// Enough for an `any-order` protocol. For a `server-first` or `client-first` one, say the side with
    /// [`Hello::serves`] or [`Hello::calls`]: when neither peer does, mixed versions are refused, since the checker
    /// proved them in one orientation only (see [the upgrade order](self#the-upgrade-order)).
    pub fn with<P: Protocol>(self) -> Self {
        self.with_entry(P::info())
    }

    /// Adds the protocol `P` as [`Hello::with`] does, stating that this peer is its server: it reads `P`'s
    /// requests and writes its responses.
    pub fn serves<P: Protocol>(self) -> Self {
        self.with_entry(ProtocolVersion::of::<P>().with_role(Role::Server))
    }

    /// Adds the protocol `P` as [`Hello::with`] does, stating that this peer is its client: it writes `P`'s
    /// requests and reads its responses.
    pub fn calls<P: Protocol>(self) -> Self {
        self.with_entry(ProtocolVersion::of::<P>().with_role(Role::Client))
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

    /// Checks the hello on its own: a role, named protocols each listed once, semantic versions,
    /// `min_compatible` not above the version, and known upgrade orders and protocol roles. Returns the parsed versions by protocol name.
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

/// One protocol in a [`Hello`]: its name, the version the peer speaks, the declared `min_compatible` and
/// upgrade order, and the peer's side of the protocol.
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
    /// The upgrade order the peer's release declares ([`Protocol::UPGRADE`]: `any-order`, `server-first` or
    /// `client-first`). Absent when not stated: in hellos of peers older than `wirecheck-hello` 0.1.1, and in
    /// entries built with [`ProtocolVersion::new`]. See [the upgrade order](self#the-upgrade-order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<String>,
    /// The peer's side of the protocol ([`Role`]): `server` (it reads the requests and writes the responses) or
    /// `client`. Absent when not stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

impl ProtocolVersion {
    /// An entry for protocol `name` at `version`, without a declared `min_compatible`, upgrade order or role.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ProtocolVersion {
            name: name.into(),
            version: version.into(),
            min_compatible: None,
            upgrade: None,
            role: None,
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

    /// Sets the declared upgrade order.
    pub fn with_upgrade(mut self, upgrade: Upgrade) -> Self {
        self.upgrade = Some(upgrade.as_str().to_owned());
        self
    }

    /// Sets the peer's side of the protocol.
    pub fn with_role(mut self, role: Role) -> Self {
        self.role = Some(role.as_str().to_owned());
        self
    }

    /// Parses the version, the minimum (declared or default), the upgrade order and the role; the minimum may
    /// not be above the version.
    pub fn parse(&self) -> Result<Compat, HelloProblem> {
        let version = self.parse_field("version", &self.version)?;
        let declared = match &self.min_compatible {
            Some(text) => Some(self.parse_field("min_compatible", text)?),
            None => None,
        };
        let minimum = window_minimum(&version, declared.as_ref());
        let minimum_source = match declared {
            Some(_) => MinimumSource::Declared,
            None => MinimumSource::Series,
        };
        if minimum.cmp_precedence(&version) == Ordering::Greater {
            return Err(HelloProblem::MinimumAboveVersion {
                protocol: self.name.clone(),
                min_compatible: minimum.to_string(),
                version: version.to_string(),
            });
        }
        let upgrade = match &self.upgrade {
            Some(text) => Some(
                text.parse::<Upgrade>()
                    .map_err(|_| self.unknown_keyword("upgrade", text, Upgrade::KEYWORDS))?,
            ),
            None => None,
        };
        let role = match &self.role {
            Some(text) => Some(
                Role::from_keyword(text)
                    .ok_or_else(|| self.unknown_keyword("role", text, Role::KEYWORDS))?,
            ),
            None => None,
        };
        Ok(Compat {
            version,
            minimum,
            minimum_source,
            upgrade,
            role,
        })
    }

    fn unknown_keyword(
        &self,
        field: &'static str,
        text: &str,
        expected: &'static [&'static str],
    ) -> HelloProblem {
        HelloProblem::UnknownKeyword {
            protocol: self.name.clone(),
            field,
            text: text.to_owned(),
            expected,
        }
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
            upgrade: Some(info.upgrade.as_str().to_owned()),
            role: None,
        }
    }
}

/// A peer's side of a protocol, stated in its hello ([`Hello::serves`], [`Hello::calls`]).
///
/// The side the upgrade order names: under `server-first` the servers are upgraded before the clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// It reads the protocol's requests and writes its responses (`server`).
    Server,
    /// It writes the protocol's requests and reads its responses (`client`).
    Client,
}

impl Role {
    /// Every role's keyword, as a hello writes it.
    pub const KEYWORDS: &'static [&'static str] = &["server", "client"];

    /// The keyword a hello writes for this role (`server`, `client`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }

    /// The role written as `keyword`, if it is one.
    pub fn from_keyword(keyword: &str) -> Option<Role> {
        [Role::Server, Role::Client]
            .into_iter()
            .find(|role| role.as_str() == keyword)
    }

    /// The other end of a connection: a server's peer is a client, and a client's a server.
    pub const fn counterpart(self) -> Role {
        match self {
            Role::Server => Role::Client,
            Role::Client => Role::Server,
        }
    }

    /// The role an upgrade order has upgraded first, if it names one (`any-order` does not).
    pub const fn upgraded_first(order: Upgrade) -> Option<Role> {
        match order {
            Upgrade::AnyOrder => None,
            Upgrade::ServerFirst => Some(Role::Server),
            Upgrade::ClientFirst => Some(Role::Client),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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

/// The oldest version a release at `version` that declares `min_compatible` interoperates with: the declared
/// `min_compatible`, else the first release of the version's series ([`default_min_compatible`]).
///
/// This is the release's *window*, the one rule the three parts of wirecheck share: the checker compares the
/// release with every release tag inside it in full (and refuses a window that reaches a release it breaks),
/// [`negotiate`] accepts exactly the peers inside it ([`in_window`]), and the skew test
/// (`wirecheck::testing`) decodes the fixtures of every release inside it.
///
/// ```
/// use semver::Version;
/// use wirecheck::handshake::window_minimum;
///
/// let v = |v: &str| Version::parse(v).unwrap();
/// assert_eq!(window_minimum(&v("0.88.3"), None), v("0.88.0"));
/// assert_eq!(window_minimum(&v("0.88.3"), Some(&v("0.87.0"))), v("0.87.0"));
/// ```
pub fn window_minimum(version: &Version, min_compatible: Option<&Version>) -> Version {
    min_compatible
        .cloned()
        .unwrap_or_else(|| default_min_compatible(version))
}

/// Whether a release at `release` is inside the window that starts at `minimum` ([`window_minimum`]): at or
/// above it by semver precedence (build metadata ignored, a pre-release below its release).
pub fn in_window(release: &Version, minimum: &Version) -> bool {
    at_most(minimum, release)
}

/// Where a minimum comes from: a peer's own minimum for a protocol, or, in a [`Refusal`], the version the
/// protocol's upgrade order requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MinimumSource {
    /// The protocol's declared `min_compatible`.
    Declared,
    /// No `min_compatible`: the first release of the version's series ([`default_min_compatible`]).
    Series,
    /// The other peer's version: the protocol's upgrade order (`server-first` or `client-first`) has the side it
    /// names upgraded first, so that side must be at least as new as the other, and here it is older.
    UpgradeOrder(Upgrade),
    /// The other peer's version: under this upgrade order the checker proved mixed versions in one orientation
    /// only, and the hellos do not tell which peer is the server (neither states its [`Role`], or both state the
    /// same), so only the same version is proven.
    RolesUnstated(Upgrade),
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
    /// The upgrade order the peer's release declares, if its hello states it.
    pub upgrade: Option<Upgrade>,
    /// The peer's side of the protocol, if its hello states it.
    pub role: Option<Role>,
}

impl Compat {
    /// One peer's view of the versions: whether this peer's minimum and `peer`'s accept each other. The upgrade
    /// order is a second condition, common to both views ([`negotiate`]).
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

/// Why two peers cannot talk one protocol: one of them is below the other's minimum, or older than the upgrade
/// order allows ([`Refusal::minimum_source`] says which).
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
    /// The side that must be upgraded: the one whose version is below the other's minimum, or, refused by the
    /// upgrade order, the side the order upgrades first (the server under `server-first`), or the older side when
    /// the hellos do not tell the roles.
    pub upgrade: Side,
    /// The minimum it is below: the other side's `min_compatible` or series default, or, refused by the upgrade
    /// order, the other side's version. Upgrading to it suffices.
    pub minimum: Version,
    /// Where [`Refusal::minimum`] comes from: declared, the series default, or the upgrade order.
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
        let upgrade = self.role_to_upgrade();
        match (self.minimum_source, self.upgrade) {
            (MinimumSource::UpgradeOrder(order), side) => {
                // The side to upgrade is the one the order upgrades first; the other is its counterpart.
                let first = Role::upgraded_first(order).unwrap_or(Role::Server);
                let (local_side, remote_side) = match side {
                    Side::Local => (first, first.counterpart()),
                    Side::Remote => (first.counterpart(), first),
                };
                write!(
                    f,
                    "{} is {order}: this {local} ({local_side}) speaks {} and the {remote} ({remote_side}) {}; \
                     upgrade the {first}s first: the {upgrade} to {} or later",
                    self.protocol, self.local, self.remote, self.minimum
                )
            }
            (MinimumSource::RolesUnstated(order), _) => write!(
                f,
                "{} is {order}, and the hellos do not tell which peer is its server: this {local} speaks {} and \
                 the {remote} {}, a pairing proven in one orientation only; state each peer's role in its hello \
                 (`Hello::serves` or `Hello::calls`), or upgrade the {upgrade} to {} or later",
                self.protocol, self.local, self.remote, self.minimum
            ),
            (MinimumSource::Declared | MinimumSource::Series, Side::Remote) => write!(
                f,
                "{remote} speaks {} {}; this {local} accepts {} and later: upgrade the {remote} first",
                self.protocol, self.remote, self.minimum
            ),
            (MinimumSource::Declared | MinimumSource::Series, Side::Local) => write!(
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
    /// An upgrade order or a role is not one of the keywords this version knows.
    #[error("{protocol} {field} `{text}` is not one of {}", .expected.join(", "))]
    UnknownKeyword {
        /// The protocol's name.
        protocol: String,
        /// `upgrade` or `role`.
        field: &'static str,
        /// The text found.
        text: String,
        /// The keywords accepted.
        expected: &'static [&'static str],
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
    /// The peers share no protocol besides the hello's own: nothing could be agreed on. Both lists name
    /// each protocol with its version (the hello's own left out).
    #[error("{}", nothing_shared(.local_role, .remote_role, .local, .remote))]
    NothingShared {
        /// This peer's role.
        local_role: String,
        /// The other peer's role.
        remote_role: String,
        /// The protocols this peer speaks, as `name version`.
        local: Vec<String>,
        /// The protocols the other peer speaks, as `name version`.
        remote: Vec<String>,
    },
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

fn nothing_shared(
    local_role: &str,
    remote_role: &str,
    local: &[String],
    remote: &[String],
) -> String {
    let (local_role, remote_role) = (shown(local_role), shown(remote_role));
    let list = |protocols: &[String]| match protocols.is_empty() {
        true => "no protocol".to_owned(),
        false => protocols.join(", "),
    };
    format!(
        "the {remote_role} shares no protocol with this {local_role}: the {remote_role} speaks {}; this \
         {local_role} speaks {}: connect to a peer of the same system, or give both a protocol in common",
        list(remote),
        list(local)
    )
}

/// The protocols of a hello, as `name version`, the hello's own left out.
fn spoken(hello: &Hello) -> Vec<String> {
    hello
        .protocols
        .iter()
        .filter(|p| p.name != HelloProtocol::NAME)
        .map(|p| format!("{} {}", p.name, p.version))
        .collect()
}

/// A role as shown in messages: `peer` when the hello gave none.
fn shown(role: &str) -> &str {
    if role.trim().is_empty() { "peer" } else { role }
}

/// Negotiates every protocol `local` (this peer's hello) and `remote` (the other peer's) both speak.
///
/// Both hellos are validated first ([`Hello::validate`]; a malformed one is an error, this peer's checked
/// first). Then each shared protocol is accepted when its upgrade order allows the pairing ([the upgrade
/// order](self#the-upgrade-order)) and both peers' views accept the versions ([`Compat::accepts`], [the
/// rule](self#the-rule)), and refused otherwise, naming the side to upgrade (the order is looked at first: its
/// remedy, the other peer's version, also meets that peer's minimum). Returns the agreed set, or
/// every refusal (sorted by protocol name). Protocols only one side speaks are neither: they are listed in the
/// [`Agreement`]. Peers that share no protocol besides the hello's own are refused
/// ([`HandshakeError::NothingShared`]).
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
        let refused = order::refusal(local_view, remote_view)
            .or_else(|| minimum_refusal(local_view, remote_view));
        let Some((upgrade, minimum, minimum_source)) = refused else {
            agreement.protocols.push(Agreed {
                name: name.to_string(),
                local: local_view.version.clone(),
                remote: remote_view.version.clone(),
            });
            continue;
        };
        refusals.push(Refusal {
            protocol: name.to_string(),
            local_role: local.role.clone(),
            remote_role: remote.role.clone(),
            local: local_view.version.clone(),
            remote: remote_view.version.clone(),
            upgrade,
            minimum,
            minimum_source,
        });
    }
    if !refusals.is_empty() {
        return Err(HandshakeError::Refused(refusals));
    }
    if agreement
        .protocols
        .iter()
        .all(|p| p.name == HelloProtocol::NAME)
    {
        return Err(HandshakeError::NothingShared {
            local_role: local.role.clone(),
            remote_role: remote.role.clone(),
            local: spoken(local),
            remote: spoken(remote),
        });
    }
    Ok(agreement)
}

/// The version rule's verdict: `None` when both views accept, else the side to upgrade and the minimum it is
/// below. Exactly one side is below the other's minimum ([module docs](self#the-rule)); that side upgrades.
fn minimum_refusal(local: &Compat, remote: &Compat) -> Option<(Side, Version, MinimumSource)> {
    if local.accepts(remote) && remote.accepts(local) {
        return None;
    }
    let (upgrade, refusing) = if !at_most(&local.minimum, &remote.version) {
        (Side::Remote, local)
    } else {
        (Side::Local, remote)
    };
    Some((upgrade, refusing.minimum.clone(), refusing.minimum_source))
}

#[cfg(test)]
mod tests;
