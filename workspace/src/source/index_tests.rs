//! The working tree through the git index: which files and directories get their ids from it.

use std::path::Path;
use std::process::Command;

use super::{Repo, WorkTree};
use crate::extract::{CrateRoot, DirId, FileReader, SourceCache, extract_cached};

/// Runs `git ARGS` in `dir` with a fixed identity (the workspace tests use it too).
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `text` at `path` under `dir`, creating its directories.
pub fn write(dir: &Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\", upgrade = \"server-first\", format = \"json\")]\npub struct P;\nmod a;\n";
const A: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.a\", kind = \"record\")]\npub struct A { pub x: u32 }\n";

/// A repository with `src/lib.rs` and `src/a.rs` committed; returns the HEAD tree's ids of
/// `src/lib.rs` and `src`.
fn repository(dir: &Path) -> (git2::Oid, git2::Oid) {
    write(dir, "src/lib.rs", LIB);
    write(dir, "src/a.rs", A);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "c"]);
    let repo = git2::Repository::open(dir).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let id = |path: &str| tree.get_path(Path::new(path)).unwrap().id();
    (id("src/lib.rs"), id("src"))
}

/// A fresh reader (what one run sees).
fn reader(dir: &Path) -> (Repo, impl Fn(&Repo) -> WorkTree) {
    let dir = dir.to_path_buf();
    (Repo::discover(&dir).unwrap(), move |repo: &Repo| {
        WorkTree::with_index(&dir, repo)
    })
}

#[test]
fn unchanged_files_and_directories_take_their_ids_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (lib, src) = repository(tmp.path());
    let (repo, open) = reader(tmp.path());
    let tree = open(&repo);
    assert_eq!(tree.blob_id("src/lib.rs").unwrap(), Some(lib));
    assert_eq!(tree.dir_id("src").unwrap(), DirId::Tree(src));
    assert_eq!(tree.dir_id("nowhere").unwrap(), DirId::Missing);
    // Without an index, nothing is known.
    assert_eq!(
        WorkTree::new(tmp.path()).blob_id("src/lib.rs").unwrap(),
        None
    );
}

#[test]
fn a_file_rewritten_with_the_same_size_and_time_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path());
    let path = tmp.path().join("src/a.rs");
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, A.replace("u32", "i32")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let (repo, open) = reader(tmp.path());
    let tree = open(&repo);
    assert_eq!(
        tree.blob_id("src/a.rs").unwrap(),
        None,
        "the change time differs"
    );
    assert_eq!(tree.dir_id("src").unwrap(), DirId::Unknown);
}

#[test]
fn a_racily_clean_entry_is_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path());
    // The index written in the same instant as the file was last modified: the file may have changed
    // after git recorded it, within the same clock tick.
    let modified = std::fs::metadata(tmp.path().join("src/a.rs"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::File::options()
        .write(true)
        .open(tmp.path().join(".git/index"))
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let (repo, open) = reader(tmp.path());
    let tree = open(&repo);
    assert_eq!(tree.blob_id("src/a.rs").unwrap(), None);
}

#[test]
fn untracked_files_symlinks_and_filters_are_not_taken_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path());
    write(tmp.path(), "src/a/mod.rs", "pub struct Shadow;\n");
    let (repo, open) = reader(tmp.path());
    let tree = open(&repo);
    assert_eq!(
        tree.dir_id("src").unwrap(),
        DirId::Unknown,
        "an untracked file"
    );
    assert_eq!(tree.blob_id("src/a/mod.rs").unwrap(), None);

    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path());
    std::os::unix::fs::symlink("a.rs", tmp.path().join("src/b.rs")).unwrap();
    git(tmp.path(), &["add", "src/b.rs"]);
    let (repo, open) = reader(tmp.path());
    let tree = open(&repo);
    assert_eq!(tree.blob_id("src/b.rs").unwrap(), None);
    assert_eq!(tree.dir_id("src").unwrap(), DirId::Unknown);

    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), ".gitattributes", "*.rs text eol=crlf\n");
    repository(tmp.path());
    let (repo, open) = reader(tmp.path());
    assert_eq!(open(&repo).blob_id("src/a.rs").unwrap(), None);
}

