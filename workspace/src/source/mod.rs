//! Where source text comes from: the working tree, or git objects at a revision (git2; never a checkout).
//! Also which release tags exist and which one is the baseline, and where Cargo keeps the sources of
//! dependencies (`registry`).

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use git2::{ObjectType, Oid, Repository};
use semver::Version;

use crate::extract::{DirId, ExtractError, FileReader};

mod cargo_home;
mod index;
mod registry;

use cargo_home::cargo_home;
use index::{Dir, WorkIndex};
pub use registry::{CargoLocator, DiskFiles};

/// Why the source of a revision could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// No git repository around the workspace.
    #[error(
        "{path} is not inside a git repository: wirecheck reads the baseline release from git history. Run it in a clone of the project (git clone, not a tarball)"
    )]
    NoRepository {
        /// The workspace root.
        path: String,
    },
    /// No release tag matches the pattern.
    #[error("{}", no_tag_message(pattern, *shallow))]
    NoReleaseTag {
        /// The tag pattern.
        pattern: String,
        /// The clone is shallow.
        shallow: bool,
    },
    /// A revision given with `--against` does not exist.
    #[error(
        "revision `{rev}` not found in the repository ({message}). Check the name, or fetch it: git fetch --tags origin"
    )]
    RevisionNotFound {
        /// The revision as given.
        rev: String,
        /// git's message.
        message: String,
    },
    /// The repository has no HEAD commit.
    #[error(
        "the repository has no commit yet (HEAD is unborn): commit the code and tag a release first"
    )]
    NoHead,
    /// The history needed is cut off by a shallow clone.
    #[error(
        "the commit of {rev} is not in this shallow clone: fetch the full history and the tags (git fetch --unshallow --tags, or `fetch-depth: 0` in actions/checkout)"
    )]
    ShallowHistory {
        /// The revision whose commit is missing, as the user wrote it (`v0.87.0`).
        rev: String,
    },
    /// `--tag-pattern` is not a valid glob.
    #[error(
        "invalid --tag-pattern `{pattern}`: {problem}. A tag glob has `*` (any run of characters), `?` (one character) and `[...]` (one of a set, closed by `]`), as in 'v*' or 'sched-v[0-9]*'"
    )]
    InvalidTagPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Any other git failure.
    #[error("git: {0}")]
    Git(#[from] git2::Error),
}

