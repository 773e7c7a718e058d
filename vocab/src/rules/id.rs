//! How a [`RuleId`] is read and written: its catalogue entry, its id string (as reports and
//! `allow(...)` lists write it, and as serde does), and its order.

use std::fmt;
use std::str::FromStr;

use super::{RULES, Rule, RuleId};

impl RuleId {
    /// The rule's entry in the catalogue.
    pub fn rule(self) -> &'static Rule {
        &RULES[self as usize]
    }

    /// The id as written in reports and `allow(...)` lists.
    pub fn as_str(self) -> &'static str {
        self.rule().id
    }

    /// The rule whose id is `id`, if there is one.
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|rule| rule.as_str() == id)
    }
}

impl Ord for RuleId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for RuleId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule id that is not in the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule(pub String);

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no rule `{}`: `wirecheck rules` lists the rule ids",
            self.0
        )
    }
}

impl std::error::Error for UnknownRule {}

impl FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(id: &str) -> Result<Self, Self::Err> {
        RuleId::from_id(id).ok_or_else(|| UnknownRule(id.to_owned()))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = <String as serde::Deserialize>::deserialize(deserializer)?;
        id.parse().map_err(serde::de::Error::custom)
    }
}
