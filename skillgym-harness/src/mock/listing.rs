//! Which skills a model request lists as available to the model: what an `if_listed` step of a
//! [script](super::script) tests ([`listed_skills`]), and how it lists them ([`skill_listing`]:
//! each description as shown, where it is, the listing's size), what `cargo skillgym probe`
//! reports.
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
//!
//! What [`skill_listing`] reads of each entry:
//!
//! | listing | description | location |
//! |---|---|---|
//! | `<available_skills>` | the `<description>` element, trimmed, entities kept (`&apos;`) | the `<location>` element (a path, `project`, `<built-in>`) |
//! | Claude Code's sentence | what follows `NAME: `, its continuation lines joined with `\n` | none |
//! | Codex's heading | what follows `NAME: `, without the trailing ` (file: …)` | that file, its root alias expanded with the `### Skill roots` section above (`` - `r1` = `/w/.agents/skills` ``) |
//! | Gemini CLI's enum | none | none |

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::config::WireApi;

/// The sentence that opens Claude Code's skill listing.
const CLAUDE_HEADER: &str = "The following skills are available for use with the Skill tool:";
/// The heading of Codex's skill listing.
const CODEX_HEADING: &str = "### Available skills";
/// The tool whose `name` enum is Gemini CLI's listing.
const GEMINI_TOOL: &str = "activate_skill";

/// One entry of a request's skill listing, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ListedSkill {
    /// The name as listed.
    pub name: String,
    /// The description exactly as the request shows it (escapes, cuts and additions kept,
    /// surrounding whitespace trimmed); `None` where the place lists names only (Gemini CLI's
    /// `activate_skill` enum).
    pub description: Option<String>,
    /// Where the skill's file is, as the listing says (Codex's `(file: …)`, a `<location>`).
    pub location: Option<String>,
    /// Where in the request: a JSON pointer to the text holding the listing
    /// (`/messages/0/content/2/text`), with the enum's pointer for Gemini CLI's tool.
    pub place: String,
}

/// A request's skill listing: every entry in request order (a name listed in two places, or
/// twice in one, appears each time), and the listing text's size.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Listing {
    /// The entries, in request order.
    pub skills: Vec<ListedSkill>,
    /// Characters of the listing text: each listing block from its opening marker to its end
    /// (`<available_skills>` … `</available_skills>`, Claude Code's sentence and its
    /// paragraph, Codex's heading and its lines), plus the values of Gemini CLI's enum.
    pub chars: usize,
}

impl Listing {
    /// The listed names.
    pub fn names(&self) -> BTreeSet<String> {
        self.skills.iter().map(|skill| skill.name.clone()).collect()
    }

    /// The listing's size in tokens, estimated as [`chars`](Self::chars) / 4 rounded up (the
    /// usual estimate for English text with OpenAI's and Anthropic's tokenizers; no tokenizer
    /// is run).
    pub fn estimated_tokens(&self) -> usize {
        self.chars.div_ceil(4)
    }
}

/// A text the client wrote, and the JSON pointer to it.
struct Text<'a> {
    place: String,
    text: &'a str,
}

/// The names of the skills `body`, a model request on `api`, lists as available to the model.
pub fn listed_skills(api: WireApi, body: &Value) -> BTreeSet<String> {
    skill_listing(api, body).names()
}

/// The skill listing of `body`, a model request on `api`: where each skill is listed and how.
pub fn skill_listing(api: WireApi, body: &Value) -> Listing {
    let mut listing = Listing::default();
    let mut texts = Vec::new();
    match api {
        WireApi::Anthropic => {
            push_texts(&body["system"], "/system", &mut texts);
            message_texts(&body["messages"], "/messages", "content", &mut texts);
            tool_descriptions(body["tools"].as_array(), "", &mut texts);
        }
        WireApi::OpenaiResponses => {
            push_texts(&body["instructions"], "/instructions", &mut texts);
            message_texts(&body["input"], "/input", "content", &mut texts);
            tool_descriptions(body["tools"].as_array(), "", &mut texts);
        }
        WireApi::OpenaiChat => {
            message_texts(&body["messages"], "/messages", "content", &mut texts);
            tool_descriptions(body["tools"].as_array(), "/function", &mut texts);
        }
        WireApi::Gemini => {
            push_texts(
                &body["systemInstruction"]["parts"],
                "/systemInstruction/parts",
                &mut texts,
            );
            message_texts(&body["contents"], "/contents", "parts", &mut texts);
            gemini_declarations(body, &mut texts, &mut listing);
        }
    }
    for text in texts {
        read_available_skills(&text, &mut listing);
        read_claude_reminder(&text, &mut listing);
        read_codex_section(&text, &mut listing);
    }
    listing
}

