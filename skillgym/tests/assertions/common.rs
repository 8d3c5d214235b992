//! Helpers: run checks in soft mode and look at what they recorded.

use skillgym::SessionReport;
use skillgym::assert::{AssertionFailure, Expect};

use crate::support::transcripts::load;

/// The captured `failing-command` scenario of each agent: a failing `ls`, then successful
/// reads of `skills/demo/SKILL.md` and `skills/demo/references/notes.md` (`demo`, strong).
pub(crate) const SKILL_TRANSCRIPTS: [&str; 6] = [
    "claude-code.failing-command",
    "codex.failing-command",
    "opencode.failing-command",
    "copilot.failing-command",
    "gemini-cli.failing-command",
    "qwen-code.failing-command",
];

/// Each skill transcript's name and the report built from it.
pub(crate) fn skill_transcripts() -> impl Iterator<Item = (&'static str, SessionReport)> {
    SKILL_TRANSCRIPTS.into_iter().map(|name| (name, load(name)))
}

/// The captured sessions, one per agent CLI version, as the adapters normalized them.
pub(crate) const TRANSCRIPTS: [&str; 7] = [
    "claude-code",
    "claude-code-2.1.197",
    "codex",
    "opencode",
    "copilot",
    "gemini-cli",
    "qwen-code",
];

/// Each transcript's name and the report built from it.
pub(crate) fn transcripts() -> impl Iterator<Item = (&'static str, SessionReport)> {
    TRANSCRIPTS.into_iter().map(|name| (name, load(name)))
}

/// The failures `check` records against `report`.
pub(crate) fn failures(
    report: &SessionReport,
    check: impl for<'a> FnOnce(Expect<'a>),
) -> Vec<AssertionFailure> {
    let mut ctx = skillgym::__private::new_case_context(
        "case",
        "runner",
        1,
        1,
        "/tmp/artifacts",
        "/tmp/work",
    );
    check(ctx.soft(report));
    skillgym::__private::take_soft_failures(&mut ctx)
}

/// Asserts that `check` passes.
#[track_caller]
pub(crate) fn passes(report: &SessionReport, check: impl for<'a> FnOnce(Expect<'a>)) {
    let failures = failures(report, check);
    assert!(
        failures.is_empty(),
        "expected no failure, got:\n{}",
        failures
            .iter()
            .map(|f| f.message.as_str())
            .collect::<Vec<_>>()
            .join("\n---\n")
    );
}

/// Asserts that `check` fails exactly once and returns the failure.
#[track_caller]
pub(crate) fn fails(
    report: &SessionReport,
    check: impl for<'a> FnOnce(Expect<'a>),
) -> AssertionFailure {
    let mut failures = failures(report, check);
    assert_eq!(failures.len(), 1, "expected one failure, got {failures:#?}");
    failures.remove(0)
}

/// The message of the single failure of `check`.
#[track_caller]
pub(crate) fn message(report: &SessionReport, check: impl for<'a> FnOnce(Expect<'a>)) -> String {
    fails(report, check).message
}
