//! Checks over the skills detected in a session.

use std::panic::Location;

use super::check::{Check, Mismatch, check_options};
use super::list::times;
use super::render::{self, Entry, Noun};
use super::sink::Sink;
use crate::{Confidence, SessionReport, SkillDetection};

/// Checks over the skills detected in a report. Open it with
/// [`Expect::skills`](super::Expect::skills).
///
/// Skill names are compared exactly. Only detections at or above the minimum confidence
/// count (see [`min_confidence`](Self::min_confidence); by default every detection counts).
/// A skill load or `SKILL.md` read that failed is never a detection: it is kept in
/// [`SessionReport::skill_attempts`] and no check here counts it. Failure messages list every
/// detected skill with its confidence and evidence, then the failed attempts.
///
/// ```
/// # use skillgym::prelude::*;
/// # let report = SessionReport::default().with_skill(SkillDetection::new(
/// #     "find-skills", Confidence::Strong, ["Read /repo/.claude/skills/find-skills/SKILL.md"]));
/// report
///     .expect()
///     .skills()
///     .min_confidence(Confidence::Strong)
///     .has("find-skills")
///     .not_has("deploy");
/// ```
pub struct Skills<'a> {
    check: Check<'a>,
    min_confidence: Confidence,
}

check_options!(Skills, "skills", "has(\"find-skills\")");

