//! Following types into dependencies: in-memory dependency sources behind a test [`Locate`].

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::*;
use crate::model::{Body, Ty};

const LIB: &str = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
use netlib::Link as L;

#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req {
    pub link: L,
    pub raw: netlib::Raw,
    pub gone: ghost::Thing,
    pub stamp: netlib::Missing,
}
";

const NETLIB: &str = "mod link;
pub use link::Link;

/// Hand-written impls.
pub struct Raw(Vec<u8>);

/// A length users size their buffers by.
pub const MTU: usize = link::WORDS as usize * 4;
";

const NETLIB_LINK: &str = "use serde::{Deserialize, Serialize};

pub const WORDS: u16 = 3;

#[cfg_attr(feature = \"serde\", derive(Serialize, Deserialize))]
pub struct Link {
    pub href: String,
    #[cfg(feature = \"rel\")]
    pub rel: String,
    #[cfg(not(feature = \"serde\"))]
    pub never: u8,
    pub kind: crate::link::Kind,
}

#[derive(Serialize, Deserialize)]
pub enum Kind {
    A,
    #[cfg(feature = \"rel\")]
    B,
}
";

/// Finds `netlib` in memory with the `serde` feature; `ghost` is not on disk.
struct Memory;

impl Locate for Memory {
    fn locate(&self, krate: &ExternalCrate) -> Located {
        if krate.package != "net-lib" {
            return Located {
                source: CrateSource::Missing {
                    why: "looked nowhere".to_owned(),
                },
                features: BTreeSet::new(),
            };
        }
        let files: BTreeMap<String, String> = [
            ("/deps/netlib/src/lib.rs", NETLIB),
            ("/deps/netlib/src/link.rs", NETLIB_LINK),
        ]
        .into_iter()
        .map(|(path, text)| (path.to_owned(), text.to_owned()))
        .collect();
        Located {
            source: CrateSource::Files {
                root_file: "/deps/netlib/src/lib.rs".to_owned(),
                reader: Rc::new(files),
            },
            features: ["serde".to_owned()].into(),
        }
    }
}

fn external(package: &str, version: &str) -> ExternalCrate {
    ExternalCrate {
        package: package.to_owned(),
        version: version.to_owned(),
        source: "registry+https://github.com/rust-lang/crates.io-index".to_owned(),
        path: None,
        requested_features: BTreeSet::new(),
        default_features: true,
        deps: BTreeMap::new(),
    }
}

fn externals() -> Externals {
    Externals {
        crates: vec![external("net-lib", "1.2.0"), external("ghost", "0.3.0")],
        of_workspace: [(
            "demo".to_owned(),
            [("netlib".to_owned(), 0), ("ghost".to_owned(), 1)].into(),
        )]
        .into(),
        locator: Some(Rc::new(Memory)),
    }
}

fn extract_demo(externals: &Externals) -> Snapshot {
    extract_demo_in(externals, &SourceCache::new())
}

fn extract_demo_in(externals: &Externals, cache: &SourceCache) -> Snapshot {
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), LIB.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    extract_with(
        &roots,
        &files,
        cache,
        &ExtractOptions::default(),
        &|| externals.clone(),
        None,
    )
    .unwrap()
}

fn field_ty(snapshot: &Snapshot, path: &str, field: &str) -> Ty {
    let Body::Struct { fields, .. } = &snapshot.types[path].body else {
        panic!("{path} is not a struct");
    };
    fields
        .iter()
        .find(|f| f.rust_name == field)
        .unwrap()
        .ty
        .clone()
}

#[test]
fn a_derived_type_of_a_dependency_is_lowered_with_its_package() {
    let s = extract_demo(&externals());
    assert_eq!(
        field_ty(&s, "demo::Req", "link"),
        Ty::Named {
            path: "net_lib::link::Link".to_owned(),
            args: Vec::new()
        }
    );
    let link = &s.types["net_lib::link::Link"];
    assert_eq!(link.package.as_deref(), Some("net-lib 1.2.0"));
    assert_eq!(link.location.file, "/deps/netlib/src/link.rs");
    // Fields behind features the dependency is not built with are not there.
    let Body::Struct { fields, .. } = &link.body else {
        panic!()
    };
    let names: Vec<&str> = fields.iter().map(|f| f.rust_name.as_str()).collect();
    assert_eq!(names, ["href", "kind"]);
    let Body::Enum { variants } = &s.types["net_lib::link::Kind"].body else {
        panic!()
    };
    assert_eq!(variants.len(), 1);
    assert_eq!(s.types["demo::Req"].package, None);
}

