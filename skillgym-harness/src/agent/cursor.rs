//! Cursor Agent CLI (`cursor-agent`, also installed as `agent`; not on npm, installed with
//! `curl https://cursor.com/install`). **Unverified**: the CLI could not be installed or run
//! here; flags and stream shapes come from Cursor's documentation, the TypeScript skillgym
//! adapter and stream lines captured by others.
//!
//! | what | how |
//! |---|---|
//! | command | `cursor-agent [agent.args] -p --output-format stream-json --force --trust --workspace <cwd> [--model M] PROMPT` (`--force` lets shell commands run unattended, `--trust` trusts the fresh workspace) — unverified |
//! | resume (`explain`) | the same with `--resume ID` before `--model` — unverified |
//! | state | **no isolation**: Cursor keeps its login, config and chats in `~/.cursor` and `~/.config/cursor`, which it shares with the user's own sessions; there is no documented variable to move them |
//! | auth | `CURSOR_API_KEY`, or the user's `cursor-agent login` (`~/.config/cursor/auth.json`, unverified) |
//! | collect | Cursor writes no session file skillgym could copy (chats live in a database); a model the account cannot use is reported on stderr only: `Cannot use this model: …` in `<artifact dir>/stderr.log` becomes the provider error |
//!
//! The stream is one JSON object per line (documented, not observed here):
//!
//! | record | maps to |
//! |---|---|
//! | `system` (`subtype: init`: `session_id`, `cwd`, `model`) | session id; kept raw |
//! | `user`, `assistant` (`message.content[].text`) | messages (assistant phase settled by what follows) |
//! | `thinking` (`subtype: delta` `text` … `subtype: completed`) | one thinking message |
//! | `tool_call` (`subtype: started`/`completed`, `call_id`, `tool_call: {<name>ToolCall: {args, result}}`) | one tool call per `call_id` (also when only `completed` arrives); the tool is the key without `ToolCall`, in kebab case (`shellToolCall` → `shell`, `readToolCall` → `read`); `shell` → command (`args.command` in `args.workingDirectory`, emitted at completion with `result.success.exitCode`; a rejected command is none); `read…` → file read (`args.path`, else `filePath`); a tool named with `skill` → skill signal (`args.name`, else `skill`); `completed` → tool result (`result.success`: stdout and stderr, or `content`; `rejected`/`failure`/`error`: the reason, as an error) |
//! | `result` (`result`, `session_id`, `usage{inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}`) | final output (unless `is_error`; documented as all the text deltas joined, so the last assistant message when the result ends with it), session id, usage: input = `inputTokens + cacheReadTokens + cacheWriteTokens`, cache = `cacheReadTokens` |
//! | `interaction_query` | dropped |
//! | anything else | kept raw |
//!
//! Times come from `timestamp_ms`. Steps: a model round starts at the first assistant text,
//! thinking or tool call after the start, a user message or a tool result; calls with the
//! same `model_call_id` belong to one round.

use foldhash::HashSet;
use std::borrow::Cow;
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value};
use skillgym::{Phase, Role};

use super::lenient::{Count, Flag, Int, List, Obj, Text};
use super::pending::PendingCommands;
use super::spec::AgentSpec;
use super::{Agent, AgentOptions, AgentSetup, AuthSource, Launch, SessionSpec, StreamParser};
use crate::config::AgentKind;
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage, epoch_millis_to_rfc3339};

/// The Cursor Agent CLI as data (unverified here: its installer needs the internet). It has
/// no documented way to move its state, so nothing is isolated or seeded.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::CursorAgent,
    name: "cursor-agent",
    build: |options| std::sync::Arc::new(CursorAgent::new(options)),
    wire_apis: &[],
    example_model: "sonnet-4",
    contacts: &["Cursor's servers (unverified)"],
    npm_at_start: None,
    program: "cursor-agent",
    install: "curl https://cursor.com/install -fsS | bash (Cursor's installer; the npm package \
              `cursor-agent` is someone else's)",
    auth_env: &["CURSOR_API_KEY"],
    auth_help: "Set CURSOR_API_KEY (Cursor dashboard → Integrations → User API Keys), or log in \
                once with `cursor-agent login`; `cursor-agent status` tells.",
    state: None,
    fixed_env: &[],
    project_skills: ".cursor/skills",
    home_skills: false,
    version: super::version::DASH_DASH_VERSION,
};
/// What Cursor prints on stderr when the account cannot use the configured model.
const MODEL_REJECTED: &str = "Cannot use this model:";

