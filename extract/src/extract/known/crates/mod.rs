//! The catalogue: wire shapes of other crates' types whose serde impls are written by hand, keyed by
//! crate name, version range and item path (issue 15, item 3).
//!
//! Each family has its own file with a table of [`Entry`]s; every entry is checked against the real
//! crate in `tests/catalogue_truth.rs` (real values serialized with serde_json and postcard and decoded
//! through the shape, the entry's sample read back by the real type and its outside value rejected).
//!
//! **Domains.** A [`Ty::Refined`] names the set of values its reader accepts. The same wire format
//! shares one domain name across crates (`rfc3339` for chrono's `DateTime`, `time::serde::rfc3339` and
//! humantime's `SystemTime`; `unix-seconds` for chrono's `ts_seconds` and `time::serde::timestamp`), and
//! `within` lists every larger domain (the closure, not only the parent); the `outside` value of a domain
//! that is a part of another is one of that other (an IPv6 network for `ipv4-cidr`, a time before 1970
//! for humantime's `rfc3339-utc-since-1970`): the value a writer of the whole writes and a reader of the
//! part rejects, which the comparison takes as the witness. The date and time domains
//! describe years 0 to 9999 (the Unix counts -9999 to 9999, which their `extent` states, in whatever
//! integer type each crate writes them): chrono writes years past 9999 (`+10000-01-01T00:00:00Z`) that
//! time and humantime reject (time without its `large-dates` feature); that edge is not modelled. An
//! integer domain with an `extent` is compared by it: time's `i128` milliseconds and chrono's `i64`
//! ones are one domain, and only the width on the wire differs.
//!
//! **Versions.** `version` is the package version from `Cargo.lock` when the caller knows it: an entry
//! applies when its range matches. Without a version the newest range of the crate is used (each
//! table lists a crate's ranges newest first). A version no range matches gets no shape: the type stays
//! external, compared by path and version.
//!
//! **Features.** Some shapes depend on the crate's features (time's strings need
//! `serde-human-readable`; rust_decimal's `serde-float` writes floats). The catalogue describes the
//! features named in each table's documentation; the caller does not know the features yet.

mod bytes;
mod cargo;
mod chrono;
mod collections;
mod humantime;
mod ids;
mod json;
mod net;
mod numbers;
mod strings;
mod time;
mod uri;
mod with;

use semver::{Version, VersionReq};

use super::Known;
use crate::model::{Body, ContainerAttrs, Location, Style, Ty, TypeDef, Variant};
use with::WithEntry;

/// One catalogued type: the crate (as named in code, underscore form), the versions it holds for, the
/// item paths (after the crate name) that name the type, and its shape for the given generic arguments.
pub(super) struct Entry {
    /// The crate's name as written in code (`serde_json`, `fluent_uri`).
    pub krate: &'static str,
    /// A `semver::VersionReq` (`>=2.0.0, <3.0.0`).
    pub versions: &'static str,
    /// The paths after the crate name that name the type (`Url`, `datetime::DateTime`).
    pub items: &'static [&'static str],
    /// The shape, given the lowered generic arguments; `None` when the arguments do not fit.
    pub shape: fn(&[Ty]) -> Option<Known>,
}

/// Every table, in no particular order (entries of one crate are in one table, newest range first).
const TABLES: &[&[Entry]] = &[
    bytes::ENTRIES,
    cargo::ENTRIES,
    chrono::ENTRIES,
    collections::ENTRIES,
    humantime::ENTRIES,
    ids::ENTRIES,
    json::ENTRIES,
    net::ENTRIES,
    numbers::ENTRIES,
    strings::ENTRIES,
    time::ENTRIES,
    uri::ENTRIES,
];

/// Every table of `with` modules.
const WITH_TABLES: &[&[WithEntry]] = &[
    bytes::WITH,
    chrono::WITH,
    humantime::WITH,
    net::WITH,
    time::WITH,
];

