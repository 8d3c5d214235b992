//! `skill-trigger`: whether the agent used a skill, on the same evidence as the Rust
//! assertions (`report.expect().skills()`), not agentv's scan of raw tool names.
//!
//! | `should_trigger` | passes when | evidence |
//! |---|---|---|
//! | `true` (default) | the report detected the skill (any confidence) | the detection's confidence and evidence, else the skills detected and the failed attempts at this one |
//! | `false` | it did not | the detection that should not be there |
//!
//! Names are compared exactly (the `name:` of the skill's `SKILL.md`). A failed load or
//! `SKILL.md` read ([`SessionReport::skill_attempts`]) never triggers. Binary.

use skillgym::SessionReport;

use super::{Check, GraderOutcome};

/// Grades `skill-trigger` for `skill`.
pub(crate) fn grade(skill: &str, should_trigger: bool, report: &SessionReport) -> GraderOutcome {
    let detection = report.skill(skill);
    let triggered = detection.is_some();
    let text = if should_trigger {
        format!("skill {skill:?} was used")
    } else {
        format!("skill {skill:?} was not used")
    };
    let evidence = match detection {
        Some(detection) => format!(
            "detected ({}): {}",
            detection.confidence.as_str(),
            detection.evidence.join("; ")
        ),
        None => {
            let detected: Vec<&str> = report
                .detected_skills()
                .iter()
                .map(|skill| skill.skill.as_str())
                .collect();
            let mut evidence = format!("not detected; skills detected: {detected:?}");
            for attempt in report.skill_attempts().iter().filter(|a| a.skill == skill) {
                evidence.push_str(&format!("; failed attempt (not evidence): {attempt}"));
            }
            evidence
        }
    };
    GraderOutcome::binary(vec![Check::with(
        text,
        triggered == should_trigger,
        evidence,
    )])
}

#[cfg(test)]
mod tests {
    use skillgym::{Confidence, SkillAttempt, SkillDetection};

    use super::*;
    use crate::grade::Verdict;

    fn used(skill: &str) -> SessionReport {
        SessionReport::default().with_skill(SkillDetection::new(
            skill,
            Confidence::Strong,
            [format!("Read /ws/.claude/skills/{skill}/SKILL.md")],
        ))
    }

    #[test]
    fn a_detected_skill_triggers() {
        let outcome = grade("find-skills", true, &used("find-skills"));
        assert_eq!((outcome.score, outcome.verdict), (1.0, Verdict::Pass));
        assert_eq!(
            outcome.checks[0].evidence.as_deref(),
            Some("detected (strong): Read /ws/.claude/skills/find-skills/SKILL.md")
        );
        let outcome = grade("find-skills", false, &used("find-skills"));
        assert_eq!((outcome.score, outcome.verdict), (0.0, Verdict::Fail));
    }

    #[test]
    fn weak_evidence_counts_as_in_the_rust_assertions() {
        let report = SessionReport::default().with_skill(SkillDetection::new(
            "x",
            Confidence::Weak,
            ["mentioned"],
        ));
        assert_eq!(grade("x", true, &report).verdict, Verdict::Pass);
    }

    #[test]
    fn an_absent_skill_does_not_trigger_and_names_match_exactly() {
        let report = used("find-skills-extra");
        let outcome = grade("find-skills", true, &report);
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert_eq!(
            outcome.checks[0].evidence.as_deref(),
            Some(r#"not detected; skills detected: ["find-skills-extra"]"#)
        );
        assert_eq!(grade("find-skills", false, &report).verdict, Verdict::Pass);
    }

    #[test]
    fn a_failed_load_never_triggers() {
        let report = SessionReport::default().with_skill_attempt(SkillAttempt::new(
            "ghost",
            "Skill tool",
            "Unknown skill: ghost",
        ));
        let outcome = grade("ghost", true, &report);
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!(
            outcome.checks[0]
                .evidence
                .as_deref()
                .unwrap()
                .contains("failed attempt (not evidence): ghost: attempted via Skill tool"),
            "{:?}",
            outcome.checks[0]
        );
        assert_eq!(grade("ghost", false, &report).verdict, Verdict::Pass);
    }
}
