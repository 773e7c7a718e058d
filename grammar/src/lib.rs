//! The `#[wire(...)]` attribute grammar, defined once and used by both `wirecheck-macros` (to generate
//! impls and compile errors) and the `wirecheck` checker (to read the same declarations from source).
//!
//! This crate is an implementation detail of wirecheck; its API may change in any release.
//!
//! The keywords (`kind = "request"`, `upgrade`, `format`) are those of `wirecheck-vocab`, which the runtime
//! re-exports too: [`runtime_path`] names a parsed value in the code the derives generate.
//!
//! Parsing collects every error of an item (serde's `Ctxt` pattern): [`parse_protocol`], [`parse_message`]
//! and [`parse_member`] return all of them combined into one [`syn::Error`], each spanned on the offending
//! token.
//!
//! Each `key = value` entry is read up to its `,` before its value is parsed, so a bad value is one error on
//! its own tokens and never derails the keys after it. String values are string literals; `protocol`,
//! `responds` and `streams` are type paths, generic arguments included (`streams = Reply<T>`). Values
//! passed in by `macro_rules!` (`$name:literal`, `$response:path`, ...) arrive wrapped in invisible groups,
//! which are looked through.

use std::fmt;

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{Attribute, LitStr, Path};
use wirecheck_vocab::rules::RuleId;
pub use wirecheck_vocab::{Format, Keyword, Kind, ResponseMode, Upgrade};

/// A parsed value with the span of the tokens it came from.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    pub value: T,
    /// Where the value was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// The attribute's name: `#[wire(...)]`.
pub const ATTRIBUTE: &str = "wire";

/// The keys accepted on a protocol marker type.
pub const PROTOCOL_KEYS: &[&str] = &["name", "version", "min_compatible", "upgrade", "format"];
/// The keys accepted on a message type.
pub const MESSAGE_KEYS: &[&str] = &[
    "protocol", "topic", "kind", "responds", "streams", "since", "allow", "reason",
];
/// The keys accepted on a field or an enum variant.
pub const MEMBER_KEYS: &[&str] = &["since", "allow", "reason"];
/// The keys accepted on a type a message reaches (`#[derive(Wire)]`).
pub const TYPE_KEYS: &[&str] = &["as"];

/// The start of the message of an unknown rule id in `allow(...)` (see [`is_unknown_rule_id`]).
const UNKNOWN_RULE_ID: &str = "unknown rule id";

/// `#[wire(...)]` on a `#[derive(Protocol)]` type.
#[derive(Debug, Clone)]
pub struct ProtocolAttrs {
    /// `name = "sched"`.
    pub name: Spanned<String>,
    /// `version = "0.88.0"`.
    pub version: Spanned<semver::Version>,
    /// `min_compatible = "0.87.0"`.
    pub min_compatible: Option<Spanned<semver::Version>>,
    /// `upgrade = "..."`, default any-order.
    pub upgrade: Upgrade,
    /// `format = "..."`, default json.
    pub format: Format,
}

/// A suppression: `allow(rule, ...)` with its `reason = "..."`.
#[derive(Debug, Clone, Default)]
pub struct Allow {
    /// The rule ids allowed.
    pub rules: Vec<Spanned<String>>,
    /// Why (required whenever `allow` is present).
    pub reason: Option<Spanned<String>>,
}

/// `#[wire(...)]` on a `#[derive(Message)]` type.
#[derive(Clone)]
pub struct MessageAttrs {
    /// `protocol = Path`: the protocol marker type.
    pub protocol: Path,
    /// `topic = "sched.alloc"`.
    pub topic: Spanned<String>,
    /// `kind = "request"`.
    pub kind: Spanned<Kind>,
    /// `responds = Path`: the single response type of a request.
    pub responds: Option<Path>,
    /// `streams = Path`: the streamed response type of a request.
    pub streams: Option<Path>,
    /// `since = "0.56.0"`.
    pub since: Option<Spanned<semver::Version>>,
    /// `allow(...)` + `reason`.
    pub allow: Allow,
}

/// `#[wire(...)]` on a field or an enum variant.
#[derive(Debug, Clone, Default)]
pub struct MemberAttrs {
    /// `since = "0.56.0"`.
    pub since: Option<Spanned<semver::Version>>,
    /// `allow(...)` + `reason`.
    pub allow: Allow,
}

