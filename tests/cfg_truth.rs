//! Truth test of `#[cfg]`/`#[cfg_attr]` as extraction reads them: the same items are compiled here by
//! rustc (the `checker` feature is on in this build; `wirecheck-never-set` is a feature no build sets) and
//! extracted by wirecheck from their text, under a manifest whose default features are the same. The keys
//! serde_json writes for the compiled types, and whether a type implements `Serialize` at all, must be
//! what the model says.
#![cfg(feature = "checker")]
// `wirecheck-never-set` is not a feature of this package: that is the point (a feature that is off).
#![allow(unexpected_cfgs)]

use std::collections::BTreeSet;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::model::{Body, Snapshot};

/// Compiles the items and keeps their text.
macro_rules! compiled_and_text {
    ($($item:item)*) => {
        $($item)*
        const ITEMS: &str = stringify!($($item)*);
    };
}

compiled_and_text! {
    #[derive(Serialize, Deserialize, Default)]
    pub struct Fields {
        pub always: u8,
        #[cfg(feature = "checker")]
        pub on: u8,
        #[cfg(feature = "wirecheck-never-set")]
        pub off: u8,
        #[cfg(not(feature = "wirecheck-never-set"))]
        pub not_off: u8,
        #[cfg(any(feature = "wirecheck-never-set", feature = "checker"))]
        pub any_on: u8,
        #[cfg(all(feature = "wirecheck-never-set", feature = "checker"))]
        pub all_off: u8,
        #[cfg_attr(feature = "checker", cfg(feature = "wirecheck-never-set"))]
        pub cfg_by_cfg_attr: u8,
        #[cfg_attr(feature = "checker", serde(rename = "Renamed"))]
        pub renamed_on: u8,
        #[cfg_attr(feature = "wirecheck-never-set", serde(rename = "NotRenamed"))]
        pub renamed_off: u8,
        #[cfg_attr(feature = "checker", cfg_attr(not(feature = "wirecheck-never-set"), serde(rename = "Nested")))]
        pub nested: u8,
        #[cfg_attr(all(feature = "checker", not(feature = "wirecheck-never-set")), serde(skip))]
        pub skipped: u8,
        #[cfg_attr(feature = "wirecheck-never-set", serde(skip))]
        pub not_skipped: u8,
        // The keywords (stable since Rust 1.88, the project's minimum), which syn's `Meta` rejects.
        #[cfg(false)]
        pub never: u8,
        #[cfg(not(false))]
        pub not_false: u8,
        #[cfg_attr(true, serde(rename = "title"))]
        pub renamed_by_true: u8,
        #[cfg_attr(false, serde(rename = "untitled"))]
        pub kept_by_false: u8,
        #[cfg_attr(all(true, feature = "checker"), serde(rename = "both"))]
        pub renamed_by_all_true: u8,
    }

    #[cfg_attr(feature = "checker", derive(Serialize, Deserialize))]
    #[derive(Default)]
    pub struct SerdeOn {
        pub a: u8,
    }

    #[cfg_attr(feature = "wirecheck-never-set", derive(Serialize, Deserialize))]
    pub struct SerdeOff {
        pub a: u8,
    }

    #[cfg(feature = "checker")]
    pub mod m {
        #[derive(serde::Serialize, serde::Deserialize, Default)]
        pub struct Inner {
            pub in_on: u8,
        }
    }

    #[cfg(not(feature = "checker"))]
    pub mod m {
        #[derive(serde::Serialize, serde::Deserialize, Default)]
        pub struct Inner {
            pub in_off: u8,
        }
    }

    pub mod picks {
        #[derive(serde::Serialize, serde::Deserialize, Default)]
        pub struct On {
            pub picked_on: u8,
        }
        #[derive(serde::Serialize, serde::Deserialize, Default)]
        pub struct Off {
            pub picked_off: u8,
        }
    }

    #[cfg(feature = "checker")]
    pub use picks::On as Picked;
    #[cfg(not(feature = "checker"))]
    pub use picks::Off as Picked;

    #[cfg(feature = "wirecheck-never-set")]
    pub mod gone {
        #[derive(serde::Serialize, serde::Deserialize, Default)]
        pub struct Inner {
            pub x: u8,
        }
    }
}

