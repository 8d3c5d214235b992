//! GitHub Copilot CLI (`copilot`, npm `@github/copilot`; verified with 1.0.102).
//!
//! | what | how |
//! |---|---|
//! | command | `copilot [agent.args] -p PROMPT [--model M] --output-format json --allow-all-tools --no-auto-update --disable-client-telemetry --usage-output-file <artifact dir>/copilot-usage.json` (`--allow-all-tools` is required without a terminal) |
//! | resume (`explain`) | the same with `--resume=ID` after the question (`--resume` takes an optional value, so `=`), same state directory and cwd |
//! | state | `COPILOT_HOME=<state dir>/copilot-home`: the user's settings, instructions, skills, plugins, MCP config and history stay out; the session lands in `session-state/<id>/events.jsonl` |
//! | auth | `config.json` (the sign-ins; the token itself too when the user chose plaintext storage, else it stays in the system keychain) seeded from `$COPILOT_HOME` or `~/.copilot`; `COPILOT_GITHUB_TOKEN`/`GH_TOKEN`/`GITHUB_TOKEN` and the BYOK `COPILOT_PROVIDER_*` variables are inherited |
//! | env | `COPILOT_AUTO_UPDATE=false`, `NO_COLOR=1` |
//! | provider | `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY`, `COPILOT_PROVIDER_TYPE=anthropic` or `COPILOT_PROVIDER_WIRE_API=responses` by wire (chat is the default), `COPILOT_OFFLINE=true` against the scripted server; the sign-in is not seeded |
//! | collect | `session-state/<id>/events.jsonl` → `<artifact dir>/session.jsonl` (an id that is not one directory name, such as `..`, names no file); usage from `copilot-usage.json` (`modelMetrics.*.usage`), else from the events file, when the stream had none |
//!
//! The stream is one JSON object per line, `{type, data, id, timestamp, parentId, ephemeral?}`:
//!
//! | record | maps to |
//! |---|---|
//! | `ephemeral: true` | dropped (deltas, background-task pings, model-call bookkeeping), except `model.call_failure` (status and body of a failed call, used by `session.error`) and `assistant.usage` (per-call tokens) |
//! | `user.message` | user message (`content`) |
//! | `assistant.turn_start` | one step (a model round); without turn records, one step per distinct `assistant.message` `messageId` |
//! | `assistant.message` | assistant text (`content`; phase from `phase` when given); its `toolRequests` are recorded from `tool.execution_start` |
//! | `assistant.reasoning` | thinking (also `reasoningText` of a message when no reasoning record came) |
//! | `tool.execution_start` | tool call (`toolCallId`, `toolName`, `arguments`); `bash`/`write_bash`/`powershell` with `arguments.command` → one command, emitted at completion with `shellExecution.exitCode`; `view` → file read (`path`); `skill` → skill signal (`skill`, else `name`) |
//! | `tool.execution_complete` | tool result (`error.message`, else `result.content`; `success: false` is an error) |
//! | `skill.invoked` | skill signal for a skill no `skill` tool call named (user-invoked or preloaded skills) |
//! | `session.error` | the provider error (`statusCode`, `message` without its leading status; the failed call's body when the message is empty) when a model call failed or the query failed; other errors are kept raw |
//! | `session.usage_record`, `assistant.usage` | per-call usage (deduplicated by `apiCallId`): `inputTokens` is gross input (cache reads included), `outputTokens` excludes reasoning, `reasoningTokens`, `cacheReadTokens` |
//! | `session.shutdown` | session usage total (`modelMetrics`), replacing the per-call sum |
//! | `result`, `session.start` | session id (`sessionId`) |
//! | `assistant.turn_end`, `system.message`, `session.usage_checkpoint`, `skill.context_delivered*` | dropped |
//! | anything else | kept raw |
//!
//! Copilot reports no cost in dollars (premium requests are a different unit), so none is set.
//! `agent.env` may set `COPILOT_HOME` to use a directory of the user's choosing instead
//! (nothing is seeded then).

use foldhash::HashSet;
use std::borrow::Cow;
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, BufReader};
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use skillgym::{Phase, Role};

use super::api_error;
use super::lenient::{Count, ErrorMessage, Flag, Int, Obj, Text};
use super::options::set_env;
use super::pending::PendingCommands;
use super::spec::{AgentSpec, StateSpec};
use super::{Agent, AgentOptions, AgentSetup, Launch, SessionSpec, StreamParser, isolation};
use crate::config::{AgentKind, WireApi};
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage};

