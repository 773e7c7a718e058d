//! What a walk finds: an [`Issue`], relative to the type the walk was asked about, and how an issue
//! found one level down is placed in the enclosing type.

use serde_json::Value;

use crate::findings::Side;
use crate::model::{AllowDecl, EnumRepr, Location, Variant};
use crate::rules::RuleId;

/// One problem found by a walk, relative to the type the walk was asked about.
#[derive(Clone, Debug)]
pub struct Issue {
    pub rule: RuleId,
    /// A payload is rejected or misread in the walk's direction (otherwise a visible compatible change).
    pub breaks: bool,
    /// Rust names from the compared type down to the field or variant concerned.
    pub path: Vec<String>,
    /// The same place as a peer sees it on the wire, one segment per step (see [`wire_path_text`]).
    pub wire_path: Vec<String>,
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
    /// Why a break has no witness, in words: the type whose shape is unknown, which no value is
    /// invented for, or the function no value is sampled through.
    pub no_witness: Option<String>,
}

impl Issue {
    fn new(rule: RuleId, breaks: bool, detail: String, witness: Option<Value>) -> Issue {
        Issue {
            rule,
            breaks,
            path: Vec::new(),
            wire_path: Vec::new(),
            witness: if breaks { witness } else { None },
            detail,
            location: None,
            allows: Vec::new(),
            opaque: false,
            no_witness: None,
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

    /// The issue with its wire path set (segments as [`wire_path_text`] joins them).
    pub fn on_wire(mut self, wire_path: Vec<String>) -> Issue {
        self.wire_path = wire_path;
        self
    }
}

/// The wire segment of a sequence's (or set's, or array's) elements.
pub const WIRE_ELEMENT: &str = "[]";
/// The wire segment of a map's values.
pub const WIRE_MAP_VALUE: &str = "{}";
/// The wire segment of a map's keys.
pub const WIRE_MAP_KEY: &str = "{key}";

/// The wire segment of the element at `index` of a tuple or tuple struct.
pub fn wire_index(index: usize) -> String {
    format!("[{index}]")
}

/// The wire segment of a variant of an enum represented as `repr`: where its tag is a key (external), the
/// key; where it is a value next to the payload (internal, adjacent), `(tag=name)`; where nothing on the
/// wire names it (untagged), its Rust name in angle brackets.
pub fn wire_variant(repr: &EnumRepr, variant: &Variant) -> String {
    match repr {
        _ if variant.untagged => format!("<{}>", variant.rust_name),
        EnumRepr::Untagged => format!("<{}>", variant.rust_name),
        EnumRepr::External => variant.ser_name.clone(),
        EnumRepr::Integer { .. } => format!("<{}={}>", variant.rust_name, variant.ser_name),
        EnumRepr::Internal { tag } | EnumRepr::Adjacent { tag, .. } => {
            format!("({tag}={})", variant.ser_name)
        }
    }
}

/// The wire path as the findings show it: segments joined by `.`, except those that qualify the one
/// before (`[]`, `[0]`, `{}`, `{key}`, `(type=run)`, `<Run>`), which follow it directly
/// (`signatures[].activeParameter`, `env{}`, `command(type=run).args`). `None` for an empty path.
pub fn wire_path_text(segments: &[String]) -> Option<String> {
    let mut text = String::new();
    for segment in segments {
        let qualifies = segment.starts_with(['[', '{', '(', '<']);
        if !text.is_empty() && !qualifies {
            text.push('.');
        }
        text.push_str(segment);
    }
    (!text.is_empty()).then_some(text)
}

/// Where in the enclosing type the issues of a field or variant sit.
#[derive(Default)]
pub struct Place {
    /// Rust names prefixed to each issue's path.
    pub path: Vec<String>,
    /// Wire segments prefixed to each issue's wire path (the field's key, `[]` for elements, a
    /// variant's tag; nothing for a flattened field, whose keys sit in the parent).
    pub wire_path: Vec<String>,
    /// `allow` declarations on the field or variant (both releases').
    pub allows: Vec<AllowDecl>,
    /// Given to the issues that have no location yet.
    pub location: Option<(Location, Side)>,
}

impl Place {
    /// A place that adds a wire segment only (a sequence's elements, a map's values: Rust paths name no
    /// step for them).
    pub fn on_wire(segment: impl Into<String>) -> Place {
        Place {
            wire_path: vec![segment.into()],
            ..Place::default()
        }
    }
}

/// Places issues found one level down at `place` in the enclosing type.
pub fn placed(issues: Vec<Issue>, place: &Place) -> Vec<Issue> {
    issues
        .into_iter()
        .map(|mut issue| {
            if !place.path.is_empty() {
                let mut path = place.path.clone();
                path.append(&mut issue.path);
                issue.path = path;
            }
            if !place.wire_path.is_empty() {
                let mut wire_path = place.wire_path.clone();
                wire_path.append(&mut issue.wire_path);
                issue.wire_path = wire_path;
            }
            issue.allows.extend(place.allows.iter().cloned());
            if issue.location.is_none() {
                issue.location.clone_from(&place.location);
            }
            issue
        })
        .collect()
}

/// Gives the issues found without a location of their own the location of the type compared.
pub fn located(mut issues: Vec<Issue>, location: &Option<(Location, Side)>) -> Vec<Issue> {
    for issue in &mut issues {
        if issue.location.is_none() {
            issue.location.clone_from(location);
        }
    }
    issues
}

/// Embeds each issue's witness (a value of the part compared) into a payload of the enclosing type;
/// `None` drops the witness.
pub fn embedded(issues: Vec<Issue>, embed: impl Fn(Value) -> Option<Value>) -> Vec<Issue> {
    issues
        .into_iter()
        .map(|mut issue| {
            issue.witness = issue.witness.and_then(&embed);
            issue
        })
        .collect()
}
