//! The verdict tests of tests/catalogue_truth.rs: old and new types compared by the engine, each verdict
//! checked against the real crates (the witness decodes, or the values each side writes are read by the
//! other).
//!
//! These read the engine's comparison of refined, readable and choice shapes (issue 15's comparison
//! semantics, in src/compat/): without it a refined value compares as its base, and the breaks below are
//! not seen.

use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::findings::{Direction, Finding, Level};

use super::*;

/// The engine's major findings, for `format`, from a field of type `old` (under `old_attrs`) to `new`.
fn verdict(
    format: &str,
    (old_attrs, old): (&str, &str),
    (new_attrs, new): (&str, &str),
) -> Vec<Finding> {
    let o = extract(format, "0.1.0", old_attrs, old);
    let n = extract(format, "0.2.0", new_attrs, new);
    compare_protocol(&o, &n, "p", "v0.1.0", Scope::Full)
        .into_iter()
        .filter(|f| f.level == Level::Major)
        .collect()
}

/// The major findings in direction `d`.
fn in_direction(found: &[Finding], d: Direction) -> Vec<&Finding> {
    found.iter().filter(|f| f.direction == Some(d)).collect()
}

/// The witness payload's field `f`, as JSON text.
fn witness_field(f: &Finding) -> String {
    let w = f
        .witness
        .as_ref()
        .unwrap_or_else(|| panic!("no witness: {}", f.message));
    w.get("f").unwrap_or(w).to_string()
}

#[test]
fn string_to_uuid_breaks_new_reads_old_with_the_empty_string() {
    let found = verdict("json", ("", "String"), ("", "uuid::Uuid"));
    // Real: every uuid string is a String (old reads new is fine); "" is a String that Uuid rejects.
    let written = serde_json::to_string(&uuid::Uuid::nil()).unwrap();
    serde_json::from_str::<String>(&written).unwrap();
    assert!(serde_json::from_str::<uuid::Uuid>("\"\"").is_err());
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    assert!(
        serde_json::from_str::<uuid::Uuid>(&witness).is_err(),
        "{witness}"
    );
    serde_json::from_str::<String>(&witness).unwrap();
}

#[test]
fn url_to_fluent_uri_breaks_where_the_parsers_disagree() {
    let found = verdict("json", ("", "url::Url"), ("", "fluent_uri::Uri<String>"));
    // Real, both directions: url writes `a|b` paths RFC 3986 rejects; fluent-uri writes registered names
    // WHATWG rejects.
    let url_written = url::Url::parse("http://example.com/a|b").unwrap();
    assert!(
        serde_json::from_value::<fluent_uri::Uri<String>>(
            serde_json::to_value(&url_written).unwrap()
        )
        .is_err()
    );
    let uri_written = fluent_uri::Uri::parse("http://999.999.999.999/".to_owned()).unwrap();
    assert!(
        serde_json::from_value::<url::Url>(serde_json::to_value(&uri_written).unwrap()).is_err()
    );
    for d in [Direction::OldReadsNew, Direction::NewReadsOld] {
        assert_eq!(in_direction(&found, d).len(), 1, "{d:?}: {found:#?}");
    }
}

#[test]
fn a_catalogued_type_against_itself_is_no_change() {
    for ty in [
        "url::Url",
        "uuid::Uuid",
        "chrono::DateTime<chrono::Utc>",
        "time::OffsetDateTime",
        "ipnet::IpNet",
        "cargo_platform::Platform",
        "cargo_util_schemas::manifest::FeatureName",
    ] {
        for format in ["json", "postcard"] {
            assert!(
                verdict(format, ("", ty), ("", ty)).is_empty(),
                "{ty} {format}"
            );
        }
    }
}

