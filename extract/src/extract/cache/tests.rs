use super::*;
use crate::extract::{FileReader, scan};

/// One file, whose blob id the reader knows without reading it (as the git index does).
struct Indexed {
    id: Oid,
    text: &'static str,
}

impl FileReader for Indexed {
    fn read(&self, _: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        Ok(Some(self.text.as_bytes().to_vec()))
    }

    fn blob_id(&self, _: &str) -> Result<Option<Oid>, ExtractError> {
        Ok(Some(self.id))
    }
}

/// A new repository holding `text` as a blob, and a reader of that blob by its id.
fn in_repository(text: &'static str) -> (tempfile::TempDir, Indexed) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(tmp.path()).unwrap();
    let id = repo.blob(text.as_bytes()).unwrap();
    (tmp, Indexed { id, text })
}

/// A reader of one file that does not know its blob id, counting its reads.
struct Unindexed {
    text: &'static str,
    reads: Cell<usize>,
}

impl FileReader for Unindexed {
    fn read(&self, _: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        self.reads.set(self.reads.get() + 1);
        Ok(Some(self.text.as_bytes().to_vec()))
    }
}

/// What another thread scanned is taken unread when the reader knows the blob id (the index
/// vouches for the bytes), and after reading when the bytes are the same; bytes that differ are
/// scanned again, and the blob is the reader's.
#[test]
fn a_file_scanned_ahead_is_taken_only_with_its_bytes() {
    let text = "mod a;\npub struct T;\n";
    let other = "mod b;\npub struct T;\n";
    let ahead = |scanned: &'static str| move || Some(Scanned::of(scanned.to_owned()));
    let id = Oid::hash_object(ObjectType::Blob, text.as_bytes()).unwrap();
    let mods_of = |blob: &Blob, cache: &SourceCache| {
        let mods = blob.mods(cache).unwrap();
        mods.iter().map(|m| m.name.clone()).collect::<Vec<_>>()
    };

    let cache = SourceCache::new();
    let blob = cache
        .load_ahead(&Indexed { id, text }, "m.rs", &ahead(text))
        .unwrap()
        .unwrap();
    assert_eq!((cache.stats().reads, cache.stats().read_ahead), (1, 1));
    assert_eq!(
        (blob.id(), mods_of(&blob, &cache)),
        (id, vec!["a".to_owned()])
    );

    for (scanned, taken, mods) in [(text, 1, "a"), (other, 0, "a")] {
        let cache = SourceCache::new();
        let reader = Unindexed {
            text,
            reads: Cell::new(0),
        };
        let blob = cache
            .load_ahead(&reader, "m.rs", &ahead(scanned))
            .unwrap()
            .unwrap();
        assert_eq!(reader.reads.get(), 1);
        assert_eq!((cache.stats().reads, cache.stats().read_ahead), (1, taken));
        assert_eq!(
            (blob.id(), mods_of(&blob, &cache)),
            (id, vec![mods.to_owned()])
        );
        assert_eq!(blob.text(&cache).unwrap(), text);
    }
}

/// A file known by its kept scan is not read; its text comes from the repository when its items
/// are asked for, and a repository that lost it gives a read error naming the file. One the
/// repository does not hold is read as any other.
#[test]
fn a_file_known_by_its_scan_is_read_from_the_repository_if_needed() {
    let text = "pub struct T;\nmod inner;\n";
    let (tmp, reader) = in_repository(text);
    let id = reader.id;
    let mods = scan::scan(text).unwrap().mods;
    let scan = FileScan {
        mods: mods.clone(),
        items: None,
    };
    let scans = FileScans([(id.to_string(), scan)].into());
    let known = || {
        let cache = SourceCache::new();
        cache.know_scans(git2::Repository::open(tmp.path()).unwrap(), &scans);
        let blob = cache.load(&reader, "src/t.rs").unwrap().unwrap();
        (cache, blob)
    };

    let (cache, blob) = known();
    assert_eq!((cache.stats().reads, cache.stats().scans_reused), (0, 1));
    assert_eq!(blob.mods(&cache).unwrap(), mods.as_slice());
    let items = blob.scanned_items(&cache).unwrap().unwrap().to_vec();
    assert_eq!(Some(items), scan::items(text));
    assert!(blob.item(0, &cache).is_ok());

    let (cache, blob) = known();
    let hex = id.to_string();
    let object = tmp
        .path()
        .join(".git/objects")
        .join(&hex[..2])
        .join(&hex[2..]);
    std::fs::remove_file(object).unwrap();
    let failure = blob.scanned_items(&cache).unwrap_err();
    assert!(
        matches!(failure.at("src/t.rs"), ExtractError::Read { file, message }
            if file == "src/t.rs" && message.contains(&hex)),
        "{:?}",
        failure.at("src/t.rs")
    );

    let (cache, blob) = known();
    assert_eq!((cache.stats().reads, cache.stats().scans_reused), (1, 0));
    assert!(blob.scanned_items(&cache).unwrap().is_some());
}

