//! Qwen Code (`qwen`, npm `@qwen-code/qwen-code`; verified with 0.24.4 and 0.15.10).
//!
//! | what | how |
//! |---|---|
//! | command | `qwen [agent.args] --output-format stream-json --yolo [-m M] PROMPT` (the positional prompt is one-shot; `-p` is deprecated) |
//! | resume (`explain`) | `qwen [agent.args] --output-format stream-json --yolo [-m M] -r ID QUESTION`, same cwd and state directory (the real-agent tier resumes with it; the question is appended to the original chat) |
//! | state | `QWEN_HOME` and `QWEN_RUNTIME_DIR` = `<state dir>/qwen`: the user's skills, memory (QWEN.md), extensions, MCP servers, hooks and history stay out; the chat lands in `<qwen dir>/projects/<cwd slug>/chats/<session id>.jsonl` |
//! | auth | from `$QWEN_HOME` or `~/.qwen`: `oauth_creds.json` and `.env` copied as they are (Qwen OAuth needs its refresh token), `settings.json` rewritten to its auth and provider keys only (`security.auth`, `model`, `modelProviders`, `fastModel`, `env`, `proxy`, the v1 `selectedAuthType`/`useExternalAuth`/`contentGenerator`, `$version`); environment keys (`OPENAI_API_KEY`, …) are inherited |
//! | provider | `--auth-type openai --openai-base-url URL`, the key in `OPENAI_API_KEY` (the environment alone exits 1: "No auth type is selected"); nothing seeded, the session's `settings.json` holds only the off-switches |
//! | off-switches | in that `settings.json`: `privacy.usageStatisticsEnabled=false`, `telemetry.enabled=false`, `general.enableAutoUpdate=false`; env `QWEN_TELEMETRY_ENABLED=false` |
//! | collect | the chat file → `<artifact dir>/session.jsonl` |
//! | stream | Claude-Code-shaped stream-json, see [`claude_stream`](super::claude_stream): `run_shell_command` → commands (`directory` as workdir; the exit code from 0.24.4 on: an error result's `Exit Code: N` line, else 0), `read_file` → file reads (`file_path`), `skill` → skill signals; `input_tokens` already includes cached input and `output_tokens` includes reasoning (Qwen does not split it out); API errors arrive as `[API Error: …]` text or an `is_error` result with `error.message` |
//!
//! `agent.env` may set `QWEN_HOME` to use a directory of the user's choosing instead (nothing is
//! seeded then).

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::claude_stream::{ClaudeStreamParser, QWEN_CODE, collect_session_file};
use super::options::set_env;
use super::spec::{AgentSpec, StateSpec};
use super::{Agent, AgentOptions, AgentSetup, AuthSource, Launch, SessionSpec, StreamParser};
use crate::config::{AgentKind, WireApi};
use crate::normalize::ReportBuilder;

const SETTINGS: &str = "settings.json";

/// Qwen Code as data: `oauth_creds.json` and `.env` are seeded into a private `QWEN_HOME`
/// (with a provider endpoint the user's logins stay home); the session's `settings.json` keeps
/// only the user's auth and provider keys. Qwen also reads `~/.agents/skills`: a private home.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::QwenCode,
    name: "qwen-code",
    build: |options| std::sync::Arc::new(QwenCode::new(options)),
    wire_apis: &[WireApi::OpenaiChat],
    example_model: "qwen3-coder-plus",
    contacts: &["the provider its settings select"],
    npm_at_start: None,
    program: "qwen",
    install: "npm install -g @qwen-code/qwen-code",
    auth_env: &[],
    auth_help: "Run `qwen auth` (API key, Coding Plan, OpenRouter or Qwen OAuth), which selects \
                an auth type in ~/.qwen/settings.json; OPENAI_API_KEY and OPENAI_BASE_URL alone \
                make Qwen exit 1 (\"No auth type is selected\"). For an OpenAI-compatible \
                endpoint, configure `agent.provider` instead.",
    state: Some(StateSpec {
        var: "QWEN_HOME",
        private: "qwen",
        user: ".qwen",
        seed: &["oauth_creds.json", ".env"],
        seed_with_endpoint: &[],
        auth_files: &[],
        skill_dirs: &["skills"],
        created_by_agent: false,
    }),
    fixed_env: &[("QWEN_TELEMETRY_ENABLED", "false")],
    project_skills: ".qwen/skills",
    home_skills: true,
    version: super::version::VersionSpec {
        args: &["--version"],
        stream: Some(super::version::StreamVersion {
            record: "system",
            subtype: "init",
            field: "qwen_code_version",
        }),
    },
};

/// The top-level keys of the user's `settings.json` that carry auth and provider setup.
const KEPT_SETTINGS: &[&str] = &[
    "$version",
    "model",
    "modelProviders",
    "fastModel",
    "env",
    "proxy",
    "selectedAuthType",
    "useExternalAuth",
    "contentGenerator",
];

/// Runs Qwen Code headlessly with a private `QWEN_HOME`.
#[derive(Debug, Clone)]
pub struct QwenCode {
    options: AgentOptions,
}

