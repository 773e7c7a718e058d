//! What an extraction depended on besides the revision's own files and what the store's key names (the
//! crates, the options, wirecheck's build): recorded while extracting, and checked again before a stored
//! model is reused.
//!
//! - The working tree's files the extraction looked at, each with its blob id or as absent (a probe such
//!   as `foo.rs` before `foo/mod.rs`), and the directories whose tree id let it reuse module trees. They
//!   are checked through the git index (stat data, no reads) where it knows them, else read and hashed.
//! - The dependencies it located, with the outcome: where the source was found (or that it was not, the
//!   "cargo fetch brings it" note), the root file and the features. Located again, they must give the
//!   same outcome: a source fetched since then makes the stored model stale.
//! - The files it read of path dependencies outside the workspace (on disk, and editable), by blob id.
//!   Registry, git and vendored sources are not hashed: a package version's source does not change.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use git2::{ObjectType, Oid};
use serde::{Deserialize, Serialize};

use crate::extract::{
    CrateSource, DirId, ExternalCrate, ExtractError, FileReader, Locate, Located,
};
use crate::source::DiskFiles;

/// What one extraction depended on (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// Working-tree files by workspace-relative path: blob id, or `None` when absent.
    files: BTreeMap<String, Option<String>>,
    /// Working-tree directories by workspace-relative path: tree id, or `None` when missing.
    dirs: BTreeMap<String, Option<String>>,
    /// Every dependency located, in the order it was.
    located: Vec<LocatedInput>,
    /// Files of path dependencies outside the workspace, by absolute path: blob id, or `None`.
    disk: BTreeMap<String, Option<String>>,
}

/// A dependency located, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct LocatedInput {
    package: String,
    version: String,
    source: String,
    path: Option<String>,
    requested_features: BTreeSet<String>,
    default_features: bool,
    /// Where it was found, its root file and its features, as text.
    outcome: String,
}

impl LocatedInput {
    fn new(krate: &ExternalCrate, located: &Located) -> Self {
        LocatedInput {
            package: krate.package.clone(),
            version: krate.version.clone(),
            source: krate.source.clone(),
            path: krate.path.clone(),
            requested_features: krate.requested_features.clone(),
            default_features: krate.default_features,
            outcome: outcome(located),
        }
    }

    fn krate(&self) -> ExternalCrate {
        ExternalCrate {
            package: self.package.clone(),
            version: self.version.clone(),
            source: self.source.clone(),
            path: self.path.clone(),
            requested_features: self.requested_features.clone(),
            default_features: self.default_features,
            deps: BTreeMap::new(),
        }
    }
}

/// Where a located dependency is, as text.
fn outcome(located: &Located) -> String {
    let features: Vec<&str> = located.features.iter().map(String::as_str).collect();
    let features = features.join(",");
    match &located.source {
        CrateSource::Revision { root_file } => format!("revision {root_file} [{features}]"),
        CrateSource::Files { root_file, .. } => format!("files {root_file} [{features}]"),
        CrateSource::Missing { why } => format!("missing ({why}) [{features}]"),
    }
}

/// The id of a file's bytes as `reader` gives it: from the reader when it knows it, else hashed; `None`
/// when there is no such file. An error (a file that cannot be read, a link cycle) is not an answer: an
/// extraction would fail on it, so nothing recorded can stand for it.
fn file_id(reader: &dyn FileReader, path: &str) -> Result<Option<String>, ()> {
    if let Some(id) = reader.blob_id(path).map_err(drop)? {
        return Ok(Some(id.to_string()));
    }
    let Some(bytes) = reader.read(path).map_err(drop)? else {
        return Ok(None);
    };
    Oid::hash_object(ObjectType::Blob, &bytes)
        .map(|id| Some(id.to_string()))
        .map_err(drop)
}

impl Inputs {
    /// The blob ids of the working-tree files recorded.
    pub fn blob_ids(&self) -> impl Iterator<Item = Oid> + '_ {
        self.files
            .values()
            .filter_map(|id| Oid::from_str(id.as_deref()?).ok())
    }

    /// Whether every input recorded is still the same: the working tree's files and directories read
    /// through `work_tree`, the dependencies located again with `locator`.
    pub fn hold(&self, work_tree: &dyn FileReader, locator: &dyn Locate) -> bool {
        let disk = DiskFiles::default();
        self.dirs.iter().all(|(path, id)| {
            let now = match work_tree.dir_id(path) {
                Ok(DirId::Tree(id)) => Some(id.to_string()),
                Ok(DirId::Missing) => None,
                Ok(DirId::Unknown) | Err(_) => return false,
            };
            now == *id
        }) && self
            .files
            .iter()
            .all(|(path, id)| file_id(work_tree, path).as_ref() == Ok(id))
            && self
                .located
                .iter()
                .all(|input| outcome(&locator.locate(&input.krate())) == input.outcome)
            && self
                .disk
                .iter()
                .all(|(path, id)| file_id(&disk, path).as_ref() == Ok(id))
    }
}

