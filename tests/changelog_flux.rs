//! `wirecheck changelog` on the Flux history (`examples/flux-protocols/history/`): the release notes of
//! every release since the first, as a reviewed snapshot, their JSON form, and the same section at the
//! end of the HTML matrix.
#![cfg(feature = "checker")]

mod support;

use serde_json::Value;
use support::flux::{flux_history, wirecheck};

#[test]
fn the_flux_history_as_release_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, tags) = flux_history(tmp.path());

    let out = wirecheck(&dir, &["changelog", "--since", "v0.14.0"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let markdown = String::from_utf8(out.stdout).unwrap();
    insta::assert_snapshot!("flux_changelog", markdown);

    let out = wirecheck(
        &dir,
        &["changelog", "--since", "v0.14.0", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["since"], "v0.14.0");
    let releases = json["releases"].as_array().unwrap();
    // Every tag after the first, newest first; the working tree is the last release: not listed.
    let listed: Vec<&str> = releases
        .iter()
        .map(|r| r["release"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = tags.iter().skip(1).map(String::as_str).collect();
    expected.reverse();
    assert_eq!(listed, expected);
    for (release, previous) in releases.iter().zip(releases.iter().skip(1)) {
        assert_eq!(release["previous"], previous["release"]);
    }
    let rollouts: std::collections::BTreeSet<&str> = releases
        .iter()
        .flat_map(|r| r["protocols"].as_array().unwrap())
        .map(|p| p["rollout"].as_str().unwrap())
        .collect();
    assert!(
        rollouts.contains("any_order") && rollouts.contains("restart_together"),
        "{rollouts:?}"
    );

    // The HTML matrix of the last three releases ends with their changelog.
    let out = wirecheck(&dir, &["matrix", "--releases", "3", "--format", "html"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let html = String::from_utf8(out.stdout).unwrap();
    let section = &html[html
        .find("<h2 id=\"changelog\">Wire changelog</h2>")
        .expect("the section")..];
    let last = tags.last().unwrap();
    assert!(section.contains(&format!("<h3>{last}</h3>")), "{section}");
    assert!(section.contains("Rollout:"), "{section}");

    // A tag that is not a release before HEAD: exit 2, saying what to do.
    let out = wirecheck(&dir, &["changelog", "--since", "v9.9.9"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no release tag `v9.9.9`"), "{stderr}");
}
