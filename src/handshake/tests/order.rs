//! The upgrade order's part of the verdict (`handshake/order.rs`): which pairings it accepts, what its
//! refusals say, and that both ends agree.

use super::*;
use crate::Format;

/// Issue 14, item 5: hellos as they arrive on the wire, stating a `server-first` order and each peer's role. A
/// client newer than its server is the pairing the checker did not prove: both ends refuse it, naming the order.
#[test]
fn server_first_refuses_a_client_newer_than_its_server() {
    let scheduler: Hello = serde_json::from_str(
        r#"{"role":"scheduler","protocols":[{"name":"sched","version":"0.87.0","upgrade":"server-first","role":"server"}]}"#,
    )
    .unwrap();
    let job_manager: Hello = serde_json::from_str(
        r#"{"role":"job-manager","protocols":[{"name":"sched","version":"0.88.0","min_compatible":"0.87.0","upgrade":"server-first","role":"client"}]}"#,
    )
    .unwrap();
    assert_eq!(
        refused(&scheduler, &job_manager),
        "sched is server-first: this scheduler (server) speaks 0.87.0 and the job-manager (client) 0.88.0; \
         upgrade the servers first: the scheduler to 0.88.0 or later"
    );
    assert_eq!(
        refused(&job_manager, &scheduler),
        "sched is server-first: this job-manager (client) speaks 0.88.0 and the scheduler (server) 0.87.0; \
         upgrade the servers first: the scheduler to 0.88.0 or later"
    );
}

/// A `sched` entry at `version` (`min_compatible` 0.87.0 from 0.88 on, so that the versions alone always agree)
/// with the upgrade order and the role its hello states.
fn sched_entry(version: &str, order: Option<Upgrade>, role: Option<Role>) -> ProtocolVersion {
    let mut entry = ProtocolVersion::new("sched", version);
    if parsed(version) >= parsed("0.88.0") {
        entry.min_compatible = Some("0.87.0".into());
    }
    entry.upgrade = order.map(|o| o.as_str().to_owned());
    entry.role = role.map(|r| r.as_str().to_owned());
    entry
}

fn scheduler_with(entry: ProtocolVersion) -> Hello {
    Hello::new("scheduler").with_entry(entry)
}

fn job_manager_with(entry: ProtocolVersion) -> Hello {
    Hello::new("job-manager").with_entry(entry)
}

/// The refusals of a pairing that must be refused, from `local`'s end (both ends are checked to agree).
fn refusals(local: &Hello, remote: &Hello) -> Vec<Refusal> {
    match negotiate_both_ways(local, remote) {
        Err(HandshakeError::Refused(refusals)) => refusals,
        other => panic!("expected a refusal, got: {other:?}"),
    }
}

