//! Token usage against the bill: what an attempt's report says it used, compared with what the
//! scripted model billed for it (the `usage` of each answered request in the attempt's
//! `mock-requests.jsonl`).
//!
//! | attempt | its report's usage |
//! |---|---|
//! | a session the model answered | input and output tokens equal to the sums the scripted model billed (it bills no cache and no reasoning) |
//! | a session whose every request was refused | absent: unknown, not 0 (the README's usage rule for refused requests) |

use std::path::Path;

use serde_json::Value;

/// Checks the usage in the report of `scenario`'s attempt (its directory: `attempt`) against
/// the scripted model's log of it, `requests`.
pub(crate) fn check(scenario: &str, attempt: &Path, requests: &str) -> Result<(), String> {
    let path = attempt.join("report.json");
    let report: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .ok_or_else(|| format!("cannot read {}", path.display()))?;
    match scenario {
        "rejection::first" => unknown_when_refused(&report),
        _ => matches_bill(&report, requests),
    }
    .map_err(|problem| format!("{problem} ({})", path.display()))
}

/// Input and output tokens the scripted model billed: the sums over the requests it answered
/// (status 200) in a `mock-requests.jsonl`.
fn billed(requests: &str) -> (u64, u64) {
    requests
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["reply"]["status"] == 200)
        .fold((0, 0), |(input, output), entry| {
            let usage = &entry["reply"]["usage"];
            (
                input + usage["input_tokens"].as_u64().unwrap_or(0),
                output + usage["output_tokens"].as_u64().unwrap_or(0),
            )
        })
}

/// A token figure of a report's usage (`usage.<figure>.value`).
fn figure(report: &Value, name: &str) -> Option<u64> {
    report["usage"][name]["value"].as_u64()
}

/// The report of an answered session says exactly what the scripted model billed.
fn matches_bill(report: &Value, requests: &str) -> Result<(), String> {
    let (input, output) = billed(requests);
    let reported = (
        figure(report, "input_tokens"),
        figure(report, "output_tokens"),
    );
    if reported != (Some(input), Some(output)) {
        return Err(format!(
            "usage: the report says input {:?}, output {:?}; the scripted model billed input {input}, output {output}",
            reported.0, reported.1
        ));
    }
    Ok(())
}

/// The report of a session whose every request was refused has no token figures and no cost.
fn unknown_when_refused(report: &Value) -> Result<(), String> {
    let usage = &report["usage"];
    let present: Vec<&str> = [
        "input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "cache_tokens",
        "total_tokens",
        "cost_usd",
    ]
    .into_iter()
    .filter(|name| !usage[*name].is_null())
    .collect();
    if !present.is_empty() {
        return Err(format!(
            "usage of a refused session: {present:?} present, expected absent (unknown): {usage}"
        ));
    }
    Ok(())
}