/// The texts the client wrote into `messages` (its `content` or `parts` under `field`): all of
/// a `system` or `developer` message, and the blocks of any other that start with
/// `<system-reminder>`.
fn message_texts<'a>(messages: &'a Value, base: &str, field: &str, texts: &mut Vec<Text<'a>>) {
    for (index, message) in messages.as_array().into_iter().flatten().enumerate() {
        let mut blocks = Vec::new();
        push_texts(
            &message[field],
            &format!("{base}/{index}/{field}"),
            &mut blocks,
        );
        if matches!(message["role"].as_str(), Some("system" | "developer")) {
            texts.extend(blocks);
        } else {
            texts.extend(
                blocks
                    .into_iter()
                    .filter(|text| text.text.trim_start().starts_with("<system-reminder>")),
            );
        }
    }
}

/// Gemini's function descriptions into `texts`, and the values of the `activate_skill` tool's
/// `name` enum into `listing`.
fn gemini_declarations<'a>(body: &'a Value, texts: &mut Vec<Text<'a>>, listing: &mut Listing) {
    let tools = body["tools"].as_array().into_iter().flatten().enumerate();
    for (tool_index, tool) in tools {
        let declarations = tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten();
        for (index, declaration) in declarations.enumerate() {
            let base = format!("/tools/{tool_index}/functionDeclarations/{index}");
            if let Some(description) = declaration["description"].as_str() {
                texts.push(Text {
                    place: format!("{base}/description"),
                    text: description,
                });
            }
            if declaration["name"] != GEMINI_TOOL {
                continue;
            }
            let key = if declaration.get("parametersJsonSchema").is_some() {
                "parametersJsonSchema"
            } else {
                "parameters"
            };
            let pointer = format!("/{key}/properties/name/enum");
            let choices = declaration.pointer(&pointer).and_then(Value::as_array);
            for name in choices.into_iter().flatten().filter_map(Value::as_str) {
                listing.chars += name.chars().count();
                listing
                    .skills
                    .extend(skill_name(name).map(|name| ListedSkill {
                        name,
                        description: None,
                        location: None,
                        place: format!("{base}{pointer}"),
                    }));
            }
        }
    }
}

/// The descriptions of `tools`, each read from the object at `function` in its entry (`""`:
/// the entry itself).
fn tool_descriptions<'a>(tools: Option<&'a Vec<Value>>, function: &str, texts: &mut Vec<Text<'a>>) {
    for (index, tool) in tools.into_iter().flatten().enumerate() {
        let object = if function.is_empty() {
            Some(tool)
        } else {
            tool.pointer(function)
        };
        if let Some(description) = object.and_then(|object| object["description"].as_str()) {
            texts.push(Text {
                place: format!("/tools/{index}{function}/description"),
                text: description,
            });
        }
    }
}

