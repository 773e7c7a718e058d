//! `wirecheck check --against-registry [VERSION]`, offline: the published releases are a vendored
//! directory source made by the test (`.cargo/config.toml` replaces crates.io with it, as `cargo vendor`
//! sets up), holding the Flux history's crate at two versions; the same releases are tagged in the
//! repository, so the registry baseline must give the verdicts of the tag.
#![cfg(feature = "checker")]

mod support;

use std::path::Path;

use serde_json::Value;
use support::flux::{wirecheck, write_release};
use support::git;

const MANIFEST: &str = "[package]\nname = \"flux-history\"\nversion = \"@VERSION@\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

/// Publishes the history's `sources` as `flux-history` `version` into the directory source `vendor`.
fn publish(vendor: &Path, sources: &str, version: &str) {
    let dir = vendor.join(format!("flux-history-{version}"));
    write_release(&dir, sources, version);
    std::fs::write(
        dir.join("Cargo.toml"),
        MANIFEST.replace("@VERSION@", version),
    )
    .unwrap();
    std::fs::write(dir.join(".cargo-checksum.json"), "{\"files\":{}}").unwrap();
}

/// A repository whose releases v0.86.0 and v0.87.0 are tagged and published, with v0.88.0's sources
/// in the working tree.
fn published_history(root: &Path) -> std::path::PathBuf {
    let vendor = root.join("vendor");
    publish(&vendor, "v0.66.0", "0.86.0");
    publish(&vendor, "v0.70.0", "0.87.0");
    let dir = root.join("flux");
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    let config = format!(
        "[source.crates-io]\nreplace-with = \"published\"\n\n[source.published]\ndirectory = \"{}\"\n",
        vendor.display()
    );
    std::fs::write(dir.join(".cargo/config.toml"), config).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(&dir, &["init", "-q"]);
    for (sources, version) in [("v0.66.0", "0.86.0"), ("v0.70.0", "0.87.0")] {
        write_release(&dir, sources, version);
        let manifest = MANIFEST.replace("@VERSION@", version) + "\n[workspace]\n";
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", version]);
        git(&dir, &["tag", &format!("v{version}")]);
    }
    write_release(&dir, "v0.88.0", "0.88.0");
    let manifest = MANIFEST.replace("@VERSION@", "0.88.0") + "\n[workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    dir
}

fn check_json(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["check", "--format", "json"];
    args.extend(extra);
    let out = wirecheck(dir, &args);
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "wirecheck {args:?} exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, serde_json::from_slice(&out.stdout).unwrap())
}

/// What a check decided, without the names of what it compared against.
fn verdicts(report: &Value) -> Value {
    let protocols: Vec<Value> = report["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let findings: Vec<Value> = (p["findings"].as_array().unwrap().iter())
                .map(|f| {
                    let mut f = f.clone();
                    for key in ["against", "message", "anchor"] {
                        f.as_object_mut().unwrap().remove(key);
                    }
                    f
                })
                .collect();
            serde_json::json!({
                "name": p["name"], "old_version": p["old_version"], "new_version": p["new_version"],
                "required_bump": p["required_bump"], "ok": p["ok"], "findings": findings,
            })
        })
        .collect();
    serde_json::json!({"ok": report["ok"], "protocols": protocols})
}

#[test]
fn the_published_crate_is_the_baseline_its_tag_would_be() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = published_history(tmp.path());

    // The highest published version below the workspace's own 0.88.0: 0.87.0.
    let (code, report) = check_json(&dir, &["--against-registry"]);
    assert_eq!(report["baseline"]["chosen"], "registry", "{report:#}");
    assert_eq!(report["baseline"]["rev"], "registry: flux-history 0.87.0");
    assert!(report["baseline"]["commit"].is_null());
    let used = report["baseline"]["snapshots"].as_array().unwrap();
    assert!(
        used.iter().all(|s| s["registry"] == "flux-history 0.87.0"),
        "{used:?}"
    );
    let notes = report["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("published flux-history 0.87.0"),
        "{notes:?}"
    );
    let (tag_code, tag) = check_json(&dir, &["--against", "v0.87.0", "--baseline-only"]);
    assert_eq!(code, tag_code);
    assert_eq!(verdicts(&report), verdicts(&tag));
    let findings = (report["protocols"].as_array().unwrap().iter())
        .flat_map(|p| p["findings"].as_array().unwrap())
        .count();
    assert!(
        findings > 0,
        "0.87.0 and 0.88.0 differ on the wire: {report:#}"
    );

    // A version named.
    let (code, report) = check_json(&dir, &["--against-registry", "0.86.0"]);
    assert_eq!(report["baseline"]["rev"], "registry: flux-history 0.86.0");
    let (tag_code, tag) = check_json(&dir, &["--against", "v0.86.0", "--baseline-only"]);
    assert_eq!(code, tag_code);
    assert_eq!(verdicts(&report), verdicts(&tag));

    // A version never published, and one that is no version: exit 2, saying what to do.
    let out = wirecheck(&dir, &["check", "--against-registry", "0.50.0"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cargo could not fetch `flux-history` =0.50.0"),
        "{stderr}"
    );
    let out = wirecheck(&dir, &["check", "--against-registry", "latest"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a version"), "{stderr}");
}
