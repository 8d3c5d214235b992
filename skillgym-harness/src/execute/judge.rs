//! The judge of rubric graders: a session of the runner `judge:` names, sent the rubric prompt
//! (`crate::grade::judge`), in its own directory `<attempt>/judge-<grader>/` with its own
//! artifacts (`prompt.md`, `stdout.log`, `report.json`, the judge's empty `workspace/`). Under
//! `--mock` the scripted model answers it with `judge.mock`'s script.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use tokio::runtime::Runtime;

use super::Engine;
use super::session::{SessionLimits, run_session};
use crate::agent::SessionSpec;
use crate::artifacts::write_json_or_note;
use crate::grade::Judge;
use crate::grade::code::file_name;
use crate::grade::judge::AskError;
use crate::runner::Runner;

/// A judge that runs one session of `runner` per question.
pub(super) struct SessionJudge<'a> {
    pub(super) run: &'a Engine,
    pub(super) runtime: &'a Runtime,
    pub(super) runner: &'a Runner,
    pub(super) artifact_dir: &'a Path,
    pub(super) timeout: Duration,
}

impl fmt::Debug for SessionJudge<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionJudge({})", self.runner.id)
    }
}

impl Judge for SessionJudge<'_> {
    fn ask(&self, grader: &str, prompt: &str) -> Result<String, AskError> {
        let dir = self
            .artifact_dir
            .join(format!("judge-{}", file_name(grader)));
        let workspace = dir.join("workspace");
        std::fs::create_dir_all(&workspace).map_err(|source| AskError::Io {
            verb: "create",
            path: workspace.clone(),
            source,
        })?;
        let prompt_md = dir.join("prompt.md");
        // Masked; the judge's prompt file is the real one (a private copy when they differ).
        let (prompt_file, _private_prompt) =
            crate::agent::isolation::write_prompt(&prompt_md, prompt).map_err(|source| {
                AskError::Io {
                    verb: "write",
                    path: prompt_md.clone(),
                    source,
                }
            })?;
        let dry_run = match &self.run.dry_run {
            Some(dry) => Some(
                dry.open_judge(self.runner, &workspace, &dir)
                    .ok_or_else(|| AskError::NoScriptedModel {
                        runner: self.runner.id.clone(),
                        agent: self.runner.agent.kind().to_string(),
                    })?,
            ),
            None => None,
        };
        let state_dir = dir.join("agent-state");
        let spec = SessionSpec {
            runner_id: &self.runner.id,
            prompt,
            prompt_file: &prompt_file,
            cwd: &workspace,
            artifact_dir: &dir,
            state_dir: &state_dir,
            provider: dry_run.as_ref().map(|dry| &dry.provider),
            skills: &[],
            env: &[],
        };
        let limits = SessionLimits {
            timeout: self.timeout,
            max_steps: None,
            max_output: self.run.settings.max_output,
            live_steps: None,
            sandbox: crate::sandbox::SandboxPolicy::for_runner(&self.run.settings, &self.runner.id),
            trigger: None,
        };
        let session = self
            .runtime
            .block_on(run_session(self.runner.agent.as_ref(), &spec, limits));
        drop(dry_run);
        write_json_or_note(&dir.join("report.json"), &session.report);
        if let Some(failure) = session.failure {
            return Err(AskError::Failed {
                runner: self.runner.id.clone(),
                message: failure.message,
                artifacts: Some(dir),
            });
        }
        Ok(session.report.final_output().to_owned())
    }
}
