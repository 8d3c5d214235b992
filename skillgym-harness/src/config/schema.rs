//! The `skillgym.yaml` schema: what the file may contain, validated while it is read.
//!
//! Keys are snake_case; the TypeScript original's camelCase names are accepted as aliases.
//! Unknown keys are errors everywhere. Relative paths are resolved against the directory of the
//! config file by [`Config::parse`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::ConfigError;
use super::budget::BudgetConfig;
use super::fields::{self, Millis, NonEmpty, PositiveDuration};
use super::sandbox::SandboxConfig;
use super::snapshots::SnapshotsConfig;
use super::variants::{Variant, VariantSkills};
use super::yaml::{self, Located};
use crate::suggest::did_you_mean;

/// The default per-case timeout when neither the case nor `defaults` set one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The default `run.max_output`: 512 MiB.
pub const DEFAULT_MAX_OUTPUT: u64 = 512 << 20;

/// A whole `skillgym.yaml`. An empty file is a valid (empty) config.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Config {
    /// `run:` how executions are scheduled and repeated.
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub run: RunConfig,
    /// `defaults:` per-case defaults.
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub defaults: DefaultsConfig,
    /// `runners:` the configured agent targets, in file order.
    #[serde(default, deserialize_with = "deserialize_runners")]
    pub runners: Vec<(String, RunnerConfig)>,
    /// `suites:` declarative suites: `EVAL.yaml` / `*.eval.yaml` files, or directories holding
    /// one (absolute after [`Config::parse`]).
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub suites: Vec<Located<PathBuf>>,
    /// `judge:` the runner that grades rubric items (plain-string assertions, `criteria`).
    #[serde(default)]
    pub judge: Option<JudgeConfig>,
    /// `snapshots:` token snapshots, on when the section is there.
    #[serde(default, deserialize_with = "super::snapshots::deserialize")]
    pub snapshots: Option<SnapshotsConfig>,
    /// `variants:` the ways of setting up each case that an experiment compares, in file order.
    #[serde(default, deserialize_with = "super::variants::deserialize")]
    pub variants: Vec<Variant>,
    /// `pricing:` prices per model id that replace or extend the built-in ones
    /// ([`crate::pricing`]), for costs estimated from token counts.
    #[serde(default, deserialize_with = "super::pricing::deserialize")]
    pub pricing: BTreeMap<String, crate::pricing::ModelPrice>,
    /// `triggers:` how the skills' trigger suites run.
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub triggers: super::TriggersConfig,
    /// The file this config was read from (`None` for [`Config::default_for`]).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// The directory relative paths are resolved against: the config file's directory.
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Config {
    /// The config used when there is no file: everything default, paths relative to `dir`.
    pub fn default_for(dir: &Path) -> Config {
        Config {
            dir: dir.to_path_buf(),
            ..Config::default()
        }
    }

    /// Parses `text` as the config file at `path` and resolves its relative paths against the
    /// file's directory. `path` should be absolute (it is shown in errors).
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        // `Option`: a document that is only `---` (null) is an empty config too.
        let mut config = yaml::parse::<Option<Config>>(path, text)?.unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        config.resolve_paths(&dir);
        config.path = Some(path.to_path_buf());
        config.dir = dir;
        Ok(config)
    }

    /// The configured runner ids, in file order.
    pub fn runner_ids(&self) -> impl Iterator<Item = &str> {
        self.runners.iter().map(|(id, _)| id.as_str())
    }

    fn resolve_paths(&mut self, dir: &Path) {
        let run = &mut self.run;
        for path in [&mut run.output_dir, &mut run.cwd, &mut run.workspace_root]
            .into_iter()
            .flatten()
        {
            *path = resolve_path(dir, path);
        }
        if let Some(workspace) = &mut run.workspace {
            for path in [&mut workspace.template_dir, &mut workspace.cwd]
                .into_iter()
                .flatten()
            {
                *path = resolve_path(dir, path);
            }
            if let Some(bootstrap) = &mut workspace.bootstrap {
                bootstrap.command = resolve_command(dir, &bootstrap.command);
            }
        }
        let judge_agent = self.judge.as_mut().and_then(|judge| judge.agent.as_mut());
        for agent in self
            .runners
            .iter_mut()
            .map(|(_, runner)| &mut runner.agent)
            .chain(judge_agent)
        {
            if let Some(command) = &mut agent.command {
                *command = resolve_command(dir, command);
            }
            if let Some(recording) = &mut agent.recording {
                *recording = resolve_path(dir, recording);
            }
        }
        for suite in &mut self.suites {
            suite.value = resolve_path(dir, &suite.value);
        }
        let runner_sandboxes = self
            .runners
            .iter_mut()
            .filter_map(|(_, r)| r.sandbox.as_mut());
        for sandbox in std::iter::once(&mut self.run.sandbox).chain(runner_sandboxes) {
            sandbox.resolve_paths(dir);
        }
        if let Some(snapshots) = &mut self.snapshots {
            snapshots.path = resolve_path(dir, &snapshots.path);
        }
        if let Some(mock) = self.judge.as_mut().and_then(|judge| judge.mock.as_mut()) {
            *mock = resolve_path(dir, mock);
        }
        for variant in &mut self.variants {
            for source in variant.files.values_mut() {
                *source = resolve_path(dir, source);
            }
            if let VariantSkills::Dirs(dirs) = &mut variant.skills {
                for skill in dirs {
                    *skill = resolve_path(dir, skill);
                }
            }
        }
        let runner_skills = self.runners.iter_mut().map(|(_, r)| &mut r.skills);
        let triggers = [&mut self.triggers.files, &mut self.triggers.distractors];
        for skills in std::iter::once(&mut self.run.skills)
            .chain(runner_skills)
            .chain(triggers)
        {
            for skill in skills {
                skill.value = resolve_path(dir, &skill.value);
            }
        }
    }
}

