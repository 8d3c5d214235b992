//! A case's `vars:` filled into its text fields (agentv §1.1 step 5), after `${{ NAME }}`.
//!
//! | Written | `vars` holds | Result |
//! |---|---|---|
//! | `"{{ name }}"` (the whole string) | any value | that value (a mapping, a list, a number ...) |
//! | `"Q: {{ name }}"` (partial) | a string / another value | the string / its JSON text, substituted |
//! | `"{{ a.b }}"` | `a: { b: ... }` | the value at that dotted path |
//! | `"{{ missing }}"` | nothing at that path | left as written |
//!
//! Only the fields agentv fills are filled: a case's `input`, `input_files`, `criteria`
//! (`expected_outcome`) and `expected_output`, each of its `turns`' `input` and
//! `expected_output`, and the suite's `input` as it is put before the case's. Graders and
//! metadata are left as written.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value as Json;

use super::model::{Content, Message};
use super::node::{Node, Value};

static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}").expect("valid regex"));

/// The case fields `vars` are filled into.
pub(crate) const FILLED: [&str; 5] = [
    "input",
    "input_files",
    "criteria",
    "expected_outcome",
    "expected_output",
];

/// A case mapping with its `vars:` (a mapping) filled into the [`FILLED`] fields; `None`
/// when it has no `vars` mapping.
pub(crate) fn filled_case(case: &Node) -> Option<(Node, Json)> {
    let Value::Map(entries) = &case.value else {
        return None;
    };
    let (_, vars) = entries
        .iter()
        .find(|(key, _)| key.as_str() == Some("vars"))?;
    if !matches!(vars.value, Value::Map(_)) {
        return None;
    }
    let vars = vars.to_json();
    let mut case = case.clone();
    fill_fields(&mut case, &vars);
    if let Value::Map(entries) = &mut case.value
        && let Some((
            _,
            Node {
                value: Value::Seq(turns),
                ..
            },
        )) = entries
            .iter_mut()
            .find(|(key, _)| key.as_str() == Some("turns"))
    {
        turns.iter_mut().for_each(|turn| fill_fields(turn, &vars));
    }
    Some((case, vars))
}

/// Fills `vars` into the [`FILLED`] fields of the mapping `node`.
fn fill_fields(node: &mut Node, vars: &Json) {
    if let Value::Map(entries) = &mut node.value {
        for (key, value) in entries.iter_mut() {
            if key.as_str().is_some_and(|k| FILLED.contains(&k)) {
                fill_node(value, vars);
            }
        }
    }
}

/// Fills `vars` into every string value of `node`, in place.
pub(crate) fn fill_node(node: &mut Node, vars: &Json) {
    match &mut node.value {
        Value::Str(text) => {
            if let Some(value) = whole(text, vars) {
                node.value = node_value(value, node.line, node.column);
            } else if let Some(filled) = partial(text, vars) {
                *text = filled;
            }
        }
        Value::Seq(items) => items.iter_mut().for_each(|item| fill_node(item, vars)),
        Value::Map(entries) => entries
            .iter_mut()
            .for_each(|(_, value)| fill_node(value, vars)),
        _ => {}
    }
}

/// Fills `vars` into the text of `messages` (the suite's input, put before a case's).
pub(crate) fn fill_messages(messages: &mut [Message], vars: &Json) {
    for message in messages {
        match &mut message.content {
            Content::Text(text) => {
                if let Some(filled) = partial(text, vars) {
                    *text = filled;
                }
            }
            Content::Json(json) => fill_json(json, vars),
        }
    }
}

fn fill_json(json: &mut Json, vars: &Json) {
    match json {
        Json::String(text) => {
            if let Some(value) = whole(text, vars) {
                *json = value.clone();
            } else if let Some(filled) = partial(text, vars) {
                *text = filled;
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|item| fill_json(item, vars)),
        Json::Object(map) => map.values_mut().for_each(|value| fill_json(value, vars)),
        _ => {}
    }
}

/// The value of a string that is one placeholder of a var that is set.
fn whole<'v>(text: &str, vars: &'v Json) -> Option<&'v Json> {
    let captures = PLACEHOLDER.captures(text.trim())?;
    if captures.get(0)?.as_str().len() != text.trim().len() {
        return None;
    }
    lookup(vars, &captures[1])
}

/// `text` with every placeholder of a var that is set replaced; `None` when none is.
fn partial(text: &str, vars: &Json) -> Option<String> {
    let mut changed = false;
    let filled =
        PLACEHOLDER.replace_all(text, |c: &regex::Captures<'_>| match lookup(vars, &c[1]) {
            Some(Json::String(s)) => {
                changed = true;
                s.clone()
            }
            Some(other) => {
                changed = true;
                other.to_string()
            }
            None => c[0].to_owned(),
        });
    changed.then(|| filled.into_owned())
}

/// The value at a dotted path of `vars`.
fn lookup<'v>(vars: &'v Json, path: &str) -> Option<&'v Json> {
    path.split('.').try_fold(vars, |at, key| at.get(key))
}

/// A JSON value as a node's value, every node at `line`:`column`.
fn node_value(json: &Json, line: u32, column: u32) -> Value {
    let node = |json: &Json| Node {
        value: node_value(json, line, column),
        line,
        column,
    };
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0)), Value::Int),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::Seq(items.iter().map(node).collect()),
        Json::Object(map) => Value::Map(
            map.iter()
                .map(|(key, value)| (node(&Json::String(key.clone())), node(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn filled(yaml: &str, vars: Json) -> Json {
        let mut node = super::super::node::parse_document(Path::new("t.yaml"), yaml, 0).unwrap();
        fill_node(&mut node, &vars);
        node.to_json()
    }

    #[test]
    fn placeholders_take_values_at_dotted_paths() {
        let vars = json!({"q": "the capital of France?", "expected": {"answer": "Paris", "n": 3}});
        assert_eq!(
            filled(
                "a: 'Q: {{q}}'\nb: '{{ expected.answer }}'\nc: '{{expected}}'\nd: 'n={{expected.n}}'\ne: '{{missing}} {{ q }}'\n",
                vars
            ),
            json!({
                "a": "Q: the capital of France?",
                "b": "Paris",
                "c": {"answer": "Paris", "n": 3},
                "d": "n=3",
                "e": "{{missing}} the capital of France?",
            })
        );
    }

    #[test]
    fn suite_messages_are_filled_too() {
        let mut messages = vec![Message {
            role: super::super::model::Role::System,
            content: Content::Text("Answer {{category}} questions.".into()),
        }];
        fill_messages(&mut messages, &json!({"category": "geography"}));
        assert_eq!(
            messages[0].content,
            Content::Text("Answer geography questions.".into())
        );
    }
}
