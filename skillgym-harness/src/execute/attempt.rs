//! One attempt: prepare the workspace, run a session, check it, classify, write artifacts.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Instant;

use serde_json::json;
use skillgym::{Failure, FailureClass, FailureOrigin, InstalledSkill, SessionReport, Usage};

use super::Engine;
use super::check::{classify, run_check};
use super::conversation::{NextTurn, Talk, converse};
use super::grading::{Scene, grade_attempt};
use super::hooks::{self, HookLog, HookScene};
use super::judge::SessionJudge;
use super::replay::{self, RecordedAttempt, replay_session};
use super::runtimes::Lease;
use super::session::{SessionLimits, SessionOutput, TriggerStop, run_session};
use super::suite_hooks;
use super::turn_session::{self, Replaying, Resuming};
use crate::agent::SessionSpec;
use crate::artifacts::{write_json, write_json_or_note};
use crate::config::Variant;
use crate::grade::Judge;
use crate::replay::RecordedExecution;
use crate::results::{AttemptResult, Status};
use crate::runner::Runner;
use crate::sandbox::SandboxPolicy;
use crate::skills;
use crate::suite::{CaseCheck, CaseSpec};
use crate::unwritten;
use crate::workspace::{self, PreparedWorkspace};

/// Which attempt of which execution.
#[derive(Debug, Clone, Copy)]
pub(super) struct AttemptId<'a> {
    pub case: &'a CaseSpec,
    pub runner: &'a Runner,
    /// The variant the attempt runs under, if any.
    pub variant: Option<&'a Variant>,
    pub repetition: u32,
    pub attempt: u32,
    /// Where the session publishes its model steps, for the run's live progress.
    pub live_steps: &'a Arc<AtomicU32>,
    /// The recorded execution this attempt replays, when its runner replays a recording.
    pub recorded: Option<&'a RecordedExecution>,
}

impl AttemptId<'_> {
    /// The environment its variant adds to the agent's.
    pub(super) fn variant_env(&self) -> Vec<(String, String)> {
        (self.variant)
            .map(|v| v.env.clone().into_iter().collect())
            .unwrap_or_default()
    }

    /// The attempt's directory: `<run>/<case>/<runner>[/<variant>]/repeat-N/attempt-M`.
    fn dir(&self, run: &Engine) -> PathBuf {
        run.run_dir.attempt_dir(
            &self.case.id,
            &self.runner.id,
            self.variant.map(|v| v.name.as_str()),
            self.repetition,
            self.attempt,
        )
    }
}

/// Runs one attempt and writes its `report.json` and `result.json`. Never panics on agent or
/// case misbehaviour: every problem becomes a failure with its origin, and so does a file of
/// the attempt that could not be written (origin `artifacts`).
pub(super) fn run_attempt(run: &Engine, runtime: &Lease, id: AttemptId<'_>) -> AttemptResult {
    let started = Instant::now();
    let case = id.case;
    let artifact_dir = id.dir(run);
    let mut result = AttemptResult {
        repetition: id.repetition,
        attempt: id.attempt,
        status: Status::Failed,
        passed: false,
        failure: None,
        duration_ms: 0,
        usage: Usage::default(),
        steps: 0,
        exit_code: None,
        signal: None,
        artifact_dir: artifact_dir.clone(),
        kept_workspace: None,
        grading: None,
        replayed_from: id
            .recorded
            .map(|recorded| recorded.attempt_dir(id.repetition, id.attempt)),
        sandbox: None,
        trigger: None,
    };
    let failure = match prepare_and_run(run, runtime, id, &mut result) {
        Ok(failure) => failure,
        Err(failure) => Some(failure),
    };
    conclude(&mut result, case, failure.clone());
    result.duration_ms = match id.recorded {
        // A replay reports the recorded attempt's time: its own is not the agent's.
        Some(recorded) => {
            replay::recorded_duration(&recorded.attempt_dir(id.repetition, id.attempt))
                .unwrap_or_default()
        }
        None => started.elapsed().as_millis() as u64,
    };
    let path = artifact_dir.join("result.json");
    if let Err(error) = write_json(&path, &result) {
        unwritten::note(&path, &error);
        // Its verdict on disk is lost: the attempt cannot pass.
        conclude(&mut result, case, failure);
    }
    result
}

