//! Grading by a judge: the prompt the judge runner is sent, and which reading of its answer
//! applies ([`answer`](super::answer) reads it). The prompt goes to a [`Judge`](super::Judge):
//! in a run, a session of the runner that `judge:` names (answered by the scripted model under
//! `--mock`).
//!
//! | grader | prompt | answer |
//! |---|---|---|
//! | rubrics, checklist items | the material, then `## Checklist`: one line per item, `- <id>: <outcome>` (` (operator: <op>)` after the id when set, with agentv's guidance for each operator used) | checklist |
//! | rubrics, some item with `score_ranges` | the material, then `## Scored criteria`: per item its id, weight, gate, operator, outcome and bands `- <lo>-<hi>: <outcome>` | scored, 0–10 per item |
//! | `llm-grader`, no `prompt`, no `rubrics` | as the implicit grader: one required checklist item `criteria`, the case's `criteria`, else "The final answer agrees with the reference answer" | checklist |
//! | `llm-grader`, inline `prompt` naming no template variable | the default prompt with the prompt as the success criteria; its rubrics as above, else a request for a score | by its rubrics, else freeform |
//! | `llm-grader`, a template (a file, or inline text naming a variable) | the template with its [variables](super::template) substituted, then the answer's format (and the rubric ids to answer for) | by its rubrics, else freeform |
//!
//! The material: the case's input, criteria and expected output, the agent's final answer, its
//! commands (each with `(exit code N)` when the agent reported one) and tool calls; each part
//! capped, empty parts left out.

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

use serde_json::Value;
use skillgym::SessionEvent;

use super::answer::{AnswerError, read_freeform, read_scored};
use super::spec::{JudgePrompt, LlmGraderSpec, RubricItem, RubricOperator};
use super::{GradeInput, GraderOutcome, template};

pub(crate) use super::answer::read_answer;

/// At most this many characters of each part of the transcript go into the prompt.
const PART_CAP: usize = 8_000;

/// At most this many commands and tool calls are listed.
const MAX_LISTED: usize = 50;

/// The outcome judged when a case has an expected output and no `criteria`.
pub(crate) const REFERENCE_AGREEMENT: &str = "The final answer agrees with the reference answer";

/// How the judge answers, by the grader's rubric items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Satisfied or not, per item.
    Checklist,
    /// An integer 0–10 per item (some item has `score_ranges`).
    Scored,
    /// One score in 0..=1 (no items).
    Freeform,
}

fn mode(items: &[RubricItem]) -> Mode {
    if items.is_empty() {
        Mode::Freeform
    } else if items.iter().any(|item| !item.score_ranges.is_empty()) {
        Mode::Scored
    } else {
        Mode::Checklist
    }
}

/// The default prompt for `items`, on the case's own criteria.
pub(crate) fn prompt(items: &[RubricItem], input: &GradeInput<'_>) -> String {
    default_prompt(items, input, &criteria_of(input))
}

/// The case's `criteria` as text (empty when it has none).
fn criteria_of(input: &GradeInput<'_>) -> String {
    input.criteria.as_str().unwrap_or_default().to_owned()
}

fn default_prompt(items: &[RubricItem], input: &GradeInput<'_>, criteria: &str) -> String {
    let goal = match mode(items) {
        Mode::Checklist => "against a checklist",
        Mode::Scored => "by scoring each criterion from 0 to 10",
        Mode::Freeform => "against its success criteria",
    };
    let mut text = format!(
        "You are grading a coding agent's work {goal}. Judge only from the material below.\n"
    );
    material(&mut text, input, criteria);
    match mode(items) {
        Mode::Checklist => checklist(&mut text, items),
        Mode::Scored => scored(&mut text, items),
        Mode::Freeform => {}
    }
    answer_format(&mut text, items);
    text
}

/// A custom template: substituted, then the answer's format.
fn custom_prompt(template: &str, items: &[RubricItem], input: &GradeInput<'_>) -> String {
    let mut text = template::render(template, input, &criteria_of(input), items);
    text.push('\n');
    answer_format(&mut text, items);
    text
}

/// The task, criteria, reference answer, final answer, commands and tool calls.
fn material(text: &mut String, input: &GradeInput<'_>, criteria: &str) {
    section(text, "Task given to the agent", &value_text(input.input));
    if !criteria.trim().is_empty() {
        section(text, "Success criteria", criteria);
    }
    if !input.expected_output.is_null() {
        section(text, "Reference answer", &value_text(input.expected_output));
    }
    section(text, "The agent's final answer", input.output);
    let commands: Vec<String> = input
        .report
        .events
        .iter()
        .filter_map(command_line)
        .take(MAX_LISTED)
        .collect();
    if !commands.is_empty() {
        section(text, "Commands the agent ran", &commands.join("\n"));
    }
    let tools: Vec<String> = input
        .report
        .tool_calls(None)
        .take(MAX_LISTED)
        .map(|event| serde_json::to_string(event).unwrap_or_default())
        .collect();
    if !tools.is_empty() {
        section(text, "Tool calls", &tools.join("\n"));
    }
}

