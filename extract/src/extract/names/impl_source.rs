//! The source of a type's hand-written serde impls, as far as it can be read: the type item, the impls
//! its crate writes for it (any trait but those that cannot change what serde writes or reads:
//! `Debug`, `Clone`, `PartialEq` ...), and, followed from their tokens, the items they name in the same
//! crate: the types (with their own impls), the functions, constants and statics of the modules they are
//! written in, and the methods of inherent impls of those types that they call. Its digest is what two
//! revisions compare: the same digest is the same code, so the same wire, whatever the package version
//! says; a different one is a change wirecheck cannot read.
//!
//! Doc comments are left out of the digest (`#[doc]` attributes), and so is whitespace (tokens are
//! hashed, not text). What the impls call in other crates is not followed: a dependency's code changes
//! only with its version, and is compared where the dependency's own types are.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::rc::Rc;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use rustc_hash::FxHashSet;
use syn::{ImplItem, Item};

use super::super::cache::{ChildSource, ModPath, ModuleFile};
use super::super::cfg::{self, Truth};
use super::super::declarations::ItemAt;
use super::super::reuse::ImplRoots;
use super::super::scan::ItemKind;
use super::super::syntax::inline_items;
use super::{NameTarget, Names};
use crate::model::Location;

/// At most this many items are read for one type's source: past it, the digest covers what was read
/// (a change beyond it is missed, never invented).
const MAX_PARTS: usize = 96;

/// Traits whose impls cannot change what serde writes or reads for a type.
const INERT_TRAITS: &[&str] = &[
    "Debug",
    "Clone",
    "Copy",
    "PartialEq",
    "Eq",
    "Hash",
    "PartialOrd",
    "Ord",
    "Send",
    "Sync",
    "Unpin",
    "Drop",
    "Error",
    "JsonSchema",
    "Arbitrary",
];

/// What [`Names::impl_source`] read of a type's hand-written impls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::extract) struct ImplSource {
    /// XXH3-128 of the tokens read, in the order read, as hex.
    pub(in crate::extract) digest: String,
    /// Where the type's own impls of serde's traits are (the first of each), for the words of a
    /// finding.
    pub(in crate::extract) serde_impls: Vec<Location>,
}

/// What [`Names::fn_source`] read of a function: its syntax, where it is, and the digest of its
/// source (what it calls in its crate included).
#[derive(Clone)]
pub(in crate::extract) struct FnSource<'a> {
    /// The function item.
    pub(in crate::extract) item: &'a syn::ItemFn,
    /// The module it is written in (what its names resolve against).
    pub(in crate::extract) module: ModPath,
    /// Its file, relative to the workspace root.
    pub(in crate::extract) file: &'a str,
    /// Where its name is written.
    pub(in crate::extract) location: Location,
    /// XXH3-128 of the tokens read, as hex.
    pub(in crate::extract) digest: String,
}

/// An impl item of a crate, by the name of the type it is for.
#[derive(Clone)]
pub(super) struct ImplAt<'a> {
    file: &'a ModuleFile,
    at: ItemAt,
    module: ModPath,
    self_name: String,
    trait_name: Option<String>,
}

/// What one reading is to read next.
enum Part<'a> {
    /// A type item of the crate, by id.
    Type(usize),
    /// An impl of a type read (`of`: its id).
    Impl(ImplAt<'a>, usize),
    /// A function, constant or static, in its module.
    Value(&'a ModuleFile, ItemAt, ModPath),
    /// A method of an inherent impl, called by name.
    Method(TokenStream, ModPath),
}

/// One type's reading in progress.
struct Reading<'a> {
    krate: String,
    queue: VecDeque<Part<'a>>,
    /// Type ids, impls and values queued already.
    types: FxHashSet<usize>,
    items: FxHashSet<(usize, ItemAt)>,
    /// The methods of the inherent impls of the types read, by name, with their module.
    methods: Vec<(String, TokenStream, ModPath)>,
    called: FxHashSet<String>,
    text: String,
    parts: usize,
    serde_impls: Vec<Location>,
}

impl Reading<'_> {
    fn new(krate: String) -> Self {
        Reading {
            krate,
            queue: VecDeque::new(),
            types: FxHashSet::default(),
            items: FxHashSet::default(),
            methods: Vec::new(),
            called: FxHashSet::default(),
            text: String::new(),
            parts: 0,
            serde_impls: Vec::new(),
        }
    }
}

