//! A Flux scheduler stand-in for the rolling-upgrade example (see `tests/rolling_handshake.rs`).
//!
//! It connects to a `flux-job-manager` on a loopback address and answers the job-manager's wirecheck hello
//! with its own, which lists `sched` with this peer as its server. If the handshake agrees, it does what a
//! freshly loaded scheduler does under RFC 27:
//!
//! 1. it asks `job-manager.sched-hello` which jobs hold resources, and looks their R up (the example's KVS);
//! 2. it sends `job-manager.sched-ready` (unlimited);
//! 3. it serves `sched.alloc` on a one-node, 8-core instance: first fit, ANNOTATE while a job waits for
//!    cores, DENY when it can never fit;
//! 4. it serves `sched.free`, retrying the waiting jobs, until the job-manager closes the connection.
//!
//! ```text
//! flux-scheduler --connect 127.0.0.1:PORT [--sched-version VERSION] [--sched-min-compatible VERSION]
//!                [--sched-upgrade ORDER] [--timeout SECONDS]
//! ```
//!
//! `--sched-version` announces another `sched` version than the one declared by
//! `<Sched as Protocol>::VERSION`, as an older or newer release would. The declared `min_compatible` is
//! dropped with it; `--sched-min-compatible` sets one; `--sched-upgrade` announces another upgrade order
//! (`any-order`, `server-first`, `client-first`), as a release declaring it would. It prints one line per step
//! on stdout; a failure goes to stderr as `flux-scheduler: <why>`. Exit code: 0 done, 1 handshake refused (or a
//! malformed hello), 2 any other error.

mod peer;

use std::net::TcpStream;
use std::process::ExitCode;

use flux_protocols::sched::{
    AllocRequest, AllocResponse, FreeRequest, HelloRequest, HelloResponse, ReadyRequest,
    ReadyResponse,
};
use peer::{Args, Conn, ENODATA, Failure};
use serde_json::json;
use wirecheck::handshake::Role;
use wirecheck::{Kind, Message};

const PROGRAM: &str = "flux-scheduler";

/// ENOSYS on Linux: the answer to a request topic this scheduler does not serve.
const ENOSYS: i32 = 38;

/// Cores on the instance's only node (rank 0).
const CORES: usize = 8;

fn main() -> ExitCode {
    peer::run(PROGRAM, scheduler)
}

