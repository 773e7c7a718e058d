//! The matcher of a `macro_rules!` rule: read from its tokens, and matched against an invocation's
//! tokens as rustc matches them: literal tokens compared one by one, delimited groups matched whole,
//! each metavariable taking one fragment of its kind (parsed by syn, as rustc's parser takes it), and
//! repetitions (`$(...) sep? op`) taken greedily, an iteration at a time, while the next one matches.
//! rustc reports a matcher that is ambiguous at a repetition as an error, so for a macro that compiles,
//! taking an iteration whenever one matches is what rustc does.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use rustc_hash::FxHashMap;
use syn::parse::{Parse, ParseStream, Parser};

/// A fragment specifier (`$name:ident`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fragment {
    Ident,
    Lifetime,
    Literal,
    Tt,
    Ty,
    Path,
    Expr,
    Pat,
    PatParam,
    Vis,
    Meta,
    Block,
    Item,
    Stmt,
}

impl Fragment {
    /// The fragment a specifier names; `None` for one rustc does not know.
    fn of(name: &str) -> Option<Fragment> {
        Some(match name {
            "ident" => Fragment::Ident,
            "lifetime" => Fragment::Lifetime,
            "literal" => Fragment::Literal,
            "tt" => Fragment::Tt,
            "ty" => Fragment::Ty,
            "path" => Fragment::Path,
            "expr" | "expr_2021" => Fragment::Expr,
            "pat" => Fragment::Pat,
            "pat_param" => Fragment::PatParam,
            "vis" => Fragment::Vis,
            "meta" => Fragment::Meta,
            "block" => Fragment::Block,
            "item" => Fragment::Item,
            "stmt" => Fragment::Stmt,
            _ => return None,
        })
    }

    /// Whether rustc hands a captured fragment on as one opaque token (an invisible group), so that
    /// `$e * 2` keeps the captured expression's precedence.
    pub(super) fn opaque(self) -> bool {
        matches!(self, Fragment::Ty | Fragment::Path | Fragment::Expr)
    }
}

/// How often a repetition repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kleene {
    /// `*`: any number of times.
    Any,
    /// `+`: at least once.
    Some,
    /// `?`: at most once.
    Optional,
}

impl Kleene {
    /// The operator a punctuation character is.
    pub(super) fn of(token: &TokenTree) -> Option<Kleene> {
        match token {
            TokenTree::Punct(p) if p.as_char() == '*' => Some(Kleene::Any),
            TokenTree::Punct(p) if p.as_char() == '+' => Some(Kleene::Some),
            TokenTree::Punct(p) if p.as_char() == '?' => Some(Kleene::Optional),
            _ => None,
        }
    }
}

/// One element of a matcher.
#[derive(Clone, Debug)]
pub(super) enum Matcher {
    /// A token matched as written (an identifier, a punctuation character, a literal).
    Token(TokenTree),
    /// A delimited group, matched whole.
    Group(Delimiter, Vec<Matcher>),
    /// `$name:fragment`.
    Var(String, Fragment),
    /// `$( ... ) sep? op`.
    Repeat {
        inner: Vec<Matcher>,
        separator: Vec<TokenTree>,
        kleene: Kleene,
    },
}

/// What a metavariable is bound to: one fragment, or one binding per iteration of each repetition it is
/// in.
#[derive(Clone, Debug)]
pub(super) enum Bound {
    One(TokenStream, Fragment),
    Many(Vec<Bound>),
}

/// The bindings of a matched rule, by metavariable name.
pub(super) type Bindings = FxHashMap<String, Bound>;

/// The matcher written in `tokens`; `Err` says why it is not one rustc accepts.
pub(super) fn parse(tokens: TokenStream) -> Result<Vec<Matcher>, String> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let token = &tokens[at];
        at += 1;
        match token {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => {
                let (element, taken) = after_dollar(&tokens[at..])?;
                out.push(element);
                at += taken;
            }
            TokenTree::Group(group) => {
                out.push(Matcher::Group(group.delimiter(), parse(group.stream())?));
            }
            other => out.push(Matcher::Token(other.clone())),
        }
    }
    Ok(out)
}

/// The element that `tokens`, after a `$`, start, and how many tokens it takes.
fn after_dollar(tokens: &[TokenTree]) -> Result<(Matcher, usize), String> {
    match tokens {
        [
            TokenTree::Ident(name),
            TokenTree::Punct(colon),
            TokenTree::Ident(fragment),
            ..,
        ] if colon.as_char() == ':' => {
            let kind = Fragment::of(&fragment.to_string())
                .ok_or_else(|| format!("the fragment specifier `{fragment}` is not supported"))?;
            let name = name.to_string();
            Ok((
                Matcher::Var(name.trim_start_matches("r#").to_owned(), kind),
                3,
            ))
        }
        [TokenTree::Ident(name), ..] => Err(format!("`${name}` has no fragment specifier")),
        [TokenTree::Group(group), rest @ ..] if group.delimiter() == Delimiter::Parenthesis => {
            let inner = parse(group.stream())?;
            let (separator, kleene) = repetition_tail(rest)?;
            let taken = 1 + separator.len() + 1;
            Ok((
                Matcher::Repeat {
                    inner,
                    separator,
                    kleene,
                },
                taken,
            ))
        }
        _ => Err("a `$` that starts neither a metavariable nor a repetition".to_owned()),
    }
}

