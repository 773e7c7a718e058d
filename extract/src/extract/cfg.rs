//! `#[cfg(...)]` and `#[cfg_attr(...)]` evaluated in the build of one crate, workspace or dependency
//! alike: the one evaluator. What differs between crates is a parameter, never a copy: the features the
//! crate is built with (`features::CrateFeatures` for the workspace's, the locator's for a dependency), and
//! what the caller does with a predicate it cannot decide (the lowering keeps what it guards, with a note).
//!
//! Predicates are parsed as cargo parses them (`cargo_platform::CfgExpr`): `feature = "..."`, `true`,
//! `false` (stable since Rust 1.88), `not`, `all`, `any`, raw identifiers. `test`, `doctest`, `doc`,
//! `docsrs` and `miri` are false (a check is not a test, doc or miri build, and cargo sets no `docsrs` in
//! one). Every other predicate (`unix`, `target_os = "linux"`, `debug_assertions`) depends on the target
//! and profile, which a check does not choose: it is [`Truth::Unknown`]. A predicate that does not parse
//! is one the compiler rejects: a `cfg` of it is ignored, a `cfg_attr` of it dropped.

use std::borrow::Cow;
use std::collections::BTreeSet;

use cargo_platform::{Cfg, CfgExpr};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, Meta};

use super::syntax::expand_cfg_attr;

/// Predicates that are false in the build a check reads.
const FALSE_PREDICATES: &[&str] = &["test", "doctest", "doc", "docsrs", "miri"];

/// Whether a `cfg` predicate holds in the build checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Truth {
    Yes,
    No,
    /// Depends on the target or profile (the predicate's text, as a person writes it).
    Unknown(String),
}

/// A predicate the build checked cannot decide, and the attribute it is in (for a note).
#[derive(Debug, Clone)]
pub(super) struct Undecided {
    /// The predicate, as a person writes it (`unix`, `not(target_os = "linux")`).
    pub(super) predicate: String,
    /// The `cfg` or `cfg_attr` attribute.
    pub(super) span: Span,
}

/// `attrs` as the compiler sees them in a build with `features` on: every `#[cfg_attr(pred, a, b)]`
/// whose `pred` holds becomes `#[a] #[b]` (nested ones too), one whose `pred` is false is dropped. One
/// whose `pred` cannot be decided is applied (what extraction did before it read predicates), and
/// reported in `undecided`.
pub(super) fn applied<'x>(
    attrs: &'x [Attribute],
    features: &BTreeSet<String>,
    undecided: &mut Vec<Undecided>,
) -> Cow<'x, [Attribute]> {
    expand_cfg_attr(
        attrs,
        &mut |predicate, attr| match eval(predicate, features) {
            Some(Truth::Yes) => true,
            Some(Truth::No) | None => false,
            Some(Truth::Unknown(text)) => {
                undecided.push(Undecided {
                    predicate: text,
                    span: attr.span(),
                });
                true
            }
        },
    )
}

/// Whether what `attrs` are on exists in a build with `features` on: [`Truth::No`] when a `#[cfg]` (one
/// a `cfg_attr` that holds writes included) is false, else [`Truth::Unknown`] with the first predicate
/// that cannot be decided, else [`Truth::Yes`].
pub(super) fn active(attrs: &[Attribute], features: &BTreeSet<String>) -> Truth {
    let mut ignored = Vec::new();
    let attrs = applied(attrs, features, &mut ignored);
    let mut truth = Truth::Yes;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("cfg")) {
        let Meta::List(list) = &attr.meta else {
            continue;
        };
        let Some(found) = eval(&list.tokens, features) else {
            continue;
        };
        match found {
            Truth::No => return Truth::No,
            Truth::Unknown(text) if truth == Truth::Yes => truth = Truth::Unknown(text),
            Truth::Yes | Truth::Unknown(_) => {}
        }
    }
    truth
}

/// [`active`] for attributes kept as the text inside their brackets (`cfg(feature = "x")`, as
/// `scan::ModItem::cfg` keeps them); an attribute that does not parse is ignored (the compiler reports
/// it).
pub(super) fn active_texts(texts: &[String], features: &BTreeSet<String>) -> Truth {
    if texts.is_empty() {
        return Truth::Yes;
    }
    let attrs: Vec<Attribute> = texts
        .iter()
        .filter_map(|text| syn::parse_str::<Meta>(text).ok())
        .map(|meta| Attribute {
            pound_token: Default::default(),
            style: syn::AttrStyle::Outer,
            bracket_token: Default::default(),
            meta,
        })
        .collect();
    active(&attrs, features)
}

