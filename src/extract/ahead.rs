//! Reading ahead on the second core: while the extraction's thread mounts the working tree's module
//! trees, another thread reads the files the mount will ask for, computes their blob ids and scans them
//! (the scan is plain data; syn's trees are not, so nothing is parsed there). It walks the trees as the
//! mount does (each crate root, then depth first the files its `mod` declarations name: `name.rs`,
//! `name/mod.rs` or the `#[path]`) but from the other end (the last crate first, each file's last `mod`
//! first), so that the two threads work on different files until they meet.
//!
//! The two threads share one claim per path. The read-ahead claims a path before reading it and hands
//! over what it read; the extraction takes it, waits for a path being read, and reads a path the
//! read-ahead has not reached itself (the read-ahead then leaves that file and the files below it to the
//! extraction and walks on beside them: the two threads share the tree). What is handed over is used only under the blob id the extraction learns from the
//! index, so it is the content of that path: a file edited meanwhile has another id and is read again.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use git2::{ObjectType, Oid};
use rustc_hash::FxHashMap;

use super::mod_files::{candidates, parent_dir};
use super::scan::{self, ModItem, Scan, ScanItem};

/// Files the read-ahead does not read (the extraction's thread reads them when it needs them): a large
/// generated file would otherwise sit in memory twice if the mount never asks for it.
const LARGEST: u64 = 1 << 20;

/// The files of one revision as another thread can read them (the working tree's, on disk).
pub trait ConcurrentReader: Send + Sync {
    /// The file's size in bytes; `None` when there is no such file or it cannot be looked at.
    fn size(&self, path: &str) -> Option<u64>;

    /// The file's bytes; `None` when there is no such file or it cannot be read (the extraction's own
    /// read then says why).
    fn read(&self, path: &str) -> Option<Vec<u8>>;
}

/// A file read ahead: its blob id, its text and its scan, with its items when the scan says it may
/// declare (the extraction then splits it into items: [`scan::items`]).
#[derive(Debug)]
pub(super) struct ReadFile {
    pub(super) id: Oid,
    pub(super) text: String,
    pub(super) scan: Option<Scan>,
    pub(super) items: Option<Option<Vec<ScanItem>>>,
}

/// Who has a path.
enum Claim {
    /// The extraction's thread (it reads the file itself, or took what was read ahead).
    Extraction,
    /// The read-ahead is reading it.
    Reading,
    /// Read ahead; `None` when it could not be (absent, too large, not UTF-8, unreadable).
    Read(Option<ReadFile>),
}

#[derive(Default)]
struct Claims {
    by_path: FxHashMap<String, Claim>,
    stopped: bool,
}

/// The claims both threads share (see the module documentation).
#[derive(Default)]
pub(super) struct ReadAhead {
    claims: Mutex<Claims>,
    read: Condvar,
}

