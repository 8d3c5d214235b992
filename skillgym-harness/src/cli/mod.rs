//! The command line of a benchmark binary, parsed by clap: libtest's flags (libtest-mimic's
//! [`Arguments`], flattened in, so a flag a newer libtest-mimic adds is accepted) beside
//! skillgym's own, and the `SKILLGYM_*` variables.
//!
//! | source | parsed by | wins over |
//! |---|---|---|
//! | flags: `--tag smoke`, `--repeat=3` | [`parse`] | everything |
//! | variables: `SKILLGYM_TAG=smoke` (empty = unset) | [`from_env`], the same value parsers | `skillgym.yaml` |
//! | `skillgym.yaml`, then the defaults | [`crate::config`] | – |
//!
//! Every mistake is a [`UsageError`] naming the flag or variable, with a "did you mean" where a
//! known name or value is close; the harness prints it and exits with 2.

mod flags;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};
use libtest_mimic::Arguments;

pub(crate) use crate::config::Schedule;
use crate::suggest::did_you_mean;
use flags::{CommandLine, EnvLine, Flags, Invalid};

/// skillgym's flags (or `SKILLGYM_*` variables); every field `None`/empty means "not given".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SkillgymArgs {
    /// `--tag`: run only cases carrying one of these tags.
    pub tags: Vec<String>,
    /// `--runner`: run only these runner ids.
    pub runners: Vec<String>,
    /// `--variant`: run only these variants.
    pub variants: Vec<String>,
    /// Whether `variants` came from `SKILLGYM_VARIANT` rather than `--variant` (errors name it).
    pub variants_from_env: bool,
    /// `--repeat`: successful samples wanted per execution (>= 1).
    pub repeat: Option<u32>,
    /// `--repeat-failure`: extra attempts allowed per repetition (>= 0).
    pub repeat_failure: Option<u32>,
    /// `--retry-failed`: legacy alias of `--repeat-failure`, which wins when both are given.
    pub retry_failed: Option<u32>,
    /// `--samples`: independent sessions per execution, none retried (>= 1).
    pub samples: Option<u32>,
    /// `--schedule`.
    pub schedule: Option<Schedule>,
    /// `--max-parallel`: executions at once (>= 1).
    pub max_parallel: Option<usize>,
    /// `--output-dir`, as given (relative to the process cwd).
    pub output_dir: Option<PathBuf>,
    /// `--workspace-root`, as given (relative to the process cwd).
    pub workspace_root: Option<PathBuf>,
    /// `--config`, as given (relative to the process cwd).
    pub config: Option<PathBuf>,
    /// `--reporter`: reporter names.
    pub reporters: Vec<String>,
    /// `--mock`: a dry run against the scripted model server.
    pub mock: Option<bool>,
    /// `--mock-script`: the script of every case without one of its own (implies `--mock`),
    /// as given (relative to the process cwd).
    pub mock_script: Option<PathBuf>,
    /// `--replay`: the recorded run every runner replays, as given (relative to the process
    /// cwd).
    pub replay: Option<PathBuf>,
    /// `--update-snapshots`: write the figures into the snapshots baseline.
    pub update_snapshots: Option<bool>,
    /// Whether `update_snapshots` came from `SKILLGYM_UPDATE_SNAPSHOTS` (errors name it).
    pub update_snapshots_from_env: bool,
    /// `--require-agents`: a runner whose agent program is missing stops the run (else it is
    /// skipped, unless `CI` is set).
    pub require_agents: Option<bool>,
    /// Whether `runners` came from `SKILLGYM_RUNNER` rather than `--runner` (errors name it).
    pub runners_from_env: bool,
    /// `--format junit`: the run's JUnit document on stdout instead of libtest's lines.
    pub format_junit: bool,
    /// `--explain DIR`: explain the failed attempts in DIR instead of running (command line
    /// only), as given (relative to the process cwd).
    pub explain: Option<PathBuf>,
    /// `--rerun`: with `--explain`, ask again even when answers are stored.
    pub rerun: bool,
    /// The test name filters after the first (libtest-mimic's `filter`), command line only: a
    /// trial runs when its name matches any of them.
    pub more_filters: Vec<String>,
}

impl SkillgymArgs {
    /// Whether the run is a dry run against the scripted model: `--mock`, else a
    /// `--mock-script` (which implies it).
    pub(crate) fn mock_run(&self) -> bool {
        self.mock.unwrap_or(self.mock_script.is_some())
    }

