//! Runtime behaviour of `#[derive(Protocol)]` and `#[derive(Message)]`: the constants and associated types
//! they generate, and `#[derive(Wire)]` letting the types a message reaches carry `#[wire]`. Invalid
//! declarations are covered by `tests/compiletest.rs`.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use wirecheck::{Format, Kind, Message, Protocol, ProtocolInfo, ResponseMode, Upgrade};

/// Compiles only when `A` and `B` are the same type.
trait SameAs<T> {}
impl<T> SameAs<T> for T {}
fn assert_same_type<A: SameAs<B>, B>() {}

/// The scheduler protocol (Flux RFC 27).
#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

/// Every optional key given.
#[derive(Protocol)]
#[wire(
    name = "job-exec",
    version = "1.2.3-rc.1+build.5",
    min_compatible = "1.0.0",
    upgrade = "server-first",
    format = "postcard"
)]
pub struct Exec;

/// The keys spread over several attributes.
#[derive(Protocol)]
#[wire(name = "eventlog")]
#[wire(version = "0.0.7", upgrade = "client-first")]
#[wire(format = "msgpack")]
pub struct JobEventlog;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse)]
pub struct AllocRequest {
    pub id: u64,
    pub priority: u32,
    #[wire(since = "0.56.0")]
    pub userid: Option<u32>,
}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "response")]
pub struct AllocResponse {
    pub id: u64,
    #[wire(
        allow(field_removed, required_field_added),
        reason = "only read by flux-sched >= 0.30"
    )]
    pub note: String,
}

/// No `responds`: fire-and-forget.
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest {
    pub id: u64,
}

/// `streams`: several responses to one request; `protocol` written as a full path.
#[derive(Serialize, Deserialize, Message)]
#[wire(
    protocol = crate::Sched,
    topic = "job-manager.sched-hello",
    kind = "request",
    streams = self::HelloResponse,
    since = "0.23.0"
)]
pub struct HelloRequest {}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "job-manager.sched-hello", kind = "response")]
pub struct HelloResponse {
    pub id: u64,
}

/// An enum message with attributes on variants and on the variants' fields, next to serde's.
#[derive(Serialize, Deserialize, Message)]
#[serde(tag = "name", content = "context", rename_all = "lowercase")]
#[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record")]
#[wire(
    allow(variant_removed),
    reason = "`debug` was never written by a release"
)]
pub enum Event {
    Submit {
        userid: u32,
        #[wire(since = "0.0.5")]
        urgency: Option<u32>,
    },
    #[wire(since = "0.0.6")]
    Alloc(#[wire(since = "0.0.6")] u64),
    #[wire(allow(variant_removed), reason = "replaced by `finish`")]
    Clean,
}

/// A record that flattens an enum, as the contract's eventlog entry does.
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record")]
pub struct Entry {
    pub timestamp: f64,
    #[serde(flatten)]
    pub event: Event,
}

/// An event: published, not stored.
#[derive(Message)]
#[wire(protocol = Exec, topic = "job-exec.state", kind = "event")]
pub struct StateEvent;

#[test]
fn protocol_constants() {
    assert_eq!(<Sched as Protocol>::NAME, "sched");
    assert_eq!(<Sched as Protocol>::VERSION, "0.88.0");
    assert_eq!(<Sched as Protocol>::MIN_COMPATIBLE, None);

    assert_eq!(<Exec as Protocol>::NAME, "job-exec");
    assert_eq!(<Exec as Protocol>::VERSION, "1.2.3-rc.1+build.5");
    assert_eq!(<Exec as Protocol>::MIN_COMPATIBLE, Some("1.0.0"));
    assert_eq!(<Exec as Protocol>::UPGRADE, Upgrade::ServerFirst);
    assert_eq!(<Exec as Protocol>::FORMAT, Format::Postcard);

    assert_eq!(<JobEventlog as Protocol>::NAME, "eventlog");
    assert_eq!(<JobEventlog as Protocol>::VERSION, "0.0.7");
    assert_eq!(<JobEventlog as Protocol>::UPGRADE, Upgrade::ClientFirst);
    assert_eq!(<JobEventlog as Protocol>::FORMAT, Format::Msgpack);
}

#[test]
fn protocol_defaults_are_any_order_and_json() {
    assert_eq!(<Sched as Protocol>::UPGRADE, Upgrade::AnyOrder);
    assert_eq!(<Sched as Protocol>::FORMAT, Format::Json);
    assert_eq!(
        Sched::info(),
        ProtocolInfo {
            name: "sched",
            version: "0.88.0",
            min_compatible: None,
            upgrade: Upgrade::AnyOrder,
            format: Format::Json,
        }
    );
}

#[test]
fn every_upgrade_and_format_keyword() {
    // `$x:literal` reaches the derive wrapped in an invisible group, which the grammar looks through.
    macro_rules! protocol {
        ($upgrade:literal, $format:literal, $expect_upgrade:expr, $expect_format:expr) => {{
            #[derive(Protocol)]
            #[wire(name = "p", version = "1.0.0", upgrade = $upgrade, format = $format)]
            struct P;
            assert_eq!((P::UPGRADE, P::FORMAT), ($expect_upgrade, $expect_format));
        }};
    }
    protocol!("any-order", "json", Upgrade::AnyOrder, Format::Json);
    protocol!("server-first", "cbor", Upgrade::ServerFirst, Format::Cbor);
    protocol!(
        "client-first",
        "msgpack",
        Upgrade::ClientFirst,
        Format::Msgpack
    );
    protocol!("any-order", "bincode", Upgrade::AnyOrder, Format::Bincode);
    protocol!("any-order", "postcard", Upgrade::AnyOrder, Format::Postcard);
}

/// Declarations generated by `macro_rules!`: every value comes in as a `$x:literal`, `$p:path` or `$t:ty`
/// fragment, which rustc wraps in an invisible group.
mod from_macro_rules {
    use super::*;