impl<'a> Names<'a> {
    /// The source of the hand-written impls of the type item `id` (see the module documentation);
    /// `None` when its item cannot be read. The same for one id in one revision (kept).
    ///
    /// A file or item it reads that does not parse is left out, never the revision's error: nothing
    /// the check needs is in it (an item the model needs reports its error when the model reads it).
    pub(in crate::extract) fn impl_source(
        &mut self,
        id: usize,
        roots: ImplRoots,
    ) -> Option<Rc<ImplSource>> {
        if let Some(found) = self.impl_sources.get(&(id, roots)) {
            return found.clone();
        }
        let error = self.error.take();
        let found = self.read_impl_source(id, roots).map(Rc::new);
        self.error = error;
        self.impl_sources.insert((id, roots), found.clone());
        found
    }

    /// The function at the full path `function` (its crate's name first) and the digest of its
    /// source: its tokens and, followed from them like an impl's, the items it names in its crate;
    /// `None` when no function of the crate is there, or its item does not parse. For the
    /// `serialize_with` and `deserialize_with` functions of a field (see `lower/with_fns`).
    pub(in crate::extract) fn fn_source(
        &mut self,
        function: &[String],
    ) -> Option<Rc<FnSource<'a>>> {
        if let Some(found) = self.fn_sources.get(function) {
            return found.clone();
        }
        let error = self.error.take();
        let found = self.read_fn_source(function).map(Rc::new);
        self.error = error;
        self.fn_sources.insert(function.to_vec(), found.clone());
        found
    }

    fn read_fn_source(&mut self, function: &[String]) -> Option<FnSource<'a>> {
        let (name, module) = function.split_last()?;
        let krate = module.first()?.clone();
        let (file, at) = self.value_in(module, name)?;
        let Item::Fn(item) = self.item_at(file, &at)? else {
            return None;
        };
        let location = super::super::location(&file.path, item.sig.ident.span());
        let mut reading = Reading::new(krate);
        reading.items.insert((file_key(file), at.clone()));
        reading
            .queue
            .push_back(Part::Value(file, at, module.to_vec()));
        self.read_queue(&mut reading);
        let digest = twox_hash::XxHash3_128::oneshot(reading.text.as_bytes());
        Some(FnSource {
            item,
            module: module.to_vec(),
            file: file.path.as_str(),
            location,
            digest: format!("{digest:032x}"),
        })
    }

    fn read_impl_source(&mut self, id: usize, roots: ImplRoots) -> Option<ImplSource> {
        let krate = self.items[id].module.first()?.clone();
        let mut reading = Reading::new(krate);
        reading.types.insert(id);
        match roots.trait_name() {
            None => reading.queue.push_back(Part::Type(id)),
            Some(trait_name) => {
                // The type item is not read (its fields are compared as the derive's), only the impls
                // of the one trait, and what they call.
                for found in self.impls_for(id, &reading.krate.clone()) {
                    if found.trait_name.as_deref() == Some(trait_name)
                        && reading
                            .items
                            .insert((file_key(found.file), found.at.clone()))
                    {
                        reading.queue.push_back(Part::Impl(found, id));
                    }
                }
            }
        }
        self.read_queue(&mut reading);
        if reading.text.is_empty() && roots == ImplRoots::Type {
            // The type item itself did not parse.
            return None;
        }
        let digest = twox_hash::XxHash3_128::oneshot(reading.text.as_bytes());
        Some(ImplSource {
            digest: format!("{digest:032x}"),
            serde_impls: reading.serde_impls,
        })
    }

    /// Reads the parts queued, and those their names lead to, up to [`MAX_PARTS`].
    fn read_queue(&mut self, reading: &mut Reading<'a>) {
        while let Some(part) = reading.queue.pop_front() {
            if reading.parts >= MAX_PARTS {
                break;
            }
            reading.parts += 1;
            let Some((tokens, module)) = self.read_part(part, reading) else {
                continue;
            };
            write_tokens(&mut reading.text, tokens.clone());
            reading.text.push('\n');
            let mut named = Vec::new();
            paths(tokens, &mut named);
            for path in named {
                self.follow(&path, &module, reading);
            }
        }
    }

    /// The tokens of `part` and the module its names resolve in; `None` when it is not read (an impl
    /// of an inert trait, an inherent impl, whose methods are read when called, or an item that does
    /// not parse).
    fn read_part(
        &mut self,
        part: Part<'a>,
        reading: &mut Reading<'a>,
    ) -> Option<(TokenStream, ModPath)> {
        match part {
            Part::Type(id) => {
                let item = self.syntax(id)?;
                let module = self.items[id].module.clone();
                let name = super::item_name(item);
                for found in self.impls_of(&reading.krate.clone(), &name) {
                    if reading
                        .items
                        .insert((file_key(found.file), found.at.clone()))
                    {
                        reading.queue.push_back(Part::Impl(found, id));
                    }
                }
                Some((without_inert_derives(item), module))
            }
            Part::Impl(found, of) => self.read_impl(found, of, reading),
            Part::Value(file, at, module) => {
                let item = self.item_at(file, &at)?;
                Some((item.to_token_stream(), module))
            }
            Part::Method(tokens, module) => Some((tokens, module)),
        }
    }

    /// An impl of the type `of`, when it is for that type (its self type resolves to it): a trait
    /// impl's tokens, or an inherent impl's methods kept for when they are called.
    fn read_impl(
        &mut self,
        found: ImplAt<'a>,
        of: usize,
        reading: &mut Reading<'a>,
    ) -> Option<(TokenStream, ModPath)> {
        if found
            .trait_name
            .as_deref()
            .is_some_and(|name| INERT_TRAITS.contains(&name))
        {
            return None;
        }
        let Item::Impl(item) = self.item_at(found.file, &found.at)? else {
            return None;
        };
        if !self.impl_is_for(item, &found.module, of) {
            return None;
        }
        let Some((trait_path, _)) = &item.trait_ else {
            for impl_item in &item.items {
                if let ImplItem::Fn(method) = impl_item {
                    let name = super::unraw(&method.sig.ident);
                    let tokens = method.to_token_stream();
                    if reading.called.contains(&name) {
                        reading
                            .queue
                            .push_back(Part::Method(tokens, found.module.clone()));
                    } else {
                        reading.methods.push((name, tokens, found.module.clone()));
                    }
                }
            }
            return None;
        };
        let trait_name = trait_path
            .segments
            .last()
            .map(|segment| super::unraw(&segment.ident));
        if matches!(trait_name.as_deref(), Some("Serialize" | "Deserialize")) {
            let span = syn::spanned::Spanned::span(&item.self_ty);
            reading
                .serde_impls
                .push(super::super::location(&found.file.path, span));
        }
        Some((item.to_token_stream(), found.module))
    }

    /// Queues what the path `segments`, met in the tokens of a part written in `module`, names in
    /// the crate: a type item, or a function, constant or static; and, for each of its segments, the
    /// methods of that name of the inherent impls read (`value.method()`, `Type::method`). A path is
    /// resolved whole, as rustc does: `std::result::Result` is std's, whatever the crate calls
    /// `Result`.
    fn follow(&mut self, segments: &[String], module: &[String], reading: &mut Reading<'a>) {
        for name in segments {
            self.follow_method(name, reading);
        }
        let Some(name) = segments.last() else {
            return;
        };
        match self.resolve_to_border(module, segments).target {
            NameTarget::Type(id) => {
                if self.items[id].module.first() == Some(&reading.krate) && reading.types.insert(id)
                {
                    reading.queue.push_back(Part::Type(id));
                }
            }
            NameTarget::Module(_) => {}
            NameTarget::External(path) => {
                let (value_module, value_name) = match path.split_last() {
                    Some((last, prefix)) if !prefix.is_empty() => (prefix.to_vec(), last.clone()),
                    _ => (module.to_vec(), name.to_owned()),
                };
                if value_module.first() != Some(&reading.krate) {
                    return;
                }
                if let Some((file, at)) = self.value_in(&value_module, &value_name)
                    && reading.items.insert((file_key(file), at.clone()))
                {
                    reading.queue.push_back(Part::Value(file, at, value_module));
                }
            }
        }
    }

    /// Queues the methods named `name` of the inherent impls read, the first time it is met.
    fn follow_method(&mut self, name: &str, reading: &mut Reading<'a>) {
        if !reading.called.insert(name.to_owned()) {
            return;
        }
        let mut kept = Vec::new();
        for (method, tokens, at) in std::mem::take(&mut reading.methods) {
            if method == name {
                reading.queue.push_back(Part::Method(tokens, at));
            } else {
                kept.push((method, tokens, at));
            }
        }
        reading.methods = kept;
    }

    /// The function, constant or static `name` of the module at `module`, if its file is parsed item
    /// by item and has one.
    fn value_in(&mut self, module: &[String], name: &str) -> Option<(&'a ModuleFile, ItemAt)> {
        let (file, inline) = self.find_in_build(module)?;
        let Some(items) = self.scanned_items(file)? else {
            // A file the scan cannot split: its syntax tree, through its inline modules in the build.
            let ast = self.ast(file)?;
            let features = self.features_of(module).clone();
            let (mut path, items) = inline_items(ast, &inline, &|module| {
                cfg::active(&module.attrs, &features) != Truth::No
            })?;
            path.push(items.iter().position(|item| value_named(item, name))?);
            return Some((file, ItemAt::Path(path)));
        };
        items.iter().enumerate().find_map(|(index, item)| {
            let named = matches!(&item.kind, ItemKind::Fn(n) | ItemKind::Value(n) if n == name);
            (named && item.parents == inline).then_some((file, ItemAt::Scanned(index)))
        })
    }

    /// The impls of the trait `trait_name` (by its last segment) for the type item `id`, each with
    /// the module it is written in and its file: those whose self type resolves to the item. Read like
    /// [`Names::impl_source`]: what does not parse is left out.
    pub(in crate::extract) fn trait_impls(
        &mut self,
        id: usize,
        trait_name: &str,
    ) -> Vec<(&'a syn::ItemImpl, ModPath, &'a str)> {
        let Some(krate) = self.items[id].module.first().cloned() else {
            return Vec::new();
        };
        let error = self.error.take();
        let mut out = Vec::new();
        for found in self.impls_for(id, &krate) {
            if found.trait_name.as_deref() != Some(trait_name) {
                continue;
            }
            if let Some(Item::Impl(item)) = self.item_at(found.file, &found.at)
                && self.impl_is_for(item, &found.module, id)
            {
                out.push((item, found.module.clone(), found.file.path.as_str()));
            }
        }
        self.error = error;
        out
    }

    /// The impls of the crate `krate` named for the type item `id` (by its name).
    fn impls_for(&mut self, id: usize, krate: &str) -> Vec<ImplAt<'a>> {
        let Some(item) = self.syntax(id) else {
            return Vec::new();
        };
        let name = super::item_name(item);
        self.impls_of(krate, &name)
    }

    /// Whether the impl `item`, written in `module`, is for the type item `id`.
    fn impl_is_for(&mut self, item: &syn::ItemImpl, module: &[String], id: usize) -> bool {
        let syn::Type::Path(self_ty) = strip_reference(&item.self_ty) else {
            return false;
        };
        let segments: Vec<String> = self_ty
            .path
            .segments
            .iter()
            .map(|segment| super::unraw(&segment.ident))
            .collect();
        matches!(self.resolve_to_border(module, &segments).target, NameTarget::Type(found) if found == id)
    }

    /// The impls of the crate `krate` whose self type is named `name` (by its last segment).
    fn impls_of(&mut self, krate: &str, name: &str) -> Vec<ImplAt<'a>> {
        let index = match self.impl_indexes.get(krate) {
            Some(index) => Rc::clone(index),
            None => {
                let index = Rc::new(self.index_impls(krate));
                self.impl_indexes
                    .insert(krate.to_owned(), Rc::clone(&index));
                index
            }
        };
        index
            .iter()
            .filter(|found| found.self_name == name)
            .cloned()
            .collect()
    }

    /// Every impl of the crate `krate` (a workspace crate or a dependency, by its root module name).
    fn index_impls(&mut self, krate: &str) -> Vec<ImplAt<'a>> {
        let tree: &'a super::ModuleTree<'a> = self.tree;
        let root: Option<&'a ModuleFile> = match tree.roots.iter().find(|(name, _)| name == krate) {
            Some((_, root)) => Some(root),
            None => tree
                .dependency_mount(&[krate.to_owned()])
                .and_then(|mount| mount.root.as_deref()),
        };
        let mut found = Vec::new();
        let mut files: Vec<&'a ModuleFile> = root.into_iter().collect();
        while let Some(file) = files.pop() {
            for child in &file.children {
                if let ChildSource::File(below) = &child.source {
                    files.push(below);
                }
            }
            self.file_impls(file, &mut found);
        }
        found
    }

    /// The impls of one file, from its scan, or from its syntax tree when it is parsed whole.
    fn file_impls(&mut self, file: &'a ModuleFile, found: &mut Vec<ImplAt<'a>>) {
        match self.scanned_items(file) {
            Some(Some(items)) => {
                for (index, item) in items.iter().enumerate() {
                    if let ItemKind::Impl {
                        self_name: Some(self_name),
                        trait_name,
                    } = &item.kind
                    {
                        found.push(ImplAt {
                            file,
                            at: ItemAt::Scanned(index),
                            module: [file.module.as_slice(), &item.parents].concat(),
                            self_name: self_name.clone(),
                            trait_name: trait_name.clone(),
                        });
                    }
                }
            }
            // A file the scan cannot split is parsed whole only when it may hold an impl.
            Some(None) if file.blob.mentions("impl") => {
                if let Some(ast) = self.ast(file) {
                    let mut path = Vec::new();
                    syntax_impls(file, &ast.items, &file.module, &mut path, found);
                }
            }
            Some(None) | None => {}
        }
    }
}

