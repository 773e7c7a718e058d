//! Comparing payloads: whether what the current release writes still contains what an old release wrote.

use std::collections::BTreeSet;

use serde_json::{Number, Value};

/// At most 2000 characters of a payload.
pub(super) fn shorten(text: &str) -> String {
    const MAX: usize = 2000;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Whether `new` contains `old` (see the [module docs](super)): every key of `old`, with the same value,
/// recursively, and nothing else when `strict`; on failure `path` points at the difference.
pub(super) fn contains(
    old: &Value,
    new: &Value,
    strict: bool,
    path: &mut String,
) -> Result<(), String> {
    match (old, new) {
        (Value::Object(old_object), Value::Object(new_object)) => {
            for (key, old_value) in old_object {
                let Some(new_value) = new_object.get(key) else {
                    return Err(format!(
                        "key `{key}` is missing (the old payload has {old_value})"
                    ));
                };
                let len = path.len();
                path.push('.');
                path.push_str(key);
                contains(old_value, new_value, strict, path)?;
                path.truncate(len);
            }
            if strict {
                let added: BTreeSet<&String> = new_object
                    .keys()
                    .filter(|key| !old_object.contains_key(*key))
                    .collect();
                if !added.is_empty() {
                    let added: Vec<String> =
                        added.into_iter().map(|key| format!("`{key}`")).collect();
                    return Err(format!(
                        "keys {} are added, and a type of the old message denies unknown fields",
                        added.join(", ")
                    ));
                }
            }
            Ok(())
        }
        (Value::Array(old_elements), Value::Array(new_elements)) => {
            if old_elements.len() != new_elements.len() {
                return Err(format!(
                    "{} elements instead of {}",
                    new_elements.len(),
                    old_elements.len()
                ));
            }
            for (index, (old_value, new_value)) in old_elements.iter().zip(new_elements).enumerate()
            {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                contains(old_value, new_value, strict, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Number(old_number), Value::Number(new_number)) => {
            same_number(old_number, new_number)
        }
        _ if old == new => Ok(()),
        _ => Err(format!("{old} became {new}")),
    }
}

/// Whether a number is written the same: an integer must stay an integer, since integer readers reject `1.0`.
fn same_number(old: &Number, new: &Number) -> Result<(), String> {
    let old_is_integer = old.is_i64() || old.is_u64();
    let new_is_integer = new.is_i64() || new.is_u64();
    let same = match (old_is_integer, new_is_integer) {
        (true, true) => as_i128(old) == as_i128(new),
        (true, false) => {
            return Err(format!(
                "the integer {old} became the float {new}, which integer readers reject"
            ));
        }
        _ => old.as_f64() == new.as_f64(),
    };
    if same {
        Ok(())
    } else {
        Err(format!("{old} became {new}"))
    }
}

fn as_i128(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(old: Value, new: Value, strict: bool) -> Result<(), String> {
        let mut path = String::from("$");
        contains(&old, &new, strict, &mut path).map_err(|e| format!("{path}: {e}"))
    }

    #[test]
    fn containment() {
        assert_eq!(
            check(json!({"a": 1}), json!({"a": 1, "b": 2}), false),
            Ok(())
        );
        assert!(
            check(json!({"a": 1}), json!({"a": 1, "b": 2}), true)
                .unwrap_err()
                .contains("`b` are added")
        );
        assert_eq!(
            check(
                json!({"a": {"b": [1, 2]}}),
                json!({"a": {"b": [1, 3]}}),
                false
            ),
            Err("$.a.b[1]: 2 became 3".to_owned())
        );
        assert!(
            check(json!({"t": 1}), json!({"t": 1.0}), false)
                .unwrap_err()
                .contains("integer readers reject")
        );
        assert_eq!(check(json!({"t": 1.0}), json!({"t": 1}), false), Ok(()));
        assert!(
            check(json!({"a": null}), json!({}), false)
                .unwrap_err()
                .contains("key `a` is missing")
        );
        assert!(check(json!([1]), json!([1, 1]), false).is_err());
    }
}
