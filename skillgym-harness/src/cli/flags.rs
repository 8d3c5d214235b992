//! The command line of a benchmark binary as clap sees it: libtest-mimic's [`Arguments`],
//! flattened, beside skillgym's [`Flags`], and the value parsers both flags and `SKILLGYM_*`
//! variables go through.

use std::path::PathBuf;

use clap::builder::styling::Styles;
use clap::{Args, Parser};
use libtest_mimic::Arguments;

use crate::config::Schedule;

/// Everything a benchmark binary accepts: libtest's flags and skillgym's.
#[derive(Debug, Parser)]
#[command(
    name = "benchmarks",
    disable_version_flag = true,
    styles = Styles::plain(),
    after_help = AFTER_HELP,
)]
pub(super) struct CommandLine {
    #[command(flatten)]
    pub(super) libtest: Arguments,
    #[command(flatten)]
    pub(super) skillgym: Flags,
    #[command(flatten)]
    pub(super) explain: ExplainFlags,
    /// More filters after the first, as libtest takes them: a test runs when its name matches
    /// any FILTER (`cargo test --test benchmarks -- expo '[codex]'`)
    #[arg(value_name = "FILTER")]
    pub(super) more_filters: Vec<String>,
}

/// Explain mode's flags: command line only (no `SKILLGYM_*` variable sets them).
#[derive(Debug, Default, Args)]
#[command(next_help_heading = HEADING)]
pub(super) struct ExplainFlags {
    /// Ask the agent of each failed attempt in DIR (an attempt, execution or run directory) the questions of its failed assertions, instead of running cases; `cargo skillgym explain DIR` runs this
    #[arg(long, value_name = "DIR", value_parser = path)]
    pub(super) explain: Option<PathBuf>,
    /// With --explain: ask again even when explanations.json holds answers
    #[arg(long, requires = "explain")]
    pub(super) rerun: bool,
}

/// Only skillgym's flags: what the `SKILLGYM_*` variables are parsed as.
#[derive(Debug, Parser)]
#[command(name = "SKILLGYM", no_binary_name = true)]
pub(super) struct EnvLine {
    #[command(flatten)]
    pub(super) skillgym: Flags,
}

const AFTER_HELP: &str = "\
Each skillgym option may also be set by its variable, SKILLGYM_ and the option's name in upper \
case with `_` for `-` (SKILLGYM_TAG, SKILLGYM_REPEAT_FAILURE, ...); an empty variable counts as \
unset. Flags override variables, which override skillgym.yaml, which overrides the defaults.

Run it through cargo: `cargo test --test benchmarks -- --tag smoke --mock`.";

/// The help heading of skillgym's flags.
pub(super) const HEADING: &str = "skillgym options";

