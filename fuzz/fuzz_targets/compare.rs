#![no_main]
//! The comparison engine on arbitrary pairs of models: `compare_protocol` (both scopes) and the whole
//! report (`check::compare_snapshots`) must never panic or hang, whatever the models hold: dangling type
//! paths, cycles, generic parameters, flatten of non-structs, duplicate names, every representation and
//! format.
//!
//! Input: a first byte of 0 gives two snapshots as JSON (`wirecheck snapshot` output), separated by a
//! 0 byte; any other first byte builds two small models from the rest with `arbitrary`, the new one
//! often derived from the old by a few edits so the pair is close, as real releases are.

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use semver::Version;
use wirecheck::check::{Baseline, compare_snapshots};
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::model::{
    Body, ContainerAttrs, Custom, EnumRepr, Field, Location, MessageDecl, ProtocolDecl, Proxy,
    SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};
use wirecheck::{Format, Kind, ResponseMode, Upgrade};

const NAMES: [&str; 6] = ["id", "rank", "type", "kind", "value", "t"];
const TYPES: usize = 5;

fn name(u: &mut Unstructured<'_>) -> Result<String> {
    Ok((*u.choose(&NAMES)?).to_owned())
}

fn path(i: usize) -> String {
    format!("c::T{i}")
}

fn ty(u: &mut Unstructured<'_>, depth: u32) -> Result<Ty> {
    let leaf = depth > 3;
    Ok(match u.int_in_range(0..=if leaf { 7 } else { 15 })? {
        0 => Ty::Bool,
        1 => Ty::Char,
        2 => Ty::String,
        3 => Ty::Int {
            signed: u.arbitrary()?,
            bits: *u.choose(&[8, 16, 32, 64, 128, 0, 7])?,
        },
        4 => Ty::Float {
            bits: *u.choose(&[32, 64, 16])?,
        },
        5 => Ty::Unit,
        6 => Ty::Value,
        7 => Ty::Named {
            path: path(u.int_in_range(0..=TYPES)?),
            args: Vec::new(),
        },
        8 => Ty::Option {
            inner: Box::new(ty(u, depth + 1)?),
        },
        9 => Ty::Seq {
            kind: if u.arbitrary()? {
                SeqKind::Set
            } else {
                SeqKind::List
            },
            elem: Box::new(ty(u, depth + 1)?),
        },
        10 => Ty::Array {
            elem: Box::new(ty(u, depth + 1)?),
            len: u.int_in_range(0..=4)?,
        },
        11 => Ty::Tuple {
            elems: (0..u.int_in_range(0..=3)?)
                .map(|_| ty(u, depth + 1))
                .collect::<Result<_>>()?,
        },
        12 => Ty::Map {
            key: Box::new(ty(u, depth + 1)?),
            value: Box::new(ty(u, depth + 1)?),
        },
        13 => Ty::Named {
            path: path(u.int_in_range(0..=TYPES)?),
            args: (0..u.int_in_range(0..=2)?)
                .map(|_| ty(u, depth + 1))
                .collect::<Result<_>>()?,
        },
        14 => Ty::Param {
            name: (*u.choose(&["T", "U"])?).to_owned(),
        },
        _ => Ty::External {
            path: (*u.choose(&["chrono::DateTime<Utc>", "std::time::Duration", "T"])?).to_owned(),
        },
    })
}

fn field(u: &mut Unstructured<'_>, i: usize) -> Result<Field> {
    let rust_name = name(u)?;
    let ser_name = if u.ratio(1, 4)? {
        name(u)?
    } else {
        rust_name.clone()
    };
    let mut de_names = vec![ser_name.clone()];
    if u.ratio(1, 6)? {
        de_names.push(name(u)?);
    }
    Ok(Field {
        rust_name: if u.ratio(1, 5)? {
            i.to_string()
        } else {
            rust_name
        },
        ser_name,
        de_names,
        ty: ty(u, 0)?,
        default: u.ratio(1, 4)?,
        skip_ser: match u.int_in_range(0..=7)? {
            0 => SkipSer::Always,
            1 => SkipSer::If("Option::is_none".into()),
            2 => SkipSer::If("Vec::is_empty".into()),
            _ => SkipSer::Never,
        },
        skip_de: u.ratio(1, 10)?,
        flatten: u.ratio(1, 8)?,
        custom: if u.ratio(1, 10)? {
            Some(Custom {
                ser: u.arbitrary::<bool>()?.then(|| "m::ser".to_owned()),
                de: u.arbitrary::<bool>()?.then(|| "m::de".to_owned()),
            })
        } else {
            None
        },
        since: None,
        allow: None,
        location: Location::default(),
    })
}