impl ReadAhead {
    fn claims(&self) -> MutexGuard<'_, Claims> {
        // A read-ahead that panicked leaves claims that are still true: nothing is half-written.
        self.claims.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// For the extraction's thread: the file at `path` as read ahead, waiting while it is being read;
    /// `None` when the read-ahead has not reached it (it then leaves it to this thread) or could not
    /// read it.
    pub(super) fn take(&self, path: &str) -> Option<ReadFile> {
        let mut claims = self.claims();
        loop {
            match claims.by_path.get_mut(path) {
                None => {
                    claims.by_path.insert(path.to_owned(), Claim::Extraction);
                    return None;
                }
                Some(Claim::Reading) => {
                    claims = self
                        .read
                        .wait(claims)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                Some(claim @ Claim::Read(_)) => {
                    let Claim::Read(read) = std::mem::replace(claim, Claim::Extraction) else {
                        unreachable!("matched above");
                    };
                    return read;
                }
                Some(Claim::Extraction) => return None,
            }
        }
    }

    /// Tells the read-ahead to stop before its next file (the mount is done).
    pub(super) fn stop(&self) {
        self.claims().stopped = true;
    }

    /// Whether the read-ahead may read `path` for the extraction (it claims it then); `None` when it is
    /// to stop.
    fn claim(&self, path: &str) -> Option<bool> {
        let mut claims = self.claims();
        if claims.stopped {
            return None;
        }
        Some(match claims.by_path.get(path) {
            Some(_) => false,
            None => {
                claims.by_path.insert(path.to_owned(), Claim::Reading);
                true
            }
        })
    }

    /// Hands over what was read of `path`, claimed before.
    fn hand_over(&self, path: &str, read: Option<ReadFile>) {
        self.claims()
            .by_path
            .insert(path.to_owned(), Claim::Read(read));
        self.read.notify_all();
    }

    /// For the read-ahead's thread: reads the crates whose root files are `roots` through `files`, from
    /// the other end of the mount's order, until told to stop.
    pub(super) fn run(&self, files: &dyn ConcurrentReader, roots: &[String]) {
        let mut chain = Vec::new();
        for root in roots.iter().rev() {
            chain.push(root.clone());
            let walked = self.visit(files, root, parent_dir(root), &mut chain);
            chain.pop();
            if walked == Visit::Stopped {
                return;
            }
        }
    }

    /// Reads the file at `path` for the extraction, then the files its `mod` declarations name; a file
    /// the extraction claimed first is left to it with everything below it (the two threads then share
    /// the tree instead of both walking it). `chain` holds the files being visited (a `#[path]` back to
    /// one of them is not followed, as the mount does not follow it).
    fn visit(
        &self,
        files: &dyn ConcurrentReader,
        path: &str,
        child_dir: &str,
        chain: &mut Vec<String>,
    ) -> Visit {
        match self.claim(path) {
            None => return Visit::Stopped,
            Some(false) => return Visit::Left,
            Some(true) => {}
        }
        let (exists, read) = read_file(files, path);
        let mods: Vec<ModItem> = match read.as_ref().and_then(|read| read.scan.as_ref()) {
            Some(scan) => scan.mods.clone(),
            None => Vec::new(),
        };
        self.hand_over(path, read);
        if !exists {
            return Visit::Absent;
        }
        for declared in mods.iter().rev().filter(|declared| !declared.inline) {
            for (candidate, sub_dir) in candidates(declared, child_dir) {
                if chain.contains(&candidate) {
                    break;
                }
                chain.push(candidate.clone());
                let visited = self.visit(files, &candidate, &sub_dir, chain);
                chain.pop();
                match visited {
                    Visit::Stopped => return Visit::Stopped,
                    Visit::Found | Visit::Left => break,
                    Visit::Absent => {}
                }
            }
        }
        Visit::Found
    }
}

/// What visiting a path found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// The file is there (read, or too large to read ahead).
    Found,
    /// There is no such file.
    Absent,
    /// The extraction claimed the file first: it reads it, the other candidates and what is below.
    Left,
    /// The read-ahead was told to stop.
    Stopped,
}

/// Whether the file at `path` exists, and what reading it ahead gives.
fn read_file(files: &dyn ConcurrentReader, path: &str) -> (bool, Option<ReadFile>) {
    let Some(size) = files.size(path) else {
        return (false, None);
    };
    if size > LARGEST {
        return (true, None);
    }
    let Some(bytes) = files.read(path) else {
        return (true, None);
    };
    let Ok(id) = Oid::hash_object(ObjectType::Blob, &bytes) else {
        return (true, None);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return (true, None);
    };
    let content = scan::syn_content(&text);
    let scan = scan::scan(content);
    let items = scan
        .as_ref()
        .is_some_and(|scan| scan.declares)
        .then(|| scan::items(content));
    (
        true,
        Some(ReadFile {
            id,
            text,
            scan,
            items,
        }),
    )
}

