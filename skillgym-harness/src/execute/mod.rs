//! Running executions: the repeat/retry loop, one attempt, one agent session, the checks.

mod aggregate;
mod attempt;
mod check;
mod execution;
mod result;
mod session;

pub use aggregate::wilson_95;
pub use execution::run_execution;
pub use result::{
    AttemptResult, AttemptStats, ExecutionResult, Interval, RepetitionResult, Status,
};
pub use session::{SessionLimits, SessionOutput, format_duration, run_session};
