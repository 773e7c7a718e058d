//! The derive's reading against the hand-written one, on any JSON: every object and array in it, each
//! object also in other orders of its keys, read both ways, the same value or both an error. The tests
//! of this module use it on a corpus; wirecheck's own tests (`extract::read_back_tests`) on every
//! fixture's extracted model, through the `derive-check` feature.

use std::fmt::Debug;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use super::Tagged;
use crate::model::{Body, EnumRepr, Ty};

/// The derive's reading of `json` (the buffered twin), as `serde_json::from_str` would call it.
pub(super) fn derived<T: Tagged>(json: &str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let value = T::buffered(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The same value or both an error, through borrowed strings, owned ones (a reader) and `Value`.
pub(super) fn agree<T: Tagged + for<'de> Deserialize<'de> + PartialEq + Debug>(json: &str) {
    let fast = serde_json::from_str::<T>(json);
    match (&fast, derived::<T>(json)) {
        (Ok(a), Ok(b)) => assert_eq!(a, &b, "{json}"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("{json}: fast {a:?}, derived {b:?}"),
    }
    let from_reader = serde_json::from_reader::<_, T>(json.as_bytes());
    assert_eq!(from_reader.ok(), fast.ok(), "{json} (from a reader)");
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(json) {
        let fast = serde_json::from_value::<T>(value.clone()).ok();
        assert_eq!(fast, T::buffered(value).ok(), "{json} (from a Value)");
    }
}

/// Every object and array in `json`, each object also in other orders of its keys, reads as the
/// derive reads it, as each of the three enums (the same value or both an error).
pub fn reads_as_the_derive(json: &str) {
    let mut corpus = Vec::new();
    walk(json, &mut corpus);
    corpus.iter().for_each(|json| agree_on(json));
}

pub(super) fn agree_on(json: &str) {
    agree::<Ty>(json);
    agree::<Body>(json);
    agree::<EnumRepr>(json);
}

/// `json`, and every object and array in it, each object also in other orders of its keys.
pub(super) fn walk(json: &str, out: &mut Vec<String>) {
    visit(json, &mut |json, entries| {
        out.push(json.to_owned());
        if let Some(entries) = entries {
            out.extend(orders(entries).into_iter().skip(1));
        }
    });
}

/// An object's entries in their order.
pub(super) type Entries<'a> = [(String, &'a RawValue)];

/// Calls `found` with `json` and every value in it, and an object's entries.
pub(super) fn visit(json: &str, found: &mut dyn FnMut(&str, Option<&Entries<'_>>)) {
    if let Some(entries) = entries(json) {
        found(json, Some(&entries));
        for (_, value) in &entries {
            visit(value.get(), found);
        }
    } else {
        found(json, None);
        if let Ok(elements) = serde_json::from_str::<Vec<&RawValue>>(json) {
            for element in elements {
                visit(element.get(), found);
            }
        }
    }
}

/// The object's entries in order: as given, reversed, the first key last, the last key first.
pub(super) fn orders(entries: &[(String, &RawValue)]) -> Vec<String> {
    let mut orders = vec![entries.to_vec()];
    orders.push(entries.iter().rev().cloned().collect());
    let mut rotated = entries.to_vec();
    rotated.rotate_left(1.min(entries.len()));
    orders.push(rotated.clone());
    rotated.rotate_right(2.min(entries.len()));
    orders.push(rotated);
    orders.iter().map(|o| object(o)).collect()
}

pub(super) fn object(entries: &[(String, &RawValue)]) -> String {
    let entries: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).expect("a key"), v.get()))
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// The entries of a JSON object in their order (serde_json's `Map` sorts them), `None` for another value.
pub(super) fn entries(json: &str) -> Option<Vec<(String, &RawValue)>> {
    struct Ordered<'a>(Vec<(String, &'a RawValue)>);
    impl<'de> Deserialize<'de> for Ordered<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Ordered<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Ordered<'de>, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        entries.push(entry);
                    }
                    Ok(Ordered(entries))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_str::<Ordered<'_>>(json).ok().map(|e| e.0)
}
