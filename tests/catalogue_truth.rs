#![cfg(feature = "checker")]
//! The catalogue of other crates' wire shapes (`src/extract/known/crates/`) checked against the real
//! crates, as `tests/positional_truth.rs` checks the positional engine against the real codecs.
//!
//! For each catalogued type (or `with` module) the test extracts the model of a message holding one
//! field of that type, written as a user writes it (`pub f: uuid::Uuid`, `#[serde(with = "...")]`), and:
//! - **real values through the shape**: real values of the real type are serialized with serde_json and
//!   checked against the shape's human-readable branch, and with postcard (a compact format) and decoded
//!   byte by byte through the shape's compact branch, which must consume every byte; the real type reads
//!   its own bytes back;
//! - **the shape through the real type**: a value built from the shape (its samples) is read by the real
//!   type, from JSON and from postcard bytes encoded through the compact branch; the entry's `sample` is
//!   exactly what the real type writes for it, and its `outside` value is rejected.
//!
//! The verdict tests at the end compare old and new types with the engine and check each verdict
//! against the real crates (the witness decodes, or the values each side writes are read by the other).

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wirecheck::Protocol;
use wirecheck::extract::snapshot_from_sources;
use wirecheck::model::{Body, Snapshot, Ty};

#[path = "catalogue_truth/shape.rs"]
mod shape;

use shape::{
    Defs, compact_reads_nothing, extent_of, json_fits, postcard_decode, postcard_encode,
    refined_of, sample,
};

/// The protocol the compiled helper types name (the real codecs do not read it).
#[derive(Protocol)]
#[wire(name = "p", version = "0.1.0", format = "json")]
pub struct P;

// ----- extraction -----

/// The crate source of a message `Msg` with one field `f` of type `ty`, under `attrs`.
fn source(format: &str, version: &str, attrs: &str, ty: &str) -> String {
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"{version}\", format = \"{format}\")]\n\
         pub struct P;\n\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
         pub struct Msg {{\n    {attrs}\n    pub f: {ty},\n}}\n"
    )
}

