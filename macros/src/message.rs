//! `#[derive(Message)]`.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens as _, quote, quote_spanned};
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam, Generics, Path};
use wirecheck_grammar::{MessageAttrs, ResponseMode, runtime_path};

use crate::fallback;
use crate::wrap::wrap_in_const;

/// Expands `#[derive(Message)]`.
///
/// Every error of the item is reported: the type's `#[wire(...)]`, then each field's and variant's in source
/// order. When the type's own attributes parsed, the real impl is emitted even if a member's did not (it
/// names the user's protocol, so a wrong `protocol` path is reported in the same compile); otherwise a
/// placeholder impl is (see [`fallback::message`]).
pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    let mut errors: Option<syn::Error> = None;
    let mut push = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    let attrs = wirecheck_grammar::parse_message(&input.attrs, input.ident.span())
        .map_err(&mut push)
        .ok();
    if let Data::Union(data) = &input.data {
        push(syn::Error::new(
            data.union_token.span,
            "`#[derive(Message)]` needs a struct or an enum: serde does not (de)serialize unions",
        ));
    }
    for member in member_attrs(&input.data) {
        if let Err(error) = wirecheck_grammar::parse_member(member) {
            push(error);
        }
    }
    match (attrs, errors) {
        (Some(attrs), None) => wrap_in_const(impl_message(input, &attrs)),
        (Some(attrs), Some(errors)) => {
            let errors = errors.into_compile_error();
            let items = wrap_in_const(impl_message(input, &attrs));
            quote!(#items #errors)
        }
        (None, Some(errors)) => fallback::message(input, &errors),
        (None, None) => unreachable!("parse_message failed without an error"),
    }
}

/// The attributes of every field and every enum variant (and of the variants' fields), in source order.
pub(crate) fn member_attrs(data: &Data) -> Vec<&[Attribute]> {
    fn fields(fields: &Fields) -> impl Iterator<Item = &[Attribute]> {
        fields.iter().map(|f| f.attrs.as_slice())
    }
    match data {
        Data::Struct(data) => fields(&data.fields).collect(),
        Data::Enum(data) => data
            .variants
            .iter()
            .flat_map(|v| std::iter::once(v.attrs.as_slice()).chain(fields(&v.fields)))
            .collect(),
        Data::Union(data) => data
            .fields
            .named
            .iter()
            .map(|f| f.attrs.as_slice())
            .collect(),
    }
}

