//! Releases read on a second thread while the main thread reads the working tree.
//!
//! A cold run extracts the working tree and every release it reads, one after the other. Extraction stays
//! on one thread per [source cache](crate::extract::SourceCache) (syn's spans are thread-local), so a
//! [`Prefetch`] starts one worker thread with its own workspace, repository, source cache and store
//! handle. The worker reads the run's releases (its [`Job`]s, in order) into the [store](crate::store);
//! the main thread then reads them from there, as a warm run does, and a whole release is also handed
//! over in memory. Once the main thread has the working tree, it takes the jobs the worker has not
//! started, from the last one back, so that both threads finish together.
//!
//! Nothing here decides a result: what the worker stores is what the main thread would have stored, and
//! whatever the worker could not do (a release that does not parse, a store it could not write, a filter
//! predicted wrong) the main thread does again, as it would without the worker, and reports once. With
//! the store disabled (`--no-cache`) or not writable, no worker starts: the run is sequential, as before.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use super::history::History;
use super::{DetachedWorkspace, WorkspaceError};
use crate::extract::Keep;
use crate::model::{ProtocolDecl, Snapshot};
use crate::store::DetachedStore;

/// A release a run will read.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    /// The release's commit.
    pub(crate) commit: String,
    /// Its name (tag or revision), for errors.
    pub(crate) rev: String,
    /// Read whole ([`History::release`]); else filtered with the predicted [`Keep`] of each protocol
    /// ([`History::release_parts`]).
    pub(crate) whole: bool,
}

/// What a filtered [`Job`] keeps of each protocol (`old`), given the model the working tree is expected to
/// have: the declarations of the first job the worker read (a protocol of the first job, read filtered,
/// expects its own declaration). The main thread asks with the working tree's real model; a prediction
/// that keeps less than it asks is extracted again (the store's parts cover only what they kept).
pub(crate) type Predict = fn(&Snapshot, &ProtocolDecl) -> Keep;

/// Who has a job.
enum Slot {
    /// Nobody yet.
    Open,
    /// The worker, reading it now.
    Worker,
    /// Done; a whole release read, handed over once.
    Done(Option<Snapshot>),
    /// The main thread (done by it, or handed over to it).
    Main,
}

/// The jobs' slots, and whether the worker must stop or has ended.
struct State {
    slots: Vec<Slot>,
    stop: bool,
    ended: bool,
}

/// What both threads share.
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The lock is never held across a call that may panic: the state stays whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the first open job for the worker, unless it must stop.
    fn claim_first(&self) -> Option<usize> {
        let mut state = self.lock();
        if state.stop {
            return None;
        }
        let i = state.slots.iter().position(|s| matches!(s, Slot::Open))?;
        state.slots[i] = Slot::Worker;
        Some(i)
    }

    /// Takes the last open job for the main thread.
    fn claim_last(&self) -> Option<usize> {
        let mut state = self.lock();
        let i = state.slots.iter().rposition(|s| matches!(s, Slot::Open))?;
        state.slots[i] = Slot::Main;
        Some(i)
    }

    /// Marks job `i` done with what it read.
    fn done(&self, i: usize, read: Option<Snapshot>) {
        self.lock().slots[i] = Slot::Done(read);
        self.changed.notify_all();
    }

    /// Job `i` for the main thread: once the worker is done with it, what it read (whole), handed over
    /// once; `None` when there is nothing to hand over (then the main thread reads it).
    fn take(&self, i: usize) -> Option<Snapshot> {
        let mut state = self.lock();
        while matches!(state.slots[i], Slot::Worker) && !state.ended {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        match std::mem::replace(&mut state.slots[i], Slot::Main) {
            Slot::Done(read) => read,
            _ => None,
        }
    }
}

/// Marks the worker ended when it returns or unwinds, so that the main thread never waits for it in vain.
struct Ended(Arc<Shared>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.lock().ended = true;
        self.0.changed.notify_all();
    }
}

/// The worker thread reading a run's releases (see the module documentation). Dropping it stops the
/// worker after its current job and waits for it.
pub(crate) struct Prefetch<'h, 'w> {
    history: &'h History<'w>,
    jobs: Vec<Job>,
    /// `None`: no worker (nothing to read, the store disabled or not writable, or no thread).
    shared: Option<Arc<Shared>>,
    /// The worker, until it is joined.
    worker: Option<JoinHandle<()>>,
}

