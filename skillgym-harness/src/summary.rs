//! Writing the run-level `results.json` ([`RunResults`]) and the closing summary lines of an
//! in-process run.

use std::path::PathBuf;

use crate::artifacts::{RunDir, write_json};
use crate::figures::thousands;
use crate::results::{Counts, ExecutionResult, RunResults, SampleStats, Status};

/// Writes `results.json` and returns its path.
pub(crate) fn write_results(
    run_dir: &RunDir,
    results: &RunResults<'_>,
) -> std::io::Result<PathBuf> {
    let path = run_dir.path().join("results.json");
    write_json(&path, results)?;
    Ok(path)
}

/// One compact line per execution whose repetitions matter (repeated, retried or stopped
/// early); per-attempt details stay in `results.json`.
pub(crate) fn repetition_lines<'a>(
    executions: impl IntoIterator<Item = &'a ExecutionResult>,
) -> String {
    executions
        .into_iter()
        .filter_map(repetition_line)
        .map(|line| format!("skillgym: {line}\n"))
        .collect()
}

/// One line on an execution, whatever it did: its repetition line when it has one, else its
/// status with its duration and tokens (`[runner] case: passed · 1.2s · 955 tokens`), or why
/// it was skipped.
pub(crate) fn execution_line(result: &ExecutionResult) -> String {
    if let Some(line) = repetition_line(result) {
        return line;
    }
    let mut line = format!("{}: {}", result.trial_name(), result.status.as_str());
    match result.status {
        Status::Skipped => {
            if let Some(failure) = &result.failure {
                line.push_str(&format!(" ({})", failure.message));
            }
        }
        _ => {
            line.push_str(&format!(
                " · {}",
                crate::duration::millis(result.duration_ms)
            ));
            if let Some(total) = result.usage.total_tokens {
                line.push_str(&format!(" · {} tokens", total.value));
            }
        }
    }
    line.push_str(snapshot_note(result));
    line
}

/// ` · snapshot pending review` when the execution's figure waits in the `.new` file.
fn snapshot_note(result: &ExecutionResult) -> &'static str {
    if result.snapshot.as_ref().is_some_and(|s| s.pending) {
        " · snapshot pending review (cargo skillgym review)"
    } else {
        ""
    }
}

/// The counts and where `results.json` is, or why it is not (its path and the error).
pub(crate) fn count_lines(
    counts: Counts,
    results: Result<&std::path::Path, (&std::path::Path, &std::io::Error)>,
) -> String {
    let mut text = format!(
        "skillgym: {} executions: {} passed, {} failed, {} expected-failed, {} unexpected-passed",
        counts.executions,
        counts.passed,
        counts.failed,
        counts.expected_failed,
        counts.unexpected_passed,
    );
    if counts.skipped > 0 {
        text.push_str(&format!(", {} skipped", counts.skipped));
    }
    if counts.interrupted > 0 {
        text.push_str(&format!(", {} interrupted", counts.interrupted));
    }
    text.push_str(&match results {
        Ok(path) => format!("\nskillgym: results: {}\n", path.display()),
        Err((path, error)) => format!(
            "\nskillgym: results: not written: cannot write {}: {error}\n",
            path.display()
        ),
    });
    text
}