/// Checks that `pattern` is a glob git can match tags with: every `[` set closed by `]`, no `\` at the
/// end. git matches an invalid glob against nothing, which would look like a repository without releases.
pub fn check_tag_pattern(pattern: &str) -> Result<(), SourceError> {
    let invalid = |problem: &str| SourceError::InvalidTagPattern {
        pattern: pattern.to_owned(),
        problem: problem.to_owned(),
    };
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => {
                return Err(invalid("it ends with `\\`, which escapes nothing"));
            }
            '[' => {
                // `]` right after `[`, `[!` or `[^` is a member of the set, not its end.
                if matches!(chars.peek(), Some('!' | '^')) {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
                if !chars.by_ref().any(|member| member == ']') {
                    return Err(invalid("a `[` set is not closed by `]`"));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn no_tag_message(pattern: &str, shallow: bool) -> String {
    if shallow {
        format!(
            "no release tag matching `{pattern}` is reachable: this is a shallow clone, which usually has no tags. Fetch the history and tags (git fetch --unshallow --tags, or `fetch-depth: 0` in actions/checkout), or name a baseline with --against REV"
        )
    } else {
        format!(
            "no release tag matching `{pattern}` is an ancestor of HEAD (pre-releases are skipped). Tag the last release (git tag v0.1.0 <commit>), fetch tags (git fetch --tags), pass --tag-pattern for per-package tags ('sched-v*'), or name a baseline with --against REV; before the first release, --first-release reports every protocol as new"
        )
    }
}

/// A release tag: its name, the version parsed from it, and its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The tag's name (`v0.87.0`).
    pub tag: String,
    /// The version in the tag's name.
    pub version: Version,
    /// The commit the tag points to (peeled), as 40 hex digits.
    pub commit: String,
}

/// The version in a tag's name: what follows the first character run that is not a digit (`v1.2.3`,
/// `sched-v1.2.3`).
pub fn tag_version(tag: &str) -> Option<Version> {
    let start = tag.find(|c: char| c.is_ascii_digit())?;
    Version::parse(&tag[start..]).ok()
}

/// The working tree: files as they are on disk, uncommitted edits included.
#[derive(Debug, Clone)]
pub struct WorkTree {
    root: PathBuf,
    /// The repository's index, and the workspace's place below the top of its working tree.
    index: Option<(Rc<WorkIndex>, String)>,
}

impl WorkTree {
    /// Reads files under `root` (the workspace root); every file is read to learn its blob id.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        WorkTree {
            root: root.into(),
            index: None,
        }
    }

    /// Reads files under `root` (the workspace root, in `repo`'s working tree): the blob ids of files
    /// unchanged since the index recorded them, and the tree ids of directories holding only such files,
    /// come from the index without reading them (see `index`).
    pub fn with_index(root: impl Into<PathBuf>, repo: &Repo) -> Self {
        WorkTree {
            root: root.into(),
            index: repo.work_index().map(|index| (index, repo.prefix.clone())),
        }
    }

    /// The path from the top of the working tree of `path` (from the workspace root), with the index.
    fn indexed(&self, path: &str) -> Option<(&WorkIndex, String)> {
        let (index, prefix) = self.index.as_ref()?;
        let full = match (prefix.is_empty(), path.is_empty()) {
            (true, _) => path.to_owned(),
            (false, true) => prefix.clone(),
            (false, false) => format!("{prefix}/{path}"),
        };
        Some((index, full))
    }
}

impl FileReader for WorkTree {
    /// The index entry's id, when the file's stat data match it.
    fn blob_id(&self, path: &str) -> Result<Option<Oid>, ExtractError> {
        Ok(self
            .indexed(path)
            .and_then(|(index, full)| index.blob_id(&full)))
    }

    /// The tree id git would give the directory, when every file below it matches its index entry:
    /// the module trees under it are then shared with a revision where it is the same.
    fn dir_id(&self, path: &str) -> Result<DirId, ExtractError> {
        let Some((index, full)) = self.indexed(path) else {
            return Ok(DirId::Unknown);
        };
        Ok(match index.dir(&full) {
            Dir::Unknown => DirId::Unknown,
            Dir::Empty => DirId::Missing,
            Dir::Tree(id) => DirId::Tree(id),
        })
    }

    fn disk_dir(&self) -> Option<&Path> {
        Some(&self.root)
    }

    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let full = self.root.join(path);
        match std::fs::read(&full) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) if full.is_dir() => {
                let _ = e;
                Ok(None)
            }
            Err(e) => Err(ExtractError::Read {
                file: path.to_owned(),
                message: e.to_string(),
            }),
        }
    }
}

