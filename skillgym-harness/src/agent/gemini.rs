//! Gemini CLI (`gemini`, npm `@google/gemini-cli`; verified with 0.61.0).
//!
//! | what | how |
//! |---|---|
//! | command | `gemini [agent.args] -p PROMPT --output-format stream-json --yolo [-m M]` |
//! | resume (`explain`) | `gemini [agent.args] --resume ID -p QUESTION --output-format stream-json --yolo [-m M]`, same cwd (sessions are kept per project) and state directory (verified: the session id stays the same) |
//! | state | `GEMINI_CLI_HOME=<state dir>/gemini-home`: Gemini puts its `.gemini` directory there instead of in `$HOME` (verified: nothing is written to `$HOME`). `HOME` itself is untouched, so git and other tools keep the user's identity. The user's skills, extensions, commands, memory and history stay out |
//! | auth | `.gemini/settings.json` (the selected auth type), `oauth_creds.json`, `google_accounts.json`, `gemini-credentials.json` (encrypted-file storage) and `.gemini/.env` seeded from `$GEMINI_CLI_HOME` or `~`; `GEMINI_API_KEY`, `GOOGLE_API_KEY`, `GOOGLE_APPLICATION_CREDENTIALS` and Vertex variables are inherited |
//! | env | `GEMINI_CLI_TRUST_WORKSPACE=true` (a fresh workspace is untrusted: Gemini would exit 55), `GEMINI_TELEMETRY_ENABLED=false`; the session's `settings.json` gets `privacy.usageStatisticsEnabled=false` and `general.disableAutoUpdate=true` |
//! | provider | `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, and `security.auth.selectedType: gemini-api-key` in the session's `settings.json` (without it Gemini 0.61 exits 41); `GOOGLE_API_KEY` and the Vertex/Code Assist switches removed; the sign-in is not seeded |
//! | collect | `.gemini/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl` → `<artifact dir>/session.jsonl` |
//!
//! The stream is one JSON object per line:
//!
//! | record | maps to |
//! |---|---|
//! | `init` | session id (`session_id`) |
//! | `message` | `role: user` → user message; `role: assistant` → assistant text, consecutive `delta: true` chunks joined into one message |
//! | `tool_use` | tool call (`tool_id`, `tool_name`, `parameters`); `run_shell_command` → command (`command`, in `dir_path` when given; Gemini does not report exit codes); `read_file` → file read (`file_path`); `read_many_files` → a file read per `include` entry that is not a glob; `activate_skill` → skill signal (`name`) |
//! | `tool_result` | tool result (`output`, or `error.message` when `status: error`) |
//! | `result` | usage (`stats`, the session total): `input_tokens` includes cached input, `cached` is cache reads, reasoning is `thoughts` when given, else `total_tokens − input_tokens − output_tokens` (thinking tokens, which Gemini counts in the total only); `status: error` with an `[API Error: …]` message is the provider error (status from the JSON body); other errors are kept raw |
//! | `error` (warnings, invalid streams) | kept raw |
//!
//! Steps: a model round starts at the first `tool_use` or assistant message after the start,
//! a user message or a tool result. Gemini streams no thinking text.
//! `agent.env` may set `GEMINI_CLI_HOME` to use a directory of the user's choosing instead
//! (nothing is seeded or changed there).

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};
use skillgym::Role;

use super::api_error;
use super::lenient::{Count, ErrorMessage, Flag, Obj, Text};
use super::options::set_env;
use super::spec::{AgentSpec, StateSpec};
use super::{Agent, AgentOptions, AgentSetup, Launch, SessionSpec, StreamParser, isolation};
use crate::config::{AgentKind, WireApi};
use crate::normalize::{JsonLine, ReportBuilder, TokenUsage};

const HOME_VAR: &str = "GEMINI_CLI_HOME";
/// The user's own home for Gemini below the home, when `$GEMINI_CLI_HOME` is not set: the home
/// itself.
const USER_DIR: &str = "";

