//! Agent text is data: what agents, graders and suite files say reaches skillgym's output
//! escaped, never as bytes that drive a terminal or lines a CI runner reads as commands.
//!
//! This target is its own harness (`harness = false`). Run as a child (`AGENT_TEXT_CHILD=1`) it
//! is a skillgym benchmark binary whose cases are below, on two fake-agent runners: `fake`,
//! whose final answer, failed command and stderr carry [`PAYLOAD`], and `crashing`, which
//! writes the payload to stderr and exits 1. A suite adds a code grader that prints the payload
//! and a case directory whose name holds it. Run by cargo it is the driver: each trial runs the
//! child (or `cargo skillgym report` / `explain` on its run) and reads every byte printed on
//! stdout and stderr.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};
use skillgym::prelude::*;
use skillgym::{Error, SessionEvent};
use skillgym_e2e::{TempDir, cargo_skillgym, temp_dir, without_outer_runner_env};

const CHILD: &str = "AGENT_TEXT_CHILD";
const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// What a hostile agent says: workflow commands at the start of a line (bare and indented),
/// the legacy `##[` form, a screen erase, NUL, backspace, bell, a carriage return that would
/// overwrite its line, an OSC 8 hyperlink and an OSC 52 clipboard write.
const PAYLOAD: &str = "::add-mask::agent-secret-1\n  ::stop-commands::agent-token\nESC \x1b[2J NUL \0 BS \x08 BEL \x07 hidden\rover OSC8 \x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\ OSC52 \x1b]52;c;aGk=\x07 legacy ##[add-mask]agent-legacy end";

/// The question of the failed assertion, for `explain`.
const QUESTION: &str = "Why did you not say it?";

/// A failed soft assertion on the final output: its failure quotes the output.
#[skillgym::case(prompt = "Fix the build.")]
fn quotes_the_final_output(report: &SessionReport, ctx: &mut CaseContext) {
    ctx.soft(report)
        .output()
        .explain(QUESTION)
        .includes("words the agent never said");
}

