//! A rolling upgrade, end to end: `flux-job-manager` and `flux-scheduler` run as two processes on a loopback
//! TCP port, exchange wirecheck hellos announcing different `sched` versions, and then either run the RFC 27
//! exchange or refuse with the message a person reads. Every wait is bounded.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use flux_protocols::sched::Sched;
use wirecheck::Protocol;

/// How long any one process may take.
const DEADLINE: Duration = Duration::from_secs(30);
/// What the processes themselves wait for at most at each step (`--timeout`), below [`DEADLINE`].
const PEER_TIMEOUT: &str = "20";

/// The RFC 27 exchange as the job-manager prints it, after the listening and handshake lines.
const JOB_MANAGER_SESSION: &str = "\
job-manager.sched-hello: job 1 holds resources
job-manager.sched-ready: scheduler ready (unlimited), 3 jobs queued
sched.alloc: job 2: allocated cores 4-7
sched.alloc: job 3: pending: insufficient resources
sched.alloc: job 4: denied: unsatisfiable: 16 cores requested, the instance has 8
sched.free: job 1: cores 0-3 released (final)
sched.alloc: job 3: allocated cores 0-3
";

/// The same exchange as the scheduler prints it, after the handshake line.
const SCHEDULER_SESSION: &str = "\
job-manager.sched-hello: job 1 holds cores 0-3
job-manager.sched-ready: 3 jobs queued
sched.alloc: job 2: allocated cores 4-7
sched.alloc: job 3: pending: insufficient resources
sched.alloc: job 4: denied: unsatisfiable: 16 cores requested, the instance has 8
sched.free: job 1: cores 0-3 released (final)
sched.alloc: job 3: allocated cores 0-3
";

/// What a finished process left.
#[derive(Debug)]
struct Finished {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A running process whose output is collected by reader threads; killed if dropped while still running.
struct Running {
    name: &'static str,
    child: Child,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    started: Instant,
}

impl Running {
    fn spawn(name: &'static str, exe: &str, args: &[&str]) -> Running {
        let mut child = Command::new(exe)
            .args(args)
            .args(["--timeout", PEER_TIMEOUT])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Running {
            name,
            child,
            lines,
            stderr: Some(stderr),
            started: Instant::now(),
        }
    }

    fn remaining(&self) -> Duration {
        DEADLINE.saturating_sub(self.started.elapsed())
    }