/// `## Checklist`: operator guidance, then one line per item.
fn checklist(text: &mut String, items: &[RubricItem]) {
    text.push_str("\n## Checklist\n");
    guidance(text, items);
    for item in items {
        let _ = writeln!(
            text,
            "- {}{}: {}",
            item.id,
            operator_label(item),
            item.outcome
        );
    }
}

/// `## Scored criteria`: per item its heading, outcome and bands.
fn scored(text: &mut String, items: &[RubricItem]) {
    text.push_str("\n## Scored criteria\n");
    guidance(text, items);
    for item in items {
        let _ = write!(text, "\n### {}", item.id);
        if item.weight != 1.0 {
            let _ = write!(text, " (weight: {})", item.weight);
        }
        if let Some(gate) = item.min_score.or(item.required.then_some(1.0)) {
            let _ = write!(text, " [required: at least {}]", gate * 10.0);
        }
        text.push('\n');
        if let Some(operator) = item.operator {
            let _ = writeln!(text, "Operator: {}", operator_name(operator));
        }
        if !item.outcome.is_empty() {
            let _ = writeln!(text, "Outcome: {}", item.outcome);
        }
        if !item.score_ranges.is_empty() {
            text.push_str("Score ranges:\n");
        }
        for range in &item.score_ranges {
            let _ = writeln!(text, "- {}-{}: {}", range.lo, range.hi, range.outcome);
        }
    }
}

/// agentv's guidance for each operator the items use, in first-use order.
fn guidance(text: &mut String, items: &[RubricItem]) {
    let mut seen = Vec::new();
    for operator in items.iter().filter_map(|item| item.operator) {
        if !seen.contains(&operator) {
            seen.push(operator);
            let _ = writeln!(text, "{}", operator_guidance(operator));
        }
    }
}

fn operator_name(operator: RubricOperator) -> &'static str {
    match operator {
        RubricOperator::Correctness => "correctness",
        RubricOperator::Contradiction => "contradiction",
    }
}

fn operator_label(item: &RubricItem) -> String {
    item.operator
        .map(|op| format!(" (operator: {})", operator_name(op)))
        .unwrap_or_default()
}

/// agentv's wording (`rubric-operators.ts`).
fn operator_guidance(operator: RubricOperator) -> &'static str {
    match operator {
        RubricOperator::Correctness => {
            "Correctness: mark satisfied only when the answer positively supports or fulfills the outcome. Omission or contradiction should not satisfy it."
        }
        RubricOperator::Contradiction => {
            "Contradiction guard: mark satisfied when the answer does not make a claim that contradicts the outcome. Do not require the answer to mention the outcome; mark unsatisfied only for incompatible claims."
        }
    }
}

