//! Networks and HTTP: ipnet's CIDR networks (a string in human-readable formats, a tuple of octets and
//! the prefix length otherwise) and http-serde's `with` modules for http's types.

use super::with::{WithEntry, option, option_inner};
use super::{Entry, Known, newtype_enum, readable, refined, refined_str, tuple_of, uint};
use crate::model::Ty;

/// An IPv4 network: `10.0.0.0/8`, or `(a, b, c, d, prefix)` with a prefix of at most 32.
fn ipv4_net() -> Ty {
    readable(
        refined_str("ipv4-cidr", &["ip-cidr"], "\"10.0.0.0/8\"", "\"fd00::/8\""),
        refined(
            tuple_of(&uint(8), 5),
            "ipv4-net-parts",
            &[],
            "[10,0,0,0,8]",
            Some("[10,0,0,0,33]"),
        ),
    )
}

/// An IPv6 network: `fd00::/8`, or the 16 octets and the prefix (at most 128).
fn ipv6_net() -> Ty {
    readable(
        refined_str("ipv6-cidr", &["ip-cidr"], "\"fd00::/8\"", "\"10.0.0.0/8\""),
        refined(
            tuple_of(&uint(8), 17),
            "ipv6-net-parts",
            &[],
            "[253,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8]",
            Some("[253,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,129]"),
        ),
    )
}

/// `IpNet`: either network's string, or in compact formats the enum `V4(..)`/`V6(..)` of the compact
/// tuples (`serialize_newtype_variant`).
fn ip_net(_: &[Ty]) -> Option<Known> {
    let compact = |ty: Ty| match ty {
        Ty::Readable { compact, .. } => *compact,
        other => other,
    };
    let path = "ipnet::IpNet";
    let def = newtype_enum(
        path,
        &[("V4", compact(ipv4_net())), ("V6", compact(ipv6_net()))],
    );
    let human = refined_str("ip-cidr", &[], "\"10.0.0.0/8\"", "\"10.0.0.0\"");
    let named = Ty::Named {
        path: path.to_owned(),
        args: Vec::new(),
    };
    Some(Known {
        ty: readable(human, named),
        defs: vec![def],
    })
}

/// The table (ipnet 2.x, `serde` feature).
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "ipnet",
        versions: ">=2.0.0, <3.0.0",
        items: &["IpNet"],
        shape: ip_net,
    },
    Entry {
        krate: "ipnet",
        versions: ">=2.0.0, <3.0.0",
        items: &["Ipv4Net"],
        shape: |_| Some(Known::plain(ipv4_net())),
    },
    Entry {
        krate: "ipnet",
        versions: ">=2.0.0, <3.0.0",
        items: &["Ipv6Net"],
        shape: |_| Some(Known::plain(ipv6_net())),
    },
];

/// `http::StatusCode` as a number, 100 to 999.
fn status_code() -> Ty {
    refined(uint(16), "http-status", &[], "200", Some("0"))
}

/// `http::Method`: its token (`GET`, or any extension token).
fn method() -> Ty {
    refined_str("http-method", &[], "\"GET\"", "\"\"")
}

/// `http::Uri`: `collect_str`, read by `Uri::from_str`.
fn http_uri() -> Ty {
    refined_str("http-uri", &[], "\"https://example.com/path?q=1\"", "\"\"")
}

/// `http::uri::Authority`.
fn authority() -> Ty {
    refined_str("http-authority", &[], "\"example.com:8080\"", "\"\"")
}

/// `http::Version`: `HTTP/1.1` and the other four.
fn version() -> Ty {
    refined_str("http-version", &[], "\"HTTP/1.1\"", "\"HTTP/4.0\"")
}

/// A module for a non-optional field.
fn plain(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).is_none().then(|| Known::plain(ty))
}

/// An `option::` module on an `Option<…>` field.
fn optional(field: &Ty, ty: Ty) -> Option<Known> {
    option_inner(field).map(|_| Known::plain(option(ty)))
}

/// One http-serde 2.x module and its `option::` twin.
macro_rules! http_serde_modules {
    ($($module:literal => $shape:ident),* $(,)?) => {
        &[$(
            WithEntry {
                krate: "http_serde",
                versions: ">=2.0.0, <3.0.0",
                modules: &[$module],
                shape: |field| plain(field, $shape()),
            },
            WithEntry {
                krate: "http_serde",
                versions: ">=2.0.0, <3.0.0",
                modules: &[concat!("option::", $module)],
                shape: |field| optional(field, $shape()),
            },
        )*]
    };
}

/// http-serde's modules (`header_map`, an untagged string-or-list per header, is not catalogued).
pub(super) const WITH: &[WithEntry] = http_serde_modules![
    "status_code" => status_code,
    "method" => method,
    "uri" => http_uri,
    "authority" => authority,
    "version" => version,
];
