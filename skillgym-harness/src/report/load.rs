//! Loading a [`RunReport`] from run directories: each execution's `<case>/<runner>/result.json`
//! (written by every process, nextest's included), merged over the directories given.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use super::RunReport;
use crate::artifacts::is_layout_name;
use crate::execute::ExecutionResult;

/// Why run directories cannot be reported.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// A directory cannot be read.
    Read {
        /// The directory or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `result.json` is not an execution's result.
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// No execution result in any of the directories.
    Empty {
        /// The directories.
        dirs: Vec<PathBuf>,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            LoadError::Parse { path, message } => {
                write!(
                    f,
                    "{} is not an execution's result: {message}",
                    path.display()
                )
            }
            LoadError::Empty { dirs } => {
                let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                write!(
                    f,
                    "no execution results (`<case>/<runner>/result.json`) in {}",
                    dirs.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Loads every execution of `run_dirs`; an execution (case and runner) found in several
/// directories is taken from the last one given.
pub(super) fn load(run_dirs: &[PathBuf]) -> Result<RunReport, LoadError> {
    let mut executions: Vec<ExecutionResult> = Vec::new();
    let mut run_ids = Vec::with_capacity(run_dirs.len());
    let (mut started, mut ended): (Option<String>, Option<String>) = (None, None);
    for dir in run_dirs {
        let dir = fs::canonicalize(dir).map_err(|source| LoadError::Read {
            path: dir.clone(),
            source,
        })?;
        run_ids.push(
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        for execution in executions_in(&dir)? {
            executions.retain(|e| {
                !(e.case_id == execution.case_id && e.runner_id == execution.runner_id)
            });
            executions.push(execution);
        }
        if let Some((start, end)) = run_times(&dir) {
            started = Some(started.map_or(start.clone(), |s| s.min(start)));
            ended = Some(ended.map_or(end.clone(), |e| e.max(end)));
        }
    }
    if executions.is_empty() {
        return Err(LoadError::Empty {
            dirs: run_dirs.to_vec(),
        });
    }
    let mut report = RunReport::new(run_ids, run_dirs.to_vec(), executions);
    report.started_at = started;
    report.ended_at = ended;
    Ok(report)
}

/// The executions of one run directory, from `<case>/<runner>/result.json`: every entry but the
/// run directory's own ([`is_layout_name`], which no case id's directory is).
fn executions_in(dir: &Path) -> Result<Vec<ExecutionResult>, LoadError> {
    let read = |path: &Path| {
        fs::read_dir(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    let mut found = Vec::new();
    for case in read(dir)?.flatten() {
        let name = case.file_name();
        let name = name.to_string_lossy();
        if is_layout_name(&name) || !case.path().is_dir() {
            continue;
        }
        for runner in read(&case.path())?.flatten() {
            let file = runner.path().join("result.json");
            if !file.is_file() {
                continue;
            }
            let text = fs::read_to_string(&file).map_err(|source| LoadError::Read {
                path: file.clone(),
                source,
            })?;
            let execution: ExecutionResult =
                serde_json::from_str(&text).map_err(|error| LoadError::Parse {
                    path: file.clone(),
                    message: error.to_string(),
                })?;
            found.push(execution);
        }
    }
    Ok(found)
}

/// The start and end of an in-process run, from its `results.json`.
fn run_times(dir: &Path) -> Option<(String, String)> {
    let text = fs::read_to_string(dir.join("results.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some((
        value["started_at"].as_str()?.to_owned(),
        value["ended_at"].as_str()?.to_owned(),
    ))
}
