//! The lowering of std types: each path, through the modules and re-exports that name it, `use` renames
//! and the `core`/`alloc` roots, to the shape serde writes; bare names only for the prelude.

use crate::extract::snapshot_from_sources;
use crate::model::{Body, EnumRepr, Field, SeqKind, Snapshot, Style, Ty};

/// A crate with one message `M` whose fields are `fields` (Rust source), after `uses`.
fn lowered(uses: &str, fields: &str) -> Snapshot {
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n{uses}\n\
         #[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n\
         #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\n\
         pub struct M {{ {fields} }}\n"
    );
    snapshot_from_sources("demo", &[("src/lib.rs", &lib)]).expect("extracts")
}

fn fields_of(s: &Snapshot, path: &str) -> Vec<Field> {
    match &s.types[path].body {
        Body::Struct { fields, .. } => fields.clone(),
        other => panic!("{path} is not a struct: {other:?}"),
    }
}

/// The types of `M`'s fields.
fn tys(s: &Snapshot) -> Vec<Ty> {
    fields_of(s, "demo::M").into_iter().map(|f| f.ty).collect()
}

fn int(signed: bool, bits: u8) -> Ty {
    Ty::Int { signed, bits }
}

fn named(path: &str, args: Vec<Ty>) -> Ty {
    Ty::Named {
        path: path.into(),
        args,
    }
}

fn nonzero(base: Ty) -> Ty {
    let extent = Some(match &base {
        Ty::Int {
            signed: false,
            bits: 8,
        } => ("1".into(), "255".into()),
        Ty::Int {
            signed: false,
            bits: 32,
        } => ("1".into(), "4294967295".into()),
        Ty::Int {
            signed: false,
            bits: 64,
        } => ("1".into(), "18446744073709551615".into()),
        Ty::Int {
            signed: true,
            bits: 64,
        } => (i64::MIN.to_string(), i64::MAX.to_string()),
        Ty::Int {
            signed: true,
            bits: 128,
        } => (i128::MIN.to_string(), i128::MAX.to_string()),
        other => panic!("no extent written down for {other}"),
    });
    Ty::Refined {
        base: Box::new(base),
        domain: "nonzero".into(),
        within: vec![],
        sample: "1".into(),
        outside: Some("0".into()),
        extent,
    }
}

