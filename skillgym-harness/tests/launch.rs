//! Each adapter's real command line, run against a fake binary: a shell script that records
//! its argv, its environment and the files of the agent's state directory while it runs, writes
//! a session file where the real agent would, then replays a captured transcript. Proves the
//! flags, the environment, the isolation directories, the seeding (and removal) of auth files,
//! the copy of the session file, and the normalized report, through `run_session`.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use skillgym_harness::agent::{self, AgentOptions, ApiKey, Provider, SessionSpec};
use skillgym_harness::config::AgentKind;
use skillgym_harness::execute::{SessionLimits, SessionOutput, run_session};

const PROMPT: &str = "Run echo hello, then read SKILL.md";
const SECRET: &str = "secret-token-123";

/// A scratch directory: a fake user home, the workspace, the attempt's artifacts. Removed on
/// drop.
struct Scene {
    root: tempfile::TempDir,
}

impl Scene {
    fn new(label: &str) -> Scene {
        let root = tempfile::Builder::new()
            .prefix(&format!("skillgym-launch-{label}-"))
            .tempdir()
            .unwrap();
        for dir in ["home", "work", "attempt", "record"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        Scene { root }
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn artifacts(&self) -> PathBuf {
        self.root.path().join("attempt")
    }

    fn state(&self) -> PathBuf {
        self.artifacts().join("agent-state")
    }

    /// Writes a file under the fake home.
    fn home_file(&self, relative: &str, content: &str) {
        let path = self.home().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// Runs one session of `kind` whose program is a script doing `session_file` (shell, may
    /// use the agent's variables) and then printing `fixture`.
    fn run(
        &self,
        kind: AgentKind,
        options: AgentOptions,
        session_file: &str,
        fixture: &str,
    ) -> Recorded {
        self.run_limited(kind, options, session_file, fixture, None, None)
    }

    /// [`run`](Self::run) with the session's model endpoint (as a `--mock` run hands it).
    fn run_with_endpoint(
        &self,
        kind: AgentKind,
        options: AgentOptions,
        fixture: &str,
        endpoint: &Provider,
    ) -> Recorded {
        self.run_limited(kind, options, "", fixture, None, Some(endpoint))
    }

    /// [`run`](Self::run) with a `max_steps` limit and a session endpoint. `fixture` is a file
    /// name in the captured transcripts, or an absolute path.
    fn run_limited(
        &self,
        kind: AgentKind,
        options: AgentOptions,
        session_file: &str,
        fixture: &str,
        max_steps: Option<u32>,
        endpoint: Option<&Provider>,
    ) -> Recorded {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts")
            .join(fixture);
        let record = self.root.path().join("record");
        let script = self.root.path().join("fake-agent.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{rec}/argv'\nenv > '{rec}/env'\n\
                 find -L '{state}' -type f | sort > '{rec}/files'\n\
                 find '{state}' -type l | sort > '{rec}/links'\n\
                 find -L '{state}' -type f -exec cat {{}} + > '{rec}/contents'\n\
                 grep -Rl '{SECRET}' '{state}' > '{rec}/secrets'\n\
                 {session_file}\ncat '{fixture}'\n",
                rec = record.display(),
                state = self.state().display(),
                fixture = fixture.display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let agent = agent::build(kind, options.command(&script).user_home(self.home())).unwrap();
        let live_steps = Arc::new(AtomicU32::new(0));
        let limits = SessionLimits {
            timeout: Duration::from_secs(30),
            max_steps,
            max_output: skillgym_harness::config::DEFAULT_MAX_OUTPUT,
            live_steps: Some(Arc::clone(&live_steps)),
            sandbox: None,
            trigger: None,
        };
        let output = self.session(agent.as_ref(), limits, endpoint);
        let read = |name: &str| std::fs::read_to_string(record.join(name)).unwrap_or_default();
        Recorded {
            argv: read("argv").lines().map(str::to_owned).collect(),
            env: read("env")
                .lines()
                .filter_map(|line| line.split_once('='))
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect(),
            files_during: read("files").lines().map(PathBuf::from).collect(),
            links_during: read("links").lines().map(PathBuf::from).collect(),
            contents_during: read("contents"),
            secrets_during: read("secrets"),
            live_steps: live_steps.load(Ordering::Relaxed),
            output,
        }
    }

    /// Runs one session of `agent` in this scene's workspace, state and artifact directories.
    fn session(
        &self,
        agent: &dyn skillgym_harness::Agent,
        limits: SessionLimits,
        endpoint: Option<&Provider>,
    ) -> SessionOutput {
        let prompt_file = self.artifacts().join("prompt.md");
        std::fs::write(&prompt_file, PROMPT).unwrap();
        let (work, state, artifacts) = (
            self.root.path().join("work"),
            self.state(),
            self.artifacts(),
        );
        let spec = SessionSpec {
            runner_id: "runner",
            prompt: PROMPT,
            prompt_file: &prompt_file,
            cwd: &work,
            artifact_dir: &artifacts,
            state_dir: &state,
            provider: endpoint,
            skills: &[],
            env: &[],
        };
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run_session(agent, &spec, limits))
    }

    /// Every file left in the state directory after the session.
    fn state_files_after(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut pending = vec![self.state()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.file_type().unwrap().is_dir() {
                    pending.push(entry.path());
                } else {
                    files.push(entry.path());
                }
            }
        }
        files
    }
}

/// What the fake agent saw, and what the session made of it.
struct Recorded {
    argv: Vec<String>,
    env: HashMap<String, String>,
    files_during: Vec<PathBuf>,
    /// The symbolic links of the state directory.
    links_during: Vec<PathBuf>,
    /// Every file of the state directory, concatenated.
    contents_during: String,
    secrets_during: String,
    /// The model steps the session published as it ran (for the live progress).
    live_steps: u32,
    output: SessionOutput,
}

impl Recorded {
    fn env(&self, key: &str) -> &str {
        self.env
            .get(key)
            .unwrap_or_else(|| panic!("{key} is not set; env: {:?}", self.env.keys()))
    }

    fn has_args(&self, wanted: &[&str]) {
        let found = self
            .argv
            .windows(wanted.len())
            .any(|window| window.iter().zip(wanted).all(|(a, b)| a == b));
        assert!(found, "{wanted:?} not in argv {:?}", self.argv);
    }

    /// The session passed and normalized the replayed transcript.
    fn normalized(&self, commands: &[&str]) {
        let report = &self.output.report;
        assert!(self.output.failure.is_none(), "{:?}", self.output.failure);
        assert_eq!(report.commands().collect::<Vec<_>>(), commands);
        assert_eq!(report.final_output, "done");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }
}

/// The seeded secret was in the state directory during the session (as a link to a copy kept
/// out of the run directory), and is gone after it.
fn seeded_then_removed(scene: &Scene, recorded: &Recorded, seeded: &Path) {
    assert!(
        recorded.files_during.iter().any(|file| file == seeded),
        "{} not seeded; state had {:?}",
        seeded.display(),
        recorded.files_during
    );
    assert!(
        recorded.links_during.iter().any(|file| file == seeded),
        "{} is no link to a private copy; links: {:?}",
        seeded.display(),
        recorded.links_during
    );
    assert!(
        recorded
            .secrets_during
            .lines()
            .any(|file| Path::new(file) == seeded),
        "the secret did not reach the agent in {}: {}",
        seeded.display(),
        recorded.secrets_during
    );
    assert!(
        !seeded.exists(),
        "{} left in the artifacts",
        seeded.display()
    );
    for file in scene.state_files_after() {
        let content = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&content).contains(SECRET),
            "the secret stayed in {}",
            file.display()
        );
    }
}