/// Every upgrade order × which side is newer (or neither) × how the roles are stated (both, only the server's,
/// only the client's): the pairings the contract's table proves are accepted, the others refused, naming the side
/// the order upgrades first. The scheduler serves `sched`, the job-manager calls it.
#[test]
fn the_upgrade_order_accepts_exactly_the_pairings_the_checker_proves() {
    let stated_roles = [
        (Some(Role::Server), Some(Role::Client)),
        (Some(Role::Server), None),
        (None, Some(Role::Client)),
    ];
    for order in Upgrade::ALL.iter().copied() {
        for (server_version, client_version) in [
            ("0.88.0", "0.87.0"),
            ("0.87.0", "0.88.0"),
            ("0.88.0", "0.88.0"),
        ] {
            for (server_role, client_role) in stated_roles {
                let scheduler =
                    scheduler_with(sched_entry(server_version, Some(order), server_role));
                let job_manager =
                    job_manager_with(sched_entry(client_version, Some(order), client_role));
                let case = format!(
                    "{order}: server {server_version} ({server_role:?}), client {client_version} ({client_role:?})"
                );
                let server_newer = parsed(server_version) > parsed(client_version);
                let client_newer = parsed(client_version) > parsed(server_version);
                let refused_side = match order {
                    Upgrade::ServerFirst if client_newer => Some(("scheduler", client_version)),
                    Upgrade::ClientFirst if server_newer => Some(("job-manager", server_version)),
                    _ => None,
                };
                match refused_side {
                    None => {
                        negotiate_both_ways(&scheduler, &job_manager)
                            .unwrap_or_else(|e| panic!("{case}: expected an agreement, got: {e}"));
                    }
                    Some((to_upgrade, minimum)) => {
                        let found = refusals(&scheduler, &job_manager);
                        assert_eq!(found.len(), 1, "{case}");
                        assert_eq!(found[0].role_to_upgrade(), to_upgrade, "{case}");
                        assert_eq!(found[0].minimum, parsed(minimum), "{case}");
                        assert_eq!(
                            found[0].minimum_source,
                            MinimumSource::UpgradeOrder(order),
                            "{case}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn refusals_by_the_upgrade_order_name_the_order_and_what_to_do() {
    let order = Some(Upgrade::ClientFirst);
    let scheduler = scheduler_with(sched_entry("0.88.0", order, Some(Role::Server)));
    let job_manager = job_manager_with(sched_entry("0.87.0", order, Some(Role::Client)));
    assert_eq!(
        refused(&job_manager, &scheduler),
        "sched is client-first: this job-manager (client) speaks 0.87.0 and the scheduler (server) 0.88.0; \
         upgrade the clients first: the job-manager to 0.88.0 or later"
    );
    assert_eq!(
        refused(&scheduler, &job_manager),
        "sched is client-first: this scheduler (server) speaks 0.88.0 and the job-manager (client) 0.87.0; \
         upgrade the clients first: the job-manager to 0.88.0 or later"
    );
    // Both hellos built from declarations, as services write them.
    struct ServerFirstSched;
    impl Protocol for ServerFirstSched {
        const NAME: &'static str = "sched";
        const VERSION: &'static str = "0.88.0";
        const MIN_COMPATIBLE: Option<&'static str> = Some("0.87.0");
        const UPGRADE: Upgrade = Upgrade::ServerFirst;
        const FORMAT: Format = Format::Json;
    }
    let job_manager = Hello::new("job-manager").calls::<ServerFirstSched>();
    let old_scheduler = Hello::new("scheduler").with_entry(
        ProtocolVersion::new("sched", "0.87.0")
            .with_upgrade(Upgrade::ServerFirst)
            .with_role(Role::Server),
    );
    assert_eq!(
        refused(&job_manager, &old_scheduler),
        "sched is server-first: this job-manager (client) speaks 0.88.0 and the scheduler (server) 0.87.0; \
         upgrade the servers first: the scheduler to 0.88.0 or later"
    );
    accepted(
        &Hello::new("scheduler").serves::<ServerFirstSched>(),
        &Hello::new("job-manager").with_entry(
            ProtocolVersion::new("sched", "0.87.0")
                .with_upgrade(Upgrade::ServerFirst)
                .with_role(Role::Client),
        ),
    );
}

#[test]
fn the_newer_peers_order_applies_else_the_older_peers_else_any_order() {
    let (new, old) = ("0.88.0", "0.87.0");
    let server_first = Some(Upgrade::ServerFirst);
    let any_order = Some(Upgrade::AnyOrder);
    let pair = |new_order, old_order| {
        (
            job_manager_with(sched_entry(new, new_order, Some(Role::Client))),
            scheduler_with(sched_entry(old, old_order, Some(Role::Server))),
        )
    };
    // The newer client states server-first: refused, whatever the older server states.
    for old_order in [None, any_order, server_first] {
        let (job_manager, scheduler) = pair(server_first, old_order);
        assert_eq!(
            refusals(&job_manager, &scheduler)[0].minimum_source,
            MinimumSource::UpgradeOrder(Upgrade::ServerFirst)
        );
    }
    // The newer client's release declares any-order: its check proved both directions with the older release.
    accepted(
        &pair(any_order, server_first).0,
        &pair(any_order, server_first).1,
    );
    // An older peer's hello (0.1.0) states no order: the other's applies.
    let (job_manager, scheduler) = pair(None, server_first);
    assert_eq!(
        refusals(&job_manager, &scheduler)[0].role_to_upgrade(),
        "scheduler"
    );
    // Neither states one: the declaration's default, any-order.
    accepted(&pair(None, None).0, &pair(None, None).1);
}

#[test]
fn without_the_roles_a_directed_order_accepts_only_the_same_version() {
    for order in [Upgrade::ServerFirst, Upgrade::ClientFirst] {
        // Neither states a role, or both state the same one.
        for (scheduler_role, job_manager_role) in [
            (None, None),
            (Some(Role::Server), Some(Role::Server)),
            (Some(Role::Client), Some(Role::Client)),
        ] {
            let hellos = |scheduler_version, job_manager_version| {
                (
                    scheduler_with(sched_entry(scheduler_version, Some(order), scheduler_role)),
                    job_manager_with(sched_entry(
                        job_manager_version,
                        Some(order),
                        job_manager_role,
                    )),
                )
            };
            let (scheduler, job_manager) = hellos("0.88.0", "0.88.0");
            accepted(&scheduler, &job_manager);
            for (scheduler_version, job_manager_version, older) in [
                ("0.88.0", "0.87.0", "job-manager"),
                ("0.87.0", "0.88.0", "scheduler"),
            ] {
                let (scheduler, job_manager) = hellos(scheduler_version, job_manager_version);
                let found = refusals(&scheduler, &job_manager);
                assert_eq!(
                    (
                        found[0].role_to_upgrade(),
                        found[0].minimum.to_string(),
                        found[0].minimum_source
                    ),
                    (
                        older,
                        "0.88.0".to_owned(),
                        MinimumSource::RolesUnstated(order)
                    ),
                    "{order} {scheduler_role:?}/{job_manager_role:?}"
                );
            }
        }
    }
    let order = Some(Upgrade::ServerFirst);
    assert_eq!(
        refused(
            &job_manager_with(sched_entry("0.87.0", order, None)),
            &scheduler_with(sched_entry("0.88.0", order, None)),
        ),
        "sched is server-first, and the hellos do not tell which peer is its server: this job-manager speaks \
         0.87.0 and the scheduler 0.88.0, a pairing proven in one orientation only; state each peer's role in its \
         hello (`Hello::serves` or `Hello::calls`), or upgrade the job-manager to 0.88.0 or later"
    );
}

#[test]
fn the_upgrade_order_is_looked_at_before_the_minimum() {
    // The old server is below the client's minimum too; the order's remedy (the client's version) covers both.
    let order = Some(Upgrade::ServerFirst);
    let job_manager = job_manager_with(sched_entry("0.88.0", order, Some(Role::Client)));
    let scheduler = scheduler_with(sched_entry("0.86.2", order, Some(Role::Server)));
    assert_eq!(
        refused(&job_manager, &scheduler),
        "sched is server-first: this job-manager (client) speaks 0.88.0 and the scheduler (server) 0.86.2; \
         upgrade the servers first: the scheduler to 0.88.0 or later"
    );
    // The order allows a newer server; the minimum still refuses a client below it.
    let scheduler = scheduler_with(sched_entry("0.88.0", order, Some(Role::Server)));
    let job_manager = job_manager_with(sched_entry("0.86.2", order, Some(Role::Client)));
    assert_eq!(
        refused(&job_manager, &scheduler),
        "scheduler speaks sched 0.88.0, which accepts 0.87.0 and later; \
         this job-manager speaks 0.86.2: upgrade the job-manager first"
    );
}

/// Over every pair of entries with every stated order and role: both ends reach the same verdict and name the same
/// peer to upgrade, and upgrading that peer to the refusal's minimum (its order and role kept) is accepted.
#[test]
fn both_ends_agree_with_orders_and_roles_and_the_remedy_suffices() {
    let orders = [
        None,
        Some(Upgrade::AnyOrder),
        Some(Upgrade::ServerFirst),
        Some(Upgrade::ClientFirst),
    ];
    let roles = [None, Some(Role::Server), Some(Role::Client)];
    let mut entries = Vec::new();
    for version in ["0.86.2", "0.87.0", "0.88.0", "0.88.1", "1.0.0"] {
        for order in orders {
            for role in roles {
                entries.push(sched_entry(version, order, role));
            }
        }
    }
    let mut count = (0, 0);
    for a in &entries {
        for b in &entries {
            let (local, remote) = (
                Hello::new("a").with_entry(a.clone()),
                Hello::new("b").with_entry(b.clone()),
            );
            let found = match negotiate_both_ways(&local, &remote) {
                Ok(_) => {
                    count.0 += 1;
                    continue;
                }
                Err(HandshakeError::Refused(found)) => found,
                Err(e) => panic!("{e}"),
            };
            count.1 += 1;
            let refusal = &found[0];
            let (upgraded, other) = match refusal.upgrade {
                Side::Local => (a, &remote),
                Side::Remote => (b, &local),
            };
            assert!(
                parsed(&upgraded.version) < refusal.minimum,
                "{a:?} / {b:?}: {refusal:?}"
            );
            let mut remedied = upgraded.clone();
            remedied.version = refusal.minimum.to_string();
            let remedied = Hello::new("upgraded").with_entry(remedied);
            negotiate_both_ways(&remedied, other).unwrap_or_else(|e| {
                panic!(
                    "{a:?} / {b:?}: upgrading to {} is still refused: {e}",
                    refusal.minimum
                )
            });
        }
    }
    assert!(count.0 > 0 && count.1 > 0, "{count:?}");
}
