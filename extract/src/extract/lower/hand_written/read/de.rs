//! The `Deserialize` side of the readers of hand-written impls: what a body reads of its
//! deserializer (one delegated read and the conversion after it, or a visitor), and what a
//! visitor's `visit_*` methods accept.

use syn::{Expr, ImplItem, ItemImpl, Pat, Stmt};

use super::{
    Accepts, Reading, int_type, is_named, method, path_ends_with, qualified_self, typed_params,
};

/// What the `Deserialize` impl `item` reads, when its body reads its deserializer once, in a way this
/// knows.
pub fn deserialized(item: &ItemImpl) -> Option<Reading> {
    let (body, deserializer) = method(item, "deserialize")?;
    read_by(body, &deserializer?)
}

/// What a `deserialize_with` function (`fn deserialize<'de, D: Deserializer<'de>>(deserializer:
/// D) -> Result<T, D::Error>`) reads, read like a `Deserialize` body, and the type it returns (`T`
/// as written).
pub fn with_deserialized(function: &syn::ItemFn) -> Option<(Reading, syn::Type)> {
    let deserializer = typed_params(&function.sig).pop()??;
    let syn::ReturnType::Type(_, returned) = &function.sig.output else {
        return None;
    };
    let syn::Type::Path(returned) = &**returned else {
        return None;
    };
    let last = returned.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let Some(syn::GenericArgument::Type(ok)) = args.args.first() else {
        return None;
    };
    Some((read_by(&function.block, &deserializer)?, ok.clone()))
}

/// What `body` reads of the deserializer named `deserializer`, when it reads it once, in a way this
/// knows.
fn read_by(body: &syn::Block, deserializer: &str) -> Option<Reading> {
    let deserializer = deserializer.to_owned();
    let mut reads = Vec::new();
    let mut annotated = None;
    for stmt in &body.stmts {
        if let Stmt::Local(local) = stmt
            && let Pat::Type(typed) = &local.pat
            && let Some(init) = &local.init
            && mentions_read(&init.expr, &deserializer)
        {
            annotated = Some(typed.ty.clone());
        }
    }
    syn::visit::visit_block(
        &mut ReadFinder {
            deserializer: &deserializer,
            found: &mut reads,
        },
        body,
    );
    let [read] = reads.as_slice() else {
        return None;
    };
    match read {
        Found::Delegated(ty) => {
            let mut conversion = ConversionFinder::default();
            syn::visit::visit_block(&mut conversion, body);
            let ty = ty.clone().or(annotated);
            let local = ty
                .as_ref()
                .and_then(|ty| local_item(body, ty))
                .map(Box::new);
            Some(Reading::Delegated {
                ty,
                fallible: conversion.fallible,
                parsed_into: conversion.parsed_into,
                local,
                only: super::super::constant::accepted_constant(body),
            })
        }
        Found::Visitor(method, visitor) => Some(Reading::Visitor {
            method: method.clone(),
            visitor: visitor.clone(),
            local: local_visitor(body, visitor).map(Box::new),
        }),
    }
}

/// The impl of serde's `Visitor` a block writes for the one-segment type `visitor`, if it does.
fn local_visitor(body: &syn::Block, visitor: &syn::Path) -> Option<ItemImpl> {
    let name = visitor.get_ident()?;
    body.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Item(syn::Item::Impl(item))
            if item.trait_.as_ref().is_some_and(|(path, _)| {
                path.segments.last().is_some_and(|s| s.ident == "Visitor")
            }) && matches!(&*item.self_ty, syn::Type::Path(ty) if ty.path.is_ident(name)) =>
        {
            Some(item.clone())
        }
        _ => None,
    })
}

/// The struct or enum a block defines under the one-segment name `ty` is.
fn local_item(body: &syn::Block, ty: &syn::Type) -> Option<syn::Item> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let name = path.path.get_ident()?;
    body.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Item(item @ syn::Item::Struct(s)) if s.ident == *name => Some(item.clone()),
        Stmt::Item(item @ syn::Item::Enum(e)) if e.ident == *name => Some(item.clone()),
        _ => None,
    })
}

/// One read of the deserializer.
enum Found {
    Delegated(Option<Box<syn::Type>>),
    Visitor(String, syn::Path),
}

/// Finds every read of the deserializer in a body.
struct ReadFinder<'f> {
    deserializer: &'f str,
    found: &'f mut Vec<Found>,
}

