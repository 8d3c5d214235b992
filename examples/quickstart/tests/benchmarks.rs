use skillgym::prelude::*;

#[skillgym::case(prompt = "Say only: skillgym ready", tags = ["smoke"])]
fn always_passes(report: &SessionReport) {
    report.expect().output().equals("skillgym ready");
}

#[skillgym::case(
    prompt = "Find a skill for upgrading Expo SDK and tell me how to install it.",
    tags = ["skills"], repeat = 3, repeat_failure = 1, timeout = "5m",
)]
async fn find_skills_expo(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report)
        .skills()
        .min_confidence(Confidence::Strong)
        .has("find-skills");
    ctx.soft(report)
        .commands()
        .includes(CommandMatcher::new("npx").args(["skills", "find"]));
    report.expect().output().matches(r"(?i)upgrading-expo");
}

/// A known gap: the agent does not load the migration skill yet. The failing check is
/// reported as `expected-failed`; once the agent passes, remove `expected_fail`.
#[skillgym::case(prompt_file = "prompts/legacy.md", expected_fail)]
fn known_gap(report: &SessionReport) {
    report.expect().skills().has("legacy-migration");
}

fn main() -> std::process::ExitCode {
    skillgym_harness::main()
}