/// `base.join(path)` with `.` components removed; absolute paths are kept as they are.
pub(crate) fn resolve_path(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let joined = base.join(path);
    let mut clean: PathBuf = joined
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    if clean.as_os_str().is_empty() {
        clean.push(".");
    }
    clean
}

/// Whether a command or reporter names a path relative to the config dir (`.`, `..`, or any
/// relative path with a separator: `./x`, `../x`, `bin/x`) rather than a program found on
/// `PATH` or a built-in name.
pub(crate) fn is_path_like(value: &str) -> bool {
    value == "."
        || value == ".."
        || (!Path::new(value).is_absolute() && (value.contains('/') || value.contains('\\')))
}

fn resolve_command(dir: &Path, command: &str) -> String {
    if is_path_like(command) {
        resolve_path(dir, Path::new(command)).display().to_string()
    } else {
        command.to_owned()
    }
}

/// How executions are scheduled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Schedule {
    /// One execution at a time.
    Serial,
    /// Up to `max_parallel` executions at once.
    #[default]
    Parallel,
    /// Runners in parallel, each runner's executions one at a time.
    IsolatedByRunner,
}

impl Schedule {
    /// Every schedule, in the order shown to users.
    pub const ALL: [Schedule; 3] = [
        Schedule::Serial,
        Schedule::Parallel,
        Schedule::IsolatedByRunner,
    ];

    /// The name used in flags and YAML: `serial`, `parallel`, `isolated-by-runner`.
    pub fn as_str(self) -> &'static str {
        match self {
            Schedule::Serial => "serial",
            Schedule::Parallel => "parallel",
            Schedule::IsolatedByRunner => "isolated-by-runner",
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Schedule {
    /// One line: what was expected, what was found and a suggestion when one is close.
    type Err = String;

    fn from_str(value: &str) -> Result<Schedule, String> {
        if let Some(schedule) = Schedule::ALL
            .into_iter()
            .find(|s| s.as_str() == value.trim())
        {
            return Ok(schedule);
        }
        let mut message =
            format!("expected one of serial, parallel, isolated-by-runner, found `{value}`");
        if let Some(s) = did_you_mean(value, Schedule::ALL.map(Schedule::as_str)) {
            message.push_str(&format!("; did you mean `{s}`?"));
        }
        Err(message)
    }
}

/// `run:` scheduling, repetition and where things go. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(try_from = "RawRun")]
#[non_exhaustive]
pub struct RunConfig {
    /// `schedule`.
    pub schedule: Option<Schedule>,
    /// `max_parallel` (>= 1).
    pub max_parallel: Option<usize>,
    /// `repeat` (>= 1).
    pub repeat: Option<u32>,
    /// `repeat_failure` (>= 0), or else its legacy alias `retry_failed`.
    pub repeat_failure: Option<u32>,
    /// `samples` (>= 1): independent sessions per execution, none retried.
    pub samples: Option<u32>,
    /// `min_pass_rate` (0 to 1): the gate on every execution's pass rate.
    pub min_pass_rate: Option<f64>,
    /// `min_lift` (-1 to 1): the gate on every variant's lift over its baseline.
    pub min_lift: Option<f64>,
    /// `max_steps` (>= 1).
    pub max_steps: Option<u32>,
    /// `tags`: the default tag filter when no `--tag` is given.
    pub tags: Option<Vec<String>>,
    /// `output_dir` (absolute after [`Config::parse`]).
    pub output_dir: Option<PathBuf>,
    /// `reporters` (or the single `reporter`): reporter names.
    pub reporters: Vec<String>,
    /// `cwd`: the agents' working directory with workspace mode `none`.
    pub cwd: Option<PathBuf>,
    /// `workspace`.
    pub workspace: Option<WorkspaceConfig>,
    /// `workspace_root`: where the run's workspaces go (absolute after [`Config::parse`]);
    /// default: the temporary directory.
    pub workspace_root: Option<PathBuf>,
    /// `skills`: skill directories installed for every runner's agent in every attempt
    /// (absolute after [`Config::parse`]), with their position in the file.
    pub skills: Vec<Located<PathBuf>>,
    /// `user_skills`: whether agents see the user's own skills (default: `isolated`).
    pub user_skills: UserSkills,
    /// `max_output`: the most stdout an agent may print in one session, in bytes.
    pub max_output: Option<u64>,
    /// `secrets`: names of environment variables whose values are masked in everything
    /// skillgym writes, besides those whose names look secret.
    pub secrets: Vec<String>,
    /// `sandbox`: how every runner's agent is confined (a runner's own `sandbox` replaces it).
    pub sandbox: SandboxConfig,
    /// `budget`: what the run may spend before it starts no more sessions.
    pub budget: Option<BudgetConfig>,
}

/// Whether agents see the skills installed in the user's own home (`run.user_skills`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum UserSkills {
    /// No: every agent gets a private home and configuration, so only the skills under test
    /// and the workspace's own are found.
    #[default]
    Isolated,
    /// Yes: the agents find the user's skills (`~/.claude/skills`, `~/.agents/skills`, …).
    Inherit,
}

macro_rules! int_field {
    ($name:ident, $key:literal, $min:literal, $ty:ty) => {
        fn $name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<$ty>, D::Error> {
            fields::opt_int(deserializer, $key, $min)
        }
    };
}

int_field!(de_max_parallel, "max_parallel", 1, usize);
int_field!(de_repeat, "repeat", 1, u32);
int_field!(de_repeat_failure, "repeat_failure", 0, u32);
int_field!(de_samples, "samples", 1, u32);
int_field!(de_retry_failed, "retry_failed", 0, u32);
int_field!(de_max_steps, "max_steps", 1, u32);

fn de_min_pass_rate<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    fields::opt_fraction(deserializer, "min_pass_rate")
}

