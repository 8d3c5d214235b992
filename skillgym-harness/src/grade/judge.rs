//! Rubric grading by a judge: the prompt the judge runner is sent, and how its answer is read.
//! The prompt goes to a [`Judge`](super::Judge): in a run, a session of the runner that
//! `judge:` names (answered by the scripted model under `--mock`).
//!
//! | step | rule |
//! |---|---|
//! | prompt | the case's input, criteria and expected output, the agent's final answer, its commands (each with `(exit code N)` when the agent reported one) and tool calls (each capped), then the checklist: one line per item, `- <id>: <outcome>` |
//! | answer | one JSON object, `{"checks": [{"id", "satisfied", "reasoning"}], "overall_reasoning"}`; text around it (a code fence, a sentence) is ignored |
//! | an item the judge left out | not satisfied, "the judge did not answer for it" |
//! | an id the checklist does not have | ignored, named in the grader's details |
//! | score | satisfied weight / total weight (0 when the weights sum to 0) |
//! | verdict | fail when a required item is not satisfied, else pass at [`PASS_SCORE`](super::PASS_SCORE) |
//! | no JSON object, or `checks` missing or malformed | an error: the grader fails naming what was wrong |

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use skillgym::SessionEvent;

use super::spec::RubricItem;
use super::{Check, GradeInput, GraderOutcome, Verdict};

/// At most this many characters of each part of the transcript go into the prompt.
const PART_CAP: usize = 8_000;

/// At most this many commands and tool calls are listed.
const MAX_LISTED: usize = 50;

/// The prompt for the judge.
pub(crate) fn prompt(items: &[RubricItem], input: &GradeInput<'_>) -> String {
    let mut text = String::from(
        "You are grading a coding agent's work against a checklist. Judge only from the \
         material below.\n",
    );
    section(
        &mut text,
        "Task given to the agent",
        &value_text(input.input),
    );
    if !input.criteria.is_null() {
        section(&mut text, "Success criteria", &value_text(input.criteria));
    }
    if !input.expected_output.is_null() {
        section(
            &mut text,
            "Reference answer",
            &value_text(input.expected_output),
        );
    }
    section(&mut text, "The agent's final answer", input.output);
    let commands: Vec<String> = input
        .report
        .events
        .iter()
        .filter_map(command_line)
        .take(MAX_LISTED)
        .collect();
    if !commands.is_empty() {
        section(&mut text, "Commands the agent ran", &commands.join("\n"));
    }
    let tools: Vec<String> = input
        .report
        .tool_calls(None)
        .take(MAX_LISTED)
        .map(|event| serde_json::to_string(event).unwrap_or_default())
        .collect();
    if !tools.is_empty() {
        section(&mut text, "Tool calls", &tools.join("\n"));
    }
    text.push_str("\n## Checklist\n");
    for item in items {
        let _ = writeln!(text, "- {}: {}", item.id, item.outcome);
    }
    text.push_str(
        "\nAnswer with one JSON object and nothing else:\n\
         {\"checks\": [{\"id\": \"<checklist id>\", \"satisfied\": true, \"reasoning\": \"<one sentence>\"}], \
         \"overall_reasoning\": \"<one sentence>\"}\n\
         Give one entry per checklist id.\n",
    );
    text
}

/// A command as the judge sees it: its line, then `(exit code N)` when the agent reported one.
fn command_line(event: &SessionEvent) -> Option<String> {
    let SessionEvent::Command {
        command, exit_code, ..
    } = event
    else {
        return None;
    };
    Some(match exit_code {
        Some(code) => format!("{command} (exit code {code})"),
        None => command.clone(),
    })
}

fn section(text: &mut String, title: &str, body: &str) {
    let _ = write!(text, "\n## {title}\n{}\n", cap(body));
}

