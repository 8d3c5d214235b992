//! The OpenAI Codex CLI adapter (`@openai/codex`; verified with codex-cli 0.171.0 and 0.169.0).
//!
//! | | |
//! |---|---|
//! | command | `codex [agent.args] exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C <cwd> [-m <model>] -c check_for_update_on_startup=false -c analytics.enabled=false -c features.plugins=false -- <prompt>` |
//! | approvals, sandbox | off (`--dangerously-bypass-approvals-and-sandbox`): skillgym's workspace is the boundary, and Codex's bubblewrap sandbox fails where user namespaces are unavailable |
//! | `-c` settings | no update check, no analytics upload, no plugin marketplace fetch (`git ls-remote github.com/openai/plugins`) |
//! | provider | `-c model_provider="skillgym"`, `-c model_providers.skillgym.{name,base_url,env_key,wire_api="responses"}` (env vars alone are ignored by Codex 0.169); `auth.json` not seeded |
//! | `--` | the prompt is never taken for an option or a subcommand (`resume`, `review`) |
//! | env | `CODEX_HOME=<state dir>/codex-home` (unless `agent.env` sets `CODEX_HOME`: then that directory is used as it is) |
//! | seeded | `auth.json`, `config.toml` from the harness's `$CODEX_HOME`, else `~/.codex` — never `AGENTS.md`, skills, plugins or sessions |
//! | session file | the rollout `CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl` → `session.jsonl` |
//! | resume | `codex [agent.args] exec -C <cwd> resume --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox [-m <model>] -c … -- <thread id> <question>` (`-C` is not accepted after `resume`; the answer is appended to the same rollout) |
//! | doctor | `codex --version`; auth: `CODEX_API_KEY`, `OPENAI_API_KEY` or `auth.json` |
//!
//! The stream (`codex exec --json`) carries no timestamps and no model-request boundaries:
//!
//! | record | report |
//! |---|---|
//! | `thread.started` `thread_id` | session id |
//! | `turn.started` | dropped (numbers the turn: items are keyed by turn and id) |
//! | `item.started` / `item.updated` of a tool item | remembered until it completes |
//! | `item.completed` `agent_message` | assistant message (phase settled by the builder) |
//! | `item.completed` `reasoning` | thinking message |
//! | `item.completed` `plan` | assistant message |
//! | `item.completed` `command_execution` | tool call `command_execution` `{command}`, its result (`aggregated_output`; an error when it failed or exited non-zero) and one command with its exit code (reads by `cat`/`sed -n`/… become file reads) |
//! | `item.completed` `mcp_tool_call` | tool call `mcp__<server>__<tool>` (`arguments`) and its result (text content, else structured content, else the error) |
//! | `item.completed` `file_change` / `web_search` / `todo_list` | tool call of that name with the item's fields as args (`file_change` also gets a result: its status) |
//! | a tool item that started but never completed | its tool call (and command) at the end of the stream |
//! | `item.completed` `error`, top-level `error` | raw events: not terminal (Codex reports failures it retries this way too) |
//! | `turn.completed` `usage` | usage; the figures are the thread's running totals (OpenAI terms: `input_tokens` includes `cached_input_tokens`, `output_tokens` includes `reasoning_output_tokens`), so the last one wins |
//! | `turn.failed` `error.message` | provider error: a JSON body's `error.message` unwrapped, the HTTP status taken from the text around it (`status 400`, `400 Bad Request`) when there is one |
//! | `item.plan.delta` | dropped |
//! | anything else | raw event |
//!
//! Steps: each distinct `agent_message` and each distinct tool item (`command_execution`,
//! `mcp_tool_call`, `file_change`, `web_search`), counted when first seen.

use foldhash::HashSet;
use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};
use skillgym::{Phase, Role};

use super::api_error;
use super::provider::{self, Provider, toml_string};
use super::spec::{AgentSpec, StateSpec};
use super::{Agent, AgentOptions, AgentSetup, Launch, SessionSpec, StreamParser, isolation};
use crate::config::{AgentKind, WireApi};
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage};

