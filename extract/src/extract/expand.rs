//! Expansion of a file's own `macro_rules!` at item position, by matching and substituting tokens as
//! rustc does (no code is run). See `docs/macros.md`.
//!
//! A macro defined in the same file, above the invocation (in the same module, an enclosing one of the
//! file, or an inline module marked `#[macro_use]` before it, as `macro_rules!` scoping allows; also
//! named `crate::name!`, which `$crate::name!` becomes), is expanded by the first of its rules whose
//! matcher matches the invocation (`matcher`: every fragment specifier, repetitions with their
//! separators, nested); its transcriber is written with the bindings (`transcribe`: repetitions,
//! `$crate` as `crate`), and what it writes must parse as items. Expanded invocations are replaced in
//! the syntax tree by their items, so every later stage sees them as if written by hand; an invocation
//! in what a macro writes is expanded in turn, to rustc's recursion limit.
//!
//! An invocation of such a macro that is not expanded (no rule matches, a rule wirecheck cannot read,
//! an expansion that is not items, the recursion limit) stays as written and is listed with why
//! ([`Unexpanded`]): the notes that name the macros near a type not found say it. Macros of other files
//! or crates and procedural macros are left as written.

mod matcher;
mod transcribe;

#[cfg(test)]
mod tests;

use proc_macro2::{LineColumn, TokenStream, TokenTree};
use rustc_hash::{FxHashMap, FxHashSet};
use syn::Item;

use matcher::Matcher;

/// How deep expansions that invoke other macros are followed: rustc's default `recursion_limit`.
const MAX_DEPTH: usize = 128;

/// How many invocations one file's expansion may expand in all (a macro that doubles what it writes at
/// each level must not hang the check).
const MAX_EXPANSIONS: usize = 10_000;

/// A file's syntax tree after expansion, with the invocations of its own macros left as written.
pub(super) struct Expanded {
    pub(super) file: syn::File,
    pub(super) unexpanded: Vec<Unexpanded>,
}

/// An item-position invocation of a `macro_rules!` of the file that was not expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Unexpanded {
    /// The macro's name.
    pub(super) name: String,
    /// Where the invocation's path starts (proc_macro2's line, from 1, and column).
    pub(super) at: (usize, usize),
    /// Why it was not expanded.
    pub(super) reason: String,
}

impl Expanded {
    /// Why the invocation whose path starts at `start` was not expanded, if it is one of the file's
    /// own macros left as written.
    pub(super) fn unexpanded_at(&self, start: LineColumn) -> Option<&Unexpanded> {
        self.unexpanded
            .iter()
            .find(|unexpanded| unexpanded.at == (start.line, start.column))
    }
}

/// One rule of a `macro_rules!`: its matcher (or why it cannot be read) and transcriber.
#[derive(Clone)]
struct Rule {
    matcher: Result<Vec<Matcher>, String>,
    transcriber: TokenStream,
}

/// The macros in scope, by name: their rules, or why the body cannot be read.
type Macros = FxHashMap<String, Result<Vec<Rule>, String>>;

/// The state of one file's expansion.
#[derive(Default)]
struct Expansion {
    /// One per place (an invocation a macro writes fails alike at every expansion that writes it).
    unexpanded: Vec<Unexpanded>,
    /// The names of the macros in `unexpanded`.
    left: FxHashSet<String>,
    expansions: usize,
}

/// Expands, in place, every item-position invocation of a `macro_rules!` of the file.
pub(super) fn expand_file(mut file: syn::File) -> Expanded {
    let mut expansion = Expansion::default();
    expansion.items(&mut file.items, &Macros::default(), 0);
    Expanded {
        file,
        unexpanded: expansion.unexpanded,
    }
}

