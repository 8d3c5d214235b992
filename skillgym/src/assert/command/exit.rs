//! What a [`CommandMatcher`](super::CommandMatcher) expects of a command's exit code.
//!
//! | method | shown as | matches an exit code of |
//! |---|---|---|
//! | `succeeded()` | `succeeded` | 0 |
//! | `failed()` | `failed` | anything but 0 |
//! | `exit_code(n)` | `exit_code=n` | `n` |
//!
//! An exit code the agent did not report (`None`) matches none of them.

use std::fmt;

/// The expected exit code of a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExpectedExit {
    Succeeded,
    Failed,
    Code(i32),
}

impl ExpectedExit {
    /// Whether the observed exit code (`None`: not reported) is the expected one.
    pub(crate) fn matches(self, observed: Option<i32>) -> bool {
        match (self, observed) {
            (_, None) => false,
            (ExpectedExit::Succeeded, Some(code)) => code == 0,
            (ExpectedExit::Failed, Some(code)) => code != 0,
            (ExpectedExit::Code(expected), Some(code)) => code == expected,
        }
    }
}

impl fmt::Display for ExpectedExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectedExit::Succeeded => f.write_str("succeeded"),
            ExpectedExit::Failed => f.write_str("failed"),
            ExpectedExit::Code(code) => write!(f, "exit_code={code}"),
        }
    }
}

/// The detail line under an observed command when a matcher expects an exit code.
pub(crate) fn observed_exit(observed: Option<i32>) -> String {
    match observed {
        Some(code) => format!("exit code: {code}"),
        None => "exit code: unknown (the agent did not report it; an expected exit code never \
                 matches an unknown one)"
            .to_owned(),
    }
}
