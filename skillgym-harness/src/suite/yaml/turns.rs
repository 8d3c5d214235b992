//! Multi-turn cases (agentv v4.42.4's `mode: conversation`): a case's `mode`, `turns`,
//! `aggregation`, `on_turn_failure` and `window_size` → a [`Conversation`].
//!
//! | Key | Read as |
//! |---|---|
//! | `mode` | `conversation`, with `turns` (either without the other is an error) |
//! | `turns` | a non-empty list of mappings: `input` (required; a string, a message or messages), `expected_output` (without `assertions`: a rubric grader, the answer agrees with it), `assertions` (alias `assert`; strings are rubric items, as in a case), and skillgym's `mock` (the scripted model's script for that turn under `--mock`) |
//! | `aggregation` | `mean` (default), `min` or `max`: how the turn scores (and the conversation's, when the case has assertions) make the case's score |
//! | `on_turn_failure` | `continue` (default) or `stop`: after a turn under the threshold, the later turns are not run and score 0 |
//! | `window_size` | an error: skillgym resumes the agent's own session, which keeps the whole conversation |
//!
//! `aggregation` and `on_turn_failure` without `mode: conversation` are errors (agentv reads
//! them only in a conversation).

use std::path::PathBuf;

use super::fields::{Fields, Source};
use super::graders::{self, Dirs};
use super::model::{Message, Role};
use super::node::{Node, Value};
use super::paths::resolve_file;
use crate::grade::spec::{GraderKind, GraderSpec, RubricItem};

/// A conversation case's turns and how their scores make the case's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conversation {
    /// At least one.
    pub(crate) turns: Vec<TurnDef>,
    pub(crate) aggregation: Aggregation,
    pub(crate) on_turn_failure: OnTurnFailure,
}

/// One turn: the user's message and what its answer is graded with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnDef {
    /// The user's message(s) of this turn.
    pub(crate) input: Vec<Message>,
    /// The reference answer of this turn (none: empty).
    pub(crate) expected_output: Vec<Message>,
    /// The graders of this turn's answer (none: the turn scores 1).
    pub(crate) assertions: Vec<GraderSpec>,
    /// The scripted model's script for this turn under `--mock` (resolved, existing).
    pub(crate) mock: Option<PathBuf>,
    /// The line the turn starts at.
    pub(crate) line: u32,
}

/// How turn scores make the case's score (`aggregation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Aggregation {
    /// Their mean.
    #[default]
    Mean,
    /// The weakest turn's.
    Min,
    /// The best turn's.
    Max,
}

