//! One question: a resumed session of the attempt's agent in the attempt's workspace, with the
//! attempt's own state directory (where the agent keeps its session), and the question's
//! artifacts in its own directory.

use std::path::Path;
use std::time::Duration;

use skillgym::{Failure, FailureOrigin};
use tokio::runtime::Runtime;

use crate::agent::SessionSpec;
use crate::artifacts::write_json;
use crate::dry_run::DryRun;
use crate::execute::{SessionLimits, run_launch};
use crate::results::explain::{Answer, Question};
use crate::runner::Runner;
use crate::sandbox::SandboxPolicy;

/// What every question of one attempt shares.
pub(crate) struct Asking<'a> {
    pub(crate) runtime: &'a Runtime,
    pub(crate) runner: &'a Runner,
    /// The attempt's directory (its `agent-state` is the agent's state).
    pub(crate) attempt: &'a Path,
    /// The attempt's workspace.
    pub(crate) cwd: &'a Path,
    /// The recorded session.
    pub(crate) session_id: &'a str,
    pub(crate) timeout: Duration,
    pub(crate) max_output: u64,
    /// The scripted model server, under `--mock`.
    pub(crate) dry_run: Option<&'a DryRun>,
    /// The runner's sandbox, which the resumed session runs in too.
    pub(crate) sandbox: Option<SandboxPolicy>,
}

impl Asking<'_> {
    /// Asks `question` in `dir` (created; `prompt.md` holds the question) and returns the
    /// answer, with the session's failure if it had one.
    pub(crate) fn ask(&self, question: &Question, dir: &Path) -> Answer {
        let mut answer = Answer {
            question: question.question.clone(),
            source: question.source.clone(),
            answer: String::new(),
            session_id: None,
            started_at: None,
            ended_at: None,
            duration_ms: None,
            artifact_dir: dir.to_path_buf(),
            failure: None,
        };
        let prompt_md = dir.join("prompt.md");
        // Masked; the agent's prompt file is the real one (a private copy when they differ).
        let prepared = std::fs::create_dir_all(dir)
            .and_then(|()| crate::agent::isolation::write_prompt(&prompt_md, &question.question));
        let (prompt_file, _private_prompt) = match prepared {
            Ok(written) => written,
            Err(error) => {
                answer.failure = Some(Failure::new(
                    FailureOrigin::Workspace,
                    format!("cannot write {}: {error}", prompt_md.display()),
                ));
                return answer;
            }
        };
        let mock = self
            .dry_run
            .and_then(|dry| dry.open_explain(self.runner, self.cwd, dir, &question.question));
        let state_dir = self.attempt.join("agent-state");
        let spec = SessionSpec {
            runner_id: &self.runner.id,
            prompt: &question.question,
            prompt_file: &prompt_file,
            cwd: self.cwd,
            artifact_dir: dir,
            state_dir: &state_dir,
            provider: mock.as_ref().map(|session| &session.provider),
            skills: &[],
            env: &[],
        };
        let agent = self.runner.agent.as_ref();
        let launch = agent
            .resume(&spec, self.session_id)
            .unwrap_or_else(|| Err(std::io::Error::other("the agent cannot resume a session")));
        let limits = SessionLimits {
            timeout: self.timeout,
            max_steps: None,
            max_output: self.max_output,
            live_steps: None,
            sandbox: self.sandbox.clone(),
            trigger: None,
        };
        let mut session = self
            .runtime
            .block_on(run_launch(agent, &spec, limits, launch));
        if mock.is_some() {
            let log = dir.join(crate::artifacts::REQUEST_LOG);
            session.report.raw_artifacts.model_requests = log.is_file().then_some(log);
        }
        drop(mock);
        if let Err(error) = write_json(&dir.join("report.json"), &session.report) {
            eprintln!(
                "skillgym: cannot write {}: {error}",
                dir.join("report.json").display()
            );
        }
        answer.answer = session.report.final_output().to_owned();
        answer.session_id = session.report.session_id.clone();
        answer.started_at = session.report.timing.started_at.clone();
        answer.ended_at = session.report.timing.ended_at.clone();
        answer.duration_ms = session.report.timing.duration_ms;
        answer.failure = session.failure;
        answer
    }
}
