//! `#[derive(Wire)]`: `#[wire(...)]` on the fields and variants of a type a message reaches.

use proc_macro2::TokenStream;
use syn::{Data, DeriveInput};

use crate::message::member_attrs;

/// Expands `#[derive(Wire)]`: nothing but the errors of the item's `#[wire(...)]` attributes.
///
/// The derive exists so that rustc accepts `#[wire]` on the members of a type that is neither a protocol
/// nor a message (a derive is what registers a helper attribute), and so that those attributes get the
/// same checks as on a message: every error of the item, each on its own tokens.
pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    let mut errors: Option<syn::Error> = None;
    let mut push = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    for attr in input
        .attrs
        .iter()
        .filter(|attr| wirecheck_grammar::is_wire_attr(attr))
    {
        push(syn::Error::new_spanned(
            attr,
            "`#[derive(Wire)]` reads `#[wire(...)]` on fields and variants only: an `allow` for the whole \
             type goes on the field of the message that holds it",
        ));
    }
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
    errors
        .map(syn::Error::into_compile_error)
        .unwrap_or_default()
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
        assert_eq!(out.errors.len(), 4, "{:?}", out.errors);
        assert!(out.errors[0].contains("fields and variants only"));
        assert!(out.errors[1].contains("semver"));
        assert!(out.errors[2].contains("did you mean `field_removed`?"));
        assert!(out.errors[3].contains("unknown wire field or variant key `topic`"));
    }

    #[test]
    fn unions_are_rejected() {
        let out = expand_wire("union U { a: u32 }");
        assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
        assert!(out.errors[0].contains("needs a struct or an enum"));
    }
}
