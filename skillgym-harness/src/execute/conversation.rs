//! A conversation case (`mode: conversation`, agentv v4.42.4's multi-turn cases): the
//! attempt's session is the first turn; each later turn resumes the agent's session (its
//! adapter's resume command line, as `skillgym explain` does) with the turn's input, in the
//! same workspace and agent state.
//!
//! | what | how |
//! |---|---|
//! | turn 1 | the attempt's own session (its files at the attempt's root) |
//! | turn N ≥ 2 | a resumed session of the session id the previous turn reported, its files in `turn-N/` (`prompt.md`, logs, `report.json`); under `--mock` the turn's script |
//! | a turn's grade | its `assertions` on its own report: the answer is its final output, the task the conversation so far (the case's input, then each turn's input and answer), its `expected_output` the reference; no graders: 1; written to `turn-N/grading.json`, with its judge sessions in `turn-N/judge-<grader>/` (turn 1's too) |
//! | `on_turn_failure: stop` | after a turn under the threshold the later turns do not run and score 0 |
//! | the case's own graders | the whole conversation: the answer is the transcript (`user: …` / `assistant: …`, blank-line separated), the task every message; graders of the session (tool calls, commands, skills, metrics) read the last turn's report |
//! | the case's score | `aggregation` (mean, min, max) of the turn scores, and of the conversation's score when the case has graders; against the case's threshold |
//! | a later turn's session failing (crash, timeout, no session id to resume) | the attempt fails with that failure, named by its turn; no later turn runs |
//! | a grader that cannot grade, in any turn or on the conversation | the attempt fails with origin `grader-error`, each such grader named with its turn |
//!
//! The attempt's `grading.json` holds the case's score, the conversation's graders and each
//! turn's grading. A replayed attempt replays each turn from the recording's `turn-N/`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skillgym::{Failure, FailureOrigin, SessionReport, Usage};

use super::grading::{Graded, grade_with};
use super::judge::SessionJudge;
use crate::artifacts::write_json_or_note;
use crate::grade::{GradeInput, Judge};
use crate::results::{Grading, TurnGrading};
use crate::suite::declared::{messages_value, prompt};
use crate::suite::yaml::{Conversation, OnTurnFailure};
use crate::suite::{CaseSpec, DeclaredCheck};

/// The text a turn's session is sent.
pub(super) fn turn_prompt(conversation: &Conversation, number: usize) -> String {
    prompt(&conversation.turns[number - 1].input, &[])
}

/// The directory of turn `number`'s session (from 2) in the attempt's directory.
pub(super) fn turn_dir(attempt_dir: &Path, number: usize) -> PathBuf {
    attempt_dir.join(format!("turn-{number}"))
}

/// A conversation's session of turn N (from 2), given its prompt and the session id to resume:
/// its report, or the failure that ends the conversation.
pub(super) type NextTurn<'a> =
    &'a mut dyn FnMut(usize, &str, Option<&str>) -> Result<SessionReport, Failure>;

/// What the turns of one attempt are graded with.
pub(super) struct Talk<'a> {
    pub(super) case: &'a CaseSpec,
    pub(super) check: &'a DeclaredCheck,
    pub(super) conversation: &'a Conversation,
    /// The workspace (`Err`: a replayed attempt's that is gone, or not one skillgym made).
    pub(super) workspace: Result<&'a Path, &'a Path>,
    pub(super) attempt_dir: &'a Path,
    pub(super) timeout: std::time::Duration,
    /// The judge of rubric items; a turn's judge sessions go into its own directory.
    pub(super) judge: Option<&'a SessionJudge<'a>>,
}

/// Runs the turns after the first through `next` (turn number, its prompt, the session id to
/// resume → its report, or the failure that ends the conversation), adds each one's usage to
/// the attempt's `usage` (the run's budget counts it), grades each turn and the whole
/// conversation, writes the attempt's `grading.json`, and returns the grading and the
/// attempt's failure.
pub(super) fn converse(
    talk: &Talk<'_>,
    first: SessionReport,
    next: NextTurn<'_>,
    usage: &mut Usage,
) -> (Option<Grading>, Option<Failure>) {
    let threshold = talk.check.threshold;
    let mut history: Vec<Value> = match &talk.check.input {
        Value::Array(messages) => messages.clone(),
        Value::String(text) => vec![json!({"role": "user", "content": text})],
        _ => Vec::new(),
    };
    let mut turns: Vec<TurnGrading> = Vec::new();
    // Graders that could not grade, each naming its turn.
    let mut broken: Vec<(String, String)> = Vec::new();
    let mut reports: Vec<SessionReport> = Vec::new();
    let mut stopped = false;
    for number in 1..=talk.conversation.turns.len() {
        if stopped {
            turns.push(skipped(number));
            continue;
        }
        let text = turn_prompt(talk.conversation, number);
        history.push(json!({"role": "user", "content": text}));
        let report = if number == 1 {
            first.clone()
        } else {
            let resumed = session_id(&reports);
            match next(number, &text, resumed.as_deref()) {
                Ok(report) => {
                    super::turn_session::add_usage(usage, &report.usage);
                    report
                }
                Err(failure) => return (None, Some(failure)),
            }
        };
        let graded = grade_turn(talk, number, &report, &history, &mut broken);
        history.push(json!({"role": "assistant", "content": report.final_output()}));
        stopped = !graded.passed && talk.conversation.on_turn_failure == OnTurnFailure::Stop;
        turns.push(graded);
        reports.push(report);
    }
    let last = reports.last().unwrap_or(&first);
    let whole = grade_whole(talk, last, &history, &mut broken);
    let grading = combine(talk.conversation, threshold, turns, whole);
    write_json_or_note(&talk.attempt_dir.join("grading.json"), &grading);
    // A grader that could not grade says nothing about the agent (origin `grader-error`).
    let failure = if let Some(message) = super::grading::broken_message(&broken) {
        Some(Failure::new(FailureOrigin::GraderError, message))
    } else {
        (!grading.passed).then(|| Failure::new(FailureOrigin::Grader, verdict_message(&grading)))
    };
    let failure = failure.map(|failure| failure.at(Some(talk.check.location.clone())));
    (Some(grading), failure)
}

