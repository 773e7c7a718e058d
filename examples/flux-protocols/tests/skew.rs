//! The skew test: every wire fixture under `wire-fixtures/` of every release that must interoperate with these
//! types, decoded with them (`wirecheck::testing`).
//!
//! `wire-fixtures/<protocol>/0.88.0/` is written by `wirecheck fixtures write -p flux-protocols`; the older
//! folders by the same command on the sources of each modelled release (`history/<tag>/`; the root crate's
//! `tests/fixtures_flux.rs` checks that they are exactly that). No protocol declares `min_compatible`, so of the
//! older releases only the records (the two eventlogs, read back by every later release) are decoded.
//!
//! The last tests mutate a type the way the checker cannot see (the body of a `TryFrom` / `From` impl behind
//! `#[serde(try_from = "u8", into = "u8")]`, a declaration that stays the same) and show that the skew test
//! fails on it, saying which release, message, case and payload.

use flux_protocols::{eventlog, exec, exec_eventlog, sched};
use wirecheck::testing::{Failure, Known, Outcome, Skew};

fn fixtures() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/wire-fixtures")
}

/// Every Flux message but `sched::AllocResponse`, which each test adds (the real one, or a mutant).
fn all_but_alloc_response() -> Skew {
    Skew::new(fixtures())
        .message::<sched::HelloRequest>()
        .message::<sched::HelloResponse>()
        .message::<sched::ReadyRequest>()
        .message::<sched::ReadyResponse>()
        .message::<sched::AllocRequest>()
        .message::<sched::CancelRequest>()
        .message::<sched::PrioritizeRequest>()
        .message::<sched::ExpirationRequest>()
        .message::<sched::ExpirationResponse>()
        .message::<sched::FreeRequest>()
        .message::<sched::FeasibilityRequest>()
        .message::<sched::FeasibilityResponse>()
        .message::<sched::ResourceStatusRequest>()
        .message::<sched::ResourceStatusResponse>()
        .message::<exec::ExecHelloRequest>()
        .message::<exec::ExecHelloResponse>()
        .message::<exec::StartRequest>()
        .message::<exec::StartResponse>()
        .message::<exec::ExpirationRequest>()
        .message::<exec::ExpirationResponse>()
        .message::<exec::JobExceptionEvent>()
        .message::<exec::ShellKillEvent>()
        .message::<eventlog::Entry>()
        .message::<exec_eventlog::Entry>()
}

/// The two eventlog breaks that shipped (the history replay reports both; see the README's table): the
/// current types refuse these records of older releases, as flux-core v0.88.0 does.
fn shipped_breaks(skew: Skew) -> Skew {
    skew.known(
        Known::new(
            "job-eventlog",
            "<0.22.0",
            "v0.22.0 replaced the submit context's `priority` with `urgency` (flux-core PR #3393); a v0.21 submit is refused",
        )
        .topic("job.eventlog"),
    )
    .known(
        Known::new(
            "job-eventlog",
            "<0.53.0",
            "v0.53.0 made the exception event's `note` required (flux-core PR #5336)",
        )
        .topic("job.eventlog")
        .case("variant:Event::Exception minimal"),
    )
}

#[test]
fn every_release_decodes() {
    shipped_breaks(all_but_alloc_response())
        .message::<sched::AllocResponse>()
        .assert();
}

