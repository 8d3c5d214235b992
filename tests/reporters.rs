//! The `junit` and `github-actions` reporters end to end: the example suite's harness run with
//! `--reporter`, its `junit.xml` validated against the JUnit schema of
//! `skillgym-harness/tests/fixtures/junit.xsd` with `xmllint` (Debian: libxml2-utils; `.ci/run`
//! installs it), its workflow commands and job summary read back.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use skillgym_e2e::{
    run_examples, run_examples_on, stderr, stdout, temp_dir, trial_lines, workspace_root,
};
use skillgym_harness::report::{self, RunReport};
use skillgym_harness::results::ExecutionResult;

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// The JUnit schema the reporter's output must satisfy.
fn schema() -> PathBuf {
    workspace_root().join("skillgym-harness/tests/fixtures/junit.xsd")
}

/// `xmllint --schema` on `document`: `Ok` when it validates, else xmllint's complaint. Panics
/// when xmllint cannot run: the check must not pass by being skipped.
fn validate(document: &Path) -> Result<(), String> {
    let output = Command::new("xmllint")
        .arg("--noout")
        .arg("--nonet")
        .arg("--schema")
        .arg(schema())
        .arg(document)
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run xmllint ({error}); it checks junit.xml against the JUnit schema and \
                 must be installed (Debian/Ubuntu: apt-get install libxml2-utils)"
            )
        });
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "xmllint exited with {}:\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Asserts `document` is valid JUnit XML, showing it when not.
fn assert_valid(document: &Path) {
    if let Err(complaint) = validate(document) {
        panic!(
            "{} is not valid JUnit XML: {complaint}\n{}",
            document.display(),
            fs::read_to_string(document).unwrap_or_default()
        );
    }
}

/// A `skillgym.yaml` in `dir` whose one runner, `fake`, echoes the prompt: the Rust case
/// `always_passes` fails on it.
fn failing_config(dir: &Path) -> PathBuf {
    let config = dir.join("skillgym.yaml");
    fs::write(
        &config,
        format!(
            "runners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env:\n        FAKE_AGENT_SCRIPT: echo-prompt\n"
        ),
    )
    .unwrap();
    config
}

/// The paths a reporter named on stdout (`skillgym: <reporter>: <path>`).
fn reported_paths(text: &str, reporter: &str) -> Vec<PathBuf> {
    let prefix = format!("skillgym: {reporter}: ");
    text.lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(PathBuf::from)
        .collect()
}

/// The value of `name="…"` in the first element `<element ` of `xml`.
fn attribute<'a>(xml: &'a str, element: &str, name: &str) -> &'a str {
    let start = xml
        .find(&format!("<{element} "))
        .unwrap_or_else(|| panic!("no <{element}> in {xml}"));
    let tag = &xml[start..start + xml[start..].find('>').unwrap()];
    let key = format!(" {name}=\"");
    let from = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    &tag[from..from + tag[from..].find('"').unwrap()]
}