    macro_rules! protocol {
        ($ty:ident, $name:literal, $version:literal) => {
            #[derive(Protocol)]
            #[wire(name = $name, version = $version)]
            pub struct $ty;
        };
    }

    macro_rules! request {
        ($ty:ident, $protocol:path, $topic:literal, $kind:literal, $response:path, $since:literal) => {
            #[derive(Message)]
            #[wire(protocol = $protocol, topic = $topic, kind = $kind, responds = $response, since = $since)]
            pub struct $ty;
        };
    }

    macro_rules! response {
        ($ty:ident, $protocol:ty, $topic:expr) => {
            #[derive(Message)]
            #[wire(protocol = $protocol, topic = $topic, kind = "response")]
            pub struct $ty<T>(pub T);
        };
    }

    macro_rules! stream {
        ($ty:ident, $protocol:path, $topic:literal, $response:path) => {
            #[derive(Message)]
            #[wire(protocol = $protocol, topic = $topic, kind = "request", streams = $response)]
            pub struct $ty;
        };
    }

    protocol!(Generated, "generated", "3.1.4");
    response!(Pong, self::Generated, "generated.ping");
    request!(
        Ping,
        crate::from_macro_rules::Generated,
        "generated.ping",
        "request",
        Pong<u8>,
        "3.0.0"
    );
    stream!(Watch, Generated, "generated.watch", self::Pong<String>);

