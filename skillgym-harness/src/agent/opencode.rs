//! The OpenCode adapter (`opencode-ai`; verified with OpenCode 1.18.33).
//!
//! | | |
//! |---|---|
//! | command | `opencode [agent.args] run --format json [-m <provider/model>] --thinking --auto --print-logs --log-level ERROR --title "skillgym <runner>" -- <prompt>` |
//! | `--title` | the session has a title, so OpenCode sends no title request (a model call outside the stream: about 620 input and 3 output tokens the report would not count) |
//! | `--auto` | approves every permission the config does not explicitly deny, so nothing waits for a user |
//! | `--print-logs --log-level ERROR` | errors go to `stderr.log`: the stream only says `UnknownError` when the model is unknown; the log names `ProviderModelNotFoundError` |
//! | `--` | a prompt starting with `-` is not taken for an option. OpenCode itself wraps a message argument that contains spaces in double quotes (escaping inner ones) before the model sees it |
//! | env | `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME` = `<state dir>/xdg/{data,config,state,cache}`; `OPENCODE_DISABLE_AUTOUPDATE=1`, `OPENCODE_DISABLE_SHARE=1`, `OPENCODE_DISABLE_LSP_DOWNLOAD=1`, `OPENCODE_DISABLE_CLAUDE_CODE_PROMPT=1` (not `~/.claude/CLAUDE.md`) |
//! | left on | `OPENCODE_DISABLE_DEFAULT_PLUGINS` (they carry the OAuth logins), `OPENCODE_DISABLE_MODELS_FETCH` with the user's login (the catalog describes the vendors' models), `OPENCODE_DISABLE_CLAUDE_CODE(_SKILLS)` (would hide the workspace's `.claude/skills`) |
//! | seeded | `auth.json` from `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`) → `data/opencode/`; `opencode.json`, `opencode.jsonc`, `config.json` (custom providers) from `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`) → `config/opencode/`; never `AGENTS.md`, skills, agents, plugins |
//! | provider | a `skillgym` provider in `<state dir>/opencode-provider.json`, named by `OPENCODE_CONFIG`: `@ai-sdk/openai-compatible` (chat), `@ai-sdk/openai` (responses), `@ai-sdk/anthropic` (base + `/v1`), `@ai-sdk/google` (base + `/v1beta`), all bundled in OpenCode; key as `{env:VAR}`; model `skillgym/<model>`, `autoupdate: false`, `share: "disabled"`; nothing seeded; `OPENCODE_DISABLE_MODELS_FETCH=1` (the config declares the model: no catalog fetch). Against the scripted server also a dead `NPM_CONFIG_REGISTRY` (OpenCode installs its plugin SDK at start; elsewhere a workspace's own plugins and tools may need it) |
//! | session file | none: sessions live in `data/opencode/opencode.db` (left in the state directory) |
//! | resume | `opencode [agent.args] run … --session <id> -- <question>` |
//! | doctor | `opencode --version`; auth: the model's provider key variable, `OPENCODE_AUTH_CONTENT`, `auth.json`, or a config file |
//!
//! The stream (`opencode run --format json`): every line is `{type, timestamp (epoch ms),
//! sessionID, part}`.
//!
//! | record | report |
//! |---|---|
//! | any `sessionID` | session id |
//! | `step_start` | one step (one model call) |
//! | `text` `part.text` | assistant message (phase settled by the builder) |
//! | `reasoning` `part.text` | thinking message |
//! | `tool_use` `part.tool`, `callID`, `state{status, input, output, error, metadata.exit, time}` | tool call (`input` as args, at `time.start`) and its result (`output`, or `error` when the status is `error`; a `bash` exiting non-zero is an error too; at `time.end`) — both arrive in one line |
//! | `tool_use` `bash` | also a command (`input.command`, exit `metadata.exit`, in `input.workdir`) |
//! | `tool_use` `read` | also a file read (`input.filePath`) |
//! | `tool_use` `skill` | also a skill signal (`input.name`) |
//! | `step_finish` `tokens{input, output, reasoning, cache{read, write}}`, `cost` | usage added per step: input = `input` + `cache.read` + `cache.write` (OpenCode's `input` excludes cached input), output excludes reasoning already; cost added |
//! | `error` `APIError`, `Provider…`, `AI_…`, or any with `data.statusCode` | provider error (`data.statusCode`, `data.message`; `ProviderModelNotFoundError` without a message: `Model not found: <provider>/<model>`) |
//! | `error` of another name (`UnknownError`) | raw event; `collect` then looks in `stderr.log` for the provider error behind it |
//! | anything else | raw event |

