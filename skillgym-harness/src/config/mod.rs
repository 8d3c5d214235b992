//! `skillgym.yaml`: schema, discovery, and validation with located errors. (The harness
//! resolves a run's settings from flags, `SKILLGYM_*` variables and this file: [`crate::settings`].)
//!
//! ```yaml
//! run:
//!   schedule: parallel          # serial | parallel | isolated-by-runner
//!   max_parallel: 4
//!   repeat: 1
//!   repeat_failure: 0           # retry_failed is accepted as a legacy alias
//!   max_steps: 40
//!   tags: [smoke]
//!   output_dir: target/skillgym/runs
//!   workspace: { mode: isolated, template_dir: fixtures/app, bootstrap: { command: npm, args: [ci] } }
//!   workspace_root: /var/tmp/skillgym   # default: the temporary directory
//!   max_output: 512MiB          # per session; more stops the agent (origin output-limit)
//!   secrets: [MY_SERVICE_AUTH]  # masked too, besides *_KEY, *_TOKEN, *_SECRET, *PASSWORD*, *_CREDENTIALS
//!   sandbox: bubblewrap         # none | bubblewrap | { mode, network, read_only }; per runner too
//!   budget: { sessions: 200, cost_usd: 20 }   # start no session past either
//! defaults: { timeout: 2m }
//! suites: [evals/EVAL.yaml]     # declarative suites (agentv EVAL.yaml, case.yaml directories)
//! judge: { runner: claude }     # grades the suites' rubric items
//! snapshots: { metric: total_tokens, tolerance: { percent: 10 } }   # token baselines
//! variants: { without: { skills: none }, with: {} }   # an experiment: with vs without
//! pricing: { my-model: { input: 1, output: 4 } }   # USD per million tokens, for estimated costs
//! triggers: { distractors: [distractors/pdf-forms], min_recall: 0.8 }   # trigger suites
//! runners:
//!   claude: { agent: { type: claude-code, model: claude-sonnet-4-6 } }
//! ```

mod budget;
mod discover;
mod duration;
mod error;
mod fields;
mod pricing;
mod sandbox;
mod schema;
mod size;
mod snapshots;
mod triggers;
mod variants;
pub(crate) mod yaml;

#[cfg(test)]
mod tests;

pub use budget::BudgetConfig;
pub use discover::{FILE_NAMES, discover, discover_checked, load, load_for_run};
pub use duration::{DurationError, DurationErrorKind, parse_duration};
pub use error::ConfigError;
pub(crate) use fields::opt_fraction;
pub use sandbox::SandboxConfig;
pub(crate) use schema::resolve_path;
pub use schema::{
    AgentConfig, AgentKind, BootstrapConfig, Config, DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT,
    DefaultsConfig, JudgeConfig, ProviderConfig, RunConfig, RunnerConfig, Schedule, UserSkills,
    WireApi, WorkspaceConfig, WorkspaceMode,
};
pub use size::parse_size;
pub use snapshots::{DEFAULT_SNAPSHOTS_FILE, Improvements, SnapshotsConfig, Tolerance};
pub use triggers::{DEFAULT_QUIET_AFTER, TriggersConfig};
pub(crate) use variants::name_problem as variant_name_problem;
pub use variants::{Variant, VariantSkills};

/// The values a config file shares with what a run records (`result.json`).
pub use crate::results::{SandboxMode, SandboxNetwork, SnapshotMetric};
