use super::*;
use crate::extract::snapshot_from_sources;
use semver::Version;

/// A protocol `svc` at `version` under `upgrade`, whose request `Run` has the fields `request_fields`
/// (a response `Done` has `id`); with `extra`, a second protocol `other` too.
fn model(version: &str, upgrade: &str, request_fields: &str, extra: bool) -> Snapshot {
    let other = if extra {
        "#[derive(Protocol)]
#[wire(name = \"other\", version = \"0.1.0\")]
pub struct Other;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Other, topic = \"other.ping\", kind = \"event\")]
pub struct Ping { pub id: u64 }
"
    } else {
        ""
    };
    let lib = format!(
        "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = \"svc\", version = \"{version}\", upgrade = \"{upgrade}\")]
pub struct Svc;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Svc, topic = \"svc.run\", kind = \"request\", responds = Done)]
pub struct Run {{ pub id: u64, {request_fields} }}

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Svc, topic = \"svc.run\", kind = \"response\")]
pub struct Done {{ pub id: u64 }}
{other}"
    );
    snapshot_from_sources("demo", &[("src/lib.rs", lib.as_str())]).unwrap()
}

fn release(tag: &str, model: Snapshot) -> (Revision, Snapshot) {
    let revision = Revision {
        label: tag.to_owned(),
        commit: Some(format!("{tag}-commit")),
    };
    (revision, model)
}

fn working_tree(model: Snapshot) -> (Revision, Snapshot) {
    let revision = Revision {
        label: "working tree".to_owned(),
        commit: None,
    };
    (revision, model)
}

/// The notes of `svc` from `old` to `new` (request fields), both under `upgrade`.
fn svc(upgrade: &str, old: &str, new: (&str, &str)) -> ProtocolNotes {
    let revisions = [
        release("v0.1.0", model("0.1.0", upgrade, old, false)),
        release("v0.2.0", model(new.0, upgrade, new.1, false)),
        working_tree(model(new.0, upgrade, new.1, false)),
    ];
    let changelog = compute(&revisions, &Config::default());
    assert_eq!(changelog.releases.len(), 1, "{changelog:#?}");
    let notes = &changelog.releases[0];
    assert_eq!(
        (notes.release.as_str(), notes.previous.as_str()),
        ("v0.2.0", "v0.1.0")
    );
    notes
        .protocols
        .iter()
        .find(|p| p.name == "svc")
        .unwrap()
        .clone()
}

#[test]
fn a_compatible_change_rolls_in_the_declared_order() {
    let notes = svc(
        "any-order",
        "",
        ("0.1.1", "#[serde(default)] pub note: String,"),
    );
    assert_eq!(notes.rollout, Rollout::AnyOrder);
    assert_eq!(notes.required_bump, Level::Minor);
    assert_eq!(notes.declared_ok, Some(true));
    assert!(notes.breaking.is_empty());
    assert!(!notes.compatible.is_empty());

    let notes = svc(
        "server-first",
        "",
        ("0.1.1", "#[serde(default)] pub note: String,"),
    );
    assert_eq!(notes.rollout, Rollout::ServersFirst);
}

#[test]
fn a_new_required_request_field_rolls_clients_first() {
    // A new server rejects an old client's request without `note`; an old server ignores it.
    let notes = svc("any-order", "", ("0.2.0", "pub note: String,"));
    assert_eq!(notes.required_bump, Level::Major);
    assert!(!notes.breaking.is_empty());
    let directions: Vec<_> = notes.breaking.iter().map(|f| f.direction).collect();
    assert!(
        directions
            .iter()
            .all(|d| *d == Some(Direction::NewReadsOld)),
        "{directions:?}"
    );
    assert_eq!(notes.rollout, Rollout::ClientsFirst);
}

#[test]
fn a_removed_required_request_field_rolls_servers_first() {
    // An old server rejects a new client's request without `note`; a new server ignores it.
    let notes = svc("any-order", "pub note: String,", ("0.2.0", ""));
    assert_eq!(notes.rollout, Rollout::ServersFirst);
    assert_eq!(notes.required_bump, Level::Major);
}