use std::borrow::Cow;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};
use skillgym::{Phase, Role, SessionEvent};

use super::api_error;
use super::options::set_env;
use super::provider::{self, Provider};
use super::spec::AgentSpec;
use super::{
    Agent, AgentOptions, AgentSetup, AuthSource, Launch, SessionSpec, StreamParser, isolation,
};
use crate::config::{AgentKind, WireApi};
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage, epoch_millis_to_rfc3339};

/// OpenCode as data. Its state is four XDG directories (not one variable), prepared by the
/// adapter; the fixed environment switches off what a session does not need: update checks,
/// sharing, language-server downloads, and the user's `~/.claude/CLAUDE.md`. OpenCode reads
/// `~/.agents/skills`, `~/.claude/skills` and `~/.opencode/skills`: a private home.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::Opencode,
    name: "opencode",
    build: |options| std::sync::Arc::new(Opencode::new(options)),
    wire_apis: &[
        WireApi::OpenaiChat,
        WireApi::OpenaiResponses,
        WireApi::Anthropic,
        WireApi::Gemini,
    ],
    example_model: "anthropic/claude-sonnet-4-6",
    contacts: &[
        "the model's provider (the login's)",
        "models.opencode.ai (the catalog of the vendors' models)",
    ],
    npm_at_start: Some("OpenCode installs its plugin SDK at start"),
    program: "opencode",
    install: "npm install -g opencode-ai",
    // The credential variables depend on the model's provider: the adapter lists them.
    auth_env: &[],
    auth_help: "Run `opencode auth login` (stored in ~/.local/share/opencode/auth.json), set the \
                provider's API key variable (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY), or \
                configure the provider in ~/.config/opencode/opencode.json. skillgym copies \
                auth.json and the global config into each session's private XDG directories.",
    state: None,
    fixed_env: &[
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_SHARE", "1"),
        ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
        ("OPENCODE_DISABLE_CLAUDE_CODE_PROMPT", "1"),
    ],
    project_skills: ".opencode/skills",
    home_skills: true,
    version: super::version::DASH_DASH_VERSION,
};

/// The provider endpoint's config file, in the state directory.
const PROVIDER_CONFIG: &str = "opencode-provider.json";

/// A package registry nothing listens on (the discard port of loopback).
const DEAD_REGISTRY: &str = "http://127.0.0.1:9/";

/// The user's global config files (they hold custom providers and their keys).
const CONFIG_FILES: [&str; 3] = ["opencode.json", "opencode.jsonc", "config.json"];

/// Error names that are the model provider's.
fn is_provider_error(name: &str) -> bool {
    name == "APIError" || name.starts_with("Provider") || name.starts_with("AI_")
}

/// Runs OpenCode (`opencode run --format json`).
#[derive(Debug, Clone)]
pub struct Opencode {
    options: AgentOptions,
}

impl Opencode {
    /// An OpenCode runner with the configured model (`provider/model`), program, arguments and
    /// environment.
    pub fn new(options: AgentOptions) -> Self {
        Opencode { options }
    }

    /// The user's OpenCode data directory (holding `auth.json`): below the harness's
    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    fn user_data(&self) -> Option<PathBuf> {
        self.options
            .user_dir("XDG_DATA_HOME", ".local/share")
            .map(|dir| dir.join("opencode"))
    }

    /// The user's OpenCode config directory: below the harness's `$XDG_CONFIG_HOME`, else
    /// `~/.config`.
    fn user_config(&self) -> Option<PathBuf> {
        self.options
            .user_dir("XDG_CONFIG_HOME", ".config")
            .map(|dir| dir.join("opencode"))
    }

    /// Creates the private XDG directories, seeds auth and config, and sets the variables.
    fn isolate(&self, session: &SessionSpec<'_>, launch: &mut Launch) -> std::io::Result<()> {
        let root = session.state_dir.join("xdg");
        let dirs = [
            ("XDG_DATA_HOME", root.join("data")),
            ("XDG_CONFIG_HOME", root.join("config")),
            ("XDG_STATE_HOME", root.join("state")),
            ("XDG_CACHE_HOME", root.join("cache")),
        ];
        isolation::create_dirs(dirs.iter().map(|(_, dir)| dir.as_path()))?;
        if let Some(user) = self.user_config() {
            isolation::inherit_user_skills(
                &self.options,
                &[(dirs[1].1.join("opencode/skills"), user.join("skills"))],
            )?;
        }
        let seeds = [
            (
                self.user_data(),
                dirs[0].1.join("opencode"),
                &["auth.json"][..],
            ),
            (
                self.user_config(),
                dirs[1].1.join("opencode"),
                &CONFIG_FILES[..],
            ),
        ];
        let provider = session.endpoint(&self.options);
        // With a provider endpoint the user's logins and providers stay home.
        for (from, to, files) in seeds.into_iter().filter(|_| provider.is_none()) {
            if let Some(from) = from.filter(|from| *from != to) {
                launch.seeded.seed(&from, &to, files)?;
            }
        }
        for (key, dir) in dirs {
            set_env(launch, key, dir);
        }
        Ok(())
    }