/// The separator and the operator after a repetition's group: `*`, `,*`, `;+`, `=>?`.
pub(super) fn repetition_tail(rest: &[TokenTree]) -> Result<(Vec<TokenTree>, Kleene), String> {
    let missing = || "a repetition without `*`, `+` or `?`".to_owned();
    let first = rest.first().ok_or_else(missing)?;
    if let Some(kleene) = Kleene::of(first) {
        // `$(...)?*` would be `?` as a separator; rustc reads `?` as the operator there too.
        return Ok((Vec::new(), kleene));
    }
    if let Some(kleene) = rest.get(1).and_then(Kleene::of) {
        return Ok((vec![first.clone()], kleene));
    }
    // A separator of two punctuation characters written together (`=>`, `::`).
    match (first, rest.get(1), rest.get(2).and_then(Kleene::of)) {
        (TokenTree::Punct(a), Some(b @ TokenTree::Punct(_)), Some(kleene))
            if a.spacing() == Spacing::Joint =>
        {
            Ok((vec![first.clone(), b.clone()], kleene))
        }
        _ => Err(missing()),
    }
}

/// The bindings of `matcher` when it matches all of `input`.
pub(super) fn match_all(matcher: &[Matcher], input: &[TokenTree]) -> Option<Bindings> {
    let mut bindings = Bindings::default();
    let taken = match_prefix(matcher, input, &mut bindings)?;
    (taken == input.len()).then_some(bindings)
}

/// How many tokens of `input` `matcher` takes from its start, binding its metavariables; `None` when
/// it does not match there.
fn match_prefix(
    matcher: &[Matcher],
    input: &[TokenTree],
    bindings: &mut Bindings,
) -> Option<usize> {
    let mut at = 0;
    for element in matcher {
        match element {
            Matcher::Token(token) => {
                if !same_token(token, input.get(at)?) {
                    return None;
                }
                at += 1;
            }
            Matcher::Group(delimiter, inner) => {
                let TokenTree::Group(group) = input.get(at)? else {
                    return None;
                };
                if group.delimiter() != *delimiter {
                    return None;
                }
                let tokens: Vec<TokenTree> = group.stream().into_iter().collect();
                if match_prefix(inner, &tokens, bindings)? != tokens.len() {
                    return None;
                }
                at += 1;
            }
            Matcher::Var(name, fragment) => {
                let taken = take_fragment(*fragment, &input[at..])?;
                let captured = input[at..at + taken].iter().cloned().collect();
                bindings.insert(name.clone(), Bound::One(captured, *fragment));
                at += taken;
            }
            Matcher::Repeat {
                inner,
                separator,
                kleene,
            } => at += repeat(inner, separator, *kleene, &input[at..], bindings)?,
        }
    }
    Some(at)
}

/// Matches a repetition at the start of `input`: iterations while the next one (after the separator)
/// matches; binds each metavariable inside to the list of its iterations' bindings.
fn repeat(
    inner: &[Matcher],
    separator: &[TokenTree],
    kleene: Kleene,
    input: &[TokenTree],
    bindings: &mut Bindings,
) -> Option<usize> {
    let mut iterations: Vec<Bindings> = Vec::new();
    let mut at = 0;
    while !(kleene == Kleene::Optional && iterations.len() == 1) {
        let mut start = at;
        if !iterations.is_empty() && !separator.is_empty() {
            let after = input.get(at..at + separator.len());
            if !after
                .is_some_and(|tokens| tokens.iter().zip(separator).all(|(t, s)| same_token(s, t)))
            {
                break;
            }
            start += separator.len();
        }
        let mut found = Bindings::default();
        match match_prefix(inner, &input[start..], &mut found) {
            // rustc rejects a repetition that can match nothing; stop rather than loop.
            Some(0) => return None,
            Some(taken) => {
                iterations.push(found);
                at = start + taken;
            }
            None => break,
        }
    }
    if kleene == Kleene::Some && iterations.is_empty() {
        return None;
    }
    for name in names(inner) {
        let each = iterations
            .iter_mut()
            .map(|found| found.remove(&name).unwrap_or(Bound::Many(Vec::new())))
            .collect();
        bindings.insert(name, Bound::Many(each));
    }
    Some(at)
}

/// The metavariables a matcher binds, at any depth.
fn names(matcher: &[Matcher]) -> Vec<String> {
    let mut out = Vec::new();
    for element in matcher {
        match element {
            Matcher::Var(name, _) => out.push(name.clone()),
            Matcher::Group(_, inner) | Matcher::Repeat { inner, .. } => out.extend(names(inner)),
            Matcher::Token(_) => {}
        }
    }
    out
}

