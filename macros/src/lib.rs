//! Derives for wirecheck: `#[derive(Protocol)]`, `#[derive(Message)]`, and `#[derive(Wire)]` for the types
//! a message reaches.
//!
//! Use them through the `wirecheck` crate, which re-exports them (feature `derive`, on by default); the
//! generated code names `::wirecheck::Protocol` and `::wirecheck::Message`.
//!
//! The `#[wire(...)]` attributes are read by `wirecheck-grammar`, the same parser the checker uses, so the
//! derive and the checker cannot disagree on what an annotation means. Every invalid annotation of an item is
//! reported in one compile, each spanned on the offending token. Alongside the errors the derives emit
//! placeholder impls of the trait (the pattern of thiserror's `fallback.rs` and clap's `dummies.rs`), so that
//! code using the type does not drown the real errors in secondary ones.
//!
//! Layout (serde_derive/thiserror style): `protocol.rs` and `message.rs` generate the impls from the parsed
//! attributes, `wire.rs` only checks them, `fallback.rs` holds the placeholder impls emitted with errors, and `wrap.rs` the `const _`
//! hygiene wrapper.
#![warn(missing_docs)]

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

mod fallback;
mod message;
mod protocol;
#[cfg(test)]
mod test_util;
mod wire;
mod wrap;

/// Implements `wirecheck::Protocol` for a protocol marker type.
///
/// ```rust
/// use wirecheck::Protocol;
///
/// /// The scheduler protocol (Flux RFC 27).
/// #[derive(Protocol)]
/// #[wire(name = "sched", version = "0.88.0", min_compatible = "0.87.0")]
/// pub struct Sched;
/// ```
///
/// Keys of `#[wire(...)]`:
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | the protocol's name on the wire and in reports | required |
/// | `version` | the semver version of this release of the protocol | required |
/// | `min_compatible` | the oldest release this version must interoperate with | none |
/// | `upgrade` | `"any-order"`, `"server-first"` or `"client-first"` | `"any-order"` |
/// | `format` | `"json"`, `"cbor"`, `"msgpack"`, `"msgpack-compact"`, `"bincode"` or `"postcard"` | `"json"` |
///
/// The derive works on any struct, enum or union, generic or not (usually a unit struct).
#[proc_macro_derive(Protocol, attributes(wire))]
pub fn derive_protocol(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    protocol::expand(&input).into()
}

/// Implements `wirecheck::Message` for a message of a protocol.
///
/// ```rust
/// use wirecheck::{Message, Protocol};
///
/// #[derive(Protocol)]
/// #[wire(name = "sched", version = "0.88.0")]
/// pub struct Sched;
///
/// #[derive(Message)]
/// #[wire(protocol = Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse)]
/// pub struct AllocRequest {
///     pub id: u64,
///     #[wire(since = "0.56.0")]
///     pub priority: Option<u32>,
/// }
///
/// #[derive(Message)]
/// #[wire(protocol = Sched, topic = "sched.alloc", kind = "response")]
/// pub struct AllocResponse {
///     pub id: u64,
/// }
/// ```
///
/// Keys of `#[wire(...)]` on the type:
///
/// | key | value |
/// |---|---|
/// | `protocol` | the protocol marker type (a path; required) |
/// | `topic` | the topic the message travels on (required) |
/// | `kind` | `"request"`, `"response"`, `"event"` or `"record"` (required) |
/// | `responds` | a request's single response type (a path) |
/// | `streams` | a request's streamed response type (a path) |
/// | `since` | the protocol version the message entered in |
/// | `allow(rule, ...)`, `reason` | suppress findings of the checker, always with a reason |
///
/// Fields and enum variants accept `since`, `allow(...)` and `reason`. An `allow` names rule ids of
/// `wirecheck rules` (snake_case, without quotes); an unknown one is a compile error, with the closest id when
/// one is close. The types a message reaches carry `#[wire]` on their fields and variants too, with
/// [`#[derive(Wire)]`](derive@Wire).
///
/// `protocol`, `responds` and `streams` are type paths and may carry generic arguments:
/// `streams = Reply<T>` (the turbofish form `Reply::<T>` is accepted too). Values may come from
/// `macro_rules!` fragments (`$name:literal`, `$response:path`).
///
/// Compile-time checks beyond the attribute grammar:
///
/// - `protocol` must name a type implementing `wirecheck::Protocol` (it becomes `Message::Protocol`);
/// - the `responds`/`streams` type must be a `Message` of `kind = "response"`. This check is skipped when
///   the path mentions the message's own generic parameters (a const assertion cannot see them).
///
/// A generic message whose `protocol` is one of its own type parameters gets that parameter bounded by
/// `wirecheck::Protocol` in the generated impl.
#[proc_macro_derive(Message, attributes(wire))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    message::expand(&input).into()
}

/// Lets a type that a message reaches (the struct or enum of a field, at any depth) carry `#[wire(...)]` on
/// its fields and variants, as a message does on its own.
///
/// ```rust
/// use serde::{Deserialize, Serialize};
/// use wirecheck::{Message, Protocol, Wire};
///
/// #[derive(Protocol)]
/// #[wire(name = "sched", version = "0.88.0")]
/// pub struct Sched;
///
/// #[derive(Serialize, Deserialize, Message)]
/// #[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
/// pub struct AllocRequest {
///     pub id: u64,
///     pub mode: Mode,
///     pub limits: Limits,
/// }
///
/// #[derive(Serialize, Deserialize, Wire)]
/// pub enum Mode {
///     Fast,
///     #[wire(since = "0.88.0")]
///     Idle,
/// }
///
/// #[derive(Serialize, Deserialize, Wire)]
/// pub struct Limits {
///     #[wire(allow(integer_narrowed), reason = "no scheduler ever sent more than 2^32 cores")]
///     pub cores: u32,
/// }
/// ```
///
/// Fields and enum variants (and the variants' fields) accept the keys they accept on a message: `since`,
/// `allow(rule, ...)` with its `reason`. The checker reads them wherever a message reaches the type; the
/// derive makes rustc accept the attribute (a derive is what registers it) and reports an invalid one, as
/// `#[derive(Message)]` does. It generates no code and implements no trait.
///
/// On the type itself, `#[wire(...)]` takes one key, `as = Type`: the wire shape of a type whose serde impls
/// are written by hand or generated by a macro (without `#[derive(Serialize, Deserialize)]` the checker
/// cannot see that shape, and compares the type by path). `Type` is any type (`String`, `Vec<T>` with the
/// item's own parameters, `[u8; 16]`); the derive checks that it exists.
///
/// ```rust
/// use wirecheck::Wire;
///
/// /// Written as "debug" / "info" by its own impls.
/// #[derive(Wire)]
/// #[wire(as = String)]
/// pub enum Level {
///     Debug,
///     Info,
/// }
/// ```
///
/// An `allow` for the whole type goes on the field of the message that holds it. A type that is itself a
/// message derives `Message` instead, which reads its members' `#[wire]` already.
#[proc_macro_derive(Wire, attributes(wire))]
pub fn derive_wire(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    wire::expand(&input).into()
}
