//! The `#[wire(...)]` attribute grammar, defined once and used by both `wirecheck-macros` (to generate
//! impls and compile errors) and the `wirecheck` checker (to read the same declarations from source).
//!
//! This crate is an implementation detail of wirecheck; its API may change in any release.
//!
//! Parsing collects every error of an item (serde's `Ctxt` pattern): [`parse_protocol`], [`parse_message`]
//! and [`parse_member`] return all of them combined into one [`syn::Error`], each spanned on the offending
//! token.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, LitStr, Path};

/// A parsed value with the span of the tokens it came from.
#[derive(Debug, Clone)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Sp<T> {
    fn new(value: T, span: Span) -> Self {
        Sp { value, span }
    }
}

/// The attribute's name: `#[wire(...)]`.
pub const ATTRIBUTE: &str = "wire";

/// `kind = "..."` on a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `"request"`
    Request,
    /// `"response"`
    Response,
    /// `"event"`
    Event,
    /// `"record"`
    Record,
}

/// `upgrade = "..."` on a protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Upgrade {
    /// `"any-order"` (default)
    #[default]
    AnyOrder,
    /// `"server-first"`
    ServerFirst,
    /// `"client-first"`
    ClientFirst,
}

/// `format = "..."` on a protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// `"json"` (default)
    #[default]
    Json,
    /// `"cbor"`
    Cbor,
    /// `"msgpack"`
    Msgpack,
    /// `"bincode"`
    Bincode,
    /// `"postcard"`
    Postcard,
}

const KINDS: &[(&str, Kind)] = &[
    ("request", Kind::Request),
    ("response", Kind::Response),
    ("event", Kind::Event),
    ("record", Kind::Record),
];
const UPGRADES: &[(&str, Upgrade)] = &[
    ("any-order", Upgrade::AnyOrder),
    ("server-first", Upgrade::ServerFirst),
    ("client-first", Upgrade::ClientFirst),
];
const FORMATS: &[(&str, Format)] = &[
    ("json", Format::Json),
    ("cbor", Format::Cbor),
    ("msgpack", Format::Msgpack),
    ("bincode", Format::Bincode),
    ("postcard", Format::Postcard),
];

/// The keys accepted on a protocol marker type.
pub const PROTOCOL_KEYS: &[&str] = &["name", "version", "min_compatible", "upgrade", "format"];
/// The keys accepted on a message type.
pub const MESSAGE_KEYS: &[&str] = &[
    "protocol", "topic", "kind", "responds", "streams", "since", "allow", "reason",
];
/// The keys accepted on a field or an enum variant.
pub const MEMBER_KEYS: &[&str] = &["since", "allow", "reason"];

/// `#[wire(...)]` on a `#[derive(Protocol)]` type.
#[derive(Debug, Clone)]
pub struct ProtocolAttrs {
    /// `name = "sched"`.
    pub name: Sp<String>,
    /// `version = "0.88.0"`.
    pub version: Sp<semver::Version>,
    /// `min_compatible = "0.87.0"`.
    pub min_compatible: Option<Sp<semver::Version>>,
    /// `upgrade = "..."`, default any-order.
    pub upgrade: Upgrade,
    /// `format = "..."`, default json.
    pub format: Format,
}

/// A suppression: `allow(rule, ...)` with its `reason = "..."`.
#[derive(Debug, Clone, Default)]
pub struct Allow {
    /// The rule ids allowed.
    pub rules: Vec<Sp<String>>,
    /// Why (required whenever `allow` is present).
    pub reason: Option<Sp<String>>,
}

/// `#[wire(...)]` on a `#[derive(Message)]` type.
#[derive(Clone)]
pub struct MessageAttrs {
    /// `protocol = Path`: the protocol marker type.
    pub protocol: Path,
    /// `topic = "sched.alloc"`.
    pub topic: Sp<String>,
    /// `kind = "request"`.
    pub kind: Sp<Kind>,
    /// `responds = Path`: the single response type of a request.
    pub responds: Option<Path>,
    /// `streams = Path`: the streamed response type of a request.
    pub streams: Option<Path>,
    /// `since = "0.56.0"`.
    pub since: Option<Sp<semver::Version>>,
    /// `allow(...)` + `reason`.
    pub allow: Allow,
}

