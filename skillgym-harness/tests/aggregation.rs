//! Sums and means over executions with figures at the edges of their types (0, 1,
//! `u64::MAX - 1`, `u64::MAX`, costs up to `f64::MAX`, negative costs), as `result.json` files
//! may hold them: the per-runner rows saturate exactly, the counts add up, and the console
//! summary and every built-in reporter are written without a panic, an infinity or a NaN.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};
use skillgym_harness::report::{self, RunReport};
use skillgym_harness::results::ExecutionResult;

/// The largest cost a sum reaches (the README's "Run integrity" table).
const MAX_COST_USD: f64 = 1e15;

/// One attempt's figures.
#[derive(Debug, Clone)]
struct Attempt {
    duration_ms: u64,
    tokens: [Option<u64>; 5],
    cost: Option<f64>,
}

/// One execution: its runner, status, own (mean) figures and the attempts of its repetitions.
#[derive(Debug, Clone)]
struct Execution {
    runner: &'static str,
    status: &'static str,
    duration_ms: u64,
    pass_rate: f64,
    repetitions: Vec<Vec<Attempt>>,
}

const TOKEN_FIGURES: [&str; 5] = [
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cache_tokens",
    "total_tokens",
];

fn figure() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(u64::MAX - 1),
        Just(u64::MAX),
        any::<u64>(),
    ]
}

/// Costs as JSON can hold them: finite, some negative (a hand-edited file).
fn cost() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(0.0123),
        Just(MAX_COST_USD),
        Just(1e300),
        Just(f64::MAX),
        Just(-5.0),
        Just(-f64::MAX),
        0.0..1e6,
    ]
}

fn attempt() -> impl Strategy<Value = Attempt> {
    (
        figure(),
        proptest::array::uniform5(proptest::option::of(figure())),
        proptest::option::of(cost()),
    )
        .prop_map(|(duration_ms, tokens, cost)| Attempt {
            duration_ms,
            tokens,
            cost,
        })
}

fn execution() -> impl Strategy<Value = Execution> {
    (
        prop::sample::select(vec!["r1", "r2"]),
        prop::sample::select(vec![
            "passed",
            "failed",
            "expected-failed",
            "unexpected-passed",
            "skipped",
            "interrupted",
        ]),
        figure(),
        prop_oneof![Just(0.0), Just(1.0), Just(f64::MAX), Just(-f64::MAX)],
        prop::collection::vec(prop::collection::vec(attempt(), 1..3), 0..3),
    )
        .prop_map(
            |(runner, status, duration_ms, pass_rate, repetitions)| Execution {
                runner,
                status,
                duration_ms,
                pass_rate,
                repetitions,
            },
        )
}

fn usage(tokens: &[Option<u64>; 5], cost: Option<f64>) -> Value {
    let mut usage = json!({"input_chars": u64::MAX, "output_chars": 0, "reasoning_chars": 1});
    for (name, value) in TOKEN_FIGURES.iter().zip(tokens) {
        if let Some(value) = value {
            usage[*name] = json!({"value": value, "source": "provider"});
        }
    }
    if let Some(cost) = cost {
        usage["cost_usd"] = json!(cost);
    }
    usage
}

