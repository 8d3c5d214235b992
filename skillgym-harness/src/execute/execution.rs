//! One execution (case x runner): repetitions until the target is reached, retrying a failed
//! repetition up to `repeat_failure` times, stopping at the first repetition that still fails.

use super::attempt::{AttemptId, run_attempt};
use super::result::{ExecutionResult, RepetitionResult, Status};
use crate::artifacts::write_json;
use crate::run::{RunContext, Runner};
use crate::suite::CaseSpec;

/// Runs every repetition and attempt of `case` on `runner` and writes the execution's
/// `result.json`.
pub fn run_execution(run: &RunContext, case: &CaseSpec, runner: &Runner) -> ExecutionResult {
    let repeat_target = run.settings_repeat(case);
    let repeat_failure = run.settings_repeat_failure(case);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("skillgym: cannot start the async runtime: {error}"),
    };
    let mut repetitions = Vec::new();
    for repetition in 1..=repeat_target {
        let mut attempts = Vec::new();
        for attempt in 1..=repeat_failure + 1 {
            let result = run_attempt(
                run,
                &runtime,
                AttemptId {
                    case,
                    runner,
                    repetition,
                    attempt,
                },
            );
            let retry = !result.passed
                && result.status != Status::UnexpectedPassed
                && attempt <= repeat_failure;
            attempts.push(result);
            if !retry {
                break;
            }
        }
        let last = attempts.last().expect("at least one attempt ran");
        let (status, passed) = (last.status, last.passed);
        repetitions.push(RepetitionResult {
            repetition,
            status,
            passed,
            attempts,
        });
        if !passed {
            break;
        }
    }
    let result = aggregate(run, case, runner, repeat_target, repetitions);
    let path = result.artifact_dir.join("result.json");
    if let Err(error) = write_json(&path, &result) {
        eprintln!("skillgym: cannot write {}: {error}", path.display());
    }
    result
}

fn aggregate(
    run: &RunContext,
    case: &CaseSpec,
    runner: &Runner,
    repeat_target: u32,
    repetitions: Vec<RepetitionResult>,
) -> ExecutionResult {
    let successful: Vec<&RepetitionResult> = repetitions.iter().filter(|r| r.passed).collect();
    let terminal = repetitions.last().filter(|r| !r.passed);
    let last_attempt = repetitions.last().and_then(RepetitionResult::final_attempt);
    let duration_ms = match terminal {
        Some(repetition) => repetition.final_attempt().map_or(0, |a| a.duration_ms),
        None if successful.is_empty() => 0,
        None => {
            let total: u64 = successful
                .iter()
                .filter_map(|r| r.final_attempt())
                .map(|a| a.duration_ms)
                .sum();
            total / successful.len() as u64
        }
    };
    let status = match terminal {
        Some(repetition) => repetition.status,
        None => last_attempt.map_or(Status::Skipped, |a| a.status),
    };
    ExecutionResult {
        case_id: case.id.clone(),
        runner_id: runner.id.clone(),
        status,
        passed: terminal.is_none(),
        expected_fail: case.expected_fail,
        failure: last_attempt.and_then(|a| a.failure.clone()),
        repeat_target,
        completed_repetitions: repetitions.len() as u32,
        successful_repetitions: successful.len() as u32,
        failed_repetitions: repetitions.iter().filter(|r| !r.passed).count() as u32,
        stopped_at_repetition: terminal.map(|r| r.repetition),
        duration_ms,
        artifact_dir: run.run_dir.execution_dir(&case.id, &runner.id),
        repetitions,
    }
}
