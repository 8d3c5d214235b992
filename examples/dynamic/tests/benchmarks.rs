//! Cases of a benchmark crate whose harness is linked dynamically: the same code as with the
//! harness linked statically.

use skillgym::prelude::*;

#[skillgym::case(prompt = "Say only: skillgym ready", tags = ["smoke"])]
fn always_passes(report: &SessionReport) {
    report.expect().output().equals("skillgym ready");
}

#[skillgym::case(prompt = "Find a skill for upgrading Expo SDK.", tags = ["skills"])]
async fn finds_the_skill(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report).skills().has("find-skills");
    report.expect().output().includes("upgrading-expo");
}

fn main() -> std::process::ExitCode {
    skillgym_harness::Harness::new().run()
}