/// The OpenAI Codex CLI as data: `auth.json` and `config.toml` (what Codex needs to
/// authenticate and reach its provider) are seeded into a private `CODEX_HOME`; with a provider
/// endpoint the user's ChatGPT login stays home. Codex also reads `~/.agents/skills`: a private
/// home.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::Codex,
    name: "codex",
    build: |options| std::sync::Arc::new(Codex::new(options)),
    wire_apis: &[WireApi::OpenaiResponses],
    example_model: "gpt-5.5",
    contacts: &["api.openai.com (the login's; chatgpt.com with a ChatGPT login)"],
    npm_at_start: None,
    program: "codex",
    install: "npm install -g @openai/codex",
    auth_env: &["CODEX_API_KEY", "OPENAI_API_KEY"],
    auth_help: "Run `codex login` (ChatGPT sign-in, or `codex login --with-api-key`), or set \
                CODEX_API_KEY or OPENAI_API_KEY. skillgym copies auth.json and config.toml from \
                $CODEX_HOME (default ~/.codex) into each session's private CODEX_HOME.",
    state: Some(StateSpec {
        var: "CODEX_HOME",
        private: "codex-home",
        user: ".codex",
        seed: &["auth.json", "config.toml"],
        seed_with_endpoint: &["config.toml"],
        auth_files: &["auth.json"],
        skill_dirs: &["skills"],
        created_by_agent: false,
    }),
    fixed_env: &[],
    project_skills: ".agents/skills",
    home_skills: true,
    version: super::version::DASH_DASH_VERSION,
};

/// Runs the OpenAI Codex CLI (`codex exec --json`).
#[derive(Debug, Clone)]
pub struct Codex {
    options: AgentOptions,
}

impl Codex {
    /// A Codex runner with the configured model, program, arguments and environment.
    pub fn new(options: AgentOptions) -> Self {
        Codex { options }
    }

    /// The `CODEX_HOME` the agent uses, and whether it is skillgym's private one (otherwise
    /// `agent.env` set it).
    fn codex_home(&self, session: &SessionSpec<'_>) -> (PathBuf, bool) {
        SPEC.state_dir(&self.options, session)
            .map(|state| (state.dir, state.private))
            .unwrap_or_default()
    }

    /// A launch with the prepared `CODEX_HOME` (seeded), before Codex's own arguments.
    fn start(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch> {
        let state = SPEC.prepare_state(&self.options, session)?;
        let mut launch = SPEC.start_launch(&self.options, session, state.as_ref())?;
        launch.seeded = state.map(|state| state.seeded).unwrap_or_default();
        Ok(launch)
    }

    /// The flags shared by a session and its resumption, after `exec` (or `exec resume`).
    fn push_flags(&self, args: &mut Vec<OsString>) {
        args.extend(
            [
                "--json",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
            ]
            .map(OsString::from),
        );
    }

    /// The model and the `-c` settings (with the provider endpoint's, when there is one), last
    /// before the prompt.
    fn push_settings(&self, session: &SessionSpec<'_>, launch: &mut Launch) {
        if let Some(model) = &self.options.model {
            launch.args.push("-m".into());
            launch.args.push(model.into());
        }
        let mut settings: Vec<String> = [
            "check_for_update_on_startup=false",
            "analytics.enabled=false",
            "features.plugins=false",
        ]
        .map(str::to_owned)
        .into();
        if let Some(provider) = session.endpoint(&self.options) {
            settings.extend(provider_settings(provider, launch));
        }
        for setting in settings {
            launch.args.push("-c".into());
            launch.args.push(setting.into());
        }
    }
}

impl Agent for Codex {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch> {
        let mut launch = self.start(session)?;
        launch.args.push("exec".into());
        self.push_flags(&mut launch.args);
        launch.args.push("-C".into());
        launch.args.push(session.cwd.into());
        self.push_settings(session, &mut launch);
        launch.args.push("--".into());
        launch.args.push(session.prompt.into());
        Ok(self.options.finish_launch(launch))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(CodexParser::default())
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let (home, private) = self.codex_home(session);
        let sessions = home.join("sessions");
        let is_rollout = |path: &Path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("rollout-") && name.ends_with(".jsonl"))
        };
        let found = match out.current_session_id() {
            Some(id) => {
                let suffix = format!("-{id}.jsonl");
                let own = isolation::newest_file(&sessions, &|path| {
                    is_rollout(path)
                        && path
                            .file_name()
                            .and_then(|name| name.to_str())
                            .is_some_and(|name| name.ends_with(&suffix))
                });
                match own {
                    Some(path) => Some(path),
                    None if private => {
                        let newest = isolation::newest_file(&sessions, &is_rollout);
                        if let Some(path) = &newest {
                            out.warn(format!(
                                "no Codex rollout file for thread {id}; copied the newest one, {}",
                                path.display()
                            ));
                        }
                        newest
                    }
                    None => None,
                }
            }
            None if private => isolation::newest_file(&sessions, &is_rollout),
            None => None,
        };
        if let Some(source) = found {
            match isolation::copy_session_file(&source, session.artifact_dir, "session.jsonl") {
                Ok(copy) => out.session_file(copy),
                Err(error) => out.warn(error.to_string()),
            }
        }
    }

    fn resume(
        &self,
        session: &SessionSpec<'_>,
        session_id: &str,
    ) -> Option<std::io::Result<Launch>> {
        let mut launch = match self.start(session) {
            Ok(launch) => launch,
            Err(error) => return Some(Err(error)),
        };
        launch.args.push("exec".into());
        launch.args.push("-C".into());
        launch.args.push(session.cwd.into());
        launch.args.push("resume".into());
        self.push_flags(&mut launch.args);
        self.push_settings(session, &mut launch);
        launch.args.push("--".into());
        launch.args.push(session_id.into());
        launch.args.push(session.prompt.into());
        Some(Ok(self.options.finish_launch(launch)))
    }

    fn setup(&self) -> AgentSetup {
        SPEC.setup(&self.options, Vec::new(), self.refusals())
    }
}

