//! The floor `cargo xtask bench` measures `wirecheck check` against: read every `.rs` file of the two
//! revisions a check compares (the working tree from disk, the baseline from git objects) and parse each
//! with `syn::parse_file`, nothing else: no module tree, no name resolution, no comparison, no cache. A
//! checker that looks at every file of both revisions cannot be faster than this; wirecheck is, by not
//! parsing most files (see docs/performance.md).
//!
//! ```text
//! cargo build --release --features checker --example floor
//! target/release/examples/floor WORKSPACE_ROOT REV
//! ```
//!
//! Prints what it read and parsed to stderr; exits 1 on an unreadable repository or revision.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, rev] = args.as_slice() else {
        eprintln!("usage: floor WORKSPACE_ROOT REV");
        return ExitCode::from(2);
    };
    match run(Path::new(root), rev) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("floor: {e}");
            ExitCode::from(1)
        }
    }
}

/// Files, bytes and syntax errors seen.
#[derive(Default)]
struct Tally {
    files: usize,
    bytes: usize,
    errors: usize,
}

impl Tally {
    fn parse(&mut self, bytes: &[u8]) {
        self.files += 1;
        self.bytes += bytes.len();
        let parsed = std::str::from_utf8(bytes)
            .ok()
            .map(|text| syn::parse_file(text).is_ok());
        if parsed != Some(true) {
            self.errors += 1;
        }
        // Free the span data of the tree just dropped (as wirecheck does after its extractions).
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}

fn run(root: &Path, rev: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut tally = Tally::default();
    // The working tree.
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name == ".git" || name == "target" {
                continue;
            }
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                tally.parse(&std::fs::read(&path)?);
            }
        }
    }
    // The baseline, from git objects.
    let repo = git2::Repository::discover(root)?;
    let tree = repo.revparse_single(rev)?.peel_to_commit()?.tree()?;
    let mut blobs = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |_, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob)
            && entry.name().is_ok_and(|n| n.ends_with(".rs"))
        {
            blobs.push(entry.id());
        }
        git2::TreeWalkResult::Ok
    })?;
    for id in blobs {
        tally.parse(repo.find_blob(id)?.content());
    }
    eprintln!(
        "floor: parsed {} files ({} bytes) of the working tree and {rev}; {} did not parse",
        tally.files, tally.bytes, tally.errors
    );
    Ok(())
}