#[test]
fn nonzero_integers_are_refined_integers() {
    let s = lowered(
        "use std::num::NonZeroU32;\nuse core::num::NonZeroI64 as Nz;\nuse std::num;",
        "pub a: NonZeroU32, pub b: Nz, pub c: num::NonZeroUsize, pub d: std::num::NonZero<u8>, \
         pub e: core::num::NonZeroI128",
    );
    assert_eq!(
        tys(&s),
        vec![
            nonzero(int(false, 32)),
            nonzero(int(true, 64)),
            nonzero(int(false, 64)),
            nonzero(int(false, 8)),
            nonzero(int(true, 128)),
        ]
    );
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn transparent_wrappers_are_their_inner_value() {
    let s = lowered(
        "use std::sync::{Arc, Mutex};\nuse std::borrow::Cow;",
        "pub a: Box<u8>, pub b: std::rc::Rc<u8>, pub c: Arc<Mutex<u8>>, pub d: std::cell::Cell<u8>, \
         pub e: core::cell::RefCell<u8>, pub f: std::sync::RwLock<u8>, pub g: std::cmp::Reverse<u8>, \
         pub h: std::num::Wrapping<u8>, pub i: core::num::Saturating<u8>, pub j: Cow<'static, str>, \
         pub k: std::sync::atomic::AtomicU16, pub l: core::sync::atomic::AtomicBool, \
         pub m: std::sync::atomic::AtomicIsize, pub n: std::marker::PhantomData<String>",
    );
    let u8_ = int(false, 8);
    assert_eq!(
        tys(&s),
        vec![
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_.clone(),
            u8_,
            Ty::String,
            int(false, 16),
            Ty::Bool,
            int(true, 64),
            // A unit struct: `[]` in MessagePack, where `()` is `nil`.
            Ty::Named {
                path: "std::marker::PhantomData".into(),
                args: vec![Ty::String],
            },
        ]
    );
    let s = lowered("", "pub a: std::rc::Weak<u8>, pub b: std::sync::Weak<u8>");
    let opt = Ty::Option {
        inner: Box::new(int(false, 8)),
    };
    assert_eq!(tys(&s), vec![opt.clone(), opt]);
}

#[test]
fn duration_and_system_time_are_closed_structs_of_one_canonical_path() {
    let s = lowered(
        "use core::time::Duration as D;",
        "pub a: std::time::Duration, pub b: D, pub c: ::core::time::Duration, \
         pub t: std::time::SystemTime",
    );
    let duration = named("std::time::Duration", vec![]);
    assert_eq!(
        tys(&s),
        vec![
            duration.clone(),
            duration.clone(),
            duration,
            named("std::time::SystemTime", vec![]),
        ]
    );
    for (path, names) in [
        ("std::time::Duration", ["secs", "nanos"]),
        (
            "std::time::SystemTime",
            ["secs_since_epoch", "nanos_since_epoch"],
        ),
    ] {
        let def = &s.types[path];
        assert!(def.attrs.deny_unknown_fields, "{path}");
        assert_eq!(def.attrs.ser_name, path.rsplit("::").next().unwrap());
        assert_eq!(def.location, Default::default());
        let fields = fields_of(&s, path);
        let got: Vec<(&str, Ty)> = fields
            .iter()
            .map(|f| match &f.ty {
                Ty::Refined { base, .. } => (f.ser_name.as_str(), (**base).clone()),
                other => (f.ser_name.as_str(), other.clone()),
            })
            .collect();
        assert_eq!(
            got,
            vec![(names[0], int(false, 64)), (names[1], int(false, 32))]
        );
        // `SystemTime`'s reader takes its seconds up to `i64::MAX` only.
        let refined = matches!(&fields[0].ty, Ty::Refined { extent: Some((_, most)), .. }
            if *most == i64::MAX.to_string());
        assert_eq!(
            refined,
            path.ends_with("SystemTime"),
            "{path}: {:?}",
            fields[0].ty
        );
        assert!(
            fields
                .iter()
                .all(|f| !f.default && f.de_names == [f.ser_name.clone()])
        );
    }
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn ranges_and_bound_are_generic_definitions() {
    let s = lowered(
        "use std::ops::{Bound, Range, RangeInclusive};",
        "pub a: Range<u32>, pub b: RangeInclusive<i8>, pub c: core::ops::RangeFrom<u8>, \
         pub d: std::ops::RangeTo<u16>, pub e: Bound<String>, pub f: std::collections::Bound<u8>, \
         pub g: Result<u8, String>",
    );
    assert_eq!(
        tys(&s),
        vec![
            named("std::ops::Range", vec![int(false, 32)]),
            named("std::ops::RangeInclusive", vec![int(true, 8)]),
            named("std::ops::RangeFrom", vec![int(false, 8)]),
            named("std::ops::RangeTo", vec![int(false, 16)]),
            named("std::ops::Bound", vec![Ty::String]),
            named("std::ops::Bound", vec![int(false, 8)]),
            named("std::result::Result", vec![int(false, 8), Ty::String]),
        ]
    );
    let keys = |path: &str| -> Vec<String> {
        fields_of(&s, path)
            .into_iter()
            .map(|f| f.ser_name)
            .collect()
    };
    assert_eq!(keys("std::ops::Range"), ["start", "end"]);
    assert_eq!(keys("std::ops::RangeInclusive"), ["start", "end"]);
    assert_eq!(keys("std::ops::RangeFrom"), ["start"]);
    assert_eq!(keys("std::ops::RangeTo"), ["end"]);
    assert_eq!(s.types["std::ops::Range"].generics, ["Idx"]);
    let Body::Enum { variants } = &s.types["std::ops::Bound"].body else {
        panic!("Bound is an enum");
    };
    let shapes: Vec<(&str, Style, usize)> = variants
        .iter()
        .map(|v| (v.ser_name.as_str(), v.style, v.fields.len()))
        .collect();
    assert_eq!(
        shapes,
        [
            ("Unbounded", Style::Unit, 0),
            ("Included", Style::Tuple, 1),
            ("Excluded", Style::Tuple, 1),
        ]
    );
    assert_eq!(s.types["std::ops::Bound"].attrs.repr, EnumRepr::External);
}

#[test]
fn paths_and_os_strings() {
    let s = lowered(
        "use std::path::{Path, PathBuf};\nuse std::ffi::OsString;",
        "pub a: PathBuf, pub b: Box<Path>, pub c: OsString, pub d: Box<std::ffi::OsStr>",
    );
    let os = named("std::ffi::OsString", vec![]);
    assert_eq!(tys(&s), vec![Ty::String, Ty::String, os.clone(), os]);
    let Body::Enum { variants } = &s.types["std::ffi::OsString"].body else {
        panic!("OsString is an enum");
    };
    let shapes: Vec<(&str, &Ty)> = variants
        .iter()
        .map(|v| (v.ser_name.as_str(), &v.fields[0].ty))
        .collect();
    let vec_of = |bits| Ty::Seq {
        kind: SeqKind::List,
        elem: Box::new(int(false, bits)),
    };
    assert_eq!(shapes, [("Unix", &vec_of(8)), ("Windows", &vec_of(16))]);
}

#[test]
fn addresses_are_strings_to_humans_and_bytes_otherwise() {
    let s = lowered(
        "use std::net::{IpAddr, Ipv4Addr, SocketAddr};",
        "pub a: IpAddr, pub b: Ipv4Addr, pub c: core::net::Ipv6Addr, pub d: SocketAddr, \
         pub e: std::net::SocketAddrV4, pub f: std::net::SocketAddrV6",
    );
    let bytes = |len| Ty::Array {
        elem: Box::new(int(false, 8)),
        len,
    };
    let with_port = |ip| Ty::Tuple {
        elems: vec![ip, int(false, 16)],
    };
    let expected_compact = [
        named("std::net::IpAddr", vec![]),
        bytes(4),
        bytes(16),
        named("std::net::SocketAddr", vec![]),
        with_port(bytes(4)),
        with_port(bytes(16)),
    ];
    let expected_human = [
        ("ip_addr", vec![]),
        ("ipv4_addr", vec!["ip_addr"]),
        ("ipv6_addr", vec!["ip_addr"]),
        ("socket_addr", vec![]),
        ("socket_addr_v4", vec!["socket_addr"]),
        ("socket_addr_v6", vec!["socket_addr"]),
    ];
    for ((ty, compact), (domain, within)) in
        tys(&s).iter().zip(&expected_compact).zip(&expected_human)
    {
        let Ty::Readable {
            human,
            compact: got,
        } = ty
        else {
            panic!("{ty:?} is not readable");
        };
        assert_eq!(&**got, compact);
        let Ty::Refined {
            base,
            domain: d,
            within: w,
            sample,
            outside,
            ..
        } = &**human
        else {
            panic!("{human:?} is not refined");
        };
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        assert_eq!((&**base, d.as_str(), &w), (&Ty::String, *domain, within));
        // Samples and outside values are JSON strings.
        assert!(serde_json::from_str::<String>(sample).is_ok(), "{sample}");
        assert!(
            outside
                .as_deref()
                .is_some_and(|o| serde_json::from_str::<String>(o).is_ok()),
            "{outside:?}"
        );
    }
    let Body::Enum { variants } = &s.types["std::net::SocketAddr"].body else {
        panic!("SocketAddr is an enum");
    };
    let payloads: Vec<(&str, &Ty)> = variants
        .iter()
        .map(|v| (v.ser_name.as_str(), &v.fields[0].ty))
        .collect();
    assert_eq!(
        payloads,
        [("V4", &with_port(bytes(4))), ("V6", &with_port(bytes(16)))]
    );
}

#[test]
fn collections_through_their_modules_and_alloc() {
    let s = lowered(
        "use std::collections::hash_map::HashMap;\nuse alloc::collections::BTreeSet;",
        "pub a: HashMap<String, u8>, pub b: BTreeSet<u8>, pub c: alloc::vec::Vec<u8>, \
         pub d: std::collections::VecDeque<u8>, pub e: alloc::string::String, \
         pub f: std::option::Option<u8>, pub g: std::primitive::u32",
    );
    let u8_ = || Box::new(int(false, 8));
    assert_eq!(
        tys(&s),
        vec![
            Ty::Map {
                key: Box::new(Ty::String),
                value: u8_()
            },
            Ty::Seq {
                kind: SeqKind::Set,
                elem: u8_()
            },
            Ty::Seq {
                kind: SeqKind::List,
                elem: u8_()
            },
            Ty::Seq {
                kind: SeqKind::List,
                elem: u8_()
            },
            Ty::String,
            Ty::Option { inner: u8_() },
            int(false, 32),
        ]
    );
}

#[test]
fn std_names_are_never_matched_by_their_last_segment_alone() {
    // Not imported: someone else's `Duration` (a glob import, a macro), compared by name with a note.
    let s = lowered(
        "use notchrono::Duration as ChronoDuration;\nuse other::time::Duration;",
        "pub a: HashMap<String, u8>, pub b: ChronoDuration, pub c: Duration, \
         pub d: std::io::Result<u8>, pub e: mycrate::num::NonZeroU32, pub f: std::time::Instant",
    );
    assert_eq!(
        tys(&s),
        vec![
            Ty::external("HashMap<String, u8>"),
            Ty::external("notchrono::Duration"),
            Ty::external("other::time::Duration"),
            Ty::external("std::io::Result<u8>"),
            Ty::external("mycrate::num::NonZeroU32"),
            Ty::external("std::time::Instant"),
        ]
    );
    assert!(
        s.notes.iter().any(|n| n.message.contains("`HashMap`")),
        "{:?}",
        s.notes
    );
    // A crate type of a std name is the crate's.
    let s = lowered(
        "#[derive(Serialize, Deserialize)]\npub struct Duration { pub ms: u64 }",
        "pub a: Duration",
    );
    assert_eq!(tys(&s), vec![named("demo::Duration", vec![])]);
    assert!(!s.types.contains_key("std::time::Duration"));
}
