//! The harness: from argv to libtest-mimic trials and back to an exit code.
//!
//! | module | role |
//! |---|---|
//! | `runners` | configured and coded runners, `--runner`, the judge, cases' `runners` |
//! | `checks` | what must hold before a trial runs |
//! | `trials` | the libtest trials and their verdicts |
//! | `finish` | running them, and what a run writes and runs after |
//! | `junit_format` | `--format junit`: the JUnit document alone on stdout |

mod checks;
mod context;
mod finish;
mod junit_format;
mod runners;
pub(crate) mod settings;
mod trials;

use checks::{check_after_all, check_before_run, check_judge, check_sandboxes, explain_selection};
use finish::execute;
use runners::{all_runners, check_case_runners, judge_runner, select_runners};
use trials::select;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, Trial};

use crate::agent::Agent;
use crate::artifacts::RunDir;
use crate::cli::{self, SkillgymArgs, UsageError};
use crate::config::{self, Variant};
use crate::dry_run::DryRun;
use crate::error::{Error, VariantError};
use crate::execute::Engine;
use crate::explain::Explainer;
use crate::preflight::MissingProgram;
use crate::rejections::Rejections;
use crate::report::{self, Reporter};
use crate::run_record::{RUN_FILE, RunRecord};
use crate::runner::Runner;
use crate::schedule::{Gates, worker_threads};
use crate::secrets;
use crate::settings::Settings;
use crate::skills::plan::SkillPlan;
use crate::snapshot::Snapshots;
use crate::suite::index::{self, IndexCache};
use crate::suite::registry::sort_and_check;
use crate::suite::sources::{self, Origin, SuitePath};
use crate::suite::triggers::{self, TriggerSet};
use crate::suite::yaml::Warning;
use crate::suite::{CaseSpec, Plan, WorkerGroups, collect_registered};
use crate::terminal_text::{self, eprintln_escaped};
use crate::versions::{Answer, RunVersions};
use context::RunContext;

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
    variants: Vec<Variant>,
    reporters: CustomReporters,
    judge: Option<Runner>,
    suites: Vec<PathBuf>,
    triggers: Vec<TriggerSet>,
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
            replay: None,
        });
        self
    }

    /// Adds (or replaces) a variant: a named way of setting up every case for every runner that
    /// an experiment compares with the baseline (see `variants:` in [`crate::config`]).
    /// Variants given here come after the file's, replacing any with the same name.
    ///
    /// ```no_run
    /// use skillgym_harness::config::{Variant, VariantSkills};
    ///
    /// fn main() -> std::process::ExitCode {
    ///     skillgym_harness::Harness::new()
    ///         .variant(Variant::new("without").skills(VariantSkills::Without))
    ///         .variant(Variant::new("with"))
    ///         .run()
    /// }
    /// ```
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variants.retain(|v| v.name != variant.name);
        self.variants.push(variant);
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

    /// Adds a skill's trigger set: prompts that should make the agent load the skill and
    /// prompts that should not, each a case of its own on every runner
    /// ([`crate::suite::triggers`]); they run after the `triggers.yaml` files found beside the
    /// skills under test and those of `triggers.files`.
    ///
    /// ```no_run
    /// use skillgym_harness::suite::triggers::TriggerSet;
    ///
    /// fn main() -> std::process::ExitCode {
    ///     skillgym_harness::Harness::new()
    ///         .triggers(TriggerSet::new("release-notes").should("Write the release notes."))
    ///         .run()
    /// }
    /// ```
    pub fn triggers(mut self, set: TriggerSet) -> Self {
        self.triggers.push(set);
        self
    }

    /// Sets the agent that grades the rubric items of declarative cases (plain-string
    /// assertions, `criteria`) when `skillgym.yaml` has no `judge:` (the file's wins, so that
    /// one machine can pick another judge without a rebuild). It runs no case.
    pub fn judge(mut self, agent: impl Agent + 'static) -> Self {
        self.judge = Some(Runner {
            id: "judge".to_owned(),
            agent: Arc::new(agent),
            replay: None,
        });
        self
    }

    /// Adds a reporter, which writes into the run directory after every in-process run. Its
    /// name may also be given to `--reporter` (it still runs once). `cargo skillgym report`
    /// knows only the built-in reporters: to report nextest runs with your own, call it on a
    /// [`RunReport::load`](crate::report::RunReport::load)ed report yourself.
    ///
    /// ```no_run
    /// # use std::path::{Path, PathBuf};
    /// # use skillgym_harness::report::{Reporter, RunReport};
    /// struct Count;
    ///
    /// impl Reporter for Count {
    ///     fn name(&self) -> &str {
    ///         "count"
    ///     }
    ///
    ///     fn write(&self, report: &RunReport, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    ///         let path = dir.join("count.txt");
    ///         std::fs::write(&path, report.executions.len().to_string())?;
    ///         Ok(vec![path])
    ///     }
    /// }
    ///
    /// fn main() -> std::process::ExitCode {
    ///     skillgym_harness::Harness::new().reporter(Count).run()
    /// }
    /// ```
    pub fn reporter(mut self, reporter: impl Reporter + 'static) -> Self {
        self.reporters.0.push(Arc::new(reporter));
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

    /// Plans and runs; returns 0 when every execution passed, 101 when one failed or a file or
    /// report of the run could not be written, 2 on a usage or configuration error, and 128 + the signal's number (130, 143, 129) when SIGINT,
    /// SIGTERM or SIGHUP interrupted the run.
    ///
    /// A process started as the sandbox's forwarder ([`crate::sandbox`]: a sandboxed session
    /// under `network: loopback` runs this executable again as its first process) forwards
    /// and runs its agent instead, before anything else.
    pub fn run(self) -> ExitCode {
        if let Some(code) = crate::sandbox::run_if_invoked() {
            return code;
        }
        match self.prepare() {
            Ok(Next::Run((arguments, context, trials))) => execute(&arguments, context, trials),
            Ok(Next::Done(code)) => code,
            Err(error) => {
                eprintln!(
                    "error: {}",
                    terminal_text::masked(&error.report().to_string())
                );
                ExitCode::from(error.exit_code())
            }
        }
    }

    /// Everything before the trials run: arguments, configuration, runners, the checks made
    /// first, and the context the trials share; `Done` when `--help` was printed or
    /// `--explain` explained instead.
    fn prepare(self) -> Result<Next, Error> {
        secrets::remember_process_env();
        let argv = self.argv.unwrap_or_else(|| std::env::args_os().collect());
        let Some((mut arguments, overrides)) = parse_command_line(argv)? else {
            return Ok(Next::Done(ExitCode::SUCCESS));
        };
        let rust_cases = collect_registered()?;
        let crate_dir = crate_dir(&rust_cases);
        let config_path = overrides
            .config
            .clone()
            .or(self.config_path)
            .map(|path| absolute(&path))
            .or_else(|| config::discover(&crate_dir));
        let mut settings = load_settings(config_path.as_deref(), &crate_dir, &overrides)?;
        add_variants(&mut settings, self.variants)?;
        if let Some(dir) = &overrides.explain {
            let runners = all_runners(&settings, self.runners)?;
            return explain(&settings, &runners, &rust_cases, &overrides, dir).map(Next::Done);
        }
        let reporters = resolve_reporters(&settings.reporters, self.reporters)?;
        remember_secrets(&settings);
        let suites = suite_paths(&settings, &self.suites, &crate_dir);
        let declared = load_declared(
            &suites,
            &crate_dir,
            config_path.clone(),
            &arguments,
            &overrides,
        )?;
        let mut cases = rust_cases;
        cases.extend(declared.cases);
        cases.extend(trigger_cases(&settings, &self.triggers, &crate_dir)?);
        let mut cases = sort_and_check(cases)?;
        let mut configured = all_runners(&settings, self.runners)?;
        if let Some(dir) = &overrides.replay {
            crate::runner::replay_all(&mut configured, &absolute(dir)).map_err(Error::Replay)?;
        }
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
        let plan = plan_of(&settings, &cases, &runner_ids)?;
        let filters = &overrides.more_filters;
        select(&mut arguments, filters, &plan, &cases, &runners);
        let chosen = choose(&arguments, &plan, &mut cases, &runners)?;
        let scope = (&plan, &chosen, cases.as_slice(), runners.as_slice());
        let unavailable = check_plan(&arguments, &settings, &overrides, scope, judge.as_ref())?;
        // `--test-threads` (libtest's worker count) is honoured as given; the gates still hold
        // the schedule's cap whatever it is.
        let groups = WorkerGroups::of(&cases);
        let threads = || worker_threads_of(&settings, &plan, &groups);
        arguments.test_threads = arguments.test_threads.or_else(|| Some(threads()));
        let selection = Selection {
            cases,
            runners,
            judge,
            reporters,
            warnings: declared.warnings,
            unavailable,
            groups,
        };
        let ids: Vec<&str> = selection.runners.iter().map(|r| r.id.as_str()).collect();
        check_selected_cases(&arguments, &plan, &settings, &selection.cases, &ids)?;
        let context = run_context(&arguments, settings, &overrides, selection, &crate_dir)?;
        let trials = trials::trials(&plan, &context, &arguments);
        Ok(Next::Run((arguments, context, trials)))
    }
}

