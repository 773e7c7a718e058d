//! Reading ahead: while an extraction mounts the crates' module trees file by file, reading and scanning
//! each, a second thread reads and scans files of the same trees from disk, taking them in the opposite
//! order (the last crate first, a file's last `mod` first). The two meet in the middle, so that the two
//! cores share the mounting, about a fifth of a cold check's main thread.
//!
//! Which thread scans a file cannot change what the extraction sees: a file's [`Scanned`] depends on
//! its bytes alone, and the extraction takes the thread's only for bytes it knows to be the file's (the
//! git index vouches for them, as it does for a file the extraction reads itself, or they are the bytes
//! the extraction read). It takes a file the thread has scanned, waits for one it is scanning, and
//! reads any other itself; the thread follows the `mod`s of those too, once the extraction tells them.
//!
//! Nothing of syn's crosses threads: the scan is a lexer's, and what it keeps is plain data.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use rustc_hash::{FxHashMap, FxHashSet};

use super::mod_paths::{candidates, parent_dir};
use super::scan::{ModItem, Scanned};

/// The read-ahead of one extraction's module trees; it stops when dropped.
pub(in crate::extract) struct ReadAhead {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled on every change of a file's [`Slot`], and when the extraction stops the thread.
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// By path from the workspace root.
    files: FxHashMap<String, Slot>,
    /// The extraction no longer needs the thread.
    stopped: bool,
    /// The thread has returned (or panicked): a file it was reading will not be scanned.
    finished: bool,
}

/// A file as the two threads know it.
enum Slot {
    /// The thread is reading and scanning it.
    Reading,
    /// The thread scanned it, and the extraction has not taken it yet.
    Scanned(Box<Scanned>),
    /// The extraction has it, or reads it itself: with its `mod` declarations once it tells them.
    Taken(Option<Vec<ModItem>>),
    /// The extraction found no file there.
    Absent,
}

/// What the thread learns of a path.
enum Visit {
    Mods(Vec<ModItem>),
    Absent,
    Stopped,
}

impl ReadAhead {
    /// Starts reading ahead, below `dir`, the module trees of the crate roots `roots` (paths from
    /// `dir`), which the extraction mounts in that order.
    pub(in crate::extract) fn start(dir: &Path, roots: &[&str]) -> Option<Self> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let thread = Arc::clone(&shared);
        let dir = dir.to_path_buf();
        // The thread takes the last root first.
        let stack = roots
            .iter()
            .map(|root| vec![((*root).to_owned(), parent_dir(root).to_owned())])
            .collect();
        // Without a thread the extraction reads every file itself, as it would anyway.
        std::thread::Builder::new()
            .name("wirecheck-ahead".to_owned())
            .spawn(move || {
                // Told even when the scan panics: the extraction then reads what is left itself.
                let _finished = Finished(&thread);
                thread.run(&dir, stack);
            })
            .ok()?;
        Some(ReadAhead { shared })
    }

    /// The file at `path` as the thread scanned it, waiting while it scans it; `None` when it did not,
    /// and the caller reads it. Either way the extraction has it from now on: the caller then tells its
    /// `mod` declarations ([`ReadAhead::mounted`]), or that there is none ([`ReadAhead::absent`]).
    pub(in crate::extract) fn take(&self, path: &str) -> Option<Scanned> {
        let mut state = self.shared.lock();
        while !state.finished && matches!(state.files.get(path), Some(Slot::Reading)) {
            state = self.shared.wait(state);
        }
        match state.files.insert(path.to_owned(), Slot::Taken(None)) {
            Some(Slot::Scanned(scanned)) => Some(*scanned),
            _ => None,
        }
    }

    /// Tells the `mod` declarations of the file at `path`, which the extraction mounts.
    pub(in crate::extract) fn mounted(&self, path: &str, mods: &[ModItem]) {
        self.shared.set(path, Slot::Taken(Some(mods.to_vec())));
    }

    /// Tells that the extraction found no file at `path`.
    pub(in crate::extract) fn absent(&self, path: &str) {
        self.shared.set(path, Slot::Absent);
    }
}

/// A read-ahead started before the workspace's crates were known for certain: from a guess of the
/// workspace root and of its crate roots, made while `cargo metadata` runs (its answer is the truth).
/// The working tree's extraction takes it only when the guess was right (`EarlyReadAhead::take_if`),
/// so that a wrong guess costs the files it read and nothing else; dropped, it stops.
pub struct EarlyReadAhead {
    dir: PathBuf,
    /// The guessed crate roots (paths from `dir`), sorted, without repeats.
    roots: Vec<String>,
    ahead: ReadAhead,
}

