//! Offline tests of `cargo xtask realworld`: the shipped specs, the injection, the staging of a release
//! for the side-by-side build, a replay of a small crate of two releases written here, and the verdict on
//! a witness. The replay of the published crates itself is a command, not a test (it needs the registry).

use std::fs;
use std::path::Path;

use semver::Version;
use serde_json::json;

use super::decode::{self, Decoded};
use super::sources::{self, Repo};
use super::spec::{self, Format, Spec};
use super::{
    FindingJson, Verdict, Witness, check_pair, classify, first_difference, lock_scratch,
    message_ids,
};

const SPEC: &str = r#"
crate = "demo-proto"
protocol = "demo"
about = "a crate written by the test"
versions = ["0.1.0", "0.2.0"]

[[message]]
type = "Ping"
kind = "request"
topic = "ping"
responds = "Pong"

[[message]]
type = "Pong"
path = "wire::Pong<'static>"
kind = "response"
topic = "ping"

[[message]]
type = "Gone"
kind = "event"
topic = "gone"
"#;

fn spec() -> Spec {
    Spec::parse(SPEC).expect("the test spec parses")
}

/// Writes a package of `demo-proto` at `dir`: `Ping` in the crate root, `Pong` in a module, indented.
fn write_package(dir: &Path, version: &str, ping_fields: &str) {
    fs::create_dir_all(dir.join("src/wire")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"demo-proto\"\nversion = \"{version}\"\nedition = \"2021\"\n\n\
             [[test]]\nname = \"shipped\"\npath = \"tests/shipped.rs\"\n"
        ),
    )
    .unwrap();
    fs::write(
        dir.join("src/lib.rs"),
        format!(
            "//! pub struct Ping in a comment is not a declaration\npub mod wire;\n\n\
             #[derive(serde::Serialize, serde::Deserialize)]\npub struct Ping {{\n{ping_fields}}}\n"
        ),
    )
    .unwrap();
    fs::write(
        dir.join("src/wire/mod.rs"),
        "mod inner {\n    #[derive(serde::Serialize, serde::Deserialize)]\n    pub struct Pong<'a> {\n        \
         pub text: std::borrow::Cow<'a, str>,\n    }\n}\npub use inner::Pong;\n",
    )
    .unwrap();
}

#[test]
fn the_shipped_specs_are_valid_and_long_enough() {
    let specs = super::load_specs(&super::specs_dir()).expect("the shipped specs parse");
    assert!(specs.len() >= 3, "at least three crates: {}", specs.len());
    for s in &specs {
        assert!(
            s.versions.len() >= 8,
            "{} replays {} releases; issue 15 asked for at least 15 of its three crates, issue 31 \
             for 6 to 10 of a crate with siblings (their side-by-side build is heavy)",
            s.krate,
            s.versions.len()
        );
    }
}

#[test]
fn the_shipped_specs_shapes_are_a_valid_wirecheck_toml() {
    for s in super::load_specs(&super::specs_dir()).expect("the shipped specs parse") {
        let Some(text) = s.wirecheck_toml() else {
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("wirecheck.toml"), &text).unwrap();
        let config = wirecheck::config::load(dir.path())
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", s.krate));
        assert_eq!(config.shapes, s.shapes, "{}", s.krate);
    }
}

#[test]
fn a_spec_without_shapes_writes_no_wirecheck_toml() {
    assert!(spec().wirecheck_toml().is_none());
    let with = format!("{SPEC}\n[shapes]\n\"demo_proto::Id\" = \"u64\"\n");
    let text = Spec::parse(&with).unwrap().wirecheck_toml().unwrap();
    assert!(
        text.contains("[shapes]\n\"demo_proto::Id\" = \"u64\"\n"),
        "{text}"
    );
}

