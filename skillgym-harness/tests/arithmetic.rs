//! Token and cost figures from any agent output: no panic, no wraparound. Every adapter reads a
//! real transcript (or, for Cursor and the `command` format, a representative one) whose token
//! figures are replaced by `u64::MAX`, negative, fractional and huge values, and whose costs by
//! huge and negative ones.

use std::path::Path;

use skillgym::{SessionReport, TokenCount};
use skillgym_harness::agent::{self, AgentOptions};
use skillgym_harness::config::AgentKind;
use skillgym_harness::normalize::normalize_stream;

/// Cursor: no CLI to capture from here; the record shapes its adapter reads.
const CURSOR: &str = concat!(
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"thinking"}]},"usage":{"inputTokens":10,"outputTokens":5,"cacheReadTokens":3,"cacheWriteTokens":2}}"#,
    "\n",
    r#"{"type":"result","subtype":"success","result":"done","usage":{"inputTokens":200,"outputTokens":50,"cacheReadTokens":75,"cacheWriteTokens":9}}"#,
    "\n",
);

/// skillgym's own event format, usage twice (summed).
const COMMAND: &str = concat!(
    r#"{"type":"message","role":"assistant","phase":"final","text":"done"}"#,
    "\n",
    r#"{"type":"usage","input_tokens":100,"output_tokens":20,"cache_tokens":40,"total_tokens":80,"cost_usd":0.5}"#,
    "\n",
    r#"{"type":"usage","input_tokens":50,"output_tokens":5,"cost_usd":0.25}"#,
    "\n",
);

/// Copilot's session total, summed over two models (its captured transcript has none).
const COPILOT_SHUTDOWN: &str = r#"{"type":"session.shutdown","data":{"modelMetrics":{"a":{"usage":{"inputTokens":7,"outputTokens":2}},"b":{"usage":{"inputTokens":5,"outputTokens":1}}}}}"#;

/// Each adapter with its transcript.
fn transcripts() -> Vec<(AgentKind, String)> {
    let fixture = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    vec![
        (AgentKind::ClaudeCode, fixture("claude-code.jsonl")),
        (AgentKind::Codex, fixture("codex.jsonl")),
        (AgentKind::Opencode, fixture("opencode.jsonl")),
        (
            AgentKind::Copilot,
            fixture("copilot.jsonl") + COPILOT_SHUTDOWN,
        ),
        (AgentKind::GeminiCli, fixture("gemini-cli.jsonl")),
        (AgentKind::QwenCode, fixture("qwen-code.jsonl")),
        (AgentKind::CursorAgent, CURSOR.to_owned()),
        (AgentKind::Command, COMMAND.to_owned()),
    ]
}

/// A new agent CLI fails here until it has a transcript in [`transcripts`].
#[test]
fn every_agent_has_a_transcript() {
    let kinds: Vec<AgentKind> = transcripts().into_iter().map(|(kind, _)| kind).collect();
    for kind in AgentKind::CLIS.into_iter().chain([AgentKind::Command]) {
        assert!(kinds.contains(&kind), "{kind:?} has no transcript here");
    }
}

fn parse(kind: AgentKind, text: &str) -> SessionReport {
    let agent = agent::build(kind, AgentOptions::new("model").command("agent")).unwrap();
    let mut parser = agent.parser();
    normalize_stream(
        &mut *parser,
        text.as_bytes(),
        Path::new("/home/dev/demo/wd"),
        "prompt",
    )
    .unwrap()
    .report
}

/// Whether a JSON key names a token figure.
fn is_token_key(key: &str) -> bool {
    key.to_ascii_lowercase().contains("token")
        || matches!(
            key,
            "input" | "output" | "reasoning" | "read" | "write" | "total" | "cached" | "thoughts"
        )
}

/// Replaces every number under a token key by `tokens`, and under a cost key by `cost`.
fn replace_figures(text: &str, tokens: &str, cost: &str) -> String {
    text.lines()
        .map(|line| {
            let Ok(mut value) = serde_json::from_str::<serde_json::Value>(line) else {
                return line.to_owned();
            };
            rewrite(&mut value, tokens, cost);
            value.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rewrite(value: &mut serde_json::Value, tokens: &str, cost: &str) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if item.is_number() && is_token_key(key) {
                    *item = serde_json::from_str(tokens).unwrap();
                } else if item.is_number() && key.to_ascii_lowercase().contains("cost") {
                    *item = serde_json::from_str(cost).unwrap();
                } else {
                    rewrite(item, tokens, cost);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                rewrite(item, tokens, cost);
            }
        }
        _ => {}
    }
}

/// The token figures of a report.
fn figures(report: &SessionReport) -> Vec<(&'static str, Option<TokenCount>)> {
    let usage = &report.usage;
    vec![
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("reasoning", usage.reasoning_tokens),
        ("cache", usage.cache_tokens),
        ("total", usage.total_tokens),
    ]
}

#[test]
fn u64_max_token_figures_saturate_instead_of_wrapping() {
    for (kind, text) in transcripts() {
        let original = parse(kind, &text);
        let flooded = parse(
            kind,
            &replace_figures(&text, "18446744073709551615", "1e308"),
        );
        // Nothing of the session is lost to the odd figures.
        assert_eq!(flooded.final_output, original.final_output, "{kind:?}");
        assert_eq!(flooded.events.len(), original.events.len(), "{kind:?}");
        for ((name, before), (_, after)) in figures(&original).into_iter().zip(figures(&flooded)) {
            assert_eq!(before.is_some(), after.is_some(), "{kind:?} {name}");
        }
        // A figure summed or taken from u64::MAX inputs is u64::MAX, never a wrapped small
        // number (output and total may net reasoning and cache out, down to 0).
        if let Some(input) = flooded.usage.input_tokens {
            assert_eq!(input.value, u64::MAX, "{kind:?} input");
        }
        if let Some(cost) = flooded.usage.cost_usd {
            assert!(cost.is_finite() && cost >= 1e308, "{kind:?} cost {cost}");
        }
        let json = serde_json::to_string(&flooded).unwrap();
        serde_json::from_str::<SessionReport>(&json).unwrap();
    }
}

#[test]
fn negative_fractional_and_huge_figures_cost_only_themselves() {
    for (tokens, cost) in [("-5", "-0.5"), ("12.5", "-1e308"), ("1e300", "1.7e308")] {
        for (kind, text) in transcripts() {
            let original = parse(kind, &text);
            let odd = parse(kind, &replace_figures(&text, tokens, cost));
            assert_eq!(odd.final_output, original.final_output, "{kind:?} {tokens}");
            assert_eq!(odd.events.len(), original.events.len(), "{kind:?} {tokens}");
            if tokens == "1e300" {
                // A whole float beyond u64 saturates.
                if let Some(input) = odd.usage.input_tokens {
                    assert_eq!(input.value, u64::MAX, "{kind:?}");
                }
            } else {
                // A negative or fractional token figure reads as absent.
                assert!(
                    figures(&odd)
                        .iter()
                        .filter(|(name, _)| *name != "total")
                        .all(|(_, figure)| figure.is_none()),
                    "{kind:?} {tokens}: {:?}",
                    odd.usage
                );
            }
            // Negative costs are ignored; huge sums stay finite.
            if let Some(value) = odd.usage.cost_usd {
                assert!(
                    value.is_finite() && value >= 0.0,
                    "{kind:?} {cost}: {value}"
                );
            }
        }
    }
}
