//! The harness: from argv to libtest-mimic trials and back to an exit code.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::SystemTime;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::agent::{self, Agent, AgentOptions};
use crate::artifacts::RunDir;
use crate::cli::{self, SkillgymArgs};
use crate::config::{self, Settings};
use crate::dry_run::DryRun;
use crate::error::{Error, JudgeError, UnknownCaseRunner};
use crate::execute::suite_hooks;
use crate::execute::{ExecutionResult, Status, run_execution};
use crate::interrupt;
use crate::preflight;
use crate::reaper;
use crate::rejections::Rejections;
use crate::run::{RunContext, Runner};
use crate::schedule::{Gates, worker_threads};
use crate::secrets;
use crate::skills::plan::SkillPlan;
use crate::suite::declared::SuiteScope;
use crate::suite::registry::sort_and_check;
use crate::suite::sources::{self, Origin, SuitePath};
use crate::suite::yaml::Warning;
use crate::suite::{CaseCheck, CaseSpec, Plan, collect_registered};
use crate::summary::{self, Counts, RunResults};
use crate::time::Timestamp;

/// What [`Harness::prepare`] hands to the run: libtest's arguments, the shared context, the
/// trials.
type Prepared = (Arguments, Arc<RunContext>, Vec<Trial>);

/// Runs the registered cases as a libtest-compatible test binary. Call it from the `main` of a
/// `harness = false` test target:
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     skillgym_harness::main()
/// }
/// ```
pub fn main() -> ExitCode {
    Harness::new().run()
}

/// Configures runners in code, for users who prefer it to `skillgym.yaml` (runners given here
/// are added to the file's, replacing any with the same id).
///
/// ```no_run
/// use skillgym_harness::{CommandAgent, Harness};
///
/// fn main() -> std::process::ExitCode {
///     Harness::new()
///         .runner("scripted", CommandAgent::new("./bin/agent").arg("--json"))
///         .run()
/// }
/// ```
#[derive(Debug, Default)]
pub struct Harness {
    runners: Vec<Runner>,
    judge: Option<Runner>,
    suites: Vec<PathBuf>,
    config_path: Option<PathBuf>,
    argv: Option<Vec<OsString>>,
}

impl Harness {
    /// A harness configured by `skillgym.yaml`, flags and `SKILLGYM_*` variables only.
    pub fn new() -> Self {
        Harness::default()
    }

    /// Adds (or replaces) a runner.
    pub fn runner(mut self, id: impl Into<String>, agent: impl Agent + 'static) -> Self {
        let id = id.into();
        self.runners.retain(|runner| runner.id != id);
        self.runners.push(Runner {
            id,
            agent: Arc::new(agent),
        });
        self
    }

    /// Adds a declarative suite: an agentv-style `EVAL.yaml` or `*.eval.yaml` file, or a
    /// directory holding one (relative paths are resolved against the test crate's
    /// directory). Its cases run beside the Rust ones, after `suites:` of `skillgym.yaml`.
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     skillgym_harness::Harness::new().suite("evals/EVAL.yaml").run()
    /// }
    /// ```
    pub fn suite(mut self, path: impl Into<PathBuf>) -> Self {
        self.suites.push(path.into());
        self
    }

    /// Sets the agent that grades the rubric items of declarative cases (plain-string
    /// assertions, `criteria`) when `skillgym.yaml` has no `judge:` (the file's wins, so that
    /// one machine can pick another judge without a rebuild). It runs no case.
    pub fn judge(mut self, agent: impl Agent + 'static) -> Self {
        self.judge = Some(Runner {
            id: "judge".to_owned(),
            agent: Arc::new(agent),
        });
        self
    }

