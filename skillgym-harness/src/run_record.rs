//! `<run>/run.json`: which benchmark binary made a run, so that `cargo skillgym explain` can
//! run it again in explain mode, and which runners it ran, with their agents' versions. Written
//! once per run (the first process of a nextest run wins).
//!
//! A run directory is data anyone could have edited (a CI artifact, a colleague's copy), and
//! `run.json` names a program to run. [`RunRecord::check`] is what `explain` requires of it:
//!
//! | field | must be |
//! |---|---|
//! | `executable` | an absolute path to an existing executable regular file, outside the run directory (also once symlinks are resolved) |
//! | `crate_dir` | an absolute path to an existing directory, outside the run directory |
//! | `config` | absent, or an absolute path to an existing regular file, outside the run directory |
//!
//! [`RunRecord::read`] fails with a [`RunRecordError`], [`RunRecord::check`] with a
//! [`RunRecordRefusal`] naming the field, the path and what is wrong with it.
//!
//! What it cannot tell: whether an executable file elsewhere is the binary that made the run.
//! `explain` prints the path it runs before running it.
//!
//! How `cargo skillgym explain` finds the binary of a run from any directory inside it:
//!
//! ```no_run
//! use std::path::Path;
//!
//! use skillgym_harness::run_record::{RunRecord, run_dir_of};
//!
//! let attempt = Path::new("target/skillgym/runs/<run-id>/find_expo/claude/repeat-1/attempt-1");
//! let run_dir = run_dir_of(attempt).ok_or("not inside a run directory")?;
//! let record = RunRecord::read(&run_dir)?;
//! record.check(&run_dir)?;
//! println!("{} made this run", record.executable_text());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, in the run directory.
pub const RUN_FILE: &str = "run.json";

/// The run directory `dir` is in (or is): the nearest ancestor holding [`RUN_FILE`].
pub fn run_dir_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|ancestor| ancestor.join(RUN_FILE).is_file())
        .map(Path::to_path_buf)
}

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
    /// The selected runners, in configuration order, each with its agent's type, model and
    /// version (absent from records written before versions were recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runners: Vec<skillgym::RunnerInfo>,
}

impl RunRecord {
    /// A record of this process, running `runners`.
    pub(crate) fn of_this_process(
        crate_dir: &Path,
        config: Option<&Path>,
        mock: bool,
        runners: Vec<skillgym::RunnerInfo>,
    ) -> Self {
        RunRecord {
            executable: std::env::current_exe().unwrap_or_default(),
            crate_dir: crate_dir.to_path_buf(),
            config: config.map(Path::to_path_buf),
            mock,
            created_at: crate::time::Timestamp::from(std::time::SystemTime::now()).rfc3339(),
            runners,
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
    pub fn read(run_dir: &Path) -> Result<RunRecord, RunRecordError> {
        let path = run_dir.join(RUN_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(RunRecordError::Unreadable { path, source }),
        };
        serde_json::from_str(&text).map_err(|source| RunRecordError::Malformed { path, source })
    }

    /// Why `explain` must not run what this record (read from `<run_dir>/run.json`) names,
    /// if it must not: a sentence naming the field and the file.
    pub fn check(&self, run_dir: &Path) -> Result<(), RunRecordRefusal> {
        let file = run_dir.join(RUN_FILE);
        let real_run = std::fs::canonicalize(run_dir).unwrap_or_else(|_| run_dir.to_path_buf());
        let problem = |field: &'static str, path: &Path, why: &str| RunRecordRefusal {
            file: file.clone(),
            field,
            path: crate::terminal_text::escape_path(path),
            why: why.to_owned(),
        };
        let inside = |path: &Path| {
            path.starts_with(run_dir)
                || path.starts_with(&real_run)
                || std::fs::canonicalize(path).is_ok_and(|real| real.starts_with(&real_run))
        };
        let outside_file = |field: &'static str, path: &Path, executable: bool| {
            if !path.is_absolute() {
                return Err(problem(field, path, "is not an absolute path"));
            }
            if inside(path) {
                return Err(problem(field, path, "is inside the run directory"));
            }
            let metadata = std::fs::metadata(path)
                .map_err(|error| problem(field, path, &format!("cannot be read ({error})")))?;
            if !metadata.is_file() {
                return Err(problem(field, path, "is not a regular file"));
            }
            if executable && !is_executable(&metadata) {
                return Err(problem(field, path, "is not executable"));
            }
            Ok(())
        };
        outside_file("executable", &self.executable, true)?;
        if let Some(config) = &self.config {
            outside_file("config", config, false)?;
        }
        let dir = &self.crate_dir;
        if !dir.is_absolute() {
            return Err(problem("crate_dir", dir, "is not an absolute path"));
        }
        if inside(dir) {
            return Err(problem("crate_dir", dir, "is inside the run directory"));
        }
        if !dir.is_dir() {
            return Err(problem("crate_dir", dir, "is not a directory"));
        }
        Ok(())
    }

    /// The executable's path as text safe to print: control characters escaped.
    pub fn executable_text(&self) -> String {
        crate::terminal_text::escape_path(&self.executable)
    }