    /// Applies `agent.env`, then points the agent at the session's provider endpoint, if any
    /// (last, so that `agent.env` cannot send the session elsewhere).
    fn finish(&self, session: &SessionSpec<'_>, launch: Launch) -> std::io::Result<Launch> {
        let mut launch = self.options.finish_launch(launch);
        if let Some(provider) = session.endpoint(&self.options) {
            let path = session.state_dir.join(PROVIDER_CONFIG);
            let key_var = provider.key_var(&mut launch);
            let config = provider_config(provider, self.model_id(), key_var);
            std::fs::write(&path, serde_json::to_vec_pretty(&config)?)?;
            set_env(&mut launch, "OPENCODE_CONFIG", &path);
            // The config declares the endpoint's model in full: the catalog adds nothing to it.
            set_env(&mut launch, "OPENCODE_DISABLE_MODELS_FETCH", "1");
            if provider.offline {
                // OpenCode installs its plugin SDK from npm at start (into its config directory
                // and each `.opencode` directory, for plugins and custom tools written against
                // it); a closed port fails fast. Only against the scripted server: elsewhere a
                // workspace's own tools may need it.
                set_env(&mut launch, "NPM_CONFIG_REGISTRY", DEAD_REGISTRY);
            }
        }
        Ok(launch)
    }

    /// The model's id below a provider endpoint: the configured model as it is.
    fn model_id(&self) -> &str {
        self.options.model.as_deref().unwrap_or("default")
    }

    /// `run` and its flags, up to the message.
    fn push_flags(&self, session: &SessionSpec<'_>, args: &mut Vec<std::ffi::OsString>) {
        args.extend(["run", "--format", "json"].map(Into::into));
        if session.endpoint(&self.options).is_some() {
            args.push("-m".into());
            args.push(format!("{}/{}", provider::PROVIDER_ID, self.model_id()).into());
        } else if let Some(model) = &self.options.model {
            args.push("-m".into());
            args.push(model.into());
        }
        args.extend(
            [
                "--thinking",
                "--auto",
                "--print-logs",
                "--log-level",
                "ERROR",
            ]
            .map(Into::into),
        );
    }
}

impl Agent for Opencode {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch> {
        let mut launch = SPEC.start_launch(&self.options, session, None)?;
        self.push_flags(session, &mut launch.args);
        // A session with a title of its own gets no title request: a model call the stream
        // never shows, which would leave the report's usage short of the provider's bill.
        launch.args.push("--title".into());
        launch
            .args
            .push(format!("skillgym {}", session.runner_id).into());
        launch.args.push("--".into());
        launch.args.push(session.prompt.into());
        self.isolate(session, &mut launch)?;
        self.finish(session, launch)
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(OpencodeParser::default())
    }

