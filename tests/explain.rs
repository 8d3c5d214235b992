//! End-to-end tests of `cargo skillgym explain` and a benchmark binary's `--explain` mode, with
//! the scriptable fake agent as a `command` runner that resumes with `--resume {session_id}`.
//!
//! This target is its own harness (`harness = false`). Run as a child (`EXPLAIN_E2E_CHILD=1`)
//! it is a skillgym benchmark binary whose cases are below; run by cargo it is the driver, whose
//! trials run the child (and `cargo skillgym explain`, which runs the child again through the
//! run's `run.json`) with a temporary `skillgym.yaml`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use skillgym::prelude::*;
use skillgym_e2e::{cargo_skillgym, stderr, stdout, temp_dir, without_outer_runner_env};

const CHILD: &str = "EXPLAIN_E2E_CHILD";
const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

const FIRST: &str = "Why did you not run cargo test?";
const SECOND: &str = "Why did you not read README.md?";

/// Two failed assertions, each with its question.
#[skillgym::case(prompt = "Fix the build.")]
fn two_questions(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report)
        .commands()
        .explain(FIRST)
        .includes("cargo test");
    ctx.soft(report)
        .file_reads()
        .explain(SECOND)
        .includes("README.md");
}

/// A passing case: nothing to explain.
#[skillgym::case(prompt = "Say hi.")]
fn passes(_report: &SessionReport) {}

/// A failure without a question.
#[skillgym::case(prompt = "Say hi.")]
fn fails_without_a_question(_report: &SessionReport) {
    panic!("no question here");
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return skillgym_harness::main();
    }
    let arguments = Arguments::from_args();
    let trials = vec![
        Trial::test("explains_an_attempt_then_reuses_then_reruns", || {
            explains_an_attempt_then_reuses_then_reruns()
        }),
        Trial::test("explaining_a_run_dir_explains_every_failed_attempt", || {
            explaining_a_run_dir_explains_every_failed_attempt()
        }),
        Trial::test("the_scripted_model_answers_under_mock", || {
            the_scripted_model_answers_under_mock()
        }),
        Trial::test("without_questions_or_resume_explain_says_why", || {
            without_questions_or_resume_explain_says_why()
        }),
        Trial::test("a_missing_binary_names_the_cargo_command", || {
            a_missing_binary_names_the_cargo_command()
        }),
        Trial::test(
            "a_run_json_naming_a_program_in_the_run_directory_runs_nothing",
            a_run_json_naming_a_program_in_the_run_directory_runs_nothing,
        ),
        Trial::test(
            "an_edited_explain_json_cannot_move_the_session_elsewhere",
            an_edited_explain_json_cannot_move_the_session_elsewhere,
        ),
    ];
    libtest_mimic::run(&arguments, trials).exit_code()
}

/// A scratch directory with a `skillgym.yaml` whose runners run the fake agent with `script`;
/// `resume` gives them `resume_args`.
struct Setup {
    dir: skillgym_e2e::TempDir,
    config: PathBuf,
}

impl Setup {
    fn new(label: &str, runners: &[&str], script: &str, resume: bool) -> Setup {
        let dir = temp_dir(label);
        let state = dir.path().join("state");
        fs::create_dir_all(&state).unwrap();
        let mut yaml = format!(
            "run:\n  output_dir: {}\n  workspace: {{ mode: isolated }}\nrunners:\n",
            dir.path().join("runs").display()
        );
        for runner in runners {
            yaml.push_str(&format!(
                "  {runner}:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n{}      env:\n        FAKE_AGENT_SCRIPT: {}\n        FAKE_AGENT_STATE_DIR: {}\n",
                if resume {
                    "      resume_args: [--resume, \"{session_id}\"]\n"
                } else {
                    ""
                },
                serde_json::to_string(script).unwrap(),
                state.display()
            ));
        }
        let config = dir.path().join("skillgym.yaml");
        fs::write(&config, yaml).unwrap();
        Setup { dir, config }
    }

    /// Runs the child harness with this config and `args`.
    fn run(&self, args: &[&str], run_id: &str) -> Output {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .env("SKILLGYM_RUN_ID", run_id);
        child_env(&mut command);
        command.output().unwrap()
    }

    fn run_dir(&self, run_id: &str) -> PathBuf {
        self.dir.path().join("runs").join(run_id)
    }

    /// How many sessions the fake agent ran.
    fn calls(&self) -> u32 {
        fs::read_to_string(self.dir.path().join("state/calls"))
            .map_or(0, |text| text.trim().parse().unwrap())
    }
}

/// A child's environment: the outer runner's variables removed, child mode on.
fn child_env(command: &mut Command) {
    without_outer_runner_env(command);
    command.env(CHILD, "1");
}

