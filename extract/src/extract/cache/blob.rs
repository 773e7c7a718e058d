//! One file as the cache holds it ([`Blob`]): its text, scan, syntax tree (whole, or item by item as the
//! scan splits it) and declarations, each found on first use; and a parse's failure without the file's
//! path ([`ParseFailure`]), since one blob can be at several paths.

use std::cell::OnceCell;
use std::sync::Arc;

use git2::Oid;

use super::super::ExtractError;
use super::super::declarations::{self, Declaration, ItemAt};
use super::super::expand;
use super::super::scan::{self, ItemKind, ModItem, ScanItem, Scanned};
use super::super::syntax::{self, ItemBase};
use super::{FileScan, SourceCache};

/// A syn error without the file it is in (one blob can be at several paths).
#[derive(Debug, Clone)]
pub(in crate::extract) struct ParseFailure {
    line: u32,
    column: u32,
    message: String,
    /// The file's text could not be read (see [`SourceCache::know_scans`]): not a syntax error.
    unread: bool,
}

impl ParseFailure {
    /// The failure of a syn parse (of a file, or of an item with `base`: where it is in its file).
    fn new(error: &syn::Error, base: Option<ItemBase>) -> Self {
        let at = syntax::file_position(error.span());
        // An error without a place (the end of the input) is reported where the item starts.
        let (line, column) = match base {
            Some(base) if at.line == 0 => (base.line as usize, base.column as usize),
            _ => (at.line, at.column),
        };
        ParseFailure {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
            message: error.to_string(),
            unread: false,
        }
    }

    /// A file whose text could not be read, and why.
    pub(super) fn unread(message: String) -> Self {
        ParseFailure {
            line: 0,
            column: 0,
            message,
            unread: true,
        }
    }

    /// The error, for the file at `path`.
    pub(in crate::extract) fn at(&self, path: &str) -> ExtractError {
        if self.unread {
            return ExtractError::Read {
                file: path.to_owned(),
                message: self.message.clone(),
            };
        }
        ExtractError::Parse {
            file: path.to_owned(),
            line: self.line,
            column: self.column,
            message: self.message.clone(),
        }
    }
}

/// One file's content and what was learnt from it.
pub(in crate::extract) struct Blob {
    id: Oid,
    /// Set when the blob is read; else (a file known by its kept scan) read on first use.
    pub(super) text: OnceCell<Result<String, ParseFailure>>,
    /// The `mod` declarations read by the scan; `None` when the scan could not read the file.
    pub(super) scanned: Option<Vec<ModItem>>,
    /// An item's attributes (tokens, not text) say it may declare a protocol or a message, or the scan
    /// could not read the file (syn then decides).
    pub(super) may_declare: bool,
    /// The whole file's syntax tree, its own `macro_rules!` expanded.
    ast: OnceCell<Result<expand::Expanded, ParseFailure>>,
    /// The items as the scan splits them, each parsed alone on first use; `None` inside when the scan
    /// cannot split the file with certainty (it is then parsed whole).
    pub(super) items: OnceCell<Option<Items>>,
    /// The `mod` declarations read from the syntax tree, when the scan could not read them.
    ast_mods: OnceCell<Vec<ModItem>>,
    pub(super) declarations: OnceCell<Arc<[Declaration]>>,
}

impl Blob {
    pub(super) fn new(id: Oid, text: String) -> Self {
        Self::scanned(id, Scanned::of(text))
    }

    /// The blob `id`, whose text is `scanned`'s.
    pub(super) fn scanned(id: Oid, Scanned { text, scan, items }: Scanned) -> Self {
        let may_declare = scan.as_ref().is_none_or(|scan| scan.declares);
        Blob {
            id,
            text: OnceCell::from(Ok(text)),
            scanned: scan.map(|scan| scan.mods),
            may_declare,
            ast: OnceCell::new(),
            items: items.map_or_else(OnceCell::new, |items| OnceCell::from(Items::of(items))),
            ast_mods: OnceCell::new(),
            declarations: OnceCell::new(),
        }
    }

    /// A file known by its kept scan (its text read on first use).
    pub(super) fn known(id: Oid, scan: FileScan) -> Self {
        let may_declare = scan.items.is_some();
        Blob {
            id,
            text: OnceCell::new(),
            scanned: Some(scan.mods),
            may_declare,
            ast: OnceCell::new(),
            items: scan.items.map_or_else(OnceCell::new, |items| {
                OnceCell::from(Items::of(Some(items)))
            }),
            ast_mods: OnceCell::new(),
            declarations: OnceCell::new(),
        }
    }