impl QwenCode {
    /// An adapter with the runner's options.
    pub fn new(options: AgentOptions) -> Self {
        QwenCode { options }
    }

    fn command(&self, session: &SessionSpec<'_>, resume: Option<&str>) -> io::Result<Launch> {
        let provider = session.endpoint(&self.options);
        let mut state = SPEC.prepare_state(&self.options, session)?;
        if let Some(state) = state.as_mut().filter(|state| state.private) {
            // With a provider endpoint the user's providers stay home.
            let user_settings = SPEC
                .user_dir(&self.options)
                .filter(|_| provider.is_none())
                .and_then(|user| fs::read_to_string(user.join(SETTINGS)).ok());
            let settings = session_settings(user_settings.as_deref());
            // It may hold the user's provider keys: written as a seeded file is.
            state.seeded.write(
                &state.dir.join(SETTINGS),
                &serde_json::to_vec_pretty(&settings)?,
            )?;
        }
        let mut launch = SPEC.start_launch(&self.options, session, state.as_ref())?;
        launch
            .args
            .extend(["--output-format", "stream-json", "--yolo"].map(OsString::from));
        if let Some(model) = &self.options.model {
            launch.args.extend(["-m".into(), model.into()]);
        }
        if let Some(provider) = provider {
            // The environment alone is not enough: Qwen exits 1 with "No auth type is selected".
            launch.args.extend(
                [
                    "--auth-type",
                    "openai",
                    "--openai-base-url",
                    &provider.base_url,
                ]
                .map(OsString::from),
            );
        }
        if let Some(id) = resume {
            launch.args.extend(["-r".into(), id.into()]);
        }
        launch.args.push(session.prompt.into());
        if let Some(state) = &state {
            set_env(&mut launch, "QWEN_RUNTIME_DIR", &state.dir);
        }
        launch.seeded = state.map(|state| state.seeded).unwrap_or_default();
        let mut launch = self.options.finish_launch(launch);
        // Set last: `agent.env` cannot hand the session another key.
        if let Some(provider) = provider {
            set_env(
                &mut launch,
                "OPENAI_API_KEY",
                provider.key_value(&self.options.env),
            );
        }
        Ok(launch)
    }
}

impl Agent for QwenCode {
    answered_by_spec!();

    fn launch(&self, session: &SessionSpec<'_>) -> io::Result<Launch> {
        self.command(session, None)
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ClaudeStreamParser::new(&QWEN_CODE))
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let Some(state) = SPEC.state_dir(&self.options, session) else {
            return;
        };
        let projects = state.dir.join("projects");
        let in_chats = |path: &Path| {
            path.parent()
                .and_then(Path::file_name)
                .is_some_and(|name| name == "chats")
        };
        collect_session_file(out, &projects, session.artifact_dir, &in_chats);
    }

    fn resume(&self, session: &SessionSpec<'_>, session_id: &str) -> Option<io::Result<Launch>> {
        Some(self.command(session, Some(session_id)))
    }

    /// Qwen Code needs an auth type selected in its `settings.json` (keys in the environment
    /// alone exit 1: "No auth type is selected").
    fn setup(&self) -> AgentSetup {
        let auth = SPEC
            .user_dir(&self.options)
            .map(|dir| {
                let settings = dir.join(SETTINGS);
                AuthSource::Checked {
                    found: selects_auth_type(&settings),
                    what: format!("{} selects an auth type", settings.display()),
                }
            })
            .into_iter()
            .collect();
        SPEC.setup(&self.options, auth, Vec::new())
    }
}

/// Whether a Qwen `settings.json` selects an auth type (`security.auth.selectedType`, or the
/// first format's `selectedAuthType`).
fn selects_auth_type(path: &Path) -> bool {
    fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&strip_json_comments(&text)).ok())
        .is_some_and(|settings| {
            [
                settings.pointer("/security/auth/selectedType"),
                settings.get("selectedAuthType"),
            ]
            .into_iter()
            .flatten()
            .any(|value| value.as_str().is_some_and(|kind| !kind.is_empty()))
        })
}

/// The session's `settings.json`: the auth and provider keys of the user's settings (comments
/// allowed), with usage statistics, telemetry and auto-update switched off.
fn session_settings(user: Option<&str>) -> Value {
    let user = user
        .and_then(|text| serde_json::from_str::<Value>(&strip_json_comments(text)).ok())
        .and_then(|value| match value {
            Value::Object(object) => Some(object),
            _ => None,
        })
        .unwrap_or_default();
    let mut settings = Map::new();
    for key in KEPT_SETTINGS {
        if let Some(value) = user.get(*key) {
            settings.insert((*key).to_owned(), value.clone());
        }
    }
    if let Some(auth) = user
        .get("security")
        .and_then(|security| security.get("auth"))
    {
        settings.insert("security".to_owned(), json!({ "auth": auth }));
    }
    settings.insert(
        "privacy".to_owned(),
        json!({ "usageStatisticsEnabled": false }),
    );
    settings.insert("telemetry".to_owned(), json!({ "enabled": false }));
    settings.insert("general".to_owned(), json!({ "enableAutoUpdate": false }));
    Value::Object(settings)
}

