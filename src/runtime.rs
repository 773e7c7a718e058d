//! The runtime side of the declarations: the traits the derives implement and the small enums they use.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a message is on the wire, which decides who reads it and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A request: written by the client, read by the server.
    Request,
    /// A response: written by the server, read by the client.
    Response,
    /// A published event: written and read by peers of any version, not stored.
    Event,
    /// A persisted record (an eventlog entry): every later release must still read it.
    Record,
}

/// In which order the peers of a protocol are upgraded, which decides the directions that must work.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Upgrade {
    /// Mixed versions talk in both directions (the default: a Flux TBON is old-new-old-new).
    #[default]
    AnyOrder,
    /// Readers of requests (servers) are always upgraded before their writers (clients).
    ServerFirst,
    /// Clients are always upgraded before servers.
    ClientFirst,
}

/// The serde format a protocol is encoded with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// JSON (self-describing; the default).
    #[default]
    Json,
    /// CBOR (self-describing).
    Cbor,
    /// MessagePack (self-describing).
    Msgpack,
    /// bincode (positional: no field names on the wire).
    Bincode,
    /// postcard (positional, varint integers).
    Postcard,
}

impl Format {
    /// Whether field names travel on the wire (JSON, CBOR, MessagePack) or only positions (bincode, postcard).
    pub fn is_self_describing(self) -> bool {
        matches!(self, Format::Json | Format::Cbor | Format::Msgpack)
    }
}

/// How a request is answered.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseMode {
    /// No response (fire-and-forget requests, events, records, responses themselves).
    #[default]
    None,
    /// Exactly one response (`responds = T`).
    Single,
    /// A stream of responses (`streams = T`).
    Stream,
}

macro_rules! keyword_enum {
    ($ty:ident, $what:literal, { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// Every keyword accepted in `#[wire(...)]`, in declaration order.
            pub const KEYWORDS: &'static [&'static str] = &[$($text),+];

            /// The keyword used for this value in `#[wire(...)]`, in reports and in JSON.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $text),+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownKeyword;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($ty::$variant),)+
                    _ => Err(UnknownKeyword { what: $what, found: s.to_owned(), expected: Self::KEYWORDS }),
                }
            }
        }
    };
}

keyword_enum!(Kind, "kind", { Request => "request", Response => "response", Event => "event", Record => "record" });
keyword_enum!(Upgrade, "upgrade", { AnyOrder => "any-order", ServerFirst => "server-first", ClientFirst => "client-first" });
keyword_enum!(Format, "format", { Json => "json", Cbor => "cbor", Msgpack => "msgpack", Bincode => "bincode", Postcard => "postcard" });
keyword_enum!(ResponseMode, "response mode", { None => "none", Single => "single", Stream => "stream" });

/// A keyword that is not one of the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{found}`: expected one of {}", expected.join(", "))]
pub struct UnknownKeyword {
    what: &'static str,
    found: String,
    expected: &'static [&'static str],
}

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