/// `#[wire(...)]` on a field or an enum variant.
#[derive(Debug, Clone, Default)]
pub struct MemberAttrs {
    /// `since = "0.56.0"`.
    pub since: Option<Sp<semver::Version>>,
    /// `allow(...)` + `reason`.
    pub allow: Allow,
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

    fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
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
fn for_each_key(
    attrs: &[Attribute],
    accepted: &[&str],
    what: &str,
    errors: &mut Errors,
    mut f: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) -> Vec<String> {
    let mut seen = Vec::new();
    for attr in attrs.iter().filter(|a| is_wire_attr(a)) {
        if let syn::Meta::Path(path) = &attr.meta {
            errors.at(
                path.span(),
                format!("expected `#[wire(...)]` with {what} keys"),
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident() else {
                return Err(meta.error(unknown_key_message(&meta.path, accepted, what)));
            };
            let key = ident.to_string();
            seen.push(key.clone());
            if !accepted.contains(&key.as_str()) {
                // Skip the value so the other keys are still read.
                skip_value(&meta)?;
                errors.at(
                    ident.span(),
                    unknown_key_message(&meta.path, accepted, what),
                );
                return Ok(());
            }
            // A bad value is reported and the remaining keys are still read.
            if let Err(error) = f(&key, &meta, errors) {
                errors.push(error);
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

fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|inner| skip_value(&inner));
    }
    Ok(())
}

fn set_once<T>(slot: &mut Option<T>, value: T, key: &str, span: Span, errors: &mut Errors) {
    if slot.is_some() {
        errors.at(span, format!("duplicate wire key `{key}`"));
    } else {
        *slot = Some(value);
    }
}

fn string_value(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let value = meta.value()?;
    let expr: syn::Expr = value.parse()?;
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(lit),
        other => Err(syn::Error::new(other.span(), "expected a string literal")),
    }
}

fn path_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Path> {
    let value = meta.value()?;
    let expr: syn::Expr = value.parse()?;
    match expr {
        syn::Expr::Path(p) if p.qself.is_none() => Ok(p.path),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Err(syn::Error::new(
            lit.span(),
            format!(
                "`{key}` takes a type path, not a string: write `{key} = {}`",
                lit.value()
            ),
        )),
        other => Err(syn::Error::new(
            other.span(),
            format!("`{key}` takes a type path"),
        )),
    }
}

fn version_value(lit: &LitStr, key: &str) -> syn::Result<Sp<semver::Version>> {
    semver::Version::parse(&lit.value())
        .map(|v| Sp::new(v, lit.span()))
        .map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!("`{key}` must be a semver version such as \"1.2.3\": {e}"),
            )
        })
}

