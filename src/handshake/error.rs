//! Why a handshake fails, as a person reads it: a [`Refusal`] for each protocol two peers cannot talk,
//! a [`MalformedHello`], or a protocol the caller requires that is not spoken ([`HandshakeError`]).

use std::fmt;

use semver::Version;

use super::{HelloProblem, MinimumSource, Role, Side};

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

/// Why a handshake did not produce an [`Agreement`](super::Agreement), or why an agreement lacks a
/// protocol.
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
    /// A protocol the caller requires ([`Agreement::require`](super::Agreement::require)) is not spoken by
    /// both peers.
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

/// A role as shown in messages: `peer` when the hello gave none.
fn shown(role: &str) -> &str {
    if role.trim().is_empty() { "peer" } else { role }
}
