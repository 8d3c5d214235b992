//! The `html` reporter: one self-contained page, `report.html`, to read a run in a browser.
//!
//! | part | shows |
//! |---|---|
//! | header | the run ids and directories, start and end, the executions by status |
//! | `#runners` | one row per runner: its agent, the agent's version and the model; passed, failed, expected-failed, flaky, skipped; input, output, reasoning, cache and uncached tokens (input + output + reasoning − cache, defined under the table); cost; mean time (the console table's figures) |
//! | `#executions` | every execution in one list, failures first, filtered by status, runner, tag and variant, searched, paged, each expanded on demand (`html_list`) into its section, below |
//! | `#matrix` | rows = cases, columns = runners; each cell the execution's status, linked to its section (under variants, each variant's, the cell colored by the first that did not pass); empty where the case does not run on that runner; a note instead past [`MATRIX_CASES`] cases |
//! | `#experiment` | when cases ran under variants: per runner, each case's pass rate per variant as a dot with its interval, tokens and cost bars per variant, each lift with its interval and verdict (`html_experiment`) |
//! | `#triggers` | when trigger prompts ran: per skill × runner, the sessions that did what they should, recall, precision and F1 with their intervals and gates, near misses, tokens and cost per session; then the prompts that misfired, linked to their executions (`html_triggers`) |
//! | `#exec:<case>:<runner>[:<variant>]` | an execution's section: status, source, tags, repetitions, pass rate, duration, tokens, its failure (origin, class, full message, location), and when it ran several attempts a table of them (status, duration, steps, tokens, exit) |
//! | `#exec:<case>:<runner>:r<N>a<M>` | one block per attempt: its status, duration and tokens, its artifacts (relative to the execution's), steps and exit, its failure when it differs from the execution's, the graders' results (name, type, score, verdict, failed checks), and from its `report.json` (a note when there is none, or when the page's budget of sessions is spent): the agent (type, version, model), the prompt, the final output, the token usage, the skills (installed, detected with confidence and evidence, failed loads), the tool calls, the commands, the file reads, the timeline of events and the normalizer's warnings |
//!
//! The page holds its CSS (and inline SVG charts), its data and one script (the list's) and
//! nothing else: no font, image or link that loads anything, and a `Content-Security-Policy` of
//! `default-src 'none'` that forbids loading and runs only that script, named by its hash. No
//! element has an event-handler attribute. Every text and attribute is masked
//! (`secrets::mask`) and [`escape`]d. Big runs stay light: the page is written a part at a
//! time, each execution's section is inert text until it is opened, at most
//! [`SESSIONS`](html_list::SESSIONS) sessions are embedded (those of attempts that did not pass
//! first), and big transcripts stay readable: a text is cut at [`TEXT_CAP`] characters and the
//! timeline, the commands and the file reads at [`ITEM_CAP`] entries per attempt, each cut
//! saying how much was left out (`report.json` keeps everything).

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use skillgym::{Failure, SessionEvent, SessionReport, TokenCount, Usage};

use super::console::{agent_cells, row_cells};
use super::html_list::{self, SessionBudget};
use super::{Reporter, RunReport};
use crate::artifacts::sanitize;
use crate::duration::rounded;
use crate::figures::thousands;
use crate::results::{AttemptResult, ExecutionResult, GraderVerdict, Grading, Status};
use crate::secrets;

/// Characters of one text (an event, a prompt, an output, a check's evidence) shown; the rest
/// is cut with a note saying how many characters were left out.
pub(crate) const TEXT_CAP: usize = 2_000;

/// Events of an attempt's timeline (and entries of its command and file-read lists) shown;
/// the rest are counted in a note.
pub(crate) const ITEM_CAP: usize = 500;

/// `html`: the run as one self-contained page, `report.html`.
#[derive(Debug)]
pub(crate) struct Html;

impl Reporter for Html {
    fn name(&self) -> &str {
        "html"
    }

    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>> {
        fs::create_dir_all(dir)?;
        let path = dir.join("report.html");
        super::stream::write_atomically(&path, |file| render_to(report, file))?;
        Ok(vec![path])
    }
}

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by their entities: safe as element content
/// and as a quoted attribute value.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The whole page.
pub(crate) fn render(report: &RunReport) -> String {
    let mut bytes = Vec::with_capacity(64 * 1024);
    render_to(report, &mut bytes).expect("writing to a Vec cannot fail");
    String::from_utf8(bytes).expect("the page is UTF-8")
}

/// Bytes of the page gathered before they are written to the sink.
const CHUNK: usize = 64 * 1024;

/// Writes the page to `sink`, a part at a time: one execution's detail is built at once, never
/// the whole page.
pub(crate) fn render_to(report: &RunReport, sink: &mut dyn io::Write) -> io::Result<()> {
    let mut out = String::with_capacity(2 * CHUNK);
    let fmt = |result: fmt::Result| result.map_err(io::Error::other);
    fmt(head(&mut out, report))?;
    fmt(html_list::controls(&mut out, report))?;
    let order = html_list::order(report);
    out.push_str(html_list::ROWS_OPEN);
    for (n, &i) in order.iter().enumerate() {
        fmt(html_list::row(&mut out, i, &report.executions[i], n == 0))?;
        flush_over(&mut out, CHUNK, sink)?;
    }
    out.push_str(html_list::ROWS_CLOSE);
    let mut sessions = html_list::SessionBudget::of(report);
    for (i, execution) in report.executions.iter().enumerate() {
        fmt(html_list::detail_open(&mut out, i))?;
        fmt(execution_section(&mut out, execution, &mut sessions))?;
        out.push_str(html_list::DETAIL_CLOSE);
        flush_over(&mut out, CHUNK, sink)?;
    }
    out.push_str("</section>\n");
    fmt(matrix(&mut out, report))?;
    fmt(super::html_experiment::section(&mut out, report))?;
    fmt(super::html_triggers::section(&mut out, report))?;
    out.push_str("</main>\n");
    fmt(html_list::script(&mut out))?;
    out.push_str("</body>\n</html>\n");
    flush_over(&mut out, 0, sink)
}

/// Writes `out` to `sink` and empties it, once it holds more than `limit` bytes.
fn flush_over(out: &mut String, limit: usize, sink: &mut dyn io::Write) -> io::Result<()> {
    if out.len() > limit {
        sink.write_all(out.as_bytes())?;
        out.clear();
    }
    Ok(())
}

/// The anchor of an execution's section: `exec:<case>:<runner>`, or `exec:<case>:<runner>:<variant>`
/// under a variant, each id written as its artifact directory's name (injective, and free of
/// `:`), so two executions never share one.
pub(crate) fn anchor(case_id: &str, runner_id: &str, variant: Option<&str>) -> String {
    match variant {
        Some(variant) => format!(
            "exec:{}:{}:{}",
            sanitize(case_id),
            sanitize(runner_id),
            sanitize(variant)
        ),
        None => format!("exec:{}:{}", sanitize(case_id), sanitize(runner_id)),
    }
}

/// Writes `value` masked and escaped.
pub(super) fn text(out: &mut String, value: &str) -> fmt::Result {
    out.write_str(&escape(&secrets::mask(value)))
}

/// Writes `value` masked, cut at `cap` characters and escaped, then a note of what was cut.
fn capped(out: &mut String, value: &str, cap: usize) -> fmt::Result {
    let masked = secrets::mask(value);
    match masked.char_indices().nth(cap) {
        None => out.write_str(&escape(&masked)),
        Some((end, _)) => {
            out.write_str(&escape(&masked[..end]))?;
            let cut = masked[end..].chars().count() as u64;
            write!(
                out,
                "<span class=\"cut\">[… {} more characters not shown]</span>",
                thousands(cut)
            )
        }
    }
}