impl Aggregation {
    /// The names, as written.
    const NAMES: [&'static str; 3] = ["mean", "min", "max"];

    /// Its name, as written.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Aggregation::Mean => "mean",
            Aggregation::Min => "min",
            Aggregation::Max => "max",
        }
    }

    /// The case's score from `scores` (1 when there are none, as agentv's).
    pub(crate) fn combine(self, scores: &[f64]) -> f64 {
        if scores.is_empty() {
            return 1.0;
        }
        match self {
            Aggregation::Mean => scores.iter().sum::<f64>() / scores.len() as f64,
            Aggregation::Min => scores.iter().copied().fold(f64::INFINITY, f64::min),
            Aggregation::Max => scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// What a turn under the threshold does to the turns after it (`on_turn_failure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum OnTurnFailure {
    /// They run.
    #[default]
    Continue,
    /// They are skipped, each scoring 0.
    Stop,
}

/// Takes a case's conversation keys from `f`; `None` when the case is no conversation (or
/// after an error, recorded in `source`).
pub(crate) fn take(
    source: &mut Source,
    f: &mut Fields<'_>,
    dirs: Dirs<'_>,
) -> Option<Conversation> {
    let mode = f.take_some(source, "mode", &[]);
    let turns = f.take_some(source, "turns", &[]);
    let aggregation = f.take_some(source, "aggregation", &[]);
    let on_failure = f.take_some(source, "on_turn_failure", &[]);
    if let Some(n) = f.take_some(source, "window_size", &[]) {
        source.error_help(
            n,
            "`window_size` is not supported: skillgym resumes the agent's own session, which keeps the whole conversation",
            "remove `window_size`",
        );
    }
    let conversation = match mode {
        Some(n) => {
            let is_conversation = is_conversation_mode(source, n);
            if is_conversation && turns.is_none() {
                source.error_help(
                    n,
                    "`mode: conversation` needs `turns`",
                    "add `turns:`, a list of `{input, assertions}` mappings",
                );
            }
            is_conversation
        }
        None => false,
    };
    if !conversation {
        let stray = [
            ("turns", turns),
            ("aggregation", aggregation),
            ("on_turn_failure", on_failure),
        ];
        for (key, node) in stray {
            if let (Some(n), true) = (node, mode.is_none()) {
                source.error_help(
                    n,
                    format!("`{key}` is for conversation cases"),
                    "add `mode: conversation` to the case (agentv runs a case without it as one turn)",
                );
            }
        }
        return None;
    }
    let turns = turn_list(source, turns?, dirs)?;
    Some(Conversation {
        turns,
        aggregation: aggregation
            .and_then(|n| choice(source, "aggregation", n, &Aggregation::NAMES))
            .map_or(Aggregation::default(), |i| {
                [Aggregation::Mean, Aggregation::Min, Aggregation::Max][i]
            }),
        on_turn_failure: on_failure
            .and_then(|n| choice(source, "on_turn_failure", n, &["continue", "stop"]))
            .map_or(OnTurnFailure::default(), |i| {
                [OnTurnFailure::Continue, OnTurnFailure::Stop][i]
            }),
    })
}

/// `mode:`: `conversation` is the only mode.
fn is_conversation_mode(source: &mut Source, n: &Node) -> bool {
    match source.string("mode", n).as_deref() {
        Some("conversation") => true,
        Some(other) => {
            source.error_help(
                n,
                format!("`mode` must be `conversation`, found `{other}`"),
                "remove `mode` for a case of one turn",
            );
            false
        }
        None => false,
    }
}

/// One of `names`, by index; else an error naming them (with a suggestion).
fn choice(source: &mut Source, key: &str, n: &Node, names: &[&'static str]) -> Option<usize> {
    let written = source.string(key, n)?;
    if let Some(i) = names.iter().position(|name| *name == written) {
        return Some(i);
    }
    let listed: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    let message = format!(
        "`{key}` must be {}, found `{written}`",
        match listed.as_slice() {
            [one, two] => format!("{one} or {two}"),
            [rest @ .., last] => format!("{}, or {last}", rest.join(", ")),
            [] => String::new(),
        }
    );
    match crate::suggest::did_you_mean(&written, names.iter().copied()) {
        Some(close) => source.error_help(n, message, &format!("did you mean `{close}`?")),
        None => source.error(n, message),
    }
    None
}

/// `turns:`: a non-empty list of turn mappings; `None` after an error.
fn turn_list(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Option<Vec<TurnDef>> {
    let Value::Seq(items) = &n.value else {
        source.error(
            n,
            format!("`turns` must be a list of turns, found {}", n.kind()),
        );
        return None;
    };
    if items.is_empty() {
        source.error(n, "`turns` must hold at least one turn");
        return None;
    }
    let turns: Vec<Option<TurnDef>> = items.iter().map(|item| turn(source, item, dirs)).collect();
    turns.into_iter().collect()
}

/// One turn mapping.
fn turn(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Option<TurnDef> {
    let mut f = Fields::of(source, n, "a turn")?;
    let input_node = f.take_some(source, "input", &[]);
    let input = input_node.and_then(|n| super::load::messages(source, "input", n, Role::User));
    let expected_output = f
        .take_some(source, "expected_output", &[])
        .and_then(|n| super::load::messages(source, "expected_output", n, Role::Assistant));
    let assertions = f
        .take_some(source, "assertions", &["assert"])
        .map(|n| graders::parse_list(source, "assertions", n, dirs));
    let mock = f.take_some(source, "mock", &[]).and_then(|n| {
        source
            .non_empty("mock", n)
            .and_then(|s| resolve_file(source, n, &s, dirs))
    });
    if input_node.is_none() {
        f.missing(source, "input");
    }
    f.finish(source);
    let expected_output = expected_output.unwrap_or_default();
    let mut assertions = assertions.unwrap_or_default();
    if assertions.is_empty() && !expected_output.is_empty() {
        assertions.push(reference_grader());
    }
    Some(TurnDef {
        input: input?,
        expected_output,
        assertions,
        mock,
        line: n.line,
    })
}

/// The grader of a turn with an `expected_output` and no `assertions` (agentv's default
/// `llm-grader`): one rubric item answered by the judge.
fn reference_grader() -> GraderSpec {
    GraderSpec {
        name: "expected_output".to_owned(),
        weight: 1.0,
        required: false,
        min_score: None,
        negate: false,
        kind: GraderKind::Rubrics {
            items: vec![RubricItem::checklist(
                "expected_output",
                "The answer agrees with the reference answer",
            )],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{errors, load, write};
    use super::*;
    use crate::grade::spec::GraderKind;

    /// agentv's multi-turn example, shortened: a system message, string and structured turn
    /// assertions, `aggregation`, `on_turn_failure` and conversation-level assertions.
    const CONVERSATION: &str = "\
tests:
  - id: tutor
    mode: conversation
    criteria: Keeps the context
    aggregation: min
    on_turn_failure: stop
    input:
      - role: system
        content: You are a math tutor.
    turns:
      - input: What is 15% of 200?
        assertions:
          - Calculates 30
          - type: contains
            value: \"30\"
      - input: Now double that result.
        expected_output: \"60\"
      - input: Thanks.
    assertions:
      - type: contains
        value: \"60\"
";

    #[test]
    fn a_conversation_case_keeps_its_turns_and_grades_the_conversation_with_its_own_graders() {
        let t = tempfile::tempdir().unwrap();
        write(t.path(), "EVAL.yaml", CONVERSATION);
        let loaded = load(t.path());
        let case = &loaded.suite.cases[0];
        let conversation = case.conversation.as_ref().unwrap();
        assert_eq!(conversation.aggregation, Aggregation::Min);
        assert_eq!(conversation.on_turn_failure, OnTurnFailure::Stop);
        assert_eq!(conversation.turns.len(), 3);
        let kinds = |turn: &TurnDef| -> Vec<&str> {
            turn.assertions.iter().map(|g| g.kind.type_name()).collect()
        };
        assert_eq!(kinds(&conversation.turns[0]), ["rubrics", "contains"]);
        // A turn with a reference answer and no assertions is judged against it.
        assert_eq!(conversation.turns[1].assertions[0].name, "expected_output");
        assert!(conversation.turns[2].assertions.is_empty());
        assert_eq!(
            conversation.turns[1].input,
            [Message {
                role: Role::User,
                content: super::super::Content::Text("Now double that result.".to_owned()),
            }]
        );
        assert_eq!(conversation.turns[1].line, 16);
        // The case's criteria stay the judges' context, not a grader of their own.
        assert_eq!(case.criteria.as_deref(), Some("Keeps the context"));
        assert_eq!(case.assertions.len(), 1);
        assert!(matches!(
            case.assertions[0].kind,
            GraderKind::Contains { .. }
        ));
        assert_eq!(
            case.input.len(),
            1,
            "the system message; the turns are apart"
        );
    }

    #[test]
    fn a_conversation_needs_no_graders_of_its_own_and_defaults_to_mean_and_continue() {
        let t = tempfile::tempdir().unwrap();
        write(
            t.path(),
            "EVAL.yaml",
            "tests:\n  - id: c\n    mode: conversation\n    input: hi\n    turns:\n      - input: one\n",
        );
        let loaded = load(t.path());
        let case = &loaded.suite.cases[0];
        assert!(case.assertions.is_empty());
        let conversation = case.conversation.as_ref().unwrap();
        assert_eq!(conversation.aggregation, Aggregation::Mean);
        assert_eq!(conversation.on_turn_failure, OnTurnFailure::Continue);
    }

    #[test]
    fn bad_conversation_keys_are_located_errors() {
        let t = tempfile::tempdir().unwrap();
        let case =
            |id: &str, rest: &str| format!("  - id: {id}\n    input: hi\n    criteria: c\n{rest}");
        let cases = [
            case("a", "    turns:\n      - input: x\n"),
            case("b", "    mode: chat\n"),
            case("c", "    mode: conversation\n"),
            case(
                "d",
                "    mode: conversation\n    aggregation: meen\n    on_turn_failure: halt\n    turns:\n      - input: x\n",
            ),
            case(
                "e",
                "    mode: conversation\n    window_size: 2\n    turns: []\n",
            ),
            case(
                "f",
                "    mode: conversation\n    turns:\n      - inputs: x\n      - 3\n",
            ),
            case("g", "    mode: conversation\n    turns: one\n"),
            case("h", "    on_turn_failure: stop\n"),
        ];
        write(
            t.path(),
            "EVAL.yaml",
            &format!("tests:\n{}", cases.concat()),
        );
        assert_eq!(
            errors(t.path()),
            [
                "EVAL.yaml:6:7: `turns` is for conversation cases [add `mode: conversation` to the case (agentv runs a case without it as one turn)]",
                "EVAL.yaml:10:11: `mode` must be `conversation`, found `chat` [remove `mode` for a case of one turn]",
                "EVAL.yaml:14:11: `mode: conversation` needs `turns` [add `turns:`, a list of `{input, assertions}` mappings]",
                "EVAL.yaml:19:18: `aggregation` must be `mean`, `min`, or `max`, found `meen` [did you mean `mean`?]",
                "EVAL.yaml:20:22: `on_turn_failure` must be `continue` or `stop`, found `halt`",
                "EVAL.yaml:27:18: `window_size` is not supported: skillgym resumes the agent's own session, which keeps the whole conversation [remove `window_size`]",
                "EVAL.yaml:28:12: `turns` must hold at least one turn",
                "EVAL.yaml:34:9: a turn is missing `input`",
                "EVAL.yaml:34:9: unknown field `inputs` in a turn [did you mean `input`?]",
                "EVAL.yaml:35:9: a turn must be a mapping, found a number",
                "EVAL.yaml:40:12: `turns` must be a list of turns, found a string",
                "EVAL.yaml:44:22: `on_turn_failure` is for conversation cases [add `mode: conversation` to the case (agentv runs a case without it as one turn)]",
            ]
        );
    }

    #[test]
    fn aggregation_combines_turn_scores() {
        let scores = [1.0, 0.25, 0.5];
        assert_eq!(Aggregation::Mean.combine(&scores), 1.75 / 3.0);
        assert_eq!(Aggregation::Min.combine(&scores), 0.25);
        assert_eq!(Aggregation::Max.combine(&scores), 1.0);
        for aggregation in [Aggregation::Mean, Aggregation::Min, Aggregation::Max] {
            assert_eq!(aggregation.combine(&[]), 1.0, "{}", aggregation.name());
        }
    }
}
