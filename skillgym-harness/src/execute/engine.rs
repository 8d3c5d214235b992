//! What every execution of a run reads: the [`Engine`].

use super::budget::Budget;
use crate::artifacts::RunDir;
use crate::dry_run::DryRun;
use crate::progress::Board;
use crate::rejections::Rejections;
use crate::runner::Runner;
use crate::settings::Settings;
use crate::skills::plan::SkillPlan;
use crate::snapshot::Snapshots;
use crate::versions::RunVersions;
use std::sync::Arc;

/// The part of a run its executions read (the harness's run context holds it beside the cases,
/// runners, reporters and results): settings, run directory, the skills under test, the judge,
/// the scripted model server, snapshots, agent versions and the live progress.
pub struct Engine {
    /// Resolved settings.
    pub settings: Settings,
    /// Where artifacts go.
    pub run_dir: RunDir,
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
    /// The version of each runner's agent, asked once per run.
    pub(crate) versions: RunVersions,
    /// The executions running now, for the live progress.
    pub(crate) progress: Arc<Board>,
    /// What the run has spent against `run.budget`.
    pub(crate) budget: Budget,
    /// Runners whose agent program is missing, with why: their executions are skipped.
    pub(crate) unavailable: Vec<(String, String)>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("run_dir", &self.run_dir)
            .field("judge", &self.judge)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// `runner`'s agent: its type, model and version (for `result.json`, `run.json` and the
    /// reporters).
    pub fn agent(&self, runner: &Runner) -> skillgym::AgentInfo {
        self.versions.agent(runner)
    }
}
