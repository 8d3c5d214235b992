//! The `github-actions` reporter: an annotation per execution that did not pass, and the job
//! summary.
//!
//! | output | when | holds |
//! |---|---|---|
//! | stdout | inside a GitHub Actions workflow (`GITHUB_ACTIONS=true`) | one workflow command per execution that did not pass, in the report's order: `::error file=<file>,line=<line>,title=[runner] case::<message>` (a skipped one `::warning`); file and line are the failure's location, else the case's source (left out when neither reads as `file:line`); the message is the failure's first line, with `(failed at repetition 2/3: 1 passed, 3 attempts)` when the execution was repeated or retried — one annotation per execution, never per attempt |
//! | `github-actions.txt` | always | the same lines (empty when everything passed) |
//! | the file `GITHUB_STEP_SUMMARY` names | the variable is set and not empty | appended: a heading with the run ids and counts, the per-runner table (agent, version, model, passed, failed, expected-failed, flaky, skipped, uncached tokens (input + output + reasoning − cache), cost, mean time) and the failures, each with `[runner] case`, its message's first line and its artifact directory |
//!
//! Workflow commands are escaped as GitHub reads them: in the message `%`, `\r`, `\n` become
//! `%25`, `%0D`, `%0A`; in a property value also `:` and `,` become `%3A` and `%2C`. So each
//! command is one line, and the text in it (the agent's, the ids) can neither end it nor start
//! another. The summary's Markdown escapes the punctuation that would format text or break the
//! table. Remembered secrets are masked in everything, and control characters (ESC, NUL, a
//! carriage return, …) are shown escaped, `\u{1b}`, and so is the `[` of the runner's legacy
//! `##[command]` form, `##\u{5b}` ([`terminal_text`](crate::terminal_text)).
//! These workflow commands are the only lines skillgym prints whose text starts with `::`.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::console::agent_cells;
use super::junit::file_line;
use super::{Reporter, RunReport};
use crate::duration::rounded;
use crate::figures::thousands;
use crate::results::{ExecutionResult, Status};
use crate::secrets;
use crate::terminal_text::{ends_command_prefix, escape_controls, needs_escape};

/// The variable naming the job summary file.
const STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

/// `github-actions`: annotations on stdout and in `github-actions.txt`, and the job summary.
#[derive(Debug)]
pub(crate) struct GithubActions;

impl Reporter for GithubActions {
    fn name(&self) -> &str {
        "github-actions"
    }

    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let step_summary = std::env::var_os(STEP_SUMMARY);
        // Workflow commands mean something only inside a workflow; elsewhere (and in a
        // `--format json` run outside one) stdout stays as it was, and the file has them.
        if std::env::var("GITHUB_ACTIONS").is_ok_and(|value| value == "true") {
            write_to(
                report,
                dir,
                step_summary.as_deref(),
                &mut io::stdout().lock(),
            )
        } else {
            write_to(report, dir, step_summary.as_deref(), &mut io::sink())
        }
    }
}

/// Prints the annotations to `out`, writes `github-actions.txt` into `dir` and, when
/// `step_summary` (the value of `GITHUB_STEP_SUMMARY`) names a file, appends the job summary
/// to it. Returns the files written.
fn write_to(
    report: &RunReport,
    dir: &Path,
    step_summary: Option<&OsStr>,
    out: &mut dyn Write,
) -> io::Result<Vec<PathBuf>> {
    let lines = annotations(report);
    out.write_all(lines.as_bytes())?;
    out.flush()?;
    let path = dir.join("github-actions.txt");
    std::fs::write(&path, &lines)?;
    let mut written = vec![path];
    if let Some(summary_path) = step_summary.filter(|value| !value.is_empty()) {
        let summary_path = PathBuf::from(summary_path);
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&summary_path)?
            .write_all(job_summary(report).as_bytes())?;
        written.push(summary_path);
    }
    Ok(written)
}

/// One workflow command per execution that did not pass.
pub(crate) fn annotations(report: &RunReport) -> String {
    let mut text = String::new();
    for execution in report.executions.iter().filter(|e| !e.passed) {
        let command = if execution.status == Status::Skipped {
            "warning"
        } else {
            "error"
        };
        let location = execution
            .failure
            .as_ref()
            .and_then(|f| f.location.as_ref())
            .map(|l| (l.file.as_str(), l.line))
            .or_else(|| file_line(&execution.source));
        let mut properties = Vec::new();
        if let Some((file, line)) = location {
            properties.push(format!("file={}", property(file)));
            properties.push(format!("line={line}"));
        }
        properties.push(format!("title={}", property(&execution.trial_name())));
        let mut message = first_line(execution).to_owned();
        if let Some(note) = repetition_note(execution) {
            message.push(' ');
            message.push_str(&note);
        }
        let _ = writeln!(
            text,
            "::{command} {}::{}",
            properties.join(","),
            data(&message)
        );
    }
    text
}