const USAGE_FILE: &str = "copilot-usage.json";

/// The GitHub Copilot CLI as data. `config.json` (the sign-ins, and a plaintext token) is
/// seeded into the private `COPILOT_HOME`; with a provider endpoint (BYOK) no GitHub sign-in
/// is needed.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::Copilot,
    name: "copilot",
    build: |options| std::sync::Arc::new(Copilot::new(options)),
    wire_apis: &[
        WireApi::OpenaiChat,
        WireApi::OpenaiResponses,
        WireApi::Anthropic,
    ],
    example_model: "gpt-5.4",
    contacts: &["GitHub (its sign-in and the Copilot API)"],
    npm_at_start: None,
    program: "copilot",
    install: "npm install -g @github/copilot",
    auth_env: &[
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "COPILOT_PROVIDER_BASE_URL",
    ],
    auth_help: "Log in once with `copilot login` (skillgym copies ~/.copilot/config.json, which \
                names the signed-in account, into each session; the token stays in the system \
                keychain), or set COPILOT_GITHUB_TOKEN or GH_TOKEN, or use your own provider \
                with COPILOT_PROVIDER_BASE_URL (BYOK, no GitHub login).",
    state: Some(StateSpec {
        var: "COPILOT_HOME",
        private: "copilot-home",
        user: ".copilot",
        seed: &["config.json"],
        seed_with_endpoint: &[],
        auth_files: &["config.json"],
        skill_dirs: &["skills"],
        created_by_agent: false,
    }),
    fixed_env: &[("COPILOT_AUTO_UPDATE", "false"), ("NO_COLOR", "1")],
    project_skills: ".github/skills",
    home_skills: false,
    version: super::version::DASH_DASH_VERSION,
};

/// Runs the GitHub Copilot CLI headlessly with a private `COPILOT_HOME`.
#[derive(Debug, Clone)]
pub struct Copilot {
    options: AgentOptions,
}

impl Copilot {
    /// An adapter with the runner's options.
    pub fn new(options: AgentOptions) -> Self {
        Copilot { options }
    }

    /// The `COPILOT_HOME` the session uses.
    fn copilot_home(&self, session: &SessionSpec<'_>) -> PathBuf {
        SPEC.state_dir(&self.options, session)
            .map(|state| state.dir)
            .unwrap_or_default()
    }

    fn command(&self, session: &SessionSpec<'_>, resume: Option<&str>) -> io::Result<Launch> {
        let provider = session.endpoint(&self.options);
        let state = SPEC.prepare_state(&self.options, session)?;
        let mut launch = SPEC.start_launch(&self.options, session, state.as_ref())?;
        launch.args.extend(["-p".into(), session.prompt.into()]);
        if let Some(id) = resume {
            launch.args.push(format!("--resume={id}").into());
        }
        if let Some(model) = &self.options.model {
            launch.args.extend(["--model".into(), model.into()]);
        }
        launch.args.extend(
            [
                "--output-format",
                "json",
                "--allow-all-tools",
                "--no-auto-update",
                "--disable-client-telemetry",
                "--usage-output-file",
            ]
            .map(OsString::from),
        );
        launch
            .args
            .push(session.artifact_dir.join(USAGE_FILE).into());
        launch.seeded = state.map(|state| state.seeded).unwrap_or_default();
        let mut launch = self.options.finish_launch(launch);
        // Set last: `agent.env` cannot send the session elsewhere.
        if let Some(provider) = provider {
            set_env(&mut launch, "COPILOT_PROVIDER_BASE_URL", &provider.base_url);
            set_env(
                &mut launch,
                "COPILOT_PROVIDER_API_KEY",
                provider.key_value(&self.options.env),
            );
            match provider.wire_api {
                WireApi::Anthropic => set_env(&mut launch, "COPILOT_PROVIDER_TYPE", "anthropic"),
                WireApi::OpenaiResponses => {
                    set_env(&mut launch, "COPILOT_PROVIDER_WIRE_API", "responses");
                }
                WireApi::OpenaiChat | WireApi::Gemini => {}
            }
            if provider.offline {
                set_env(&mut launch, "COPILOT_OFFLINE", "true");
            }
        }
        Ok(launch)
    }
}

