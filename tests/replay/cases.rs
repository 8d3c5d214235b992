//! The cases of the replay child harness.

use skillgym::prelude::*;

/// Every runner plays a captured transcript. The check is that the session has events, or,
/// when `REPLAY_EXPECT` is set (how a test changes the assertion between runs), that the
/// final answer includes it.
#[skillgym::case(prompt = "Play your transcript.")]
fn transcript(report: &SessionReport) {
    match std::env::var("REPLAY_EXPECT") {
        Ok(expected) => {
            report
                .expect()
                .output()
                .explain("Why did you answer that?")
                .includes(expected.as_str());
        }
        Err(_) => assert!(!report.events.is_empty(), "the session has events"),
    }
}

/// Two repetitions on the fake agent, whose first session fails: recorded as repeat-1 with
/// two attempts, then repeat-2.
#[skillgym::case(
    prompt = "count sessions\non 1 exit 1\necho-prompt",
    runners = ["command"],
    repeat = 2,
    repeat_failure = 1
)]
fn retried(report: &SessionReport) {
    report.expect().output().includes("echo-prompt");
}
