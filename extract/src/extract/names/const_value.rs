//! The value of a named integer constant, as rustc evaluates it: the path resolved where it is written
//! (a `use`, another module, a dependency by the name its crate gives it), the `const` item found in
//! the module the path leads to, and its expression evaluated there (`extract::consts`), its own names
//! resolved from that module in turn.
//!
//! The lowering asks this through its revision (`Revision::const_value`), which records the question
//! with the value: a record is replayed only where the same path still has the same value.

use syn::Item;

use super::super::cfg::{self, Truth};
use super::super::consts;
use super::super::scan::ItemKind;
use super::super::syntax::{inline_items, unraw};
use super::{NameTarget, Names};

/// How many constants deep one evaluation follows names (a constant naming itself is a compile error;
/// here its value is unknown).
const MAX_DEPTH: usize = 16;

impl<'a> Names<'a> {
    /// The value of the constant `segments` names as written in `module`; `None` when it is not a
    /// `const` item of a mounted module whose expression evaluates. A file it reads that does not
    /// parse is left out, never the revision's error (the length is then compared by its text).
    pub(in crate::extract) fn const_value(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Option<i128> {
        let error = self.error.take();
        let value = self.const_value_at(module, segments, 0);
        self.error = error;
        value
    }

    fn const_value_at(
        &mut self,
        module: &[String],
        segments: &[String],
        depth: usize,
    ) -> Option<i128> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (owner, name) = match self.resolve(module, segments).target {
            NameTarget::External(path) => match path.split_last() {
                Some((last, prefix)) if !prefix.is_empty() => (prefix.to_vec(), last.clone()),
                Some((last, _)) => (module.to_vec(), last.clone()),
                None => return None,
            },
            NameTarget::Type(_) | NameTarget::Module(_) => return None,
        };
        let item = self.const_item(&owner, &name)?;
        let mut named = |path: &[String]| self.const_value_at(&owner, path, depth + 1);
        consts::evaluate(&item.expr, &mut named)
    }

    /// The `const` item `name` of the module at `module` in the build (its `#[cfg]` not ruling it
    /// out), in a file parsed item by item or whole.
    fn const_item(&mut self, module: &[String], name: &str) -> Option<&'a syn::ItemConst> {
        let (file, inline) = self.find_in_build(module)?;
        let features = self.features_of(module).clone();
        let built = |item: &syn::ItemConst| cfg::active(&item.attrs, &features) != Truth::No;
        match self.scanned_items(file)? {
            Some(items) => {
                let indices: Vec<usize> = items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| {
                        matches!(&item.kind, ItemKind::Value(found) if found == name)
                            && item.parents == inline
                    })
                    .map(|(index, _)| index)
                    .collect();
                indices
                    .into_iter()
                    .find_map(|index| match self.scanned_item(file, index) {
                        Some(Item::Const(item)) if built(item) => Some(item),
                        _ => None,
                    })
            }
            None => {
                let ast = self.ast(file)?;
                let (_, items) = inline_items(ast, &inline, &|module| {
                    cfg::active(&module.attrs, &features) != Truth::No
                })?;
                items.iter().find_map(|item| match item {
                    Item::Const(item) if unraw(&item.ident) == name && built(item) => Some(item),
                    _ => None,
                })
            }
        }
    }
}