/// Writes `open`, the first [`ITEM_CAP`] of `items` through `item`, a `<li class="cut">`
/// counting the `what` not shown, and `close`.
fn capped_list<T>(
    out: &mut String,
    (open, close): (&str, &str),
    items: &[T],
    what: &str,
    mut item: impl FnMut(&mut String, &T) -> fmt::Result,
) -> fmt::Result {
    out.write_str(open)?;
    for entry in items.iter().take(ITEM_CAP) {
        item(out, entry)?;
    }
    let left = items.len().saturating_sub(ITEM_CAP);
    if left > 0 {
        write!(
            out,
            "<li class=\"cut\">… {} more {what} not shown (see report.json)</li>",
            thousands(left as u64)
        )?;
    }
    out.write_str(close)
}

fn status_badge(out: &mut String, status: Status) -> fmt::Result {
    let name = status.as_str();
    write!(out, "<span class=\"badge s-{name}\">{name}</span>")
}

fn tokens(count: Option<TokenCount>) -> String {
    count.map_or_else(|| "-".to_owned(), |c| thousands(c.value))
}

/// A session's cost, `~` when estimated from its token counts.
fn cost(usage: &Usage) -> String {
    crate::figures::usd_marked(usage.cost_usd, usage.cost_estimated)
}

/// A rate in 0..=1 as a percentage (a rate out of that range, read from a file, is clamped).
fn percent(rate: f64) -> f64 {
    crate::figures::finite(rate).clamp(0.0, 1.0) * 100.0
}

