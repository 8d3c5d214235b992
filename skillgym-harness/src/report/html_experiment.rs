//! The HTML page's `#experiment` section, when cases ran under variants: per runner, its lifts
//! pooled over the cases, then one row per case.
//!
//! | column | shows |
//! |---|---|
//! | case | the case id, and a `failed` badge when one of its variants' executions failed |
//! | pass rate | an inline SVG: per variant (the baseline first) a dot at its pass rate on a 0–100% scale, a line across its 95% Wilson interval, and `passes/sessions` |
//! | tokens, cost | an inline SVG: per variant a bar of its mean total tokens (cost in US dollars) per session, scaled to the case's largest, with the figure; `-` when no session reported it |
//! | lift | per treatment: an inline SVG on a −100%…+100% scale with a line at 0, a dot at the lift and a line across its 95% Newcombe interval, and the figures |
//! | verdict | per treatment: helps, hurts or no detectable effect |
//!
//! Rows run hurts first, then cases with a failed execution, then helps, then the rest; past
//! [`CASES`] a runner's other rows are kept as inert text (`<script type="text/html">`, as
//! the list's details) that a "show the other N cases" button puts in the table. The charts are drawn by the page
//! itself: SVG elements with attributes, no script, no style loaded from anywhere. Every text is masked and
//! escaped as the rest of the page's.

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};

use super::RunReport;
use super::html::text;
use crate::artifacts::sanitize;
use crate::figures::thousands;
use crate::results::{Experiment, LiftRow, Spread, VariantRate};
use crate::stats::Verdict;

/// The section's CSS, appended to the page's.
pub(super) const STYLE: &str = "\
table.experiment td{vertical-align:middle}table.experiment .badge{white-space:nowrap}\
.experiment-runner{margin:1.2rem 0}svg.chart{display:block}\
svg.chart text{font:11px system-ui,sans-serif;fill:var(--fg)}\
svg.chart .axis{stroke:var(--line)}svg.chart .zero{stroke:var(--muted);stroke-dasharray:2 2}\
svg.chart .ci{stroke:var(--fg);stroke-width:2}svg.chart .bar{fill:#54aeff}\
svg.chart .dot{fill:#0969da}svg.chart .dot.baseline{fill:var(--skip)}\
svg.chart .dot.helps{fill:var(--pass)}svg.chart .dot.hurts{fill:var(--fail)}\
.v-helps{background:var(--pass)}.v-hurts{background:var(--fail)}.v-none{background:var(--skip)}
";

/// One case × runner of the experiment: its variants (the baseline first) and its lifts.
struct CaseRow<'a> {
    case_id: &'a str,
    variants: Vec<&'a VariantRate>,
    lifts: Vec<&'a LiftRow>,
    failed: bool,
}

/// Writes the section, or nothing when the run has no experiment.
pub(super) fn section(out: &mut String, report: &RunReport) -> fmt::Result {
    let Some(experiment) = &report.experiment else {
        return Ok(());
    };
    out.write_str("<section id=\"experiment\">\n<h2>Experiment</h2>\n")?;
    out.write_str(
        "<p class=\"note\">Each dot is a variant's pass rate over its sessions, its line the 95% \
Wilson interval; the lift is the treatment's pass rate minus the baseline's, with Newcombe's 95% \
interval. Cases a treatment hurts come first, then cases with a failed execution.</p>\n",
    )?;
    let mut runners: Vec<&str> = Vec::new();
    for row in &experiment.lifts {
        if !runners.contains(&row.runner_id.as_str()) {
            runners.push(&row.runner_id);
        }
    }
    for runner in runners {
        runner_part(out, report, experiment, runner)?;
    }
    out.write_str("</section>\n")
}

/// Cases shown per runner when the page opens, in the section's order; the rest wait in an
/// inert block until their button puts them in the table.
pub(crate) const CASES: usize = 50;

