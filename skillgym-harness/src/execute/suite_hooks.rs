//! A suite's `before_all` and `after_all` hooks (workspace and target level): each runs once
//! per run, whether the run's trials share one process (cargo test) or not (nextest).
//!
//! | hook | when | how once |
//! |---|---|---|
//! | `before_all` | before the first attempt of any of the suite's cases (target level: on that target's runner) | the first attempt takes an exclusive `flock` on `<run>/suites/<suite>/.<hook>.lock`, runs the hook and records it in `<hook>.json`; every later attempt, in any process, reads the record; a failed `before_all` fails every attempt of the suite (origin `workspace`) |
//! | `after_all` | after the suite's last execution, at the end of a run in one process | the harness runs it once the trials are done; under nextest's process per test no process knows it is the last, so a run that would need one is refused at start |

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillgym::{Failure, FailureOrigin};

use super::hooks::{HookCall, HookRun, SETUP_TIMEOUT, TEARDOWN_TIMEOUT, run_hook};
use crate::artifacts::{write_json, write_json_or_note};
use crate::schedule::lock_file;
use crate::suite::declared::SuiteScope;
use crate::suite::yaml::{HookDef, Hooks};
use crate::terminal_text::eprintln_escaped;

/// The directory of a suite's run-wide hook records: `<run>/suites/<suite>/`.
fn suite_dir(run_dir: &Path, suite: &SuiteScope) -> PathBuf {
    run_dir.join("suites").join(&suite.name)
}

/// Runs (once per run) the suite's `before_all`, then the target's of `runner_id` (under
/// `variant`, when the variant is one of the suite's targets).
pub(super) fn before_all(
    run_dir: &Path,
    run_id: &str,
    suite: &SuiteScope,
    runner_id: &str,
    variant: Option<&str>,
) -> Result<(), Failure> {
    let target = suite.target(runner_id, variant);
    let levels = [
        ("workspace".to_owned(), Some(&suite.hooks)),
        (
            target.map_or_else(String::new, |t| suite.level_of(t)),
            target.map(|t| &t.hooks),
        ),
    ];
    for (level, hooks) in levels {
        let Some(hook) = hooks.and_then(|hooks| enabled(hooks, |h| &h.before_all)) else {
            continue;
        };
        let name = format!("{level}-before_all");
        let record = once(run_dir, run_id, suite, hook, &name)?;
        if let Some(why) = record.failed() {
            return Err(Failure::new(
                FailureOrigin::Workspace,
                format!(
                    "the suite `{}`'s {} hook `before_all` {why}; none of its cases runs (see {})",
                    suite.name,
                    level.split('-').next().unwrap_or_default(),
                    suite_dir(run_dir, suite)
                        .join(format!("{name}.json"))
                        .display()
                ),
            ));
        }
    }
    Ok(())
}

/// The hook of `hooks` that `pick` selects, unless the hooks are disabled.
fn enabled(hooks: &Hooks, pick: impl Fn(&Hooks) -> &Option<HookDef>) -> Option<&HookDef> {
    pick(hooks).as_ref().filter(|_| hooks.enabled)
}

/// Runs `hook` unless a process of this run already did, and returns the record.
fn once(
    run_dir: &Path,
    run_id: &str,
    suite: &SuiteScope,
    hook: &HookDef,
    name: &str,
) -> Result<HookRun, Failure> {
    let dir = suite_dir(run_dir, suite);
    let problem = |error: std::io::Error| {
        Failure::new(
            FailureOrigin::Workspace,
            format!(
                "cannot run the suite `{}`'s `{name}` hook once in {}: {error}",
                suite.name,
                dir.display()
            ),
        )
    };
    fs::create_dir_all(&dir).map_err(problem)?;
    let _lock = lock_file(&dir.join(format!(".{name}.lock"))).map_err(problem)?;
    let record_path = dir.join(format!("{name}.json"));
    if let Ok(text) = fs::read_to_string(&record_path)
        && let Ok(record) = serde_json::from_str::<HookRun>(&text)
    {
        return Ok(record);
    }
    let record = run_once(run_id, suite, hook, name, &dir, SETUP_TIMEOUT);
    write_json(&record_path, &record).map_err(problem)?;
    Ok(record)
}

fn run_once(
    run_id: &str,
    suite: &SuiteScope,
    hook: &HookDef,
    name: &str,
    dir: &Path,
    default: std::time::Duration,
) -> HookRun {
    let test_id = if name.ends_with("before_all") {
        "__before_all__"
    } else {
        "__after_all__"
    };
    run_hook(&HookCall {
        hook,
        name,
        suite_dir: &suite.dir,
        workspace: None,
        test_id,
        run_id,
        case_input: String::new(),
        case_metadata: &Value::Null,
        log_dir: dir,
        timeout: hook.timeout.unwrap_or(default),
    })
}

/// Runs the suite's `after_all` hooks after its last execution: each target's (of
/// `runner_ids`, the runners its cases ran on), then the workspace's. Failures are warnings.
pub(crate) fn after_all(run_dir: &Path, run_id: &str, suite: &SuiteScope, runner_ids: &[&str]) {
    let mut levels: Vec<(String, &Hooks)> = suite.targets_on(runner_ids).collect();
    levels.push(("workspace".to_owned(), &suite.hooks));
    let dir = suite_dir(run_dir, suite);
    for (level, hooks) in levels {
        let Some(hook) = enabled(hooks, |h| &h.after_all) else {
            continue;
        };
        let name = format!("{level}-after_all");
        if let Err(error) = fs::create_dir_all(&dir) {
            eprintln!(
                "skillgym: warning: cannot create {}: {error}",
                dir.display()
            );
            continue;
        }
        let record = run_once(run_id, suite, hook, &name, &dir, TEARDOWN_TIMEOUT);
        if let Some(why) = record.failed() {
            eprintln_escaped!(
                "skillgym: warning: the suite `{}`'s {} hook `after_all` {why}",
                suite.name,
                level.split('-').next().unwrap_or_default()
            );
        }
        write_json_or_note(&dir.join(format!("{name}.json")), &record);
    }
}
