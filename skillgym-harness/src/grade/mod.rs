//! Graders of declarative cases (agentv's `assertions:`): a score in 0..=1, a verdict and
//! evidence per grader, and the case's score from them.
//!
//! [`grade`] evaluates one [`GraderSpec`] against one attempt ([`GradeInput`]) and never
//! fails: a grader that cannot run (a regex that does not compile, a command that does not
//! start, a timeout) scores 0 with a failed check `Grader '<name>' failed: <why>`.
//! [`score::score_case`] turns the outcomes into the case's score and verdict.
//!
//! | module | graders | verdict of the grader |
//! |---|---|---|
//! | [`text`] | `contains`, `icontains`, `contains-any`/`-all` and their `i` forms, `starts-with`, `ends-with`, `equals`, `regex`, `is-json` | binary: pass iff score 1 |
//! | [`metrics`] | `execution-metrics` (score = checks passed / checks), `token-usage`, `latency`, `cost` (binary) | `score >= 0.8` |
//! | [`trajectory`] | `tool-trajectory` (`any_order`, `in_order`, `exact`, `subset`, `superset`) | `score >= 0.8` |
//! | [`skill_trigger`] | `skill-trigger`, on the report's skill detections (failed loads never count) | binary |
//! | [`code`] | `code-grader`: a command fed one JSON document on stdin | `score >= 0.8` |
//! | [`judge`], [`answer`], [`template`] | rubrics (plain strings, `criteria`, checklist or `score_ranges`) and `llm-grader` (custom `prompt`, or bare on the case's `criteria`): the judge's prompt and how its answer is scored | checklist: fail when a required item is missed, else `score >= 0.8`; scored: fail under an item's gate, else `score >= 0.8`; freeform: `score >= 0.8`. Without a judge ([`GradeInput::judge`]) the grader is [`Verdict::Skip`]ped (a skipped grader does not count in the case's score) |
//! | [`composite`] | `composite`: its members graded as above, combined by `weighted_average` or `threshold` | `score >= 0.8`, or `threshold`'s own |
//! | [`field_accuracy`] | `field-accuracy`: fields of the JSON answer against the expected output's (`exact`, `numeric_tolerance`, `date`) | `score >= 0.8` |
//!
//! `negate: true` is applied after the grader ran (agentv §3.2): score `1 - s`, pass and fail
//! swap (skip stays), every check's `passed` flips and its evidence gets the prefix
//! `[Negated] `. A grader that errored is not negated: an error never becomes a pass.
//!
//! Grading is synchronous and may block (the code grader waits for its command); from async
//! code call it through `spawn_blocking`.

pub(crate) mod answer;
pub(crate) mod code;
pub(crate) mod composite;
pub(crate) mod field_accuracy;
pub(crate) mod judge;
pub(crate) mod metrics;
pub(crate) mod score;
pub(crate) mod skill_trigger;
pub(crate) mod spec;
pub(crate) mod template;
pub(crate) mod text;
pub(crate) mod trajectory;

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use skillgym::SessionReport;

use crate::oneshot::RunError;
use code::CodeError;
use judge::{AskError, JudgeError};
use spec::{GraderKind, GraderSpec};
use text::TextError;
use trajectory::EmptyList;

/// The verdict of a grader with a continuous score (agentv's hard-coded default).
pub(crate) const PASS_SCORE: f64 = 0.8;

