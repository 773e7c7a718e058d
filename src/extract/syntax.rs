//! Small readings of syn's tree that every stage of extraction shares: names without their `r#`, the
//! attributes of a type item with `cfg_attr` expanded, paths as segments, and items by position.

use std::borrow::Cow;

use syn::{Attribute, Item};

/// An identifier as the source means it: `r#type` is `type`.
pub(super) fn unraw(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// The name of a struct, enum or type alias; empty for any other item.
pub(super) fn item_name(item: &Item) -> String {
    item_ident(item).map(unraw).unwrap_or_default()
}

/// The identifier of a struct, enum or type alias.
pub(super) fn item_ident(item: &Item) -> Option<&syn::Ident> {
    match item {
        Item::Struct(item) => Some(&item.ident),
        Item::Enum(item) => Some(&item.ident),
        Item::Type(item) => Some(&item.ident),
        _ => None,
    }
}

/// The attributes of a struct, enum or type alias, as written.
pub(super) fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Struct(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        _ => &[],
    }
}

/// The names of the type parameters of a struct, enum or type alias.
pub(super) fn item_generics(item: &Item) -> Vec<String> {
    let generics = match item {
        Item::Struct(item) => &item.generics,
        Item::Enum(item) => &item.generics,
        Item::Type(item) => &item.generics,
        _ => return Vec::new(),
    };
    generics
        .type_params()
        .map(|param| param.ident.to_string())
        .collect()
}

/// The attributes with every `#[cfg_attr(pred, a, b)]` replaced by `#[a] #[b]`: wirecheck does not know
/// which features a build enables, and serde or wire attributes behind a feature are usually the ones the
/// protocol ships with.
pub(super) fn expand_cfg_attr(attrs: &[Attribute]) -> Cow<'_, [Attribute]> {
    if !attrs.iter().any(|attr| attr.path().is_ident("cfg_attr")) {
        return Cow::Borrowed(attrs);
    }
    let mut out = Vec::with_capacity(attrs.len());
    for attr in attrs {
        if !attr.path().is_ident("cfg_attr") {
            out.push(attr.clone());
            continue;
        }
        let parsed = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        );
        if let Ok(metas) = parsed {
            let inner: Vec<Attribute> = metas
                .into_iter()
                .skip(1)
                .map(|meta| Attribute {
                    pound_token: attr.pound_token,
                    style: attr.style,
                    bracket_token: attr.bracket_token,
                    meta,
                })
                .collect();
            out.extend(expand_cfg_attr(&inner).iter().cloned());
        }
    }
    Cow::Owned(out)
}

/// A path's segments without `r#`; a leading `::` becomes an empty first segment.
pub(super) fn path_segments(path: &syn::Path) -> Vec<String> {
    let mut segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| unraw(&segment.ident))
        .collect();
    if path.leading_colon.is_some() {
        segments.insert(0, String::new());
    }
    segments
}

/// Tokens as text the way a person writes them (`a::B<C, D>`, not `a :: B < C , D >`).
pub(super) fn tokens_text(tokens: &impl quote::ToTokens) -> String {
    tokens
        .to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

/// The item at `indices` of a file: the indices of the inline modules leading to it, then its own.
pub(super) fn item_at<'f>(file: &'f syn::File, indices: &[usize]) -> &'f Item {
    let mut items = &file.items;
    let (last, inner) = indices
        .split_last()
        .expect("a declaration has an item path");
    for &index in inner {
        match &items[index] {
            Item::Mod(syn::ItemMod {
                content: Some((_, content)),
                ..
            }) => items = content,
            _ => unreachable!("declaration paths go through inline modules"),
        }
    }
    &items[*last]
}

/// The items of the inline module `inline` of a file (the last one of a name, as the index keeps it).
pub(super) fn inline_items<'f>(file: &'f syn::File, inline: &[String]) -> Option<&'f [Item]> {
    let mut items: &[Item] = &file.items;
    for name in inline {
        items = items.iter().rev().find_map(|item| match item {
            Item::Mod(syn::ItemMod {
                ident,
                content: Some((_, content)),
                ..
            }) if unraw(ident) == *name => Some(content.as_slice()),
            _ => None,
        })?;
    }
    Some(items)
}
