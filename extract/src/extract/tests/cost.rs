//! What the extraction reads and parses: only the files and items a check needs, each blob once.

use super::*;

#[test]
fn files_without_declarations_or_reached_types_are_never_parsed() {
    let lib = format!(
        "{HEADER}
mod types;
mod plain;
mod service;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.a\", kind = \"event\")]
pub struct A {{ pub shared: types::Shared }}
"
    );
    // `plain.rs` is not valid Rust, but its delimiters balance: the scan reads its (absent) `mod`
    // declarations, and nothing ever needs its items.
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/types.rs", "pub struct Shared { pub n: u32 }\n"),
        ("src/plain.rs", "fn broken() -> { let = ; }\nstruct ;\n"),
        ("src/service.rs", "mod inner;\npub fn run() {}\n"),
        (
            "src/service/inner.rs",
            "pub struct NotReached { pub x: u8 }\n",
        ),
    ];
    let reader = Counting::new(&files, false);
    let cache = SourceCache::new();
    let s = extract_cached(&demo_root(), &reader, &cache).expect("plain.rs is never parsed");
    assert_eq!(
        s.types["demo::types::Shared"].path, "demo::types::Shared",
        "reached types are found in files that are parsed on demand"
    );
    // Items, not files: of lib.rs its two `use`s (the crate root's names) and two declarations, of types.rs
    // the type reached.
    let stats = cache.stats();
    assert_eq!((stats.parsed, stats.parsed_items), (0, 5), "{stats:?}");
    for (path, _) in files {
        assert_eq!(
            reader.reads(path),
            1,
            "{path} is read once, for the module scan"
        );
    }
    // The same holds when the broken file is reached: then it is parsed, and its error reported.
    let lib_reaching = lib.replace("types::Shared", "plain::Gone");
    let files = [
        ("src/lib.rs", lib_reaching.as_str()),
        ("src/types.rs", "pub struct Shared { pub n: u32 }\n"),
        ("src/plain.rs", "fn broken() -> { let = ; }\nstruct ;\n"),
        ("src/service.rs", "mod inner;\npub fn run() {}\n"),
        (
            "src/service/inner.rs",
            "pub struct NotReached { pub x: u8 }\n",
        ),
    ];
    let err = extract(&demo_root(), &Counting::new(&files, false)).unwrap_err();
    assert!(
        matches!(&err, ExtractError::Parse { file, .. } if file == "src/plain.rs"),
        "{err}"
    );
}

/// `wire` in comments and strings, and derives of other crates' `Message` (prost's), do not get a file
/// parsed: a syntax error in it is not reported. A `#[wire]` declaration does, and its file's syntax error
/// is reported with the file-relative position.
#[test]
fn only_wire_attributes_get_a_file_parsed() {
    let lib = format!(
        "{HEADER}
mod generated;
mod declared;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.a\", kind = \"event\")]
pub struct A {{ pub n: u32 }}
"
    );
    let generated = "//! Generated: the wire format of every message (wire type 2).\n\
        /// On the wire: `#[wire(protocol = P)]`.\n\
        #[derive(Clone, PartialEq, ::prost::Message)]\n\
        pub struct Gen { #[prost(string, tag = \"1\")] pub wire: String }\n\
        pub const NAME: &str = \"#[derive(Message)] #[wire(protocol = P)] struct X;\";\n\
        pub const RAW: &str = r#\"wire\"#;\n\
        fn broken() -> { let = ; }\n";
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/generated.rs", generated),
        ("src/declared.rs", "pub struct Plain;\n"),
    ];
    let cache = SourceCache::new();
    let s = extract_cached(&demo_root(), &Counting::new(&files, false), &cache)
        .expect("generated.rs is never parsed");
    assert_eq!(s.messages.len(), 1);
    let stats = cache.stats();
    assert_eq!(
        (stats.parsed, stats.parsed_items),
        (0, 4),
        "lib.rs's two uses and two declarations only: {stats:?}"
    );

    // A syntax error in an item a check does not need is not reported, even in a file that declares.
    let declared = |b: &str| {
        format!(
            "use super::*;\n\nfn broken() -> {{ let = ; }}\n#[derive(Serialize, Deserialize, Message)]\n\
             #[wire(protocol = P, topic = \"t.b\", kind = \"event\")]\n{b}\n"
        )
    };
    let fine = declared("pub struct B { pub n: u32 }");
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/generated.rs", generated),
        ("src/declared.rs", fine.as_str()),
    ];
    let s = extract(&demo_root(), &Counting::new(&files, false)).expect("broken() is not needed");
    assert_eq!(s.messages.len(), 2);
    // One in a needed item is, at its place in the file.
    let broken = declared("pub struct B { pub n: u32, pub m: }");
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/generated.rs", generated),
        ("src/declared.rs", broken.as_str()),
    ];
    let err = extract(&demo_root(), &Counting::new(&files, false)).unwrap_err();
    assert!(
        matches!(&err, ExtractError::Parse { file, line: 6, column: 35, .. } if file == "src/declared.rs"),
        "{err}"
    );
}