const STYLE: &str = "\
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;\
--pass:#1a7f37;--fail:#cf222e;--xfail:#8250df;--skip:#6e7781;--warn:#9a6700}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;\
color:var(--fg);background:var(--bg)}
h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1.2rem;margin:2rem 0 .6rem;\
border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:0 0 .5rem}
h4{font-size:.95rem;margin:1rem 0 .3rem}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:var(--soft);border:1px solid var(--line);\
border-radius:4px;padding:.5rem .7rem;margin:.3rem 0;max-height:32rem;overflow:auto}
table{border-collapse:collapse;margin:.3rem 0}
th,td{border:1px solid var(--line);padding:.25rem .55rem;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.3rem 0}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}
.badge{display:inline-block;border-radius:3px;padding:0 .4rem;color:#fff;font-size:12px;\
font-weight:600;background:var(--skip)}
.s-passed{background:var(--pass)}.s-failed,.s-unexpected-passed,.s-interrupted{background:var(--fail)}
.s-expected-failed{background:var(--xfail)}.s-skipped{background:var(--skip)}
.counts .badge{margin-right:.3rem}.badge.zero{background:var(--skip);opacity:.55}
table.matrix td.cell{text-align:center}table.matrix td.cell a{color:#fff;text-decoration:none}
table.matrix td.none{background:var(--soft)}
.exec{border:1px solid var(--line);border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
.failure{border-left:4px solid var(--fail);padding:.2rem .8rem;margin:.6rem 0;background:#fff8f8}
details.attempt{border:1px solid var(--line);border-radius:4px;margin:.6rem 0;padding:.3rem .7rem}
details.attempt>summary{cursor:pointer;font-weight:600}
.note{color:var(--muted);font-style:italic}.missing{color:var(--warn)}
.cut{color:var(--warn);font-style:italic}
ol.timeline{padding-left:2.5rem}ol.timeline li{margin:.25rem 0}
.kind{display:inline-block;min-width:6.5rem;font-weight:600}.at{color:var(--muted);font-size:12px}
.error{color:var(--fail)}
.filters{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.4rem 0}
.filters select,.filters input,.pager button{font:inherit}
details.row{border:1px solid var(--line);border-radius:4px;margin:.3rem 0;padding:.25rem .6rem}
details.row>summary{cursor:pointer}
details.row[data-status=failed],details.row[data-status=interrupted],\
details.row[data-status=unexpected-passed]{border-left:4px solid var(--fail)}
.row .name{font-weight:600}.row .tags{color:var(--muted)}.row .at{margin-left:.4rem}
.row .why{display:block;color:var(--fail);margin-left:1.4rem;white-space:pre-wrap}
details.row>section.exec{border:0;padding:.2rem 0;margin:.3rem 0}
";

/// The page up to the executions: head, header (the counts) and the runners' table.
fn head(out: &mut String, report: &RunReport) -> fmt::Result {
    out.write_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")?;
    writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        html_list::csp()
    )?;
    out.write_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")?;
    out.write_str("<title>skillgym run ")?;
    text(out, &report.run_ids.join(", "))?;
    write!(
        out,
        "</title>\n<style>\n{STYLE}{}</style>\n</head>\n<body>\n",
        super::html_experiment::STYLE
    )?;
    header(out, report)?;
    out.write_str("<main>\n")?;
    runners_table(out, report)
}

fn header(out: &mut String, report: &RunReport) -> fmt::Result {
    out.write_str("<header>\n<h1>skillgym run</h1>\n<dl class=\"meta\">\n")?;
    let runs = if report.run_ids.len() == 1 {
        "run"
    } else {
        "runs"
    };
    write!(out, "<dt>{runs}</dt><dd>")?;
    for (i, id) in report.run_ids.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str("<code>")?;
        text(out, id)?;
        out.write_str("</code>")?;
    }
    out.write_str("</dd>\n<dt>directories</dt><dd>")?;
    for (i, dir) in report.run_dirs.iter().enumerate() {
        if i > 0 {
            out.write_str("<br>")?;
        }
        out.write_str("<code>")?;
        text(out, &dir.display().to_string())?;
        out.write_str("</code>")?;
    }
    out.write_str("</dd>\n<dt>started</dt><dd>")?;
    text(out, report.started_at.as_deref().unwrap_or("unknown"))?;
    out.write_str("</dd>\n<dt>ended</dt><dd>")?;
    text(out, report.ended_at.as_deref().unwrap_or("unknown"))?;
    out.write_str("</dd>\n</dl>\n")?;
    if report.is_dry_run() {
        out.write_str("<p class=\"dry-run\"><span class=\"badge s-skipped\">dry run</span> The agents talked to skillgym's scripted model (<code>--mock</code>): the tokens and costs are the script's inventions, not a model's.</p>\n")?;
    } else if !report.dry_runs.is_empty() {
        out.write_str("<p class=\"dry-run\"><span class=\"badge s-skipped\">dry runs merged</span> Invented tokens and costs (<code>--mock</code>) come from ")?;
        text(out, &report.dry_runs.join(", "))?;
        out.write_str(".</p>\n")?;
    }
    let counts = report.counts();
    write!(
        out,
        "<p class=\"counts\" id=\"counts\"><strong>{} executions</strong>: ",
        counts.executions
    )?;
    for (status, n) in [
        (Status::Passed, counts.passed),
        (Status::Failed, counts.failed),
        (Status::ExpectedFailed, counts.expected_failed),
        (Status::UnexpectedPassed, counts.unexpected_passed),
        (Status::Skipped, counts.skipped),
        (Status::Interrupted, counts.interrupted),
    ] {
        let name = status.as_str();
        let zero = if n == 0 { " zero" } else { "" };
        write!(
            out,
            "<span class=\"badge s-{name}{zero}\">{n} {name}</span>"
        )?;
    }
    out.write_str("</p>\n</header>\n")
}

fn runners_table(out: &mut String, report: &RunReport) -> fmt::Result {
    out.write_str("<section id=\"runners\">\n<h2>Runners</h2>\n<table class=\"runners\">\n<thead><tr><th>runner</th><th>agent</th><th>version</th><th>model</th>")?;
    for column in [
        "passed",
        "failed",
        "expected-failed",
        "flaky",
        "skipped",
        "input",
        "output",
        "reasoning",
        "cache",
        "uncached",
        "cost",
        "mean time",
    ] {
        write!(out, "<th class=\"num\">{column}</th>")?;
    }
    out.write_str("</tr></thead>\n<tbody>\n")?;
    let rows = report.runner_rows();
    for row in &rows {
        out.write_str("<tr><td>")?;
        text(out, &row.runner)?;
        out.write_str("</td>")?;
        for cell in agent_cells(row) {
            out.write_str("<td>")?;
            text(out, &cell)?;
            out.write_str("</td>")?;
        }
        for cell in row_cells(row) {
            write!(out, "<td class=\"num\">{cell}</td>")?;
        }
        out.write_str("</tr>\n")?;
    }
    out.write_str("</tbody>\n</table>\n")?;
    if rows.iter().any(|row| row.total_tokens.is_some()) {
        out.write_str("<p class=\"note\">")?;
        text(out, super::console::UNCACHED_DEFINED)?;
        out.write_str("</p>\n")?;
    }
    if rows.iter().any(|row| row.cost_estimated) {
        out.write_str("<p class=\"note\">~ ")?;
        text(out, crate::figures::ESTIMATED)?;
        out.write_str("</p>\n")?;
    }
    out.write_str("</section>\n")
}

/// Cases the matrix shows; a run of more gets a note instead (the list filters them).
pub(crate) const MATRIX_CASES: usize = 200;

fn matrix(out: &mut String, report: &RunReport) -> fmt::Result {
    let runners = report.runners();
    // The executions of each case (in report order: sorted by case id), grouped.
    let mut cases: Vec<(&str, Vec<&ExecutionResult>)> = Vec::new();
    for execution in &report.executions {
        match cases.last_mut() {
            Some((case, executions)) if *case == execution.case_id => executions.push(execution),
            _ => cases.push((&execution.case_id, vec![execution])),
        }
    }
    out.write_str("<section id=\"matrix\">\n<h2>Cases × runners</h2>\n")?;
    if cases.len() > MATRIX_CASES {
        write!(
            out,
            "<p class=\"note\">{} cases: more than a matrix shows ({MATRIX_CASES}); the list of executions filters them by runner, status, tag and variant.</p>\n</section>\n",
            thousands(cases.len() as u64)
        )?;
        return Ok(());
    }
    out.write_str("<table class=\"matrix\">\n<thead><tr><th>case</th>")?;
    for runner in &runners {
        out.write_str("<th>")?;
        text(out, runner)?;
        out.write_str("</th>")?;
    }
    out.write_str("</tr></thead>\n<tbody>\n")?;
    for (case, of_case) in cases {
        out.write_str("<tr><th scope=\"row\"><code>")?;
        text(out, case)?;
        out.write_str("</code></th>")?;
        for runner in &runners {
            let executions: Vec<&ExecutionResult> = of_case
                .iter()
                .filter(|e| e.runner_id == *runner)
                .copied()
                .collect();
            // Under variants, the cell takes the status of the first variant that did not pass.
            let shown = executions
                .iter()
                .find(|e| !e.status.is_passing())
                .or(executions.first());
            let Some(shown) = shown else {
                out.write_str("<td class=\"none\"></td>")?;
                continue;
            };
            write!(out, "<td class=\"cell s-{}\">", shown.status.as_str())?;
            for (i, e) in executions.iter().enumerate() {
                if i > 0 {
                    out.write_str("<br>")?;
                }
                out.write_str("<a href=\"#")?;
                text(out, &anchor(&e.case_id, &e.runner_id, e.variant.as_deref()))?;
                out.write_str("\">")?;
                if let Some(variant) = &e.variant {
                    text(out, variant)?;
                    out.write_str(": ")?;
                }
                out.write_str(e.status.as_str())?;
                if e.flaky {
                    out.write_str(" (flaky)")?;
                }
                out.write_str("</a>")?;
            }
            out.write_str("</td>")?;
        }
        out.write_str("</tr>\n")?;
    }
    out.write_str("</tbody>\n</table>\n</section>\n")
}

fn execution_section(
    out: &mut String,
    e: &ExecutionResult,
    sessions: &mut SessionBudget,
) -> fmt::Result {
    let id = anchor(&e.case_id, &e.runner_id, e.variant.as_deref());
    out.write_str("<section class=\"exec\" id=\"")?;
    text(out, &id)?;
    out.write_str("\">\n<h3>")?;
    text(out, &e.trial_name())?;
    out.write_str(" ")?;
    status_badge(out, e.status)?;
    if e.flaky {
        out.write_str(" <span class=\"badge s-skipped\">flaky</span>")?;
    }
    out.write_str("</h3>\n")?;
    execution_meta(out, e)?;
    if let Some(failure) = &e.failure {
        failure_block(out, failure)?;
    }
    if e.repetitions.is_empty() {
        out.write_str("<p class=\"note\">No attempt ran.</p>\n")?;
    } else {
        // One attempt's figures are in its block's summary line: a table only for several.
        if e.repetitions
            .iter()
            .map(|r| r.attempts.len())
            .sum::<usize>()
            > 1
        {
            attempts_table(out, e, &id)?;
        }
        for repetition in &e.repetitions {
            for attempt in &repetition.attempts {
                let embedded = sessions.take(attempt.status);
                attempt_block(out, e, attempt, &id, embedded)?;
            }
        }
    }
    out.write_str("</section>\n")
}

/// An execution's `<dl class="meta">`: source, tags, repetitions, attempts, duration, tokens,
/// artifacts.
fn execution_meta(out: &mut String, e: &ExecutionResult) -> fmt::Result {
    out.write_str("<dl class=\"meta\">\n<dt>source</dt><dd><code>")?;
    text(
        out,
        if e.source.is_empty() {
            "unknown"
        } else {
            &e.source
        },
    )?;
    out.write_str("</code></dd>\n")?;
    if !e.tags.is_empty() {
        out.write_str("<dt>tags</dt><dd>")?;
        text(out, &e.tags.join(", "))?;
        out.write_str("</dd>\n")?;
    }
    if e.expected_fail {
        out.write_str("<dt>expected to fail</dt><dd>yes</dd>\n")?;
    }
    write!(
        out,
        "<dt>repetitions</dt><dd>{} of {} passed, {} completed (repeat {}, repeat failure {})",
        e.successful_repetitions,
        e.repeat_target,
        e.completed_repetitions,
        e.repeat_target,
        e.repeat_failure
    )?;
    if let Some(at) = e.stopped_at_repetition {
        write!(out, "; stopped at repetition {at}")?;
    }
    write!(
        out,
        "</dd>\n<dt>attempts</dt><dd>{} of {} passing ({:.0}%, 95% interval {:.0}–{:.0}%)</dd>\n",
        e.attempts.passing,
        e.attempts.total,
        percent(e.attempts.pass_rate),
        percent(e.attempts.pass_rate_95.low),
        percent(e.attempts.pass_rate_95.high)
    )?;
    write!(
        out,
        "<dt>mean duration</dt><dd>{}</dd>\n<dt>mean tokens</dt><dd>{}</dd>\n<dt>artifacts</dt><dd><code>",
        rounded(e.duration_ms),
        usage_line(&e.usage)
    )?;
    text(out, &e.artifact_dir.display().to_string())?;
    out.write_str("</code></dd>\n</dl>\n")
}

/// `input 1,200 · output 80 · total 1,280 · $0.0012`, or `-` when nothing was reported.
fn usage_line(usage: &Usage) -> String {
    let mut parts = Vec::new();
    for (name, count) in [
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("reasoning", usage.reasoning_tokens),
        ("cache", usage.cache_tokens),
        ("uncached", usage.total_tokens),
    ] {
        if let Some(count) = count {
            parts.push(format!("{name} {}", thousands(count.value)));
        }
    }
    if usage.cost_usd.and_then(crate::figures::cost).is_some() {
        parts.push(cost(usage));
    }
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join(" · ")
    }
}

