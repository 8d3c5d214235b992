//! Trigger suites' figures: per skill × runner (× variant), how often the skill fired on the
//! prompts that should trigger it and stayed quiet on the ones that should not.
//!
//! Every trigger session counts once (the final attempt of each repetition that has a
//! [`TriggerObservation`]); a session whose agent failed before the decision was observable
//! (it could not start, timed out, …) has none and does not count.
//!
//! | figure | over | interval (95%) |
//! |---|---|---|
//! | recall | the sessions of `should_trigger` prompts: fired / all | Wilson |
//! | precision | the sessions where the skill fired: those of `should_trigger` prompts / all (its own prompts only) | Wilson |
//! | F1 | `2·TP / (2·TP + FP + FN)` | Wilson on `TP / (TP + FP + FN)` (the Jaccard index, of which F1 = 2J/(1+J) is increasing), mapped through |
//! | misfires | each prompt with a session that did not do what it should, with the skills that fired instead | — |
//! | near misses | the other skills that fired on `should_trigger` sessions where this one did not | — |

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ExecutionResult, Interval, SampleStats, Spread};
use crate::stats::Proportion;

/// What a trigger prompt expects of its skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerExpect {
    /// `should_trigger`: the skill fires.
    Fire,
    /// `should_not_trigger`: the skill stays quiet.
    Quiet,
}

impl TriggerExpect {
    /// `should` or `should-not`, as in the case ids.
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerExpect::Fire => "should",
            TriggerExpect::Quiet => "should-not",
        }
    }
}

/// A trigger case's expectation and gates, in its execution's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TriggerExpectation {
    /// The skill (its `SKILL.md` name).
    pub skill: String,
    /// Whether it should fire.
    pub expect: TriggerExpect,
    /// The prompt, as given.
    pub prompt: String,
    /// The gate on the skill's recall on the runner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_recall: Option<f64>,
    /// The gate on the skill's precision on the runner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_precision: Option<f64>,
}

/// How a trigger session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerEnd {
    /// Ended by skillgym at the agent's first skill load.
    Fired,
    /// Ended by skillgym at the agent's `quiet_after`th action that loaded no skill.
    Quiet,
    /// The agent ended the session itself.
    Finished,
}

/// What one trigger session showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TriggerObservation {
    /// The skills the session used (detected at any confidence), in order of first evidence.
    pub fired: Vec<String>,
    /// How the session ended.
    pub ended: TriggerEnd,
}

impl TriggerObservation {
    /// An observation of a session that used `fired` and ended as `ended`.
    pub fn new(fired: Vec<String>, ended: TriggerEnd) -> TriggerObservation {
        TriggerObservation { fired, ended }
    }
}

/// A share with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Its 95% interval.
    pub interval: Interval,
}

/// One prompt that did not always do what it should.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Misfire {
    /// The trigger case.
    pub case_id: String,
    /// The prompt.
    pub prompt: String,
    /// What it expects.
    pub expect: TriggerExpect,
    /// Its sessions that counted.
    pub sessions: u32,
    /// Those that did not do what they should.
    pub misfired: u32,
    /// The other skills that fired in those sessions, with how many times.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fired_instead: BTreeMap<String, u32>,
}

/// The trigger figures of one skill on one runner (under one variant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TriggerScore {
    /// The skill.
    pub skill: String,
    /// The runner.
    pub runner_id: String,
    /// The variant, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// `should_trigger` prompts / `should_not_trigger` prompts.
    pub prompts: [u32; 2],
    /// Sessions of `should_trigger` prompts where the skill fired.
    pub true_positives: u32,
    /// Sessions of `should_trigger` prompts where it did not.
    pub false_negatives: u32,
    /// Sessions of `should_not_trigger` prompts where it fired.
    pub false_positives: u32,
    /// Sessions of `should_not_trigger` prompts where it did not.
    pub true_negatives: u32,
    /// Recall; absent without `should_trigger` sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<Estimate>,
    /// Precision; absent when the skill never fired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Estimate>,
    /// F1; absent when there is nothing but true negatives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1: Option<Estimate>,
    /// The gate on recall, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_recall: Option<f64>,
    /// The gate on precision, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_precision: Option<f64>,
    /// The prompts that misfired at least once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misfires: Vec<Misfire>,
    /// Other skills that fired on `should_trigger` sessions where this one did not.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub near_misses: BTreeMap<String, u32>,
    /// Total tokens per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<Spread>,
    /// Cost per session, US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Spread>,
    /// Whether some session's cost was estimated from its tokens.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cost_estimated: bool,
    /// Sessions ended early by skillgym (at a skill load, or as quiet) out of all.
    pub ended_early: u32,
}

impl TriggerScore {
    /// Sessions that counted.
    pub fn sessions(&self) -> u32 {
        self.true_positives + self.false_negatives + self.false_positives + self.true_negatives
    }

    /// Whether recall is below its gate (`None`: no gate or no recall).
    pub fn recall_below_gate(&self) -> Option<bool> {
        Some(self.recall?.value < self.min_recall?)
    }

