//! `code-grader`: a command that grades the attempt, fed one JSON document on stdin.
//!
//! | step | what happens |
//! |---|---|
//! | command | a string runs as `sh -c <string>`; an argv runs directly (no shell) |
//! | cwd | `cwd:` (resolved by the loader), else **the attempt's workspace** (for a replayed attempt: only when the recorded one still exists and is a workspace skillgym made, inside a run's workspace root, or the configured directory of workspace mode `none`; else the grader errors and nothing runs), else the case directory. agentv defaults to the eval file's directory, so a grader that runs the project's tests must `cd "$AGENTV_WORKSPACE_PATH"`; skillgym does not reproduce that |
//! | environment | the harness's, plus `SKILLGYM_WORKSPACE_PATH` and `AGENTV_WORKSPACE_PATH` (the workspace, when there is one) and `PWD` |
//! | stdin | the [document](stdin_document) below, then closed |
//! | timeout | `timeout:`, else the case's; on expiry the whole process group is killed (and what escaped it, see `crate::reaper`) and the grader errors |
//! | stderr | kept in `<artifact dir>/grader-<name>.stderr.log` when there is an artifact directory and the grader wrote any, secrets masked |
//! | stdout, a JSON object | `score` (a number, clamped to 0..=1) and/or `assertions: [{text, passed, evidence?}]`, `details` (any JSON, kept); missing `score` → assertions passed / assertions; neither → error |
//! | stdout, anything else | exit 0 → score 1, else 0; the check is the trimmed stdout (else `exit N`), with the stderr tail as evidence |
//! | errors (score 0; the attempt fails with origin `grader-error`, which `expected_fail` does not forgive) | the command does not start (an argv whose program is missing, or a shell line whose `sh` exits 127 "command not found" or 126 "not executable"), times out, exits non-zero with JSON-looking stdout (the stderr tail is shown), prints a JSON object with a bad `score` or `assertions`, or prints `{`-led text that is not JSON |
//!
//! The verdict is `score >= 0.8`.
//!
//! The stdin document, one JSON object:
//!
//! | key | value |
//! |---|---|
//! | `criteria` | the case's `criteria` (string or null) |
//! | `expected_output` | the case's `expected_output` (as written: string, messages, or null) |
//! | `output` | the final answer (string) |
//! | `input` | the case's `input` |
//! | `metadata` | the case's `metadata` (or null) |
//! | `report` | the normalized `SessionReport` as JSON (events, tool calls, skills, usage, timing) |
//! | `token_usage` | `{input, output, cached, reasoning, total}` (each a number or null), or null when no figure is known |
//! | `cost_usd` | number or null (an estimate from token counts when `report.usage.cost_estimated`) |
//! | `duration_ms` | the session's duration, number or null |
//! | `workspace_path` | the attempt's workspace (string or null) |
//! | `config` | the grader's `config:` and its unknown keys |
//!
//! Unlike agentv, a non-zero exit with plain stdout and some stderr is a plain failure
//! (score 0, stderr as evidence), not a grader error: test runners such as `bun test`
//! report on stderr.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::spec::{CodeGraderSpec, GraderCommand};
use super::{Check, GradeError, GradeInput, GraderOutcome, PASS_SCORE};
use crate::oneshot::{Ran, run};

/// How much of stderr's end an error shows.
const STDERR_TAIL: usize = 2000;

