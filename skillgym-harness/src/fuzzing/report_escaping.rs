//! The reporters on a report whose every agent- or suite-controlled text is arbitrary: ids,
//! failure messages and classes, sources, timestamps.
//!
//! | input | what it is |
//! |---|---|
//! | first byte | the first execution's status |
//! | 1st to 6th text (NUL-separated, UTF-8 with replacements) | case id, runner id (also the agent type and model), failure message, failure class label, source (`file:line`, also the agent's version), the run's start |

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{reporters, scratch};
use crate::report::{RunReport, github_actions, html};
use crate::results::ExecutionResult;

/// The statuses of an execution that did not pass (and a pass).
const STATUSES: [&str; 5] = [
    "failed",
    "unexpected-passed",
    "interrupted",
    "expected-failed",
    "passed",
];

/// Builds a report of three executions from the texts `bytes` make (see the module) and runs
/// every reporter on it (`super::reporters`); also checks HTML escaping and workflow-command
/// escaping of each text alone. For fuzz targets; not a stable API.
pub fn report_escaping(bytes: &[u8]) {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let texts: Vec<String> = scratch::files(rest, 6)
        .into_iter()
        .map(|file| String::from_utf8_lossy(file.unwrap_or_default()).into_owned())
        .collect();
    let [case, runner, message, label, source, started] = &texts[..] else {
        unreachable!("six texts")
    };
    for text in &texts {
        check_escapes(text);
    }
    let status = STATUSES[usize::from(pick) % STATUSES.len()];
    let failure = json!({
        "origin": "assertion",
        "class": {"id": "wrong-answer", "label": label},
        "message": message,
        "location": {"file": source, "line": 3, "column": 1},
    });
    let executions = vec![
        execution(case, runner, source, status, Some(failure.clone())),
        execution(
            &format!("{case}2"),
            runner,
            source,
            "skipped",
            Some(failure),
        ),
        execution(case, &format!("{runner}b"), source, "passed", None),
    ];
    let report = RunReport::new(
        vec![runner.clone()],
        vec![PathBuf::from("/runs/fuzz")],
        executions,
    )
    .with_times(started.clone(), started.clone());
    reporters::check(&report);
}

/// Each escaper alone: HTML text has no markup character left and reads back as the text;
/// a workflow command's message has no line break, its property no `:` or `,` either.
fn check_escapes(text: &str) {
    let escaped = html::escape(text);
    assert!(!escaped.contains(['<', '>', '"', '\'']), "{escaped:?}");
    let unescaped = escaped
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    assert_eq!(unescaped, text, "HTML escaping lost text");
    let data = github_actions::data(text);
    assert!(!data.contains(['\r', '\n']), "{data:?}");
    let property = github_actions::property(text);
    assert!(!property.contains(['\r', '\n', ':', ',']), "{property:?}");
}

/// An execution of one attempt with `status`, from `result.json` fields.
fn execution(
    case: &str,
    runner: &str,
    source: &str,
    status: &str,
    failure: Option<Value>,
) -> ExecutionResult {
    let passed = status == "passed" || status == "expected-failed";
    let mut attempt = json!({
        "repetition": 1,
        "attempt": 1,
        "status": status,
        "passed": passed,
        "duration_ms": 1250,
        "usage": {"total_tokens": {"value": 1000, "source": "provider"}, "cost_usd": 0.01,
                  "input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "steps": 1,
        "artifact_dir": "/runs/fuzz/a/r/repeat-1/attempt-1",
    });
    let mut value = json!({
        "case_id": case,
        "runner_id": runner,
        "agent": {"type": runner, "model": runner, "version": source},
        "source": source,
        "status": status,
        "passed": passed,
        "expected_fail": status == "expected-failed",
        "repeat_target": 1,
        "repeat_failure": 0,
        "completed_repetitions": 1,
        "successful_repetitions": u32::from(passed),
        "failed_repetitions": u32::from(!passed),
        "flaky": false,
        "attempts": {"total": 1, "passing": u32::from(passed), "pass_rate": 1.0,
                     "pass_rate_95": {"low": 0.2, "high": 1.0}},
        "duration_ms": 1250,
        "usage": {"input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "artifact_dir": "/runs/fuzz/a/r",
    });
    if let Some(failure) = failure {
        attempt["failure"] = failure.clone();
        value["failure"] = failure;
    }
    value["repetitions"] = json!([{"repetition": 1, "status": status, "passed": passed,
                                   "attempts": [attempt]}]);
    serde_json::from_value(value).expect("an execution result")
}
