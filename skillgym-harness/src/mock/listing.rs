//! Which skills a model request lists as available to the model: what an `if_listed` step of a
//! [script](super::script) tests.
//!
//! Every agent CLI tells its model which skills are installed, each in its own place and shape;
//! the names are read only from what the CLI itself writes there (system prompt, system
//! reminders, tool declarations), never from the user's prompt or from tool results, so a
//! prompt that merely mentions a skill does not list it. Where each CLI puts its listing, as
//! captured from the pinned versions and earlier ones (`tests/fixtures/mock-requests/`):
//!
//! | CLI | wire | where the listing is | how names are read |
//! |---|---|---|---|
//! | Claude Code | Anthropic | the sentence `The following skills are available for use with the Skill tool:` in a user message's text block that starts with `<system-reminder>` (2.1.332), or in a `system` message of `messages` (earlier versions) | each `- NAME: description` line of the paragraph after that sentence; NAME is what comes before the first `: ` (`plugin:skill` stays whole) |
//! | Codex | Responses | a `developer` message of `input`: the `### Available skills` section of `## Skills` | each `- NAME: description (file: …)` line up to the next heading |
//! | OpenCode | Chat Completions | the `system` message: `<available_skills>` | the `<name>` of each `<skill>` |
//! | Copilot | Chat Completions | the `system` message: `<available_skills>` (inside `<skill>`) | the `<name>` of each `<skill>` |
//! | Gemini CLI | Gemini | `systemInstruction`: `<available_skills>`; and the `activate_skill` tool's `name` enum | the `<name>` of each `<skill>`, and the enum's values |
//! | Qwen Code | Chat Completions | a user message's text block that starts with `<system-reminder>`: `<available_skills>` (0.24); the `skill` tool's description (earlier versions) | the `<name>` of each `<skill>`, trimmed |
//!
//! Every wire reads the union of these places (so Copilot's `<available_skills>` is found
//! whichever wire it is given): the system prompt (Anthropic `system`, Responses
//! `instructions`, Gemini `systemInstruction`, and messages of role `system` or `developer`),
//! message text blocks that start with `<system-reminder>` (whatever their role: the CLI writes
//! them, not the user), and tool declarations; each with the three readers of the last column
//! (`<available_skills>`, Claude Code's sentence, Codex's heading).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::config::WireApi;

/// The sentence that opens Claude Code's skill listing.
const CLAUDE_HEADER: &str = "The following skills are available for use with the Skill tool:";
/// The heading of Codex's skill listing.
const CODEX_HEADING: &str = "### Available skills";
/// The tool whose `name` enum is Gemini CLI's listing.
const GEMINI_TOOL: &str = "activate_skill";

/// The names of the skills `body`, a model request on `api`, lists as available to the model.
pub fn listed_skills(api: WireApi, body: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut texts = Vec::new();
    match api {
        WireApi::Anthropic => {
            push_texts(&body["system"], &mut texts);
            message_texts(&body["messages"], "content", &mut texts);
            tool_descriptions(body["tools"].as_array(), |tool| tool, &mut texts);
        }
        WireApi::OpenaiResponses => {
            push_texts(&body["instructions"], &mut texts);
            message_texts(&body["input"], "content", &mut texts);
            tool_descriptions(body["tools"].as_array(), |tool| tool, &mut texts);
        }
        WireApi::OpenaiChat => {
            message_texts(&body["messages"], "content", &mut texts);
            tool_descriptions(
                body["tools"].as_array(),
                |tool| &tool["function"],
                &mut texts,
            );
        }
        WireApi::Gemini => {
            push_texts(&body["systemInstruction"]["parts"], &mut texts);
            message_texts(&body["contents"], "parts", &mut texts);
            gemini_declarations(body, &mut texts, &mut names);
        }
    }
    for text in texts {
        read_available_skills(text, &mut names);
        read_claude_reminder(text, &mut names);
        read_codex_section(text, &mut names);
    }
    names
}

/// The texts the client wrote into `messages` (its `content` or `parts` under `field`): all of
/// a `system` or `developer` message, and the blocks of any other that start with
/// `<system-reminder>`.
fn message_texts<'a>(messages: &'a Value, field: &str, texts: &mut Vec<&'a str>) {
    for message in messages.as_array().into_iter().flatten() {
        let mut blocks = Vec::new();
        push_texts(&message[field], &mut blocks);
        if matches!(message["role"].as_str(), Some("system" | "developer")) {
            texts.extend(blocks);
        } else {
            texts.extend(
                blocks
                    .into_iter()
                    .filter(|text| text.trim_start().starts_with("<system-reminder>")),
            );
        }
    }
}

/// Gemini's function descriptions into `texts`, and the values of the `activate_skill` tool's
/// `name` enum into `names`.
fn gemini_declarations<'a>(
    body: &'a Value,
    texts: &mut Vec<&'a str>,
    names: &mut BTreeSet<String>,
) {
    let declarations = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["functionDeclarations"].as_array())
        .flatten();
    for declaration in declarations {
        if let Some(description) = declaration["description"].as_str() {
            texts.push(description);
        }
        if declaration["name"] != GEMINI_TOOL {
            continue;
        }
        let schema = declaration
            .get("parametersJsonSchema")
            .or_else(|| declaration.get("parameters"))
            .unwrap_or(&Value::Null);
        let choices = schema
            .pointer("/properties/name/enum")
            .and_then(Value::as_array);
        names.extend(
            choices
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(skill_name),
        );
    }
}

