//! Assertion failures through the whole harness: soft failures collected and reported with a
//! later hard failure, panic or error; failure classes from `classify`, `CaseContext::classify`,
//! `classify_async` and the `classify_failure` hook; explain questions in `explain.json`.
//!
//! This target is its own harness (`harness = false`). Run as a child
//! (`ASSERTION_FAILURES_CHILD=1`) it is a skillgym benchmark binary whose cases fail on
//! purpose against the fake agent; run by cargo it runs that child once and checks what it
//! reported and wrote, one libtest trial per behaviour. Lines marked `// @name` are located
//! by the checks.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use skillgym::prelude::*;
use skillgym_e2e::{TempDir, temp_dir};
use skillgym_harness::{CommandAgent, Harness};

const SCRIPT: &str = r#"
emit {"type":"command","command":"ls -la"}
emit {"type":"file_read","path":"/repo/README.md"}
emit {"type":"tool_call","tool":"Bash","args":{"command":"ls -la"}}
emit {"type":"message","role":"assistant","phase":"final","text":"done"}
"#;

#[skillgym::case(prompt = "go")]
fn three_soft_one_hard(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report).commands().includes("npm test"); // @soft-1
    ctx.classify(FailureClass::new("no-skill", "No skill used"), |ctx| {
        ctx.soft(report).skills().has("find-skills"); // @soft-2
    });
    ctx.soft(report).file_reads().includes("SKILL.md"); // @soft-3
    classify("wrong-answer", || {
        report.expect().output().equals("ready"); // @hard
    });
    unreachable!("the hard failure ends the case");
}

#[skillgym::case(prompt = "go")]
fn soft_then_panic(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report).output().includes("ready"); // @panic-soft
    let config = std::env::var("ASSERTION_FAILURES_NO_SUCH_VARIABLE").ok();
    config.expect("the agent wrote no config"); // @panic
}

#[skillgym::case(prompt = "go")]
fn soft_then_error(report: &SessionReport, ctx: &mut CaseContext) -> skillgym::Result {
    ctx.soft(report).tool_calls().has("Skill"); // @error-soft
    Err(skillgym::Error::msg("gave up").with_class("gave-up")) // @error
}

#[skillgym::case(prompt = "go")]
fn soft_only(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report)
        .commands()
        .includes("ls")
        .includes("rm -rf"); // @soft-only
    ctx.soft(report).output().equals("done");
}

#[skillgym::case(prompt = "go")]
fn plain_assert_classified(_report: &SessionReport) {
    classify(FailureClass::new("arithmetic", "Arithmetic"), || {
        assert_eq!(1 + 1, 3, "math is broken"); // @plain-assert
    });
}

#[skillgym::case(prompt = "go")]
async fn async_classified(report: &SessionReport) {
    classify_async("async-class", async {
        tokio::task::yield_now().await;
        report.expect().commands().size(5); // @async
    })
    .await;
}

fn to_hooked(_failure: &skillgym::Failure) -> Option<FailureClass> {
    Some(FailureClass::new("hooked", "Hooked by the case"))
}

#[skillgym::case(prompt = "go", classify_failure = to_hooked)]
fn hook_overrides_classify(report: &SessionReport) {
    classify("inner", || report.expect().output().equals("nope"));
}

#[skillgym::case(prompt = "go")]
fn explain_questions(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report).commands().includes("npm test"); // @explain-default
    ctx.soft(report)
        .output()
        .explain_with(|r| format!("You said {:?}. Why?", r.final_output()))
        .includes("ready"); // @explain-with
    report
        .expect()
        .file_reads()
        .explain("Why skip SKILL.md?")
        .includes("SKILL.md"); // @explain-custom
}

#[skillgym::case(prompt = "go")]
fn passing_checks(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report)
        .commands()
        .includes("ls")
        .exactly_one("ls -la");
    report.expect().output().equals("done");
}

fn main() -> ExitCode {
    if std::env::var_os("ASSERTION_FAILURES_CHILD").is_some() {
        return Harness::new()
            .runner(
                "fake",
                CommandAgent::new(env!("CARGO_BIN_EXE_fake-agent"))
                    .env("FAKE_AGENT_SCRIPT", SCRIPT),
            )
            .run();
    }
    let trials = vec![
        trial(
            "all_four_failures_are_reported_with_locations_and_classes",
            all_four,
        ),
        trial("a_panic_after_soft_failures_reports_both", panic_after_soft),
        trial(
            "an_error_after_soft_failures_reports_both_and_keeps_its_class",
            error_after_soft,
        ),
        trial("soft_failures_alone_fail_the_case", soft_alone),
        trial(
            "classify_gives_a_plain_assert_a_class_and_its_location",
            plain_assert,
        ),
        trial(
            "classify_async_classifies_a_failure_in_a_future",
            async_case,
        ),
        trial(
            "the_classify_failure_hook_overrides_classify",
            hook_overrides,
        ),
        trial(
            "explain_json_holds_each_question_with_its_source",
            explain_json,
        ),
        trial("passing_checks_pass", passing),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

fn trial(name: &'static str, check: fn(&ChildRun) -> Result<(), String>) -> Trial {
    Trial::test(name, move || check(child()).map_err(Failed::from))
}

/// The child's run, done once: its output and its run directory.
struct ChildRun {
    output: Output,
    run_dir: PathBuf,
    _dir: TempDir,
}

fn child() -> &'static ChildRun {
    static RUN: OnceLock<ChildRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = temp_dir("assertion-failures");
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--test-threads", "2", "--output-dir"])
            .arg(dir.path())
            .env("ASSERTION_FAILURES_CHILD", "1")
            .env("SKILLGYM_RUN_ID", "run")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST_EXECUTION_MODE")
            .output()
            .expect("the child harness runs");
        ChildRun {
            output,
            run_dir: dir.path().join("run"),
            _dir: dir,
        }
    })
}

