//! `wirecheck schema` cross-checked against the engine on every fixture pair of `tests/fixtures/`: each
//! schema is a valid draft 2020-12 schema (checked against the meta-schema by the `jsonschema` crate);
//! every golden payload the fixture generator writes for a message validates against that message's
//! writer and reader schemas; and every JSON witness of a major finding validates against the writer's
//! schema and, when the rule's evidence is a rejection, fails the reader's.
#![cfg(feature = "checker")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wirecheck::Format;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};
use wirecheck::model::{MessageDecl, Snapshot};
use wirecheck::rules::Evidence;
use wirecheck::schema::{SchemaRole, message_schema};

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fixtures")
        .map(|entry| entry.expect("a fixture entry").path())
        .filter(|path| path.join("old/lib.rs").is_file() && path.join("new/lib.rs").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn extract(dir: &Path, side: &str) -> Snapshot {
    let text = std::fs::read_to_string(dir.join(side).join("lib.rs")).expect("lib.rs");
    let manifest = std::fs::read_to_string(dir.join(side).join("Cargo.toml")).ok();
    let mut files = vec![("src/lib.rs", text.as_str())];
    if let Some(manifest) = &manifest {
        files.push(("Cargo.toml", manifest.as_str()));
    }
    snapshot_from_sources("fixture", &files).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// A compiled schema, checked first against the draft 2020-12 meta-schema.
fn compile(schema: &Value, what: &str) -> jsonschema::Validator {
    if let Err(e) = jsonschema::meta::validate(schema) {
        panic!("{what}: not a valid JSON Schema: {e}");
    }
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what}: does not compile: {e}"))
}

/// The writer's and the reader's validators of every message of a JSON protocol, by type name and topic
/// (findings and fixture files name a message so).
struct Schemas {
    by_message: BTreeMap<(String, String), [jsonschema::Validator; 2]>,
}

impl Schemas {
    fn of(model: &Snapshot, what: &str) -> Schemas {
        let mut by_message = BTreeMap::new();
        for message in &model.messages {
            let Some(writer) = message_schema(model, message, SchemaRole::Writer) else {
                continue;
            };
            let reader =
                message_schema(model, message, SchemaRole::Reader).expect("a reader schema");
            let name = format!("{what} {}", message.rust_path);
            by_message.insert(
                key(message),
                [
                    compile(&writer, &format!("{name} writer")),
                    compile(&reader, &format!("{name} reader")),
                ],
            );
        }
        Schemas { by_message }
    }

    fn get(&self, name: &str, topic: &str) -> Option<&[jsonschema::Validator; 2]> {
        self.by_message.get(&(name.to_owned(), topic.to_owned()))
    }
}

fn key(message: &MessageDecl) -> (String, String) {
    (message.name.clone(), message.topic.clone())
}

fn is_json(model: &Snapshot, protocol: &str) -> bool {
    model
        .protocol(protocol)
        .is_some_and(|p| p.format == Format::Json)
}

/// The messages (type name, topic) of `new` the engine finds cannot read what they write themselves
/// (`self_rejected`, reported where a change introduces it).
fn self_rejecting(old: &Snapshot, new: &Snapshot) -> Vec<(String, String)> {
    compare(old, new)
        .into_iter()
        .filter(|f| f.rule.rule().id == "self_rejected")
        .map(|f| (f.message_type, f.topic))
        .collect()
}

/// Every fixture side's golden payloads validate against its writer's schema and its reader's, except
/// in the messages the engine finds reject their own payloads, whose reader schema must reject one.
#[test]
fn golden_payloads_validate_against_the_writer_and_the_reader() {
    let (mut checked, mut self_rejected) = (0, 0);
    let mut failures = Vec::new();
    for dir in fixture_dirs() {
        let pair = [extract(&dir, "old"), extract(&dir, "new")];
        let broken = [
            self_rejecting(&pair[1], &pair[0]),
            self_rejecting(&pair[0], &pair[1]),
        ];
        for ((side, model), broken) in ["old", "new"].into_iter().zip(&pair).zip(&broken) {
            let what = format!("{}/{side}", dir.file_name().unwrap().to_string_lossy());
            let schemas = Schemas::of(model, &what);
            for protocol in model.protocols.iter().filter(|p| p.format == Format::Json) {
                for file in wirecheck::fixtures::protocol_files(model, &protocol.name) {
                    let Some([writer, reader]) = schemas.get(&file.message, &file.topic) else {
                        failures.push(format!("{what}: no schema for {}", file.message));
                        continue;
                    };
                    let fixture: Value = serde_json::from_str(&file.text).expect("fixture JSON");
                    let own = broken.contains(&(file.message.clone(), file.topic.clone()));
                    let mut rejected = false;
                    for case in fixture["cases"].as_array().into_iter().flatten() {
                        let payload = &case["payload"];
                        let case = format!("{what} {} {}", file.message, case["case"]);
                        if let Err(e) = writer.validate(payload) {
                            failures
                                .push(format!("{case}: {payload} fails the writer's schema: {e}"));
                        }
                        match reader.validate(payload) {
                            Err(_) if own => rejected = true,
                            Err(e) => failures
                                .push(format!("{case}: {payload} fails the reader's schema: {e}")),
                            Ok(()) => {}
                        }
                        checked += 1;
                    }
                    if own && !rejected {
                        failures.push(format!(
                            "{what} {}: the engine finds it rejects its own payloads, its reader's \
                             schema takes every golden one",
                            file.message
                        ));
                    }
                    self_rejected += usize::from(own);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 300, "only {checked} golden payloads checked");
    assert!(self_rejected > 0, "no self-rejecting message met");
    eprintln!(
        "{checked} golden payloads validated against both schemas; {self_rejected} messages that reject \
         their own payloads rejected by their reader's schema"
    );
}

/// The findings of a fixture pair, every protocol, against each other.
fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    let mut names: Vec<&str> = old.protocols.iter().map(|p| p.name.as_str()).collect();
    names.dedup();
    names
        .into_iter()
        .flat_map(|p| compare_protocol(old, new, p, "v0.1.0", Scope::Full))
        .collect()
}

/// What a witness must do against one fixture pair's schemas.
struct WitnessCheck<'a> {
    finding: &'a Finding,
    writer: &'a Schemas,
    reader: &'a Schemas,
}

impl WitnessCheck<'_> {
    /// Whether the witness was checked (both sides have the message), or the failure.
    fn run(&self, witness: &Value) -> Result<bool, String> {
        let f = self.finding;
        let (Some([writer, _]), Some([_, reader])) = (
            self.writer.get(&f.message_type, &f.topic),
            self.reader.get(&f.message_type, &f.topic),
        ) else {
            return Ok(false);
        };
        if let Err(e) = writer.validate(witness) {
            return Err(format!("{witness} fails the writer's schema: {e}"));
        }
        let rejected = f.rule.rule().evidence == Evidence::Rejected;
        if rejected && reader.is_valid(witness) {
            return Err(format!(
                "{witness} is rejected by the reader, not by its schema"
            ));
        }
        Ok(true)
    }
}

/// Every JSON witness of a major finding validates against the writer's schema and, for a rejection,
/// fails the reader's.
#[test]
fn witnesses_validate_against_the_writer_and_fail_the_reader() {
    let (mut checked, mut rejected) = (0, 0);
    let mut failures = Vec::new();
    for dir in fixture_dirs() {
        let (old, new) = (extract(&dir, "old"), extract(&dir, "new"));
        let what = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (old_schemas, new_schemas) = (Schemas::of(&old, &what), Schemas::of(&new, &what));
        for finding in compare(&old, &new) {
            let Some(witness) = &finding.witness else {
                continue;
            };
            if finding.level != Level::Major || !is_json(&new, &finding.protocol) {
                continue;
            }
            let (writer, reader) = match finding.direction {
                Some(Direction::OldReadsNew) => (&new_schemas, &old_schemas),
                Some(Direction::NewReadsOld) => (&old_schemas, &new_schemas),
                None => continue,
            };
            let check = WitnessCheck {
                finding: &finding,
                writer,
                reader,
            };
            match check.run(witness) {
                Ok(true) => {
                    checked += 1;
                    rejected += usize::from(finding.rule.rule().evidence == Evidence::Rejected);
                }
                Ok(false) => {}
                Err(e) => failures.push(format!("{what} {}: {e}", finding.rule.rule().id)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 80 && rejected >= 20,
        "only {checked} witnesses checked ({rejected} rejections)"
    );
    eprintln!(
        "{checked} witnesses validated against the writer's schema, {rejected} fail the reader's"
    );
}

/// What wirecheck cannot see through is `{}` with a description saying why, in both roles: a field
/// written and read by custom functions, a type of another crate whose shape it does not know.
#[test]
fn opaque_parts_are_any_value_with_a_reason() {
    let source = r#"
        use serde::{Deserialize, Serialize};
        use wirecheck::{Message, Protocol};
        #[derive(Protocol)]
        #[wire(name = "p", version = "0.1.0")]
        pub struct P;
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = "t", kind = "event")]
        pub struct Msg {
            #[serde(with = "hex_text")]
            pub digest: Vec<u8>,
            pub other: othercrate::Thing,
            pub id: u32,
        }
    "#;
    let model = snapshot_from_sources("opaque", &[("src/lib.rs", source)]).expect("extracts");
    let message = &model.messages[0];
    for role in [SchemaRole::Writer, SchemaRole::Reader] {
        let schema = message_schema(&model, message, role).expect("a JSON protocol");
        let def = &schema["$defs"]["opaque.Msg"];
        // A reader also takes the struct as an array: the object is its first alternative.
        let object = def.get("anyOf").map_or(def, |any_of| &any_of[0]);
        let properties = object["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{schema}"));
        for key in ["digest", "other"] {
            let part = properties[key].as_object().expect("an object schema");
            assert_eq!(
                part.keys().collect::<Vec<_>>(),
                ["description"],
                "{role:?} {key}: {part:?}"
            );
        }
        assert!(
            properties["digest"]["description"]
                .as_str()
                .unwrap()
                .contains("hex_text")
        );
        assert!(
            properties["other"]["description"]
                .as_str()
                .unwrap()
                .contains("Thing")
        );
        assert_eq!(properties["id"]["type"], "integer");
    }
}
