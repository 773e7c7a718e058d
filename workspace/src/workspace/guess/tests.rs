use std::path::Path;

use super::{Guess, guess, matches};
use crate::workspace::Workspace;

fn write(dir: &Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// The guess and cargo's answer for the workspace of `dir`'s manifest (with `packages` named, which
/// changes no crate read).
fn guessed_and_cargo(dir: &Path, packages: &[String]) -> (Option<Guess>, Guess) {
    let manifest = dir.join("Cargo.toml");
    let guessed = guess(dir, Some(&manifest));
    let workspace = Workspace::load(Some(&manifest), packages).unwrap();
    let mut crate_roots: Vec<String> = workspace.crates.into_iter().map(|c| c.root_file).collect();
    crate_roots.dedup();
    (
        guessed,
        Guess {
            root: workspace.root,
            crate_roots,
        },
    )
}

fn package(name: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
}

/// On the layouts the guess covers, it names what `cargo metadata` names: members by path and by
/// pattern (a `[...]` class too), an excluded one, a root package, `[lib]` and `[[bin]]` paths, `src/main.rs`, `src/bin`
/// binaries (a file and a folder), `autobins = false`, and packages named with `-p` (every crate is
/// still read: `-p` selects protocols).
#[test]
fn the_guess_is_what_cargo_says_on_common_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let manifests = [
        (
            "Cargo.toml",
            "top",
            "\n[workspace]\nmembers = [\"crates/*\", \"tools/one\", \"x?z\", \"ext/[p-r]*\"]\nexclude = [\"crates/skipped\"]\n",
        ),
        ("crates/alpha/Cargo.toml", "alpha", ""),
        (
            "crates/beta/Cargo.toml",
            "beta",
            "[lib]\npath = \"code/beta.rs\"\n[[bin]]\nname = \"run\"\npath = \"code/run.rs\"\n",
        ),
        ("crates/gamma/Cargo.toml", "gamma", "autobins = false\n"),
        ("crates/skipped/Cargo.toml", "skipped", ""),
        ("tools/one/Cargo.toml", "one", ""),
        ("xyz/Cargo.toml", "xyz", ""),
        ("ext/plugin/Cargo.toml", "plugin", ""),
        ("ext/other/Cargo.toml", "other", ""),
    ];
    for (path, name, rest) in manifests {
        write(&root, path, &format!("{}{rest}", package(name)));
    }
    for (path, text) in [
        ("src/lib.rs", ""),
        ("src/main.rs", "fn main() {}\n"),
        ("crates/alpha/src/lib.rs", ""),
        ("crates/alpha/src/bin/tool.rs", "fn main() {}\n"),
        ("crates/alpha/src/bin/other/main.rs", "fn main() {}\n"),
        ("crates/beta/code/beta.rs", ""),
        ("crates/beta/code/run.rs", "fn main() {}\n"),
        ("crates/gamma/src/lib.rs", ""),
        ("crates/gamma/src/main.rs", "fn main() {}\n"),
        ("crates/skipped/src/lib.rs", ""),
        ("tools/one/src/main.rs", "fn main() {}\n"),
        ("xyz/src/lib.rs", ""),
        ("ext/plugin/src/lib.rs", ""),
        ("ext/other/src/lib.rs", ""),
    ] {
        write(&root, path, text);
    }
    for packages in [vec![], vec!["beta".to_owned(), "top".to_owned()]] {
        let (guessed, cargo) = guessed_and_cargo(&root, &packages);
        assert!(cargo.crate_roots.len() >= 3, "{cargo:?}");
        assert_eq!(guessed.as_ref(), Some(&cargo), "packages {packages:?}");
    }
    // From a member's directory, without a manifest path: the same workspace.
    let from_member = guess(&root.join("crates/alpha/src"), None);
    assert_eq!(from_member, guessed_and_cargo(&root, &[]).0);
}

/// A package alone (no `[workspace]`) is its own workspace; one whose manifest names its workspace
/// root elsewhere is not guessed.
#[test]
fn a_package_alone_is_its_workspace_and_a_named_root_is_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "Cargo.toml", &package("solo"));
    write(&root, "src/lib.rs", "");
    let (guessed, cargo) = guessed_and_cargo(&root, &[]);
    assert_eq!(guessed, Some(cargo));

    write(
        &root,
        "Cargo.toml",
        &format!("{}workspace = \"..\"\n", package("solo")),
    );
    assert_eq!(guess(&root, None), None);
}

#[test]
fn glob_segments_match_as_cargo_patterns_do() {
    let cases = [
        ("*", "anything", true),
        ("crate-*", "crate-a", true),
        ("crate-*", "other", false),
        ("x?z", "xyz", true),
        ("x?z", "xz", false),
        ("a*b*c", "a-b-c", true),
        ("[ab]", "a", true),
        ("crate-[a-c]", "crate-b", true),
        ("crate-[a-c]", "crate-d", false),
        ("crate-[!a]", "crate-b", true),
        ("crate-[!a]", "crate-a", false),
        ("[*]", "*", true),
        // Not a pattern cargo accepts: nothing matches.
        ("crate-[", "crate-[", false),
    ];
    for (pattern, name, matched) in cases {
        assert_eq!(matches(pattern, name), matched, "{pattern} on {name}");
    }
}
