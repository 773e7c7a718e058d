//! Schemas of the protocols for peers in other languages: for each message, a JSON Schema (draft 2020-12)
//! of what its writer can produce and one of what its reader accepts, and an AsyncAPI 3.0 document of a
//! protocol (`wirecheck schema`).
//!
//! A report-like stage: it reads the protocol model and asks the engine's serde model (`compat`) what each
//! type is on the wire in each role, so that a schema says what the comparison decides. The two schemas
//! differ where serde does: a reader fills in defaults and `Option`s, takes aliases and, unless
//! `deny_unknown_fields`, unknown keys, tries untagged variants in order, sends unknown tags to
//! `#[serde(other)]`; a writer leaves `skip_serializing_if` keys out. A type whose impls wirecheck cannot
//! read gets the schema every value meets, `{}`, with a `description` saying why: never a guess.
//!
//! JSON Schema describes JSON: a protocol of another format has no schemas (its entry says so).

mod asyncapi;
mod builder;
mod enums;
mod objects;

use serde_json::{Map, Value, json};

use crate::Format;
use crate::compat::{Role, SideRef};
use crate::findings::Side;
use crate::model::{MessageDecl, ModelView, ProtocolDecl, Snapshot, Ty};

pub use asyncapi::asyncapi;

/// The JSON Schema dialect of every schema written here.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The version of the layout of `wirecheck schema --format json-schema`'s document.
pub const LAYOUT_VERSION: u32 = 1;

/// Which side of the wire a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaRole {
    /// Every payload the writer's types can produce.
    Writer,
    /// Every payload the reader's types accept.
    Reader,
}

impl SchemaRole {
    /// `writer` / `reader`.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaRole::Writer => "writer",
            SchemaRole::Reader => "reader",
        }
    }

    fn role(self) -> Role {
        match self {
            SchemaRole::Writer => Role::Writer,
            SchemaRole::Reader => Role::Reader,
        }
    }
}

/// Why schemas could not be written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemaError {
    /// A protocol named on the command line is not declared.
    #[error("no protocol `{name}` is declared: name one of {known}")]
    UnknownProtocol {
        /// The name asked for.
        name: String,
        /// The declared protocols, listed.
        known: String,
    },
    /// An AsyncAPI document describes one protocol, and several are declared.
    #[error("an AsyncAPI document describes one protocol: name one with --protocol ({known})")]
    SeveralProtocols {
        /// The declared protocols, listed.
        known: String,
    },
    /// The model declares no protocol.
    #[error("no protocol is declared in this workspace (`#[derive(Protocol)]`)")]
    NoProtocol,
}

/// The standalone JSON Schema of the payloads of the type at `rust_path` in `role`, as the protocol's
/// format writes and reads them; `None` when that format is not JSON. `id` becomes its `$id`.
pub fn type_schema(
    model: &Snapshot,
    format: Format,
    rust_path: &str,
    role: SchemaRole,
    id: &str,
) -> Option<Value> {
    if format != Format::Json {
        return None;
    }
    let side = SideRef {
        model: ModelView::Whole(model),
        side: Side::New,
        format,
    };
    let mut builder = builder::Builder::new(side, role.role());
    let root = builder.schema(&Ty::Named {
        path: rust_path.to_owned(),
        args: Vec::new(),
    });
    let defs = builder.into_defs();
    let mut schema = Map::new();
    schema.insert("$schema".to_owned(), json!(DIALECT));
    schema.insert("$id".to_owned(), json!(id));
    if let Value::Object(root) = root {
        schema.extend(root);
    }
    if !defs.is_empty() {
        schema.insert("$defs".to_owned(), json!(defs));
    }
    Some(Value::Object(schema))
}

/// The standalone JSON Schema of `message`'s payloads in `role` (`None` for a protocol that is not JSON).
pub fn message_schema(model: &Snapshot, message: &MessageDecl, role: SchemaRole) -> Option<Value> {
    let protocol = model.protocol(&message.protocol)?;
    let id = schema_id(protocol, &message.rust_path, role);
    type_schema(model, protocol.format, &message.rust_path, role, &id)
}

/// A name of letters, digits, `.`, `-` and `_` (paths' `::` as `.`): what AsyncAPI takes as a
/// component or channel key (`^[\w\d.\-_]+$`), and what a schema's URN is made of.
pub(super) fn key(text: &str) -> String {
    text.replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A URN naming one schema: protocol, version, type and role.
fn schema_id(protocol: &ProtocolDecl, rust_path: &str, role: SchemaRole) -> String {
    format!(
        "urn:wirecheck:{}:{}:{}:{}",
        key(&protocol.name),
        key(&protocol.version.to_string()),
        key(rust_path),
        role.as_str()
    )
}

/// The protocols to describe: those named (each must be declared), or all.
fn selected<'m>(
    model: &'m Snapshot,
    names: &[String],
) -> Result<Vec<&'m ProtocolDecl>, SchemaError> {
    if model.protocols.is_empty() {
        return Err(SchemaError::NoProtocol);
    }
    if names.is_empty() {
        return Ok(model.protocols.iter().collect());
    }
    names
        .iter()
        .map(|name| {
            model
                .protocol(name)
                .ok_or_else(|| SchemaError::UnknownProtocol {
                    name: name.clone(),
                    known: known(model),
                })
        })
        .collect()
}

/// The declared protocols' names, listed.
fn known(model: &Snapshot) -> String {
    let names: Vec<&str> = model.protocols.iter().map(|p| p.name.as_str()).collect();
    names.join(", ")
}

/// `wirecheck schema --format json-schema`: for each protocol (those in `names`, or all), each message's
/// writer and reader schemas, standalone.
pub fn json_schemas(model: &Snapshot, names: &[String]) -> Result<Value, SchemaError> {
    let protocols: Vec<Value> = selected(model, names)?
        .into_iter()
        .map(|protocol| protocol_schemas(model, protocol))
        .collect();
    Ok(json!({
        "wirecheck_schemas": LAYOUT_VERSION,
        "dialect": DIALECT,
        "protocols": protocols,
    }))
}

/// One protocol's entry: its declaration and its messages' schemas.
fn protocol_schemas(model: &Snapshot, protocol: &ProtocolDecl) -> Value {
    let messages: Vec<Value> = model
        .messages_of(&protocol.name)
        .map(|message| {
            let mut entry = json!({
                "name": message.name,
                "rust_path": message.rust_path,
                "topic": message.topic,
                "kind": message.kind.as_str(),
                "response": message.response.as_str(),
            });
            if let Some(response) = &message.response_type {
                entry["response_type"] = json!(response);
            }
            for role in [SchemaRole::Writer, SchemaRole::Reader] {
                if let Some(schema) = message_schema(model, message, role) {
                    entry[role.as_str()] = schema;
                }
            }
            entry
        })
        .collect();
    let mut entry = json!({
        "name": protocol.name,
        "version": protocol.version.to_string(),
        "format": protocol.format.as_str(),
        "upgrade": protocol.upgrade.as_str(),
        "messages": messages,
    });
    if protocol.format != Format::Json {
        entry["note"] = json!(format!(
            "format `{}`: JSON Schema describes JSON payloads, so no schema is written",
            protocol.format
        ));
    }
    entry
}
