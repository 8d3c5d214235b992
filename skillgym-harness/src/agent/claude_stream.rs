//! The stream-json parser shared by `claude-code` and `qwen-code` (Qwen Code prints
//! Claude-Code-shaped stream-json), with a [`Dialect`] for what differs.
//!
//! | record | report |
//! |---|---|
//! | `system/init` | session id; kept as a raw event |
//! | `system/status`, `stream_event` (partial messages), `keep_alive` | dropped (`stream_event` `message_start` only counts its message id as a step) |
//! | `assistant` | one step per distinct `message.id` (Claude repeats it on every content-block line); `text` → assistant message (phase settled later), `thinking` → thinking message, `tool_use` → tool call, plus a command for the shell tool, a file read for the read tool, a skill signal for the skill tool |
//! | `assistant` with `error` / `is_api_error_message` (Claude), or text starting with the dialect's API-error marker (Qwen `[API Error: …]`) | held as the pending provider error, not a message; a later real message clears it |
//! | `user` | `tool_result` blocks → tool results (content string, or the `text` of its blocks joined by newlines; `is_error`); text → user message |
//! | `result` | `result` → final output; `usage` → session usage (replaces the per-message sums); `total_cost_usd` → cost; `is_error` with an API status, a pending API error or an API-error message → provider error (status + message, JSON bodies unwrapped); other errors → a warning |
//! | anything else | kept as a raw event |
//!
//! Usage: per message id the latest `usage` is kept and summed at the end of the stream unless
//! a `result` reported the session total. Claude's `input_tokens` excludes the cache, so input
//! = `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`; Qwen's includes
//! it. `output_tokens_details.thinking_tokens` (Claude) moves from output to reasoning.

use foldhash::HashMap;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use skillgym::{Phase, Role};

use super::StreamParser;
use super::api_error;
use super::isolation;
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage, abbreviate};

/// What differs between the agents that print Claude-Code-shaped stream-json.
#[derive(Debug)]
pub(crate) struct Dialect {
    /// Whether `usage.input_tokens` already counts cached input (Qwen) or not (Anthropic).
    pub input_includes_cache: bool,
    /// Tools whose `command` input is a shell command (with an optional `directory`).
    pub shell_tools: &'static [&'static str],
    /// Tools whose `file_path` (or `absolute_path`, `path`) input is a file read.
    pub read_tools: &'static [&'static str],
    /// Tools that load a skill named by input `skill` (or `name`).
    pub skill_tools: &'static [&'static str],
    /// Assistant text starting with this is a provider error the agent printed as text.
    pub api_error_text: Option<&'static str>,
    /// How a shell tool's result tells the command's exit status, if it does.
    pub exit_status: ExitStatus,
}

/// Where a Claude-shaped agent puts a shell command's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitStatus {
    /// In the result: not an error is 0, an error starts with `Exit code N` (Claude Code).
    ResultText,
    /// In the result of a failure, which is an error whose last `Exit Code: N` line holds the
    /// code (Qwen Code since its shell tool marks non-zero exits as failed). A result that is
    /// not an error exited 0 from version `zero_since` (of the `system/init` record) on, the
    /// oldest verified to mark failures; with an older or unknown version it stays unknown
    /// (Qwen 0.15.10 reports a failing command as no error, without its code).
    FailureFooter {
        /// The first version known to report every failure as an error.
        zero_since: [u32; 3],
    },
}

/// Claude Code's stream-json.
pub(crate) const CLAUDE_CODE: Dialect = Dialect {
    input_includes_cache: false,
    shell_tools: &["Bash"],
    read_tools: &["Read"],
    skill_tools: &["Skill"],
    api_error_text: None,
    exit_status: ExitStatus::ResultText,
};

/// Qwen Code's stream-json.
pub(crate) const QWEN_CODE: Dialect = Dialect {
    input_includes_cache: true,
    shell_tools: &["run_shell_command"],
    read_tools: &["read_file"],
    skill_tools: &["skill"],
    api_error_text: Some("[API Error:"),
    exit_status: ExitStatus::FailureFooter {
        zero_since: [0, 24, 4],
    },
};

