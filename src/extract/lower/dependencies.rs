//! Types of dependencies in the lowering: a path that name resolution followed into a dependency is, in
//! order, a type the catalogue knows for that package version, a type the dependency derives (lowered
//! like the workspace's own, its definition naming the package), or a [`Ty::External`] naming the package
//! version (with a note when the source is not on disk, or the type has no serde derive to read).

use std::collections::BTreeSet;

use syn::spanned::Spanned;

use super::super::cfg;
use super::super::names::{NameTarget, Resolution};
use super::super::reuse::ImplRoots;
use super::super::syntax::{item_attrs, item_generics, item_ident, item_name, path_segments};
use super::super::{known, note};
use super::impls::derived_serde_traits;
use super::{Lowering, Owner, TypeScope};
use crate::model::{Body, ContainerAttrs, Ty, TypeDef};

impl Lowering<'_> {
    /// The catalogue's shape of the dependency's type at `entered` (the path where resolution entered
    /// the dependency), looked up before the dependency is mounted; else the lowered `args`, for
    /// [`Lowering::dependency_ty`].
    pub(super) fn known_dependency_ty(
        &mut self,
        scope: &TypeScope<'_>,
        entered: &[String],
        args: &[&syn::Type],
        reached: &mut Vec<usize>,
    ) -> Result<Ty, Vec<Ty>> {
        let lowered: Vec<Ty> = args
            .iter()
            .map(|arg| self.ty(scope, arg, reached))
            .collect();
        let Some(krate) = self.rev.dependency_of(entered) else {
            return Err(lowered);
        };
        let version = semver::Version::parse(&krate.version).ok();
        let public = public_path(entered, &krate.package);
        // A shape the user declares wins over the catalogue's.
        if let Some(declared) = self.declared_shape(scope, &public.join("::"), reached) {
            return Ok(declared);
        }
        match known::lookup(&public, &lowered, version.as_ref()) {
            Some(known) => {
                self.rev.add_known_defs(known.defs);
                Ok(known.ty)
            }
            None => Err(lowered),
        }
    }

    /// The model of the type at `written`, resolved to `found`, when it is a dependency's; `None` when
    /// it is not. `lowered` are its generic arguments when the caller lowered them already.
    pub(super) fn dependency_ty(
        &mut self,
        scope: &TypeScope<'_>,
        written: &syn::Path,
        found: &Resolution,
        lowered: Option<Vec<Ty>>,
        args: &[&syn::Type],
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let (target, entered) = (&found.target, &found.entered);
        let item_module = match target {
            NameTarget::Type(id) => Some(self.rev.item_module(*id)),
            _ => None,
        };
        let module = entered.as_deref().or(item_module.as_deref())?;
        let krate = self.rev.dependency_of(module)?;
        let label = krate.label();
        let version = semver::Version::parse(&krate.version).ok();
        // The path under the package's own name: where the catalogue and the notes look for it.
        let public = match (&entered, target) {
            (Some(entered), _) => public_path(entered, &krate.package),
            (None, NameTarget::Type(id)) => self.public_path_of(*id, &krate.package),
            (None, _) => path_segments(written),
        };
        // A shape the user declares wins, on disk or not, derived or not: under the path the type is
        // named by, or the one it is defined at.
        let defined_at = match target {
            NameTarget::Type(id) => Some(self.public_path_of(*id, &krate.package).join("::")),
            _ => None,
        };
        for key in std::iter::once(public.join("::")).chain(defined_at) {
            if let Some(declared) = self.declared_shape(scope, &key, reached) {
                return Some(declared);
            }
        }
        let lowered = lowered.unwrap_or_else(|| {
            args.iter()
                .map(|arg| self.ty(scope, arg, reached))
                .collect()
        });
        if let Some(known) = known::lookup(&public, &lowered, version.as_ref()) {
            self.rev.add_known_defs(known.defs);
            return Some(known.ty);
        }
        let (features, missing) = self.rev.dependency_mount(module)?;
        let external = |path: String| Ty::External {
            path,
            package: Some(label.clone()),
            source: None,
        };
        if let Some(why) = &missing {
            self.note_not_on_disk(scope, written, (&label, &public), why);
            return Some(external(with_args(&public, &lowered)));
        }
        let NameTarget::Type(id) = *target else {
            // A re-export of std's (`pub use alloc::string::String` in a prelude the code globs):
            // std's type, as the catalogue knows it.
            if let NameTarget::External(path) = target
                && self.rev.dependency_of(path).is_none()
                && let Some(known) = known::lookup(path, &lowered, None)
            {
                self.rev.add_known_defs(known.defs);
                return Some(known.ty);
            }
            // Not a type item wirecheck can read there (generated by a macro, behind an unknown cfg).
            return Some(external(with_args(&public, &lowered)));
        };
        // Derived in the build the dependency is built with (undecided `cfg_attr`s are noted where the
        // type is lowered).
        let Some(item) = self.rev.syntax(id) else {
            return Some(external(with_args(&public, &lowered)));
        };
        let is_alias = matches!(item, syn::Item::Type(_));
        let derived = self.dependency_derives_serde(id, &features);
        if !derived && !is_alias {
            let path = with_args(&public, &lowered);
            return Some(self.hand_written_dependency(
                scope,
                written,
                id,
                (&public, path),
                label,
                reached,
            ));
        }
        reached.push(id);
        let mut args = lowered;
        self.fill_default_args(id, &mut args, reached);
        Some(Ty::Named {
            path: self.rev.canonical(id),
            args,
        })
    }

    /// The note of a dependency type whose package (`label`) is not on disk, `why`.
    fn note_not_on_disk(
        &mut self,
        scope: &TypeScope<'_>,
        written: &syn::Path,
        (label, public): (&str, &[String]),
        why: &str,
    ) {
        let message = format!(
            "package `{label}` is not on disk: `{}` is compared by path only, and a version bump alone is no change ({why}); `cargo fetch` brings its source so that its impls are compared",
            public.join("::")
        );
        self.note_once(scope.file, written.span(), message);
    }

    /// The path of the dependency's type item `id` under its package's own name.
    fn public_path_of(&self, id: usize, package: &str) -> Vec<String> {
        let canonical: Vec<String> = self
            .rev
            .canonical(id)
            .split("::")
            .map(str::to_owned)
            .collect();
        public_path(&canonical, package)
    }

    /// A dependency's type item `id` whose impls are written by hand (`public`, and its `path` with
    /// arguments, of package `label`): opaque, compared by the source of its impls, with a note.
    fn hand_written_dependency(
        &mut self,
        scope: &TypeScope<'_>,
        written: &syn::Path,
        id: usize,
        (public, path): (&[String], String),
        label: String,
        reached: &mut Vec<usize>,
    ) -> Ty {
        if let Some(read) = self.read_dependency_impls(id, &label, reached) {
            return read;
        }
        let source = self.rev.impl_source(id, ImplRoots::Type);
        let message = format!(
            "`{}` of package `{label}` has no serde derive wirecheck can read (its impls are written by hand or generated): it is compared by the source of its impls, not by its version",
            public.join("::")
        );
        self.note_once(scope.file, written.span(), message);
        Ty::External {
            path,
            package: Some(label),
            source: source.map(|source| source.digest.clone()),
        }
    }

    /// A dependency's type item `id` (of package `label`) whose impls are written by hand, read as
    /// the crate's own are (`hand_written`: `serializer.serialize_str(..)`, a visitor's `visit_*`
    /// methods ...): a definition of what they write and read, each side not read exactly compared by
    /// the source of its impl. `None` when neither impl is read, or the type has type parameters
    /// (what its impls write of them is not read): it stays opaque.
    fn read_dependency_impls(
        &mut self,
        id: usize,
        label: &str,
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let item = self.rev.syntax(id)?;
        if !item_generics(item).is_empty() {
            return None;
        }
        let module = self.rev.item_module(id);
        let file = self.rev.item_file(id);
        let scope = TypeScope {
            module: &module,
            generics: &[],
            file,
        };
        let path = self.rev.canonical(id);
        let owner = Owner {
            id,
            item,
            path: &path,
            scope: &scope,
        };
        let (written, attrs) = self.hand_written_shape(&owner, reached)?;
        let def = TypeDef {
            path: path.clone(),
            generics: Vec::new(),
            attrs: ContainerAttrs {
                ser_name: item_name(item),
                ..attrs
            },
            body: Body::Alias { target: written },
            location: super::super::location(
                file,
                item_ident(item).map_or_else(proc_macro2::Span::call_site, |i| i.span()),
            ),
            package: Some(label.to_owned()),
        };
        self.rev.add_known_defs(vec![def]);
        Some(Ty::Named {
            path,
            args: Vec::new(),
        })
    }

    /// Whether the dependency's type item `id` derives serde in the build with `features`, its
    /// `cfg_attr`s applied: decided once per item and features (every field naming the type asks, and
    /// the answer depends on nothing else), the questions deciding it recorded at every use.
    fn dependency_derives_serde(&mut self, id: usize, features: &BTreeSet<String>) -> bool {
        self.rev.memoized(
            &mut self.dependency_derives,
            (id, features.clone()),
            |rev| {
                let Some(item) = rev.syntax(id) else {
                    return false;
                };
                let module = rev.item_module(id);
                let mut undecided = Vec::new();
                let attrs = cfg::applied(item_attrs(item), features, &mut undecided);
                derived_serde_traits(rev, &module, &attrs).any()
            },
        )
    }

    /// A note, unless the same message was already noted (once per package or type is enough).
    pub(super) fn note_once(&mut self, file: &str, span: proc_macro2::Span, message: String) {
        self.rev.push_note_once(note(file, span, message));
    }
}

/// `path` (from a dependency's root module) under the dependency's package name, as the catalogue and
/// the notes name it (`url::Url`, not `url@2.5.0::Url`).
fn public_path(path: &[String], package: &str) -> Vec<String> {
    let mut public = path.to_vec();
    if let Some(first) = public.first_mut() {
        *first = package.replace('-', "_");
    }
    public
}

/// `path<args>` as an external type's path.
fn with_args(path: &[String], args: &[Ty]) -> String {
    let joined = path.join("::");
    if args.is_empty() {
        return joined;
    }
    let args: Vec<String> = args.iter().map(ToString::to_string).collect();
    format!("{joined}<{}>", args.join(", "))
}