/// Runs the Cursor Agent CLI headlessly (without isolation).
#[derive(Debug, Clone)]
pub struct CursorAgent {
    options: AgentOptions,
}

impl CursorAgent {
    /// An adapter with the runner's options.
    pub fn new(options: AgentOptions) -> Self {
        CursorAgent { options }
    }

    fn command(&self, session: &SessionSpec<'_>, resume: Option<&str>) -> Launch {
        let mut launch = self.options.start_launch(SPEC.program);
        launch.args.extend(
            [
                "-p",
                "--output-format",
                "stream-json",
                "--force",
                "--trust",
                "--workspace",
            ]
            .map(OsString::from),
        );
        launch.args.push(session.cwd.into());
        if let Some(id) = resume {
            launch.args.extend(["--resume".into(), id.into()]);
        }
        if let Some(model) = &self.options.model {
            launch.args.extend(["--model".into(), model.into()]);
        }
        launch.args.push(session.prompt.into());
        self.options.finish_launch(launch)
    }
}

impl Agent for CursorAgent {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> io::Result<Launch> {
        Ok(self.command(session, None))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(CursorParser::default())
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let Ok(file) = fs::File::open(session.artifact_dir.join("stderr.log")) else {
            return;
        };
        let mut reader = BufReader::new(file);
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            let text = String::from_utf8_lossy(&line);
            if text.contains(MODEL_REJECTED) {
                out.provider_error(None, text.trim());
                return;
            }
            line.clear();
        }
    }

    fn resume(&self, session: &SessionSpec<'_>, session_id: &str) -> Option<io::Result<Launch>> {
        Some(Ok(self.command(session, Some(session_id))))
    }

    fn setup(&self) -> AgentSetup {
        let config = self
            .options
            .env_value("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| self.options.home_file(".config"));
        let login = config.map(|config| AuthSource::File(config.join("cursor/auth.json")));
        SPEC.setup(&self.options, login.into_iter().collect(), Vec::new())
    }
}

/// One line of Cursor's `stream-json` output (every record type in one struct).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    subtype: Text<'a>,
    #[serde(borrow)]
    session_id: Text<'a>,
    #[serde(borrow)]
    message: Obj<Message<'a>>,
    #[serde(borrow)]
    model_call_id: Text<'a>,
    timestamp_ms: Int,
    #[serde(borrow)]
    text: Text<'a>,
    #[serde(borrow)]
    call_id: Text<'a>,
    tool_call: Option<Value>,
    #[serde(borrow)]
    result: Text<'a>,
    is_error: Flag,
    usage: Obj<Usage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    content: List<Obj<Part<'a>>>,
}