    /// Uses this configuration file instead of discovering `skillgym.yaml` (`--config` and
    /// `SKILLGYM_CONFIG` still win).
    pub fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_path = Some(path.into());
        self
    }

    /// Uses these arguments instead of the process's (the first is the program name).
    pub fn args<I, S>(mut self, argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.argv = Some(argv.into_iter().map(Into::into).collect());
        self
    }

    /// Plans and runs; returns 0 when every execution passed, 101 when one failed, 2 on a usage
    /// or configuration error, and 128 + the signal's number (130, 143, 129) when SIGINT,
    /// SIGTERM or SIGHUP interrupted the run.
    pub fn run(self) -> ExitCode {
        match self.prepare() {
            Ok(Some((arguments, context, trials))) => execute(&arguments, context, trials),
            Ok(None) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {}", secrets::mask(&error.report().to_string()));
                ExitCode::from(error.exit_code())
            }
        }
    }

    /// Everything before the trials run: arguments, configuration, runners, the checks made
    /// first, and the context the trials share; `None` when `--help` was printed instead.
    fn prepare(self) -> Result<Option<Prepared>, Error> {
        secrets::remember_process_env();
        let argv = self.argv.unwrap_or_else(|| std::env::args_os().collect());
        let Some((mut arguments, overrides)) = parse_command_line(argv)? else {
            return Ok(None);
        };
        let rust_cases = collect_registered()?;
        let crate_dir = crate_dir(&rust_cases);
        let config_path = overrides
            .config
            .clone()
            .or(self.config_path)
            .map(|path| absolute(&path))
            .or_else(|| config::discover(&crate_dir));
        let settings = load_settings(config_path.as_deref(), &crate_dir, &overrides)?;
        remember_secrets(&settings);
        let declared = sources::load_all(&suite_paths(&settings, &self.suites, &crate_dir))?;
        let mut cases = rust_cases;
        cases.extend(declared.cases);
        let cases = sort_and_check(cases)?;
        let configured = all_runners(&settings, self.runners)?;
        check_case_runners(&cases, &configured)?;
        let judge = match judge_runner(&settings, &configured)? {
            Some(judge) => Some(judge),
            None => self.judge,
        };
        let runners = select_runners(&settings, configured)?;
        if runners.is_empty() {
            let config = config_path.unwrap_or_else(|| crate_dir.join("skillgym.yaml"));
            return Err(Error::NoRunners { config });
        }
        let runner_ids: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
        let plan = Plan::new(&cases, &runner_ids, &settings.tags);
        check_judge(&plan, &cases, judge.as_ref())?;
        check_before_run(&arguments, &plan, &cases, &runners, judge.as_ref())?;
        check_after_all(&arguments, &plan, &cases, &runners)?;
        // `--test-threads` (libtest's worker count) is honoured as given; the gates still hold
        // the schedule's cap whatever it is.
        if arguments.test_threads.is_none() {
            arguments.test_threads = Some(worker_threads(
                settings.schedule,
                settings.max_parallel,
                plan.executions.len(),
            ));
        }
        let selection = Selection {
            cases,
            runners,
            judge,
            warnings: declared.warnings,
        };
        select_exact(&mut arguments, &plan, &selection.cases, &selection.runners);
        let context = run_context(&arguments, settings, &overrides, selection)?;
        let trials = trials(&plan, &context);
        Ok(Some((arguments, context, trials)))
    }
}

/// What a run runs: the cases, the selected runners, the judge, and the suites' warnings.
struct Selection {
    cases: Vec<CaseSpec>,
    runners: Vec<Runner>,
    judge: Option<Runner>,
    warnings: Vec<Warning>,
}

/// The suites to load: `suites:` of the configuration, then those given in code.
fn suite_paths(settings: &Settings, from_code: &[PathBuf], crate_dir: &Path) -> Vec<SuitePath> {
    let configured = settings.suites.iter().map(|suite| SuitePath {
        path: suite.value.clone(),
        origin: Origin::Config {
            file: settings.config_path.clone().unwrap_or_default(),
            line: suite.line,
            column: suite.column,
        },
    });
    let coded = from_code.iter().map(|path| SuitePath {
        path: if path.is_absolute() {
            path.clone()
        } else {
            crate_dir.join(path)
        },
        origin: Origin::Code,
    });
    configured.chain(coded).collect()
}

