//! The engine bugs the generated pairs found, each as a minimal case checked both ways: the engine's
//! verdict, and what the real crates do with the payload (so the case cannot pass with a wrong verdict).

use serde::{Deserialize, Serialize};
use wirecheck::findings::{Direction, Finding, Level};

use super::engine;

/// The major findings of the pair in direction `d`.
fn major(old: &str, new: &str, d: Direction) -> Vec<Finding> {
    engine(old, new)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .filter(|f| f.level == Level::Major && f.direction == Some(d))
        .collect()
}

/// A message with the one field `f` of type `ty` under `attrs` (and container attributes `container`).
fn message(container: &str, attrs: &str, ty: &str) -> String {
    format!(
        "{container}#[derive(Serialize, Deserialize)]\n//@message\npub struct M {{\n    {attrs}\n    pub f: {ty},\n}}\n"
    )
}

/// The witness's field `f`.
fn witness_f(f: &Finding) -> serde_json::Value {
    let w = f
        .witness
        .as_ref()
        .unwrap_or_else(|| panic!("no witness: {}", f.message));
    w.get("f").cloned().unwrap_or_else(|| w.clone())
}

/// rust_decimal reads a string that parses, an integer, or a float whose text fits its 96 bits: a
/// `String` or an `f64` read as a `Decimal` breaks new-reads-old, with a value the writer writes and
/// `Decimal` rejects (the engine tried only the writer's samples against the reads, and took every
/// float).
#[test]
fn string_and_float_read_as_decimal_break_where_decimal_rejects() {
    let decimal = message("", "", "rust_decimal::Decimal");
    for from in ["String", "f64"] {
        let found = major(&message("", "", from), &decimal, Direction::NewReadsOld);
        assert_eq!(found.len(), 1, "{from}: {found:#?}");
        let witness = witness_f(&found[0]);
        assert!(
            serde_json::from_value::<rust_decimal::Decimal>(witness.clone()).is_err(),
            "{from}: {witness}"
        );
        let written = match from {
            "String" => {
                serde_json::to_value(serde_json::from_value::<String>(witness.clone()).unwrap())
            }
            _ => serde_json::to_value(serde_json::from_value::<f64>(witness.clone()).unwrap()),
        };
        assert_eq!(written.unwrap(), witness, "{from}: the writer writes it");
    }
    // Both read what the decimal writes? The String does; the f64 does not.
    let text = serde_json::to_value(rust_decimal::Decimal::new(1250, 2)).unwrap();
    serde_json::from_value::<String>(text.clone()).unwrap();
    assert!(serde_json::from_value::<f64>(text).is_err());
    assert!(major(&message("", "", "String"), &decimal, Direction::OldReadsNew).is_empty());
}