fn runner_part(
    out: &mut String,
    report: &RunReport,
    experiment: &Experiment,
    runner: &str,
) -> fmt::Result {
    out.write_str("<section class=\"experiment-runner\" id=\"experiment:")?;
    text(out, &sanitize(runner))?;
    out.write_str("\">\n<h3>")?;
    text(out, runner)?;
    out.write_str("</h3>\n")?;
    for pooled in experiment
        .runners
        .iter()
        .filter(|p| p.runner_id.as_deref() == Some(runner))
    {
        out.write_str("<p class=\"pooled\">")?;
        text(out, &pooled.treatment)?;
        out.write_str(" vs ")?;
        text(out, &pooled.baseline)?;
        write!(
            out,
            " over {} ({} + {} sessions): {} (mean of their lifts, stratified interval) ",
            super::lift_table::strata(pooled),
            pooled.treatment_sessions,
            pooled.baseline_sessions,
            interval_text(pooled.lift, pooled.lift_95.low, pooled.lift_95.high)
        )?;
        verdict_badge(out, pooled.verdict)?;
        out.write_str("</p>\n")?;
    }
    out.write_str("<table class=\"experiment\">\n<thead><tr><th>case</th><th>pass rate per variant (95%)</th><th>tokens per session</th><th>cost per session</th><th>lift (95%)</th><th>verdict</th></tr></thead>\n<tbody>\n")?;
    let mut rows = case_rows(report, experiment, runner);
    rows.sort_by_key(rank);
    let id = sanitize(runner);
    out.write_str("<tbody id=\"experiment-rows:")?;
    text(out, &id)?;
    out.write_str("\">\n")?;
    for row in rows.iter().take(CASES) {
        case_row(out, row)?;
    }
    out.write_str("</tbody>\n</table>\n")?;
    if rows.len() > CASES {
        // The other rows: inert text until the button puts them in the table.
        out.write_str("<script type=\"text/html\" id=\"experiment-more:")?;
        text(out, &id)?;
        out.write_str("\">")?;
        for row in &rows[CASES..] {
            case_row(out, row)?;
        }
        out.write_str(
            "</script>\n<p><button type=\"button\" class=\"more\" data-more=\"experiment-more:",
        )?;
        text(out, &id)?;
        out.write_str("\" data-into=\"experiment-rows:")?;
        text(out, &id)?;
        writeln!(
            out,
            "\">show the other {} cases</button></p>",
            thousands((rows.len() - CASES) as u64)
        )?;
    }
    out.write_str("</section>\n")
}

/// The runner's cases in the experiment's order, each with its variants and lifts.
fn case_rows<'a>(
    report: &'a RunReport,
    experiment: &'a Experiment,
    runner: &str,
) -> Vec<CaseRow<'a>> {
    // The runner's cases with a variant's execution that failed (not skipped).
    let failed: HashSet<&str> = report
        .executions
        .iter()
        .filter(|e| {
            e.runner_id == runner
                && e.variant.is_some()
                && !e.passed
                && e.status != crate::results::Status::Skipped
        })
        .map(|e| e.case_id.as_str())
        .collect();
    let mut rows: Vec<CaseRow<'a>> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for lift in experiment.lifts.iter().filter(|l| l.runner_id == runner) {
        let index = match at.get(lift.case_id.as_str()) {
            Some(&index) => index,
            None => {
                let failed = failed.contains(lift.case_id.as_str());
                at.insert(&lift.case_id, rows.len());
                rows.push(CaseRow {
                    case_id: &lift.case_id,
                    variants: vec![&lift.baseline],
                    lifts: Vec::new(),
                    failed,
                });
                rows.len() - 1
            }
        };
        rows[index].variants.push(&lift.treatment);
        rows[index].lifts.push(lift);
    }
    rows
}

/// Hurts first, then a failed execution, then helps, then the rest.
fn rank(row: &CaseRow<'_>) -> u8 {
    let any = |verdict: Verdict| row.lifts.iter().any(|l| l.lift.verdict == verdict);
    if any(Verdict::Hurts) {
        0
    } else if row.failed {
        1
    } else if any(Verdict::Helps) {
        2
    } else {
        3
    }
}

