//! The crates' module trees, name resolution, and conversion of items to the model.
//!
//! [`Workspace::load`] finds every crate's module tree from the `mod` declarations the scan (or, when it
//! cannot read a file, syn) finds. [`Workspace::snapshot`] then parses what it needs, when it needs it:
//! every file that may declare, for its declarations, and the modules name resolution visits, indexed on
//! first use.

use std::borrow::Cow;
use std::collections::{BTreeSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use git2::Oid;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Fields, Item, UseTree};

use super::cache::{Blob, SourceCache};
use super::scan::{ModItem, Pos};
use super::serde_attrs::{self, ContainerSerde, MemberSerde, Problems, RenameRule};
use super::{CrateRoot, DirId, ExtractError, FileReader, Keep, location, note};
use crate::model::{
    AllowDecl, Body, ContainerAttrs, Custom, EnumRepr, ExtractNote, Field, Location, MessageDecl,
    ProtocolDecl, Proxy, SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};
use crate::{Kind, ResponseMode};

/// A module path: crate name first (`["flux_protocols", "sched"]`).
type ModPath = Vec<String>;

/// A hash map with [`FxHasher`]: the keys are names from the source, no one's input to defend against.
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The Firefox/rustc hash: a multiply and a rotate per word, several times faster than SipHash on the
/// short strings and paths extraction looks up.
#[derive(Default, Clone, Copy)]
pub(super) struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A type item and where it lives.
struct TypeItem<'a> {
    module: ModPath,
    file: &'a str,
    item: &'a Item,
    /// `crate::module::Name`.
    canonical: String,
}

#[derive(Default)]
struct Module {
    /// The module's own path: globs written in it resolve from here.
    path: ModPath,
    /// Type items by name.
    types: HashMap<String, usize>,
    /// Child modules by name.
    mods: HashMap<String, ModPath>,
    /// `use` imports by the name they bind: the path as written.
    uses: HashMap<String, Vec<String>>,
    /// `use x::*` imports.
    globs: Vec<Vec<String>>,
    /// Module-level macro invocations (they may define types wirecheck cannot see).
    macros: Vec<ExtractNote>,
}

/// What a path names.
enum Resolved {
    Type(usize),
    Module(ModPath),
    External(Vec<String>),
}

/// A file of a crate's module tree, with the files its `mod` declarations mount below it. A node only
/// depends on its file, the directory its children live in, and where it is mounted: the
/// [`SourceCache`] shares nodes between revisions where these are the same (see [`Workspace::mount`]).
pub(super) struct MountNode {
    /// Its path, relative to the workspace root.
    path: String,
    blob: Rc<Blob>,
    /// The module it is.
    module: ModPath,
    /// Its `mod` declarations in source order (inline modules included).
    children: Vec<Child>,
    /// The notes of the discovery, for this file and every file below.
    notes: Vec<ExtractNote>,
    /// This file or a file below may declare protocols or messages.
    may_declare: bool,
    /// A `#[path]` is followed here or below: the node may depend on files outside its directory, and
    /// is not shared.
    has_path_attr: bool,
}

/// A `mod` declaration of a [`MountNode`]'s file.
struct Child {
    /// Its module, relative to the file's: the inline modules it is written in, then its name.
    rel: Vec<String>,
    /// The byte offset of its name (declarations are ordered by it).
    offset: usize,
    kind: ChildKind,
}

enum ChildKind {
    /// `mod name { ... }`: its items are in the same file.
    Inline,
    /// `mod name;` and the file found for it.
    File(Rc<MountNode>),
    /// `mod name;` without a file here.
    Missing,
}

/// The key under which a [`MountNode`] is shared: its blob, its children's directory, and its place.
#[derive(PartialEq, Eq, Hash)]
pub(super) struct NodeKey {
    blob: Oid,
    dir: Option<Oid>,
    module: ModPath,
    path: String,
    child_dir: String,
}

/// Every crate's module tree at one revision.
pub(super) struct Workspace<'c> {
    cache: &'c SourceCache,
    /// The crate roots present at this revision, with the crate's name.
    roots: Vec<(String, Rc<MountNode>)>,
    crates: Vec<String>,
}

/// A declaration in a file: a `#[derive(Protocol)]` or `#[derive(Message)]` item with `#[wire]`, or a
/// `macro_rules!` that writes such items. Kept per blob in the cache (the spans stay valid as long as it).
pub(super) struct Decl {
    /// The inline modules it is in, within its file.
    inline: Vec<String>,
    /// The indices of the items leading to it from the file's items (inline modules, then the item).
    item_path: Vec<usize>,
    /// The byte offset of its name (declarations are ordered by it within a file).
    offset: usize,
    what: DeclWhat,
}

enum DeclWhat {
    Protocol(Result<wirecheck_grammar::ProtocolAttrs, syn::Error>),
    Message(Result<wirecheck_grammar::MessageAttrs, syn::Error>),
    /// A `macro_rules!` whose body writes `#[wire]` items: the macro's name and where.
    WireMacro(String, Span),
}

struct Index<'a> {
    ws: &'a Workspace<'a>,
    items: Vec<TypeItem<'a>>,
    /// Item ids by (file node, syntax node) addresses: an item reached twice is the same item.
    item_ids: HashMap<(usize, usize), usize>,
    /// Modules indexed so far (`None`: not in the module tree, or its file does not parse).
    modules: HashMap<ModPath, Option<Module>>,
    notes: Vec<ExtractNote>,
    /// The first file that failed to parse when resolution needed it.
    error: Option<ExtractError>,
}

fn strip_raw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}

/// `#[path = "..."]` on a `mod` item.
pub(super) fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

fn pos_of(span: Span) -> Pos {
    let start = span.start();
    let bytes = span.byte_range();
    Pos {
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
        start: bytes.start,
        end: bytes.end,
    }
}

fn pos_note(file: &str, pos: Pos, message: String) -> ExtractNote {
    ExtractNote {
        message,
        location: Location {
            file: file.to_owned(),
            line: pos.line,
            column: pos.column,
            start: pos.start,
            end: pos.end,
        },
    }
}

