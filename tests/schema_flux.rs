//! `wirecheck schema` on the Flux example, through the binary: every schema is a valid draft 2020-12
//! schema, the committed wire fixtures of each protocol's current version validate against its
//! messages' writer and reader schemas, each protocol's AsyncAPI document validates against the
//! AsyncAPI 3.0.0 specification's own JSON Schema (vendored, `tests/data/asyncapi`) and its references
//! resolve, and the Python client of the example (`examples/flux-protocols/clients/python`) writes
//! payloads the exported schemas accept, and the wrong ones it writes on purpose they reject.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn flux() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/flux-protocols")
}

/// `wirecheck schema ARGS` on the Flux example, parsed.
fn schema(args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .arg("schema")
        .arg("--manifest-path")
        .arg(flux().join("Cargo.toml"))
        .args(args)
        .output()
        .expect("wirecheck runs");
    assert!(
        output.status.success(),
        "wirecheck schema {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn compile(schema: &Value, what: &str) -> jsonschema::Validator {
    if let Err(e) = jsonschema::meta::validate(schema) {
        panic!("{what}: not a valid JSON Schema: {e}");
    }
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what}: does not compile: {e}"))
}

fn protocols(document: &Value) -> &Vec<Value> {
    document["protocols"].as_array().expect("protocols")
}

fn messages(protocol: &Value) -> &Vec<Value> {
    protocol["messages"].as_array().expect("messages")
}

#[test]
fn current_fixtures_validate_against_both_schemas() {
    let document = schema(&[]);
    let mut checked = 0;
    for protocol in protocols(&document) {
        let name = protocol["name"].as_str().unwrap();
        let version = protocol["version"].as_str().unwrap();
        let dir = flux().join("wire-fixtures").join(name).join(version);
        for message in messages(protocol) {
            let what = format!("{name} {}", message["rust_path"]);
            let writer = compile(&message["writer"], &format!("{what} writer"));
            let reader = compile(&message["reader"], &format!("{what} reader"));
            let file = dir.join(format!(
                "{}.{}.json",
                message["topic"].as_str().unwrap(),
                message["kind"].as_str().unwrap()
            ));
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let fixture: Value = serde_json::from_str(&text).expect("fixture JSON");
            assert_eq!(fixture["message"], message["name"], "{}", file.display());
            for case in fixture["cases"].as_array().expect("cases") {
                let payload = &case["payload"];
                for (role, validator) in [("writer", &writer), ("reader", &reader)] {
                    if let Err(e) = validator.validate(payload) {
                        panic!(
                            "{what} {}: {payload} fails the {role}'s schema: {e}",
                            case["case"]
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 60,
        "only {checked} Flux fixture payloads checked"
    );
    eprintln!("{checked} Flux fixture payloads validated against both schemas");
}

/// The vendored AsyncAPI 3.0.0 schema.
fn asyncapi_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/asyncapi/asyncapi-3.0.0-without-id.json"
    ))
    .expect("the vendored AsyncAPI schema");
    let schema: Value = serde_json::from_str(&text).expect("JSON");
    jsonschema::validator_for(&schema).expect("the AsyncAPI schema compiles")
}

/// Every `$ref` outside a payload's own schema, which must resolve in the document.
fn document_refs<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    // Payload schemas included: a document resolves every reference from its root.
                    ("$ref", Value::String(target)) => out.push(target),
                    _ => document_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| document_refs(v, out)),
        _ => {}
    }
}

#[test]
fn asyncapi_documents_validate_against_the_specification_schema() {
    let validator = asyncapi_schema();
    let listing = schema(&[]);
    let mut payloads = 0;
    for protocol in protocols(&listing) {
        let name = protocol["name"].as_str().unwrap();
        let document = schema(&["--format", "asyncapi", "--protocol", name]);
        let errors: Vec<String> = validator
            .iter_errors(&document)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {}", errors.join("\n"));
        // The specification's schema is no rubber stamp: an operation without its channel fails it.
        let mut broken = document.clone();
        let operations = broken["operations"].as_object_mut().expect("operations");
        let first = operations.values_mut().next().expect("an operation");
        first.as_object_mut().unwrap().remove("channel");
        assert!(
            !validator.is_valid(&broken),
            "{name}: an operation without a channel passes"
        );
        assert_eq!(document["asyncapi"], "3.0.0");
        assert_eq!(document["info"]["version"], protocol["version"]);
        let mut refs = Vec::new();
        document_refs(&document, &mut refs);
        for target in refs {
            let pointer = target.strip_prefix('#').expect("a local reference");
            let pointer = pointer.replace("~1", "/");
            assert!(
                document.pointer(&pointer).is_some(),
                "{name}: {target} does not resolve"
            );
        }
        let components = document["components"]["messages"].as_object().unwrap();
        assert_eq!(
            components.len(),
            messages(protocol).len(),
            "{name}: one component per message"
        );
        for (id, component) in components {
            let payload = &component["payload"];
            assert_eq!(
                payload["schemaFormat"],
                "application/schema+json;version=2020-12"
            );
            // A payload schema compiled with the document's schemas, where its references point.
            let mut schema = payload["schema"].clone();
            schema["components"] = json!({ "schemas": document["components"]["schemas"].clone() });
            compile(&schema, &format!("{name} {id}"));
            payloads += 1;
        }
    }
    assert!(payloads >= 20, "only {payloads} payload schemas");
}

