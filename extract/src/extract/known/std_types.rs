//! std types, as serde's own impls write and read them (serde_core's `ser/impls.rs` and `de/impls.rs`).
//!
//! A type is known by its full path when the path starts with `std`, `core` or `alloc` (the module it
//! lives in, or one of std's re-exports of it: `std::collections::hash_map::HashMap` is
//! `std::collections::HashMap`); a bare name only when it is the prelude's or a primitive (`Vec`,
//! `Option`, `u32`). A bare `Duration` that nothing imports is someone else's, never std's by its last
//! segment. The definitions a known type names (`Duration`'s struct, `Bound`'s enum) get one canonical
//! path under `std::`, whichever root the use wrote, so `core::time::Duration` and `std::time::Duration`
//! are the same type.
//!
//! What serde does, type by type (serde 1.0.229):
//! - Transparent (the inner value, both ways): `Box`, `Rc`, `Arc` (serde's `rc` feature), `Cow`, `Cell`,
//!   `RefCell`, `Mutex`, `RwLock`, `Reverse`, `Wrapping`, `Saturating` (its reader clamps an integer out of
//!   range to the nearest bound instead of rejecting it; the model keeps the inner integer, so a narrower
//!   `Saturating` reader is reported as the narrowing it is), atomics (their integer or `bool`).
//! - `rc::Weak` / `sync::Weak`: written as `Option<T>` (the upgraded pointer), read as an `Option<T>` that is
//!   dropped.
//! - `NonZero*` and `NonZero<T>`: the integer, whose reader rejects 0 ([`Ty::Refined`], domain `nonzero`).
//! - `Duration`: a struct `{ secs: u64, nanos: u32 }`; `SystemTime`: `{ secs_since_epoch: u64,
//!   nanos_since_epoch: u32 }` (writing a time before the epoch fails; its reader takes seconds up to
//!   `i64::MAX` only). Both readers reject unknown fields.
//! - `Range` / `RangeInclusive`: `{ start, end }`; `RangeFrom`: `{ start }`; `RangeTo`: `{ end }`; unknown
//!   fields rejected. `Bound`: an enum `Unbounded`, `Included(T)`, `Excluded(T)`. `Result`: `Ok(T)`,
//!   `Err(E)`.
//! - `Path`, `PathBuf`: a string (writing a path that is not UTF-8 fails; the reader also takes UTF-8
//!   bytes).
//! - `OsStr`, `OsString`: an enum `Unix(Vec<u8>)` / `Windows(Vec<u16>)`; each platform writes its own variant
//!   and rejects the other's.
//! - `IpAddr`, `Ipv4Addr`, `Ipv6Addr`, `SocketAddr`, `SocketAddrV4`, `SocketAddrV6`: a string the reader
//!   parses in human-readable formats; in compact ones `Ipv4Addr` is 4 bytes (a tuple), `Ipv6Addr` 16,
//!   `SocketAddrV4`/`V6` the tuple `(ip, port)` (a V6 address's flow info and scope id are not written),
//!   and `IpAddr` / `SocketAddr` an enum of `V4` / `V6` newtype variants ([`Ty::Readable`]).
//! - `PhantomData`: a unit struct (nothing in bincode and postcard, `null` in JSON and CBOR, an empty
//!   array in MessagePack).
//! - Arrays, tuples, `char` and the primitives are lowered where they are written (`[T; N]` is a tuple of
//!   `N`; serde implements arrays up to 32 and tuples up to 16, so longer ones do not compile with a
//!   derive).

use super::super::tree::{STD_ROOTS, is_prelude_name};
use super::Known;
use crate::model::{
    Body, ContainerAttrs, EnumRepr, Field, Location, SeqKind, Style, Ty, TypeDef, Variant,
};

/// The wire shape of a std type (or of `serde_json::Value` and `serde_json::Map`), by its resolved path.
pub(super) fn lookup(path: &[String], args: &[Ty]) -> Option<Known> {
    let (first, name) = (path.first()?.as_str(), path.last()?.as_str());
    if first == "serde_json" {
        return serde_json_type(name).map(Known::plain);
    }
    let std_path = match path.len() {
        1 => is_prelude_name(name),
        _ => STD_ROOTS.contains(&first) && std_module_of(name).contains(&module(path).as_str()),
    };
    if !std_path {
        return None;
    }
    std_type(name, args)
}

