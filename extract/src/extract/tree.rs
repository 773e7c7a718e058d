//! The crates' module trees: from each crate root, the files its `mod` declarations mount (`name.rs`,
//! `name/mod.rs`, or a `#[path]`), read from the scan of each file (or from syn when the scan cannot
//! read it). Mounting parses nothing else; files unchanged since a revision the cache has seen are not
//! looked at again.

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::ahead::ReadAhead;
use super::cache::{
    Blob, ChildModule, ChildSource, ModPath, ModuleFile, ModuleFileKey, SourceCache,
};
use super::declarations::Declaration;
use super::external::{CrateSource, ExternalCrate, Externals, From};
use super::mod_paths::{candidates, parent_dir};
use super::scan::{ModItem, Pos};
use super::{CrateRoot, DirId, ExtractError, FileReader};
use crate::model::{ExtractNote, Location};

/// The crates of the standard library, never a dependency's: their types are known by path.
pub(super) const STD_ROOTS: &[&str] = &["std", "core", "alloc"];

/// Whether a bare `name` is one the std prelude or the language gives every module without an import
/// (`String`, `Vec`, `Option`, `u64`).
pub(super) fn is_prelude_name(name: &str) -> bool {
    #[rustfmt::skip]
    const PRELUDE: &[&str] = &[
        "Option", "Some", "None", "Result", "Ok", "Err", "String", "Vec", "Box", "ToString",
        "ToOwned", "Clone", "Copy", "Send", "Sync", "Sized", "Unpin", "Drop", "Fn", "FnMut",
        "FnOnce", "Iterator", "Extend", "IntoIterator", "DoubleEndedIterator", "ExactSizeIterator",
        "Default", "Eq", "PartialEq", "Ord", "PartialOrd", "AsRef", "AsMut", "Into", "From",
        "TryFrom", "TryInto", "FromIterator", "bool", "char", "str", "u8", "u16", "u32", "u64",
        "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    ];
    PRELUDE.contains(&name)
}

/// Every crate's module tree at one revision.
pub(super) struct ModuleTree<'c> {
    pub(super) cache: &'c SourceCache,
    /// The crate roots present at this revision, with the crate's name.
    pub(super) roots: Vec<(String, Rc<ModuleFile>)>,
    /// The names of every crate asked for, present at this revision or not.
    pub(super) crates: Vec<String>,
    /// The dependencies this revision's code may name: described when a path first leaves the
    /// workspace for a crate that is not std's, each mounted when first reached.
    deps: OnceCell<Dependencies>,
    describe: &'c dyn Fn() -> Externals,
    /// The revision's reader (a path dependency inside the workspace is read through it).
    reader: &'c dyn FileReader,
}

/// The dependencies of a [`ModuleTree`].
struct Dependencies {
    externals: Externals,
    /// Each dependency's root module name (see [`Externals::module_names`]), and the reverse.
    module_names: Vec<String>,
    by_module: FxHashMap<String, usize>,
    mounts: Vec<OnceCell<ExternalMount>>,
}

/// A dependency once name resolution has reached it.
pub(super) struct ExternalMount {
    /// Its module tree; `None` when its source is not on disk (or cannot be read).
    pub(super) root: Option<Rc<ModuleFile>>,
    /// The features it is built with.
    pub(super) features: BTreeSet<String>,
    /// Why it has no module tree (for the note), when it has none.
    pub(super) missing: Option<String>,
}

/// Where `mount` is: what every file it mounts shares.
struct Mounting<'a> {
    cache: &'a SourceCache,
    reader: &'a dyn FileReader,
    /// The files being mounted, outermost first (a `#[path]` back to one of them is not followed).
    chain: Vec<String>,
    /// The thread reading the same trees ahead, if any: told every file mounted.
    ahead: Option<&'a ReadAhead>,
}

/// A thread reading the crates' module trees ahead of their mounting (see [`ReadAhead`]), when
/// `reader` reads them from disk and `cache` knows none of their files: a cold check's working tree.
/// The one the cache was offered ([`SourceCache::offer_read_ahead`]) when it reads the same trees.
fn read_ahead(
    crates: &[CrateRoot],
    reader: &dyn FileReader,
    cache: &SourceCache,
) -> Option<ReadAhead> {
    let dir = reader.disk_dir()?;
    // One started before the crates were known is for this extraction or none: taken now either way.
    let early = cache.take_read_ahead();
    if cache.knows_files() {
        return None;
    }
    let roots: Vec<&str> = crates
        .iter()
        .map(|krate| krate.root_file.as_str())
        .collect();
    early
        .and_then(|early| early.take_if(dir, &roots))
        .or_else(|| ReadAhead::start(dir, &roots))
}

