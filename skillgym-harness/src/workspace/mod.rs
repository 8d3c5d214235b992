//! Where an attempt's agent runs: `none` (a fixed directory), `shared` (one prepared directory
//! for the whole run) or `isolated` (a fresh copy of the template per attempt, removed when the
//! attempt passes and kept when it fails).
//!
//! | module | concern |
//! |---|---|
//! | `root` | the run's workspace root, outside the author's repository, shared by every process of the run |
//! | `boundary` | the repository of a workspace's own, so that no agent walks up out of it |
//! | `copy` | copying a template |
//! | `recorded` | which workspaces named by a file may be used again (replay, explain) |
//! | `repos` | a declarative suite's `workspace.repos`: git repositories checked out into each attempt's workspace |

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use skillgym::{Failure, FailureOrigin};
use tokio::runtime::Runtime;

use crate::artifacts::{RunDir, write_json_or_note};
use crate::config::{BootstrapConfig, WorkspaceMode};
use crate::process::{self, LineVerdict, ProcessSpec, Termination};
use crate::settings::Settings;
use crate::suite::CaseSpec;

pub(crate) mod boundary;
mod copy;
pub(crate) mod recorded;
pub(crate) mod repos;
pub(crate) mod root;

pub use copy::copy_tree;

use boundary::Boundary;
use root::RunRoot;

/// A prepared workspace.
#[derive(Debug)]
pub(crate) struct PreparedWorkspace {
    record: WorkspaceRecord,
    /// The run's workspace root, for an isolated workspace (which may become a spare in it).
    root: Option<RunRoot>,
}

impl PreparedWorkspace {
    /// Whether it is an attempt's own copy (`isolated`), which nothing else uses.
    pub(crate) fn is_isolated(&self) -> bool {
        self.record.mode == WorkspaceMode::Isolated
    }
}

/// What [`PreparedWorkspace::finish`] did.
#[derive(Debug, Default)]
pub(crate) struct Finished {
    /// Why a passing attempt's workspace could not be removed.
    pub(crate) problem: Option<Failure>,
    /// Where an isolated workspace was kept (the attempt failed, or its removal did).
    pub(crate) kept: Option<PathBuf>,
}

/// What `workspace.json` in each attempt directory says about the attempt's workspace.
#[derive(Debug, Clone, Serialize)]
struct WorkspaceRecord {
    mode: WorkspaceMode,
    /// The directory the agent ran in.
    cwd: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    template_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap: Option<BootstrapRecord>,
    /// Whether the workspace's `.git` was its own (`existing`) or an empty repository skillgym
    /// wrote (`created`), for the workspaces skillgym prepared.
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<Boundary>,
    /// Whether the directory is still there after the attempt (isolated workspaces of failed
    /// attempts; shared and `none` directories are never removed).
    preserved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cleanup_error: Option<String>,
}

/// One bootstrap run.
#[derive(Debug, Clone, Serialize)]
struct BootstrapRecord {
    command: String,
    args: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    duration_ms: u64,
    stdout_log: PathBuf,
    stderr_log: PathBuf,
}

impl PreparedWorkspace {
    /// The directory the agent runs in.
    pub(crate) fn cwd(&self) -> &Path {
        &self.record.cwd
    }

    /// Removes an isolated workspace whose attempt passed (or keeps it as a spare of the
    /// process, [`RunRoot::spare`], when it holds nothing but the empty repository skillgym
    /// wrote) and keeps it otherwise, then writes `workspace.json` into the attempt directory.
    /// The failure is that of a passing attempt whose workspace cannot be removed.
    pub(crate) fn finish(mut self, passed: bool, artifact_dir: &Path) -> Finished {
        let isolated = self.record.mode == WorkspaceMode::Isolated;
        let mut finished = Finished::default();
        if isolated && passed {
            let spared = self.record.repository == Some(Boundary::Created)
                && boundary::is_pristine(&self.record.cwd)
                && self
                    .root
                    .as_ref()
                    .is_some_and(|root| root.spare(&self.record.cwd));
            if let Some(error) = (!spared)
                .then(|| remove_tree(&self.record.cwd).err())
                .flatten()
            {
                let message = format!(
                    "cannot remove workspace {}: {error}",
                    self.record.cwd.display()
                );
                self.record.cleanup_error = Some(message.clone());
                finished.problem = Some(Failure::new(FailureOrigin::Workspace, message));
            }
        }
        self.record.preserved = !isolated || !passed || finished.problem.is_some();
        if isolated && self.record.preserved {
            finished.kept = Some(self.record.cwd.clone());
        }
        write_record(artifact_dir, &self.record);
        finished
    }
}

