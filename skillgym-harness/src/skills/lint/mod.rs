//! `cargo skillgym lint`: static checks of skill directories, no agent started.
//!
//! Every rule is one row of `rules::RULES` (its id, its severity, whether a run that installs
//! the skill prints its findings, its check):
//!
//! | rule | severity | at install | checks | why |
//! |---|---|---|---|---|
//! | `frontmatter` | error | – (the loader stops it) | `SKILL.md` opens with YAML frontmatter between `---` lines that parses | agents read the skill's name and description from it |
//! | `name` | error | – (the loader stops it) | `name` is present, 1–64 lowercase letters, digits and single hyphens | the agentskills.io spec; skillgym's loader refuses other names too |
//! | `name-matches-directory` | error | – (installed under its name) | `name` equals the skill directory's name | the agentskills.io spec requires it (skillgym itself installs a skill under its name) |
//! | `description` | error | – (the loader stops it) | `description` is present, a string, not empty | agents choose a skill by its description alone |
//! | `description-length` | error | – (the loader stops it) | `description` within every agent's limit (`rules::AGENT_LIMITS`) | Codex refuses a skill whose description has more than 1,024 characters; so does the spec |
//! | `optional-key` | warning | yes | other keys are `license`, `compatibility` (≤ 500 characters), `metadata` (a mapping), `allowed-tools` | the agentskills.io spec's optional keys; anything else is agent-specific or a typo |
//! | `when-to-use` | warning | – (advice to the author) | the description says when to use the skill (`when`, `if`, `use for`, …) | agents decide from the description; one that says only what the skill is fires less reliably |
//! | `body-tokens` | warning | yes | the body after the frontmatter is within `--max-body-tokens` (default 5,000) estimated tokens | agentskills.io recommends under 5,000 tokens for the body, loaded whole when the skill fires |
//! | `broken-link` | error | yes | relative Markdown links outside code blocks point at files that exist | the agent follows them to files that are not there |
//! | `missing-file` | warning | yes | `scripts/…`, `references/…` and `assets/…` paths the body names exist | the agent runs or reads them; a bare mention may also mean a file of the user's project |
//! | `script-not-executable` | warning | yes | files under `scripts/` that start with `#!` have an executable bit (Unix only) | the agent runs them as `scripts/x`, which fails with "permission denied" |
//! | `duplicate-name` | error | – (each attempt's merge stops it) | no two skills among the given directories share a `name` | an agent loads one of them, and which one is undefined |
//!
//! Tokens are estimated as characters / 4 (rounded up): there is no tokenizer dependency,
//! and the figure says so in every output.
//!
//! When a run installs skills under test, the rules marked "at install" run once at start
//! and their findings are printed as warnings, once a run (with the suites' warnings, kept in
//! `suite-warnings.txt`); what the skill loader rejects already stops the run or fails the case.
//!
//! Output ([`render`]): human (`path:line:column: error[rule]: message` and a `help:` line),
//! JSON (the schema is documented on [`render::json`]) and GitHub Actions workflow commands.

pub mod render;
mod rules;
mod scan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::ConfigError;

/// The default budget of the body's estimated tokens: agentskills.io recommends keeping a
/// `SKILL.md` body under 5,000 tokens (and 500 lines).
pub const DEFAULT_MAX_BODY_TOKENS: usize = 5000;

/// How the token figures are estimated, as printed with them.
pub const TOKEN_ESTIMATE: &str = "characters / 4";

/// How severe a finding is: errors fail the lint (exit 1), warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth fixing; the skill still works.
    Warning,
    /// The skill is wrong: an agent refuses it or misreads it.
    Error,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem found in a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file, as reached from the directory given (usually a `SKILL.md`).
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// Error or warning.
    pub severity: Severity,
    /// The rule's id, e.g. `description-length`.
    pub rule: &'static str,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is more to say.
    pub help: Option<String>,
}

/// What the lint is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The most estimated tokens a body may have before `body-tokens` warns.
    pub max_body_tokens: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_body_tokens: DEFAULT_MAX_BODY_TOKENS,
        }
    }
}