fn impl_message(input: &DeriveInput, attrs: &MessageAttrs) -> TokenStream {
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    let protocol = &attrs.protocol;
    // `protocol = P` naming one of the message's own type parameters: `Message::Protocol` needs the bound.
    if let Some(param) = protocol.get_ident()
        && input.generics.type_params().any(|t| t.ident == *param)
    {
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#param: ::wirecheck::Protocol));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let (response, mode, response_check) = match (&attrs.responds, &attrs.streams) {
        (Some(path), _) => (
            path.to_token_stream(),
            runtime_path(ResponseMode::Single),
            response_check(path, "responds", &input.generics),
        ),
        (None, Some(path)) => (
            path.to_token_stream(),
            runtime_path(ResponseMode::Stream),
            response_check(path, "streams", &input.generics),
        ),
        (None, None) => (quote!(()), runtime_path(ResponseMode::None), None),
    };
    let topic = &attrs.topic.value;
    let kind = runtime_path(attrs.kind.value);
    let since = match &attrs.since {
        Some(since) => {
            let since = since.value.to_string();
            quote!(::core::option::Option::Some(#since))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::wirecheck::Message for #ident #ty_generics #where_clause {
            // The user's path keeps its spans: "cannot find type" and "`X: Protocol` is not satisfied"
            // point at it.
            type Protocol = #protocol;
            type Response = #response;
            const TOPIC: &'static str = #topic;
            const KIND: ::wirecheck::Kind = #kind;
            const RESPONSE: ::wirecheck::ResponseMode = #mode;
            const SINCE: ::core::option::Option<&'static str> = #since;
        }
        #response_check
    }
}

/// A const assertion that the `responds`/`streams` type is a `Message` of kind response, spanned on its path.
///
/// A const item cannot see the impl's generic parameters, so no check is emitted when the path mentions
/// one of them (or `Self`).
fn response_check(path: &Path, key: &str, generics: &Generics) -> Option<TokenStream> {
    if mentions_generics(path, generics) {
        return None;
    }
    let message = format!(
        "`{key} = {}` must name a message declared with `kind = \"response\"`",
        display_path(path)
    );
    // The assertion's tokens start at the path's first token and end at its last, so rustc's error spans
    // the whole path (a single proc-macro span cannot cover several tokens on stable).
    let (start, end) = path_bounds(path);
    let assert = quote_spanned!(start=> ::core::assert!);
    let arguments = quote_spanned! {end=>
        (
            ::core::matches!(
                <#path as ::wirecheck::Message>::KIND,
                ::wirecheck::Kind::Response
            ),
            #message
        )
    };
    Some(quote_spanned!(start=> const _: () = #assert #arguments;))
}

/// The spans of the first and the last token of a path.
fn path_bounds(path: &Path) -> (Span, Span) {
    let mut tokens = path.to_token_stream().into_iter();
    let start = tokens.next().map_or_else(Span::call_site, |t| t.span());
    let end = tokens.last().map_or(start, |t| t.span());
    (start, end)
}

/// Whether `path` mentions a generic parameter of the item, or `Self`.
fn mentions_generics(path: &Path, generics: &Generics) -> bool {
    let mut types = vec!["Self".to_owned()];
    let mut lifetimes = Vec::new();
    for param in &generics.params {
        match param {
            GenericParam::Type(t) => types.push(t.ident.to_string()),
            GenericParam::Const(c) => types.push(c.ident.to_string()),
            GenericParam::Lifetime(l) => lifetimes.push(l.lifetime.ident.to_string()),
        }
    }
    fn walk(tokens: TokenStream, types: &[String], lifetimes: &[String]) -> bool {
        let mut after_quote = false;
        for token in tokens {
            let hit = match &token {
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    let names = if after_quote { lifetimes } else { types };
                    names.contains(&name)
                }
                TokenTree::Group(group) => walk(group.stream(), types, lifetimes),
                TokenTree::Punct(_) | TokenTree::Literal(_) => false,
            };
            if hit {
                return true;
            }
            after_quote = matches!(&token, TokenTree::Punct(p) if p.as_char() == '\'');
        }
        false
    }
    walk(path.to_token_stream(), &types, &lifetimes)
}

/// A path as the user would write it (`crate::sched::AllocResponse`), for messages.
fn display_path(path: &Path) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for token in path.to_token_stream() {
        let text = token.to_string();
        // `quote` separates every token with a space; keep one only between two words (`dyn Trait`).
        let first = text.chars().next();
        let words = previous.is_some_and(is_word_char)
            && first.is_some_and(is_word_char)
            && !out.is_empty();
        if words {
            out.push(' ');
        }
        if matches!(token, TokenTree::Punct(ref p) if p.as_char() == ',') {
            out.push_str(", ");
            previous = Some(' ');
            continue;
        }
        previous = text.chars().last();
        out.push_str(&text);
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::{display_path, mentions_generics};
    use crate::test_util::expand_message;

    fn path(src: &str) -> syn::Path {
        syn::parse_str(src).unwrap()
    }

    fn generics(src: &str) -> syn::Generics {
        syn::parse_str(src).unwrap()
    }

    #[test]
    fn request_with_response() {
        let out = expand_message(
            r#"#[wire(protocol = crate::Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse, since = "0.56.0")]
            pub struct AllocRequest { id: u64 }"#,
        );
        assert!(out.errors.is_empty(), "{}", out.code);
        for expected in [
            "impl::wirecheck::MessageforAllocRequest{",
            "typeProtocol=crate::Sched;",
            "typeResponse=AllocResponse;",
            r#"constTOPIC:&'staticstr="sched.alloc";"#,
            "constKIND:::wirecheck::Kind=::wirecheck::Kind::Request;",
            "constRESPONSE:::wirecheck::ResponseMode=::wirecheck::ResponseMode::Single;",
            r#"constSINCE:::core::option::Option<&'staticstr>=::core::option::Option::Some("0.56.0");"#,
            "const_:()=::core::assert!(::core::matches!(<AllocResponseas::wirecheck::Message>::KIND,::wirecheck::Kind::Response),",
        ] {
            assert!(
                out.code.contains(expected),
                "{expected} not in {}",
                out.code
            );
        }
    }

    #[test]
    fn streams_and_no_response() {
        let out = expand_message(
            r#"#[wire(protocol = P, topic = "t", kind = "request", streams = m::Hello)] struct R;"#,
        );
        assert!(out.code.contains("typeResponse=m::Hello;"), "{}", out.code);
        assert!(
            out.code.contains("=::wirecheck::ResponseMode::Stream;"),
            "{}",
            out.code
        );
        assert!(
            out.code.contains("<m::Helloas::wirecheck::Message>::KIND"),
            "{}",
            out.code
        );

        let out =
            expand_message(r#"#[wire(protocol = P, topic = "t", kind = "record")] enum E { A }"#);
        assert!(out.code.contains("typeResponse=();"), "{}", out.code);
        assert!(
            out.code.contains("=::wirecheck::ResponseMode::None;"),
            "{}",
            out.code
        );
        assert!(
            out.code.contains("=::wirecheck::Kind::Record;"),
            "{}",
            out.code
        );
        assert!(
            out.code.contains("=::core::option::Option::None;"),
            "{}",
            out.code
        );
        assert!(!out.code.contains("assert!"), "{}", out.code);
    }

    #[test]
    fn protocol_type_parameter_is_bounded() {
        let out = expand_message(
            r#"#[wire(protocol = P, topic = "t", kind = "event")] struct E<P, Q>(P, Q) where Q: Copy;"#,
        );
        assert!(
            out.code.contains(
                "impl<P,Q>::wirecheck::MessageforE<P,Q>whereQ:Copy,P:::wirecheck::Protocol{"
            ),
            "{}",
            out.code
        );
        let out = expand_message(
            r#"#[wire(protocol = Sched, topic = "t", kind = "event")] struct E<P>(P);"#,
        );
        assert!(
            out.code.contains("impl<P>::wirecheck::MessageforE<P>{"),
            "{}",
            out.code
        );
    }

    #[test]
    fn response_check_is_skipped_for_generic_paths() {
        let out = expand_message(
            r#"#[wire(protocol = S, topic = "t", kind = "request", responds = Reply::<T>)] struct R<T>(T);"#,
        );
        assert!(
            out.code.contains("typeResponse=Reply::<T>;"),
            "{}",
            out.code
        );
        assert!(!out.code.contains("assert!"), "{}", out.code);
        let out = expand_message(
            r#"#[wire(protocol = S, topic = "t", kind = "request", responds = Reply)] struct R<T>(T);"#,
        );
        assert!(out.code.contains("assert!"), "{}", out.code);
    }

    #[test]
    fn response_types_take_generic_arguments_without_turbofish() {
        let out = expand_message(
            r#"#[wire(protocol = S, topic = "t", kind = "request", streams = Reply<T>)] struct W<T>(T);"#,
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(out.code.contains("typeResponse=Reply<T>;"), "{}", out.code);
        assert!(!out.code.contains("assert!"), "{}", out.code);

        let out = expand_message(
            r#"#[wire(protocol = S, topic = "t", kind = "request", responds = m::Reply<Vec<u8>, u32>)] struct R;"#,
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(
            out.code.contains("typeResponse=m::Reply<Vec<u8>,u32>;"),
            "{}",
            out.code
        );
        assert!(
            out.code
                .contains("<m::Reply<Vec<u8>,u32>as::wirecheck::Message>::KIND"),
            "{}",
            out.code
        );
        assert!(
            out.code
                .contains("`responds=m::Reply<Vec<u8>,u32>`mustnameamessage"),
            "{}",
            out.code
        );
    }

    #[test]
    fn generic_mentions() {
        let item_generics = generics("<'a, T, const N: usize>");
        assert!(mentions_generics(&path("Reply::<T>"), &item_generics));
        assert!(mentions_generics(&path("Reply::<N>"), &item_generics));
        assert!(mentions_generics(&path("Reply::<'a>"), &item_generics));
        assert!(mentions_generics(
            &path("m::Reply::<Vec<T>>"),
            &item_generics
        ));
        assert!(mentions_generics(&path("Self"), &generics("")));
        assert!(
            !mentions_generics(&path("a::Reply"), &item_generics),
            "`a` is a module, not the lifetime"
        );
        assert!(!mentions_generics(&path("Reply::<'b, U>"), &item_generics));
    }

    #[test]
    fn paths_display_as_written() {
        assert_eq!(
            display_path(&path("crate::sched::AllocResponse")),
            "crate::sched::AllocResponse"
        );
        assert_eq!(
            display_path(&path("::m::Reply::<u32, Vec<u8>>")),
            "::m::Reply::<u32, Vec<u8>>"
        );
        assert_eq!(display_path(&path("Reply::<'static>")), "Reply::<'static>");
        assert_eq!(
            display_path(&path("m::Reply<Vec<u8>, u32>")),
            "m::Reply<Vec<u8>, u32>"
        );
    }

    #[test]
    fn member_errors_keep_the_real_impl() {
        let out = expand_message(
            r#"#[wire(protocol = Sched, topic = "t", kind = "event")]
            enum E {
                #[wire(since = "1")]
                A { #[wire(allow(field_removed))] a: u8 },
                B(#[wire(reason = "r")] u8),
            }"#,
        );
        assert_eq!(out.errors.len(), 3, "{}", out.code);
        assert!(out.code.contains("typeProtocol=Sched;"), "{}", out.code);
        assert!(!out.code.contains("InvalidWireAttributes"), "{}", out.code);
    }

    #[test]
    fn all_errors_in_source_order_with_a_placeholder_impl() {
        let out = expand_message(
            r#"#[wire(protocol = "Sched", kind = "reply")]
            pub struct M<T> { #[wire(colour = "red")] t: T }"#,
        );
        let errors = out.errors;
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(
            errors[0].contains("takes a type path, not a string"),
            "{errors:?}"
        );
        assert!(errors[1].contains("unknown kind `reply`"), "{errors:?}");
        assert!(errors[2].contains("missing `#[wire(topic"), "{errors:?}");
        assert!(
            errors[3].contains("unknown wire field or variant key `colour`"),
            "{errors:?}"
        );
        for expected in [
            "pubstructInvalidWireAttributes;",
            "impl::wirecheck::ProtocolforInvalidWireAttributes{",
            "impl<T>::wirecheck::MessageforM<T>{typeProtocol=InvalidWireAttributes;typeResponse=();",
            "constKIND:::wirecheck::Kind=::wirecheck::Kind::Response;",
        ] {
            assert!(
                out.code.contains(expected),
                "{expected} not in {}",
                out.code
            );
        }
    }

    #[test]
    fn unions_are_rejected() {
        let out = expand_message(
            r#"#[wire(protocol = Sched, topic = "t", kind = "event")] union U { #[wire(since = "x")] a: u8 }"#,
        );
        let errors = out.errors;
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].contains("needs a struct or an enum"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("`since` must be a semver version"),
            "{errors:?}"
        );
        assert!(out.code.contains("typeProtocol=Sched;"), "{}", out.code);
    }
}
