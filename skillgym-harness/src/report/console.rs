//! The console summary printed after a run (and by `cargo skillgym report`): a table with one
//! row per runner (its agent, the agent's version and the model, then its figures), then the failures grouped by failure class, each with its message's first
//! line, source location and artifact path, the token snapshots compared with a baseline another
//! version of the agent recorded, and how many snapshot values wait for review.
//! The messages and ids are as the run recorded them; what prints the text escapes it
//! ([`terminal_text`](crate::terminal_text)).

use std::fmt::Write as _;

use super::hint::user_dir;
use super::{RunReport, RunnerRow, hint};
use crate::duration::rounded;
use crate::figures::thousands;
use crate::results::{ExecutionResult, Status};

/// The summary text (ends with a newline).
pub(crate) fn summary(report: &RunReport) -> String {
    let mut text = dry_run_line(report);
    text.push_str(&table(&report.runner_rows()));
    text.push_str(&super::lift_table::lift_table(report.experiment.as_ref()));
    text.push_str(&super::trigger_table::trigger_table(&report.triggers));
    let failures = failures_by_class(report);
    if !failures.is_empty() {
        text.push_str(&failures);
    }
    text.push_str(&budget_line(report));
    text.push_str(&snapshot_version_notes(report));
    text.push_str(&pending_snapshots(report));
    text
}

/// `skillgym: the run's budget of 40 sessions was reached: 2 of 5 executions not decided
/// (skipped, origin budget)`, or nothing.
fn budget_line(report: &RunReport) -> String {
    let cut: Vec<&ExecutionResult> = report
        .executions
        .iter()
        .filter(|e| {
            e.failure
                .as_ref()
                .is_some_and(|f| f.origin == skillgym::FailureOrigin::Budget)
        })
        .collect();
    let Some(first) = cut.first().and_then(|e| e.failure.as_ref()) else {
        return String::new();
    };
    let limit = first
        .message
        .split_once(": ")
        .and_then(|(_, rest)| rest.split(" was reached").next())
        .unwrap_or("the run's budget");
    format!(
        "skillgym: {limit} was reached: {} of {} executions not decided (skipped, origin budget)\n",
        cut.len(),
        report.executions.len()
    )
}

/// One line per token snapshot compared with a baseline recorded with another version of the
/// agent: `skillgym: snapshot `c::r`: note: the baseline was recorded with version …`.
fn snapshot_version_notes(report: &RunReport) -> String {
    let mut text = String::new();
    for execution in &report.executions {
        if let Some(check) = &execution.snapshot
            && let (Some(then), Some(now)) = (&check.baseline_version, &execution.agent.version)
        {
            let _ = writeln!(
                text,
                "skillgym: snapshot `{}`: {}",
                check.key,
                crate::results::version_note(then, now)
            );
        }
    }
    text
}

/// `skillgym: 2 snapshot values pending review: run `cargo skillgym review``, or nothing.
fn pending_snapshots(report: &RunReport) -> String {
    let pending = report
        .executions
        .iter()
        .filter(|e| e.snapshot.as_ref().is_some_and(|s| s.pending))
        .count();
    match pending {
        0 => String::new(),
        1 => "skillgym: 1 snapshot value pending review: run `cargo skillgym review`\n".to_owned(),
        n => format!("skillgym: {n} snapshot values pending review: run `cargo skillgym review`\n"),
    }
}

/// A runner row's agent, as the console table and the HTML page show it: the agent type, its
/// version (several, comma-separated, when merged runs used different ones) and the model;
/// `-` for what is unknown.
pub(super) fn agent_cells(row: &RunnerRow) -> [String; 3] {
    let known = |text: &str| {
        if text.is_empty() {
            "-".to_owned()
        } else {
            text.to_owned()
        }
    };
    [
        known(&row.agent),
        known(&row.versions.join(", ")),
        known(row.model.as_deref().unwrap_or_default()),
    ]
}

/// A runner row's figures, as the console table and the HTML page show them: passed, failed
/// (unexpected passes and interruptions included), expected-failed, flaky, skipped, input,
/// output, reasoning, cache and uncached tokens, cost, mean time; `-` for a missing figure.
pub(super) fn row_cells(row: &RunnerRow) -> [String; 12] {
    let c = &row.counts;
    let tokens = |n: Option<u64>| n.map_or_else(|| "-".to_owned(), thousands);
    [
        c.passed.to_string(),
        (c.failed + c.unexpected_passed + c.interrupted).to_string(),
        c.expected_failed.to_string(),
        row.flaky.to_string(),
        c.skipped.to_string(),
        tokens(row.input_tokens),
        tokens(row.output_tokens),
        tokens(row.reasoning_tokens),
        tokens(row.cache_tokens),
        tokens(row.total_tokens),
        crate::figures::usd_marked(row.cost_usd, row.cost_estimated),
        row.mean_duration_ms.map_or_else(|| "-".to_owned(), rounded),
    ]
}

