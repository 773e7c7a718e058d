use std::collections::BTreeMap;

use super::*;
use crate::model::{Body, EnumRepr, SeqKind, SkipSer, Ty};
use crate::{Kind, ResponseMode};

const HEADER: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.2.3\", min_compatible = \"1.0.0\", upgrade = \"server-first\", format = \"postcard\")]\npub struct P;\n";

fn snap(files: &[(&str, &str)]) -> Snapshot {
    snapshot_from_sources("demo", files).expect("extracts")
}

fn fields(s: &Snapshot, path: &str) -> Vec<crate::model::Field> {
    match &s.types[path].body {
        Body::Struct { fields, .. } => fields.clone(),
        other => panic!("{path} is not a struct: {other:?}"),
    }
}

#[test]
fn protocol_and_message_declarations() {
    let lib = format!(
        "{HEADER}
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.hello\", kind = \"request\", streams = Reply, since = \"1.1.0\", allow(field_removed), reason = \"why\")]
pub struct Hello {{ pub id: u64 }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = self::P, topic = \"t.hello\", kind = \"response\")]
pub struct Reply;
"
    );
    let s = snap(&[("src/lib.rs", &lib)]);
    let p = s.protocol("p").unwrap();
    assert_eq!(p.version, semver::Version::new(1, 2, 3));
    assert_eq!(p.min_compatible, Some(semver::Version::new(1, 0, 0)));
    assert_eq!(p.upgrade, crate::Upgrade::ServerFirst);
    assert_eq!(p.format, crate::Format::Postcard);
    assert_eq!((p.location.line, p.location.column), (6, 12));
    assert_eq!(s.messages.len(), 2);
    let hello = s.messages.iter().find(|m| m.name == "Hello").unwrap();
    assert_eq!(hello.kind, Kind::Request);
    assert_eq!(hello.response, ResponseMode::Stream);
    assert_eq!(hello.response_type.as_deref(), Some("demo::Reply"));
    assert_eq!(hello.since, Some(semver::Version::new(1, 1, 0)));
    assert_eq!(
        hello.allow.as_ref().unwrap().rules,
        vec![crate::rules::RuleId::FieldRemoved.to_string()]
    );
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn resolution_through_modules_uses_aliases_and_generics() {
    let lib = format!(
        "{HEADER}
mod types;
mod nested {{
    pub mod deeper {{ pub struct Deep {{ pub d: bool }} }}
}}
pub use types::Priority as Prio;
use nested::deeper::*;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = crate::P, topic = \"t.a\", kind = \"event\")]
pub struct A {{
    pub p: Prio,
    pub w: types::Wrapper<String>,
    pub deep: Box<Deep>,
    pub v: Vec<std::sync::Arc<u8>>,
    pub s: std::collections::BTreeSet<i16>,
    pub m: std::collections::HashMap<u32, serde_json::Value>,
    pub t: (u8, [char; 3]),
    pub ext: geo_types::Point<f64>,
}}
"
    );
    let types = "pub type Priority = u32;\n#[derive(Serialize)]\npub struct Wrapper<T> { pub inner: T, pub more: Option<T> }\n";
    let s = snap(&[("src/lib.rs", &lib), ("src/types.rs", types)]);
    let f = fields(&s, "demo::A");
    assert_eq!(
        f[0].ty,
        Ty::Named {
            path: "demo::types::Priority".into(),
            args: vec![]
        }
    );
    assert!(matches!(
        &s.types["demo::types::Priority"].body,
        Body::Alias {
            target: Ty::Int {
                signed: false,
                bits: 32
            }
        }
    ));
    assert_eq!(
        f[1].ty,
        Ty::Named {
            path: "demo::types::Wrapper".into(),
            args: vec![Ty::String]
        }
    );
    assert_eq!(
        s.types["demo::types::Wrapper"].generics,
        vec!["T".to_owned()]
    );
    assert_eq!(
        fields(&s, "demo::types::Wrapper")[1].ty,
        Ty::Option {
            inner: Box::new(Ty::Param { name: "T".into() })
        }
    );
    assert_eq!(
        f[2].ty,
        Ty::Named {
            path: "demo::nested::deeper::Deep".into(),
            args: vec![]
        }
    );
    std_and_other_crates_fields(&f[3..]);
}

/// The fields of `resolution_through_modules_uses_aliases_and_generics`'s `A` from `v` on: std's
/// collections, a tuple with an array, and another crate's type.
fn std_and_other_crates_fields(f: &[crate::model::Field]) {
    assert_eq!(
        f[0].ty,
        Ty::Seq {
            kind: SeqKind::List,
            elem: Box::new(Ty::Int {
                signed: false,
                bits: 8
            })
        }
    );
    assert_eq!(
        f[1].ty,
        Ty::Seq {
            kind: SeqKind::Set,
            elem: Box::new(Ty::Int {
                signed: true,
                bits: 16
            })
        }
    );
    assert_eq!(
        f[2].ty,
        Ty::Map {
            key: Box::new(Ty::Int {
                signed: false,
                bits: 32
            }),
            value: Box::new(Ty::Value)
        }
    );
    assert_eq!(
        f[3].ty,
        Ty::Tuple {
            elems: vec![
                Ty::Int {
                    signed: false,
                    bits: 8
                },
                Ty::Array {
                    elem: Box::new(Ty::Char),
                    len: 3
                }
            ]
        }
    );
    assert_eq!(f[4].ty, Ty::external("geo_types::Point<f64>"));
}

#[test]
fn module_files_mod_rs_and_path_attribute() {
    let lib = format!("{HEADER}\nmod a;\n#[path = \"odd/place.rs\"]\nmod b;\n");
    let a = "mod inner;\n";
    let inner = "use crate::P;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.i\", kind = \"record\")]\npub struct I { pub b: super::super::b::B }\n";
    let b = "#[derive(serde::Serialize)]\npub struct B(pub u16);\n";
    let s = snap(&[
        ("src/lib.rs", &lib),
        ("src/a/mod.rs", a),
        ("src/a/inner.rs", inner),
        ("src/odd/place.rs", b),
    ]);
    assert_eq!(s.messages[0].rust_path, "demo::a::inner::I");
    assert_eq!(s.messages[0].location.file, "src/a/inner.rs");
    assert_eq!(
        fields(&s, "demo::a::inner::I")[0].ty,
        Ty::Named {
            path: "demo::b::B".into(),
            args: vec![]
        }
    );
    assert_eq!(fields(&s, "demo::b::B")[0].ser_name, "0");
}

#[test]
fn serde_attributes_become_wire_names_and_flags() {
    let lib = format!(
        "{HEADER}
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.s\", kind = \"request\")]
#[serde(rename_all = \"kebab-case\", deny_unknown_fields, default)]
pub struct S {{
    pub partial_ok: bool,
    #[serde(rename = \"R\", alias = \"r\", alias = \"res\")]
    pub r: u8,
    #[serde(skip_serializing_if = \"Option::is_none\")]
    pub free: Option<String>,
    #[serde(skip)]
    pub cache: u8,
    #[serde(flatten)]
    pub rest: std::collections::BTreeMap<String, serde_json::Value>,
    #[serde(with = \"my_codec\")]
    pub odd: u8,
    #[serde(rename(serialize = \"out\", deserialize = \"in\"))]
    pub two: u8,
}}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.e\", kind = \"event\")]
#[serde(tag = \"type\", content = \"data\", rename_all = \"snake_case\", rename_all_fields = \"camelCase\")]
pub enum E {{
    StartNow {{ job_id: u64 }},
    #[serde(rename = \"fin\", alias = \"finish\")]
    Finish,
    #[serde(other)]
    Unknown,
}}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.u\", kind = \"event\")]
#[serde(untagged)]
pub enum U {{ A(u8), #[serde(untagged)] B(String) }}
"
    );
    let s = snap(&[("src/lib.rs", &lib)]);
    let f = fields(&s, "demo::S");
    assert_eq!(f[0].ser_name, "partial-ok");
    assert!(f[0].default, "container default is folded into every field");
    assert_eq!(
        (f[1].ser_name.as_str(), f[1].de_names.clone()),
        ("R", vec!["R".to_owned(), "r".into(), "res".into()])
    );
    assert_eq!(f[2].skip_ser, SkipSer::If("Option::is_none".into()));
    assert_eq!(
        (f[3].skip_ser.clone(), f[3].skip_de),
        (SkipSer::Always, true)
    );
    assert!(f[4].flatten);
    assert_eq!(
        f[5].custom.as_ref().unwrap().de.as_deref(),
        Some("my_codec::deserialize")
    );
    assert_eq!(
        (f[6].ser_name.as_str(), f[6].de_names[0].as_str()),
        ("out", "in")
    );
    assert!(s.types["demo::S"].attrs.deny_unknown_fields);
    enums_of_serde_attributes(&s);
}

/// The enums of `serde_attributes_become_wire_names_and_flags`: representations, renames, aliases,
/// `other` and untagged variants.
fn enums_of_serde_attributes(s: &Snapshot) {
    let e = &s.types["demo::E"];
    assert_eq!(
        e.attrs.repr,
        EnumRepr::Adjacent {
            tag: "type".into(),
            content: "data".into()
        }
    );
    let Body::Enum { variants } = &e.body else {
        panic!()
    };
    assert_eq!(variants[0].ser_name, "start_now");
    assert_eq!(variants[0].fields[0].ser_name, "jobId");
    assert_eq!(
        variants[1].de_names,
        vec!["fin".to_owned(), "finish".into()]
    );
    assert!(variants[2].other);
    assert_eq!(s.types["demo::U"].attrs.repr, EnumRepr::Untagged);
    let Body::Enum { variants } = &s.types["demo::U"].body else {
        panic!()
    };
    assert!(variants[1].untagged);
}

#[test]
fn proxies_and_transparent() {
    let lib = format!(
        "{HEADER}
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.x\", kind = \"event\")]
#[serde(try_from = \"u8\", into = \"u8\")]
pub enum Code {{ A, B }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.y\", kind = \"event\")]
#[serde(transparent)]
pub struct Id {{ pub id: u64 }}
"
    );
    let s = snap(&[("src/lib.rs", &lib)]);
    let code = &s.types["demo::Code"].attrs;
    assert_eq!(
        code.from.as_ref().map(|p| (&p.ty, p.fallible)),
        Some((
            &Ty::Int {
                signed: false,
                bits: 8
            },
            true
        ))
    );
    assert_eq!(
        code.into,
        Some(Ty::Int {
            signed: false,
            bits: 8
        })
    );
    assert!(s.types["demo::Id"].attrs.transparent);
}

#[test]
fn what_cannot_be_seen_is_noted() {
    let lib = format!(
        "{HEADER}
mod missing;
make_types!(X, Y);
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Nowhere, topic = \"t.z\", kind = \"event\")]
pub struct Z {{ pub f: fn(u8) }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.x\", kind = \"event\")]
pub struct UsesX {{ pub x: X }}

macro_rules! declare {{
    ($name:ident) => {{
        #[derive(Serialize, Deserialize, Message)]
        #[wire(protocol = P, topic = \"t.gen\", kind = \"event\")]
        pub struct $name {{ pub id: u64 }}
    }};
}}
"
    );
    let s = snap(&[("src/lib.rs", &lib)]);
    let notes: Vec<&str> = s.notes.iter().map(|n| n.message.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("module `missing` has no file")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("macro `make_types!`")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("does not name a #[derive(Protocol)] type")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("macro `declare` writes #[wire] declarations")),
        "{notes:?}"
    );
    assert_eq!(s.messages.len(), 1);
}

#[test]
fn cfg_attr_applies_where_its_predicate_holds() {
    let lib = format!(
        "{HEADER}
#[cfg_attr(feature = \"wire\", derive(Serialize, Deserialize, Message), wire(protocol = P, topic = \"t.c\", kind = \"event\"))]
#[cfg_attr(feature = \"serde\", serde(rename_all = \"camelCase\"))]
pub struct C {{ #[cfg_attr(all(), serde(rename = \"J\"))] pub job_id: u64, pub t_submit: f64 }}
"
    );
    let manifest = "[package]\nname = \"demo\"\n[features]\ndefault = [\"wire\", \"serde\"]\nwire = []\nserde = []\n";
    let s = snap(&[("src/lib.rs", &lib), ("Cargo.toml", manifest)]);
    assert_eq!(s.messages.len(), 1);
    let f = fields(&s, "demo::C");
    assert_eq!(
        (f[0].ser_name.as_str(), f[1].ser_name.as_str()),
        ("J", "tSubmit")
    );
    // `serde` off: no `rename_all`.
    let manifest = manifest.replace("\"wire\", \"serde\"", "\"wire\"");
    let s = snap(&[("src/lib.rs", &lib), ("Cargo.toml", &manifest)]);
    let f = fields(&s, "demo::C");
    assert_eq!(
        (f[0].ser_name.as_str(), f[1].ser_name.as_str()),
        ("J", "t_submit")
    );
    // `wire` off: the derive of `Message` is not there, so neither is the message.
    let s = snap(&[
        ("src/lib.rs", &lib),
        ("Cargo.toml", "[package]\nname = \"demo\"\n"),
    ]);
    assert!(s.messages.is_empty(), "{:?}", s.messages);
}

#[test]
fn errors_name_the_file_and_position() {
    let err = snapshot_from_sources(
        "demo",
        &[("src/lib.rs", "mod a;"), ("src/a.rs", "\n\nstruct {")],
    )
    .unwrap_err();
    assert!(
        matches!(&err, ExtractError::Parse { file, line: 3, .. } if file == "src/a.rs"),
        "{err}"
    );
    let mut files = BTreeMap::new();
    files.insert("src/lib.rs".to_owned(), "mod a;".to_owned());
    struct Bytes(BTreeMap<String, String>);
    impl FileReader for Bytes {
        fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
            Ok(match path {
                "src/a.rs" => Some(vec![b'/', b'/', 0xff, 0xfe]),
                _ => self.0.get(path).map(|s| s.as_bytes().to_vec()),
            })
        }
    }
    let roots = [CrateRoot {
        name: "demo".into(),
        root_file: "src/lib.rs".into(),
    }];
    let err = extract(&roots, &Bytes(files)).unwrap_err();
    assert_eq!(
        err,
        ExtractError::NotUtf8 {
            file: "src/a.rs".into(),
            offset: 2
        }
    );
    let dup = format!(
        "{HEADER}\nmod b {{ use super::*;\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct Q; }}\n"
    );
    let err = snapshot_from_sources("demo", &[("src/lib.rs", &dup)]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("protocol `p` is declared twice"),
        "{err}"
    );
}

#[test]
fn recursive_types_terminate() {
    let lib = format!(
        "{HEADER}
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.tree\", kind = \"event\")]
pub struct Tree {{ pub children: Vec<Tree>, pub next: Option<Box<Node>> }}
pub struct Node {{ pub tree: Tree }}
"
    );
    let s = snap(&[("src/lib.rs", &lib)]);
    assert_eq!(s.types.len(), 2);
}

/// A reader that counts what it is asked, and can give blob ids (as a git tree would) for its files.
struct Counting {
    files: BTreeMap<String, String>,
    with_ids: bool,
    reads: std::cell::RefCell<BTreeMap<String, usize>>,
}

impl Counting {
    fn new(files: &[(&str, &str)], with_ids: bool) -> Self {
        Counting {
            files: files
                .iter()
                .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
                .collect(),
            with_ids,
            reads: Default::default(),
        }
    }

    fn reads(&self, path: &str) -> usize {
        self.reads.borrow().get(path).copied().unwrap_or(0)
    }
}

impl FileReader for Counting {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let text = self.files.get(path);
        if text.is_some() {
            *self.reads.borrow_mut().entry(path.to_owned()).or_default() += 1;
        }
        Ok(text.map(|t| t.as_bytes().to_vec()))
    }

    fn blob_id(&self, path: &str) -> Result<Option<git2::Oid>, ExtractError> {
        Ok(self
            .files
            .get(path)
            .filter(|_| self.with_ids)
            .map(|t| git2::Oid::hash_object(git2::ObjectType::Blob, t.as_bytes()).unwrap()))
    }
}

fn demo_root() -> Vec<CrateRoot> {
    vec![CrateRoot {
        name: "demo".into(),
        root_file: "src/lib.rs".into(),
    }]
}

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
    visit(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), &mut files);
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

/// A file that invokes at item level a `macro_rules!` it defines is parsed whole, so that `expand` writes
/// the items of the invocation; a file that defines a macro it does not invoke stays item by item.
#[test]
fn a_file_invoking_its_own_macro_is_parsed_whole_and_expanded() {
    let lib = format!(
        "{HEADER}
mod ids;
mod plain;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.a\", kind = \"event\")]
pub struct A {{ pub id: ids::Id, pub plain: plain::Plain }}
"
    );
    let ids = "macro_rules! id_type {
    ($name:ident, $inner:ty) => {
        #[derive(serde::Serialize, serde::Deserialize)]
        pub struct $name(pub $inner);
    };
}
id_type!(Id, u64);
";
    let plain = "macro_rules! unused { () => {}; }
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Plain(pub u8);
elsewhere::generate!();
";
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/ids.rs", ids),
        ("src/plain.rs", plain),
    ];
    let cache = SourceCache::new();
    let s = extract_cached(&demo_root(), &Counting::new(&files, false), &cache).unwrap();
    let id = &s.types["demo::ids::Id"];
    assert_eq!(id.location.file, "src/ids.rs");
    assert!(s.types.contains_key("demo::plain::Plain"), "{:?}", s.types);
    let stats = cache.stats();
    assert_eq!(stats.parsed, 1, "only ids.rs is parsed whole: {stats:?}");
    assert!(stats.parsed_items > 0, "{stats:?}");
}

#[test]
fn generic_parameters_left_out_take_their_defaults() {
    let s = snap(&[(
        "src/lib.rs",
        r#"
use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = "p", version = "1.0.0")]
pub struct P;
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct Name<T = String>(T);
#[derive(Serialize, Deserialize)]
pub struct Pair<A, B = A> { pub a: A, pub b: B }
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = "t", kind = "event")]
pub struct M { pub name: Name, pub id: Name<u64>, pub pair: Pair<u8> }
"#,
    )]);
    let tys: Vec<Ty> = fields(&s, "demo::M").into_iter().map(|f| f.ty).collect();
    let named = |path: &str, args: Vec<Ty>| Ty::Named {
        path: path.to_owned(),
        args,
    };
    let u = |bits| Ty::Int {
        signed: false,
        bits,
    };
    assert_eq!(
        tys,
        vec![
            // The default, lowered where `Name` is defined.
            named("demo::Name", vec![Ty::String]),
            named("demo::Name", vec![u(64)]),
            // A default naming another parameter is not guessed: `B` stays unbound.
            named("demo::Pair", vec![u(8)]),
        ]
    );
}

