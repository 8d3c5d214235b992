//! What every agent CLI's adapter must do, as one table over [`spec::ALL`]: each row of
//! [`ROWS`] is one agent's data, each test one shared check run over every agent (with what its
//! [`AgentSpec`] says). An agent without a row fails every test here, naming the table; what
//! only one adapter does stays in that adapter's own test module.
//!
//! | test | what each row gives |
//! |---|---|
//! | [`every_agent_cli_has_one_row`], [`the_rows_are_the_agent_clis`] | its name |
//! | [`normalizes_the_captured_sessions`] | [`Row::sessions`]: transcripts of the scripted session (shell, read, answer) and every event they must normalize to |
//! | [`a_refused_request_is_a_provider_error`] | [`Row::refused`]: a transcript of an HTTP 400, its status, message, steps and events |
//! | [`launches_isolated_and_seeded`] | [`Row::args`], [`Row::login`], [`Row::seeded`], [`Row::stays_out`], [`Row::passes`], [`Row::model_flag`] |
//! | [`a_state_dir_from_agent_env_is_used_as_it_is`] | [`Row::login`] (the state variable is the spec's) |
//! | [`resumes_in_the_same_state`] | [`Row::resume_args`], [`Row::seeded`] |
//! | [`collects_the_session_file`] | [`Row::collect`]: where the CLI writes its session file |
//! | [`setup_names_program_and_auth`] | [`Row::install`], [`Row::auth`], [`Row::auth_help`] |
//!
//! Adding an agent: its row here, its transcripts in `tests/fixtures/transcripts/` (with their
//! golden tests in `tests/golden.rs`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillgym::{Confidence, Phase, Role, SessionEvent, SessionReport, TokenCount};

use super::options::ProcessEnv;
use super::spec::{self, AgentSpec};
use super::test_support::{self, CWD, PROMPT, env, fixture, mode, normalize_in, scratch, strings};
use super::{AgentOptions, AuthSource, SessionSpec};
use crate::config::AgentKind;
use crate::normalize::{Normalized, ReportBuilder};

/// One agent CLI's expected behaviour.
struct Row {
    /// The agent type (its name in YAML).
    name: &'static str,
    /// Its captured runs of the scripted session.
    sessions: &'static [Session],
    /// Its captured run whose every request the model refused with HTTP 400; `Err(why)` when
    /// its stream cannot show one.
    refused: Result<Refused, &'static str>,
    /// The arguments of a session with model `m` and `agent.args: [--x]`, split at spaces
    /// (`{prompt}`, `{cwd}`, `{artifacts}` and `{title}`, `skillgym <runner id>`, stand for the
    /// session's).
    args: &'static str,
    /// The same session resumed as `ID` with the prompt `Why?`.
    resume_args: &'static str,
    /// The flag that names the model (absent without a model).
    model_flag: &'static str,
    /// The user's login and configuration files, below the home.
    login: &'static [&'static str],
    /// The files seeded from them, below the attempt's state directory, and whether each is a
    /// verbatim copy (else skillgym rewrote it).
    seeded: &'static [(&'static str, bool)],
    /// What is seeded when the user has no login.
    seeded_without_login: &'static [&'static str],
    /// Files of the user's own configuration (below the home) and where a copy would land
    /// (below the state directory): they must not.
    stays_out: &'static [(&'static str, &'static str)],
    /// A variable `agent.env` passes through untouched.
    passes: &'static str,
    /// Where the CLI writes the session file skillgym copies; `None` when it writes none.
    collect: Option<Collect>,
    /// Part of the install hint.
    install: &'static str,
    /// The auth sources `skillgym doctor` checks, for a user whose home is `/home/u`.
    auth: &'static [Auth],
    /// Part of the auth help.
    auth_help: &'static str,
}

/// A captured run of the scripted session: a shell command, a read, then an answer.
struct Session {
    /// The transcript.
    source: Source,
    /// The prompt the run had (in [`CWD`]).
    prompt: &'static str,
    /// The session id the stream gives.
    session_id: &'static str,
    /// Model rounds.
    steps: u32,
    /// Commands: the command, its exit code, its time.
    commands: &'static [(&'static str, Option<i32>, Option<&'static str>)],
    /// Successful file reads.
    reads: &'static [&'static str],
    /// Tool calls: id, tool, arguments (JSON), time.
    calls: &'static [(
        &'static str,
        &'static str,
        &'static str,
        Option<&'static str>,
    )],
    /// Tool results, in order: id, tool, output, whether an error.
    results: &'static [(&'static str, &'static str, Text, bool)],
    /// Messages: role, phase, text, time.
    messages: &'static [(Role, Option<Phase>, &'static str, Option<&'static str>)],
    /// Raw events, as `type` or `type/subtype`.
    raw: &'static [&'static str],
    /// Detected skills.
    skills: &'static [(&'static str, Confidence)],
    /// Token figures.
    usage: Usage,
}

/// Where a transcript comes from.
enum Source {
    /// `tests/fixtures/transcripts/<name>`.
    Fixture(&'static str),
    /// Lines written here.
    Lines(&'static [&'static str]),
}

/// A tool result's output.
enum Text {
    /// Exactly this.
    Is(&'static str),
    /// Containing this.
    Has(&'static str),
}

/// Token figures: the counts as the provider gave them, the total derived.
#[derive(Clone, Copy)]
struct Usage {
    input: Option<u64>,
    output: Option<u64>,
    reasoning: Option<u64>,
    cache: Option<u64>,
    total: Option<u64>,
    cost: Option<f64>,
}

/// A captured run refused with HTTP 400.
struct Refused {
    fixture: &'static str,
    session_id: &'static str,
    status: Option<u16>,
    message: &'static str,
    /// Model rounds counted before the refusal.
    steps: u32,
    /// Raw events, as `type` or `type/subtype`.
    raw: &'static [&'static str],
    /// User messages.
    messages: &'static [&'static str],
}

/// Where a CLI writes its session file.
#[derive(Clone, Copy)]
struct Collect {
    /// The file of session `id`, below the attempt's state directory.
    file: fn(&str) -> String,
    /// A session id.
    id: &'static str,
    /// A file written after it that is never taken for it (a subagent's), below the state
    /// directory.
    decoy: Option<&'static str>,
    /// Whether an id without a file takes the newest file (with a warning).
    unknown_id_takes_newest: bool,
}

