//! `skillgym doctor`: checks that each configured runner can run here — its program is found,
//! answers `--version`, and some credentials are in place, or, with `agent.provider`, the
//! endpoint's key — that nothing in its setup is something the CLI refuses or ignores, and,
//! for a runner with `sandbox: bubblewrap`, that `bwrap` is there and can make a sandbox (see
//! `crate::sandbox`). It says what to install or set, and where the agent may connect
//! ([`agent::network`]).

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::agent::{self, AgentOptions, AgentSetup, ApiKey, AuthSource, Provider};
use crate::config::{AgentKind, Config, RunnerConfig};
use crate::replay::Recording;

/// Where a program is found (used by `doctor` and the run's preflight checks).
pub use crate::process::find_program;

/// How long `--version` may take.
const VERSION_TIMEOUT: Duration = crate::versions::TIMEOUT;

/// The verdict on one runner.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunnerCheck {
    /// The runner id.
    pub runner: String,
    /// `claude-code (model claude-sonnet-4-6)`.
    pub agent: String,
    /// One line per check: passed, and the text.
    pub lines: Vec<(bool, String)>,
}

impl RunnerCheck {
    /// Whether every check passed.
    pub fn ready(&self) -> bool {
        self.lines.iter().all(|(ok, _)| *ok)
    }
}

/// Checks every runner of `config`, in file order.
pub fn check_config(config: &Config) -> Vec<RunnerCheck> {
    config
        .runners
        .iter()
        .map(|(id, runner)| {
            let mut check = check_runner(id, runner);
            let sandbox = runner.sandbox.as_ref().unwrap_or(&config.run.sandbox);
            check
                .lines
                .extend(crate::sandbox::doctor_lines(sandbox, runner));
            check
        })
        .collect()
}

/// Checks one runner.
pub fn check_runner(id: &str, runner: &RunnerConfig) -> RunnerCheck {
    let config = &runner.agent;
    let agent_text = match &config.model {
        Some(model) => format!("{} (model {model})", config.kind),
        None => config.kind.to_string(),
    };
    let options = AgentOptions::from_config(config);
    let mut lines = Vec::new();
    if let (AgentKind::Replay, Some(dir)) = (config.kind, &config.recording) {
        lines.push(check_recording(
            dir,
            config.replay_runner.as_deref().unwrap_or(id),
        ));
        return RunnerCheck {
            runner: id.to_owned(),
            agent: agent_text,
            lines,
        };
    }
    match agent::build(config.kind, options.clone()) {
        Ok(agent) => {
            let setup = agent.setup();
            check_program(&setup, &mut lines);
            match &options.provider {
                Some(provider) => check_endpoint(provider, &options, &mut lines),
                None => check_auth(&setup, &options, &mut lines),
            }
            let registry = options
                .env_value("NPM_CONFIG_REGISTRY")
                .or_else(|| options.env_value("npm_config_registry"));
            let contacts = agent::network::contacts(
                config.kind,
                options.provider.as_ref(),
                registry.as_deref(),
            );
            lines.push((true, format!("network: {}", contacts.join(", "))));
            lines.extend(setup.refusals.into_iter().map(|refusal| (false, refusal)));
        }
        Err(error) => lines.push((false, error.to_string())),
    }
    RunnerCheck {
        runner: id.to_owned(),
        agent: agent_text,
        lines,
    }
}

/// A replaying runner needs its recording, holding the runner it replays; no program.
fn check_recording(dir: &Path, runner: &str) -> (bool, String) {
    let recording = match Recording::open(dir) {
        Ok(recording) => recording,
        Err(error) => return (false, error.to_string()),
    };
    match recording.agent(runner) {
        Some(agent) => (
            true,
            format!(
                "replays runner `{runner}` ({}) of the recording {}; no program needed",
                agent.kind,
                dir.display()
            ),
        ),
        None => (
            false,
            format!(
                "the recording {} holds no runner `{runner}` (it holds: {})",
                dir.display(),
                recording.runner_ids().join(", ")
            ),
        ),
    }
}

fn check_program(setup: &AgentSetup, lines: &mut Vec<(bool, String)>) {
    let program = Path::new(&setup.program);
    let Some(found) = find_program(program) else {
        let mut text = format!("program `{}` not found", program.display());
        if !program.as_os_str().to_string_lossy().contains('/') {
            text.push_str(" on PATH");
        }
        if !setup.install.is_empty() {
            let _ = write!(text, "\n      install: {}", setup.install);
        }
        text.push_str("\n      or point `agent.command` in skillgym.yaml at it");
        lines.push((false, text));
        return;
    };
    lines.push((true, format!("program: {}", found.display())));
    if setup.version_args.is_empty() {
        return;
    }
    match version(&found, &setup.version_args) {
        Ok(version) => lines.push((true, format!("version: {version}"))),
        Err(problem) => lines.push((
            false,
            format!(
                "`{} {}` {problem}",
                program.display(),
                setup.version_args.join(" ")
            ),
        )),
    }
}

