//! `wirecheck schema` against the real codec, over the differential pairs: every JSON payload the batch
//! binary generated (a value of the writer's type, serialized by serde_json) must validate against the
//! writer's schema, and the reader's schema must accept it exactly when serde_json's reader does, except
//! where the schema says it cannot tell (a value read through code wirecheck does not read, or parsed
//! into a domain): there it may accept what the reader rejects, never the reverse.

use std::collections::BTreeMap;
use std::io::Write as _;

use serde_json::Value;
use wirecheck::extract::snapshot_from_sources;
use wirecheck::model::Snapshot;
use wirecheck::schema::{SchemaRole, message_schema};

use crate::batch::Line;
use crate::mutate::Pair;

/// What the schemas said of the generated JSON payloads.
#[derive(Debug, Default)]
pub struct SchemaVerdicts {
    /// Pairs whose schemas could not be written or compiled (the engine read them: so must the schema).
    pub schema_errors: Vec<String>,
    /// Payloads checked.
    pub payloads: usize,
    /// Payloads serde_json's reader rejects that the reader's schema rejects too.
    pub rejected: usize,
    /// A generated payload the writer's schema rejects.
    pub writer_rejects: Vec<String>,
    /// A payload serde_json's reader accepts that the reader's schema rejects.
    pub reader_too_narrow: Vec<String>,
    /// A payload serde_json's reader rejects that the reader's schema accepts, where the schema says
    /// nothing of why it cannot tell.
    pub reader_too_wide: Vec<String>,
    /// The same, where the schema says it cannot tell (an opaque part, a parsed domain).
    pub reader_wide_as_said: usize,
    /// The same, for a payload holding a float of no fraction (`0.0`): JSON Schema compares numbers by
    /// value, so an integer's schema takes it, where serde_json's integer reader asks for an integer's
    /// text.
    pub reader_wide_integral_float: usize,
}

/// Whether `value` holds a float written with a fraction of zero (`3.0`).
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

/// The writer's and the reader's validators of one side's message, and whether the reader's schema says
/// it takes more than the reader does.
struct SideSchemas {
    writer: jsonschema::Validator,
    reader: jsonschema::Validator,
    reader_is_wider: bool,
}

/// Words of the descriptions by which a schema says it takes values the reader may reject.
const WIDER: &[&str] = &[
    "not read by wirecheck",
    "does not read",
    "could not be resolved",
    "cannot say",
    "may reject",
    "too deep",
    "cannot see into",
    "goes through",
];

/// The schemas of the message of one side's source (the engine extracted it already: it extracts).
fn side_schemas(source: &str) -> Result<SideSchemas, String> {
    let model: Snapshot =
        snapshot_from_sources("pair", &[("src/lib.rs", source)]).map_err(|e| e.to_string())?;
    let message = model.messages.first().ok_or("no message")?;
    let compile = |role| -> Result<(jsonschema::Validator, Value), String> {
        let schema = message_schema(&model, message, role).ok_or("no schema of a JSON protocol")?;
        jsonschema::meta::validate(&schema).map_err(|e| format!("{role:?}: not a schema: {e}"))?;
        let validator = jsonschema::validator_for(&schema).map_err(|e| format!("{role:?}: {e}"))?;
        Ok((validator, schema))
    };
    let (writer, _) = compile(SchemaRole::Writer)?;
    let (reader, reader_schema) = compile(SchemaRole::Reader)?;
    let text = reader_schema.to_string();
    Ok(SideSchemas {
        writer,
        reader,
        reader_is_wider: WIDER.iter().any(|w| text.contains(w)),
    })
}

/// Checks every generated JSON payload of `lines` against the schemas of its pair's sides.
pub fn check(
    sources: &BTreeMap<String, (String, String, &Pair)>,
    lines: &[Line],
) -> SchemaVerdicts {
    let mut verdicts = SchemaVerdicts::default();
    let mut schemas: BTreeMap<&str, Option<[SideSchemas; 2]>> = BTreeMap::new();
    for line in lines.iter().filter(|l| l.fmt == "json" && l.src == "gen") {
        let (Some(payload), Some((old, new, _))) = (&line.payload, sources.get(&line.pair)) else {
            continue;
        };
        let sides = schemas.entry(&line.pair).or_insert_with(|| {
            let sides = side_schemas(&super::engine_source(old))
                .and_then(|old| Ok([old, side_schemas(&super::engine_source(new))?]));
            sides
                .map_err(|e| verdicts.schema_errors.push(format!("{}: {e}", line.pair)))
                .ok()
        });
        let Some([old_side, new_side]) = sides else {
            continue;
        };
        let (writer, reader) = if line.dir == "onr" {
            (&*new_side, &*old_side)
        } else {
            (&*old_side, &*new_side)
        };
        let Ok(value) = serde_json::from_str::<Value>(payload) else {
            continue;
        };
        let at = format!("{} {}: {payload}", line.pair, line.dir);
        verdicts.payloads += 1;
        if let Err(error) = writer.writer.validate(&value) {
            let path = error.instance_path().to_string();
            verdicts
                .writer_rejects
                .push(format!("{at}: {error} at {path}"));
        }
        match (reader.reader.is_valid(&value), line.read_err.as_deref()) {
            (true, None) => {}
            (false, Some(_)) => verdicts.rejected += 1,
            (false, None) => verdicts.reader_too_narrow.push(at),
            (true, Some(_)) if reader.reader_is_wider => verdicts.reader_wide_as_said += 1,
            (true, Some(_)) if has_integral_float(&value) => {
                verdicts.reader_wide_integral_float += 1;
            }
            (true, Some(error)) => verdicts.reader_too_wide.push(format!("{at} ({error})")),
        }
    }
    verdicts
}

/// Prints what the schemas said and fails on every disagreement with serde_json.
pub fn assert_agree(verdicts: &SchemaVerdicts) {
    // Uncaptured, as the differential's own summary.
    let _ = writeln!(
        std::io::stderr(),
        "schemas: {} generated JSON payloads, each valid against the writer's schema ({} failing), the \
         reader's schema agreeing with serde_json ({} rejected by both; {} taken by a schema that says \
         it cannot tell, {} floats of no fraction taken as integers, {} too narrow, {} too wide)",
        verdicts.payloads,
        verdicts.writer_rejects.len(),
        verdicts.rejected,
        verdicts.reader_wide_as_said,
        verdicts.reader_wide_integral_float,
        verdicts.reader_too_narrow.len(),
        verdicts.reader_too_wide.len(),
    );
    assert!(
        verdicts.schema_errors.is_empty(),
        "pairs without valid schemas:\n{}",
        verdicts.schema_errors.join("\n")
    );
    let show = |list: &[String]| list.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(
        verdicts.writer_rejects.is_empty(),
        "payloads the writer wrote that its schema rejects:\n{}",
        show(&verdicts.writer_rejects)
    );
    assert!(
        verdicts.reader_too_narrow.is_empty(),
        "payloads serde_json reads that the reader's schema rejects:\n{}",
        show(&verdicts.reader_too_narrow)
    );
    assert!(
        verdicts.reader_too_wide.is_empty(),
        "payloads serde_json rejects that the reader's schema takes, saying nothing:\n{}",
        show(&verdicts.reader_too_wide)
    );
    assert!(
        verdicts.payloads >= 1000,
        "only {} JSON payloads",
        verdicts.payloads
    );
}
