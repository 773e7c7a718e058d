//! A pull-request check: the store holds what a check of the workspace as generated kept (as a CI
//! runner's cache holds the last check of `main`), and one message file has changed since (the pull
//! request adds an optional field to one message). The check extracts the working tree again, compares
//! the protocols whose models changed and reads the rest from the store.

use std::path::Path;

use anyhow::{Context as _, Result, ensure};

use super::{Timing, check_command, check_ok, measure, no_cache_report};
use crate::files::copy_dir;

/// The message file the pull request edits (the first crate's first message file) and the field it adds
/// to the file's first `#[wire(protocol = ...)]` struct.
const FIELD: &str = "    pub pull_request_note: Option<u64>,\n";

/// Times `runs` pull-request checks of the workspace `dir` (whose store an earlier check filled with
/// the workspace as generated), each from a copy of that store; every run must print what a check with
/// `--no-cache` prints. The edit is undone afterwards, and the store left as the copy was.
pub(super) fn measure_pull_request(
    wirecheck: &Path,
    dir: &Path,
    first_crate: &str,
    runs: usize,
    memory: bool,
) -> Result<Timing> {
    let store = dir.join("target").join("wirecheck");
    let kept = dir.join("target").join("wirecheck-main");
    measure(1, false, || check_command(wirecheck, dir), check_ok)?;
    let _ = std::fs::remove_dir_all(&kept);
    copy_dir(&store, &kept, &[]).context("copying the store")?;
    let file = dir.join(format!("crates/{first_crate}/src/proto/g0/m0.rs"));
    let original =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    std::fs::write(&file, with_field(&original)?)?;
    let result = (|| {
        let no_cache = no_cache_report(wirecheck, dir)?;
        let make = || {
            let _ = std::fs::remove_dir_all(&store);
            let _ = copy_dir(&kept, &store, &[]);
            check_command(wirecheck, dir)
        };
        let (timing, last) = measure(runs, memory, make, check_ok)?;
        ensure!(
            last == no_cache,
            "the pull-request check reported differently with and without its store in {}",
            dir.display()
        );
        Ok(timing)
    })();
    std::fs::write(&file, original)?;
    let _ = std::fs::remove_dir_all(&store);
    copy_dir(&kept, &store, &[])?;
    std::fs::remove_dir_all(&kept)?;
    result
}

/// `text` (a message file) with [`FIELD`] added to its first struct declared a message.
fn with_field(text: &str) -> Result<String> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if !line.trim_start().starts_with("#[wire(protocol = ") {
            continue;
        }
        let next = text[offset..].split_inclusive('\n').next().unwrap_or("");
        if next.starts_with("pub struct ") && next.ends_with("{\n") {
            let open = offset + next.len();
            return Ok(format!("{}{FIELD}{}", &text[..open], &text[open..]));
        }
    }
    anyhow::bail!("the message file declares no struct message with named fields")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_goes_into_the_first_struct_message() {
        let text = "struct Helper {\n    a: u8,\n}\n\n#[wire(protocol = Ctl, topic = \"t\", kind = \"event\")]\npub enum E {\n}\n#[wire(protocol = Ctl, topic = \"u\", kind = \"event\")]\npub struct S {\n    pub a: u8,\n}\n";
        let edited = with_field(text).unwrap();
        assert!(edited.contains(&format!("pub struct S {{\n{FIELD}    pub a: u8,")));
        assert_eq!(edited.len(), text.len() + FIELD.len());
        assert!(with_field("struct Helper {\n}\n").is_err());
    }
}