/// Parses Claude-Code-shaped stream-json into the report.
#[derive(Debug)]
pub(crate) struct ClaudeStreamParser {
    dialect: &'static Dialect,
    lines: JsonLine,
    session_seen: bool,
    /// Latest usage per assistant message id (also the step dedupe set).
    messages: HashMap<String, Option<TokenUsage>>,
    /// Usage of messages without an id.
    loose_usage: Vec<TokenUsage>,
    /// A `result` reported the session's usage.
    usage_settled: bool,
    pending_error: Option<PendingError>,
    /// The agent's version, from the `system/init` record (Qwen's `qwen_code_version`).
    version: Option<[u32; 3]>,
}

#[derive(Debug)]
struct PendingError {
    status: Option<u16>,
    message: String,
}

impl ClaudeStreamParser {
    /// A parser for one session's stdout.
    pub(crate) fn new(dialect: &'static Dialect) -> Self {
        ClaudeStreamParser {
            dialect,
            lines: JsonLine::default(),
            session_seen: false,
            messages: HashMap::default(),
            loose_usage: Vec::new(),
            usage_settled: false,
            pending_error: None,
            version: None,
        }
    }

    /// The exit code a shell tool's result tells, if it does (see [`ExitStatus`]).
    fn exit_code(&self, output: &str, is_error: bool) -> Option<i32> {
        match self.dialect.exit_status {
            ExitStatus::ResultText => exit_code_in_text(output, is_error),
            ExitStatus::FailureFooter { zero_since } => {
                if is_error {
                    exit_code_in_footer(output)
                } else {
                    self.version
                        .is_some_and(|version| version >= zero_since)
                        .then_some(0)
                }
            }
        }
    }

    fn tokens(&self, usage: &UsageRecord) -> TokenUsage {
        let reasoning = usage
            .output_tokens_details
            .and_then(|details| details.thinking_tokens.or(details.reasoning_tokens));
        let input = if self.dialect.input_includes_cache {
            usage.input_tokens
        } else {
            let parts = [
                usage.input_tokens,
                usage.cache_creation_input_tokens,
                usage.cache_read_input_tokens,
            ];
            parts.iter().any(Option::is_some).then(|| {
                parts
                    .iter()
                    .flatten()
                    .fold(0u64, |sum, &part| sum.saturating_add(part))
            })
        };
        TokenUsage {
            input,
            output: usage
                .output_tokens
                .map(|output| output.saturating_sub(reasoning.unwrap_or(0))),
            reasoning,
            cache_read: usage.cache_read_input_tokens,
        }
    }

    /// Counts a model response once per message id and keeps its latest usage.
    fn observe_message(
        &mut self,
        id: Option<Cow<'_, str>>,
        usage: Option<&UsageRecord>,
        out: &mut ReportBuilder,
    ) {
        let tokens = usage.map(|usage| self.tokens(usage));
        match id.filter(|id| !id.is_empty()) {
            Some(id) => match self.messages.get_mut(id.as_ref()) {
                Some(slot) => {
                    if tokens.is_some() {
                        *slot = tokens;
                    }
                }
                None => {
                    out.step();
                    self.messages.insert(id.into_owned(), tokens);
                }
            },
            None => {
                out.step();
                self.loose_usage.extend(tokens);
            }
        }
    }

