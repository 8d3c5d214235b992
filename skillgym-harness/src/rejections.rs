//! Runners whose model the provider rejected: once one session of a runner ends in a model
//! rejection, the runner's later executions in the same run are skipped (they would be
//! rejected too, each costing a session). Held in memory and as marker files
//! `<run>/.rejected/<runner>` so that it also holds across nextest's test processes.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use crate::artifacts::sanitize;

/// The rejected runners of one run.
#[derive(Debug)]
pub(crate) struct Rejections {
    dir: PathBuf,
    known: Mutex<HashMap<String, String>>,
}

impl Rejections {
    /// Rejections recorded under `<run dir>/.rejected`.
    pub(crate) fn new(run_dir: &std::path::Path) -> Self {
        Rejections {
            dir: run_dir.join(".rejected"),
            known: Mutex::new(HashMap::new()),
        }
    }

    /// Records that `runner` was rejected, with the reason (the first reason wins).
    pub(crate) fn record(&self, runner: &str, reason: &str) {
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(runner.to_owned())
            .or_insert_with(|| reason.to_owned());
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(&self.dir)?;
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.dir.join(sanitize(runner)))?;
            file.write_all(reason.as_bytes())
        };
        if let Err(error) = write()
            && error.kind() != std::io::ErrorKind::AlreadyExists
        {
            eprintln!(
                "skillgym: cannot record the rejection of runner `{runner}` in {}: {error}",
                self.dir.display()
            );
        }
    }

    /// Why `runner` was rejected earlier in this run, if it was.
    pub(crate) fn reason(&self, runner: &str) -> Option<String> {
        if let Some(reason) = self
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(runner)
        {
            return Some(reason.clone());
        }
        fs::read_to_string(self.dir.join(sanitize(runner))).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_is_seen_by_another_process_through_its_marker() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-rejections-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let first = Rejections::new(dir);
        assert_eq!(first.reason("claude"), None);
        first.record("claude", "status 400: bad model");
        first.record("claude", "a later reason");
        let other_process = Rejections::new(dir);
        assert_eq!(
            other_process.reason("claude").as_deref(),
            Some("status 400: bad model")
        );
        assert_eq!(other_process.reason("codex"), None);
        tmp.close().unwrap();
    }
}
