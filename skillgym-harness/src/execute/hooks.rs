//! A declarative suite's hooks (agentv §5.3, §5.4): `before_each` / `after_each` around each
//! attempt in its fresh workspace, and `before_all` / `after_all` once per run
//! ([`super::suite_hooks`]).
//!
//! | rule | what happens |
//! |---|---|
//! | order | workspace `before_all`, target `before_all` (once per run); then per attempt workspace `before_each`, target `before_each`, the session and the graders, target `after_each`, workspace `after_each`; at the end of the run target `after_all`, workspace `after_all` |
//! | command | a workspace hook's string is split on whitespace (no shell); a target hook's string runs with `sh -c`; an argv runs directly |
//! | placeholders | `{{workspace_path}}`, `{{test_id}}`, `{{eval_run_id}}`, `{{case_input}}`, `{{case_metadata}}` (JSON) in each argument; unknown ones are left as they are |
//! | stdin | `{workspace_path, test_id, eval_run_id, case_input, case_metadata}`; for `before_all` / `after_all`, `workspace_path` is null (every attempt has its own) and `test_id` is `__before_all__` / `__after_all__` |
//! | cwd | the hook's `cwd`, else the suite file's directory |
//! | timeout | `timeout_ms`, else 60 s for `before_*` and 30 s for `after_*`; the process group is killed at expiry |
//! | failure | a `before_each` that cannot start, times out or exits non-zero fails the attempt (origin `workspace`) before the agent starts, and a failed `before_all` every attempt of the suite; an `after_*` failure is a warning |
//! | record | `before_each` / `after_each` in `<attempt>/hooks.json`, their output in `hook-<target\|workspace>-<name>.stdout.log` / `.stderr.log` when not empty (secrets masked); `before_all` / `after_all` in `<run>/suites/<suite>/` likewise |
//! | `hooks.enabled: false` | no hook of that level runs |

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use skillgym::{Failure, FailureOrigin};

use crate::artifacts::write_json_or_note;
use crate::grade::spec::GraderCommand;
use crate::oneshot;
use crate::suite::DeclaredCheck;
use crate::suite::yaml::{HookDef, Hooks};
use crate::terminal_text::eprintln_escaped;

/// Default timeout of a `before_*` hook.
pub(super) const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Default timeout of an `after_*` hook.
pub(super) const TEARDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Which attempt the hooks run for.
pub(super) struct HookScene<'a> {
    pub(super) check: &'a DeclaredCheck,
    pub(super) case_id: &'a str,
    pub(super) runner_id: &'a str,
    /// The variant, if any (a suite target's hooks when it is one of its targets).
    pub(super) variant: Option<&'a str>,
    pub(super) run_id: &'a str,
    pub(super) workspace: &'a Path,
    pub(super) artifact_dir: &'a Path,
}

/// What `hooks.json` records of one hook run.
#[derive(Debug, Serialize, Deserialize)]
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
    /// Why the hook failed, if it did.
    pub(super) fn failed(&self) -> Option<String> {
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
        write_json_or_note(&artifact_dir.join("hooks.json"), &self.runs);
    }
}

/// One hook to run and what it is told.
pub(super) struct HookCall<'a> {
    pub(super) hook: &'a HookDef,
    /// `<level>-<hook>`: its record's name and its logs' stem.
    pub(super) name: &'a str,
    /// Where it runs without its own `cwd`: the suite's directory.
    pub(super) suite_dir: &'a Path,
    /// The attempt's workspace (none for `before_all` / `after_all`).
    pub(super) workspace: Option<&'a Path>,
    pub(super) test_id: &'a str,
    pub(super) run_id: &'a str,
    pub(super) case_input: String,
    pub(super) case_metadata: &'a Value,
    /// Where its non-empty output logs go.
    pub(super) log_dir: &'a Path,
    pub(super) timeout: Duration,
}

/// Runs the workspace's, then the target's, `before_each`; the first that fails fails the
/// attempt.
pub(super) fn before_each(scene: &HookScene<'_>, log: &mut HookLog) -> Result<(), Failure> {
    for (level, hooks) in levels(scene, false) {
        let Some(hook) = hooks.before_each.as_ref().filter(|_| hooks.enabled) else {
            continue;
        };
        let name = format!("{level}-before_each");
        let run = run_hook(&attempt_call(scene, &name, hook, SETUP_TIMEOUT));
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
        let run = run_hook(&attempt_call(scene, &name, hook, TEARDOWN_TIMEOUT));
        if let Some(why) = run.failed() {
            eprintln_escaped!(
                "skillgym: warning: [{}] {}: the {level} hook `after_each` {why}",
                scene.runner_id,
                scene.case_id
            );
        }
        log.runs.push(run);
    }
}

