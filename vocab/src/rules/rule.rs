//! A rule of the catalogue ([`Rule`]) and the columns that classify it: how much its change matters
//! ([`Level`]) and what its witness shows ([`Evidence`]).

/// How much a change matters on the wire, which decides the semver bump it requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Level {
    /// The wire is the same.
    None,
    /// What goes on the wire changed, compatibly in every needed direction.
    Minor,
    /// Some mixed pair of versions fails: a payload is rejected or misread.
    Major,
}

impl Level {
    /// `none`, `minor`, `major`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Minor => "minor",
            Level::Major => "major",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a major finding's witness shows, which decides how reports word it and how tests check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// A payload the writer writes and the reader rejects.
    Rejected,
    /// A payload the writer writes and the reader rejects, or accepts and reads as another value (a silent
    /// misread: duplicates collapsed, a float rounded, bytes of a positional format read as another field).
    RejectedOrMisread,
    /// A request the reader decodes but never answers.
    Unanswered,
    /// A request the reader answers with another response pattern (one response versus a stream).
    OtherResponsePattern,
    /// A message the reader no longer takes on that topic as that kind.
    NotTaken,
    /// A message that one side no longer has at all: the reader no longer takes it, or (old reads new) the
    /// writer no longer writes what the reader expects.
    MessageGone,
    /// No payload can show it: the checker cannot see through the shape (custom functions, a type it cannot
    /// resolve or of another crate), so one finding stands for both directions and has no witness.
    Opaque,
    /// Not about a payload: the protocol as a whole, a message added, or the repository's fixtures.
    NoPayload,
}

impl Evidence {
    /// Whether a break may be a silent misread rather than a rejection.
    pub fn may_misread(self) -> bool {
        self == Evidence::RejectedOrMisread
    }

    /// Whether the rule is about a message as a whole: its payload decodes, but nobody takes or answers it.
    pub fn is_message_level(self) -> bool {
        matches!(
            self,
            Evidence::Unanswered
                | Evidence::OtherResponsePattern
                | Evidence::NotTaken
                | Evidence::MessageGone
        )
    }
}

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The id (snake_case, like clippy's lints), as written in reports and `allow(...)` lists.
    pub id: &'static str,
    /// The level the rule usually has; a finding may carry a lower one (compatible under the declared
    /// upgrade order, or tolerated by the reader) and says so.
    pub level: Level,
    /// What a witness of a break shows.
    pub evidence: Evidence,
    /// What changed, in one line.
    pub summary: &'static str,
    /// The usual safe migration, in one or two sentences: the `help:` line of the human output and the
    /// migration text of SARIF rules and Markdown reports.
    pub help: &'static str,
    /// One paragraph and a before/after example (`wirecheck explain`).
    pub explanation: &'static str,
}