/// Gemini CLI as data: the user's `.gemini` sign-in and settings are seeded into a private
/// `GEMINI_CLI_HOME` (with a provider endpoint the sign-in stays home).
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::GeminiCli,
    name: "gemini-cli",
    build: |options| std::sync::Arc::new(GeminiCli::new(options)),
    wire_apis: &[WireApi::Gemini],
    example_model: "gemini-2.5-pro",
    contacts: &["Google (the Gemini API or Code Assist, and its sign-in)"],
    npm_at_start: None,
    program: "gemini",
    install: "npm install -g @google/gemini-cli",
    auth_env: &[
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ],
    auth_help: "Set GEMINI_API_KEY (or GOOGLE_API_KEY, or Vertex AI variables), or sign in once \
                with `gemini` (skillgym copies ~/.gemini/settings.json, oauth_creds.json and \
                google_accounts.json into each session).",
    state: Some(StateSpec {
        var: HOME_VAR,
        private: "gemini-home",
        user: USER_DIR,
        seed: &[
            ".gemini/settings.json",
            ".gemini/oauth_creds.json",
            ".gemini/google_accounts.json",
            ".gemini/gemini-credentials.json",
            ".gemini/.env",
        ],
        seed_with_endpoint: &[],
        auth_files: &[
            ".gemini/oauth_creds.json",
            ".gemini/gemini-credentials.json",
            ".gemini/.env",
        ],
        skill_dirs: &[".gemini/skills", ".agents/skills"],
        created_by_agent: false,
    }),
    fixed_env: &[
        ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
        ("GEMINI_TELEMETRY_ENABLED", "false"),
    ],
    project_skills: ".gemini/skills",
    home_skills: false,
    version: super::version::DASH_DASH_VERSION,
};

/// Runs the Gemini CLI headlessly with a private `GEMINI_CLI_HOME`.
#[derive(Debug, Clone)]
pub struct GeminiCli {
    options: AgentOptions,
}

impl GeminiCli {
    /// An adapter with the runner's options.
    pub fn new(options: AgentOptions) -> Self {
        GeminiCli { options }
    }

    /// The home (holding `.gemini`) the session uses.
    fn gemini_home(&self, session: &SessionSpec<'_>) -> PathBuf {
        SPEC.state_dir(&self.options, session)
            .map(|state| state.dir)
            .unwrap_or_default()
    }

    fn command(&self, session: &SessionSpec<'_>, resume: Option<&str>) -> io::Result<Launch> {
        let provider = session.endpoint(&self.options);
        let state = SPEC.prepare_state(&self.options, session)?;
        if let Some(state) = state.as_ref().filter(|state| state.private) {
            isolation::create_dirs([state.dir.join(".gemini").as_path()])?;
            // A base URL alone makes Gemini CLI 0.61 pick the "gateway" auth type and exit 41.
            let auth_type = provider.map(|_| "gemini-api-key");
            quiet_settings(&state.dir.join(".gemini/settings.json"), auth_type)?;
        }
        let mut launch = SPEC.start_launch(&self.options, session, state.as_ref())?;
        if let Some(id) = resume {
            launch.args.extend(["--resume".into(), id.into()]);
        }
        launch.args.extend(["-p".into(), session.prompt.into()]);
        launch
            .args
            .extend(["--output-format", "stream-json", "--yolo"].map(OsString::from));
        if let Some(model) = &self.options.model {
            launch.args.extend(["-m".into(), model.into()]);
        }
        launch.seeded = state.map(|state| state.seeded).unwrap_or_default();
        let mut launch = self.options.finish_launch(launch);
        // Set last: `agent.env` cannot send the session elsewhere.
        if let Some(provider) = provider {
            set_env(&mut launch, "GOOGLE_GEMINI_BASE_URL", &provider.base_url);
            set_env(
                &mut launch,
                "GEMINI_API_KEY",
                provider.key_value(&self.options.env),
            );
            // These would select Vertex AI or Code Assist instead of the key.
            launch.env_remove.extend(
                [
                    "GOOGLE_API_KEY",
                    "GOOGLE_GENAI_USE_VERTEXAI",
                    "GOOGLE_GENAI_USE_GCA",
                ]
                .map(OsString::from),
            );
        }
        Ok(launch)
    }
}