#[test]
fn bad_specs_are_refused_with_the_reason() {
    let unsorted = SPEC.replace(r#"["0.1.0", "0.2.0"]"#, r#"["0.2.0", "0.1.0"]"#);
    let err = format!("{:#}", Spec::parse(&unsorted).unwrap_err());
    assert!(err.contains("increasing order"), "{err}");
    let kind = SPEC.replace(r#"kind = "event""#, r#"kind = "notification""#);
    let err = format!("{:#}", Spec::parse(&kind).unwrap_err());
    assert!(err.contains("kind `notification`"), "{err}");
    let responds = SPEC.replace(r#"responds = "Pong""#, r#"responds = "Pang""#);
    let err = format!("{:#}", Spec::parse(&responds).unwrap_err());
    assert!(err.contains("Pang"), "{err}");
    let unknown = format!("{SPEC}\nextra = 1\n");
    assert!(Spec::parse(&unknown).is_err());
    let twice =
        format!("{SPEC}\n[[message]]\ntype = \"Gone\"\nkind = \"event\"\ntopic = \"gone\"\n");
    let err = format!("{:#}", Spec::parse(&twice).unwrap_err());
    assert!(err.contains("listed twice"), "{err}");
}

const SAME_NAMES: &str = r#"
crate = "rpc"
protocol = "rpc"
about = "two endpoints whose messages share their type names"
versions = ["0.1.0", "0.2.0"]
siblings = ["core"]

[[message]]
type = "Request"
path = "status::Request"
kind = "request"
topic = "status"
responds = "status::Response"

[[message]]
type = "Response"
path = "status::Response"
file = "src/status.rs"
kind = "response"
topic = "status"

[[message]]
type = "Response"
path = "health::Response"
file = "src/health.rs"
kind = "response"
topic = "health"
"#;

#[test]
fn messages_sharing_a_type_name_are_told_apart_by_path_and_topic() {
    let s = Spec::parse(SAME_NAMES).unwrap();
    assert_eq!(s.message("health::Response").unwrap().topic, "health");
    let paths: Vec<&str> = s
        .messages_of("Response", "status")
        .iter()
        .map(|m| m.plain_path())
        .collect();
    assert_eq!(paths, ["status::Response"]);
    let attrs = spec::message_attrs(&s, &s.messages[0], "");
    assert!(
        attrs.contains("responds = crate::status::Response"),
        "{attrs}"
    );
    let ambiguous = SAME_NAMES.replace(
        r#"responds = "status::Response""#,
        r#"responds = "Response""#,
    );
    let err = format!("{:#}", Spec::parse(&ambiguous).unwrap_err());
    assert!(err.contains("names 2 messages"), "{err}");
    let same_topic = SAME_NAMES.replace(r#"topic = "health""#, r#"topic = "status""#);
    let err = format!("{:#}", Spec::parse(&same_topic).unwrap_err());
    assert!(err.contains("have the topic `status`"), "{err}");
}

#[test]
fn a_release_links_its_siblings_at_its_own_version() {
    let s = Spec::parse(SAME_NAMES).unwrap();
    let version = Version::new(0, 2, 0);
    let mut manifest: toml::Table = r#"
[dependencies]
core = "0.2.0"
serde = "1"
renamed = { package = "core", version = "0.2.0", default-features = false }

[target.'cfg(unix)'.build-dependencies]
core = { version = "0.2.0", registry = "other" }
"#
    .parse()
    .unwrap();
    let dir = Path::new("/staged/siblings");
    super::siblings::link(&mut manifest, &s, &version, dir);
    let linked = |dep: &toml::Value| {
        assert_eq!(dep["package"].as_str(), Some("core-0-2-0"), "{dep}");
        assert_eq!(dep["version"].as_str(), Some("0.2.0"), "{dep}");
        assert_eq!(
            dep["path"].as_str(),
            Some(dir.join("core").join("0.2.0").to_str().unwrap()),
            "{dep}"
        );
        assert!(dep.get("registry").is_none(), "{dep}");
    };
    linked(&manifest["dependencies"]["core"]);
    linked(&manifest["dependencies"]["renamed"]);
    assert_eq!(
        manifest["dependencies"]["renamed"]["default-features"].as_bool(),
        Some(false)
    );
    linked(&manifest["target"]["cfg(unix)"]["build-dependencies"]["core"]);
    assert_eq!(manifest["dependencies"]["serde"].as_str(), Some("1"));
}

#[test]
fn declarations_are_found_by_name_outside_comments() {
    let text = "// pub struct Ping {}\npub struct Pings;\n  pub(crate) enum Ping<T> {}\npub struct Ping{}\n";
    let found = spec::find_declarations(text, "Ping");
    let lines: Vec<&str> = found
        .iter()
        .map(|&o| text[o..].lines().next().unwrap())
        .collect();
    assert_eq!(lines, ["  pub(crate) enum Ping<T> {}", "pub struct Ping{}"]);
}

#[test]
fn the_injection_annotates_each_message_where_it_is_declared() {
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path(), "0.1.0", "    pub id: u32,\n");
    let s = spec();
    let version = Version::new(0, 1, 0);
    let injection = spec::inject(&s, &version, dir.path(), "src/lib.rs").unwrap();
    assert_eq!(injection.injected, ["Ping", "wire::Pong"]);
    assert_eq!(injection.missing, ["Gone"]);
    let lib = &injection.files["src/lib.rs"];
    assert!(
        lib.contains(
            "#[derive(serde::Serialize, serde::Deserialize)]\n#[derive(::wirecheck::Message)]\n\
             #[wire(protocol = crate::WirecheckReplayProtocol, topic = \"ping\", kind = \"request\", \
             responds = crate::wire::Pong)]\npub struct Ping {"
        ),
        "{lib}"
    );
    assert!(
        lib.ends_with(
            "#[derive(::wirecheck::Protocol)]\n#[wire(name = \"demo\", version = \"0.1.0\")]\n\
             pub struct WirecheckReplayProtocol;\n"
        ),
        "{lib}"
    );
    let wire = &injection.files["src/wire/mod.rs"];
    assert!(
        wire.contains(
            "    #[derive(::wirecheck::Message)]\n    #[wire(protocol = crate::WirecheckReplayProtocol, \
             topic = \"ping\", kind = \"response\")]\n    pub struct Pong<'a> {"
        ),
        "{wire}"
    );
}

#[test]
fn a_message_declared_twice_needs_its_file_named() {
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path(), "0.1.0", "    pub id: u32,\n");
    fs::write(dir.path().join("src/other.rs"), "pub struct Ping;\n").unwrap();
    let err = spec::inject(&spec(), &Version::new(0, 1, 0), dir.path(), "src/lib.rs").unwrap_err();
    assert!(format!("{err}").contains("file = "), "{err}");
    let named = SPEC.replace(
        "type = \"Ping\"\n",
        "type = \"Ping\"\nfile = \"src/other.rs\"\n",
    );
    let s = Spec::parse(&named).unwrap();
    let injection = spec::inject(&s, &Version::new(0, 1, 0), dir.path(), "src/lib.rs").unwrap();
    assert!(injection.files["src/other.rs"].contains("#[wire(protocol"));
}

#[test]
fn a_spec_names_its_format_which_the_protocol_marker_declares() {
    let version = Version::new(0, 1, 0);
    assert_eq!(spec().format, Format::Json);
    assert!(!spec::protocol_marker(&spec(), &version).contains("format"));
    for (keyword, format) in [
        ("cbor", Format::Cbor),
        ("msgpack", Format::Msgpack),
        ("msgpack-compact", Format::MsgpackCompact),
        ("json", Format::Json),
    ] {
        let text = SPEC.replace("versions =", &format!("format = \"{keyword}\"\nversions ="));
        let s = Spec::parse(&text).unwrap();
        assert_eq!((s.format, s.format.keyword()), (format, keyword));
        let marker = spec::protocol_marker(&s, &version);
        assert_eq!(
            marker.contains(&format!(", format = \"{keyword}\")]")),
            format != Format::Json,
            "{marker}"
        );
    }
    let bad = SPEC.replace("versions =", "format = \"bson\"\nversions =");
    let err = format!("{:#}", Spec::parse(&bad).unwrap_err());
    assert!(
        err.contains("bson") && err.contains("msgpack-compact"),
        "{err}"
    );
}

#[test]
fn a_binary_format_decodes_with_the_workspace_codec() {
    let workspace = crate::workspace_root().join("Cargo.toml");
    assert_eq!(
        decode::codec_dependency(Format::Json, &workspace).unwrap(),
        None
    );
    let dev: toml::Table = fs::read_to_string(&workspace).unwrap().parse().unwrap();
    for (format, package, calls) in [
        (
            Format::Cbor,
            "ciborium",
            ["ciborium::into_writer", "ciborium::from_reader"],
        ),
        (
            Format::Msgpack,
            "rmp-serde",
            ["rmp_serde::to_vec_named", "rmp_serde::from_slice"],
        ),
        (
            Format::MsgpackCompact,
            "rmp-serde",
            ["rmp_serde::to_vec(", "rmp_serde::from_slice"],
        ),
    ] {
        let line = decode::codec_dependency(format, &workspace)
            .unwrap()
            .unwrap();
        let version = dev["dev-dependencies"][package].as_str().unwrap();
        assert_eq!(line, format!("{package} = \"{version}\""));
        let code = decode::codec_rs(format);
        for call in calls {
            assert!(code.contains(call), "{format:?} calls {call}:\n{code}");
        }
        assert!(
            code.contains("fn roundtrip") && !code.contains("SHOWN"),
            "{code}"
        );
    }
    assert!(!decode::codec_rs(Format::Json).contains("ciborium"));
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("Cargo.toml");
    fs::write(&missing, "[dev-dependencies]\nserde = \"1\"\n").unwrap();
    let err = decode::codec_dependency(Format::Cbor, &missing)
        .unwrap_err()
        .to_string();
    assert!(err.contains("ciborium") && err.contains("cbor"), "{err}");
}

#[test]
fn a_staged_release_has_a_package_name_of_its_own_and_only_its_library() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    write_package(&package, "0.1.0", "    pub id: u32,\n");
    let manifest = package.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{text}\n[dev-dependencies]\nnothing = \"1\"\n"),
    )
    .unwrap();
    let s = spec();
    let version = Version::new(0, 1, 0);
    let staged = dir.path().join("staged");
    sources::stage_alias(
        &s,
        &version,
        &package,
        &staged,
        &dir.path().join("siblings"),
    )
    .unwrap();
    let manifest: toml::Table = fs::read_to_string(staged.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        manifest["package"]["name"].as_str(),
        Some("demo-proto-0-1-0")
    );
    assert_eq!(manifest["package"]["autotests"].as_bool(), Some(false));
    assert!(!manifest.contains_key("test") && !manifest.contains_key("dev-dependencies"));
    assert!(staged.join("src/wire/mod.rs").is_file());
    assert_eq!(Spec::alias_crate(&version), "v0_1_0");
    let declared = [(version, vec!["Ping".to_owned(), "wire::Pong".to_owned()])]
        .into_iter()
        .collect();
    let main = decode::main_rs(&s, &declared);
    assert!(main.contains(
        r#"("0.1.0", "wire::Pong") => roundtrip::<v0_1_0::wire::Pong<'static>>(json, bytes),"#
    ));
    let cargo = decode::manifest(&s, &declared, dir.path(), "decode", None);
    assert!(
        cargo.contains(r#"v0_1_0 = { package = "demo-proto-0-1-0", path = "#),
        "{cargo}"
    );
}