    /// The stream only says `UnknownError` for some provider failures (an unknown model);
    /// the error log on stderr names them.
    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        if out.current_provider_error().is_some() {
            return;
        }
        let stream_error = out.events().iter().any(|event| {
            matches!(event, SessionEvent::Raw { value, .. } if value.get("type") == Some(&Value::from("error")))
        });
        if !stream_error {
            return;
        }
        let Ok(file) = std::fs::File::open(session.artifact_dir.join("stderr.log")) else {
            return;
        };
        for line in BufReader::new(file).split(b'\n').map_while(Result::ok) {
            let line = String::from_utf8_lossy(&line);
            if let Some((name, message)) = logged_error(&line)
                && is_provider_error(name)
            {
                let (status, message) = api_error::parse(message);
                out.provider_error(status, message);
                return;
            }
        }
    }

    fn resume(
        &self,
        session: &SessionSpec<'_>,
        session_id: &str,
    ) -> Option<std::io::Result<Launch>> {
        let mut launch = match SPEC.start_launch(&self.options, session, None) {
            Ok(launch) => launch,
            Err(error) => return Some(Err(error)),
        };
        self.push_flags(session, &mut launch.args);
        launch.args.push("--session".into());
        launch.args.push(session_id.into());
        launch.args.push("--".into());
        launch.args.push(session.prompt.into());
        Some(
            self.isolate(session, &mut launch)
                .and_then(|()| self.finish(session, launch)),
        )
    }

    fn setup(&self) -> AgentSetup {
        let mut auth = Vec::new();
        let provider = self
            .options
            .model
            .as_deref()
            .and_then(|model| model.split_once('/'))
            .map(|(provider, _)| provider);
        if let Some(variable) = provider.and_then(provider_key) {
            auth.push(AuthSource::Env(variable.to_owned()));
        }
        auth.push(AuthSource::Env("OPENCODE_AUTH_CONTENT".to_owned()));
        if let Some(data) = self.user_data() {
            auth.push(AuthSource::File(data.join("auth.json")));
        }
        if let Some(config) = self.user_config() {
            auth.extend(
                CONFIG_FILES
                    .iter()
                    .map(|file| AuthSource::File(config.join(file))),
            );
        }
        SPEC.setup(&self.options, auth, Vec::new())
    }
}

/// The config file (named by `OPENCODE_CONFIG`) that declares a provider endpoint as the
/// `skillgym` provider. It holds no secret: the key is read from a variable (`{env:VAR}`).
fn provider_config(provider: &Provider, model: &str, key_var: String) -> Value {
    // The AI SDK packages (bundled in OpenCode) want these roots.
    let (package, base_url) = match provider.wire_api {
        WireApi::OpenaiChat => ("@ai-sdk/openai-compatible", provider.base_url.clone()),
        WireApi::OpenaiResponses => ("@ai-sdk/openai", provider.base_url.clone()),
        WireApi::Anthropic => ("@ai-sdk/anthropic", format!("{}/v1", provider.base_url)),
        WireApi::Gemini => ("@ai-sdk/google", format!("{}/v1beta", provider.base_url)),
    };
    let mut config = json!({
        "provider": {
            provider::PROVIDER_ID: {
                "npm": package,
                "name": provider::PROVIDER_ID,
                "options": {"baseURL": base_url, "apiKey": format!("{{env:{key_var}}}")},
                "models": {model: {"name": model, "tool_call": true}},
            },
        },
    });
    config["autoupdate"] = json!(false);
    config["share"] = json!("disabled");
    config
}

/// The API key variable of a well-known provider.
fn provider_key(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "google" => "GOOGLE_GENERATIVE_AI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "groq" => "GROQ_API_KEY",
        "xai" => "XAI_API_KEY",
        "mistral" => "MISTRAL_API_KEY",
        "deepseek" => "DEEPSEEK_API_KEY",
        "opencode" => "OPENCODE_API_KEY",
        _ => return None,
    })
}

/// The error an OpenCode log line reports: `… level=ERROR … error="<Name>: <message>" …`.
fn logged_error(line: &str) -> Option<(&str, &str)> {
    if !line.contains("level=ERROR") {
        return None;
    }
    let start = line.find(" error=\"")? + " error=\"".len();
    let rest = &line[start..];
    let mut escaped = false;
    let end = rest
        .char_indices()
        .find(|&(_, c)| {
            let quote = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            quote
        })
        .map_or(rest.len(), |(at, _)| at);
    let (name, message) = rest[..end].split_once(": ")?;
    (!name.is_empty() && !name.contains(' ')).then_some((name, message))
}

/// One line of `opencode run --format json`.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(
        rename = "sessionID",
        default,
        borrow,
        deserialize_with = "super::borrowed::optional_str"
    )]
    session_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    part: Option<Part<'a>>,
    #[serde(default)]
    error: Option<ErrorInfo>,
}

/// A message part; the fields of every part type, each optional.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow, deserialize_with = "super::borrowed::optional_str")]
    tool: Option<Cow<'a, str>>,
    #[serde(rename = "callID")]
    call_id: Option<String>,
    state: Option<ToolState>,
    text: Option<String>,
    tokens: Option<Tokens>,
    #[serde(default, deserialize_with = "super::lenient::amount")]
    cost: Option<f64>,
}

/// A tool part's state.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolState {
    status: Option<String>,
    input: Value,
    output: Option<String>,
    error: Option<String>,
    metadata: Option<ToolMetadata>,
    time: Option<Span>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolMetadata {
    exit: Option<i32>,
}