/// What a grader sees of one attempt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GradeInput<'a> {
    /// The normalized session: events, tool calls, commands, skills, usage, cost.
    pub(crate) report: &'a SessionReport,
    /// The final answer the text graders read (normally `report.final_output()`).
    pub(crate) output: &'a str,
    /// How long the agent session took, when known.
    pub(crate) duration: Option<Duration>,
    /// The attempt's workspace (the code grader's default `cwd`).
    pub(crate) workspace: Option<&'a Path>,
    /// A replayed attempt's recorded workspace that no longer exists (replay does not
    /// recreate workspaces) or that is not one skillgym made (`workspace::recorded`), for
    /// graders that need one to say so.
    pub(crate) workspace_gone: Option<&'a Path>,
    /// The attempt's artifact directory (the code grader's stderr log goes there).
    pub(crate) artifact_dir: Option<&'a Path>,
    /// The case directory (relative paths of the case resolve against it).
    pub(crate) case_dir: &'a Path,
    /// The case's `criteria` (a string, or null).
    pub(crate) criteria: &'a Value,
    /// The case's `expected_output` (a string or messages, or null).
    pub(crate) expected_output: &'a Value,
    /// The case's `metadata` (or null).
    pub(crate) metadata: &'a Value,
    /// The case's `input` (a string or messages).
    pub(crate) input: &'a Value,
    /// The case's timeout: the code grader's, unless it sets its own.
    pub(crate) timeout: Duration,
    /// Who answers rubric prompts; `None`: rubrics are skipped (no judge configured).
    pub(crate) judge: Option<&'a dyn Judge>,
}

/// Sends a rubric prompt to a judge and returns its answer's text.
pub(crate) trait Judge: std::fmt::Debug {
    /// Asks the judge; `grader` names the rubric grader (for the judge session's artifacts).
    fn ask(&self, grader: &str, prompt: &str) -> Result<String, AskError>;
}

static NULL: Value = Value::Null;

impl<'a> GradeInput<'a> {
    /// The input for `report`: its final output and duration, no workspace nor artifact
    /// directory, every case value null.
    pub(crate) fn new(report: &'a SessionReport, case_dir: &'a Path, timeout: Duration) -> Self {
        GradeInput {
            report,
            output: report.final_output(),
            duration: report.timing.duration_ms.map(Duration::from_millis),
            workspace: None,
            workspace_gone: None,
            artifact_dir: None,
            case_dir,
            criteria: &NULL,
            expected_output: &NULL,
            metadata: &NULL,
            input: &NULL,
            timeout,
            judge: None,
        }
    }
}

/// A grader's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Verdict {
    /// The grader is satisfied.
    Pass,
    /// It is not.
    Fail,
    /// It did not grade (it does not count in the case's score).
    Skip,
}

/// One thing a grader checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Check {
    /// What was checked, in words.
    pub(crate) text: String,
    /// Whether it held.
    pub(crate) passed: bool,
    /// What was observed, when it helps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) evidence: Option<String>,
}

impl Check {
    /// A check without evidence.
    pub(crate) fn new(text: impl Into<String>, passed: bool) -> Self {
        Check {
            text: text.into(),
            passed,
            evidence: None,
        }
    }

    /// A check with evidence.
    pub(crate) fn with(text: impl Into<String>, passed: bool, evidence: impl Into<String>) -> Self {
        Check {
            text: text.into(),
            passed,
            evidence: Some(evidence.into()),
        }
    }
}

/// What one grader concluded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GraderOutcome {
    /// In 0..=1.
    pub(crate) score: f64,
    pub(crate) verdict: Verdict,
    pub(crate) checks: Vec<Check>,
    /// Grader-specific data (the code grader's `details`, counts of the metrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) details: Option<Value>,
    /// The grader could not grade ([`GraderOutcome::error`]): the attempt fails with origin
    /// `grader-error` whatever its score.
    #[serde(skip)]
    pub(crate) error: bool,
}

impl GraderOutcome {
    /// A binary outcome: score 1 and pass when every check passed, else 0 and fail.
    pub(crate) fn binary(checks: Vec<Check>) -> Self {
        let passed = checks.iter().all(|check| check.passed);
        GraderOutcome {
            score: if passed { 1.0 } else { 0.0 },
            verdict: if passed { Verdict::Pass } else { Verdict::Fail },
            checks,
            details: None,
            error: false,
        }
    }