#[test]
fn a_break_both_ways_or_in_a_needed_direction_restarts_together() {
    let notes = svc(
        "any-order",
        "pub note: u64,",
        ("0.2.0", "pub note: String,"),
    );
    assert_eq!(notes.rollout, Rollout::RestartTogether);
    // Under server-first, the check needs exactly the directions servers-first relies on.
    let notes = svc("server-first", "", ("0.2.0", "pub note: String,"));
    assert_eq!(notes.rollout, Rollout::RestartTogether);
}

#[test]
fn a_short_version_is_said() {
    let notes = svc("any-order", "", ("0.1.1", "pub note: String,"));
    assert_eq!(notes.required_version, Some(Version::new(0, 2, 0)));
    assert_eq!(notes.declared_ok, Some(false));
}

#[test]
fn an_allowed_break_is_listed_apart_and_does_not_set_the_rollout() {
    let config = crate::config::parse(
        "[[allow]]\nrule = \"required_field_added\"\nmessage = \"Run\"\nfield = \"note\"\nreason = \"clients are upgraded with the servers\"\n",
    )
    .unwrap();
    let revisions = [
        release("v0.1.0", model("0.1.0", "any-order", "", false)),
        release(
            "v0.1.1",
            model("0.1.1", "any-order", "pub note: String,", false),
        ),
    ];
    let changelog = compute(&revisions, &config);
    let notes = &changelog.releases[0].protocols[0];
    assert!(notes.breaking.is_empty(), "{notes:#?}");
    assert_eq!(notes.allowed.len(), 1);
    assert_eq!(notes.rollout, Rollout::AnyOrder);
    assert_eq!(notes.declared_ok, Some(true));
}

#[test]
fn protocols_added_and_removed_and_releases_newest_first() {
    let revisions = [
        release("v0.1.0", model("0.1.0", "any-order", "", false)),
        release("v0.2.0", model("0.1.0", "any-order", "", true)),
        release("v0.3.0", model("0.1.0", "any-order", "", false)),
        working_tree(model("0.1.0", "any-order", "", false)),
    ];
    let changelog = compute(&revisions, &Config::default());
    assert_eq!(changelog.since, "v0.1.0");
    let tags: Vec<&str> = changelog
        .releases
        .iter()
        .map(|r| r.release.as_str())
        .collect();
    // The working tree changes nothing: not listed.
    assert_eq!(tags, ["v0.3.0", "v0.2.0"]);
    let removed = &changelog.releases[0].protocols;
    assert_eq!(removed.len(), 1, "svc did not change: {removed:#?}");
    assert_eq!(removed[0].event, ProtocolEvent::Removed);
    assert_eq!(removed[0].rollout, Rollout::RestartTogether);
    assert_eq!(removed[0].required_bump, Level::Major);
    let added = &changelog.releases[1].protocols[0];
    assert_eq!(
        (added.event, added.rollout),
        (ProtocolEvent::Added, Rollout::NewProtocol)
    );
}

#[test]
fn a_stored_record_the_new_release_cannot_read_needs_a_migration() {
    let record = |fields: &str| {
        let lib = format!(
            "use serde::{{Deserialize, Serialize}};
use wirecheck::{{Message, Protocol}};

#[derive(Protocol)]
#[wire(name = \"log\", version = \"0.1.0\")]
pub struct Log;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Log, topic = \"log.entry\", kind = \"record\")]
pub struct Entry {{ pub id: u64, {fields} }}
"
        );
        snapshot_from_sources("demo", &[("src/lib.rs", lib.as_str())]).unwrap()
    };
    // The new release requires `at`, which stored entries lack.
    let revisions = [
        release("v0.1.0", record("")),
        release("v0.2.0", record("pub at: u64,")),
    ];
    let notes = &compute(&revisions, &Config::default()).releases[0].protocols[0];
    assert_eq!(notes.rollout, Rollout::RecordsUnreadable, "{notes:#?}");
    // The old release requires `at`, which new entries lack: restarting together is enough.
    let revisions = [
        release("v0.1.0", record("pub at: u64,")),
        release("v0.2.0", record("")),
    ];
    let notes = &compute(&revisions, &Config::default()).releases[0].protocols[0];
    assert_eq!(notes.rollout, Rollout::RestartTogether, "{notes:#?}");
}