/// Every case's runners must be configured: a typo would skip the case silently.
fn check_case_runners(cases: &[CaseSpec], configured: &[Runner]) -> Result<(), Error> {
    let known: Vec<String> = configured.iter().map(|r| r.id.clone()).collect();
    let unknown: Vec<UnknownCaseRunner> = cases
        .iter()
        .flat_map(|case| {
            case.runners
                .iter()
                .filter(|runner| !known.contains(runner))
                .map(|runner| UnknownCaseRunner {
                    case: case.id.clone(),
                    declared: case.source.clone(),
                    runner: runner.clone(),
                    suggestion: crate::suggest::did_you_mean(
                        runner,
                        known.iter().map(String::as_str),
                    )
                    .map(str::to_owned),
                    known: known.clone(),
                })
        })
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(Error::UnknownCaseRunners(unknown))
    }
}

/// The judge of `judge:`: the runner `judge.runner` names (any configured runner, whatever
/// `--runner` selects), or `judge.agent`.
fn judge_runner(settings: &Settings, configured: &[Runner]) -> Result<Option<Runner>, Error> {
    let Some(judge) = &settings.judge else {
        return Ok(None);
    };
    let config = settings
        .config_path
        .as_deref()
        .map_or_else(String::new, |path| path.display().to_string());
    let wanted = match (&judge.runner, &judge.agent) {
        (Some(runner), None) => runner,
        (None, Some(agent)) => {
            let options = AgentOptions::from_config(agent)
                .inherit_user_skills(settings.user_skills == config::UserSkills::Inherit);
            let built = agent::build(agent.kind, options).map_err(JudgeError::Agent)?;
            return Ok(Some(Runner {
                id: "judge".to_owned(),
                agent: built,
            }));
        }
        _ => return Err(JudgeError::RunnerOrAgent { config }.into()),
    };
    if let Some(runner) = configured.iter().find(|r| r.id == wanted.value) {
        return Ok(Some(runner.clone()));
    }
    let known: Vec<String> = configured.iter().map(|r| r.id.clone()).collect();
    Err(JudgeError::UnknownRunner {
        config,
        line: wanted.line,
        column: wanted.column,
        runner: wanted.value.clone(),
        suggestion: crate::suggest::did_you_mean(&wanted.value, known.iter().map(String::as_str))
            .map(str::to_owned),
        known,
    }
    .into())
}

/// Planned cases with rubric graders need a judge.
fn check_judge(plan: &Plan, cases: &[CaseSpec], judge: Option<&Runner>) -> Result<(), Error> {
    if judge.is_some() {
        return Ok(());
    }
    let mut needing: Vec<String> = Vec::new();
    for execution in &plan.executions {
        let case = &cases[execution.case];
        if let CaseCheck::Declared(check) = &case.check
            && check.needs_judge()
            && !needing.contains(&case.id)
        {
            needing.push(case.id.clone());
        }
    }
    if needing.is_empty() {
        Ok(())
    } else {
        Err(JudgeError::Missing { cases: needing }.into())
    }
}

/// libtest's arguments and skillgym's settings from `argv` and the `SKILLGYM_*` variables
/// (flags over variables); `None` when `--help` asked for the help, which is printed.
fn parse_command_line(argv: Vec<OsString>) -> Result<Option<(Arguments, SkillgymArgs)>, Error> {
    let (arguments, flags) = match cli::parse(argv)? {
        cli::Invocation::Run(arguments, flags) => (*arguments, flags),
        cli::Invocation::Help(text) => {
            print!("{text}");
            return Ok(None);
        }
    };
    let env = cli::from_env(|key| std::env::var(key).ok())?;
    Ok(Some((arguments, flags.or(env))))
}

/// The settings of the run: the configuration file's (or the defaults) under the flags.
fn load_settings(
    config_path: Option<&Path>,
    crate_dir: &Path,
    overrides: &SkillgymArgs,
) -> Result<Settings, Error> {
    let config = match config_path {
        Some(path) => config::load(path)?,
        None => config::Config::default_for(crate_dir),
    };
    let settings = config::resolve(config, overrides, &default_output_dir(crate_dir))?;
    if settings.reporter != "standard" {
        return Err(Error::UnknownReporter(settings.reporter));
    }
    Ok(settings)
}

