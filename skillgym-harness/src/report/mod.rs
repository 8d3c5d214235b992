//! What a run is reported as, after it: one [`RunReport`] — built from the executions of an
//! in-process run, or loaded from the `result.json` files of one or many run directories
//! (nextest's processes, shards of a partitioned run) — handed to each [`Reporter`].
//!
//! | module | reporter | writes |
//! |---|---|---|
//! | `console` | (always, in-process and `cargo skillgym report`) | the per-runner table (each runner's agent, its version and model, then its figures) and the failures by class, on stdout |
//! | `json` | `json`, `json-summary` | `report.json`-free run results: everything (`results.json`), or without per-attempt detail but with each repetition |
//! | `junit` | `junit` | `junit.xml`: a test suite per runner (its agent, version and model as properties), a test case per execution, failures with their type, message, repetition counts and artifact directory |
//! | `github_actions` | `github-actions` | an `::error` (a skipped execution: `::warning`) workflow command per execution that did not pass, on stdout and in `github-actions.txt`; the Markdown job summary appended to `$GITHUB_STEP_SUMMARY` when set |
//! | `html` | `html` | one self-contained page, `report.html`: the counts, the per-runner table, the case × runner matrix, the experiment (per runner, each case's pass rate per variant as a dot with its interval, tokens and cost bars, each lift) when cases ran under variants, and per execution its failure, attempts, graders and each attempt's session (timeline, commands, file reads, skills, usage) read from its `report.json` |
//!
//! Beside them, `compare` and `compare_table` make what `cargo skillgym compare RUN_A RUN_B`
//! prints ([`Comparison`], [`comparison_text`]): pass rates, lifts and costs of two runs side by
//! side with the change's interval; `html_experiment` is the HTML page's experiment section.
//!
//! `hint` makes the `cargo skillgym explain <dir>` line a failed execution's output
//! carries (console and the test's own failure message).
//!
//! Custom reporters implement [`Reporter`] and are added with
//! [`Harness::reporter`](crate::Harness::reporter).

mod compare;
mod compare_table;
pub(crate) mod console;
#[cfg(test)]
mod fixtures;
pub(crate) mod github_actions;
mod hint;
pub(crate) mod html;
mod html_experiment;
mod html_list;
mod html_triggers;
pub(crate) mod json;
pub(crate) mod junit;
mod lift_table;
mod load;
mod sha256;
mod stream;
mod trigger_table;

use std::io;
use std::path::{Path, PathBuf};

use crate::figures;
use crate::results::{Counts, ExecutionResult, Experiment, TriggerScore};

pub use compare::{
    Comparison, Direction, ExecutionChange, ExecutionKey, LiftChange, LiftFigure, RateChange,
    Sessions,
};
pub use compare_table::comparison_text;
pub(crate) use hint::hint;
pub use load::{LoadError, LoadOptions};

/// Everything a reporter sees of a run (or of several merged).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunReport {
    /// The run ids, one per run directory merged.
    pub run_ids: Vec<String>,
    /// The run directories.
    pub run_dirs: Vec<PathBuf>,
    /// Start of the (earliest) run, RFC 3339, when known.
    pub started_at: Option<String>,
    /// End of the (latest) run, RFC 3339, when known.
    pub ended_at: Option<String>,
    /// Every execution, sorted by case id, then runner id, then variant (the baseline first).
    pub executions: Vec<ExecutionResult>,
    /// What merging run directories found worth a warning: a runner whose agent ran in
    /// different versions in different runs, whose figures may not be comparable.
    pub warnings: Vec<String>,
    /// What the variants say against their baselines ([`Experiment::of`] the executions,
    /// computed once by [`RunReport::new`]), when cases ran under variants.
    pub experiment: Option<Experiment>,
    /// Each skill's trigger figures per runner (and variant), when trigger prompts ran
    /// ([`trigger_scores`](crate::results::trigger_scores), computed once by [`RunReport::new`]).
    pub triggers: Vec<TriggerScore>,
    /// The ids of the runs that were dry runs (`--mock`): the scripted model answered, and the
    /// tokens and costs are invented.
    pub dry_runs: Vec<String>,
}