/// The module path between the crate and the name (`collections::hash_map` of
/// `std::collections::hash_map::HashMap`).
fn module(path: &[String]) -> String {
    path[1..path.len() - 1].join("::")
}

/// `serde_json::Value` (reads anything) and `serde_json::Map` (an object of values).
fn serde_json_type(name: &str) -> Option<Ty> {
    match name {
        "Value" => Some(Ty::Value),
        "Map" => Some(Ty::Map {
            key: Box::new(Ty::String),
            value: Box::new(Ty::Value),
        }),
        _ => None,
    }
}

/// The modules of std (without the crate) that define or re-export the type `name`; empty when the
/// type is none serde implements.
fn std_module_of(name: &str) -> &'static [&'static str] {
    match name {
        "bool" | "char" | "str" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8"
        | "i16" | "i32" | "i64" | "i128" | "isize" | "f32" | "f64" => &["primitive"],
        "String" => &["string"],
        "Vec" => &["vec"],
        "Box" => &["boxed"],
        "Option" => &["option"],
        "Result" => &["result"],
        "Rc" => &["rc"],
        "Arc" => &["sync"],
        "Weak" => &["rc", "sync"],
        "Cow" => &["borrow"],
        "Cell" | "RefCell" => &["cell"],
        "Mutex" | "RwLock" => &["sync"],
        "Reverse" => &["cmp"],
        "PhantomData" => &["marker"],
        "Duration" | "SystemTime" => &["time"],
        "Path" | "PathBuf" => &["path"],
        "OsStr" | "OsString" => &["ffi", "ffi::os_str"],
        "IpAddr" | "Ipv4Addr" | "Ipv6Addr" | "SocketAddr" | "SocketAddrV4" | "SocketAddrV6" => {
            &["net"]
        }
        "Range" | "RangeFrom" | "RangeTo" | "RangeInclusive" => &["ops"],
        "Bound" => &["ops", "collections"],
        "HashMap" => &["collections", "collections::hash_map"],
        "HashSet" => &["collections", "collections::hash_set"],
        "BTreeMap" => &["collections", "collections::btree_map"],
        "BTreeSet" => &["collections", "collections::btree_set"],
        "VecDeque" => &["collections", "collections::vec_deque"],
        "LinkedList" => &["collections", "collections::linked_list"],
        "BinaryHeap" => &["collections", "collections::binary_heap"],
        _ if name.starts_with("Atomic") && atomic(name).is_some() => &["sync::atomic"],
        _ if name.starts_with("NonZero") && nonzero_base(name).is_some() => &["num"],
        "NonZero" | "Wrapping" | "Saturating" => &["num"],
        _ => &[],
    }
}

/// The shape of the std type `name` (its path already checked) with generic arguments `args`.
fn std_type(name: &str, args: &[Ty]) -> Option<Known> {
    let arg = |i: usize| args.get(i).cloned();
    if let Some(ty) = primitive(name) {
        return Some(Known::plain(ty));
    }
    let ty = match name {
        "String" | "Path" | "PathBuf" => Ty::String,
        "Option" | "Weak" => Ty::Option {
            inner: Box::new(arg(0)?),
        },
        "Box" | "Rc" | "Arc" | "Cow" | "Cell" | "RefCell" | "Mutex" | "RwLock" | "Reverse"
        | "Wrapping" | "Saturating" => arg(0)?,
        "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" => seq(SeqKind::List, arg(0)?),
        "HashSet" | "BTreeSet" => seq(SeqKind::Set, arg(0)?),
        "HashMap" | "BTreeMap" => Ty::Map {
            key: Box::new(arg(0)?),
            value: Box::new(arg(1)?),
        },
        "NonZero" => nonzero(arg(0)?)?,
        "Duration" | "SystemTime" | "OsStr" | "OsString" | "Range" | "RangeFrom" | "RangeTo"
        | "RangeInclusive" | "Bound" | "Result" | "PhantomData" => return defined(name, args),
        "IpAddr" | "Ipv4Addr" | "Ipv6Addr" | "SocketAddr" | "SocketAddrV4" | "SocketAddrV6" => {
            return Some(net(name));
        }
        _ => atomic(name).or_else(|| nonzero_base(name).and_then(nonzero))?,
    };
    Some(Known::plain(ty))
}

