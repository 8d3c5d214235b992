//! What must hold before a sandboxed runner's first session, checked at start-up (every
//! runner at fault named, nothing started) and by `cargo skillgym doctor`.
//!
//! | check | problem when |
//! |---|---|
//! | the system | it is not Linux (bubblewrap confines with Linux namespaces) |
//! | `bwrap` | it is not on `PATH` |
//! | a probe: `bwrap` with the sandbox's namespaces running `true` | it fails (user namespaces off or restricted) |
//! | `read_only` | a path does not exist |
//! | the model endpoint, under `network: loopback` outside `--mock` | it is remote (only loopback is forwarded), or the runner has none and is an agent CLI (it would call its vendor's API) |

use std::sync::OnceLock;

use super::loopback_port;
use crate::config::{AgentKind, RunnerConfig, SandboxConfig, SandboxMode, SandboxNetwork};
use crate::preflight::{PreflightError, SandboxProblem};
use crate::runner::Runner;
use crate::settings::Settings;

/// The sandbox problems of `runners` (the selected ones and the judge) at start-up; `mock`:
/// a `--mock` run, whose sessions reach the scripted model through the forwarder whatever the
/// configured endpoint.
pub(crate) fn check_runners(
    settings: &Settings,
    runners: &[&Runner],
    mock: bool,
) -> Result<(), PreflightError> {
    let mut found = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for runner in runners {
        if runner.replay.is_some() || seen.contains(&runner.id.as_str()) {
            continue;
        }
        seen.push(&runner.id);
        let sandbox = settings.sandbox_for(&runner.id);
        let endpoint = super::configured_endpoint(settings, &runner.id);
        for (problem, help) in problems(sandbox, endpoint.as_deref(), runner.agent.kind(), mock) {
            found.push(SandboxProblem {
                runner: runner.id.clone(),
                problem,
                help,
            });
        }
    }
    match found.is_empty() {
        true => Ok(()),
        false => Err(PreflightError::Sandboxes(found)),
    }
}

/// `cargo skillgym doctor`'s lines for a runner's sandbox (`sandbox` as it applies to it):
/// none without a sandbox.
pub(crate) fn doctor_lines(sandbox: &SandboxConfig, runner: &RunnerConfig) -> Vec<(bool, String)> {
    if sandbox.mode == SandboxMode::None {
        return Vec::new();
    }
    let endpoint = runner.agent.provider.as_ref().map(|p| p.base_url.as_str());
    let problems = problems(sandbox, endpoint, runner.agent.kind.as_str(), false);
    if problems.is_empty() {
        let bwrap = crate::process::find_program("bwrap".as_ref()).unwrap_or_default();
        return vec![(
            true,
            format!(
                "sandbox: bubblewrap, network {} ({})",
                sandbox.network,
                bwrap.display()
            ),
        )];
    }
    problems
        .into_iter()
        .map(|(problem, help)| (false, format!("sandbox: {problem}\n      {help}")))
        .collect()
}

/// Each problem of `sandbox` for an agent of type `kind` with model `endpoint`, with its help.
fn problems(
    sandbox: &SandboxConfig,
    endpoint: Option<&str>,
    kind: &str,
    mock: bool,
) -> Vec<(String, String)> {
    if sandbox.mode == SandboxMode::None {
        return Vec::new();
    }
    let mut problems = Vec::new();
    if let Some(problem) = host_problem() {
        problems.push(problem);
    }
    for path in sandbox.read_only.iter().filter(|path| !path.exists()) {
        problems.push((
            format!(
                "`sandbox.read_only` names {}, which does not exist",
                path.display()
            ),
            "remove it, or create it".to_owned(),
        ));
    }
    if sandbox.network == SandboxNetwork::Loopback && !mock {
        let help = "use `network: host`, or point `agent.provider` at a gateway on 127.0.0.1 (the sandbox forwards an endpoint on the host's loopback)";
        match endpoint {
            Some(url) if loopback_port(url).is_none() => problems.push((
                format!("`network: loopback` cannot reach the model endpoint {url}: only an endpoint on the host's loopback is forwarded into the sandbox"),
                help.to_owned(),
            )),
            None if kind != AgentKind::Command.as_str() => problems.push((
                format!("`network: loopback` leaves the `{kind}` agent no way to its model: without `agent.provider` it calls its vendor's API"),
                help.to_owned(),
            )),
            _ => {}
        }
    }
    problems
}