fn de_min_lift<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    fields::opt_difference(deserializer, "min_lift")
}

fn de_reporter<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    fields::opt_non_empty(deserializer, "reporter")
}

fn de_model<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    fields::opt_non_empty(deserializer, "model")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    #[serde(default)]
    schedule: Option<Schedule>,
    #[serde(default, alias = "maxParallel", deserialize_with = "de_max_parallel")]
    max_parallel: Option<usize>,
    #[serde(default, deserialize_with = "de_repeat")]
    repeat: Option<u32>,
    #[serde(
        default,
        alias = "repeatFailure",
        deserialize_with = "de_repeat_failure"
    )]
    repeat_failure: Option<u32>,
    #[serde(default, alias = "retryFailed", deserialize_with = "de_retry_failed")]
    retry_failed: Option<u32>,
    #[serde(default, deserialize_with = "de_samples")]
    samples: Option<u32>,
    #[serde(default, alias = "minPassRate", deserialize_with = "de_min_pass_rate")]
    min_pass_rate: Option<f64>,
    #[serde(default, alias = "minLift", deserialize_with = "de_min_lift")]
    min_lift: Option<f64>,
    #[serde(default, alias = "maxSteps", deserialize_with = "de_max_steps")]
    max_steps: Option<u32>,
    #[serde(default)]
    tags: Option<Vec<NonEmpty>>,
    #[serde(default, alias = "outputDir")]
    output_dir: Option<PathBuf>,
    #[serde(default, deserialize_with = "de_reporter")]
    reporter: Option<String>,
    #[serde(default)]
    reporters: Option<Vec<NonEmpty>>,
    #[serde(default)]
    cwd: Option<Located<PathBuf>>,
    #[serde(default)]
    workspace: Option<WorkspaceConfig>,
    #[serde(default, alias = "workspaceRoot")]
    workspace_root: Option<Located<String>>,
    #[serde(default, deserialize_with = "fields::null_as_default")]
    skills: Vec<Located<PathBuf>>,
    #[serde(default)]
    user_skills: UserSkills,
    #[serde(
        default,
        alias = "maxOutput",
        deserialize_with = "super::size::deserialize_option"
    )]
    max_output: Option<u64>,
    #[serde(default, deserialize_with = "fields::null_as_default")]
    secrets: Vec<NonEmpty>,
    #[serde(default)]
    sandbox: Option<SandboxConfig>,
    #[serde(default, deserialize_with = "super::budget::deserialize")]
    budget: Option<BudgetConfig>,
}

impl TryFrom<RawRun> for RunConfig {
    type Error = String;