#[test]
fn a_dependency_upgraded_between_revisions_is_lowered_again() {
    // The dependency's files are the same blobs at both versions: its types are the same items, but
    // the package they name is not, so the second revision does not reuse the first one's lowering.
    let mut upgraded = externals();
    upgraded.crates[0].version = "1.3.0".to_owned();
    let cache = SourceCache::new();
    let before = extract_demo_in(&externals(), &cache);
    let after = extract_demo_in(&upgraded, &cache);
    assert_eq!(before, extract_demo(&externals()));
    assert_eq!(after, extract_demo(&upgraded));
    assert_eq!(
        after.types["net_lib::link::Link"].package.as_deref(),
        Some("net-lib 1.3.0")
    );
    // The same revision again reuses every type it lowered.
    let stats = cache.stats();
    let again = extract_demo_in(&upgraded, &cache);
    assert_eq!(again, after);
    assert_eq!(
        cache.stats().types_reused - stats.types_reused,
        after.types.len() - known_types(&after),
        "{:?}",
        cache.stats()
    );
}

/// How many of a snapshot's types are std's or the catalogue's (not lowered from an item).
fn known_types(snapshot: &Snapshot) -> usize {
    snapshot
        .types
        .values()
        .filter(|def| def.location.file.is_empty())
        .count()
}

/// `ty` without the digest of its impls' source, and whether it had one (it was read).
fn source_read(ty: Ty) -> (Ty, bool) {
    match ty {
        Ty::External {
            path,
            package,
            source,
        } => (
            Ty::External {
                path,
                package,
                source: None,
            },
            source.is_some(),
        ),
        ty => (ty, false),
    }
}

#[test]
fn a_dependency_type_without_a_derive_is_external_with_its_package() {
    let s = extract_demo(&externals());
    let (raw, read) = source_read(field_ty(&s, "demo::Req", "raw"));
    assert!(read, "the source of `Raw`'s impls is read");
    assert_eq!(
        raw,
        Ty::External {
            path: "net_lib::Raw".to_owned(),
            package: Some("net-lib 1.2.0".to_owned()),
            source: None,
        }
    );
    assert!(
        s.notes.iter().any(|n| n
            .message
            .contains("`net_lib::Raw` of package `net-lib 1.2.0` has no serde derive")),
        "{:?}",
        s.notes
    );
    // A path the dependency does not define is kept with the package too.
    assert_eq!(
        field_ty(&s, "demo::Req", "stamp"),
        Ty::External {
            path: "net_lib::Missing".to_owned(),
            package: Some("net-lib 1.2.0".to_owned()),
            source: None,
        }
    );
}

#[test]
fn a_dependency_not_on_disk_is_noted_and_compared_by_path_only() {
    let s = extract_demo(&externals());
    assert_eq!(
        field_ty(&s, "demo::Req", "gone"),
        Ty::External {
            path: "ghost::Thing".to_owned(),
            package: Some("ghost 0.3.0".to_owned()),
            source: None,
        }
    );
    let notes: Vec<&str> = s
        .notes
        .iter()
        .map(|n| n.message.as_str())
        .filter(|m| m.contains("ghost 0.3.0"))
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", s.notes);
    // The locator's account of where it looked (and what brings the package) ends the note.
    assert!(
        notes[0].contains(
            "is compared by path only, and a version bump alone is no change (looked nowhere)"
        ),
        "{}",
        notes[0]
    );
}

#[test]
fn without_dependencies_paths_stay_external_by_name() {
    let s = extract_demo(&Externals::default());
    assert_eq!(
        field_ty(&s, "demo::Req", "link"),
        Ty::external("netlib::Link".to_owned())
    );
}

/// Counts the dependencies it is asked to find; finds none.
#[derive(Default)]
struct Counting(std::cell::Cell<usize>);