/// `[runner] case: 3/3 repetitions passed · avg 1.2s · avg 1,200 tokens`, `[runner] case:
/// flaky, 3/3 repetitions passed after 1 retry · pass rate 75% (95% CI 30-95%) · ...` or
/// `[runner] case: failed at repetition 2/3 (1 passed, 3 attempts)`; `None` for a single
/// attempt.
fn repetition_line(result: &ExecutionResult) -> Option<String> {
    let attempts = result.attempts.total;
    let skipped = result.status == Status::Skipped;
    let who = result.trial_name();
    if let Some(samples) = result.samples.as_ref().filter(|_| !skipped) {
        return Some(sample_line(&who, result, samples));
    }
    if skipped || (result.repeat_target <= 1 && attempts <= 1) {
        return None;
    }
    if !result.passed && !snapshot_failed(result) {
        let at = result
            .stopped_at_repetition
            .unwrap_or(result.completed_repetitions);
        return Some(format!(
            "{who}: {} at repetition {at}/{} ({} passed, {attempts} attempt{})",
            result.status.as_str(),
            result.repeat_target,
            result.successful_repetitions,
            plural(attempts)
        ));
    }
    let retries = attempts - result.completed_repetitions;
    let mut line = if result.flaky {
        let interval = result.attempts.pass_rate_95;
        format!(
            "{who}: flaky, {n}/{n} repetitions passed after {retries} retr{} · pass rate {}% (95% CI {}-{}%)",
            if retries == 1 { "y" } else { "ies" },
            percent(result.attempts.pass_rate),
            percent(interval.low),
            percent(interval.high),
            n = result.successful_repetitions,
        )
    } else {
        format!(
            "{who}: {n}/{n} repetitions passed",
            n = result.successful_repetitions
        )
    };
    line.push_str(&format!(
        " · avg {}",
        crate::duration::compact(std::time::Duration::from_millis(result.duration_ms))
    ));
    if let Some(tokens) = result.usage.total_tokens {
        line.push_str(&format!(" · avg {} tokens", tokens.value));
    }
    if snapshot_failed(result) {
        line.push_str(" · failed its token snapshot");
    }
    line.push_str(snapshot_note(result));
    Some(line)
}

/// `[runner] case: 3/5 samples passed, 60% (95% CI 23-88%) · pass@3 90% · pass^3 10% · avg 1.2s
/// · 1,200 ± 150 tokens · $0.0120 ± 0.0015 · $0.0200 per success`: what a sampled execution's
/// sessions say together (pass@k and pass^k for the largest k up to 5 the samples allow).
fn sample_line(who: &str, result: &ExecutionResult, samples: &SampleStats) -> String {
    let interval = samples.pass_rate_95;
    let mut line = format!(
        "{who}: {}/{} samples passed, {}% (95% CI {}-{}%)",
        samples.passed,
        samples.sessions,
        percent(samples.pass_rate),
        percent(interval.low),
        percent(interval.high),
    );
    let k = samples
        .pass_at_k
        .keys()
        .copied()
        .filter(|k| (2..=5).contains(k))
        .max();
    if let Some(k) = k {
        line.push_str(&format!(
            " · pass@{k} {}% · pass^{k} {}%",
            percent(samples.pass_at_k[&k]),
            percent(samples.pass_all_k[&k])
        ));
    }
    line.push_str(&format!(
        " · avg {}",
        crate::duration::compact(std::time::Duration::from_millis(result.duration_ms))
    ));
    if let Some(tokens) = samples.total_tokens {
        line.push_str(&format!(
            " · {} ± {} tokens",
            thousands(tokens.mean.round() as u64),
            thousands(tokens.sd.round() as u64)
        ));
    }
    // `~`: estimated from token counts, as in the runner table.
    let mark = if samples.cost_estimated { "~" } else { "" };
    if let Some(cost) = samples.cost_usd {
        line.push_str(&format!(" · {mark}${:.4} ± {:.4}", cost.mean, cost.sd));
    }
    if let Some(per_success) = samples.cost_per_success_usd {
        line.push_str(&format!(" · {mark}${per_success:.4} per success"));
    }
    if let Some(gate) = result.min_pass_rate {
        let verdict = if samples.pass_rate >= gate {
            "met"
        } else {
            "missed"
        };
        line.push_str(&format!(" · min_pass_rate {}% {verdict}", percent(gate)));
    }
    line
}

/// Whether every repetition passed but the token snapshot failed the execution.
fn snapshot_failed(result: &ExecutionResult) -> bool {
    result
        .failure
        .as_ref()
        .is_some_and(|f| f.origin == skillgym::FailureOrigin::Snapshot)
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn percent(fraction: f64) -> u32 {
    (fraction * 100.0).round() as u32
}
