//! The hello: what a peer sends when a connection opens ([`Hello`]), one [`ProtocolVersion`] per
//! protocol it speaks with its side of it ([`Role`]), and what can be wrong with a hello on its own
//! ([`HelloProblem`]).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use semver::Version;
use serde::{Deserialize, Serialize};

use super::{Compat, MinimumSource, window_minimum};
#[cfg(feature = "derive")]
use crate::Message;
use crate::{Protocol, ProtocolInfo, Upgrade};

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
/// Versions, orders and roles travel as strings so that a bad one reaches [`negotiate`](super::negotiate),
/// which reports it as a malformed hello, instead of failing the decode. Unknown keys are ignored and absent
/// optional keys default, so hellos of older and later versions parse (`upgrade` and `role` came with
/// `wirecheck-hello` 0.1.1).
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
    /// proved them in one orientation only (see [the upgrade order](super#the-upgrade-order)).
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
    /// the first release of the version's series
    /// ([`default_min_compatible`](super::default_min_compatible)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_compatible: Option<String>,
    /// The upgrade order the peer's release declares ([`Protocol::UPGRADE`]: `any-order`, `server-first` or
    /// `client-first`). Absent when not stated: in hellos of peers older than `wirecheck-hello` 0.1.1, and in
    /// entries built with [`ProtocolVersion::new`]. See [the upgrade order](super#the-upgrade-order).
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
