//! A deterministic stand-in for a coding agent, speaking skillgym's event JSONL.
//!
//! Usage: `example-agent [--style careful|hasty] <prompt>`. A careful agent reads the skills
//! it finds under `.agents/skills/` (where the harness installs skills under test for a
//! `command` agent) before answering; a hasty one answers straight away.

use std::path::Path;

use serde_json::{Value, json};

fn emit(event: Value) {
    println!("{event}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let careful = !args
        .windows(2)
        .any(|pair| pair[0] == "--style" && pair[1] == "hasty");
    let prompt = args.last().cloned().unwrap_or_default();
    emit(json!({"type": "session", "id": format!("example-{}", std::process::id())}));
    emit(json!({"type": "message", "role": "user", "text": prompt}));

    let answer = if let Some(rest) = prompt.split("Say only:").nth(1) {
        rest.trim().to_owned()
    } else if prompt.to_lowercase().contains("skill") {
        find_skill(&prompt, careful)
    } else {
        emit(
            json!({"type": "message", "role": "assistant", "phase": "thinking",
                    "text": "Summarize the request in one line."}),
        );
        format!(
            "Summary: {}",
            prompt.lines().next().unwrap_or_default().trim()
        )
    };
    emit(json!({"type": "message", "role": "assistant", "phase": "final", "text": answer}));
    let input = prompt.len() as u64 / 4 + 900;
    emit(json!({"type": "usage", "input_tokens": input, "output_tokens": 42, "cache_tokens": 600}));
}

/// Looks for a matching skill the way a real agent would: list, read SKILL.md, run its command.
fn find_skill(prompt: &str, careful: bool) -> String {
    let topic = if prompt.to_lowercase().contains("expo") {
        "expo"
    } else {
        "general"
    };
    let skill_file = Path::new(".agents/skills/find-skills/SKILL.md");
    if careful && skill_file.is_file() {
        emit(
            json!({"type": "message", "role": "assistant", "phase": "commentary",
                    "text": "A find-skills skill is installed; reading it first."}),
        );
        emit(json!({"type": "tool_call", "id": "call-1", "tool": "Read",
                    "args": {"file_path": skill_file}}));
        emit(json!({"type": "file_read", "path": skill_file}));
        emit(
            json!({"type": "tool_result", "id": "call-1", "tool": "Read",
                    "output": std::fs::read_to_string(skill_file).unwrap_or_default()}),
        );
    }
    emit(json!({"type": "tool_call", "id": "call-2", "tool": "Bash",
                "args": {"command": format!("npx skills find {topic}")}}));
    emit(json!({"type": "command", "command": format!("npx skills find {topic}"), "exit_code": 0}));
    emit(
        json!({"type": "tool_result", "id": "call-2", "tool": "Bash",
                "output": format!("{topic}/upgrading-{topic}  Upgrade {topic} step by step")}),
    );
    format!("Install it with: npx skills add {topic}/upgrading-{topic}")
}