fn fields(u: &mut Unstructured<'_>) -> Result<Vec<Field>> {
    (0..u.int_in_range(0..=4)?).map(|i| field(u, i)).collect()
}

fn style(u: &mut Unstructured<'_>) -> Result<Style> {
    Ok(*u.choose(&[Style::Named, Style::Tuple, Style::Unit])?)
}

fn variant(u: &mut Unstructured<'_>) -> Result<Variant> {
    let rust_name = (*u.choose(&["A", "B", "C", "Other"])?).to_owned();
    let ser_name = if u.ratio(1, 4)? {
        (*u.choose(&["a", "b", "A", "B"])?).to_owned()
    } else {
        rust_name.clone()
    };
    Ok(Variant {
        de_names: vec![ser_name.clone()],
        rust_name,
        ser_name,
        style: style(u)?,
        fields: fields(u)?,
        skip_ser: u.ratio(1, 12)?,
        skip_de: u.ratio(1, 12)?,
        other: u.ratio(1, 6)?,
        untagged: u.ratio(1, 8)?,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    })
}

fn repr(u: &mut Unstructured<'_>) -> Result<EnumRepr> {
    Ok(match u.int_in_range(0..=3)? {
        0 => EnumRepr::External,
        1 => EnumRepr::Internal { tag: name(u)? },
        2 => EnumRepr::Adjacent {
            tag: name(u)?,
            content: name(u)?,
        },
        _ => EnumRepr::Untagged,
    })
}

fn type_def(u: &mut Unstructured<'_>, i: usize) -> Result<TypeDef> {
    let body = match u.int_in_range(0..=4)? {
        0 | 1 => Body::Struct {
            style: style(u)?,
            fields: fields(u)?,
        },
        2 | 3 => Body::Enum {
            variants: (0..u.int_in_range(0..=4)?)
                .map(|_| variant(u))
                .collect::<Result<_>>()?,
        },
        _ => Body::Alias { target: ty(u, 0)? },
    };
    Ok(TypeDef {
        path: path(i),
        generics: if u.ratio(1, 6)? {
            vec!["T".into()]
        } else {
            Vec::new()
        },
        attrs: ContainerAttrs {
            ser_name: format!("T{i}"),
            deny_unknown_fields: u.ratio(1, 5)?,
            default: u.ratio(1, 6)?,
            transparent: u.ratio(1, 6)?,
            repr: repr(u)?,
            from: if u.ratio(1, 10)? {
                Some(Proxy {
                    ty: ty(u, 2)?,
                    fallible: u.arbitrary()?,
                })
            } else {
                None
            },
            into: if u.ratio(1, 10)? {
                Some(ty(u, 2)?)
            } else {
                None
            },
        },
        body,
        location: Location::default(),
    })
}

fn snapshot(u: &mut Unstructured<'_>) -> Result<Snapshot> {
    let formats = [
        Format::Json,
        Format::Cbor,
        Format::Msgpack,
        Format::Bincode,
        Format::Postcard,
    ];
    let upgrades = [
        Upgrade::AnyOrder,
        Upgrade::ServerFirst,
        Upgrade::ClientFirst,
    ];
    let kinds = [Kind::Request, Kind::Response, Kind::Event, Kind::Record];
    let modes = [
        ResponseMode::None,
        ResponseMode::Single,
        ResponseMode::Stream,
    ];
    let mut s = Snapshot::default();
    s.protocols.push(ProtocolDecl {
        name: "p".into(),
        rust_path: "c::P".into(),
        version: Version::new(0, u.int_in_range(1..=3)?, 0),
        min_compatible: None,
        upgrade: *u.choose(&upgrades)?,
        format: *u.choose(&formats)?,
        location: Location::default(),
    });
    for i in 0..u.int_in_range(0..=TYPES)? {
        let def = type_def(u, i)?;
        s.types.insert(def.path.clone(), def);
    }
    for _ in 0..u.int_in_range(0..=3)? {
        let target = u.int_in_range(0..=TYPES)?;
        s.messages.push(MessageDecl {
            protocol: "p".into(),
            name: format!("T{target}"),
            rust_path: path(target),
            topic: (*u.choose(&["t.a", "t.b"])?).to_owned(),
            kind: *u.choose(&kinds)?,
            response: *u.choose(&modes)?,
            response_type: None,
            since: None,
            allow: None,
            location: Location::default(),
        });
    }
    Ok(s)
}