/// The JSON object the judge must answer with.
fn answer_format(text: &mut String, items: &[RubricItem]) {
    text.push_str("\nAnswer with one JSON object and nothing else:\n");
    let ids = items
        .iter()
        .map(|item| item.id.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    match mode(items) {
        Mode::Checklist => {
            text.push_str(
                "{\"checks\": [{\"id\": \"<checklist id>\", \"satisfied\": true, \"reasoning\": \"<one sentence>\"}], \
                 \"overall_reasoning\": \"<one sentence>\"}\n",
            );
            let _ = writeln!(text, "Give one entry per checklist id: {ids}.");
        }
        Mode::Scored => {
            text.push_str(
                "{\"checks\": [{\"id\": \"<criterion id>\", \"score\": <integer from 0 to 10>, \"reasoning\": \"<one sentence>\"}], \
                 \"overall_reasoning\": \"<one sentence>\"}\n",
            );
            let _ = writeln!(
                text,
                "Give one entry per criterion id: {ids}; each score an integer inside one of the criterion's ranges."
            );
        }
        Mode::Freeform => text.push_str(
            "{\"score\": <number from 0.0 to 1.0>, \"assertions\": [{\"text\": \"<what you checked>\", \
             \"passed\": true, \"evidence\": \"<one sentence>\"}], \"details\": {}}\n",
        ),
    }
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
    let _ = write!(
        text,
        "\n## {title}\n{}\n",
        super::first_chars(body, PART_CAP)
    );
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// Grades rubric `items` by asking `judge` the default [`prompt`] and reading its answer.
pub(crate) fn grade(
    name: &str,
    items: &[RubricItem],
    input: &GradeInput<'_>,
    judge: &dyn super::Judge,
) -> Result<GraderOutcome, JudgeError> {
    ask(name, items, &prompt(items, input), judge)
}

/// Grades an `llm-grader` (see the module's table).
pub(crate) fn grade_llm(
    name: &str,
    spec: &LlmGraderSpec,
    input: &GradeInput<'_>,
    judge: &dyn super::Judge,
) -> Result<GraderOutcome, JudgeError> {
    let items = &spec.items;
    match &spec.prompt {
        None if items.is_empty() => grade(name, &[implicit_item(input)?], input, judge),
        None => grade(name, items, input, judge),
        Some(JudgePrompt::Inline(text)) if !template::is_template(text) => {
            ask(name, items, &default_prompt(items, input, text), judge)
        }
        Some(JudgePrompt::Inline(text) | JudgePrompt::File { text, .. }) => {
            ask(name, items, &custom_prompt(text, items, input), judge)
        }
    }
}

/// The item a bare `llm-grader` judges: the case's `criteria`, else agreement with its
/// expected output.
fn implicit_item(input: &GradeInput<'_>) -> Result<RubricItem, JudgeError> {
    match input.criteria.as_str().filter(|c| !c.trim().is_empty()) {
        Some(criteria) => Ok(RubricItem::checklist("criteria", criteria)),
        None if !input.expected_output.is_null() => {
            Ok(RubricItem::checklist("criteria", REFERENCE_AGREEMENT))
        }
        None => Err(JudgeError::NoCriteria),
    }
}

/// Asks `judge` the freeform question `body` (the answer's format appended) and reads its
/// score: a composite's `llm-grader` aggregator.
pub(crate) fn grade_freeform(
    name: &str,
    body: &str,
    judge: &dyn super::Judge,
) -> Result<GraderOutcome, JudgeError> {
    let mut text = body.to_owned();
    text.push('\n');
    answer_format(&mut text, &[]);
    ask(name, &[], &text, judge)
}

fn ask(
    name: &str,
    items: &[RubricItem],
    prompt: &str,
    judge: &dyn super::Judge,
) -> Result<GraderOutcome, JudgeError> {
    let answer = judge.ask(name, prompt)?;
    Ok(match mode(items) {
        Mode::Checklist => read_answer(&answer, items),
        Mode::Scored => read_scored(&answer, items),
        Mode::Freeform => read_freeform(&answer),
    }?)
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
    /// A bare `llm-grader` on a case with neither `criteria` nor `expected_output`.
    #[error(
        "a bare `llm-grader` judges the case's `criteria` or `expected_output`, and this case has neither"
    )]
    NoCriteria,
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

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use skillgym::{SessionEvent, SessionReport};

    use super::*;
    use crate::grade::test_support::checklist;

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

    /// A judge that answers `answer` and keeps the last prompt.
    #[derive(Debug)]
    struct Canned {
        answer: &'static str,
        asked: std::cell::RefCell<String>,
    }

    impl super::super::Judge for Canned {
        fn ask(&self, _grader: &str, prompt: &str) -> Result<String, AskError> {
            *self.asked.borrow_mut() = prompt.to_owned();
            Ok(self.answer.to_owned())
        }
    }

    fn canned(answer: &'static str) -> Canned {
        Canned {
            answer,
            asked: Default::default(),
        }
    }

    fn llm(prompt: Option<JudgePrompt>, items: Vec<RubricItem>) -> LlmGraderSpec {
        LlmGraderSpec { prompt, items }
    }

    #[test]
    fn an_inline_prompt_without_variables_is_the_criteria_of_a_freeform_question() {
        let report = SessionReport::default().with_final_output("Hi there");
        let criteria = Value::String("the case's own".into());
        let input = GradeInput {
            criteria: &criteria,
            ..GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1))
        };
        let judge =
            canned(r#"{"score": 0.85, "assertions": [{"text": "polite", "passed": true}]}"#);
        let spec = llm(Some(JudgePrompt::Inline("Check the tone".into())), vec![]);
        let outcome = grade_llm("tone", &spec, &input, &judge).unwrap();
        assert_eq!(
            (outcome.score, outcome.verdict),
            (0.85, super::super::Verdict::Pass)
        );
        let asked = judge.asked.borrow();
        assert!(
            asked.contains("## Success criteria\nCheck the tone\n"),
            "{asked}"
        );
        assert!(!asked.contains("the case's own"));
        assert!(
            asked.contains("{\"score\": <number from 0.0 to 1.0>"),
            "{asked}"
        );
    }

    #[test]
    fn a_template_replaces_the_prompt_and_rubrics_keep_their_reading() {
        let report = SessionReport::default().with_final_output("  42  ");
        let input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        let judge = canned(r#"{"checks": [{"id": "a", "satisfied": false, "reasoning": "no"}]}"#);
        let file = JudgePrompt::File {
            path: PathBuf::from("/p.md"),
            text: "Answer was <{{ output }}>; rubric {{rubrics_json}}".into(),
        };
        let spec = llm(Some(file), vec![RubricItem::checklist("a", "Is 41")]);
        let outcome = grade_llm("g", &spec, &input, &judge).unwrap();
        assert_eq!(outcome.verdict, super::super::Verdict::Fail);
        assert_eq!(outcome.checks[0].evidence.as_deref(), Some("no"));
        let asked = judge.asked.borrow();
        assert!(
            asked.starts_with("Answer was <42>; rubric [{\"id\":\"a\","),
            "{asked}"
        );
        assert!(
            asked.contains("Give one entry per checklist id: a."),
            "{asked}"
        );
        assert!(
            !asked.contains("## Task given"),
            "a template is the whole prompt"
        );
        // An inline prompt naming a variable is a template too.
        let spec = llm(Some(JudgePrompt::Inline("Rate {{output}}".into())), vec![]);
        let judge = canned(r#"{"score": 0.2}"#);
        let outcome = grade_llm("g", &spec, &input, &judge).unwrap();
        assert_eq!(outcome.score, 0.2);
        assert!(judge.asked.borrow().starts_with("Rate 42\n"));
    }

    #[test]
    fn a_bare_llm_grader_judges_the_criteria_or_the_reference() {
        let report = SessionReport::default();
        let criteria = Value::String("Fixes the bug".into());
        let reference = Value::String("patched".into());
        let answer = r#"{"checks": [{"id": "criteria", "satisfied": true}]}"#;
        let bare = llm(None, vec![]);
        let mut input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        input.criteria = &criteria;
        let judge = canned(answer);
        assert_eq!(grade_llm("b", &bare, &input, &judge).unwrap().score, 1.0);
        assert!(judge.asked.borrow().contains("- criteria: Fixes the bug\n"));
        input.criteria = &Value::Null;
        input.expected_output = &reference;
        let judge = canned(answer);
        grade_llm("b", &bare, &input, &judge).unwrap();
        assert!(
            judge
                .asked
                .borrow()
                .contains(&format!("- criteria: {REFERENCE_AGREEMENT}\n"))
        );
        input.expected_output = &Value::Null;
        let error = grade_llm("b", &bare, &input, &judge).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a bare `llm-grader` judges the case's `criteria` or `expected_output`, and this case has neither"
        );
    }

    #[test]
    fn scored_items_and_operators_shape_the_prompt() {
        use crate::grade::spec::ScoreRange;
        let report = SessionReport::default();
        let input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        let band = |lo, hi, outcome: &str| ScoreRange {
            lo,
            hi,
            outcome: outcome.into(),
        };
        let scored = RubricItem {
            weight: 2.0,
            required: false,
            min_score: Some(0.8),
            operator: Some(RubricOperator::Correctness),
            score_ranges: vec![band(0, 5, "weak"), band(6, 10, "strong")],
            ..RubricItem::checklist("acc", "")
        };
        let text = prompt(
            &[scored, RubricItem::checklist("plain", "Is short")],
            &input,
        );
        for part in [
            "by scoring each criterion from 0 to 10",
            "## Scored criteria\nCorrectness: mark satisfied only when",
            "### acc (weight: 2) [required: at least 8]\nOperator: correctness\nScore ranges:\n- 0-5: weak\n- 6-10: strong\n",
            "### plain [required: at least 10]\nOutcome: Is short\n",
            "\"score\": <integer from 0 to 10>",
            "Give one entry per criterion id: acc, plain;",
        ] {
            assert!(text.contains(part), "{part:?} missing from\n{text}");
        }
        let guarded = RubricItem {
            operator: Some(RubricOperator::Contradiction),
            ..RubricItem::checklist("g", "Margin fell")
        };
        let text = prompt(&[guarded], &input);
        assert!(
            text.contains("## Checklist\nContradiction guard: mark satisfied when")
                && text.contains("- g (operator: contradiction): Margin fell\n"),
            "{text}"
        );
    }
}
