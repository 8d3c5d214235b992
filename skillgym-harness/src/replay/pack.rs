//! `cargo skillgym record`: a run directory's replayable part, copied into a directory that can
//! be committed. Each execution keeps its `result.json`; each attempt its stdout and stderr,
//! prompt, report, result, workspace record, the agent's own session file and whatever else
//! the adapter left beside them (usage files), and the same of each later turn of a
//! conversation (`turn-N/`). Workspaces, agent state directories, judge and
//! explain sessions, the scripted server's request log and what today's checks rewrite
//! (`grading.json`, `hooks.json`, `explain.json`) are left out. Every file is copied with the
//! secrets masked that this process knows: its environment's, and those of the run's config.
//!
//! | rule | why |
//! |---|---|
//! | the destination may not be, contain or lie inside the run directory (canonical paths; a missing destination's nearest existing ancestor decides) | copying a run into itself, or replacing it, would lose it |
//! | every recording gets a [`MARKER`] file | `--force` replaces only a directory holding one: a run directory, a source tree or a recording made before markers is never removed |

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::recording::{Recording, copy_attempt_files};

/// Attempt files a recording leaves out: replay writes them anew from today's checks, or
/// (the scripted server's request log, large and not read by replay) does without them.
const NOT_RECORDED: [&str; 5] = [
    "grading.json",
    "hooks.json",
    "explain.json",
    "explanations.json",
    crate::artifacts::REQUEST_LOG,
];

/// The file that marks a directory as a recording made by [`pack`]: the only kind of
/// directory `--force` removes.
pub const MARKER: &str = ".skillgym-recording";

/// What [`MARKER`] holds: what the directory is, for whoever finds it.
const MARKER_TEXT: &str = "{\n  \"skillgym_recording\": 1,\n  \"made_by\": \"cargo skillgym record\",\n  \"note\": \"a recorded run for `--replay`; `cargo skillgym record --force` replaces only a directory holding this file\"\n}\n";

/// What [`pack`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSummary {
    /// Executions (case x runner).
    pub executions: usize,
    /// Attempts (agent sessions).
    pub attempts: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Copies what replay needs of the run at `run_dir` into `out`, which must not exist or be
/// empty (`replace`: an existing recording there, one holding [`MARKER`], is removed first),
/// and must lie apart from `run_dir` (neither it, inside it, nor holding it).
pub fn pack(run_dir: &Path, out: &Path, replace: bool) -> io::Result<PackSummary> {
    let recording = Recording::open(run_dir)?;
    refuse_overlap(run_dir, out)?;
    remember_run_secrets(run_dir);
    prepare_out(out, replace)?;
    fs::write(out.join(MARKER), MARKER_TEXT)?;
    let mut summary = PackSummary {
        executions: 0,
        attempts: 0,
        bytes: 0,
    };
    for (key, execution) in recording.executions() {
        let target = super::recording::dir_of(out, key);
        fs::create_dir_all(&target)?;
        summary.bytes += crate::secrets::copy_file(
            &execution.dir.join("result.json"),
            &target.join("result.json"),
        )?;
        summary.executions += 1;
        for &(repetition, attempt) in &execution.attempts {
            let from = execution.attempt_dir(repetition, attempt);
            let to = target
                .join(format!("repeat-{repetition}"))
                .join(format!("attempt-{attempt}"));
            fs::create_dir_all(&to)?;
            summary.bytes += copy_attempt_files(&from, &to, &NOT_RECORDED)?;
            summary.bytes += copy_turns(&from, &to)?;
            summary.attempts += 1;
        }
    }
    Ok(summary)
}

/// The files of each later turn of a conversation (`turn-N/`, beside the first turn's), as the
/// attempt's own are copied (the turn's judge sessions left out); returns the bytes written.
fn copy_turns(from: &Path, to: &Path) -> io::Result<u64> {
    let mut bytes = 0;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let is_turn = name
            .to_str()
            .and_then(|n| n.strip_prefix("turn-"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if is_turn && entry.file_type()?.is_dir() {
            let target = to.join(&name);
            fs::create_dir_all(&target)?;
            bytes += copy_attempt_files(&entry.path(), &target, &NOT_RECORDED)?;
        }
    }
    Ok(bytes)
}

/// Refuses an `out` that is `run_dir`, lies inside it or holds it.
fn refuse_overlap(run_dir: &Path, out: &Path) -> io::Result<()> {
    let source = fs::canonicalize(run_dir)?;
    let target = resolved(out)?;
    let overlap = if target == source {
        "is"
    } else if target.starts_with(&source) {
        "lies inside"
    } else if source.starts_with(&target) {
        "holds"
    } else {
        return Ok(());
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the destination {} ({}) {overlap} the run directory {} ({}): choose a directory outside the run",
            out.display(),
            target.display(),
            run_dir.display(),
            source.display()
        ),
    ))
}