/// Removes the directory `dir` and everything in it: one `rmdir` when it is empty (an agent
/// that wrote nothing in its workspace), else [`fs::remove_dir_all`], whose error is the one
/// returned.
fn remove_tree(dir: &Path) -> io::Result<()> {
    fs::remove_dir(dir).or_else(|_| fs::remove_dir_all(dir))
}

fn write_record(artifact_dir: &Path, record: &WorkspaceRecord) {
    write_json_or_note(&artifact_dir.join("workspace.json"), record);
}

/// Prepares the workspace of one attempt. A case's own `workspace` template makes the attempt
/// isolated whatever the configured mode. When preparing fails, `workspace.json` still says
/// where the (kept) directory is, and so does the error: the failure, and the isolated
/// workspace left behind, if any.
pub(crate) fn prepare(
    settings: &Settings,
    run_dir: &RunDir,
    runtime: &Runtime,
    case: &CaseSpec,
    runner_id: &str,
    artifact_dir: &Path,
) -> Result<PreparedWorkspace, (Failure, Option<PathBuf>)> {
    let config = &settings.workspace;
    let template = case.workspace.as_deref().or(config.template_dir.as_deref());
    let mode = if case.workspace.is_some() {
        WorkspaceMode::Isolated
    } else {
        config.mode
    };
    let mut record = WorkspaceRecord {
        mode,
        cwd: PathBuf::new(),
        template_dir: template.map(Path::to_path_buf),
        bootstrap: None,
        repository: None,
        preserved: true,
        cleanup_error: None,
    };
    let root = (mode != WorkspaceMode::None).then(|| {
        RunRoot::new(
            run_dir.path(),
            run_dir.run_id(),
            settings.workspace_root.as_deref(),
        )
    });
    let prepared = match (mode, &root) {
        (WorkspaceMode::Isolated, Some(root)) => prepare_isolated(
            settings,
            runtime,
            case,
            &BootstrapEnv {
                output_dir: run_dir.path(),
                artifact_dir: artifact_dir.to_path_buf(),
                case_id: Some(case.id.clone()),
                runner_id: Some(runner_id.to_owned()),
            },
            root,
            &mut record,
        ),
        (WorkspaceMode::Shared, Some(root)) => {
            prepare_shared(settings, run_dir, runtime, root, &mut record)
        }
        _ => {
            record.cwd = config.cwd.clone().unwrap_or_else(|| settings.cwd.clone());
            record.template_dir = None;
            Ok(())
        }
    };
    if let Err(failure) = prepared {
        write_record(artifact_dir, &record);
        let kept = (mode == WorkspaceMode::Isolated && record.cwd.is_dir()).then_some(record.cwd);
        return Err((failure, kept));
    }
    let root = root.filter(|_| mode == WorkspaceMode::Isolated);
    Ok(PreparedWorkspace { record, root })
}

/// The failure of a workspace root that cannot be made or found.
fn root_failure(problem: root::RootError) -> Failure {
    Failure::new(
        FailureOrigin::Workspace,
        format!("{problem} (`run.workspace_root` chooses where workspaces go)"),
    )
}

