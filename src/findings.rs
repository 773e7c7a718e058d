//! Findings: what the comparison reports, one per incompatible or visible change.

use serde::{Deserialize, Serialize};

use crate::model::Location;
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
    /// The direction that fails (major findings) or that the change concerns.
    pub direction: Option<Direction>,
    /// The release compared against (tag or revision).
    pub against: String,
    /// Where to look: in the working tree for what exists there, in the old release for what was removed.
    pub location: Location,
    /// Which revision [`Finding::location`] is in.
    pub side: Side,
    /// For major findings: a payload the writer side produces that the reader side rejects or misreads.
    pub witness: Option<serde_json::Value>,
    /// The break already existed between this older release and the baseline: it shipped before and is not
    /// counted again.
    #[serde(default)]
    pub known: bool,
}

impl Finding {
    /// Whether the finding counts toward the protocol's required bump.
    pub fn counts(&self) -> bool {
        !self.allowed && !self.known
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
