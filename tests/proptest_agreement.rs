#![cfg(feature = "checker")]
//! Agreement between the static extraction and the derive: the declarations in [`decls`] are compiled
//! (the derives give each type its `Protocol`/`Message` constants) and also read as text by
//! `snapshot_from_sources`; both must say the same thing (name, version, min_compatible, upgrade, format;
//! topic, kind, response mode and type, since, protocol).
//!
//! The property: the extraction keeps agreeing with the derive however the same declarations are laid
//! out in a crate: items in any order, spread over nested modules that glob-import each other (and are
//! glob re-exported), `#[wire(...)]` written through `#[cfg_attr(all(), wire(...))]`, derives named by path
//! (`wirecheck::Message`). Each layout is text the compiler would accept and resolve to the same types.

use std::collections::BTreeMap;

use proptest::prelude::*;
use wirecheck::extract::snapshot_from_sources;
use wirecheck::model::Snapshot;
use wirecheck::{Format, Kind, Message, Protocol, ResponseMode, Upgrade};

/// The declarations. Items are separated by `// @item` lines so the test can lay them out anew; every
/// `#[wire(...)]` fits on one line so the test can rewrite it.
#[allow(dead_code)]
mod decls {
    // @decls-begin
    use serde::{Deserialize, Serialize};
    use wirecheck::{Message, Protocol};
    // @item
    /// Only the required keys.
    #[derive(Protocol)]
    #[wire(name = "sched", version = "0.88.0")]
    pub struct Sched;
    // @item
    /// Every optional key.
    #[derive(Protocol)]
    #[wire(
        name = "job-exec",
        version = "1.2.3-rc.1+build.5",
        min_compatible = "1.0.0",
        upgrade = "server-first",
        format = "postcard"
    )]
    pub struct Exec;
    // @item
    /// The keys spread over several attributes.
    #[derive(Protocol)]
    #[wire(name = "eventlog")]
    #[wire(version = "0.0.7", upgrade = "client-first")]
    #[wire(format = "msgpack")]
    pub struct JobEventlog;
    // @item
    /// A raw identifier.
    #[derive(Protocol)]
    #[wire(
        name = "kvs",
        version = "2.0.0",
        min_compatible = "1.4.0",
        format = "cbor"
    )]
    pub struct r#Kvs;
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse)]
    pub struct AllocRequest {
        pub id: u64,
        pub priority: u32,
        #[wire(since = "0.56.0")]
        pub userid: Option<u32>,
    }
    // @item
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
    // @item
    /// No response: fire-and-forget.
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = self::Sched, topic = "sched.free", kind = "request")]
    pub struct FreeRequest {
        pub id: u64,
    }
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Sched, topic = "job-manager.sched-hello", kind = "request", streams = self::HelloResponse, since = "0.23.0")]
    pub struct HelloRequest {}
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Sched, topic = "job-manager.sched-hello", kind = "response")]
    pub struct HelloResponse {
        pub id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub free: Option<String>,
    }
    // @item
    /// A tuple struct message.
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Exec, topic = "job-exec.kill", kind = "request", responds = Ack)]
    pub struct Kill(pub u64, pub i32);
    // @item
    /// A unit struct message.
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Exec, topic = "job-exec.kill", kind = "response")]
    pub struct Ack;
    // @item
    /// An enum message.
    #[derive(Serialize, Deserialize, Message)]
    #[serde(tag = "type", rename_all = "kebab-case")]
    #[wire(protocol = Exec, topic = "job-exec.event", kind = "event", since = "1.1.0")]
    pub enum ExecEvent {
        Start {
            id: u64,
        },
        Finish {
            id: u64,
            status: i32,
        },
        #[serde(other)]
        Unknown,
    }
    // @item
    /// A record, with a flattened event.
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record", allow(field_removed), reason = "the key was never read")]
    pub struct Entry {
        pub timestamp: f64,
        #[serde(flatten)]
        pub event: Event,
    }
    // @item
    #[derive(Serialize, Deserialize)]
    #[serde(tag = "name", content = "context", rename_all = "snake_case")]
    pub enum Event {
        Submit { userid: u32 },
        Clean,
    }
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = r#Kvs, topic = "kvs.put", kind = "request", responds = r#PutResponse)]
    pub struct r#Put {
        pub key: String,
        pub value: serde_json::Value,
    }
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Kvs, topic = "kvs.put", kind = "response")]
    pub struct PutResponse {
        pub rootref: String,
    }
    // @item
    /// Several messages on one topic: a request streamed back in records.
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Kvs, topic = "kvs.watch", kind = "request", streams = WatchUpdate)]
    pub struct Watch {
        pub key: String,
    }
    // @item
    #[derive(Serialize, Deserialize, Message)]
    #[wire(protocol = Kvs, topic = "kvs.watch", kind = "response", since = "1.4.0")]
    pub struct WatchUpdate {
        pub value: Option<serde_json::Value>,
    }
    // @decls-end
}

