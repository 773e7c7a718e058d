//! Every JSON example of RFC 21, 27, 32 and 50 (copied verbatim into `tests/data/rfc/`), parsed with the
//! type that models it, serialized again and compared with the original as a `serde_json::Value`.
//!
//! Where an example and flux-core disagree, the test says so and checks what flux-core does. The examples
//! that are not strict JSON (see `tests/data/rfc/FIXED.md`) are asserted to fail to parse, and their
//! `.fixed.json` copies are tested instead.

use std::fs;
use std::path::PathBuf;

use flux_protocols::eventlog::{self, Event};
use flux_protocols::exec::{self, StartResponseBody};
use flux_protocols::exec_eventlog::{self, ExecEvent};
use flux_protocols::sched::{self, AllocType, ReadyMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/rfc")
        .join(name)
}

fn read(name: &str) -> String {
    fs::read_to_string(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The example as a strict-JSON value.
fn value(name: &str) -> Value {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

/// Asserts that an example is not strict JSON (so no reader, ours or jansson, takes it as written).
fn assert_not_json(name: &str) {
    let error = serde_json::from_str::<Value>(&read(name))
        .expect_err(&format!("{name} was expected not to be strict JSON"));
    assert!(error.is_syntax(), "{name}: {error}");
}

/// Parses the example text with `T`, serializes it again and compares with the original.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let typed: T = serde_json::from_str(&read(name)).unwrap_or_else(|e| {
        panic!(
            "{name} does not parse as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, value(name), "{name} does not round-trip");
    typed
}

/// The R example of RFC 20.
fn r_example() -> Value {
    value("spec_20-example1.json")
}

// ---------------------------------------------------------------------------------------------------------
// Every file is covered, and exactly the non-strict ones have a fixed copy.

/// Every `spec_*.json` example (not the fixed copies) that the tests below use.
const COVERED: &[&str] = &[
    "spec_20-example1.json",
    "spec_21-01.json",
    "spec_21-02.json",
    "spec_21-03.json",
    "spec_21-04.json",
    "spec_21-05.json",
    "spec_21-06.json",
    "spec_21-07.json",
    "spec_21-08.json",
    "spec_21-09.json",
    "spec_21-10.json",
    "spec_21-11.json",
    "spec_21-12.json",
    "spec_21-13.json",
    "spec_21-14.json",
    "spec_21-15.json",
    "spec_21-16.json",
    "spec_21-17.json",
    "spec_21-18.json",
    "spec_21-19.json",
    "spec_21-20.json",
    "spec_21-21.json",
    "spec_21-22.json",
    "spec_21-23.json",
    "spec_21-24.json",
    "spec_21-25.json",
    "spec_21-26.json",
    "spec_27-01.json",
    "spec_27-02.json",
    "spec_27-03.json",
    "spec_27-04.json",
    "spec_27-05.json",
    "spec_27-06.json",
    "spec_27-07.json",
    "spec_27-08.json",
    "spec_27-09.json",
    "spec_27-10.json",
    "spec_32-01.json",
    "spec_32-02.json",
    "spec_32-03.json",
    "spec_32-04.json",
    "spec_32-05.json",
    "spec_32-06.json",
    "spec_32-07.json",
    "spec_50-01.json",
    "spec_50-02.json",
    "spec_50-03.json",
    "spec_50-04.json",
    "spec_50-05.json",
    "spec_50-06.json",
    "spec_50-07.json",
    "spec_50-08.json",
];

#[test]
fn every_example_file_is_covered_and_only_non_strict_ones_are_fixed() {
    let mut originals = Vec::new();
    let mut fixed = Vec::new();
    for entry in fs::read_dir(path("")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".fixed.json") {
            fixed.push(format!("{stem}.json"));
        } else if name.ends_with(".json") {
            originals.push(name);
        }
    }
    originals.sort();
    fixed.sort();
    assert_eq!(originals, COVERED, "every example file must be tested");
    for name in &originals {
        let strict = serde_json::from_str::<Value>(&read(name)).is_ok();
        assert_eq!(
            strict,
            !fixed.contains(name),
            "{name}: a fixed copy exists iff the original is not strict JSON"
        );
    }
    assert_eq!(fixed.len(), 9);
    // INDEX.md is kept verbatim and agrees with what we found.
    let index = read("INDEX.md");
    for name in &fixed {
        let row = index
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap();
        assert!(row.trim_end().ends_with("| no |"), "{row}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// RFC 27 (sched)

#[test]
fn spec_27_01_hello_response_has_a_trailing_comma() {
    assert_not_json("spec_27-01.json");
    let hello: sched::HelloResponse = round_trip("spec_27-01.fixed.json");
    assert_eq!(hello.id, 1552593348);
    assert_eq!(hello.priority, 43444);
    assert_eq!(hello.t_submit, 1552593348.073045);
    assert_eq!(hello.free.as_deref(), Some("1-16,18"));
}

#[test]
fn spec_27_02_ready_request() {
    let ready: sched::ReadyRequest = round_trip("spec_27-02.json");
    assert_eq!(ready.mode, ReadyMode::Limited);
    assert_eq!(ready.limit, Some(42));
    ready.validate().unwrap();
}

/// The RFC's alloc request has no `t_submit` (RFC 27 dropped it in 34e0c02); flux-core always sends it and
/// Fluxion requires it, so the example is rejected as Fluxion rejects it. With `t_submit` added it
/// round-trips.
#[test]
fn spec_27_03_alloc_request_lacks_t_submit_which_flux_core_sends() {
    assert_not_json("spec_27-03.json");
    let text = read("spec_27-03.fixed.json");
    let error = serde_json::from_str::<sched::AllocRequest>(&text).unwrap_err();
    assert!(
        error.to_string().contains("missing field `t_submit`"),
        "{error}"
    );

    let mut as_sent = value("spec_27-03.fixed.json");
    as_sent["t_submit"] = json!(1552593348.073045);
    let alloc: sched::AllocRequest = serde_json::from_value(as_sent.clone()).unwrap();
    assert_eq!(serde_json::to_value(&alloc).unwrap(), as_sent);
    assert_eq!(alloc.priority, 53444);
    assert_eq!(alloc.jobspec["version"], 1);
}

/// RFC 27's SUCCESS example has no `R`; it parses and round-trips (the JM decodes every key but `id` and
/// `type` as optional), but flux-core refuses it after decoding (R required since v0.56.0).
#[test]
fn spec_27_04_alloc_success_without_r_is_a_protocol_error_for_flux_core() {
    let success: sched::AllocResponse = round_trip("spec_27-04.json");
    assert_eq!(success.kind, AllocType::Success);
    assert_eq!(
        success.annotations.as_ref().unwrap()["sched"]["resource_summary"],
        "rank[0-1]/core0"
    );
    let error = success.validate().unwrap_err();
    assert!(error.reason.contains("without R"), "{error}");

    let mut with_r = value("spec_27-04.json");
    with_r["R"] = r_example();
    let success: sched::AllocResponse = serde_json::from_value(with_r.clone()).unwrap();
    assert_eq!(serde_json::to_value(&success).unwrap(), with_r);
    success.validate().unwrap();
}

#[test]
fn spec_27_05_alloc_annotate() {
    let annotate: sched::AllocResponse = round_trip("spec_27-05.json");
    assert_eq!(annotate.kind, AllocType::Annotate);
    assert!(!annotate.kind.is_final());
    assert_eq!(
        annotate.annotations.as_ref().unwrap()["sched"]["t_estimate"],
        593016000.0
    );
    annotate.validate().unwrap();
}

#[test]
fn spec_27_06_alloc_deny() {
    let deny: sched::AllocResponse = round_trip("spec_27-06.json");
    assert_eq!(deny.kind, AllocType::Deny);
    assert_eq!(
        deny.note.as_deref(),
        Some("more nodes requested than configured")
    );
    deny.validate().unwrap();
    assert_eq!(
        deny,
        sched::AllocResponse::deny(
            1552593348,
            Some("more nodes requested than configured".into())
        )
    );
}

#[test]
fn spec_27_07_alloc_cancel() {
    let cancel: sched::AllocResponse = round_trip("spec_27-07.json");
    assert_eq!(cancel, sched::AllocResponse::cancel(1552593348));
    cancel.validate().unwrap();
}

#[test]
fn spec_27_08_cancel_request() {
    let cancel: sched::CancelRequest = round_trip("spec_27-08.json");
    assert_eq!(cancel.id, 1552593348);
}

#[test]
fn spec_27_09_prioritize_request() {
    let prioritize: sched::PrioritizeRequest = round_trip("spec_27-09.json");
    assert_eq!(prioritize.jobs.len(), 4);
    assert_eq!(prioritize.jobs[0], (49056579584, 444));
    assert_eq!(prioritize.jobs[2], (63988301824, 343205));
}

/// The RFC's free example misses the comma between `R` and `final`.
#[test]
fn spec_27_10_free_request_misses_a_comma() {
    assert_not_json("spec_27-10.json");
    let free: sched::FreeRequest = round_trip("spec_27-10.fixed.json");
    assert_eq!(free.final_, Some(true));
    assert_eq!(free.r["execution"]["nodelist"][0], "test0");
}

// ---------------------------------------------------------------------------------------------------------
// RFC 21 (job eventlog)

/// Every RFC 21 example but `spec_21-03.json` (see below), with the event name it must decode to.
const EVENTLOG_EXAMPLES: &[(&str, &str)] = &[
    ("spec_21-01.json", "submit"),
    ("spec_21-02.json", "jobspec-update"),
    ("spec_21-04.json", "validate"),
    ("spec_21-05.json", "invalidate"),
    ("spec_21-06.json", "set-flags"),
    ("spec_21-07.json", "dependency-add"),
    ("spec_21-08.json", "dependency-remove"),
    ("spec_21-09.json", "depend"),
    ("spec_21-10.json", "priority"),
    ("spec_21-11.json", "flux-restart"),
    ("spec_21-12.json", "urgency"),
    ("spec_21-13.json", "alloc"),
    ("spec_21-14.json", "prolog-start"),
    ("spec_21-15.json", "prolog-finish"),
    ("spec_21-16.json", "epilog-start"),
    ("spec_21-17.json", "epilog-finish"),
    ("spec_21-18.json", "free"),
    ("spec_21-19.json", "start"),
    ("spec_21-20.json", "release"),
    ("spec_21-21.json", "finish"),
    ("spec_21-22.json", "clean"),
    ("spec_21-23.json", "exception"),
    ("spec_21-24.json", "exception"),
    ("spec_21-25.json", "memo"),
    ("spec_21-26.json", "debug.free-request"),
];

#[test]
fn spec_21_every_event_example_round_trips() {
    for (file, name) in EVENTLOG_EXAMPLES {
        let entry: eventlog::Entry = round_trip(file);
        assert_eq!(entry.name(), *name, "{file}");
        entry.validate().unwrap();
        // Every example but the debug one decodes to its own variant, not to the catch-all.
        let is_other = matches!(entry.event, Event::Other { .. });
        assert_eq!(is_other, name.starts_with("debug."), "{file}");
    }
}

#[test]
fn spec_21_contexts_decode_to_the_right_fields() {
    let submit: eventlog::Entry = round_trip("spec_21-01.json");
    let Event::Submit { context } = submit.event else {
        panic!("{submit:?}")
    };
    assert_eq!(
        (
            context.urgency,
            context.userid,
            context.flags,
            context.version
        ),
        (16, 5588, 0, Some(1))
    );

    let alloc: eventlog::Entry = round_trip("spec_21-13.json");
    let Event::Alloc {
        context: Some(context),
    } = alloc.event
    else {
        panic!("{alloc:?}")
    };
    assert_eq!(
        context.annotations.unwrap()["sched.resource_summary"],
        "rank0/core[0-1]"
    );

    let exception: eventlog::Entry = round_trip("spec_21-24.json");
    let Event::Exception { context } = exception.event else {
        panic!("{exception:?}")
    };
    assert_eq!(context.kind, "exec");
    assert_eq!(context.wait_status, Some(11));
    assert_eq!(context.userid, None);

    let release: eventlog::Entry = round_trip("spec_21-20.json");
    let Event::Release { context } = release.event else {
        panic!("{release:?}")
    };
    assert_eq!((context.ranks.as_str(), context.final_), ("all", true));

    let debug: eventlog::Entry = round_trip("spec_21-26.json");
    let Event::Other { name, context } = debug.event else {
        panic!("{debug:?}")
    };
    assert!(name.is_debug());
    assert_eq!(context, None);
}

/// RFC 21 writes the `resource-update` expiration as an integer; flux-core posts a real (`{s:f}`). The
/// model reads either and writes a real, so the example comes back as the same number written as a real:
/// the one difference from the original, and exactly the spec/implementation gap.
#[test]
fn spec_21_03_resource_update_expiration_comes_back_as_a_real() {
    let original = value("spec_21-03.json");
    let entry: eventlog::Entry = serde_json::from_str(&read("spec_21-03.json")).unwrap();
    let Event::ResourceUpdate { context } = &entry.event else {
        panic!("{entry:?}")
    };
    assert_eq!(context.expiration, 1692206240.0);

    let back = serde_json::to_value(&entry).unwrap();
    assert_ne!(back, original, "an integer and a real are different JSON");
    assert_eq!(back["context"]["expiration"], json!(1692206240.0));
    let mut as_flux_core_writes = original.clone();
    as_flux_core_writes["context"]["expiration"] = json!(1692206240.0);
    assert_eq!(back, as_flux_core_writes);
    // Read back again: stable from here on.
    let again: eventlog::Entry = serde_json::from_value(back.clone()).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), back);
}

/// The RFC examples, in state order, make up a valid eventlog (one object per line, RFC 18).
#[test]
fn spec_21_examples_as_one_eventlog() {
    let lines = [
        "spec_21-01.json",
        "spec_21-04.json",
        "spec_21-09.json",
        "spec_21-10.json",
        "spec_21-13.json",
        "spec_21-19.json",
        "spec_21-20.json",
        "spec_21-21.json",
        "spec_21-18.json",
        "spec_21-22.json",
    ]
    .map(|f| read(f).trim().to_owned())
    .join("\n");
    let entries = eventlog::parse_eventlog(&lines).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name()).collect();
    assert_eq!(
        names,
        [
            "submit", "validate", "depend", "priority", "alloc", "start", "release", "finish",
            "free", "clean"
        ]
    );
}

// ---------------------------------------------------------------------------------------------------------
// RFC 32 (exec)

#[test]
fn spec_32_01_exec_hello() {
    let hello: exec::ExecHelloRequest = round_trip("spec_32-01.json");
    assert_eq!(hello.service, "job-exec");
}

#[test]
fn spec_32_02_start_request_has_a_trailing_comma() {
    assert_not_json("spec_32-02.json");
    let start: exec::StartRequest = round_trip("spec_32-02.fixed.json");
    assert_eq!(
        (start.id, start.userid, start.reattach),
        (1552593348, 5588, false)
    );
    assert_eq!(start.r, json!({}));
}

#[test]
fn spec_32_03_to_07_start_responses_have_trailing_commas() {
    type Check = fn(&StartResponseBody) -> bool;
    let cases: &[(&str, Check)] = &[
        ("spec_32-03", |b| matches!(b, StartResponseBody::Start {})),
        ("spec_32-04", |b| {
            matches!(b, StartResponseBody::Reattached {})
        }),
        (
            "spec_32-05",
            |b| matches!(b, StartResponseBody::Release(d) if d.ranks == "0-2" && d.final_),
        ),
        ("spec_32-06", |b| {
            matches!(b, StartResponseBody::Exception(d)
                if d.severity == 0 && d.kind == "timeout"
                    && d.note.as_deref() == Some("resource allocation expired"))
        }),
        (
            "spec_32-07",
            |b| matches!(b, StartResponseBody::Finish(d) if d.status == 143),
        ),
    ];
    for (stem, expected) in cases {
        assert_not_json(&format!("{stem}.json"));
        let response: exec::StartResponse = round_trip(&format!("{stem}.fixed.json"));
        assert_eq!(response.id, 1552593348, "{stem}");
        assert!(expected(&response.body), "{stem}: {:?}", response.body);
    }
}

// ---------------------------------------------------------------------------------------------------------
// RFC 50 (exec eventlog)

#[test]
fn spec_50_every_event_example_round_trips() {
    let cases = [
        ("spec_50-01.json", "init"),
        ("spec_50-02.json", "reattach"),
        ("spec_50-03.json", "starting"),
        ("spec_50-04.json", "recoverable"),
        ("spec_50-05.json", "complete"),
        ("spec_50-06.json", "log"),
        ("spec_50-07.json", "shell-exit"),
        ("spec_50-08.json", "done"),
    ];
    for (file, name) in cases {
        let entry: exec_eventlog::Entry = round_trip(file);
        assert_eq!(entry.name(), name, "{file}");
        assert!(
            !matches!(entry.event, ExecEvent::Other { .. }),
            "{file}: {entry:?}"
        );
    }

    let log: exec_eventlog::Entry = round_trip("spec_50-06.json");
    let ExecEvent::Log { context } = log.event else {
        panic!("{log:?}")
    };
    assert_eq!(context.rank, "3");
    let exit: exec_eventlog::Entry = round_trip("spec_50-07.json");
    let ExecEvent::ShellExit { context } = exit.event else {
        panic!("{exit:?}")
    };
    assert_eq!(
        (context.rank, context.wait_status, context.active_ranks),
        (42, 0, Some("43-45".to_owned()))
    );
}
