//! A dependency's code written by hand, read where the crate's own would be: its types' impls, the
//! functions of its `with` modules, and the std types its prelude re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::*;
use crate::model::{Body, Ty};

const LIB: &str = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
use textlib::serializers;

#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"event\")]
pub struct Ev {
    pub name: textlib::CowStr,
    #[serde(with = \"serializers::from_str\")]
    pub count: u64,
    #[serde(with = \"serializers::plain\")]
    pub label: String,
}
";

const TEXTLIB: &str = "pub mod prelude;
pub mod serializers;
mod cow;
pub use cow::CowStr;
";

const TEXTLIB_PRELUDE: &str = "pub use alloc::string::{String, ToString};
pub use alloc::vec::Vec;
";

const TEXTLIB_COW: &str = "use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A string read without allocating; its `Visitor` is defined inside `deserialize`.
pub struct CowStr(String);

impl<'de> Deserialize<'de> for CowStr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = CowStr;

            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(\"a string\")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<CowStr, E> {
                Ok(CowStr(value.to_owned()))
            }
        }

        deserializer.deserialize_str(Visitor)
    }
}

impl Serialize for CowStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}
";

const TEXTLIB_SERIALIZERS: &str = "pub mod from_str {
    use crate::prelude::*;
    use crate::CowStr;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn deserialize<'de, D: Deserializer<'de>, T: core::str::FromStr>(d: D) -> Result<T, D::Error>
    where
        T::Err: core::fmt::Display,
    {
        CowStr::deserialize(d)?.0.parse::<T>().map_err(serde::de::Error::custom)
    }

    pub fn serialize<S: Serializer, T: core::fmt::Display>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.to_string().serialize(s)
    }
}

pub mod plain {
    use crate::prelude::*;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        String::deserialize(d)
    }

    pub fn serialize<S: Serializer>(value: &String, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }
}
";

/// Finds `textlib` in memory.
struct Memory;

impl Locate for Memory {
    fn locate(&self, _: &ExternalCrate) -> Located {
        let files: BTreeMap<String, String> = [
            ("/deps/textlib/src/lib.rs", TEXTLIB),
            ("/deps/textlib/src/prelude.rs", TEXTLIB_PRELUDE),
            ("/deps/textlib/src/cow.rs", TEXTLIB_COW),
            ("/deps/textlib/src/serializers.rs", TEXTLIB_SERIALIZERS),
        ]
        .into_iter()
        .map(|(path, text)| (path.to_owned(), text.to_owned()))
        .collect();
        Located {
            source: CrateSource::Files {
                root_file: "/deps/textlib/src/lib.rs".to_owned(),
                reader: Rc::new(files),
            },
            features: BTreeSet::new(),
        }
    }
}

fn extract() -> Snapshot {
    let externals = Externals {
        crates: vec![ExternalCrate {
            package: "textlib".to_owned(),
            version: "0.4.0".to_owned(),
            source: "registry+https://github.com/rust-lang/crates.io-index".to_owned(),
            path: None,
            requested_features: BTreeSet::new(),
            default_features: true,
            deps: BTreeMap::new(),
        }],
        of_workspace: [("demo".to_owned(), [("textlib".to_owned(), 0)].into())].into(),
        locator: Some(Rc::new(Memory)),
    };
    let files: BTreeMap<String, String> = [("src/lib.rs".to_owned(), LIB.to_owned())].into();
    let roots = [CrateRoot {
        name: "demo".to_owned(),
        root_file: "src/lib.rs".to_owned(),
    }];
    extract_with(
        &roots,
        &files,
        &SourceCache::new(),
        &ExtractOptions::default(),
        &|| externals.clone(),
        None,
    )
    .unwrap()
}

fn field_ty(snapshot: &Snapshot, field: &str) -> Ty {
    let Body::Struct { fields, .. } = &snapshot.types["demo::Ev"].body else {
        panic!("demo::Ev is not a struct");
    };
    fields
        .iter()
        .find(|f| f.rust_name == field)
        .map(|f| f.ty.clone())
        .unwrap_or_else(|| panic!("no field {field}"))
}

#[test]
fn a_dependency_types_impls_written_by_hand_are_read() {
    let s = extract();
    let Ty::Named { path, .. } = field_ty(&s, "name") else {
        panic!("CowStr is read, not opaque: {:?}", field_ty(&s, "name"));
    };
    let def = &s.types[&path];
    assert_eq!(def.package.as_deref(), Some("textlib 0.4.0"));
    // It writes a string, and its visitor (defined inside `deserialize`) reads one.
    assert_eq!(def.body, Body::Alias { target: Ty::String }, "{def:#?}");
    assert!(def.attrs.from.is_none(), "{def:#?}");
    assert!(def.attrs.hand_written.is_none(), "read exactly: {def:#?}");
}

#[test]
fn a_dependency_with_module_is_found_past_its_prelude_glob() {
    let s = extract();
    // `String` of the prelude glob is std's String, so the functions are read exactly.
    assert_eq!(field_ty(&s, "label"), Ty::String);
    // A function of the module, not a `serialize` of the glob: read, its reading fallible.
    let Ty::Named { path, .. } = field_ty(&s, "count") else {
        panic!("{:?}", field_ty(&s, "count"));
    };
    assert!(
        path.contains("textlib::serializers::from_str::deserialize"),
        "{path}"
    );
    let from = s.types[&path].attrs.from.clone().expect("a reading");
    assert!(from.fallible, "{from:?}");
}