/// The git repository holding a workspace.
pub struct Repo {
    repo: Repository,
    /// The workspace root relative to the repository's top (`""` when they are the same), `/`-separated.
    prefix: String,
    /// Whether a tree (by id) holds a symlink anywhere below it (see [`GitRevision::dir_id`]).
    symlink_trees: RefCell<HashMap<Oid, bool>>,
    /// The repositories of the submodules read so far, by path from the top of the working tree.
    submodules: RefCell<HashMap<String, Rc<Repository>>>,
    /// The index, read on first use (`None` inside: no index to use).
    index: OnceCell<Option<Rc<WorkIndex>>>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("path", &self.repo.path())
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl Repo {
    /// Opens the repository that contains `workspace_root`.
    pub fn discover(workspace_root: &Path) -> Result<Self, SourceError> {
        let repo = Repository::discover(workspace_root).map_err(|_| SourceError::NoRepository {
            path: workspace_root.display().to_string(),
        })?;
        let prefix = match repo.workdir() {
            Some(top) => {
                let top = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
                let root = workspace_root
                    .canonicalize()
                    .unwrap_or_else(|_| workspace_root.to_path_buf());
                root.strip_prefix(&top)
                    .map(|p| {
                        p.components()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .collect::<Vec<_>>()
                            .join("/")
                    })
                    .unwrap_or_default()
            }
            None => String::new(),
        };
        Ok(Repo {
            repo,
            prefix,
            symlink_trees: Default::default(),
            submodules: Default::default(),
            index: OnceCell::new(),
        })
    }

    /// Another handle on the repository, owned: for reading objects (by id) after this one's borrows end.
    pub fn objects(&self) -> Option<Repository> {
        Repository::open(self.repo.path()).ok()
    }

    /// The repository's index, read once.
    fn work_index(&self) -> Option<Rc<WorkIndex>> {
        self.index
            .get_or_init(|| WorkIndex::open(&self.repo).map(Rc::new))
            .clone()
    }

    /// The repository of the submodule at `path` (from the top of the working tree): the one git
    /// keeps for it, or the one checked out there.
    fn submodule(&self, path: &str) -> Option<Rc<Repository>> {
        if let Some(repo) = self.submodules.borrow().get(path) {
            return Some(Rc::clone(repo));
        }
        let repo = self
            .repo
            .find_submodule(path)
            .and_then(|s| s.open())
            .ok()
            .or_else(|| Repository::open(self.repo.workdir()?.join(path)).ok())
            .or_else(|| Repository::open(self.repo.path().join("modules").join(path)).ok())?;
        let repo = Rc::new(repo);
        self.submodules
            .borrow_mut()
            .insert(path.to_owned(), Rc::clone(&repo));
        Some(repo)
    }

    /// Where the workspace is in the repository: its root relative to the top of the working tree,
    /// `/`-separated (`""` at the top).
    pub fn workspace_prefix(&self) -> &str {
        &self.prefix
    }

    /// Whether the clone is shallow.
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

    fn head(&self) -> Result<Oid, SourceError> {
        let head = self.repo.head().map_err(|_| SourceError::NoHead)?;
        Ok(head.peel_to_commit().map_err(|_| SourceError::NoHead)?.id())
    }

    fn is_ancestor(&self, ancestor: Oid, of: Oid) -> bool {
        ancestor == of || self.repo.graph_descendant_of(of, ancestor).unwrap_or(false)
    }

    /// Whether no tracked file under the workspace differs from HEAD (in the index or on disk): the
    /// working tree is then HEAD's commit itself. Untracked files are not looked at (a `target/` without
    /// a `.gitignore`); a status git cannot give counts as a difference. Told from the index's stat data
    /// where they tell (`WorkIndex::matches_tree`, which stops at the first difference and shares its
    /// looks at the files with the extraction), else by `git status`.
    pub fn workspace_matches_head(&self) -> bool {
        if let Some(index) = self.work_index()
            && let Some(head) = self.head_workspace_tree()
            && let Some(answer) = index.matches_tree(&self.prefix, head)
        {
            return answer;
        }
        let mut options = git2::StatusOptions::new();
        options
            .include_untracked(false)
            .include_ignored(false)
            .exclude_submodules(false);
        if !self.prefix.is_empty() {
            options.pathspec(format!("{}/", self.prefix));
        }
        self.repo
            .statuses(Some(&mut options))
            .is_ok_and(|statuses| statuses.is_empty())
    }

    /// The id of HEAD's tree under the workspace (`Some(None)`: HEAD has no directory there); `None`
    /// when HEAD's tree cannot be read.
    fn head_workspace_tree(&self) -> Option<Option<Oid>> {
        let tree = self.repo.head().and_then(|head| head.peel_to_tree()).ok()?;
        Some(match self.prefix.as_str() {
            "" => Some(tree.id()),
            prefix => tree
                .get_path(Path::new(prefix))
                .ok()
                .filter(|entry| entry.kind() == Some(git2::ObjectType::Tree))
                .map(|entry| entry.id()),
        })
    }

    /// The commit HEAD points to, as 40 hex digits.
    pub fn head_commit(&self) -> Result<String, SourceError> {
        Ok(self.head()?.to_string())
    }

    /// Whether the history before `commit` is cut off by this shallow clone: `commit` or one of its
    /// ancestors is a commit whose parents were not fetched (listed in git's `shallow` file). Then
    /// releases older than `commit` cannot be read, nor even known, from here.
    pub fn history_cut_before(&self, commit: &str) -> bool {
        if !self.is_shallow() {
            return false;
        }
        let Ok(tip) = Oid::from_str(commit) else {
            return false;
        };
        let text = std::fs::read_to_string(self.repo.commondir().join("shallow"))
            .or_else(|_| std::fs::read_to_string(self.repo.path().join("shallow")))
            .unwrap_or_default();
        let boundaries: Vec<Oid> = text
            .lines()
            .filter_map(|line| Oid::from_str(line.trim()).ok())
            .collect();
        // A shallow clone whose list cannot be read is taken as cut: nothing shows otherwise.
        boundaries.is_empty()
            || boundaries
                .into_iter()
                .any(|boundary| self.is_ancestor(boundary, tip))
    }

    /// The tags matching `pattern` whose name holds no semver version (`v1`, `v0.4`, `vnext`), sorted:
    /// they are not releases and [`Repo::releases`] skips them.
    pub fn tags_without_version(&self, pattern: &str) -> Result<Vec<String>, SourceError> {
        check_tag_pattern(pattern)?;
        let names = self.repo.tag_names(Some(pattern))?;
        let mut out: Vec<String> = names
            .iter()
            .flatten()
            .flatten()
            .filter(|name| tag_version(name).is_none())
            .map(str::to_owned)
            .collect();
        out.sort();
        Ok(out)
    }

    /// Every tag matching `pattern` that holds a version and is no pre-release, with the version, sorted
    /// by version: whatever commit they point to, and whether or not it is here.
    pub fn release_tag_names(&self, pattern: &str) -> Result<Vec<(String, Version)>, SourceError> {
        check_tag_pattern(pattern)?;
        let names = self.repo.tag_names(Some(pattern))?;
        let mut out: Vec<(String, Version)> = names
            .iter()
            .flatten()
            .flatten()
            .filter_map(|name| Some((name.to_owned(), tag_version(name)?)))
            .filter(|(_, version)| version.pre.is_empty())
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        Ok(out)
    }

    /// Every release tag matching `pattern` (a glob: `v*`) whose commit is `of` or an ancestor of it
    /// (HEAD when `None`), pre-releases skipped, oldest first.
    pub fn releases(&self, pattern: &str, of: Option<&str>) -> Result<Vec<Release>, SourceError> {
        check_tag_pattern(pattern)?;
        let tip = match of {
            Some(commit) => Oid::from_str(commit)?,
            None => self.head()?,
        };
        let names = self.repo.tag_names(Some(pattern))?;
        let mut out = Vec::new();
        for name in names.iter() {
            let Ok(Some(name)) = name else { continue };
            let Some(version) = tag_version(name) else {
                continue;
            };
            if !version.pre.is_empty() {
                continue;
            }
            let Ok(reference) = self.repo.find_reference(&format!("refs/tags/{name}")) else {
                continue;
            };
            let Ok(commit) = reference.peel_to_commit() else {
                continue;
            };
            if self.is_ancestor(commit.id(), tip) {
                out.push(Release {
                    tag: name.to_owned(),
                    version,
                    commit: commit.id().to_string(),
                });
            }
        }
        out.sort_by(|a, b| a.version.cmp(&b.version).then_with(|| a.tag.cmp(&b.tag)));
        Ok(out)
    }

    /// The last release: the highest release matching `pattern` that is HEAD or an ancestor of it. (When
    /// HEAD is itself that release, `wirecheck check` compares it with the release before it.)
    pub fn baseline(&self, pattern: &str) -> Result<Release, SourceError> {
        self.releases(pattern, None)?
            .pop()
            .ok_or_else(|| SourceError::NoReleaseTag {
                pattern: pattern.to_owned(),
                shallow: self.is_shallow(),
            })
    }

    /// Resolves any revision (`v0.87.0`, `main~2`, a commit id) to its commit id.
    pub fn resolve(&self, rev: &str) -> Result<String, SourceError> {
        let object = self
            .repo
            .revparse_single(rev)
            .map_err(|e| SourceError::RevisionNotFound {
                rev: rev.to_owned(),
                message: e.message().to_owned(),
            })?;
        let commit = object.peel_to_commit().map_err(|e| {
            if self.is_shallow() {
                SourceError::ShallowHistory {
                    rev: rev.to_owned(),
                }
            } else {
                SourceError::RevisionNotFound {
                    rev: rev.to_owned(),
                    message: e.message().to_owned(),
                }
            }
        })?;
        Ok(commit.id().to_string())
    }

    /// A reader of the files of `commit`, by workspace-relative path.
    pub fn at(&self, commit: &str) -> Result<GitRevision<'_>, SourceError> {
        let oid = Oid::from_str(commit)?;
        let commit = self
            .repo
            .find_commit(oid)
            .map_err(|_| SourceError::ShallowHistory {
                rev: commit.to_owned(),
            })?;
        Ok(GitRevision {
            repo: self,
            tree: commit.tree()?,
        })
    }
}