/// The failure's first line, or what stands for it.
fn first_line(execution: &ExecutionResult) -> &str {
    let fallback = match execution.status {
        Status::Skipped => "not run",
        status => status.as_str(),
    };
    execution
        .failure
        .as_ref()
        .and_then(|f| f.message.lines().next())
        .unwrap_or(fallback)
}

/// `(failed at repetition 2/3: 1 passed, 3 attempts)` for a failed execution that was repeated
/// or retried.
fn repetition_note(execution: &ExecutionResult) -> Option<String> {
    let attempts = execution.attempts.total;
    if execution.status == Status::Skipped || (execution.repeat_target <= 1 && attempts <= 1) {
        return None;
    }
    let at = execution
        .stopped_at_repetition
        .unwrap_or(execution.completed_repetitions);
    Some(format!(
        "({} at repetition {at}/{}: {} passed, {attempts} attempt{})",
        execution.status.as_str(),
        execution.repeat_target,
        execution.successful_repetitions,
        if attempts == 1 { "" } else { "s" }
    ))
}

/// The Markdown job summary: a heading, the per-runner table, the failures.
pub(crate) fn job_summary(report: &RunReport) -> String {
    let counts = report.counts();
    let mut text = format!(
        "## skillgym {}\n\n{} executions: {} passed, {} failed, {} expected-failed, {} unexpected-passed, {} skipped, {} interrupted\n\n",
        markdown(&report.run_ids.join(", ")),
        counts.executions,
        counts.passed,
        counts.failed,
        counts.expected_failed,
        counts.unexpected_passed,
        counts.skipped,
        counts.interrupted,
    );
    text.push_str(
        "| runner | agent | version | model | passed | failed | expected-failed | flaky | skipped | uncached tokens | cost | mean time |\n\
         |---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    let rows = report.runner_rows();
    for row in &rows {
        let c = &row.counts;
        let [agent, version, model] = agent_cells(row);
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            markdown(&row.runner),
            markdown(&agent),
            markdown(&version),
            markdown(&model),
            c.passed,
            c.failed + c.unexpected_passed + c.interrupted,
            c.expected_failed,
            row.flaky,
            c.skipped,
            row.total_tokens.map_or_else(|| "-".to_owned(), thousands),
            // `\~`: a tilde Markdown does not read as strikethrough.
            crate::figures::usd_marked(row.cost_usd, row.cost_estimated).replace('~', "\\~"),
            row.mean_duration_ms.map_or_else(|| "-".to_owned(), rounded),
        );
    }
    if rows.iter().any(|row| row.cost_estimated) {
        let _ = writeln!(text, "\n\\~ {}", crate::figures::ESTIMATED);
    }
    let failed: Vec<&ExecutionResult> = report
        .executions
        .iter()
        .filter(|e| !e.passed && e.status != Status::Skipped)
        .collect();
    if !failed.is_empty() {
        text.push_str("\n### Failures\n\n");
        for execution in failed {
            let _ = writeln!(
                text,
                "- {} ({}): {} — {}",
                code(&execution.trial_name()),
                execution.status.as_str(),
                markdown(first_line(execution)),
                code(&execution.artifact_dir.display().to_string()),
            );
        }
    }
    text.push('\n');
    text
}

/// A workflow command's message: `%`, `\r`, `\n` escaped (secrets masked, other control
/// characters escaped, `\u{1b}`, and the `[` of `##[`, `\u{5b}`).
pub(crate) fn data(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in secrets::mask(value).chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if needs_escape(c) => out.extend(c.escape_debug()),
            // The legacy `##[command]` form, which the runner reads anywhere in a line.
            '[' if ends_command_prefix(&out) => out.push_str("\\u{5b}"),
            c => out.push(c),
        }
    }
    out
}

/// A workflow command's property value: as [`data`], and `:` and `,` escaped.
pub(crate) fn property(value: &str) -> String {
    data(value).replace(':', "%3A").replace(',', "%2C")
}