/// Runs `cargo skillgym <args>` (in child mode, which the benchmark binary it runs inherits).
fn cargo_skillgym_run(args: &[&str]) -> Output {
    let mut command = Command::new(cargo_skillgym());
    command.arg("skillgym").args(args);
    child_env(&mut command);
    command.output().unwrap()
}

fn attempt_dir(run_dir: &Path, case: &str, runner: &str) -> PathBuf {
    run_dir
        .join(case)
        .join(runner)
        .join("repeat-1")
        .join("attempt-1")
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn both(output: &Output) -> String {
    format!("{}\n{}", stdout(output), stderr(output))
}

fn check(condition: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if condition {
        Ok(())
    } else {
        Err(what().into())
    }
}

const SCRIPT: &str = "count calls\nrecord call.json\nemit {\"type\":\"session\",\"id\":\"fake-session\"}\necho-prompt\n";

fn explains_an_attempt_then_reuses_then_reruns() -> Result<(), Failed> {
    let setup = Setup::new("explain-attempt", &["fake"], SCRIPT, true);
    let run = setup.run(&["two_questions"], "r1");
    check(run.status.code() == Some(101), || {
        format!("the case fails: {}", both(&run))
    })?;
    let attempt = attempt_dir(&setup.run_dir("r1"), "two_questions", "fake");
    let hint = format!("cargo skillgym explain {}", attempt.display());
    // In libtest's failure text and in the summary.
    let out = stdout(&run);
    check(out.matches(&hint).count() == 2, || {
        format!("the hint `{hint}` twice in:\n{out}")
    })?;
    check(setup.calls() == 1, || {
        format!("one session: {}", setup.calls())
    })?;

    // The exact command of the hint.
    let words: Vec<&str> = hint.split_whitespace().collect();
    assert_eq!(words[..2], ["cargo", "skillgym"]);
    let explained = cargo_skillgym_run(&words[2..]);
    check(explained.status.success(), || {
        format!("explain succeeds: {}", both(&explained))
    })?;
    // It says which binary it runs, and why that one.
    let running = format!(
        "skillgym: running {} (the benchmark binary recorded in {})",
        std::env::current_exe().unwrap().display(),
        setup.run_dir("r1").join("run.json").display()
    );
    check(stderr(&explained).contains(&running), || {
        format!("`{running}` in: {}", both(&explained))
    })?;
    check(setup.calls() == 3, || {
        format!("one session per question: {}", setup.calls())
    })?;
    for (number, question) in [(1, FIRST), (2, SECOND)] {
        let dir = attempt.join(format!("explain/question-{number:02}"));
        check(
            fs::read_to_string(dir.join("prompt.md")).ok().as_deref() == Some(question),
            || format!("{}/prompt.md holds `{question}`", dir.display()),
        )?;
        check(dir.join("stdout.log").is_file(), || {
            format!("{}/stdout.log", dir.display())
        })?;
        check(dir.join("report.json").is_file(), || {
            format!("{}/report.json", dir.display())
        })?;
    }
    // The resumed session ran in the attempt's workspace, with the resume arguments.
    let explain = read_json(&attempt.join("explain.json"));
    let workspace = explain["cwd"].as_str().unwrap().to_owned();
    let call = read_json(&Path::new(&workspace).join("call.json"));
    check(call["cwd"] == workspace.as_str(), || format!("{call}"))?;
    let argv: Vec<&str> = call["argv"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .filter_map(Value::as_str)
        .collect();
    check(argv == ["--resume", "fake-session", SECOND], || {
        format!("{argv:?}")
    })?;
    let explanations = read_json(&attempt.join("explanations.json"));
    let answers: Vec<(&str, &str)> = explanations["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["question"].as_str().unwrap(),
                q["answer"].as_str().unwrap(),
            )
        })
        .collect();
    // The fake agent answers with the question it was asked.
    check(answers == [(FIRST, FIRST), (SECOND, SECOND)], || {
        format!("{explanations:#}")
    })?;
    check(
        explanations["case_id"] == "two_questions"
            && explanations["runner_id"] == "fake"
            && explanations["session_id"] == "fake-session"
            && explanations["questions"][0]["source"]["file"] == "tests/explain.rs",
        || format!("{explanations:#}"),
    )?;
    let printed = stdout(&explained);
    check(
        printed.contains("Question 1 (tests/explain.rs:")
            && printed.contains(&format!("  {SECOND}")),
        || printed.clone(),
    )?;

    // Again: the stored answers, no new session.
    let modified = |path: PathBuf| fs::metadata(path).unwrap().modified().unwrap();
    let before = modified(attempt.join("explain/question-01/stdout.log"));
    let reused = cargo_skillgym_run(&words[2..]);
    check(reused.status.success(), || both(&reused))?;
    check(setup.calls() == 3, || {
        format!("no session when reusing: {}", setup.calls())
    })?;
    check(
        stdout(&reused).contains("pass --rerun to ask again") && stdout(&reused).contains(SECOND),
        || both(&reused),
    )?;
    check(
        modified(attempt.join("explain/question-01/stdout.log")) == before,
        || "the question's artifacts are untouched".to_owned(),
    )?;

    // --rerun asks again, and replaces the answers.
    let rerun = cargo_skillgym_run(&[words[2], words[3], "--rerun"]);
    check(rerun.status.success(), || both(&rerun))?;
    check(setup.calls() == 5, || {
        format!("two more sessions: {}", setup.calls())
    })?;
    let again = read_json(&attempt.join("explanations.json"));
    check(again["created_at"] != explanations["created_at"], || {
        format!("{again:#}")
    })?;
    Ok(())
}

