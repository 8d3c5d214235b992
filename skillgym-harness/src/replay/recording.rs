//! A recorded run: a run directory, or a copy of one packed by `cargo skillgym record`. Its
//! executions are found from their `result.json` files, its runners' agents from the first
//! attempt's `report.json`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use skillgym::Failure;

use crate::artifacts::{is_layout_name, sanitize};

/// A recorded run, indexed by case, runner and variant.
#[derive(Debug)]
pub struct Recording {
    root: PathBuf,
    executions: BTreeMap<ExecutionKey, RecordedExecution>,
}

/// Which execution of a recording: a case on a runner, under a variant or not.
pub use crate::results::ExecutionKey;

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
    /// The agent's version, when the recording knows it (recordings made before versions
    /// were recorded do not).
    pub version: Option<String>,
}

/// What a recording's `result.json` of an execution says (the fields replay reads).
#[derive(Deserialize)]
struct ExecutionFile {
    case_id: String,
    runner_id: String,
    #[serde(default)]
    variant: Option<String>,
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
    /// What a trigger session showed (its `ended` is replayed; what fired is read again).
    #[serde(default)]
    pub trigger: Option<crate::results::TriggerObservation>,
}

/// The files a recording must hold to be replayed, said when one is missing.
const REQUIRED: &str =
    "`<case>/<runner>/result.json` (or `<case>/<runner>/<variant>/result.json`) files";

impl Recording {
    /// Opens the recorded run at `root`: every `<case>/<runner>/result.json` below it (a case
    /// run under variants: `<case>/<runner>/<variant>/result.json`) but the
    /// run directory's own entries (`is_layout_name`). A symbolic link on the way to what
    /// replay reads (a case, runner, repetition or attempt directory, a `result.json`, a file
    /// of an attempt) must resolve inside `root`: one that leaves it is an error naming it.
    pub fn open(root: &Path) -> io::Result<Recording> {
        let unreadable = |error: io::Error| {
            io::Error::new(
                error.kind(),
                format!("cannot read the recording {}: {error}", root.display()),
            )
        };
        let inside = Inside {
            root,
            canonical: fs::canonicalize(root).map_err(unreadable)?,
        };
        let mut executions = BTreeMap::new();
        let case_dirs = fs::read_dir(root).map_err(unreadable)?;
        for case_dir in sorted(case_dirs, &inside, true)? {
            let Ok(runner_dirs) = fs::read_dir(&case_dir) else {
                continue;
            };
            for runner_dir in sorted(runner_dirs, &inside, false)? {
                let file = runner_dir.join("result.json");
                inside.check(&file)?;
                if file.is_file() {
                    let (key, recorded) = recorded_execution(&runner_dir, &inside)?;
                    executions.insert(key, recorded);
                    continue;
                }
                let Ok(variant_dirs) = fs::read_dir(&runner_dir) else {
                    continue;
                };
                for variant_dir in sorted(variant_dirs, &inside, false)? {
                    let file = variant_dir.join("result.json");
                    inside.check(&file)?;
                    if file.is_file() {
                        let (key, recorded) = recorded_execution(&variant_dir, &inside)?;
                        if key.variant.is_some() {
                            executions.insert(key, recorded);
                        }
                    }
                }
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
    pub fn execution(
        &self,
        case_id: &str,
        runner_id: &str,
        variant: Option<&str>,
    ) -> Option<&RecordedExecution> {
        self.executions
            .get(&ExecutionKey::new(case_id, runner_id, variant))
    }

    /// Every recorded execution, by key, sorted.
    pub fn executions(&self) -> impl Iterator<Item = (&ExecutionKey, &RecordedExecution)> {
        self.executions.iter()
    }

    /// The runner ids the recording holds, sorted.
    pub fn runner_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .executions
            .keys()
            .map(|k| k.runner_id.as_str())
            .collect();
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
            #[serde(default)]
            version: Option<String>,
        }
        self.executions
            .iter()
            .filter(|(key, _)| key.runner_id == runner_id)
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
                version: report.runner.agent.version,
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

/// The directories among `entries` that replay looks into, sorted, each checked by
/// [`Inside::check`]; at the `top` (where the run directory keeps its own entries beside the
/// cases), every one but those ([`is_layout_name`]).
fn sorted(entries: fs::ReadDir, inside: &Inside<'_>, top: bool) -> io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| !(top && is_layout_name(&entry.file_name().to_string_lossy())))
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    paths.sort();
    for path in &paths {
        inside.check(path)?;
    }
    Ok(paths)
}

/// The recording's root, to check that symbolic links stay inside it.
struct Inside<'a> {
    /// As given, for messages.
    root: &'a Path,
    /// Resolved.
    canonical: PathBuf,
}

impl Inside<'_> {
    /// Refuses `path` when it is a symbolic link that does not resolve inside the recording
    /// (its target elsewhere, or missing); anything else (a missing path included) is fine.
    fn check(&self, path: &Path) -> io::Result<()> {
        let is_link = fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
        if !is_link {
            return Ok(());
        }
        let target = fs::read_link(path).unwrap_or_default();
        let problem = match fs::canonicalize(path) {
            Ok(resolved) if resolved.starts_with(&self.canonical) => return Ok(()),
            Ok(resolved) => format!(
                "is a symbolic link to `{}` ({}), outside the recording {}",
                target.display(),
                resolved.display(),
                self.root.display()
            ),
            Err(_) => format!(
                "is a symbolic link to `{}`, which does not exist",
                target.display()
            ),
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} {problem}: a recording is read only inside its own directory (replace the link with a copy of what it points to, or remove it)",
                path.display()
            ),
        ))
    }

    /// Checks the recorded attempt's repetition and attempt directories and every entry at the
    /// top of the attempt directory (the files replay copies and reads).
    fn check_attempt(
        &self,
        execution: &RecordedExecution,
        repetition: u32,
        attempt: u32,
    ) -> io::Result<()> {
        let dir = execution.attempt_dir(repetition, attempt);
        self.check(dir.parent().unwrap_or(&dir))?;
        self.check(&dir)?;
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(());
        };
        for entry in entries.filter_map(Result::ok) {
            self.check(&entry.path())?;
        }
        Ok(())
    }
}

