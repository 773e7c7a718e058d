//! Helpers for the unit tests: expand a derive from source text and read the output.

use proc_macro2::{TokenStream, TokenTree};
use syn::DeriveInput;

/// What a derive produced.
pub(crate) struct Expansion {
    /// The tokens without whitespace, so tests do not depend on `proc_macro2`'s spacing.
    pub(crate) code: String,
    /// The messages of the `compile_error!`s, in order.
    pub(crate) errors: Vec<String>,
}

fn expansion(tokens: TokenStream) -> Expansion {
    Expansion {
        code: tokens.to_string().split_whitespace().collect(),
        errors: errors_of(tokens),
    }
}

fn parse(src: &str) -> DeriveInput {
    syn::parse_str(src).expect("test input is a valid item")
}

/// `#[derive(Protocol)]` on `src`.
pub(crate) fn expand_protocol(src: &str) -> Expansion {
    expansion(crate::protocol::expand(&parse(src)))
}

/// `#[derive(Message)]` on `src`.
pub(crate) fn expand_message(src: &str) -> Expansion {
    expansion(crate::message::expand(&parse(src)))
}

/// `#[derive(Wire)]` on `src`.
pub(crate) fn expand_wire(src: &str) -> Expansion {
    expansion(crate::wire::expand(&parse(src)))
}

/// The messages of `compile_error! { "..." }` at the top level of `tokens`.
fn errors_of(tokens: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens
        .windows(3)
        .filter_map(|w| match w {
            [
                TokenTree::Ident(name),
                TokenTree::Punct(bang),
                TokenTree::Group(args),
            ] if name == "compile_error" && bang.as_char() == '!' => {
                let message: syn::LitStr = syn::parse2(args.stream()).expect("a string literal");
                Some(message.value())
            }
            _ => None,
        })
        .collect()
}