/// Whether the catalogue has entries (types or `with` modules) for the crate named by `path`'s first
/// segment.
pub(super) fn knows_crate(path: &[String]) -> bool {
    path.first().is_some_and(|krate| {
        TABLES
            .iter()
            .flat_map(|table| table.iter())
            .any(|entry| entry.krate == krate)
            || WITH_TABLES
                .iter()
                .flat_map(|table| table.iter())
                .any(|entry| entry.krate == krate)
    })
}

/// The shape that the `with` module at `module` (resolved, first segment the crate) writes and reads for
/// a field of type `field`, at the crate's `version` (the newest range when `None`).
pub(super) fn lookup_with(
    module: &[String],
    field: &Ty,
    version: Option<&Version>,
) -> Option<Known> {
    let (krate, rest) = module.split_first()?;
    let rest = rest.join("::");
    let entry = WITH_TABLES
        .iter()
        .flat_map(|table| table.iter())
        .filter(|entry| entry.krate == krate && entry.modules.contains(&rest.as_str()))
        .find(|entry| version.is_none_or(|version| in_range(entry.versions, version)))?;
    (entry.shape)(field)
}

/// The catalogued shape of the type at `path` (first segment: the crate) at `version`, if any.
pub(super) fn lookup(path: &[String], args: &[Ty], version: Option<&Version>) -> Option<Known> {
    let (krate, item) = path.split_first()?;
    let item = item.join("::");
    let entry = find(TABLES, krate, &item, version)?;
    (entry.shape)(args)
}

/// The entry for `krate`'s `item` whose range holds `version`, or the first (newest) one without a
/// version.
fn find<'t>(
    tables: &'t [&'t [Entry]],
    krate: &str,
    item: &str,
    version: Option<&Version>,
) -> Option<&'t Entry> {
    tables
        .iter()
        .flat_map(|table| table.iter())
        .filter(|entry| entry.krate == krate && entry.items.contains(&item))
        .find(|entry| version.is_none_or(|version| in_range(entry.versions, version)))
}

/// Whether `version` is in the range `req`; a malformed range (a bug in a table, caught by the unit
/// test below) holds nothing.
fn in_range(req: &str, version: &Version) -> bool {
    VersionReq::parse(req).is_ok_and(|req| req.matches(version))
}

/// Whole `unit`s (`seconds`, `milliseconds`, `microseconds`, `nanoseconds`) since the Unix epoch as an
/// `i64`, as the catalogue has them (chrono's `ts_*`, time's `timestamp*`): the domain of that unit,
/// with `sample`, or for nanoseconds the plain `i64` chrono's `ts_nanoseconds` is (every `i64` is a
/// time); `None` for another unit.
pub(super) fn unix_timestamp_i64(unit: &str, sample: &str) -> Option<Ty> {
    let (domain, per_second) = match unit {
        "seconds" => ("unix-seconds", 1),
        "milliseconds" => ("unix-milliseconds", 1_000),
        "microseconds" => ("unix-microseconds", 1_000_000),
        "nanoseconds" => return Some(chrono::unix_nanos()),
        _ => return None,
    };
    Some(chrono::unix_count(64, domain, per_second, sample))
}

/// A string (or number) the reader parses: `base` on the wire, only values of `domain` accepted.
pub(super) fn refined(
    base: Ty,
    domain: &str,
    within: &[&str],
    sample: &str,
    outside: Option<&str>,
) -> Ty {
    Ty::Refined {
        base: Box::new(base),
        domain: domain.to_owned(),
        within: within.iter().map(|d| (*d).to_owned()).collect(),
        sample: sample.to_owned(),
        outside: outside.map(str::to_owned),
        extent: None,
    }
}

/// `ty`, a [`refined`] integer, whose domain is every integer from `least` to `most`.
pub(super) fn with_extent(mut ty: Ty, least: i128, most: i128) -> Ty {
    if let Ty::Refined { extent, .. } = &mut ty {
        *extent = Some((least.to_string(), most.to_string()));
    }
    ty
}