/// Start and end, epoch milliseconds.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Span {
    start: Option<f64>,
    end: Option<f64>,
}

/// A step's tokens; `input` excludes cached input, `output` excludes reasoning.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Tokens {
    #[serde(default, deserialize_with = "super::lenient::count")]
    input: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    output: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    reasoning: Option<u64>,
    cache: Option<CacheTokens>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CacheTokens {
    #[serde(default, deserialize_with = "super::lenient::count")]
    read: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    write: Option<u64>,
}

impl Tokens {
    /// In skillgym's terms: input includes cache reads and writes.
    fn to_token_usage(&self) -> TokenUsage {
        let (read, write) = self
            .cache
            .as_ref()
            .map_or((None, None), |cache| (cache.read, cache.write));
        let input = [self.input, read, write]
            .into_iter()
            .flatten()
            .reduce(u64::saturating_add);
        TokenUsage {
            input,
            output: self.output,
            reasoning: self.reasoning,
            cache_read: read,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorInfo {
    name: Option<String>,
    message: Option<String>,
    data: Option<ErrorData>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorData {
    message: Option<String>,
    #[serde(rename = "statusCode")]
    status_code: Option<u16>,
    #[serde(rename = "providerID")]
    provider_id: Option<String>,
    #[serde(rename = "modelID")]
    model_id: Option<String>,
}

/// Epoch milliseconds as RFC 3339.
fn at(millis: Option<f64>) -> Option<String> {
    millis
        .filter(|millis| millis.is_finite() && *millis >= 0.0)
        .map(|millis| epoch_millis_to_rfc3339(millis as u64))
}

/// Parses `opencode run --format json`.
#[derive(Debug, Default)]
struct OpencodeParser {
    json: JsonLine,
}

impl StreamParser for OpencodeParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.json.parse::<Record<'_>>(line, out) else {
            return;
        };
        if let Some(id) = record.session_id.filter(|id| !id.is_empty())
            && out.current_session_id().is_none()
        {
            out.session_id(id);
        }
        let part = record.part;
        match (record.kind.as_ref(), part) {
            ("step_start", _) => out.step(),
            ("text", Some(part)) => out.message(
                Role::Assistant,
                None,
                part.text.unwrap_or_default(),
                at(record.timestamp),
            ),
            ("reasoning", Some(part)) => out.message(
                Role::Assistant,
                Some(Phase::Thinking),
                part.text.unwrap_or_default(),
                at(record.timestamp),
            ),
            ("tool_use", Some(part)) => tool(part, record.timestamp, out),
            ("step_finish", Some(part)) => {
                if let Some(tokens) = &part.tokens {
                    out.add_usage(tokens.to_token_usage());
                }
                if let Some(cost) = part.cost.filter(|cost| cost.is_finite()) {
                    out.add_cost(cost);
                }
            }
            ("error", _) => match provider_error(record.error.unwrap_or_default()) {
                Some((status, message)) => out.provider_error(status, message),
                None => self.json.keep_raw(line, at(record.timestamp), out),
            },
            _ => self.json.keep_raw(line, at(record.timestamp), out),
        }
    }
}

/// A tool part: its call and result, and the command, file read or skill it stands for.
fn tool(part: Part<'_>, timestamp: Option<f64>, out: &mut ReportBuilder) {
    let name = part.tool.unwrap_or_default();
    let state = part.state.unwrap_or_default();
    let id = part.call_id.as_deref();
    let span = state.time.unwrap_or_default();
    let started = at(span.start.or(timestamp));
    let ended = at(span.end.or(timestamp));
    let input = |key: &str| {
        state
            .input
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let (command, workdir, path, skill) = match name.as_ref() {
        "bash" => (input("command"), input("workdir"), None, None),
        "read" => (None, None, input("filePath"), None),
        "skill" => (None, None, None, input("name")),
        _ => (None, None, None, None),
    };
    let exit = state.metadata.and_then(|metadata| metadata.exit);
    out.tool_call(id, &name, state.input, started.clone());
    match state.status.as_deref() {
        Some("completed") => {
            let failed = command.is_some() && exit.is_some_and(|code| code != 0);
            out.tool_result(id, state.output.unwrap_or_default(), failed, ended);
        }
        Some("error") => out.tool_result(id, state.error.unwrap_or_default(), true, ended),
        _ => {}
    }
    if let Some(command) = command {
        let workdir = workdir.filter(|dir| !dir.is_empty()).map(PathBuf::from);
        out.shell_command(id, &command, exit, workdir.as_deref(), started.clone());
    }
    if let Some(path) = path {
        out.file_read(id, &path, None, started.clone());
    }
    if let Some(skill) = skill {
        out.skill_signal(id, &skill, started);
    }
}

/// The provider error an `error` record reports, if it is the provider's.
fn provider_error(error: ErrorInfo) -> Option<(Option<u16>, String)> {
    let name = error.name.unwrap_or_default();
    let data = error.data.unwrap_or_default();
    if !is_provider_error(&name) && data.status_code.is_none() {
        return None;
    }
    let message = data
        .message
        .or(error.message)
        .filter(|m| !m.trim().is_empty());
    let message = match message {
        Some(message) => message,
        None if name == "ProviderModelNotFoundError" => format!(
            "Model not found: {}/{}",
            data.provider_id.unwrap_or_default(),
            data.model_id.unwrap_or_default()
        ),
        None => name,
    };
    let (status, message) = api_error::parse(&message);
    Some((data.status_code.or(status), message))
}

#[cfg(test)]
mod tests {
    //! What only OpenCode does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::test_support::{self, env, scratch, spec, strings, tool_results};
    use crate::normalize::Normalized;
    use skillgym::{Confidence, TokenCount};
    use std::fs;

    fn normalize(stream: &str) -> Normalized {
        let mut parser = Opencode::new(AgentOptions::default()).parser();
        test_support::normalize(&mut *parser, stream)
    }

    fn calls(report: &skillgym::SessionReport) -> Vec<(&str, &str, Value, Option<&str>)> {
        report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::ToolCall { id, tool, args, at } => Some((
                    id.as_deref().unwrap(),
                    tool.as_str(),
                    args.clone(),
                    at.as_deref(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn maps_reasoning_skills_failures_and_cache() {
        let lines = [
            r#"{"type":"step_start","timestamp":1000,"sessionID":"ses_1","part":{"type":"step-start"}}"#,
            r#"{"type":"reasoning","timestamp":1001,"sessionID":"ses_1","part":{"type":"reasoning","text":"Use the skill."}}"#,
            r#"{"type":"tool_use","timestamp":1002,"sessionID":"ses_1","part":{"type":"tool","tool":"skill","callID":"c1","state":{"status":"completed","input":{"name":"find-skills"},"output":"<skill>…</skill>","time":{"start":1001,"end":1002}}}}"#,
            r#"{"type":"tool_use","timestamp":1003,"sessionID":"ses_1","part":{"type":"tool","tool":"bash","callID":"c2","state":{"status":"completed","input":{"command":"cat references/x.md","workdir":"skills/find-skills","description":"Read"},"output":"cat: no such file","metadata":{"exit":1},"time":{"start":1002,"end":1003}}}}"#,
            r#"{"type":"tool_use","timestamp":1004,"sessionID":"ses_1","part":{"type":"tool","tool":"read","callID":"c3","state":{"status":"error","input":{"filePath":"missing.md"},"error":"File not found","time":{"start":1003,"end":1004}}}}"#,
            r#"{"type":"step_finish","timestamp":1005,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls","tokens":{"total":1200,"input":200,"output":50,"reasoning":30,"cache":{"read":900,"write":20}},"cost":0.012}}"#,
            r#"{"type":"step_start","timestamp":1006,"sessionID":"ses_1","part":{"type":"step-start"}}"#,
            r#"{"type":"text","timestamp":1007,"sessionID":"ses_1","part":{"type":"text","text":"Found it."}}"#,
            r#"{"type":"step_finish","timestamp":1008,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","tokens":{"input":100,"output":10,"reasoning":0,"cache":{"read":1100,"write":0}},"cost":0.003}}"#,
            r#"{"type":"file","timestamp":1009,"sessionID":"ses_1","part":{"type":"file"}}"#,
        ];
        let normalized = normalize(&lines.join("\n"));
        let report = &normalized.report;
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.session_id.as_deref(), Some("ses_1"));
        assert_eq!(normalized.steps, 2);
        assert_eq!(
            calls(report)
                .iter()
                .map(|(id, tool, _, _)| (*id, *tool))
                .collect::<Vec<_>>(),
            [("c1", "skill"), ("c2", "bash"), ("c3", "read")]
        );
        assert_eq!(
            tool_results(report),
            [
                ("c1", "skill", "<skill>…</skill>", false),
                ("c2", "bash", "cat: no such file", true),
                ("c3", "read", "File not found", true),
            ]
        );
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Command { command, exit_code: Some(1), .. } if command == "cat references/x.md"
        )));
        assert!(
            report.file_reads().is_empty(),
            "the cat exited 1 and the read failed"
        );
        let skill = report.skill("find-skills").expect("skill signal");
        assert_eq!(skill.confidence, Confidence::Explicit);
        assert_eq!(report.final_output, "Found it.");
        assert_eq!(report.usage.reasoning_chars, 14);
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(2320)));
        assert_eq!(report.usage.output_tokens, Some(TokenCount::provider(60)));
        assert_eq!(
            report.usage.reasoning_tokens,
            Some(TokenCount::provider(30))
        );
        assert_eq!(report.usage.cache_tokens, Some(TokenCount::provider(2000)));
        assert_eq!(report.usage.total_tokens, Some(TokenCount::derived(410)));
        assert!((report.usage.cost_usd.unwrap() - 0.015).abs() < 1e-12);
        assert!(matches!(
            report.events.last(),
            Some(SessionEvent::Raw { value, at: Some(at) })
                if value["type"] == "file" && at == "1970-01-01T00:00:01.009Z"
        ));
    }