/// The primitive types.
pub(super) fn primitive(name: &str) -> Option<Ty> {
    let int = |signed, bits| Some(Ty::Int { signed, bits });
    match name {
        "bool" => Some(Ty::Bool),
        "char" => Some(Ty::Char),
        "str" => Some(Ty::String),
        "u8" => int(false, 8),
        "u16" => int(false, 16),
        "u32" => int(false, 32),
        "u64" | "usize" => int(false, 64),
        "u128" => int(false, 128),
        "i8" => int(true, 8),
        "i16" => int(true, 16),
        "i32" => int(true, 32),
        "i64" | "isize" => int(true, 64),
        "i128" => int(true, 128),
        "f32" => Some(Ty::Float { bits: 32 }),
        "f64" => Some(Ty::Float { bits: 64 }),
        _ => None,
    }
}

/// `AtomicU32` and the others: their value (serde's impls exist for these eleven).
fn atomic(name: &str) -> Option<Ty> {
    match name {
        "AtomicBool" => Some(Ty::Bool),
        "AtomicI8" | "AtomicI16" | "AtomicI32" | "AtomicI64" | "AtomicIsize" | "AtomicU8"
        | "AtomicU16" | "AtomicU32" | "AtomicU64" | "AtomicUsize" => {
            primitive(&name["Atomic".len()..].to_lowercase())
        }
        _ => None,
    }
}

/// The integer under `NonZeroU32` and the others.
fn nonzero_base(name: &str) -> Option<Ty> {
    let base = name.strip_prefix("NonZero")?;
    // `NonZeroU8` .. `NonZeroIsize`: an integer after the prefix, spelled with a capital.
    base.starts_with(['U', 'I'])
        .then(|| primitive(&base.to_lowercase()))
        .flatten()
        .filter(|ty| matches!(ty, Ty::Int { .. }))
}

/// An integer its reader rejects as 0 (serde's `NonZero*` visitors: "invalid value: integer `0`,
/// expected a nonzero u32"): every other value of the integer type, which is its extent less 0.
fn nonzero(base: Ty) -> Option<Ty> {
    let Ty::Int { signed, bits } = base else {
        return None;
    };
    Some(Ty::Refined {
        base: Box::new(base),
        domain: "nonzero".to_owned(),
        within: Vec::new(),
        sample: "1".to_owned(),
        outside: Some("0".to_owned()),
        extent: Some(nonzero_extent(signed, bits)),
    })
}

/// The least and greatest value of an integer type other than 0, as decimal text (`u128`'s greatest is written as
/// `i128::MAX`, the greatest the comparison counts with).
fn nonzero_extent(signed: bool, bits: u8) -> (String, String) {
    let bits = u32::from(bits.clamp(8, 128));
    let (least, most) = match (signed, bits) {
        (true, 128) => (i128::MIN, i128::MAX),
        (true, _) => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        (false, 128) => (1, i128::MAX),
        (false, _) => (1, (1i128 << bits) - 1),
    };
    (least.to_string(), most.to_string())
}

fn seq(kind: SeqKind, elem: Ty) -> Ty {
    Ty::Seq {
        kind,
        elem: Box::new(elem),
    }
}

fn u(bits: u8) -> Ty {
    Ty::Int {
        signed: false,
        bits,
    }
}

