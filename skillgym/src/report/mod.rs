//! The normalized view of one agent session.

mod event;
mod skill;
mod usage;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use event::{Phase, Role, SessionEvent};
pub use skill::{Confidence, InstalledSkill, SkillAttempt, SkillDetection};
pub use usage::{TokenCount, Usage, UsageSource};

use crate::assert::Expect;

/// What one agent session did, normalized across agents.
///
/// Built by the harness from the agent's output stream and handed to the case function. The
/// fields are public for inspection; the methods are the convenient views.
///
/// ```
/// use skillgym::{SessionEvent, SessionReport};
///
/// let report = SessionReport::from_events([SessionEvent::command("npm test")]);
/// assert_eq!(report.commands().collect::<Vec<_>>(), ["npm test"]);
/// let json = serde_json::to_string(&report).unwrap();
/// assert_eq!(serde_json::from_str::<SessionReport>(&json).unwrap(), report);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    /// The skills under test the harness installed for the session, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub installed_skills: Vec<InstalledSkill>,
    /// Skills the agent used, one entry per skill, with the strongest evidence. Only loads and
    /// reads that succeeded are evidence.
    pub detected_skills: Vec<SkillDetection>,
    /// Skill loads and `SKILL.md` reads that failed (an unknown skill, a missing file), in
    /// order. They are never evidence: no skill check counts them; failure messages show them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skill_attempts: Vec<SkillAttempt>,
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
    /// A report holding `events`, for tests, examples and replay: `files` is filled from the
    /// file-read events and `final_output` from the last final-phase assistant message (else
    /// the last assistant message that is not thinking). Skills are not inferred; add them
    /// with [`with_skill`](Self::with_skill).
    ///
    /// ```
    /// use skillgym::{SessionEvent, SessionReport};
    ///
    /// let report = SessionReport::from_events([
    ///     SessionEvent::file_read("/repo/.claude/skills/x/SKILL.md"),
    ///     SessionEvent::command("npx skills find expo"),
    ///     SessionEvent::assistant("Use upgrading-expo."),
    /// ]);
    /// assert_eq!(report.final_output(), "Use upgrading-expo.");
    /// assert_eq!(report.files.observed_skill_reads.len(), 1);
    /// ```
    pub fn from_events(events: impl IntoIterator<Item = SessionEvent>) -> Self {
        let events: Vec<SessionEvent> = events.into_iter().collect();
        let observed_reads: Vec<PathBuf> = events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::FileRead {
                    path, error: None, ..
                } => Some(path.clone()),
                _ => None,
            })
            .collect();
        let final_output = last_assistant_text(&events);
        SessionReport {
            files: FileActivity {
                observed_skill_reads: observed_reads
                    .iter()
                    .filter(|path| path.ends_with("SKILL.md"))
                    .cloned()
                    .collect(),
                observed_reads,
            },
            final_output,
            events,
            ..SessionReport::default()
        }
    }

    /// This report with `skill` added to the detected skills.
    ///
    /// ```
    /// use skillgym::{Confidence, SessionReport, SkillDetection};
    ///
    /// let report = SessionReport::default()
    ///     .with_skill(SkillDetection::new("find-skills", Confidence::Explicit, ["Loaded via Skill tool"]));
    /// assert!(report.skill("find-skills").is_some());
    /// ```
    #[must_use]
    pub fn with_skill(mut self, skill: SkillDetection) -> Self {
        self.detected_skills.push(skill);
        self
    }

    /// This report with its final output replaced.
    ///
    /// ```
    /// let report = skillgym::SessionReport::default().with_final_output("done");
    /// assert_eq!(report.final_output(), "done");
    /// ```
    #[must_use]
    pub fn with_final_output(mut self, text: impl Into<String>) -> Self {
        self.final_output = text.into();
        self
    }

    /// Opens the typed assertion groups; a failed check panics with a message listing what
    /// was expected and observed, located at the check. See [`assert`](crate::assert).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("npx skills find expo")]);
    /// report.expect().commands().includes(CommandMatcher::new("npx").args(["skills", "find"]));
    /// ```
    pub fn expect(&self) -> Expect<'_> {
        Expect::hard(self)
    }

    /// The agent's final answer.
    ///
    /// ```
    /// let report = skillgym::SessionReport::default().with_final_output("done");
    /// assert_eq!(report.final_output(), "done");
    /// ```
    pub fn final_output(&self) -> &str {
        &self.final_output
    }

    /// The shell commands the agent ran, in order.
    ///
    /// ```
    /// use skillgym::{SessionEvent, SessionReport};
    ///
    /// let report = SessionReport::from_events([SessionEvent::command("ls"), SessionEvent::command("pwd")]);
    /// assert_eq!(report.commands().collect::<Vec<_>>(), ["ls", "pwd"]);
    /// ```
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.events.iter().filter_map(|event| match event {
            SessionEvent::Command { command, .. } => Some(command.as_str()),
            _ => None,
        })
    }

    /// The tool calls, optionally only those of one tool (exact name).
    ///
    /// ```
    /// use serde_json::json;
    /// use skillgym::{SessionEvent, SessionReport};
    ///
    /// let report = SessionReport::from_events([
    ///     SessionEvent::tool_call("Read", json!({"file_path": "/repo/README.md"})),
    ///     SessionEvent::tool_call("Bash", json!({"command": "ls"})),
    /// ]);
    /// assert_eq!(report.tool_calls(None).count(), 2);
    /// assert_eq!(report.tool_calls(Some("Bash")).count(), 1);
    /// ```
    pub fn tool_calls<'a>(
        &'a self,
        tool: Option<&'a str>,
    ) -> impl Iterator<Item = &'a SessionEvent> {
        self.events.iter().filter(move |event| match event {
            SessionEvent::ToolCall { tool: name, .. } => tool.is_none_or(|tool| tool == name),
            _ => false,
        })
    }

    /// The files the agent read, in order (with repeats): the paths of the file-read events
    /// that succeeded, or [`files.observed_reads`](FileActivity::observed_reads) when there are
    /// none. A read that failed (a missing file) is not a read.
    ///
    /// ```
    /// use skillgym::{SessionEvent, SessionReport};
    ///
    /// let report = SessionReport::from_events([SessionEvent::file_read("/repo/README.md")]);
    /// assert_eq!(report.file_reads(), [std::path::Path::new("/repo/README.md")]);
    /// ```
    pub fn file_reads(&self) -> Vec<&Path> {
        let from_events: Vec<&Path> = self
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::FileRead {
                    path, error: None, ..
                } => Some(path.as_path()),
                _ => None,
            })
            .collect();
        if from_events.is_empty() {
            self.files
                .observed_reads
                .iter()
                .map(PathBuf::as_path)
                .collect()
        } else {
            from_events
        }
    }

    /// The detected skills.
    ///
    /// ```
    /// assert!(skillgym::SessionReport::default().detected_skills().is_empty());
    /// ```
    pub fn detected_skills(&self) -> &[SkillDetection] {
        &self.detected_skills
    }

    /// The failed attempts to load or read a skill.
    ///
    /// ```
    /// use skillgym::{SessionReport, SkillAttempt};
    ///
    /// let report = SessionReport::default()
    ///     .with_skill_attempt(SkillAttempt::new("ghost", "Skill tool", "Unknown skill: ghost"));
    /// assert!(report.detected_skills().is_empty());
    /// assert_eq!(report.skill_attempts()[0].to_string(), "ghost: attempted via Skill tool, failed: Unknown skill: ghost");
    /// ```
    pub fn skill_attempts(&self) -> &[SkillAttempt] {
        &self.skill_attempts
    }

    /// This report with a failed skill attempt added.
    ///
    /// ```
    /// use skillgym::{SessionReport, SkillAttempt};
    ///
    /// let report = SessionReport::default()
    ///     .with_skill_attempt(SkillAttempt::new("ghost", "Skill tool", "Unknown skill: ghost"));
    /// assert!(report.skill("ghost").is_none());
    /// ```
    #[must_use]
    pub fn with_skill_attempt(mut self, attempt: SkillAttempt) -> Self {
        self.skill_attempts.push(attempt);
        self
    }

    /// The detection of one skill, if it was detected at all.
    ///
    /// ```
    /// use skillgym::{Confidence, SessionReport, SkillDetection};
    ///
    /// let report = SessionReport::default()
    ///     .with_skill(SkillDetection::new("x", Confidence::Strong, ["Read /s/x/SKILL.md"]));
    /// assert_eq!(report.skill("x").unwrap().confidence, Confidence::Strong);
    /// assert!(report.skill("y").is_none());
    /// ```
    pub fn skill(&self, name: &str) -> Option<&SkillDetection> {
        self.detected_skills
            .iter()
            .find(|skill| skill.skill == name)
    }
}