#[test]
fn a_replayed_pair_gives_the_witness_of_a_removed_required_field() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    write_package(&old, "0.1.0", "    pub id: u32,\n    pub name: String,\n");
    write_package(&new, "0.2.0", "    pub id: u32,\n");
    let s = spec();
    let mut repo = Repo::create(&dir.path().join("repo")).unwrap();
    let locks = dir.path().join("locks");
    for (version, source) in s.versions.iter().zip([&old, &new]) {
        repo.commit_release(&s, version, source, &locks).unwrap();
    }
    let (pair, found) = check_pair(&repo, &s.versions[0], &s.versions[1]).unwrap();
    assert!(pair.text.starts_with("demo: major"), "{}", pair.text);
    let removed: Vec<&(FindingJson, Version, Version)> = found
        .iter()
        .filter(|(f, _, _)| f.message_type == "Ping" && f.field.as_deref() == Some("name"))
        .collect();
    assert!(!removed.is_empty(), "{}: {found:?}", pair.text);
    for (finding, writer, reader) in removed {
        // The new release no longer writes `name`; the old one requires it.
        assert_eq!(finding.direction.as_deref(), Some("old reads new"));
        assert_eq!((writer, reader), (&s.versions[1], &s.versions[0]));
        assert!(finding.witness.as_ref().unwrap().get("name").is_none());
    }
}