/// A `cfg` predicate's truth in a build with `features` on, from its tokens; `None` when it does not
/// parse (the compiler rejects it).
pub(super) fn eval(predicate: &TokenStream, features: &BTreeSet<String>) -> Option<Truth> {
    let expr = predicate.to_string().parse::<CfgExpr>().ok()?;
    Some(eval_expr(&expr, features))
}

/// A parsed predicate's truth in a build with `features` on.
fn eval_expr(expr: &CfgExpr, features: &BTreeSet<String>) -> Truth {
    match expr {
        CfgExpr::True => Truth::Yes,
        CfgExpr::False => Truth::No,
        CfgExpr::Value(Cfg::Name(name)) if FALSE_PREDICATES.contains(&name.as_str()) => Truth::No,
        CfgExpr::Value(Cfg::KeyPair(key, value)) if key.as_str() == "feature" => {
            if features.contains(value) {
                Truth::Yes
            } else {
                Truth::No
            }
        }
        CfgExpr::Value(_) => Truth::Unknown(expr.to_string()),
        CfgExpr::Not(inner) => match eval_expr(inner, features) {
            Truth::Yes => Truth::No,
            Truth::No => Truth::Yes,
            Truth::Unknown(_) => Truth::Unknown(expr.to_string()),
        },
        CfgExpr::All(inner) => combine(inner, features, Truth::No, Truth::Yes),
        CfgExpr::Any(inner) => combine(inner, features, Truth::Yes, Truth::No),
    }
}

