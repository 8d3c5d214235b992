//! Trigger sessions: ending them as soon as their decision is observable, and checking them.
//!
//! | the agent, in the events of one line of its stream | the session |
//! |---|---|
//! | reads a `SKILL.md` or a file inside an installed skill's directory | ends as `fired` |
//! | loads a skill through its skill tool | ends as `fired` once the tool's result is in (cut before it, the load would read as one that failed) |
//! | makes tool calls that load no skill (without tool calls in the stream: runs commands or reads files) | counts them; ends as `quiet` at the `quiet_after`th |
//! | ends by itself | `finished` |
//!
//! A declarative case whose one grader is `skill-trigger` (agentv's `skill-used` /
//! `not-skill-used`) is watched too, but ends only at a skill load: its verdict cannot change
//! after that, while before it the agent may still load the skill.
//!
//! Skillgym then kills the agent's process group; what it printed is kept, and the session
//! is no failure. Its token figures are those the agent reported before it was stopped (some
//! agents report usage only at the end: their trigger sessions may show none).

use std::path::{Path, PathBuf};

use skillgym::{Failure, FailureOrigin, InstalledSkill, SessionEvent, SessionReport};

use super::session::TriggerStop;
use crate::grade::spec::GraderKind;
use crate::results::{TriggerEnd, TriggerExpect, TriggerExpectation, TriggerObservation};
use crate::suite::triggers::TriggerCase;
use crate::suite::{CaseCheck, CaseSpec, PromptSpec};

/// What a case expects as a trigger prompt: a trigger case's expectation, or that of a
/// declarative case whose one grader is `skill-trigger` (agentv's `skill-used` /
/// `not-skill-used`), whose sessions then count in the skill's trigger figures (run whole:
/// no gate, no early end).
pub(crate) fn expectation(case: &CaseSpec) -> Option<TriggerExpectation> {
    match &case.check {
        CaseCheck::Trigger(trigger) => Some(trigger.expectation.clone()),
        CaseCheck::Declared(check) => match check.graders.as_slice() {
            [grader] if !grader.negate => match &grader.kind {
                GraderKind::SkillTrigger {
                    skill,
                    should_trigger,
                } => Some(TriggerExpectation {
                    skill: skill.clone(),
                    expect: if *should_trigger {
                        TriggerExpect::Fire
                    } else {
                        TriggerExpect::Quiet
                    },
                    prompt: match &case.prompt {
                        PromptSpec::Inline(text) => text.clone(),
                        PromptSpec::File(path) => path.display().to_string(),
                    },
                    min_recall: None,
                    min_precision: None,
                }),
                _ => None,
            },
            _ => None,
        },
        CaseCheck::Rust(_) => None,
    }
}

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
    stop: TriggerStop,
    /// The installed skills: directory and name.
    skills: Vec<(PathBuf, String)>,
    actions: u32,
    seen: usize,
    /// A skill tool's load was seen: the index and id of its call, whose result is awaited.
    awaiting_result: Option<(usize, Option<String>)>,
}

impl TriggerWatch {
    /// A watch ending as `stop` says over a session with `installed` skills (a read inside one
    /// of their directories is a load of it).
    pub(crate) fn new(stop: TriggerStop, installed: &[InstalledSkill]) -> TriggerWatch {
        TriggerWatch {
            stop,
            skills: installed
                .iter()
                .map(|skill| (skill.path.clone(), skill.name.clone()))
                .collect(),
            actions: 0,
            seen: 0,
            awaiting_result: None,
        }
    }