#[test]
fn a_passing_run_writes_valid_junit_with_a_suite_per_runner() {
    let out = temp_dir("junit-pass");
    let output = run_examples(
        &[
            "--reporter",
            "junit",
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    let text = stdout(&output);
    assert!(output.status.success(), "{text}\n{}", stderr(&output));
    let paths = reported_paths(&text, "junit");
    assert_eq!(paths.len(), 1, "{text}");
    assert!(paths[0].ends_with("junit.xml"), "{paths:?}");
    assert_valid(&paths[0]);
    let xml = fs::read_to_string(&paths[0]).unwrap();
    let trials = trial_lines(&output).len();
    assert_eq!(trials, 14, "{text}");
    assert_eq!(attribute(&xml, "testsuites", "tests"), "14", "{xml}");
    assert_eq!(attribute(&xml, "testsuites", "failures"), "0", "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 14, "{xml}");
    assert_eq!(
        xml.matches("<system-out>").count(),
        14,
        "every test case names its artifacts: {xml}"
    );
    assert!(
        xml.contains(
            "<testcase name=\"[careful] always_passes\" classname=\"skillgym.careful\" time=\""
        ),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
    assert_eq!(
        xml.matches("<system-out>expected failure (").count(),
        2,
        "the expected failures pass, with a note: {xml}"
    );
}

#[test]
fn a_failing_run_annotates_github_and_writes_valid_junit() {
    let dir = temp_dir("gha");
    let config = failing_config(dir.path());
    let summary = dir.path().join("step-summary.md");
    fs::write(&summary, "# an earlier step's summary\n").unwrap();
    let runs = dir.path().join("runs");
    let output = run_examples_on(
        &config,
        "fake",
        &runs,
        &["--reporter", "junit,github-actions"],
        &[
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
            ("GITHUB_ACTIONS", "true"),
        ],
    );
    let text = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(101),
        "{text}\n{}",
        stderr(&output)
    );
    assert!(
        trial_lines(&output).contains(&"[fake] always_passes FAILED".to_owned()),
        "{text}"
    );

    // junit: named, valid, the failure with its type and first line.
    let junit = reported_paths(&text, "junit");
    assert_eq!(junit.len(), 1, "{text}");
    assert!(junit[0].ends_with("junit.xml"), "{junit:?}");
    assert_valid(&junit[0]);
    let xml = fs::read_to_string(&junit[0]).unwrap();
    let failed = trial_lines(&output)
        .iter()
        .filter(|line| line.ends_with(" FAILED"))
        .count();
    assert_eq!(
        attribute(&xml, "testsuites", "failures"),
        failed.to_string(),
        "{xml}"
    );
    assert_eq!(
        attribute(&xml, "testsuite", "name"),
        "fake",
        "one suite, the runner: {xml}"
    );
    assert!(
        xml.contains(
            "<failure message=\"expected the final output to be &quot;skillgym ready&quot; (trimmed)\" type=\"assertion/assertion\">"
        ),
        "{xml}"
    );

    // github-actions: the annotation on stdout and in github-actions.txt, the summary appended.
    let written = reported_paths(&text, "github-actions");
    assert_eq!(written.len(), 2, "{text}");
    assert!(written[0].ends_with("github-actions.txt"), "{written:?}");
    assert_eq!(written[1], summary);
    let error = text
        .lines()
        .find(|line| line.contains("title=[fake] always_passes::"))
        .unwrap_or_else(|| panic!("no annotation for always_passes: {text}"));
    let file_line = error
        .strip_prefix("::error file=")
        .and_then(|rest| rest.split_once(",title="))
        .map(|(location, _)| location)
        .unwrap_or_else(|| panic!("not an ::error with a file: {error}"));
    assert!(
        file_line == "examples/tests/benchmarks/main.rs,line=10"
            || file_line == "tests/benchmarks/main.rs,line=10",
        "the failure's location: {error}"
    );
    assert!(
        error.ends_with("::expected the final output to be \"skillgym ready\" (trimmed)"),
        "{error}"
    );
    let annotations: Vec<&str> = text.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(
        annotations.len(),
        failed,
        "one per failed execution: {text}"
    );
    assert_eq!(
        fs::read_to_string(&written[0]).unwrap(),
        annotations
            .iter()
            .map(|line| format!("{line}\n"))
            .collect::<String>()
    );
    let markdown = fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.starts_with("# an earlier step's summary\n## skillgym "),
        "appended: {markdown}"
    );
    assert!(
        markdown.contains(
            "| runner | agent | version | model | passed | failed | expected-failed | flaky | skipped | uncached tokens | cost | mean time |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n| fake | command | - | - | "
        ),
        "{markdown}"
    );
    let row = markdown
        .lines()
        .find(|line| line.starts_with("| fake | "))
        .unwrap();
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[5], failed.to_string(), "the failed column: {row}");
    assert!(
        markdown.contains("- `[fake] always_passes` (failed): expected the final output to be \"skillgym ready\" (trimmed) — `"),
        "{markdown}"
    );
}

#[test]
fn outside_a_workflow_the_annotations_go_only_to_their_file() {
    let dir = temp_dir("gha-local");
    let config = failing_config(dir.path());
    let runs = dir.path().join("runs");
    let output = run_examples_on(
        &config,
        "fake",
        &runs,
        &["--reporter", "github-actions", "always_passes"],
        &[],
    );
    let text = stdout(&output);
    assert!(!text.contains("::error"), "{text}");
    let file = reported_paths(&text, "github-actions");
    assert_eq!(file.len(), 1, "{text}");
    let lines = fs::read_to_string(&file[0]).unwrap();
    assert!(
        lines.starts_with(
            "::error file=examples/tests/benchmarks/main.rs,line=10,title=[fake] always_passes::"
        ),
        "{lines}"
    );
}

/// An execution whose every text needs escaping, as `result.json` holds it.
fn hostile_execution(status: &str, source: &str) -> ExecutionResult {
    let message = "expected \"a & b\" <c> 'd' ]]> \u{0}\u{1b}[31mred\u{1b}[0m\u{b}\u{c}\u{7f}\u{fffe}\r\nsecond\tline";
    serde_json::from_value(serde_json::json!({
        "case_id": "mod::<case> & \"quoted\"",
        "runner_id": "run'ner\u{1}",
        "agent": {"type": "command", "model": "<m> & 'n'", "version": "1.0 \"rc\" \u{1b}[31m\u{0}"},
        "source": source,
        "status": status,
        "passed": status == "expected-failed",
        "expected_fail": status == "expected-failed",
        "failure": {"origin": "assertion", "class": {"id": "a&b<c>"}, "message": message},
        "repeat_target": 3,
        "repeat_failure": 1,
        "completed_repetitions": 2,
        "successful_repetitions": 1,
        "failed_repetitions": 1,
        "stopped_at_repetition": 2,
        "flaky": false,
        "attempts": {"total": 3, "passing": 1, "pass_rate": 0.33,
                     "pass_rate_95": {"low": 0.06, "high": 0.79}},
        "duration_ms": 1500,
        "usage": {"input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "artifact_dir": "/runs/<r&1>/\u{2}case",
        "repetitions": [{"repetition": 1, "status": status, "passed": false, "attempts": [{
            "repetition": 1, "attempt": 1, "status": status, "passed": false,
            "duration_ms": 1500,
            "usage": {"input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
            "steps": 1, "artifact_dir": "/runs/r1/a",
        }]}],
    }))
    .expect("an ExecutionResult")
}

#[test]
fn junit_stays_valid_whatever_the_texts_hold() {
    let dir = temp_dir("junit-hostile");
    let report = RunReport::new(
        vec!["r1".into()],
        vec![dir.path().to_path_buf()],
        ["failed", "skipped", "expected-failed", "interrupted"]
            .iter()
            .zip(["a.rs:1", "no line", "b.rs:0", "c.rs:7"])
            .map(|(status, source)| hostile_execution(status, source))
            .collect(),
    )
    .with_times(
        "2026-11-22T10:15:00.123Z".into(),
        "2026-11-22T10:16:00.000Z".into(),
    );
    let junit = report::built_in("junit").expect("junit is built in");
    let written = junit.write(&report, dir.path()).unwrap();
    assert_eq!(written, [dir.path().join("junit.xml")]);
    assert_valid(&written[0]);
    let xml = fs::read_to_string(&written[0]).unwrap();
    assert_eq!(attribute(&xml, "testsuites", "tests"), "4", "{xml}");
    assert_eq!(attribute(&xml, "testsuites", "failures"), "2", "{xml}");
    assert_eq!(attribute(&xml, "testsuites", "skipped"), "1", "{xml}");
    assert_eq!(
        attribute(&xml, "testsuite", "timestamp"),
        "2026-11-22T10:15:00",
        "{xml}"
    );
    assert!(
        xml.contains(
            "<property name=\"agent.version\" value=\"1.0 &quot;rc&quot; \u{fffd}[31m\u{fffd}\"/>"
        ),
        "the agent's version escaped: {xml}"
    );
}

#[test]
fn the_schema_rejects_what_dashboards_cannot_read() {
    let dir = temp_dir("junit-invalid");
    let cases = [
        (
            "a test case without a name",
            r#"<testsuites tests="1"><testsuite name="r" tests="1"><testcase classname="c"/></testsuite></testsuites>"#,
        ),
        (
            "a time that is not seconds",
            r#"<testsuites tests="1"><testsuite name="r" tests="1"><testcase name="n" classname="c" time="1s"/></testsuite></testsuites>"#,
        ),
        (
            "a skip and a failure at once",
            r#"<testsuites tests="1"><testsuite name="r" tests="1"><testcase name="n" classname="c"><skipped/><failure/></testcase></testsuite></testsuites>"#,
        ),
        (
            "a timestamp with a zone",
            r#"<testsuites tests="0"><testsuite name="r" tests="0" timestamp="2026-11-22T10:15:00Z"/></testsuites>"#,
        ),
        (
            "an unescaped ampersand",
            r#"<testsuites tests="0"><testsuite name="a & b" tests="0"/></testsuites>"#,
        ),
    ];
    for (what, document) in cases {
        let path = dir.path().join("invalid.xml");
        fs::write(&path, document).unwrap();
        assert!(validate(&path).is_err(), "{what} passed validation");
    }
    let path = dir.path().join("valid.xml");
    fs::write(
        &path,
        r#"<testsuites tests="1"><testsuite name="r" tests="1"><testcase name="n" classname="c" time="0.5"/></testsuite></testsuites>"#,
    )
    .unwrap();
    assert_valid(&path);
}

#[test]
fn format_junit_puts_only_the_junit_document_on_stdout() {
    let dir = temp_dir("format-junit");
    let runs = dir.path().join("runs");
    let output = run_examples(
        &[
            "--format",
            "junit",
            "--output-dir",
            runs.to_str().unwrap(),
            "always_passes",
        ],
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("<?xml"),
        "nothing but the document: {text}"
    );
    assert!(text.trim_end().ends_with("</testsuites>"), "{text}");
    assert_eq!(text.matches("<testcase ").count(), 2, "{text}");
    assert!(text.contains("name=\"[careful] always_passes\""), "{text}");
    assert!(text.contains("name=\"[hasty] always_passes\""), "{text}");
    let document = dir.path().join("stdout.xml");
    fs::write(&document, &text).unwrap();
    assert_valid(&document);
}