impl Locate for Counting {
    fn locate(&self, _: &ExternalCrate) -> Located {
        self.0.set(self.0.get() + 1);
        Located {
            source: CrateSource::Missing {
                why: "not here".to_owned(),
            },
            features: BTreeSet::new(),
        }
    }
}

#[test]
fn a_catalogued_type_of_a_dependency_is_known_without_mounting_it() {
    let lib = "use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
#[derive(serde::Serialize, serde::Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req { pub any: serde_json::Value }
";
    let counting = Rc::new(Counting::default());
    let externals = Externals {
        crates: vec![external("serde_json", "1.0.154")],
        of_workspace: [("demo".to_owned(), [("serde_json".to_owned(), 0)].into())].into(),
        locator: Some(Rc::clone(&counting) as Rc<dyn Locate>),
    };
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), lib.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    let s = extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &|| externals.clone(),
        None,
    )
    .unwrap();
    assert_eq!(field_ty(&s, "demo::Req", "any"), Ty::Value);
    assert_eq!(counting.0.get(), 0, "serde_json was looked for");
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn dependencies_are_described_only_when_a_path_leaves_the_workspace() {
    let lib = "use std::collections::BTreeMap;
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
#[derive(serde::Serialize, serde::Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req { pub names: BTreeMap<String, Vec<u8>>, pub at: std::time::Duration }
";
    let described = std::cell::Cell::new(0);
    let describe = || {
        described.set(described.get() + 1);
        externals()
    };
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), lib.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &describe,
        None,
    )
    .unwrap();
    assert_eq!(described.get(), 0);
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), LIB.to_owned())].into();
    extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &describe,
        None,
    )
    .unwrap();
    assert_eq!(described.get(), 1);
}

/// Finds `netlib` as one file whose `Kind` exists twice, each behind a `#[cfg]` of the `serde` feature,
/// built with `features`.
struct TwoKinds(BTreeSet<String>);

impl Locate for TwoKinds {
    fn locate(&self, _: &ExternalCrate) -> Located {
        let lib = "#[cfg(feature = \"serde\")]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Kind { pub a: u8 }
#[cfg(not(feature = \"serde\"))]
pub struct Kind(pub String);
";
        let files: BTreeMap<String, String> =
            [("/deps/netlib/src/lib.rs".to_owned(), lib.to_owned())].into();
        Located {
            source: CrateSource::Files {
                root_file: "/deps/netlib/src/lib.rs".to_owned(),
                reader: Rc::new(files),
            },
            features: self.0.clone(),
        }
    }
}

#[test]
fn a_dependency_type_item_parsed_alone_follows_the_dependency_features() {
    let lib = "use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
#[derive(serde::Serialize, serde::Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req { pub kind: netlib::Kind }
";
    let extract = |features: &[&str]| {
        let externals = Externals {
            locator: Some(Rc::new(TwoKinds(
                features.iter().map(|f| (*f).to_owned()).collect(),
            ))),
            ..externals()
        };
        let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), lib.to_owned())].into();
        let roots = [CrateRoot {
            name: "demo".to_owned(),
            root_file: "src/lib.rs".to_owned(),
        }];
        let cache = SourceCache::new();
        let s = extract_with(
            &roots,
            &files,
            &cache,
            &ExtractOptions::default(),
            &|| externals.clone(),
            None,
        )
        .unwrap();
        assert_eq!(cache.stats().parsed, 0, "every file is read item by item");
        s
    };
    // With `serde` on, the derived `Kind` is the one there (without the cfg, the last one would be).
    let with = extract(&["serde"]);
    assert_eq!(
        field_ty(&with, "demo::Req", "kind"),
        Ty::Named {
            path: "net_lib::Kind".to_owned(),
            args: Vec::new()
        }
    );
    // Without it, the hand-written one: compared by the source of its impls.
    let without = extract(&[]);
    assert_eq!(
        source_read(field_ty(&without, "demo::Req", "kind")),
        (
            Ty::External {
                path: "net_lib::Kind".to_owned(),
                package: Some("net-lib 1.2.0".to_owned()),
                source: None,
            },
            true
        )
    );
}