impl Agent for Copilot {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> io::Result<Launch> {
        self.command(session, None)
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(CopilotParser::default())
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let states = self.copilot_home(session).join("session-state");
        let events = match out.current_session_id() {
            Some(id) => one_name(id)
                .then(|| states.join(id).join("events.jsonl"))
                .filter(|path| path.is_file()),
            None => isolation::newest_file(&states, &|path: &Path| {
                path.file_name().is_some_and(|name| name == "events.jsonl")
                    && path.parent().and_then(Path::parent) == Some(states.as_path())
            }),
        };
        let mut copied = None;
        if let Some(events) = events {
            if out.current_session_id().is_none()
                && let Some(id) = events.parent().and_then(Path::file_name)
            {
                out.session_id(id.to_string_lossy());
            }
            match isolation::copy_session_file(&events, session.artifact_dir, "session.jsonl") {
                Ok(path) => {
                    out.session_file(path.clone());
                    copied = Some(path);
                }
                Err(error) => out.warn(error.to_string()),
            }
        }
        if !out.has_usage() {
            read_usage_file(&session.artifact_dir.join(USAGE_FILE), out);
        }
        if !out.has_usage()
            && let Some(path) = copied
        {
            read_persisted_usage(&path, out);
        }
    }

    fn resume(&self, session: &SessionSpec<'_>, session_id: &str) -> Option<io::Result<Launch>> {
        Some(self.command(session, Some(session_id)))
    }

    fn setup(&self) -> AgentSetup {
        SPEC.setup(&self.options, Vec::new(), Vec::new())
    }
}

/// One line of Copilot's JSONL (stdout or the persisted `events.jsonl`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    ephemeral: Flag,
    #[serde(borrow)]
    timestamp: Text<'a>,
    #[serde(borrow)]
    data: Obj<Data<'a>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Text<'a>,
}

/// The `data` of every record type this adapter reads, in one struct.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Data<'a> {
    #[serde(borrow)]
    content: Text<'a>,
    #[serde(borrow)]
    phase: Text<'a>,
    #[serde(borrow)]
    message_id: Text<'a>,
    #[serde(borrow)]
    reasoning_text: Text<'a>,
    #[serde(borrow)]
    tool_call_id: Text<'a>,
    #[serde(borrow)]
    tool_name: Text<'a>,
    arguments: Option<Value>,
    success: Flag,
    #[serde(borrow)]
    result: Obj<ToolOutput<'a>>,
    #[serde(borrow)]
    error: ErrorMessage<'a>,
    shell_execution: Obj<ShellExecution>,
    status_code: Int,
    #[serde(borrow)]
    message: Text<'a>,
    #[serde(borrow)]
    error_type: Text<'a>,
    #[serde(borrow)]
    error_message: Text<'a>,
    #[serde(borrow)]
    session_id: Text<'a>,
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow)]
    usage: Obj<Figures<'a>>,
    model_metrics: Metrics,
    // `assistant.usage` carries the figures in `data` itself.
    input_tokens: Count,
    output_tokens: Count,
    cache_read_tokens: Count,
    reasoning_tokens: Count,
    #[serde(borrow)]
    api_call_id: Text<'a>,
}

impl<'a> Data<'a> {
    /// The figures of an `assistant.usage` record.
    fn figures(self) -> Figures<'a> {
        Figures {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cache_read_tokens: self.cache_read_tokens,
            reasoning_tokens: self.reasoning_tokens,
            api_call_id: self.api_call_id,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolOutput<'a> {
    #[serde(borrow)]
    content: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ShellExecution {
    exit_code: Int,
}

/// Token figures of one call or one model, with the call's id when given.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Figures<'a> {
    input_tokens: Count,
    output_tokens: Count,
    cache_read_tokens: Count,
    reasoning_tokens: Count,
    #[serde(borrow)]
    api_call_id: Text<'a>,
}

impl Figures<'_> {
    fn usage(&self) -> Option<TokenUsage> {
        let usage = TokenUsage {
            input: self.input_tokens.count(),
            output: self.output_tokens.count(),
            reasoning: self.reasoning_tokens.count(),
            cache_read: self.cache_read_tokens.count(),
        };
        (usage.input.is_some() || usage.output.is_some()).then_some(usage)
    }
}

/// `modelMetrics` (`{<model>: {usage: {…}}}`), summed over the models.
#[derive(Default)]
struct Metrics(Option<TokenUsage>);

