//! Placeholder impls emitted together with the errors of an invalid declaration (thiserror's
//! `fallback.rs`, clap's `dummies.rs`).
//!
//! Without them every use of the type (`<Sched as Protocol>::NAME`, `M: Message` bounds, another message's
//! `protocol = Sched`) would add a "trait not implemented" error after the real one. The constants hold
//! neutral values; the crate does not compile anyway, so they are never observed.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;
use wirecheck_grammar::{Format, Kind, ResponseMode, Upgrade, runtime_path};

use crate::wrap::wrap_in_const;

/// The errors, plus an impl of `::wirecheck::Protocol` for the item.
pub(crate) fn protocol(input: &DeriveInput, errors: &syn::Error) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body = protocol_body();
    let items = wrap_in_const(quote! {
        #[automatically_derived]
        impl #impl_generics ::wirecheck::Protocol for #ident #ty_generics #where_clause {
            #body
        }
    });
    let errors = errors.to_compile_error();
    quote!(#items #errors)
}

/// The errors, plus an impl of `::wirecheck::Message` for the item.
///
/// The type's own `#[wire(...)]` did not parse, so the user's `protocol` path is not known (the grammar
/// reports errors, not partial results). Rather than leave the type without an impl, the placeholder names
/// `InvalidWireAttributes`, a protocol declared inside the same anonymous `const _` block: it cannot clash
/// with the user's names, and a secondary error that does mention it says what is wrong.
///
/// `KIND` is `Response` so that a request naming this message in `responds`/`streams` does not fail its
/// kind assertion on top of this message's own errors.
pub(crate) fn message(input: &DeriveInput, errors: &syn::Error) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body = protocol_body();
    let kind = runtime_path(Kind::Response);
    let response_mode = runtime_path(ResponseMode::None);
    let items = wrap_in_const(quote! {
        #[doc(hidden)]
        pub struct InvalidWireAttributes;

        #[automatically_derived]
        impl ::wirecheck::Protocol for InvalidWireAttributes {
            #body
        }

        #[automatically_derived]
        impl #impl_generics ::wirecheck::Message for #ident #ty_generics #where_clause {
            type Protocol = InvalidWireAttributes;
            type Response = ();
            const TOPIC: &'static str = "";
            const KIND: ::wirecheck::Kind = #kind;
            const RESPONSE: ::wirecheck::ResponseMode = #response_mode;
            const SINCE: ::core::option::Option<&'static str> = ::core::option::Option::None;
        }
    });
    let errors = errors.to_compile_error();
    quote!(#items #errors)
}

fn protocol_body() -> TokenStream {
    let upgrade = runtime_path(Upgrade::default());
    let format = runtime_path(Format::default());
    quote! {
        const NAME: &'static str = "";
        const VERSION: &'static str = "0.0.0";
        const MIN_COMPATIBLE: ::core::option::Option<&'static str> = ::core::option::Option::None;
        const UPGRADE: ::wirecheck::Upgrade = #upgrade;
        const FORMAT: ::wirecheck::Format = #format;
    }
}