fn finding(rule: &str) -> FindingJson {
    FindingJson {
        rule: rule.into(),
        level: "major".into(),
        allowed: false,
        known: false,
        message: String::new(),
        message_type: "Ping".into(),
        topic: "ping".into(),
        field: None,
        wire_path: None,
        direction: Some("old reads new".into()),
        against: "v0.1.0".into(),
        witness: None,
    }
}

fn value(v: serde_json::Value) -> Decoded {
    Decoded {
        value: Some(v),
        error: None,
        bytes: None,
    }
}

fn error(e: &str) -> Decoded {
    Decoded {
        value: None,
        error: Some(e.into()),
        bytes: None,
    }
}

#[test]
fn a_type_renamed_on_its_topic_is_decoded_with_each_releases_own_type() {
    let text =
        format!("{SPEC}\n[[message]]\ntype = \"Hello\"\nkind = \"request\"\ntopic = \"ping\"\n");
    let s = Spec::parse(&text).unwrap();
    let (v1, v2) = (Version::new(0, 1, 0), Version::new(0, 2, 0));
    let declared = [
        (v1.clone(), vec!["Ping".to_owned(), "Gone".to_owned()]),
        (v2.clone(), vec!["Hello".to_owned(), "Gone".to_owned()]),
    ]
    .into_iter()
    .collect();
    let witness = |name: &str, topic: &str, writer: &Version, reader: &Version| Witness {
        pair: 0,
        finding: FindingJson {
            message_type: name.into(),
            topic: topic.into(),
            ..finding("variant_removed")
        },
        writer: writer.clone(),
        reader: reader.clone(),
        verdict: Verdict::Untried(String::new()),
    };
    let ids = |w: &Witness| message_ids(&s, w, &declared);
    assert_eq!(
        ids(&witness("Hello", "ping", &v1, &v2)),
        Some(("Ping", "Hello"))
    );
    assert_eq!(
        ids(&witness("Hello", "ping", &v2, &v1)),
        Some(("Hello", "Ping"))
    );
    assert_eq!(
        ids(&witness("Gone", "gone", &v1, &v2)),
        Some(("Gone", "Gone"))
    );
    // No message on the topic in one release, or a name the spec does not list: not decoded.
    assert_eq!(ids(&witness("Pong", "ping", &v1, &v2)), None);
    assert_eq!(ids(&witness("Other", "ping", &v1, &v2)), None);
}