impl Agent for GeminiCli {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> io::Result<Launch> {
        self.command(session, None)
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(GeminiParser::default())
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let tmp = self.gemini_home(session).join(".gemini/tmp");
        let suffix = out
            .current_session_id()
            .map(|id| format!("-{}", id.chars().take(8).collect::<String>()));
        let wanted = |path: &Path| {
            let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
                return false;
            };
            let Some(stem) = name
                .strip_suffix(".jsonl")
                .or_else(|| name.strip_suffix(".json"))
            else {
                return false;
            };
            stem.starts_with("session-")
                && path.parent().and_then(Path::file_name) == Some("chats".as_ref())
                && suffix
                    .as_deref()
                    .is_none_or(|suffix| stem.ends_with(suffix))
        };
        let Some(file) = isolation::newest_file(&tmp, &wanted) else {
            return;
        };
        let name = if file.extension().is_some_and(|ext| ext == "json") {
            "session.json"
        } else {
            "session.jsonl"
        };
        match isolation::copy_session_file(&file, session.artifact_dir, name) {
            Ok(path) => out.session_file(path),
            Err(error) => out.warn(error.to_string()),
        }
    }

    fn resume(&self, session: &SessionSpec<'_>, session_id: &str) -> Option<io::Result<Launch>> {
        Some(self.command(session, Some(session_id)))
    }

    fn setup(&self) -> AgentSetup {
        SPEC.setup(&self.options, Vec::new(), self.refusals())
    }
}

impl GeminiCli {
    /// Endpoint settings Gemini CLI refuses: a base URL without the `gemini-api-key` auth type
    /// selected in `settings.json` exits 41 ("Invalid auth method selected").
    fn refusals(&self) -> Vec<String> {
        let fix = "configure the endpoint as `agent.provider: { base_url: …, api_key_env: … }`, \
                   which selects that auth type in the session's settings";
        let selects_key = |home: PathBuf| {
            fs::read_to_string(home.join(".gemini/settings.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .is_some_and(|settings| {
                    settings.pointer("/security/auth/selectedType")
                        == Some(&Value::from("gemini-api-key"))
                })
        };
        let own_home = self.options.env_dir(HOME_VAR);
        match (&self.options.provider, own_home) {
            // skillgym writes nothing into a home the runner chose itself.
            (Some(_), Some(home)) if !selects_key(home.clone()) => vec![format!(
                "agent.env sets {HOME_VAR}, where skillgym writes nothing, and its \
                 .gemini/settings.json does not select `gemini-api-key`: Gemini CLI would exit 41 \
                 (\"Invalid auth method selected\")\n      select it there, or drop {HOME_VAR} from agent.env"
            )],
            (None, _) => {
                let Some(origin) = self.options.env_origin("GOOGLE_GEMINI_BASE_URL") else {
                    return Vec::new();
                };
                let home = self.options.user_dir(HOME_VAR, USER_DIR);
                if home.is_some_and(selects_key) {
                    return Vec::new();
                }
                vec![format!(
                    "GOOGLE_GEMINI_BASE_URL is set ({origin}), but without `security.auth.selectedType: \
                     gemini-api-key` in settings.json Gemini CLI exits 41 (\"Invalid auth method \
                     selected\")\n      {fix}"
                )]
            }
            _ => Vec::new(),
        }
    }
}

/// Turns off usage statistics and update checks in the session's `settings.json` (a copy of
/// the user's, or a new file), and selects `auth_type` when given. A file that is not a JSON
/// object (comments) is left as it is.
fn quiet_settings(path: &Path, auth_type: Option<&str>) -> io::Result<()> {
    let mut settings = match fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(settings)) => settings,
            _ => return Ok(()),
        },
        Err(error) if error.kind() == io::ErrorKind::NotFound => Map::new(),
        Err(error) => return Err(error),
    };
    for (section, key, value) in [
        ("privacy", "usageStatisticsEnabled", false),
        ("general", "disableAutoUpdate", true),
    ] {
        let entry = settings
            .entry(section)
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Value::Object(section) = entry {
            section.insert(key.to_owned(), Value::Bool(value));
        }
    }
    if let Some(auth_type) = auth_type {
        settings.insert(
            "security".to_owned(),
            serde_json::json!({"auth": {"selectedType": auth_type}}),
        );
    }
    fs::write(path, serde_json::to_vec_pretty(&settings)?)
}

/// One line of Gemini's `stream-json` output (every record type in one struct).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    timestamp: Text<'a>,
    #[serde(borrow)]
    session_id: Text<'a>,
    #[serde(borrow)]
    role: Text<'a>,
    #[serde(borrow)]
    content: Text<'a>,
    delta: Flag,
    #[serde(borrow)]
    tool_name: Text<'a>,
    #[serde(borrow)]
    tool_id: Text<'a>,
    parameters: Option<Value>,
    #[serde(borrow)]
    status: Text<'a>,
    #[serde(borrow)]
    output: Text<'a>,
    #[serde(borrow)]
    error: ErrorMessage<'a>,
    stats: Obj<Stats>,
}