/// The snapshot of [`source`].
fn extract(format: &str, version: &str, attrs: &str, ty: &str) -> Snapshot {
    let text = source(format, version, attrs, ty);
    match snapshot_from_sources("case", &[("src/lib.rs", text.as_str())]) {
        Ok(snap) => snap,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// The lowered type of `Msg.f` and the snapshot's definitions.
fn field_shape(attrs: &str, ty: &str) -> (Ty, Defs) {
    let snap = extract("json", "0.1.0", attrs, ty);
    let msg = snap
        .types
        .values()
        .find(|def| def.path.ends_with("Msg"))
        .unwrap_or_else(|| panic!("no Msg in {:?}", snap.types));
    let Body::Struct { fields, .. } = &msg.body else {
        panic!("Msg is not a struct");
    };
    assert!(
        fields[0].custom.is_none(),
        "`{attrs}` on `{ty}` stayed custom: the catalogue has no shape for it"
    );
    (fields[0].ty.clone(), snap.types.clone())
}

// ----- one entry -----

/// Which real codecs an entry supports: serde_json always; postcard for writing and reading, for writing
/// only (the reader needs `deserialize_any`, which postcard does not implement, and the compact shape
/// says so with a choice that reads nothing), or not at all (serde_json's own types).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Codecs {
    JsonAndPostcard,
    PostcardWriteOnly,
    JsonOnly,
}

/// Checks the catalogued shape of the field `ty` (under `attrs`) against the real type `T` and its real
/// `values`, both ways, for JSON and (unless `JsonOnly`) postcard.
fn check<T>(attrs: &str, ty: &str, values: &[T], codecs: Codecs)
where
    T: Serialize + DeserializeOwned + Debug + PartialEq,
{
    let (shape, defs) = field_shape(attrs, ty);
    let at = |what: &str| format!("{ty} {attrs}: {what} (shape {shape})");
    assert!(
        !matches!(shape, Ty::External { .. }),
        "{}",
        at("not catalogued")
    );
    for value in values {
        let json = serde_json::to_value(value).expect("serde_json writes it");
        json_fits(&shape, &json, &defs).unwrap_or_else(|e| panic!("{}: {e}", at("JSON")));
        let back: T = serde_json::from_value(json.clone()).expect("reads its JSON");
        assert_eq!(&back, value, "{}", at("JSON round trip"));
        if codecs != Codecs::JsonOnly {
            let bytes = postcard::to_allocvec(value).expect("postcard writes it");
            let mut rest = bytes.as_slice();
            postcard_decode(&shape, &mut rest, &defs)
                .unwrap_or_else(|e| panic!("{}: {e} in {bytes:?}", at("postcard")));
            assert!(
                rest.is_empty(),
                "{}: {rest:?} left of {bytes:?}",
                at("postcard")
            );
            if codecs == Codecs::JsonAndPostcard {
                let back: T = postcard::from_bytes(&bytes).expect("reads its postcard");
                assert_eq!(&back, value, "{}", at("postcard round trip"));
            }
        }
    }
    check_samples::<T>(&shape, &defs, codecs, &at);
    let written: Vec<Value> = values
        .iter()
        .map(|v| serde_json::to_value(v).expect("serde_json writes it"))
        .collect();
    let outside = refined_of(&shape, true).and_then(|(_, outside)| outside);
    check_schemas(attrs, ty, &written, outside, &at);
}

/// `wirecheck schema` of the message: the JSON of every real value validates against the writer's and
/// the reader's schemas, and the value outside a refined domain, which the real type rejects, fails the
/// reader's.
fn check_schemas(
    attrs: &str,
    ty: &str,
    written: &[Value],
    outside: Option<&str>,
    at: &dyn Fn(&str) -> String,
) {
    use wirecheck::schema::{SchemaRole, message_schema};
    let snap = extract("json", "0.1.0", attrs, ty);
    let message = &snap.messages[0];
    let validator = |role| {
        let schema = message_schema(&snap, message, role).expect("a JSON protocol");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    };
    let (writer, reader) = (validator(SchemaRole::Writer), validator(SchemaRole::Reader));
    for json in written {
        let payload = serde_json::json!({ "f": json });
        for (role, validator) in [("writer", &writer), ("reader", &reader)] {
            if let Err(e) = validator.validate(&payload) {
                panic!(
                    "{}",
                    at(&format!("{payload} fails the {role}'s schema: {e}"))
                );
            }
        }
    }
    if let Some(outside) = outside {
        let payload =
            serde_json::json!({ "f": serde_json::from_str::<Value>(outside).expect("JSON") });
        assert!(
            !reader.is_valid(&payload),
            "{}",
            at(&format!(
                "{payload}, outside the domain, passes the reader's schema"
            ))
        );
    }
}

/// The shape's samples are read by the real type; its refined sample is what the type writes, its
/// outside value is rejected.
fn check_samples<T>(shape: &Ty, defs: &Defs, codecs: Codecs, at: &dyn Fn(&str) -> String)
where
    T: Serialize + DeserializeOwned + Debug + PartialEq,
{
    let human = sample(shape, true, defs);
    serde_json::from_value::<T>(human.clone())
        .unwrap_or_else(|e| panic!("{}: {human} not read: {e}", at("JSON sample")));
    if let Some((text, outside)) = refined_of(shape, true) {
        let read: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {e}", at(text)));
        let written = serde_json::to_value(&read).expect("writes");
        let expected: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(
            written,
            expected,
            "{}",
            at("the sample is what the type writes")
        );
        if let Some(outside) = outside {
            assert!(
                serde_json::from_str::<T>(outside).is_err(),
                "{}",
                at(&format!("outside {outside} is read"))
            );
        }
    }
    if let Some((least, most)) = extent_of(shape, true) {
        // The extent's ends are values the type writes: read, and written back unchanged.
        for end in [least, most] {
            let text = end.to_string();
            let read: T = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", at(&format!("extent end {text}"))));
            let written = serde_json::to_string(&read).expect("writes");
            assert_eq!(
                written,
                text,
                "{}",
                at("an extent end is what the type writes")
            );
        }
    }
    if codecs != Codecs::JsonOnly {
        let compact = sample(shape, false, defs);
        let mut bytes = Vec::new();
        postcard_encode(shape, &compact, defs, &mut bytes);
        let read = postcard::from_bytes::<T>(&bytes);
        assert_eq!(
            read.is_err(),
            compact_reads_nothing(shape),
            "{}",
            at(&format!("postcard sample {compact} as {bytes:?}: {read:?}"))
        );
        if let Some((_, Some(outside))) = refined_of(shape, false) {
            let mut bytes = Vec::new();
            postcard_encode(
                shape,
                &serde_json::from_str(outside).expect("JSON"),
                defs,
                &mut bytes,
            );
            assert!(
                postcard::from_bytes::<T>(&bytes).is_err(),
                "{}",
                at(&format!("compact outside {outside} is read"))
            );
        }
    }
}

/// A catalogued `with` module: the real field is `W`, a newtype holding the field under the same
/// `#[serde(with)]` (a newtype struct is its field on the wire in serde_json and postcard).
macro_rules! with_case {
    ($name:ident, $ty:ty, $module:literal, $codecs:expr, [$($value:expr),+ $(,)?]) => {
        #[test]
        fn $name() {
            #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
            struct W(#[serde(with = $module)] $ty);
            check::<W>(
                concat!("#[serde(with = \"", $module, "\")]"),
                stringify!($ty),
                &[$(W($value)),+],
                $codecs,
            );
        }
    };
}

/// A catalogued type used as a plain field.
macro_rules! type_case {
    ($name:ident, $ty:ty, $codecs:expr, [$($value:expr),+ $(,)?]) => {
        #[test]
        fn $name() {
            let values: Vec<$ty> = vec![$($value),+];
            check::<$ty>("", stringify!($ty), &values, $codecs);
        }
    };
}

use Codecs::{JsonAndPostcard as Both, JsonOnly, PostcardWriteOnly};

// ----- the entries -----

type_case!(
    url_url,
    url::Url,
    Both,
    [
        url::Url::parse("https://example.com/path?q=1").unwrap(),
        url::Url::parse("http://example.com/a|b").unwrap(),
        url::Url::parse("mailto:someone@example.com").unwrap(),
    ]
);

type_case!(
    fluent_uri_uri,
    fluent_uri::Uri<String>,
    Both,
    [
        fluent_uri::Uri::parse("https://example.com/path?q=1".to_owned()).unwrap(),
        fluent_uri::Uri::parse("urn:isbn:0451450523".to_owned()).unwrap(),
    ]
);

type_case!(
    fluent_uri_uri_ref,
    fluent_uri::UriRef<String>,
    Both,
    [
        fluent_uri::UriRef::parse("/path?q=1".to_owned()).unwrap(),
        fluent_uri::UriRef::parse("".to_owned()).unwrap(),
        fluent_uri::UriRef::parse("https://example.com/".to_owned()).unwrap(),
    ]
);

type_case!(
    fluent_uri_iri,
    fluent_uri::Iri<String>,
    Both,
    [fluent_uri::Iri::parse("https://example.com/caf\u{e9}".to_owned()).unwrap(),]
);

type_case!(
    fluent_uri_iri_ref,
    fluent_uri::IriRef<String>,
    Both,
    [fluent_uri::IriRef::parse("/caf\u{e9}".to_owned()).unwrap(),]
);

type_case!(
    cargo_platform_platform,
    cargo_platform::Platform,
    Both,
    [
        "cfg(unix)".parse::<cargo_platform::Platform>().unwrap(),
        "cfg(r#async)".parse::<cargo_platform::Platform>().unwrap(),
        "cfg(all(target_os = \"linux\", not(test)))"
            .parse::<cargo_platform::Platform>()
            .unwrap(),
        "x86_64-unknown-linux-gnu"
            .parse::<cargo_platform::Platform>()
            .unwrap(),
    ]
);

type_case!(
    cargo_util_schemas_package_name,
    cargo_util_schemas::manifest::PackageName,
    Both,
    [
        cargo_util_schemas::manifest::PackageName::new("serde".to_owned()).unwrap(),
        cargo_util_schemas::manifest::PackageName::new("serde::derive".to_owned()).unwrap(),
    ]
);

type_case!(
    cargo_util_schemas_feature_name,
    cargo_util_schemas::manifest::FeatureName,
    Both,
    [
        cargo_util_schemas::manifest::FeatureName::new("default".to_owned()).unwrap(),
        cargo_util_schemas::manifest::FeatureName::new("1.x+y".to_owned()).unwrap(),
    ]
);

type_case!(
    uuid_uuid,
    uuid::Uuid,
    Both,
    [
        uuid::Uuid::nil(),
        uuid::Uuid::parse_str("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap(),
    ]
);

type_case!(
    semver_version,
    semver::Version,
    Both,
    [
        semver::Version::parse("1.2.3-alpha.1+build.5").unwrap(),
        semver::Version::new(0, 0, 0),
    ]
);

type_case!(
    semver_version_req,
    semver::VersionReq,
    Both,
    [
        semver::VersionReq::parse(">=1.2.3, <2.0.0").unwrap(),
        semver::VersionReq::STAR,
    ]
);

type_case!(
    camino_utf8_path_buf,
    camino::Utf8PathBuf,
    Both,
    [
        camino::Utf8PathBuf::from("/tmp/x.txt"),
        camino::Utf8PathBuf::from(""),
    ]
);

type_case!(
    chrono_date_time_utc,
    chrono::DateTime<chrono::Utc>,
    Both,
    [
        chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap(),
        chrono::DateTime::from_timestamp(1_704_164_645, 123_456_789).unwrap(),
        chrono::DateTime::from_timestamp(-62_135_596_800, 0).unwrap(),
    ]
);

type_case!(
    chrono_date_time_fixed,
    chrono::DateTime<chrono::FixedOffset>,
    Both,
    [chrono::DateTime::parse_from_rfc3339("2024-01-02T03:04:05+01:00").unwrap(),]
);

type_case!(
    chrono_naive_date_time,
    chrono::NaiveDateTime,
    Both,
    [chrono::DateTime::from_timestamp(1_704_164_645, 5_000_000)
        .unwrap()
        .naive_utc(),]
);

type_case!(
    chrono_naive_date,
    chrono::NaiveDate,
    Both,
    [chrono::NaiveDate::from_ymd_opt(2024, 1, 2).unwrap(),]
);

type_case!(
    chrono_naive_time,
    chrono::NaiveTime,
    Both,
    [
        chrono::NaiveTime::from_hms_opt(3, 4, 5).unwrap(),
        chrono::NaiveTime::from_hms_milli_opt(23, 59, 59, 999).unwrap(),
    ]
);

type_case!(
    chrono_weekday,
    chrono::Weekday,
    Both,
    [chrono::Weekday::Mon, chrono::Weekday::Sun]
);

type_case!(
    chrono_month,
    chrono::Month,
    Both,
    [chrono::Month::January, chrono::Month::December]
);

type_case!(
    chrono_time_delta,
    chrono::TimeDelta,
    Both,
    [
        chrono::TimeDelta::seconds(90),
        chrono::TimeDelta::milliseconds(-1500),
    ]
);

with_case!(
    chrono_ts_seconds,
    chrono::DateTime<chrono::Utc>,
    "chrono::serde::ts_seconds",
    Both,
    [
        chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap(),
        chrono::DateTime::from_timestamp(-1, 0).unwrap(),
    ]
);

with_case!(
    chrono_ts_seconds_option,
    Option<chrono::DateTime<chrono::Utc>>,
    "chrono::serde::ts_seconds_option",
    Both,
    [
        Some(chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap()),
        None,
    ]
);

with_case!(
    chrono_ts_milliseconds,
    chrono::DateTime<chrono::Utc>,
    "chrono::serde::ts_milliseconds",
    Both,
    [chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap(),]
);

with_case!(
    chrono_ts_microseconds,
    chrono::DateTime<chrono::Utc>,
    "chrono::serde::ts_microseconds",
    Both,
    [chrono::DateTime::from_timestamp(1_704_164_645, 0).unwrap(),]
);

with_case!(
    chrono_ts_nanoseconds,
    chrono::DateTime<chrono::Utc>,
    "chrono::serde::ts_nanoseconds",
    Both,
    [chrono::DateTime::from_timestamp(1_704_164_645, 1).unwrap(),]
);

with_case!(
    chrono_naive_ts_seconds,
    chrono::NaiveDateTime,
    "chrono::naive::serde::ts_seconds",
    Both,
    [chrono::DateTime::from_timestamp(1_704_164_645, 0)
        .unwrap()
        .naive_utc(),]
);

type_case!(
    time_offset_date_time,
    time::OffsetDateTime,
    Both,
    [
        time::macros::datetime!(2024-01-02 03:04:05 UTC),
        time::macros::datetime!(2024-01-02 03:04:05.123456789 +01:30),
    ]
);

type_case!(
    time_primitive_date_time,
    time::PrimitiveDateTime,
    Both,
    [time::macros::datetime!(2024-01-02 03:04:05),]
);

type_case!(
    time_utc_date_time,
    time::UtcDateTime,
    Both,
    [time::macros::utc_datetime!(2024-01-02 03:04:05),]
);

type_case!(
    time_date,
    time::Date,
    Both,
    [time::macros::date!(2024 - 01 - 02)]
);

type_case!(
    time_time,
    time::Time,
    Both,
    [
        time::macros::time!(03:04:05),
        time::macros::time!(23:59:59.5)
    ]
);

type_case!(
    time_utc_offset,
    time::UtcOffset,
    Both,
    [time::macros::offset!(+01:00), time::UtcOffset::UTC]
);

type_case!(
    time_duration,
    time::Duration,
    Both,
    [
        time::Duration::seconds(90),
        time::Duration::milliseconds(-1500)
    ]
);

type_case!(
    time_weekday,
    time::Weekday,
    Both,
    [time::Weekday::Monday, time::Weekday::Sunday]
);

type_case!(
    time_month,
    time::Month,
    Both,
    [time::Month::January, time::Month::December]
);

with_case!(
    time_rfc3339,
    time::OffsetDateTime,
    "time::serde::rfc3339",
    Both,
    [
        time::macros::datetime!(2024-01-02 03:04:05 UTC),
        time::macros::datetime!(2024-01-02 03:04:05.5 +01:00),
    ]
);

with_case!(
    time_rfc3339_option,
    Option<time::OffsetDateTime>,
    "time::serde::rfc3339::option",
    PostcardWriteOnly,
    [Some(time::macros::datetime!(2024-01-02 03:04:05 UTC)), None,]
);

with_case!(
    time_rfc2822,
    time::OffsetDateTime,
    "time::serde::rfc2822",
    Both,
    [time::macros::datetime!(2024-01-02 03:04:05 UTC),]
);

with_case!(
    time_rfc2822_option,
    Option<time::OffsetDateTime>,
    "time::serde::rfc2822::option",
    PostcardWriteOnly,
    [Some(time::macros::datetime!(2024-01-02 03:04:05 UTC)), None,]
);

#[test]
fn time_option_modules_read_none_in_postcard() {
    // The part of the compact shape that still reads: `None`.
    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    struct W(#[serde(with = "time::serde::rfc3339::option")] Option<time::OffsetDateTime>);
    let bytes = postcard::to_allocvec(&W(None)).unwrap();
    assert_eq!(postcard::from_bytes::<W>(&bytes).unwrap(), W(None));
}

with_case!(
    time_timestamp,
    time::OffsetDateTime,
    "time::serde::timestamp",
    Both,
    [
        time::macros::datetime!(2024-01-02 03:04:05 UTC),
        time::macros::datetime!(1969-12-31 23:59:59 UTC),
    ]
);

with_case!(
    time_timestamp_option,
    Option<time::OffsetDateTime>,
    "time::serde::timestamp::option",
    Both,
    [Some(time::macros::datetime!(2024-01-02 03:04:05 UTC)), None,]
);

with_case!(
    time_timestamp_milliseconds,
    time::OffsetDateTime,
    "time::serde::timestamp::milliseconds",
    Both,
    [time::macros::datetime!(2024-01-02 03:04:05 UTC),]
);

with_case!(
    time_timestamp_microseconds,
    time::OffsetDateTime,
    "time::serde::timestamp::microseconds",
    Both,
    [
        time::macros::datetime!(2024-01-02 03:04:05.000_006 UTC),
        time::macros::datetime!(1900-01-01 00:00 UTC),
    ]
);

with_case!(
    time_timestamp_microseconds_option,
    Option<time::OffsetDateTime>,
    "time::serde::timestamp::microseconds::option",
    Both,
    [Some(time::macros::datetime!(2024-01-02 03:04:05 UTC)), None,]
);

with_case!(
    time_timestamp_milliseconds_i64,
    time::OffsetDateTime,
    "time::serde::timestamp::milliseconds_i64",
    Both,
    [time::macros::datetime!(2024-01-02 03:04:05 UTC),]
);

type_case!(
    bytes_bytes,
    bytes::Bytes,
    Both,
    [
        bytes::Bytes::from_static(b"\x00\xffab"),
        bytes::Bytes::new()
    ]
);

type_case!(
    bytes_bytes_mut,
    bytes::BytesMut,
    Both,
    [bytes::BytesMut::from(&b"abc"[..])]
);

type_case!(
    serde_bytes_byte_buf,
    serde_bytes::ByteBuf,
    Both,
    [serde_bytes::ByteBuf::from(vec![0, 255, 7])]
);

with_case!(
    serde_bytes_with_vec,
    Vec<u8>,
    "serde_bytes",
    Both,
    [vec![0, 255, 7], vec![]]
);

with_case!(
    serde_bytes_with_option,
    Option<Vec<u8>>,
    "serde_bytes",
    Both,
    [Some(vec![1, 2]), None]
);

type_case!(
    serde_json_value,
    serde_json::Value,
    JsonOnly,
    [
        serde_json::json!({"a": [1, "x", null, 2.5]}),
        serde_json::json!(3),
    ]
);

type_case!(serde_json_map, serde_json::Map<String, serde_json::Value>, JsonOnly, [
    serde_json::json!({"a": 1}).as_object().unwrap().clone(),
]);

type_case!(
    serde_json_number,
    serde_json::Number,
    JsonOnly,
    [
        serde_json::Number::from(7),
        serde_json::Number::from(u64::MAX),
        serde_json::Number::from_f64(2.5).unwrap(),
    ]
);

#[test]
fn serde_json_raw_value() {
    // `Box<RawValue>` has no `PartialEq`: compared by its text.
    let (shape, defs) = field_shape("", "Box<serde_json::value::RawValue>");
    assert_eq!(shape, Ty::Value);
    for text in [r#"{"a":[1,"x"]}"#, "3", "null"] {
        let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
        let json = serde_json::to_value(&raw).unwrap();
        json_fits(&shape, &json, &defs).unwrap();
        let back: Box<serde_json::value::RawValue> = serde_json::from_str(text).unwrap();
        assert_eq!(back.get(), text);
    }
}

type_case!(indexmap_index_map, indexmap::IndexMap<String, u32>, Both, [
    indexmap::IndexMap::from([("b".to_owned(), 2), ("a".to_owned(), 1)]),
    indexmap::IndexMap::new(),
]);

type_case!(
    indexmap_index_set,
    indexmap::IndexSet<u32>,
    Both,
    [indexmap::IndexSet::from([3, 1, 300])]
);

type_case!(
    smallvec_small_vec,
    smallvec::SmallVec<[u32; 4]>,
    Both,
    [
        smallvec::SmallVec::from_vec(vec![1, 2, 3, 4, 5, 70000]),
        smallvec::SmallVec::new(),
    ]
);

type_case!(
    ordered_float_ordered_float,
    ordered_float::OrderedFloat<f64>,
    Both,
    [
        ordered_float::OrderedFloat(1.5),
        ordered_float::OrderedFloat(-0.0),
    ]
);

type_case!(
    ordered_float_not_nan,
    ordered_float::NotNan<f32>,
    Both,
    [ordered_float::NotNan::new(1.5f32).unwrap()]
);

#[test]
fn ordered_float_not_nan_rejects_nan_in_compact_formats() {
    // NaN has no JSON text (no `outside` value); in postcard the NaN bytes are a float the reader rejects.
    let bytes = postcard::to_allocvec(&f64::NAN).unwrap();
    assert!(postcard::from_bytes::<ordered_float::NotNan<f64>>(&bytes).is_err());
    let (shape, _) = field_shape("", "ordered_float::NotNan<f64>");
    assert!(
        matches!(shape, Ty::Refined { ref domain, .. } if domain == "not-nan"),
        "{shape}"
    );
}

type_case!(
    rust_decimal_decimal,
    rust_decimal::Decimal,
    PostcardWriteOnly,
    [
        rust_decimal::Decimal::new(1250, 2),
        rust_decimal::Decimal::new(-7, 0),
    ]
);

#[test]
fn rust_decimal_reads_numbers_too() {
    // The reader's choice: a string, an integer or a float.
    for text in ["\"12.50\"", "12", "12.5", "-3"] {
        serde_json::from_str::<rust_decimal::Decimal>(text).unwrap();
    }
    let (shape, _) = field_shape("", "rust_decimal::Decimal");
    let Ty::Readable { human, .. } = shape else {
        panic!("{shape}")
    };
    let Ty::Choice { reads, .. } = *human else {
        panic!("{human}")
    };
    assert_eq!(reads.len(), 4);
}

type_case!(
    ipnet_ip_net,
    ipnet::IpNet,
    Both,
    ["10.0.0.0/8".parse().unwrap(), "fd00::/8".parse().unwrap(),]
);

type_case!(
    ipnet_ipv4_net,
    ipnet::Ipv4Net,
    Both,
    ["192.168.1.0/24".parse().unwrap()]
);

type_case!(
    ipnet_ipv6_net,
    ipnet::Ipv6Net,
    Both,
    ["fd00::/8".parse().unwrap()]
);

with_case!(
    humantime_duration,
    std::time::Duration,
    "humantime_serde",
    Both,
    [
        std::time::Duration::from_secs(5400),
        std::time::Duration::from_millis(1),
    ]
);

with_case!(
    humantime_system_time,
    std::time::SystemTime,
    "humantime_serde",
    Both,
    [std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_704_164_645),]
);

with_case!(
    humantime_option,
    Option<std::time::Duration>,
    "humantime_serde::option",
    Both,
    [Some(std::time::Duration::from_secs(90)), None,]
);

type_case!(
    humantime_serde_wrapper,
    humantime_serde::Serde<std::time::Duration>,
    Both,
    [humantime_serde::Serde::from(
        std::time::Duration::from_secs(5400)
    ),]
);

with_case!(
    http_serde_status_code,
    http::StatusCode,
    "http_serde::status_code",
    Both,
    [
        http::StatusCode::OK,
        http::StatusCode::from_u16(999).unwrap(),
    ]
);

with_case!(
    http_serde_option_status_code,
    Option<http::StatusCode>,
    "http_serde::option::status_code",
    Both,
    [Some(http::StatusCode::NOT_FOUND), None,]
);

with_case!(
    http_serde_method,
    http::Method,
    "http_serde::method",
    Both,
    [
        http::Method::GET,
        http::Method::from_bytes(b"PURGE").unwrap(),
    ]
);

with_case!(
    http_serde_uri,
    http::Uri,
    "http_serde::uri",
    Both,
    [
        http::Uri::from_static("https://example.com/path?q=1"),
        http::Uri::from_static("/relative"),
    ]
);

with_case!(
    http_serde_authority,
    http::uri::Authority,
    "http_serde::authority",
    Both,
    [http::uri::Authority::from_static("example.com:8080"),]
);

with_case!(
    http_serde_version,
    http::Version,
    "http_serde::version",
    Both,
    [http::Version::HTTP_11, http::Version::HTTP_2,]
);

// ----- domains: `within` against the real parsers -----

#[test]
fn url_and_fluent_uri_domains_are_not_nested() {
    // url writes what RFC 3986 rejects, and RFC 3986 accepts what url rejects: neither within the other.
    let url = url::Url::parse("http://example.com/a|b").unwrap();
    assert_eq!(url.as_str(), "http://example.com/a|b");
    assert!(fluent_uri::Uri::parse(url.as_str()).is_err());
    assert!(fluent_uri::Uri::parse("http://999.999.999.999/").is_ok());
    assert!(url::Url::parse("http://999.999.999.999/").is_err());
    for (domain, within) in [
        ("whatwg-url", vec![]),
        (
            "rfc3986-uri",
            vec![
                "rfc3986-uri-reference",
                "rfc3987-iri",
                "rfc3987-iri-reference",
            ],
        ),
    ] {
        let ty = if domain == "whatwg-url" {
            "url::Url"
        } else {
            "fluent_uri::Uri<String>"
        };
        let (shape, _) = field_shape("", ty);
        let Ty::Refined {
            domain: d,
            within: w,
            ..
        } = shape
        else {
            panic!("{shape}")
        };
        assert_eq!(
            (d.as_str(), w.iter().map(String::as_str).collect::<Vec<_>>()),
            (domain, within)
        );
    }
}

#[test]
fn a_uri_is_a_uri_reference_and_an_iri() {
    for text in ["https://example.com/path?q=1", "urn:isbn:0451450523", "a:b"] {
        assert!(fluent_uri::Uri::parse(text).is_ok());
        assert!(fluent_uri::UriRef::parse(text).is_ok());
        assert!(fluent_uri::Iri::parse(text).is_ok());
        assert!(fluent_uri::IriRef::parse(text).is_ok());
    }
    assert!(fluent_uri::Uri::parse("/path").is_err());
    assert!(fluent_uri::Iri::parse("https://example.com/caf\u{e9}").is_ok());
    assert!(fluent_uri::Uri::parse("https://example.com/caf\u{e9}").is_err());
}

#[test]
fn rfc3339_is_one_domain_across_chrono_and_time_and_humantime_reads_a_part() {
    // What chrono and time write, each reads (years 0 to 9999); humantime writes a part of it.
    let chrono_text =
        serde_json::to_string(&chrono::DateTime::from_timestamp(1_704_164_645, 5).unwrap())
            .unwrap();
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct T(#[serde(with = "time::serde::rfc3339")] time::OffsetDateTime);
    #[derive(Serialize, serde::Deserialize, Debug)]
    struct H(#[serde(with = "humantime_serde")] std::time::SystemTime);
    let time_text =
        serde_json::to_string(&T(time::macros::datetime!(2024-01-02 03:04:05.5 +01:00))).unwrap();
    let human_text = serde_json::to_string(&H(
        std::time::UNIX_EPOCH + std::time::Duration::new(1_704_164_645, 7)
    ))
    .unwrap();
    for text in [&chrono_text, &time_text, &human_text] {
        serde_json::from_str::<chrono::DateTime<chrono::Utc>>(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        serde_json::from_str::<T>(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    serde_json::from_str::<H>(&chrono_text).unwrap();
    // humantime reads UTC from 1970 on: a time before, or an offset without a fraction, is rejected (an
    // offset after a fraction is ignored: time's `+01:00` reads an hour late).
    for text in ["\"1969-12-31T23:59:59Z\"", "\"2024-01-02T03:04:05+01:00\""] {
        serde_json::from_str::<chrono::DateTime<chrono::Utc>>(text).unwrap();
        assert!(serde_json::from_str::<H>(text).is_err(), "{text}");
    }
    let misread = serde_json::from_str::<H>(&time_text).unwrap();
    assert_eq!(
        misread.0,
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_704_164_645_500)
    );
    // The edge the domain leaves out: chrono writes years past 9999, which time rejects.
    let far = chrono::NaiveDate::from_ymd_opt(10_000, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let far_text = serde_json::to_string(&far).unwrap();
    assert!(serde_json::from_str::<T>(&far_text).is_err(), "{far_text}");
    let domain_of = |attrs: &str, ty: &str| match field_shape(attrs, ty).0 {
        Ty::Refined { domain, within, .. } => (domain, within),
        other => panic!("{other}"),
    };
    let rfc3339 = ("rfc3339".to_owned(), Vec::new());
    assert_eq!(domain_of("", "chrono::DateTime<chrono::Utc>"), rfc3339);
    assert_eq!(
        domain_of(
            "#[serde(with = \"time::serde::rfc3339\")]",
            "time::OffsetDateTime"
        ),
        rfc3339
    );
    assert_eq!(
        domain_of(
            "#[serde(with = \"humantime_serde\")]",
            "std::time::SystemTime"
        ),
        (
            "rfc3339-utc-since-1970".to_owned(),
            vec!["rfc3339".to_owned()]
        )
    );
}

/// chrono's `DateTime<Utc>` and time's `rfc3339` read by humantime: it rejects the times before 1970
/// that they write (the witness); humantime's own times they read.
#[test]
fn a_with_module_imported_by_name_resolves() {
    let text = "use chrono::serde::ts_seconds;";
    let snap = {
        let src = source(
            "json",
            "0.1.0",
            "#[serde(with = \"ts_seconds\")]",
            "chrono::DateTime<chrono::Utc>",
        );
        let src = format!("{text}\n{src}");
        snapshot_from_sources("case", &[("src/lib.rs", src.as_str())]).unwrap()
    };
    let msg = snap
        .types
        .values()
        .find(|d| d.path.ends_with("Msg"))
        .unwrap();
    let Body::Struct { fields, .. } = &msg.body else {
        panic!()
    };
    assert!(fields[0].custom.is_none());
    assert!(
        matches!(&fields[0].ty, Ty::Refined { domain, .. } if domain == "unix-seconds"),
        "{}",
        fields[0].ty
    );
}

#[test]
fn an_option_read_by_a_with_module_is_required_unless_defaulted() {
    // serde's missing-field rule (an absent `Option` is `None`) holds only for derived reads.
    #[derive(serde::Deserialize, Debug)]
    struct Required {
        #[serde(with = "chrono::serde::ts_seconds_option")]
        #[allow(dead_code)]
        f: Option<chrono::DateTime<chrono::Utc>>,
    }
    #[derive(serde::Deserialize, Debug)]
    struct Defaulted {
        #[serde(default, with = "chrono::serde::ts_seconds_option")]
        f: Option<chrono::DateTime<chrono::Utc>>,
    }
    assert!(serde_json::from_str::<Required>("{}").is_err());
    assert_eq!(serde_json::from_str::<Defaulted>("{}").unwrap().f, None);
    let attrs = "#[serde(with = \"chrono::serde::ts_seconds_option\")]";
    let (required, _) = field_shape(attrs, "Option<chrono::DateTime<chrono::Utc>>");
    assert!(
        matches!(&required, Ty::Choice { writes, reads } if matches!(**writes, Ty::Option { .. }) && reads.len() == 1),
        "{required}"
    );
    let attrs = "#[serde(default, with = \"chrono::serde::ts_seconds_option\")]";
    let (defaulted, _) = field_shape(attrs, "Option<chrono::DateTime<chrono::Utc>>");
    assert!(matches!(defaulted, Ty::Option { .. }), "{defaulted}");
}

#[test]
fn an_unknown_with_module_stays_custom() {
    let snap = extract(
        "json",
        "0.1.0",
        "#[serde(with = \"my::module\")]",
        "chrono::DateTime<chrono::Utc>",
    );
    let msg = snap
        .types
        .values()
        .find(|d| d.path.ends_with("Msg"))
        .unwrap();
    let Body::Struct { fields, .. } = &msg.body else {
        panic!()
    };
    assert!(fields[0].custom.is_some());
}

// ----- verdicts -----

#[path = "catalogue_truth/verdicts.rs"]
mod verdicts;

// Strings and byte strings of other crates (crates/strings.rs): the wire of `String`, `Vec<T>` and
// `serialize_bytes`.
type_case!(
    smol_str_smol_str,
    smol_str::SmolStr,
    Both,
    [smol_str::SmolStr::new("queue"), smol_str::SmolStr::new("")]
);

type_case!(
    compact_str_compact_string,
    compact_str::CompactString,
    Both,
    [
        compact_str::CompactString::new("a longer string than fits inline"),
        compact_str::CompactString::new("é")
    ]
);

type_case!(
    ecow_eco_string,
    ecow::EcoString,
    Both,
    [ecow::EcoString::from("rank"), ecow::EcoString::new()]
);

type_case!(
    ecow_eco_vec,
    ecow::EcoVec<u32>,
    Both,
    [ecow::EcoVec::from([1u32, 300]), ecow::EcoVec::new()]
);

type_case!(
    ecow_eco_bytes,
    ecow::EcoBytes,
    Both,
    [
        ecow::EcoBytes::from(&b"\x00\xffab"[..]),
        ecow::EcoBytes::new()
    ]
);
