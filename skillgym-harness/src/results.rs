//! What a run writes, for reporters: the verdict of each attempt, repetition and execution
//! (`<run>/<case>/<runner>/result.json`) and the run's `results.json`.
//!
//! | type | file |
//! |---|---|
//! | [`ExecutionResult`] | `result.json` of one case on one runner, with its [`RepetitionResult`]s and [`AttemptResult`]s |
//! | [`RunResults`] | `results.json`: every execution and the [`Counts`] per [`Status`] |
//!
//! Artifact directories are named after case and runner ids through [`sanitize`].

pub use crate::artifacts::sanitize;
pub use crate::execute::{
    AttemptResult, AttemptStats, ExecutionResult, Interval, RepetitionResult, Status,
};
pub use crate::summary::{Counts, RunResults};
