//! One recorded attempt replayed: its files copied into the new attempt directory, its stdout
//! re-normalized by today's adapter, its outcome taken from the recording. No process starts.

use std::collections::BTreeMap;
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use skillgym::{AgentInfo, Failure, FailureOrigin, RunnerInfo, SessionReport};

use super::session::{MANIFESTS, SessionLimits, SessionOutput, exited_failure};
use super::trigger::TriggerWatch;
use crate::agent::{Agent, SessionSpec};
use crate::normalize::{KnownSkills, ReportBuilder, feed_stream_until};
use crate::replay::recording::{AttemptFile, RecordedAgent, copy_attempt_files, read_json};
use crate::results::TriggerEnd;

/// The files of an attempt directory that replay writes anew instead of copying.
const REGENERATED: [&str; 6] = [
    "result.json",
    "report.json",
    "grading.json",
    "hooks.json",
    "explain.json",
    "explanations.json",
];

/// Failure origins that say how the recorded process was ended (not by itself): replay keeps
/// them as they were recorded, since the stream cannot tell.
const ENDED_FROM_OUTSIDE: [FailureOrigin; 4] = [
    FailureOrigin::Timeout,
    FailureOrigin::MaxSteps,
    FailureOrigin::OutputLimit,
    FailureOrigin::Interrupted,
];

/// A recorded attempt to replay.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordedAttempt<'a> {
    /// Its directory inside the recording.
    pub dir: &'a Path,
    /// The agent the recorded runner ran.
    pub agent: &'a RecordedAgent,
}

/// What a replayed attempt reports besides its session: the workspace it ran in when recorded
/// and whether that directory still exists.
#[derive(Debug)]
pub(crate) struct ReplayedWorkspace {
    pub(crate) cwd: PathBuf,
}

impl ReplayedWorkspace {
    /// Whether checks can read the recorded workspace.
    pub(crate) fn exists(&self) -> bool {
        self.cwd.is_dir()
    }
}

/// Replays `recorded` through `agent`'s parser and collector into `spec.artifact_dir`.
/// `spec.cwd` is ignored: the recorded workspace path is used, so paths resolve as they did.
pub(crate) fn replay_session(
    agent: &dyn Agent,
    spec: &SessionSpec<'_>,
    recorded: RecordedAttempt<'_>,
    limits: &SessionLimits,
) -> (SessionOutput, ReplayedWorkspace) {
    let copied =
        copy_attempt_files(recorded.dir, spec.artifact_dir, &REGENERATED).map_err(|error| {
            format!(
                "cannot copy the recorded attempt {}: {error}",
                recorded.dir.display()
            )
        });
    let before: SessionReport = read_json(&recorded.dir.join("report.json")).unwrap_or_default();
    let result: AttemptFile = read_json(&recorded.dir.join("result.json")).unwrap_or_default();
    let cwd = recorded_cwd(recorded.dir).unwrap_or_else(|| spec.cwd.to_path_buf());
    let prompt = fs::read_to_string(spec.artifact_dir.join("prompt.md"))
        .unwrap_or_else(|_| spec.prompt.to_owned());
    let known = known_skills(&cwd, &before, spec.artifact_dir);
    let mut builder = ReportBuilder::new(&cwd).with_known_skills(known);
    if let Err(problem) = &copied {
        builder.warn(problem.clone());
    }
    if prompt != spec.prompt {
        builder.warn(
            "the case's prompt has changed since the recording; the recorded session answered the recorded prompt (prompt.md)",
        );
    }
    let stdout_log = spec.artifact_dir.join("stdout.log");
    let stderr_log = spec.artifact_dir.join("stderr.log");
    let watch = replayed_watch(limits, &result, &before);
    let stdout_bytes = reparse(agent, spec, &cwd, &stdout_log, &mut builder, watch);
    let steps = builder.steps();
    let (mut report, provider_error) = builder.finish_with_error(&prompt);
    keep_recorded(&mut report, before, spec.runner_id, recorded.agent);
    report.raw_artifacts.stdout = Some(stdout_log);
    report.raw_artifacts.stderr = stderr_log.is_file().then(|| stderr_log.clone());
    let requests = spec.artifact_dir.join(crate::artifacts::REQUEST_LOG);
    report.raw_artifacts.model_requests = requests.is_file().then_some(requests);
    let mut output = SessionOutput {
        report,
        failure: None,
        exit_code: result.exit_code,
        signal: result.signal,
        steps,
        provider_error,
        // No agent runs in a replay.
        sandbox: None,
        trigger_end: limits.trigger.as_ref().map(|_| {
            result
                .trigger
                .as_ref()
                .map_or(TriggerEnd::Finished, |t| t.ended)
        }),
    };
    let ended = Ended {
        stderr_log: &stderr_log,
        stdout_bytes,
        kind: agent.kind(),
    };
    output.failure = replayed_failure(&output, result.failure, ended, limits);
    (output, ReplayedWorkspace { cwd })
}

