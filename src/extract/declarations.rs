//! Discovery of what a file declares: `#[derive(Protocol)]` and `#[derive(Message)]` items with their
//! `#[wire(...)]` attributes read by the grammar crate (the one the derive uses), and `macro_rules!` that
//! write such items. Found once per blob and kept by the [`SourceCache`](super::SourceCache).

use proc_macro2::Span;
use syn::Item;
use syn::spanned::Spanned;

use super::scan::macro_body_ident;
use super::syntax::{
    derives_named, expand_cfg_attr, file_position, is_cfg, item_attrs, item_ident, unraw,
};

/// A declaration in a file. Kept per blob in the cache (its spans stay valid as long as the cache).
pub(super) struct Declaration {
    /// The inline modules it is in, within its file.
    pub(super) inline: Vec<String>,
    /// Where its item is in the file.
    pub(super) item: ItemAt,
    /// The byte offset of its name in the file (declarations are ordered by it within a file).
    pub(super) offset: usize,
    /// Its item has a `cfg` or `cfg_attr` attribute: whether it declares in the build checked depends
    /// on the build. Without one it does in every build that has its module.
    pub(super) gated: bool,
    pub(super) declared: Declared,
}

/// Where the item of a [`Declaration`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ItemAt {
    /// In a file parsed whole: the indices of the items leading to it from the file's items (inline
    /// modules, then the item).
    Path(Vec<usize>),
    /// In a file parsed item by item: the index of the scan's item.
    Scanned(usize),
}

/// What a [`Declaration`] declares, with the `#[wire]` attributes as the grammar read them.
pub(super) enum Declared {
    Protocol(Result<wirecheck_grammar::ProtocolAttrs, syn::Error>),
    Message(Result<wirecheck_grammar::MessageAttrs, syn::Error>),
    /// A `macro_rules!` whose body writes `#[wire]` items: the macro's name and where.
    WireMacro(String, Span),
}

/// The declarations of a parsed file, in source order.
pub(super) fn declarations_of(file: &syn::File) -> Vec<Declaration> {
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut Vec::new(), &mut out);
    out
}

fn walk(
    items: &[Item],
    inline: &mut Vec<String>,
    indices: &mut Vec<usize>,
    out: &mut Vec<Declaration>,
) {
    for (index, item) in items.iter().enumerate() {
        indices.push(index);
        match item {
            Item::Mod(module) => {
                if let Some((_, inner)) = &module.content {
                    inline.push(unraw(&module.ident));
                    walk(inner, inline, indices, out);
                    inline.pop();
                }
            }
            _ => item_declarations(item, inline, ItemAt::Path(indices.clone()), out),
        }
        indices.pop();
    }
}

/// The declarations of one item (not an inline module) at `at`, in the inline modules `inline`.
pub(super) fn item_declarations(
    item: &Item,
    inline: &[String],
    at: ItemAt,
    out: &mut Vec<Declaration>,
) {
    match item {
        Item::Struct(_) | Item::Enum(_) | Item::Type(_) => {
            type_declarations(item, inline, at, out);
        }
        Item::Macro(item_macro) => {
            if let Some(ident) = &item_macro.ident
                && writes_declarations(item_macro.mac.tokens.clone())
            {
                // A macro_rules! that writes #[wire] items: what it generates is invisible here.
                let span = item_macro.mac.path.span();
                out.push(Declaration {
                    inline: inline.to_vec(),
                    item: at,
                    offset: file_position(span).bytes.start,
                    gated: is_gated(&item_macro.attrs),
                    declared: Declared::WireMacro(ident.to_string(), span),
                });
            }
        }
        _ => {}
    }
}

/// Whether a `macro_rules!` body has identifiers naming both `wire` and `Protocol` or `Message` (the
/// scan's rule, `scan::macro_body_ident`: words in comments and strings do not count).
fn writes_declarations(tokens: proc_macro2::TokenStream) -> bool {
    fn visit(tokens: proc_macro2::TokenStream, found: &mut (bool, bool)) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => {
                    let (wire, declaration) = macro_body_ident(&ident.to_string());
                    found.0 |= wire;
                    found.1 |= declaration;
                }
                proc_macro2::TokenTree::Group(group) => visit(group.stream(), found),
                _ => {}
            }
        }
    }
    let mut found = (false, false);
    visit(tokens, &mut found);
    found.0 && found.1
}

/// Whether `attrs` have a `cfg` or a `cfg_attr` (see [`Declaration::gated`]).
fn is_gated(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(is_cfg)
}

/// The protocol and message declarations of one type item (both when it derives both).
fn type_declarations(item: &Item, inline: &[String], at: ItemAt, out: &mut Vec<Declaration>) {
    // Every `cfg_attr` applied: what the file declares in some build (the lowering keeps what the build
    // checked declares).
    let attrs = expand_cfg_attr(item_attrs(item), &mut |_, _| true);
    let Some(ident) = item_ident(item) else {
        return;
    };
    if !attrs.iter().any(wirecheck_grammar::is_wire_attr) {
        return;
    }
    let offset = file_position(ident.span()).bytes.start;
    let gated = is_gated(item_attrs(item));
    let mut push = |declared| {
        out.push(Declaration {
            inline: inline.to_vec(),
            item: at.clone(),
            offset,
            gated,
            declared,
        });
    };
    if derives_named(&attrs, "Protocol") {
        push(Declared::Protocol(wirecheck_grammar::parse_protocol(
            &attrs,
            ident.span(),
        )));
    }
    if derives_named(&attrs, "Message") {
        push(Declared::Message(wirecheck_grammar::parse_message(
            &attrs,
            ident.span(),
        )));
    }
}
