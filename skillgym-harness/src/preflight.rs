//! Checks made before anything runs, so that a broken setup costs one clear error instead of
//! one failed trial per case (and no agent is started for nothing).
//!
//! | check | when | error |
//! |---|---|---|
//! | every selected case's `prompt_file` exists | runs (not `--list`) | none: a note per missing file on stderr, and that case's trials fail naming it ([`missing_prompt_file`]); the other cases run |
//! | every selected runner's agent program is an executable file (a path) or on `PATH` (a name) | runs that start agents (not `--list`; not replaying runners) | with `--require-agents` or `CI` set: one line per runner, with how to install it and a pointer to `cargo skillgym doctor`; otherwise the runner is skipped with that reason (a warning), and the others run |
//! | the judge's agent program, when a planned case has rubric items | the same | always an error |
//! | a planned conversation case (`mode: conversation`) runs on a runner that can resume a session (or replays a recording) | runs | always an error, one line per case and runner ([`CannotResume`]) |

use std::path::Path;

use crate::process::find_program;
use crate::runner::Runner;
use crate::suite::{CaseCheck, CaseSpec, PromptSpec};
use std::fmt;
use std::path::PathBuf;

/// The prompt file of `case`, when it has one that is not a file: only that case fails (its
/// trials, with this message); the others run, and `--list` lists it.
pub(crate) fn missing_prompt_file(case: &CaseSpec) -> Option<MissingPromptFile> {
    match &case.prompt {
        PromptSpec::File(path) if !path.is_file() => Some(MissingPromptFile {
            case: case.id.clone(),
            path: path.clone(),
            declared: case.source.clone(),
        }),
        _ => None,
    }
}

/// The runners whose agent program cannot be found, as one error with a line per runner.
pub(crate) fn agent_programs(runners: &[Runner]) -> Result<(), PreflightError> {
    let missing = missing_programs(runners);
    if missing.is_empty() {
        return Ok(());
    }
    Err(PreflightError::AgentPrograms(missing))
}

/// The runners whose agent program cannot be found.
pub(crate) fn missing_programs(runners: &[Runner]) -> Vec<MissingProgram> {
    runners
        .iter()
        // A replaying runner starts no agent.
        .filter(|runner| runner.replay.is_none())
        .filter_map(|runner| {
            let setup = runner.agent.setup();
            let program = Path::new(&setup.program);
            if find_program(program).is_some() {
                return None;
            }
            Some(MissingProgram {
                runner: runner.id.clone(),
                program: program.to_path_buf(),
                install: setup.install,
            })
        })
        .collect()
}

/// Checks made before anything runs (agent programs, sandboxes), each listing every runner at
/// fault, one per line (`\nerror: ` between them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PreflightError {
    /// Selected runners whose agent program cannot be found.
    #[error("{}", lines(.0))]
    AgentPrograms(Vec<MissingProgram>),
    /// Selected runners whose sandbox cannot be set up here.
    #[error("{}", lines(.0))]
    Sandboxes(Vec<SandboxProblem>),
    /// Conversation cases planned on runners that cannot resume a session.
    #[error("{}", lines(.0))]
    CannotResume(Vec<CannotResume>),
}

/// The conversation cases of `executions` (case, runner) whose runner cannot resume a session,
/// which every turn after the first is (a replaying runner replays the recorded turns).
pub(crate) fn resumable(
    executions: impl IntoIterator<Item = (usize, usize)>,
    cases: &[CaseSpec],
    runners: &[Runner],
) -> Result<(), PreflightError> {
    let mut problems: Vec<CannotResume> = Vec::new();
    for (case, runner) in executions {
        let (case, runner) = (&cases[case], &runners[runner]);
        let conversation =
            matches!(&case.check, CaseCheck::Declared(check) if check.conversation.is_some());
        if !conversation || runner.replay.is_some() || runner.agent.can_resume() {
            continue;
        }
        let problem = CannotResume {
            case: case.id.clone(),
            declared: case.source.clone(),
            runner: runner.id.clone(),
            kind: runner.agent.kind().to_owned(),
        };
        if !problems.contains(&problem) {
            problems.push(problem);
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(PreflightError::CannotResume(problems))
}

/// A conversation case (`mode: conversation`) planned on a runner that cannot resume a
/// session: its turns after the first could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "case `{case}` ({declared}) is a conversation, and runner `{runner}` ({kind}) cannot resume a session, which each turn after the first is\n  help: {}",
    if .kind == "command" {
        "give the runner `agent.resume_args` (e.g. `[--resume, \"{session_id}\"]`), or run the case on other runners (`runners:` in the case)"
    } else {
        "run the case on other runners (`runners:` in the case)"
    }
)]
#[non_exhaustive]
pub struct CannotResume {
    /// The case id.
    pub case: String,
    /// Where the case is declared (`file:line`).
    pub declared: String,
    /// The runner id.
    pub runner: String,
    /// Its agent type.
    pub kind: String,
}

/// Each problem's message, `\nerror: ` between them.
pub(crate) fn lines(problems: &[impl fmt::Display]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\nerror: ")
}

/// A case whose prompt file does not exist: the failure of each of its trials.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the prompt file of case `{case}` does not exist: {} (declared at {declared})",
    .path.display()
)]
#[non_exhaustive]
pub struct MissingPromptFile {
    /// The case id.
    pub case: String,
    /// The prompt file.
    pub path: PathBuf,
    /// Where the case is declared (`file:line`).
    pub declared: String,
}

/// A runner whose agent program is not an executable file (a path) or not on `PATH` (a name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "runner `{runner}`: the agent program `{}` {}\n  help: install it ({install}), or point `agent.command` at it; `cargo skillgym doctor` checks every runner",
    .program.display(),
    if .program.to_string_lossy().contains('/') { "is not an executable file" } else { "is not on PATH" }
)]
#[non_exhaustive]
pub struct MissingProgram {
    /// The runner id.
    pub runner: String,
    /// The program, as configured.
    pub program: PathBuf,
    /// How to install it.
    pub install: String,
}

/// A runner whose `sandbox` cannot confine its agent here (no Linux, no `bwrap`, no way to
/// its model endpoint under `network: loopback`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("runner `{runner}`: {problem}\n  help: {help}")]
#[non_exhaustive]
pub struct SandboxProblem {
    /// The runner id.
    pub runner: String,
    /// What is wrong.
    pub problem: String,
    /// What to do.
    pub help: String,
}
