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

/// Whether `attr` is a `#[cfg]` or a `#[cfg_attr]`: what it is on depends on the build.
pub(super) fn is_cfg(attr: &Attribute) -> bool {
    attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr")
}

/// The attributes with every `#[cfg_attr(pred, a, b)]` whose `pred` `holds` replaced by `#[a] #[b]`
/// (nested ones too), and every other `cfg_attr` dropped, as the compiler does. `holds` is asked once per
/// `cfg_attr`, outermost first; `declarations` passes one that always holds (the declarations a file may
/// make in some build), `cfg` one that evaluates the predicate in the build checked. The predicate is
/// handed over as its tokens: it may be `true` or `false`, which are no `syn::Meta`.
pub(super) fn expand_cfg_attr<'x>(
    attrs: &'x [Attribute],
    holds: &mut dyn FnMut(&proc_macro2::TokenStream, &Attribute) -> bool,
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
        let Some((predicate, rest)) = split_cfg_attr(attr) else {
            continue;
        };
        let parsed = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            rest,
        );
        let Ok(metas) = parsed else { continue };
        if !holds(&predicate, attr) {
            continue;
        }
        let inner: Vec<Attribute> = metas
            .into_iter()
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

/// A `cfg_attr(predicate, attrs...)`'s predicate tokens and the tokens of the attributes after it (split
/// at the first comma outside any group); `None` when it has no parenthesized list or no comma.
fn split_cfg_attr(
    attr: &Attribute,
) -> Option<(proc_macro2::TokenStream, proc_macro2::TokenStream)> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let mut tokens = list.tokens.clone().into_iter();
    let mut predicate = proc_macro2::TokenStream::new();
    for token in tokens.by_ref() {
        match &token {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => {
                return Some((predicate, tokens.collect()));
            }
            _ => predicate.extend([token]),
        }
    }
    None
}

/// A path of a `#[derive(...)]` list, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DerivePath {
    /// Written with a leading `::`.
    pub(super) leading_colon: bool,
    /// The identifiers of its segments as written (`r#` kept); generic arguments, which no derive
    /// takes, are not kept.
    pub(super) segments: Vec<String>,
}

impl DerivePath {
    /// Whether its last segment is `name`.
    pub(super) fn ends_with(&self, name: &str) -> bool {
        self.segments.last().is_some_and(|last| last == name)
    }
}

/// The paths of every `#[derive(...)]` of `attrs`, as written (an unreadable list is skipped: the
/// compiler rejects it). The one reading of derives: `cfg_attr` is expanded by the caller.
///
/// A list of plain paths (`Debug, serde::Serialize, ::x::Y`) is read from its tokens, any other is
/// parsed by syn: both read a list alike (`tests::derive_lists_read_as_syn_reads_them`), and derives
/// are read for every type of every revision, where syn's parse of a list costs ten times the walk.
pub(super) fn derive_paths(attrs: &[Attribute]) -> Vec<DerivePath> {
    let mut paths = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("derive")) {
        let plain = match &attr.meta {
            syn::Meta::List(list) => plain_derive_list(&list.tokens),
            // `#[derive]`, `#[derive = ...]`: syn's parse fails.
            _ => None,
        };
        if let Some(found) = plain.or_else(|| syn_derive_paths(attr)) {
            paths.extend(found);
        }
    }
    paths
}

/// A derive list as syn parses it; `None` when syn cannot read it.
fn syn_derive_paths(attr: &Attribute) -> Option<Vec<DerivePath>> {
    let paths = attr
        .parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
        .ok()?;
    Some(
        paths
            .iter()
            .map(|path| DerivePath {
                leading_colon: path.leading_colon.is_some(),
                segments: path
                    .segments
                    .iter()
                    .map(|segment| segment.ident.to_string())
                    .collect(),
            })
            .collect(),
    )
}