/// A provider endpoint: where it is, and whether its key is where the runner says.
fn check_endpoint(provider: &Provider, options: &AgentOptions, lines: &mut Vec<(bool, String)>) {
    lines.push((
        true,
        format!("endpoint: {} ({})", provider.base_url, provider.wire_api),
    ));
    match &provider.api_key {
        ApiKey::Env(name) if options.env_value(name).is_some() => {
            lines.push((true, format!("auth: {name} is set (the endpoint's key)")));
        }
        ApiKey::Env(name) => lines.push((
            false,
            format!(
                "auth: {name} is not set (agent.provider.api_key_env)\n      export it, or set it in the runner's agent.env"
            ),
        )),
        ApiKey::Value(_) => lines.push((true, "auth: a key of skillgym's own".to_owned())),
        ApiKey::None => lines.push((
            true,
            format!(
                "auth: none (no api_key_env: the agent gets `{}`)",
                agent::provider::NO_KEY
            ),
        )),
    }
}

fn check_auth(setup: &AgentSetup, options: &AgentOptions, lines: &mut Vec<(bool, String)>) {
    if setup.auth.is_empty() {
        return;
    }
    let found = setup.auth.iter().find_map(|source| match source {
        AuthSource::Env(name) => options
            .env_value(name)
            .map(|_| format!("auth: {name} is set")),
        AuthSource::File(path) => path
            .is_file()
            .then(|| format!("auth: {} exists", path.display())),
        AuthSource::Checked { found, what } => found.then(|| format!("auth: {what}")),
    });
    match found {
        Some(text) => lines.push((true, text)),
        None => {
            let tried: Vec<String> = setup
                .auth
                .iter()
                .map(|source| match source {
                    AuthSource::Env(name) => name.clone(),
                    AuthSource::File(path) => path.display().to_string(),
                    AuthSource::Checked { what, .. } => what.clone(),
                })
                .collect();
            let mut text = format!("auth: none found (looked for {})", tried.join(", "));
            if !setup.auth_help.is_empty() {
                let _ = write!(text, "\n      {}", setup.auth_help);
            }
            lines.push((false, text));
        }
    }
}

/// The first non-empty line the program prints for its version.
fn version(program: &Path, args: &[String]) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("could not be run: {error}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > VERSION_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "did not answer within {}s",
                    VERSION_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(error) => return Err(format!("could not be waited for: {error}")),
        }
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        let _ = pipe.read_to_string(&mut stdout);
    }
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let first_line = |text: &str| {
        text.lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(str::to_owned)
    };
    if !status.success() {
        let detail = first_line(&stderr)
            .or_else(|| first_line(&stdout))
            .unwrap_or_default();
        return Err(format!("failed ({status}): {detail}"));
    }
    first_line(&stdout)
        .or_else(|| first_line(&stderr))
        .ok_or_else(|| "printed nothing".to_owned())
}

/// The report for all runners, and whether all are ready.
pub fn render(config_path: Option<&Path>, checks: &[RunnerCheck]) -> (String, bool) {
    let mut out = String::new();
    match config_path {
        Some(path) => {
            let _ = writeln!(out, "skillgym doctor: {}", path.display());
        }
        None => {
            let _ = writeln!(out, "skillgym doctor: no skillgym.yaml found");
        }
    }
    if checks.is_empty() {
        let _ = writeln!(
            out,
            "no runners configured; add one under `runners:`, e.g.\n  runners:\n    claude: {{ agent: {{ type: claude-code, model: claude-sonnet-4-6 }} }}"
        );
        return (out, true);
    }
    for check in checks {
        let _ = writeln!(out, "\nrunner `{}`: {}", check.runner, check.agent);
        for (ok, text) in &check.lines {
            let _ = writeln!(out, "  {} {text}", if *ok { "ok " } else { "ERR" });
        }
    }
    let ready = checks.iter().filter(|check| check.ready()).count();
    let _ = writeln!(
        out,
        "\n{} runner(s) checked: {ready} ready, {} with problems",
        checks.len(),
        checks.len() - ready
    );
    (out, ready == checks.len())
}
