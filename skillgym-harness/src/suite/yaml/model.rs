//! The loader's output: a [`SuiteDef`] of [`CaseDef`]s, ready to become trials.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::ConfigError;
use crate::grade::spec::{GraderCommand, GraderSpec};

/// The default pass threshold of a case (agentv §6.2).
pub(crate) const DEFAULT_THRESHOLD: f64 = 0.8;

/// One `EVAL.yaml` with its cases.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SuiteDef {
    /// `name:`, else the file name without `.eval.yaml` / `.yaml`.
    pub(crate) name: String,
    /// The suite file (absolute).
    pub(crate) file: PathBuf,
    /// Its directory.
    pub(crate) dir: PathBuf,
    pub(crate) description: Option<String>,
    pub(crate) tags: Vec<String>,
    /// `metadata:` (with `governance:` under `governance`).
    pub(crate) metadata: serde_json::Value,
    /// `input:`: the messages put before every case's input (unless `skip_defaults`).
    pub(crate) input: Vec<Message>,
    pub(crate) input_files: Vec<PathBuf>,
    pub(crate) workspace: WorkspaceDef,
    /// `execution.targets` (v5: `providers`), mapped later onto skillgym runners.
    pub(crate) targets: Vec<TargetDef>,
    /// `execution.target` (or the legacy top-level `target`).
    pub(crate) target: Option<String>,
    /// `execution.threshold` (v5: top-level `threshold`).
    pub(crate) threshold: Option<f64>,
    /// `execution.workers`: at most this many of the suite's executions at once (within the
    /// run's own cap).
    pub(crate) workers: Option<usize>,
    /// `execution.trials.cost_limit_usd`: no more samples of an execution once its sessions
    /// cost this much.
    pub(crate) cost_limit_usd: Option<f64>,
    /// Suite `assertions:` (already appended to each case's unless it skips defaults).
    pub(crate) assertions: Vec<GraderSpec>,
    pub(crate) cases: Vec<CaseDef>,
}

/// One case (inline, from a cases file, or a discovered `case.yaml`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaseDef {
    pub(crate) id: String,
    /// The file the case is written in (`case.yaml`, the suite file, a cases file).
    pub(crate) file: PathBuf,
    /// The line the case starts at in `file` (0 when unknown).
    pub(crate) line: u32,
    /// The case directory (discovered cases), else the directory of the file it is in.
    pub(crate) dir: PathBuf,
    /// The effective input: the suite's messages (unless `skip_defaults`), then the case's.
    pub(crate) input: Vec<Message>,
    /// Resolved `input_files` (the case's, else the suite's unless `skip_defaults`).
    pub(crate) input_files: Vec<PathBuf>,
    pub(crate) criteria: Option<String>,
    pub(crate) expected_output: Vec<Message>,
    /// The case's graders, then the suite's unless `execution.skip_defaults`.
    pub(crate) assertions: Vec<GraderSpec>,
    /// Suite metadata merged in (arrays concatenated suite-first without duplicates, mappings
    /// merged recursively, the case's scalars win).
    pub(crate) metadata: serde_json::Value,
    /// The suite's tags, then the case's own `tags:`.
    pub(crate) tags: Vec<String>,
    /// `<case>/workspace/` if present, else the case's `workspace:`, else the suite's (merged
    /// field by field; hooks by name).
    pub(crate) workspace: WorkspaceDef,
    /// `execution.threshold`, else the suite's, else 0.8.
    pub(crate) threshold: f64,
    /// `execution.targets`: a subset of the suite's (empty: all).
    pub(crate) targets: Vec<String>,
    pub(crate) skip_defaults: bool,
    pub(crate) repeat: Option<u64>,
    /// `repeat_failure` (alias `retry_failed`).
    pub(crate) repeat_failure: Option<u64>,
    /// `samples`: independent sessions, none retried (never with `repeat`).
    pub(crate) samples: Option<u64>,
    /// `min_pass_rate`: the gate on the case's pass rate.
    pub(crate) min_pass_rate: Option<f64>,
    /// `min_lift`: the gate on each variant's lift over its baseline (the suite's unless the
    /// case has its own).
    pub(crate) min_lift: Option<f64>,
    /// `stop_when_decided`: stop sampling once the gate, or each variant's lift, is settled.
    pub(crate) stop_when_decided: bool,
    pub(crate) expected_fail: bool,
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_steps: Option<u64>,
    pub(crate) runners: Vec<String>,
    /// Skill directories under test (resolved, existing).
    pub(crate) skills: Vec<PathBuf>,
    /// `variants`: the run's variants the case runs under (empty: every one).
    pub(crate) variants: Vec<String>,
    /// The scripted model's script for `--mock` runs (resolved, existing).
    pub(crate) mock: Option<PathBuf>,
    /// `mode: conversation`: the turns (the case's own graders grade the whole conversation).
    pub(crate) conversation: Option<super::turns::Conversation>,
    /// Only the plan's fields are here (from the suite index): its case file is read when its
    /// trial runs ([`crate::suite::sources::hydrate`]).
    pub(crate) stub: bool,
}

