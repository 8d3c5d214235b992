//! skillgym's own flags and `SKILLGYM_*` environment variables.
//!
//! The test binary's argv holds both libtest's flags (handled by libtest-mimic) and skillgym's;
//! [`split_args`] takes skillgym's out and leaves the rest, unchanged, for libtest-mimic.

use std::ffi::OsString;
use std::fmt;
use std::iter::Peekable;
use std::path::PathBuf;
use std::vec;

pub use crate::config::Schedule;
use crate::suggest::did_you_mean;

/// skillgym's flags (or `SKILLGYM_*` variables); every field `None`/empty means "not given".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillgymArgs {
    /// `--tag`: run only cases carrying one of these tags.
    pub tags: Vec<String>,
    /// `--runner`: run only these runner ids.
    pub runners: Vec<String>,
    /// `--repeat`: successful samples wanted per execution (>= 1).
    pub repeat: Option<u32>,
    /// `--repeat-failure`: extra attempts allowed per repetition (>= 0).
    pub repeat_failure: Option<u32>,
    /// `--retry-failed`: legacy alias of `--repeat-failure`, which wins when both are given.
    pub retry_failed: Option<u32>,
    /// `--schedule`.
    pub schedule: Option<Schedule>,
    /// `--max-parallel`: executions at once (>= 1).
    pub max_parallel: Option<usize>,
    /// `--output-dir`, as given (relative to the process cwd).
    pub output_dir: Option<PathBuf>,
    /// `--config`, as given (relative to the process cwd).
    pub config: Option<PathBuf>,
    /// `--reporter`: a built-in reporter name or a path.
    pub reporter: Option<String>,
    /// `--mock`: a dry run against the scripted model server.
    pub mock: Option<bool>,
    /// `--mock-script`: the script of every case without one of its own (implies `--mock`),
    /// as given (relative to the process cwd).
    pub mock_script: Option<PathBuf>,
}

impl SkillgymArgs {
    /// Field by field, `self` where given, else `fallback` (use as `flags.or(env)`).
    ///
    /// `repeat_failure` and `retry_failed` count as one setting: if `self` gives either, both
    /// come from `self`, so `--retry-failed` on the command line beats `SKILLGYM_REPEAT_FAILURE`.
    pub fn or(self, fallback: SkillgymArgs) -> SkillgymArgs {
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
            runners: if self.runners.is_empty() {
                fallback.runners
            } else {
                self.runners
            },
            repeat: self.repeat.or(fallback.repeat),
            repeat_failure,
            retry_failed,
            schedule: self.schedule.or(fallback.schedule),
            max_parallel: self.max_parallel.or(fallback.max_parallel),
            output_dir: self.output_dir.or(fallback.output_dir),
            config: self.config.or(fallback.config),
            reporter: self.reporter.or(fallback.reporter),
            mock: self.mock.or(fallback.mock),
            mock_script: self.mock_script.or(fallback.mock_script),
        }
    }
}

/// A bad skillgym flag or `SKILLGYM_*` variable. `Display` is one line naming the flag (or
/// variable) and what is wrong, with a "did you mean" when one is close; print it as
/// `error: {err}`.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, "; did you mean `{suggestion}`?")?;
        }
        Ok(())
    }
}

impl std::error::Error for UsageError {}

/// skillgym's settings that can be given as flags and variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    Tag,
    Runner,
    Repeat,
    RepeatFailure,
    RetryFailed,
    Schedule,
    MaxParallel,
    OutputDir,
    Config,
    Reporter,
    Mock,
    MockScript,
}

const FLAGS: [Flag; 12] = [
    Flag::Tag,
    Flag::Runner,
    Flag::Repeat,
    Flag::RepeatFailure,
    Flag::RetryFailed,
    Flag::Schedule,
    Flag::MaxParallel,
    Flag::OutputDir,
    Flag::Config,
    Flag::Reporter,
    Flag::Mock,
    Flag::MockScript,
];

/// libtest-mimic 0.8.2's long flags without a value.
const LIBTEST_SWITCHES: [&str; 10] = [
    "include-ignored",
    "ignored",
    "test",
    "bench",
    "list",
    "nocapture",
    "show-output",
    "exact",
    "quiet",
    "help",
];