/// Sets the attempt's verdict from the failure of its session or checks, and the files of
/// the attempt that could not be written ([`with_unwritten`]), through the case's
/// `classify_failure` hook and its expectation.
fn conclude(result: &mut AttemptResult, case: &CaseSpec, failure: Option<Failure>) {
    let lost = unwritten::failure_under(&result.artifact_dir);
    let failure = with_unwritten(failure, lost, case.expected_fail).map(|mut failure| {
        classify(case, &mut failure);
        failure
    });
    (result.status, result.failure) = verdict(case.expected_fail, failure);
    result.passed = result.status.is_passing();
}

/// The attempt's failure once the files it could not write (`lost`, origin `artifacts`) are
/// known. An attempt that lost files cannot pass, nor fail as expected: their failure comes
/// first when the attempt would pass or fail as expected, and when it failed for want of a
/// file already; any other failure stays first. The second one is kept as a note.
fn with_unwritten(
    failure: Option<Failure>,
    lost: Option<Failure>,
    expected_fail: bool,
) -> Option<Failure> {
    let Some(lost) = lost else {
        return failure;
    };
    let Some(failure) = failure else {
        return Some(lost);
    };
    let lost_first = failure.origin == FailureOrigin::Artifacts
        || (expected_fail && failure.origin.is_verdict());
    let (mut first, second) = match lost_first {
        true => (lost, failure),
        false => (failure, lost),
    };
    first.message.push_str(&format!(
        "\n  also: {}",
        second.message.lines().next().unwrap_or_default()
    ));
    Some(first)
}

/// Prepares the workspace, runs the session and the checks. `Err` is a failure before the
/// session could run; `Ok(Some(..))` a failure of the session or of the checks.
fn prepare_and_run(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    result: &mut AttemptResult,
) -> Result<Option<Failure>, Failure> {
    let AttemptId { case, runner, .. } = id;
    let artifact_dir = &result.artifact_dir.clone();
    crate::artifacts::create_dirs_below(&run.run_dir.path(), artifact_dir)
        .map_err(|error| not_started(artifact_dir, &error))?;
    if let Some(recorded) = id.recorded {
        return replay_and_check(run, runtime, id, recorded, result);
    }
    let set_up = set_up(run, runtime, id, result)?;
    let workspace = &set_up.workspace;
    let hook_scene = match &case.check {
        CaseCheck::Declared(check) => Some(HookScene {
            check,
            case_id: &case.id,
            runner_id: &runner.id,
            variant: id.variant.map(|v| v.name.as_str()),
            run_id: run.run_dir.run_id(),
            workspace: workspace.cwd(),
            artifact_dir,
        }),
        CaseCheck::Rust(_) | CaseCheck::Trigger(_) => None,
    };
    let mut hook_log = HookLog::default();
    if let Some(scene) = &hook_scene
        && let Err(failure) = hooks::before_each(scene, &mut hook_log)
    {
        hook_log.write(artifact_dir);
        // Kept for a look: the attempt failed before its agent ran.
        result.kept_workspace = set_up.workspace.finish(false, artifact_dir).kept;
        return Err(failure);
    }
    let mut session = run_agent(
        run,
        runtime,
        id,
        &set_up.prompt,
        &set_up.prompt_file,
        workspace,
        &set_up.installed,
    );
    keep_session(result, &mut session);
    let failure = match session.failure {
        Some(failure) => Some(failure),
        None => check_live(run, runtime, id, &session.report, &set_up, result),
    };
    // What the sandbox refused the agent, said where the failure is read.
    let failure = failure.map(|mut failure| {
        if let Some(note) = session.sandbox.as_ref().and_then(|s| s.note()) {
            failure.message.push('\n');
            failure.message.push_str(&note);
        }
        failure
    });
    if let Some(scene) = &hook_scene {
        hooks::after_each(scene, &mut hook_log);
        hook_log.write(artifact_dir);
    }
    let verdict_passes = match &failure {
        None => !case.expected_fail,
        Some(failure) => case.expected_fail && failure.origin.is_verdict(),
    };
    let finished = set_up.workspace.finish(verdict_passes, artifact_dir);
    result.kept_workspace = finished.kept;
    let events = session.report.events.len();
    crate::drop_aside::drop_aside(session.report, events);
    if let Some(problem) = finished.problem {
        return Ok(failure.or(Some(problem)));
    }
    Ok(failure)
}