    /// Whether precision is below its gate. A skill that never fired has no precision: it
    /// made no false positive, and its recall gate speaks for it.
    pub fn precision_below_gate(&self) -> Option<bool> {
        Some(self.precision?.value < self.min_precision?)
    }
}

/// The trigger scores of `executions`, one per skill × runner × variant, in first-seen order.
pub fn scores(executions: &[ExecutionResult]) -> Vec<TriggerScore> {
    let mut scores: Vec<TriggerScore> = Vec::new();
    let mut sessions: Vec<Vec<&super::AttemptResult>> = Vec::new();
    for execution in executions {
        let Some(expectation) = &execution.trigger else {
            continue;
        };
        let index = match scores.iter().position(|s| {
            s.skill == expectation.skill
                && s.runner_id == execution.runner_id
                && s.variant == execution.variant
        }) {
            Some(index) => index,
            None => {
                scores.push(empty(expectation, execution));
                sessions.push(Vec::new());
                scores.len() - 1
            }
        };
        let observed = add(&mut scores[index], expectation, execution);
        sessions[index].extend(observed);
    }
    for (score, sessions) in scores.iter_mut().zip(&sessions) {
        finish(score, sessions);
    }
    scores
}

fn empty(expectation: &TriggerExpectation, execution: &ExecutionResult) -> TriggerScore {
    TriggerScore {
        skill: expectation.skill.clone(),
        runner_id: execution.runner_id.clone(),
        variant: execution.variant.clone(),
        prompts: [0, 0],
        true_positives: 0,
        false_negatives: 0,
        false_positives: 0,
        true_negatives: 0,
        recall: None,
        precision: None,
        f1: None,
        min_recall: expectation.min_recall,
        min_precision: expectation.min_precision,
        misfires: Vec::new(),
        near_misses: BTreeMap::new(),
        total_tokens: None,
        cost_usd: None,
        cost_estimated: false,
        ended_early: 0,
    }
}

/// Adds one prompt's sessions to `score`; returns them.
fn add<'a>(
    score: &mut TriggerScore,
    expectation: &TriggerExpectation,
    execution: &'a ExecutionResult,
) -> Vec<&'a super::AttemptResult> {
    let fire = expectation.expect == TriggerExpect::Fire;
    score.prompts[usize::from(!fire)] += 1;
    score.min_recall = score.min_recall.or(expectation.min_recall);
    score.min_precision = score.min_precision.or(expectation.min_precision);
    let mut misfire = Misfire {
        case_id: execution.case_id.clone(),
        prompt: expectation.prompt.clone(),
        expect: expectation.expect,
        sessions: 0,
        misfired: 0,
        fired_instead: BTreeMap::new(),
    };
    let mut observed = Vec::new();
    let finals = execution
        .repetitions
        .iter()
        .filter_map(|r| r.final_attempt());
    for attempt in finals {
        let Some(observation) = &attempt.trigger else {
            continue;
        };
        observed.push(attempt);
        misfire.sessions += 1;
        if observation.ended != TriggerEnd::Finished {
            score.ended_early += 1;
        }
        let fired = observation.fired.contains(&expectation.skill);
        let others = observation
            .fired
            .iter()
            .filter(|s| **s != expectation.skill);
        match (fire, fired) {
            (true, true) => score.true_positives += 1,
            (false, false) => score.true_negatives += 1,
            (true, false) => {
                score.false_negatives += 1;
                misfire.misfired += 1;
                for other in others {
                    *misfire.fired_instead.entry(other.clone()).or_default() += 1;
                    *score.near_misses.entry(other.clone()).or_default() += 1;
                }
            }
            (false, true) => {
                score.false_positives += 1;
                misfire.misfired += 1;
                for other in others {
                    *misfire.fired_instead.entry(other.clone()).or_default() += 1;
                }
            }
        }
    }
    if misfire.misfired > 0 {
        score.misfires.push(misfire);
    }
    observed
}

fn finish(score: &mut TriggerScore, sessions: &[&super::AttemptResult]) {
    let (tp, fp, fn_) = (
        score.true_positives,
        score.false_positives,
        score.false_negatives,
    );
    score.recall = estimate(tp, tp + fn_);
    score.precision = estimate(tp, tp + fp);
    score.f1 = f1(tp, fp, fn_);
    // Tokens and cost per session, as a sampled execution's are.
    let stats = SampleStats::of(sessions.iter().copied());
    (score.total_tokens, score.cost_usd) = (stats.total_tokens, stats.cost_usd);
    score.cost_estimated = stats.cost_estimated;
}

/// `successes / trials` with its Wilson interval; `None` without trials.
fn estimate(successes: u32, trials: u32) -> Option<Estimate> {
    let rate = Proportion { successes, trials };
    Some(Estimate {
        value: rate.rate()?,
        interval: rate.wilson(0.95),
    })
}

