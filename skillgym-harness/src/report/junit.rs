//! The `junit` reporter: `junit.xml`, JUnit XML as CI dashboards read it (Jenkins, GitLab, the
//! GitHub test-report actions), written by hand.
//!
//! | element | one per | attributes | holds |
//! |---|---|---|---|
//! | `testsuites` | report | `name="skillgym"`, `tests`, `failures`, `errors` (always 0), `skipped`, `time` (the run's wall time when its start and end are known, else the suites' sum) | the suites |
//! | `testsuite` | runner, in order of first appearance | `name` (the runner id), the same totals, `time` (its test cases' sum), `timestamp` (the run's start, UTC, when known) | its `properties`, then its test cases |
//! | `property` | what is known of the runner's agent | `name` `agent` (the type), `agent.version` (comma-separated when merged runs used several), `agent.model`; `value` | — |
//! | `testcase` | execution, in the report's order (case id, then runner) | `name="[runner] case"` (`[runner/variant] case` under a variant), `classname="skillgym.<runner>"`, `time` (every attempt's wall time, retries included), `file` and `line` of the case's source when it reads as `file:line` | a `failure` or `skipped`, then `system-out` |
//! | `failure` | failed, unexpected-passed or interrupted execution | `message` (the failure's first line), `type` (`<origin>/<class id>`) | the whole message, the repetition counts when repeated, the artifact directory |
//! | `skipped` | skipped execution | `message` (why it did not run) | — |
//! | `system-out` | execution | — | its artifact directory; an expected failure's origin, class and first line; a flaky pass's retries |
//!
//! Times are seconds with millisecond precision. Every attribute and text is escaped (`&`,
//! `<`, `>`, `"`, `'`, and a carriage return as `&#13;`; in attributes also tab and line feed),
//! the characters XML 1.0 forbids (C0 controls other than tab, line feed and carriage return;
//! U+FFFE, U+FFFF) become U+FFFD, and remembered secrets are masked first. So that the document
//! can be printed (`--format junit`), the other characters a terminal acts on (DEL, the C1
//! controls, bidirectional controls, line separators) are character references (`&#x9B;`), and
//! so are the first `:` of a line that starts with `::` after blanks (`&#58;`) and the `[` of
//! `##[` or `##vso[` (`&#91;`), which a CI runner would read as a command; a reader of the XML
//! gets the text back unchanged.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use super::{Reporter, RunReport, RunnerRow};
use crate::duration::decimal_seconds;
use crate::results::{ExecutionResult, Status};
use crate::secrets;
use crate::terminal_text::{ends_command_prefix, needs_escape};

/// `junit`: `junit.xml`.
#[derive(Debug)]
pub(crate) struct Junit;

impl Reporter for Junit {
    fn name(&self) -> &str {
        "junit"
    }

    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let path = dir.join("junit.xml");
        crate::artifacts::write_atomically(&path, xml(report).as_bytes())?;
        Ok(vec![path])
    }
}

/// Test, failure and skip counts and the summed time of some executions.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    tests: usize,
    failures: usize,
    skipped: usize,
    time_ms: u64,
}

impl Totals {
    fn add(&mut self, execution: &ExecutionResult) {
        self.tests += 1;
        match execution.status {
            Status::Failed | Status::UnexpectedPassed | Status::Interrupted => self.failures += 1,
            Status::Skipped => self.skipped += 1,
            Status::Passed | Status::ExpectedFailed => {}
        }
        self.time_ms = self.time_ms.saturating_add(time_ms(execution));
    }

    /// ` tests="…" failures="…" errors="0" skipped="…" time="…"`.
    fn attributes(&self, time_ms: u64) -> String {
        format!(
            " tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\"",
            self.tests,
            self.failures,
            self.skipped,
            decimal_seconds(time_ms)
        )
    }
}

/// The `junit.xml` document.
pub(crate) fn xml(report: &RunReport) -> String {
    let timestamp = report.started_at.as_deref().and_then(xml_timestamp);
    let mut all = Totals::default();
    let mut suites = String::new();
    let rows = report.runner_rows();
    for runner in report.runners() {
        let mut totals = Totals::default();
        let mut cases = String::new();
        for execution in report.executions.iter().filter(|e| e.runner_id == runner) {
            totals.add(execution);
            all.add(execution);
            testcase(&mut cases, execution);
        }
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\"{}",
            attr(runner),
            totals.attributes(totals.time_ms)
        );
        if let Some(timestamp) = timestamp {
            let _ = write!(suites, " timestamp=\"{timestamp}\"");
        }
        let _ = writeln!(suites, ">");
        if let Some(row) = rows.iter().find(|row| row.runner == runner) {
            properties(&mut suites, row, report.is_dry_run());
        }
        suites.push_str(&cases);
        suites.push_str("  </testsuite>\n");
    }
    let wall_ms = match (&report.started_at, &report.ended_at) {
        (Some(start), Some(end)) => epoch_ms(start)
            .zip(epoch_ms(end))
            .and_then(|(start, end)| u64::try_from(end - start).ok()),
        _ => None,
    };
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        text,
        "<testsuites name=\"skillgym\"{}>",
        all.attributes(wall_ms.unwrap_or(all.time_ms))
    );
    text.push_str(&suites);
    text.push_str("</testsuites>\n");
    text
}