impl RunReport {
    /// A report of `executions` (sorted here) from the runs `run_ids` in `run_dirs`.
    pub fn new(
        run_ids: Vec<String>,
        run_dirs: Vec<PathBuf>,
        mut executions: Vec<ExecutionResult>,
    ) -> RunReport {
        // Unstable: no two executions share a key, and no scratch copy of them is made.
        executions.sort_unstable_by(|a, b| {
            a.case_id
                .cmp(&b.case_id)
                .then_with(|| a.runner_id.cmp(&b.runner_id))
                .then_with(|| b.baseline.cmp(&a.baseline))
                .then_with(|| a.variant.cmp(&b.variant))
        });
        RunReport {
            run_ids,
            run_dirs,
            started_at: None,
            ended_at: None,
            experiment: Experiment::of(&executions),
            triggers: crate::results::trigger_scores(&executions),
            dry_runs: Vec::new(),
            executions,
            warnings: Vec::new(),
        }
    }

    /// Marked as a dry run (`--mock`) when `dry` is true.
    #[must_use]
    pub fn with_dry_run(mut self, dry: bool) -> RunReport {
        self.dry_runs = if dry {
            self.run_ids.clone()
        } else {
            Vec::new()
        };
        self
    }

    /// With the run's start and end times.
    #[must_use]
    pub fn with_times(mut self, started_at: String, ended_at: String) -> RunReport {
        self.started_at = Some(started_at);
        self.ended_at = Some(ended_at);
        self
    }

    /// Loads and merges the executions (`result.json` files) of run directories; an execution
    /// (case, runner and variant) found in several directories is taken from the last one
    /// given. A runner whose agent ran in different versions in the runs merged gets a warning
    /// ([`warnings`](Self::warnings)).
    pub fn load(run_dirs: &[PathBuf]) -> Result<RunReport, LoadError> {
        load::load(run_dirs, LoadOptions::default())
    }

    /// [`RunReport::load`] with `options`: e.g. merging dry runs with live ones, which `load`
    /// refuses ([`LoadError::MixedDryRuns`]).
    pub fn load_with(run_dirs: &[PathBuf], options: LoadOptions) -> Result<RunReport, LoadError> {
        load::load(run_dirs, options)
    }

    /// Whether every run of the report was a dry run (`--mock`): its sessions talked to the
    /// scripted model, and their tokens and costs are the script's inventions.
    pub fn is_dry_run(&self) -> bool {
        !self.dry_runs.is_empty() && self.dry_runs.len() == self.run_ids.len()
    }

    /// Counts per status.
    pub fn counts(&self) -> Counts {
        Counts::of(&self.executions)
    }

    /// One row per runner (in order of first appearance): its executions by status, the
    /// tokens and cost of every attempt it ran, and its executions' mean duration.
    pub fn runner_rows(&self) -> Vec<RunnerRow> {
        self.runners()
            .into_iter()
            .map(|runner| {
                RunnerRow::of(
                    runner,
                    self.executions.iter().filter(|e| e.runner_id == runner),
                )
            })
            .collect()
    }

    /// The runner ids, in order of first appearance.
    pub fn runners(&self) -> Vec<&str> {
        let mut runners: Vec<&str> = Vec::new();
        for execution in &self.executions {
            if !runners.contains(&execution.runner_id.as_str()) {
                runners.push(&execution.runner_id);
            }
        }
        runners
    }
}

/// One runner's line of the summary.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RunnerRow {
    /// The runner id.
    pub runner: String,
    /// Its agent type (`claude-code`; empty when no result recorded it).
    pub agent: String,
    /// The versions of the agent its executions ran, in order of first appearance: one, or
    /// several when merged runs used different ones; none when unknown.
    pub versions: Vec<String>,
    /// The model, when its executions name one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Executions by status (`flaky` ones are also counted as passed).
    pub counts: Counts,
    /// Executions that passed only after a retry.
    pub flaky: usize,
    /// Tokens of every attempt, retries and failed ones included (`None`: no attempt reported
    /// the figure); each token sum saturates at `u64::MAX`.
    pub input_tokens: Option<u64>,
    /// Output tokens.
    pub output_tokens: Option<u64>,
    /// Reasoning tokens.
    pub reasoning_tokens: Option<u64>,
    /// Cache-read tokens.
    pub cache_tokens: Option<u64>,
    /// Total tokens.
    pub total_tokens: Option<u64>,
    /// Cost in US dollars of every attempt that reported one (a NaN or negative figure is left
    /// out); the sum saturates at $10^15.
    pub cost_usd: Option<f64>,
    /// Whether any attempt's cost in [`cost_usd`](Self::cost_usd) is an estimate from its
    /// token counts (then the sum is one too); serialized only when `true`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cost_estimated: bool,
    /// Mean duration of the executions that ran, in milliseconds (exact: no sum overflows).
    pub mean_duration_ms: Option<u64>,
}