    /// Field by field, `self` where given, else `fallback` (use as `flags.or(env)`).
    ///
    /// `repeat_failure` and `retry_failed` count as one setting: if `self` gives either, both
    /// come from `self`, so `--retry-failed` on the command line beats `SKILLGYM_REPEAT_FAILURE`.
    pub(crate) fn or(self, fallback: SkillgymArgs) -> SkillgymArgs {
        let failure_given = self.repeat_failure.is_some() || self.retry_failed.is_some();
        let (repeat_failure, retry_failed) = if failure_given {
            (self.repeat_failure, self.retry_failed)
        } else {
            (fallback.repeat_failure, fallback.retry_failed)
        };
        SkillgymArgs {
            tags: if self.tags.is_empty() {
                fallback.tags
            } else {
                self.tags
            },
            format_junit: self.format_junit || fallback.format_junit,
            runners_from_env: if self.runners.is_empty() {
                fallback.runners_from_env
            } else {
                self.runners_from_env
            },
            runners: if self.runners.is_empty() {
                fallback.runners
            } else {
                self.runners
            },
            variants_from_env: if self.variants.is_empty() {
                fallback.variants_from_env
            } else {
                self.variants_from_env
            },
            variants: if self.variants.is_empty() {
                fallback.variants
            } else {
                self.variants
            },
            repeat: self.repeat.or(fallback.repeat),
            samples: self.samples.or(fallback.samples),
            repeat_failure,
            retry_failed,
            schedule: self.schedule.or(fallback.schedule),
            max_parallel: self.max_parallel.or(fallback.max_parallel),
            output_dir: self.output_dir.or(fallback.output_dir),
            workspace_root: self.workspace_root.or(fallback.workspace_root),
            config: self.config.or(fallback.config),
            reporters: if self.reporters.is_empty() {
                fallback.reporters
            } else {
                self.reporters
            },
            mock: self.mock.or(fallback.mock),
            mock_script: self.mock_script.or(fallback.mock_script),
            replay: self.replay.or(fallback.replay),
            update_snapshots_from_env: if self.update_snapshots.is_some() {
                self.update_snapshots_from_env
            } else {
                fallback.update_snapshots_from_env
            },
            update_snapshots: self.update_snapshots.or(fallback.update_snapshots),
            require_agents: self.require_agents.or(fallback.require_agents),
            explain: self.explain.or(fallback.explain),
            rerun: self.rerun || fallback.rerun,
            more_filters: if self.more_filters.is_empty() {
                fallback.more_filters
            } else {
                self.more_filters
            },
        }
    }
}

/// A bad skillgym flag or `SKILLGYM_*` variable. `Display` is one line naming the flag (or
/// variable) and what is wrong, with a "did you mean" when one is close; print it as
/// `error: {err}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", suggestion_clause(suggestion.as_deref()))]
pub struct UsageError {
    subject: String,
    message: String,
    suggestion: Option<String>,
}

impl UsageError {
    /// An error about `subject` (a flag such as `--tag`, or a variable such as `SKILLGYM_TAG`);
    /// `message` is the whole sentence.
    pub fn new(subject: impl Into<String>, message: impl Into<String>) -> Self {
        UsageError {
            subject: subject.into(),
            message: message.into(),
            suggestion: None,
        }
    }

    /// Adds "did you mean `suggestion`?".
    #[must_use]
    pub fn with_suggestion(mut self, suggestion: Option<impl Into<String>>) -> Self {
        self.suggestion = suggestion.map(Into::into);
        self
    }

    /// The flag or variable at fault, e.g. `--tag`.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The sentence saying what is wrong, without the suggestion.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The suggested replacement, if any.
    pub fn suggestion(&self) -> Option<&str> {
        self.suggestion.as_deref()
    }
}

/// `; did you mean `suggestion`?`, or nothing without a suggestion.
fn suggestion_clause(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |suggestion| {
        format!("; did you mean `{suggestion}`?")
    })
}

/// What the command line asks for.
#[derive(Debug)]
pub(crate) enum Invocation {
    /// Run (or `--list`) with these libtest arguments and skillgym flags.
    Run(Box<Arguments>, Box<SkillgymArgs>),
    /// `--help` or `-h`: print this text and exit successfully.
    Help(String),
}

