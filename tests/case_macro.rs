//! Behavioural tests of what `#[skillgym::case]` registers: the cases below register into this
//! test binary through `inventory`, and the tests read them back with `CaseDef::all()`.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use skillgym::__private::{CaseDef, PromptSource, RunFn};
use skillgym::prelude::*;
use skillgym::{Failure, FailureOrigin};

// `extern crate` at the crate root puts `sg` in the extern prelude, like a renamed dependency.
extern crate skillgym as sg;

const SYNC_CASE_LINE: u32 = line!() + 2;
#[skillgym::case(prompt = "sync prompt")]
fn sync_case(report: &SessionReport) {
    assert!(report.final_output().is_empty());
}

const ASYNC_CASE_LINE: u32 = line!() + 5;
#[skillgym::case(
    prompt = "async prompt",
    tags = ["async"],
)]
async fn async_case(_report: &SessionReport, ctx: &mut CaseContext) -> skillgym::Result {
    if ctx.runner_id() == "claude" {
        Ok(())
    } else {
        Err(skillgym::Error::msg(format!(
            "wrong runner {}",
            ctx.runner_id()
        )))
    }
}

#[skillgym::case(prompt = "ctx", id = "explicit-id")]
fn with_ctx(_: &SessionReport, ctx: &mut CaseContext) {
    assert_eq!(ctx.case_id(), "explicit-id");
}

#[skillgym::case(prompt = "fails")]
fn failing_result(_report: &SessionReport) -> Result<(), String> {
    Err("expected 3 tool calls, saw 1".to_owned())
}

#[skillgym::case(prompt = "panics")]
fn panicking(_report: &SessionReport) {
    panic!("boom");
}

#[skillgym::case(prompt = "async panics")]
async fn async_panicking(_report: &SessionReport) -> Result<(), std::fmt::Error> {
    panic!("async boom");
}

fn classify(failure: &Failure) -> Option<FailureClass> {
    failure
        .message
        .contains("expo-upgrade")
        .then(|| FailureClass::new("wrong-cli-alias", "Used the wrong CLI alias"))
}

#[skillgym::case(
    prompt_file = "prompts/all.md",
    id = "everything",
    tags = ["smoke", "skills"],
    repeat = 3,
    repeat_failure = 2,
    retry_failed = 1,
    expected_fail,
    timeout = "1h30m",
    max_steps = 40,
    runners = ["claude", "codex"],
    workspace = "fixtures/app",
    mock = "scripts/all.yaml",
    skills = ["skills/find-skills", "skills/expo"],
    classify_failure = classify,
    crate = "::skillgym",
)]
fn all_arguments(_report: &SessionReport, _ctx: &mut CaseContext) -> skillgym::Result {
    Ok(())
}

mod nested {
    use skillgym::prelude::*;

    // `timeout` follows the grammar `skillgym.yaml` uses: surrounding whitespace trimmed, largest
    // unit first (`"30s1m"` is a compile error, see tests/ui/bad_timeout.rs).
    pub(crate) const INNER_CASE_LINE: u32 = line!() + 2;
    #[skillgym::case(prompt = "inner", timeout = " 1m30s ", classify_failure = self::by_origin)]
    pub(crate) async fn inner_case(_report: &SessionReport) {}

    fn by_origin(failure: &skillgym::Failure) -> Option<&'static str> {
        (!failure.origin.is_verdict()).then_some("infrastructure")
    }

    mod renamed {
        #[sg::case(crate = "sg", prompt = "renamed crate", repeat = 2)]
        fn renamed_crate(_report: &sg::SessionReport) {}
    }
}

/// Polls a future that completes without waiting (every case future here does).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the case future did not complete immediately"),
    }
}

fn case(name: &str) -> &'static CaseDef {
    let found: Vec<_> = CaseDef::all().filter(|def| def.name == name).collect();
    assert_eq!(found.len(), 1, "exactly one registered case named {name}");
    found[0]
}

fn context(def: &CaseDef, runner: &str) -> CaseContext {
    skillgym::__private::new_case_context(
        def.case_id(),
        runner,
        1,
        1,
        "target/artifacts",
        "target/workspace",
    )
}

fn run(def: &CaseDef, runner: &str) -> skillgym::Result {
    let report = SessionReport::default();
    let mut ctx = context(def, runner);
    match def.run {
        RunFn::Sync(run) => run(&report, &mut ctx),
        RunFn::Async(run) => block_on(run(&report, &mut ctx)),
    }
}

#[test]
fn every_case_is_registered_once() {
    let mut names: Vec<_> = CaseDef::all().map(|def| def.case_id()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "async_case",
            "async_panicking",
            "everything",
            "explicit-id",
            "failing_result",
            "nested::inner_case",
            "nested::renamed::renamed_crate",
            "panicking",
            "sync_case",
        ]
    );
}

#[test]
fn defaults() {
    let def = case("sync_case");
    assert_eq!(def.module_path, "case_macro");
    assert_eq!(def.id, None);
    assert_eq!(def.case_id(), "sync_case");
    assert_eq!(def.file, file!());
    assert_eq!(def.line, SYNC_CASE_LINE);
    assert_eq!(def.column, 4, "column of the function's name");
    assert_eq!(def.manifest_dir, env!("CARGO_MANIFEST_DIR"));
    assert_eq!(def.prompt, PromptSource::Inline("sync prompt"));
    assert!(def.tags.is_empty());
    assert_eq!(def.repeat, None);
    assert_eq!(def.repeat_failure, None);
    assert!(!def.expected_fail);
    assert_eq!(def.timeout_ms, None);
    assert_eq!(def.max_steps, None);
    assert!(def.runners.is_empty());
    assert_eq!(def.workspace, None);
    assert_eq!(def.mock, None);
    assert!(def.skills.is_empty());
    assert!(def.classify_failure.is_none());
}