/// The `<properties>` of a runner's suite: its agent's type, version and model, those known,
/// and `dry_run` (`--mock`: invented tokens and costs) when it was one.
fn properties(out: &mut String, row: &RunnerRow, dry_run: bool) {
    let versions = row.versions.join(", ");
    let known: Vec<(&str, &str)> = [
        ("agent", row.agent.as_str()),
        ("agent.version", versions.as_str()),
        ("agent.model", row.model.as_deref().unwrap_or_default()),
        ("dry_run", if dry_run { "true" } else { "" }),
    ]
    .into_iter()
    .filter(|(_, value)| !value.is_empty())
    .collect();
    if known.is_empty() {
        return;
    }
    out.push_str("    <properties>\n");
    for (name, value) in known {
        let _ = writeln!(
            out,
            "      <property name=\"{name}\" value=\"{}\"/>",
            attr(value)
        );
    }
    out.push_str("    </properties>\n");
}

/// One `<testcase>` element.
fn testcase(out: &mut String, execution: &ExecutionResult) {
    let runner = &execution.runner_id;
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        attr(&execution.trial_name()),
        attr(&format!("skillgym.{runner}")),
        decimal_seconds(time_ms(execution))
    );
    if let Some((file, line)) = file_line(&execution.source) {
        let _ = write!(out, " file=\"{}\" line=\"{line}\"", attr(file));
    }
    out.push_str(">\n");
    let first_line = |fallback: &str| {
        execution
            .failure
            .as_ref()
            .and_then(|f| f.message.lines().next())
            .unwrap_or(fallback)
            .to_owned()
    };
    let kind = execution.failure.as_ref().map_or_else(
        || execution.status.as_str().to_owned(),
        |f| format!("{}/{}", f.origin, f.class.id),
    );
    let artifacts = format!("artifacts: {}", execution.artifact_dir.display());
    let mut notes = Vec::new();
    match execution.status {
        Status::Failed | Status::UnexpectedPassed | Status::Interrupted => {
            let mut body = execution.failure.as_ref().map_or_else(
                || execution.status.as_str().to_owned(),
                |f| f.message.clone(),
            );
            body.push_str("\n\n");
            if let Some(note) = repetition_note(execution) {
                body.push_str(&note);
                body.push('\n');
            }
            body.push_str(&artifacts);
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                attr(&first_line(execution.status.as_str())),
                attr(&kind),
                text(&body)
            );
        }
        Status::Skipped => {
            let _ = writeln!(
                out,
                "      <skipped message=\"{}\"/>",
                attr(&first_line("not run"))
            );
        }
        Status::ExpectedFailed => notes.push(format!(
            "expected failure ({kind}): {}",
            first_line("no message")
        )),
        Status::Passed => {}
    }
    if execution.flaky {
        let retries = execution
            .attempts
            .total
            .saturating_sub(execution.completed_repetitions);
        notes.push(format!(
            "flaky: {n}/{n} repetitions passed after {retries} retr{}",
            if retries == 1 { "y" } else { "ies" },
            n = execution.successful_repetitions,
        ));
    }
    notes.push(artifacts);
    let _ = writeln!(
        out,
        "      <system-out>{}</system-out>",
        text(&notes.join("\n"))
    );
    out.push_str("    </testcase>\n");
}

/// `stopped at repetition 2/3 (1 passed, 3 attempts)` for a failed execution that was repeated
/// or retried; `18/20 samples passed (20 asked for)` for a sampled one.
fn repetition_note(execution: &ExecutionResult) -> Option<String> {
    if let Some(samples) = &execution.samples {
        return Some(format!(
            "{}/{} samples passed ({} asked for)",
            samples.passed, samples.sessions, execution.repeat_target
        ));
    }
    let attempts = execution.attempts.total;
    if execution.repeat_target <= 1 && attempts <= 1 {
        return None;
    }
    let at = execution
        .stopped_at_repetition
        .unwrap_or(execution.completed_repetitions);
    Some(format!(
        "stopped at repetition {at}/{} ({} passed, {attempts} attempt{})",
        execution.repeat_target,
        execution.successful_repetitions,
        if attempts == 1 { "" } else { "s" }
    ))
}