impl Expansion {
    /// Expands the invocations in `items`, with `outer` the macros in scope before them; returns the
    /// macros in scope after them.
    ///
    /// The definition of a macro whose every invocation in `items` was expanded (at least one) is
    /// dropped: what it writes is in the tree now, and a macro that writes `#[wire]` declarations
    /// would otherwise be reported as one wirecheck cannot expand.
    fn items(&mut self, items: &mut Vec<Item>, outer: &Macros, depth: usize) -> Macros {
        let mut macros = outer.clone();
        // Per macro name: (expanded, left as written).
        let mut outcomes: FxHashMap<String, (usize, usize)> = FxHashMap::default();
        let mut i = 0;
        while i < items.len() {
            match &mut items[i] {
                Item::Macro(item) if item.mac.path.is_ident("macro_rules") => {
                    if let Some(ident) = &item.ident {
                        let name = ident.to_string().trim_start_matches("r#").to_owned();
                        macros.insert(name, rules_of(&item.mac.tokens));
                    }
                }
                Item::Macro(item) if item.ident.is_none() => {
                    let Some(name) = macro_name(&item.mac.path) else {
                        i += 1;
                        continue;
                    };
                    let start = syn::spanned::Spanned::span(&item.mac.path).start();
                    let Some(expanded) = macros
                        .get(&name)
                        .map(|rules| self.expand(rules, &item.mac.tokens, depth))
                    else {
                        i += 1;
                        continue;
                    };
                    let outcome = outcomes.entry(name.clone()).or_default();
                    match expanded {
                        Ok(mut generated) => {
                            outcome.0 += 1;
                            macros = self.items(&mut generated, &macros, depth + 1);
                            let count = generated.len();
                            items.splice(i..=i, generated);
                            i += count;
                            continue;
                        }
                        Err(reason) => {
                            outcome.1 += 1;
                            let at = (start.line, start.column);
                            if !self.unexpanded.iter().any(|left| left.at == at) {
                                self.left.insert(name.clone());
                                self.unexpanded.push(Unexpanded { name, at, reason });
                            }
                        }
                    }
                }
                Item::Mod(module) => {
                    let macro_use = module.attrs.iter().any(|a| a.path().is_ident("macro_use"));
                    if let Some((_, inner)) = &mut module.content {
                        let after = self.items(inner, &macros, depth);
                        if macro_use {
                            macros = after;
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        // A macro left as written anywhere in the file so far (at any depth) keeps its definition.
        for (name, outcome) in &mut outcomes {
            if self.left.contains(name) {
                outcome.1 += 1;
            }
        }
        drop_expanded_definitions(items, &outcomes);
        macros
    }

    /// The items the first matching rule of a macro writes for the invocation `input`, or why there
    /// are none.
    fn expand(
        &mut self,
        rules: &Result<Vec<Rule>, String>,
        input: &TokenStream,
        depth: usize,
    ) -> Result<Vec<Item>, String> {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "the recursion limit ({MAX_DEPTH} nested expansions) is reached"
            ));
        }
        if self.expansions >= MAX_EXPANSIONS {
            return Err(format!(
                "the file's expansions exceed {MAX_EXPANSIONS} invocations"
            ));
        }
        self.expansions += 1;
        let rules = rules.as_ref().map_err(Clone::clone)?;
        let input: Vec<TokenTree> = input.clone().into_iter().collect();
        for (index, rule) in rules.iter().enumerate() {
            // rustc takes the first rule that matches: one not read leaves the choice unknown.
            let matcher = rule
                .matcher
                .as_ref()
                .map_err(|why| format!("its rule {} is not read: {why}", index + 1))?;
            let Some(bindings) = matcher::match_all(matcher, &input) else {
                continue;
            };
            let tokens = transcribe::transcribe(rule.transcriber.clone(), &bindings)
                .map_err(|why| format!("its rule {} does not transcribe: {why}", index + 1))?;
            return syn::parse2::<syn::File>(tokens)
                .map(|file| file.items)
                .map_err(|e| format!("what its rule {} writes is not items: {e}", index + 1));
        }
        Err("no rule of its `macro_rules!` matches".to_owned())
    }
}

/// Drops from `items` the definitions of the macros whose every invocation was expanded.
fn drop_expanded_definitions(items: &mut Vec<Item>, outcomes: &FxHashMap<String, (usize, usize)>) {
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

/// The name a `macro_rules!` invocation's path names: `name!`, or `crate::name!` (a
/// `#[macro_export]`ed macro, and what `$crate::name!` is written as).
fn macro_name(path: &syn::Path) -> Option<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = match segments.as_slice() {
        [name] if path.leading_colon.is_none() => name,
        [root, name] if root == "crate" && path.leading_colon.is_none() => name,
        _ => return None,
    };
    Some(name.trim_start_matches("r#").to_owned())
}

/// The rules of a `macro_rules!` body: `(matcher) => { transcriber }` separated by `;`; `Err` when the
/// body has another form.
fn rules_of(body: &TokenStream) -> Result<Vec<Rule>, String> {
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut rules = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let (
            Some(TokenTree::Group(matcher)),
            Some(TokenTree::Punct(eq)),
            Some(TokenTree::Punct(gt)),
            Some(TokenTree::Group(body)),
        ) = (
            tokens.get(at),
            tokens.get(at + 1),
            tokens.get(at + 2),
            tokens.get(at + 3),
        )
        else {
            return Err("its body is not `(matcher) => { ... }` rules".to_owned());
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            return Err("its body is not `(matcher) => { ... }` rules".to_owned());
        }
        rules.push(Rule {
            matcher: matcher::parse(matcher.stream()),
            transcriber: body.stream(),
        });
        at += 4;
        if matches!(tokens.get(at), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            at += 1;
        }
    }
    Ok(rules)
}
