//! The errors of the harness: one type per join, and [`Error`], the one a run stops with.
//!
//! | type | raised by | names |
//! |---|---|---|
//! | [`Error`] | [`Harness::run`](crate::Harness::run), before any trial runs | each kind of problem below; [`Error::exit_code`] |
//! | [`AgentBuildError`] | [`agent::build`](crate::agent::build), [`CommandAgent::from_options`](crate::CommandAgent::from_options) | the missing setting |
//! | [`PreflightError`] | the checks made before a run: prompt files, agent programs, sandboxes | every case or runner at fault |
//! | [`SkillError`] | loading and merging the skills under test | the skill directories, the config entry |
//! | [`DryRunError`] | starting a `--mock` run | the script, the case that names it |
//! | [`SuiteErrors`] | loading declarative suites | every error of every file, with line and column |
//! | [`UnknownCaseRunner`], [`JudgeError`] | matching declarative cases and the judge to runners | the case, the runner, the configured ones |
//! | [`RunDirError`] | claiming the run directory | the directory |
//! | [`IoError`] | file and process operations (wrapped in an [`io::Error`] where a seam returns one) | the path(s) |
//!
//! An I/O cause is kept as [`std::error::Error::source`]. The messages of [`IoError`] (and so
//! of the [`io::Error`]s that wrap one) include their cause's text, since they are shown with
//! `{}` wherever a session fails; the top-level errors leave it out, and [`Error::report`]
//! appends every cause not already in the message (`: {cause}`), so each is shown once.

use std::fmt;
use std::io;
use std::path::PathBuf;

pub use crate::cli::UsageError;
use crate::config::ConfigError;
use crate::settings::SettingsError;
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

/// Why an agent adapter cannot be built from a runner's options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentBuildError {
    /// A `command` agent without `command`.
    #[error("an agent of type `command` needs `command`")]
    MissingCommand,
    /// A `replay` agent where a program must start (the judge).
    #[error("an agent of type `replay` starts no program: only a runner can replay a recording")]
    ReplayHasNoProgram,
    /// A recording that cannot be replayed: unreadable, or without the runner asked for.
    #[error("{0}")]
    Recording(String),
}

/// Checks made before anything runs (prompt files, agent programs), each listing every
/// case or runner at fault, one per line (`\nerror: ` between them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PreflightError {
    /// Selected cases whose `prompt_file` does not exist.
    #[error("{}", lines(.0))]
    PromptFiles(Vec<MissingPromptFile>),
    /// Selected runners whose agent program cannot be found.
    #[error("{}", lines(.0))]
    AgentPrograms(Vec<MissingProgram>),
    /// Selected runners whose sandbox cannot be set up here.
    #[error("{}", lines(.0))]
    Sandboxes(Vec<SandboxProblem>),
}

fn lines(problems: &[impl fmt::Display]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\nerror: ")
}

/// A case whose prompt file does not exist.
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

/// A problem with the skills under test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A skill directory or its `SKILL.md` is wrong (located at the config entry listing it,
    /// or in the `SKILL.md`).
    #[error(transparent)]
    Invalid(#[from] ConfigError),
    /// A skill of a case's `skills = [...]` is wrong.
    #[error("skills: {0}")]
    InvalidForCase(ConfigError),
    /// Two different directories hold skills with the same name.
    #[error("two skills are named `{name}`: {} and {}", .first.display(), .second.display())]
    NameClash {
        /// The skill name.
        name: String,
        /// The directory seen first.
        first: PathBuf,
        /// The other one.
        second: PathBuf,
    },
    /// Skills are listed but attempts do not run in a workspace of their own.
    #[error(
        "{what} lists skills under test, which are installed into each attempt's own \
         workspace, but {place}\n  help: set `run.workspace: {{ mode: isolated }}` (with a \
         `template_dir` if the agent needs files), or give the case `workspace = \"...\"`"
    )]
    NeedsIsolation {
        /// Who lists them, e.g. "the case's `skills`".
        what: String,
        /// Why the workspace is not the attempt's own.
        place: String,
    },
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

