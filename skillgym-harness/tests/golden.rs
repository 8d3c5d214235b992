//! Golden tests: every captured real transcript, normalized by its adapter, checked field by
//! field, and its whole normalized JSON compared with a reviewed insta snapshot,
//! `tests/golden/<fixture>.snap`.
//!
//! A mismatch fails the test; outside CI insta also writes the new value next to the snapshot
//! (`<fixture>.snap.new`). After a deliberate change, review and accept the new values with
//! `cargo insta review` (cargo-insta), or rewrite them all in place with
//! `INSTA_UPDATE=always cargo test -p skillgym-harness --test golden`, and review the diff before
//! committing. With `CI` set nothing is written.

use std::path::{Path, PathBuf};

use serde_json::json;
use skillgym::{Confidence, SessionEvent, SessionReport};
use skillgym_harness::agent::{self, AgentOptions};
use skillgym_harness::config::AgentKind;
use skillgym_harness::normalize::{Normalized, normalize_stream};

/// Where the captured sessions ran.
const CWD: &str = "/home/dev/demo/wd";
const SKILL: &str = "/home/dev/demo/wd/SKILL.md";
const PROMPT: &str = "Run echo hello, then read SKILL.md";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

fn normalize(kind: AgentKind, name: &str) -> Normalized {
    normalize_in(kind, name, CWD)
}

fn normalize_in(kind: AgentKind, name: &str, cwd: &str) -> Normalized {
    let agent = agent::build(kind, AgentOptions::new("model")).unwrap();
    let mut parser = agent.parser();
    let file = std::fs::File::open(fixture(name)).unwrap();
    normalize_stream(
        &mut *parser,
        std::io::BufReader::new(file),
        Path::new(cwd),
        PROMPT,
    )
    .unwrap()
}

/// Compares the normalized JSON with the snapshot `tests/golden/<name>.snap`. Everything in it
/// comes from the fixture and the fixed working directory, so nothing is redacted.
fn check_snapshot(name: &str, normalized: &Normalized) {
    let value = json!({
        "report": normalized.report,
        "provider_error": normalized.provider_error,
        "steps": normalized.steps,
    });
    insta::with_settings!({
        snapshot_path => "golden",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_json_snapshot!(name, value);
    });
}

/// What a transcript must normalize to.
#[derive(Clone, Copy)]
struct Expect {
    session_id: &'static str,
    commands: &'static [&'static str],
    reads: &'static [&'static str],
    tools: &'static [&'static str],
    final_output: &'static str,
    input: Option<u64>,
    output: Option<u64>,
    total: Option<u64>,
    cost: Option<f64>,
    steps: u32,
}