/// Grades `code-grader` `name`.
pub(crate) fn grade(
    name: &str,
    spec: &CodeGraderSpec,
    input: &GradeInput<'_>,
) -> Result<GraderOutcome, GradeError> {
    let cwd: PathBuf = match (&spec.cwd, input.workspace, input.workspace_gone) {
        (Some(cwd), _, _) => cwd.clone(),
        (None, Some(workspace), _) => workspace.to_path_buf(),
        (None, None, Some(recorded)) if recorded.exists() => {
            // There, but refused: not a workspace skillgym made (`workspace::recorded`).
            return Err(CodeError::RecordedWorkspaceRefused {
                recorded: recorded.to_path_buf(),
            }
            .into());
        }
        (None, None, Some(gone)) => {
            return Err(CodeError::RecordedWorkspaceGone {
                recorded: gone.to_path_buf(),
            }
            .into());
        }
        (None, None, None) => input.case_dir.to_path_buf(),
    };
    if !cwd.is_dir() {
        return Err(CodeError::NotADirectory { cwd }.into());
    }
    let document = serde_json::to_vec(&stdin_document(spec, input)).map_err(CodeError::Input)?;
    let mut env = Vec::new();
    if let Some(workspace) = input.workspace {
        env.push(("SKILLGYM_WORKSPACE_PATH", workspace.to_path_buf()));
        env.push(("AGENTV_WORKSPACE_PATH", workspace.to_path_buf()));
    }
    let timeout = spec.timeout.unwrap_or(input.timeout);
    let ran = run(&spec.command.argv(), &cwd, &env, document, timeout)?;
    let log = match input.artifact_dir {
        Some(dir) if !ran.stderr.is_empty() => {
            let path = dir.join(format!("grader-{}.stderr.log", file_name(name)));
            crate::secrets::write_file(&path, &ran.stderr).map_err(|source| CodeError::Log {
                path: path.clone(),
                source,
            })?;
            Some(path)
        }
        _ => None,
    };
    if ran.timed_out {
        return Err(CodeError::TimedOut {
            timeout,
            stderr: stderr_note(&ran.stderr),
        }
        .into());
    }
    if let GraderCommand::Shell(_) = spec.command
        && let Some(code @ (126 | 127)) = ran.status.code()
    {
        return Err(CodeError::NotRunnable {
            code,
            stderr: stderr_note(&ran.stderr),
        }
        .into());
    }
    let mut outcome = interpret(&ran)?;
    // `{details, stderr_log}`: the grader's own `details`, and where its stderr is kept.
    let mut details = Map::new();
    details.insert(
        "details".to_owned(),
        outcome.details.take().unwrap_or(Value::Null),
    );
    if let Some(log) = log {
        details.insert("stderr_log".to_owned(), json!(log));
    }
    outcome.details = Some(Value::Object(details));
    Ok(outcome)
}

/// The document written on the command's stdin (see the module doc).
pub(crate) fn stdin_document(spec: &CodeGraderSpec, input: &GradeInput<'_>) -> Value {
    let usage = &input.report.usage;
    let figure = |count: Option<skillgym::TokenCount>| count.map(|c| c.value);
    let token_usage = if usage.input_tokens.is_none()
        && usage.output_tokens.is_none()
        && usage.total_tokens.is_none()
    {
        Value::Null
    } else {
        json!({
            "input": figure(usage.input_tokens),
            "output": figure(usage.output_tokens),
            "cached": figure(usage.cache_tokens),
            "reasoning": figure(usage.reasoning_tokens),
            "total": figure(usage.total_tokens),
        })
    };
    json!({
        "criteria": input.criteria,
        "expected_output": input.expected_output,
        "output": input.output,
        "input": input.input,
        "metadata": input.metadata,
        "report": input.report,
        "token_usage": token_usage,
        "cost_usd": usage.cost_usd,
        "duration_ms": input.duration.map(|d| d.as_millis() as u64),
        "workspace_path": input.workspace,
        "config": spec.config,
    })
}

/// `name` usable as a file name: characters other than ASCII letters, digits, `.`, `_` and
/// `-` become `_`.
pub(crate) fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Reads the result of a finished command.
pub(crate) fn interpret(ran: &Ran) -> Result<GraderOutcome, CodeError> {
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let trimmed = stdout.trim();
    let exit = match (ran.status.code(), ran.status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "exit ?".to_owned(),
    };
    if trimmed.starts_with('{') {
        if !ran.status.success() {
            return Err(CodeError::Failed {
                exit,
                stderr: stderr_note(&ran.stderr),
            });
        }
        let object = match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(object)) => object,
            Ok(_) | Err(_) => {
                return Err(CodeError::NotJson {
                    head: head(trimmed),
                });
            }
        };
        return from_json(object);
    }
    let passed = ran.status.success();
    let text = if trimmed.is_empty() {
        exit.clone()
    } else {
        tail(trimmed, STDERR_TAIL)
    };
    let stderr = String::from_utf8_lossy(&ran.stderr);
    let check = match (passed, stderr.trim()) {
        (false, "") => Check::with(text, false, exit),
        (false, stderr) => Check::with(
            text,
            false,
            format!("{exit}; stderr: {}", tail(stderr, STDERR_TAIL)),
        ),
        (true, _) => Check::new(text, true),
    };
    Ok(GraderOutcome::scored(
        if passed { 1.0 } else { 0.0 },
        vec![check],
    ))
}

