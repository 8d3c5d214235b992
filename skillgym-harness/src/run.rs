//! State shared by every trial of one run in this process.

use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::Agent;
use crate::artifacts::RunDir;
use crate::config::Settings;
use crate::dry_run::DryRun;
use crate::progress::Board;
use crate::rejections::Rejections;
use crate::replay::ReplaySource;
use crate::report::Reporter;
use crate::results::ExecutionResult;
use crate::schedule::Gates;
use crate::skills::plan::SkillPlan;
use crate::snapshot::Snapshots;
use crate::suite::CaseSpec;
use crate::versions::RunVersions;

/// A configured runner: an id and its agent.
#[derive(Clone)]
pub struct Runner {
    /// The runner id.
    pub id: String,
    /// The agent adapter.
    pub agent: Arc<dyn Agent>,
    /// Where its sessions come from when it replays a recording instead of running its agent.
    pub replay: Option<Arc<ReplaySource>>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("id", &self.id)
            .field("agent", &self.agent.kind())
            .field("replay", &self.replay.is_some())
            .finish()
    }
}

/// Everything a trial needs, shared through an `Arc`.
pub struct RunContext {
    /// Resolved settings.
    pub settings: Settings,
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
    /// The runner that grades rubric items (`judge:`), if configured.
    pub(crate) judge: Option<Runner>,
    /// The token snapshots, when `snapshots:` is configured.
    pub(crate) snapshots: Option<Snapshots>,
    /// The reporters that write after the run (besides the console summary).
    pub(crate) reporters: Vec<Arc<dyn Reporter>>,
    /// `--format junit`: stdout carries the run's JUnit document only.
    pub(crate) format_junit: bool,
    /// The version of each runner's agent, asked once per run.
    pub(crate) versions: RunVersions,
    /// The executions running now, for the live progress.
    pub(crate) progress: Arc<Board>,
    /// Results of the executions finished in this process, keyed by plan position.
    pub results: Mutex<Vec<(usize, ExecutionResult)>>,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("run_dir", &self.run_dir)
            .field("cases", &self.cases.len())
            .field("runners", &self.runners)
            .finish_non_exhaustive()
    }
}

impl RunContext {
    /// `runner`'s agent: its type, model and version (for `result.json`, `run.json` and the
    /// reporters).
    pub fn agent(&self, runner: &Runner) -> skillgym::AgentInfo {
        self.versions.agent(runner)
    }

    /// Records a finished execution.
    pub fn record(&self, position: usize, result: ExecutionResult) {
        self.results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((position, result));
    }
}
