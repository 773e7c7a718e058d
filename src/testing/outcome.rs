//! What the skew test reports: [`Failure`]s, the [`Known`] breaks that excuse some of them, and the [`Outcome`].

use std::fmt;
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};

use crate::Kind;

/// A break that shipped on purpose: failures it matches are listed as known, not counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    protocol: String,
    versions: String,
    topic: Option<String>,
    message: Option<String>,
    case: Option<String>,
    reason: String,
}

impl Known {
    /// Failures of the fixtures of `protocol` at the releases matching `versions` (a semver requirement such
    /// as `"<=0.47.0"` or `"=0.42.0"`), for `reason`.
    pub fn new(
        protocol: impl Into<String>,
        versions: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Known {
            protocol: protocol.into(),
            versions: versions.into(),
            topic: None,
            message: None,
            case: None,
            reason: reason.into(),
        }
    }

    /// Only fixtures of messages on `topic`.
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = Some(topic.into());
        self
    }

    /// Only fixtures of the message type named `message` (`"AllocResponse"`, without its module path).
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Only the case named `case` (`"minimal"`, `"variant:Event::Exception"`) and its boundary forms
    /// (`"variant:Event::Exception boundary:max"`).
    pub fn case(mut self, case: impl Into<String>) -> Self {
        self.case = Some(case.into());
        self
    }

    /// Whether this entry excuses `failure`; `versions` is the entry's `versions`, parsed.
    fn matches(&self, failure: &Failure, versions: &VersionReq) -> bool {
        failure.protocol == self.protocol
            && Version::parse(&failure.release).is_ok_and(|release| versions.matches(&release))
            && self
                .topic
                .as_ref()
                .is_none_or(|topic| *topic == failure.topic)
            && self
                .message
                .as_ref()
                .is_none_or(|message| *message == failure.message)
            && self.case.as_ref().is_none_or(|case| {
                failure.case.as_deref().is_some_and(|failure_case| {
                    failure_case == case || failure_case.starts_with(&format!("{case} "))
                })
            })
    }
}

/// Marks the failures each [`Known`] entry matches with its reason. An entry whose versions do not parse, or
/// that matches nothing, is a failure itself (on the fixtures folder `dir`).
pub(super) fn apply_known(known: &[Known], failures: &mut Vec<Failure>, dir: &Path) {
    for entry in known {
        let Ok(versions) = VersionReq::parse(&entry.versions) else {
            failures.push(Failure::without_message(
                &entry.protocol,
                "",
                "",
                format!(
                    "the known break `{entry}` has versions `{}`, which is not a semver requirement (write \"<=0.47.0\")",
                    entry.versions
                ),
                dir,
            ));
            continue;
        };
        let mut used = false;
        for failure in failures.iter_mut() {
            if failure.known.is_none() && entry.matches(failure, &versions) {
                failure.known = Some(entry.reason.clone());
                used = true;
            }
        }
        if !used {
            failures.push(Failure::without_message(
                &entry.protocol,
                "",
                "",
                format!("the known break `{entry}` matches no failure: remove it"),
                dir,
            ));
        }
    }
}

impl fmt::Display for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.protocol, self.versions)?;
        if let Some(topic) = &self.topic {
            write!(f, " topic {topic}")?;
        }
        if let Some(message) = &self.message {
            write!(f, " message {message}")?;
        }
        if let Some(case) = &self.case {
            write!(f, " case `{case}`")?;
        }
        write!(f, " ({})", self.reason)
    }
}

/// One failure of the skew test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The protocol's name.
    pub protocol: String,
    /// The release (fixture folder version) the payload comes from.
    pub release: String,
    /// The current declared version.
    pub current: String,
    /// The message type's name (`AllocResponse`), empty when the failure is not about one message.
    pub message: String,
    /// The message's topic, empty when not about one message.
    pub topic: String,
    /// The message's kind, when about one message.
    pub kind: Option<Kind>,
    /// The case (`maximal`, `variant:Event::Submit`), when about one payload.
    pub case: Option<String>,
    /// `new reads old` or `old reads new`, when about one direction.
    pub direction: Option<&'static str>,
    /// What went wrong, in a sentence.
    pub problem: String,
    /// The payload, as compact JSON, when about one payload.
    pub payload: Option<String>,
    /// The fixture file or folder.
    pub file: PathBuf,
    /// Why it is accepted, when a [`Known`] entry matches it.
    pub known: Option<String>,
}

