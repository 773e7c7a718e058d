//! `since_above_version`: a `#[wire(since = "...")]` of the working tree naming a release after the
//! version its protocol declares. The derive of a message cannot see its protocol's version, so the check
//! compares them, over the protocol's part (its messages and every type they reach).

use crate::findings::{Finding, Level, Side};
use crate::model::{Body, Location, PartOf, ProtocolDecl};
use crate::rules::RuleId;
use crate::window::in_window;
use semver::Version;

/// The findings of every message, field and variant of `part` (the working tree's part of the protocol
/// `decl`) whose `since` is above `decl`'s version; `against` names the baseline.
pub(super) fn above_version(decl: &ProtocolDecl, part: &PartOf<'_>, against: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    let mut check = |since: Option<&Version>, what: String, place: Place<'_>| {
        if let Some(since) = since.filter(|since| !in_window(&decl.version, since)) {
            found.push(finding(decl, since, what, place, against));
        }
    };
    for message in &part.messages {
        let place = Place {
            message_type: &message.name,
            topic: &message.topic,
            field: None,
            location: &message.location,
        };
        check(
            message.since.as_ref(),
            format!("the {} `{}`", message.kind, message.name),
            place,
        );
    }
    for def in part.types.values() {
        let name = def.path.rsplit("::").next().unwrap_or(&def.path);
        let members: Vec<(String, Option<&Version>, &Location)> = match &def.body {
            Body::Struct { fields, .. } => fields
                .iter()
                .map(|f| {
                    (
                        format!("{name}.{}", f.rust_name),
                        f.since.as_ref(),
                        &f.location,
                    )
                })
                .collect(),
            Body::Enum { variants } => variants
                .iter()
                .flat_map(|v| {
                    let variant = (
                        format!("{name}.{}", v.rust_name),
                        v.since.as_ref(),
                        &v.location,
                    );
                    let fields = v.fields.iter().map(move |f| {
                        let at = format!("{name}.{}.{}", v.rust_name, f.rust_name);
                        (at, f.since.as_ref(), &f.location)
                    });
                    std::iter::once(variant).chain(fields)
                })
                .collect(),
            _ => Vec::new(),
        };
        for (path, since, location) in members {
            let place = Place {
                message_type: "",
                topic: "",
                field: Some(&path),
                location,
            };
            check(since, format!("`{path}`"), place);
        }
    }
    found
}

/// Where a `since` is written, as a finding names it.
struct Place<'p> {
    message_type: &'p str,
    topic: &'p str,
    field: Option<&'p str>,
    location: &'p Location,
}

fn finding(
    decl: &ProtocolDecl,
    since: &Version,
    what: String,
    place: Place<'_>,
    against: &str,
) -> Finding {
    Finding {
        rule: RuleId::SinceAboveVersion,
        level: Level::None,
        allowed: false,
        allow_reason: None,
        message: format!(
            "{what} says `since = \"{since}\"`, after the version {} declares, {}: declare {since} or later, or correct the `since`",
            decl.name, decl.version
        ),
        protocol: decl.name.clone(),
        message_type: place.message_type.to_owned(),
        topic: place.topic.to_owned(),
        field: place.field.map(str::to_owned),
        wire_path: None,
        direction: None,
        against: against.to_owned(),
        location: place.location.clone(),
        side: Side::New,
        anchor: None,
        witness: None,
        known: false,
        reached_by: Vec::new(),
    }
}