/// libtest-mimic 0.8.2's long flags taking a value.
const LIBTEST_OPTIONS: [&str; 5] = ["test-threads", "logfile", "skip", "color", "format"];

/// libtest-mimic 0.8.2's short flags taking a value (`-q` and `-h` take none).
const LIBTEST_SHORT_OPTIONS: [char; 1] = ['Z'];

impl Flag {
    /// The long name, without dashes.
    fn name(self) -> &'static str {
        match self {
            Flag::Tag => "tag",
            Flag::Runner => "runner",
            Flag::Repeat => "repeat",
            Flag::RepeatFailure => "repeat-failure",
            Flag::RetryFailed => "retry-failed",
            Flag::Schedule => "schedule",
            Flag::MaxParallel => "max-parallel",
            Flag::OutputDir => "output-dir",
            Flag::Config => "config",
            Flag::Reporter => "reporter",
            Flag::Mock => "mock",
            Flag::MockScript => "mock-script",
        }
    }

    fn env(self) -> &'static str {
        match self {
            Flag::Tag => "SKILLGYM_TAG",
            Flag::Runner => "SKILLGYM_RUNNER",
            Flag::Repeat => "SKILLGYM_REPEAT",
            Flag::RepeatFailure => "SKILLGYM_REPEAT_FAILURE",
            Flag::RetryFailed => "SKILLGYM_RETRY_FAILED",
            Flag::Schedule => "SKILLGYM_SCHEDULE",
            Flag::MaxParallel => "SKILLGYM_MAX_PARALLEL",
            Flag::OutputDir => "SKILLGYM_OUTPUT_DIR",
            Flag::Config => "SKILLGYM_CONFIG",
            Flag::Reporter => "SKILLGYM_REPORTER",
            Flag::Mock => "SKILLGYM_MOCK",
            Flag::MockScript => "SKILLGYM_MOCK_SCRIPT",
        }
    }

    fn value_name(self) -> &'static str {
        match self {
            Flag::Tag => "<TAG>[,<TAG>...]",
            Flag::Runner => "<ID>[,<ID>...]",
            Flag::Repeat | Flag::RepeatFailure | Flag::RetryFailed | Flag::MaxParallel => "<N>",
            Flag::Schedule => "<serial|parallel|isolated-by-runner>",
            Flag::OutputDir => "<DIR>",
            Flag::Config | Flag::MockScript => "<FILE>",
            Flag::Reporter => "<NAME|PATH>",
            Flag::Mock => "",
        }
    }

    /// Whether the flag is a switch: no value on the command line, a boolean in its variable.
    fn is_switch(self) -> bool {
        self == Flag::Mock
    }

    fn from_name(name: &str) -> Option<Flag> {
        FLAGS.into_iter().find(|flag| flag.name() == name)
    }

    /// Stores `value` into `args`; `subject` names the flag or variable in errors.
    fn apply(self, args: &mut SkillgymArgs, value: &str, subject: &str) -> Result<(), UsageError> {
        match self {
            Flag::Tag => push_list(&mut args.tags, value, subject)?,
            Flag::Runner => push_list(&mut args.runners, value, subject)?,
            Flag::Repeat => args.repeat = Some(parse_int(value, 1, subject)?),
            Flag::RepeatFailure => args.repeat_failure = Some(parse_int(value, 0, subject)?),
            Flag::RetryFailed => args.retry_failed = Some(parse_int(value, 0, subject)?),
            Flag::MaxParallel => args.max_parallel = Some(parse_int(value, 1, subject)?),
            Flag::Schedule => args.schedule = Some(parse_schedule(value, subject)?),
            Flag::OutputDir => args.output_dir = Some(non_empty(value, subject)?.into()),
            Flag::Config => args.config = Some(non_empty(value, subject)?.into()),
            Flag::Reporter => args.reporter = Some(non_empty(value, subject)?.to_owned()),
            Flag::Mock => args.mock = Some(parse_bool(value, subject)?),
            Flag::MockScript => args.mock_script = Some(non_empty(value, subject)?.into()),
        }
        Ok(())
    }
}

