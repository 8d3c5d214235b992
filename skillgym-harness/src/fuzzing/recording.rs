//! A recorded run on arbitrary files, as `--replay` and `cargo skillgym record` read it:
//! [`Recording::open`], the recorded agent, every recorded attempt replayed through today's
//! adapter (its files copied, its stdout re-normalized, its session files collected), and the
//! recording packed again.
//!
//! | input (NUL-separated) | written at, in `rec/a/r/` |
//! |---|---|
//! | first byte | the agent type when no `report.json` names one |
//! | 1st file | `result.json` (the execution) |
//! | 2nd to 8th | `repeat-1/attempt-1/` `result.json`, `report.json`, `workspace.json`, `stdout.log`, `stderr.log`, `skill-manifests.json`, `copilot-usage.json` |

use std::time::Duration;

use super::scratch;
use crate::agent::SessionSpec;
use crate::config::AgentKind;
use crate::execute::SessionLimits;
use crate::execute::replay::{RecordedAttempt, recorded_duration, replay_session};
use crate::replay::{RecordedAgent, Recording, adapter, pack};

/// The files of a recorded attempt the input fills, in order.
const ATTEMPT_FILES: [&str; 7] = [
    "result.json",
    "report.json",
    "workspace.json",
    "stdout.log",
    "stderr.log",
    "skill-manifests.json",
    "copilot-usage.json",
];

/// Every agent type a recording can name: the agent CLIs, then `command`.
const KINDS: [AgentKind; AgentKind::CLIS.len() + 1] = {
    let mut kinds = [AgentKind::Command; AgentKind::CLIS.len() + 1];
    let mut i = 0;
    while i < AgentKind::CLIS.len() {
        kinds[i] = AgentKind::CLIS[i];
        i += 1;
    }
    kinds
};

/// Writes the recording `bytes` make (see the module), opens it, replays each of its attempts
/// and packs it; checks that replayed reports survive a JSON round trip and that the packed
/// recording holds the same executions and attempts. For fuzz targets; not a stable API.
/// Replays one recorded attempt into `artifact_dir`; its report must read back.
fn replay_one(
    adapter: &dyn crate::agent::Agent,
    agent: &RecordedAgent,
    runner: &str,
    attempt_dir: &std::path::Path,
    artifact_dir: &std::path::Path,
) {
    let _ = recorded_duration(attempt_dir);
    std::fs::create_dir_all(artifact_dir).expect("the replay's directory");
    let prompt_file = artifact_dir.join("prompt.md");
    let state_dir = artifact_dir.join("agent-state");
    let spec = SessionSpec {
        runner_id: runner,
        prompt: "fuzz prompt",
        prompt_file: &prompt_file,
        cwd: artifact_dir,
        artifact_dir,
        state_dir: &state_dir,
        provider: None,
        skills: &[],
        env: &[],
    };
    let limits = SessionLimits {
        timeout: Duration::from_secs(60),
        max_steps: Some(50),
        max_output: 1 << 20,
        live_steps: None,
        sandbox: None,
        trigger: None,
    };
    let recorded_attempt = RecordedAttempt {
        dir: attempt_dir,
        agent,
    };
    let (output, _) = replay_session(adapter, &spec, recorded_attempt, &limits);
    let json = serde_json::to_string(&output.report).expect("the report serializes");
    if let Err(error) = serde_json::from_str::<skillgym::SessionReport>(&json) {
        panic!("the replayed report does not read back: {error}\n{json}");
    }
}

pub fn recording(bytes: &[u8]) {
    let Some((&kind, rest)) = bytes.split_first() else {
        return;
    };
    let dir = scratch::fresh("recording");
    let root = dir.join("rec");
    let execution = root.join("a/r");
    let files = scratch::files(rest, 1 + ATTEMPT_FILES.len());
    scratch::write_some(&execution.join("result.json"), files[0]);
    for (name, file) in ATTEMPT_FILES.iter().zip(&files[1..]) {
        scratch::write_some(&execution.join("repeat-1/attempt-1").join(name), *file);
    }
    let recording = match Recording::open(&root) {
        Ok(recording) => recording,
        Err(error) => {
            assert!(!error.to_string().is_empty(), "an empty recording error");
            return;
        }
    };
    for runner in recording.runner_ids() {
        let agent = recording.agent(runner).unwrap_or_else(|| RecordedAgent {
            kind: KINDS[usize::from(kind) % KINDS.len()].as_str().to_owned(),
            model: None,
            version: None,
        });
        let Ok(adapter) = adapter(&agent) else {
            continue;
        };
        for (_, recorded) in recording
            .executions()
            .filter(|(key, _)| key.runner_id == *runner)
        {
            for (number, &(repetition, attempt)) in recorded.attempts.iter().enumerate() {
                let artifact_dir = dir.join(format!("replayed/{number}"));
                let attempt_dir = recorded.attempt_dir(repetition, attempt);
                replay_one(
                    adapter.as_ref(),
                    &agent,
                    runner,
                    &attempt_dir,
                    &artifact_dir,
                );
            }
        }
    }
    let packed = dir.join("packed");
    if pack(&root, &packed, false).is_ok() {
        let again = Recording::open(&packed).expect("a packed recording opens");
        let before: Vec<_> = recording
            .executions()
            .map(|(key, e)| (key.clone(), e.attempts.clone()))
            .collect();
        let after: Vec<_> = again
            .executions()
            .map(|(key, e)| (key.clone(), e.attempts.clone()))
            .collect();
        assert_eq!(after, before, "packing changed the recording's executions");
    }
}