impl Codex {
    /// Endpoint settings Codex ignores.
    fn refusals(&self) -> Vec<String> {
        let ignored = self
            .options
            .provider
            .is_none()
            .then_some(())
            .and_then(|()| {
                ["OPENAI_BASE_URL", "OPENAI_API_BASE"]
                    .into_iter()
                    .find_map(|key| self.options.env_origin(key).map(|origin| (key, origin)))
            });
        ignored
            .map(|(key, origin)| {
                format!(
                    "{key} is set ({origin}), but Codex ignores it: requests would still go to OpenAI\n      \
                     configure the endpoint as `agent.provider: {{ base_url: …, api_key_env: … }}`"
                )
            })
            .into_iter()
            .collect()
    }
}

/// The `-c` settings that send model requests to a provider endpoint: a `skillgym` entry in
/// `model_providers`, selected with `model_provider` (Codex ignores `OPENAI_BASE_URL` and
/// sends `CODEX_API_KEY`, not `OPENAI_API_KEY`, to its own provider).
fn provider_settings(provider: &Provider, launch: &mut Launch) -> Vec<String> {
    let id = provider::PROVIDER_ID;
    let key_var = provider.key_var(launch);
    vec![
        format!("model_provider={}", toml_string(id)),
        format!("model_providers.{id}.name={}", toml_string(id)),
        format!(
            "model_providers.{id}.base_url={}",
            toml_string(&provider.base_url)
        ),
        format!("model_providers.{id}.env_key={}", toml_string(&key_var)),
        format!("model_providers.{id}.wire_api=\"responses\""),
    ]
}

/// One line of `codex exec --json`.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "super::borrowed::optional_str")]
    thread_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    item: Option<Item<'a>>,
    #[serde(default)]
    usage: Option<TurnUsage>,
    #[serde(default)]
    error: Option<ErrorMessage>,
}

/// A thread item; the fields of every item type, each optional.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Item<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    text: Option<String>,
    command: Option<String>,
    aggregated_output: Option<String>,
    exit_code: Option<i32>,
    #[serde(borrow, deserialize_with = "super::borrowed::optional_str")]
    status: Option<Cow<'a, str>>,
    server: Option<String>,
    tool: Option<String>,
    arguments: Value,
    result: Option<McpResult>,
    error: Option<ErrorMessage>,
    changes: Value,
    query: Option<String>,
    action: Value,
    items: Value,
}