impl Failure {
    /// A failure not about one message: a folder, a file that does not parse, a declared version.
    pub(super) fn without_message(
        protocol: &str,
        release: &str,
        current: &str,
        problem: String,
        file: &Path,
    ) -> Failure {
        Failure {
            protocol: protocol.to_owned(),
            release: release.to_owned(),
            current: current.to_owned(),
            message: String::new(),
            topic: String::new(),
            kind: None,
            case: None,
            direction: None,
            problem,
            payload: None,
            file: file.to_path_buf(),
            known: None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} release {} (current {})",
            self.protocol, self.release, self.current
        )?;
        if !self.message.is_empty() {
            write!(f, ", `{}` ({}", self.message, self.topic)?;
            if let Some(kind) = self.kind {
                write!(f, " {kind}")?;
            }
            f.write_str(")")?;
        }
        if let Some(case) = &self.case {
            write!(f, ", case `{case}`")?;
        }
        if let Some(direction) = self.direction {
            write!(f, ", {direction}")?;
        }
        write!(f, ":\n    {}", self.problem)?;
        if let Some(payload) = &self.payload {
            write!(f, "\n    payload: {payload}")?;
        }
        write!(f, "\n    file: {}", self.file.display())?;
        if let Some(known) = &self.known {
            write!(f, "\n    known: {known}")?;
        }
        Ok(())
    }
}

/// The result of [`Skew::run`](super::Skew::run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The fixtures folder.
    pub dir: PathBuf,
    /// Failures that count.
    pub failures: Vec<Failure>,
    /// Failures a [`Known`] entry accepts.
    pub known: Vec<Failure>,
    /// `(protocol, release)` pairs whose fixtures were checked.
    pub releases: Vec<(String, String)>,
    /// Fixture files checked.
    pub files: usize,
    /// Payloads decoded with the current types (new reads old).
    pub decoded: usize,
    /// Payloads encoded again and compared (old reads new).
    pub reencoded: usize,
    /// Payloads of a direction set without new-reads-old that the current type cannot represent.
    pub not_representable: usize,
    /// Release folders left out: newer than the current version, or (for requests, responses and events)
    /// older than its minimum.
    pub skipped: Vec<(String, String)>,
}

impl Outcome {
    /// No failure counts.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let releases: Vec<String> = self
            .releases
            .iter()
            .map(|(protocol, release)| format!("{protocol} {release}"))
            .collect();
        writeln!(
            f,
            "wirecheck skew test of {}: {} files of {} ({}), {} payloads decoded, {} encoded again for older readers: {}",
            self.dir.display(),
            self.files,
            if releases.len() == 1 {
                "1 release".to_owned()
            } else {
                format!("{} releases", releases.len())
            },
            releases.join(", "),
            self.decoded,
            self.reencoded,
            match self.failures.len() {
                0 => "ok".to_owned(),
                1 => "1 failure".to_owned(),
                n => format!("{n} failures"),
            }
        )?;
        for (i, failure) in self.failures.iter().enumerate() {
            writeln!(f, "failure {}: {failure}", i + 1)?;
        }
        for failure in &self.known {
            writeln!(f, "known, not counted: {failure}")?;
        }
        if !self.skipped.is_empty() {
            let skipped: Vec<String> = self
                .skipped
                .iter()
                .map(|(protocol, release)| format!("{protocol} {release}"))
                .collect();
            writeln!(
                f,
                "not checked (newer than the current version, or older than its minimum and not records): {}",
                skipped.join(", ")
            )?;
        }
        Ok(())
    }
}