/// `Pong` moved from `wire` to `proto` in 0.2.0: listed once per place, each with its releases.
const MOVED: &str = r#"
crate = "demo-proto"
protocol = "demo"
about = "a type moved to another module"
versions = ["0.1.0", "0.2.0"]

[[message]]
type = "Pong"
path = "wire::Pong<'static>"
file = "src/wire/mod.rs"
releases = "<0.2.0"
kind = "response"
topic = "ping"

[[message]]
type = "Pong"
path = "proto::Pong"
file = "src/proto.rs"
releases = ">=0.2.0"
kind = "response"
topic = "ping"
"#;

#[test]
fn a_type_moved_to_another_module_is_listed_once_per_place() {
    let s = Spec::parse(MOVED).unwrap();
    let (v1, v2) = (Version::new(0, 1, 0), Version::new(0, 2, 0));
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path(), "0.1.0", "    pub id: u32,\n");
    fs::write(
        dir.path().join("src/proto.rs"),
        "#[derive(serde::Serialize)]\npub struct Pong { pub text: String }\n",
    )
    .unwrap();
    // Both files declare a `Pong`: each release takes only the place its releases name.
    for (version, place) in [(&v1, "wire::Pong"), (&v2, "proto::Pong")] {
        let injection = spec::inject(&s, version, dir.path(), "src/lib.rs").unwrap();
        assert_eq!(injection.injected, [place]);
        assert!(injection.missing.is_empty());
    }
    let declared = [
        (v1.clone(), vec!["wire::Pong".to_owned()]),
        (v2.clone(), vec!["proto::Pong".to_owned()]),
    ]
    .into_iter()
    .collect();
    let w = Witness {
        pair: 0,
        finding: FindingJson {
            message_type: "Pong".into(),
            topic: "ping".into(),
            ..finding("field_removed")
        },
        writer: v2.clone(),
        reader: v1.clone(),
        verdict: Verdict::Untried(String::new()),
    };
    assert_eq!(
        message_ids(&s, &w, &declared),
        Some(("proto::Pong", "wire::Pong"))
    );
    let overlapping = MOVED.replace(r#"releases = ">=0.2.0""#, r#"releases = ">=0.1.0""#);
    let err = format!("{:#}", Spec::parse(&overlapping).unwrap_err());
    assert!(err.contains("have the topic `ping` in 0.1.0"), "{err}");
    let unbounded = MOVED.replace("releases = \"<0.2.0\"\n", "");
    let err = format!("{:#}", Spec::parse(&unbounded).unwrap_err());
    assert!(err.contains("`releases`"), "{err}");
}

