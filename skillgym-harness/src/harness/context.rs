//! State shared by every trial of one run in this process: the [`RunContext`].

use std::sync::{Arc, Mutex, PoisonError};

use crate::execute::Engine;
use crate::report::Reporter;
use crate::results::ExecutionResult;
use crate::runner::Runner;
use crate::schedule::Gates;
use crate::suite::CaseSpec;

/// Everything a trial needs, shared through an `Arc`: what its execution reads (the
/// [`Engine`]), and what the run around it schedules, reports and collects.
pub(crate) struct RunContext {
    /// What every execution reads.
    pub(crate) engine: Engine,
    /// The cases, sorted by id.
    pub(crate) cases: Vec<CaseSpec>,
    /// The selected runners, in configuration order.
    pub(crate) runners: Vec<Runner>,
    /// What an execution waits for before it starts: the schedule's concurrency cap and, under
    /// `isolated-by-runner`, its runner's turn.
    pub(crate) gates: Gates,
    /// Per case (by index), its group of the gates: the suite with `execution.workers`.
    pub(crate) case_groups: Vec<Option<usize>>,
    /// The reporters that write after the run (besides the console summary).
    pub(crate) reporters: Vec<Arc<dyn Reporter>>,
    /// `--format junit`: stdout carries the run's JUnit document only.
    pub(crate) format_junit: bool,
    /// Results of the executions finished in this process, keyed by plan position.
    pub(crate) results: Mutex<Vec<(usize, ExecutionResult)>>,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("engine", &self.engine)
            .field("cases", &self.cases.len())
            .field("runners", &self.runners)
            .finish_non_exhaustive()
    }
}

impl RunContext {
    /// Records a finished execution.
    pub(crate) fn record(&self, position: usize, result: ExecutionResult) {
        self.results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((position, result));
    }
}
