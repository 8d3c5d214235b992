//! `cargo skillgym report` through the binary over a run directory laid out as the harness lays
//! it out: a case whose id is a name the run directory uses for itself (`suites`, beside the
//! suites' hook records) is reported like any other.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use skillgym_harness::replay::recording::execution_dir;

/// A committed execution result, the template of the ones this test writes.
const TEMPLATE: &str = "../examples/agents/recording/answers_in_one_line/codex/result.json";

/// Writes the result of `case` on `runner` where the harness puts it, passed or failed.
fn execution(run: &Path, case: &str, runner: &str, passed: bool) {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join(TEMPLATE);
    let mut result: Value =
        serde_json::from_str(&std::fs::read_to_string(template).unwrap()).unwrap();
    let dir = execution_dir(run, case, runner);
    result["case_id"] = json!(case);
    result["runner_id"] = json!(runner);
    result["artifact_dir"] = json!(dir);
    if !passed {
        result["status"] = json!("failed");
        result["passed"] = json!(false);
        result["failure"] = json!({
            "origin": "runner",
            "class": { "id": "agent-crashed" },
            "message": "the agent crashed",
        });
    }
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("result.json"), result.to_string()).unwrap();
}

#[test]
fn a_failed_case_named_like_the_run_s_own_entries_is_reported_failed() {
    let tmp = tempfile::Builder::new()
        .prefix("report-layout-")
        .disable_cleanup(true)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let run = tmp.path().join("run");
    execution(&run, "passes", "crash", true);
    // Every name a run directory uses for itself at the top, as a failed case id.
    let names = [
        "suites",
        "workspaces",
        "latest",
        "explain",
        "results::json",
        "run::json",
    ];
    for case in names {
        execution(&run, case, "crash", false);
    }
    // The run's own entries beside them: the suites' hook records, a workspace.
    std::fs::create_dir_all(run.join("suites/showcase")).unwrap();
    std::fs::write(run.join("suites/showcase/before_all.json"), "{}").unwrap();
    std::fs::create_dir_all(run.join("workspaces/shared")).unwrap();

    let output = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "report", "--reporter", "json"])
        .arg(&run)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let context = format!(
        "exit {:?}\n--- stdout ---\n{stdout}--- stderr ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(1), "{context}");
    let counts = format!(
        "skillgym: {} executions: 1 passed, {} failed,",
        names.len() + 1,
        names.len()
    );
    assert!(stdout.contains(&counts), "{context}");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    for case in names {
        let found = results["executions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|execution| execution["case_id"] == case);
        assert_eq!(
            found.map(|execution| execution["status"].clone()),
            Some(json!("failed")),
            "{case}: {context}"
        );
    }
    tmp.close().unwrap();
}

/// `run.json` of a run made with or without `--mock`.
fn run_record(run: &Path, mock: bool) {
    let record = json!({
        "executable": "/bin/true", "crate_dir": "/", "mock": mock,
        "created_at": "2026-11-27T09:00:00Z",
    });
    std::fs::write(run.join("run.json"), record.to_string()).unwrap();
}

#[test]
fn dry_runs_say_so_and_are_not_merged_with_live_ones_unless_told() {
    let tmp = tempfile::Builder::new()
        .prefix("report-dry-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let (dry, live) = (tmp.path().join("dry"), tmp.path().join("live"));
    execution(&dry, "a", "claude", true);
    run_record(&dry, true);
    execution(&live, "b", "claude", true);
    run_record(&live, false);
    let report = |args: &[&Path], extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
            .args(["skillgym", "report", "--reporter", "json,junit,html"])
            .args(args)
            .args(extra)
            .output()
            .unwrap()
    };
    let output = report(&[&dry], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("skillgym: dry run (--mock): the agents talked to skillgym's scripted model; its tokens and costs below are the script's inventions"),
        "{stdout}"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dry.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["dry_run"], true);
    let junit = std::fs::read_to_string(dry.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<property name=\"dry_run\" value=\"true\"/>"),
        "{junit}"
    );
    let html = std::fs::read_to_string(dry.join("report.html")).unwrap();
    assert!(
        html.contains("<span class=\"badge s-skipped\">dry run</span>"),
        "dry run badge"
    );

    let out = tmp.path().join("merged");
    let out_arg = out.display().to_string();
    let output = report(&[&dry, &live], &["--out", &out_arg]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ran against the scripted model (`--mock`: dry runs")
            && stderr.contains("against real models"),
        "{stderr}"
    );
    let output = report(&[&dry, &live], &["--out", &out_arg, "--mix-dry-runs"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout
            .starts_with("skillgym: merged with dry runs (--mock: invented tokens and costs): dry"),
        "{stdout}"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["dry_runs"], json!(["dry"]));
}
