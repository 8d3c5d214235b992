//! Claude Code (`claude`, npm `@anthropic-ai/claude-code`; verified with 2.1.332, 2.1.330 and 2.1.197).
//!
//! | what | how |
//! |---|---|
//! | command | `claude [agent.args] -p --output-format stream-json --verbose --dangerously-skip-permissions [--model M] PROMPT` (stream-json needs `--verbose`) |
//! | resume (`explain`) | `claude [agent.args] -p -r ID --fork-session --output-format stream-json --verbose --dangerously-skip-permissions [--model M] QUESTION`, same cwd and state directory; `--fork-session` (help text only, not run) leaves the original session as it was, so every question starts from it |
//! | state | `CLAUDE_CONFIG_DIR=<state dir>/claude`: settings, `.claude.json`, CLAUDE.md, skills, plugins and history of the user stay out; the session lands in `<config dir>/projects/<cwd slug>/<session id>.jsonl` |
//! | auth | `.credentials.json` (the Linux login) seeded from `$CLAUDE_CONFIG_DIR` or `~/.claude` **without its refresh tokens**, as Anthropic's agent SDK does for its private config dirs: a copy that refreshed would rotate the user's own login away. An expired login therefore fails the session (run `claude` once to refresh it). `ANTHROPIC_API_KEY`, `CLAUDE_CODE_OAUTH_TOKEN` and cloud-provider variables are inherited |
//! | provider | `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`; `ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN` and the Bedrock/Vertex switches removed; the login is not seeded |
//! | env | `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no telemetry, title request or update check: cleaner token counts), `DISABLE_AUTOUPDATER=1`, `IS_SANDBOX=1` when running as root (otherwise `--dangerously-skip-permissions` is refused) |
//! | collect | the project session file → `<artifact dir>/session.jsonl` |
//! | stream | see [`claude_stream`](super::claude_stream): `Bash` → commands, `Read` → file reads (`file_path`), `Skill` → skill signals (`skill`, else `name`); one step per assistant message id; `result` gives final output, usage (input counts cache reads and writes, thinking tokens move to reasoning) and cost |
//!
//! `agent.env` may set `CLAUDE_CONFIG_DIR` to use a directory of the user's choosing instead
//! (nothing is seeded then).

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::claude_stream::{CLAUDE_CODE, ClaudeStreamParser, collect_session_file};
use super::options::set_env;
use super::provider;
use super::spec::{AgentSpec, StateSpec};
use super::{Agent, AgentOptions, AgentSetup, Launch, SessionSpec, StreamParser};
use crate::config::{AgentKind, WireApi};
use crate::normalize::ReportBuilder;

/// Claude Code as data.
pub(super) const SPEC: AgentSpec = AgentSpec {
    kind: AgentKind::ClaudeCode,
    name: "claude-code",
    build: |options| std::sync::Arc::new(ClaudeCode::new(options)),
    wire_apis: &[WireApi::Anthropic],
    example_model: "claude-sonnet-4-6",
    contacts: &["Anthropic's API (the login's)"],
    npm_at_start: None,
    program: "claude",
    install: "npm install -g @anthropic-ai/claude-code",
    auth_env: &[
        "ANTHROPIC_API_KEY",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ],
    auth_help: "Log in once with `claude` (skillgym copies ~/.claude/.credentials.json, without \
                its refresh token, into each session; run `claude` again when the login has \
                expired), or set ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN from `claude \
                setup-token`.",
    state: Some(StateSpec {
        var: "CLAUDE_CONFIG_DIR",
        private: "claude",
        user: ".claude",
        seed: &[".credentials.json"],
        seed_with_endpoint: &[],
        auth_files: &[".credentials.json"],
        skill_dirs: &["skills"],
        created_by_agent: true,
    }),
    fixed_env: &[
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
    ],
    project_skills: ".claude/skills",
    home_skills: false,
    version: super::version::VersionSpec {
        args: &["--version"],
        stream: Some(super::version::StreamVersion {
            record: "system",
            subtype: "init",
            field: "claude_code_version",
        }),
    },
};
/// Variables removed when a provider endpoint is configured: they would take precedence over
/// its key or route requests to a cloud provider.
const PROVIDER_OVERRIDES: [&str; 4] = [
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
];