/// What the `uncached` column is, said under the table: the figure is smaller than `input`
/// whenever the agent read its prompt from the cache, which is no mistake.
pub(crate) const UNCACHED_DEFINED: &str = "uncached = input + output + reasoning - cache (input counts the cached tokens, so uncached is below input when the cache served the prompt)";

/// The table's leading columns that hold text (runner, agent, version, model): aligned left;
/// the figures after them are aligned right.
const TEXT_COLUMNS: usize = 4;

/// The per-runner table, columns aligned; `-` where no attempt reported a figure.
pub(crate) fn table(rows: &[RunnerRow]) -> String {
    let header = [
        "runner",
        "agent",
        "version",
        "model",
        "passed",
        "failed",
        "xfail",
        "flaky",
        "skipped",
        "input",
        "output",
        "reasoning",
        "cache",
        "uncached",
        "cost",
        "mean time",
    ];
    let mut lines: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    for row in rows {
        lines.push(
            std::iter::once(row.runner.clone())
                .chain(agent_cells(row))
                .chain(row_cells(row))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for line in &lines {
        let mut out = String::from("skillgym: ");
        for (i, cell) in line.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            } else if i < TEXT_COLUMNS {
                out.push_str("  ");
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str("  ");
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            }
        }
        text.push_str(out.trim_end());
        text.push('\n');
    }
    if rows.iter().any(|row| row.total_tokens.is_some()) {
        text.push_str(&format!("skillgym: {UNCACHED_DEFINED}\n"));
    }
    if rows.iter().any(|row| row.cost_estimated) {
        text.push_str(&format!(
            "skillgym: ~ marks {}\n",
            crate::figures::ESTIMATED
        ));
    }
    text
}

/// What a dry run's figures are, said before them: `skillgym: dry run (--mock): ...`; or
/// which merged runs were dry.
fn dry_run_line(report: &RunReport) -> String {
    if report.is_dry_run() {
        return "skillgym: dry run (--mock): the agents talked to skillgym's scripted model; its tokens and costs below are the script's inventions, not a model's\n".to_owned();
    }
    if report.dry_runs.is_empty() {
        return String::new();
    }
    format!(
        "skillgym: merged with dry runs (--mock: invented tokens and costs): {}\n",
        report.dry_runs.join(", ")
    )
}

