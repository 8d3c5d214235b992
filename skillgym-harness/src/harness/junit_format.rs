//! `--format junit`, which libtest-mimic does not have: as libtest's own (unstable) JUnit format
//! does, stdout carries only the JUnit document — libtest's lines go nowhere while the trials
//! run, and the `junit` reporter's document is printed at the end.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;

use crate::report::{RunReport, junit};

/// stdout sent to `/dev/null` until dropped.
#[derive(Debug)]
pub(super) struct Muted {
    saved: Option<libc::c_int>,
}

impl Muted {
    /// Mutes file descriptor 1 (nothing is muted when that fails: output beats silence).
    pub(super) fn stdout() -> Muted {
        let _ = io::stdout().flush();
        let Ok(null) = File::options().write(true).open("/dev/null") else {
            return Muted { saved: None };
        };
        // SAFETY: dup/dup2 on file descriptors this process owns (1, and `null`'s, which stays
        // open across the calls).
        let saved = unsafe { libc::dup(1) };
        if saved < 0 || unsafe { libc::dup2(null.as_raw_fd(), 1) } < 0 {
            return Muted { saved: None };
        }
        Muted { saved: Some(saved) }
    }
}

impl Drop for Muted {
    fn drop(&mut self) {
        let _ = io::stdout().flush();
        if let Some(saved) = self.saved.take() {
            // SAFETY: restores the descriptor saved in `stdout` and closes the copy.
            unsafe {
                libc::dup2(saved, 1);
                libc::close(saved);
            }
        }
    }
}

/// Prints the run's JUnit document on stdout.
pub(super) fn print(report: &RunReport) {
    let mut stdout = io::stdout().lock();
    let _ = stdout.write_all(junit::xml(report).as_bytes());
    let _ = stdout.flush();
}
