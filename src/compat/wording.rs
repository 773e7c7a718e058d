//! Words the findings share: how a representation, a variant's style, a response mode or a custom
//! function is named in a sentence.

use crate::model::{EnumRepr, Field, Style, Variant};
use crate::{Kind, ResponseMode};

/// "a" or "an", for a message kind.
pub(crate) fn article(kind: Kind) -> &'static str {
    match kind {
        Kind::Event => "an",
        _ => "a",
    }
}

/// A response mode as an adjective: "no", "single", "streamed".
pub(crate) fn response_mode_text(mode: ResponseMode) -> &'static str {
    match mode {
        ResponseMode::None => "no",
        ResponseMode::Single => "single",
        ResponseMode::Stream => "streamed",
    }
}

/// An enum representation, as serde's documentation names it.
pub(crate) fn repr_text(repr: &EnumRepr) -> String {
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
pub(crate) fn style_text(variant: &Variant) -> &'static str {
    match variant.style {
        Style::Unit => "unit",
        Style::Tuple if variant.fields.len() == 1 => "newtype",
        Style::Tuple => "tuple",
        Style::Named => "struct",
    }
}

/// A field's custom functions, as written in the attribute (`serialize_with = f, deserialize_with = g`).
pub(crate) fn custom_text(field: &Field) -> String {
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
pub(crate) fn quoted_alternatives(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A variant as the findings name it: its wire name, or for an enum written as integers (serde_repr) its
/// Rust name and discriminant (`Done = 3`).
pub(crate) fn variant_text(repr: &EnumRepr, variant: &Variant) -> String {
    match repr {
        EnumRepr::Integer { .. } => format!("{} = {}", variant.rust_name, variant.ser_name),
        _ => variant.ser_name.clone(),
    }
}