/// The outcome a JSON object on stdout gives.
fn from_json(mut object: Map<String, Value>) -> Result<GraderOutcome, CodeError> {
    let score = match object.get("score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(number)) => number.as_f64(),
        Some(other) => {
            return Err(CodeError::Score(other.clone()));
        }
    };
    let checks = match object.get("assertions") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| assertion(i, item))
                .collect::<Result<Vec<Check>, CodeError>>()?,
        ),
        Some(other) => {
            return Err(CodeError::Assertions(other.clone()));
        }
    };
    let outcome = match (score, checks) {
        (None, None) => {
            return Err(CodeError::Neither {
                head: head(&Value::Object(object.clone()).to_string()),
            });
        }
        (None, Some(checks)) => GraderOutcome::fraction(checks),
        (Some(score), checks) => {
            let checks = checks.unwrap_or_default();
            let mut outcome = GraderOutcome::scored(score, checks);
            if outcome.checks.is_empty() {
                let text = format!("the code grader scored {score}");
                let passed = outcome.score >= PASS_SCORE;
                outcome.checks.push(Check::new(text, passed));
            }
            outcome
        }
    };
    Ok(match object.remove("details") {
        None | Some(Value::Null) => outcome,
        Some(details) => outcome.with_details(details),
    })
}

/// Entry `i` of `assertions`.
fn assertion(i: usize, item: &Value) -> Result<Check, CodeError> {
    let bad = || CodeError::Assertion {
        index: i,
        item: item.clone(),
    };
    let text = item.get("text").and_then(Value::as_str).ok_or_else(bad)?;
    let passed = item
        .get("passed")
        .and_then(Value::as_bool)
        .ok_or_else(bad)?;
    let evidence = match item.get("evidence") {
        None | Some(Value::Null) => None,
        Some(Value::String(evidence)) => Some(evidence.clone()),
        Some(other) => Some(other.to_string()),
    };
    Ok(Check {
        text: text.to_owned(),
        passed,
        evidence,
    })
}

/// Why a code grader has no outcome, its command aside ([`RunError`](crate::oneshot::RunError)).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CodeError {
    /// Replayed, no `cwd:`, and the recorded workspace is not one skillgym made.
    #[error(
        "it runs in the attempt's workspace, and this attempt is replayed from a recording whose workspace.json names {}, which is not a workspace skillgym made (inside a run's workspace root): skillgym runs nothing there; give the grader a `cwd:`, or run the case live",
        recorded.display()
    )]
    RecordedWorkspaceRefused { recorded: PathBuf },
    /// Replayed, no `cwd:`, and the recorded workspace is gone.
    #[error(
        "it runs in the attempt's workspace, and this attempt is replayed from a recording: replay does not recreate workspaces, and the recorded one ({}) is gone; give the grader a `cwd:`, or run the case live",
        recorded.display()
    )]
    RecordedWorkspaceGone { recorded: PathBuf },
    /// Its working directory is not a directory.
    #[error("its working directory {} is not a directory", cwd.display())]
    NotADirectory { cwd: PathBuf },
    /// Its stdin document cannot be serialized.
    #[error("cannot serialize its input: {0}")]
    Input(#[source] serde_json::Error),
    /// Its stderr log cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Log { path: PathBuf, source: io::Error },
    /// It ran out of time; `stderr` is [`stderr_note`]'s.
    #[error("timed out after {timeout:?}; its process group was killed{stderr}")]
    TimedOut { timeout: Duration, stderr: String },
    /// It printed a JSON-looking stdout but did not exit 0.
    #[error("it ended with {exit}{stderr}")]
    Failed { exit: String, stderr: String },
    /// Its shell line's command cannot be found or run (`sh` exits 127 or 126).
    #[error("its shell could not run the command (exit {code}: {}){stderr}", if *code == 127 { "command not found" } else { "not executable" })]
    NotRunnable { code: i32, stderr: String },
    /// Its stdout starts with `{` but is no JSON object.
    #[error("its stdout starts like a JSON object but is not one: {head}")]
    NotJson { head: String },
    /// `score` is not a number.
    #[error("its `score` is not a number: {0}")]
    Score(Value),
    /// `assertions` is not a list.
    #[error("its `assertions` is not a list: {0}")]
    Assertions(Value),
    /// The object has neither `score` nor `assertions`.
    #[error("its JSON has neither `score` nor `assertions`: {head}")]
    Neither { head: String },
    /// An entry of `assertions` is not `{text, passed, evidence?}`.
    #[error("its assertions[{index}] is not {{text, passed, evidence?}}: {item}")]
    Assertion { index: usize, item: Value },
}

