//! A recorded run: a run directory, or a copy of one packed by `cargo skillgym record`. Its
//! executions are found from their `result.json` files, its runners' agents from the first
//! attempt's `report.json`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use skillgym::Failure;

use crate::artifacts::sanitize;

/// A recorded run, indexed by case and runner.
#[derive(Debug)]
pub struct Recording {
    root: PathBuf,
    executions: BTreeMap<(String, String), RecordedExecution>,
}

/// One recorded execution: its attempts, in recorded order.
#[derive(Debug, Clone)]
pub struct RecordedExecution {
    /// `(repetition, attempt)`, in the order they ran.
    pub attempts: Vec<(u32, u32)>,
    /// The execution's directory inside the recording.
    pub dir: PathBuf,
}

/// The agent a recorded runner ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedAgent {
    /// The agent type, e.g. `claude-code`.
    pub kind: String,
    /// The model, if one was configured.
    pub model: Option<String>,
}

/// What a recording's `result.json` of an execution says (the fields replay reads).
#[derive(Deserialize)]
struct ExecutionFile {
    case_id: String,
    runner_id: String,
    #[serde(default)]
    repetitions: Vec<RepetitionFile>,
}

#[derive(Deserialize)]
struct RepetitionFile {
    #[serde(default)]
    attempts: Vec<AttemptFile>,
}

/// An attempt's `result.json` (the fields replay reads).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct AttemptFile {
    pub repetition: u32,
    pub attempt: u32,
    #[serde(default)]
    pub failure: Option<Failure>,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub signal: Option<i32>,
}

/// The files a recording must hold to be replayed, said when one is missing.
const REQUIRED: &str = "`<case>/<runner>/result.json` files";

impl Recording {
    /// Opens the recorded run at `root`: every `<case>/<runner>/result.json` below it.
    pub fn open(root: &Path) -> io::Result<Recording> {
        let mut executions = BTreeMap::new();
        let entries = fs::read_dir(root).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot read the recording {}: {error}", root.display()),
            )
        })?;
        let mut case_dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        case_dirs.sort();
        for case_dir in case_dirs {
            let Ok(runner_dirs) = fs::read_dir(&case_dir) else {
                continue;
            };
            for runner_dir in runner_dirs.filter_map(Result::ok).map(|e| e.path()) {
                let file = runner_dir.join("result.json");
                if !file.is_file() {
                    continue;
                }
                let execution: ExecutionFile = read_json(&file)?;
                let attempts = execution
                    .repetitions
                    .iter()
                    .flat_map(|repetition| &repetition.attempts)
                    .map(|attempt| (attempt.repetition, attempt.attempt))
                    .collect();
                executions.insert(
                    (execution.case_id, execution.runner_id),
                    RecordedExecution {
                        attempts,
                        dir: runner_dir,
                    },
                );
            }
        }
        if executions.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} is not a recorded run: it holds no {REQUIRED} (give a run directory, `target/skillgym/runs/<run-id>`, or a directory made by `cargo skillgym record`)",
                    root.display()
                ),
            ));
        }
        Ok(Recording {
            root: root.to_path_buf(),
            executions,
        })
    }

    /// Where the recording is.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The recorded execution of `case_id` on `runner_id`, if any.
    pub fn execution(&self, case_id: &str, runner_id: &str) -> Option<&RecordedExecution> {
        self.executions
            .get(&(case_id.to_owned(), runner_id.to_owned()))
    }

    /// Every recorded execution, keyed by (case id, runner id), sorted.
    pub fn executions(&self) -> impl Iterator<Item = (&(String, String), &RecordedExecution)> {
        self.executions.iter()
    }

    /// The runner ids the recording holds, sorted.
    pub fn runner_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.executions.keys().map(|(_, r)| r.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The agent `runner_id` ran, from the first of its attempts that has a `report.json`.
    pub fn agent(&self, runner_id: &str) -> Option<RecordedAgent> {
        #[derive(Deserialize)]
        struct Report {
            runner: Runner,
        }
        #[derive(Deserialize)]
        struct Runner {
            agent: Agent,
        }
        #[derive(Deserialize)]
        struct Agent {
            #[serde(rename = "type")]
            kind: String,
            #[serde(default)]
            model: Option<String>,
        }
        self.executions
            .iter()
            .filter(|((_, runner), _)| runner == runner_id)
            .flat_map(|(_, execution)| {
                execution
                    .attempts
                    .iter()
                    .map(|&(r, a)| execution.attempt_dir(r, a).join("report.json"))
            })
            .find_map(|path| read_json::<Report>(&path).ok())
            .map(|report| RecordedAgent {
                kind: report.runner.agent.kind,
                model: report.runner.agent.model,
            })
    }
}

