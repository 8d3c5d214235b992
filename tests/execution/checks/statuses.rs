//! The four statuses, with and without `expected_fail`.

use super::{Check, attempts_per_repetition};
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[(
    "statuses::four_statuses_with_and_without_expected_fail",
    four_statuses,
)];

fn four_statuses() {
    let run = Run::new(
        "statuses",
        Spec {
            args: &["--runner", "a", "cases::status::"],
            ..Spec::default()
        },
    );
    let expect = |case: &str, status: &str, passed: bool| {
        let result = run.execution(&format!("status::{case}"), "a");
        assert_eq!(result["status"], status, "{case}: {}", run.context());
        assert_eq!(result["passed"], passed, "{case}");
        result
    };
    expect("passes", "passed", true);
    let failed = expect("fails", "failed", false);
    assert_eq!(failed["failure"]["class"]["id"], "assertion");
    let expected = expect("expected_fail_fails", "expected-failed", true);
    assert_eq!(expected["failure"]["origin"], "assertion");
    assert_eq!(expected["expected_fail"], true);
    let unexpected = expect("expected_fail_passes", "unexpected-passed", false);
    assert_eq!(unexpected["failure"]["class"]["id"], "unexpected-passed");
    assert_eq!(
        attempts_per_repetition(&unexpected),
        [1],
        "an unexpected pass is not retried"
    );
    assert_eq!(
        run.trials(),
        [
            "[a] cases::status::expected_fail_fails ok",
            "[a] cases::status::expected_fail_passes FAILED",
            "[a] cases::status::fails FAILED",
            "[a] cases::status::passes ok",
        ]
    );
    assert_eq!(run.code(), Some(101));
    let summary = &run.results()["summary"];
    assert_eq!(
        (
            summary["passed"].as_u64(),
            summary["failed"].as_u64(),
            summary["expected_failed"].as_u64(),
            summary["unexpected_passed"].as_u64()
        ),
        (Some(1), Some(1), Some(1), Some(1))
    );
    let stdout = run.stdout();
    assert!(
        stdout.contains("marked `expected_fail` but passed"),
        "{stdout}"
    );
}