    #[test]
    fn error_records() {
        let parse = |line: &str| {
            normalize(line)
                .provider_error
                .map(|e| (e.status, e.message))
        };
        assert_eq!(
            parse(
                r#"{"type":"error","sessionID":"s","error":{"name":"ProviderModelNotFoundError","data":{"providerID":"mock","modelID":"nope","suggestions":[]}}}"#
            ),
            Some((None, "Model not found: mock/nope".to_owned()))
        );
        assert_eq!(
            parse(
                r#"{"type":"error","error":{"name":"APIError","data":{"message":"{\"error\":{\"message\":\"Rate limited\"}}","statusCode":429,"isRetryable":true}}}"#
            ),
            Some((Some(429), "Rate limited".to_owned()))
        );
        assert_eq!(
            parse(
                r#"{"type":"error","error":{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"No API key"}}}"#
            ),
            Some((None, "No API key".to_owned()))
        );
        let unknown = normalize(
            r#"{"type":"error","sessionID":"s","error":{"name":"UnknownError","data":{"message":"Unexpected server error. Check server logs for details.","ref":"err_1"}}}"#,
        );
        assert!(unknown.provider_error.is_none());
        assert!(matches!(
            &unknown.report.events[..],
            [SessionEvent::Raw { value, .. }] if value["error"]["name"] == "UnknownError"
        ));
    }

