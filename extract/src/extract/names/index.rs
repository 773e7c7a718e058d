//! Indexing a module: the names its items define and import (type items by name, `use` items,
//! child modules, macro invocations), from the scan of a file parsed item by item or from the syntax
//! of one parsed whole, kept in the cache between revisions.

use super::*;

impl<'a> Names<'a> {
    /// The names of a module of a file parsed item by item, from the scan: type items by name (parsed
    /// when a lookup reaches them), `use` items (each parsed alone), child modules and macro invocations.
    /// Only what a lookup needs is ever parsed. The names are kept in the cache (see
    /// [`Names::kept_scope`]) unless a `use` item does not parse.
    pub(super) fn index_scanned_module(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
        items: &'a [ScanItem],
    ) -> ModuleScope<'a> {
        let features = self.features_of(path).clone();
        let (scope, parsed) = self.read_scanned_items(file, path, inline, items);
        // A `use` that does not parse leaves the scope without it, not kept (the error is); nor is the
        // scope of a large generated module (see `MAX_KEPT_ITEMS`).
        let names = scope.types.len()
            + scope.mods.len()
            + scope.uses.len()
            + scope.globs.len()
            + scope.macros.len();
        if parsed && names <= MAX_KEPT_ITEMS {
            let key = ScopeKey {
                inline: inline.to_vec(),
                features,
            };
            self.tree
                .cache
                .keep_scope(file.blob.id(), key, kept_of(&scope));
        }
        scope
    }

    /// The scope of the module at `path` (the inline modules `inline` of `file`) when the cache knows
    /// its names (the same blob, inline modules and features: kept by an earlier check, or indexed at
    /// an earlier revision), without reading the file.
    pub(super) fn kept_scope(
        &self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
    ) -> Option<ModuleScope<'a>> {
        let key = ScopeKey {
            inline: inline.to_vec(),
            features: self.features_of(path).clone(),
        };
        let kept = self.tree.cache.scope(file.blob.id(), &key)?;
        Some(scope_of(&kept, file, path))
    }

    /// The scope a module's items make, and whether every `use` item parsed.
    pub(super) fn read_scanned_items(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[String],
        items: &'a [ScanItem],
    ) -> (ModuleScope<'a>, bool) {
        let mut scope = ModuleScope {
            path: path.to_vec(),
            file: Some(file),
            ..ModuleScope::default()
        };
        let mut parsed = true;
        for (index, item) in items.iter().enumerate() {
            if item.parents != inline || !self.inside_built_inline(file, inline, item.start) {
                continue;
            }
            match &item.kind {
                ItemKind::Type(name) => {
                    // Only an item with a `#[cfg]` is parsed to index it: its attributes decide
                    // whether it exists. One that does not parse stays, for a lookup to report.
                    if item.cfg
                        && let Ok(parsed) = file.blob.item(index, self.tree.cache)
                        && !self.in_build(path, parsed)
                    {
                        continue;
                    }
                    scope.types.insert(name.clone(), TypeSlot::Scanned(index));
                }
                ItemKind::Use => {
                    // A `use` its `#[cfg]` leaves out binds nothing (two of one name, each behind a
                    // `cfg`, are common).
                    match self.scanned_item(file, index) {
                        Some(Item::Use(item_use))
                            if cfg::active(&item_use.attrs, self.features_of(path))
                                != Truth::No =>
                        {
                            scope.add_use(&item_use.tree, &mut Vec::new());
                        }
                        Some(_) => {}
                        None => parsed = false,
                    }
                }
                ItemKind::Mod(name) => {
                    // A module its `#[cfg]` leaves out is not there (its name may be another's).
                    if item.cfg && !self.mod_in_build(file, item.start..item.end) {
                        continue;
                    }
                    let mut child = path.to_vec();
                    child.push(name.clone());
                    scope.mods.insert(name.clone(), child);
                }
                ItemKind::MacroCall(name, pos) => {
                    scope.macros.push(macro_note(&file.path, name, *pos));
                }
                ItemKind::MacroRules(_)
                | ItemKind::Impl { .. }
                | ItemKind::Fn(_)
                | ItemKind::Value(_)
                | ItemKind::Other => {}
            }
        }
        (scope, parsed)
    }

    /// Whether the type item `item` of the module at `path` is in the build checked, by its `#[cfg]`s
    /// (one that depends on the target or profile keeps it).
    pub(super) fn in_build(&self, path: &[String], item: &Item) -> bool {
        cfg::active(item_attrs(item), self.features_of(path)) != Truth::No
    }

    /// The id of the type item `name` a slot of the module `module` (in `file`) holds, parsing it first
    /// when needed; `None` when it does not parse (the error is kept).
    pub(super) fn type_id(
        &mut self,
        slot: TypeSlot,
        file: Option<&'a ModuleFile>,
        module: &[String],
        name: &str,
    ) -> Option<usize> {
        match (slot, file) {
            (TypeSlot::Id(id), _) => Some(id),
            (TypeSlot::Scanned(index), Some(file)) => {
                let at = ItemAt::Scanned(index);
                // An item a record names parsed when the record was made (the same blob's item), and
                // so did one that declares (declarations are read from the syntax): it is parsed only
                // if its lowering is not replayed. Any other is parsed now, so that one that does not
                // parse is not a type.
                let item = if self.tree.cache.lowered().knows(file.blob.id(), &at)
                    || file.blob.declares_at(&at)
                {
                    None
                } else {
                    Some(self.scanned_item(file, index)?)
                };
                Some(self.intern(file, module, at, name, item))
            }
            (TypeSlot::Scanned(_), None) => None,
        }
    }

    /// The names of a module of a file parsed whole: its `items`, which the indices `inline` lead to
    /// from the file's items.
    pub(super) fn index_module(
        &mut self,
        file: &'a ModuleFile,
        path: &[String],
        inline: &[usize],
        items: &'a [Item],
    ) -> ModuleScope<'a> {
        let mut scope = ModuleScope {
            path: path.to_vec(),
            ..ModuleScope::default()
        };
        for (index, item) in items.iter().enumerate() {
            match item {
                Item::Struct(_) | Item::Enum(_) | Item::Type(_) => {
                    if !self.in_build(path, item) {
                        continue;
                    }
                    let at = ItemAt::Path([inline, &[index]].concat());
                    let id = self.intern(file, path, at, &item_name(item), Some(item));
                    scope.types.insert(item_name(item), TypeSlot::Id(id));
                }
                // A `use` its `#[cfg]` leaves out binds nothing.
                Item::Use(item_use)
                    if cfg::active(&item_use.attrs, self.features_of(path)) != Truth::No =>
                {
                    scope.add_use(&item_use.tree, &mut Vec::new());
                }
                Item::Macro(item_macro) if item_macro.ident.is_none() => {
                    let name = item_macro
                        .mac
                        .path
                        .segments
                        .last()
                        .map(|segment| segment.ident.to_string())
                        .unwrap_or_default();
                    let span = item_macro.mac.path.span();
                    // One of the file's own macros that was not expanded: why (the notes say it).
                    let message = match file
                        .blob
                        .expanded(self.tree.cache)
                        .ok()
                        .and_then(|expanded| expanded.unexpanded_at(span.start()))
                    {
                        Some(left) => format!("macro `{name}!` ({})", left.reason),
                        None => format!("macro `{name}!`"),
                    };
                    scope.macros.push(note(&file.path, span, message));
                }
                Item::Mod(module) => {
                    if cfg::active(&module.attrs, self.features_of(path)) == Truth::No {
                        continue;
                    }
                    let name = unraw(&module.ident);
                    let mut child = path.to_vec();
                    child.push(name.clone());
                    scope.mods.insert(name, child);
                }
                _ => {}
            }
        }
        scope
    }
}
