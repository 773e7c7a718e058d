//! The runtime side of the declarations: the traits the derives implement. The keyword enums they use
//! ([`Kind`], [`Upgrade`], [`Format`], [`ResponseMode`]) are defined once, in `wirecheck-vocab`.

pub use wirecheck_vocab::{Format, Kind, ResponseMode, Upgrade};

/// A wire protocol: implemented by `#[derive(Protocol)]` on a marker type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a wirecheck protocol",
    note = "declare it with `#[derive(Protocol)]` and `#[wire(name = \"...\", version = \"...\")]`"
)]
pub trait Protocol {
    /// The protocol's name on the wire and in reports (`sched`).
    const NAME: &'static str;
    /// The declared semver version of this release of the protocol.
    const VERSION: &'static str;
    /// The oldest release this version must interoperate with, if declared.
    const MIN_COMPATIBLE: Option<&'static str>;
    /// The upgrade order the deployments of this protocol follow.
    const UPGRADE: Upgrade;
    /// The serde format the protocol's messages are encoded with.
    const FORMAT: Format;

    /// The declaration as plain data, for handshakes and diagnostics.
    fn info() -> ProtocolInfo {
        ProtocolInfo {
            name: Self::NAME,
            version: Self::VERSION,
            min_compatible: Self::MIN_COMPATIBLE,
            upgrade: Self::UPGRADE,
            format: Self::FORMAT,
        }
    }
}

/// A protocol declaration as plain data (what [`Protocol::info`] returns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProtocolInfo {
    /// See [`Protocol::NAME`].
    pub name: &'static str,
    /// See [`Protocol::VERSION`].
    pub version: &'static str,
    /// See [`Protocol::MIN_COMPATIBLE`].
    pub min_compatible: Option<&'static str>,
    /// See [`Protocol::UPGRADE`].
    pub upgrade: Upgrade,
    /// See [`Protocol::FORMAT`].
    pub format: Format,
}

/// A message of a protocol: implemented by `#[derive(Message)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a wirecheck message",
    note = "declare it with `#[derive(Message)]` and `#[wire(protocol = ..., topic = \"...\", kind = \"...\")]`"
)]
pub trait Message {
    /// The protocol the message belongs to.
    type Protocol: Protocol;
    /// The response type of a request (`responds` or `streams`), `()` when there is none.
    type Response;
    /// The topic the message travels on (`sched.alloc`).
    const TOPIC: &'static str;
    /// What the message is: request, response, event or record.
    const KIND: Kind;
    /// How a request is answered: not at all, once, or with a stream.
    const RESPONSE: ResponseMode;
    /// The protocol version the message entered the protocol in, if declared (`since`).
    const SINCE: Option<&'static str>;
}