/// Records [`Inputs`] while an extraction runs; cheap to clone (the clones record into the same).
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    inputs: Rc<RefCell<Inputs>>,
}

impl Recorder {
    /// What was recorded.
    pub fn inputs(&self) -> Inputs {
        self.inputs.borrow().clone()
    }

    /// Records the working-tree file at `path` as `reader` (the working tree) has it now.
    pub fn record_file(&self, reader: &dyn FileReader, path: &str) {
        // A file that cannot be read is recorded as one no later state matches.
        let id = file_id(reader, path).unwrap_or_else(|()| Some(String::new()));
        self.inputs.borrow_mut().files.insert(path.to_owned(), id);
    }

    /// `reader` (the working tree), recording every file and directory an extraction asks it for.
    pub fn work_tree<'r>(&self, reader: &'r dyn FileReader) -> impl FileReader + 'r {
        Recording {
            reader,
            recorder: self.clone(),
        }
    }

    /// `locator`, recording every dependency it locates, and the files read of those outside the
    /// workspace on disk.
    pub fn locator(&self, locator: Rc<dyn Locate>) -> Rc<dyn Locate> {
        Rc::new(RecordingLocate {
            locator,
            recorder: self.clone(),
        })
    }
}

/// The working tree, recording what is asked of it.
struct Recording<'r> {
    reader: &'r dyn FileReader,
    recorder: Recorder,
}

impl FileReader for Recording<'_> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let bytes = self.reader.read(path)?;
        let id = match (&bytes, self.reader.blob_id(path)?) {
            (None, _) => None,
            (Some(_), Some(id)) => Some(id.to_string()),
            (Some(bytes), None) => Oid::hash_object(ObjectType::Blob, bytes)
                .ok()
                .map(|id| id.to_string()),
        };
        let mut inputs = self.recorder.inputs.borrow_mut();
        inputs.files.insert(path.to_owned(), id);
        Ok(bytes)
    }

    fn blob_id(&self, path: &str) -> Result<Option<Oid>, ExtractError> {
        let id = self.reader.blob_id(path)?;
        if let Some(id) = id {
            let mut inputs = self.recorder.inputs.borrow_mut();
            inputs.files.insert(path.to_owned(), Some(id.to_string()));
        }
        Ok(id)
    }

    fn disk_dir(&self) -> Option<&std::path::Path> {
        self.reader.disk_dir()
    }

    fn dir_id(&self, path: &str) -> Result<DirId, ExtractError> {
        let id = self.reader.dir_id(path)?;
        let recorded = match id {
            DirId::Unknown => return Ok(id),
            DirId::Missing => None,
            DirId::Tree(id) => Some(id.to_string()),
        };
        let mut inputs = self.recorder.inputs.borrow_mut();
        inputs.dirs.insert(path.to_owned(), recorded);
        Ok(id)
    }
}

/// A locator recording what it locates.
struct RecordingLocate {
    locator: Rc<dyn Locate>,
    recorder: Recorder,
}

impl Locate for RecordingLocate {
    fn locate(&self, krate: &ExternalCrate) -> Located {
        let mut located = self.locator.locate(krate);
        let input = LocatedInput::new(krate, &located);
        self.recorder.inputs.borrow_mut().located.push(input);
        // A path dependency outside the workspace is on disk and may be edited: its files are recorded.
        if krate.path.is_some()
            && let CrateSource::Files { reader, .. } = &mut located.source
        {
            *reader = Rc::new(RecordingDisk {
                reader: Rc::clone(reader),
                recorder: self.recorder.clone(),
            });
        }
        located
    }
}

/// Files on disk, recording each file read; directories have no id (the module trees under them are
/// then mounted from files this records, never shared from another revision's).
struct RecordingDisk {
    reader: Rc<dyn FileReader>,
    recorder: Recorder,
}

impl FileReader for RecordingDisk {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let bytes = self.reader.read(path)?;
        let id = bytes.as_ref().and_then(|bytes| {
            Oid::hash_object(ObjectType::Blob, bytes)
                .ok()
                .map(|id| id.to_string())
        });
        let mut inputs = self.recorder.inputs.borrow_mut();
        inputs.disk.insert(path.to_owned(), id);
        Ok(bytes)
    }
}
