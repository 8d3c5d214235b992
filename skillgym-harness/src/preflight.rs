//! Checks made before anything runs, so that a broken setup costs one clear error instead of
//! one failed trial per case (and no agent is started for nothing).
//!
//! | check | when | error |
//! |---|---|---|
//! | every selected case's `prompt_file` exists | every run, `--list` included | one line per missing file, with the case and where it is declared |
//! | every selected runner's agent program is an executable file (a path) or on `PATH` (a name) | runs that start agents (not `--list`; not replaying runners) | one line per runner, with how to install it and a pointer to `cargo skillgym doctor` |

use std::path::Path;

use crate::error::{MissingProgram, MissingPromptFile, PreflightError};
use crate::process::find_program;
use crate::runner::Runner;
use crate::suite::{CaseSpec, PromptSpec};

/// The prompt files of `cases` that cannot be read as files, as one error listing each.
pub(crate) fn prompt_files<'a>(
    cases: impl IntoIterator<Item = &'a CaseSpec>,
) -> Result<(), PreflightError> {
    let missing: Vec<MissingPromptFile> = cases
        .into_iter()
        .filter_map(|case| match &case.prompt {
            PromptSpec::File(path) if !path.is_file() => Some(MissingPromptFile {
                case: case.id.clone(),
                path: path.clone(),
                declared: case.source.clone(),
            }),
            _ => None,
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(PreflightError::PromptFiles(missing))
}

/// The runners whose agent program cannot be found, as one error with a line per runner.
pub(crate) fn agent_programs(runners: &[Runner]) -> Result<(), PreflightError> {
    let missing: Vec<MissingProgram> = runners
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
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(PreflightError::AgentPrograms(missing))
}
