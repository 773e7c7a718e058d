//! Every rule of the negotiation, with the exact messages a person sees.

use std::collections::BTreeMap;

use super::*;
use crate::{Format, Kind, Message, ProtocolInfo, ResponseMode, Upgrade};

/// A job-manager speaking `sched` at `version`, with an optional declared `min_compatible`.
fn job_manager_hello(version: &str, min: Option<&str>) -> Hello {
    peer("job-manager", version, min)
}

/// A scheduler speaking `sched` at `version`, with an optional declared `min_compatible`.
fn scheduler_hello(version: &str, min: Option<&str>) -> Hello {
    peer("scheduler", version, min)
}

fn peer(role: &str, version: &str, min: Option<&str>) -> Hello {
    let mut entry = ProtocolVersion::new("sched", version);
    entry.min_compatible = min.map(str::to_owned);
    Hello::new(role).with_entry(entry)
}

/// Negotiates from both ends and checks both reach the same verdict; returns the local view.
fn negotiate_both_ways(local: &Hello, remote: &Hello) -> Result<Agreement, HandshakeError> {
    let ours = negotiate(local, remote);
    let theirs = negotiate(remote, local);
    assert_eq!(
        ours.is_ok(),
        theirs.is_ok(),
        "the two ends disagree: {ours:?} / {theirs:?}"
    );
    if let (Err(HandshakeError::Refused(a)), Err(HandshakeError::Refused(b))) = (&ours, &theirs) {
        let upgrade: Vec<_> = a.iter().map(Refusal::role_to_upgrade).collect();
        let upgrade_theirs: Vec<_> = b.iter().map(Refusal::role_to_upgrade).collect();
        assert_eq!(
            upgrade, upgrade_theirs,
            "the two ends name different peers to upgrade"
        );
    }
    ours
}

fn accepted(local: &Hello, remote: &Hello) -> Agreement {
    negotiate_both_ways(local, remote).unwrap_or_else(|e| panic!("expected an agreement, got: {e}"))
}

fn refused(local: &Hello, remote: &Hello) -> String {
    match negotiate_both_ways(local, remote) {
        Err(e @ HandshakeError::Refused(_)) => e.to_string(),
        other => panic!("expected a refusal, got: {other:?}"),
    }
}

fn malformed(local: &Hello, remote: &Hello) -> String {
    match negotiate(local, remote) {
        Err(e @ HandshakeError::Malformed(_)) => e.to_string(),
        other => panic!("expected a malformed hello, got: {other:?}"),
    }
}

fn parsed(text: &str) -> Version {
    Version::parse(text).unwrap()
}

#[test]
fn equal_versions_are_accepted() {
    let agreement = accepted(
        &job_manager_hello("0.88.0", None),
        &scheduler_hello("0.88.0", None),
    );
    assert_eq!(agreement.local_role, "job-manager");
    assert_eq!(agreement.remote_role, "scheduler");
    assert_eq!(
        agreement.protocols,
        [
            Agreed {
                name: "sched".into(),
                local: parsed("0.88.0"),
                remote: parsed("0.88.0")
            },
            Agreed {
                name: "wirecheck-hello".into(),
                local: parsed("0.1.1"),
                remote: parsed("0.1.1")
            },
        ]
    );
    assert!(agreement.local_only.is_empty() && agreement.remote_only.is_empty());
    accepted(
        &job_manager_hello("1.4.2", None),
        &scheduler_hello("1.4.2", None),
    );
    accepted(
        &job_manager_hello("0.0.3", None),
        &scheduler_hello("0.0.3", None),
    );
    accepted(
        &job_manager_hello("2.0.0-rc.1", None),
        &scheduler_hello("2.0.0-rc.1", None),
    );
}

#[test]
fn patch_skew_is_accepted_both_ways() {
    for (a, b) in [("1.4.2", "1.4.7"), ("0.88.0", "0.88.3")] {
        let agreement = accepted(&job_manager_hello(a, None), &scheduler_hello(b, None));
        assert_eq!(agreement.require("sched").unwrap().older(), &parsed(a));
        accepted(&job_manager_hello(b, None), &scheduler_hello(a, None));
    }
}

