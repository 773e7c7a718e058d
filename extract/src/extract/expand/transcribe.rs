//! The transcriber of a `macro_rules!` rule: its tokens with every `$name` replaced by what the
//! matcher bound, each `$( ... ) sep? op` repeated once per iteration of the metavariables inside it
//! (which must agree on the count, as rustc requires), and `$crate` written `crate` (a crate-local
//! macro's own crate).

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};

use super::matcher::{Bindings, Bound, repetition_tail};

/// Why a transcription failed.
pub(super) type Failure = String;

/// The transcription of `tokens` with `bindings`.
pub(super) fn transcribe(tokens: TokenStream, bindings: &Bindings) -> Result<TokenStream, Failure> {
    let mut out = TokenStream::new();
    write(tokens, bindings, &[], &mut out)?;
    Ok(out)
}

/// Writes `tokens` to `out`, inside the iterations `indices` of the enclosing repetitions.
fn write(
    tokens: TokenStream,
    bindings: &Bindings,
    indices: &[usize],
    out: &mut TokenStream,
) -> Result<(), Failure> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    while at < tokens.len() {
        let token = &tokens[at];
        at += 1;
        match token {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => match tokens.get(at) {
                Some(TokenTree::Ident(name)) if name == "crate" => {
                    out.extend([TokenTree::Ident(Ident::new("crate", name.span()))]);
                    at += 1;
                }
                Some(TokenTree::Ident(name)) => {
                    match bindings.get(name.to_string().trim_start_matches("r#")) {
                        Some(bound) => write_bound(&name.to_string(), bound, indices, out)?,
                        // Not the matcher's: written as is, as rustc does (a macro that defines a
                        // macro writes the inner one's `$x` so).
                        None => out.extend([token.clone(), TokenTree::Ident(name.clone())]),
                    }
                    at += 1;
                }
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
                    let (separator, _) = repetition_tail(&tokens[at + 1..])?;
                    at += 1 + separator.len() + 1;
                    write_repetition(group.stream(), &separator, bindings, indices, out)?;
                }
                // A `$` rustc passes through (`$$` is unstable): written as is.
                _ => out.extend([token.clone()]),
            },
            TokenTree::Group(group) => {
                let mut inner = TokenStream::new();
                write(group.stream(), bindings, indices, &mut inner)?;
                let mut copy = Group::new(group.delimiter(), inner);
                copy.set_span(group.span());
                out.extend([TokenTree::Group(copy)]);
            }
            other => out.extend([other.clone()]),
        }
    }
    Ok(())
}

/// Writes what `$name`, bound to `bound`, is in the iterations `indices`.
fn write_bound(
    name: &str,
    bound: &Bound,
    indices: &[usize],
    out: &mut TokenStream,
) -> Result<(), Failure> {
    match at_depth(bound, indices) {
        Some(Bound::One(tokens, fragment)) => {
            if fragment.opaque() {
                let group = Group::new(Delimiter::None, tokens.clone());
                out.extend([TokenTree::Group(group)]);
            } else {
                out.extend(tokens.clone());
            }
            Ok(())
        }
        Some(Bound::Many(_)) => Err(format!(
            "`${name}` repeats in the matcher but not in the transcriber"
        )),
        None => Err(format!("`${name}` is out of its repetition")),
    }
}

/// The binding `bound` in the iterations `indices`, descending only as deep as it repeats.
fn at_depth<'b>(bound: &'b Bound, indices: &[usize]) -> Option<&'b Bound> {
    match (bound, indices.split_first()) {
        (Bound::Many(each), Some((first, rest))) => at_depth(each.get(*first)?, rest),
        (bound, _) => Some(bound),
    }
}

/// Writes a repetition once per iteration of the metavariables inside it that repeat at this depth.
fn write_repetition(
    inner: TokenStream,
    separator: &[TokenTree],
    bindings: &Bindings,
    indices: &[usize],
    out: &mut TokenStream,
) -> Result<(), Failure> {
    let mut count: Option<usize> = None;
    for name in metavariables(inner.clone()) {
        let Some(bound) = bindings.get(&name) else {
            continue;
        };
        if let Some(Bound::Many(each)) = at_depth(bound, indices) {
            match count {
                Some(n) if n != each.len() => {
                    return Err(format!(
                        "metavariables repeat {n} and {} times in one repetition",
                        each.len()
                    ));
                }
                _ => count = Some(each.len()),
            }
        }
    }
    let Some(count) = count else {
        return Err("a repetition in the transcriber repeats no metavariable".to_owned());
    };
    for index in 0..count {
        if index > 0 {
            out.extend(separator.iter().cloned());
        }
        let nested = [indices, &[index]].concat();
        write(inner.clone(), bindings, &nested, out)?;
    }
    Ok(())
}

/// The names written `$name` in `tokens`, at any depth.
fn metavariables(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut after_dollar = false;
    for token in tokens {
        match &token {
            TokenTree::Ident(name) if after_dollar => {
                out.push(name.to_string().trim_start_matches("r#").to_owned());
            }
            TokenTree::Group(group) => out.extend(metavariables(group.stream())),
            _ => {}
        }
        after_dollar = matches!(&token, TokenTree::Punct(p) if p.as_char() == '$');
    }
    out
}