/// A file that may declare is kept with its items: known by its scan, it gives them and its `mod`
/// declarations unread, and is read (from the repository) only for an item's syntax.
#[test]
fn a_declaring_file_known_by_its_scan_gives_its_items_unread() {
    let text = "use x::Y;\nmod inner;\n#[derive(Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M { pub y: Y }\n";
    let (tmp, reader) = in_repository(text);
    let id = reader.id;
    let first = SourceCache::new();
    let read = first.load(&reader, "src/m.rs").unwrap().unwrap();
    assert!(read.may_declare());
    let scans = first.scans_of([id]);
    assert!(scans.0[&id.to_string()].items.is_some(), "{scans:?}");

    let cache = SourceCache::new();
    cache.know_scans(git2::Repository::open(tmp.path()).unwrap(), &scans);
    let blob = cache.load(&reader, "src/m.rs").unwrap().unwrap();
    assert!(blob.may_declare());
    assert_eq!(
        blob.scanned_items(&cache).unwrap(),
        read.scanned_items(&first).unwrap()
    );
    assert_eq!(blob.mods(&cache).unwrap(), read.mods(&first).unwrap());
    assert_eq!((cache.stats().reads, cache.stats().scans_reused), (0, 1));
    assert!(
        blob.text.get().is_none(),
        "read before an item was asked for"
    );
    assert!(matches!(blob.item(2, &cache), Ok(syn::Item::Struct(_))));
    assert!(blob.text.get().is_some());
}

/// A declaring file of more items than a kept scan may have (generated code) is not kept: it is
/// read and scanned again, so that the store's files do not follow the largest file.
#[test]
fn a_large_declaring_file_is_not_kept() {
    let mut text = String::from(
        "#[derive(Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M;\n",
    );
    let id_of = |text: &str| Oid::hash_object(ObjectType::Blob, text.as_bytes()).unwrap();
    let kept = |text: &str| {
        // The reader holds a `&'static str`.
        let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let cache = SourceCache::new();
        let reader = Indexed {
            id: id_of(text),
            text,
        };
        let blob = cache.load(&reader, "src/m.rs").unwrap().unwrap();
        assert!(blob.may_declare());
        blob.scanned_items(&cache).unwrap();
        !cache.scans_of([id_of(text)]).0.is_empty()
    };
    for index in 0..MAX_KEPT_ITEMS - 1 {
        text.push_str(&format!("pub struct S{index};\n"));
    }
    assert!(kept(&text));
    text.push_str("pub struct Last;\n");
    assert!(!kept(&text));
}

fn blob(text: &str) -> Blob {
    let id = Oid::hash_object(ObjectType::Blob, text.as_bytes()).expect("hashes");
    Blob::new(id, text.to_owned())
}

/// A file that may declare is split into items by the same pass that scans it; one that only says
/// `wire` (in a comment, a string) keeps no items until a lookup asks, and then gets the same ones.
#[test]
fn only_a_declaring_file_keeps_its_items_from_the_scan() {
    let declaring = "use serde::Serialize;\n#[derive(Serialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M { pub a: u8 }\nmod inner { pub struct T; }\n";
    let mentioning =
        "// the wire format\npub const WIRE: &str = \"#[wire(protocol = P)]\";\npub struct T;\n";
    let plain = "pub struct T;\n";
    let declaring = blob(declaring);
    assert!(declaring.may_declare());
    assert!(declaring.items.get().is_some(), "split while scanned");
    for (text, blob) in [(mentioning, blob(mentioning)), (plain, blob(plain))] {
        assert!(!blob.may_declare(), "{text}");
        assert!(blob.items.get().is_none(), "{text}: items kept");
        let cache = SourceCache::new();
        let items = blob
            .scanned_items(&cache)
            .unwrap()
            .expect("splits")
            .to_vec();
        assert_eq!(Some(items), scan::items(scan::syn_content(text)), "{text}");
    }
    let cache = SourceCache::new();
    assert_eq!(
        declaring
            .scanned_items(&cache)
            .unwrap()
            .map(<[ScanItem]>::to_vec),
        scan::items(scan::syn_content(declaring.text(&cache).unwrap()))
    );
}