/// The tokens of a type item, the traits of [`INERT_TRAITS`] left out of its derives: deriving
/// `Debug` or writing it by hand changes nothing serde writes or reads (an impl of an inert trait is
/// not read either).
fn without_inert_derives(item: &Item) -> TokenStream {
    let derives =
        |attrs: &[syn::Attribute]| attrs.iter().any(|attr| attr.path().is_ident("derive"));
    let mut item = item.clone();
    let attrs = match &mut item {
        Item::Struct(item) if derives(&item.attrs) => &mut item.attrs,
        Item::Enum(item) if derives(&item.attrs) => &mut item.attrs,
        Item::Union(item) if derives(&item.attrs) => &mut item.attrs,
        _ => return item.to_token_stream(),
    };
    attrs.retain_mut(|attr| {
        if !attr.path().is_ident("derive") {
            return true;
        }
        let Ok(paths) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        ) else {
            return true;
        };
        let kept: Vec<&syn::Path> = paths
            .iter()
            .filter(|path| {
                path.segments
                    .last()
                    .is_none_or(|last| !INERT_TRAITS.contains(&super::unraw(&last.ident).as_str()))
            })
            .collect();
        if kept.is_empty() {
            return false;
        }
        *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
        true
    });
    item.to_token_stream()
}

/// Whether `item` is the function, constant or static `name`.
fn value_named(item: &Item, name: &str) -> bool {
    let ident = match item {
        Item::Fn(item) => &item.sig.ident,
        Item::Const(item) => &item.ident,
        Item::Static(item) => &item.ident,
        _ => return false,
    };
    super::unraw(ident) == name
}

