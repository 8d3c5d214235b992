//! A declarative suite's per-attempt hooks (agentv §5.3, §5.4), run around each attempt in
//! its fresh workspace.
//!
//! | rule | what happens |
//! |---|---|
//! | order | workspace `before_each`, target `before_each`, the session and the graders, target `after_each`, workspace `after_each` |
//! | command | a workspace hook's string is split on whitespace (no shell); a target hook's string runs with `sh -c`; an argv runs directly |
//! | placeholders | `{{workspace_path}}`, `{{test_id}}`, `{{eval_run_id}}`, `{{case_input}}`, `{{case_metadata}}` (JSON) in each argument; unknown ones are left as they are |
//! | stdin | `{workspace_path, test_id, eval_run_id, case_input, case_metadata}` |
//! | cwd | the hook's `cwd`, else the suite file's directory |
//! | timeout | `timeout_ms`, else 60 s for `before_each` and 30 s for `after_each`; the process group is killed at expiry |
//! | failure | a `before_each` that cannot start, times out or exits non-zero fails the attempt (origin `workspace`) before the agent starts; an `after_each` failure is a warning |
//! | record | each run hook in `<attempt>/hooks.json`; its output in `hook-<target\|workspace>-<name>.stdout.log` / `.stderr.log` when not empty |
//! | `hooks.enabled: false` | no hook of that level runs |

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use skillgym::{Failure, FailureOrigin};

use crate::artifacts::write_json;
use crate::grade::spec::GraderCommand;
use crate::oneshot;
use crate::suite::DeclaredCheck;
use crate::suite::yaml::{HookDef, Hooks};

/// Default timeout of a `before_each` hook.
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Default timeout of an `after_each` hook.
const TEARDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Which attempt the hooks run for.
pub(super) struct HookScene<'a> {
    pub(super) check: &'a DeclaredCheck,
    pub(super) case_id: &'a str,
    pub(super) runner_id: &'a str,
    pub(super) run_id: &'a str,
    pub(super) workspace: &'a Path,
    pub(super) artifact_dir: &'a Path,
}

/// What `hooks.json` records of one hook run.
#[derive(Debug, Serialize)]
pub(super) struct HookRun {
    hook: String,
    command: Vec<String>,
    cwd: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    timed_out: bool,
    duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout_log: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr_log: Option<PathBuf>,
}

impl HookRun {
    fn failed(&self) -> Option<String> {
        if let Some(error) = &self.error {
            return Some(error.clone());
        }
        if self.timed_out {
            return Some(format!("timed out after {} ms", self.duration_ms));
        }
        match self.exit_code {
            Some(0) => None,
            Some(code) => Some(format!("exited with {code}")),
            None => Some("was killed by a signal".to_owned()),
        }
    }
}

/// The hooks run for one attempt, written to `hooks.json` when there are any.
#[derive(Debug, Default)]
pub(super) struct HookLog {
    runs: Vec<HookRun>,
}

impl HookLog {
    /// Writes `hooks.json` (nothing when no hook ran).
    pub(super) fn write(&self, artifact_dir: &Path) {
        if self.runs.is_empty() {
            return;
        }
        let path = artifact_dir.join("hooks.json");
        if let Err(error) = write_json(&path, &self.runs) {
            eprintln!("skillgym: cannot write {}: {error}", path.display());
        }
    }
}

/// Runs the workspace's, then the target's, `before_each`; the first that fails fails the
/// attempt.
pub(super) fn before_each(scene: &HookScene<'_>, log: &mut HookLog) -> Result<(), Failure> {
    for (level, hooks) in levels(scene, false) {
        let Some(hook) = hooks.before_each.as_ref().filter(|_| hooks.enabled) else {
            continue;
        };
        let name = format!("{level}-before_each");
        let run = run_hook(scene, &name, hook, SETUP_TIMEOUT);
        let failed = run.failed();
        log.runs.push(run);
        if let Some(why) = failed {
            return Err(Failure::new(
                FailureOrigin::Workspace,
                format!(
                    "the {level} hook `before_each` {why}; the agent did not run (see {})",
                    scene.artifact_dir.join("hooks.json").display()
                ),
            ));
        }
    }
    Ok(())
}

