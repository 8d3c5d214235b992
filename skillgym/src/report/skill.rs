//! Skill detection.

use serde::{Deserialize, Serialize};

/// How sure the detection of a skill is. Ordered: `Weak < Medium < Strong < Explicit`.
///
/// ```
/// use skillgym::Confidence;
///
/// assert!(Confidence::Weak < Confidence::Medium && Confidence::Strong < Confidence::Explicit);
/// let strongest = [Confidence::Medium, Confidence::Strong, Confidence::Weak].into_iter().max();
/// assert_eq!(strongest, Some(Confidence::Strong));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// Circumstantial evidence.
    Weak,
    /// A file inside the skill's directory was read.
    Medium,
    /// The skill's `SKILL.md` was read.
    Strong,
    /// The agent loaded the skill through its skill tool.
    Explicit,
}

/// One skill the agent used, with the strongest confidence seen and all evidence.
///
/// ```
/// use skillgym::{Confidence, SkillDetection};
///
/// let skill = SkillDetection::new("x", Confidence::Strong, ["Read /s/x/SKILL.md"]);
/// let json = serde_json::json!({"skill": "x", "confidence": "strong", "evidence": ["Read /s/x/SKILL.md"]});
/// assert_eq!(serde_json::to_value(&skill).unwrap(), json);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillDetection {
    /// The skill's name (its directory name).
    pub skill: String,
    /// The strongest confidence among the evidence.
    pub confidence: Confidence,
    /// Human-readable evidence, e.g. `Read /repo/.claude/skills/x/SKILL.md`.
    pub evidence: Vec<String>,
}

impl SkillDetection {
    /// A detection with its evidence.
    ///
    /// ```
    /// use skillgym::{Confidence, SkillDetection};
    ///
    /// let skill = SkillDetection::new("find-skills", Confidence::Strong, ["Read /s/find-skills/SKILL.md"]);
    /// assert_eq!(skill.evidence.len(), 1);
    /// ```
    pub fn new(
        skill: impl Into<String>,
        confidence: Confidence,
        evidence: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        SkillDetection {
            skill: skill.into(),
            confidence,
            evidence: evidence.into_iter().map(Into::into).collect(),
        }
    }
}
