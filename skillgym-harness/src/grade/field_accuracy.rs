//! `field-accuracy`: fields of the agent's JSON answer against the case's expected output
//! (agentv's `field-accuracy.ts`).
//!
//! | step | rule |
//! |---|---|
//! | candidate | the final answer without ```` ``` ```` fences, from its first `{` to its last `}`, parsed as JSON; unparseable → score 0, one failed check `Failed to parse candidate answer as JSON` |
//! | expected | the expected output: its text parsed as JSON, or the last assistant message whose content is an object (or a string that parses); none → score 0, `No expected data found in expected_output` |
//! | path | dots and `[i]` indexes: `invoice.items[0].amount` |
//! | no expected value | the field scores 1 (`<path>: no expected value`) |
//! | no candidate value | required (the default): 0, `<path> (required, missing)`; optional: weight 0 |
//! | `exact` | deep equality (numbers compare by value) |
//! | `numeric_tolerance` | numbers or strings with a leading number; `abs(c - e) <= tolerance`, or `/ abs(e)` when `relative` (e = 0: the absolute difference) |
//! | `date` | the same calendar day; dates read as ISO (`2025-01-15`, with a time after it), `15-JAN-2025`, `Jan 15, 2025`, or `n/n/yyyy` (`-` too) — month first or day first by `formats` (only `MM/DD…` or only `DD/MM…`), else a part over 12 decides, else month first |
//! | score | `weighted_average` (default): weighted mean of the fields (total weight 0: 0, or 1 without fields); `all_or_nothing`: 1 iff every field passed |
//! | verdict | pass at [`PASS_SCORE`](super::PASS_SCORE) |
//!
//! agentv reads dates with JavaScript's `Date` first, which also takes other spellings (and reads
//! every `n/n/yyyy` month first whatever `formats` say); skillgym reads only the forms above.

use serde_json::Value;

use super::spec::{FieldAccuracySpec, FieldMatch, FieldSpec};
use super::{Check, GradeInput, GraderOutcome};

/// One field's result.
struct FieldResult {
    score: f64,
    weight: f64,
    hit: bool,
    message: String,
}

/// Grades the fields of `spec` against the attempt's answer and the case's expected output.
pub(crate) fn grade(spec: &FieldAccuracySpec, input: &GradeInput<'_>) -> GraderOutcome {
    let Some(candidate) = json_from_text(input.output) else {
        return GraderOutcome::scored(
            0.0,
            vec![Check::new(
                "Failed to parse candidate answer as JSON",
                false,
            )],
        );
    };
    let Some(expected) = expected_data(input.expected_output) else {
        return GraderOutcome::scored(
            0.0,
            vec![Check::new(
                "No expected data found in expected_output",
                false,
            )],
        );
    };
    let results: Vec<FieldResult> = spec
        .fields
        .iter()
        .map(|field| {
            compare(
                field,
                resolve(&candidate, &field.path),
                resolve(&expected, &field.path),
            )
        })
        .collect();
    let score = if spec.all_or_nothing {
        if results.iter().all(|r| r.hit) {
            1.0
        } else {
            0.0
        }
    } else if results.is_empty() {
        1.0
    } else {
        let pairs: Vec<(f64, f64)> = results.iter().map(|r| (r.weight, r.score)).collect();
        crate::figures::weighted_mean(&pairs).unwrap_or(0.0)
    };
    let checks = results
        .into_iter()
        .map(|r| Check::new(r.message, r.hit))
        .collect();
    GraderOutcome::scored(score, checks)
}

/// The JSON of `text`: fences removed, the first `{` to the last `}` if any.
fn json_from_text(text: &str) -> Option<Value> {
    let cleaned = text
        .replace("```json\n", "")
        .replace("```json", "")
        .replace("```", "");
    let cleaned = cleaned.trim();
    let blob = match (cleaned.find('{'), cleaned.rfind('}')) {
        (Some(start), Some(end)) if end > start => &cleaned[start..=end],
        _ => cleaned,
    };
    serde_json::from_str(blob).ok()
}