/// JSON with `//` and `/* */` comments removed (outside strings).
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut previous = '\0';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! What only Qwen Code does; the checks every adapter shares are in `agent/tests.rs`.

    const HOME_VAR: &str = "QWEN_HOME";

    use super::*;
    use crate::agent::options::ProcessEnv;
    use crate::agent::test_support::{env, normalize_in, scratch, spec};
    use skillgym::{Confidence, TokenCount};

    /// The harness's own environment in these tests: `QWEN_HOME` names another directory, which
    /// an explicit `user_home` overrides (it stands for the whole user).
    fn harness_env() -> ProcessEnv {
        ProcessEnv::fixed([(HOME_VAR, "/elsewhere")])
    }

    #[test]
    fn shell_commands_run_in_their_directory_and_skills_are_explicit() {
        let stream = [
            r#"{"type":"assistant","message":{"id":"a","content":[{"type":"thinking","thinking":"Planning: look around","signature":"Planning"},{"type":"tool_use","id":"c1","name":"run_shell_command","input":{"command":"cat SKILL.md","directory":"skills/pdf"}},{"type":"tool_use","id":"c2","name":"skill","input":{"skill":"pdf"}}],"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":60}}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"---"},{"type":"tool_result","tool_use_id":"c2","is_error":false,"content":"loaded"}]}}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":60,"total_tokens":120}}"#,
        ]
        .join("\n");
        let mut parser = QwenCode::new(AgentOptions::default()).parser();
        let normalized = normalize_in(&mut *parser, &stream, "/w", "p");
        let report = normalized.report;
        assert_eq!(report.commands().collect::<Vec<_>>(), ["cat SKILL.md"]);
        assert_eq!(report.file_reads(), [Path::new("/w/skills/pdf/SKILL.md")]);
        let skill = report.skill("pdf").unwrap();
        assert_eq!(skill.confidence, Confidence::Explicit);
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(100)));
        assert_eq!(report.usage.total_tokens, Some(TokenCount::derived(60)));
        assert_eq!(
            report.usage.reasoning_chars,
            "Planning: look around".len() as u64
        );
        assert_eq!(report.final_output, "ok");
    }

    #[test]
    fn comments_are_stripped_outside_strings() {
        assert_eq!(
            strip_json_comments("{\"a\": \"x // y /* z */\", // c\n \"b\": 1 /* d */}"),
            "{\"a\": \"x // y /* z */\", \n \"b\": 1  }"
        );
        assert_eq!(
            strip_json_comments(r#"{"a": "q\"//"}"#),
            r#"{"a": "q\"//"}"#
        );
        assert_eq!(strip_json_comments("/* open"), " ");
    }

    /// The session's `settings.json` keeps the user's auth and providers (comments stripped)
    /// and turns statistics, telemetry and updates off; `QWEN_RUNTIME_DIR` is the private home.
    #[test]
    fn session_settings_keep_only_auth_and_providers() {
        let tmp = scratch("qwen", "launch");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(home.join(".qwen")).unwrap();
        fs::write(
            home.join(".qwen/settings.json"),
            r#"{
              // provider setup
              "$version": 4,
              "security": {"auth": {"selectedType": "openai", "apiKey": "sk-x"}, "folderTrust": {"enabled": true}},
              "modelProviders": {"openai": [{"id": "qwen3-coder", "envKey": "OPENAI_API_KEY"}]},
              "mcpServers": {"srv": {"command": "x"}},
              "hooks": {"PreToolUse": []},
              "privacy": {"usageStatisticsEnabled": true}, /* theirs */
              "env": {"OPENAI_BASE_URL": "http://a//b"}
            }"#,
        )
        .unwrap();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let agent = QwenCode::new(
            AgentOptions::new("qwen3-coder-plus")
                .process_env(harness_env())
                .user_home(&home),
        );
        let launch = agent
            .launch(&spec("qwen", dir, &state, &artifacts))
            .unwrap();
        let qwen = state.join("qwen");
        assert_eq!(env(&launch, "QWEN_RUNTIME_DIR"), qwen.to_str());
        assert_eq!(launch.seeded.files(), [qwen.join(SETTINGS)]);
        let settings: Value =
            serde_json::from_str(&fs::read_to_string(qwen.join(SETTINGS)).unwrap()).unwrap();
        assert_eq!(
            settings,
            json!({
                "$version": 4,
                "security": {"auth": {"selectedType": "openai", "apiKey": "sk-x"}},
                "modelProviders": {"openai": [{"id": "qwen3-coder", "envKey": "OPENAI_API_KEY"}]},
                "env": {"OPENAI_BASE_URL": "http://a//b"},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {"enableAutoUpdate": false},
            })
        );
        drop(launch);
        assert_eq!(
            session_settings(Some("not json")),
            json!({
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {"enableAutoUpdate": false},
            })
        );
        assert_eq!(
            session_settings(Some(r#"{"selectedAuthType": "openai", "theme": "x"}"#))["selectedAuthType"],
            "openai",
            "v1 settings keep their auth keys"
        );
        tmp.close().unwrap();
    }
}