fn failure_block(out: &mut String, failure: &Failure) -> fmt::Result {
    out.write_str("<div class=\"failure\">\n<h4>Failure</h4>\n<dl class=\"meta\">\n")?;
    write!(
        out,
        "<dt>origin</dt><dd>{}</dd>\n<dt>class</dt><dd>",
        failure.origin.as_str()
    )?;
    if let Some(label) = &failure.class.label {
        text(out, label)?;
        out.write_str(" (<code>")?;
        text(out, &failure.class.id)?;
        out.write_str("</code>)")?;
    } else {
        out.write_str("<code>")?;
        text(out, &failure.class.id)?;
        out.write_str("</code>")?;
    }
    out.write_str("</dd>\n")?;
    if let Some(location) = &failure.location {
        out.write_str("<dt>location</dt><dd><code>")?;
        text(out, &location.to_string())?;
        out.write_str("</code></dd>\n")?;
    }
    out.write_str("</dl>\n<pre class=\"message\">")?;
    text(out, &failure.message)?;
    out.write_str("</pre>\n</div>\n")
}

fn attempt_anchor(execution_anchor: &str, attempt: &AttemptResult) -> String {
    format!(
        "{execution_anchor}:r{}a{}",
        attempt.repetition, attempt.attempt
    )
}

fn attempts_table(out: &mut String, e: &ExecutionResult, id: &str) -> fmt::Result {
    out.write_str("<h4>Attempts</h4>\n<table class=\"attempts\">\n<thead><tr><th>repetition</th><th>attempt</th><th>status</th><th class=\"num\">duration</th><th class=\"num\">steps</th><th class=\"num\">input</th><th class=\"num\">output</th><th class=\"num\">uncached</th><th class=\"num\">cost</th><th>exit</th></tr></thead>\n<tbody>\n")?;
    for repetition in &e.repetitions {
        for attempt in &repetition.attempts {
            let usage = &attempt.usage;
            out.write_str("<tr><td>")?;
            write!(out, "{}</td><td><a href=\"#", attempt.repetition)?;
            text(out, &attempt_anchor(id, attempt))?;
            write!(out, "\">{}</a></td><td>", attempt.attempt)?;
            status_badge(out, attempt.status)?;
            writeln!(
                out,
                "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                rounded(attempt.duration_ms),
                attempt.steps,
                tokens(usage.input_tokens),
                tokens(usage.output_tokens),
                tokens(usage.total_tokens),
                cost(usage),
                exit_text(attempt)
            )?;
        }
    }
    out.write_str("</tbody>\n</table>\n")
}

fn attempt_block(
    out: &mut String,
    e: &ExecutionResult,
    attempt: &AttemptResult,
    id: &str,
    session_embedded: bool,
) -> fmt::Result {
    out.write_str("<details class=\"attempt\" id=\"")?;
    text(out, &attempt_anchor(id, attempt))?;
    out.write_str("\"")?;
    if attempt.status != Status::Passed {
        out.write_str(" open")?;
    }
    write!(
        out,
        ">\n<summary>repetition {} · attempt {} ",
        attempt.repetition, attempt.attempt
    )?;
    status_badge(out, attempt.status)?;
    writeln!(
        out,
        " · {} · {}</summary>",
        rounded(attempt.duration_ms),
        usage_line(&attempt.usage)
    )?;
    out.write_str("<dl class=\"meta\">\n<dt>artifacts</dt><dd><code>")?;
    text(out, &under(&attempt.artifact_dir, &e.artifact_dir))?;
    write!(
        out,
        "</code></dd>\n<dt>steps</dt><dd>{}</dd>\n<dt>exit</dt><dd>{}</dd>\n",
        attempt.steps,
        exit_text(attempt)
    )?;
    if let Some(recorded) = &attempt.replayed_from {
        out.write_str("<dt>replayed from</dt><dd><code>")?;
        text(out, &recorded.display().to_string())?;
        out.write_str("</code> (no agent ran; its figures are the recording's)</dd>\n")?;
    }
    out.write_str("</dl>\n")?;
    match &attempt.failure {
        Some(failure) if Some(failure) == e.failure.as_ref() => {
            out.write_str("<p class=\"note\">Failed with the execution's failure (above).</p>\n")?;
        }
        Some(failure) => failure_block(out, failure)?,
        None => {}
    }
    if let Some(grading) = &attempt.grading {
        grading_block(out, grading)?;
    }
    let session = attempt.artifact_dir.join("report.json");
    let shown = under(&session, &e.artifact_dir);
    if session_embedded {
        session_block(out, &session, &shown)?;
    } else {
        write!(
            out,
            "<h4>Session</h4>\n<p class=\"note\">Not embedded (at most {} a page, of attempts that did not pass first): <code>",
            html_list::SESSIONS
        )?;
        text(out, &shown)?;
        out.write_str("</code></p>\n")?;
    }
    out.write_str("</details>\n")
}

fn grading_block(out: &mut String, grading: &Grading) -> fmt::Result {
    write!(
        out,
        "<h4>Graders</h4>\n<p>score {:.2} (threshold {:.2}): {}</p>\n",
        grading.score,
        grading.threshold,
        if grading.passed { "passed" } else { "failed" }
    )?;
    out.write_str("<table class=\"graders\">\n<thead><tr><th>grader</th><th>type</th><th class=\"num\">weight</th><th>required</th><th class=\"num\">score</th><th>verdict</th><th>failed checks</th></tr></thead>\n<tbody>\n")?;
    for grader in &grading.graders {
        out.write_str("<tr><td>")?;
        text(out, &grader.name)?;
        out.write_str("</td><td><code>")?;
        text(out, &grader.kind)?;
        let verdict = match grader.verdict {
            GraderVerdict::Pass => "pass",
            GraderVerdict::Fail => "fail",
            GraderVerdict::Skip => "skip",
            GraderVerdict::Error => "error",
        };
        let class = match grader.verdict {
            GraderVerdict::Pass => "s-passed",
            GraderVerdict::Fail | GraderVerdict::Error => "s-failed",
            GraderVerdict::Skip => "s-skipped",
        };
        write!(
            out,
            "</code></td><td class=\"num\">{:.2}</td><td>{}</td><td class=\"num\">{:.2}</td><td><span class=\"badge {class}\">{verdict}</span>{}</td><td>",
            grader.weight,
            if grader.required { "yes" } else { "no" },
            grader.score,
            if grader.negate { " (negated)" } else { "" }
        )?;
        let failed: Vec<_> = grader.checks.iter().filter(|c| !c.passed).collect();
        if !failed.is_empty() {
            out.write_str("<ul>")?;
            for check in failed {
                out.write_str("<li>")?;
                capped(out, &check.text, TEXT_CAP)?;
                if let Some(evidence) = &check.evidence {
                    out.write_str("<pre>")?;
                    capped(out, evidence, TEXT_CAP)?;
                    out.write_str("</pre>")?;
                }
                out.write_str("</li>")?;
            }
            out.write_str("</ul>")?;
        }
        out.write_str("</td></tr>\n")?;
    }
    out.write_str("</tbody>\n</table>\n")
}