#[test]
fn ts_seconds_to_time_timestamp_is_no_break_in_json() {
    // Both write an i64 of seconds; each reads what the other writes (years 0 to 9999).
    #[derive(Serialize, serde::Deserialize)]
    struct C(#[serde(with = "chrono::serde::ts_seconds")] chrono::DateTime<chrono::Utc>);
    #[derive(Serialize, serde::Deserialize)]
    struct T(#[serde(with = "time::serde::timestamp")] time::OffsetDateTime);
    let c = serde_json::to_string(&C(
        chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap()
    ))
    .unwrap();
    let t = serde_json::to_string(&T(time::macros::datetime!(2024-01-02 03:04:05 UTC))).unwrap();
    assert_eq!(c, t);
    serde_json::from_str::<T>(&c).unwrap();
    serde_json::from_str::<C>(&t).unwrap();
    let found = verdict(
        "json",
        (
            "#[serde(with = \"chrono::serde::ts_seconds\")]",
            "chrono::DateTime<chrono::Utc>",
        ),
        (
            "#[serde(with = \"time::serde::timestamp\")]",
            "time::OffsetDateTime",
        ),
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn chrono_date_time_to_time_rfc3339_is_no_break() {
    let found = verdict(
        "json",
        ("", "chrono::DateTime<chrono::Utc>"),
        (
            "#[serde(with = \"time::serde::rfc3339\")]",
            "time::OffsetDateTime",
        ),
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn ts_milliseconds_to_time_milliseconds_is_no_break_in_json() {
    // chrono writes an i64, time's `timestamp::milliseconds` an i128: one JSON number, other bytes.
    #[derive(Serialize, serde::Deserialize)]
    struct C(#[serde(with = "chrono::serde::ts_milliseconds")] chrono::DateTime<chrono::Utc>);
    #[derive(Serialize, serde::Deserialize)]
    struct T(#[serde(with = "time::serde::timestamp::milliseconds")] time::OffsetDateTime);
    let c = C(chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap());
    serde_json::from_str::<T>(&serde_json::to_string(&c).unwrap()).unwrap();
    let bytes = postcard::to_allocvec(&c).unwrap();
    // Postcard's varints of an i64 and an i128 differ only in the allowed length: the value reads back.
    // The shapes differ in width, which the engine compares conservatively in positional formats.
    assert!(postcard::from_bytes::<T>(&bytes).is_ok());
    let old = (
        "#[serde(with = \"chrono::serde::ts_milliseconds\")]",
        "chrono::DateTime<chrono::Utc>",
    );
    let new = (
        "#[serde(with = \"time::serde::timestamp::milliseconds\")]",
        "time::OffsetDateTime",
    );
    let found = verdict("json", old, new);
    assert!(found.is_empty(), "{found:#?}");
}

/// chrono's `ts_microseconds` (an `i64`) and time's `timestamp::microseconds` (an `i128`): one domain,
/// one JSON number; each reads the other's edges of years -9999 and 9999.
#[test]
fn ts_microseconds_to_time_microseconds_is_no_break_in_json() {
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct C(#[serde(with = "chrono::serde::ts_microseconds")] chrono::DateTime<chrono::Utc>);
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::timestamp::microseconds")] time::OffsetDateTime);
    for t in [
        time::macros::datetime!(-9999-01-01 00:00 UTC),
        time::macros::datetime!(9999-12-31 23:59:59.999_999 UTC),
    ] {
        let text = serde_json::to_string(&T(t)).unwrap();
        let c: C = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), text);
    }
    let found = verdict(
        "json",
        (
            "#[serde(with = \"chrono::serde::ts_microseconds\")]",
            "chrono::DateTime<chrono::Utc>",
        ),
        (
            "#[serde(with = \"time::serde::timestamp::microseconds\")]",
            "time::OffsetDateTime",
        ),
    );
    assert!(found.is_empty(), "{found:#?}");
}

/// chrono's `ts_milliseconds` and time's `timestamp::milliseconds` (one domain, an `i64` and an `i128`)
/// in bincode: the width on the wire differs (legacy's fixed 8 and 16 bytes), so each side misreads the
/// other, and the witness is a time both write (the sample), not a value neither writes.
#[test]
fn ts_milliseconds_to_time_milliseconds_differs_in_width_in_bincode() {
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct C(#[serde(with = "chrono::serde::ts_milliseconds")] chrono::DateTime<chrono::Utc>);
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::timestamp::milliseconds")] time::OffsetDateTime);
    let legacy = bincode::config::legacy();
    let found = verdict(
        "bincode",
        (
            "#[serde(with = \"chrono::serde::ts_milliseconds\")]",
            "chrono::DateTime<chrono::Utc>",
        ),
        (
            "#[serde(with = \"time::serde::timestamp::milliseconds\")]",
            "time::OffsetDateTime",
        ),
    );
    for d in [Direction::OldReadsNew, Direction::NewReadsOld] {
        let found = in_direction(&found, d);
        assert_eq!(found.len(), 1, "{d:?}: {found:#?}");
        let millis: i64 = witness_field(found[0]).parse().expect("a number");
        // Both write it: the same instant, read back from its JSON by each writer.
        let c: C = serde_json::from_str(&format!("{millis}")).unwrap();
        let t: T = serde_json::from_str(&format!("{millis}")).unwrap();
        let (c_bytes, t_bytes) = (
            bincode::serde::encode_to_vec(&c, legacy).unwrap(),
            bincode::serde::encode_to_vec(&t, legacy).unwrap(),
        );
        assert_eq!((c_bytes.len(), t_bytes.len()), (8, 16));
        // time reads past chrono's 8 bytes; chrono leaves 8 of time's unread (the next field's bytes).
        assert!(bincode::serde::decode_from_slice::<T, _>(&c_bytes, legacy).is_err());
        let (_, read) = bincode::serde::decode_from_slice::<C, _>(&t_bytes, legacy).unwrap();
        assert_eq!(read, 8);
    }
}

/// A real range difference: time's `timestamp::milliseconds` read as an `i32` loses the times past
/// 2^31 ms; the witness is one time writes (1970-01-25), not a value past its year 9999. The other way
/// every `i32` is a time time reads.
#[test]
fn time_milliseconds_to_an_i32_breaks_with_a_time_it_writes() {
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::timestamp::milliseconds")] time::OffsetDateTime);
    let found = verdict(
        "json",
        (
            "#[serde(with = \"time::serde::timestamp::milliseconds\")]",
            "time::OffsetDateTime",
        ),
        ("", "i32"),
    );
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    for millis in [i32::MIN, -1, 0, i32::MAX] {
        serde_json::from_str::<T>(&millis.to_string()).unwrap();
    }
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    let written: T = serde_json::from_str(&witness).expect("time reads its own value");
    assert_eq!(serde_json::to_string(&written).unwrap(), witness);
    assert!(serde_json::from_str::<i32>(&witness).is_err(), "{witness}");
}

/// A plain `i64` read by time's `timestamp::milliseconds`: time rejects the milliseconds past its year
/// 9999; the witness is an `i64` the old release writes.
#[test]
fn an_i64_to_time_milliseconds_narrows_for_new_readers() {
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::timestamp::milliseconds")] time::OffsetDateTime);
    let found = verdict(
        "json",
        ("", "i64"),
        (
            "#[serde(with = \"time::serde::timestamp::milliseconds\")]",
            "time::OffsetDateTime",
        ),
    );
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    serde_json::from_str::<i64>(&witness).expect("an i64");
    assert!(serde_json::from_str::<T>(&witness).is_err(), "{witness}");
    // time writes no value an i64 does not hold.
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    for t in [
        time::macros::datetime!(-9999-01-01 00:00 UTC),
        time::macros::datetime!(9999-12-31 23:59:59.999 UTC),
    ] {
        serde_json::from_str::<i64>(&serde_json::to_string(&T(t)).unwrap()).unwrap();
    }
}

#[test]
fn uuid_string_to_uuid_is_a_break_in_compact_formats_only() {
    // A uuid in JSON is its string; in postcard 16 bytes, not a string of 36.
    let id = uuid::Uuid::parse_str("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap();
    let as_string = postcard::to_allocvec(&id.to_string()).unwrap();
    assert!(postcard::from_bytes::<uuid::Uuid>(&as_string).is_err());
    let as_uuid = postcard::to_allocvec(&id).unwrap();
    assert!(postcard::from_bytes::<String>(&as_uuid).is_err());
    let found = verdict("postcard", ("", "String"), ("", "uuid::Uuid"));
    for d in [Direction::OldReadsNew, Direction::NewReadsOld] {
        assert_eq!(in_direction(&found, d).len(), 1, "{d:?}: {found:#?}");
    }
}

#[test]
fn string_to_package_name_breaks_new_reads_old_with_the_empty_string() {
    let found = verdict(
        "json",
        ("", "String"),
        ("", "cargo_util_schemas::manifest::PackageName"),
    );
    // Real: every package name is a String; "" is a String that PackageName rejects.
    let name = cargo_util_schemas::manifest::PackageName::new("serde".to_owned()).unwrap();
    serde_json::from_value::<String>(serde_json::to_value(&name).unwrap()).unwrap();
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    assert!(
        serde_json::from_str::<cargo_util_schemas::manifest::PackageName>(&witness).is_err(),
        "{witness}"
    );
    serde_json::from_str::<String>(&witness).unwrap();
}

#[test]
fn rfc3339_to_humantime_narrows_for_new_readers_with_a_time_before_1970() {
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::rfc3339")] time::OffsetDateTime);
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct H(#[serde(with = "humantime_serde")] std::time::SystemTime);
    let human = (
        "#[serde(with = \"humantime_serde\")]",
        "std::time::SystemTime",
    );
    for old in [
        ("", "chrono::DateTime<chrono::Utc>"),
        (
            "#[serde(with = \"time::serde::rfc3339\")]",
            "time::OffsetDateTime",
        ),
    ] {
        let found = verdict("json", old, human);
        assert!(
            in_direction(&found, Direction::OldReadsNew).is_empty(),
            "{found:#?}"
        );
        let nro = in_direction(&found, Direction::NewReadsOld);
        assert_eq!(nro.len(), 1, "{found:#?}");
        assert_eq!(nro[0].rule.as_str(), "value_domain_narrowed");
        let witness = witness_field(nro[0]);
        // Both old writers write it (read back and written again unchanged); humantime rejects it.
        let c: chrono::DateTime<chrono::Utc> = serde_json::from_str(&witness).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), witness);
        let t: T = serde_json::from_str(&witness).unwrap();
        assert_eq!(serde_json::to_string(&t).unwrap(), witness);
        assert!(serde_json::from_str::<H>(&witness).is_err(), "{witness}");
    }
}

/// `IpNet` to `Ipv4Net`: new readers reject the IPv6 networks old writers write; old readers read
/// every IPv4 network.
#[test]
fn ip_net_to_ipv4_net_narrows_for_new_readers_with_an_ipv6_network() {
    let found = verdict("json", ("", "ipnet::IpNet"), ("", "ipnet::Ipv4Net"));
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    let written: ipnet::IpNet = serde_json::from_str(&witness).unwrap();
    assert_eq!(serde_json::to_string(&written).unwrap(), witness);
    assert!(
        serde_json::from_str::<ipnet::Ipv4Net>(&witness).is_err(),
        "{witness}"
    );
    let v4: ipnet::Ipv4Net = "10.0.0.0/8".parse().unwrap();
    serde_json::from_str::<ipnet::IpNet>(&serde_json::to_string(&v4).unwrap()).unwrap();
}

#[test]
fn a_version_req_reads_every_version_and_not_the_reverse() {
    // Real: VersionReq::parse takes every version's text (as a caret requirement; build metadata is
    // dropped), so a `Version` writer is read; a requirement is not a version.
    for version in ["1.2.3-alpha.1+build.5", "0.0.0", "1.56.0", "10.20.30+x"] {
        let written = serde_json::to_string(&semver::Version::parse(version).unwrap()).unwrap();
        serde_json::from_str::<semver::VersionReq>(&written)
            .unwrap_or_else(|e| panic!("{written}: {e}"));
    }
    let found = verdict("json", ("", "semver::VersionReq"), ("", "semver::Version"));
    assert!(
        in_direction(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    let nro = in_direction(&found, Direction::NewReadsOld);
    assert_eq!(nro.len(), 1, "{found:#?}");
    let witness = witness_field(nro[0]);
    serde_json::from_str::<semver::VersionReq>(&witness).unwrap();
    assert!(
        serde_json::from_str::<semver::Version>(&witness).is_err(),
        "{witness}"
    );
}

/// `String` replaced by a string type of another crate (and back) changes nothing on the wire, in any
/// format: no finding, and each side's values are read by the other with the real codecs.
#[test]
fn string_types_of_other_crates_replace_string_without_a_finding() {
    for ty in [
        "smol_str::SmolStr",
        "compact_str::CompactString",
        "ecow::EcoString",
    ] {
        for format in [
            "json",
            "cbor",
            "msgpack",
            "msgpack-compact",
            "postcard",
            "bincode",
        ] {
            assert!(
                verdict(format, ("", "String"), ("", ty)).is_empty(),
                "{format}: String -> {ty}"
            );
            assert!(
                verdict(format, ("", ty), ("", "String")).is_empty(),
                "{format}: {ty} -> String"
            );
        }
    }
    let text = "job-7";
    let bytes = postcard::to_allocvec(&text.to_owned()).unwrap();
    assert_eq!(
        postcard::from_bytes::<smol_str::SmolStr>(&bytes).unwrap(),
        text
    );
    assert_eq!(
        postcard::from_bytes::<compact_str::CompactString>(&bytes).unwrap(),
        text
    );
    assert_eq!(
        postcard::from_bytes::<ecow::EcoString>(&bytes).unwrap(),
        text
    );
    let bytes = postcard::to_allocvec(&ecow::EcoString::from(text)).unwrap();
    assert_eq!(postcard::from_bytes::<String>(&bytes).unwrap(), text);
    let json = serde_json::to_string(&compact_str::CompactString::new(text)).unwrap();
    assert_eq!(serde_json::from_str::<String>(&json).unwrap(), text);
    let mut cbor = Vec::new();
    ciborium::into_writer(&smol_str::SmolStr::new(text), &mut cbor).unwrap();
    assert_eq!(ciborium::from_reader::<String, _>(&cbor[..]).unwrap(), text);
    let msgpack = rmp_serde::to_vec(&text.to_owned()).unwrap();
    assert_eq!(
        rmp_serde::from_slice::<ecow::EcoString>(&msgpack).unwrap(),
        text
    );
}