    fn try_from(raw: RawRun) -> Result<RunConfig, String> {
        if let (Some(cwd), None) = (&raw.cwd, &raw.workspace) {
            return Err(cwd.error(yaml::with_help(
                "`cwd` runs the agent in that directory itself, which needs workspace mode `none`",
                "add `workspace: { mode: none }`; by default each attempt runs in a fresh, empty directory",
            )));
        }
        if let (Some(cwd), Some(workspace)) = (&raw.cwd, &raw.workspace) {
            if workspace.mode != WorkspaceMode::None {
                return Err(cwd.error(yaml::with_help(
                    format!(
                        "`cwd` only applies with workspace mode `none`, but `workspace.mode` is `{}`",
                        workspace.mode
                    ),
                    "the agent runs in the prepared workspace; remove `cwd`",
                )));
            }
            if workspace.cwd.is_some() {
                return Err(cwd.error(yaml::with_help(
                    "`cwd` is also set in `workspace.cwd`",
                    "keep only one of them",
                )));
            }
        }
        if raw.samples.is_some()
            && (raw.repeat.is_some() || raw.repeat_failure.is_some() || raw.retry_failed.is_some())
        {
            return Err(
                "`samples` conflicts with `repeat`/`repeat_failure`: a run either samples each \
                 case (independent sessions, none retried, none stopping the others) or repeats \
                 it until `repeat` sessions passed; keep one of them"
                    .to_owned(),
            );
        }
        let workspace_root = raw.workspace_root.map(workspace_root).transpose()?;
        let mut tags: Option<Vec<String>> = None;
        if let Some(raw_tags) = raw.tags {
            let mut unique = Vec::with_capacity(raw_tags.len());
            for NonEmpty(tag) in raw_tags {
                if !unique.contains(&tag) {
                    unique.push(tag);
                }
            }
            tags = Some(unique);
        }
        Ok(RunConfig {
            schedule: raw.schedule,
            max_parallel: raw.max_parallel,
            repeat: raw.repeat,
            // The legacy alias stops here: `repeat_failure` wins when both are set.
            repeat_failure: raw.repeat_failure.or(raw.retry_failed),
            samples: raw.samples,
            min_pass_rate: raw.min_pass_rate,
            min_lift: raw.min_lift,
            max_steps: raw.max_steps,
            tags,
            output_dir: raw.output_dir,
            reporters: match (raw.reporters, raw.reporter) {
                (Some(list), _) => list.into_iter().map(|name| name.0).collect(),
                (None, Some(one)) => vec![one],
                (None, None) => Vec::new(),
            },
            cwd: raw.cwd.map(|cwd| cwd.value),
            workspace: raw.workspace,
            workspace_root,
            skills: raw.skills,
            user_skills: raw.user_skills,
            max_output: raw.max_output,
            secrets: raw.secrets.into_iter().map(|NonEmpty(name)| name).collect(),
            sandbox: raw.sandbox.unwrap_or_default(),
            budget: raw.budget,
        })
    }
}

/// `run.workspace_root`: a directory path, relative ones against the config file's directory
/// (as every path of the file); blank, or starting with `~` (which is not expanded), is an
/// error.
fn workspace_root(raw: Located<String>) -> Result<PathBuf, String> {
    let value = raw.value.trim();
    if value.is_empty() {
        return Err(raw.error(yaml::with_help(
            "`workspace_root` must not be empty",
            "remove it to keep workspaces in the temporary directory, or name a directory",
        )));
    }
    if value.starts_with('~') {
        return Err(raw.error(yaml::with_help(
            format!("`workspace_root` starts with `~`, which skillgym does not expand: `{value}`"),
            "write the home directory out (an absolute path), or a path relative to this file",
        )));
    }
    Ok(PathBuf::from(value))
}

/// Where a case's agent runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum WorkspaceMode {
    /// In `cwd` (or the config dir), as is: only when asked for.
    None,
    /// In one copy of `template_dir` shared by the whole run.
    Shared,
    /// In a fresh copy of `template_dir` (an empty directory without one) per attempt: the
    /// default, so that an agent never runs in the author's own tree unless told to.
    #[default]
    Isolated,
}

impl WorkspaceMode {
    /// The name used in YAML: `none`, `shared`, `isolated`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkspaceMode::None => "none",
            WorkspaceMode::Shared => "shared",
            WorkspaceMode::Isolated => "isolated",
        }
    }
}

impl fmt::Display for WorkspaceMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `run.workspace:` mode `none` allows only `cwd`; `shared`/`isolated` allow `template_dir` and
/// `bootstrap` and forbid `cwd`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawWorkspace")]
#[non_exhaustive]
pub struct WorkspaceConfig {
    /// `mode` (required in the file; `none` by default when there is no `workspace`).
    pub mode: WorkspaceMode,
    /// `template_dir` (absolute after [`Config::parse`]).
    pub template_dir: Option<PathBuf>,
    /// `cwd` (mode `none` only; absolute after [`Config::parse`]).
    pub cwd: Option<PathBuf>,
    /// `bootstrap`: a command run in the workspace before the agent.
    pub bootstrap: Option<BootstrapConfig>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkspace {
    mode: WorkspaceMode,
    #[serde(default, alias = "templateDir")]
    template_dir: Option<Located<PathBuf>>,
    #[serde(default)]
    cwd: Option<Located<PathBuf>>,
    #[serde(default)]
    bootstrap: Option<Located<BootstrapConfig>>,
}

impl TryFrom<RawWorkspace> for WorkspaceConfig {
    type Error = String;

