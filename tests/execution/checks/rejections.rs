//! A model the provider rejects: the first session fails with origin `model-rejected` (never
//! retried), and the runner's later executions are skipped with the reason, in one process and
//! across nextest's processes.

use serde_json::Value;

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "rejections::a_rejected_runner_is_skipped_for_the_rest_of_the_run",
        in_one_process,
    ),
    (
        "rejections::a_rejection_is_seen_by_later_nextest_processes",
        across_processes,
    ),
    (
        "rejections::a_runner_without_its_agent_program_is_skipped_and_the_others_run",
        missing_program,
    ),
];

/// A runner whose agent program is missing is skipped, with why, and the others run; with
/// `CI` set the run stops at the start instead, naming it.
fn missing_program() {
    let config = "runners:\n  gone: { agent: { type: claude-code, model: m, command: /nonexistent/claude } }\n";
    let args = [
        "--runner",
        "a",
        "--runner",
        "gone",
        "--exact",
        "cases::status::passes",
    ];
    let mut skipping = args.to_vec();
    skipping.push("--require-agents=false");
    let run = Run::new(
        "missing-program",
        Spec {
            args: &skipping,
            config,
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    assert_eq!(run.execution("status::passes", "a")["status"], "passed");
    let skipped = run.execution("status::passes", "gone");
    assert_eq!(skipped["status"], "skipped", "{skipped:#}");
    assert_eq!(
        skipped["failure"]["message"],
        "not run: runner `gone`: the agent program `/nonexistent/claude` is not an executable file"
    );
    let stopped = Run::new(
        "missing-program-ci",
        Spec {
            args: &args,
            config,
            env: &[("CI", "true")],
        },
    );
    assert_eq!(stopped.code(), Some(2), "{}", stopped.context());
    assert!(
        stopped
            .stderr()
            .contains("error: runner `gone`: the agent program `/nonexistent/claude` is not an executable file"),
        "{}",
        stopped.stderr()
    );
}

/// A `claude-code` runner whose program is the fake agent replaying the captured HTTP 400 run,
/// scheduled serially so the first case in plan order is the one that runs (under a parallel
/// schedule, sessions already started when the rejection is recorded still run and fail).
fn config() -> String {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/skillgym-harness/tests/fixtures/transcripts/claude-code.error-400.jsonl"
    );
    format!(
        r#"
run: {{ schedule: serial }}
runners:
  rej:
    agent:
      type: claude-code
      model: claude-nope-9
      command: {agent}
      env: {{ FAKE_AGENT_SCRIPT: "log sessions rej\nreplay {fixture}\nexit 1" }}
"#,
        agent = env!("CARGO_BIN_EXE_fake-agent"),
    )
}

const CASES: [&str; 4] = [
    "origin::assertion",
    "origin::assertion_expected",
    "origin::runner",
    "origin::runner_expected",
];

fn sessions(run: &Run) -> usize {
    std::fs::read_to_string(run.state("sessions"))
        .unwrap_or_default()
        .lines()
        .count()
}

fn check_rejected(run: &Run, case: &str) {
    let result = run.execution(case, "rej");
    let failure = &result["failure"];
    assert_eq!(result["status"], "failed", "{case}: {result:#}");
    assert_eq!(failure["origin"], "model-rejected", "{case}: {result:#}");
    assert_eq!(failure["class"]["id"], "model-rejected", "{case}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("the model provider rejected the request: status 400: ")
            && message.contains("mock: forced error 400"),
        "{message}"
    );
    assert!(message.contains("exited with code 1"), "{message}");
    assert_eq!(result["attempts"]["total"], 1, "never retried");
}

fn check_skipped(result: &Value, case: &str) {
    assert_eq!(result["status"], "skipped", "{case}: {result:#}");
    assert_eq!(result["failure"]["origin"], "model-rejected", "{case}");
    let message = result["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("not run: runner `rej` was rejected earlier in this run: the model provider rejected the request: status 400"),
        "{message}"
    );
    assert!(
        message.contains("(case `cases::origin::assertion`, repeat-1/attempt-1)"),
        "{message}"
    );
    assert_eq!(result["attempts"]["total"], 0, "{case}");
}

fn in_one_process() {
    let config = config();
    let args = [
        "--runner",
        "rej",
        "--repeat-failure",
        "2",
        "cases::origin::",
    ];
    let run = Run::new(
        "rejections",
        Spec {
            args: &args,
            config: &config,
            ..Spec::default()
        },
    );
    let context = run.context();
    assert_eq!(run.code(), Some(101), "{context}");
    assert_eq!(
        sessions(&run),
        1,
        "one session, no retry, nothing after it\n{context}"
    );
    check_rejected(&run, CASES[0]);
    for case in &CASES[1..] {
        check_skipped(&run.execution(case, "rej"), case);
    }
    let results = run.results();
    let executions = results["executions"].as_array().unwrap().len();
    assert!(executions > CASES.len(), "{results:#}");
    assert_eq!(results["summary"]["skipped"], executions - 1, "{results:#}");
    let trials = run.trials();
    assert!(
        trials.contains(&"[rej] cases::origin::assertion FAILED".to_owned()),
        "{trials:#?}"
    );
    let stdout = run.stdout();
    let ignored = stdout
        .lines()
        .filter(|line| {
            line.contains(" ... ignored (not run: runner `rej` was rejected earlier in this run: ")
        })
        .count();
    assert_eq!(ignored, executions - 1, "{context}");
    assert!(
        stdout.contains(&format!(
            "skillgym: {executions} executions: 0 passed, 1 failed, 0 expected-failed, 0 unexpected-passed, {} skipped\n",
            executions - 1
        )),
        "{context}"
    );
    assert!(!stdout.contains("at repetition 0/"), "{context}");
    assert!(run.run_dir().join(".rejected/rej").is_file());
}

fn across_processes() {
    let config = config();
    let first = Run::per_process(
        "rejections-nextest",
        &["[rej] cases::origin::assertion".to_owned()],
        Spec {
            config: &config,
            ..Spec::default()
        },
    );
    check_rejected(&first, CASES[0]);
    // A later process of the same nextest run (same run id, same output directory).
    let dir = first.dir().to_path_buf();
    let later = crate::run_child_in(
        &dir,
        &["--exact", "[rej] cases::origin::runner"],
        &config,
        &[
            ("NEXTEST_EXECUTION_MODE", "process-per-test"),
            ("NEXTEST_RUN_ID", "run"),
        ],
    );
    let stdout = String::from_utf8_lossy(&later.stdout);
    assert_eq!(
        later.status.code(),
        Some(101),
        "under nextest a skip decided while running fails, never passes\n{stdout}"
    );
    assert!(
        stdout.contains("skipped: not run: runner `rej`"),
        "{stdout}"
    );
    check_skipped(&first.execution(CASES[2], "rej"), CASES[2]);
    assert_eq!(sessions(&first), 1);
}
