//! Where an attempt's agent runs: `none` (a fixed directory), `shared` (one prepared directory
//! for the whole run) or `isolated` (a fresh copy of the template per attempt, removed when the
//! attempt passes and kept when it fails).

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use skillgym::{Failure, FailureOrigin};
use tokio::runtime::Runtime;

use crate::config::{BootstrapConfig, WorkspaceMode};
use crate::process::{self, LineVerdict, ProcessSpec, Termination};
use crate::run::RunContext;
use crate::suite::CaseSpec;

mod copy;

pub use copy::copy_tree;

/// A prepared workspace.
#[derive(Debug)]
pub(crate) struct PreparedWorkspace {
    cwd: PathBuf,
    isolated: bool,
}

impl PreparedWorkspace {
    /// The directory the agent runs in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Removes an isolated workspace whose attempt passed; keeps it (and says where) otherwise.
    /// Returns a failure only when a passing attempt's workspace cannot be removed.
    pub fn finish(self, passed: bool, artifact_dir: &Path) -> Option<Failure> {
        if !self.isolated {
            return None;
        }
        if !passed {
            let note = format!("{}\n", self.cwd.display());
            let _ = fs::write(artifact_dir.join("workspace.path"), note);
            return None;
        }
        fs::remove_dir_all(&self.cwd).err().map(|error| {
            Failure::new(
                FailureOrigin::Workspace,
                format!("cannot remove workspace {}: {error}", self.cwd.display()),
            )
        })
    }
}

/// Prepares the workspace of one attempt. A case's own `workspace` template makes the attempt
/// isolated whatever the configured mode.
pub(crate) fn prepare(
    run: &RunContext,
    runtime: &Runtime,
    case: &CaseSpec,
    runner_id: &str,
    artifact_dir: &Path,
) -> Result<PreparedWorkspace, Failure> {
    let config = &run.settings.workspace;
    let template = case.workspace.as_deref().or(config.template_dir.as_deref());
    let mode = if case.workspace.is_some() {
        WorkspaceMode::Isolated
    } else {
        config.mode
    };
    let env = BootstrapEnv {
        output_dir: run.run_dir.path(),
        artifact_dir: artifact_dir.to_path_buf(),
        case_id: Some(case.id.clone()),
        runner_id: Some(runner_id.to_owned()),
    };
    let timeout = case.timeout.unwrap_or(run.settings.default_timeout);
    match mode {
        WorkspaceMode::None => Ok(PreparedWorkspace {
            cwd: config
                .cwd
                .clone()
                .unwrap_or_else(|| run.settings.cwd.clone()),
            isolated: false,
        }),
        WorkspaceMode::Isolated => {
            let relative = artifact_dir
                .strip_prefix(run.run_dir.path())
                .unwrap_or(artifact_dir);
            let dir = run.run_dir.path().join("workspaces").join(relative);
            fill(&dir, template)?;
            if let Some(bootstrap) = &config.bootstrap {
                bootstrap_in(runtime, bootstrap, &dir, artifact_dir, &env, timeout)?;
            }
            Ok(PreparedWorkspace {
                cwd: dir,
                isolated: true,
            })
        }
        WorkspaceMode::Shared => {
            let dir = run.run_dir.path().join("workspaces").join("shared");
            let setup = run.run_dir.path().join("workspaces").join("shared-setup");
            once_per_run(&setup, || {
                fill(&dir, template)?;
                if let Some(bootstrap) = &config.bootstrap {
                    let env = BootstrapEnv {
                        case_id: None,
                        runner_id: None,
                        artifact_dir: setup.clone(),
                        ..env.clone()
                    };
                    bootstrap_in(runtime, bootstrap, &dir, &setup, &env, timeout)?;
                }
                Ok(())
            })?;
            Ok(PreparedWorkspace {
                cwd: dir,
                isolated: false,
            })
        }
    }
}