fn scheduler() -> Result<(), Failure> {
    let args = Args::parse(PROGRAM, "--connect")?;
    let hello = args.hello("scheduler", Role::Server)?;
    let addr = args
        .addr
        .ok_or_else(|| Failure::Usage("--connect ADDR is required".into()))?;
    let stream = TcpStream::connect_timeout(&addr, args.timeout)
        .map_err(|e| Failure::Connection(format!("cannot connect to {addr}: {e}")))?;
    let mut conn = Conn::new(stream, args.timeout, "job-manager")?;
    conn.handshake(&hello, false)?;

    let mut cores = Cores([None; CORES]);

    // job-manager.sched-hello: the jobs that already hold resources, until ENODATA.
    conn.send(&HelloRequest {
        partial_ok: Some(true),
    })?;
    loop {
        let envelope = conn.expect()?;
        if envelope.topic == HelloRequest::TOPIC && envelope.errnum == ENODATA {
            break;
        }
        let job: HelloResponse = envelope.decode()?;
        let r = peer::kvs_lookup_r(job.id)
            .ok_or_else(|| Failure::Connection(format!("job {}: no R in the KVS", job.id)))?;
        let held = peer::cores_of(&r).and_then(parse_range).ok_or_else(|| {
            Failure::Connection(format!(
                "job {}: R holds no cores this scheduler knows",
                job.id
            ))
        })?;
        cores.assign(job.id, held);
        println!(
            "{}: job {} holds cores {}",
            HelloRequest::TOPIC,
            job.id,
            idset(held)
        );
    }

    // job-manager.sched-ready.
    conn.send(&ReadyRequest::unlimited())?;
    let ready: ReadyResponse = conn.expect()?.decode()?;
    println!("{}: {} jobs queued", ReadyRequest::TOPIC, ready.count);

    // Serve sched.alloc and sched.free until the job-manager closes the connection.
    let mut waiting: Vec<(u64, usize)> = Vec::new();
    while let Some(envelope) = conn.recv()? {
        let topic = envelope.topic.as_str();
        if topic == AllocRequest::TOPIC {
            let request: AllocRequest = envelope.decode()?;
            let wanted = request
                .jobspec
                .pointer("/resources/0/with/0/count")
                .and_then(|count| count.as_u64())
                .ok_or_else(|| {
                    Failure::Connection(format!("job {}: jobspec without a core count", request.id))
                })? as usize;
            let response = if wanted > CORES {
                let note =
                    format!("unsatisfiable: {wanted} cores requested, the instance has {CORES}");
                AllocResponse::deny(request.id, Some(note))
            } else if let Some(range) = cores.first_fit(wanted) {
                cores.assign(request.id, range);
                AllocResponse::success(request.id, peer::r_for(&idset(range)), None)
            } else {
                waiting.push((request.id, wanted));
                AllocResponse::annotate(
                    request.id,
                    json!({ "sched": { "reason_pending": "insufficient resources" } }),
                )
            };
            answer(&mut conn, response)?;
        } else if topic == FreeRequest::TOPIC {
            let request: FreeRequest = envelope.decode()?;
            let freed = peer::cores_of(&request.r)
                .and_then(parse_range)
                .ok_or_else(|| {
                    Failure::Connection(format!(
                        "job {}: sched.free R holds no cores this scheduler knows",
                        request.id
                    ))
                })?;
            cores.release(request.id, freed);
            let last = if request.final_ == Some(true) {
                " (final)"
            } else {
                ""
            };
            println!(
                "{}: job {}: cores {} released{last}",
                FreeRequest::TOPIC,
                request.id,
                idset(freed)
            );
            // Retry the waiting jobs in order.
            let mut still_waiting = Vec::new();
            for (id, wanted) in waiting {
                match cores.first_fit(wanted) {
                    Some(range) => {
                        cores.assign(id, range);
                        answer(
                            &mut conn,
                            AllocResponse::success(id, peer::r_for(&idset(range)), None),
                        )?;
                    }
                    None => still_waiting.push((id, wanted)),
                }
            }
            waiting = still_waiting;
        } else if envelope.kind == Kind::Request {
            conn.send_error(topic, ENOSYS, &format!("{PROGRAM} does not serve {topic}"))?;
        }
    }
    conn.close()
}

/// Prints and sends one `sched.alloc` response.
fn answer(conn: &mut Conn, response: AllocResponse) -> Result<(), Failure> {
    println!(
        "{}: job {}: {}",
        AllocRequest::TOPIC,
        response.id,
        peer::describe(&response)
    );
    conn.send(&response)
}

/// Which job holds each core of rank 0.
struct Cores([Option<u64>; CORES]);

impl Cores {
    /// The first free run of `wanted` cores, as an inclusive range.
    fn first_fit(&self, wanted: usize) -> Option<(usize, usize)> {
        if wanted == 0 {
            return None;
        }
        (0..=CORES.checked_sub(wanted)?)
            .find(|&start| self.0[start..start + wanted].iter().all(Option::is_none))
            .map(|start| (start, start + wanted - 1))
    }

    fn assign(&mut self, id: u64, (first, last): (usize, usize)) {
        self.0[first..=last]
            .iter_mut()
            .for_each(|core| *core = Some(id));
    }

    fn release(&mut self, id: u64, (first, last): (usize, usize)) {
        self.0[first..=last]
            .iter_mut()
            .filter(|core| **core == Some(id))
            .for_each(|core| *core = None);
    }
}

/// Parses an RFC 22 idset of one range on this node (`4-7` or `5`).
fn parse_range(text: &str) -> Option<(usize, usize)> {
    let (first, last) = match text.split_once('-') {
        Some((first, last)) => (first.parse().ok()?, last.parse().ok()?),
        None => (text.parse().ok()?, text.parse().ok()?),
    };
    (first <= last && last < CORES).then_some((first, last))
}

/// Formats an inclusive range as an RFC 22 idset.
fn idset((first, last): (usize, usize)) -> String {
    if first == last {
        first.to_string()
    } else {
        format!("{first}-{last}")
    }
}