    fn assistant(&mut self, record: Record<'_>, out: &mut ReportBuilder) {
        let at = record.timestamp.map(Cow::into_owned);
        let Some(message) = record.message.and_then(|message| message.0) else {
            return;
        };
        let failed = record.is_api_error_message == Some(true)
            || record.error.as_ref().is_some_and(|error| !error.is_null());
        if failed {
            let text = message.content.into_text();
            let (status, mut text) = unwrap_api_error(&text);
            if text.is_empty() {
                text = record
                    .error
                    .as_ref()
                    .and_then(api_error::error_message)
                    .unwrap_or_default()
                    .to_owned();
            }
            self.pending_error = Some(PendingError {
                status: record
                    .api_error_status
                    .and_then(api_error::status)
                    .or(status),
                message: text,
            });
            return;
        }
        if message.model.as_deref() != Some("<synthetic>") {
            self.pending_error = None;
            self.observe_message(message.id, message.usage.as_ref(), out);
        }
        let Content::Blocks(blocks) = message.content else {
            if let Content::Text(text) = message.content {
                out.message(Role::Assistant, None, text.into_owned(), at);
            }
            return;
        };
        for block in blocks {
            match block.kind.as_ref() {
                "text" => {
                    let Some(text) = block.text else { continue };
                    if let Some(marker) = self.dialect.api_error_text
                        && text.trim_start().starts_with(marker)
                    {
                        let (status, message) = unwrap_api_error(&text);
                        self.pending_error = Some(PendingError { status, message });
                        continue;
                    }
                    out.message(Role::Assistant, None, text.into_owned(), at.clone());
                }
                "thinking" => {
                    if let Some(thinking) = block.thinking {
                        out.message(
                            Role::Assistant,
                            Some(Phase::Thinking),
                            thinking.into_owned(),
                            at.clone(),
                        );
                    }
                }
                "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                    self.tool_use(block, at.clone(), out);
                }
                _ => {}
            }
        }
    }

    fn tool_use(&self, block: Block<'_>, at: Option<String>, out: &mut ReportBuilder) {
        let name = block.name.as_deref().unwrap_or_default();
        let input = block.input.unwrap_or(Value::Null);
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|key| input.get(key).and_then(Value::as_str))
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        let shell = if self.dialect.shell_tools.contains(&name) {
            text(&["command"]).map(|command| (command, text(&["directory"]).map(PathBuf::from)))
        } else {
            None
        };
        let read = if self.dialect.read_tools.contains(&name) {
            text(&["file_path", "absolute_path", "path"])
        } else {
            None
        };
        let skill = if self.dialect.skill_tools.contains(&name) {
            text(&["skill", "name"])
        } else {
            None
        };
        out.tool_call(block.id.as_deref(), name, input, at.clone());
        if let Some((command, workdir)) = shell {
            out.shell_command(
                block.id.as_deref(),
                &command,
                None,
                workdir.as_deref(),
                at.clone(),
            );
        }
        if let Some(path) = read {
            out.file_read(block.id.as_deref(), &path, None, at.clone());
        }
        if let Some(skill) = skill {
            out.skill_signal(block.id.as_deref(), &skill, at);
        }
    }

    fn user(&mut self, record: Record<'_>, out: &mut ReportBuilder) {
        let at = record.timestamp.map(Cow::into_owned);
        let Some(message) = record.message.and_then(|message| message.0) else {
            return;
        };
        match message.content {
            Content::Text(text) => out.message(Role::User, None, text.into_owned(), at),
            Content::Blocks(blocks) => {
                for block in blocks {
                    match block.kind.as_ref() {
                        "tool_result" => {
                            let id = block.tool_use_id.as_deref();
                            let output = block.content.into_text();
                            let is_error = block.is_error.unwrap_or(false);
                            if let Some(id) = id
                                && let Some(code) = self.exit_code(&output, is_error)
                            {
                                out.command_exit(id, code);
                            }
                            out.tool_result(id, output, is_error, at.clone());
                        }
                        "text" => {
                            if let Some(text) = block.text {
                                out.message(Role::User, None, text.into_owned(), at.clone());
                            }
                        }
                        _ => {}
                    }
                }
            }
            Content::None => {}
        }
    }

    fn result(&mut self, record: Record<'_>, out: &mut ReportBuilder) {
        if let Some(usage) = &record.usage {
            let tokens = self.tokens(usage);
            out.set_usage(tokens);
            self.usage_settled = true;
        }
        if let Some(cost) = record.total_cost_usd {
            out.set_cost(cost);
        }
        let text = match record.result {
            Some(Value::String(text)) => Some(text),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        if record.is_error == Some(true) {
            let status = record.api_error_status.and_then(api_error::status);
            let pending = self.pending_error.take();
            let reported = record
                .error
                .as_ref()
                .and_then(api_error::error_message)
                .map(str::to_owned)
                .or(text);
            let api_like = reported.as_deref().is_some_and(looks_like_api_error);
            if pending.is_some() || status.is_some() || api_like {
                let (parsed_status, parsed) = reported
                    .as_deref()
                    .map(unwrap_api_error)
                    .unwrap_or_default();
                let pending_status = pending.as_ref().and_then(|pending| pending.status);
                let message = pending
                    .map(|pending| pending.message)
                    .filter(|message| !message.is_empty())
                    .or(Some(parsed).filter(|message| !message.is_empty()))
                    .unwrap_or_else(|| "the model provider returned an error".to_owned());
                out.provider_error(status.or(pending_status).or(parsed_status), message);
            } else {
                let subtype = record.subtype.as_deref().unwrap_or("error");
                let detail = reported
                    .map(|text| format!(": {}", abbreviate(&text)))
                    .unwrap_or_default();
                out.warn(format!("the agent ended with an error ({subtype}){detail}"));
            }
        } else if let Some(pending) = self.pending_error.take() {
            out.provider_error(pending.status, pending.message);
        } else if let Some(text) = text.filter(|text| !text.is_empty()) {
            out.final_output(text);
        }
    }

    fn stream_event(&mut self, record: Record<'_>, out: &mut ReportBuilder) {
        let Some(event) = record.event else { return };
        if event.kind != "message_start" {
            return;
        }
        if let Some(message) = event.message.and_then(|message| message.0)
            && message.model.as_deref() != Some("<synthetic>")
        {
            self.observe_message(message.id, message.usage.as_ref(), out);
        }
    }
}