/// The impls of a file parsed whole, through its inline modules (`path`: the indices that lead to
/// `items`).
fn syntax_impls<'a>(
    file: &'a ModuleFile,
    items: &[Item],
    module: &[String],
    path: &mut Vec<usize>,
    found: &mut Vec<ImplAt<'a>>,
) {
    for (index, item) in items.iter().enumerate() {
        path.push(index);
        match item {
            Item::Impl(item) => {
                if let syn::Type::Path(self_ty) = strip_reference(&item.self_ty)
                    && let Some(last) = self_ty.path.segments.last()
                {
                    found.push(ImplAt {
                        file,
                        at: ItemAt::Path(path.clone()),
                        module: module.to_vec(),
                        self_name: super::unraw(&last.ident),
                        trait_name: item
                            .trait_
                            .as_ref()
                            .and_then(|(path, _)| path.segments.last())
                            .map(|segment| super::unraw(&segment.ident)),
                    });
                }
            }
            Item::Mod(syn::ItemMod {
                ident,
                content: Some((_, inner)),
                ..
            }) => {
                let mut inner_module = module.to_vec();
                inner_module.push(super::unraw(ident));
                syntax_impls(file, inner, &inner_module, path, found);
            }
            _ => {}
        }
        path.pop();
    }
}

/// `&T`, `&mut T` and `(T)` as `T`.
fn strip_reference(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => strip_reference(&reference.elem),
        syn::Type::Paren(paren) => strip_reference(&paren.elem),
        ty => ty,
    }
}