#[test]
fn a_witness_is_unproducible_unless_the_writer_writes_it_back_the_same() {
    let witness = json!({"id": 1, "uri": null});
    let f = finding("field_removed");
    let v = classify(
        &f,
        &witness,
        error("invalid type: null, expected a string"),
        error("x"),
    );
    assert!(matches!(v, Verdict::Unproducible(ref why) if why.contains("rejects")));
    let v = classify(&f, &witness, value(json!({"id": 1})), error("x"));
    assert!(matches!(v, Verdict::Unproducible(ref why) if why.contains("/uri")));
    let v = classify(
        &f,
        &witness,
        value(json!({"id": 1.0, "uri": null})),
        error("missing field"),
    );
    assert!(matches!(v, Verdict::Confirmed(ref e) if e == "missing field"));
    let v = classify(&f, &witness, value(witness.clone()), value(witness.clone()));
    assert!(matches!(v, Verdict::ReaderAccepts { misread: false, .. }));
}

#[test]
fn differences_are_placed_by_json_pointer() {
    assert_eq!(
        first_difference(&json!({"a": [0, 1]}), &json!({"a": [0.0, 1]}), ""),
        None
    );
    assert_eq!(
        first_difference(
            &json!({"a": [0, {"b/c": 1}]}),
            &json!({"a": [0, {"b/c": 2}]}),
            ""
        ),
        Some("/a/1/b~1c".into())
    );
    assert_eq!(
        first_difference(&json!({"a": 1}), &json!({"a": 1, "z": null}), ""),
        Some("/z".into())
    );
}

#[test]
fn bins_are_left_out_of_the_replayed_manifest_only_when_the_spec_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    write_package(&package, "0.1.0", "    pub id: u32,\n");
    let path = package.join("Cargo.toml");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(
        &path,
        format!("{text}\n[[bin]]\nname = \"demo-proto\"\npath = \"src/cli/main.rs\"\n"),
    )
    .unwrap();
    let manifest = sources::read_manifest(&package).unwrap();
    let replayed = |spec: &Spec| -> toml::Table {
        sources::replay_manifest(spec, &package, &manifest)
            .unwrap()
            .parse()
            .unwrap()
    };
    let kept = replayed(&spec());
    assert!(kept.contains_key("bin") && kept.contains_key("workspace"));
    let without =
        Spec::parse(&SPEC.replace("versions =", "without_bins = true\nversions =")).unwrap();
    let left_out = replayed(&without);
    assert!(!left_out.contains_key("bin"), "{left_out}");
    assert!(left_out.contains_key("workspace") && left_out.contains_key("test"));
    assert_eq!(left_out["package"]["name"].as_str(), Some("demo-proto"));
}

#[test]
fn the_scratch_lock_is_held_for_the_run_and_never_left_stale() {
    let scratch = tempfile::tempdir().unwrap();
    // A lock file left by a run that was killed (as the old PID file was) does not lock anything.
    fs::write(scratch.path().join(".lock"), "4294967295").unwrap();
    let held = lock_scratch(scratch.path()).unwrap();
    let pid = std::process::id().to_string();
    assert_eq!(
        fs::read_to_string(scratch.path().join(".lock")).unwrap(),
        pid
    );
    let refused = lock_scratch(scratch.path()).unwrap_err().to_string();
    assert!(
        refused.contains("another `cargo xtask realworld` is running"),
        "{refused}"
    );
    if cfg!(unix) {
        // Advisory locks leave the file readable: the message names the holder.
        assert!(refused.contains(&format!("(process {pid})")), "{refused}");
    }
    drop(held);
    lock_scratch(scratch.path()).unwrap();
}
