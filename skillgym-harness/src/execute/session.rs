//! One agent session: launch, stream, parse, and build the report.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use skillgym::{AgentInfo, Failure, FailureOrigin, RunnerInfo, SessionReport, Timing};

use super::trigger::TriggerWatch;
use crate::agent::{Agent, Launch, SessionSpec, StreamParser, isolation};
use crate::io_error::IoError;
use crate::normalize::{KnownSkills, ManifestReads, ProviderError, ReportBuilder};
use crate::process::{self, LineSink, LineVerdict, ProcessOutcome, ProcessSpec, Termination};
use crate::results::TriggerEnd;
use crate::sandbox::{self, SandboxPolicy, SandboxRecord};
use crate::sink_thread::Offloaded;
use crate::time::Timestamp;

/// Limits of one session, and where it publishes its progress.
#[derive(Debug, Clone)]
pub struct SessionLimits {
    /// Wall-clock limit; the whole process group is killed when it elapses.
    pub timeout: Duration,
    /// Most model rounds allowed; the process group is killed when exceeded.
    pub max_steps: Option<u32>,
    /// Most stdout bytes allowed; the process group is killed when exceeded.
    pub max_output: u64,
    /// Where the model steps observed so far are published as the stream is parsed (the
    /// run's live progress reads it); `None`: nowhere.
    pub live_steps: Option<Arc<AtomicU32>>,
    /// The sandbox the agent runs in (`crate::sandbox`); `None`: none.
    pub sandbox: Option<SandboxPolicy>,
    /// When a trigger session ends early (`super::trigger`); `None`: not a trigger session.
    pub trigger: Option<TriggerStop>,
}

/// When a trigger session ends, as soon as its decision is observable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerStop {
    /// At the agent's `quiet_after`th action that loads no skill (`None`: not then).
    pub quiet_after: Option<u32>,
    /// At a skill load: of any skill (`None`), or of this one only.
    pub skill: Option<String>,
}

/// What one session produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionOutput {
    /// The normalized report (partial when the session failed; never absent).
    pub report: SessionReport,
    /// An infrastructure failure of the session, if any.
    pub failure: Option<Failure>,
    /// The agent's exit code.
    pub exit_code: Option<i32>,
    /// The signal that ended the agent.
    pub signal: Option<i32>,
    /// Model rounds observed.
    pub steps: u32,
    /// The provider error the agent reported, if any.
    pub provider_error: Option<ProviderError>,
    /// How the agent was confined and what it was denied, when it ran in a sandbox.
    pub sandbox: Option<SandboxRecord>,
    /// How a trigger session ended (`None`: not one).
    pub trigger_end: Option<TriggerEnd>,
}

struct ParsingSink {
    parser: Box<dyn StreamParser>,
    builder: ReportBuilder,
    max_steps: Option<u32>,
    live_steps: Option<Arc<AtomicU32>>,
    /// A trigger session's watch, and its decision once observed.
    trigger: Option<(TriggerWatch, Option<TriggerEnd>)>,
}

impl LineSink for ParsingSink {
    fn on_overlong_line(&mut self, number: u64, length: u64) -> LineVerdict {
        self.builder.overlong_line(number, length);
        LineVerdict::Continue
    }

    fn on_line(&mut self, line: &str) -> LineVerdict {
        self.parser.parse_line(line, &mut self.builder);
        if let Some(live) = &self.live_steps {
            live.store(self.builder.steps(), Ordering::Relaxed);
        }
        if let Some((watch, decided)) = &mut self.trigger
            && let Some(end) = watch.observe(self.builder.events())
        {
            *decided = Some(end);
            return LineVerdict::Stop {
                reason: format!("trigger decided: {end:?}"),
            };
        }
        match self.max_steps {
            Some(limit) if self.builder.steps() > limit => LineVerdict::Stop {
                reason: format!(
                    "exceeded max_steps: observed {} steps with a limit of {limit}; the agent was killed (raw output kept)",
                    self.builder.steps()
                ),
            },
            _ => LineVerdict::Continue,
        }
    }
}