#[test]
fn minor_skew_is_accepted_both_ways_from_1_0() {
    accepted(
        &job_manager_hello("1.4.2", None),
        &scheduler_hello("1.6.0", None),
    );
    accepted(
        &job_manager_hello("1.6.0", None),
        &scheduler_hello("1.4.2", None),
    );
    accepted(
        &job_manager_hello("1.0.0", None),
        &scheduler_hello("1.99.5", None),
    );
}

#[test]
fn major_skew_is_refused_and_the_older_peer_upgrades() {
    assert_eq!(
        refused(
            &job_manager_hello("2.0.0", None),
            &scheduler_hello("1.4.2", None)
        ),
        "scheduler speaks sched 1.4.2; this job-manager accepts 2.0.0 and later: upgrade the scheduler first"
    );
    assert_eq!(
        refused(
            &job_manager_hello("1.4.2", None),
            &scheduler_hello("2.0.0", None)
        ),
        "scheduler speaks sched 2.0.0, which accepts 2.0.0 and later; \
         this job-manager speaks 1.4.2: upgrade the job-manager first"
    );
}

#[test]
fn zero_y_versions_interoperate_only_within_the_same_y() {
    accepted(
        &job_manager_hello("0.88.0", None),
        &scheduler_hello("0.88.5", None),
    );
    assert_eq!(
        refused(
            &job_manager_hello("0.88.0", None),
            &scheduler_hello("0.87.9", None)
        ),
        "scheduler speaks sched 0.87.9; this job-manager accepts 0.88.0 and later: upgrade the scheduler first"
    );
    assert_eq!(
        refused(
            &job_manager_hello("0.87.9", None),
            &scheduler_hello("0.88.0", None)
        ),
        "scheduler speaks sched 0.88.0, which accepts 0.88.0 and later; \
         this job-manager speaks 0.87.9: upgrade the job-manager first"
    );
}

#[test]
fn zero_zero_z_versions_interoperate_only_with_themselves() {
    assert_eq!(
        refused(
            &job_manager_hello("0.0.4", None),
            &scheduler_hello("0.0.3", None)
        ),
        "scheduler speaks sched 0.0.3; this job-manager accepts 0.0.4 and later: upgrade the scheduler first"
    );
    assert_eq!(
        refused(
            &job_manager_hello("0.0.3", None),
            &scheduler_hello("0.0.4", None)
        ),
        "scheduler speaks sched 0.0.4, which accepts 0.0.4 and later; \
         this job-manager speaks 0.0.3: upgrade the job-manager first"
    );
}

#[test]
fn min_compatible_declared_by_this_peer() {
    // The contract's example, seen from the job-manager.
    let job_manager = job_manager_hello("0.88.0", Some("0.87.0"));
    accepted(&job_manager, &scheduler_hello("0.87.0", None));
    accepted(&job_manager, &scheduler_hello("0.87.4", None));
    let refusal = negotiate_both_ways(&job_manager, &scheduler_hello("0.86.2", None)).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "scheduler speaks sched 0.86.2; this job-manager accepts 0.87.0 and later: upgrade the scheduler first"
    );
    let HandshakeError::Refused(refusals) = refusal else {
        unreachable!()
    };
    assert_eq!(
        refusals,
        [Refusal {
            protocol: "sched".into(),
            local_role: "job-manager".into(),
            remote_role: "scheduler".into(),
            local: parsed("0.88.0"),
            remote: parsed("0.86.2"),
            upgrade: Side::Remote,
            minimum: parsed("0.87.0"),
            minimum_source: MinimumSource::Declared,
        }]
    );
    assert_eq!(refusals[0].role_to_upgrade(), "scheduler");
}

