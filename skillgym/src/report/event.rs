//! The events of a session.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing the agent did. Serialized with a `type` tag in snake_case:
/// `{"type": "command", "command": "npx skills find expo"}`.
///
/// ```
/// use serde_json::json;
/// use skillgym::SessionEvent;
///
/// let event = SessionEvent::command("npx skills find expo");
/// let value = serde_json::to_value(&event).unwrap();
/// assert_eq!(value, json!({"type": "command", "command": "npx skills find expo"}));
/// assert_eq!(serde_json::from_value::<SessionEvent>(value).unwrap(), event);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionEvent {
    /// Text from the user or the assistant.
    Message {
        /// Who spoke.
        role: Role,
        /// For assistant text: thinking, commentary or the final answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<Phase>,
        /// The text.
        text: String,
        /// When, RFC 3339, if the agent said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A tool invocation.
    ToolCall {
        /// The agent's id for the call, used to pair it with its result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The tool's name as the agent reported it.
        tool: String,
        /// The arguments.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        args: Value,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// The result of a tool invocation.
    ToolResult {
        /// The id of the call it answers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The tool's name, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// The output text.
        #[serde(default)]
        output: String,
        /// Whether the tool reported an error.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A shell command the agent ran (unwrapped from `bash -lc '...'` and the like).
    Command {
        /// The command line.
        command: String,
        /// Its exit code, if reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A file the agent read, or tried to read (absolute path).
    FileRead {
        /// The path.
        path: PathBuf,
        /// Why the read failed (the tool's error, or the command's exit status), when it did.
        /// A failed read is an attempt: it is neither a read nor skill evidence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// An explicit skill load, such as Claude Code's `Skill` tool.
    SkillSignal {
        /// The skill's name.
        skill: String,
        /// How it was signalled, e.g. `tool:skill`.
        signal: String,
        /// Why the load failed (the skill tool's error), when it did. A failed load is an
        /// attempt, never evidence that the skill was used.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A record of the agent's stream that the adapter did not map, kept as it was.
    Raw {
        /// The record.
        value: Value,
        /// When, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
}

impl SessionEvent {
    /// A [`Command`](SessionEvent::Command) without exit code or time.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::command("npm test");
    /// assert!(matches!(event, skillgym::SessionEvent::Command { .. }));
    /// ```
    pub fn command(command: impl Into<String>) -> Self {
        SessionEvent::Command {
            command: command.into(),
            exit_code: None,
            at: None,
        }
    }

    /// This event with `code` as its exit code, when it is a command (other events are
    /// returned as they are).
    ///
    /// ```
    /// use skillgym::SessionEvent;
    ///
    /// let event = SessionEvent::command("cargo fmt").with_exit_code(1);
    /// assert_eq!(event.exit_code(), Some(1));
    /// assert_eq!(SessionEvent::command("cargo fmt").exit_code(), None);
    /// ```
    #[must_use]
    pub fn with_exit_code(mut self, code: i32) -> Self {
        if let SessionEvent::Command { exit_code, .. } = &mut self {
            *exit_code = Some(code);
        }
        self
    }

    /// The exit code of a command, if the agent reported it.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::command("npm test").with_exit_code(0);
    /// assert_eq!(event.exit_code(), Some(0));
    /// ```
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            SessionEvent::Command { exit_code, .. } => *exit_code,
            _ => None,
        }
    }

    /// A [`ToolCall`](SessionEvent::ToolCall) without id or time.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::tool_call("Bash", serde_json::json!({"command": "ls"}));
    /// assert!(matches!(event, skillgym::SessionEvent::ToolCall { .. }));
    /// ```
    pub fn tool_call(tool: impl Into<String>, args: Value) -> Self {
        SessionEvent::ToolCall {
            id: None,
            tool: tool.into(),
            args,
            at: None,
        }
    }

    /// A [`FileRead`](SessionEvent::FileRead) without time.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::file_read("/repo/README.md");
    /// assert!(matches!(event, skillgym::SessionEvent::FileRead { .. }));
    /// ```
    pub fn file_read(path: impl Into<PathBuf>) -> Self {
        SessionEvent::FileRead {
            path: path.into(),
            error: None,
            at: None,
        }
    }

    /// This event marked as failed with `error`, when it is a file read or a skill load (other
    /// events are returned as they are).
    ///
    /// ```
    /// use skillgym::{SessionEvent, SessionReport};
    ///
    /// let failed = SessionEvent::file_read("/repo/skills/ghost/SKILL.md").failed("File not found");
    /// assert!(SessionReport::from_events([failed]).file_reads().is_empty());
    /// ```
    #[must_use]
    pub fn failed(mut self, message: impl Into<String>) -> Self {
        match &mut self {
            SessionEvent::FileRead { error, .. } | SessionEvent::SkillSignal { error, .. } => {
                *error = Some(message.into());
            }
            _ => {}
        }
        self
    }

    /// The failure of a file read or skill load, if it failed.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::skill_signal("ghost").failed("Unknown skill: ghost");
    /// assert_eq!(event.error(), Some("Unknown skill: ghost"));
    /// ```
    pub fn error(&self) -> Option<&str> {
        match self {
            SessionEvent::FileRead { error, .. } | SessionEvent::SkillSignal { error, .. } => {
                error.as_deref()
            }
            _ => None,
        }
    }

    /// An assistant [`Message`](SessionEvent::Message) in the final phase.
    ///
    /// ```
    /// let event = skillgym::SessionEvent::assistant("done");
    /// assert!(matches!(event, skillgym::SessionEvent::Message { .. }));
    /// ```
    pub fn assistant(text: impl Into<String>) -> Self {
        SessionEvent::Message {
            role: Role::Assistant,
            phase: Some(Phase::Final),
            text: text.into(),
            at: None,
        }
    }

    /// A [`SkillSignal`](SessionEvent::SkillSignal) from the agent's skill tool (`tool:skill`).
    ///
    /// ```
    /// let event = skillgym::SessionEvent::skill_signal("find-skills");
    /// assert!(matches!(event, skillgym::SessionEvent::SkillSignal { .. }));
    /// ```
    pub fn skill_signal(skill: impl Into<String>) -> Self {
        SessionEvent::SkillSignal {
            skill: skill.into(),
            signal: "tool:skill".into(),
            error: None,
            at: None,
        }
    }
}

/// Who wrote a message.
///
/// ```
/// use skillgym::{Role, SessionEvent};
///
/// let SessionEvent::Message { role, .. } = SessionEvent::assistant("done") else { panic!() };
/// assert_eq!(role, Role::Assistant);
/// assert_eq!(serde_json::to_string(&Role::User).unwrap(), r#""user""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// The user (the prompt).
    User,
    /// The agent.
    Assistant,
}

/// The kind of assistant text. Thinking text never counts as the final answer.
///
/// ```
/// use skillgym::{Phase, Role, SessionEvent, SessionReport};
///
/// let thinking = SessionEvent::Message {
///     role: Role::Assistant, phase: Some(Phase::Thinking), text: "hmm".into(), at: None,
/// };
/// let report = SessionReport::from_events([SessionEvent::assistant("done"), thinking]);
/// assert_eq!(report.final_output(), "done");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Phase {
    /// Reasoning text.
    Thinking,
    /// Text between tool calls.
    Commentary,
    /// The final answer.
    Final,
}