/// The expected data: the text parsed, or the last assistant message's object content.
fn expected_data(expected: &Value) -> Option<Value> {
    match expected {
        Value::String(text) => json_from_text(text),
        Value::Array(messages) => messages.iter().rev().find_map(|message| {
            if message.get("role").and_then(Value::as_str) != Some("assistant") {
                return None;
            }
            match message.get("content")? {
                Value::String(text) if !text.is_empty() => json_from_text(text),
                content @ (Value::Object(_) | Value::Array(_)) => Some(content.clone()),
                _ => None,
            }
        }),
        Value::Object(_) => Some(expected.clone()),
        _ => None,
    }
}

/// The value at a dot path with `[i]` indexes.
fn resolve<'v>(root: &'v Value, path: &str) -> Option<&'v Value> {
    let mut current = root;
    for part in path.split(['.', '[', ']']).filter(|p| !p.is_empty()) {
        current = match current {
            Value::Array(items) if part.bytes().all(|b| b.is_ascii_digit()) => {
                items.get(part.parse::<usize>().ok()?)?
            }
            Value::Object(map) => map.get(part)?,
            _ => return None,
        };
    }
    Some(current)
}

fn compare(field: &FieldSpec, candidate: Option<&Value>, expected: Option<&Value>) -> FieldResult {
    let path = &field.path;
    let result = |score: f64, hit: bool, message: String| FieldResult {
        score,
        weight: field.weight,
        hit,
        message,
    };
    let Some(expected) = expected else {
        return result(1.0, true, format!("{path}: no expected value"));
    };
    let Some(candidate) = candidate else {
        if field.required {
            return result(0.0, false, format!("{path} (required, missing)"));
        }
        return FieldResult {
            weight: 0.0,
            ..result(1.0, true, format!("{path}: optional field missing"))
        };
    };
    let (hit, message) = match &field.matcher {
        FieldMatch::Exact => exact(path, candidate, expected),
        FieldMatch::Numeric {
            tolerance,
            relative,
        } => numeric(path, candidate, expected, *tolerance, *relative),
        FieldMatch::Date { formats } => date(path, candidate, expected, formats),
    };
    result(if hit { 1.0 } else { 0.0 }, hit, message)
}

fn exact(path: &str, candidate: &Value, expected: &Value) -> (bool, String) {
    if same(candidate, expected) {
        return (true, path.to_owned());
    }
    let (got, want) = (js_type(candidate), js_type(expected));
    if got != want {
        return (
            false,
            format!("{path} (type mismatch: got {got}, expected {want})"),
        );
    }
    (false, format!("{path} (value mismatch)"))
}

/// Deep equality, numbers by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// JavaScript's `typeof` of a JSON value.
fn js_type(value: &Value) -> &'static str {
    match value {
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

fn numeric(
    path: &str,
    candidate: &Value,
    expected: &Value,
    tolerance: f64,
    relative: bool,
) -> (bool, String) {
    let (Some(c), Some(e)) = (number(candidate), number(expected)) else {
        return (false, format!("{path} (non-numeric value)"));
    };
    let diff = (c - e).abs();
    let within = if relative && e != 0.0 {
        diff / e.abs() <= tolerance
    } else {
        diff <= tolerance
    };
    if within {
        (true, format!("{path} (within tolerance: diff={diff:.2})"))
    } else {
        let message = format!("{path} (outside tolerance: diff={diff:.2}, tolerance={tolerance})");
        (false, message)
    }
}

/// A number, or a string's leading number (JavaScript's `parseFloat`).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => {
            let text = text.trim_start();
            // The longest run of number characters, then its longest prefix that parses.
            let run = text
                .bytes()
                .take_while(|b| b.is_ascii_digit() || b"+-.eE".contains(b))
                .count();
            (1..=run)
                .rev()
                .find_map(|end| text[..end].parse::<f64>().ok())
                .filter(|n| n.is_finite())
        }
        _ => None,
    }
}

