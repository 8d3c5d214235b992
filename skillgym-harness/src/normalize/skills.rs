//! Skill detection from a session's events.
//!
//! - an explicit skill load ([`SessionEvent::SkillSignal`]) is `explicit` evidence;
//! - a read of `<dir>/<skill>/SKILL.md` is `strong` evidence for `<skill>`;
//! - a read of another file inside a skill's directory is `medium` evidence. A skill's
//!   directory is one whose `SKILL.md` the session read, or any directory right under a
//!   directory named `skills` (`.claude/skills/<skill>/references/x.md`).
//!
//! One entry per skill, in order of first evidence; the strongest confidence wins and all
//! evidence is kept, without duplicates.

use std::collections::HashSet;
use std::path::Path;

use skillgym::{Confidence, SessionEvent, SkillDetection};

/// Detects the skills the agent used.
pub fn detect_skills(events: &[SessionEvent]) -> Vec<SkillDetection> {
    let skill_dirs: HashSet<&Path> = events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::FileRead { path, .. } if is_skill_file(path) => path.parent(),
            _ => None,
        })
        .collect();
    let mut detections: Vec<SkillDetection> = Vec::new();
    for event in events {
        let (skill, confidence, evidence) = match event {
            SessionEvent::SkillSignal { skill, signal, .. } => (
                skill.clone(),
                Confidence::Explicit,
                format!("Loaded via {signal}"),
            ),
            SessionEvent::FileRead { path, .. } if is_skill_file(path) => {
                let Some(skill) = dir_name(path.parent()) else {
                    continue;
                };
                (
                    skill,
                    Confidence::Strong,
                    format!("Read {}", path.display()),
                )
            }
            SessionEvent::FileRead { path, .. } => {
                let Some(dir) = path.ancestors().skip(1).find(|dir| {
                    skill_dirs.contains(dir)
                        || dir
                            .parent()
                            .and_then(Path::file_name)
                            .is_some_and(|name| name == "skills")
                }) else {
                    continue;
                };
                let Some(skill) = dir_name(Some(dir)) else {
                    continue;
                };
                (
                    skill,
                    Confidence::Medium,
                    format!("Read {} inside the skill's directory", path.display()),
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

fn is_skill_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "SKILL.md")
}

fn dir_name(dir: Option<&Path>) -> Option<String> {
    dir.and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
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

    #[test]
    fn files_inside_a_skill_directory_are_medium_evidence() {
        let events = vec![
            read("/r/.claude/skills/pdf/references/forms.md"),
            read("/r/vendor/tools/lint/SKILL.md"),
            read("/r/vendor/tools/lint/scripts/run.sh"),
            read("/r/skills/README.md"),
            read("/r/src/main.rs"),
        ];
        let detected = detect_skills(&events);
        let summary: Vec<(&str, Confidence)> = detected
            .iter()
            .map(|d| (d.skill.as_str(), d.confidence))
            .collect();
        assert_eq!(
            summary,
            [("pdf", Confidence::Medium), ("lint", Confidence::Strong)]
        );
        assert_eq!(detected[1].evidence.len(), 2);
        assert_eq!(
            detected[0].evidence,
            ["Read /r/.claude/skills/pdf/references/forms.md inside the skill's directory"]
        );
    }
}