fn case_row(out: &mut String, row: &CaseRow<'_>) -> fmt::Result {
    out.write_str("<tr><th scope=\"row\"><code>")?;
    text(out, row.case_id)?;
    out.write_str("</code>")?;
    if row.failed {
        out.write_str(" <span class=\"badge s-failed\">failed</span>")?;
    }
    out.write_str("</th>\n<td>")?;
    rates_chart(out, &row.variants)?;
    out.write_str("</td>\n<td>")?;
    let tokens: Vec<Option<Spread>> = row.variants.iter().map(|v| v.total_tokens).collect();
    bars_chart(out, &row.variants, &tokens, |mean| {
        thousands(mean.round().max(0.0) as u64)
    })?;
    out.write_str("</td>\n<td>")?;
    let costs: Vec<Option<Spread>> = row.variants.iter().map(|v| v.cost_usd).collect();
    bars_chart(out, &row.variants, &costs, |mean| format!("${mean:.4}"))?;
    out.write_str("</td>\n<td>")?;
    for lift in &row.lifts {
        lift_chart(out, lift)?;
    }
    out.write_str("</td>\n<td>")?;
    for (i, lift) in row.lifts.iter().enumerate() {
        if i > 0 {
            out.write_str("<br>")?;
        }
        verdict_badge(out, lift.lift.verdict)?;
    }
    out.write_str("</td></tr>\n")
}

/// Left of every chart: the variant's name.
const LABEL_WIDTH: f64 = 60.0;
/// The scale of a chart.
const SCALE_WIDTH: f64 = 110.0;
/// Right of the scale: the figure.
const FIGURE_WIDTH: f64 = 64.0;
/// One variant's line.
const ROW_HEIGHT: f64 = 20.0;

fn svg_open(out: &mut String, class: &str, rows: usize, label: &str) -> fmt::Result {
    let width = LABEL_WIDTH + SCALE_WIDTH + FIGURE_WIDTH;
    let height = ROW_HEIGHT * rows as f64 + 4.0;
    write!(
        out,
        "<svg class=\"chart {class}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\""
    )?;
    text(out, label)?;
    out.write_str("\">")
}

/// The label of variant `i` and the y of its line's middle.
fn variant_label(out: &mut String, i: usize, variant: &str) -> Result<f64, fmt::Error> {
    let y = ROW_HEIGHT * i as f64 + ROW_HEIGHT / 2.0 + 2.0;
    write!(
        out,
        "<text x=\"0\" y=\"{:.1}\" dominant-baseline=\"middle\">",
        y
    )?;
    text(out, variant)?;
    out.write_str("</text>")?;
    Ok(y)
}

/// The x of `rate` (0..=1) on the scale.
fn x_of(rate: f64) -> f64 {
    LABEL_WIDTH + crate::figures::finite(rate).clamp(0.0, 1.0) * SCALE_WIDTH
}

fn rates_chart(out: &mut String, variants: &[&VariantRate]) -> fmt::Result {
    svg_open(
        out,
        "rates",
        variants.len(),
        "pass rate per variant, 95% interval",
    )?;
    let bottom = ROW_HEIGHT * variants.len() as f64 + 2.0;
    for tick in [0.0, 0.5, 1.0] {
        let x = x_of(tick);
        write!(
            out,
            "<line class=\"axis\" x1=\"{x:.1}\" y1=\"2\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/>"
        )?;
    }
    for (i, variant) in variants.iter().enumerate() {
        let y = variant_label(out, i, &variant.variant)?;
        interval_line(
            out,
            x_of(variant.pass_rate_95.low),
            x_of(variant.pass_rate_95.high),
            y,
        )?;
        let role = if i == 0 { "dot baseline" } else { "dot" };
        write!(
            out,
            "<circle class=\"{role}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4.5\"/>",
            x_of(variant.pass_rate)
        )?;
        write!(
            out,
            "<text x=\"{:.1}\" y=\"{y:.1}\" dominant-baseline=\"middle\">{}/{} {:.0}%</text>",
            LABEL_WIDTH + SCALE_WIDTH + 6.0,
            variant.passed,
            variant.sessions,
            crate::figures::finite(variant.pass_rate).clamp(0.0, 1.0) * 100.0
        )?;
    }
    out.write_str("</svg>")
}