impl RunnerRow {
    fn of<'a>(runner: &str, executions: impl Iterator<Item = &'a ExecutionResult>) -> RunnerRow {
        let executions: Vec<&ExecutionResult> = executions.collect();
        let mut row = RunnerRow {
            runner: runner.to_owned(),
            agent: executions
                .iter()
                .map(|e| e.agent.kind.as_str())
                .find(|kind| !kind.is_empty())
                .unwrap_or_default()
                .to_owned(),
            model: executions.iter().find_map(|e| e.agent.model.clone()),
            counts: Counts::of(executions.iter().copied()),
            flaky: executions.iter().filter(|e| e.flaky).count(),
            ..RunnerRow::default()
        };
        for version in executions.iter().filter_map(|e| e.agent.version.as_ref()) {
            if !row.versions.contains(version) {
                row.versions.push(version.clone());
            }
        }
        for attempt in executions
            .iter()
            .flat_map(|e| &e.repetitions)
            .flat_map(|r| &r.attempts)
        {
            let usage = &attempt.usage;
            let value = |count: Option<skillgym::TokenCount>| count.map(|t| t.value);
            figures::add(&mut row.input_tokens, value(usage.input_tokens));
            figures::add(&mut row.output_tokens, value(usage.output_tokens));
            figures::add(&mut row.reasoning_tokens, value(usage.reasoning_tokens));
            figures::add(&mut row.cache_tokens, value(usage.cache_tokens));
            figures::add(&mut row.total_tokens, value(usage.total_tokens));
            figures::add_cost(&mut row.cost_usd, usage.cost_usd);
            row.cost_estimated |= usage.cost_estimated && usage.cost_usd.is_some();
        }
        row.mean_duration_ms = figures::mean(
            executions
                .iter()
                .filter(|e| !e.repetitions.is_empty())
                .map(|e| e.duration_ms),
        );
        row
    }
}

/// The console summary of `report`: the per-runner table, the lift table when cases ran under
/// variants, the failures by class, and the counts (what an in-process run prints after
/// libtest's own lines), ready to print: the agents' text in it has its control characters
/// escaped, and no line of it starts with `::`.
pub fn summary_text(report: &RunReport) -> String {
    let counts = report.counts();
    let mut text = console::summary(report);
    text.push_str(&format!(
        "skillgym: {} executions: {} passed, {} failed, {} expected-failed, {} unexpected-passed, {} skipped\n",
        counts.executions,
        counts.passed,
        counts.failed,
        counts.expected_failed,
        counts.unexpected_passed,
        counts.skipped
    ));
    crate::terminal_text::escape(&text)
}

/// Writes a run's report in some format.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use skillgym_harness::report::{Reporter, RunReport};
///
/// /// One line per failed execution.
/// struct Failures;
///
/// impl Reporter for Failures {
///     fn name(&self) -> &str {
///         "failures"
///     }
///
///     fn write(&self, report: &RunReport, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
///         let lines: String = report
///             .executions
///             .iter()
///             .filter(|e| !e.passed)
///             .map(|e| format!("[{}] {}\n", e.runner_id, e.case_id))
///             .collect();
///         let path = dir.join("failures.txt");
///         std::fs::write(&path, lines)?;
///         Ok(vec![path])
///     }
/// }
/// ```
pub trait Reporter: Send + Sync {
    /// The reporter's name, as `--reporter` and `run.reporters` give it.
    fn name(&self) -> &str;

    /// Writes the report into `dir` (the run directory, or the directory `cargo skillgym
    /// report` writes to) and returns the files written. After a run, an error is printed and
    /// makes the run exit with 101; the other reporters still write.
    fn write(&self, report: &RunReport, dir: &Path) -> io::Result<Vec<PathBuf>>;
}

/// The built-in reporters' names (besides `standard`, the console summary alone).
pub const BUILT_IN: &[&str] = &["json", "json-summary", "junit", "github-actions", "html"];

/// The built-in reporter `name`.
pub fn built_in(name: &str) -> Option<Box<dyn Reporter>> {
    match name {
        "json" => Some(Box::new(json::Full)),
        "json-summary" => Some(Box::new(json::Summary)),
        "junit" => Some(Box::new(junit::Junit)),
        "github-actions" => Some(Box::new(github_actions::GithubActions)),
        "html" => Some(Box::new(html::Html)),
        _ => None,
    }
}