impl<'h, 'w> Prefetch<'h, 'w> {
    /// Starts reading `jobs` (in this order) on a worker thread into the store of `history`, filtered
    /// jobs with the [`Keep`] that `predict` gives from the first whole job's model. Starts nothing when
    /// the store cannot be written, or there is no job.
    pub(crate) fn start(history: &'h History<'w>, jobs: Vec<Job>, predict: Predict) -> Self {
        let started = if jobs.is_empty() {
            None
        } else {
            history.detach().and_then(|detached| {
                let shared = Arc::new(Shared {
                    state: Mutex::new(State {
                        slots: jobs.iter().map(|_| Slot::Open).collect(),
                        stop: false,
                        ended: false,
                    }),
                    changed: Condvar::new(),
                });
                let (theirs, their_jobs) = (Arc::clone(&shared), jobs.clone());
                std::thread::Builder::new()
                    .name("wirecheck-releases".to_owned())
                    .spawn(move || work(detached, &their_jobs, predict, theirs))
                    .ok()
                    .map(|handle| (shared, handle))
            })
        };
        let (shared, worker) = started.unzip();
        Prefetch {
            history,
            jobs,
            shared,
            worker,
        }
    }

    /// The whole model of the release at `commit` (named `rev`): as the worker read it, else as
    /// [`History::release`] reads it (from the store, else extracted, with its error).
    pub(crate) fn release(&self, commit: &str, rev: &str) -> Result<Snapshot, WorkspaceError> {
        let handed = self.shared.as_ref().and_then(|shared| {
            let i = self
                .jobs
                .iter()
                .position(|job| job.whole && job.commit == commit)?;
            shared.take(i)
        });
        match handed {
            Some(snapshot) => Ok(snapshot),
            None => self.history.release(commit, rev),
        }
    }

    /// Does the jobs the worker has not started with `read` on this thread, from the last one back (a
    /// whole one gives its model), then waits for the worker to end: every job is then in the store or
    /// in memory, or was not readable. A worker that panicked panics here.
    pub(crate) fn share(&mut self, mut read: impl FnMut(&Job) -> Option<Snapshot>) {
        let (Some(shared), Some(handle)) = (&self.shared, self.worker.take()) else {
            return;
        };
        while let Some(i) = shared.claim_last() {
            let snapshot = read(&self.jobs[i]);
            shared.done(i, snapshot);
        }
        if let Err(panic) = handle.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Drop for Prefetch<'_, '_> {
    fn drop(&mut self) {
        if let (Some(shared), Some(handle)) = (&self.shared, self.worker.take()) {
            shared.lock().stop = true;
            // A panic of the worker surfaces in `share`; here the run has its result (or error) already.
            let _ = handle.join();
        }
    }
}

/// The worker: reads `jobs` into the store, in order, until none is open or it must stop.
fn work(
    (workspace, store): (DetachedWorkspace, DetachedStore),
    jobs: &[Job],
    predict: Predict,
    shared: Arc<Shared>,
) {
    let _ended = Ended(Arc::clone(&shared));
    let workspace = workspace.attach();
    let Ok(repo) = workspace.repository() else {
        return;
    };
    let history = History::on_thread(&workspace, &repo, store.attach());
    // What `predict` expects the working tree to declare: the protocols of the first release read.
    let mut expected: Option<Snapshot> = None;
    while let Some(i) = shared.claim_first() {
        let job = &jobs[i];
        let read = if job.whole {
            history.release(&job.commit, &job.rev).ok()
        } else {
            let seen = RefCell::new(Vec::new());
            let keep = |old: &ProtocolDecl| {
                seen.borrow_mut().push(old.clone());
                match &expected {
                    Some(expected) => predict(expected, old),
                    // The first release read expects itself.
                    None => predict(&declaring(vec![old.clone()]), old),
                }
            };
            // Nothing is compared here: every part is "seen", so none is read back, only stored.
            let _ = history.release_parts(&job.commit, &job.rev, &keep, &|_, _| false);
            let seen = seen.into_inner();
            (!seen.is_empty()).then(|| declaring(seen))
        };
        if expected.is_none() {
            expected = read.as_ref().map(|read| declaring(read.protocols.clone()));
        }
        shared.done(i, read.filter(|_| job.whole));
    }
}

/// A model that declares `protocols` and nothing else.
fn declaring(protocols: Vec<ProtocolDecl>) -> Snapshot {
    Snapshot {
        protocols,
        ..Snapshot::default()
    }
}