#[test]
fn min_compatible_declared_by_the_other_peer_lets_an_older_peer_accept_a_newer_one() {
    // The older job-manager's own rule (same 0.87) would not cover 0.88.0: the newer peer vouches for it.
    let agreement = accepted(
        &job_manager_hello("0.87.1", None),
        &scheduler_hello("0.88.0", Some("0.87.0")),
    );
    assert_eq!(
        agreement.require("sched").unwrap(),
        &Agreed {
            name: "sched".into(),
            local: parsed("0.87.1"),
            remote: parsed("0.88.0")
        }
    );
    let refusal = negotiate_both_ways(
        &job_manager_hello("0.86.2", None),
        &scheduler_hello("0.88.0", Some("0.87.0")),
    )
    .unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "scheduler speaks sched 0.88.0, which accepts 0.87.0 and later; \
         this job-manager speaks 0.86.2: upgrade the job-manager first"
    );
    let HandshakeError::Refused(refusals) = refusal else {
        unreachable!()
    };
    assert_eq!(
        (refusals[0].upgrade, refusals[0].role_to_upgrade()),
        (Side::Local, "job-manager")
    );
}

#[test]
fn min_compatible_reaches_across_majors_and_can_be_stricter_than_the_series() {
    accepted(
        &job_manager_hello("1.4.2", None),
        &scheduler_hello("2.0.0", Some("1.3.0")),
    );
    accepted(
        &job_manager_hello("2.0.0", Some("1.3.0")),
        &scheduler_hello("1.3.0", None),
    );
    assert_eq!(
        refused(
            &job_manager_hello("2.0.0", Some("1.3.0")),
            &scheduler_hello("1.2.9", None)
        ),
        "scheduler speaks sched 1.2.9; this job-manager accepts 1.3.0 and later: upgrade the scheduler first"
    );
    // Stricter than the series default (1.0.0).
    assert_eq!(
        refused(
            &job_manager_hello("1.5.0", Some("1.3.0")),
            &scheduler_hello("1.2.0", None)
        ),
        "scheduler speaks sched 1.2.0; this job-manager accepts 1.3.0 and later: upgrade the scheduler first"
    );
    // Both declare: each must be covered by the other's minimum.
    accepted(
        &job_manager_hello("3.1.0", Some("2.5.0")),
        &scheduler_hello("2.6.0", Some("2.0.0")),
    );
}

#[test]
fn the_series_default_is_reported_as_such() {
    let Err(HandshakeError::Refused(refusals)) = negotiate(
        &job_manager_hello("0.88.0", None),
        &scheduler_hello("0.87.9", None),
    ) else {
        panic!("expected a refusal");
    };
    assert_eq!(refusals[0].minimum_source, MinimumSource::Series);
}

#[test]
fn pre_releases_and_build_metadata() {
    assert_eq!(
        refused(
            &job_manager_hello("2.0.0", None),
            &scheduler_hello("2.0.0-rc.1", None)
        ),
        "scheduler speaks sched 2.0.0-rc.1; this job-manager accepts 2.0.0 and later: upgrade the scheduler first"
    );
    accepted(
        &job_manager_hello("2.1.0-beta.1", None),
        &scheduler_hello("2.0.0", None),
    );
    // Build metadata does not take part in precedence.
    accepted(
        &job_manager_hello("1.2.0+build.7", Some("1.2.0+build.9")),
        &scheduler_hello("1.2.0", Some("1.2.0+other")),
    );
}

