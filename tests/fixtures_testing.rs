//! `wirecheck::testing`: fixtures written by the generator for older releases (sources as text) and decoded with
//! real current types: which releases and directions are checked, what fails and how it reads.
#![cfg(all(feature = "checker", feature = "testing"))]

use std::path::Path;

use wirecheck::extract::snapshot_from_sources;
use wirecheck::fixtures::protocol_files;
use wirecheck::testing::{Failure, Known, Outcome, Skew};
use wirecheck::{Kind, Upgrade};

const HEADER: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n";

/// Defines the current types and keeps their source text, so the generator sees exactly what is compiled.
macro_rules! current {
    ($($item:item)*) => {
        mod current {
            use serde::{Deserialize, Serialize};
            use wirecheck::{Message, Protocol};
            $($item)*
        }
        const CURRENT: &str = stringify!($($item)*);
    };
}

current! {
    #[derive(Protocol)]
    #[wire(name = "p", version = "1.2.0", upgrade = "server-first")]
    pub struct P;

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "job.submit", kind = "request", responds = Ack)]
    pub struct Submit { pub id: u64, #[serde(default)] pub prio: Prio }

    /// A priority: 0..=255 since 1.1.0, still a `u32` on the wire.
    #[derive(Clone, Copy, Default, Serialize, Deserialize)]
    #[serde(try_from = "u32", into = "u32")]
    pub struct Prio(pub u8);

    impl TryFrom<u32> for Prio {
        type Error = String;
        fn try_from(v: u32) -> Result<Self, String> {
            u8::try_from(v).map(Prio).map_err(|_| format!("priority {v} is above 255"))
        }
    }

    impl From<Prio> for u32 {
        fn from(p: Prio) -> u32 {
            u32::from(p.0)
        }
    }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "job.submit", kind = "response")]
    pub struct Ack { pub id: u64, #[serde(default)] pub queued: bool }

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "job.log", kind = "record")]
    pub struct Log { pub line: String }

    #[derive(Protocol)]
    #[wire(name = "q", version = "2.0.0", upgrade = "client-first", min_compatible = "1.5.0")]
    pub struct Q;

    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Q, topic = "q.get", kind = "request")]
    pub struct Get { pub key: String }
}

fn write_release(dir: &Path, source: &str) {
    let snapshot = snapshot_from_sources("demo", &[("src/lib.rs", source)]).unwrap();
    assert!(snapshot.notes.is_empty(), "{:?}", snapshot.notes);
    for p in &snapshot.protocols {
        let folder = dir.join(&p.name).join(p.version.to_string());
        std::fs::create_dir_all(&folder).unwrap();
        for f in protocol_files(&snapshot, &p.name) {
            std::fs::write(folder.join(&f.name), &f.text).unwrap();
        }
    }
}

fn old_p(version: &str, submit: &str, ack_attrs: &str, log: &str) -> String {
    format!(
        "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", upgrade = \"server-first\")]\npub struct P;\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"job.submit\", kind = \"request\", responds = Ack)]\n\
         pub struct Submit {{ {submit} }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"job.submit\", kind = \"response\")]\n{ack_attrs}\n\
         pub struct Ack {{ pub id: u64 }}\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"job.log\", kind = \"record\")]\n\
         pub struct Log {{ {log} }}\n"
    )
}

fn old_q(version: &str, key: &str) -> String {
    format!(
        "{HEADER}#[derive(Protocol)]\n#[wire(name = \"q\", version = \"{version}\", upgrade = \"client-first\")]\npub struct Q;\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Q, topic = \"q.get\", kind = \"request\")]\n\
         pub struct Get {{ pub key: {key} }}\n"
    )
}

/// The fixtures of the current release and of older ones, as they would be committed.
fn fixtures() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_release(dir, &format!("{HEADER}{CURRENT}"));
    // In range (1.0.0 <= 1.1.0 <= 1.2.0): `prio` was any u32.
    write_release(
        dir,
        &old_p(
            "1.1.0",
            "pub id: u64, pub prio: u32",
            "",
            "pub line: String",
        ),
    );
    // Below the series (0.9.0 < 1.0.0): only its records must still decode; `line` was a number then.
    write_release(dir, &old_p("0.9.0", "pub id: String", "", "pub line: u64"));
    // Newer than the current version (another branch): skipped.
    write_release(dir, &old_p("1.3.0", "pub x: bool", "", "pub line: bool"));
    // q: min_compatible 1.5.0; 1.5.0 is in range, 1.4.0 is not (and q has no records).
    write_release(dir, &old_q("1.5.0", "u64"));
    write_release(dir, &old_q("1.4.0", "bool"));
    tmp
}

