//! `tool-trajectory`: the session's tool calls (its tool-call events, names as the agent
//! reported them, compared exactly) against minimums or an expected sequence.
//!
//! | mode | checks | |
//! |---|---|---|
//! | `any_order` | one per `minimums` entry: the tool was called at least n times | |
//! | `in_order` | one per expected item: a greedy forward scan finds the next call of that tool; a call with the right name but other arguments is consumed and fails the item; an item not found leaves the scan where it was | |
//! | `exact` | one for the number of calls, then one per expected item against the call at its position | |
//! | `superset` | one per expected item: it matches a distinct call (first unused match) | |
//! | `subset` | one per call: it matches some expected item (items are reusable); no calls → one passing check | |
//!
//! Score = checks passed / checks (the `expected` modes count an item's `max_duration_ms`
//! as one more check when the call matched and its duration is known: the time between the
//! call and its result with the same id, both with RFC 3339 times; unknown → no check).
//! Verdict `score >= 0.8`. Empty `minimums` (`any_order`) or `expected` (`in_order`,
//! `superset`) is a grader error.
//!
//! | `args_match` | a call matches an item's `args` when |
//! |---|---|
//! | `exact` (default) | the call's arguments equal them |
//! | `superset` | the call has every expected key with an equal value (and maybe more) |
//! | `subset` | every key of the call is expected with an equal value |
//! | `ignore` | always |
//! | dot paths (`a.b[0].c`) | the values at these paths are equal (a path missing on both sides is equal) |
//!
//! An item without `args` matches any call of its tool; an item's own `args_match` overrides
//! the grader's.

use serde_json::{Value, json};
use skillgym::{SessionEvent, SessionReport};

use super::spec::{ArgsMatch, ExpectedCall, TrajectoryMode, TrajectorySpec};
use super::{Check, GraderOutcome};

/// One tool call of the session.
#[derive(Debug)]
struct Call<'a> {
    tool: &'a str,
    args: &'a Value,
    /// From the call to its result, when both times are known.
    duration_ms: Option<u64>,
}

/// A trajectory whose list of expected calls is empty.
#[derive(Debug, thiserror::Error)]
#[error("`{key}` is empty")]
pub(crate) struct EmptyList {
    /// `minimums` or `expected`.
    key: &'static str,
}

/// Grades `tool-trajectory`.
pub(crate) fn grade(
    spec: &TrajectorySpec,
    report: &SessionReport,
) -> Result<GraderOutcome, EmptyList> {
    let calls = calls(report);
    let checks = match spec.mode {
        TrajectoryMode::AnyOrder => any_order(spec, &calls)?,
        TrajectoryMode::InOrder => in_order(spec, &calls)?,
        TrajectoryMode::Exact => exact(spec, &calls),
        TrajectoryMode::Superset => superset(spec, &calls)?,
        TrajectoryMode::Subset => subset(spec, &calls),
    };
    let names: Vec<&str> = calls.iter().map(|call| call.tool).collect();
    Ok(GraderOutcome::fraction(checks).with_details(json!({ "calls": names })))
}

/// The tool calls of `report`, each with its duration when known.
fn calls(report: &SessionReport) -> Vec<Call<'_>> {
    report
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, event)| match event {
            SessionEvent::ToolCall { id, tool, args, at } => Some(Call {
                tool,
                args,
                duration_ms: duration_ms(&report.events[i + 1..], id.as_deref(), at.as_deref()),
            }),
            _ => None,
        })
        .collect()
}

/// The time from `at` to the result of call `id` among `later` events.
fn duration_ms(later: &[SessionEvent], id: Option<&str>, at: Option<&str>) -> Option<u64> {
    let (id, start) = (id?, epoch_ms(at?)?);
    let end = later.iter().find_map(|event| match event {
        SessionEvent::ToolResult {
            id: Some(result),
            at,
            ..
        } if result == id => Some(at.as_deref()),
        _ => None,
    })??;
    u64::try_from(epoch_ms(end)? - start).ok()
}

