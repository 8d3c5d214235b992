//! The settings of a run ([`Settings`], resolved by the harness from flags, `SKILLGYM_*`
//! variables, `skillgym.yaml` and defaults) and the ones each case runs with
//! ([`CaseSettings`], from [`Settings::effective`]).
//!
//! [`Settings::effective`] is the one place that applies this order to a case:
//!
//! | per-case setting | flag or variable | case argument | run setting | default |
//! |---|---|---|---|---|
//! | repeat (at least 1) | `--repeat`, `SKILLGYM_REPEAT` (beat the case) | `repeat` | `run.repeat` | 1 |
//! | repeat failure | `--repeat-failure`, `SKILLGYM_REPEAT_FAILURE` (beat the case) | `repeat_failure` | `run.repeat_failure` | 0 |
//! | timeout | — | `timeout` | `defaults.timeout` | 2m |
//! | max steps | — | `max_steps` | `run.max_steps` | none |
//!

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::UsageError;
use crate::config::yaml::Located;
use crate::config::{
    BudgetConfig, ConfigError, JudgeConfig, RunnerConfig, SandboxConfig, Schedule, SnapshotsConfig,
    UserSkills, Variant, WorkspaceConfig,
};
use crate::suite::CaseSpec;

/// Everything a run needs to know, resolved from flags, variables, the config file and defaults.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// The config file used, if any.
    pub config_path: Option<PathBuf>,
    /// The directory relative config paths were resolved against.
    pub config_dir: PathBuf,
    /// How executions are scheduled.
    pub schedule: Schedule,
    /// Executions at once (1 when `schedule` is serial).
    pub max_parallel: usize,
    /// Passing samples wanted per execution, when the case sets none (see [`Self::effective`]).
    pub repeat: u32,
    /// Extra attempts allowed per repetition after a failure, when the case sets none.
    pub repeat_failure: u32,
    /// `run.samples`: independent sessions per execution (see [`Self::effective`]).
    pub samples: Option<u32>,
    /// `run.min_pass_rate`: the gate on every execution's pass rate (see
    /// [`Self::min_pass_rate`]).
    pub min_pass_rate: Option<f64>,
    /// `run.min_lift`: the gate on every variant's lift over its baseline (see
    /// [`Self::min_lift`]).
    pub min_lift: Option<f64>,
    /// The per-case settings a flag or variable gave, which beat the case's own.
    pub overrides: CaseOverrides,
    /// Run only cases with one of these tags (empty: every case).
    pub tags: Vec<String>,
    /// Run only these runner ids (empty: every runner).
    pub runner_filter: Vec<String>,
    /// Whether `runner_filter` came from `SKILLGYM_RUNNER` (not `--runner`).
    pub runner_filter_from_env: bool,
    /// Root of the run directories (absolute).
    pub output_dir: PathBuf,
    /// Reporters besides the console summary (`standard` alone: none).
    pub reporters: Vec<String>,
    /// Best-effort cap on agent steps per session.
    pub max_steps: Option<u32>,
    /// Per-case timeout when the case sets none.
    pub default_timeout: Duration,
    /// The agents' working directory with workspace mode `none`.
    pub cwd: PathBuf,
    /// Workspace preparation.
    pub workspace: WorkspaceConfig,
    /// Where the run's workspaces go (absolute); `None`: the temporary directory.
    pub workspace_root: Option<PathBuf>,
    /// The configured runners, in file order.
    pub runners: Vec<(String, RunnerConfig)>,
    /// `run.skills`: skill directories installed for every runner (absolute, with their
    /// position in the config file).
    pub skills: Vec<Located<PathBuf>>,
    /// `run.user_skills`: whether agents see the user's own skills.
    pub user_skills: UserSkills,
    /// `run.max_output`: the most stdout an agent may print in one session (default 512 MiB).
    pub max_output: u64,
    /// `run.secrets`: variable names masked besides those that look secret.
    pub secrets: Vec<String>,
    /// `run.budget`: what the run may spend before it starts no more sessions.
    pub budget: Option<BudgetConfig>,
    /// `run.sandbox`: how agents are confined, unless their runner says otherwise (see
    /// [`Settings::sandbox_for`]).
    pub sandbox: SandboxConfig,
    /// `suites:` the declarative suites (absolute, with their position in the config file).
    pub suites: Vec<Located<PathBuf>>,
    /// `judge:` who grades rubric items.
    pub judge: Option<JudgeConfig>,
    /// `snapshots:` token snapshots (off without the section).
    pub snapshots: Option<SnapshotsConfig>,
    /// `--update-snapshots`: passing executions write their figures into the baseline.
    pub update_snapshots: bool,
    /// `variants:` the ways of setting up each case an experiment compares, in file order.
    pub variants: Vec<Arc<Variant>>,
    /// `--variant`: run only these variants (empty: every one).
    pub variant_filter: Vec<String>,
    /// Whether `variant_filter` came from `SKILLGYM_VARIANT` (errors name it).
    pub variant_filter_from_env: bool,
    /// The prices estimated costs use: the built-in ones with `pricing:` over them.
    pub pricing: crate::pricing::PriceTable,
    /// `triggers:` how the skills' trigger suites run.
    pub triggers: crate::config::TriggersConfig,
}

