//! Token, cost and duration figures at the edge of their types: sums and means saturate, and
//! the run still prints its table, writes every reporter's file and exits by its verdicts.

use super::Check;
use crate::{Run, Spec, read_json};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "figures::sums_past_u64_max_saturate_and_every_report_is_written",
        sums_saturate,
    ),
    (
        "figures::a_repeat_failure_of_u32_max_runs_without_overflow",
        repeat_failure_max,
    ),
];

/// `u64::MAX`, as the console table groups it.
const SATURATED: &str = "18,446,744,073,709,551,615";

fn sums_saturate() {
    let run = Run::new(
        "figures",
        Spec {
            args: &[
                "--runner",
                "a",
                "--reporter",
                "json,json-summary,junit,github-actions,html",
                "cases::figures::",
            ],
            // Not the job summary of a workflow running this test.
            env: &[("GITHUB_STEP_SUMMARY", "")],
            ..Spec::default()
        },
    );
    let stdout = run.stdout();
    assert_eq!(run.code(), Some(0), "{}", run.context());
    assert!(
        !run.context().contains("panicked") && !run.context().contains("overflow"),
        "{}",
        run.context()
    );
    // The table: every token column of runner `a` is u64::MAX; the cost is the cap.
    let row = stdout
        .lines()
        .find(|line| line.starts_with("skillgym: a "))
        .unwrap_or_else(|| panic!("no table row for runner a:\n{}", run.context()));
    assert_eq!(row.matches(SATURATED).count(), 5, "{row}");
    assert!(row.contains("$1000000000000000.0000"), "{row}");
    assert!(
        stdout.contains("skillgym: 1 executions: 1 passed"),
        "{}",
        run.context()
    );
    let result = run.execution("figures::huge", "a");
    assert_eq!(result["status"], "passed");
    assert_eq!(result["usage"]["input_tokens"]["value"], u64::MAX - 1);
    // Every reporter wrote its file, and says so.
    let dir = run.run_dir();
    for (reporter, file) in [
        ("json", "results.json"),
        ("json-summary", "summary.json"),
        ("junit", "junit.xml"),
        ("github-actions", "github-actions.txt"),
        ("html", "report.html"),
    ] {
        let line = format!("skillgym: {reporter}: {}", dir.join(file).display());
        assert!(stdout.contains(&line), "{line}\n{}", run.context());
    }
    let summary = read_json(&dir.join("summary.json"));
    let runner = &summary["runners"][0];
    for figure in [
        "input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "cache_tokens",
        "total_tokens",
    ] {
        assert_eq!(runner[figure], u64::MAX, "{figure}: {runner}");
    }
    assert_eq!(runner["cost_usd"], 1e15, "{runner}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(SATURATED), "the HTML table has the sums");
    for text in [&stdout, &html] {
        assert!(!text.contains("$inf") && !text.contains("NaN"), "{text}");
    }
}

/// `--repeat-failure 4294967295` (as `run.repeat_failure` may also say): the attempts of a
/// repetition are counted without overflow, and a passing case runs once.
fn repeat_failure_max() {
    let run = Run::new(
        "figures-repeat-failure",
        Spec {
            args: &[
                "--runner",
                "a",
                "--repeat-failure",
                "4294967295",
                "cases::status::passes",
            ],
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    let result = run.execution("status::passes", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    assert_eq!(result["repeat_failure"], u32::MAX);
    assert_eq!(result["attempts"]["total"], 1);
}