/// `all` (`decisive` false) or `any` (`decisive` true) of `inner`: an unknown one decides only when the
/// known ones do not.
fn combine(
    inner: &[CfgExpr],
    features: &BTreeSet<String>,
    decisive: Truth,
    otherwise: Truth,
) -> Truth {
    let truths: Vec<Truth> = inner.iter().map(|e| eval_expr(e, features)).collect();
    if truths.contains(&decisive) {
        return decisive;
    }
    truths
        .into_iter()
        .find(|truth| matches!(truth, Truth::Unknown(_)))
        .unwrap_or(otherwise)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::syntax::{derive_paths, tokens_text};

    fn on(features: &[&str]) -> BTreeSet<String> {
        features.iter().map(|f| (*f).to_owned()).collect()
    }

    fn truth(predicate: &str, features: &[&str]) -> Truth {
        let tokens: TokenStream = predicate.parse().unwrap();
        eval(&tokens, &on(features)).unwrap()
    }

    fn attrs(source: &str) -> Vec<Attribute> {
        let item: syn::ItemStruct = syn::parse_str(&format!("{source} struct S;")).unwrap();
        item.attrs
    }

    #[test]
    fn predicates() {
        assert_eq!(truth(r#"feature = "a""#, &["a"]), Truth::Yes);
        assert_eq!(truth(r#"feature = "a""#, &[]), Truth::No);
        assert_eq!(truth(r#"not(feature = "a")"#, &[]), Truth::Yes);
        assert_eq!(
            truth(r#"all(feature = "a", feature = "b")"#, &["a"]),
            Truth::No
        );
        assert_eq!(
            truth(r#"any(feature = "a", feature = "b")"#, &["b"]),
            Truth::Yes
        );
        assert_eq!(truth("all()", &[]), Truth::Yes);
        assert_eq!(truth("any()", &[]), Truth::No);
        for never in FALSE_PREDICATES {
            assert_eq!(truth(never, &[]), Truth::No, "{never}");
        }
        assert_eq!(truth("not(test)", &[]), Truth::Yes);
        assert_eq!(truth("unix", &[]), Truth::Unknown("unix".into()));
        assert_eq!(truth(r#"all(unix, feature = "a")"#, &[]), Truth::No);
        assert_eq!(truth(r#"any(unix, feature = "a")"#, &["a"]), Truth::Yes);
        assert_eq!(
            truth(r#"all(unix, feature = "a")"#, &["a"]),
            Truth::Unknown("unix".into())
        );
        assert_eq!(
            truth(r#"not(target_os = "linux")"#, &[]),
            Truth::Unknown(r#"not(target_os = "linux")"#.into())
        );
        // The keywords, stable since Rust 1.88, and raw identifiers.
        assert_eq!(truth("false", &[]), Truth::No);
        assert_eq!(truth("true", &[]), Truth::Yes);
        assert_eq!(truth("not(false)", &[]), Truth::Yes);
        assert_eq!(truth("all(true, not(true))", &[]), Truth::No);
        assert_eq!(truth(r#"any(false, feature = "a")"#, &["a"]), Truth::Yes);
        assert_eq!(truth("r#unix", &[]), Truth::Unknown("r#unix".into()));
    }

    #[test]
    fn keywords_in_cfg_and_cfg_attr() {
        assert_eq!(active(&attrs("#[cfg(false)]"), &on(&[])), Truth::No);
        assert_eq!(active(&attrs("#[cfg(not(false))]"), &on(&[])), Truth::Yes);
        let (out, undecided) = applied_text(
            r#"#[cfg_attr(true, serde(rename = "title"))] #[cfg_attr(false, serde(skip))]"#,
            &[],
        );
        assert_eq!(out, [r#"serde(rename = "title")"#]);
        assert!(undecided.is_empty());
    }

    #[test]
    fn cfgs_decide_what_exists() {
        let serde = on(&["serde", "std"]);
        assert_eq!(
            active(&attrs(r#"#[cfg(feature = "serde")]"#), &serde),
            Truth::Yes
        );
        assert_eq!(
            active(&attrs(r#"#[cfg(feature = "x")]"#), &serde),
            Truth::No
        );
        assert_eq!(
            active(&attrs("#[cfg(test)] #[cfg(unix)]"), &serde),
            Truth::No
        );
        assert_eq!(
            active(&attrs("#[cfg(unix)]"), &serde),
            Truth::Unknown("unix".into())
        );
        // A `cfg` a `cfg_attr` writes counts when the `cfg_attr` holds.
        assert_eq!(
            active(
                &attrs(r#"#[cfg_attr(feature = "std", cfg(feature = "x"))]"#),
                &serde
            ),
            Truth::No
        );
        assert_eq!(
            active(
                &attrs(r#"#[cfg_attr(feature = "x", cfg(feature = "x"))]"#),
                &serde
            ),
            Truth::Yes
        );
        assert_eq!(
            active_texts(&[r#"cfg(feature = "x")"#.to_owned()], &serde),
            Truth::No
        );
        assert_eq!(
            active_texts(&[r#"cfg(feature = "std")"#.to_owned()], &serde),
            Truth::Yes
        );
        assert_eq!(active_texts(&[], &serde), Truth::Yes);
    }

    fn applied_text(source: &str, features: &[&str]) -> (Vec<String>, Vec<String>) {
        let attrs = attrs(source);
        let mut undecided = Vec::new();
        let out = applied(&attrs, &on(features), &mut undecided);
        (
            out.iter()
                .map(|attr| tokens_text(&attr.meta).replace(" (", "("))
                .collect(),
            undecided.into_iter().map(|u| u.predicate).collect(),
        )
    }

    #[test]
    fn cfg_attr_applies_where_its_predicate_holds() {
        let source = r#"#[derive(Debug)] #[cfg_attr(feature = "serde", derive(Serialize, Deserialize))] #[cfg_attr(feature = "x", serde(rename = "y"))] #[cfg_attr(all(feature = "serde", not(feature = "x")), serde(skip), cfg_attr(feature = "std", serde(default)))]"#;
        let (on_serde, undecided) = applied_text(source, &["serde", "std"]);
        assert_eq!(
            on_serde,
            [
                "derive(Debug)",
                "derive(Serialize, Deserialize)",
                "serde(skip)",
                "serde(default)"
            ]
        );
        assert!(undecided.is_empty());
        let (on_x, _) = applied_text(source, &["x"]);
        assert_eq!(on_x, ["derive(Debug)", r#"serde(rename = "y")"#]);
        let (off, _) = applied_text(source, &[]);
        assert_eq!(off, ["derive(Debug)"]);
        let derives: Vec<String> = derive_paths(&attrs(source))
            .iter()
            .map(|path| path.segments.join("::"))
            .collect();
        assert_eq!(derives, ["Debug"], "derives are read after expansion only");
    }

    #[test]
    fn undecided_cfg_attr_is_applied_and_reported() {
        let (out, undecided) = applied_text(
            r#"#[cfg_attr(unix, serde(rename = "u"))] #[cfg_attr(any(windows, feature = "a"), serde(skip))]"#,
            &[],
        );
        assert_eq!(out, [r#"serde(rename = "u")"#, "serde(skip)"]);
        assert_eq!(undecided, ["unix", "windows"]);
        let (out, undecided) = applied_text(
            r#"#[cfg_attr(any(windows, feature = "a"), serde(skip))]"#,
            &["a"],
        );
        assert_eq!(out, ["serde(skip)"]);
        assert!(undecided.is_empty());
    }
}