/// `path` relative to `base` when it is under it (`repeat-1/attempt-1`), else whole.
fn under(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(inside) if !inside.as_os_str().is_empty() => inside.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// How an attempt's agent ended: `code 0`, `signal 9`, or `-`.
fn exit_text(attempt: &AttemptResult) -> String {
    match (attempt.exit_code, attempt.signal) {
        (_, Some(signal)) => format!("signal {signal}"),
        (Some(code), None) => format!("code {code}"),
        (None, None) => "-".to_owned(),
    }
}

/// The session of an attempt, from its `report.json` at `path` (named `shown`), or a note
/// saying why there is none.
fn session_block(out: &mut String, path: &Path, shown: &str) -> fmt::Result {
    out.write_str("<h4>Session</h4>\n")?;
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            out.write_str("<p class=\"note missing\">No report.json for this attempt (")?;
            out.write_str("<code>")?;
            text(out, shown)?;
            return out.write_str(
                "</code> does not exist): the session did not run or was not recorded.</p>\n",
            );
        }
        Err(error) => {
            out.write_str("<p class=\"note missing\">Cannot read <code>")?;
            text(out, shown)?;
            out.write_str("</code>: ")?;
            text(out, &error.to_string())?;
            return out.write_str("</p>\n");
        }
    };
    let session: SessionReport = match serde_json::from_slice(&bytes) {
        Ok(session) => session,
        Err(error) => {
            out.write_str("<p class=\"note missing\"><code>")?;
            text(out, shown)?;
            out.write_str("</code> is not a session report: ")?;
            text(out, &error.to_string())?;
            return out.write_str("</p>\n");
        }
    };
    session_details(out, &session)
}

fn session_details(out: &mut String, s: &SessionReport) -> fmt::Result {
    out.write_str("<dl class=\"meta\">\n<dt>agent</dt><dd>")?;
    text(out, &s.runner.agent.kind)?;
    if let Some(version) = &s.runner.agent.version {
        out.write_str(" ")?;
        text(out, version)?;
    }
    if let Some(model) = &s.runner.agent.model {
        out.write_str(" · model ")?;
        text(out, model)?;
    }
    out.write_str("</dd>\n")?;
    if let Some(id) = &s.session_id {
        out.write_str("<dt>session</dt><dd><code>")?;
        text(out, id)?;
        out.write_str("</code></dd>\n")?;
    }
    if let Some(ms) = s.timing.duration_ms {
        writeln!(out, "<dt>agent time</dt><dd>{}</dd>", rounded(ms))?;
    }
    out.write_str("</dl>\n")?;

    out.write_str("<h4>Prompt</h4>\n<pre class=\"prompt\">")?;
    capped(out, &s.prompt, TEXT_CAP)?;
    out.write_str("</pre>\n<h4>Final output</h4>\n")?;
    if s.final_output.is_empty() {
        out.write_str("<p class=\"note\">No final output.</p>\n")?;
    } else {
        out.write_str("<pre class=\"final\">")?;
        capped(out, &s.final_output, TEXT_CAP)?;
        out.write_str("</pre>\n")?;
    }

    usage_table(out, &s.usage)?;
    skills(out, s)?;
    tool_calls(out, s)?;
    commands(out, s)?;
    file_reads(out, s)?;
    timeline(out, &s.events)?;
    if !s.warnings.is_empty() {
        out.write_str("<h4>Warnings</h4>\n")?;
        let tags = ("<ul class=\"warnings\">", "</ul>\n");
        capped_list(out, tags, &s.warnings, "warnings", |out, warning| {
            out.write_str("<li>")?;
            capped(out, warning, TEXT_CAP)?;
            out.write_str("</li>")
        })?;
    }
    Ok(())
}

fn usage_table(out: &mut String, usage: &Usage) -> fmt::Result {
    out.write_str("<h4>Token usage</h4>\n<table class=\"usage\">\n<thead><tr><th>figure</th><th class=\"num\">value</th><th>source</th></tr></thead>\n<tbody>\n")?;
    for (name, count) in [
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("reasoning", usage.reasoning_tokens),
        ("cache", usage.cache_tokens),
        ("uncached", usage.total_tokens),
    ] {
        let source = count.map_or("-", |c| match c.source {
            skillgym::UsageSource::Provider => "provider",
            skillgym::UsageSource::Derived => "derived",
            skillgym::UsageSource::Chars => "chars",
            _ => "other",
        });
        writeln!(
            out,
            "<tr><td>{name} tokens</td><td class=\"num\">{}</td><td>{source}</td></tr>",
            tokens(count)
        )?;
    }
    let cost_source = match (usage.cost_usd, usage.cost_estimated) {
        (None, _) => "-",
        (Some(_), true) => "estimated from tokens",
        (Some(_), false) => "agent",
    };
    write!(
        out,
        "<tr><td>cost</td><td class=\"num\">{}</td><td>{cost_source}</td></tr>\n<tr><td>characters in / out / reasoning</td><td class=\"num\">{} / {} / {}</td><td></td></tr>\n</tbody>\n</table>\n",
        cost(usage),
        thousands(usage.input_chars),
        thousands(usage.output_chars),
        thousands(usage.reasoning_chars)
    )
}

fn skills(out: &mut String, s: &SessionReport) -> fmt::Result {
    out.write_str("<h4>Skills</h4>\n")?;
    if !s.installed_skills.is_empty() {
        out.write_str("<p>installed: ")?;
        for (i, skill) in s.installed_skills.iter().enumerate() {
            if i > 0 {
                out.write_str(", ")?;
            }
            out.write_str("<code>")?;
            text(out, &skill.name)?;
            out.write_str("</code>")?;
        }
        out.write_str("</p>\n")?;
    }
    if s.detected_skills.is_empty() {
        out.write_str("<p class=\"note\">No skill detected.</p>\n")?;
    } else {
        out.write_str("<table class=\"skills\">\n<thead><tr><th>skill</th><th>confidence</th><th>evidence</th></tr></thead>\n<tbody>\n")?;
        for skill in &s.detected_skills {
            out.write_str("<tr><td><code>")?;
            text(out, &skill.skill)?;
            write!(
                out,
                "</code></td><td>{}</td><td><ul>",
                skill.confidence.as_str()
            )?;
            for evidence in &skill.evidence {
                out.write_str("<li>")?;
                capped(out, evidence, TEXT_CAP)?;
                out.write_str("</li>")?;
            }
            out.write_str("</ul></td></tr>\n")?;
        }
        out.write_str("</tbody>\n</table>\n")?;
    }
    if !s.skill_attempts.is_empty() {
        out.write_str("<p>failed loads:</p>\n<table class=\"skill-attempts\">\n<thead><tr><th>skill</th><th>via</th><th>error</th></tr></thead>\n<tbody>\n")?;
        for attempt in &s.skill_attempts {
            out.write_str("<tr><td><code>")?;
            text(out, &attempt.skill)?;
            out.write_str("</code></td><td>")?;
            capped(out, &attempt.via, TEXT_CAP)?;
            out.write_str("</td><td class=\"error\">")?;
            capped(out, &attempt.error, TEXT_CAP)?;
            out.write_str("</td></tr>\n")?;
        }
        out.write_str("</tbody>\n</table>\n")?;
    }
    Ok(())
}

/// The tools called, each with how many times, in order of first call.
fn tool_calls(out: &mut String, s: &SessionReport) -> fmt::Result {
    let mut tools: Vec<(&str, usize)> = Vec::new();
    for event in s.tool_calls(None) {
        if let SessionEvent::ToolCall { tool, .. } = event {
            match tools.iter_mut().find(|(name, _)| name == tool) {
                Some((_, n)) => *n += 1,
                None => tools.push((tool, 1)),
            }
        }
    }
    out.write_str("<h4>Tool calls</h4>\n")?;
    if tools.is_empty() {
        return out.write_str("<p class=\"note\">No tool call.</p>\n");
    }
    out.write_str("<p class=\"tools\">")?;
    for (i, (tool, n)) in tools.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str("<code>")?;
        text(out, tool)?;
        write!(out, "</code> ×{n}")?;
    }
    out.write_str("</p>\n")
}

