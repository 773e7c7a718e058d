//! The hello itself (`handshake/hello.rs`): malformed ones, its form on the wire, hellos built from
//! protocol impls, and the hello's own declaration as a wirecheck protocol.

use super::*;
use crate::{Format, Kind, Message, ProtocolInfo, ResponseMode};

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
