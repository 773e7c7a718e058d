//! Words the findings share: how a representation, a variant's style, a response mode or a custom
//! function is named in a sentence.

use crate::model::{EnumRepr, Field, Style, Ty, Variant};
use crate::{Kind, ResponseMode};

/// "a" or "an", for a message kind.
pub fn article(kind: Kind) -> &'static str {
    match kind {
        Kind::Event => "an",
        _ => "a",
    }
}

/// A response mode as an adjective: "no", "single", "streamed".
pub fn response_mode_text(mode: ResponseMode) -> &'static str {
    match mode {
        ResponseMode::None => "no",
        ResponseMode::Single => "single",
        ResponseMode::Stream => "streamed",
    }
}

/// An enum representation, as serde's documentation names it.
pub fn repr_text(repr: &EnumRepr) -> String {
    match repr {
        EnumRepr::External => "externally tagged".to_owned(),
        EnumRepr::Internal { tag } => format!("internally tagged (`{tag}`)"),
        EnumRepr::Adjacent { tag, content } => format!("adjacently tagged (`{tag}`, `{content}`)"),
        EnumRepr::Untagged => "untagged".to_owned(),
        EnumRepr::Integer { signed, bits } => format!(
            "as its discriminant, a `{}{bits}` (serde_repr)",
            if *signed { 'i' } else { 'u' }
        ),
    }
}

/// The style of a variant's payload: "unit", "newtype", "tuple" or "struct".
pub fn style_text(variant: &Variant) -> &'static str {
    match variant.style {
        Style::Unit => "unit",
        Style::Tuple if variant.fields.len() == 1 => "newtype",
        Style::Tuple => "tuple",
        Style::Named => "struct",
    }
}

/// A field's custom functions, as written in the attribute (`serialize_with = f, deserialize_with = g`).
pub fn custom_text(field: &Field) -> String {
    match &field.custom {
        Some(custom) => {
            let mut parts = Vec::new();
            if let Some(function) = &custom.ser {
                parts.push(format!("serialize_with = {function}"));
            }
            if let Some(function) = &custom.de {
                parts.push(format!("deserialize_with = {function}"));
            }
            parts.join(", ")
        }
        None => String::new(),
    }
}

/// Names quoted and joined with "or": "`a` or `b`".
pub fn quoted_alternatives(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A variant as the findings name it: its wire name, or for an enum written as integers (serde_repr) its
/// Rust name and discriminant (`Done = 3`).
pub fn variant_text(repr: &EnumRepr, variant: &Variant) -> String {
    match repr {
        EnumRepr::Integer { .. } => format!("{} = {}", variant.rust_name, variant.ser_name),
        _ => variant.ser_name.clone(),
    }
}

/// Two types as a sentence names them: as written (`Level`), or by their paths when both would read
/// the same but are not the same type (`a::Level` and `b::Level`, two types of one name in two modules).
pub fn type_names(writer: &Ty, reader: &Ty) -> (String, String) {
    let (short_writer, short_reader) = (writer.to_string(), reader.to_string());
    if short_writer == short_reader && writer != reader {
        (long_name(writer), long_name(reader))
    } else {
        (short_writer, short_reader)
    }
}

/// A type with every named type by its path, without the crate's name (`sched::Level`,
/// `Option<sched::Level>`); other types as written.
fn long_name(ty: &Ty) -> String {
    let list = |tys: &[Ty]| tys.iter().map(long_name).collect::<Vec<_>>().join(", ");
    match ty {
        Ty::Named { path, args } if path.starts_with('<') => {
            let _ = args;
            ty.to_string()
        }
        Ty::Named { path, args } => {
            let path = path
                .split_once("::")
                .map_or(path.as_str(), |(_, rest)| rest);
            if args.is_empty() {
                path.to_owned()
            } else {
                format!("{path}<{}>", list(args))
            }
        }
        Ty::Option { inner } => format!("Option<{}>", long_name(inner)),
        Ty::Seq { kind, elem } => {
            let outer = Ty::Seq {
                kind: *kind,
                elem: Box::new(Ty::Param {
                    name: long_name(elem),
                }),
            };
            outer.to_string()
        }
        Ty::Map { key, value } => format!("Map<{}, {}>", long_name(key), long_name(value)),
        Ty::Tuple { elems } => format!("({})", list(elems)),
        Ty::Array { elem, len } => format!("[{}; {len}]", long_name(elem)),
        other => other.to_string(),
    }
}
