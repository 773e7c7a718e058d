//! What the two example peers (`flux-job-manager`, `flux-scheduler`) share: the command line, the
//! newline-delimited JSON connection with RFC 3-like envelopes, the wirecheck handshake, and the stand-in for
//! the KVS where Flux keeps each job's R.
//!
//! Every line on the wire is one [`Envelope`]. The first line each way is the peer's
//! [`wirecheck::handshake::Hello`] (topic `wirecheck.hello`); the job-manager, which listens, sends first.

use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use flux_protocols::sched::{AllocResponse, AllocType, Sched};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wirecheck::handshake::{
    Agreement, HandshakeError, Hello, MalformedHello, ProtocolVersion, Role, Side,
};
use wirecheck::{Kind, Message, Protocol, Upgrade};

/// ENODATA on Linux: ends the `job-manager.sched-hello` stream.
pub const ENODATA: i32 = 61;

/// Why a peer stops; the process prints it as `<program>: <text>` on stderr and exits with [`Failure::code`].
#[derive(Debug)]
pub enum Failure {
    /// Bad command line (exit 2).
    Usage(String),
    /// The peers cannot work together: refused or malformed hello (exit 1).
    Handshake(String),
    /// The connection failed, or the peer broke RFC 27 (exit 2).
    Connection(String),
}

impl Failure {
    /// 1 when the handshake failed, 2 otherwise.
    pub fn code(&self) -> ExitCode {
        match self {
            Failure::Handshake(_) => ExitCode::from(1),
            Failure::Usage(_) | Failure::Connection(_) => ExitCode::from(2),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(text) | Failure::Handshake(text) | Failure::Connection(text) => {
                f.write_str(text)
            }
        }
    }
}

impl From<HandshakeError> for Failure {
    fn from(error: HandshakeError) -> Self {
        Failure::Handshake(error.to_string())
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Connection(error.to_string())
    }
}

/// Runs a peer's body and turns its outcome into the exit code, printing a failure on stderr.
pub fn run(program: &str, body: impl FnOnce() -> Result<(), Failure>) -> ExitCode {
    match body() {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{program}: {failure}");
            failure.code()
        }
    }
}

/// The command line both peers take.
pub struct Args {
    /// `--listen` (job-manager) or `--connect` (scheduler): a loopback address.
    pub addr: Option<SocketAddr>,
    /// `--sched-version`: announce this `sched` version instead of `<Sched as Protocol>::VERSION`.
    pub sched_version: Option<String>,
    /// `--sched-min-compatible`: announce this `min_compatible` for `sched`.
    pub sched_min_compatible: Option<String>,
    /// `--sched-upgrade`: announce this upgrade order for `sched` instead of `<Sched as Protocol>::UPGRADE`.
    pub sched_upgrade: Option<Upgrade>,
    /// `--timeout`: seconds to wait for the peer at any step.
    pub timeout: Duration,
}