/// Why a run cannot claim its run directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunDirError {
    /// Another run already owns it (`SKILLGYM_RUN_ID` names a finished run).
    #[error(
        "the run directory `{}` already holds another run: a run directory is never reused\n  help: unset `SKILLGYM_RUN_ID` (each run then gets a fresh id), choose another one, or remove the directory",
        .path.display()
    )]
    Reused {
        /// The run directory.
        path: PathBuf,
    },
    /// It cannot be created, or its owner marker written or read.
    #[error("cannot claim the run directory `{}`", .path.display())]
    Io {
        /// The run directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

/// A file or process operation that failed, naming its path(s); the io error is the source.
///
/// Where a seam returns [`io::Result`] (e.g. [`Agent::launch`](crate::Agent::launch)) it is
/// wrapped in an [`io::Error`] of the same kind, which keeps it as its source:
/// `io::Error::from(IoError::...)`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// A directory for a log file cannot be created.
    #[error("cannot create log directory `{}`: {source}", .path.display())]
    CreateLogDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A log file cannot be created.
    #[error("cannot create log file `{}`: {source}", .path.display())]
    CreateLogFile {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A program cannot be started.
    #[error("cannot start `{}` in `{}`: {source}", .program.display(), .cwd.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The directory it was to run in.
        cwd: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A directory cannot be created.
    #[error("cannot create {}: {source}", .path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A file cannot be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A prompt file cannot be read.
    #[error("cannot read prompt file {}: {source}", .path.display())]
    ReadPrompt {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// What a skill's directory holds cannot be removed before it is installed again.
    #[error("cannot replace {}: {source}", .path.display())]
    ReplaceSkill {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A skill cannot be copied into a workspace.
    #[error("cannot install the skill `{name}` from {} into {}: {source}", .from.display(), .to.display())]
    InstallSkill {
        /// The skill name.
        name: String,
        /// Its directory.
        from: PathBuf,
        /// Where it was to go.
        to: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// An auth file cannot be copied into an agent's state directory.
    #[error("cannot seed {} into {}: {source}", .from.display(), .to.display())]
    Seed {
        /// The user's file.
        from: PathBuf,
        /// The copy.
        to: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A private skills directory cannot be linked to the user's.
    #[error("cannot link {} to the user's skills {}: {source}", .link.display(), .target.display())]
    LinkUserSkills {
        /// The link.
        link: PathBuf,
        /// The user's skills directory.
        target: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// An agent's session file cannot be copied into the artifacts.
    #[error("cannot copy the session file {}: {source}", .path.display())]
    CopySessionFile {
        /// The session file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Any other operation on a path (e.g. while copying a tree).
    #[error("{}: {source}", .path.display())]
    At {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl IoError {
    /// The io error behind it.
    pub fn io_source(&self) -> &io::Error {
        match self {
            IoError::CreateLogDir { source, .. }
            | IoError::CreateLogFile { source, .. }
            | IoError::Spawn { source, .. }
            | IoError::CreateDir { source, .. }
            | IoError::Write { source, .. }
            | IoError::ReadPrompt { source, .. }
            | IoError::ReplaceSkill { source, .. }
            | IoError::InstallSkill { source, .. }
            | IoError::Seed { source, .. }
            | IoError::LinkUserSkills { source, .. }
            | IoError::CopySessionFile { source, .. }
            | IoError::At { source, .. } => source,
        }
    }
}

impl From<IoError> for io::Error {
    /// An [`io::Error`] of the cause's kind, whose source is the cause.
    fn from(error: IoError) -> io::Error {
        io::Error::new(error.io_source().kind(), error)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
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
            Error::Preflight(PreflightError::PromptFiles(Vec::new())),
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
        let error = PreflightError::PromptFiles(vec![
            MissingPromptFile {
                case: "a".into(),
                path: "/p/a.md".into(),
                declared: "t.rs:1".into(),
            },
            MissingPromptFile {
                case: "b".into(),
                path: "/p/b.md".into(),
                declared: "t.rs:9".into(),
            },
        ]);
        assert_eq!(
            error.to_string(),
            "the prompt file of case `a` does not exist: /p/a.md (declared at t.rs:1)\nerror: the prompt file of case `b` does not exist: /p/b.md (declared at t.rs:9)"
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
