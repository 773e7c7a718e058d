//! What a walk finds: an [`Issue`], relative to the type the walk was asked about, and how an issue
//! found one level down is placed in the enclosing type.

use serde_json::Value;

use crate::findings::Side;
use crate::model::{AllowDecl, Location};
use crate::rules::RuleId;

/// One problem found by a walk, relative to the type the walk was asked about.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub rule: RuleId,
    /// A payload is rejected or misread in the walk's direction (otherwise a visible compatible change).
    pub breaks: bool,
    /// Rust names from the compared type down to the field or variant concerned.
    pub path: Vec<String>,
    /// A payload of the writer's type that the reader rejects or misreads (breaks only; `None` where the
    /// shape is opaque to the checker).
    pub witness: Option<Value>,
    /// A sentence saying what changed and what happens.
    pub detail: String,
    /// The nearest location known, and its side.
    pub location: Option<(Location, Side)>,
    /// `allow` declarations on the fields and variants along the path.
    pub allows: Vec<AllowDecl>,
    /// Opaque: reported once, not per direction.
    pub opaque: bool,
}

impl Issue {
    fn new(rule: RuleId, breaks: bool, detail: String, witness: Option<Value>) -> Issue {
        Issue {
            rule,
            breaks,
            path: Vec::new(),
            witness: if breaks { witness } else { None },
            detail,
            location: None,
            allows: Vec::new(),
            opaque: false,
        }
    }

    /// A payload the writer produces is rejected or misread; `witness` is one.
    pub fn breaking(rule: RuleId, detail: String, witness: Option<Value>) -> Issue {
        Issue::new(rule, true, detail, witness)
    }

    /// A change visible on the wire that every reader still decodes.
    pub fn change(rule: RuleId, detail: String) -> Issue {
        Issue::new(rule, false, detail, None)
    }

    /// A change the checker cannot see into (custom functions, other crates' types): a break without a
    /// witness, reported once rather than per direction.
    pub fn opaque(rule: RuleId, detail: String) -> Issue {
        let mut issue = Issue::new(rule, true, detail, None);
        issue.opaque = true;
        issue
    }

    /// The issue with its path and location set.
    pub fn at(mut self, path: Vec<String>, location: Option<(Location, Side)>) -> Issue {
        self.path = path;
        self.location = location;
        self
    }
}

/// Where in the enclosing type the issues of a field or variant sit.
#[derive(Default)]
pub(crate) struct Place {
    /// Rust names prefixed to each issue's path.
    pub path: Vec<String>,
    /// `allow` declarations on the field or variant (both releases').
    pub allows: Vec<AllowDecl>,
    /// Given to the issues that have no location yet.
    pub location: Option<(Location, Side)>,
}

/// Places issues found one level down at `place` in the enclosing type.
pub(crate) fn placed(issues: Vec<Issue>, place: &Place) -> Vec<Issue> {
    issues
        .into_iter()
        .map(|mut issue| {
            if !place.path.is_empty() {
                let mut path = place.path.clone();
                path.append(&mut issue.path);
                issue.path = path;
            }
            issue.allows.extend(place.allows.iter().cloned());
            if issue.location.is_none() {
                issue.location.clone_from(&place.location);
            }
            issue
        })
        .collect()
}

/// Embeds each issue's witness (a value of the part compared) into a payload of the enclosing type;
/// `None` drops the witness.
pub(crate) fn embedded(issues: Vec<Issue>, embed: impl Fn(Value) -> Option<Value>) -> Vec<Issue> {
    issues
        .into_iter()
        .map(|mut issue| {
            issue.witness = issue.witness.and_then(&embed);
            issue
        })
        .collect()
}