/// The wall time of every attempt of the execution, retries included.
fn time_ms(execution: &ExecutionResult) -> u64 {
    crate::figures::sum(
        execution
            .repetitions
            .iter()
            .flat_map(|r| &r.attempts)
            .map(|a| a.duration_ms),
    )
}

/// `file:line` split, when the line is a positive number and the file is not empty.
pub(super) fn file_line(source: &str) -> Option<(&str, u32)> {
    let (file, line) = source.rsplit_once(':')?;
    let line = line.parse().ok().filter(|&line| line > 0)?;
    (!file.is_empty()).then_some((file, line))
}

/// The date and time of an RFC 3339 timestamp without its fraction and zone
/// (`2026-11-22T10:15:00`), the form JUnit's `timestamp` takes.
fn xml_timestamp(rfc3339: &str) -> Option<&str> {
    let head = rfc3339.get(..19)?;
    let shape_ok = head.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        10 => b == b'T',
        13 | 16 => b == b':',
        _ => b.is_ascii_digit(),
    });
    shape_ok.then_some(head)
}

/// Milliseconds since the epoch of a UTC RFC 3339 timestamp as the harness writes them
/// (`2026-11-22T10:15:00.123Z`, the fraction optional).
fn epoch_ms(rfc3339: &str) -> Option<i64> {
    let head = xml_timestamp(rfc3339)?;
    let rest = rfc3339[19..].strip_suffix('Z')?;
    let millis: i64 = match rest.strip_prefix('.') {
        Some(fraction) if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{fraction:0<3}")[..3].parse().ok()?
        }
        None if rest.is_empty() => 0,
        _ => return None,
    };
    let number = |range: std::ops::Range<usize>| head[range].parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    // Howard Hinnant's `days_from_civil`.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

/// Escaped attribute value (secrets masked).
pub(super) fn attr(value: &str) -> String {
    escape(value, true)
}

/// Escaped character data (secrets masked).
pub(super) fn text(value: &str) -> String {
    escape(value, false)
}