/// A file's identity for a reading's set of items read.
fn file_key(file: &ModuleFile) -> usize {
    std::ptr::from_ref(file) as usize
}

/// The paths of `tokens` (`a::b::c`, `::a::b`, a lone `name`), in order, each once; a method's
/// name after `.` is a path of its own.
fn paths(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let mut current: Vec<String> = Vec::new();
    // `::` just read (a path goes on), and whether it began the path (`::std::...`).
    let mut colons = 0;
    let push = |path: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
        if path.last().is_some_and(|last| !last.is_empty()) && !out.contains(path) {
            out.push(path.clone());
        }
        path.clear();
    };
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                if colons != 2 {
                    push(&mut current, out);
                }
                current.push(name);
                colons = 0;
            }
            TokenTree::Punct(punct) if punct.as_char() == ':' && colons < 2 => {
                if colons == 0 && current.is_empty() {
                    // A path from the root: `::serde::...`.
                    current.push(String::new());
                }
                colons += 1;
            }
            TokenTree::Group(group) => {
                push(&mut current, out);
                colons = 0;
                paths(group.stream(), out);
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {
                push(&mut current, out);
                colons = 0;
            }
        }
    }
    push(&mut current, out);
}

/// Writes `tokens` as text, one space between tokens, leaving out `#[doc ...]` attributes and
/// lifetimes (see [`without_lifetimes`]).
fn write_tokens(out: &mut String, tokens: TokenStream) {
    let mut trees = without_lifetimes(tokens).into_iter().peekable();
    while let Some(tree) = trees.next() {
        if let TokenTree::Punct(punct) = &tree
            && punct.as_char() == '#'
        {
            // `#[doc = ".."]` or `#![doc = ".."]`: no change of the wire is in a doc comment.
            let inner = matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '!');
            let mut ahead = trees.clone();
            if inner {
                ahead.next();
            }
            if let Some(TokenTree::Group(group)) = ahead.next()
                && group.delimiter() == Delimiter::Bracket
                && group
                    .stream()
                    .into_iter()
                    .next()
                    .is_some_and(|first| matches!(&first, TokenTree::Ident(i) if i == "doc"))
            {
                trees = ahead;
                continue;
            }
        }
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(out, group.stream());
                out.push_str(close);
            }
            tree => {
                let _ = write!(out, "{tree}");
            }
        }
        out.push(' ');
    }
}