#[test]
fn a_trait_written_by_hand_is_read_on_its_side() {
    let s = snap(&[(
        "src/lib.rs",
        r#"
use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = "p", version = "1.0.0")]
pub struct P;
/// Written as derived, read by a hand-written, validating `Deserialize`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Name(String);
impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.is_empty() { return Err(serde::de::Error::custom("empty")); }
        Ok(Name(s))
    }
}
#[derive(Serialize, Deserialize)]
pub struct Both(String);
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = "t", kind = "event")]
pub struct M { pub name: Name, pub both: Both }
"#,
    )]);
    let from = s.types["demo::Name"]
        .attrs
        .from
        .clone()
        .expect("a reading proxy");
    // It reads a string and may reject it: read in part, its source compared.
    assert_eq!(from.ty, Ty::String);
    assert!(from.fallible);
    assert_eq!(s.types["demo::Name"].attrs.into, None);
    let written = s.types["demo::Name"].attrs.hand_written.clone();
    assert!(written.is_some_and(|w| w.de.is_some() && w.ser.is_none()));
    assert!(s.types["demo::Both"].attrs.from.is_none());
    assert!(
        s.notes
            .iter()
            .any(|n| n.message.contains("derives only one of serde's traits")),
        "{:?}",
        s.notes
    );
}