#[test]
fn a_protocol_only_one_side_speaks_is_left_out_not_refused() {
    let job_manager =
        job_manager_hello("0.88.0", None).with_entry(ProtocolVersion::new("job-eventlog", "1.0.0"));
    let scheduler =
        scheduler_hello("0.88.0", None).with_entry(ProtocolVersion::new("feasibility", "0.1.0"));
    let agreement = accepted(&job_manager, &scheduler);
    assert_eq!(agreement.local_only, ["job-eventlog"]);
    assert_eq!(agreement.remote_only, ["feasibility"]);
    assert!(agreement.get("job-eventlog").is_none());
    assert_eq!(agreement.require("sched").unwrap().local, parsed("0.88.0"));
    assert_eq!(
        agreement.require("job-eventlog").unwrap_err().to_string(),
        "scheduler does not speak job-eventlog; this job-manager needs it"
    );
    assert_eq!(
        agreement.require("feasibility").unwrap_err().to_string(),
        "this job-manager does not speak feasibility, which the scheduler speaks"
    );
    assert_eq!(
        agreement.require("exec").unwrap_err().to_string(),
        "neither this job-manager nor the scheduler speaks exec"
    );
    // A peer that does not even list the hello protocol still negotiates the rest.
    let bare = Hello {
        role: "scheduler".into(),
        protocols: vec![ProtocolVersion::new("sched", "0.88.1")],
        attributes: BTreeMap::new(),
    };
    let agreement = accepted(&job_manager_hello("0.88.0", None), &bare);
    assert_eq!(agreement.local_only, ["wirecheck-hello"]);
    assert_eq!(agreement.protocols.len(), 1);
}

#[test]
fn every_refused_protocol_is_reported_one_per_line() {
    let job_manager =
        job_manager_hello("0.88.0", None).with_entry(ProtocolVersion::new("job-eventlog", "1.0.0"));
    let scheduler =
        scheduler_hello("0.87.2", None).with_entry(ProtocolVersion::new("job-eventlog", "2.0.0"));
    assert_eq!(
        refused(&job_manager, &scheduler),
        "scheduler speaks job-eventlog 2.0.0, which accepts 2.0.0 and later; \
         this job-manager speaks 1.0.0: upgrade the job-manager first\n\
         scheduler speaks sched 0.87.2; this job-manager accepts 0.88.0 and later: upgrade the scheduler first"
    );
}

#[test]
fn malformed_hellos_are_errors_not_panics() {
    let good = job_manager_hello("0.88.0", None);
    assert_eq!(
        malformed(&good, &scheduler_hello("0.86", None)),
        "malformed hello from scheduler: sched version `0.86` is not a semantic version: \
         unexpected end of input while parsing minor version number"
    );
    assert_eq!(
        malformed(&good, &scheduler_hello("v0.86.2", None)),
        "malformed hello from scheduler: sched version `v0.86.2` is not a semantic version: \
         unexpected character 'v' while parsing major version number"
    );
    assert_eq!(
        malformed(&good, &scheduler_hello("", None)),
        "malformed hello from scheduler: sched version `` is not a semantic version: empty string, expected a semver version"
    );
    assert_eq!(
        malformed(&good, &scheduler_hello("0.86.2", Some("latest"))),
        "malformed hello from scheduler: sched min_compatible `latest` is not a semantic version: \
         unexpected character 'l' while parsing major version number"
    );
    assert_eq!(
        malformed(&good, &scheduler_hello("0.86.2", Some("0.87.0"))),
        "malformed hello from scheduler: sched min_compatible 0.87.0 is above its version 0.86.2"
    );
    let mut twice = scheduler_hello("0.88.0", None);
    twice
        .protocols
        .push(ProtocolVersion::new("sched", "0.88.1"));
    assert_eq!(
        malformed(&good, &twice),
        "malformed hello from scheduler: protocol sched is listed more than once"
    );
    assert_eq!(
        malformed(
            &good,
            &Hello {
                role: " ".into(),
                ..scheduler_hello("0.88.0", None)
            }
        ),
        "malformed hello from peer: the role is empty"
    );
    let mut sideways = scheduler_hello("0.88.0", None);
    sideways.protocols[1].upgrade = Some("sideways".into());
    assert_eq!(
        malformed(&good, &sideways),
        "malformed hello from scheduler: sched upgrade `sideways` is not one of any-order, server-first, client-first"
    );
    let mut waiter = scheduler_hello("0.88.0", None);
    waiter.protocols[1].role = Some("Server".into());
    assert_eq!(
        malformed(&good, &waiter),
        "malformed hello from scheduler: sched role `Server` is not one of server, client"
    );
    let mut unnamed = scheduler_hello("0.88.0", None);
    unnamed.protocols.push(ProtocolVersion::new("", "1.0.0"));
    assert_eq!(
        malformed(&good, &unnamed),
        "malformed hello from scheduler: a protocol has an empty name"
    );

    // This peer's own hello (a bad override, say) is checked first and blamed as such.
    let err = negotiate(
        &job_manager_hello("0.88", None),
        &scheduler_hello("nonsense", None),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "this job-manager's own hello is malformed: sched version `0.88` is not a semantic version: \
         unexpected end of input while parsing minor version number"
    );
    let HandshakeError::Malformed(malformed) = err else {
        unreachable!()
    };
    assert_eq!(malformed.side, Side::Local);
    assert!(std::error::Error::source(&malformed).is_some());
}

