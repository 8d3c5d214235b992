//! agentv's template variables in a custom `llm-grader` prompt (`template-variables.ts`):
//! `{{name}}` (spaces inside the braces allowed) is replaced by the value below; a name not in
//! the table stays as written.
//!
//! | variable | value |
//! |---|---|
//! | `input` | the case's input: its text, or one `role: content` line per message (trimmed) |
//! | `output` | the agent's final answer (trimmed) |
//! | `expected_output` | the reference answer: the text, or the last expected message's content (trimmed) |
//! | `criteria` | the case's `criteria` (or the inline prompt it was replaced by), else empty |
//! | `metadata` / `metadata_json` | the case's metadata as pretty / compact JSON |
//! | `rubrics` / `rubrics_json` | the grader's rubric items as pretty / compact JSON; empty without rubrics |
//! | `file_changes` | always empty: skillgym keeps no diff of the workspace |
//! | `tool_calls` | one line per tool call, `- <tool>: <key argument>` (agentv's `formatToolCalls`) |
//!
//! An inline prompt that names none of these variables is not a template: it is the criteria
//! of the default prompt ([`is_template`]).

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::{Value, json};
use skillgym::SessionEvent;

use super::GradeInput;
use super::spec::RubricItem;

/// The variable names agentv substitutes.
pub(crate) const VARIABLES: &[&str] = &[
    "input",
    "output",
    "expected_output",
    "criteria",
    "metadata",
    "metadata_json",
    "rubrics",
    "rubrics_json",
    "file_changes",
    "tool_calls",
];

/// A longer string argument is not used as a tool call's key detail.
const MAX_DETAIL: usize = 120;

static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}").expect("a valid pattern"));

/// Whether `text` names one of the [`VARIABLES`].
pub(crate) fn is_template(text: &str) -> bool {
    PLACEHOLDER
        .captures_iter(text)
        .any(|c| VARIABLES.contains(&&c[1]))
}

/// `template` with every variable replaced; `criteria` is the criteria in force.
pub(crate) fn render(
    template: &str,
    input: &GradeInput<'_>,
    criteria: &str,
    items: &[RubricItem],
) -> String {
    PLACEHOLDER
        .replace_all(template, |c: &Captures<'_>| {
            value(&c[1], input, criteria, items).unwrap_or_else(|| c[0].to_owned())
        })
        .into_owned()
}

fn value(
    name: &str,
    input: &GradeInput<'_>,
    criteria: &str,
    items: &[RubricItem],
) -> Option<String> {
    Some(match name {
        "input" => input_text(input.input).trim().to_owned(),
        "output" => input.output.trim().to_owned(),
        "expected_output" => reference_text(input.expected_output).trim().to_owned(),
        "criteria" => criteria.trim().to_owned(),
        "metadata" => serde_json::to_string_pretty(input.metadata).unwrap_or_default(),
        "metadata_json" => input.metadata.to_string(),
        "rubrics" if items.is_empty() => String::new(),
        "rubrics" => serde_json::to_string_pretty(&rubrics_json(items)).unwrap_or_default(),
        "rubrics_json" if items.is_empty() => String::new(),
        "rubrics_json" => rubrics_json(items).to_string(),
        "file_changes" => String::new(),
        "tool_calls" => tool_calls(input),
        _ => return None,
    })
}

