//! What to run: the registered cases and the plan of trials (case x runner).

pub mod plan;
pub mod registry;
// wired into trials by issue 15's integration
#[allow(dead_code)]
pub(crate) mod yaml;

pub use plan::{Plan, PlannedExecution};
pub use registry::{CaseCheck, CaseSpec, PromptSpec, collect_registered};