const HEADER: &str = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t\", kind = \"event\")]
pub struct Probe { pub fields: Fields, pub on: SerdeOn, pub off: SerdeOff, pub inner: m::Inner, pub gone: gone::Inner, pub picked: Picked }
";

const MANIFEST: &str = "[package]\nname = \"demo\"\n[features]\ndefault = [\"checker\"]\nchecker = []\nwirecheck-never-set = []\n";

fn snapshot() -> Snapshot {
    snapshot_of(&format!("{HEADER}{ITEMS}"))
}

fn snapshot_of(lib: &str) -> Snapshot {
    snapshot_from_sources("demo", &[("src/lib.rs", lib), ("Cargo.toml", MANIFEST)])
        .expect("extracts")
}

/// The keys wirecheck says a type writes.
fn model_keys(s: &Snapshot, path: &str) -> BTreeSet<String> {
    let Body::Struct { fields, .. } = &s.types[path].body else {
        panic!("{path}: {:?}", s.types[path].body)
    };
    fields
        .iter()
        .filter(|f| f.skip_ser == wirecheck::model::SkipSer::Never)
        .map(|f| f.ser_name.clone())
        .collect()
}

/// The keys serde_json writes for a value.
fn written_keys(value: &impl Serialize) -> BTreeSet<String> {
    serde_json::to_value(value)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// `<Probe<T>>::SERIALIZE` is the inherent constant when `T: Serialize`, else the trait's (the
/// "impls" crate's technique): whether rustc sees a `Serialize` impl.
struct Probe<T>(PhantomData<T>);
impl<T: Serialize> Probe<T> {
    const SERIALIZE: bool = true;
}
trait NotSerialize {
    const SERIALIZE: bool = false;
}
impl<T> NotSerialize for Probe<T> {}

#[test]
fn cfg_fields_and_renames_are_what_rustc_compiles() {
    let s = snapshot();
    let written = written_keys(&Fields::default());
    assert_eq!(model_keys(&s, "demo::Fields"), written);
    // And serde reads back exactly what it wrote (the skipped field is filled from its default).
    let read: Fields =
        serde_json::from_value(serde_json::to_value(Fields::default()).unwrap()).unwrap();
    assert_eq!(written_keys(&read), written);
    // Pinned, so that the agreement above is not an agreement on nothing.
    let expected: BTreeSet<String> = [
        "always",
        "on",
        "not_off",
        "any_on",
        "Renamed",
        "renamed_off",
        "Nested",
        "not_skipped",
        "not_false",
        "title",
        "kept_by_false",
        "both",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(written, expected);
}

#[test]
fn derives_behind_cfg_attr_are_what_rustc_compiles() {
    let s = snapshot();
    // Checked by rustc itself, while compiling this test.
    const { assert!(<Probe<SerdeOn>>::SERIALIZE) };
    const { assert!(!<Probe<SerdeOff>>::SERIALIZE) };
    assert_eq!(
        model_keys(&s, "demo::SerdeOn"),
        written_keys(&SerdeOn::default())
    );
    // Without its derive, `SerdeOff` is opaque: an alias of itself, compared by path.
    assert!(
        matches!(&s.types["demo::SerdeOff"].body, Body::Alias { .. }),
        "{:?}",
        s.types["demo::SerdeOff"].body
    );
    let _ = SerdeOff { a: 0 }.a;
}

#[test]
fn modules_behind_a_cfg_are_what_rustc_compiles() {
    let s = snapshot();
    assert_eq!(
        model_keys(&s, "demo::m::Inner"),
        written_keys(&m::Inner::default())
    );
    assert!(!s.types.contains_key("demo::gone::Inner"));
    // Of two `use` of one name, each behind a `cfg`, the one in the build binds it.
    assert_eq!(
        model_keys(&s, "demo::picks::On"),
        written_keys(&Picked::default())
    );
    assert!(!s.types.contains_key("demo::picks::Off"));
}

#[test]
fn a_file_parsed_whole_reads_the_same() {
    // The scan cannot tell where this item ends: the file is parsed whole, its modules read from syn.
    let whole = snapshot_of(&format!(
        "{HEADER}{ITEMS}\npub struct T<const N: usize = {{ 3 }}>;\n"
    ));
    assert_eq!(whole.types, snapshot().types);
    assert_eq!(
        model_keys(&whole, "demo::m::Inner"),
        written_keys(&m::Inner::default())
    );
}
