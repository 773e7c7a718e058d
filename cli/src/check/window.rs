//! The window of one protocol as a check compares it: the releases the working tree declares it
//! interoperates with (from its `min_compatible` on, else from the first release of its series: the
//! handshake's own rule, [`window_minimum`]), each with the major findings against it, and, for a release
//! the baseline's window left out, the release that left it out first (which paid for its breaks). The
//! policy turns a release inside the window that a finding breaks into a `min_compatible_spans_break`
//! ([`crate::policy::window_findings`]).

use std::collections::BTreeMap;

use crate::model::ProtocolDecl;
use crate::policy::{LeftOut, Window, WindowBreak, WindowRelease};
use crate::window::{in_window, window_minimum};
use semver::Version;

/// The oldest version of its protocol that the release declaring `decl` interoperates with.
pub(super) fn minimum_of(decl: &ProtocolDecl) -> Version {
    window_minimum(&decl.version, decl.min_compatible.as_ref())
}

/// Whether the release whose declaration is `old` is inside the window of the one declaring `new`.
pub(super) fn inside(new: &ProtocolDecl, old: &ProtocolDecl) -> bool {
    in_window(&old.version, &minimum_of(new))
}

/// The window of the working tree's protocol, filled in as its older releases are compared.
pub(super) struct WindowBuilder<'s> {
    current: &'s ProtocolDecl,
    /// The baseline's name and declaration of the protocol, if it declares it.
    base: Option<(&'s str, &'s ProtocolDecl)>,
    /// The protocol's declaration at every older release that declares it, by tag, oldest first.
    lineage: &'s [(&'s str, &'s ProtocolDecl)],
    /// The breaks of each older release compared inside the window, by tag.
    compared: BTreeMap<&'s str, Vec<WindowBreak>>,
}

impl<'s> WindowBuilder<'s> {
    /// The window of `current`, with the baseline `base` and the older releases `lineage`.
    pub(super) fn new(
        current: &'s ProtocolDecl,
        base: Option<(&'s str, &'s ProtocolDecl)>,
        lineage: &'s [(&'s str, &'s ProtocolDecl)],
    ) -> Self {
        WindowBuilder {
            current,
            base,
            lineage,
            compared: BTreeMap::new(),
        }
    }

    /// The older release `tag` was compared inside the window; `breaks` are the major findings against
    /// it, each with whether the baseline has it too (known history).
    pub(super) fn compared(&mut self, tag: &'s str, breaks: Vec<WindowBreak>) {
        self.compared.insert(tag, breaks);
    }

    /// The window, `base_breaks` (the baseline's major findings) being the baseline's breaks when it is
    /// inside.
    pub(super) fn finish(mut self, base_breaks: Vec<WindowBreak>) -> Window {
        let mut releases = Vec::new();
        for (at, (tag, decl)) in self.lineage.iter().enumerate() {
            if !inside(self.current, decl) {
                continue;
            }
            let breaks = self.compared.remove(tag);
            releases.push(WindowRelease {
                tag: (*tag).to_owned(),
                version: decl.version.clone(),
                compared: breaks.is_some(),
                breaks: breaks.unwrap_or_default(),
                left_out_by: self.left_out_by(at),
            });
        }
        if let Some((rev, decl)) = self.base.filter(|(_, decl)| inside(self.current, decl)) {
            releases.push(WindowRelease {
                tag: rev.to_owned(),
                version: decl.version.clone(),
                compared: true,
                breaks: base_breaks,
                left_out_by: None,
            });
        }
        Window {
            minimum: minimum_of(self.current),
            declared: self.current.min_compatible.is_some(),
            location: self.current.location.clone(),
            releases,
        }
    }

    /// Of the older release at `at` in the lineage, when the baseline's window leaves it out: the first
    /// release after it (the baseline last) whose window leaves it out.
    fn left_out_by(&self, at: usize) -> Option<LeftOut> {
        let (_, old) = self.lineage[at];
        let (_, base) = self.base?;
        if in_window(&old.version, &minimum_of(base)) {
            return None;
        }
        self.lineage[at + 1..]
            .iter()
            .copied()
            .chain(self.base)
            .find(|(_, later)| !in_window(&old.version, &minimum_of(later)))
            .map(|(tag, later)| LeftOut {
                tag: tag.to_owned(),
                version: later.version.clone(),
                minimum: minimum_of(later),
            })
    }
}