/// [`check_session`] of a live attempt's session, whose conversation's later turns resume the
/// agent (their steps are the attempt's too).
fn check_live(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    report: &SessionReport,
    set_up: &SetUp,
    result: &mut AttemptResult,
) -> Option<Failure> {
    let artifact_dir = result.artifact_dir.clone();
    let cwd = set_up.workspace.cwd();
    let resuming = Resuming {
        run,
        runtime,
        id,
        attempt_dir: &artifact_dir,
        cwd,
        installed: &set_up.installed,
    };
    let mut steps = 0;
    let mut next_turn = |number: usize, prompt: &str, session_id: Option<&str>| {
        turn_session::resume(&resuming, number, prompt, session_id, &mut steps)
    };
    let failure = check_session(run, runtime, id, (report, &mut next_turn), Ok(cwd), result);
    result.steps += steps;
    failure
}

/// What an attempt's session starts from.
struct SetUp {
    /// The prompt.
    prompt: String,
    /// The file the agent reads it from.
    prompt_file: std::path::PathBuf,
    /// The private copy of the prompt file, when it differs from the masked `prompt.md`;
    /// removed when dropped, after the session.
    _private_prompt: crate::agent::isolation::Seeded,
    /// The attempt's workspace.
    workspace: PreparedWorkspace,
    /// The skills under test installed into it.
    installed: Vec<InstalledSkill>,
}

/// Everything before the session: a declarative suite's `before_all` hook, the prompt (and
/// `prompt.md`), the workspace, the skills under test. A workspace that could not be made is
/// named in `result` when it was kept.
fn set_up(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    result: &mut AttemptResult,
) -> Result<SetUp, Failure> {
    let AttemptId { case, runner, .. } = id;
    let artifact_dir = &result.artifact_dir;
    let prompt = load_prompt(case)?;
    if let CaseCheck::Declared(check) = &case.check {
        let run_dir = run.run_dir.path();
        let variant = id.variant.map(|v| v.name.as_str());
        suite_hooks::before_all(
            &run_dir,
            run.run_dir.run_id(),
            &check.suite,
            &runner.id,
            variant,
        )?;
    }
    let prompt_md = artifact_dir.join("prompt.md");
    // Masked; the agent's prompt file is the real one (a private copy when they differ).
    let (prompt_file, private_prompt) = crate::agent::isolation::write_prompt(&prompt_md, &prompt)
        .map_err(|error| not_started(&prompt_md, &error))?;
    let workspace = workspace::prepare(
        &run.settings,
        &run.run_dir,
        runtime,
        case,
        &runner.id,
        artifact_dir,
    )
    .map_err(|(failure, kept)| {
        result.kept_workspace = kept;
        failure
    })?;
    if let CaseCheck::Declared(check) = &case.check
        && !check.repos.is_empty()
    {
        check_out_repos(run, &check.repos, &workspace)?;
    }
    if let Some(variant) = id.variant {
        write_variant_files(variant, workspace.cwd())?;
    }
    let installed = install_skills(run, id, workspace.cwd())?;
    Ok(SetUp {
        prompt,
        prompt_file,
        _private_prompt: private_prompt,
        workspace,
        installed,
    })
}

/// A declarative case's `workspace.repos`, checked out into the attempt's own workspace through
/// the mirrors beside the run roots (`<workspace base>/repos`).
fn check_out_repos(
    run: &Engine,
    repos: &[crate::suite::RepoSpec],
    workspace: &PreparedWorkspace,
) -> Result<(), Failure> {
    if !workspace.is_isolated() {
        return Err(Failure::new(
            FailureOrigin::Workspace,
            "`workspace.repos` are checked out into each attempt's own workspace: set \
             `workspace.mode: isolated` in skillgym.yaml (the default)",
        ));
    }
    let base = (run.settings.workspace_root.clone()).unwrap_or_else(workspace::root::default_base);
    workspace::repos::materialize(repos, workspace.cwd(), &base.join("repos"))
        .map_err(|why| Failure::new(FailureOrigin::Workspace, why))
}

/// The limits of a replayed session: the case's, no sandbox (nothing runs), no live progress.
fn replay_limits(run: &Engine, case: &CaseSpec) -> SessionLimits {
    let settings = run.settings.effective(case);
    SessionLimits {
        timeout: settings.timeout,
        max_steps: settings.max_steps,
        max_output: run.settings.max_output,
        live_steps: None,
        sandbox: None,
        trigger: trigger_stop(case),
    }
}