/// The session file the fake agent wrote was copied to `<artifacts>/session.jsonl`.
fn session_copied(scene: &Scene, recorded: &Recorded, content: &str) {
    let copy = scene.artifacts().join("session.jsonl");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), content);
    assert_eq!(
        recorded.output.report.raw_artifacts.session.as_deref(),
        Some(copy.as_path())
    );
}

fn under(path: &str, dir: &Path) -> PathBuf {
    let path = PathBuf::from(path);
    assert!(
        path.starts_with(dir),
        "{} is not under {}",
        path.display(),
        dir.display()
    );
    path
}

/// What one agent's launch must look like, for the table below.
struct LaunchCase {
    kind: AgentKind,
    model: &'static str,
    /// Extra `agent.env`.
    env: &'static [(&'static str, &'static str)],
    /// The user's login, under the fake home, holding [`SECRET`] (`None`: nothing to seed).
    login: Option<(&'static str, &'static str)>,
    /// A file of the user's own configuration that must not reach the session.
    stays_out: Option<&'static str>,
    /// Shell the fake agent runs first: writes the session file where the real agent would.
    session_file: &'static str,
    /// The transcript it prints, and the commands its report must hold.
    fixture: &'static str,
    commands: &'static [&'static str],
    /// Argument runs the command line must hold (`{prompt}` and `{cwd}` are substituted).
    args: &'static [&'static [&'static str]],
    /// The variable naming the private state directory, and the seeded file below it.
    state: Option<(&'static str, &'static str)>,
    /// Variables every session gets.
    fixed_env: &'static [(&'static str, &'static str)],
    /// What the copied session file holds.
    session: Option<&'static str>,
}