    /// The next line on stdout, within the deadline.
    fn line(&mut self) -> String {
        match self.lines.recv_timeout(self.remaining()) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("{}: no output within {DEADLINE:?}", self.name)
            }
            Err(RecvTimeoutError::Disconnected) => {
                let finished = self.finish();
                panic!(
                    "{} ended without the expected line: {finished:?}",
                    self.name
                )
            }
        }
    }

    /// Waits for the exit (killing the process past the deadline) and collects the rest of its output.
    fn finish(&mut self) -> Finished {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if self.remaining().is_zero() {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} did not finish within {DEADLINE:?}", self.name);
            }
            thread::sleep(Duration::from_millis(10));
        };
        let mut stdout = String::new();
        loop {
            match self.lines.recv_timeout(self.remaining()) {
                Ok(line) => {
                    stdout.push_str(&line);
                    stdout.push('\n');
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{}: stdout still open after exit", self.name)
                }
            }
        }
        let stderr = self
            .stderr
            .take()
            .map(|t| t.join().expect("stderr reader"))
            .unwrap_or_default();
        Finished {
            code: status.code(),
            stdout,
            stderr,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts a job-manager on 127.0.0.1 (port 0) and a scheduler connecting to it; returns both outcomes, the
/// job-manager's stdout without its `listening on` line.
fn run_pair(job_manager_args: &[&str], scheduler_args: &[&str]) -> (Finished, Finished) {
    let mut args = vec!["--listen", "127.0.0.1:0"];
    args.extend_from_slice(job_manager_args);
    let mut job_manager = Running::spawn(
        "flux-job-manager",
        env!("CARGO_BIN_EXE_flux-job-manager"),
        &args,
    );
    let listening = job_manager.line();
    let addr = listening
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {listening}"));
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");

    let mut args = vec!["--connect", addr];
    args.extend_from_slice(scheduler_args);
    let mut scheduler = Running::spawn(
        "flux-scheduler",
        env!("CARGO_BIN_EXE_flux-scheduler"),
        &args,
    );
    let scheduler = scheduler.finish();
    let job_manager = job_manager.finish();
    (job_manager, scheduler)
}

/// Asserts both peers agreed on `sched` at the given versions and ran the whole RFC 27 exchange.
fn assert_agreed(
    job_manager: &Finished,
    scheduler: &Finished,
    jm_version: &str,
    sched_version: &str,
) {
    assert_eq!(
        (job_manager.code, job_manager.stderr.as_str()),
        (Some(0), ""),
        "job-manager: {job_manager:?}"
    );
    assert_eq!(
        (scheduler.code, scheduler.stderr.as_str()),
        (Some(0), ""),
        "scheduler: {scheduler:?}"
    );
    assert_eq!(
        job_manager.stdout,
        format!(
            "scheduler speaks sched {sched_version}, this job-manager {jm_version}: accepted\n{JOB_MANAGER_SESSION}"
        )
    );
    assert_eq!(
        scheduler.stdout,
        format!(
            "job-manager speaks sched {jm_version}, this scheduler {sched_version}: accepted\n{SCHEDULER_SESSION}"
        )
    );
}

/// Asserts both peers refused at the handshake with exactly these messages, before any RFC 27 message.
fn assert_refused(
    job_manager: &Finished,
    scheduler: &Finished,
    jm_says: &str,
    scheduler_says: &str,
) {
    assert_eq!(
        (
            job_manager.code,
            job_manager.stdout.as_str(),
            job_manager.stderr.as_str()
        ),
        (
            Some(1),
            "",
            format!("flux-job-manager: {jm_says}\n").as_str()
        ),
        "job-manager: {job_manager:?}"
    );
    assert_eq!(
        (
            scheduler.code,
            scheduler.stdout.as_str(),
            scheduler.stderr.as_str()
        ),
        (
            Some(1),
            "",
            format!("flux-scheduler: {scheduler_says}\n").as_str()
        ),
        "scheduler: {scheduler:?}"
    );
}

#[test]
fn the_declared_versions_agree_and_schedule() {
    let (job_manager, scheduler) = run_pair(&[], &[]);
    assert_agreed(&job_manager, &scheduler, Sched::VERSION, Sched::VERSION);
}

#[test]
fn job_manager_upgraded_first_accepts_the_older_scheduler_it_vouches_for() {
    let (job_manager, scheduler) = run_pair(
        &[
            "--sched-version",
            "0.88.0",
            "--sched-min-compatible",
            "0.87.0",
        ],
        &["--sched-version", "0.87.4"],
    );
    assert_agreed(&job_manager, &scheduler, "0.88.0", "0.87.4");
}

#[test]
fn an_older_job_manager_accepts_a_newer_scheduler_that_vouches_for_it() {
    // The 0.87 job-manager's own rule knows nothing of 0.88; the 0.88 scheduler's min_compatible decides.
    let (job_manager, scheduler) = run_pair(
        &["--sched-version", "0.87.4"],
        &[
            "--sched-version",
            "0.88.0",
            "--sched-min-compatible",
            "0.87.0",
        ],
    );
    assert_agreed(&job_manager, &scheduler, "0.87.4", "0.88.0");
}

#[test]
fn a_scheduler_below_the_job_managers_minimum_is_refused_on_both_ends() {
    let (job_manager, scheduler) = run_pair(
        &[
            "--sched-version",
            "0.88.0",
            "--sched-min-compatible",
            "0.87.0",
        ],
        &["--sched-version", "0.86.2"],
    );
    assert_refused(
        &job_manager,
        &scheduler,
        "scheduler speaks sched 0.86.2; this job-manager accepts 0.87.0 and later: upgrade the scheduler first",
        "job-manager speaks sched 0.88.0, which accepts 0.87.0 and later; \
         this scheduler speaks 0.86.2: upgrade the scheduler first",
    );
}

#[test]
fn without_min_compatible_a_new_0_y_refuses_the_previous_one() {
    // The scheduler was upgraded first to a 0.88.0 that declares no min_compatible: for 0.y, only the same y.
    let (job_manager, scheduler) = run_pair(
        &["--sched-version", "0.87.4"],
        &["--sched-version", "0.88.0"],
    );
    assert_refused(
        &job_manager,
        &scheduler,
        "scheduler speaks sched 0.88.0, which accepts 0.88.0 and later; \
         this job-manager speaks 0.87.4: upgrade the job-manager first",
        "job-manager speaks sched 0.87.4; this scheduler accepts 0.88.0 and later: upgrade the job-manager first",
    );
}

/// Issue 14, item 5: with `server-first` announced by both releases, a job-manager (sched's client) newer than
/// its scheduler (the server) is the pairing the checker did not prove. Both processes refuse it, naming the order.
#[test]
fn server_first_refuses_a_job_manager_newer_than_its_scheduler() {
    let (job_manager, scheduler) = run_pair(
        &[
            "--sched-version",
            "0.88.0",
            "--sched-min-compatible",
            "0.87.0",
            "--sched-upgrade",
            "server-first",
        ],
        &[
            "--sched-version",
            "0.87.4",
            "--sched-upgrade",
            "server-first",
        ],
    );
    assert_refused(
        &job_manager,
        &scheduler,
        "sched is server-first: this job-manager (client) speaks 0.88.0 and the scheduler (server) 0.87.4; \
         upgrade the servers first: the scheduler to 0.88.0 or later",
        "sched is server-first: this scheduler (server) speaks 0.87.4 and the job-manager (client) 0.88.0; \
         upgrade the servers first: the scheduler to 0.88.0 or later",
    );
}

/// The same two versions the other way round: the scheduler upgraded first is the pairing `server-first` proves.
#[test]
fn server_first_accepts_a_scheduler_upgraded_first() {
    let (job_manager, scheduler) = run_pair(
        &[
            "--sched-version",
            "0.87.4",
            "--sched-upgrade",
            "server-first",
        ],
        &[
            "--sched-version",
            "0.88.0",
            "--sched-min-compatible",
            "0.87.0",
            "--sched-upgrade",
            "server-first",
        ],
    );
    assert_agreed(&job_manager, &scheduler, "0.87.4", "0.88.0");
}

#[test]
fn patch_skew_within_a_series_is_accepted() {
    let (job_manager, scheduler) = run_pair(
        &["--sched-version", "0.88.1"],
        &["--sched-version", "0.88.3"],
    );
    assert_agreed(&job_manager, &scheduler, "0.88.1", "0.88.3");
}

#[test]
fn a_malformed_version_override_is_refused_before_connecting() {
    // Port 9 (discard) on loopback: never reached, the hello is checked first.
    let mut scheduler = Running::spawn(
        "flux-scheduler",
        env!("CARGO_BIN_EXE_flux-scheduler"),
        &["--connect", "127.0.0.1:9", "--sched-version", "0.88"],
    );
    let scheduler = scheduler.finish();
    assert_eq!(
        (
            scheduler.code,
            scheduler.stdout.as_str(),
            scheduler.stderr.as_str()
        ),
        (
            Some(1),
            "",
            "flux-scheduler: this scheduler's own hello is malformed: sched version `0.88` is not a semantic \
             version: unexpected end of input while parsing minor version number\n"
        )
    );
}
