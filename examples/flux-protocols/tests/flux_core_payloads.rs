//! Payloads shaped as flux-core v0.88.0 really sends them (the jansson pack formats of
//! `docs/flux-protocols.md` §1.3, §2.1, §3), and the ones it refuses.

use flux_protocols::eventlog::{self, Event, KNOWN_EVENTS};
use flux_protocols::exec::{self, StartResponseBody};
use flux_protocols::exec_eventlog::{self, ExecEvent, KNOWN_EXEC_EVENTS};
use flux_protocols::sched::{self, AllocType, ReadyMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Parses `payload` as `T`, serializes it again and asserts the same JSON comes back.
fn round_trip<T: DeserializeOwned + Serialize>(payload: Value) -> T {
    let typed: T = serde_json::from_value(payload.clone()).unwrap_or_else(|e| {
        panic!(
            "{payload} does not parse as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    assert_eq!(serde_json::to_value(&typed).unwrap(), payload);
    typed
}

/// Asserts that `payload` does not parse as `T`, returning the error text.
fn rejected<T: DeserializeOwned + std::fmt::Debug>(payload: Value) -> String {
    match serde_json::from_value::<T>(payload.clone()) {
        Ok(typed) => panic!(
            "{payload} was accepted as {}: {typed:?}",
            std::any::type_name::<T>()
        ),
        Err(error) => error.to_string(),
    }
}

fn r() -> Value {
    json!({
        "version": 1,
        "execution": {
            "R_lite": [{"rank": "0-1", "children": {"core": "0-3"}}],
            "nodelist": ["node[0-1]"],
            "starttime": 1710076092,
            "expiration": 1710079692
        }
    })
}

fn jobspec() -> Value {
    json!({
        "version": 1,
        "resources": [{"type": "slot", "count": 1, "label": "task",
                       "with": [{"type": "core", "count": 1}]}],
        "tasks": [{"command": ["hostname"], "slot": "task", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 0}}
    })
}

// ---------------------------------------------------------------------------------------------------------
// sched

#[test]
fn hello_request_with_and_without_partial_ok() {
    // libschedutil since v0.70.0 always sends the key; older schedulers send an empty payload.
    let request: sched::HelloRequest = round_trip(json!({"partial-ok": true}));
    assert_eq!(request.partial_ok, Some(true));
    let legacy: sched::HelloRequest = round_trip(json!({}));
    assert_eq!(legacy, sched::HelloRequest::default());
}

#[test]
fn hello_responses_as_the_job_manager_streams_them() {
    // `{s:I s:I s:I s:f}`, plus `free` for a partly released housekeeping allocation.
    let plain: sched::HelloResponse = round_trip(json!({
        "id": 1552593348u64, "priority": 4294967295u32, "userid": 5588, "t_submit": 1552593348.073045
    }));
    assert_eq!(plain.priority, u32::MAX);
    assert_eq!(plain.free, None);
    let partial: sched::HelloResponse = round_trip(json!({
        "id": 42, "priority": 16, "userid": 5588, "t_submit": 1.5, "free": "3-4"
    }));
    assert_eq!(partial.free.as_deref(), Some("3-4"));
    // The v0.22 non-streaming shape is not a hello response any more.
    rejected::<sched::HelloResponse>(json!({"alloc": [
        {"id": 42, "priority": 16, "userid": 5588, "t_submit": 1.5}
    ]}));
}

#[test]
fn ready_modes() {
    let unlimited: sched::ReadyRequest = round_trip(json!({"mode": "unlimited"}));
    assert_eq!(unlimited, sched::ReadyRequest::unlimited());
    unlimited.validate().unwrap();
    let limited: sched::ReadyRequest = round_trip(json!({"mode": "limited", "limit": 8}));
    assert_eq!(limited, sched::ReadyRequest::limited(8));
    limited.validate().unwrap();

    // `single` was removed in v0.24.0: EPROTO.
    let error = rejected::<sched::ReadyRequest>(json!({"mode": "single"}));
    assert!(error.contains("unknown variant `single`"), "{error}");
    // Decodes, but the JM refuses `limited` without a positive limit.
    let no_limit: sched::ReadyRequest = round_trip(json!({"mode": "limited"}));
    assert_eq!(no_limit.mode, ReadyMode::Limited);
    assert!(no_limit.validate().is_err());
    assert!(sched::ReadyRequest::limited(0).validate().is_err());
    assert!(sched::ReadyRequest::limited(1 << 31).validate().is_err());

    let response: sched::ReadyResponse = round_trip(json!({"count": 12}));
    assert_eq!(response.count, 12);
}

#[test]
fn alloc_request_as_the_job_manager_packs_it() {
    // `{s:I s:I s:I s:f s:O}` id, priority, userid, t_submit, jobspec.
    let payload = json!({
        "id": 1552593348u64, "priority": 4294967295u32, "userid": 5588,
        "t_submit": 1552593348.073045, "jobspec": jobspec()
    });
    let request: sched::AllocRequest = round_trip(payload.clone());
    assert_eq!(request.priority, u32::MAX);

    // An RFC-conforming request without t_submit fails, as in Fluxion (`{s:I s:i s:i s:f s:o}`).
    let mut without_t_submit = payload.clone();
    without_t_submit.as_object_mut().unwrap().remove("t_submit");
    let error = rejected::<sched::AllocRequest>(without_t_submit);
    assert!(error.contains("missing field `t_submit`"), "{error}");
    // Before v0.22.0 there was no jobspec in the request.
    let mut without_jobspec = payload;
    without_jobspec.as_object_mut().unwrap().remove("jobspec");
    rejected::<sched::AllocRequest>(without_jobspec);
}

#[test]
fn alloc_success_with_r() {
    // libschedutil `schedutil_alloc_respond_success_pack`: `{id, type:0, annotations?, R}`.
    let payload = json!({
        "id": 1552593348u64, "type": 0, "R": r(),
        "annotations": {"sched": {"resource_summary": "rank[0-1]/core[0-3]"}}
    });
    let success: sched::AllocResponse = round_trip(payload);
    assert_eq!(success.kind, AllocType::Success);
    assert!(success.kind.is_final());
    success.validate().unwrap();
    assert_eq!(
        success,
        sched::AllocResponse::success(
            1552593348,
            r(),
            Some(json!({"sched": {"resource_summary": "rank[0-1]/core[0-3]"}}))
        )
    );

    let bare: sched::AllocResponse = round_trip(json!({"id": 7, "type": 0, "R": r()}));
    bare.validate().unwrap();
}

#[test]
fn alloc_responses_flux_core_tears_the_interface_down_for() {
    // SUCCESS without R (the pre-v0.56.0 shape): decodes, then "protocol error".
    let old_success: sched::AllocResponse = round_trip(json!({"id": 7, "type": 0}));
    assert!(old_success.validate().is_err());
    // ANNOTATE without annotations (the pre-v0.18.0 shape had `note`): EPROTO.
    let old_annotate: sched::AllocResponse =
        round_trip(json!({"id": 7, "type": 1, "note": "waiting"}));
    assert!(old_annotate.validate().is_err());
    // An unknown type: EINVAL, refused at decode time.
    let error = rejected::<sched::AllocResponse>(json!({"id": 7, "type": 4}));
    assert!(
        error.contains("unknown sched.alloc response type 4"),
        "{error}"
    );
    rejected::<sched::AllocResponse>(json!({"id": 7, "type": -1}));
    // `type` is an integer on the wire, never a name.
    rejected::<sched::AllocResponse>(json!({"id": 7, "type": "success"}));
    rejected::<sched::AllocResponse>(json!({"id": 7, "type": "Success"}));
}

#[test]
fn alloc_constructors_write_what_libschedutil_writes() {
    let cases = [
        (
            sched::AllocResponse::annotate(1, json!({"sched": {"reason_pending": "busy"}})),
            json!({"id": 1, "type": 1, "annotations": {"sched": {"reason_pending": "busy"}}}),
        ),
        (
            sched::AllocResponse::deny(2, None),
            json!({"id": 2, "type": 2}),
        ),
        (
            sched::AllocResponse::deny(3, Some("too big".into())),
            json!({"id": 3, "type": 2, "note": "too big"}),
        ),
        (sched::AllocResponse::cancel(4), json!({"id": 4, "type": 3})),
    ];
    for (response, expected) in cases {
        assert_eq!(serde_json::to_value(&response).unwrap(), expected);
        response.validate().unwrap();
    }
}

#[test]
fn cancel_prioritize_expiration() {
    round_trip::<sched::CancelRequest>(json!({"id": 1552593348u64}));
    let prioritize: sched::PrioritizeRequest =
        round_trip(json!({"jobs": [[1, 0], [2, 4294967295u32]]}));
    assert_eq!(prioritize.jobs, [(1, 0), (2, u32::MAX)]);

    // `{s:I s:f}`: the JM sends a real; the RFC's integer also reads.
    let expiration: sched::ExpirationRequest =
        round_trip(json!({"id": 5, "expiration": 1710079692.5}));
    assert_eq!(expiration.expiration, 1710079692.5);
    let rfc: sched::ExpirationRequest =
        serde_json::from_value(json!({"id": 5, "expiration": 1710079692})).unwrap();
    assert_eq!(rfc.expiration, 1710079692.0);
    round_trip::<sched::ExpirationResponse>(json!({}));
}

#[test]
fn free_as_the_job_manager_encodes_it() {
    // `{s:I s:O s:b}` id, R, final; partial frees have final=false.
    let last: sched::FreeRequest = round_trip(json!({"id": 9, "R": r(), "final": true}));
    assert_eq!(last.final_, Some(true));
    let partial: sched::FreeRequest = round_trip(json!({"id": 9, "R": r(), "final": false}));
    assert_eq!(partial.final_, Some(false));
    // v0.64.0 sent no `final`; Fluxion reads it as optional.
    let v064: sched::FreeRequest = round_trip(json!({"id": 9, "R": r()}));
    assert_eq!(v064.final_, None);
    // Before v0.61.0 the request was `{id}`; Fluxion now requires R.
    let error = rejected::<sched::FreeRequest>(json!({"id": 9}));
    assert!(error.contains("missing field `R`"), "{error}");
}

#[test]
fn feasibility_and_resource_status() {
    let check: sched::FeasibilityRequest = round_trip(json!({"jobspec": jobspec()}));
    assert_eq!(check.jobspec["version"], 1);
    round_trip::<sched::FeasibilityResponse>(json!({}));
    round_trip::<sched::ResourceStatusRequest>(json!({}));
    let status: sched::ResourceStatusResponse = round_trip(
        json!({"all": r(), "allocated": r(), "down": {"version": 1, "execution": {
            "R_lite": [], "nodelist": [], "starttime": 0, "expiration": 0}}}),
    );
    assert_eq!(status.all, r());
    rejected::<sched::ResourceStatusResponse>(json!({"all": r(), "allocated": r()}));
}

// ---------------------------------------------------------------------------------------------------------
// exec

#[test]
fn start_request_as_the_job_manager_packs_it() {
    // `{s:I s:I s:O s:b s:O}` id, userid, jobspec, reattach, R.
    let payload = json!({
        "id": 1552593348u64, "userid": 5588, "jobspec": jobspec(), "reattach": true, "R": r()
    });
    let start: exec::StartRequest = round_trip(payload.clone());
    assert!(start.reattach);
    // job-exec unpacks every key as required: the pre-v0.56.0 request without R is refused.
    let mut old = payload;
    old.as_object_mut().unwrap().remove("R");
    let error = rejected::<exec::StartRequest>(old);
    assert!(error.contains("missing field `R`"), "{error}");
}

#[test]
fn start_responses() {
    let release: exec::StartResponse =
        round_trip(json!({"id": 3, "type": "release", "data": {"ranks": "all", "final": true}}));
    assert!(matches!(release.body, StartResponseBody::Release(ref d) if d.final_));
    // `note` is optional in exception data.
    let exception: exec::StartResponse =
        round_trip(json!({"id": 3, "type": "exception", "data": {"severity": 0, "type": "exec"}}));
    assert!(matches!(exception.body, StartResponseBody::Exception(ref d) if d.note.is_none()));
    // `data` is required for every type, `{}` included.
    let error = rejected::<exec::StartResponse>(json!({"id": 3, "type": "start"}));
    assert!(error.contains("missing field `data`"), "{error}");
    rejected::<exec::StartResponse>(json!({"id": 3, "type": "finish", "data": {}}));
    rejected::<exec::StartResponse>(json!({"id": 3, "type": "running", "data": {}}));
    // An unknown key in empty data is ignored (and not written back).
    let start: exec::StartResponse =
        serde_json::from_value(json!({"id": 3, "type": "start", "data": {"x": 1}})).unwrap();
    assert_eq!(
        serde_json::to_value(&start).unwrap(),
        json!({"id": 3, "type": "start", "data": {}})
    );
}

#[test]
fn exec_hello_expiration_and_events() {
    round_trip::<exec::ExecHelloRequest>(json!({"service": "job-exec"}));
    round_trip::<exec::ExecHelloResponse>(json!({}));
    round_trip::<exec::ExpirationRequest>(json!({"id": 3, "expiration": 1710079692.0}));
    round_trip::<exec::ExpirationResponse>(json!({}));

    let exception: exec::JobExceptionEvent =
        round_trip(json!({"id": 3, "type": "cancel", "severity": 0}));
    assert_eq!(exception.kind, "cancel");
    round_trip::<exec::JobExceptionEvent>(
        json!({"id": 3, "type": "exec", "severity": 0, "wait_status": 256}),
    );
    let kill: exec::ShellKillEvent = round_trip(json!({"signum": 15}));
    assert_eq!(kill.signum, 15);
}

// ---------------------------------------------------------------------------------------------------------
// job eventlog

fn entry(name: &str, context: Option<Value>) -> Value {
    let mut v = json!({"timestamp": 1700000000.25, "name": name});
    if let Some(context) = context {
        v["context"] = context;
    }
    v
}

#[test]
fn submit_as_posted_and_legacy() {
    // `{s:I s:i s:i s:i}` userid, urgency, flags, version=1.
    let current: eventlog::Entry = round_trip(entry(
        "submit",
        Some(json!({"userid": 5588, "urgency": 16, "flags": 0, "version": 1})),
    ));
    current.validate().unwrap();
    // Before v0.42.0 there was no version: accepted as a legacy eventlog.
    let legacy: eventlog::Entry = round_trip(entry(
        "submit",
        Some(json!({"userid": 5588, "urgency": 16, "flags": 0})),
    ));
    legacy.validate().unwrap();
    let Event::Submit { context } = &legacy.event else {
        panic!("{legacy:?}")
    };
    assert_eq!(context.version, None);
    // Any other version: "eventlog v2 is unsupported".
    let future: eventlog::Entry = round_trip(entry(
        "submit",
        Some(json!({"userid": 5588, "urgency": 16, "flags": 0, "version": 2})),
    ));
    let error = future.validate().unwrap_err();
    assert_eq!(error.reason, "eventlog v2 is unsupported");
    // The v0.21 context had `priority` instead of `urgency`: EPROTO since v0.22.0.
    rejected::<eventlog::Entry>(entry(
        "submit",
        Some(json!({"userid": 5588, "priority": 16, "flags": 0})),
    ));
    // submit always has a context.
    rejected::<eventlog::Entry>(entry("submit", None));
}

#[test]
fn exception_note_is_required() {
    // raise.c posts `{type, severity, note}` (+ userid, wait_status).
    let posted: eventlog::Entry = round_trip(entry(
        "exception",
        Some(json!({"type": "cancel", "severity": 0, "note": "", "userid": 5588})),
    ));
    let Event::Exception { context } = &posted.event else {
        panic!("{posted:?}")
    };
    assert_eq!(context.note, "");
    // Without note: job-list's `{s:s s:i s:s}` fails (flux-core #6751). Rejected, not taken as `Other`.
    rejected::<eventlog::Entry>(entry(
        "exception",
        Some(json!({"type": "cancel", "severity": 0})),
    ));
    rejected::<eventlog::Entry>(entry("exception", None));
}

#[test]
fn alloc_with_and_without_context() {
    let bare: eventlog::Entry = round_trip(entry("alloc", None));
    assert_eq!(bare.event, Event::Alloc { context: None });
    round_trip::<eventlog::Entry>(entry(
        "alloc",
        Some(json!({"annotations": {"sched": {"resource_summary": "rank0/core0"}}})),
    ));
    // v0.17 posted `{"note": ""}`: still read (a record is read forever); the note is not kept.
    let old: eventlog::Entry = serde_json::from_value(entry("alloc", Some(json!({"note": ""}))))
        .expect("an old alloc context must still be read");
    assert!(matches!(old.event, Event::Alloc { context: Some(ref c) } if c.annotations.is_none()));
}

#[test]
fn events_without_context() {
    for name in [
        "validate",
        "invalidate",
        "depend",
        "flux-restart",
        "free",
        "start",
        "clean",
    ] {
        let e: eventlog::Entry = round_trip(entry(name, None));
        assert_eq!(e.name(), name);
        // flux-core ignores a context on these events; so does the model (it is not written back).
        let with_context: eventlog::Entry =
            serde_json::from_value(entry(name, Some(json!({})))).unwrap();
        assert_eq!(with_context, e);
    }
}

#[test]
fn events_with_context_as_posted() {
    let cases = [
        entry("resource-update", Some(json!({"expiration": 1710079692.5}))),
        entry(
            "jobspec-update",
            Some(json!({"attributes.system.duration": 60.0})),
        ),
        entry("set-flags", Some(json!({"flags": ["waitable"]}))),
        entry("priority", Some(json!({"priority": 4294967295u32}))),
        entry("urgency", Some(json!({"userid": 5588, "urgency": 31}))),
        entry("release", Some(json!({"ranks": "0-1", "final": false}))),
        entry("finish", Some(json!({"status": 256}))),
        entry(
            "epilog-finish",
            Some(json!({"description": "job-manager.epilog", "status": 1})),
        ),
        entry(
            "exception",
            Some(json!({"type": "exec", "severity": 0, "note": "task failed", "wait_status": 11})),
        ),
        entry(
            "memo",
            Some(json!({"uri": "ssh://host/path", "gone": null})),
        ),
        entry(
            "annotations",
            Some(json!({"annotations": {"sched": {"t_estimate": 1.5}}})),
        ),
        entry("annotations", Some(json!({"annotations": null}))),
    ];
    for payload in cases {
        let e: eventlog::Entry = round_trip(payload.clone());
        assert!(
            !matches!(e.event, Event::Other { .. }),
            "{payload} fell through to Other"
        );
    }
}

#[test]
fn debug_and_unknown_events_are_kept() {
    for payload in [
        entry("debug.alloc-request", None),
        entry("debug.start-request", None),
        entry(
            "debug.start-lost",
            Some(json!({"note": "exec module reloaded"})),
        ),
        entry("debug.exec-reattach-start", None),
        entry("debug.exec-reattach-finish", None),
        entry("some-future-event", Some(json!({"x": [1, 2]}))),
    ] {
        let e: eventlog::Entry = round_trip(payload.clone());
        let Event::Other { name, .. } = &e.event else {
            panic!("{e:?}")
        };
        assert_eq!(name.as_str(), payload["name"]);
    }
    // RFC 18: a context is an object.
    rejected::<eventlog::Entry>(entry("debug.x", Some(json!(5))));
    // RFC 18: timestamp and name are required.
    rejected::<eventlog::Entry>(json!({"name": "clean"}));
    rejected::<eventlog::Entry>(json!({"timestamp": 1.0}));
}

#[test]
fn known_event_names_match_the_variants() {
    // Each known name decodes to its own variant (given a context where one is needed), never to Other.
    for name in KNOWN_EVENTS {
        let payload = entry(name, None);
        if let Ok(e) = serde_json::from_value::<eventlog::Entry>(payload) {
            assert_eq!(e.name(), *name);
            assert!(!matches!(e.event, Event::Other { .. }), "{name}");
        }
    }
    // And Other refuses every known name.
    for name in KNOWN_EVENTS {
        assert!(eventlog::EventName::try_from(name.to_string()).is_err());
    }
    for name in KNOWN_EXEC_EVENTS {
        assert!(exec_eventlog::ExecEventName::try_from(name.to_string()).is_err());
    }
}

#[test]
fn a_whole_eventlog() {
    let text = r#"{"timestamp":1700000000.1,"name":"submit","context":{"userid":5588,"urgency":16,"flags":0,"version":1}}
{"timestamp":1700000000.2,"name":"validate"}
{"timestamp":1700000000.3,"name":"depend"}
{"timestamp":1700000000.4,"name":"priority","context":{"priority":4294967295}}
{"timestamp":1700000000.5,"name":"alloc","context":{"annotations":{"sched":{"resource_summary":"rank0/core0"}}}}
{"timestamp":1700000000.6,"name":"start"}
{"timestamp":1700000000.7,"name":"exception","context":{"type":"exec","severity":0,"note":"task 0: exited 1","wait_status":256}}
{"timestamp":1700000000.8,"name":"finish","context":{"status":256}}
{"timestamp":1700000000.9,"name":"release","context":{"ranks":"all","final":true}}
{"timestamp":1700000001.0,"name":"free"}
{"timestamp":1700000001.1,"name":"clean"}
"#;
    let entries = eventlog::parse_eventlog(text).unwrap();
    assert_eq!(entries.len(), 11);
    assert_eq!(entries[0].name(), "submit");
    for entry in &entries {
        entry.validate().unwrap();
    }
    let written: Vec<String> = entries
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let reread = eventlog::parse_eventlog(&written.join("\n")).unwrap();
    assert_eq!(reread, entries);
}

// ---------------------------------------------------------------------------------------------------------
// exec eventlog

#[test]
fn exec_eventlog_as_job_exec_and_the_shell_write_it() {
    let cases = [
        entry("init", None),
        entry(
            "shell.init",
            Some(json!({"leader-rank": 0, "size": 2, "service": "5588-shell-1552593348"})),
        ),
        entry(
            "shell.init",
            Some(
                json!({"leader-rank": 0, "size": 1, "service": "5588-shell-1552593348",
                        "pty": "terminus.0", "capture": 1}),
            ),
        ),
        entry("starting", None),
        entry(
            "shell.start",
            Some(json!({"taskmap": {"version": 1, "map": [[0, 2, 1, 1]]}})),
        ),
        entry(
            "shell.start",
            Some(json!({"taskmap": {"version": 1, "map": [[0, 1, 1, 1]]}, "sync": true})),
        ),
        entry("shell-exit", Some(json!({"rank": 0, "wait_status": 0}))),
        entry("complete", Some(json!({"status": 0}))),
        entry("done", None),
    ];
    for payload in cases {
        let e: exec_eventlog::Entry = round_trip(payload.clone());
        assert!(
            !matches!(e.event, ExecEvent::Other { .. }),
            "{payload} fell through to Other"
        );
    }
    // Other shell events are implementation-defined: kept as written.
    let other: exec_eventlog::Entry = round_trip(entry(
        "shell.task-exit",
        Some(json!({"rank": 1, "status": 0})),
    ));
    assert_eq!(other.name(), "shell.task-exit");
    // A known event with a malformed context is refused, not taken as Other.
    rejected::<exec_eventlog::Entry>(entry("complete", None));
    rejected::<exec_eventlog::Entry>(entry("shell.init", Some(json!({"size": 2}))));
}