    #[test]
    fn collect_finds_the_logged_model_rejection() {
        let tmp = scratch("opencode", "collect");
        let dir = tmp.path();
        let state = dir.join("state");
        let prompt_file = dir.join("prompt.md");
        let spec = spec("opencode", &prompt_file, &state, dir);
        fs::write(
            dir.join("stderr.log"),
            "timestamp=2026-11-22T06:02:35.100Z level=ERROR run=1 message=\"title failed\" error=\"Title: x\"\n\
             timestamp=2026-11-22T06:02:35.208Z level=ERROR run=b7270593 message=failed ref=err_218fa2b9 \
             error=\"ProviderModelNotFoundError: Model not found: mock/nonexistent.\" \
             cause=\"ProviderModelNotFoundError: Model not found: mock/nonexistent.\\n    at <anonymous>\"\n",
        )
        .unwrap();
        let opencode = Opencode::new(AgentOptions::new("mock/nonexistent"));
        let unknown = r#"{"type":"error","timestamp":1795327355211,"sessionID":"ses_x","error":{"name":"UnknownError","data":{"message":"Unexpected server error. Check server logs for details.","ref":"err_218fa2b9"}}}"#;

        let mut out = ReportBuilder::new("/w");
        opencode.parser().parse_line(unknown, &mut out);
        opencode.collect(&spec, &mut out);
        let error = out.current_provider_error().expect("provider error");
        assert_eq!(error.status, None);
        assert_eq!(error.message, "Model not found: mock/nonexistent.");
        assert!(error.is_rejection());

        // No error in the stream: the log is not consulted.
        let mut out = ReportBuilder::new("/w");
        opencode.collect(&spec, &mut out);
        assert!(out.current_provider_error().is_none());

        // No log at all.
        fs::remove_file(dir.join("stderr.log")).unwrap();
        let mut out = ReportBuilder::new("/w");
        opencode.parser().parse_line(unknown, &mut out);
        opencode.collect(&spec, &mut out);
        assert!(out.current_provider_error().is_none());
        assert!(out.current_session_file().is_none());
        tmp.close().unwrap();
    }

