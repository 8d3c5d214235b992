//! `skillgym explain`: asks the agent of a failed attempt why, by resuming its recorded
//! session once per question of the attempt's failed assertions (`explain.json`).
//!
//! A benchmark binary explains with `--explain DIR [--rerun] [--mock]` (only it knows how to
//! build its runners' agents); `cargo skillgym explain DIR` finds the binary in the run's
//! `run.json` ([`run_record`](crate::run_record)) and runs it so.
//!
//! | module | concern |
//! |---|---|
//! | `locate` | which attempts a DIR means (an attempt, or every failed attempt below an execution or run directory) |
//! | `ask` | one question: a resumed session in the attempt's workspace and state, its artifacts in `explain/question-NN/` |
//!
//! The files it reads and writes are [`crate::results::explain`]'s; the hint a failed
//! execution's output carries is the reporters' ([`crate::report`]).
//!
//! The session resumes in the workspace `explain.json` names only when it is one skillgym made
//! (inside a run's workspace root) or the configured working directory of workspace
//! mode `none` (`crate::workspace::recorded`): an edited `explain.json` cannot send the agent,
//! whose permission prompts are off, into another directory.
//!
//! Each question runs with the case's timeout (`timeout` of the case, else `defaults.timeout`);
//! a failed question's session (timeout, exit code) is recorded with its answer and the next
//! question is still asked. Stored answers are printed again unless `--rerun`, which asks
//! again and replaces `explain/` and `explanations.json`. Exit code: 0 when every question was
//! answered, 1 when a question's session failed, 2 when an attempt could not be explained.
//! The questions and answers are printed with secrets masked and control characters escaped
//! ([`terminal_text`]).

mod ask;
pub(crate) mod locate;

use std::fmt;
use std::path::Path;
use std::process::ExitCode;
use std::time::SystemTime;

use tokio::runtime::Runtime;

use crate::dry_run::DryRun;
use crate::results::explain::{
    self as record, Decision, ExplainRequest, Explanations, RecordError, question_dir,
};
use crate::runner::Runner;
use crate::settings::Settings;
use crate::suite::CaseSpec;
use crate::terminal_text;
use crate::time::Timestamp;
use crate::workspace::recorded::NotMadeHere;

/// Why an attempt cannot be explained: a sentence naming the file or setting at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ExplainError(String);

impl ExplainError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ExplainError(message.into())
    }
}

impl From<RecordError> for ExplainError {
    fn from(error: RecordError) -> Self {
        ExplainError(error.to_string())
    }
}

impl From<NotMadeHere> for ExplainError {
    fn from(refusal: NotMadeHere) -> Self {
        ExplainError(refusal.to_string())
    }
}

/// What explaining needs of the benchmark binary.
pub(crate) struct Explainer<'a> {
    pub(crate) settings: &'a Settings,
    /// Every configured runner (`--runner` does not filter them).
    pub(crate) runners: &'a [Runner],
    /// The registered cases, for their timeouts.
    pub(crate) cases: &'a [CaseSpec],
    /// The scripted model server, under `--mock`.
    pub(crate) dry_run: Option<&'a DryRun>,
    /// Ask again even when answers are stored.
    pub(crate) rerun: bool,
}

