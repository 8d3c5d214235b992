//! Trigger suites: for one skill, prompts that should make an agent load it and prompts that
//! should not, each run as a case of its own (`triggers::<skill>::should::<n>`,
//! `triggers::<skill>::should-not::<n>`) on every selected runner.
//!
//! ```yaml
//! # skills/release-notes/triggers.yaml (beside SKILL.md)
//! should_trigger:
//!   - Write the release notes for v2.1 from the merged pull requests.
//!   - { id: changelog, prompt: Update CHANGELOG.md for this release., mock: mock/load.yaml }
//! should_not_trigger:
//!   - Rename the variable `x` to `count` in src/main.rs.
//! mock: mock/quiet.yaml      # the scripted model's script for `--mock` runs (per prompt too)
//! samples: 3                 # sessions per prompt and runner
//! min_recall: 0.8            # gates on this skill's recall and precision per runner
//! min_precision: 0.9
//! ```
//!
//! | where a trigger set comes from | its skill |
//! |---|---|
//! | `triggers.yaml` beside the `SKILL.md` of a skill under test (`run.skills`, a runner's `skills`) | that skill |
//! | a file listed in `triggers.files` of `skillgym.yaml` | its `skill:` key (required) |
//! | [`Harness::triggers`](crate::Harness::triggers) with a [`TriggerSet`] | [`TriggerSet::new`]'s |
//!
//! Each trigger session installs the skills under test and `triggers.distractors`, and ends as
//! soon as its decision is observable: at the agent's first skill load, or at its
//! `quiet_after`th action that loads none (see [`crate::config::TriggersConfig`]). A prompt's
//! case passes when every session did what it should; under `min_recall` / `min_precision` the
//! skill's figures on the runner decide instead (`crate::results::trigger_gate`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::registry::{CaseCheck, CaseSpec, PromptSpec};
use crate::config::yaml::{self, Located};
use crate::config::{ConfigError, DEFAULT_QUIET_AFTER, TriggersConfig};
use crate::results::{TriggerExpect, TriggerExpectation};
use crate::suggest::did_you_mean;

/// The file name of a trigger set beside a skill's `SKILL.md`.
pub const FILE_NAME: &str = "triggers.yaml";

/// The tag every trigger case has.
pub const TAG: &str = "triggers";

/// One skill's trigger prompts, with their settings: the Rust form of a `triggers.yaml`.
///
/// ```no_run
/// use skillgym_harness::suite::triggers::TriggerSet;
///
/// fn main() -> std::process::ExitCode {
///     skillgym_harness::Harness::new()
///         .triggers(
///             TriggerSet::new("release-notes")
///                 .should("Write the release notes for v2.1.")
///                 .should_not("Rename `x` to `count` in src/main.rs.")
///                 .min_recall(0.8),
///         )
///         .run()
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TriggerSet {
    skill: String,
    prompts: Vec<TriggerPrompt>,
    mock: Option<PathBuf>,
    samples: Option<u32>,
    min_recall: Option<f64>,
    min_precision: Option<f64>,
    /// `file:line` of the set, or `Harness::triggers`.
    source: String,
}

/// One prompt of a trigger set.
#[derive(Debug, Clone, PartialEq)]
struct TriggerPrompt {
    id: Option<String>,
    prompt: String,
    expect: TriggerExpect,
    mock: Option<PathBuf>,
    /// `file:line` of the prompt.
    source: Option<String>,
}

impl TriggerSet {
    /// An empty set for the skill named `skill` (the `name:` of its `SKILL.md`).
    pub fn new(skill: impl Into<String>) -> TriggerSet {
        TriggerSet {
            skill: skill.into(),
            prompts: Vec::new(),
            mock: None,
            samples: None,
            min_recall: None,
            min_precision: None,
            source: "Harness::triggers".to_owned(),
        }
    }

    /// Adds a prompt that should make the agent load the skill.
    pub fn should(self, prompt: impl Into<String>) -> TriggerSet {
        self.with_prompt(prompt.into(), TriggerExpect::Fire)
    }