/// Runs Claude Code headlessly with a private config directory.
#[derive(Debug, Clone)]
pub struct ClaudeCode {
    options: AgentOptions,
}

impl ClaudeCode {
    /// An adapter with the runner's options.
    pub fn new(options: AgentOptions) -> Self {
        ClaudeCode { options }
    }

    /// The config directory the session uses.
    fn config_dir(&self, session: &SessionSpec<'_>) -> PathBuf {
        SPEC.state_dir(&self.options, session)
            .map(|state| state.dir)
            .unwrap_or_default()
    }

    fn command(
        &self,
        session: &SessionSpec<'_>,
        resume: Option<&str>,
        root: bool,
    ) -> io::Result<Launch> {
        let provider = session.endpoint(&self.options);
        // A provider endpoint takes an API key: the user's Anthropic login stays home.
        let state = SPEC.prepare_state(&self.options, session)?;
        for path in state.iter().flat_map(|state| state.seeded.files()) {
            strip_refresh_tokens(path)?;
        }
        let mut launch = SPEC.start_launch(&self.options, session, state.as_ref())?;
        launch.args.push("-p".into());
        if let Some(id) = resume {
            launch
                .args
                .extend(["-r".into(), id.into(), "--fork-session".into()]);
        }
        launch.args.extend(
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
            ]
            .map(OsString::from),
        );
        if let Some(model) = &self.options.model {
            launch.args.extend(["--model".into(), model.into()]);
        }
        launch.args.push(session.prompt.into());
        if root {
            set_env(&mut launch, "IS_SANDBOX", "1");
        }
        launch.seeded = state.map(|state| state.seeded).unwrap_or_default();
        let mut launch = self.options.finish_launch(launch);
        // Set last: `agent.env` cannot send the session elsewhere.
        if let Some(provider) = provider {
            set_env(&mut launch, "ANTHROPIC_BASE_URL", &provider.base_url);
            set_env(
                &mut launch,
                "ANTHROPIC_API_KEY",
                provider.key_value(&self.options.env),
            );
            // Other credentials would win over the key, or send requests elsewhere.
            launch
                .env_remove
                .extend(PROVIDER_OVERRIDES.map(OsString::from));
        }
        Ok(launch)
    }
}

impl Agent for ClaudeCode {
    fn kind(&self) -> &str {
        SPEC.name()
    }

    fn model(&self) -> Option<&str> {
        self.options.model.as_deref()
    }

    fn wire_api(&self) -> Option<WireApi> {
        provider::wire_api(AgentKind::ClaudeCode, &self.options)
    }

    fn launch(&self, session: &SessionSpec<'_>) -> io::Result<Launch> {
        self.command(session, None, is_root())
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ClaudeStreamParser::new(&CLAUDE_CODE))
    }

    fn collect(&self, session: &SessionSpec<'_>, out: &mut ReportBuilder) {
        let projects = self.config_dir(session).join("projects");
        let top_level =
            |path: &Path| path.parent().and_then(Path::parent) == Some(projects.as_path());
        collect_session_file(out, &projects, session.artifact_dir, &top_level);
    }

    fn resume(&self, session: &SessionSpec<'_>, session_id: &str) -> Option<io::Result<Launch>> {
        Some(self.command(session, Some(session_id), is_root()))
    }

    fn can_resume(&self) -> bool {
        true
    }

    fn version_command(&self, scratch: &std::path::Path) -> Option<Launch> {
        Some(SPEC.version_command(&self.options, scratch))
    }

    fn setup(&self) -> AgentSetup {
        SPEC.setup(&self.options, Vec::new(), Vec::new())
    }
}

