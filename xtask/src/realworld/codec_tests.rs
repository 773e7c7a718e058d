//! Offline test of the side-by-side decoder in the binary formats: two releases of a small crate written
//! here, built side by side with ciborium and rmp-serde from cargo's local cache (`--offline`; the
//! build is kept in `target/realworld-tests/` for the next run), and witnesses read by the writer's type,
//! written with the codec, and read from those bytes by the reader's.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::json;

use super::decode::{Decoded, Project, Request};
use super::sources;
use super::spec::Spec;

/// `Ping` in 0.1.0 has `id` and `name`; 0.2.0 drops `name` and adds `data`, bytes through serde_bytes.
fn write_release(dir: &Path, version: &str, fields: &str) {
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"codec-demo\"\nversion = \"{version}\"\nedition = \"2021\"\n\n\
             [dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_bytes = \"0.11\"\n"
        ),
    )
    .unwrap();
    fs::write(
        dir.join("src/lib.rs"),
        format!(
            "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Ping {{\n{fields}}}\n"
        ),
    )
    .unwrap();
}

fn request(version: &str, json: &serde_json::Value, bytes: Option<&str>) -> Request {
    Request {
        version: version.into(),
        message: "Ping".into(),
        json: json.to_string(),
        bytes: bytes.map(str::to_owned),
    }
}

/// Builds the decoder of both releases in `format` and returns it.
fn project(format: &str, scratch: &Path) -> Project {
    let spec = Spec::parse(&format!(
        "crate = \"codec-demo\"\nprotocol = \"demo\"\nabout = \"a test\"\nformat = \"{format}\"\n\
         versions = [\"0.1.0\", \"0.2.0\"]\n\n[[message]]\ntype = \"Ping\"\nkind = \"event\"\ntopic = \"ping\"\n"
    ))
    .unwrap();
    let sources_dir = scratch.join("sources");
    write_release(
        &sources_dir.join("0.1.0"),
        "0.1.0",
        "    pub id: u32,\n    pub name: String,\n",
    );
    write_release(
        &sources_dir.join("0.2.0"),
        "0.2.0",
        "    pub id: u32,\n    #[serde(with = \"serde_bytes\")]\n    pub data: Vec<u8>,\n",
    );
    let pkgs = scratch.join(format).join("pkgs");
    let mut declared = BTreeMap::new();
    for version in &spec.versions {
        let dir = pkgs.join(version.to_string());
        let _ = fs::remove_dir_all(&dir);
        sources::stage_alias(
            &spec,
            version,
            &sources_dir.join(version.to_string()),
            &dir,
            &pkgs.join("siblings"),
        )
        .unwrap();
        declared.insert(version.clone(), vec!["Ping".to_owned()]);
    }
    let project = Project::write(
        &spec,
        &declared,
        &pkgs,
        &scratch.join(format).join("decode"),
        &scratch.join("build"),
    )
    .unwrap()
    .offline();
    project.build().unwrap();
    project
}

fn error(d: &Decoded) -> &str {
    d.error
        .as_deref()
        .unwrap_or_else(|| panic!("read: {:?}", d.value))
}

#[test]
fn binary_witnesses_are_read_from_the_bytes_the_writer_writes() {
    let scratch = crate::workspace_root().join("target/realworld-tests");
    // CBOR: 0.2.0 writes `data` as a byte string and no `name`; 0.1.0 rejects it for the missing field.
    let cbor = project("cbor", &scratch);
    let witness = json!({"id": 7, "data": [1, 2]});
    let written = cbor
        .decode(&[request("0.2.0", &witness, None)])
        .unwrap()
        .remove(0);
    assert_eq!(written.value, Some(witness.clone()), "{written:?}");
    let bytes = written.bytes.expect("the writer's bytes");
    assert!(
        bytes.contains("420102"),
        "a CBOR byte string h'0102': {bytes}"
    );
    let read = cbor
        .decode(&[
            request("0.1.0", &json!(null), Some(&bytes)),
            request("0.2.0", &json!(null), Some(&bytes)),
        ])
        .unwrap();
    assert!(
        error(&read[0]).contains("missing field `name`"),
        "{:?}",
        read[0]
    );
    assert_eq!(read[1].value, Some(witness));
    // msgpack-compact: the witness is an array (bytes as numbers); 0.1.0 reads [id, data] as [id, name]
    // and rejects bytes that are no UTF-8.
    let compact = project("msgpack-compact", &scratch);
    let witness = json!([7, [255, 0]]);
    let written = compact
        .decode(&[request("0.2.0", &witness, None)])
        .unwrap()
        .remove(0);
    assert_eq!(written.value, Some(witness), "{written:?}");
    let bytes = written.bytes.expect("the writer's bytes");
    let read = compact
        .decode(&[request("0.1.0", &json!(null), Some(&bytes))])
        .unwrap();
    // From the writer's bytes, a byte string (the witness re-encoded would be an array: "invalid type:
    // sequence").
    assert!(
        error(&read[0]).contains("byte array, expected a string"),
        "{:?}",
        read[0]
    );
    // A witness no release can read is an error, not a panic.
    let bad = compact
        .decode(&[
            request("0.1.0", &json!({"id": "x"}), None),
            request("0.1.0", &json!(null), Some("zz")),
        ])
        .unwrap();
    assert!(
        error(&bad[0]).contains("transcoded by msgpack-compact"),
        "{:?}",
        bad[0]
    );
    assert!(error(&bad[1]).contains("no hex"), "{:?}", bad[1]);
}