/// libtest's worker threads for `plan` when `--test-threads` does not say.
fn worker_threads_of(settings: &Settings, plan: &Plan, groups: &WorkerGroups) -> usize {
    let grouped = !groups.suites.is_empty();
    let executions = plan.executions.len();
    worker_threads(
        settings.schedule,
        settings.max_parallel,
        executions,
        grouped,
    )
}

/// The declarative suites' cases, through their indexes ([`crate::suite::index`]) in the
/// target directory. Under nextest a process runs one trial (`--exact NAME`): it reads only the
/// discovered cases whose id ends that name. (Elsewhere every case is planned, so that
/// libtest's counts of what the filters left out stay whole.)
fn load_declared(
    suites: &[SuitePath],
    crate_dir: &Path,
    config_path: Option<PathBuf>,
    arguments: &Arguments,
    overrides: &SkillgymArgs,
) -> Result<sources::Declared, Error> {
    let index = IndexCache::new(index_dir(crate_dir), config_path);
    let one_trial = arguments.exact && !arguments.list && process_per_test();
    let focus = match &arguments.filter {
        Some(name) if one_trial && overrides.more_filters.is_empty() => Some(name.as_str()),
        _ => None,
    };
    let named = |id: &str| focus.is_some_and(|name| names_case(name, id));
    let focus = focus.map(|_| &named as index::Focus<'_>);
    Ok(sources::load_all(suites, Some(&index), focus)?)
}

/// The executions of `plan` whose trials the filters keep, which the checks before a run look
/// at (a case the filters leave out never stops a run); their cases are read whole unless the
/// run only lists them (the others may stay stubs of the suite index).
fn choose(
    arguments: &Arguments,
    plan: &Plan,
    cases: &mut [CaseSpec],
    runners: &[Runner],
) -> Result<Plan, Error> {
    if arguments.list {
        // A listing runs and checks nothing of them (`check_plan` skips every check for
        // `--list`): no trial name is worked out twice on its hot path.
        return Ok(Plan::default());
    }
    let chosen = trials::chosen_cases(arguments, plan, cases, runners);
    sources::hydrate(cases, |case| chosen[case])?;
    Ok(Plan {
        executions: (plan.executions.iter())
            .filter(|execution| chosen[execution.case])
            .cloned()
            .collect(),
        unknown_variants: plan.unknown_variants.clone(),
    })
}

/// The executions of the run: every selected case on its runners under its variants, kept to
/// `--variant`'s.
fn plan_of(settings: &Settings, cases: &[CaseSpec], runner_ids: &[&str]) -> Result<Plan, Error> {
    Plan::with_variants(
        cases,
        runner_ids,
        &settings.tags,
        &settings.variants,
        &settings.variant_filter,
    )
    .map_err(|error| match error {
        VariantError::UnknownInFilter {
            name,
            known,
            suggestion,
        } => {
            let (subject, given) = if settings.variant_filter_from_env {
                let value = settings.variant_filter.join(",");
                ("SKILLGYM_VARIANT", format!("`SKILLGYM_VARIANT={value}`"))
            } else {
                ("--variant", "`--variant`".to_owned())
            };
            Error::Usage(
                UsageError::new(
                    subject,
                    format!("{given} names unknown variant `{name}` ({known})"),
                )
                .with_suggestion(suggestion),
            )
        }
        error => Error::Variant(error),
    })
}

/// The problems of the cases whose trials run (`--list` and filters that leave a case out are
/// not stopped by it): `variants = [...]` naming an undeclared variant, and a
/// `stop_when_decided` with nothing to decide (no gate, no variants).
fn check_selected_cases(
    arguments: &Arguments,
    plan: &Plan,
    settings: &Settings,
    cases: &[CaseSpec],
    runner_ids: &[&str],
) -> Result<(), Error> {
    if arguments.list {
        return Ok(());
    }
    let unknown: HashMap<usize, &VariantError> = plan
        .unknown_variants
        .iter()
        .map(|(case, e)| (*case, e))
        .collect();
    for planned in &plan.executions {
        let case = &cases[planned.case];
        let runner = runner_ids[planned.runner];
        // The cheap question first: only a problem needs the trial's name and the filters.
        let problem = match unknown.get(&planned.case) {
            Some(error) => Error::Variant((*error).clone()),
            None if case.stop_when_decided
                && planned.variant.is_none()
                && settings.min_pass_rate(case, runner).is_none() =>
            {
                Error::NothingToDecide {
                    case: case.id.clone(),
                    source_location: case.source.clone(),
                    runner: runner.to_owned(),
                }
            }
            None => continue,
        };
        let name = trials::trial_name(
            runner,
            planned.variant.as_ref().map(|v| v.name.as_str()),
            &case.id,
        );
        if !arguments.is_filtered_out(&Trial::test(name, || Ok(()))) {
            return Err(problem);
        }
    }
    Ok(())
}

/// What writes `<run>/run.json` once the agents' versions are known (the first process of a run
/// writes it; a file that cannot be written is noted). The record is taken now, so that it
/// says when the run started.
fn run_record_writer(
    settings: &Settings,
    runners: &[Runner],
    run_dir: PathBuf,
    crate_dir: &Path,
    mock_run: bool,
) -> impl FnOnce(&BTreeMap<String, Answer>) + Send + 'static {
    let mut record = RunRecord::of_this_process(
        crate_dir,
        settings.config_path.as_deref(),
        mock_run,
        Vec::new(),
    );
    let runners = runners.to_vec();
    move |answers| {
        record.runners = (runners.iter())
            .map(|runner| skillgym::RunnerInfo {
                id: runner.id.clone(),
                agent: crate::versions::agent_of(runner, || answers),
            })
            .collect();
        if let Err(error) = record.write_once(&run_dir) {
            crate::unwritten::note_named(&run_dir.join(RUN_FILE), &error);
        }
    }
}

