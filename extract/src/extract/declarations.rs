//! Discovery of what a file declares: `#[derive(Protocol)]` and `#[derive(Message)]` items with their
//! `#[wire(...)]` attributes read by the grammar crate (the one the derive uses), and `macro_rules!` that
//! write such items. Found once per blob and kept by the [`SourceCache`](super::SourceCache).

use proc_macro2::Span;
use serde::{Deserialize, Serialize};
use syn::Item;
use syn::spanned::Spanned;
use wirecheck_vocab::{Format, Kind, Upgrade};

use super::location;
use super::scan::macro_body_ident;
use super::syntax::{
    derive_paths, expand_cfg_attr, is_cfg, item_attrs, item_ident, path_segments, unraw,
};
use crate::model::{AllowDecl, Location};

/// A declaration in a file: plain data, read from its item's syntax once per blob (kept by the cache).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Declaration {
    /// The inline modules it is in, within its file.
    pub(super) inline: Vec<String>,
    /// Where its item is in the file.
    pub(super) item: ItemAt,
    /// The item's name as written (`r#` kept; a macro's for [`Declared::WireMacro`]).
    pub(super) name: String,
    /// Where the name is (the macro's path for [`Declared::WireMacro`]); declarations are ordered by its
    /// start within a file.
    pub(super) at: Place,
    /// Its item has a `cfg` or `cfg_attr` attribute: whether it declares in the build checked depends
    /// on the build. Without one it does in every build that has its module.
    pub(super) gated: bool,
    pub(super) declared: Declared,
}

impl Declaration {
    /// The byte offset of [`Declaration::at`] in the file.
    pub(super) fn offset(&self) -> usize {
        self.at.start
    }
}

/// Where the item of a [`Declaration`] is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) enum ItemAt {
    /// In a file parsed whole: the indices of the items leading to it from the file's items (inline
    /// modules, then the item).
    Path(Vec<usize>),
    /// In a file parsed item by item: the index of the scan's item.
    Scanned(usize),
}

/// A place in a file: a [`Location`] without its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Place {
    line: u32,
    column: u32,
    start: usize,
    end: usize,
}

impl Place {
    /// Where `span` (of a tree parsed from a cache's blob) is in its file.
    pub(super) fn of(span: Span) -> Place {
        let Location {
            line,
            column,
            start,
            end,
            ..
        } = location("", span);
        Place {
            line,
            column,
            start,
            end,
        }
    }

    /// The place in `file`.
    pub(super) fn location(&self, file: &str) -> Location {
        Location {
            file: file.to_owned(),
            line: self.line,
            column: self.column,
            start: self.start,
            end: self.end,
        }
    }
}

/// What a [`Declaration`] declares, with its `#[wire]` attributes as the grammar read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Declared {
    Protocol(Result<ProtocolDeclared, Invalid>),
    Message(Result<MessageDeclared, Invalid>),
    /// A `macro_rules!` whose body writes `#[wire]` items.
    WireMacro,
}

/// `#[wire(...)]` attributes the grammar rejects: its message, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Invalid {
    pub(super) message: String,
    pub(super) at: Place,
}

impl From<syn::Error> for Invalid {
    fn from(error: syn::Error) -> Self {
        Invalid {
            message: error.to_string(),
            at: Place::of(error.span()),
        }
    }
}

/// A protocol's `#[wire(...)]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ProtocolDeclared {
    pub(super) name: String,
    pub(super) version: semver::Version,
    pub(super) min_compatible: Option<semver::Version>,
    pub(super) upgrade: Upgrade,
    pub(super) format: Format,
}

impl From<wirecheck_grammar::ProtocolAttrs> for ProtocolDeclared {
    fn from(attrs: wirecheck_grammar::ProtocolAttrs) -> Self {
        ProtocolDeclared {
            name: attrs.name.value,
            version: attrs.version.value,
            min_compatible: attrs.min_compatible.map(|version| version.value),
            upgrade: attrs.upgrade,
            format: attrs.format,
        }
    }
}

/// A message's `#[wire(...)]`, its paths as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct MessageDeclared {
    /// `protocol = Path`, and where the path is.
    pub(super) protocol: Vec<String>,
    pub(super) protocol_at: Place,
    pub(super) topic: String,
    pub(super) kind: Kind,
    pub(super) responds: Option<Vec<String>>,
    pub(super) streams: Option<Vec<String>>,
    pub(super) since: Option<semver::Version>,
    /// `allow(...)` with its `reason`, when both are there.
    pub(super) allow: Option<AllowDecl>,
}

impl From<wirecheck_grammar::MessageAttrs> for MessageDeclared {
    fn from(attrs: wirecheck_grammar::MessageAttrs) -> Self {
        MessageDeclared {
            protocol: path_segments(&attrs.protocol),
            protocol_at: Place::of(attrs.protocol.span()),
            topic: attrs.topic.value,
            kind: attrs.kind.value,
            responds: attrs.responds.as_ref().map(path_segments),
            streams: attrs.streams.as_ref().map(path_segments),
            since: attrs.since.map(|version| version.value),
            allow: allow_decl(&attrs.allow),
        }
    }
}

/// An `allow(...)` with its `reason`, as the model keeps it (`None` without either).
pub(super) fn allow_decl(allow: &wirecheck_grammar::Allow) -> Option<AllowDecl> {
    let reason = allow.reason.as_ref()?;
    (!allow.rules.is_empty()).then(|| AllowDecl {
        rules: allow.rules.iter().map(|r| r.value.clone()).collect(),
        reason: reason.value.clone(),
    })
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
                out.push(Declaration {
                    inline: inline.to_vec(),
                    item: at,
                    name: ident.to_string(),
                    at: Place::of(item_macro.mac.path.span()),
                    gated: is_gated(&item_macro.attrs),
                    declared: Declared::WireMacro,
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
    let name = ident.to_string();
    let place = Place::of(ident.span());
    let gated = is_gated(item_attrs(item));
    let mut push = |declared| {
        out.push(Declaration {
            inline: inline.to_vec(),
            item: at.clone(),
            name: name.clone(),
            at: place,
            gated,
            declared,
        });
    };
    // One read of the derive lists for both names.
    let derives = derive_paths(&attrs);
    let derives_named = |name: &str| derives.iter().any(|path| path.ends_with(name));
    if derives_named("Protocol") {
        let attrs = wirecheck_grammar::parse_protocol(&attrs, ident.span());
        push(Declared::Protocol(
            attrs.map(Into::into).map_err(Into::into),
        ));
    }
    if derives_named("Message") {
        let attrs = wirecheck_grammar::parse_message(&attrs, ident.span());
        push(Declared::Message(attrs.map(Into::into).map_err(Into::into)));
    }
}