/// The descriptions of `tools`, each read from the object `function` picks out of its entry.
fn tool_descriptions<'a>(
    tools: Option<&'a Vec<Value>>,
    function: impl Fn(&'a Value) -> &'a Value,
    texts: &mut Vec<&'a str>,
) {
    for tool in tools.into_iter().flatten() {
        if let Some(description) = function(tool)["description"].as_str() {
            texts.push(description);
        }
    }
}

/// The texts of a content value: a string, or a list of blocks (or Gemini parts) with
/// `text`.
fn push_texts<'a>(content: &'a Value, texts: &mut Vec<&'a str>) {
    match content {
        Value::String(text) => texts.push(text),
        Value::Array(blocks) => {
            for block in blocks {
                match block {
                    Value::String(text) => texts.push(text),
                    _ => {
                        if let Some(text) = block["text"].as_str() {
                            texts.push(text);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// A skill name as listed: trimmed, non-empty, without whitespace.
fn skill_name(raw: &str) -> Option<String> {
    let name = raw.trim();
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_owned())
}

/// The name of a `- NAME: description` list line.
fn list_item_name(line: &str) -> Option<String> {
    let item = line.strip_prefix("- ")?;
    let name = item.split_once(": ").map_or(item, |(name, _)| name);
    skill_name(name)
}

/// `<available_skills>` … `<skill><name>NAME</name>…</skill>` … `</available_skills>`
/// (OpenCode, Copilot, Gemini CLI, Qwen Code). A tag followed by anything but `<skill>` or
/// its closing tag is prose about the listing ("only use skills listed in
/// <available_skills>"), not a listing.
fn read_available_skills(text: &str, names: &mut BTreeSet<String>) {
    const OPEN: &str = "<available_skills>";
    const CLOSE: &str = "</available_skills>";
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let listing = &rest[start + OPEN.len()..];
        let first = listing.trim_start();
        if !(first.starts_with("<skill>") || first.starts_with(CLOSE)) {
            rest = listing;
            continue;
        }
        let (listing, after) = listing.split_once(CLOSE).unwrap_or((listing, ""));
        let mut skills = listing;
        while let Some(open) = skills.find("<name>") {
            let name = &skills[open + "<name>".len()..];
            let Some((name, after_name)) = name.split_once("</name>") else {
                break;
            };
            names.extend(skill_name(name));
            skills = after_name;
        }
        rest = after;
    }
}

/// Claude Code's listing: the `- NAME: description` lines of the paragraph after
/// [`CLAUDE_HEADER`] (a description may run over several lines), up to a blank line or
/// `</system-reminder>`.
fn read_claude_reminder(text: &str, names: &mut BTreeSet<String>) {
    let Some((_, listing)) = text.split_once(CLAUDE_HEADER) else {
        return;
    };
    let listing = listing
        .split_once("</system-reminder>")
        .map_or(listing, |(listing, _)| listing);
    names.extend(
        listing
            .lines()
            .skip(1)
            .skip_while(|line| line.trim().is_empty())
            .take_while(|line| !line.trim().is_empty())
            .filter_map(list_item_name),
    );
}

/// Codex's `### Available skills` section: its `- NAME: description (file: …)` lines.
fn read_codex_section(text: &str, names: &mut BTreeSet<String>) {
    let Some((_, section)) = text.split_once(CODEX_HEADING) else {
        return;
    };
    names.extend(
        section
            .lines()
            .skip(1)
            .take_while(|line| !line.starts_with('#'))
            .filter_map(list_item_name),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The body of the first model request offering tools in a captured request log.
    fn first_request(log: &str) -> Value {
        log.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .map(|entry| entry["body"].clone())
            .find(|body| body.get("tools").is_some())
            .expect("a model request with tools")
    }

    fn names(api: WireApi, log: &str) -> Vec<String> {
        listed_skills(api, &first_request(log))
            .into_iter()
            .collect()
    }

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        names.sort();
        names
    }

    macro_rules! capture {
        ($name:literal) => {
            include_str!(concat!("../../tests/fixtures/mock-requests/", $name))
        };
    }

    #[test]
    fn each_cli_lists_the_installed_skills_where_it_puts_them() {
        // The pinned versions, run by the real-agent tier with `demo` in the workspace and
        // `tier-skill` installed by the config.
        let tier = ["demo", "tier-skill"];
        let cases: [(&str, WireApi, &str, &[&str]); 6] = [
            (
                "claude-code 2.1.332",
                WireApi::Anthropic,
                capture!("claude-code-2.1.332.jsonl"),
                &[
                    "dataviz",
                    "update-config",
                    "keybindings-help",
                    "code-review",
                    "simplify",
                    "fewer-permission-prompts",
                    "loop",
                    "claude-api",
                    "workflow-authoring",
                    "run",
                    "plugin-authoring",
                    "init",
                    "security-review",
                ],
            ),
            (
                "codex 0.171.0",
                WireApi::OpenaiResponses,
                capture!("codex-0.171.0.jsonl"),
                &[
                    "imagegen",
                    "openai-docs",
                    "skill-creator",
                    "skill-installer",
                ],
            ),
            (
                "qwen-code 0.24.4",
                WireApi::OpenaiChat,
                capture!("qwen-code-0.24.4.jsonl"),
                &[
                    "batch",
                    "browser-use",
                    "computer-use",
                    "dataviz",
                    "extension-creator",
                    "goal-draft",
                    "loop",
                    "new-app",
                    "qc-helper",
                    "review",
                    "simplify",
                    "stuck",
                    "workflow-authoring",
                    "workflow-creator",
                ],
            ),
            (
                "copilot 1.0.102",
                WireApi::OpenaiChat,
                capture!("copilot-1.0.102.if-listed.jsonl"),
                &["customize-cloud-agent", "github-pr-media"],
            ),
            (
                "gemini-cli 0.61.0",
                WireApi::Gemini,
                capture!("gemini-cli-0.61.0.if-listed.jsonl"),
                &["skill-creator", "antigravity-support"],
            ),
            (
                "opencode 1.18.33",
                WireApi::OpenaiChat,
                capture!("opencode-1.18.33.if-listed.jsonl"),
                &["customize-opencode"],
            ),
        ];
        for (cli, api, log, built_in) in cases {
            let expected: Vec<&str> = tier.iter().chain(built_in).copied().collect();
            assert_eq!(names(api, log), sorted(&expected), "{cli}");
        }
    }

    #[test]
    fn the_earlier_captures_list_only_the_clis_own_skills() {
        // Earlier versions, captured with no skill installed: each CLI's built-in skills.
        let cases: [(WireApi, &str, &[&str]); 6] = [
            (
                WireApi::Anthropic,
                capture!("claude-code.jsonl"),
                &[
                    "claude-api",
                    "code-review",
                    "dataviz",
                    "fewer-permission-prompts",
                    "init",
                    "keybindings-help",
                    "loop",
                    "plugin-authoring",
                    "run",
                    "security-review",
                    "simplify",
                    "update-config",
                    "workflow-authoring",
                ],
            ),
            (
                WireApi::OpenaiResponses,
                capture!("codex.jsonl"),
                &[
                    "imagegen",
                    "openai-docs",
                    "skill-creator",
                    "skill-installer",
                ],
            ),
            (
                WireApi::OpenaiChat,
                capture!("opencode.jsonl"),
                &["customize-opencode"],
            ),
            (
                WireApi::OpenaiChat,
                capture!("copilot.jsonl"),
                &["customize-cloud-agent", "github-pr-media"],
            ),
            (
                WireApi::Gemini,
                capture!("gemini-cli.jsonl"),
                &["skill-creator", "antigravity-support"],
            ),
            (
                WireApi::OpenaiChat,
                capture!("qwen-code.jsonl"),
                &["batch", "loop", "qc-helper", "review"],
            ),
        ];
        for (api, log, expected) in cases {
            assert_eq!(names(api, log), sorted(expected), "{api:?}");
        }
    }

    #[test]
    fn a_prompt_or_a_tool_result_that_names_a_skill_does_not_list_it() {
        let listing =
            "<available_skills>\n<skill>\n<name>demo</name>\n</skill>\n</available_skills>";
        let body = json!({
            "messages": [
                {"role": "user", "content": format!("Use this: {listing}")},
                {"role": "tool", "content": listing},
                {"role": "system", "content": "Only use skills listed in <available_skills>. <name>nope</name>"},
            ],
            "tools": [{"type": "function", "function": {"name": "skill", "description": "See <available_skills> in the system prompt."}}],
        });
        assert!(listed_skills(WireApi::OpenaiChat, &body).is_empty());
        let body = json!({
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": format!("{CLAUDE_HEADER}\n- demo: mentioned")},
                {"type": "tool_result", "content": [{"type": "text", "text": format!("<system-reminder>\n{CLAUDE_HEADER}\n- demo: x")}]},
            ]}],
        });
        assert!(listed_skills(WireApi::Anthropic, &body).is_empty());
        let reminder = format!(
            "<system-reminder>\n{CLAUDE_HEADER}\n\n- demo: one\nsecond line\n- tools:lint: a \
             plugin's: colon\n\n- after: the paragraph\n</system-reminder>"
        );
        let body = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": reminder}]}]});
        assert_eq!(
            listed_skills(WireApi::Anthropic, &body),
            BTreeSet::from(["demo".to_owned(), "tools:lint".to_owned()])
        );
        let body = json!({
            "input": format!("{CODEX_HEADING}\n- demo: x"),
            "instructions": format!("{CODEX_HEADING}\n- listed: yes (file: x)\n### Next\n- after: no"),
        });
        assert_eq!(
            listed_skills(WireApi::OpenaiResponses, &body),
            BTreeSet::from(["listed".to_owned()])
        );
    }
}
