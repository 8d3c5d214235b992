//! The HTML page's `#triggers` section, when trigger prompts ran: one row per skill × runner
//! (× variant), then the prompts that misfired, each linked to its execution.
//!
//! | column | shows |
//! |---|---|
//! | skill, runner | the skill, and the runner (`runner/variant` under a variant) |
//! | fired on should, quiet on should-not | sessions that did what they should, out of all |
//! | recall, precision, F1 | the figure with its 95% interval, and a `below` badge under its gate |
//! | near misses | the other skills that fired where this one should have |
//! | tokens, cost per session | mean total tokens, and mean US dollars (`~`: estimated) |
//!
//! Every text is masked and escaped as the rest of the page's.

use std::fmt::{self, Write as _};

use super::RunReport;
use super::html::{anchor, text};
use crate::figures::thousands;
use crate::results::{Estimate, TriggerExpect, TriggerScore};

/// Writes the section, or nothing when no trigger prompt ran.
pub(super) fn section(out: &mut String, report: &RunReport) -> fmt::Result {
    if report.triggers.is_empty() {
        return Ok(());
    }
    out.write_str("<section id=\"triggers\">\n<h2>Triggers</h2>\n")?;
    out.write_str(
        "<p class=\"note\">Each skill's trigger prompts on each runner: recall over the sessions \
of the prompts that should load it, precision over the sessions that loaded it, with 95% Wilson \
intervals (F1's from the Jaccard index's).</p>\n",
    )?;
    out.write_str("<table class=\"triggers\">\n<thead><tr><th>skill</th><th>runner</th><th>fired on should</th><th>quiet on should-not</th><th>recall (95%)</th><th>precision (95%)</th><th>F1 (95%)</th><th>near misses</th><th>tokens per session</th><th>cost per session</th></tr></thead>\n<tbody>\n")?;
    for score in &report.triggers {
        row(out, score)?;
    }
    out.write_str("</tbody>\n</table>\n")?;
    if report.triggers.iter().any(|s| !s.misfires.is_empty()) {
        out.write_str("<h3>Misfires</h3>\n<ul class=\"misfires\">\n")?;
        for score in &report.triggers {
            misfires(out, score)?;
        }
        out.write_str("</ul>\n")?;
    }
    out.write_str("</section>\n")
}

fn row(out: &mut String, score: &TriggerScore) -> fmt::Result {
    out.write_str("<tr><td>")?;
    text(out, &score.skill)?;
    out.write_str("</td><td>")?;
    text(out, &score.runner_id)?;
    if let Some(variant) = &score.variant {
        out.write_str("/")?;
        text(out, variant)?;
    }
    write!(
        out,
        "</td><td>{}/{}</td><td>{}/{}</td><td>",
        score.true_positives,
        score.true_positives + score.false_negatives,
        score.true_negatives,
        score.true_negatives + score.false_positives
    )?;
    figure(out, score.recall, score.min_recall)?;
    out.write_str("</td><td>")?;
    figure(out, score.precision, score.min_precision)?;
    out.write_str("</td><td>")?;
    figure(out, score.f1, None)?;
    out.write_str("</td><td>")?;
    let near: Vec<String> = score
        .near_misses
        .iter()
        .map(|(skill, n)| format!("{skill} ×{n}"))
        .collect();
    text(out, &near.join(", "))?;
    out.write_str("</td><td>")?;
    let tokens = score
        .total_tokens
        .map_or_else(|| "-".to_owned(), |t| thousands(t.mean.round() as u64));
    text(out, &tokens)?;
    out.write_str("</td><td>")?;
    let cost = score.cost_usd.map_or_else(
        || "-".to_owned(),
        |c| {
            let mark = if score.cost_estimated { "~" } else { "" };
            format!("{mark}${:.4}", c.mean)
        },
    );
    text(out, &cost)?;
    out.write_str("</td></tr>\n")
}

/// `83% [44%, 97%]`, with a `below 90%` badge under its gate.
fn figure(out: &mut String, value: Option<Estimate>, gate: Option<f64>) -> fmt::Result {
    out.write_str(&super::trigger_table::estimate(value))?;
    match (value, gate) {
        (Some(value), Some(gate)) if value.value < gate => write!(
            out,
            " <span class=\"badge s-failed\">below {:.0}%</span>",
            gate * 100.0
        ),
        _ => Ok(()),
    }
}

fn misfires(out: &mut String, score: &TriggerScore) -> fmt::Result {
    for misfire in &score.misfires {
        out.write_str("<li><a href=\"#")?;
        text(
            out,
            &anchor(&misfire.case_id, &score.runner_id, score.variant.as_deref()),
        )?;
        out.write_str("\"><code>")?;
        text(out, &misfire.case_id)?;
        out.write_str("</code></a> on ")?;
        text(out, &score.runner_id)?;
        let what = match misfire.expect {
            TriggerExpect::Fire => "did not fire",
            TriggerExpect::Quiet => "fired",
        };
        write!(
            out,
            " {what} in {} of {} sessions",
            misfire.misfired, misfire.sessions
        )?;
        if !misfire.fired_instead.is_empty() {
            let names: Vec<String> = misfire
                .fired_instead
                .iter()
                .map(|(skill, n)| format!("{skill} ×{n}"))
                .collect();
            out.write_str(" (other skills: ")?;
            text(out, &names.join(", "))?;
            out.write_str(")")?;
        }
        out.write_str(": <q>")?;
        text(out, &misfire.prompt)?;
        out.write_str("</q></li>\n")?;
    }
    Ok(())
}
