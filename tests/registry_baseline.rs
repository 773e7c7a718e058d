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
use support::verdicts::verdicts;

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

/// A package `name` `version` of the directory source `vendor`, with `dependencies` (a TOML table's
/// lines) and `lib` as its `src/lib.rs`; no `Cargo.lock`, as most published libraries.
fn vendor_package(vendor: &Path, (name, version): (&str, &str), dependencies: &str, lib: &str) {
    let dir = vendor.join(format!("{name}-{version}"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n{dependencies}"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    std::fs::write(dir.join(".cargo-checksum.json"), "{\"files\":{}}").unwrap();
}

/// `wire-types`' `Thing` at 1.0.0 (one field) and 1.1.0 (a second, required: a 1.1.0 reader rejects
/// what 1.0.0 writes).
const THING_1_0: &str =
    "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Thing {\n    pub a: u32,\n}\n";
const THING_1_1: &str = "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Thing {\n    pub a: u32,\n    pub b: u32,\n}\n";

/// The protocol crate's source at `version`: one request whose field is a `wire_types::Thing`.
fn jobs_lib(version: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n#[derive(Protocol)]\n#[wire(name = \"jobs\", version = \"{version}\")]\npub struct Jobs;\n\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Jobs, topic = \"jobs.submit\", kind = \"request\")]\npub struct Submit {{\n    pub thing: wire_types::Thing,\n}}\n"
    )
}

/// A repository whose `jobs` 0.1.0 is published without a `Cargo.lock` (its users get `wire-types`
/// 1.1.0, the highest matching `1`) and whose working tree, `jobs` 0.1.1 with the same sources, pins
/// `wire-types` at `requirement`, locked by cargo.
fn unlocked_release(root: &Path, requirement: &str) -> std::path::PathBuf {
    release_locked(root, requirement, None)
}

/// [`unlocked_release`], `jobs` 0.1.0 publishing `lock` as its `Cargo.lock` when given.
fn release_locked(root: &Path, requirement: &str, lock: Option<&str>) -> std::path::PathBuf {
    let vendor = root.join("vendor");
    vendor_package(&vendor, ("wire-types", "1.0.0"), "", THING_1_0);
    vendor_package(&vendor, ("wire-types", "1.1.0"), "", THING_1_1);
    vendor_package(&vendor, ("serde", "1.0.0"), "", "");
    let dependencies = "wire-types = \"1\"\nserde = \"1\"\n";
    vendor_package(&vendor, ("jobs", "0.1.0"), dependencies, &jobs_lib("0.1.0"));
    if let Some(lock) = lock {
        std::fs::write(vendor.join("jobs-0.1.0/Cargo.lock"), lock).unwrap();
    }
    let dir = root.join("work");
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let config = format!(
        "[source.crates-io]\nreplace-with = \"published\"\n\n[source.published]\ndirectory = \"{}\"\n",
        vendor.display()
    );
    std::fs::write(dir.join(".cargo/config.toml"), config).unwrap();
    let manifest = format!(
        "[package]\nname = \"jobs\"\nversion = \"0.1.1\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\nwire-types = \"{requirement}\"\nserde = \"1\"\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), jobs_lib("0.1.1")).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(&dir, &["init", "-q"]);
    let lock = std::process::Command::new(env!("CARGO"))
        .args(["generate-lockfile", "--offline"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(lock.status.success(), "{lock:?}");
    dir
}

/// The findings of a report, as `rule` and `path`.
fn findings(report: &Value) -> Vec<(String, String)> {
    (report["protocols"].as_array().unwrap().iter())
        .flat_map(|p| p["findings"].as_array().unwrap())
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["wire_path"].to_string(),
            )
        })
        .collect()
}

#[test]
fn a_published_crate_without_a_lock_is_read_with_the_versions_its_users_get() {
    // The working tree locks the same 1.1.0 its users of 0.1.0 get: nothing changed on the wire.
    let tmp = tempfile::tempdir().unwrap();
    let dir = unlocked_release(tmp.path(), "1.1.0");
    let (code, report) = check_json(&dir, &["--against-registry"]);
    assert_eq!(report["baseline"]["rev"], "registry: jobs 0.1.0");
    assert_eq!(findings(&report), [], "{report:#}");
    assert_eq!(code, 0, "{report:#}");

    // The working tree pins 1.0.0: `Thing` lost its required `b`, which readers of 0.1.0 (with 1.1.0)
    // reject: a break in a patch release.
    let tmp = tempfile::tempdir().unwrap();
    let dir = unlocked_release(tmp.path(), "=1.0.0");
    let (code, report) = check_json(&dir, &["--against-registry"]);
    let found = findings(&report);
    assert!(
        found
            .iter()
            .any(|(rule, path)| rule == "field_removed" && path.contains("thing")),
        "{report:#}"
    );
    assert_eq!(code, 1, "{report:#}");

    // Its own published lock, pinning 1.0.0 as the working tree does, is read before cargo's.
    let tmp = tempfile::tempdir().unwrap();
    let dir = release_locked(tmp.path(), "=1.0.0", Some(PUBLISHED_LOCK));
    let (code, report) = check_json(&dir, &["--against-registry"]);
    assert_eq!(findings(&report), [], "{report:#}");
    assert_eq!(code, 0, "{report:#}");
}

/// `jobs` 0.1.0's own lock, pinning `wire-types` 1.0.0.
const PUBLISHED_LOCK: &str = r#"version = 4

[[package]]
name = "jobs"
version = "0.1.0"
dependencies = [
 "serde",
 "wire-types",
]

[[package]]
name = "serde"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "wire-types"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

#[test]
fn a_patch_in_the_cargo_configuration_is_the_published_package_every_build_takes() {
    // `[patch.crates-io]` in the repository's .cargo/config.toml gives every build of it (and cargo's
    // probe) the patched 0.87.0, here holding the sources of 0.86.0: the baseline is what cargo takes.
    let tmp = tempfile::tempdir().unwrap();
    let dir = published_history(tmp.path());
    let (_, published) = check_json(&dir, &["--against-registry", "0.87.0"]);
    let patched = tmp.path().join("patched");
    publish(&patched, "v0.66.0", "0.87.0");
    let config = dir.join(".cargo/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    let path = patched.join("flux-history-0.87.0");
    text.push_str(&format!(
        "\n[patch.crates-io]\nflux-history = {{ path = \"{}\" }}\n",
        path.display()
    ));
    std::fs::write(&config, text).unwrap();
    let (_, report) = check_json(&dir, &["--against-registry", "0.87.0"]);
    assert_eq!(report["baseline"]["rev"], "registry: flux-history 0.87.0");
    let used = report["baseline"]["snapshots"].as_array().unwrap();
    let manifest = path.join("Cargo.toml").display().to_string();
    assert!(
        used.iter().all(|s| s["file"] == manifest.as_str()),
        "{used:?}"
    );
    // The patched sources are 0.86.0's: the findings of the tag v0.86.0, not of the published 0.87.0.
    let (_, tag) = check_json(&dir, &["--against", "v0.86.0", "--baseline-only"]);
    assert_eq!(findings(&report), findings(&tag));
    assert_ne!(findings(&report), findings(&published));
}