/// An attempt's own workspace, one directory under the run's workspace root named after the
/// attempt ([`flat_name`]): filled from the template, bootstrapped within the attempt's timeout
/// (logs in the attempt directory), then made a repository of its own. Without a template and
/// a bootstrap, a spare of an earlier attempt of this process (an empty repository already) is
/// taken when there is one.
fn prepare_isolated(
    settings: &Settings,
    runtime: &Runtime,
    case: &CaseSpec,
    env: &BootstrapEnv,
    root: &RunRoot,
    record: &mut WorkspaceRecord,
) -> Result<(), Failure> {
    let artifact_dir = env.artifact_dir.as_path();
    let relative = artifact_dir
        .strip_prefix(&env.output_dir)
        .unwrap_or(artifact_dir);
    let bootstrap = settings.workspace.bootstrap.as_ref();
    let template = record.template_dir.as_deref();
    let recycle = template.is_none() && bootstrap.is_none();
    let placed = root
        .attempt(&flat_name(relative), recycle)
        .map_err(root_failure)?;
    record.cwd = placed.dir;
    if placed.recycled {
        record.repository = Some(Boundary::Created);
        return Ok(());
    }
    // The attempt's own limit: a bootstrap is part of the attempt.
    let timeout = settings.effective(case).timeout;
    let (outcome, ran) = fill_and_bootstrap(
        runtime,
        bootstrap,
        &record.cwd,
        template,
        artifact_dir,
        env,
        timeout,
    );
    record.bootstrap = ran;
    outcome?;
    record.repository = Some(repository_boundary(&record.cwd)?);
    Ok(())
}

/// The longest workspace name kept whole; longer ones are cut and get a hash.
const MAX_FLAT_NAME: usize = 200;

/// The workspace name of the attempt whose directory is `relative` in the run directory: its
/// components joined by `+` (`case+runner+repeat-1+attempt-1`), which no component holds (ids
/// become path segments without one, see [`crate::artifacts::sanitize`]), so that two attempts
/// never share a name. A name longer than 200 bytes is cut and gets `~` and 12 hex digits of a
/// hash of the whole.
pub(crate) fn flat_name(relative: &Path) -> String {
    let name = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("+");
    if name.len() <= MAX_FLAT_NAME {
        return name;
    }
    let mut cut = MAX_FLAT_NAME;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = crate::artifacts::fnv1a(name.as_bytes()) >> 16;
    format!("{}~{hash:012x}", &name[..cut])
}

/// Makes `dir` a repository of its own unless it has a `.git` already.
fn repository_boundary(dir: &Path) -> Result<Boundary, Failure> {
    boundary::ensure_repository(dir).map_err(|error| {
        Failure::new(
            FailureOrigin::Workspace,
            format!(
                "cannot make the workspace {} a git repository of its own: {error}",
                dir.display()
            ),
        )
    })
}

/// The run's one shared workspace, `<root>/shared` under the run's workspace root: filled,
/// bootstrapped and made a repository of its own once for the whole run (within
/// `defaults.timeout`), logs and record in `<run>/shared-setup`.
fn prepare_shared(
    settings: &Settings,
    run_dir: &RunDir,
    runtime: &Runtime,
    root: &RunRoot,
    record: &mut WorkspaceRecord,
) -> Result<(), Failure> {
    record.cwd = root.shared().map_err(root_failure)?;
    let setup = run_dir.path().join("shared-setup");
    let env = BootstrapEnv {
        output_dir: run_dir.path(),
        artifact_dir: setup.clone(),
        case_id: None,
        runner_id: None,
    };
    let record = &*record;
    once_per_run(&setup, || {
        let bootstrap = settings.workspace.bootstrap.as_ref();
        let template = record.template_dir.as_deref();
        let timeout = settings.default_timeout;
        let (outcome, ran) = match clear(&record.cwd) {
            Err(failure) => (Err(failure), None),
            Ok(()) => fill_and_bootstrap(
                runtime,
                bootstrap,
                &record.cwd,
                template,
                &setup,
                &env,
                timeout,
            ),
        };
        let repository = match outcome {
            Ok(()) => repository_boundary(&record.cwd).map(Some),
            Err(failure) => Err(failure),
        };
        let setup_record = WorkspaceRecord {
            bootstrap: ran,
            repository: repository.as_ref().ok().copied().flatten(),
            ..record.clone()
        };
        write_record(&setup, &setup_record);
        repository.map(|_| ())
    })
}

