//! Repetitions and recovery retries (the seed's runner tests), and where `repeat` and
//! `repeat_failure` / `retry_failed` come from.

use std::path::Path;
use std::sync::OnceLock;

use super::{Check, attempts_per_repetition, number};
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    ("repeat::all_repetitions_pass", all_repetitions_pass),
    ("repeat::a_retry_recovers_a_repetition", a_retry_recovers),
    (
        "repeat::exhausted_retries_stop_the_execution_early",
        exhausted_retries_stop_early,
    ),
    (
        "repeat::results_json_holds_every_repetition_and_attempt",
        results_json_holds_everything,
    ),
    (
        "repeat::artifact_layout_is_repeat_n_attempt_m",
        artifact_layout,
    ),
    (
        "repeat::averages_use_only_final_repetition_outcomes",
        averages_use_final_outcomes,
    ),
    ("repeat::retry_failed_alias_in_the_macro", macro_alias),
    ("repeat::retry_failed_alias_on_the_command_line", cli_alias),
    ("repeat::retry_failed_alias_in_the_config", config_alias),
    ("repeat::flags_beat_cases_beat_the_config", precedence),
];

/// Every `repeat::` case on runner `a`, no config.
fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        Run::new(
            "repeat",
            Spec {
                args: &["--runner", "a", "cases::repeat::"],
                ..Spec::default()
            },
        )
    })
}

