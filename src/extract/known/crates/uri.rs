//! URLs and URIs: `url::Url` (the WHATWG URL standard) and fluent-uri's RFC 3986/3987 types. All are
//! strings on the wire in every format (no `is_human_readable` branch); the reader parses them.
//!
//! Neither family holds the other: `url` writes `http://example.com/a|b` (the WHATWG path percent-encode
//! set leaves `|` alone), which RFC 3986 rejects; RFC 3986 accepts `http://999.999.999.999/` (a
//! registered name) where WHATWG rejects the IPv4 address. Within RFC 3986/3987: a URI is a URI
//! reference and an IRI, and both are IRI references.

use super::{Entry, Known, refined_str};
use crate::model::Ty;

/// `url::Url`, as its serde impl writes it since url 2.0: `serialize_str(self.as_str())`, read by
/// `Url::parse`.
const URL: Entry = Entry {
    krate: "url",
    versions: ">=2.0.0, <3.0.0",
    items: &["Url"],
    shape: |_| {
        Some(Known::plain(refined_str(
            "whatwg-url",
            &[],
            "\"https://example.com/path?q=1\"",
            "\"\"",
        )))
    },
};

/// RFC 3986 `URI` (a scheme is required): fluent-uri's `Uri<T>` since 0.3.
fn uri(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "rfc3986-uri",
        &[
            "rfc3986-uri-reference",
            "rfc3987-iri",
            "rfc3987-iri-reference",
        ],
        "\"https://example.com/path?q=1\"",
        "\"http://example.com/a|b\"",
    )))
}

/// RFC 3986 `URI-reference`: fluent-uri's `UriRef<T>` (since 0.2, when `Uri` was renamed to it).
fn uri_ref(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "rfc3986-uri-reference",
        &["rfc3987-iri-reference"],
        "\"/path?q=1\"",
        "\"http://example.com/a|b\"",
    )))
}

/// RFC 3987 `IRI`: fluent-uri's `Iri<T>` since 0.3.
fn iri(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "rfc3987-iri",
        &["rfc3987-iri-reference"],
        "\"https://example.com/caf\u{e9}\"",
        "\"/path\"",
    )))
}

/// RFC 3987 `IRI-reference`: fluent-uri's `IriRef<T>` since 0.3.
fn iri_ref(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "rfc3987-iri-reference",
        &[],
        "\"/caf\u{e9}\"",
        "\"http://example.com/a|b\"",
    )))
}

/// The table (fluent-uri 0.1 had no serde support; 0.2 had only `UriRef` with serde).
pub(super) const ENTRIES: &[Entry] = &[
    URL,
    Entry {
        krate: "fluent_uri",
        versions: ">=0.3.0, <0.5.0",
        items: &["Uri"],
        shape: uri,
    },
    Entry {
        krate: "fluent_uri",
        versions: ">=0.2.0, <0.5.0",
        items: &["UriRef"],
        shape: uri_ref,
    },
    Entry {
        krate: "fluent_uri",
        versions: ">=0.3.0, <0.5.0",
        items: &["Iri"],
        shape: iri,
    },
    Entry {
        krate: "fluent_uri",
        versions: ">=0.3.0, <0.5.0",
        items: &["IriRef"],
        shape: iri_ref,
    },
];