    /// Adds a prompt that should not.
    pub fn should_not(self, prompt: impl Into<String>) -> TriggerSet {
        self.with_prompt(prompt.into(), TriggerExpect::Quiet)
    }

    fn with_prompt(mut self, prompt: String, expect: TriggerExpect) -> TriggerSet {
        self.prompts.push(TriggerPrompt {
            id: None,
            prompt,
            expect,
            mock: None,
            source: None,
        });
        self
    }

    /// Sessions per prompt and runner (beats `triggers.samples`).
    pub fn samples(mut self, samples: u32) -> TriggerSet {
        self.samples = Some(samples.max(1));
        self
    }

    /// The gate on the skill's recall on each runner, 0 to 1 (beats `triggers.min_recall`).
    pub fn min_recall(mut self, share: f64) -> TriggerSet {
        self.min_recall = Some(share.clamp(0.0, 1.0));
        self
    }

    /// The gate on the skill's precision on each runner, 0 to 1.
    pub fn min_precision(mut self, share: f64) -> TriggerSet {
        self.min_precision = Some(share.clamp(0.0, 1.0));
        self
    }

    /// The scripted model's script for `--mock` runs of every prompt (relative paths: to the
    /// test crate's directory).
    pub fn mock(mut self, script: impl Into<PathBuf>) -> TriggerSet {
        self.mock = Some(script.into());
        self
    }

    /// The skill.
    pub fn skill(&self) -> &str {
        &self.skill
    }

    /// Reads a trigger file; `skill` names the skill when the file has no `skill:` key (a
    /// `triggers.yaml` beside a `SKILL.md`).
    pub fn load(path: &Path, skill: Option<&str>) -> Result<TriggerSet, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            ConfigError::new(Some(path), format!("cannot read the trigger file: {error}"))
        })?;
        let raw: RawFile = yaml::parse(path, &text)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        let at = |line: u32| format!("{}:{line}", path.display());
        let name = match (&raw.skill, skill) {
            (Some(named), _) => named.value.clone(),
            (None, Some(skill)) => skill.to_owned(),
            (None, None) => {
                return Err(ConfigError::new(
                    Some(path),
                    "a trigger file outside a skill's directory needs `skill:`",
                )
                .with_help("e.g. `skill: release-notes`, the `name:` of its SKILL.md"));
            }
        };
        if raw.should_trigger.is_empty() && raw.should_not_trigger.is_empty() {
            return Err(ConfigError::new(
                Some(path),
                "a trigger file needs `should_trigger` or `should_not_trigger` prompts",
            ));
        }
        let mut set = TriggerSet::new(name);
        set.source = at(1);
        set.mock = raw.mock.map(|m| crate::config::resolve_path(dir, &m));
        set.samples = raw.samples.as_ref().map(|s| s.value);
        (set.min_recall, set.min_precision) = (raw.min_recall, raw.min_precision);
        for (items, expect) in [
            (raw.should_trigger, TriggerExpect::Fire),
            (raw.should_not_trigger, TriggerExpect::Quiet),
        ] {
            for item in items {
                let (prompt, id, mock) = match item.value {
                    RawPrompt::Text(prompt) => (prompt, None, None),
                    RawPrompt::Full { prompt, id, mock } => (prompt, id, mock),
                };
                set.prompts.push(TriggerPrompt {
                    id,
                    prompt,
                    expect,
                    mock: mock.map(|m| crate::config::resolve_path(dir, &m)),
                    source: Some(at(item.line)),
                });
            }
        }
        check_ids(&set, path, &text)?;
        if let Some(samples) = raw.samples.filter(|s| s.value == 0) {
            return Err(ConfigError::at(
                path,
                &text,
                samples.line,
                samples.column,
                "`samples` must be at least 1",
            ));
        }
        Ok(set)
    }

    /// The case id of the prompt at `index`: its `id`, else its 1-based number among the
    /// prompts of its kind, zero-padded so that they sort in order.
    fn case_id(&self, index: usize) -> String {
        let prompt = &self.prompts[index];
        let kind: Vec<usize> = (0..self.prompts.len())
            .filter(|&i| self.prompts[i].expect == prompt.expect)
            .collect();
        let name = match &prompt.id {
            Some(id) => id.clone(),
            None => {
                let number = kind.iter().position(|&i| i == index).unwrap_or(0) + 1;
                let width = kind.len().to_string().len();
                format!("{number:0width$}")
            }
        };
        format!("{TAG}::{}::{}::{name}", self.skill, prompt.expect.as_str())
    }
}