/// Parses a benchmark binary's argv (`argv[0]` first): libtest's flags and skillgym's.
///
/// skillgym's flags take their value as `--flag value` or `--flag=value` (`--mock` alone, or
/// `--mock=false`); `--tag` and `--runner` may repeat and take comma-separated lists, kept
/// in first-seen order without duplicates.
pub(crate) fn parse<I, S>(argv: I) -> Result<Invocation, UsageError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let mut command = CommandLine::command();
    let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let argv = if argv.is_empty() {
        vec![OsString::from("benchmarks")]
    } else {
        argv
    };
    let (argv, junit) = take_junit_format(argv);
    match command.try_get_matches_from_mut(&argv) {
        Ok(mut matches) => {
            let line = CommandLine::from_arg_matches_mut(&mut matches)
                .map_err(|error| usage_error(&command, &error, None))?;
            let mut libtest = line.libtest;
            let mut args = line.skillgym.into_args();
            args.explain = line.explain.explain;
            args.rerun = line.explain.rerun;
            args.more_filters = line.more_filters;
            if junit {
                // Nothing of libtest's on stdout: the JUnit document takes its place.
                libtest.format = Some(libtest_mimic::FormatSetting::Terse);
                args.format_junit = true;
            }
            Ok(Invocation::Run(Box::new(libtest), Box::new(args)))
        }
        Err(error) if error.kind() == ErrorKind::DisplayHelp => {
            Ok(Invocation::Help(error.render().to_string()))
        }
        Err(error) if error.kind() == ErrorKind::InvalidUtf8 => Err(not_utf8(&command, &argv)),
        Err(error) => Err(usage_error(&command, &error, None)),
    }
}

/// Reads the `SKILLGYM_*` variables through `lookup` (e.g. `|k| std::env::var(k).ok()`); an
/// empty value counts as unset. Values follow the same rules as the flags: each variable is
/// parsed as its flag, `SKILLGYM_REPEAT_FAILURE=2` as `--repeat-failure=2`.
pub(crate) fn from_env(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<SkillgymArgs, UsageError> {
    let mut command = EnvLine::command();
    let mut argv = Vec::new();
    for long in long_flags(&command) {
        if let Some(value) = lookup(&env_name(long)).filter(|value| !value.trim().is_empty()) {
            argv.push(format!("--{long}={value}"));
        }
    }
    command
        .try_get_matches_from_mut(argv)
        .and_then(|mut matches| EnvLine::from_arg_matches_mut(&mut matches))
        .map(|line| {
            let args = line.skillgym.into_args();
            SkillgymArgs {
                runners_from_env: !args.runners.is_empty(),
                variants_from_env: !args.variants.is_empty(),
                update_snapshots_from_env: args.update_snapshots.is_some(),
                ..args
            }
        })
        .map_err(|error| usage_error(&command, &error, Some(env_name)))
}

/// The error of an argument that is not UTF-8 (clap's names none): the flag of `command` it is
/// the value of, else the argument itself.
fn not_utf8(command: &clap::Command, argv: &[OsString]) -> UsageError {
    let bad = argv
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, arg)| arg.to_str().is_none());
    let Some((at, arg)) = bad else {
        return UsageError::new("argv", "an argument is not valid UTF-8");
    };
    let shown = arg.to_string_lossy();
    let flag = match shown.split_once('=') {
        Some((flag, _)) if flag.starts_with("--") => Some(flag.to_owned()),
        _ => argv[at - 1]
            .to_str()
            .and_then(|previous| previous.strip_prefix("--"))
            .filter(|long| {
                command.get_arguments().any(|flag| {
                    flag.get_long() == Some(*long)
                        && flag.get_action().takes_values()
                        && !flag.is_require_equals_set()
                })
            })
            .map(|long| format!("--{long}")),
    };
    match flag {
        Some(flag) => UsageError::new(
            &flag,
            format!("the value of `{flag}` is not valid UTF-8: `{shown}`"),
        ),
        None => UsageError::new(
            shown.as_ref(),
            format!("the argument `{shown}` is not valid UTF-8"),
        ),
    }
}

/// `--format junit` (or `--format=junit`), which libtest-mimic does not know: removed from
/// `argv`, and reported. libtest's own unstable JUnit format prints only the document on
/// stdout; skillgym does the same with its `junit` reporter's document.
fn take_junit_format(argv: Vec<OsString>) -> (Vec<OsString>, bool) {
    let mut out = Vec::with_capacity(argv.len());
    let mut junit = false;
    let mut iter = argv.into_iter().peekable();
    while let Some(arg) = iter.next() {
        if arg == "--format=junit" {
            junit = true;
            continue;
        }
        if arg == "--format" && iter.peek().is_some_and(|next| next == "junit") {
            iter.next();
            junit = true;
            continue;
        }
        out.push(arg);
    }
    (out, junit)
}

/// The variable of the flag `--{long}`: `SKILLGYM_` and the name in upper snake case.
fn env_name(long: &str) -> String {
    format!("SKILLGYM_{}", long.to_ascii_uppercase().replace('-', "_"))
}

