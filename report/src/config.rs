//! `wirecheck.toml` at the workspace root: suppressions for findings about things that no longer exist in
//! the source (a removed field cannot carry `#[wire(allow(...))]`), always with a reason.
//!
//! ```toml
//! [[allow]]
//! rule = "field_removed"            # a rule id (`wirecheck rules`)
//! message = "AllocRequest"          # the message type's name or its topic; the protocol's name for
//!                                   # protocol-level findings (protocol_removed, protocol_format_changed)
//! field = "t_submit"                # optional: the field or variant path (`jobs.priority`)
//! protocol = "sched"                # optional: when a type name is used by several protocols
//! reason = "no scheduler reads t_submit since flux-sched 0.30"   # required
//! until = "0.89.0"                  # optional: the allow expires once the protocol's version reaches it
//! ```
//!
//! An allowed finding is still reported, marked allowed with its reason, and does not raise the required
//! bump. Entries that match no finding, and entries whose `until` the protocol's new version has reached
//! (they no longer allow anything), are reported as notes in every output format.
//!
//! `[shapes]` declares the wire shape of types whose serde impls are written by hand (or by a macro), by
//! the type's full path, for types of crates the user does not own (a type of one's own declares it at the
//! type, with `#[wire(as = T)]`). The value is a Rust type, resolved from the crate root:
//!
//! ```toml
//! [shapes]
//! "some_crate::Level" = "String"
//! "some_crate::Id" = "u64"
//! ```

use semver::Version;
use serde::{Deserialize, Serialize};

use crate::findings::Finding;
use crate::model::Location;
use crate::rules::RuleId;

/// The file's name, at the workspace root.
pub const FILE_NAME: &str = "wirecheck.toml";

/// One `[[allow]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllowEntry {
    /// The rule allowed.
    pub rule: RuleId,
    /// The message type's name or topic (or the protocol's name for protocol-level findings).
    pub message: String,
    /// The field or variant path inside the message, when the allow is that narrow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The protocol, when the message name alone is ambiguous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Why the change is acceptable.
    pub reason: String,
    /// The protocol version from which the allow no longer applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Version>,
    /// Where the entry is written (its table, in [`FILE_NAME`]).
    pub location: Location,
}

impl AllowEntry {
    /// Whether the entry names this finding: same rule, the message by type name or topic (or the
    /// protocol's name when the finding concerns no message), the field if given, the protocol if given.
    pub fn matches(&self, finding: &Finding) -> bool {
        let message = if finding.message_type.is_empty() && finding.topic.is_empty() {
            finding.protocol == self.message
        } else {
            finding.message_type == self.message || finding.topic == self.message
        };
        finding.rule == self.rule
            && message
            && self
                .field
                .as_ref()
                .is_none_or(|field| finding.field.as_deref() == Some(field.as_str()))
            && self
                .protocol
                .as_ref()
                .is_none_or(|p| *p == finding.protocol)
    }

    /// Whether the allow has expired for a protocol now declared at `version`.
    pub fn expired_at(&self, version: Option<&Version>) -> bool {
        matches!((&self.until, version), (Some(until), Some(v)) if v >= until)
    }

    /// The reason as shown on an allowed finding: where the allow is written, then why.
    pub fn reason_label(&self) -> String {
        format!("{FILE_NAME}:{}: {}", self.location.line, self.reason)
    }

    /// `field_removed on AllocRequest.t_submit`, for notes.
    pub fn describe(&self) -> String {
        let mut s = format!("{} on {}", self.rule, self.message);
        if let Some(field) = &self.field {
            s.push('.');
            s.push_str(field);
        }
        if let Some(protocol) = &self.protocol {
            s.push_str(&format!(" (protocol {protocol})"));
        }
        s
    }
}

/// The parsed `wirecheck.toml` (empty when there is none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// The `[[allow]]` entries, in file order.
    pub allows: Vec<AllowEntry>,
    /// The file's text, kept so reports can show the entries that notes point at.
    pub text: String,
    /// The `[shapes]`: a type's full path (`some_crate::Level`) and the Rust type it is on the wire
    /// (`String`), as written (both checked to parse).
    pub shapes: std::collections::BTreeMap<String, String>,
}

