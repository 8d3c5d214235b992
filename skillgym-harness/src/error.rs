//! The errors of the harness: one type per join, and [`Error`], the one a run stops with. Each
//! type is defined beside the code that raises it and gathered here; only [`Error`],
//! [`UnknownCaseRunner`] and [`JudgeError`], raised by the harness itself, are defined here.
//!
//! | type | raised by | names |
//! |---|---|---|
//! | [`Error`] | [`Harness::run`](crate::Harness::run), before any trial runs | each kind of problem below; [`Error::exit_code`] |
//! | [`AgentBuildError`] | [`agent::build`](crate::agent::build), [`CommandAgent::from_options`](crate::CommandAgent::from_options) | the missing setting |
//! | [`PreflightError`] | the checks made before a run: agent programs, sandboxes | every case or runner at fault |
//! | [`SkillError`] | loading and merging the skills under test | the skill directories, the config entry |
//! | [`DryRunError`] | starting a `--mock` run | the script, the case that names it |
//! | [`SuiteErrors`] | loading declarative suites | every error of every file, with line and column |
//! | [`UnknownCaseRunner`], [`JudgeError`] | matching declarative cases and the judge to runners | the case, the runner, the configured ones |
//! | [`RunDirError`] | claiming the run directory | the directory |
//! | [`IoError`] | file and process operations (wrapped in an [`io::Error`](std::io::Error) where a seam returns one) | the path(s) |
//!
//! An I/O cause is kept as [`std::error::Error::source`]. The messages of [`IoError`] (and so
//! of the [`io::Error`](std::io::Error)s that wrap one) include their cause's text, since they are shown with
//! `{}` wherever a session fails; the top-level errors leave it out, and [`Error::report`]
//! appends every cause not already in the message (`: {cause}`), so each is shown once.

use std::fmt;
use std::path::PathBuf;

pub use crate::agent::AgentBuildError;
pub use crate::artifacts::RunDirError;
pub use crate::cli::UsageError;
use crate::config::ConfigError;
pub use crate::dry_run::DryRunError;
pub use crate::io_error::IoError;
use crate::preflight::lines;
pub use crate::preflight::{
    CannotResume, MissingProgram, MissingPromptFile, PreflightError, SandboxProblem,
};
pub use crate::settings::SettingsError;
pub use crate::skills::SkillError;
pub use crate::suite::plan::VariantError;
pub use crate::suite::registry::DuplicateCaseId;
pub use crate::suite::yaml::SuiteErrors;

/// Why a run could not start: what [`Harness::run`](crate::Harness::run) prints as
/// `error: {report}` before exiting with [`Error::exit_code`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A bad flag or `SKILLGYM_*` variable.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Two registered cases share an id.
    #[error(transparent)]
    DuplicateCaseId(#[from] DuplicateCaseId),
    /// The configuration file cannot be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Flags, variables and configuration do not agree (e.g. an unknown `--runner`).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A reporter named by `--reporter` or `run.reporters` does not exist.
    #[error("{}", unknown_reporter(.name, .known))]
    UnknownReporter {
        /// The name given.
        name: String,
        /// The reporters there are.
        known: Vec<String>,
    },
    /// A configured runner's agent cannot be built.
    #[error("runner `{id}`: {source}")]
    Runner {
        /// The runner id.
        id: String,
        /// What is wrong with its agent.
        source: AgentBuildError,
    },
    /// `--replay` names no usable recording, or one whose runners are of other agent types.
    #[error("{0}")]
    Replay(AgentBuildError),
    /// Neither the configuration nor the code configures a runner.
    #[error(
        "no runners configured\n  help: add a `runners:` section to {} or call `Harness::runner`",
        .config.display()
    )]
    NoRunners {
        /// The configuration file used, or where `skillgym.yaml` would be.
        config: PathBuf,
    },
    /// A check made before the run failed.
    #[error(transparent)]
    Preflight(#[from] PreflightError),
    /// The configuration's skills under test are wrong.
    #[error(transparent)]
    Skills(#[from] SkillError),
    /// A `--mock` run cannot start.
    #[error(transparent)]
    DryRun(#[from] DryRunError),
    /// The run directory cannot be claimed.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// Declarative suites that cannot be loaded: every error of every file, at once.
    #[error(transparent)]
    Suite(#[from] SuiteErrors),
    /// Cases that name runners which are not configured (a typo would skip them silently).
    #[error("{}", lines(.0))]
    UnknownCaseRunners(Vec<UnknownCaseRunner>),
    /// The judge of rubric graders is missing or unknown.
    #[error(transparent)]
    Judge(#[from] JudgeError),
    /// The token snapshots' baseline (or `.new`) file cannot be read or is invalid.
    #[error(transparent)]
    Snapshots(ConfigError),
    /// A case runs under a variant that is not declared.
    #[error(transparent)]
    Variant(#[from] VariantError),
    /// A case's `stop_when_decided` has no question to decide on a runner: no gate and no
    /// variants.
    #[error(
        "case `{case}` ({source_location}) has `stop_when_decided`, but on runner `{runner}` it has neither a `min_pass_rate` gate nor variants, so there is nothing to decide\n  help: give it `min_pass_rate` (the case's, its runner's or `run.min_pass_rate`), run it under variants, or remove `stop_when_decided`"
    )]
    NothingToDecide {
        /// The case id.
        case: String,
        /// Where the case is declared.
        source_location: String,
        /// The runner.
        runner: String,
    },
    /// A suite's `after_all` hook cannot run under nextest's process per test.
    #[error(
        "the suite `{suite}` has an `after_all` hook, which cannot run under nextest's process per test (no process knows it runs the suite's last trial)\n  help: run this suite with `cargo test`, or move the teardown to `after_each`"
    )]
    AfterAllUnderNextest {
        /// The suite's name.
        suite: String,
    },
}

impl Error {
    /// The process exit code for this error: 2, a usage, configuration or setup problem
    /// (libtest's own code for bad arguments), for every variant.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_)
            | Error::DuplicateCaseId(_)
            | Error::Config(_)
            | Error::Settings(_)
            | Error::UnknownReporter { .. }
            | Error::Runner { .. }
            | Error::Replay(_)
            | Error::NoRunners { .. }
            | Error::Preflight(_)
            | Error::Skills(_)
            | Error::DryRun(_)
            | Error::RunDir(_)
            | Error::Suite(_)
            | Error::UnknownCaseRunners(_)
            | Error::Judge(_)
            | Error::Snapshots(_)
            | Error::Variant(_)
            | Error::NothingToDecide { .. }
            | Error::AfterAllUnderNextest { .. } => 2,
        }
    }

    /// The message followed by each cause in its [`source`](std::error::Error::source) chain
    /// that the text does not already show, as `: {cause}`.
    pub fn report(&self) -> Report<'_> {
        Report(self)
    }
}

