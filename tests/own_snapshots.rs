#![cfg(feature = "checker")]
//! The project's own protocols (the Flux example's and the handshake's) keep their snapshots in
//! `wire-snapshots/` at the workspace root: a clone without tags checks against them. A change on the
//! wire without `wirecheck snapshot --write` fails here, as a forgotten lock file or insta snapshot
//! would.

use std::process::Command;

#[test]
fn the_committed_snapshots_match_the_code() {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecheck"))
        .args(["snapshot", "--check"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("runs wirecheck");
    assert!(
        out.status.success(),
        "wire-snapshots/ is stale: run `cargo run --features checker -- snapshot --write` and review the diff\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