impl EarlyReadAhead {
    /// Starts reading ahead the module trees of `roots` (paths from `dir`) below `dir`.
    pub fn start(dir: &Path, mut roots: Vec<String>) -> Option<Self> {
        roots.sort();
        roots.dedup();
        let listed: Vec<&str> = roots.iter().map(String::as_str).collect();
        let ahead = ReadAhead::start(dir, &listed)?;
        Some(EarlyReadAhead {
            dir: dir.to_path_buf(),
            roots,
            ahead,
        })
    }

    /// The read-ahead, when it reads the module trees of `roots` (in the extraction's order: sorted)
    /// below `dir`; else it stops, and `None`.
    pub(super) fn take_if(self, dir: &Path, roots: &[&str]) -> Option<ReadAhead> {
        let mut wanted = roots.to_vec();
        wanted.dedup();
        let same_roots = self.roots.iter().map(String::as_str).eq(wanted);
        (same_roots && same_dir(&self.dir, dir)).then_some(self.ahead)
    }
}

/// Whether two paths name the same directory (as written, or once resolved).
fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

#[cfg(test)]
impl ReadAhead {
    /// Waits until the thread has followed every tree it can (or been stopped).
    fn wait_finished(&self) {
        let mut state = self.shared.lock();
        while !state.finished {
            state = self.shared.wait(state);
        }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.changed.notify_all();
    }
}

/// Marks the thread finished when it returns or unwinds.
struct Finished<'a>(&'a Shared);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.lock().finished = true;
        self.0.changed.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic of the other thread leaves the map whole: every change is one insert.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, path: &str, slot: Slot) {
        self.lock().files.insert(path.to_owned(), slot);
        self.changed.notify_all();
    }

    /// The thread: the module trees from their roots, depth first, each file's last `mod` first. An
    /// entry of `stack` is the files a module may be in, the first that exists being it.
    fn run(&self, dir: &Path, mut stack: Vec<Vec<(String, String)>>) {
        let mut seen = FxHashSet::default();
        while let Some(choices) = stack.pop() {
            for (path, child_dir) in choices {
                if !seen.insert(path.clone()) {
                    break; // A `#[path]` back to a file already followed.
                }
                match self.visit(dir, &path) {
                    Visit::Stopped => return,
                    Visit::Absent => continue,
                    Visit::Mods(mods) => {
                        stack.extend(
                            mods.iter()
                                .filter(|declared| !declared.inline)
                                .map(|declared| candidates(declared, &child_dir)),
                        );
                        break;
                    }
                }
            }
        }
    }

    /// The `mod` declarations of the file at `path`: scanned here unless the extraction has it, whose
    /// declarations are then awaited.
    fn visit(&self, dir: &Path, path: &str) -> Visit {
        let mut state = self.lock();
        loop {
            if state.stopped {
                return Visit::Stopped;
            }
            match state.files.get(path) {
                None => break,
                Some(Slot::Taken(Some(mods))) => return Visit::Mods(mods.clone()),
                Some(Slot::Taken(None)) => state = self.wait(state),
                Some(Slot::Absent) => return Visit::Absent,
                // Only this thread scans, and it visits a path once.
                Some(Slot::Reading | Slot::Scanned(_)) => return Visit::Absent,
            }
        }
        state.files.insert(path.to_owned(), Slot::Reading);
        drop(state);
        let scanned = read_text(&dir.join(path)).map(Scanned::of);
        let mut state = self.lock();
        let visit = match scanned {
            Some(scanned) => {
                let mods = scanned.mods().to_vec();
                // The extraction may have told the file's `mod`s meanwhile (its blob was known).
                if matches!(state.files.get(path), Some(Slot::Reading)) {
                    state
                        .files
                        .insert(path.to_owned(), Slot::Scanned(Box::new(scanned)));
                }
                Visit::Mods(mods)
            }
            None => {
                // The extraction reads it itself, and reports what is wrong with it.
                if matches!(state.files.get(path), Some(Slot::Reading)) {
                    state.files.remove(path);
                }
                Visit::Absent
            }
        };
        drop(state);
        self.changed.notify_all();
        visit
    }
}

/// The text of the file at `path`; `None` when there is none, or it cannot be read as UTF-8.
fn read_text(path: &Path) -> Option<String> {
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests;