fn cap(body: &str) -> &str {
    match body.char_indices().nth(PART_CAP) {
        Some((end, _)) => &body[..end],
        None => body,
    }
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

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

/// Grades `items` by asking `judge` the [`prompt`] and reading its answer.
pub(crate) fn grade(
    name: &str,
    items: &[RubricItem],
    input: &GradeInput<'_>,
    judge: &dyn super::Judge,
) -> Result<GraderOutcome, JudgeError> {
    let answer = judge.ask(name, &prompt(items, input))?;
    Ok(read_answer(&answer, items)?)
}

/// Reads the judge's answer `text` against the checklist `items`.
pub(crate) fn read_answer(text: &str, items: &[RubricItem]) -> Result<GraderOutcome, AnswerError> {
    let json = json_object(text).ok_or_else(|| AnswerError::NoObject {
        head: cap_short(text).to_owned(),
    })?;
    let answer: Answer = serde_json::from_str(json).map_err(AnswerError::NotTheObject)?;
    let mut checks = Vec::with_capacity(items.len());
    let mut weighted = Vec::with_capacity(items.len());
    let mut required_missed = false;
    for item in items {
        let found = answer.checks.iter().find(|check| check.id == item.id);
        let satisfied = found.is_some_and(|check| check.satisfied);
        let reasoning = match found {
            Some(check) => check.reasoning.clone().unwrap_or_default(),
            None => "the judge did not answer for it".to_owned(),
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
    let unknown: Vec<&str> = answer
        .checks
        .iter()
        .map(|check| check.id.as_str())
        .filter(|id| !items.iter().any(|item| item.id == *id))
        .collect();
    let score = crate::figures::weighted_mean(&weighted).unwrap_or(0.0);
    let mut outcome = GraderOutcome::scored(score, checks);
    if required_missed {
        outcome.verdict = Verdict::Fail;
    }
    let mut details = serde_json::Map::new();
    if let Some(reasoning) = answer.overall_reasoning {
        details.insert("overall_reasoning".into(), Value::String(reasoning));
    }
    if !unknown.is_empty() {
        details.insert("unknown_ids".into(), unknown.into());
    }
    if !details.is_empty() {
        outcome = outcome.with_details(Value::Object(details));
    }
    Ok(outcome)
}

/// Why a rubric grader has no verdict: the judge was not asked, or its answer is unreadable.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JudgeError {
    /// The judge could not be asked.
    #[error(transparent)]
    Ask(#[from] AskError),
    /// Its answer is not the documented object.
    #[error(transparent)]
    Answer(#[from] AnswerError),
}

/// Why a [`Judge`](super::Judge) gave no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AskError {
    /// A file or directory of the judge's session cannot be made.
    #[error("cannot {verb} {}: {source}", path.display())]
    Io {
        /// `create` or `write`.
        verb: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// Under `--mock`, the judge runner's agent cannot use the scripted model server.
    #[error(
        "the judge runner `{runner}` ({agent}) cannot be pointed at the scripted model server of this --mock run"
    )]
    NoScriptedModel { runner: String, agent: String },
    /// The judge's session failed.
    #[error("the judge runner `{runner}` failed: {message}{}", artifacts_note(artifacts.as_deref()))]
    Failed {
        runner: String,
        /// The session's failure.
        message: String,
        /// Where the session's artifacts are, when it kept any.
        artifacts: Option<PathBuf>,
    },
}

/// ` (artifacts: DIR)`, or nothing.
fn artifacts_note(artifacts: Option<&std::path::Path>) -> String {
    artifacts.map_or_else(String::new, |dir| {
        format!(" (artifacts: {})", dir.display())
    })
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
    /// The object is not `{"checks": [...], ...}`.
    #[error("the judge's answer is not the documented object: {0}")]
    NotTheObject(#[source] serde_json::Error),
}

/// The first `{` to the last `}` of `text`, if any.
fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (end > start).then(|| &text[start..=end])
}

fn cap_short(text: &str) -> &str {
    match text.char_indices().nth(200) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use skillgym::{SessionEvent, SessionReport};

    use super::*;

    fn item(id: &str, outcome: &str, weight: f64, required: bool) -> RubricItem {
        RubricItem {
            id: id.to_owned(),
            outcome: outcome.to_owned(),
            weight,
            required,
        }
    }

    fn checklist() -> Vec<RubricItem> {
        vec![
            item("rubric-1", "Names the root cause", 1.0, true),
            item("rubric-2", "Keeps the tests green", 3.0, false),
        ]
    }

    #[test]
    fn the_prompt_holds_the_material_and_the_checklist() {
        let report = SessionReport::from_events([
            SessionEvent::command("npm test").with_exit_code(1),
            SessionEvent::command("npm test -- --fix"),
            SessionEvent::command("npm test").with_exit_code(0),
            SessionEvent::assistant("Fixed the null check."),
        ]);
        let task = Value::String("Fix the parser".into());
        let criteria = Value::String("No regressions".into());
        let mut input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        input.input = &task;
        input.criteria = &criteria;
        let text = prompt(&checklist(), &input);
        for part in [
            "## Task given to the agent\nFix the parser",
            "## Success criteria\nNo regressions",
            "## The agent's final answer\nFixed the null check.",
            "## Commands the agent ran\nnpm test (exit code 1)\nnpm test -- --fix\nnpm test (exit code 0)\n",
            "- rubric-1: Names the root cause\n- rubric-2: Keeps the tests green",
            "\"overall_reasoning\"",
        ] {
            assert!(text.contains(part), "{part:?} missing from\n{text}");
        }
        assert!(
            !text.contains("Reference answer"),
            "null parts are left out"
        );
        let long = "x".repeat(PART_CAP + 100);
        let report = SessionReport::from_events([SessionEvent::assistant(long.as_str())]);
        let input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        assert!(prompt(&checklist(), &input).len() < PART_CAP + 2_000);
    }

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
}