    /// Looks at the events added since the last call (`events` is all of them, in order);
    /// the decision, once there is one.
    pub(crate) fn observe(&mut self, events: &[SessionEvent]) -> Option<TriggerEnd> {
        let start = self.seen.min(events.len());
        let new = &events[start..];
        self.seen = events.len();
        let mut loads = false;
        for (index, event) in events.iter().enumerate().skip(start) {
            let Some(name) = self.loaded(event) else {
                continue;
            };
            loads = true;
            if self.stop.skill.as_ref().is_some_and(|skill| *skill != name) {
                continue;
            }
            match event {
                // A skill tool's load ends the session once its result is in: cut before it,
                // the load would read as one that failed.
                SessionEvent::SkillSignal { .. } => {
                    self.awaiting_result = Some(call_for(events, index, &name));
                }
                _ => return Some(TriggerEnd::Fired),
            }
        }
        if let Some((call_index, id)) = &self.awaiting_result {
            let answered = events[*call_index..].iter().any(|e| match e {
                SessionEvent::ToolResult { id: result, .. } => id.is_none() || result == id,
                _ => false,
            });
            return answered.then_some(TriggerEnd::Fired);
        }
        if loads {
            return None;
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
        let quiet_after = self.stop.quiet_after?;
        (self.actions >= quiet_after.max(1)).then_some(TriggerEnd::Quiet)
    }
}

/// The tool call of the skill load at `index` of `skill`, as (index, id): the last call
/// whose arguments name the skill (agents report the load before or after its call), else
/// the nearest call before it, else the load itself with no id (any later result answers it).
fn call_for(events: &[SessionEvent], index: usize, skill: &str) -> (usize, Option<String>) {
    let calls = || {
        events
            .iter()
            .enumerate()
            .filter_map(|(at, event)| match event {
                SessionEvent::ToolCall { id, args, .. } => Some((at, id, args)),
                _ => None,
            })
    };
    let naming = calls().rev().find(|(_, _, args)| names(args, skill));
    let before = || calls().rev().find(|(at, ..)| *at < index);
    match naming.or_else(before) {
        Some((at, id, _)) => (at, id.clone()),
        None => (index, None),
    }
}

/// Whether `value` holds the string `skill` anywhere.
fn names(value: &serde_json::Value, skill: &str) -> bool {
    match value {
        serde_json::Value::String(text) => text == skill,
        serde_json::Value::Array(items) => items.iter().any(|item| names(item, skill)),
        serde_json::Value::Object(map) => map.values().any(|item| names(item, skill)),
        _ => false,
    }
}

impl TriggerWatch {
    /// The skill `event` loads, if it loads one: through a skill tool, or a read of a
    /// `SKILL.md` (named by its installed skill, else its directory) or of a file inside an
    /// installed skill's directory.
    fn loaded(&self, event: &SessionEvent) -> Option<String> {
        match event {
            SessionEvent::SkillSignal { skill, .. } => Some(skill.clone()),
            SessionEvent::FileRead { path, .. } => {
                let installed = self.skills.iter().find(|(dir, _)| path.starts_with(dir));
                match installed {
                    Some((_, name)) => Some(name.clone()),
                    None if path.file_name() == Some("SKILL.md".as_ref()) => path
                        .parent()
                        .and_then(Path::file_name)
                        .map(|name| name.to_string_lossy().into_owned()),
                    None => None,
                }
            }
            _ => None,
        }
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

    fn signal(skill: &str) -> SessionEvent {
        serde_json::from_value(serde_json::json!({
            "type": "skill_signal", "skill": skill, "signal": "tool:Skill"
        }))
        .unwrap()
    }

    fn result() -> SessionEvent {
        serde_json::from_value(serde_json::json!({"type": "tool_result", "output": "ok"})).unwrap()
    }

    fn installed(path: &str, name: &str) -> InstalledSkill {
        InstalledSkill {
            name: name.to_owned(),
            source: PathBuf::from("/src").join(name),
            path: PathBuf::from(path),
        }
    }

    fn any(quiet_after: u32) -> TriggerStop {
        TriggerStop {
            quiet_after: Some(quiet_after),
            skill: None,
        }
    }

    #[test]
    fn a_declarative_case_ends_only_at_its_own_skill() {
        let pdf = installed("/ws/.agents/skills/pdf", "pdf-forms");
        let stop = TriggerStop {
            quiet_after: None,
            skill: Some("pdf-forms".to_owned()),
        };
        let mut watch = TriggerWatch::new(stop, &[pdf]);
        let mut events: Vec<SessionEvent> = (0..10).map(|_| call("Bash")).collect();
        events.push(read("/ws/.agents/skills/docx/SKILL.md"));
        assert_eq!(
            watch.observe(&events),
            None,
            "another skill, and no quiet end"
        );
        events.push(read("/ws/.agents/skills/pdf/SKILL.md"));
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));
    }

    #[test]
    fn a_skill_load_decides_at_once_and_other_actions_count_to_quiet() {
        let pdf = installed("/ws/.claude/skills/pdf", "pdf-forms");
        let mut watch = TriggerWatch::new(any(2), &[pdf]);
        let mut events = vec![call("Bash"), SessionEvent::command("ls")];
        assert_eq!(watch.observe(&events), None, "one tool call: one action");
        events.push(read("/ws/.claude/skills/pdf/reference.md"));
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));

        let mut watch = TriggerWatch::new(any(2), &[]);
        let mut events = vec![call("Read"), read("/ws/src/main.rs")];
        assert_eq!(watch.observe(&events), None);
        events.push(SessionEvent::command("cargo test"));
        assert_eq!(
            watch.observe(&events),
            Some(TriggerEnd::Quiet),
            "a command without a tool call counts too"
        );

        let mut watch = TriggerWatch::new(any(1), &[]);
        let skill_call = [call("Skill"), read("/ws/.agents/skills/x/SKILL.md")];
        assert_eq!(
            watch.observe(&skill_call),
            Some(TriggerEnd::Fired),
            "the skill tool's own call is no other action"
        );

        let mut watch = TriggerWatch::new(any(1), &[]);
        let mut events = vec![call("Skill"), signal("x")];
        assert_eq!(watch.observe(&events), None, "its result is awaited");
        events.push(result());
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));

        // Copilot and Gemini CLI report the load before its call.
        let mut watch = TriggerWatch::new(any(1), &[]);
        let call = serde_json::json!({"type": "tool_call", "id": "c9", "tool": "skill",
            "args": {"skill": "x"}});
        let mut events = vec![signal("x"), serde_json::from_value(call).unwrap()];
        assert_eq!(watch.observe(&events), None);
        let other = serde_json::json!({"type": "tool_result", "id": "c8", "output": "ok"});
        events.push(serde_json::from_value(other).unwrap());
        assert_eq!(watch.observe(&events), None, "another call's result");
        let answered = serde_json::json!({"type": "tool_result", "id": "c9", "output": "ok"});
        events.push(serde_json::from_value(answered).unwrap());
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));

        // OpenCode reports the call with its result, then the load, in one line.
        let mut watch = TriggerWatch::new(any(1), &[]);
        let call =
            serde_json::json!({"type": "tool_call", "id": "c1", "tool": "skill", "args": {}});
        let answered = serde_json::json!({"type": "tool_result", "id": "c1", "output": "ok"});
        let events = vec![
            serde_json::from_value(call).unwrap(),
            serde_json::from_value(answered).unwrap(),
            signal("x"),
        ];
        assert_eq!(watch.observe(&events), Some(TriggerEnd::Fired));
    }
}