fn all_repetitions_pass() {
    let run = run();
    let result = run.execution("repeat::all_pass", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    assert_eq!(result["passed"], true);
    assert_eq!(result["repeat_target"], 3);
    assert_eq!(result["completed_repetitions"], 3);
    assert_eq!(result["successful_repetitions"], 3);
    assert_eq!(result["failed_repetitions"], 0);
    assert!(result.get("stopped_at_repetition").is_none());
    assert_eq!(result["flaky"], false);
    assert!(
        result.get("samples").is_none(),
        "a repeated execution is not sampled"
    );
    assert_eq!(attempts_per_repetition(&result), [1, 1, 1]);
    assert_eq!(result["attempts"]["total"], 3);
    assert_eq!(result["attempts"]["passing"], 3);
    assert_eq!(result["attempts"]["pass_rate"], 1.0);
    let low = result["attempts"]["pass_rate_95"]["low"].as_f64().unwrap();
    assert!(
        (low - 0.4385).abs() < 1e-3,
        "Wilson low bound for 3/3: {low}"
    );
    assert_eq!(result["usage"]["total_tokens"]["value"], 200);
    assert!(
        run.trials()
            .contains(&"[a] cases::repeat::all_pass ok".to_owned()),
        "{:?}",
        run.trials()
    );
    // Success stays compact: one line with the averages; a single attempt gets none.
    let stdout = run.stdout();
    let line = stdout
        .lines()
        .find(|line| line.starts_with("skillgym: [a] cases::repeat::all_pass:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.starts_with("skillgym: [a] cases::repeat::all_pass: 3/3 repetitions passed · avg ")
            && line.ends_with(" · avg 200 tokens"),
        "{line}"
    );
    assert!(
        !stdout.contains("skillgym: [a] cases::repeat::unset:"),
        "{stdout}"
    );
}

fn a_retry_recovers() {
    let run = run();
    let result = run.execution("repeat::recovers", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    assert_eq!(attempts_per_repetition(&result), [1, 2, 1]);
    assert_eq!(result["successful_repetitions"], 3);
    assert_eq!(result["flaky"], true);
    assert_eq!(result["attempts"]["total"], 4);
    assert_eq!(result["attempts"]["passing"], 3);
    assert_eq!(result["attempts"]["pass_rate"], 0.75);
    let discarded = &result["repetitions"][1]["attempts"][0];
    assert_eq!(discarded["status"], "failed");
    assert_eq!(discarded["failure"]["origin"], "assertion");
    assert_eq!(result["repetitions"][1]["attempts"][1]["status"], "passed");
    assert_eq!(result["repetitions"][1]["status"], "passed");
    // The compact summary names the flaky execution; no per-attempt dump.
    let stdout = run.stdout();
    assert!(
        stdout.contains("[a] cases::repeat::recovers: flaky, 3/3 repetitions passed after 1 retry"),
        "{stdout}"
    );
}

fn exhausted_retries_stop_early() {
    let run = run();
    let result = run.execution("repeat::exhausts", "a");
    assert_eq!(result["status"], "failed", "{}", run.context());
    assert_eq!(result["passed"], false);
    assert_eq!(result["repeat_target"], 4);
    assert_eq!(result["completed_repetitions"], 3);
    assert_eq!(result["successful_repetitions"], 2);
    assert_eq!(result["failed_repetitions"], 1);
    assert_eq!(result["stopped_at_repetition"], 3);
    assert_eq!(attempts_per_repetition(&result), [1, 1, 2]);
    // The terminal repetition's failure is the execution's.
    let terminal = &result["repetitions"][2]["attempts"][1];
    assert_eq!(result["failure"], terminal["failure"]);
    assert!(
        !run.execution_dir("repeat::exhausts", "a")
            .join("repeat-4")
            .exists(),
        "repetition 4 must not run"
    );
    // The fake agent ran exactly 4 sessions.
    let calls = std::fs::read_to_string(run.state("exhausts")).unwrap();
    assert_eq!(calls, "4");
    assert!(
        run.trials()
            .contains(&"[a] cases::repeat::exhausts FAILED".to_owned())
    );
    let stdout = run.stdout();
    assert!(
        stdout.contains("stopped at repetition 3/4 (2 passed)"),
        "{stdout}"
    );
    // Failure stays aggregate-only in the summary: no per-repetition details.
    let line = stdout
        .lines()
        .find(|line| line.starts_with("skillgym: [a] cases::repeat::exhausts:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        line,
        "skillgym: [a] cases::repeat::exhausts: failed at repetition 3/4 (2 passed, 4 attempts)"
    );
}

fn results_json_holds_everything() {
    let run = run();
    let results = run.results();
    let executions = results["executions"].as_array().unwrap();
    let ids: Vec<&str> = executions
        .iter()
        .map(|e| e["case_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "cases::repeat::all_pass",
            "cases::repeat::both_given",
            "cases::repeat::exhausts",
            "cases::repeat::legacy_alias",
            "cases::repeat::recovers",
            "cases::repeat::unset",
        ],
        "plan order"
    );
    let recovers = &executions[4];
    assert_eq!(*recovers, run.execution("repeat::recovers", "a"));
    let repetitions = recovers["repetitions"].as_array().unwrap();
    assert_eq!(repetitions.len(), 3);
    for (index, repetition) in repetitions.iter().enumerate() {
        assert_eq!(repetition["repetition"], index + 1);
        for (number, attempt) in repetition["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(attempt["repetition"], index + 1);
            assert_eq!(attempt["attempt"], number + 1);
            assert!(attempt["duration_ms"].is_u64() && attempt["usage"].is_object());
        }
    }
    assert_eq!(results["summary"]["passed"], 3, "{results:#}");
    assert_eq!(results["summary"]["failed"], 3, "{results:#}");
}

fn artifact_layout() {
    let run = run();
    let root = run.execution_dir("repeat::recovers", "a");
    let mut found = Vec::new();
    collect_files(&root, &root, &mut found);
    found.sort();
    let mut expected = vec!["result.json".to_owned()];
    for attempt in [
        "repeat-1/attempt-1",
        "repeat-2/attempt-1",
        "repeat-2/attempt-2",
        "repeat-3/attempt-1",
    ] {
        for file in [
            "prompt.md",
            "report.json",
            "result.json",
            "stdout.log",
            "workspace.json",
        ] {
            expected.push(format!("{attempt}/{file}"));
        }
    }
    expected.push("repeat-2/attempt-1/explain.json".to_owned());
    expected.sort();
    assert_eq!(found, expected);
    let attempt = crate::read_json(&root.join("repeat-2/attempt-2/result.json"));
    assert_eq!(attempt["repetition"], 2);
    assert_eq!(attempt["attempt"], 2);
    assert_eq!(
        attempt["artifact_dir"].as_str().unwrap(),
        root.join("repeat-2/attempt-2").to_str().unwrap()
    );
    let result = run.execution("repeat::recovers", "a");
    assert_eq!(
        result["artifact_dir"].as_str().unwrap(),
        root.to_str().unwrap()
    );
    // Each attempt kept its own logs: the discarded one printed "wrong".
    let discarded = std::fs::read_to_string(root.join("repeat-2/attempt-1/stdout.log")).unwrap();
    assert!(discarded.contains("\"wrong\""), "{discarded}");
}

fn collect_files(root: &Path, dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_files(root, &path, found);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            found.push(relative.to_string_lossy().into_owned());
        }
    }
}

fn averages_use_final_outcomes() {
    let run = run();
    let result = run.execution("repeat::recovers", "a");
    // Final outcomes used 100, 200 and 300 tokens; the discarded attempt used 90,000.
    assert_eq!(result["usage"]["total_tokens"]["value"], 200);
    assert_eq!(result["usage"]["total_tokens"]["source"], "provider");
    let discarded = number(&result["repetitions"][1]["attempts"][0]["duration_ms"]);
    assert!(
        discarded >= 1500,
        "the discarded attempt slept: {discarded}"
    );
    let finals: Vec<u64> = [(0, 0), (1, 1), (2, 0)]
        .iter()
        .map(|&(r, a)| number(&result["repetitions"][r]["attempts"][a]["duration_ms"]))
        .collect();
    let mean = (finals.iter().sum::<u64>() as f64 / 3.0).round() as u64;
    let average = number(&result["duration_ms"]);
    assert!(
        average.abs_diff(mean) <= 1,
        "duration_ms {average} is the mean of the final attempts {finals:?}"
    );
}

/// Runs `case` alone on runner `a` with extra flags, a config and environment.
fn run_case(case: &str, args: &[&str], config: &str, env: &[(&str, &str)]) -> Run {
    let filter = format!("cases::repeat::{case}");
    let mut all: Vec<&str> = vec!["--runner", "a", "--exact", &filter];
    all.extend(args);
    Run::new(
        "repeat-source",
        Spec {
            args: &all,
            config,
            env,
        },
    )
}

/// Asserts the case's attempt count (one repetition) and verdict.
fn expect_attempts(run: &Run, case: &str, attempts: usize, status: &str) {
    let result = run.execution(&format!("repeat::{case}"), "a");
    assert_eq!(
        attempts_per_repetition(&result),
        [attempts],
        "{}",
        run.context()
    );
    assert_eq!(result["status"], status);
}

fn macro_alias() {
    let run = run();
    // `retry_failed = 2`: sessions 1 and 2 fail, the third passes.
    expect_attempts(run, "legacy_alias", 3, "passed");
    assert_eq!(
        run.execution("repeat::legacy_alias", "a")["repeat_failure"],
        2
    );
    // `repeat_failure = 1` wins over `retry_failed = 3`.
    expect_attempts(run, "both_given", 2, "failed");
    assert_eq!(
        run.execution("repeat::both_given", "a")["repeat_failure"],
        1
    );
    // Nothing given: no retry.
    expect_attempts(run, "unset", 1, "failed");
}

fn cli_alias() {
    let run = run_case("unset", &["--retry-failed", "2"], "", &[]);
    expect_attempts(&run, "unset", 3, "passed");
    let run = run_case(
        "unset",
        &["--retry-failed", "3", "--repeat-failure", "1"],
        "",
        &[],
    );
    expect_attempts(&run, "unset", 2, "failed");
    let run = run_case("unset", &[], "", &[("SKILLGYM_RETRY_FAILED", "2")]);
    expect_attempts(&run, "unset", 3, "passed");
}

fn config_alias() {
    let run = run_case("unset", &[], "run:\n  retry_failed: 2\n", &[]);
    expect_attempts(&run, "unset", 3, "passed");
    let run = run_case("unset", &[], "run:\n  retryFailed: 2\n", &[]);
    expect_attempts(&run, "unset", 3, "passed");
    let run = run_case(
        "unset",
        &[],
        "run:\n  repeat_failure: 1\n  retry_failed: 3\n",
        &[],
    );
    expect_attempts(&run, "unset", 2, "failed");
}

fn precedence() {
    // The case's `retry_failed = 2` beats the config's 0 ...
    let run = run_case("legacy_alias", &[], "run:\n  repeat_failure: 0\n", &[]);
    expect_attempts(&run, "legacy_alias", 3, "passed");
    // ... and the flag beats the case.
    let run = run_case("legacy_alias", &["--repeat-failure", "0"], "", &[]);
    expect_attempts(&run, "legacy_alias", 1, "failed");
    // `repeat`: flag over case (`repeat = 3`), case over config.
    let run = run_case("all_pass", &["--repeat", "2"], "run:\n  repeat: 5\n", &[]);
    let result = run.execution("repeat::all_pass", "a");
    assert_eq!(result["repeat_target"], 2, "{}", run.context());
    assert_eq!(attempts_per_repetition(&result), [1, 1]);
    let run = run_case("all_pass", &[], "run:\n  repeat: 5\n", &[]);
    assert_eq!(run.execution("repeat::all_pass", "a")["repeat_target"], 3);
    let run = run_case(
        "unset",
        &[],
        "run:\n  repeat: 2\n  repeat_failure: 2\n",
        &[],
    );
    let result = run.execution("repeat::unset", "a");
    assert_eq!(result["repeat_target"], 2);
    assert_eq!(attempts_per_repetition(&result), [3, 1]);
}
