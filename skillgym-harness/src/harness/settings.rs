//! Resolving the settings of one run ([`Settings`]): flags and `SKILLGYM_*` variables over
//! `skillgym.yaml` over defaults.
//!
//! | setting | flag | env | file key | default |
//! |---|---|---|---|---|
//! | config file | `--config <FILE>` | `SKILLGYM_CONFIG` | — | `skillgym.yaml` / `skillgym.yml` found upward from the test crate's dir, else none |
//! | schedule | `--schedule <MODE>` | `SKILLGYM_SCHEDULE` | `run.schedule` | `parallel` |
//! | max parallel | `--max-parallel <N>` | `SKILLGYM_MAX_PARALLEL` | `run.max_parallel` (`maxParallel`) | available parallelism; always 1 when `serial` |
//! | repeat | `--repeat <N>` | `SKILLGYM_REPEAT` | `run.repeat` | 1 |
//! | repeat failure | `--repeat-failure <N>`, then `--retry-failed <N>` | `SKILLGYM_REPEAT_FAILURE`, then `SKILLGYM_RETRY_FAILED` | `run.repeat_failure` (`repeatFailure`), then `run.retry_failed` (`retryFailed`) | 0 |
//! | tags | `--tag <T>[,<T>...]` (repeatable) | `SKILLGYM_TAG` | `run.tags` | none (every case) |
//! | runners | `--runner <ID>[,<ID>...]` (repeatable) | `SKILLGYM_RUNNER` | — | every runner |
//! | variants | `--variant <NAME>[,<NAME>...]` (repeatable) | `SKILLGYM_VARIANT` | `variants` (declares them) | every variant |
//! | output dir | `--output-dir <DIR>` (vs process cwd) | `SKILLGYM_OUTPUT_DIR` | `run.output_dir` (`outputDir`, vs config dir) | `target/skillgym/runs` (chosen by the caller) |
//! | reporters | `--reporter <NAME>[,<NAME>...]` (repeatable) | `SKILLGYM_REPORTER` | `run.reporters` (or one `run.reporter`) | none: the console summary (`standard`) alone |
//! | max steps | — | — | `run.max_steps` (`maxSteps`) | none |
//! | timeout | — | — | `defaults.timeout` or `defaults.timeout_ms` (`timeoutMs`) | 2m |
//! | cwd (workspace mode `none`) | — | — | `run.workspace.cwd` or `run.cwd` (not both; vs config dir) | the config dir |
//! | workspace | — | — | `run.workspace` | mode `isolated` |
//! | workspace root | `--workspace-root <DIR>` (vs process cwd) | `SKILLGYM_WORKSPACE_ROOT` | `run.workspace_root` (`workspaceRoot`, vs config dir) | the temporary directory (`crate::workspace::root`) |
//! | declarative suites | — | — | `suites` (vs config dir) | none |
//! | judge runner | — | — | `judge.runner` | none (rubric graders are a start-up error) |
//! | token snapshots | — | — | `snapshots` | off |
//! | prices for estimated costs | — | — | `pricing` (per model id, over the built-in ones) | the built-in prices ([`crate::pricing`]) |
//! | update snapshots | `--update-snapshots[=BOOL]` (needs `snapshots`) | `SKILLGYM_UPDATE_SNAPSHOTS` | — | off |
//! | sandbox | — | — | `run.sandbox`, replaced per runner by `runners.<id>.sandbox` ([`Settings::sandbox_for`]) | `none` |
//!
//! A flag beats its variable, field by field. An empty variable counts as unset. An empty
//! `--tag` list never hides `run.tags`.
//!
//! `retry_failed` is an alias read only at the edges (`--retry-failed`, `SKILLGYM_RETRY_FAILED`,
//! `run.retry_failed`, the macro's `retry_failed = N`) and folded there into `repeat_failure`:
//! `repeat_failure` wins when both are given at one level, and a flag, either one, beats a
//! variable (`--retry-failed` beats `SKILLGYM_REPEAT_FAILURE`).
//!
//! Each case then gets its own settings from [`Settings::effective`] (see [`crate::settings`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::{SkillgymArgs, UsageError};
use crate::config::{
    Config, DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, RunConfig, Schedule, WorkspaceMode, resolve_path,
};
use crate::settings::{CaseOverrides, Settings, SettingsError};
use crate::suggest::did_you_mean;