fn keyword_value<T: Copy>(lit: &LitStr, key: &str, table: &[(&str, T)]) -> syn::Result<Sp<T>> {
    let text = lit.value();
    table
        .iter()
        .find(|(k, _)| *k == text)
        .map(|(_, v)| Sp::new(*v, lit.span()))
        .ok_or_else(|| {
            syn::Error::new(
                lit.span(),
                format!(
                    "unknown {key} `{text}`: expected one of {}",
                    table
                        .iter()
                        .map(|(k, _)| format!("\"{k}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// Whether a rule id is written as rule ids are (`snake_case`, ASCII).
pub fn is_rule_id(id: &str) -> bool {
    !id.is_empty()
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn parse_allow(
    meta: &ParseNestedMeta<'_>,
    allow: &mut Allow,
    errors: &mut Errors,
) -> syn::Result<()> {
    if !allow.rules.is_empty() {
        errors.at(
            meta.path.span(),
            "duplicate wire key `allow`: list every rule in one `allow(...)`",
        );
    }
    let mut any = false;
    meta.parse_nested_meta(|rule| {
        any = true;
        match rule.path.get_ident() {
            Some(ident) if is_rule_id(&ident.to_string()) => {
                allow.rules.push(Sp::new(ident.to_string(), ident.span()));
            }
            _ => errors.at(
                rule.path.span(),
                "expected a rule id such as `field_removed`",
            ),
        }
        if !rule.input.is_empty() && !rule.input.peek(syn::Token![,]) {
            skip_value(&rule)?;
        }
        Ok(())
    })?;
    if !any {
        errors.at(meta.path.span(), "`allow(...)` needs at least one rule id");
    }
    Ok(())
}

fn check_allow(allow: &Allow, errors: &mut Errors) {
    match (&allow.reason, allow.rules.first()) {
        (None, Some(first)) => errors.at(
            first.span,
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
            let lit = string_value(meta)?;
            match key {
                "name" => {
                    if lit.value().trim().is_empty() {
                        errors.at(lit.span(), "`name` must not be empty");
                    }
                    set_once(
                        &mut name,
                        Sp::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                "version" => match version_value(&lit, key) {
                    Ok(v) => set_once(&mut version, v, key, span, errors),
                    Err(e) => errors.push(e),
                },
                "min_compatible" => match version_value(&lit, key) {
                    Ok(v) => set_once(&mut min_compatible, v, key, span, errors),
                    Err(e) => errors.push(e),
                },
                "upgrade" => match keyword_value(&lit, key, UPGRADES) {
                    Ok(v) => set_once(&mut upgrade, v.value, key, span, errors),
                    Err(e) => errors.push(e),
                },
                "format" => match keyword_value(&lit, key, FORMATS) {
                    Ok(v) => set_once(&mut format, v.value, key, span, errors),
                    Err(e) => errors.push(e),
                },
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    let missing = |key: &str| !seen.iter().any(|k| k == key);
    if missing("name") {
        errors.at(
            item_span,
            "missing `#[wire(name = \"...\")]` on the protocol",
        );
    }
    if missing("version") {
        errors.at(
            item_span,
            "missing `#[wire(version = \"...\")]` on the protocol",
        );
    }
    if let (Some(v), Some(min)) = (&version, &min_compatible)
        && min.value > v.value
    {
        errors.at(
            min.span,
            format!(
                "`min_compatible` {} is newer than `version` {}",
                min.value, v.value
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
    let mut kind: Option<Sp<Kind>> = None;
    let mut responds: Option<Path> = None;
    let mut streams: Option<Path> = None;
    let mut since = None;
    let mut allow = Allow::default();
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
                    let lit = string_value(meta)?;
                    if lit.value().trim().is_empty() {
                        errors.at(lit.span(), "`topic` must not be empty");
                    }
                    set_once(
                        &mut topic,
                        Sp::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                "kind" => {
                    let lit = string_value(meta)?;
                    match keyword_value(&lit, key, KINDS) {
                        Ok(v) => set_once(&mut kind, v, key, span, errors),
                        Err(e) => errors.push(e),
                    }
                }
                "since" => {
                    let lit = string_value(meta)?;
                    match version_value(&lit, key) {
                        Ok(v) => set_once(&mut since, v, key, span, errors),
                        Err(e) => errors.push(e),
                    }
                }
                "allow" => parse_allow(meta, &mut allow, errors)?,
                "reason" => {
                    let lit = string_value(meta)?;
                    set_once(
                        &mut allow.reason,
                        Sp::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    check_allow(&allow, &mut errors);
    let missing = |key: &str| !seen.iter().any(|k| k == key);
    if missing("protocol") {
        errors.at(
            item_span,
            "missing `#[wire(protocol = ...)]`: name the protocol marker type",
        );
    }
    if missing("topic") {
        errors.at(
            item_span,
            "missing `#[wire(topic = \"...\")]` on the message",
        );
    }
    if missing("kind") {
        errors.at(
            item_span,
            "missing `#[wire(kind = \"...\")]`: one of \"request\", \"response\", \"event\", \"record\"",
        );
    }
    if let (Some(r), Some(s)) = (&responds, &streams) {
        let _ = r;
        errors.at(
            s.span(),
            "a request either `responds` once or `streams`; not both",
        );
    }
    if let Some(kind) = &kind
        && kind.value != Kind::Request
    {
        for path in responds.iter().chain(streams.iter()) {
            errors.at(
                path.span(),
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
    let mut out = MemberAttrs::default();
    for_each_key(
        attrs,
        MEMBER_KEYS,
        "field",
        &mut errors,
        |key, meta, errors| {
            let span = meta.path.span();
            match key {
                "since" => {
                    let lit = string_value(meta)?;
                    match version_value(&lit, key) {
                        Ok(v) => set_once(&mut out.since, v, key, span, errors),
                        Err(e) => errors.push(e),
                    }
                }
                "allow" => parse_allow(meta, &mut out.allow, errors)?,
                "reason" => {
                    let lit = string_value(meta)?;
                    set_once(
                        &mut out.allow.reason,
                        Sp::new(lit.value(), lit.span()),
                        key,
                        span,
                        errors,
                    )
                }
                _ => unreachable!("key list checked by for_each_key"),
            }
            Ok(())
        },
    );
    check_allow(&out.allow, &mut errors);
    errors.finish(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(src: &str) -> Vec<Attribute> {
        let item: syn::DeriveInput = syn::parse_str(&format!("{src} struct X;")).unwrap();
        item.attrs
    }

    #[test]
    fn protocol_with_every_key() {
        let p = parse_protocol(
            &attrs(r#"#[wire(name = "sched", version = "0.88.0", min_compatible = "0.87.0", upgrade = "server-first", format = "postcard")]"#),
            Span::call_site(),
        )
        .unwrap();
        assert_eq!(p.name.value, "sched");
        assert_eq!(p.version.value, semver::Version::new(0, 88, 0));
        assert_eq!(
            p.min_compatible.unwrap().value,
            semver::Version::new(0, 87, 0)
        );
        assert_eq!(p.upgrade, Upgrade::ServerFirst);
        assert_eq!(p.format, Format::Postcard);
    }

    #[test]
    fn protocol_errors_are_all_reported() {
        let err = parse_protocol(
            &attrs(r#"#[wire(name = "s", version = "one", upgrade = "sideways", colour = "red")]"#),
            Span::call_site(),
        )
        .unwrap_err();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].starts_with("`version` must be a semver version"),
            "{messages:?}"
        );
        assert!(
            messages[1].starts_with("unknown upgrade `sideways`"),
            "{messages:?}"
        );
        assert!(
            messages[2].starts_with("unknown wire protocol key `colour`"),
            "{messages:?}"
        );
    }

    #[test]
    fn message_keys() {
        let m = parse_message(
            &attrs(r#"#[wire(protocol = crate::Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse, since = "0.56.0", allow(field_removed), reason = "never read")]"#),
            Span::call_site(),
        )
        .unwrap();
        assert_eq!(m.topic.value, "sched.alloc");
        assert_eq!(m.kind.value, Kind::Request);
        assert!(m.responds.is_some() && m.streams.is_none());
        assert_eq!(m.allow.rules[0].value, "field_removed");
        assert_eq!(m.allow.reason.unwrap().value, "never read");
    }

    #[test]
    fn message_errors() {
        let Err(err) = parse_message(
            &attrs(
                r#"#[wire(protocol = "Sched", kind = "response", streams = X, allow(field_removed))]"#,
            ),
            Span::call_site(),
        ) else {
            panic!("expected errors")
        };
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("takes a type path, not a string")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("needs a `reason")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("missing `#[wire(topic")),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("only a `kind = \"request\"`")),
            "{messages:?}"
        );
    }

    #[test]
    fn member_keys() {
        let m = parse_member(&attrs(r#"#[wire(since = "0.70.0")]"#)).unwrap();
        assert_eq!(m.since.unwrap().value, semver::Version::new(0, 70, 0));
        assert!(parse_member(&attrs(r#"#[wire(reason = "x")]"#)).is_err());
        assert!(parse_member(&attrs(r#"#[wire(allow(Bad-Id), reason = "x")]"#)).is_err());
    }
}