/// The files of one commit, read from git objects.
pub struct GitRevision<'r> {
    repo: &'r Repo,
    tree: git2::Tree<'r>,
}

impl GitRevision<'_> {
    fn full_path(&self, path: &str) -> String {
        if self.repo.prefix.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", self.repo.prefix)
        }
    }

    /// The tree entry of a source file (a blob that is not a symlink; directories hold no source) and
    /// the submodule repository holding it, if it is in one.
    fn entry(&self, path: &str) -> Result<Option<Located<'_>>, ExtractError> {
        let mut full = self.full_path(path);
        // A symlink is followed to its target in the same tree, as a checkout and the compiler would (a
        // few hops at most); a link out of the repository, or a loop, holds no source here.
        for _ in 0..8 {
            let Some(found) = self.locate(None, &self.tree, &full, "", path)? else {
                return Ok(None);
            };
            if found.entry.kind() != Some(ObjectType::Blob) {
                return Ok(None);
            }
            if found.entry.filemode() != 0o120000 {
                return Ok(Some(found));
            }
            let target = found.repo().find_blob(found.entry.id()).ok();
            let Some(next) = target
                .as_ref()
                .and_then(|t| std::str::from_utf8(t.content()).ok())
                .and_then(|t| link_target(&full, t))
            else {
                return Ok(None);
            };
            full = next;
        }
        Ok(None)
    }

    /// The entry at `rest` below `tree` (of the submodule `sub` at `top`, or of the commit itself),
    /// going into submodules at the commits the trees record. `file` names the file for errors.
    fn locate(
        &self,
        sub: Option<&Rc<Repository>>,
        tree: &git2::Tree<'_>,
        rest: &str,
        top: &str,
        file: &str,
    ) -> Result<Option<Located<'_>>, ExtractError> {
        if let Ok(entry) = tree.get_path(Path::new(rest)) {
            return Ok(Some(Located {
                entry: entry.to_owned(),
                sub: sub.cloned(),
                repo: self.repo,
            }));
        }
        // Not a path of this tree: it may run through a submodule (a commit entry).
        let parts: Vec<&str> = rest.split('/').collect();
        for i in 1..parts.len() {
            let prefix = parts[..i].join("/");
            let Ok(entry) = tree.get_path(Path::new(&prefix)) else {
                return Ok(None);
            };
            match entry.kind() {
                Some(ObjectType::Tree) => continue,
                Some(ObjectType::Commit) => {}
                _ => return Ok(None),
            }
            let at = if top.is_empty() {
                prefix
            } else {
                format!("{top}/{prefix}")
            };
            let unavailable = |what: &str| ExtractError::Read {
                file: file.to_owned(),
                message: format!(
                    "it is in the git submodule `{at}`, whose commit {} {what}: run `git submodule update --init --recursive` (a CI checkout needs `submodules: recursive`)",
                    entry.id()
                ),
            };
            let repo = self
                .repo
                .submodule(&at)
                .ok_or_else(|| unavailable("is in no repository here"))?;
            let commit = repo
                .find_commit(entry.id())
                .map_err(|_| unavailable("is not in its repository"))?;
            let sub_tree = commit
                .tree()
                .map_err(|_| unavailable("has no readable tree"))?;
            let rest = parts[i..].join("/");
            return self.locate(Some(&repo), &sub_tree, &rest, &at, file);
        }
        Ok(None)
    }
}