/// The session id the next turn resumes: the last one a turn reported.
fn session_id(reports: &[SessionReport]) -> Option<String> {
    reports
        .iter()
        .rev()
        .find_map(|report| report.session_id.clone())
}

/// A turn not run (`on_turn_failure: stop`).
fn skipped(number: usize) -> TurnGrading {
    TurnGrading {
        turn: number as u32,
        score: 0.0,
        passed: false,
        skipped: true,
        graders: Vec::new(),
    }
}

/// Grades turn `number` on its report; `history` ends with the turn's input.
fn grade_turn(
    talk: &Talk<'_>,
    number: usize,
    report: &SessionReport,
    history: &[Value],
    broken: &mut Vec<(String, String)>,
) -> TurnGrading {
    let turn = &talk.conversation.turns[number - 1];
    let dir = if number == 1 {
        talk.attempt_dir.join("turn-1")
    } else {
        turn_dir(talk.attempt_dir, number)
    };
    let judge = talk.judge.map(|judge| SessionJudge {
        artifact_dir: &dir,
        ..*judge
    });
    let expected_output = messages_value(&turn.expected_output);
    let task = Value::Array(history.to_vec());
    let input = GradeInput {
        workspace: talk.workspace.ok(),
        workspace_gone: talk.workspace.err(),
        artifact_dir: Some(&dir),
        criteria: &talk.check.criteria,
        expected_output: &expected_output,
        metadata: &talk.check.metadata,
        input: &task,
        judge: judge.as_ref().map(|judge| judge as &dyn Judge),
        ..GradeInput::new(report, &talk.case.base_dir, talk.timeout)
    };
    let Graded {
        grading, broken: b, ..
    } = grade_with(&turn.assertions, &input, talk.check.threshold);
    broken.extend(
        b.into_iter()
            .map(|(name, why)| (name, format!("{why} (turn {number})"))),
    );
    let graded = TurnGrading {
        turn: number as u32,
        // A turn without graders passes (agentv scores it 1).
        score: if turn.assertions.is_empty() {
            1.0
        } else {
            grading.score
        },
        passed: turn.assertions.is_empty() || grading.passed,
        skipped: false,
        graders: grading.graders,
    };
    if std::fs::create_dir_all(&dir).is_ok() {
        write_json_or_note(&dir.join("grading.json"), &graded);
    }
    graded
}

/// The case's own graders on the whole conversation; `None` when it has none.
fn grade_whole(
    talk: &Talk<'_>,
    last: &SessionReport,
    history: &[Value],
    broken: &mut Vec<(String, String)>,
) -> Option<Grading> {
    if talk.check.graders.is_empty() {
        return None;
    }
    let transcript = transcript(history);
    let messages = Value::Array(history.to_vec());
    let input = GradeInput {
        output: &transcript,
        workspace: talk.workspace.ok(),
        workspace_gone: talk.workspace.err(),
        artifact_dir: Some(talk.attempt_dir),
        criteria: &talk.check.criteria,
        expected_output: &talk.check.expected_output,
        metadata: &talk.check.metadata,
        input: &messages,
        judge: talk.judge.map(|judge| judge as &dyn Judge),
        ..GradeInput::new(last, &talk.case.base_dir, talk.timeout)
    };
    let graded = grade_with(&talk.check.graders, &input, talk.check.threshold);
    let whole = graded.broken.into_iter();
    broken.extend(whole.map(|(name, why)| (name, format!("{why} (the conversation)"))));
    Some(graded.grading)
}