    /// A scored outcome: `score` clamped to 0..=1, pass at [`PASS_SCORE`].
    pub(crate) fn scored(score: f64, checks: Vec<Check>) -> Self {
        let score = clamp(score);
        GraderOutcome {
            score,
            verdict: if score >= PASS_SCORE {
                Verdict::Pass
            } else {
                Verdict::Fail
            },
            checks,
            details: None,
            error: false,
        }
    }

    /// Score = checks passed / checks (0 without checks), pass at [`PASS_SCORE`].
    pub(crate) fn fraction(checks: Vec<Check>) -> Self {
        let passed = checks.iter().filter(|check| check.passed).count();
        let score = if checks.is_empty() {
            0.0
        } else {
            passed as f64 / checks.len() as f64
        };
        GraderOutcome::scored(score, checks)
    }

    /// A grader that did not grade.
    pub(crate) fn skip(why: impl Into<String>) -> Self {
        GraderOutcome {
            score: 0.0,
            verdict: Verdict::Skip,
            checks: vec![Check::new(why, false)],
            details: None,
            error: false,
        }
    }

    /// The outcome of a grader that could not run.
    pub(crate) fn error(name: &str, error: &GradeError) -> Self {
        GraderOutcome {
            score: 0.0,
            verdict: Verdict::Fail,
            checks: vec![Check::new(
                format!("Grader '{name}' failed: {error}"),
                false,
            )],
            details: None,
            error: true,
        }
    }