/// The item-level `mod` declarations of a parsed file, inline ones included, as the scan reports them.
pub(super) fn mods_of(file: &syn::File) -> Vec<ModItem> {
    fn walk(items: &[Item], parents: &mut Vec<String>, out: &mut Vec<ModItem>) {
        for item in items {
            let Item::Mod(m) = item else { continue };
            let name = strip_raw(&m.ident);
            out.push(ModItem {
                parents: parents.clone(),
                name: name.clone(),
                inline: m.content.is_some(),
                path_attr: path_attr(&m.attrs),
                pos: pos_of(m.ident.span()),
            });
            if let Some((_, inner)) = &m.content {
                parents.push(name);
                walk(inner, parents, out);
                parents.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut out);
    out
}

/// The declarations of a parsed file, in source order.
pub(super) fn decls_of(file: &syn::File) -> Vec<Decl> {
    fn walk(items: &[Item], inline: &mut Vec<String>, path: &mut Vec<usize>, out: &mut Vec<Decl>) {
        for (i, item) in items.iter().enumerate() {
            path.push(i);
            match item {
                Item::Struct(_) | Item::Enum(_) | Item::Type(_) => {
                    let attrs = expand_cfg_attr(item_attrs(item));
                    if let Some(ident) = item_ident(item)
                        && attrs.iter().any(wirecheck_grammar::is_wire_attr)
                    {
                        let mut push = |what| {
                            out.push(Decl {
                                inline: inline.clone(),
                                item_path: path.clone(),
                                offset: ident.span().byte_range().start,
                                what,
                            });
                        };
                        if derives(&attrs, "Protocol") {
                            push(DeclWhat::Protocol(wirecheck_grammar::parse_protocol(
                                &attrs,
                                ident.span(),
                            )));
                        }
                        if derives(&attrs, "Message") {
                            push(DeclWhat::Message(wirecheck_grammar::parse_message(
                                &attrs,
                                ident.span(),
                            )));
                        }
                    }
                }
                Item::Macro(m) => {
                    if let Some(ident) = &m.ident {
                        let text = m.mac.tokens.to_string();
                        if (text.contains("Message") || text.contains("Protocol"))
                            && text.contains("wire")
                        {
                            // A macro_rules! that writes #[wire] items: what it generates is invisible here.
                            let span = m.mac.path.span();
                            out.push(Decl {
                                inline: inline.clone(),
                                item_path: path.clone(),
                                offset: span.byte_range().start,
                                what: DeclWhat::WireMacro(ident.to_string(), span),
                            });
                        }
                    }
                }
                Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        inline.push(strip_raw(&m.ident));
                        walk(inner, inline, path, out);
                        inline.pop();
                    }
                }
                _ => {}
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut Vec::new(), &mut out);
    out
}

/// The item at `path` (indices through inline modules).
fn item_at<'f>(file: &'f syn::File, path: &[usize]) -> &'f Item {
    let mut items = &file.items;
    let (last, inner) = path.split_last().expect("a declaration has an item path");
    for &i in inner {
        match &items[i] {
            Item::Mod(syn::ItemMod {
                content: Some((_, content)),
                ..
            }) => items = content,
            _ => unreachable!("declaration paths go through inline modules"),
        }
    }
    &items[*last]
}

/// The items of the inline module `inline` of a file (the last one of a name, as the index keeps it).
fn inline_items<'f>(file: &'f syn::File, inline: &[String]) -> Option<&'f [Item]> {
    let mut items: &[Item] = &file.items;
    for name in inline {
        items = items.iter().rev().find_map(|item| match item {
            Item::Mod(syn::ItemMod {
                ident,
                content: Some((_, content)),
                ..
            }) if strip_raw(ident) == *name => Some(content.as_slice()),
            _ => None,
        })?;
    }
    Some(items)
}

impl<'c> Workspace<'c> {
    /// Finds every crate's module tree.
    pub(super) fn load(
        crates: &[CrateRoot],
        reader: &dyn FileReader,
        cache: &'c SourceCache,
    ) -> Result<Self, ExtractError> {
        let mut roots = Vec::new();
        for krate in crates {
            let Some(blob) = cache.load(reader, &krate.root_file)? else {
                continue; // The crate does not exist at this revision.
            };
            // Files whose `mod` children live beside them (`lib.rs`, `main.rs`, `mod.rs`).
            let dir = parent_dir(&krate.root_file);
            let mut chain = vec![krate.root_file.clone()];
            let node = Self::mount(
                cache,
                reader,
                &krate.root_file,
                blob,
                vec![krate.name.clone()],
                dir,
                &mut chain,
            )?;
            roots.push((krate.name.clone(), node));
        }
        Ok(Workspace {
            cache,
            roots,
            crates: crates.iter().map(|c| c.name.clone()).collect(),
        })
    }