/// Fills the empty directory `dir` from `template`, then runs the bootstrap, if any, in it
/// (logs in `log_dir`); returns the outcome and what the bootstrap ran.
fn fill_and_bootstrap(
    runtime: &Runtime,
    bootstrap: Option<&BootstrapConfig>,
    dir: &Path,
    template: Option<&Path>,
    log_dir: &Path,
    env: &BootstrapEnv,
    timeout: Duration,
) -> (Result<(), Failure>, Option<BootstrapRecord>) {
    if let Err(failure) = fill(dir, template) {
        return (Err(failure), None);
    }
    match bootstrap {
        Some(bootstrap) => {
            let (outcome, ran) = bootstrap_in(runtime, bootstrap, dir, log_dir, env, timeout);
            (outcome, Some(ran))
        }
        None => (Ok(()), None),
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
    let _lock = crate::schedule::lock_file(&setup.join("lock")).map_err(problem)?;
    let ready = setup.join("ready");
    let failed = setup.join("failed");
    if ready.exists() {
        return Ok(());
    }
    if let Ok(text) = fs::read_to_string(&failed) {
        return Err(earlier_failure(&text));
    }
    match prepare() {
        Ok(()) => fs::write(&ready, b"").map_err(problem),
        Err(failure) => {
            let origin = failure.origin.as_str();
            let message = crate::secrets::mask(&failure.message);
            let _ = fs::write(&failed, format!("{origin}\n{message}"));
            Err(failure)
        }
    }
}

/// The failure of an earlier shared setup, as `once_per_run` wrote it: origin, then message.
fn earlier_failure(text: &str) -> Failure {
    let (origin, message) = text.split_once('\n').unwrap_or(("workspace", text));
    let origin = match origin {
        "bootstrap" => FailureOrigin::Bootstrap,
        _ => FailureOrigin::Workspace,
    };
    Failure::new(
        origin,
        format!("the shared workspace could not be prepared (once for the whole run): {message}"),
    )
}

/// Makes `dir` (its parents exist) an empty directory: what it held before is removed.
fn clear(dir: &Path) -> Result<(), Failure> {
    let problem = |what: String| Failure::new(FailureOrigin::Workspace, what);
    if dir.exists() {
        fs::remove_dir_all(dir)
            .map_err(|e| problem(format!("cannot clear {}: {e}", dir.display())))?;
    }
    fs::create_dir_all(dir).map_err(|e| problem(format!("cannot create {}: {e}", dir.display())))
}

/// Fills the empty directory `dir` with a copy of `template`, when given.
fn fill(dir: &Path, template: Option<&Path>) -> Result<(), Failure> {
    let problem = |what: String| Failure::new(FailureOrigin::Workspace, what);
    let Some(template) = template else {
        return Ok(());
    };
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

#[derive(Debug, Clone)]
struct BootstrapEnv {
    output_dir: PathBuf,
    artifact_dir: PathBuf,
    case_id: Option<String>,
    runner_id: Option<String>,
}

impl BootstrapEnv {
    /// The bootstrap command's environment: the `SKILLGYM_*` variables of the workspace (`dir`)
    /// and of the attempt, then the bootstrap's own `env`.
    fn variables(&self, dir: &Path, bootstrap: &BootstrapConfig) -> Vec<(OsString, OsString)> {
        let mut vars = vec![
            ("SKILLGYM_WORKSPACE".into(), dir.as_os_str().to_owned()),
            (
                "SKILLGYM_OUTPUT_DIR".into(),
                self.output_dir.as_os_str().to_owned(),
            ),
            (
                "SKILLGYM_ARTIFACT_DIR".into(),
                self.artifact_dir.as_os_str().to_owned(),
            ),
        ];
        if let Some(case_id) = &self.case_id {
            vars.push(("SKILLGYM_CASE_ID".into(), case_id.into()));
        }
        if let Some(runner_id) = &self.runner_id {
            vars.push(("SKILLGYM_RUNNER_ID".into(), runner_id.into()));
        }
        vars.extend(bootstrap.env.iter().map(|(k, v)| (k.into(), v.into())));
        vars
    }
}

/// Runs the bootstrap command in `dir`, logging to `bootstrap.{stdout,stderr}.log` in
/// `log_dir`; returns the outcome and what ran.
fn bootstrap_in(
    runtime: &Runtime,
    bootstrap: &BootstrapConfig,
    dir: &Path,
    log_dir: &Path,
    env: &BootstrapEnv,
    default_timeout: Duration,
) -> (Result<(), Failure>, BootstrapRecord) {
    let spec = ProcessSpec {
        program: bootstrap.command.clone().into(),
        args: bootstrap.args.iter().map(Into::into).collect(),
        env: env.variables(dir, bootstrap),
        env_remove: Vec::new(),
        cwd: dir.to_path_buf(),
        stdout_log: log_dir.join("bootstrap.stdout.log"),
        stderr_log: log_dir.join("bootstrap.stderr.log"),
        timeout: bootstrap.timeout.unwrap_or(default_timeout),
        max_output: None,
    };
    let started = Instant::now();
    let mut ignore = |_: &str| LineVerdict::Continue;
    let outcome = runtime.block_on(process::run(&spec, &mut ignore));
    let mut record = BootstrapRecord {
        command: bootstrap.command.clone(),
        args: bootstrap.args.clone(),
        exit_code: None,
        duration_ms: started.elapsed().as_millis() as u64,
        stdout_log: spec.stdout_log.clone(),
        stderr_log: spec.stderr_log.clone(),
    };
    let command_line = std::iter::once(bootstrap.command.as_str())
        .chain(bootstrap.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let failed = |what: String| {
        Err(Failure::new(
            FailureOrigin::Bootstrap,
            format!(
                "workspace bootstrap `{command_line}` {what} (workspace kept at {}; logs: {})",
                dir.display(),
                spec.stderr_log.display()
            ),
        ))
    };
    let result = match outcome {
        Err(error) => failed(format!("could not run: {error}")),
        Ok(outcome) => {
            record.exit_code = outcome.exit_code;
            match (outcome.termination, outcome.exit_code, outcome.signal) {
                (Termination::TimedOut, ..) => failed(format!(
                    "timed out after {}",
                    crate::duration::compact(spec.timeout)
                )),
                (Termination::Interrupted, ..) => Err(crate::interrupt::failure(&format!(
                    "the workspace bootstrap `{command_line}` was killed"
                ))),
                (_, Some(0), _) => Ok(()),
                (_, Some(code), _) => failed(format!("exited with code {code}")),
                (_, None, signal) => {
                    failed(format!("was killed by signal {}", signal.unwrap_or(0)))
                }
            }
        }
    };
    (result, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_is_named_after_its_attempt_in_one_segment() {
        let name = |path: &str| flat_name(Path::new(path));
        assert_eq!(
            name("skills.find_expo/claude/repeat-1/attempt-2"),
            "skills.find_expo+claude+repeat-1+attempt-2"
        );
        assert_eq!(
            name("case/claude/with-skill/repeat-3/attempt-1"),
            "case+claude+with-skill+repeat-3+attempt-1"
        );
        // No component holds a `+`: the runner's directory never reads as part of the case's.
        assert_ne!(
            name("a/b.c/repeat-1/attempt-1"),
            name("a.b/c/repeat-1/attempt-1")
        );
        let long = format!("{}/{}/repeat-1/attempt-1", "c".repeat(130), "r".repeat(130));
        let other = format!("{}/{}/repeat-1/attempt-2", "c".repeat(130), "r".repeat(130));
        let (cut, other_cut) = (name(&long), name(&other));
        assert_eq!(
            cut.len(),
            MAX_FLAT_NAME + 13,
            "cut, with `~` and 12 hex digits"
        );
        assert!(cut.starts_with(&"c".repeat(130)) && cut.contains('~'));
        assert_ne!(cut, other_cut, "the hash tells them apart");
    }

    #[test]
    fn remove_tree_removes_empty_and_full_directories_and_never_follows_a_link() {
        let scratch = tempfile::Builder::new()
            .prefix("skillgym-remove-tree-")
            .tempdir()
            .unwrap();
        let empty = scratch.path().join("empty");
        fs::create_dir(&empty).unwrap();
        remove_tree(&empty).unwrap();
        assert!(!empty.exists());

        let full = scratch.path().join("full");
        fs::create_dir_all(full.join("a/b")).unwrap();
        fs::write(full.join("a/b/file"), "x").unwrap();
        remove_tree(&full).unwrap();
        assert!(!full.exists());

        let target = scratch.path().join("target");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("kept"), "x").unwrap();
        let link = scratch.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_tree(&link).unwrap();
        assert!(!link.exists() && target.join("kept").is_file());

        let missing = remove_tree(&scratch.path().join("missing")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