    /// The name of the test target the binary was built from (control characters escaped):
    /// its file name without cargo's `-<hash>` suffix (`benchmarks-0a1b2c3d4e5f6789` → `benchmarks`).
    pub fn test_target(&self) -> String {
        let name = self
            .executable
            .file_name()
            .map(|name| crate::terminal_text::escape_path(Path::new(name)))
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

/// Why `run.json` could not be read ([`RunRecord::read`]).
#[derive(Debug, thiserror::Error)]
pub enum RunRecordError {
    /// The file is missing or unreadable.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// `<run_dir>/run.json`.
        path: PathBuf,
        /// What reading it said.
        source: std::io::Error,
    },
    /// The file is not a run record.
    #[error("{}: {source}", path.display())]
    Malformed {
        /// `<run_dir>/run.json`.
        path: PathBuf,
        /// What parsing it said.
        source: serde_json::Error,
    },
}

/// Why `explain` must not run what a run record names ([`RunRecord::check`]): the field, the
/// path it names (control characters escaped) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} names `{path}` as `{field}`, which {why}: explain runs only the benchmark binary a run recorded, an executable file outside the run directory",
    file.display()
)]
pub struct RunRecordRefusal {
    file: PathBuf,
    field: &'static str,
    path: String,
    why: String,
}

impl RunRecordRefusal {
    /// The refused field of `run.json`: `executable`, `config` or `crate_dir`.
    pub fn field(&self) -> &str {
        self.field
    }
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    true
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
            runners: vec![skillgym::RunnerInfo {
                id: "claude".into(),
                agent: skillgym::AgentInfo {
                    kind: "claude-code".into(),
                    model: Some("claude-sonnet-4-6".into()),
                    version: Some("2.1.330".into()),
                },
            }],
        };
        first.write_once(dir.path()).unwrap();
        let second = RunRecord {
            mock: false,
            ..first.clone()
        };
        second.write_once(dir.path()).unwrap();
        assert_eq!(RunRecord::read(dir.path()).unwrap(), first);
        let text = std::fs::read_to_string(dir.path().join(RUN_FILE)).unwrap();
        assert!(
            text.contains("\"agent\": {\n        \"type\": \"claude-code\",\n        \"model\": \"claude-sonnet-4-6\",\n        \"version\": \"2.1.330\"\n      }"),
            "{text}"
        );
        let older: RunRecord =
            serde_json::from_str(r#"{"executable": "/b", "crate_dir": "/c", "created_at": "t"}"#)
                .unwrap();
        assert!(
            older.runners.is_empty(),
            "a record without runners reads back"
        );
        assert_eq!(first.test_target(), "benchmarks");
        let plain = RunRecord {
            executable: "/bin/my-bench".into(),
            ..first
        };
        assert_eq!(plain.test_target(), "my-bench");
    }

    #[cfg(unix)]
    #[test]
    fn explain_runs_only_an_executable_file_outside_the_run_directory() {
        use std::os::unix::fs::PermissionsExt as _;
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("run");
        let crate_dir = t.path().join("crate");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(&crate_dir).unwrap();
        let executable = |path: &Path| {
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let binary = t.path().join("benchmarks-0a1b2c3d4e5f6789");
        executable(&binary);
        executable(&run.join("x.sh"));
        std::fs::write(t.path().join("plain"), "").unwrap();
        std::os::unix::fs::symlink(run.join("x.sh"), t.path().join("link")).unwrap();
        let record = |executable: &str, crate_dir: &Path, config: Option<&Path>| RunRecord {
            executable: executable.into(),
            crate_dir: crate_dir.to_path_buf(),
            config: config.map(Path::to_path_buf),
            mock: false,
            created_at: String::new(),
            runners: Vec::new(),
        };
        let at = |path: &Path| path.to_str().unwrap().to_owned();
        assert_eq!(record(&at(&binary), &crate_dir, None).check(&run), Ok(()));
        let refused = |record: RunRecord| record.check(&run).unwrap_err().to_string();
        let file = run.join(RUN_FILE).display().to_string();
        let why = "explain runs only the benchmark binary a run recorded, an executable file outside the run directory";
        assert_eq!(
            refused(record("./x.sh", &crate_dir, None)),
            format!("{file} names `./x.sh` as `executable`, which is not an absolute path: {why}")
        );
        let inside = at(&run.join("x.sh"));
        assert_eq!(
            refused(record(&inside, &crate_dir, None)),
            format!(
                "{file} names `{inside}` as `executable`, which is inside the run directory: {why}"
            )
        );
        assert!(
            refused(record(&at(&t.path().join("link")), &crate_dir, None))
                .contains("is inside the run directory")
        );
        assert!(
            refused(record(&at(&t.path().join("plain")), &crate_dir, None))
                .contains("is not executable")
        );
        assert!(
            refused(record(&at(&crate_dir), &crate_dir, None)).contains("is not a regular file")
        );
        assert!(
            refused(record(&at(&binary), &run, None))
                .contains("as `crate_dir`, which is inside the run directory")
        );
        assert!(
            refused(record(&at(&binary), Path::new("crate"), None))
                .contains("as `crate_dir`, which is not an absolute path")
        );
        assert!(
            refused(record(&at(&binary), &crate_dir, Some(&run.join("x.sh"))))
                .contains("as `config`, which is inside the run directory")
        );
        assert!(refused(record("/x\u{1b}[2J", &crate_dir, None)).contains("`/x\\u{1b}[2J`"));
    }
}