    fn try_from(raw: RawWorkspace) -> Result<WorkspaceConfig, String> {
        match raw.mode {
            WorkspaceMode::None => {
                if let Some(template_dir) = &raw.template_dir {
                    return Err(template_dir.error(yaml::with_help(
                        "`template_dir` needs workspace mode `shared` or `isolated`, but `mode` is `none`",
                        "set `mode: isolated` (a fresh copy per attempt) or `mode: shared`",
                    )));
                }
                if let Some(bootstrap) = &raw.bootstrap {
                    return Err(bootstrap.error(yaml::with_help(
                        "`bootstrap` needs workspace mode `shared` or `isolated`, but `mode` is `none`",
                        "set `mode: isolated` (a fresh copy per attempt) or `mode: shared`",
                    )));
                }
            }
            mode => {
                if let Some(cwd) = &raw.cwd {
                    return Err(cwd.error(yaml::with_help(
                        format!("`cwd` is only allowed with workspace mode `none`, but `mode` is `{mode}`"),
                        "the agent runs in the prepared workspace; remove `cwd` (or use `template_dir`)",
                    )));
                }
            }
        }
        Ok(WorkspaceConfig {
            mode: raw.mode,
            template_dir: raw.template_dir.map(|t| t.value),
            cwd: raw.cwd.map(|c| c.value),
            bootstrap: raw.bootstrap.map(|b| b.value),
        })
    }
}

/// `run.workspace.bootstrap:` a command prepared workspaces run once before the agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawBootstrap")]
#[non_exhaustive]
pub struct BootstrapConfig {
    /// `command`: a program on `PATH`, or a path (path-like values are resolved against the
    /// config dir by [`Config::parse`]).
    pub command: String,
    /// `args`.
    pub args: Vec<String>,
    /// `timeout` (a duration string) or `timeout_ms`.
    pub timeout: Option<Duration>,
    /// `env`: extra environment variables.
    pub env: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBootstrap {
    command: Located<String>,
    #[serde(default, deserialize_with = "fields::null_as_default")]
    args: Vec<String>,
    #[serde(default)]
    timeout: Option<Located<PositiveDuration>>,
    #[serde(default, alias = "timeoutMs")]
    timeout_ms: Option<Located<Millis>>,
    #[serde(default, deserialize_with = "fields::null_as_default")]
    env: BTreeMap<String, String>,
}

impl TryFrom<RawBootstrap> for BootstrapConfig {
    type Error = String;

    fn try_from(raw: RawBootstrap) -> Result<BootstrapConfig, String> {
        if raw.command.value.trim().is_empty() {
            return Err(raw.command.error("`command` must not be empty"));
        }
        Ok(BootstrapConfig {
            command: raw.command.value,
            args: raw.args,
            timeout: pick_timeout(raw.timeout, raw.timeout_ms)?,
            env: raw.env,
        })
    }
}

/// `timeout` or `timeout_ms`, not both.
fn pick_timeout(
    timeout: Option<Located<PositiveDuration>>,
    timeout_ms: Option<Located<Millis>>,
) -> Result<Option<Duration>, String> {
    match (timeout, timeout_ms) {
        (Some(_), Some(ms)) => Err(ms.error(yaml::with_help(
            "`timeout_ms` is given together with `timeout`",
            "keep only one: `timeout: 2m` or `timeout_ms: 120000`",
        ))),
        (Some(timeout), None) => Ok(Some(timeout.value.0)),
        (None, Some(ms)) => Ok(Some(Duration::from_millis(ms.value.0))),
        (None, None) => Ok(None),
    }
}

/// `defaults:` values for cases that do not set their own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawDefaults")]
#[non_exhaustive]
pub struct DefaultsConfig {
    /// `timeout` (a duration string such as `2m`) or `timeout_ms` (milliseconds), > 0.
    pub timeout: Option<Duration>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    #[serde(default)]
    timeout: Option<Located<PositiveDuration>>,
    #[serde(default, alias = "timeoutMs")]
    timeout_ms: Option<Located<Millis>>,
}

impl TryFrom<RawDefaults> for DefaultsConfig {
    type Error = String;