impl<'de> Deserialize<'de> for Metrics {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Model<'a> {
            #[serde(borrow)]
            usage: Obj<Figures<'a>>,
        }
        let models =
            Obj::<std::collections::HashMap<String, Obj<Model<'de>>>>::deserialize(deserializer)?;
        let mut total: Option<TokenUsage> = None;
        for usage in models
            .0
            .into_iter()
            .flatten()
            .filter_map(|(_, model)| model.0?.usage.0?.usage())
        {
            let sum = total.get_or_insert_with(TokenUsage::default);
            let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
            };
            sum.input = add(sum.input, usage.input);
            sum.output = add(sum.output, usage.output);
            sum.reasoning = add(sum.reasoning, usage.reasoning);
            sum.cache_read = add(sum.cache_read, usage.cache_read);
        }
        Ok(Metrics(total))
    }
}

/// Parses Copilot's `--output-format json` stream (and its persisted `events.jsonl`).
#[derive(Debug, Default)]
struct CopilotParser {
    lines: JsonLine,
    /// Whether `assistant.turn_start` records count the steps.
    turns: bool,
    /// Message ids counted as steps when there are no turn records.
    messages: HashSet<String>,
    /// Calls whose usage was added, by `apiCallId`.
    calls: HashSet<String>,
    /// Whether reasoning came as its own record since the last assistant message.
    reasoning_seen: bool,
    /// The last failed model call: status and message.
    failure: Option<(Option<u16>, String)>,
    /// Skills signalled through the `skill` tool.
    skills: Vec<String>,
    pending: PendingCommands,
}

impl StreamParser for CopilotParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.lines.parse::<Record<'_>>(line, out) else {
            return;
        };
        let kind = record.kind.or_empty();
        let at = record.timestamp.0.map(Cow::into_owned);
        let data = record.data.0.unwrap_or_default();
        if record.ephemeral.is_true() {
            self.ephemeral(kind, data, out);
            return;
        }
        match kind {
            "user.message" => out.message(Role::User, None, data.content.into_string(), at),
            "assistant.turn_start" => {
                self.turns = true;
                out.step();
            }
            "assistant.message" => self.assistant_message(data, at, out),
            "assistant.reasoning" => {
                self.reasoning_seen = true;
                out.message(
                    Role::Assistant,
                    Some(Phase::Thinking),
                    data.content.into_string(),
                    at,
                );
            }
            "tool.execution_start" => self.tool_start(data, at, out),
            "tool.execution_complete" => self.tool_complete(data, at, out),
            "skill.invoked" => {
                let name = data.name.or_empty();
                if !self.skills.iter().any(|skill| skill == name) {
                    self.skills.push(name.to_owned());
                    out.skill_signal(None, name, at);
                }
            }
            "session.error" => self.session_error(&data, line, at, out),
            "session.usage_record" => {
                if let Some(figures) = &data.usage.0 {
                    self.add_usage(figures, out);
                }
            }
            "session.shutdown" => {
                if let Some(usage) = data.model_metrics.0 {
                    out.set_usage(usage);
                }
            }
            "session.start" => {
                if let Some(id) = data.session_id.get() {
                    out.session_id(id);
                }
            }
            "result" => {
                if let Some(id) = record.session_id.get() {
                    out.session_id(id);
                }
            }
            "assistant.turn_end"
            | "system.message"
            | "session.usage_checkpoint"
            | "skill.context_delivered"
            | "skill.context_delivered_ref" => {}
            _ => self.lines.keep_raw(line, at, out),
        }
    }

    fn finish(&mut self, out: &mut ReportBuilder) {
        self.pending.flush(out);
    }
}

impl CopilotParser {
    /// An ephemeral record: a failed model call, or usage; the others are not kept.
    fn ephemeral(&mut self, kind: &str, data: Data<'_>, out: &mut ReportBuilder) {
        match kind {
            "model.call_failure" => {
                let (status, message) = api_error::parse(data.error_message.or_empty());
                self.failure = Some((data.status_code.status().or(status), message));
            }
            "assistant.usage" => self.add_usage(&data.figures(), out),
            _ => {}
        }
    }

    /// `assistant.message`: a step (when there are no turn records, once per message id), its
    /// reasoning unless it came as its own record, then its text.
    fn assistant_message(&mut self, data: Data<'_>, at: Option<String>, out: &mut ReportBuilder) {
        if !self.turns {
            match data.message_id.get() {
                Some(id) if self.messages.contains(id) => {}
                Some(id) => {
                    self.messages.insert(id.to_owned());
                    out.step();
                }
                None => out.step(),
            }
        }
        if !std::mem::take(&mut self.reasoning_seen) {
            out.message(
                Role::Assistant,
                Some(Phase::Thinking),
                data.reasoning_text.into_string(),
                at.clone(),
            );
        }
        let phase = match data.phase.or_empty() {
            "thinking" => Some(Phase::Thinking),
            "commentary" => Some(Phase::Commentary),
            "final" | "final_answer" => Some(Phase::Final),
            _ => None,
        };
        out.message(Role::Assistant, phase, data.content.into_string(), at);
    }

