//! Issue 33: the window a release declares is one rule, whoever reads it. Over the Flux history, for every
//! release and every window it could declare (each older release's version as its `min_compatible`, and
//! none: the series), `check` fails on the window exactly when the matrix shows a release inside it that
//! the release cannot talk to, and the handshake accepts exactly the releases inside it.

use std::collections::BTreeSet;

use semver::Version;
use wirecheck::check::{Baseline, BaselineChoice, ProtocolReport, compare_snapshots};
use wirecheck::findings::Level;
use wirecheck::handshake::{Hello, ProtocolVersion, Role, negotiate};
use wirecheck::matrix::{self, Matrix, Revision, Verdict};
use wirecheck::model::{ProtocolDecl, Snapshot};
use wirecheck::rules::RuleId;

use crate::history;

/// `snapshot` with every protocol declaring `min_compatible`.
fn declaring(snapshot: &Snapshot, min_compatible: Option<&Version>) -> Snapshot {
    let mut snapshot = snapshot.clone();
    for protocol in &mut snapshot.protocols {
        protocol.min_compatible = min_compatible.cloned();
    }
    snapshot
}

/// The hello entry of `decl` for a peer on `role`'s side.
fn entry(decl: &ProtocolDecl, role: Role) -> ProtocolVersion {
    let mut entry = ProtocolVersion::new(&decl.name, decl.version.to_string())
        .with_upgrade(decl.upgrade)
        .with_role(role);
    if let Some(min) = &decl.min_compatible {
        entry = entry.with_min_compatible(min.to_string());
    }
    entry
}

/// Whether the handshake accepts a peer of the older release's `old` with one of the newer `new`, the
/// newer on the side the upgrade order upgrades first (so that only the versions decide).
fn accepts(old: &ProtocolDecl, new: &ProtocolDecl) -> bool {
    let first = Role::upgraded_first(new.upgrade).unwrap_or(Role::Server);
    let newer = Hello::new("newer").with_entry(entry(new, first));
    let older = Hello::new("older").with_entry(entry(old, first.counterpart()));
    let verdict = negotiate(&newer, &older).is_ok();
    assert_eq!(
        verdict,
        negotiate(&older, &newer).is_ok(),
        "both ends agree"
    );
    verdict
}

/// Whether `check`'s report of `p` holds its window: no `min_compatible_spans_break`, and no counted
/// major finding against a release inside the window (a new break inside the series' window is left to
/// the version).
fn check_holds_window(p: &ProtocolReport) -> bool {
    let window = p
        .window
        .as_ref()
        .expect("a protocol of the working tree has a window");
    let inside = |tag: &str| window.releases.iter().any(|r| r.tag == tag);
    !p.findings.iter().any(|f| {
        f.rule == RuleId::MinCompatibleSpansBreak
            || (f.counts() && f.level == Level::Major && inside(&f.against))
    })
}

/// Whether the matrix has no breaking pair of the newest revision (`newer`) with a release `inside`.
fn matrix_holds_window(matrix: &Matrix, name: &str, newer: usize, inside: &[usize]) -> bool {
    let protocol = matrix.protocols.iter().find(|p| p.name == name).unwrap();
    inside.iter().all(|&older| {
        let pair = protocol.pair(older, newer).expect("both declare it");
        pair.verdict != Verdict::Breaking
    })
}

#[test]
fn the_matrix_and_the_handshake_agree_with_check_on_every_window_of_the_history() {
    let releases = history::snapshots(&history::history_dir()).unwrap();
    let revisions: Vec<(Revision, Snapshot)> = releases
        .iter()
        .map(|(step, snapshot)| {
            let revision = Revision {
                label: step.tag.clone(),
                commit: None,
            };
            (revision, snapshot.clone())
        })
        .collect();
    let matrix = matrix::compute(&revisions);
    let mut windows = 0;
    let mut refused = 0;
    for newest in 1..releases.len() {
        let (step, snapshot) = &releases[newest];
        let (base_step, base) = &releases[newest - 1];
        let baseline = Baseline::new(&base_step.tag, "", BaselineChoice::LastRelease);
        let older: Vec<(String, Snapshot)> = releases[..newest - 1]
            .iter()
            .map(|(step, snapshot)| (step.tag.clone(), snapshot.clone()))
            .collect();
        let minima: BTreeSet<Version> = releases[..=newest]
            .iter()
            .map(|(step, _)| step.version().unwrap())
            .collect();
        for minimum in minima.iter().map(Some).chain([None]) {
            let current = declaring(snapshot, minimum);
            let report = compare_snapshots(&baseline, base, &older, &current);
            for p in report.protocols.iter().filter(|p| p.new_version.is_some()) {
                let new = current.protocol(&p.name).unwrap();
                let window = p.window.as_ref().unwrap();
                let mut inside = Vec::new();
                for (at, (older_step, older_snapshot)) in releases[..newest].iter().enumerate() {
                    let Some(old) = older_snapshot.protocol(&p.name) else {
                        continue;
                    };
                    let accepted = accepts(old, new);
                    let listed = window.releases.iter().any(|r| r.tag == older_step.tag);
                    assert_eq!(
                        accepted, listed,
                        "{} with min_compatible {minimum:?}, {}: the handshake and the check's window",
                        step.tag, older_step.tag
                    );
                    if accepted {
                        inside.push(at);
                    }
                }
                let by_check = check_holds_window(p);
                let by_matrix = matrix_holds_window(&matrix, &p.name, newest, &inside);
                assert_eq!(
                    by_check, by_matrix,
                    "{} {} with min_compatible {minimum:?}: check and matrix disagree\n{:#?}",
                    step.tag, p.name, p.findings
                );
                windows += 1;
                refused += usize::from(!by_check);
            }
        }
    }
    // Both verdicts occur: the comparison is not vacuous.
    assert!(
        windows > 1000 && refused > 100,
        "{windows} windows, {refused} refused"
    );
}