#[test]
fn line_is_the_functions_line_not_the_attributes() {
    assert_eq!(case("async_case").line, ASYNC_CASE_LINE);
    assert_eq!(case("async_case").column, 10);
    assert_eq!(case("inner_case").line, nested::INNER_CASE_LINE);
}

#[test]
fn every_argument() {
    let def = case("all_arguments");
    assert_eq!(def.id, Some("everything"));
    assert_eq!(def.case_id(), "everything");
    assert_eq!(def.prompt, PromptSource::File("prompts/all.md"));
    assert_eq!(def.tags, ["smoke", "skills"]);
    assert_eq!(def.repeat, Some(3));
    // `retry_failed = 1` is the legacy alias, folded in by the macro; `repeat_failure` wins.
    assert_eq!(def.repeat_failure, Some(2));
    assert!(def.expected_fail);
    assert_eq!(def.timeout_ms, Some(5_400_000));
    assert_eq!(def.max_steps, Some(40));
    assert_eq!(def.runners, ["claude", "codex"]);
    assert_eq!(def.workspace, Some("fixtures/app"));
    assert_eq!(def.mock, Some("scripts/all.yaml"));
    assert_eq!(def.skills, ["skills/find-skills", "skills/expo"]);
    assert_eq!(run(def, "claude"), Ok(()));
}

#[test]
fn nested_module() {
    let def = case("inner_case");
    assert_eq!(def.module_path, "case_macro::nested");
    assert_eq!(def.case_id(), "nested::inner_case");
    assert_eq!(def.timeout_ms, Some(90_000));
    assert_eq!(def.prompt, PromptSource::Inline("inner"));
    assert_eq!(run(def, "claude"), Ok(()));
}

#[test]
fn timeout_follows_the_shared_duration_grammar() {
    let def = case("inner_case");
    assert_eq!(def.timeout_ms, Some(90_000));
    let spec = skillgym_harness::suite::CaseSpec::from_def(def);
    assert_eq!(spec.timeout, Some(std::time::Duration::from_secs(90)));
}

#[test]
fn renamed_crate() {
    let def = case("renamed_crate");
    assert_eq!(def.case_id(), "nested::renamed::renamed_crate");
    assert_eq!(def.repeat, Some(2));
    assert_eq!(run(def, "claude"), Ok(()));
}

#[test]
fn sync_case_passes() {
    assert_eq!(run(case("sync_case"), "claude"), Ok(()));
    // The function itself is left as written.
    sync_case(&SessionReport::default());
}

#[test]
fn async_case_gets_the_context() {
    let def = case("async_case");
    assert_eq!(def.tags, ["async"]);
    assert_eq!(run(def, "claude"), Ok(()));
    let error = run(def, "codex").unwrap_err();
    assert_eq!(error.message(), "wrong runner codex");
    assert!(
        error.location().is_some(),
        "Error::msg records where it was created"
    );
}

#[test]
fn context_is_passed_through() {
    let def = case("with_ctx");
    assert_eq!(def.case_id(), "explicit-id");
    assert_eq!(run(def, "claude"), Ok(()));
}

#[test]
fn result_failure_carries_the_message() {
    let error = run(case("failing_result"), "claude").unwrap_err();
    assert_eq!(error.message(), "expected 3 tool calls, saw 1");
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("<non-string panic>")
}

#[test]
fn sync_panic_surfaces_when_called() {
    let def = case("panicking");
    // A sync case is called as it is: no future is made for it.
    let RunFn::Sync(run) = def.run else {
        panic!("a sync case registers a sync function");
    };
    let report = SessionReport::default();
    let mut ctx = context(def, "claude");
    let payload = catch_unwind(AssertUnwindSafe(|| run(&report, &mut ctx))).unwrap_err();
    assert_eq!(panic_message(&*payload), "boom");
    assert!(matches!(case("async_panicking").run, RunFn::Async(_)));
}

#[test]
fn async_panic_surfaces_when_polled() {
    let payload =
        catch_unwind(AssertUnwindSafe(|| run(case("async_panicking"), "claude"))).unwrap_err();
    assert_eq!(panic_message(&*payload), "async boom");
}

#[test]
fn classify_failure_hook() {
    let hook = case("all_arguments")
        .classify_failure
        .expect("hook registered");
    let failure = Failure::new(FailureOrigin::Assertion, "ran `npx expo-upgrade`");
    assert_eq!(
        hook(&failure),
        Some(FailureClass::new(
            "wrong-cli-alias",
            "Used the wrong CLI alias"
        ))
    );
    assert_eq!(hook(&Failure::new(FailureOrigin::Assertion, "other")), None);

    // A hook returning `Option<&str>` is converted to a class id.
    let hook = case("inner_case")
        .classify_failure
        .expect("hook registered");
    assert_eq!(
        hook(&Failure::new(FailureOrigin::Timeout, "killed")),
        Some(FailureClass::id("infrastructure"))
    );
    assert_eq!(hook(&Failure::new(FailureOrigin::Assertion, "x")), None);
}