impl<'ast> syn::visit::Visit<'ast> for ReadFinder<'_> {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if call.args.len() == 1
            && is_named(&call.args[0], self.deserializer)
            && path_ends_with(&call.func, "deserialize")
        {
            self.found
                .push(Found::Delegated(qualified_self(&call.func).map(Box::new)));
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        if is_named(&call.receiver, self.deserializer) && method.starts_with("deserialize_") {
            match call.args.last().and_then(visitor_path) {
                Some(visitor) => self.found.push(Found::Visitor(method, visitor)),
                // A read this does not know: two finds make the body unread.
                None => {
                    self.found.push(Found::Delegated(None));
                    self.found.push(Found::Delegated(None));
                }
            }
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The visitor type an argument names: `V`, `V { .. }`, `V(PhantomData)`, `V::new()`.
fn visitor_path(expr: &Expr) -> Option<syn::Path> {
    match expr {
        Expr::Path(path) => Some(path.path.clone()),
        Expr::Struct(built) => Some(built.path.clone()),
        Expr::Call(call) => match &*call.func {
            Expr::Path(path) => {
                let mut owner = path.path.clone();
                let last = owner.segments.last()?.ident.to_string();
                if last.chars().next().is_some_and(char::is_lowercase) && owner.segments.len() > 1 {
                    owner.segments.pop();
                    owner.segments.pop_punct();
                }
                Some(owner)
            }
            _ => None,
        },
        Expr::Reference(reference) => visitor_path(&reference.expr),
        _ => None,
    }
}

/// Whether `expr` reads the deserializer named `deserializer`.
fn mentions_read(expr: &Expr, deserializer: &str) -> bool {
    let mut found = Vec::new();
    syn::visit::visit_expr(
        &mut ReadFinder {
            deserializer,
            found: &mut found,
        },
        expr,
    );
    !found.is_empty()
}

/// Whether the code of a `Deserialize` body can fail besides the read, and what it parses into.
#[derive(Default)]
struct ConversionFinder {
    fallible: bool,
    parsed_into: Option<syn::Path>,
}

impl<'ast> syn::visit::Visit<'ast> for ConversionFinder {
    fn visit_expr_try(&mut self, expr: &'ast syn::ExprTry) {
        // `T::deserialize(d)?` is the read's own error, not the conversion's.
        if !matches!(&*expr.expr, Expr::Call(call) if path_ends_with(&call.func, "deserialize")) {
            self.fallible = true;
        }
        syn::visit::visit_expr_try(self, expr);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(path) = &*call.func {
            let segments = &path.path.segments;
            let last = segments.last().map(|s| s.ident.to_string());
            if path.path.is_ident("Err") {
                self.fallible = true;
            }
            if matches!(last.as_deref(), Some("parse" | "from_str" | "try_from"))
                && segments.len() >= 2
            {
                self.fallible = true;
                let mut owner = path.path.clone();
                owner.segments.pop();
                owner.segments.pop_punct();
                self.parsed_into.get_or_insert(owner);
            }
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        if matches!(
            method.as_str(),
            "map_err" | "ok_or" | "ok_or_else" | "parse" | "try_into" | "and_then"
        ) {
            self.fallible = true;
        }
        if method == "parse"
            && let Some(turbofish) = &call.turbofish
            && let Some(syn::GenericArgument::Type(syn::Type::Path(ty))) = turbofish.args.first()
        {
            self.parsed_into.get_or_insert(ty.path.clone());
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_return(&mut self, expr: &'ast syn::ExprReturn) {
        self.fallible = true;
        syn::visit::visit_expr_return(self, expr);
    }

    fn visit_expr_macro(&mut self, mac: &'ast syn::ExprMacro) {
        // `panic!`, `bail!`, `ensure!`...: a macro may fail.
        if !mac.mac.path.is_ident("format") {
            self.fallible = true;
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// What the `visit_*` methods of a `Visitor` impl accept.
pub fn visited(item: &ItemImpl) -> Vec<Accepts> {
    let mut out = Vec::new();
    for impl_item in &item.items {
        let ImplItem::Fn(function) = impl_item else {
            continue;
        };
        let name = function.sig.ident.to_string();
        let Some(kind) = name.strip_prefix("visit_") else {
            continue;
        };
        let mut conversion = ConversionFinder::default();
        syn::visit::visit_block(&mut conversion, &function.block);
        let into = narrowed_int(&function.block);
        let accepts = match kind {
            "bool" => Accepts::Bool,
            "u8" | "u16" | "u32" | "u64" => Accepts::Int {
                negative: false,
                into,
            },
            "i8" | "i16" | "i32" | "i64" => Accepts::Int {
                negative: true,
                into,
            },
            "f32" | "f64" => Accepts::Float,
            "str" | "borrowed_str" | "string" | "char" => Accepts::Str {
                parsed: conversion.fallible,
            },
            "unit" | "none" => Accepts::Unit,
            _ => continue,
        };
        if !out.contains(&accepts) {
            out.push(accepts);
        }
    }
    out
}

/// The integer type a `visit_*` body converts its value to with `try_from` (`u32::try_from(v)`):
/// its sign and bits.
fn narrowed_int(block: &syn::Block) -> Option<(bool, u8)> {
    #[derive(Default)]
    struct Narrow(Option<(bool, u8)>);
    impl<'ast> syn::visit::Visit<'ast> for Narrow {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(path) = &*call.func
                && let [owner, method] = path.path.segments.iter().collect::<Vec<_>>().as_slice()
                && method.ident == "try_from"
                && let Some(found) = int_type(&owner.ident.to_string())
            {
                self.0.get_or_insert(found);
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut narrow = Narrow::default();
    syn::visit::visit_block(&mut narrow, block);
    narrow.0
}