/// `result.stats`: the session's token totals.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Stats {
    input_tokens: Count,
    output_tokens: Count,
    cached: Count,
    total_tokens: Count,
    thoughts: Count,
}

impl Stats {
    fn usage(&self) -> TokenUsage {
        let input = self.input_tokens.count();
        let output = self.output_tokens.count();
        let reasoning = self.thoughts.count().or_else(|| {
            let total = self.total_tokens.count()?;
            total
                .checked_sub(input?.checked_add(output?)?)
                .filter(|thoughts| *thoughts > 0)
        });
        TokenUsage {
            input,
            output,
            reasoning,
            cache_read: self.cached.count(),
        }
    }
}

/// Parses Gemini's `--output-format stream-json`.
#[derive(Debug, Default)]
struct GeminiParser {
    lines: JsonLine,
    /// Assistant text being joined from delta chunks, with the time of the first.
    text: Option<(String, Option<String>)>,
    /// Whether a model round is under way.
    in_round: bool,
}

impl StreamParser for GeminiParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        let Some(record) = self.lines.parse::<Record<'_>>(line, out) else {
            return;
        };
        let kind = record.kind.or_empty();
        let at = record.timestamp.0.as_deref().map(str::to_owned);
        let assistant = kind == "message" && record.role.get() == Some("assistant");
        if !(assistant && record.delta.is_true()) {
            self.flush_text(out);
        }
        match kind {
            "init" => {
                if let Some(id) = record.session_id.get() {
                    out.session_id(id);
                }
            }
            "message" if assistant => {
                self.round(out);
                let content = record.content.into_string();
                if record.delta.is_true() {
                    match &mut self.text {
                        Some((text, _)) => text.push_str(&content),
                        None => self.text = Some((content, at)),
                    }
                } else {
                    out.message(Role::Assistant, None, content, at);
                }
            }
            "message" if record.role.get() == Some("user") => {
                self.in_round = false;
                out.message(Role::User, None, record.content.into_string(), at);
            }
            "tool_use" => {
                self.round(out);
                tool_use(record, at, out);
            }
            "tool_result" => {
                self.in_round = false;
                let failed = record.status.get() == Some("error");
                let output = match record.error.get() {
                    Some(message) if failed => message.to_owned(),
                    _ => record.output.into_string(),
                };
                out.tool_result(record.tool_id.get(), output, failed, at);
            }
            "result" => {
                if let Some(stats) = &record.stats.0 {
                    out.set_usage(stats.usage());
                }
                if record.status.get() == Some("error") {
                    match record.error.get().and_then(api_error_result) {
                        Some((status, message)) => out.provider_error(status, message),
                        None => self.lines.keep_raw(line, at, out),
                    }
                }
            }
            _ => self.lines.keep_raw(line, at, out),
        }
    }

    fn finish(&mut self, out: &mut ReportBuilder) {
        self.flush_text(out);
    }
}

impl GeminiParser {
    /// Counts a model round when one starts.
    fn round(&mut self, out: &mut ReportBuilder) {
        if !self.in_round {
            self.in_round = true;
            out.step();
        }
    }

    fn flush_text(&mut self, out: &mut ReportBuilder) {
        if let Some((text, at)) = self.text.take() {
            out.message(Role::Assistant, None, text, at);
        }
    }
}

fn tool_use(record: Record<'_>, at: Option<String>, out: &mut ReportBuilder) {
    let tool = record.tool_name.or_empty();
    let args = record.parameters.unwrap_or(Value::Null);
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    let id = record.tool_id.get();
    match tool {
        "run_shell_command" => {
            if let Some(command) = text("command") {
                let workdir = text("dir_path")
                    .or_else(|| text("directory"))
                    .map(Path::new);
                out.shell_command(id, command, None, workdir, at.clone());
            }
        }
        "read_file" => {
            if let Some(path) = text("file_path")
                .or_else(|| text("absolute_path"))
                .or_else(|| text("path"))
            {
                out.file_read(id, path, None, at.clone());
            }
        }
        "read_many_files" => {
            let paths = args
                .get("include")
                .or_else(|| args.get("paths"))
                .and_then(Value::as_array);
            for path in paths.into_iter().flatten().filter_map(Value::as_str) {
                if !path.contains(['*', '?', '[', '{']) {
                    out.file_read(id, path, None, at.clone());
                }
            }
        }
        "activate_skill" | "skill" => {
            if let Some(skill) = text("name").or_else(|| text("skill")) {
                out.skill_signal(id, skill, at.clone());
            }
        }
        _ => {}
    }
    out.tool_call(id, tool, args, at);
}

