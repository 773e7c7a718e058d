//! A Flux job-manager stand-in for the rolling-upgrade example (see `tests/rolling_handshake.rs`).
//!
//! It listens on a loopback TCP port and waits for one scheduler. It opens with a wirecheck hello listing the
//! `sched` protocol (Flux RFC 27) it speaks, as its client (`sched.alloc` and `sched.free` go to the scheduler).
//! If the handshake agrees, it runs the RFC 27 exchange a job-manager has with a freshly loaded scheduler:
//!
//! 1. it answers `job-manager.sched-hello` with the job that holds resources, then ends the stream with ENODATA;
//! 2. it answers `job-manager.sched-ready` with the queue depth;
//! 3. it sends `sched.alloc` for the pending jobs and reads their responses;
//! 4. once each has an answer, it sends `sched.free` for the running job, and reads the last responses.
//!
//! ```text
//! flux-job-manager [--listen 127.0.0.1:0] [--sched-version VERSION] [--sched-min-compatible VERSION]
//!                  [--sched-upgrade ORDER] [--timeout SECONDS]
//! ```
//!
//! `--sched-version` announces another `sched` version than the one declared by
//! `<Sched as Protocol>::VERSION`, as an older or newer release would. The declared `min_compatible` is
//! dropped with it; `--sched-min-compatible` sets one; `--sched-upgrade` announces another upgrade order
//! (`any-order`, `server-first`, `client-first`), as a release declaring it would. The first line on stdout is
//! `listening on ADDR`; then comes one line per step. A failure goes to stderr as
//! `flux-job-manager: <why>`. Exit code: 0 done, 1 handshake refused (or a malformed hello), 2 any
//! other error.

mod peer;

use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

use flux_protocols::sched::{
    AllocRequest, AllocResponse, FreeRequest, HelloRequest, HelloResponse, ReadyMode, ReadyRequest,
    ReadyResponse,
};
use peer::{Args, Conn, ENODATA, Failure, RUNNING_JOB};
use serde_json::{Value, json};
use wirecheck::Message;
use wirecheck::handshake::Role;

const PROGRAM: &str = "flux-job-manager";

/// The pending jobs, in submission order: (job ID, cores requested).
const PENDING: [(u64, u64); 3] = [(2, 4), (3, 4), (4, 16)];

fn main() -> ExitCode {
    peer::run(PROGRAM, job_manager)
}

fn job_manager() -> Result<(), Failure> {
    let args = Args::parse(PROGRAM, "--listen")?;
    let hello = args.hello("job-manager", Role::Client)?;
    let addr = args.addr.unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0)));
    let listener = TcpListener::bind(addr)
        .map_err(|e| Failure::Connection(format!("cannot listen on {addr}: {e}")))?;
    println!("listening on {}", listener.local_addr()?);

    let stream = accept(&listener, args.timeout)?;
    let mut conn = Conn::new(stream, args.timeout, "scheduler")?;
    conn.handshake(&hello, true)?;

    // job-manager.sched-hello: one response per job holding resources, then ENODATA ends the stream.
    let _: HelloRequest = conn.expect()?.decode()?;
    conn.send(&HelloResponse {
        id: RUNNING_JOB,
        priority: 16,
        userid: 1000,
        t_submit: 1_700_000_000.0,
        free: None,
    })?;
    conn.send_error(HelloRequest::TOPIC, ENODATA, "No data available")?;
    println!("{}: job {RUNNING_JOB} holds resources", HelloRequest::TOPIC);

    // job-manager.sched-ready: the scheduler says how many allocs it takes at once.
    let ready: ReadyRequest = conn.expect()?.decode()?;
    ready
        .validate()
        .map_err(|e| Failure::Connection(e.to_string()))?;
    conn.send(&ReadyResponse {
        count: PENDING.len() as u32,
    })?;
    let mode = match (ready.mode, ready.limit) {
        (ReadyMode::Limited, Some(limit)) => format!("limited to {limit}"),
        _ => "unlimited".to_owned(),
    };
    println!(
        "{}: scheduler ready ({mode}), {} jobs queued",
        ReadyRequest::TOPIC,
        PENDING.len()
    );

    // sched.alloc for every pending job; responses come back matched by job ID.
    let mut unanswered = BTreeSet::new();
    for (id, cores) in PENDING {
        conn.send(&AllocRequest {
            id,
            priority: 16,
            userid: 1000,
            t_submit: 1_700_000_000.0 + id as f64,
            jobspec: jobspec(cores),
        })?;
        unanswered.insert(id);
    }
    let mut pending = unanswered.clone();
    while !unanswered.is_empty() {
        let response = alloc_response(&mut conn, &pending)?;
        unanswered.remove(&response.id);
        if response.kind.is_final() {
            pending.remove(&response.id);
        }
    }

    // The running job is done: give its resources back (sched.free has no response).
    let r = peer::kvs_lookup_r(RUNNING_JOB)
        .ok_or_else(|| Failure::Connection(format!("job {RUNNING_JOB} has no R")))?;
    let cores = peer::cores_of(&r).unwrap_or("?").to_owned();
    conn.send(&FreeRequest {
        id: RUNNING_JOB,
        r,
        final_: Some(true),
    })?;
    println!(
        "{}: job {RUNNING_JOB}: cores {cores} released (final)",
        FreeRequest::TOPIC
    );

    while !pending.is_empty() {
        let response = alloc_response(&mut conn, &pending)?;
        if response.kind.is_final() {
            pending.remove(&response.id);
        }
    }
    conn.close()
}

/// Reads and prints one `sched.alloc` response for one of the `pending` jobs.
fn alloc_response(conn: &mut Conn, pending: &BTreeSet<u64>) -> Result<AllocResponse, Failure> {
    let response: AllocResponse = conn.expect()?.decode()?;
    response
        .validate()
        .map_err(|e| Failure::Connection(e.to_string()))?;
    if !pending.contains(&response.id) {
        return Err(Failure::Connection(format!(
            "{}: response for job {}, which has no pending alloc",
            AllocRequest::TOPIC,
            response.id
        )));
    }
    println!(
        "{}: job {}: {}",
        AllocRequest::TOPIC,
        response.id,
        peer::describe(&response)
    );
    Ok(response)
}

/// Waits for one connection, at most `timeout`.
fn accept(listener: &TcpListener, timeout: Duration) -> Result<TcpStream, Failure> {
    listener.set_nonblocking(true)?;
    let deadline = Instant::now() + timeout;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false)?;
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(Failure::Connection(
                        "timed out waiting for the scheduler to connect".into(),
                    ));
                }
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// A minimal RFC 14 jobspec asking for `cores` cores in one slot.
fn jobspec(cores: u64) -> Value {
    json!({
        "version": 1,
        "resources": [{
            "type": "slot", "count": 1, "label": "task",
            "with": [{ "type": "core", "count": cores }]
        }],
        "tasks": [{ "command": ["sleep", "60"], "slot": "task", "count": { "per_slot": 1 } }],
        "attributes": { "system": { "duration": 0 } }
    })
}