impl ChildRun {
    fn attempt_dir(&self, case: &str) -> PathBuf {
        self.run_dir.join(case).join("fake/repeat-1/attempt-1")
    }

    /// The attempt's `result.json`.
    fn result(&self, case: &str) -> Result<Value, String> {
        read_json(&self.attempt_dir(case).join("result.json"))
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// `tests/assertion_failures.rs:LINE` of the line marked `// @marker`.
fn marked(marker: &str) -> String {
    let source = include_str!("assertion_failures.rs");
    let tag = format!("// @{marker}");
    let line = source
        .lines()
        .position(|line| line.trim_end().ends_with(&tag))
        .unwrap_or_else(|| panic!("no line marked {tag}"));
    format!("tests/assertion_failures.rs:{}", line + 1)
}

fn ensure(condition: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if condition { Ok(()) } else { Err(what()) }
}

/// The `file:line` of a failure part's location.
fn part_line(part: &Value) -> String {
    format!(
        "{}:{}",
        part["location"]["file"].as_str().unwrap_or("?"),
        part["location"]["line"]
    )
}

fn all_four(run: &ChildRun) -> Result<(), String> {
    let result = run.result("three_soft_one_hard")?;
    let failure = &result["failure"];
    ensure(result["status"] == "failed", || {
        format!("status: {}", result["status"])
    })?;
    let parts = failure["assertions"]
        .as_array()
        .ok_or("no assertions array")?;
    let lines: Vec<String> = parts.iter().map(part_line).collect();
    let expected: Vec<String> = ["soft-1", "soft-2", "soft-3", "hard"].map(marked).to_vec();
    ensure(lines == expected, || {
        format!("locations {lines:?} != {expected:?}")
    })?;
    let classes: Vec<&str> = parts
        .iter()
        .map(|p| p["class"]["id"].as_str().unwrap_or("-"))
        .collect();
    ensure(classes == ["-", "no-skill", "-", "wrong-answer"], || {
        format!("classes {classes:?}")
    })?;
    ensure(failure["class"]["id"] == "no-skill", || {
        format!("merged class {}", failure["class"])
    })?;
    ensure(failure["origin"] == "assertion", || {
        format!("origin {}", failure["origin"])
    })?;
    let message = failure["message"].as_str().unwrap_or_default();
    ensure(
        message.starts_with("4 assertion failures:\n1. expected a command matching \"npm test\""),
        || message.to_owned(),
    )?;
    for marker in ["soft-1", "soft-2", "soft-3", "hard"] {
        let at = format!("   at {}:", marked(marker));
        ensure(message.contains(&at), || {
            format!("message lacks {at:?}:\n{message}")
        })?;
    }
    ensure(
        message.contains("\n   class: no-skill\n")
            && message.contains("\n   class: wrong-answer\n"),
        || message.to_owned(),
    )?;
    // The trial's failure block in the child's output shows the same four parts.
    let stdout = run.stdout();
    ensure(stdout.contains("4 assertion failures:"), || stdout.clone())?;
    ensure(stdout.contains(&format!("at {}:", marked("hard"))), || {
        stdout.clone()
    })
}

fn panic_after_soft(run: &ChildRun) -> Result<(), String> {
    let failure = &run.result("soft_then_panic")?["failure"];
    let parts = failure["assertions"]
        .as_array()
        .ok_or("no assertions array")?;
    ensure(parts.len() == 2, || format!("{parts:#?}"))?;
    ensure(part_line(&parts[0]) == marked("panic-soft"), || {
        part_line(&parts[0])
    })?;
    ensure(part_line(&parts[1]) == marked("panic"), || {
        part_line(&parts[1])
    })?;
    ensure(parts[1]["message"] == "the agent wrote no config", || {
        parts[1]["message"].to_string()
    })
}

fn error_after_soft(run: &ChildRun) -> Result<(), String> {
    let failure = &run.result("soft_then_error")?["failure"];
    let parts = failure["assertions"]
        .as_array()
        .ok_or("no assertions array")?;
    ensure(parts.len() == 2, || format!("{parts:#?}"))?;
    ensure(part_line(&parts[0]) == marked("error-soft"), || {
        part_line(&parts[0])
    })?;
    ensure(part_line(&parts[1]) == marked("error"), || {
        part_line(&parts[1])
    })?;
    ensure(parts[1]["message"] == "gave up", || {
        parts[1]["message"].to_string()
    })?;
    ensure(failure["class"]["id"] == "gave-up", || {
        failure["class"].to_string()
    })
}

fn soft_alone(run: &ChildRun) -> Result<(), String> {
    let result = run.result("soft_only")?;
    ensure(result["status"] == "failed", || {
        result["status"].to_string()
    })?;
    let failure = &result["failure"];
    ensure(
        failure["assertions"].as_array().map(Vec::len) == Some(1),
        || failure.to_string(),
    )?;
    let message = failure["message"].as_str().unwrap_or_default();
    ensure(
        message.starts_with(
            "expected a command matching \"rm -rf\"\nobserved 1 command:\n  1. ls -la",
        ),
        || message.to_owned(),
    )?;
    ensure(
        part_line(&failure["assertions"][0]) == marked("soft-only"),
        || failure.to_string(),
    )?;
    ensure(failure["class"]["id"] == "assertion", || {
        failure["class"].to_string()
    })
}

fn plain_assert(run: &ChildRun) -> Result<(), String> {
    let failure = &run.result("plain_assert_classified")?["failure"];
    ensure(failure["class"]["id"] == "arithmetic", || {
        failure["class"].to_string()
    })?;
    ensure(failure["class"]["label"] == "Arithmetic", || {
        failure["class"].to_string()
    })?;
    let message = failure["message"].as_str().unwrap_or_default();
    ensure(message.contains("math is broken"), || message.to_owned())?;
    ensure(
        part_line(&failure["assertions"][0]) == marked("plain-assert"),
        || failure.to_string(),
    )
}

fn async_case(run: &ChildRun) -> Result<(), String> {
    let failure = &run.result("async_classified")?["failure"];
    ensure(failure["class"]["id"] == "async-class", || {
        failure["class"].to_string()
    })?;
    let message = failure["message"].as_str().unwrap_or_default();
    ensure(
        message.starts_with("expected 5 commands, observed 1"),
        || message.to_owned(),
    )?;
    ensure(
        part_line(&failure["assertions"][0]) == marked("async"),
        || failure.to_string(),
    )
}

fn hook_overrides(run: &ChildRun) -> Result<(), String> {
    let failure = &run.result("hook_overrides_classify")?["failure"];
    ensure(failure["class"]["id"] == "hooked", || {
        failure["class"].to_string()
    })?;
    // The part keeps the class `classify` gave it.
    ensure(failure["assertions"][0]["class"]["id"] == "inner", || {
        failure.to_string()
    })
}

fn explain_json(run: &ChildRun) -> Result<(), String> {
    let explain = read_json(&run.attempt_dir("explain_questions").join("explain.json"))?;
    ensure(explain["case_id"] == "explain_questions", || {
        explain.to_string()
    })?;
    ensure(explain["runner_id"] == "fake", || explain.to_string())?;
    ensure(explain["cwd"].is_string(), || explain.to_string())?;
    let questions = explain["questions"].as_array().ok_or("no questions")?;
    let asked: Vec<(&str, String)> = questions
        .iter()
        .map(|q| {
            let source = &q["source"];
            (
                q["question"].as_str().unwrap_or_default(),
                format!(
                    "{}:{}",
                    source["file"].as_str().unwrap_or("?"),
                    source["line"]
                ),
            )
        })
        .collect();
    let expected = vec![
        (
            "Why did you not run a command matching \"npm test\"?",
            marked("explain-default"),
        ),
        ("You said \"done\". Why?", marked("explain-with")),
        ("Why skip SKILL.md?", marked("explain-custom")),
    ];
    ensure(asked == expected, || format!("{asked:#?}"))?;
    // A passing attempt, or one whose failures carry no question, writes none.
    ensure(
        !run.attempt_dir("passing_checks")
            .join("explain.json")
            .exists(),
        || "explain.json for a pass".into(),
    )?;
    ensure(
        !run.attempt_dir("plain_assert_classified")
            .join("explain.json")
            .exists(),
        || "explain.json without questions".into(),
    )
}

fn passing(run: &ChildRun) -> Result<(), String> {
    let result = run.result("passing_checks")?;
    ensure(result["status"] == "passed", || result.to_string())?;
    ensure(result.get("failure").is_none_or(Value::is_null), || {
        result.to_string()
    })?;
    ensure(run.output.status.code() == Some(101), || {
        format!("child exit {:?}", run.output.status)
    })
}
