//! Skill detection.

use std::path::PathBuf;

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
#[non_exhaustive]
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

impl Confidence {
    /// The name used in reports and messages: `weak`, `medium`, `strong`, `explicit`.
    ///
    /// ```
    /// assert_eq!(skillgym::Confidence::Strong.as_str(), "strong");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Weak => "weak",
            Confidence::Medium => "medium",
            Confidence::Strong => "strong",
            Confidence::Explicit => "explicit",
        }
    }
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
    /// The skill's name: the `name:` of its `SKILL.md` frontmatter, the skill tool's argument,
    /// or (when the `SKILL.md` could not be read) its directory's name.
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

/// A skill load or `SKILL.md` read that failed. Never evidence that the skill was used; kept
/// so that failure messages can say what the agent tried.
///
/// ```
/// use skillgym::SkillAttempt;
///
/// let attempt = SkillAttempt::new("ghost-skill", "Skill tool", "Unknown skill: ghost-skill");
/// assert_eq!(attempt.to_string(), "ghost-skill: attempted via Skill tool, failed: Unknown skill: ghost-skill");
/// let json = serde_json::json!({"skill": "ghost-skill", "via": "Skill tool", "error": "Unknown skill: ghost-skill"});
/// assert_eq!(serde_json::to_value(&attempt).unwrap(), json);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillAttempt {
    /// The skill asked for (the skill tool's argument, or the name the path gives).
    pub skill: String,
    /// How it was tried: the skill tool's name, or `Read <path>`.
    pub via: String,
    /// What the agent's tool answered.
    pub error: String,
}

impl SkillAttempt {
    /// An attempt at `skill` made `via` a tool, which failed with `error`.
    pub fn new(skill: impl Into<String>, via: impl Into<String>, error: impl Into<String>) -> Self {
        SkillAttempt {
            skill: skill.into(),
            via: via.into(),
            error: error.into(),
        }
    }
}

impl std::fmt::Display for SkillAttempt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: attempted via {}, failed: {}",
            self.skill, self.via, self.error
        )
    }
}

/// A skill under test the harness installed for the session: its name (the `name:` of its
/// `SKILL.md`), the directory it was copied from, and where the agent found it.
///
/// ```
/// use skillgym::InstalledSkill;
///
/// let skill = InstalledSkill {
///     name: "find-skills".into(),
///     source: "/repo/skills/find-skills".into(),
///     path: "/run/ws/.claude/skills/find-skills".into(),
/// };
/// let json = serde_json::json!({
///     "name": "find-skills",
///     "source": "/repo/skills/find-skills",
///     "path": "/run/ws/.claude/skills/find-skills",
/// });
/// assert_eq!(serde_json::to_value(&skill).unwrap(), json);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledSkill {
    /// The skill's name.
    pub name: String,
    /// The skill directory it was copied from (absolute).
    pub source: PathBuf,
    /// The copy the agent sees, inside the attempt's workspace (absolute).
    pub path: PathBuf,
}
