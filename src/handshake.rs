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

use semver::Version;

use crate::{Protocol, Upgrade};

mod error;
mod hello;
mod order;

pub use error::{HandshakeError, MalformedHello, Refusal};
pub use hello::{Hello, HelloProblem, HelloProtocol, ProtocolVersion, Role};

/// A release's window, defined once below the derives, the checker and the handshake.
pub use wirecheck_vocab::window::{default_min_compatible, in_window, window_minimum};

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

/// `a` is at most `b` by semver precedence: `b` is inside the window starting at `a`.
fn at_most(a: &Version, b: &Version) -> bool {
    in_window(b, a)
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

/// The protocols of a hello, as `name version`, the hello's own left out.
fn spoken(hello: &Hello) -> Vec<String> {
    hello
        .protocols
        .iter()
        .filter(|p| p.name != HelloProtocol::NAME)
        .map(|p| format!("{} {}", p.name, p.version))
        .collect()
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