/// A string of `domain` (see [`refined`]).
pub(super) fn refined_str(domain: &str, within: &[&str], sample: &str, outside: &str) -> Ty {
    refined(Ty::String, domain, within, sample, Some(outside))
}

/// One shape in human-readable formats, another in compact ones.
pub(super) fn readable(human: Ty, compact: Ty) -> Ty {
    Ty::Readable {
        human: Box::new(human),
        compact: Box::new(compact),
    }
}

/// An unsigned integer of `bits`.
pub(super) fn uint(bits: u8) -> Ty {
    Ty::Int {
        signed: false,
        bits,
    }
}

/// A signed integer of `bits`.
pub(super) fn int(bits: u8) -> Ty {
    Ty::Int { signed: true, bits }
}

/// A tuple of `n` copies of `elem` (serde's `serialize_tuple` of fixed length).
pub(super) fn tuple_of(elem: &Ty, n: usize) -> Ty {
    Ty::Tuple {
        elems: vec![elem.clone(); n],
    }
}

/// A synthetic definition of a catalogued enum whose variants are newtypes (ipnet's `IpNet`): serde's
/// externally tagged representation, as `serialize_newtype_variant` writes it.
pub(super) fn newtype_enum(path: &str, variants: &[(&str, Ty)]) -> TypeDef {
    TypeDef {
        package: None,
        path: path.to_owned(),
        generics: Vec::new(),
        attrs: ContainerAttrs::default(),
        body: Body::Enum {
            variants: variants
                .iter()
                .map(|(name, ty)| {
                    Variant::plain(
                        name,
                        Style::Tuple,
                        vec![tuple_field(ty.clone())],
                        catalogue_location(path),
                    )
                })
                .collect(),
        },
        location: catalogue_location(path),
    }
}

/// Field `0` of a tuple variant.
fn tuple_field(ty: Ty) -> crate::model::Field {
    crate::model::Field {
        rust_name: "0".to_owned(),
        ser_name: "0".to_owned(),
        de_names: vec!["0".to_owned()],
        ty,
        default: false,
        skip_ser: crate::model::SkipSer::Never,
        skip_de: false,
        flatten: false,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    }
}

/// Where a catalogue definition is "written": no file of the workspace; the file names the catalogue.
fn catalogue_location(path: &str) -> Location {
    Location {
        file: format!("<wirecheck catalogue: {path}>"),
        ..Location::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_parses_and_every_entry_has_items() {
        for entry in TABLES.iter().flat_map(|table| table.iter()) {
            assert!(
                VersionReq::parse(entry.versions).is_ok(),
                "{} {}",
                entry.krate,
                entry.versions
            );
            assert!(!entry.items.is_empty(), "{}", entry.krate);
        }
    }

    #[test]
    fn a_version_outside_every_range_gets_no_shape() {
        let path = ["url".to_owned(), "Url".to_owned()];
        assert!(lookup(&path, &[], Some(&Version::new(1, 7, 0))).is_none());
        assert!(lookup(&path, &[], Some(&Version::new(2, 5, 8))).is_some());
        assert!(lookup(&path, &[], None).is_some());
    }

    #[test]
    fn a_with_module_applies_only_to_the_field_type_it_takes() {
        let module: Vec<String> = ["chrono", "serde", "ts_seconds"].map(String::from).to_vec();
        let date_time = Ty::external("chrono::DateTime<chrono::Utc>");
        let optional = Ty::Option {
            inner: Box::new(date_time.clone()),
        };
        assert!(lookup_with(&module, &date_time, None).is_some());
        assert!(lookup_with(&module, &optional, None).is_none());
        let option_module: Vec<String> = ["chrono", "serde", "ts_seconds_option"]
            .map(String::from)
            .to_vec();
        assert!(lookup_with(&option_module, &optional, None).is_some());
        assert!(lookup_with(&option_module, &date_time, None).is_none());
    }

    #[test]
    fn crates_with_only_with_modules_are_known() {
        assert!(knows_crate(&["http_serde".to_owned()]));
        assert!(!knows_crate(&["std".to_owned()]));
    }
}