/// An MCP tool's result.
#[derive(Deserialize, Default)]
#[serde(default)]
struct McpResult {
    content: Vec<Value>,
    structured_content: Value,
}

/// `{"message": …}`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorMessage {
    message: Option<String>,
}

/// `turn.completed` usage: the thread's running totals, in OpenAI's terms.
#[derive(Deserialize, Default)]
#[serde(default)]
struct TurnUsage {
    #[serde(default, deserialize_with = "super::lenient::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    cached_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    reasoning_output_tokens: Option<u64>,
}

impl TurnUsage {
    /// In skillgym's terms: input includes cached input, output excludes reasoning.
    fn to_token_usage(&self) -> TokenUsage {
        let reasoning = self.reasoning_output_tokens;
        TokenUsage {
            input: self.input_tokens,
            output: self
                .output_tokens
                .map(|output| output.saturating_sub(reasoning.unwrap_or(0))),
            reasoning,
            cache_read: self.cached_input_tokens,
        }
    }
}

/// Items are keyed by turn number and item id (Codex numbers items per process).
type ItemKey = (u32, String);

/// A tool item that started and has not completed yet.
#[derive(Debug)]
struct Pending {
    key: ItemKey,
    call: ToolCall,
}

/// A tool call as the report shows it.
#[derive(Debug)]
struct ToolCall {
    tool: String,
    args: Value,
    /// The shell command, for `command_execution`.
    command: Option<String>,
}

/// Whether an item type is a tool skillgym reports as a tool call.
fn is_tool(kind: &str) -> bool {
    matches!(
        kind,
        "command_execution" | "mcp_tool_call" | "file_change" | "web_search" | "todo_list"
    )
}

/// Whether an item type counts as a model step.
fn is_step(kind: &str) -> bool {
    matches!(
        kind,
        "agent_message" | "command_execution" | "mcp_tool_call" | "file_change" | "web_search"
    )
}

impl ToolCall {
    fn from_item(item: &mut Item<'_>) -> ToolCall {
        let field = |entries: &mut Map<String, Value>, key: &str, value: Value| {
            if !value.is_null() {
                entries.insert(key.to_owned(), value);
            }
        };
        let mut args = Map::new();
        let (tool, command) = match item.kind.as_ref() {
            "command_execution" => {
                let command = item.command.take().unwrap_or_default();
                args.insert("command".to_owned(), Value::String(command.clone()));
                ("command_execution".to_owned(), Some(command))
            }
            "mcp_tool_call" => {
                let server = item.server.as_deref().unwrap_or_default();
                let tool = item.tool.as_deref().unwrap_or_default();
                return ToolCall {
                    tool: format!("mcp__{server}__{tool}"),
                    args: item.arguments.take(),
                    command: None,
                };
            }
            "web_search" => {
                field(
                    &mut args,
                    "query",
                    item.query.take().map_or(Value::Null, Value::String),
                );
                field(&mut args, "action", item.action.take());
                ("web_search".to_owned(), None)
            }
            "file_change" => {
                field(&mut args, "changes", item.changes.take());
                ("file_change".to_owned(), None)
            }
            other => {
                field(&mut args, "items", item.items.take());
                (other.to_owned(), None)
            }
        };
        ToolCall {
            tool,
            args: Value::Object(args),
            command,
        }
    }
}

/// Parses `codex exec --json`.
#[derive(Debug, Default)]
struct CodexParser {
    json: JsonLine,
    turn: u32,
    pending: Vec<Pending>,
    completed: HashSet<ItemKey>,
}

