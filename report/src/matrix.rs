//! What `wirecheck matrix` finds, as plain data: which pairs of revisions interoperate, per protocol.
//! The driver (`wirecheck::matrix`) computes it; the renderers read it.

use semver::Version;
use serde::Serialize;

use crate::findings::Finding;

/// A revision of the matrix: a release tag, or the working tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Revision {
    /// The tag (`v0.87.0`), or `working tree`.
    pub label: String,
    /// The tag's commit; `None` for the working tree.
    pub commit: Option<String>,
}

/// Whether a pair of versions interoperates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every needed direction of every message works (the wire may have changed compatibly).
    Compatible,
    /// Some payload is rejected or misread, but every such finding is allowed with a reason.
    Allowed,
    /// Some payload is rejected or misread: this pair cannot run side by side.
    Breaking,
}

impl Verdict {
    /// `compatible`, `allowed`, `breaking`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Compatible => "compatible",
            Verdict::Allowed => "allowed",
            Verdict::Breaking => "breaking",
        }
    }
}

/// The comparison of one pair of revisions for one protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    /// Index of the older revision in [`Matrix::revisions`].
    pub older: usize,
    /// Index of the newer revision.
    pub newer: usize,
    /// Whether the two revisions interoperate for this protocol.
    pub verdict: Verdict,
    /// The major findings (breaking and allowed), in the engine's order.
    pub breaking: Vec<Finding>,
    /// How many minor (compatible but visible) changes there are.
    pub minor: usize,
}

/// One protocol's matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolMatrix {
    /// The protocol's name.
    pub name: String,
    /// Its declared version at each revision (`None`: not declared there).
    pub versions: Vec<Option<Version>>,
    /// Every pair (older, newer) of revisions that both declare the protocol, by older then newer.
    pub pairs: Vec<Pair>,
}

impl ProtocolMatrix {
    /// The pair of revisions `a` and `b`, in either order.
    pub fn pair(&self, a: usize, b: usize) -> Option<&Pair> {
        let (older, newer) = if a <= b { (a, b) } else { (b, a) };
        self.pairs
            .iter()
            .find(|p| p.older == older && p.newer == newer)
    }
}

/// The interoperability matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Matrix {
    /// The revisions, oldest first; the working tree last.
    pub revisions: Vec<Revision>,
    /// One matrix per protocol declared anywhere, by name.
    pub protocols: Vec<ProtocolMatrix>,
}