/// [`Error::report`]: the error with its causes, each shown once.
#[derive(Debug)]
pub struct Report<'a>(&'a Error);

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = self.0.to_string();
        let mut cause = std::error::Error::source(self.0);
        while let Some(error) = cause {
            let shown = error.to_string();
            if !text.contains(&shown) {
                text.push_str(": ");
                text.push_str(&shown);
            }
            cause = error.source();
        }
        f.write_str(&text)
    }
}

/// A case whose `runners` (or, for a declarative case, `execution.targets`) name a runner that
/// is not configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "case `{case}` ({declared}) names runner `{runner}`, which is not configured ({}){}",
    known_runners(.known),
    .suggestion.as_ref().map(|s| format!("\n  help: did you mean `{s}`?")).unwrap_or_default()
)]
#[non_exhaustive]
pub struct UnknownCaseRunner {
    /// The case id.
    pub case: String,
    /// Where it is declared, `file:line`.
    pub declared: String,
    /// The unknown runner id.
    pub runner: String,
    /// The configured runner ids.
    pub known: Vec<String>,
    /// The closest configured id.
    pub suggestion: Option<String>,
}

fn unknown_reporter(name: &str, known: &[String]) -> String {
    if name.contains('/') || name.ends_with(".js") || name.ends_with(".ts") {
        return format!(
            "reporter `{name}` is a path, but reporters are Rust types: implement `skillgym_harness::report::Reporter` and add it with `Harness::reporter`"
        );
    }
    let listed: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    let mut text = format!(
        "reporter `{name}` is not available; available reporters: {}",
        listed.join(", ")
    );
    if let Some(close) = crate::suggest::did_you_mean(name, known.iter().map(String::as_str)) {
        text.push_str(&format!("; did you mean `{close}`?"));
    }
    text
}

fn known_runners(known: &[String]) -> String {
    if known.is_empty() {
        return "no runners are configured".to_owned();
    }
    let ids: Vec<String> = known.iter().map(|id| format!("`{id}`")).collect();
    format!("configured runners: {}", ids.join(", "))
}