/// In a large generated file, a check parses the items it needs and nothing else, and their locations are
/// those of the file (line, column and bytes), however far into it they are.
#[test]
fn a_large_file_costs_its_needed_items() {
    let lib = format!("{HEADER}\nmod generated;\n");
    let mut generated = String::from("//! Generated. The wire types.\n\n");
    for i in 0..3000 {
        generated.push_str(&format!(
            "/// The wire format of `Item{i}`.\n#[derive(Clone, Debug)]\npub struct Item{i} {{ pub id: u64, /* wire */ pub name: String }}\n\
             impl Item{i} {{ pub const WIRE: &'static str = \"#[wire] {i}\"; }}\n\n"
        ));
    }
    let message_line = generated.matches('\n').count() + 5;
    generated.push_str(
        "use super::*;\n\n#[derive(Serialize, Deserialize, Message)]\n\
         #[wire(protocol = P, topic = \"t.g\", kind = \"event\")]\n\
         pub struct Envelope { pub first: Item0, pub last: Item2999 }\n",
    );
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/generated.rs", generated.as_str()),
    ];
    let cache = SourceCache::new();
    let s = extract_cached(&demo_root(), &Counting::new(&files, false), &cache).unwrap();
    let stats = cache.stats();
    // lib.rs: two uses and the protocol; generated.rs: its use, the message and the two types it reaches,
    // and the inherent impl of each (their impls are hand-written: their source is read).
    assert_eq!((stats.parsed, stats.parsed_items), (0, 9), "{stats:?}");
    let message = &s.messages[0];
    assert_eq!(message.location.file, "src/generated.rs");
    assert_eq!(
        (message.location.line as usize, message.location.column),
        (message_line, 12)
    );
    let start = message.location.start;
    assert_eq!(&generated[start..message.location.end], "Envelope");
    let last = &s.types["demo::generated::Item2999"];
    assert_eq!(
        &generated[last.location.start..last.location.end],
        "Item2999"
    );
    let line_of_last = generated[..last.location.start].matches('\n').count() + 1;
    assert_eq!(last.location.line as usize, line_of_last);
    // The same model as a whole-file parse gives (the same text, with a const generic default whose brace
    // group makes the scan give up on splitting it).
    let whole = format!("{generated}\nstruct Split<const N: usize = {{ 1 }}>;\n");
    let files_whole = [
        ("src/lib.rs", lib.as_str()),
        ("src/generated.rs", whole.as_str()),
    ];
    let cache_whole = SourceCache::new();
    let s_whole = extract_cached(
        &demo_root(),
        &Counting::new(&files_whole, false),
        &cache_whole,
    )
    .unwrap();
    assert_eq!(
        cache_whole.stats().parsed,
        1,
        "generated.rs is parsed whole"
    );
    assert_eq!(s_whole, s, "item by item and whole, the same model");
}