/// Runs one session of `agent` and normalizes it. Logs go to `stdout.log` and `stderr.log` in
/// the spec's artifact directory.
pub async fn run_session(
    agent: &dyn Agent,
    spec: &SessionSpec<'_>,
    limits: SessionLimits,
) -> SessionOutput {
    run_launch(agent, spec, limits, agent.launch(spec)).await
}

/// Runs one session from a command line already built for `spec` (a [`Launch`] of
/// [`Agent::launch`], or of [`Agent::resume`] for `skillgym explain`), and normalizes it as
/// [`run_session`] does; an `Err` launch is a runner failure of the session.
pub async fn run_launch(
    agent: &dyn Agent,
    spec: &SessionSpec<'_>,
    limits: SessionLimits,
    launch: std::io::Result<Launch>,
) -> SessionOutput {
    let stdout_log = spec.artifact_dir.join("stdout.log");
    let stderr_log = spec.artifact_dir.join("stderr.log");
    let sink = ParsingSink {
        parser: agent.parser(),
        builder: ReportBuilder::new(spec.cwd).with_known_skills(known_skills(spec)),
        max_steps: limits.max_steps,
        live_steps: limits.live_steps.clone(),
        trigger: limits
            .trigger
            .as_ref()
            .map(|stop| (TriggerWatch::new(stop.clone(), spec.skills), None)),
    };
    let mut sink = Offloaded::new(sink, PARSE_HERE_UP_TO);
    let (launched, seeded, confined) = match launch {
        Ok(launch) => {
            let (mut process_spec, seeded) =
                session_process(launch, spec, &limits, &stdout_log, &stderr_log);
            let confined = limits
                .sandbox
                .as_ref()
                .map(|policy| sandbox::confine(policy, &mut process_spec, &seeded, spec))
                .transpose();
            match confined {
                Ok(confined) => (
                    process::run(&process_spec, &mut sink).await,
                    seeded,
                    confined,
                ),
                Err(error) => (Err(sandbox_error(&error)), seeded, None),
            }
        }
        Err(error) => (Err(error), isolation::Seeded::default(), None),
    };
    let sink = sink.finish();
    let decided = sink.trigger.as_ref().and_then(|(_, decided)| *decided);
    let (mut output, manifest_reads) = finish_report(agent, spec, sink, seeded);
    output.sandbox = confined.map(|confined| confined.finish(&output.report, &stderr_log));
    write_manifests(spec, &output.report, &manifest_reads);
    output.report.raw_artifacts.stdout = Some(stdout_log);
    output.report.raw_artifacts.stderr = stderr_log.is_file().then(|| stderr_log.clone());
    match launched {
        Err(error) => output.failure = Some(launch_failure(&error)),
        Ok(outcome) => {
            for log in &outcome.log_failures {
                crate::unwritten::note(&log.path, &log.error);
            }
            output.report.timing = timing(&outcome);
            output.failure = match (&outcome.termination, decided) {
                // Stopped on purpose once the trigger decision was seen: no failure.
                (Termination::Stopped { .. }, Some(_)) => None,
                _ => outcome_failure(&outcome, &limits, &output, &stderr_log, agent.kind()),
            };
            (output.exit_code, output.signal) = (outcome.exit_code, outcome.signal);
            if limits.trigger.is_some() {
                output.trigger_end = Some(decided.unwrap_or(TriggerEnd::Finished));
            }
        }
    }
    output
}

/// Stdout bytes parsed on the session's own thread; past them, the parser moves to a thread of
/// its own (`crate::sink_thread`), as a log moves to its writing thread past the same size.
const PARSE_HERE_UP_TO: u64 = 1024 * 1024;