/// The scripted session every successful fixture captured: `echo hello`, a read of
/// `SKILL.md`, then the text `done`.
fn check(name: &str, normalized: &Normalized, expect: &Expect) {
    let report = &normalized.report;
    assert_eq!(
        report.session_id.as_deref(),
        Some(expect.session_id),
        "{name}: session id"
    );
    assert_eq!(report.prompt, PROMPT, "{name}: prompt");
    assert_eq!(
        report.commands().collect::<Vec<_>>(),
        expect.commands,
        "{name}: commands"
    );
    let reads: Vec<&Path> = expect.reads.iter().map(Path::new).collect();
    assert_eq!(report.file_reads(), reads, "{name}: file reads");
    let tools: Vec<&str> = report
        .tool_calls(None)
        .map(|event| match event {
            SessionEvent::ToolCall { tool, .. } => tool.as_str(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(tools, expect.tools, "{name}: tool calls");
    check_pairing(name, report);
    if expect.reads.contains(&SKILL) {
        // The SKILL.md read sits at the workspace root, and the file is not here to give its
        // frontmatter name: it names no skill (not the directory `wd`).
        assert!(
            report.detected_skills.is_empty(),
            "{name}: skills {:?}",
            report.detected_skills
        );
    }
    assert!(
        report.skill_attempts.is_empty(),
        "{name}: attempts {:?}",
        report.skill_attempts
    );
    assert_eq!(
        report.final_output, expect.final_output,
        "{name}: final output"
    );
    let value = |count: Option<skillgym::TokenCount>| count.map(|c| c.value);
    assert_eq!(
        value(report.usage.input_tokens),
        expect.input,
        "{name}: input tokens"
    );
    assert_eq!(
        value(report.usage.output_tokens),
        expect.output,
        "{name}: output tokens"
    );
    assert_eq!(
        value(report.usage.total_tokens),
        expect.total,
        "{name}: total tokens"
    );
    if let Some(input) = report.usage.input_tokens {
        assert_eq!(
            input.source,
            skillgym::UsageSource::Provider,
            "{name}: input source"
        );
    }
    if let Some(total) = report.usage.total_tokens {
        assert_eq!(
            total.source,
            skillgym::UsageSource::Derived,
            "{name}: total source"
        );
    }
    assert_eq!(report.usage.cost_usd, expect.cost, "{name}: cost");
    assert_eq!(
        report.usage.input_chars,
        PROMPT.len() as u64,
        "{name}: input chars"
    );
    assert_eq!(
        report.usage.output_chars,
        expect.final_output.chars().count() as u64,
        "{name}: output chars"
    );
    assert_eq!(normalized.steps, expect.steps, "{name}: steps");
    assert_eq!(normalized.provider_error, None, "{name}: provider error");
    assert!(
        report.warnings.is_empty(),
        "{name}: warnings {:?}",
        report.warnings
    );
    check_snapshot(name, normalized);
}

/// Every tool call with an id has exactly one result with that id, naming the same tool.
fn check_pairing(name: &str, report: &SessionReport) {
    for event in &report.events {
        let SessionEvent::ToolCall {
            id: Some(id), tool, ..
        } = event
        else {
            continue;
        };
        let results: Vec<&Option<String>> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::ToolResult {
                    id: Some(result_id),
                    tool,
                    ..
                } if result_id == id => Some(tool),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 1, "{name}: results of call {id}");
        assert_eq!(
            results[0].as_deref(),
            Some(tool.as_str()),
            "{name}: result tool of {id}"
        );
    }
}

/// An error fixture: the provider's status and message, and whatever came before it.
fn check_error(name: &str, normalized: &Normalized, session_id: &str, status: Option<u16>) {
    let error = normalized
        .provider_error
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no provider error"));
    assert_eq!(error.status, status, "{name}: status");
    assert!(
        error.message.contains("mock: forced error 400"),
        "{name}: message {:?}",
        error.message
    );
    assert!(error.is_rejection(), "{name}: a 400 is a rejection");
    assert_eq!(
        normalized.report.session_id.as_deref(),
        Some(session_id),
        "{name}: session id"
    );
    assert_eq!(normalized.report.commands().count(), 0, "{name}: commands");
    assert!(
        normalized.report.warnings.is_empty(),
        "{name}: warnings {:?}",
        normalized.report.warnings
    );
    check_snapshot(name, normalized);
}

const SHELL_AND_READ: &[&str] = &["echo hello"];

/// Copilot's captures: no token counts on stdout.
const COPILOT: Expect = Expect {
    session_id: "8406a0a8-1a16-4cb4-887c-3a8dda0c8989",
    commands: SHELL_AND_READ,
    reads: &[SKILL],
    tools: &["bash", "view"],
    final_output: "done",
    input: None,
    output: None,
    total: None,
    cost: None,
    steps: 3,
};

/// The captured scripted sessions (shell, read, answer): each agent's transcript, and what it
/// must normalize to. Its snapshot is `tests/golden/<transcript without .jsonl>.snap`.
const SESSIONS: &[(AgentKind, &str, Expect)] = &[
    (
        AgentKind::ClaudeCode,
        "claude-code.jsonl",
        Expect {
            session_id: "3558f9a7-12e9-4f56-91bc-92c692237100",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["Bash", "Read"],
            final_output: "done",
            input: Some(37877),
            output: Some(21),
            total: Some(37898),
            cost: Some(0.151928),
            steps: 3,
        },
    ),
    (
        AgentKind::ClaudeCode,
        "claude-code-2.1.197.jsonl",
        Expect {
            session_id: "98a509ea-64c7-4199-9067-4e9913096a5e",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["Bash", "Read"],
            final_output: "done",
            input: Some(58639),
            output: Some(21),
            total: Some(58660),
            cost: Some(0.29372),
            steps: 3,
        },
    ),
    (
        AgentKind::ClaudeCode,
        "claude-code.partial-messages.jsonl",
        Expect {
            session_id: "933dd60a-a675-4f08-80ef-f0c81b42e688",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["Bash", "Read"],
            final_output: "done",
            input: Some(37900),
            output: Some(21),
            total: Some(37921),
            cost: Some(0.15202000000000002),
            steps: 3,
        },
    ),
    (
        AgentKind::QwenCode,
        "qwen-code.jsonl",
        Expect {
            session_id: "67c72904-085a-43f5-b144-ab4b7b440f76",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["run_shell_command", "read_file"],
            final_output: "done",
            input: Some(58855),
            output: Some(21),
            total: Some(58876),
            cost: None,
            steps: 3,
        },
    ),
    (
        AgentKind::Codex,
        "codex.jsonl",
        Expect {
            session_id: "01a20139-2696-7720-9b74-178414dbe828",
            commands: &["echo hello", "cat SKILL.md"],
            reads: &[SKILL],
            tools: &["command_execution", "command_execution"],
            final_output: "done",
            input: Some(29245),
            output: Some(21),
            total: Some(29266),
            cost: None,
            steps: 3,
        },
    ),
    (
        AgentKind::Opencode,
        "opencode.jsonl",
        Expect {
            session_id: "ses_dfec93022ffe34BGTbq67DjAka",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["bash", "read"],
            final_output: "done",
            input: Some(7772 + 7838 + 7969),
            output: Some(21),
            total: Some(7772 + 7838 + 7969 + 21),
            cost: Some(0.0),
            steps: 3,
        },
    ),
    (AgentKind::Copilot, "copilot.jsonl", COPILOT),
    (
        AgentKind::Copilot,
        "copilot.anthropic-wire.jsonl",
        Expect {
            session_id: "20b9bbfe-a66c-4d7c-9f3d-d013224a440d",
            ..COPILOT
        },
    ),
    (
        AgentKind::Copilot,
        "copilot.responses-wire.jsonl",
        Expect {
            session_id: "cfbbb369-725d-4106-9770-9d005baf8405",
            ..COPILOT
        },
    ),
    (
        AgentKind::Copilot,
        "copilot.persisted-events.jsonl",
        Expect {
            session_id: "3d15daf6-8195-42b1-91cb-ff1094e521d5",
            input: Some(13139 + 13229 + 13326),
            output: Some(21),
            total: Some(13139 + 13229 + 13326 + 21),
            ..COPILOT
        },
    ),
    (
        AgentKind::GeminiCli,
        "gemini-cli.jsonl",
        Expect {
            session_id: "04c60973-a084-4125-8133-be8e63029868",
            commands: SHELL_AND_READ,
            reads: &[SKILL],
            tools: &["run_shell_command", "read_file"],
            final_output: "done",
            input: Some(35961),
            output: Some(21),
            total: Some(35982),
            cost: None,
            steps: 3,
        },
    ),
];

#[test]
fn scripted_sessions() {
    for (kind, transcript, expect) in SESSIONS {
        let normalized = normalize(*kind, transcript);
        check(transcript.trim_end_matches(".jsonl"), &normalized, expect);
    }
}

#[test]
fn codex_unknown_model_with_plugins() {
    let normalized = normalize(AgentKind::Codex, "codex.unknown-model-with-plugins.jsonl");
    let report = &normalized.report;
    assert_eq!(
        report.session_id.as_deref(),
        Some("01a20133-d822-78b1-a27e-17ece022900b")
    );
    assert_eq!(
        report.commands().collect::<Vec<_>>(),
        ["echo hello", "cat SKILL.md"]
    );
    assert_eq!(report.file_reads(), [Path::new(SKILL)]);
    assert_eq!(report.final_output, "done");
    assert_eq!(report.usage.input_tokens.map(|c| c.value), Some(30585));
    assert_eq!(normalized.steps, 3);
    assert_eq!(
        normalized.provider_error, None,
        "a metadata warning is not fatal"
    );
    check_snapshot("codex.unknown-model-with-plugins", &normalized);
}

/// The captured refusals (the scripted model answers HTTP 400): each agent's transcript, the
/// session id and the status it reports (Codex reports none).
const REFUSALS: &[(AgentKind, &str, &str, Option<u16>)] = &[
    (
        AgentKind::ClaudeCode,
        "claude-code.error-400.jsonl",
        "ea29dee0-6163-49ac-8975-c9e983687478",
        Some(400),
    ),
    (
        AgentKind::Codex,
        "codex.error-400.jsonl",
        "01a20138-8a6c-72b3-9906-53a4eef6b955",
        None,
    ),
    (
        AgentKind::Opencode,
        "opencode.error-400.jsonl",
        "ses_dfec757e8ffeLyzVd1347TEnvk",
        Some(400),
    ),
    (
        AgentKind::Copilot,
        "copilot.error-400.jsonl",
        "87a0500c-d0a8-407d-8c22-455f24368262",
        Some(400),
    ),
    // Captured from gemini 0.61.0 (exit code 144).
    (
        AgentKind::GeminiCli,
        "gemini-cli.error-400.jsonl",
        "7ad07f4a-9f5a-4a3c-bbcd-98cdfd5e3939",
        Some(400),
    ),
];

#[test]
fn refusals() {
    for (kind, transcript, session_id, status) in REFUSALS {
        let normalized = normalize(*kind, transcript);
        check_error(
            transcript.trim_end_matches(".jsonl"),
            &normalized,
            session_id,
            *status,
        );
    }
}

// Scenario runs through skillgym's own adapters (workspace `/home/dev/demo`): a failing
// command, the agent's skill tool, a missing skill, and OpenCode in the wrong directory.

/// Where the scenario sessions ran.
const SCENARIO_CWD: &str = "/home/dev/demo";

/// The agents with a skill tool, and their transcripts' stem.
const SKILL_TOOL_AGENTS: [(AgentKind, &str); 5] = [
    (AgentKind::ClaudeCode, "claude-code"),
    (AgentKind::Copilot, "copilot"),
    (AgentKind::GeminiCli, "gemini-cli"),
    (AgentKind::Opencode, "opencode"),
    (AgentKind::QwenCode, "qwen-code"),
];

/// `ls /nonexistent-skillgym` (exits 2), then reads of `skills/demo/SKILL.md` and
/// `skills/demo/references/notes.md`. Expected: the exit code and `is_error` where the agent
/// reports them (unknown for Gemini and for Qwen 0.15.10), and `demo` as strong evidence.
#[test]
fn failing_command() {
    let agents = [
        (AgentKind::ClaudeCode, "claude-code", Some(2)),
        (AgentKind::Codex, "codex", Some(2)),
        (AgentKind::Copilot, "copilot", Some(2)),
        (AgentKind::GeminiCli, "gemini-cli", None),
        (AgentKind::Opencode, "opencode", Some(2)),
        (AgentKind::QwenCode, "qwen-code", None),
    ];
    for (kind, stem, exit) in agents {
        let name = format!("{stem}.failing-command");
        let normalized = normalize_in(kind, &format!("{name}.jsonl"), SCENARIO_CWD);
        let report = &normalized.report;
        let ls: Vec<Option<i32>> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Command {
                    command, exit_code, ..
                } if command.starts_with("ls /nonexistent-skillgym") => Some(*exit_code),
                _ => None,
            })
            .collect();
        assert_eq!(ls, [exit], "{name}: exit code of ls");
        let ls_error = report.events.iter().find_map(|event| match event {
            SessionEvent::ToolResult {
                output, is_error, ..
            } if output.contains("nonexistent-skillgym") => Some(*is_error),
            _ => None,
        });
        assert_eq!(
            ls_error,
            Some(exit.is_some()),
            "{name}: is_error of ls (an error exactly when the agent reports the exit code)"
        );
        let skill = report
            .skill("demo")
            .unwrap_or_else(|| panic!("{name}: skill demo in {:?}", report.detected_skills));
        assert_eq!(skill.confidence, Confidence::Strong, "{name}");
        assert_eq!(skill.evidence.len(), 2, "{name}: {:?}", skill.evidence);
        assert_eq!(report.detected_skills.len(), 1, "{name}");
        assert!(report.skill_attempts.is_empty(), "{name}");
        check_pairing(&name, report);
        check_snapshot(&name, &normalized);
    }
}