/// A derive list of plain paths read from its tokens: identifiers that are not keywords, joined by
/// `::`, with an optional leading `::`, separated by commas, with an optional trailing comma. `None` for
/// any other list (generic arguments, keywords, other tokens, errors), which syn then reads.
fn plain_derive_list(tokens: &proc_macro2::TokenStream) -> Option<Vec<DerivePath>> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut paths = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let leading_colon = colons_at(&tokens, at);
        if leading_colon {
            at += 2;
        }
        let mut segments = Vec::new();
        loop {
            let TokenTree::Ident(ident) = tokens.get(at)? else {
                return None;
            };
            let text = ident.to_string();
            if !plain_ident(&text) {
                return None;
            }
            segments.push(text);
            at += 1;
            if !colons_at(&tokens, at) {
                break;
            }
            at += 2;
        }
        paths.push(DerivePath {
            leading_colon,
            segments,
        });
        match tokens.get(at) {
            None => break,
            Some(TokenTree::Punct(comma)) if comma.as_char() == ',' => at += 1,
            Some(_) => return None,
        }
    }
    Some(paths)
}

/// Whether `tokens[at..]` starts with `::` (a joint `:`, then a `:`).
fn colons_at(tokens: &[proc_macro2::TokenTree], at: usize) -> bool {
    use proc_macro2::{Spacing, TokenTree};
    matches!(
        tokens.get(at),
        Some(TokenTree::Punct(first)) if first.as_char() == ':' && first.spacing() == Spacing::Joint
    ) && matches!(
        tokens.get(at + 1),
        Some(TokenTree::Punct(second)) if second.as_char() == ':'
    )
}

/// Whether syn reads an identifier (as written, `r#` kept) as a path segment without looking further:
/// any but `_` and the keywords (syn's `Ident` rejects them, or takes `self`, `super`, `crate`, `Self`
/// and `try` by rules of their own).
fn plain_ident(text: &str) -> bool {
    !matches!(
        text,
        "_" | "abstract"
            | "as"
            | "async"
            | "await"
            | "become"
            | "box"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "do"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "final"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "macro"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "override"
            | "priv"
            | "pub"
            | "ref"
            | "return"
            | "Self"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "try"
            | "type"
            | "typeof"
            | "unsafe"
            | "unsized"
            | "use"
            | "virtual"
            | "where"
            | "while"
            | "yield"
    )
}

/// Whether a `#[derive(...)]` of `attrs` lists a path whose last segment is `name` (`Message`,
/// `wirecheck::Message`).
pub(super) fn derives_named(attrs: &[Attribute], name: &str) -> bool {
    derive_paths(attrs).iter().any(|path| path.ends_with(name))
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

/// The items of the inline module `inline` of a file, with the indices that lead to them from the file's
/// items: at each level, the last module of the name that `in_build` keeps (as the index keeps it; two of
/// one name are each behind a `cfg`).
pub(super) fn inline_items<'f>(
    file: &'f syn::File,
    inline: &[String],
    in_build: &dyn Fn(&syn::ItemMod) -> bool,
) -> Option<(Vec<usize>, &'f [Item])> {
    let mut items: &[Item] = &file.items;
    let mut indices = Vec::with_capacity(inline.len());
    for name in inline {
        let (index, content) =
            items
                .iter()
                .enumerate()
                .rev()
                .find_map(|(index, item)| match item {
                    Item::Mod(
                        module @ syn::ItemMod {
                            ident,
                            content: Some((_, content)),
                            ..
                        },
                    ) if unraw(ident) == *name && in_build(module) => {
                        Some((index, content.as_slice()))
                    }
                    _ => None,
                })?;
        indices.push(index);
        items = content;
    }
    Some((indices, items))
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
    static ITEM_BASES: RefCell<Vec<ItemRange>> = const { RefCell::new(Vec::new()) };
}

/// The range of proc-macro2's source map an item's text took, and where the item starts in its file.
#[derive(Clone, Copy)]
struct ItemRange {
    from: u32,
    to: u32,
    base: ItemBase,
    /// The text is ASCII: a character's offset in it is its byte offset.
    ascii: bool,
}