impl Message<'_> {
    /// The text parts, joined by newlines.
    fn text(&self) -> String {
        let mut text = String::new();
        for part in self.content.0.iter().filter_map(|part| part.0.as_ref()) {
            if part.kind.get().is_none_or(|kind| kind == "text")
                && let Some(part) = part.text.get()
            {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(part);
            }
        }
        text
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    text: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Usage {
    input_tokens: Count,
    output_tokens: Count,
    cache_read_tokens: Count,
    cache_write_tokens: Count,
}

impl Usage {
    fn usage(&self) -> Option<TokenUsage> {
        let parts = [
            self.input_tokens.count(),
            self.cache_read_tokens.count(),
            self.cache_write_tokens.count(),
        ];
        let input = parts.iter().any(Option::is_some).then(|| {
            parts
                .iter()
                .flatten()
                .fold(0u64, |sum, &part| sum.saturating_add(part))
        });
        let output = self.output_tokens.count();
        (input.is_some() || output.is_some()).then_some(TokenUsage {
            input,
            output,
            reasoning: None,
            cache_read: self.cache_read_tokens.count(),
        })
    }
}

/// Parses Cursor's `--output-format stream-json`.
#[derive(Debug, Default)]
struct CursorParser {
    lines: JsonLine,
    /// Thinking text being joined from deltas, with the time of the first.
    thinking: Option<(String, Option<String>)>,
    /// Whether a model round is under way.
    in_round: bool,
    /// The `model_call_id` of the current round, when the stream gives one.
    model_call: Option<String>,
    /// Call ids whose tool call was recorded.
    announced: HashSet<String>,
    /// The last assistant text.
    last_text: String,
    pending: PendingCommands,
}

impl StreamParser for CursorParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.lines.parse::<Record<'_>>(line, out) else {
            return;
        };
        let kind = record.kind.or_empty();
        let at = record.timestamp_ms.count().map(epoch_millis_to_rfc3339);
        if kind != "thinking" {
            self.flush_thinking(out);
        }
        if let Some(id) = record.session_id.get() {
            out.session_id(id);
        }
        match kind {
            "user" => {
                self.in_round = false;
                let text = record.message.0.map(|message| message.text());
                out.message(Role::User, None, text.unwrap_or_default(), at);
            }
            "assistant" => {
                self.round(record.model_call_id.get(), out);
                let text = record.message.0.map(|message| message.text());
                let text = text.unwrap_or_default();
                if !text.is_empty() {
                    self.last_text.clone_from(&text);
                }
                out.message(Role::Assistant, None, text, at);
            }
            "thinking" => {
                if record.subtype.get() == Some("completed") {
                    self.flush_thinking(out);
                } else if let Some(text) = record.text.get() {
                    self.round(record.model_call_id.get(), out);
                    match &mut self.thinking {
                        Some((thinking, _)) => thinking.push_str(text),
                        None => self.thinking = Some((text.to_owned(), at)),
                    }
                }
            }
            "tool_call" => self.tool_call(record, line, at, out),
            "result" => {
                if let Some(usage) = record.usage.0.as_ref().and_then(Usage::usage) {
                    out.set_usage(usage);
                }
                match record.result.get() {
                    // The result joins all the session's text: its last message is the answer.
                    Some(text) if !record.is_error.is_true() && !text.is_empty() => {
                        if !self.last_text.is_empty() && text.ends_with(self.last_text.as_str()) {
                            out.final_output(self.last_text.as_str());
                        } else {
                            out.final_output(text);
                        }
                    }
                    _ if record.is_error.is_true() => self.lines.keep_raw(line, at, out),
                    _ => {}
                }
            }
            "interaction_query" => {}
            _ => self.lines.keep_raw(line, at, out),
        }
    }

    fn finish(&mut self, out: &mut ReportBuilder) {
        self.flush_thinking(out);
        self.pending.flush(out);
    }
}

impl CursorParser {
    /// Counts a model round when one starts: a new `model_call_id`, or (without ids) the
    /// first model output after a user message or a tool result.
    fn round(&mut self, model_call: Option<&str>, out: &mut ReportBuilder) {
        match model_call {
            Some(id) if self.model_call.as_deref() == Some(id) => {}
            Some(id) => {
                // Output without an id may have opened this round already.
                let opened = self.in_round && self.model_call.is_none();
                self.model_call = Some(id.to_owned());
                if !opened {
                    out.step();
                }
            }
            None if self.in_round => {}
            None => {
                self.model_call = None;
                out.step();
            }
        }
        self.in_round = true;
    }

    fn flush_thinking(&mut self, out: &mut ReportBuilder) {
        if let Some((text, at)) = self.thinking.take() {
            out.message(Role::Assistant, Some(Phase::Thinking), text, at);
        }
    }

    fn tool_call(
        &mut self,
        record: Record<'_>,
        line: &str,
        at: Option<String>,
        out: &mut ReportBuilder,
    ) {
        let id = record.call_id.get().or(record.model_call_id.get());
        let (Some(id), Some(Value::Object(call))) = (id, &record.tool_call) else {
            self.lines.keep_raw(line, at, out);
            return;
        };
        let Some((tool, body)) = tool_of(call) else {
            self.lines.keep_raw(line, at, out);
            return;
        };
        let args = arguments(body);
        let result = body.get("result");
        let completed = record.subtype.get() == Some("completed");
        if !self.announced.contains(id) {
            self.announced.insert(id.to_owned());
            self.round(record.model_call_id.get(), out);
            self.announce(id, &tool, &args, result, at.clone(), out);
        }
        if completed {
            self.in_round = false;
            let outcome = result
                .and_then(Value::as_object)
                .and_then(|result| result.iter().next());
            let exit_code = outcome
                .and_then(|(_, outcome)| outcome.get("exitCode"))
                .and_then(Value::as_i64)
                .and_then(|code| i32::try_from(code).ok());
            match outcome {
                Some((key, _)) if key == "rejected" => self.pending.discard(id),
                _ => {
                    self.pending.release(id, exit_code, out);
                }
            }
            let (output, is_error) = tool_output(result);
            // A command that exited non-zero failed, whatever the outcome's key says.
            let is_error = is_error || exit_code.is_some_and(|code| code != 0);
            out.tool_result(Some(id), output, is_error, at);
        }
    }

