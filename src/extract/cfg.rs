//! `#[cfg(...)]` and `#[cfg_attr(...)]` evaluated in the build of one crate, workspace or dependency
//! alike: the one evaluator. What differs between crates is a parameter, never a copy: the features the
//! crate is built with (`features::CrateFeatures` for the workspace's, the locator's for a dependency), and
//! what the caller does with a predicate it cannot decide (the lowering keeps what it guards, with a note).
//!
//! Predicates: `feature = "..."`, `not`, `all`, `any`, as the compiler reads them. `test`, `doctest`,
//! `doc`, `docsrs` and `miri` are false (a check is not a test, doc or miri build, and cargo sets no
//! `docsrs` in one). Every other predicate (`unix`, `target_os = "linux"`, `debug_assertions`) depends on
//! the target and profile, which a check does not choose: it is [`Truth::Unknown`].

use std::borrow::Cow;
use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Meta};

use super::syntax::{expand_cfg_attr, tokens_text};

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
            Truth::Yes => true,
            Truth::No => false,
            Truth::Unknown(text) => {
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
        let Ok(predicate) = attr.parse_args::<Meta>() else {
            continue;
        };
        match eval(&predicate, features) {
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

/// A `cfg` predicate's truth in a build with `features` on.
pub(super) fn eval(predicate: &Meta, features: &BTreeSet<String>) -> Truth {
    match predicate {
        Meta::Path(path) => {
            let text = tokens_text(path);
            if FALSE_PREDICATES.contains(&text.as_str()) {
                Truth::No
            } else {
                Truth::Unknown(text)
            }
        }
        Meta::NameValue(pair) if pair.path.is_ident("feature") => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) => {
                if features.contains(&name.value()) {
                    Truth::Yes
                } else {
                    Truth::No
                }
            }
            _ => Truth::Unknown(tokens_text(pair)),
        },
        Meta::NameValue(pair) => Truth::Unknown(tokens_text(pair)),
        Meta::List(list) => {
            let Ok(inner) = list.parse_args_with(
                syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
            ) else {
                return Truth::Unknown(predicate_text(list));
            };
            let truths: Vec<Truth> = inner.iter().map(|meta| eval(meta, features)).collect();
            combine(&list.path, truths, predicate_text(list))
        }
    }
}

/// A predicate as a person writes it (`not(unix)`, not `not (unix)`).
fn predicate_text(tokens: &impl quote::ToTokens) -> String {
    tokens_text(tokens).replace(" (", "(")
}

/// `not`, `all` or `any` of the inner truths (an unknown one decides only when the known ones do not).
fn combine(operator: &syn::Path, truths: Vec<Truth>, text: String) -> Truth {
    let unknown = truths.iter().find_map(|truth| match truth {
        Truth::Unknown(text) => Some(text.clone()),
        _ => None,
    });
    if operator.is_ident("not") {
        return match truths.as_slice() {
            [Truth::Yes] => Truth::No,
            [Truth::No] => Truth::Yes,
            _ => Truth::Unknown(text),
        };
    }
    let (decisive, otherwise) = if operator.is_ident("all") {
        (Truth::No, Truth::Yes)
    } else if operator.is_ident("any") {
        (Truth::Yes, Truth::No)
    } else {
        return Truth::Unknown(text);
    };
    if truths.contains(&decisive) {
        decisive
    } else if let Some(unknown) = unknown {
        Truth::Unknown(unknown)
    } else {
        otherwise
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::syntax::derive_paths;

    fn on(features: &[&str]) -> BTreeSet<String> {
        features.iter().map(|f| (*f).to_owned()).collect()
    }

    fn truth(predicate: &str, features: &[&str]) -> Truth {
        let meta: Meta = syn::parse_str(predicate).unwrap();
        eval(&meta, &on(features))
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
