//! The transcript converter in `support::transcripts`, checked against every captured transcript.
//!
//! Each transcript records the same scripted session: run `echo hello`, read
//! `/home/dev/demo/wd/SKILL.md`, answer `done`.

mod support;

use std::collections::HashMap;
use std::path::PathBuf;

use skillgym::{Confidence, Phase, Role, SessionEvent, SessionReport, SkillDetection};
use support::transcripts::{self, Agent};

const SKILL_MD: &str = "/home/dev/demo/wd/SKILL.md";

/// What differs between the agents' reports of the scripted session.
struct Expected {
    session_id: &'static str,
    /// Tool-call names, in order.
    tools: [&'static str; 2],
    /// Commands with their exit codes, in order.
    commands: &'static [(&'static str, Option<i32>)],
}

/// Checks everything the scripted session must show, plus `expected`.
fn check(name: &str, expected: Expected) {
    let report = transcripts::load(name);
    assert_eq!(report.session_id.as_deref(), Some(expected.session_id));
    assert_eq!(tool_names(&report), expected.tools);
    assert_eq!(commands(&report), expected.commands);
    assert_eq!(report.file_reads(), [PathBuf::from(SKILL_MD)]);
    assert_eq!(report.files.observed_skill_reads, [PathBuf::from(SKILL_MD)]);
    assert_eq!(report.final_output(), "done");
    assert_eq!(
        messages(&report),
        [(Role::Assistant, Some(Phase::Final), "done")]
    );
    assert_eq!(
        report.detected_skills(),
        [SkillDetection {
            skill: "wd".to_owned(),
            confidence: Confidence::Strong,
            evidence: vec![format!("Read {SKILL_MD}")],
        }]
    );
    assert_results_pair_with_calls(&report);
    let first_output = report.events.iter().find_map(|event| match event {
        SessionEvent::ToolResult { output, .. } => Some(output.as_str()),
        _ => None,
    });
    assert!(first_output.is_some_and(|output| output.starts_with("hello")));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

fn tool_names(report: &SessionReport) -> Vec<&str> {
    report
        .tool_calls(None)
        .filter_map(|event| match event {
            SessionEvent::ToolCall { tool, .. } => Some(tool.as_str()),
            _ => None,
        })
        .collect()
}

fn commands(report: &SessionReport) -> Vec<(&str, Option<i32>)> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Command {
                command, exit_code, ..
            } => Some((command.as_str(), *exit_code)),
            _ => None,
        })
        .collect()
}

fn messages(report: &SessionReport) -> Vec<(Role, Option<Phase>, &str)> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Message {
                role, phase, text, ..
            } => Some((*role, *phase, text.as_str())),
            _ => None,
        })
        .collect()
}