impl Explainer<'_> {
    /// Explains every attempt DIR means, in order, and returns the exit code.
    pub(crate) fn run(&self, dir: &Path) -> ExitCode {
        let attempts = match locate::attempts(dir) {
            Ok(attempts) => attempts,
            Err(error) => return fail(&error),
        };
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => return fail(&format!("cannot start the async runtime: {error}")),
        };
        let mut code = 0u8;
        for attempt in &attempts {
            let outcome = match record::decide(attempt, self.rerun) {
                Decision::Reuse => self.reuse(attempt),
                Decision::Ask => self.ask(&runtime, attempt),
            };
            code = code.max(match outcome {
                Ok(explanations) if explanations.any_failed() => 1,
                Ok(_) => 0,
                Err(error) => {
                    let line = format!("error: cannot explain {}: {error}", attempt.display());
                    eprintln!("{}", terminal_text::masked(&line));
                    2
                }
            });
        }
        ExitCode::from(code)
    }

    /// Prints the stored answers.
    fn reuse(&self, attempt: &Path) -> Result<Explanations, ExplainError> {
        let explanations = Explanations::read(attempt)?;
        header(&explanations.case_id, &explanations.runner_id, attempt);
        say(&format!(
            "reusing the answers stored in {} (pass --rerun to ask again)",
            attempt.join(record::ANSWERS_FILE).display()
        ));
        for (index, answer) in explanations.questions.iter().enumerate() {
            print_question(index + 1, &answer.question, answer.source.as_ref());
            print_answer(answer);
        }
        Ok(explanations)
    }

    /// Asks every question of the attempt and stores the answers.
    fn ask(&self, runtime: &Runtime, attempt: &Path) -> Result<Explanations, ExplainError> {
        let request = ExplainRequest::read(attempt)?;
        let explain_file = attempt.join(record::REQUEST_FILE);
        let runner = self.runner_of(&request, &explain_file)?;
        let session_id = self.resumable(&request, &explain_file, runner)?;
        let explain_dir = attempt.join("explain");
        if explain_dir.exists() {
            std::fs::remove_dir_all(&explain_dir).map_err(|error| {
                ExplainError::new(format!("cannot remove {}: {error}", explain_dir.display()))
            })?;
        }
        let timeout = self
            .cases
            .iter()
            .find(|case| case.id == request.case_id)
            .map_or(self.settings.default_timeout, |case| {
                self.settings.effective(case).timeout
            });
        let asking = ask::Asking {
            runtime,
            runner,
            attempt,
            cwd: &request.cwd,
            session_id,
            timeout,
            max_output: self.settings.max_output,
            dry_run: self.dry_run,
            sandbox: crate::sandbox::SandboxPolicy::for_runner(self.settings, &runner.id),
        };
        header(&request.case_id, &request.runner_id, attempt);
        say(&format!(
            "resuming the session in its kept workspace {}",
            request.cwd.display()
        ));
        let created_at = Timestamp::from(SystemTime::now()).rfc3339();
        let mut answers = Vec::with_capacity(request.questions.len());
        for (index, question) in request.questions.iter().enumerate() {
            print_question(index + 1, &question.question, question.source.as_ref());
            say(&format!("waiting for {}...", runner.id));
            let answer = asking.ask(question, &question_dir(attempt, index + 1));
            print_answer(&answer);
            answers.push(answer);
        }
        let explanations = Explanations {
            case_id: request.case_id,
            runner_id: request.runner_id,
            cwd: request.cwd,
            session_id: request.session_id,
            created_at,
            questions: answers,
        };
        let path = explanations.write(attempt)?;
        say(&format!("saved the answers in {}", path.display()));
        Ok(explanations)
    }

    /// The configured runner `request` names.
    fn runner_of(
        &self,
        request: &ExplainRequest,
        explain_file: &Path,
    ) -> Result<&Runner, ExplainError> {
        self
            .runners
            .iter()
            .find(|runner| runner.id == request.runner_id)
            .ok_or_else(|| {
                let known: Vec<&str> = self.runners.iter().map(|r| r.id.as_str()).collect();
                ExplainError::new(format!(
                    "{} names runner `{}`, which this benchmark binary does not configure (runners: {})",
                    explain_file.display(),
                    request.runner_id,
                    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                ))
            })
    }

    /// The session id to resume, once every check passed: the attempt's session can be resumed
    /// by `runner` here, its workspace is still there and is one skillgym made, and it holds
    /// questions.
    fn resumable<'r>(
        &self,
        request: &'r ExplainRequest,
        explain_file: &Path,
        runner: &Runner,
    ) -> Result<&'r str, ExplainError> {
        let session_id = request.session_id.as_deref().ok_or_else(|| {
            ExplainError::new(format!(
                "{}: the agent reported no session id, so there is no session to resume",
                explain_file.display()
            ))
        })?;
        if let Some(replay) = &runner.replay {
            return Err(ExplainError::new(format!(
                "runner `{}` replays the recording {}: its sessions ran elsewhere and cannot be resumed here; explain the run that was recorded, while its run directory exists",
                runner.id,
                replay.recording.root().display()
            )));
        }
        if !runner.agent.can_resume() {
            let help = if runner.agent.kind() == "command" {
                "; give the runner `agent.resume_args` (e.g. `[--resume, \"{session_id}\"]`), or `CommandAgent::resume_args` in code"
            } else {
                ""
            };
            return Err(ExplainError::new(format!(
                "runner `{}` ({}) cannot resume a session{help}",
                runner.id,
                runner.agent.kind()
            )));
        }
        if request.questions.is_empty() {
            return Err(ExplainError::new(format!(
                "{} holds no question",
                explain_file.display()
            )));
        }
        if !request.cwd.is_dir() {
            return Err(ExplainError::new(format!(
                "the attempt's workspace {} was removed (isolated workspaces are kept only for failed attempts, until their run's workspace root is removed: by you, or by the system's cleaning of its temporary directory); the agent can only resume its session there",
                request.cwd.display()
            )));
        }
        let own = crate::workspace::recorded::configured_dir(self.settings);
        crate::workspace::recorded::check(&request.cwd, explain_file, own)?;
        if let Some(dry) = self.dry_run
            && let Some(reason) = dry.skip_reason(runner)
        {
            return Err(ExplainError::new(reason));
        }
        Ok(session_id)
    }
}

fn fail(message: &dyn fmt::Display) -> ExitCode {
    eprintln!("error: {}", terminal_text::masked(&message.to_string()));
    ExitCode::from(2)
}

fn say(line: &str) {
    println!("skillgym: {}", terminal_text::masked(line));
}

fn header(case_id: &str, runner_id: &str, attempt: &Path) {
    say(&format!(
        "explain [{runner_id}] {case_id}: {}",
        attempt.display()
    ));
}

fn print_question(number: usize, question: &str, source: Option<&skillgym::SourceLocation>) {
    let source = source.map(|s| format!(" ({s})")).unwrap_or_default();
    let text = format!("Question {number}{source}\n{}", indent(question));
    println!("{}", terminal_text::masked(&text));
}

fn print_answer(answer: &record::Answer) {
    let mut text = match &answer.failure {
        Some(failure) => format!(
            "Answer (the session failed: {})\n",
            failure.message.lines().next().unwrap_or_default()
        ),
        None => "Answer\n".to_owned(),
    };
    if answer.failure.is_none() || !answer.answer.is_empty() {
        text.push_str(&indent(&answer.answer));
        text.push('\n');
    }
    text.push_str(&format!("  (artifacts: {})", answer.artifact_dir.display()));
    println!("{}", terminal_text::masked(&text));
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