    fn try_from(raw: RawDefaults) -> Result<DefaultsConfig, String> {
        Ok(DefaultsConfig {
            timeout: pick_timeout(raw.timeout, raw.timeout_ms)?,
        })
    }
}

/// `judge:`: who grades the rubric items of declarative cases: a configured runner, or an
/// agent of its own (which then runs no case).
///
/// ```yaml
/// judge:
///   runner: claude               # one of `runners:` (not limited by --runner); or:
///   # agent: { type: claude-code, model: claude-haiku-4-5 }
///   mock: judge.mock.yaml        # the scripted model's answer for the judge under --mock
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct JudgeConfig {
    /// `runner`: the id of a configured runner.
    #[serde(default)]
    pub runner: Option<Located<String>>,
    /// `agent`: the judge's own agent, as a runner's `agent:`.
    #[serde(default)]
    pub agent: Option<AgentConfig>,
    /// `mock`: the script the scripted model plays for judge sessions under `--mock`
    /// (absolute after [`Config::parse`]).
    #[serde(default)]
    pub mock: Option<PathBuf>,
}

/// One entry of `runners:`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RunnerConfig {
    /// `agent`: which agent CLI, with which model and options.
    pub agent: AgentConfig,
    /// `skills`: skill directories installed for this runner's agent in every attempt, after
    /// `run.skills` (absolute after [`Config::parse`]).
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub skills: Vec<Located<PathBuf>>,
    /// `sandbox`: how this runner's agent is confined, replacing `run.sandbox` as a whole.
    #[serde(default)]
    pub sandbox: Option<SandboxConfig>,
    /// `min_pass_rate`: the gate on this runner's executions' pass rate (a case's own beats
    /// it; it beats `run.min_pass_rate`).
    #[serde(default, deserialize_with = "de_min_pass_rate")]
    pub min_pass_rate: Option<f64>,
    /// `min_lift`: the gate on the lift of this runner's variants over their baseline (a
    /// case's own beats it; it beats `run.min_lift`).
    #[serde(default, deserialize_with = "de_min_lift")]
    pub min_lift: Option<f64>,
}

/// The model APIs a provider endpoint speaks (`agent.provider.wire_api`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum WireApi {
    /// Anthropic Messages (`POST {base_url}/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`POST {base_url}/responses`).
    OpenaiResponses,
    /// OpenAI Chat Completions (`POST {base_url}/chat/completions`).
    OpenaiChat,
    /// Gemini (`POST {base_url}/v1beta/models/M:streamGenerateContent`).
    Gemini,
}

impl WireApi {
    /// Every wire API, in the order the docs list them.
    pub const ALL: [WireApi; 4] = [
        WireApi::Anthropic,
        WireApi::OpenaiResponses,
        WireApi::OpenaiChat,
        WireApi::Gemini,
    ];

    /// The name used in YAML, e.g. `openai-chat`.
    pub fn as_str(self) -> &'static str {
        match self {
            WireApi::Anthropic => "anthropic",
            WireApi::OpenaiResponses => "openai-responses",
            WireApi::OpenaiChat => "openai-chat",
            WireApi::Gemini => "gemini",
        }
    }
}

impl fmt::Display for WireApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The agent CLIs skillgym can drive.
///
/// What differs per agent CLI (its name, wire APIs, an example model, …) is its adapter's spec
/// (`agent/spec.rs`), which also answers [`AgentKind::as_str`], [`AgentKind::wire_apis`] and
/// [`AgentKind::example_model`]; adding an agent adds its variant here and its spec there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum AgentKind {
    /// Claude Code (`claude`).
    ClaudeCode,
    /// OpenAI Codex CLI (`codex`).
    Codex,
    /// OpenCode (`opencode`).
    Opencode,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
    /// Cursor Agent (`cursor-agent`); `cursor` is accepted.
    #[serde(alias = "cursor")]
    CursorAgent,
    /// Gemini CLI (`gemini`); `gemini` is accepted.
    #[serde(alias = "gemini")]
    GeminiCli,
    /// Qwen Code (`qwen`); `qwen` is accepted.
    #[serde(alias = "qwen")]
    QwenCode,
    /// Any program, given by `command`.
    Command,
    /// No program: the sessions of a recorded run (`recording`), re-normalized by the
    /// adapter of the agent that was recorded.
    Replay,
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `runners.<id>.agent:`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawAgent")]
#[non_exhaustive]
pub struct AgentConfig {
    /// `type`.
    pub kind: AgentKind,
    /// `model`: required for every type but `command` and `replay`.
    pub model: Option<String>,
    /// `command`: overrides the agent's program; required for type `command`. Path-like values
    /// are resolved against the config dir by [`Config::parse`]; bare names are looked up on `PATH`.
    pub command: Option<String>,
    /// `args` (alias `commandArgs`): extra arguments.
    pub args: Vec<String>,
    /// `resume_args` (type `command` only): the arguments that ask a finished session one more
    /// question for `skillgym explain`, with `{session_id}` (and `{prompt}`, else the question
    /// last) substituted; `None`: the program cannot resume.
    pub resume_args: Option<Vec<String>>,
    /// `version_args` (type `command` only): the arguments that make `command` print its
    /// version, asked once per run; `None`: the version is unknown.
    pub version_args: Option<Vec<String>>,
    /// `env`: extra environment variables.
    pub env: BTreeMap<String, String>,
    /// `provider`: the model endpoint the agent talks to instead of its default one.
    pub provider: Option<ProviderConfig>,
    /// `recording` (type `replay`): the recorded run whose sessions the runner replays
    /// (absolute after [`Config::parse`]).
    pub recording: Option<PathBuf>,
    /// `runner` (type `replay`): the recorded runner to replay; `None`: the runner's own id.
    pub replay_runner: Option<String>,
}