/// The last final assistant message, else the last assistant message that is not thinking.
fn last_assistant_text(events: &[SessionEvent]) -> String {
    let assistant = |wanted: fn(Option<Phase>) -> bool| {
        events.iter().rev().find_map(|event| match event {
            SessionEvent::Message {
                role: Role::Assistant,
                phase,
                text,
                ..
            } if wanted(*phase) => Some(text.clone()),
            _ => None,
        })
    };
    assistant(|phase| phase == Some(Phase::Final))
        .or_else(|| assistant(|phase| phase != Some(Phase::Thinking)))
        .unwrap_or_default()
}

/// The runner (agent target) a session ran on.
///
/// ```
/// use skillgym::{AgentInfo, RunnerInfo};
///
/// let agent = AgentInfo {
///     kind: "claude-code".into(),
///     model: Some("sonnet".into()),
///     version: Some("2.1.330".into()),
/// };
/// let runner = RunnerInfo { id: "claude".into(), agent };
/// let json = serde_json::json!({
///     "id": "claude",
///     "agent": {"type": "claude-code", "model": "sonnet", "version": "2.1.330"}
/// });
/// assert_eq!(serde_json::to_value(&runner).unwrap(), json);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerInfo {
    /// The runner id from the configuration, e.g. `claude`.
    pub id: String,
    /// The agent, its version and model.
    pub agent: AgentInfo,
}