/// `tokens` without their lifetimes (`'de`, `'_`, `'static`, labels) and what only they needed: the comma
/// or `+` beside one, and a `<>` left empty. Lifetimes are erased before code runs, so code that differs
/// in them alone is the same code (`impl<'de> Visitor<'de>` and `impl Visitor<'_>`, as clippy's
/// `needless_lifetimes` rewrites it).
fn without_lifetimes(tokens: TokenStream) -> Vec<TokenTree> {
    let is = |tree: Option<&TokenTree>, c: char| matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut out: Vec<TokenTree> = Vec::new();
    let mut trees = tokens.into_iter().peekable();
    let mut erased = false;
    while let Some(tree) = trees.next() {
        let lifetime = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '\'')
            && matches!(trees.peek(), Some(TokenTree::Ident(_)));
        if lifetime {
            trees.next();
            // The separator before it goes with it (`T + 'a`, `T, 'a`) ...
            if is(out.last(), ',') || is(out.last(), '+') {
                out.pop();
                erased = false;
            } else {
                // ... else the one after it (`<'a, T>`, `'a + Send`).
                erased = true;
            }
            continue;
        }
        if erased && (is(Some(&tree), ',') || is(Some(&tree), '+')) {
            erased = false;
            continue;
        }
        erased = false;
        if is(Some(&tree), '>') && is(out.last(), '<') {
            out.pop();
            continue;
        }
        out.push(tree);
    }
    out
}

#[cfg(test)]
mod tests;
