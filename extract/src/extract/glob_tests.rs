//! Glob imports resolved as rustc resolves them: a name defined or imported by name wins, a glob gives
//! only what its module exports (itself by name or by its own globs), a glob's own path never resolves
//! through the globs of the module it is written in, and the std prelude comes last.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::*;
use crate::model::{Body, Ty};

/// A dependency whose prelude re-exports its `DateTime` (as `chrono::prelude` does).
const TIMEKIT: &str = "pub mod prelude;\nmod date;\npub use date::DateTime;\n";
const TIMEKIT_PRELUDE: &str = "pub use crate::DateTime;\npub use crate::date::Weekday;\n";
const TIMEKIT_DATE: &str = "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct DateTime { pub secs: i64 }\n#[derive(Serialize, Deserialize)]\npub enum Weekday { Mon, Tue }\n";

/// Finds `timekit` in memory; `ghost` and `serde` are not on disk.
struct Memory;

impl Locate for Memory {
    fn locate(&self, krate: &ExternalCrate) -> Located {
        if krate.package != "timekit" {
            return Located {
                source: CrateSource::Missing {
                    why: "looked nowhere".to_owned(),
                },
                features: BTreeSet::new(),
            };
        }
        let files: BTreeMap<String, String> = [
            ("/deps/timekit/src/lib.rs", TIMEKIT),
            ("/deps/timekit/src/prelude.rs", TIMEKIT_PRELUDE),
            ("/deps/timekit/src/date.rs", TIMEKIT_DATE),
        ]
        .into_iter()
        .map(|(path, text)| (path.to_owned(), text.to_owned()))
        .collect();
        Located {
            source: CrateSource::Files {
                root_file: "/deps/timekit/src/lib.rs".to_owned(),
                reader: Rc::new(files),
            },
            features: BTreeSet::new(),
        }
    }
}

fn external(package: &str) -> ExternalCrate {
    ExternalCrate {
        package: package.to_owned(),
        version: "1.0.0".to_owned(),
        source: "registry+https://github.com/rust-lang/crates.io-index".to_owned(),
        path: None,
        requested_features: BTreeSet::new(),
        default_features: true,
        deps: BTreeMap::new(),
    }
}

fn externals() -> Externals {
    Externals {
        crates: vec![external("timekit"), external("ghost"), external("serde")],
        of_workspace: [(
            "demo".to_owned(),
            [
                ("timekit".to_owned(), 0),
                ("ghost".to_owned(), 1),
                ("serde".to_owned(), 2),
            ]
            .into(),
        )]
        .into(),
        locator: Some(Rc::new(Memory)),
    }
}

const HEAD: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n";

/// The snapshot of a crate whose `src/lib.rs` is `HEAD` and `lib`, with the other `files`.
fn extract(lib: &str, files: &[(&str, &str)]) -> Snapshot {
    let mut all: BTreeMap<String, String> =
        [("src/lib.rs".to_owned(), format!("{HEAD}{lib}"))].into();
    for (path, text) in files {
        all.insert((*path).to_owned(), (*text).to_owned());
    }
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    let cache = SourceCache::new();
    let snapshot = extract_with(
        &roots,
        &all,
        &cache,
        &ExtractOptions::default(),
        &externals,
        None,
    )
    .expect("extracts");
    // Name resolution is a function of the trees: another cache that saw another revision first
    // gives the same.
    assert_eq!(
        snapshot,
        extract_with(
            &roots,
            &all,
            &SourceCache::new(),
            &ExtractOptions::default(),
            &externals,
            None
        )
        .expect("extracts")
    );
    snapshot
}

fn field_ty(snapshot: &Snapshot, path: &str, field: &str) -> Ty {
    let Body::Struct { fields, .. } = &snapshot.types[path].body else {
        panic!("{path} is not a struct: {:?}", snapshot.types[path]);
    };
    fields
        .iter()
        .find(|f| f.rust_name == field)
        .unwrap_or_else(|| panic!("{path} has no field {field}"))
        .ty
        .clone()
}

fn message(fields: &str) -> String {
    format!(
        "#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {{ {fields} }}\n"
    )
}

fn named(path: &str) -> Ty {
    Ty::Named {
        path: path.to_owned(),
        args: Vec::new(),
    }
}

/// `use timekit::prelude::*;`, the line of many services: the names the prelude exports come from it,
/// the others (`String`, `Vec`, `u64`) are std's, and nothing is said of the dependency for them.
#[test]
fn a_glob_of_a_dependency_prelude_gives_only_what_it_exports() {
    let s = extract(
        &format!(
            "use timekit::prelude::*;\n{}",
            message(
                "pub name: String, pub ids: Vec<u64>, pub at: DateTime, pub day: Weekday, pub other: Option<Box<str>>"
            )
        ),
        &[],
    );
    assert_eq!(field_ty(&s, "demo::M", "name"), Ty::String);
    assert_eq!(
        field_ty(&s, "demo::M", "at"),
        named("timekit::date::DateTime")
    );
    assert_eq!(
        field_ty(&s, "demo::M", "day"),
        named("timekit::date::Weekday")
    );
    let Ty::Seq { elem, .. } = field_ty(&s, "demo::M", "ids") else {
        panic!()
    };
    assert_eq!(
        *elem,
        Ty::Int {
            signed: false,
            bits: 64
        }
    );
    assert!(
        s.notes.iter().all(|note| !note.message.contains("timekit")),
        "{:?}",
        s.notes
    );
}

