//! `--mock` dry runs: one scripted model server per run (per process under nextest), every
//! runner pointed at it through its provider mechanism, one server session per attempt.
//!
//! | what | where it comes from |
//! |---|---|
//! | a case's script | its `mock = "path"`, else `--mock-script` / `SKILLGYM_MOCK_SCRIPT`, else the answer `done` |
//! | a conversation's later turn (a resumed session) | the turn's `mock`, else the case's, else the run's; played from its start (the tool results the resumed history already holds do not count) |
//! | an explain question's answer (`--explain`) | always [`explain_answer`]: `skillgym mock: a scripted answer to "<question>"` |
//! | the judge's script (rubric graders) | `judge.mock` in `skillgym.yaml`, else the answer `done` (which is no valid judge answer: the grader fails saying so) |
//! | the endpoint | the server's session base URL for the runner's wire API (`agent.provider.wire_api`, else the agent's default), a session key, offline settings on |
//! | the request log | `<attempt>/mock-requests.jsonl` |
//! | runners that cannot be pointed at an endpoint (`cursor-agent`) | skipped, with the reason |

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::agent::{ApiKey, Provider};
use crate::config::ConfigError;
use crate::mock::{MockServer, MockSession, Script, ServerOptions, SessionSetup};
use crate::runner::Runner;
use crate::suite::CaseSpec;
use std::io;

use crate::artifacts::REQUEST_LOG;

/// What the scripted model answers to an explain question under `--mock`.
pub(crate) fn explain_answer(question: &str) -> String {
    format!("skillgym mock: a scripted answer to \"{question}\"")
}

/// The scripted server of a `--mock` run and the scripts it plays.
pub(crate) struct DryRun {
    server: MockServer,
    default_script: Arc<Script>,
    case_scripts: HashMap<String, Arc<Script>>,
    /// The scripts of conversations' later turns, by case id and turn number (from 2).
    turn_scripts: HashMap<(String, usize), Arc<Script>>,
    judge_script: Arc<Script>,
}

/// One attempt's route to the scripted server; the route closes when it is dropped.
pub(crate) struct DryRunSession {
    /// The endpoint to hand the agent.
    pub provider: Provider,
    _session: MockSession,
}

impl DryRun {
    /// Reads every script the cases name (and the run's and the judge's, when given) and
    /// starts the server. A script that cannot be read or parsed is an error naming it, with
    /// line and column.
    pub(crate) fn start(
        cases: &[CaseSpec],
        run_script: Option<&Path>,
        judge_script: Option<&Path>,
    ) -> Result<DryRun, DryRunError> {
        let mut loaded: HashMap<PathBuf, Arc<Script>> = HashMap::new();
        let mut load = |path: &Path| -> Result<Arc<Script>, ConfigError> {
            if let Some(script) = loaded.get(path) {
                return Ok(Arc::clone(script));
            }
            let script = Arc::new(Script::load(path)?);
            loaded.insert(path.to_path_buf(), Arc::clone(&script));
            Ok(script)
        };
        let default_script = match run_script {
            Some(path) => load(path).map_err(DryRunError::Script)?,
            None => Arc::new(Script::answer(crate::mock::script::DEFAULT_ANSWER)),
        };
        let judge_script = match judge_script {
            Some(path) => load(path).map_err(DryRunError::Script)?,
            None => Arc::new(Script::answer(crate::mock::script::DEFAULT_ANSWER)),
        };
        let mut case_scripts = HashMap::new();
        let mut turn_scripts = HashMap::new();
        for case in cases {
            if let Some(path) = &case.mock_script {
                let script = load(path).map_err(|error| DryRunError::CaseScript {
                    error,
                    case: case.id.clone(),
                    declared: case.source.clone(),
                })?;
                case_scripts.insert(case.id.clone(), script);
            }
            for (number, path) in later_turn_scripts(case) {
                let script = load(path).map_err(|error| DryRunError::CaseScript {
                    error,
                    case: format!("{} (turn {number})", case.id),
                    declared: case.source.clone(),
                })?;
                turn_scripts.insert((case.id.clone(), number), script);
            }
        }
        let server = MockServer::start(ServerOptions::default()).map_err(DryRunError::Server)?;
        Ok(DryRun {
            server,
            default_script,
            case_scripts,
            turn_scripts,
            judge_script,
        })
    }

