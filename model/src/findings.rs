//! Findings: what the comparison reports, one per incompatible or visible change.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::{Body, Location, MessageDecl, PartOf, ProtocolDecl, Snapshot, TypeDef};
pub use crate::rules::Level;
use crate::rules::RuleId;

/// Which side reads which: the old release reading what the new one writes, or the reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// Old readers, new writers (forward compatibility of the old code).
    #[serde(rename = "old reads new")]
    OldReadsNew,
    /// New readers, old writers (backward compatibility of the new code).
    #[serde(rename = "new reads old")]
    NewReadsOld,
}

impl Direction {
    /// `old reads new` / `new reads old`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::OldReadsNew => "old reads new",
            Direction::NewReadsOld => "new reads old",
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which revision a location is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The older release (the baseline, or an older release tag).
    Old,
    /// The working tree.
    New,
}

impl Side {
    /// `old` or `new`, as reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

/// One reported change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule (serialized as its id, `field_removed`).
    pub rule: RuleId,
    /// The rule's level for this change.
    pub level: Level,
    /// Suppressed by an `allow` with a reason: still reported, but does not raise the bump.
    pub allowed: bool,
    /// Why it is allowed, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_reason: Option<String>,
    /// A sentence saying what changed and what breaks.
    pub message: String,
    /// The protocol's name.
    pub protocol: String,
    /// The message type's name (`AllocRequest`).
    pub message_type: String,
    /// The message's topic.
    pub topic: String,
    /// The dotted path of the field or variant concerned inside the message, if any (`jobs.priority`).
    pub field: Option<String>,
    /// The same place as peers in any language see it on the wire (self-describing formats only):
    /// wire names after `rename`/`rename_all`, `[]` for a sequence's elements, `[0]` for a tuple's,
    /// `{}` for a map's values and `{key}` for its keys, a variant's tag as its representation writes it
    /// (`Run`, `(type=run)`, `<Run>` when untagged), nothing for a flattened field
    /// (`signatures[].activeParameter`). Serialized only when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_path: Option<String>,
    /// The direction that fails (major findings) or that the change concerns.
    pub direction: Option<Direction>,
    /// The release compared against (tag or revision).
    pub against: String,
    /// Where to look: in the working tree for what exists there, in the old release for what was removed.
    pub location: Location,
    /// Which revision [`Finding::location`] is in.
    pub side: Side,
    /// For a finding about something removed ([`Side::Old`]): where its surviving parent is in the working
    /// tree (the struct that lost the field, the enum that lost the variant, else the message or the
    /// protocol), so that an annotation lands on a line of the pull request's diff. Filled by the check
    /// ([`Finding::anchor_in`]); serialized only when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Location>,
    /// For major findings: a payload the writer side produces that the reader side rejects or misreads.
    /// Serialized only when there is one, so that `"witness": null` is a real `null` payload (a unit
    /// struct) and no witness is the key's absence.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_witness"
    )]
    pub witness: Option<serde_json::Value>,
    /// The break already existed between this older release and the baseline: it shipped before and is not
    /// counted again.
    #[serde(default)]
    pub known: bool,
    /// Every message and place the cause of this finding is reached from (this finding's own first),
    /// when more than one reaches it: one change to a type shared by many messages is one finding
    /// (see [`by_cause`]). Serialized only when present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reached_by: Vec<Reach>,
}

/// A message and the place in it from which a finding's cause is reached.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reach {
    /// The message type's name.
    pub message_type: String,
    /// The message's topic.
    pub topic: String,
    /// The Rust path of the field or variant from the message (see [`Finding::field`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The same place on the wire (see [`Finding::wire_path`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_path: Option<String>,
}

/// The findings with one cause made one: a change to a type, field or variant that many messages (or
/// many places of one message) reach is one finding at its definition, whose [`Finding::reached_by`]
/// lists them all, keeping the first finding's words and witness. Findings are of one cause when they
/// say the same of the same place (rule, level, direction, location and its side, the same words) and
/// are counted alike (allowed, known); for a rule whose evidence is opaque, the words name the type
/// whatever place names it, so the place is not compared. The order of first appearance is kept.
pub fn by_cause(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    let mut index: std::collections::HashMap<CauseKey, usize> = std::collections::HashMap::new();
    for finding in findings {
        let key = finding.cause_key();
        let reach = finding.reach();
        match index.get(&key) {
            Some(&at) => {
                let first = &mut out[at];
                if first.reached_by.is_empty() {
                    first.reached_by.push(first.reach());
                }
                if !first.reached_by.contains(&reach) {
                    first.reached_by.push(reach);
                }
            }
            None => {
                index.insert(key, out.len());
                out.push(finding);
            }
        }
    }
    out
}

