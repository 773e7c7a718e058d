//! One protocol's findings before its verdict: what the comparison step gives, the store keeps and the
//! verdict step judges.

use semver::Version;
use serde::{Deserialize, Serialize};

use crate::findings::{Finding, Level, by_cause};
use crate::outcome::ProtocolReport;
use crate::policy::Window;
use crate::store::Comparison;

/// One protocol's findings before its verdict: what the comparison gives and the policy judges. The
/// [store](crate::store) keeps it (as JSON) so that an unchanged protocol is not compared again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtocolChanges {
    /// The protocol's name.
    pub name: String,
    /// Its version at the baseline (`None` when new since then).
    pub old_version: Option<Version>,
    /// Its version in the working tree (`None` when removed).
    pub new_version: Option<Version>,
    /// Every finding, counted or not.
    pub findings: Vec<Finding>,
    /// The working tree's window, as compared (`None` when the protocol was removed).
    pub window: Option<Window>,
}

impl Comparison for ProtocolChanges {
    fn protocol(&self) -> &str {
        &self.name
    }
}

impl ProtocolChanges {
    /// The verdict on these changes: the findings of a window that reaches a release it breaks
    /// ([`policy::window_findings`]), the bump the counted findings require and whether the declared
    /// version meets it (and the window holds).
    pub fn judge(self) -> ProtocolReport {
        let mut report = ProtocolReport {
            name: self.name,
            old_version: self.old_version,
            new_version: self.new_version,
            required_bump: Level::None,
            required_version: None,
            ok: false,
            findings: by_cause(self.findings),
            window: self.window,
        };
        report.judge_again();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{LeftOut, WindowBreak, WindowRelease};
    use semver::Version;

    fn model(field: &str) -> crate::model::Snapshot {
        let lib = format!(
            "use serde::{{Deserialize, Serialize}};\nuse wirecheck::{{Message, Protocol}};\n\
             #[derive(Protocol)]\n#[wire(name = \"jobs\", version = \"1.2.0\", min_compatible = \"1.0.0\")]\npub struct Jobs;\n\
             #[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = Jobs, topic = \"jobs.event\", kind = \"record\")]\n\
             pub struct Event {{ pub note: {field} }}\n"
        );
        crate::extract::snapshot_from_sources("demo", &[("src/lib.rs", &lib)]).unwrap()
    }

    /// The store keeps a comparison only when it reads back as written (`store::Comparison`): one with
    /// real findings (a witness) and a window whose every part is set does.
    #[test]
    fn protocol_changes_with_a_whole_window_read_back_as_written() {
        let (old, new) = (model("String"), model("u32"));
        let findings = crate::compat::compare_protocol(
            &old,
            &new,
            "jobs",
            "v1.2.0",
            crate::compat::Scope::Full,
        );
        assert!(
            findings.iter().any(|f| f.witness.is_some()),
            "{findings:#?}"
        );
        let window = Window {
            minimum: Version::new(1, 0, 0),
            declared: true,
            location: new.protocols[0].location.clone(),
            releases: vec![WindowRelease {
                tag: "v1.0.0".to_owned(),
                version: Version::new(1, 0, 0),
                compared: true,
                breaks: vec![WindowBreak::of(&findings[0], true)],
                left_out_by: Some(LeftOut {
                    tag: "v1.1.0".to_owned(),
                    version: Version::new(1, 1, 0),
                    minimum: Version::new(1, 1, 0),
                }),
            }],
        };
        let changes = ProtocolChanges {
            name: "jobs".to_owned(),
            old_version: Some(Version::new(1, 2, 0)),
            new_version: Some(Version::new(1, 2, 0)),
            findings,
            window: Some(window),
        };
        let json = serde_json::to_vec(&changes).unwrap();
        let read: ProtocolChanges = serde_json::from_slice(&json).unwrap();
        assert_eq!(read, changes);
    }
}
