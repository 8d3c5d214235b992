//! Graders on the session's figures: `execution-metrics`, `token-usage`, `latency`, `cost`.
//!
//! | figure | from the report | when unknown |
//! |---|---|---|
//! | tool calls | its tool-call events ([`SessionReport::tool_calls`]) | never unknown |
//! | LLM calls | its assistant messages that are not thinking (one per model step that spoke) | never unknown |
//! | tokens | `input + output` (skillgym's input includes cached input) | failed check |
//! | cost | `usage.cost_usd` (the agent's, else estimated from token counts) | failed check |
//! | duration | the session's duration ([`GradeInput::duration`]) | failed check |
//! | exploration ratio | calls to exploration tools / tool calls | no tool calls: failed check |
//!
//! | grader | score |
//! |---|---|
//! | `execution-metrics` | one check per configured limit; checks passed / checks; pass at 0.8 |
//! | `token-usage` | binary: every configured limit met (`max_total` = input + output, `max_input`, `max_output`); no usage → 0 |
//! | `latency` | binary: duration <= `threshold_ms`; no duration → 0 |
//! | `cost` | binary: cost <= `budget_usd`; no cost → 0 |
//!
//! Exploration tools are compared case-insensitively, with a `ToolCall` suffix (Cursor) and
//! `_`/`-` removed: [`EXPLORATION_TOOLS`] holds agentv's names (`read`, `grep`, `glob`,
//! `search`, `list`, `websearch`, `webfetch`) and the names the agents skillgym drives report
//! (`read_file`, `list_directory`, `search_file_content`, `ls`, `view`, ...).

use serde_json::json;
use skillgym::{Phase, Role, SessionEvent, SessionReport};

use super::spec::MetricLimits;
use super::{Check, GradeInput, GraderOutcome};

/// Exploration tools, lower-cased without `_` and `-` (see the module doc).
pub(crate) const EXPLORATION_TOOLS: &[&str] = &[
    "read",
    "grep",
    "glob",
    "search",
    "list",
    "ls",
    "websearch",
    "webfetch",
    "readfile",
    "readmanyfiles",
    "fileread",
    "listdirectory",
    "listfiles",
    "searchfilecontent",
    "filesearch",
    "codebasesearch",
    "view",
    "find",
];

/// Whether `tool` reads or searches rather than acts.
pub(crate) fn is_exploration(tool: &str) -> bool {
    let name: String = tool
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_lowercase();
    let name = name.strip_suffix("toolcall").unwrap_or(&name);
    EXPLORATION_TOOLS.contains(&name)
}

/// The assistant messages that are not thinking.
pub(crate) fn llm_calls(report: &SessionReport) -> usize {
    report
        .events
        .iter()
        .filter(|event| {
            matches!(
                event,
                SessionEvent::Message { role: Role::Assistant, phase, .. }
                    if *phase != Some(Phase::Thinking)
            )
        })
        .count()
}

/// `input + output` tokens, when both are known.
fn tokens(report: &SessionReport) -> Option<u64> {
    let usage = &report.usage;
    Some(
        usage
            .input_tokens?
            .value
            .saturating_add(usage.output_tokens?.value),
    )
}

fn at_most_u64(what: &str, value: Option<u64>, max: u64, unit: &str) -> Check {
    let text = format!("{what} <= {max}{unit}");
    match value {
        Some(value) => Check::with(text, value <= max, format!("{value}{unit}")),
        None => Check::with(text, false, format!("no {what} reported")),
    }
}

/// The session's cost at most `max`; an estimated cost ([`crate::pricing`]) counts, and its
/// evidence says so.
fn at_most_usd(usage: &skillgym::Usage, max: f64) -> Check {
    let text = format!("cost <= ${max}");
    match usage.cost_usd {
        Some(value) if usage.cost_estimated => Check::with(
            text,
            value <= max,
            format!("~${value} (estimated from token counts)"),
        ),
        Some(value) => Check::with(text, value <= max, format!("${value}")),
        None => Check::with(text, false, "no cost reported"),
    }
}

