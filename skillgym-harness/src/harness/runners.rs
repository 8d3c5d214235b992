//! The runners of a run: configured and coded ones, the `--runner` selection, the judge, and
//! the cases' own `runners` checked against them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::{self, AgentOptions};
use crate::config::{self, AgentKind};
use crate::error::{AgentBuildError, Error, JudgeError, UnknownCaseRunner};
use crate::replay::Recording;
use crate::runner::Runner;
use crate::settings::Settings;
use crate::suite::CaseSpec;

/// Every case's runners must be configured: a typo would skip the case silently.
pub(super) fn check_case_runners(cases: &[CaseSpec], configured: &[Runner]) -> Result<(), Error> {
    let known: Vec<String> = configured.iter().map(|r| r.id.clone()).collect();
    let unknown: Vec<UnknownCaseRunner> = cases
        .iter()
        .flat_map(|case| {
            case.runners
                .iter()
                .filter(|runner| !known.contains(runner))
                .map(|runner| UnknownCaseRunner {
                    case: case.id.clone(),
                    declared: case.source.clone(),
                    runner: runner.clone(),
                    suggestion: crate::suggest::did_you_mean(
                        runner,
                        known.iter().map(String::as_str),
                    )
                    .map(str::to_owned),
                    known: known.clone(),
                })
        })
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(Error::UnknownCaseRunners(unknown))
    }
}

/// The judge of `judge:`: the runner `judge.runner` names (any configured runner, whatever
/// `--runner` selects), or `judge.agent`.
pub(super) fn judge_runner(
    settings: &Settings,
    configured: &[Runner],
) -> Result<Option<Runner>, Error> {
    let Some(judge) = &settings.judge else {
        return Ok(None);
    };
    let config = settings
        .config_path
        .as_deref()
        .map_or_else(String::new, |path| path.display().to_string());
    let wanted = match (&judge.runner, &judge.agent) {
        (Some(runner), None) => runner,
        (None, Some(agent)) => {
            let options = AgentOptions::from_config(agent)
                .inherit_user_skills(settings.user_skills == config::UserSkills::Inherit);
            let built = agent::build(agent.kind, options).map_err(JudgeError::Agent)?;
            return Ok(Some(Runner {
                id: "judge".to_owned(),
                agent: built,
                replay: None,
            }));
        }
        _ => return Err(JudgeError::RunnerOrAgent { config }.into()),
    };
    if let Some(runner) = configured.iter().find(|r| r.id == wanted.value) {
        return Ok(Some(runner.clone()));
    }
    let known: Vec<String> = configured.iter().map(|r| r.id.clone()).collect();
    Err(JudgeError::UnknownRunner {
        config,
        line: wanted.line,
        column: wanted.column,
        runner: wanted.value.clone(),
        suggestion: crate::suggest::did_you_mean(&wanted.value, known.iter().map(String::as_str))
            .map(str::to_owned),
        known,
    }
    .into())
}

/// The configuration's runners, then the code's (replacing any with the same id).
pub(super) fn all_runners(
    settings: &Settings,
    from_code: Vec<Runner>,
) -> Result<Vec<Runner>, Error> {
    let mut runners = configured_runners(settings)?;
    for runner in from_code {
        match runners.iter_mut().find(|r| r.id == runner.id) {
            Some(slot) => *slot = runner,
            None => runners.push(runner),
        }
    }
    Ok(runners)
}

/// The runners `--runner` selects (which must all exist), in configuration order.
pub(super) fn select_runners(
    settings: &Settings,
    mut runners: Vec<Runner>,
) -> Result<Vec<Runner>, Error> {
    let known: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
    super::settings::check_runner_filter(settings, &known)?;
    if !settings.runner_filter.is_empty() {
        runners.retain(|r| settings.runner_filter.contains(&r.id));
    }
    Ok(runners)
}

/// The runners of the configuration file. `type: replay` runners share one opened
/// recording per directory.
pub(super) fn configured_runners(settings: &Settings) -> Result<Vec<Runner>, Error> {
    let mut recordings: Vec<(PathBuf, Arc<Recording>)> = Vec::new();
    settings
        .runners
        .iter()
        .map(|(id, runner)| {
            let agent = &runner.agent;
            let failed = |source| Error::Runner {
                id: id.clone(),
                source,
            };
            if let (AgentKind::Replay, Some(dir)) = (agent.kind, &agent.recording) {
                let recording = match recordings.iter().find(|(path, _)| path == dir) {
                    Some((_, recording)) => Arc::clone(recording),
                    None => {
                        let opened = Recording::open(dir).map_err(|error| {
                            failed(AgentBuildError::Recording(error.to_string()))
                        })?;
                        let opened = Arc::new(opened);
                        recordings.push((dir.clone(), Arc::clone(&opened)));
                        opened
                    }
                };
                let recorded = agent.replay_runner.as_deref().unwrap_or(id);
                return crate::runner::replaying(id, recording, recorded).map_err(failed);
            }
            let options = AgentOptions::from_config(agent)
                .inherit_user_skills(settings.user_skills == config::UserSkills::Inherit);
            let built = agent::build(agent.kind, options).map_err(failed)?;
            Ok(Runner {
                id: id.clone(),
                agent: built,
                replay: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommandAgent;
    use crate::suite::collect_registered;

    #[skillgym::case(prompt = "p", runners = ["claude", "codx"])]
    fn names_a_typo(_report: &skillgym::SessionReport) {}

    #[test]
    fn a_case_naming_an_unknown_runner_is_an_error_with_a_suggestion() {
        let cases = collect_registered().unwrap();
        let case = cases
            .iter()
            .find(|case| case.id.ends_with("names_a_typo"))
            .unwrap();
        let runner = |id: &str| Runner {
            id: id.to_owned(),
            agent: Arc::new(CommandAgent::new("true")),
            replay: None,
        };
        let error = check_case_runners(
            std::slice::from_ref(case),
            &[runner("claude"), runner("codex")],
        )
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("case `harness::runners::tests::names_a_typo` (")
                && text.contains("runners.rs:"),
            "{text}"
        );
        assert!(
            text.ends_with(
                ") names runner `codx`, which is not configured (configured runners: `claude`, `codex`)\n  help: did you mean `codex`?"
            ),
            "{text}"
        );
        assert_eq!(error.exit_code(), 2);
        assert!(
            check_case_runners(
                std::slice::from_ref(case),
                &[runner("claude"), runner("codx")]
            )
            .is_ok()
        );
    }
}
