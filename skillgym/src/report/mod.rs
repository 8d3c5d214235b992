//! The normalized view of one agent session.

mod event;
mod skill;
mod usage;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use event::{Phase, Role, SessionEvent};
pub use skill::{Confidence, SkillDetection};
pub use usage::{TokenCount, Usage, UsageSource};

/// What one agent session did, normalized across agents.
///
/// Built by the harness from the agent's output stream and handed to the case function. The
/// fields are public for inspection; the methods are the convenient views.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionReport {
    /// The runner that produced the session.
    pub runner: RunnerInfo,
    /// The agent's own session id, when it reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The prompt sent to the agent.
    pub prompt: String,
    /// Everything the agent did, in stream order.
    pub events: Vec<SessionEvent>,
    /// Token usage and cost.
    pub usage: Usage,
    /// Files the agent was observed to read.
    pub files: FileActivity,
    /// Skills the agent used, one entry per skill, with the strongest evidence.
    pub detected_skills: Vec<SkillDetection>,
    /// The agent's final answer.
    pub final_output: String,
    /// When the session ran.
    pub timing: Timing,
    /// Where the raw artifacts of the session are kept.
    pub raw_artifacts: RawArtifacts,
    /// Problems met while normalizing (malformed lines and the like); never fatal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl SessionReport {
    /// The agent's final answer.
    pub fn final_output(&self) -> &str {
        &self.final_output
    }

    /// The shell commands the agent ran, in order.
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.events.iter().filter_map(|event| match event {
            SessionEvent::Command { command, .. } => Some(command.as_str()),
            _ => None,
        })
    }

    /// The tool calls, optionally only those of one tool (exact name).
    pub fn tool_calls<'a>(
        &'a self,
        tool: Option<&'a str>,
    ) -> impl Iterator<Item = &'a SessionEvent> {
        self.events.iter().filter(move |event| match event {
            SessionEvent::ToolCall { tool: name, .. } => tool.is_none_or(|tool| tool == name),
            _ => false,
        })
    }

    /// The absolute paths of the files the agent read, in order (with repeats).
    pub fn file_reads(&self) -> &[PathBuf] {
        &self.files.observed_reads
    }

    /// The detected skills.
    pub fn detected_skills(&self) -> &[SkillDetection] {
        &self.detected_skills
    }

    /// The detection of one skill, if it was detected at all.
    pub fn skill(&self, name: &str) -> Option<&SkillDetection> {
        self.detected_skills
            .iter()
            .find(|skill| skill.skill == name)
    }
}

/// The runner (agent target) a session ran on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerInfo {
    /// The runner id from the configuration, e.g. `claude`.
    pub id: String,
    /// The agent and model.
    pub agent: AgentInfo,
}

/// The agent CLI and model of a runner.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// The agent type, e.g. `claude-code` or `command`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The configured model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Files the agent was observed to read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileActivity {
    /// Absolute paths of every file read, in order.
    pub observed_reads: Vec<PathBuf>,
    /// The subset of [`observed_reads`](Self::observed_reads) that are `SKILL.md` files.
    pub observed_skill_reads: Vec<PathBuf>,
}

/// When the agent process ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// Start, RFC 3339 in UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// End, RFC 3339 in UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Wall time of the agent process in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// Where the raw artifacts of a session are kept (absolute paths).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawArtifacts {
    /// The agent's stdout, byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<PathBuf>,
    /// The agent's stderr, byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<PathBuf>,
    /// The agent's own session file, when it keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<PathBuf>,
}