    /// This outcome with `details`.
    pub(crate) fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// The first `n` characters of `text` (all of it when shorter).
pub(crate) fn first_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `score` in 0..=1 (NaN counts as 0).
pub(crate) fn clamp(score: f64) -> f64 {
    if score.is_nan() {
        0.0
    } else {
        score.clamp(0.0, 1.0)
    }
}

/// Why a grader could not run, one variant per family; `Display` is what follows
/// "Grader 'NAME' failed: ".
#[derive(Debug, thiserror::Error)]
pub(crate) enum GradeError {
    /// A text grader: its pattern or flags are refused.
    #[error(transparent)]
    Text(#[from] TextError),
    /// A trajectory grader with nothing to expect.
    #[error(transparent)]
    Trajectory(#[from] EmptyList),
    /// A code grader's command did not run to completion.
    #[error(transparent)]
    Command(#[from] RunError),
    /// A code grader: no working directory, or its output is not a result.
    #[error(transparent)]
    Code(#[from] CodeError),
    /// A rubric grader's judge could not be asked, or its answer cannot be read.
    #[error(transparent)]
    Judge(#[from] JudgeError),
}

/// Why a judged grader is skipped.
const NO_JUDGE: &str =
    "rubric grading needs a judge runner: name one with `judge:` in skillgym.yaml";

/// Evaluates `spec` against one attempt, applying `negate`. Never fails: an error is a failed
/// outcome naming the grader and the error.
pub(crate) fn grade(spec: &GraderSpec, input: &GradeInput<'_>) -> GraderOutcome {
    let graded = match &spec.kind {
        GraderKind::Contains { .. }
        | GraderKind::ContainsAny { .. }
        | GraderKind::ContainsAll { .. }
        | GraderKind::StartsWith { .. }
        | GraderKind::EndsWith { .. }
        | GraderKind::Equals { .. }
        | GraderKind::Regex { .. }
        | GraderKind::IsJson => text::grade(&spec.kind, input.output).map_err(GradeError::from),
        GraderKind::CodeGrader(code) => code::grade(&spec.name, code, input),
        GraderKind::ExecutionMetrics(limits) => Ok(metrics::execution_metrics(limits, input)),
        GraderKind::TokenUsage {
            max_total,
            max_input,
            max_output,
        } => Ok(metrics::token_usage(
            *max_total,
            *max_input,
            *max_output,
            input.report,
        )),
        GraderKind::Latency { threshold_ms } => Ok(metrics::latency(*threshold_ms, input.duration)),
        GraderKind::Cost { budget_usd } => Ok(metrics::cost(*budget_usd, input.report)),
        GraderKind::ToolTrajectory(trajectory) => {
            trajectory::grade(trajectory, input.report).map_err(GradeError::from)
        }
        GraderKind::SkillTrigger {
            skill,
            should_trigger,
        } => Ok(skill_trigger::grade(skill, *should_trigger, input.report)),
        GraderKind::Rubrics { items } => match input.judge {
            Some(judge) => judge::grade(&spec.name, items, input, judge).map_err(GradeError::from),
            None => Ok(GraderOutcome::skip(NO_JUDGE)),
        },
        GraderKind::LlmGrader(llm) => match input.judge {
            Some(judge) => {
                judge::grade_llm(&spec.name, llm, input, judge).map_err(GradeError::from)
            }
            None => Ok(GraderOutcome::skip(NO_JUDGE)),
        },
        GraderKind::Composite(composite) => composite::grade(&spec.name, composite, input),
        GraderKind::FieldAccuracy(fields) => Ok(field_accuracy::grade(fields, input)),
    };
    match graded {
        Ok(outcome) if spec.negate => negated(outcome),
        Ok(outcome) => outcome,
        Err(error) => GraderOutcome::error(&spec.name, &error),
    }
}

/// `outcome` negated: score `1 - s`, pass and fail swapped (skip stays), checks flipped with
/// their evidence prefixed `[Negated] `.
fn negated(mut outcome: GraderOutcome) -> GraderOutcome {
    if outcome.verdict == Verdict::Skip {
        return outcome;
    }
    outcome.score = clamp(1.0 - outcome.score);
    outcome.verdict = match outcome.verdict {
        Verdict::Pass => Verdict::Fail,
        Verdict::Fail => Verdict::Pass,
        Verdict::Skip => Verdict::Skip,
    };
    for check in &mut outcome.checks {
        check.passed = !check.passed;
        check.evidence = Some(match check.evidence.take() {
            Some(evidence) => format!("[Negated] {evidence}"),
            None => "[Negated]".to_owned(),
        });
    }
    outcome
}

/// Builders for the tests of the graders.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::Path;
    use std::time::Duration;

    use super::spec::{GraderKind, GraderSpec, RubricItem};

    /// A grader named `name` with the default common fields.
    pub(crate) fn spec(name: &str, kind: GraderKind) -> GraderSpec {
        GraderSpec {
            name: name.to_owned(),
            weight: 1.0,
            required: false,
            min_score: None,
            negate: false,
            kind,
        }
    }

    /// A case directory that no grader writes to.
    pub(crate) fn case_dir() -> &'static Path {
        Path::new("/nonexistent-case-dir")
    }

    /// The default timeout of the tests.
    pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

    /// A checklist rubric item.
    pub(crate) fn item(id: &str, outcome: &str, weight: f64, required: bool) -> RubricItem {
        RubricItem {
            weight,
            required,
            ..RubricItem::checklist(id, outcome)
        }
    }

    /// Two items: `rubric-1` (required, weight 1) and `rubric-2` (weight 3).
    pub(crate) fn checklist() -> Vec<RubricItem> {
        vec![
            item("rubric-1", "Names the root cause", 1.0, true),
            item("rubric-2", "Keeps the tests green", 3.0, false),
        ]
    }
}

#[cfg(test)]
mod tests {
    use skillgym::SessionReport;

    use super::spec::GraderKind;
    use super::test_support::{TIMEOUT, case_dir, spec};
    use super::*;

    fn contains(value: &str) -> GraderSpec {
        spec(
            "contains",
            GraderKind::Contains {
                value: value.into(),
                ignore_case: false,
            },
        )
    }

    #[test]
    fn negate_swaps_score_verdict_checks_and_prefixes_evidence() {
        let report = SessionReport::default().with_final_output("hello world");
        let input = GradeInput::new(&report, case_dir(), TIMEOUT);
        let plain = grade(&contains("hello"), &input);
        assert_eq!((plain.score, plain.verdict), (1.0, Verdict::Pass));

        let mut negated = contains("hello");
        negated.negate = true;
        let outcome = grade(&negated, &input);
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert!(!outcome.checks[0].passed);
        assert!(
            outcome.checks[0]
                .evidence
                .as_deref()
                .unwrap()
                .starts_with("[Negated]")
        );

        let mut absent = contains("absent");
        absent.negate = true;
        let outcome = grade(&absent, &input);
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert!(outcome.checks[0].passed);
    }

    #[test]
    fn negate_keeps_a_fractional_score_complement_and_leaves_skip_alone() {
        // The verdict is swapped, not recomputed from the score (agentv §3.2).
        let outcome = negated(GraderOutcome::scored(0.25, vec![]));
        assert_eq!((outcome.score, outcome.verdict), (0.75, Verdict::Pass));
        let outcome = negated(GraderOutcome::scored(0.9, vec![]));
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!((outcome.score - 0.1).abs() < 1e-12);
        let skipped = negated(GraderOutcome::skip("no judge"));
        assert_eq!(skipped.verdict, Verdict::Skip);
        assert_eq!(skipped.checks[0].evidence, None);
    }

    #[test]
    fn an_error_scores_zero_names_the_grader_and_is_never_negated() {
        let report = SessionReport::default().with_final_output("x");
        let input = GradeInput::new(&report, case_dir(), TIMEOUT);
        let mut bad = spec(
            "bad-regex",
            GraderKind::Regex {
                pattern: "(".into(),
                flags: String::new(),
            },
        );
        bad.negate = true;
        let outcome = grade(&bad, &input);
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        assert!(
            outcome.checks[0]
                .text
                .starts_with("Grader 'bad-regex' failed: "),
            "{:?}",
            outcome.checks
        );
    }

    #[test]
    fn rubrics_are_skipped_without_a_judge() {
        let report = SessionReport::default();
        let input = GradeInput::new(&report, case_dir(), TIMEOUT);
        let outcome = grade(
            &spec("rubrics", GraderKind::Rubrics { items: vec![] }),
            &input,
        );
        assert_eq!(outcome.verdict, Verdict::Skip);
        assert_eq!(
            outcome.checks[0].text,
            "rubric grading needs a judge runner: name one with `judge:` in skillgym.yaml"
        );
    }

    /// A judge that answers from a script and remembers the prompts it was asked.
    #[derive(Debug)]
    struct Scripted {
        /// The answer, or the message of the judge runner `claude`'s failure.
        answer: Result<String, &'static str>,
        asked: std::cell::RefCell<Vec<(String, String)>>,
    }

    impl Judge for Scripted {
        fn ask(&self, grader: &str, prompt: &str) -> Result<String, AskError> {
            self.asked
                .borrow_mut()
                .push((grader.to_owned(), prompt.to_owned()));
            self.answer.clone().map_err(|message| AskError::Failed {
                runner: "claude".to_owned(),
                message: message.to_owned(),
                artifacts: None,
            })
        }
    }

    fn rubric(id: &str, required: bool) -> spec::RubricItem {
        spec::RubricItem {
            required,
            ..spec::RubricItem::checklist(id, format!("outcome {id}"))
        }
    }

    #[test]
    fn rubrics_are_graded_by_the_judge_and_negate_applies() {
        let report = SessionReport::default();
        let judge = Scripted {
            answer: Ok(
                r#"Sure. {"checks": [{"id": "a", "satisfied": true, "reasoning": "yes"},
                {"id": "b", "satisfied": false, "reasoning": "no"}]}"#
                    .to_owned(),
            ),
            asked: Default::default(),
        };
        let input = GradeInput {
            judge: Some(&judge),
            ..GradeInput::new(&report, case_dir(), TIMEOUT)
        };
        let mut rubrics = spec(
            "quality",
            GraderKind::Rubrics {
                items: vec![rubric("a", false), rubric("b", false)],
            },
        );
        let outcome = grade(&rubrics, &input);
        assert_eq!((outcome.score, outcome.verdict), (0.5, Verdict::Fail));
        assert_eq!(outcome.checks[1].evidence.as_deref(), Some("no"));
        let asked = judge.asked.borrow().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].0, "quality");
        assert!(
            asked[0].1.contains("- a: outcome a\n- b: outcome b"),
            "{}",
            asked[0].1
        );
        rubrics.negate = true;
        assert_eq!(grade(&rubrics, &input).score, 0.5);
    }