    /// The node of a file mounted as `module`, with the files of its `mod` declarations (whose files are
    /// under `child_dir`) below it. `chain` holds the files being mounted (a `#[path]` back to one of them
    /// is not followed). A node already built for the same blob, children's directory (by git tree id)
    /// and place is reused: an older release costs what changed since the revisions already read.
    fn mount(
        cache: &SourceCache,
        reader: &dyn FileReader,
        path: &str,
        blob: Rc<Blob>,
        module: ModPath,
        child_dir: &str,
        chain: &mut Vec<String>,
    ) -> Result<Rc<MountNode>, ExtractError> {
        let mods = blob.mods(cache).map_err(|e| e.at(path))?;
        let key = if mods.is_empty() {
            None
        } else {
            let dir = match reader.dir_id(child_dir)? {
                DirId::Unknown => None,
                DirId::Missing => Some(None),
                DirId::Tree(id) => Some(Some(id)),
            };
            dir.map(|dir| NodeKey {
                blob: blob.id(),
                dir,
                module: module.clone(),
                path: path.to_owned(),
                child_dir: child_dir.to_owned(),
            })
        };
        if let Some(key) = &key
            && let Some(node) = cache.node(key)
        {
            return Ok(node);
        }
        let mut node = MountNode {
            path: path.to_owned(),
            blob: Rc::clone(&blob),
            module,
            children: Vec::with_capacity(mods.len()),
            notes: Vec::new(),
            may_declare: blob.may_declare(),
            has_path_attr: false,
        };
        for m in mods {
            let mut rel = m.parents.clone();
            rel.push(m.name.clone());
            let mut child = Child {
                rel,
                offset: m.pos.start,
                kind: ChildKind::Missing,
            };
            if m.inline {
                child.kind = ChildKind::Inline;
                node.children.push(child);
                continue;
            }
            node.has_path_attr |= m.path_attr.is_some();
            let dir = m
                .parents
                .iter()
                .fold(child_dir.to_owned(), |dir, p| join(&dir, p));
            let candidates = match &m.path_attr {
                Some(p) => vec![(join(&dir, p), parent_dir(&join(&dir, p)).to_owned())],
                None => vec![
                    (join(&dir, &format!("{}.rs", m.name)), join(&dir, &m.name)),
                    (
                        join(&dir, &format!("{}/mod.rs", m.name)),
                        join(&dir, &m.name),
                    ),
                ],
            };
            let mut found = false;
            for (candidate, sub_dir) in candidates {
                if chain.contains(&candidate) {
                    node.notes.push(pos_note(
                        path,
                        m.pos,
                        format!(
                            "module `{}` is `{candidate}` again, which contains it: not followed",
                            m.name
                        ),
                    ));
                    found = true;
                    break;
                }
                if let Some(file) = cache.load(reader, &candidate)? {
                    let mut child_module = node.module.clone();
                    child_module.extend(child.rel.iter().cloned());
                    chain.push(candidate.clone());
                    let sub = Self::mount(
                        cache,
                        reader,
                        &candidate,
                        file,
                        child_module,
                        &sub_dir,
                        chain,
                    )?;
                    chain.pop();
                    node.may_declare |= sub.may_declare;
                    node.has_path_attr |= sub.has_path_attr;
                    node.notes.extend(sub.notes.iter().cloned());
                    child.kind = ChildKind::File(sub);
                    found = true;
                    break;
                }
            }
            if !found {
                node.notes.push(pos_note(
                    path,
                    m.pos,
                    format!(
                        "module `{}` has no file here (cfg'd out or generated?): its types are not seen",
                        m.name
                    ),
                ));
            }
            node.children.push(child);
        }
        let node = Rc::new(node);
        if let Some(key) = key
            && !node.has_path_attr
        {
            cache.keep_node(key, Rc::clone(&node));
        }
        Ok(node)
    }

    /// The file and inline modules of the module at `path`; `None` when no module tree has it.
    fn find(&self, path: &[String]) -> Option<(&MountNode, Vec<String>)> {
        let (first, mut rest) = path.split_first()?;
        let mut node: &MountNode = &self.roots.iter().find(|(name, _)| name == first)?.1;
        let mut inline: Vec<String> = Vec::new();
        while let Some((name, after)) = rest.split_first() {
            // The last declaration of a name is the one the index keeps.
            let child = node.children.iter().rev().find(|c| {
                c.rel.len() == inline.len() + 1
                    && c.rel[..inline.len()] == inline[..]
                    && c.rel[inline.len()] == *name
            })?;
            match &child.kind {
                ChildKind::Inline => inline.push(name.clone()),
                ChildKind::File(sub) => {
                    node = sub;
                    inline.clear();
                }
                ChildKind::Missing => return None,
            }
            rest = after;
        }
        Some((node, inline))
    }

    /// The declarations of the files `wanted` accepts, in the order of a depth-first walk of the crates'
    /// items; only files whose text contains `wire` can hold one.
    fn decls(
        &self,
        wanted: &dyn Fn(&Blob) -> bool,
    ) -> Result<Vec<(&MountNode, &Decl)>, ExtractError> {
        fn walk<'w>(
            cache: &SourceCache,
            wanted: &dyn Fn(&Blob) -> bool,
            node: &'w MountNode,
            out: &mut Vec<(&'w MountNode, &'w Decl)>,
        ) -> Result<(), ExtractError> {
            if !node.may_declare {
                return Ok(());
            }
            let own: &[Decl] = if node.blob.may_declare() && wanted(&node.blob) {
                node.blob.decls(cache).map_err(|e| e.at(&node.path))?
            } else {
                &[]
            };
            let mut own = own.iter().peekable();
            for child in &node.children {
                let ChildKind::File(sub) = &child.kind else {
                    continue;
                };
                while let Some(d) = own.next_if(|d| d.offset < child.offset) {
                    out.push((node, d));
                }
                walk(cache, wanted, sub, out)?;
            }
            out.extend(own.map(|d| (node, d)));
            Ok(())
        }
        let mut out = Vec::new();
        for (_, root) in &self.roots {
            walk(self.cache, wanted, root, &mut out)?;
        }
        Ok(out)
    }

    /// Builds the model, keeping the messages `keep` asks for (`None`: every message).
    pub(super) fn snapshot(
        &self,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
    ) -> Result<Snapshot, ExtractError> {
        let index = Index {
            ws: self,
            items: Vec::new(),
            item_ids: HashMap::default(),
            modules: HashMap::default(),
            notes: self
                .roots
                .iter()
                .flat_map(|(_, root)| root.notes.iter().cloned())
                .collect(),
            error: None,
        };
        index.snapshot(keep)
    }
}

fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, module: &mut Module) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(strip_raw(&p.ident));
            flatten_use(&p.tree, prefix, module);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = strip_raw(&n.ident);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    module.uses.insert(last.clone(), prefix.clone());
                }
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                module.uses.insert(name, full);
            }
        }
        UseTree::Rename(r) => {
            let name = strip_raw(&r.ident);
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name);
            }
            module.uses.insert(strip_raw(&r.rename), full);
        }
        UseTree::Glob(_) => module.globs.push(prefix.clone()),
        UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, module);
            }
        }
    }
}

const STD_ROOTS: &[&str] = &["std", "core", "alloc"];

/// The next step of a lookup in one module (computed under a borrow of the index, taken after it).
enum Step {
    Type(usize),
    Child(ModPath),
    Use(Vec<String>),
    Globs(ModPath, Vec<Vec<String>>),
}

