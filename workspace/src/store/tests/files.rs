//! Writing the store's files (`store/files.rs`): whole or not at all, also from two threads at once.

use std::io::Write as _;

use super::*;

/// Two threads writing one file at once (a part two releases share, read on two threads) each write
/// their own temporary file: the file is always one of the two contents, whole, and no temporary file is
/// left behind.
#[test]
fn concurrent_writes_of_one_file_never_mix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("parts").join("same.json");
    let contents: Vec<Vec<u8>> = (0..2u8).map(|b| vec![b'a' + b; 256 * 1024]).collect();
    let (path, contents) = (&path, &contents);
    std::thread::scope(|scope| {
        for bytes in contents {
            scope.spawn(move || {
                for _ in 0..20 {
                    assert!(write_atomically(path, bytes));
                    let read = std::fs::read(path).unwrap();
                    assert!(contents.contains(&read), "a mixed or partial file");
                }
            });
        }
    });
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["same.json"]);
}

/// A write that fails halfway (a serialization error, a full disk) leaves neither the file nor its
/// temporary file; one that does not leaves the file whole.
#[test]
fn a_failed_write_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("parts").join("x.json");
    let failed = write_atomically_with(&path, |file| {
        file.write_all(&[b'{'; 100_000])?;
        Err(std::io::Error::other("disk full"))
    });
    assert!(!failed);
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        0
    );
    assert!(write_json(&path, &BTreeMap::from([("a", 1)])));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"a":1}"#);
}
