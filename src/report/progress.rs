//! Progress on stderr for long runs (many releases): one rewritten line, only when stderr is a terminal,
//! so logs, pipes and CI output stay silent and byte-identical.

use std::io::{IsTerminal as _, Write as _};

/// A counter shown as `wirecheck: reading release 3/12 v0.86.0` on stderr.
#[derive(Debug)]
pub(crate) struct Progress {
    what: &'static str,
    total: usize,
    done: usize,
    enabled: bool,
    shown: bool,
}

impl Progress {
    /// A counter of `total` steps of `what`; silent unless stderr is a terminal.
    pub(crate) fn new(what: &'static str, total: usize) -> Self {
        Progress {
            what,
            total,
            done: 0,
            enabled: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// Starts the next step, named `item`.
    pub(crate) fn step(&mut self, item: &str) {
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
    pub(crate) fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