/// What makes findings one cause (see [`by_cause`]).
type CauseKey = (
    RuleId,
    Level,
    Option<Direction>,
    Option<(String, u32, u32, Side)>,
    String,
    bool,
    bool,
    String,
);

/// A `witness` key that is present is a witness, `null` included (its absence is `None`, by `default`).
fn present_witness<'de, D>(deserializer: D) -> Result<Option<serde_json::Value>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    serde_json::Value::deserialize(deserializer).map(Some)
}

impl Finding {
    /// Whether the finding counts toward the protocol's required bump.
    pub fn counts(&self) -> bool {
        !self.allowed && !self.known
    }

    /// Where the surviving parent of what this finding says was removed is in `new` (the working tree), given
    /// the snapshot `old` its [`Finding::location`] is in: the struct that lost the field, the enum that lost
    /// the variant (the variant itself when only its field went), else the message, else the protocol's
    /// declaration. `None` for a finding in the working tree already, or when nothing of it is left. Only
    /// the finding's protocol's [part](Snapshot::protocol_part) of each snapshot is read: the types its
    /// messages reach (another protocol's type may have a field at the same place, written by a macro).
    pub fn anchor_in(&self, old: &Snapshot, new: &Snapshot) -> Option<Location> {
        let decl = new.protocol(&self.protocol)?;
        let all = |_: &MessageDecl| true;
        self.anchor_in_part(
            &old.part_of(&self.protocol, all),
            &new.part_of(&self.protocol, all),
            decl,
        )
    }

    /// [`Finding::anchor_in`], given the finding's protocol's part in the old snapshot and in the
    /// working tree, with its declaration there.
    pub fn anchor_in_part(
        &self,
        old: &PartOf<'_>,
        new: &PartOf<'_>,
        new_decl: &ProtocolDecl,
    ) -> Option<Location> {
        if self.side != Side::Old {
            return None;
        }
        let in_parent = old
            .types
            .values()
            .find_map(|t| parent_in(t, &self.location, &new.types));
        in_parent
            .or_else(|| {
                new.messages
                    .iter()
                    .find(|m| m.name == self.message_type)
                    .map(|m| m.location.clone())
            })
            .or_else(|| Some(new_decl.location.clone()))
    }

    /// What makes this finding one cause with others (see [`by_cause`]).
    fn cause_key(&self) -> CauseKey {
        // An opaque type (or the code of its impls) is one cause wherever it is reached, so its
        // findings leave the place out; functions named at a field (`custom_serde_changed`) are a
        // change of that field, as a decided finding is of its place.
        let opaque = self.rule.rule().evidence == crate::rules::Evidence::Opaque
            && self.rule != RuleId::CustomSerdeChanged;
        let place = (!opaque).then(|| {
            (
                self.location.file.clone(),
                self.location.line,
                self.location.column,
                self.side,
            )
        });
        (
            self.rule,
            self.level,
            self.direction,
            place,
            self.message.clone(),
            self.allowed,
            self.known,
            self.against.clone(),
        )
    }

    /// The message and place this finding is reached from.
    fn reach(&self) -> Reach {
        Reach {
            message_type: self.message_type.clone(),
            topic: self.topic.clone(),
            field: self.field.clone(),
            wire_path: self.wire_path.clone(),
        }
    }

    /// The key used to deduplicate findings across directions and releases.
    pub fn dedup_key(&self) -> (RuleId, String, String, Option<String>, Option<Direction>) {
        (
            self.rule,
            self.message_type.clone(),
            self.topic.clone(),
            self.field.clone(),
            self.direction,
        )
    }
}

/// When `old_type` declares the field or variant written at `location`: the location in `new` of what
/// survives of its parent (the variant that lost a field, else the type), if the type is still there.
fn parent_in(
    old_type: &TypeDef,
    location: &Location,
    new_types: &BTreeMap<&str, &Arc<TypeDef>>,
) -> Option<Location> {
    let new_type = || new_types.get(old_type.path.as_str()).map(|def| &***def);
    match &old_type.body {
        Body::Struct { fields, .. } if fields.iter().any(|f| f.location == *location) => {
            new_type().map(|t| t.location.clone())
        }
        Body::Enum { variants } => {
            if variants.iter().any(|v| v.location == *location) {
                return new_type().map(|t| t.location.clone());
            }
            let variant = variants
                .iter()
                .find(|v| v.fields.iter().any(|f| f.location == *location))?;
            let new_type = new_type()?;
            let survivor = match &new_type.body {
                Body::Enum { variants } => variants
                    .iter()
                    .find(|v| v.rust_name == variant.rust_name)
                    .map(|v| v.location.clone()),
                _ => None,
            };
            Some(survivor.unwrap_or_else(|| new_type.location.clone()))
        }
        _ => None,
    }
}
