//! `SKILL.md`: its YAML frontmatter, validated with file:line:column errors, and the lenient
//! name lookup skill detection uses.
//!
//! A skill's `SKILL.md` starts with a frontmatter block between two `---` lines holding at
//! least `name` (1–64 characters: lowercase letters, digits and single hyphens, not at either
//! end) and `description` (1–1024 characters). Other keys (`license`, `allowed-tools`,
//! `metadata`, …) belong to the agents and are left alone.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::config::ConfigError;
use crate::config::yaml::{self, Located};

/// The longest skill name agents accept.
const MAX_NAME: usize = 64;
/// The longest description agents accept.
const MAX_DESCRIPTION: usize = 1024;

/// The frontmatter of a valid `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// The skill's name: what agents list and load it by.
    pub name: String,
    /// What the skill is for: what agents decide by.
    pub description: String,
}

#[derive(Debug, Deserialize)]
struct Frontmatter {
    name: Option<Located<Value>>,
    description: Option<Located<Value>>,
    #[serde(flatten)]
    _rest: serde_json::Map<String, Value>,
}

/// The frontmatter block of `text`: its YAML and the 1-based line it starts on, or `None`
/// when `text` does not open with a `---` line.
pub(crate) fn frontmatter(text: &str) -> Option<(&str, usize)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut end = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Some((&text[start..end], 2));
        }
        end += line.len();
    }
    None
}

/// Reads and validates the `SKILL.md` at `path`.
pub(crate) fn load(path: &Path) -> Result<Manifest, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| ConfigError::new(Some(path), format!("cannot read the skill: {error}")))?;
    parse(path, &text)
}

/// Validates the `SKILL.md` text `text`, read from `path` (named in errors).
pub(crate) fn parse(path: &Path, text: &str) -> Result<Manifest, ConfigError> {
    let Some((yaml_text, first_line)) = frontmatter(text) else {
        return Err(ConfigError::at(
            path,
            text,
            1,
            1,
            "a SKILL.md must start with YAML frontmatter between `---` lines",
        )
        .with_help("begin the file with `---`, then `name: <skill-name>` and `description: <what it is for>`, then `---`"));
    };
    let shift = first_line as u32 - 1;
    let moved = |line: u32| if line > 0 { line + shift } else { 0 };
    let front: Frontmatter = yaml::parse(path, yaml_text).map_err(|error| {
        let (line, column) = error
            .location()
            .map_or((0, 0), |(_, line, column)| (line, column));
        let moved_error = if line > 0 {
            ConfigError::at(path, text, moved(line), column, error.message())
        } else {
            ConfigError::new(Some(path), error.message())
        };
        match error.help() {
            Some(help) => moved_error.with_help(help),
            None => moved_error,
        }
    })?;
    let at = |field: &Located<Value>, message: String| {
        ConfigError::at(path, text, moved(field.line), field.column, message)
    };
    let missing = |key: &str| {
        ConfigError::at(path, text, 1, 1, format!("the frontmatter has no `{key}`"))
            .with_help("a SKILL.md's frontmatter needs `name` and `description`")
    };
    let name_field = front.name.ok_or_else(|| missing("name"))?;
    let Value::String(name) = &name_field.value else {
        return Err(at(&name_field, "`name` must be a string".to_owned()));
    };
    if let Some(problem) = name_problem(name) {
        return Err(at(
            &name_field,
            format!("invalid skill name {name:?}: {problem}"),
        )
        .with_help("use lowercase letters, digits and hyphens, e.g. `find-skills`"));
    }
    let description_field = front.description.ok_or_else(|| missing("description"))?;
    let Value::String(description) = &description_field.value else {
        return Err(at(
            &description_field,
            "`description` must be a string".to_owned(),
        ));
    };
    let length = description.trim().chars().count();
    if length == 0 {
        return Err(at(
            &description_field,
            "`description` is empty; agents choose skills by it".to_owned(),
        ));
    }
    if length > MAX_DESCRIPTION {
        return Err(at(
            &description_field,
            format!(
                "`description` has {length} characters, more than the {MAX_DESCRIPTION} agents accept"
            ),
        ));
    }
    Ok(Manifest {
        name: name.clone(),
        description: description.trim().to_owned(),
    })
}

/// What is wrong with a skill name, if anything.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name.len() > MAX_NAME {
        return Some(format!("it is longer than {MAX_NAME} characters"));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!(
            "{bad:?} is not a lowercase letter, a digit or a hyphen"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("it starts or ends with a hyphen".to_owned());
    }
    if name.contains("--") {
        return Some("it has two hyphens in a row".to_owned());
    }
    None
}

/// The `name:` of the `SKILL.md` at `path`, when the file can be read and its frontmatter
/// names a skill (validation aside); `None` otherwise. For skill detection, which must not
/// fail on a skill the agent found elsewhere.
pub(crate) fn name_at(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let (yaml_text, _) = frontmatter(&text)?;
    let front: Frontmatter = yaml::parse(path, yaml_text).ok()?;
    match front.name?.value {
        Value::String(name) if !name.trim().is_empty() => Some(name.trim().to_owned()),
        _ => None,
    }
}

/// A skill directory's `SKILL.md`.
pub(crate) fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("SKILL.md")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Manifest, ConfigError> {
        parse(Path::new("/s/x/SKILL.md"), text)
    }

    #[test]
    fn a_valid_frontmatter_gives_name_and_description() {
        let manifest = parse_text(
            "---\nname: find-skills\ndescription: Finds skills.\nlicense: MIT\n---\n# Body\n",
        )
        .unwrap();
        assert_eq!(manifest.name, "find-skills");
        assert_eq!(manifest.description, "Finds skills.");
    }

    #[test]
    fn errors_point_into_the_file() {
        let err = parse_text("---\nname: Find_Skills\ndescription: x\n---\n").unwrap_err();
        assert_eq!(err.location(), Some(("/s/x/SKILL.md".into(), 2, 7)));
        assert!(
            err.message().contains("'F' is not a lowercase letter"),
            "{err}"
        );
        let err = parse_text("---\nname: a\n---\n").unwrap_err();
        assert_eq!(err.message(), "the frontmatter has no `description`");
        let err = parse_text("# no frontmatter\n").unwrap_err();
        assert_eq!(err.location(), Some(("/s/x/SKILL.md".into(), 1, 1)));
        let err = parse_text("---\nname: a\ndescription: [x\n---\n").unwrap_err();
        assert_eq!(
            err.location().map(|(_, line, _)| line >= 3),
            Some(true),
            "{err}"
        );
        let err = parse_text("---\nname: a\ndescription: \"  \"\n---\n").unwrap_err();
        assert_eq!(err.location(), Some(("/s/x/SKILL.md".into(), 3, 14)));
    }

    #[test]
    fn names_follow_the_agent_skills_format() {
        for good in ["a", "find-skills", "pdf2-tools"] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
    }
}
