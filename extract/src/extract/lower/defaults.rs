//! Generic parameters a use leaves out take their defaults: `PackageName<T = String>` written as
//! `PackageName` is a `PackageName<String>`, as rustc reads it.

use syn::Item;

use super::super::syntax::item_generics;
use super::{Lowering, TypeScope};
use crate::model::Ty;

impl Lowering<'_> {
    /// Appends to `args` (the arguments a use of the type item `id` wrote) the defaults of the
    /// parameters it left out, lowered where the item is defined. Stops at a parameter without a
    /// default (the compiler rejects that use) or whose default names another parameter (`B = A`),
    /// which stays unbound.
    pub(super) fn fill_default_args(
        &mut self,
        id: usize,
        args: &mut Vec<Ty>,
        reached: &mut Vec<usize>,
    ) {
        let Some(item) = self.rev.syntax(id) else {
            return;
        };
        let Some(generics) = syn_generics(item) else {
            return;
        };
        let params: Vec<&syn::TypeParam> = generics.type_params().collect();
        if args.len() >= params.len() {
            return;
        }
        let module = self.rev.item_module(id);
        let file = self.rev.item_file(id);
        let names = item_generics(item);
        let scope = TypeScope {
            module: &module,
            generics: &names,
            file,
        };
        for param in &params[args.len()..] {
            let Some((_, default)) = &param.default else {
                return;
            };
            let lowered = self.ty(&scope, default, reached);
            if names_a_param(&lowered) {
                return;
            }
            args.push(lowered);
        }
    }
}

/// The generics of a struct, enum or type alias.
fn syn_generics(item: &Item) -> Option<&syn::Generics> {
    match item {
        Item::Struct(item) => Some(&item.generics),
        Item::Enum(item) => Some(&item.generics),
        Item::Type(item) => Some(&item.generics),
        _ => None,
    }
}

/// Whether a lowered type names a generic parameter anywhere.
fn names_a_param(ty: &Ty) -> bool {
    match ty {
        Ty::Param { .. } => true,
        Ty::Option { inner } => names_a_param(inner),
        Ty::Seq { elem, .. } | Ty::Array { elem, .. } => names_a_param(elem),
        Ty::Tuple { elems } => elems.iter().any(names_a_param),
        Ty::Map { key, value } => names_a_param(key) || names_a_param(value),
        Ty::Named { args, .. } => args.iter().any(names_a_param),
        Ty::Refined { base, .. } => names_a_param(base),
        Ty::Readable { human, compact } => names_a_param(human) || names_a_param(compact),
        Ty::Choice { writes, reads } => names_a_param(writes) || reads.iter().any(names_a_param),
        Ty::Bool
        | Ty::Char
        | Ty::String
        | Ty::Int { .. }
        | Ty::Float { .. }
        | Ty::Unit
        | Ty::Value
        | Ty::Bytes
        | Ty::External { .. } => false,
    }
}