/// The agent's own skill tool loads `demo`: explicit evidence, no attempt.
#[test]
fn skill_tool() {
    for (kind, stem) in SKILL_TOOL_AGENTS {
        let name = format!("{stem}.skill-tool");
        let normalized = normalize_in(kind, &format!("{name}.jsonl"), SCENARIO_CWD);
        let report = &normalized.report;
        let skill = report
            .skill("demo")
            .unwrap_or_else(|| panic!("{name}: skill demo in {:?}", report.detected_skills));
        assert_eq!(skill.confidence, Confidence::Explicit, "{name}");
        assert!(
            report
                .detected_skills
                .iter()
                .all(|skill| skill.confidence == Confidence::Explicit),
            "{name}: {:?}",
            report.detected_skills
        );
        assert!(report.skill_attempts.is_empty(), "{name}");
        check_pairing(&name, report);
        check_snapshot(&name, &normalized);
    }
}

/// The skill tool asked for `ghost-skill` and a read of the missing `skills/ghost/SKILL.md`:
/// both failed, so no skill is detected at any confidence and both are attempts.
#[test]
fn missing_skill() {
    for (kind, stem) in SKILL_TOOL_AGENTS {
        let name = format!("{stem}.missing-skill");
        let normalized = normalize_in(kind, &format!("{name}.jsonl"), SCENARIO_CWD);
        let report = &normalized.report;
        assert!(
            report.detected_skills.is_empty(),
            "{name}: {:?}",
            report.detected_skills
        );
        let attempts: Vec<(&str, &str)> = report
            .skill_attempts
            .iter()
            .map(|attempt| (attempt.skill.as_str(), attempt.via.as_str()))
            .collect();
        assert_eq!(attempts.len(), 2, "{name}: {attempts:?}");
        assert_eq!(attempts[0].0, "ghost-skill", "{name}");
        assert!(attempts[0].1.ends_with(" tool"), "{name}: {attempts:?}");
        assert_eq!(
            attempts[1],
            ("ghost", "Read /home/dev/demo/skills/ghost/SKILL.md"),
            "{name}"
        );
        for attempt in &report.skill_attempts {
            assert!(!attempt.error.is_empty(), "{name}: {attempt}");
        }
        assert!(
            report.file_reads().is_empty(),
            "{name}: a failed read is no read"
        );
        report
            .expect()
            .skills()
            .not_has("ghost-skill")
            .not_has("ghost");
        check_pairing(&name, report);
        check_snapshot(&name, &normalized);
    }
}