/// Parses the text of one item of a file, which starts at `base` in it; the spans of the tree then read
/// as positions in the file through [`file_position`].
pub(super) fn parse_item(text: &str, base: ItemBase) -> syn::Result<Item> {
    let tokens: proc_macro2::TokenStream = text.parse()?;
    // The source map range the text took: from its first token's place and offset in the text.
    if let Some(first) = tokens.clone().into_iter().next()
        && let Some((lo, _)) = map_range(first.span())
    {
        let before = text[..first.span().byte_range().start].chars().count();
        let from = lo.saturating_sub(u32::try_from(before).unwrap_or(u32::MAX));
        let range = ItemRange {
            from,
            to: from.saturating_add(u32::try_from(text.chars().count()).unwrap_or(u32::MAX)),
            base,
            ascii: text.is_ascii(),
        };
        ITEM_BASES.with(|bases| bases.borrow_mut().push(range));
    }
    syn::parse2(tokens)
}

/// Forgets every item base: called when proc-macro2's span map of the thread is cleared (its offsets then
/// start again from zero).
pub(super) fn clear_item_bases() {
    ITEM_BASES.with(|bases| bases.borrow_mut().clear());
}

/// The range of a span in proc-macro2's source map of the thread, in characters (its `Debug` form is
/// `bytes(lo..hi)` outside a procedural macro); `None` for a span without a place (`call_site`).
fn map_range(span: Span) -> Option<(u32, u32)> {
    use std::fmt::Write as _;
    // Formatted on the stack: every located token of the model asks.
    let mut debug = StackText::default();
    write!(debug, "{span:?}").ok()?;
    let range = debug.text()?.strip_prefix("bytes(")?.strip_suffix(')')?;
    let (lo, hi) = range.split_once("..")?;
    let lo: u32 = lo.parse().ok().filter(|&lo| lo > 0)?;
    Some((lo, hi.parse().ok()?))
}

/// A short text written on the stack (a span's `Debug` form, `bytes(4294967295..4294967295)` at most);
/// writing more than it holds fails.
#[derive(Default)]
struct StackText {
    bytes: [u8; 32],
    len: usize,
}

impl StackText {
    fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes[..self.len]).ok()
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Where a span is in its file: for a token of an item parsed alone ([`parse_item`]), offset by where the
/// item starts; for a token of a file parsed whole, as proc-macro2 reports it.
pub(super) fn file_position(span: Span) -> FilePosition {
    let start = span.start();
    let own = |bytes| FilePosition {
        line: start.line,
        column: start.column,
        bytes,
    };
    let Some((lo, hi)) = map_range(span) else {
        return own(span.byte_range());
    };
    let item = ITEM_BASES.with(|bases| {
        let bases = bases.borrow();
        let after = bases.partition_point(|range| range.from <= lo);
        after
            .checked_sub(1)
            .map(|i| bases[i])
            .filter(|range| lo <= range.to)
    });
    let Some(item) = item else {
        return own(span.byte_range());
    };
    // In an ASCII text the characters proc-macro2 counts are bytes: no walk over the text to convert.
    let bytes = if item.ascii && hi >= lo {
        (lo - item.from) as usize..(hi - item.from) as usize
    } else {
        span.byte_range()
    };
    let base = item.base;
    FilePosition {
        line: start.line + base.line as usize - 1,
        column: if start.line == 1 {
            start.column + base.column as usize
        } else {
            start.column
        },
        bytes: bytes.start + base.byte..bytes.end + base.byte,
    }
}