/// Per-case settings given by a flag or `SKILLGYM_*` variable; they beat the case's arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaseOverrides {
    /// `--repeat` / `SKILLGYM_REPEAT`.
    pub repeat: Option<u32>,
    /// `--repeat-failure` / `SKILLGYM_REPEAT_FAILURE`, or their alias `--retry-failed` /
    /// `SKILLGYM_RETRY_FAILED`.
    pub repeat_failure: Option<u32>,
    /// `--samples` / `SKILLGYM_SAMPLES`.
    pub samples: Option<u32>,
}

/// The settings one case runs with, from [`Settings::effective`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CaseSettings {
    /// Passing samples wanted per execution (at least 1).
    pub repeat: u32,
    /// Extra attempts allowed per repetition after a failure (0 when sampled).
    pub repeat_failure: u32,
    /// Independent sessions, none retried and none stopping the others, when the case is
    /// sampled (then `repeat` is the same number).
    pub samples: Option<u32>,
    /// How long one session may run.
    pub timeout: Duration,
    /// Best-effort cap on agent steps per session.
    pub max_steps: Option<u32>,
}

/// Why resolving the settings of a run failed: a bad flag/variable, or a config problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A flag or variable is wrong (e.g. an unknown `--runner`).
    #[error("{0}")]
    Usage(#[source] UsageError),
    /// The configuration is wrong.
    #[error("{0}")]
    Config(#[source] ConfigError),
}

impl From<UsageError> for SettingsError {
    fn from(err: UsageError) -> Self {
        SettingsError::Usage(err)
    }
}

impl From<ConfigError> for SettingsError {
    fn from(err: ConfigError) -> Self {
        SettingsError::Config(err)
    }
}

impl Settings {
    /// The settings `case` runs with: a flag or variable, else the case's argument, else the run
    /// setting, else the default.
    ///
    /// | setting | flag or variable | case | run setting | default |
    /// |---|---|---|---|---|
    /// | `repeat` (at least 1) | [`CaseOverrides::repeat`] | `repeat` | `run.repeat` | 1 |
    /// | `repeat_failure` | [`CaseOverrides::repeat_failure`] | `repeat_failure` | `run.repeat_failure` | 0 |
    /// | `timeout` | — | `timeout` | `defaults.timeout` | 2m |
    /// | `max_steps` | — | `max_steps` | `run.max_steps` | none |
    /// | `samples` | [`CaseOverrides::samples`] | `samples` | `run.samples` | none |
    ///
    /// `samples` set at any level makes the case sampled: that many independent sessions,
    /// `repeat` and `repeat_failure` set elsewhere do not apply to it (one level cannot set
    /// both: the attribute, `case.yaml`, `skillgym.yaml` and the flags refuse it).
    pub fn effective(&self, case: &CaseSpec) -> CaseSettings {
        let samples = self
            .overrides
            .samples
            .or(case.samples)
            .or(self.samples)
            .map(|n| n.max(1));
        if let Some(samples) = samples {
            return CaseSettings {
                repeat: samples,
                repeat_failure: 0,
                samples: Some(samples),
                timeout: case.timeout.unwrap_or(self.default_timeout),
                max_steps: case.max_steps.or(self.max_steps),
            };
        }
        CaseSettings {
            repeat: self
                .overrides
                .repeat
                .or(case.repeat)
                .unwrap_or(self.repeat)
                .max(1),
            repeat_failure: self
                .overrides
                .repeat_failure
                .or(case.repeat_failure)
                .unwrap_or(self.repeat_failure),
            samples: None,
            timeout: case.timeout.unwrap_or(self.default_timeout),
            max_steps: case.max_steps.or(self.max_steps),
        }
    }

    /// The gate on the lift of `case`'s variants over their baseline on runner `runner_id`:
    /// the case's `min_lift`, else the runner's, else `run.min_lift`.
    pub fn min_lift(&self, case: &CaseSpec, runner_id: &str) -> Option<f64> {
        case.min_lift
            .or_else(|| {
                self.runners
                    .iter()
                    .find(|(id, _)| id == runner_id)
                    .and_then(|(_, runner)| runner.min_lift)
            })
            .or(self.min_lift)
    }

    /// The gate on the pass rate of `case` on runner `runner_id`: the case's `min_pass_rate`,
    /// else the runner's, else `run.min_pass_rate`.
    pub fn min_pass_rate(&self, case: &CaseSpec, runner_id: &str) -> Option<f64> {
        case.min_pass_rate
            .or_else(|| {
                self.runners
                    .iter()
                    .find(|(id, _)| id == runner_id)
                    .and_then(|(_, runner)| runner.min_pass_rate)
            })
            .or(self.min_pass_rate)
    }

    /// How the agent of runner `runner_id` is confined: its own `sandbox`, else
    /// `run.sandbox` (also for runners added in code and for the judge's own `judge.agent`).
    pub fn sandbox_for(&self, runner_id: &str) -> &SandboxConfig {
        self.runners
            .iter()
            .find(|(id, _)| id == runner_id)
            .and_then(|(_, runner)| runner.sandbox.as_ref())
            .unwrap_or(&self.sandbox)
    }
}
