//! The `json` and `json-summary` reporters.
//!
//! | reporter | file | holds |
//! |---|---|---|
//! | `json` | `results.json` | the run ids and times, the counts, every execution with every repetition and attempt (failures with their assertion parts, graders with their evidence, usage, artifact paths), the `experiment` when cases ran under variants, the `triggers` figures when trigger prompts ran — the same document an in-process run writes |
//! | `json-summary` | `summary.json` | the run ids and times, the counts, the per-runner rows (each with its agent, the agent's versions and the model), and per execution its agent, status, source, pass rate, mean duration and usage, its failure's origin, class and first line, and each repetition's status, attempts, duration and tokens (no per-attempt detail, no events); its variant, the `experiment` when cases ran under variants, and the `triggers` figures (per skill × runner: counts, recall, precision and F1 with intervals, misfires, near misses, tokens and cost per session) when trigger prompts ran |

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::stream::{json_with_array, write_atomically};
use super::{Reporter, RunReport};

/// `json`: everything, as `results.json`.
#[derive(Debug)]
pub(crate) struct Full;

impl Reporter for Full {
    fn name(&self) -> &str {
        "json"
    }

    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let path = dir.join("results.json");
        let head = Head::of(report, None);
        // Each execution serialized from the report as it is written: no copy of them all.
        write_document(&path, head, report.executions.iter())?;
        Ok(vec![path])
    }
}

/// `json-summary`: the figures without per-attempt detail, as `summary.json`.
#[derive(Debug)]
pub(crate) struct Summary;

impl Reporter for Summary {
    fn name(&self) -> &str {
        "json-summary"
    }

    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let path = dir.join("summary.json");
        let rows = report.executions.iter().map(summary_row);
        write_document(&path, summary_head(report), rows)?;
        Ok(vec![path])
    }
}

/// Executions up to which a document is written whole, as every JSON artifact is (pretty when
/// its compact form is at most `PRETTY_LIMIT`, 16 KB); past them its compact form is longer
/// anyway (an execution, even `summary.json`'s, is over 256 bytes), and it is streamed.
const WHOLE: usize = 64;

/// Writes `head` with `"executions": [items...]` to `path`: whole when there are at most
/// [`WHOLE`], else streamed one execution at a time.
fn write_document<T: serde::Serialize>(
    path: &Path,
    head: Head<'_>,
    items: impl ExactSizeIterator<Item = T>,
) -> io::Result<()> {
    if items.len() <= WHOLE {
        #[derive(serde::Serialize)]
        struct Document<'a, T> {
            #[serde(flatten)]
            head: Head<'a>,
            executions: Vec<T>,
        }
        let executions = items.collect();
        crate::artifacts::write_json(path, &Document { head, executions })
    } else {
        write_atomically(path, |out| json_with_array(out, &head, "executions", items))
    }
}

/// The `summary.json` document.
pub(crate) fn summary(report: &RunReport) -> Value {
    let mut document = serde_json::to_value(summary_head(report)).expect("the head serializes");
    document["executions"] = report.executions.iter().map(summary_row).collect();
    document
}

/// One execution's entry of `summary.json`.
fn summary_row(e: &crate::results::ExecutionResult) -> Value {
    let mut row = json!({
        "case_id": e.case_id,
        "runner_id": e.runner_id,
        "agent": e.agent,
        "source": e.source,
        "status": e.status,
        "passed": e.passed,
        "flaky": e.flaky,
        "repeat_target": e.repeat_target,
        "completed_repetitions": e.completed_repetitions,
        "successful_repetitions": e.successful_repetitions,
        "pass_rate": e.attempts.pass_rate,
        "pass_rate_95": e.attempts.pass_rate_95,
        "duration_ms": e.duration_ms,
        "usage": e.usage,
        "failure": e.failure.as_ref().map(|f| json!({
            "origin": f.origin,
            "class": f.class.id,
            "message": f.message.lines().next().unwrap_or_default(),
        })),
        "repetitions": e.repetitions.iter().map(|r| json!({
            "repetition": r.repetition,
            "status": r.status,
            "attempts": r.attempts.len(),
            "duration_ms": r.final_attempt().map(|a| a.duration_ms),
            "total_tokens": r.final_attempt()
                .and_then(|a| a.usage.total_tokens)
                .map(|t| t.value),
        })).collect::<Vec<_>>(),
    });
    if let Some(variant) = &e.variant {
        row["variant"] = json!(variant);
        row["baseline"] = json!(e.baseline);
    }
    row
}

/// `summary.json` without its executions.
fn summary_head(report: &RunReport) -> Head<'_> {
    Head::of(report, Some(report.runner_rows()))
}