/// `agent.provider`: a model endpoint (a gateway, a local model server, the scripted server),
/// which each adapter maps onto the mechanism its CLI honours.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// `base_url`: the API root in the wire API's own convention: with `/v1` for the OpenAI
    /// wires (`https://openrouter.ai/api/v1`), without for Anthropic and Gemini
    /// (`https://api.anthropic.com`). No trailing `/`.
    pub base_url: String,
    /// `api_key_env`: the name of the environment variable (of the harness, or `agent.env`)
    /// holding the API key; `None` for endpoints without keys.
    pub api_key_env: Option<String>,
    /// `wire_api`: the API the endpoint speaks (the agent's default when not given).
    pub wire_api: WireApi,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    base_url: Located<String>,
    #[serde(default)]
    api_key_env: Option<Located<String>>,
    #[serde(default)]
    wire_api: Option<Located<WireApi>>,
}

impl RawProvider {
    /// Validates the entry for an agent of `kind` (found at `at`).
    fn validate(self, kind: AgentKind, at: &Located<()>) -> Result<ProviderConfig, String> {
        let supported = kind.wire_apis();
        if supported.is_empty() {
            return Err(at.error(yaml::with_help(
                format!("agent type `{kind}` cannot be pointed at another model endpoint: its CLI has no setting for one"),
                "remove `provider`, or use another agent type",
            )));
        }
        let url = self.base_url.value.trim().trim_end_matches('/');
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        let host = rest.map(|rest| rest.split('/').next().unwrap_or_default());
        if host.is_none_or(|host| host.is_empty() || host.contains(char::is_whitespace))
            || url.contains(['?', '#', ' '])
        {
            return Err(self.base_url.error(yaml::with_help(
                format!("`base_url` must be an http:// or https:// URL, found `{}`", self.base_url.value),
                "e.g. `base_url: http://127.0.0.1:4000/v1` (OpenAI wires end in `/v1`; Anthropic and Gemini roots do not)",
            )));
        }
        if let Some(name) = &self.api_key_env {
            let valid = name
                .value
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name
                    .value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(name.error(yaml::with_help(
                    format!(
                        "`api_key_env` must name an environment variable, found `{}`",
                        name.value
                    ),
                    "give the variable's name (e.g. `OPENROUTER_API_KEY`), never the key itself",
                )));
            }
        }
        let wire_api = match self.wire_api {
            None => supported[0],
            Some(wire) if supported.contains(&wire.value) => wire.value,
            Some(wire) => {
                let names: Vec<String> = supported.iter().map(|w| format!("`{w}`")).collect();
                return Err(wire.error(format!(
                    "agent type `{kind}` cannot speak `{}`; it speaks {}",
                    wire.value,
                    names.join(", ")
                )));
            }
        };
        Ok(ProviderConfig {
            base_url: url.to_owned(),
            api_key_env: self.api_key_env.map(|name| name.value),
            wire_api,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    #[serde(rename = "type")]
    kind: Located<AgentKind>,
    #[serde(default, deserialize_with = "de_model")]
    model: Option<String>,
    #[serde(default)]
    command: Option<Located<String>>,
    #[serde(
        default,
        alias = "commandArgs",
        deserialize_with = "fields::null_as_default"
    )]
    args: Vec<String>,
    #[serde(default)]
    resume_args: Option<Located<Vec<String>>>,
    #[serde(default)]
    version_args: Option<Located<Vec<String>>>,
    #[serde(default, deserialize_with = "fields::null_as_default")]
    env: BTreeMap<String, String>,
    #[serde(default)]
    provider: Option<Located<RawProvider>>,
    #[serde(default)]
    recording: Option<Located<PathBuf>>,
    #[serde(default)]
    runner: Option<Located<String>>,
}