/// Milliseconds since the Unix epoch of an RFC 3339 time (`2026-01-02T03:04:05.678Z`,
/// offsets `±HH:MM`).
fn epoch_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        let padded = format!("{:0<3}", &fraction[..digits.min(3)]);
        millis = padded.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hours: i64 = rest[1..3].parse().ok()?;
            let minutes: i64 = rest[4..6].parse().ok()?;
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn any_order(spec: &TrajectorySpec, calls: &[Call<'_>]) -> Result<Vec<Check>, EmptyList> {
    if spec.minimums.is_empty() {
        return Err(EmptyList { key: "minimums" });
    }
    Ok(spec
        .minimums
        .iter()
        .map(|(tool, min)| {
            let count = calls.iter().filter(|call| call.tool == tool).count() as u64;
            Check::with(
                format!("{tool:?} called at least {min} times"),
                count >= *min,
                format!("{count} calls"),
            )
        })
        .collect())
}

fn in_order(spec: &TrajectorySpec, calls: &[Call<'_>]) -> Result<Vec<Check>, EmptyList> {
    if spec.expected.is_empty() {
        return Err(EmptyList { key: "expected" });
    }
    let mut checks = Vec::new();
    let mut cursor = 0;
    for (n, item) in spec.expected.iter().enumerate() {
        let text = format!("step {}: {}", n + 1, describe(item));
        match calls[cursor..]
            .iter()
            .position(|call| call.tool == item.tool)
        {
            None => checks.push(Check::with(
                text,
                false,
                format!("no {:?} call after call {cursor}", item.tool),
            )),
            Some(offset) => {
                let at = cursor + offset;
                cursor = at + 1;
                push_item(&mut checks, spec, item, &calls[at], at, text);
            }
        }
    }
    Ok(checks)
}

fn exact(spec: &TrajectorySpec, calls: &[Call<'_>]) -> Vec<Check> {
    let names: Vec<&str> = calls.iter().map(|call| call.tool).collect();
    let mut checks = vec![Check::with(
        format!("exactly {} tool calls", spec.expected.len()),
        calls.len() == spec.expected.len(),
        format!("{} calls: {names:?}", calls.len()),
    )];
    for (n, item) in spec.expected.iter().enumerate() {
        let text = format!("call {}: {}", n + 1, describe(item));
        match calls.get(n) {
            Some(call) if call.tool == item.tool => {
                push_item(&mut checks, spec, item, call, n, text);
            }
            Some(call) => checks.push(Check::with(text, false, format!("was {:?}", call.tool))),
            None => checks.push(Check::with(text, false, "no such call")),
        }
    }
    checks
}

fn superset(spec: &TrajectorySpec, calls: &[Call<'_>]) -> Result<Vec<Check>, EmptyList> {
    if spec.expected.is_empty() {
        return Err(EmptyList { key: "expected" });
    }
    let mut used = vec![false; calls.len()];
    let mut checks = Vec::new();
    for item in &spec.expected {
        let text = format!("a call of {}", describe(item));
        let found = calls
            .iter()
            .enumerate()
            .position(|(i, call)| !used[i] && matches(spec, item, call));
        match found {
            Some(at) => {
                used[at] = true;
                push_item(&mut checks, spec, item, &calls[at], at, text);
            }
            None => {
                let count = calls.iter().filter(|call| call.tool == item.tool).count();
                checks.push(Check::with(
                    text,
                    false,
                    format!("no unused matching call ({count} calls of {:?})", item.tool),
                ));
            }
        }
    }
    Ok(checks)
}

fn subset(spec: &TrajectorySpec, calls: &[Call<'_>]) -> Vec<Check> {
    if calls.is_empty() {
        return vec![Check::new(
            "every tool call is expected (no tool calls)",
            true,
        )];
    }
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let allowed = spec.expected.iter().any(|item| matches(spec, item, call));
            let text = format!("call {} ({:?}) is expected", i + 1, call.tool);
            if allowed {
                Check::new(text, true)
            } else {
                Check::with(text, false, format!("arguments: {}", call.args))
            }
        })
        .collect()
}

/// The checks of an item matched by name to call `at`: its arguments, then its duration.
fn push_item(
    checks: &mut Vec<Check>,
    spec: &TrajectorySpec,
    item: &ExpectedCall,
    call: &Call<'_>,
    at: usize,
    text: String,
) {
    let args_ok = matches(spec, item, call);
    if args_ok {
        checks.push(Check::with(text, true, format!("call {}", at + 1)));
    } else {
        checks.push(Check::with(
            text,
            false,
            format!("call {} had other arguments: {}", at + 1, call.args),
        ));
        return;
    }
    if let (Some(max), Some(took)) = (item.max_duration_ms, call.duration_ms) {
        checks.push(Check::with(
            format!("call {} ({:?}) took at most {max} ms", at + 1, call.tool),
            took <= max,
            format!("{took} ms"),
        ));
    }
}

fn describe(item: &ExpectedCall) -> String {
    match &item.args {
        Some(args) => format!("{:?} with {args}", item.tool),
        None => format!("{:?}", item.tool),
    }
}

/// Whether `call` is a call of `item` (name and arguments).
fn matches(spec: &TrajectorySpec, item: &ExpectedCall, call: &Call<'_>) -> bool {
    if call.tool != item.tool {
        return false;
    }
    let Some(expected) = &item.args else {
        return true;
    };
    args_match(
        expected,
        call.args,
        item.args_match.as_ref().unwrap_or(&spec.args_match),
    )
}

/// Whether `actual` arguments match `expected` under `how`.
fn args_match(expected: &Value, actual: &Value, how: &ArgsMatch) -> bool {
    match how {
        ArgsMatch::Exact => expected == actual,
        ArgsMatch::Superset => keys_within(expected, actual),
        ArgsMatch::Subset => keys_within(actual, expected),
        ArgsMatch::Ignore => true,
        ArgsMatch::Paths(paths) => paths
            .iter()
            .all(|path| lookup(expected, path) == lookup(actual, path)),
    }
}

/// Every key of object `small` is in object `big` with an equal value (non-objects: equal;
/// `null` arguments count as no keys).
fn keys_within(small: &Value, big: &Value) -> bool {
    match (small, big) {
        (Value::Null, _) => true,
        (Value::Object(small), Value::Object(big)) => {
            small.iter().all(|(key, value)| big.get(key) == Some(value))
        }
        (Value::Object(small), Value::Null) => small.is_empty(),
        _ => small == big,
    }
}

/// The value at a dot path (`a.b[0].c`; a numeric segment indexes an array too).
fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut current = value;
    for segment in path.split('.') {
        let (key, indexes) = match segment.find('[') {
            Some(open) => (&segment[..open], &segment[open..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            current = match current {
                Value::Object(map) => map.get(key)?,
                Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        for index in indexes.split('[').skip(1) {
            let index: usize = index.strip_suffix(']')?.parse().ok()?;
            current = current.as_array()?.get(index)?;
        }
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Verdict;

    fn call(tool: &str, args: Value) -> SessionEvent {
        SessionEvent::tool_call(tool, args)
    }

    fn session(events: impl IntoIterator<Item = SessionEvent>) -> SessionReport {
        SessionReport::from_events(events)
    }

    fn item(tool: &str, args: Option<Value>) -> ExpectedCall {
        ExpectedCall {
            tool: tool.into(),
            args,
            args_match: None,
            max_duration_ms: None,
        }
    }

    fn spec(mode: TrajectoryMode, expected: Vec<ExpectedCall>) -> TrajectorySpec {
        TrajectorySpec {
            mode,
            minimums: Vec::new(),
            expected,
            args_match: ArgsMatch::Exact,
        }
    }

    fn score(spec: &TrajectorySpec, report: &SessionReport) -> f64 {
        grade(spec, report).expect("grades").score
    }

    fn read(path: &str) -> SessionEvent {
        call("Read", json!({"file_path": path}))
    }

    fn bash(command: &str) -> SessionEvent {
        call("Bash", json!({"command": command, "timeout": 60}))
    }

    #[test]
    fn any_order_checks_each_minimum() {
        let report = session([read("a"), bash("ls"), read("b")]);
        let mut spec = spec(TrajectoryMode::AnyOrder, vec![]);
        spec.minimums = vec![("Read".into(), 2), ("Bash".into(), 1)];
        let outcome = grade(&spec, &report).unwrap();
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(
            outcome.details,
            Some(json!({"calls": ["Read", "Bash", "Read"]}))
        );

        spec.minimums = vec![("Read".into(), 3), ("Bash".into(), 1), ("Edit".into(), 0)];
        let outcome = grade(&spec, &report).unwrap();
        assert!((outcome.score - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(outcome.checks[0].evidence.as_deref(), Some("2 calls"));
        assert_eq!(outcome.verdict, Verdict::Fail);

        spec.minimums.clear();
        assert_eq!(
            grade(&spec, &report).unwrap_err().to_string(),
            "`minimums` is empty"
        );
    }

    #[test]
    fn in_order_scans_forward_greedily() {
        let report = session([read("a"), bash("ls"), call("Edit", json!({})), bash("test")]);
        let ordered = spec(
            TrajectoryMode::InOrder,
            vec![item("Read", None), item("Edit", None), item("Bash", None)],
        );
        assert_eq!(score(&ordered, &report), 1.0);

        let reversed = spec(
            TrajectoryMode::InOrder,
            vec![item("Edit", None), item("Read", None), item("Bash", None)],
        );
        let outcome = grade(&reversed, &report).unwrap();
        assert!(
            (outcome.score - 2.0 / 3.0).abs() < 1e-12,
            "{:?}",
            outcome.checks
        );
        assert!(!outcome.checks[1].passed, "no Read after the Edit");
        assert!(outcome.checks[2].passed, "the scan stayed after the Edit");
    }

    #[test]
    fn in_order_consumes_a_call_with_other_arguments() {
        let report = session([bash("ls"), bash("cargo test")]);
        let spec = spec(
            TrajectoryMode::InOrder,
            vec![item(
                "Bash",
                Some(json!({"command": "cargo test", "timeout": 60})),
            )],
        );
        let outcome = grade(&spec, &report).unwrap();
        assert_eq!(outcome.score, 0.0);
        assert!(
            outcome.checks[0]
                .evidence
                .as_deref()
                .unwrap()
                .starts_with("call 1 had other arguments")
        );
    }

    #[test]
    fn exact_counts_the_length_and_compares_positions() {
        let report = session([read("a"), bash("ls")]);
        let same = spec(
            TrajectoryMode::Exact,
            vec![item("Read", None), item("Bash", None)],
        );
        assert_eq!(score(&same, &report), 1.0);
        let longer = spec(
            TrajectoryMode::Exact,
            vec![item("Read", None), item("Bash", None), item("Edit", None)],
        );
        let outcome = grade(&longer, &report).unwrap();
        assert_eq!(outcome.score, 0.5, "{:?}", outcome.checks);
        assert_eq!(outcome.checks[3].evidence.as_deref(), Some("no such call"));
        let swapped = spec(
            TrajectoryMode::Exact,
            vec![item("Bash", None), item("Read", None)],
        );
        assert!((score(&swapped, &report) - 1.0 / 3.0).abs() < 1e-12);
        let empty = spec(TrajectoryMode::Exact, vec![]);
        assert_eq!(score(&empty, &session([])), 1.0);
        assert_eq!(score(&empty, &report), 0.0);
    }

    #[test]
    fn superset_needs_a_distinct_call_per_item() {
        let report = session([read("a"), bash("ls"), read("b")]);
        let twice = spec(
            TrajectoryMode::Superset,
            vec![item("Read", None), item("Read", None)],
        );
        assert_eq!(score(&twice, &report), 1.0);
        let thrice = spec(
            TrajectoryMode::Superset,
            vec![item("Read", None), item("Read", None), item("Read", None)],
        );
        assert!((score(&thrice, &report) - 2.0 / 3.0).abs() < 1e-12);
        let none = spec(TrajectoryMode::Superset, vec![]);
        assert_eq!(
            grade(&none, &report).unwrap_err().to_string(),
            "`expected` is empty"
        );
    }

    #[test]
    fn subset_allows_only_expected_calls() {
        let report = session([read("a"), bash("rm -rf /"), read("b")]);
        let reads = spec(TrajectoryMode::Subset, vec![item("Read", None)]);
        let outcome = grade(&reads, &report).unwrap();
        assert!((outcome.score - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(outcome.checks[1].text, "call 2 (\"Bash\") is expected");
        assert_eq!(score(&reads, &session([])), 1.0, "no calls");
        assert_eq!(
            score(&spec(TrajectoryMode::Subset, vec![]), &report),
            0.0,
            "nothing expected, calls made"
        );
    }

    #[test]
    fn arguments_match_exact_superset_subset_ignore_and_paths() {
        let actual = json!({"command": "cargo test", "timeout": 60, "opts": {"env": [{"k": "v"}]}});
        let exact = ArgsMatch::Exact;
        assert!(args_match(&actual, &actual, &exact));
        assert!(!args_match(
            &json!({"command": "cargo test"}),
            &actual,
            &exact
        ));
        assert!(args_match(
            &json!({"command": "cargo test"}),
            &actual,
            &ArgsMatch::Superset
        ));
        assert!(!args_match(
            &json!({"command": "ls"}),
            &actual,
            &ArgsMatch::Superset
        ));
        assert!(!args_match(
            &json!({"command": "cargo test"}),
            &actual,
            &ArgsMatch::Subset
        ));
        let wider = json!({"command": "cargo test", "timeout": 60, "opts": actual["opts"], "x": 1});
        assert!(args_match(&wider, &actual, &ArgsMatch::Subset));
        assert!(args_match(&json!({"a": 1}), &actual, &ArgsMatch::Ignore));
        let paths = ArgsMatch::Paths(vec!["command".into(), "opts.env[0].k".into()]);
        assert!(args_match(
            &json!({"command": "cargo test", "opts": {"env": [{"k": "v"}]}, "timeout": 1}),
            &actual,
            &paths
        ));
        assert!(!args_match(
            &json!({"command": "cargo test", "opts": {"env": [{"k": "w"}]}}),
            &actual,
            &paths
        ));
        assert_eq!(lookup(&actual, "opts.env.0.k"), Some(&json!("v")));
        assert_eq!(lookup(&actual, "opts.env[3].k"), None);
    }

    #[test]
    fn an_item_args_match_overrides_the_graders() {
        let report = session([bash("cargo test")]);
        let mut loose = item("Bash", Some(json!({"command": "cargo test"})));
        let strict = spec(TrajectoryMode::Superset, vec![loose.clone()]);
        assert_eq!(score(&strict, &report), 0.0, "exact by default");
        loose.args_match = Some(ArgsMatch::Superset);
        assert_eq!(
            score(&spec(TrajectoryMode::Superset, vec![loose]), &report),
            1.0
        );
    }

    fn timed(id: &str, start: &str, end: &str) -> [SessionEvent; 2] {
        [
            SessionEvent::ToolCall {
                id: Some(id.into()),
                tool: "Bash".into(),
                args: json!({}),
                at: Some(start.into()),
            },
            SessionEvent::ToolResult {
                id: Some(id.into()),
                tool: None,
                output: String::new(),
                is_error: false,
                at: Some(end.into()),
            },
        ]
    }

    #[test]
    fn max_duration_is_checked_when_the_duration_is_known() {
        let mut events =
            timed("t1", "2026-01-02T03:04:05.100Z", "2026-01-02T03:04:06.600Z").to_vec();
        events.push(call("Bash", json!({})));
        let report = session(events);
        let mut limited = item("Bash", None);
        limited.max_duration_ms = Some(1000);
        let spec = spec(TrajectoryMode::InOrder, vec![limited.clone(), limited]);
        let outcome = grade(&spec, &report).unwrap();
        // Two sequence hits, one latency check (the second call has no times): 2 of 3.
        assert_eq!(outcome.checks.len(), 3, "{:?}", outcome.checks);
        assert_eq!(outcome.checks[1].evidence.as_deref(), Some("1500 ms"));
        assert!(!outcome.checks[1].passed);
        assert!((outcome.score - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn rfc3339_times_parse_with_offsets_and_fractions() {
        assert_eq!(epoch_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_ms("1970-01-01T01:00:00.5+01:00"), Some(500));
        assert_eq!(
            epoch_ms("2000-03-01T00:00:00.123456Z"),
            Some(951_868_800_123)
        );
        assert_eq!(epoch_ms("not a time"), None);
        assert_eq!(epoch_ms("2026-01-02T03:04:05"), None);
        let [start, end] = timed("x", "2026-01-02T03:04:05Z", "2026-01-02T03:04:04Z");
        let report = session([start, end]);
        assert_eq!(
            calls(&report)[0].duration_ms,
            None,
            "a result before its call"
        );
    }
}
