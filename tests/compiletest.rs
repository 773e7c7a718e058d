//! Compile-fail (UI) tests of the derives: every invalid `#[wire(...)]` annotation must be a compile error
//! spanned on the offending token, with a message a user can act on. One case per error in `tests/ui/`;
//! `tests/ui/pass/` holds declarations that must compile (where rustc itself would reject a wrong derive).
//!
//! rustc's diagnostic wording drifts between releases, so the test runs only on the toolchain that wrote
//! the `.stderr` files (as serde, thiserror and clap do). Regenerate them on that toolchain with
//! `TRYBUILD=overwrite cargo test -p wirecheck --test compiletest`, then review the diff.

#[rustversion::attr(
    not(stable(1.95)),
    ignore = "UI tests are pinned to the toolchain that wrote their .stderr files"
)]
#[cfg_attr(miri, ignore)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
