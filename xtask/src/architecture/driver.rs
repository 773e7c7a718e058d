//! The check as a pipeline (ARCHITECTURE.md, "The check"): the options of `check` (`CheckOptions`) are
//! read in at most [`MAX_OPTION_FILES`] files of the `check` module (the driver and the step that finds
//! the baseline), so that following an option visits the check that many times at most; and the driver
//! itself (the module's own file, `check/mod.rs`) names no store: caching stays beneath the steps.
//!
//! A function can read an option only through a value whose type it names (a parameter, a field), so
//! the files naming `CheckOptions` are the files that read options.

use std::fmt;

use proc_macro2::{TokenStream, TokenTree};

use super::{SourceFile, module_of};

/// The most files of the `check` module that may read the check's options.
pub const MAX_OPTION_FILES: usize = 3;
/// The check's module.
const CHECK: &str = "check";

/// One broken promise of the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriverViolation {
    /// The options are read in more files than [`MAX_OPTION_FILES`].
    OptionsSpread { files: Vec<String> },
    /// The driver names the store.
    StoreInDriver,
}

impl fmt::Display for DriverViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverViolation::OptionsSpread { files } => write!(
                f,
                "the check's options (CheckOptions) are read in {} files of the check module ({}), at most {MAX_OPTION_FILES}: read them in the driver and hand each step what it needs",
                files.len(),
                files.join(", ")
            ),
            DriverViolation::StoreInDriver => write!(
                f,
                "the check's driver (check/mod.rs) names the store: the driver reads as its steps, with caching beneath them"
            ),
        }
    }
}

/// The violations of the pipeline's promises in `files` (the library's sources).
pub fn check(files: &[SourceFile]) -> Vec<DriverViolation> {
    let mut violations = Vec::new();
    let option_files: Vec<String> = files
        .iter()
        .filter(|f| module_of(&f.path).first().is_some_and(|m| m == CHECK))
        .filter(|f| names(&f.text, &|ident| ident == "CheckOptions"))
        .map(|f| f.path.clone())
        .collect();
    if option_files.len() > MAX_OPTION_FILES {
        violations.push(DriverViolation::OptionsSpread {
            files: option_files,
        });
    }
    let driver = files.iter().find(|f| module_of(&f.path) == [CHECK]);
    if driver.is_some_and(|f| names(&f.text, &|ident| ident == "store" || ident == "Store")) {
        violations.push(DriverViolation::StoreInDriver);
    }
    violations
}

/// Whether the code of `text` (not its comments or strings) has an identifier `wanted` accepts.
fn names(text: &str, wanted: &dyn Fn(&str) -> bool) -> bool {
    fn walk(tokens: TokenStream, wanted: &dyn Fn(&str) -> bool) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => wanted(&ident.to_string()),
            TokenTree::Group(group) => walk(group.stream(), wanted),
            _ => false,
        })
    }
    text.parse::<TokenStream>()
        .is_ok_and(|tokens| walk(tokens, wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.to_owned(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn options_read_in_a_fourth_file_of_the_check_are_reported() {
        let reads = "fn f(o: &super::CheckOptions) -> bool { o.no_cache }";
        let mut files = vec![
            file("src/check/mod.rs", "pub struct CheckOptions;"),
            file("src/check/baseline.rs", reads),
            file(
                "src/check/compare.rs",
                "/// Not CheckOptions: a comment.\nfn g() {}",
            ),
            file("src/cli/mod.rs", reads),
        ];
        assert_eq!(check(&files), vec![]);
        files.push(file("src/check/kept.rs", reads));
        files.push(file("src/check/named.rs", reads));
        assert_eq!(
            check(&files),
            vec![DriverViolation::OptionsSpread {
                files: vec![
                    "src/check/mod.rs".into(),
                    "src/check/baseline.rs".into(),
                    "src/check/kept.rs".into(),
                    "src/check/named.rs".into(),
                ]
            }]
        );
    }

    #[test]
    fn the_store_named_in_the_driver_is_reported() {
        let files = [file(
            "src/check/mod.rs",
            "//! The store is beneath.\nfn f() { let _ = crate::store::Store::disabled(); }",
        )];
        assert_eq!(check(&files), vec![DriverViolation::StoreInDriver]);
        let files = [file(
            "src/check/mod.rs",
            "//! The store is beneath.\nfn f() {}",
        )];
        assert_eq!(check(&files), vec![]);
    }
}