    /// Records a tool call and what it tells (command, file read, skill).
    fn announce(
        &mut self,
        id: &str,
        tool: &str,
        args: &Value,
        result: Option<&Value>,
        at: Option<String>,
        out: &mut ReportBuilder,
    ) {
        // A completed record may carry the command in its result only.
        let outcome = result
            .and_then(Value::as_object)
            .and_then(|result| result.values().next());
        let field = |key: &str| {
            args.get(key)
                .or_else(|| outcome.and_then(|outcome| outcome.get(key)))
                .and_then(Value::as_str)
        };
        if tool.contains("shell") {
            if let Some(command) = field("command") {
                let workdir = field("workingDirectory").or_else(|| field("cwd"));
                self.pending
                    .hold(id, command, workdir.map(PathBuf::from), at.clone());
            }
        } else if tool.contains("read") {
            let path = ["path", "filePath", "file_path", "targetFile"]
                .into_iter()
                .find_map(|key| args.get(key).and_then(Value::as_str));
            if let Some(path) = path {
                out.file_read(Some(id), path, None, at.clone());
            }
        }
        if tool.contains("skill")
            && let Some(skill) = ["name", "skill"]
                .into_iter()
                .find_map(|key| args.get(key).and_then(Value::as_str))
        {
            out.skill_signal(Some(id), skill, at.clone());
        }
        out.tool_call(Some(id), tool, args.clone(), at);
    }
}

/// The tool of a `tool_call` object: its first key ending in `ToolCall`, in kebab case
/// without the suffix (`readToolCall` → `read`), or a `function` call's name.
fn tool_of(call: &Map<String, Value>) -> Option<(Cow<'_, str>, &Value)> {
    if let Some((key, body)) = call.iter().find(|(key, _)| key.ends_with("ToolCall")) {
        let stem = &key[..key.len() - "ToolCall".len()];
        let mut name = String::with_capacity(stem.len() + 4);
        for (index, c) in stem.chars().enumerate() {
            if c.is_ascii_uppercase() {
                if index > 0 {
                    name.push('-');
                }
                name.push(c.to_ascii_lowercase());
            } else {
                name.push(c);
            }
        }
        return Some((Cow::Owned(name), body));
    }
    let function = call.get("function")?;
    let name = function.get("name").and_then(Value::as_str)?;
    Some((Cow::Borrowed(name), function))
}

/// A tool call's arguments: `args`, or a function's `arguments` (JSON text or object).
fn arguments(body: &Value) -> Value {
    match body.get("args").or_else(|| body.get("arguments")) {
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(args) => args.clone(),
        None => Value::Null,
    }
}