impl StreamParser for ClaudeStreamParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.lines.parse::<Record>(line, out) else {
            return;
        };
        if !self.session_seen
            && let Some(id) = record.session_id.as_deref().filter(|id| !id.is_empty())
        {
            out.session_id(id);
            self.session_seen = true;
        }
        if let Some(version) = record.qwen_code_version.as_deref() {
            self.version = parse_version(version);
        }
        match record.kind.as_ref() {
            "assistant" => self.assistant(record, out),
            "user" => self.user(record, out),
            "result" => self.result(record, out),
            "stream_event" => self.stream_event(record, out),
            "system" if record.subtype.as_deref() == Some("status") => {}
            "keep_alive" => {}
            _ => {
                let at = record.timestamp.map(Cow::into_owned);
                self.lines.keep_raw(line, at, out);
            }
        }
    }

    fn finish(&mut self, out: &mut ReportBuilder) {
        if !self.usage_settled {
            for tokens in self.messages.values().flatten().chain(&self.loose_usage) {
                out.add_usage(*tokens);
            }
        }
        if let Some(pending) = self.pending_error.take() {
            out.provider_error(pending.status, pending.message);
        }
    }
}

/// Splits an agent's API error text into HTTP status and the provider's message:
/// `API Error: 400 {"type":"error","error":{"message":"prompt is too long"}}` →
/// `(Some(400), "prompt is too long")`. Qwen's `[API Error: …]` brackets and Claude's
/// `API Error (model):` prefix are removed here; [`api_error::parse`] reads the rest.
fn unwrap_api_error(text: &str) -> (Option<u16>, String) {
    let mut rest = text.trim();
    if let Some(inner) = rest.strip_prefix('[')
        && let Some(end) = inner.rfind(']')
    {
        rest = inner[..end].trim();
    }
    if let Some(position) = rest.find("API Error") {
        rest = &rest[position + "API Error".len()..];
        if let Some(after) = rest.trim_start().strip_prefix('(')
            && let Some(end) = after.find(')')
        {
            rest = &after[end + 1..];
        }
        rest = rest.trim_start().trim_start_matches(':');
    }
    api_error::parse(rest)
}

/// Whether an error text reads like an error of the model API (rather than of the agent).
fn looks_like_api_error(text: &str) -> bool {
    let text = text.trim_start().trim_start_matches('[');
    text.contains("API Error") || api_error::split_status(text).0.is_some()
}

/// Copies the agent's session file, found under `projects`, to `<artifact dir>/session.jsonl`
/// and records it: the file named `<session id>.jsonl`; without a session id, the newest
/// `.jsonl` file for which `fallback` holds.
pub(crate) fn collect_session_file(
    out: &mut ReportBuilder,
    projects: &Path,
    artifact_dir: &Path,
    fallback: &dyn Fn(&Path) -> bool,
) {
    let source = match out.current_session_id() {
        Some(id) => {
            let name = format!("{id}.jsonl");
            isolation::newest_file(projects, &|path| {
                path.file_name().is_some_and(|file| *file == *name)
            })
        }
        None => isolation::newest_file(projects, &|path| {
            path.extension().is_some_and(|ext| ext == "jsonl") && fallback(path)
        }),
    };
    let Some(source) = source else { return };
    match isolation::copy_session_file(&source, artifact_dir, "session.jsonl") {
        Ok(target) => out.session_file(target),
        Err(error) => out.warn(error.to_string()),
    }
}