/// What [`Harness::prepare`] leaves to do.
enum Next {
    /// Run the trials.
    Run(Prepared),
    /// Nothing: exit with this code.
    Done(ExitCode),
}

/// `--explain DIR`: asks the agents of the failed attempts in DIR the questions of their
/// failed assertions, through the scripted model under `--mock`.
fn explain(
    settings: &Settings,
    runners: &[Runner],
    cases: &[CaseSpec],
    overrides: &SkillgymArgs,
    dir: &Path,
) -> Result<ExitCode, Error> {
    let dry_run = match overrides.mock_run() {
        true => Some(DryRun::start(&[], None, None)?),
        false => None,
    };
    let explainer = Explainer {
        settings,
        runners,
        cases,
        dry_run: dry_run.as_ref(),
        rerun: overrides.rerun,
    };
    Ok(explainer.run(&absolute(dir)))
}

/// What a run runs: the cases, the selected runners, the judge, and the suites' warnings.
struct Selection {
    cases: Vec<CaseSpec>,
    runners: Vec<Runner>,
    judge: Option<Runner>,
    reporters: Vec<Arc<dyn Reporter>>,
    warnings: Vec<Warning>,
    /// Runners whose agent program is missing: their executions are skipped.
    unavailable: Vec<MissingProgram>,
    /// The suites whose `execution.workers` cap their executions.
    groups: WorkerGroups,
}

