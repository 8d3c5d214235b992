//! `--mock` dry runs through the whole harness: each case's script (else the run's, else the
//! answer `done`) played by a scripted server the runner is pointed at, every request logged
//! into the attempt's artifacts, runners without an endpoint setting skipped, and a broken
//! script stopping the run before any agent starts (but never `--list`); the run says it was
//! a dry run (`results.json`, the console).

use serde_json::Value;

use super::Check;
use crate::{Run, Spec, read_json};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "dry_run::case_scripts_play_and_their_requests_are_logged",
        case_scripts,
    ),
    (
        "dry_run::cases_without_a_script_get_the_runs_or_the_default_answer",
        run_script,
    ),
    (
        "dry_run::agents_without_an_endpoint_setting_are_skipped",
        endpointless_runner_skipped,
    ),
    (
        "dry_run::a_broken_script_stops_the_run_before_any_agent_but_not_list",
        broken_script,
    ),
];

fn report(run: &Run, case: &str, runner: &str) -> Value {
    read_json(
        &run.execution_dir(case, runner)
            .join("repeat-1/attempt-1/report.json"),
    )
}

fn case_scripts() {
    let run = Run::new(
        "dry-run",
        Spec {
            args: &["--mock", "--runner", "a", "cases::dry_run::"],
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    // The run says it was a dry run wherever its figures are read.
    assert_eq!(run.results()["dry_run"], true);
    assert!(
        run.stdout()
            .contains("skillgym: dry run (--mock): the agents talked to skillgym's scripted model"),
        "{}",
        run.stdout()
    );
    let report = report(&run, "dry_run::case_script", "a");
    assert_eq!(report["final_output"], "scripted hello", "{report:#}");
    let commands: Vec<&Value> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["type"] == "command")
        .collect();
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0]["command"], "echo hi");
    assert!(report["usage"]["input_tokens"]["value"].as_u64().unwrap() > 0);

    let log = report["raw_artifacts"]["model_requests"]
        .as_str()
        .unwrap_or_else(|| panic!("the report names the request log: {report:#}"));
    let text = std::fs::read_to_string(log).unwrap();
    let requests: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(requests.len(), 1, "{text}");
    assert_eq!(requests[0]["api"], "openai-chat");
    assert_eq!(requests[0]["headers"]["Authorization"], "[masked]");
    assert_eq!(requests[0]["reply"]["tool_call"]["name"], "bash");
    assert_eq!(requests[0]["body"]["messages"][0]["content"], "chat");

    assert_eq!(
        report_output(&run, "dry_run::run_script"),
        "done",
        "no script anywhere: the default answer"
    );
}

fn report_output(run: &Run, case: &str) -> String {
    report(run, case, "a")["final_output"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn run_script() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/execution/scripts/run.yaml"
    );
    let run = Run::new(
        "dry-run-script",
        Spec {
            args: &["--runner", "a", "cases::dry_run::"],
            env: &[("SKILLGYM_MOCK_SCRIPT", script)],
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    assert_eq!(
        report_output(&run, "dry_run::run_script"),
        "from the run's script",
        "SKILLGYM_MOCK_SCRIPT implies --mock"
    );
    assert_eq!(
        report_output(&run, "dry_run::case_script"),
        "scripted hello",
        "a case's own script wins"
    );
}

fn endpointless_runner_skipped() {
    let run = Run::new(
        "dry-run-cursor",
        Spec {
            args: &["--mock", "--runner", "cur", "cases::dry_run::case_script"],
            config: "runners:\n  cur: { agent: { type: cursor-agent, model: m, command: /bin/false } }\n",
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    assert_eq!(
        run.trials(),
        [
            "[cur] cases::dry_run::case_script ignored (runner `cur` (cursor-agent) cannot be pointed at the scripted model server: its CLI has no endpoint setting; skipped in a --mock run)"
        ]
    );
    let result = run.execution("dry_run::case_script", "cur");
    assert_eq!(result["status"], "skipped");
    assert_eq!(result["failure"]["origin"], "runner");
    let message = result["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot be pointed at the scripted model server"),
        "{message}"
    );
}

fn broken_script() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/execution/scripts/broken.yaml"
    );
    let run = Run::new(
        "dry-run-broken",
        Spec {
            args: &["--mock-script", script, "--runner", "a", "cases::dry_run::"],
            ..Spec::default()
        },
    );
    let stderr: String = run.context();
    assert_eq!(run.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{script}:2:3: unknown value `sya`")),
        "{stderr}"
    );
    assert!(!run.run_dir().exists(), "no agent ran, nothing was written");

    let listed = Run::new(
        "dry-run-list",
        Spec {
            args: &["--mock-script", script, "--list", "cases::dry_run::"],
            ..Spec::default()
        },
    );
    assert_eq!(listed.code(), Some(0), "{}", listed.context());
    assert!(listed.stdout().contains("cases::dry_run::case_script"));
}
