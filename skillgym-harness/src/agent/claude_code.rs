//! Claude Code (`claude`, npm `@anthropic-ai/claude-code`; verified with 2.1.332, 2.1.330 and 2.1.197).
//!
//! | what | how |
//! |---|---|
//! | command | `claude [agent.args] -p --output-format stream-json --verbose --dangerously-skip-permissions [--model M] PROMPT` (stream-json needs `--verbose`) |
//! | resume (`explain`) | `claude [agent.args] -p -r ID --fork-session --output-format stream-json --verbose --dangerously-skip-permissions [--model M] QUESTION`, same cwd and state directory; `--fork-session` (the real-agent tier resumes with it) leaves the original session as it was, so every question starts from it |
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
    answered_by_spec!();

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
    //! What only Claude Code does; the checks every adapter shares are in `agent/tests.rs`.

    use super::*;
    use crate::agent::test_support::{self, env, fixture, scratch, spec};
    use crate::normalize::Normalized;
    use skillgym::UsageSource;

    fn normalize(stream: &str) -> Normalized {
        let mut parser = ClaudeCode::new(AgentOptions::new("claude-opus-5-5")).parser();
        test_support::normalize(&mut *parser, stream)
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

    /// The seeded login loses its refresh tokens; as root the session is a sandbox.
    #[test]
    fn seeds_the_login_without_refresh_tokens_and_is_a_sandbox_as_root() {
        let tmp = scratch("claude-code", "launch");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(home.join(".claude")).unwrap();
        let login = r#"{"claudeAiOauth":{"accessToken":"at","refreshToken":"rt","expiresAt":1}}"#;
        fs::write(home.join(".claude/.credentials.json"), login).unwrap();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let agent = ClaudeCode::new(AgentOptions::new("claude-sonnet-4-6").user_home(&home));
        let session = spec("claude", dir, &state, &artifacts);
        let launch = agent.command(&session, None, false).unwrap();
        let config = state.join("claude");
        assert_eq!(launch.seeded.files(), [config.join(".credentials.json")]);
        let copied = fs::read_to_string(config.join(".credentials.json")).unwrap();
        let copied: Value = serde_json::from_str(&copied).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"claudeAiOauth": {"accessToken": "at", "expiresAt": 1}})
        );
        assert_eq!(
            fs::read_to_string(home.join(".claude/.credentials.json")).unwrap(),
            login,
            "the user's file stays as it is"
        );
        assert_eq!(env(&launch, "IS_SANDBOX"), None);
        drop(launch);

        let as_root = agent.command(&session, None, true).unwrap();
        assert_eq!(env(&as_root, "IS_SANDBOX"), Some("1"));
        drop(as_root);
        let real = agent.launch(&session).unwrap();
        assert_eq!(env(&real, "IS_SANDBOX").is_some(), is_root());
        drop(real);
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
}