impl<'a> Skills<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        Skills {
            check: Check::new(report, sink),
            min_confidence: Confidence::Weak,
        }
    }

    /// Counts only detections at least this sure in the checks that follow in this chain:
    /// `Weak < Medium < Strong < Explicit`.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_skill(SkillDetection::new(
    /// #     "find-skills", Confidence::Explicit, ["Loaded via Skill tool"]));
    /// report.expect().skills().min_confidence(Confidence::Explicit).has("find-skills");
    /// ```
    pub fn min_confidence(mut self, confidence: Confidence) -> Self {
        self.min_confidence = confidence;
        self
    }

    /// The detections that count.
    fn counted(&self) -> impl Iterator<Item = &'a SkillDetection> + '_ {
        let min = self.min_confidence;
        self.check
            .report
            .detected_skills
            .iter()
            .filter(move |skill| skill.confidence >= min)
    }

    fn count_of(&self, name: &str) -> usize {
        self.counted().filter(|skill| skill.skill == name).count()
    }

    /// ` (at least strong)` when a minimum is set, else nothing.
    fn qualifier(&self) -> String {
        match self.min_confidence {
            Confidence::Weak => String::new(),
            min => format!(" (at least {})", min.as_str()),
        }
    }

    /// The failure text: `headline`, then every detected skill. Detections that count and are
    /// named in `marked` get a `>` meaning `mark`; the legend is shown only when one is marked.
    fn mismatch(
        &self,
        headline: String,
        marked: &[&str],
        mark: &str,
        question: String,
    ) -> Mismatch {
        let mut detail = headline;
        let entries: Vec<Entry> = self
            .check
            .report
            .detected_skills
            .iter()
            .map(|skill| {
                let below = skill.confidence < self.min_confidence;
                let mut text = format!("{} ({})", skill.skill, skill.confidence.as_str());
                if below {
                    text.push_str(" — below the minimum confidence");
                }
                Entry {
                    text,
                    details: evidence_lines(skill),
                    marked: !below && marked.contains(&skill.skill.as_str()),
                }
            })
            .collect();
        let mark = entries.iter().any(|entry| entry.marked).then_some(mark);
        render::observed(&mut detail, Noun::SKILL, &entries, mark);
        let attempts = &self.check.report.skill_attempts;
        if !attempts.is_empty() {
            let entries: Vec<Entry> = attempts
                .iter()
                .map(|attempt| Entry {
                    text: attempt.to_string(),
                    details: Vec::new(),
                    marked: false,
                })
                .collect();
            render::observed(&mut detail, Noun::FAILED_SKILL_ATTEMPT, &entries, None);
        }
        Mismatch::new(detail, question)
    }

    /// The skill was detected.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_skill(SkillDetection::new(
    /// #     "find-skills", Confidence::Strong, ["Read /s/find-skills/SKILL.md"]));
    /// report.expect().skills().has("find-skills");
    /// ```
    #[doc(alias = "contains")]
    #[track_caller]
    pub fn has(mut self, skill: &str) -> Self {
        let outcome = if self.count_of(skill) > 0 {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected the skill {skill:?} to be used{}",
                    self.qualifier()
                ),
                &[],
                "",
                format!("Why did you not use the {skill:?} skill?"),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The skill was not detected.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// report.expect().skills().not_has("deploy");
    /// ```
    #[doc(alias("not_contains", "excludes", "lacks"))]
    #[track_caller]
    pub fn not_has(mut self, skill: &str) -> Self {
        let outcome = if self.count_of(skill) == 0 {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected the skill {skill:?} not to be used{}",
                    self.qualifier()
                ),
                &[skill],
                "an offending skill",
                format!("Why did you use the {skill:?} skill?"),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Every one of `skills` was detected.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default()
    /// #     .with_skill(SkillDetection::new("a", Confidence::Strong, ["Read /s/a/SKILL.md"]))
    /// #     .with_skill(SkillDetection::new("b", Confidence::Explicit, ["Loaded via Skill tool"]));
    /// report.expect().skills().includes(["a", "b"]);
    /// ```
    #[track_caller]
    pub fn includes<'s>(mut self, skills: impl IntoIterator<Item = &'s str>) -> Self {
        let wanted: Vec<&str> = skills.into_iter().collect();
        let missing: Vec<&str> = wanted
            .iter()
            .copied()
            .filter(|skill| self.count_of(skill) == 0)
            .collect();
        let outcome = if missing.is_empty() {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected the skills [{}] to be used{}, but [{}] {} not",
                    quoted(&wanted),
                    self.qualifier(),
                    quoted(&missing),
                    if missing.len() == 1 { "was" } else { "were" }
                ),
                &[],
                "",
                format!("Why did you not use the skills [{}]?", quoted(&missing)),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The skill was detected exactly `expected` times (detections are merged per skill, so
    /// this is 0 or 1 for reports built by the harness).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// report.expect().skills().count("deploy", 0);
    /// ```
    #[doc(alias("times"))]
    #[track_caller]
    pub fn count(mut self, skill: &str, expected: usize) -> Self {
        let observed = self.count_of(skill);
        let outcome = if observed == expected {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected the skill {skill:?} to be detected {}{}, observed {observed}",
                    times(expected),
                    self.qualifier()
                ),
                &[skill],
                "a match",
                format!(
                    "Why did you use the {skill:?} skill {}, not {}?",
                    times(observed),
                    times(expected)
                ),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The skill was detected and no other skill was.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_skill(SkillDetection::new(
    /// #     "find-skills", Confidence::Strong, ["Read /s/find-skills/SKILL.md"]));
    /// report.expect().skills().exactly_one("find-skills");
    /// ```
    #[track_caller]
    pub fn exactly_one(mut self, skill: &str) -> Self {
        let others: Vec<&str> = self
            .counted()
            .filter(|detection| detection.skill != skill)
            .map(|detection| detection.skill.as_str())
            .collect();
        let found = self.count_of(skill);
        let outcome = if found == 1 && others.is_empty() {
            Ok(())
        } else {
            let why = match found {
                0 => "it was not used".to_owned(),
                1 => format!(
                    "[{}] also {}",
                    quoted(&others),
                    if others.len() == 1 { "was" } else { "were" }
                ),
                n => format!("it was detected {}", times(n)),
            };
            Err(self.mismatch(
                format!(
                    "expected {skill:?} to be the only skill used{}, but {why}",
                    self.qualifier()
                ),
                &others,
                "an offending skill",
                format!("Why did you not use exactly one skill, {skill:?}?"),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Every detected skill is one of `skills` (vacuously true when none was detected).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_skill(SkillDetection::new(
    /// #     "find-skills", Confidence::Strong, ["Read /s/find-skills/SKILL.md"]));
    /// report.expect().skills().only(["find-skills", "expo"]);
    /// ```
    #[track_caller]
    pub fn only<'s>(mut self, skills: impl IntoIterator<Item = &'s str>) -> Self {
        let allowed: Vec<&str> = skills.into_iter().collect();
        let extra: Vec<&str> = self
            .counted()
            .filter(|detection| !allowed.contains(&detection.skill.as_str()))
            .map(|detection| detection.skill.as_str())
            .collect();
        let outcome = if extra.is_empty() {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected only the skills [{}] to be used{}, but [{}] also {}",
                    quoted(&allowed),
                    self.qualifier(),
                    quoted(&extra),
                    if extra.len() == 1 { "was" } else { "were" }
                ),
                &extra,
                "an offending skill",
                format!("Why did you use the skills [{}]?", quoted(&extra)),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }
}

/// Up to three evidence lines, then a count of the rest.
fn evidence_lines(skill: &SkillDetection) -> Vec<String> {
    const SHOWN: usize = 3;
    let mut lines: Vec<String> = skill
        .evidence
        .iter()
        .take(SHOWN)
        .map(|evidence| format!("evidence: {evidence}"))
        .collect();
    if skill.evidence.len() > SHOWN {
        lines.push(format!("… {} more", skill.evidence.len() - SHOWN));
    }
    lines
}

fn quoted(names: &[&str]) -> String {
    render::join(names.iter().map(|name| format!("{name:?}")))
}
