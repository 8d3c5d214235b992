//! Hand-built reports for the reporters' tests.

use std::path::PathBuf;

use serde_json::json;

use super::RunReport;
use crate::results::ExecutionResult;

/// An execution of `case` on `runner` from `result.json` fields; `extra` overrides.
pub(super) fn execution(case: &str, runner: &str, extra: serde_json::Value) -> ExecutionResult {
    let mut value = json!({
        "case_id": case,
        "runner_id": runner,
        "agent": {"type": "claude-code", "model": "claude-sonnet-4-6", "version": "2.1.330"},
        "source": "tests/benchmarks/main.rs:10",
        "status": "passed",
        "passed": true,
        "expected_fail": false,
        "repeat_target": 1,
        "repeat_failure": 0,
        "completed_repetitions": 1,
        "successful_repetitions": 1,
        "failed_repetitions": 0,
        "flaky": false,
        "attempts": {"total": 1, "passing": 1, "pass_rate": 1.0,
                     "pass_rate_95": {"low": 0.2, "high": 1.0}},
        "duration_ms": 1250,
        "usage": {"input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "artifact_dir": format!("/runs/r1/{case}/{runner}"),
        "repetitions": [{"repetition": 1, "status": "passed", "passed": true, "attempts": [
            attempt(case, runner, 1, 1, "passed", 1250)
        ]}],
    });
    for (key, field) in extra.as_object().expect("an object") {
        value[key] = field.clone();
    }
    serde_json::from_value(value).expect("an ExecutionResult")
}

/// An attempt's `result.json` fields.
pub(super) fn attempt(
    case: &str,
    runner: &str,
    repetition: u32,
    attempt: u32,
    status: &str,
    duration_ms: u64,
) -> serde_json::Value {
    json!({
        "repetition": repetition,
        "attempt": attempt,
        "status": status,
        "passed": status == "passed",
        "duration_ms": duration_ms,
        "usage": {"total_tokens": {"value": 1000, "source": "provider"}, "cost_usd": 0.01,
                  "input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "steps": 1,
        "artifact_dir": format!("/runs/r1/{case}/{runner}/repeat-{repetition}/attempt-{attempt}"),
    })
}

/// A report over every status, a repeated failure, and a message needing escapes.
pub(super) fn sample() -> RunReport {
    let failure = json!({
        "origin": "assertion",
        "class": {"id": "wrong-answer", "label": "Wrong answer"},
        "message": "expected \"a & b\" <got> 'c'\n  final output:\n\tA&B\u{1b}[0m\r",
        "location": {"file": "tests/benchmarks/main.rs", "line": 12, "column": 5},
    });
    let executions = vec![
        execution("greets", "careful", json!({})),
        execution(
            "greets",
            "hasty",
            json!({
                "status": "failed", "passed": false, "failure": failure,
                "repeat_target": 3, "repeat_failure": 1,
                "completed_repetitions": 2, "successful_repetitions": 1,
                "failed_repetitions": 1, "stopped_at_repetition": 2,
                "attempts": {"total": 3, "passing": 1, "pass_rate": 0.333,
                             "pass_rate_95": {"low": 0.06, "high": 0.79}},
                "duration_ms": 2000,
                "repetitions": [
                    {"repetition": 1, "status": "passed", "passed": true, "attempts": [
                        attempt("greets", "hasty", 1, 1, "passed", 1000)]},
                    {"repetition": 2, "status": "failed", "passed": false, "attempts": [
                        attempt("greets", "hasty", 2, 1, "failed", 1500),
                        attempt("greets", "hasty", 2, 2, "failed", 2000)]},
                ],
            }),
        ),
        execution(
            "known_gap",
            "careful",
            json!({
                "status": "expected-failed", "expected_fail": true,
                "failure": {"origin": "grader", "class": {"id": "grader"},
                            "message": "no skill loaded\nmore"},
            }),
        ),
        execution(
            "mod:x",
            "careful",
            json!({
                "source": "evals/showcase/cases/x/case.yaml:1",
                "flaky": true, "repeat_failure": 1,
                "attempts": {"total": 2, "passing": 1, "pass_rate": 0.5,
                             "pass_rate_95": {"low": 0.09, "high": 0.91}},
                "repetitions": [{"repetition": 1, "status": "passed", "passed": true,
                    "attempts": [attempt("mod:x", "careful", 1, 1, "failed", 500),
                                 attempt("mod:x", "careful", 1, 2, "passed", 750)]}],
            }),
        ),
        execution(
            "skipped_one",
            "hasty",
            json!({
                "source": "no line here",
                "status": "skipped", "passed": false, "completed_repetitions": 0,
                "successful_repetitions": 0, "duration_ms": 0, "repetitions": [],
                "attempts": {"total": 0, "passing": 0, "pass_rate": 0.0,
                             "pass_rate_95": {"low": 0.0, "high": 0.0}},
                "failure": {"origin": "interrupted", "class": {"id": "interrupted"},
                            "message": "not run: the run was interrupted by SIGINT"},
            }),
        ),
    ];
    RunReport::new(
        vec!["r1".into()],
        vec![PathBuf::from("/runs/r1")],
        executions,
    )
    .with_times(
        "2026-11-22T23:59:58.500Z".into(),
        "2026-11-23T00:00:01.250Z".into(),
    )
}