impl RecordedExecution {
    /// The directory of one recorded attempt.
    pub fn attempt_dir(&self, repetition: u32, attempt: u32) -> PathBuf {
        self.dir
            .join(format!("repeat-{repetition}"))
            .join(format!("attempt-{attempt}"))
    }

    /// Whether the recording holds this attempt.
    pub fn has(&self, repetition: u32, attempt: u32) -> bool {
        self.attempts.contains(&(repetition, attempt))
    }

    /// How many repetitions the recording holds.
    pub fn repetitions(&self) -> u32 {
        self.attempts.iter().map(|&(r, _)| r).max().unwrap_or(0)
    }
}

/// The directory `case_id` on `runner_id` has in a run (or recording) directory.
pub fn execution_dir(root: &Path, case_id: &str, runner_id: &str) -> PathBuf {
    root.join(sanitize(case_id)).join(sanitize(runner_id))
}

/// Copies the regular files at the top of the attempt directory `from` (not its directories)
/// into `to`, but those named in `skip`, every secret this process remembers masked on the
/// way (streaming: a file of any size); returns the bytes written.
pub(crate) fn copy_attempt_files(from: &Path, to: &Path, skip: &[&str]) -> io::Result<u64> {
    let mut bytes = 0;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if !entry.file_type()?.is_file() || skip.iter().any(|skip| name == *skip) {
            continue;
        }
        bytes += crate::secrets::copy_file(&entry.path(), &to.join(&name))?;
    }
    Ok(bytes)
}

/// Reads a JSON file, the error naming it.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> io::Result<T> {
    let text = fs::read(path)?;
    serde_json::from_slice(&text).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {error}", path.display()),
        )
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Writes `text` to `path`, creating its directories.
    pub(in crate::replay) fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn indexes_executions_attempts_and_agents() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let execution = execution_dir(root, "cases::greets", "claude");
        write(
            &execution.join("result.json"),
            r#"{"case_id":"cases::greets","runner_id":"claude","repetitions":[
                {"attempts":[{"repetition":1,"attempt":1},{"repetition":1,"attempt":2}]},
                {"attempts":[{"repetition":2,"attempt":1}]}]}"#,
        );
        write(
            &execution.join("repeat-1/attempt-2/report.json"),
            r#"{"runner":{"id":"claude","agent":{"type":"claude-code","model":"m"}}}"#,
        );
        write(&root.join("workspaces/x/y/file"), "");
        let recording = Recording::open(root).unwrap();
        let recorded = recording.execution("cases::greets", "claude").unwrap();
        assert_eq!(recorded.attempts, [(1, 1), (1, 2), (2, 1)]);
        assert!(recorded.has(1, 2) && !recorded.has(2, 2));
        assert_eq!(recorded.repetitions(), 2);
        assert!(recording.execution("cases::greets", "codex").is_none());
        assert_eq!(recording.runner_ids(), ["claude"]);
        assert_eq!(
            recording.agent("claude"),
            Some(RecordedAgent {
                kind: "claude-code".into(),
                model: Some("m".into())
            })
        );
        assert_eq!(recording.agent("codex"), None);
    }

    #[test]
    fn a_directory_without_results_is_not_a_recording() {
        let tmp = tempfile::tempdir().unwrap();
        let error = Recording::open(tmp.path()).unwrap_err().to_string();
        assert!(error.contains("is not a recorded run"), "{error}");
        let error = Recording::open(&tmp.path().join("missing"))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("cannot read the recording"), "{error}");
    }
}