/// Resolves the settings of a run from `config` and `args` (flags already merged over the
/// environment with `SkillgymArgs::or`); see the table in this module's docs.
///
/// CLI paths are resolved against the process cwd, as is `default_output_dir` when relative.
/// When the config has runners, every `--runner` id must name one of them (see
/// [`check_runner_filter`]).
pub(crate) fn resolve(
    config: Config,
    args: &SkillgymArgs,
    default_output_dir: &Path,
) -> Result<Settings, SettingsError> {
    let process_cwd = std::env::current_dir().unwrap_or_else(|_| config.dir.clone());
    resolve_in(config, args, default_output_dir, &process_cwd)
}

/// [`resolve`] with an explicit process cwd.
fn resolve_in(
    config: Config,
    args: &SkillgymArgs,
    default_output_dir: &Path,
    process_cwd: &Path,
) -> Result<Settings, SettingsError> {
    let Config {
        run,
        defaults,
        runners,
        suites,
        judge,
        snapshots,
        variants,
        pricing,
        triggers,
        path,
        dir,
        ..
    } = config;
    check_flags(args, snapshots.is_some(), path.as_deref())?;
    let (schedule, max_parallel) = schedule_of(args, &run);
    let overrides = overrides_of(args);
    // An empty CLI list means "not given": it must not hide `run.tags` (or `run.reporters`).
    let tags = flag_list_or(&args.tags, run.tags.unwrap_or_default());
    let (output_dir, workspace_root) = places(
        args,
        (run.output_dir, run.workspace_root),
        default_output_dir,
        process_cwd,
    );
    let reporters = flag_list_or(&args.reporters, run.reporters);
    let workspace = run.workspace.unwrap_or_default();
    let cwd = match (&workspace.cwd, run.cwd) {
        (Some(cwd), _) if workspace.mode == WorkspaceMode::None => cwd.clone(),
        (_, Some(cwd)) => cwd,
        _ => dir.clone(),
    };
    Ok(Settings {
        config_path: path,
        config_dir: dir,
        schedule,
        max_parallel,
        repeat: overrides.repeat.or(run.repeat).unwrap_or(1),
        repeat_failure: overrides.repeat_failure.or(run.repeat_failure).unwrap_or(0),
        samples: run.samples,
        min_pass_rate: run.min_pass_rate,
        min_lift: run.min_lift,
        overrides,
        tags,
        runner_filter: args.runners.clone(),
        runner_filter_from_env: args.runners_from_env && !args.runners.is_empty(),
        output_dir,
        reporters,
        max_steps: run.max_steps,
        default_timeout: defaults.timeout.unwrap_or(DEFAULT_TIMEOUT),
        cwd,
        workspace,
        workspace_root,
        runners,
        skills: run.skills,
        user_skills: run.user_skills,
        max_output: run.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
        secrets: run.secrets,
        sandbox: run.sandbox,
        budget: run.budget,
        suites,
        judge,
        snapshots,
        update_snapshots: args.update_snapshots.unwrap_or(false),
        variants: variants.into_iter().map(Arc::new).collect(),
        variant_filter: args.variants.clone(),
        variant_filter_from_env: args.variants_from_env && !args.variants.is_empty(),
        pricing: crate::pricing::PriceTable::builtin().with(pricing),
        triggers,
    })
}

/// The per-case settings the flags (or variables) give.
fn overrides_of(args: &SkillgymArgs) -> CaseOverrides {
    CaseOverrides {
        repeat: args.repeat,
        // The legacy `--retry-failed` stops here (`SkillgymArgs::or` already let a flag, either
        // one, beat a variable).
        repeat_failure: args.repeat_failure.or(args.retry_failed),
        samples: args.samples,
    }
}

