//! Reading the judge's answer: one JSON object (the first `{` to the last `}`; a code fence or
//! a sentence around it is ignored), in the shape the prompt asked for (agentv's schemas).
//!
//! | mode | answer | score | verdict |
//! |---|---|---|---|
//! | checklist ([`read_answer`]) | `{"checks": [{"id", "satisfied", "reasoning"}], "overall_reasoning"}` | satisfied weight / total weight | fail when a required item is not satisfied, else pass at [`PASS_SCORE`] |
//! | scored ([`read_scored`]): some item has `score_ranges` | `{"checks": [{"id", "score": 0..=10 integer, "reasoning"}], "overall_reasoning"}` | weighted mean of score / 10 | fail when an item is under its gate (`min_score`, else 1.0 when `required`), else pass at `PASS_SCORE`; an item's check passes when it meets its gate and scored at least 7 |
//! | freeform ([`read_freeform`]): no rubric items | `{"score": 0..=1, "assertions": [{"text", "passed", "evidence"}], "details": {...}}` | `score`, clamped | pass at `PASS_SCORE` |
//!
//! In the two rubric modes an item the judge left out is not satisfied (scored 0) with the
//! evidence "the judge did not answer for it", and an id the rubric does not have is ignored
//! and named in the details (`unknown_ids`). A freeform answer without `assertions` gets one
//! check, "the judge's score", passed when the score passes. No JSON object, or one of
//! another shape, is an error: the grader fails naming what was wrong.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::spec::RubricItem;
use super::{Check, GraderOutcome, PASS_SCORE, Verdict};

/// A scored item's check passes only from this raw score up (agentv).
const PASSING_RAW: f64 = 7.0;

