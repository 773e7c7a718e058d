//! What `wirecheck changelog` finds, as plain data: per release and protocol, the wire changes by level,
//! the bump they require and the rollout. The driver (`wirecheck::changelog`) computes it; the renderers
//! read it.

use semver::Version;
use serde::Serialize;

use crate::Upgrade;
use crate::findings::{Finding, Level};

/// The wire changes of every release since a tag, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changelog {
    /// The release the changelog starts after.
    pub since: String,
    /// Each release after it (and the working tree, when it differs from the last), newest first.
    pub releases: Vec<ReleaseNotes>,
}

/// One release's wire changes, against the release before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseNotes {
    /// The release's tag, or `working tree`.
    pub release: String,
    /// Its commit (`None`: the working tree, not released yet).
    pub commit: Option<String>,
    /// The release it is compared with.
    pub previous: String,
    /// Each protocol whose wire changed, by name.
    pub protocols: Vec<ProtocolNotes>,
}

/// What became of a protocol in a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolEvent {
    /// New in this release.
    Added,
    /// Declared before, no longer.
    Removed,
    /// Declared in both; its wire changed.
    Changed,
}

/// How operators roll a release out, for one protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rollout {
    /// Old and new nodes talk in every direction: upgrade node by node, in any order.
    AnyOrder,
    /// Upgrade every server (the readers of requests) before any client.
    ServersFirst,
    /// Upgrade every client before any server.
    ClientsFirst,
    /// No order keeps old and new talking: stop every node that speaks the protocol, upgrade, restart.
    RestartTogether,
    /// Records older releases stored no longer read in the new release: no order of restarts helps;
    /// they must be migrated or drained first.
    RecordsUnreadable,
    /// A new protocol: nothing older speaks it.
    NewProtocol,
}

impl Rollout {
    /// What operators must do, in a sentence.
    pub fn words(self) -> &'static str {
        match self {
            Rollout::AnyOrder => "roll in any order: old and new nodes talk in both directions",
            Rollout::ServersFirst => {
                "upgrade servers first (the readers of requests), then clients: an old server does not understand new clients"
            }
            Rollout::ClientsFirst => {
                "upgrade clients first, then servers: an old client does not understand new servers"
            }
            Rollout::RestartTogether => {
                "restart together: old and new nodes cannot talk in any order; stop every node that speaks it, upgrade all, then start them"
            }
            Rollout::RecordsUnreadable => {
                "records stored by the previous release no longer read in this one: no order of restarts helps; migrate or drain them before upgrading"
            }
            Rollout::NewProtocol => "new protocol: no older release speaks it",
        }
    }
}

/// One protocol's changes in one release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolNotes {
    /// The protocol's name.
    pub name: String,
    /// Added, removed or changed.
    pub event: ProtocolEvent,
    /// Its version in the previous release (`None`: added).
    pub old_version: Option<Version>,
    /// Its version in this release (`None`: removed).
    pub new_version: Option<Version>,
    /// The bump its changes require (Cargo's semver convention).
    pub required_bump: Level,
    /// The lowest version that pays for them.
    pub required_version: Option<Version>,
    /// The release's declared version meets it (`None`: added or removed, no version to compare).
    pub declared_ok: Option<bool>,
    /// The upgrade order the release declares (`None`: removed).
    pub upgrade: Option<Upgrade>,
    /// How to roll it out.
    pub rollout: Rollout,
    /// Breaking changes: some mixed pair fails.
    pub breaking: Vec<Finding>,
    /// Breaking changes an `allow` accepts, with its reason.
    pub allowed: Vec<Finding>,
    /// Compatible changes: the wire changed, every needed direction still works.
    pub compatible: Vec<Finding>,
}
