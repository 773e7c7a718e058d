//! Extraction at git revisions read through [`Repo`]: what the source cache reuses between commits.
//! Here rather than in `extract`, which knows nothing of git: these tests join the two.

use super::Repo;
use crate::extract::{CrateRoot, SourceCache, extract, extract_cached};
use crate::model::{Body, Field, Snapshot};

const HEADER: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.2.3\", min_compatible = \"1.0.0\", upgrade = \"server-first\", format = \"postcard\")]\npub struct P;\n";

fn fields(snapshot: &Snapshot, path: &str) -> Vec<Field> {
    match &snapshot.types[path].body {
        Body::Struct { fields, .. } => fields.clone(),
        other => panic!("{path} is not a struct: {other:?}"),
    }
}

fn demo_root() -> Vec<CrateRoot> {
    vec![CrateRoot {
        name: "demo".into(),
        root_file: "src/lib.rs".into(),
    }]
}

/// Commits `files` (path, text) to the repository at `dir` as a new commit on HEAD; returns its id.
fn commit(repo: &git2::Repository, files: &[(&str, &str)]) -> String {
    let mut index = repo.index().unwrap();
    index.clear().unwrap();
    for (path, text) in files {
        let full = repo.workdir().unwrap().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
        index.add_path(std::path::Path::new(path)).unwrap();
    }
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(1, 0)).unwrap();
    let parents: Vec<git2::Commit<'_>> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, "c", &tree, &parents)
        .unwrap()
        .to_string()
}

#[test]
fn module_subtrees_of_unchanged_directories_are_reused_across_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let git = git2::Repository::init(tmp.path()).unwrap();
    let lib = format!("{HEADER}\nmod a;\nmod b;\n");
    let a_mod = "mod x;\nmod y;\n";
    let x = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.x\", kind = \"record\")]\npub struct X { pub y: super::y::Y }\n";
    let b_mod = "mod z;\n";
    let z = |n: u8| format!("pub struct Z{n};\nmod missing;\n");
    let (z1, z2) = (z(1), z(2));
    let first = commit(
        &git,
        &[
            ("src/lib.rs", &lib),
            ("src/a/mod.rs", a_mod),
            ("src/a/x.rs", x),
            ("src/a/y.rs", "pub struct Y { pub v: Vec<u8> }\n"),
            ("src/b/mod.rs", b_mod),
            ("src/b/z.rs", &z1),
        ],
    );
    let second = commit(
        &git,
        &[
            ("src/lib.rs", &lib),
            ("src/a/mod.rs", a_mod),
            ("src/a/x.rs", x),
            ("src/a/y.rs", "pub struct Y { pub v: Vec<u8> }\n"),
            ("src/b/mod.rs", b_mod),
            ("src/b/z.rs", &z2),
        ],
    );
    let repo = Repo::discover(tmp.path()).unwrap();
    let cache = SourceCache::new();
    let at_second = extract_cached(&demo_root(), &repo.at(&second).unwrap(), &cache).unwrap();
    assert_eq!(cache.stats().nodes_reused, 0);
    let at_first = extract_cached(&demo_root(), &repo.at(&first).unwrap(), &cache).unwrap();
    // `src/a` is the same tree in both commits: its subtree is reused, its files not looked up again.
    assert_eq!(cache.stats().nodes_reused, 1, "{:?}", cache.stats());
    let fresh = |commit: &str| extract(&demo_root(), &repo.at(commit).unwrap()).unwrap();
    assert_eq!(at_first, fresh(&first));
    assert_eq!(at_second, fresh(&second));
    assert!(at_first.types.contains_key("demo::a::y::Y"));
    assert!(
        at_first
            .notes
            .iter()
            .any(|n| n.message.contains("module `missing` has no file")
                && n.location.file == "src/b/z.rs"),
        "{:?}",
        at_first.notes
    );
}

#[cfg(unix)]
#[test]
fn a_directory_with_a_symlink_is_not_reused_when_the_target_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let git = git2::Repository::init(tmp.path()).unwrap();
    let lib = format!("{HEADER}\nmod a;\n");
    let x = |n: &str| {
        format!(
            "use serde::{{Deserialize, Serialize}};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.x\", kind = \"event\")]\npub struct X {{ pub {n}: u8 }}\n"
        )
    };
    std::fs::create_dir_all(tmp.path().join("src/a")).unwrap();
    std::os::unix::fs::symlink("../../shared/x.rs", tmp.path().join("src/a/x.rs")).unwrap();
    let files = |x: &str| -> Vec<(String, String)> {
        vec![
            ("src/lib.rs".into(), lib.clone()),
            ("src/a/mod.rs".into(), "mod x;\n".into()),
            ("shared/x.rs".into(), x.to_owned()),
        ]
    };
    let mut commits = Vec::new();
    for field in ["old", "new"] {
        let files = files(&x(field));
        let mut list: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        commit(&git, &list);
        // The symlink itself (`commit` writes regular files; the link stays as it is).
        let mut index = git.index().unwrap();
        index.add_path(std::path::Path::new("src/a/x.rs")).unwrap();
        list.clear();
        let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(1, 0)).unwrap();
        let head = git.head().unwrap().peel_to_commit().unwrap();
        let id = git
            .commit(Some("HEAD"), &sig, &sig, "link", &tree, &[&head])
            .unwrap();
        commits.push(id.to_string());
    }
    let repo = Repo::discover(tmp.path()).unwrap();
    let cache = SourceCache::new();
    for commit in commits.iter().rev() {
        let cached = extract_cached(&demo_root(), &repo.at(commit).unwrap(), &cache).unwrap();
        let fresh = extract(&demo_root(), &repo.at(commit).unwrap()).unwrap();
        assert_eq!(cached, fresh);
    }
    let old = extract_cached(&demo_root(), &repo.at(&commits[0]).unwrap(), &cache).unwrap();
    assert_eq!(fields(&old, "demo::a::x::X")[0].rust_name, "old");
}