/// The conversation as text: `role: content` for each message, blank-line separated.
fn transcript(history: &[Value]) -> String {
    history
        .iter()
        .map(|message| {
            let role = message["role"].as_str().unwrap_or("user");
            let content = match &message["content"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            format!("{role}: {content}")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The case's grading: the turn scores (and the whole conversation's) aggregated.
fn combine(
    conversation: &Conversation,
    threshold: f64,
    turns: Vec<TurnGrading>,
    whole: Option<Grading>,
) -> Grading {
    let mut scores: Vec<f64> = turns.iter().map(|turn| turn.score).collect();
    scores.extend(whole.as_ref().map(|grading| grading.score));
    let score = conversation.aggregation.combine(&scores);
    Grading {
        score,
        threshold,
        passed: score >= threshold,
        graders: whole.map(|grading| grading.graders).unwrap_or_default(),
        turns,
        aggregation: Some(conversation.aggregation.name().to_owned()),
    }
}

/// `score S < threshold T (mean of turn 1: 1.00, turn 2: 0.00 failed, turn 3: skipped, …)`.
fn verdict_message(grading: &Grading) -> String {
    let mut parts: Vec<String> = grading
        .turns
        .iter()
        .map(|turn| match (turn.skipped, turn.passed) {
            (true, _) => format!("turn {}: skipped", turn.turn),
            (false, true) => format!("turn {}: {:.2}", turn.turn, turn.score),
            (false, false) => {
                let failed: Vec<&str> = turn
                    .graders
                    .iter()
                    .filter(|g| g.verdict == crate::results::GraderVerdict::Fail)
                    .map(|g| g.name.as_str())
                    .collect();
                format!(
                    "turn {}: {:.2} failed ({})",
                    turn.turn,
                    turn.score,
                    failed.join(", ")
                )
            }
        })
        .collect();
    if !grading.graders.is_empty() {
        let whole = grading
            .graders
            .iter()
            .filter(|g| g.verdict == crate::results::GraderVerdict::Fail)
            .map(|g| g.name.as_str())
            .collect::<Vec<_>>();
        parts.push(if whole.is_empty() {
            "the conversation: passed".to_owned()
        } else {
            format!("the conversation: failed ({})", whole.join(", "))
        });
    }
    format!(
        "score {:.2} {} threshold {:.2} ({} of {})",
        grading.score,
        if grading.passed { ">=" } else { "<" },
        grading.threshold,
        grading.aggregation.as_deref().unwrap_or("mean"),
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{GraderResult, GraderVerdict};
    use crate::suite::yaml::Aggregation;

    fn turn(number: u32, score: f64, passed: bool) -> TurnGrading {
        TurnGrading {
            turn: number,
            score,
            passed,
            skipped: false,
            graders: vec![grader("contains-x", passed)],
        }
    }

    fn grader(name: &str, passed: bool) -> GraderResult {
        GraderResult {
            name: name.to_owned(),
            kind: "contains".to_owned(),
            weight: 1.0,
            required: false,
            negate: false,
            score: if passed { 1.0 } else { 0.0 },
            verdict: if passed {
                GraderVerdict::Pass
            } else {
                GraderVerdict::Fail
            },
            checks: Vec::new(),
            details: None,
        }
    }

    fn conversation(aggregation: Aggregation) -> Conversation {
        Conversation {
            turns: Vec::new(),
            aggregation,
            on_turn_failure: OnTurnFailure::Stop,
        }
    }

    #[test]
    fn the_whole_conversation_s_score_is_aggregated_with_the_turns() {
        let whole = Grading {
            score: 0.25,
            threshold: 0.8,
            passed: false,
            graders: vec![grader("coherent", false)],
            turns: Vec::new(),
            aggregation: None,
        };
        let turns = vec![turn(1, 1.0, true), turn(2, 0.5, false), skipped(3)];
        let grading = combine(
            &conversation(Aggregation::Max),
            0.8,
            turns.clone(),
            Some(whole.clone()),
        );
        assert_eq!((grading.score, grading.passed), (1.0, true));
        assert_eq!(grading.graders, whole.graders);
        let grading = combine(&conversation(Aggregation::Mean), 0.8, turns, Some(whole));
        assert_eq!(grading.score, (1.0 + 0.5 + 0.0 + 0.25) / 4.0);
        assert_eq!(grading.aggregation.as_deref(), Some("mean"));
        assert_eq!(
            verdict_message(&grading),
            "score 0.44 < threshold 0.80 (mean of turn 1: 1.00, turn 2: 0.50 failed (contains-x), turn 3: skipped, the conversation: failed (coherent))"
        );
    }

    #[test]
    fn the_transcript_names_each_speaker() {
        let history = [
            json!({"role": "system", "content": "Be brief."}),
            json!({"role": "user", "content": "2 + 2?"}),
            json!({"role": "assistant", "content": "4"}),
            json!({"role": "user", "content": [{"type": "text", "value": "and 3 + 3?"}]}),
        ];
        assert_eq!(
            transcript(&history),
            "system: Be brief.\n\nuser: 2 + 2?\n\nassistant: 4\n\nuser: [{\"type\":\"text\",\"value\":\"and 3 + 3?\"}]"
        );
    }
}
