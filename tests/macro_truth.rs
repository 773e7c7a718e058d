#![cfg(feature = "checker")]
//! Types a crate's own `macro_rules!` generates, checked against real serde_json: the fixtures'
//! sources are compiled here (the macros expanded by rustc) and extracted by wirecheck (expanded by
//! its own expander). Every witness of a major finding must be written by the writer's release and
//! rejected by the reader's; where wirecheck finds nothing, every value each release writes must be
//! read by the other.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};

macro_rules! sides {
    ($name:ident, $dir:literal) => {
        #[allow(dead_code)]
        mod $name {
            pub const DIR: &str = $dir;
            pub mod old {
                include!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/",
                    $dir,
                    "/old/lib.rs"
                ));
            }
            pub mod new {
                include!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/",
                    $dir,
                    "/new/lib.rs"
                ));
            }
        }
    };
}

sides!(added, "variant_added_without_other__macro_generated_tags");
sides!(rewritten, "none__macro_generated_tags_rewritten");

/// wirecheck's findings between a fixture's two sources.
fn findings(dir: &str) -> Vec<Finding> {
    let read = |side: &str| {
        let path = format!(
            "{}/tests/fixtures/{dir}/{side}/lib.rs",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        snapshot_from_sources("fixture", &[("src/lib.rs", text.as_str())])
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let (old, new) = (read("old"), read("new"));
    // The generated types are seen, with what their hand-written impls write.
    for snapshot in [&old, &new] {
        for name in ["Csv", "Json"] {
            let path = format!("fixture::{name}");
            assert!(snapshot.types.contains_key(&path), "{dir}: no {path}");
        }
        assert_eq!(snapshot.notes, Vec::new(), "{dir}");
    }
    compare_protocol(&old, &new, "p", "v0.1.0", Scope::Full)
}

/// Whether `W` writes `witness` (it reads it and writes it back the same) and `R` rejects it.
fn rejected<W: Serialize + DeserializeOwned, R: DeserializeOwned>(
    witness: &Value,
) -> Result<(), String> {
    let written: W = serde_json::from_value(witness.clone())
        .map_err(|e| format!("the writer does not produce {witness}: {e}"))?;
    let again = serde_json::to_value(&written).map_err(|e| e.to_string())?;
    if &again != witness {
        return Err(format!("the writer writes {again}, not {witness}"));
    }
    match serde_json::from_value::<R>(witness.clone()) {
        Ok(_) => Err(format!("the reader reads {witness}")),
        Err(_) => Ok(()),
    }
}

/// Whether `R` reads what `W` writes of `value`.
fn reads<W: Serialize, R: DeserializeOwned>(value: &W) -> Result<(), String> {
    let json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    serde_json::from_value::<R>(json.clone())
        .map(|_| ())
        .map_err(|e| format!("{json}: {e}"))
}

#[test]
fn a_tag_type_added_by_the_macro_is_rejected_by_old_readers() {
    use added::{new, old};
    let found = findings(added::DIR);
    let majors: Vec<&Finding> = found.iter().filter(|f| f.level == Level::Major).collect();
    assert!(!majors.is_empty(), "{found:#?}");
    for finding in majors {
        let witness = finding
            .witness
            .as_ref()
            .expect("a major finding has a witness");
        let verdict = match finding.direction {
            Some(Direction::OldReadsNew) => rejected::<new::Export, old::Export>(witness),
            Some(Direction::NewReadsOld) => rejected::<old::Export, new::Export>(witness),
            None => Err("no direction".to_owned()),
        };
        verdict.unwrap_or_else(|e| panic!("{}: {e}", finding.message));
    }
    // The other direction works: the new release reads every format the old one writes.
    for format in [
        old::ExportFormat::Csv(old::Csv),
        old::ExportFormat::Json(old::Json),
    ] {
        let export = old::Export { format, rows: 3 };
        reads::<old::Export, new::Export>(&export).unwrap();
    }
    assert!(
        found
            .iter()
            .all(|f| f.direction != Some(Direction::NewReadsOld) || f.level != Level::Major),
        "{found:#?}"
    );
}

#[test]
fn a_macro_rewritten_with_the_same_wire_is_no_finding() {
    use rewritten::{new, old};
    assert_eq!(findings(rewritten::DIR), Vec::new());
    for (format, again) in [
        (
            old::ExportFormat::Csv(old::Csv),
            new::ExportFormat::Csv(new::Csv),
        ),
        (
            old::ExportFormat::Json(old::Json),
            new::ExportFormat::Json(new::Json),
        ),
    ] {
        let (before, after) = (
            old::Export { format, rows: 1 },
            new::Export {
                format: again,
                rows: 1,
            },
        );
        assert_eq!(
            serde_json::to_value(&before).unwrap(),
            serde_json::to_value(&after).unwrap()
        );
        reads::<old::Export, new::Export>(&before).unwrap();
        reads::<new::Export, old::Export>(&after).unwrap();
    }
    // Each release's tag types read only their own string.
    let wrong = serde_json::json!({ "format": "text/plain", "rows": 1 });
    assert!(serde_json::from_value::<old::Export>(wrong.clone()).is_err());
    assert!(serde_json::from_value::<new::Export>(wrong).is_err());
}
