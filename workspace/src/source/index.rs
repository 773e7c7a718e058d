//! The working tree through the git index: a file whose stat data match its index entry has the entry's
//! blob id, known without reading or hashing the file (what `git status` relies on), and a directory all
//! of whose files are such files has the tree id git would give it.
//!
//! A file matches its entry when its modification and change times (nanoseconds included when the index
//! records them), size, inode, device, owner and group are the ones recorded, it is a regular file (not a
//! symlink) and the entry is a regular file at stage 0 that is not only intended to be added. An entry
//! whose modification time is not older than the index file's own ("racily clean": the file may have
//! changed in the same clock tick as the index was written) does not match. Nor does any file that git
//! may filter (end-of-line conversion, `filter`, `ident`, an encoding): its blob is not its bytes.
//! Everything else is unknown here, and the caller reads and hashes the file.
//!
//! The same data tell, most of the time, whether the tracked files under a directory are HEAD's
//! ([`WorkIndex::matches_tree`]): the index's tree there against HEAD's, then each file against its entry,
//! stopping at the first certain difference; what only git can tell (a filtered path, a file whose
//! stat data changed but not its content, an entry this index leaves aside) is left to `git status`.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository};

/// The stat data an index entry records, as git compares them (32-bit fields, truncated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    mtime: (u32, u32),
    ctime: (u32, u32),
    dev: u32,
    ino: u32,
    uid: u32,
    gid: u32,
    size: u32,
}

/// One regular file of the index.
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: Oid,
    executable: bool,
    stat: Stat,
}

/// What the working tree knows of a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// It is not known (a file not in the index or changed, a symlink, a submodule, ...).
    Unknown,
    /// No file is below it (or it does not exist): git has no tree for it.
    Empty,
    /// Its files are the index's, unchanged: git's tree id for it.
    Tree(Oid),
}

/// The index of a repository with a working tree, read once, and the answers given so far (each file and
/// directory is looked at once per run, so one run sees one state of the working tree).
pub struct WorkIndex {
    /// The top of the working tree.
    top: PathBuf,
    /// By path from the top, `/`-separated.
    entries: BTreeMap<String, Entry>,
    /// The index file's modification time.
    written: (u32, u32),
    /// The paths of the entries whose state only git tells: the ones not in `entries` (conflicts,
    /// symlinks, submodules, intended to add).
    left_to_git: Vec<String>,
    /// The paths of the entries git does not compare with the working tree (`skip-worktree`,
    /// `assume-unchanged`): to `git status`, they are as the index has them.
    not_compared: Vec<String>,
    /// Paths git may filter are never taken from the index (`None`: no attribute applies anywhere).
    attributes: Option<Repository>,
    files: RefCell<HashMap<String, Option<Oid>>>,
    dirs: RefCell<HashMap<String, Dir>>,
}

impl std::fmt::Debug for WorkIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkIndex")
            .field("top", &self.top)
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