/// A completed call's output and whether it failed.
fn tool_output(result: Option<&Value>) -> (String, bool) {
    let text = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    match result {
        None | Some(Value::Null) => (String::new(), false),
        Some(Value::String(output)) => (output.clone(), false),
        Some(Value::Object(result)) => match result.iter().next() {
            Some((key, success)) if key == "success" => {
                let output = match (text(success, "stdout"), text(success, "stderr")) {
                    (Some(stdout), Some(stderr)) => format!("{stdout}\n{stderr}"),
                    (Some(output), None) | (None, Some(output)) => output,
                    (None, None) => text(success, "content").unwrap_or_else(|| {
                        if success.as_object().is_some_and(Map::is_empty) {
                            String::new()
                        } else {
                            success.to_string()
                        }
                    }),
                };
                (output, false)
            }
            Some((key, failure)) => {
                let output = ["message", "error", "reason", "stderr"]
                    .into_iter()
                    .find_map(|field| text(failure, field))
                    .or_else(|| failure.as_str().map(str::to_owned))
                    .unwrap_or_else(|| key.clone());
                (output, true)
            }
            None => (String::new(), false),
        },
        Some(other) => (other.to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    //! What only Cursor does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::options::ProcessEnv;
    use crate::agent::test_support::{self, CWD, commands, normalize_in, scratch, tool_results};
    use crate::normalize::Normalized;
    use skillgym::{Confidence, SessionEvent, SessionReport, TokenCount};
    use std::path::Path;

    const PROMPT: &str = "read the skill";

    fn normalize(lines: &[&str]) -> Normalized {
        let mut parser = CursorAgent::new(AgentOptions::new("auto")).parser();
        normalize_in(&mut *parser, &lines.join("\n"), CWD, PROMPT)
    }

    /// A session with this module's prompt.
    fn spec<'a>(state: &'a Path, artifacts: &'a Path) -> SessionSpec<'a> {
        SessionSpec {
            prompt: PROMPT,
            ..test_support::spec("cursor", state, state, artifacts)
        }
    }

    fn calls(report: &SessionReport) -> Vec<(String, String)> {
        report
            .tool_calls(None)
            .map(|event| match event {
                SessionEvent::ToolCall { id, tool, .. } => (id.clone().unwrap(), tool.clone()),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn a_call_seen_only_completed_is_recorded_once() {
        // Captured from agent 2026.08.11 by others: completed records without a started one.
        let parsed = normalize(&[
            r#"{"type":"thinking","subtype":"delta","text":"Reading hello.py to ","session_id":"s-1","timestamp_ms":1787521421085}"#,
            r#"{"type":"thinking","subtype":"delta","text":"see what it prints.","session_id":"s-1","timestamp_ms":1787521421087}"#,
            r#"{"type":"thinking","subtype":"completed","session_id":"s-1","timestamp_ms":1787521421089}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"call-shell-7","tool_call":{"shellToolCall":{"args":{"command":"python3 /w/hello.py"},"result":{"success":{"command":"python3 /w/hello.py","exitCode":0,"stdout":"hello world\n","stderr":""}}}},"session_id":"s-1"}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"call-shell-3","tool_call":{"shellToolCall":{"result":{"rejected":{"command":"rm -rf build","workingDirectory":"/w","reason":"","isReadonly":false}}}},"session_id":"s-1"}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"call-shell-9","tool_call":{"shellToolCall":{"result":{"failure":{"command":"make","workingDirectory":"/w","exitCode":2,"stdout":"","stderr":"no rule"}}}},"session_id":"s-1"}"#,
            r#"{"type":"interaction_query","subtype":"request","session_id":"s-1"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"It prints `hello world`."}]},"session_id":"s-1"}"#,
            r#"{"type":"result","subtype":"success","duration_ms":4889,"is_error":false,"result":"It prints `hello world`.","session_id":"s-1","request_id":"00000001","usage":{"inputTokens":14948,"outputTokens":103}}"#,
        ]);
        let report = &parsed.report;
        assert_eq!(
            calls(report),
            [
                ("call-shell-7".into(), "shell".into()),
                ("call-shell-3".into(), "shell".into()),
                ("call-shell-9".into(), "shell".into()),
            ]
        );
        assert_eq!(
            commands(report),
            [("python3 /w/hello.py", Some(0)), ("make", Some(2)),],
            "a rejected command never ran"
        );
        assert_eq!(
            tool_results(report),
            [
                ("call-shell-7", "shell", "hello world\n", false),
                ("call-shell-3", "shell", "rejected", true),
                ("call-shell-9", "shell", "no rule", true),
            ]
        );
        let thinking: Vec<_> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Message {
                    phase: Some(Phase::Thinking),
                    text,
                    at,
                    ..
                } => Some((text.as_str(), at.as_deref())),
                _ => None,
            })
            .collect();
        assert_eq!(
            thinking,
            [(
                "Reading hello.py to see what it prints.",
                Some("2026-08-23T21:43:41.085Z")
            )]
        );
        assert_eq!(report.final_output, "It prints `hello world`.");
        assert_eq!(report.session_id.as_deref(), Some("s-1"));
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(14948)));
        assert_eq!(report.usage.cache_tokens, None);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn model_call_ids_group_calls_into_rounds() {
        let parsed = normalize(&[
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Looking."}]}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","model_call_id":"m1","tool_call":{"globToolCall":{"args":{"globPattern":"**/*.md"}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"b","model_call_id":"m1","tool_call":{"readToolCall":{"args":{"path":"/w/SKILL.md"}}}}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"a","model_call_id":"m1","tool_call":{"globToolCall":{"args":{"globPattern":"**/*.md"},"result":{"success":{"files":["SKILL.md"]}}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"b","model_call_id":"m1","tool_call":{"readToolCall":{"args":{"path":"/w/SKILL.md"}}}}"#,
            r##"{"type":"tool_call","subtype":"completed","call_id":"b","model_call_id":"m1","tool_call":{"readToolCall":{"args":{"path":"/w/SKILL.md"},"result":{"success":{"content":"# s"}}}}}"##,
            r#"{"type":"tool_call","subtype":"started","call_id":"c","model_call_id":"m2","tool_call":{"webSearchToolCall":{"args":{"query":"q"}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"d","model_call_id":"m2","tool_call":{"mcpToolCall":{"args":{"name":"x"}}}}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c","model_call_id":"m2","tool_call":{"webSearchToolCall":{"result":{"error":{"error":"offline"}}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"e","tool_call":{"function":{"name":"load_skill","arguments":"{\"name\":\"demo\"}"}}}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"e","tool_call":{"function":{"name":"load_skill","arguments":"{\"name\":\"demo\"}"}}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"Looking.done"}"#,
        ]);
        let report = &parsed.report;
        assert_eq!(
            parsed.steps, 4,
            "m1 (opened by the text), m2, e, the answer"
        );
        assert_eq!(
            calls(report),
            [
                ("a".into(), "glob".into()),
                ("b".into(), "read".into()),
                ("c".into(), "web-search".into()),
                ("d".into(), "mcp".into()),
                ("e".into(), "load_skill".into()),
            ]
        );
        assert_eq!(report.file_reads(), [Path::new("/w/SKILL.md")]);
        assert_eq!(
            report.skill("demo").map(|skill| skill.confidence),
            Some(Confidence::Explicit)
        );
        let results = tool_results(report);
        assert_eq!(results[0].2, r#"{"files":["SKILL.md"]}"#);
        assert_eq!(results[1].2, "# s");
        assert_eq!((results[2].2, results[2].3), ("offline", true));
        assert_eq!(report.final_output, "done");
    }

    #[test]
    fn a_cut_stream_keeps_its_commands_and_odd_lines_are_handled() {
        let parsed = normalize(&[
            r#"{"type":"tool_call","subtype":"started","call_id":"s","tool_call":{"shellToolCall":{"args":{"command":"sleep 100","workingDirectory":"sub"}}}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"x","tool_call":"weird"}"#,
            r#"{"type":"result","subtype":"error","is_error":true,"result":"denied"}"#,
            r#"{"type":"system","subtype":"notice","message":"hello"}"#,
            "garbage",
            r#"{"type":"thinking","subtype":"delta","text":"unfinished"#,
        ]);
        let report = &parsed.report;
        assert_eq!(commands(report), [("sleep 100", None)]);
        assert_eq!(report.final_output, "", "an error result is no answer");
        let raw = report
            .events
            .iter()
            .filter(|event| matches!(event, SessionEvent::Raw { .. }))
            .count();
        assert_eq!(raw, 3, "the odd tool call, the error result, the notice");
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    }

    #[test]
    fn a_rejected_model_is_read_from_stderr() {
        let tmp = scratch("cursor", "collect");
        let dir = tmp.path();
        let agent = CursorAgent::new(AgentOptions::new("gpt-9"));
        let session = spec(dir, dir);
        let mut out = ReportBuilder::new(CWD);
        agent.collect(&session, &mut out);
        assert!(
            out.current_provider_error().is_none(),
            "no stderr log is normal"
        );

        fs::write(
            dir.join("stderr.log"),
            b"warming up \xff\nCannot use this model: gpt-9. Available models: auto, sonnet-4\n",
        )
        .unwrap();
        let mut out = ReportBuilder::new(CWD);
        agent.collect(&session, &mut out);
        let error = out.current_provider_error().unwrap();
        assert_eq!(error.status, None);
        assert_eq!(
            error.message,
            "Cannot use this model: gpt-9. Available models: auto, sonnet-4"
        );
        assert!(error.is_rejection());
        tmp.close().unwrap();
    }

    /// No isolation: only what `agent.env` sets, nothing created.
    #[test]
    fn launches_without_isolation() {
        let state = Path::new("/a/state");
        let agent = CursorAgent::new(AgentOptions::new("sonnet-4").env("CURSOR_API_KEY", "key"));
        let launch = agent.launch(&spec(state, Path::new("/a"))).unwrap();
        assert_eq!(launch.env, [("CURSOR_API_KEY".into(), "key".into())]);
        assert!(launch.env_remove.is_empty());
        assert!(launch.seeded.is_empty());
        assert!(!state.exists(), "nothing is created");
    }

    /// The harness's `XDG_CONFIG_HOME` moves the login file.
    #[test]
    fn the_login_file_follows_xdg_config_home() {
        let agent = CursorAgent::new(
            AgentOptions::default()
                .process_env(ProcessEnv::fixed([("XDG_CONFIG_HOME", "/xdg")]))
                .user_home("/home/u"),
        );
        assert!(
            agent
                .setup()
                .auth
                .contains(&AuthSource::File("/xdg/cursor/auth.json".into()))
        );
    }
}
