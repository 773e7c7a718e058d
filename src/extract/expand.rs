//! Expansion of simple `macro_rules!` at item position, by substituting tokens (no code is run).
//!
//! A macro defined in the same file, above the invocation (in the same module or an enclosing one of the
//! file, as `macro_rules!` scoping allows), is expanded when one of its rules matches the invocation with
//! plain metavariables (`$name:ident`, `$value:literal`, `$t:ty`, `$p:path`, `$e:expr`, `$x:tt`) between
//! literal tokens, and its expansion parses as items. Everything else (repetitions `$(...)*`, macros of
//! other files or crates, procedural macros) is left as written: the types it generates stay unseen, and
//! wirecheck compares them by full path.
//!
//! Expanded invocations are replaced in the syntax tree by their items, so every later stage sees them
//! as if written by hand.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use rustc_hash::FxHashMap;
use syn::Item;

/// How deep expansions that invoke other macros are followed.
const MAX_DEPTH: usize = 8;

/// One rule of a `macro_rules!`: its matcher and transcriber.
#[derive(Clone)]
struct Rule {
    matcher: Vec<TokenTree>,
    transcriber: TokenStream,
}

/// The macros in scope, by name.
type Macros = FxHashMap<String, Vec<Rule>>;

/// Expands, in place, every item-position invocation of a simple `macro_rules!` of the file.
pub(super) fn expand_file(mut file: syn::File) -> syn::File {
    expand_items(&mut file.items, &Macros::default(), 0);
    file
}

/// Expands the invocations in `items`, with `outer` the macros of the enclosing modules.
///
/// The definition of a macro whose every invocation in `items` was expanded (at least one) is dropped:
/// what it writes is in the tree now, and a macro that writes `#[wire]` declarations would otherwise be
/// reported as one wirecheck cannot expand.
fn expand_items(items: &mut Vec<Item>, outer: &Macros, depth: usize) {
    let mut macros = outer.clone();
    // Per macro name: (expanded, left as written).
    let mut outcomes: FxHashMap<String, (usize, usize)> = FxHashMap::default();
    let mut i = 0;
    while i < items.len() {
        match &mut items[i] {
            Item::Macro(item) if item.mac.path.is_ident("macro_rules") => {
                if let (Some(ident), Some(rules)) = (&item.ident, rules_of(&item.mac.tokens)) {
                    macros.insert(ident.to_string(), rules);
                }
            }
            Item::Macro(item) if item.ident.is_none() && depth < MAX_DEPTH => {
                let name = item.mac.path.get_ident().map(ToString::to_string);
                let expanded = name
                    .as_ref()
                    .and_then(|name| macros.get(name))
                    .and_then(|rules| expand(rules, &item.mac.tokens));
                if let Some(name) = name {
                    let outcome = outcomes.entry(name).or_default();
                    if expanded.is_some() {
                        outcome.0 += 1;
                    } else {
                        outcome.1 += 1;
                    }
                }
                if let Some(mut generated) = expanded {
                    expand_items(&mut generated, &macros, depth + 1);
                    let count = generated.len();
                    items.splice(i..=i, generated);
                    i += count;
                    continue;
                }
            }
            Item::Mod(module) => {
                if let Some((_, inner)) = &mut module.content {
                    expand_items(inner, &macros, depth);
                }
            }
            _ => {}
        }
        i += 1;
    }
    items.retain(|item| match item {
        Item::Macro(definition) if definition.mac.path.is_ident("macro_rules") => {
            let name = definition.ident.as_ref().map(ToString::to_string);
            !name
                .and_then(|name| outcomes.get(&name))
                .is_some_and(|&(expanded, left)| expanded > 0 && left == 0)
        }
        _ => true,
    });
}

/// The rules of a `macro_rules!` body: `(matcher) => { transcriber }` separated by `;`; `None` when the
/// body has another form.
fn rules_of(body: &TokenStream) -> Option<Vec<Rule>> {
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut rules = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let (
            TokenTree::Group(matcher),
            TokenTree::Punct(eq),
            TokenTree::Punct(gt),
            TokenTree::Group(body),
        ) = (
            tokens.get(at)?,
            tokens.get(at + 1)?,
            tokens.get(at + 2)?,
            tokens.get(at + 3)?,
        )
        else {
            return None;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            return None;
        }
        rules.push(Rule {
            matcher: matcher.stream().into_iter().collect(),
            transcriber: body.stream(),
        });
        at += 4;
        if matches!(tokens.get(at), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            at += 1;
        }
    }
    Some(rules)
}