/// `execution-metrics`: one check per configured limit.
pub(crate) fn execution_metrics(limits: &MetricLimits, input: &GradeInput<'_>) -> GraderOutcome {
    let report = input.report;
    let tool_calls = report.tool_calls(None).count() as u64;
    let llm = llm_calls(report) as u64;
    let duration_ms = input.duration.map(|d| d.as_millis() as u64);
    let mut checks = Vec::new();
    if let Some(max) = limits.max_tool_calls {
        checks.push(at_most_u64("tool calls", Some(tool_calls), max, ""));
    }
    if let Some(max) = limits.max_llm_calls {
        checks.push(at_most_u64("LLM calls", Some(llm), max, ""));
    }
    if let Some(max) = limits.max_tokens {
        checks.push(at_most_u64("tokens", tokens(report), max, ""));
    }
    if let Some(max) = limits.max_cost_usd {
        checks.push(at_most_usd(&report.usage, max));
    }
    if let Some(max) = limits.max_duration_ms {
        checks.push(at_most_u64("duration", duration_ms, max, " ms"));
    }
    let exploring = report
        .tool_calls(None)
        .filter(
            |event| matches!(event, SessionEvent::ToolCall { tool, .. } if is_exploration(tool)),
        )
        .count();
    let ratio = (tool_calls > 0).then(|| exploring as f64 / tool_calls as f64);
    if let Some(target) = limits.target_exploration_ratio {
        let tolerance = limits.exploration_tolerance;
        let text = format!("exploration ratio within {target} ± {tolerance}");
        checks.push(match ratio {
            Some(ratio) => Check::with(
                text,
                (ratio - target).abs() <= tolerance + 1e-9,
                format!("{ratio:.2} ({exploring} of {tool_calls} tool calls explore)"),
            ),
            None => Check::with(text, false, "no tool calls"),
        });
    }
    let details = json!({
        "tool_calls": tool_calls,
        "llm_calls": llm,
        "tokens": tokens(report),
        "cost_usd": report.usage.cost_usd,
        "duration_ms": duration_ms,
        "exploration_ratio": ratio,
    });
    GraderOutcome::fraction(checks).with_details(details)
}

/// `token-usage`: binary, every configured limit met.
pub(crate) fn token_usage(
    max_total: Option<u64>,
    max_input: Option<u64>,
    max_output: Option<u64>,
    report: &SessionReport,
) -> GraderOutcome {
    let usage = &report.usage;
    if usage.input_tokens.is_none() && usage.output_tokens.is_none() {
        return GraderOutcome::binary(vec![Check::new("no token usage reported", false)]);
    }
    let mut checks = Vec::new();
    if let Some(max) = max_total {
        checks.push(at_most_u64("total tokens", tokens(report), max, ""));
    }
    if let Some(max) = max_input {
        let input = usage.input_tokens.map(|c| c.value);
        checks.push(at_most_u64("input tokens", input, max, ""));
    }
    if let Some(max) = max_output {
        let output = usage.output_tokens.map(|c| c.value);
        checks.push(at_most_u64("output tokens", output, max, ""));
    }
    if checks.is_empty() {
        checks.push(Check::new("no token limit configured", false));
    }
    GraderOutcome::binary(checks)
}

/// `latency`: the session took at most `threshold_ms`.
pub(crate) fn latency(threshold_ms: u64, duration: Option<std::time::Duration>) -> GraderOutcome {
    let duration_ms = duration.map(|d| d.as_millis() as u64);
    GraderOutcome::binary(vec![at_most_u64(
        "duration",
        duration_ms,
        threshold_ms,
        " ms",
    )])
}