/// `#[wire(...)]` on a type a message reaches (`#[derive(Wire)]`).
#[derive(Clone, Default)]
pub struct TypeAttrs {
    /// `as = String`: the type's wire shape is the one of this type (its serde impls are written by hand or
    /// generated, and write what this type writes).
    pub as_type: Option<syn::Type>,
}

impl fmt::Debug for TypeAttrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypeAttrs")
            .field(
                "as_type",
                &self
                    .as_type
                    .as_ref()
                    .map(|ty| ty.to_token_stream().to_string()),
            )
            .finish()
    }
}

/// Collects every error found while parsing one item.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn at(&mut self, span: Span, message: impl fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error spanning `tokens` from the first to the last (rustc underlines the whole range).
    fn spanned(&mut self, tokens: impl ToTokens, message: impl fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn finish<T>(self, value: T) -> Result<T, syn::Error> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}

/// Whether an attribute is `#[wire(...)]`.
pub fn is_wire_attr(attr: &Attribute) -> bool {
    attr.path().is_ident(ATTRIBUTE)
}

/// Walks every `key = value` / `key(...)` of every `#[wire(...)]` attribute, reporting unknown keys.
///
/// `read_key` reads one accepted key. Whatever it does, the rest of that key's entry (up to the next `,`) is
/// skipped afterwards, so a bad value never derails the keys after it. Returns the keys written (accepted
/// or not, valid values or not), for the "missing key" checks.
fn for_each_key(
    attrs: &[Attribute],
    accepted: &[&str],
    what: &str,
    errors: &mut Errors,
    mut read_key: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) -> Vec<String> {
    let mut seen = Vec::new();
    for attr in attrs.iter().filter(|a| is_wire_attr(a)) {
        match &attr.meta {
            syn::Meta::List(_) => {}
            syn::Meta::Path(_) | syn::Meta::NameValue(_) => {
                errors.spanned(
                    &attr.meta,
                    format!("expected `#[wire(...)]` with {what} keys"),
                );
                continue;
            }
        }
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident() else {
                errors.spanned(&meta.path, unknown_key_message(&meta.path, accepted, what));
                skip_entry(meta.input, true);
                return Ok(());
            };
            let key = ident.to_string();
            seen.push(key.clone());
            if !accepted.contains(&key.as_str()) {
                errors.at(
                    ident.span(),
                    unknown_key_message(&meta.path, accepted, what),
                );
                skip_entry(meta.input, true);
                return Ok(());
            }
            // A bad value is reported and the remaining keys are still read.
            if let Err(error) = read_key(&key, &meta, errors) {
                errors.push(error);
            }
            let rest = skip_entry(meta.input, true);
            if !rest.is_empty() {
                errors.spanned(
                    &rest,
                    format!("unexpected tokens after the `{key}` value: separate keys with `,`"),
                );
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    seen
}

fn unknown_key_message(path: &Path, accepted: &[&str], what: &str) -> String {
    let found = path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    format!(
        "unknown wire {what} key `{found}`: expected one of {}",
        accepted
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Consumes the tokens of the current entry, up to (not including) the next top-level `,`, and returns them.
///
/// With `generics`, commas between `<` and `>` belong to the entry (`streams = Reply<A, B>`).
fn skip_entry(input: ParseStream<'_>, generics: bool) -> TokenStream {
    let taken = input.step(|cursor| {
        let mut rest = *cursor;
        let mut tokens = TokenStream::new();
        let mut depth = 0usize;
        let mut after_dash = false;
        while let Some((token, next)) = rest.token_tree() {
            let mut dash = false;
            if let TokenTree::Punct(punct) = &token {
                match punct.as_char() {
                    ',' if depth == 0 => break,
                    '<' if generics => depth += 1,
                    // `->` in `Fn(A) -> B` closes nothing.
                    '>' if generics && !after_dash => depth = depth.saturating_sub(1),
                    '-' => dash = punct.spacing() == Spacing::Joint,
                    _ => {}
                }
            }
            after_dash = dash;
            tokens.extend([token]);
            rest = next;
        }
        Ok((tokens, rest))
    });
    taken.unwrap_or_default()
}

/// `= value`: the span of the `=` and the value's tokens, or `None` (with the entry skipped) when the key is
/// not followed by `=`.
fn assigned(meta: &ParseNestedMeta<'_>, generics: bool) -> Option<(Span, TokenStream)> {
    match meta.input.parse::<syn::Token![=]>() {
        Ok(eq) => Some((eq.span, skip_entry(meta.input, generics))),
        Err(_) => {
            skip_entry(meta.input, generics);
            None
        }
    }
}

/// Looks through the invisible groups `macro_rules!` wraps around `$x:literal`, `$x:expr`, ... (as serde does).
fn ungroup_expr(mut expr: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

/// Looks through the invisible groups `macro_rules!` wraps around `$p:path` and `$t:ty`.
fn ungroup_type(mut ty: syn::Type) -> syn::Type {
    while let syn::Type::Group(group) = ty {
        ty = *group.elem;
    }
    ty
}

fn string_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<LitStr> {
    let message = || format!("`{key}` takes a string literal: write `{key} = \"...\"`");
    let Some((eq, tokens)) = assigned(meta, false) else {
        return Err(syn::Error::new(meta.path.span(), message()));
    };
    if tokens.is_empty() {
        return Err(syn::Error::new(eq, message()));
    }
    // The common case, one string literal, without the expression parser (what it would give).
    if let Some(lit) = single_str_literal(&tokens) {
        return Ok(lit);
    }
    if let Ok(expr) = syn::parse2::<syn::Expr>(tokens.clone())
        && let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) = ungroup_expr(&expr)
    {
        return Ok(lit.clone());
    }
    Err(syn::Error::new_spanned(tokens, message()))
}

/// `tokens` as a string literal when they are that one literal token, as syn parses it; `None` for
/// anything else (another literal, several tokens, an invisible group), which the caller parses.
fn single_str_literal(tokens: &TokenStream) -> Option<LitStr> {
    let mut iter = tokens.clone().into_iter();
    match (iter.next(), iter.next()) {
        (Some(TokenTree::Literal(literal)), None) => match syn::Lit::new(literal) {
            syn::Lit::Str(lit) => Some(lit),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `tokens` cannot be a string literal for syn: they start with neither a literal nor an
/// invisible group (which `macro_rules!` wraps around `$x:literal`).
fn not_a_literal(tokens: &TokenStream) -> bool {
    match tokens.clone().into_iter().next() {
        Some(TokenTree::Literal(_)) => false,
        Some(TokenTree::Group(group)) => group.delimiter() != Delimiter::None,
        _ => true,
    }
}

/// A type path with optional generic arguments (`Sched`, `crate::m::Reply<u64>`, `Reply::<T>`).
///
/// The value is parsed as a type, not as an expression: `Reply<T>` is not a chained comparison.
fn path_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Path> {
    let message = || format!("`{key}` takes a type path: write `{key} = path::to::Type`");
    let Some((eq, tokens)) = assigned(meta, true) else {
        return Err(syn::Error::new(meta.path.span(), message()));
    };
    if tokens.is_empty() {
        return Err(syn::Error::new(eq, message()));
    }
    if !not_a_literal(&tokens)
        && let Ok(lit) = syn::parse2::<LitStr>(tokens.clone())
    {
        let text = lit.value();
        let written = if syn::parse_str::<Path>(&text).is_ok() {
            text.trim()
        } else {
            "path::to::Type"
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("`{key}` takes a type path, not a string: write `{key} = {written}`"),
        ));
    }
    match syn::parse2::<syn::Type>(tokens.clone()).map(ungroup_type) {
        Ok(syn::Type::Path(syn::TypePath {
            qself: None, path, ..
        })) => Ok(path),
        _ => Err(syn::Error::new_spanned(tokens, message())),
    }
}

/// Any type (`String`, `Vec<u8>`, `[u8; 32]`, `(u64, String)`), as `as = ...` takes it.
fn type_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<syn::Type> {
    let message = format!(
        "`{key}` takes a type: write `{key} = String` (the type whose wire shape this one has)"
    );
    let Some((eq, tokens)) = assigned(meta, true) else {
        return Err(syn::Error::new(meta.path.span(), message));
    };
    if tokens.is_empty() {
        return Err(syn::Error::new(eq, message));
    }
    if let Ok(lit) = syn::parse2::<LitStr>(tokens.clone()) {
        let text = lit.value();
        let written = if syn::parse_str::<syn::Type>(&text).is_ok() {
            text.trim()
        } else {
            "String"
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("`{key}` takes a type, not a string: write `{key} = {written}`"),
        ));
    }
    syn::parse2::<syn::Type>(tokens.clone())
        .map(ungroup_type)
        .map_err(|_| syn::Error::new_spanned(tokens, message))
}

fn version_value(lit: &LitStr, key: &str) -> syn::Result<Spanned<semver::Version>> {
    let text = lit.value();
    semver::Version::parse(&text)
        .map(|v| Spanned::new(v, lit.span()))
        .map_err(|e| {
            let without_v = text
                .strip_prefix(['v', 'V'])
                .filter(|rest| semver::Version::parse(rest).is_ok());
            let message = match without_v {
                Some(rest) => format!(
                    "`{key}` must be a semver version, without the `v`: write `{key} = \"{rest}\"`"
                ),
                None => format!("`{key}` must be a semver version such as \"1.2.3\": {e}"),
            };
            syn::Error::new(lit.span(), message)
        })
}

/// A keyword value (`kind = "request"`): one of [`Keyword::ALL`], or the error listing them.
fn keyword_value<T: Keyword>(lit: &LitStr) -> syn::Result<Spanned<T>> {
    let text = lit.value();
    T::from_keyword(&text)
        .map(|value| Spanned::new(value, lit.span()))
        .ok_or_else(|| {
            syn::Error::new(
                lit.span(),
                format!(
                    "unknown {} `{text}`: expected one of {}",
                    T::WHAT,
                    quoted_keywords::<T>()
                ),
            )
        })
}

/// Every keyword of `T`, quoted as written in `#[wire(...)]`: `"request", "response", "event", "record"`.
fn quoted_keywords<T: Keyword>() -> String {
    T::ALL
        .iter()
        .map(|value| format!("\"{}\"", value.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The runtime value of a keyword as the generated code names it: `::wirecheck::Kind::Request`.
pub fn runtime_path<T: Keyword>(value: T) -> TokenStream {
    let ty = proc_macro2::Ident::new(T::TYPE_NAME, Span::call_site());
    let variant = proc_macro2::Ident::new(value.variant_name(), Span::call_site());
    quote::quote!(::wirecheck::#ty::#variant)
}

/// Whether a rule id is written as rule ids are (`snake_case`, ASCII).
pub fn is_rule_id(id: &str) -> bool {
    !id.is_empty()
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The `snake_case` spelling of `FieldRemoved`, `fieldRemoved`, `Field-Removed` or `FIELD_REMOVED`
/// (`field_removed`), for the suggestion on a mistyped rule id.
fn snake_case(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, '-' | '_' | ' ') {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_uppercase() {
            let previous = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            // A word starts at `xY` and `9Y`, and at the last capital of an acronym (`HTTPServer`).
            let boundary = previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (previous.is_some_and(char::is_uppercase)
                    && next.is_some_and(|n| n.is_lowercase()));
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// The text of tokens as written, without the spaces `TokenStream`'s `Display` puts between them.
fn tokens_text(tokens: &TokenStream) -> String {
    tokens.clone().into_iter().map(|t| t.to_string()).collect()
}

/// `allow(...)` and `reason = "..."` as they are read, before [`AllowBuilder::finish`] checks them together.
#[derive(Default)]
struct AllowBuilder {
    allow: Allow,
    /// Where `allow` was written: it counts even when its rule ids are invalid, so that a bad id does not
    /// also make `reason` look orphaned.
    written: Option<Span>,
}

impl AllowBuilder {
    /// Reads `allow(rule_id, ...)`, reporting each bad entry on its own tokens.
    fn parse(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) {
        let key = meta.path.span();
        if self.written.is_some() {
            errors.at(
                key,
                "duplicate wire key `allow`: list every rule in one `allow(...)`",
            );
        } else {
            self.written = Some(key);
        }
        let group = meta.input.step(|cursor| match cursor.token_tree() {
            Some((TokenTree::Group(group), rest))
                if group.delimiter() == Delimiter::Parenthesis =>
            {
                Ok((group, rest))
            }
            _ => Err(cursor.error("not a parenthesized list")),
        });
        let Ok(group) = group else {
            // Spans the whole entry: `allow = "..."` is the mistake, not the word `allow`.
            let mut entry = meta.path.to_token_stream();
            entry.extend(skip_entry(meta.input, true));
            errors.spanned(
                entry,
                "`allow` takes a list of rule ids: write `allow(rule_id, ...)`",
            );
            return;
        };
        let mut entries = vec![TokenStream::new()];
        for token in group.stream() {
            match &token {
                TokenTree::Punct(p) if p.as_char() == ',' => entries.push(TokenStream::new()),
                _ => entries.last_mut().expect("never empty").extend([token]),
            }
        }
        entries.retain(|e| !e.is_empty());
        if entries.is_empty() {
            errors.at(
                group.span(),
                "`allow(...)` needs at least one rule id, such as `allow(field_removed)`",
            );
        }
        for entry in entries {
            match rule_id(&entry) {
                Ok(rule) => self.allow.rules.push(rule),
                Err(message) => errors.spanned(&entry, message),
            }
        }
    }

    /// Reads `reason = "..."`.
    fn reason(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<()> {
        let lit = string_value(meta, "reason")?;
        set_once(
            &mut self.allow.reason,
            Spanned::new(lit.value(), lit.span()),
            "reason",
            meta.path.span(),
            errors,
        );
        Ok(())
    }

    /// Checks `allow` and `reason` together: each needs the other, and the reason must say something.
    fn finish(self, errors: &mut Errors) -> Allow {
        match (&self.allow.reason, self.written) {
            (None, Some(written)) => errors.at(
                self.allow.rules.first().map_or(written, |r| r.span),
                "`allow(...)` needs a `reason = \"...\"` saying why the change is acceptable",
            ),
            (Some(reason), None) => {
                errors.at(reason.span, "`reason` is only meaningful with `allow(...)`")
            }
            (Some(reason), Some(_)) if reason.value.trim().is_empty() => {
                errors.at(reason.span, "`reason` must not be empty")
            }
            _ => {}
        }
        self.allow
    }
}

/// One entry of `allow(...)`: a rule id of the catalogue, or the message saying what to write instead.
fn rule_id(entry: &TokenStream) -> Result<Spanned<String>, String> {
    let tokens: Vec<TokenTree> = entry.clone().into_iter().collect();
    if let [TokenTree::Ident(ident)] = tokens.as_slice()
        && is_rule_id(&ident.to_string())
    {
        let id = ident.to_string();
        return if is_known_rule_id(&id) {
            Ok(Spanned::new(id, ident.span()))
        } else {
            Err(unknown_rule_id_message(&id))
        };
    }
    if let Ok(lit) = syn::parse2::<LitStr>(entry.clone())
        && is_rule_id(&lit.value())
    {
        let id = lit.value();
        return Err(if is_known_rule_id(&id) {
            format!("rule ids are written without quotes: write `{id}`")
        } else {
            unknown_rule_id_message(&id)
        });
    }
    let text = tokens_text(entry);
    let snake = snake_case(&text);
    Err(if is_known_rule_id(&snake) {
        format!("`{text}` is not a rule id: rule ids are snake_case, write `{snake}`")
    } else if let Some(closest) = closest_rule_id(&snake) {
        format!("`{text}` is not a rule id: did you mean `{closest}`?")
    } else {
        format!(
            "`{text}` is not a rule id: rule ids are snake_case, such as `field_removed`; `wirecheck rules` lists them"
        )
    })
}

/// Whether `id` is a rule of the catalogue (`wirecheck_vocab::rules`, which the checker reads too).
pub fn is_known_rule_id(id: &str) -> bool {
    RuleId::from_id(id).is_some()
}

/// The error of a `snake_case` id that is not a rule: `unknown rule id `feld_removed`: did you mean
/// `field_removed`? ...`.
fn unknown_rule_id_message(id: &str) -> String {
    let suggestion = closest_rule_id(id)
        .map(|closest| format!("did you mean `{closest}`? "))
        .unwrap_or_default();
    format!(
        "{UNKNOWN_RULE_ID} `{id}` in `allow(...)`: {suggestion}`wirecheck rules` lists the rule ids"
    )
}

/// Whether an error of [`parse_message`] or [`parse_member`] (one of those a combined error iterates over)
/// is about an unknown rule id in `allow(...)`: the checker refuses those, rather than ignore the allow.
pub fn is_unknown_rule_id(error: &syn::Error) -> bool {
    error.to_string().starts_with(UNKNOWN_RULE_ID)
}

/// The rule id closest to a mistyped one, when it is close enough to be what was meant (at most one edit
/// per three characters, as rustc's "did you mean" suggestions): for `allow(...)`, and for the checker's
/// own commands that take a rule id (`wirecheck explain`).
pub fn closest_rule_id(id: &str) -> Option<&'static str> {
    let limit = id.chars().count().max(3) / 3;
    RuleId::ALL
        .iter()
        .map(|rule| (edit_distance(id, rule.as_str()), rule.as_str()))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// The Levenshtein distance between two strings, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

fn set_once<T>(slot: &mut Option<T>, value: T, key: &str, span: Span, errors: &mut Errors) {
    if slot.is_some() {
        errors.at(span, format!("duplicate wire key `{key}`"));
    } else {
        *slot = Some(value);
    }
}

/// One "missing key" error for all the required keys an item lacks, on the item's name.
///
/// Each key comes as how it is written and an optional hint: `("name = \"...\"", None)`.
fn missing_keys(
    missing: &[(&str, Option<&str>)],
    what: &str,
    item_span: Span,
    errors: &mut Errors,
) {
    if missing.is_empty() {
        return;
    }
    let written = missing
        .iter()
        .map(|(key, _)| *key)
        .collect::<Vec<_>>()
        .join(", ");
    let hints = missing
        .iter()
        .filter_map(|(_, hint)| *hint)
        .collect::<Vec<_>>()
        .join("; ");
    let mut message = format!("missing `#[wire({written})]` on the {what}");
    if !hints.is_empty() {
        message.push_str(": ");
        message.push_str(&hints);
    }
    errors.at(item_span, message);
}

/// Parses the `#[wire(...)]` attributes of a `#[derive(Protocol)]` item named at `item_span`.
pub fn parse_protocol(attrs: &[Attribute], item_span: Span) -> Result<ProtocolAttrs, syn::Error> {
    let mut errors = Errors::default();
    let mut name = None;
    let mut version = None;
    let mut min_compatible = None;
    let mut upgrade = None;
    let mut format = None;
    let seen = for_each_key(
        attrs,
        PROTOCOL_KEYS,
        "protocol",
        &mut errors,
        |key, meta, errors| {
            let span = meta.path.span();
            let lit = string_value(meta, key)?;
            match key {
                "name" => {
                    if lit.value().trim().is_empty() {
                        errors.at(lit.span(), "`name` must not be empty");
                    }
                    set_once(
                        &mut name,
                        Spanned::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                "version" => set_once(&mut version, version_value(&lit, key)?, key, span, errors),
                "min_compatible" => set_once(
                    &mut min_compatible,
                    version_value(&lit, key)?,
                    key,
                    span,
                    errors,
                ),
                "upgrade" => set_once(
                    &mut upgrade,
                    keyword_value::<Upgrade>(&lit)?.value,
                    key,
                    span,
                    errors,
                ),
                "format" => set_once(
                    &mut format,
                    keyword_value::<Format>(&lit)?.value,
                    key,
                    span,
                    errors,
                ),
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    let missing = |key: &str| !seen.iter().any(|k| k == key);
    let mut required = Vec::new();
    if missing("name") {
        required.push(("name = \"...\"", None));
    }
    if missing("version") {
        required.push(("version = \"...\"", None));
    }
    missing_keys(&required, "protocol", item_span, &mut errors);
    if let (Some(declared), Some(minimum)) = (&version, &min_compatible)
        && minimum.value > declared.value
    {
        errors.at(
            minimum.span,
            format!(
                "`min_compatible` {} is newer than `version` {}",
                minimum.value, declared.value
            ),
        );
    }
    match (name, version) {
        (Some(name), Some(version)) => errors.finish(ProtocolAttrs {
            name,
            version,
            min_compatible,
            upgrade: upgrade.unwrap_or_default(),
            format: format.unwrap_or_default(),
        }),
        _ => Err(errors.0.expect("a missing or invalid key was reported")),
    }
}

/// Parses the `#[wire(...)]` attributes of a `#[derive(Message)]` item named at `item_span`.
pub fn parse_message(attrs: &[Attribute], item_span: Span) -> Result<MessageAttrs, syn::Error> {
    let mut errors = Errors::default();
    let mut protocol = None;
    let mut topic = None;
    let mut kind: Option<Spanned<Kind>> = None;
    let mut responds: Option<Path> = None;
    let mut streams: Option<Path> = None;
    let mut since = None;
    let mut allow = AllowBuilder::default();
    let seen = for_each_key(
        attrs,
        MESSAGE_KEYS,
        "message",
        &mut errors,
        |key, meta, errors| {
            let span = meta.path.span();
            match key {
                "protocol" => set_once(&mut protocol, path_value(meta, key)?, key, span, errors),
                "responds" => set_once(&mut responds, path_value(meta, key)?, key, span, errors),
                "streams" => set_once(&mut streams, path_value(meta, key)?, key, span, errors),
                "topic" => {
                    let lit = string_value(meta, key)?;
                    if lit.value().trim().is_empty() {
                        errors.at(lit.span(), "`topic` must not be empty");
                    }
                    set_once(
                        &mut topic,
                        Spanned::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                "kind" => {
                    let lit = string_value(meta, key)?;
                    set_once(&mut kind, keyword_value::<Kind>(&lit)?, key, span, errors)
                }
                "since" => {
                    let lit = string_value(meta, key)?;
                    set_once(&mut since, version_value(&lit, key)?, key, span, errors)
                }
                "allow" => allow.parse(meta, errors),
                "reason" => allow.reason(meta, errors)?,
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    let allow = allow.finish(&mut errors);
    let missing = |key: &str| !seen.iter().any(|k| k == key);
    let mut required = Vec::new();
    if missing("protocol") {
        required.push((
            "protocol = ...",
            Some("`protocol` names the protocol marker type"),
        ));
    }
    if missing("topic") {
        required.push(("topic = \"...\"", None));
    }
    let kind_hint =
        missing("kind").then(|| format!("`kind` is one of {}", quoted_keywords::<Kind>()));
    if let Some(kind_hint) = &kind_hint {
        required.push(("kind = \"...\"", Some(kind_hint.as_str())));
    }
    missing_keys(&required, "message", item_span, &mut errors);
    if let (Some(_), Some(streams)) = (&responds, &streams) {
        errors.spanned(
            streams,
            "a request either `responds` once or `streams`; not both",
        );
    }
    if let Some(kind) = &kind
        && kind.value != Kind::Request
    {
        for path in responds.iter().chain(streams.iter()) {
            errors.spanned(
                path,
                "only a `kind = \"request\"` message can have `responds` or `streams`",
            );
        }
    }
    match (protocol, topic, kind) {
        (Some(protocol), Some(topic), Some(kind)) => errors.finish(MessageAttrs {
            protocol,
            topic,
            kind,
            responds,
            streams,
            since,
            allow,
        }),
        _ => Err(errors.0.expect("a missing or invalid key was reported")),
    }
}

/// Parses the `#[wire(...)]` attributes of a field or an enum variant (all keys optional).
pub fn parse_member(attrs: &[Attribute]) -> Result<MemberAttrs, syn::Error> {
    let mut errors = Errors::default();
    let mut since = None;
    let mut allow = AllowBuilder::default();
    for_each_key(
        attrs,
        MEMBER_KEYS,
        "field or variant",
        &mut errors,
        |key, meta, errors| {
            let span = meta.path.span();
            match key {
                "since" => {
                    let lit = string_value(meta, key)?;
                    set_once(&mut since, version_value(&lit, key)?, key, span, errors)
                }
                "allow" => allow.parse(meta, errors),
                "reason" => allow.reason(meta, errors)?,
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    let allow = allow.finish(&mut errors);
    errors.finish(MemberAttrs { since, allow })
}

/// Parses the `#[wire(...)]` attributes of a type a message reaches (all keys optional).
pub fn parse_type(attrs: &[Attribute]) -> Result<TypeAttrs, syn::Error> {
    let mut errors = Errors::default();
    let mut as_type = None;
    for_each_key(
        attrs,
        TYPE_KEYS,
        "type",
        &mut errors,
        |key, meta, errors| {
            let span = meta.path.span();
            match key {
                "as" => set_once(&mut as_type, type_value(meta, key)?, key, span, errors),
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    errors.finish(TypeAttrs { as_type })
}

#[cfg(test)]
mod tests;
