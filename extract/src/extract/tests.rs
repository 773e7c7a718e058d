use std::collections::BTreeMap;

use super::*;
use crate::model::{Body, EnumRepr, SeqKind, SkipSer, Ty};
use crate::{Kind, ResponseMode};

mod cost;

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
