//! Derives for wirecheck: `#[derive(Protocol)]` and `#[derive(Message)]`. Use them through the `wirecheck`
//! crate, which re-exports them.

use proc_macro::TokenStream;

/// Declares a wire protocol on a marker type. See the `wirecheck` crate.
#[proc_macro_derive(Protocol, attributes(wire))]
pub fn derive_protocol(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}

/// Declares a message of a protocol. See the `wirecheck` crate.
#[proc_macro_derive(Message, attributes(wire))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
