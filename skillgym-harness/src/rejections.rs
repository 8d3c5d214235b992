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
use crate::terminal_text::eprintln_escaped;

/// The rejected runners of one run.
#[derive(Debug)]
pub(crate) struct Rejections {
    dir: PathBuf,
    known: Mutex<HashMap<String, String>>,
    /// Whether other processes may record rejections in the same run directory (the
    /// processes of one nextest run): only then are the markers read.
    shared: bool,
}

impl Rejections {
    /// Rejections recorded under `<run dir>/.rejected`, in a run directory other processes
    /// may share.
    pub(crate) fn new(run_dir: &std::path::Path) -> Self {
        Rejections {
            dir: run_dir.join(".rejected"),
            known: Mutex::new(HashMap::new()),
            shared: true,
        }
    }

    /// Says whether other processes may share the run directory. When none may (it is
    /// claimed by this process alone), every marker was recorded by this process and is known
    /// in memory: [`reason`](Self::reason) no longer looks for one on disk.
    pub(crate) fn shared(mut self, shared: bool) -> Self {
        self.shared = shared;
        self
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
            file.write_all(crate::secrets::mask(reason).as_bytes())
        };
        if let Err(error) = write()
            && error.kind() != std::io::ErrorKind::AlreadyExists
        {
            eprintln_escaped!(
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
        if !self.shared {
            return None;
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

    #[test]
    fn a_run_directory_of_its_own_is_known_in_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let own = Rejections::new(dir).shared(false);
        assert_eq!(own.reason("claude"), None);
        own.record("claude", "status 400: bad model");
        assert_eq!(
            own.reason("claude").as_deref(),
            Some("status 400: bad model")
        );
        assert!(
            dir.join(".rejected/claude").is_file(),
            "the marker is still written"
        );
        // A marker this process did not write cannot be there: it is not looked for.
        fs::write(dir.join(".rejected/codex"), "elsewhere").unwrap();
        assert_eq!(own.reason("codex"), None);
        assert_eq!(
            Rejections::new(dir).reason("codex").as_deref(),
            Some("elsewhere")
        );
    }
}