/// `cost`: the session cost at most `budget_usd`.
pub(crate) fn cost(budget_usd: f64, report: &SessionReport) -> GraderOutcome {
    GraderOutcome::binary(vec![at_most_usd(&report.usage, budget_usd)])
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use skillgym::{TokenCount, Usage};

    use super::*;
    use crate::grade::Verdict;
    use crate::grade::test_support::{TIMEOUT, case_dir};

    fn session(tools: &[&str], messages: usize) -> SessionReport {
        let mut events: Vec<SessionEvent> = tools
            .iter()
            .map(|tool| SessionEvent::tool_call(*tool, json!({})))
            .collect();
        events.push(SessionEvent::Message {
            role: Role::Assistant,
            phase: Some(Phase::Thinking),
            text: "hmm".into(),
            at: None,
        });
        for i in 0..messages {
            events.push(SessionEvent::assistant(format!("step {i}")));
        }
        SessionReport::from_events(events)
    }

    fn with_usage(mut report: SessionReport, input: u64, output: u64, cost: f64) -> SessionReport {
        report.usage = Usage {
            input_tokens: Some(TokenCount::provider(input)),
            output_tokens: Some(TokenCount::provider(output)),
            cost_usd: Some(cost),
            ..Usage::default()
        };
        report
    }

    fn metrics(
        limits: MetricLimits,
        report: &SessionReport,
        duration: Option<u64>,
    ) -> GraderOutcome {
        let mut input = GradeInput::new(report, case_dir(), TIMEOUT);
        input.duration = duration.map(Duration::from_millis);
        execution_metrics(&limits, &input)
    }

    #[test]
    fn exploration_tools_cover_the_agents_names() {
        for tool in [
            "Read",
            "read",
            "Grep",
            "Glob",
            "LS",
            "WebSearch",
            "web_search",
            "WebFetch",
            "read_file",
            "read_many_files",
            "list_directory",
            "search_file_content",
            "readToolCall",
            "globToolCall",
            "webSearchToolCall",
            "view",
        ] {
            assert!(is_exploration(tool), "{tool}");
        }
        for tool in [
            "Bash",
            "Edit",
            "Write",
            "Skill",
            "run_shell_command",
            "todo_list",
            "mcp__docs__search",
        ] {
            assert!(!is_exploration(tool), "{tool}");
        }
    }

    #[test]
    fn every_limit_met_scores_one() {
        let report = with_usage(session(&["Read", "Bash"], 2), 1000, 200, 0.05);
        let limits = MetricLimits {
            max_tool_calls: Some(2),
            max_llm_calls: Some(2),
            max_tokens: Some(1200),
            max_cost_usd: Some(0.05),
            max_duration_ms: Some(1000),
            target_exploration_ratio: Some(0.5),
            exploration_tolerance: 0.0,
        };
        let outcome = metrics(limits, &report, Some(1000));
        assert_eq!(outcome.checks.len(), 6);
        assert_eq!(
            (outcome.score, outcome.verdict),
            (1.0, Verdict::Pass),
            "{:?}",
            outcome.checks
        );
        assert_eq!(
            outcome.details.as_ref().unwrap()["llm_calls"],
            json!(2),
            "thinking is not a call"
        );
    }

    #[test]
    fn the_score_is_the_fraction_of_limits_met() {
        let report = with_usage(session(&["Bash", "Bash", "Bash"], 1), 1000, 200, 0.5);
        let limits = MetricLimits {
            max_tool_calls: Some(2),
            max_llm_calls: Some(5),
            max_tokens: Some(1199),
            max_cost_usd: Some(1.0),
            ..MetricLimits::default()
        };
        let outcome = metrics(limits, &report, None);
        assert_eq!(outcome.score, 0.5);
        assert_eq!(outcome.verdict, Verdict::Fail);
        let failed: Vec<(&str, Option<&str>)> = outcome
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| (c.text.as_str(), c.evidence.as_deref()))
            .collect();
        assert_eq!(
            failed,
            [
                ("tool calls <= 2", Some("3")),
                ("tokens <= 1199", Some("1200"))
            ]
        );
    }

    #[test]
    fn unknown_figures_fail_their_check() {
        let report = session(&[], 0);
        let limits = MetricLimits {
            max_tool_calls: Some(0),
            max_tokens: Some(10),
            max_cost_usd: Some(1.0),
            max_duration_ms: Some(10),
            target_exploration_ratio: Some(0.0),
            exploration_tolerance: 0.2,
            ..MetricLimits::default()
        };
        let outcome = metrics(limits, &report, None);
        let evidence: Vec<(bool, Option<&str>)> = outcome
            .checks
            .iter()
            .map(|c| (c.passed, c.evidence.as_deref()))
            .collect();
        assert_eq!(
            evidence,
            [
                (true, Some("0")),
                (false, Some("no tokens reported")),
                (false, Some("no cost reported")),
                (false, Some("no duration reported")),
                (false, Some("no tool calls")),
            ]
        );
        assert_eq!(outcome.score, 0.2);
    }

    #[test]
    fn the_exploration_ratio_is_checked_within_the_tolerance() {
        let report = session(&["Read", "Grep", "Bash", "Edit"], 0);
        let ratio = |target: f64, tolerance: f64| {
            let limits = MetricLimits {
                target_exploration_ratio: Some(target),
                exploration_tolerance: tolerance,
                ..MetricLimits::default()
            };
            metrics(limits, &report, None).score
        };
        assert_eq!(ratio(0.5, 0.0), 1.0);
        assert_eq!(ratio(0.7, 0.2), 1.0, "edge of the tolerance");
        assert_eq!(ratio(0.71, 0.2), 0.0);
        assert_eq!(ratio(1.0, 0.2), 0.0);
    }

    #[test]
    fn token_usage_is_binary_over_every_limit() {
        let report = with_usage(SessionReport::default(), 1000, 200, 0.0);
        let passes = |total, input, output| token_usage(total, input, output, &report).score;
        assert_eq!(passes(Some(1200), Some(1000), Some(200)), 1.0);
        assert_eq!(passes(Some(1199), None, None), 0.0);
        assert_eq!(passes(None, Some(999), Some(500)), 0.0);
        assert_eq!(passes(None, None, Some(199)), 0.0);
        let outcome = token_usage(Some(10), None, None, &SessionReport::default());
        assert_eq!(
            (outcome.score, outcome.checks[0].text.as_str()),
            (0.0, "no token usage reported")
        );
    }

    #[test]
    fn latency_and_cost_pass_at_the_limit_and_fail_without_data() {
        assert_eq!(
            latency(500, Some(Duration::from_millis(500))).verdict,
            Verdict::Pass
        );
        assert_eq!(
            latency(500, Some(Duration::from_millis(501))).verdict,
            Verdict::Fail
        );
        let none = latency(500, None);
        assert_eq!(
            (none.score, none.checks[0].evidence.as_deref()),
            (0.0, Some("no duration reported"))
        );

        let report = with_usage(SessionReport::default(), 1, 1, 0.25);
        assert_eq!(cost(0.25, &report).verdict, Verdict::Pass);
        assert_eq!(cost(0.2, &report).verdict, Verdict::Fail);
        let none = cost(1.0, &SessionReport::default());
        assert_eq!(
            (none.score, none.checks[0].evidence.as_deref()),
            (0.0, Some("no cost reported"))
        );
    }

    #[test]
    fn an_estimated_cost_meets_a_budget_and_says_it_is_estimated() {
        let mut report = with_usage(SessionReport::default(), 1, 1, 0.25);
        report.usage.cost_estimated = true;
        let outcome = cost(0.3, &report);
        assert_eq!(outcome.verdict, Verdict::Pass);
        assert_eq!(
            outcome.checks[0].evidence.as_deref(),
            Some("~$0.25 (estimated from token counts)")
        );
        assert_eq!(cost(0.2, &report).verdict, Verdict::Fail);
    }
}