/// Failed executions grouped by failure class (in order of first appearance).
fn failures_by_class(report: &RunReport) -> String {
    let failed: Vec<_> = report
        .executions
        .iter()
        .filter(|e| !e.passed && e.status != Status::Skipped)
        .collect();
    let mut classes: Vec<(String, String)> = Vec::new();
    for execution in &failed {
        let class = execution
            .failure
            .as_ref()
            .map(|f| {
                let label = f.class.label.clone().unwrap_or_else(|| f.class.id.clone());
                (f.class.id.clone(), label)
            })
            .unwrap_or_else(|| ("unknown".to_owned(), "Unknown".to_owned()));
        if !classes.contains(&class) {
            classes.push(class);
        }
    }
    let user_dir = user_dir();
    let mut text = String::new();
    for (id, label) in classes {
        let members: Vec<_> = failed
            .iter()
            .filter(|e| {
                e.failure
                    .as_ref()
                    .map_or("unknown", |f| f.class.id.as_str())
                    == id
            })
            .collect();
        let _ = writeln!(text, "skillgym: {label} ({id}): {}", members.len());
        for execution in members {
            let message = execution
                .failure
                .as_ref()
                .and_then(|f| f.message.lines().next())
                .unwrap_or("no message");
            let location = execution
                .failure
                .as_ref()
                .and_then(|f| f.location.as_ref())
                .map(|l| l.to_string())
                .unwrap_or_else(|| execution.source.clone());
            let _ = writeln!(
                text,
                "skillgym:   {}: {message}\nskillgym:     at {location} · {}",
                execution.trial_name(),
                execution.artifact_dir.display()
            );
            for kept in execution.kept_workspaces() {
                let _ = writeln!(text, "skillgym:     workspace kept: {}", kept.display());
            }
            if let Some(hint) = hint(execution, user_dir.as_deref()) {
                let _ = writeln!(text, "skillgym:     ask the agent why: {hint}");
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_snapshot_values_are_counted_and_a_snapshot_failure_is_grouped() {
        use crate::report::fixtures::execution;
        use serde_json::json;

        let pending = json!({"snapshot": {"key": "a::r", "metric": "total_tokens",
                             "value": 10.0, "verdict": "missing", "pending": true}});
        let report = |executions| RunReport::new(Vec::new(), Vec::new(), executions);
        assert_eq!(
            pending_snapshots(&report(vec![execution("b", "r", json!({}))])),
            ""
        );
        let one = report(vec![execution("a", "r", pending.clone())]);
        assert_eq!(
            pending_snapshots(&one),
            "skillgym: 1 snapshot value pending review: run `cargo skillgym review`\n"
        );
        let failed = execution(
            "c",
            "r",
            json!({"status": "failed", "passed": false, "failure": {
                "origin": "snapshot", "class": {"id": "snapshot", "label": "Snapshot verification"},
                "message": "snapshot `c::r`: total_tokens 2 is above the allowed 1 (baseline 1, +1, +100.0%)\n  tolerance: ±0"},
                "snapshot": {"key": "c::r", "metric": "total_tokens", "value": 2.0,
                             "verdict": "exceeded", "pending": true}}),
        );
        let noted = execution(
            "d",
            "r",
            json!({"snapshot": {"key": "d::r", "metric": "total_tokens", "value": 10.0,
                                "verdict": "passed", "baseline_version": "2.1.300"}}),
        );
        let text = summary(&report(vec![execution("a", "r", pending), failed, noted]));
        assert!(
            text.contains("skillgym: snapshot `d::r`: note: the baseline was recorded with version 2.1.300 of the agent; this run used 2.1.330\n"),
            "{text}"
        );
        assert!(
            text.contains("skillgym: Snapshot verification (snapshot): 1\nskillgym:   [r] c: snapshot `c::r`: total_tokens 2 is above the allowed 1 (baseline 1, +1, +100.0%)\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "skillgym: 2 snapshot values pending review: run `cargo skillgym review`\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_table_aligns_its_columns_and_marks_missing_figures() {
        let mut claude = RunnerRow {
            runner: "claude".into(),
            agent: "claude-code".into(),
            versions: vec!["2.1.330".into(), "2.1.332".into()],
            model: Some("claude-sonnet-4-6".into()),
            flaky: 1,
            input_tokens: Some(12_000),
            output_tokens: Some(800),
            total_tokens: Some(12_800),
            cost_usd: Some(0.0123),
            mean_duration_ms: Some(61_000),
            ..RunnerRow::default()
        };
        claude.counts.passed = 3;
        claude.counts.failed = 1;
        let mut local = RunnerRow {
            runner: "local".into(),
            agent: "command".into(),
            ..RunnerRow::default()
        };
        local.counts.skipped = 2;
        assert_eq!(
            table(&[claude, local]),
            "\
skillgym: runner  agent        version           model              passed  failed  xfail  flaky  skipped   input  output  reasoning  cache  uncached     cost  mean time
skillgym: claude  claude-code  2.1.330, 2.1.332  claude-sonnet-4-6       3       1      0      1        0  12,000     800          -      -    12,800  $0.0123      1m 1s
skillgym: local   command      -                 -                       0       0      0      0        2       -       -          -      -         -        -          -
skillgym: uncached = input + output + reasoning - cache (input counts the cached tokens, so uncached is below input when the cache served the prompt)
"
        );
    }

    #[test]
    fn an_estimated_cost_is_marked_and_explained_under_the_table() {
        let row = |runner: &str, estimated: bool| RunnerRow {
            runner: runner.into(),
            agent: "codex".into(),
            cost_usd: Some(0.146855),
            cost_estimated: estimated,
            ..RunnerRow::default()
        };
        let table = table(&[row("codex", true), row("reported", false)]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[1].ends_with("~$0.1469          -"), "{table}");
        assert!(lines[2].ends_with(" $0.1469          -"), "{table}");
        assert_eq!(
            lines[3],
            "skillgym: ~ marks a cost estimated from token counts at list prices (the agent reported none; `pricing:` in skillgym.yaml sets them)"
        );
        assert_eq!(lines.len(), 4);
        assert!(
            !super::table(&[row("reported", false)]).contains("~"),
            "no estimate, no note"
        );
    }
}