    #[test]
    fn reads_logged_errors() {
        assert_eq!(
            logged_error(r#"level=ERROR error="APIError: bad \"x\" request" cause="y""#),
            Some(("APIError", r#"bad \"x\" request"#))
        );
        assert_eq!(logged_error(r#"level=WARN error="APIError: x""#), None);
        assert_eq!(logged_error(r#"level=ERROR error="no name here""#), None);
        assert_eq!(
            logged_error(r#"level=ERROR error="Trunc: ated"#),
            Some(("Trunc", "ated"))
        );
    }

    #[test]
    fn survives_garbage() {
        let long = format!(
            "{{\"type\":\"text\",\"sessionID\":\"s\",\"part\":{{\"text\":\"{}\"}}}}",
            "é".repeat(3_000_000)
        );
        let lines = [
            "not json",
            "{\"type\":\"tool_use\",\"part\":{\"tool\":",
            r#"{"type":"tool_use","part":{"tool":"bash","state":{"status":"completed","input":"ls","output":7}}}"#,
            r#"{"type":"tool_use","part":{"tool":"bash","state":{"input":{"command":"ls"}}}}"#,
            r#"{"type":"tool_use"}"#,
            r#"{"type":"step_finish","part":{"tokens":{"input":-5}}}"#,
            r#"{"type":"text","timestamp":-1,"part":{"text":"t"}}"#,
            r#"{"type":"error"}"#,
            "\u{FFFD}",
            long.as_str(),
        ];
        let normalized = normalize(&lines.join("\n"));
        let report = &normalized.report;
        // (A negative token figure is not a warning: it only reads as absent.)
        assert_eq!(report.warnings.len(), 4, "{:?}", report.warnings);
        assert!(report.usage.input_tokens.is_none());
        assert_eq!(report.commands().collect::<Vec<_>>(), ["ls"]);
        // Kept with its head and tail (see `normalize::caps`).
        assert!(report.final_output.starts_with("éé"));
        assert!(report.final_output.len() < 70_000);
        assert!(normalized.provider_error.is_none());
    }

    /// The four private XDG directories; the prompt after `--`, even when it looks like an
    /// option; the Claude Code compatibility and default plugins left on.
    #[test]
    fn launches_in_private_xdg_directories() {
        let tmp = scratch("opencode", "launch");
        let dir = tmp.path();
        let state = dir.join("state");
        let prompt_file = dir.join("prompt.md");
        let opencode = Opencode::new(AgentOptions::default().user_home(dir.join("home")));
        let dashed = SessionSpec {
            prompt: "-x Run echo hello",
            ..spec("opencode", &prompt_file, &state, dir)
        };
        let launch = opencode.launch(&dashed).unwrap();
        assert!(
            strings(&launch.args).ends_with(&["--", "-x Run echo hello"]),
            "{:?}",
            launch.args
        );
        let xdg = state.join("xdg");
        for (key, dir) in [
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_STATE_HOME", "state"),
            ("XDG_CACHE_HOME", "cache"),
        ] {
            assert_eq!(env(&launch, key), xdg.join(dir).to_str(), "{key}");
            assert!(xdg.join(dir).is_dir());
        }
        assert_eq!(env(&launch, "OPENCODE_DISABLE_CLAUDE_CODE"), None);
        assert_eq!(env(&launch, "OPENCODE_DISABLE_DEFAULT_PLUGINS"), None);
        tmp.close().unwrap();
    }

    /// The key variable of the model's provider comes first, when OpenCode knows it.
    #[test]
    fn setup_names_the_key_of_the_models_provider() {
        let opencode = Opencode::new(AgentOptions::new("anthropic/claude-x").user_home("/home/u"));
        assert_eq!(
            opencode.setup().auth,
            [
                AuthSource::Env("ANTHROPIC_API_KEY".into()),
                AuthSource::Env("OPENCODE_AUTH_CONTENT".into()),
                AuthSource::File("/home/u/.local/share/opencode/auth.json".into()),
                AuthSource::File("/home/u/.config/opencode/opencode.json".into()),
                AuthSource::File("/home/u/.config/opencode/opencode.jsonc".into()),
                AuthSource::File("/home/u/.config/opencode/config.json".into()),
            ]
        );
        let custom = Opencode::new(AgentOptions::new("mock/m").user_home("/home/u")).setup();
        assert_eq!(
            custom.auth[0],
            AuthSource::Env("OPENCODE_AUTH_CONTENT".into())
        );
    }
}
