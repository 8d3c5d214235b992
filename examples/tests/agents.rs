//! Six real agent CLIs on the example cases, from recordings: Claude Code, Codex, OpenCode,
//! Copilot, Gemini CLI and Qwen Code each played every case's mock script against skillgym's
//! scripted model (`agents/record.sh`), and `agents/skillgym.yaml` replays those sessions
//! through today's adapters and the checks below. Run it with
//! `cargo test -p skillgym-examples --test agents`: no agent starts, no key is needed.

use skillgym::prelude::*;

#[skillgym::case(
    prompt = "Say only: skillgym ready",
    mock = "agents/scripts/one-line.yaml"
)]
fn answers_in_one_line(report: &SessionReport) {
    report.expect().output().equals("skillgym ready");
}

#[skillgym::case(
    prompt = "Find a skill for upgrading Expo SDK and tell me how to install it.",
    tags = ["skills"],
    mock = "agents/scripts/find-skills.yaml"
)]
fn finds_a_skill_for_expo(report: &SessionReport, ctx: &mut CaseContext) {
    // Whether each agent loaded the skill through its own skill tool (explicit) or read its
    // SKILL.md (strong), the skill counts as used.
    ctx.soft(report)
        .skills()
        .min_confidence(Confidence::Strong)
        .has("find-skills");
    ctx.soft(report)
        .commands()
        .includes(CommandMatcher::new("npx").args(["skills", "find"]));
    report
        .expect()
        .output()
        .includes("npx skills add expo/upgrading-expo");
}

#[skillgym::case(
    prompt_file = "prompts/summarize.md",
    mock = "agents/scripts/summarize.yaml"
)]
fn reads_the_readme_before_summarizing(report: &SessionReport) {
    report.expect().file_reads().includes("README.md");
    report.expect().output().matches(r"^Summary: ");
}

/// A known gap, kept as signal: the agents answer without loading `upgrading-expo`.
#[skillgym::case(
    prompt = "Use the upgrading-expo skill to upgrade this app to the latest Expo SDK.",
    tags = ["skills"],
    mock = "agents/scripts/no-skill.yaml",
    expected_fail
)]
fn known_gap_loads_upgrading_expo(report: &SessionReport) {
    report
        .expect()
        .skills()
        .min_confidence(Confidence::Explicit)
        .has("upgrading-expo");
}

fn main() -> std::process::ExitCode {
    skillgym_harness::Harness::new()
        .config_file(concat!(env!("CARGO_MANIFEST_DIR"), "/agents/skillgym.yaml"))
        .run()
}