/// Claude's failed skill load reads as the issue wants it in a failure message.
#[test]
fn a_failed_load_is_explained_in_skill_check_failures() {
    let normalized = normalize_in(
        AgentKind::ClaudeCode,
        "claude-code.missing-skill.jsonl",
        SCENARIO_CWD,
    );
    let message = std::panic::catch_unwind(|| {
        normalized.report.expect().skills().has("ghost-skill");
    })
    .expect_err("the check fails");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message
            .contains("ghost-skill: attempted via Skill tool, failed: Unknown skill: ghost-skill"),
        "{message}"
    );
}

/// OpenCode run with the parent's `PWD`: its `pwd` printed another directory. The stream
/// itself normalizes like any other.
#[test]
fn opencode_wrong_cwd() {
    let name = "opencode.wrong-cwd";
    let normalized = normalize_in(
        AgentKind::Opencode,
        "opencode.wrong-cwd.jsonl",
        SCENARIO_CWD,
    );
    assert_eq!(
        normalized.report.commands().collect::<Vec<_>>(),
        ["pwd"],
        "{name}"
    );
    check_pairing(name, &normalized.report);
    check_snapshot(name, &normalized);
}

// The pinned versions that changed since the captures above, captured by the real-agent tier
// (`tests/real_agents`, its scripts in `tests/real_agents/scripts/`): each attempt's
// `stdout.log` (and, for `shell-read-answer`, its `mock-requests.jsonl` as
// `fixtures/mock-requests/<agent>-<version>.jsonl`), the workspace rewritten to `/home/dev/demo`
// and the state directory to `/home/dev/.state`.