impl WorkIndex {
    /// The index of `repo`, when it has a working tree and an index git2 can read, and when its
    /// content is not converted (`core.autocrlf`); `None` otherwise (every file is then read).
    pub fn open(repo: &Repository) -> Option<WorkIndex> {
        if repo.is_bare() {
            return None;
        }
        let top = repo.workdir()?.to_path_buf();
        let config = repo.config().ok()?;
        if let Ok(autocrlf) = config.get_string("core.autocrlf")
            && !matches!(
                autocrlf.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        {
            return None;
        }
        let index_file = repo.path().join("index");
        let written = modified(&std::fs::metadata(&index_file).ok()?)?;
        let index = repo.index().ok()?;
        let mut entries = BTreeMap::new();
        let mut left_to_git = Vec::new();
        let mut not_compared = Vec::new();
        let mut has_attributes = false;
        for entry in index.iter() {
            let Ok(path) = String::from_utf8(entry.path.clone()) else {
                continue;
            };
            has_attributes |= path == ".gitattributes" || path.ends_with("/.gitattributes");
            let stage = (entry.flags >> 12) & 3;
            let intent_to_add =
                entry.flags_extended & (git2::IndexEntryExtendedFlag::INTENT_TO_ADD.bits()) != 0;
            if stage != 0 || intent_to_add || entry.mode & 0o170000 != 0o100000 {
                left_to_git.push(path);
                continue;
            }
            if entry.flags_extended & git2::IndexEntryExtendedFlag::SKIP_WORKTREE.bits() != 0
                || entry.flags & git2::IndexEntryFlag::VALID.bits() != 0
            {
                not_compared.push(path.clone());
            }
            let stat = Stat {
                mtime: (entry.mtime.seconds() as u32, entry.mtime.nanoseconds()),
                ctime: (entry.ctime.seconds() as u32, entry.ctime.nanoseconds()),
                dev: entry.dev,
                ino: entry.ino,
                uid: entry.uid,
                gid: entry.gid,
                size: entry.file_size,
            };
            let executable = entry.mode & 0o111 != 0;
            entries.insert(
                path,
                Entry {
                    id: entry.id,
                    executable,
                    stat,
                },
            );
        }
        has_attributes |= repo.path().join("info/attributes").exists()
            || config.get_path("core.attributesFile").is_ok()
            || global_attributes().is_some_and(|p| p.exists())
            || Path::new("/etc/gitattributes").exists();
        let attributes = if has_attributes {
            Some(Repository::open(repo.path()).ok()?)
        } else {
            None
        };
        Some(WorkIndex {
            top,
            entries,
            written,
            left_to_git,
            not_compared,
            attributes,
            files: RefCell::default(),
            dirs: RefCell::default(),
        })
    }

    /// The blob id of the file at `path` (from the top of the working tree), when it matches its index
    /// entry; `None`: unknown (read the file).
    pub fn blob_id(&self, path: &str) -> Option<Oid> {
        if let Some(&known) = self.files.borrow().get(path) {
            return known;
        }
        let found = self.unchanged(path).map(|entry| entry.id);
        self.files.borrow_mut().insert(path.to_owned(), found);
        found
    }

    /// The entry of `path` when the file on disk matches it (see the module documentation).
    fn unchanged(&self, path: &str) -> Option<Entry> {
        let entry = *self.entries.get(path)?;
        let meta = std::fs::symlink_metadata(self.top.join(path)).ok()?;
        if !meta.file_type().is_file() || racy(entry.stat.mtime, self.written) {
            return None;
        }
        let disk = stat_of(&meta)?;
        (same_time(entry.stat.mtime, disk.mtime)
            && same_time(entry.stat.ctime, disk.ctime)
            && Stat {
                mtime: disk.mtime,
                ctime: disk.ctime,
                ..entry.stat
            } == disk
            && !self.filtered(path))
        .then_some(entry)
    }

    /// Whether git may convert the file at `path` between the working tree and its blob.
    fn filtered(&self, path: &str) -> bool {
        let Some(repo) = &self.attributes else {
            return false;
        };
        [
            "text",
            "eol",
            "crlf",
            "filter",
            "ident",
            "working-tree-encoding",
        ]
        .iter()
        .any(|name| {
            match repo.get_attr(Path::new(path), name, git2::AttrCheckFlags::FILE_THEN_INDEX) {
                Ok(value) => !matches!(
                    git2::AttrValue::from_string(value),
                    git2::AttrValue::Unspecified | git2::AttrValue::False
                ),
                Err(_) => true,
            }
        })
    }

    /// What is known of the directory at `path` (from the top of the working tree, `""` for the top).
    pub fn dir(&self, path: &str) -> Dir {
        if let Some(&known) = self.dirs.borrow().get(path) {
            return known;
        }
        let found = self.walk(path).unwrap_or(Dir::Unknown);
        self.dirs.borrow_mut().insert(path.to_owned(), found);
        found
    }

    /// The tree id of the directory at `path`, made from what is on disk: every file must match its
    /// index entry; `None` when one does not, or something else than files and directories is there.
    fn walk(&self, path: &str) -> Option<Dir> {
        let full = self.top.join(path);
        let listing = match std::fs::read_dir(&full) {
            Ok(listing) => listing,
            Err(_) if !full.exists() => return Some(Dir::Empty),
            Err(_) => return None,
        };
        // (name as git sorts it, mode, name, id)
        let mut tree: Vec<(Vec<u8>, &str, String, Oid)> = Vec::new();
        for item in listing {
            let item = item.ok()?;
            let name = item.file_name().into_string().ok()?;
            if path.is_empty() && name == ".git" {
                continue;
            }
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}/{name}")
            };
            let kind = item.file_type().ok()?;
            if kind.is_dir() {
                match self.dir(&child) {
                    Dir::Unknown => return None,
                    Dir::Empty => {}
                    Dir::Tree(id) => {
                        tree.push((format!("{name}/").into_bytes(), "40000", name, id))
                    }
                }
            } else if kind.is_file() {
                let id = self.blob_id(&child)?;
                let mode = if self.entries.get(&child)?.executable {
                    "100755"
                } else {
                    "100644"
                };
                tree.push((name.clone().into_bytes(), mode, name, id));
            } else {
                return None;
            }
        }
        if tree.is_empty() {
            return Some(Dir::Empty);
        }
        tree_id(tree).map(Dir::Tree)
    }

    /// The entries under the directory `dir` (from the top; `""`: every entry), by path.
    fn entries_under<'s>(&'s self, dir: &str) -> impl Iterator<Item = (&'s String, &'s Entry)> {
        let (start, end) = match dir {
            "" => (String::new(), None),
            _ => (format!("{dir}/"), Some(format!("{dir}0"))),
        };
        self.entries
            .range(start..)
            .take_while(move |(path, _)| end.as_ref().is_none_or(|end| *path < end))
    }

    /// The tree id the index's entries under the directory `dir` make (what `git write-tree` would
    /// write there); `None` when there is none.
    fn index_tree(&self, dir: &str) -> Option<Oid> {
        /// A directory of the index: its files and its directories, by name.
        #[derive(Default)]
        struct Node<'e> {
            files: Vec<(&'e str, &'e Entry)>,
            dirs: BTreeMap<&'e str, Node<'e>>,
        }
        fn id_of(node: &Node<'_>) -> Option<Oid> {
            let mut tree: Vec<(Vec<u8>, &str, String, Oid)> = Vec::new();
            for (name, entry) in &node.files {
                let mode = if entry.executable { "100755" } else { "100644" };
                tree.push((name.as_bytes().to_vec(), mode, (*name).to_owned(), entry.id));
            }
            for (name, child) in &node.dirs {
                let id = id_of(child)?;
                tree.push((
                    format!("{name}/").into_bytes(),
                    "40000",
                    (*name).to_owned(),
                    id,
                ));
            }
            tree_id(tree)
        }
        let skip = if dir.is_empty() { 0 } else { dir.len() + 1 };
        let mut root = Node::default();
        for (path, entry) in self.entries_under(dir) {
            let mut node = &mut root;
            let mut names = path[skip..].split('/').peekable();
            while let Some(name) = names.next() {
                if names.peek().is_none() {
                    node.files.push((name, entry));
                } else {
                    node = node.dirs.entry(name).or_default();
                }
            }
        }
        if root.files.is_empty() && root.dirs.is_empty() {
            return None;
        }
        id_of(&root)
    }

    /// Whether the tracked files under the directory `dir` (from the top; `""`: all) are HEAD's, whose
    /// tree there is `head` (`None`: HEAD has none), as `git status` says of tracked files:
    /// `Some(false)` at the first certain difference (the index's tree there is not HEAD's, or a file is
    /// missing or has other content than its entry), `Some(true)` when the index's tree is HEAD's and
    /// every file matches its entry's stat data (or is one git does not compare: `skip-worktree`,
    /// `assume-unchanged`), `None` when only git can tell (an entry it leaves to
    /// git, a path git may filter, something else than a file, a file whose stat data changed but not
    /// its content: its mode may have).
    pub fn matches_tree(&self, dir: &str, head: Option<Oid>) -> Option<bool> {
        let under = |path: &str| {
            dir.is_empty()
                || path
                    .strip_prefix(dir)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        if self.left_to_git.iter().any(|path| under(path)) {
            return None;
        }
        if self.index_tree(dir) != head {
            return Some(false);
        }
        let mut unsure = false;
        for (path, entry) in self.entries_under(dir) {
            if self.blob_id(path) == Some(entry.id) || self.not_compared.contains(path) {
                continue;
            }
            if self.filtered(path) {
                return None;
            }
            let full = self.top.join(path);
            let meta = match std::fs::symlink_metadata(&full) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(false),
                Err(_) => return None,
            };
            if !meta.file_type().is_file() {
                return None;
            }
            let bytes = std::fs::read(&full).ok()?;
            if Oid::hash_object(ObjectType::Blob, &bytes).ok()? != entry.id {
                return Some(false);
            }
            unsure = true;
        }
        (!unsure).then_some(true)
    }
}