/// The checks made once the chosen executions (`plan`, of the `whole` plan) are known: the
/// judge, prompt files, agent programs, `after_all` hooks, sandboxes; and what the selection is
/// said to be. Returns the runners whose agent program is missing, which are skipped
/// (`--require-agents`, or `CI` set, stops the run instead).
fn check_plan(
    arguments: &Arguments,
    settings: &Settings,
    overrides: &SkillgymArgs,
    (whole, plan, cases, runners): (&Plan, &Plan, &[CaseSpec], &[Runner]),
    judge: Option<&Runner>,
) -> Result<Vec<MissingProgram>, Error> {
    if !arguments.list {
        check_judge(plan, cases, judge)?;
    }
    let require_agents = overrides.require_agents.unwrap_or_else(ci_is_set);
    let unavailable = check_before_run(arguments, plan, cases, runners, (judge, require_agents))?;
    warn_unavailable(&unavailable);
    check_after_all(arguments, plan, cases, runners)?;
    let mock = overrides.mock_run();
    check_sandboxes(arguments, settings, runners, judge, mock)?;
    explain_selection(&settings.tags, cases, runners, whole, mock);
    Ok(unavailable)
}

/// Whether `CI` is set (not empty): a missing agent program then stops the run.
fn ci_is_set() -> bool {
    std::env::var_os("CI").is_some_and(|value| !value.is_empty())
}