/// A tree entry found by [`GitRevision::locate`], with the repository that holds its object.
struct Located<'r> {
    entry: git2::TreeEntry<'static>,
    /// The submodule's repository, or `None` for the commit's own.
    sub: Option<Rc<Repository>>,
    repo: &'r Repo,
}

impl Located<'_> {
    fn repo(&self) -> &Repository {
        self.sub.as_deref().unwrap_or(&self.repo.repo)
    }
}

impl GitRevision<'_> {
    /// Whether the tree `id` holds a symlink anywhere below it (remembered per tree id, so each tree
    /// of the history is looked at once).
    fn has_symlink(&self, id: Oid) -> bool {
        if let Some(&known) = self.repo.symlink_trees.borrow().get(&id) {
            return known;
        }
        let found = match self.repo.repo.find_tree(id) {
            Ok(tree) => tree.iter().any(|e| {
                e.filemode() == 0o120000
                    || (e.kind() == Some(ObjectType::Tree) && self.has_symlink(e.id()))
            }),
            Err(_) => true,
        };
        self.repo.symlink_trees.borrow_mut().insert(id, found);
        found
    }
}

/// The tree path a symlink at `link` pointing to `target` names, or `None` when it leaves the tree.
fn link_target(link: &str, target: &str) -> Option<String> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