/// Every file of this repository that declares something (as syn and `declarations` read it) is one the
/// scan says may declare: the token rule never hides a declaration.
#[test]
fn the_scan_sees_every_declaration_of_this_repository() {
    fn visit(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" {
                continue;
            }
            if path.is_dir() {
                visit(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    // The whole repository, this crate's parent.
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        &mut files,
    );
    let mut declaring = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        if declarations::declarations_of(&file).is_empty() {
            continue;
        }
        declaring += 1;
        let scanned = scan::scan(scan::syn_content(&text));
        assert!(
            scanned.is_none_or(|scan| scan.declares),
            "{} declares, the scan says it does not",
            path.display()
        );
    }
    assert!(declaring > 10, "found {declaring} declaring files");
}

#[test]
fn one_cache_reads_and_parses_unchanged_blobs_once() {
    let lib = |version: &str| {
        format!(
            "{}\nmod types;\nmod more;\n\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.a\", kind = \"record\")]\npub struct A {{ pub shared: types::Shared }}\n",
            HEADER.replace("1.2.3", version)
        )
    };
    let more = "use serde::{Deserialize, Serialize};\nuse wirecheck::Message;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::P, topic = \"t.b\", kind = \"event\")]\npub struct B { pub id: u64 }\n";
    let (lib_old, lib_new) = (lib("1.2.3"), lib("1.3.0"));
    let old = [
        ("src/lib.rs", lib_old.as_str()),
        ("src/types.rs", "pub struct Shared { pub n: u32 }\n"),
        ("src/more.rs", more),
    ];
    let new = [
        ("src/lib.rs", lib_new.as_str()),
        ("src/types.rs", "pub struct Shared { pub n: u32 }\n"),
        ("src/more.rs", more),
    ];
    // The working tree first (no ids: read and hashed), then a revision whose reader knows blob ids.
    let cache = SourceCache::new();
    let current = Counting::new(&new, false);
    let s_new = extract_cached(&demo_root(), &current, &cache).unwrap();
    let after_current = cache.stats();
    // lib.rs: two uses and two declarations; types.rs: the type reached; more.rs: two uses (its module
    // is indexed for `u64`) and a declaration.
    assert_eq!(
        (after_current.parsed, after_current.parsed_items),
        (0, 8),
        "{after_current:?}"
    );
    let base = Counting::new(&old, true);
    let s_old = extract_cached(&demo_root(), &base, &cache).unwrap();
    let stats = cache.stats();
    assert_eq!(base.reads("src/lib.rs"), 1, "the changed file is read");
    assert_eq!(
        base.reads("src/types.rs"),
        0,
        "unchanged blobs are not read"
    );
    assert_eq!(base.reads("src/more.rs"), 0);
    assert_eq!(
        (
            stats.parsed,
            stats.parsed_items - after_current.parsed_items
        ),
        (0, 4),
        "only the changed file's items are parsed"
    );
    assert_eq!(stats.hits - after_current.hits, 2);
    // Same models as without the cache.
    assert_eq!(s_old, snapshot_from_sources("demo", &old).unwrap());
    assert_eq!(s_new, snapshot_from_sources("demo", &new).unwrap());
    assert_eq!(s_old.protocol("p").unwrap().version.to_string(), "1.2.3");
    // A filtered extraction keeps the protocols and only the records.
    let records = extract_filtered(&demo_root(), &base, &cache, &|_| Keep::Records).unwrap();
    assert_eq!(records.protocols, s_old.protocols);
    let names: Vec<&str> = records.messages.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["A"]);
    assert!(records.types.contains_key("demo::types::Shared"));
    let nothing = extract_filtered(&demo_root(), &base, &cache, &|_| Keep::Nothing).unwrap();
    assert!(nothing.messages.is_empty() && nothing.types.is_empty());
    assert_eq!(nothing.protocols, s_old.protocols);
}