/// `SystemTime`'s seconds: a `u64` its reader takes only up to `i64::MAX` (serde adds them to
/// `UNIX_EPOCH`, which overflows past the platform's range: "overflow deserializing SystemTime"; on
/// Unix that range is `i64` seconds), and its writer writes only times after the epoch, within it.
/// Seen where a format reads by position, where a `Duration`'s `secs` lands in its place.
fn seconds_since_epoch() -> Ty {
    Ty::Refined {
        base: Box::new(u(64)),
        domain: "system_time_seconds".to_owned(),
        within: Vec::new(),
        sample: "0".to_owned(),
        outside: Some(u64::MAX.to_string()),
        extent: Some(("0".to_owned(), i64::MAX.to_string())),
    }
}

// ----- types serde writes as a struct or an enum -----

/// A use of a std type that serde writes as a struct or an enum: a [`Ty::Named`] of its canonical path,
/// with the definition.
fn defined(name: &str, args: &[Ty]) -> Option<Known> {
    let def = definition(name)?;
    if def.generics.len() != args.len() {
        return None;
    }
    Some(Known {
        ty: Ty::Named {
            path: def.path.clone(),
            args: args.to_vec(),
        },
        defs: vec![def],
    })
}

/// The definition of a std type serde writes as a struct or an enum, under its canonical path.
fn definition(name: &str) -> Option<TypeDef> {
    let param = |name: &str| Ty::Param { name: name.into() };
    let (secs, nanos) = (u(64), u(32));
    Some(match name {
        // A unit struct (`serialize_unit_struct`): `null` in JSON and CBOR, an empty array in
        // MessagePack (which `()` does not read), nothing in bincode and postcard.
        "PhantomData" => TypeDef {
            body: Body::Struct {
                style: Style::Unit,
                fields: Vec::new(),
            },
            ..closed_struct("std::marker::PhantomData", &["T"], Vec::new())
        },
        "Duration" => closed_struct(
            "std::time::Duration",
            &[],
            vec![field("secs", secs), field("nanos", nanos)],
        ),
        "SystemTime" => closed_struct(
            "std::time::SystemTime",
            &[],
            vec![
                field("secs_since_epoch", seconds_since_epoch()),
                field("nanos_since_epoch", nanos),
            ],
        ),
        "Range" | "RangeInclusive" => closed_struct(
            &format!("std::ops::{name}"),
            &["Idx"],
            vec![field("start", param("Idx")), field("end", param("Idx"))],
        ),
        "RangeFrom" => closed_struct(
            "std::ops::RangeFrom",
            &["Idx"],
            vec![field("start", param("Idx"))],
        ),
        "RangeTo" => closed_struct(
            "std::ops::RangeTo",
            &["Idx"],
            vec![field("end", param("Idx"))],
        ),
        "Bound" => enumeration(
            "std::ops::Bound",
            &["T"],
            vec![
                variant("Unbounded", None),
                variant("Included", Some(param("T"))),
                variant("Excluded", Some(param("T"))),
            ],
        ),
        "Result" => enumeration(
            "std::result::Result",
            &["T", "E"],
            vec![
                variant("Ok", Some(param("T"))),
                variant("Err", Some(param("E"))),
            ],
        ),
        "OsStr" | "OsString" => enumeration(
            "std::ffi::OsString",
            &[],
            vec![
                variant("Unix", Some(seq(SeqKind::List, u(8)))),
                variant("Windows", Some(seq(SeqKind::List, u(16)))),
            ],
        ),
        _ => return None,
    })
}

/// A struct whose reader rejects unknown fields (serde's hand-written visitors for `Duration`,
/// `SystemTime` and the ranges do, like a derive with `deny_unknown_fields`).
fn closed_struct(path: &str, generics: &[&str], fields: Vec<Field>) -> TypeDef {
    TypeDef {
        package: None,
        path: path.to_owned(),
        generics: generics.iter().map(|g| (*g).to_owned()).collect(),
        attrs: ContainerAttrs {
            ser_name: last_segment(path),
            deny_unknown_fields: true,
            ..ContainerAttrs::default()
        },
        body: Body::Struct {
            style: Style::Named,
            fields,
        },
        location: Location::default(),
    }
}

