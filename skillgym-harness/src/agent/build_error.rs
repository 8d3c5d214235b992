//! [`AgentBuildError`]: why an adapter cannot be built from a runner's options.

/// Why an agent adapter cannot be built from a runner's options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentBuildError {
    /// A `command` agent without `command`.
    #[error("an agent of type `command` needs `command`")]
    MissingCommand,
    /// A `replay` agent where a program must start (the judge).
    #[error("an agent of type `replay` starts no program: only a runner can replay a recording")]
    ReplayHasNoProgram,
    /// A recording that cannot be replayed: unreadable, or without the runner asked for.
    #[error("{0}")]
    Recording(String),
}