/// The items of the first rule that matches `input` and whose expansion parses.
fn expand(rules: &[Rule], input: &TokenStream) -> Option<Vec<Item>> {
    let input: Vec<TokenTree> = input.clone().into_iter().collect();
    rules.iter().find_map(|rule| {
        let mut bindings = FxHashMap::default();
        if !matches(&rule.matcher, &input, &mut bindings) {
            return None;
        }
        let tokens = transcribe(rule.transcriber.clone(), &bindings)?;
        syn::parse2::<syn::File>(tokens).ok().map(|file| file.items)
    })
}

/// Whether `input` matches `matcher` whole, binding its metavariables.
fn matches(
    matcher: &[TokenTree],
    input: &[TokenTree],
    bindings: &mut FxHashMap<String, TokenStream>,
) -> bool {
    let (mut m, mut at) = (0, 0);
    while m < matcher.len() {
        if let Some((name, fragment)) = metavariable(matcher, m) {
            let stop = matcher.get(m + 4);
            let Some(taken) = take_fragment(&fragment, &input[at..], stop) else {
                return false;
            };
            let captured: TokenStream = input[at..at + taken].iter().cloned().collect();
            let captured = match fragment.as_str() {
                // rustc passes these on as one invisible group.
                "ty" | "path" | "expr" => {
                    TokenStream::from(TokenTree::Group(Group::new(Delimiter::None, captured)))
                }
                _ => captured,
            };
            bindings.insert(name, captured);
            at += taken;
            m += 4;
            continue;
        }
        let Some(next) = input.get(at) else {
            return false;
        };
        let same = match (&matcher[m], next) {
            (TokenTree::Group(a), TokenTree::Group(b)) => {
                a.delimiter() == b.delimiter()
                    && matches(
                        &a.stream().into_iter().collect::<Vec<_>>(),
                        &b.stream().into_iter().collect::<Vec<_>>(),
                        bindings,
                    )
            }
            (TokenTree::Punct(a), _) if a.as_char() == '$' => return false,
            (a, b) => a.to_string() == b.to_string(),
        };
        if !same {
            return false;
        }
        m += 1;
        at += 1;
    }
    at == input.len()
}

/// `$name:fragment` at `m` of a matcher: the name and the fragment specifier.
fn metavariable(matcher: &[TokenTree], m: usize) -> Option<(String, String)> {
    match (
        matcher.get(m)?,
        matcher.get(m + 1)?,
        matcher.get(m + 2)?,
        matcher.get(m + 3)?,
    ) {
        (
            TokenTree::Punct(dollar),
            TokenTree::Ident(name),
            TokenTree::Punct(colon),
            TokenTree::Ident(fragment),
        ) if dollar.as_char() == '$' && colon.as_char() == ':' => {
            Some((name.to_string(), fragment.to_string()))
        }
        _ => None,
    }
}

