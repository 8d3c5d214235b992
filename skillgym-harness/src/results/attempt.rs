//! [`AttemptResult`]: one agent session and its checks (an entry of a repetition's
//! `attempts`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use skillgym::{Failure, Usage};

use super::{Grading, SandboxRecord, Status};

/// One agent session and its checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AttemptResult {
    /// 1-based repetition number.
    pub repetition: u32,
    /// 1-based attempt number inside the repetition.
    pub attempt: u32,
    /// The verdict, after expected-failure mapping.
    pub status: Status,
    /// Whether the verdict counts as passing.
    pub passed: bool,
    /// Why the checks or the session failed (also kept for an expected failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Wall time of the attempt (workspace, session and checks) in milliseconds.
    pub duration_ms: u64,
    /// Token usage of the session.
    pub usage: Usage,
    /// Model rounds observed.
    pub steps: u32,
    /// The agent's exit code, if it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the agent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The attempt's artifact directory.
    pub artifact_dir: PathBuf,
    /// Where the attempt's isolated workspace was kept (under the run's workspace root): the
    /// attempt failed, or removing its workspace did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_workspace: Option<PathBuf>,
    /// The graders' scores and evidence (declarative cases whose session ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grading: Option<Grading>,
    /// The recorded attempt this one replayed (`--replay`, `type: replay`): no agent ran, and
    /// the session's figures are the recording's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_from: Option<PathBuf>,
    /// The sandbox the session ran in, and what it denied the agent (`sandbox: bubblewrap`;
    /// absent: no sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxRecord>,
    /// What a trigger case's session showed: the skills that fired and how it ended (absent
    /// for other cases, and when the session failed before that was observable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<super::TriggerObservation>,
}
