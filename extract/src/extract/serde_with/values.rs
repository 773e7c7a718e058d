//! What serde_with's value adapters write and read: strings that parse as a scalar
//! (`DisplayFromStr`, `NoneAsEmptyString`, a separated list's items), `Base64`, `BoolFromInt`, and the
//! numbers of units of the `Duration*`/`Timestamp*` adapters.

use syn::Type;

use super::super::syntax::tokens_text;
use super::byte;
use crate::model::Ty;

/// A scalar's name and a value of it as text, for the domains of strings that parse as it.
pub(super) fn scalar_text(ty: &Ty) -> Option<(String, &'static str, Option<&'static str>)> {
    Some(match ty {
        Ty::Int { signed: true, .. } => (ty.to_string(), "-1", Some("x")),
        Ty::Int { signed: false, .. } => (ty.to_string(), "1", Some("x")),
        Ty::Float { .. } => (ty.to_string(), "1.5", Some("x")),
        Ty::Bool => ("bool".to_owned(), "true", Some("yes")),
        Ty::Char => ("char".to_owned(), "a", Some("ab")),
        Ty::String => ("String".to_owned(), "a", None),
        _ => return None,
    })
}

/// The other integer types whose range holds every value of `(signed, bits)`: the names of the domains
/// whose readers accept every string this one writes.
pub(super) fn wider_ints(signed: bool, bits: u8) -> Vec<String> {
    let mut out = Vec::new();
    for wider in [8u8, 16, 32, 64, 128] {
        if !signed && wider > bits {
            out.push(format!("u{wider}"));
        }
        if wider > bits || (signed && wider == bits) {
            out.push(format!("i{wider}"));
        }
    }
    out.retain(|name| *name != format!("{}{bits}", if signed { 'i' } else { 'u' }));
    out
}

/// A string that the reader parses as `ty` (serde_with's `DisplayFromStr`: `Display` when writing,
/// `deserialize_str` then `FromStr` when reading, so a number on the wire is rejected).
pub(super) fn display_from_str(ty: &Ty) -> Ty {
    match ty {
        Ty::String => Ty::String,
        // Already a string that parses (a catalogued `Url`, `Uuid`): the same string.
        ty if parsed_string(ty) => ty.clone(),
        // A type with a human-readable form (`Uuid`, `Ipv4Addr`) whose `Display` is that form: the
        // adapter writes it in every format.
        Ty::Readable { human, .. } => display_from_str(human),
        // A type that writes a string that parses and reads more (`Decimal`): the string it writes.
        Ty::Choice { writes, .. } if parsed_string(writes) => (**writes).clone(),
        // A `char`'s `Display` is the one-character string its `Serialize` writes in human-readable
        // formats, and its `FromStr` reads exactly one character, as its `Deserialize` does there;
        // compact formats write a `char` otherwise.
        Ty::Char => Ty::Readable {
            human: Box::new(Ty::Char),
            compact: Box::new(scalar_string(ty)),
        },
        _ => scalar_string(ty),
    }
}

/// Whether `ty` is a string that its reader parses.
fn parsed_string(ty: &Ty) -> bool {
    matches!(ty, Ty::Refined { base, .. } if **base == Ty::String)
}

/// A string that parses as the scalar `ty` (opaque for another type).
fn scalar_string(ty: &Ty) -> Ty {
    match scalar_text(ty) {
        Some((name, sample, outside)) => Ty::Refined {
            base: Box::new(Ty::String),
            within: match ty {
                Ty::Int { signed, bits } => wider_ints(*signed, *bits),
                Ty::Float { bits: 32 } => vec!["f64".to_owned()],
                _ => Vec::new(),
            },
            domain: name,
            sample: serde_json::Value::String(sample.to_owned()).to_string(),
            outside: outside.map(|o| serde_json::Value::String(o.to_owned()).to_string()),
            extent: None,
        },
        None => Ty::external(format!("serde_with::DisplayFromStr over {ty}")),
    }
}

/// `ty` as a string, named by what it holds.
pub(super) fn string_of(domain: String, sample: &str, outside: Option<&str>) -> Ty {
    Ty::Refined {
        base: Box::new(Ty::String),
        domain,
        within: Vec::new(),
        sample: serde_json::Value::String(sample.to_owned()).to_string(),
        outside: outside.map(|o| serde_json::Value::String(o.to_owned()).to_string()),
        extent: None,
    }
}

/// `NoneAsEmptyString` over `Option<T>`: `None` is written `""`, `Some(x)` as `x`'s `Display`; read
/// with `deserialize_any`: `""` and `null` are `None`, another string parses as `T`.
pub(super) fn none_as_empty_string(field: &Ty) -> Result<Ty, String> {
    let Ty::Option { inner } = field else {
        return Err(format!("`{field}` is not an `Option`"));
    };
    let written = match display_from_str(inner) {
        Ty::Refined {
            domain,
            sample,
            within,
            ..
        } => Ty::Refined {
            base: Box::new(Ty::String),
            domain: format!("{domain} or empty"),
            within: within.iter().map(|w| format!("{w} or empty")).collect(),
            sample,
            outside: None,
            extent: None,
        },
        other => other,
    };
    Ok(Ty::Choice {
        writes: Box::new(written.clone()),
        reads: vec![Ty::Option {
            inner: Box::new(written),
        }],
    })
}