/// Whether skillgym runs as root, where Claude Code refuses `--dangerously-skip-permissions`
/// unless `IS_SANDBOX=1`.
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Removes `refreshToken` from the OAuth entries of a credentials file; a file that is not a
/// JSON object is left as it is.
fn strip_refresh_tokens(path: &Path) -> io::Result<()> {
    let text = fs::read_to_string(path)?;
    let Ok(Value::Object(mut root)) = serde_json::from_str::<Value>(&text) else {
        return Ok(());
    };
    let mut changed = false;
    for key in ["claudeAiOauth", "hybridOauth"] {
        if let Some(Value::Object(oauth)) = root.get_mut(key) {
            changed |= oauth.remove("refreshToken").is_some();
        }
    }
    if changed {
        fs::write(path, serde_json::to_vec(&root)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::agent::AuthSource;

    const CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";

    use super::*;
    use crate::agent::options::ProcessEnv;
    use crate::agent::test_support::{
        self, PROMPT, env, fixture, mode, scratch, spec, tool_calls, tool_results,
    };
    use crate::normalize::Normalized;
    use skillgym::{SessionEvent, TokenCount, UsageSource};

    /// The harness's own environment in these tests: `CLAUDE_CONFIG_DIR` names another directory, which
    /// an explicit `user_home` overrides (it stands for the whole user).
    fn harness_env() -> ProcessEnv {
        ProcessEnv::fixed([(CONFIG_DIR, "/elsewhere")])
    }

    fn normalize(stream: &str) -> Normalized {
        let mut parser = ClaudeCode::new(AgentOptions::new("claude-opus-5-5")).parser();
        test_support::normalize(&mut *parser, stream)
    }

    /// Checks what the three mock rounds have in common (shell, read, final text).
    fn assert_mock_session(parsed: &Normalized, session_id: &str, tool_ids: [&str; 2]) {
        let report = &parsed.report;
        assert_eq!(parsed.steps, 3);
        assert!(parsed.provider_error.is_none());
        assert_eq!(report.session_id.as_deref(), Some(session_id));
        assert_eq!(report.commands().collect::<Vec<_>>(), ["echo hello"]);
        assert_eq!(
            report.file_reads(),
            [Path::new("/home/dev/demo/wd/SKILL.md")]
        );
        let calls = tool_calls(report);
        assert_eq!(calls.len(), 2);
        assert_eq!((calls[0].0, calls[0].1), (tool_ids[0], "Bash"));
        assert_eq!(calls[0].2["command"], "echo hello");
        assert_eq!((calls[1].0, calls[1].1), (tool_ids[1], "Read"));
        assert_eq!(calls[1].2["file_path"], "/home/dev/demo/wd/SKILL.md");
        let results = tool_results(report);
        assert_eq!(results.len(), 2);
        assert_eq!(results[0], (tool_ids[0], "Bash", "hello", false));
        assert_eq!((results[1].0, results[1].1), (tool_ids[1], "Read"));
        assert!(results[1].2.contains("The secret word is pineapple."));
        assert!(
            report.detected_skills.is_empty(),
            "the SKILL.md read sits at the workspace root and its file is gone: it names no skill"
        );
        assert_eq!(report.final_output, "done");
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Raw { value, .. } if value["subtype"] == "init"
        )));
        assert_eq!(report.usage.reasoning_chars, 0);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn normalizes_the_captured_session() {
        let parsed = normalize(&fixture("claude-code.jsonl"));
        assert_mock_session(
            &parsed,
            "3558f9a7-12e9-4f56-91bc-92c692237100",
            ["toolu_mock_06b29267bba24df8", "toolu_mock_3cf9c7fddd2f4b05"],
        );
        let usage = &parsed.report.usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(37877)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(21)));
        assert_eq!(usage.reasoning_tokens, Some(TokenCount::provider(0)));
        assert_eq!(usage.cache_tokens, Some(TokenCount::provider(0)));
        assert_eq!(usage.total_tokens, Some(TokenCount::derived(37898)));
        assert_eq!(usage.cost_usd, Some(0.151928));
        // Timestamps come from the records.
        assert!(parsed.report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Command { at: Some(at), .. } if at == "2026-11-22T03:07:26.452Z"
        )));
    }

    #[test]
    fn normalizes_the_older_2_1_197_session() {
        let parsed = normalize(&fixture("claude-code-2.1.197.jsonl"));
        assert_mock_session(
            &parsed,
            "98a509ea-64c7-4199-9067-4e9913096a5e",
            ["toolu_mock_521a85ae63ec4c58", "toolu_mock_29728cff606349af"],
        );
        let usage = &parsed.report.usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(58639)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(21)));
        assert_eq!(
            usage.reasoning_tokens, None,
            "2.1.197 reports no thinking tokens"
        );
        assert_eq!(usage.total_tokens.map(|count| count.value), Some(58660));
        assert_eq!(usage.cost_usd, Some(0.29372));
    }

    #[test]
    fn partial_messages_do_not_double_count() {
        let parsed = normalize(&fixture("claude-code.partial-messages.jsonl"));
        assert_mock_session(
            &parsed,
            "933dd60a-a675-4f08-80ef-f0c81b42e688",
            ["toolu_mock_9ff9546e5a934524", "toolu_mock_a0abaf1506ff4738"],
        );
        let report = &parsed.report;
        assert_eq!(report.usage.input_tokens, Some(TokenCount::provider(37900)));
        assert_eq!(report.usage.output_tokens, Some(TokenCount::provider(21)));
        let messages = report
            .events
            .iter()
            .filter(|event| matches!(event, SessionEvent::Message { .. }))
            .count();
        assert_eq!(messages, 1, "deltas are dropped");
        let raw = report
            .events
            .iter()
            .filter(|event| matches!(event, SessionEvent::Raw { .. }))
            .count();
        assert_eq!(
            raw, 1,
            "only init is kept; status and stream events are dropped"
        );
    }

    #[test]
    fn a_provider_error_ends_the_session() {
        let parsed = normalize(&fixture("claude-code.error-400.jsonl"));
        let error = parsed.provider_error.expect("provider error");
        assert_eq!(error.status, Some(400));
        assert_eq!(error.message, "mock: forced error 400");
        assert!(error.is_rejection());
        assert_eq!(
            parsed.steps, 0,
            "the synthetic error message is no model round"
        );
        let report = &parsed.report;
        assert_eq!(
            report.session_id.as_deref(),
            Some("ea29dee0-6163-49ac-8975-c9e983687478")
        );
        assert_eq!(report.final_output, "");
        assert_eq!(report.commands().count(), 0);
        // Claude prints zeros and a cost of 0 for it: unknown, not nothing.
        assert_eq!(report.usage.input_tokens, None);
        assert_eq!(report.usage.cost_usd, None);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn message_usage_counts_cache_as_input_when_the_result_is_missing() {
        let fixture = &fixture("claude-code.jsonl");
        let cut: Vec<&str> = fixture.lines().take(6).collect();
        let with_cache = cut
            .join("\n")
            .replace(
                "\"cache_read_input_tokens\":0",
                "\"cache_read_input_tokens\":1000",
            )
            .replace(
                "\"cache_creation_input_tokens\":0",
                "\"cache_creation_input_tokens\":10",
            );
        let parsed = normalize(&with_cache);
        let usage = &parsed.report.usage;
        assert_eq!(parsed.steps, 3);
        assert_eq!(
            usage.input_tokens.map(|count| (count.value, count.source)),
            Some((12543 + 12616 + 12718 + 3 * 1010, UsageSource::Provider))
        );
        assert_eq!(usage.cache_tokens.map(|count| count.value), Some(3000));
        assert_eq!(usage.output_tokens.map(|count| count.value), Some(3));
        assert_eq!(usage.cost_usd, None);
        assert_eq!(
            parsed.report.final_output, "done",
            "the last text stands in"
        );
    }

    #[test]
    fn launches_headless_with_a_private_config_dir() {
        let tmp = scratch("claude-code", "launch");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(home.join(".claude/skills/x")).unwrap();
        fs::write(
            home.join(".claude/.credentials.json"),
            r#"{"claudeAiOauth":{"accessToken":"at","refreshToken":"rt","expiresAt":1}}"#,
        )
        .unwrap();
        fs::write(home.join(".claude/settings.json"), "{}").unwrap();
        fs::write(home.join(".claude/CLAUDE.md"), "instructions").unwrap();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let agent = ClaudeCode::new(
            AgentOptions::new("claude-sonnet-4-6")
                .process_env(harness_env())
                .args(["--bare"])
                .env("DISABLE_AUTOUPDATER", "0")
                .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:8765")
                .user_home(&home),
        );
        let session = spec("claude", dir, &state, &artifacts);
        let launch = agent.command(&session, None, false).unwrap();
        assert_eq!(launch.program, "claude");
        assert_eq!(
            launch.args,
            [
                "--bare",
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
                "--model",
                "claude-sonnet-4-6",
                PROMPT,
            ]
        );
        let config = state.join("claude");
        assert_eq!(launch.seeded.files(), [config.join(".credentials.json")]);
        let copied = fs::read_to_string(config.join(".credentials.json")).unwrap();
        let copied: Value = serde_json::from_str(&copied).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"claudeAiOauth": {"accessToken": "at", "expiresAt": 1}})
        );
        let mode = mode(&launch.seeded.files()[0]);
        assert_eq!(mode, 0o600);
        assert!(
            home.join(".claude/.credentials.json").exists(),
            "the user's file stays"
        );
        assert!(!config.join("settings.json").exists());
        assert!(!config.join("CLAUDE.md").exists());
        assert!(!config.join("skills").exists());
        assert_eq!(env(&launch, CONFIG_DIR), config.to_str());
        assert_eq!(
            env(&launch, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"),
            Some("1")
        );
        assert_eq!(
            env(&launch, "DISABLE_AUTOUPDATER"),
            Some("0"),
            "agent.env wins"
        );
        assert_eq!(
            env(&launch, "ANTHROPIC_BASE_URL"),
            Some("http://127.0.0.1:8765")
        );
        assert_eq!(env(&launch, "IS_SANDBOX"), None);

        let as_root = agent.command(&session, None, true).unwrap();
        assert_eq!(env(&as_root, "IS_SANDBOX"), Some("1"));
        let real = agent.launch(&session).unwrap();
        assert_eq!(env(&real, "IS_SANDBOX").is_some(), is_root());
        tmp.close().unwrap();
    }

    #[test]
    fn nothing_is_seeded_without_a_login_or_with_a_chosen_config_dir() {
        let tmp = scratch("claude-code", "unseeded");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(&home).unwrap();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let session = spec("claude", dir, &state, &artifacts);
        let agent = ClaudeCode::new(
            AgentOptions::default()
                .process_env(harness_env())
                .user_home(&home),
        );
        let launch = agent.command(&session, None, false).unwrap();
        assert!(launch.seeded.is_empty());
        assert!(!launch.args.iter().any(|arg| arg == "--model"));
        // Claude Code creates its config directory itself: with nothing to seed, none is made.
        assert_eq!(env(&launch, CONFIG_DIR), state.join("claude").to_str());
        assert!(!state.join("claude").exists());

        let chosen = dir.join("chosen");
        let agent = ClaudeCode::new(
            AgentOptions::default()
                .process_env(harness_env())
                .env(CONFIG_DIR, chosen.display().to_string())
                .user_home(&home),
        );
        let launch = agent.command(&session, None, false).unwrap();
        assert!(launch.seeded.is_empty());
        assert_eq!(env(&launch, CONFIG_DIR), chosen.to_str());
        assert!(!chosen.exists(), "the user's directory is left alone");
        tmp.close().unwrap();
    }

    #[test]
    fn credentials_that_are_not_json_are_copied_as_they_are() {
        let tmp = scratch("claude-code", "opaque");
        let dir = tmp.path();
        fs::write(dir.join(".credentials.json"), "opaque").unwrap();
        strip_refresh_tokens(&dir.join(".credentials.json")).unwrap();
        assert_eq!(
            fs::read_to_string(dir.join(".credentials.json")).unwrap(),
            "opaque"
        );
        tmp.close().unwrap();
    }

    #[test]
    fn resumes_by_forking_the_session() {
        let tmp = scratch("claude-code", "resume");
        let dir = tmp.path();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let agent = ClaudeCode::new(
            AgentOptions::new("opus")
                .command("/opt/claude")
                .user_home(dir.join("home")),
        );
        let mut session = spec("claude", dir, &state, &artifacts);
        session.prompt = "Why did you read SKILL.md?";
        let launch = agent.resume(&session, "sess-1").unwrap().unwrap();
        assert_eq!(launch.program, "/opt/claude");
        assert_eq!(
            launch.args,
            [
                "-p",
                "-r",
                "sess-1",
                "--fork-session",
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
                "--model",
                "opus",
                "Why did you read SKILL.md?",
            ]
        );
        assert_eq!(env(&launch, CONFIG_DIR), state.join("claude").to_str());
        tmp.close().unwrap();
    }

    #[test]
    fn collects_the_project_session_file() {
        let tmp = scratch("claude-code", "collect");
        let dir = tmp.path();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let project = state.join("claude/projects/-home-dev-demo-wd");
        fs::create_dir_all(project.join("sess-1/subagents")).unwrap();
        fs::create_dir_all(&artifacts).unwrap();
        fs::write(project.join("sess-1.jsonl"), "{\"type\":\"user\"}\n").unwrap();
        fs::write(project.join("sess-1/subagents/agent-a.jsonl"), "sub").unwrap();
        let agent = ClaudeCode::new(AgentOptions::default());
        let session = spec("claude", dir, &state, &artifacts);

        let mut out = ReportBuilder::new("/home/dev/demo/wd");
        out.session_id("sess-1");
        agent.collect(&session, &mut out);
        let copied = artifacts.join("session.jsonl");
        assert_eq!(out.current_session_file(), Some(copied.as_path()));
        assert_eq!(
            fs::read_to_string(&copied).unwrap(),
            "{\"type\":\"user\"}\n"
        );

        fs::remove_file(&copied).unwrap();
        let mut out = ReportBuilder::new("/home/dev/demo/wd");
        agent.collect(&session, &mut out);
        assert_eq!(
            out.current_session_file(),
            Some(copied.as_path()),
            "no id: newest top-level file"
        );
        assert_eq!(
            fs::read_to_string(&copied).unwrap(),
            "{\"type\":\"user\"}\n"
        );

        let mut out = ReportBuilder::new("/home/dev/demo/wd");
        out.session_id("other");
        fs::remove_file(&copied).unwrap();
        agent.collect(&session, &mut out);
        assert!(out.current_session_file().is_none());
        assert!(
            out.finish("p").warnings.is_empty(),
            "a missing file is normal"
        );
        tmp.close().unwrap();
    }

    #[test]
    fn setup_names_program_and_auth() {
        let agent = ClaudeCode::new(
            AgentOptions::default()
                .process_env(harness_env())
                .user_home("/home/u"),
        );
        let setup = agent.setup();
        assert_eq!(setup.program, "claude");
        assert_eq!(setup.version_args, ["--version"]);
        assert!(setup.install.contains("@anthropic-ai/claude-code"));
        assert!(
            setup
                .auth
                .contains(&AuthSource::Env("ANTHROPIC_API_KEY".into()))
        );
        assert!(setup.auth.contains(&AuthSource::File(
            "/home/u/.claude/.credentials.json".into()
        )));
        assert!(!setup.auth_help.is_empty());
        assert_eq!(agent.kind(), "claude-code");
    }
}