/// An externally tagged enum.
fn enumeration(path: &str, generics: &[&str], variants: Vec<Variant>) -> TypeDef {
    TypeDef {
        package: None,
        path: path.to_owned(),
        generics: generics.iter().map(|g| (*g).to_owned()).collect(),
        attrs: ContainerAttrs {
            ser_name: last_segment(path),
            repr: EnumRepr::External,
            ..ContainerAttrs::default()
        },
        body: Body::Enum { variants },
        location: Location::default(),
    }
}

fn last_segment(path: &str) -> String {
    path.rsplit("::").next().unwrap_or(path).to_owned()
}

/// A required field of the same name in Rust and on the wire.
fn field(name: &str, ty: Ty) -> Field {
    Field {
        rust_name: name.to_owned(),
        ser_name: name.to_owned(),
        de_names: vec![name.to_owned()],
        ty,
        default: false,
        skip_ser: Default::default(),
        skip_de: false,
        flatten: false,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    }
}

/// A unit variant, or a newtype variant holding `payload`.
fn variant(name: &str, payload: Option<Ty>) -> Variant {
    let (style, fields) = match payload {
        Some(ty) => (Style::Tuple, vec![field("0", ty)]),
        None => (Style::Unit, Vec::new()),
    };
    Variant::plain(name, style, fields, Location::default())
}

// ----- std::net: strings in human-readable formats, bytes in compact ones -----

/// The shape of an address type of `std::net`.
fn net(name: &str) -> Known {
    let v4 = Ty::Array {
        elem: Box::new(u(8)),
        len: 4,
    };
    let v6 = Ty::Array {
        elem: Box::new(u(8)),
        len: 16,
    };
    let with_port = |ip: &Ty| Ty::Tuple {
        elems: vec![ip.clone(), u(16)],
    };
    let (compact, defs) = match name {
        "Ipv4Addr" => (v4, Vec::new()),
        "Ipv6Addr" => (v6, Vec::new()),
        "SocketAddrV4" => (with_port(&v4), Vec::new()),
        "SocketAddrV6" => (with_port(&v6), Vec::new()),
        _ => {
            // `IpAddr` and `SocketAddr`: an enum of `V4` and `V6` (compact formats only).
            let (v4, v6) = if name == "IpAddr" {
                (v4, v6)
            } else {
                (with_port(&v4), with_port(&v6))
            };
            let def = enumeration(
                &format!("std::net::{name}"),
                &[],
                vec![variant("V4", Some(v4)), variant("V6", Some(v6))],
            );
            let ty = Ty::Named {
                path: def.path.clone(),
                args: Vec::new(),
            };
            (ty, vec![def])
        }
    };
    Known {
        ty: Ty::Readable {
            human: Box::new(address_string(name)),
            compact: Box::new(compact),
        },
        defs,
    }
}

/// The human-readable form of an address type: a string its reader parses with `FromStr`.
fn address_string(name: &str) -> Ty {
    // (domain, the domains holding it, a value written, a string another address type writes that this
    // reader rejects)
    let (domain, within, sample, outside): (&str, &[&str], &str, &str) = match name {
        "Ipv4Addr" => ("ipv4_addr", &["ip_addr"], "192.0.2.1", "2001:db8::1"),
        "Ipv6Addr" => ("ipv6_addr", &["ip_addr"], "2001:db8::1", "192.0.2.1"),
        "IpAddr" => ("ip_addr", &[], "192.0.2.1", "192.0.2.1:8080"),
        "SocketAddrV4" => (
            "socket_addr_v4",
            &["socket_addr"],
            "192.0.2.1:8080",
            "[2001:db8::1]:8080",
        ),
        "SocketAddrV6" => (
            "socket_addr_v6",
            &["socket_addr"],
            "[2001:db8::1]:8080",
            "192.0.2.1:8080",
        ),
        _ => ("socket_addr", &[], "192.0.2.1:8080", "192.0.2.1"),
    };
    Ty::Refined {
        base: Box::new(Ty::String),
        domain: domain.to_owned(),
        within: within.iter().map(|w| (*w).to_owned()).collect(),
        sample: format!("\"{sample}\""),
        outside: Some(format!("\"{outside}\"")),
        extent: None,
    }
}

#[cfg(test)]
mod tests;