/// Two prompts of one kind with the same `id`: an error at the second.
fn check_ids(set: &TriggerSet, path: &Path, text: &str) -> Result<(), ConfigError> {
    let ids: Vec<String> = (0..set.prompts.len()).map(|i| set.case_id(i)).collect();
    for (index, id) in ids.iter().enumerate() {
        if ids[..index].contains(id) {
            let line = set.prompts[index]
                .source
                .as_deref()
                .and_then(|s| s.rsplit(':').next()?.parse().ok())
                .unwrap_or(0);
            return Err(ConfigError::at(
                path,
                text,
                line,
                1,
                format!("two trigger prompts have the case id `{id}`"),
            ));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    skill: Option<Located<String>>,
    #[serde(default)]
    should_trigger: Vec<Located<RawPrompt>>,
    #[serde(default)]
    should_not_trigger: Vec<Located<RawPrompt>>,
    #[serde(default)]
    mock: Option<PathBuf>,
    #[serde(default)]
    samples: Option<Located<u32>>,
    #[serde(default, deserialize_with = "de_min_recall")]
    min_recall: Option<f64>,
    #[serde(default, deserialize_with = "de_min_precision")]
    min_precision: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged, expecting = "a prompt, or `{ prompt, id, mock }`")]
enum RawPrompt {
    Text(String),
    Full {
        prompt: String,
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        mock: Option<PathBuf>,
    },
}

fn de_min_recall<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    crate::config::opt_fraction(d, "min_recall")
}

fn de_min_precision<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    crate::config::opt_fraction(d, "min_precision")
}

/// What a trigger case checks, and how its sessions end.
#[derive(Debug, Clone, PartialEq)]
pub struct TriggerCase {
    /// The skill, the expectation and the gates (also in the execution's result).
    pub expectation: TriggerExpectation,
    /// Actions without a skill after which a session is quiet.
    pub quiet_after: u32,
}

