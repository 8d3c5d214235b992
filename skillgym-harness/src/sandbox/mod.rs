//! The bubblewrap sandbox (`sandbox: bubblewrap`, Linux only): what an agent session may read,
//! write and reach, and how it still reaches its model.
//!
//! Each session of a sandboxed runner runs as `bwrap … -- <agent>`:
//!
//! | what | `sandbox: none` | `sandbox: bubblewrap` |
//! |---|---|---|
//! | the host's files | as the user | read-only |
//! | the home (`$HOME` and the user's home in the password database) | as the user | an empty tmpfs: nothing of it but what the session is handed (below) |
//! | `/tmp`, `/var/tmp`, `$TMPDIR`, `$XDG_RUNTIME_DIR` | shared | each an empty tmpfs of the session's own |
//! | writable | whatever the user can write | the workspace, the attempt's artifact directory, the agent's state directory, the private directory of the login seeded for it |
//! | read-only, even where hidden | — | the agent's program and its installation (the enclosing `node_modules`, else its directory, and its `#!` interpreter's), the prompt file, the harness's own executable and libraries, the user's git and npm configuration the adapter names (`GIT_CONFIG_GLOBAL`, `NPM_CONFIG_USERCONFIG`), and `read_only` |
//! | processes | the user's | a PID namespace of its own (`/proc` shows the sandbox only), a new session (no terminal to write into), killed with its parent |
//! | network `host` | the host's | the host's |
//! | network `loopback` (always under `--mock`) | — | a network namespace holding only `lo`; the session's model endpoint, when it is on the host's loopback, is forwarded |
//!
//! The forwarder: the sandbox's first process is the harness's own executable again
//! (`<exe> --skillgym-sandbox-forward <port>=<socket> -- <agent>`, recognised by
//! [`Harness::run`](crate::Harness::run) before anything else). It listens on
//! `127.0.0.1:<port>` (and `[::1]:<port>`) inside the namespace, starts the agent as its child
//! with the same standard streams, relays each connection through a Unix socket bound into the
//! sandbox to the harness, which connects it to the real `127.0.0.1:<port>`, and exits with
//! the agent's status. Only the endpoint's port is relayed: the scripted model of `--mock`, or
//! a configured `agent.provider` on loopback (a local model server or gateway). A remote
//! endpoint under `network: loopback` is a start-up error rather than an allow-listed proxy:
//! not every agent CLI honours `HTTPS_PROXY` (Node's `fetch` does not), so a proxy would work
//! for some agents and silently fail for others.
//!
//! Killing: the harness kills the agent's process group, whose leader is `bwrap`; bwrap's
//! child, the namespace's init, has `--die-with-parent`, and when it dies the kernel kills
//! everything else in the PID namespace. An agent that died of a signal is reported by bwrap
//! as exit code 128 + the signal.
//!
//! What the session ran with is kept in the attempt's `result.json` ([`SandboxRecord`]),
//! with lines of the session that show a denial (a write to the read-only host, a file of
//! the hidden home, a connection the namespace refuses).

mod bwrap;
mod denials;
mod expose;
mod forward;
mod preflight;
mod relay;
mod splice;

use std::path::{Path, PathBuf};

use crate::agent::{SessionSpec, isolation::Seeded};
use crate::config::{SandboxMode, SandboxNetwork};
use crate::process::ProcessSpec;
use crate::settings::Settings;

/// What a sandboxed attempt's `result.json` records.
pub use crate::results::{Denial, DenialKind, SandboxRecord};
pub use forward::is_forwarder;
pub(crate) use forward::run_if_invoked;
pub(crate) use preflight::{check_runners, doctor_lines};

/// How one runner's sessions are confined: a bubblewrap sandbox with this network.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxPolicy {
    /// What the agent may reach (`--mock` sessions always get loopback).
    pub network: SandboxNetwork,
    /// More host paths the agent may read (`read_only`).
    pub read_only: Vec<PathBuf>,
    /// The runner's configured model endpoint (`agent.provider.base_url`), forwarded under
    /// `network: loopback` when it is on loopback.
    pub endpoint: Option<String>,
}

impl SandboxPolicy {
    /// The policy of runner `runner_id`'s sessions; `None` without a sandbox.
    pub fn for_runner(settings: &Settings, runner_id: &str) -> Option<SandboxPolicy> {
        let sandbox = settings.sandbox_for(runner_id);
        if sandbox.mode == SandboxMode::None {
            return None;
        }
        Some(SandboxPolicy {
            network: sandbox.network,
            read_only: sandbox.read_only.clone(),
            endpoint: configured_endpoint(settings, runner_id),
        })
    }
}

/// The `agent.provider.base_url` of runner `runner_id` (or of the judge's own agent).
fn configured_endpoint(settings: &Settings, runner_id: &str) -> Option<String> {
    let runner = settings
        .runners
        .iter()
        .find(|(id, _)| id == runner_id)
        .map(|(_, runner)| &runner.agent);
    let judge = || {
        settings
            .judge
            .as_ref()
            .and_then(|judge| judge.agent.as_ref())
            .filter(|_| runner_id == "judge")
    };
    runner
        .or_else(judge)
        .and_then(|agent| agent.provider.as_ref())
        .map(|provider| provider.base_url.clone())
}

