//! `wirecheck fixtures write`'s generator: the exact bytes of a fixture file, determinism, every kind and
//! format, the cases (minimal, maximal, variants, boundaries), what cannot be generated, file names, and the
//! committed fixtures of the Flux protocols (`examples/flux-protocols/wire-fixtures/`), which must be exactly
//! what the generator gives for each modelled release. `WIRECHECK_BLESS=1 cargo test --features checker
//! --test fixtures_generate` rewrites the Flux fixtures of the older releases.
#![cfg(feature = "checker")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::fixtures::{FileStatus, FixtureFile, WriteOptions, protocol_files, write};
use wirecheck::model::Snapshot;

fn snapshot(source: &str) -> Snapshot {
    let s = snapshot_from_sources("demo", &[("src/lib.rs", source)]).expect("valid source");
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    s
}

const HEADER: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n";

fn protocol(format: &str) -> String {
    format!(
        "{HEADER}
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.2.0\", format = \"{format}\")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.get\", kind = \"request\", responds = Reply)]
pub struct Get {{ pub id: u64, #[serde(default, skip_serializing_if = \"Option::is_none\")] pub tag: Option<String> }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.get\", kind = \"response\")]
pub struct Reply {{ pub offset: i8, pub state: State }}

#[derive(Serialize, Deserialize)]
pub enum State {{ Idle, Busy {{ job: u16 }} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.tick\", kind = \"event\")]
pub struct Tick;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.log\", kind = \"record\")]
pub struct Log {{ pub lines: Vec<String> }}
"
    )
}

fn file<'a>(files: &'a [FixtureFile], name: &str) -> &'a FixtureFile {
    files
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", names(files)))
}

fn names(files: &[FixtureFile]) -> Vec<&str> {
    files.iter().map(|f| f.name.as_str()).collect()
}

fn cases(f: &FixtureFile) -> Vec<(String, Value)> {
    let v: Value = serde_json::from_str(&f.text).expect("a fixture file is JSON");
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["case"].as_str().unwrap().to_owned(), c["payload"].clone()))
        .collect()
}

#[test]
fn the_bytes_of_a_fixture_file() {
    let files = protocol_files(&snapshot(&protocol("json")), "p");
    assert_eq!(
        names(&files),
        [
            "t.get.request.json",
            "t.get.response.json",
            "t.log.record.json",
            "t.tick.event.json"
        ]
    );
    assert_eq!(
        file(&files, "t.get.response.json").text,
        r#"{
  "wirecheck_fixture": 1,
  "protocol": "p",
  "version": "1.2.0",
  "format": "json",
  "message": "Reply",
  "topic": "t.get",
  "kind": "response",
  "strict": false,
  "cases": [
    {"case": "minimal", "payload": {"offset": 0, "state": "Idle"}},
    {"case": "maximal", "payload": {"offset": 1, "state": "Idle"}},
    {"case": "boundary:max", "payload": {"offset": 127, "state": "Idle"}},
    {"case": "boundary:min", "payload": {"offset": -128, "state": "Idle"}},
    {"case": "variant:State::Idle", "payload": {"offset": 1, "state": "Idle"}},
    {"case": "variant:State::Busy", "payload": {"offset": 1, "state": {"Busy": {"job": 1}}}},
    {"case": "variant:State::Busy minimal", "payload": {"offset": 0, "state": {"Busy": {"job": 0}}}},
    {"case": "variant:State::Busy boundary:max", "payload": {"offset": 127, "state": {"Busy": {"job": 65535}}}},
    {"case": "variant:State::Busy boundary:min", "payload": {"offset": -128, "state": {"Busy": {"job": 1}}}}
  ]
}
"#
    );
    assert_eq!(
        cases(file(&files, "t.get.request.json")),
        [
            ("minimal".to_owned(), serde_json::json!({"id": 0})),
            (
                "maximal".to_owned(),
                serde_json::json!({"id": 1, "tag": "x"})
            ),
            (
                "boundary:max".to_owned(),
                serde_json::json!({"id": u64::MAX, "tag": "x"})
            ),
        ]
    );
    assert_eq!(
        cases(file(&files, "t.tick.event.json")),
        [
            ("minimal".to_owned(), Value::Null),
            ("maximal".to_owned(), Value::Null)
        ]
    );
    assert_eq!(
        cases(file(&files, "t.log.record.json")),
        [
            ("minimal".to_owned(), serde_json::json!({"lines": []})),
            ("maximal".to_owned(), serde_json::json!({"lines": ["x"]})),
        ]
    );
}

#[test]
fn deterministic_for_every_kind_and_format() {
    for format in [
        "json",
        "cbor",
        "msgpack",
        "msgpack-compact",
        "bincode",
        "postcard",
    ] {
        let source = protocol(format);
        let first = protocol_files(&snapshot(&source), "p");
        let second = protocol_files(&snapshot(&source), "p");
        assert_eq!(first, second, "{format}: two runs, the same bytes");
        let kinds: BTreeSet<&str> = first.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(
            kinds,
            BTreeSet::from(["event", "record", "request", "response"])
        );
        for f in &first {
            let v: Value = serde_json::from_str(&f.text).unwrap();
            assert_eq!(v["format"], format, "{}", f.name);
            assert!(f.text.ends_with("}\n") && !f.text.contains('\r'));
            assert!(!cases(f).is_empty(), "{format} {}", f.name);
        }
    }
}