/// What the replayed report takes from the recorded one: the runner with the recorded agent
/// and its version (none in a recording made before versions were recorded), the skills
/// installed, the timing, and the session id when today's parse finds none (a trigger session
/// ended early may have had it only in the agent's state directory, such as Copilot's
/// `session-state/<id>`, which a recording does not keep).
fn keep_recorded(
    report: &mut SessionReport,
    before: SessionReport,
    runner_id: &str,
    agent: &RecordedAgent,
) {
    report.runner = RunnerInfo {
        id: runner_id.to_owned(),
        agent: AgentInfo {
            kind: agent.kind.clone(),
            model: agent.model.clone(),
            version: before
                .runner
                .agent
                .version
                .or_else(|| agent.version.clone()),
        },
    };
    if report.session_id.is_none() {
        report.session_id = before.session_id;
    }
    report.installed_skills = before.installed_skills;
    report.timing = before.timing;
}

/// A trigger session ended early live is read up to where it was ended: the watch that ends
/// it, when it was.
fn replayed_watch(
    limits: &SessionLimits,
    recorded: &AttemptFile,
    before: &SessionReport,
) -> Option<TriggerWatch> {
    let stop = limits.trigger.as_ref()?;
    if recorded.trigger.as_ref()?.ended == TriggerEnd::Finished {
        return None;
    }
    Some(TriggerWatch::new(stop.clone(), &before.installed_skills))
}

/// The skills the recorded session could see: those installed when it was recorded, and the
/// manifests found then.
fn known_skills(cwd: &Path, before: &SessionReport, artifact_dir: &Path) -> KnownSkills {
    let mut known = KnownSkills::new(cwd);
    for skill in &before.installed_skills {
        known.installed(&skill.path, &skill.name);
    }
    let manifests: BTreeMap<PathBuf, String> =
        read_json(&artifact_dir.join(MANIFESTS)).unwrap_or_default();
    for (path, name) in manifests {
        known.manifest(path, name);
    }
    known
}

/// Feeds the recorded `stdout_log` to today's parser, then lets the agent collect its files as
/// if the session ran in `cwd` (the copied `agent-state` as its state directory), and names the
/// copied session file if the collector found none. Returns the bytes of stdout read.
fn reparse(
    agent: &dyn Agent,
    spec: &SessionSpec<'_>,
    cwd: &Path,
    stdout_log: &Path,
    builder: &mut ReportBuilder,
    mut watch: Option<TriggerWatch>,
) -> u64 {
    let mut parser = agent.parser();
    let mut stop = |builder: &ReportBuilder| {
        watch
            .as_mut()
            .is_some_and(|watch| watch.observe(builder.events()).is_some())
    };
    let stdout_bytes = match fs::File::open(stdout_log) {
        Ok(file) => feed_stream_until(parser.as_mut(), BufReader::new(file), builder, &mut stop)
            .unwrap_or_else(|error| {
                builder.warn(format!("cannot read {}: {error}", stdout_log.display()));
                0
            }),
        Err(error) => {
            builder.warn(format!(
                "the recording has no stdout.log for this attempt: {error}"
            ));
            0
        }
    };
    parser.finish(builder);
    let state_dir = spec.artifact_dir.join("agent-state");
    let replayed_spec = SessionSpec {
        cwd,
        state_dir: &state_dir,
        ..*spec
    };
    agent.collect(&replayed_spec, builder);
    if builder.current_session_file().is_none()
        && let Some(file) = ["session.jsonl", "session.json"]
            .into_iter()
            .map(|name| spec.artifact_dir.join(name))
            .find(|path| path.is_file())
    {
        builder.session_file(file);
    }
    stdout_bytes
}