fn explaining_a_run_dir_explains_every_failed_attempt() -> Result<(), Failed> {
    let setup = Setup::new("explain-run", &["fake", "other"], SCRIPT, true);
    let run = setup.run(&[], "r1");
    check(run.status.code() == Some(101), || both(&run))?;
    let run_dir = setup.run_dir("r1");
    // Through the binary's own flag, as `cargo skillgym explain` runs it.
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .arg("--config")
        .arg(&setup.config)
        .arg("--explain")
        .arg(&run_dir);
    child_env(&mut command);
    let explained = command.output().unwrap();
    check(explained.status.success(), || both(&explained))?;
    for runner in ["fake", "other"] {
        let attempt = attempt_dir(&run_dir, "two_questions", runner);
        check(attempt.join("explanations.json").is_file(), || {
            format!("{} explained: {}", attempt.display(), both(&explained))
        })?;
        check(
            attempt.join("explain/question-02/stdout.log").is_file(),
            || format!("{}", attempt.display()),
        )?;
        for case in ["passes", "fails_without_a_question"] {
            let other = attempt_dir(&run_dir, case, runner);
            check(!other.join("explanations.json").exists(), || {
                format!("{} has nothing to explain", other.display())
            })?;
        }
    }
    // 3 cases x 2 runners, then 2 questions x 2 attempts.
    check(setup.calls() == 10, || format!("{}", setup.calls()))?;
    let order: Vec<usize> = ["two_questions/fake", "two_questions/other"]
        .iter()
        .map(|needle| stdout(&explained).find(needle).unwrap_or(usize::MAX))
        .collect();
    check(order[0] < order[1] && order[1] != usize::MAX, || {
        both(&explained)
    })?;
    Ok(())
}

fn the_scripted_model_answers_under_mock() -> Result<(), Failed> {
    let script = "count calls\nemit {\"type\":\"session\",\"id\":\"fake-session\"}\nchat\n";
    let setup = Setup::new("explain-mock", &["fake"], script, true);
    let run = setup.run(&["--mock", "two_questions"], "r1");
    check(run.status.code() == Some(101), || both(&run))?;
    let attempt = attempt_dir(&setup.run_dir("r1"), "two_questions", "fake");
    check(
        read_json(&setup.run_dir("r1").join("run.json"))["mock"] == true,
        || "run.json records the --mock run".to_owned(),
    )?;
    // `cargo skillgym explain` explains a --mock run under --mock.
    let explained = cargo_skillgym_run(&["explain", attempt.to_str().unwrap()]);
    check(explained.status.success(), || both(&explained))?;
    let explanations = read_json(&attempt.join("explanations.json"));
    for (index, question) in [FIRST, SECOND].iter().enumerate() {
        let expected = format!("skillgym mock: a scripted answer to \"{question}\"");
        check(
            explanations["questions"][index]["answer"] == expected.as_str(),
            || format!("{explanations:#}"),
        )?;
        let log = attempt.join(format!(
            "explain/question-{:02}/mock-requests.jsonl",
            index + 1
        ));
        check(
            fs::read_to_string(&log).is_ok_and(|text| text.contains(question)),
            || format!("{} holds the question", log.display()),
        )?;
    }
    Ok(())
}

fn without_questions_or_resume_explain_says_why() -> Result<(), Failed> {
    let setup = Setup::new("explain-none", &["fake"], SCRIPT, false);
    let run = setup.run(&[], "r1");
    check(run.status.code() == Some(101), || both(&run))?;
    check(!stdout(&run).contains("cargo skillgym explain"), || {
        format!("no hint when the agent cannot resume:\n{}", stdout(&run))
    })?;
    let run_dir = setup.run_dir("r1");
    let attempt = attempt_dir(&run_dir, "two_questions", "fake");
    let explained = cargo_skillgym_run(&["explain", attempt.to_str().unwrap()]);
    check(explained.status.code() == Some(2), || both(&explained))?;
    check(
        stderr(&explained).contains(
            "runner `fake` (command) cannot resume a session; give the runner `agent.resume_args`",
        ),
        || both(&explained),
    )?;
    let none = attempt_dir(&run_dir, "fails_without_a_question", "fake");
    let explained = cargo_skillgym_run(&["explain", none.parent().unwrap().to_str().unwrap()]);
    check(explained.status.code() == Some(2), || both(&explained))?;
    check(
        stderr(&explained).contains("recorded questions (no explain.json)")
            && stderr(&explained).contains(".explain("),
        || both(&explained),
    )?;
    Ok(())
}

