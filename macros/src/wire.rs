//! `#[derive(Wire)]`: `#[wire(...)]` on the fields and variants of a type a message reaches, and
//! `#[wire(as = T)]` on the type itself.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput};

use crate::message::member_attrs;
use crate::wrap::wrap_in_const;

/// Expands `#[derive(Wire)]`: the errors of the item's `#[wire(...)]` attributes, and for `as = T` a
/// check that `T` names a type.
///
/// The derive exists so that rustc accepts `#[wire]` on a type that is neither a protocol nor a message
/// and on its members (a derive is what registers a helper attribute), and so that those attributes get
/// the same checks as on a message: every error of the item, each on its own tokens.
pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    let mut errors: Option<syn::Error> = None;
    let mut push = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    let type_attrs = match wirecheck_grammar::parse_type(&input.attrs) {
        Ok(type_attrs) => type_attrs,
        Err(error) => {
            push(error);
            wirecheck_grammar::TypeAttrs::default()
        }
    };
    if let Data::Union(data) = &input.data {
        push(syn::Error::new(
            data.union_token.span,
            "`#[derive(Wire)]` needs a struct or an enum: serde does not (de)serialize unions",
        ));
    }
    for member in member_attrs(&input.data) {
        if let Err(error) = wirecheck_grammar::parse_member(member) {
            push(error);
        }
    }
    match errors {
        Some(errors) => errors.into_compile_error(),
        None => type_attrs
            .as_type
            .map(|as_type| type_exists(input, &as_type))
            .unwrap_or_default(),
    }
}

/// An item that compiles only when `as_type` names a type (with the item's generics in scope, so that
/// `as = Vec<T>` may use them); it generates no code.
fn type_exists(input: &DeriveInput, as_type: &syn::Type) -> TokenStream {
    let (impl_generics, _, where_clause) = input.generics.split_for_impl();
    wrap_in_const(quote! {
        #[allow(dead_code)]
        fn wire_as #impl_generics () #where_clause {
            let _: ::core::marker::PhantomData<#as_type> = ::core::marker::PhantomData;
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::test_util::expand_wire;

    #[test]
    fn valid_members_generate_nothing() {
        let out = expand_wire(
            r#"enum Mode {
                #[wire(since = "0.2.0")]
                Fast { #[wire(allow(field_removed), reason = "r")] level: u8 },
                #[wire(allow(variant_renamed), reason = "r")]
                Slow(u8),
            }"#,
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.code, "");
    }

    #[test]
    fn as_type_is_checked_to_exist() {
        let out = expand_wire("#[wire(as = Vec<T>)] pub struct Level<T>(T);");
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(
            out.code.contains("fnwire_as<T>()")
                && out.code.contains("::core::marker::PhantomData<Vec<T>>"),
            "{}",
            out.code
        );
    }

    #[test]
    fn every_error_of_the_item() {
        let out = expand_wire(
            r#"#[wire(allow(field_removed), reason = "r")]
            struct Limits {
                #[wire(since = "1")]
                pub cores: u32,
                #[wire(allow(feld_removed), reason = "r")]
                pub gpus: u32,
                #[wire(topic = "t")]
                pub nodes: u32,
            }"#,
        );
        assert_eq!(out.errors.len(), 5, "{:?}", out.errors);
        assert!(out.errors[0].contains("unknown wire type key `allow`: expected one of `as`"));
        assert!(out.errors[1].contains("unknown wire type key `reason`"));
        assert!(out.errors[2].contains("semver"));
        assert!(out.errors[3].contains("did you mean `field_removed`?"));
        assert!(out.errors[4].contains("unknown wire field or variant key `topic`"));
    }

    #[test]
    fn unions_are_rejected() {
        let out = expand_wire("union U { a: u32 }");
        assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
        assert!(out.errors[0].contains("needs a struct or an enum"));
    }
}