#[test]
fn the_working_tree_and_head_share_their_files_and_module_trees() {
    let tmp = tempfile::tempdir().unwrap();
    repository(tmp.path());
    let (repo, open) = reader(tmp.path());
    let crates = [CrateRoot {
        name: "demo".into(),
        root_file: "src/lib.rs".into(),
    }];
    let cache = SourceCache::new();
    let current = extract_cached(&crates, &open(&repo), &cache).unwrap();
    let reads = cache.stats().reads;
    let head = repo.head_commit().unwrap();
    let at_head = extract_cached(&crates, &repo.at(&head).unwrap(), &cache).unwrap();
    assert_eq!(current, at_head);
    let stats = cache.stats();
    assert_eq!(stats.reads, reads, "HEAD reads nothing: {stats:?}");
    assert!(stats.nodes_reused > 0, "{stats:?}");
}

/// What `git status` says of the tracked files under `dir` (untracked files left out): none differs
/// from HEAD.
fn git_says_clean(dir: &Path) -> bool {
    let out = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no", "--", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout.is_empty()
}

/// The index's own answer (`None`: left to git) and the one the repository gives, in a new run.
fn matches_head(dir: &Path) -> (Option<bool>, bool) {
    let repo = Repo::discover(dir).unwrap();
    let index = repo.work_index().unwrap();
    let head = repo.head_workspace_tree().unwrap();
    (
        index.matches_tree(&repo.prefix, head),
        repo.workspace_matches_head(),
    )
}

/// A change to a committed working tree (`ws/` the workspace, `other/` outside it).
type Change = fn(&Path);

/// The situations the index is asked about: what changed, and what the index answers itself (`None`:
/// it leaves the answer to git).
fn situations() -> [(&'static str, Change, Option<bool>); 11] {
    use std::os::unix::fs::PermissionsExt as _;
    [
        ("nothing changed", |_| {}, Some(true)),
        (
            "an edit",
            |d| write(d, "ws/src/a.rs", "pub struct A;\n"),
            Some(false),
        ),
        (
            "an edit staged",
            |d| {
                write(d, "ws/src/a.rs", "pub struct A;\n");
                git(d, &["add", "ws/src/a.rs"]);
            },
            Some(false),
        ),
        (
            "a file deleted",
            |d| std::fs::remove_file(d.join("ws/src/a.rs")).unwrap(),
            Some(false),
        ),
        (
            "an untracked file",
            |d| write(d, "ws/src/new.rs", "pub struct N;\n"),
            Some(true),
        ),
        (
            "an edit outside the workspace",
            |d| write(d, "other/x.rs", "// edited\n"),
            Some(true),
        ),
        // Rewritten with the same bytes: the stat data changed, the content did not; the mode might
        // have, so git decides (clean).
        (
            "the same bytes written again",
            |d| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                write(d, "ws/src/a.rs", A);
            },
            None,
        ),
        (
            "made executable",
            |d| {
                let path = d.join("ws/src/a.rs");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            },
            None,
        ),
        // As git says (libgit2's status says otherwise).
        (
            "deleted, but git does not look (skip-worktree)",
            |d| {
                git(d, &["update-index", "--skip-worktree", "ws/src/a.rs"]);
                std::fs::remove_file(d.join("ws/src/a.rs")).unwrap();
            },
            Some(true),
        ),
        (
            "edited, but git does not look (assume-unchanged)",
            |d| {
                git(d, &["update-index", "--assume-unchanged", "ws/src/a.rs"]);
                write(d, "ws/src/a.rs", "pub struct A;\n");
            },
            Some(true),
        ),
        (
            "a symlink tracked",
            |d| {
                std::os::unix::fs::symlink("a.rs", d.join("ws/src/link.rs")).unwrap();
                git(d, &["add", "ws/src/link.rs"]);
                git(d, &["commit", "-q", "-m", "link"]);
            },
            None,
        ),
    ]
}

/// Whether the working tree is HEAD's is told from the index where it tells, as `git status` tells it,
/// and left to git where only git can tell.
#[test]
fn the_index_tells_whether_the_tracked_files_are_heads_as_git_status_does() {
    for (what, change, index_says) in situations() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        write(dir, "ws/src/lib.rs", LIB);
        write(dir, "ws/src/a.rs", A);
        write(dir, "other/x.rs", "// other\n");
        git(dir, &["init", "-q"]);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "c"]);
        // Not racily clean: the index is written again later than the files.
        std::thread::sleep(std::time::Duration::from_millis(20));
        git(dir, &["update-index", "--really-refresh"]);
        change(dir);
        let ws = dir.join("ws");
        let (index, repo) = matches_head(&ws);
        assert_eq!(index, index_says, "{what}: the index's answer");
        assert_eq!(repo, git_says_clean(&ws), "{what}: against git status");
    }
}