/// The case's input as text: a string as is, messages one `role: content` line each.
pub(crate) fn input_text(input: &Value) -> String {
    match input {
        Value::String(text) => text.clone(),
        Value::Array(messages) => messages
            .iter()
            .map(|m| {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
                format!("{role}: {}", content_text(m.get("content").unwrap_or(m)))
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The reference answer: a string as is, else the content of the last expected message.
pub(crate) fn reference_text(expected: &Value) -> String {
    match expected {
        Value::Array(messages) => messages
            .last()
            .map(|m| content_text(m.get("content").unwrap_or(m)))
            .unwrap_or_default(),
        other => content_text(other),
    }
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The rubric items as agentv serialises them.
fn rubrics_json(items: &[RubricItem]) -> Value {
    items
        .iter()
        .map(|item| {
            let mut object = json!({
                "id": item.id,
                "outcome": item.outcome,
                "weight": item.weight,
                "required": item.required,
            });
            if let Some(operator) = item.operator {
                object["operator"] = json!(operator);
            }
            if let Some(min) = item.min_score {
                object["min_score"] = json!(min);
            }
            if !item.score_ranges.is_empty() {
                object["score_ranges"] = item
                    .score_ranges
                    .iter()
                    .map(|r| json!({"score_range": [r.lo, r.hi], "outcome": r.outcome}))
                    .collect();
            }
            object
        })
        .collect()
}

/// One line per tool call: `- <tool>: <detail>`, the detail being its `skill`, `file_path`,
/// `command` or `pattern` argument, else its first short string argument.
pub(crate) fn tool_calls(input: &GradeInput<'_>) -> String {
    input
        .report
        .tool_calls(None)
        .filter_map(|event| match event {
            SessionEvent::ToolCall { tool, args, .. } => Some(match detail(args) {
                Some(detail) => format!("- {tool}: {detail}"),
                None => format!("- {tool}"),
            }),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn detail(args: &Value) -> Option<String> {
    let object = args.as_object()?;
    let known = ["skill", "file_path", "command", "pattern"]
        .iter()
        .find_map(|key| object.get(*key)?.as_str().filter(|s| !s.is_empty()));
    let found = known.or_else(|| {
        object
            .values()
            .filter_map(Value::as_str)
            .find(|s| !s.is_empty() && s.chars().count() <= MAX_DETAIL)
    })?;
    Some(found.chars().take(MAX_DETAIL).collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use skillgym::{SessionEvent, SessionReport};

    use super::*;

    #[test]
    fn only_known_variables_make_a_template() {
        assert!(is_template("Grade {{ output }} please"));
        assert!(is_template("{{criteria}}"));
        assert!(!is_template("Check that it is polite"));
        assert!(!is_template("{{ answer }} is not a variable"));
    }

    #[test]
    fn every_variable_is_substituted_and_unknown_ones_stay() {
        let report = SessionReport::from_events([
            SessionEvent::tool_call("Read", json!({"file_path": "src/lib.rs"})),
            SessionEvent::tool_call("Bash", json!({"command": "cargo test", "timeout": 5})),
            SessionEvent::tool_call("Custom", json!({"n": 1})),
            SessionEvent::assistant("  The answer.  "),
        ]);
        let task = json!([{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Fix it"}]);
        let expected = json!([{"role": "assistant", "content": {"total": 3}}]);
        let metadata = json!({"team": "x"});
        let mut input = GradeInput::new(&report, Path::new("/case"), Duration::from_secs(1));
        input.input = &task;
        input.expected_output = &expected;
        input.metadata = &metadata;
        let mut item = RubricItem::checklist("r1", "Polite");
        item.operator = Some(super::super::spec::RubricOperator::Contradiction);
        let text = render(
            "I={{input}}|O={{ output }}|E={{expected_output}}|C={{criteria}}|M={{metadata_json}}|\
             R={{rubrics_json}}|F={{file_changes}}|T={{tool_calls}}|U={{unknown}}",
            &input,
            "Be right",
            &[item],
        );
        assert_eq!(
            text,
            "I=system: Be brief\nuser: Fix it|O=The answer.|E={\n  \"total\": 3\n}|C=Be right|\
             M={\"team\":\"x\"}|R=[{\"id\":\"r1\",\"operator\":\"contradiction\",\"outcome\":\"Polite\",\"required\":true,\"weight\":1.0}]|\
             F=|T=- Read: src/lib.rs\n- Bash: cargo test\n- Custom|U={{unknown}}"
        );
        assert_eq!(
            render("{{rubrics}}{{metadata}}", &input, "", &[]),
            "{\n  \"team\": \"x\"\n}"
        );
    }
}