impl RawAgent {
    /// A `type: replay` agent has a `recording` and nothing that would start a program; any
    /// other type has neither `recording` nor `runner`.
    fn check_replay(&self) -> Result<(), String> {
        if self.kind.value != AgentKind::Replay {
            let stray = [
                (
                    "recording",
                    self.recording.as_ref().map(|at| (at.line, at.column)),
                ),
                (
                    "runner",
                    self.runner.as_ref().map(|at| (at.line, at.column)),
                ),
            ];
            return match stray.into_iter().find_map(|(key, at)| Some((key, at?))) {
                Some((key, (line, column))) => Err(yaml::locate(
                    line,
                    column,
                    yaml::with_help(
                        format!("`{key}` only goes with `type: replay`"),
                        "remove it, or set `type: replay` to replay a recorded run",
                    ),
                )),
                None => Ok(()),
            };
        }
        if self.recording.is_none() {
            return Err(self.kind.error(yaml::with_help(
                "agent type `replay` needs a `recording`",
                "add `recording: <dir>`: a run directory (target/skillgym/runs/<run-id>) or one made by `cargo skillgym record`",
            )));
        }
        let given = [
            ("model", self.model.is_some()),
            ("command", self.command.is_some()),
            ("args", !self.args.is_empty()),
            ("resume_args", self.resume_args.is_some()),
            ("version_args", self.version_args.is_some()),
            ("env", !self.env.is_empty()),
            ("provider", self.provider.is_some()),
        ];
        match given.into_iter().find(|(_, given)| *given) {
            Some((key, _)) => Err(self.kind.error(yaml::with_help(
                format!("`{key}` does nothing for agent type `replay`: no program starts, and the recording says which agent and model ran"),
                &format!("remove `{key}`"),
            ))),
            None => Ok(()),
        }
    }
}

impl TryFrom<RawAgent> for AgentConfig {
    type Error = String;

    fn try_from(raw: RawAgent) -> Result<AgentConfig, String> {
        raw.check_replay()?;
        if let Some(command) = &raw.command
            && command.value.trim().is_empty()
        {
            return Err(command.error("`command` must not be empty"));
        }
        if !matches!(raw.kind.value, AgentKind::Command | AgentKind::Replay) && raw.model.is_none()
        {
            return Err(raw.kind.error(yaml::with_help(
                format!("agent type `{}` needs a `model`", raw.kind.value),
                &format!(
                    "add `model: {}` (the name the agent's CLI takes)",
                    raw.kind.value.example_model()
                ),
            )));
        }
        if raw.kind.value == AgentKind::Command && raw.command.is_none() {
            return Err(raw.kind.error(yaml::with_help(
                "agent type `command` needs a `command`",
                "add `command: ./path/to/agent` (with `args:`, where `{prompt}` is replaced by the prompt)",
            )));
        }
        if let Some(resume) = &raw.resume_args
            && raw.kind.value != AgentKind::Command
        {
            return Err(resume.error(yaml::with_help(
                format!(
                    "`resume_args` is for agent type `command`; `{}` resumes with its own CLI's flags",
                    raw.kind.value
                ),
                "remove `resume_args`",
            )));
        }
        if let Some(version) = &raw.version_args {
            if raw.kind.value != AgentKind::Command {
                return Err(version.error(yaml::with_help(
                    format!(
                        "`version_args` is for agent type `command`; skillgym asks `{}` for its version itself",
                        raw.kind.value
                    ),
                    "remove `version_args`",
                )));
            }
            if version.value.is_empty() {
                return Err(version.error(yaml::with_help(
                    "`version_args` must not be empty: without arguments the program would start a session",
                    "give the arguments that make it print its version, e.g. `version_args: [--version]`, or remove the key",
                )));
            }
        }
        let provider = match raw.provider {
            Some(provider) => {
                let at = Located {
                    value: (),
                    line: provider.line,
                    column: provider.column,
                };
                Some(provider.value.validate(raw.kind.value, &at)?)
            }
            None => None,
        };
        Ok(AgentConfig {
            kind: raw.kind.value,
            model: raw.model,
            command: raw.command.map(|c| c.value),
            args: raw.args,
            resume_args: raw.resume_args.map(|args| args.value),
            version_args: raw.version_args.map(|args| args.value),
            env: raw.env,
            provider,
            recording: raw.recording.map(|recording| recording.value),
            replay_runner: raw.runner.map(|runner| runner.value),
        })
    }
}

/// `runners:` as an ordered list of (id, runner), rejecting duplicate ids.
fn deserialize_runners<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(String, RunnerConfig)>, D::Error> {
    struct Runners;

    impl<'de> Visitor<'de> for Runners {
        type Value = Vec<(String, RunnerConfig)>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping from runner id to runner")
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut runners: Vec<(String, RunnerConfig)> = Vec::new();
            while let Some(located) = map.next_key::<Located<String>>()? {
                let id = located.value.clone();
                if let Some(c) = crate::trial_name::bad_char(&id) {
                    let problem = crate::trial_name::problem("runner id", &id, c);
                    let help = format!(
                        "write it without, e.g. `{}`",
                        crate::trial_name::suggestion(&id)
                    );
                    return Err(de::Error::custom(
                        located.error(yaml::with_help(problem, &help)),
                    ));
                }
                if id.trim().is_empty() {
                    return Err(de::Error::custom("a runner id must not be empty"));
                }
                if runners.iter().any(|(seen, _)| *seen == id) {
                    return Err(de::Error::custom(format!("duplicate runner id `{id}`")));
                }
                let runner = map.next_value::<RunnerConfig>()?;
                runners.push((id, runner));
            }
            Ok(runners)
        }
    }

    deserializer.deserialize_option(Runners)
}
