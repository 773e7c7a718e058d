//! Files the tasks copy: one recursive copy for the benchmark's workspaces and stores, the realworld
//! replay's published sources and the tests' scratch directories.

use std::fs;
use std::path::Path;

use anyhow::{Context as _, Result};

/// Copies the directory `from` into `to` (created), files and subdirectories, leaving out every entry
/// (at any depth) whose name is in `skip`; a symbolic link is copied as what it points to.
pub fn copy_dir(from: &Path, to: &Path, skip: &[&str]) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry.with_context(|| format!("reading {}", from.display()))?;
        let name = entry.file_name();
        if skip.iter().any(|skipped| name == *skipped) {
            continue;
        }
        let path = entry.path();
        let target = to.join(&name);
        let metadata =
            fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        if metadata.is_dir() {
            copy_dir(&path, &target, skip)?;
        } else {
            fs::copy(&path, &target).with_context(|| format!("copying {}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::copy_dir;

    #[test]
    fn a_copy_holds_every_file_but_the_skipped_names_at_any_depth() {
        let from = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("a.txt", "a"),
            ("sub/b.txt", "b"),
            ("sub/deeper/c.txt", "c"),
            ("target/out", "x"),
            ("sub/target/out", "x"),
            ("sub/.cargo-ok", ""),
        ] {
            let file = from.path().join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, text).unwrap();
        }
        let to = tempfile::tempdir().unwrap();
        let copy = to.path().join("copy");
        copy_dir(from.path(), &copy, &["target", ".cargo-ok"]).unwrap();
        let read = |path: &str| fs::read_to_string(copy.join(path)).ok();
        assert_eq!(read("a.txt").as_deref(), Some("a"));
        assert_eq!(read("sub/b.txt").as_deref(), Some("b"));
        assert_eq!(read("sub/deeper/c.txt").as_deref(), Some("c"));
        for skipped in ["target", "sub/target", "sub/.cargo-ok"] {
            assert!(!copy.join(skipped).exists(), "{skipped}");
        }
        let missing = copy_dir(&from.path().join("none"), &copy, &[]).unwrap_err();
        assert!(format!("{missing:#}").contains("reading"), "{missing:#}");
    }
}
