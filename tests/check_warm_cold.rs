#![cfg(feature = "checker")]
//! Warm and cold checks agree (`support::warm_cold`) on every compat fixture (each rule's old and new
//! release), and on the changes beside a type that change what it is without changing its file: a
//! prelude that swaps serde's derives for serde_with's (imported by name or by a glob), a module a
//! glob brings types from, a type alias's target.

use std::path::Path;

mod support;
use support::warm_cold::{Case, assert_warm_equals_cold};

/// The compat fixtures (`tests/fixtures/<rule>/{old,new}`), each a case.
fn fixture_cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .expect("fixtures")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let side = |side: &str| {
                std::fs::read_to_string(root.join(&name).join(side).join("lib.rs")).expect("lib.rs")
            };
            let features = std::fs::read_to_string(root.join(&name).join("old/Cargo.toml"))
                .ok()
                .and_then(|manifest| {
                    manifest
                        .find("[features]")
                        .map(|at| manifest[at..].to_owned())
                });
            let mut case = Case::new(name.clone(), side("old"), side("new"));
            case.features = features;
            case
        })
        .collect()
}

const HEAD: &str = "use wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n";

/// A case whose message's file is the same at both releases and whose type's derives come through
/// `import` of the module `beside`, which changes from `first` to `later` between checks.
fn beside_case(name: &str, import: &str, first: &str, later: &str) -> Case {
    let lib = format!(
        "{HEAD}{import}\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {{ pub level: Level, pub at: Stamp }}\n#[derive(Serialize, Deserialize)]\npub enum Level {{ Debug, Info }}\n"
    );
    let mut case = Case::new(name, lib.clone(), lib);
    case.beside = Some((first.to_owned(), later.to_owned()));
    case
}

const SERDE: &str = "pub use serde::{Deserialize, Serialize};\npub type Stamp = u64;\n";
const DISPLAY: &str = "pub use serde_with::{DeserializeFromStr as Deserialize, SerializeDisplay as Serialize};\npub type Stamp = u64;\n";
const SERDE_WIDER: &str = "pub use serde::{Deserialize, Serialize};\npub type Stamp = String;\n";

/// A case whose message names a type with hand-written impls in the file beside it, which change
/// between checks.
fn impl_beside_case() -> Case {
    let lib = format!(
        "{HEAD}use serde::{{Deserialize, Serialize}};\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {{ pub code: Code }}\npub struct Code(pub u32);\n"
    );
    let impl_writing = |call: &str| {
        format!(
            "impl serde::Serialize for crate::Code {{\n    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {{ {call} }}\n}}\nimpl<'de> serde::Deserialize<'de> for crate::Code {{\n    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{ <u32 as serde::Deserialize>::deserialize(d).map(crate::Code) }}\n}}\n"
        )
    };
    let mut case = Case::new("hand-written impls beside the type", lib.clone(), lib);
    case.beside = Some((
        impl_writing("s.serialize_u32(self.0)"),
        impl_writing("s.serialize_str(&self.0.to_string())"),
    ));
    case
}

fn beside_cases() -> Vec<Case> {
    let mut cases = vec![impl_beside_case()];
    for (import, how) in [
        ("use beside::{Deserialize, Serialize, Stamp};", "by name"),
        ("use beside::*;", "by a glob"),
        (
            "use self::beside::{self as prelude, *};",
            "by a glob and a rename",
        ),
    ] {
        for (first, later, what) in [
            (SERDE, DISPLAY, "serde's derives swapped for serde_with's"),
            (DISPLAY, SERDE, "serde_with's derives swapped for serde's"),
            (SERDE, SERDE_WIDER, "an alias retargeted"),
        ] {
            cases.push(beside_case(&format!("{what}, {how}"), import, first, later));
        }
    }
    cases
}

#[test]
fn warm_and_cold_checks_agree_on_every_fixture_and_every_change_beside_a_type() {
    let mut cases = fixture_cases();
    assert!(cases.len() > 50, "only {} fixtures", cases.len());
    let beside = beside_cases();
    let first_beside = cases.len();
    cases.extend(beside);
    let reports = assert_warm_equals_cold(&cases);
    // The change beside each prelude case shows: the report after it differs from the one before.
    let report: serde_json::Value = serde_json::from_str(&reports[1]).expect("json");
    let before: serde_json::Value = serde_json::from_str(&reports[0]).expect("json");
    for (index, case) in cases.iter().enumerate().skip(first_beside) {
        let name = format!("p_c{index}");
        let protocol = |report: &serde_json::Value| {
            report["protocols"]
                .as_array()
                .expect("protocols")
                .iter()
                .find(|p| p["name"] == name.as_str())
                .cloned()
                .unwrap_or_else(|| panic!("{name} is not in the report"))
        };
        assert_ne!(
            protocol(&before)["findings"],
            protocol(&report)["findings"],
            "{}: the change beside the type changed nothing",
            case.name
        );
    }
}