/// A session confined: keeps its relay running until [`finish`](Self::finish).
#[derive(Debug)]
pub(crate) struct Confined {
    relay: Option<relay::Relay>,
    record: SandboxRecord,
    homes: Vec<PathBuf>,
}

impl Confined {
    /// Stops the relay and says what the session ran with, and what it was denied (from the
    /// session's events and its stderr log).
    pub(crate) fn finish(
        self,
        report: &skillgym::SessionReport,
        stderr_log: &Path,
    ) -> SandboxRecord {
        drop(self.relay);
        let mut record = self.record;
        record.denied = denials::scan(report, stderr_log, record.network, &self.homes);
        record
    }
}

/// Rewrites `process` (the agent's command line) to run inside the sandbox `policy` describes
/// for `session`, whose login was seeded under `seeded`; starts the relay of its forwarded
/// endpoint. The state directory is created (bwrap binds only what exists).
pub(crate) fn confine(
    policy: &SandboxPolicy,
    process: &mut ProcessSpec,
    seeded: &Seeded,
    session: &SessionSpec<'_>,
) -> std::io::Result<Confined> {
    std::fs::create_dir_all(session.state_dir)?;
    let offline = session.provider.is_some_and(|provider| provider.offline);
    let network = match offline {
        true => SandboxNetwork::Loopback,
        false => policy.network,
    };
    let endpoint = session
        .provider
        .map(|provider| provider.base_url.clone())
        .or_else(|| policy.endpoint.clone());
    let forwards = match (network, endpoint.as_deref().and_then(loopback_port)) {
        (SandboxNetwork::Loopback, Some(target)) => vec![target],
        _ => Vec::new(),
    };
    let relay = match forwards.is_empty() {
        true => None,
        false => Some(relay::Relay::start(&forwards)?),
    };
    let hidden = expose::hidden_roots();
    let homes = expose::homes();
    let mut writable = vec![
        session.cwd.to_path_buf(),
        session.artifact_dir.to_path_buf(),
        session.state_dir.to_path_buf(),
    ];
    writable.extend(seeded.private_path().map(Path::to_path_buf));
    let mut readable = vec![session.prompt_file.to_path_buf()];
    readable.extend(expose::program(&process.program, session.cwd));
    readable.extend(expose::named_by_env(&process.env));
    readable.extend(policy.read_only.iter().cloned());
    let mut program = Vec::new();
    if let Some(relay) = &relay {
        let exe = std::env::current_exe()?;
        readable.extend(expose::own_files(&exe));
        // Read-only: connecting to a socket is no write to its file system.
        readable.push(relay.dir().to_path_buf());
        program.push(exe.into_os_string());
        program.extend(forward::args(relay.sockets()));
    }
    program.push(std::mem::take(&mut process.program));
    program.append(&mut process.args);
    let layout = bwrap::Layout::new(&hidden, &writable, &readable);
    let cwd = canonical(session.cwd);
    let mut args = bwrap::args(&layout, &cwd, network);
    args.extend(program);
    process.program = "bwrap".into();
    process.args = args;
    let record = SandboxRecord {
        mode: SandboxMode::Bubblewrap,
        network,
        forwarded: forwards.iter().map(|f| f.to_string()).collect(),
        writable: layout.writable().to_vec(),
        hidden: layout.hidden().to_vec(),
        denied: Vec::new(),
    };
    Ok(Confined {
        relay,
        record,
        homes,
    })
}

/// The path with its symbolic links resolved, or as it is when it cannot be.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// An endpoint on the host's loopback: where the relay connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loopback {
    /// `127.0.0.1`, `::1` or `localhost`, as the URL says.
    host: String,
    port: u16,
}

impl std::fmt::Display for Loopback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.host.contains(':') {
            true => write!(f, "[{}]:{}", self.host, self.port),
            false => write!(f, "{}:{}", self.host, self.port),
        }
    }
}

/// The host and port of `url` when its host is a loopback one (`127.0.0.1`, `localhost`,
/// `[::1]`); the scheme's default port when it names none.
pub(crate) fn loopback_port(url: &str) -> Option<Loopback> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (host, rest) = v6.split_once(']')?;
            (host, rest.strip_prefix(':'))
        }
        None => match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let loopback = matches!(host, "localhost" | "::1") || host.starts_with("127.");
    if !loopback {
        return None;
    }
    let port = match port {
        Some(port) => port.parse().ok()?,
        None if scheme == "https" => 443,
        None => 80,
    };
    Some(Loopback {
        host: host.to_owned(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_endpoints_are_recognised_with_their_port() {
        let found = |url: &str| loopback_port(url).map(|l| l.to_string());
        assert_eq!(
            found("http://127.0.0.1:4312/s/abc/v1"),
            Some("127.0.0.1:4312".to_owned())
        );
        assert_eq!(
            found("http://localhost:8080"),
            Some("localhost:8080".to_owned())
        );
        assert_eq!(found("http://[::1]:9000/v1"), Some("[::1]:9000".to_owned()));
        assert_eq!(
            found("https://localhost/v1"),
            Some("localhost:443".to_owned())
        );
        assert_eq!(found("http://127.0.0.1"), Some("127.0.0.1:80".to_owned()));
        assert_eq!(found("https://api.anthropic.com"), None);
        assert_eq!(found("http://localhost.example.com:80"), None);
        assert_eq!(found("http://10.0.0.1:80"), None);
        assert_eq!(found("not a url"), None);
    }
}