/// (release, case) of the failures of one protocol.
fn cases_of<'a>(failures: &'a [Failure], protocol: &str) -> Vec<(&'a str, &'a str)> {
    failures
        .iter()
        .filter(|f| f.protocol == protocol)
        .map(|f| (f.release.as_str(), f.case.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn the_shipped_eventlog_breaks_are_found_without_the_known_entries() {
    let outcome = all_but_alloc_response()
        .message::<sched::AllocResponse>()
        .run();
    assert!(outcome.known.is_empty());
    // Submit is the first variant: `minimal`, `maximal` and `boundary:max` are submits too.
    let submit = [
        "minimal",
        "maximal",
        "boundary:max",
        "variant:Event::Submit",
    ];
    let before_urgency = ["0.14.0", "0.15.0", "0.18.0"];
    let before_note = [
        "0.14.0", "0.15.0", "0.18.0", "0.22.0", "0.23.0", "0.24.0", "0.32.0", "0.41.0", "0.42.0",
    ];
    let mut expected = Vec::new();
    for release in before_note {
        if before_urgency.contains(&release) {
            expected.extend(submit.iter().map(|case| (release, *case)));
        }
        expected.push((release, "variant:Event::Exception minimal"));
    }
    assert_eq!(cases_of(&outcome.failures, "job-eventlog"), expected);
    assert_eq!(outcome.failures.len(), expected.len(), "{outcome}");
    let v14 = &outcome.failures[0];
    assert_eq!(v14.direction, Some("new reads old"));
    assert!(
        v14.payload.as_deref().unwrap().contains("\"priority\":0"),
        "{v14}"
    );
}

#[test]
fn a_stale_known_entry_fails() {
    let outcome = shipped_breaks(all_but_alloc_response())
        .known(Known::new("sched", "=0.70.0", "nothing breaks there"))
        .message::<sched::AllocResponse>()
        .run();
    assert_eq!(outcome.failures.len(), 1, "{outcome}");
    assert!(
        outcome.failures[0]
            .problem
            .contains("matches no failure: remove it"),
        "{outcome}"
    );
}

#[test]
fn a_message_left_out_of_the_list_fails() {
    let outcome = shipped_breaks(all_but_alloc_response()).run();
    assert_eq!(outcome.failures.len(), 1, "{outcome}");
    let failure = &outcome.failures[0];
    assert_eq!(
        (failure.release.as_str(), failure.message.as_str()),
        ("0.88.0", "AllocResponse")
    );
    assert!(
        failure
            .problem
            .contains("no listed type reads this message"),
        "{failure}"
    );
}

/// `AllocResponse` with its `AllocType` changed in the impls only: the declaration
/// (`#[serde(try_from = "u8", into = "u8")]` on an enum) is the same, so `wirecheck check` sees no change.
macro_rules! mutant_alloc_response {
    ($try_from:expr, $into:expr) => {
        use serde::{Deserialize, Serialize};
        use serde_json::Value;
        use wirecheck::Message;

        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(try_from = "u8", into = "u8")]
        pub enum AllocType {
            Success = 0,
            Annotate = 1,
            Deny = 2,
            Cancel = 3,
        }

        impl TryFrom<u8> for AllocType {
            type Error = String;

            fn try_from(code: u8) -> Result<Self, String> {
                let decode: fn(u8) -> Option<AllocType> = $try_from;
                decode(code).ok_or_else(|| format!("unknown sched.alloc response type {code}"))
            }
        }

        impl From<AllocType> for u8 {
            fn from(kind: AllocType) -> u8 {
                let encode: fn(AllocType) -> u8 = $into;
                encode(kind)
            }
        }

        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]
        #[wire(protocol = flux_protocols::Sched, topic = "sched.alloc", kind = "response")]
        pub struct AllocResponse {
            pub id: u64,
            #[serde(rename = "type")]
            pub kind: AllocType,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub note: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub annotations: Option<Value>,
            #[serde(rename = "R", default, skip_serializing_if = "Option::is_none")]
            pub r: Option<Value>,
        }
    };
}

/// A job manager that no longer accepts ANNOTATE (1): the `TryFrom` rejects a value release 0.88.0 sends.
mod rejects_annotate {
    mutant_alloc_response!(
        |code| match code {
            0 => Some(AllocType::Success),
            2 => Some(AllocType::Deny),
            3 => Some(AllocType::Cancel),
            _ => None,
        },
        |kind| kind as u8
    );
}

/// A scheduler that writes ANNOTATE as 4: it reads release 0.88.0's payloads, but writes them back with a
/// code the 0.88.0 job manager rejects.
mod writes_annotate_as_4 {
    mutant_alloc_response!(
        |code| match code {
            0 => Some(AllocType::Success),
            1 | 4 => Some(AllocType::Annotate),
            2 => Some(AllocType::Deny),
            3 => Some(AllocType::Cancel),
            _ => None,
        },
        |kind| match kind {
            AllocType::Annotate => 4,
            other => other as u8,
        }
    );
}

fn mutant_outcome<M>() -> Outcome
where
    M: wirecheck::Message + serde::Serialize + serde::de::DeserializeOwned + 'static,
{
    shipped_breaks(all_but_alloc_response())
        .message::<M>()
        .run()
}

#[test]
fn a_try_from_that_rejects_what_the_release_sends_fails_the_skew_test() {
    let outcome = mutant_outcome::<rejects_annotate::AllocResponse>();
    // `maximal` and `boundary:max` carry ANNOTATE (`"type": 1`); `minimal` is a SUCCESS.
    assert_eq!(
        cases_of(&outcome.failures, "sched"),
        [("0.88.0", "maximal"), ("0.88.0", "boundary:max")],
        "{outcome}"
    );
    let report = outcome.to_string();
    assert!(
        report.contains(
            "failure 1: sched release 0.88.0 (current 0.88.0), `AllocResponse` (sched.alloc response), \
             case `maximal`, new reads old:\n    the current `AllocResponse` rejects what release 0.88.0 \
             writes: unknown sched.alloc response type 1"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "    payload: {\"R\":{\"x\":1},\"annotations\":{\"x\":1},\"id\":1,\"note\":\"x\",\"type\":1}\n    file: "
        ),
        "{report}"
    );
    assert!(report.contains("wire-fixtures/sched/0.88.0/sched.alloc.response.json"));
    let panic = std::panic::catch_unwind(|| {
        shipped_breaks(all_but_alloc_response())
            .message::<rejects_annotate::AllocResponse>()
            .assert();
    });
    let message = panic.expect_err("assert() panics on a failure");
    assert_eq!(message.downcast_ref::<String>(), Some(&report));
}

#[test]
fn an_into_that_writes_a_new_code_fails_the_skew_test_for_older_readers() {
    let outcome = mutant_outcome::<writes_annotate_as_4::AllocResponse>();
    assert_eq!(
        cases_of(&outcome.failures, "sched"),
        [("0.88.0", "maximal"), ("0.88.0", "boundary:max")],
        "{outcome}"
    );
    let first = &outcome.failures[0];
    assert_eq!(first.direction, Some("old reads new"));
    assert!(
        first
            .problem
            .contains("at $.type, 1 became 4; it writes {\"R\":{\"x\":1},\"annotations\":{\"x\":1},\"id\":1,\"note\":\"x\",\"type\":4}"),
        "{first}"
    );
}