/// The hook levels in setup order (workspace, target), or teardown order.
fn levels<'a>(scene: &HookScene<'a>, teardown: bool) -> Vec<(&'static str, &'a Hooks)> {
    let mut levels = vec![("workspace", &scene.check.hooks)];
    if let Some(target) = scene.check.suite.target_hooks(scene.runner_id, scene.variant) {
        levels.push(("target", target));
    }
    if teardown {
        levels.reverse();
    }
    levels
}

fn attempt_call<'a>(
    scene: &'a HookScene<'a>,
    name: &'a str,
    hook: &'a HookDef,
    default: Duration,
) -> HookCall<'a> {
    HookCall {
        hook,
        name,
        suite_dir: &scene.check.suite.dir,
        workspace: Some(scene.workspace),
        test_id: scene.case_id,
        run_id: scene.run_id,
        case_input: prompt_text(&scene.check.input),
        case_metadata: &scene.check.metadata,
        log_dir: scene.artifact_dir,
        timeout: hook.timeout.unwrap_or(default),
    }
}

/// Runs one hook to its end and records what happened.
pub(super) fn run_hook(call: &HookCall<'_>) -> HookRun {
    let hook = call.hook;
    let command = filled_command(call);
    let shown = command.argv();
    let cwd = hook
        .cwd
        .clone()
        .unwrap_or_else(|| call.suite_dir.to_path_buf());
    let stdin = hook_stdin(call);
    let env: Vec<(&str, PathBuf)> = call
        .workspace
        .map(|path| {
            vec![
                ("SKILLGYM_WORKSPACE_PATH", path.to_path_buf()),
                ("AGENTV_WORKSPACE_PATH", path.to_path_buf()),
            ]
        })
        .unwrap_or_default();
    let started = Instant::now();
    let ran = oneshot::run(
        &shown,
        &cwd,
        &env,
        stdin.to_string().into_bytes(),
        call.timeout,
    );
    let mut record = HookRun {
        hook: call.name.to_owned(),
        command: shown,
        cwd,
        exit_code: None,
        timed_out: false,
        duration_ms: started.elapsed().as_millis() as u64,
        error: None,
        stdout_log: None,
        stderr_log: None,
    };
    match ran {
        Ok(ran) => {
            record.exit_code = ran.status.code();
            record.timed_out = ran.timed_out;
            record.stdout_log = keep_log(call.log_dir, call.name, "stdout", &ran.stdout);
            record.stderr_log = keep_log(call.log_dir, call.name, "stderr", &ran.stderr);
        }
        Err(error) => record.error = Some(error.to_string()),
    }
    record
}

/// The hook's command with its placeholders (`{{workspace_path}}`, `{{test_id}}`,
/// `{{eval_run_id}}`, `{{case_input}}`, `{{case_metadata}}`) filled in.
fn filled_command(call: &HookCall<'_>) -> GraderCommand {
    let metadata = if call.case_metadata.is_null() {
        String::new()
    } else {
        call.case_metadata.to_string()
    };
    let workspace = call
        .workspace
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    let placeholders = [
        ("{{workspace_path}}", workspace.as_str()),
        ("{{test_id}}", call.test_id),
        ("{{eval_run_id}}", call.run_id),
        ("{{case_input}}", call.case_input.as_str()),
        ("{{case_metadata}}", metadata.as_str()),
    ];
    let fill = |arg: &String| {
        placeholders
            .iter()
            .fold(arg.clone(), |arg, (key, value)| arg.replace(key, value))
    };
    match &call.hook.command {
        GraderCommand::Shell(line) => GraderCommand::Shell(fill(line)),
        GraderCommand::Argv(argv) => GraderCommand::Argv(argv.iter().map(fill).collect()),
    }
}

/// The JSON a hook reads on stdin: the same facts as the placeholders.
fn hook_stdin(call: &HookCall<'_>) -> Value {
    json!({
        "workspace_path": call.workspace,
        "test_id": call.test_id,
        "eval_run_id": call.run_id,
        "case_input": if call.case_input.is_empty() { Value::Null } else { Value::String(call.case_input.clone()) },
        "case_metadata": call.case_metadata,
    })
}

/// Writes a non-empty output to `hook-<name>.<stream>.log`, secrets masked.
fn keep_log(dir: &Path, name: &str, stream: &str, bytes: &[u8]) -> Option<PathBuf> {
    if bytes.is_empty() {
        return None;
    }
    let path = dir.join(format!("hook-{name}.{stream}.log"));
    match crate::secrets::write_file(&path, bytes) {
        Ok(()) => Some(path),
        Err(error) => {
            crate::unwritten::note(&path, &error);
            None
        }
    }
}

/// The case's input as one text (a string as it is, messages' contents joined).
pub(super) fn prompt_text(input: &Value) -> String {
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
