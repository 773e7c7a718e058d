//! `#[cfg(...)]` and `#[cfg_attr(...)]` read against the features a crate is built with. Only `feature =
//! "..."` (and `test`, `doc`, `docsrs`, `miri`, never set in a normal build) is known; any other predicate
//! (`unix`, `target_os = "..."`) is unknown, and an item whose cfg is unknown is taken as present, as
//! extraction did before it read cfgs.

use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

/// Whether every `#[cfg(...)]` of `attrs` may hold when `feature(name)` says which features are on:
/// `false` only when one is known to be false.
pub(crate) fn enabled_by_features(attrs: &[Attribute], feature: &dyn Fn(&str) -> bool) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .all(|attr| match attr.parse_args::<Meta>() {
            Ok(meta) => predicate(&meta, feature) != Some(false),
            Err(_) => true,
        })
}

/// A cfg predicate's value: `None` when it depends on something other than features.
pub(crate) fn predicate(meta: &Meta, feature: &dyn Fn(&str) -> bool) -> Option<bool> {
    match meta {
        Meta::NameValue(pair) if pair.path.is_ident("feature") => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) => Some(feature(&name.value())),
            _ => None,
        },
        Meta::Path(path)
            if ["test", "doc", "docsrs", "miri"]
                .iter()
                .any(|never| path.is_ident(never)) =>
        {
            Some(false)
        }
        Meta::List(list) => {
            let inner = list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()?;
            let values: Vec<Option<bool>> =
                inner.iter().map(|meta| predicate(meta, feature)).collect();
            if list.path.is_ident("all") {
                all(&values)
            } else if list.path.is_ident("any") {
                all(&values.iter().map(|v| v.map(|b| !b)).collect::<Vec<_>>()).map(|b| !b)
            } else if list.path.is_ident("not") && values.len() == 1 {
                values[0].map(|b| !b)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `all(...)`: false when one is false, true when all are true, else unknown.
fn all(values: &[Option<bool>]) -> Option<bool> {
    if values.contains(&Some(false)) {
        Some(false)
    } else if values.iter().all(Option::is_some) {
        Some(true)
    } else {
        None
    }
}

/// The last segment of every path in the `#[derive(...)]`s of `attrs`, those inside a
/// `#[cfg_attr(pred, derive(...))]` included unless `pred` is known false (`Serialize`,
/// `Deserialize_repr`).
pub(crate) fn derives(attrs: &[Attribute], feature: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs {
        derives_in(&attr.meta, feature, &mut out);
    }
    out
}

fn derives_in(meta: &Meta, feature: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
    let Meta::List(list) = meta else { return };
    let Ok(inner) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
        return;
    };
    if list.path.is_ident("derive") {
        out.extend(inner.iter().filter_map(|meta| {
            let segment = meta.path().segments.last()?;
            Some(segment.ident.to_string())
        }));
    } else if list.path.is_ident("cfg_attr") {
        let mut parts = inner.iter();
        let Some(condition) = parts.next() else {
            return;
        };
        if predicate(condition, feature) != Some(false) {
            for part in parts {
                derives_in(part, feature, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{derives, enabled_by_features};

    fn attrs(source: &str) -> Vec<syn::Attribute> {
        let item: syn::ItemStruct = syn::parse_str(&format!("{source} struct S;")).unwrap();
        item.attrs
    }

    fn serde_on(name: &str) -> bool {
        name == "serde" || name == "std"
    }

    #[test]
    fn features_decide_known_predicates() {
        assert!(enabled_by_features(
            &attrs("#[cfg(feature = \"serde\")]"),
            &serde_on
        ));
        assert!(!enabled_by_features(
            &attrs("#[cfg(feature = \"x\")]"),
            &serde_on
        ));
        assert!(!enabled_by_features(
            &attrs("#[cfg(not(feature = \"std\"))]"),
            &serde_on
        ));
        assert!(enabled_by_features(
            &attrs("#[cfg(any(feature = \"x\", feature = \"std\"))]"),
            &serde_on
        ));
        assert!(!enabled_by_features(
            &attrs("#[cfg(all(feature = \"x\", unix))]"),
            &serde_on
        ));
        assert!(!enabled_by_features(&attrs("#[cfg(test)]"), &serde_on));
    }

    #[test]
    fn unknown_predicates_keep_the_item() {
        assert!(enabled_by_features(&attrs("#[cfg(unix)]"), &serde_on));
        assert!(enabled_by_features(
            &attrs("#[cfg(any(feature = \"x\", target_os = \"linux\"))]"),
            &serde_on
        ));
        assert!(enabled_by_features(
            &attrs("#[cfg(not(windows))]"),
            &serde_on
        ));
    }

    #[test]
    fn derives_behind_enabled_features_count() {
        let found = derives(
            &attrs(
                "#[derive(Debug)] #[cfg_attr(feature = \"serde\", derive(serde::Serialize, Deserialize))] #[cfg_attr(feature = \"x\", derive(Hash))]",
            ),
            &serde_on,
        );
        assert_eq!(found, ["Debug", "Serialize", "Deserialize"]);
    }
}
