//! The upgrade order's part of the verdict ([module docs](super#the-upgrade-order)).

use std::cmp::Ordering;

use semver::Version;

use super::{Compat, MinimumSource, Role, Side};

/// Whether the upgrade order allows `local` and `remote` to talk: `None` when it does, else the side to upgrade,
/// the version it must reach (the other side's) and why.
///
/// Symmetric by construction: both ends compute it from the same two entries, so they reach the same verdict.
pub(super) fn refusal(local: &Compat, remote: &Compat) -> Option<(Side, Version, MinimumSource)> {
    let (newer, older, older_side) = match local.version.cmp_precedence(&remote.version) {
        // The same version: both orientations are the same pairing, proven by any order.
        Ordering::Equal => return None,
        Ordering::Greater => (local, remote, Side::Remote),
        Ordering::Less => (remote, local, Side::Local),
    };
    // The newer release's check proved the pair, under the order it declares; an older peer's hello may not
    // state one, and one stated by neither is the declaration's default.
    let order = newer.upgrade.or(older.upgrade).unwrap_or_default();
    let first = Role::upgraded_first(order)?;
    // A peer that does not state its role is the other end of one that does.
    let local_role = local.role.or(remote.role.map(Role::counterpart));
    let remote_role = remote.role.or(local.role.map(Role::counterpart));
    match (local_role, remote_role) {
        (Some(l), Some(r)) if l != r => {
            let (first_side, first_view, other_view) = if l == first {
                (Side::Local, local, remote)
            } else {
                (Side::Remote, remote, local)
            };
            (first_view.version.cmp_precedence(&other_view.version) == Ordering::Less).then(|| {
                (
                    first_side,
                    other_view.version.clone(),
                    MinimumSource::UpgradeOrder(order),
                )
            })
        }
        // Neither states a role, or both state the same: the orientation is unknown, only the same version is
        // proven, and upgrading the older peer reaches it.
        _ => Some((
            older_side,
            newer.version.clone(),
            MinimumSource::RolesUnstated(order),
        )),
    }
}