/// A `Uuid` read as a `Decimal` (a refined string read by a reader that tries several forms) breaks:
/// the engine judged the writer by its sample, which its optimistic decoder let through.
#[test]
fn uuid_read_as_decimal_breaks() {
    let found = major(
        &message("", "", "uuid::Uuid"),
        &message("", "", "rust_decimal::Decimal"),
        Direction::NewReadsOld,
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let witness = witness_f(&found[0]);
    serde_json::from_value::<uuid::Uuid>(witness.clone()).unwrap();
    assert!(serde_json::from_value::<rust_decimal::Decimal>(witness).is_err());
}

#[serde_with::serde_as]
#[serde_with::skip_serializing_none]
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Limits {
    #[serde_as(as = "Option<serde_with::DisplayFromStr>")]
    f: Option<u64>,
}

/// `Option<DisplayFromStr>` under `#[skip_serializing_none]`, unchanged, is no change (the engine
/// compared the writer's refined string by its base against the reader's `Option`, and reported
/// `value_domain_narrowed` with a witness neither side writes).
#[test]
fn an_optional_display_from_str_skipped_when_none_is_no_change() {
    let old = message(
        "#[serde_with::serde_as]\n#[serde_with::skip_serializing_none]\n",
        "#[serde_as(as = \"Option<serde_with::DisplayFromStr>\")]",
        "Option<u64>",
    );
    // Another change beside it, so that the message is compared field by field.
    let new = old.replace("}\n", "    #[serde(default)]\n    pub g: u32,\n}\n");
    for d in [Direction::OldReadsNew, Direction::NewReadsOld] {
        let found = major(&old, &new, d);
        assert!(found.is_empty(), "{d}: {found:#?}");
    }
    for value in [Limits { f: None }, Limits { f: Some(7) }] {
        let text = serde_json::to_string(&value).unwrap();
        assert_eq!(serde_json::from_str::<Limits>(&text).unwrap(), value);
    }
}

#[serde_with::serde_as]
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct DisplayedId {
    #[serde_as(as = "serde_with::DisplayFromStr")]
    f: uuid::Uuid,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct PlainId {
    f: uuid::Uuid,
}

#[serde_with::serde_as]
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct DisplayedChar {
    #[serde_as(as = "serde_with::DisplayFromStr")]
    f: char,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct PlainChar {
    f: char,
}

/// `DisplayFromStr` over a type with a human-readable string form (`Uuid`, `Ipv4Addr`) writes that form,
/// and over a `char` the one-character string a `char` is: in JSON nothing changes (the engine compared
/// the adapter over the first as an opaque type, and over a `char` as a string only some `char`s write).
#[test]
fn display_from_str_over_a_readable_type_is_its_string() {
    let id = uuid::Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8);
    assert_eq!(
        serde_json::to_value(DisplayedId { f: id }).unwrap(),
        serde_json::to_value(PlainId { f: id }).unwrap()
    );
    for c in ['a', '\u{e9}'] {
        let text = serde_json::to_string(&PlainChar { f: c }).unwrap();
        assert_eq!(
            serde_json::to_string(&DisplayedChar { f: c }).unwrap(),
            text
        );
        assert_eq!(serde_json::from_str::<DisplayedChar>(&text).unwrap().f, c);
    }
    for text in [r#"{"f":""}"#, r#"{"f":"ab"}"#] {
        assert!(serde_json::from_str::<PlainChar>(text).is_err());
        assert!(serde_json::from_str::<DisplayedChar>(text).is_err());
    }
    for ty in ["uuid::Uuid", "std::net::Ipv4Addr", "char"] {
        let plain = message("", "", ty);
        let displayed = message(
            "#[serde_with::serde_as]\n",
            "#[serde_as(as = \"serde_with::DisplayFromStr\")]",
            ty,
        );
        for d in [Direction::OldReadsNew, Direction::NewReadsOld] {
            let found = major(&plain, &displayed, d);
            assert!(found.is_empty(), "{ty} {d}: {found:#?}");
        }
    }
}

#[serde_with::serde_as]
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Ids {
    #[serde_as(as = "serde_with::DefaultOnNull<_>")]
    f: Vec<uuid::Uuid>,
}

/// A `Vec<String>` read as `Vec<Uuid>` through `DefaultOnNull` (a reader of several forms with a refined
/// value inside) breaks new-reads-old: the engine tried only the writer's samples, not the values the
/// read's domain leaves out.
#[test]
fn strings_read_as_uuids_through_default_on_null_break() {
    let found = major(
        &message("", "", "Vec<String>"),
        &message(
            "#[serde_with::serde_as]\n",
            "#[serde_as(as = \"serde_with::DefaultOnNull<_>\")]",
            "Vec<uuid::Uuid>",
        ),
        Direction::NewReadsOld,
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let witness = found[0].witness.clone().expect("a witness");
    let strings: Vec<String> = serde_json::from_value(witness["f"].clone()).unwrap();
    assert_eq!(serde_json::to_value(&strings).unwrap(), witness["f"]);
    assert!(serde_json::from_value::<Ids>(witness).is_err());
    assert_eq!(
        serde_json::from_str::<Ids>(r#"{"f":null}"#).unwrap(),
        Ids { f: Vec::new() }
    );
}

/// A field whose new type is read through `deserialize_with` is still written by the derive: `u32` ->
/// `Option<u32>` with a `deserialize_with` breaks old-reads-new (`None` is `null`); the engine compared
/// no types at a field with any custom function.
#[test]
fn a_deserialize_with_leaves_the_written_type_compared() {
    let found = major(
        &message("", "", "u32"),
        &message(
            "",
            "#[serde(deserialize_with = \"crate::helpers::de_opt\")]",
            "Option<u32>",
        ),
        Direction::OldReadsNew,
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let witness = witness_f(&found[0]);
    assert_eq!(witness, serde_json::Value::Null);
    assert_eq!(serde_json::to_value(None::<u32>).unwrap(), witness);
    assert!(serde_json::from_value::<u32>(witness).is_err());
}