fn a_missing_binary_names_the_cargo_command() -> Result<(), Failed> {
    let dir = temp_dir("explain-stale");
    let attempt = dir.path().join("run/a/fake/repeat-1/attempt-1");
    fs::create_dir_all(&attempt).unwrap();
    fs::write(attempt.join("explain.json"), "{}").unwrap();
    fs::write(
        dir.path().join("run/run.json"),
        r#"{"executable":"/nowhere/benchmarks-0123456789abcdef","crate_dir":"/nowhere","created_at":"2026-01-01T00:00:00.000Z"}"#,
    )
    .unwrap();
    let explained = cargo_skillgym_run(&["explain", attempt.to_str().unwrap()]);
    check(explained.status.code() == Some(2), || both(&explained))?;
    let expected = format!(
        "cargo test --test benchmarks -- --explain {}",
        attempt.display()
    );
    check(stderr(&explained).contains(&expected), || both(&explained))?;
    Ok(())
}

fn a_run_json_naming_a_program_in_the_run_directory_runs_nothing() -> Result<(), Failed> {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = temp_dir("explain-planted");
    let run = dir.path().join("run");
    let attempt = run.join("a/fake/repeat-1/attempt-1");
    fs::create_dir_all(&attempt).unwrap();
    fs::write(attempt.join("explain.json"), "{}").unwrap();
    // A program planted in the run directory, which leaves a mark when it runs.
    let planted = run.join("x.sh");
    let mark = dir.path().join("ran");
    fs::write(&planted, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    fs::set_permissions(&planted, fs::Permissions::from_mode(0o755)).unwrap();
    for (executable, why) in [
        ("./x.sh".to_owned(), "is not an absolute path"),
        (planted.display().to_string(), "is inside the run directory"),
    ] {
        let record = serde_json::json!({
            "executable": executable,
            "crate_dir": run,
            "created_at": "2026-01-01T00:00:00.000Z",
        });
        fs::write(run.join("run.json"), record.to_string()).unwrap();
        // From inside the run directory, where `./x.sh` is the planted program.
        let mut command = Command::new(cargo_skillgym());
        command
            .args(["skillgym", "explain", attempt.to_str().unwrap()])
            .current_dir(&run);
        child_env(&mut command);
        let explained = command.output().unwrap();
        check(explained.status.code() == Some(2), || both(&explained))?;
        let expected = format!(
            "error: {} names `{executable}` as `executable`, which {why}: explain runs only the benchmark binary a run recorded, an executable file outside the run directory",
            run.join("run.json").display()
        );
        check(stderr(&explained).contains(&expected), || {
            format!("`{expected}` in: {}", both(&explained))
        })?;
        check(!mark.exists(), || format!("{executable} ran"))?;
    }
    Ok(())
}

fn an_edited_explain_json_cannot_move_the_session_elsewhere() -> Result<(), Failed> {
    let setup = Setup::new("explain-moved", &["fake"], SCRIPT, true);
    let run = setup.run(&["two_questions"], "r1");
    check(run.status.code() == Some(101), || both(&run))?;
    let attempt = attempt_dir(&setup.run_dir("r1"), "two_questions", "fake");
    let elsewhere = setup.dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let file = attempt.join("explain.json");
    let mut request = read_json(&file);
    request["cwd"] = Value::from(elsewhere.to_str().unwrap());
    fs::write(&file, request.to_string()).unwrap();

    let explained = cargo_skillgym_run(&["explain", attempt.to_str().unwrap()]);
    check(explained.status.code() == Some(2), || both(&explained))?;
    let expected = format!(
        "{} names the workspace `{}`, which is not one skillgym made (inside a run's workspace root, one holding `.skillgym-workspace-root`): skillgym runs nothing there",
        file.display(),
        elsewhere.display()
    );
    check(stderr(&explained).contains(&expected), || {
        format!("`{expected}` in: {}", both(&explained))
    })?;
    check(setup.calls() == 1, || {
        format!("no session resumed: {}", setup.calls())
    })?;
    check(!elsewhere.join("call.json").exists(), || {
        "the agent ran elsewhere".to_owned()
    })?;
    check(!attempt.join("explanations.json").exists(), || {
        "no answers".to_owned()
    })?;
    Ok(())
}
