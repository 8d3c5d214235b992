//! State shared by every trial of one run in this process.

use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::Agent;
use crate::artifacts::RunDir;
use crate::cli::SkillgymArgs;
use crate::config::Settings;
use crate::dry_run::DryRun;
use crate::execute::ExecutionResult;
use crate::rejections::Rejections;
use crate::schedule::Gates;
use crate::skills::plan::SkillPlan;
use crate::suite::CaseSpec;

/// A configured runner: an id and its agent.
#[derive(Clone)]
pub struct Runner {
    /// The runner id.
    pub id: String,
    /// The agent adapter.
    pub agent: Arc<dyn Agent>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("id", &self.id)
            .field("agent", &self.agent.kind())
            .finish()
    }
}

/// Everything a trial needs, shared through an `Arc`.
pub struct RunContext {
    /// Resolved settings.
    pub settings: Settings,
    /// Flags and environment (they override per-case values).
    pub overrides: SkillgymArgs,
    /// Where artifacts go.
    pub run_dir: RunDir,
    /// The cases, sorted by id.
    pub cases: Vec<CaseSpec>,
    /// The selected runners, in configuration order.
    pub runners: Vec<Runner>,
    /// What an execution waits for before it starts: the schedule's concurrency cap and, under
    /// `isolated-by-runner`, its runner's turn.
    pub(crate) gates: Gates,
    /// Runners whose model the provider rejected earlier in this run.
    pub(crate) rejections: Rejections,
    /// The scripted model server of a `--mock` run.
    pub(crate) dry_run: Option<DryRun>,
    /// The skills under test each attempt installs.
    pub(crate) skills: SkillPlan,
    /// Results of the executions finished in this process, keyed by plan position.
    pub results: Mutex<Vec<(usize, ExecutionResult)>>,
}

impl RunContext {
    /// Successful repetitions wanted: flag > case > config > 1.
    pub fn settings_repeat(&self, case: &CaseSpec) -> u32 {
        self.overrides
            .repeat
            .or(case.repeat)
            .unwrap_or(self.settings.repeat)
            .max(1)
    }

    /// Retries per repetition: flag (`--repeat-failure`, then `--retry-failed`) > case > config.
    pub fn settings_repeat_failure(&self, case: &CaseSpec) -> u32 {
        self.overrides
            .repeat_failure
            .or(self.overrides.retry_failed)
            .or(case.repeat_failure)
            .unwrap_or(self.settings.repeat_failure)
    }

    /// The per-case timeout: the case's, else `defaults.timeout`, else 2 minutes.
    pub fn timeout(&self, case: &CaseSpec) -> std::time::Duration {
        case.timeout.unwrap_or(self.settings.default_timeout)
    }

    /// Records a finished execution.
    pub fn record(&self, position: usize, result: ExecutionResult) {
        self.results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((position, result));
    }
}