/// What the derive says about a protocol.
#[derive(Debug, Clone, PartialEq)]
struct ProtocolFacts {
    name: String,
    version: String,
    min_compatible: Option<String>,
    upgrade: Upgrade,
    format: Format,
}

/// What the derive says about a message.
#[derive(Debug, Clone, PartialEq)]
struct MessageFacts {
    protocol: String,
    topic: String,
    kind: Kind,
    response: ResponseMode,
    /// The response type's name (last path segment), `None` for `()`.
    response_type: Option<String>,
    since: Option<String>,
}

fn last_segment(path: &str) -> String {
    path.rsplit("::")
        .next()
        .unwrap_or(path)
        .trim_start_matches("r#")
        .to_owned()
}

macro_rules! protocols {
    ($($t:ident),* $(,)?) => {
        BTreeMap::from([$(
            (
                last_segment(stringify!($t)),
                ProtocolFacts {
                    name: <decls::$t as Protocol>::NAME.to_owned(),
                    version: <decls::$t as Protocol>::VERSION.to_owned(),
                    min_compatible: <decls::$t as Protocol>::MIN_COMPATIBLE.map(str::to_owned),
                    upgrade: <decls::$t as Protocol>::UPGRADE,
                    format: <decls::$t as Protocol>::FORMAT,
                },
            ),
        )*])
    };
}

macro_rules! messages {
    ($($t:ident),* $(,)?) => {
        BTreeMap::from([$(
            (
                last_segment(stringify!($t)),
                MessageFacts {
                    protocol: <<decls::$t as Message>::Protocol as Protocol>::NAME.to_owned(),
                    topic: <decls::$t as Message>::TOPIC.to_owned(),
                    kind: <decls::$t as Message>::KIND,
                    response: <decls::$t as Message>::RESPONSE,
                    response_type: {
                        let name = std::any::type_name::<<decls::$t as Message>::Response>();
                        (name != "()").then(|| last_segment(name))
                    },
                    since: <decls::$t as Message>::SINCE.map(str::to_owned),
                },
            ),
        )*])
    };
}

/// The derive's view, by type name.
fn runtime() -> (
    BTreeMap<String, ProtocolFacts>,
    BTreeMap<String, MessageFacts>,
) {
    (
        protocols!(Sched, Exec, JobEventlog, r#Kvs),
        messages!(
            AllocRequest,
            AllocResponse,
            FreeRequest,
            HelloRequest,
            HelloResponse,
            Kill,
            Ack,
            ExecEvent,
            Entry,
            r#Put,
            PutResponse,
            Watch,
            WatchUpdate,
        ),
    )
}

/// The extraction's view, by type name.
fn extracted(
    snap: &Snapshot,
) -> (
    BTreeMap<String, ProtocolFacts>,
    BTreeMap<String, MessageFacts>,
) {
    let protocols = snap
        .protocols
        .iter()
        .map(|p| {
            (
                last_segment(&p.rust_path),
                ProtocolFacts {
                    name: p.name.clone(),
                    version: p.version.to_string(),
                    min_compatible: p.min_compatible.as_ref().map(ToString::to_string),
                    upgrade: p.upgrade,
                    format: p.format,
                },
            )
        })
        .collect();
    let messages = snap
        .messages
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                MessageFacts {
                    protocol: m.protocol.clone(),
                    topic: m.topic.clone(),
                    kind: m.kind,
                    response: m.response,
                    response_type: m.response_type.as_deref().map(last_segment),
                    since: m.since.as_ref().map(ToString::to_string),
                },
            )
        })
        .collect();
    (protocols, messages)
}

const SOURCE: &str = include_str!("proptest_agreement.rs");