/// Finds `netlib` as these in-memory files (the first its root), built with these features.
struct Files(&'static [(&'static str, &'static str)], BTreeSet<String>);

impl Locate for Files {
    fn locate(&self, _: &ExternalCrate) -> Located {
        let files: BTreeMap<String, String> = self
            .0
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        Located {
            source: CrateSource::Files {
                root_file: self.0[0].0.to_owned(),
                reader: Rc::new(files),
            },
            features: self.1.clone(),
        }
    }
}

#[test]
fn a_dependency_module_behind_a_cfg_follows_the_dependency_features() {
    const NET: &[(&str, &str)] = &[
        (
            "/deps/netlib/src/lib.rs",
            "#[cfg(feature = \"serde\")]
mod imp;
#[cfg(not(feature = \"serde\"))]
#[path = \"plain.rs\"]
mod imp;
pub use imp::Kind;
#[cfg(feature = \"extra\")]
pub mod extra {
    #[derive(serde::Serialize, serde::Deserialize)]
    pub struct Extra { pub x: u8 }
}
",
        ),
        (
            "/deps/netlib/src/imp.rs",
            "#[derive(serde::Serialize, serde::Deserialize)]\npub struct Kind { pub a: u8 }\n",
        ),
        (
            "/deps/netlib/src/plain.rs",
            "pub struct Kind(pub String);\n",
        ),
    ];
    let lib = "use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
#[derive(serde::Serialize, serde::Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req { pub kind: netlib::Kind, pub extra: netlib::extra::Extra }
";
    let extract = |features: &[&str]| extract_against(NET, lib, features);
    let named = |path: &str| Ty::Named {
        path: path.to_owned(),
        args: Vec::new(),
    };
    let with = extract(&["serde", "extra"]);
    assert_eq!(
        field_ty(&with, "demo::Req", "kind"),
        named("net_lib::imp::Kind")
    );
    assert_eq!(
        field_ty(&with, "demo::Req", "extra"),
        named("net_lib::extra::Extra")
    );
    // `serde` off: `imp` is `plain.rs` (hand-written), and `extra` is no module at all.
    let without = extract(&[]);
    let external = |path: &str| Ty::External {
        path: path.to_owned(),
        package: Some("net-lib 1.2.0".to_owned()),
        source: None,
    };
    assert_eq!(
        source_read(field_ty(&without, "demo::Req", "kind")),
        (external("net_lib::Kind"), true)
    );
    assert_eq!(
        field_ty(&without, "demo::Req", "extra"),
        external("net_lib::extra::Extra")
    );
    assert!(!without.types.contains_key("net_lib::extra::Extra"));
}

/// The crate of `lib` extracted against the dependency files `files`, built with `features`.
fn extract_against(
    files: &'static [(&'static str, &'static str)],
    lib: &str,
    features: &[&str],
) -> Snapshot {
    let externals = Externals {
        locator: Some(Rc::new(Files(
            files,
            features.iter().map(|f| (*f).to_owned()).collect(),
        ))),
        ..externals()
    };
    extract_lib(lib, &externals)
}

/// The crate of `lib` extracted against one dependency, `package` at `version` (named by its
/// package name), whose files are `files` (its root file first).
pub(super) fn extract_against_one(
    files: &'static [(&'static str, &'static str)],
    lib: &str,
    (package, version): (&str, &str),
) -> Snapshot {
    let externals = Externals {
        crates: vec![external(package, version)],
        of_workspace: [("demo".to_owned(), [(package.to_owned(), 0)].into())].into(),
        locator: Some(Rc::new(Files(files, BTreeSet::new()))),
    };
    extract_lib(lib, &externals)
}

/// The crate `demo`, whose `src/lib.rs` is `lib`, extracted with `externals`.
fn extract_lib(lib: &str, externals: &Externals) -> Snapshot {
    let sources: BTreeMap<String, String> = [("src/lib.rs".to_owned(), lib.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    extract_with(
        &roots,
        &sources,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &|| externals.clone(),
        None,
    )
    .unwrap()
}

/// The demo crate extracted with the shapes `wirecheck.toml` declares.
fn extract_with_shapes(shapes: &[(&str, &str)]) -> Snapshot {
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), LIB.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    let options = ExtractOptions {
        shapes: shapes
            .iter()
            .map(|(path, shape)| ((*path).to_owned(), (*shape).to_owned()))
            .collect(),
        ..ExtractOptions::default()
    };
    let externals = externals();
    extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &options,
        &|| externals.clone(),
        None,
    )
    .unwrap()
}

/// Declarations win: a shape declared for a dependency's type is what it is, whether its impls are
/// written by hand (on disk), derived, or its source is not on disk; a key no type uses is said.
#[test]
fn declared_shapes_apply_to_every_dependency_type_and_unused_keys_are_said() {
    let s = extract_with_shapes(&[
        ("net_lib::Raw", "Vec<u8>"),
        ("net_lib::link::Link", "String"),
        ("ghost::Thing", "u64"),
        ("net_lib::Nowhere", "u8"),
    ]);
    assert_eq!(
        field_ty(&s, "demo::Req", "raw"),
        Ty::Seq {
            kind: crate::model::SeqKind::List,
            elem: Box::new(Ty::Int {
                signed: false,
                bits: 8
            })
        }
    );
    assert_eq!(field_ty(&s, "demo::Req", "link"), Ty::String);
    assert_eq!(
        field_ty(&s, "demo::Req", "gone"),
        Ty::Int {
            signed: false,
            bits: 64
        }
    );
    let unused: Vec<&str> = s
        .notes
        .iter()
        .filter(|n| n.message.contains("is used by no type the messages reach"))
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(unused.len(), 1, "{:?}", s.notes);
    assert!(unused[0].contains("net_lib::Nowhere"), "{}", unused[0]);
}

/// An array length named by a dependency's constant, itself computed from a constant of another of its
/// modules: evaluated in the dependency, as rustc does.
#[test]
fn an_array_length_of_a_dependency_constant_is_evaluated() {
    let lib = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
use netlib::MTU as FRAME;

#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"request\")]
pub struct Req {
    pub frame: [u8; FRAME + 1],
    pub lost: [u8; netlib::NOWHERE],
}
";
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), lib.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    let externals = externals();
    let s = extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &|| externals.clone(),
        None,
    )
    .unwrap();
    let byte = Box::new(Ty::Int {
        signed: false,
        bits: 8,
    });
    assert_eq!(
        field_ty(&s, "demo::Req", "frame"),
        Ty::Array {
            elem: byte,
            len: 13
        }
    );
    // A name no module defines is compared by the text written.
    assert_eq!(
        field_ty(&s, "demo::Req", "lost"),
        Ty::external("[u8 ; netlib::NOWHERE]")
    );
}