/// Why no bubblewrap sandbox can be made on this machine, checked once per process.
fn host_problem() -> Option<(String, String)> {
    static PROBLEM: OnceLock<Option<(String, String)>> = OnceLock::new();
    PROBLEM.get_or_init(probe).clone()
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Option<(String, String)> {
    Some((
        format!(
            "`sandbox: bubblewrap` needs Linux (bubblewrap confines with Linux namespaces), and this is {}",
            std::env::consts::OS
        ),
        "set `sandbox: none` for this machine, or run the benchmark on Linux (a container or a VM)"
            .to_owned(),
    ))
}

#[cfg(target_os = "linux")]
fn probe() -> Option<(String, String)> {
    use std::process::{Command, Stdio};
    const INSTALL: &str = "install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`), or set `sandbox: none`";
    let Some(bwrap) = crate::process::find_program("bwrap".as_ref()) else {
        return Some((
            "`sandbox: bubblewrap` needs `bwrap`, which is not on PATH".to_owned(),
            INSTALL.to_owned(),
        ));
    };
    let mut args: Vec<std::ffi::OsString> = super::bwrap::args(
        &super::bwrap::Layout::new(&[], &[], &[]),
        std::path::Path::new("/"),
        SandboxNetwork::Loopback,
    );
    args.push("true".into());
    let output = Command::new(&bwrap)
        .args(&args)
        .stdin(Stdio::null())
        .output();
    let failure = match output {
        Ok(output) if output.status.success() => return None,
        Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        Err(error) => error.to_string(),
    };
    Some((
        format!("`{}` cannot make a sandbox here: {failure}", bwrap.display()),
        "bubblewrap needs user namespaces: allow them (`sysctl kernel.unprivileged_userns_clone=1`; on Ubuntu 24.04 and later `sysctl kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile for bwrap), or set `sandbox: none`".to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn loopback_needs_an_endpoint_on_loopback_outside_mock_runs() {
        let sandbox = SandboxConfig::bubblewrap(SandboxNetwork::Loopback);
        let texts = |endpoint, kind, mock| -> Vec<String> {
            problems(&sandbox, endpoint, kind, mock)
                .into_iter()
                .map(|(problem, _)| problem)
                .filter(|problem| !problem.contains("bwrap") && !problem.contains("Linux"))
                .collect()
        };
        assert_eq!(
            texts(Some("https://openrouter.ai/api/v1"), "codex", false),
            [
                "`network: loopback` cannot reach the model endpoint https://openrouter.ai/api/v1: only an endpoint on the host's loopback is forwarded into the sandbox"
            ]
        );
        assert_eq!(
            texts(None, "claude-code", false),
            [
                "`network: loopback` leaves the `claude-code` agent no way to its model: without `agent.provider` it calls its vendor's API"
            ]
        );
        assert!(texts(Some("http://127.0.0.1:4000/v1"), "codex", false).is_empty());
        assert!(
            texts(None, "command", false).is_empty(),
            "a command may need no model"
        );
        assert!(
            texts(None, "claude-code", true).is_empty(),
            "--mock forwards the scripted model"
        );
        let mut with_path = sandbox.clone();
        with_path.read_only = vec![PathBuf::from("/nonexistent/skillgym-ro")];
        assert!(
            problems(&with_path, None, "command", true)
                .iter()
                .any(|(problem, _)| problem
                    == "`sandbox.read_only` names /nonexistent/skillgym-ro, which does not exist")
        );
        assert!(problems(&SandboxConfig::default(), None, "codex", false).is_empty());
    }
}