/// The findings over a set of skills.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// How many skill directories were checked.
    pub skills: usize,
    /// Every finding, by file, line and column.
    pub findings: Vec<Finding>,
}

impl Report {
    /// How many findings have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    }
}

/// Why the lint could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LintError {
    /// A directory given does not exist or is not a directory.
    #[error("{}: {problem}", .path.display())]
    NotADirectory {
        /// The argument.
        path: PathBuf,
        /// `does not exist` or `is not a directory`.
        problem: &'static str,
    },
    /// No `SKILL.md` was found under a directory given.
    #[error("{}: no SKILL.md in it or below it", .0.display())]
    NoSkills(PathBuf),
}

/// Lints the skills in `dirs`: each is a skill directory (holding a `SKILL.md`) or a
/// directory searched for them (symlinks are not followed, `.git` and `node_modules` skipped,
/// nothing below a skill directory).
pub fn lint(dirs: &[PathBuf], options: &Options) -> Result<Report, LintError> {
    let mut skill_dirs = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            let problem = if dir.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            return Err(LintError::NotADirectory {
                path: dir.clone(),
                problem,
            });
        }
        let before = skill_dirs.len();
        find_skills(dir, &mut skill_dirs);
        if skill_dirs.len() == before {
            return Err(LintError::NoSkills(dir.clone()));
        }
    }
    skill_dirs.dedup();
    Ok(lint_skills(&skill_dirs, options))
}

/// Lints the skill directories `dirs` (each holding a `SKILL.md`).
pub(crate) fn lint_skills(dirs: &[PathBuf], options: &Options) -> Report {
    let skills: Vec<rules::SkillFile> =
        dirs.iter().map(|dir| rules::SkillFile::read(dir)).collect();
    let mut names: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for skill in &skills {
        if let Some(name) = skill.name() {
            names.entry(name).or_default().push(skill.path.clone());
        }
    }
    let context = rules::Context { options, names };
    let mut findings: Vec<Finding> = skills
        .iter()
        .flat_map(|skill| rules::check(skill, &context))
        .collect();
    findings.sort_by(|a, b| {
        (&a.file, a.line, a.column, a.rule).cmp(&(&b.file, b.line, b.column, b.rule))
    });
    Report {
        skills: skills.len(),
        findings,
    }
}

/// The findings of the skills under test in `dirs` that a run prints, as (file, message)
/// warnings: those of the rules marked "at install" in the module table.
pub(crate) fn install_warnings(dirs: &[PathBuf]) -> Vec<(PathBuf, String)> {
    lint_skills(dirs, &Options::default())
        .findings
        .into_iter()
        .filter(|finding| {
            rules::RULES
                .iter()
                .any(|rule| rule.id == finding.rule && rule.at_install)
        })
        .map(|finding| {
            let message = format!(
                "{} (line {}, column {}; `cargo skillgym lint` rule `{}`)",
                finding.message, finding.line, finding.column, finding.rule
            );
            (finding.file, message)
        })
        .collect()
}

/// Pushes `dir` when it holds a `SKILL.md`, else the skill directories below it, in name order.
fn find_skills(dir: &Path, found: &mut Vec<PathBuf>) {
    if dir.join("SKILL.md").is_file() {
        found.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter(|entry| !matches!(entry.file_name().to_str(), Some(".git" | "node_modules")))
        .map(|entry| entry.path())
        .collect();
    children.sort();
    for child in children {
        find_skills(&child, found);
    }
}

/// A [`ConfigError`] (from the manifest parser) as a finding of `rule`.
fn from_config_error(
    file: &Path,
    error: &ConfigError,
    severity: Severity,
    rule: &'static str,
) -> Finding {
    let (line, column) = error
        .location()
        .map_or((1, 1), |(_, line, column)| (line.max(1), column.max(1)));
    Finding {
        file: file.to_path_buf(),
        line,
        column,
        severity,
        rule,
        message: error.message().to_owned(),
        help: error.help().map(str::to_owned),
    }
}

#[cfg(test)]
mod tests;
