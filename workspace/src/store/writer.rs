//! The store's writes, on a thread of their own: serializing and writing what was extracted at a release
//! overlaps the extraction of the next one. What is written is plain data, moved or shared (`Arc`) into
//! the write; extraction itself stays on the caller's thread (syn's trees are not `Send`).

use std::any::Any;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, SendError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// One file's write, given the file's path: run on the writer's thread.
pub(super) type Write = Box<dyn FnOnce(&Path) + Send>;

/// A thread that runs the store's writes one at a time, in the order they are queued. Dropping it waits
/// for every queued write, and raises again the panic of one (a failed debug assertion).
#[derive(Debug)]
pub(super) struct Writer {
    /// `None` once dropped: the thread ends when the queue is closed and empty.
    jobs: Option<Sender<(PathBuf, Write)>>,
    thread: Option<JoinHandle<()>>,
    state: Arc<State>,
}

/// What the writer's thread and its owner share.
#[derive(Debug, Default)]
struct State {
    /// The files queued and not written yet, with how many writes of each are queued.
    queued: Mutex<HashMap<PathBuf, usize>>,
    /// Told after each write.
    written: Condvar,
    /// The first panic of a write.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Writer {
    /// A writer on a thread of its own; `None` when no thread can be started.
    pub(super) fn spawn() -> Option<Writer> {
        let (jobs, queue) = mpsc::channel::<(PathBuf, Write)>();
        let state = Arc::<State>::default();
        let shared = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("wirecheck-store".to_owned())
            .spawn(move || {
                for (path, write) in queue {
                    shared.run(path, write);
                }
            })
            .ok()?;
        Some(Writer {
            jobs: Some(jobs),
            thread: Some(thread),
            state,
        })
    }

    /// Queues `write` of the file at `path`, to run after every write queued before it.
    pub(super) fn queue(&self, path: PathBuf, write: Write) {
        *lock(&self.state.queued).entry(path.clone()).or_default() += 1;
        let sent = match &self.jobs {
            Some(jobs) => jobs.send((path, write)),
            None => Err(SendError((path, write))),
        };
        if let Err(SendError((path, write))) = sent {
            // No thread to run it: written here.
            self.state.run(path, write);
        }
    }

    /// Waits until no write of `path` is queued: a file this writer was given is read back as written.
    pub(super) fn settled(&self, path: &Path) {
        let mut queued = lock(&self.state.queued);
        while queued.contains_key(path) {
            queued = (self.state.written)
                .wait(queued)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl State {
    /// Runs one queued write of `path`, keeping its panic for the owner.
    fn run(&self, path: PathBuf, write: Write) {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| write(&path))) {
            lock(&self.panic).get_or_insert(panic);
        }
        let mut queued = lock(&self.queued);
        if let Some(count) = queued.get_mut(&path) {
            *count -= 1;
            if *count == 0 {
                queued.remove(&path);
            }
        }
        drop(queued);
        self.written.notify_all();
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            // A write's panic is caught and kept (below): the thread itself does not panic.
            let _ = thread.join();
        }
        let panic = lock(&self.state.panic).take();
        if let Some(panic) = panic
            && !std::thread::panicking()
        {
            resume_unwind(panic);
        }
    }
}

/// `mutex`'s guard, also after a panic while it was held: every change under these locks is whole
/// when the lock is let go.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A write of `bytes` to its path, after `delay` (a slow serialization).
    fn slow(delay: Duration, bytes: &'static str) -> Write {
        Box::new(move |path| {
            std::thread::sleep(delay);
            std::fs::write(path, bytes).unwrap();
        })
    }

    #[test]
    fn a_queued_file_is_read_back_once_settled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slow.json");
        let writer = Writer::spawn().unwrap();
        writer.queue(path.clone(), slow(Duration::from_millis(200), "one"));
        assert!(!path.exists(), "not written yet");
        writer.settled(&path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one");
        // Nothing queued: at once.
        writer.settled(&dir.path().join("other.json"));
    }

    #[test]
    fn dropping_the_writer_waits_for_every_write_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Writer::spawn().unwrap();
        let paths: Vec<PathBuf> = (0..10)
            .map(|i| dir.path().join(format!("{i}.json")))
            .collect();
        for path in &paths {
            writer.queue(path.clone(), slow(Duration::from_millis(10), "first"));
        }
        // One file queued twice: the later write is the one kept.
        writer.queue(paths[0].clone(), slow(Duration::ZERO, "second"));
        drop(writer);
        assert_eq!(std::fs::read_to_string(&paths[0]).unwrap(), "second");
        for path in &paths[1..] {
            assert_eq!(std::fs::read_to_string(path).unwrap(), "first");
        }
    }

    #[test]
    fn a_panicking_write_is_raised_when_dropped_and_the_others_still_run() {
        let dir = tempfile::tempdir().unwrap();
        let (failed, after) = (dir.path().join("failed"), dir.path().join("after"));
        let dropped = std::panic::catch_unwind(|| {
            let writer = Writer::spawn().unwrap();
            writer.queue(failed.clone(), Box::new(|_| panic!("a failed assertion")));
            writer.queue(after.clone(), slow(Duration::ZERO, "written"));
            // Waiting on the failed file does not hang.
            writer.settled(&failed);
        });
        let panic = dropped.expect_err("raised again when the writer is dropped");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"a failed assertion"));
        assert_eq!(std::fs::read_to_string(&after).unwrap(), "written");
    }
}
