//! `${{ NAME }}` environment interpolation over a whole document (agentv §1.1 step 3).
//!
//! | Written | `NAME` set to | Result |
//! |---|---|---|
//! | `"${{ NAME }}"` (the whole string) | `true` / `false` | the boolean |
//! | `"${{ NAME }}"` (the whole string) | `-?(0\|[1-9]\d*)(\.\d+)?`, e.g. `42`, `-0.5` | the number |
//! | `"${{ NAME }}"` (the whole string) | anything else | the string |
//! | `"x-${{ NAME }}"` (partial) | anything | a string, substituted |
//! | any | unset | the empty string |
//!
//! Only string values are interpolated (never keys); the environment is a function so tests
//! pass their own.

use std::sync::LazyLock;

use regex::Regex;

use super::node::{Node, Value};

static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}").expect("valid regex"));
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^-?(0|[1-9]\d*)(\.\d+)?$").expect("valid regex"));

/// Looks up an environment variable (`std::env::var` in a run, a map in tests).
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Interpolates every string value of `node` in place.
pub(crate) fn interpolate(node: &mut Node, env: Env<'_>) {
    node.for_each_value_mut(&mut |n| {
        let Value::Str(s) = &n.value else { return };
        if !s.contains("${{") {
            return;
        }
        if let Some(m) = PLACEHOLDER.captures(s)
            && m.get(0).is_some_and(|whole| whole.len() == s.len())
        {
            let value = env(&m[1]).unwrap_or_default();
            n.value = coerce(value);
            return;
        }
        let replaced = PLACEHOLDER
            .replace_all(s, |c: &regex::Captures<'_>| env(&c[1]).unwrap_or_default())
            .into_owned();
        n.value = Value::Str(replaced);
    });
}

fn coerce(value: String) -> Value {
    match value.as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        v if NUMBER.is_match(v) => v
            .parse::<i64>()
            .map(Value::Int)
            .or_else(|_| v.parse::<f64>().map(Value::Float))
            .unwrap_or(Value::Str(value)),
        _ => Value::Str(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn run(yaml: &str) -> serde_json::Value {
        let mut node = super::super::node::parse_document(Path::new("t.yaml"), yaml, 0).unwrap();
        let env = |name: &str| match name {
            "YES" => Some("true".to_owned()),
            "NO" => Some("false".to_owned()),
            "N" => Some("42".to_owned()),
            "F" => Some("-0.5".to_owned()),
            "LEADING_ZERO" => Some("007".to_owned()),
            "WORD" => Some("claude".to_owned()),
            _ => None,
        };
        interpolate(&mut node, &env);
        node.to_json()
    }

    #[test]
    fn exact_placeholders_are_coerced() {
        let json = run(
            "a: ${{ YES }}\nb: ${{NO}}\nc: '${{ N }}'\nd: ${{ F }}\ne: ${{ LEADING_ZERO }}\nf: ${{ WORD }}\n",
        );
        assert_eq!(
            json,
            serde_json::json!({"a": true, "b": false, "c": 42, "d": -0.5, "e": "007", "f": "claude"})
        );
    }

    #[test]
    fn partial_placeholders_stay_strings_and_missing_is_empty() {
        let json =
            run("a: n-${{ N }}\nb: ${{ MISSING }}\nc: x${{ MISSING }}y\nlist: ['${{ WORD }}']\n");
        assert_eq!(
            json,
            serde_json::json!({"a": "n-42", "b": "", "c": "xy", "list": ["claude"]})
        );
    }

    #[test]
    fn keys_are_left_alone() {
        let json = run("${{ WORD }}: 1\n");
        assert_eq!(json, serde_json::json!({"${{ WORD }}": 1}));
    }
}
