//! `cargo skillgym record`: a run directory's replayable part, copied into a directory that can
//! be committed. Each execution keeps its `result.json`; each attempt its stdout and stderr,
//! prompt, report, result, workspace record, the agent's own session file and whatever else
//! the adapter left beside them (usage files). Workspaces, agent state directories, judge and
//! explain sessions, the scripted server's request log and what today's checks rewrite
//! (`grading.json`, `hooks.json`, `explain.json`) are left out. Every file is copied with the
//! secrets masked that this process knows: its environment's, and those of the run's config.

use std::fs;
use std::io;
use std::path::Path;

use super::recording::{Recording, copy_attempt_files};

/// Attempt files a recording leaves out: replay writes them anew from today's checks, or
/// (the scripted server's request log, large and not read by replay) does without them.
const NOT_RECORDED: [&str; 5] = [
    "grading.json",
    "hooks.json",
    "explain.json",
    "explanations.json",
    crate::dry_run::REQUEST_LOG,
];

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
/// empty (`replace`: an existing recording there is removed first).
pub fn pack(run_dir: &Path, out: &Path, replace: bool) -> io::Result<PackSummary> {
    let recording = Recording::open(run_dir)?;
    remember_run_secrets(run_dir);
    prepare_out(out, replace)?;
    let mut summary = PackSummary {
        executions: 0,
        attempts: 0,
        bytes: 0,
    };
    for ((case_id, runner_id), execution) in recording.executions() {
        let target = super::recording::execution_dir(out, case_id, runner_id);
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
            summary.attempts += 1;
        }
    }
    Ok(summary)
}

/// Remembers the secrets the run masked, so that what is copied is masked too (a run made by
/// an older skillgym, a file an agent wrote): this process's environment, and `run.secrets`
/// and the agents' `env` of the config `run.json` names, when it still loads.
fn remember_run_secrets(run_dir: &Path) {
    use crate::secrets;
    let config = crate::explain::RunRecord::read(run_dir)
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
/// is a recording (so a typo cannot wipe a source tree).
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
        if Recording::open(out).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is not empty and holds no recording; it is left alone (choose an empty directory)",
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
        assert_eq!(names, ["report.json", "session.jsonl", "stdout.log"]);
        assert!(!out.join("results.json").exists());
        assert!(!out.join("workspaces").exists());

        let again = pack(&run, &out, false).unwrap_err().to_string();
        assert!(again.contains("pass --force"), "{again}");
        assert!(pack(&run, &out, true).is_ok());
        let elsewhere = tmp.path().join("src");
        write(&elsewhere.join("main.rs"), "");
        let refused = pack(&run, &elsewhere, true).unwrap_err().to_string();
        assert!(refused.contains("holds no recording"), "{refused}");
        assert!(elsewhere.join("main.rs").is_file());
    }
}
