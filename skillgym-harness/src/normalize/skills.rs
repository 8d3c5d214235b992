//! Skill detection from a session's events.
//!
//! - an explicit skill load ([`SessionEvent::SkillSignal`]) is `explicit` evidence;
//! - a read of `<dir>/<skill>/SKILL.md` is `strong` evidence for `<skill>`.
//!
//! One entry per skill, in order of first evidence; the strongest confidence wins and all
//! evidence is kept, without duplicates.

use skillgym::{Confidence, SessionEvent, SkillDetection};

/// Detects the skills the agent used.
pub fn detect_skills(events: &[SessionEvent]) -> Vec<SkillDetection> {
    let mut detections: Vec<SkillDetection> = Vec::new();
    for event in events {
        let (skill, confidence, evidence) = match event {
            SessionEvent::SkillSignal { skill, signal, .. } => (
                skill.clone(),
                Confidence::Explicit,
                format!("Loaded via {signal}"),
            ),
            SessionEvent::FileRead { path, .. }
                if path.file_name().is_some_and(|n| n == "SKILL.md") =>
            {
                let Some(skill) = path
                    .parent()
                    .and_then(|dir| dir.file_name())
                    .map(|name| name.to_string_lossy().into_owned())
                else {
                    continue;
                };
                (
                    skill,
                    Confidence::Strong,
                    format!("Read {}", path.display()),
                )
            }
            _ => continue,
        };
        match detections.iter_mut().find(|d| d.skill == skill) {
            Some(existing) => {
                existing.confidence = existing.confidence.max(confidence);
                if !existing.evidence.contains(&evidence) {
                    existing.evidence.push(evidence);
                }
            }
            None => detections.push(SkillDetection {
                skill,
                confidence,
                evidence: vec![evidence],
            }),
        }
    }
    detections
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str) -> SessionEvent {
        SessionEvent::FileRead {
            path: path.into(),
            at: None,
        }
    }

    #[test]
    fn strongest_confidence_wins_and_evidence_is_merged() {
        let events = vec![
            read("/r/.claude/skills/find-skills/SKILL.md"),
            read("/r/.claude/skills/find-skills/SKILL.md"),
            read("/r/README.md"),
            SessionEvent::SkillSignal {
                skill: "find-skills".into(),
                signal: "tool:skill".into(),
                at: None,
            },
            read("/r/skills/other/SKILL.md"),
        ];
        let detected = detect_skills(&events);
        assert_eq!(detected.len(), 2);
        assert_eq!(detected[0].skill, "find-skills");
        assert_eq!(detected[0].confidence, Confidence::Explicit);
        assert_eq!(
            detected[0].evidence,
            vec![
                "Read /r/.claude/skills/find-skills/SKILL.md".to_owned(),
                "Loaded via tool:skill".to_owned()
            ]
        );
        assert_eq!(detected[1].skill, "other");
        assert_eq!(detected[1].confidence, Confidence::Strong);
    }
}