/// The directory `case_id` on `runner_id` has in a run (or recording) directory.
pub fn execution_dir(root: &Path, case_id: &str, runner_id: &str) -> PathBuf {
    root.join(sanitize(case_id)).join(sanitize(runner_id))
}

/// The directory of the execution `key` in `root`: [`execution_dir`], then the variant's.
pub(crate) fn dir_of(root: &Path, key: &ExecutionKey) -> PathBuf {
    let dir = execution_dir(root, &key.case_id, &key.runner_id);
    match &key.variant {
        Some(variant) => dir.join(sanitize(variant)),
        None => dir,
    }
}

/// The recorded execution in `dir` (which holds its `result.json`), with its key.
fn recorded_execution(
    dir: &Path,
    inside: &Inside<'_>,
) -> io::Result<(ExecutionKey, RecordedExecution)> {
    let execution: ExecutionFile = read_json(&dir.join("result.json"))?;
    let attempts: Vec<(u32, u32)> = execution
        .repetitions
        .iter()
        .flat_map(|repetition| &repetition.attempts)
        .map(|attempt| (attempt.repetition, attempt.attempt))
        .collect();
    let recorded = RecordedExecution {
        attempts,
        dir: dir.to_path_buf(),
    };
    for &(repetition, attempt) in &recorded.attempts {
        inside.check_attempt(&recorded, repetition, attempt)?;
    }
    let key = ExecutionKey::new(
        &execution.case_id,
        &execution.runner_id,
        execution.variant.as_deref(),
    );
    Ok((key, recorded))
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
            r#"{"runner":{"id":"claude","agent":{"type":"claude-code","model":"m","version":"2.1.330"}}}"#,
        );
        write(&root.join("workspaces/x/y/file"), "");
        let recording = Recording::open(root).unwrap();
        let recorded = recording
            .execution("cases::greets", "claude", None)
            .unwrap();
        assert_eq!(recorded.attempts, [(1, 1), (1, 2), (2, 1)]);
        assert!(recorded.has(1, 2) && !recorded.has(2, 2));
        assert_eq!(recorded.repetitions(), 2);
        assert!(
            recording
                .execution("cases::greets", "codex", None)
                .is_none()
        );
        assert_eq!(recording.runner_ids(), ["claude"]);
        assert_eq!(
            recording.agent("claude"),
            Some(RecordedAgent {
                kind: "claude-code".into(),
                model: Some("m".into()),
                version: Some("2.1.330".into()),
            })
        );
        assert_eq!(recording.agent("codex"), None);
    }

    /// A recording of `greets` on `claude`, one attempt, under `root`.
    fn greets(root: &Path) -> PathBuf {
        let execution = execution_dir(root, "greets", "claude");
        write(
            &execution.join("result.json"),
            r#"{"case_id":"greets","runner_id":"claude","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
        );
        write(&execution.join("repeat-1/attempt-1/stdout.log"), "recorded");
        execution
    }

    /// Recording::open's error on `root`.
    fn refused(root: &Path) -> String {
        Recording::open(root).unwrap_err().to_string()
    }

    #[test]
    fn a_symlink_leaving_the_recording_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        write(&outside.join("secret.txt"), "secret");
        write(&outside.join("attempt/stdout.log"), "secret");
        let root = tmp.path().join("recording");
        let execution = greets(&root);
        let attempt = execution.join("repeat-1/attempt-1");
        let link = |target: &Path, at: &Path| {
            std::os::unix::fs::symlink(target, at).unwrap();
            at.to_path_buf()
        };
        let says = |error: &str, at: &Path, target: &Path| {
            assert!(
                error.starts_with(&format!(
                    "{} is a symbolic link to `{}`",
                    at.display(),
                    target.display()
                )),
                "{error}"
            );
        };

        // A file of an attempt.
        let at = link(&outside.join("secret.txt"), &attempt.join("session.jsonl"));
        let error = refused(&root);
        says(&error, &at, &outside.join("secret.txt"));
        assert!(
            error.contains(&format!("outside the recording {}", root.display())),
            "{error}"
        );
        fs::remove_file(&at).unwrap();

        // The attempt directory itself, and the repetition's.
        fs::rename(&attempt, tmp.path().join("moved")).unwrap();
        let at = link(&outside.join("attempt"), &attempt);
        says(&refused(&root), &at, &outside.join("attempt"));
        fs::remove_file(&at).unwrap();
        let at = link(&outside, &execution.join("repeat-2"));
        write(
            &execution.join("result.json"),
            r#"{"case_id":"greets","runner_id":"claude","repetitions":[{"attempts":[{"repetition":2,"attempt":1}]}]}"#,
        );
        says(&refused(&root), &at, &outside);
        fs::remove_file(&at).unwrap();

        // A case directory, a runner directory, an execution's result.json.
        let case = tmp.path().join("case");
        greets(&case);
        let at = link(&case.join("greets"), &root.join("other"));
        says(&refused(&root), &at, &case.join("greets"));
        fs::remove_file(&at).unwrap();
        let at = link(&case.join("greets/claude"), &root.join("greets/codex"));
        says(&refused(&root), &at, &case.join("greets/claude"));
        fs::remove_file(&at).unwrap();
        fs::create_dir_all(root.join("greets/codex")).unwrap();
        let at = link(
            &case.join("greets/claude/result.json"),
            &root.join("greets/codex/result.json"),
        );
        says(
            &refused(&root),
            &at,
            &case.join("greets/claude/result.json"),
        );
        fs::remove_file(&at).unwrap();

        // Back to the one recorded attempt.
        write(
            &execution.join("result.json"),
            r#"{"case_id":"greets","runner_id":"claude","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
        );
        fs::rename(tmp.path().join("moved"), &attempt).unwrap();

        // A dangling link among an attempt's files, relative.
        let at = link(Path::new("../nowhere"), &attempt.join("dangling"));
        let error = refused(&root);
        says(&error, &at, Path::new("../nowhere"));
        assert!(error.contains("which does not exist"), "{error}");
        fs::remove_file(&at).unwrap();

        // Links that stay inside are fine, and so is a recording reached through a link.
        link(Path::new("greets"), &root.join("alias"));
        link(Path::new("stdout.log"), &attempt.join("session.jsonl"));
        let latest = link(&root, &tmp.path().join("latest"));
        let recording = Recording::open(&latest).expect("links inside the recording");
        assert!(recording.execution("greets", "claude", None).is_some());
    }

    #[test]
    fn the_run_directory_s_own_entries_are_no_cases_and_no_case_is_one_of_them() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        greets(root);
        // Case `suites` beside the run's own `suites/` (suite hook records).
        let suites = execution_dir(root, "suites", "crash");
        write(
            &suites.join("result.json"),
            r#"{"case_id":"suites","runner_id":"crash","repetitions":[]}"#,
        );
        write(&root.join("suites/showcase/before_all.json"), "{}");
        // A shared workspace holding a `result.json` of the project under test, and agent
        // state that links outside: neither is read.
        write(&root.join("workspaces/shared/result.json"), "not a result");
        std::os::unix::fs::symlink("/", root.join("workspaces/outside")).unwrap();
        let recording = Recording::open(root).unwrap();
        assert!(recording.execution("suites", "crash", None).is_some());
        assert!(recording.execution("greets", "claude", None).is_some());
        assert_eq!(recording.executions().count(), 2);
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