impl StreamParser for CodexParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.json.parse::<Record<'_>>(line, out) else {
            return;
        };
        match record.kind.as_ref() {
            "thread.started" => match record.thread_id {
                Some(id) if !id.is_empty() => out.session_id(id.into_owned()),
                _ => self.json.keep_raw(line, None, out),
            },
            "turn.started" => self.turn += 1,
            "item.started" | "item.updated" | "item.completed" => {
                let Some(item) = record.item else {
                    self.json.warn(out, "an item event without its item");
                    self.json.keep_raw(line, None, out);
                    return;
                };
                if record.kind == "item.completed" {
                    self.completed(item, line, out);
                } else {
                    self.started(item, out);
                }
            }
            "turn.completed" => match record.usage {
                Some(usage) => out.set_usage(usage.to_token_usage()),
                None => self.json.keep_raw(line, None, out),
            },
            "turn.failed" => {
                let message = record
                    .error
                    .and_then(|error| error.message)
                    .unwrap_or_else(|| "turn failed".to_owned());
                let (status, message) = api_error::parse(&message);
                out.provider_error(status, message);
            }
            "item.plan.delta" => {}
            _ => self.json.keep_raw(line, None, out),
        }
    }

    fn finish(&mut self, out: &mut ReportBuilder) {
        for Pending { key: (_, id), call } in self.pending.drain(..) {
            out.tool_call(Some(&id), &call.tool, call.args, None);
            if let Some(command) = call.command {
                out.shell_command(Some(&id), &command, None, None, None);
            }
        }
    }
}

impl CodexParser {
    /// An item that started or changed: tool items are remembered until they complete.
    fn started(&mut self, mut item: Item<'_>, out: &mut ReportBuilder) {
        if !is_tool(&item.kind) {
            return;
        }
        let key = (self.turn, item.id.to_string());
        if self.completed.contains(&key) {
            return;
        }
        let call = ToolCall::from_item(&mut item);
        match self.pending.iter_mut().find(|pending| pending.key == key) {
            Some(pending) => pending.call = call,
            None => {
                if is_step(&item.kind) {
                    out.step();
                }
                self.pending.push(Pending { key, call });
            }
        }
    }

    /// A completed item: messages, tool calls with their results, commands.
    fn completed(&mut self, item: Item<'_>, line: &str, out: &mut ReportBuilder) {
        let key = (self.turn, item.id.to_string());
        if !self.completed.insert(key.clone()) {
            return;
        }
        let started = match self.pending.iter().position(|pending| pending.key == key) {
            Some(index) => {
                self.pending.remove(index);
                true
            }
            None => false,
        };
        if !started && is_step(&item.kind) {
            out.step();
        }
        match item.kind.as_ref() {
            "agent_message" | "plan" => {
                out.message(Role::Assistant, None, item.text.unwrap_or_default(), None)
            }
            "reasoning" => out.message(
                Role::Assistant,
                Some(Phase::Thinking),
                item.text.unwrap_or_default(),
                None,
            ),
            kind if is_tool(kind) => self.tool(item, out),
            _ => self.json.keep_raw(line, None, out),
        }
    }

    /// A completed tool item: its call, its result, and its command.
    fn tool(&mut self, mut item: Item<'_>, out: &mut ReportBuilder) {
        let id = item.id.to_string();
        let call = ToolCall::from_item(&mut item);
        let status = item.status.as_deref().unwrap_or_default();
        let failed = matches!(status, "failed" | "declined");
        out.tool_call(Some(&id), &call.tool, call.args, None);
        match item.kind.as_ref() {
            "command_execution" => {
                let is_error = failed || item.exit_code.is_some_and(|code| code != 0);
                out.tool_result(
                    Some(&id),
                    item.aggregated_output.unwrap_or_default(),
                    is_error,
                    None,
                );
                if let Some(command) = &call.command {
                    out.shell_command(Some(&id), command, item.exit_code, None, None);
                }
            }
            "mcp_tool_call" => {
                let error = item.error.and_then(|error| error.message);
                let is_error = failed || error.is_some();
                let output = match (item.result, error) {
                    (_, Some(error)) => error,
                    (Some(result), None) => mcp_output(result),
                    (None, None) => String::new(),
                };
                out.tool_result(Some(&id), output, is_error, None);
            }
            "file_change" if !status.is_empty() => {
                out.tool_result(Some(&id), status.to_owned(), failed, None);
            }
            _ => {}
        }
    }
}

