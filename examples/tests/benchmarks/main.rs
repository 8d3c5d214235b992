//! The example benchmark suite. Run it with `cargo test -p skillgym-examples --test benchmarks`.

use skillgym::prelude::*;
use skillgym_harness::{CommandAgent, Harness};

mod skills;

#[skillgym::case(prompt = "Say only: skillgym ready", tags = ["smoke"])]
fn always_passes(report: &SessionReport) {
    report.expect().output().equals("skillgym ready");
}

#[skillgym::case(prompt_file = "prompts/summarize.md", tags = ["smoke"])]
fn summarizes_from_prompt_file(report: &SessionReport) -> skillgym::Result {
    if !report.final_output().starts_with("Summary:") {
        return Err(skillgym::Error::msg(format!(
            "expected a summary, got {:?}",
            report.final_output()
        )));
    }
    Ok(())
}

/// A known gap, kept as benchmark signal: no agent here loads `upgrading-expo` explicitly yet.
#[skillgym::case(
    prompt = "Use the upgrading-expo skill to upgrade this app to the latest Expo SDK.",
    tags = ["skills"],
    expected_fail
)]
fn known_gap_explicit_skill_load(report: &SessionReport) {
    classify(
        FailureClass::new("no-explicit-load", "Skill not loaded explicitly"),
        || {
            report
                .expect()
                .skills()
                .min_confidence(Confidence::Explicit)
                .has("upgrading-expo");
        },
    );
}

fn main() -> std::process::ExitCode {
    let agent = env!("CARGO_BIN_EXE_example-agent");
    Harness::new()
        .runner(
            "careful",
            CommandAgent::new(agent).args(["--style", "careful"]),
        )
        .runner("hasty", CommandAgent::new(agent).args(["--style", "hasty"]))
        // The declarative cases of evals/showcase (EVAL.yaml, cases/*/case.yaml) run beside
        // the Rust ones; their plain-string assertions are graded by the judge.
        .suite("evals/showcase")
        .judge(CommandAgent::new(agent).args(["--style", "judge"]))
        .run()
}