    /// The file's text, read on first use when the blob was known by its scan alone.
    pub(super) fn text(&self, cache: &SourceCache) -> Result<&str, ParseFailure> {
        self.text
            .get_or_init(|| cache.object_text(self.id))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// Its git blob id.
    pub(in crate::extract) fn id(&self) -> Oid {
        self.id
    }

    /// Whether the file may declare a protocol or a message.
    pub(in crate::extract) fn may_declare(&self) -> bool {
        self.may_declare
    }

    /// Whether the file's text contains `word`; a file whose text is not read (known by its kept scan:
    /// see [`Blob::known`]) counts as one that does, so that no caller skips it unread.
    pub(in crate::extract) fn mentions(&self, word: &str) -> bool {
        match self.text.get() {
            Some(Ok(text)) => text.contains(word),
            _ => true,
        }
    }

    /// The syntax tree, parsed on first use.
    pub(in crate::extract) fn ast(&self, cache: &SourceCache) -> Result<&syn::File, ParseFailure> {
        self.expanded(cache).map(|expanded| &expanded.file)
    }

    /// The syntax tree with the invocations of the file's own `macro_rules!` expanded (those left as
    /// written listed with why), parsed on first use.
    pub(in crate::extract) fn expanded(
        &self,
        cache: &SourceCache,
    ) -> Result<&expand::Expanded, ParseFailure> {
        let text = self.text(cache)?;
        self.ast
            .get_or_init(|| {
                cache.count(|stats| stats.parsed += 1);
                // Invocations of the file's own `macro_rules!` become the items they write.
                syn::parse_file(text)
                    .map(expand::expand_file)
                    .map_err(|e| ParseFailure::new(&e, None))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The item-level `mod` declarations, from the scan or else from the syntax tree.
    pub(in crate::extract) fn mods(&self, cache: &SourceCache) -> Result<&[ModItem], ParseFailure> {
        if let Some(mods) = &self.scanned {
            return Ok(mods);
        }
        let file = self.ast(cache)?;
        Ok(self.ast_mods.get_or_init(|| scan::mods_of_syntax(file)))
    }

    /// The protocol and message declarations (and `#[wire]`-writing macros) of the file: of a file the
    /// scan splits into items, only the items it says may declare are parsed.
    pub(in crate::extract) fn declarations(
        &self,
        cache: &SourceCache,
    ) -> Result<&[Declaration], ParseFailure> {
        if let Some(found) = self.declarations.get() {
            return Ok(found);
        }
        if let Some(found) = cache.known_declarations(self.id) {
            return Ok(self.declarations.get_or_init(|| found));
        }
        let found = match self.scanned_items(cache)? {
            Some(items) => {
                let mut found = Vec::new();
                for (index, scanned) in items.iter().enumerate() {
                    if scanned.declares {
                        let item = self.item(index, cache)?;
                        declarations::item_declarations(
                            item,
                            &scanned.parents,
                            ItemAt::Scanned(index),
                            &mut found,
                        );
                    }
                }
                found
            }
            None => declarations::declarations_of(self.ast(cache)?),
        };
        Ok(self.declarations.get_or_init(|| found.into()))
    }

    /// Whether a declaration of the file, as read so far, is on the item at `at` (which then parses).
    pub(in crate::extract) fn declares_at(&self, at: &ItemAt) -> bool {
        self.declarations
            .get()
            .is_some_and(|found| found.iter().any(|declaration| declaration.item == *at))
    }

    /// The items of the file as the scan splits them (read on first use); `None` when the file is
    /// parsed whole: the scan cannot split it with certainty, or it invokes at item level a
    /// `macro_rules!` it defines (`expand` replaces such invocations in the whole file's tree).
    pub(in crate::extract) fn scanned_items(
        &self,
        cache: &SourceCache,
    ) -> Result<Option<&[ScanItem]>, ParseFailure> {
        let items = match self.items.get() {
            Some(items) => items,
            None => {
                let text = self.text(cache)?;
                self.items
                    .get_or_init(|| Items::of(scan::items(scan::syn_content(text))))
            }
        };
        Ok(items.as_ref().map(|items| items.items.as_slice()))
    }

    /// The syntax tree of the scan's item `index` (see [`Blob::scanned_items`]), parsed alone on first
    /// use; its spans read as positions in the file (`syntax::file_position`).
    pub(in crate::extract) fn item(
        &self,
        index: usize,
        cache: &SourceCache,
    ) -> Result<&syn::Item, ParseFailure> {
        // The items of a file the index knew by its kept names are split now.
        self.scanned_items(cache)?;
        let text = self.text(cache)?;
        let Some(items) = self.items.get().and_then(Option::as_ref) else {
            return Err(ParseFailure::unread(
                "its items were asked for, but it is parsed whole; run with --no-cache".to_owned(),
            ));
        };
        let Some(tree) = items.trees.get(index) else {
            return Err(ParseFailure::unread(format!(
                "it has no item {index}; run with --no-cache"
            )));
        };
        tree.get_or_init(|| {
            cache.count(|stats| stats.parsed_items += 1);
            let scanned = &items.items[index];
            let content = scan::syn_content(text);
            let column = content[scanned.line_start..scanned.start].chars().count();
            let base = ItemBase {
                line: scanned.line,
                column: u32::try_from(column).unwrap_or(u32::MAX),
                byte: scanned.start,
            };
            syntax::parse_item(&content[scanned.start..scanned.end], base)
                .map_err(|e| ParseFailure::new(&e, Some(base)))
        })
        .as_ref()
        .map_err(Clone::clone)
    }
}

/// Whether an item-level macro invocation of the file names a `macro_rules!` the file defines: `expand`
/// may expand it, which needs the whole file (the definition and every invocation after it).
fn invokes_own_macro(items: &[ScanItem]) -> bool {
    let defined: Vec<&str> = items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::MacroRules(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    !defined.is_empty()
        && items.iter().any(|item| {
            matches!(&item.kind, ItemKind::MacroCall(name, _) if defined.contains(&name.as_str()))
        })
}

/// The items of a blob as the scan splits them, with their syntax trees once parsed.
pub(super) struct Items {
    pub(super) items: Vec<ScanItem>,
    trees: Vec<OnceCell<Result<syn::Item, ParseFailure>>>,
}

impl Items {
    /// The scan's items of a blob, to be parsed one by one; `None` (the file is parsed whole) when the
    /// scan could not split it, or when it invokes a `macro_rules!` it defines.
    fn of(items: Option<Vec<ScanItem>>) -> Option<Items> {
        items
            .filter(|items| !invokes_own_macro(items))
            .map(|items| Items {
                trees: items.iter().map(|_| OnceCell::new()).collect(),
                items,
            })
    }
}