/// The limits of a live session of attempt `id`: the case's timeout and steps, the run's output
/// cap, the runner's sandbox, its progress published to the attempt's live steps.
pub(super) fn live_limits(
    run: &Engine,
    id: AttemptId<'_>,
    trigger: Option<crate::execute::session::TriggerStop>,
) -> SessionLimits {
    let settings = run.settings.effective(id.case);
    SessionLimits {
        timeout: settings.timeout,
        max_steps: settings.max_steps,
        max_output: run.settings.max_output,
        live_steps: Some(Arc::clone(id.live_steps)),
        sandbox: SandboxPolicy::for_runner(&run.settings, &id.runner.id),
        trigger,
    }
}

/// The failure of an attempt whose agent was not started because `path` could not be written
/// (noted: the attempt's `artifacts` failure names it).
fn not_started(path: &Path, error: &std::io::Error) -> Failure {
    unwritten::note(path, error);
    Failure::new(FailureOrigin::Artifacts, "the agent was not started")
}

/// Keeps what the attempt's result says of its session, and writes `report.json`.
fn keep_session(result: &mut AttemptResult, session: &mut SessionOutput) {
    result.usage = session.report.usage.clone();
    result.steps = session.steps;
    result.exit_code = session.exit_code;
    result.signal = session.signal;
    result.sandbox = session.sandbox.clone();
    result.trigger = session
        .trigger_end
        .map(|ended| super::trigger::observation(&session.report, ended));
    crate::artifacts::write_report_or_note(
        &result.artifact_dir.join("report.json"),
        &mut session.report,
    );
}

