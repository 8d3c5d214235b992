//! `<run>/run.json`: which benchmark binary made a run, so that `cargo skillgym explain` can
//! run it again in explain mode. Written once per run (the first process of a nextest run wins).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, in the run directory.
pub const RUN_FILE: &str = "run.json";

/// What `run.json` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunRecord {
    /// The benchmark binary (`std::env::current_exe`).
    pub executable: PathBuf,
    /// The test crate's directory: the binary's working directory and `CARGO_MANIFEST_DIR`.
    pub crate_dir: PathBuf,
    /// The configuration file the run used, if any.
    #[serde(default)]
    pub config: Option<PathBuf>,
    /// Whether it was a `--mock` run.
    #[serde(default)]
    pub mock: bool,
    /// When the run started (RFC 3339, UTC).
    pub created_at: String,
}

impl RunRecord {
    /// A record of this process.
    pub(crate) fn of_this_process(crate_dir: &Path, config: Option<&Path>, mock: bool) -> Self {
        RunRecord {
            executable: std::env::current_exe().unwrap_or_default(),
            crate_dir: crate_dir.to_path_buf(),
            config: config.map(Path::to_path_buf),
            mock,
            created_at: crate::time::Timestamp::from(std::time::SystemTime::now()).rfc3339(),
        }
    }

    /// Writes `<run_dir>/run.json` unless it exists (another process of the run wrote it).
    pub(crate) fn write_once(&self, run_dir: &Path) -> std::io::Result<()> {
        let path = run_dir.join(RUN_FILE);
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
            Err(error) => return Err(error),
        };
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        file.write_all(text.as_bytes())
    }

    /// Reads `<run_dir>/run.json`.
    pub fn read(run_dir: &Path) -> Result<RunRecord, String> {
        let path = run_dir.join(RUN_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
    }

    /// The name of the test target the binary was built from: its file name without cargo's
    /// `-<hash>` suffix (`benchmarks-0a1b2c3d4e5f6789` → `benchmarks`).
    pub fn test_target(&self) -> String {
        let name = self
            .executable
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        match name.rsplit_once('-') {
            Some((target, hash))
                if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                target.to_owned()
            }
            _ => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_record_wins_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunRecord {
            executable: "/t/debug/deps/benchmarks-0a1b2c3d4e5f6789".into(),
            crate_dir: "/crate".into(),
            config: Some("/crate/skillgym.yaml".into()),
            mock: true,
            created_at: "2026-11-22T10:15:00.123Z".into(),
        };
        first.write_once(dir.path()).unwrap();
        let second = RunRecord {
            mock: false,
            ..first.clone()
        };
        second.write_once(dir.path()).unwrap();
        assert_eq!(RunRecord::read(dir.path()).unwrap(), first);
        assert_eq!(first.test_target(), "benchmarks");
        let plain = RunRecord {
            executable: "/bin/my-bench".into(),
            ..first
        };
        assert_eq!(plain.test_target(), "my-bench");
    }
}
