//! What to run: the registered cases and the plan of trials (case x runner).

pub mod plan;
pub mod registry;

pub use plan::{Plan, PlannedExecution};
pub use registry::{CaseCheck, CaseSpec, PromptSpec, collect_registered};
