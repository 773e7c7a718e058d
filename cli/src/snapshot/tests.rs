use super::*;
use crate::extract::snapshot_from_sources;

/// A protocol `svc` at `version` with a request `Run`, written after `blank` lines.
fn model(version: &str, field: &str, blank: &str) -> Snapshot {
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};
{blank}
#[derive(Protocol)]
#[wire(name = \"svc\", version = \"{version}\")]
pub struct Svc;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Svc, topic = \"svc.run\", kind = \"request\")]
pub struct Run {{ pub id: u64, {field} }}
"
    );
    snapshot_from_sources("demo", &[("src/lib.rs", lib.as_str())]).unwrap()
}

fn file(version: &str, field: &str, blank: &str) -> SnapshotFile {
    let model = model(version, field, blank);
    SnapshotFile::of(&model, &model.protocols[0])
}

#[test]
fn a_file_reads_back_as_written() {
    let written = file("0.1.0", "", "");
    let text = written.to_text();
    assert!(text.starts_with("{\n  \"format_version\": 1,\n  \"protocol\": \"svc\",\n"));
    assert!(text.ends_with("}\n"));
    let read = SnapshotFile::parse(&text, "svc.json").unwrap();
    assert_eq!(read, written);
    assert_eq!(read.to_text(), text, "stable bytes");
}

#[test]
fn only_the_wire_counts_not_where_it_is_written() {
    let base = file("0.1.0", "", "");
    assert!(base.same_wire(&file("0.1.0", "", "\n\n// moved\n")));
    assert_ne!(base.to_text(), file("0.1.0", "", "\n\n").to_text());
    assert!(!base.same_wire(&file("0.1.0", "pub note: String,", "")));
    assert!(!base.same_wire(&file("0.1.1", "", "")));
}

#[test]
fn bad_files_are_refused_with_what_to_do() {
    let text = file("0.1.0", "", "").to_text();
    let newer = text.replace("\"format_version\": 1", "\"format_version\": 2");
    let error = SnapshotFile::parse(&newer, "f.json")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("format_version 2") && error.contains("update wirecheck"),
        "{error}"
    );
    for bad in ["", "{}", "[1]", "{\"format_version\": 1}"] {
        let error = SnapshotFile::parse(bad, "f.json").unwrap_err().to_string();
        assert!(
            error.contains("f.json is not a wirecheck snapshot"),
            "{bad}: {error}"
        );
        assert!(error.contains("wirecheck snapshot --write"), "{error}");
    }
    // A model that does not declare the protocol and version the file names.
    let other = text.replacen("\"version\": \"0.1.0\"", "\"version\": \"0.2.0\"", 1);
    let error = SnapshotFile::parse(&other, "f.json")
        .unwrap_err()
        .to_string();
    assert!(error.contains("does not declare `svc` 0.2.0"), "{error}");
}

#[test]
fn a_protocol_name_that_is_no_folder_name_is_refused() {
    let version = Version::new(0, 1, 0);
    assert_eq!(
        relative_path("sched", &version).unwrap(),
        "wire-snapshots/sched/0.1.0.json"
    );
    for bad in ["a/b", "a\\b", "..", ".hidden", ""] {
        assert!(relative_path(bad, &version).is_err(), "{bad}");
    }
}
