//! The console's lift table: per case × runner, each treatment against its baseline, then
//! the lifts pooled per runner.
//!
//! ```text
//! skillgym: experiment (95% intervals; lift = treatment pass rate - baseline's)
//! skillgym: case    runner  baseline            treatment         lift                   p      verdict              tokens  cost
//! skillgym: greet   claude  without 2/10 20%    with 9/10 90%     +70% [+33%, +87%]      0.005  helps                 +1,204  +$0.0031
//! skillgym: claude: with vs without over 3 cases: +52% [+31%, +73%] helps
//! ```

use crate::figures::thousands;
use crate::results::{Experiment, LiftRow, PooledLift, VariantRate};
use crate::stats::Verdict;

/// The table, or nothing when the run has no experiment.
pub(crate) fn lift_table(experiment: Option<&Experiment>) -> String {
    let Some(experiment) = experiment else {
        return String::new();
    };
    let header = [
        "case",
        "runner",
        "baseline",
        "treatment",
        "lift (95%)",
        "p",
        "verdict",
        "tokens",
        "cost",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    // Hurts first, then helps, then the rest: what needs a look leads.
    let mut lifts: Vec<&LiftRow> = experiment.lifts.iter().collect();
    lifts.sort_by_key(|row| verdict_rank(row.lift.verdict));
    for row in lifts {
        rows.push(vec![
            row.case_id.clone(),
            row.runner_id.clone(),
            rate(&row.baseline),
            rate(&row.treatment),
            format!(
                "{} [{}, {}]",
                signed_percent(row.lift.difference),
                signed_percent(row.lift.interval.low),
                signed_percent(row.lift.interval.high)
            ),
            p_value(row.lift.p_value),
            verdict(row.lift.verdict, row.samples_needed),
            row.tokens_delta
                .map_or_else(|| "-".to_owned(), signed_thousands),
            row.cost_delta_usd.map_or_else(
                || "-".to_owned(),
                |d| {
                    let estimated = row.baseline.cost_estimated || row.treatment.cost_estimated;
                    let mark = if estimated { "~" } else { "" };
                    format!("{mark}{}${:.4}", sign(d), d.abs())
                },
            ),
        ]);
    }
    let mut text = String::from(
        "skillgym: experiment (each variant's passes/sessions; lift = treatment's pass rate - baseline's, 95% Newcombe interval, Fisher's exact p)\n",
    );
    text.push_str(&aligned(&rows));
    // A pooled line says something a row does not only over two cases or more, and the line
    // over every runner only when there are several.
    let several_runners = experiment
        .lifts
        .iter()
        .any(|row| row.runner_id != experiment.lifts[0].runner_id);
    let overall = experiment.overall.iter().filter(|_| several_runners);
    for pooled in experiment.runners.iter().chain(overall) {
        if pooled.cases > 1 {
            text.push_str(&pooled_line(pooled));
        }
    }
    text
}

/// `0.012`, or `<0.001`.
fn p_value(p: f64) -> String {
    if p < 0.001 {
        "<0.001".to_owned()
    } else {
        format!("{p:.3}")
    }
}

fn verdict_rank(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Hurts => 0,
        Verdict::Helps => 1,
        Verdict::NoDetectableEffect => 2,
    }
}

/// `without 2/10 20% [6%, 51%]`.
fn rate(rate: &VariantRate) -> String {
    format!(
        "{} {}/{} {:.0}% [{:.0}%, {:.0}%]",
        rate.variant,
        rate.passed,
        rate.sessions,
        rate.pass_rate * 100.0,
        rate.pass_rate_95.low * 100.0,
        rate.pass_rate_95.high * 100.0
    )
}

pub(super) fn verdict(verdict: Verdict, needed: Option<u32>) -> String {
    match (verdict, needed) {
        (Verdict::Helps, _) => "helps".to_owned(),
        (Verdict::Hurts, _) => "hurts".to_owned(),
        (Verdict::NoDetectableEffect, Some(n)) => {
            format!("no detectable effect (~{n} sessions each would detect this lift)")
        }
        (Verdict::NoDetectableEffect, None) => "no detectable effect".to_owned(),
    }
}

/// `skillgym: claude: with vs without over 3 cases (30 + 30 sessions): +52% [+31%, +73%] helps`
/// (`every runner:` when pooled over the runners).
fn pooled_line(pooled: &PooledLift) -> String {
    format!(
        "skillgym: {}: {} vs {} over {} ({} + {} sessions): {} [{}, {}] {} (mean of their lifts, stratified interval)\n",
        pooled.runner_id.as_deref().unwrap_or("every runner"),
        pooled.treatment,
        pooled.baseline,
        strata(pooled),
        pooled.treatment_sessions,
        pooled.baseline_sessions,
        signed_percent(pooled.lift),
        signed_percent(pooled.lift_95.low),
        signed_percent(pooled.lift_95.high),
        verdict(pooled.verdict, None)
    )
}

/// What a pooled lift averages: its cases on one runner, or its case × runner pairs when
/// pooled over the runners.
pub(super) fn strata(pooled: &PooledLift) -> String {
    match pooled.runner_id {
        Some(_) => format!("{} case(s)", pooled.cases),
        None => format!("{} case x runner pair(s)", pooled.cases),
    }
}

pub(super) fn sign(value: f64) -> &'static str {
    if value < 0.0 { "-" } else { "+" }
}

pub(super) fn signed_percent(value: f64) -> String {
    let rounded = (value * 100.0).round();
    if rounded == 0.0 {
        return "0%".to_owned();
    }
    format!("{}{:.0}%", sign(rounded), rounded.abs())
}

pub(super) fn signed_thousands(value: f64) -> String {
    let rounded = value.round();
    format!("{}{}", sign(rounded), thousands(rounded.abs() as u64))
}

/// The rows as left-aligned columns, each line prefixed `skillgym: `.
pub(super) fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in rows {
        let mut line = String::from("skillgym: ");
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}
