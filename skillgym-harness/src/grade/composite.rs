//! `composite`: every member is graded as a grader of its own (its `negate` applied, an error
//! a failed member), then combined (agentv's `composite.ts`).
//!
//! | aggregator | score | verdict |
//! |---|---|---|
//! | `weighted_average` | mean of the members' scores, weighted by `weights[name]`, else the member's own `weight` (default 1) | pass at [`PASS_SCORE`](super::PASS_SCORE) |
//! | `threshold` | members that passed / members graded | pass iff score >= `threshold`; the first check says `N/M members passed (threshold: T)` |
//! | `code-grader` | its command (`sh -c`, in the suite's directory, the case's timeout) reads `{"results": {<member>: {score, verdict, checks, details}}}` on stdin; its stdout is read as a code grader's | as a code grader's |
//! | `llm-grader` | the judge reads its prompt (agentv's default without one) with `{{EVALUATOR_RESULTS_JSON}}` replaced by those results and answers freeform; without a judge the composite is skipped | pass at `PASS_SCORE` |
//!
//! Skipped members (a judged member without a judge) are left out; when all are, the composite
//! is skipped. With a `code-grader` or `llm-grader` aggregator the checks are the aggregator's,
//! then every member's. A member that could not grade makes the composite one that could not grade
//! (the attempt fails with origin `grader-error`), whatever the aggregate. The checks are the members' checks, each prefixed `[<member>] `; the details
//! list every member's `name`, `type`, `score`, `verdict` (and `weight` for a weighted
//! average).

use serde_json::{Value, json};

use super::code::{self, CodeError};
use super::spec::{Aggregator, CompositeSpec, GraderSpec, JudgePrompt};
use super::{Check, GradeError, GradeInput, GraderOutcome, Verdict, judge};
use crate::oneshot::run;

/// agentv's prompt of an `llm-grader` aggregator without its own.
const DEFAULT_PROMPT: &str = "Review the following evaluation results:\n{{EVALUATOR_RESULTS_JSON}}\n\n\
    Decide the final score and verdict based on all grader results.";

/// Where the members' results go in an aggregator's prompt.
const RESULTS: &str = "{{EVALUATOR_RESULTS_JSON}}";

/// Grades every member of `spec` and combines their outcomes; `name` is the composite's.
pub(crate) fn grade(
    name: &str,
    spec: &CompositeSpec,
    input: &GradeInput<'_>,
) -> Result<GraderOutcome, GradeError> {
    let graded: Vec<(&GraderSpec, GraderOutcome)> = spec
        .members
        .iter()
        .map(|member| (member, super::grade(member, input)))
        .collect();
    let outcome = match &spec.aggregator {
        Aggregator::Command { command, cwd } => {
            let document = json!({ "results": results(&graded) });
            let bytes = serde_json::to_vec(&document).map_err(CodeError::Input)?;
            let ran = run(&command.argv(), cwd, &[], bytes, input.timeout)?;
            if ran.timed_out {
                let stderr = code::stderr_note(&ran.stderr);
                return Err(CodeError::TimedOut {
                    timeout: input.timeout,
                    stderr,
                }
                .into());
            }
            code::interpret(&ran)?
        }
        Aggregator::Judge { prompt } => {
            let Some(judge) = input.judge else {
                return Ok(GraderOutcome::skip(super::NO_JUDGE));
            };
            let template = match prompt {
                Some(JudgePrompt::Inline(text) | JudgePrompt::File { text, .. }) => text,
                None => DEFAULT_PROMPT,
            };
            let json = serde_json::to_string_pretty(&results(&graded)).unwrap_or_default();
            judge::grade_freeform(name, &template.replace(RESULTS, &json), judge)?
        }
        _ => return Ok(flagged(combine(&spec.aggregator, &graded), &graded)),
    };
    let mut outcome = outcome.with_details(members(&spec.aggregator, &graded));
    outcome.checks.extend(prefixed(graded.iter()));
    Ok(flagged(outcome, &graded))
}

