//! How the store reads and writes a file: JSON read back only as this build writes it, and every file
//! written whole, through a temporary file and a rename, or not at all.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// A file of the store, read back: `None` when it is not what this build writes. The bytes are checked
/// as UTF-8 at once, then parsed as text: serde_json's byte-slice reader checks each string on its own,
/// which cost more than the parse of a stored model's structure.
pub(super) fn read_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    serde_json::from_str(std::str::from_utf8(bytes).ok()?).ok()
}

/// Writes `value` as JSON to `path` ([`write_atomically`]) when what it reads back as (a `T`) is the
/// same (`same`; JSON's numbers may not be): a file of the store is right or absent.
pub(super) fn write_if_read_back<T: serde::de::DeserializeOwned>(
    path: &Path,
    value: &impl Serialize,
    same: impl FnOnce(&T) -> bool,
) {
    if let Ok(bytes) = serde_json::to_vec(value)
        && read_json::<T>(&bytes).is_some_and(|read| same(&read))
    {
        write_atomically(path, &bytes);
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a reader (another check
/// running at the same time) sees the whole file or none; whether it was written. Failures leave the
/// store without the file. The temporary file's name is this process's and this write's own (a
/// counter): two threads, or two processes, writing the same file never write one temporary file.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> bool {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// `value` as JSON in the file at `path`, written as [`write_atomically`] does, without holding the
/// whole text in memory (a working tree's model is megabytes of it).
pub(super) fn write_json(path: &Path, value: &impl Serialize) -> bool {
    write_atomically_with(path, |file| Ok(serde_json::to_writer(file, value)?))
}

/// [`write_atomically`], with what `write` writes to the temporary file (buffered; a concrete type, not
/// `dyn Write`: serde_json writes a model a few bytes at a time).
pub(super) fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> bool {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let Some(dir) = path.parent() else {
        return false;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let temp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("part"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create(&temp).and_then(|file| {
        let mut file = BufWriter::with_capacity(1 << 16, file);
        write(&mut file)?;
        file.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        Ok(())
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
        return false;
    }
    if std::fs::rename(&temp, path).is_err() {
        let _ = std::fs::remove_file(&temp);
        return false;
    }
    true
}
