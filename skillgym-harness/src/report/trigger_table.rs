//! The console's trigger table: per skill × runner (× variant), how its trigger prompts did,
//! then the prompts that misfired.
//!
//! ```text
//! skillgym: triggers (sessions; 95% Wilson intervals; F1's from the Jaccard index's)
//! skillgym: skill      runner  fired on should  quiet on should-not  recall           precision        F1               tokens/session  cost/session
//! skillgym: pdf-forms  claude  5/6              3/4                  83% [44%, 97%]   83% [44%, 97%]   83% [51%, 96%]   1,204           $0.0031
//! skillgym:   pdf-forms on claude: triggers::pdf-forms::should::3 did not fire in 1 of 2 sessions (fired instead: docx): "Merge a.pdf and b.pdf"
//! ```

use super::lift_table::aligned;
use crate::figures::thousands;
use crate::results::{Estimate, TriggerExpect, TriggerScore};
use crate::terminal_text::escape_one_line;

/// The table, or nothing when no trigger prompt ran.
pub(crate) fn trigger_table(scores: &[TriggerScore]) -> String {
    if scores.is_empty() {
        return String::new();
    }
    let header = [
        "skill",
        "runner",
        "fired on should",
        "quiet on should-not",
        "recall",
        "precision",
        "F1",
        "tokens/session",
        "cost/session",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    for score in scores {
        let runner = match &score.variant {
            Some(variant) => format!("{}/{variant}", score.runner_id),
            None => score.runner_id.clone(),
        };
        rows.push(vec![
            score.skill.clone(),
            runner,
            format!(
                "{}/{}",
                score.true_positives,
                score.true_positives + score.false_negatives
            ),
            format!(
                "{}/{}",
                score.true_negatives,
                score.true_negatives + score.false_positives
            ),
            gated(score.recall, score.min_recall),
            gated(score.precision, score.min_precision),
            estimate(score.f1),
            score
                .total_tokens
                .map_or_else(|| "-".to_owned(), |t| thousands(t.mean.round() as u64)),
            score.cost_usd.map_or_else(
                || "-".to_owned(),
                |c| {
                    let mark = if score.cost_estimated { "~" } else { "" };
                    format!("{mark}${:.4}", c.mean)
                },
            ),
        ]);
    }
    let mut text = String::from(
        "skillgym: triggers (sessions; 95% Wilson intervals; F1's from the Jaccard index's)\n",
    );
    text.push_str(&aligned(&rows));
    for score in scores {
        text.push_str(&misfire_lines(score));
    }
    text
}

/// `83% [44%, 97%]`, or `-` when there is nothing to count (the HTML section's figures too).
pub(super) fn estimate(estimate: Option<Estimate>) -> String {
    match estimate {
        Some(e) => format!(
            "{:.0}% [{:.0}%, {:.0}%]",
            e.value * 100.0,
            e.interval.low * 100.0,
            e.interval.high * 100.0
        ),
        None => "-".to_owned(),
    }
}

/// [`estimate`], with ` < 80%` when it is below its gate.
fn gated(value: Option<Estimate>, gate: Option<f64>) -> String {
    let text = estimate(value);
    match (value, gate) {
        (Some(v), Some(gate)) if v.value < gate => format!("{text} < {:.0}%", gate * 100.0),
        _ => text,
    }
}

/// One line per prompt that misfired.
fn misfire_lines(score: &TriggerScore) -> String {
    let mut text = String::new();
    for misfire in &score.misfires {
        let what = match misfire.expect {
            TriggerExpect::Fire => "did not fire",
            TriggerExpect::Quiet => "fired",
        };
        let instead = if misfire.fired_instead.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = misfire
                .fired_instead
                .iter()
                .map(|(skill, n)| format!("{skill} x{n}"))
                .collect();
            let label = match misfire.expect {
                TriggerExpect::Fire => "fired instead",
                TriggerExpect::Quiet => "also fired",
            };
            format!(" ({label}: {})", names.join(", "))
        };
        text.push_str(&format!(
            "skillgym:   {} on {}: {} {what} in {} of {} sessions{instead}: \"{}\"\n",
            score.skill,
            score.runner_id,
            misfire.case_id,
            misfire.misfired,
            misfire.sessions,
            escape_one_line(&misfire.prompt)
        ));
    }
    text
}