/// skillgym's own flags, as given (every field empty or `None` when absent).
#[derive(Debug, Default, Args)]
#[command(next_help_heading = HEADING)]
pub(super) struct Flags {
    /// Run only cases with one of these tags; repeatable; default: run.tags [env: SKILLGYM_TAG]
    #[arg(long = "tag", value_name = "TAG[,TAG...]", value_parser = list)]
    pub(super) tags: Vec<List>,
    /// Run only these runners; repeatable [env: SKILLGYM_RUNNER]
    #[arg(long = "runner", value_name = "ID[,ID...]", value_parser = list)]
    pub(super) runners: Vec<List>,
    /// Run only these variants (skillgym.yaml's `variants:`, a suite's targets); repeatable [env: SKILLGYM_VARIANT]
    #[arg(long = "variant", value_name = "NAME[,NAME...]", value_parser = list)]
    pub(super) variants: Vec<List>,
    /// Passing samples wanted per case x runner (>= 1, default 1) [env: SKILLGYM_REPEAT]
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(super) repeat: Option<u32>,
    /// Extra attempts per sample after a failure (>= 0, default 0) [env: SKILLGYM_REPEAT_FAILURE]
    #[arg(long, value_name = "N", value_parser = at_least_zero)]
    pub(super) repeat_failure: Option<u32>,
    /// Legacy alias of --repeat-failure [env: SKILLGYM_RETRY_FAILED]
    #[arg(long, value_name = "N", value_parser = at_least_zero)]
    pub(super) retry_failed: Option<u32>,
    /// Independent sessions per case x runner, none retried (>= 1; not with --repeat) [env: SKILLGYM_SAMPLES]
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(super) samples: Option<u32>,
    /// serial | parallel | isolated-by-runner (default parallel) [env: SKILLGYM_SCHEDULE]
    #[arg(long, value_name = "MODE", value_parser = schedule)]
    pub(super) schedule: Option<Schedule>,
    /// Executions at once (>= 1; default: the CPUs, 1 when serial) [env: SKILLGYM_MAX_PARALLEL]
    #[arg(long, value_name = "N", value_parser = at_least_one_usize)]
    pub(super) max_parallel: Option<usize>,
    /// Where run artifacts are written (default target/skillgym/runs) [env: SKILLGYM_OUTPUT_DIR]
    #[arg(long, value_name = "DIR", value_parser = path)]
    pub(super) output_dir: Option<PathBuf>,
    /// Where the run's workspaces go (default: the temporary directory) [env: SKILLGYM_WORKSPACE_ROOT]
    #[arg(long, value_name = "DIR", value_parser = path)]
    pub(super) workspace_root: Option<PathBuf>,
    /// Use this skillgym.yaml instead of searching upward from the test crate [env: SKILLGYM_CONFIG]
    #[arg(long, value_name = "FILE", value_parser = path)]
    pub(super) config: Option<PathBuf>,
    /// Reporters besides the console summary: json, json-summary, junit, github-actions, html; repeatable [env: SKILLGYM_REPORTER]
    #[arg(long = "reporter", value_name = "NAME[,NAME...]", value_parser = list)]
    pub(super) reporters: Vec<List>,
    /// Dry run: every agent talks to skillgym's scripted model server on 127.0.0.1 [env: SKILLGYM_MOCK]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = boolean,
    )]
    pub(super) mock: Option<bool>,
    /// Write the passing executions' figures into the snapshots baseline [env: SKILLGYM_UPDATE_SNAPSHOTS]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = boolean,
    )]
    pub(super) update_snapshots: Option<bool>,
    /// Stop the run when a runner's agent program is missing, instead of skipping that runner (the default with CI set) [env: SKILLGYM_REQUIRE_AGENTS]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_parser = boolean,
    )]
    pub(super) require_agents: Option<bool>,
    /// The mock script of cases without their own (implies --mock) [env: SKILLGYM_MOCK_SCRIPT]
    #[arg(long, value_name = "FILE", value_parser = path)]
    pub(super) mock_script: Option<PathBuf>,
    /// Replay a recorded run (a run directory, or one made by `cargo skillgym record`) through today's checks; no agent starts [env: SKILLGYM_REPLAY]
    #[arg(long, value_name = "DIR", value_parser = path)]
    pub(super) replay: Option<PathBuf>,
}

/// One occurrence of a comma-separated list flag, trimmed, in order.
#[derive(Debug, Clone)]
pub(super) struct List(pub(super) Vec<String>);

/// Why a value was refused: the rest of a sentence that starts with the flag or variable
/// ("`--repeat` expects an integer >= 1, found `0`"), and a close valid value, if any.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(super) struct Invalid {
    pub(super) message: String,
    pub(super) suggestion: Option<String>,
}

impl Invalid {
    fn new(message: String) -> Invalid {
        Invalid {
            message,
            suggestion: None,
        }
    }
}

fn list(value: &str) -> Result<List, Invalid> {
    let pieces: Vec<&str> = value.split(',').map(str::trim).collect();
    if pieces.iter().any(|piece| piece.is_empty()) {
        return Err(Invalid::new(format!(
            "expects non-empty comma-separated values, found `{value}`"
        )));
    }
    Ok(List(pieces.into_iter().map(str::to_owned).collect()))
}

/// An integer of type `T`, at least `min`.
fn integer<T: TryFrom<u64>>(value: &str, min: u64) -> Result<T, Invalid> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n >= min)
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| Invalid::new(format!("expects an integer >= {min}, found `{value}`")))
}

fn at_least_one(value: &str) -> Result<u32, Invalid> {
    integer(value, 1)
}

fn at_least_zero(value: &str) -> Result<u32, Invalid> {
    integer(value, 0)
}

fn at_least_one_usize(value: &str) -> Result<usize, Invalid> {
    integer(value, 1)
}

fn schedule(value: &str) -> Result<Schedule, Invalid> {
    value.trim().parse::<Schedule>().map_err(|_| Invalid {
        message: format!("expects one of serial, parallel, isolated-by-runner, found `{value}`"),
        suggestion: crate::suggest::did_you_mean(value, Schedule::ALL.map(Schedule::as_str))
            .map(str::to_owned),
    })
}

fn boolean(value: &str) -> Result<bool, Invalid> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(Invalid::new(format!(
            "expects 1 or 0 (true or false), found `{value}`"
        ))),
    }
}

fn non_empty(value: &str) -> Result<String, Invalid> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(Invalid::new("expects a non-empty value".to_owned()));
    }
    Ok(trimmed.to_owned())
}

fn path(value: &str) -> Result<PathBuf, Invalid> {
    non_empty(value).map(PathBuf::from)
}