/// How many tokens of `input` a fragment takes, up to the matcher's next literal token `stop` (`None`:
/// the fragment cannot start here, or the fragment kind is not supported).
fn take_fragment(fragment: &str, input: &[TokenTree], stop: Option<&TokenTree>) -> Option<usize> {
    match fragment {
        "ident" => matches!(input.first()?, TokenTree::Ident(_)).then_some(1),
        "literal" => match input.first()? {
            TokenTree::Literal(_) => Some(1),
            TokenTree::Punct(minus) if minus.as_char() == '-' => {
                matches!(input.get(1)?, TokenTree::Literal(_)).then_some(2)
            }
            _ => None,
        },
        "tt" | "lifetime" => input.first().map(|_| 1),
        "ty" | "path" | "expr" => {
            let stop = stop.map(ToString::to_string);
            let mut depth = 0usize;
            let mut taken = 0;
            for token in input {
                if let TokenTree::Punct(punct) = token {
                    match punct.as_char() {
                        '<' => depth += 1,
                        '>' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
                if depth == 0 && stop.as_deref() == Some(token.to_string().as_str()) {
                    break;
                }
                taken += 1;
            }
            (taken > 0).then_some(taken)
        }
        _ => None,
    }
}

/// The transcriber with every `$name` replaced by its binding and `$crate` by `crate`; `None` when it
/// names an unbound metavariable or repeats (`$(...)*`).
fn transcribe(
    tokens: TokenStream,
    bindings: &FxHashMap<String, TokenStream>,
) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(token) = iter.next() {
        match token {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => match iter.next()? {
                TokenTree::Ident(name) if name == "crate" => {
                    out.extend([TokenTree::Ident(proc_macro2::Ident::new(
                        "crate",
                        name.span(),
                    ))]);
                }
                TokenTree::Ident(name) => out.extend(bindings.get(&name.to_string())?.clone()),
                _ => return None,
            },
            TokenTree::Group(group) => {
                let inner = transcribe(group.stream(), bindings)?;
                let mut copy = Group::new(group.delimiter(), inner);
                copy.set_span(group.span());
                out.extend([TokenTree::Group(copy)]);
            }
            other => out.extend([other]),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    #[test]
    fn rules_of_a_body() {
        let body: TokenStream = "(a) => { x }; ($n:ident) => { y }".parse().unwrap();
        assert_eq!(rules_of(&body).map(|rules| rules.len()), Some(2));
        let bad: TokenStream = "a => b".parse().unwrap();
        assert!(rules_of(&bad).is_none());
    }

    fn expanded(src: &str) -> String {
        let file = expand_file(syn::parse_file(src).unwrap());
        file.items
            .iter()
            .map(|item| item.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn simple_macros_are_expanded_in_place() {
        let out = expanded(
            "macro_rules! id_type { ($name:ident, $inner:ty) => { #[derive(Serialize)] pub struct $name(pub $inner); }; }\n\
             id_type!(JobId, Vec<u64>);\n\
             mod inner { id_type!(Other, String); }",
        );
        assert!(
            out.contains("pub struct JobId (pub Vec < u64 >) ;"),
            "{out}"
        );
        assert!(out.contains("pub struct Other (pub String) ;"), "{out}");
        assert!(!out.contains("id_type !"), "{out}");
        // A macro left unexpanded somewhere keeps its definition.
        let out = expanded(
            "macro_rules! gen { ($name:ident) => { pub struct $name; }; }\ngen!(A);\ngen!(1);",
        );
        assert!(out.contains("macro_rules ! gen"), "{out}");
    }

    #[test]
    fn the_first_matching_rule_and_nested_invocations() {
        let out = expanded(
            "macro_rules! level { (str $name:ident) => { pub enum $name { A } }; ($name:ident = $value:literal) => { pub const $name: u8 = $value; level!(str $name); }; }\n\
             level!(Lvl = 3);",
        );
        assert!(out.contains("pub const Lvl : u8 = 3 ;"), "{out}");
        assert!(out.contains("pub enum Lvl { A }"), "{out}");
    }

    #[test]
    fn what_is_not_simple_is_left_as_written() {
        for src in [
            // A repetition.
            "macro_rules! many { ($($name:ident),*) => { $(pub struct $name;)* }; }\nmany!(A, B);",
            // Defined below the invocation.
            "gen!(A);\nmacro_rules! gen { ($name:ident) => { pub struct $name; }; }",
            // No rule matches.
            "macro_rules! gen { ($name:ident) => { pub struct $name; }; }\ngen!(1);",
            // Not items.
            "macro_rules! gen { ($name:ident) => { 1 + 1 }; }\ngen!(A);",
            // Another file's macro.
            "other_file!(A);",
        ] {
            let written = syn::parse_file(src).unwrap();
            let file = expand_file(written.clone());
            assert_eq!(file.items.len(), written.items.len(), "{src}");
            let invocations = |file: &syn::File| {
                file.items
                    .iter()
                    .filter(|item| matches!(item, Item::Macro(m) if m.ident.is_none()))
                    .count()
            };
            assert_eq!(invocations(&file), 1, "{src}");
            assert_eq!(invocations(&written), 1, "{src}");
        }
    }
}
