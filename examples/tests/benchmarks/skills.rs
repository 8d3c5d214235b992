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
    let skill = report
        .skill("find-skills")
        .ok_or_else(|| skillgym::Error::msg("find-skills was not used"))?;
    assert!(
        skill.confidence >= Confidence::Strong,
        "weak evidence: {skill:?}"
    );
    assert!(
        report.commands().any(|c| c == "npx skills find expo"),
        "commands: {:?}",
        report.commands().collect::<Vec<_>>()
    );
    assert!(report.final_output().contains("upgrading-expo"));
    assert!(ctx.workspace_dir().join("README.md").is_file());
    Ok(())
}

#[skillgym::case(prompt = "Find a skill for upgrading Expo SDK.", tags = ["skills"])]
fn suggests_install_command(report: &SessionReport) {
    assert!(
        report
            .final_output()
            .contains("npx skills add expo/upgrading-expo"),
        "final output: {}",
        report.final_output()
    );
}
