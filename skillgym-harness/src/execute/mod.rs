//! Running executions: the repeat/retry loop, one attempt, one agent session, the checks.

mod attempt;
mod check;
mod execution;
pub mod result;
mod session;

pub use execution::run_execution;
pub use result::{AttemptResult, ExecutionResult, RepetitionResult, Status};
pub use session::{SessionLimits, SessionOutput, run_session};