/// Text as Markdown that shows it literally, on one line (secrets masked, control characters
/// escaped).
fn markdown(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in escape_controls(&secrets::mask(value).replace('\r', " ")).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An inline code span holding `value` (fenced with more backticks than it holds in a row;
/// control characters escaped).
fn code(value: &str) -> String {
    let value = escape_controls(&secrets::mask(value).replace(['\r', '\n'], " "));
    let longest = value.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if value.starts_with('`') || value.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{value}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use serde_json::json;

    use super::*;
    use crate::report::fixtures::{execution, sample};

    #[test]
    fn every_execution_that_did_not_pass_is_annotated_once() {
        assert_eq!(
            annotations(&sample()),
            "\
::error file=tests/benchmarks/main.rs,line=12,title=[hasty] greets::expected \"a & b\" <got> 'c' (failed at repetition 2/3: 1 passed, 3 attempts)
::warning title=[hasty] skipped_one::not run: the run was interrupted by SIGINT
"
        );
    }

    #[test]
    fn messages_and_properties_are_escaped() {
        assert_eq!(data("100% done\r\nnext: a,b"), "100%25 done%0D%0Anext: a,b");
        assert_eq!(property("50%: a,b\nc"), "50%25%3A a%2Cb%0Ac");
        assert_eq!(
            data("\x1b[2J\0\x07 \x1b]52;c;aGk=\x07\t::x"),
            "\\u{1b}[2J\\0\\u{7} \\u{1b}]52;c;aGk=\\u{7}\t::x"
        );
        assert_eq!(property("r\x1b:1"), "r\\u{1b}%3A1");
        assert_eq!(data("a ##[add-mask]b"), "a ##\\u{5b}add-mask]b");
        let report = RunReport::new(
            vec!["r1".into()],
            vec![PathBuf::from("/runs/r1")],
            vec![execution(
                "mod::ca,se",
                "run:ner",
                json!({
                    "source": "C:/src/a,b.rs:7",
                    "status": "unexpected-passed", "passed": false,
                    "failure": {"origin": "assertion", "class": {"id": "unexpected-passed"},
                                "message": "100% sure: it passed\nsecond line"},
                }),
            )],
        );
        assert_eq!(
            annotations(&report),
            "::error file=C%3A/src/a%2Cb.rs,line=7,title=[run%3Aner] mod%3A%3Aca%2Cse::100%25 sure: it passed\n"
        );
    }

    #[test]
    fn the_job_summary_has_the_runner_table_and_the_failures() {
        assert_eq!(
            job_summary(&sample()),
            "\
## skillgym r1

5 executions: 2 passed, 1 failed, 1 expected-failed, 0 unexpected-passed, 1 skipped, 0 interrupted

| runner | agent | version | model | passed | failed | expected-failed | flaky | skipped | uncached tokens | cost | mean time |
|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|
| careful | claude-code | 2.1.330 | claude-sonnet-4-6 | 2 | 0 | 1 | 1 | 0 | 4,000 | $0.0400 | 1.2s |
| hasty | claude-code | 2.1.330 | claude-sonnet-4-6 | 0 | 1 | 0 | 0 | 1 | 3,000 | $0.0300 | 2.0s |

### Failures

- `[hasty] greets` (failed): expected \"a \\& b\" \\<got\\> 'c' — `/runs/r1/greets/hasty`

"
        );
    }

    #[test]
    fn an_estimated_cost_is_marked_in_the_job_summary() {
        let mut report = sample();
        for execution in &mut report.executions {
            for attempt in execution
                .repetitions
                .iter_mut()
                .flat_map(|r| &mut r.attempts)
            {
                attempt.usage.cost_estimated = execution.runner_id == "careful";
            }
        }
        let summary = job_summary(&report);
        assert!(
            summary.contains("| 4,000 | \\~$0.0400 | 1.2s |"),
            "{summary}"
        );
        assert!(summary.contains("| 3,000 | $0.0300 | 2.0s |"), "{summary}");
        assert!(
            summary.contains("\n\\~ a cost estimated from token counts at list prices"),
            "{summary}"
        );
        assert!(
            !job_summary(&sample()).contains('~'),
            "no estimate, no mark"
        );
    }

    #[test]
    fn markdown_and_code_spans_show_text_literally() {
        assert_eq!(
            markdown("a|b *c* [d](e) <f>\nx"),
            "a\\|b \\*c\\* \\[d\\](e) \\<f\\> x"
        );
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(markdown("a\x1b[2Jb\r\nc"), "a\\\\u{1b}\\[2Jb  c");
        assert_eq!(code("a\x07\rb"), "`a\\u{7} b`");
    }

    #[test]
    fn the_reporter_prints_writes_and_appends_the_step_summary() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("step-summary.md");
        std::fs::write(&summary, "# earlier step\n").unwrap();
        let mut out = Vec::new();
        let variable = OsString::from(&summary);
        let written = write_to(&sample(), dir.path(), Some(&variable), &mut out).unwrap();
        assert_eq!(
            written,
            [dir.path().join("github-actions.txt"), summary.clone()]
        );
        let lines = annotations(&sample());
        assert_eq!(String::from_utf8(out).unwrap(), lines);
        assert_eq!(std::fs::read_to_string(&written[0]).unwrap(), lines);
        assert_eq!(
            std::fs::read_to_string(&summary).unwrap(),
            format!("# earlier step\n{}", job_summary(&sample()))
        );
    }

    #[test]
    fn without_a_step_summary_only_the_annotations_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let passing = RunReport::new(
            vec!["r1".into()],
            vec![dir.path().to_path_buf()],
            vec![execution("greets", "careful", json!({}))],
        );
        for variable in [None, Some(OsStr::new(""))] {
            let mut out = Vec::new();
            let written = write_to(&passing, dir.path(), variable, &mut out).unwrap();
            assert_eq!(written, [dir.path().join("github-actions.txt")]);
            assert!(out.is_empty());
            assert_eq!(std::fs::read_to_string(&written[0]).unwrap(), "");
        }
    }
}
