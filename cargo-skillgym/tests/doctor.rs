//! `cargo skillgym doctor` through the binary: found and missing programs, a version that fails,
//! credentials from `agent.env`, the environment or a login file, and bad invocations.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch directory with a fake user home, removed on drop.
struct Dir(tempfile::TempDir);

impl Dir {
    fn new(label: &str) -> Dir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("skillgym-doctor-{label}-"))
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Dir(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

/// Runs `skillgym` in `dir` with a clean environment (no keys of the machine's own).
fn skillgym(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .arg("skillgym")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.join("home"))
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn reports_each_runner_and_what_to_fix() {
    let dir = Dir::new("runners");
    let claude = dir.script("claude", "echo '2.1.330 (Claude Code)'");
    let broken = dir.script("opencode", "echo 'segfault in node' >&2; exit 3");
    let gemini = dir.script("gemini", "echo 0.61.0");
    std::fs::create_dir_all(dir.path().join("home/.gemini")).unwrap();
    std::fs::write(dir.path().join("home/.gemini/oauth_creds.json"), "{}").unwrap();
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        format!(
            "runners:
  claude: {{ agent: {{ type: claude-code, model: claude-sonnet-4-6, command: {claude}, env: {{ ANTHROPIC_API_KEY: sk-test }} }} }}
  codex: {{ agent: {{ type: codex, model: gpt-5.5 }} }}
  opencode: {{ agent: {{ type: opencode, model: a/b, command: {broken} }} }}
  gemini: {{ agent: {{ type: gemini-cli, model: gemini-2.5-pro, command: {gemini} }} }}
",
            claude = claude.display(),
            broken = broken.display(),
            gemini = gemini.display(),
        ),
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let expected_lines = [
        format!(
            "skillgym doctor: {}",
            dir.path().join("skillgym.yaml").display()
        ),
        "runner `claude`: claude-code (model claude-sonnet-4-6)".to_owned(),
        format!("  ok  program: {}", claude.display()),
        "  ok  version: 2.1.330 (Claude Code)".to_owned(),
        "  ok  auth: ANTHROPIC_API_KEY is set".to_owned(),
        "  ok  network: Anthropic's API (the login's)".to_owned(),
        "runner `codex`: codex (model gpt-5.5)".to_owned(),
        "  ERR program `codex` not found on PATH".to_owned(),
        "      install: npm install -g @openai/codex".to_owned(),
        "runner `opencode`: opencode (model a/b)".to_owned(),
        "  ok  network: the model's provider (the login's), models.opencode.ai (the catalog of the vendors' models), registry.npmjs.org (the npm registry: OpenCode installs its plugin SDK at start)".to_owned(),
        "runner `gemini`: gemini-cli (model gemini-2.5-pro)".to_owned(),
        "  ok  version: 0.61.0".to_owned(),
        format!(
            "  ok  auth: {} exists",
            dir.path().join("home/.gemini/oauth_creds.json").display()
        ),
        "4 runner(s) checked: 2 ready, 2 with problems".to_owned(),
    ];
    for line in expected_lines {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing line {line:?} in:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!(
            "  ERR `{} --version` failed (exit status: 3): segfault in node",
            broken.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("  ERR auth: none found (looked for "),
        "{stdout}"
    );
}

#[test]
fn an_environment_key_counts_and_all_ready_exits_zero() {
    let dir = Dir::new("ready");
    let codex = dir.script("codex", "echo 'codex-cli 0.169.0'");
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        format!(
            "runners:\n  codex: {{ agent: {{ type: codex, model: gpt-5.5, command: {} }} }}\n",
            codex.display()
        ),
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[("OPENAI_API_KEY", "sk-x")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("  ok  auth: OPENAI_API_KEY is set"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 runner(s) checked: 1 ready, 0 with problems"),
        "{stdout}"
    );
}

/// A runner asking for `sandbox: bubblewrap` gets `bwrap` checked; `network: loopback` with a
/// remote endpoint is a problem (only loopback is forwarded into the sandbox).
#[cfg(target_os = "linux")]
#[test]
fn a_sandboxed_runner_gets_bwrap_and_its_network_checked() {
    let dir = Dir::new("sandbox");
    let agent = dir.script("agent", "echo 1.0");
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        format!(
            "run:\n  sandbox: bubblewrap\nrunners:\n  local: {{ agent: {{ type: command, command: {agent} }} }}\n  remote:\n    agent: {{ type: command, command: {agent}, provider: {{ base_url: \"https://models.example.com/v1\" }} }}\n    sandbox: {{ mode: bubblewrap, network: loopback }}\n  open: {{ agent: {{ type: command, command: {agent} }}, sandbox: none }}\n",
            agent = agent.display(),
        ),
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let bwrap = ["/usr/bin/bwrap", "/bin/bwrap"]
        .into_iter()
        .find(|path| Path::new(path).is_file())
        .expect("bubblewrap is installed (.ci/test installs it)");
    assert!(
        stdout.contains(&format!(
            "  ok  sandbox: bubblewrap, network host ({bwrap})"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("  ERR sandbox: `network: loopback` cannot reach the model endpoint https://models.example.com/v1: only an endpoint on the host's loopback is forwarded into the sandbox\n      use `network: host`"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("sandbox:").count(),
        2,
        "`open` has none: {stdout}"
    );
    assert!(
        stdout.contains("3 runner(s) checked: 2 ready, 1 with problems"),
        "{stdout}"
    );

    // Without `bwrap` on PATH.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = skillgym(
        dir.path(),
        &["doctor"],
        &[("PATH", empty.to_str().unwrap())],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("  ERR sandbox: `sandbox: bubblewrap` needs `bwrap`, which is not on PATH\n      install bubblewrap"),
        "{stdout}"
    );
}

#[test]
fn bad_invocations_exit_2_with_the_reason() {
    let dir = Dir::new("usage");
    let cases: [(&[&str], &str); 6] = [
        (&[], "Usage: cargo skillgym <COMMAND>"),
        (
            &["frobnicate"],
            "error: unrecognized subcommand 'frobnicate'",
        ),
        (&["doctr"], "tip: a similar subcommand exists: 'doctor'"),
        (
            &["doctor", "--bogus"],
            "error: unexpected argument '--bogus' found",
        ),
        (
            &["doctor", "--config"],
            "error: a value is required for '--config <FILE>' but none was supplied",
        ),
        (
            &["doctor", "--config", "missing.yaml"],
            "config file not found",
        ),
    ];
    for (args, message) in cases {
        let output = skillgym(dir.path(), args, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        "runners:\n  c: { agent: { type: codex } }\n",
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("skillgym.yaml:2:"),
        "file and line: {stderr}"
    );
    assert!(
        stderr.contains("agent type `codex` needs a `model`"),
        "{stderr}"
    );
}

/// The runner's section of doctor's report: its header line up to the next blank line.
fn section<'a>(stdout: &'a str, runner: &str) -> &'a str {
    let start = stdout
        .find(&format!("runner `{runner}`"))
        .unwrap_or_else(|| panic!("no section for {runner}:\n{stdout}"));
    let rest = &stdout[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

#[test]
fn endpoints_are_checked_as_each_cli_will_see_them() {
    let dir = Dir::new("endpoints");
    let program = |name: &str| dir.script(name, "echo 1.0.0").display().to_string();
    let (claude, codex, copilot, gemini, qwen) = (
        program("claude"),
        program("codex"),
        program("copilot"),
        program("gemini"),
        program("qwen"),
    );
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        format!(
            "runners:
  codex-env: {{ agent: {{ type: codex, model: gpt-5.5, command: {codex}, env: {{ OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1', OPENAI_API_KEY: k }} }} }}
  gemini-env: {{ agent: {{ type: gemini-cli, model: g, command: {gemini}, env: {{ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4000', GEMINI_API_KEY: k }} }} }}
  qwen-env: {{ agent: {{ type: qwen-code, model: q, command: {qwen}, env: {{ OPENAI_API_KEY: k, OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1' }} }} }}
  copilot-byok: {{ agent: {{ type: copilot, model: m, command: {copilot}, provider: {{ base_url: 'http://127.0.0.1:4000/v1', api_key_env: GATEWAY_KEY }} }} }}
  claude-unset: {{ agent: {{ type: claude-code, model: m, command: {claude}, provider: {{ base_url: 'http://127.0.0.1:4000', api_key_env: MISSING_KEY }} }} }}
  qwen-local: {{ agent: {{ type: qwen-code, model: q, command: {qwen}, provider: {{ base_url: 'http://127.0.0.1:11434/v1' }} }} }}
  gemini-provider: {{ agent: {{ type: gemini-cli, model: g, command: {gemini}, provider: {{ base_url: 'http://127.0.0.1:4000', api_key_env: GATEWAY_KEY }} }} }}
"
        ),
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[("GATEWAY_KEY", "sk-g")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");

    // Configs the CLI refuses or ignores are not "ok".
    assert!(
        section(&stdout, "codex-env").contains(
            "  ERR OPENAI_BASE_URL is set (in agent.env), but Codex ignores it: requests would still go to OpenAI"
        ),
        "{stdout}"
    );
    assert!(
        section(&stdout, "gemini-env").contains("  ERR GOOGLE_GEMINI_BASE_URL is set (in agent.env), but without `security.auth.selectedType: gemini-api-key` in settings.json Gemini CLI exits 41"),
        "{stdout}"
    );
    let qwen_env = section(&stdout, "qwen-env");
    assert!(
        qwen_env.contains("  ERR auth: none found (looked for ")
            && qwen_env.contains("settings.json selects an auth type)"),
        "{stdout}"
    );
    assert!(
        section(&stdout, "claude-unset")
            .contains("  ERR auth: MISSING_KEY is not set (agent.provider.api_key_env)"),
        "{stdout}"
    );

    // Configs that work are not "ERR": BYOK needs no GitHub login, a local model no key.
    for (runner, lines) in [
        (
            "copilot-byok",
            &[
                "  ok  endpoint: http://127.0.0.1:4000/v1 (openai-chat)",
                "  ok  auth: GATEWAY_KEY is set (the endpoint's key)",
                "  ok  network: 127.0.0.1:4000 (the endpoint)",
            ][..],
        ),
        (
            "qwen-local",
            &["  ok  auth: none (no api_key_env: the agent gets `skillgym-no-key`)"][..],
        ),
        (
            "gemini-provider",
            &["  ok  endpoint: http://127.0.0.1:4000 (gemini)"][..],
        ),
    ] {
        let text = section(&stdout, runner);
        assert!(!text.contains("ERR"), "{runner}:\n{text}");
        for line in lines {
            assert!(
                text.lines().any(|l| l == *line),
                "{runner}: {line:?} in\n{text}"
            );
        }
    }
    assert!(
        stdout.contains("7 runner(s) checked: 3 ready, 4 with problems"),
        "{stdout}"
    );
}

#[test]
fn a_replaying_runner_needs_its_recording_and_no_program() {
    let dir = Dir::new("replay");
    let recording = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/agents/recording");
    std::fs::write(
        dir.path().join("skillgym.yaml"),
        format!(
            "runners:
  claude-code: {{ agent: {{ type: replay, recording: {rec} }} }}
  other: {{ agent: {{ type: replay, recording: {rec}, runner: cursor-agent }} }}
  gone: {{ agent: {{ type: replay, recording: missing }} }}
",
            rec = recording.display()
        ),
    )
    .unwrap();
    let output = skillgym(dir.path(), &["doctor"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let expected = [
        "runner `claude-code`: replay".to_owned(),
        format!(
            "  ok  replays runner `claude-code` (claude-code) of the recording {}; no program needed",
            recording.display()
        ),
        format!(
            "  ERR the recording {} holds no runner `cursor-agent` (it holds: claude-code, codex, copilot, gemini-cli, opencode, qwen-code)",
            recording.display()
        ),
        "3 runner(s) checked: 1 ready, 2 with problems".to_owned(),
    ];
    for line in expected {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing line {line:?} in:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!(
            "  ERR cannot read the recording {}",
            dir.path().join("missing").display()
        )),
        "{stdout}"
    );
}
