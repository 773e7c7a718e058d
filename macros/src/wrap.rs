//! The hygiene wrapper around generated items (serde_derive's `dummy.rs`).

use proc_macro2::TokenStream;
use quote::quote;

/// Wraps generated items in `const _: () = { ... };`.
///
/// Helper items (assertions, the placeholder protocol of [`crate::fallback`]) live in the anonymous block, so
/// they never collide with, or become visible to, the user's own names.
pub(crate) fn wrap_in_const(items: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(unused_qualifications, clippy::absolute_paths)]
        const _: () = {
            #items
        };
    }
}