#[test]
fn object_keys_are_sorted_whatever_the_declaration_order() {
    let files = protocol_files(
        &snapshot(&format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
             pub struct E {{ pub zeta: u8, pub alpha: u8, pub mid: std::collections::BTreeMap<String, u8> }}\n"
        )),
        "p",
    );
    assert!(
        files[0].text.contains(
            r#"{"case": "maximal", "payload": {"alpha": 1, "mid": {"x": 1}, "zeta": 1}}"#
        ),
        "{}",
        files[0].text
    );
}

#[test]
fn variants_reached_only_through_another_variant_force_it() {
    let files = protocol_files(
        &snapshot(&format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
             pub struct E {{ pub outer: Outer }}\n\
             #[derive(Serialize, Deserialize)]\n#[serde(tag = \"k\")]\npub enum Outer {{ Plain, Deep {{ inner: Inner }} }}\n\
             #[derive(Serialize, Deserialize)]\npub enum Inner {{ A, B(bool) }}\n"
        )),
        "p",
    );
    let got: Vec<(String, Value)> = cases(&files[0])
        .into_iter()
        .filter(|(c, _)| c.starts_with("variant:Inner"))
        .collect();
    assert_eq!(
        got,
        [
            (
                "variant:Inner::A".to_owned(),
                serde_json::json!({"outer": {"k": "Deep", "inner": "A"}})
            ),
            (
                "variant:Inner::B".to_owned(),
                serde_json::json!({"outer": {"k": "Deep", "inner": {"B": true}}})
            ),
            (
                "variant:Inner::B minimal".to_owned(),
                serde_json::json!({"outer": {"k": "Deep", "inner": {"B": false}}})
            ),
        ]
    );
}

#[test]
fn proxied_and_128_bit_integers_keep_their_usual_value() {
    let files = protocol_files(
        &snapshot(&format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
             pub struct E {{ pub code: Code, pub big: u128, pub small: u8 }}\n\
             #[derive(Serialize, Deserialize)]\n#[serde(try_from = \"u8\", into = \"u8\")]\npub enum Code {{ A, B }}\n"
        )),
        "p",
    );
    assert_eq!(
        cases(&files[0])
            .into_iter()
            .find(|(c, _)| c == "boundary:max"),
        Some((
            "boundary:max".to_owned(),
            serde_json::json!({"code": 1, "big": 1, "small": 255})
        ))
    );
}

#[test]
fn what_cannot_be_generated_is_noted_not_invented() {
    let files = protocol_files(
        &snapshot(&format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.a\", kind = \"event\")]\n\
             pub struct A {{ pub at: geo_types::Point<f64> }}\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.b\", kind = \"event\")]\n\
             pub struct B {{ pub id: u32, #[serde(default, skip_serializing_if = \"Option::is_none\")] pub at: Option<glam::DVec2>, \
             #[serde(serialize_with = \"hex\")] pub key: u64 }}\n"
        )),
        "p",
    );
    let a: Value = serde_json::from_str(&file(&files, "t.a.event.json").text).unwrap();
    assert_eq!(a["cases"], serde_json::json!([]));
    assert_eq!(
        a["notes"],
        serde_json::json!([
            "a value of `geo_types::Point<f64>` is needed, and wirecheck cannot see into that type"
        ])
    );
    let b: Value = serde_json::from_str(&file(&files, "t.b.event.json").text).unwrap();
    assert_eq!(b["cases"], serde_json::json!([]));
    assert_eq!(
        b["notes"],
        serde_json::json!([
            "a value of `glam::DVec2` is needed, and wirecheck cannot see into that type",
            "field `key` is written by `hex`, which wirecheck cannot run"
        ])
    );
}

#[test]
fn file_names_are_portable_and_unique() {
    let files = protocol_files(
        &snapshot(&format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"shell-<id>.kill\", kind = \"event\")]\n\
             pub struct Kill {{ pub signum: i32 }}\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"log\", kind = \"record\")]\n\
             pub struct First {{ pub a: u8 }}\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"log\", kind = \"record\")]\n\
             pub struct Second {{ pub b: u8 }}\n"
        )),
        "p",
    );
    assert_eq!(
        names(&files),
        [
            "log.record.First.json",
            "log.record.Second.json",
            "shell-_id_.kill.event.json"
        ]
    );
    let kill: Value = serde_json::from_str(&files[2].text).unwrap();
    assert_eq!(kill["topic"], "shell-<id>.kill");
}

#[test]
fn strict_when_a_reached_type_denies_unknown_fields() {
    let source = |attr: &str| {
        format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
             pub struct E {{ pub inner: Vec<Inner> }}\n\
             #[derive(Serialize, Deserialize)]\n{attr}\npub struct Inner {{ pub x: u8 }}\n"
        )
    };
    let strict = |attr: &str| {
        let files = protocol_files(&snapshot(&source(attr)), "p");
        serde_json::from_str::<Value>(&files[0].text).unwrap()["strict"].clone()
    };
    assert_eq!(strict(""), false);
    assert_eq!(strict("#[serde(deny_unknown_fields)]"), true);
}