/// Says, once a process, which runners are skipped for want of their agent program.
fn warn_unavailable(unavailable: &[MissingProgram]) {
    for missing in unavailable {
        eprintln_escaped!(
            "skillgym: warning: {missing}
  its executions are skipped; the other runners run (`--require-agents`, or `CI` set, stops the run instead)"
        );
    }
}

/// The cases of every trigger set of the run ([`crate::suite::triggers`]).
fn trigger_cases(
    settings: &Settings,
    from_code: &[TriggerSet],
    crate_dir: &Path,
) -> Result<Vec<CaseSpec>, Error> {
    let skill_dirs: Vec<_> = settings
        .skills
        .iter()
        .chain(settings.runners.iter().flat_map(|(_, r)| &r.skills))
        .collect();
    let config_path = settings.config_path.as_deref();
    let name_of = |dir: &Path| crate::skills::name_of_dir(dir);
    let sets = triggers::discover(
        &skill_dirs,
        &settings.triggers,
        config_path,
        from_code,
        &name_of,
    )?;
    Ok(triggers::case_specs(&sets, &settings.triggers, crate_dir))
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

/// libtest's arguments and skillgym's settings from `argv` and the `SKILLGYM_*` variables
/// (flags over variables); `None` when `--help` asked for the help, which is printed.
fn parse_command_line(argv: Vec<OsString>) -> Result<Option<(Arguments, SkillgymArgs)>, Error> {
    let (arguments, flags) = match cli::parse(argv)? {
        cli::Invocation::Run(arguments, flags) => (*arguments, *flags),
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
    Ok(settings::resolve(
        config,
        overrides,
        &default_output_dir(crate_dir),
    )?)
}

/// Adds the variants given in code after the file's, replacing any of the same name; a name
/// that cannot name a trial, or a second baseline, is an error.
fn add_variants(settings: &mut Settings, variants: Vec<Variant>) -> Result<(), Error> {
    for variant in variants {
        if let Some(problem) = config::variant_name_problem(&variant.name) {
            return Err(Error::Config(config::ConfigError::new(
                None,
                format!("Harness::variant: {problem}"),
            )));
        }
        settings.variants.retain(|v| v.name != variant.name);
        settings.variants.push(Arc::new(variant));
    }
    let baselines: Vec<&str> = settings
        .variants
        .iter()
        .filter(|v| v.baseline)
        .map(|v| v.name.as_str())
        .collect();
    if baselines.len() > 1 {
        return Err(Error::Config(
            config::ConfigError::new(
                settings.config_path.as_deref(),
                format!(
                    "variants `{}` are each marked as the baseline",
                    baselines.join("`, `")
                ),
            )
            .with_help("an experiment compares every variant with one baseline: mark one"),
        ));
    }
    Ok(())
}

/// Reporters added with [`Harness::reporter`].
#[derive(Default, Clone)]
struct CustomReporters(Vec<Arc<dyn Reporter>>);

impl std::fmt::Debug for CustomReporters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|r| r.name()))
            .finish()
    }
}