/// One stdout line (every record type; absent fields default).
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<MaybeMessage<'a>>,
    #[serde(borrow, default)]
    event: Option<StreamEvent<'a>>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    is_api_error_message: Option<bool>,
    #[serde(default)]
    api_error_status: Option<u64>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    usage: Option<UsageRecord>,
    #[serde(default, deserialize_with = "super::lenient::amount")]
    total_cost_usd: Option<f64>,
    /// Qwen Code's version, in its `system/init` record.
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    qwen_code_version: Option<Cow<'a, str>>,
}

/// A partial-message record's Anthropic SSE event.
#[derive(Deserialize)]
struct StreamEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    message: Option<MaybeMessage<'a>>,
}

/// `message` when it is an object; any other value is ignored.
struct MaybeMessage<'a>(Option<Message<'a>>);

#[derive(Deserialize, Default)]
struct Message<'a> {
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(default)]
    usage: Option<UsageRecord>,
}

/// Message or tool-result content: a string or a list of blocks.
#[derive(Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl Content<'_> {
    /// The text: the string, or the `text` of the blocks joined by newlines.
    fn into_text(self) -> String {
        match self {
            Content::None => String::new(),
            Content::Text(text) => text.into_owned(),
            Content::Blocks(blocks) => {
                let mut texts = blocks
                    .into_iter()
                    .filter(|block| block.kind == "text")
                    .filter_map(|block| block.text);
                let Some(first) = texts.next() else {
                    return String::new();
                };
                let mut joined = first.into_owned();
                for text in texts {
                    joined.push('\n');
                    joined.push_str(&text);
                }
                joined
            }
        }
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(borrow, default, deserialize_with = "super::borrowed::optional_str")]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(default)]
    is_error: Option<bool>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct UsageRecord {
    #[serde(default, deserialize_with = "super::lenient::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct OutputDetails {
    #[serde(default, deserialize_with = "super::lenient::count")]
    thinking_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    reasoning_tokens: Option<u64>,
}

impl<'de: 'a, 'a> Deserialize<'de> for MaybeMessage<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MessageVisitor<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for MessageVisitor<'a> {
            type Value = MaybeMessage<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Message::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|message| MaybeMessage(Some(message)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeMessage(None))
            }

            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeMessage(None))
            }
        }

        deserializer.deserialize_any(MessageVisitor(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
            type Value = Content<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(text)))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(text)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
                while let Some(block) = seq.next_element::<MaybeBlock<'a>>()? {
                    blocks.extend(block.0);
                }
                Ok(Content::Blocks(blocks))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::None)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
        }

        deserializer.deserialize_any(ContentVisitor(PhantomData))
    }
}

/// A content block when it is an object; other list items are skipped.
struct MaybeBlock<'a>(Option<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBlock<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BlockVisitor<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for BlockVisitor<'a> {
            type Value = MaybeBlock<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Block::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|block| MaybeBlock(Some(block)))
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeBlock(Some(Block::text(Cow::Borrowed(text)))))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(MaybeBlock(Some(Block::text(Cow::Owned(text.to_owned())))))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeBlock(None))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeBlock(None))
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeBlock(None))
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeBlock(None))
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeBlock(None))
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeBlock(None))
            }
        }

        deserializer.deserialize_any(BlockVisitor(PhantomData))
    }
}

impl<'a> Block<'a> {
    /// A bare string in a block list, read as a text block.
    fn text(text: Cow<'a, str>) -> Self {
        Block {
            kind: Cow::Borrowed("text"),
            text: Some(text),
            thinking: None,
            id: None,
            name: None,
            input: None,
            tool_use_id: None,
            content: Content::None,
            is_error: None,
        }
    }
}