fn date(path: &str, candidate: &Value, expected: &Value, formats: &[String]) -> (bool, String) {
    let Some(c) = parse_date(&text_of(candidate), formats) else {
        return (false, format!("{path} (unparseable candidate date)"));
    };
    let Some(e) = parse_date(&text_of(expected), formats) else {
        return (false, format!("{path} (unparseable expected date)"));
    };
    if c == e {
        return (true, path.to_owned());
    }
    let iso = |(y, m, d): (u32, u32, u32)| format!("{y:04}-{m:02}-{d:02}");
    let message = format!(
        "{path} (date mismatch: got {}, expected {})",
        iso(c),
        iso(e)
    );
    (false, message)
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A month's number (1–12) from its name or a prefix of at least three letters (`sept` too).
fn month(name: &str) -> Option<u32> {
    let name = name.to_ascii_lowercase();
    if name == "sept" {
        return Some(9);
    }
    const FULL: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    (0..12)
        .find(|&i| name == MONTHS[i] || name == FULL[i])
        .map(|i| i as u32 + 1)
}

/// `(year, month, day)` of a date in one of the module's forms.
fn parse_date(text: &str, formats: &[String]) -> Option<(u32, u32, u32)> {
    let text = text.trim();
    let digits = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let valid = |(y, m, d): (u32, u32, u32)| {
        ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
    };
    // ISO: yyyy-mm-dd, then anything (a time).
    if let (Some(y), Some(m), Some(d)) = (
        text.get(..4).and_then(digits),
        text.get(5..7).and_then(digits),
        text.get(8..10).and_then(digits),
    ) && text.as_bytes().get(4) == Some(&b'-')
        && text.as_bytes().get(7) == Some(&b'-')
        && text.get(10..11).is_none_or(|c| c == "T" || c == " ")
    {
        return valid((y, m, d));
    }
    let parts: Vec<&str> = text.split(['-', '/']).collect();
    if let [a, b, c] = parts[..]
        && let Some(year) = digits(c).filter(|_| c.len() == 4)
    {
        if let (Some(day), Some(m)) = (digits(a), month(b)) {
            return valid((year, m, day));
        }
        let (Some(x), Some(y)) = (digits(a), digits(b)) else {
            return None;
        };
        return valid(numeric_order(x, y, year, formats));
    }
    // `Jan 15, 2025`.
    let words: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    if let [m, d, y] = words[..] {
        return valid((digits(y)?, month(m)?, digits(d)?));
    }
    None
}

/// Month first or day first, by `formats`, else by a part over 12, else month first.
fn numeric_order(x: u32, y: u32, year: u32, formats: &[String]) -> (u32, u32, u32) {
    let us = formats
        .iter()
        .any(|f| f.contains("MM/DD") || f.contains("MM-DD"));
    let eu = formats
        .iter()
        .any(|f| f.contains("DD/MM") || f.contains("DD-MM"));
    match (us, eu) {
        (true, false) => (year, x, y),
        (false, true) => (year, y, x),
        _ if x > 12 && y <= 12 => (year, y, x),
        _ => (year, x, y),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillgym::SessionReport;

    use super::*;
    use crate::grade::Verdict;
    use crate::grade::test_support::{TIMEOUT, case_dir};

    fn field(path: &str, matcher: FieldMatch) -> FieldSpec {
        FieldSpec {
            path: path.into(),
            matcher,
            required: true,
            weight: 1.0,
        }
    }

    fn run(spec: &FieldAccuracySpec, output: &str, expected: &Value) -> GraderOutcome {
        let report = SessionReport::default().with_final_output(output);
        let mut input = GradeInput::new(&report, case_dir(), TIMEOUT);
        input.expected_output = expected;
        grade(spec, &input)
    }

    fn invoice_fields() -> FieldAccuracySpec {
        FieldAccuracySpec {
            fields: vec![
                field("invoice.number", FieldMatch::Exact),
                field(
                    "invoice.items[0].amount",
                    FieldMatch::Numeric {
                        tolerance: 0.01,
                        relative: false,
                    },
                ),
                field("invoice.date", FieldMatch::Date { formats: vec![] }),
                FieldSpec {
                    required: false,
                    ..field("invoice.po", FieldMatch::Exact)
                },
            ],
            all_or_nothing: false,
        }
    }

    #[test]
    fn fields_compare_by_their_match_and_average() {
        let expected = json!([{"role": "user", "content": "x"}, {"role": "assistant", "content":
            {"invoice": {"number": "INV-1", "items": [{"amount": 100.0}], "date": "2025-01-15", "po": "P9"}}}]);
        let answer = "Here:\n```json\n{\"invoice\": {\"number\": \"INV-1\", \"items\": [{\"amount\": \"100.004 USD\"}], \"date\": \"15-JAN-2025\"}}\n```";
        let outcome = run(&invoice_fields(), answer, &expected);
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        let texts: Vec<&str> = outcome.checks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "invoice.number",
                "invoice.items[0].amount (within tolerance: diff=0.00)",
                "invoice.date",
                "invoice.po: optional field missing"
            ]
        );
        let answer =
            r#"{"invoice": {"number": 1, "items": [{"amount": 101}], "date": "01/16/2025"}}"#;
        let outcome = run(&invoice_fields(), answer, &expected);
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
        let texts: Vec<&str> = outcome.checks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            &texts[..3],
            [
                "invoice.number (type mismatch: got number, expected string)",
                "invoice.items[0].amount (outside tolerance: diff=1.00, tolerance=0.01)",
                "invoice.date (date mismatch: got 2025-01-16, expected 2025-01-15)",
            ]
        );
    }

    #[test]
    fn missing_values_and_all_or_nothing() {
        let expected = json!(r#"{"a": 1, "b": "x"}"#);
        let spec = FieldAccuracySpec {
            fields: vec![
                field("a", FieldMatch::Exact),
                field("b", FieldMatch::Exact),
                field("c", FieldMatch::Exact),
            ],
            all_or_nothing: false,
        };
        let outcome = run(&spec, r#"{"a": 1.0}"#, &expected);
        assert!(
            (outcome.score - 2.0 / 3.0).abs() < 1e-12,
            "{}",
            outcome.score
        );
        assert_eq!(outcome.checks[1].text, "b (required, missing)");
        assert_eq!(outcome.checks[2].text, "c: no expected value");
        let all = FieldAccuracySpec {
            all_or_nothing: true,
            ..spec
        };
        assert_eq!(run(&all, r#"{"a": 1.0}"#, &expected).score, 0.0);
        assert_eq!(run(&all, r#"{"a": 1, "b": "x"}"#, &expected).score, 1.0);
    }

    #[test]
    fn an_unreadable_answer_or_no_expected_data_scores_zero() {
        let spec = invoice_fields();
        let outcome = run(&spec, "no json here", &json!("{}"));
        assert_eq!(
            outcome.checks,
            [Check::new(
                "Failed to parse candidate answer as JSON",
                false
            )]
        );
        let outcome = run(&spec, "{}", &json!("plain words"));
        assert_eq!(
            outcome.checks,
            [Check::new(
                "No expected data found in expected_output",
                false
            )]
        );
        assert_eq!(outcome.verdict, Verdict::Fail);
    }

    #[test]
    fn relative_tolerance_divides_by_the_expected_value() {
        let spec = FieldAccuracySpec {
            fields: vec![field(
                "n",
                FieldMatch::Numeric {
                    tolerance: 0.1,
                    relative: true,
                },
            )],
            all_or_nothing: false,
        };
        let expected = json!(r#"{"n": 200}"#);
        assert_eq!(run(&spec, r#"{"n": 215}"#, &expected).score, 1.0);
        assert_eq!(run(&spec, r#"{"n": 225}"#, &expected).score, 0.0);
        assert_eq!(
            run(&spec, r#"{"n": "about"}"#, &expected).checks[0].text,
            "n (non-numeric value)"
        );
    }

    #[test]
    fn dates_read_in_every_documented_form() {
        let us = ["MM/DD/YYYY".to_owned()];
        let eu = ["DD/MM/YYYY".to_owned()];
        for (text, formats, expected) in [
            ("2025-01-15T10:00:00Z", &[][..], Some((2025, 1, 15))),
            ("15-Jan-2025", &[], Some((2025, 1, 15))),
            ("January 15, 2025", &[], Some((2025, 1, 15))),
            ("02/03/2025", &us[..], Some((2025, 2, 3))),
            ("02/03/2025", &eu[..], Some((2025, 3, 2))),
            ("02-03-2025", &[], Some((2025, 2, 3))),
            ("25/03/2025", &[], Some((2025, 3, 25))),
            ("2025-13-01", &[], None),
            ("soon", &[], None),
        ] {
            assert_eq!(parse_date(text, formats), expected, "{text}");
        }
    }
}