fn push_list(list: &mut Vec<String>, value: &str, subject: &str) -> Result<(), UsageError> {
    let pieces: Vec<&str> = value.split(',').map(str::trim).collect();
    if pieces.iter().any(|piece| piece.is_empty()) {
        return Err(UsageError::new(
            subject,
            format!("`{subject}` expects non-empty comma-separated values, found `{value}`"),
        ));
    }
    for piece in pieces {
        if !list.iter().any(|seen| seen == piece) {
            list.push(piece.to_owned());
        }
    }
    Ok(())
}

fn parse_int<T: TryFrom<u64>>(value: &str, min: u64, subject: &str) -> Result<T, UsageError> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n >= min)
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            UsageError::new(
                subject,
                format!("`{subject}` expects an integer >= {min}, found `{value}`"),
            )
        })
}

fn parse_schedule(value: &str, subject: &str) -> Result<Schedule, UsageError> {
    value.parse::<Schedule>().map_err(|_| {
        UsageError::new(
            subject,
            format!(
                "`{subject}` expects one of serial, parallel, isolated-by-runner, found `{value}`"
            ),
        )
        .with_suggestion(did_you_mean(value, Schedule::ALL.map(Schedule::as_str)))
    })
}

fn parse_bool(value: &str, subject: &str) -> Result<bool, UsageError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(UsageError::new(
            subject,
            format!("`{subject}` expects 1 or 0 (true or false), found `{value}`"),
        )),
    }
}

fn non_empty<'a>(value: &'a str, subject: &str) -> Result<&'a str, UsageError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(UsageError::new(
            subject,
            format!("`{subject}` expects a non-empty value"),
        ));
    }
    Ok(trimmed)
}

/// Splits argv into skillgym's flags and the arguments for libtest-mimic (`argv[0]` first).
///
/// skillgym's flags take a value, as `--flag value` or `--flag=value`; `--tag` and `--runner`
/// may repeat and take comma-separated lists. Everything else is passed through unchanged,
/// including the values of libtest's own flags (`--skip x`, `--test-threads 2`, `-Z x`) and
/// everything after a literal `--` (which is passed through too). A `--flag` that is neither
/// skillgym's nor libtest-mimic's is an error, with a suggestion from both sets.
pub fn split_args(argv: Vec<OsString>) -> Result<(SkillgymArgs, Vec<OsString>), UsageError> {
    let mut args = SkillgymArgs::default();
    let mut rest = Vec::with_capacity(argv.len());
    let mut iter = argv.into_iter().peekable();
    rest.extend(iter.next());
    while let Some(arg) = iter.next() {
        let Some(text) = arg.to_str() else {
            rest.push(arg);
            continue;
        };
        if text == "--" {
            rest.push(arg);
            rest.extend(iter.by_ref());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline_value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if let Some(flag) = Flag::from_name(name).filter(|flag| flag.is_switch()) {
                if inline_value.is_some() {
                    return Err(UsageError::new(
                        format!("--{name}"),
                        format!("`--{name}` takes no value"),
                    ));
                }
                flag.apply(&mut args, "1", &format!("--{name}"))?;
                continue;
            }
            if let Some(flag) = Flag::from_name(name) {
                let subject = format!("--{name}");
                let value = match inline_value {
                    Some(value) if !value.is_empty() => value.to_owned(),
                    Some(_) => return Err(missing_value(flag)),
                    None => take_value(&mut iter, flag)?,
                };
                flag.apply(&mut args, &value, &subject)?;
                continue;
            }
            if LIBTEST_SWITCHES.contains(&name) {
                rest.push(arg);
                continue;
            }
            if LIBTEST_OPTIONS.contains(&name) {
                let takes_next = inline_value.is_none();
                rest.push(arg);
                if takes_next {
                    rest.extend(iter.next());
                }
                continue;
            }
            return Err(unknown_flag(text, name));
        }
        if let Some(shorts) = text.strip_prefix('-')
            && !shorts.is_empty()
        {
            // `-Z x` takes the next argument as its value, `-Zx` does not.
            let takes_next = shorts
                .char_indices()
                .find(|(_, c)| LIBTEST_SHORT_OPTIONS.contains(c))
                .is_some_and(|(i, c)| i + c.len_utf8() == shorts.len());
            rest.push(arg);
            if takes_next {
                rest.extend(iter.next());
            }
            continue;
        }
        rest.push(arg);
    }
    Ok((args, rest))
}