const LAUNCHES: &[LaunchCase] = &[
    LaunchCase {
        kind: AgentKind::ClaudeCode,
        model: "claude-sonnet-4-6",
        env: &[("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")],
        login: Some((
            ".claude/.credentials.json",
            r#"{"claudeAiOauth":{"accessToken":"SECRET","refreshToken":"r","expiresAt":1}}"#,
        )),
        stays_out: Some(".claude/CLAUDE.md"),
        session_file: r#"mkdir -p "$CLAUDE_CONFIG_DIR/projects/-work" && echo session > "$CLAUDE_CONFIG_DIR/projects/-work/3558f9a7-12e9-4f56-91bc-92c692237100.jsonl""#,
        fixture: "claude-code.jsonl",
        commands: &["echo hello"],
        args: &[
            &[
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
            ],
            &["--model", "claude-sonnet-4-6", "{prompt}"],
        ],
        state: Some(("CLAUDE_CONFIG_DIR", ".credentials.json")),
        fixed_env: &[
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
        ],
        session: Some("session\n"),
    },
    LaunchCase {
        kind: AgentKind::Codex,
        model: "gpt-5.5",
        env: &[],
        login: Some((".codex/auth.json", r#"{"OPENAI_API_KEY":"SECRET"}"#)),
        stays_out: Some(".codex/AGENTS.md"),
        session_file: r#"mkdir -p "$CODEX_HOME/sessions/2026/11/22" && echo session > "$CODEX_HOME/sessions/2026/11/22/rollout-2026-11-22T03-07-26-01a20139-2696-7720-9b74-178414dbe828.jsonl""#,
        fixture: "codex.jsonl",
        commands: &["echo hello", "cat SKILL.md"],
        args: &[
            &[
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
            ],
            &["-C", "{cwd}"],
            &["-m", "gpt-5.5"],
            &["--", "{prompt}"],
        ],
        state: Some(("CODEX_HOME", "auth.json")),
        fixed_env: &[],
        session: Some("session\n"),
    },
    LaunchCase {
        kind: AgentKind::Opencode,
        model: "anthropic/claude-sonnet-4-6",
        env: &[],
        login: Some((
            ".local/share/opencode/auth.json",
            r#"{"anthropic":{"key":"SECRET"}}"#,
        )),
        stays_out: None,
        session_file: "",
        fixture: "opencode.jsonl",
        commands: &["echo hello"],
        args: &[
            &[
                "run",
                "--format",
                "json",
                "-m",
                "anthropic/claude-sonnet-4-6",
            ],
            &["--", "{prompt}"],
        ],
        state: Some(("XDG_DATA_HOME", "opencode/auth.json")),
        fixed_env: &[
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_SHARE", "1"),
            ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
            ("OPENCODE_DISABLE_CLAUDE_CODE_PROMPT", "1"),
        ],
        session: None,
    },
    LaunchCase {
        kind: AgentKind::Copilot,
        model: "gpt-5.4",
        env: &[],
        login: Some((
            ".copilot/config.json",
            r#"{"copilot_tokens":{"u":"SECRET"}}"#,
        )),
        stays_out: Some(".copilot/copilot-instructions.md"),
        session_file: r#"mkdir -p "$COPILOT_HOME/session-state/8406a0a8-1a16-4cb4-887c-3a8dda0c8989" && echo session > "$COPILOT_HOME/session-state/8406a0a8-1a16-4cb4-887c-3a8dda0c8989/events.jsonl""#,
        fixture: "copilot.jsonl",
        commands: &["echo hello"],
        args: &[
            &["-p", "{prompt}"],
            &["--model", "gpt-5.4"],
            &[
                "--output-format",
                "json",
                "--allow-all-tools",
                "--no-auto-update",
            ],
        ],
        state: Some(("COPILOT_HOME", "config.json")),
        fixed_env: &[("COPILOT_AUTO_UPDATE", "false"), ("NO_COLOR", "1")],
        session: Some("session\n"),
    },
    LaunchCase {
        kind: AgentKind::GeminiCli,
        model: "gemini-2.5-pro",
        env: &[],
        login: Some((".gemini/oauth_creds.json", r#"{"access_token":"SECRET"}"#)),
        stays_out: Some(".gemini/GEMINI.md"),
        session_file: r#"mkdir -p "$GEMINI_CLI_HOME/.gemini/tmp/work/chats" && echo session > "$GEMINI_CLI_HOME/.gemini/tmp/work/chats/session-2026-11-22T03-08-04c60973.jsonl""#,
        fixture: "gemini-cli.jsonl",
        commands: &["echo hello"],
        args: &[
            &["-p", "{prompt}"],
            &["--output-format", "stream-json", "--yolo"],
            &["-m", "gemini-2.5-pro"],
        ],
        state: Some(("GEMINI_CLI_HOME", ".gemini/oauth_creds.json")),
        fixed_env: &[
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            ("GEMINI_TELEMETRY_ENABLED", "false"),
        ],
        session: Some("session\n"),
    },
    LaunchCase {
        kind: AgentKind::QwenCode,
        model: "qwen3-coder-plus",
        env: &[],
        login: Some((".qwen/oauth_creds.json", r#"{"access_token":"SECRET"}"#)),
        stays_out: Some(".qwen/QWEN.md"),
        session_file: r#"mkdir -p "$QWEN_HOME/projects/-work/chats" && echo session > "$QWEN_HOME/projects/-work/chats/67c72904-085a-43f5-b144-ab4b7b440f76.jsonl""#,
        fixture: "qwen-code.jsonl",
        commands: &["echo hello"],
        args: &[
            &["--output-format", "stream-json", "--yolo"],
            &["-m", "qwen3-coder-plus", "{prompt}"],
        ],
        state: Some(("QWEN_HOME", "oauth_creds.json")),
        fixed_env: &[("QWEN_TELEMETRY_ENABLED", "false")],
        session: Some("session\n"),
    },
    LaunchCase {
        kind: AgentKind::CursorAgent,
        model: "sonnet-4",
        env: &[("CURSOR_API_KEY", "key")],
        login: None,
        stays_out: None,
        session_file: "",
        fixture: "cursor",
        commands: &["echo hello"],
        args: &[
            &["-p", "--output-format", "stream-json", "--force", "--trust"],
            &["--workspace", "{cwd}"],
            &["--model", "sonnet-4", "{prompt}"],
        ],
        state: None,
        fixed_env: &[("CURSOR_API_KEY", "key")],
        session: None,
    },
];

/// A cursor-agent stream (no real capture exists: the CLI is not installable here).
const CURSOR_STREAM: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"chat_123","cwd":"/tmp/workspace"}"#,
    "\n",
    r#"{"type":"tool_call","subtype":"started","call_id":"tool_1","tool_call":{"shellToolCall":{"args":{"command":"echo hello"}}}}"#,
    "\n",
    r#"{"type":"tool_call","subtype":"completed","call_id":"tool_1","tool_call":{"shellToolCall":{"args":{"command":"echo hello"},"result":{"success":{"stdout":"hello","exitCode":0}}}}}"#,
    "\n",
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success","result":"done","session_id":"chat_123","usage":{"inputTokens":200,"outputTokens":50,"cacheReadTokens":75,"cacheWriteTokens":0}}"#,
    "\n",
);

/// Every agent's real command line against a fake binary: its arguments, its private state
/// directory and fixed environment, the user's login seeded there during the session and gone
/// after it, the user's own configuration left out, the captured transcript normalized, and the
/// agent's session file copied into the artifacts.
#[test]
fn every_agent_launches_isolated_and_seeded() {
    for case in LAUNCHES {
        let name = format!("{:?}", case.kind);
        let scene = Scene::new(&format!("launch-{name}"));
        if let Some((file, content)) = case.login {
            scene.home_file(file, &content.replace("SECRET", SECRET));
        }
        if let Some(file) = case.stays_out {
            scene.home_file(file, "the user's own instructions stay out");
        }
        let fixture = if case.fixture == "cursor" {
            let path = scene.root.path().join("cursor.jsonl");
            std::fs::write(&path, CURSOR_STREAM).unwrap();
            path.display().to_string()
        } else {
            case.fixture.to_owned()
        };
        let mut options = AgentOptions::new(case.model);
        for (key, value) in case.env {
            options = options.env(*key, *value);
        }
        let recorded = scene.run(case.kind, options, case.session_file, &fixture);
        let cwd = scene.root.path().join("work").display().to_string();
        for run in case.args {
            let wanted: Vec<String> = run
                .iter()
                .map(|arg| arg.replace("{prompt}", PROMPT).replace("{cwd}", &cwd))
                .collect();
            let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
            recorded.has_args(&wanted);
        }
        for (key, value) in case.fixed_env {
            assert_eq!(recorded.env(key), *value, "{name}: {key}");
        }
        if let Some((var, seeded)) = case.state {
            let dir = under(recorded.env(var), &scene.state());
            seeded_then_removed(&scene, &recorded, &dir.join(seeded));
        }
        if let Some(file) = case.stays_out {
            let leaf = Path::new(file).file_name().unwrap();
            assert!(
                !recorded
                    .files_during
                    .iter()
                    .any(|f| f.file_name() == Some(leaf)),
                "{name}: {file} reached the session"
            );
        }
        recorded.normalized(case.commands);
        if let Some(content) = case.session {
            session_copied(&scene, &recorded, content);
        }
    }
}

/// What only Claude Code does: as root, `IS_SANDBOX=1`, which its skip flag needs.
#[test]
fn claude_code_as_root_is_a_sandbox() {
    let scene = Scene::new("claude-root");
    let recorded = scene.run(
        AgentKind::ClaudeCode,
        AgentOptions::new("claude-sonnet-4-6"),
        "",
        "claude-code.jsonl",
    );
    let root = unsafe { libc::geteuid() } == 0;
    assert_eq!(
        recorded.env.get("IS_SANDBOX").map(String::as_str),
        root.then_some("1")
    );
}

/// Qwen's session settings keep the user's auth keys and nothing else.
#[test]
fn qwen_code_keeps_only_auth_settings() {
    let scene = Scene::new("qwen-settings");
    scene.home_file(
        ".qwen/settings.json",
        r#"{"security":{"auth":{"selectedType":"openai"}},"mcpServers":{"x":{}}}"#,
    );
    let settings_copy = scene.root.path().join("record/qwen-settings");
    scene.run(
        AgentKind::QwenCode,
        AgentOptions::new("qwen3-coder-plus"),
        &format!(
            r#"cp "$QWEN_HOME/settings.json" '{}'"#,
            settings_copy.display()
        ),
        "qwen-code.jsonl",
    );
    let settings = std::fs::read_to_string(&settings_copy).unwrap();
    assert!(
        settings.contains("selectedType") && !settings.contains("mcpServers"),
        "{settings}"
    );
}

/// Codex's `config.toml` is seeded like its login and removed with it.
#[test]
fn codex_seeds_its_config() {
    let scene = Scene::new("codex-config");
    scene.home_file(".codex/config.toml", "model_provider = \"mock\"\n");
    let recorded = scene.run(
        AgentKind::Codex,
        AgentOptions::new("gpt-5.5"),
        "",
        "codex.jsonl",
    );
    let home = under(recorded.env("CODEX_HOME"), &scene.state());
    assert!(recorded.files_during.contains(&home.join("config.toml")));
    assert!(!home.join("config.toml").exists());
}

/// OpenCode's four private XDG directories, with the user's global config seeded.
#[test]
fn opencode_gets_private_xdg_directories() {
    let scene = Scene::new("opencode-xdg");
    scene.home_file(".config/opencode/opencode.json", r#"{"provider":{}}"#);
    let recorded = scene.run(
        AgentKind::Opencode,
        AgentOptions::new("anthropic/claude-sonnet-4-6"),
        "",
        "opencode.jsonl",
    );
    let config = under(recorded.env("XDG_CONFIG_HOME"), &scene.state());
    for var in ["XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] {
        under(recorded.env(var), &scene.state());
    }
    assert!(
        recorded
            .files_during
            .contains(&config.join("opencode/opencode.json"))
    );
}

fn transcript(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

/// Copilot's usage comes from the file it writes with `--usage-output-file`.
#[test]
fn copilot_reads_its_usage_file() {
    let scene = Scene::new("copilot-usage");
    let usage = transcript("copilot.usage-output-file.json");
    let recorded = scene.run(
        AgentKind::Copilot,
        AgentOptions::new("gpt-5.4"),
        &format!(
            r#"previous=; for arg in "$@"; do [ "$previous" = --usage-output-file ] && cp '{}' "$arg"; previous=$arg; done"#,
            usage.display()
        ),
        "copilot.jsonl",
    );
    let usage_file = scene.artifacts().join("copilot-usage.json");
    recorded.has_args(&["--usage-output-file", &usage_file.display().to_string()]);
    let tokens = &recorded.output.report.usage;
    assert_eq!(tokens.input_tokens.map(|c| c.value), Some(39815));
    assert_eq!(tokens.output_tokens.map(|c| c.value), Some(21));
}

/// The captured runs of the scripted session, three model rounds each.
const STEP_CAPTURES: [(AgentKind, &str); 7] = [
    (AgentKind::ClaudeCode, "claude-code.jsonl"),
    (AgentKind::ClaudeCode, "claude-code.partial-messages.jsonl"),
    (AgentKind::Codex, "codex.jsonl"),
    (AgentKind::Opencode, "opencode.jsonl"),
    (AgentKind::Copilot, "copilot.jsonl"),
    (AgentKind::GeminiCli, "gemini-cli.jsonl"),
    (AgentKind::QwenCode, "qwen-code.jsonl"),
];

/// A new agent CLI fails here until it has a row in [`LAUNCHES`] and, when its scripted
/// session is captured (`<type>.jsonl`), in [`STEP_CAPTURES`].
#[test]
fn every_agent_cli_has_its_rows() {
    for kind in AgentKind::CLIS {
        assert_eq!(
            LAUNCHES.iter().filter(|case| case.kind == kind).count(),
            1,
            "{kind:?}: one row in `LAUNCHES`"
        );
        let capture = format!("{}.jsonl", kind.as_str());
        if transcript(&capture).exists() {
            assert!(
                STEP_CAPTURES.contains(&(kind, capture.as_str())),
                "{kind:?}: {capture} has no row in `STEP_CAPTURES`"
            );
        }
    }
}

/// `max_steps` through whole sessions: every captured run takes three model rounds, so a
/// limit of 3 passes and a limit of 2 kills the agent with origin `max-steps`.
#[test]
fn max_steps_counts_each_agents_model_rounds() {
    for (kind, name) in STEP_CAPTURES {
        let scene = Scene::new(&format!("steps-{}", name.replace('.', "-")));
        three_steps_pass_and_two_stop(&scene, kind, name, name);
    }
}

/// `max_steps` through sessions of more than a mebibyte, whose stream is parsed on a thread of
/// its own past the first one: 1,200 blank lines of 1,000 spaces (which no format counts)
/// come before each captured run; the verdict comes back from the parser's thread.
#[test]
fn max_steps_holds_when_a_long_stream_is_parsed_on_its_own_thread() {
    for (kind, name) in STEP_CAPTURES {
        let scene = Scene::new(&format!("long-steps-{}", name.replace('.', "-")));
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts")
            .join(name);
        let mut padded = format!("{}\n", " ".repeat(1000)).repeat(1200);
        padded.push_str(&std::fs::read_to_string(fixture).unwrap());
        let long = scene.root.path().join(format!("long-{name}"));
        std::fs::write(&long, padded).unwrap();
        three_steps_pass_and_two_stop(&scene, kind, name, long.to_str().unwrap());
    }
}

/// Runs `fixture` (a captured session of three model rounds, `name`) with a limit of 3 steps,
/// which passes and publishes its steps, and of 2, which kills the agent with origin
/// `max-steps` and parses no step after the stop.
fn three_steps_pass_and_two_stop(scene: &Scene, kind: AgentKind, name: &str, fixture: &str) {
    let within = scene.run_limited(kind, AgentOptions::new("m"), "", fixture, Some(3), None);
    assert!(
        within.output.failure.is_none(),
        "{name}: {:?}",
        within.output.failure
    );
    assert_eq!(within.output.steps, 3, "{name}");
    assert_eq!(within.live_steps, 3, "{name}: published while it ran");
    let over = scene.run_limited(kind, AgentOptions::new("m"), "", fixture, Some(2), None);
    let failure = over
        .output
        .failure
        .unwrap_or_else(|| panic!("{name}: not stopped"));
    assert_eq!(
        failure.origin,
        skillgym::FailureOrigin::MaxSteps,
        "{name}: {failure}"
    );
    assert!(
        failure
            .message
            .contains("observed 3 steps with a limit of 2"),
        "{name}: {failure}"
    );
    assert_eq!(
        over.output.steps, 3,
        "{name}: no step parsed after the stop"
    );
}

/// Every agent's login files in the fake home, holding the secret: with a provider endpoint
/// none of them may reach the session.
fn with_every_login(scene: &Scene) {
    for file in [
        ".claude/.credentials.json",
        ".codex/auth.json",
        ".local/share/opencode/auth.json",
        ".copilot/config.json",
        ".gemini/oauth_creds.json",
        ".qwen/oauth_creds.json",
    ] {
        scene.home_file(file, &format!(r#"{{"token":"{SECRET}"}}"#));
    }
}

/// A configured provider whose key is in `SG_TEST_KEY` (set through `agent.env`).
fn configured(wire_api: skillgym_harness::config::WireApi) -> Provider {
    Provider {
        base_url: "http://gateway.test:4000".to_owned(),
        api_key: ApiKey::Env("SG_TEST_KEY".to_owned()),
        wire_api,
        offline: false,
    }
}

#[test]
fn provider_endpoints_map_onto_what_each_cli_honours() {
    use skillgym_harness::config::WireApi;
    let options = |model: &str, wire| {
        AgentOptions::new(model)
            .env("SG_TEST_KEY", "sk-gateway")
            .provider(configured(wire))
    };
    let no_login = |_: &Scene, recorded: &Recorded| {
        assert!(
            recorded.secrets_during.trim().is_empty(),
            "no login is seeded with a provider: {}",
            recorded.secrets_during
        );
        assert!(
            recorded.output.failure.is_none(),
            "{:?}",
            recorded.output.failure
        );
    };

    let scene = Scene::new("provider-claude");
    with_every_login(&scene);
    let recorded = scene.run(
        AgentKind::ClaudeCode,
        options("claude-sonnet-4-6", WireApi::Anthropic).env("ANTHROPIC_AUTH_TOKEN", "x"),
        "",
        "claude-code.jsonl",
    );
    assert_eq!(
        recorded.env("ANTHROPIC_BASE_URL"),
        "http://gateway.test:4000"
    );
    assert_eq!(recorded.env("ANTHROPIC_API_KEY"), "sk-gateway");
    no_login(&scene, &recorded);

    let scene = Scene::new("provider-codex");
    with_every_login(&scene);
    let recorded = scene.run(
        AgentKind::Codex,
        options("gpt-5.5", WireApi::OpenaiResponses),
        "",
        "codex.jsonl",
    );
    for setting in [
        r#"model_provider="skillgym""#,
        r#"model_providers.skillgym.base_url="http://gateway.test:4000""#,
        r#"model_providers.skillgym.env_key="SG_TEST_KEY""#,
        r#"model_providers.skillgym.wire_api="responses""#,
    ] {
        recorded.has_args(&["-c", setting]);
    }
    assert_eq!(recorded.env("SG_TEST_KEY"), "sk-gateway");
    no_login(&scene, &recorded);

    for (wire, package, base_url) in [
        (
            WireApi::OpenaiChat,
            "@ai-sdk/openai-compatible",
            "http://gateway.test:4000",
        ),
        (
            WireApi::OpenaiResponses,
            "@ai-sdk/openai",
            "http://gateway.test:4000",
        ),
        (
            WireApi::Anthropic,
            "@ai-sdk/anthropic",
            "http://gateway.test:4000/v1",
        ),
        (
            WireApi::Gemini,
            "@ai-sdk/google",
            "http://gateway.test:4000/v1beta",
        ),
    ] {
        let scene = Scene::new("provider-opencode");
        with_every_login(&scene);
        let recorded = scene.run(
            AgentKind::Opencode,
            options("vendor/model-x", wire),
            "",
            "opencode.jsonl",
        );
        recorded.has_args(&["-m", "skillgym/vendor/model-x"]);
        let config: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(recorded.env("OPENCODE_CONFIG")).unwrap(),
        )
        .unwrap();
        let entry = &config["provider"]["skillgym"];
        assert_eq!(entry["npm"], package);
        assert_eq!(entry["options"]["baseURL"], base_url);
        assert_eq!(
            entry["options"]["apiKey"], "{env:SG_TEST_KEY}",
            "no secret in the file"
        );
        assert_eq!(entry["models"]["vendor/model-x"]["tool_call"], true);
        // Quiet without changing what the agent does: no catalog fetch, update or sharing;
        // the registry stays (a workspace's own plugins and tools may need OpenCode's SDK).
        assert_eq!(recorded.env("OPENCODE_DISABLE_MODELS_FETCH"), "1");
        assert_eq!(
            (&config["autoupdate"], &config["share"]),
            (&serde_json::json!(false), &serde_json::json!("disabled"))
        );
        assert!(
            !recorded.env.contains_key("NPM_CONFIG_REGISTRY"),
            "only against the scripted server"
        );
        no_login(&scene, &recorded);
    }

    for (wire, variable, value) in [
        (WireApi::OpenaiChat, None, ""),
        (
            WireApi::OpenaiResponses,
            Some("COPILOT_PROVIDER_WIRE_API"),
            "responses",
        ),
        (
            WireApi::Anthropic,
            Some("COPILOT_PROVIDER_TYPE"),
            "anthropic",
        ),
    ] {
        let scene = Scene::new("provider-copilot");
        with_every_login(&scene);
        let recorded = scene.run(
            AgentKind::Copilot,
            options("gpt-5.4", wire),
            "",
            "copilot.jsonl",
        );
        assert_eq!(
            recorded.env("COPILOT_PROVIDER_BASE_URL"),
            "http://gateway.test:4000"
        );
        assert_eq!(recorded.env("COPILOT_PROVIDER_API_KEY"), "sk-gateway");
        if let Some(variable) = variable {
            assert_eq!(recorded.env(variable), value);
        }
        assert!(
            !recorded.env.contains_key("COPILOT_OFFLINE"),
            "only against the scripted server"
        );
        no_login(&scene, &recorded);
    }

    let scene = Scene::new("provider-gemini");
    with_every_login(&scene);
    let recorded = scene.run(
        AgentKind::GeminiCli,
        options("gemini-2.5-pro", WireApi::Gemini),
        "",
        "gemini-cli.jsonl",
    );
    assert_eq!(
        recorded.env("GOOGLE_GEMINI_BASE_URL"),
        "http://gateway.test:4000"
    );
    assert_eq!(recorded.env("GEMINI_API_KEY"), "sk-gateway");
    assert!(
        recorded
            .contents_during
            .contains(r#""selectedType": "gemini-api-key""#),
        "{}",
        recorded.contents_during
    );
    no_login(&scene, &recorded);

    let scene = Scene::new("provider-qwen");
    with_every_login(&scene);
    let recorded = scene.run(
        AgentKind::QwenCode,
        options("qwen3-coder-plus", WireApi::OpenaiChat),
        "",
        "qwen-code.jsonl",
    );
    recorded.has_args(&[
        "--auth-type",
        "openai",
        "--openai-base-url",
        "http://gateway.test:4000",
    ]);
    assert_eq!(recorded.env("OPENAI_API_KEY"), "sk-gateway");
    assert!(
        !recorded.argv.iter().any(|arg| arg.contains("sk-gateway")),
        "the key is not on the command line"
    );
    no_login(&scene, &recorded);
}

/// The `scheme://host…` URLs in a text.
fn urls(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for scheme in ["http://", "https://", "ws://", "wss://"] {
        let mut rest = text;
        while let Some(start) = rest.find(scheme) {
            let url: String = rest[start..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !"\"'`<>,}".contains(*c))
                .collect();
            rest = &rest[start + url.len()..];
            found.push(url);
        }
    }
    found
}

#[test]
fn every_url_an_agent_is_handed_under_mock_is_loopback() {
    use skillgym_harness::mock::{MockServer, Script, ServerOptions, SessionSetup};
    let server = MockServer::start(ServerOptions::default()).unwrap();
    let own_env: HashMap<String, String> = std::env::vars().collect();
    for (kind, model, fixture) in [
        (
            AgentKind::ClaudeCode,
            "claude-sonnet-4-6",
            "claude-code.jsonl",
        ),
        (AgentKind::Codex, "gpt-5.5", "codex.jsonl"),
        (AgentKind::Opencode, "mock-model", "opencode.jsonl"),
        (AgentKind::Copilot, "gpt-5.4", "copilot.jsonl"),
        (AgentKind::GeminiCli, "gemini-2.5-pro", "gemini-cli.jsonl"),
        (AgentKind::QwenCode, "qwen3-coder-plus", "qwen-code.jsonl"),
    ] {
        let scene = Scene::new("loopback");
        let agent = agent::build(kind, AgentOptions::new(model)).unwrap();
        let wire_api = agent
            .wire_api()
            .expect("every installable agent takes an endpoint");
        let session = server.open_session(SessionSetup::new(std::sync::Arc::new(Script::answer(
            "done",
        ))));
        let endpoint = Provider {
            base_url: session.base_url(wire_api),
            api_key: ApiKey::Value(session.api_key().to_owned()),
            wire_api,
            offline: true,
        };
        let recorded = scene.run_with_endpoint(kind, AgentOptions::new(model), fixture, &endpoint);
        // What the launch handed the agent: its arguments, the variables it set or changed,
        // and the files it wrote into the state directory.
        let mut handed = recorded.argv.join("\n");
        for (key, value) in &recorded.env {
            if own_env.get(key) != Some(value) {
                handed.push_str(&format!("\n{key}={value}"));
            }
        }
        handed.push_str(&recorded.contents_during);
        let found = urls(&handed);
        assert!(
            !found.is_empty(),
            "{kind:?}: the agent was handed no endpoint at all"
        );
        for url in &found {
            assert!(
                url.starts_with("http://127.0.0.1:"),
                "{kind:?} was handed {url}"
            );
        }
        assert!(
            found.iter().any(|url| url.starts_with(&server.url())),
            "{kind:?}: the scripted server's URL is among {found:?}"
        );
        assert_eq!(recorded.env("NO_PROXY"), "127.0.0.1,localhost", "{kind:?}");
        match kind {
            AgentKind::Copilot => assert_eq!(recorded.env("COPILOT_OFFLINE"), "true"),
            AgentKind::Opencode => {
                assert_eq!(recorded.env("OPENCODE_DISABLE_MODELS_FETCH"), "1");
                assert!(
                    recorded
                        .env("NPM_CONFIG_REGISTRY")
                        .starts_with("http://127.0.0.1:")
                );
            }
            _ => {}
        }
    }
}

#[test]
fn agent_env_cannot_send_a_dry_run_elsewhere() {
    use skillgym_harness::config::WireApi;
    const REMOTE: &str = "https://api.remote.example";
    let hostile = |model: &str| {
        [
            "ANTHROPIC_BASE_URL",
            "COPILOT_PROVIDER_BASE_URL",
            "GOOGLE_GEMINI_BASE_URL",
        ]
        .into_iter()
        .fold(AgentOptions::new(model), |options, key| {
            options.env(key, REMOTE)
        })
        .env("OPENCODE_CONFIG", "/remote/opencode.json")
    };
    let endpoint = |wire_api| Provider {
        base_url: "http://127.0.0.1:9".to_owned(),
        api_key: ApiKey::Value("skillgym-mock-1".to_owned()),
        wire_api,
        offline: true,
    };
    let scene = Scene::new("hostile");
    let claude = scene.run_with_endpoint(
        AgentKind::ClaudeCode,
        hostile("m"),
        "claude-code.jsonl",
        &endpoint(WireApi::Anthropic),
    );
    assert_eq!(claude.env("ANTHROPIC_BASE_URL"), "http://127.0.0.1:9");
    let copilot = scene.run_with_endpoint(
        AgentKind::Copilot,
        hostile("m"),
        "copilot.jsonl",
        &endpoint(WireApi::OpenaiChat),
    );
    assert_eq!(
        copilot.env("COPILOT_PROVIDER_BASE_URL"),
        "http://127.0.0.1:9"
    );
    let gemini = scene.run_with_endpoint(
        AgentKind::GeminiCli,
        hostile("m"),
        "gemini-cli.jsonl",
        &endpoint(WireApi::Gemini),
    );
    assert_eq!(gemini.env("GOOGLE_GEMINI_BASE_URL"), "http://127.0.0.1:9");
    let opencode = scene.run_with_endpoint(
        AgentKind::Opencode,
        hostile("m"),
        "opencode.jsonl",
        &endpoint(WireApi::OpenaiChat),
    );
    assert!(
        opencode
            .env("OPENCODE_CONFIG")
            .starts_with(&*scene.state().to_string_lossy()),
        "{}",
        opencode.env("OPENCODE_CONFIG")
    );
}

/// How a session ends, for the secret-removal test.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// The agent prints a transcript and exits 0.
    Success,
    /// The agent exits 3.
    Failure,
    /// The agent outlives the session's timeout and is killed.
    Timeout,
    /// The program cannot be started.
    LaunchError,
}

impl Scene {
    /// Runs one session of `kind` with every agent's login (holding [`SECRET`]) in the fake
    /// home, whose fake agent copies each file holding the secret to a `.orig` sibling (as
    /// Qwen Code does when it migrates its settings) and then ends as `ending` says.
    fn run_ending(&self, kind: AgentKind, ending: Ending) -> SessionOutput {
        with_every_login(self);
        self.home_file(
            ".qwen/settings.json",
            &format!(r#"{{"apiKey":"{SECRET}"}}"#),
        );
        let script = self.root.path().join("ending.sh");
        let tail = match ending {
            Ending::Success | Ending::LaunchError => "exit 0",
            Ending::Failure => "exit 3",
            Ending::Timeout => "sleep 30",
        };
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nfor f in $(grep -Rl '{SECRET}' '{state}'); do cp \"$f\" \"$f.orig\"; done\n\
                 echo derived > '{record}/ran'\n{tail}\n",
                state = self.state().display(),
                record = self.root.path().join("record").display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let program = match ending {
            Ending::LaunchError => self.root.path().join("no-such-agent"),
            _ => script,
        };
        let options = AgentOptions::new("m")
            .command(&program)
            .user_home(self.home());
        let agent = agent::build(kind, options).unwrap();
        let limits = SessionLimits {
            timeout: Duration::from_millis(match ending {
                Ending::Timeout => 500,
                _ => 30_000,
            }),
            max_steps: None,
            max_output: skillgym_harness::config::DEFAULT_MAX_OUTPUT,
            live_steps: None,
            sandbox: None,
            trigger: None,
        };
        self.session(agent.as_ref(), limits, None)
    }

    /// Every file under the attempt's artifact directory that holds [`SECRET`].
    fn files_with_the_secret(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![self.artifacts()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if entry.file_type().unwrap().is_dir() {
                    pending.push(path);
                } else if String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default())
                    .contains(SECRET)
                {
                    found.push(path);
                }
            }
        }
        found
    }
}

/// No seeded secret, nor any copy an agent derived from one, outlives a session: after a
/// success, a failure, a timeout and a launch error, no file of the attempt holds it.
#[test]
fn seeded_secrets_never_outlive_a_session() {
    let endings = [
        Ending::Success,
        Ending::Failure,
        Ending::Timeout,
        Ending::LaunchError,
    ];
    let mut seeding_agents = 0;
    for kind in AgentKind::CLIS {
        for ending in endings {
            let scene = Scene::new(&format!("secrets-{kind:?}-{ending:?}"));
            let output = scene.run_ending(kind, ending);
            let ran = scene.root.path().join("record/ran").exists();
            assert_eq!(
                ran,
                !matches!(ending, Ending::LaunchError),
                "{kind:?} {ending:?}"
            );
            match ending {
                Ending::Success => assert!(output.failure.is_none() || output.exit_code == Some(0)),
                _ => assert!(output.failure.is_some(), "{kind:?} {ending:?}: no failure"),
            }
            if matches!(ending, Ending::Success)
                && scene
                    .state_files_after()
                    .iter()
                    .any(|file| file.extension().is_some_and(|ext| ext == "orig"))
            {
                panic!("{kind:?}: a derived copy was left");
            }
            let left = scene.files_with_the_secret();
            assert!(
                left.is_empty(),
                "{kind:?} {ending:?}: the secret stayed in {left:?}"
            );
        }
        // The agent saw a secret at all (else the test proves nothing for it).
        let scene = Scene::new(&format!("secrets-{kind:?}-seen"));
        with_every_login(&scene);
        let recorded = scene.run(kind, AgentOptions::new("m"), "", "claude-code.jsonl");
        if !recorded.secrets_during.trim().is_empty() {
            seeding_agents += 1;
        }
    }
    assert_eq!(
        seeding_agents, 6,
        "every agent but cursor-agent seeds a login holding the secret"
    );
}

/// The user's own skills in the fake home, for every agent's user-level skill directory.
fn with_user_skills(scene: &Scene) {
    for dir in [
        ".claude/skills",
        ".agents/skills",
        ".codex/skills",
        ".copilot/skills",
        ".gemini/skills",
        ".qwen/skills",
        ".config/opencode/skills",
        ".opencode/skills",
    ] {
        scene.home_file(
            &format!("{dir}/user-skill/SKILL.md"),
            "---\nname: user-skill\ndescription: Installed on the author's machine.\n---\n",
        );
    }
    scene.home_file(".gitconfig", "[user]\n  name = Author\n");
}

/// By default no agent can reach the user's own skills: those that look under `$HOME` get a
/// private home (git still finds the user's identity), the others a private config directory.
/// With `run.user_skills: inherit`, each private directory links to the user's skills.
#[test]
fn user_skills_stay_home_unless_inherited() {
    let state_dirs = [
        (AgentKind::ClaudeCode, "claude/skills", ".claude/skills"),
        (AgentKind::Codex, "codex-home/skills", ".codex/skills"),
        (AgentKind::Copilot, "copilot-home/skills", ".copilot/skills"),
        (
            AgentKind::GeminiCli,
            "gemini-home/.gemini/skills",
            ".gemini/skills",
        ),
        (
            AgentKind::GeminiCli,
            "gemini-home/.agents/skills",
            ".agents/skills",
        ),
        (AgentKind::QwenCode, "qwen/skills", ".qwen/skills"),
        (
            AgentKind::Opencode,
            "xdg/config/opencode/skills",
            ".config/opencode/skills",
        ),
    ];
    for (kind, private, user) in state_dirs {
        let scene = Scene::new(&format!("user-skills-{kind:?}"));
        with_user_skills(&scene);
        let recorded = scene.run(kind, AgentOptions::new("m"), "", "claude-code.jsonl");
        let home = recorded.env("HOME").to_owned();
        let looks_under_home = matches!(
            kind,
            AgentKind::Codex | AgentKind::Opencode | AgentKind::QwenCode
        );
        if looks_under_home {
            assert_eq!(Path::new(&home), scene.state().join("home"), "{kind:?}");
            assert_eq!(
                recorded.env("GIT_CONFIG_GLOBAL"),
                scene.home().join(".gitconfig").to_str().unwrap(),
                "{kind:?}: git keeps the user's identity"
            );
        }
        assert!(
            !recorded
                .files_during
                .iter()
                .any(|file| file.to_string_lossy().contains("/user-skill/")),
            "{kind:?}: {:?}",
            recorded.files_during
        );
        assert!(!scene.state().join(private).exists(), "{kind:?}: {private}");

        let scene = Scene::new(&format!("user-skills-inherit-{kind:?}"));
        with_user_skills(&scene);
        let inherit = AgentOptions::new("m").inherit_user_skills(true);
        let recorded = scene.run(kind, inherit, "", "claude-code.jsonl");
        if looks_under_home {
            assert_ne!(
                Path::new(recorded.env("HOME")),
                scene.state().join("home"),
                "{kind:?}"
            );
        }
        let link = scene.state().join(private);
        assert_eq!(
            std::fs::read_link(&link).ok(),
            Some(scene.home().join(user)),
            "{kind:?}: {}",
            link.display()
        );
    }
}
