//! Soft assertions: collected in the `CaseContext`, classified by `CaseContext::classify`,
//! merged into one `Failure`.

use skillgym::assert::AssertionFailure;
use skillgym::prelude::*;
use skillgym::{Failure, FailureOrigin, SourceLocation};

use crate::common::passes;

fn context() -> CaseContext {
    skillgym::__private::new_case_context("case", "runner", 1, 1, "/tmp/artifacts", "/tmp/work")
}

fn report() -> SessionReport {
    SessionReport::from_events([
        SessionEvent::command("ls -la"),
        SessionEvent::file_read("/repo/README.md"),
        SessionEvent::assistant("done"),
    ])
}

#[test]
fn failures_are_recorded_in_order_with_their_locations_and_the_case_goes_on() {
    let report = report();
    let mut ctx = context();
    let first = line!() + 1;
    ctx.soft(&report).commands().includes("npm test");
    ctx.soft(&report).output().equals("done"); // passes
    let second = line!() + 1;
    ctx.soft(&report).file_reads().includes("SKILL.md");
    let failures = ctx.soft_failures();
    assert_eq!(failures.len(), 2);
    assert!(
        failures[0]
            .message
            .starts_with("expected a command matching \"npm test\"")
    );
    assert!(
        failures[1]
            .message
            .starts_with("expected a file read matching \"SKILL.md\"")
    );
    let lines: Vec<u32> = failures
        .iter()
        .map(|f| f.location.as_ref().unwrap().line)
        .collect();
    assert_eq!(lines, [first, second]);
    assert!(
        failures
            .iter()
            .all(|f| f.location.as_ref().unwrap().file.ends_with("soft.rs"))
    );
}

#[test]
fn every_failing_check_of_a_chain_is_recorded() {
    let report = report();
    let mut ctx = context();
    ctx.soft(&report)
        .commands()
        .includes("npm test")
        .includes("ls")
        .not_includes("ls");
    let messages: Vec<&str> = ctx
        .soft_failures()
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(messages[1].starts_with("expected no command matching \"ls\", but 1 matched"));
}

#[test]
fn take_empties_the_collector() {
    let report = report();
    let mut ctx = context();
    ctx.soft(&report).output().includes("ready");
    assert_eq!(skillgym::__private::take_soft_failures(&mut ctx).len(), 1);
    assert!(ctx.soft_failures().is_empty());
}

#[test]
fn classify_tags_only_the_failures_raised_inside() {
    let report = report();
    let mut ctx = context();
    ctx.soft(&report).output().includes("before");
    let value = ctx.classify(FailureClass::new("no-tests", "Tests not run"), |ctx| {
        ctx.soft(&report).commands().includes("npm test");
        42
    });
    ctx.soft(&report).output().includes("after");
    assert_eq!(value, 42);
    let classes: Vec<Option<&str>> = ctx
        .soft_failures()
        .iter()
        .map(|f| f.class.as_ref().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(classes, [None, Some("no-tests"), None]);
    assert_eq!(
        ctx.soft_failures()[1]
            .class
            .as_ref()
            .unwrap()
            .label
            .as_deref(),
        Some("Tests not run")
    );
}

#[test]
fn the_innermost_classify_wins() {
    let report = report();
    let mut ctx = context();
    ctx.classify("outer", |ctx| {
        ctx.classify("inner", |ctx| {
            ctx.soft(&report).commands().includes("npm test");
        });
        ctx.soft(&report).commands().includes("cargo test");
    });
    let classes: Vec<&str> = ctx
        .soft_failures()
        .iter()
        .map(|f| f.class.as_ref().unwrap().id.as_str())
        .collect();
    assert_eq!(classes, ["inner", "outer"]);
}

#[test]
fn a_hard_failure_inside_classify_still_unwinds() {
    let report = report();
    let mut ctx = context();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ctx.classify("c", |ctx| {
            ctx.soft(&report).output().includes("x");
            report.expect().output().includes("y");
        })
    }));
    assert!(outcome.is_err());
    // The soft failure recorded before the panic is kept, and classified.
    assert_eq!(ctx.soft_failures().len(), 1);
    assert_eq!(ctx.soft_failures()[0].class.as_ref().unwrap().id, "c");
}

fn at(line: u32) -> SourceLocation {
    SourceLocation {
        file: "tests/benchmarks.rs".into(),
        line,
        column: 5,
    }
}

#[test]
fn merged_failures_list_every_part_with_class_and_location() {
    let failure = Failure::from_assertions(vec![
        AssertionFailure::new("expected a command matching \"npm test\"\nobserved no commands")
            .at(at(10)),
        AssertionFailure::new("expected the skill \"x\" to be used\nobserved no skills")
            .at(at(11))
            .with_class("no-skill"),
        AssertionFailure::new("the agent wrote no config"),
        AssertionFailure::new("expected a final output\nthe final output is empty")
            .at(at(13))
            .with_class(FailureClass::new("silent", "Silent agent")),
    ])
    .unwrap();
    assert_eq!(
        failure.message,
        "4 assertion failures:\n\
         1. expected a command matching \"npm test\"\n   observed no commands\n   at tests/benchmarks.rs:10:5\n\
         2. expected the skill \"x\" to be used\n   observed no skills\n   class: no-skill\n   at tests/benchmarks.rs:11:5\n\
         3. the agent wrote no config\n\
         4. expected a final output\n   the final output is empty\n   class: silent\n   at tests/benchmarks.rs:13:5"
    );
    assert_eq!(failure.origin, FailureOrigin::Assertion);
    assert_eq!(failure.class, FailureClass::id("no-skill"));
    assert_eq!(failure.location, None);
    assert_eq!(failure.assertions.len(), 4);
    assert_eq!(
        failure.assertions[3]
            .class
            .as_ref()
            .unwrap()
            .label
            .as_deref(),
        Some("Silent agent")
    );
}

#[test]
fn a_single_part_keeps_its_message_and_location() {
    let failure = Failure::from_assertions(vec![AssertionFailure::new("boom").at(at(3))]).unwrap();
    assert_eq!(failure.message, "boom");
    assert_eq!(failure.location, Some(at(3)));
    assert_eq!(failure.class, FailureOrigin::Assertion.default_class());
    assert_eq!(failure.to_string(), "boom\n  at tests/benchmarks.rs:3:5");
}

#[test]
fn no_parts_is_no_failure() {
    assert_eq!(Failure::from_assertions(Vec::new()), None);
}

#[test]
fn merged_failures_round_trip_through_json() {
    let failure = Failure::from_assertions(vec![
        AssertionFailure::new("a").at(at(1)).with_question("Why a?"),
        AssertionFailure::new("b").with_class("c"),
    ])
    .unwrap();
    let json = serde_json::to_value(&failure).unwrap();
    assert_eq!(json["assertions"][0]["question"], "Why a?");
    assert_eq!(json["assertions"][1]["class"]["id"], "c");
    let back: Failure = serde_json::from_value(json).unwrap();
    assert_eq!(back, failure);
    let questions: Vec<(&str, Option<&SourceLocation>)> = back.questions().collect();
    assert_eq!(questions, [("Why a?", Some(&at(1)))]);
}

#[test]
fn hand_written_report_json_may_leave_out_any_field() {
    let report: SessionReport = serde_json::from_str(
        r#"{"events": [{"type": "command", "command": "npm test"}], "usage": {}}"#,
    )
    .unwrap();
    passes(&report, |e| {
        e.commands().exactly_one("npm test");
    });
    assert_eq!(report.usage, skillgym::Usage::default());
}