/// The next argument as the value of `flag`; an argument starting with `--` is not a value.
fn take_value(
    iter: &mut Peekable<vec::IntoIter<OsString>>,
    flag: Flag,
) -> Result<String, UsageError> {
    let Some(next) = iter.peek() else {
        return Err(missing_value(flag));
    };
    match next.to_str() {
        None => Err(UsageError::new(
            format!("--{}", flag.name()),
            format!("`--{}` needs a value that is valid UTF-8", flag.name()),
        )),
        Some(text) if text.starts_with("--") => Err(missing_value(flag)),
        Some(text) => {
            let value = text.to_owned();
            iter.next();
            Ok(value)
        }
    }
}

fn missing_value(flag: Flag) -> UsageError {
    let name = flag.name();
    UsageError::new(
        format!("--{name}"),
        format!("`--{name}` needs a value: `--{name} {}`", flag.value_name()),
    )
}

fn unknown_flag(text: &str, name: &str) -> UsageError {
    let candidates = FLAGS
        .iter()
        .map(|flag| flag.name())
        .chain(LIBTEST_SWITCHES)
        .chain(LIBTEST_OPTIONS);
    UsageError::new(text, format!("unknown flag `{text}`"))
        .with_suggestion(did_you_mean(name, candidates).map(|s| format!("--{s}")))
}

/// Reads the `SKILLGYM_*` variables through `lookup` (e.g. `|k| std::env::var(k).ok()`); an
/// empty value counts as unset. Values follow the same rules as the flags.
pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<SkillgymArgs, UsageError> {
    let mut args = SkillgymArgs::default();
    for flag in FLAGS {
        let name = flag.env();
        if let Some(value) = lookup(name).filter(|v| !v.trim().is_empty()) {
            flag.apply(&mut args, &value, name)?;
        }
    }
    Ok(args)
}

/// The help for skillgym's flags and variables, printed after libtest's `--help`.
pub fn help_text() -> &'static str {
    "\
skillgym options (after `--`, e.g. `cargo test --test benchmarks -- --tag smoke`):
    --tag <TAG>[,<TAG>...]    Run only cases with one of these tags; repeatable.
                              Default: run.tags in skillgym.yaml.           [SKILLGYM_TAG]
    --runner <ID>[,<ID>...]   Run only these runners; repeatable.           [SKILLGYM_RUNNER]
    --repeat <N>              Passing samples wanted per case x runner
                              (>= 1, default 1).                            [SKILLGYM_REPEAT]
    --repeat-failure <N>      Extra attempts per sample after a failure
                              (>= 0, default 0).                   [SKILLGYM_REPEAT_FAILURE]
    --retry-failed <N>        Legacy alias of --repeat-failure.      [SKILLGYM_RETRY_FAILED]
    --schedule <MODE>         serial | parallel | isolated-by-runner
                              (default parallel).                         [SKILLGYM_SCHEDULE]
    --max-parallel <N>        Executions at once (>= 1, default: CPUs;
                              1 when serial).                         [SKILLGYM_MAX_PARALLEL]
    --output-dir <DIR>        Where run artifacts are written
                              (default target/skillgym/runs).           [SKILLGYM_OUTPUT_DIR]
    --config <FILE>           Use this skillgym.yaml instead of searching
                              upward from the test crate.                   [SKILLGYM_CONFIG]
    --reporter <NAME|PATH>    Reporter (default standard).                [SKILLGYM_REPORTER]
    --mock                    Dry run: every agent talks to skillgym's scripted
                              model server on 127.0.0.1 (SKILLGYM_MOCK=1).    [SKILLGYM_MOCK]
    --mock-script <FILE>      The mock script of cases without their own
                              (implies --mock).                        [SKILLGYM_MOCK_SCRIPT]

