//! `#[derive(Protocol)]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;
use wirecheck_grammar::{ProtocolAttrs, runtime_path};

use crate::fallback;
use crate::wrap::wrap_in_const;

/// Expands `#[derive(Protocol)]`: the impl, or every error plus a placeholder impl.
pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    match wirecheck_grammar::parse_protocol(&input.attrs, input.ident.span()) {
        Ok(attrs) => wrap_in_const(impl_protocol(input, &attrs)),
        Err(errors) => fallback::protocol(input, &errors),
    }
}

fn impl_protocol(input: &DeriveInput, attrs: &ProtocolAttrs) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let name = &attrs.name.value;
    let version = attrs.version.value.to_string();
    let min_compatible = match &attrs.min_compatible {
        Some(min) => {
            let min = min.value.to_string();
            quote!(::core::option::Option::Some(#min))
        }
        None => quote!(::core::option::Option::None),
    };
    let upgrade = runtime_path(attrs.upgrade);
    let format = runtime_path(attrs.format);
    quote! {
        #[automatically_derived]
        impl #impl_generics ::wirecheck::Protocol for #ident #ty_generics #where_clause {
            const NAME: &'static str = #name;
            const VERSION: &'static str = #version;
            const MIN_COMPATIBLE: ::core::option::Option<&'static str> = #min_compatible;
            const UPGRADE: ::wirecheck::Upgrade = #upgrade;
            const FORMAT: ::wirecheck::Format = #format;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::expand_protocol;

    #[test]
    fn every_key() {
        let out = expand_protocol(
            r#"#[wire(name = "sched", version = "0.88.0", min_compatible = "0.87.0", upgrade = "client-first", format = "bincode")]
            pub struct Sched;"#,
        );
        assert!(out.errors.is_empty(), "{}", out.code);
        for expected in [
            "impl::wirecheck::ProtocolforSched{",
            r#"constNAME:&'staticstr="sched";"#,
            r#"constVERSION:&'staticstr="0.88.0";"#,
            r#"constMIN_COMPATIBLE:::core::option::Option<&'staticstr>=::core::option::Option::Some("0.87.0");"#,
            "constUPGRADE:::wirecheck::Upgrade=::wirecheck::Upgrade::ClientFirst;",
            "constFORMAT:::wirecheck::Format=::wirecheck::Format::Bincode;",
        ] {
            assert!(
                out.code.contains(expected),
                "{expected} not in {}",
                out.code
            );
        }
        assert!(out.code.starts_with("#[doc(hidden)]"), "{}", out.code);
        assert!(out.code.contains("const_:()={"), "{}", out.code);
    }

    #[test]
    fn defaults() {
        let out = expand_protocol(r#"#[wire(name = "s", version = "1.0.0")] struct S;"#);
        assert!(out.code.contains(
            "MIN_COMPATIBLE:::core::option::Option<&'staticstr>=::core::option::Option::None;"
        ));
        assert!(
            out.code.contains("=::wirecheck::Upgrade::AnyOrder;"),
            "{}",
            out.code
        );
        assert!(
            out.code.contains("=::wirecheck::Format::Json;"),
            "{}",
            out.code
        );
    }

    #[test]
    fn generics_are_split_for_impl() {
        let out = expand_protocol(
            r#"#[wire(name = "g", version = "1.0.0")]
            struct G<'a, T: Copy, const N: usize>(&'a [T; N]) where T: Default;"#,
        );
        assert!(
            out.code.contains(
                "impl<'a,T:Copy,constN:usize>::wirecheck::ProtocolforG<'a,T,N>whereT:Default{"
            ),
            "{}",
            out.code
        );
    }

    #[test]
    fn errors_come_with_a_placeholder_impl() {
        let out = expand_protocol(r#"#[wire(version = "x", upgrade = "sideways")] enum E {}"#);
        assert_eq!(
            out.errors,
            [
                r#"`version` must be a semver version such as "1.2.3": unexpected character 'x' while parsing major version number"#,
                r#"unknown upgrade `sideways`: expected one of "any-order", "server-first", "client-first""#,
                r#"missing `#[wire(name = "...")]` on the protocol"#,
            ]
        );
        assert!(
            out.code.contains("impl::wirecheck::ProtocolforE{"),
            "{}",
            out.code
        );
        assert_eq!(out.code.matches("impl").count(), 1, "{}", out.code);
    }
}