/// Runs `mount` on this thread while a read-ahead reads the files of `roots` through `files` on another
/// (when there are files to read ahead and a thread can be started); the read-ahead is stopped and
/// joined before this returns.
pub(super) fn mounting_with<T>(
    files: Option<Arc<dyn ConcurrentReader>>,
    roots: &[String],
    mount: impl FnOnce(Option<&ReadAhead>) -> T,
) -> T {
    let Some(files) = files else {
        return mount(None);
    };
    let ahead = ReadAhead::default();
    std::thread::scope(|scope| {
        let started = std::thread::Builder::new()
            .name("wirecheck-read-ahead".to_owned())
            .spawn_scoped(scope, || ahead.run(&*files, roots));
        if started.is_err() {
            return mount(None);
        }
        let mounted = mount(Some(&ahead));
        ahead.stop();
        mounted
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Files in memory, readable from any thread.
    struct Memory(BTreeMap<String, String>);

    impl ConcurrentReader for Memory {
        fn size(&self, path: &str) -> Option<u64> {
            self.0.get(path).map(|text| text.len() as u64)
        }

        fn read(&self, path: &str) -> Option<Vec<u8>> {
            self.0.get(path).map(|text| text.as_bytes().to_vec())
        }
    }

    fn memory(files: &[(&str, &str)]) -> Memory {
        Memory(
            files
                .iter()
                .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn reads_the_files_the_mount_reaches_and_nothing_else() {
        let files = memory(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod inline { mod c; }\n"),
            ("src/a.rs", "pub struct A;\n"),
            ("src/b/mod.rs", "#[path = \"other.rs\"]\nmod d;\n"),
            ("src/b/other.rs", "pub struct D;\n"),
            ("src/inline/c.rs", "pub struct C;\n"),
            ("src/unused.rs", "pub struct U;\n"),
        ]);
        let ahead = ReadAhead::default();
        ahead.run(&files, &["src/lib.rs".to_owned()]);
        for path in [
            "src/lib.rs",
            "src/a.rs",
            "src/b/mod.rs",
            "src/b/other.rs",
            "src/inline/c.rs",
        ] {
            let read = ahead
                .take(path)
                .unwrap_or_else(|| panic!("{path} read ahead"));
            let text = &files.0[path];
            assert_eq!(&read.text, text);
            assert_eq!(
                read.id,
                Oid::hash_object(ObjectType::Blob, text.as_bytes()).unwrap()
            );
            assert_eq!(read.scan, scan::scan(text));
            let declares = read.scan.as_ref().is_some_and(|scan| scan.declares);
            assert_eq!(read.items, declares.then(|| scan::items(text)));
            // Taken once: a second ask is the extraction's own.
            assert!(ahead.take(path).is_none());
        }
        // Probed before `b/mod.rs`, absent: handed over as not read.
        assert!(ahead.take("src/b.rs").is_none());
        assert!(ahead.take("src/unused.rs").is_none());
    }

    #[test]
    fn a_file_the_extraction_claimed_first_is_left_to_it_with_what_is_below() {
        let files = memory(&[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "mod below;\n"),
            ("src/a/below.rs", "pub struct Below;\n"),
            ("src/b.rs", "pub struct B;\n"),
        ]);
        let ahead = ReadAhead::default();
        assert!(ahead.take("src/a.rs").is_none());
        ahead.run(&files, &["src/lib.rs".to_owned()]);
        assert!(ahead.take("src/lib.rs").is_some());
        assert!(ahead.take("src/a.rs").is_none());
        assert!(ahead.take("src/a/below.rs").is_none(), "left with a.rs");
        assert!(
            ahead.take("src/b.rs").is_some(),
            "the walk goes on beside it"
        );
    }

    #[test]
    fn a_path_attribute_back_up_the_chain_ends_the_walk() {
        let files = memory(&[("src/lib.rs", "#[path = \"lib.rs\"]\nmod again;\n")]);
        let ahead = ReadAhead::default();
        ahead.run(&files, &["src/lib.rs".to_owned()]);
        assert!(ahead.take("src/lib.rs").is_some());
    }

    #[test]
    fn large_and_non_utf8_files_are_left_to_the_extraction_and_a_stopped_one_reads_nothing() {
        let large = "// x\n".repeat((LARGEST as usize) / 5 + 1);
        let files = memory(&[("src/lib.rs", "mod big;\n"), ("src/big.rs", &large)]);
        let ahead = ReadAhead::default();
        ahead.run(&files, &["src/lib.rs".to_owned()]);
        assert!(ahead.take("src/big.rs").is_none());

        struct Latin1;
        impl ConcurrentReader for Latin1 {
            fn size(&self, _: &str) -> Option<u64> {
                Some(1)
            }
            fn read(&self, _: &str) -> Option<Vec<u8>> {
                Some(vec![0xe9])
            }
        }
        let ahead = ReadAhead::default();
        ahead.run(&Latin1, &["src/lib.rs".to_owned()]);
        assert!(ahead.take("src/lib.rs").is_none());

        let ahead = ReadAhead::default();
        ahead.stop();
        ahead.run(&files, &["src/lib.rs".to_owned()]);
        assert!(ahead.claims().by_path.is_empty());
    }

    #[test]
    fn the_extraction_waits_for_a_file_being_read() {
        let files = memory(&[("src/lib.rs", "pub struct A;\n")]);
        let ahead = ReadAhead::default();
        assert_eq!(ahead.claim("src/lib.rs"), Some(true));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                let (_, read) = read_file(&files, "src/lib.rs");
                ahead.hand_over("src/lib.rs", read);
            });
            assert!(ahead.take("src/lib.rs").is_some());
        });
    }

    #[test]
    fn mounting_with_a_reader_runs_the_mount_beside_a_read_ahead_and_joins_it() {
        let files: Arc<dyn ConcurrentReader> = Arc::new(memory(&[
            ("src/lib.rs", "mod a;\n"),
            ("src/a.rs", "pub struct A;\n"),
        ]));
        let mounted = mounting_with(Some(files), &["src/lib.rs".to_owned()], |ahead| {
            let ahead = ahead.expect("a read-ahead runs");
            // Read by one thread or the other, whichever gets there first, and by the mount's end.
            ahead.take("src/lib.rs").map(|read| read.text)
        });
        assert!(mounted.is_none_or(|text| text == "mod a;\n"));
        assert!(mounting_with(None, &[], |ahead| ahead.is_none()));
    }

    /// The crate's files in memory, whose own reads are slow: the read-ahead gets ahead of the mount.
    struct Slow {
        files: Arc<Memory>,
        elsewhere: std::cell::RefCell<Vec<(String, Oid)>>,
    }

    impl crate::extract::FileReader for Slow {
        fn read(&self, path: &str) -> Result<Option<Vec<u8>>, crate::extract::ExtractError> {
            Ok(ConcurrentReader::read(&*self.files, path))
        }

        fn blob_id(&self, _: &str) -> Result<Option<Oid>, crate::extract::ExtractError> {
            std::thread::sleep(std::time::Duration::from_millis(40));
            Ok(None)
        }

        fn concurrent(&self) -> Option<Arc<dyn ConcurrentReader>> {
            Some(Arc::clone(&self.files) as Arc<dyn ConcurrentReader>)
        }

        fn read_elsewhere(&self, path: &str, id: Oid) {
            self.elsewhere.borrow_mut().push((path.to_owned(), id));
        }
    }

    #[test]
    fn an_extraction_reading_ahead_gives_the_same_model_and_tells_the_reader_what_it_used() {
        let files = [
            (
                "src/lib.rs",
                "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\", upgrade = \"server-first\", format = \"json\")]\npub struct P;\nmod a;\nmod b;\n",
            ),
            (
                "src/a.rs",
                "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.a\", kind = \"request\")]\npub struct A { pub x: u32, pub b: crate::b::B }\n",
            ),
            (
                "src/b/mod.rs",
                "#[derive(serde::Serialize, serde::Deserialize)]\npub struct B { pub y: Option<String> }\n",
            ),
        ];
        let crates = [crate::extract::CrateRoot {
            name: "c".to_owned(),
            root_file: "src/lib.rs".to_owned(),
        }];
        let plain: BTreeMap<String, String> = files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        let expected = crate::extract::extract(&crates, &plain).unwrap();
        let slow = Slow {
            files: Arc::new(memory(&files)),
            elsewhere: Default::default(),
        };
        let cache = crate::extract::SourceCache::new();
        let got = crate::extract::extract_cached(&crates, &slow, &cache).unwrap();
        assert_eq!(got, expected);
        assert_eq!(got.types.len(), 2, "{:?}", got.types.keys());
        let stats = cache.stats();
        assert!(stats.read_ahead >= 1, "{stats:?}");
        assert_eq!(stats.reads, files.len(), "{stats:?}");
        let elsewhere = slow.elsewhere.borrow();
        assert_eq!(elsewhere.len(), stats.read_ahead);
        for (path, id) in elsewhere.iter() {
            let text = &plain[path];
            assert_eq!(
                *id,
                Oid::hash_object(ObjectType::Blob, text.as_bytes()).unwrap()
            );
        }
    }
}