/// A note at `pos` of `file`.
pub(super) fn pos_note(file: &str, pos: Pos, message: String) -> ExtractNote {
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

impl<'c> ModuleTree<'c> {
    /// Finds every crate's module tree.
    pub(super) fn load(
        crates: &[CrateRoot],
        reader: &'c dyn FileReader,
        cache: &'c SourceCache,
        describe: &'c dyn Fn() -> Externals,
    ) -> Result<Self, ExtractError> {
        let mut roots = Vec::new();
        let ahead = read_ahead(crates, reader, cache);
        for krate in crates {
            let mut mounting = Mounting {
                cache,
                reader,
                chain: vec![krate.root_file.clone()],
                ahead: ahead.as_ref(),
            };
            let Some(blob) = mounting.load(&krate.root_file)? else {
                continue; // The crate does not exist at this revision.
            };
            // Files whose `mod` children live beside them (`lib.rs`, `main.rs`, `mod.rs`).
            let child_dir = parent_dir(&krate.root_file);
            let root =
                mounting.mount(&krate.root_file, blob, vec![krate.name.clone()], child_dir)?;
            roots.push((krate.name.clone(), root));
        }
        Ok(ModuleTree {
            cache,
            roots,
            crates: crates.iter().map(|krate| krate.name.clone()).collect(),
            deps: OnceCell::new(),
            describe,
            reader,
        })
    }

    /// The dependencies, described on first use.
    fn deps(&self) -> &Dependencies {
        self.deps.get_or_init(|| {
            let externals = (self.describe)();
            let module_names = externals.module_names(&self.crates);
            Dependencies {
                by_module: module_names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| (name.clone(), i))
                    .collect(),
                module_names,
                mounts: externals.crates.iter().map(|_| OnceCell::new()).collect(),
                externals,
            }
        })
    }

    /// The dependency whose root module is `module[0]`, if it is one (none before the dependencies are
    /// described: no module of theirs exists yet).
    pub(super) fn dependency_of(&self, module: &[String]) -> Option<(usize, &ExternalCrate)> {
        let deps = self.deps.get()?;
        let index = *deps.by_module.get(module.first()?)?;
        Some((index, &deps.externals.crates[index]))
    }

    /// The root module name of the dependency the code at `module` calls `name`, if it names one.
    pub(super) fn dependency_named(&self, module: &[String], name: &str) -> Option<&str> {
        if STD_ROOTS.contains(&name) {
            return None;
        }
        let first = module.first()?;
        let deps = self.deps();
        let from = match deps.by_module.get(first) {
            Some(&index) => From::External(index),
            None => From::Workspace(first),
        };
        let index = deps.externals.named(from, name)?;
        Some(&deps.module_names[index])
    }

    /// The dependency whose root module is `module[0]`, mounted on first use.
    pub(super) fn dependency_mount(&self, module: &[String]) -> Option<&ExternalMount> {
        let (index, _) = self.dependency_of(module)?;
        Some(self.deps().mounts[index].get_or_init(|| self.mount_dependency(index)))
    }

    /// Locates and mounts the dependency `index`.
    fn mount_dependency(&self, index: usize) -> ExternalMount {
        let deps = self.deps();
        let krate = &deps.externals.crates[index];
        let missing = |features, why: String| ExternalMount {
            root: None,
            features,
            missing: Some(why),
        };
        let Some(locator) = &deps.externals.locator else {
            return missing(BTreeSet::new(), "its source is not looked for".to_owned());
        };
        let located = locator.locate(krate);
        let (root_file, reader): (String, &dyn FileReader) = match &located.source {
            CrateSource::Revision { root_file } => (root_file.clone(), self.reader),
            CrateSource::Files { root_file, reader } => (root_file.clone(), &**reader),
            CrateSource::Missing { why } => return missing(located.features, why.clone()),
        };
        let module = vec![deps.module_names[index].clone()];
        let mounted = self.mount_root(reader, &root_file, module);
        match mounted {
            Ok(Some(root)) => ExternalMount {
                root: Some(root),
                features: located.features,
                missing: None,
            },
            Ok(None) => missing(
                located.features,
                format!("its root file `{root_file}` is missing"),
            ),
            Err(error) => missing(located.features, format!("it cannot be read ({error})")),
        }
    }

    /// The module tree of a dependency's root file.
    fn mount_root(
        &self,
        reader: &dyn FileReader,
        root_file: &str,
        module: Vec<String>,
    ) -> Result<Option<Rc<ModuleFile>>, ExtractError> {
        let Some(blob) = self.cache.load(reader, root_file)? else {
            return Ok(None);
        };
        let mut mounting = Mounting {
            cache: self.cache,
            reader,
            chain: vec![root_file.to_owned()],
            ahead: None,
        };
        mounting
            .mount(root_file, blob, module, parent_dir(root_file))
            .map(Some)
    }

    /// The notes of mounting every crate's module tree.
    pub(super) fn notes(&self) -> impl Iterator<Item = &ExtractNote> {
        self.roots.iter().flat_map(|(_, root)| root.notes.iter())
    }

    /// The file and inline modules of the module at `path`; `None` when no module tree has it, or
    /// `in_build` leaves out a `mod` declaration on the way (`in_build` is asked with the file that
    /// declares it: a `#[cfg]` on `mod` decides whether the module exists in the build checked).
    pub(super) fn find(
        &self,
        path: &[String],
        in_build: &mut dyn FnMut(&ModuleFile, &ChildModule) -> bool,
    ) -> Option<(&ModuleFile, Vec<String>)> {
        let (first, mut rest) = path.split_first()?;
        let mut file: &ModuleFile = match self.roots.iter().find(|(name, _)| name == first) {
            Some((_, root)) => root,
            None => self.dependency_mount(path)?.root.as_deref()?,
        };
        let mut inline: Vec<String> = Vec::new();
        while let Some((name, after)) = rest.split_first() {
            // The last declaration of a name in the build is the one the index keeps (two of the same
            // name are usually each behind a `cfg`).
            let child = file.children.iter().rev().find(|child| {
                child.relative_path.len() == inline.len() + 1
                    && child.relative_path[..inline.len()] == inline[..]
                    && child.relative_path[inline.len()] == *name
                    && in_build(file, child)
            })?;
            match &child.source {
                ChildSource::Inline => inline.push(name.clone()),
                ChildSource::File(below) => {
                    file = below;
                    inline.clear();
                }
                ChildSource::Missing => return None,
            }
            rest = after;
        }
        Some((file, inline))
    }

    /// The declarations of the files `wanted` accepts, in the order of a depth-first walk of the crates'
    /// items; only files whose scan saw a `#[wire]` item (or a macro writing some) can hold one.
    pub(super) fn declarations(
        &self,
        wanted: &dyn Fn(&Blob) -> bool,
    ) -> Result<Vec<(&ModuleFile, &Declaration)>, ExtractError> {
        let mut out = Vec::new();
        for (_, root) in &self.roots {
            collect_declarations(self.cache, wanted, root, &mut out)?;
        }
        Ok(out)
    }
}