/// `path` with every symbolic link and `.`/`..` resolved, whether or not it exists: its nearest
/// existing ancestor resolved, then the missing rest (which holds no link) applied.
fn resolved(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    let base = loop {
        match fs::canonicalize(existing) {
            Ok(base) => break base,
            Err(error) => match existing.parent() {
                Some(parent) => {
                    missing.push(existing.components().next_back());
                    existing = parent;
                }
                None => return Err(error),
            },
        }
    };
    let mut resolved = base;
    for component in missing.into_iter().rev().flatten() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => resolved.push(name),
            _ => {}
        }
    }
    Ok(resolved)
}

/// Remembers the secrets the run masked, so that what is copied is masked too (a run made by
/// an older skillgym, a file an agent wrote): this process's environment, and `run.secrets`
/// and the agents' `env` of the config `run.json` names, when it still loads.
fn remember_run_secrets(run_dir: &Path) {
    use crate::secrets;
    let config = crate::run_record::RunRecord::read(run_dir)
        .ok()
        .and_then(|record| record.config)
        .and_then(|path| crate::config::load(&path).ok());
    if let Some(config) = &config {
        secrets::add_names(&config.run.secrets);
    }
    secrets::remember_process_env();
    let Some(config) = config else {
        return;
    };
    let judge = config.judge.iter().filter_map(|judge| judge.agent.as_ref());
    for agent in config
        .runners
        .iter()
        .map(|(_, runner)| &runner.agent)
        .chain(judge)
    {
        secrets::remember(agent.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
}

/// Makes `out` an empty directory: refuses one that holds files unless `replace` is set and it
/// is a recording made by [`pack`] (it holds [`MARKER`]), so a typo cannot wipe a source tree or
/// a run directory.
fn prepare_out(out: &Path, replace: bool) -> io::Result<()> {
    let occupied = fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_some());
    if occupied {
        if !replace {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is not empty; pass --force to replace the recording there",
                    out.display()
                ),
            ));
        }
        let marked = fs::symlink_metadata(out.join(MARKER)).is_ok_and(|meta| meta.is_file());
        if !marked {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is not empty and is not a recording made by `cargo skillgym record` (it holds no {MARKER} file); it is left alone: choose an empty directory, or remove it yourself",
                    out.display()
                ),
            ));
        }
        fs::remove_dir_all(out)?;
    }
    fs::create_dir_all(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::recording::tests::write;

    #[test]
    fn copies_what_replay_needs_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let execution = run.join("greets").join("claude");
        write(
            &execution.join("result.json"),
            r#"{"case_id":"greets","runner_id":"claude","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
        );
        let attempt = execution.join("repeat-1/attempt-1");
        for name in [
            "stdout.log",
            "report.json",
            "session.jsonl",
            "grading.json",
            "mock-requests.jsonl",
        ] {
            write(&attempt.join(name), name);
        }
        write(&attempt.join("agent-state/claude/secret.json"), "{}");
        // A conversation's second turn, with a judge session of its own.
        for name in ["stdout.log", "report.json", "result.json", "grading.json"] {
            write(&attempt.join("turn-2").join(name), name);
        }
        write(&attempt.join("turn-2/judge-rubrics/stdout.log"), "judge");
        write(&attempt.join("turn-x/stdout.log"), "not a turn");
        write(
            &run.join("workspaces/greets/claude/repeat-1/attempt-1/x"),
            "",
        );
        write(&run.join("results.json"), "{}");
        let out = tmp.path().join("recording");

        let summary = pack(&run, &out, false).unwrap();
        assert_eq!((summary.executions, summary.attempts), (1, 1));
        let copied = out.join("greets/claude/repeat-1/attempt-1");
        let mut names: Vec<String> = fs::read_dir(&copied)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["report.json", "session.jsonl", "stdout.log", "turn-2"]
        );
        assert_eq!(
            files(&copied.join("turn-2")),
            [
                PathBuf::from("report.json"),
                PathBuf::from("result.json"),
                PathBuf::from("stdout.log")
            ],
            "a later turn's session, without its grading or judge"
        );
        assert!(!out.join("results.json").exists());
        assert!(!out.join("workspaces").exists());

        let again = pack(&run, &out, false).unwrap_err().to_string();
        assert!(again.contains("pass --force"), "{again}");
        assert!(pack(&run, &out, true).is_ok());
        let elsewhere = tmp.path().join("src");
        write(&elsewhere.join("main.rs"), "");
        let refused = pack(&run, &elsewhere, true).unwrap_err().to_string();
        assert!(
            refused.contains("is not a recording made by `cargo skillgym record`"),
            "{refused}"
        );
        assert!(elsewhere.join("main.rs").is_file());
    }

    /// A run directory of one execution, `greets` on `claude`.
    fn run_dir(root: &Path) -> PathBuf {
        let run = root.join("runs/run");
        let execution = run.join("greets/claude");
        write(
            &execution.join("result.json"),
            r#"{"case_id":"greets","runner_id":"claude","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
        );
        write(&execution.join("repeat-1/attempt-1/stdout.log"), "out");
        run
    }

    /// Every file below `dir`, relative, sorted.
    fn files(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(next) = stack.pop() {
            for entry in fs::read_dir(&next).unwrap().map(Result::unwrap) {
                if entry.file_type().unwrap().is_dir() {
                    stack.push(entry.path());
                } else {
                    found.push(entry.path().strip_prefix(dir).unwrap().to_path_buf());
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn a_run_is_never_packed_into_itself_nor_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let run = run_dir(tmp.path());
        let before = files(&run);
        std::os::unix::fs::symlink("run", tmp.path().join("runs/latest")).unwrap();
        for (out, says) in [
            (run.clone(), "is the run directory"),
            (tmp.path().join("runs/latest"), "is the run directory"),
            (run.join("."), "is the run directory"),
            (run.join("greets/../greets/.."), "is the run directory"),
            (run.join("recording"), "lies inside the run directory"),
            (run.join("greets/claude"), "lies inside the run directory"),
            (run.join("missing/deeper"), "lies inside the run directory"),
            (tmp.path().join("runs"), "holds the run directory"),
            (run.join("missing/../.."), "holds the run directory"),
            (tmp.path().to_path_buf(), "holds the run directory"),
        ] {
            for force in [false, true] {
                let error = pack(&run, &out, force).unwrap_err().to_string();
                assert!(error.contains(says), "{}: {error}", out.display());
                assert!(
                    error.contains(&run.display().to_string())
                        && error.contains(&out.display().to_string()),
                    "names both: {error}"
                );
                assert_eq!(files(&run), before, "{} left the run alone", out.display());
            }
        }
        assert!(!run.join("missing").exists() && !run.join("recording").exists());
        // Beside the run is fine.
        pack(&run, &tmp.path().join("runs/recording"), false).unwrap();
    }

    #[test]
    fn force_replaces_only_a_directory_holding_the_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let run = run_dir(tmp.path());
        let out = tmp.path().join("recording");
        pack(&run, &out, false).unwrap();
        let marker = fs::read_to_string(out.join(MARKER)).unwrap();
        assert!(marker.contains("cargo skillgym record"), "{marker}");
        Recording::open(&out).expect("a recording replays, marker and all");
        write(&out.join("stale/file"), "");
        pack(&run, &out, true).expect("a recording is replaced");
        assert!(!out.join("stale").exists() && out.join(MARKER).is_file());

        // Another run directory: a recording to `Recording::open`, but no marker.
        let other = tmp.path().join("other");
        pack(&run, &other, false).unwrap();
        fs::remove_file(other.join(MARKER)).unwrap();
        let before = files(&other);
        let error = pack(&run, &other, true).unwrap_err().to_string();
        assert!(
            error.contains("holds no .skillgym-recording file"),
            "{error}"
        );
        assert_eq!(files(&other), before);
        // A marker that is a link (to a file elsewhere) is no marker.
        std::os::unix::fs::symlink(out.join(MARKER), other.join(MARKER)).unwrap();
        assert!(pack(&run, &other, true).is_err());
        assert!(other.join("greets/claude/result.json").is_file());
    }

    #[test]
    fn the_examples_recording_carries_the_marker() {
        // `examples/agents/record.sh` re-records it with `--force`.
        let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/agents/recording")
            .join(MARKER);
        assert_eq!(fs::read_to_string(committed).unwrap(), MARKER_TEXT);
    }
}