fn commands(out: &mut String, s: &SessionReport) -> fmt::Result {
    let commands: Vec<(&str, Option<i32>)> = s
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Command {
                command, exit_code, ..
            } => Some((command.as_str(), *exit_code)),
            _ => None,
        })
        .collect();
    out.write_str("<h4>Commands</h4>\n")?;
    if commands.is_empty() {
        return out.write_str("<p class=\"note\">No command.</p>\n");
    }
    let tags = ("<ol class=\"commands\">", "</ol>\n");
    capped_list(
        out,
        tags,
        &commands,
        "commands",
        |out, (command, exit_code)| {
            out.write_str("<li><code>")?;
            capped(out, command, TEXT_CAP)?;
            out.write_str("</code>")?;
            if let Some(code) = exit_code {
                write!(out, " <span class=\"at\">exit {code}</span>")?;
            }
            out.write_str("</li>")
        },
    )
}

fn file_reads(out: &mut String, s: &SessionReport) -> fmt::Result {
    let mut reads: Vec<(Cow<'_, str>, Option<&str>)> = s
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::FileRead { path, error, .. } => {
                Some((path.to_string_lossy(), error.as_deref()))
            }
            _ => None,
        })
        .collect();
    if reads.is_empty() {
        reads = s
            .files
            .observed_reads
            .iter()
            .map(|path| (path.to_string_lossy(), None))
            .collect();
    }
    out.write_str("<h4>File reads</h4>\n")?;
    if reads.is_empty() {
        return out.write_str("<p class=\"note\">No file read.</p>\n");
    }
    let tags = ("<ol class=\"reads\">", "</ol>\n");
    capped_list(out, tags, &reads, "file reads", |out, (path, error)| {
        out.write_str("<li><code>")?;
        capped(out, path, TEXT_CAP)?;
        out.write_str("</code>")?;
        if let Some(error) = error {
            out.write_str(" <span class=\"error\">failed: ")?;
            capped(out, error, TEXT_CAP)?;
            out.write_str("</span>")?;
        }
        out.write_str("</li>")
    })
}

fn timeline(out: &mut String, events: &[SessionEvent]) -> fmt::Result {
    writeln!(out, "<h4>Timeline ({} events)</h4>", events.len())?;
    if events.is_empty() {
        return out.write_str("<p class=\"note\">No event.</p>\n");
    }
    let tags = ("<ol class=\"timeline\">\n", "</ol>\n");
    capped_list(out, tags, events, "events", event_item)
}

/// Compact JSON of a tool's arguments or a raw record.
fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// One timeline entry: the event's kind and time, then what it holds.
fn event_item(out: &mut String, event: &SessionEvent) -> fmt::Result {
    let (kind, at) = event_kind(event);
    let class = kind.replace(' ', "-");
    write!(
        out,
        "<li class=\"ev ev-{class}\"><span class=\"kind\">{kind}</span>"
    )?;
    if let Some(at) = at {
        aside(out, at)?;
    }
    event_body(out, event)?;
    out.write_str("</li>\n")
}

/// The kind an event is shown as (`user thinking`, `tool error`, ...) and its time, if known.
fn event_kind(event: &SessionEvent) -> (String, Option<&str>) {
    match event {
        SessionEvent::Message {
            role, phase, at, ..
        } => {
            let role = match role {
                skillgym::Role::User => "user",
                _ => "assistant",
            };
            let kind = match phase {
                Some(skillgym::Phase::Thinking) => format!("{role} thinking"),
                Some(skillgym::Phase::Commentary) => format!("{role} commentary"),
                Some(skillgym::Phase::Final) => format!("{role} final"),
                _ => role.to_owned(),
            };
            (kind, at.as_deref())
        }
        SessionEvent::ToolCall { at, .. } => ("tool call".to_owned(), at.as_deref()),
        SessionEvent::ToolResult { at, is_error, .. } => (
            if *is_error {
                "tool error".to_owned()
            } else {
                "tool result".to_owned()
            },
            at.as_deref(),
        ),
        SessionEvent::Command { at, .. } => ("command".to_owned(), at.as_deref()),
        SessionEvent::FileRead { at, .. } => ("file read".to_owned(), at.as_deref()),
        SessionEvent::SkillSignal { at, .. } => ("skill load".to_owned(), at.as_deref()),
        SessionEvent::Raw { at, .. } => ("raw".to_owned(), at.as_deref()),
        _ => ("event".to_owned(), None),
    }
}

/// What an event holds: its text, tool and arguments, command, path or skill, with the
/// details beside.
fn event_body(out: &mut String, event: &SessionEvent) -> fmt::Result {
    match event {
        SessionEvent::Message { text: body, .. } => pre(out, body),
        SessionEvent::ToolCall { id, tool, args, .. } => {
            code(out, tool)?;
            if let Some(id) = id {
                aside(out, id)?;
            }
            if !args.is_null() {
                pre(out, &json_text(args))?;
            }
            Ok(())
        }
        SessionEvent::ToolResult {
            id, tool, output, ..
        } => {
            if let Some(tool) = tool {
                code(out, tool)?;
            }
            if let Some(id) = id {
                aside(out, id)?;
            }
            pre(out, output)
        }
        SessionEvent::Command {
            command, exit_code, ..
        } => {
            out.write_str(" <code>")?;
            capped(out, command, TEXT_CAP)?;
            out.write_str("</code>")?;
            if let Some(code) = exit_code {
                write!(out, " <span class=\"at\">exit {code}</span>")?;
            }
            Ok(())
        }
        SessionEvent::FileRead { path, error, .. } => {
            out.write_str(" <code>")?;
            capped(out, &path.to_string_lossy(), TEXT_CAP)?;
            out.write_str("</code>")?;
            failed(out, error.as_deref())
        }
        SessionEvent::SkillSignal {
            skill,
            signal,
            error,
            ..
        } => {
            code(out, skill)?;
            out.write_str(" via ")?;
            text(out, signal)?;
            failed(out, error.as_deref())
        }
        SessionEvent::Raw { value, .. } => pre(out, &json_text(value)),
        _ => Ok(()),
    }
}

/// `body` in a `<pre>`, capped.
fn pre(out: &mut String, body: &str) -> fmt::Result {
    out.write_str("<pre>")?;
    capped(out, body, TEXT_CAP)?;
    out.write_str("</pre>")
}

/// ` <code>name</code>`.
fn code(out: &mut String, name: &str) -> fmt::Result {
    out.write_str(" <code>")?;
    text(out, name)?;
    out.write_str("</code>")
}

/// A time or an id beside the entry: ` <span class="at">…</span>`.
fn aside(out: &mut String, detail: &str) -> fmt::Result {
    out.write_str(" <span class=\"at\">")?;
    text(out, detail)?;
    out.write_str("</span>")
}