/// The status and message of an `[API Error: …]` result; `None` for other errors. The text
/// ends at the bracket that closes it (a rate-limit hint may follow; a bracket with a `}` after
/// it stands inside a JSON body) and loses Gemini's `(Status: INTERNAL)` suffix.
fn api_error_result(text: &str) -> Option<(Option<u16>, String)> {
    let inner = text.trim().strip_prefix("[API Error:")?;
    let inner = match inner.rfind(']') {
        Some(end) if !inner[end..].contains('}') => &inner[..end],
        _ => inner,
    }
    .trim();
    let inner = match inner.rfind(" (Status: ") {
        Some(start) if inner.ends_with(')') => &inner[..start],
        _ => inner,
    };
    Some(api_error::parse(inner))
}

#[cfg(test)]
mod tests {
    //! What only Gemini CLI does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::options::ProcessEnv;
    use crate::agent::test_support::{self, scratch, spec};
    use crate::normalize::Normalized;
    use skillgym::{Confidence, SessionEvent, SessionReport, TokenCount};

    /// The harness's own environment in these tests: `GEMINI_CLI_HOME` names another directory, which
    /// an explicit `user_home` overrides (it stands for the whole user).
    fn harness_env() -> ProcessEnv {
        ProcessEnv::fixed([(HOME_VAR, "/elsewhere")])
    }

    fn normalize(stream: &str) -> Normalized {
        let mut parser = GeminiCli::new(AgentOptions::new("gemini-2.5-pro")).parser();
        test_support::normalize(&mut *parser, stream)
    }