/// The agents whose pinned version has captures of its own, and their transcripts' stem.
const PINNED: [(AgentKind, &str); 3] = [
    (AgentKind::ClaudeCode, "claude-code-2.1.332"),
    (AgentKind::Codex, "codex-0.171.0"),
    (AgentKind::QwenCode, "qwen-code-0.24.4"),
];

/// The transcripts of [`PINNED`]: shell, read and answer; a failing command; a refusal.
const PINNED_TRANSCRIPTS: [[&str; 3]; 3] = [
    [
        "claude-code-2.1.332.shell-read-answer.jsonl",
        "claude-code-2.1.332.failing-command.jsonl",
        "claude-code-2.1.332.error-400.jsonl",
    ],
    [
        "codex-0.171.0.shell-read-answer.jsonl",
        "codex-0.171.0.failing-command.jsonl",
        "codex-0.171.0.error-400.jsonl",
    ],
    [
        "qwen-code-0.24.4.shell-read-answer.jsonl",
        "qwen-code-0.24.4.failing-command.jsonl",
        "qwen-code-0.24.4.error-400.jsonl",
    ],
];

/// The exit codes of the commands starting with `prefix`.
fn exit_codes(report: &SessionReport, prefix: &str) -> Vec<Option<i32>> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Command {
                command, exit_code, ..
            } if command.starts_with(prefix) => Some(*exit_code),
            _ => None,
        })
        .collect()
}