/// ` <span class="error">failed: …</span>` when there is an error (capped).
fn failed(out: &mut String, error: Option<&str>) -> fmt::Result {
    let Some(error) = error else {
        return Ok(());
    };
    out.write_str(" <span class=\"error\">failed: ")?;
    capped(out, error, TEXT_CAP)?;
    out.write_str("</span>")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;
    use skillgym::{FailureOrigin, Role};

    use super::*;
    use crate::results::{AttemptStats, GraderCheck, GraderResult, Interval, RepetitionResult};

    fn attempt(dir: &Path, status: Status, failure: Option<Failure>) -> AttemptResult {
        AttemptResult {
            repetition: 1,
            attempt: 1,
            status,
            passed: status.is_passing(),
            failure,
            duration_ms: 1_500,
            usage: Usage {
                input_tokens: Some(TokenCount::provider(1_200)),
                output_tokens: Some(TokenCount::provider(80)),
                total_tokens: Some(TokenCount::provider(1_280)),
                ..Usage::default()
            },
            steps: 2,
            exit_code: Some(0),
            signal: None,
            artifact_dir: dir.to_path_buf(),
            grading: None,
            replayed_from: None,
            kept_workspace: None,
            sandbox: None,
            trigger: None,
        }
    }

    fn execution(case: &str, runner: &str, status: Status, dir: &Path) -> ExecutionResult {
        let failure = (!status.is_passing())
            .then(|| Failure::new(FailureOrigin::Assertion, "expected <ok> & got \"nope\""));
        let attempts = vec![attempt(dir, status, failure.clone())];
        ExecutionResult {
            case_id: case.into(),
            runner_id: runner.into(),
            variant: None,
            baseline: false,
            agent: skillgym::AgentInfo {
                kind: "command".into(),
                model: None,
                version: Some("1.0.0".into()),
            },
            source: "tests/b.rs:1".into(),
            tags: Vec::new(),
            status,
            passed: status.is_passing(),
            expected_fail: false,
            failure,
            repeat_target: 1,
            repeat_failure: 0,
            completed_repetitions: 1,
            successful_repetitions: u32::from(status.is_passing()),
            failed_repetitions: u32::from(!status.is_passing()),
            stopped_at_repetition: None,
            flaky: false,
            attempts: AttemptStats {
                total: 1,
                passing: u32::from(status.is_passing()),
                pass_rate: if status.is_passing() { 1.0 } else { 0.0 },
                pass_rate_95: Interval {
                    low: 0.0,
                    high: 1.0,
                },
            },
            samples: None,
            min_pass_rate: None,
            min_lift: None,
            duration_ms: 1_500,
            usage: Usage::default(),
            snapshot: None,
            artifact_dir: dir.to_path_buf(),
            repetitions: vec![RepetitionResult::of(1, attempts)],
            trigger: None,
        }
    }

    fn report(executions: Vec<ExecutionResult>) -> RunReport {
        RunReport::new(
            vec!["20260101T000000Z-1-abc".into()],
            vec![PathBuf::from("/runs/20260101T000000Z-1-abc")],
            executions,
        )
        .with_times("2026-01-01T00:00:00Z".into(), "2026-01-01T00:01:00Z".into())
    }

    /// The text between `start` and the next `end` after it.
    fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
        let from = html
            .find(start)
            .unwrap_or_else(|| panic!("no {start:?} in the page"));
        let rest = &html[from..];
        &rest[..rest.find(end).unwrap_or(rest.len())]
    }

    #[test]
    fn escaping_covers_text_and_attributes() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape("fish & chips"), "fish &amp; chips");
        assert_eq!(
            escape(r#"" onmouseover="x" '"#),
            "&quot; onmouseover=&quot;x&quot; &#39;"
        );
        assert_eq!(escape("&amp;"), "&amp;amp;", "entities are escaped again");
        assert!(matches!(escape("plain text"), Cow::Borrowed("plain text")));
    }

    #[test]
    fn ids_from_the_run_are_escaped_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        let html = render(&report(vec![execution(
            "<script>alert('x')</script>",
            "r\"&",
            Status::Failed,
            dir.path(),
        )]));
        // The only script elements are the page's: its data blocks and its one script.
        let tags: Vec<&str> = html
            .match_indices("<script")
            .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap() + 1])
            .collect();
        assert_eq!(
            tags,
            [
                "<script type=\"application/json\" id=\"rows\">",
                "<script type=\"text/html\" id=\"detail-0\">",
                "<script>"
            ]
        );
        assert!(html.contains(
            "\"n\":\"[r\\\"\\u0026] \\u003cscript\\u003ealert('x')\\u003c/script\\u003e\""
        ));
        assert!(html.contains("[r&quot;&amp;] &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assert!(html.contains("expected &lt;ok&gt; &amp; got &quot;nope&quot;"));
        // The anchor is built from the sanitized ids: no quote can end the attribute.
        let href = between(&html, "<a href=\"#", "\">");
        assert!(!href[9..].contains(['"', '<', '\'']), "{href}");
    }

    #[test]
    fn the_matrix_has_a_row_per_case_and_a_column_per_runner() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut flaky = execution("b", "careful", Status::Passed, d);
        flaky.flaky = true;
        let html = render(&report(vec![
            execution("a", "hasty", Status::Failed, d),
            execution("a", "careful", Status::Passed, d),
            flaky,
            execution("c", "hasty", Status::ExpectedFailed, d),
        ]));
        let matrix = between(&html, "<section id=\"matrix\">", "</section>");
        assert_eq!(
            matrix,
            "<section id=\"matrix\">\n<h2>Cases × runners</h2>\n<table class=\"matrix\">\n\
<thead><tr><th>case</th><th>careful</th><th>hasty</th></tr></thead>\n<tbody>\n\
<tr><th scope=\"row\"><code>a</code></th>\
<td class=\"cell s-passed\"><a href=\"#exec:a:careful\">passed</a></td>\
<td class=\"cell s-failed\"><a href=\"#exec:a:hasty\">failed</a></td></tr>\n\
<tr><th scope=\"row\"><code>b</code></th>\
<td class=\"cell s-passed\"><a href=\"#exec:b:careful\">passed (flaky)</a></td>\
<td class=\"none\"></td></tr>\n\
<tr><th scope=\"row\"><code>c</code></th>\
<td class=\"none\"></td>\
<td class=\"cell s-expected-failed\"><a href=\"#exec:c:hasty\">expected-failed</a></td></tr>\n\
</tbody>\n</table>\n"
        );
        // Every cell's link has its section, in report order.
        let sections: Vec<&str> = html
            .match_indices("<section class=\"exec\" id=\"")
            .map(|(i, m)| {
                let rest = &html[i + m.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        assert_eq!(
            sections,
            [
                "exec:a:careful",
                "exec:a:hasty",
                "exec:b:careful",
                "exec:c:hasty"
            ]
        );
        let runners = between(&html, "<section id=\"runners\">", "</section>");
        assert!(
            runners.contains("<tr><td>careful</td><td>command</td><td>1.0.0</td><td>-</td><td class=\"num\">2</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">1</td>"),
            "{runners}"
        );
        assert!(
            runners.contains("<tr><td>hasty</td><td>command</td><td>1.0.0</td><td>-</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">0</td>"),
            "{runners}"
        );
        assert!(html.contains(
            "<span class=\"badge s-passed\">2 passed</span><span class=\"badge s-failed\">1 failed</span><span class=\"badge s-expected-failed\">1 expected-failed</span><span class=\"badge s-unexpected-passed zero\">0 unexpected-passed</span>"
        ));
    }

    #[test]
    fn ids_that_differ_only_in_punctuation_get_distinct_anchors() {
        assert_eq!(
            anchor("skills::find", "claude", None),
            "exec:skills.find:claude"
        );
        assert_ne!(anchor("a.b", "r", None), anchor("a::b", "r", None));
        assert_ne!(anchor("a:b", "r", None), anchor("a", "b:r", None));
        assert_eq!(anchor("a", "r", Some("with")), "exec:a:r:with");
        assert_ne!(anchor("a", "r", Some("with")), anchor("a", "r", None));
    }

    #[test]
    fn a_replayed_attempt_names_its_recording() {
        let dir = tempfile::tempdir().unwrap();
        let mut replayed = execution("a", "r", Status::Passed, dir.path());
        replayed.repetitions[0].attempts[0].replayed_from =
            Some(PathBuf::from("/rec/a/r/repeat-1/attempt-1"));
        let html = render(&report(vec![replayed]));
        assert!(
            html.contains("<dt>replayed from</dt><dd><code>/rec/a/r/repeat-1/attempt-1</code> (no agent ran; its figures are the recording's)</dd>"),
            "{html}"
        );
        let live = render(&report(vec![execution(
            "a",
            "r",
            Status::Passed,
            dir.path(),
        )]));
        assert!(!live.contains("replayed from"));
    }

    #[test]
    fn a_missing_report_json_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let html = render(&report(vec![execution(
            "a",
            "r",
            Status::Passed,
            &dir.path().join("never-ran"),
        )]));
        assert!(
            html.contains("<p class=\"note missing\">No report.json for this attempt (<code>"),
            "{html}"
        );
        // Named relative to the execution's artifacts (here the attempt's own directory).
        assert!(html.contains("<code>report.json</code> does not exist)"));
        assert!(!html.contains("<h4>Timeline"));
    }

    #[test]
    fn a_report_json_shows_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let session = SessionReport::from_events([
            SessionEvent::Message {
                role: Role::User,
                phase: None,
                text: "Find <the> skill".into(),
                at: Some("2026-01-01T00:00:01Z".into()),
            },
            SessionEvent::tool_call("Read", json!({"file_path": "/s/x/SKILL.md"})),
            SessionEvent::file_read("/s/x/SKILL.md"),
            SessionEvent::file_read("/s/ghost/SKILL.md").failed("File not found"),
            SessionEvent::command("npx skills find expo"),
            SessionEvent::skill_signal("ghost").failed("Unknown skill: ghost"),
            SessionEvent::assistant("Use x & y."),
        ])
        .with_skill(skillgym::SkillDetection::new(
            "x",
            skillgym::Confidence::Strong,
            ["Read /s/x/SKILL.md"],
        ))
        .with_skill_attempt(skillgym::SkillAttempt::new(
            "ghost",
            "Skill tool",
            "Unknown skill: ghost",
        ));
        let mut session = session;
        session.runner.agent = skillgym::AgentInfo {
            kind: "claude-code".into(),
            model: Some("claude-sonnet-4-6".into()),
            version: Some("2.1.330".into()),
        };
        fs::write(
            dir.path().join("report.json"),
            serde_json::to_vec(&session).unwrap(),
        )
        .unwrap();
        let html = render(&report(vec![execution(
            "a",
            "r",
            Status::Passed,
            dir.path(),
        )]));
        assert!(html.contains("<h4>Timeline (7 events)</h4>"), "{html}");
        assert!(
            html.contains("<dt>agent</dt><dd>claude-code 2.1.330 · model claude-sonnet-4-6</dd>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"kind\">user</span> <span class=\"at\">2026-01-01T00:00:01Z</span><pre>Find &lt;the&gt; skill</pre>"));
        assert!(
            html.contains("<ol class=\"commands\"><li><code>npx skills find expo</code></li></ol>")
        );
        assert!(html.contains("<li><code>/s/ghost/SKILL.md</code> <span class=\"error\">failed: File not found</span></li>"));
        assert!(html.contains("<tr><td><code>x</code></td><td>strong</td><td><ul><li>Read /s/x/SKILL.md</li></ul></td></tr>"));
        assert!(html.contains("<tr><td><code>ghost</code></td><td>Skill tool</td><td class=\"error\">Unknown skill: ghost</td></tr>"));
        assert!(html.contains("<p class=\"tools\"><code>Read</code> ×1</p>"));
        assert!(html.contains("<pre class=\"final\">Use x &amp; y.</pre>"));
        assert!(!html.contains("No report.json"));
    }

    #[test]
    fn a_report_json_that_is_not_a_session_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("report.json"), "{\"events\": 3}").unwrap();
        let html = render(&report(vec![execution(
            "a",
            "r",
            Status::Passed,
            dir.path(),
        )]));
        assert!(
            html.contains("report.json</code> is not a session report: "),
            "{html}"
        );
    }

    #[test]
    fn long_texts_and_long_timelines_are_cut_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let long = format!("{}{}", "é".repeat(TEXT_CAP), "x".repeat(3_000));
        let mut events = vec![SessionEvent::assistant(long)];
        events.extend((0..ITEM_CAP + 41).map(|i| SessionEvent::command(format!("echo {i}"))));
        let session = SessionReport::from_events(events);
        fs::write(
            dir.path().join("report.json"),
            serde_json::to_vec(&session).unwrap(),
        )
        .unwrap();
        let html = render(&report(vec![execution(
            "a",
            "r",
            Status::Passed,
            dir.path(),
        )]));
        let kept = format!("{}<span class=\"cut\">", "é".repeat(TEXT_CAP));
        assert!(
            html.contains(&kept),
            "the cut falls after {TEXT_CAP} characters"
        );
        assert!(html.contains("<span class=\"cut\">[… 3,000 more characters not shown]</span>"));
        assert!(html.contains(&format!("<h4>Timeline ({} events)</h4>", ITEM_CAP + 42)));
        assert!(
            html.contains("<li class=\"cut\">… 42 more events not shown (see report.json)</li>")
        );
        assert!(
            html.contains("<li class=\"cut\">… 41 more commands not shown (see report.json)</li>")
        );
        let timeline = between(&html, "<ol class=\"timeline\">", "</ol>");
        assert_eq!(timeline.matches("<li class=\"ev ").count(), ITEM_CAP);
        assert!(!html.contains("x".repeat(3_000).as_str()));
        // The message and the final output are cut; the short texts are not.
        assert_eq!(html.matches("more characters not shown").count(), 2);
        assert!(html.contains("<span class=\"kind\">command</span> <code>echo 0</code></li>"));
    }

    #[test]
    fn graders_show_score_verdict_and_failed_checks() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = execution("a", "r", Status::Failed, dir.path());
        e.repetitions[0].attempts[0].grading = Some(Grading {
            score: 0.5,
            threshold: 0.8,
            passed: false,
            graders: vec![GraderResult {
                name: "mentions-<x>".into(),
                kind: "contains".into(),
                weight: 1.0,
                required: true,
                negate: false,
                score: 0.0,
                verdict: GraderVerdict::Fail,
                checks: vec![
                    GraderCheck {
                        text: "held".into(),
                        passed: true,
                        evidence: None,
                    },
                    GraderCheck {
                        text: "output contains \"x\"".into(),
                        passed: false,
                        evidence: Some("output was: y".into()),
                    },
                ],
                details: None,
            }],
            turns: Vec::new(),
            aggregation: None,
        });
        let html = render(&report(vec![e]));
        assert!(html.contains("<p>score 0.50 (threshold 0.80): failed</p>"));
        assert!(html.contains("<tr><td>mentions-&lt;x&gt;</td><td><code>contains</code></td><td class=\"num\">1.00</td><td>yes</td><td class=\"num\">0.00</td><td><span class=\"badge s-failed\">fail</span></td><td><ul><li>output contains &quot;x&quot;<pre>output was: y</pre></li></ul></td></tr>"), "{html}");
        assert!(!html.contains("<li>held"), "passed checks are not listed");
    }

    #[test]
    fn the_failure_shows_origin_class_message_and_location() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = execution("a", "r", Status::Failed, dir.path());
        let mut failure = Failure::new(FailureOrigin::Timeout, "killed after 30 s\nsecond line");
        failure.location = Some(skillgym::SourceLocation {
            file: "tests/b.rs".into(),
            line: 7,
            column: 5,
        });
        e.failure = Some(failure.clone());
        e.repetitions[0].attempts[0].failure = Some(failure);
        let html = render(&report(vec![e]));
        assert!(html.contains("<dt>origin</dt><dd>timeout</dd>\n<dt>class</dt><dd>Timeout (<code>timeout</code>)</dd>\n<dt>location</dt><dd><code>tests/b.rs:7:5</code></dd>\n</dl>\n<pre class=\"message\">killed after 30 s\nsecond line</pre>"), "{html}");
        assert!(
            html.contains("<p class=\"note\">Failed with the execution's failure (above).</p>")
        );
        assert_eq!(html.matches("<div class=\"failure\">").count(), 1);
    }

    #[test]
    fn the_reporter_writes_report_html_into_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let paths = Html
            .write(
                &report(vec![execution("a", "r", Status::Passed, dir.path())]),
                &out,
            )
            .unwrap();
        assert_eq!(paths, [out.join("report.html")]);
        let html = fs::read_to_string(&paths[0]).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.ends_with("</html>\n"));
        assert_eq!(
            fs::read_dir(&out).unwrap().count(),
            1,
            "no temporary file is left"
        );
    }
}
