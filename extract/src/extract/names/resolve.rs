//! Resolving a path written in a module: `crate`/`self`/`super`, child modules, `use` imports and
//! renames, glob imports (what a glob's target exports, never through itself), re-exports, and the
//! border of a dependency, as the compiler finds it.

use super::*;

impl<'a> Names<'a> {
    /// Resolves a path as written in `module`.
    pub(in crate::extract) fn resolve(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Resolution {
        self.resolve_memoized(module, segments, false)
    }

    /// [`Names::resolve`], stopping where the path enters a dependency (without mounting it): the
    /// target is then `External`, the path at the border.
    pub(in crate::extract) fn resolve_to_border(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Resolution {
        self.resolve_memoized(module, segments, true)
    }

    /// [`Names::resolve`] or [`Names::resolve_to_border`], answered from the memo when the same path
    /// was looked up in the same module before (the lookup depends on nothing else).
    pub(super) fn resolve_memoized(
        &mut self,
        module: &[String],
        segments: &[String],
        to_border: bool,
    ) -> Resolution {
        let memo = if to_border {
            &self.resolved_to_border
        } else {
            &self.resolved
        };
        if let Some(resolved) = memo.get(module).and_then(|paths| paths.get(segments)) {
            return resolved.clone();
        }
        self.entered = None;
        self.stop_at_border = to_border;
        let target = self.resolve_hops(module, segments, 0);
        self.stop_at_border = false;
        let resolved = Resolution {
            target,
            entered: self.entered.take(),
        };
        let memo = if to_border {
            &mut self.resolved_to_border
        } else {
            &mut self.resolved
        };
        match memo.get_mut(module) {
            Some(paths) => {
                paths.insert(segments.to_vec(), resolved.clone());
            }
            None => {
                let mut paths = FxHashMap::default();
                paths.insert(segments.to_vec(), resolved.clone());
                memo.insert(module.to_vec(), paths);
            }
        }
        resolved
    }

    /// [`Names::resolve`], `hops` imports deep.
    pub(super) fn resolve_hops(
        &mut self,
        module: &[String],
        segments: &[String],
        hops: usize,
    ) -> NameTarget {
        if hops > MAX_HOPS || segments.is_empty() {
            return NameTarget::External(segments.to_vec());
        }
        let first = segments[0].as_str();
        let (base, rest): (ModPath, &[String]) = match first {
            "crate" => (module[..1].to_vec(), &segments[1..]),
            "self" => (module.to_vec(), &segments[1..]),
            "super" => {
                let mut base = module[..module.len().saturating_sub(1).max(1)].to_vec();
                let mut rest = &segments[1..];
                while rest.first().is_some_and(|segment| segment == "super") {
                    base.truncate(base.len().saturating_sub(1).max(1));
                    rest = &rest[1..];
                }
                (base, rest)
            }
            "" => return self.resolve_absolute(module, &segments[1..], hops),
            _ => {
                let Some(step) = self.step_in(module, first, segments.len() == 1) else {
                    return match self.module(module) {
                        Some(_) => self.resolve_absolute(module, segments, hops),
                        None => NameTarget::External(segments.to_vec()),
                    };
                };
                match step {
                    Step::Type(slot, file, owner) => {
                        return match self.type_id(slot, file, &owner, first) {
                            Some(id) => NameTarget::Type(id),
                            None => NameTarget::External(segments.to_vec()),
                        };
                    }
                    Step::Child(child) => (child, &segments[1..]),
                    Step::Use(mut full) => {
                        full.extend_from_slice(&segments[1..]);
                        return self.resolve_hops(module, &full, hops + 1);
                    }
                    Step::Globs(owner, globs) => {
                        return self
                            .resolve_glob(&owner, &globs, segments, hops)
                            .unwrap_or_else(|| self.resolve_absolute(module, segments, hops));
                    }
                }
            }
        };
        self.resolve_below(base, rest, hops)
    }

    /// What `name` is in the module at `module` (see [`ModuleScope::step`]), its globs left out while
    /// one of them is being resolved.
    pub(super) fn step_in(
        &mut self,
        module: &[String],
        name: &str,
        is_last: bool,
    ) -> Option<Step<'a>> {
        let globs_off = self.globs_off.iter().any(|off| off.as_slice() == module);
        match self.module(module)?.step(name, is_last)? {
            Step::Globs(..) if globs_off => None,
            step => Some(step),
        }
    }

    /// A path starting with a crate name (or `::name`), written in `module`: a workspace crate, a
    /// dependency of the crate `module` is in (by the name that crate gives it), or external.
    pub(super) fn resolve_absolute(
        &mut self,
        module: &[String],
        segments: &[String],
        hops: usize,
    ) -> NameTarget {
        let Some(first) = segments.first() else {
            return NameTarget::External(Vec::new());
        };
        if self.tree.crates.contains(first) {
            return self.resolve_below(vec![first.clone()], &segments[1..], hops);
        }
        let tree: &'a ModuleTree<'a> = self.tree;
        // A bare name (`String`) is no crate's path: only `name::...` may enter a dependency.
        let dependency = match segments.len() {
            1 => None,
            _ => tree.dependency_named(module, first),
        };
        match dependency {
            Some(root) => {
                let root = root.to_owned();
                let mut entered = vec![root.clone()];
                entered.extend_from_slice(&segments[1..]);
                if self.stop_at_border {
                    self.entered = Some(entered.clone());
                    return NameTarget::External(entered);
                }
                self.entered.get_or_insert(entered);
                self.resolve_below(vec![root], &segments[1..], hops)
            }
            None => NameTarget::External(segments.to_vec()),
        }
    }

    /// `segments`, whose first is a name the module `owner` neither defines nor imports by name,
    /// through the glob imports `globs` of `owner`, as rustc resolves them: the first glob whose module
    /// exports that name gives it (a glob brings only what its module defines or imports, itself by
    /// name or by its own globs); `None` when no glob brings it.
    pub(super) fn resolve_glob(
        &mut self,
        owner: &[String],
        globs: &[Vec<String>],
        segments: &[String],
        hops: usize,
    ) -> Option<NameTarget> {
        let name = segments.first()?;
        let _guard = InProgress::enter(owner, segments)?;
        for glob in globs {
            match self.glob_source(owner, glob, hops) {
                GlobSource::Module(source) => {
                    if self.exports(&source, name, hops + 1) {
                        self.enter_dependency_module(&source, segments);
                        return Some(self.resolve_below(source, segments, hops + 1));
                    }
                }
                GlobSource::Unread(mut path) if self.unread_glob_brings(owner, name) => {
                    path.extend_from_slice(segments);
                    if self.tree.dependency_of(&path).is_some() {
                        self.entered.get_or_insert_with(|| path.clone());
                    }
                    return Some(NameTarget::External(path));
                }
                GlobSource::Unread(_) | GlobSource::Nothing => {}
            }
        }
        None
    }

    /// Where the glob import `glob`, written in `owner`, leads: its path resolved from `owner` without
    /// `owner`'s own globs, and without changing where the lookup in progress entered a dependency.
    pub(super) fn glob_source(
        &mut self,
        owner: &[String],
        glob: &[String],
        hops: usize,
    ) -> GlobSource {
        let entered = self.entered.take();
        self.globs_off.push(owner.to_vec());
        let target = self.resolve_hops(owner, glob, hops + 1);
        self.globs_off.pop();
        let crossed = std::mem::replace(&mut self.entered, entered);
        match target {
            NameTarget::Module(path) => GlobSource::Module(path),
            NameTarget::Type(_) => GlobSource::Nothing,
            NameTarget::External(path) => match crossed {
                // A dependency beyond the border, or one whose source is not mounted.
                Some(at_border) if at_border == path => GlobSource::Unread(path),
                Some(_) => GlobSource::Nothing,
                None if path
                    .first()
                    .is_some_and(|first| STD_ROOTS.contains(&first.as_str())) =>
                {
                    GlobSource::Unread(path)
                }
                None => GlobSource::Nothing,
            },
        }
    }

    /// Whether the module at `module` exports `name` to a glob import: defines or imports it by name,
    /// or brings it by a glob of its own.
    pub(super) fn exports(&mut self, module: &[String], name: &str, hops: usize) -> bool {
        if hops > MAX_HOPS {
            return false;
        }
        let Some(scope) = self.module(module) else {
            return false;
        };
        if scope.types.contains_key(name)
            || scope.mods.contains_key(name)
            || scope.uses.contains_key(name)
        {
            return true;
        }
        let globs = scope.globs.clone();
        if globs.is_empty() {
            return false;
        }
        let segments = [name.to_owned()];
        let Some(_guard) = InProgress::enter(module, &segments) else {
            return false;
        };
        for glob in &globs {
            let brings = match self.glob_source(module, glob, hops) {
                GlobSource::Module(source) => self.exports(&source, name, hops + 1),
                GlobSource::Unread(_) => self.unread_glob_brings(module, name),
                GlobSource::Nothing => false,
            };
            if brings {
                return true;
            }
        }
        false
    }

    /// Whether a glob of a module the lookup does not read (see [`GlobSource::Unread`]), written in
    /// `module`, is taken to bring `name`: unless the std prelude or the language gives it, or it names
    /// a crate (a glob that brought it would make the name ambiguous, which rustc rejects).
    pub(super) fn unread_glob_brings(&self, module: &[String], name: &str) -> bool {
        !is_prelude_name(name)
            && !STD_ROOTS.contains(&name)
            && !self.tree.crates.iter().any(|krate| krate == name)
            && self.tree.dependency_named(module, name).is_none()
    }

    /// Notes that the lookup enters a dependency at `segments` of its module `module`, when `module` is
    /// a dependency's and the lookup had not entered one yet.
    pub(super) fn enter_dependency_module(&mut self, module: &[String], segments: &[String]) {
        if self.entered.is_none() && self.tree.dependency_of(module).is_some() {
            let mut entered = module.to_vec();
            entered.extend_from_slice(segments);
            self.entered = Some(entered);
        }
    }

    /// `rest` looked up from the module `base` down, one module per segment.
    pub(super) fn resolve_below(
        &mut self,
        mut base: ModPath,
        rest: &[String],
        hops: usize,
    ) -> NameTarget {
        let external = |base: &ModPath, from: &[String]| {
            let mut segments = base.clone();
            segments.extend_from_slice(from);
            NameTarget::External(segments)
        };
        for (i, segment) in rest.iter().enumerate() {
            let Some(step) = self.step_in(&base, segment, i + 1 == rest.len()) else {
                return external(&base, &rest[i..]);
            };
            match step {
                Step::Type(slot, file, owner) => {
                    return match self.type_id(slot, file, &owner, segment) {
                        Some(id) => NameTarget::Type(id),
                        None => external(&base, &rest[i..]),
                    };
                }
                Step::Child(child) => base = child,
                Step::Use(mut full) => {
                    full.extend_from_slice(&rest[i + 1..]);
                    return self.resolve_hops(&base, &full, hops + 1);
                }
                Step::Globs(owner, globs) => {
                    return self
                        .resolve_glob(&owner, &globs, &rest[i..], hops)
                        .unwrap_or_else(|| external(&base, &rest[i..]));
                }
            }
        }
        NameTarget::Module(base)
    }
}