/// Runs the target's, then the workspace's, `after_each`; a failure is printed as a warning.
pub(super) fn after_each(scene: &HookScene<'_>, log: &mut HookLog) {
    for (level, hooks) in levels(scene, true) {
        let Some(hook) = hooks.after_each.as_ref().filter(|_| hooks.enabled) else {
            continue;
        };
        let name = format!("{level}-after_each");
        let run = run_hook(scene, &name, hook, TEARDOWN_TIMEOUT);
        if let Some(why) = run.failed() {
            eprintln!(
                "skillgym: warning: [{}] {}: the {level} hook `after_each` {why}",
                scene.runner_id, scene.case_id
            );
        }
        log.runs.push(run);
    }
}

/// The hook levels in setup order (workspace, target), or teardown order.
fn levels<'a>(scene: &HookScene<'a>, teardown: bool) -> Vec<(&'static str, &'a Hooks)> {
    let mut levels = vec![("workspace", &scene.check.hooks)];
    if let Some(target) = scene.check.target_hooks(scene.runner_id) {
        levels.push(("target", target));
    }
    if teardown {
        levels.reverse();
    }
    levels
}

fn run_hook(scene: &HookScene<'_>, name: &str, hook: &HookDef, default: Duration) -> HookRun {
    let check = scene.check;
    let input = prompt_text(&check.input);
    let metadata = if check.metadata.is_null() {
        String::new()
    } else {
        check.metadata.to_string()
    };
    let workspace = scene.workspace.display().to_string();
    let placeholders = [
        ("{{workspace_path}}", workspace.as_str()),
        ("{{test_id}}", scene.case_id),
        ("{{eval_run_id}}", scene.run_id),
        ("{{case_input}}", input.as_str()),
        ("{{case_metadata}}", metadata.as_str()),
    ];
    let fill = |arg: &String| {
        placeholders
            .iter()
            .fold(arg.clone(), |arg, (key, value)| arg.replace(key, value))
    };
    let command = match &hook.command {
        GraderCommand::Shell(line) => GraderCommand::Shell(fill(line)),
        GraderCommand::Argv(argv) => GraderCommand::Argv(argv.iter().map(fill).collect()),
    };
    let shown = match &command {
        GraderCommand::Shell(line) => vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
        GraderCommand::Argv(argv) => argv.clone(),
    };
    let cwd = hook.cwd.clone().unwrap_or_else(|| check.suite_dir.clone());
    let stdin = json!({
        "workspace_path": workspace,
        "test_id": scene.case_id,
        "eval_run_id": scene.run_id,
        "case_input": if input.is_empty() { Value::Null } else { Value::String(input.clone()) },
        "case_metadata": check.metadata,
    });
    let env = [
        ("SKILLGYM_WORKSPACE_PATH", scene.workspace.to_path_buf()),
        ("AGENTV_WORKSPACE_PATH", scene.workspace.to_path_buf()),
    ];
    let started = Instant::now();
    let ran = oneshot::run(
        &command,
        &cwd,
        &env,
        stdin.to_string().into_bytes(),
        hook.timeout.unwrap_or(default),
    );
    let duration_ms = started.elapsed().as_millis() as u64;
    let mut record = HookRun {
        hook: name.to_owned(),
        command: shown,
        cwd,
        exit_code: None,
        timed_out: false,
        duration_ms,
        error: None,
        stdout_log: None,
        stderr_log: None,
    };
    match ran {
        Ok(ran) => {
            record.exit_code = ran.status.code();
            record.timed_out = ran.timed_out;
            record.stdout_log = keep_log(scene.artifact_dir, name, "stdout", &ran.stdout);
            record.stderr_log = keep_log(scene.artifact_dir, name, "stderr", &ran.stderr);
        }
        Err(error) => record.error = Some(error),
    }
    record
}

/// Writes a non-empty output to `hook-<name>.<stream>.log`.
fn keep_log(dir: &Path, name: &str, stream: &str, bytes: &[u8]) -> Option<PathBuf> {
    if bytes.is_empty() {
        return None;
    }
    let path = dir.join(format!("hook-{name}.{stream}.log"));
    match std::fs::write(&path, bytes) {
        Ok(()) => Some(path),
        Err(error) => {
            eprintln!("skillgym: cannot write {}: {error}", path.display());
            None
        }
    }
}

/// The case's input as one text (a string as it is, messages' contents joined).
fn prompt_text(input: &Value) -> String {
    match input {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(messages) => messages
            .iter()
            .map(|message| match message.get("content") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        other => other.to_string(),
    }
}
