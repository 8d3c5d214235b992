//! `cargo skillgym report` over `result.json` files whose figures sit at the edge of their
//! types (durations and tokens of `u64::MAX`, costs near `f64::MAX`, a negative cost): the sums
//! and means saturate, the table is printed, every reporter writes its file, and the exit code
//! follows the verdicts.

use std::path::Path;
use std::process::{Command, Output};

/// `u64::MAX`, as the console table groups it.
const SATURATED: &str = "18,446,744,073,709,551,615";

/// An attempt's `result.json` object with extreme figures.
fn attempt(dir: &Path, repetition: u32, status: &str, cost: &str) -> String {
    let max = u64::MAX;
    let tokens = |name: &str| format!(r#""{name}": {{"value": {max}, "source": "provider"}}"#);
    format!(
        r#"{{"repetition": {repetition}, "attempt": 1, "status": "{status}", "passed": {passed},
            "duration_ms": {max},
            "usage": {{{}, {}, {}, {}, {}, "cost_usd": {cost},
                       "input_chars": {max}, "output_chars": {max}, "reasoning_chars": {max}}},
            "steps": 4294967295, "artifact_dir": "{}"}}"#,
        tokens("input_tokens"),
        tokens("output_tokens"),
        tokens("reasoning_tokens"),
        tokens("cache_tokens"),
        tokens("total_tokens"),
        dir.join(format!("repeat-{repetition}/attempt-1")).display(),
        passed = status == "passed",
    )
}

/// Writes `<run>/<case>/r/result.json`: an execution of two attempts with extreme figures.
fn execution(run: &Path, case: &str, status: &str) {
    let dir = run.join(case).join("r");
    std::fs::create_dir_all(&dir).unwrap();
    let max = u64::MAX;
    let passed = status == "passed";
    let failure = if passed {
        String::new()
    } else {
        r#""failure": {"origin": "assertion", "class": {"id": "assertion"}, "message": "no"},"#
            .to_owned()
    };
    let text = format!(
        r#"{{"case_id": "{case}", "runner_id": "r", "source": "tests/b.rs:1", "status": "{status}",
            "passed": {passed}, "expected_fail": false, {failure}
            "repeat_target": 2, "repeat_failure": 0, "completed_repetitions": 2,
            "successful_repetitions": 2, "failed_repetitions": 0, "flaky": false,
            "attempts": {{"total": 2, "passing": 2, "pass_rate": 1.7976931348623157e308,
                          "pass_rate_95": {{"low": -1e308, "high": 1e308}}}},
            "duration_ms": {max},
            "usage": {{"total_tokens": {{"value": {max}, "source": "provider"}},
                       "cost_usd": 1.7976931348623157e308,
                       "input_chars": 0, "output_chars": 0, "reasoning_chars": 0}},
            "snapshot": {{"key": "{case}::r", "metric": "total_tokens", "value": 1.8446744073709552e19,
                          "baseline": 1.7976931348623157e308,
                          "allowed": {{"low": 0, "high": 1.7976931348623157e308}},
                          "verdict": "improved", "pending": true}},
            "artifact_dir": "{}",
            "repetitions": [
                {{"repetition": 1, "status": "passed", "passed": true,
                  "attempts": [{}]}},
                {{"repetition": 2, "status": "{status}", "passed": {passed},
                  "attempts": [{}]}}]}}"#,
        dir.display(),
        attempt(&dir, 1, "passed", "1.7976931348623157e308"),
        attempt(&dir, 2, status, "-5"),
    );
    std::fs::write(dir.join("result.json"), text).unwrap();
}

fn report(run_dir: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "report"])
        .arg(run_dir)
        .args([
            "--reporter",
            "json,json-summary,junit,github-actions,html",
            "--out",
        ])
        .arg(out)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("cargo-skillgym runs")
}

fn context(output: &Output) -> String {
    format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The report printed its table with saturated sums and wrote every reporter's file.
fn assert_reported(output: &Output, out: &Path) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{}", context(output));
    let row = stdout
        .lines()
        .find(|line| line.starts_with("skillgym: r "))
        .unwrap_or_else(|| panic!("no table row for runner r:\n{}", context(output)));
    // Every token column sums four attempts of u64::MAX; the cost sums the positive ones,
    // capped; the mean time is u64::MAX milliseconds.
    assert_eq!(row.matches(SATURATED).count(), 5, "{row}");
    assert!(row.contains("$1000000000000000.0000"), "{row}");
    assert!(row.ends_with("307445734561825m 51s"), "{row}");
    for file in [
        "results.json",
        "summary.json",
        "junit.xml",
        "github-actions.txt",
        "report.html",
    ] {
        let path = out.join(file);
        assert!(
            stdout.contains(&format!("{}", path.display())),
            "{file}\n{}",
            context(output)
        );
        let text = std::fs::read_to_string(&path).unwrap();
        for odd in ["$inf", "inf%", "NaN"] {
            assert!(!text.contains(odd), "{file}: {odd}");
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains(&format!("\"input_tokens\": {}", u64::MAX)),
        "{summary}"
    );
    assert!(
        summary.contains("\"cost_usd\": 1000000000000000.0"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("\"mean_duration_ms\": {}", u64::MAX)),
        "{summary}"
    );
}

#[test]
fn extreme_figures_are_reported_and_the_exit_code_follows_the_verdicts() {
    let dir = tempfile::Builder::new()
        .prefix("skillgym-report-figures-")
        .tempdir()
        .unwrap();
    let passing = dir.path().join("passing");
    execution(&passing, "a", "passed");
    execution(&passing, "b", "passed");
    let out = dir.path().join("out-passing");
    let output = report(&passing, &out);
    assert_reported(&output, &out);
    assert_eq!(output.status.code(), Some(0), "{}", context(&output));

    let failing = dir.path().join("failing");
    execution(&failing, "a", "passed");
    execution(&failing, "b", "failed");
    let out = dir.path().join("out-failing");
    let output = report(&failing, &out);
    assert_reported(&output, &out);
    assert_eq!(output.status.code(), Some(1), "{}", context(&output));
}
