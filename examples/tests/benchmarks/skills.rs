//! Cases about skill selection.

use skillgym::prelude::*;

#[skillgym::case(
    prompt = "Find a skill for upgrading Expo SDK and tell me how to install it.",
    tags = ["skills"],
    repeat = 2,
    timeout = "20s",
    runners = ["careful"],
)]
async fn find_skills_expo(report: &SessionReport, ctx: &mut CaseContext) -> skillgym::Result {
    // Soft checks: every one runs, and all failures are reported together.
    ctx.soft(report)
        .skills()
        .min_confidence(Confidence::Strong)
        .has("find-skills");
    ctx.soft(report)
        .commands()
        .includes(CommandMatcher::new("npx").args(["skills", "find"]))
        .not_includes("rm -rf");
    ctx.soft(report).tool_calls().sequence([
        ToolMatcher::new("Read").arg("file_path", "SKILL.md"),
        "Bash".into(),
    ]);
    ctx.soft(report).file_reads().first("find-skills/SKILL.md");
    report.expect().output().matches(r"(?i)upgrading-expo");
    // Plain Rust works too; `?` turns I/O errors into failures.
    let readme = std::fs::read_to_string(ctx.workspace_dir().join("README.md"))?;
    assert_contains!(readme, "Example app");
    Ok(())
}

#[skillgym::case(prompt = "Find a skill for upgrading Expo SDK.", tags = ["skills"])]
fn suggests_install_command(report: &SessionReport) {
    report
        .expect()
        .output()
        .because("the answer must tell the user how to install the skill")
        .includes("npx skills add expo/upgrading-expo");
}