impl Args {
    /// Parses the process arguments; `addr_flag` is `--listen` or `--connect`.
    pub fn parse(program: &str, addr_flag: &str) -> Result<Args, Failure> {
        let usage = || {
            format!(
                "usage: {program} [{addr_flag} ADDR] [--sched-version VERSION] [--sched-min-compatible VERSION] \
                 [--sched-upgrade ORDER] [--timeout SECONDS]"
            )
        };
        let mut args = Args {
            addr: None,
            sched_version: None,
            sched_min_compatible: None,
            sched_upgrade: None,
            timeout: Duration::from_secs(10),
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| Failure::Usage(format!("{flag} needs a value\n{}", usage())))
            };
            match flag.as_str() {
                f if f == addr_flag => {
                    let text = value()?;
                    let addr: SocketAddr = text
                        .parse()
                        .map_err(|e| Failure::Usage(format!("{addr_flag} `{text}`: {e}")))?;
                    if !addr.ip().is_loopback() {
                        return Err(Failure::Usage(format!(
                            "{addr_flag} {addr}: this example only uses loopback addresses"
                        )));
                    }
                    args.addr = Some(addr);
                }
                "--sched-version" => args.sched_version = Some(value()?),
                "--sched-min-compatible" => args.sched_min_compatible = Some(value()?),
                "--sched-upgrade" => {
                    let text = value()?;
                    let order = text
                        .parse()
                        .map_err(|e| Failure::Usage(format!("--sched-upgrade: {e}")))?;
                    args.sched_upgrade = Some(order);
                }
                "--timeout" => {
                    let text = value()?;
                    let seconds: u64 = text
                        .parse()
                        .map_err(|e| Failure::Usage(format!("--timeout `{text}`: {e}")))?;
                    args.timeout = Duration::from_secs(seconds.max(1));
                }
                _ => {
                    return Err(Failure::Usage(format!(
                        "unknown argument `{flag}`\n{}",
                        usage()
                    )));
                }
            }
        }
        Ok(args)
    }

    /// This peer's hello, for a peer in `role` that is `side` of `sched`: the protocol as declared, or as
    /// overridden on the command line.
    ///
    /// `--sched-version` replaces the declared version and drops the declared `min_compatible` (it belongs to
    /// the declared release); `--sched-min-compatible` sets one; `--sched-upgrade` replaces the declared upgrade
    /// order. A hello that is malformed on its own is refused here, before any connection.
    pub fn hello(&self, role: &str, side: Role) -> Result<Hello, Failure> {
        let mut entry = ProtocolVersion::of::<Sched>().with_role(side);
        if let Some(version) = &self.sched_version {
            entry.version = version.clone();
            entry.min_compatible = None;
        }
        if let Some(min) = &self.sched_min_compatible {
            entry.min_compatible = Some(min.clone());
        }
        if let Some(order) = self.sched_upgrade {
            entry = entry.with_upgrade(order);
        }
        let hello = Hello::new(role)
            .with_entry(entry)
            .with_attribute("pid", std::process::id().to_string());
        hello.validate().map_err(|problem| {
            HandshakeError::from(MalformedHello {
                side: Side::Local,
                role: role.to_owned(),
                problem,
            })
        })?;
        Ok(hello)
    }
}

/// One line on the wire: an RFC 3-like message (topic, type, errnum, payload).
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// The topic (`sched.alloc`).
    pub topic: String,
    /// request, response or event.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// 0, or the errno of an error response.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errnum: i32,
    /// The message; for an error response, `{"errstr": ...}`.
    #[serde(default)]
    pub payload: Value,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

impl Envelope {
    /// Decodes the payload as `M`, checking the topic and kind that `M`'s `#[wire]` declares.
    pub fn decode<M: Message + DeserializeOwned>(&self) -> Result<M, Failure> {
        if self.topic != M::TOPIC || self.kind != M::KIND || self.errnum != 0 {
            return Err(Failure::Connection(format!(
                "expected a {} {}, got a {} {} (errnum {})",
                M::TOPIC,
                M::KIND,
                self.topic,
                self.kind,
                self.errnum
            )));
        }
        M::deserialize(&self.payload)
            .map_err(|e| Failure::Connection(format!("{}: protocol error: {e}", M::TOPIC)))
    }
}

/// A connection carrying one JSON [`Envelope`] per line.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// The peer's role (as its hello gives it, once it arrived), for messages.
    peer: String,
}

impl Conn {
    /// Wraps a connected stream to the peer expected in role `peer`; every read and write waits at most
    /// `timeout`.
    pub fn new(stream: TcpStream, timeout: Duration, peer: &str) -> Result<Conn, Failure> {
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        let writer = stream.try_clone()?;
        Ok(Conn {
            reader: BufReader::new(stream),
            writer,
            peer: peer.to_owned(),
        })
    }

    /// Sends a message as its `#[derive(Message)]` declares it (topic and kind).
    pub fn send<M: Message + Serialize>(&mut self, message: &M) -> Result<(), Failure> {
        let payload =
            serde_json::to_value(message).map_err(|e| Failure::Connection(e.to_string()))?;
        self.write(&Envelope {
            topic: M::TOPIC.to_owned(),
            kind: M::KIND,
            errnum: 0,
            payload,
        })
    }

    /// Sends an error response on `topic`.
    pub fn send_error(&mut self, topic: &str, errnum: i32, errstr: &str) -> Result<(), Failure> {
        self.write(&Envelope {
            topic: topic.to_owned(),
            kind: Kind::Response,
            errnum,
            payload: json!({ "errstr": errstr }),
        })
    }

    fn write(&mut self, envelope: &Envelope) -> Result<(), Failure> {
        let mut line =
            serde_json::to_string(envelope).map_err(|e| Failure::Connection(e.to_string()))?;
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .map_err(|e| self.lost(e))
    }