    #[test]
    fn fragments_are_read_like_written_values() {
        assert_eq!(<Generated as Protocol>::NAME, "generated");
        assert_eq!(<Generated as Protocol>::VERSION, "3.1.4");
        assert_same_type::<<Ping as Message>::Protocol, Generated>();
        assert_same_type::<<Ping as Message>::Response, Pong<u8>>();
        assert_eq!(<Ping as Message>::TOPIC, "generated.ping");
        assert_eq!(<Ping as Message>::KIND, Kind::Request);
        assert_eq!(<Ping as Message>::SINCE, Some("3.0.0"));
        assert_eq!(<Pong<()> as Message>::KIND, Kind::Response);
        assert_same_type::<<Watch as Message>::Response, Pong<String>>();
        assert_eq!(<Watch as Message>::RESPONSE, ResponseMode::Stream);
    }
}

#[test]
fn message_constants() {
    assert_eq!(<AllocRequest as Message>::TOPIC, "sched.alloc");
    assert_eq!(<AllocRequest as Message>::KIND, Kind::Request);
    assert_eq!(<AllocRequest as Message>::RESPONSE, ResponseMode::Single);
    assert_eq!(<AllocRequest as Message>::SINCE, None);

    assert_eq!(<AllocResponse as Message>::KIND, Kind::Response);
    assert_eq!(<AllocResponse as Message>::RESPONSE, ResponseMode::None);

    assert_eq!(<FreeRequest as Message>::TOPIC, "sched.free");
    assert_eq!(<FreeRequest as Message>::RESPONSE, ResponseMode::None);

    assert_eq!(<HelloRequest as Message>::TOPIC, "job-manager.sched-hello");
    assert_eq!(<HelloRequest as Message>::RESPONSE, ResponseMode::Stream);
    assert_eq!(<HelloRequest as Message>::SINCE, Some("0.23.0"));

    assert_eq!(<Event as Message>::KIND, Kind::Record);
    assert_eq!(<Entry as Message>::TOPIC, "job.eventlog");
    assert_eq!(<StateEvent as Message>::KIND, Kind::Event);
}

/// A message reaching types that carry `#[wire]` on their fields and variants.
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.batch", kind = "request")]
pub struct BatchRequest {
    pub id: u64,
    pub mode: Mode,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, wirecheck::Wire)]
pub enum Mode {
    Fast,
    #[wire(
        allow(variant_added),
        reason = "every scheduler of 0.87 ignores unknown modes"
    )]
    Batch {
        #[wire(since = "0.88.0")]
        limits: Limits,
    },
}

#[derive(Debug, PartialEq, Serialize, Deserialize, wirecheck::Wire)]
pub struct Limits {
    #[wire(
        allow(integer_narrowed),
        reason = "no scheduler has more than 2^32 cores"
    )]
    pub cores: u32,
}

#[test]
fn nested_types_carry_wire_and_serialize_unchanged() {
    assert_eq!(<BatchRequest as Message>::TOPIC, "sched.batch");
    let mode = Mode::Batch {
        limits: Limits { cores: 4 },
    };
    let json = serde_json::to_value(&mode).unwrap();
    assert_eq!(json, serde_json::json!({"Batch": {"limits": {"cores": 4}}}));
    assert_eq!(serde_json::from_value::<Mode>(json).unwrap(), mode);
}

#[test]
fn message_associated_types() {
    assert_same_type::<<AllocRequest as Message>::Protocol, Sched>();
    assert_same_type::<<AllocRequest as Message>::Response, AllocResponse>();
    assert_same_type::<<HelloRequest as Message>::Protocol, Sched>();
    assert_same_type::<<HelloRequest as Message>::Response, HelloResponse>();
    assert_same_type::<<FreeRequest as Message>::Response, ()>();
    assert_same_type::<<AllocResponse as Message>::Response, ()>();
    assert_same_type::<<Entry as Message>::Protocol, JobEventlog>();
    assert_same_type::<<StateEvent as Message>::Protocol, Exec>();
}

/// What a service does with the traits: reach a message's protocol generically.
fn describe<M: Message>() -> String {
    format!(
        "{} {} on {} ({} {})",
        M::KIND,
        M::RESPONSE,
        M::TOPIC,
        <M::Protocol as Protocol>::NAME,
        <M::Protocol as Protocol>::VERSION
    )
}

#[test]
fn generic_use_through_the_traits() {
    assert_eq!(
        describe::<AllocRequest>(),
        "request single on sched.alloc (sched 0.88.0)"
    );
    assert_eq!(
        describe::<Event>(),
        "record none on job.eventlog (eventlog 0.0.7)"
    );
}

#[test]
fn serde_attributes_and_wire_attributes_coexist() {
    let entry = Entry {
        timestamp: 1.5,
        event: Event::Submit {
            userid: 7,
            urgency: None,
        },
    };
    let json = serde_json::to_value(&entry).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"timestamp": 1.5, "name": "submit", "context": {"userid": 7, "urgency": null}})
    );
}

mod generic {
    use super::*;

    /// A generic protocol marker.
    #[derive(Protocol)]
    #[wire(name = "generic", version = "2.0.0", format = "cbor")]
    pub struct Versioned<T, const N: usize>(PhantomData<[T; N]>)
    where
        T: Copy;