fn skew(dir: &Path) -> Skew {
    Skew::new(dir)
        .message::<current::Submit>()
        .message::<current::Ack>()
        .message::<current::Log>()
        .message::<current::Get>()
}

fn summary(failures: &[Failure]) -> Vec<String> {
    failures
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {}",
                f.protocol,
                f.release,
                f.message,
                f.case.as_deref().unwrap_or("-"),
                f.direction.unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn releases_directions_and_failures() {
    let tmp = fixtures();
    let outcome = skew(tmp.path()).run();
    assert_eq!(
        summary(&outcome.failures),
        [
            // 0.9.0 is below the series: its record, new reads old, whose `line` was a number.
            "p 0.9.0 Log minimal new reads old",
            "p 0.9.0 Log maximal new reads old",
            "p 0.9.0 Log boundary:max new reads old",
            // 1.1.0 wrote priorities the current `try_from` rejects.
            "p 1.1.0 Submit boundary:max new reads old",
        ],
        "{outcome}"
    );
    let prio = &outcome.failures[3];
    assert_eq!(
        prio.problem,
        "the current `Submit` rejects what release 1.1.0 writes: priority 4294967295 is above 255 at line 1 column 45"
    );
    assert_eq!(
        prio.payload.as_deref(),
        Some(r#"{"id":18446744073709551615,"prio":4294967295}"#)
    );
    assert!(prio.file.ends_with("p/1.1.0/job.submit.request.json"));
    assert_eq!(
        outcome.releases,
        [
            ("p".to_owned(), "0.9.0".to_owned()),
            ("p".to_owned(), "1.1.0".to_owned()),
            ("p".to_owned(), "1.2.0".to_owned()),
            ("q".to_owned(), "1.5.0".to_owned()),
            ("q".to_owned(), "2.0.0".to_owned()),
        ]
    );
    assert_eq!(
        outcome.skipped,
        [
            ("p".to_owned(), "1.3.0".to_owned()),
            ("q".to_owned(), "1.4.0".to_owned()),
        ]
    );
    // q's requests are only read by upgraded servers (client-first: old reads new): the current `Get`
    // cannot hold 1.5.0's numeric key, which is no failure, as no current reader meets it.
    assert_eq!(outcome.not_representable, 3);
    // 0.9.0 Log (3 cases) + 1.1.0 and 1.2.0 (Submit, Log: new reads old) + q 2.0.0's own fixtures.
    assert!(outcome.decoded > 0 && outcome.reencoded > 0);
    let report = outcome.to_string();
    assert!(
        report.starts_with(&format!(
            "wirecheck skew test of {}: 9 files of 5 releases (p 0.9.0, p 1.1.0, p 1.2.0, q 1.5.0, q 2.0.0), ",
            tmp.path().display()
        )),
        "{report}"
    );
    assert!(
        report.contains(
            "failure 4: p release 1.1.0 (current 1.2.0), `Submit` (job.submit request), case `boundary:max`, \
             new reads old:\n    the current `Submit` rejects what release 1.1.0 writes: priority 4294967295 is above 255"
        ),
        "{report}"
    );
    assert!(report.contains("not checked (newer than the current version, or older than its minimum and not records): p 1.3.0, q 1.4.0"));
}

#[test]
fn known_breaks_are_listed_not_counted_and_must_match_something() {
    let tmp = fixtures();
    let outcome = skew(tmp.path())
        .known(
            Known::new(
                "p",
                "<1.0.0",
                "logs of 0.x are converted by the migration tool",
            )
            .topic("job.log"),
        )
        .known(
            Known::new("p", "=1.1.0", "priorities above 255 were never used").case("boundary:max"),
        )
        .run();
    assert!(outcome.ok(), "{outcome}");
    assert_eq!(outcome.known.len(), 4);
    assert!(outcome.to_string().contains(
        "known, not counted: p release 1.1.0 (current 1.2.0), `Submit` (job.submit request), case `boundary:max`"
    ));
    let stale = skew(tmp.path())
        .known(Known::new("p", "<1.0.0", "logs").topic("job.log"))
        .known(Known::new("p", "=1.1.0", "prio").case("boundary:max"))
        .known(Known::new("q", "=1.5.0", "nothing fails there"))
        .known(Known::new("q", "one", "not a version"))
        .run();
    let problems: Vec<&str> = stale.failures.iter().map(|f| f.problem.as_str()).collect();
    assert_eq!(
        problems,
        [
            "the known break `q =1.5.0 (nothing fails there)` matches no failure: remove it",
            "the known break `q one (not a version)` has versions `one`, which is not a semver requirement (write \"<=0.47.0\")",
        ]
    );
}

#[test]
fn the_current_version_needs_its_fixtures() {
    let tmp = fixtures();
    std::fs::remove_file(tmp.path().join("p/1.2.0/job.log.record.json")).unwrap();
    let outcome = skew(tmp.path())
        .known(Known::new("p", "<1.2.0", "older ones are tested above"))
        .run();
    assert_eq!(outcome.failures.len(), 1, "{outcome}");
    let f = &outcome.failures[0];
    assert_eq!((f.release.as_str(), f.message.as_str()), ("1.2.0", "Log"));
    assert!(
        f.problem.starts_with(
            "no fixture of this message for the current version: run `wirecheck fixtures write`"
        ),
        "{f}"
    );
}

#[test]
fn strict_old_readers_need_exactly_the_old_keys() {
    let tmp = tempfile::tempdir().unwrap();
    write_release(tmp.path(), &format!("{HEADER}{CURRENT}"));
    write_release(
        tmp.path(),
        &old_p(
            "1.1.0",
            "pub id: u64, pub prio: u32",
            "#[serde(deny_unknown_fields)]",
            "pub line: String",
        ),
    );
    let outcome = skew(tmp.path())
        .known(
            Known::new("p", "=1.1.0", "prio")
                .message("Submit")
                .case("boundary:max"),
        )
        .run();
    // The current `Ack` writes `queued`, which 1.1.0's clients (deny_unknown_fields) reject.
    assert_eq!(
        summary(&outcome.failures),
        [
            "p 1.1.0 Ack minimal old reads new",
            "p 1.1.0 Ack maximal old reads new",
            "p 1.1.0 Ack boundary:max old reads new",
        ],
        "{outcome}"
    );
    assert!(
        outcome.failures[0].problem.contains(
            "at $, keys `queued` are added, and a type of the old message denies unknown fields; it writes {\"id\":0,\"queued\":false}"
        ),
        "{}",
        outcome.failures[0]
    );
}

#[test]
fn bad_folders_and_files_are_failures() {
    let tmp = fixtures();
    std::fs::create_dir_all(tmp.path().join("p/latest")).unwrap();
    let moved = tmp.path().join("p/1.1.0/job.log.record.json");
    std::fs::copy(tmp.path().join("p/0.9.0/job.log.record.json"), &moved).unwrap();
    std::fs::write(
        tmp.path().join("p/1.1.0/broken.json"),
        "{\"wirecheck_fixture\": 1}",
    )
    .unwrap();
    std::fs::write(tmp.path().join("p/1.1.0/notes.json"), "{\"other\": true}").unwrap();
    let outcome: Outcome = skew(tmp.path())
        .known(Known::new("p", "<1.2.0", "older ones are tested above").case("minimal"))
        .known(Known::new("p", "<1.2.0", "older ones are tested above").case("maximal"))
        .known(Known::new("p", "<1.2.0", "older ones are tested above").case("boundary:max"))
        .run();
    let problems: Vec<String> = outcome
        .failures
        .iter()
        .map(|f| {
            format!(
                "{}: {}",
                f.file.file_name().unwrap().to_string_lossy(),
                f.problem
            )
        })
        .collect();
    assert_eq!(problems.len(), 3, "{outcome}");
    assert_eq!(
        problems[0],
        "latest: `latest` is not a version: fixture folders are named <protocol>/<version>"
    );
    assert!(
        problems[1]
            .starts_with("broken.json: not a wirecheck fixture file: missing field `protocol`"),
        "{}",
        problems[1]
    );
    assert_eq!(
        problems[2],
        "job.log.record.json: the file is a fixture of p 0.9.0 but sits in the folder of p 1.1.0"
    );
}

/// The testing module keeps its own copy of the checker's direction table (it must not depend on the
/// checker); they agree.
#[test]
fn directions_agree_with_the_checker() {
    use wirecheck::findings::Direction;
    for kind in [Kind::Request, Kind::Response, Kind::Event, Kind::Record] {
        for upgrade in [
            Upgrade::AnyOrder,
            Upgrade::ServerFirst,
            Upgrade::ClientFirst,
        ] {
            let checker = wirecheck::compat::directions(kind, upgrade);
            let testing = wirecheck::testing::directions(kind, upgrade);
            assert_eq!(
                (
                    checker.contains(&Direction::NewReadsOld),
                    checker.contains(&Direction::OldReadsNew)
                ),
                (testing.new_reads_old, testing.old_reads_new),
                "{kind} {upgrade}"
            );
        }
    }
}