/// A sandbox that could not be set up, said as such (the session is a runner failure).
fn sandbox_error(error: &std::io::Error) -> std::io::Error {
    std::io::Error::new(
        error.kind(),
        format!("cannot set up its bubblewrap sandbox: {error}"),
    )
}

/// The failure of a session whose agent did not start: origin `artifacts` when its log
/// could not be created (noted as a file not written), else `runner`.
fn launch_failure(error: &std::io::Error) -> Failure {
    let unwritten = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<IoError>())
        .and_then(|inner| match inner {
            IoError::CreateLogFile { path, source } | IoError::CreateLogDir { path, source } => {
                Some((path, source))
            }
            _ => None,
        });
    match unwritten {
        Some((path, source)) => {
            crate::unwritten::note(path, source);
            Failure::new(
                FailureOrigin::Artifacts,
                format!("the agent was not started: {error}"),
            )
        }
        None => Failure::new(
            FailureOrigin::Runner,
            format!("the agent could not be run: {error}"),
        ),
    }
}

/// The process of a launched session, and the guard of the auth files seeded for it. An
/// offline endpoint (the scripted server) gets loopback exempt from proxies; the variables
/// set are remembered as secrets to mask.
fn session_process(
    mut launch: Launch,
    spec: &SessionSpec<'_>,
    limits: &SessionLimits,
    stdout_log: &Path,
    stderr_log: &Path,
) -> (ProcessSpec, isolation::Seeded) {
    for (name, value) in spec.env {
        launch.env.push((name.into(), value.into()));
    }
    if spec.provider.is_some_and(|provider| provider.offline) {
        // The scripted server is on loopback: no proxy may stand in between.
        for key in ["NO_PROXY", "no_proxy"] {
            launch.env.push((key.into(), "127.0.0.1,localhost".into()));
        }
    }
    crate::secrets::remember(
        launch
            .env
            .iter()
            .filter_map(|(name, value)| Some((name.to_str()?, value.to_str()?))),
    );
    let process_spec = ProcessSpec {
        program: launch.program,
        args: launch.args,
        env: launch.env,
        env_remove: launch.env_remove,
        cwd: spec.cwd.to_path_buf(),
        stdout_log: stdout_log.to_path_buf(),
        stderr_log: stderr_log.to_path_buf(),
        timeout: limits.timeout,
        max_output: Some(limits.max_output),
    };
    (process_spec, launch.seeded)
}

/// Ends the parse, lets the adapter collect what the stream lacks, removes the seeded auth
/// files (a problem is a warning) and builds the report: the output, before the process's
/// outcome is known; and what skill detection read from `SKILL.md` files.
fn finish_report(
    agent: &dyn Agent,
    spec: &SessionSpec<'_>,
    sink: ParsingSink,
    mut seeded: isolation::Seeded,
) -> (SessionOutput, ManifestReads) {
    let ParsingSink {
        mut parser,
        mut builder,
        ..
    } = sink;
    parser.finish(&mut builder);
    agent.collect(spec, &mut builder);
    for problem in seeded.remove() {
        builder.warn(problem);
    }
    isolation::prune_empty_dirs(spec.state_dir);
    let steps = builder.steps();
    let (mut report, provider_error, manifest_reads) = builder.finish_reading(spec.prompt);
    crate::drop_aside::drop_aside(parser, report.events.len());
    // The version the stream reported, where the agent's does; else the run's, settled later.
    let version = crate::agent::stream_version(agent.kind(), &report.events);
    report.runner = RunnerInfo {
        id: spec.runner_id.to_owned(),
        agent: AgentInfo {
            kind: agent.kind().to_owned(),
            model: agent.model().map(str::to_owned),
            version,
        },
    };
    report.installed_skills = spec.skills.to_vec();
    let output = SessionOutput {
        report,
        failure: None,
        exit_code: None,
        signal: None,
        steps,
        provider_error,
        sandbox: None,
        trigger_end: None,
    };
    (output, manifest_reads)
}

