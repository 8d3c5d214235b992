//! A deterministic stand-in for a coding agent, speaking skillgym's event JSONL.
//!
//! Usage: `example-agent [--style careful|hasty|judge] <prompt>`. A careful agent reads the
//! skills it finds under `.agents/skills/` (where the harness installs skills under test for a
//! `command` agent) before answering; a hasty one answers straight away. It understands three
//! kinds of request: "Say only: X", "Append the line `X` to FILE." (it edits the file in its
//! working directory), and anything about a skill; anything else it summarizes.
//!
//! As `--style judge` it stands in for the judge of rubric graders: it reads the checklist of
//! skillgym's judge prompt and marks an item satisfied when every `backticked` term of the item
//! appears in the agent's final answer.

use std::path::Path;

use serde_json::{Value, json};

fn emit(event: Value) {
    println!("{event}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let style = args
        .windows(2)
        .find(|pair| pair[0] == "--style")
        .map_or("careful", |pair| pair[1].as_str());
    let careful = style != "hasty";
    let prompt = args.last().cloned().unwrap_or_default();
    if style == "judge" {
        emit(
            json!({"type": "message", "role": "assistant", "phase": "final", "text": judge(&prompt)}),
        );
        emit(
            json!({"type": "usage", "input_tokens": prompt.len() as u64 / 4, "output_tokens": 60}),
        );
        return;
    }
    emit(json!({"type": "session", "id": format!("example-{}", std::process::id())}));
    emit(json!({"type": "message", "role": "user", "text": prompt}));

    let answer = if let Some(rest) = prompt.split("Say only:").nth(1) {
        rest.trim().to_owned()
    } else if let Some((line, file)) = append_request(&prompt) {
        append(&line, &file)
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

/// `Append the line `X` to FILE.` as (X, FILE).
fn append_request(prompt: &str) -> Option<(String, String)> {
    let rest = prompt.split("Append the line `").nth(1)?;
    let (line, rest) = rest.split_once('`')?;
    let file = rest
        .trim()
        .strip_prefix("to ")?
        .trim()
        .trim_end_matches('.');
    Some((line.to_owned(), file.to_owned()))
}

/// Appends `line` to `file` in the working directory, as an edit tool call.
fn append(line: &str, file: &str) -> String {
    emit(json!({"type": "tool_call", "id": "call-1", "tool": "Edit",
                "args": {"file_path": file, "append": line}}));
    let mut text = std::fs::read_to_string(file).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    let written = std::fs::write(file, text);
    emit(
        json!({"type": "tool_result", "id": "call-1", "tool": "Edit",
                "output": match &written { Ok(()) => "ok".to_owned(), Err(e) => e.to_string() }}),
    );
    match written {
        Ok(()) => format!("Appended `{line}` to `{file}`."),
        Err(error) => format!("Could not edit `{file}`: {error}"),
    }
}

/// The judge's answer to skillgym's rubric prompt: each checklist item is satisfied when every
/// `backticked` term in it appears in the agent's final answer.
fn judge(prompt: &str) -> String {
    let answer = section(prompt, "The agent's final answer");
    let checklist = section(prompt, "Checklist");
    let checks: Vec<Value> = checklist
        .lines()
        .filter_map(|line| line.strip_prefix("- ")?.split_once(": "))
        .map(|(id, outcome)| {
            let terms: Vec<&str> = outcome.split('`').skip(1).step_by(2).collect();
            let missing: Vec<&str> = terms
                .iter()
                .copied()
                .filter(|term| !answer.contains(term))
                .collect();
            let reasoning = if terms.is_empty() {
                "no `term` to look for, so not satisfied".to_owned()
            } else if missing.is_empty() {
                format!("the answer mentions {}", terms.join(", "))
            } else {
                format!("the answer does not mention {}", missing.join(", "))
            };
            json!({"id": id, "satisfied": !terms.is_empty() && missing.is_empty(), "reasoning": reasoning})
        })
        .collect();
    json!({"checks": checks, "overall_reasoning": "checked each item's terms against the answer"})
        .to_string()
}

/// The body of the prompt's `## title` section.
fn section<'a>(prompt: &'a str, title: &str) -> &'a str {
    let heading = format!("## {title}\n");
    let Some(start) = prompt.find(&heading) else {
        return "";
    };
    let body = &prompt[start + heading.len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    &body[..end]
}
