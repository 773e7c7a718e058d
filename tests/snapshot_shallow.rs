//! Committed snapshots (`wirecheck snapshot --write`) as the baseline of a clone without tags: the whole
//! Flux history (`examples/flux-protocols/history/steps.toml`) is replayed into a scratch repository, each
//! release committing its snapshots; at every release, a depth-1 clone without tags must give the verdicts
//! a full clone gives. Then `snapshot --check` and `check --against-snapshot` on the same history.
#![cfg(feature = "checker")]

mod support;

use std::path::Path;

use serde_json::Value;
use support::flux::{flux_history, wirecheck};
use support::git;

/// What a check decided, without the names of what it compared against (a tag, a snapshot): per
/// protocol the versions, the bump and the verdict, and each finding's rule, level, place, direction and
/// witness.
fn verdicts(report: &Value) -> Value {
    let keep = |finding: &Value| {
        let mut finding = finding.clone();
        let map = finding.as_object_mut().unwrap();
        for name in ["against", "message", "anchor"] {
            map.remove(name);
        }
        finding
    };
    let protocols: Vec<Value> = report["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let findings: Vec<Value> = p["findings"].as_array().unwrap().iter().map(keep).collect();
            serde_json::json!({
                "name": p["name"], "old_version": p["old_version"], "new_version": p["new_version"],
                "required_bump": p["required_bump"], "required_version": p["required_version"],
                "ok": p["ok"], "findings": findings,
            })
        })
        .collect();
    serde_json::json!({"ok": report["ok"], "protocols": protocols})
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

/// A depth-1 clone without tags of `repo` at `tag`, in `into`.
fn shallow_clone(repo: &Path, tag: &str, into: &Path) {
    let url = format!("file://{}", repo.display());
    let into = into.to_str().unwrap();
    let args = [
        "clone",
        "-q",
        "--depth",
        "1",
        "--no-tags",
        "--branch",
        tag,
        &url,
        into,
    ];
    git(repo, &args);
}

#[test]
fn a_shallow_clone_without_tags_gives_the_verdicts_of_a_full_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, tags) = flux_history(tmp.path());
    for tag in tags.iter().skip(1) {
        git(&dir, &["checkout", "-q", tag]);
        let (full_code, full) = check_json(&dir, &[]);
        assert_eq!(full["baseline"]["chosen"], "previous_release", "{tag}");

        let shallow = tmp.path().join(format!("shallow-{tag}"));
        shallow_clone(&dir, tag, &shallow);
        let (code, report) = check_json(&shallow, &[]);
        assert_eq!(
            report["baseline"]["chosen"], "snapshot",
            "{tag}: {report:#}"
        );
        assert!(report["baseline"]["commit"].is_null());
        let used = report["baseline"]["snapshots"].as_array().unwrap();
        assert!(!used.is_empty(), "{tag}: names the snapshots it read");
        let statement = report["notes"].as_array().unwrap()[0].as_str().unwrap();
        assert!(
            statement.contains("committed wire snapshots"),
            "{statement}"
        );

        assert_eq!(code, full_code, "{tag}");
        assert_eq!(verdicts(&report), verdicts(&full), "{tag}");
        let _ = std::fs::remove_dir_all(&shallow);
    }
}

#[test]
fn snapshot_check_fails_on_a_forgotten_update_and_against_snapshot_compares_with_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, tags) = flux_history(tmp.path());
    let last = tags.last().unwrap();
    let shallow = tmp.path().join("shallow");
    shallow_clone(&dir, last, &shallow);

    let out = wirecheck(&shallow, &["snapshot", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    // Lines moved, the wire did not: not a failure, but said.
    let sched = shallow.join("src/sched.rs");
    let text = std::fs::read_to_string(&sched).unwrap();
    std::fs::write(&sched, format!("// moved\n{text}")).unwrap();
    let out = wirecheck(&shallow, &["snapshot", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("moved wire-snapshots/sched/0.88.0.json"),
        "{stdout}"
    );
    std::fs::write(&sched, &text).unwrap();

    // A wire change left out of the snapshot: `--check` says so and what to run.
    let sched = shallow.join("src/sched.rs");
    let text = std::fs::read_to_string(&sched).unwrap();
    let changed = text.replacen(
        "pub struct FreeRequest {",
        "pub struct FreeRequest {\n    pub added: u64,",
        1,
    );
    assert_ne!(
        changed, text,
        "the history's FreeRequest is where the test expects it"
    );
    std::fs::write(&sched, changed).unwrap();
    let out = wirecheck(&shallow, &["snapshot", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("stale wire-snapshots/sched/0.88.0.json"),
        "{stdout}"
    );
    assert!(
        stderr.contains("run `wirecheck snapshot --write`"),
        "{stderr}"
    );

    // The check of that change against the committed snapshot of 0.88.0: a major change, not paid for.
    let (code, report) = check_json(&shallow, &[]);
    assert_eq!(code, 1, "{report:#}");
    let sched = report["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "sched")
        .unwrap();
    assert_eq!(sched["old_version"], "0.88.0");
    assert_eq!(sched["required_bump"], "major");
    assert!(
        sched["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "required_field_added")
    );

    // The same, against a file named on the command line, from another directory.
    let named = tmp.path().join("sched-0.88.0.json");
    std::fs::copy(shallow.join("wire-snapshots/sched/0.88.0.json"), &named).unwrap();
    let (code, report) = check_json(
        &shallow,
        &[
            "--against-snapshot",
            named.to_str().unwrap(),
            "-p",
            "flux-history",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(report["baseline"]["chosen"], "against_snapshot");
    let names: Vec<&str> = report["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"sched"), "{names:?}");

    // A committed snapshot that does not read: exit 2, naming it and what to do.
    let broken = shallow.join("wire-snapshots/sched/0.14.0.json");
    std::fs::write(&broken, "{\"format_version\": 1").unwrap();
    let out = wirecheck(&shallow, &["check"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0.14.0.json is not a wirecheck snapshot"),
        "{stderr}"
    );

    // --write on a released version's file (the tag is here) keeps it, and says to bump.
    let full_sched = dir.join("src/sched.rs");
    git(&dir, &["checkout", "-q", "main"]);
    std::fs::copy(shallow.join("src/sched.rs"), &full_sched).unwrap();
    let before = std::fs::read(dir.join("wire-snapshots/sched/0.88.0.json")).unwrap();
    let out = wirecheck(&dir, &["snapshot", "--write"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("kept wire-snapshots/sched/0.88.0.json (released in v0.88.0"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(dir.join("wire-snapshots/sched/0.88.0.json")).unwrap(),
        before
    );
}