/// `outcome` marked as an error when a member could not grade.
fn flagged(mut outcome: GraderOutcome, graded: &[(&GraderSpec, GraderOutcome)]) -> GraderOutcome {
    outcome.error |= graded.iter().any(|(_, member)| member.error);
    outcome
}

/// `{<member>: {score, verdict, checks, details}}`.
fn results(graded: &[(&GraderSpec, GraderOutcome)]) -> Value {
    graded
        .iter()
        .map(|(member, outcome)| {
            let value = serde_json::to_value(outcome).unwrap_or(Value::Null);
            (member.name.clone(), value)
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Combines the members' outcomes by `aggregator`.
fn combine(aggregator: &Aggregator, graded: &[(&GraderSpec, GraderOutcome)]) -> GraderOutcome {
    let counted: Vec<&(&GraderSpec, GraderOutcome)> = graded
        .iter()
        .filter(|(_, outcome)| outcome.verdict != Verdict::Skip)
        .collect();
    if counted.is_empty() {
        let mut outcome = GraderOutcome::skip("every member of the composite was skipped");
        outcome.checks.extend(prefixed(graded.iter()));
        return outcome.with_details(members(aggregator, graded));
    }
    let mut checks = prefixed(counted.iter().copied());
    let outcome = match aggregator {
        Aggregator::WeightedAverage { .. }
        | Aggregator::Command { .. }
        | Aggregator::Judge { .. } => {
            let pairs: Vec<(f64, f64)> = counted
                .iter()
                .map(|(member, outcome)| (weight(aggregator, member), outcome.score))
                .collect();
            let score = crate::figures::weighted_mean(&pairs).unwrap_or(0.0);
            GraderOutcome::scored(score, checks)
        }
        Aggregator::Threshold { threshold } => {
            let passed = counted
                .iter()
                .filter(|(_, outcome)| outcome.verdict == Verdict::Pass)
                .count();
            let score = passed as f64 / counted.len() as f64;
            let pass = score >= *threshold;
            let summary = format!(
                "{passed}/{} members passed (threshold: {threshold})",
                counted.len()
            );
            checks.insert(0, Check::new(summary, pass));
            GraderOutcome {
                verdict: if pass { Verdict::Pass } else { Verdict::Fail },
                ..GraderOutcome::scored(score, checks)
            }
        }
    };
    outcome.with_details(members(aggregator, graded))
}

/// A member's weight in a weighted average: the aggregator's `weights[name]`, else its own.
fn weight(aggregator: &Aggregator, member: &GraderSpec) -> f64 {
    match aggregator {
        Aggregator::WeightedAverage { weights } => weights
            .iter()
            .find(|(name, _)| *name == member.name)
            .map_or(member.weight, |(_, w)| *w),
        _ => member.weight,
    }
}

fn prefixed<'a>(graded: impl Iterator<Item = &'a (&'a GraderSpec, GraderOutcome)>) -> Vec<Check> {
    graded
        .flat_map(|(member, outcome)| {
            outcome.checks.iter().map(|check| Check {
                text: format!("[{}] {}", member.name, check.text),
                ..check.clone()
            })
        })
        .collect()
}

/// `{"aggregator", "members": [{name, type, score, verdict, weight?}]}`.
fn members(aggregator: &Aggregator, graded: &[(&GraderSpec, GraderOutcome)]) -> Value {
    let (name, threshold) = match aggregator {
        Aggregator::WeightedAverage { .. } => ("weighted_average", None),
        Aggregator::Threshold { threshold } => ("threshold", Some(*threshold)),
        Aggregator::Command { .. } => ("code-grader", None),
        Aggregator::Judge { .. } => ("llm-grader", None),
    };
    let list: Vec<Value> = graded
        .iter()
        .map(|(member, outcome)| {
            let mut entry = json!({
                "name": member.name,
                "type": member.kind.type_name(),
                "score": outcome.score,
                "verdict": outcome.verdict,
            });
            if matches!(aggregator, Aggregator::WeightedAverage { .. }) {
                entry["weight"] = json!(weight(aggregator, member));
            }
            entry
        })
        .collect();
    let mut details = json!({"aggregator": name, "members": list});
    if let Some(threshold) = threshold {
        details["threshold"] = json!(threshold);
    }
    details
}

#[cfg(test)]
mod tests {
    use skillgym::SessionReport;

    use super::*;
    use crate::grade::spec::GraderKind;
    use crate::grade::test_support::{TIMEOUT, case_dir, spec};

    fn contains(name: &str, value: &str) -> GraderSpec {
        spec(
            name,
            GraderKind::Contains {
                value: value.into(),
                ignore_case: false,
            },
        )
    }

    fn composite(aggregator: Aggregator, members: Vec<GraderSpec>) -> CompositeSpec {
        CompositeSpec {
            members,
            aggregator,
        }
    }

    fn outcome_for(spec: &CompositeSpec, output: &str) -> GraderOutcome {
        let report = SessionReport::default().with_final_output(output);
        let input = GradeInput::new(&report, case_dir(), TIMEOUT);
        grade("gate", spec, &input).unwrap()
    }

    #[test]
    fn a_weighted_average_uses_the_aggregator_weights_then_the_members_own() {
        let mut heavy = contains("b", "absent");
        heavy.weight = 2.0;
        let spec = composite(
            Aggregator::WeightedAverage {
                weights: vec![("a".into(), 3.0)],
            },
            vec![contains("a", "hello"), heavy],
        );
        let outcome = outcome_for(&spec, "hello");
        assert_eq!((outcome.score, outcome.verdict), (0.6, Verdict::Fail));
        assert_eq!(outcome.checks[0].text, "[a] output contains \"hello\"");
        assert!(
            outcome.checks[1].text.starts_with("[b] "),
            "{:?}",
            outcome.checks
        );
        let details = outcome.details.unwrap();
        assert_eq!(details["aggregator"], "weighted_average");
        assert_eq!(details["members"][0]["weight"], 3.0);
        assert_eq!(details["members"][1]["weight"], 2.0);
        assert_eq!(details["members"][1]["verdict"], "fail");
        assert_eq!(details["members"][1]["type"], "contains");
    }

    #[test]
    fn a_threshold_counts_passing_members() {
        let members = vec![
            contains("a", "hello"),
            contains("b", "world"),
            contains("c", "absent"),
        ];
        let spec = composite(Aggregator::Threshold { threshold: 0.6 }, members.clone());
        let outcome = outcome_for(&spec, "hello world");
        assert!((outcome.score - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(outcome.verdict, Verdict::Pass);
        assert_eq!(
            outcome.checks[0],
            Check::new("2/3 members passed (threshold: 0.6)", true)
        );
        assert_eq!(outcome.details.unwrap()["threshold"], 0.6);
        let spec = composite(Aggregator::Threshold { threshold: 0.7 }, members);
        assert_eq!(outcome_for(&spec, "hello world").verdict, Verdict::Fail);
    }

    #[test]
    fn skipped_members_are_left_out_and_all_skipped_skips() {
        let judged = spec("judged", GraderKind::Rubrics { items: vec![] });
        let spec_one = composite(
            Aggregator::Threshold { threshold: 1.0 },
            vec![judged.clone(), contains("a", "hello")],
        );
        let outcome = outcome_for(&spec_one, "hello");
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(outcome.checks[0].text, "1/1 members passed (threshold: 1)");
        let all = composite(
            Aggregator::WeightedAverage { weights: vec![] },
            vec![judged],
        );
        let outcome = outcome_for(&all, "hello");
        assert_eq!(outcome.verdict, Verdict::Skip);
        assert_eq!(
            outcome.checks[0].text,
            "every member of the composite was skipped"
        );
    }

    #[test]
    fn a_member_is_negated_on_its_own() {
        let mut not_absent = contains("a", "absent");
        not_absent.negate = true;
        let spec = composite(
            Aggregator::WeightedAverage { weights: vec![] },
            vec![not_absent],
        );
        let outcome = outcome_for(&spec, "hello");
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
    }

    #[test]
    fn a_member_that_cannot_grade_makes_the_composite_an_error() {
        let broken = spec(
            "broken",
            GraderKind::Regex {
                pattern: "(".into(),
                flags: String::new(),
            },
        );
        let spec = composite(
            Aggregator::Threshold { threshold: 0.5 },
            vec![contains("a", "hello"), broken],
        );
        let outcome = outcome_for(&spec, "hello");
        assert_eq!(outcome.verdict, Verdict::Pass, "1/2 members passed");
        assert!(outcome.error);
        assert!(
            outcome.checks[2]
                .text
                .starts_with("[broken] Grader 'broken' failed: "),
            "{:?}",
            outcome.checks
        );
        assert!(
            !outcome_for(
                &composite(
                    Aggregator::Threshold { threshold: 0.5 },
                    vec![contains("a", "x")]
                ),
                "x"
            )
            .error
        );
    }

    #[test]
    fn a_command_aggregator_reads_the_results_on_stdin() {
        let dir = tempfile::tempdir().unwrap();
        let spec = composite(
            Aggregator::Command {
                // 0.9 when a member passed: the document is on stdin.
                command: crate::grade::spec::GraderCommand::Shell(
                    "if grep -q '\"results\".*\"verdict\":\"pass\"'; then echo '{\"score\": 0.9}'; else echo '{\"score\": 0.1}'; fi"
                        .into(),
                ),
                cwd: dir.path().to_path_buf(),
            },
            vec![contains("a", "hello"), contains("b", "absent")],
        );
        let outcome = outcome_for(&spec, "hello");
        assert_eq!((outcome.score, outcome.verdict), (0.9, Verdict::Pass));
        assert_eq!(outcome.details.unwrap()["aggregator"], "code-grader");
        let texts: Vec<&str> = outcome.checks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts[1..],
            [
                "[a] output contains \"hello\"",
                "[b] output contains \"absent\""
            ]
        );
        assert_eq!(outcome_for(&spec, "bye").score, 0.1);
    }

    /// A judge that answers `answer` and keeps the last prompt.
    #[derive(Debug)]
    struct Canned(&'static str, std::cell::RefCell<String>);

    impl crate::grade::Judge for Canned {
        fn ask(&self, _: &str, prompt: &str) -> Result<String, crate::grade::judge::AskError> {
            *self.1.borrow_mut() = prompt.to_owned();
            Ok(self.0.to_owned())
        }
    }

    #[test]
    fn a_judge_aggregator_reads_the_results_in_its_prompt() {
        let report = SessionReport::default().with_final_output("hello");
        let judge = Canned(r#"{"score": 0.75}"#, Default::default());
        let input = GradeInput {
            judge: Some(&judge),
            ..GradeInput::new(&report, case_dir(), TIMEOUT)
        };
        let spec = composite(
            Aggregator::Judge { prompt: None },
            vec![contains("a", "hello")],
        );
        let outcome = grade("gate", &spec, &input).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (0.75, Verdict::Fail));
        let asked = judge.1.borrow().clone();
        assert!(
            asked.starts_with("Review the following evaluation results:\n{\n  \"a\": {"),
            "{asked}"
        );
        assert!(
            asked.contains("\"score\": <number from 0.0 to 1.0>"),
            "{asked}"
        );
        let custom = composite(
            Aggregator::Judge {
                prompt: Some(JudgePrompt::Inline(
                    "Weigh: {{EVALUATOR_RESULTS_JSON}}".into(),
                )),
            },
            vec![contains("a", "hello")],
        );
        grade("gate", &custom, &input).unwrap();
        assert!(judge.1.borrow().starts_with("Weigh: {"));
        let no_judge = GradeInput::new(&report, case_dir(), TIMEOUT);
        assert_eq!(
            grade("gate", &spec, &no_judge).unwrap().verdict,
            Verdict::Skip
        );
    }
}