    fn messages(report: &SessionReport) -> Vec<(Role, String)> {
        report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Message { role, text, .. } => Some((*role, text.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn maps_skills_workdirs_errors_deltas_and_thinking_tokens() {
        // Shapes captured from gemini 0.61.0 against a scripted mock (paths shortened).
        let parsed = normalize(concat!(
            r#"{"type":"init","timestamp":"2026-11-22T06:07:56.344Z","session_id":"e6cf","model":"gemini-2.5-pro"}"#,
            "\n",
            r#"{"type":"message","timestamp":"2026-11-22T06:07:56.346Z","role":"user","content":"Run things"}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"Let me ","delta":true}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"look.","delta":true}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"s1","parameters":{"command":"pwd; cat a.txt","dir_path":"sub","description":"x"}}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"activate_skill","tool_id":"k1","parameters":{"name":"demo"}}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"s1","status":"success","output":"/w/sub\nhi"}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"k1","status":"success","output":"Skill **demo** activated."}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"read_many_files","tool_id":"m1","parameters":{"include":["skills/demo/SKILL.md","sub/*.txt"]}}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"read_file","tool_id":"r1","parameters":{"file_path":"nope.txt"}}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"m1","status":"success","output":"ok"}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"r1","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: /home/dev/demo/wd/nope.txt"}}"#,
            "\n",
            r#"{"type":"error","severity":"warning","message":"Agent execution blocked: x"}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"do","delta":true}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"ne","delta":true}"#,
            "\n",
            r#"{"type":"result","status":"success","stats":{"total_tokens":560,"input_tokens":500,"output_tokens":25,"cached":200,"input":300,"duration_ms":393,"tool_calls":4}}"#,
        ));
        let report = &parsed.report;
        assert_eq!(parsed.steps, 3);
        assert_eq!(report.session_id.as_deref(), Some("e6cf"));
        assert_eq!(report.commands().collect::<Vec<_>>(), ["pwd; cat a.txt"]);
        assert_eq!(
            report.file_reads(),
            [
                Path::new("/home/dev/demo/wd/sub/a.txt"),
                Path::new("/home/dev/demo/wd/skills/demo/SKILL.md"),
            ]
        );
        assert_eq!(
            report.skill("demo").map(|skill| skill.confidence),
            Some(Confidence::Explicit)
        );
        assert_eq!(
            messages(report),
            [
                (Role::User, "Run things".into()),
                (Role::Assistant, "Let me look.".into()),
                (Role::Assistant, "done".into()),
            ]
        );
        assert_eq!(report.final_output, "done");
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::ToolResult { id: Some(id), is_error: true, output, .. }
                if id == "r1" && output == "File not found: /home/dev/demo/wd/nope.txt"
        )));
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Raw { value, .. } if value["type"] == "error"
        )));
        let usage = &report.usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(500)));
        assert_eq!(usage.cache_tokens, Some(TokenCount::provider(200)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(25)));
        assert_eq!(usage.reasoning_tokens, Some(TokenCount::provider(35)));
        assert_eq!(usage.total_tokens, Some(TokenCount::derived(360)));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn other_errors_are_not_provider_errors() {
        let parsed = normalize(concat!(
            r#"{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"},"stats":{"input_tokens":1,"output_tokens":2}}"#,
            "\n",
            "garbage\n",
            r#"{"type":"message","role":"assistant","content":"cut"#,
        ));
        assert!(parsed.provider_error.is_none());
        assert!(parsed.report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Raw { value, .. } if value["error"]["type"] == "FatalTurnLimitedError"
        )));
        assert_eq!(
            parsed.report.warnings.len(),
            2,
            "{:?}",
            parsed.report.warnings
        );
        assert_eq!(
            parsed.report.usage.output_tokens,
            Some(TokenCount::provider(2))
        );
    }

    #[test]
    fn api_errors_are_unwrapped() {
        let error = |text| api_error_result(text);
        assert_eq!(
            error(
                r#"[API Error: {"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}]"#
            ),
            Some((Some(404), "models/x is not found".to_owned()))
        );
        assert_eq!(
            error(
                r#"[API Error: got status: 429 Too Many Requests. {"error":{"message":"quota"}}]
Possible quota limitations in place."#
            ),
            Some((Some(429), "quota".to_owned()))
        );
        assert_eq!(
            error("[API Error: Model stream ended unexpectedly (Status: INTERNAL)]"),
            Some((None, "Model stream ended unexpectedly".to_owned()))
        );
        assert_eq!(
            error("[API Error: 500 Internal error]"),
            Some((Some(500), "Internal error".to_owned()))
        );
        // A bracket inside the body does not end the text.
        assert_eq!(
            error(r#"[API Error: {"error":{"details":[],"message":"cut"}}"#),
            Some((None, "cut".to_owned()))
        );
        assert_eq!(error("Reached max session turns"), None);
    }

    /// The session's `settings.json`: a copy of the user's with usage statistics and update
    /// checks off and the user's auth choice kept, or the switches alone; settings with comments
    /// are left as they are.
    #[test]
    fn settings_turn_off_statistics_and_updates() {
        let tmp = scratch("gemini", "settings");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(home.join(".gemini")).unwrap();
        fs::write(
            home.join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"oauth-personal"}},"privacy":{"usageStatisticsEnabled":true}}"#,
        )
        .unwrap();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let session = spec("gemini", dir, &state, &artifacts);
        let agent = GeminiCli::new(
            AgentOptions::default()
                .process_env(harness_env())
                .user_home(&home),
        );
        let launch = agent.launch(&session).unwrap();
        let settings_path = state.join("gemini-home/.gemini/settings.json");
        let settings: Value =
            serde_json::from_str(&fs::read_to_string(&settings_path).unwrap()).unwrap();
        assert_eq!(settings["privacy"]["usageStatisticsEnabled"], false);
        assert_eq!(settings["general"]["disableAutoUpdate"], true);
        assert_eq!(
            settings["security"]["auth"]["selectedType"], "oauth-personal",
            "the user's auth choice is kept"
        );
        drop(launch);

        let bare = dir.join("bare-state");
        let agent = GeminiCli::new(
            AgentOptions::default()
                .process_env(harness_env())
                .user_home(dir.join("nohome")),
        );
        let launch = agent
            .launch(&spec("gemini", dir, &bare, &artifacts))
            .unwrap();
        assert!(launch.seeded.is_empty());
        let settings = fs::read_to_string(bare.join("gemini-home/.gemini/settings.json")).unwrap();
        assert!(settings.contains("usageStatisticsEnabled"));

        let commented = state.join("commented.json");
        fs::write(&commented, "// mine\n{}").unwrap();
        quiet_settings(&commented, None).unwrap();
        assert_eq!(fs::read_to_string(&commented).unwrap(), "// mine\n{}");
        tmp.close().unwrap();
    }
}
