//! The crate's module tree, name resolution, and conversion of items to the model.

use std::collections::{BTreeSet, HashMap, VecDeque};

use syn::spanned::Spanned;
use syn::{Attribute, Fields, Item, UseTree};

use super::serde_attrs::{self, ContainerSerde, MemberSerde, Problems, RenameRule};
use super::{CrateRoot, ExtractError, FileReader, location, note};
use crate::model::{
    AllowDecl, Body, ContainerAttrs, Custom, EnumRepr, ExtractNote, Field, MessageDecl,
    ProtocolDecl, Proxy, SeqKind, SkipSer, Snapshot, Style, Ty, TypeDef, Variant,
};
use crate::{Format, Kind, ResponseMode, Upgrade};

/// A module path: crate name first (`["flux_protocols", "sched"]`).
type ModPath = Vec<String>;

/// A type item and where it lives.
struct TypeItem<'a> {
    module: ModPath,
    file: &'a str,
    item: &'a Item,
}

#[derive(Default)]
struct Module {
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

/// Every crate of a revision, parsed and indexed.
pub(super) struct Workspace {
    files: Vec<(String, syn::File)>,
    crates: Vec<String>,
    /// `(crate name, root file)` for every crate present at this revision.
    roots: Vec<(String, String)>,
    notes: Vec<ExtractNote>,
}

struct Index<'a> {
    items: Vec<TypeItem<'a>>,
    modules: HashMap<ModPath, Module>,
    crates: &'a [String],
    notes: Vec<ExtractNote>,
}

fn strip_raw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

fn parse_error(file: &str, e: &syn::Error) -> ExtractError {
    let start = e.span().start();
    ExtractError::Parse {
        file: file.to_owned(),
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
        message: e.to_string(),
    }
}