#[test]
fn the_hello_on_the_wire() {
    let hello = scheduler_hello("0.86.2", None)
        .with_entry(ProtocolVersion::new("job-eventlog", "1.0.0").with_min_compatible("0.9.0"))
        .with_entry(
            ProtocolVersion::new("exec", "0.88.0")
                .with_upgrade(Upgrade::ServerFirst)
                .with_role(Role::Server),
        )
        .with_attribute("pid", "4242");
    let json = serde_json::to_string(&hello).unwrap();
    assert_eq!(
        json,
        r#"{"role":"scheduler","protocols":[{"name":"wirecheck-hello","version":"0.1.1","upgrade":"any-order"},{"name":"sched","version":"0.86.2"},{"name":"job-eventlog","version":"1.0.0","min_compatible":"0.9.0"},{"name":"exec","version":"0.88.0","upgrade":"server-first","role":"server"}],"attributes":{"pid":"4242"}}"#
    );
    assert_eq!(serde_json::from_str::<Hello>(&json).unwrap(), hello);

    // A hello of wirecheck-hello 0.1.0, before orders and roles: it parses, states neither, and negotiates.
    let before_roles: Hello = serde_json::from_str(
        r#"{"role":"job-manager","protocols":[{"name":"wirecheck-hello","version":"0.1.0"},{"name":"sched","version":"0.88.0"}]}"#,
    )
    .unwrap();
    assert_eq!(
        before_roles.entry("sched"),
        Some(&ProtocolVersion::new("sched", "0.88.0"))
    );
    let compat = before_roles.validate().unwrap()["sched"].clone();
    assert_eq!((compat.upgrade, compat.role), (None, None));
    accepted(
        &scheduler_hello("0.88.0", None).with::<HelloProtocol>(),
        &before_roles,
    );

    // Older or newer peers: missing attributes default, unknown keys are ignored.
    let minimal: Hello = serde_json::from_str(
        r#"{"role":"scheduler","protocols":[{"name":"sched","version":"0.88.0","since":"x"}],"extra":1}"#,
    )
    .unwrap();
    assert!(minimal.attributes.is_empty());
    assert_eq!(
        minimal.entry("sched"),
        Some(&ProtocolVersion::new("sched", "0.88.0"))
    );

    // A hello whose shape is wrong fails in the decoder (the caller's error), without panicking.
    assert!(
        serde_json::from_str::<Hello>(r#"{"role":"scheduler","protocols":{"sched":"0.88.0"}}"#)
            .is_err()
    );
}

/// A protocol declared by hand, as the derive would.
struct Sched;
impl Protocol for Sched {
    const NAME: &'static str = "sched";
    const VERSION: &'static str = "0.88.0";
    const MIN_COMPATIBLE: Option<&'static str> = Some("0.87.0");
    const UPGRADE: Upgrade = Upgrade::AnyOrder;
    const FORMAT: Format = Format::Json;
}

#[test]
fn hellos_are_built_from_protocol_impls() {
    let hello = Hello::new("job-manager")
        .with::<Sched>()
        .with_attribute("rank", "0");
    assert_eq!(
        hello.protocols,
        [
            ProtocolVersion::new("wirecheck-hello", "0.1.1").with_upgrade(Upgrade::AnyOrder),
            ProtocolVersion::new("sched", "0.88.0")
                .with_min_compatible("0.87.0")
                .with_upgrade(Upgrade::AnyOrder),
        ]
    );
    assert_eq!(
        ProtocolVersion::of::<Sched>(),
        ProtocolVersion::from(Sched::info())
    );
    // An override replaces the declared entry instead of listing the protocol twice.
    let old = hello
        .clone()
        .with_entry(ProtocolVersion::new("sched", "0.86.2"));
    assert_eq!(old.protocols.len(), 2);
    assert_eq!(
        old.entry("sched"),
        Some(&ProtocolVersion::new("sched", "0.86.2"))
    );
    assert_eq!(
        refused(
            &hello,
            &Hello::new("scheduler").with_entry(ProtocolVersion::new("sched", "0.86.2"))
        ),
        "scheduler speaks sched 0.86.2; this job-manager accepts 0.87.0 and later: upgrade the scheduler first"
    );
}

/// Pins every constant of the hello's declaration, so that the derived impls (feature `derive`) and the
/// hand-written ones (without it) cannot drift apart: the same test runs in both builds.
#[test]
fn the_hello_is_declared_as_a_wirecheck_protocol() {
    assert_eq!(
        HelloProtocol::info(),
        ProtocolInfo {
            name: "wirecheck-hello",
            version: "0.1.1",
            min_compatible: None,
            upgrade: Upgrade::AnyOrder,
            format: Format::Json,
        }
    );
    assert_eq!(<Hello as Message>::TOPIC, "wirecheck.hello");
    assert_eq!(<Hello as Message>::KIND, Kind::Event);
    assert_eq!(<Hello as Message>::RESPONSE, ResponseMode::None);
    assert_eq!(<Hello as Message>::SINCE, None);
    fn same_type<A: SameAs<B>, B>() {}
    trait SameAs<T> {}
    impl<T> SameAs<T> for T {}
    same_type::<<Hello as Message>::Protocol, HelloProtocol>();
    same_type::<<Hello as Message>::Response, ()>();
    assert_eq!(
        Hello::new("x").entry("wirecheck-hello"),
        Some(&ProtocolVersion::of::<HelloProtocol>())
    );
}

#[test]
fn default_minimum_follows_cargo_semver() {
    let min = |text: &str| default_min_compatible(&parsed(text)).to_string();
    assert_eq!(min("1.4.2"), "1.0.0");
    assert_eq!(min("1.0.0"), "1.0.0");
    assert_eq!(min("3.2.1-alpha"), "3.0.0");
    assert_eq!(min("2.0.0-rc.1"), "2.0.0-rc.1");
    assert_eq!(min("2.0.0-rc.1+b7"), "2.0.0-rc.1");
    assert_eq!(min("0.88.3"), "0.88.0");
    assert_eq!(min("0.88.0+b7"), "0.88.0");
    assert_eq!(min("0.0.7"), "0.0.7");
    assert_eq!(min("0.0.0"), "0.0.0");
}

#[test]
fn one_peer_view_matches_the_documented_rule() {
    let compat = |version: &str, min: Option<&str>| {
        let mut entry = ProtocolVersion::new("p", version);
        entry.min_compatible = min.map(str::to_owned);
        entry.parse().unwrap()
    };
    // M <= P and P <= V.
    assert!(compat("1.4.0", None).accepts(&compat("1.2.0", None)));
    // P below M.
    assert!(!compat("1.4.0", Some("1.3.0")).accepts(&compat("1.2.0", None)));
    // P newer: its own minimum decides.
    assert!(compat("1.4.0", None).accepts(&compat("2.0.0", Some("1.4.0"))));
    assert!(!compat("1.4.0", None).accepts(&compat("2.0.0", Some("1.5.0"))));
    assert!(!compat("1.4.0", None).accepts(&compat("2.0.0", None)));
}

/// Both views agree, for every pair of valid entries, and a refusal names exactly one side below the other's
/// minimum: the property the module docs state.
#[test]
fn both_views_agree_on_every_pair() {
    let versions = [
        "0.0.3",
        "0.0.4",
        "0.1.0",
        "0.86.2",
        "0.87.0",
        "0.87.4",
        "0.88.0",
        "0.88.1",
        "1.0.0-rc.1",
        "1.0.0",
        "1.2.0",
        "1.4.2",
        "2.0.0-rc.1",
        "2.0.0",
        "2.3.0",
    ];
    let mut entries = Vec::new();
    for version in versions {
        entries.push(ProtocolVersion::new("p", version));
        for min in versions {
            if parsed(min) <= parsed(version) {
                entries.push(ProtocolVersion::new("p", version).with_min_compatible(min));
            }
        }
    }
    let mut count = (0, 0);
    for a in &entries {
        for b in &entries {
            let (compat_a, compat_b) = (a.parse().unwrap(), b.parse().unwrap());
            assert_eq!(
                compat_a.accepts(&compat_b),
                compat_b.accepts(&compat_a),
                "{a:?} / {b:?}"
            );
            let symmetric = at_most(&compat_a.minimum, &compat_b.version)
                && at_most(&compat_b.minimum, &compat_a.version);
            assert_eq!(compat_a.accepts(&compat_b), symmetric, "{a:?} / {b:?}");
            let local = Hello::new("a").with_entry(a.clone());
            let remote = Hello::new("b").with_entry(b.clone());
            match negotiate_both_ways(&local, &remote) {
                Ok(_) => count.0 += 1,
                Err(HandshakeError::Refused(refusals)) => {
                    count.1 += 1;
                    let upgraded = match refusals[0].upgrade {
                        Side::Local => &compat_a.version,
                        Side::Remote => &compat_b.version,
                    };
                    assert!(
                        upgraded.cmp_precedence(&refusals[0].minimum) == Ordering::Less,
                        "{refusals:?}"
                    );
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    assert!(count.0 > 0 && count.1 > 0, "{count:?}");
}

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

/// Issue 33 item 7: two peers that share no protocol besides the hello's own are refused from both ends,
/// naming what each speaks; one shared protocol is enough.
#[test]
fn a_peer_sharing_no_protocol_is_refused_naming_both_lists() {
    let job_manager = Hello::new("job-manager")
        .with_entry(ProtocolVersion::new("sched", "0.88.0"))
        .with_entry(ProtocolVersion::new("job-eventlog", "1.0.0"));
    let broker = Hello::new("broker").with_entry(ProtocolVersion::new("overlay", "0.61.2"));
    for (local, remote) in [(&job_manager, &broker), (&broker, &job_manager)] {
        let err = negotiate(local, remote).unwrap_err();
        assert!(
            matches!(err, HandshakeError::NothingShared { .. }),
            "{err:?}"
        );
    }
    assert_eq!(
        negotiate(&job_manager, &broker).unwrap_err().to_string(),
        "the broker shares no protocol with this job-manager: the broker speaks overlay 0.61.2; this \
         job-manager speaks sched 0.88.0, job-eventlog 1.0.0: connect to a peer of the same system, or give \
         both a protocol in common"
    );
    // A peer listing only the hello protocol shares nothing either.
    let bare = Hello::new("tool");
    let err = negotiate(&bare, &broker).unwrap_err().to_string();
    assert!(err.contains("this tool speaks no protocol"), "{err}");
    // One protocol in common is an agreement, whatever else either speaks.
    let scheduler = scheduler_hello("0.88.0", None);
    let agreement = accepted(&job_manager, &scheduler);
    assert!(agreement.get("sched").is_some(), "{agreement:?}");
    assert_eq!(agreement.local_only, ["job-eventlog"]);
}
