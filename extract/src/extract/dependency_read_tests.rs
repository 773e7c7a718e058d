//! A dependency's code written by hand, read where the crate's own would be: its types' impls, the
//! functions of its `with` modules, and the std types its prelude re-exports.

use super::dependency_tests::extract_against_one;
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

fn extract() -> Snapshot {
    const FILES: &[(&str, &str)] = &[
        ("/deps/textlib/src/lib.rs", TEXTLIB),
        ("/deps/textlib/src/prelude.rs", TEXTLIB_PRELUDE),
        ("/deps/textlib/src/cow.rs", TEXTLIB_COW),
        ("/deps/textlib/src/serializers.rs", TEXTLIB_SERIALIZERS),
    ];
    extract_against_one(FILES, LIB, ("textlib", "0.4.0"))
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

const CHRONO: &str = "pub mod prelude {
    pub use crate::datetime::DateTime;
    pub use crate::offset::Local;
}
pub mod datetime {
    /// Hand-written serde impls (an RFC 3339 string), as chrono's.
    pub struct DateTime<Tz>(Tz);
}
pub mod offset {
    pub struct Local;
}
";

#[test]
fn a_catalogued_type_reached_through_a_reexport_is_known_by_where_it_is_defined() {
    let lib = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
use chrono::prelude::{DateTime, Local};

#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"event\")]
pub struct Ev {
    pub at: DateTime<Local>,
}
";
    let s = extract_against_one(
        &[("/deps/chrono/src/lib.rs", CHRONO)],
        lib,
        ("chrono", "0.4.39"),
    );
    let Body::Struct { fields, .. } = &s.types["demo::Ev"].body else {
        panic!("demo::Ev is not a struct: {:#?}", s.types["demo::Ev"]);
    };
    let at = &fields[0].ty;
    // chrono's DateTime as the catalogue knows it (an RFC 3339 string), not an opaque type named
    // by the re-export's path and the package version.
    assert!(!matches!(at, Ty::External { .. }), "{at:?}");
    assert!(!format!("{at:?}").contains("prelude"), "{at:?}");
}