/// `: <stderr tail>` when there is stderr, else nothing.
pub(crate) fn stderr_note(stderr: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    match stderr.trim() {
        "" => String::new(),
        text => format!(": {}", tail(text, STDERR_TAIL)),
    }
}

/// The last `max` characters of `text`, `…`-led when cut.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        text.to_owned()
    } else {
        let rest: String = text.chars().skip(count - max).collect();
        format!("…{rest}")
    }
}

/// The first 200 characters of `text`, `…`-ended when cut.
fn head(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(200).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::time::{Duration, Instant};

    use crate::grade::spec::GraderCommand;

    use serde_json::json;
    use skillgym::{SessionEvent, SessionReport, TokenCount};

    use super::*;
    use crate::grade::spec::GraderKind;
    use crate::grade::test_support::{TIMEOUT, case_dir, spec};
    use crate::grade::{Verdict, grade as grade_spec};

    fn shell(line: &str) -> CodeGraderSpec {
        CodeGraderSpec {
            command: GraderCommand::Shell(line.into()),
            cwd: None,
            timeout: None,
            config: Value::Null,
        }
    }

    /// Runs `code` as grader `name` with `workspace` (also the artifact directory).
    fn run_in(code: CodeGraderSpec, workspace: &Path) -> GraderOutcome {
        let report = SessionReport::from_events([
            SessionEvent::tool_call("Read", json!({"file_path": "/ws/README.md"})),
            SessionEvent::assistant("All tests pass."),
        ]);
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.workspace = Some(workspace);
        input.artifact_dir = Some(workspace);
        grade_spec(&spec("tests pass", GraderKind::CodeGrader(code)), &input)
    }

    fn run(code: CodeGraderSpec) -> (GraderOutcome, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        (run_in(code, dir.path()), dir)
    }

    #[test]
    fn it_gets_the_document_on_stdin_in_the_workspace_with_its_variables() {
        let mut code = shell(
            r#"cat > doc.json; pwd > pwd.txt; echo "$SKILLGYM_WORKSPACE_PATH|$AGENTV_WORKSPACE_PATH" > env.txt; echo '{"score": 1}'"#,
        );
        code.config = json!({"strict": true});
        let (outcome, dir) = run(code);
        assert_eq!(
            (outcome.score, outcome.verdict),
            (1.0, Verdict::Pass),
            "{outcome:?}"
        );
        let doc: Value =
            serde_json::from_slice(&fs::read(dir.path().join("doc.json")).unwrap()).unwrap();
        let mut keys: Vec<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "config",
                "cost_usd",
                "criteria",
                "duration_ms",
                "expected_output",
                "input",
                "metadata",
                "output",
                "report",
                "token_usage",
                "workspace_path",
            ]
        );
        assert_eq!(doc["output"], json!("All tests pass."));
        assert_eq!(doc["config"], json!({"strict": true}));
        assert_eq!(doc["report"]["events"][0]["tool"], json!("Read"));
        assert_eq!(doc["token_usage"], Value::Null);
        let workspace = dir.path().to_str().unwrap();
        assert_eq!(doc["workspace_path"], json!(workspace));
        let pwd = fs::read_to_string(dir.path().join("pwd.txt")).unwrap();
        assert_eq!(
            fs::canonicalize(pwd.trim()).unwrap(),
            fs::canonicalize(dir.path()).unwrap()
        );
        let env = fs::read_to_string(dir.path().join("env.txt")).unwrap();
        assert_eq!(env.trim(), format!("{workspace}|{workspace}"));
    }

    #[test]
    fn the_document_carries_the_figures_and_case_values() {
        let mut report = SessionReport::default().with_final_output("out");
        report.usage.input_tokens = Some(TokenCount::provider(10));
        report.usage.output_tokens = Some(TokenCount::provider(5));
        report.usage.cost_usd = Some(0.5);
        let criteria = json!("it works");
        let metadata = json!({"k": 1});
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.criteria = &criteria;
        input.metadata = &metadata;
        input.duration = Some(Duration::from_millis(1234));
        let doc = stdin_document(&shell("true"), &input);
        assert_eq!(doc["criteria"], criteria);
        assert_eq!(doc["metadata"], metadata);
        assert_eq!(doc["expected_output"], Value::Null);
        assert_eq!(
            doc["token_usage"],
            json!({"input": 10, "output": 5, "cached": null, "reasoning": null, "total": null})
        );
        assert_eq!(
            (doc["cost_usd"].clone(), doc["duration_ms"].clone()),
            (json!(0.5), json!(1234))
        );
        assert_eq!(doc["workspace_path"], Value::Null);
    }

    #[test]
    fn a_replayed_attempt_without_its_workspace_says_so_unless_the_grader_has_a_cwd() {
        let report = SessionReport::default();
        let gone = Path::new("/nonexistent/recorded/workspace");
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.workspace_gone = Some(gone);
        let error = grade("tests-pass", &shell("true"), &input)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "it runs in the attempt's workspace, and this attempt is replayed from a recording: replay does not recreate workspaces, and the recorded one (/nonexistent/recorded/workspace) is gone; give the grader a `cwd:`, or run the case live"
        );
        let mut spec = shell("true");
        spec.cwd = Some(std::env::temp_dir());
        assert!(grade("tests-pass", &spec, &input).is_ok());
    }

    #[test]
    fn a_replayed_attempt_whose_workspace_was_refused_runs_nothing_there() {
        let report = SessionReport::default();
        let elsewhere = tempfile::tempdir().unwrap();
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.workspace_gone = Some(elsewhere.path());
        let error = grade("tests-pass", &shell("touch ran"), &input)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            format!(
                "it runs in the attempt's workspace, and this attempt is replayed from a recording whose workspace.json names {}, which is not a workspace skillgym made (inside a run's workspace root): skillgym runs nothing there; give the grader a `cwd:`, or run the case live",
                elsewhere.path().display()
            )
        );
        assert!(!elsewhere.path().join("ran").exists());
    }

    #[test]
    fn the_exit_code_grades_plain_stdout() {
        let (outcome, _dir) = run(shell("echo fine"));
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(outcome.checks[0].text, "fine");

        let (outcome, dir) = run(shell(
            "echo '3 tests failed'; echo 'at foo.test.ts:3' >&2; exit 1",
        ));
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert_eq!(outcome.checks[0].text, "3 tests failed");
        assert_eq!(
            outcome.checks[0].evidence.as_deref(),
            Some("exit 1; stderr: at foo.test.ts:3")
        );
        let log = fs::read_to_string(dir.path().join("grader-tests_pass.stderr.log")).unwrap();
        assert_eq!(log, "at foo.test.ts:3\n");

        let (outcome, _dir) = run(shell("exit 3"));
        assert_eq!(outcome.checks[0].text, "exit 3");
    }

    #[test]
    fn a_json_score_is_clamped_and_assertions_are_kept() {
        let (outcome, _dir) = run(shell(r#"echo '{"score": 1.7, "details": {"n": 2}}'"#));
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(
            outcome.details.as_ref().unwrap()["details"],
            json!({"n": 2})
        );

        let (outcome, _dir) = run(shell(r#"echo '{"score": -3}'"#));
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));

        let (outcome, _dir) = run(shell(
            r#"echo '{"assertions": [{"text": "a", "passed": true}, {"text": "b", "passed": false, "evidence": "why"}, {"text": "c", "passed": true}, {"text": "d", "passed": true}, {"text": "e", "passed": true}]}'"#,
        ));
        assert_eq!(
            (outcome.score, outcome.verdict),
            (0.8, Verdict::Pass),
            "edge: 4/5 = 0.8 passes"
        );
        assert_eq!(outcome.checks[1], Check::with("b", false, "why"));

        let (outcome, _dir) = run(shell(
            r#"echo '{"score": 0.5, "assertions": [{"text": "a", "passed": true}]}'"#,
        ));
        assert_eq!(
            (outcome.score, outcome.verdict),
            (0.5, Verdict::Fail),
            "score wins"
        );
    }

    #[test]
    fn bad_json_is_an_error() {
        let failed = |line: &str| {
            let (outcome, _dir) = run(shell(line));
            assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
            outcome.checks[0].text.clone()
        };
        let text = failed(r#"echo '{"score": "high"}'"#);
        assert_eq!(
            text,
            r#"Grader 'tests pass' failed: its `score` is not a number: "high""#
        );
        let text = failed(r#"echo '{"ok": true}'"#);
        assert!(text.contains("neither `score` nor `assertions`"), "{text}");
        let text = failed(r#"echo '{"assertions": [{"text": "a"}]}'"#);
        assert!(
            text.contains("assertions[0] is not {text, passed, evidence?}"),
            "{text}"
        );
        let text = failed("echo '{not json'");
        assert!(
            text.contains("starts like a JSON object but is not one: {not json"),
            "{text}"
        );
    }

    #[test]
    fn garbage_on_stdout_is_graded_by_the_exit_code() {
        let (outcome, _dir) = run(shell(r"printf '\001\377garbage\n'; exit 2"));
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert!(
            outcome.checks[0].text.ends_with("garbage"),
            "{:?}",
            outcome.checks
        );
    }

    #[test]
    fn a_nonzero_exit_with_json_is_an_error_with_the_stderr_tail() {
        let (outcome, _dir) = run(shell(r#"echo '{"score": 1}'; echo 'boom' >&2; exit 4"#));
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert_eq!(
            outcome.checks[0].text,
            "Grader 'tests pass' failed: it ended with exit 4: boom"
        );
    }

    #[test]
    fn a_command_that_does_not_exist_is_an_error() {
        let code = CodeGraderSpec {
            command: GraderCommand::Argv(vec!["/nonexistent/grader".into(), "x".into()]),
            ..shell("")
        };
        let (outcome, _dir) = run(code);
        assert_eq!(outcome.score, 0.0);
        assert!(
            outcome.checks[0].text.starts_with(
                "Grader 'tests pass' failed: cannot start \"/nonexistent/grader\" in "
            ),
            "{:?}",
            outcome.checks
        );
        assert!(outcome.error, "it could not grade");
        // Through the shell, sh exits 127: the same error, with the shell's message.
        let (outcome, _dir) = run(shell("nonexistent-grader-command-xyz"));
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!(outcome.error);
        let text = &outcome.checks[0].text;
        assert!(
            text.starts_with(
                "Grader 'tests pass' failed: its shell could not run the command (exit 127: command not found): "
            ) && text.contains("nonexistent-grader-command-xyz"),
            "{text}"
        );
        let (outcome, _dir) = run(shell("exit 3"));
        assert!(!outcome.error, "an ordinary failing exit is a verdict");
    }

    #[test]
    fn argv_runs_without_a_shell_and_cwd_overrides_the_workspace() {
        let elsewhere = tempfile::tempdir().unwrap();
        let code = CodeGraderSpec {
            command: GraderCommand::Argv(vec![
                "sh".into(),
                "-c".into(),
                "pwd; echo '$HOME'".into(),
            ]),
            cwd: Some(elsewhere.path().to_path_buf()),
            ..shell("")
        };
        let (outcome, _dir) = run(code);
        let text = &outcome.checks[0].text;
        let (pwd, literal) = text.split_once('\n').unwrap();
        assert_eq!(
            fs::canonicalize(pwd).unwrap(),
            fs::canonicalize(elsewhere.path()).unwrap()
        );
        assert_eq!(literal, "$HOME");

        let code = CodeGraderSpec {
            cwd: Some("/nonexistent-dir".into()),
            ..shell("true")
        };
        let (outcome, _dir) = run(code);
        assert!(
            outcome.checks[0]
                .text
                .contains("/nonexistent-dir is not a directory")
        );
    }

    /// Whether `pid` is gone (or a zombie nobody reaped yet: it runs no more).
    fn gone(pid: i32) -> bool {
        match fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        }
    }

    #[test]
    fn a_timeout_kills_the_whole_group_and_is_an_error() {
        let code = CodeGraderSpec {
            timeout: Some(Duration::from_millis(300)),
            ..shell("echo $$ > leader.pid; sleep 30 & echo $! > child.pid; echo started >&2; wait")
        };
        let started = Instant::now();
        let (outcome, dir) = run(code);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert_eq!(
            outcome.checks[0].text,
            "Grader 'tests pass' failed: timed out after 300ms; its process group was killed: started"
        );
        for file in ["leader.pid", "child.pid"] {
            let pid: i32 = fs::read_to_string(dir.path().join(file))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            assert!(gone(pid), "{file}: {pid} still runs");
        }
    }

    #[test]
    fn a_command_that_ignores_stdin_is_fine() {
        let big = CodeGraderSpec { ..shell("exit 0") };
        let dir = tempfile::tempdir().unwrap();
        let report = SessionReport::default().with_final_output("x".repeat(1 << 20));
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.workspace = Some(dir.path());
        let outcome = grade_spec(&spec("big", GraderKind::CodeGrader(big)), &input);
        assert_eq!(outcome.verdict, Verdict::Pass, "{outcome:?}");
    }

    #[test]
    fn names_become_file_names() {
        assert_eq!(file_name("tests pass/ok.v2"), "tests_pass_ok.v2");
    }
}