/// A bar per variant of `figures` (means), scaled to the largest, with `show`n figures; `-`
/// when no variant has the figure.
fn bars_chart(
    out: &mut String,
    variants: &[&VariantRate],
    figures: &[Option<Spread>],
    show: impl Fn(f64) -> String,
) -> fmt::Result {
    let means: Vec<Option<f64>> = figures
        .iter()
        .map(|f| f.map(|s| crate::figures::finite(s.mean).max(0.0)))
        .collect();
    let largest = means.iter().flatten().copied().fold(0.0, f64::max);
    if means.iter().all(Option::is_none) {
        return out.write_str("-");
    }
    svg_open(out, "bars", variants.len(), "mean per session, per variant")?;
    for (i, (variant, mean)) in variants.iter().zip(&means).enumerate() {
        let y = variant_label(out, i, &variant.variant)?;
        let Some(mean) = mean else {
            write!(
                out,
                "<text x=\"{LABEL_WIDTH:.1}\" y=\"{y:.1}\" dominant-baseline=\"middle\">-</text>"
            )?;
            continue;
        };
        let width = if largest > 0.0 {
            mean / largest * SCALE_WIDTH
        } else {
            0.0
        };
        write!(
            out,
            "<rect class=\"bar\" x=\"{LABEL_WIDTH:.1}\" y=\"{:.1}\" width=\"{width:.1}\" height=\"{:.1}\"/>",
            y - ROW_HEIGHT / 2.0 + 3.0,
            ROW_HEIGHT - 6.0
        )?;
        write!(
            out,
            "<text x=\"{:.1}\" y=\"{y:.1}\" dominant-baseline=\"middle\">{}</text>",
            LABEL_WIDTH + SCALE_WIDTH + 6.0,
            show(*mean)
        )?;
    }
    out.write_str("</svg>")
}

/// The x of `lift` (-1..=1) on the scale.
fn x_of_lift(lift: f64) -> f64 {
    x_of((crate::figures::finite(lift).clamp(-1.0, 1.0) + 1.0) / 2.0)
}

fn lift_chart(out: &mut String, row: &LiftRow) -> fmt::Result {
    let lift = &row.lift;
    svg_open(out, "lift", 1, "lift of the treatment, 95% interval")?;
    let y = variant_label(out, 0, &row.treatment.variant)?;
    let zero = x_of_lift(0.0);
    write!(
        out,
        "<line class=\"zero\" x1=\"{zero:.1}\" y1=\"2\" x2=\"{zero:.1}\" y2=\"{:.1}\"/>",
        ROW_HEIGHT + 2.0
    )?;
    interval_line(
        out,
        x_of_lift(lift.interval.low),
        x_of_lift(lift.interval.high),
        y,
    )?;
    write!(
        out,
        "<circle class=\"dot {}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4.5\"/>",
        verdict_class(lift.verdict),
        x_of_lift(lift.difference)
    )?;
    write!(
        out,
        "<text x=\"{:.1}\" y=\"{y:.1}\" dominant-baseline=\"middle\">{}</text></svg>",
        LABEL_WIDTH + SCALE_WIDTH + 6.0,
        signed_percent(lift.difference)
    )?;
    write!(
        out,
        "<div class=\"lift-figures\">{} (p {:.3})</div>",
        interval_text(lift.difference, lift.interval.low, lift.interval.high),
        lift.p_value
    )
}

fn verdict_class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Helps => "helps",
        Verdict::Hurts => "hurts",
        Verdict::NoDetectableEffect => "none",
    }
}