/// A case that fails with the failed command's output, first flattened onto the first line
/// (which the summary, the annotations and the JUnit `message` show), then as it was.
#[skillgym::case(prompt = "Fix the build.")]
fn quotes_the_failed_command(report: &SessionReport) -> skillgym::Result {
    let output = report
        .events
        .iter()
        .find_map(|event| match event {
            SessionEvent::ToolResult {
                output,
                is_error: true,
                ..
            } => Some(output.as_str()),
            _ => None,
        })
        .unwrap_or("no failed command");
    Err(Error::msg(format!(
        "{} (the command failed)\n{output}",
        output.replace('\n', " | ")
    )))
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return skillgym_harness::main();
    }
    let trials = vec![
        Trial::test("a_run_prints_agent_text_escaped", || {
            a_run_prints_agent_text_escaped()
        }),
        Trial::test("in_github_actions_the_only_commands_are_skillgyms", || {
            in_github_actions_the_only_commands_are_skillgyms()
        }),
        Trial::test("the_junit_document_on_stdout_is_inert", || {
            the_junit_document_on_stdout_is_inert()
        }),
        Trial::test("a_process_per_test_prints_agent_text_escaped", || {
            a_process_per_test_prints_agent_text_escaped()
        }),
        Trial::test("report_and_explain_print_agent_text_escaped", || {
            report_and_explain_print_agent_text_escaped()
        }),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// A scratch directory: `skillgym.yaml` (the runners `fake` and `crashing`, the suite), the
/// suite, the grader's payload file and the agent's state.
struct Setup {
    dir: TempDir,
}

impl Setup {
    fn new(label: &str) -> Setup {
        let dir = temp_dir(label);
        let root = dir.path();
        fs::create_dir_all(root.join("state")).unwrap();
        fs::write(root.join("payload.txt"), PAYLOAD).unwrap();
        let suite = root.join("suite");
        fs::create_dir_all(suite.join("cases/grader")).unwrap();
        fs::write(suite.join("EVAL.yaml"), "name: graded\ntests: ./cases/\n").unwrap();
        fs::write(
            suite.join("cases/grader/case.yaml"),
            format!(
                "input: Fix the build.\nassertions:\n  - type: code-grader\n    command: {}\n",
                serde_json::to_string(&format!(
                    "cat '{0}'; cat '{0}' >&2; exit 1",
                    root.join("payload.txt").display()
                ))
                .unwrap()
            ),
        )
        .unwrap();
        // A directory without a case file is skipped with a warning that names it.
        let hostile_name = "notes\n::add-mask::dir-secret \x1b[31mred\x07";
        fs::create_dir_all(suite.join("cases").join(hostile_name)).unwrap();
        fs::write(suite.join("cases").join(hostile_name).join("README.md"), "").unwrap();

        let stderr_lines: String = PAYLOAD
            .replace('\0', "")
            .lines()
            .map(|line| format!("stderr {line}\n"))
            .collect();
        let event = |value: serde_json::Value| format!("emit {value}\n");
        let fake = [
            "count calls\n".to_owned(),
            event(serde_json::json!({"type": "session", "id": "fake-session"})),
            event(
                serde_json::json!({"type": "tool_call", "tool": "bash", "id": "t1",
                "args": {"command": PAYLOAD}}),
            ),
            event(
                serde_json::json!({"type": "tool_result", "id": "t1", "output": PAYLOAD,
                "is_error": true}),
            ),
            event(serde_json::json!({"type": "command", "command": PAYLOAD, "exit_code": 1})),
            event(
                serde_json::json!({"type": "message", "role": "assistant", "phase": "final",
                "text": PAYLOAD}),
            ),
            stderr_lines.clone(),
        ]
        .concat();
        let crashing = format!("{stderr_lines}exit 1\n");
        let runner = |name: &str, script: &str| {
            format!(
                "  {name}:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      resume_args: [--resume, \"{{session_id}}\"]\n      env:\n        FAKE_AGENT_SCRIPT: {}\n        FAKE_AGENT_STATE_DIR: {}\n",
                serde_json::to_string(script).unwrap(),
                root.join("state").display()
            )
        };
        let config = format!(
            "run:\n  output_dir: {}\n  workspace: {{ mode: isolated }}\nsuites: [{}]\nrunners:\n{}{}",
            root.join("runs").display(),
            suite.display(),
            runner("fake", &fake),
            runner("crashing", &crashing),
        );
        fs::write(root.join("skillgym.yaml"), config).unwrap();
        Setup { dir }
    }

    /// Runs the child harness with this config, run id `run_id`, `args` and `env`.
    fn run(&self, run_id: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .arg("--config")
            .arg(self.dir.path().join("skillgym.yaml"))
            .args(args)
            .env("SKILLGYM_RUN_ID", run_id);
        child_env(&mut command);
        // Not a workflow unless a trial says so, whatever runs these tests.
        command
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY");
        command.envs(env.iter().copied());
        command.output().unwrap()
    }

    fn run_dir(&self, run_id: &str) -> PathBuf {
        self.dir.path().join("runs").join(run_id)
    }
}

/// A child's environment: the outer runner's variables removed, child mode on.
fn child_env(command: &mut Command) {
    without_outer_runner_env(command);
    command.env(CHILD, "1");
}

/// Why `bytes` (what `what` printed) could act on a terminal or a CI runner, if they could: a
/// control byte other than line feed and tab, a line whose first non-blank characters are `::`
/// (unless `commands` accepts the line: skillgym's own workflow commands), or `##[` anywhere.
fn hazards(what: &str, bytes: &[u8], commands: impl Fn(&str) -> bool) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut found = Vec::new();
    for (number, line) in text.split('\n').enumerate() {
        let at = || format!("{what}, line {}: {line:?}", number + 1);
        if line.chars().any(|c| c.is_control() && c != '\t') {
            found.push(format!("a control character in {}", at()));
        }
        if line.trim_start().starts_with("::") && !commands(line) {
            found.push(format!("a workflow command in {}", at()));
        }
        if line.contains("##[") {
            found.push(format!("a legacy workflow command in {}", at()));
        }
    }
    found
}