/// Runs the case's checks on a session that ran to its end: a Rust case's function (and
/// `explain.json` when it failed with questions), or a declarative case's graders. The
/// workspace is `Err` for a replayed attempt whose recorded workspace is gone.
fn check_session(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    (report, next_turn): (&SessionReport, NextTurn<'_>),
    workspace: Result<&Path, &Path>,
    result: &mut AttemptResult,
) -> Option<Failure> {
    let AttemptId {
        case,
        runner,
        repetition,
        attempt,
        ..
    } = id;
    let artifact_dir = &result.artifact_dir.clone();
    let cwd = workspace.unwrap_or_else(|gone| gone);
    match &case.check {
        CaseCheck::Rust(def) => {
            let mut ctx = skillgym::__private::new_case_context(
                &case.id,
                &runner.id,
                repetition,
                attempt,
                artifact_dir,
                cwd,
            );
            let failure = run_check(runtime, def, report, &mut ctx);
            if let Some(failure) = &failure {
                write_explain(artifact_dir, id, cwd, report, failure);
            }
            failure
        }
        CaseCheck::Declared(check) => {
            let settings = run.settings.effective(case);
            let judge = run.judge.as_ref().map(|runner| SessionJudge {
                run,
                runtime,
                runner,
                artifact_dir,
                timeout: settings.timeout,
            });
            if let Some(conversation) = &check.conversation {
                let talk = Talk {
                    case,
                    check,
                    conversation,
                    workspace,
                    attempt_dir: artifact_dir,
                    timeout: settings.timeout,
                    judge: judge.as_ref(),
                };
                let usage = &mut result.usage;
                let (grading, failure) = converse(&talk, report.clone(), next_turn, usage);
                result.grading = grading;
                return failure;
            }
            let (grading, failure) = grade_attempt(&Scene {
                case,
                check,
                report,
                workspace,
                artifact_dir,
                timeout: settings.timeout,
                judge: judge.as_ref().map(|judge| judge as &dyn Judge),
            });
            result.grading = Some(grading);
            failure
        }
        CaseCheck::Trigger(trigger) => {
            let observed = result.trigger.as_ref()?;
            super::trigger::check(trigger, observed)
        }
    }
}

/// When a trigger case's sessions end: once their decision is observable. A declarative
/// `skill-trigger` case's end only when its skill loads (its one grader cannot change its
/// verdict after that; before, the agent may still load it).
fn trigger_stop(case: &CaseSpec) -> Option<TriggerStop> {
    match &case.check {
        CaseCheck::Trigger(trigger) => Some(TriggerStop {
            quiet_after: Some(trigger.quiet_after),
            skill: None,
        }),
        _ => super::trigger::expectation(case).map(|expectation| TriggerStop {
            quiet_after: None,
            skill: Some(expectation.skill),
        }),
    }
}

/// Replays a recorded attempt instead of running the agent: no workspace is prepared, no
/// skill installed, no hook run; the recorded session is re-normalized and checked today.
fn replay_and_check(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    recorded: &RecordedExecution,
    result: &mut AttemptResult,
) -> Result<Option<Failure>, Failure> {
    let AttemptId { case, runner, .. } = id;
    let Some(source) = &runner.replay else {
        unreachable!("an attempt with a recording belongs to a replaying runner")
    };
    let prompt = load_prompt(case)?;
    let artifact_dir = result.artifact_dir.clone();
    let prompt_file = artifact_dir.join("prompt.md");
    let recorded_dir = recorded.attempt_dir(id.repetition, id.attempt);
    let state_dir = artifact_dir.join("agent-state");
    let spec = SessionSpec {
        runner_id: &runner.id,
        prompt: &prompt,
        prompt_file: &prompt_file,
        cwd: &artifact_dir,
        artifact_dir: &artifact_dir,
        state_dir: &state_dir,
        provider: None,
        skills: &[],
        env: &[],
    };
    let limits = replay_limits(run, case);
    let attempt = RecordedAttempt {
        dir: &recorded_dir,
        agent: &source.agent,
    };
    let (mut session, workspace) = replay_session(runner.agent.as_ref(), &spec, attempt, &limits);
    run.settings.pricing.estimate(&mut session.report);
    if !prompt_file.is_file() {
        let _ = crate::secrets::write_file(&prompt_file, prompt.as_bytes());
    }
    keep_session(result, &mut session);
    let cwd = workspace.cwd.as_path();
    // The recording's `workspace.json` says where; graders run there only in a workspace
    // skillgym made (a recording is data anyone could have edited).
    let own = crate::workspace::recorded::configured_dir(&run.settings);
    let file = recorded_dir.join("workspace.json");
    let made = crate::workspace::recorded::check(cwd, &file, own).is_ok();
    let present = if workspace.exists() && made {
        Ok(cwd)
    } else {
        Err(cwd)
    };
    let replaying = Replaying {
        agent: runner.agent.as_ref(),
        spec: &spec,
        recorded_agent: &source.agent,
        recorded_attempt: &recorded_dir,
        limits: &limits,
        pricing: &run.settings.pricing,
    };
    let mut next_turn = |n: usize, prompt: &str, _: Option<&str>| replaying.turn(n, prompt);
    let checked = (&session.report, &mut next_turn as NextTurn<'_>);
    let failure = match session.failure {
        Some(failure) => Some(failure),
        None => check_session(run, runtime, id, checked, present, result),
    };
    Ok(failure.map(|mut failure| {
        if present.is_err() && failure.message.contains("os error 2") {
            failure.message.push_str(&format!(
                "\n  note: this attempt is replayed from a recording; replay does not recreate workspaces, and the recorded one ({}) is gone",
                cwd.display()
            ));
        }
        failure
    }))
}

/// Runs the agent's session in the prepared workspace (through the scripted model under
/// `--mock`).
fn run_agent(
    run: &Engine,
    runtime: &Lease,
    id: AttemptId<'_>,
    prompt: &str,
    prompt_file: &Path,
    workspace: &PreparedWorkspace,
    installed: &[InstalledSkill],
) -> SessionOutput {
    let AttemptId { case, runner, .. } = id;
    let artifact_dir = id.dir(run);
    let env = id.variant_env();
    let state_dir = artifact_dir.join("agent-state");
    let mut dry_run = run
        .dry_run
        .as_ref()
        .and_then(|dry| dry.open(case, runner, workspace.cwd(), &artifact_dir));
    let spec = SessionSpec {
        runner_id: &runner.id,
        prompt,
        prompt_file,
        cwd: workspace.cwd(),
        artifact_dir: &artifact_dir,
        state_dir: &state_dir,
        provider: dry_run.as_ref().map(|dry| &dry.provider),
        skills: installed,
        env: &env,
    };
    let limits = live_limits(run, id, trigger_stop(case));
    let mut session = runtime.block_on(run_session(runner.agent.as_ref(), &spec, limits));
    let mocked = dry_run.take().is_some();
    settle_report(run, runner, &mut session.report, &artifact_dir, mocked);
    session
}

/// A live session's report made whole: the agent's version settled, the costs it lacks
/// estimated, and, when the scripted model answered it (`mocked`), the request log in `dir`
/// named.
pub(super) fn settle_report(
    run: &Engine,
    runner: &Runner,
    report: &mut SessionReport,
    dir: &Path,
    mocked: bool,
) {
    run.versions.settle(report, runner);
    run.settings.pricing.estimate(report);
    if mocked {
        let log = dir.join(crate::artifacts::REQUEST_LOG);
        report.raw_artifacts.model_requests = log.is_file().then_some(log);
    }
}

/// Writes `explain.json` when failed assertions carry questions for `skillgym explain`:
/// the case, runner, working directory, agent session id, whether the agent can resume it,
/// and each question with its source.
fn write_explain(
    artifact_dir: &Path,
    id: AttemptId<'_>,
    cwd: &Path,
    report: &SessionReport,
    failure: &Failure,
) {
    let questions: Vec<_> = failure
        .questions()
        .map(|(question, source)| json!({ "question": question, "source": source }))
        .collect();
    if questions.is_empty() {
        return;
    }
    let explain = json!({
        "case_id": id.case.id,
        "runner_id": id.runner.id,
        "cwd": cwd,
        "session_id": report.session_id,
        // A replayed session ran elsewhere: its state is not in the recording.
        "resumable": id.runner.replay.is_none()
            && id.runner.agent.can_resume()
            && report.session_id.is_some(),
        "questions": questions,
    });
    write_json_or_note(&artifact_dir.join("explain.json"), &explain);
}

/// Maps a raw outcome through the case's expectation.
fn verdict(expected_fail: bool, failure: Option<Failure>) -> (Status, Option<Failure>) {
    match (expected_fail, failure) {
        (_, Some(failure)) if failure.origin == FailureOrigin::Interrupted => {
            (Status::Interrupted, Some(failure))
        }
        (false, None) => (Status::Passed, None),
        (false, Some(failure)) => (Status::Failed, Some(failure)),
        (true, None) => (
            Status::UnexpectedPassed,
            Some(
                Failure::new(
                    FailureOrigin::Assertion,
                    "the case is marked `expected_fail` but passed: the agent may have improved, or the expectation is stale",
                )
                .with_class(FailureClass::new("unexpected-passed", "Unexpected pass")),
            ),
        ),
        (true, Some(failure)) if failure.origin.is_verdict() => (Status::ExpectedFailed, Some(failure)),
        (true, Some(failure)) => (Status::Failed, Some(failure)),
    }
}

/// Copies a variant's `files` (instruction files) into the attempt's workspace.
fn write_variant_files(variant: &Variant, workspace: &Path) -> Result<(), Failure> {
    for (path, source) in &variant.files {
        let to = workspace.join(path);
        let copied = to
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::copy(source, &to));
        if let Err(error) = copied {
            return Err(Failure::new(
                FailureOrigin::Workspace,
                format!(
                    "variant `{}`: cannot copy {} to {}: {error}",
                    variant.name,
                    source.display(),
                    to.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Installs the attempt's skills under test into its workspace, where the runner's agent
/// discovers project skills.
fn install_skills(
    run: &Engine,
    id: AttemptId<'_>,
    workspace: &Path,
) -> Result<Vec<InstalledSkill>, Failure> {
    let AttemptId { case, runner, .. } = id;
    let skills = run
        .skills
        .for_attempt(&case.id, &runner.id, id.variant, &run.run_dir.path())
        .map_err(|error| Failure::new(FailureOrigin::Workspace, error.to_string()))?;
    if skills.is_empty() {
        return Ok(Vec::new());
    }
    let dir = crate::agent::project_skills(runner.agent.kind());
    skills::install::install(&skills, workspace, dir)
        .map_err(|error| Failure::new(FailureOrigin::Workspace, error.to_string()))
}

/// The case's prompt; a missing prompt file fails the attempt naming the file and where the
/// case declares it.
fn load_prompt(case: &CaseSpec) -> Result<String, Failure> {
    if let Some(missing) = crate::preflight::missing_prompt_file(case) {
        return Err(Failure::new(FailureOrigin::Workspace, missing.to_string()));
    }
    case.prompt
        .load()
        .map_err(|error| Failure::new(FailureOrigin::Workspace, error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINS: [FailureOrigin; 14] = [
        FailureOrigin::Assertion,
        FailureOrigin::Grader,
        FailureOrigin::GraderError,
        FailureOrigin::Runner,
        FailureOrigin::Timeout,
        FailureOrigin::MaxSteps,
        FailureOrigin::ModelRejected,
        FailureOrigin::Workspace,
        FailureOrigin::Bootstrap,
        FailureOrigin::Normalization,
        FailureOrigin::Snapshot,
        FailureOrigin::PassRate,
        FailureOrigin::OutputLimit,
        FailureOrigin::Artifacts,
    ];

    #[test]
    fn without_expected_fail_every_failure_fails() {
        assert_eq!(verdict(false, None), (Status::Passed, None));
        for origin in ORIGINS {
            let (status, failure) = verdict(false, Some(Failure::new(origin, "x")));
            assert_eq!(status, Status::Failed, "{origin}");
            assert_eq!(failure.unwrap().origin, origin);
        }
    }

    #[test]
    fn expected_fail_forgives_only_verdict_failures() {
        for origin in ORIGINS {
            let (status, failure) = verdict(true, Some(Failure::new(origin, "x")));
            let expected = match origin {
                FailureOrigin::Assertion | FailureOrigin::Grader => Status::ExpectedFailed,
                _ => Status::Failed,
            };
            assert_eq!(status, expected, "{origin}");
            assert_eq!(failure.unwrap().class, origin.default_class(), "{origin}");
        }
    }

    #[test]
    fn an_interrupted_attempt_is_interrupted_whatever_the_expectation() {
        for expected_fail in [false, true] {
            let failure = Failure::new(FailureOrigin::Interrupted, "x");
            let (status, failure) = verdict(expected_fail, Some(failure));
            assert_eq!(status, Status::Interrupted);
            assert!(!status.is_passing());
            assert_eq!(failure.unwrap().class.id, "interrupted");
        }
    }

    #[test]
    fn lost_files_fail_an_attempt_that_would_pass_or_fail_as_expected() {
        let lost = || {
            Some(Failure::new(
                FailureOrigin::Artifacts,
                "cannot write stdout.log",
            ))
        };
        let passed = with_unwritten(None, lost(), false).unwrap();
        assert_eq!(passed.origin, FailureOrigin::Artifacts);
        assert_eq!(verdict(false, Some(passed)).0, Status::Failed);

        // An expected failure is no pass when files are lost: the loss comes first.
        let expected = Failure::new(FailureOrigin::Assertion, "no answer");
        let merged = with_unwritten(Some(expected), lost(), true).unwrap();
        assert_eq!(merged.origin, FailureOrigin::Artifacts);
        assert_eq!(merged.message, "cannot write stdout.log\n  also: no answer");
        assert_eq!(verdict(true, Some(merged)).0, Status::Failed);

        // Any other failure stays first, the loss noted.
        let crash = Failure::new(FailureOrigin::Runner, "exited with 1\nstderr...");
        let merged = with_unwritten(Some(crash), lost(), false).unwrap();
        assert_eq!(merged.origin, FailureOrigin::Runner);
        assert_eq!(
            merged.message,
            "exited with 1\nstderr...\n  also: cannot write stdout.log"
        );

        // A session that did not start for want of a file: the files named come first.
        let not_started = Failure::new(FailureOrigin::Artifacts, "the agent was not started");
        let merged = with_unwritten(Some(not_started), lost(), false).unwrap();
        assert_eq!(
            merged.message,
            "cannot write stdout.log\n  also: the agent was not started"
        );

        assert_eq!(with_unwritten(None, None, false), None);
    }

    #[test]
    fn expected_fail_turns_a_pass_into_an_unexpected_pass() {
        let (status, failure) = verdict(true, None);
        assert_eq!(status, Status::UnexpectedPassed);
        assert!(!status.is_passing());
        let failure = failure.unwrap();
        assert_eq!(failure.class.id, "unexpected-passed");
        assert!(
            failure
                .message
                .contains("marked `expected_fail` but passed")
        );
    }
}
