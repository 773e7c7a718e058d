//! What a `wirecheck check --format json` report decided, without the names of what it compared
//! against: shared by the registry tests and `cargo xtask realworld --registry` (which includes this
//! file), which compare a registry baseline's verdicts with a tag's.

use serde_json::Value;

/// Per protocol its versions, bump and verdict, and each finding but for its baseline's name, message
/// text and anchor.
pub fn verdicts(report: &Value) -> Value {
    let protocols: Vec<Value> = (report["protocols"].as_array().into_iter().flatten())
        .map(|p| {
            let findings: Vec<Value> = (p["findings"].as_array().into_iter().flatten())
                .map(|f| {
                    let mut f = f.clone();
                    if let Some(object) = f.as_object_mut() {
                        for key in ["against", "message", "anchor"] {
                            object.remove(key);
                        }
                    }
                    f
                })
                .collect();
            serde_json::json!({
                "name": p["name"], "old_version": p["old_version"], "new_version": p["new_version"],
                "required_bump": p["required_bump"], "ok": p["ok"], "findings": findings,
            })
        })
        .collect();
    serde_json::json!({"ok": report["ok"], "protocols": protocols})
}