#[derive(Debug, Deserialize)]
struct Answer {
    checks: Vec<AnswerCheck>,
    #[serde(default)]
    overall_reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
struct AnswerCheck {
    id: String,
    satisfied: bool,
    #[serde(default)]
    reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ScoredAnswer {
    checks: Vec<ScoredCheck>,
    #[serde(default)]
    overall_reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ScoredCheck {
    id: String,
    score: f64,
    #[serde(default)]
    reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FreeformAnswer {
    score: f64,
    #[serde(default)]
    assertions: Vec<FreeformAssertion>,
    #[serde(default)]
    details: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
struct FreeformAssertion {
    text: String,
    passed: bool,
    #[serde(default)]
    evidence: Option<String>,
}

/// Reads the judge's checklist answer `text` against the checklist `items`.
pub(crate) fn read_answer(text: &str, items: &[RubricItem]) -> Result<GraderOutcome, AnswerError> {
    let answer: Answer = parse(text)?;
    let mut checks = Vec::with_capacity(items.len());
    let mut weighted = Vec::with_capacity(items.len());
    let mut required_missed = false;
    for item in items {
        let found = answer.checks.iter().find(|check| check.id == item.id);
        let satisfied = found.is_some_and(|check| check.satisfied);
        let reasoning = match found {
            Some(check) => check.reasoning.clone().unwrap_or_default(),
            None => NOT_ANSWERED.to_owned(),
        };
        weighted.push((item.weight, if satisfied { 1.0 } else { 0.0 }));
        if !satisfied && item.required {
            required_missed = true;
        }
        checks.push(Check::with(
            format!("{}: {}", item.id, item.outcome),
            satisfied,
            reasoning,
        ));
    }
    let ids = answer.checks.iter().map(|check| check.id.as_str());
    let details = rubric_details(answer.overall_reasoning.clone(), unknown(ids, items));
    Ok(rubric_outcome(&weighted, checks, required_missed, details))
}

/// Reads the judge's scored answer `text` (an integer 0–10 per item) against `items`.
pub(crate) fn read_scored(text: &str, items: &[RubricItem]) -> Result<GraderOutcome, AnswerError> {
    let answer: ScoredAnswer = parse(text)?;
    let mut checks = Vec::with_capacity(items.len());
    let mut weighted = Vec::with_capacity(items.len());
    let mut under_gate = false;
    let mut raw_scores = Map::new();
    for item in items {
        let found = answer.checks.iter().find(|check| check.id == item.id);
        let raw = match found {
            Some(check) if check.score.fract() != 0.0 || !(0.0..=10.0).contains(&check.score) => {
                return Err(AnswerError::BadScore {
                    id: item.id.clone(),
                    score: check.score,
                });
            }
            Some(check) => check.score,
            None => 0.0,
        };
        let normalised = raw / 10.0;
        let gate = item.min_score.or(item.required.then_some(1.0));
        let missed = gate.is_some_and(|gate| normalised < gate);
        under_gate |= missed;
        weighted.push((item.weight, normalised));
        raw_scores.insert(item.id.clone(), Value::from(raw as u8));
        let reasoning = match found {
            Some(check) => check.reasoning.clone().unwrap_or_default(),
            None => NOT_ANSWERED.to_owned(),
        };
        checks.push(Check::with(
            scored_text(item, raw),
            !missed && raw >= PASSING_RAW,
            reasoning,
        ));
    }
    let ids = answer.checks.iter().map(|check| check.id.as_str());
    let mut details = rubric_details(answer.overall_reasoning, unknown(ids, items));
    details.insert("raw_scores".into(), Value::Object(raw_scores));
    Ok(rubric_outcome(&weighted, checks, under_gate, details))
}

/// `<id>: <outcome> - Score: <raw>/10 (<the band's outcome>)` (`<id> - Score: ...` without an
/// outcome).
fn scored_text(item: &RubricItem, raw: f64) -> String {
    let band = item
        .score_ranges
        .iter()
        .find(|range| raw >= f64::from(range.lo) && raw <= f64::from(range.hi))
        .map_or("", |range| range.outcome.as_str());
    if item.outcome.is_empty() {
        format!("{} - Score: {raw}/10 ({band})", item.id)
    } else {
        format!("{}: {} - Score: {raw}/10 ({band})", item.id, item.outcome)
    }
}

/// Reads the judge's freeform answer `text`: a score in 0..=1 and its own checks.
pub(crate) fn read_freeform(text: &str) -> Result<GraderOutcome, AnswerError> {
    let answer: FreeformAnswer = parse(text)?;
    let mut checks: Vec<Check> = answer
        .assertions
        .into_iter()
        .map(|a| Check {
            text: a.text,
            passed: a.passed,
            evidence: a.evidence,
        })
        .collect();
    if checks.is_empty() {
        checks.push(Check::new(
            "the judge's score",
            super::clamp(answer.score) >= PASS_SCORE,
        ));
    }
    let outcome = GraderOutcome::scored(answer.score, checks);
    Ok(match answer.details {
        Some(details) if !details.is_empty() => outcome.with_details(Value::Object(details)),
        _ => outcome,
    })
}

/// The evidence of an item the judge left out.
const NOT_ANSWERED: &str = "the judge did not answer for it";

/// The answer's ids that no item has.
fn unknown<'a>(ids: impl Iterator<Item = &'a str>, items: &[RubricItem]) -> Vec<&'a str> {
    ids.filter(|id| !items.iter().any(|item| item.id == *id))
        .collect()
}

fn rubric_details(overall: Option<String>, unknown: Vec<&str>) -> Map<String, Value> {
    let mut details = Map::new();
    if let Some(reasoning) = overall {
        details.insert("overall_reasoning".into(), Value::String(reasoning));
    }
    if !unknown.is_empty() {
        details.insert("unknown_ids".into(), unknown.into());
    }
    details
}

/// The weighted mean of `weighted` (0 when the weights sum to 0), failed when `forced_fail`.
fn rubric_outcome(
    weighted: &[(f64, f64)],
    checks: Vec<Check>,
    forced_fail: bool,
    details: Map<String, Value>,
) -> GraderOutcome {
    let score = crate::figures::weighted_mean(weighted).unwrap_or(0.0);
    let mut outcome = GraderOutcome::scored(score, checks);
    if forced_fail {
        outcome.verdict = Verdict::Fail;
    }
    if !details.is_empty() {
        outcome = outcome.with_details(Value::Object(details));
    }
    outcome
}

/// The JSON object of `text`, read as `T`.
fn parse<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, AnswerError> {
    let json = json_object(text).ok_or_else(|| AnswerError::NoObject {
        head: super::first_chars(text, 200).to_owned(),
    })?;
    serde_json::from_str(json).map_err(AnswerError::NotTheObject)
}

/// Why the judge's answer cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AnswerError {
    /// No `{`…`}` in it.
    #[error("the judge's answer holds no JSON object: `{head}`")]
    NoObject {
        /// Its first 200 characters.
        head: String,
    },
    /// The object is not the one the prompt asked for.
    #[error("the judge's answer is not the documented object: {0}")]
    NotTheObject(#[source] serde_json::Error),
    /// A scored item's score is not an integer in 0..=10.
    #[error("the judge's score for `{id}` must be an integer from 0 to 10, found {score}")]
    BadScore { id: String, score: f64 },
}

/// The first `{` to the last `}` of `text`, if any.
fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (end > start).then(|| &text[start..=end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::spec::ScoreRange;
    use crate::grade::test_support::{checklist, item};

    #[test]
    fn the_score_is_the_satisfied_weight() {
        let answer = "Here is my verdict:\n```json\n{\"checks\": [\
            {\"id\": \"rubric-1\", \"satisfied\": true, \"reasoning\": \"says so\"},\
            {\"id\": \"rubric-2\", \"satisfied\": false, \"reasoning\": \"a test fails\"}],\
            \"overall_reasoning\": \"close\"}\n```";
        let outcome = read_answer(answer, &checklist()).unwrap();
        assert_eq!(outcome.score, 0.25);
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!(outcome.checks[0].passed && !outcome.checks[1].passed);
        assert_eq!(outcome.checks[1].evidence.as_deref(), Some("a test fails"));
        assert_eq!(outcome.details.unwrap()["overall_reasoning"], "close");
    }

    #[test]
    fn a_missed_required_item_fails_whatever_the_score() {
        let items = vec![
            item("a", "required one", 1.0, true),
            item("b", "heavy one", 9.0, false),
        ];
        let answer =
            r#"{"checks": [{"id": "a", "satisfied": false}, {"id": "b", "satisfied": true}]}"#;
        let outcome = read_answer(answer, &items).unwrap();
        assert_eq!(outcome.score, 0.9);
        assert_eq!(outcome.verdict, Verdict::Fail);
        let answer =
            r#"{"checks": [{"id": "a", "satisfied": true}, {"id": "b", "satisfied": true}]}"#;
        let outcome = read_answer(answer, &items).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
    }

    #[test]
    fn the_largest_weights_a_suite_may_give_still_average() {
        let items = vec![
            item("a", "one", f64::MAX, false),
            item("b", "two", f64::MAX, false),
            item("c", "three", f64::MAX, false),
        ];
        let answer = r#"{"checks": [{"id": "a", "satisfied": true}, {"id": "b", "satisfied": true}, {"id": "c", "satisfied": false}]}"#;
        let outcome = read_answer(answer, &items).unwrap();
        assert!(
            (outcome.score - 2.0 / 3.0).abs() < 1e-12,
            "{}",
            outcome.score
        );
    }

    #[test]
    fn left_out_and_unknown_ids_are_reported() {
        let answer = r#"{"checks": [{"id": "rubric-2", "satisfied": true}, {"id": "rubric-9", "satisfied": true}]}"#;
        let outcome = read_answer(answer, &checklist()).unwrap();
        assert!(!outcome.checks[0].passed);
        assert_eq!(
            outcome.checks[0].evidence.as_deref(),
            Some("the judge did not answer for it")
        );
        assert_eq!(outcome.details.unwrap()["unknown_ids"][0], "rubric-9");
        let zero = vec![item("z", "weightless", 0.0, false)];
        let outcome = read_answer(r#"{"checks": [{"id": "z", "satisfied": true}]}"#, &zero);
        assert_eq!(outcome.unwrap().score, 0.0);
    }

    #[test]
    fn answers_that_are_not_the_object_are_errors() {
        let error = read_answer("I think it is fine.", &checklist())
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "the judge's answer holds no JSON object: `I think it is fine.`"
        );
        let error = read_answer(r#"{"score": 1}"#, &checklist())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "the judge's answer is not the documented object: missing field `checks`"
            ),
            "{error}"
        );
        let error = read_answer(r#"{"checks": [{"id": 3}]}"#, &checklist())
            .unwrap_err()
            .to_string();
        assert!(error.contains("invalid type"), "{error}");
    }

    fn banded(id: &str, weight: f64) -> RubricItem {
        RubricItem {
            weight,
            required: false,
            score_ranges: vec![
                ScoreRange {
                    lo: 0,
                    hi: 6,
                    outcome: "weak".into(),
                },
                ScoreRange {
                    lo: 7,
                    hi: 10,
                    outcome: "strong".into(),
                },
            ],
            ..RubricItem::checklist(id, format!("{id} quality"))
        }
    }

    #[test]
    fn scored_items_average_score_over_ten_and_pass_their_check_from_seven() {
        let items = [banded("a", 1.0), banded("b", 3.0)];
        let answer = r#"Scores: {"checks": [{"id": "a", "score": 10, "reasoning": "great"},
            {"id": "b", "score": 6}], "overall_reasoning": "ok"}"#;
        let outcome = read_scored(answer, &items).unwrap();
        assert!((outcome.score - 0.7).abs() < 1e-12, "{}", outcome.score);
        assert_eq!(outcome.verdict, Verdict::Fail, "0.7 < 0.8");
        assert_eq!(
            outcome.checks[0].text,
            "a: a quality - Score: 10/10 (strong)"
        );
        assert!(outcome.checks[0].passed);
        assert_eq!(outcome.checks[1].text, "b: b quality - Score: 6/10 (weak)");
        assert!(!outcome.checks[1].passed);
        let details = outcome.details.unwrap();
        assert_eq!(details["raw_scores"]["b"], 6);
        assert_eq!(details["overall_reasoning"], "ok");
    }

    #[test]
    fn a_scored_item_under_its_gate_fails_the_grader() {
        let mut gated = banded("a", 1.0);
        gated.min_score = Some(0.9);
        let answer = r#"{"checks": [{"id": "a", "score": 8}, {"id": "b", "score": 10}]}"#;
        let outcome = read_scored(answer, &[gated.clone(), banded("b", 9.0)]).unwrap();
        assert!((outcome.score - 0.98).abs() < 1e-12, "{}", outcome.score);
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!(!outcome.checks[0].passed, "8/10 is under min_score 0.9");
        // `required` without `min_score` gates at 10/10.
        gated.min_score = None;
        gated.required = true;
        let outcome = read_scored(answer, &[gated, banded("b", 9.0)]).unwrap();
        assert_eq!(outcome.verdict, Verdict::Fail);
        let answer = r#"{"checks": [{"id": "a", "score": 8}]}"#;
        let outcome = read_scored(answer, &[banded("a", 1.0)]).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (0.8, Verdict::Pass));
    }