/// A dependency whose source is not on disk: its glob is taken to bring every name that is not the
/// prelude's (it cannot be read), by its path under the glob.
#[test]
fn a_glob_of_a_dependency_not_on_disk_brings_what_the_prelude_does_not() {
    let s = extract(
        &format!(
            "use ghost::prelude::*;\n{}",
            message("pub name: String, pub thing: Thing")
        ),
        &[],
    );
    assert_eq!(field_ty(&s, "demo::M", "name"), Ty::String);
    assert_eq!(
        field_ty(&s, "demo::M", "thing"),
        Ty::External {
            path: "ghost::prelude::Thing".to_owned(),
            package: Some("ghost 1.0.0".to_owned()),
            source: None,
        }
    );
}

/// A name defined or imported by name wins over a glob; globs chain through `pub use x::*`; a glob
/// brings nothing its module does not export (a name found nowhere stays the bare name).
#[test]
fn globs_of_the_crate_resolve_as_rustc_does() {
    let s = extract(
        &format!(
            "pub mod a;\npub mod b;\npub mod kinds;\npub mod empty;\nuse kinds::Kind;\nuse a::*;\nuse empty::*;\n{}",
            message("pub kind: Kind, pub deep: Deep, pub mystery: Mystery")
        ),
        &[
            (
                "src/a.rs",
                "pub use crate::b::*;\npub use super::empty::*;\n",
            ),
            (
                "src/b.rs",
                "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct Deep(u8);\n#[derive(Serialize, Deserialize)]\npub struct Kind(String);\npub use crate::a::*;\n",
            ),
            (
                "src/kinds.rs",
                "use serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\npub struct Kind(u32);\n",
            ),
            ("src/empty.rs", "pub fn nothing() {}\n"),
        ],
    );
    assert_eq!(field_ty(&s, "demo::M", "kind"), named("demo::kinds::Kind"));
    assert_eq!(field_ty(&s, "demo::M", "deep"), named("demo::b::Deep"));
    assert_eq!(field_ty(&s, "demo::M", "mystery"), Ty::external("Mystery"));
}

/// `use super::*;` in a child module gives it the parent's names, its imports included.
#[test]
fn a_glob_of_the_parent_gives_its_imports() {
    let s = extract(
        "pub mod inner {\n    use super::*;\n    #[derive(Serialize, Deserialize, Message)]\n    #[wire(protocol = P, topic = \"t\", kind = \"event\")]\n    pub struct M { pub at: DateTime, pub n: Local }\n}\nuse timekit::prelude::DateTime;\n#[derive(Serialize, Deserialize)]\npub struct Local(u8);\n",
        &[],
    );
    assert_eq!(
        field_ty(&s, "demo::inner::M", "at"),
        named("timekit::date::DateTime")
    );
    assert_eq!(field_ty(&s, "demo::inner::M", "n"), named("demo::Local"));
}

/// A derive whose name a glob of a prelude brings is what the prelude re-exports: serde's derive is
/// derived, serde_with's `SerializeDisplay` under serde's name is not.
#[test]
fn a_derive_name_resolves_through_a_glob() {
    let lib = format!(
        "pub mod prelude;\npub mod types;\n{}",
        message("pub level: types::Level")
    );
    let types = "use crate::prelude::*;\n#[derive(Serialize, Deserialize)]\npub enum Level { Debug, Info }\n";
    let serde = extract(
        &lib,
        &[
            (
                "src/prelude.rs",
                "pub use serde::{Deserialize, Serialize};\n",
            ),
            ("src/types.rs", types),
        ],
    );
    assert!(matches!(
        serde.types["demo::types::Level"].body,
        Body::Enum { .. }
    ));
    let display = extract(
        &lib,
        &[
            (
                "src/prelude.rs",
                "pub use serde_with::{DeserializeFromStr as Deserialize, SerializeDisplay as Serialize};\n",
            ),
            ("src/types.rs", types),
        ],
    );
    assert!(matches!(
        display.types["demo::types::Level"].body,
        Body::Alias { .. }
    ));
}

/// Glob imports that import each other end, with the name unresolved.
#[test]
fn glob_cycles_end() {
    let s = extract(
        &format!(
            "pub mod a;\npub mod b;\nuse a::*;\n{}",
            message("pub x: Missing")
        ),
        &[
            (
                "src/a.rs",
                "pub use crate::b::*;\npub use self::inner::*;\npub mod inner { pub use super::*; }\n",
            ),
            ("src/b.rs", "pub use crate::a::*;\npub use super::*;\n"),
        ],
    );
    assert_eq!(field_ty(&s, "demo::M", "x"), Ty::external("Missing"));
}

/// Modules that each glob-import their parent, which glob-imports them all back (the shape of a
/// real crate that made an early version of glob resolution exponential): every lookup ends quickly.
#[test]
fn mutual_globs_of_many_modules_resolve_quickly() {
    let mut extra = String::new();
    for m in ["a", "b", "c", "d", "e", "f"] {
        extra.push_str(&format!("pub use {m}::*;\npub mod {m} {{\n    use super::*;\n    #[derive(Serialize, Deserialize)]\n    pub struct In{m} {{ pub x: Option<u64>, pub y: Vec<String>, pub z: Missing{m} }}\n}}\n"));
    }
    let started = std::time::Instant::now();
    let s = extract(
        &format!(
            "{extra}{}",
            message("pub a: Option<Ina>, pub f: Option<Inf>")
        ),
        &[],
    );
    assert!(s.types.contains_key("demo::f::Inf"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
