//! Where a module's file is, as rustc looks for it: the file of a `mod name;` beside its parent's file
//! or behind `#[path]`. Shared by the mounting of module trees (`tree`) and the read-ahead (`ahead`);
//! the two path helpers also by `workspace`, which finds the manifests beside the crates.

use super::scan::ModItem;

/// The files a `mod name;` may be in, each with the directory of its own children: its `#[path]`, or
/// `name.rs` then `name/mod.rs`.
pub(super) fn candidates(declared: &ModItem, child_dir: &str) -> Vec<(String, String)> {
    let dir = declared
        .parents
        .iter()
        .fold(child_dir.to_owned(), |dir, parent| join_path(&dir, parent));
    match &declared.path_attr {
        Some(path) => {
            let file = join_path(&dir, path);
            let sub_dir = parent_dir(&file).to_owned();
            vec![(file, sub_dir)]
        }
        None => vec![
            (
                join_path(&dir, &format!("{}.rs", declared.name)),
                join_path(&dir, &declared.name),
            ),
            (
                join_path(&dir, &format!("{}/mod.rs", declared.name)),
                join_path(&dir, &declared.name),
            ),
        ],
    }
}

/// The directory of the file at `path` (`/`-separated; `""` at the top).
pub fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// `rest` below the directory `dir` (`""`: the top).
pub fn join_path(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}
