//! The HTML report's `#executions` section: one list of every execution, failures first,
//! filtered, searched and paged in the browser by the page's one script (`html_list.js`),
//! each execution's detail expanded on demand.
//!
//! | part | is |
//! |---|---|
//! | `#filters` | a `<select>` per status, runner, tag and variant (each with its counts; only the values the run has) and a search box, over the case id, runner, variant, tags and failure |
//! | `#shown`, `#prev`, `#page`, `#next` | what the list shows (`Executions 1–50 of 312 (of 10,000), failures first`) and the pager, [`PAGE`] rows a page |
//! | `#list` | the page's rows, each a `<details class="row" data-i="<i>" data-status="<status>">`: status, flaky, trial name, tags, duration and tokens, the failure's first line; opening it inserts the execution's detail |
//! | `#rows` | `<script type="application/json">`: every row's data, in list order (failing, flaky, expected-failed, skipped, then passed; report order within each) |
//! | `#detail-<i>` | `<script type="text/html">`: execution `i`'s section (`<section class="exec" id="exec:…">`, as `html` renders it), inert text until its row is opened |
//!
//! The state lives in the URL's fragment, `#status=failed&runner=codex&tag=smoke&variant=with&q=needle&page=2`
//! (each key optional, values URL-encoded): the controls rewrite it, and a page opened with
//! one shows that selection. A fragment naming an execution or an attempt (`#exec:<case>:<runner>`,
//! the matrix's links) opens that execution's row on its page. A report of at most [`PAGE`]
//! executions opens with every row expanded.
//!
//! The data blocks are not scripts: they are never run, and the page's `Content-Security-Policy`
//! allows exactly one script, by its hash ([`csp`]).

use std::fmt::{self, Write as _};
use std::sync::LazyLock;

use super::RunReport;
use super::html::{anchor, escape};
use crate::duration::rounded;
use crate::figures::thousands;
use crate::results::{ExecutionResult, Status};
use crate::secrets;

/// Rows on a page of the list.
pub(crate) const PAGE: usize = 50;

/// The page's script.
const SCRIPT: &str = include_str!("html_list.js");

/// The page's `Content-Security-Policy`: nothing loaded, inline styles, and only [`SCRIPT`]
/// run (by its SHA-256).
pub(super) fn csp() -> &'static str {
    static CSP: LazyLock<String> = LazyLock::new(|| {
        let hash = super::sha256::base64(&super::sha256::digest(SCRIPT.as_bytes()));
        format!("default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{hash}'")
    });
    &CSP
}

/// The `<script>` element of [`SCRIPT`].
pub(super) fn script(out: &mut String) -> fmt::Result {
    writeln!(out, "<script>{SCRIPT}</script>")
}

/// The list's rank of an execution: failing first, then flaky, expected-failed, skipped and
/// passed.
fn rank(e: &ExecutionResult) -> u8 {
    match e.status {
        Status::Failed | Status::Interrupted | Status::UnexpectedPassed => 0,
        Status::Passed if e.flaky => 1,
        Status::ExpectedFailed => 2,
        Status::Skipped => 3,
        _ => 4,
    }
}

/// The indexes of the report's executions in list order.
pub(super) fn order(report: &RunReport) -> Vec<usize> {
    let mut order: Vec<usize> = (0..report.executions.len()).collect();
    order.sort_by_key(|&i| rank(&report.executions[i]));
    order
}