/// The output directory and the workspace root: a flag's (vs the process cwd), else the
/// file's (`files`: `run.output_dir`, `run.workspace_root`), else the default output
/// directory (vs the process cwd) and no workspace root.
fn places(
    args: &SkillgymArgs,
    files: (Option<PathBuf>, Option<PathBuf>),
    default_output_dir: &Path,
    process_cwd: &Path,
) -> (PathBuf, Option<PathBuf>) {
    let output_dir = match (&args.output_dir, files.0) {
        (Some(flag), _) => resolve_path(process_cwd, flag),
        (None, Some(file)) => file,
        (None, None) => resolve_path(process_cwd, default_output_dir),
    };
    let workspace_root = match (&args.workspace_root, files.1) {
        (Some(flag), _) => Some(resolve_path(process_cwd, flag)),
        (None, file) => file,
    };
    (output_dir, workspace_root)
}

/// `--update-snapshots` (or its variable) given while snapshots are off: a flag that would do
/// nothing is an error.
fn update_without_snapshots(config: Option<&Path>, args: &SkillgymArgs) -> UsageError {
    let subject = if args.update_snapshots_from_env {
        "SKILLGYM_UPDATE_SNAPSHOTS"
    } else {
        "--update-snapshots"
    };
    let file = match config {
        Some(path) => format!("{} has no `snapshots:` section", path.display()),
        None => "no skillgym.yaml was found".to_owned(),
    };
    UsageError::new(
        subject,
        format!(
            "`{subject}` has nothing to update: token snapshots are off ({file}); add `snapshots: {{ tolerance: {{ percent: 10 }} }}` to turn them on"
        ),
    )
}

/// Flags that would do nothing or contradict each other: `--update-snapshots` with snapshots
/// off, `--samples` beside `--repeat` or `--repeat-failure` (or their variables).
fn check_flags(
    args: &SkillgymArgs,
    snapshots: bool,
    config: Option<&Path>,
) -> Result<(), UsageError> {
    if args.update_snapshots.unwrap_or(false) && !snapshots {
        return Err(update_without_snapshots(config, args));
    }
    if args.samples.is_some()
        && (args.repeat.is_some() || args.repeat_failure.is_some() || args.retry_failed.is_some())
    {
        return Err(samples_with_repeat());
    }
    Ok(())
}

/// `--samples` beside `--repeat` or `--repeat-failure` (or their variables).
fn samples_with_repeat() -> UsageError {
    UsageError::new(
        "--samples",
        "`--samples` conflicts with `--repeat`/`--repeat-failure`: a run either samples each \
         case (independent sessions, none retried) or repeats it until `--repeat` sessions \
         passed; give one of them",
    )
}

/// The schedule, and how many executions run at once (always 1 when serial).
fn schedule_of(args: &SkillgymArgs, run: &RunConfig) -> (Schedule, usize) {
    let schedule = args.schedule.or(run.schedule).unwrap_or_default();
    let max_parallel = match schedule {
        Schedule::Serial => 1,
        _ => args
            .max_parallel
            .or(run.max_parallel)
            .unwrap_or_else(default_parallelism),
    };
    (schedule, max_parallel)
}

/// A list flag's values, or the file's when the flag gave none.
fn flag_list_or(flag: &[String], file: Vec<String>) -> Vec<String> {
    if flag.is_empty() { file } else { flag.to_vec() }
}

fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checks that every id in `runner_filter` is one of `known` (configured plus any runners
/// added in code); the error lists the known ids and suggests the closest.
pub(crate) fn check_runner_filter(settings: &Settings, known: &[&str]) -> Result<(), UsageError> {
    let Some(unknown) = settings
        .runner_filter
        .iter()
        .find(|id| !known.contains(&id.as_str()))
    else {
        return Ok(());
    };
    let listed = if known.is_empty() {
        "no runners are configured".to_owned()
    } else {
        let ids: Vec<String> = known.iter().map(|id| format!("`{id}`")).collect();
        format!("configured runners: {}", ids.join(", "))
    };
    let (subject, given) = if settings.runner_filter_from_env {
        let value = settings.runner_filter.join(",");
        ("SKILLGYM_RUNNER", format!("`SKILLGYM_RUNNER={value}`"))
    } else {
        ("--runner", "`--runner`".to_owned())
    };
    Err(UsageError::new(
        subject,
        format!("{given} names unknown runner `{unknown}` ({listed})"),
    )
    .with_suggestion(did_you_mean(unknown, known.iter().copied())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli;
    use crate::config::WorkspaceConfig;
    use crate::config::{SandboxMode, SandboxNetwork};
    use crate::settings::CaseSettings;
    use crate::suite::CaseSpec;
    use std::path::PathBuf;
    use std::time::Duration;

    const DIR: &str = "/proj/bench";
    const CWD: &str = "/proj";

    fn config(yaml: &str) -> Config {
        Config::parse(&Path::new(DIR).join("skillgym.yaml"), yaml).unwrap()
    }

    fn flags(argv: &[&str]) -> SkillgymArgs {
        match cli::parse(std::iter::once("bench").chain(argv.iter().copied())).unwrap() {
            cli::Invocation::Run(_, flags) => *flags,
            cli::Invocation::Help(_) => panic!("help"),
        }
    }

    fn env(vars: &[(&str, &str)]) -> SkillgymArgs {
        cli::from_env(|key| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        })
        .unwrap()
    }

    fn resolve(config: Config, args: SkillgymArgs) -> Settings {
        resolve_in(
            config,
            &args,
            Path::new("target/skillgym/runs"),
            Path::new(CWD),
        )
        .unwrap()
    }

    const FULL: &str = "
run:
  schedule: isolated-by-runner
  max_parallel: 3
  repeat: 2
  repeat_failure: 1
  retry_failed: 5
  max_steps: 40
  tags: [file-tag]
  output_dir: out/runs
  reporter: json
defaults: { timeout: 5m }
runners:
  claude: { agent: { type: claude-code, model: m } }
  codex: { agent: { type: codex, model: m } }
";

    #[test]
    fn defaults_without_a_file() {
        let s = resolve(Config::default_for(Path::new(DIR)), SkillgymArgs::default());
        assert_eq!(s.config_path, None);
        assert_eq!(s.config_dir, PathBuf::from(DIR));
        assert_eq!(s.schedule, Schedule::Parallel);
        assert_eq!(s.max_parallel, default_parallelism());
        assert_eq!((s.repeat, s.repeat_failure), (1, 0));
        assert!(s.tags.is_empty() && s.runner_filter.is_empty());
        assert_eq!(s.output_dir, PathBuf::from("/proj/target/skillgym/runs"));
        assert!(s.reporters.is_empty());
        assert_eq!(s.max_steps, None);
        assert_eq!(s.default_timeout, Duration::from_secs(120));
        assert_eq!(s.cwd, PathBuf::from(DIR));
        assert_eq!(s.workspace, WorkspaceConfig::default());
        assert!(s.runners.is_empty());
    }

    #[test]
    fn file_beats_defaults() {
        let s = resolve(config(FULL), SkillgymArgs::default());
        assert_eq!(
            s.config_path,
            Some(PathBuf::from("/proj/bench/skillgym.yaml"))
        );
        assert_eq!(s.schedule, Schedule::IsolatedByRunner);
        assert_eq!(s.max_parallel, 3);
        assert_eq!((s.repeat, s.repeat_failure), (2, 1));
        assert_eq!(s.max_steps, Some(40));
        assert_eq!(s.tags, ["file-tag"]);
        assert_eq!(s.output_dir, PathBuf::from("/proj/bench/out/runs"));
        assert_eq!(s.reporters, ["json"]);
        assert_eq!(s.default_timeout, Duration::from_secs(300));
    }

    #[test]
    fn env_beats_file() {
        let args = env(&[
            ("SKILLGYM_SCHEDULE", "parallel"),
            ("SKILLGYM_MAX_PARALLEL", "7"),
            ("SKILLGYM_REPEAT", "4"),
            ("SKILLGYM_REPEAT_FAILURE", "2"),
            ("SKILLGYM_TAG", "env-tag"),
            ("SKILLGYM_RUNNER", "codex"),
            ("SKILLGYM_OUTPUT_DIR", "env-out"),
            ("SKILLGYM_REPORTER", "junit"),
        ]);
        let s = resolve(config(FULL), args);
        assert_eq!(s.schedule, Schedule::Parallel);
        assert_eq!(s.max_parallel, 7);
        assert_eq!((s.repeat, s.repeat_failure), (4, 2));
        assert_eq!(s.tags, ["env-tag"]);
        assert_eq!(s.runner_filter, ["codex"]);
        assert_eq!(s.output_dir, PathBuf::from("/proj/env-out"));
        assert_eq!(s.reporters, ["junit"]);
    }

    #[test]
    fn flags_beat_env() {
        let env_args = env(&[
            ("SKILLGYM_SCHEDULE", "parallel"),
            ("SKILLGYM_MAX_PARALLEL", "7"),
            ("SKILLGYM_REPEAT", "4"),
            ("SKILLGYM_REPEAT_FAILURE", "2"),
            ("SKILLGYM_TAG", "env-tag"),
            ("SKILLGYM_RUNNER", "codex"),
            ("SKILLGYM_OUTPUT_DIR", "env-out"),
            ("SKILLGYM_REPORTER", "junit"),
        ]);
        let flag_args = flags(&[
            "--schedule",
            "isolated-by-runner",
            "--max-parallel",
            "9",
            "--repeat",
            "6",
            "--repeat-failure",
            "3",
            "--tag",
            "flag-tag",
            "--runner",
            "claude",
            "--output-dir",
            "/abs/out",
            "--reporter",
            "junit,json",
            "--reporter=html",
        ]);
        let s = resolve(config(FULL), flag_args.or(env_args));
        assert_eq!(s.schedule, Schedule::IsolatedByRunner);
        assert_eq!(s.max_parallel, 9);
        assert_eq!((s.repeat, s.repeat_failure), (6, 3));
        assert_eq!(s.tags, ["flag-tag"]);
        assert_eq!(s.runner_filter, ["claude"]);
        assert_eq!(s.output_dir, PathBuf::from("/abs/out"));
        assert_eq!(
            s.reporters,
            ["junit", "json", "html"],
            "the flag's list replaces the file's"
        );
    }

    #[test]
    fn repeat_failure_chain() {
        let file = |yaml: &str| config(&format!("run:\n{yaml}"));
        let cases: [(&[&str], &str, u32); 6] = [
            (
                &["--repeat-failure", "1", "--retry-failed", "2"],
                "  repeat_failure: 3\n",
                1,
            ),
            (
                &["--retry-failed", "2"],
                "  repeat_failure: 3\n  retry_failed: 4\n",
                2,
            ),
            (&[], "  repeat_failure: 3\n  retry_failed: 4\n", 3),
            (&[], "  retryFailed: 4\n", 4),
            (&[], "  repeatFailure: 5\n", 5),
            (&[], "  repeat: 1\n", 0),
        ];
        for (argv, yaml, expected) in cases {
            assert_eq!(
                resolve(file(yaml), flags(argv)).repeat_failure,
                expected,
                "{argv:?} {yaml}"
            );
        }
    }

    #[test]
    fn per_case_settings_follow_the_table() {
        let registered = skillgym::__private::CaseDef::all()
            .next()
            .expect("this test binary registers a case");
        let base = CaseSpec::from_def(registered);
        let case = |repeat, repeat_failure, timeout: Option<u64>, max_steps| CaseSpec {
            repeat,
            repeat_failure,
            timeout: timeout.map(Duration::from_secs),
            max_steps,
            ..base.clone()
        };
        let unset = case(None, None, None, None);
        let set = case(Some(5), Some(3), Some(10), Some(7));
        let settings = |repeat, repeat_failure, timeout, max_steps| CaseSettings {
            repeat,
            repeat_failure,
            samples: None,
            timeout: Duration::from_secs(timeout),
            max_steps,
        };

        let defaults = resolve(Config::default_for(Path::new(DIR)), SkillgymArgs::default());
        assert_eq!(defaults.effective(&unset), settings(1, 0, 120, None));
        // The file fills in what the case leaves unset; the case beats the file.
        let file = resolve(config(FULL), SkillgymArgs::default());
        assert_eq!(file.effective(&unset), settings(2, 1, 300, Some(40)));
        assert_eq!(file.effective(&set), settings(5, 3, 10, Some(7)));
        // Flags and variables beat the case.
        let flagged = resolve(
            config(FULL),
            flags(&["--repeat", "4", "--retry-failed", "0"]),
        );
        assert_eq!(flagged.effective(&set), settings(4, 0, 10, Some(7)));
        let variables = env(&[("SKILLGYM_REPEAT", "6"), ("SKILLGYM_RETRY_FAILED", "2")]);
        let from_env = resolve(config(FULL), variables);
        assert_eq!(from_env.effective(&set), settings(6, 2, 10, Some(7)));
        // `--retry-failed` on the command line beats `SKILLGYM_REPEAT_FAILURE`.
        let both = resolve(
            config(FULL),
            flags(&["--retry-failed", "2"]).or(env(&[("SKILLGYM_REPEAT_FAILURE", "6")])),
        );
        assert_eq!(both.effective(&set).repeat_failure, 2);
        assert_eq!(both.effective(&unset).repeat_failure, 2);
    }

    #[test]
    fn snapshots_are_off_without_the_section_and_update_needs_it() {
        let s = resolve(config(FULL), SkillgymArgs::default());
        assert_eq!((s.snapshots, s.update_snapshots), (None, false));
        let with = config("snapshots: { tolerance: { percent: 10 } }");
        let s = resolve(with.clone(), flags(&["--update-snapshots"]));
        assert!(s.update_snapshots);
        assert_eq!(
            s.snapshots.unwrap().path,
            PathBuf::from("/proj/bench/skillgym.snapshots.json")
        );
        let s = resolve(with, env(&[("SKILLGYM_UPDATE_SNAPSHOTS", "0")]));
        assert!(!s.update_snapshots);
        let refuse = |config: Config, args: SkillgymArgs| match resolve_in(
            config,
            &args,
            Path::new("out"),
            Path::new(CWD),
        ) {
            Err(SettingsError::Usage(err)) => err,
            other => panic!("expected a usage error, got {other:?}"),
        };
        let err = refuse(config(FULL), flags(&["--update-snapshots"]));
        assert_eq!(err.subject(), "--update-snapshots");
        assert_eq!(
            err.message(),
            "`--update-snapshots` has nothing to update: token snapshots are off \
             (/proj/bench/skillgym.yaml has no `snapshots:` section); add \
             `snapshots: { tolerance: { percent: 10 } }` to turn them on"
        );
        let err = refuse(
            Config::default_for(Path::new(DIR)),
            env(&[("SKILLGYM_UPDATE_SNAPSHOTS", "1")]),
        );
        assert_eq!(err.subject(), "SKILLGYM_UPDATE_SNAPSHOTS");
        assert!(
            err.message().contains("(no skillgym.yaml was found)"),
            "{err}"
        );
        // `--update-snapshots=false` asks for nothing.
        resolve(config(FULL), flags(&["--update-snapshots=false"]));
    }

    #[test]
    fn serial_forces_one_at_a_time() {
        let s = resolve(
            config(FULL),
            flags(&["--schedule", "serial", "--max-parallel", "8"]),
        );
        assert_eq!((s.schedule, s.max_parallel), (Schedule::Serial, 1));
        let s = resolve(
            config("run: { schedule: serial, max_parallel: 4 }"),
            SkillgymArgs::default(),
        );
        assert_eq!(s.max_parallel, 1);
    }

    #[test]
    fn empty_cli_tags_do_not_hide_config_tags() {
        // The TypeScript original dropped `run.tags` whenever the CLI tag list was present but
        // empty; here "no --tag" always falls back to the file.
        let s = resolve(
            config("run: { tags: [smoke, slow, smoke] }"),
            flags(&[]).or(env(&[("SKILLGYM_TAG", "")])),
        );
        assert_eq!(s.tags, ["smoke", "slow"]);
    }

    #[test]
    fn workspace_root_flag_beats_variable_beats_file() {
        let file = || config("run: { workspace_root: ws }");
        assert_eq!(
            resolve(config(""), SkillgymArgs::default()).workspace_root,
            None
        );
        assert_eq!(
            resolve(file(), SkillgymArgs::default()).workspace_root,
            Some(PathBuf::from("/proj/bench/ws"))
        );
        let variable = env(&[("SKILLGYM_WORKSPACE_ROOT", "from-env")]);
        assert_eq!(
            resolve(file(), variable.clone()).workspace_root,
            Some(PathBuf::from("/proj/from-env")),
            "a variable's relative path is the process cwd's"
        );
        assert_eq!(
            resolve(file(), flags(&["--workspace-root", "/abs"]).or(variable)).workspace_root,
            Some(PathBuf::from("/abs"))
        );
    }

    #[test]
    fn cwd_and_workspace() {
        let s = resolve(
            config("run: { cwd: app, workspace: { mode: none } }"),
            SkillgymArgs::default(),
        );
        assert_eq!(s.cwd, PathBuf::from("/proj/bench/app"));
        let s = resolve(
            config("run: { workspace: { mode: none, cwd: ../x } }"),
            SkillgymArgs::default(),
        );
        assert_eq!(s.cwd, PathBuf::from("/proj/bench/../x"));
        assert_eq!(s.workspace.mode, WorkspaceMode::None);
        let s = resolve(
            config("run: { workspace: { mode: isolated, template_dir: fixtures/app } }"),
            SkillgymArgs::default(),
        );
        assert_eq!(s.cwd, PathBuf::from(DIR));
        assert_eq!(
            s.workspace.template_dir,
            Some(PathBuf::from("/proj/bench/fixtures/app"))
        );
    }

    #[test]
    fn unknown_runner_is_an_error_with_a_suggestion() {
        let s = resolve_in(
            config(FULL),
            &flags(&["--runner", "claude,clade"]),
            Path::new("out"),
            Path::new(CWD),
        )
        .unwrap();
        let err = check_runner_filter(&s, &["claude", "codex"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`--runner` names unknown runner `clade` (configured runners: `claude`, `codex`); \
             did you mean `claude`?"
        );
    }

    #[test]
    fn an_unknown_runner_from_the_variable_names_the_variable() {
        let mut args = flags(&[]);
        args.runners = vec!["claude".into(), "clade".into()];
        args.runners_from_env = true;
        let s = resolve_in(config(FULL), &args, Path::new("out"), Path::new(CWD)).unwrap();
        let err = check_runner_filter(&s, &["claude", "codex"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`SKILLGYM_RUNNER=claude,clade` names unknown runner `clade` (configured runners: \
             `claude`, `codex`); did you mean `claude`?"
        );
    }

    #[test]
    fn runner_check_is_skipped_without_configured_runners() {
        let s = resolve(
            Config::default_for(Path::new(DIR)),
            flags(&["--runner", "mine"]),
        );
        assert_eq!(s.runner_filter, ["mine"]);
        assert!(check_runner_filter(&s, &["mine", "other"]).is_ok());
        let err = check_runner_filter(&s, &[]).unwrap_err();
        assert_eq!(
            err.message(),
            "`--runner` names unknown runner `mine` (no runners are configured)"
        );
    }

    #[test]
    fn a_runner_s_own_sandbox_replaces_the_run_s() {
        let config = Config::parse(
            &Path::new("/proj/bench").join("skillgym.yaml"),
            "run:\n  sandbox: bubblewrap\nrunners:\n  a: { agent: { type: command, command: x } }\n  b:\n    agent: { type: command, command: x }\n    sandbox: { mode: bubblewrap, network: loopback, read_only: [tools, /abs] }\n  c: { agent: { type: command, command: x }, sandbox: none }\n",
        )
        .unwrap();
        let settings = super::resolve(
            config,
            &crate::cli::SkillgymArgs::default(),
            Path::new("/out"),
        )
        .unwrap();
        assert_eq!(settings.sandbox_for("a").mode, SandboxMode::Bubblewrap);
        assert_eq!(settings.sandbox_for("b").network, SandboxNetwork::Loopback);
        assert_eq!(
            settings.sandbox_for("c").mode,
            SandboxMode::None,
            "the runner's replaces the run's"
        );
        assert_eq!(settings.sandbox_for("coded").mode, SandboxMode::Bubblewrap);
    }

    #[test]
    fn samples_make_a_case_sampled_from_any_level() {
        let registered = skillgym::__private::CaseDef::all()
            .next()
            .expect("this test binary registers a case");
        let base = CaseSpec::from_def(registered);
        let case = |repeat, samples| CaseSpec {
            repeat,
            samples,
            ..base.clone()
        };
        let sampled = |settings: &Settings, case: &CaseSpec| {
            let effective = settings.effective(case);
            (
                effective.samples,
                effective.repeat,
                effective.repeat_failure,
            )
        };
        let run = resolve(config("run:\n  samples: 4\n"), SkillgymArgs::default());
        assert_eq!(sampled(&run, &case(None, None)), (Some(4), 4, 0));
        // The case's own samples beat the run's; samples set anywhere beat a repeat.
        assert_eq!(sampled(&run, &case(Some(3), None)), (Some(4), 4, 0));
        assert_eq!(sampled(&run, &case(None, Some(9))), (Some(9), 9, 0));
        let plain = resolve(config(""), SkillgymArgs::default());
        assert_eq!(sampled(&plain, &case(Some(3), None)), (None, 3, 0));
        let flagged = resolve(config(""), flags(&["--samples", "6"]));
        assert_eq!(sampled(&flagged, &case(Some(3), Some(9))), (Some(6), 6, 0));
        let refuse = |args: SkillgymArgs| match resolve_in(
            config(""),
            &args,
            Path::new("target/skillgym/runs"),
            Path::new(CWD),
        ) {
            Err(SettingsError::Usage(err)) => err,
            other => panic!("{other:?}"),
        };
        let err = refuse(flags(&["--samples", "6", "--repeat", "2"]));
        assert_eq!(err.subject(), "--samples");
        assert!(
            err.to_string().contains("conflicts with `--repeat`"),
            "{err}"
        );
        refuse(flags(&["--repeat-failure", "1", "--samples", "6"]));
    }

    #[test]
    fn the_case_s_gate_beats_the_runner_s_which_beats_the_run_s() {
        let registered = skillgym::__private::CaseDef::all()
            .next()
            .expect("this test binary registers a case");
        let base = CaseSpec::from_def(registered);
        let settings = resolve(
            config(
                "run:\n  min_pass_rate: 0.8\nrunners:\n  a: { agent: { type: command, command: x }, min_pass_rate: 0.5 }\n  b: { agent: { type: command, command: x } }\n",
            ),
            SkillgymArgs::default(),
        );
        let own = CaseSpec {
            min_pass_rate: Some(0.9),
            ..base.clone()
        };
        assert_eq!(settings.min_pass_rate(&own, "a"), Some(0.9));
        assert_eq!(settings.min_pass_rate(&base, "a"), Some(0.5));
        assert_eq!(settings.min_pass_rate(&base, "b"), Some(0.8));
        assert_eq!(settings.min_pass_rate(&base, "coded"), Some(0.8));
        let none = resolve(config(""), SkillgymArgs::default());
        assert_eq!(none.min_pass_rate(&base, "a"), None);
    }
}