impl<'a> Index<'a> {
    /// The syntax tree of a mounted file (parsed on first use); `None` when it does not parse (the error
    /// is kept for the end).
    fn ast(&mut self, node: &'a MountNode) -> Option<&'a syn::File> {
        match node.blob.ast(self.ws.cache) {
            Ok(file) => Some(file),
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e.at(&node.path));
                }
                None
            }
        }
    }

    /// The module at `path`, indexed on first use; `None` when it is not in a module tree (or its file
    /// does not parse).
    fn module(&mut self, path: &[String]) -> Option<&Module> {
        if !self.modules.contains_key(path) {
            let ws: &'a Workspace<'a> = self.ws;
            let module = match ws.find(path) {
                Some((node, inline)) => self
                    .ast(node)
                    .and_then(|file| inline_items(file, &inline))
                    .map(|items| self.index_module(node, path, items)),
                None => None,
            };
            self.modules.insert(path.to_vec(), module);
        }
        self.modules.get(path).and_then(Option::as_ref)
    }

    fn index_module(&mut self, node: &'a MountNode, path: &[String], items: &'a [Item]) -> Module {
        let mut this = Module {
            path: path.to_vec(),
            ..Module::default()
        };
        for item in items {
            match item {
                Item::Struct(_) | Item::Enum(_) | Item::Type(_) => {
                    let id = self.intern(node, path, item);
                    this.types.insert(item_name(item), id);
                }
                Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &mut this),
                Item::Macro(m) if m.ident.is_none() => {
                    let name = m
                        .mac
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    this.macros.push(note(
                        &node.path,
                        m.mac.path.span(),
                        format!("macro `{name}!`"),
                    ));
                }
                Item::Mod(m) => {
                    let name = strip_raw(&m.ident);
                    let mut child = path.to_vec();
                    child.push(name.clone());
                    this.mods.insert(name, child);
                }
                _ => {}
            }
        }
        this
    }

    /// The id of a type item, the same however it is reached.
    fn intern(&mut self, node: &'a MountNode, module: &[String], item: &'a Item) -> usize {
        let key = (
            std::ptr::from_ref(node) as usize,
            std::ptr::from_ref(item) as usize,
        );
        if let Some(&id) = self.item_ids.get(&key) {
            return id;
        }
        let mut canonical = module.join("::");
        canonical.push_str("::");
        canonical.push_str(&item_name(item));
        self.items.push(TypeItem {
            module: module.to_vec(),
            file: &node.path,
            item,
            canonical,
        });
        let id = self.items.len() - 1;
        self.item_ids.insert(key, id);
        id
    }

    fn canonical(&self, id: usize) -> String {
        self.items[id].canonical.clone()
    }

    /// Resolves a path as written in `module`.
    fn resolve(&mut self, module: &[String], segs: &[String], depth: usize) -> Resolved {
        if depth > 32 || segs.is_empty() {
            return Resolved::External(segs.to_vec());
        }
        let first = segs[0].as_str();
        let (base, rest): (ModPath, &[String]) = match first {
            "crate" => (module[..1].to_vec(), &segs[1..]),
            "self" => (module.to_vec(), &segs[1..]),
            "super" => {
                let mut base = module[..module.len().saturating_sub(1).max(1)].to_vec();
                let mut rest = &segs[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    base.truncate(base.len().saturating_sub(1).max(1));
                    rest = &rest[1..];
                }
                (base, rest)
            }
            "" => return self.resolve_absolute(&segs[1..], depth),
            _ => {
                let Some(m) = self.module(module) else {
                    return Resolved::External(segs.to_vec());
                };
                let step = if segs.len() == 1
                    && let Some(&id) = m.types.get(first)
                {
                    Step::Type(id)
                } else if let Some(child) = m.mods.get(first) {
                    Step::Child(child.clone())
                } else if let Some(target) = m.uses.get(first) {
                    Step::Use(target.clone())
                } else if m.globs.is_empty() {
                    return self.resolve_absolute(segs, depth);
                } else {
                    Step::Globs(m.path.clone(), m.globs.clone())
                };
                match step {
                    Step::Type(id) => return Resolved::Type(id),
                    Step::Child(child) => (child, &segs[1..]),
                    Step::Use(mut full) => {
                        full.extend_from_slice(&segs[1..]);
                        return self.resolve(module, &full, depth + 1);
                    }
                    Step::Globs(owner, globs) => {
                        if let Some(found) = self.resolve_glob(&owner, &globs, segs, depth) {
                            return found;
                        }
                        return self.resolve_absolute(segs, depth);
                    }
                }
            }
        };
        self.walk(base, rest, depth)
    }

    /// A path starting with a crate name (or `::name`).
    fn resolve_absolute(&mut self, segs: &[String], depth: usize) -> Resolved {
        match segs.first() {
            Some(first) if self.ws.crates.contains(first) => {
                self.walk(vec![first.clone()], &segs[1..], depth)
            }
            _ => Resolved::External(segs.to_vec()),
        }
    }

    /// `segs` through the glob imports `globs` of the module `owner` (globs resolve from the module they
    /// are written in; only a hit inside the workspace counts).
    fn resolve_glob(
        &mut self,
        owner: &[String],
        globs: &[Vec<String>],
        segs: &[String],
        depth: usize,
    ) -> Option<Resolved> {
        // Glob imports may form cycles (`pub use child::*;` in a module whose child has `use super::*;`):
        // a lookup already in progress through the same module's globs finds nothing new, and without this
        // every cycle is walked again at each level, exponentially (a hang on ordinary code).
        thread_local! {
            static IN_PROGRESS: std::cell::RefCell<std::collections::HashSet<(Vec<String>, Vec<String>)>> =
                std::cell::RefCell::default();
        }
        struct Done((Vec<String>, Vec<String>));
        impl Drop for Done {
            fn drop(&mut self) {
                IN_PROGRESS.with(|s| s.borrow_mut().remove(&self.0));
            }
        }
        let key = (owner.to_vec(), segs.to_vec());
        if !IN_PROGRESS.with(|s| s.borrow_mut().insert(key.clone())) {
            return None;
        }
        let _done = Done(key);
        for glob in globs {
            let mut full = glob.clone();
            full.extend_from_slice(segs);
            if let Resolved::Type(id) = self.resolve(owner, &full, depth + 1) {
                return Some(Resolved::Type(id));
            }
        }
        None
    }

    fn walk(&mut self, mut base: ModPath, rest: &[String], depth: usize) -> Resolved {
        for (i, seg) in rest.iter().enumerate() {
            let last = i + 1 == rest.len();
            let Some(m) = self.module(&base) else {
                let mut segs = base.clone();
                segs.extend_from_slice(&rest[i..]);
                return Resolved::External(segs);
            };
            let step = if last && let Some(&id) = m.types.get(seg) {
                Step::Type(id)
            } else if let Some(child) = m.mods.get(seg) {
                Step::Child(child.clone())
            } else if let Some(target) = m.uses.get(seg) {
                Step::Use(target.clone())
            } else if m.globs.is_empty() {
                let mut segs = base.clone();
                segs.extend_from_slice(&rest[i..]);
                return Resolved::External(segs);
            } else {
                Step::Globs(m.path.clone(), m.globs.clone())
            };
            match step {
                Step::Type(id) => return Resolved::Type(id),
                Step::Child(child) => base = child,
                Step::Use(mut full) => {
                    full.extend_from_slice(&rest[i + 1..]);
                    return self.resolve(&base, &full, depth + 1);
                }
                Step::Globs(owner, globs) => {
                    if let Some(found) = self.resolve_glob(&owner, &globs, &rest[i..], depth) {
                        return found;
                    }
                    let mut segs = base.clone();
                    segs.extend_from_slice(&rest[i..]);
                    return Resolved::External(segs);
                }
            }
        }
        Resolved::Module(base)
    }
}

