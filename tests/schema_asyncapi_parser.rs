#![cfg(feature = "checker")]
//! Every AsyncAPI document `wirecheck schema --format asyncapi` writes for the project's own protocols
//! (the Flux example's and the handshake's), parsed by the AsyncAPI parser itself
//! (`@asyncapi/parser`, run by node): it resolves every `$ref` from the document's root and runs the
//! spec's semantic rules, which validating the document against the spec's JSON Schema
//! (`tests/schema_flux.rs`) does not.
//!
//! The parser is installed by `.ci/run` (`npm install --prefix target/asyncapi-parser
//! @asyncapi/parser@3.6.6`); where node or the parser is absent, the test says so and checks nothing
//! else (the tests run offline).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `.ci/run` installs the parser (`ASYNCAPI_PARSER_DIR` overrides it).
fn parser_dir() -> PathBuf {
    std::env::var_os("ASYNCAPI_PARSER_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/asyncapi-parser"),
        PathBuf::from,
    )
}

#[test]
fn the_asyncapi_parser_accepts_every_document_of_the_project() {
    let dir = parser_dir();
    if !dir
        .join("node_modules/@asyncapi/parser/package.json")
        .exists()
    {
        eprintln!(
            "skipped: no @asyncapi/parser under {} (.ci/run installs it: npm install --prefix target/asyncapi-parser @asyncapi/parser@3.6.6)",
            dir.display()
        );
        return;
    }
    let Ok(node) = Command::new("node").arg("--version").output() else {
        eprintln!("skipped: node cannot be started");
        return;
    };
    assert!(node.status.success(), "node --version failed");
    let out_dir = tempfile::tempdir().expect("a temporary directory");
    let mut files = Vec::new();
    for protocol in [
        "sched",
        "exec",
        "job-eventlog",
        "exec-eventlog",
        "wirecheck-hello",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
            .args(["schema", "--format", "asyncapi", "--protocol", protocol])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .expect("runs wirecheck");
        assert!(
            out.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let file = out_dir.path().join(format!("{protocol}.json"));
        std::fs::write(&file, &out.stdout).expect("writes the document");
        files.push(file);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/asyncapi/parse.cjs");
    let parsed = Command::new("node")
        .arg(&script)
        .arg(&dir)
        .args(&files)
        .output()
        .expect("runs node");
    assert!(
        parsed.status.success(),
        "the AsyncAPI parser rejects a document:\n{}{}",
        String::from_utf8_lossy(&parsed.stdout),
        String::from_utf8_lossy(&parsed.stderr)
    );
}