/// One message of an input or expected output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) role: Role,
    pub(crate) content: Content,
}

/// A message's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A message's content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Content {
    Text(String),
    /// Blocks (`[{type: text|file|image, value}]`), an object, or an assistant's `tool_calls`.
    Json(serde_json::Value),
}

/// A workspace: a template copied into each attempt's own directory, and hooks.
/// (`isolation` is always per attempt: `per_test` is accepted, `shared` is an error.)
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WorkspaceDef {
    pub(crate) template: Option<PathBuf>,
    pub(crate) hooks: Hooks,
    /// `repos`: checked out into every attempt's workspace (a case's list replaces the suite's).
    pub(crate) repos: Vec<RepoSpec>,
}

/// One entry of `workspace.repos`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepoSpec {
    /// Where in the workspace it goes (relative, inside it).
    pub(crate) path: String,
    /// `repo:` as written: a clone URL, a local path, or GitHub's `org/name`.
    pub(crate) repo: String,
    /// `commit` / `base_commit`; `None`: the default branch.
    pub(crate) commit: Option<String>,
    /// `ancestor`: this many commits before `commit`.
    pub(crate) ancestor: u32,
    /// `sparse`: only these paths are checked out.
    pub(crate) sparse: Vec<String>,
}

/// Lifecycle hooks (`workspace.hooks`, a target's `hooks`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hooks {
    /// `enabled:` (default true).
    pub(crate) enabled: bool,
    /// Once per run, before the suite's first attempt (suite and target level only).
    pub(crate) before_all: Option<HookDef>,
    pub(crate) before_each: Option<HookDef>,
    pub(crate) after_each: Option<HookDef>,
    /// Once per run, after the suite's last execution (suite and target level only).
    pub(crate) after_all: Option<HookDef>,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            enabled: true,
            before_all: None,
            before_each: None,
            after_each: None,
            after_all: None,
        }
    }
}

/// One hook. A workspace hook's string command is split on whitespace (no shell); a target
/// hook's runs with `sh -c` (agentv §5.3, §5.4).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HookDef {
    pub(crate) command: GraderCommand,
    /// `timeout_ms`.
    pub(crate) timeout: Option<Duration>,
    /// Resolved; `None`: the suite directory.
    pub(crate) cwd: Option<PathBuf>,
}

/// One `execution.targets` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TargetDef {
    pub(crate) name: String,
    pub(crate) use_target: Option<String>,
    pub(crate) hooks: Hooks,
}

/// Something skipped while loading (printed once per run by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    pub(crate) path: PathBuf,
    pub(crate) message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// A loaded suite and what was skipped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Loaded {
    pub(crate) suite: SuiteDef,
    pub(crate) warnings: Vec<Warning>,
    /// What the loading read: the suite index's stamps ([`crate::suite::index`]).
    pub(crate) reads: Reads,
}

/// The files and directories a suite's loading read, and which of its cases came from a
/// discovered case directory.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Reads {
    /// Every YAML file read (the suite file, case files, cases files, workspace files).
    pub(crate) files: Vec<PathBuf>,
    /// Every directory whose entries decided the cases: each `tests:` directory listed, and
    /// each directory in it that held no `case.yaml`.
    pub(crate) dirs: Vec<PathBuf>,
    /// The ids of the cases read from a discovered case directory, in order.
    pub(crate) discovered: Vec<String>,
}

/// Every error of every file of the declarative suites; `Display` lists them all,
/// blank-line separated, then their count and how many suites they are in.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", listed(errors, *suites))]
pub struct SuiteErrors {
    pub(crate) errors: Vec<ConfigError>,
    /// How many suites (or missing suite paths) the errors are in.
    pub(crate) suites: usize,
}

impl SuiteErrors {
    /// The errors of one suite.
    pub(crate) fn of_one(errors: Vec<ConfigError>) -> SuiteErrors {
        SuiteErrors { errors, suites: 1 }
    }

    /// The errors, each with its file, line and column.
    pub fn errors(&self) -> &[ConfigError] {
        &self.errors
    }
}

/// The errors, blank-line separated, then `N error(s) in the suite` (or `in M suites`).
fn listed(errors: &[ConfigError], suites: usize) -> String {
    let listed: Vec<String> = errors.iter().map(ConfigError::to_string).collect();
    let n = errors.len();
    let plural = if n == 1 { "" } else { "s" };
    let place = if suites > 1 {
        format!("{suites} suites")
    } else {
        "the suite".to_owned()
    };
    format!("{}\n\n{n} error{plural} in {place}", listed.join("\n\n"))
}