/// The execution as its `result.json` says it.
fn result(index: usize, execution: &Execution) -> ExecutionResult {
    let case = format!("case-{index}");
    let dir = format!("/runs/r/{case}/{}", execution.runner);
    let attempts = execution.repetitions.iter().map(Vec::len).sum::<usize>();
    let repetitions: Vec<Value> = execution
        .repetitions
        .iter()
        .enumerate()
        .map(|(r, attempts)| {
            json!({
                "repetition": r + 1, "status": "passed", "passed": true,
                "attempts": attempts.iter().enumerate().map(|(a, attempt)| json!({
                    "repetition": r + 1, "attempt": a + 1, "status": "passed", "passed": true,
                    "duration_ms": attempt.duration_ms,
                    "usage": usage(&attempt.tokens, attempt.cost),
                    "steps": u32::MAX,
                    "artifact_dir": format!("{dir}/repeat-{}/attempt-{}", r + 1, a + 1),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let first = execution.repetitions.first().and_then(|r| r.first());
    let value = json!({
        "case_id": case,
        "runner_id": execution.runner,
        "source": "tests/b.rs:1",
        "status": execution.status,
        "passed": matches!(execution.status, "passed" | "expected-failed" | "skipped"),
        "expected_fail": false,
        "repeat_target": u32::MAX,
        "repeat_failure": u32::MAX,
        "completed_repetitions": execution.repetitions.len(),
        "successful_repetitions": 0,
        "failed_repetitions": u32::MAX,
        "flaky": true,
        "attempts": {"total": attempts, "passing": u32::MAX, "pass_rate": execution.pass_rate,
                     "pass_rate_95": {"low": execution.pass_rate, "high": -execution.pass_rate}},
        "duration_ms": execution.duration_ms,
        "usage": first.map_or_else(|| usage(&[None; 5], None), |a| usage(&a.tokens, a.cost)),
        "artifact_dir": dir,
        "repetitions": repetitions,
    });
    serde_json::from_value(value).expect("an execution's result.json")
}

/// What a runner's row must hold: exact saturating sums, the costs that are costs summed and
/// capped, the exact rounded mean duration of the executions that ran.
fn expected_row(executions: &[Execution], runner: &str) -> Value {
    let mine: Vec<&Execution> = executions.iter().filter(|e| e.runner == runner).collect();
    let attempts: Vec<&Attempt> = mine
        .iter()
        .flat_map(|e| e.repetitions.iter().flatten())
        .collect();
    let mut row = json!({});
    for (i, name) in TOKEN_FIGURES.iter().enumerate() {
        let values: Vec<u128> = attempts
            .iter()
            .filter_map(|a| a.tokens[i])
            .map(u128::from)
            .collect();
        row[*name] = if values.is_empty() {
            Value::Null
        } else {
            json!(u64::try_from(values.iter().sum::<u128>()).unwrap_or(u64::MAX))
        };
    }
    let costs: Vec<f64> = attempts
        .iter()
        .filter_map(|a| a.cost)
        .filter(|c| *c >= 0.0)
        .collect();
    row["cost_usd"] = if costs.is_empty() {
        Value::Null
    } else {
        let sum = costs.iter().fold(0.0_f64, |sum, c| {
            (sum + c.min(MAX_COST_USD)).min(MAX_COST_USD)
        });
        json!(sum)
    };
    let ran: Vec<u128> = mine
        .iter()
        .filter(|e| !e.repetitions.is_empty())
        .map(|e| u128::from(e.duration_ms))
        .collect();
    row["mean_duration_ms"] = if ran.is_empty() {
        Value::Null
    } else {
        let n = ran.len() as u128;
        json!(u64::try_from((ran.iter().sum::<u128>() + n / 2) / n).unwrap())
    };
    row
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn sums_and_means_saturate_and_every_report_is_written(
        executions in prop::collection::vec(execution(), 1..6),
    ) {
        let results: Vec<ExecutionResult> = executions
            .iter()
            .enumerate()
            .map(|(i, e)| result(i, e))
            .collect();
        let report = RunReport::new(vec!["r".into()], vec![PathBuf::from("/runs/r")], results);

        let counts = report.counts();
        prop_assert_eq!(counts.executions, executions.len());
        prop_assert_eq!(
            counts.passed + counts.failed + counts.expected_failed + counts.unexpected_passed
                + counts.skipped + counts.interrupted,
            executions.len()
        );

        for row in report.runner_rows() {
            let row_json = serde_json::to_value(&row).unwrap();
            let expected = expected_row(&executions, &row.runner);
            for key in TOKEN_FIGURES.iter().chain(&["cost_usd", "mean_duration_ms"]) {
                prop_assert_eq!(&row_json[*key], &expected[*key], "{} of {}", key, row.runner);
            }
        }

        let summary = report::summary_text(&report);
        prop_assert!(!summary.contains("inf") && !summary.contains("NaN"), "{}", summary);

        let dir = tempfile::tempdir().unwrap();
        let step_summary = dir.path().join("step-summary.md");
        // SAFETY: the only test of this binary sets the variables before any reporter reads
        // them; no other thread touches the environment. Outside a workflow (so no workflow
        // command reaches this process's stdout), with a job summary file of its own.
        unsafe {
            std::env::set_var("GITHUB_ACTIONS", "false");
            std::env::set_var("GITHUB_STEP_SUMMARY", &step_summary);
        }
        for name in report::BUILT_IN {
            let reporter = report::built_in(name).unwrap();
            let paths = reporter.write(&report, dir.path()).unwrap();
            for path in paths {
                let text = std::fs::read_to_string(&path).unwrap();
                for odd in ["$inf", "inf%", "NaN", "∞"] {
                    prop_assert!(!text.contains(odd), "{}: {}", path.display(), odd);
                }
            }
        }
        // json-summary's rows are the runner rows (a cost as JSON reads it back: to the last
        // bit or so).
        let written: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("summary.json")).unwrap(),
        )
        .unwrap();
        let rows = serde_json::to_value(report.runner_rows()).unwrap();
        prop_assert_eq!(written["runners"].as_array().map(Vec::len), rows.as_array().map(Vec::len));
        for (written, row) in written["runners"].as_array().unwrap().iter().zip(rows.as_array().unwrap()) {
            for (key, value) in row.as_object().unwrap() {
                match (written[key].as_f64(), value.as_f64()) {
                    (Some(a), Some(b)) if key == "cost_usd" => {
                        prop_assert!((a - b).abs() <= b.abs() * 1e-15, "{} {} {}", key, a, b);
                    }
                    _ => prop_assert_eq!(&written[key], value, "{}", key),
                }
            }
        }
    }
}