fn verdict_badge(out: &mut String, verdict: Verdict) -> fmt::Result {
    let name = match verdict {
        Verdict::Helps => "helps",
        Verdict::Hurts => "hurts",
        Verdict::NoDetectableEffect => "no detectable effect",
    };
    write!(
        out,
        "<span class=\"badge v-{}\">{name}</span>",
        verdict_class(verdict)
    )
}

fn signed_percent(value: f64) -> String {
    super::lift_table::signed_percent(crate::figures::finite(value))
}

/// `+70% [+33%, +87%]`.
fn interval_text(value: f64, low: f64, high: f64) -> String {
    format!(
        "{} [{}, {}]",
        signed_percent(value),
        signed_percent(low),
        signed_percent(high)
    )
}

/// An interval drawn as a horizontal line from `x1` to `x2` at height `y`.
fn interval_line(out: &mut String, x1: f64, x2: f64, y: f64) -> fmt::Result {
    write!(
        out,
        "<line class=\"ci\" x1=\"{x1:.1}\" y1=\"{y:.1}\" x2=\"{x2:.1}\" y2=\"{y:.1}\"/>"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::{attempt, execution};
    use super::super::html::render;
    use super::*;
    use crate::results::ExecutionResult;

    /// `case` on `runner` under `variant`: `passes` of `sessions` passed, one attempt each.
    fn variant(
        case: &str,
        runner: &str,
        variant: &str,
        baseline: bool,
        (passes, sessions): (u32, u32),
    ) -> ExecutionResult {
        let repetitions: Vec<serde_json::Value> = (1..=sessions)
            .map(|n| {
                let status = if n <= passes { "passed" } else { "failed" };
                json!({"repetition": n, "status": status, "passed": n <= passes,
                       "attempts": [attempt(case, runner, n, 1, status, 1000)]})
            })
            .collect();
        let all = passes == sessions;
        execution(
            case,
            runner,
            json!({
                "variant": variant,
                "baseline": baseline,
                "status": if all { "passed" } else { "failed" },
                "passed": all,
                "repetitions": repetitions,
            }),
        )
    }

    /// The text of `html` from `start` to the next `end`.
    fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
        let from = html.find(start).unwrap_or_else(|| panic!("no {start:?}"));
        let rest = &html[from + start.len()..];
        &rest[..rest.find(end).unwrap()]
    }

    fn report(executions: Vec<ExecutionResult>) -> RunReport {
        RunReport::new(vec!["r1".into()], vec!["/runs/r1".into()], executions)
    }

    /// The `#experiment` section of the page.
    fn section_of(html: &str) -> &str {
        let start = html
            .find("<section id=\"experiment\">")
            .expect("the section");
        let rest = &html[start + 1..];
        let end = 1 + rest
            .find("\n<section id=\"")
            .or_else(|| rest.find("</main>"))
            .unwrap();
        &html[start..start + end]
    }

    #[test]
    fn each_case_gets_its_variants_dots_bars_and_lift_hurts_and_failures_first() {
        let html = render(&report(vec![
            variant("flat", "claude", "without", true, (10, 10)),
            variant("flat", "claude", "with", false, (10, 10)),
            variant("helped", "claude", "without", true, (2, 10)),
            variant("helped", "claude", "with", false, (10, 10)),
            variant("hurt", "claude", "without", true, (10, 10)),
            variant("hurt", "claude", "with", false, (1, 10)),
            variant("noisy", "claude", "without", true, (4, 5)),
            variant("noisy", "claude", "with", false, (5, 5)),
            variant("helped", "codex", "without", true, (5, 5)),
            variant("helped", "codex", "with", false, (5, 5)),
        ]));
        let section = section_of(&html);
        assert_eq!(
            section
                .matches("<section class=\"experiment-runner\"")
                .count(),
            2
        );
        assert!(section.contains(
            "<section class=\"experiment-runner\" id=\"experiment:claude\">\n<h3>claude</h3>"
        ));
        // Two variants' dots and one lift's dot per case: 4 cases on claude, 1 on codex.
        assert_eq!(section.matches("<circle ").count(), 5 * 3);
        assert_eq!(section.matches("<circle class=\"dot baseline\"").count(), 5);
        // Tokens and cost bars: one per variant each.
        assert_eq!(section.matches("<rect class=\"bar\"").count(), 5 * 2 * 2);
        let claude = &section[..section.find("id=\"experiment:codex\"").unwrap()];
        let at = |case: &str| {
            claude
                .find(&format!("<code>{case}</code>"))
                .unwrap_or_else(|| panic!("{case}: {claude}"))
        };
        assert!(
            at("hurt") < at("helped") && at("helped") < at("noisy") && at("noisy") < at("flat"),
            "hurts, then failed executions, then the rest: {claude}"
        );
        assert!(
            claude.contains("<code>helped</code> <span class=\"badge s-failed\">failed</span>")
        );
        assert!(
            claude.contains("<code>flat</code></th>"),
            "no failure: no badge"
        );
        // 10/10 against 1/10: -90%; the Wilson intervals 0.7232-1 and 0.0179-0.4042 give
        // Newcombe's -0.9 - 0.0821 = -0.9821 to -0.9 + sqrt(0.3042² + 0.2768²) = -0.4887.
        assert!(claude.contains("-90% [-98%, -49%] (p 0.000)"), "{claude}");
        assert!(claude.contains("<span class=\"badge v-hurts\">hurts</span>"));
        // A dot sits at its rate on the 0..100% scale: 1/10 at 10%, 10/10 at the end.
        assert!(claude.contains(&format!("<circle class=\"dot\" cx=\"{:.1}\"", x_of(0.1))));
        assert!(claude.contains(&format!(
            "<circle class=\"dot baseline\" cx=\"{:.1}\"",
            x_of(1.0)
        )));
        assert!(claude.contains("with vs without over 4 case(s) (35 + 35 sessions)"));
    }

    #[test]
    fn names_are_escaped_and_a_run_without_variants_has_no_section() {
        let html = render(&report(vec![
            variant("<script>x</script>", "r\"&", "<b>none</b>", true, (1, 2)),
            variant("<script>x</script>", "r\"&", "it's", false, (2, 2)),
        ]));
        let section = section_of(&html);
        assert!(
            !section.contains("<script") && !section.contains("<b>"),
            "{section}"
        );
        assert!(section.contains("<code>&lt;script&gt;x&lt;/script&gt;</code>"));
        assert!(section.contains("&lt;b&gt;none&lt;/b&gt;</text>"));
        assert!(section.contains(">it&#39;s</text>"));
        assert!(section.contains("<h3>r&quot;&amp;</h3>"));
        let plain = render(&report(vec![execution("a", "r", json!({}))]));
        assert!(!plain.contains("id=\"experiment\""));
        assert!(!plain.contains("<svg"));
    }

    #[test]
    fn rows_past_the_first_wait_in_an_inert_block_behind_a_button() {
        let mut executions = Vec::new();
        for n in 0..CASES + 2 {
            let case = format!("case-{n:03}");
            executions.push(variant(&case, "claude", "without", true, (5, 10)));
            executions.push(variant(&case, "claude", "with", false, (5, 10)));
        }
        let html = render(&report(executions));
        let section = section_of(&html);
        let shown = between(section, "<tbody id=\"experiment-rows:claude\">", "</tbody>");
        assert_eq!(shown.matches("<tr>").count(), CASES);
        let waiting = between(
            section,
            "<script type=\"text/html\" id=\"experiment-more:claude\">",
            "</script>",
        );
        assert_eq!(waiting.matches("<tr>").count(), 2);
        assert!(section.contains("<button type=\"button\" class=\"more\" data-more=\"experiment-more:claude\" data-into=\"experiment-rows:claude\">show the other 2 cases</button>"));
    }
}