/// `netlib` as published at 1.2.0 and at 1.3.0, where `Link`'s `href` became `url` on the wire.
struct Upgraded;

impl Locate for Upgraded {
    fn locate(&self, krate: &ExternalCrate) -> Located {
        let mut found = Memory.locate(krate);
        if krate.version == "1.3.0"
            && let CrateSource::Files { root_file, .. } = &found.source
        {
            let files: BTreeMap<String, String> = [
                ("/deps/netlib/src/lib.rs", NETLIB.to_owned()),
                (
                    "/deps/netlib/src/link.rs",
                    NETLIB_LINK.replace("pub href: String", "pub url: String"),
                ),
            ]
            .into_iter()
            .map(|(path, text)| (path.to_owned(), text))
            .collect();
            found.source = CrateSource::Files {
                root_file: root_file.clone(),
                reader: Rc::new(files),
            };
        }
        found
    }
}

/// A dependency upgraded between the releases renames a field of a type the message reaches: the
/// comparison sees the two releases' definitions and reports the rename.
#[test]
fn a_field_a_dependency_upgrade_renames_is_found() {
    let with = |version: &str| {
        let mut externals = externals();
        externals.crates[0].version = version.to_owned();
        externals.locator = Some(Rc::new(Upgraded));
        extract_demo(&externals)
    };
    let (old, new) = (with("1.2.0"), with("1.3.0"));
    let found = wirecheck_compat::compat::compare_protocol(
        &old,
        &new,
        "p",
        "v1.0.0",
        wirecheck_compat::compat::Scope::Full,
    );
    assert!(
        found
            .iter()
            .any(|f| f.level == crate::findings::Level::Major
                && f.field
                    .as_deref()
                    .is_some_and(|field| field.starts_with("link."))),
        "{found:#?}"
    );
}