#[test]
fn several_protocols_need_one_named_for_asyncapi() {
    let output = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["schema", "--format", "asyncapi", "--manifest-path"])
        .arg(flux().join("Cargo.toml"))
        .output()
        .expect("wirecheck runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--protocol") && stderr.contains("sched"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_protocol_is_an_error_that_lists_the_declared_ones() {
    let output = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["schema", "--protocol", "schedd", "--manifest-path"])
        .arg(flux().join("Cargo.toml"))
        .output()
        .expect("wirecheck runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no protocol `schedd`") && stderr.contains("job-eventlog"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// The reader schema of the sched message named `name`: what the scheduler accepts.
fn sched_reader<'d>(document: &'d Value, name: &str) -> &'d Value {
    let sched = protocols(document)
        .iter()
        .find(|p| p["name"] == "sched")
        .expect("sched");
    &messages(sched)
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no sched message {name}"))["reader"]
}

#[test]
fn python_client_payloads_check_against_the_exported_schema() {
    let Ok(version) = Command::new("python3").arg("--version").output() else {
        eprintln!("SKIPPED: python3 is not installed, the Python client cannot run");
        return;
    };
    assert!(version.status.success(), "python3 --version fails");
    let out = tempfile::tempdir().expect("a temporary directory");
    let file = out.path().join("payloads.json");
    let client = flux().join("clients/python/sched_client.py");
    let status = Command::new("python3")
        .arg(&client)
        .arg(&file)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "{} fails", client.display());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the client's file")).unwrap();
    let document = schema(&["--protocol", "sched"]);
    let (mut accepted, mut rejected) = (0, 0);
    for entry in written.as_array().expect("a list") {
        let name = entry["message"].as_str().unwrap();
        let validator = compile(sched_reader(&document, name), name);
        let expected = entry["accepted"].as_bool().unwrap();
        assert_eq!(
            validator.is_valid(&entry["payload"]),
            expected,
            "{name} {}: the scheduler's schema should {}accept it",
            entry["payload"],
            if expected { "" } else { "not " }
        );
        if expected {
            accepted += 1;
        } else {
            rejected += 1;
        }
    }
    assert!(
        accepted >= 4 && rejected >= 2,
        "{accepted} accepted, {rejected} rejected"
    );
}

/// A protocol of another format than JSON gets no JSON Schema, said in its entry and its AsyncAPI
/// messages, and its AsyncAPI document is still a valid one (with its format's content type).
#[test]
fn a_protocol_of_another_format_has_no_schemas_and_says_why() {
    let source = r#"
        use serde::{Deserialize, Serialize};
        use wirecheck::{Message, Protocol};
        #[derive(Protocol)]
        #[wire(name = "bin", version = "1.2.0", format = "cbor")]
        pub struct Bin;
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = Bin, topic = "b.put", kind = "request", responds = PutResponse)]
        pub struct PutRequest { pub key: String }
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = Bin, topic = "b.put", kind = "response")]
        pub struct PutResponse { pub ok: bool }
    "#;
    let model = wirecheck::extract::snapshot_from_sources("bin", &[("src/lib.rs", source)])
        .expect("extracts");
    let listing = wirecheck::schema::json_schemas(&model, &[]).expect("schemas");
    let protocol = &protocols(&listing)[0];
    assert!(
        protocol["note"].as_str().unwrap().contains("cbor"),
        "{protocol}"
    );
    for message in messages(protocol) {
        assert!(message.get("writer").is_none() && message.get("reader").is_none());
    }
    let document = wirecheck::schema::asyncapi(&model, &[]).expect("one protocol");
    assert_eq!(document["defaultContentType"], "application/cbor");
    let errors: Vec<String> = asyncapi_schema()
        .iter_errors(&document)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    for component in document["components"]["messages"]
        .as_object()
        .unwrap()
        .values()
    {
        assert!(component.get("payload").is_none());
        assert!(
            component["description"]
                .as_str()
                .unwrap()
                .contains("no schema")
        );
    }
    let operation = &document["operations"]["request.bin.PutRequest"];
    assert_eq!(operation["action"], "receive", "{document}");
    assert_eq!(
        operation["reply"]["messages"][0]["$ref"],
        "#/channels/b.put/messages/bin.PutResponse"
    );
}

/// Records are read back by every later release: the committed fixtures of every release's records
/// validate against the current reader's schema.
#[test]
fn records_of_every_release_validate_against_the_current_reader() {
    let document = schema(&[]);
    let mut checked = 0;
    for protocol in protocols(&document) {
        let name = protocol["name"].as_str().unwrap();
        for message in messages(protocol).iter().filter(|m| m["kind"] == "record") {
            let reader = compile(&message["reader"], name);
            let file = format!("{}.record.json", message["topic"].as_str().unwrap());
            let Ok(releases) = std::fs::read_dir(flux().join("wire-fixtures").join(name)) else {
                continue;
            };
            for release in releases {
                let path = release.expect("a release folder").path().join(&file);
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let fixture: Value = serde_json::from_str(&text).expect("fixture JSON");
                for case in fixture["cases"].as_array().expect("cases") {
                    if let Err(e) = reader.validate(&case["payload"]) {
                        panic!(
                            "{}: {} fails the current reader: {e}",
                            path.display(),
                            case["case"]
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 100, "only {checked} record payloads");
    eprintln!("{checked} record payloads of every release validated against the current reader");
}