/// The section's heading, controls and pager, and the opening of `#list`.
pub(super) fn controls(out: &mut String, report: &RunReport) -> fmt::Result {
    out.write_str("<section id=\"executions\">\n<h2>Executions</h2>\n<div id=\"filters\" class=\"filters\">\n")?;
    let statuses = [
        Status::Failed,
        Status::Interrupted,
        Status::UnexpectedPassed,
        Status::ExpectedFailed,
        Status::Skipped,
        Status::Passed,
    ];
    let counted: Vec<(String, usize)> = statuses
        .iter()
        .map(|s| {
            let n = report.executions.iter().filter(|e| e.status == *s).count();
            (s.as_str().to_owned(), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    select(out, "status", &counted)?;
    let runners = report.runners();
    let runners: Vec<(String, usize)> = runners
        .iter()
        .map(|r| {
            let n = report
                .executions
                .iter()
                .filter(|e| e.runner_id == *r)
                .count();
            ((*r).to_owned(), n)
        })
        .collect();
    select(out, "runner", &runners)?;
    select(
        out,
        "tag",
        &tally(report, |e| e.tags.iter().map(String::as_str)),
    )?;
    let variants = tally(report, |e| e.variant.as_deref().into_iter());
    if !variants.is_empty() {
        select(out, "variant", &variants)?;
    }
    out.write_str("<label>search <input type=\"search\" id=\"f-q\" placeholder=\"case, runner, tag, failure\"></label>\n</div>\n")?;
    out.write_str("<p class=\"pager\"><span id=\"shown\"></span> <button type=\"button\" id=\"prev\">previous</button> <span id=\"page\"></span> <button type=\"button\" id=\"next\">next</button></p>\n")?;
    out.write_str("<noscript><p class=\"note\">The list of executions is drawn by the page's script.</p></noscript>\n")?;
    writeln!(out, "<div id=\"list\" data-page=\"{PAGE}\"></div>")
}

/// Each value `of` gives the executions, with how many have it, sorted.
fn tally<'a, I: Iterator<Item = &'a str>>(
    report: &'a RunReport,
    of: impl Fn(&'a ExecutionResult) -> I,
) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for value in report.executions.iter().flat_map(of) {
        *counts.entry(value).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(value, n)| (value.to_owned(), n))
        .collect()
}

/// `<label>name <select id="f-name">` with `any` and each value with its count.
fn select(out: &mut String, name: &str, values: &[(String, usize)]) -> fmt::Result {
    write!(
        out,
        "<label>{name} <select id=\"f-{name}\"><option value=\"\">any</option>"
    )?;
    for (value, n) in values {
        let value = escape(&secrets::mask(value)).into_owned();
        write!(
            out,
            "<option value=\"{value}\">{value} ({})</option>",
            thousands(*n as u64)
        )?;
    }
    out.write_str("</select></label>\n")
}

/// The opening of the `#rows` data block.
pub(super) const ROWS_OPEN: &str = "<script type=\"application/json\" id=\"rows\">[";

/// Writes execution `i`'s row of `#rows` (after a comma unless `first`).
pub(super) fn row(out: &mut String, i: usize, e: &ExecutionResult, first: bool) -> fmt::Result {
    let mask = |text: &str| secrets::mask(text).into_owned();
    let mut meta = rounded(e.duration_ms);
    if let Some(total) = e.usage.total_tokens {
        write!(meta, " · {} tokens", thousands(total.value))?;
    }
    let why = e.failure.as_ref().map_or(String::new(), |failure| {
        let first_line = failure.message.lines().next().unwrap_or_default();
        let line: String = first_line.chars().take(200).collect();
        format!("{}: {}", failure.class.id, mask(&line))
    });
    let value = serde_json::json!({
        "i": i,
        "a": anchor(&e.case_id, &e.runner_id, e.variant.as_deref()),
        "n": mask(&e.trial_name()),
        "r": mask(&e.runner_id),
        "v": e.variant.as_deref().map(mask).unwrap_or_default(),
        "s": e.status.as_str(),
        "f": u8::from(e.flaky),
        "t": e.tags.iter().map(|t| mask(t)).collect::<Vec<_>>(),
        "d": meta,
        "x": why,
    });
    if !first {
        out.push(',');
    }
    script_safe_json(out, &value.to_string());
    Ok(())
}

/// The closing of the `#rows` data block.
pub(super) const ROWS_CLOSE: &str = "]</script>\n";

/// Writes `json` with `<`, `>` and `&` as `\u` escapes (only ever inside its strings): no
/// `</script>` can end the data block early.
fn script_safe_json(out: &mut String, json: &str) {
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
}

/// The opening of execution `i`'s detail block (its section follows, then [`DETAIL_CLOSE`]):
/// its text holds no `<` but its own markup's, every text escaped, so nothing ends it early.
pub(super) fn detail_open(out: &mut String, i: usize) -> fmt::Result {
    write!(out, "<script type=\"text/html\" id=\"detail-{i}\">")
}

/// The closing of a detail block.
pub(super) const DETAIL_CLOSE: &str = "</script>\n";

/// Which attempts' sessions the page embeds: at most [`SESSIONS`], those of attempts that did
/// not pass first (in report order), then passed ones while the budget lasts; the others get
/// a note naming their `report.json`.
#[derive(Debug)]
pub(super) struct SessionBudget {
    failing: usize,
    passing: usize,
}

/// Sessions (each attempt's `report.json`: prompt, output, timeline) a page embeds.
pub(crate) const SESSIONS: usize = 500;

impl SessionBudget {
    /// The budget of `report`.
    pub(super) fn of(report: &RunReport) -> SessionBudget {
        let failing = report
            .executions
            .iter()
            .flat_map(|e| &e.repetitions)
            .flat_map(|r| &r.attempts)
            .filter(|a| a.status != Status::Passed)
            .count();
        SessionBudget {
            failing: SESSIONS,
            passing: SESSIONS.saturating_sub(failing),
        }
    }

    /// Whether the session of an attempt with `status` is embedded (spending the budget).
    pub(super) fn take(&mut self, status: Status) -> bool {
        let left = if status == Status::Passed {
            &mut self.passing
        } else {
            &mut self.failing
        };
        let take = *left > 0;
        *left = left.saturating_sub(1);
        take
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::execution;
    use super::super::html::render;
    use super::*;

    fn report(executions: Vec<ExecutionResult>) -> RunReport {
        RunReport::new(vec!["r1".into()], vec!["/runs/r1".into()], executions)
    }

    fn with_status(case: &str, status: &str, extra: serde_json::Value) -> ExecutionResult {
        let mut fields = json!({"status": status, "passed": status == "passed"});
        for (key, value) in extra.as_object().unwrap() {
            fields[key] = value.clone();
        }
        execution(case, "r", fields)
    }

    /// The rows of `#rows`, parsed.
    fn rows(html: &str) -> Vec<serde_json::Value> {
        let start = html.find(ROWS_OPEN).unwrap() + ROWS_OPEN.len() - 1;
        let end = start + html[start..].find("</script>").unwrap();
        serde_json::from_str(&html[start..end]).unwrap()
    }

    #[test]
    fn the_list_runs_failures_first_then_flaky_expected_failed_skipped_and_passed() {
        let html = render(&report(vec![
            with_status("a", "passed", json!({})),
            with_status("b", "skipped", json!({"repetitions": []})),
            with_status("c", "expected-failed", json!({})),
            with_status("d", "passed", json!({"flaky": true})),
            with_status("e", "failed", json!({})),
            with_status("f", "interrupted", json!({})),
        ]));
        let names: Vec<String> = rows(&html)
            .iter()
            .map(|row| row["n"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            ["[r] e", "[r] f", "[r] d", "[r] c", "[r] b", "[r] a"]
        );
        // Each row's detail block is the execution's index in report order.
        let e = &rows(&html)[0];
        assert_eq!(e["i"], 4);
        assert!(html.contains(
            "<script type=\"text/html\" id=\"detail-4\"><section class=\"exec\" id=\"exec:e:r\">"
        ));
    }

    #[test]
    fn the_policy_runs_exactly_the_pages_script_by_its_hash() {
        let html = render(&report(vec![with_status("a", "passed", json!({}))]));
        let start = html.find("<script>").unwrap() + "<script>".len();
        let body = &html[start..start + html[start..].find("</script>").unwrap()];
        assert_eq!(body, SCRIPT);
        let hash = super::super::sha256::base64(&super::super::sha256::digest(body.as_bytes()));
        assert!(html.contains(&format!(
            "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{hash}'\""
        )));
        assert!(!SCRIPT.contains("</script"), "the script cannot end early");
        assert!(!html.contains(" onclick") && !html.contains(" onload"));
    }

    #[test]
    fn filters_offer_the_runs_statuses_runners_tags_and_variants_with_counts() {
        let html = render(&report(vec![
            with_status("a", "failed", json!({"tags": ["smoke", "x<y"]})),
            with_status("b", "passed", json!({"tags": ["smoke"], "variant": "with"})),
        ]));
        assert!(html.contains("<select id=\"f-status\"><option value=\"\">any</option><option value=\"failed\">failed (1)</option><option value=\"passed\">passed (1)</option></select>"), "{html}");
        assert!(html.contains("<select id=\"f-runner\"><option value=\"\">any</option><option value=\"r\">r (2)</option></select>"));
        assert!(html.contains(
            "<option value=\"smoke\">smoke (2)</option><option value=\"x&lt;y\">x&lt;y (1)</option>"
        ));
        assert!(html.contains("<select id=\"f-variant\"><option value=\"\">any</option><option value=\"with\">with (1)</option></select>"));
        let without = render(&report(vec![with_status("a", "passed", json!({}))]));
        assert!(!without.contains("f-variant"), "no variant, no filter");
    }

    #[test]
    fn sessions_past_the_budget_are_named_not_embedded_failed_attempts_first() {
        let mut executions: Vec<ExecutionResult> = (0..SESSIONS + 1)
            .map(|n| with_status(&format!("p{n:04}"), "passed", json!({})))
            .collect();
        executions.push(with_status("zz-failed", "failed", json!({})));
        let mut failing = executions.pop().unwrap();
        failing.repetitions[0].attempts[0].status = Status::Failed;
        executions.push(failing);
        let html = render(&report(executions));
        let not_embedded = html
            .matches("<h4>Session</h4>\n<p class=\"note\">Not embedded")
            .count();
        // 502 attempts, one failing: it and the first 499 passing ones are embedded.
        assert_eq!(not_embedded, 2);
        let failed = html.find("id=\"exec:zz-failed:r\"").unwrap();
        assert!(
            !html[failed..].contains("Not embedded"),
            "the failing attempt's session is embedded, though it comes last"
        );
    }

    #[test]
    fn the_matrix_gives_way_to_a_note_past_its_cases() {
        let many: Vec<ExecutionResult> = (0..=crate::report::html::MATRIX_CASES)
            .map(|n| with_status(&format!("c{n:04}"), "passed", json!({})))
            .collect();
        let html = render(&report(many));
        assert!(html.contains("<section id=\"matrix\">\n<h2>Cases × runners</h2>\n<p class=\"note\">201 cases: more than a matrix shows (200)"));
        assert!(!html.contains("<table class=\"matrix\">"));
    }
}
