//! What a run writes, for reporters: the verdict of each attempt, repetition and execution
//! (`<run>/<case>/<runner>/result.json`) and the run's `results.json`.
//!
//! This is the result data model and nothing else: plain serializable records that the engine
//! (`execute`, `snapshot`, `sandbox`) fills in and the reporters, `cargo skillgym report` and
//! replay read back, and the arithmetic that folds repetitions into an execution's figures and
//! verdict (gates included). It imports no other module of the crate but the leaves `figures`
//! (exact sums and means) and [`crate::stats`] (intervals, pass@k, the confidence sequence), and
//! `artifacts` for [`sanitize`] (a re-export) and JSON writing, so every module may depend on
//! it; `tests/house.rs` keeps it so.
//!
//! | file | types | in the JSON |
//! |---|---|---|
//! | `status` | [`Status`] | every `status` |
//! | `execution` | [`ExecutionResult`], [`AttemptStats`], [`Interval`] | `result.json` of one case on one runner |
//! | `repetition` | [`RepetitionResult`] | its `repetitions` |
//! | `attempt` | [`AttemptResult`] | each repetition's `attempts` |
//! | `grading` | [`Grading`], [`GraderResult`], [`GraderVerdict`], [`GraderCheck`] | an attempt's `grading` (and its `grading.json`) |
//! | `sandbox` | [`SandboxRecord`], [`Denial`], [`DenialKind`], [`SandboxMode`], [`SandboxNetwork`] | an attempt's `sandbox` |
//! | `snapshot` | [`SnapshotCheck`], [`SnapshotVerdict`], [`Allowed`], [`SnapshotMetric`] | an execution's `snapshot` |
//! | `samples` | [`SampleStats`], [`Spread`] | a sampled execution's `samples`: pass rate with interval, pass@k, pass^k, tokens, cost and time per session |
//! | `triggers` | [`TriggerExpectation`], [`TriggerObservation`], [`TriggerScore`], [`Misfire`], [`Estimate`] | a trigger case's `trigger` and its sessions'; `triggers` of `results.json`: recall, precision, F1 with intervals per skill × runner |
//! | `counts` | [`Counts`] | `summary` of `results.json` |
//! | `run_results` | [`RunResults`] | `results.json`: every execution and the counts |
//! | `explain` | `ExplainRequest`, `Explanations` | an attempt's `explain.json` (its questions) and `explanations.json` (the answers) |
//! | `aggregate` | [`wilson_95`]; folding repetitions into an [`ExecutionResult`] | its verdict, counts, averages, pass rate and interval |
//!
//! Artifact directories are named after case and runner ids through [`sanitize`].

mod aggregate;
mod attempt;
mod counts;
mod execution;
mod experiment;
pub(crate) mod explain;
mod grading;
mod lift_gate;
mod repetition;
mod run_results;
mod samples;
mod sandbox;
mod snapshot;
mod status;
mod trigger_gate;
mod triggers;

/// A closed interval `[low, high]` (the statistics' own, [`crate::stats::Interval`]).
pub use crate::stats::Interval;
pub use aggregate::wilson_95;
pub(crate) use aggregate::{ExecutionPlan, aggregate};
pub use attempt::AttemptResult;
pub use counts::Counts;
pub(crate) use execution::is_trial_name;
pub use execution::{AttemptStats, ExecutionKey, ExecutionResult, trial_name};
pub use experiment::{Experiment, LiftRow, PooledLift, VariantRate};
pub use grading::{GraderCheck, GraderResult, GraderVerdict, Grading, TurnGrading};
pub(crate) use lift_gate::apply as apply_lift_gates;
pub use repetition::RepetitionResult;
pub use run_results::RunResults;
pub use samples::{SampleStats, Spread};
pub(crate) use samples::{gate_decision, lift_sign};
pub use sandbox::{Denial, DenialKind, SandboxMode, SandboxNetwork, SandboxRecord};
pub(crate) use snapshot::version_note;
pub use snapshot::{Allowed, SnapshotCheck, SnapshotMetric, SnapshotVerdict};
pub use status::Status;
pub(crate) use trigger_gate::apply as apply_trigger_gates;
pub use triggers::{
    Estimate, Misfire, TriggerEnd, TriggerExpect, TriggerExpectation, TriggerObservation,
    TriggerScore, scores as trigger_scores,
};

/// How a case or runner id becomes a directory name (a re-export: the run directory's layout
/// lives with the artifacts).
pub use crate::artifacts::sanitize;
