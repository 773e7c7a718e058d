//! What reading `#[serde(...)]` costs per container (divan; `cargo bench --features checker --bench
//! serde_attrs`): wirecheck's own reader (src/extract/serde_attrs.rs, on the `syn::Item` the extraction
//! parses) against serde_derive_internals (what serde_derive runs), which needs a `syn::DeriveInput`:
//! built from the extraction's item (a clone, as adopting it would cost) or given. The containers are
//! tests/data/serde_attrs_corpus.rs, every attribute serde documents. docs/internals.md has the figures.

use divan::Bencher;
use divan::counter::ItemsCount;
use proc_macro2::{Ident, Span};
use serde_derive_internals::ast::Container;
use serde_derive_internals::{Ctxt, Derive};

fn main() {
    divan::main();
}

const CORPUS: &str = include_str!("../tests/data/serde_attrs_corpus.rs");

fn items() -> Vec<syn::Item> {
    syn::parse_file(CORPUS).expect("the corpus parses").items
}

fn derive_input(item: &syn::Item) -> syn::DeriveInput {
    match item.clone() {
        syn::Item::Struct(item) => item.into(),
        syn::Item::Enum(item) => item.into(),
        _ => unreachable!("the corpus holds structs and enums"),
    }
}

/// serde_derive_internals' reading of one container, as the derive of `Deserialize` does it.
fn serde_reading(input: &syn::DeriveInput, private: &Ident) -> usize {
    let cx = Ctxt::new();
    let read = Container::from_ast(&cx, input, Derive::Deserialize, private)
        .map_or(0, |container| container.data.all_fields().count());
    read + usize::from(cx.check().is_err())
}

#[divan::bench]
fn wirecheck_per_container(bencher: Bencher) {
    let items = items();
    bencher
        .counter(ItemsCount::new(items.len()))
        .bench_local(|| {
            items
                .iter()
                .map(|item| wirecheck::extract::read_serde_attributes(divan::black_box(item)))
                .sum::<usize>()
        });
}

#[divan::bench]
fn serde_derive_internals_per_container(bencher: Bencher) {
    let items = items();
    let private = Ident::new("__private", Span::call_site());
    bencher
        .counter(ItemsCount::new(items.len()))
        .bench_local(|| {
            items
                .iter()
                .map(|item| serde_reading(&derive_input(divan::black_box(item)), &private))
                .sum::<usize>()
        });
}

#[divan::bench]
fn serde_derive_internals_given_derive_input(bencher: Bencher) {
    let inputs: Vec<syn::DeriveInput> = items().iter().map(derive_input).collect();
    let private = Ident::new("__private", Span::call_site());
    bencher
        .counter(ItemsCount::new(inputs.len()))
        .bench_local(|| {
            inputs
                .iter()
                .map(|input| serde_reading(divan::black_box(input), &private))
                .sum::<usize>()
        });
}