    /// `tool.execution_complete`: the pending command's exit, then the tool's result.
    fn tool_complete(&mut self, data: Data<'_>, at: Option<String>, out: &mut ReportBuilder) {
        let id = data.tool_call_id.get();
        let exit_code = data
            .shell_execution
            .0
            .and_then(|shell| shell.exit_code.exit_code());
        if let Some(id) = id {
            self.pending.release(id, exit_code, out);
        }
        let output = match (data.error.get(), data.result.0) {
            (Some(message), _) => message.to_owned(),
            (None, Some(result)) => result.content.into_string(),
            (None, None) => String::new(),
        };
        // `success` says whether the tool ran; a command that exited non-zero failed.
        let is_error = data.success.0 == Some(false) || exit_code.is_some_and(|code| code != 0);
        out.tool_result(id, output, is_error, at);
    }

    fn tool_start(&mut self, data: Data<'_>, at: Option<String>, out: &mut ReportBuilder) {
        let id = data.tool_call_id.get();
        let tool = data.tool_name.or_empty();
        let args = data.arguments.unwrap_or(Value::Null);
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        match tool {
            "bash" | "write_bash" | "powershell" => {
                if let Some(command) = text("command") {
                    match id {
                        Some(id) => self.pending.hold(id, command, None, at.clone()),
                        None => out.shell_command(None, command, None, None, at.clone()),
                    }
                }
            }
            "view" => {
                if let Some(path) = text("path") {
                    out.file_read(id, path, None, at.clone());
                }
            }
            "skill" => {
                if let Some(skill) = text("skill").or_else(|| text("name")) {
                    self.skills.push(skill.to_owned());
                    out.skill_signal(id, skill, at.clone());
                }
            }
            _ => {}
        }
        out.tool_call(id, tool, args, at);
    }

    fn session_error(
        &mut self,
        data: &Data<'_>,
        line: &str,
        at: Option<String>,
        out: &mut ReportBuilder,
    ) {
        let failure = self.failure.take();
        // Only a status the message states as one: prose that mentions a status is no sign
        // of a provider error.
        let (stated, message) = api_error::parse_explicit(data.message.or_empty());
        let (failed_status, failed_message) = failure.unzip();
        let status = data
            .status_code
            .status()
            .or(stated)
            .or(failed_status.flatten());
        let query = data.error_type.get() == Some("query");
        if status.is_none() && failed_message.is_none() && !query {
            self.lines.keep_raw(line, at, out);
            return;
        }
        let message = if message.is_empty() {
            failed_message.unwrap_or_default()
        } else {
            message
        };
        out.provider_error(status, message);
    }

    fn add_usage(&mut self, figures: &Figures<'_>, out: &mut ReportBuilder) {
        let Some(usage) = figures.usage() else {
            return;
        };
        if let Some(id) = figures.api_call_id.get()
            && !self.calls.insert(id.to_owned())
        {
            return;
        }
        out.add_usage(usage);
    }
}

/// Whether the session id `id` is one directory name (not `..`, a path or nothing): the id comes
/// from the agent's stdout, and must not send `collect` out of `session-state`.
fn one_name(id: &str) -> bool {
    let mut components = Path::new(id).components();
    matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none()
}

/// Reads the session usage `--usage-output-file` wrote; a missing file is normal.
fn read_usage_file(path: &Path, out: &mut ReportBuilder) {
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct UsageFile {
        model_metrics: Metrics,
    }
    let Ok(text) = fs::read_to_string(path) else {
        return;
    };
    match serde_json::from_str::<UsageFile>(&text) {
        Ok(UsageFile {
            model_metrics: Metrics(Some(usage)),
        }) => out.set_usage(usage),
        Ok(_) => {}
        Err(error) => out.warn(format!("cannot read {}: {error}", path.display())),
    }
}