/// F1 with the interval of the Jaccard index `TP / (TP + FP + FN)` mapped through
/// `F1 = 2J / (1 + J)`; `None` when all three are 0.
fn f1(tp: u32, fp: u32, fn_: u32) -> Option<Estimate> {
    let jaccard = estimate(tp, tp + fp + fn_)?;
    let to_f1 = |j: f64| 2.0 * j / (1.0 + j);
    Some(Estimate {
        value: to_f1(jaccard.value),
        interval: Interval {
            low: to_f1(jaccard.interval.low),
            high: to_f1(jaccard.interval.high),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trigger execution of `skill` expecting `expect`, whose sessions fired `fired`.
    fn prompt(case: &str, expect: TriggerExpect, fired: &[&[&str]]) -> ExecutionResult {
        let repetitions: Vec<serde_json::Value> = fired
            .iter()
            .enumerate()
            .map(|(index, skills)| {
                serde_json::json!({
                    "repetition": index + 1, "status": "passed", "passed": true,
                    "attempts": [{
                        "repetition": index + 1, "attempt": 1, "status": "passed",
                        "passed": true, "duration_ms": 5, "steps": 1, "artifact_dir": "/a",
                        "usage": {"total_tokens": {"value": 100, "source": "provider"}},
                        "trigger": {"fired": skills, "ended": "fired"},
                    }],
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "case_id": case, "runner_id": "claude", "source": "t.yaml:1", "status": "passed",
            "passed": true, "expected_fail": false, "repeat_target": fired.len(),
            "repeat_failure": 0, "completed_repetitions": fired.len(),
            "successful_repetitions": fired.len(), "failed_repetitions": 0, "flaky": false,
            "attempts": {"total": 1, "passing": 1, "pass_rate": 1.0,
                "pass_rate_95": {"low": 0.2, "high": 1.0}},
            "duration_ms": 5, "usage": {}, "artifact_dir": "/runs/x",
            "repetitions": repetitions,
            "trigger": {"skill": "pdf", "expect": expect, "prompt": format!("prompt {case}"),
                "min_recall": 0.8},
        }))
        .expect("an ExecutionResult")
    }

    #[test]
    fn counts_precision_recall_f1_and_the_misfires() {
        use TriggerExpect::{Fire, Quiet};
        let executions = [
            prompt("s1", Fire, &[&["pdf"], &["pdf"], &["docx"]]),
            prompt("s2", Fire, &[&["pdf"], &[]]),
            prompt("n1", Quiet, &[&[], &["pdf", "docx"]]),
            prompt("n2", Quiet, &[&[], &[]]),
        ];
        let scores = scores(&executions);
        assert_eq!(scores.len(), 1);
        let score = &scores[0];
        assert_eq!(score.prompts, [2, 2]);
        assert_eq!(
            (
                score.true_positives,
                score.false_negatives,
                score.false_positives,
                score.true_negatives
            ),
            (3, 2, 1, 3)
        );
        assert_eq!(score.sessions(), 9);
        let recall = score.recall.unwrap();
        assert!((recall.value - 0.6).abs() < 1e-12);
        // Wilson 95% for 3/5.
        assert!((recall.interval.low - 0.2307).abs() < 1e-3, "{recall:?}");
        assert!((recall.interval.high - 0.8824).abs() < 1e-3, "{recall:?}");
        assert!((score.precision.unwrap().value - 0.75).abs() < 1e-12);
        let f1 = score.f1.unwrap();
        // 2·3 / (6 + 1 + 2)
        assert!((f1.value - 2.0 / 3.0).abs() < 1e-12);
        assert!(f1.interval.low < f1.value && f1.value < f1.interval.high);
        assert_eq!(score.recall_below_gate(), Some(true));
        assert_eq!(score.precision_below_gate(), None, "no precision gate");
        let misfired: Vec<(&str, u32, u32)> = score
            .misfires
            .iter()
            .map(|m| (m.case_id.as_str(), m.misfired, m.sessions))
            .collect();
        assert_eq!(misfired, [("s1", 1, 3), ("s2", 1, 2), ("n1", 1, 2)]);
        assert_eq!(
            score.misfires[0].fired_instead,
            BTreeMap::from([("docx".into(), 1)])
        );
        assert_eq!(score.near_misses, BTreeMap::from([("docx".to_owned(), 1)]));
        assert_eq!(score.total_tokens.unwrap().mean, 100.0);
        assert_eq!(score.ended_early, 9);
    }

    #[test]
    fn perfect_and_silent_skills_have_bounded_figures() {
        use TriggerExpect::{Fire, Quiet};
        let perfect = scores(&[
            prompt("s", Fire, &[&["pdf"], &["pdf"]]),
            prompt("n", Quiet, &[&[]]),
        ]);
        let f1 = perfect[0].f1.unwrap();
        assert_eq!(f1.value, 1.0);
        assert!(f1.interval.high == 1.0 && f1.interval.low > 0.0 && f1.interval.low < 1.0);
        let silent = scores(&[prompt("n", Quiet, &[&[], &[]])]);
        assert_eq!(
            (silent[0].recall, silent[0].precision, silent[0].f1),
            (None, None, None)
        );
    }
}
