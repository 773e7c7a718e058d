//! The wirecheck declarations, as the derives expose them at run time: every message's protocol, topic,
//! kind, response mode and `since`.

use flux_protocols::{ExecEventlog, JobEventlog, Sched};
use flux_protocols::{eventlog, exec, exec_eventlog, sched};
use wirecheck::{Format, Kind, Message, Protocol, ResponseMode, Upgrade};

/// One message's declaration, with its protocol's name.
type Row = (
    &'static str,
    &'static str,
    Kind,
    ResponseMode,
    Option<&'static str>,
);

fn row<M: Message>() -> Row {
    (
        <M::Protocol as Protocol>::NAME,
        M::TOPIC,
        M::KIND,
        M::RESPONSE,
        M::SINCE,
    )
}

#[test]
fn protocols() {
    for info in [
        Sched::info(),
        exec::Exec::info(),
        JobEventlog::info(),
        ExecEventlog::info(),
    ] {
        assert_eq!(info.version, "0.88.0", "{}", info.name);
        assert_eq!(info.min_compatible, None);
        assert_eq!(info.upgrade, Upgrade::AnyOrder);
        assert_eq!(info.format, Format::Json);
    }
    assert_eq!(
        [
            Sched::NAME,
            exec::Exec::NAME,
            JobEventlog::NAME,
            ExecEventlog::NAME
        ],
        ["sched", "exec", "job-eventlog", "exec-eventlog"]
    );
}

#[test]
fn messages() {
    use Kind::{Event, Record, Request, Response};
    use ResponseMode::{None as NoResponse, Single, Stream};
    let expected: &[Row] = &[
        ("sched", "job-manager.sched-hello", Request, Stream, None),
        (
            "sched",
            "job-manager.sched-hello",
            Response,
            NoResponse,
            None,
        ),
        ("sched", "job-manager.sched-ready", Request, Single, None),
        (
            "sched",
            "job-manager.sched-ready",
            Response,
            NoResponse,
            None,
        ),
        ("sched", "sched.alloc", Request, Stream, None),
        ("sched", "sched.alloc", Response, NoResponse, None),
        ("sched", "sched.cancel", Request, NoResponse, Some("0.15.0")),
        (
            "sched",
            "sched.prioritize",
            Request,
            NoResponse,
            Some("0.23.0"),
        ),
        ("sched", "sched.expiration", Request, Single, None),
        ("sched", "sched.expiration", Response, NoResponse, None),
        ("sched", "sched.free", Request, NoResponse, None),
        (
            "sched",
            "feasibility.check",
            Request,
            Single,
            Some("0.66.0"),
        ),
        (
            "sched",
            "feasibility.check",
            Response,
            NoResponse,
            Some("0.66.0"),
        ),
        ("sched", "sched.resource-status", Request, Single, None),
        ("sched", "sched.resource-status", Response, NoResponse, None),
        (
            "exec",
            "job-manager.exec-hello",
            Request,
            Single,
            Some("0.12.0"),
        ),
        (
            "exec",
            "job-manager.exec-hello",
            Response,
            NoResponse,
            Some("0.12.0"),
        ),
        ("exec", "job-exec.start", Request, Stream, None),
        ("exec", "job-exec.start", Response, NoResponse, None),
        (
            "exec",
            "job-exec.expiration",
            Request,
            Single,
            Some("0.56.0"),
        ),
        (
            "exec",
            "job-exec.expiration",
            Response,
            NoResponse,
            Some("0.56.0"),
        ),
        ("exec", "job-exception", Event, NoResponse, None),
        ("exec", "shell-<id>.kill", Event, NoResponse, None),
        ("job-eventlog", "job.eventlog", Record, NoResponse, None),
        (
            "exec-eventlog",
            "job.guest.exec.eventlog",
            Record,
            NoResponse,
            None,
        ),
    ];
    let actual = [
        row::<sched::HelloRequest>(),
        row::<sched::HelloResponse>(),
        row::<sched::ReadyRequest>(),
        row::<sched::ReadyResponse>(),
        row::<sched::AllocRequest>(),
        row::<sched::AllocResponse>(),
        row::<sched::CancelRequest>(),
        row::<sched::PrioritizeRequest>(),
        row::<sched::ExpirationRequest>(),
        row::<sched::ExpirationResponse>(),
        row::<sched::FreeRequest>(),
        row::<sched::FeasibilityRequest>(),
        row::<sched::FeasibilityResponse>(),
        row::<sched::ResourceStatusRequest>(),
        row::<sched::ResourceStatusResponse>(),
        row::<exec::ExecHelloRequest>(),
        row::<exec::ExecHelloResponse>(),
        row::<exec::StartRequest>(),
        row::<exec::StartResponse>(),
        row::<exec::ExpirationRequest>(),
        row::<exec::ExpirationResponse>(),
        row::<exec::JobExceptionEvent>(),
        row::<exec::ShellKillEvent>(),
        row::<eventlog::Entry>(),
        row::<exec_eventlog::Entry>(),
    ];
    assert_eq!(actual.as_slice(), expected);
}

#[test]
fn requests_name_their_response_types() {
    fn same<A: 'static, B: 'static>() -> bool {
        std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>()
    }
    assert!(same::<
        <sched::HelloRequest as Message>::Response,
        sched::HelloResponse,
    >());
    assert!(same::<
        <sched::AllocRequest as Message>::Response,
        sched::AllocResponse,
    >());
    assert!(same::<
        <sched::ReadyRequest as Message>::Response,
        sched::ReadyResponse,
    >());
    assert!(same::<<sched::FreeRequest as Message>::Response, ()>());
    assert!(same::<
        <exec::StartRequest as Message>::Response,
        exec::StartResponse,
    >());
}
