//! Progress on stderr for long runs (many releases): one rewritten line, only when stderr is a terminal,
//! so logs, pipes and CI output stay silent and byte-identical; and the releases a run leaves out.

use std::io::{IsTerminal as _, Write as _};

use crate::workspace::{Progress, WorkspaceError};

/// [`Progress`] as the `wirecheck` commands show it on stderr: `wirecheck: reading release 3/12 v0.86.0`
/// on a terminal, and a line for each release that cannot be read, whatever stderr is.
#[derive(Debug)]
pub struct StderrProgress {
    /// What the command does with a release it cannot read (`skipping`, `leaving out`).
    skips: &'static str,
    line: Option<ProgressLine>,
}

impl StderrProgress {
    /// As `wirecheck check` shows it: `wirecheck: skipping release TAG: WHY`.
    pub fn for_check() -> Self {
        StderrProgress {
            skips: "skipping",
            line: None,
        }
    }

    /// As `wirecheck matrix` shows it: `wirecheck: leaving out release TAG: WHY`.
    pub fn for_matrix() -> Self {
        StderrProgress {
            skips: "leaving out",
            line: None,
        }
    }
}

impl Progress for StderrProgress {
    fn reading_releases(&mut self, count: usize) {
        self.line = Some(ProgressLine::new("reading release", count));
    }

    fn reading_release(&mut self, tag: &str) {
        if let Some(line) = &mut self.line {
            line.step(tag);
        }
    }

    fn release_skipped(&mut self, tag: &str, error: &WorkspaceError) {
        if let Some(line) = &mut self.line {
            line.finish();
        }
        eprintln!(
            "wirecheck: {} release {tag}: {}",
            self.skips,
            why_skipped(error)
        );
    }

    fn releases_read(&mut self) {
        if let Some(mut line) = self.line.take() {
            line.finish();
        }
    }

    fn tags_without_version(&mut self, pattern: &str, tags: &[String]) {
        eprintln!(
            "wirecheck: warning: skipping tags that match `{pattern}` but hold no semver version, so are not releases: {}. Name releases MAJOR.MINOR.PATCH (v0.4.0, not v0.4), or narrow --tag-pattern",
            tags.join(", ")
        );
    }
}

/// Why a release is left out, as the line saying so ends. An unreadable source is said without
/// [`WorkspaceError::Revision`]'s advice, which is for a baseline: an older release is not chosen, only
/// left out.
fn why_skipped(error: &WorkspaceError) -> String {
    match error {
        WorkspaceError::Revision { error, .. } => format!(
            "its source cannot be read ({error}); its records, and a `min_compatible` reaching it, go unchecked"
        ),
        other => other.to_string(),
    }
}

/// A counter shown as `wirecheck: reading release 3/12 v0.86.0` on stderr.
#[derive(Debug)]
struct ProgressLine {
    what: &'static str,
    total: usize,
    done: usize,
    enabled: bool,
    shown: bool,
}

impl ProgressLine {
    /// A counter of `total` steps of `what`; silent unless stderr is a terminal.
    fn new(what: &'static str, total: usize) -> Self {
        ProgressLine {
            what,
            total,
            done: 0,
            enabled: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// Starts the next step, named `item`.
    fn step(&mut self, item: &str) {
        self.done += 1;
        if !self.enabled {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2Kwirecheck: {} {}/{} {item}",
            self.what, self.done, self.total
        );
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the line.
    fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.finish();
    }
}