Each flag but --mock accepts `--flag value` and `--flag=value`. Flags override SKILLGYM_* variables,
which override skillgym.yaml, which overrides the defaults. Arguments after a bare `--`
are passed to the test harness untouched.
"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<OsString> {
        std::iter::once("bench")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect()
    }

    fn split(args: &[&str]) -> Result<(SkillgymArgs, Vec<String>), UsageError> {
        split_args(argv(args)).map(|(ours, rest)| {
            (
                ours,
                rest.into_iter().map(|a| a.into_string().unwrap()).collect(),
            )
        })
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn splits_a_mixed_argv() {
        let (ours, rest) = split(&[
            "--exact",
            "foo",
            "--tag",
            "a,b",
            "--tag",
            "c",
            "--skip",
            "x",
            "--runner=claude",
            "--test-threads",
            "2",
            "filter",
        ])
        .unwrap();
        assert_eq!(ours.tags, strings(&["a", "b", "c"]));
        assert_eq!(ours.runners, strings(&["claude"]));
        assert_eq!(
            rest,
            strings(&[
                "bench",
                "--exact",
                "foo",
                "--skip",
                "x",
                "--test-threads",
                "2",
                "filter"
            ])
        );
    }

    #[test]
    fn parses_every_flag_in_both_forms() {
        let (ours, rest) = split(&[
            "--tag",
            " a , b ",
            "--runner",
            "claude,codex",
            "--repeat",
            "3",
            "--repeat-failure=1",
            "--retry-failed",
            "2",
            "--schedule",
            "isolated-by-runner",
            "--max-parallel=4",
            "--output-dir",
            "out/runs",
            "--config=cfg/skillgym.yaml",
            "--reporter",
            "json",
            "--mock",
            "--mock-script=scripts/a.yaml",
        ])
        .unwrap();
        assert_eq!(
            ours,
            SkillgymArgs {
                tags: strings(&["a", "b"]),
                runners: strings(&["claude", "codex"]),
                repeat: Some(3),
                repeat_failure: Some(1),
                retry_failed: Some(2),
                schedule: Some(Schedule::IsolatedByRunner),
                max_parallel: Some(4),
                output_dir: Some(PathBuf::from("out/runs")),
                config: Some(PathBuf::from("cfg/skillgym.yaml")),
                reporter: Some("json".to_owned()),
                mock: Some(true),
                mock_script: Some(PathBuf::from("scripts/a.yaml")),
            }
        );
        assert_eq!(rest, strings(&["bench"]));
    }

    #[test]
    fn mock_is_a_switch_and_its_variable_a_boolean() {
        let (ours, rest) = split(&["--mock", "filter"]).unwrap();
        assert_eq!(ours.mock, Some(true));
        assert_eq!(rest, strings(&["bench", "filter"]));
        let err = split(&["--mock=yes"]).unwrap_err();
        assert_eq!(err.to_string(), "`--mock` takes no value");
        assert_eq!(err.subject(), "--mock");
        assert_eq!(
            from_env(env(&[("SKILLGYM_MOCK", "0")])).unwrap().mock,
            Some(false)
        );
        assert_eq!(
            from_env(env(&[("SKILLGYM_MOCK", "true")])).unwrap().mock,
            Some(true)
        );
        let err = from_env(env(&[("SKILLGYM_MOCK", "sure")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`SKILLGYM_MOCK` expects 1 or 0 (true or false), found `sure`"
        );
        let err = split(&["--mok"]).unwrap_err();
        assert_eq!(err.suggestion(), Some("--mock"));
    }

    #[test]
    fn lists_are_deduplicated_in_first_seen_order() {
        let (ours, _) = split(&["--tag", "b,a", "--tag=a,c,b", "--runner", "x,x"]).unwrap();
        assert_eq!(ours.tags, strings(&["b", "a", "c"]));
        assert_eq!(ours.runners, strings(&["x"]));
    }

    #[test]
    fn empty_list_piece_is_an_error() {
        let err = split(&["--tag", "a,,b"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`--tag` expects non-empty comma-separated values, found `a,,b`"
        );
        assert_eq!(err.subject(), "--tag");
        assert!(split(&["--runner", "a, "]).is_err());
    }

    #[test]
    fn missing_value_is_an_error() {
        let err = split(&["--repeat"]).unwrap_err();
        assert_eq!(err.to_string(), "`--repeat` needs a value: `--repeat <N>`");
        let err = split(&["--tag", "--exact"]).unwrap_err();
        assert_eq!(err.subject(), "--tag");
        assert!(split(&["--tag="]).is_err());
        assert!(split(&["--config", ""]).is_err());
    }

    #[test]
    fn bad_values_are_errors() {
        let err = split(&["--repeat", "abc"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`--repeat` expects an integer >= 1, found `abc`"
        );
        let err = split(&["--repeat=0"]).unwrap_err();
        assert_eq!(
            err.message(),
            "`--repeat` expects an integer >= 1, found `0`"
        );
        assert!(split(&["--repeat-failure", "-1"]).is_err());
        assert!(split(&["--max-parallel", "0"]).is_err());
        assert!(split(&["--max-parallel", "1.5"]).is_err());
        assert_eq!(
            split(&["--repeat-failure", "0"]).unwrap().0.repeat_failure,
            Some(0)
        );
        let err = split(&["--schedule", "paralel"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`--schedule` expects one of serial, parallel, isolated-by-runner, \
             found `paralel`; did you mean `parallel`?"
        );
        let err = split(&["--reporter", " "]).unwrap_err();
        assert_eq!(err.message(), "`--reporter` expects a non-empty value");
    }

    #[test]
    fn unknown_flag_gets_a_suggestion_from_both_sets() {
        let err = split(&["--tgs", "smoke"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown flag `--tgs`; did you mean `--tag`?"
        );
        assert_eq!(err.suggestion(), Some("--tag"));
        let err = split(&["--exactt", "foo"]).unwrap_err();
        assert_eq!(err.suggestion(), Some("--exact"));
        let err = split(&["--test-thread=2"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown flag `--test-thread=2`; did you mean `--test-threads`?"
        );
        let err = split(&["--frobnicate"]).unwrap_err();
        assert_eq!(err.to_string(), "unknown flag `--frobnicate`");
    }

    #[test]
    fn libtest_flags_and_values_pass_through() {
        let args = [
            "--include-ignored",
            "--ignored",
            "--test",
            "--bench",
            "--list",
            "--nocapture",
            "--show-output",
            "--exact",
            "--quiet",
            "--help",
            "--test-threads",
            "2",
            "--test-threads=3",
            "--logfile",
            "--tag",
            "--skip",
            "--runner",
            "--color",
            "auto",
            "--format=json",
            "--format",
            "terse",
            "-q",
            "-h",
            "-Z",
            "unstable-options",
            "-Zunstable-options",
            "-qZ",
            "x",
            "-",
            "name",
        ];
        let (ours, rest) = split(&args).unwrap();
        assert_eq!(
            ours,
            SkillgymArgs::default(),
            "values of libtest flags are not ours"
        );
        assert_eq!(rest[1..], strings(&args)[..]);
    }

    #[test]
    fn double_dash_ends_flag_processing() {
        let (ours, rest) = split(&["--tag", "a", "--", "--tag", "b", "--whatever"]).unwrap();
        assert_eq!(ours.tags, strings(&["a"]));
        assert_eq!(rest, strings(&["bench", "--", "--tag", "b", "--whatever"]));
    }

    #[test]
    fn keeps_argv0_and_handles_an_empty_argv() {
        assert_eq!(split(&[]).unwrap().1, strings(&["bench"]));
        assert_eq!(
            split_args(Vec::new()).unwrap(),
            (SkillgymArgs::default(), Vec::new())
        );
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_arguments_pass_through() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(vec![0x66, 0xff]);
        let (_, rest) = split_args(vec!["bench".into(), odd.clone()]).unwrap();
        assert_eq!(rest[1], odd);
        let err = split_args(vec!["bench".into(), "--config".into(), odd]).unwrap_err();
        assert_eq!(err.subject(), "--config");
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |key| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    #[test]
    fn reads_every_env_var() {
        let args = from_env(env(&[
            ("SKILLGYM_TAG", "a,b"),
            ("SKILLGYM_RUNNER", "claude"),
            ("SKILLGYM_REPEAT", "2"),
            ("SKILLGYM_REPEAT_FAILURE", "1"),
            ("SKILLGYM_RETRY_FAILED", "3"),
            ("SKILLGYM_SCHEDULE", "serial"),
            ("SKILLGYM_MAX_PARALLEL", "8"),
            ("SKILLGYM_OUTPUT_DIR", "out"),
            ("SKILLGYM_CONFIG", "sg.yaml"),
            ("SKILLGYM_REPORTER", "junit"),
            ("SKILLGYM_MOCK", "1"),
            ("SKILLGYM_MOCK_SCRIPT", "s.yaml"),
        ]))
        .unwrap();
        assert_eq!(
            args,
            SkillgymArgs {
                tags: strings(&["a", "b"]),
                runners: strings(&["claude"]),
                repeat: Some(2),
                repeat_failure: Some(1),
                retry_failed: Some(3),
                schedule: Some(Schedule::Serial),
                max_parallel: Some(8),
                output_dir: Some(PathBuf::from("out")),
                config: Some(PathBuf::from("sg.yaml")),
                reporter: Some("junit".to_owned()),
                mock: Some(true),
                mock_script: Some(PathBuf::from("s.yaml")),
            }
        );
    }

    #[test]
    fn empty_env_values_are_unset_and_bad_ones_name_the_variable() {
        let args = from_env(env(&[("SKILLGYM_TAG", ""), ("SKILLGYM_REPEAT", " ")])).unwrap();
        assert_eq!(args, SkillgymArgs::default());
        let err = from_env(env(&[("SKILLGYM_MAX_PARALLEL", "zero")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`SKILLGYM_MAX_PARALLEL` expects an integer >= 1, found `zero`"
        );
        assert_eq!(err.subject(), "SKILLGYM_MAX_PARALLEL");
        let err = from_env(env(&[("SKILLGYM_SCHEDULE", "serail")])).unwrap_err();
        assert_eq!(err.suggestion(), Some("serial"));
    }

    #[test]
    fn flags_override_env_field_by_field() {
        let env_args = from_env(env(&[
            ("SKILLGYM_TAG", "env-tag"),
            ("SKILLGYM_RUNNER", "env-runner"),
            ("SKILLGYM_REPEAT", "2"),
            ("SKILLGYM_SCHEDULE", "serial"),
            ("SKILLGYM_REPORTER", "json"),
        ]))
        .unwrap();
        let (flags, _) = split(&["--tag", "flag-tag", "--repeat", "5"]).unwrap();
        let merged = flags.or(env_args);
        assert_eq!(merged.tags, strings(&["flag-tag"]));
        assert_eq!(merged.runners, strings(&["env-runner"]));
        assert_eq!(merged.repeat, Some(5));
        assert_eq!(merged.schedule, Some(Schedule::Serial));
        assert_eq!(merged.reporter.as_deref(), Some("json"));
    }

    #[test]
    fn retry_failed_flag_beats_repeat_failure_env() {
        let env_args = from_env(env(&[("SKILLGYM_REPEAT_FAILURE", "4")])).unwrap();
        let (flags, _) = split(&["--retry-failed", "1"]).unwrap();
        let merged = flags.or(env_args.clone());
        assert_eq!(
            (merged.repeat_failure, merged.retry_failed),
            (None, Some(1))
        );
        let merged = SkillgymArgs::default().or(env_args);
        assert_eq!(
            (merged.repeat_failure, merged.retry_failed),
            (Some(4), None)
        );
    }

    #[test]
    fn help_mentions_every_flag_and_variable() {
        for flag in FLAGS {
            assert!(
                help_text().contains(&format!("--{} ", flag.name())),
                "{}",
                flag.name()
            );
            assert!(help_text().contains(flag.env()), "{}", flag.env());
        }
    }
}