/// Small edits that turn one model into the next release's.
fn edit(u: &mut Unstructured<'_>, s: &mut Snapshot) -> Result<()> {
    for _ in 0..u.int_in_range(0..=3)? {
        let keys: Vec<String> = s.types.keys().cloned().collect();
        if keys.is_empty() {
            break;
        }
        let key = u.choose(&keys)?.clone();
        let i = keys.iter().position(|k| *k == key).unwrap_or(0);
        let def = s.types.get_mut(&key).expect("key from the map");
        match u.int_in_range(0..=5)? {
            0 => *def = type_def(u, i)?,
            1 => def.attrs.deny_unknown_fields ^= true,
            2 => def.attrs.repr = repr(u)?,
            _ => match &mut def.body {
                Body::Struct { fields, .. } => {
                    if !fields.is_empty() && u.arbitrary()? {
                        let at = u.choose_index(fields.len())?;
                        if u.arbitrary()? {
                            fields.remove(at);
                        } else {
                            fields[at].ty = ty(u, 0)?;
                        }
                    } else {
                        let n = fields.len();
                        fields.push(field(u, n)?);
                    }
                }
                Body::Enum { variants } => {
                    if !variants.is_empty() && u.arbitrary()? {
                        let at = u.choose_index(variants.len())?;
                        variants.remove(at);
                    } else {
                        variants.push(variant(u)?);
                    }
                }
                Body::Alias { target } => *target = ty(u, 0)?,
            },
        }
    }
    if u.ratio(1, 8)? {
        s.protocols[0].format = *u.choose(&[Format::Json, Format::Bincode])?;
    }
    Ok(())
}

fn pair(data: &[u8]) -> Option<(Snapshot, Snapshot)> {
    let (&first, rest) = data.split_first()?;
    if first == 0 {
        let cut = rest.iter().position(|&b| b == 0)?;
        let old = serde_json::from_slice(&rest[..cut]).ok()?;
        let new = serde_json::from_slice(&rest[cut + 1..]).ok()?;
        return Some((old, new));
    }
    let mut u = Unstructured::new(rest);
    let old = snapshot(&mut u).ok()?;
    let new = if u.ratio(1, 4).ok()? {
        snapshot(&mut u).ok()?
    } else {
        let mut new = old.clone();
        edit(&mut u, &mut new).ok()?;
        new
    };
    Some((old, new))
}

fuzz_target!(|data: &[u8]| {
    let Some((old, new)) = pair(data) else {
        return;
    };
    // WIRECHECK_FUZZ_DUMP=1: print the pair as the JSON input mode takes it (to turn a finding into a
    // regression test).
    if std::env::var_os("WIRECHECK_FUZZ_DUMP").is_some() {
        eprintln!(
            "old: {}\nnew: {}",
            serde_json::to_string(&old).unwrap_or_default(),
            serde_json::to_string(&new).unwrap_or_default()
        );
    }
    let names: std::collections::BTreeSet<String> = old
        .protocols
        .iter()
        .chain(&new.protocols)
        .map(|p| p.name.clone())
        .collect();
    for name in &names {
        for scope in [Scope::Full, Scope::RecordsOnly] {
            let _ = compare_protocol(&old, &new, name, "old", scope);
        }
        // Not asserted empty: an arbitrary model may be one serde itself cannot round-trip (a skipped
        // field in a positional format), which the engine rightly reports even against itself; the
        // property tests check reflexivity on schemas serde accepts.
        let _ = compare_protocol(&old, &old, name, "old", Scope::Full);
    }
    let baseline = Baseline {
        rev: "v0.1.0".into(),
        commit: "0".repeat(40),
        ..Baseline::default()
    };
    let _ = compare_snapshots(&baseline, &old, &[("v0.0.1".into(), new.clone())], &new);
});