/// Runs `prepare` once per run directory, across threads and processes (nextest runs every
/// trial in its own process): an exclusive `flock` on `<setup>/lock` guards a `ready` marker.
fn once_per_run(
    setup: &Path,
    prepare: impl FnOnce() -> Result<(), Failure>,
) -> Result<(), Failure> {
    let problem = |error: io::Error| {
        Failure::new(
            FailureOrigin::Workspace,
            format!(
                "cannot prepare the shared workspace in {}: {error}",
                setup.display()
            ),
        )
    };
    fs::create_dir_all(setup).map_err(problem)?;
    let lock = fs::File::create(setup.join("lock")).map_err(problem)?;
    // SAFETY: flock on a file descriptor we own; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(problem(io::Error::last_os_error()));
    }
    let ready = setup.join("ready");
    let failed = setup.join("failed");
    if ready.exists() {
        return Ok(());
    }
    if let Ok(message) = fs::read_to_string(&failed) {
        return Err(Failure::new(FailureOrigin::Workspace, message));
    }
    match prepare() {
        Ok(()) => fs::write(&ready, b"").map_err(problem),
        Err(failure) => {
            let _ = fs::write(&failed, &failure.message);
            Err(failure)
        }
    }
}

/// Creates `dir` fresh, as a copy of `template` when given.
fn fill(dir: &Path, template: Option<&Path>) -> Result<(), Failure> {
    let problem = |what: String| Failure::new(FailureOrigin::Workspace, what);
    if dir.exists() {
        fs::remove_dir_all(dir)
            .map_err(|e| problem(format!("cannot clear {}: {e}", dir.display())))?;
    }
    match template {
        None => fs::create_dir_all(dir)
            .map_err(|e| problem(format!("cannot create {}: {e}", dir.display()))),
        Some(template) => {
            if !template.is_dir() {
                return Err(problem(format!(
                    "workspace template {} does not exist or is not a directory",
                    template.display()
                )));
            }
            copy_tree(template, dir).map_err(|e| {
                problem(format!(
                    "cannot copy workspace template {} to {}: {e}",
                    template.display(),
                    dir.display()
                ))
            })
        }
    }
}

#[derive(Debug, Clone)]
struct BootstrapEnv {
    output_dir: PathBuf,
    artifact_dir: PathBuf,
    case_id: Option<String>,
    runner_id: Option<String>,
}

/// Runs the bootstrap command in `dir`, logging to `bootstrap.{stdout,stderr}.log`.
fn bootstrap_in(
    runtime: &Runtime,
    bootstrap: &BootstrapConfig,
    dir: &Path,
    log_dir: &Path,
    env: &BootstrapEnv,
    default_timeout: Duration,
) -> Result<(), Failure> {
    let mut vars = vec![
        ("SKILLGYM_WORKSPACE".into(), dir.as_os_str().to_owned()),
        (
            "SKILLGYM_OUTPUT_DIR".into(),
            env.output_dir.as_os_str().to_owned(),
        ),
        (
            "SKILLGYM_ARTIFACT_DIR".into(),
            env.artifact_dir.as_os_str().to_owned(),
        ),
    ];
    if let Some(case_id) = &env.case_id {
        vars.push(("SKILLGYM_CASE_ID".into(), case_id.into()));
    }
    if let Some(runner_id) = &env.runner_id {
        vars.push(("SKILLGYM_RUNNER_ID".into(), runner_id.into()));
    }
    vars.extend(bootstrap.env.iter().map(|(k, v)| (k.into(), v.into())));
    let spec = ProcessSpec {
        program: bootstrap.command.clone().into(),
        args: bootstrap.args.iter().map(Into::into).collect(),
        env: vars,
        env_remove: Vec::new(),
        cwd: dir.to_path_buf(),
        stdout_log: log_dir.join("bootstrap.stdout.log"),
        stderr_log: log_dir.join("bootstrap.stderr.log"),
        timeout: bootstrap.timeout.unwrap_or(default_timeout),
    };
    let mut ignore = |_: &str| LineVerdict::Continue;
    let outcome = runtime.block_on(process::run(&spec, &mut ignore));
    let command_line = std::iter::once(bootstrap.command.as_str())
        .chain(bootstrap.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let failed = |what: String| {
        Err(Failure::new(
            FailureOrigin::Bootstrap,
            format!(
                "workspace bootstrap `{command_line}` {what} (logs: {})",
                spec.stderr_log.display()
            ),
        ))
    };
    match outcome {
        Err(error) => failed(format!("could not run: {error}")),
        Ok(outcome) if outcome.termination == Termination::TimedOut => failed("timed out".into()),
        Ok(outcome) if outcome.exit_code == Some(0) => Ok(()),
        Ok(outcome) => match outcome.exit_code {
            Some(code) => failed(format!("exited with code {code}")),
            None => failed(format!(
                "was killed by signal {}",
                outcome.signal.unwrap_or(0)
            )),
        },
    }
}