/// The header (`use` lines) and the items of [`decls`], de-indented.
fn items() -> (String, Vec<String>) {
    let start = SOURCE.find("// @decls-begin\n").expect("begin marker") + 16;
    let end = SOURCE.find("    // @decls-end").expect("end marker");
    let body: String = SOURCE[start..end]
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    let mut parts = body.split("// @item\n");
    let header = parts.next().expect("header").to_owned();
    (header, parts.map(str::to_owned).collect())
}

/// How one item is laid out.
#[derive(Debug, Clone)]
struct Placement {
    /// 0: the crate root; 1..=3: the module `nest_N` (3 is inside `nest_2`).
    module: u8,
    /// `#[wire(...)]` as `#[cfg_attr(all(), wire(...))]`.
    cfg_attr: bool,
    /// The derives named by path (`wirecheck::Message`).
    derive_path: bool,
}

fn lay_out(header: &str, items: &[String], order: &[usize], places: &[Placement]) -> String {
    let mut modules: [Vec<String>; 4] = Default::default();
    for (&i, place) in order.iter().zip(places) {
        let mut text = items[i].clone();
        if place.cfg_attr {
            text = text
                .lines()
                .map(|l| match l.trim_start().strip_prefix("#[wire(") {
                    Some(rest) if l.trim_end().ends_with(")]") => {
                        let indent = &l[..l.len() - l.trim_start().len()];
                        let inner = &rest[..rest.trim_end().len() - 2];
                        format!("{indent}#[cfg_attr(all(), wire({inner}))]")
                    }
                    _ => l.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("\n");
        }
        if place.derive_path {
            text = text
                .replace(", Message)]", ", wirecheck::Message)]")
                .replace("#[derive(Protocol)]", "#[derive(wirecheck::Protocol)]");
        }
        modules[usize::from(place.module.min(3))].push(text);
    }
    let mut out = String::from(header);
    out.push_str("pub use nest_1::*;\npub use nest_2::*;\npub use nest_2::nest_3::*;\n\n");
    out.push_str(&modules[0].join("\n"));
    out.push_str("\npub mod nest_1 {\n    use super::*;\n");
    out.push_str(&modules[1].join("\n"));
    out.push_str("\n}\n\npub mod nest_2 {\n    use super::*;\n");
    out.push_str(&modules[2].join("\n"));
    out.push_str("\n    pub mod nest_3 {\n        use super::*;\n");
    out.push_str(&modules[3].join("\n"));
    out.push_str("\n    }\n}\n");
    out
}

/// The declarations as written: the extraction agrees with the derive on every protocol and message.
#[test]
fn extraction_agrees_with_the_derive_as_written() {
    let snap = snapshot_from_sources(
        "proptest_agreement",
        &[("tests/proptest_agreement.rs", SOURCE)],
    )
    .expect("this file parses");
    let (protocols, messages) = runtime();
    let (xp, xm) = extracted(&snap);
    assert_eq!(xp, protocols);
    assert_eq!(xm, messages);
    // Every declaration of `decls` is in the runtime tables (a new one must be added there too).
    let (_, items) = items();
    let declared = items
        .iter()
        .filter(|i| i.contains("#[derive(Protocol)]") || i.contains(", Message)]"))
        .count();
    assert_eq!(declared, protocols.len() + messages.len());
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(128),
        failure_persistence: None,
        // A fixed seed keeps CI deterministic; PROPTEST_RNG_SEED=N explores other inputs.
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_2026),
        ),
        .. ProptestConfig::default()
    })]

    /// Any layout of the same declarations: the extraction still agrees with the derive.
    #[test]
    fn extraction_agrees_with_the_derive_in_any_layout(
        order in Just((0..items().1.len()).collect::<Vec<usize>>()).prop_shuffle(),
        places in prop::collection::vec(
            (0u8..4, any::<bool>(), any::<bool>()).prop_map(|(module, cfg_attr, derive_path)| Placement {
                module,
                cfg_attr,
                derive_path,
            }),
            items().1.len(),
        ),
    ) {
        let (header, items) = items();
        let text = lay_out(&header, &items, &order, &places);
        let snap = snapshot_from_sources("agree", &[("src/lib.rs", &text)])
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let (protocols, messages) = runtime();
        let (xp, xm) = extracted(&snap);
        prop_assert_eq!(&xp, &protocols, "{}", text);
        prop_assert_eq!(&xm, &messages, "{}\nnotes: {:?}", text, snap.notes);
    }
}