/// What the scripted model billed for the requests of a `mock-requests` capture: input and
/// output tokens of the answered ones.
fn billed(capture: &str) -> (u64, u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mock-requests")
        .join(capture);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|row| row["reply"]["status"] == 200)
        .fold((0, 0), |(input, output), row| {
            let usage = &row["reply"]["usage"];
            (
                input + usage["input_tokens"].as_u64().unwrap(),
                output + usage["output_tokens"].as_u64().unwrap(),
            )
        })
}

/// `echo skillgym-hello` (exit 0), a read of `skills/demo/SKILL.md` (strong evidence for
/// `demo`), then the answer; the usage is what the scripted model billed for the session.
#[test]
fn pinned_versions_shell_read_answer() {
    for ((kind, stem), [transcript, ..]) in PINNED.into_iter().zip(PINNED_TRANSCRIPTS) {
        let normalized = normalize_in(kind, transcript, SCENARIO_CWD);
        let report = &normalized.report;
        assert_eq!(
            exit_codes(report, "echo skillgym-hello"),
            [Some(0)],
            "{stem}"
        );
        assert_eq!(
            report.file_reads(),
            [Path::new("/home/dev/demo/skills/demo/SKILL.md")],
            "{stem}"
        );
        let demo = report
            .skill("demo")
            .unwrap_or_else(|| panic!("{stem}: {:?}", report.detected_skills));
        assert_eq!(demo.confidence, Confidence::Strong, "{stem}");
        assert_eq!(report.final_output, "skillgym mock: done", "{stem}");
        let (input, output) = billed(&format!("{stem}.jsonl"));
        let value = |count: Option<skillgym::TokenCount>| count.map(|count| count.value);
        assert_eq!(
            (
                value(report.usage.input_tokens),
                value(report.usage.output_tokens)
            ),
            (Some(input), Some(output)),
            "{stem}: the usage billed"
        );
        assert!(report.session_id.is_some(), "{stem}");
        assert!(report.warnings.is_empty(), "{stem}: {:?}", report.warnings);
        check_pairing(stem, report);
        check_snapshot(transcript.trim_end_matches(".jsonl"), &normalized);
    }
}