/// The text an MCP tool returned: its text content, else its structured content.
fn mcp_output(result: McpResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if !texts.is_empty() {
        return texts.join("\n");
    }
    match result.structured_content {
        Value::Null => String::new(),
        value => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    //! What only Codex does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::test_support::{
        self, commands, fixture, scratch, spec, tool_calls, tool_results,
    };
    use crate::normalize::Normalized;
    use skillgym::{SessionEvent, TokenCount};
    use std::fs;

    fn normalize(stream: &str) -> Normalized {
        let mut parser = Codex::new(AgentOptions::default()).parser();
        test_support::normalize(&mut *parser, stream)
    }

    #[test]
    fn keeps_non_fatal_error_items_raw() {
        let normalized = normalize(&fixture("codex.unknown-model-with-plugins.jsonl"));
        assert!(normalized.provider_error.is_none());
        let raw: Vec<_> = normalized
            .report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Raw { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        assert_eq!(raw.len(), 1);
        assert!(
            raw[0]["item"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Model metadata for `mock-model` not found")
        );
    }

    #[test]
    fn maps_every_item_type() {
        let lines = [
            r#"{"type":"thread.started","thread_id":"t-1"}"#,
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Planning**"}}"#,
            r#"{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}"#,
            r#"{"type":"item.updated","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true}]}}"#,
            r#"{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"status":"in_progress"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}],"structured_content":null},"error":null,"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/w/a.txt","kind":"add"}],"status":"completed"}}"#,
            r#"{"type":"item.started","item":{"id":"item_4","type":"web_search","query":""}}"#,
            r#"{"type":"item.completed","item":{"id":"item_4","type":"web_search","query":"rust serde","action":{"type":"search"}}}"#,
            r#"{"type":"item.started","item":{"id":"item_5","type":"command_execution","command":"bash -lc 'sed -n 1,5p notes.md'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"bash -lc 'sed -n 1,5p notes.md'","aggregated_output":"no such file","exit_code":2,"status":"failed"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"bash -lc 'sed -n 1,5p notes.md'","aggregated_output":"again","exit_code":2,"status":"failed"}}"#,
            r#"{"type":"item.plan.delta","item_id":"item_6","delta":"x"}"#,
            r#"{"type":"item.completed","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":true}]}}"#,
            r#"{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":"Done: notes.md is missing."}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":300,"reasoning_output_tokens":120}}"#,
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"sleep 100","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":1500,"cached_input_tokens":900,"output_tokens":400,"reasoning_output_tokens":150}}"#,
            r#"{"type":"request_user_input","id":"1","call_id":"c","questions":[]}"#,
        ];
        let normalized = normalize(&lines.join("\n"));
        let report = &normalized.report;
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.session_id.as_deref(), Some("t-1"));
        let calls = tool_calls(report);
        assert_eq!(
            calls,
            [
                ("item_2", "mcp__docs__search", serde_json::json!({"q": "x"})),
                (
                    "item_3",
                    "file_change",
                    serde_json::json!({"changes": [{"path": "/w/a.txt", "kind": "add"}]})
                ),
                (
                    "item_4",
                    "web_search",
                    serde_json::json!({"query": "rust serde", "action": {"type": "search"}})
                ),
                (
                    "item_5",
                    "command_execution",
                    serde_json::json!({"command": "bash -lc 'sed -n 1,5p notes.md'"})
                ),
                (
                    "item_1",
                    "todo_list",
                    serde_json::json!({"items": [{"text": "a", "completed": true}, {"text": "b", "completed": true}]})
                ),
                (
                    "item_0",
                    "command_execution",
                    serde_json::json!({"command": "sleep 100"})
                ),
            ]
        );
        let results = tool_results(report);
        assert_eq!(
            results,
            [
                ("item_2", "mcp__docs__search", "found", false),
                ("item_3", "file_change", "completed", false),
                ("item_5", "command_execution", "no such file", true),
            ]
        );
        assert_eq!(
            commands(report),
            [("sed -n 1,5p notes.md", Some(2)), ("sleep 100", None)]
        );
        assert!(
            report.file_reads().is_empty(),
            "the command that read notes.md exited 2"
        );
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::FileRead { path, error: Some(error), .. }
                if path.ends_with("notes.md") && error == "the command exited with 2"
        )));
        let messages: Vec<_> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Message { phase, text, .. } => Some((*phase, text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            messages,
            [
                (Some(Phase::Thinking), "**Planning**"),
                (Some(Phase::Commentary), "Done: notes.md is missing."),
            ]
        );
        // The message is followed by a command that never completed: no final answer.
        assert_eq!(report.final_output, "Done: notes.md is missing.");
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(1500)));
        assert_eq!(report.usage.output_tokens, Some(TokenCount::provider(250)));
        assert_eq!(
            report.usage.reasoning_tokens,
            Some(TokenCount::provider(150))
        );
        assert_eq!(report.usage.cache_tokens, Some(TokenCount::provider(900)));
        assert_eq!(report.usage.total_tokens, Some(TokenCount::derived(1000)));
        assert_eq!(report.usage.reasoning_chars, 12);
        // mcp, file_change, web_search, command, message, the second turn's command
        assert_eq!(normalized.steps, 6);
        let raw: Vec<_> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Raw { value, .. } => Some(value["type"].as_str().unwrap()),
                _ => None,
            })
            .collect();
        assert_eq!(raw, ["request_user_input"]);
    }

    #[test]
    fn survives_garbage() {
        let long = format!(
            "{{\"type\":\"item.completed\",\"item\":{{\"id\":\"x\",\"type\":\"agent_message\",\"text\":\"{}\"}}}}",
            "a".repeat(5_000_000)
        );
        let lines = [
            "garbage",
            "{\"type\":\"item.completed\",\"item\":{\"id\":",
            r#"{"type":"item.completed"}"#,
            r#"{"type":"item.completed","item":{"id":3,"type":"agent_message"}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":-1}}"#,
            r#"{"type":"turn.failed"}"#,
            r#"{"type":"thread.started"}"#,
            "\u{FFFD}\u{FFFD}",
            "[]",
            r#"{}"#,
            long.as_str(),
        ];
        let normalized = normalize(&lines.join("\n"));
        let report = &normalized.report;
        // (A negative token figure is not a warning: it only reads as absent.)
        assert_eq!(report.warnings.len(), 6, "{:?}", report.warnings);
        assert!(report.usage.input_tokens.is_none());
        // Kept with its head and tail (see `normalize::caps`).
        assert!(report.final_output.starts_with("aaaa"));
        assert!(report.final_output.len() < 70_000);
        assert_eq!(
            normalized.provider_error.map(|error| error.message),
            Some("turn failed".to_owned())
        );
    }

    /// The rollout of the thread, not a newer one of another thread; in a `CODEX_HOME` that
    /// `agent.env` chose (the user's own), never another session's.
    #[test]
    fn collects_the_rollout_of_the_thread_only() {
        let tmp = scratch("codex", "collect");
        let dir = tmp.path();
        let state = dir.join("state");
        let day = state.join("codex-home/sessions/2026/11/22");
        fs::create_dir_all(&day).unwrap();
        let thread = "01a20139-2696-7720-9b74-178414dbe828";
        fs::write(
            day.join(format!("rollout-2026-11-22T03-05-02-{thread}.jsonl")),
            "{\"type\":\"session_meta\"}\n",
        )
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(day.join("rollout-2026-11-22T03-06-00-other.jsonl"), "other").unwrap();
        let prompt_file = dir.join("prompt.md");
        let spec = spec("codex", &prompt_file, &state, dir);
        let codex = Codex::new(AgentOptions::default());
        let mut out = ReportBuilder::new("/w");
        out.session_id(thread);
        codex.collect(&spec, &mut out);
        let copy = dir.join("session.jsonl");
        assert_eq!(out.current_session_file(), Some(copy.as_path()));
        assert_eq!(
            fs::read_to_string(&copy).unwrap(),
            "{\"type\":\"session_meta\"}\n"
        );
        fs::remove_file(&copy).unwrap();

        let own = Codex::new(
            AgentOptions::default()
                .env("CODEX_HOME", state.join("codex-home").to_str().unwrap())
                .user_home(dir.join("home")),
        );
        let mut out = ReportBuilder::new("/w");
        out.session_id("t-9");
        own.collect(&spec, &mut out);
        assert!(out.current_session_file().is_none());
        tmp.close().unwrap();
    }
}