/// Masks, from here on, `run.secrets` and the variables given to the agents and the bootstrap.
fn remember_secrets(settings: &Settings) {
    // Again, now that `run.secrets` may name variables that do not look secret.
    secrets::add_names(&settings.secrets);
    secrets::remember_process_env();
    let bootstrap_env = settings.workspace.bootstrap.iter().map(|b| &b.env);
    let judge_env = settings
        .judge
        .iter()
        .filter_map(|judge| judge.agent.as_ref())
        .map(|agent| &agent.env);
    for env in settings
        .runners
        .iter()
        .map(|(_, runner)| &runner.agent.env)
        .chain(bootstrap_env)
        .chain(judge_env)
    {
        secrets::remember(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
}

/// The configuration's runners, then the code's (replacing any with the same id).
fn all_runners(settings: &Settings, from_code: Vec<Runner>) -> Result<Vec<Runner>, Error> {
    let mut runners = configured_runners(settings)?;
    for runner in from_code {
        match runners.iter_mut().find(|r| r.id == runner.id) {
            Some(slot) => *slot = runner,
            None => runners.push(runner),
        }
    }
    Ok(runners)
}

/// The runners `--runner` selects (which must all exist), in configuration order.
fn select_runners(settings: &Settings, mut runners: Vec<Runner>) -> Result<Vec<Runner>, Error> {
    let known: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
    settings.check_runner_filter(&known)?;
    if !settings.runner_filter.is_empty() {
        runners.retain(|r| settings.runner_filter.contains(&r.id));
    }
    Ok(runners)
}

/// The checks made before anything runs: the planned cases' prompt files, and (unless
/// `--list`) the agent programs of the runners and of the judge.
fn check_before_run(
    arguments: &Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
    judge: Option<&Runner>,
) -> Result<(), Error> {
    let mut planned_cases: Vec<usize> = plan.executions.iter().map(|e| e.case).collect();
    planned_cases.dedup();
    preflight::prompt_files(planned_cases.iter().map(|&index| &cases[index]))?;
    if !arguments.list {
        let mut programs: Vec<Runner> = runners.to_vec();
        // The judge's agent is checked too when a planned case has rubric items.
        let judged = planned_cases.iter().any(|&index| {
            matches!(&cases[index].check, CaseCheck::Declared(check) if check.needs_judge())
        });
        if let Some(judge) =
            judge.filter(|judge| judged && !runners.iter().any(|r| r.id == judge.id))
        {
            programs.push(judge.clone());
        }
        preflight::agent_programs(&programs)?;
    }
    Ok(())
}

/// What the trials share: run directory, gates, dry run, skills. `--list` starts, loads and
/// claims nothing.
fn run_context(
    arguments: &Arguments,
    settings: Settings,
    overrides: &SkillgymArgs,
    selection: Selection,
) -> Result<Arc<RunContext>, Error> {
    let Selection {
        cases,
        runners,
        judge,
        warnings,
    } = selection;
    let run_id = RunDir::run_id_from_env(|key| std::env::var(key).ok());
    let run_dir = RunDir::new(settings.output_dir.clone(), run_id);
    let gates = gates(&settings, &runners, &run_dir);
    let rejections = Rejections::new(&run_dir.path());
    let judge_script = settings.judge.as_ref().and_then(|j| j.mock.as_deref());
    let dry_run = dry_run(arguments, overrides, &cases, judge_script)?;
    // Skills are loaded and checked before anything runs (not for `--list`, which reads
    // nothing).
    let skills = if arguments.list {
        SkillPlan::default()
    } else {
        SkillPlan::build(&settings, &cases)?
    };
    // Claimed last: a run stopped by a configuration error writes nothing.
    if !arguments.list {
        claim(&run_dir)?;
        sources::warn_once(&run_dir.path(), &warnings);
    }
    Ok(Arc::new(RunContext {
        skills,
        rejections,
        dry_run,
        run_dir,
        gates,
        settings,
        cases,
        runners,
        judge,
        results: Mutex::new(Vec::new()),
    }))
}

/// The scripted model server of a `--mock` run. It starts only when trials may run: `--list`
/// stays side-effect free.
fn dry_run(
    arguments: &Arguments,
    overrides: &SkillgymArgs,
    cases: &[CaseSpec],
    judge_script: Option<&Path>,
) -> Result<Option<DryRun>, Error> {
    match overrides.mock.unwrap_or(overrides.mock_script.is_some()) {
        true if !arguments.list => {
            let script = overrides.mock_script.as_deref().map(absolute);
            Ok(Some(DryRun::start(cases, script.as_deref(), judge_script)?))
        }
        _ => Ok(None),
    }
}

/// The schedule's gates: lock files in the run directory when every trial is its own process,
/// else in memory.
fn gates(settings: &Settings, runners: &[Runner], run_dir: &RunDir) -> Gates {
    if process_per_test() {
        let runner_ids: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
        Gates::cross_process(
            settings.schedule,
            settings.max_parallel,
            &runner_ids,
            run_dir.path().join(".locks"),
        )
    } else {
        Gates::in_process(settings.schedule, settings.max_parallel, runners.len())
    }
}

/// Claims the run directory for this run.
fn claim(run_dir: &RunDir) -> Result<(), Error> {
    // The processes of one nextest run share its directory; anything else owns its own.
    let owner = std::env::var("NEXTEST_RUN_ID").map_or_else(
        |_| format!("process:{}", std::process::id()),
        |id| format!("nextest:{id}"),
    );
    Ok(run_dir.claim(&owner)?)
}

/// The libtest name of a trial: `[runner] case_id`. The runner is part of the name (not
/// libtest-mimic's "kind"), so that failure headers, `--format json` events and nextest name
/// it.
fn trial_name(runner_id: &str, case_id: &str) -> String {
    format!("[{runner_id}] {case_id}")
}

/// One trial per planned execution, named by [`trial_name`].
fn trials(plan: &Plan, context: &Arc<RunContext>) -> Vec<Trial> {
    plan.executions
        .iter()
        .enumerate()
        .map(|(position, planned)| {
            let case = &context.cases[planned.case];
            let runner = &context.runners[planned.runner];
            let context = Arc::clone(context);
            let (case_index, runner_index) = (planned.case, planned.runner);
            Trial::ignorable_test(trial_name(&runner.id, &case.id), move || {
                run_trial(&context, position, case_index, runner_index)
            })
        })
        .collect()
}

/// `--exact <case id>` selects the case on every runner, as `--exact "[runner] case id"`
/// selects one trial: the matching is done here, and libtest-mimic is told to skip (exactly)
/// every other trial, so that its counts stay right.
fn select_exact(arguments: &mut Arguments, plan: &Plan, cases: &[CaseSpec], runners: &[Runner]) {
    if !arguments.exact {
        return;
    }
    let Some(filter) = arguments.filter.take() else {
        return;
    };
    for planned in &plan.executions {
        let case = &cases[planned.case];
        let name = trial_name(&runners[planned.runner].id, &case.id);
        if case.id != filter && name != filter {
            arguments.skip.push(name);
        }
    }
}

/// Runs the trials; after an in-process run, writes `results.json` and prints the summary.
fn execute(arguments: &Arguments, context: Arc<RunContext>, trials: Vec<Trial>) -> ExitCode {
    let started = SystemTime::now();
    if !arguments.list {
        if let Err(error) = interrupt::install() {
            eprintln!("skillgym: cannot handle SIGINT/SIGTERM/SIGHUP: {error}");
        }
        reaper::become_subreaper();
    }
    let conclusion = libtest_mimic::run(arguments, trials);
    if arguments.list {
        return conclusion.exit_code();
    }
    if !process_per_test() {
        run_after_all(&context);
    }
    let escaped = reaper::end_run();
    if escaped > 0 {
        eprintln!(
            "skillgym: killed {escaped} agent process(es) still running at the end of the run"
        );
    }
    let mut results = std::mem::take(
        &mut *context
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    if !process_per_test() && !results.is_empty() {
        results.sort_by_key(|(position, _)| *position);
        let executions: Vec<&ExecutionResult> = results.iter().map(|(_, r)| r).collect();
        let counts = Counts::of(executions.iter().copied());
        let ended = SystemTime::now();
        let run_results = RunResults {
            run_id: context.run_dir.run_id(),
            run_dir: context.run_dir.path(),
            started_at: Timestamp::from(started).rfc3339(),
            ended_at: Timestamp::from(ended).rfc3339(),
            duration_ms: ended
                .duration_since(started)
                .map_or(0, |d| d.as_millis() as u64),
            selected_tags: &context.settings.tags,
            summary: counts,
            executions,
        };
        match summary::write_results(&context.run_dir, &run_results) {
            Ok(path) => {
                let quiet = arguments.quiet
                    || matches!(arguments.format, Some(libtest_mimic::FormatSetting::Json));
                if !quiet {
                    let lines = summary::summary_lines(
                        run_results.executions.iter().copied(),
                        counts,
                        &path,
                    );
                    print!("{}", secrets::mask(&lines));
                }
            }
            Err(error) => eprintln!("skillgym: cannot write results.json: {error}"),
        }
    }
    if let Some(signal) = interrupt::received() {
        eprintln!(
            "skillgym: interrupted by {}; the results gathered so far are in {}",
            signal.name(),
            context.run_dir.path().display()
        );
        return ExitCode::from(signal.exit_code());
    }
    conclusion.exit_code()
}

/// Runs the `after_all` hooks of every declarative suite whose cases ran in this run, with
/// the runners they ran on.
fn run_after_all(context: &RunContext) {
    let results = context
        .results
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let mut suites: Vec<(Arc<SuiteScope>, Vec<&str>)> = Vec::new();
    for (_, result) in results.iter().filter(|(_, r)| !r.repetitions.is_empty()) {
        let Some(CaseCheck::Declared(check)) = context
            .cases
            .iter()
            .find(|case| case.id == result.case_id)
            .map(|case| &case.check)
        else {
            continue;
        };
        match suites
            .iter_mut()
            .find(|(s, _)| Arc::ptr_eq(s, &check.suite))
        {
            Some((_, runners)) if !runners.contains(&result.runner_id.as_str()) => {
                runners.push(&result.runner_id);
            }
            Some(_) => {}
            None => suites.push((Arc::clone(&check.suite), vec![&result.runner_id])),
        }
    }
    let run_dir = context.run_dir.path();
    for (suite, runners) in suites {
        suite_hooks::after_all(&run_dir, context.run_dir.run_id(), &suite, &runners);
    }
}

/// Under nextest's process per test no process knows it runs a suite's last trial, so a
/// suite's `after_all` could not run: such a run is refused (not `--list`, which runs nothing).
fn check_after_all(
    arguments: &Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
) -> Result<(), Error> {
    if arguments.list || !process_per_test() {
        return Ok(());
    }
    let runner_ids: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
    for execution in &plan.executions {
        if let CaseCheck::Declared(check) = &cases[execution.case].check
            && check.suite.has_after_all(&runner_ids)
        {
            return Err(Error::AfterAllUnderNextest {
                suite: check.suite.name.clone(),
            });
        }
    }
    Ok(())
}

/// Whether every trial runs in its own process (cargo-nextest's default).
fn process_per_test() -> bool {
    std::env::var("NEXTEST_EXECUTION_MODE").is_ok_and(|mode| mode == "process-per-test")
}

/// One trial: one execution, once the schedule's gates let it start.
fn run_trial(
    context: &RunContext,
    position: usize,
    case_index: usize,
    runner_index: usize,
) -> Result<Completion, Failed> {
    static MARK_LATEST: Once = Once::new();
    MARK_LATEST.call_once(|| {
        if let Err(error) = context.run_dir.mark_latest() {
            eprintln!("skillgym: cannot update the `latest` pointer: {error}");
        }
    });
    let case = &context.cases[case_index];
    let runner = &context.runners[runner_index];
    let _gate = context.gates.enter(runner_index).map_err(|error| {
        format!(
            "skillgym: cannot wait for a {} slot in {}: {error}",
            context.settings.schedule,
            context.run_dir.path().join(".locks").display()
        )
    })?;
    let result = run_execution(context, case, runner);
    let outcome = trial_outcome(&result);
    context.record(position, result);
    outcome
}

/// The trial's verdict and failure text; a skipped execution is an ignored trial.
fn trial_outcome(result: &ExecutionResult) -> Result<Completion, Failed> {
    if result.passed {
        return Ok(Completion::Completed);
    }
    if result.status == Status::Skipped {
        let reason = result
            .failure
            .as_ref()
            .map_or_else(|| "not run".to_owned(), |failure| failure.message.clone());
        return Ok(Completion::ignored_with(secrets::mask(&reason)));
    }
    let mut text = String::new();
    if let Some(failure) = &result.failure {
        text.push_str(&failure.to_string());
        text.push_str(&format!(
            "\n  status: {} · origin: {} · class: {}",
            result.status.as_str(),
            failure.origin,
            failure.class.id
        ));
    } else {
        text.push_str(&format!("status: {}", result.status.as_str()));
    }
    if result.repeat_target > 1 || result.repetitions.iter().any(|r| r.attempts.len() > 1) {
        text.push_str(&format!(
            "\n  stopped at repetition {}/{} ({} passed)",
            result
                .stopped_at_repetition
                .unwrap_or(result.completed_repetitions),
            result.repeat_target,
            result.successful_repetitions
        ));
    }
    text.push_str(&format!("\n  artifacts: {}", result.artifact_dir.display()));
    Err(secrets::mask(&text).into_owned().into())
}

/// The runners of the configuration file.
fn configured_runners(settings: &Settings) -> Result<Vec<Runner>, Error> {
    settings
        .runners
        .iter()
        .map(|(id, runner)| {
            let agent = &runner.agent;
            let options = AgentOptions::from_config(agent)
                .inherit_user_skills(settings.user_skills == config::UserSkills::Inherit);
            let built = agent::build(agent.kind, options).map_err(|source| Error::Runner {
                id: id.clone(),
                source,
            })?;
            Ok(Runner {
                id: id.clone(),
                agent: built,
            })
        })
        .collect()
}

/// The test crate's directory: `CARGO_MANIFEST_DIR` at run time (set by cargo test and
/// nextest), else the directory the cases were compiled in, else the current directory.
fn crate_dir(cases: &[CaseSpec]) -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| cases.first().map(|case| case.base_dir.clone()))
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default())
}