/// Every result answers exactly one earlier call, by id, and names the same tool.
fn assert_results_pair_with_calls(report: &SessionReport) {
    let mut open = HashMap::new();
    for event in &report.events {
        match event {
            SessionEvent::ToolCall { id, tool, .. } => {
                let id = id.clone().expect("tool call without an id");
                assert!(open.insert(id, tool).is_none(), "duplicate call id");
            }
            SessionEvent::ToolResult { id, tool, .. } => {
                let id = id.as_deref().expect("tool result without an id");
                let call_tool = open.remove(id);
                assert!(call_tool.is_some(), "result {id} without an earlier call");
                assert_eq!(tool.as_ref(), call_tool);
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "calls without results: {open:?}");
}

#[test]
fn claude_code() {
    check(
        "claude-code",
        Expected {
            session_id: "3558f9a7-12e9-4f56-91bc-92c692237100",
            tools: ["Bash", "Read"],
            commands: &[("echo hello", None)],
        },
    );
}

#[test]
fn claude_code_2_1_197() {
    check(
        "claude-code-2.1.197",
        Expected {
            session_id: "98a509ea-64c7-4199-9067-4e9913096a5e",
            tools: ["Bash", "Read"],
            commands: &[("echo hello", None)],
        },
    );
}

#[test]
fn codex() {
    check(
        "codex",
        Expected {
            session_id: "01a20139-2696-7720-9b74-178414dbe828",
            tools: ["command_execution", "command_execution"],
            commands: &[
                ("/bin/bash -lc 'echo hello'", Some(0)),
                ("/bin/bash -lc 'cat SKILL.md'", Some(0)),
            ],
        },
    );
}

#[test]
fn opencode() {
    check(
        "opencode",
        Expected {
            session_id: "ses_dfec93022ffe34BGTbq67DjAka",
            tools: ["bash", "read"],
            commands: &[("echo hello", Some(0))],
        },
    );
}

#[test]
fn copilot() {
    check(
        "copilot",
        Expected {
            session_id: "8406a0a8-1a16-4cb4-887c-3a8dda0c8989",
            tools: ["bash", "view"],
            commands: &[("echo hello", Some(0))],
        },
    );
}

#[test]
fn gemini_cli() {
    check(
        "gemini-cli",
        Expected {
            session_id: "04c60973-a084-4125-8133-be8e63029868",
            tools: ["run_shell_command", "read_file"],
            commands: &[("echo hello", None)],
        },
    );
}

#[test]
fn qwen_code() {
    check(
        "qwen-code",
        Expected {
            session_id: "67c72904-085a-43f5-b144-ab4b7b440f76",
            tools: ["run_shell_command", "read_file"],
            commands: &[("echo hello", None)],
        },
    );
}

#[test]
fn agent_comes_from_the_file_name_prefix() {
    assert_eq!(Agent::from_name("claude-code-2.1.197"), Agent::ClaudeCode);
    assert_eq!(Agent::from_name("codex"), Agent::Codex);
    assert_eq!(Agent::from_name("opencode"), Agent::Opencode);
    assert_eq!(Agent::from_name("copilot.error-400"), Agent::Copilot);
    assert_eq!(Agent::from_name("gemini-cli"), Agent::GeminiCli);
    assert_eq!(Agent::from_name("qwen-code"), Agent::QwenCode);
}

#[test]
fn claude_skill_tool_is_an_explicit_signal() {
    let jsonl = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"demo"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"loaded"}]}]}}"#;
    let report = transcripts::report_from_transcript(Agent::ClaudeCode, jsonl);
    assert!(report.events.contains(&SessionEvent::SkillSignal {
        skill: "demo".to_owned(),
        signal: "tool:skill".to_owned(),
        at: None,
    }));
    let demo = report.skill("demo").expect("demo detected");
    assert_eq!(demo.confidence, Confidence::Explicit);
    assert_eq!(demo.evidence, ["Loaded via Skill tool"]);
    assert_results_pair_with_calls(&report);
}

#[test]
fn codex_reads_come_from_cat_and_sed() {
    let jsonl = r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"/bin/zsh -lc \"sed -n '1,200p' skills/find/SKILL.md && cat -n README.md | head\"","aggregated_output":"","exit_code":1,"status":"failed"}}"#;
    let report = transcripts::report_from_transcript(Agent::Codex, jsonl);
    let wd = PathBuf::from(transcripts::CODEX_CWD);
    assert_eq!(
        report.file_reads(),
        [wd.join("skills/find/SKILL.md"), wd.join("README.md")]
    );
    assert_eq!(report.skill("find").unwrap().confidence, Confidence::Strong);
    assert_eq!(commands(&report)[0].1, Some(1));
    assert!(
        report
            .events
            .iter()
            .any(|event| matches!(event, SessionEvent::ToolResult { is_error: true, .. }))
    );
}

#[test]
fn lines_that_are_not_json_become_warnings() {
    let report =
        transcripts::report_from_transcript(Agent::GeminiCli, "{\"type\":\"init\"}\nnot json\n");
    assert_eq!(report.warnings.len(), 1);
    assert!(report.warnings[0].starts_with("line 2:"));
}

#[test]
fn failed_copilot_tool_keeps_the_error_message() {
    let jsonl = r#"{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"false"}}}
{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"error":{"message":"Permission denied"}}}"#;
    let report = transcripts::report_from_transcript(Agent::Copilot, jsonl);
    assert_eq!(commands(&report), [("false", None)]);
    assert!(report.events.contains(&SessionEvent::ToolResult {
        id: Some("c1".to_owned()),
        tool: Some("bash".to_owned()),
        output: "Permission denied".to_owned(),
        is_error: true,
        at: None,
    }));
}
