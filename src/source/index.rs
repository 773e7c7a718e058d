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
pub(crate) enum Dir {
    /// It is not known (a file not in the index or changed, a symlink, a submodule, ...).
    Unknown,
    /// No file is below it (or it does not exist): git has no tree for it.
    Empty,
    /// Its files are the index's, unchanged: git's tree id for it.
    Tree(Oid),
}

/// The index of a repository with a working tree, read once, and the answers given so far (each file and
/// directory is looked at once per run, so one run sees one state of the working tree).
pub(crate) struct WorkIndex {
    /// The top of the working tree.
    top: PathBuf,
    /// By path from the top, `/`-separated.
    entries: BTreeMap<String, Entry>,
    /// The index file's modification time.
    written: (u32, u32),
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
    pub(crate) fn open(repo: &Repository) -> Option<WorkIndex> {
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
                continue;
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
            attributes,
            files: RefCell::default(),
            dirs: RefCell::default(),
        })
    }

    /// The blob id of the file at `path` (from the top of the working tree), when it matches its index
    /// entry; `None`: unknown (read the file).
    pub(crate) fn blob_id(&self, path: &str) -> Option<Oid> {
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
    pub(crate) fn dir(&self, path: &str) -> Dir {
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
        tree.sort_by(|a, b| a.0.cmp(&b.0));
        let mut bytes = Vec::new();
        for (_, mode, name, id) in &tree {
            bytes.extend_from_slice(mode.as_bytes());
            bytes.push(b' ');
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            bytes.extend_from_slice(id.as_bytes());
        }
        Oid::hash_object(ObjectType::Tree, &bytes)
            .ok()
            .map(Dir::Tree)
    }
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