/// The judge of rubric graders (`judge:` in `skillgym.yaml`) is missing or unknown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// `judge.runner` names a runner that is not configured.
    #[error(
        "{config}:{line}:{column}: `judge.runner` names unknown runner `{runner}` ({}){}",
        known_runners(.known),
        .suggestion.as_ref().map(|s| format!("\n  help: did you mean `{s}`?")).unwrap_or_default()
    )]
    UnknownRunner {
        /// The config file.
        config: String,
        /// Position of the value.
        line: u32,
        /// Position of the value.
        column: u32,
        /// The unknown id.
        runner: String,
        /// The configured runner ids.
        known: Vec<String>,
        /// The closest configured id.
        suggestion: Option<String>,
    },
    /// `judge:` gives both `runner` and `agent`, or neither.
    #[error(
        "{config}: `judge` needs exactly one of `runner` (a configured runner's id) and `agent` (an agent of its own)"
    )]
    RunnerOrAgent {
        /// The config file.
        config: String,
    },
    /// The judge's own agent cannot be built.
    #[error("`judge.agent`: {0}")]
    Agent(AgentBuildError),
    /// Cases with rubric graders, and no judge.
    #[error(
        "{} case(s) have rubric graders (plain-string assertions or `criteria`), which need a judge: {}\n  help: add `judge: {{ runner: <runner id> }}` to skillgym.yaml, or call `Harness::judge`",
        .cases.len(),
        .cases.join(", ")
    )]
    Missing {
        /// The ids of the cases (at most a few are listed).
        cases: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::io;
    use std::path::Path;

    use super::*;

    fn denied() -> io::Error {
        io::Error::from(io::ErrorKind::PermissionDenied)
    }

    fn config() -> ConfigError {
        ConfigError::new(Some(Path::new("/p/skillgym.yaml")), "bad")
    }

    #[test]
    fn every_variant_exits_with_2() {
        let usage = crate::cli::from_env(|key| (key == "SKILLGYM_REPEAT").then(|| "x".to_owned()))
            .unwrap_err();
        let errors = [
            Error::Usage(usage),
            Error::DuplicateCaseId(DuplicateCaseId {
                id: "a".into(),
                first: "x.rs:1".into(),
                second: "y.rs:2".into(),
            }),
            Error::Config(config()),
            Error::Settings(SettingsError::Config(config())),
            Error::UnknownReporter {
                name: "junt".into(),
                known: vec!["standard".into(), "junit".into()],
            },
            Error::Runner {
                id: "r".into(),
                source: AgentBuildError::MissingCommand,
            },
            Error::NoRunners {
                config: "skillgym.yaml".into(),
            },
            Error::Preflight(PreflightError::AgentPrograms(Vec::new())),
            Error::Skills(SkillError::Invalid(config())),
            Error::DryRun(DryRunError::Server(denied())),
            Error::RunDir(RunDirError::Reused { path: "/r".into() }),
        ];
        for error in &errors {
            assert_eq!(error.exit_code(), 2, "{error:?}");
        }
    }

    #[test]
    fn an_io_cause_is_kept_and_reported_once() {
        let error = Error::from(RunDirError::Io {
            path: "/runs/1".into(),
            source: denied(),
        });
        let cause = error.source().expect("the io error is the source");
        assert_eq!(cause.to_string(), denied().to_string());
        let report = error.report().to_string();
        assert_eq!(
            report,
            format!("cannot claim the run directory `/runs/1`: {}", denied())
        );

        let server = Error::from(DryRunError::Server(denied()));
        assert_eq!(
            server.report().to_string(),
            format!(
                "cannot start the scripted model server on 127.0.0.1: {}",
                denied()
            )
        );
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        // An `IoError` says its cause; wrapped in an `io::Error` it stays the source.
        let wrapped = io::Error::from(IoError::CreateDir {
            path: "/runs".into(),
            source: denied(),
        });
        assert_eq!(wrapped.kind(), io::ErrorKind::PermissionDenied);
        assert!(wrapped.source().is_some(), "source kept through io::Error");
        let text = wrapped.to_string();
        assert_eq!(text, format!("cannot create /runs: {}", denied()));

        let error = Error::from(RunDirError::Io {
            path: "/runs/1".into(),
            source: wrapped,
        });
        let report = error.report().to_string();
        assert_eq!(report.matches(&denied().to_string()).count(), 1, "{report}");
        assert_eq!(
            report,
            format!("cannot claim the run directory `/runs/1`: {text}")
        );

        // A transparent wrapper whose source is its own text is shown once too.
        let settings = Error::from(SettingsError::Config(config()));
        assert_eq!(settings.report().to_string(), config().to_string());
    }

    #[test]
    fn preflight_problems_are_one_line_each() {
        let missing = |runner: &str| MissingProgram {
            runner: runner.into(),
            program: "agent".into(),
            install: "npm i".into(),
        };
        let error = PreflightError::AgentPrograms(vec![missing("a"), missing("b")]);
        assert_eq!(
            error.to_string(),
            "runner `a`: the agent program `agent` is not on PATH\n  help: install it (npm i), or point `agent.command` at it; `cargo skillgym doctor` checks every runner\n\
             error: runner `b`: the agent program `agent` is not on PATH\n  help: install it (npm i), or point `agent.command` at it; `cargo skillgym doctor` checks every runner"
        );
        let program = MissingProgram {
            runner: "r".into(),
            program: "./bin/agent".into(),
            install: "npm i".into(),
        };
        assert!(
            program.to_string().starts_with(
                "runner `r`: the agent program `./bin/agent` is not an executable file\n"
            ),
            "{program}"
        );
    }
}
