//! One failure per origin the harness produces, its default class, and `expected_fail`
//! forgiving only assertion failures; the `classify_failure` hook over infrastructure failures.

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "origins::each_origin_has_its_class_and_only_assertions_can_be_expected",
        each_origin,
    ),
    (
        "origins::a_failing_bootstrap_fails_with_origin_bootstrap",
        bootstrap,
    ),
    (
        "origins::classify_failure_reclassifies_infrastructure_failures",
        hook_on_infrastructure,
    ),
];

fn each_origin() {
    let run = Run::new(
        "origins",
        Spec {
            args: &["--runner", "a", "cases::origin::", "--skip", "bootstrap"],
            ..Spec::default()
        },
    );
    // (case, origin, class, a piece of the message)
    let table = [
        (
            "assertion",
            "assertion",
            "assertion",
            "expected the final output to be \"ok\"",
        ),
        ("runner", "runner", "runner-crash", "exited with code 7"),
        ("crash", "runner", "runner-crash", "killed by signal 6"),
        (
            "timeout",
            "timeout",
            "timeout",
            "did not finish within 300ms",
        ),
        (
            "max_steps",
            "max-steps",
            "max-steps",
            "observed 3 steps with a limit of 2",
        ),
        (
            "normalization",
            "normalization",
            "normalization",
            "none of the 2 line(s)",
        ),
        ("workspace", "workspace", "workspace", "no-such-template"),
    ];
    for (case, origin, class, message) in table {
        for (variant, expected_status) in [
            (case.to_owned(), "failed"),
            (
                format!("{case}_expected"),
                if origin == "assertion" {
                    "expected-failed"
                } else {
                    "failed"
                },
            ),
        ] {
            let result = run.execution(&format!("origin::{variant}"), "a");
            let failure = &result["failure"];
            assert_eq!(result["status"], expected_status, "{variant}: {result:#}");
            assert_eq!(failure["origin"], origin, "{variant}");
            assert_eq!(failure["class"]["id"], class, "{variant}");
            let text = failure["message"].as_str().unwrap();
            assert!(text.contains(message), "{variant}: {text}");
        }
    }
    // The runner failure shows the end of the agent's stderr.
    let runner = run.execution("origin::runner", "a");
    assert!(
        runner["failure"]["message"]
            .as_str()
            .unwrap()
            .contains("the model said no")
    );
}

fn bootstrap() {
    let run = Run::new(
        "origin-bootstrap",
        Spec {
            args: &["--runner", "a", "cases::origin::bootstrap"],
            config: r#"
run:
  workspace:
    mode: isolated
    bootstrap: { command: sh, args: [-c, "echo cannot install >&2; exit 3"] }
"#,
            ..Spec::default()
        },
    );
    for (case, status) in [("bootstrap", "failed"), ("bootstrap_expected", "failed")] {
        let result = run.execution(&format!("origin::{case}"), "a");
        assert_eq!(result["status"], status, "{case}: {}", run.context());
        let failure = &result["failure"];
        assert_eq!(failure["origin"], "bootstrap");
        assert_eq!(failure["class"]["id"], "workspace-bootstrap");
        let message = failure["message"].as_str().unwrap();
        assert!(
            message.contains(
                "workspace bootstrap `sh -c echo cannot install >&2; exit 3` exited with code 3"
            ),
            "{message}"
        );
        let attempt = run
            .execution_dir(&format!("origin::{case}"), "a")
            .join("repeat-1/attempt-1");
        let log = std::fs::read_to_string(attempt.join("bootstrap.stderr.log")).unwrap();
        assert_eq!(log, "cannot install\n");
        let workspace = crate::read_json(&attempt.join("workspace.json"));
        assert_eq!(workspace["preserved"], true);
        assert_eq!(workspace["bootstrap"]["exit_code"], 3);
        // The agent never ran.
        assert!(!attempt.join("stdout.log").exists());
    }
}

fn hook_on_infrastructure() {
    let run = Run::new(
        "classes",
        Spec {
            args: &["--runner", "a", "cases::classes::"],
            ..Spec::default()
        },
    );
    let timeout = run.execution("classes::hook_on_timeout", "a");
    assert_eq!(timeout["failure"]["origin"], "timeout", "{}", run.context());
    assert_eq!(timeout["failure"]["class"]["id"], "slow-agent");
    assert_eq!(
        timeout["failure"]["class"]["label"],
        "The agent is too slow"
    );
    let declined = run.execution("classes::hook_declines", "a");
    assert_eq!(declined["failure"]["origin"], "assertion");
    assert_eq!(declined["failure"]["class"]["id"], "wrong-answer");
}