/// The id of the git tree of `items` (name as git sorts it, mode, name, id); `None` when it cannot be
/// hashed.
fn tree_id(mut items: Vec<(Vec<u8>, &str, String, Oid)>) -> Option<Oid> {
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mut bytes = Vec::new();
    for (_, mode, name, id) in &items {
        bytes.extend_from_slice(mode.as_bytes());
        bytes.push(b' ');
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(id.as_bytes());
    }
    Oid::hash_object(ObjectType::Tree, &bytes).ok()
}

/// Whether an entry modified at `mtime` may have changed after the index written at `written` recorded
/// it: seconds only when the entry has no nanoseconds (git built without them wrote it).
fn racy(mtime: (u32, u32), written: (u32, u32)) -> bool {
    if mtime.1 == 0 {
        mtime.0 >= written.0
    } else {
        mtime >= written
    }
}

/// Whether a recorded time is the file's: seconds only when the index has no nanoseconds.
fn same_time(recorded: (u32, u32), disk: (u32, u32)) -> bool {
    recorded.0 == disk.0 && (recorded.1 == 0 || recorded.1 == disk.1)
}

/// The user's attributes file when `core.attributesFile` is not set.
fn global_attributes() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(config.join("git").join("attributes"))
}

#[cfg(unix)]
fn modified(meta: &std::fs::Metadata) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt as _;
    Some((meta.mtime() as u32, meta.mtime_nsec() as u32))
}

#[cfg(unix)]
fn stat_of(meta: &std::fs::Metadata) -> Option<Stat> {
    use std::os::unix::fs::MetadataExt as _;
    Some(Stat {
        mtime: (meta.mtime() as u32, meta.mtime_nsec() as u32),
        ctime: (meta.ctime() as u32, meta.ctime_nsec() as u32),
        dev: meta.dev() as u32,
        ino: meta.ino() as u32,
        uid: meta.uid(),
        gid: meta.gid(),
        size: meta.len() as u32,
    })
}

// Elsewhere git's stat data are not the ones std gives: nothing is taken from the index.
#[cfg(not(unix))]
fn modified(_: &std::fs::Metadata) -> Option<(u32, u32)> {
    None
}

#[cfg(not(unix))]
fn stat_of(_: &std::fs::Metadata) -> Option<Stat> {
    None
}