/// The reporters of the run: the ones added in code, then each name of `--reporter` /
/// `run.reporters` that is not one of them (`standard`, the console summary, is always on).
fn resolve_reporters(
    names: &[String],
    custom: CustomReporters,
) -> Result<Vec<Arc<dyn Reporter>>, Error> {
    let mut reporters = custom.0;
    for name in names {
        if name == "standard" || reporters.iter().any(|r| r.name() == name) {
            continue;
        }
        match report::built_in(name) {
            Some(reporter) => reporters.push(Arc::from(reporter)),
            None => {
                let mut known = vec!["standard".to_owned()];
                known.extend(report::BUILT_IN.iter().map(|n| (*n).to_owned()));
                known.extend(reporters.iter().map(|r| r.name().to_owned()));
                return Err(Error::UnknownReporter {
                    name: name.clone(),
                    known,
                });
            }
        }
    }
    Ok(reporters)
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

/// What the trials share: run directory, gates, dry run, skills. `--list` starts, loads and
/// claims nothing.
fn run_context(
    arguments: &Arguments,
    settings: Settings,
    overrides: &SkillgymArgs,
    selection: Selection,
    crate_dir: &Path,
) -> Result<Arc<RunContext>, Error> {
    let Selection {
        cases,
        runners,
        judge,
        reporters,
        warnings,
        unavailable,
        groups,
    } = selection;
    let run_id = RunDir::run_id_from_env(|key| std::env::var(key).ok());
    let run_dir = RunDir::new(settings.output_dir.clone(), run_id);
    let gates = gates(&settings, &runners, &run_dir, &groups);
    let rejections = Rejections::new(&run_dir.path()).shared(crate::artifacts::shared_run_dir());
    let judge_script = settings.judge.as_ref().and_then(|j| j.mock.as_deref());
    let dry_run = dry_run(arguments, overrides, &cases, judge_script)?;
    // Skills and the snapshot baselines are loaded and checked before anything runs (not for
    // `--list`, which reads nothing).
    let (skills, snapshots) = if arguments.list {
        (SkillPlan::default(), None)
    } else {
        (
            SkillPlan::build(&settings, &cases)?,
            Snapshots::load(&settings).map_err(Error::Snapshots)?,
        )
    };
    // Claimed last: a run stopped by a configuration error writes nothing.
    let mut versions = RunVersions::default();
    if !arguments.list {
        claim(&run_dir)?;
        let mut warnings = warnings;
        warnings.extend(skills.lint_warnings());
        sources::warn_once(&run_dir.path(), &warnings);
        let record = run_record_writer(
            &settings,
            &runners,
            run_dir.path(),
            crate_dir,
            overrides.mock_run(),
        );
        versions = ask_versions(&run_dir, &runners, &unavailable, dry_run.as_ref(), record);
    }
    Ok(Arc::new(RunContext {
        engine: Engine {
            budget: crate::execute::Budget::new(settings.budget),
            settings,
            run_dir,
            rejections,
            dry_run,
            skills,
            judge,
            snapshots,
            versions,
            progress: Arc::default(),
            unavailable: unavailable
                .iter()
                .map(|missing| (missing.runner.clone(), missing.to_string()))
                .collect(),
        },
        cases,
        runners,
        gates,
        case_groups: groups.of_case,
        reporters,
        format_junit: overrides.format_junit,
        results: Mutex::new(Vec::new()),
    }))
}

/// The agents' versions, asked once per run while the trials start; `record` (`run.json`) is
/// written once they are in. Replaying runners have theirs recorded, and a runner the dry run
/// leaves out is not asked.
fn ask_versions(
    run_dir: &RunDir,
    runners: &[Runner],
    unavailable: &[MissingProgram],
    dry_run: Option<&DryRun>,
    record: impl FnOnce(&BTreeMap<String, Answer>) + Send + 'static,
) -> RunVersions {
    let asked: Vec<&Runner> = runners
        .iter()
        .filter(|runner| runner.replay.is_none())
        .filter(|runner| !unavailable.iter().any(|m| m.runner == runner.id))
        .filter(|runner| dry_run.is_none_or(|dry| dry.skip_reason(runner).is_none()))
        .collect();
    RunVersions::resolve_in_background(&run_dir.path(), &asked, record)
}

/// The scripted model server of a `--mock` run. It starts only when trials may run: `--list`
/// stays side-effect free.
fn dry_run(
    arguments: &Arguments,
    overrides: &SkillgymArgs,
    cases: &[CaseSpec],
    judge_script: Option<&Path>,
) -> Result<Option<DryRun>, Error> {
    match overrides.mock_run() {
        true if !arguments.list => {
            let script = overrides.mock_script.as_deref().map(absolute);
            Ok(Some(DryRun::start(cases, script.as_deref(), judge_script)?))
        }
        _ => Ok(None),
    }
}

/// The schedule's gates: lock files in the run directory when every trial is its own process,
/// else in memory; with a group for each suite whose `execution.workers` caps it.
fn gates(
    settings: &Settings,
    runners: &[Runner],
    run_dir: &RunDir,
    groups: &WorkerGroups,
) -> Gates {
    let named = (groups.suites.iter()).map(|(name, workers)| (name.as_str(), *workers));
    let gates = if process_per_test() {
        let runner_ids: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
        Gates::cross_process(
            settings.schedule,
            settings.max_parallel,
            &runner_ids,
            run_dir.path().join(".locks"),
        )
    } else {
        Gates::in_process(settings.schedule, settings.max_parallel, runners.len())
    };
    gates.with_groups(named)
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

/// Whether every trial runs in its own process (cargo-nextest's default).
pub(super) fn process_per_test() -> bool {
    std::env::var("NEXTEST_EXECUTION_MODE").is_ok_and(|mode| mode == "process-per-test")
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
    runs_dir(&target_dir(crate_dir), crate_dir)
}

/// Whether the trial name (or case id) `name` can be of the suite case whose id in its suite
/// is `id`: `[runner] suite::id`, `[runner/variant] suite::id`, `suite::id`.
fn names_case(name: &str, id: &str) -> bool {
    name.strip_suffix(id)
        .is_some_and(|head| head.ends_with("::"))
}

/// Where the suite indexes are kept ([`crate::suite::index`]): `suite-index` beside the
/// default runs directory.
fn index_dir(crate_dir: &Path) -> PathBuf {
    let runs = default_output_dir(crate_dir);
    runs.parent().unwrap_or(&runs).join("suite-index")
}

/// The target directory of the test binary, found upward from it (cargo marks it with
/// `CACHEDIR.TAG`), else `<crate dir>/target`.
fn target_dir(crate_dir: &Path) -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        exe.ancestors()
            .skip(1)
            .find(|dir| dir.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    });
    from_exe.unwrap_or_else(|| crate_dir.join("target"))
}

