//! Every rule of the negotiation, with the exact messages a person sees.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::*;

mod hello;
mod order;

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