/// How the replayed process ended, for [`exited_failure`].
struct Ended<'a> {
    stderr_log: &'a Path,
    stdout_bytes: u64,
    kind: &'a str,
}

/// The replayed attempt's failure: a recorded one that the stream cannot tell (the process was
/// ended from outside, or could not be run) as it was; otherwise what the replayed session and
/// its exit say, or that it took more steps than today's `max_steps`.
fn replayed_failure(
    output: &SessionOutput,
    recorded: Option<Failure>,
    ended: Ended<'_>,
    limits: &SessionLimits,
) -> Option<Failure> {
    if output
        .trigger_end
        .is_some_and(|end| end != TriggerEnd::Finished)
    {
        // A trigger session skillgym ended on purpose was killed, and is no failure.
        return None;
    }
    let failure = match recorded {
        Some(failure) if ENDED_FROM_OUTSIDE.contains(&failure.origin) => Some(failure),
        Some(failure)
            if failure.origin == FailureOrigin::Runner
                && failure.message.starts_with("the agent could not be run") =>
        {
            Some(failure)
        }
        _ => exited_failure(
            output,
            (output.exit_code, output.signal),
            ended.stderr_log,
            ended.stdout_bytes,
            ended.kind,
        ),
    };
    let steps = output.steps;
    if failure.is_none()
        && let Some(limit) = limits.max_steps
        && steps > limit
    {
        return Some(Failure::new(
            FailureOrigin::MaxSteps,
            format!("the recorded session took {steps} steps, over today's max_steps of {limit}"),
        ));
    }
    failure
}

/// The recorded attempt's duration in milliseconds, as its `result.json` says.
pub(crate) fn recorded_duration(dir: &Path) -> Option<u64> {
    read_json::<AttemptFile>(&dir.join("result.json"))
        .ok()
        .map(|result| result.duration_ms)
}

/// The workspace the recorded attempt ran in (`workspace.json`'s `cwd`).
fn recorded_cwd(dir: &Path) -> Option<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Workspace {
        cwd: PathBuf,
    }
    read_json::<Workspace>(&dir.join("workspace.json"))
        .ok()
        .map(|workspace| workspace.cwd)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::replay::adapter;

    /// A Copilot trigger session ended before its `result` line had its id only in
    /// `session-state/<id>`, which a recording does not keep: the replay keeps the recorded id.
    #[test]
    fn a_session_id_the_cut_stream_lacks_stays_as_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let recorded = tmp.path().join("recorded");
        let replayed = tmp.path().join("replayed");
        fs::create_dir_all(&recorded).unwrap();
        fs::create_dir_all(&replayed).unwrap();
        let stdout = r#"{"type":"user.message","data":{"content":"hi"},"id":"m1","timestamp":"2026-11-27T10:46:21.801Z"}"#;
        fs::write(recorded.join("stdout.log"), format!("{stdout}\n")).unwrap();
        fs::write(
            recorded.join("report.json"),
            r#"{"prompt":"hi","session_id":"ec2e6894"}"#,
        )
        .unwrap();
        let agent = RecordedAgent {
            kind: "copilot".into(),
            model: Some("gpt-5.4".into()),
            version: None,
        };
        let copilot = adapter(&agent).unwrap();
        let prompt_file = replayed.join("prompt.md");
        let state_dir = replayed.join("agent-state");
        let spec = SessionSpec {
            runner_id: "copilot",
            prompt: "hi",
            prompt_file: &prompt_file,
            cwd: &replayed,
            artifact_dir: &replayed,
            state_dir: &state_dir,
            provider: None,
            skills: &[],
            env: &[],
        };
        let limits = SessionLimits {
            timeout: Duration::from_secs(60),
            max_steps: None,
            max_output: 1 << 20,
            live_steps: None,
            sandbox: None,
            trigger: None,
        };
        let attempt = RecordedAttempt {
            dir: &recorded,
            agent: &agent,
        };
        let (output, _) = replay_session(copilot.as_ref(), &spec, attempt, &limits);
        assert_eq!(output.report.session_id.as_deref(), Some("ec2e6894"));
    }
}