/// The failure of a session whose process ran: how it was ended (timeout, max steps, output
/// limit, interrupt), else a provider error, an unsuccessful exit, or a stream without events.
fn outcome_failure(
    outcome: &ProcessOutcome,
    limits: &SessionLimits,
    output: &SessionOutput,
    stderr_log: &Path,
    kind: &str,
) -> Option<Failure> {
    match &outcome.termination {
        Termination::TimedOut => Some(Failure::new(
            FailureOrigin::Timeout,
            format!(
                "the agent did not finish within {}; its process group was killed",
                crate::duration::compact(limits.timeout)
            ),
        )),
        Termination::Stopped { reason } => {
            Some(Failure::new(FailureOrigin::MaxSteps, reason.clone()))
        }
        Termination::OutputLimit { limit } => Some(Failure::new(
            FailureOrigin::OutputLimit,
            format!(
                "the agent printed more than {} on stdout (`run.max_output`); its process group was killed (the output up to there is in stdout.log)",
                format_size(*limit)
            ),
        )),
        Termination::Interrupted => Some(crate::interrupt::failure(&format!(
            "the agent was killed after {}; what it printed until then is kept",
            crate::duration::compact(outcome.duration)
        ))),
        Termination::Exited => exited_failure(
            output,
            (outcome.exit_code, outcome.signal),
            stderr_log,
            outcome.stdout_bytes,
            kind,
        ),
    }
}

/// The failure of a session whose agent exited by itself (live or replayed): a provider
/// error, else an unsuccessful exit (`status` is the exit code and signal), else a stream
/// without events.
pub(super) fn exited_failure(
    output: &SessionOutput,
    status: (Option<i32>, Option<i32>),
    stderr_log: &Path,
    stdout_bytes: u64,
    kind: &str,
) -> Option<Failure> {
    let (exit_code, signal) = status;
    provider_failure(output.provider_error.as_ref(), exit_code)
        .or_else(|| exit_failure(exit_code, signal, stderr_log))
        .or_else(|| unreadable_stream(&output.report, stdout_bytes, kind))
}

/// When the session's process started and ended.
fn timing(outcome: &ProcessOutcome) -> Timing {
    Timing {
        started_at: Some(Timestamp::from(outcome.started_at).rfc3339()),
        ended_at: Some(Timestamp::from(outcome.ended_at).rfc3339()),
        duration_ms: Some(outcome.duration.as_millis() as u64),
    }
}

/// The failure for a provider error the agent ended with: `model-rejected` when the provider
/// refused the request itself (a bad model, key or request), else `runner` (rate limits and
/// server errors pass; a retry may succeed).
fn provider_failure(error: Option<&ProviderError>, exit_code: Option<i32>) -> Option<Failure> {
    let error = error?;
    let exit = match exit_code {
        Some(0) | None => String::new(),
        Some(code) => format!(" (the agent exited with code {code})"),
    };
    Some(if error.is_rejection() {
        Failure::new(
            FailureOrigin::ModelRejected,
            format!("the model provider rejected the request: {error}{exit}"),
        )
    } else {
        Failure::new(
            FailureOrigin::Runner,
            format!("the model provider failed: {error}{exit}"),
        )
    })
}

/// A normalization failure when the agent printed lines but not one of them was an event its
/// adapter understands (the output format is wrong, so no check could be meaningful), or
/// printed nothing at all.
fn unreadable_stream(report: &SessionReport, stdout_bytes: u64, kind: &str) -> Option<Failure> {
    if !report.events.is_empty() {
        return None;
    }
    if report.warnings.is_empty() {
        return (stdout_bytes == 0).then(|| {
            Failure::new(
                FailureOrigin::Normalization,
                format!("the agent exited successfully but printed nothing on stdout, where the `{kind}` format's events were expected"),
            )
        });
    }
    let count = report.warnings.len();
    let first = &report.warnings[0];
    Some(Failure::new(
        FailureOrigin::Normalization,
        format!(
            "none of the {count} line(s) the agent printed is an event of the `{kind}` format; first problem: {first}"
        ),
    ))
}