    #[test]
    fn an_llm_grader_is_skipped_without_a_judge_and_asked_with_one() {
        let report = SessionReport::default().with_final_output("x");
        let tone = spec(
            "tone",
            GraderKind::LlmGrader(spec::LlmGraderSpec {
                prompt: Some(spec::JudgePrompt::Inline("Polite".into())),
                items: vec![],
            }),
        );
        let input = GradeInput::new(&report, case_dir(), TIMEOUT);
        assert_eq!(grade(&tone, &input).verdict, Verdict::Skip);
        let judge = Scripted {
            answer: Ok(r#"{"score": 0.9}"#.to_owned()),
            asked: Default::default(),
        };
        let input = GradeInput {
            judge: Some(&judge),
            ..input
        };
        let outcome = grade(&tone, &input);
        assert_eq!((outcome.score, outcome.verdict), (0.9, Verdict::Pass));
        assert_eq!(judge.asked.borrow()[0].0, "tone");
        let fields = spec(
            "fields",
            GraderKind::FieldAccuracy(spec::FieldAccuracySpec {
                fields: vec![],
                all_or_nothing: false,
            }),
        );
        assert_eq!(
            grade(&fields, &input).checks[0].text,
            "Failed to parse candidate answer as JSON"
        );
    }

    #[test]
    fn a_judge_that_fails_or_answers_badly_fails_the_grader() {
        let report = SessionReport::default();
        let items = GraderKind::Rubrics {
            items: vec![rubric("a", true)],
        };
        for (answer, expected) in [
            (
                Err("timed out"),
                "Grader 'quality' failed: the judge runner `claude` failed: timed out",
            ),
            (
                Ok("done".to_owned()),
                "Grader 'quality' failed: the judge's answer holds no JSON object: `done`",
            ),
        ] {
            let judge = Scripted {
                answer,
                asked: Default::default(),
            };
            let input = GradeInput {
                judge: Some(&judge),
                ..GradeInput::new(&report, case_dir(), TIMEOUT)
            };
            let mut quality = spec("quality", items.clone());
            let outcome = grade(&quality, &input);
            assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
            assert_eq!(outcome.checks[0].text, expected);
            // An error is never negated into a pass.
            quality.negate = true;
            assert_eq!(grade(&quality, &input).verdict, Verdict::Fail);
        }
    }

    #[test]
    fn clamp_bounds_the_score_and_maps_nan_to_zero() {
        assert_eq!(clamp(1.7), 1.0);
        assert_eq!(clamp(-0.2), 0.0);
        assert_eq!(clamp(f64::NAN), 0.0);
        assert_eq!(clamp(0.5), 0.5);
    }

    #[test]
    fn fraction_is_passed_over_total_and_zero_without_checks() {
        let outcome = GraderOutcome::fraction(vec![
            Check::new("a", true),
            Check::new("b", true),
            Check::new("c", true),
            Check::new("d", false),
            Check::new("e", true),
        ]);
        assert_eq!((outcome.score, outcome.verdict), (0.8, Verdict::Pass));
        assert_eq!(GraderOutcome::fraction(vec![]).score, 0.0);
    }
}