/// Why `wirecheck.toml` cannot be used (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("{file}: cannot read: {message}")]
    Read {
        /// The path of `wirecheck.toml`.
        file: String,
        /// The I/O error.
        message: String,
    },
    /// The file is not valid TOML, or has an unknown key.
    #[error("{file}: {message}")]
    Syntax {
        /// The path of `wirecheck.toml`.
        file: String,
        /// The TOML parser's message (it names the line and column).
        message: String,
    },
    /// A `[shapes]` entry does not name a type path, or its value is not a Rust type.
    #[error("{file}: [shapes] \"{path}\" = \"{shape}\": {message}")]
    Shape {
        /// The path of `wirecheck.toml`.
        file: String,
        /// The entry's key.
        path: String,
        /// The entry's value.
        shape: String,
        /// What is wrong and what to write.
        message: String,
    },
    /// An `[[allow]]` entry is incomplete or wrong.
    #[error("{file}:{line}: [[allow]] entry {index} ({entry}): {message}")]
    Entry {
        /// The path of `wirecheck.toml`.
        file: String,
        /// The entry's line.
        line: u32,
        /// The entry's number, from 1.
        index: usize,
        /// What the entry says so far (`rule = "field_removed", message = "AllocRequest"`).
        entry: String,
        /// What is wrong and what to write.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    allow: Vec<toml::Spanned<RawAllow>>,
    #[serde(default)]
    shapes: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllow {
    rule: Option<String>,
    message: Option<String>,
    field: Option<String>,
    protocol: Option<String>,
    reason: Option<String>,
    until: Option<String>,
}

/// Reads `wirecheck.toml` from the workspace root; no file is an empty configuration.
pub fn load(workspace_root: &std::path::Path) -> Result<Config, ConfigError> {
    let path = workspace_root.join(FILE_NAME);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) => Err(ConfigError::Read {
            file: FILE_NAME.to_owned(),
            message: e.to_string(),
        }),
    }
}

/// Parses the text of a `wirecheck.toml`. Every entry needs `rule` (a rule of the catalogue), `message`
/// and a non-empty `reason`; `until` must be a semver version.
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        file: FILE_NAME.to_owned(),
        message: e.to_string().trim_end().to_owned(),
    })?;
    let mut allows = Vec::new();
    let RawFile {
        allow: raw_allows,
        shapes,
    } = raw;
    for (i, spanned) in raw_allows.into_iter().enumerate() {
        let span = spanned.span();
        let location = location_of(text, span.start, span.end);
        let raw = spanned.into_inner();
        let entry_error = |message: String| ConfigError::Entry {
            file: FILE_NAME.to_owned(),
            line: location.line,
            index: i + 1,
            entry: summary(&raw),
            message,
        };
        let Some(rule_id) = raw.rule.as_deref().filter(|r| !r.trim().is_empty()) else {
            return Err(entry_error(
                "`rule` is required: the rule id to allow (`wirecheck rules` lists them)".into(),
            ));
        };
        let rule = rule_id
            .parse::<RuleId>()
            .map_err(|unknown| entry_error(unknown.to_string()))?;
        let Some(message) = raw.message.clone().filter(|m| !m.trim().is_empty()) else {
            return Err(entry_error(
                "`message` is required: the message type's name or its topic (the protocol's name for protocol_removed)".into(),
            ));
        };
        let Some(reason) = raw.reason.clone().filter(|r| !r.trim().is_empty()) else {
            return Err(entry_error(
                "`reason` is required: say why this change is acceptable (reason = \"...\"); an allow without a reason is refused".into(),
            ));
        };
        let until = match &raw.until {
            None => None,
            Some(u) => Some(Version::parse(u).map_err(|e| {
                entry_error(format!(
                    "`until = \"{u}\"` is not a semver version ({e}); write it like \"0.89.0\""
                ))
            })?),
        };
        allows.push(AllowEntry {
            rule,
            message,
            field: raw.field.clone(),
            protocol: raw.protocol.clone(),
            reason,
            until,
            location,
        });
    }
    Ok(Config {
        allows,
        text: text.to_owned(),
        shapes: checked_shapes(shapes)?,
    })
}