/// The agent CLI, its version and the model of a runner. `kind` is serialized as `type`;
/// an unknown model or version is left out (and reads back as `None`, as in reports written
/// before versions were recorded).
///
/// ```
/// let agent: skillgym::AgentInfo = serde_json::from_str(r#"{"type": "command"}"#).unwrap();
/// assert_eq!((agent.kind.as_str(), agent.model, agent.version), ("command", None, None));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// The agent type, e.g. `claude-code` or `command`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The configured model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent CLI's version (`2.1.330`), when known: what its start-up event reported, else
    /// what the CLI answered to `--version` once per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Files the agent was observed to read.
///
/// ```
/// use skillgym::{SessionEvent, SessionReport};
///
/// let report = SessionReport::from_events([
///     SessionEvent::file_read("/repo/README.md"),
///     SessionEvent::file_read("/repo/.claude/skills/x/SKILL.md"),
/// ]);
/// assert_eq!(report.files.observed_reads.len(), 2);
/// assert!(report.files.observed_skill_reads[0].ends_with("x/SKILL.md"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileActivity {
    /// Absolute paths of every file read, in order.
    pub observed_reads: Vec<PathBuf>,
    /// The subset of [`observed_reads`](Self::observed_reads) that are `SKILL.md` files.
    pub observed_skill_reads: Vec<PathBuf>,
}

/// When the agent process ran. Unknown figures are left out of the JSON.
///
/// ```
/// let timing = skillgym::Timing { duration_ms: Some(1500), ..Default::default() };
/// assert_eq!(serde_json::to_string(&timing).unwrap(), r#"{"duration_ms":1500}"#);
/// ```
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
///
/// ```
/// let raw = skillgym::RawArtifacts { stdout: Some("/out/stdout.jsonl".into()), ..Default::default() };
/// let json = serde_json::to_value(&raw).unwrap();
/// assert_eq!(json, serde_json::json!({"stdout": "/out/stdout.jsonl"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawArtifacts {
    /// The agent's stdout, byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<PathBuf>,
    /// The agent's stderr, byte for byte; `None` when it wrote nothing there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<PathBuf>,
    /// The agent's own session file, when it keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<PathBuf>,
    /// The model requests the scripted server answered, with its replies (`--mock` runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_requests: Option<PathBuf>,
}