impl FileReader for GitRevision<'_> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let Some(found) = self.entry(path)? else {
            return Ok(None);
        };
        let blob = found
            .repo()
            .find_blob(found.entry.id())
            .map_err(|e| ExtractError::Read {
                file: path.to_owned(),
                message: e.message().to_owned(),
            })?;
        Ok(Some(blob.content().to_vec()))
    }

    /// The id in the commit's tree, without reading the blob: files unchanged between the revisions a
    /// check reads are read and parsed once.
    fn blob_id(&self, path: &str) -> Result<Option<Oid>, ExtractError> {
        Ok(self.entry(path)?.map(|found| found.entry.id()))
    }

    /// The id in the commit's tree: the module trees under a directory unchanged since a revision
    /// already read are not looked at again. Unknown when a symlink is below it: a symlinked file can
    /// change without the directory's id changing. Unknown too in a submodule.
    fn dir_id(&self, path: &str) -> Result<DirId, ExtractError> {
        let tree = if path.is_empty() && self.repo.prefix.is_empty() {
            Some(self.tree.id())
        } else {
            let full = self.full_path(path);
            match self.locate(None, &self.tree, &full, "", path)? {
                Some(found) if found.sub.is_some() => return Ok(DirId::Unknown),
                Some(found) if found.entry.kind() == Some(ObjectType::Tree) => {
                    Some(found.entry.id())
                }
                _ => None,
            }
        };
        Ok(match tree {
            None => DirId::Missing,
            Some(id) if self.has_symlink(id) => DirId::Unknown,
            Some(id) => DirId::Tree(id),
        })
    }
}

#[cfg(test)]
mod extraction_tests;

#[cfg(test)]
mod tests {
    use super::{check_tag_pattern, link_target, tag_version};

    #[test]
    fn tag_globs_are_checked() {
        for good in ["v*", "sched-v[0-9]*", "v[!a]*", "v[]]*", "v\\[*", "v?.*"] {
            assert!(check_tag_pattern(good).is_ok(), "{good}");
        }
        for bad in ["v[0-9", "v[", "v\\", "v[!]"] {
            let error = check_tag_pattern(bad).unwrap_err().to_string();
            assert!(error.contains("invalid --tag-pattern"), "{bad}: {error}");
        }
    }

    #[test]
    fn symlink_targets_stay_in_the_tree() {
        assert_eq!(
            link_target("src/types.rs", "../shared/types.rs").as_deref(),
            Some("shared/types.rs")
        );
        assert_eq!(
            link_target("src/a/b.rs", "./c.rs").as_deref(),
            Some("src/a/c.rs")
        );
        assert_eq!(link_target("src/x.rs", "../../outside.rs"), None);
        assert_eq!(link_target("src/x.rs", "/etc/passwd"), None);
    }

    #[test]
    fn versions_from_tag_names() {
        assert_eq!(tag_version("v0.10.0"), Some(semver::Version::new(0, 10, 0)));
        assert_eq!(
            tag_version("sched-v1.2.3"),
            Some(semver::Version::new(1, 2, 3))
        );
        assert_eq!(
            tag_version("v1.0.0-rc.1").map(|v| v.pre.is_empty()),
            Some(false)
        );
        assert_eq!(tag_version("latest"), None);
    }
}

#[cfg(all(test, unix))]
pub mod index_tests;