/// `<target>/skillgym/runs` when `target` is the crate's own (`<crate>/target`, or the target
/// of the workspace whose root package it is); in a target directory the crate shares (with
/// the other members of its workspace, or with every project under a global
/// `CARGO_TARGET_DIR`), `<target>/skillgym/<crate>-<hash of its path>/runs`, so that the runs
/// and the `latest` link of different crates never mix.
fn runs_dir(target: &Path, crate_dir: &Path) -> PathBuf {
    let own = target.parent() == Some(crate_dir);
    let skillgym = target.join("skillgym");
    if own {
        return skillgym.join("runs");
    }
    let name = crate_dir
        .file_name()
        .map(|name| crate::artifacts::sanitize(&name.to_string_lossy()))
        .unwrap_or_default();
    // A stable hash of the path: the same directory for the same crate, on every run.
    let hash = crate::artifacts::fnv1a(crate_dir.as_os_str().as_encoded_bytes()) >> 32;
    skillgym.join(format!("{name}-{hash:08x}")).join("runs")
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

    #[test]
    fn a_shared_target_directory_keeps_each_crates_runs_apart() {
        let own = runs_dir(Path::new("/src/app/target"), Path::new("/src/app"));
        assert_eq!(own, Path::new("/src/app/target/skillgym/runs"));
        // Two benchmark crates of one workspace share its target directory, not their runs.
        let member = runs_dir(
            Path::new("/src/app/target"),
            Path::new("/src/app/benches/agents"),
        );
        let other = runs_dir(
            Path::new("/src/app/target"),
            Path::new("/src/app/benches/tools"),
        );
        assert!(
            member
                .to_string_lossy()
                .starts_with("/src/app/target/skillgym/agents-"),
            "{}",
            member.display()
        );
        assert_ne!(member, other);
        let shared = Path::new("/home/me/.cache/cargo-target");
        let a = runs_dir(shared, Path::new("/src/app/benches/agents"));
        let b = runs_dir(shared, Path::new("/src/other/agents"));
        assert!(
            a.to_string_lossy()
                .starts_with("/home/me/.cache/cargo-target/skillgym/agents-")
                && a.ends_with("runs"),
            "{}",
            a.display()
        );
        assert_ne!(a, b, "two crates named alike never share a `latest`");
        assert_eq!(a, runs_dir(shared, Path::new("/src/app/benches/agents")));
    }
}