/// `Base64<Alphabet, Padding>`: a string of the bytes in the alphabet; reading accepts padded and
/// unpadded strings (`DecodePaddingMode::Indifferent`) of that alphabet.
pub(super) fn base64(args: &[&Type]) -> Ty {
    let alphabet = args
        .first()
        .map(|a| {
            tokens_text(*a)
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_else(|| "Standard".to_owned());
    let unpadded = args
        .get(1)
        .is_some_and(|p| tokens_text(*p).ends_with("Unpadded"));
    // The bytes [0, 1, 2, 3] in the standard alphabet.
    let sample = if unpadded { "AAECAw" } else { "AAECAw==" };
    string_of(format!("base64 ({alphabet})"), sample, Some("!"))
}

/// `BoolFromInt`: `false`/`true` written as the `u8` 0/1; read strictly (only 0 and 1) or flexibly
/// (0 is `false`, any other integer `true`).
pub(super) fn bool_from_int(flexible: bool) -> Ty {
    if flexible {
        return Ty::Choice {
            writes: Box::new(Ty::Int {
                signed: false,
                bits: 8,
            }),
            reads: vec![Ty::Int {
                signed: true,
                bits: 128,
            }],
        };
    }
    Ty::Refined {
        base: Box::new(byte()),
        domain: "0 or 1".to_owned(),
        within: Vec::new(),
        sample: "1".to_owned(),
        outside: Some("2".to_owned()),
        extent: None,
    }
}

/// A whole number of units written as a 64-bit integer that every value of that integer is read from:
/// a `Duration` (`Duration::from_secs` and its kin take any `u64`) and, on the platforms whose
/// `SystemTime` holds 64 bits of seconds (Linux, macOS), a `SystemTime` (any `i64` is a time there).
/// The unit's domain stays (seconds are no milliseconds); its extent is the integer's whole range, so a
/// plain integer of that type reads and writes the same numbers. chrono's and time's types keep the
/// narrower extent of their range.
pub(super) fn whole_range(mut ty: Ty, name: &str, field: &Ty) -> Ty {
    let named = |path: &str| matches!(field, Ty::Named { path: p, .. } if p == path);
    let whole = if name.ends_with("WithFrac") {
        None
    } else if name.starts_with("Duration") && named("std::time::Duration") {
        Some((
            0,
            i128::from(u64::MAX),
            Ty::Int {
                signed: false,
                bits: 64,
            },
        ))
    } else if name.starts_with("Timestamp") && named("std::time::SystemTime") {
        Some((
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            Ty::Int {
                signed: true,
                bits: 64,
            },
        ))
    } else {
        None
    };
    if let (
        Some((least, most, int)),
        Ty::Refined {
            base,
            extent,
            outside,
            ..
        },
    ) = (whole, &mut ty)
        && **base == int
    {
        *extent = Some((least.to_string(), most.to_string()));
        *outside = None;
    }
    ty
}

/// serde_with's `Duration*`/`Timestamp*` adapters: a number of seconds (or milli-, micro-,
/// nanoseconds) since the Unix epoch or of a duration, written in the `FORMAT` (`u64` for durations,
/// `i64` for timestamps, `f64` for the `WithFrac` ones, or `String`); `Flexible` reads any number or
/// numeric string.
pub(super) fn timing(name: &str, args: &[&Type]) -> Result<Ty, String> {
    let (kind, unit) = if let Some(unit) = name.strip_prefix("Duration") {
        ("duration", unit)
    } else if let Some(unit) = name.strip_prefix("Timestamp") {
        ("unix timestamp", unit)
    } else {
        return Err(format!("the adapter `{name}` is not modelled"));
    };
    let (unit, frac) = match unit.strip_suffix("WithFrac") {
        Some(unit) => (unit, true),
        None => (unit, false),
    };
    let unit = match unit {
        "Seconds" => "seconds",
        "MilliSeconds" => "milliseconds",
        "MicroSeconds" => "microseconds",
        "NanoSeconds" => "nanoseconds",
        _ => return Err(format!("the adapter `{name}` is not modelled")),
    };
    let format = args.first().map(|a| tokens_text(*a));
    let base = match format.as_deref() {
        None if frac => Ty::Float { bits: 64 },
        None if kind == "duration" => Ty::Int {
            signed: false,
            bits: 64,
        },
        None => Ty::Int {
            signed: true,
            bits: 64,
        },
        Some("u64") => Ty::Int {
            signed: false,
            bits: 64,
        },
        Some("i64") => Ty::Int {
            signed: true,
            bits: 64,
        },
        Some("f64") => Ty::Float { bits: 64 },
        Some(s) if s.ends_with("String") => Ty::String,
        Some(other) => return Err(format!("`{name}<{other}>` is not modelled")),
    };
    let domain = format!("{kind} in {unit}");
    let i64_ty = Ty::Int {
        signed: true,
        bits: 64,
    };
    // Whole units of a timestamp in an `i64`: the same numbers as chrono's and time's modules write.
    let shared = (kind == "unix timestamp" && !frac && base == i64_ty)
        .then(|| super::super::known::unix_timestamp_i64(unit, "1700000000"))
        .flatten();
    let written = shared.unwrap_or_else(|| Ty::Refined {
        sample: match &base {
            Ty::String => "\"1700000000\"".to_owned(),
            // Whole units unless `WithFrac`: the others round to the unit when writing.
            Ty::Float { .. } if frac => "1700000000.5".to_owned(),
            Ty::Float { .. } => "1700000000.0".to_owned(),
            _ => "1700000000".to_owned(),
        },
        outside: (base == Ty::String).then(|| "\"x\"".to_owned()),
        base: Box::new(base),
        domain,
        within: Vec::new(),
        extent: None,
    });
    let flexible = args
        .get(1)
        .is_some_and(|s| tokens_text(*s).ends_with("Flexible"));
    Ok(if flexible {
        Ty::Choice {
            writes: Box::new(written),
            reads: vec![
                Ty::Float { bits: 64 },
                string_of("number".to_owned(), "1.5", Some("x")),
            ],
        }
    } else {
        written
    })
}
