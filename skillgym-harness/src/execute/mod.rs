//! Running executions: the repeat/retry loop, one attempt, one agent session, the checks.
//!
//! | module | role |
//! |---|---|
//! | `engine` | [`Engine`]: what every execution of the run reads |
//! | `budget` | what the run has spent against `run.budget`, checked before each session |
//! | `execution` | the repeat/retry loop of one case on one runner |
//! | `attempt` | one attempt: workspace, skills, hooks, session, checks, artifacts |
//! | `session` | one agent session: the process, its stream, the report |
//! | `replay` | one recorded attempt re-normalized instead of a session (`--replay`, `type: replay`) |
//! | `check` | a Rust case's function, its panics and soft failures |
//! | `conversation` | a multi-turn case's later turns, each turn's grading and the case's aggregated score |
//! | `turn_session` | a later turn's session: the agent resumed, or the recorded turn replayed |
//! | `grading` | a declarative case's graders, score and `grading.json` |
//! | `hooks` | a declarative suite's `before_each` / `after_each` hooks, and how any hook runs |
//! | `suite_hooks` | its `before_all` / `after_all` hooks, once per run |
//! | `judge` | rubric graders' judge: a session of the `judge` runner |
//! | `runtimes` | the async runtimes executions lease, kept from one execution to the next |

mod attempt;
mod budget;
mod check;
mod conversation;
mod engine;
mod execution;
mod grading;
mod hooks;
mod judge;
pub(crate) mod replay;
mod runtimes;
mod session;
pub(crate) mod suite_hooks;
mod trigger;
mod turn_session;

pub(crate) use budget::Budget;
pub use engine::Engine;
pub use execution::{run_execution, run_triggers, run_variants};
pub use session::{SessionLimits, SessionOutput, TriggerStop, run_launch, run_session};