/// Sums the usage records of a persisted `events.jsonl` (the session total of its
/// `session.shutdown` when there is one), for a session whose stream and usage file had none
/// (a killed session, for example).
fn read_persisted_usage(path: &Path, out: &mut ReportBuilder) {
    let Ok(file) = fs::File::open(path) else {
        return;
    };
    let mut calls = HashSet::default();
    let mut total = None;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes).unwrap_or(0) == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&bytes);
        if !line.contains("\"session.usage_record\"") && !line.contains("\"session.shutdown\"") {
            continue;
        }
        let Ok(record) = serde_json::from_str::<Record<'_>>(&line) else {
            continue;
        };
        let Some(data) = record.data.0 else {
            continue;
        };
        match record.kind.or_empty() {
            "session.usage_record" => {
                if let Some(figures) = &data.usage.0
                    && let Some(usage) = figures.usage()
                    && figures
                        .api_call_id
                        .get()
                        .is_none_or(|id| calls.insert(id.to_owned()))
                {
                    out.add_usage(usage);
                }
            }
            "session.shutdown" => total = data.model_metrics.0.or(total),
            _ => {}
        }
    }
    if let Some(total) = total {
        out.set_usage(total);
    }
}

#[cfg(test)]
mod tests {
    //! What only Copilot does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::test_support::{
        self, CWD, PROMPT, exit_codes, fixture, scratch, spec, tool_results,
    };
    use crate::normalize::Normalized;
    use skillgym::{Confidence, SessionEvent, TokenCount};

    fn normalize(stream: &str) -> Normalized {
        let mut parser = Copilot::new(AgentOptions::new("gpt-5.4")).parser();
        test_support::normalize(&mut *parser, stream)
    }

    #[test]
    fn per_call_usage_is_summed_once_per_call() {
        let fixture = fixture("copilot.persisted-events.jsonl");
        // Without the shutdown total, the three usage records are summed.
        let calls: Vec<&str> = fixture
            .lines()
            .filter(|line| !line.contains("\"session.shutdown\""))
            .collect();
        let mut stream = calls.join("\n");
        // An ephemeral per-call record of a call already counted adds nothing; a new one adds.
        stream.push_str(concat!(
            "\n{\"type\":\"assistant.usage\",\"ephemeral\":true,\"data\":{\"model\":\"m\",",
            "\"inputTokens\":13139,\"outputTokens\":7,\"apiCallId\":\"chatcmpl-mock5a06a0521545\"}}",
            "\n{\"type\":\"assistant.usage\",\"ephemeral\":true,\"data\":{\"model\":\"m\",",
            "\"inputTokens\":1000,\"outputTokens\":50,\"cacheReadTokens\":600,",
            "\"reasoningTokens\":20,\"apiCallId\":\"call-4\"}}"
        ));
        let usage = normalize(&stream).report.usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(39694 + 1000)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(21 + 50)));
        assert_eq!(usage.reasoning_tokens, Some(TokenCount::provider(20)));
        assert_eq!(usage.cache_tokens, Some(TokenCount::provider(600)));
        assert_eq!(
            usage.total_tokens,
            Some(TokenCount::derived(39694 + 1000 + 71 + 20 - 600))
        );
    }

    #[test]
    fn maps_skills_reasoning_failures_and_phases() {
        let parsed = normalize(concat!(
            r#"{"type":"user.message","timestamp":"2026-06-11T10:00:00.000Z","data":{"content":"read the skill"}}"#,
            "\n",
            r#"{"type":"assistant.reasoning","data":{"reasoningId":"r1","content":"Let me think."}}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"messageId":"msg_0","content":"","reasoningText":"Let me think.","toolRequests":[]}}"#,
            "\n",
            r#"{"type":"tool.execution_start","data":{"toolCallId":"call_skill","toolName":"skill","arguments":{"skill":"find-skills"}}}"#,
            "\n",
            r##"{"type":"skill.invoked","data":{"name":"find-skills","path":"/s/find-skills/SKILL.md","content":"# skill","trigger":"agent-invoked"}}"##,
            "\n",
            r##"{"type":"tool.execution_complete","data":{"toolCallId":"call_skill","success":true,"result":{"content":"Skill find-skills loaded"}}}"##,
            "\n",
            r##"{"type":"skill.invoked","data":{"name":"preloaded","path":"/s/preloaded/SKILL.md","content":"# p","trigger":"context-load"}}"##,
            "\n",
            r#"{"type":"tool.execution_start","data":{"toolCallId":"call_1","toolName":"view","arguments":{"path":"skills/find-skills/SKILL.md"}}}"#,
            "\n",
            r##"{"type":"tool.execution_complete","data":{"toolCallId":"call_1","success":true,"result":{"content":"1. # skill","detailedContent":"# skill"}}}"##,
            "\n",
            r#"{"type":"tool.execution_start","data":{"toolCallId":"call_2","toolName":"bash","arguments":{"command":"rm -rf /"}}}"#,
            "\n",
            r#"{"type":"tool.execution_complete","data":{"toolCallId":"call_2","success":false,"error":{"message":"Permission denied","code":"denied"}}}"#,
            "\n",
            r#"{"type":"session.warning","data":{"warningType":"x","message":"careful"}}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"messageId":"msg_1","phase":"final_answer","content":"done"}}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"messageId":"msg_1","phase":"final_answer","content":""}}"#,
            "\n",
            r#"{"type":"result","sessionId":"session_123","usage":{"premiumRequests":0.33}}"#,
        ));
        let report = &parsed.report;
        assert_eq!(parsed.steps, 2, "no turn records: one step per message id");
        assert_eq!(report.session_id.as_deref(), Some("session_123"));
        assert_eq!(report.final_output, "done");
        let skill = report.skill("find-skills").unwrap();
        assert_eq!(skill.confidence, Confidence::Explicit);
        assert_eq!(
            report.skill("preloaded").map(|skill| skill.confidence),
            Some(Confidence::Explicit)
        );
        let signals = report
            .events
            .iter()
            .filter(|event| matches!(event, SessionEvent::SkillSignal { .. }))
            .count();
        assert_eq!(
            signals, 2,
            "the skill tool's own invocation is not signalled twice"
        );
        assert_eq!(
            report.file_reads(),
            [Path::new("/home/dev/demo/wd/skills/find-skills/SKILL.md")]
        );
        assert_eq!(report.commands().collect::<Vec<_>>(), ["rm -rf /"]);
        assert_eq!(exit_codes(report), [None]);
        let results = tool_results(report);
        assert_eq!(results[1], ("call_1", "view", "1. # skill", false));
        assert_eq!(results[2], ("call_2", "bash", "Permission denied", true));
        let thinking: Vec<_> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Message {
                    phase: Some(Phase::Thinking),
                    text,
                    ..
                } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(thinking, ["Let me think."], "reasoning is not doubled");
        assert_eq!(report.usage.reasoning_chars, 13);
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Raw { value, .. } if value["type"] == "session.warning"
        )));
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Message { role: Role::User, at: Some(at), .. } if at == "2026-06-11T10:00:00.000Z"
        )));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn errors_without_a_failed_call_are_kept_raw() {
        let parsed = normalize(concat!(
            r#"{"type":"session.error","data":{"errorType":"mcp","message":"server x failed"}}"#,
            "\n",
            r#"{"type":"session.error","data":{"errorType":"query","message":"Model gpt-9 is not available"}}"#,
        ));
        let error = parsed.provider_error.unwrap();
        assert_eq!(
            (error.status, error.message.as_str()),
            (None, "Model gpt-9 is not available")
        );
        assert!(parsed.report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Raw { value, .. } if value["data"]["errorType"] == "mcp"
        )));
        // The failed call's body stands in for an empty message.
        let parsed = normalize(concat!(
            r#"{"type":"model.call_failure","ephemeral":true,"data":{"statusCode":429,"errorMessage":"{\"error\":{\"message\":\"slow down\"}}"}}"#,
            "\n",
            r#"{"type":"session.error","data":{"errorType":"rate_limit","message":""}}"#,
        ));
        let error = parsed.provider_error.unwrap();
        assert_eq!(
            (error.status, error.message.as_str()),
            (Some(429), "slow down")
        );
        assert!(!error.is_rejection());
    }

    #[test]
    fn a_cut_stream_keeps_its_commands_and_garbage_becomes_warnings() {
        let parsed = normalize(concat!(
            r#"{"type":"assistant.turn_start","data":{"turnId":"0"}}"#,
            "\n",
            r#"{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"sleep 100"}}}"#,
            "\n",
            "not json\n",
            "{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":\"c1\"",
        ));
        assert_eq!(parsed.steps, 1);
        assert_eq!(parsed.report.commands().collect::<Vec<_>>(), ["sleep 100"]);
        assert_eq!(exit_codes(&parsed.report), [None]);
        assert_eq!(
            parsed.report.warnings.len(),
            2,
            "{:?}",
            parsed.report.warnings
        );
        // Odd shapes never fail a record.
        let parsed = normalize(concat!(
            r#"{"type":"user.message","data":{"content":["a"],"messageId":7}}"#,
            "\n",
            r#"{"type":"tool.execution_complete","data":{"toolCallId":"x","success":"yes","result":"text","error":null,"shellExecution":{"exitCode":"0"}}}"#,
            "\n",
            r#"{"type":7}"#,
            "\n",
            r#"{"data":"x"}"#,
        ));
        assert!(
            parsed.report.warnings.is_empty(),
            "{:?}",
            parsed.report.warnings
        );
        assert_eq!(tool_results(&parsed.report), [("x", "", "", false)]);
    }

    #[test]
    fn collects_the_events_file_and_the_usage_file() {
        let tmp = scratch("copilot", "collect");
        let dir = tmp.path();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let persisted = fixture("copilot.persisted-events.jsonl");
        let session_dir = state.join("copilot-home/session-state/3d15daf6");
        fs::create_dir_all(&session_dir).unwrap();
        fs::create_dir_all(&artifacts).unwrap();
        fs::write(session_dir.join("events.jsonl"), &persisted).unwrap();
        fs::write(
            artifacts.join(USAGE_FILE),
            fixture("copilot.usage-output-file.json"),
        )
        .unwrap();
        let agent = Copilot::new(AgentOptions::default());
        let session = spec("copilot", dir, &state, &artifacts);
        let copied = artifacts.join("session.jsonl");

        // The stream named the session and had no usage: the usage file gives it.
        let mut out = ReportBuilder::new(CWD);
        out.session_id("3d15daf6");
        agent.collect(&session, &mut out);
        assert_eq!(out.current_session_file(), Some(copied.as_path()));
        assert_eq!(fs::read_to_string(&copied).unwrap(), persisted);
        let report = out.finish(PROMPT);
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(39815)));
        assert_eq!(report.usage.output_tokens, Some(TokenCount::provider(21)));
        assert_eq!(report.usage.reasoning_tokens, Some(TokenCount::provider(0)));
        assert_eq!(report.usage.cache_tokens, Some(TokenCount::provider(0)));
        assert_eq!(report.usage.total_tokens, Some(TokenCount::derived(39836)));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);

        // Usage from the stream wins over the file.
        let mut out = ReportBuilder::new(CWD);
        out.add_usage(TokenUsage {
            input: Some(5),
            output: Some(1),
            ..TokenUsage::default()
        });
        agent.collect(&session, &mut out);
        assert_eq!(out.usage_mut().input_tokens, Some(TokenCount::provider(5)));

        // A killed session: no id in the stream, no usage file; the events file has both.
        fs::remove_file(artifacts.join(USAGE_FILE)).unwrap();
        fs::remove_file(&copied).unwrap();
        let mut out = ReportBuilder::new(CWD);
        agent.collect(&session, &mut out);
        assert_eq!(out.current_session_id(), Some("3d15daf6"));
        assert_eq!(out.current_session_file(), Some(copied.as_path()));
        assert_eq!(
            out.usage_mut().input_tokens,
            Some(TokenCount::provider(39694))
        );

        // Nothing to find is normal.
        let mut out = ReportBuilder::new(CWD);
        out.session_id("other");
        fs::remove_file(&copied).unwrap();
        agent.collect(&session, &mut out);
        assert!(out.current_session_file().is_none());
        assert!(!out.has_usage());
        assert!(out.finish(PROMPT).warnings.is_empty());
        tmp.close().unwrap();
    }

    #[test]
    fn a_session_id_that_is_not_one_name_finds_no_events_file() {
        let tmp = scratch("copilot", "traversal");
        let dir = tmp.path();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let home = state.join("copilot-home");
        fs::create_dir_all(home.join("session-state")).unwrap();
        fs::create_dir_all(&artifacts).unwrap();
        // Files the agent's stdout must not be able to point at.
        fs::write(home.join("events.jsonl"), "home\n").unwrap();
        fs::write(home.join("session-state/events.jsonl"), "states\n").unwrap();
        fs::write(dir.join("events.jsonl"), "outside\n").unwrap();
        let agent = Copilot::new(AgentOptions::default());
        let session = spec("copilot", dir, &state, &artifacts);
        let outside = dir.to_str().unwrap().to_owned();
        for id in ["..", ".", "../../..", "a/../..", outside.as_str(), ""] {
            let mut out = ReportBuilder::new(CWD);
            out.session_id(id);
            agent.collect(&session, &mut out);
            assert_eq!(out.current_session_file(), None, "session id {id:?}");
            assert!(
                !artifacts.join("session.jsonl").exists(),
                "session id {id:?}"
            );
        }
        tmp.close().unwrap();
    }
}