/// The texts of a content value at `base`: a string, or a list of blocks (or Gemini parts)
/// with `text`.
fn push_texts<'a>(content: &'a Value, base: &str, texts: &mut Vec<Text<'a>>) {
    match content {
        Value::String(text) => texts.push(Text {
            place: base.to_owned(),
            text,
        }),
        Value::Array(blocks) => {
            for (index, block) in blocks.iter().enumerate() {
                let (place, text) = match block {
                    Value::String(text) => (format!("{base}/{index}"), Some(text.as_str())),
                    _ => (format!("{base}/{index}/text"), block["text"].as_str()),
                };
                if let Some(text) = text {
                    texts.push(Text { place, text });
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

/// The name and description of a `- NAME: description` list item (its lines joined).
fn list_item(item: &str) -> Option<(String, String)> {
    let item = item.strip_prefix("- ")?;
    let (name, description) = item.split_once(": ").unwrap_or((item, ""));
    Some((skill_name(name)?, description.trim().to_owned()))
}

/// The text between `<tag>` and `</tag>` in `block`, trimmed.
fn element<'a>(block: &'a str, tag: &str) -> Option<&'a str> {
    let (_, rest) = block.split_once(&format!("<{tag}>"))?;
    let (inner, _) = rest.split_once(&format!("</{tag}>"))?;
    Some(inner.trim())
}

/// `<available_skills>` … `<skill><name>NAME</name><description>…</description>
/// <location>…</location></skill>` … `</available_skills>` (OpenCode, Copilot, Gemini CLI,
/// Qwen Code). A tag followed by anything but `<skill>` or its closing tag is prose about the
/// listing ("only use skills listed in <available_skills>"), not a listing.
fn read_available_skills(text: &Text<'_>, found: &mut Listing) {
    const OPEN: &str = "<available_skills>";
    const CLOSE: &str = "</available_skills>";
    let mut rest = text.text;
    while let Some(start) = rest.find(OPEN) {
        let listing = &rest[start + OPEN.len()..];
        let first = listing.trim_start();
        if !(first.starts_with("<skill>") || first.starts_with(CLOSE)) {
            rest = listing;
            continue;
        }
        let (listing, after) = listing.split_once(CLOSE).unwrap_or((listing, ""));
        found.chars += OPEN.len() + listing.chars().count() + CLOSE.len();
        for block in listing.split("<skill>").skip(1) {
            let Some(name) = element(block, "name").and_then(skill_name) else {
                continue;
            };
            found.skills.push(ListedSkill {
                name,
                description: element(block, "description").map(str::to_owned),
                location: element(block, "location").map(str::to_owned),
                place: text.place.clone(),
            });
        }
        rest = after;
    }
}

/// Claude Code's listing: the `- NAME: description` items of the paragraph after
/// [`CLAUDE_HEADER`] (a description may run over several lines), up to a blank line or
/// `</system-reminder>`.
fn read_claude_reminder(text: &Text<'_>, found: &mut Listing) {
    let Some((_, listing)) = text.text.split_once(CLAUDE_HEADER) else {
        return;
    };
    let listing = listing
        .split_once("</system-reminder>")
        .map_or(listing, |(listing, _)| listing);
    let lines: Vec<&str> = listing
        .lines()
        .skip(1)
        .skip_while(|line| line.trim().is_empty())
        .take_while(|line| !line.trim().is_empty())
        .collect();
    found.chars += CLAUDE_HEADER.len()
        + lines
            .iter()
            .map(|line| line.chars().count() + 1)
            .sum::<usize>();
    let mut items: Vec<String> = Vec::new();
    for line in lines {
        match items.last_mut() {
            Some(item) if !line.starts_with("- ") => {
                item.push('\n');
                item.push_str(line);
            }
            _ => items.push(line.to_owned()),
        }
    }
    for (name, description) in items.iter().filter_map(|item| list_item(item)) {
        found.skills.push(ListedSkill {
            name,
            description: Some(description),
            location: None,
            place: text.place.clone(),
        });
    }
}

/// The aliases of Codex's `### Skill roots` section (``- `r0` = `/path` ``) in `text`.
fn codex_roots(text: &str) -> Vec<(&str, &str)> {
    let Some((_, section)) = text.rsplit_once("### Skill roots") else {
        return Vec::new();
    };
    section
        .lines()
        .filter_map(|line| line.strip_prefix("- `")?.split_once("` = `"))
        .filter_map(|(alias, path)| Some((alias, path.strip_suffix('`')?)))
        .collect()
}

/// A Codex short path (`r1/demo/SKILL.md`) with its root alias expanded, when `roots` has it.
fn expand_root(roots: &[(&str, &str)], file: &str) -> String {
    let expanded = file.split_once('/').and_then(|(alias, rest)| {
        let (_, root) = roots.iter().find(|(known, _)| *known == alias)?;
        Some(format!("{root}/{rest}"))
    });
    expanded.unwrap_or_else(|| file.to_owned())
}

/// Codex's `### Available skills` section: its `- NAME: description (file: …)` lines.
fn read_codex_section(text: &Text<'_>, found: &mut Listing) {
    let Some((before, section)) = text.text.split_once(CODEX_HEADING) else {
        return;
    };
    let roots = codex_roots(before);
    let lines = section
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('#'));
    found.chars += CODEX_HEADING.len();
    for line in lines {
        found.chars += line.chars().count() + 1;
        let Some((name, shown)) = list_item(line) else {
            continue;
        };
        let (description, location) = match shown
            .strip_suffix(')')
            .and_then(|rest| rest.rsplit_once(" (file: "))
        {
            Some((description, file)) => (description.to_owned(), Some(expand_root(&roots, file))),
            None => (shown, None),
        };
        found.skills.push(ListedSkill {
            name,
            description: Some(description),
            location,
            place: text.place.clone(),
        });
    }
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
    fn each_cli_shows_the_tier_skill_description_in_its_own_way() {
        // The pinned versions, as the real-agent tier captured them: the description of
        // `tests/real_agents/skills/tier-skill`, where each CLI puts it and how it writes it.
        let written = "The skill under test of skillgym's real-agent tier. Use it when asked to load the tier skill.";
        let escaped = written.replace('\'', "&apos;");
        // (CLI, wire, capture, description shown, location, place)
        type Case<'a> = (&'a str, WireApi, &'a str, String, Option<&'a str>, &'a str);
        let cases: [Case<'_>; 6] = [
            (
                "claude-code 2.1.332",
                WireApi::Anthropic,
                capture!("claude-code-2.1.332.jsonl"),
                written.to_owned(),
                None,
                "/messages/0/content/4/text",
            ),
            (
                "codex 0.171.0",
                WireApi::OpenaiResponses,
                capture!("codex-0.171.0.jsonl"),
                written.to_owned(),
                Some("/home/dev/demo/.agents/skills/tier-skill/SKILL.md"),
                "/input/1/content/0/text",
            ),
            (
                "qwen-code 0.24.4",
                WireApi::OpenaiChat,
                capture!("qwen-code-0.24.4.jsonl"),
                format!("{escaped} (project)"),
                Some("project"),
                "/messages/1/content/0/text",
            ),
            (
                "copilot 1.0.102",
                WireApi::OpenaiChat,
                capture!("copilot-1.0.102.if-listed.jsonl"),
                escaped.clone(),
                Some("project"),
                "/messages/0/content",
            ),
            (
                "gemini-cli 0.61.0",
                WireApi::Gemini,
                capture!("gemini-cli-0.61.0.if-listed.jsonl"),
                written.to_owned(),
                Some("/home/dev/demo/.gemini/skills/tier-skill/SKILL.md"),
                "/systemInstruction/parts/0/text",
            ),
            (
                "opencode 1.18.33",
                WireApi::OpenaiChat,
                capture!("opencode-1.18.33.if-listed.jsonl"),
                written.to_owned(),
                Some("/home/dev/demo/.opencode/skills/tier-skill/SKILL.md"),
                "/messages/0/content",
            ),
        ];
        for (cli, api, log, shown, location, place) in cases {
            let listing = skill_listing(api, &first_request(log));
            let entry = listing
                .skills
                .iter()
                .find(|skill| skill.name == "tier-skill" && skill.description.is_some())
                .unwrap_or_else(|| panic!("{cli}: tier-skill with a description"));
            assert_eq!(entry.description.as_deref(), Some(shown.as_str()), "{cli}");
            assert_eq!(entry.location.as_deref(), location, "{cli}");
            assert_eq!(entry.place, place, "{cli}");
            assert!(listing.chars > 500, "{cli}: {}", listing.chars);
            assert_eq!(
                listing.estimated_tokens(),
                listing.chars.div_ceil(4),
                "{cli}"
            );
        }
    }

    #[test]
    fn gemini_lists_each_name_twice_and_only_the_system_text_has_descriptions() {
        let listing = skill_listing(
            WireApi::Gemini,
            &first_request(capture!("gemini-cli-0.61.0.if-listed.jsonl")),
        );
        let places: Vec<(&str, bool)> = listing
            .skills
            .iter()
            .filter(|skill| skill.name == "demo")
            .map(|skill| (skill.place.as_str(), skill.description.is_some()))
            .collect();
        assert_eq!(
            places,
            [
                (
                    "/tools/0/functionDeclarations/15/parametersJsonSchema/properties/name/enum",
                    false
                ),
                ("/systemInstruction/parts/0/text", true),
            ]
        );
    }

    #[test]
    fn the_listing_size_counts_the_listing_text_only() {
        let block = "<available_skills><skill><name>a</name><description>Does a.</description></skill></available_skills>";
        let body = json!({"messages": [{"role": "system", "content": format!("Intro text. {block} Outro.")}]});
        let listing = skill_listing(WireApi::OpenaiChat, &body);
        assert_eq!(listing.chars, block.len());
        assert_eq!(listing.estimated_tokens(), block.len().div_ceil(4));
        let reminder = format!(
            "<system-reminder>\n{CLAUDE_HEADER}\n\n- demo: one\nsecond line\n\nAfter.\n</system-reminder>"
        );
        let body = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": reminder}]}]});
        let listing = skill_listing(WireApi::Anthropic, &body);
        assert_eq!(
            listing.chars,
            CLAUDE_HEADER.len() + "- demo: one\n".len() + "second line\n".len()
        );
        assert_eq!(
            listing.skills[0].description.as_deref(),
            Some("one\nsecond line")
        );
        assert_eq!(listing.skills[0].place, "/messages/0/content/0/text");
        let codex = format!(
            "### Skill roots\n- `r0` = `/w/.agents/skills`\n{CODEX_HEADING}\n- a: A. (file: r0/a/SKILL.md)\n- b: B. (file: r9/b/SKILL.md)\n- c: C."
        );
        let listing = skill_listing(WireApi::OpenaiResponses, &json!({"instructions": codex}));
        let locations: Vec<Option<&str>> = listing
            .skills
            .iter()
            .map(|skill| skill.location.as_deref())
            .collect();
        assert_eq!(
            locations,
            [
                Some("/w/.agents/skills/a/SKILL.md"),
                Some("r9/b/SKILL.md"),
                None
            ]
        );
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