/// The long names (without dashes) of `command`'s flags, skillgym's first, `help` excluded.
fn long_flags(command: &clap::Command) -> Vec<&str> {
    let (mut ours, libtest): (Vec<&clap::Arg>, Vec<&clap::Arg>) = command
        .get_arguments()
        .partition(|arg| arg.get_help_heading() == Some(flags::HEADING));
    ours.extend(libtest);
    ours.into_iter()
        .filter_map(clap::Arg::get_long)
        .filter(|long| *long != "help")
        .collect()
}

impl Flags {
    fn into_args(self) -> SkillgymArgs {
        SkillgymArgs {
            tags: dedup(self.tags),
            runners: dedup(self.runners),
            variants: dedup(self.variants),
            variants_from_env: false,
            repeat: self.repeat,
            repeat_failure: self.repeat_failure,
            retry_failed: self.retry_failed,
            samples: self.samples,
            schedule: self.schedule,
            max_parallel: self.max_parallel,
            output_dir: self.output_dir,
            workspace_root: self.workspace_root,
            config: self.config,
            reporters: dedup(self.reporters),
            mock: self.mock,
            mock_script: self.mock_script,
            replay: self.replay,
            update_snapshots: self.update_snapshots,
            update_snapshots_from_env: false,
            require_agents: self.require_agents,
            runners_from_env: false,
            format_junit: false,
            explain: None,
            rerun: false,
            more_filters: Vec::new(),
        }
    }
}

/// The pieces of every occurrence, in first-seen order, without duplicates.
fn dedup(lists: Vec<flags::List>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in lists.into_iter().flat_map(|list| list.0) {
        if !out.contains(&piece) {
            out.push(piece);
        }
    }
    out
}

/// Turns clap's error into one line naming the flag — or, with `env`, the variable the flag
/// was read from — with a suggestion drawn from `command`'s own flags.
fn usage_error(
    command: &clap::Command,
    error: &clap::Error,
    env: Option<fn(&str) -> String>,
) -> UsageError {
    let context = |kind| match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.as_str()),
        _ => None,
    };
    let arg = context(ContextKind::InvalidArg).unwrap_or_default();
    // "--repeat <N>" or "--mock[=<BOOL>]": the flag is the leading name.
    let flag = arg.split([' ', '[', '=']).next().unwrap_or(arg);
    let subject = match (env, flag.strip_prefix("--")) {
        (Some(env_name), Some(long)) => env_name(long),
        _ => flag.to_owned(),
    };
    match error.kind() {
        ErrorKind::UnknownArgument if arg.starts_with('-') => {
            let name = arg.trim_start_matches('-');
            let name = name.split_once('=').map_or(name, |(name, _)| name);
            let mut flags = long_flags(command);
            flags.push("help");
            UsageError::new(arg, format!("unknown flag `{arg}`"))
                .with_suggestion(did_you_mean(name, flags).map(|near| format!("--{near}")))
        }
        ErrorKind::InvalidValue if context(ContextKind::InvalidValue) == Some("") => {
            let shape = arg.strip_prefix(flag).unwrap_or_default().trim();
            UsageError::new(
                &subject,
                format!("`{subject}` needs a value: `{flag} {shape}`"),
            )
        }
        ErrorKind::ValueValidation => {
            let invalid = std::error::Error::source(error)
                .and_then(|source| source.downcast_ref::<Invalid>());
            match invalid {
                Some(invalid) => {
                    UsageError::new(&subject, format!("`{subject}` {}", invalid.message))
                        .with_suggestion(invalid.suggestion.clone())
                }
                None => UsageError::new(&subject, clap_message(error)),
            }
        }
        // `--rerun` is the only flag that requires another.
        ErrorKind::MissingRequiredArgument => UsageError::new(
            "--rerun",
            "`--rerun` needs `--explain DIR`: it asks the questions of an explain again",
        ),
        ErrorKind::NoEquals => UsageError::new(
            &subject,
            format!("`{subject}` takes its value after `=`: `{flag}=false`"),
        ),
        _ => UsageError::new(&subject, clap_message(error)),
    }
}

/// clap's own message, one line, without its "error: " prefix and usage footer.
fn clap_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default();
    first.trim_start_matches("error: ").to_owned()
}

/// The whole `--help` text of a benchmark binary: libtest's flags, then skillgym's (what
/// `docs/src/reference/flags.md` shows).
pub fn help_text() -> String {
    CommandLine::command().render_long_help().to_string()
}

#[cfg(test)]
mod tests;