    #[test]
    fn a_scored_answer_needs_integer_scores_from_0_to_10() {
        let error = read_scored(
            r#"{"checks": [{"id": "a", "score": 7.5}]}"#,
            &[banded("a", 1.0)],
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "the judge's score for `a` must be an integer from 0 to 10, found 7.5"
        );
        assert!(
            read_scored(
                r#"{"checks": [{"id": "a", "score": 11}]}"#,
                &[banded("a", 1.0)]
            )
            .is_err()
        );
        let unnamed = RubricItem {
            outcome: String::new(),
            ..banded("a", 1.0)
        };
        let outcome = read_scored(r#"{"checks": []}"#, &[unnamed]).unwrap();
        assert_eq!(outcome.checks[0].text, "a - Score: 0/10 (weak)");
        assert_eq!(outcome.checks[0].evidence.as_deref(), Some(NOT_ANSWERED));
        assert_eq!(outcome.score, 0.0);
    }

    #[test]
    fn a_freeform_answer_is_its_score_and_assertions() {
        let answer = "```json\n{\"score\": 0.9, \"assertions\": [{\"text\": \"polite\", \"passed\": true, \"evidence\": \"says please\"}, {\"text\": \"brief\", \"passed\": false}], \"details\": {\"tone\": 4}}\n```";
        let outcome = read_freeform(answer).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (0.9, Verdict::Pass));
        assert_eq!(outcome.checks.len(), 2);
        assert_eq!(outcome.checks[0].evidence.as_deref(), Some("says please"));
        assert_eq!(outcome.details.unwrap()["tone"], 4);
        let outcome = read_freeform(r#"{"score": 1.7}"#).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(outcome.checks, [Check::new("the judge's score", true)]);
        let outcome = read_freeform(r#"{"score": 0.3, "details": {}}"#).unwrap();
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert_eq!(outcome.details, None);
        let error = read_freeform(r#"{"checks": []}"#).unwrap_err().to_string();
        assert!(error.contains("missing field `score`"), "{error}");
    }
}
