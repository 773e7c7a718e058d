//! Small readings of syn's tree that every stage of extraction shares: names without their `r#`, the
//! attributes of a type item with `cfg_attr` expanded (by a predicate the caller evaluates), derives, paths as segments, items by position, and where a
//! token is in its file when its item was parsed alone ([`parse_item`], [`file_position`]).

use std::borrow::Cow;
use std::cell::RefCell;

use proc_macro2::Span;

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

/// The attributes with every `#[cfg_attr(pred, a, b)]` whose `pred` `holds` replaced by `#[a] #[b]`
/// (nested ones too), and every other `cfg_attr` dropped, as the compiler does. `holds` is asked once per
/// `cfg_attr`, outermost first; `declarations` passes one that always holds (the declarations a file may
/// make in some build), `cfg` one that evaluates the predicate in the build checked.
pub(super) fn expand_cfg_attr<'x>(
    attrs: &'x [Attribute],
    holds: &mut dyn FnMut(&syn::Meta, &Attribute) -> bool,
) -> Cow<'x, [Attribute]> {
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
        let Ok(metas) = parsed else { continue };
        let mut metas = metas.into_iter();
        let Some(predicate) = metas.next() else {
            continue;
        };
        if !holds(&predicate, attr) {
            continue;
        }
        let inner: Vec<Attribute> = metas
            .map(|meta| Attribute {
                pound_token: attr.pound_token,
                style: attr.style,
                bracket_token: attr.bracket_token,
                meta,
            })
            .collect();
        out.extend(expand_cfg_attr(&inner, holds).iter().cloned());
    }
    Cow::Owned(out)
}

/// The paths of every `#[derive(...)]` of `attrs`, as written (an unreadable list is skipped: the
/// compiler rejects it). The one reading of derives: `cfg_attr` is expanded by the caller.
pub(super) fn derive_paths(attrs: &[Attribute]) -> Vec<syn::Path> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .filter_map(|attr| {
            attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .ok()
        })
        .flatten()
        .collect()
}

/// Whether a `#[derive(...)]` of `attrs` lists a path whose last segment is `name` (`Message`,
/// `wirecheck::Message`).
pub(super) fn derives_named(attrs: &[Attribute], name: &str) -> bool {
    derive_paths(attrs)
        .iter()
        .any(|path| path.segments.last().is_some_and(|last| last.ident == name))
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

/// The items of the inline module `inline` of a file: at each level, the last module of the name that
/// `in_build` keeps (as the index keeps it; two of one name are each behind a `cfg`).
pub(super) fn inline_items<'f>(
    file: &'f syn::File,
    inline: &[String],
    in_build: &dyn Fn(&syn::ItemMod) -> bool,
) -> Option<&'f [Item]> {
    let mut items: &[Item] = &file.items;
    for name in inline {
        items = items.iter().rev().find_map(|item| match item {
            Item::Mod(
                module @ syn::ItemMod {
                    ident,
                    content: Some((_, content)),
                    ..
                },
            ) if unraw(ident) == *name && in_build(module) => Some(content.as_slice()),
            _ => None,
        })?;
    }
    Some(items)
}

/// Where an item parsed alone starts in its file, for the spans of its syntax tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ItemBase {
    /// The 1-based line of its first byte.
    pub(super) line: u32,
    /// The 0-based column (in characters) of its first byte.
    pub(super) column: u32,
    /// The byte offset of its first byte.
    pub(super) byte: usize,
}

/// A span's place in its file: 1-based line, 0-based column in characters, byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FilePosition {
    pub(super) line: usize,
    pub(super) column: usize,
    pub(super) bytes: std::ops::Range<usize>,
}

thread_local! {
    /// The items parsed alone on this thread, by the range of proc-macro2's source map (characters,
    /// counted over every text parsed on the thread) their text took: ascending, as the map grows.
    static ITEM_BASES: RefCell<Vec<(u32, u32, ItemBase)>> = const { RefCell::new(Vec::new()) };
}

/// Parses the text of one item of a file, which starts at `base` in it; the spans of the tree then read
/// as positions in the file through [`file_position`].
pub(super) fn parse_item(text: &str, base: ItemBase) -> syn::Result<Item> {
    let tokens: proc_macro2::TokenStream = text.parse()?;
    // The source map range the text took: from its first token's place and offset in the text.
    if let Some(first) = tokens.clone().into_iter().next()
        && let Some(lo) = map_offset(first.span())
    {
        let before = text[..first.span().byte_range().start].chars().count();
        let lo = lo.saturating_sub(u32::try_from(before).unwrap_or(u32::MAX));
        let hi = lo.saturating_add(u32::try_from(text.chars().count()).unwrap_or(u32::MAX));
        ITEM_BASES.with(|bases| bases.borrow_mut().push((lo, hi, base)));
    }
    syn::parse2(tokens)
}

/// Forgets every item base: called when proc-macro2's span map of the thread is cleared (its offsets then
/// start again from zero).
pub(super) fn clear_item_bases() {
    ITEM_BASES.with(|bases| bases.borrow_mut().clear());
}

/// The offset of a span's start in proc-macro2's source map of the thread (its `Debug` form is
/// `bytes(lo..hi)` outside a procedural macro); `None` for a span without a place (`call_site`).
fn map_offset(span: Span) -> Option<u32> {
    let debug = format!("{span:?}");
    let range = debug.strip_prefix("bytes(")?.strip_suffix(')')?;
    let (lo, _) = range.split_once("..")?;
    lo.parse().ok().filter(|&lo| lo > 0)
}

/// Where a span is in its file: for a token of an item parsed alone ([`parse_item`]), offset by where the
/// item starts; for a token of a file parsed whole, as proc-macro2 reports it.
pub(super) fn file_position(span: Span) -> FilePosition {
    let start = span.start();
    let bytes = span.byte_range();
    let own = FilePosition {
        line: start.line,
        column: start.column,
        bytes,
    };
    let Some(lo) = map_offset(span) else {
        return own;
    };
    let base = ITEM_BASES.with(|bases| {
        let bases = bases.borrow();
        let after = bases.partition_point(|(from, _, _)| *from <= lo);
        after
            .checked_sub(1)
            .map(|i| bases[i])
            .filter(|(_, to, _)| lo <= *to)
            .map(|(_, _, base)| base)
    });
    match base {
        None => own,
        Some(base) => FilePosition {
            line: own.line + base.line as usize - 1,
            column: if own.line == 1 {
                own.column + base.column as usize
            } else {
                own.column
            },
            bytes: own.bytes.start + base.byte..own.bytes.end + base.byte,
        },
    }
}
