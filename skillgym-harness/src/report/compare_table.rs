//! The console text of a [`Comparison`]: the executions in both runs (what got worse first),
//! the experiment lifts in both, what ran in one run only, and a count line.
//!
//! ```text
//! skillgym: compare: A = nightly-1, B = nightly-2 (B against A; 95% intervals: Wilson for each pass rate, Newcombe for the change)
//! skillgym: case    runner  variant  A                     B                     change (95%)       p      verdict               tokens  cost  time
//! skillgym: greet   claude  -        9/10 90% [60%, 98%]   3/10 30% [11%, 60%]   -60% [-81%, -17%]  0.020  worse                 +50     -     0
//! skillgym: steady  claude  -        5/10 50% [24%, 76%]   6/10 60% [31%, 83%]   +10% [-29%, +45%]  1.000  no detectable change  0       -     0
//! skillgym: lifts (treatment's pass rate - baseline's in each run; change = B's lift - A's, 95% MOVER interval)
//! skillgym: case         runner  lift             A                        B                                     change (95%)
//! skillgym: (all cases)  claude  with vs without  +60% [+26%, +94%] helps  0% [-38%, +38%] no detectable effect  -60% [-111%, -9%]
//! skillgym: only in B: [claude] welcome
//! ```

use super::compare::{Comparison, Direction, ExecutionChange, LiftChange, LiftFigure, Sessions};
use super::lift_table::{aligned, sign, signed_percent, signed_thousands, verdict};
use crate::duration::rounded;

/// The text, ready to print: control characters escaped, no line starting with `::`.
pub fn comparison_text(comparison: &Comparison) -> String {
    let mut text = format!(
        "skillgym: compare: A = {}, B = {} (B against A; 95% intervals: Wilson for each pass rate, Newcombe for the change)\n",
        comparison.run_a.join(" + "),
        comparison.run_b.join(" + ")
    );
    if !comparison.executions.is_empty() {
        text.push_str(&executions_table(&comparison.executions));
    }
    if !comparison.lifts.is_empty() {
        text.push_str(&lifts_table(&comparison.lifts));
    }
    for (run, only) in [("A", &comparison.only_in_a), ("B", &comparison.only_in_b)] {
        if !only.is_empty() {
            let names: Vec<String> = only.iter().map(|key| key.trial_name()).collect();
            text.push_str(&format!("skillgym: only in {run}: {}\n", names.join(", ")));
        }
    }
    let count = |direction: Direction| {
        comparison
            .executions
            .iter()
            .filter(|e| e.change.is_some_and(|c| c.direction == direction))
            .count()
    };
    let n = comparison.executions.len();
    text.push_str(&format!(
        "skillgym: {n} execution{} in both runs: {} worse, {} better, {} without a detectable change; {} only in A, {} only in B\n",
        if n == 1 { "" } else { "s" },
        count(Direction::Worse),
        count(Direction::Better),
        count(Direction::NoDetectableChange),
        comparison.only_in_a.len(),
        comparison.only_in_b.len()
    ));
    crate::terminal_text::escape(&text)
}

fn rank(execution: &ExecutionChange) -> u8 {
    match execution.change.map(|c| c.direction) {
        Some(Direction::Worse) => 0,
        Some(Direction::Better) => 1,
        _ => 2,
    }
}

fn executions_table(executions: &[ExecutionChange]) -> String {
    let header = [
        "case",
        "runner",
        "variant",
        "A",
        "B",
        "change (95%)",
        "p",
        "verdict",
        "tokens",
        "cost",
        "time",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    let mut sorted: Vec<&ExecutionChange> = executions.iter().collect();
    sorted.sort_by_key(|e| rank(e));
    let none = || "-".to_owned();
    for e in sorted {
        let (change, p, direction) = match &e.change {
            Some(change) => (
                interval_cell(change.difference, change.interval.low, change.interval.high),
                format!("{:.3}", change.p_value),
                match change.direction {
                    Direction::Better => "better",
                    Direction::Worse => "worse",
                    Direction::NoDetectableChange => "no detectable change",
                }
                .to_owned(),
            ),
            None => (none(), none(), "no sessions to compare".to_owned()),
        };
        rows.push(vec![
            e.key.case_id.clone(),
            e.key.runner_id.clone(),
            e.key.variant.clone().unwrap_or_else(none),
            rate(&e.a),
            rate(&e.b),
            change,
            p,
            direction,
            e.tokens_delta
                .map_or_else(none, |d| signed(d, signed_thousands)),
            e.cost_delta_usd.map_or_else(none, |d| {
                signed(d * 1e4, |_| format!("{}${:.4}", sign(d), d.abs()))
            }),
            e.duration_delta_ms.map_or_else(none, |d| {
                signed(d, |d| format!("{}{}", sign(d), rounded(d.abs() as u64)))
            }),
        ]);
    }
    aligned(&rows)
}

fn lifts_table(lifts: &[LiftChange]) -> String {
    let mut rows: Vec<Vec<String>> = vec![
        ["case", "runner", "lift", "A", "B", "change (95%)"]
            .iter()
            .map(|h| (*h).to_owned())
            .collect(),
    ];
    for lift in lifts {
        rows.push(vec![
            lift.case_id
                .clone()
                .unwrap_or_else(|| "(all cases)".to_owned()),
            lift.runner_id.clone(),
            format!("{} vs {}", lift.treatment, lift.baseline),
            lift_cell(&lift.a),
            lift_cell(&lift.b),
            interval_cell(lift.change, lift.change_95.low, lift.change_95.high),
        ]);
    }
    let mut text = String::from(
        "skillgym: lifts (treatment's pass rate - baseline's in each run; change = B's lift - A's, 95% MOVER interval)\n",
    );
    text.push_str(&aligned(&rows));
    text
}

/// `2/10 20% [6%, 51%]`, or `0/0` when no session ran.
fn rate(sessions: &Sessions) -> String {
    match sessions.pass_rate {
        Some(rate) => format!(
            "{}/{} {:.0}% [{:.0}%, {:.0}%]",
            sessions.passed,
            sessions.sessions,
            rate * 100.0,
            sessions.pass_rate_95.low * 100.0,
            sessions.pass_rate_95.high * 100.0
        ),
        None => "0/0".to_owned(),
    }
}

/// `value` rounded, through `show` (which signs it), or `0` when it rounds to zero.
fn signed(value: f64, show: impl Fn(f64) -> String) -> String {
    let rounded = value.round();
    if rounded == 0.0 {
        "0".to_owned()
    } else {
        show(rounded)
    }
}

/// `+70% [+33%, +87%]`.
fn interval_cell(value: f64, low: f64, high: f64) -> String {
    format!(
        "{} [{}, {}]",
        signed_percent(value),
        signed_percent(low),
        signed_percent(high)
    )
}

/// `+70% [+33%, +87%] helps`.
fn lift_cell(figure: &LiftFigure) -> String {
    format!(
        "{} {}",
        interval_cell(figure.lift, figure.interval.low, figure.interval.high),
        verdict(figure.verdict, None)
    )
}