/// An auth source, with `/home/u` as the home.
enum Auth {
    /// A credential variable.
    Env(&'static str),
    /// A login file.
    File(&'static str),
    /// A condition the adapter checks (found: no), said in words.
    Checked(&'static str),
}

/// The scripted session's answer.
const DONE: &str = "done";
/// The file the scripted session reads.
const SKILL: &str = "/home/dev/demo/wd/SKILL.md";
/// What the read gives.
const SECRET_WORD: &str = "The secret word is pineapple.";

/// Every agent CLI's row, in the order of [`spec::ALL`].
#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row {
        name: "claude-code",
        sessions: &[
            Session {
                source: Source::Fixture("claude-code.jsonl"),
                ..CLAUDE_SESSION
            },
            // 2.1.197 reports no thinking tokens and no timestamps.
            Session {
                source: Source::Fixture("claude-code-2.1.197.jsonl"),
                session_id: "98a509ea-64c7-4199-9067-4e9913096a5e",
                commands: &[("echo hello", Some(0), None)],
                calls: &[
                    ("toolu_mock_521a85ae63ec4c58", "Bash", r#"{"command":"echo hello","description":"Print hello"}"#, None),
                    ("toolu_mock_29728cff606349af", "Read", r#"{"file_path":"/home/dev/demo/wd/SKILL.md"}"#, None),
                ],
                results: &[
                    ("toolu_mock_521a85ae63ec4c58", "Bash", Text::Is("hello"), false),
                    ("toolu_mock_29728cff606349af", "Read", Text::Has(SECRET_WORD), false),
                ],
                messages: &[(Role::Assistant, Some(Phase::Final), DONE, None)],
                usage: Usage { input: Some(58639), reasoning: None, total: Some(58660), cost: Some(0.29372), ..CLAUDE_SESSION.usage },
                ..CLAUDE_SESSION
            },
            // With `--include-partial-messages`: the deltas and status records are dropped, so
            // nothing is counted twice.
            Session {
                source: Source::Fixture("claude-code.partial-messages.jsonl"),
                session_id: "933dd60a-a675-4f08-80ef-f0c81b42e688",
                commands: &[("echo hello", Some(0), Some("2026-11-22T03:01:28.513Z"))],
                calls: &[
                    ("toolu_mock_9ff9546e5a934524", "Bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:01:28.513Z")),
                    ("toolu_mock_a0abaf1506ff4738", "Read", r#"{"file_path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:01:28.746Z")),
                ],
                results: &[
                    ("toolu_mock_9ff9546e5a934524", "Bash", Text::Is("hello"), false),
                    ("toolu_mock_a0abaf1506ff4738", "Read", Text::Has(SECRET_WORD), false),
                ],
                messages: &[(Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:01:28.893Z"))],
                usage: Usage { input: Some(37900), total: Some(37921), cost: Some(0.15202000000000002), ..CLAUDE_SESSION.usage },
                ..CLAUDE_SESSION
            },
        ],
        // Claude prints zeros and a cost of 0 for it: unknown, not nothing. The synthetic error
        // message is no model round.
        refused: Ok(Refused {
            fixture: "claude-code.error-400.jsonl",
            session_id: "ea29dee0-6163-49ac-8975-c9e983687478",
            status: Some(400),
            message: "mock: forced error 400",
            steps: 0,
            raw: &["system/init"],
            messages: &[],
        }),
        args: "--x -p --output-format stream-json --verbose --dangerously-skip-permissions --model m {prompt}",
        resume_args: "--x -p -r ID --fork-session --output-format stream-json --verbose --dangerously-skip-permissions --model m Why?",
        model_flag: "--model",
        login: &[".claude/.credentials.json"],
        seeded: &[("claude/.credentials.json", true)],
        seeded_without_login: &[],
        stays_out: &[
            (".claude/settings.json", "claude/settings.json"),
            (".claude/CLAUDE.md", "claude/CLAUDE.md"),
            (".claude/skills/x/SKILL.md", "claude/skills"),
        ],
        passes: "ANTHROPIC_BASE_URL",
        collect: Some(Collect {
            file: |id| format!("claude/projects/-home-dev-demo-wd/{id}.jsonl"),
            id: "sess-1",
            decoy: Some("claude/projects/-home-dev-demo-wd/sess-1/subagents/agent-a.jsonl"),
            unknown_id_takes_newest: false,
        }),
        install: "@anthropic-ai/claude-code",
        auth: &[
            Auth::Env("ANTHROPIC_API_KEY"),
            Auth::Env("CLAUDE_CODE_OAUTH_TOKEN"),
            Auth::Env("ANTHROPIC_AUTH_TOKEN"),
            Auth::Env("CLAUDE_CODE_USE_BEDROCK"),
            Auth::Env("CLAUDE_CODE_USE_VERTEX"),
            Auth::File("/home/u/.claude/.credentials.json"),
        ],
        auth_help: "Log in once with `claude`",
    },
    Row {
        name: "codex",
        sessions: &[
            Session {
                source: Source::Fixture("codex.jsonl"),
                ..CODEX_SESSION
            },
            // A non-fatal `error` item (unknown model metadata) is kept raw.
            Session {
                source: Source::Fixture("codex.unknown-model-with-plugins.jsonl"),
                session_id: "01a20133-d822-78b1-a27e-17ece022900b",
                calls: &[
                    ("item_1", "command_execution", r#"{"command":"/bin/bash -lc 'echo hello'"}"#, None),
                    ("item_2", "command_execution", r#"{"command":"/bin/bash -lc 'cat SKILL.md'"}"#, None),
                ],
                results: &[
                    ("item_1", "command_execution", Text::Is("hello\n"), false),
                    ("item_2", "command_execution", Text::Has(SECRET_WORD), false),
                ],
                raw: &["item.completed"],
                usage: Usage { input: Some(30585), total: Some(30606), ..CODEX_SESSION.usage },
                ..CODEX_SESSION
            },
        ],
        // The top-level `error` record is kept, not taken as the end of the session.
        refused: Ok(Refused {
            fixture: "codex.error-400.jsonl",
            session_id: "01a20138-8a6c-72b3-9906-53a4eef6b955",
            status: None,
            message: "mock: forced error 400",
            steps: 0,
            raw: &["error"],
            messages: &[],
        }),
        args: "--x exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C {cwd} -m m -c check_for_update_on_startup=false -c analytics.enabled=false -c features.plugins=false -- {prompt}",
        resume_args: "--x exec -C {cwd} resume --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -m m -c check_for_update_on_startup=false -c analytics.enabled=false -c features.plugins=false -- ID Why?",
        model_flag: "-m",
        login: &[".codex/auth.json", ".codex/config.toml"],
        seeded: &[
            ("codex-home/auth.json", true),
            ("codex-home/config.toml", true),
        ],
        seeded_without_login: &[],
        stays_out: &[
            (".codex/AGENTS.md", "codex-home/AGENTS.md"),
            (".codex/skills/x/SKILL.md", "codex-home/skills"),
        ],
        passes: "OPENAI_BASE_URL",
        collect: Some(Collect {
            file: |id| {
                format!("codex-home/sessions/2026/11/22/rollout-2026-11-22T03-05-02-{id}.jsonl")
            },
            id: "01a20139-2696-7720-9b74-178414dbe828",
            decoy: None,
            unknown_id_takes_newest: true,
        }),
        install: "npm install -g @openai/codex",
        auth: &[
            Auth::Env("CODEX_API_KEY"),
            Auth::Env("OPENAI_API_KEY"),
            Auth::File("/home/u/.codex/auth.json"),
        ],
        auth_help: "codex login",
    },
    Row {
        name: "opencode",
        sessions: &[Session {
            source: Source::Fixture("opencode.jsonl"),
            prompt: PROMPT,
            session_id: "ses_dfec93022ffe34BGTbq67DjAka",
            steps: 3,
            commands: &[("echo hello", Some(0), Some("2026-11-22T03:05:02.265Z"))],
            reads: &[SKILL],
            calls: &[
                ("call_mock_b785d59961db", "bash", r#"{"command":"echo hello"}"#, Some("2026-11-22T03:05:02.265Z")),
                ("call_mock_89ef3b6019df", "read", r#"{"filePath":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:05:02.900Z")),
            ],
            results: &[
                ("call_mock_b785d59961db", "bash", Text::Is("hello\n"), false),
                ("call_mock_89ef3b6019df", "read", Text::Has("6: The secret word is pineapple."), false),
            ],
            messages: &[(Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:05:03.314Z"))],
            raw: &[],
            skills: &[],
            usage: Usage { input: Some(7772 + 7838 + 7969), output: Some(21), reasoning: Some(0), cache: Some(0), total: Some(23600), cost: Some(0.0) },
        }],
        refused: Ok(Refused {
            fixture: "opencode.error-400.jsonl",
            session_id: "ses_dfec757e8ffeLyzVd1347TEnvk",
            status: Some(400),
            message: "mock: forced error 400",
            steps: 0,
            raw: &[],
            messages: &[],
        }),
        args: "--x run --format json -m m --thinking --auto --print-logs --log-level ERROR --title {title} -- {prompt}",
        resume_args: "--x run --format json -m m --thinking --auto --print-logs --log-level ERROR --session ID -- Why?",
        model_flag: "-m",
        login: &[
            ".local/share/opencode/auth.json",
            ".config/opencode/opencode.jsonc",
        ],
        seeded: &[
            ("xdg/data/opencode/auth.json", true),
            ("xdg/config/opencode/opencode.jsonc", true),
        ],
        seeded_without_login: &[],
        stays_out: &[
            (".local/share/opencode/opencode.db", "xdg/data/opencode/opencode.db"),
            (".config/opencode/AGENTS.md", "xdg/config/opencode/AGENTS.md"),
            (".config/opencode/skills/x/SKILL.md", "xdg/config/opencode/skills"),
        ],
        passes: "ANTHROPIC_API_KEY",
        // Its sessions stay in its database (`data/opencode/opencode.db`).
        collect: None,
        install: "npm install -g opencode-ai",
        auth: &[
            Auth::Env("OPENCODE_AUTH_CONTENT"),
            Auth::File("/home/u/.local/share/opencode/auth.json"),
            Auth::File("/home/u/.config/opencode/opencode.json"),
            Auth::File("/home/u/.config/opencode/opencode.jsonc"),
            Auth::File("/home/u/.config/opencode/config.json"),
        ],
        auth_help: "opencode auth login",
    },
    Row {
        name: "copilot",
        // Whatever the wire API behind Copilot, the same events; stdout has no token counts,
        // the persisted events file has them (Copilot's cost is not in dollars).
        sessions: &[
            Session {
                source: Source::Fixture("copilot.jsonl"),
                ..COPILOT_SESSION
            },
            Session {
                source: Source::Fixture("copilot.anthropic-wire.jsonl"),
                session_id: "20b9bbfe-a66c-4d7c-9f3d-d013224a440d",
                commands: &[("echo hello", Some(0), Some("2026-11-22T03:05:39.791Z"))],
                calls: &[
                    ("toolu_mock_76e0fd1ab968455b", "bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:05:39.791Z")),
                    ("toolu_mock_0becce14dc644bc4", "view", r#"{"path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:05:39.905Z")),
                ],
                results: &[
                    ("toolu_mock_76e0fd1ab968455b", "bash", COPILOT_HELLO, false),
                    ("toolu_mock_0becce14dc644bc4", "view", Text::Has(SECRET_WORD), false),
                ],
                messages: &[
                    (Role::User, None, PROMPT, Some("2026-11-22T03:05:39.665Z")),
                    (Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:05:39.945Z")),
                ],
                ..COPILOT_SESSION
            },
            Session {
                source: Source::Fixture("copilot.responses-wire.jsonl"),
                session_id: "cfbbb369-725d-4106-9770-9d005baf8405",
                commands: &[("echo hello", Some(0), Some("2026-11-22T03:05:35.186Z"))],
                calls: &[
                    ("call_mock_b318af63e3a8", "bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:05:35.186Z")),
                    ("call_mock_b323124e673c", "view", r#"{"path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:05:35.350Z")),
                ],
                results: &[
                    ("call_mock_b318af63e3a8", "bash", COPILOT_HELLO, false),
                    ("call_mock_b323124e673c", "view", Text::Has(SECRET_WORD), false),
                ],
                messages: &[
                    (Role::User, None, PROMPT, Some("2026-11-22T03:05:35.063Z")),
                    (Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:05:35.398Z")),
                ],
                ..COPILOT_SESSION
            },
            Session {
                source: Source::Fixture("copilot.persisted-events.jsonl"),
                session_id: "3d15daf6-8195-42b1-91cb-ff1094e521d5",
                commands: &[("echo hello", Some(0), Some("2026-11-22T03:05:13.919Z"))],
                calls: &[
                    ("call_mock_d6ea47d107b8", "bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:05:13.919Z")),
                    ("call_mock_7cd5a42c43f0", "view", r#"{"path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:05:14.073Z")),
                ],
                results: &[
                    ("call_mock_d6ea47d107b8", "bash", COPILOT_HELLO, false),
                    ("call_mock_7cd5a42c43f0", "view", Text::Has(SECRET_WORD), false),
                ],
                messages: &[
                    (Role::User, None, PROMPT, Some("2026-11-22T03:05:13.777Z")),
                    (Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:05:14.130Z")),
                ],
                usage: Usage { input: Some(39694), output: Some(21), reasoning: None, cache: Some(0), total: Some(39715), cost: None },
                ..COPILOT_SESSION
            },
        ],
        // One turn started before the refusal.
        refused: Ok(Refused {
            fixture: "copilot.error-400.jsonl",
            session_id: "87a0500c-d0a8-407d-8c22-455f24368262",
            status: Some(400),
            message: "mock: forced error 400",
            steps: 1,
            raw: &[],
            messages: &["hi"],
        }),
        args: "--x -p {prompt} --model m --output-format json --allow-all-tools --no-auto-update --disable-client-telemetry --usage-output-file {artifacts}/copilot-usage.json",
        resume_args: "--x -p Why? --resume=ID --model m --output-format json --allow-all-tools --no-auto-update --disable-client-telemetry --usage-output-file {artifacts}/copilot-usage.json",
        model_flag: "--model",
        login: &[".copilot/config.json"],
        seeded: &[("copilot-home/config.json", true)],
        seeded_without_login: &[],
        stays_out: &[
            (".copilot/settings.json", "copilot-home/settings.json"),
            (".copilot/copilot-instructions.md", "copilot-home/copilot-instructions.md"),
            (".copilot/skills/x/SKILL.md", "copilot-home/skills"),
            (".copilot/session-state/old/events.jsonl", "copilot-home/session-state"),
        ],
        passes: "COPILOT_PROVIDER_BASE_URL",
        collect: Some(Collect {
            file: |id| format!("copilot-home/session-state/{id}/events.jsonl"),
            id: "3d15daf6",
            decoy: None,
            unknown_id_takes_newest: false,
        }),
        install: "@github/copilot",
        auth: &[
            Auth::Env("COPILOT_GITHUB_TOKEN"),
            Auth::Env("GH_TOKEN"),
            Auth::Env("GITHUB_TOKEN"),
            Auth::Env("COPILOT_PROVIDER_BASE_URL"),
            Auth::File("/home/u/.copilot/config.json"),
        ],
        auth_help: "copilot login",
    },
    Row {
        name: "cursor-agent",
        // No capture exists (the CLI is not installable here): the lines of the TypeScript
        // adapter's tests (skillgym-ts 4.4).
        sessions: &[Session {
            source: Source::Lines(&[
                r#"{"type":"system","subtype":"init","session_id":"chat_123","cwd":"/tmp/workspace"}"#,
                r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"read the skill"}]}}"#,
                r#"{"type":"tool_call","subtype":"started","call_id":"tool_1","timestamp_ms":1776333599552,"tool_call":{"shellToolCall":{"args":{"command":"sed -n '1,200p' skills/find-skills/SKILL.md","workingDirectory":"/tmp/workspace"}}}}"#,
                r##"{"type":"tool_call","subtype":"completed","call_id":"tool_1","timestamp_ms":1776333599600,"tool_call":{"shellToolCall":{"args":{"command":"sed -n '1,200p' skills/find-skills/SKILL.md","workingDirectory":"/tmp/workspace"},"result":{"success":{"command":"sed -n '1,200p' skills/find-skills/SKILL.md","stdout":"# skill","stderr":"","exitCode":0}}}}}"##,
                r#"{"type":"tool_call","subtype":"started","call_id":"tool_2","tool_call":{"readToolCall":{"args":{"filePath":"skills/find-skills/SKILL.md"}}}}"#,
                r##"{"type":"tool_call","subtype":"completed","call_id":"tool_2","tool_call":{"readToolCall":{"args":{"filePath":"skills/find-skills/SKILL.md"},"result":"# skill"}}}"##,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
                r#"{"type":"result","subtype":"success","result":"done","usage":{"inputTokens":200,"outputTokens":50,"cacheReadTokens":75,"cacheWriteTokens":0}}"#,
            ]),
            prompt: "read the skill",
            session_id: "chat_123",
            steps: 3,
            commands: &[("sed -n '1,200p' skills/find-skills/SKILL.md", Some(0), Some("2026-04-16T09:59:59.552Z"))],
            reads: &[
                "/tmp/workspace/skills/find-skills/SKILL.md",
                "/home/dev/demo/wd/skills/find-skills/SKILL.md",
            ],
            calls: &[
                ("tool_1", "shell", r#"{"command":"sed -n '1,200p' skills/find-skills/SKILL.md","workingDirectory":"/tmp/workspace"}"#, Some("2026-04-16T09:59:59.552Z")),
                ("tool_2", "read", r#"{"filePath":"skills/find-skills/SKILL.md"}"#, None),
            ],
            results: &[
                ("tool_1", "shell", Text::Is("# skill"), false),
                ("tool_2", "read", Text::Is("# skill"), false),
            ],
            messages: &[
                (Role::User, None, "read the skill", None),
                (Role::Assistant, Some(Phase::Final), DONE, None),
            ],
            raw: &["system/init"],
            skills: &[("find-skills", Confidence::Strong)],
            usage: Usage { input: Some(275), output: Some(50), reasoning: None, cache: Some(75), total: Some(250), cost: None },
        }],
        refused: Err("cursor-agent prints a rejected model on stderr only (cursor.rs)"),
        args: "--x -p --output-format stream-json --force --trust --workspace {cwd} --model m {prompt}",
        resume_args: "--x -p --output-format stream-json --force --trust --workspace {cwd} --resume ID --model m Why?",
        model_flag: "--model",
        login: &[],
        seeded: &[],
        seeded_without_login: &[],
        stays_out: &[],
        passes: "CURSOR_API_KEY",
        collect: None,
        install: "cursor.com/install",
        auth: &[
            Auth::Env("CURSOR_API_KEY"),
            Auth::File("/home/u/.config/cursor/auth.json"),
        ],
        auth_help: "cursor-agent login",
    },
    Row {
        name: "gemini-cli",
        sessions: &[Session {
            source: Source::Fixture("gemini-cli.jsonl"),
            prompt: PROMPT,
            session_id: "04c60973-a084-4125-8133-be8e63029868",
            steps: 3,
            commands: &[("echo hello", None, Some("2026-11-22T03:08:02.286Z"))],
            reads: &[SKILL],
            calls: &[
                ("run_shell_command__run_shell_command_1795316882213_0", "run_shell_command", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:08:02.286Z")),
                ("read_file__read_file_1795316882495_0", "read_file", r#"{"file_path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:08:02.504Z")),
            ],
            results: &[
                ("run_shell_command__run_shell_command_1795316882213_0", "run_shell_command", Text::Is("hello"), false),
                ("read_file__read_file_1795316882495_0", "read_file", Text::Is(""), false),
            ],
            messages: &[
                (Role::User, None, PROMPT, Some("2026-11-22T03:08:02.137Z")),
                (Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:08:02.555Z")),
            ],
            raw: &[],
            skills: &[],
            // total = input + output: no thinking.
            usage: Usage { input: Some(35961), output: Some(21), reasoning: None, cache: Some(0), total: Some(35982), cost: None },
        }],
        // Captured from gemini 0.61.0 (exit code 144); Gemini prints zeros for the usage.
        refused: Ok(Refused {
            fixture: "gemini-cli.error-400.jsonl",
            session_id: "7ad07f4a-9f5a-4a3c-bbcd-98cdfd5e3939",
            status: Some(400),
            message: "mock: forced error 400",
            steps: 0,
            raw: &[],
            messages: &["hi"],
        }),
        args: "--x -p {prompt} --output-format stream-json --yolo -m m",
        resume_args: "--x --resume ID -p Why? --output-format stream-json --yolo -m m",
        model_flag: "-m",
        login: &[".gemini/settings.json", ".gemini/oauth_creds.json"],
        seeded: &[
            ("gemini-home/.gemini/settings.json", false),
            ("gemini-home/.gemini/oauth_creds.json", true),
        ],
        seeded_without_login: &[],
        stays_out: &[
            (".gemini/skills/x/SKILL.md", "gemini-home/.gemini/skills"),
            (".gemini/tmp/p/chats/old.jsonl", "gemini-home/.gemini/tmp"),
            (".gemini/GEMINI.md", "gemini-home/.gemini/GEMINI.md"),
            (".gitconfig", "gemini-home/.gitconfig"),
        ],
        passes: "GOOGLE_GEMINI_BASE_URL",
        collect: Some(Collect {
            // The chat file is named by the session id's first 8 characters.
            file: |id| {
                format!("gemini-home/.gemini/tmp/wd/chats/session-2026-11-22T06-07-{}.jsonl", &id[..8])
            },
            id: "7ad07f4a-9f5a-4a3c-bbcd-98cdfd5e3939",
            decoy: Some("gemini-home/.gemini/tmp/wd/chats/7ad07f4a-9f5a/sub.jsonl"),
            unknown_id_takes_newest: false,
        }),
        install: "@google/gemini-cli",
        auth: &[
            Auth::Env("GEMINI_API_KEY"),
            Auth::Env("GOOGLE_API_KEY"),
            Auth::Env("GOOGLE_APPLICATION_CREDENTIALS"),
            Auth::File("/home/u/.gemini/oauth_creds.json"),
            Auth::File("/home/u/.gemini/gemini-credentials.json"),
            Auth::File("/home/u/.gemini/.env"),
        ],
        auth_help: "GEMINI_API_KEY",
    },
    Row {
        name: "qwen-code",
        sessions: &[Session {
            source: Source::Fixture("qwen-code.jsonl"),
            prompt: PROMPT,
            session_id: "67c72904-085a-43f5-b144-ab4b7b440f76",
            steps: 3,
            // Qwen 0.15.10 reports no exit code.
            commands: &[("echo hello", None, None)],
            reads: &[SKILL],
            calls: &[
                ("call_mock_cb64485cea92", "run_shell_command", r#"{"command":"echo hello","description":"Print hello"}"#, None),
                ("call_mock_c2f5e224850a", "read_file", r#"{"file_path":"/home/dev/demo/wd/SKILL.md"}"#, None),
            ],
            results: &[
                ("call_mock_cb64485cea92", "run_shell_command", Text::Is("hello"), false),
                ("call_mock_c2f5e224850a", "read_file", Text::Has(SECRET_WORD), false),
            ],
            messages: &[(Role::Assistant, Some(Phase::Final), DONE, None)],
            raw: &["system/init"],
            skills: &[],
            usage: Usage { input: Some(58855), output: Some(21), reasoning: None, cache: Some(0), total: Some(58876), cost: None },
        }],
        // Captured from Qwen Code 0.24.4 against a model that refuses every request.
        refused: Ok(Refused {
            fixture: "qwen-code-0.24.4.error-400.jsonl",
            session_id: "f1daa95c-010b-402b-95db-fa009dbed5b5",
            status: Some(400),
            message: "model `nope` does not exist",
            steps: 1,
            raw: &["system/init"],
            messages: &[],
        }),
        args: "--x --output-format stream-json --yolo -m m {prompt}",
        resume_args: "--x --output-format stream-json --yolo -m m -r ID Why?",
        model_flag: "-m",
        login: &[".qwen/settings.json", ".qwen/oauth_creds.json"],
        seeded: &[
            ("qwen/oauth_creds.json", true),
            ("qwen/settings.json", false),
        ],
        // The session's settings: the switches alone.
        seeded_without_login: &["qwen/settings.json"],
        stays_out: &[
            (".qwen/QWEN.md", "qwen/QWEN.md"),
            (".qwen/skills/x/SKILL.md", "qwen/skills"),
        ],
        passes: "OPENAI_BASE_URL",
        collect: Some(Collect {
            file: |id| format!("qwen/projects/-home-dev-demo-wd/chats/{id}.jsonl"),
            id: "s-1",
            decoy: None,
            unknown_id_takes_newest: false,
        }),
        install: "@qwen-code/qwen-code",
        // A key alone is not enough for Qwen: its settings must select an auth type.
        auth: &[Auth::Checked("/home/u/.qwen/settings.json selects an auth type")],
        auth_help: "qwen auth",
    },
];

/// Claude Code's capture of the scripted session (2.1.330).
#[rustfmt::skip]
const CLAUDE_SESSION: Session = Session {
    source: Source::Fixture("claude-code.jsonl"),
    prompt: PROMPT,
    session_id: "3558f9a7-12e9-4f56-91bc-92c692237100",
    steps: 3,
    commands: &[("echo hello", Some(0), Some("2026-11-22T03:07:26.452Z"))],
    reads: &[SKILL],
    calls: &[
        ("toolu_mock_06b29267bba24df8", "Bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:07:26.452Z")),
        ("toolu_mock_3cf9c7fddd2f4b05", "Read", r#"{"file_path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:07:26.694Z")),
    ],
    results: &[
        ("toolu_mock_06b29267bba24df8", "Bash", Text::Is("hello"), false),
        ("toolu_mock_3cf9c7fddd2f4b05", "Read", Text::Has(SECRET_WORD), false),
    ],
    messages: &[(Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:07:26.850Z"))],
    raw: &["system/init"],
    skills: &[],
    usage: Usage { input: Some(37877), output: Some(21), reasoning: Some(0), cache: Some(0), total: Some(37898), cost: Some(0.151928) },
};

/// Codex's capture of the scripted session (it reads with `cat`; no timestamps).
#[rustfmt::skip]
const CODEX_SESSION: Session = Session {
    source: Source::Fixture("codex.jsonl"),
    prompt: PROMPT,
    session_id: "01a20139-2696-7720-9b74-178414dbe828",
    steps: 3,
    commands: &[
        ("echo hello", Some(0), None),
        ("cat SKILL.md", Some(0), None),
    ],
    reads: &[SKILL],
    calls: &[
        ("item_0", "command_execution", r#"{"command":"/bin/bash -lc 'echo hello'"}"#, None),
        ("item_1", "command_execution", r#"{"command":"/bin/bash -lc 'cat SKILL.md'"}"#, None),
    ],
    results: &[
        ("item_0", "command_execution", Text::Is("hello\n"), false),
        ("item_1", "command_execution", Text::Has(SECRET_WORD), false),
    ],
    messages: &[(Role::Assistant, Some(Phase::Final), DONE, None)],
    raw: &[],
    skills: &[],
    usage: Usage { input: Some(29245), output: Some(21), reasoning: Some(0), cache: Some(0), total: Some(29266), cost: None },
};

/// What Copilot's shell tool answers to `echo hello`.
const COPILOT_HELLO: Text = Text::Is("hello\n<shellId: 0 completed with exit code 0>");

/// Copilot's capture of the scripted session (OpenAI chat wire API).
#[rustfmt::skip]
const COPILOT_SESSION: Session = Session {
    source: Source::Fixture("copilot.jsonl"),
    prompt: PROMPT,
    session_id: "8406a0a8-1a16-4cb4-887c-3a8dda0c8989",
    steps: 3,
    // The command keeps the time of its start.
    commands: &[("echo hello", Some(0), Some("2026-11-22T03:07:37.613Z"))],
    reads: &[SKILL],
    calls: &[
        ("call_mock_00910c6582b7", "bash", r#"{"command":"echo hello","description":"Print hello"}"#, Some("2026-11-22T03:07:37.613Z")),
        ("call_mock_89bc6bbb2504", "view", r#"{"path":"/home/dev/demo/wd/SKILL.md"}"#, Some("2026-11-22T03:07:37.731Z")),
    ],
    results: &[
        ("call_mock_00910c6582b7", "bash", COPILOT_HELLO, false),
        ("call_mock_89bc6bbb2504", "view", Text::Has(SECRET_WORD), false),
    ],
    messages: &[
        (Role::User, None, PROMPT, Some("2026-11-22T03:07:37.487Z")),
        (Role::Assistant, Some(Phase::Final), DONE, Some("2026-11-22T03:07:37.772Z")),
    ],
    raw: &[],
    skills: &[],
    usage: Usage { input: None, output: None, reasoning: None, cache: None, total: None, cost: None },
};

/// The row of an agent CLI.
fn row(spec: &AgentSpec) -> &'static Row {
    ROWS.iter()
        .find(|row| row.name == spec.name)
        .unwrap_or_else(|| {
            panic!(
                "agent `{}` has no row in `agent/tests.rs` (`ROWS`): add its captured \
                 transcripts and the facts they normalize to",
                spec.name
            )
        })
}

/// Every agent CLI with its row.
fn rows() -> impl Iterator<Item = (&'static AgentSpec, &'static Row)> {
    spec::ALL.iter().map(|spec| (*spec, row(spec)))
}

#[test]
fn every_agent_cli_has_one_row() {
    for (spec, row) in rows() {
        assert!(
            !row.sessions.is_empty(),
            "{}: no captured session",
            spec.name
        );
    }
    for row in ROWS {
        assert!(
            spec::of(row.name).is_some(),
            "row `{}` names no agent CLI in `spec::ALL`",
            row.name
        );
        assert_eq!(
            ROWS.iter().filter(|other| other.name == row.name).count(),
            1,
            "one row of {}",
            row.name
        );
    }
}

/// Normalizes a transcript with the adapter of `spec`, as a session with `prompt` in [`CWD`].
fn normalize(spec: &AgentSpec, source: &Source, prompt: &str) -> Normalized {
    let stream = match source {
        Source::Fixture(name) => fixture(name),
        Source::Lines(lines) => lines.join("\n"),
    };
    let mut parser = (spec.build)(AgentOptions::new("m")).parser();
    normalize_in(&mut *parser, &stream, CWD, prompt)
}

/// A raw event as `type` or `type/subtype`.
fn raw_kinds(report: &SessionReport) -> Vec<String> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Raw { value, .. } => Some(match value["subtype"].as_str() {
                Some(subtype) => format!("{}/{subtype}", value["type"].as_str().unwrap_or("")),
                None => value["type"].as_str().unwrap_or("").to_owned(),
            }),
            _ => None,
        })
        .collect()
}

/// The report's messages: role, phase, text, time.
fn messages(report: &SessionReport) -> Vec<(Role, Option<Phase>, &str, Option<&str>)> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Message {
                role,
                phase,
                text,
                at,
                ..
            } => Some((*role, *phase, text.as_str(), at.as_deref())),
            _ => None,
        })
        .collect()
}

/// A token count the provider gave.
fn provider(count: Option<u64>) -> Option<TokenCount> {
    count.map(TokenCount::provider)
}

#[test]
fn normalizes_the_captured_sessions() {
    for (spec, row) in rows() {
        for session in row.sessions {
            let name = match session.source {
                Source::Fixture(name) => name,
                Source::Lines(_) => spec.name,
            };
            let normalized = normalize(spec, &session.source, session.prompt);
            let report = &normalized.report;
            assert_eq!(normalized.steps, session.steps, "{name}: steps");
            assert!(normalized.provider_error.is_none(), "{name}");
            assert_eq!(
                report.session_id.as_deref(),
                Some(session.session_id),
                "{name}"
            );
            let commands: Vec<_> = report
                .events
                .iter()
                .filter_map(|event| match event {
                    SessionEvent::Command {
                        command,
                        exit_code,
                        at,
                        ..
                    } => Some((command.as_str(), *exit_code, at.as_deref())),
                    _ => None,
                })
                .collect();
            assert_eq!(commands, session.commands, "{name}: commands");
            let reads: Vec<&Path> = session.reads.iter().map(Path::new).collect();
            assert_eq!(report.file_reads(), reads, "{name}: file reads");
            let calls: Vec<_> = report
                .events
                .iter()
                .filter_map(|event| match event {
                    SessionEvent::ToolCall { id, tool, args, at } => Some((
                        id.as_deref().unwrap_or_default(),
                        tool.as_str(),
                        args.clone(),
                        at.as_deref(),
                    )),
                    _ => None,
                })
                .collect();
            let expected: Vec<_> = session
                .calls
                .iter()
                .map(|(id, tool, args, at)| {
                    (
                        *id,
                        *tool,
                        serde_json::from_str::<Value>(args).unwrap(),
                        *at,
                    )
                })
                .collect();
            assert_eq!(calls, expected, "{name}: tool calls");
            let results = test_support::tool_results(report);
            assert_eq!(results.len(), session.results.len(), "{name}: {results:?}");
            for (result, (id, tool, output, is_error)) in results.iter().zip(session.results) {
                assert_eq!(
                    (result.0, result.1, result.3),
                    (*id, *tool, *is_error),
                    "{name}"
                );
                match output {
                    Text::Is(text) => assert_eq!(result.2, *text, "{name}: output of {id}"),
                    Text::Has(text) => {
                        assert!(
                            result.2.contains(text),
                            "{name}: output of {id}: {:?}",
                            result.2
                        );
                    }
                }
            }
            assert_eq!(messages(report), session.messages, "{name}: messages");
            assert!(
                matches!(
                    report.events.last(),
                    Some(SessionEvent::Message {
                        phase: Some(Phase::Final),
                        ..
                    })
                ),
                "{name}: the answer comes last"
            );
            assert_eq!(raw_kinds(report), session.raw, "{name}: raw events");
            // Nothing else: each event is one of the above (a read is a command's or a call's).
            let reads = report
                .events
                .iter()
                .filter(|event| matches!(event, SessionEvent::FileRead { .. }))
                .count();
            assert_eq!(
                report.events.len(),
                commands.len()
                    + reads
                    + calls.len()
                    + results.len()
                    + session.messages.len()
                    + session.raw.len(),
                "{name}: events {:?}",
                report.events
            );
            assert_eq!(reads, session.reads.len(), "{name}: failed reads");
            // A SKILL.md read at the workspace root names no skill: its file is gone and cannot
            // give its frontmatter name.
            let skills: Vec<_> = report
                .detected_skills
                .iter()
                .map(|skill| (skill.skill.as_str(), skill.confidence))
                .collect();
            assert_eq!(skills, session.skills, "{name}: skills");
            assert!(report.skill_attempts.is_empty(), "{name}");
            assert_eq!(report.final_output, DONE, "{name}");
            let usage = &report.usage;
            let expected = session.usage;
            assert_eq!(
                (
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.reasoning_tokens,
                    usage.cache_tokens,
                    usage.total_tokens,
                    usage.cost_usd
                ),
                (
                    provider(expected.input),
                    provider(expected.output),
                    provider(expected.reasoning),
                    provider(expected.cache),
                    expected.total.map(TokenCount::derived),
                    expected.cost
                ),
                "{name}: usage"
            );
            assert_eq!(usage.input_chars, session.prompt.len() as u64, "{name}");
            assert_eq!(usage.output_chars, DONE.len() as u64, "{name}");
            assert_eq!(usage.reasoning_chars, 0, "{name}");
            assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
        }
    }
}

#[test]
fn a_refused_request_is_a_provider_error() {
    for (spec, row) in rows() {
        let refused = match &row.refused {
            Ok(refused) => refused,
            Err(why) => {
                assert!(
                    !why.is_empty(),
                    "{}: say why there is no refused run",
                    spec.name
                );
                continue;
            }
        };
        let name = refused.fixture;
        let normalized = normalize(spec, &Source::Fixture(name), PROMPT);
        let error = normalized
            .provider_error
            .unwrap_or_else(|| panic!("{name}: no provider error"));
        assert_eq!(error.status, refused.status, "{name}");
        assert_eq!(error.message, refused.message, "{name}");
        assert!(error.is_rejection(), "{name}: a 400 is a rejection");
        assert_eq!(normalized.steps, refused.steps, "{name}: steps");
        let report = &normalized.report;
        assert_eq!(
            report.session_id.as_deref(),
            Some(refused.session_id),
            "{name}"
        );
        assert_eq!(report.final_output, "", "{name}");
        assert_eq!(report.commands().count(), 0, "{name}");
        assert_eq!(report.tool_calls(None).count(), 0, "{name}");
        assert_eq!(raw_kinds(report), refused.raw, "{name}: raw events");
        let messages: Vec<_> = messages(report)
            .into_iter()
            .map(|(role, _, text, _)| {
                assert_eq!(role, Role::User, "{name}: {text}");
                text
            })
            .collect();
        assert_eq!(messages, refused.messages, "{name}: messages");
        assert_eq!(
            report.events.len(),
            refused.raw.len() + refused.messages.len(),
            "{name}: {:?}",
            report.events
        );
        // Whatever zeros the CLI prints: unknown, not nothing.
        let usage = &report.usage;
        assert_eq!(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.total_tokens,
                usage.cost_usd
            ),
            (None, None, None, None),
            "{name}"
        );
        assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
    }
}

/// The harness's own environment in these tests: the state variable names another directory,
/// which an explicit `user_home` overrides (it stands for the whole user).
fn harness_env(spec: &AgentSpec) -> ProcessEnv {
    ProcessEnv::fixed(spec.state.as_ref().map(|state| (state.var, "/elsewhere")))
}

/// The row's arguments with the session's prompt, working directory and artifacts.
fn expand(args: &str, runner_id: &str, artifacts: &Path) -> Vec<String> {
    args.split(' ')
        .map(|arg| {
            arg.replace("{title}", &format!("skillgym {runner_id}"))
                .replace("{prompt}", PROMPT)
                .replace("{cwd}", CWD)
                .replace("{artifacts}", &artifacts.display().to_string())
        })
        .collect()
}

/// Writes each of `files` below `home`.
fn write_below(home: &Path, files: &[&str], content: &str) {
    for file in files {
        let path = home.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
}

/// What the CLI's session file holds here.
const SESSION_FILE: &str = "{\"type\":\"user\"}\n";

/// The login's content: a JSON object without a refresh token (Claude Code's copy is verbatim).
const LOGIN: &str = r#"{"token":"t"}"#;

#[test]
fn launches_isolated_and_seeded() {
    for (spec, row) in rows() {
        let name = spec.name;
        let tmp = scratch(name, "launch");
        let dir = tmp.path();
        let home = dir.join("home");
        write_below(&home, row.login, LOGIN);
        let own: Vec<&str> = row.stays_out.iter().map(|(file, _)| *file).collect();
        write_below(&home, &own, "the user's own");
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let session = test_support::spec(name, dir, &state, &artifacts);
        let mut options = AgentOptions::new("m")
            .process_env(harness_env(spec))
            .args(["--x"])
            .env(row.passes, "http://127.0.0.1:8765")
            .user_home(&home);
        for (key, _) in spec.fixed_env {
            options = options.env(*key, "mine");
        }
        let agent = (spec.build)(options);
        let mut launch = agent.launch(&session).unwrap();
        assert_eq!(launch.program, spec.program, "{name}");
        assert_eq!(
            strings(&launch.args),
            expand(row.args, name, &artifacts),
            "{name}"
        );
        for (key, _) in spec.fixed_env {
            assert_eq!(env(&launch, key), Some("mine"), "{name}: agent.env wins");
        }
        assert_eq!(
            env(&launch, row.passes),
            Some("http://127.0.0.1:8765"),
            "{name}"
        );
        if let Some(var) = spec.state.as_ref() {
            let private = state.join(var.private);
            assert_eq!(env(&launch, var.var), private.to_str(), "{name}");
        }
        let home_var = spec.home_skills.then(|| state.join("home"));
        assert_eq!(
            env(&launch, "HOME"),
            home_var.as_deref().and_then(Path::to_str),
            "{name}: a private HOME only for agents reading skills there (git's identity stays)"
        );
        let seeded: Vec<PathBuf> = row
            .seeded
            .iter()
            .map(|(file, _)| state.join(file))
            .collect();
        assert_eq!(launch.seeded.files(), seeded, "{name}: seeded");
        for (file, verbatim) in row.seeded {
            let copy = state.join(file);
            assert_eq!(mode(&copy), 0o600, "{name}: {file}");
            if *verbatim {
                assert_eq!(fs::read_to_string(&copy).unwrap(), LOGIN, "{name}: {file}");
            }
        }
        for file in row.login {
            assert!(home.join(file).exists(), "{name}: the user's {file} stays");
        }
        for (file, copy) in row.stays_out {
            assert!(!state.join(copy).exists(), "{name}: {file} reached {copy}");
        }
        assert!(launch.seeded.remove().is_empty(), "{name}");
        for file in &seeded {
            assert!(
                !file.exists(),
                "{name}: {} outlived the session",
                file.display()
            );
        }

        // No login, no model: the fixed environment as the spec says.
        let empty = dir.join("empty-home");
        fs::create_dir_all(&empty).unwrap();
        let state = dir.join("bare-state");
        let session = test_support::spec(name, dir, &state, &artifacts);
        let agent = (spec.build)(
            AgentOptions::default()
                .process_env(harness_env(spec))
                .user_home(&empty),
        );
        let launch = agent.launch(&session).unwrap();
        let seeded: Vec<PathBuf> = row
            .seeded_without_login
            .iter()
            .map(|file| state.join(file))
            .collect();
        assert_eq!(
            launch.seeded.files(),
            seeded,
            "{name}: seeded without a login"
        );
        assert!(
            !strings(&launch.args).contains(&row.model_flag),
            "{name}: {:?}",
            launch.args
        );
        for (key, value) in spec.fixed_env {
            assert_eq!(env(&launch, key), Some(*value), "{name}");
        }
        if let Some(var) = &spec.state {
            // A CLI that creates its directory itself gets none when nothing goes into it.
            assert_eq!(
                state.join(var.private).exists(),
                !var.created_by_agent || !seeded.is_empty(),
                "{name}: {}",
                var.private
            );
        }
        tmp.close().unwrap();
    }
}

#[test]
fn a_state_dir_from_agent_env_is_used_as_it_is() {
    for (spec, row) in rows() {
        let Some(var) = &spec.state else {
            continue;
        };
        let name = spec.name;
        let tmp = scratch(name, "chosen");
        let dir = tmp.path();
        let home = dir.join("home");
        write_below(&home, row.login, LOGIN);
        let state = dir.join("state");
        let chosen = dir.join("chosen");
        let agent = (spec.build)(
            AgentOptions::default()
                .process_env(harness_env(spec))
                .env(var.var, chosen.display().to_string())
                .user_home(&home),
        );
        let launch = agent
            .launch(&test_support::spec(name, dir, &state, dir))
            .unwrap();
        assert!(launch.seeded.is_empty(), "{name}: nothing is seeded");
        assert_eq!(env(&launch, var.var), chosen.to_str(), "{name}");
        assert!(
            !chosen.exists(),
            "{name}: the user's directory is left alone"
        );
        assert!(!state.join(var.private).exists(), "{name}");
        if spec.home_skills {
            assert_eq!(
                env(&launch, "HOME"),
                state.join("home").to_str(),
                "{name}: the user's skills under $HOME stay away all the same"
            );
        }
        // `skillgym doctor` looks for the login there.
        for file in var.auth_files {
            let login = AuthSource::File(chosen.join(file));
            assert!(agent.setup().auth.contains(&login), "{name}: {login:?}");
        }
        tmp.close().unwrap();
    }
}

#[test]
fn resumes_in_the_same_state() {
    for (spec, row) in rows() {
        let name = spec.name;
        let tmp = scratch(name, "resume");
        let dir = tmp.path();
        let home = dir.join("home");
        write_below(&home, row.login, LOGIN);
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        let agent = (spec.build)(
            AgentOptions::new("m")
                .process_env(harness_env(spec))
                .command("/opt/agent")
                .args(["--x"])
                .user_home(&home),
        );
        let session = SessionSpec {
            prompt: "Why?",
            ..test_support::spec(name, dir, &state, &artifacts)
        };
        assert!(agent.can_resume(), "{name}");
        let launch = agent.resume(&session, "ID").unwrap().unwrap();
        assert_eq!(launch.program, "/opt/agent", "{name}");
        assert_eq!(
            strings(&launch.args),
            expand(row.resume_args, name, &artifacts),
            "{name}"
        );
        if let Some(var) = &spec.state {
            assert_eq!(
                env(&launch, var.var),
                state.join(var.private).to_str(),
                "{name}"
            );
        }
        let seeded: Vec<PathBuf> = row
            .seeded
            .iter()
            .map(|(file, _)| state.join(file))
            .collect();
        assert_eq!(launch.seeded.files(), seeded, "{name}: seeded");
        // The environment of the session it resumes: the same state directories.
        let resumed = launch.env.clone();
        drop(launch);
        let launch = agent.launch(&session).unwrap();
        assert_eq!(resumed, launch.env, "{name}: environment");
        drop(launch);
        tmp.close().unwrap();
    }
}

#[test]
fn collects_the_session_file() {
    for (spec, row) in rows() {
        let name = spec.name;
        let tmp = scratch(name, "collect");
        let dir = tmp.path();
        let state = dir.join("state");
        let artifacts = dir.join("artifacts");
        fs::create_dir_all(&artifacts).unwrap();
        let session = test_support::spec(name, dir, &state, &artifacts);
        let agent = (spec.build)(AgentOptions::default());
        let copied = artifacts.join("session.jsonl");

        // Nothing to find is normal.
        let mut out = ReportBuilder::new(CWD);
        agent.collect(&session, &mut out);
        assert!(out.current_session_file().is_none(), "{name}");
        assert!(out.finish(PROMPT).warnings.is_empty(), "{name}");
        let Some(collect) = row.collect else {
            tmp.close().unwrap();
            continue;
        };
        let file = state.join((collect.file)(collect.id));
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, SESSION_FILE).unwrap();
        if let Some(decoy) = collect.decoy {
            std::thread::sleep(std::time::Duration::from_millis(20));
            write_below(&state, &[decoy], "a subagent's");
        }

        let mut out = ReportBuilder::new(CWD);
        out.session_id(collect.id);
        agent.collect(&session, &mut out);
        assert_eq!(out.current_session_file(), Some(copied.as_path()), "{name}");
        assert_eq!(fs::read_to_string(&copied).unwrap(), SESSION_FILE, "{name}");
        let report = out.finish(PROMPT);
        assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
        assert_eq!(report.raw_artifacts.session, Some(copied.clone()), "{name}");

        // No id (a killed session): the newest file of a session.
        fs::remove_file(&copied).unwrap();
        let mut out = ReportBuilder::new(CWD);
        agent.collect(&session, &mut out);
        assert_eq!(out.current_session_file(), Some(copied.as_path()), "{name}");
        assert_eq!(fs::read_to_string(&copied).unwrap(), SESSION_FILE, "{name}");

        // Another session's id.
        fs::remove_file(&copied).unwrap();
        let mut out = ReportBuilder::new(CWD);
        out.session_id("other");
        agent.collect(&session, &mut out);
        let warnings = out.finish(PROMPT).warnings;
        if collect.unknown_id_takes_newest {
            assert_eq!(fs::read_to_string(&copied).unwrap(), SESSION_FILE, "{name}");
            assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        } else {
            assert!(!copied.exists(), "{name}");
            assert!(warnings.is_empty(), "{name}: a missing file is normal");
        }
        tmp.close().unwrap();
    }
}

#[test]
fn setup_names_program_and_auth() {
    for (spec, row) in rows() {
        let name = spec.name;
        let agent = (spec.build)(
            AgentOptions::default()
                .process_env(harness_env(spec))
                .user_home("/home/u"),
        );
        assert_eq!(agent.kind(), row.name);
        assert_eq!(agent.model(), None, "{name}");
        assert_eq!(
            agent.wire_api(),
            spec.wire_apis.first().copied(),
            "{name}: the CLI's default wire API"
        );
        let setup = agent.setup();
        assert_eq!(setup.program, spec.program, "{name}");
        assert_eq!(setup.version_args, ["--version"], "{name}");
        assert!(
            setup.install.contains(row.install),
            "{name}: {}",
            setup.install
        );
        let auth: Vec<AuthSource> = row
            .auth
            .iter()
            .map(|auth| match auth {
                Auth::Env(name) => AuthSource::Env((*name).to_owned()),
                Auth::File(path) => AuthSource::File(path.into()),
                Auth::Checked(what) => AuthSource::Checked {
                    found: false,
                    what: (*what).to_owned(),
                },
            })
            .collect();
        assert_eq!(setup.auth, auth, "{name}");
        assert!(
            setup.auth_help.contains(row.auth_help),
            "{name}: {}",
            setup.auth_help
        );
        assert!(setup.refusals.is_empty(), "{name}: {:?}", setup.refusals);
        let agent = (spec.build)(AgentOptions::new("m").process_env(harness_env(spec)));
        assert_eq!(agent.model(), Some("m"), "{name}");
    }
}

/// The kinds of the rows are the agent CLIs of [`AgentKind::CLIS`].
#[test]
fn the_rows_are_the_agent_clis() {
    let mut names: Vec<&str> = ROWS.iter().map(|row| row.name).collect();
    let mut clis: Vec<&str> = AgentKind::CLIS.iter().map(|kind| kind.as_str()).collect();
    names.sort_unstable();
    clis.sort_unstable();
    assert_eq!(names, clis);
}