/// The `[shapes]` entries, each key a type path and each value a Rust type.
fn checked_shapes(
    shapes: std::collections::BTreeMap<String, String>,
) -> Result<std::collections::BTreeMap<String, String>, ConfigError> {
    for (path, shape) in &shapes {
        let error = |message: String| ConfigError::Shape {
            file: FILE_NAME.to_owned(),
            path: path.clone(),
            shape: shape.clone(),
            message,
        };
        if syn::parse_str::<syn::Path>(path).is_err() || path.contains('<') {
            return Err(error(
                "the key is the type's full path without generic arguments, like \"some_crate::Level\"".into(),
            ));
        }
        if let Err(e) = syn::parse_str::<syn::Type>(shape) {
            return Err(error(format!(
                "the value is not a Rust type ({e}): write the type it is on the wire, like \"String\" or \"Vec<u8>\""
            )));
        }
    }
    Ok(shapes)
}

fn summary(raw: &RawAllow) -> String {
    let keys = [
        ("rule", &raw.rule),
        ("message", &raw.message),
        ("field", &raw.field),
        ("protocol", &raw.protocol),
    ];
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} = {v:?}")))
        .collect();
    if parts.is_empty() {
        "empty".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A location in the configuration file from a byte range.
fn location_of(text: &str, start: usize, end: usize) -> Location {
    let start = start.min(text.len());
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Location {
        file: FILE_NAME.to_owned(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        start,
        end: end.clamp(start, text.len()),
    }
}

/// What is wrong with an allow entry after the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowNoteKind {
    /// No finding matched the entry: it can be removed.
    Unused,
    /// The protocol's version reached the entry's `until`: it no longer allows anything.
    Expired,
}

/// A note about an `[[allow]]` entry, shown in every output format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllowNote {
    /// Unused or expired.
    pub kind: AllowNoteKind,
    /// The entry the note is about, with its place in the file.
    pub entry: AllowEntry,
    /// A sentence saying what happened and what to do.
    pub message: String,
}

impl AllowNote {
    /// The note for an entry no finding matched.
    pub fn unused(entry: &AllowEntry) -> Self {
        AllowNote {
            kind: AllowNoteKind::Unused,
            message: format!(
                "unused allow: no finding of {} in this check; remove the entry",
                entry.describe()
            ),
            entry: entry.clone(),
        }
    }