/// The members of `results.json` and `summary.json` before their executions, serialized from
/// the report (a `Value` of the experiment of 100,000 executions would weigh more than it).
#[derive(serde::Serialize)]
struct Head<'a> {
    run_ids: &'a [String],
    started_at: &'a Option<String>,
    ended_at: &'a Option<String>,
    summary: crate::results::Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    runners: Option<Vec<super::RunnerRow>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    experiment: Option<&'a crate::results::Experiment>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    triggers: &'a [crate::results::TriggerScore],
    /// Every run was a dry run (`--mock`: invented tokens and costs).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    /// The ids of the runs that were dry runs, when only some were.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    dry_runs: &'a [String],
}

impl<'a> Head<'a> {
    fn of(report: &'a RunReport, runners: Option<Vec<super::RunnerRow>>) -> Head<'a> {
        let dry_run = report.is_dry_run();
        Head {
            run_ids: &report.run_ids,
            started_at: &report.started_at,
            ended_at: &report.ended_at,
            summary: report.counts(),
            runners,
            experiment: report.experiment.as_ref(),
            triggers: &report.triggers,
            dry_run,
            dry_runs: if dry_run { &[] } else { &report.dry_runs },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    fn keys(value: &Value) -> Vec<&str> {
        let mut keys: Vec<&str> = value
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn the_summary_keeps_repetitions_but_no_attempt_detail() {
        let report = fixtures::sample();
        let document = summary(&report);
        assert_eq!(
            keys(&document),
            [
                "ended_at",
                "executions",
                "run_ids",
                "runners",
                "started_at",
                "summary"
            ]
        );
        let failed = document["executions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["status"] == "failed")
            .expect("the sample has a failed execution");
        assert_eq!(
            failed["agent"],
            json!({"type": "claude-code", "model": "claude-sonnet-4-6", "version": "2.1.330"})
        );
        assert_eq!(
            document["runners"][0]["versions"],
            json!(["2.1.330"]),
            "{}",
            document["runners"]
        );
        assert_eq!(
            keys(failed),
            [
                "agent",
                "case_id",
                "completed_repetitions",
                "duration_ms",
                "failure",
                "flaky",
                "pass_rate",
                "pass_rate_95",
                "passed",
                "repeat_target",
                "repetitions",
                "runner_id",
                "source",
                "status",
                "successful_repetitions",
                "usage",
            ]
        );
        assert_eq!(keys(&failed["failure"]), ["class", "message", "origin"]);
        assert_eq!(
            failed["failure"]["message"], "expected \"a & b\" <got> 'c'",
            "the first line only"
        );
        assert_eq!(
            keys(&failed["repetitions"][0]),
            [
                "attempts",
                "duration_ms",
                "repetition",
                "status",
                "total_tokens"
            ]
        );
        assert!(
            !document.to_string().contains("artifact_dir"),
            "no per-attempt detail"
        );
    }

    #[test]
    fn the_full_document_is_results_json() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Full.write(&fixtures::sample(), dir.path()).unwrap();
        assert_eq!(paths, [dir.path().join("results.json")]);
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&paths[0]).unwrap()).unwrap();
        assert_eq!(
            keys(&written),
            ["ended_at", "executions", "run_ids", "started_at", "summary"]
        );
        assert_eq!(
            written["executions"][1]["repetitions"][0]["attempts"][0]["artifact_dir"],
            "/runs/r1/greets/hasty/repeat-1/attempt-1"
        );
    }

    #[test]
    fn a_big_run_is_streamed_compact_into_the_same_documents() {
        let executions: Vec<_> = (0..WHOLE + 1)
            .map(|n| fixtures::execution(&format!("c{n:03}"), "r", serde_json::json!({})))
            .collect();
        let report = RunReport::new(vec!["r1".into()], vec!["/runs/r1".into()], executions);
        let dir = tempfile::tempdir().unwrap();
        let full = Full.write(&report, dir.path()).unwrap();
        let text = std::fs::read_to_string(&full[0]).unwrap();
        assert_eq!(text.lines().count(), 1, "compact");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["executions"],
            serde_json::to_value(&report.executions).unwrap()
        );
        assert_eq!(value["summary"]["executions"], WHOLE + 1);
        let written = Summary.write(&report, dir.path()).unwrap();
        let streamed: Value =
            serde_json::from_str(&std::fs::read_to_string(&written[0]).unwrap()).unwrap();
        assert_eq!(
            streamed,
            summary(&report),
            "the streamed summary is the document"
        );
    }
}
