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
    write!(out, "<script>{SCRIPT}</script>\n")
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
