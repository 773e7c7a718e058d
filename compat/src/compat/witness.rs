//! Building witness payloads: a writer's sample with one part replaced by the witness found below it.

use serde_json::{Map, Value, json};

/// An integer as a JSON number, when it fits one.
pub fn int_value(i: i128) -> Option<Value> {
    if let Ok(v) = i64::try_from(i) {
        Some(json!(v))
    } else {
        u64::try_from(i).ok().map(|v| json!(v))
    }
}

/// `base` with `key` set to `value`.
pub fn with_key(base: &Option<Map<String, Value>>, key: &str, value: Value) -> Option<Value> {
    base.as_ref().map(|m| {
        let mut m = m.clone();
        m.insert(key.to_owned(), value);
        Value::Object(m)
    })
}

/// `base` with the keys of the object `value` merged in (a value that is no object replaces it).
pub fn merged(base: &Option<Map<String, Value>>, value: Value) -> Option<Value> {
    let mut m = base.clone()?;
    match value {
        Value::Object(o) => m.extend(o),
        other => return Some(other),
    }
    Some(Value::Object(m))
}

/// `base` without `key`.
pub fn without_key(base: &Option<Map<String, Value>>, key: &str) -> Option<Value> {
    base.as_ref().map(|m| {
        let mut m = m.clone();
        m.remove(key);
        Value::Object(m)
    })
}

/// The array `base` with element `index` replaced by `value`.
pub fn with_element(base: &Option<Value>, index: usize, value: Value) -> Option<Value> {
    match base {
        Some(Value::Array(a)) if index < a.len() => {
            let mut a = a.clone();
            a[index] = value;
            Some(Value::Array(a))
        }
        _ => None,
    }
}

/// An object of one entry.
pub fn single_entry(key: String, value: Value) -> Value {
    let mut m = Map::new();
    m.insert(key, value);
    Value::Object(m)
}
