//! Every supported form compiles without warnings.
#![deny(warnings)]

use skillgym::prelude::*;

#[skillgym::case(prompt = "sync")]
fn sync_unit(report: &SessionReport) {
    assert!(report.final_output().is_empty());
}

#[skillgym::case(prompt = "explicit unit")]
fn explicit_unit(_: &SessionReport) -> () {}

#[skillgym::case(prompt = "ctx")]
fn with_ctx(_report: &SessionReport, ctx: &mut CaseContext) {
    let _ = ctx.runner_id();
}

#[skillgym::case(prompt = "ctx ignored")]
fn ignored_ctx(_report: &SessionReport, _: &mut CaseContext) {}

#[skillgym::case(prompt = "async")]
async fn async_unit(_report: &SessionReport) {}

#[skillgym::case(prompt = "async ctx", tags = ["async"])]
async fn async_ctx(_report: &SessionReport, ctx: &mut CaseContext) -> skillgym::Result {
    if ctx.attempt() > 1 {
        return Err(skillgym::Error::msg("retried"));
    }
    Ok(())
}

#[skillgym::case(prompt = "std result")]
fn std_result(_report: &SessionReport) -> Result<(), std::io::Error> {
    Ok(())
}

#[skillgym::case(prompt = "string result")]
pub fn string_result(_report: &SessionReport) -> Result<(), String> {
    Ok(())
}

fn classify(failure: &skillgym::Failure) -> FailureClass {
    FailureClass::id(failure.origin.as_str())
}

mod hooks {
    pub fn by_message(failure: &skillgym::Failure) -> Option<String> {
        Some(failure.message.clone())
    }
}

#[skillgym::case(
    prompt_file = "prompts/all.md",
    id = "all",
    tags = ["a", "b"],
    repeat = 2,
    repeat_failure = 1,
    retry_failed = 0,
    expected_fail,
    timeout = "1m30s",
    max_steps = 5,
    runners = ["claude"],
    workspace = "fixtures",
    classify_failure = classify,
)]
fn everything(_report: &SessionReport) {}

#[skillgym::case(prompt = "hook in a module", classify_failure = hooks::by_message,)]
fn module_hook(_report: &SessionReport) {}

mod reexport {
    pub use skillgym::*;
}

#[skillgym::case(crate = "crate::reexport", prompt = "custom crate path")]
fn custom_crate_path(_report: &reexport::SessionReport) {}

#[skillgym::case(prompt = "raw identifier")]
fn r#match(_report: &SessionReport) {}

fn main() {
    let names: Vec<&str> = skillgym::__private::CaseDef::all()
        .map(|def| def.name)
        .collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(names.contains(&"match"));
    // The functions are left as written.
    sync_unit(&SessionReport::default());
}