    /// Why `runner` cannot take part in a dry run, if it cannot.
    pub(crate) fn skip_reason(&self, runner: &Runner) -> Option<String> {
        runner.agent.wire_api().is_none().then(|| {
            format!(
                "runner `{}` ({}) cannot be pointed at the scripted model server: its CLI has no endpoint setting; skipped in a --mock run",
                runner.id,
                runner.agent.kind()
            )
        })
    }

    /// Opens the server session of one attempt: its script, cwd and request log.
    pub(crate) fn open(
        &self,
        case: &CaseSpec,
        runner: &Runner,
        cwd: &Path,
        artifact_dir: &Path,
    ) -> Option<DryRunSession> {
        let script = self
            .case_scripts
            .get(&case.id)
            .unwrap_or(&self.default_script);
        self.open_with(script, runner, cwd, artifact_dir)
    }

    /// Opens the server session of turn `number` (from 2) of a conversation case: the turn's
    /// script (its own, else the case's), else the run's.
    pub(crate) fn open_turn(
        &self,
        case: &CaseSpec,
        number: usize,
        runner: &Runner,
        cwd: &Path,
        artifact_dir: &Path,
    ) -> Option<DryRunSession> {
        let script = self
            .turn_scripts
            .get(&(case.id.clone(), number))
            .unwrap_or(&self.default_script);
        self.open_with(script, runner, cwd, artifact_dir)
    }

    /// Opens the server session of one explain question: the model answers
    /// [`explain_answer`] of it, whatever the resumed history holds.
    pub(crate) fn open_explain(
        &self,
        runner: &Runner,
        cwd: &Path,
        artifact_dir: &Path,
        question: &str,
    ) -> Option<DryRunSession> {
        let script = Arc::new(Script::answer(explain_answer(question)));
        self.open_with(&script, runner, cwd, artifact_dir)
    }

    /// Opens the server session of one judge question (`judge.mock`'s script).
    pub(crate) fn open_judge(
        &self,
        runner: &Runner,
        cwd: &Path,
        artifact_dir: &Path,
    ) -> Option<DryRunSession> {
        self.open_with(&self.judge_script, runner, cwd, artifact_dir)
    }

    fn open_with(
        &self,
        script: &Arc<Script>,
        runner: &Runner,
        cwd: &Path,
        artifact_dir: &Path,
    ) -> Option<DryRunSession> {
        let wire_api = runner.agent.wire_api()?;
        let session = self.server.open_session(SessionSetup {
            script: Arc::clone(script),
            cwd: Some(cwd.to_path_buf()),
            log: Some(artifact_dir.join(REQUEST_LOG)),
            model: runner.agent.model().map(str::to_owned),
        });
        Some(DryRunSession {
            provider: Provider {
                base_url: session.base_url(wire_api),
                api_key: ApiKey::Value(session.api_key().to_owned()),
                wire_api,
                offline: true,
            },
            _session: session,
        })
    }
}

/// The scripts of a conversation case's turns after the first, with their turn numbers.
fn later_turn_scripts(case: &CaseSpec) -> impl Iterator<Item = (usize, &Path)> {
    let conversation = match &case.check {
        crate::suite::CaseCheck::Declared(check) => check.conversation.as_ref(),
        _ => None,
    };
    conversation
        .into_iter()
        .flat_map(|c| c.turns.iter().enumerate().skip(1))
        .filter_map(|(index, turn)| Some((index + 1, turn.mock.as_deref()?)))
}

/// Why a `--mock` run cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DryRunError {
    /// The run's script (`--mock-script`) cannot be read or parsed.
    #[error(transparent)]
    Script(ConfigError),
    /// A case's `mock` script cannot be read or parsed.
    #[error("{error}\n  note: the `mock` script of case `{case}` ({declared})")]
    CaseScript {
        /// The problem with the script.
        error: ConfigError,
        /// The case id.
        case: String,
        /// Where the case is declared.
        declared: String,
    },
    /// The scripted model server cannot listen.
    #[error("cannot start the scripted model server on 127.0.0.1")]
    Server(#[source] io::Error),
}