/// The exit status of a Claude Code `Bash` result: `Some(0)` for a result that is not an
/// error (Claude marks every non-zero exit as one), the code stated on the first line
/// (`Exit code 2`) of one that is, `None` when an error states none (a denied or timed-out
/// command).
fn exit_code_in_text(output: &str, is_error: bool) -> Option<i32> {
    if !is_error {
        return Some(0);
    }
    let first = output.trim_start().lines().next()?;
    first
        .strip_prefix("Exit code ")?
        .trim()
        .parse()
        .ok()
        .filter(|code| *code != 0)
}

/// The exit status a Qwen Code shell failure states on its last `Exit Code: N` line (after
/// `Command:`, `Directory:`, `Output:` and `Error:`); `None` without one, or for `(none)` (a
/// command ended by a signal).
fn exit_code_in_footer(output: &str) -> Option<i32> {
    output
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("Exit Code: "))
        .and_then(|code| code.trim().parse().ok())
}

/// `major.minor.patch` of a version string (`0.24.4`, `0.25.0-preview.1`); `None` when it has
/// no such prefix.
fn parse_version(version: &str) -> Option<[u32; 3]> {
    let mut parts = version
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .map(str::parse::<u32>);
    let mut next = || parts.next()?.ok();
    Some([next()?, next()?, next()?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_support::normalize_in;
    use crate::normalize::Normalized;
    use skillgym::{SessionEvent, TokenCount, UsageSource};

    fn normalize(dialect: &'static Dialect, lines: &str) -> Normalized {
        normalize_in(&mut ClaudeStreamParser::new(dialect), lines, "/w", "p")
    }

    #[test]
    fn api_errors_are_split_into_status_and_message() {
        assert_eq!(
            unwrap_api_error("API Error: 400 mock: forced error 400"),
            (Some(400), "mock: forced error 400".to_owned())
        );
        assert_eq!(
            unwrap_api_error(
                r#"API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}"#
            ),
            (Some(400), "prompt is too long".to_owned())
        );
        assert_eq!(
            unwrap_api_error("[API Error: 429 Too many requests]\nPossible reasons: quota"),
            (Some(429), "Too many requests".to_owned())
        );
        assert_eq!(
            unwrap_api_error("API Error (claude-x): 529 Overloaded"),
            (Some(529), "Overloaded".to_owned())
        );
        assert_eq!(
            unwrap_api_error("There's an issue with the selected model."),
            (None, "There's an issue with the selected model.".to_owned())
        );
        assert_eq!(
            unwrap_api_error("4000 tokens"),
            (None, "4000 tokens".to_owned())
        );
        assert!(looks_like_api_error("[API Error: boom]"));
        assert!(looks_like_api_error("401 Unauthorized"));
        assert!(!looks_like_api_error("Tool failed"));
    }

    #[test]
    fn usage_follows_the_dialect() {
        let claude = ClaudeStreamParser::new(&CLAUDE_CODE);
        let usage = UsageRecord {
            input_tokens: Some(10),
            output_tokens: Some(50),
            cache_creation_input_tokens: Some(100),
            cache_read_input_tokens: Some(1000),
            output_tokens_details: Some(OutputDetails {
                thinking_tokens: Some(30),
                reasoning_tokens: None,
            }),
        };
        assert_eq!(
            claude.tokens(&usage),
            TokenUsage {
                input: Some(1110),
                output: Some(20),
                reasoning: Some(30),
                cache_read: Some(1000),
            }
        );
        let qwen = ClaudeStreamParser::new(&QWEN_CODE);
        let usage = UsageRecord {
            input_tokens: Some(1110),
            output_tokens: Some(50),
            cache_read_input_tokens: Some(1000),
            ..UsageRecord::default()
        };
        assert_eq!(
            qwen.tokens(&usage),
            TokenUsage {
                input: Some(1110),
                output: Some(50),
                reasoning: None,
                cache_read: Some(1000),
            }
        );
        assert_eq!(
            claude.tokens(&UsageRecord::default()),
            TokenUsage::default()
        );
    }

    #[test]
    fn message_usage_is_deduplicated_and_summed_without_a_result() {
        let stream = [
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"hmm"}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Let me look."}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":9}}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"pdf"}}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":12}}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}],"is_error":true}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"Base directory for this skill"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"done"}],"usage":{"input_tokens":7,"output_tokens":3}}}"#,
        ]
        .join("\n");
        let normalized = normalize(&CLAUDE_CODE, &stream);
        let report = normalized.report;
        assert_eq!(normalized.steps, 2);
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(112)));
        assert_eq!(report.usage.output_tokens, Some(TokenCount::provider(15)));
        assert_eq!(report.usage.cache_tokens, Some(TokenCount::provider(100)));
        assert_eq!(report.usage.reasoning_chars, 3);
        assert_eq!(report.final_output, "done");
        assert!(
            report.skill("pdf").is_none(),
            "a failed load is no evidence"
        );
        assert_eq!(
            report.skill_attempts()[0].to_string(),
            "pdf: attempted via Skill tool, failed: a"
        );
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::ToolResult { output, is_error: true, tool: Some(tool), .. }
                if output == "a\nb" && tool == "Skill"
        )));
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Message { role: Role::User, text, .. } if text == "Base directory for this skill"
        )));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn odd_shapes_never_panic() {
        let stream = [
            "garbage",
            "{\"type\":\"assistant\",\"message\":",
            r#"{"type":"assistant","message":"text"}"#,
            r#"{"type":"assistant","message":{"content":{"odd":1}}}"#,
            r#"{"type":"assistant","message":{"content":["bare", 3, null, [1]]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":null}]}}"#,
            r#"{"type":"result","result":{"structured":true},"is_error":false}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"text":"x"}}}"#,
            r#"{"type":"vendor","x":1}"#,
            r#"{"no_type":true}"#,
            r#"{"type":"assistant","message":{"id":7}}"#,
        ]
        .join("\n");
        let normalized = normalize(&CLAUDE_CODE, &stream);
        let report = normalized.report;
        assert_eq!(report.final_output, r#"{"structured":true}"#);
        assert_eq!(report.warnings.len(), 3, "{:?}", report.warnings);
        let raw = report
            .events
            .iter()
            .filter(|event| matches!(event, SessionEvent::Raw { .. }))
            .count();
        assert_eq!(raw, 3, "vendor, untyped and the bad assistant record");
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Message { text, .. } if text == "bare"
        )));
    }

    #[test]
    fn an_error_result_without_api_status_is_a_warning() {
        let stream = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"usage":{"input_tokens":1,"output_tokens":2}}"#;
        let normalized = normalize(&CLAUDE_CODE, stream);
        assert!(normalized.provider_error.is_none());
        assert_eq!(
            normalized.report.warnings,
            ["the agent ended with an error (error_max_turns)"]
        );
        assert_eq!(
            normalized
                .report
                .usage
                .output_tokens
                .map(|count| count.source),
            Some(UsageSource::Provider)
        );
    }

    #[test]
    fn a_stream_cut_after_an_api_error_still_reports_it() {
        let stream = r#"{"type":"assistant","message":{"id":"e","model":"<synthetic>","content":[{"type":"text","text":"API Error: 401 {\"error\":{\"message\":\"invalid x-api-key\"}}"}]},"error":"authentication_failed"}"#;
        let normalized = normalize(&CLAUDE_CODE, stream);
        let error = normalized.provider_error.unwrap();
        assert_eq!(
            (error.status, error.message.as_str()),
            (Some(401), "invalid x-api-key")
        );
        assert_eq!(normalized.steps, 0);
        assert!(normalized.report.final_output.is_empty());
    }

    #[test]
    fn qwen_error_results_and_error_text() {
        let stream = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: 400 mock: forced error 400]"}}"#;
        let error = normalize(&QWEN_CODE, stream).provider_error.unwrap();
        assert_eq!(
            (error.status, error.message.as_str()),
            (Some(400), "mock: forced error 400")
        );

        let stream = [
            r#"{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"[API Error: 404 model not found]"}]}}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"[API Error: 404 model not found]"}"#,
        ]
        .join("\n");
        let normalized = normalize(&QWEN_CODE, &stream);
        let error = normalized.provider_error.unwrap();
        assert_eq!(
            (error.status, error.message.as_str()),
            (Some(404), "model not found")
        );
        assert!(normalized.report.final_output.is_empty());

        let stream = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"Tool registry failed"}}"#;
        let normalized = normalize(&QWEN_CODE, stream);
        assert!(normalized.provider_error.is_none());
        assert_eq!(normalized.report.warnings.len(), 1);
    }

    #[test]
    fn session_files_are_found_by_id_then_by_fallback() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-claude-stream-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let projects = dir.join("projects");
        std::fs::create_dir_all(projects.join("-w/s1/subagents")).unwrap();
        std::fs::write(projects.join("-w/s1.jsonl"), "one").unwrap();
        std::fs::write(projects.join("-w/s1/subagents/agent-x.jsonl"), "sub").unwrap();
        let artifacts = dir.join("artifacts");
        std::fs::create_dir_all(&artifacts).unwrap();

        let mut out = ReportBuilder::new("/w");
        out.session_id("s1");
        collect_session_file(&mut out, &projects, &artifacts, &|_| false);
        let copied = out.current_session_file().unwrap().to_path_buf();
        assert_eq!(copied, artifacts.join("session.jsonl"));
        assert_eq!(std::fs::read_to_string(&copied).unwrap(), "one");

        let mut out = ReportBuilder::new("/w");
        out.session_id("missing");
        collect_session_file(&mut out, &projects, &artifacts, &|_| true);
        assert!(out.current_session_file().is_none());

        let mut out = ReportBuilder::new("/w");
        let top_level =
            |path: &Path| path.parent().and_then(Path::parent) == Some(projects.as_path());
        collect_session_file(&mut out, &projects, &artifacts, &top_level);
        assert!(out.current_session_file().is_some());
        assert!(out.finish("p").warnings.is_empty());
        tmp.close().unwrap();
    }

    #[test]
    fn qwen_exit_codes_follow_its_version() {
        let shell = |version: &str, failed: &str| {
            let stream = [
                format!(
                    r#"{{"type":"system","subtype":"init","session_id":"s","qwen_code_version":"{version}"}}"#
                ),
                r#"{"type":"assistant","message":{"id":"a","content":[{"type":"tool_use","id":"t1","name":"run_shell_command","input":{"command":"echo hi"}},{"type":"tool_use","id":"t2","name":"run_shell_command","input":{"command":"ls /nope"}}]}}"#.to_owned(),
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":"hi"}]}}"#.to_owned(),
                format!(r#"{{"type":"user","message":{{"content":[{failed}]}}}}"#),
            ]
            .join("\n");
            let report = normalize(&QWEN_CODE, &stream).report;
            report
                .events
                .iter()
                .filter_map(|event| match event {
                    SessionEvent::Command { exit_code, .. } => Some(*exit_code),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let footer = r#"{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Command: ls /nope\nDirectory: (root)\nOutput: Exit Code: 7\nError: (none)\nExit Code: 2\nSignal: (none)\nProcess Group PGID: (none)"}"#;
        let plain = r#"{"type":"tool_result","tool_use_id":"t2","is_error":false,"content":"ls: cannot access '/nope'"}"#;
        // 0.24.4 and later: failures are errors with the code, everything else exited 0.
        assert_eq!(shell("0.24.4", footer), [Some(0), Some(2)]);
        assert_eq!(shell("0.25.0-preview.1", footer), [Some(0), Some(2)]);
        // 0.15.10: a failing command is no error and says no code: both unknown.
        assert_eq!(shell("0.15.10", plain), [None, None]);
        // A failure's stated code is read whatever the version; a signal states none.
        assert_eq!(shell("0.20.0", footer), [None, Some(2)]);
        let signal = footer.replace("Exit Code: 2", "Exit Code: (none)");
        assert_eq!(shell("0.24.4", &signal), [Some(0), None]);
        assert_eq!(parse_version("v1.2"), None);
    }

    #[test]
    fn exit_codes_are_read_from_claude_style_text() {
        assert_eq!(exit_code_in_text("Exit code 2\nls: nope", true), Some(2));
        assert_eq!(exit_code_in_text("hello", false), Some(0));
        assert_eq!(exit_code_in_text("Permission denied", true), None);
        assert_eq!(exit_code_in_text("Exit code x", true), None);
    }
}
