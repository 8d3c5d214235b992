//! The session of a conversation's later turn (`super::conversation`): the agent resumed in
//! the attempt's workspace and agent state, or the recorded turn replayed.
//!
//! | | live | replayed |
//! |---|---|---|
//! | command line | the adapter's [`resume`](crate::agent::Agent::resume) of the previous turn's session id | none: the recording's `turn-N/` re-normalized |
//! | files | `turn-N/`: `prompt.md`, `stdout.log`, `stderr.log`, `report.json`, `result.json` (how the process ended; and `mock-requests.jsonl` under `--mock`) | the same, copied from the recording and regenerated |
//! | no session id to resume, a launch error, a crash, a timeout | the attempt's failure, its message starting `turn N:` | a turn missing from the recording: the same |

use std::path::Path;

use skillgym::{Failure, FailureOrigin, InstalledSkill, SessionReport};

use super::Engine;
use super::attempt::AttemptId;
use super::conversation::turn_dir;
use super::replay::{RecordedAttempt, replay_session};
use super::runtimes::Lease;
use super::session::{SessionLimits, run_launch};
use crate::agent::{Agent, SessionSpec};
use crate::artifacts::write_json_or_note;
use crate::replay::RecordedAgent;

/// What every later turn of one live attempt shares.
pub(super) struct Resuming<'a> {
    pub(super) run: &'a Engine,
    pub(super) runtime: &'a Lease,
    pub(super) id: AttemptId<'a>,
    pub(super) attempt_dir: &'a Path,
    pub(super) cwd: &'a Path,
    pub(super) installed: &'a [InstalledSkill],
}

/// Turn `number`'s session: the agent resumed with `prompt` (its steps added to `steps`).
pub(super) fn resume(
    at: &Resuming<'_>,
    number: usize,
    prompt: &str,
    session_id: Option<&str>,
    steps: &mut u32,
) -> Result<SessionReport, Failure> {
    let Resuming { run, id, .. } = at;
    let runner = id.runner;
    let session_id = session_id.ok_or_else(|| no_session_id(number))?;
    let dir = turn_dir(at.attempt_dir, number);
    let (prompt_file, _private_prompt) = std::fs::create_dir_all(&dir)
        .and_then(|()| crate::agent::isolation::write_prompt(&dir.join("prompt.md"), prompt))
        .map_err(|error| turn_failure(number, FailureOrigin::Artifacts, error.to_string()))?;
    let mut mock = run
        .dry_run
        .as_ref()
        .and_then(|dry| dry.open_turn(id.case, number, runner, at.cwd, &dir));
    let env: Vec<(String, String)> = id
        .variant
        .map(|v| v.env.clone().into_iter().collect())
        .unwrap_or_default();
    let state_dir = at.attempt_dir.join("agent-state");
    let spec = SessionSpec {
        runner_id: &runner.id,
        prompt,
        prompt_file: &prompt_file,
        cwd: at.cwd,
        artifact_dir: &dir,
        state_dir: &state_dir,
        provider: mock.as_ref().map(|session| &session.provider),
        skills: at.installed,
        env: &env,
    };
    let limits = super::attempt::live_limits(run, *id, None);
    let agent = runner.agent.as_ref();
    let launch = agent
        .resume(&spec, session_id)
        .unwrap_or_else(|| Err(std::io::Error::other("the agent cannot resume a session")));
    let mut session = at
        .runtime
        .block_on(run_launch(agent, &spec, limits, launch));
    run.versions.settle(&mut session.report, runner);
    run.settings.pricing.estimate(&mut session.report);
    if mock.take().is_some() {
        let log = dir.join(crate::artifacts::REQUEST_LOG);
        session.report.raw_artifacts.model_requests = log.is_file().then_some(log);
    }
    write_json_or_note(&dir.join("report.json"), &session.report);
    // What replay reads of how the turn's process ended.
    let ended = serde_json::json!({
        "repetition": id.repetition,
        "attempt": id.attempt,
        "turn": number,
        "exit_code": session.exit_code,
        "signal": session.signal,
        "failure": session.failure,
        "duration_ms": session.report.timing.duration_ms,
    });
    write_json_or_note(&dir.join("result.json"), &ended);
    *steps += session.steps;
    match session.failure {
        Some(failure) => Err(named(number, failure)),
        None => Ok(session.report),
    }
}

/// What every later turn of one replayed attempt shares.
pub(super) struct Replaying<'a> {
    /// The replaying runner's agent (the recorded agent's adapter).
    pub(super) agent: &'a dyn Agent,
    /// The attempt's own session spec (its artifact directory is the new attempt's).
    pub(super) spec: &'a SessionSpec<'a>,
    /// The agent the recorded runner ran.
    pub(super) recorded_agent: &'a RecordedAgent,
    /// The recorded attempt's directory.
    pub(super) recorded_attempt: &'a Path,
    pub(super) limits: &'a SessionLimits,
}

impl Replaying<'_> {
    /// Turn `number`'s recorded session ([`replay`]).
    pub(super) fn turn(&self, number: usize, prompt: &str) -> Result<SessionReport, Failure> {
        replay(self, number, prompt)
    }
}

/// Turn `number`'s recorded session, replayed from the recorded attempt's `turn-N/`.
fn replay(at: &Replaying<'_>, number: usize, prompt: &str) -> Result<SessionReport, Failure> {
    let recorded = turn_dir(at.recorded_attempt, number);
    if !recorded.join("stdout.log").is_file() {
        return Err(turn_failure(
            number,
            FailureOrigin::Runner,
            format!(
                "the recording has no session of this turn ({} holds no stdout.log)",
                recorded.display()
            ),
        ));
    }
    let dir = turn_dir(at.spec.artifact_dir, number);
    std::fs::create_dir_all(&dir)
        .map_err(|error| turn_failure(number, FailureOrigin::Artifacts, error.to_string()))?;
    let prompt_file = dir.join("prompt.md");
    let spec = SessionSpec {
        prompt,
        prompt_file: &prompt_file,
        artifact_dir: &dir,
        ..*at.spec
    };
    let attempt = RecordedAttempt {
        dir: &recorded,
        agent: at.recorded_agent,
    };
    let (session, _) = replay_session(at.agent, &spec, attempt, at.limits);
    write_json_or_note(&dir.join("report.json"), &session.report);
    let recorded_result = recorded.join("result.json");
    if recorded_result.is_file()
        && let Err(error) = crate::secrets::copy_file(&recorded_result, &dir.join("result.json"))
    {
        crate::unwritten::note(&dir.join("result.json"), &error);
    }
    match session.failure {
        Some(failure) => Err(named(number, failure)),
        None => Ok(session.report),
    }
}

/// The failure of a turn whose previous turns reported no session id.
fn no_session_id(number: usize) -> Failure {
    turn_failure(
        number,
        FailureOrigin::Runner,
        format!(
            "the agent reported no session id in turns 1 to {}, so there is no session to resume (a `command` agent prints `{{\"type\":\"session\",\"id\":\"…\"}}`)",
            number - 1
        ),
    )
}

fn turn_failure(number: usize, origin: FailureOrigin, message: String) -> Failure {
    Failure::new(origin, format!("turn {number}: {message}"))
}

/// `failure`, its message naming turn `number`.
fn named(number: usize, mut failure: Failure) -> Failure {
    failure.message = format!("turn {number}: {}", failure.message);
    failure
}