/// Whether the input token `token` is the matcher's literal token `expected` (punctuation by its
/// character: rustc compares the characters, and proc_macro2 splits `=>` into two).
fn same_token(expected: &TokenTree, token: &TokenTree) -> bool {
    match (expected, token) {
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// How many tokens at the start of `input` a fragment takes; `None` when it cannot start there.
pub(super) fn take_fragment(fragment: Fragment, input: &[TokenTree]) -> Option<usize> {
    take(fragment, input, true)
}

/// [`take_fragment`] without [`parsed`]'s window: what the window must not change.
#[cfg(test)]
pub(super) fn take_fragment_whole(fragment: Fragment, input: &[TokenTree]) -> Option<usize> {
    take(fragment, input, false)
}

/// [`take_fragment`], with syn's fragments parsed in a window first when `window`.
fn take(fragment: Fragment, input: &[TokenTree], window: bool) -> Option<usize> {
    match fragment {
        Fragment::Tt => input.first().map(|_| 1),
        Fragment::Ident => match input.first()? {
            TokenTree::Ident(ident) if ident != "_" => Some(1),
            _ => None,
        },
        Fragment::Lifetime => match input {
            [TokenTree::Punct(quote), TokenTree::Ident(_), ..]
                if quote.as_char() == '\'' && quote.spacing() == Spacing::Joint =>
            {
                Some(2)
            }
            _ => None,
        },
        Fragment::Literal => match input {
            [TokenTree::Literal(_), ..] => Some(1),
            [TokenTree::Ident(word), ..] if word == "true" || word == "false" => Some(1),
            [TokenTree::Punct(minus), TokenTree::Literal(_), ..] if minus.as_char() == '-' => {
                Some(2)
            }
            _ => None,
        },
        Fragment::Vis => parsed(input, syn::Visibility::parse, window),
        Fragment::Ty => non_empty(parsed(input, syn::Type::parse, window)),
        Fragment::Path => non_empty(parsed(input, syn::Path::parse, window)),
        Fragment::Expr => non_empty(parsed(input, syn::Expr::parse, window)),
        Fragment::Pat => non_empty(parsed(
            input,
            syn::Pat::parse_multi_with_leading_vert,
            window,
        )),
        Fragment::PatParam => non_empty(parsed(input, syn::Pat::parse_single, window)),
        Fragment::Meta => non_empty(parsed(input, syn::Meta::parse, window)),
        Fragment::Block => non_empty(parsed(input, syn::Block::parse, window)),
        Fragment::Item => non_empty(parsed(input, syn::Item::parse, window)),
        Fragment::Stmt => {
            let taken = non_empty(parsed(input, syn::Stmt::parse, window))?;
            // rustc's `stmt` stops before the `;` that ends it.
            let ends_in_semi =
                matches!(&input[taken - 1], TokenTree::Punct(semi) if semi.as_char() == ';');
            non_empty(Some(taken - usize::from(ends_in_semi)))
        }
    }
}

/// `taken`, unless it is nothing.
fn non_empty(taken: Option<usize>) -> Option<usize> {
    taken.filter(|&taken| taken > 0)
}

/// How many of the tokens of `input` syn's `parse` takes from its start.
///
/// syn copies every token it is given, so a fragment in a long repetition would cost the rest of the
/// invocation each time: it is parsed first in a window that ends where no fragment parsed here can
/// go on (a `,` or `=>` outside `<...>`, or just after a `;`), and in the whole input only when it does
/// not parse there (a window cut inside generics that `<`/`>` counting missed, say).
fn parsed<T>(
    input: &[TokenTree],
    parse: fn(ParseStream<'_>) -> syn::Result<T>,
    window: bool,
) -> Option<usize> {
    let end = window_end(input);
    if window
        && end < input.len()
        && let Some(taken) = parsed_whole(&input[..end], parse)
    {
        return Some(taken);
    }
    parsed_whole(input, parse)
}

/// [`parsed`] on all of `input`.
fn parsed_whole<T>(
    input: &[TokenTree],
    parse: fn(ParseStream<'_>) -> syn::Result<T>,
) -> Option<usize> {
    let stream: TokenStream = input.iter().cloned().collect();
    let rest = (|stream: ParseStream<'_>| {
        parse(stream)?;
        stream.parse::<TokenStream>()
    })
    .parse2(stream)
    .ok()?;
    input.len().checked_sub(rest.into_iter().count())
}

/// Where [`parsed`]'s window ends: before the first `,` or `=>` at `<...>` depth 0, or after the first
/// `;`; the input's length when there is none.
fn window_end(input: &[TokenTree]) -> usize {
    let mut depth = 0usize;
    let mut at = 0;
    while at < input.len() {
        let TokenTree::Punct(punct) = &input[at] else {
            at += 1;
            continue;
        };
        let joined_with_gt = punct.spacing() == Spacing::Joint
            && matches!(input.get(at + 1), Some(TokenTree::Punct(next)) if next.as_char() == '>');
        match punct.as_char() {
            ';' => return at + 1,
            ',' if depth == 0 => return at,
            '=' if joined_with_gt && depth == 0 => return at,
            // `=>` inside generics, `->`: the `>` closes nothing.
            '=' | '-' if joined_with_gt => at += 1,
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    input.len()
}