/// The trigger sets of a run: a `triggers.yaml` beside each skill under test's `SKILL.md`,
/// the files of `triggers.files`, then `from_code`; every set's skill must be installed in its
/// sessions (a skill under test or a distractor).
/// `name_of` gives a skill directory's skill name (its `SKILL.md`'s `name:`).
pub(crate) fn discover(
    skill_dirs: &[&Located<PathBuf>],
    config: &TriggersConfig,
    config_path: Option<&Path>,
    from_code: &[TriggerSet],
    name_of: &dyn Fn(&Path) -> Option<String>,
) -> Result<Vec<TriggerSet>, ConfigError> {
    let mut sets = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in skill_dirs {
        let file = dir.value.join(FILE_NAME);
        if !file.is_file() || seen.contains(&file) {
            continue;
        }
        let name = name_of(&dir.value).unwrap_or_else(|| dir_name(&dir.value));
        sets.push(TriggerSet::load(&file, Some(&name))?);
        seen.push(file);
    }
    for file in &config.files {
        if !file.value.is_file() {
            return Err(located(
                config_path,
                file,
                format!("trigger file `{}` does not exist", file.value.display()),
            ));
        }
        sets.push(TriggerSet::load(&file.value, None)?);
    }
    sets.extend(from_code.iter().cloned());
    if sets.is_empty() {
        // No trigger suite: no skill's `SKILL.md` is read at start-up (`--list` included).
        return Ok(sets);
    }
    let installed: Vec<String> = skill_dirs
        .iter()
        .copied()
        .chain(&config.distractors)
        .filter_map(|dir| name_of(&dir.value))
        .collect();
    for set in &sets {
        if !installed.contains(&set.skill) {
            let mut error = ConfigError::new(
                None,
                format!(
                    "trigger set {} is for skill `{}`, which no trigger session installs",
                    set.source, set.skill
                ),
            );
            error = match did_you_mean(&set.skill, installed.iter().map(String::as_str)) {
                Some(name) => error.with_help(format!("did you mean `{name}`?")),
                None => error.with_help(
                    "list its directory in `run.skills` (a skill under test) or `triggers.distractors`",
                ),
            };
            return Err(error);
        }
    }
    let mut ids: Vec<String> = Vec::new();
    for set in &sets {
        if ids.contains(&set.skill) {
            return Err(ConfigError::new(
                None,
                format!(
                    "skill `{}` has two trigger sets ({}); keep one",
                    set.skill, set.source
                ),
            ));
        }
        ids.push(set.skill.clone());
    }
    Ok(sets)
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn located(config_path: Option<&Path>, at: &Located<PathBuf>, message: String) -> ConfigError {
    match config_path {
        Some(path) => {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            ConfigError::at(path, &text, at.line, at.column, message)
        }
        None => ConfigError::new(None, message),
    }
}

/// The cases of `sets`: one per prompt, with the distractors installed, sampled
/// `set.samples`, else `triggers.samples`, else as the run samples.
pub(crate) fn case_specs(
    sets: &[TriggerSet],
    config: &TriggersConfig,
    base_dir: &Path,
) -> Vec<CaseSpec> {
    let distractors: Vec<PathBuf> = config.distractors.iter().map(|d| d.value.clone()).collect();
    let mut cases = Vec::new();
    for set in sets {
        for (index, prompt) in set.prompts.iter().enumerate() {
            let expectation = TriggerExpectation {
                skill: set.skill.clone(),
                expect: prompt.expect,
                prompt: prompt.prompt.clone(),
                min_recall: set.min_recall.or(config.min_recall),
                min_precision: set.min_precision.or(config.min_precision),
            };
            let mock = prompt.mock.as_ref().or(set.mock.as_ref());
            let check = CaseCheck::Trigger(Arc::new(TriggerCase {
                expectation,
                quiet_after: config.quiet_after.unwrap_or(DEFAULT_QUIET_AFTER),
            }));
            cases.push(CaseSpec {
                tags: vec![TAG.to_owned()],
                samples: set.samples.or(config.samples),
                mock_script: mock.map(|m| crate::config::resolve_path(base_dir, m)),
                skills: distractors.clone(),
                ..CaseSpec::new(
                    set.case_id(index),
                    prompt.source.clone().unwrap_or_else(|| set.source.clone()),
                    PromptSpec::Inline(prompt.prompt.clone()),
                    base_dir.to_path_buf(),
                    check,
                )
            });
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_trigger_file_gives_one_case_per_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            dir.path(),
            "pdf/triggers.yaml",
            "should_trigger:\n  - Fill in form.pdf\n  - { id: merge, prompt: Merge a.pdf and b.pdf, mock: m.yaml }\nshould_not_trigger:\n  - Rename x\nmock: quiet.yaml\nsamples: 3\nmin_recall: 0.75\n",
        );
        let set = TriggerSet::load(&file, Some("pdf")).unwrap();
        let config = TriggersConfig {
            min_precision: Some(0.9),
            ..TriggersConfig::default()
        };
        let cases = case_specs(&[set], &config, dir.path());
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "triggers::pdf::should::1",
                "triggers::pdf::should::merge",
                "triggers::pdf::should-not::1"
            ]
        );
        assert_eq!(cases[1].source, format!("{}:3", file.display()));
        assert_eq!(cases[0].samples, Some(3));
        assert_eq!(
            cases[0].mock_script,
            Some(dir.path().join("pdf/quiet.yaml"))
        );
        assert_eq!(cases[1].mock_script, Some(dir.path().join("pdf/m.yaml")));
        let CaseCheck::Trigger(trigger) = &cases[2].check else {
            panic!("a trigger case");
        };
        assert_eq!(trigger.expectation.expect, TriggerExpect::Quiet);
        assert_eq!(
            (
                trigger.expectation.min_recall,
                trigger.expectation.min_precision
            ),
            (Some(0.75), Some(0.9))
        );
        assert_eq!(trigger.quiet_after, DEFAULT_QUIET_AFTER);
    }

    #[test]
    fn the_rust_form_gives_the_same_cases() {
        let set = TriggerSet::new("pdf")
            .should("Fill form.pdf")
            .should_not("Rename x")
            .samples(2)
            .min_recall(0.5)
            .mock("mock/pdf.yaml");
        let cases = case_specs(&[set], &TriggersConfig::default(), Path::new("/crate"));
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            ["triggers::pdf::should::1", "triggers::pdf::should-not::1"]
        );
        assert_eq!(cases[0].source, "Harness::triggers");
        assert_eq!(cases[0].tags, [TAG]);
        assert_eq!(cases[1].samples, Some(2));
        assert_eq!(
            cases[1].mock_script,
            Some(PathBuf::from("/crate/mock/pdf.yaml"))
        );
        assert_eq!(cases[1].prompt, PromptSpec::Inline("Rename x".into()));
        let CaseCheck::Trigger(trigger) = &cases[0].check else {
            panic!("a trigger case");
        };
        assert_eq!(trigger.expectation.min_recall, Some(0.5));
    }

    #[test]
    fn bad_trigger_files_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let error = |text: &str| {
            let file = write(dir.path(), "t.yaml", text);
            TriggerSet::load(&file, Some("pdf"))
                .unwrap_err()
                .to_string()
        };
        let unknown = error("should_triger: [a]\n");
        assert!(
            unknown.contains("t.yaml:1:1") && unknown.contains("should_trigger"),
            "{unknown}"
        );
        let share = error("should_trigger: [a]\nmin_recall: 1.5\n");
        assert!(
            share.contains(":2:") && share.contains("`min_recall` is a share of sessions"),
            "{share}"
        );
        assert!(error("samples: 2\n").contains("needs `should_trigger` or `should_not_trigger`"));
        let twice =
            error("should_trigger:\n  - { id: a, prompt: one }\n  - { id: a, prompt: two }\n");
        assert!(
            twice.contains("t.yaml:3:1") && twice.contains("`triggers::pdf::should::a`"),
            "{twice}"
        );
        let file = write(dir.path(), "u.yaml", "should_trigger: [a]\n");
        let unnamed = TriggerSet::load(&file, None).unwrap_err().to_string();
        assert!(unnamed.contains("needs `skill:`"), "{unnamed}");
    }

    /// The skill named by a directory's `SKILL.md` (the harness reads the frontmatter).
    fn name_of(dir: &Path) -> Option<String> {
        let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
        let line = text.lines().find(|l| l.starts_with("name: "))?;
        Some(line["name: ".len()..].to_owned())
    }

    #[test]
    fn a_set_for_a_skill_no_session_installs_is_refused_with_a_suggestion() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "pdf/SKILL.md",
            "---\nname: pdf-forms\ndescription: d\n---\n",
        );
        let skill = Located {
            value: dir.path().join("pdf"),
            line: 0,
            column: 0,
        };
        let sets = [TriggerSet::new("pdf-form").should("x")];
        let error = discover(&[&skill], &TriggersConfig::default(), None, &sets, &name_of)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("skill `pdf-form`, which no trigger session installs")
                && error.contains("did you mean `pdf-forms`?"),
            "{error}"
        );
        write(
            dir.path(),
            "pdf/triggers.yaml",
            "should_trigger: [Fill form.pdf]\n",
        );
        let found = discover(&[&skill], &TriggersConfig::default(), None, &[], &name_of).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].skill(), "pdf-forms", "named by its SKILL.md");
    }
}