/// `ls /skillgym-missing-dir` exits 2: its code, and its result is an error, for all three
/// (Qwen Code from 0.24.4 on: a failure ends with `Exit Code: 2`; 0.15.10 said neither).
#[test]
fn pinned_versions_failing_command() {
    for ((kind, stem), [_, transcript, _]) in PINNED.into_iter().zip(PINNED_TRANSCRIPTS) {
        let normalized = normalize_in(kind, transcript, SCENARIO_CWD);
        let report = &normalized.report;
        assert_eq!(
            exit_codes(report, "ls /skillgym-missing-dir"),
            [Some(2)],
            "{stem}"
        );
        let ls_error = report.events.iter().find_map(|event| match event {
            SessionEvent::ToolResult {
                output, is_error, ..
            } if output.contains("No such file or directory") => Some(*is_error),
            _ => None,
        });
        assert_eq!(ls_error, Some(true), "{stem}: is_error of ls");
        assert_eq!(report.final_output, "the directory is missing", "{stem}");
        check_pairing(stem, report);
        check_snapshot(transcript.trim_end_matches(".jsonl"), &normalized);
    }
}

/// Every request refused (HTTP 400): a rejection with the provider's message, and no usage —
/// unknown, not the zeros Claude Code and Qwen Code print.
#[test]
fn pinned_versions_error_400() {
    for ((kind, stem), [.., transcript]) in PINNED.into_iter().zip(PINNED_TRANSCRIPTS) {
        let normalized = normalize_in(kind, transcript, SCENARIO_CWD);
        let error = normalized
            .provider_error
            .as_ref()
            .unwrap_or_else(|| panic!("{stem}: no provider error"));
        assert!(error.is_rejection(), "{stem}: {error}");
        assert!(
            error.message.contains("model `nope` does not exist"),
            "{stem}: {error}"
        );
        let usage = &normalized.report.usage;
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.total_tokens),
            (None, None, None),
            "{stem}: {usage:?}"
        );
        assert_eq!(usage.cost_usd, None, "{stem}");
        check_snapshot(transcript.trim_end_matches(".jsonl"), &normalized);
    }
}

/// Every transcript in the fixtures directory has a test above (so a new capture cannot be
/// forgotten).
#[test]
fn every_transcript_is_covered() {
    let source = include_str!("golden.rs");
    let mut names: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".jsonl"))
        .collect();
    names.sort();
    for name in names {
        let scenario = name
            .strip_suffix(".jsonl")
            .and_then(|stem| stem.split_once('.'))
            .map(|(_, scenario)| scenario.replace('-', "_"));
        assert!(
            source.contains(&format!("\"{name}\""))
                || scenario.is_some_and(|scenario| source.contains(&format!("fn {scenario}()"))),
            "{name} has no golden test"
        );
    }
}

/// The version each captured stream carries, where its CLI reports one at start-up (Claude
/// Code's and Qwen Code's `system`/`init` record); the others tell it only to `--version`.
#[test]
fn the_streams_that_report_the_agents_version_give_it() {
    for (kind, fixture, version) in [
        (AgentKind::ClaudeCode, "claude-code.jsonl", Some("2.1.330")),
        (
            AgentKind::ClaudeCode,
            "claude-code-2.1.197.jsonl",
            Some("2.1.197"),
        ),
        (AgentKind::QwenCode, "qwen-code.jsonl", Some("0.15.10")),
        (
            AgentKind::QwenCode,
            "qwen-code.failing-command.jsonl",
            Some("0.15.10"),
        ),
        (AgentKind::Codex, "codex.jsonl", None),
        (AgentKind::Opencode, "opencode.jsonl", None),
        (AgentKind::Copilot, "copilot.jsonl", None),
        (AgentKind::GeminiCli, "gemini-cli.jsonl", None),
    ] {
        let report = normalize(kind, fixture).report;
        assert_eq!(
            agent::stream_version(kind.as_str(), &report.events).as_deref(),
            version,
            "{fixture}"
        );
    }
}