    /// The next envelope, or `None` when the peer closed the connection.
    pub fn recv(&mut self) -> Result<Option<Envelope>, Failure> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).map_err(|e| self.lost(e))? == 0 {
            return Ok(None);
        }
        serde_json::from_str(&line)
            .map(Some)
            .map_err(|e| Failure::Connection(format!("unreadable message from {}: {e}", self.peer)))
    }

    /// The next envelope; the peer closing the connection is an error.
    pub fn expect(&mut self) -> Result<Envelope, Failure> {
        self.recv()?
            .ok_or_else(|| Failure::Connection(format!("{} closed the connection", self.peer)))
    }

    /// Ends the conversation: no more messages from this side, then wait until the peer closes too (so nothing
    /// either side sent is lost to a reset).
    pub fn close(mut self) -> Result<(), Failure> {
        self.writer
            .shutdown(Shutdown::Write)
            .map_err(|e| self.lost(e))?;
        if let Some(envelope) = self.recv()? {
            return Err(Failure::Connection(format!(
                "unexpected {} {} from {} after the end",
                envelope.topic, envelope.kind, self.peer
            )));
        }
        Ok(())
    }

    fn lost(&self, error: io::Error) -> Failure {
        match error.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                Failure::Connection(format!("timed out waiting for {}", self.peer))
            }
            _ => Failure::Connection(format!("connection to {}: {error}", self.peer)),
        }
    }

    /// Exchanges hellos (`send_first`: the listening side speaks first, as in the Flux proposal), negotiates,
    /// requires `sched`, and prints the verdict line.
    pub fn handshake(&mut self, ours: &Hello, send_first: bool) -> Result<Agreement, Failure> {
        if send_first {
            self.send(ours)?;
        }
        let envelope = self.expect()?;
        let theirs: Hello = envelope
            .decode()
            .map_err(|e| Failure::Handshake(format!("malformed hello: {e}")))?;
        self.peer = theirs.role.clone();
        if !send_first {
            self.send(ours)?;
        }
        let agreement = wirecheck::handshake::negotiate(ours, &theirs)?;
        let sched = agreement.require(Sched::NAME)?;
        println!(
            "{} speaks {} {}, this {} {}: accepted",
            agreement.remote_role,
            Sched::NAME,
            sched.remote,
            agreement.local_role,
            sched.local
        );
        Ok(agreement)
    }
}

/// An RFC 20 R for `cores` (an idset) on rank 0 of a one-node instance.
pub fn r_for(cores: &str) -> Value {
    json!({
        "version": 1,
        "execution": {
            "R_lite": [{ "rank": "0", "children": { "core": cores } }],
            "nodelist": ["node0"],
            "starttime": 0.0,
            "expiration": 0.0
        }
    })
}

/// The cores (an idset) an R built by [`r_for`] holds.
pub fn cores_of(r: &Value) -> Option<&str> {
    r.pointer("/execution/R_lite/0/children/core")?.as_str()
}

/// The KVS stand-in: the R of the job that already runs when the example starts (in Flux, `job.<id>.R`).
pub fn kvs_lookup_r(id: u64) -> Option<Value> {
    (id == RUNNING_JOB).then(|| r_for("0-3"))
}

/// The job that holds resources when the example starts.
pub const RUNNING_JOB: u64 = 1;

/// What an alloc response says, as both peers print it (`allocated cores 4-7`, `pending: ...`, `denied: ...`).
pub fn describe(response: &AllocResponse) -> String {
    match response.kind {
        AllocType::Success => {
            let cores = response.r.as_ref().and_then(cores_of).unwrap_or("?");
            format!("allocated cores {cores}")
        }
        AllocType::Annotate => {
            let reason = response
                .annotations
                .as_ref()
                .and_then(|a| a.pointer("/sched/reason_pending"));
            match reason.and_then(Value::as_str) {
                Some(reason) => format!("pending: {reason}"),
                None => format!(
                    "annotated {}",
                    response.annotations.as_ref().unwrap_or(&Value::Null)
                ),
            }
        }
        AllocType::Deny => format!(
            "denied: {}",
            response.note.as_deref().unwrap_or("no reason given")
        ),
        AllocType::Cancel => "canceled".to_owned(),
    }
}