fn item_name(item: &Item) -> String {
    match item {
        Item::Struct(s) => strip_raw(&s.ident),
        Item::Enum(e) => strip_raw(&e.ident),
        Item::Type(t) => strip_raw(&t.ident),
        _ => String::new(),
    }
}

/// The attributes with every `#[cfg_attr(pred, a, b)]` replaced by `#[a] #[b]`: wirecheck does not know
/// which features a build enables, and serde or wire attributes behind a feature are usually the ones the
/// protocol ships with.
fn expand_cfg_attr(attrs: &[Attribute]) -> Cow<'_, [Attribute]> {
    if !attrs.iter().any(|a| a.path().is_ident("cfg_attr")) {
        return Cow::Borrowed(attrs);
    }
    let mut out = Vec::with_capacity(attrs.len());
    for attr in attrs {
        if !attr.path().is_ident("cfg_attr") {
            out.push(attr.clone());
            continue;
        }
        let parsed = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        );
        if let Ok(metas) = parsed {
            let inner: Vec<Attribute> = metas
                .into_iter()
                .skip(1)
                .map(|meta| Attribute {
                    pound_token: attr.pound_token,
                    style: attr.style,
                    bracket_token: attr.bracket_token,
                    meta,
                })
                .collect();
            out.extend(expand_cfg_attr(&inner).iter().cloned());
        }
    }
    Cow::Owned(out)
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Struct(s) => &s.attrs,
        Item::Enum(e) => &e.attrs,
        Item::Type(t) => &t.attrs,
        _ => &[],
    }
}

fn item_ident(item: &Item) -> Option<&syn::Ident> {
    match item {
        Item::Struct(s) => Some(&s.ident),
        Item::Enum(e) => Some(&e.ident),
        Item::Type(t) => Some(&t.ident),
        _ => None,
    }
}

fn item_generics(item: &Item) -> Vec<String> {
    let generics = match item {
        Item::Struct(s) => &s.generics,
        Item::Enum(e) => &e.generics,
        Item::Type(t) => &t.generics,
        _ => return Vec::new(),
    };
    generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect()
}

/// Whether `#[derive(...)]` lists `name` (by its last path segment).
fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .map(|paths| {
                paths
                    .iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
            })
            .unwrap_or(false)
        })
}

fn path_segments(path: &syn::Path) -> Vec<String> {
    let mut segs: Vec<String> = path.segments.iter().map(|s| strip_raw(&s.ident)).collect();
    if path.leading_colon.is_some() {
        segs.insert(0, String::new());
    }
    segs
}

fn allow_decl(allow: &wirecheck_grammar::Allow) -> Option<AllowDecl> {
    let reason = allow.reason.as_ref()?;
    (!allow.rules.is_empty()).then(|| AllowDecl {
        rules: allow.rules.iter().map(|r| r.value.clone()).collect(),
        reason: reason.value.clone(),
    })
}

/// Per-definition context for type conversion.
struct Ctx<'c> {
    module: &'c [String],
    generics: &'c [String],
    file: &'c str,
}

