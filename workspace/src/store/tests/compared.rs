//! Kept comparisons (`store/compared.rs`): read back for the same reads only, compared again when
//! damaged or foreign, never kept by a disabled store.

use super::*;

/// A comparison as the driver keeps one (its fields are `outcome::ProtocolChanges`' but the window, a
/// type of the policy above this crate; `outcome`'s tests read a whole one back): real findings, so
/// the store's JSON round trip covers them; defined here, as the store knows only the [`Comparison`]
/// trait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ProtocolChanges {
    name: String,
    old_version: Option<semver::Version>,
    new_version: Option<semver::Version>,
    findings: Vec<crate::findings::Finding>,
}

impl Comparison for ProtocolChanges {
    fn protocol(&self) -> &str {
        &self.name
    }
}
/// Real findings: `jobs` with its record's field changed from a string to a number (a break with a
/// witness), against `rev`.
fn changes(rev: &str) -> ProtocolChanges {
    let old = full(&sources(false, "pub note: String", "1.2.0"));
    let new = full(&sources(false, "pub note: u32", "1.2.0"));
    let findings = wirecheck_compat::compat::compare_protocol(
        &old,
        &new,
        "jobs",
        rev,
        wirecheck_compat::compat::Scope::Full,
    );
    assert!(
        findings.iter().any(|f| f.witness.is_some()),
        "{findings:#?}"
    );
    ProtocolChanges {
        name: "jobs".to_owned(),
        old_version: Some(semver::Version::new(1, 2, 0)),
        new_version: Some(semver::Version::new(1, 2, 0)),
        findings,
    }
}

/// `store`'s [`Store::compared`] for `reads`, answered by `changes` when it must compare.
fn compared(
    count: &Counter,
    store: &Store,
    reads: &str,
    changes: &ProtocolChanges,
) -> ProtocolChanges {
    store.compared(reads, &changes.name, || {
        count.0.set(count.0.get() + 1);
        changes.clone()
    })
}

/// The files of comparisons kept under `store`.
fn kept_comparisons(store: &Store) -> Vec<PathBuf> {
    let Ok(files) = std::fs::read_dir(store.dir().unwrap().join("compared")) else {
        return Vec::new();
    };
    files.map(|f| f.unwrap().path()).collect()
}

#[test]
fn a_comparison_is_kept_and_read_back_for_the_same_reads_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
    // A new process: from the file.
    assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
    assert_eq!(count.get(), 1);
    assert_eq!(kept_comparisons(&store()).len(), 1);
    // What is read back is what the file holds: not compared again.
    let file = &kept_comparisons(&store())[0];
    let mut edited = jobs.clone();
    edited.findings.truncate(1);
    std::fs::write(file, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(compared(&count, &store(), "reads", &jobs), edited);
    assert_eq!(count.get(), 1);
    // Other reads: compared, and kept apart.
    let other = changes("v1.3.0");
    assert_eq!(compared(&count, &store(), "other reads", &other), other);
    assert_eq!(count.get(), 2);
    assert_eq!(kept_comparisons(&store()).len(), 2);
    assert_eq!(compared(&count, &store(), "reads", &jobs), edited);
}

#[test]
fn a_damaged_or_foreign_comparison_is_compared_again_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = || Store::open(dir.path(), "", &crates());
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    compared(&count, &store(), "reads", &jobs);
    let file = kept_comparisons(&store())[0].clone();
    let whole = std::fs::read(&file).unwrap();
    // Cut short, not JSON, another protocol's.
    let mut foreign = jobs.clone();
    foreign.name = "ctl".to_owned();
    for damage in [
        whole[..whole.len() / 2].to_vec(),
        b"\xff not json".to_vec(),
        serde_json::to_vec(&foreign).unwrap(),
    ] {
        std::fs::write(&file, damage).unwrap();
        let before = count.get();
        assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
        assert_eq!(count.get(), before + 1);
        assert_eq!(std::fs::read(&file).unwrap(), whole, "rewritten");
        assert_eq!(compared(&count, &store(), "reads", &jobs), jobs);
        assert_eq!(count.get(), before + 1, "repaired");
    }
}

#[test]
fn a_disabled_store_compares_every_time() {
    let count = Counter::default();
    let jobs = changes("v1.2.0");
    for _ in 0..2 {
        assert_eq!(compared(&count, &Store::disabled(), "reads", &jobs), jobs);
    }
    assert_eq!(count.get(), 2);
}
