//! Skills under test: loaded and validated once at start, installed for every attempt into
//! the directory the runner's agent discovers project skills from, inside the workspace (its
//! [`project_skills`](crate::agent::project_skills) directory).
//!
//! | module | concern |
//! |---|---|
//! | [`manifest`] | a `SKILL.md`'s frontmatter: validation with file:line:column errors, the name lookup detection uses |
//! | [`install`] | copying skills into an attempt's workspace |
//! | [`lint`] | static checks of skill directories (`cargo skillgym lint`), one table of rules |
//! | [`plan`] | which skills each attempt installs, checked at start |
//! | [`git_version`] | a skill under test as committed at a git revision (a variant's `skills: { git: REF }`) |
//!
//! Skills come from three places, merged in this order: `run.skills` of the configuration,
//! the runner's `skills`, and the case's `skills = [...]`. Two different directories with the
//! same skill name are an error; the same directory listed twice is installed once.

pub(crate) mod git_version;
pub(crate) mod install;
pub mod lint;
pub(crate) mod manifest;
pub(crate) mod plan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::ConfigError;

/// A validated skill directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skill {
    /// The `name:` of its `SKILL.md`.
    pub name: String,
    /// The `description:` of its `SKILL.md`.
    pub description: String,
    /// The directory (absolute).
    pub source: PathBuf,
}

/// The name the `SKILL.md` of skill directory `dir` gives, when it can be read (validation
/// aside).
pub(crate) fn name_of_dir(dir: &Path) -> Option<String> {
    manifest::name_at(&manifest::manifest_path(dir))
}

/// Loads the skill directory `dir`: it must hold a valid `SKILL.md`.
pub(crate) fn load(dir: &Path) -> Result<Skill, ConfigError> {
    if !dir.is_dir() {
        let problem = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(
            ConfigError::new(Some(dir), format!("the skill directory {problem}"))
                .with_help("a skill is a directory holding a SKILL.md"),
        );
    }
    let manifest_path = manifest::manifest_path(dir);
    if !manifest_path.is_file() {
        return Err(
            ConfigError::new(Some(dir), "the skill directory has no SKILL.md").with_help(
                "a skill's SKILL.md starts with frontmatter: `---`, `name: ...`, `description: ...`, `---`",
            ),
        );
    }
    let manifest = manifest::load(&manifest_path)?;
    Ok(Skill {
        name: manifest.name,
        description: manifest.description,
        source: dir.to_path_buf(),
    })
}

/// Skills loaded once per directory, so each `SKILL.md` is read and validated once a run.
#[derive(Debug, Default)]
pub(crate) struct SkillCache {
    loaded: HashMap<PathBuf, Arc<Skill>>,
}

impl SkillCache {
    /// The skill in `dir`, loaded on first use.
    pub(crate) fn get(&mut self, dir: &Path) -> Result<Arc<Skill>, ConfigError> {
        if let Some(skill) = self.loaded.get(dir) {
            return Ok(Arc::clone(skill));
        }
        let skill = Arc::new(load(dir)?);
        self.loaded.insert(dir.to_path_buf(), Arc::clone(&skill));
        Ok(skill)
    }
}

/// Merges lists of skills in order: a directory seen before is skipped; a different
/// directory with a name seen before is an error naming both.
pub(crate) fn merge<'a>(
    lists: impl IntoIterator<Item = &'a [Arc<Skill>]>,
) -> Result<Vec<Arc<Skill>>, SkillError> {
    let mut merged: Vec<Arc<Skill>> = Vec::new();
    for skill in lists.into_iter().flatten() {
        match merged.iter().find(|seen| seen.name == skill.name) {
            Some(seen) if seen.source == skill.source => {}
            Some(seen) => {
                return Err(SkillError::NameClash {
                    name: skill.name.clone(),
                    first: seen.source.clone(),
                    second: skill.source.clone(),
                });
            }
            None => merged.push(Arc::clone(skill)),
        }
    }
    Ok(merged)
}

/// A problem with the skills under test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A skill directory or its `SKILL.md` is wrong (located at the config entry listing it,
    /// or in the `SKILL.md`).
    #[error(transparent)]
    Invalid(#[from] ConfigError),
    /// A skill of a case's `skills = [...]` is wrong.
    #[error("skills: {0}")]
    InvalidForCase(ConfigError),
    /// Two different directories hold skills with the same name.
    #[error("two skills are named `{name}`: {} and {}", .first.display(), .second.display())]
    NameClash {
        /// The skill name.
        name: String,
        /// The directory seen first.
        first: PathBuf,
        /// The other one.
        second: PathBuf,
    },
    /// Skills are listed but attempts do not run in a workspace of their own.
    #[error(
        "{what} lists skills under test, which are installed into each attempt's own \
         workspace, but {place}\n  help: set `run.workspace: {{ mode: isolated }}` (with a \
         `template_dir` if the agent needs files), or give the case `workspace = \"...\"`"
    )]
    NeedsIsolation {
        /// Who lists them, e.g. "the case's `skills`".
        what: String,
        /// Why the workspace is not the attempt's own.
        place: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_dir(root: &Path, dir: &str, name: &str) -> PathBuf {
        let path = root.join(dir);
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(
            path.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Does {name}.\n---\n"),
        )
        .unwrap();
        path
    }

    #[test]
    fn loads_validates_and_merges() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-skills-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let root = tmp.path();
        let a = skill_dir(root, "a", "alpha");
        let b = skill_dir(root, "b", "beta");
        let other_alpha = skill_dir(root, "c", "alpha");
        let mut cache = SkillCache::default();
        let alpha = cache.get(&a).unwrap();
        assert_eq!(
            (alpha.name.as_str(), alpha.source.as_path()),
            ("alpha", a.as_path())
        );
        assert!(Arc::ptr_eq(&alpha, &cache.get(&a).unwrap()), "loaded once");
        let beta = cache.get(&b).unwrap();
        let merged = merge([&[alpha.clone(), beta.clone()][..], &[alpha.clone()][..]]).unwrap();
        assert_eq!(merged.len(), 2);
        let clash = cache.get(&other_alpha).unwrap();
        let error = merge([&[alpha][..], &[clash][..]]).unwrap_err().to_string();
        assert!(error.starts_with("two skills are named `alpha`"), "{error}");

        let missing = load(&root.join("nope")).unwrap_err();
        assert_eq!(missing.message(), "the skill directory does not exist");
        std::fs::create_dir_all(root.join("empty")).unwrap();
        let empty = load(&root.join("empty")).unwrap_err();
        assert_eq!(empty.message(), "the skill directory has no SKILL.md");
        std::fs::write(root.join("empty/SKILL.md"), "no frontmatter").unwrap();
        let bad = load(&root.join("empty")).unwrap_err();
        assert_eq!(
            bad.location(),
            Some((root.join("empty/SKILL.md"), 1, 1)),
            "{bad}"
        );
        tmp.close().unwrap();
    }
}