    /// A message generic over a lifetime and a type, responding with a non-generic type (so the
    /// response-kind assertion is emitted).
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.batch", kind = "request", responds = super::AllocResponse)]
    pub struct Batch<'a, T: Clone> {
        pub name: &'a str,
        pub items: Vec<T>,
    }

    /// A message whose protocol and response are its own type parameters.
    #[derive(Message)]
    #[wire(protocol = P, topic = "any.envelope", kind = "request", responds = R)]
    pub struct Envelope<P, R> {
        #[wire(since = "1.0.0")]
        pub marker: PhantomData<(P, R)>,
    }

    /// A response generic over its payload.
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.reply", kind = "response")]
    pub struct Reply<T>(pub T);

    /// A request streaming a generic response: `streams` takes a type path with its generic arguments.
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.watch", kind = "request", streams = Reply<T>)]
    pub struct Watch<T>(pub PhantomData<T>);

    /// The turbofish form is accepted too; a response type with concrete arguments gets the kind assertion.
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.poll", kind = "request", responds = Reply::<Vec<u8>>)]
    pub struct Poll;

    /// Several generic arguments: the comma between them does not end the `responds` value.
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.pair", kind = "request", responds = Pair<u8, String>, since = "0.88.0")]
    pub struct PairRequest;

    /// A response generic over two payloads.
    #[derive(Message)]
    #[wire(protocol = Sched, topic = "sched.pair", kind = "response")]
    pub struct Pair<A, B>(pub A, pub B);

    #[test]
    fn generic_protocol() {
        type V = Versioned<u8, 4>;
        assert_eq!(<V as Protocol>::NAME, "generic");
        assert_eq!(<V as Protocol>::VERSION, "2.0.0");
        assert_eq!(<V as Protocol>::FORMAT, Format::Cbor);
    }

    #[test]
    fn generic_messages() {
        let batch = Batch {
            name: "b",
            items: vec![1u8],
        };
        assert_eq!((batch.name, batch.items.len()), ("b", 1));
        assert_eq!(<Batch<'static, String> as Message>::TOPIC, "sched.batch");
        assert_same_type::<<Batch<'static, u8> as Message>::Response, AllocResponse>();

        type E = Envelope<Exec, FreeRequest>;
        assert_same_type::<<E as Message>::Protocol, Exec>();
        assert_same_type::<<E as Message>::Response, FreeRequest>();
        assert_eq!(
            describe::<E>(),
            "request single on any.envelope (job-exec 1.2.3-rc.1+build.5)"
        );

        assert_eq!(<Reply<u64> as Message>::KIND, Kind::Response);
        assert_same_type::<<Watch<u64> as Message>::Response, Reply<u64>>();
        assert_eq!(<Watch<u64> as Message>::RESPONSE, ResponseMode::Stream);
        assert_same_type::<<Poll as Message>::Response, Reply<Vec<u8>>>();
        assert_same_type::<<PairRequest as Message>::Response, Pair<u8, String>>();
        assert_eq!(<PairRequest as Message>::SINCE, Some("0.88.0"));
    }
}

/// The derives generate nothing that collides with the user's names, even inside one module.
mod hygiene {
    #![allow(dead_code)]

    /// Shadows `core::option::Option`: generated code must name it absolutely.
    enum Option {}
    /// Shadows the runtime's names.
    struct Kind;
    struct Upgrade;
    struct Format;
    struct InvalidWireAttributes;

    #[derive(wirecheck::Protocol)]
    #[wire(name = "h", version = "1.0.0", min_compatible = "1.0.0")]
    struct H;

    #[derive(wirecheck::Message)]
    #[wire(protocol = H, topic = "h.ping", kind = "request", responds = Pong, since = "1.0.0")]
    struct Ping;

    #[derive(wirecheck::Message)]
    #[wire(protocol = H, topic = "h.ping", kind = "response")]
    struct Pong;

    #[test]
    fn absolute_paths() {
        use wirecheck::{Message as _, Protocol as _};
        assert_eq!(H::MIN_COMPATIBLE, ::core::option::Option::Some("1.0.0"));
        assert_eq!(Ping::SINCE, ::core::option::Option::Some("1.0.0"));
        assert_eq!(Pong::KIND, wirecheck::Kind::Response);
    }
}
