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

/// fluent-uri 0.1's `Uri<T>` (an RFC 3986 URI reference, relative ones included): 0.1 has no serde
/// support, so no field of it is serialized as such; the entry is its text form, `as_str()` written and
/// `Uri::parse` read, which is what a wrapper with hand-written impls (lsp-types' `Uri` from 0.96)
/// writes and reads, for `[shapes]` and `#[wire(as = fluent_uri::Uri<String>)]` to name. Without its
/// `ipv_future` feature it rejects IPvFuture hosts (`http://[v1.x]/`) that 0.2+'s `UriRef` reads, so
/// its domain is a part of RFC 3986's, not the same. The sample is `url::Url`'s: both read it, and a
/// comparison of the two domains (neither holds the other) gives no witness rather than one the
/// reader accepts.
fn uri_0_1(_: &[Ty]) -> Option<Known> {
    Some(Known::plain(refined_str(
        "fluent-uri-0.1",
        &["rfc3986-uri-reference", "rfc3987-iri-reference"],
        "\"https://example.com/path?q=1\"",
        "\"http://example.com/a|b\"",
    )))
}

/// The table (fluent-uri 0.1 had no serde support: its entry is its text form; 0.2 had only `UriRef`
/// with serde).
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
    Entry {
        krate: "fluent_uri",
        versions: ">=0.1.0, <0.2.0",
        items: &["Uri"],
        shape: uri_0_1,
    },
];

#[cfg(test)]
mod tests {
    //! fluent-uri 0.1, checked against the real crate (it has no serde impls, so the integration test
    //! tests/catalogue_truth.rs, which serializes real values, cannot check it; nor can it ask the
    //! catalogue for a version).
    use semver::Version;

    use super::super::lookup;
    use crate::model::Ty;

    fn refined_0_1() -> (String, Vec<String>, String, String) {
        let path = ["fluent_uri".to_owned(), "Uri".to_owned()];
        let known = lookup(&path, &[], Some(&Version::new(0, 1, 4))).expect("catalogued");
        let Ty::Refined {
            domain,
            within,
            sample,
            outside,
            ..
        } = known.ty
        else {
            panic!("not refined: {}", known.ty)
        };
        let text = |json: &str| serde_json::from_str::<String>(json).expect("a JSON string");
        (
            domain,
            within,
            text(&sample),
            text(&outside.expect("an outside value")),
        )
    }

    #[test]
    fn release_0_1_parses_its_sample_and_rejects_its_outside_value() {
        let (domain, _, sample, outside) = refined_0_1();
        assert_eq!(domain, "fluent-uri-0.1");
        let uri = fluent_uri_01::Uri::parse_from(sample.clone()).expect("0.1 parses the sample");
        assert_eq!(uri.as_str(), sample);
        assert!(fluent_uri_01::Uri::parse(&outside).is_err());
    }

    #[test]
    fn what_0_1_parses_the_newer_uri_reference_parses_and_not_the_reverse() {
        let (_, within, _, _) = refined_0_1();
        assert!(within.contains(&"rfc3986-uri-reference".to_owned()));
        for text in [
            "https://example.com/path?q=1",
            "/path?q=1",
            "",
            "a",
            "urn:isbn:0451450523",
            "http://999.999.999.999/",
            "http://[::1]:8080/x#y",
            "//host",
            "?q",
        ] {
            assert!(fluent_uri_01::Uri::parse(text).is_ok(), "0.1: {text}");
            assert!(fluent_uri::UriRef::parse(text).is_ok(), "0.4: {text}");
        }
        for text in ["http://example.com/a|b", "http://[::1", "%zz", " "] {
            assert!(fluent_uri_01::Uri::parse(text).is_err(), "0.1: {text}");
            assert!(fluent_uri::UriRef::parse(text).is_err(), "0.4: {text}");
        }
        assert!(fluent_uri_01::Uri::parse("http://[v1.x]/").is_err());
        assert!(fluent_uri::UriRef::parse("http://[v1.x]/").is_ok());
    }
}