/// The sign and width in bits of a primitive integer type's name (`usize`/`isize` as 64, the targets
/// serde's users build for); `None` for any other name.
pub fn integer_type(name: &str) -> Option<(bool, u8)> {
    let (signed, bits) = match name.split_at_checked(1)? {
        ("u", bits) => (false, bits),
        ("i", bits) => (true, bits),
        _ => return None,
    };
    match bits {
        "8" => Some((signed, 8)),
        "16" => Some((signed, 16)),
        "32" => Some((signed, 32)),
        "64" | "size" => Some((signed, 64)),
        "128" => Some((signed, 128)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{DerivePath, ItemBase, derive_paths, file_position, parse_item, syn_derive_paths};

    /// Every token of an item parsed alone reads back at its place in the file, in an ASCII item (whose
    /// byte offsets are its character offsets) after non-ASCII text, and in an item with non-ASCII
    /// identifiers and literals.
    #[test]
    fn tokens_of_items_parsed_alone_are_where_the_file_has_them() {
        fn visit(tokens: proc_macro2::TokenStream, out: &mut Vec<(String, proc_macro2::Span)>) {
            for token in tokens {
                match token {
                    proc_macro2::TokenTree::Group(group) => visit(group.stream(), out),
                    other => out.push((other.to_string(), other.span())),
                }
            }
        }
        let file = "// héllo wörld\nmod a;\n#[derive(X)]\nstruct S {\n    f: u8, g: String }\nconst É: &str = \"ça\";\nstruct T { é: u8 }\n";
        let mut checked = 0;
        for item_text in [
            "#[derive(X)]\nstruct S {\n    f: u8, g: String }",
            "const É: &str = \"ça\";",
            "struct T { é: u8 }",
        ] {
            let byte = file.find(item_text).unwrap();
            let line_start = file[..byte].rfind('\n').map_or(0, |i| i + 1);
            let base = ItemBase {
                line: u32::try_from(file[..byte].matches('\n').count() + 1).unwrap(),
                column: u32::try_from(file[line_start..byte].chars().count()).unwrap(),
                byte,
            };
            let item = parse_item(item_text, base).unwrap();
            let mut tokens = Vec::new();
            visit(quote::ToTokens::into_token_stream(item), &mut tokens);
            for (text, span) in tokens {
                let at = file_position(span);
                assert_eq!(&file[at.bytes.clone()], text, "{item_text}");
                let line_start = file[..at.bytes.start].rfind('\n').map_or(0, |i| i + 1);
                assert_eq!(at.line, file[..at.bytes.start].matches('\n').count() + 1);
                assert_eq!(at.column, file[line_start..at.bytes.start].chars().count());
                checked += 1;
            }
        }
        assert!(checked > 20);
    }

    fn attrs(source: &str) -> Vec<syn::Attribute> {
        syn::parse_str::<syn::ItemStruct>(source)
            .expect("parses")
            .attrs
    }

    #[test]
    fn derive_lists_read_as_syn_reads_them() {
        for list in [
            "",
            "Debug",
            "Debug,",
            "Debug, Clone, serde::Serialize, ::serde::Deserialize, wirecheck::Message",
            "r#Serialize, r#type",
            "a::b::c, d,",
            // Read by syn: generic arguments, keywords and other tokens.
            "Foo<T>, Bar",
            "a::b::<T>",
            "self::Foo, super::Bar, crate::Baz, Self",
            "type",
            "_",
            // Not readable: skipped.
            "Debug,,Clone",
            ",",
            "a::",
            "a:::b",
            "::",
            "a b",
            "1",
            "a = b",
            "(Debug)",
        ] {
            let source = format!("#[derive({list})] struct S;");
            let attrs = attrs(&source);
            let by_syn: Vec<DerivePath> = syn_derive_paths(&attrs[0]).unwrap_or_default();
            assert_eq!(derive_paths(&attrs), by_syn, "{list}");
        }
        let read = derive_paths(&attrs(
            "#[derive(::serde::Serialize, Foo<T>)] #[derive] #[derive = \"x\"] #[derive(Clone)] struct S;",
        ));
        let texts: Vec<(bool, String)> = read
            .iter()
            .map(|path| (path.leading_colon, path.segments.join("::")))
            .collect();
        assert_eq!(
            texts,
            [
                (true, "serde::Serialize".to_owned()),
                (false, "Foo".to_owned()),
                (false, "Clone".to_owned())
            ]
        );
    }

    #[test]
    fn a_joint_colon_pair_is_a_path_separator_only_when_joint() {
        // `a: :b` is not a path: syn rejects the list, and so does the walk.
        let tokens: proc_macro2::TokenStream = "a: :b".parse().expect("lexes");
        assert_eq!(super::plain_derive_list(&tokens), None);
        let tokens: proc_macro2::TokenStream = "a::b".parse().expect("lexes");
        assert_eq!(
            super::plain_derive_list(&tokens),
            Some(vec![DerivePath {
                leading_colon: false,
                segments: vec!["a".to_owned(), "b".to_owned()],
            }])
        );
    }
}