/// `<target dir>/skillgym/runs`: the target directory is found upward from the test binary
/// (cargo marks it with `CACHEDIR.TAG`), else `<crate dir>/target`.
fn default_output_dir(crate_dir: &Path) -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        exe.ancestors()
            .skip(1)
            .find(|dir| dir.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    });
    from_exe
        .unwrap_or_else(|| crate_dir.join("target"))
        .join("skillgym")
        .join("runs")
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommandAgent;

    #[skillgym::case(prompt = "p", runners = ["claude", "codx"])]
    fn names_a_typo(_report: &skillgym::SessionReport) {}

    #[test]
    fn a_case_naming_an_unknown_runner_is_an_error_with_a_suggestion() {
        let cases = collect_registered().unwrap();
        let case = cases
            .iter()
            .find(|case| case.id.ends_with("names_a_typo"))
            .unwrap();
        let runner = |id: &str| Runner {
            id: id.to_owned(),
            agent: Arc::new(CommandAgent::new("true")),
        };
        let error = check_case_runners(
            std::slice::from_ref(case),
            &[runner("claude"), runner("codex")],
        )
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("case `harness::tests::names_a_typo` (")
                && text.contains("harness.rs:"),
            "{text}"
        );
        assert!(
            text.ends_with(
                ") names runner `codx`, which is not configured (configured runners: `claude`, `codex`)\n  help: did you mean `codex`?"
            ),
            "{text}"
        );
        assert_eq!(error.exit_code(), 2);
        assert!(
            check_case_runners(
                std::slice::from_ref(case),
                &[runner("claude"), runner("codx")]
            )
            .is_ok()
        );
    }
}
