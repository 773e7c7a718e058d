//! The decoder ([`Decoder`]) against serde_json itself: real types compiled here, their models
//! built beside them, and payloads each reads or rejects; the decoder must say what serde_json says.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::build::*;
use crate::compat::decode::Decoder;
use crate::compat::shape::SideRef;
use crate::findings::Side;
use crate::model::{EnumRepr, ModelView, Style, Ty, TypeDef};

/// Each payload is read by the decoder, as the model's type `ty` among `types`, exactly when
/// serde_json reads it as `T`.
fn agree<T: DeserializeOwned>(types: Vec<TypeDef>, ty: &str, payloads: &[Value]) {
    let snapshot = snap(types);
    let side = SideRef {
        model: ModelView::Whole(&snapshot),
        side: Side::Old,
        format: crate::Format::Json,
    };
    for payload in payloads {
        let serde = serde_json::from_value::<T>(payload.clone()).is_ok();
        let decoder = Decoder::new(side).decode(&named(ty), payload).is_ok();
        assert_eq!(
            decoder,
            serde,
            "{ty} from {payload}: serde_json {}",
            if serde { "reads it" } else { "rejects it" }
        );
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Inner {
    x: u32,
}

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    Named { x: u32 },
    Newtype(Inner),
}

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum OnlyNamed {
    Named { x: u32, y: bool },
}

#[test]
fn an_untagged_struct_variant_reads_a_map_only() {
    let inner = st("Inner", vec![f("x", u(32))]);
    let untagged = en(
        "Untagged",
        EnumRepr::Untagged,
        vec![
            var("Named", Style::Named, vec![f("x", u(32))]),
            newtype("Newtype", named("Inner")),
        ],
    );
    // The newtype variant's struct reads an array; the struct variant does not.
    agree::<Untagged>(
        vec![inner, untagged],
        "Untagged",
        &[json!({"x": 1}), json!([1]), json!(["a"])],
    );
    let only_named = en(
        "OnlyNamed",
        EnumRepr::Untagged,
        vec![var(
            "Named",
            Style::Named,
            vec![f("x", u(32)), f("y", Ty::Bool)],
        )],
    );
    agree::<OnlyNamed>(
        vec![only_named],
        "OnlyNamed",
        &[json!({"x": 1, "y": true}), json!([1, true]), json!([1])],
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Extra {
    y: bool,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct WithFlatten {
    x: u32,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Plain {
    x: u32,
    y: bool,
}

#[test]
fn a_struct_with_a_flattened_field_reads_a_map_only() {
    let payloads = [json!({"x": 1, "y": true}), json!([1, true]), json!([1])];
    let mut extra = f("extra", named("Extra"));
    extra.flatten = true;
    let types = vec![
        st("Extra", vec![f("y", Ty::Bool)]),
        st("WithFlatten", vec![f("x", u(32)), extra]),
    ];
    agree::<WithFlatten>(types, "WithFlatten", &payloads);
    let plain = st("Plain", vec![f("x", u(32)), f("y", Ty::Bool)]);
    agree::<Plain>(vec![plain], "Plain", &payloads);
}

#[derive(Deserialize)]
#[serde(tag = "t")]
#[allow(dead_code)]
enum Internal {
    Empty(()),
    Unit,
    Count { n: u32 },
}

#[test]
fn an_internally_tagged_newtype_of_unit_is_its_tag_alone() {
    let internal = en(
        "Internal",
        EnumRepr::Internal { tag: "t".into() },
        vec![
            newtype("Empty", Ty::Unit),
            unit("Unit"),
            var("Count", Style::Named, vec![f("n", u(32))]),
        ],
    );
    agree::<Internal>(
        vec![internal],
        "Internal",
        &[
            json!({"t": "Empty"}),
            json!({"t": "Unit"}),
            json!({"t": "Count", "n": 1}),
            json!({"t": "Empty", "x": 1}),
            json!({"t": "Count"}),
        ],
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Keys {
    small: std::collections::BTreeMap<u8, bool>,
    signed: std::collections::BTreeMap<i16, bool>,
}

#[test]
fn integer_keys_are_json_integers() {
    let keys = st(
        "Keys",
        vec![
            f("small", map_of(u(8), Ty::Bool)),
            f("signed", map_of(i(16), Ty::Bool)),
        ],
    );
    let mut payloads = Vec::new();
    for key in [
        "5", "+5", "007", "0", "-0", "-3", "256", " 5", "5 ", "5.0", "1e2", "",
    ] {
        payloads.push(json!({"small": {key: true}, "signed": {}}));
        payloads.push(json!({"small": {}, "signed": {key: true}}));
    }
    agree::<Keys>(vec![keys], "Keys", &payloads);
}
