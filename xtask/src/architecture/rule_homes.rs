//! Rule homes: where each rule of the catalogue is decided, read from the code. A rule is *constructed*
//! where `RuleId::Name` is written as a value (a finding or issue made with it, a rule picked for a
//! direction), outside tests; a comparison (`rule == RuleId::Name`), a pattern and `matches!` only read
//! one. Every rule is constructed somewhere (a rule nothing decides is dead), and in one file only: its
//! home, whose functions the other modules call.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use syn::visit::Visit;

use super::{SourceFile, is_cfg_test};

/// One broken promise about rule homes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum HomeViolation {
    /// A rule constructed in several files.
    Scattered { rule: String, files: Vec<String> },
    /// A rule of the catalogue that no code outside tests constructs.
    Nowhere { rule: String },
}

impl fmt::Display for HomeViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HomeViolation::Scattered { rule, files } => write!(
                f,
                "rule `{rule}` is constructed in {} files ({}): decide it in one place and call that from the others",
                files.len(),
                files.join(", ")
            ),
            HomeViolation::Nowhere { rule } => write!(
                f,
                "rule `{rule}` is in the catalogue but no code outside tests constructs it: decide it, or remove it"
            ),
        }
    }
}

/// The violations of `files` (the library's sources) against the catalogue's `rule_ids`.
pub fn check(files: &[SourceFile], rule_ids: &BTreeSet<String>) -> Vec<HomeViolation> {
    let homes = homes(files);
    let mut violations = Vec::new();
    for rule in rule_ids {
        let found: Vec<String> = (homes.get(&pascal(rule)).into_iter().flatten())
            .cloned()
            .collect();
        match found.as_slice() {
            [] => violations.push(HomeViolation::Nowhere { rule: rule.clone() }),
            [_] => {}
            [_, _, ..] => violations.push(HomeViolation::Scattered {
                rule: rule.clone(),
                files: found,
            }),
        }
    }
    violations
}

/// The files outside tests that construct each `RuleId` variant, by variant name.
pub fn homes(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let mut homes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files.iter().filter(|file| !is_test_file(&file.path)) {
        let Ok(tree) = syn::parse_file(&file.text) else {
            continue;
        };
        let mut visitor = Constructions::default();
        visitor.visit_file(&tree);
        for variant in visitor.found {
            homes.entry(variant).or_default().insert(file.path.clone());
        }
    }
    homes
}

/// A file of tests by its name: `tests.rs`, `*_tests.rs`, or under a `tests/` directory (each declared
/// `#[cfg(test)]` by its parent).
fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "tests.rs" || name.ends_with("_tests.rs") || path.contains("/tests/")
}

/// The `RuleId` variants a file constructs.
#[derive(Default)]
struct Constructions {
    found: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Constructions {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !item.attrs.iter().any(is_cfg_test) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !item.attrs.iter().any(is_cfg_test) {
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !item.attrs.iter().any(is_cfg_test) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        // A path pattern (`RuleId::Name =>`) is parsed as a path expression: it reads the rule.
        if !matches!(pat, syn::Pat::Path(_)) {
            syn::visit::visit_pat(self, pat);
        }
    }

    fn visit_expr_binary(&mut self, expr: &'ast syn::ExprBinary) {
        let compares = matches!(expr.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_));
        for side in [&*expr.left, &*expr.right] {
            if !(compares && rule_variant(side).is_some()) {
                self.visit_expr(side);
            }
        }
    }

    fn visit_expr_path(&mut self, expr: &'ast syn::ExprPath) {
        if let Some(variant) = variant_of(&expr.path) {
            self.found.insert(variant);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let reads_only = [
            "matches",
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
        ];
        if !reads_only.iter().any(|name| mac.path.is_ident(name)) {
            tokens(mac.tokens.clone(), &mut self.found);
        }
    }
}

/// The variant of a bare `RuleId::Name` expression.
fn rule_variant(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(path) => variant_of(&path.path),
        syn::Expr::Paren(inner) => rule_variant(&inner.expr),
        _ => None,
    }
}

/// `Name` of a path ending `RuleId::Name`.
fn variant_of(path: &syn::Path) -> Option<String> {
    let mut last = path.segments.iter().rev();
    let variant = last.next()?;
    let ty = last.next()?;
    (ty.ident == "RuleId").then(|| variant.ident.to_string())
}

/// Every `RuleId :: Name` in a macro's tokens, groups included.
fn tokens(stream: TokenStream, found: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    for (at, token) in trees.iter().enumerate() {
        match token {
            TokenTree::Group(group) => tokens(group.stream(), found),
            TokenTree::Ident(ident) if ident == "RuleId" => {
                if let [
                    TokenTree::Punct(a),
                    TokenTree::Punct(b),
                    TokenTree::Ident(name),
                    ..,
                ] = &trees[at + 1..]
                    && a.as_char() == ':'
                    && b.as_char() == ':'
                {
                    found.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
}

/// `field_removed` → `FieldRemoved`.
fn pascal(id: &str) -> String {
    id.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::file;
    use super::*;

    fn ids(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| (*id).to_owned()).collect()
    }

    #[test]
    fn constructions_are_values_outside_tests() {
        let files = [
            file(
                "src/compat/a.rs",
                "fn a(r: RuleId) -> Issue {\n    if r == RuleId::FieldAdded { return x(); }\n    if matches!(r, RuleId::FieldRemoved) {}\n    match r { RuleId::VariantAdded => {} _ => {} }\n    Issue::breaking(RuleId::FieldTypeChanged, m)\n}\n#[cfg(test)]\nmod tests { fn t() { f(RuleId::KindChanged); } }\n",
            ),
            file(
                "src/compat/b.rs",
                "fn b() { let v = vec![crate::rules::RuleId::FieldTypeChanged]; }\n",
            ),
            file(
                "src/compat/tests/c.rs",
                "fn c() { f(RuleId::TopicRenamed); }",
            ),
        ];
        let homes = homes(&files);
        assert_eq!(
            homes.keys().cloned().collect::<Vec<_>>(),
            ["FieldTypeChanged"]
        );
        assert_eq!(homes["FieldTypeChanged"].len(), 2);
    }

    #[test]
    fn every_rule_has_one_home() {
        let files = [
            file(
                "src/a.rs",
                "fn a() { f(RuleId::FieldAdded, RuleId::FieldRemoved); }",
            ),
            file("src/b.rs", "fn b() { f(RuleId::FieldAdded); }"),
        ];
        let all = ids(&["field_added", "field_removed", "kind_changed"]);
        assert_eq!(
            check(&files, &all),
            [
                HomeViolation::Scattered {
                    rule: "field_added".into(),
                    files: vec!["src/a.rs".into(), "src/b.rs".into()],
                },
                HomeViolation::Nowhere {
                    rule: "kind_changed".into(),
                },
            ]
        );
        assert!(check(&files[..1], &ids(&["field_added", "field_removed"])).is_empty());
    }
}
