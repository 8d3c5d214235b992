//! The session of a conversation's later turn (`super::conversation`): the agent resumed in
//! the attempt's workspace and agent state, or the recorded turn replayed.
//!
//! | | live | replayed |
//! |---|---|---|
//! | command line | the adapter's [`resume`](crate::agent::Agent::resume) of the previous turn's session id | none: the recording's `turn-N/` re-normalized |
//! | files | `turn-N/`: `prompt.md`, `stdout.log`, `stderr.log`, `report.json`, `result.json` (how the process ended; and `mock-requests.jsonl` under `--mock`) | the same, copied from the recording and regenerated |
//! | no session id to resume, a launch error, a crash, a timeout | the attempt's failure, its message starting `turn N:` | a turn missing from the recording: the same |

use std::path::Path;

use skillgym::{
    Failure, FailureOrigin, InstalledSkill, SessionReport, TokenCount, Usage, UsageSource,
};

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
    let env = id.variant_env();
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
    let mocked = mock.take().is_some();
    super::attempt::settle_report(run, runner, &mut session.report, &dir, mocked);
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
    /// The run's prices, for costs the recording does not hold.
    pub(super) pricing: &'a crate::pricing::PriceTable,
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
    let (mut session, _) = replay_session(at.agent, &spec, attempt, at.limits);
    at.pricing.estimate(&mut session.report);
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

/// `turn`'s usage added to the conversation's `so_far`: a figure is the sum when every turn
/// reported it, else unknown (a partial sum would read as the whole); the character counts add
/// up; a cost is estimated when any turn's was.
pub(super) fn add_usage(so_far: &mut Usage, turn: &Usage) {
    let sum = |a: Option<TokenCount>, b: Option<TokenCount>| {
        let (a, b) = (a?, b?);
        Some(TokenCount {
            value: a.value.saturating_add(b.value),
            source: if a.source == b.source {
                a.source
            } else {
                UsageSource::Derived
            },
        })
    };
    so_far.input_tokens = sum(so_far.input_tokens, turn.input_tokens);
    so_far.output_tokens = sum(so_far.output_tokens, turn.output_tokens);
    so_far.reasoning_tokens = sum(so_far.reasoning_tokens, turn.reasoning_tokens);
    so_far.cache_tokens = sum(so_far.cache_tokens, turn.cache_tokens);
    so_far.total_tokens = sum(so_far.total_tokens, turn.total_tokens);
    so_far.cost_usd = so_far.cost_usd.zip(turn.cost_usd).map(|(a, b)| a + b);
    so_far.cost_estimated |= turn.cost_estimated;
    so_far.input_chars = so_far.input_chars.saturating_add(turn.input_chars);
    so_far.output_chars = so_far.output_chars.saturating_add(turn.output_chars);
    so_far.reasoning_chars = so_far.reasoning_chars.saturating_add(turn.reasoning_chars);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: Option<u64>, cost: Option<f64>, chars: u64) -> Usage {
        Usage {
            input_tokens: input.map(TokenCount::provider),
            total_tokens: input.map(TokenCount::derived),
            cost_usd: cost,
            output_chars: chars,
            ..Usage::default()
        }
    }

    #[test]
    fn a_conversation_s_usage_is_every_turn_s() {
        let mut so_far = usage(Some(100), Some(0.25), 3);
        add_usage(&mut so_far, &usage(Some(40), Some(0.5), 4));
        assert_eq!(so_far.input_tokens, Some(TokenCount::provider(140)));
        assert_eq!(so_far.total_tokens, Some(TokenCount::derived(140)));
        assert_eq!((so_far.cost_usd, so_far.output_chars), (Some(0.75), 7));
        let mut estimated = usage(Some(1), Some(0.1), 0);
        estimated.cost_estimated = true;
        add_usage(&mut so_far, &estimated);
        assert!(
            so_far.cost_estimated,
            "an estimate anywhere makes the sum one"
        );
        let mut partial = usage(Some(1), None, 0);
        partial.input_tokens = Some(TokenCount {
            value: 1,
            source: UsageSource::Chars,
        });
        add_usage(&mut so_far, &partial);
        assert_eq!(
            so_far.input_tokens,
            Some(TokenCount::derived(142)),
            "sources that differ make a derived sum"
        );
        assert_eq!(
            so_far.cost_usd, None,
            "a turn without a cost leaves the sum unknown"
        );
    }
}