fn escape(value: &str, attribute: bool) -> String {
    let value = secrets::mask(value);
    let mut out = String::with_capacity(value.len());
    // Whether only blanks were written on the current line so far (text may start a line).
    let mut line_start = true;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c if needs_escape(c) => {
                let _ = write!(out, "&#x{:X};", u32::from(c));
            }
            ':' if line_start && chars.peek() == Some(&':') => out.push_str("&#58;"),
            '[' if ends_command_prefix(&out) => out.push_str("&#91;"),
            c => out.push(c),
        }
        line_start = c == '\n' || line_start && out.ends_with(char::is_whitespace);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::sample;

    #[test]
    fn the_document_has_a_suite_per_runner_and_a_case_per_execution() {
        assert_eq!(
            xml(&sample()),
            r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="skillgym" tests="5" failures="1" errors="0" skipped="1" time="2.750">
  <testsuite name="careful" tests="3" failures="0" errors="0" skipped="0" time="3.750" timestamp="2026-11-22T23:59:58">
    <properties>
      <property name="agent" value="claude-code"/>
      <property name="agent.version" value="2.1.330"/>
      <property name="agent.model" value="claude-sonnet-4-6"/>
    </properties>
    <testcase name="[careful] greets" classname="skillgym.careful" time="1.250" file="tests/benchmarks/main.rs" line="10">
      <system-out>artifacts: /runs/r1/greets/careful</system-out>
    </testcase>
    <testcase name="[careful] known_gap" classname="skillgym.careful" time="1.250" file="tests/benchmarks/main.rs" line="10">
      <system-out>expected failure (grader/grader): no skill loaded
artifacts: /runs/r1/known_gap/careful</system-out>
    </testcase>
    <testcase name="[careful] mod:x" classname="skillgym.careful" time="1.250" file="evals/showcase/cases/x/case.yaml" line="1">
      <system-out>flaky: 1/1 repetitions passed after 1 retry
artifacts: /runs/r1/mod:x/careful</system-out>
    </testcase>
  </testsuite>
  <testsuite name="hasty" tests="2" failures="1" errors="0" skipped="1" time="4.500" timestamp="2026-11-22T23:59:58">
    <properties>
      <property name="agent" value="claude-code"/>
      <property name="agent.version" value="2.1.330"/>
      <property name="agent.model" value="claude-sonnet-4-6"/>
    </properties>
    <testcase name="[hasty] greets" classname="skillgym.hasty" time="4.500" file="tests/benchmarks/main.rs" line="10">
      <failure message="expected &quot;a &amp; b&quot; &lt;got&gt; &apos;c&apos;" type="assertion/wrong-answer">expected &quot;a &amp; b&quot; &lt;got&gt; &apos;c&apos;
  final output:
	A&amp;B�[0m&#13;

stopped at repetition 2/3 (1 passed, 3 attempts)
artifacts: /runs/r1/greets/hasty</failure>
      <system-out>artifacts: /runs/r1/greets/hasty</system-out>
    </testcase>
    <testcase name="[hasty] skipped_one" classname="skillgym.hasty" time="0.000">
      <skipped message="not run: the run was interrupted by SIGINT"/>
      <system-out>artifacts: /runs/r1/skipped_one/hasty</system-out>
    </testcase>
  </testsuite>
</testsuites>
"#
        );
    }

    #[test]
    fn a_suites_properties_are_what_is_known_of_its_agent() {
        let mut row = RunnerRow {
            runner: "r".into(),
            ..RunnerRow::default()
        };
        let mut out = String::new();
        properties(&mut out, &row, false);
        assert_eq!(out, "", "nothing known, no properties");
        row.agent = "command".into();
        row.versions = vec!["1.0".into(), "2.0 <rc>".into()];
        properties(&mut out, &row, false);
        assert_eq!(
            out,
            "    <properties>\n      <property name=\"agent\" value=\"command\"/>\n      <property name=\"agent.version\" value=\"1.0, 2.0 &lt;rc&gt;\"/>\n    </properties>\n"
        );
    }

    #[test]
    fn escaping_covers_markup_quotes_and_forbidden_characters() {
        assert_eq!(
            attr("a&b<c>d\"e'f\ng\th\ri\u{0}j\u{b}k\u{fffe}l\u{7f}m"),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f&#10;g&#9;h&#13;i\u{fffd}j\u{fffd}k\u{fffd}l&#x7F;m"
        );
        assert_eq!(
            text("]]> & \"x\"\n\ty\r\u{1b}"),
            "]]&gt; &amp; &quot;x&quot;\n\ty&#13;\u{fffd}"
        );
        assert_eq!(text("héllo ✓ 𝄞"), "héllo ✓ 𝄞");
    }

    #[test]
    fn nothing_printed_can_drive_a_terminal_or_a_ci_runner() {
        assert_eq!(
            text("::add-mask::a\n  ::stop-commands::t\nx ##[add-mask]b ##vso[c] a::b"),
            "&#58;:add-mask::a\n  &#58;:stop-commands::t\nx ##&#91;add-mask]b ##vso&#91;c] a::b"
        );
        assert_eq!(
            text("CSI\u{9b}2J bidi\u{202e} sep\u{2028}"),
            "CSI&#x9B;2J bidi&#x202E; sep&#x2028;"
        );
    }

    #[test]
    fn sources_and_times_are_read_only_when_well_formed() {
        assert_eq!(file_line("tests/a.rs:12"), Some(("tests/a.rs", 12)));
        assert_eq!(file_line("C:/a.rs:3"), Some(("C:/a.rs", 3)));
        assert_eq!(file_line("tests/a.rs"), None);
        assert_eq!(file_line(":3"), None);
        assert_eq!(file_line("a.rs:x"), None);
        assert_eq!(file_line("a.rs:0"), None);
        assert_eq!(
            xml_timestamp("2026-11-22T10:15:00.123Z"),
            Some("2026-11-22T10:15:00")
        );
        assert_eq!(xml_timestamp("yesterday"), None);
        assert_eq!(epoch_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_ms("2000-02-29T00:00:00.005Z"), Some(951_782_400_005));
        assert_eq!(epoch_ms("2026-11-22T10:34:56.1Z"), Some(1_795_343_696_100));
        assert_eq!(epoch_ms("2026-11-22T10:34:56+02:00"), None);
    }

    #[test]
    fn without_times_the_total_is_the_sum_and_no_timestamp_is_written() {
        let mut report = sample();
        report.started_at = None;
        report.ended_at = None;
        let document = xml(&report);
        assert!(
            document.contains(
                r#"<testsuites name="skillgym" tests="5" failures="1" errors="0" skipped="1" time="8.250">"#
            ),
            "{document}"
        );
        assert!(!document.contains("timestamp="), "{document}");
    }

    #[test]
    fn the_reporter_writes_junit_xml() {
        let dir = tempfile::tempdir().unwrap();
        let written = Junit.write(&sample(), dir.path()).unwrap();
        assert_eq!(written, [dir.path().join("junit.xml")]);
        assert_eq!(
            std::fs::read_to_string(&written[0]).unwrap(),
            xml(&sample())
        );
    }
}
