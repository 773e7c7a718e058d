//! The readings of [`scan`](super) taken from syn's tree instead: a parsed file's `mod` declarations (for
//! the files the scan gives up on), and the attributes of a `mod` item.

use proc_macro2::Span;
use syn::{Attribute, Item};

use super::{ModItem, Pos};
use crate::extract::syntax::{is_cfg, unraw};

/// The item-level `mod` declarations of a parsed file, inline ones included, as [`scan`](super::scan()) reports them.
pub(in crate::extract) fn mods_of_syntax(file: &syn::File) -> Vec<ModItem> {
    fn walk(items: &[Item], parents: &mut Vec<String>, out: &mut Vec<ModItem>) {
        for item in items {
            let Item::Mod(module) = item else { continue };
            let name = unraw(&module.ident);
            out.push(ModItem {
                parents: parents.clone(),
                name: name.clone(),
                inline: module.content.is_some(),
                path_attr: path_attr(&module.attrs),
                cfg: mod_cfg(&module.attrs),
                pos: pos_of(module.ident.span()),
            });
            if let Some((_, inner)) = &module.content {
                parents.push(name);
                walk(inner, parents, out);
                parents.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut out);
    out
}

/// The value of `#[path = "..."]` on a `mod` item.
pub(in crate::extract) fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|attr| attr.path().is_ident("path"))
        .and_then(|attr| match &attr.meta {
            syn::Meta::NameValue(name_value) => match &name_value.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
}

pub(in crate::extract) fn pos_of(span: Span) -> Pos {
    let start = span.start();
    let bytes = span.byte_range();
    Pos {
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
        start: bytes.start,
        end: bytes.end,
    }
}

/// The `cfg` and `cfg_attr` attributes of a `mod` item, as [`ModItem::cfg`] keeps them.
pub(in crate::extract) fn mod_cfg(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| is_cfg(attr))
        .map(|attr| cfg_text(&quote::ToTokens::to_token_stream(&attr.meta).to_string()))
        .collect()
}

/// An attribute's text (inside its brackets) as syn prints it once parsed, so that the scan and syn's
/// tree agree; as written when it does not parse (the compiler reports it).
pub(in crate::extract) fn cfg_text(text: &str) -> String {
    syn::parse_str::<syn::Meta>(text).map_or_else(
        |_| text.to_owned(),
        |meta| quote::ToTokens::to_token_stream(&meta).to_string(),
    )
}

/// The value of the string literal token `lit` (`"a\tb"`, `r#"x"#`) as syn's tree has it: decoded by
/// syn's `LitStr` as rustc decodes it (every escape, raw strings, line continuations); `None` for what
/// is no string literal (byte and C strings).
pub(super) fn string_value(lit: &str) -> Option<String> {
    syn::parse_str::<syn::LitStr>(lit)
        .ok()
        .map(|lit| lit.value())
}