/// A runner failure for an unsuccessful exit, with the end of stderr.
fn exit_failure(exit_code: Option<i32>, signal: Option<i32>, stderr_log: &Path) -> Option<Failure> {
    let what = match (exit_code, signal) {
        (Some(0), _) => return None,
        (Some(code), _) => format!("the agent exited with code {code}"),
        (None, Some(signal)) => format!("the agent was killed by signal {signal}"),
        (None, None) => "the agent ended without an exit status".to_owned(),
    };
    let tail = stderr_tail(stderr_log, 20);
    let message = if tail.is_empty() {
        what
    } else {
        format!("{what}; the end of its stderr:\n{tail}")
    };
    Some(Failure::new(FailureOrigin::Runner, message))
}

/// The last `lines` lines of a log, indented, reading at most its last 8 KiB.
fn stderr_tail(path: &Path, lines: usize) -> String {
    use std::io::{Read, Seek, SeekFrom};
    const MAX: u64 = 8 * 1024;
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let length = file.metadata().map_or(0, |m| m.len());
    if file
        .seek(SeekFrom::Start(length.saturating_sub(MAX)))
        .is_err()
    {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let all: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `512 MiB`, `64 KiB`, `1000 bytes`.
fn format_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// The file that keeps the frontmatter names of the `SKILL.md` files a session read from its
/// workspace, for a replay (whose workspace is gone) to name the skills as the session did.
pub(super) const MANIFESTS: &str = "skill-manifests.json";

/// Writes [`MANIFESTS`] when the session read a `SKILL.md` that is not an installed skill's
/// and has a frontmatter name (the files skill detection just read are not read again).
fn write_manifests(spec: &SessionSpec<'_>, report: &SessionReport, reads: &ManifestReads) {
    let names = crate::normalize::manifests_read(&report.events, &known_skills(spec), reads);
    if names.is_empty() {
        return;
    }
    let names: std::collections::BTreeMap<String, String> = names
        .into_iter()
        .map(|(path, name)| (path.display().to_string(), name))
        .collect();
    let path = spec.artifact_dir.join(MANIFESTS);
    crate::artifacts::write_json_or_note(&path, &names);
}

/// What skill detection knows of the session: its workspace and the skills installed in it.
pub(super) fn known_skills(spec: &SessionSpec<'_>) -> KnownSkills {
    let mut known = KnownSkills::new(spec.cwd);
    for skill in spec.skills {
        known.installed(&skill.path, &skill.name);
    }
    known
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    #[test]
    fn a_log_that_cannot_be_created_is_no_runner_failure() {
        let log = Path::new("/launch-failure-test/attempt-1/stdout.log");
        let error = io::Error::from(IoError::CreateLogFile {
            path: log.to_path_buf(),
            source: io::Error::from(io::ErrorKind::StorageFull),
        });
        let failure = launch_failure(&error);
        assert_eq!(failure.origin, FailureOrigin::Artifacts);
        assert!(
            failure
                .message
                .starts_with("the agent was not started: cannot create log file"),
            "{}",
            failure.message
        );
        let lost = crate::unwritten::failure_under(log.parent().unwrap()).expect("noted");
        assert_eq!(lost.class.id, "disk-full");
        assert!(lost.message.contains("stdout.log"), "{}", lost.message);

        let spawn = io::Error::from(IoError::Spawn {
            program: "/no/agent".into(),
            cwd: "/w".into(),
            source: io::Error::from(io::ErrorKind::NotFound),
        });
        let failure = launch_failure(&spawn);
        assert_eq!(failure.origin, FailureOrigin::Runner);
        assert!(
            failure
                .message
                .starts_with("the agent could not be run: cannot start")
        );
    }
}