    /// The note for an entry whose `until` the protocol `protocol`, now at `version`, has reached.
    pub fn expired(entry: &AllowEntry, protocol: &str, version: &Version) -> Self {
        let until = entry
            .until
            .as_ref()
            .map_or_else(String::new, Version::to_string);
        AllowNote {
            kind: AllowNoteKind::Expired,
            message: format!(
                "expired allow: {} was allowed until {until} and {protocol} is now {version}, so the finding counts again; fix the change, or extend `until` with a new reason",
                entry.describe()
            ),
            entry: entry.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
# removed fields
[[allow]]
rule = "field_removed"
message = "AllocRequest"
field = "t_submit"
reason = "no scheduler reads t_submit"
until = "0.89.0"

[[allow]]
rule = "protocol_removed"
message = "overlay"
reason = "the overlay moved to the broker"
"#;

    #[test]
    fn parses_entries_with_their_lines() {
        let config = parse(GOOD).unwrap();
        assert_eq!(config.allows.len(), 2);
        let first = &config.allows[0];
        assert_eq!(first.rule, RuleId::FieldRemoved);
        assert_eq!(first.field.as_deref(), Some("t_submit"));
        assert_eq!(first.until, Some(Version::new(0, 89, 0)));
        assert_eq!(first.location.file, FILE_NAME);
        assert_eq!(first.location.line, 3);
        assert_eq!(
            &GOOD[first.location.start..first.location.start + 9],
            "[[allow]]"
        );
        assert_eq!(config.allows[1].location.line, 10);
        assert_eq!(
            first.reason_label(),
            "wirecheck.toml:3: no scheduler reads t_submit"
        );
    }

    #[test]
    fn no_file_is_empty() {
        let dir = std::env::temp_dir().join("wirecheck-config-none-such");
        assert_eq!(load(&dir).unwrap(), Config::default());
    }

    #[test]
    fn a_missing_reason_names_the_file_and_entry() {
        let text = "[[allow]]\nrule = \"field_removed\"\nmessage = \"A\"\nreason = \"ok\"\n\n[[allow]]\nrule = \"field_removed\"\nmessage = \"AllocRequest\"\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "wirecheck.toml:6: [[allow]] entry 2 (rule = \"field_removed\", message = \"AllocRequest\"): `reason` is required"
            ),
            "{err}"
        );
        let blank =
            parse("[[allow]]\nrule = \"field_removed\"\nmessage = \"A\"\nreason = \"  \"\n");
        assert!(matches!(blank, Err(ConfigError::Entry { index: 1, .. })));
    }

    #[test]
    fn unknown_rules_keys_and_versions_are_refused() {
        let err = parse("[[allow]]\nrule = \"feild_removed\"\nmessage = \"A\"\nreason = \"r\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no rule `feild_removed`"), "{err}");
        let err = parse(
            "[[allow]]\nrule = \"field_removed\"\nmessage = \"A\"\nreason = \"r\"\nreson = \"x\"\n",
        )
        .unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err}");
        assert!(err.to_string().contains("reson"), "{err}");
        let err = parse("[[allow]]\nrule = \"field_removed\"\nmessage = \"A\"\nreason = \"r\"\nuntil = \"soon\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`until = \"soon\"` is not a semver version"),
            "{err}"
        );
        let err = parse("[[allow]]\nmessage = \"A\"\nreason = \"r\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`rule` is required"), "{err}");
    }

    fn finding(rule: RuleId, message_type: &str, topic: &str, field: Option<&str>) -> Finding {
        Finding {
            rule,
            level: crate::findings::Level::Major,
            allowed: false,
            allow_reason: None,
            message: String::new(),
            protocol: "sched".into(),
            message_type: message_type.into(),
            topic: topic.into(),
            field: field.map(Into::into),
            wire_path: None,
            direction: None,
            against: "v0.87.0".into(),
            location: Location::default(),
            side: crate::findings::Side::Old,
            anchor: None,
            witness: None,
            known: false,
            reached_by: Vec::new(),
        }
    }

    #[test]
    fn matching_by_type_topic_field_and_protocol() {
        let config = parse(GOOD).unwrap();
        let entry = &config.allows[0];
        assert!(entry.matches(&finding(
            RuleId::FieldRemoved,
            "AllocRequest",
            "sched.alloc",
            Some("t_submit")
        )));
        let mut by_topic = entry.clone();
        by_topic.message = "sched.alloc".into();
        assert!(by_topic.matches(&finding(
            RuleId::FieldRemoved,
            "AllocRequest",
            "sched.alloc",
            Some("t_submit")
        )));
        assert!(!entry.matches(&finding(
            RuleId::FieldRemoved,
            "AllocRequest",
            "sched.alloc",
            Some("id")
        )));
        assert!(!entry.matches(&finding(
            RuleId::FieldAdded,
            "AllocRequest",
            "sched.alloc",
            Some("t_submit")
        )));
        let mut whole = entry.clone();
        whole.field = None;
        assert!(whole.matches(&finding(
            RuleId::FieldRemoved,
            "AllocRequest",
            "sched.alloc",
            Some("id")
        )));
        whole.protocol = Some("exec".into());
        assert!(!whole.matches(&finding(
            RuleId::FieldRemoved,
            "AllocRequest",
            "sched.alloc",
            Some("id")
        )));
        let mut removed = finding(RuleId::ProtocolRemoved, "", "", None);
        removed.protocol = "overlay".into();
        assert!(config.allows[1].matches(&removed));
    }

    #[test]
    fn expiry() {
        let entry = &parse(GOOD).unwrap().allows[0];
        assert!(!entry.expired_at(Some(&Version::new(0, 88, 3))));
        assert!(entry.expired_at(Some(&Version::new(0, 89, 0))));
        assert!(!entry.expired_at(None));
        let note = AllowNote::expired(entry, "sched", &Version::new(0, 89, 0));
        assert_eq!(note.kind, AllowNoteKind::Expired);
        assert!(
            note.message
                .contains("allowed until 0.89.0 and sched is now 0.89.0"),
            "{}",
            note.message
        );
    }

    #[test]
    fn shapes_map_paths_to_types() {
        let config =
            parse("[shapes]\n\"some_crate::Level\" = \"String\"\n\"ids::Id\" = \"Vec<u64>\"\n")
                .unwrap();
        assert_eq!(config.shapes["some_crate::Level"], "String");
        assert_eq!(config.shapes["ids::Id"], "Vec<u64>");
        let error = parse("[shapes]\n\"a::B\" = \"Vec<\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("[shapes] \"a::B\" = \"Vec<\": the value is not a Rust type"),
            "{error}"
        );
        let error = parse("[shapes]\n\"a::B<T>\" = \"u8\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("the key is the type's full path"), "{error}");
        let error = parse("[shapes]\n\"not a path\" = \"u8\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("the key is the type's full path"), "{error}");
    }
}
