//! Trigger sessions: ending them as soon as their decision is observable, and checking them.
//!
//! | the agent, in the events of one line of its stream | the session |
//! |---|---|
//! | loads a skill through its skill tool, or reads a `SKILL.md` or a file inside an installed skill's directory | ends as `fired` |
//! | makes tool calls that load no skill (without tool calls in the stream: runs commands or reads files) | counts them; ends as `quiet` at the `quiet_after`th |
//! | ends by itself | `finished` |
//!
//! Skillgym then kills the agent's process group; what it printed is kept, and the session
//! is no failure. Its token figures are those the agent reported before it was stopped (some
//! agents report usage only at the end: their trigger sessions may show none).

use std::path::{Path, PathBuf};

use skillgym::{Failure, FailureOrigin, SessionEvent, SessionReport};

use crate::results::{TriggerEnd, TriggerExpect, TriggerObservation};
use crate::suite::triggers::TriggerCase;

/// What the session showed: the skills it used (any confidence), and how it ended.
pub(crate) fn observation(report: &SessionReport, ended: TriggerEnd) -> TriggerObservation {
    let fired = report
        .detected_skills()
        .iter()
        .map(|detection| detection.skill.clone())
        .collect();
    TriggerObservation::new(fired, ended)
}

/// The failure of a session that did not do what its prompt expects (origin `assertion`).
pub(crate) fn check(trigger: &TriggerCase, observed: &TriggerObservation) -> Option<Failure> {
    let skill = &trigger.expectation.skill;
    let fired = observed.fired.contains(skill);
    let others: Vec<&str> = observed
        .fired
        .iter()
        .filter(|s| *s != skill)
        .map(String::as_str)
        .collect();
    let message = match (trigger.expectation.expect, fired) {
        (TriggerExpect::Fire, true) | (TriggerExpect::Quiet, false) => return None,
        (TriggerExpect::Fire, false) if others.is_empty() => {
            format!("skill `{skill}` did not fire; no skill did")
        }
        (TriggerExpect::Fire, false) => format!(
            "skill `{skill}` did not fire; fired instead: {}",
            others.join(", ")
        ),
        (TriggerExpect::Quiet, true) => {
            format!("skill `{skill}` fired on a prompt that should not trigger it")
        }
    };
    Some(Failure::new(FailureOrigin::Assertion, message))
}

/// Watches a trigger session's events for its decision.
#[derive(Debug)]
pub(crate) struct TriggerWatch {
    quiet_after: u32,
    skill_dirs: Vec<PathBuf>,
    actions: u32,
    seen: usize,
}

impl TriggerWatch {
    /// A watch ending quiet at the `quiet_after`th action; files inside `skill_dirs` are
    /// skill reads.
    pub(crate) fn new(quiet_after: u32, skill_dirs: Vec<PathBuf>) -> TriggerWatch {
        TriggerWatch {
            quiet_after: quiet_after.max(1),
            skill_dirs,
            actions: 0,
            seen: 0,
        }
    }

    /// Looks at the events added since the last call (`events` is all of them, in order);
    /// the decision, once there is one.
    pub(crate) fn observe(&mut self, events: &[SessionEvent]) -> Option<TriggerEnd> {
        let new = events.get(self.seen..).unwrap_or_default();
        self.seen = events.len();
        if new.iter().any(|event| self.loads_a_skill(event)) {
            return Some(TriggerEnd::Fired);
        }
        let calls = new
            .iter()
            .filter(|e| matches!(e, SessionEvent::ToolCall { .. }))
            .count();
        let actions = match calls {
            0 => new
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        SessionEvent::Command { .. } | SessionEvent::FileRead { .. }
                    )
                })
                .count(),
            calls => calls,
        };
        self.actions = self.actions.saturating_add(actions as u32);
        (self.actions >= self.quiet_after).then_some(TriggerEnd::Quiet)
    }

    fn loads_a_skill(&self, event: &SessionEvent) -> bool {
        match event {
            SessionEvent::SkillSignal { .. } => true,
            SessionEvent::FileRead { path, .. } => {
                path.file_name() == Some("SKILL.md".as_ref()) || self.inside_a_skill(path)
            }
            _ => false,
        }
    }

    fn inside_a_skill(&self, path: &Path) -> bool {
        self.skill_dirs.iter().any(|dir| path.starts_with(dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str) -> SessionEvent {
        serde_json::from_value(serde_json::json!({"type": "file_read", "path": path})).unwrap()
    }

    fn call(tool: &str) -> SessionEvent {
        serde_json::from_value(serde_json::json!({"type": "tool_call", "tool": tool, "args": {}}))
            .unwrap()
    }

    #[test]
    fn a_skill_load_decides_at_once_and_other_actions_count_to_quiet() {
        let mut watch = TriggerWatch::new(2, vec![PathBuf::from("/ws/.claude/skills/pdf")]);
        let mut events = vec![call("Bash"), SessionEvent::command("ls")];
        assert_eq!(watch.observe(&events), None, "one tool call: one action");
        events.push(read("/ws/.claude/skills/pdf/reference.md"));
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));

        let mut watch = TriggerWatch::new(2, Vec::new());
        let mut events = vec![call("Read"), read("/ws/src/main.rs")];
        assert_eq!(watch.observe(&events), None);
        events.push(SessionEvent::command("cargo test"));
        assert_eq!(
            watch.observe(&events),
            Some(TriggerEnd::Quiet),
            "a command without a tool call counts too"
        );

        let mut watch = TriggerWatch::new(1, Vec::new());
        let skill_call = [call("Skill"), read("/ws/.agents/skills/x/SKILL.md")];
        assert_eq!(
            watch.observe(&skill_call),
            Some(TriggerEnd::Fired),
            "the skill tool's own call is no other action"
        );
    }
}