fn collect_declarations<'t>(
    cache: &SourceCache,
    wanted: &dyn Fn(&Blob) -> bool,
    file: &'t ModuleFile,
    out: &mut Vec<(&'t ModuleFile, &'t Declaration)>,
) -> Result<(), ExtractError> {
    if !file.may_declare {
        return Ok(());
    }
    let own: &[Declaration] = if file.blob.may_declare() && wanted(&file.blob) {
        file.blob
            .declarations(cache)
            .map_err(|error| error.at(&file.path))?
    } else {
        &[]
    };
    let mut own = own.iter().peekable();
    for child in &file.children {
        let ChildSource::File(below) = &child.source else {
            continue;
        };
        while let Some(declaration) = own.next_if(|declaration| declaration.offset() < child.offset)
        {
            out.push((file, declaration));
        }
        collect_declarations(cache, wanted, below, out)?;
    }
    out.extend(own.map(|declaration| (file, declaration)));
    Ok(())
}

impl Mounting<'_> {
    /// The file at `path` mounted as `module`, with the files of its `mod` declarations (whose files are
    /// under `child_dir`) below it. A file already mounted for the same blob, children's directory (by
    /// git tree id) and place is reused: an older release costs what changed since the revisions already
    /// read.
    fn mount(
        &mut self,
        path: &str,
        blob: Rc<Blob>,
        module: ModPath,
        child_dir: &str,
    ) -> Result<Rc<ModuleFile>, ExtractError> {
        let mods = blob.mods(self.cache).map_err(|error| error.at(path))?;
        if let Some(ahead) = self.ahead {
            ahead.mounted(path, mods);
        }
        let key = self.key(path, &blob, &module, mods, child_dir)?;
        if let Some(key) = &key
            && let Some(shared) = self.cache.module_file(key)
        {
            return Ok(shared);
        }
        let mut file = ModuleFile {
            path: path.to_owned(),
            blob: Rc::clone(&blob),
            module,
            children: Vec::with_capacity(mods.len()),
            notes: Vec::new(),
            may_declare: blob.may_declare(),
            has_path_attr: false,
        };
        for declared in mods {
            let child = self.mount_child(&mut file, declared, child_dir)?;
            file.children.push(child);
        }
        let file = Rc::new(file);
        if let Some(key) = key
            && !file.has_path_attr
        {
            self.cache.keep_module_file(key, Rc::clone(&file));
        }
        Ok(file)
    }

    /// The file at `path`, taken from the read-ahead when it has it; a path without a file is told it.
    fn load(&self, path: &str) -> Result<Option<Rc<Blob>>, ExtractError> {
        let Some(ahead) = self.ahead else {
            return self.cache.load(self.reader, path);
        };
        let blob = self
            .cache
            .load_ahead(self.reader, path, &|| ahead.take(path))?;
        if blob.is_none() {
            ahead.absent(path);
        }
        Ok(blob)
    }

    /// The key a file is shared under, when the reader knows its children's directory (and the file has
    /// children: a leaf costs nothing to mount again).
    fn key(
        &self,
        path: &str,
        blob: &Blob,
        module: &ModPath,
        mods: &[ModItem],
        child_dir: &str,
    ) -> Result<Option<ModuleFileKey>, ExtractError> {
        if mods.is_empty() {
            return Ok(None);
        }
        let child_dir_id = match self.reader.dir_id(child_dir)? {
            DirId::Unknown => return Ok(None),
            DirId::Missing => None,
            DirId::Tree(id) => Some(id),
        };
        Ok(Some(ModuleFileKey {
            blob: blob.id(),
            child_dir_id,
            module: module.clone(),
            path: path.to_owned(),
            child_dir: child_dir.to_owned(),
        }))
    }

    /// The child module of `parent` that `declared` declares, with its file mounted below it when it has
    /// one; a child without a file, or one whose `#[path]` leads back up the chain, gets a note.
    fn mount_child(
        &mut self,
        parent: &mut ModuleFile,
        declared: &ModItem,
        child_dir: &str,
    ) -> Result<ChildModule, ExtractError> {
        let mut relative_path = declared.parents.clone();
        relative_path.push(declared.name.clone());
        let mut child = ChildModule {
            relative_path,
            offset: declared.pos.start,
            source: ChildSource::Missing,
        };
        if declared.inline {
            child.source = ChildSource::Inline;
            return Ok(child);
        }
        parent.has_path_attr |= declared.path_attr.is_some();
        for (candidate, sub_dir) in candidates(declared, child_dir) {
            if self.chain.contains(&candidate) {
                parent.notes.push(pos_note(
                    &parent.path,
                    declared.pos,
                    format!(
                        "module `{}` is `{candidate}` again, which contains it: not followed",
                        declared.name
                    ),
                ));
                return Ok(child);
            }
            if let Some(blob) = self.load(&candidate)? {
                let mut child_module = parent.module.clone();
                child_module.extend(child.relative_path.iter().cloned());
                self.chain.push(candidate.clone());
                let below = self.mount(&candidate, blob, child_module, &sub_dir)?;
                self.chain.pop();
                parent.may_declare |= below.may_declare;
                parent.has_path_attr |= below.has_path_attr;
                parent.notes.extend(below.notes.iter().cloned());
                child.source = ChildSource::File(below);
                return Ok(child);
            }
        }
        parent.notes.push(pos_note(
            &parent.path,
            declared.pos,
            format!(
                "module `{}` has no file here (cfg'd out or generated?): its types are not seen",
                declared.name
            ),
        ));
        Ok(child)
    }
}
