//! What an item is, from its first module-level tokens: a type, a `use`, a `mod`, a macro invocation or
//! definition, an `impl` (with the names of its self type and trait), a function, a constant or static.

use super::{ItemKind, Pos, Token};

/// The kind of an item from its first module-level tokens; `None` for a `struct`, `enum`, `type` or
/// `mod` without a name (not Rust: a lookup in its module cannot know what it binds).
pub(super) fn item_kind(text: &str, head: &[(Token, usize, (u32, usize))]) -> Option<ItemKind> {
    let word = |i: usize| match head.get(i) {
        Some((Token::Ident(s, e), ..)) => Some(&text[*s..*e]),
        _ => None,
    };
    let unraw = |name: &str| name.strip_prefix("r#").unwrap_or(name).to_owned();
    let mut i = 0;
    // Visibility and qualifiers: `pub(crate)`, `unsafe`, `extern "C"`, ...
    while let Some(w) = word(i) {
        match w {
            "pub" => {
                i += 1;
                if matches!(head.get(i), Some((Token::Open(b'('), ..))) {
                    i += 1;
                }
            }
            "unsafe" | "async" | "default" | "auto" | "safe" => i += 1,
            "extern" => {
                i += 1;
                if matches!(head.get(i), Some((Token::Str(..), ..))) {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    match (word(i), word(i + 1)) {
        (Some("struct" | "enum" | "type"), Some(name)) => Some(ItemKind::Type(unraw(name))),
        (Some("struct" | "enum" | "type" | "mod"), None) => None,
        (Some("use"), _) => Some(ItemKind::Use),
        (Some("mod"), Some(name)) => Some(ItemKind::Mod(unraw(name))),
        (Some("impl"), _) => Some(impl_kind(text, &head[i + 1..])),
        (Some("const"), Some("fn" | "unsafe" | "async" | "extern")) => Some(fn_kind(word, i + 1)),
        (Some("fn"), _) => Some(fn_kind(word, i)),
        (Some("static"), Some("mut")) => Some(value_kind(word(i + 2))),
        (Some("const" | "static"), name) => Some(value_kind(name)),
        _ => Some(macro_call(text, &head[i.min(head.len())..]).unwrap_or(ItemKind::Other)),
    }
}

/// The kind of an `impl` item whose tokens after `impl` are `head`: the names of its self type and of
/// its trait, the last identifier of each at angle depth 0 (`&'a mut Foo<T>` is `Foo`), when the head
/// reaches the body or a `where` clause.
fn impl_kind(text: &str, head: &[(Token, usize, (u32, usize))]) -> ItemKind {
    let mut angle = 0usize;
    let mut last: Option<&str> = None;
    let mut trait_name = None;
    let mut trait_object = false;
    let mut after_dash = false;
    for (token, ..) in head {
        let dash = *token == Token::Punct(b'-');
        match *token {
            Token::Punct(b'<') => angle += 1,
            // `->` in a bound (`F: Fn() -> T`) closes nothing.
            Token::Punct(b'>') if !after_dash => angle = angle.saturating_sub(1),
            Token::Ident(s, e) if angle == 0 => match &text[s..e] {
                "for" => {
                    trait_name = last.take().map(str::to_owned);
                    trait_object = false;
                }
                "where" => return impl_of(last.filter(|_| !trait_object), trait_name),
                // A trait object is no type item.
                "dyn" => trait_object = true,
                "mut" | "const" | "unsafe" => {}
                word => last = Some(word),
            },
            Token::Open(b'{') if angle == 0 => {
                return impl_of(last.filter(|_| !trait_object), trait_name);
            }
            _ => {}
        }
        after_dash = dash;
    }
    ItemKind::Impl {
        self_name: None,
        trait_name: None,
    }
}

/// An [`ItemKind::Impl`] of the self type named `last` (`r#` stripped).
fn impl_of(last: Option<&str>, trait_name: Option<String>) -> ItemKind {
    let unraw = |name: &str| name.strip_prefix("r#").unwrap_or(name).to_owned();
    ItemKind::Impl {
        self_name: last.map(unraw),
        trait_name: trait_name.as_deref().map(unraw),
    }
}

/// The kind of a function item whose qualifiers start at token `i` (`unsafe`, `async`, `extern "C"`
/// before `fn name`): `Other` when the name is not found among the first tokens.
fn fn_kind<'t>(word: impl Fn(usize) -> Option<&'t str>, mut i: usize) -> ItemKind {
    while let Some(w) = word(i) {
        if w == "fn" {
            return match word(i + 1) {
                Some(name) => ItemKind::Fn(name.strip_prefix("r#").unwrap_or(name).to_owned()),
                None => ItemKind::Other,
            };
        }
        i += 1;
    }
    ItemKind::Other
}

/// The kind of a `const` or `static` item named `name` (`const _` names nothing).
fn value_kind(name: Option<&str>) -> ItemKind {
    match name {
        Some(name) if name != "_" => {
            ItemKind::Value(name.strip_prefix("r#").unwrap_or(name).to_owned())
        }
        _ => ItemKind::Other,
    }
}

/// `a::b! ...`: a macro invocation, with its path's position, or `macro_rules! name`.
fn macro_call(text: &str, head: &[(Token, usize, (u32, usize))]) -> Option<ItemKind> {
    let mut i = usize::from(matches!(
        head,
        [(Token::Punct(b':'), ..), (Token::Punct(b':'), ..), ..]
    )) * 2;
    let (first, line) = match head.get(i)? {
        (Token::Ident(s, _), _, line) => (*s, *line),
        _ => return None,
    };
    loop {
        let (Token::Ident(s, e), ..) = head.get(i)? else {
            return None;
        };
        match head.get(i + 1..i + 3) {
            Some([(Token::Punct(b':'), ..), (Token::Punct(b':'), ..)]) => i += 3,
            _ if matches!(head.get(i + 1), Some((Token::Punct(b'!'), ..))) => {
                let name = &text[*s..*e];
                if name == "macro_rules" {
                    return match head.get(i + 2) {
                        Some((Token::Ident(s, e), ..)) => {
                            let name = &text[*s..*e];
                            Some(ItemKind::MacroRules(
                                name.strip_prefix("r#").unwrap_or(name).to_owned(),
                            ))
                        }
                        _ => None,
                    };
                }
                let column = text[line.1..first].chars().count() + 1;
                return Some(ItemKind::MacroCall(
                    name.strip_prefix("r#").unwrap_or(name).to_owned(),
                    Pos {
                        line: line.0,
                        column: u32::try_from(column).unwrap_or(u32::MAX),
                        start: first,
                        end: *e,
                    },
                ));
            }
            _ => return None,
        }
    }
}
