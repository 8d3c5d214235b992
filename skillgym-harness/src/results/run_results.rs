//! [`RunResults`]: the content of a run's `results.json`.

use std::path::PathBuf;

use serde::Serialize;

use super::{Counts, ExecutionResult, Experiment};

/// The content of `<run>/results.json`.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct RunResults<'a> {
    /// The run id.
    pub run_id: &'a str,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Start of the run, RFC 3339.
    pub started_at: String,
    /// End of the run, RFC 3339.
    pub ended_at: String,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The tag filter in force.
    pub selected_tags: &'a [String],
    /// Counts per status.
    pub summary: Counts,
    /// Every execution that ran, in plan order (case id, then runner order, then variant).
    pub executions: Vec<&'a ExecutionResult>,
    /// What the variants say against their baselines, when cases ran under variants.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment: Option<Experiment>,
    /// Each skill's trigger figures per runner, when trigger prompts ran.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub triggers: &'a [super::TriggerScore],
    /// Whether the run was a dry run (`--mock`): the agents talked to the scripted model, and
    /// the tokens and costs are the script's inventions.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}