impl Index<'_> {
    fn snapshot(
        mut self,
        keep: Option<&dyn Fn(&ProtocolDecl) -> Keep>,
    ) -> Result<Snapshot, ExtractError> {
        let ws = self.ws;
        // With a filter, only files that name `Protocol` can declare one (and, when only records are
        // kept, only files that say `record` can declare a kept message): older releases parse only those
        // of their changed files.
        let decls = if keep.is_none() {
            ws.decls(&|_| true)?
        } else {
            ws.decls(&|blob| blob.mentions("Protocol"))?
        };
        let mut snapshot = Snapshot::default();
        // Protocols first: messages name them.
        let mut protocol_by_item: HashMap<usize, String> = HashMap::default();
        let mut keeps: HashMap<String, Keep> = HashMap::default();
        for &(node, d) in &decls {
            let file = node.path.as_str();
            let result = match &d.what {
                DeclWhat::WireMacro(name, span) => {
                    self.notes.push(note(
                        file,
                        *span,
                        format!(
                            "macro `{name}` writes #[wire] declarations that wirecheck cannot expand: messages it generates are not checked; declare them without the macro"
                        ),
                    ));
                    continue;
                }
                DeclWhat::Protocol(result) => result,
                DeclWhat::Message(_) => continue,
            };
            let Some(ast) = self.ast(node) else { continue };
            let item = item_at(ast, &d.item_path);
            let Some(ident) = item_ident(item) else {
                continue;
            };
            let module = [node.module.as_slice(), &d.inline].concat();
            let id = self.intern(node, &module, item);
            match result {
                Ok(p) => {
                    let decl = ProtocolDecl {
                        name: p.name.value.clone(),
                        rust_path: self.canonical(id),
                        version: p.version.value.clone(),
                        min_compatible: p.min_compatible.as_ref().map(|v| v.value.clone()),
                        upgrade: p.upgrade,
                        format: p.format,
                        location: location(file, ident.span()),
                    };
                    if let Some(first) = snapshot.protocols.iter().find(|q| q.name == decl.name) {
                        return Err(ExtractError::DuplicateProtocol {
                            name: decl.name.clone(),
                            first: first.location.clone(),
                            second: decl.location,
                        });
                    }
                    protocol_by_item.insert(id, decl.name.clone());
                    keeps.insert(decl.name.clone(), keep.map_or(Keep::All, |k| k(&decl)));
                    snapshot.protocols.push(decl);
                }
                Err(e) => {
                    return Err(invalid_declaration(
                        file,
                        e.span(),
                        format!("invalid #[wire] on protocol `{ident}`: {e}"),
                    ));
                }
            }
        }
        // With a filter that keeps no protocol whole, only records need their protocol resolved.
        let records_only = keep.is_some() && !keeps.values().any(|k| *k == Keep::All);
        let decls = match (keep, records_only) {
            (None, _) => decls,
            (Some(_), true) => ws.decls(&|blob| blob.mentions("record"))?,
            (Some(_), false) => ws.decls(&|_| true)?,
        };
        // Messages.
        let mut queue: VecDeque<usize> = VecDeque::new();
        for &(node, d) in &decls {
            let DeclWhat::Message(result) = &d.what else {
                continue;
            };
            let file = node.path.as_str();
            let Some(ast) = self.ast(node) else { continue };
            let item = item_at(ast, &d.item_path);
            let Some(ident) = item_ident(item) else {
                continue;
            };
            let m = match result {
                Ok(m) => m,
                Err(e) => {
                    if keep.is_none() {
                        return Err(invalid_declaration(
                            file,
                            e.span(),
                            format!("invalid #[wire] on message `{ident}`: {e}"),
                        ));
                    }
                    continue;
                }
            };
            let message_kind = m.kind.value;
            if records_only && message_kind != Kind::Record {
                continue;
            }
            let module = [node.module.as_slice(), &d.inline].concat();
            let id = self.intern(node, &module, item);
            let protocol = match self.resolve(&module, &path_segments(&m.protocol), 0) {
                Resolved::Type(pid) => protocol_by_item.get(&pid).cloned(),
                Resolved::External(segs) => {
                    // A protocol declared in another crate of the workspace, named through a path the
                    // resolver could not follow: match on the type's name when that is unambiguous.
                    let last = segs.last().cloned().unwrap_or_default();
                    let matching: Vec<&ProtocolDecl> = snapshot
                        .protocols
                        .iter()
                        .filter(|p| p.rust_path.rsplit("::").next() == Some(last.as_str()))
                        .collect();
                    (matching.len() == 1).then(|| matching[0].name.clone())
                }
                Resolved::Module(_) => None,
            };
            let Some(protocol) = protocol else {
                self.notes.push(note(
                    file,
                    m.protocol.span(),
                    format!("message `{ident}`: its `protocol` does not name a #[derive(Protocol)] type wirecheck can find; the message is skipped"),
                ));
                continue;
            };
            if !keeps
                .get(&protocol)
                .copied()
                .unwrap_or(Keep::All)
                .keeps(message_kind)
            {
                continue;
            }
            let (response, response_path) = match (&m.responds, &m.streams) {
                (Some(p), _) => (ResponseMode::Single, Some(p)),
                (None, Some(p)) => (ResponseMode::Stream, Some(p)),
                (None, None) => (ResponseMode::None, None),
            };
            let response_type =
                response_path.map(|p| match self.resolve(&module, &path_segments(p), 0) {
                    Resolved::Type(rid) => self.canonical(rid),
                    Resolved::External(segs) | Resolved::Module(segs) => segs.join("::"),
                });
            queue.push_back(id);
            snapshot.messages.push(MessageDecl {
                protocol,
                name: strip_raw(ident),
                rust_path: self.canonical(id),
                topic: m.topic.value.clone(),
                kind: message_kind,
                response,
                response_type,
                since: m.since.as_ref().map(|v| v.value.clone()),
                allow: allow_decl(&m.allow),
                location: location(file, ident.span()),
            });
        }
        // Every type reached from a message.
        let mut seen: BTreeSet<usize> = queue.iter().copied().collect();
        while let Some(id) = queue.pop_front() {
            let mut reached = Vec::new();
            let def = self.type_def(id, &mut reached);
            snapshot.types.insert(def.path.clone(), def);
            for next in reached {
                if seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        snapshot.notes = self.notes;
        snapshot.sort();
        Ok(snapshot)
    }

    fn type_def(&mut self, id: usize, reached: &mut Vec<usize>) -> TypeDef {
        let item = self.items[id].item;
        let file = self.items[id].file;
        let module = self.items[id].module.clone();
        let generics = item_generics(item);
        let path = self.canonical(id);
        let mut problems: Problems = Vec::new();
        let cx = Ctx {
            module: &module,
            generics: &generics,
            file,
        };
        let serde = serde_attrs::container(&expand_cfg_attr(item_attrs(item)), &mut problems);
        let name = item_name(item);
        let ident_span = item_ident(item).map_or_else(proc_macro2::Span::call_site, |i| i.span());
        let mut attrs = ContainerAttrs {
            ser_name: serde.rename.ser.clone().unwrap_or_else(|| name.clone()),
            deny_unknown_fields: serde.deny_unknown_fields,
            default: serde.default,
            transparent: serde.transparent,
            repr: match (&serde.tag, &serde.content, serde.untagged) {
                (_, _, true) => EnumRepr::Untagged,
                (Some(tag), Some(content), _) => EnumRepr::Adjacent {
                    tag: tag.clone(),
                    content: content.clone(),
                },
                (Some(tag), None, _) => EnumRepr::Internal { tag: tag.clone() },
                _ => EnumRepr::External,
            },
            from: None,
            into: None,
        };
        attrs.from = match (&serde.try_from, &serde.from) {
            (Some(t), _) => Some(Proxy {
                ty: self.ty(&cx, t, reached),
                fallible: true,
            }),
            (None, Some(t)) => Some(Proxy {
                ty: self.ty(&cx, t, reached),
                fallible: false,
            }),
            _ => None,
        };
        attrs.into = serde.into.as_ref().map(|t| self.ty(&cx, t, reached));
        let body = match item {
            Item::Struct(s) => {
                let (style, fields) = self.fields(
                    &cx,
                    &s.fields,
                    &serde,
                    serde.rename_all.clone(),
                    reached,
                    &mut problems,
                );
                Body::Struct { style, fields }
            }
            Item::Enum(e) => {
                let mut variants = Vec::new();
                for v in &e.variants {
                    let v_attrs = expand_cfg_attr(&v.attrs);
                    let vs = serde_attrs::member(&v_attrs, &mut problems);
                    let rust_name = strip_raw(&v.ident);
                    let ser_name = vs.rename.ser.clone().unwrap_or_else(|| {
                        serde
                            .rename_all
                            .ser
                            .unwrap_or_default()
                            .apply_to_variant(&rust_name)
                    });
                    let mut de_names = vec![vs.rename.de.clone().unwrap_or_else(|| {
                        serde
                            .rename_all
                            .de
                            .unwrap_or_default()
                            .apply_to_variant(&rust_name)
                    })];
                    de_names.extend(vs.aliases.iter().cloned());
                    let field_rule = serde_attrs::SerDe {
                        ser: vs.rename_all.ser.or(serde.rename_all_fields.ser),
                        de: vs.rename_all.de.or(serde.rename_all_fields.de),
                    };
                    let no_container = ContainerSerde::default();
                    let (style, fields) = self.fields(
                        &cx,
                        &v.fields,
                        &no_container,
                        field_rule,
                        reached,
                        &mut problems,
                    );
                    let wire = self.member_wire(file, &v_attrs);
                    variants.push(Variant {
                        rust_name,
                        ser_name,
                        de_names,
                        style,
                        fields,
                        skip_ser: vs.skip_ser,
                        skip_de: vs.skip_de,
                        other: vs.other,
                        untagged: vs.untagged,
                        custom: custom(&vs),
                        since: wire.0,
                        allow: wire.1,
                        location: location(file, v.ident.span()),
                    });
                }
                Body::Enum { variants }
            }
            Item::Type(t) => Body::Alias {
                target: self.ty(&cx, &t.ty, reached),
            },
            _ => Body::Alias {
                target: Ty::External { path: path.clone() },
            },
        };
        for (span, message) in problems {
            self.notes.push(note(file, span, message));
        }
        TypeDef {
            path,
            generics,
            attrs,
            body,
            location: location(file, ident_span),
        }
    }

    fn member_wire(
        &mut self,
        file: &str,
        attrs: &[Attribute],
    ) -> (Option<semver::Version>, Option<AllowDecl>) {
        if !attrs.iter().any(wirecheck_grammar::is_wire_attr) {
            return (None, None);
        }
        match wirecheck_grammar::parse_member(attrs) {
            Ok(m) => (m.since.map(|v| v.value), allow_decl(&m.allow)),
            Err(e) => {
                self.notes.push(note(
                    file,
                    e.span(),
                    format!("invalid #[wire] (the compiler rejects it too): {e}"),
                ));
                (None, None)
            }
        }
    }

    fn fields(
        &mut self,
        cx: &Ctx<'_>,
        fields: &Fields,
        container: &ContainerSerde,
        rule: serde_attrs::SerDe<RenameRule>,
        reached: &mut Vec<usize>,
        problems: &mut Problems,
    ) -> (Style, Vec<Field>) {
        let style = match fields {
            Fields::Named(_) => Style::Named,
            Fields::Unnamed(_) => Style::Tuple,
            Fields::Unit => Style::Unit,
        };
        let mut out = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let attrs = expand_cfg_attr(&f.attrs);
            let fs: MemberSerde = serde_attrs::member(&attrs, problems);
            let rust_name = f.ident.as_ref().map_or_else(|| i.to_string(), strip_raw);
            let ser_name = fs
                .rename
                .ser
                .clone()
                .unwrap_or_else(|| rule.ser.unwrap_or_default().apply_to_field(&rust_name));
            let mut de_names = vec![
                fs.rename
                    .de
                    .clone()
                    .unwrap_or_else(|| rule.de.unwrap_or_default().apply_to_field(&rust_name)),
            ];
            de_names.extend(fs.aliases.iter().cloned());
            let wire = self.member_wire(cx.file, &attrs);
            let span = f.ident.as_ref().map_or_else(|| f.ty.span(), |i| i.span());
            out.push(Field {
                rust_name,
                ser_name,
                de_names,
                ty: self.ty(cx, &f.ty, reached),
                default: fs.default || container.default,
                skip_ser: if fs.skip_ser {
                    SkipSer::Always
                } else if let Some(p) = &fs.skip_ser_if {
                    SkipSer::If(p.clone())
                } else {
                    SkipSer::Never
                },
                skip_de: fs.skip_de,
                flatten: fs.flatten,
                custom: custom(&fs),
                since: wire.0,
                allow: wire.1,
                location: location(cx.file, span),
            });
        }
        (style, out)
    }

    /// Converts a type as written into the model, recording crate types reached.
    fn ty(&mut self, cx: &Ctx<'_>, t: &syn::Type, reached: &mut Vec<usize>) -> Ty {
        match t {
            syn::Type::Reference(r) => self.ty(cx, &r.elem, reached),
            syn::Type::Paren(p) => self.ty(cx, &p.elem, reached),
            syn::Type::Group(g) => self.ty(cx, &g.elem, reached),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ty::Unit,
            syn::Type::Tuple(t) => Ty::Tuple {
                elems: t.elems.iter().map(|e| self.ty(cx, e, reached)).collect(),
            },
            syn::Type::Slice(s) => Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(self.ty(cx, &s.elem, reached)),
            },
            syn::Type::Array(a) => {
                let elem = Box::new(self.ty(cx, &a.elem, reached));
                match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => match n.base10_parse::<u64>() {
                        Ok(len) => Ty::Array { elem, len },
                        Err(_) => Ty::External {
                            path: quote_type(t),
                        },
                    },
                    _ => Ty::External {
                        path: quote_type(t),
                    },
                }
            }
            syn::Type::Path(p) if p.qself.is_none() => self.path_ty(cx, &p.path, reached),
            other => {
                self.notes.push(note(
                    cx.file,
                    other.span(),
                    format!("type `{}` is not a serializable data type wirecheck can follow; compared by its text", quote_type(other)),
                ));
                Ty::External {
                    path: quote_type(other),
                }
            }
        }
    }

    fn path_ty(&mut self, cx: &Ctx<'_>, path: &syn::Path, reached: &mut Vec<usize>) -> Ty {
        let segs = path_segments(path);
        let args: Vec<&syn::Type> = path
            .segments
            .last()
            .map(|s| match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .unwrap_or_default();
        if segs.len() == 1 && cx.generics.contains(&segs[0]) {
            return Ty::Param {
                name: segs[0].clone(),
            };
        }
        match self.resolve(cx.module, &segs, 0) {
            Resolved::Type(id) => {
                reached.push(id);
                let args = args.iter().map(|a| self.ty(cx, a, reached)).collect();
                Ty::Named {
                    path: self.canonical(id),
                    args,
                }
            }
            Resolved::External(full) | Resolved::Module(full) => {
                // Known std and serde_json types, by name, when they are not shadowed by a crate type.
                let std_like = full.len() == 1
                    || full
                        .first()
                        .is_some_and(|f| STD_ROOTS.contains(&f.as_str()) || f == "serde_json");
                if std_like && let Some(ty) = self.std_ty(cx, &full, &args, reached) {
                    return ty;
                }
                if full.len() == 1 {
                    self.note_unresolved(cx, path, &full[0]);
                }
                Ty::External {
                    path: tokens_text(path),
                }
            }
        }
    }

    /// A bare type name that is neither defined, imported nor a known std type.
    fn note_unresolved(&mut self, cx: &Ctx<'_>, path: &syn::Path, name: &str) {
        let macros: Vec<String> = self
            .modules
            .get(cx.module)
            .and_then(Option::as_ref)
            .map(|m| {
                m.macros
                    .iter()
                    .map(|n| format!("{} at {}:{}", n.message, n.location.file, n.location.line))
                    .collect()
            })
            .unwrap_or_default();
        let message = if macros.is_empty() {
            format!(
                "type `{name}` is not defined or imported by name in this module (a glob import from another crate?): it is compared by name only"
            )
        } else {
            format!(
                "type `{name}` is not defined in this module as written; it may come from {}, which wirecheck cannot expand: it is compared by name only",
                macros.join(", ")
            )
        };
        self.notes.push(note(cx.file, path.span(), message));
    }

    fn std_ty(
        &mut self,
        cx: &Ctx<'_>,
        full: &[String],
        args: &[&syn::Type],
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let name = full.last()?.as_str();
        let mut arg = |i: usize, this: &mut Self| args.get(i).map(|a| this.ty(cx, a, reached));
        let int = |signed, bits| Some(Ty::Int { signed, bits });
        match name {
            "bool" => Some(Ty::Bool),
            "char" => Some(Ty::Char),
            "str" | "String" | "PathBuf" | "Path" | "OsString" => Some(Ty::String),
            "u8" => int(false, 8),
            "u16" => int(false, 16),
            "u32" => int(false, 32),
            "u64" | "usize" => int(false, 64),
            "u128" => int(false, 128),
            "i8" => int(true, 8),
            "i16" => int(true, 16),
            "i32" => int(true, 32),
            "i64" | "isize" => int(true, 64),
            "i128" => int(true, 128),
            "f32" => Some(Ty::Float { bits: 32 }),
            "f64" => Some(Ty::Float { bits: 64 }),
            "Value" if full.first().is_some_and(|f| f == "serde_json") || full.len() == 1 => {
                // A bare `Value` only counts when imported from serde_json; that import resolves to a
                // serde_json path, so a bare unresolved `Value` is someone else's.
                (full.len() > 1).then_some(Ty::Value)
            }
            "Map" if full.first().is_some_and(|f| f == "serde_json") => Some(Ty::Map {
                key: Box::new(Ty::String),
                value: Box::new(Ty::Value),
            }),
            "Option" => Some(Ty::Option {
                inner: Box::new(arg(0, self)?),
            }),
            "Box" | "Rc" | "Arc" | "Cell" | "RefCell" | "Mutex" | "RwLock" | "Reverse"
            | "Wrapping" => arg(0, self),
            "Cow" => arg(0, self),
            "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" => Some(Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(arg(0, self)?),
            }),
            "HashSet" | "BTreeSet" => Some(Ty::Seq {
                kind: SeqKind::Set,
                elem: Box::new(arg(0, self)?),
            }),
            "HashMap" | "BTreeMap" => Some(Ty::Map {
                key: Box::new(arg(0, self)?),
                value: Box::new(arg(1, self)?),
            }),
            "PhantomData" => Some(Ty::Unit),
            _ => None,
        }
    }
}

/// A declaration the compiler rejects: an error rather than a note, since the protocol or message would
/// otherwise look removed.
fn invalid_declaration(file: &str, span: proc_macro2::Span, message: String) -> ExtractError {
    let at = location(file, span);
    ExtractError::InvalidDeclaration {
        file: file.to_owned(),
        line: at.line,
        column: at.column,
        message: format!("{message} (the compiler rejects it too)"),
    }
}

fn custom(m: &MemberSerde) -> Option<Custom> {
    (m.ser_with.is_some() || m.de_with.is_some()).then(|| Custom {
        ser: m.ser_with.clone(),
        de: m.de_with.clone(),
    })
}

fn quote_type(t: &syn::Type) -> String {
    tokens_text(t)
}

fn tokens_text(t: &impl quote::ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}