/// [`hazards`] of both streams of `output`, no workflow command allowed.
fn output_hazards(what: &str, output: &Output) -> Vec<String> {
    let mut found = hazards(&format!("{what} stdout"), &output.stdout, |_| false);
    found.extend(hazards(&format!("{what} stderr"), &output.stderr, |_| {
        false
    }));
    found
}

fn both(output: &Output) -> String {
    format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn check(condition: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if condition {
        Ok(())
    } else {
        Err(what().into())
    }
}

fn none(found: Vec<String>, output: &Output) -> Result<(), Failed> {
    check(found.is_empty(), || {
        format!("{}\n\n{}", found.join("\n"), both(output))
    })
}

fn a_run_prints_agent_text_escaped() -> Result<(), Failed> {
    let setup = Setup::new("agent-text-run");
    let run = setup.run("r1", &[], &[]);
    check(run.status.code() == Some(101), || {
        format!("every execution fails: {}", both(&run))
    })?;
    none(output_hazards("the run", &run), &run)?;
    let out = String::from_utf8_lossy(&run.stdout);
    let err = String::from_utf8_lossy(&run.stderr);
    // The text is still there to read, escaped: from the final output, the failed command,
    // the agent's stderr and the grader.
    for shown in [
        r"\u{3a}:add-mask::agent-secret-1",
        r"  \u{3a}:stop-commands::agent-token",
        r"ESC \u{1b}[2J NUL \0 BS \u{8} BEL \u{7} hidden\rover",
        r"OSC52 \u{1b}]52;c;aGk=\u{7} legacy ##\u{5b}add-mask]agent-legacy end",
    ] {
        check(out.matches(shown).count() >= 4, || {
            format!("`{shown}` in each failure:\n{}", both(&run))
        })?;
    }
    check(
        out.contains(
            "skillgym:   [fake] quotes_the_failed_command: ::add-mask::agent-secret-1 |   ::stop-commands::agent-token | ESC \\u{1b}[2J",
        ),
        || format!("the summary's first line, escaped: {}", both(&run)),
    )?;
    check(
        err.contains("notes\n\\u{3a}:add-mask::dir-secret \\u{1b}[31mred\\u{7}"),
        || {
            format!(
                "the suite's warning names the directory, escaped: {}",
                both(&run)
            )
        },
    )?;
    Ok(())
}

fn in_github_actions_the_only_commands_are_skillgyms() -> Result<(), Failed> {
    let setup = Setup::new("agent-text-actions");
    let summary = setup.dir.path().join("step-summary.md");
    let run = setup.run(
        "r1",
        &["--reporter", "github-actions"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    check(run.status.code() == Some(101), || {
        format!("every execution fails: {}", both(&run))
    })?;
    let ours = |line: &str| line.starts_with("::error ") || line.starts_with("::warning ");
    let mut found = hazards("stdout", &run.stdout, ours);
    found.extend(hazards("stderr", &run.stderr, |_| false));
    none(found, &run)?;
    let out = String::from_utf8_lossy(&run.stdout);
    let annotations: Vec<&str> = out.lines().filter(|line| ours(line)).collect();
    check(annotations.len() == 6, || {
        format!("an annotation per failed execution: {annotations:#?}")
    })?;
    // The agent's text is the message's data, escaped: no `%`-escape of the workflow-command
    // rules is missing and no control character is left.
    let failed_command = annotations
        .iter()
        .find(|line| line.contains("title=[fake] quotes_the_failed_command::"))
        .ok_or_else(|| format!("the failed command's annotation: {annotations:#?}"))?;
    check(
        failed_command.ends_with(
            "::::add-mask::agent-secret-1 |   ::stop-commands::agent-token | ESC \\u{1b}[2J NUL \\0 BS \\u{8} BEL \\u{7} hidden%0Dover OSC8 \\u{1b}]8;;https://example.invalid\\u{1b}\\link\\u{1b}]8;;\\u{1b}\\ OSC52 \\u{1b}]52;c;aGk=\\u{7} legacy ##\\u{5b}add-mask]agent-legacy end (the command failed)",
        ),
        || format!("the annotation's message: {failed_command}"),
    )?;
    let job_summary = fs::read(&summary).map_err(|e| format!("{}: {e}", summary.display()))?;
    none(hazards("the job summary", &job_summary, |_| false), &run)
}

fn the_junit_document_on_stdout_is_inert() -> Result<(), Failed> {
    let setup = Setup::new("agent-text-junit");
    let run = setup.run("r1", &["--format", "junit"], &[]);
    check(run.status.code() == Some(101), || {
        format!("every execution fails: {}", both(&run))
    })?;
    none(output_hazards("--format junit", &run), &run)?;
    let out = String::from_utf8_lossy(&run.stdout);
    check(out.starts_with("<?xml"), || {
        format!("stdout is the document: {}", both(&run))
    })?;
    // A line of the document that began with `::` begins with its character reference.
    check(out.contains("\n&#58;:add-mask::agent-secret-1"), || {
        format!("the output quoted, its first colon a reference: {out}")
    })
}

fn a_process_per_test_prints_agent_text_escaped() -> Result<(), Failed> {
    let setup = Setup::new("agent-text-per-test");
    for trial in [
        "[fake] quotes_the_failed_command",
        "[crashing] quotes_the_final_output",
    ] {
        let run = setup.run(
            "r1",
            &["--exact", trial],
            &[
                ("NEXTEST_EXECUTION_MODE", "process-per-test"),
                ("NEXTEST_RUN_ID", "r1"),
            ],
        );
        check(run.status.code() == Some(101), || {
            format!("{trial} fails: {}", both(&run))
        })?;
        none(output_hazards(trial, &run), &run)?;
    }
    Ok(())
}

fn report_and_explain_print_agent_text_escaped() -> Result<(), Failed> {
    let setup = Setup::new("agent-text-report");
    let run = setup.run("r1", &[], &[]);
    check(run.status.code() == Some(101), || {
        format!("every execution fails: {}", both(&run))
    })?;
    let run_dir = setup.run_dir("r1");
    let mut report = Command::new(cargo_skillgym());
    report
        .arg("skillgym")
        .arg("report")
        .arg(&run_dir)
        .args(["--out", setup.dir.path().join("report").to_str().unwrap()]);
    child_env(&mut report);
    let report = report.output().unwrap();
    check(report.status.code() == Some(1), || {
        format!(
            "`cargo skillgym report` sees the failures: {}",
            both(&report)
        )
    })?;
    none(output_hazards("cargo skillgym report", &report), &report)?;

    let attempt = run_dir.join("quotes_the_final_output/fake/repeat-1/attempt-1");
    let mut explain = Command::new(cargo_skillgym());
    explain.arg("skillgym").arg("explain").arg(&attempt);
    child_env(&mut explain);
    let explain = explain.output().unwrap();
    check(explain.status.success(), || {
        format!("`cargo skillgym explain` answers: {}", both(&explain))
    })?;
    none(output_hazards("cargo skillgym explain", &explain), &explain)?;
    let out = String::from_utf8_lossy(&explain.stdout);
    check(
        out.contains("  \\u{3a}:add-mask::agent-secret-1\n    \\u{3a}:stop-commands::agent-token"),
        || format!("the answer, escaped: {}", both(&explain)),
    )
}
