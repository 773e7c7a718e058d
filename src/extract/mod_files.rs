//! Where a module's file is: the paths a `mod name;` declaration may name (`name.rs`, `name/mod.rs` or
//! its `#[path]`), as the mount and the read-ahead both look for them.

use super::scan::ModItem;

/// The directory of `path` (`""` at the top).
pub(super) fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// `rest` below `dir`.
fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}

/// The files a `mod name;` may be in, each with the directory of its own children: its `#[path]`, or
/// `name.rs` then `name/mod.rs`.
pub(super) fn candidates(declared: &ModItem, child_dir: &str) -> Vec<(String, String)> {
    let dir = declared
        .parents
        .iter()
        .fold(child_dir.to_owned(), |dir, parent| join(&dir, parent));
    match &declared.path_attr {
        Some(path) => {
            let file = join(&dir, path);
            let sub_dir = parent_dir(&file).to_owned();
            vec![(file, sub_dir)]
        }
        None => vec![
            (
                join(&dir, &format!("{}.rs", declared.name)),
                join(&dir, &declared.name),
            ),
            (
                join(&dir, &format!("{}/mod.rs", declared.name)),
                join(&dir, &declared.name),
            ),
        ],
    }
}