/// The body of a `TryFrom` behind `#[serde(try_from = "u8")]` is invisible to the checker: the engine reports
/// nothing for a change that rejects a value the release sends. That is what the skew test is for (the Flux
/// crate's `tests/skew.rs` shows it failing on exactly this change).
#[test]
fn a_try_from_body_change_is_invisible_to_the_checker() {
    let source = |accepted: &str| {
        format!(
            "{HEADER}#[derive(Protocol)]\n#[wire(name = \"sched\", version = \"0.88.0\")]\npub struct Sched;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Sched, topic = \"sched.alloc\", kind = \"response\")]\n\
             pub struct AllocResponse {{ pub id: u64, #[serde(rename = \"type\")] pub kind: AllocType }}\n\
             #[derive(Clone, Copy, Serialize, Deserialize)]\n#[serde(try_from = \"u8\", into = \"u8\")]\n\
             pub enum AllocType {{ Success = 0, Annotate = 1 }}\n\
             impl TryFrom<u8> for AllocType {{ type Error = String; fn try_from(c: u8) -> Result<Self, String> {{ match c {{ {accepted} _ => Err(c.to_string()) }} }} }}\n\
             impl From<AllocType> for u8 {{ fn from(k: AllocType) -> u8 {{ k as u8 }} }}\n"
        )
    };
    let old = snapshot(&source(
        "0 => Ok(AllocType::Success), 1 => Ok(AllocType::Annotate),",
    ));
    let new = snapshot(&source("0 => Ok(AllocType::Success),"));
    assert_eq!(
        compare_protocol(&old, &new, "sched", "v0.88.0", Scope::Full),
        vec![]
    );
    // The release's fixtures carry the value the new TryFrom rejects.
    let files = protocol_files(&old, "sched");
    assert!(
        files[0]
            .text
            .contains(r#"{"case": "maximal", "payload": {"id": 1, "type": 1}}"#),
        "{}",
        files[0].text
    );
}

// ---- the Flux protocols' committed fixtures ----

fn flux() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/flux-protocols")
}

/// The snapshot of a modelled release: `history/<tag>/src/*.rs` with `@VERSION@` replaced.
fn history_snapshot(tag: &str) -> Snapshot {
    let dir = flux().join("history").join(tag).join("src");
    let version = tag.trim_start_matches('v');
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace("@VERSION@", version);
            (
                format!("src/{}", path.file_name().unwrap().to_string_lossy()),
                text,
            )
        })
        .collect();
    files.sort_by_key(|(p, _)| p != "src/lib.rs");
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    snapshot_from_sources("flux-history", &refs).unwrap()
}

/// Every older release folder under `wire-fixtures/` is what the generator gives for that release's source
/// (`history/v<version>/`), byte for byte.
#[test]
fn flux_older_release_fixtures_are_the_generators_output() {
    let bless = std::env::var_os("WIRECHECK_BLESS").is_some();
    let root = flux().join("wire-fixtures");
    let mut checked = 0;
    let mut tags: Vec<String> = std::fs::read_dir(flux().join("history"))
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.path()
                .is_dir()
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .filter(|t| t != "v0.88.0")
        .collect();
    tags.sort();
    for tag in tags {
        let snapshot = history_snapshot(&tag);
        let version = tag.trim_start_matches('v');
        for p in &snapshot.protocols {
            let dir = root.join(&p.name).join(version);
            let files = protocol_files(&snapshot, &p.name);
            if bless {
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
            }
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e} (WIRECHECK_BLESS=1 writes it)", dir.display()))
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            on_disk.sort();
            for f in &files {
                let path = dir.join(&f.name);
                if bless {
                    std::fs::write(&path, &f.text).unwrap();
                    continue;
                }
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(
                    text,
                    f.text,
                    "{} is stale (WIRECHECK_BLESS=1 rewrites it)",
                    path.display()
                );
                checked += 1;
            }
            if !bless {
                assert_eq!(on_disk, names(&files), "{}", dir.display());
            }
        }
    }
    assert!(bless || checked > 200, "{checked} files checked");
}

/// The current version's fixtures are what `wirecheck fixtures write --check -p flux-protocols` wants.
#[test]
fn flux_current_fixtures_are_up_to_date() {
    let report = write(&WriteOptions {
        manifest_path: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")),
        packages: vec!["flux-protocols".to_owned()],
        check: true,
        ..WriteOptions::default()
    })
    .unwrap();
    assert_eq!(report.files.len(), 25);
    for f in &report.files {
        assert!(
            f.path.starts_with("examples/flux-protocols/wire-fixtures/"),
            "{}",
            f.path
        );
        assert_eq!(
            f.status,
            FileStatus::Unchanged,
            "{} (run `cargo run --features checker -- fixtures write -p flux-protocols`)",
            f.path
        );
    }
    assert!(report.up_to_date());
}
