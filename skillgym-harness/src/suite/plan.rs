//! The plan: which case runs on which runner.

use super::CaseSpec;

/// One planned execution: a case (index into the case list) on a runner (index into the
/// runner list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedExecution {
    /// Index of the case.
    pub case: usize,
    /// Index of the runner.
    pub runner: usize,
}

/// The executions of a run, in case order, then runner order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The executions.
    pub executions: Vec<PlannedExecution>,
}

impl Plan {
    /// Plans every selected case on every runner it may run on.
    ///
    /// A case is selected when no tags are selected or it has any selected tag (OR). A case
    /// restricted with `runners = [...]` runs only on those of `runner_ids`.
    pub fn new(cases: &[CaseSpec], runner_ids: &[&str], selected_tags: &[String]) -> Plan {
        let mut executions = Vec::with_capacity(cases.len() * runner_ids.len());
        for (case_index, case) in cases.iter().enumerate() {
            let tagged =
                selected_tags.is_empty() || case.tags.iter().any(|tag| selected_tags.contains(tag));
            if !tagged {
                continue;
            }
            for (runner_index, runner_id) in runner_ids.iter().enumerate() {
                if case.runners.is_empty() || case.runners.iter().any(|r| r == runner_id) {
                    executions.push(PlannedExecution {
                        case: case_index,
                        runner: runner_index,
                    });
                }
            }
        }
        Plan { executions }
    }
}
