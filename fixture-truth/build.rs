//! Writes `$OUT_DIR/witnesses.rs`: for every directory of `../tests/fixtures/` not excused in
//! `src/excused.rs`, a `fixture_witnesses!` invocation naming the fixture's message types (the items of
//! `old/lib.rs` and `new/lib.rs` deriving `Message`, on both sides), with the fixture's
//! `witness_items.rs` when it has one; and `DECODED`, the fixtures so tested. A fixture whose sources
//! cannot be read or have no message on both sides gets a test that fails and says why.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

include!("src/excused.rs");

/// The file next to a fixture's `old/` and `new/` that both sides include.
const WITNESS_ITEMS: &str = "witness_items.rs";

fn main() {
    println!("cargo::rerun-if-changed=../tests/fixtures");
    println!("cargo::rerun-if-changed=src/excused.rs");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut dirs: Vec<String> = std::fs::read_dir(&fixtures)
        .unwrap_or_else(|e| panic!("{}: {e}", fixtures.display()))
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let decoded: Vec<&String> = dirs
        .iter()
        .filter(|dir| !WITNESSES_NOT_DECODED.iter().any(|(name, _)| name == dir))
        .collect();
    let mut out = String::new();
    for dir in &decoded {
        out.push_str(&witness_test(&fixtures.join(dir), dir));
    }
    writeln!(
        out,
        "/// The fixtures whose witnesses a test above decodes."
    )
    .unwrap();
    writeln!(out, "const DECODED: &[&str] = &{decoded:?};").unwrap();
    let target = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(target.join("witnesses.rs"), out).expect("OUT_DIR is writable");
}

/// The test of the fixture `dir` (at `path`): its `fixture_witnesses!` invocation, or a test that fails
/// saying why there can be none.
fn witness_test(path: &Path, dir: &str) -> String {
    let messages = match (
        messages(&path.join("old/lib.rs")),
        messages(&path.join("new/lib.rs")),
    ) {
        (Ok(old), Ok(new)) => old.intersection(&new).cloned().collect::<Vec<_>>(),
        (Err(e), _) | (_, Err(e)) => return failing_test(dir, &e),
    };
    if messages.is_empty() {
        let why = "no type derives `Message` on both sides";
        return failing_test(dir, why);
    }
    let extra = if path.join(WITNESS_ITEMS).exists() {
        format!(
            "include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../tests/fixtures/{dir}/{WITNESS_ITEMS}\"));"
        )
    } else {
        String::new()
    };
    format!(
        "fixture_witnesses!(witnesses_{dir}, {dir:?}, [{}], extra: {{ {extra} }});\n",
        messages.join(", ")
    )
}

/// A test of `dir` that fails with `why` and what to do about it.
fn failing_test(dir: &str, why: &str) -> String {
    let message = format!(
        "{dir}: {why}: decode its witnesses, or name it in fixture-truth/src/excused.rs with the reason"
    );
    format!(
        "#[test]\n#[allow(non_snake_case)]\nfn witnesses_{dir}() {{\n    panic!(\"{{}}\", {message:?});\n}}\n"
    )
}

/// The names of the top-level items of the Rust file `path` that derive `Message` (as
/// `#[derive(..., Message)]` or `#[derive(..., wirecheck::Message)]`).
fn messages(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut found = BTreeSet::new();
    for item in &file.items {
        let (attrs, ident) = match item {
            syn::Item::Struct(item) => (&item.attrs, &item.ident),
            syn::Item::Enum(item) => (&item.attrs, &item.ident),
            _ => continue,
        };
        if derives_message(attrs) {
            found.insert(ident.to_string());
        }
    }
    Ok(found)
}

/// Whether one of `attrs` is a `derive` naming `Message`.
fn derives_message(attrs: &[syn::Attribute]) -> bool {
    let mut found = false;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("derive")) {
        // A derive that does not parse as a list of paths names no `Message` the compiler would accept.
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Message");
            Ok(())
        });
    }
    found
}