fn read_text(reader: &dyn FileReader, path: &str) -> Result<Option<String>, ExtractError> {
    let Some(bytes) = reader.read(path)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ExtractError::NotUtf8 {
            file: path.to_owned(),
            offset: e.utf8_error().valid_up_to(),
        })
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
fn path_attr(attrs: &[Attribute]) -> Option<String> {
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

impl Workspace {
    /// Parses every crate's module tree.
    pub(super) fn load(
        crates: &[CrateRoot],
        reader: &dyn FileReader,
    ) -> Result<Self, ExtractError> {
        let mut ws = Workspace {
            files: Vec::new(),
            crates: crates.iter().map(|c| c.name.clone()).collect(),
            roots: Vec::new(),
            notes: Vec::new(),
        };
        for krate in crates {
            let Some(text) = read_text(reader, &krate.root_file)? else {
                continue; // The crate does not exist at this revision.
            };
            // Files whose `mod` children live beside them (`lib.rs`, `main.rs`, `mod.rs`).
            let dir = parent_dir(&krate.root_file).to_owned();
            ws.roots.push((krate.name.clone(), krate.root_file.clone()));
            ws.load_file(reader, krate.root_file.clone(), text, dir)?;
        }
        Ok(ws)
    }

    fn load_file(
        &mut self,
        reader: &dyn FileReader,
        path: String,
        text: String,
        child_dir: String,
    ) -> Result<(), ExtractError> {
        let file = syn::parse_file(&text).map_err(|e| parse_error(&path, &e))?;
        let mut pending = Vec::new();
        collect_mod_files(&file.items, &child_dir, &mut pending);
        self.files.push((path.clone(), file));
        for (name, explicit, dir, span) in pending {
            let candidates = match explicit {
                Some(p) => vec![(join(&dir, &p), parent_dir(&join(&dir, &p)).to_owned())],
                None => vec![
                    (join(&dir, &format!("{name}.rs")), join(&dir, &name)),
                    (join(&dir, &format!("{name}/mod.rs")), join(&dir, &name)),
                ],
            };
            let mut found = false;
            for (candidate, sub_dir) in candidates {
                if let Some(text) = read_text(reader, &candidate)? {
                    self.load_file(reader, candidate, text, sub_dir)?;
                    found = true;
                    break;
                }
            }
            if !found {
                self.notes.push(note(
                    &path,
                    span,
                    format!("module `{name}` has no file here (cfg'd out or generated?): its types are not seen"),
                ));
            }
        }
        Ok(())
    }

    /// Builds the model.
    pub(super) fn snapshot(&self) -> Result<Snapshot, ExtractError> {
        let mut index = Index {
            items: Vec::new(),
            modules: HashMap::new(),
            crates: &self.crates,
            notes: self.notes.clone(),
        };
        index.build(self)?;
        index.snapshot()
    }
}

/// Finds `mod x;` declarations (without a body) in a file, including inside inline modules.
fn collect_mod_files(
    items: &[Item],
    dir: &str,
    out: &mut Vec<(String, Option<String>, String, proc_macro2::Span)>,
) {
    for item in items {
        if let Item::Mod(m) = item {
            let name = strip_raw(&m.ident);
            match &m.content {
                None => out.push((name, path_attr(&m.attrs), dir.to_owned(), m.ident.span())),
                Some((_, inner)) => collect_mod_files(inner, &join(dir, &name), out),
            }
        }
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

impl<'a> Index<'a> {
    fn build(&mut self, ws: &'a Workspace) -> Result<(), ExtractError> {
        // Files were loaded depth-first from each crate root; rebuild module paths by walking the same
        // `mod` declarations.
        let by_path: HashMap<&'a str, &'a syn::File> =
            ws.files.iter().map(|(p, f)| (p.as_str(), f)).collect();
        for (krate, root_path) in &ws.roots {
            let Some(file) = by_path.get(root_path.as_str()) else {
                continue;
            };
            let dir = parent_dir(root_path).to_owned();
            self.index_items(&by_path, root_path, &file.items, vec![krate.clone()], &dir);
        }
        Ok(())
    }

    fn index_items(
        &mut self,
        files: &HashMap<&'a str, &'a syn::File>,
        file: &'a str,
        items: &'a [Item],
        module: ModPath,
        dir: &str,
    ) {
        let mut this = Module::default();
        for item in items {
            match item {
                Item::Struct(s) => {
                    this.types
                        .insert(strip_raw(&s.ident), self.push(&module, file, item));
                }
                Item::Enum(e) => {
                    this.types
                        .insert(strip_raw(&e.ident), self.push(&module, file, item));
                }
                Item::Type(t) => {
                    this.types
                        .insert(strip_raw(&t.ident), self.push(&module, file, item));
                }
                Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &mut this),
                Item::Macro(m) => {
                    let name = m
                        .mac
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    let text = m.mac.tokens.to_string();
                    if m.ident.is_some()
                        && (text.contains("Message") || text.contains("Protocol"))
                        && text.contains("wire")
                    {
                        // A macro_rules! that writes #[wire] items: what it generates is invisible here.
                        self.notes.push(note(
                            file,
                            m.mac.path.span(),
                            format!(
                                "macro `{}` writes #[wire] declarations that wirecheck cannot expand: messages it generates are not checked; declare them without the macro",
                                m.ident.as_ref().map(ToString::to_string).unwrap_or(name)
                            ),
                        ));
                    } else if m.ident.is_none() {
                        this.macros
                            .push(note(file, m.mac.path.span(), format!("macro `{name}!`")));
                    }
                }
                Item::Mod(m) => {
                    let name = strip_raw(&m.ident);
                    let mut child = module.clone();
                    child.push(name.clone());
                    this.mods.insert(name.clone(), child.clone());
                    match &m.content {
                        Some((_, inner)) => {
                            self.index_items(files, file, inner, child, &join(dir, &name));
                        }
                        None => {
                            let candidates: Vec<(String, String)> = match path_attr(&m.attrs) {
                                Some(p) => {
                                    vec![(join(dir, &p), parent_dir(&join(dir, &p)).to_owned())]
                                }
                                None => vec![
                                    (join(dir, &format!("{name}.rs")), join(dir, &name)),
                                    (join(dir, &format!("{name}/mod.rs")), join(dir, &name)),
                                ],
                            };
                            for (candidate, sub_dir) in candidates {
                                if let Some((path, f)) = files.get_key_value(candidate.as_str()) {
                                    self.index_items(files, path, &f.items, child, &sub_dir);
                                    break;
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.modules.insert(module, this);
    }

    fn push(&mut self, module: &ModPath, file: &'a str, item: &'a Item) -> usize {
        self.items.push(TypeItem {
            module: module.clone(),
            file,
            item,
        });
        self.items.len() - 1
    }

    fn canonical(&self, id: usize) -> String {
        let t = &self.items[id];
        let mut segs = t.module.clone();
        segs.push(item_name(t.item));
        segs.join("::")
    }

    /// Resolves a path as written in `module`.
    fn resolve(&self, module: &[String], segs: &[String], depth: usize) -> Resolved {
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
                let Some(m) = self.modules.get(module) else {
                    return Resolved::External(segs.to_vec());
                };
                if segs.len() == 1
                    && let Some(&id) = m.types.get(first)
                {
                    return Resolved::Type(id);
                }
                if let Some(child) = m.mods.get(first) {
                    (child.clone(), &segs[1..])
                } else if let Some(target) = m.uses.get(first) {
                    let mut full = target.clone();
                    full.extend_from_slice(&segs[1..]);
                    return self.resolve(module, &full, depth + 1);
                } else if let Some(found) = self.resolve_glob(m, segs, depth) {
                    return found;
                } else {
                    return self.resolve_absolute(segs, depth);
                }
            }
        };
        self.walk(base, rest, depth)
    }

    /// A path starting with a crate name (or `::name`).
    fn resolve_absolute(&self, segs: &[String], depth: usize) -> Resolved {
        match segs.first() {
            Some(first) if self.crates.contains(first) => {
                self.walk(vec![first.clone()], &segs[1..], depth)
            }
            _ => Resolved::External(segs.to_vec()),
        }
    }

    fn resolve_glob(&self, m: &Module, segs: &[String], depth: usize) -> Option<Resolved> {
        for glob in &m.globs {
            let mut full = glob.clone();
            full.extend_from_slice(segs);
            // Globs are resolved from the module they are written in; only accept a hit inside the crate.
            let owner = glob_owner(self, m);
            if let Resolved::Type(id) = self.resolve(&owner, &full, depth + 1) {
                return Some(Resolved::Type(id));
            }
        }
        None
    }

    fn walk(&self, mut base: ModPath, rest: &[String], depth: usize) -> Resolved {
        for (i, seg) in rest.iter().enumerate() {
            let Some(m) = self.modules.get(&base) else {
                let mut segs = base.clone();
                segs.extend_from_slice(&rest[i..]);
                return Resolved::External(segs);
            };
            let last = i + 1 == rest.len();
            if last && let Some(&id) = m.types.get(seg) {
                return Resolved::Type(id);
            }
            if let Some(child) = m.mods.get(seg) {
                base = child.clone();
                continue;
            }
            if let Some(target) = m.uses.get(seg) {
                let mut full = target.clone();
                full.extend_from_slice(&rest[i + 1..]);
                return self.resolve(&base, &full, depth + 1);
            }
            if let Some(found) = self.resolve_glob(m, &rest[i..], depth) {
                return found;
            }
            let mut segs = base.clone();
            segs.extend_from_slice(&rest[i..]);
            return Resolved::External(segs);
        }
        Resolved::Module(base)
    }
}

/// The module a `Module` value belongs to (globs resolve relative to it).
fn glob_owner(index: &Index<'_>, m: &Module) -> ModPath {
    index
        .modules
        .iter()
        .find(|(_, candidate)| std::ptr::eq(*candidate, m))
        .map(|(p, _)| p.clone())
        .unwrap_or_default()
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
fn expand_cfg_attr(attrs: &[Attribute]) -> Vec<Attribute> {
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
            out.extend(expand_cfg_attr(&inner));
        }
    }
    out
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

fn kind(k: wirecheck_grammar::Kind) -> Kind {
    match k {
        wirecheck_grammar::Kind::Request => Kind::Request,
        wirecheck_grammar::Kind::Response => Kind::Response,
        wirecheck_grammar::Kind::Event => Kind::Event,
        wirecheck_grammar::Kind::Record => Kind::Record,
    }
}

fn upgrade(u: wirecheck_grammar::Upgrade) -> Upgrade {
    match u {
        wirecheck_grammar::Upgrade::AnyOrder => Upgrade::AnyOrder,
        wirecheck_grammar::Upgrade::ServerFirst => Upgrade::ServerFirst,
        wirecheck_grammar::Upgrade::ClientFirst => Upgrade::ClientFirst,
    }
}

fn format(f: wirecheck_grammar::Format) -> Format {
    match f {
        wirecheck_grammar::Format::Json => Format::Json,
        wirecheck_grammar::Format::Cbor => Format::Cbor,
        wirecheck_grammar::Format::Msgpack => Format::Msgpack,
        wirecheck_grammar::Format::Bincode => Format::Bincode,
        wirecheck_grammar::Format::Postcard => Format::Postcard,
    }
}

/// Per-definition context for type conversion.
struct Ctx<'c> {
    module: &'c [String],
    generics: &'c [String],
    file: &'c str,
}

impl Index<'_> {
    fn snapshot(mut self) -> Result<Snapshot, ExtractError> {
        let mut snapshot = Snapshot::default();
        // Protocols first: messages name them.
        let mut protocol_by_item: HashMap<usize, String> = HashMap::new();
        for id in 0..self.items.len() {
            let t = &self.items[id];
            let attrs = &expand_cfg_attr(item_attrs(t.item));
            if !derives(attrs, "Protocol") || !attrs.iter().any(wirecheck_grammar::is_wire_attr) {
                continue;
            }
            let Some(ident) = item_ident(t.item) else {
                continue;
            };
            let file = t.file;
            match wirecheck_grammar::parse_protocol(attrs, ident.span()) {
                Ok(p) => {
                    let decl = ProtocolDecl {
                        name: p.name.value.clone(),
                        rust_path: self.canonical(id),
                        version: p.version.value.clone(),
                        min_compatible: p.min_compatible.as_ref().map(|v| v.value.clone()),
                        upgrade: upgrade(p.upgrade),
                        format: format(p.format),
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
                    snapshot.protocols.push(decl);
                }
                Err(e) => self.notes.push(note(
                    file,
                    e.span(),
                    format!(
                        "invalid #[wire] on protocol `{ident}` (the compiler rejects it too): {e}"
                    ),
                )),
            }
        }
        // Messages.
        let mut queue: VecDeque<usize> = VecDeque::new();
        for id in 0..self.items.len() {
            let t = &self.items[id];
            let attrs = &expand_cfg_attr(item_attrs(t.item));
            if !derives(attrs, "Message") || !attrs.iter().any(wirecheck_grammar::is_wire_attr) {
                continue;
            }
            let Some(ident) = item_ident(t.item) else {
                continue;
            };
            let file = t.file;
            let module = t.module.clone();
            let m = match wirecheck_grammar::parse_message(attrs, ident.span()) {
                Ok(m) => m,
                Err(e) => {
                    self.notes.push(note(
                        file,
                        e.span(),
                        format!("invalid #[wire] on message `{ident}` (the compiler rejects it too): {e}"),
                    ));
                    continue;
                }
            };
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
                kind: kind(m.kind.value),
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
        snapshot.protocols.sort_by(|a, b| a.name.cmp(&b.name));
        snapshot.messages.sort_by(|a, b| {
            (&a.protocol, &a.topic, a.kind, &a.rust_path).cmp(&(
                &b.protocol,
                &b.topic,
                b.kind,
                &b.rust_path,
            ))
        });
        self.notes.sort();
        self.notes.dedup();
        snapshot.notes = self.notes;
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
                    let vs = serde_attrs::member(&expand_cfg_attr(&v.attrs), &mut problems);
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
                    let wire = self.member_wire(file, &expand_cfg_attr(&v.attrs));
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
            let fs: MemberSerde = serde_attrs::member(&expand_cfg_attr(&f.attrs), problems);
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
            let wire = self.member_wire(cx.file, &expand_cfg_attr(&f.attrs));
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
        let args: Vec<syn::Type> = path
            .segments
            .last()
            .map(|s| match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t.clone()),
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
        args: &[syn::Type],
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
